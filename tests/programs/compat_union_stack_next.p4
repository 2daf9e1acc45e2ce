// `.next` on a stack of header unions: `extract(s.next.m)` extracts into member m of the element
// at nextIndex and then advances nextIndex, as for stacks of headers. A fourth element does not
// exist: extracting it fails with error.StackOutOfBounds.
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> v;
}

header b_t {
    bit<16> v;
}

header_union u_t {
    a_t a;
    b_t b;
}

header err_t {
    bit<8> code;
}

struct headers_t {
    err_t e;
    u_t[3] u;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.u.next.a);
        transition select(hdr.u[0].a.v) {
            0x01: two;
            0x02: overflow;
            default: accept;
        }
    }
    state two {
        packet.extract(hdr.u.next.a);
        packet.extract(hdr.u.next.b);
        transition accept;
    }
    state overflow {
        packet.extract(hdr.u.next.a);
        packet.extract(hdr.u.next.a);
        packet.extract(hdr.u.next.a);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.e.setValid();
        hdr.e.code = 0;
        if (standard_metadata.parser_error == error.StackOutOfBounds) {
            hdr.e.code = 3;
        }
        standard_metadata.egress_spec = 1;
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.e);
        packet.emit(hdr.u);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

// Header union: the parser extracts one member; isValid on members and on the
// union; setValid on one member invalidates the other; emit emits the valid one.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header a_t {
    bit<16> x;
}

header b_t {
    bit<32> y;
}

header_union u_t {
    a_t a;
    b_t b;
}

struct headers_t {
    data_t data;
    u_t    u;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition select(hdr.data.b1) {
            1: parse_a;
            2: parse_b;
            default: accept;
        }
    }

    state parse_a {
        packet.extract(hdr.u.a);
        transition accept;
    }

    state parse_b {
        packet.extract(hdr.u.b);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        if (hdr.u.a.isValid()) {
            hdr.data.h1 = hdr.u.a.x;
            standard_metadata.egress_spec = 1;
        } else if (hdr.u.b.isValid()) {
            hdr.data.f2 = hdr.u.b.y;
            standard_metadata.egress_spec = 2;
        } else {
            if (!hdr.u.isValid()) {
                hdr.data.b2 = 0x55;
            }
            hdr.u.a.setValid();
            hdr.u.a.x = 0x1234;
            hdr.u.b.setValid();
            hdr.u.b.y = 0xCAFEBABE;
            standard_metadata.egress_spec = 3;
        }
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
        packet.emit(hdr.u);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

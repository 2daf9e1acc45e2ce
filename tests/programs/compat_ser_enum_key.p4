// p4c compatibility: a table key of serializable-enum type takes keysets of the enum's
// underlying type (`(bit<16>)E.X &&& 0xff00`, plain integers) as well as enum members.
#include <core.p4>
#include <v1model.p4>

enum bit<16> kind_t {
    ALPHA = 0x1234,
    BETA  = 0x5678
}

header h_t {
    kind_t  k;
    bit<8>  port;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action set(bit<9> p) {
        standard_metadata.egress_spec = p;
        hdr.h.port = (bit<8>)p;
    }
    action none() {
        standard_metadata.egress_spec = 0;
    }
    table t {
        key = { hdr.h.k : ternary; }
        actions = { set; none; }
        default_action = none;
        const entries = {
            kind_t.BETA                          : set(2);
            ((bit<16>)kind_t.ALPHA) &&& 0xff00   : set(1);
            0x9900 &&& 0xff00                    : set(3);
            kind_t.BETA &&& 0x00ff               : set(4);
        }
    }
    apply {
        t.apply();
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
        packet.emit(hdr.h);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

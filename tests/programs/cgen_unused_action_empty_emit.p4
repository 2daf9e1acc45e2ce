// Generated C must compile with -Werror when the program declares an action that no table
// lists and nothing calls (an unused static function), and when the deparser emits a struct
// that contains no headers (nothing is written through the emit pointer).
#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> v;
}

struct empty_t {
}

struct headers_t {
    b_t     b;
    empty_t nothing;
}

struct metadata_t {
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.b);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action never_used() {
        hdr.b.v = 0xff;
    }
    apply {
        hdr.b.v = hdr.b.v ^ 0x0f;
        sm.egress_spec = 2;
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}

control CC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.nothing);
        packet.emit(hdr.b);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

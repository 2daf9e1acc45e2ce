// expect: errors E0405: size 0, sizes beyond 2^32-1 (the runtime refuses them), 3 entries in a table of size 2
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<32> b;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<8> x;
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { meta.x = v; }
    table zero {
        key = { hdr.h.a : exact; }
        actions = { set; }
        size = 0;
    }
    table too_large {
        key = { hdr.h.a : exact; }
        actions = { set; }
        size = 4294967296;
    }
    table far_too_large {
        key = { hdr.h.a : exact; }
        actions = { set; }
        size = 1 << 40;
    }
    table entries_do_not_fit {
        key = { hdr.h.a : exact; }
        actions = { set; }
        size = 2;
        const entries = {
            1 : set(1);
            2 : set(2);
            3 : set(3);
        }
    }
    apply {
        zero.apply();
        too_large.apply();
        far_too_large.apply();
        entries_do_not_fit.apply();
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
        packet.emit(hdr.h);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

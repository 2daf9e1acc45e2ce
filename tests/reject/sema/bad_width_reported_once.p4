// expect: one error E0309 for the width; no follow-on errors (in core.p4, the sub-parser call, the table entries)
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

header big_t {
    bit<100000> f;
}

struct big_s {
    big_t b;
}

parser Sub(packet_in packet, out big_s x) {
    state start {
        packet.extract(x.b);
        transition accept;
    }
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    big_s big;
    Sub() sub;
    state start {
        packet.extract(hdr.h);
        sub.apply(packet, big);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { meta.x = v; }
    table t {
        key = { hdr.h.a : exact; meta.x : exact; }
        actions = { set; }
        const entries = { (1, 2) : set(3); }
    }
    apply {
        t.apply();
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

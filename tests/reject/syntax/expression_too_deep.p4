// expect: error E0113: an operator chain 256 levels high (300 operands) is too deep for later passes
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

    apply {
        meta.x =
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a +
            hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a;
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

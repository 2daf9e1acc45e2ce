// expect: error E0413: c69 is defined through more than 64 other constants (the limit)
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
const bit<8> c0 = 1;
const bit<8> c1 = c0 + 1;
const bit<8> c2 = c1 + 1;
const bit<8> c3 = c2 + 1;
const bit<8> c4 = c3 + 1;
const bit<8> c5 = c4 + 1;
const bit<8> c6 = c5 + 1;
const bit<8> c7 = c6 + 1;
const bit<8> c8 = c7 + 1;
const bit<8> c9 = c8 + 1;
const bit<8> c10 = c9 + 1;
const bit<8> c11 = c10 + 1;
const bit<8> c12 = c11 + 1;
const bit<8> c13 = c12 + 1;
const bit<8> c14 = c13 + 1;
const bit<8> c15 = c14 + 1;
const bit<8> c16 = c15 + 1;
const bit<8> c17 = c16 + 1;
const bit<8> c18 = c17 + 1;
const bit<8> c19 = c18 + 1;
const bit<8> c20 = c19 + 1;
const bit<8> c21 = c20 + 1;
const bit<8> c22 = c21 + 1;
const bit<8> c23 = c22 + 1;
const bit<8> c24 = c23 + 1;
const bit<8> c25 = c24 + 1;
const bit<8> c26 = c25 + 1;
const bit<8> c27 = c26 + 1;
const bit<8> c28 = c27 + 1;
const bit<8> c29 = c28 + 1;
const bit<8> c30 = c29 + 1;
const bit<8> c31 = c30 + 1;
const bit<8> c32 = c31 + 1;
const bit<8> c33 = c32 + 1;
const bit<8> c34 = c33 + 1;
const bit<8> c35 = c34 + 1;
const bit<8> c36 = c35 + 1;
const bit<8> c37 = c36 + 1;
const bit<8> c38 = c37 + 1;
const bit<8> c39 = c38 + 1;
const bit<8> c40 = c39 + 1;
const bit<8> c41 = c40 + 1;
const bit<8> c42 = c41 + 1;
const bit<8> c43 = c42 + 1;
const bit<8> c44 = c43 + 1;
const bit<8> c45 = c44 + 1;
const bit<8> c46 = c45 + 1;
const bit<8> c47 = c46 + 1;
const bit<8> c48 = c47 + 1;
const bit<8> c49 = c48 + 1;
const bit<8> c50 = c49 + 1;
const bit<8> c51 = c50 + 1;
const bit<8> c52 = c51 + 1;
const bit<8> c53 = c52 + 1;
const bit<8> c54 = c53 + 1;
const bit<8> c55 = c54 + 1;
const bit<8> c56 = c55 + 1;
const bit<8> c57 = c56 + 1;
const bit<8> c58 = c57 + 1;
const bit<8> c59 = c58 + 1;
const bit<8> c60 = c59 + 1;
const bit<8> c61 = c60 + 1;
const bit<8> c62 = c61 + 1;
const bit<8> c63 = c62 + 1;
const bit<8> c64 = c63 + 1;
const bit<8> c65 = c64 + 1;
const bit<8> c66 = c65 + 1;
const bit<8> c67 = c66 + 1;
const bit<8> c68 = c67 + 1;
const bit<8> c69 = c68 + 1;

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
        meta.x = c69;
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

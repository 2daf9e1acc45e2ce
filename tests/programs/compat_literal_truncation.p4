// p4c compatibility (warning W0303): an integer literal implicitly converted to a narrower type
// keeps its low bits, the P4_16 int -> bit<W> conversion. `4 / hdr.d.one` divides 4 taken as
// bit<1> (= 0); `hdr.d.a + 300` adds 300 taken as bit<8> (= 44); `hdr.d.s - 200` subtracts 200
// taken as int<8> (= -56); assigning 0x1ff to a bit<8> field stores 0xff.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<1>  one;
    bit<7>  pad;
    bit<8>  a;
    int<8>  s;
    bit<8>  q;
    bit<8>  sum;
    int<8>  diff;
    bit<8>  lit;
}

struct headers_t {
    d_t d;
}

struct metadata_t {
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.d);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.q = (bit<8>)(4 / hdr.d.one);
        hdr.d.sum = hdr.d.a + 300;
        hdr.d.diff = hdr.d.s - 200;
        hdr.d.lit = 0x1ff;
        sm.egress_spec = 1;
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
        packet.emit(hdr.d);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

// p4c compatibility (warning W0302): `register<bit<8>>(4) r;` gives only T of v1model's
// `register<T, I>`. Calls whose index is an unsized literal (`r.write(2, ...)`) cannot infer I;
// p4dp takes it as bit<32>. A typed index (`r.read(x, hdr.d.idx)`) infers I from its type.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<32> idx;
    bit<8>  v;
    bit<8>  out0;
    bit<8>  out2;
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
    register<bit<8>>(4) r;
    apply {
        // cell 2 accumulates v over the packets; cell idx gets v too
        bit<8> acc;
        r.read(acc, 2);
        r.write(2, acc + hdr.d.v);
        r.write(hdr.d.idx, hdr.d.v);
        r.read(hdr.d.out0, 0);
        r.read(hdr.d.out2, 2);
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

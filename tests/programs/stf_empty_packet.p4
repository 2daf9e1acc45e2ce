// A zero-length packet (`packet 1` with no data in the STF script) goes through the whole
// pipeline: the extract fails with PacketTooShort, v1model continues into ingress with
// standard_metadata.parser_error set, and ingress builds a one-byte reply.
#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> v;
}

struct headers_t {
    b_t b;
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
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            hdr.b.setValid();
            hdr.b.v = 0xee;
            sm.egress_spec = 5;
        } else {
            hdr.b.v = hdr.b.v + 1;
            sm.egress_spec = 4;
        }
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
        packet.emit(hdr.b);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

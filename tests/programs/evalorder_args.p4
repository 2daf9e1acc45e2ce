// Arguments are evaluated left to right, and side effects of calls in earlier
// arguments are visible to later ones.
#include <core.p4>
#include <v1model.p4>

bit<8> next_val(inout bit<8> c) {
    c = c * 2;
    return c;
}

bit<16> combine(in bit<8> a, in bit<8> b, in bit<8> c) {
    return (bit<16>)a * 100 + (bit<16>)b * 10 + (bit<16>)c;
}

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

struct headers_t {
    data_t data;
}

struct metadata_t {
    bit<8> c;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        meta.c = 1;
        hdr.data.h1 = combine(next_val(meta.c), next_val(meta.c), next_val(meta.c));
        hdr.data.b2 = meta.c;
        standard_metadata.egress_spec = 1;
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
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

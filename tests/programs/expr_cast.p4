// Casts: bit<8>->int<8>->int<16> sign-extends, bit<8>->bit<16> zero-extends,
// bit<32>->bit<8> truncates, int<8>->int<4> truncates then sign-extends.
#include <core.p4>
#include <v1model.p4>

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
        bit<16> se = (bit<16>)(int<16>)(int<8>)hdr.data.b1;
        bit<16> ze = (bit<16>)hdr.data.b1;
        bit<8> tr = (bit<8>)hdr.data.f1;
        hdr.data.f2 = se ++ ze;
        hdr.data.f1 = (bit<32>)(int<32>)(int<16>)hdr.data.h1;
        hdr.data.b1 = tr;
        hdr.data.b2 = (bit<8>)(int<8>)(int<4>)(int<8>)hdr.data.b2;
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

// Operator precedence and associativity: * over +, + over <<, left-assoc - and
// * %, arithmetic over ==.
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
        bit<32> a = (bit<32>)hdr.data.b1;
        bit<32> b = (bit<32>)hdr.data.b2;
        bit<32> c = (bit<32>)hdr.data.h1[7:0];
        bit<8> a8 = hdr.data.b1;
        bit<8> b8 = hdr.data.b2;
        hdr.data.f1 = a + b * c;
        hdr.data.f2 = a << 1 + 1;
        hdr.data.h1 = (bit<16>)(a - b - c);
        hdr.data.b1 = a8 * b8 % 7;
        hdr.data.b2 = (bit<8>)(bit<1>)(a8 + 1 == b8);
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

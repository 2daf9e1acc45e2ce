// Bit slices [hi:lo] as r-values (on fields and locals, width 1, 8, 16) and as
// l-values (assigning into the middle, the low bits and the top bit of a field).
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
        bit<32> f = hdr.data.f1;
        bit<8> hb = hdr.data.b1;
        hdr.data.b1 = f[31:24];
        hdr.data.h1 = f[19:4];
        hdr.data.b2 = 6w0 ++ hdr.data.h1[15:15] ++ hdr.data.f2[3:3];
        hdr.data.f2[15:8] = hb;
        hdr.data.f2[2:0] = 3w5;
        hdr.data.f2[31:31] = 1;
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

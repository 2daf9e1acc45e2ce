// Comparisons < <= > >= == != on bit<8> (unsigned) and on int<8> (signed) of the
// same bytes; results packed into bits of h1.
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
        bit<8> u1 = hdr.data.b1;
        bit<8> u2 = hdr.data.b2;
        int<8> s1 = (int<8>)u1;
        int<8> s2 = (int<8>)u2;
        bit<16> r = 0;
        if (u1 < u2) { r = r | 0x1; }
        if (u1 <= u2) { r = r | 0x2; }
        if (u1 > u2) { r = r | 0x4; }
        if (u1 >= u2) { r = r | 0x8; }
        if (s1 < s2) { r = r | 0x10; }
        if (s1 <= s2) { r = r | 0x20; }
        if (s1 > s2) { r = r | 0x40; }
        if (s1 >= s2) { r = r | 0x80; }
        if (u1 == u2) { r = r | 0x100; }
        if (u1 != u2) { r = r | 0x200; }
        hdr.data.h1 = r;
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

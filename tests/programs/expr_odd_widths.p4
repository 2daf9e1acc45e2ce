// Arithmetic on fields of widths 1, 3, 13, 17, 31, 33, 64 and 7 packed without
// byte alignment; each result wraps at its own width.
#include <core.p4>
#include <v1model.p4>

header w_t {
    bit<1>  a1;
    bit<3>  a3;
    bit<13> a13;
    bit<17> a17;
    bit<31> a31;
    bit<33> a33;
    bit<64> a64;
    bit<7>  a7;
    bit<7>  pad;
}

struct headers_t {
    w_t w;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.w);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.w.a1 = hdr.w.a1 + 1;
        hdr.w.a3 = hdr.w.a3 + 5;
        hdr.w.a13 = hdr.w.a13 * 3;
        hdr.w.a17 = hdr.w.a17 - 2;
        hdr.w.a33 = hdr.w.a33 + (bit<33>)hdr.w.a31;
        hdr.w.a31 = hdr.w.a31 << 1;
        if (hdr.w.a64 == 0xFFFFFFFFFFFFFFFF) {
            hdr.w.pad = 1;
        }
        hdr.w.a64 = hdr.w.a64 * 0x10000001;
        hdr.w.a7 = ~hdr.w.a7;
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
        packet.emit(hdr.w);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

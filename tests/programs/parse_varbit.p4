// varbit extract with a run-time size (0, 3 and 8 bytes); the header after it is
// found at the right offset. A size above the maximum gives error.HeaderTooShort.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header opt_t {
    varbit<64> bytes;
}

header word_t {
    bit<16> v;
}

struct headers_t {
    data_t data;
    opt_t  opt;
    word_t w;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        packet.extract(hdr.opt, (bit<32>)hdr.data.b1 * 8);
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
        if (standard_metadata.parser_error == error.HeaderTooShort) {
            hdr.data.h1 = 0xEEEE;
            standard_metadata.egress_spec = 2;
        } else {
            hdr.w.v = hdr.w.v + 1;
            standard_metadata.egress_spec = 1;
        }
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
        packet.emit(hdr.opt);
        packet.emit(hdr.w);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

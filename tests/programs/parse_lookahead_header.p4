// lookahead of a whole header type and of a wide bit<N> value; the
// cursor does not move, so the following extract sees the same bytes.
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
    bit<8>  peek_b1;
    bit<16> peek_h1;
    bit<32> peek_bits;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        data_t tmp = packet.lookahead<data_t>();
        meta.peek_b1 = tmp.b1;
        meta.peek_h1 = tmp.h1;
        meta.peek_bits = packet.lookahead<bit<64>>()[31:0];
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
        hdr.data.f1 = meta.peek_bits;
        hdr.data.b2 = meta.peek_b1;
        hdr.data.h1 = meta.peek_h1 + 1;
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

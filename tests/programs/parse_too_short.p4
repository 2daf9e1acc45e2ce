// extract past the end of the packet: error.PacketTooShort, processing continues
// into ingress, the failed header is invalid, the unparsed bytes are kept.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header big_t {
    bit<64> v;
}

struct headers_t {
    data_t data;
    big_t  big;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        packet.extract(hdr.big);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        if (!hdr.data.isValid()) {
            standard_metadata.egress_spec = 3;
        } else if (standard_metadata.parser_error == error.PacketTooShort) {
            hdr.data.b2 = 0xEE;
            if (hdr.big.isValid()) {
                hdr.data.b1 = 0xFF;
            }
            standard_metadata.egress_spec = 2;
        } else {
            hdr.big.v = hdr.big.v + 1;
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
        packet.emit(hdr.big);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

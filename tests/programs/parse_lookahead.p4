// lookahead<bit<8>> in a select does not consume bits: with first byte 0xAA a
// tag header is extracted first, otherwise the same byte is part of data.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header tag_t {
    bit<8> tag;
    bit<8> val;
}

struct headers_t {
    tag_t  tag;
    data_t data;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        transition select(packet.lookahead<bit<8>>()) {
            0xAA: parse_tag;
            default: parse_data;
        }
    }

    state parse_tag {
        packet.extract(hdr.tag);
        transition parse_data;
    }

    state parse_data {
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
        if (hdr.tag.isValid()) {
            hdr.data.b2 = hdr.tag.val;
            standard_metadata.egress_spec = 1;
        } else {
            standard_metadata.egress_spec = 2;
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
        packet.emit(hdr.tag);
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

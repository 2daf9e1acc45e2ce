// Header stack filled with .next in a parser loop until bottom-of-stack;
// .last and .lastIndex in the parser, .size in ingress, StackOutOfBounds on overflow.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header label_t {
    bit<7> val;
    bit<1> bos;
}

struct headers_t {
    data_t     data;
    label_t[4] labels;
}

struct metadata_t {
    bit<8> count;
    bit<8> last;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition parse_label;
    }

    state parse_label {
        packet.extract(hdr.labels.next);
        meta.count = (bit<8>)hdr.labels.lastIndex + 1;
        meta.last = (bit<8>)hdr.labels.last.val;
        transition select(hdr.labels.last.bos) {
            1: accept;
            default: parse_label;
        }
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.data.b1 = meta.count;
        hdr.data.b2 = (bit<8>)hdr.labels.size;
        if (standard_metadata.parser_error == error.StackOutOfBounds) {
            hdr.data.h1 = 0xEEEE;
            standard_metadata.egress_spec = 2;
        } else {
            hdr.data.h1 = (bit<16>)meta.last;
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
        packet.emit(hdr.labels);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

// A parser select with a value, a mask, a range (to reject) and a default case; a 200-bit header
// field sliced at both ends; a const exact table with a hit and a default drop. On a parser
// reject (etherType 0x9000..0x90ff) and on a packet too short for the wide header, v1model still
// runs ingress with what was extracted.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header wide_t {
    bit<200> big;
    bit<8> x;
}

struct headers_t {
    ethernet_t eth;
    wide_t w;
}

struct meta_t { }

parser P(packet_in packet, out headers_t hdr, inout meta_t meta, inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x88b5: parse_wide;
            0x0800 &&& 0xff00: accept;
            0x9000 .. 0x90ff: reject;
            default: accept;
        }
    }
    state parse_wide {
        packet.extract(hdr.w);
        transition accept;
    }
}

control VR(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t standard_metadata) {
    action set_port(bit<9> port) {
        standard_metadata.egress_spec = port;
    }
    action drop() {
        mark_to_drop(standard_metadata);
    }
    table t {
        key = { hdr.eth.dst: exact; }
        actions = { set_port; drop; }
        default_action = drop();
        size = 64;
        const entries = {
            0x00000000000a: set_port(3);
        }
    }
    apply {
        t.apply();
        hdr.eth.type = hdr.eth.type + 1;
        if (hdr.w.isValid()) {
            hdr.w.x = hdr.w.big[7:0];
            hdr.w.big[199:192] = 0xab;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t standard_metadata) { apply { } }

control CK(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.eth);
        packet.emit(hdr.w);
    }
}

V1Switch(P(), VR(), MyIngress(), MyEgress(), CK(), MyDeparser()) main;

// PNA add_entry when the key is already installed: add_entry must return false (and insert
// nothing) whether the entry came from the control plane or from an earlier add_entry of the same
// packet. `learn` is the default action of the add-on-miss table `flows`, and also an ordinary
// action the control plane may install, so a packet can *hit* an entry and still run learn.
// learn calls add_entry twice for the packet's key: the outcomes go into the packet (first in
// `first`, second in `second`, 1 = inserted). A packet whose key then hits runs `known`.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header flow_t {
    bit<32> id;
    bit<8>  first;
    bit<8>  second;
    bit<8>  mark;
}

struct headers_t {
    ethernet_t eth;
    flow_t     f;
}

struct meta_t { }

struct known_params_t {
    bit<8> mark;
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x88b5: parse_flow;
            default: accept;
        }
    }
    state parse_flow {
        pkt.extract(hdr.f);
        transition accept;
    }
}

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd,
                       inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd,
                        inout pna_main_output_metadata_t ostd) {
    action known(bit<8> mark) {
        hdr.f.mark = mark;
        send_to_port((PortId_t)2);
    }
    action learn() {
        bool ok1 = add_entry<known_params_t>("known", {0xaa}, (ExpireTimeProfileId_t)0);
        bool ok2 = add_entry<known_params_t>("known", {0xbb}, (ExpireTimeProfileId_t)0);
        hdr.f.first = ok1 ? 8w1 : 8w0;
        hdr.f.second = ok2 ? 8w1 : 8w0;
        send_to_port((PortId_t)1);
    }
    table flows {
        key = { hdr.f.id : exact; }
        actions = { known; learn; }
        add_on_miss = true;
        default_action = learn;
        size = 64;
    }
    apply {
        if (hdr.f.isValid()) {
            flows.apply();
        } else {
            drop_packet();
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.f);
    }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;

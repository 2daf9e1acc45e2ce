// PNA add-on-miss ("never miss twice"): the `flows` table starts empty; a packet whose flow id
// misses runs the default action, which inserts the flow with add_entry and sends the packet to
// port 1 (mark = 1 if the insert succeeded). Every later packet of the flow hits and runs
// `known` with the data the insert gave it (tag = the flow id's low 16 bits inverted,
// mark = 0xaa), and goes to port 2.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header flow_t {
    bit<32> id;
    bit<16> tag;
    bit<8>  mark;
}

struct headers_t {
    ethernet_t eth;
    flow_t     f;
}

struct meta_t { }

struct known_params_t {
    bit<16> tag;
    bit<8>  mark;
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
    action known(bit<16> tag, bit<8> mark) {
        hdr.f.tag = tag;
        hdr.f.mark = mark;
        send_to_port((PortId_t)2);
    }
    action learn() {
        bool ok = add_entry<known_params_t>("known", {~hdr.f.id[15:0], 0xaa},
                                            (ExpireTimeProfileId_t)0);
        hdr.f.mark = ok ? 8w1 : 8w0;
        send_to_port((PortId_t)1);
    }
    table flows {
        key = { hdr.f.id : exact; }
        actions = { known; @defaultonly learn; }
        add_on_miss = true;
        const default_action = learn;
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

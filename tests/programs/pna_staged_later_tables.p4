// PNA: an add-on-miss table applied first (staged, with its "never miss twice" invalidation) and
// two later tables a burst stages with it (cgen burst.rs, "later staged tables"). A hit of
// `flows` rewrites `hdr.f.tag`, the key of `by_tag`, so the key `by_tag` computes at its apply
// differs from the one the burst's pre-pass built from the parsed packet: it must be looked up
// again. `by_id`'s key is never rewritten, so its staged entry is reused.
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
    bit<8>  out_tag;
    bit<8>  out_id;
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

    action mark_tag(bit<8> x) { hdr.f.out_tag = x; }
    action mark_id(bit<8> x) { hdr.f.out_id = x; }
    table by_tag {
        key = { hdr.f.tag : exact; }
        actions = { mark_tag; }
        default_action = mark_tag(0xee);
    }
    table by_id {
        key = { hdr.f.id : lpm; }
        actions = { mark_id; }
        default_action = mark_id(0xee);
    }

    apply {
        if (hdr.f.isValid()) {
            flows.apply();
            by_tag.apply();
            by_id.apply();
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

// PNA idle timeout with automatic deletion: `flows` is an add-on-miss table with
// pna_idle_timeout = AUTO_DELETE. Entries are inserted with expire-time profile 1 (1 s by
// default, runtime/include/p4dp/table.h P4DP_EXPIRE_DEFAULTS_NS); every hit restarts the idle
// timer; an entry idle for 1 s is deleted, so the flow misses (and is learnt) again. A hit of
// a packet with tag 0xffff moves its entry to profile 7 (never expires) with
// set_entry_expire_time; other hits call restart_expire_timer (a hit restarts it anyway).
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
        if (hdr.f.tag == 0xffff) {
            set_entry_expire_time((ExpireTimeProfileId_t)7);
        } else {
            restart_expire_timer();
        }
        hdr.f.mark = mark;
        send_to_port((PortId_t)2);
    }
    action learn() {
        bool ok = add_entry<known_params_t>("known", {0xaa}, (ExpireTimeProfileId_t)1);
        hdr.f.mark = ok ? 8w1 : 8w0;
        send_to_port((PortId_t)1);
    }
    table flows {
        key = { hdr.f.id : exact; }
        actions = { known; @defaultonly learn; }
        add_on_miss = true;
        pna_idle_timeout = PNA_IdleTimeout_t.AUTO_DELETE;
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

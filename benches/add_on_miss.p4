// p4dp bench: a PNA add-on-miss table keyed by the IPv4 destination. A
// packet whose key is in the table runs `known`, which copies the entry's value into the packet;
// a packet whose key misses runs the default action `learn`, which inserts the key with
// add_entry (value = the packet's IPv4 source) and marks the packet. Every packet goes back out
// on port 0. Used by `p4dp bench --suite add-on-miss`: 2^20 inserts, then hits, then hits with
// an insert every 10 .. 100000 packets, as in Simon et al., "Never Miss Twice - Add-on-Miss Table
// Updates in Software Data Planes".
#include <core.p4>
#include <pna.p4>

#ifndef TABLE_SIZE
#define TABLE_SIZE 2097152
#endif

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}

header value_t {
    bit<32> value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    value_t    val;
}

struct meta_t { }

struct known_params_t {
    bit<32> value;
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        pkt.extract(hdr.val);
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
    action known(bit<32> value) {
        hdr.val.value = value;
        send_to_port((PortId_t)0);
    }
    action learn() {
        bool ok = add_entry<known_params_t>("known", {hdr.ipv4.srcAddr}, (ExpireTimeProfileId_t)0);
        hdr.val.value = ok ? 32w1 : 32w0;
        send_to_port((PortId_t)0);
    }
    table flows {
        key = { hdr.ipv4.dstAddr : exact; }
        actions = { known; @defaultonly learn; }
        add_on_miss = true;
        const default_action = learn;
        size = TABLE_SIZE;
    }
    apply {
        if (hdr.val.isValid()) {
            flows.apply();
        } else {
            drop_packet();
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.val);
    }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;

// p4dp bench: an L3 program with one longest-prefix-match table on the IPv6 destination, sized
// for 2^20 prefixes. Used by `p4dp bench --suite lpm6` with up to 1 000 000 prefixes of a
// realistic length mix (most /48, then /32, /44, /40, ...), hit by random destinations, against
// the floor plus DPDK rte_lpm6 bulk lookups of the same prefixes. LPM6_TABLE_SIZE (default 2^20)
// can be set with `-D LPM6_TABLE_SIZE=N`: below 65536 the table gets the 16-bit first level
// instead of the 24-bit one (ARCHITECTURE.md, "Longest-prefix-match tables").
#include <core.p4>
#include <v1model.p4>

#ifndef LPM6_TABLE_SIZE
#define LPM6_TABLE_SIZE 1048576
#endif

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv6_t {
    bit<4>   version;
    bit<8>   trafficClass;
    bit<20>  flowLabel;
    bit<16>  payloadLen;
    bit<8>   nextHdr;
    bit<8>   hopLimit;
    bit<128> srcAddr;
    bit<128> dstAddr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv6_t     ipv6;
}

struct meta_t { }

parser BenchParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x86dd: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control BenchVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control BenchIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_port(bit<9> port) {
        sm.egress_spec = port;
    }
    action drop() {
        mark_to_drop(sm);
    }
    table ipv6_lpm {
        key = { hdr.ipv6.dstAddr : lpm; }
        actions = { set_port; drop; }
        default_action = drop();
        size = LPM6_TABLE_SIZE;
    }
    apply {
        if (hdr.ipv6.isValid()) {
            ipv6_lpm.apply();
        } else {
            drop();
        }
    }
}

control BenchEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control BenchCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control BenchDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(), BenchDeparser()) main;

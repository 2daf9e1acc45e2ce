// p4dp bench: an L3 program with one exact-match table on the IPv4 destination, sized for 2^20
// entries. Used by `p4dp bench --suite overhead` with 2^20 installed entries hit by random keys
// (target: <= 1.3x the floor plus one rte_hash bulk lookup of the same table).
// With -D EXACT_AFTER_ANOTHER an exact table on the IPv4 source that holds no entries, `pre`, is
// applied first: the workers' staged bulk lookup (ARCHITECTURE.md, "Staged tables") then serves
// `pre`, and the destination table is looked up one packet at a time, without the bulk lookup's
// prefetches (what a large table costs when it is not the first applied: docs/PERFORMANCE.md).
#include <core.p4>
#include <v1model.p4>

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

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct meta_t { }

parser BenchParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
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
#ifdef EXACT_AFTER_ANOTHER
    table pre {
        key = { hdr.ipv4.srcAddr : exact; }
        actions = { NoAction; }
        default_action = NoAction();
        size = 1024;
    }
#endif
    table ipv4_exact {
        key = { hdr.ipv4.dstAddr : exact; }
        actions = { set_port; drop; }
        default_action = drop();
        size = 1048576;
    }
    apply {
        if (hdr.ipv4.isValid()) {
#ifdef EXACT_AFTER_ANOTHER
            pre.apply();
#endif
            ipv4_exact.apply();
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
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(), BenchDeparser()) main;

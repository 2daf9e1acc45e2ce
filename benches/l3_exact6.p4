// p4dp bench: an L3 program with one exact table on the IPv6 destination (128-bit keys), sized
// for 2^20 entries: the exact-table comparison of `p4dp bench --suite lpm6` (its entries are the
// destinations themselves).
#include <core.p4>
#include <v1model.p4>

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
    table ipv6_exact {
        key = { hdr.ipv6.dstAddr : exact; }
        actions = { set_port; drop; }
        default_action = drop();
        size = 1048576;
    }
    apply {
        if (hdr.ipv6.isValid()) {
            ipv6_exact.apply();
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

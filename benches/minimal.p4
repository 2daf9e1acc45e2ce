// p4dp bench: the minimal program of the baseline model in Scholz et al., "Key Properties of
// Programmable Data Plane Targets" (parse Ethernet, set a constant egress port, deparse). Used by
// `p4dp bench --suite overhead` (target: <= 1.25x the l2fwd floor).
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t { }

parser BenchParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control BenchVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control BenchIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 0;
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
    }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(), BenchDeparser()) main;

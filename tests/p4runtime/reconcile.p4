// Test program of RECONCILE_AND_COMMIT: the test builds variants of it, replacing the markers
// (a forwarding action whose body changes, a table added, a table's size changed)..
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser RcParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control RcVerify(inout headers_t h, inout meta_t m) { apply { } }

control RcIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    counter(16, CounterType.packets) rx_count;
    register<bit<32>>(8) notes;
    direct_counter(CounterType.packets) dmac_hits;

    action forward(bit<9> port) {
        sm.egress_spec = port;
        /* FORWARD_BODY */
    }
    action drop() { mark_to_drop(sm); }
    action set_etype(bit<16> t) { h.eth.etype = t; }
    action_profile(32w8) by_src;

    table dmac {
        key = { h.eth.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        counters = dmac_hits;
        size = 1024 /* DMAC_SIZE */;
    }
    table src_tag {
        key = { h.eth.src : exact; }
        actions = { set_etype; NoAction; }
        implementation = by_src;
        default_action = NoAction();
    }
    /* EXTRA_TABLE */
    apply {
        rx_count.count((bit<32>)sm.ingress_port);
        dmac.apply();
        src_tag.apply();
        /* EXTRA_APPLY */
    }
}
control RcEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control RcCompute(inout headers_t h, inout meta_t m) { apply { } }
control RcDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(RcParser(), RcVerify(), RcIngress(), RcEgress(), RcCompute(), RcDeparser()) main;

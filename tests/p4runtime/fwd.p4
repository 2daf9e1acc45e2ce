// Test program of the P4Runtime tests: one table per match kind, counters, a register and a meter.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser FwdParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control FwdVerify(inout headers_t h, inout meta_t m) { apply { } }

control FwdIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    counter(64, CounterType.packets_and_bytes) rx_count;
    register<bit<32>>(16) last_len;
    meter(8, MeterType.bytes) rate;

    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action set_src(bit<48> mac) { h.eth.src = mac; }
    action set_etype(bit<16> t) { h.eth.etype = t; }

    table dmac {
        key = { h.eth.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 1024;
    }
    table src_lpm {
        key = { h.eth.src : lpm; }
        actions = { set_src; NoAction; }
        default_action = NoAction();
    }
    table acl {
        key = { h.eth.etype : ternary; h.eth.dst : optional; h.eth.src : range; }
        actions = { set_etype; drop; NoAction; }
        default_action = NoAction();
    }
    apply {
        rx_count.count((bit<32>)sm.ingress_port);
        last_len.write((bit<32>)sm.ingress_port, sm.packet_length);
        dmac.apply();
        src_lpm.apply();
        acl.apply();
    }
}
control FwdEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control FwdCompute(inout headers_t h, inout meta_t m) { apply { } }
control FwdDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(FwdParser(), FwdVerify(), FwdIngress(), FwdEgress(), FwdCompute(), FwdDeparser()) main;

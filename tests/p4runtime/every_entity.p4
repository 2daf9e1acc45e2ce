// Test program of the P4Runtime batch tests: one object of every kind a Write can carry - a
// parser value set, an indexed counter, meter and register, a table with a direct counter, one
// with a direct meter, two tables implemented by action selectors (one for members and groups,
// one for one-shot action sets) and a digest. The batch tests read the state back; no packets.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct learn_t {
    bit<48> src;
    bit<9> port;
}
struct meta_t { bit<2> color; bit<1> special; }

parser AllParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) special_types;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            special_types: special;
            default: accept;
        }
    }
    state special { m.special = 1; transition accept; }
}
control AllVerify(inout headers_t h, inout meta_t m) { apply { } }

control AllIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    counter(4, CounterType.packets_and_bytes) per_src;
    meter(4, MeterType.bytes) rate;
    register<bit<16>>(4) last_type;
    direct_counter(CounterType.packets_and_bytes) dmac_count;
    direct_meter<bit<2>>(MeterType.packets) police_meter;

    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action police() { police_meter.read(m.color); }
    action learn() { digest<learn_t>(1, { h.eth.src, sm.ingress_port }); }
    table dmac {
        key = { h.eth.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        counters = dmac_count;
    }
    table policer {
        key = { h.eth.src : exact; }
        actions = { police; NoAction; }
        default_action = NoAction();
        meters = police_meter;
    }
    table lb {
        key = {
            h.eth.dst : exact;
            h.eth.src : selector;
        }
        actions = { forward; drop; }
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
        size = 64;
    }
    table lb_sets {
        key = {
            h.eth.etype : exact;
            h.eth.src : selector;
        }
        actions = { forward; drop; }
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
        size = 64;
    }
    apply {
        bit<32> i = (bit<32>)h.eth.src[1:0];
        per_src.count(i);
        rate.execute_meter(i, m.color);
        last_type.write(i, h.eth.etype);
        if (m.special == 1) {
            learn();
        }
        dmac.apply();
        policer.apply();
        lb.apply();
        lb_sets.apply();
    }
}
control AllEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control AllCompute(inout headers_t h, inout meta_t m) { apply { } }
control AllDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(AllParser(), AllVerify(), AllIngress(), AllEgress(), AllCompute(), AllDeparser()) main;

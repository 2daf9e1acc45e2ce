// Test program of the P4Runtime idle-timeout and table-entry extras tests. `hosts` supports idle
// timeouts (v1model `support_timeout = true`: P4Info NOTIFY_CONTROL) and has a direct counter and
// a direct meter; `plain` has none of them. Frames enter from the controller port (PacketOut, no
// packet_out header) and are forwarded by their destination MAC.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { bit<2> color; }

parser IdleParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control IdleVerify(inout headers_t h, inout meta_t m) { apply { } }

control IdleIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) host_count;
    direct_meter<bit<2>>(MeterType.bytes) host_meter;

    action forward(bit<9> port) { sm.egress_spec = port; host_meter.read(m.color); }
    action drop() { mark_to_drop(sm); }
    table hosts {
        key = { h.eth.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        support_timeout = true;
        counters = host_count;
        meters = host_meter;
    }
    action tag(bit<16> t) { h.eth.etype = t; }
    table plain {
        key = { h.eth.src : exact; }
        actions = { tag; NoAction; }
        default_action = NoAction();
    }
    apply {
        hosts.apply();
        plain.apply();
    }
}
control IdleEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control IdleCompute(inout headers_t h, inout meta_t m) { apply { } }
control IdleDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(IdleParser(), IdleVerify(), IdleIngress(), IdleEgress(), IdleCompute(), IdleDeparser()) main;

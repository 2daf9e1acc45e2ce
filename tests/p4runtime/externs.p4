// Test program of the P4Runtime extern tests: an indexed counter, meter and register, a direct
// counter and a direct meter. Frames enter from the controller port (PacketOut, no packet_out
// header); the low 3 bits of the source MAC select the indexed cells (the low 2 bits the meter
// cell). A packet the policer's
// direct meter colours RED is dropped.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { bit<2> color; }

parser ExtParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control ExtVerify(inout headers_t h, inout meta_t m) { apply { } }

control ExtIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) per_src;
    meter(4, MeterType.packets) rate;
    register<bit<32>>(8) last_len;
    direct_counter(CounterType.packets_and_bytes) fwd_count;
    direct_meter<bit<2>>(MeterType.bytes) police_meter;

    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action police() { police_meter.read(m.color); }
    table dmac {
        key = { h.eth.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        counters = fwd_count;
    }
    table policer {
        key = { h.eth.src : exact; }
        actions = { police; NoAction; }
        default_action = NoAction();
        meters = police_meter;
    }
    apply {
        bit<32> i = (bit<32>)h.eth.src[2:0];
        per_src.count(i);
        last_len.write(i, sm.packet_length);
        bit<2> rate_color; // the indexed meter only colours (and counts): no packet is dropped by it
        rate.execute_meter((bit<32>)h.eth.src[1:0], rate_color);
        dmac.apply();
        policer.apply();
        if (m.color == 2) { mark_to_drop(sm); } // RED
    }
}
control ExtEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control ExtCompute(inout headers_t h, inout meta_t m) { apply { } }
control ExtDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(ExtParser(), ExtVerify(), ExtIngress(), ExtEgress(), ExtCompute(), ExtDeparser()) main;

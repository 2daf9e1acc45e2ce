// Test program of the P4Runtime meter-type tests: one meter of each MeterSpec.Type, chosen by
// annotation, and a single-rate three-colour direct meter. Frames enter from the controller port
// (PacketOut, no packet_out header) and leave on port 1 with their colour in the EtherType; the
// low 2 bits of the source MAC pick the meter (0 two-rate, 1 single-rate three-colour,
// 2 single-rate two-colour, 3 the direct meter of table policer), cell 0.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { bit<2> color; }

parser MtParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control MtVerify(inout headers_t h, inout meta_t m) { apply { } }

control MtIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    @two_rate_three_color meter(4, MeterType.packets) two_rate;
    @single_rate_three_color meter(4, MeterType.packets) single_rate;
    @single_rate_two_color meter(4, MeterType.packets) two_color;
    @single_rate_three_color direct_meter<bit<2>>(MeterType.packets) police_meter;

    action police() { police_meter.read(m.color); }
    table policer {
        key = { h.eth.src : exact; }
        actions = { police; NoAction; }
        default_action = NoAction();
        meters = police_meter;
    }
    apply {
        sm.egress_spec = 1;
        bit<2> which = h.eth.src[1:0];
        if (which == 0) {
            two_rate.execute_meter((bit<32>)0, m.color);
        } else if (which == 1) {
            single_rate.execute_meter((bit<32>)0, m.color);
        } else if (which == 2) {
            two_color.execute_meter((bit<32>)0, m.color);
        } else {
            policer.apply();
        }
        h.eth.etype = (bit<16>)m.color;
    }
}
control MtEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control MtCompute(inout headers_t h, inout meta_t m) { apply { } }
control MtDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(MtParser(), MtVerify(), MtIngress(), MtEgress(), MtCompute(), MtDeparser()) main;

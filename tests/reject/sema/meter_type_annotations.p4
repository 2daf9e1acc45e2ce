// A meter has at most one type annotation, without arguments, and only meters have one.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { bit<2> color; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control V(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    @single_rate_three_color @single_rate_two_color meter(4, MeterType.packets) both;
    @single_rate_two_color(1) meter(4, MeterType.packets) with_argument;
    @single_rate_three_color counter(4, CounterType.packets) not_a_meter;
    apply {
        both.execute_meter((bit<32>)0, m.color);
        with_argument.execute_meter((bit<32>)0, m.color);
        not_a_meter.count((bit<32>)0);
    }
}
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;

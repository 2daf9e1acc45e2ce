// @weights_disallowed leaves an action selector's weights to the switch: it takes no argument
// (true, false or a string are refused); on an action profile or a counter it means nothing (a
// warning).
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control V(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    @weights_disallowed action_selector(HashAlgorithm.crc16, 32w64, 32w14) switch_weighs;
    @weights_disallowed(true) action_selector(HashAlgorithm.crc16, 32w64, 32w14) with_true;
    @weights_disallowed(false) action_selector(HashAlgorithm.crc16, 32w64, 32w14) with_false;
    @weights_disallowed("yes") action_selector(HashAlgorithm.crc16, 32w64, 32w14) with_string;
    @weights_disallowed action_profile(32w64) no_selector;
    @weights_disallowed counter(32w4, CounterType.packets) not_a_profile;
    table t1 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = switch_weighs; }
    table t2 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = with_true; }
    table t3 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = with_false; }
    table t4 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = with_string; }
    table t5 { key = { h.eth.dst : exact; } actions = { forward; } implementation = no_selector; }
    apply {
        t1.apply(); t2.apply(); t3.apply(); t4.apply(); t5.apply();
        not_a_profile.count(32w0);
    }
}
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;

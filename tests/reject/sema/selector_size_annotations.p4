// An action selector's size annotations: one semantics of the two names, a max_group_size from 1
// to 4096 within the selector's size, a max_member_weight only with sum of members; on an action
// profile they mean nothing (a warning).
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
    @selector_size_semantics("sum_of_bytes") action_selector(HashAlgorithm.crc16, 32w64, 32w14) unknown;
    @selector_size_semantics("sum_of_members") @selector_size_semantics("sum_of_weights")
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) both;
    @max_group_size(0) action_selector(HashAlgorithm.crc16, 32w64, 32w14) empty_groups;
    @max_group_size(100) action_selector(HashAlgorithm.crc16, 32w64, 32w14) above_size;
    @max_group_size(8192) action_selector(HashAlgorithm.crc16, 32w16384, 32w14) above_runtime;
    @max_member_weight(10) action_selector(HashAlgorithm.crc16, 32w64, 32w14) weights_by_sum;
    @selector_size_semantics(sum_of_members) @max_member_weight("heavy")
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) weight_not_a_number;
    @max_group_size(8) action_profile(32w64) no_selector;
    table t1 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = unknown; }
    table t2 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = both; }
    table t3 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = empty_groups; }
    table t4 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = above_size; }
    table t5 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = above_runtime; }
    table t6 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = weights_by_sum; }
    table t7 { key = { h.eth.dst : exact; h.eth.src : selector; } actions = { forward; } implementation = weight_not_a_number; }
    table t8 { key = { h.eth.dst : exact; } actions = { forward; } implementation = no_selector; }
    apply {
        t1.apply(); t2.apply(); t3.apply(); t4.apply(); t5.apply(); t6.apply(); t7.apply(); t8.apply();
    }
}
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;

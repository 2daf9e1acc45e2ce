// Entries in a table implemented by an action profile.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct hdrs_t { eth_t eth; }
struct meta_t { bit<16> tag; bit<200> wide; }

parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {

    state start {
        pkt.extract(h.eth);
        transition accept;
    }
}
control V(inout hdrs_t h, inout meta_t m) { apply { } }
control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> p) { sm.egress_spec = p; }
    action_profile(32w16) ports;
    table route {
        key = { h.eth.dst : exact; }
        actions = { fwd; NoAction; }
        implementation = ports;
        default_action = NoAction();
        const entries = { 48w1 : fwd(9w2); }
    }
    apply {
        route.apply();
    }
}
control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;

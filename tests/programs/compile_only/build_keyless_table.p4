// `p4dp build` (which prints a per-table memory report) must succeed on a program whose tables
// include a keyless one (default action only) next to an exact one.
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

struct hdrs_t { eth_t eth; }
struct meta_t { bit<16> tag; }

parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition accept;
    }
}

control V(inout hdrs_t h, inout meta_t m) { apply { } }

control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    action tag(bit<16> t) { m.tag = t; }
    action fwd(bit<9> p) { sm.egress_spec = p; }
    table always {
        actions = { tag; }
        default_action = tag(16w7);
    }
    table by_dst {
        key = { h.eth.dst : exact; }
        actions = { fwd; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    apply {
        always.apply();
        by_dst.apply();
        h.eth.type = m.tag;
    }
}

control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;

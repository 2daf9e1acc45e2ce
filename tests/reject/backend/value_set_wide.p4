// A parser value_set over a value wider than the runtime's 64-bit member fields.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<72> label; }
struct hdrs_t { eth_t eth; tag_t tag; }
struct meta_t { bit<16> tag; bit<200> wide; }

parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<72>>(4) known_labels;
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.tag);
        transition select(h.tag.label) { known_labels: accept; default: reject; }
    }
}
control V(inout hdrs_t h, inout meta_t m) { apply { } }
control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {

    apply {
        
    }
}
control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;

// A parser value_set over a struct with a @match(range) field: p4dp keeps a value and a mask
// per member field, which cannot hold a range.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct hdrs_t { eth_t eth; }
struct meta_t { }
struct class_t { bit<16> type; @match(range) bit<48> src; }

parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<class_t>(4) classes;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type, h.eth.src) { classes: accept; default: reject; }
    }
}
control V(inout hdrs_t h, inout meta_t m) { apply { } }
control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;

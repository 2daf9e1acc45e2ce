// A method of an extern object type the program declares itself.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct hdrs_t { eth_t eth; }
struct meta_t { bit<16> tag; bit<200> wide; }
extern Tally { Tally(); void bump(in bit<16> x); }
parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {

    state start {
        pkt.extract(h.eth);
        transition accept;
    }
}
control V(inout hdrs_t h, inout meta_t m) { apply { } }
control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    Tally() tally;
    apply {
        tally.bump(h.eth.type);
    }
}
control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;

// Every construct the back end cannot translate is reported, not only the first.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct hdrs_t { eth_t eth; }
struct meta_t { bit<16> tag; bit<200> wide; }
extern void audit(in bit<16> x);
parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {

    state start {
        pkt.extract(h.eth);
        transition accept;
    }
}
control V(inout hdrs_t h, inout meta_t m) { apply { } }
control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {

    apply {
        audit(h.eth.type);
        m.wide = m.wide * 200w3;
        if (m.tag == 0) {
            audit(m.tag);
        }
    }
}
control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;

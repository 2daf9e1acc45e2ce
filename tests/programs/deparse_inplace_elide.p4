// In-place deparsing and the skipping of unchanged headers (crates/p4dp-cgen/src/elide.rs):
// `eth` is never written after extraction, so when it is re-emitted where it was parsed its bytes
// are left as they are; when a new header is pushed in front of it, it must be written at its new
// offset. `ip` is written only inside a sub-control that gets the whole headers struct, which
// must disqualify it. The deparser emits the whole struct.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<16> v; }
header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}
header ip_t {
    bit<8>  ver_ihl;
    bit<8>  tos;
    bit<16> len;
    bit<32> id_frag;
    bit<8>  ttl;
    bit<8>  proto;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

struct hdrs_t {
    tag_t tag;
    eth_t eth;
    ip_t  ip;
}
struct meta_t { }

parser P(packet_in pkt, out hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) {
            0x0800: ip;
            default: accept;
        }
    }
    state ip {
        pkt.extract(h.ip);
        transition accept;
    }
}

control V(inout hdrs_t h, inout meta_t m) { apply { } }

control Dec(inout hdrs_t h) {
    apply {
        if (h.ip.isValid()) {
            h.ip.ttl = h.ip.ttl - 1;
        }
    }
}

control I(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) {
    Dec() dec;
    apply {
        sm.egress_spec = 1;
        if (sm.ingress_port == 2) {
            h.tag.setValid();
            h.tag.v = 0xbeef;
            sm.egress_spec = 2;
        }
        dec.apply(h);
    }
}

control E(inout hdrs_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hdrs_t h, inout meta_t m) { apply { } }
control D(packet_out pkt, in hdrs_t h) { apply { pkt.emit(h); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;

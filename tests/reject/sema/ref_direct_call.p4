// An action with `@__ref` parameters refers to a table entry: it cannot be called directly.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<32> id;
    bit<32> n;
}

struct headers_t {
    h_t h;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action count(@__ref bit<32> n) {
        n = n + 1;
        hdr.h.n = n;
    }
    table t {
        key = { hdr.h.id : exact; }
        actions = { count; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        count(7);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control K(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), V(), I(), E(), K(), D()) main;

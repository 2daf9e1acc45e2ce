// Several tables of one ingress whose keys read only its parameters, so a burst stages all of
// them (the first and the later ones, cgen burst.rs): the burst's pre-pass builds their keys from
// the packet as parsed. `t_first`'s action rewrites `hdr.h.a` and sets `meta.m`, so the keys of
// `t_a` and `t_m` it computes at their applies differ from the pre-pass's: those must be looked
// up again (a staged entry reused there gives the wrong output). `t_b`'s key is never rewritten,
// so its staged entry is reused. `t_c` is applied only on one path.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  sel;
    bit<32> a;
    bit<32> b;
    bit<16> c;
    bit<8>  out_a;
    bit<8>  out_b;
    bit<8>  out_m;
    bit<8>  out_c;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<32> m;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action rewrite(bit<32> a, bit<32> m) {
        hdr.h.a = a;
        meta.m = m;
    }
    action mark_a(bit<8> x) { hdr.h.out_a = x; }
    action mark_b(bit<8> x) { hdr.h.out_b = x; }
    action mark_m(bit<8> x) { hdr.h.out_m = x; }
    action mark_c(bit<8> x) { hdr.h.out_c = x; }

    table t_first {
        key = { hdr.h.sel: exact; }
        actions = { rewrite; NoAction; }
        default_action = NoAction();
    }
    table t_a {
        key = { hdr.h.a: exact; }
        actions = { mark_a; NoAction; }
        default_action = mark_a(0xee);
    }
    table t_b {
        key = { hdr.h.b: lpm; }
        actions = { mark_b; NoAction; }
        default_action = mark_b(0xee);
    }
    table t_m {
        key = { meta.m: ternary; hdr.h.sel: exact; }
        actions = { mark_m; NoAction; }
        default_action = mark_m(0xee);
    }
    table t_c {
        key = { hdr.h.c: exact; hdr.h.b: exact; }
        actions = { mark_c; NoAction; }
        default_action = mark_c(0xee);
    }

    apply {
        standard_metadata.egress_spec = 1;
        t_first.apply();
        t_a.apply();
        t_b.apply();
        t_m.apply();
        if (hdr.h.sel == 2) {
            t_c.apply();
        }
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.h);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

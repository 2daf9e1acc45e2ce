// Left-to-right evaluation of list and struct expressions: a call with an `inout` argument in a
// later element must not change the value an earlier element already read (P4_16: expressions
// are evaluated left to right; the call writes its `inout` argument back when it returns).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
    bit<8> f;
}

struct pair_t {
    bit<8> p;
    bit<8> q;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

// Increments x and returns the new value plus 0x10.
bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return x + 0x10;
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
    apply {
        // a: the old value; b: the call's result; c: the value after the call.
        h_t t = { hdr.h.a, bump(hdr.h.a), hdr.h.a, 7, 0, 0 };
        // Struct expression: p reads b before the call in q increments it.
        pair_t s = { p = hdr.h.b, q = bump(hdr.h.b) };
        hdr.h = t;
        hdr.h.e = s.p;
        hdr.h.f = s.q;
        standard_metadata.egress_spec = 1;
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

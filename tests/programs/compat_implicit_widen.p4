// p4c compatibility (warning W0301): implicit widening in an assignment, an initializer and an
// `in` argument. The value is computed at the narrow width (wraps there) and then extended:
// zero-extended for bit<N>, sign-extended for int<N>.
#include <core.p4>
#include <v1model.p4>

header w_t {
    bit<32> a;
    bit<32> b;
    int<32> s;
    bit<64> c;   // a + b, wrapped at 32 bits, zero-extended (assignment)
    int<64> t;   // s + s, wrapped at 32 bits, sign-extended (assignment)
    bit<64> d;   // a * b, wrapped at 32 bits, zero-extended (initializer of a local)
    bit<64> e;   // (a - b) wrapped at 32 bits, widened as an `in` argument, plus 1 at 64 bits
    int<64> f;   // -s at 32 bits, sign-extended as an `in` argument
}

struct headers_t {
    w_t w;
}

struct metadata_t {
}

bit<64> plus_one(in bit<64> x) {
    return x + 1;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.w);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action set_f(in int<64> v) {
        hdr.w.f = v;
    }
    apply {
        hdr.w.c = hdr.w.a + hdr.w.b;
        hdr.w.t = hdr.w.s + hdr.w.s;
        bit<64> m = hdr.w.a * hdr.w.b;
        hdr.w.d = m;
        hdr.w.e = plus_one(hdr.w.a - hdr.w.b);
        set_f(-hdr.w.s);
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
        packet.emit(hdr.w);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

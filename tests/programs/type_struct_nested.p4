// Nested struct metadata: whole-struct assignment (a copy), == and != on
// structs, field access through two levels.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

struct headers_t {
    data_t data;
}

struct pair_t {
    bit<8>  a;
    bit<16> b;
}

struct metadata_t {
    pair_t x;
    pair_t y;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        meta.x.a = hdr.data.b1;
        meta.x.b = hdr.data.h1;
        meta.y = meta.x;
        if (meta.x == meta.y) {
            hdr.data.f2 = 1;
        }
        meta.y.a = meta.y.a + 1;
        if (meta.x != meta.y) {
            hdr.data.f1 = 2;
        }
        hdr.data.b2 = meta.y.a;
        hdr.data.h1 = meta.y.b + (bit<16>)meta.x.a;
        standard_metadata.egress_spec = 1;
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

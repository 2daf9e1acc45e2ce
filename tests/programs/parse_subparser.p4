// A parser instantiated (twice) inside another parser and invoked with apply;
// out header and inout counter parameters are copied back.
#include <core.p4>
#include <v1model.p4>

header inner_t {
    bit<8> v;
}

parser InnerParser(packet_in packet, out inner_t h, inout bit<8> cnt) {
    state start {
        packet.extract(h);
        cnt = cnt + 1;
        transition accept;
    }
}

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

struct headers_t {
    data_t  data;
    inner_t in1;
    inner_t in2;
}

struct metadata_t {
    bit<8> cnt;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    InnerParser() p1;
    InnerParser() p2;

    state start {
        packet.extract(hdr.data);
        meta.cnt = 5;
        p1.apply(packet, hdr.in1, meta.cnt);
        p2.apply(packet, hdr.in2, meta.cnt);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.data.b1 = meta.cnt;
        hdr.in1.v = hdr.in1.v + hdr.in2.v;
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
        packet.emit(hdr.in1);
        packet.emit(hdr.in2);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

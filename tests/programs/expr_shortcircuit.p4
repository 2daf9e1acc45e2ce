// && and || evaluate their right operand only when needed; a function with a
// side effect on the right side shows whether it ran.
#include <core.p4>
#include <v1model.p4>

bool bump(inout bit<8> c) {
    c = c + 1;
    return true;
}

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

struct metadata_t {
    bit<8> cnt;
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
        meta.cnt = 0;
        if (hdr.data.b1 == 1 && bump(meta.cnt)) {
            hdr.data.f1 = 1;
        }
        if (hdr.data.b1 == 1 || bump(meta.cnt)) {
            hdr.data.f2 = 2;
        }
        hdr.data.b2 = meta.cnt;
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

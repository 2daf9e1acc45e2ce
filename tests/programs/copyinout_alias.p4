// Copy-in/copy-out: the same field passed to two out/inout parameters is copied
// back left to right (the last parameter wins); callee sees copies, not aliases.
#include <core.p4>
#include <v1model.p4>

// y is a copy of the same field: writing x does not change y.
void reads_after_write(inout bit<8> x, in bit<8> y) {
    x = 0x50;
    x = x + y;
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
    action two(inout bit<8> x, inout bit<8> y) {
        x = x + 1;
        y = y + 10;
    }

    action outs(out bit<16> p, out bit<16> q) {
        p = 0x1111;
        q = 0x2222;
    }

    apply {
        two(hdr.data.b1, hdr.data.b1);
        outs(hdr.data.h1, hdr.data.h1);
        reads_after_write(hdr.data.b2, hdr.data.b2);
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

// verify() with a user error: on failure parsing stops, parser_error holds the
// error, headers extracted so far stay valid and the rest is payload.
#include <core.p4>
#include <v1model.p4>

error { BadMagic }

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header word_t {
    bit<16> v;
}

struct headers_t {
    data_t data;
    word_t w;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        verify(hdr.data.b1 == 0x42, error.BadMagic);
        packet.extract(hdr.w);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.parser_error == error.BadMagic) {
            hdr.data.h1 = 0xBAD0;
            standard_metadata.egress_spec = 2;
        } else if (standard_metadata.parser_error == error.NoError) {
            hdr.data.h1 = 0x600D;
            hdr.w.v = 0;
            standard_metadata.egress_spec = 1;
        }
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
        packet.emit(hdr.w);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

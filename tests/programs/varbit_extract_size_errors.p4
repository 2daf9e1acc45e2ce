// Two-argument extract of a header with a varbit field: the checks of the P4_16 spec's
// pseudo-code, in its order. A size that is not a multiple of 8 gives error.ParserInvalidArgument
// (the optional check the spec allows, as BMv2 does), then a packet without enough bits gives
// error.PacketTooShort, then a size above the varbit's maximum gives error.HeaderTooShort.
// Nothing is consumed by a failing extract.
#include <core.p4>
#include <v1model.p4>

header err_t {
    bit<8> code;
}

header len_t {
    bit<8> n;    // size of the varbit field, in bits
}

header var_t {
    varbit<32> v;
}

struct headers_t {
    err_t e;
    len_t l;
    var_t v;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.l);
        packet.extract(hdr.v, (bit<32>)hdr.l.n);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.e.setValid();
        if (standard_metadata.parser_error == error.NoError) {
            hdr.e.code = 0;
        } else if (standard_metadata.parser_error == error.PacketTooShort) {
            hdr.e.code = 1;
        } else if (standard_metadata.parser_error == error.HeaderTooShort) {
            hdr.e.code = 4;
        } else if (standard_metadata.parser_error == error.ParserInvalidArgument) {
            hdr.e.code = 6;
        } else {
            hdr.e.code = 0xff;
        }
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
        packet.emit(hdr.e);
        packet.emit(hdr.l);
        packet.emit(hdr.v);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

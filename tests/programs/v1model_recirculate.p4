// v1model recirculate: after egress, the deparsed packet goes through the whole pipeline again
// with instance_type 4 and the same ingress_port; only the user metadata fields of the given
// @field_list survive (`wrong` is in another list); at most 16 passes (then the packet is dropped).
// mode 0: no recirculate; 1: recirculate_preserving_field_list(2) once; 2: recirculate({}) once
// (keeps nothing); 3: recirculate while meta.count < 4; 4: recirculate forever (dropped).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> mode;
    bit<8> v;
    bit<8> itype;
    bit<8> kept;
    bit<8> other;
    bit<8> inport;
}

struct headers_t {
    data_t data;
}

struct inner_t {
    @field_list(2) bit<8> count;
    @field_list(1) bit<8> wrong;
}

struct metadata_t {
    inner_t inr;
    bit<8> other;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        meta.inr.count = meta.inr.count + 1;
        meta.inr.wrong = meta.inr.wrong + 1;
        meta.other = meta.other + 1;
        // A header change: a recirculated packet carries it (the deparsed packet is re-parsed).
        hdr.data.v = hdr.data.v + 0x10;
        hdr.data.itype = (bit<8>)standard_metadata.instance_type;
        hdr.data.kept = meta.inr.count;
        hdr.data.other = meta.other + meta.inr.wrong;
        hdr.data.inport = (bit<8>)standard_metadata.ingress_port;
        standard_metadata.egress_spec = 2;
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply {
        if (hdr.data.mode == 1 && standard_metadata.instance_type == 0) {
            recirculate_preserving_field_list(2);
        } else if (hdr.data.mode == 2 && standard_metadata.instance_type == 0) {
            recirculate({});
        } else if (hdr.data.mode == 3 && meta.inr.count < 4) {
            recirculate_preserving_field_list(2);
        } else if (hdr.data.mode == 4) {
            recirculate_preserving_field_list(2);
        }
    }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

// v1model resubmit: the original input bytes go through the parser and ingress again with
// instance_type 6 and the same ingress_port; only the user metadata fields of the given
// @field_list survive; at most 16 passes (then the packet is dropped).
// mode 0: no resubmit; 1: resubmit_preserving_field_list(1) once; 2: resubmit({}) once (keeps
// nothing); 3: resubmit while meta.count < 5; 4: resubmit forever (dropped).
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

struct metadata_t {
    @field_list(1) bit<8> count;
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
        meta.count = meta.count + 1;
        meta.other = meta.other + 1;
        // A header change: a resubmitted packet is parsed from the original bytes again.
        hdr.data.v = hdr.data.v + 0x10;
        if (hdr.data.mode == 1 && standard_metadata.instance_type == 0) {
            resubmit_preserving_field_list(1);
        } else if (hdr.data.mode == 2 && standard_metadata.instance_type == 0) {
            resubmit({});
        } else if (hdr.data.mode == 3 && meta.count < 5) {
            resubmit_preserving_field_list(1);
        } else if (hdr.data.mode == 4) {
            resubmit_preserving_field_list(1);
        }
        hdr.data.itype = (bit<8>)standard_metadata.instance_type;
        hdr.data.kept = meta.count;
        hdr.data.other = meta.other;
        hdr.data.inport = (bit<8>)standard_metadata.ingress_port;
        standard_metadata.egress_spec = 2;
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
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

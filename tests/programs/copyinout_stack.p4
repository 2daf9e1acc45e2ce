// A header stack passed inout to a function and to a control: element values
// and validity changes are copied back.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    data_t    data;
    item_t[3] st;
}

struct metadata_t {
}


void sum_into(inout item_t[3] s, out bit<8> total) {
    total = s[0].v + s[1].v;
    s[2].setValid();
    s[2].v = total;
}

control Rotate(inout item_t[3] s) {
    apply {
        bit<8> t = s[0].v;
        s[0].v = s[1].v;
        s[1].v = s[2].v;
        s[2].v = t;
    }
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        packet.extract(hdr.st[0]);
        packet.extract(hdr.st[1]);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    Rotate() rot;

    apply {
        sum_into(hdr.st, hdr.data.b2);
        rot.apply(hdr.st);
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
        packet.emit(hdr.st);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

// Action with control-plane (directionless) parameters of widths 9, 32, 4, 48;
// entry args are given by name in any order.
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
    action set(bit<9> port, bit<32> val, bit<4> nib, bit<48> mac) {
        standard_metadata.egress_spec = port;
        hdr.data.f2 = val;
        hdr.data.b2 = (bit<8>)nib;
        hdr.data.h1 = mac[47:32];
        hdr.data.f1 = mac[31:0];
    }

    table t {
        key = {
            hdr.data.b1: exact;
        }
        actions = {
            set;
            NoAction;
        }
        default_action = NoAction();
    }

    apply {
        t.apply();
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

// Exact const entries with a two-field key and actions with arguments, plus
// a const default_action with an argument.
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
    action setb(bit<8> v) {
        hdr.data.b2 = v;
    }
    action fwd(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    table t {
        key = {
            hdr.data.b1: exact;
            hdr.data.h1: exact;
        }
        actions = {
            setb;
            fwd;
        }
        const entries = {
            (1, 0x10): fwd(3);
            (2, 0x10): setb(0x42);
            (2, 0x20): setb(0x43);
        }
        const default_action = setb(0x77);
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

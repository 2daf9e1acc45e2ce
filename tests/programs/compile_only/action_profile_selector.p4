// Compile-only: tables implemented with an action_profile and with an
// action_selector (selector key).
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
    action fwd(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    table t_prof {
        key = {
            hdr.data.b1: exact;
        }
        actions = {
            fwd;
            NoAction;
        }
        implementation = action_profile(32w128);
    }

    table t_sel {
        key = {
            hdr.data.b2: exact;
            hdr.data.f1: selector;
            hdr.data.f2: selector;
        }
        actions = {
            fwd;
            NoAction;
        }
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w10);
    }

    apply {
        t_prof.apply();
        t_sel.apply();
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

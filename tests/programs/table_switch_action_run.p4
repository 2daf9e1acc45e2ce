// switch on apply().action_run with a shared body for two actions
// (fall-through labels) and a default branch for the miss (NoAction).
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
    action a1() {
        hdr.data.b2 = 1;
    }

    action a2() {
        hdr.data.b2 = 2;
    }

    action a3() {
        hdr.data.b2 = 3;
    }

    table t {
        key = {
            hdr.data.b1: exact;
        }
        actions = {
            a1;
            a2;
            a3;
            NoAction;
        }
        default_action = NoAction();
    }

    apply {
        standard_metadata.egress_spec = 1;
        switch (t.apply().action_run) {
            a1: {
                hdr.data.h1 = 1;
            }
            a2:
            a3: {
                hdr.data.h1 = 0x23;
            }
            default: {
                hdr.data.h1 = 0xFF;
            }
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
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

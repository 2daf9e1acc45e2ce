// A header's isValid() as an exact table key (non-const `entries` with true/false
// plus an STF entry on the $valid$ key).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header opt_t {
    bit<8> v;
}

struct headers_t {
    data_t data;
    opt_t  opt;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition select(hdr.data.b2) {
            1: parse_opt;
            default: accept;
        }
    }

    state parse_opt {
        packet.extract(hdr.opt);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action set(bit<16> v) {
        hdr.data.h1 = v;
    }

    table t {
        key = {
            hdr.opt.isValid(): exact;
            hdr.data.b1: exact;
        }
        actions = {
            set;
            NoAction;
        }
        entries = {
            (true, 1): set(1);
            (false, 1): set(2);
        }
        default_action = NoAction();
    }

    apply {
        standard_metadata.egress_spec = 1;
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
        packet.emit(hdr.opt);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

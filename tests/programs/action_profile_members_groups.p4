// Action profile and action selector (v1model): t_prof entries refer to members of an
// action_profile; t_sel entries refer to a member or to a group of an action_selector, whose
// member is chosen by crc16(f1 ++ f2) % (group size). The STF uses the p4dp act_prof_* /
// table_indirect_add* statements (docs/stf.md).
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
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action set(bit<9> port, bit<8> tag) {
        standard_metadata.egress_spec = port;
        hdr.data.b2 = tag;
    }

    table t_prof {
        key = {
            hdr.data.b1: exact;
        }
        actions = {
            set;
            NoAction;
        }
        implementation = action_profile(32w16);
        default_action = NoAction();
    }

    table t_sel {
        key = {
            hdr.data.h1: exact;
            hdr.data.f1: selector;
            hdr.data.f2: selector;
        }
        actions = {
            set;
            NoAction;
        }
        implementation = action_selector(HashAlgorithm.crc16, 32w16, 32w10);
        default_action = NoAction();
    }

    apply {
        standard_metadata.egress_spec = 0;
        if (hdr.data.b1 != 0) {
            t_prof.apply();
        } else {
            t_sel.apply();
        }
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

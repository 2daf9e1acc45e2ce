// clone to a session that points at a multicast group (STF mirroring_add_mc): one clone per
// replica the group has when the packet is cloned, each with its replica's rid; I2E from
// ingress and E2E from egress. Egress stamps each output with its instance_type, egress_port
// and egress_rid.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> sel;
    bit<8> itype;
    bit<8> port;
    bit<8> rid;
}

struct headers_t {
    data_t data;
}

struct metadata_t { }

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.data.sel == 1) {
            clone(CloneType.I2E, 32w11);
        }
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.data.itype = sm.instance_type[7:0];
        hdr.data.port = (bit<8>)sm.egress_port;
        hdr.data.rid = sm.egress_rid[7:0];
        if (sm.instance_type == 0 && hdr.data.sel == 2) {
            clone(CloneType.E2E, 32w12);
        }
    }
}

control CC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

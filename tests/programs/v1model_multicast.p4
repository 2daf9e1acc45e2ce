// Multicast replication: the group comes from a register that a sub-control reads into
// standard_metadata.mcast_grp (an out argument of an extern method, through an inout
// standard_metadata parameter), so the compiler's "may this program multicast?" analysis
// (cgen feat.rs) must see writes that are not plain assignments. Egress stamps each copy with
// its egress_rid, egress_port and instance_type.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  sel;     // register index holding the group (0: unicast)
    bit<8>  rid;     // egress_rid of this copy
    bit<8>  port;    // egress_port of this copy
    bit<8>  itype;   // instance_type of this copy
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

control PickGroup(inout standard_metadata_t sm, in bit<8> sel) {
    register<bit<16>>(4) groups;
    apply {
        groups.read(sm.mcast_grp, (bit<32>)sel);
    }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    PickGroup() pick;
    apply {
        sm.egress_spec = 7;
        pick.apply(sm, hdr.data.sel);
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.data.rid = sm.egress_rid[7:0];
        hdr.data.port = (bit<8>)sm.egress_port;
        hdr.data.itype = sm.instance_type[7:0];
    }
}

control CC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

// clone: I2E in ingress (the copy re-parses the original input bytes, so ingress's changes
// are not in it), E2E in egress (the copy is the packet as egress left it and runs egress
// again), and a clone to a session that does not exist (no copy). Egress stamps each output
// with its instance_type and egress_port.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> sel;
    bit<8> itype;
    bit<8> port;
    bit<8> mark;   // set by ingress
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
        hdr.data.mark = 0xaa;
        if (hdr.data.sel == 1) {
            clone(CloneType.I2E, 32w5);
        } else if (hdr.data.sel == 3) {
            clone(CloneType.I2E, 32w9);
        }
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.data.itype = sm.instance_type[7:0];
        hdr.data.port = (bit<8>)sm.egress_port;
        if (sm.instance_type == 0 && hdr.data.sel == 2) {
            clone(CloneType.E2E, 32w7);
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

// Test program of the P4Runtime clone session tests: a PacketOut's header names the port of
// the packet itself and the clone session that clones it at ingress; each clone's egress
// writes its egress_rid (the replica's instance) into the Ethernet type and its priority (the
// session's class of service) into the top 3 bits of the destination address.
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> pad;
    bit<32> session;
}
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t {
    packet_out_t pout;
    ethernet_t eth;
}
struct meta_t { }

parser CloneParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: from_cpu;
            default: eth;
        }
    }
    state from_cpu { pkt.extract(h.pout); transition eth; }
    state eth { pkt.extract(h.eth); transition accept; }
}
control CloneVerify(inout headers_t h, inout meta_t m) { apply { } }

control CloneIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.pout.isValid()) {
            sm.egress_spec = h.pout.egress_port;
            if (h.pout.session != 0) {
                clone(CloneType.I2E, h.pout.session);
            }
            h.pout.setInvalid();
        } else {
            mark_to_drop(sm);
        }
    }
}
control CloneEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        // I2E clones are parsed from the input bytes again: drop their packet_out header
        h.pout.setInvalid();
        if (sm.instance_type == 1) {
            h.eth.etype = sm.egress_rid;
            h.eth.dst[47:45] = sm.priority;
        }
    }
}
control CloneCompute(inout headers_t h, inout meta_t m) { apply { } }
control CloneDeparser(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.pout);
        pkt.emit(h.eth);
    }
}

V1Switch(CloneParser(), CloneVerify(), CloneIngress(), CloneEgress(), CloneCompute(), CloneDeparser()) main;

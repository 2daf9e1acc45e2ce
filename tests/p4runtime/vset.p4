// Test program of the P4Runtime value set tests: a PacketOut enters the parser from the
// controller port; the parser takes the tag state only for an Ethernet type in value set
// `tagged_types`, and marks a tag whose kind is in value set `marked_kinds`. Ingress sends an
// untagged packet to port 0, a tagged one to port 1, a marked one to port 2.
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255

@controller_header("packet_out")
header packet_out_t {
    bit<8> unused;
}
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
header tag_t {
    bit<8> kind;
    bit<8> rest;
}
struct headers_t {
    packet_out_t pout;
    ethernet_t eth;
    tag_t tag;
}
struct meta_t {
    bit<1> marked;
}

parser VsParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) tagged_types;
    value_set<bit<8>>(2) marked_kinds;
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: from_cpu;
            default: eth;
        }
    }
    state from_cpu { pkt.extract(h.pout); transition eth; }
    state eth {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            tagged_types: tag;
            default: accept;
        }
    }
    state tag {
        pkt.extract(h.tag);
        transition select(h.tag.kind) {
            marked_kinds: mark;
            default: accept;
        }
    }
    state mark {
        m.marked = 1;
        transition accept;
    }
}
control VsVerify(inout headers_t h, inout meta_t m) { apply { } }

control VsIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.pout.setInvalid();
        if (m.marked == 1) {
            sm.egress_spec = 2;
        } else if (h.tag.isValid()) {
            sm.egress_spec = 1;
        } else {
            sm.egress_spec = 0;
        }
    }
}
control VsEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control VsCompute(inout headers_t h, inout meta_t m) { apply { } }
control VsDeparser(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.tag);
    }
}

V1Switch(VsParser(), VsVerify(), VsIngress(), VsEgress(), VsCompute(), VsDeparser()) main;

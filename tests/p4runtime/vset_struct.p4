// Test program of the P4Runtime value set tests over a struct: a PacketOut enters the parser
// from the controller port; the parser selects on (Ethernet type, tag kind, tag rest, tag extra)
// against value set `classes`, whose element struct matches the Ethernet type exactly, the kind
// ternary, the rest by prefix and the extra optionally. Ingress sends a packet in the set to
// port 1, any other to port 0.
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
    bit<8> extra;
}
struct headers_t {
    packet_out_t pout;
    ethernet_t eth;
    tag_t tag;
}
struct class_t {
    bit<16> etype;
    @match(ternary) bit<8> kind;
    @match(lpm) bit<8> rest;
    @match(optional) bit<8> extra;
}
struct meta_t {
    bit<1> hit;
}

parser VssParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<class_t>(4) classes;
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: from_cpu;
            default: eth;
        }
    }
    state from_cpu { pkt.extract(h.pout); transition eth; }
    state eth {
        pkt.extract(h.eth);
        pkt.extract(h.tag);
        transition select(h.eth.etype, h.tag.kind, h.tag.rest, h.tag.extra) {
            classes: hit;
            default: accept;
        }
    }
    state hit {
        m.hit = 1;
        transition accept;
    }
}
control VssVerify(inout headers_t h, inout meta_t m) { apply { } }

control VssIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.pout.setInvalid();
        if (m.hit == 1) {
            sm.egress_spec = 1;
        } else {
            sm.egress_spec = 0;
        }
    }
}
control VssEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control VssCompute(inout headers_t h, inout meta_t m) { apply { } }
control VssDeparser(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.tag);
    }
}

V1Switch(VssParser(), VssVerify(), VssIngress(), VssEgress(), VssCompute(), VssDeparser()) main;

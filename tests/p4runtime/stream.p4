// Test program of the P4Runtime stream tests: packet I/O through the controller port (255),
// a learning digest and a table whose entries age (idle-timeout notifications).
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> pad;
}
@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> pad;
}
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t {
    packet_out_t pout;
    packet_in_t pin;
    ethernet_t eth;
}
struct learn_t {
    bit<48> src;
    bit<9> port;
}
struct meta_t { }

parser StreamParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: from_cpu;
            default: eth;
        }
    }
    state from_cpu { pkt.extract(h.pout); transition eth; }
    state eth { pkt.extract(h.eth); transition accept; }
}
control StreamVerify(inout headers_t h, inout meta_t m) { apply { } }

control StreamIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action to_cpu() {
        sm.egress_spec = CPU_PORT;
        h.pin.setValid();
        h.pin.ingress_port = sm.ingress_port;
        h.pin.pad = 0;
    }
    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action learn() { digest<learn_t>(1, { h.eth.src, sm.ingress_port }); }

    // unknown destinations go to the controller; entries age (support_timeout)
    table dmac {
        key = { h.eth.dst : exact; }
        actions = { forward; to_cpu; drop; }
        default_action = to_cpu();
        support_timeout = true;
        size = 1024;
    }
    // unknown sources are reported by a digest (PacketOuts too: their source port is 255)
    table smac {
        key = { h.eth.src : exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        size = 1024;
    }
    apply {
        smac.apply();
        if (h.pout.isValid()) {
            sm.egress_spec = h.pout.egress_port;
            h.pout.setInvalid();
        } else {
            dmac.apply();
        }
    }
}
control StreamEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control StreamCompute(inout headers_t h, inout meta_t m) { apply { } }
control StreamDeparser(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.pin);
        pkt.emit(h.eth);
    }
}

V1Switch(StreamParser(), StreamVerify(), StreamIngress(), StreamEgress(), StreamCompute(), StreamDeparser()) main;

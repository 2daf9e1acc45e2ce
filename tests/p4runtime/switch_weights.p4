// Test program of P4Runtime selectors whose weights the switch chooses (`@weights_disallowed`):
// `dlb` takes groups of at most 2 (sum of weights), `dlb_sets` one-shot action sets, `wcmp` is an
// ordinary selector (the controller's weights) and `members` an action profile without selector.
// Frames enter from the controller port (PacketOut) or any port; the selectors hash the source
// MAC; a frame goes through the tables in that order until one matches.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser SwParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control SwVerify(inout headers_t h, inout meta_t m) { apply { } }

control SwIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    @weights_disallowed @max_group_size(2)
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) dlb;
    @weights_disallowed
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) dlb_sets;
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) wcmp;
    action_profile(32w16) members;
    table lb {
        key = { h.eth.dst : exact; h.eth.src : selector; }
        actions = { forward; }
        implementation = dlb;
        size = 64;
    }
    table lb_sets {
        key = { h.eth.dst : exact; h.eth.src : selector; }
        actions = { forward; }
        implementation = dlb_sets;
        size = 64;
    }
    table lb_w {
        key = { h.eth.dst : exact; h.eth.src : selector; }
        actions = { forward; }
        implementation = wcmp;
        size = 64;
    }
    table by_member {
        key = { h.eth.dst : exact; }
        actions = { forward; }
        implementation = members;
        size = 64;
    }
    apply {
        mark_to_drop(sm);
        if (!lb.apply().hit) {
            if (!lb_sets.apply().hit) {
                if (!lb_w.apply().hit) {
                    by_member.apply();
                }
            }
        }
    }
}
control SwEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control SwCompute(inout headers_t h, inout meta_t m) { apply { } }
control SwDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(SwParser(), SwVerify(), SwIngress(), SwEgress(), SwCompute(), SwDeparser()) main;

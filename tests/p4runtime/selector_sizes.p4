// Test program of the P4Runtime selector size semantics: `wcmp` counts a group's size in members
// (weights up to 1000000 each, at most 4 members a group), `ecmp` in the sum of weights (at most 8
// a group). Frames enter from the controller port (PacketOut) or any port; both selectors hash
// the source MAC; a frame `lb` does not match goes through `lb_w`.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser SzParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control SzVerify(inout headers_t h, inout meta_t m) { apply { } }

control SzIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    @selector_size_semantics("sum_of_members") @max_member_weight(1000000) @max_group_size(4)
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) wcmp;
    @max_group_size(8)
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) ecmp;
    table lb {
        key = {
            h.eth.dst : exact;
            h.eth.src : selector;
        }
        actions = { forward; }
        implementation = wcmp;
        size = 64;
    }
    table lb_w {
        key = {
            h.eth.dst : exact;
            h.eth.src : selector;
        }
        actions = { forward; }
        implementation = ecmp;
        size = 64;
    }
    apply {
        mark_to_drop(sm);
        if (!lb.apply().hit) {
            lb_w.apply();
        }
    }
}
control SzEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control SzCompute(inout headers_t h, inout meta_t m) { apply { } }
control SzDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(SzParser(), SzVerify(), SzIngress(), SzEgress(), SzCompute(), SzDeparser()) main;

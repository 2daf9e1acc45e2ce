// Test program of the P4Runtime action profile tests: a table implemented by an action
// selector (members and groups). Frames enter from the controller port (PacketOut, no
// packet_out header) or any port; the selector hashes the source MAC.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser ProfParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control ProfVerify(inout headers_t h, inout meta_t m) { apply { } }

control ProfIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table lb {
        key = {
            h.eth.dst : exact;
            h.eth.src : selector;
        }
        actions = { forward; drop; }
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
        size = 64;
    }
    apply {
        mark_to_drop(sm);
        lb.apply();
    }
}
control ProfEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control ProfCompute(inout headers_t h, inout meta_t m) { apply { } }
control ProfDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(ProfParser(), ProfVerify(), ProfIngress(), ProfEgress(), ProfCompute(), ProfDeparser()) main;

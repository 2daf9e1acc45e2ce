// System test program: packets from port 0 go out of port 1 with the Ethernet source address
// rewritten; everything else is dropped. Used by tests/system/iface.sh over veth pairs.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser P(packet_in b, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { b.extract(h.eth); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.ingress_port == 0 && h.eth.etherType == 0x88b5) {
            h.eth.src = 48w0x02_00_00_00_00_99;
            sm.egress_spec = 1;
        } else {
            mark_to_drop(sm);
        }
    }
}
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out b, in headers_t h) { apply { b.emit(h.eth); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;

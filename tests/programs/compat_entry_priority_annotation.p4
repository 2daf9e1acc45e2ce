// p4c compatibility: the legacy `@priority(N)` annotation on table entries. As in p4c/BMv2, an
// annotated entry has priority N, an entry without one has its position (1, 2, ...), and the
// smallest number wins (not program order).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> port;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action set(bit<9> p) {
        standard_metadata.egress_spec = p;
        hdr.h.port = (bit<8>)p;
    }
    action none() {
        standard_metadata.egress_spec = 0;
    }
    table t {
        key = { hdr.h.k : ternary; }
        actions = { set; none; }
        default_action = none;
        const entries = {
            0x10 &&& 0xf0 : set(1) @priority(5);   // number 5
            0x12 &&& 0xff : set(2);                // number 2 (position)
            0x13 &&& 0xff : set(3) @priority(9);   // number 9
            0x00 &&& 0x0e : set(4);                // number 4 (position)
        }
    }
    apply {
        t.apply();
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.h);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;

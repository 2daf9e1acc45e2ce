// Generated C must compile with -Wextra -Werror when a parser touches none of the parser
// state (no extract, no assignment: its state pointer is unused) and when a register of 256
// cells is indexed by a bit<8> value (every index is in range, so an index check would be a
// comparison that is always true). The register counts packets per first byte.
#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> v;
    bit<8> n;
}

struct headers_t {
    b_t b;
}

struct metadata_t {
}

parser Skip(packet_in packet, out headers_t hdr, inout metadata_t meta,
            inout standard_metadata_t sm) {
    state start {
        transition accept;
    }
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    Skip() skip;
    state start {
        skip.apply(packet, hdr, meta, sm);
        packet.extract(hdr.b);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(256) seen;
    apply {
        bit<8> c;
        seen.read(c, hdr.b.v);
        c = c + 1;
        seen.write(hdr.b.v, c);
        hdr.b.n = c;
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}

control CC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.b);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

// A parser that loops forever (a state that goes to itself without consuming input) ends with
// error.ParserTimeout after the step limit, and the packet reaches ingress with that error
// (v1model). An acyclic parser in the same program (a sub-parser) keeps working.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> mode;   // 1: loop forever; otherwise accept
    bit<8> err;    // ingress: 1 if parser_error == ParserTimeout, 2 if NoError, 3 otherwise
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser Sub(packet_in packet, out h_t h) {
    state start {
        packet.extract(h);
        transition accept;
    }
}

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    Sub() sub;
    state start {
        sub.apply(packet, hdr.h);
        transition select(hdr.h.mode) {
            1: spin;
            default: accept;
        }
    }
    state spin {
        transition spin;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.ParserTimeout) {
            hdr.h.err = 1;
        } else if (sm.parser_error == error.NoError) {
            hdr.h.err = 2;
        } else {
            hdr.h.err = 3;
        }
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.h);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;

// add_entry cannot insert an entry whose action is @defaultonly in the table.
#include <core.p4>
#include <pna.p4>

header h_t {
    bit<32> id;
    bit<16> tag;
}

struct headers_t {
    h_t h;
}

struct meta_t { }

struct params_t {
    bit<16> tag;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    action known(bit<16> tag) {
        hdr.h.tag = tag;
    }
    action learn() {
        add_entry<params_t>("learn", {hdr.h.tag}, 0);
    }
    table t {
        key = { hdr.h.id : exact; }
        actions = { known; @defaultonly learn; }
        add_on_miss = true;
        default_action = learn();
    }
    apply {
        t.apply();
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta, in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.h);
    }
}

PNA_NIC(P(), Pre(), C(), D()) main;

// A Foreach loop body called directly, listed by a table, and applying its own Foreach.
#include <core.p4>
#include <rtc.p4>

header h_t { bit<32> k; bit<8> flags; }
struct headers_t { h_t h; }
struct meta_t { bit<32> n; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Fg(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action rec(bit<8> v) { }
    table flows {
        key = { hdr.h.k: exact; }
        actions = { rec; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    apply {
        send_to_port(1);
        flows.apply();

    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

control Bg(inout headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    @tbl("flows")
    @methods(rec="__for_rec")
    Foreach() sweep;
    action __for_rec(bit<32> k, bit<8> v) {
        meta.n = meta.n + 1;
        sweep.apply();
    }
    table bodies {
        key = { meta.n: exact; }
        actions = { __for_rec; }
        size = 4;
    }
    apply {
        sweep.apply();
        __for_rec(1, 2);
        bodies.apply();
    }
}

RTC_BG1(P(), Fg(), D(), Bg(), D()) main;

// @linear tables whose key cannot be a row: two key fields, a 48-bit key.
#include <core.p4>
#include <rtc.p4>

header h_t { bit<32> k; bit<48> mac; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Fg(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action rec(bit<8> v) { }
    @linear
    table two_keys {
        key = { hdr.h.k: exact; hdr.h.mac: exact; }
        actions = { rec; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    @linear
    table wide {
        key = { hdr.h.mac: exact; }
        actions = { rec; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    apply {
        send_to_port(1);
        two_keys.apply();
        wide.apply();
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC(P(), Fg(), D()) main;

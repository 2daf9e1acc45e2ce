// Background pipelines under `p4dp run` (crates/p4dp/tests/rtc_run.rs): the foreground forwards
// every packet to port 1 and queues its key and length; background pipeline Reporter waits for
// each queued message (Queue.popWait) and sends a report of it to port 2, numbered by a shared
// Counter; Ticker sends its iteration number and the run clock to port 3, then sleeps 5 ms. When
// both share one background thread, Reporter's wait must give way to Ticker whenever it is due.
#include <core.p4>
#include <rtc.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header rec_t { bit<32> key; }
struct headers_t { ethernet_t ethernet; rec_t rec; }
struct meta_t { }

struct Msg { bit<32> key; bit<32> len; }

Queue<Msg>(4096) seen;
Counter(1) reports;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.rec);
        transition accept;
    }
}

control I(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    apply {
        if (seen.push({ hdr.rec.key, getPktLength() })) {
            send_to_port(1);
        }
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header report_t { bit<32> number; bit<32> key; bit<32> len; }
struct report_headers_t { ethernet_t ethernet; report_t report; }

control Reporter(inout report_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    apply {
        Msg m;
        if (seen.popWait(m)) {
            hdr.ethernet.setValid();
            hdr.ethernet.dst = 0xffffffffffff;
            hdr.ethernet.src = 0x020000000002;
            hdr.ethernet.etherType = 0x88b6;
            hdr.report.setValid();
            hdr.report.number = (bit<32>)reports.get(0);
            reports.count(0, 1);
            hdr.report.key = m.key;
            hdr.report.len = m.len;
            send_to_port(2);
        }
    }
}

control ReportD(packet_out pkt, in report_headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header tick_t { bit<32> iteration; bit<64> now_ns; }
struct tick_headers_t { ethernet_t ethernet; tick_t tick; }

control Ticker(inout tick_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    Sleep() nap;
    apply {
        hdr.ethernet.setValid();
        hdr.ethernet.dst = 0xffffffffffff;
        hdr.ethernet.src = 0x020000000003;
        hdr.ethernet.etherType = 0x88b7;
        hdr.tick.setValid();
        hdr.tick.iteration = bstd.iteration;
        hdr.tick.now_ns = bstd.timestamp_ns;
        send_to_port(3);
        nap.ms(5);
    }
}

control TickD(packet_out pkt, in tick_headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG2(P(), I(), D(), Reporter(), ReportD(), Ticker(), TickD()) main;

// Background pipelines of the run-to-completion architecture (rtc.p4, docs/rtc.md), run by the STF
// command `background NAME [N]`: the foreground adds table entries (TableOperation.entryAdd) and
// queues keys (Queue.push); background pipeline Reporter takes one key per iteration
// (Queue.popWait), reads and deletes its entry (entryGet, entryDel) and builds a report packet
// (setValid + deparser) for port 9; Ticker sends its iteration number and the clock to port 8 and
// sleeps 5 ms, which the simulated clock follows.
#include <core.p4>
#include <rtc.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header op_t { bit<8> op; bit<8> ok; bit<32> key; bit<32> val; }
struct headers_t { ethernet_t ethernet; op_t op; }
struct meta_t { }

struct Msg { bit<32> key; }
struct Data { bit<32> v; }

Queue<Msg>(16) q;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.op);
        transition accept;
    }
}

control I(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action set_val(bit<32> v) { hdr.op.val = v; }
    table flows {
        key = { hdr.op.key: exact; }
        actions = { set_val; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    @tbl("flows")
    TableOperation() op;
    apply {
        send_to_port(0);
        if (hdr.op.op == 1) {
            hdr.op.ok = (bit<8>)(bit<1>)q.push({ hdr.op.key });
        } else if (hdr.op.op == 2) {
            hdr.op.ok = (bit<8>)(bit<1>)op.entryAdd(hdr.op.key, 0, (Data){ v = hdr.op.val });
        } else {
            hdr.op.ok = (bit<8>)(bit<1>)flows.apply().hit;
        }
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header report_t { bit<32> iteration; bit<32> key; bit<32> val; bit<8> found; bit<8> deleted; }
struct report_headers_t { ethernet_t ethernet; report_t report; }

control Reporter(inout report_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    @tbl("flows")
    TableOperation() op;
    apply {
        Msg m;
        if (q.popWait(m)) {
            bit<8> a;
            Data d = { 0 };
            hdr.ethernet.setValid();
            hdr.ethernet.dst = 0xffffffffffff;
            hdr.ethernet.etherType = 0x88b6;
            hdr.report.setValid();
            hdr.report.iteration = bstd.iteration;
            hdr.report.key = m.key;
            hdr.report.found = (bit<8>)(bit<1>)op.entryGet(m.key, a, d);
            hdr.report.val = d.v;
            hdr.report.deleted = (bit<8>)(bit<1>)op.entryDel(m.key);
            send_to_port(9);
        }
    }
}

header tick_t { bit<64> now_ns; bit<32> iteration; }
struct tick_headers_t { tick_t tick; }

control Ticker(inout tick_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    Sleep() sleep;
    apply {
        hdr.tick.setValid();
        hdr.tick.now_ns = bstd.timestamp_ns;
        hdr.tick.iteration = bstd.iteration;
        send_to_port(8);
        sleep.ms(5);
    }
}

control ReportD(packet_out pkt, in report_headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

control TickD(packet_out pkt, in tick_headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG2(P(), I(), D(), Reporter(), ReportD(), Ticker(), TickD()) main;

// Accurate per-flow monitoring with aging on the run-to-completion architecture (rtc.p4, docs/rtc.md),
// after the use case of Zheng et al., "When P4 Meets Run-to-completion Architecture" (section 7.1,
// appendix A).
//
// Foreground (every worker): a TCP packet whose flow misses FlowTable adds the flow's record
// (TableOperation.entryAdd); the record's row indexes three cells of an atomic Counter: packets, bytes
// and the time of the flow's last packet. A FIN or RST pushes the flow to a Queue. Packets leave on port 1.
// Reporter (background): pops a flow, reads its record (entryGet gives the row), deletes the entry and
// sends a report with the flow's packet and byte counts to the collector on port 9.
// Ager (background, every 100 ms): sweeps FlowTable (Foreach) and queues the flows idle for more than
// 1 s, which Reporter then reports and deletes like finished ones. A flow is reported once: a second
// message for a flow already deleted finds no record and sends nothing.
// A new record's cells are reset by the core that added it: packets of one flow go to one worker
// (flow dispatch), so no other core counts into the row meanwhile.
#include <core.p4>
#include <rtc.p4>

const bit<8> TCP_FIN = 0x01;
const bit<8> TCP_RST = 0x04;
// Sizes and ports for larger runs (-D): FLOW_OUT_PORT where packets leave, FLOW_TABLE_SIZE flows the
// table holds (the Counter has three cells per row), FLOW_IDLE_NS the idle timeout
#ifndef FLOW_OUT_PORT
#define FLOW_OUT_PORT 1
#endif
#ifndef FLOW_TABLE_SIZE
#define FLOW_TABLE_SIZE 1024
#endif
#ifndef FLOW_IDLE_NS
#define FLOW_IDLE_NS 1000000000
#endif
const bit<64> IDLE_NS = FLOW_IDLE_NS;

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset;
    bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tcp_t {
    bit<16> srcPort; bit<16> dstPort; bit<32> seqNo; bit<32> ackNo;
    bit<4> dataOffset; bit<4> res; bit<8> flags; bit<16> window;
    bit<16> checksum; bit<16> urgentPtr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; tcp_t tcp; }
struct meta_t { }

struct FlowInfo { bit<32> src; bit<32> dst; bit<16> sport; bit<16> dport; }
struct FlowData { bit<8> unused; }

Queue<FlowInfo>(4096) queue;
// per row: packets, bytes, last packet's time
Counter(3 * FLOW_TABLE_SIZE) cnt;

parser FgParser(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 6: tcp; default: accept; }
    }
    state tcp { pkt.extract(hdr.tcp); transition accept; }
}

control FgIngress(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action flow_rec(bit<8> unused) { }
    @offchip
    table FlowTable {
        key = { hdr.ipv4.srcAddr: exact; hdr.ipv4.dstAddr: exact; hdr.tcp.srcPort: exact; hdr.tcp.dstPort: exact; }
        actions = { flow_rec; NoAction; }
        default_action = NoAction();
        size = FLOW_TABLE_SIZE;
    }
    @tbl("FlowTable")
    TableOperation() tbl_op;
    apply {
        send_to_port(FLOW_OUT_PORT);
        if (hdr.tcp.isValid()) {
            FlowInfo k = { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.tcp.srcPort, hdr.tcp.dstPort };
            bool known = FlowTable.apply().hit;
            if (!known) {
                if (tbl_op.entryAdd(k, 0, (FlowData){ unused = 0 })) {
                    bit<32> fresh = lastRowIndex();
                    cnt.set(fresh * 3, 0);
                    cnt.set(fresh * 3 + 1, 0);
                    known = true;
                } else {
                    // the table is full (or another core added the flow a moment ago)
                    bit<8> a;
                    FlowData d;
                    known = tbl_op.entryGet(k, a, d);
                }
            }
            if (known) {
                bit<32> row = lastRowIndex();
                cnt.count(row * 3, 1);
                cnt.count(row * 3 + 1, getPktLength());
                cnt.set(row * 3 + 2, istd.timestamp_ns);
                if ((hdr.tcp.flags & (TCP_FIN | TCP_RST)) != 0) {
                    queue.push(k);
                }
            }
        }
    }
}

control FgDeparser(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header report_t { bit<32> src; bit<32> dst; bit<16> sport; bit<16> dport; bit<64> packets; bit<64> bytes; }
struct bg_headers_t { ethernet_t ethernet; report_t report; }

control Reporter(inout bg_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    @tbl("FlowTable")
    TableOperation() tbl_op;
    apply {
        FlowInfo flow;
        if (queue.popWait(flow)) {
            bit<8> action_id;
            FlowData action_data;
            if (tbl_op.entryGet(flow, action_id, action_data)) {
                bit<32> row = lastRowIndex();
                tbl_op.entryDel(flow);
                hdr.ethernet.setValid();
                hdr.ethernet.etherType = 0x88b5;
                hdr.report.setValid();
                hdr.report.src = flow.src;
                hdr.report.dst = flow.dst;
                hdr.report.sport = flow.sport;
                hdr.report.dport = flow.dport;
                hdr.report.packets = cnt.get(row * 3);
                hdr.report.bytes = cnt.get(row * 3 + 1);
                send_to_port(9);
            }
        }
    }
}

control Ager(inout bg_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    action __for_flow_rec(FlowInfo k, FlowData d) {
        bit<64> last = cnt.get(lastRowIndex() * 3 + 2);
        // a packet counted after this iteration's clock reading is no sign of idleness
        if (last < bstd.timestamp_ns && bstd.timestamp_ns - last > IDLE_NS) {
            queue.push(k);
        }
    }
    @tbl("FlowTable")
    @methods(flow_rec="__for_flow_rec")
    Foreach() sweep;
    Sleep() sleep;
    apply {
        sleep.ms(100);
        sweep.apply();
    }
}

control BgDeparser(packet_out pkt, in bg_headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG2(FgParser(), FgIngress(), FgDeparser(), Reporter(), BgDeparser(), Ager(), BgDeparser()) main;

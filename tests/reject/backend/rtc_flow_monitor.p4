// Per-flow monitoring with aging on the run-to-completion architecture (docs/rtc.md): the front end
// accepts it; the C back end translates its foreground and background pipelines but not yet the Foreach
// sweep and its loop body, and lists what it cannot translate.
// The foreground adds a flow record on a miss (TableOperation) and counts packets, bytes and the last
// time in an atomic Counter at the entry's row; FIN/RST push the flow to a Queue. bg0 pops a flow, reports
// it to port 9 and deletes it; bg1 sweeps the table (Foreach + Sleep) and queues flows idle for 1 s.
#include <core.p4>
#include <rtc.p4>

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
Counter(3072) cnt;

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
        size = 1024;
    }
    @tbl("FlowTable")
    TableOperation() tbl_op;
    apply {
        send_to_port(1);
        if (hdr.tcp.isValid()) {
            FlowInfo k = { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.tcp.srcPort, hdr.tcp.dstPort };
            if (!FlowTable.apply().hit) {
                tbl_op.entryAdd(k, 0, (FlowData){ unused = 0 });
            }
            bit<32> row = lastRowIndex();
            cnt.count(row * 3, 1);
            cnt.count(row * 3 + 1, getPktLength());
            cnt.set(row * 3 + 2, istd.timestamp_ns);
            if (hdr.tcp.flags & 0x05 != 0) {
                queue.push(k);
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
        if (queue.pop(flow)) {
            bit<8> action_id;
            FlowData action_data;
            if (tbl_op.entryGet(flow, action_id, action_data)) {
                bit<32> row = lastRowIndex();
                hdr.ethernet.setValid();
                hdr.ethernet.etherType = 0x88b5;
                hdr.report.setValid();
                hdr.report.src = flow.src;
                hdr.report.dst = flow.dst;
                hdr.report.sport = flow.sport;
                hdr.report.dport = flow.dport;
                hdr.report.packets = cnt.get(row * 3);
                hdr.report.bytes = cnt.get(row * 3 + 1);
                tbl_op.entryDel(flow);
                send_to_port(9);
            }
        }
    }
}

control Ager(inout bg_headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    action __for_flow_rec(FlowInfo k, FlowData d) {
        bit<32> row = lastRowIndex();
        if (bstd.timestamp_ns - cnt.get(row * 3 + 2) > 1000000000) {
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

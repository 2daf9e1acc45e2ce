// @linear tables of the run-to-completion architecture (rtc.p4, docs/rtc.md): the key is the row. The
// foreground adds entries to `ports` (TableOperation.entryAdd) or looks them up, answering with the
// row (lastRowIndex()); a key at or beyond the table's size is refused. Background pipeline Rows sweeps
// the rows in [4, 10), which on a linear table are the keys in [4, 10), and then every row, recording
// the order in which the keys come (row order, so key order).
#include <core.p4>
#include <rtc.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header op_t { bit<8> op; bit<8> ok; bit<8> key; bit<32> v; bit<32> row; }
struct headers_t { ethernet_t ethernet; op_t op; }
struct meta_t { }

struct V { bit<32> v; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.op);
        transition accept;
    }
}

control I(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action set(bit<32> v) { hdr.op.v = v; }
    @linear
    table ports {
        key = { hdr.op.key: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
        size = 16;
    }
    @tbl("ports")
    TableOperation() op;
    apply {
        send_to_port(0);
        if (hdr.op.op == 0) {
            hdr.op.ok = (bit<8>)(bit<1>)op.entryAdd(hdr.op.key, 0, (V){ v = hdr.op.v });
        } else {
            hdr.op.ok = (bit<8>)(bit<1>)ports.apply().hit;
        }
        hdr.op.row = lastRowIndex();
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header sums_t { bit<32> n; bit<32> keys; bit<32> rows; bit<32> values; bit<32> order; }
struct bg_headers_t { sums_t sums; }
struct bg_meta_t { bit<32> n; bit<32> keys; bit<32> rows; bit<32> values; bit<32> order; }

control Rows(inout bg_headers_t hdr, inout bg_meta_t meta, in rtc_background_metadata_t bstd) {
    action visit(bit<8> k, bit<32> v) {
        meta.n = meta.n + 1;
        meta.keys = meta.keys + (bit<32>)k;
        meta.rows = meta.rows + lastRowIndex();
        meta.values = meta.values + v;
    }
    // the keys in visiting order, one hex digit each
    action record(bit<8> k) {
        meta.order = (meta.order << 4) | (bit<32>)k;
    }
    @tbl("ports")
    @methods(set="visit")
    Foreach() sweep;
    @tbl("ports")
    @methods(set="record")
    Foreach() all;
    apply {
        sweep.apply(4, 10);
        all.apply();
        hdr.sums.setValid();
        hdr.sums.n = meta.n;
        hdr.sums.keys = meta.keys;
        hdr.sums.rows = meta.rows;
        hdr.sums.values = meta.values;
        hdr.sums.order = meta.order;
        send_to_port(7);
    }
}

control BgD(packet_out pkt, in bg_headers_t hdr, in bg_meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG1(P(), I(), D(), Rows(), BgD()) main;

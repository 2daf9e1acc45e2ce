// Foreach of the run-to-completion architecture (rtc.p4, docs/rtc.md). The foreground adds entries to
// table `t` (TableOperation.entryAdd with either action) and answers with the entry's row. Three
// background pipelines sweep `t` and report what their loop bodies saw:
//   Sweeper  visits every entry; the body bound to the entry's action gets its key (a struct of the
//            table's two key fields) and its action data (one parameter per action parameter, or a
//            struct of them) and sums them;
//   Jumps    `continue;` skips entries whose data is zero, `break;` ends a sweep after two entries
//            (statements after it do not run), and a `break;` inside a `for` loop of a body leaves
//            only that `for`;
//   Ranges   apply(start, end) over the rows in [1, 3), and a range loop (no table) over [2, 10)
//            whose body skips 4 (`continue;`) and stops at 7 (`break;`).
#include <core.p4>
#include <rtc.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header op_t { bit<8> act; bit<8> ok; bit<16> a; bit<32> b; bit<32> v0; bit<32> v1; bit<32> row; }
struct headers_t { ethernet_t ethernet; op_t op; }
struct meta_t { }

struct Key { bit<16> a; bit<32> b; }
struct One { bit<32> v; }
struct Pair { bit<32> v0; bit<32> v1; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.op);
        transition accept;
    }
}

control I(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action one(bit<32> v) { }
    action two(bit<32> v0, bit<32> v1) { }
    table t {
        key = { hdr.op.a: exact; hdr.op.b: exact; }
        actions = { one; two; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    @tbl("t")
    TableOperation() op;
    apply {
        send_to_port(0);
        Key k = { hdr.op.a, hdr.op.b };
        if (hdr.op.act == 0) {
            hdr.op.ok = (bit<8>)(bit<1>)op.entryAdd(k, 0, (One){ v = hdr.op.v0 });
        } else {
            hdr.op.ok = (bit<8>)(bit<1>)op.entryAdd(k, 1, (Pair){ v0 = hdr.op.v0, v1 = hdr.op.v1 });
        }
        hdr.op.row = lastRowIndex();
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header sums_t { bit<32> n0; bit<32> n1; bit<32> sum; bit<32> rows; }
struct bg_headers_t { sums_t sums; }
struct bg_meta_t { bit<32> n0; bit<32> n1; bit<32> sum; bit<32> rows; }

control Sweeper(inout bg_headers_t hdr, inout bg_meta_t meta, in rtc_background_metadata_t bstd) {
    action __for_one(Key k, bit<32> v) {
        meta.n0 = meta.n0 + 1;
        meta.sum = meta.sum + v + k.b + (bit<32>)k.a;
        meta.rows = meta.rows + lastRowIndex();
    }
    action __for_two(Key k, Pair d) {
        meta.n1 = meta.n1 + 1;
        meta.sum = meta.sum + d.v0 + d.v1 + k.b + (bit<32>)k.a;
        meta.rows = meta.rows + lastRowIndex();
    }
    @tbl("t")
    @methods(one="__for_one", two="__for_two")
    Foreach() sweep;
    apply {
        sweep.apply();
        hdr.sums.setValid();
        hdr.sums.n0 = meta.n0;
        hdr.sums.n1 = meta.n1;
        hdr.sums.sum = meta.sum;
        hdr.sums.rows = meta.rows;
        send_to_port(7);
    }
}

control Jumps(inout bg_headers_t hdr, inout bg_meta_t meta, in rtc_background_metadata_t bstd) {
    action skip_one(Key k, bit<32> v) {
        if (v == 0) {
            continue;
        }
        meta.n0 = meta.n0 + 1;
    }
    action skip_two(Key k, bit<32> v0, bit<32> v1) {
        if (v0 + v1 == 0) {
            continue;
        }
        meta.n0 = meta.n0 + 1;
        for (bit<32> j = 0; j < 10; j = j + 1) {
            if (j == 3) {
                break;
            }
            meta.rows = meta.rows + 1;
        }
    }
    action stop(Key k) {
        meta.n1 = meta.n1 + 1;
        if (meta.n1 == 2) {
            break;
        }
        meta.sum = meta.sum + 1;
    }
    @tbl("t")
    @methods[one="skip_one", two="skip_two"]
    Foreach() skipping;
    @tbl(t)
    @methods(one="stop", two="stop")
    Foreach() stopping;
    apply {
        skipping.apply();
        stopping.apply();
        hdr.sums.setValid();
        hdr.sums.n0 = meta.n0;
        hdr.sums.n1 = meta.n1;
        hdr.sums.sum = meta.sum;
        hdr.sums.rows = meta.rows;
        send_to_port(7);
    }
}

control Ranges(inout bg_headers_t hdr, inout bg_meta_t meta, in rtc_background_metadata_t bstd) {
    action in_rows_one(Key k, bit<32> v) {
        meta.n0 = meta.n0 + 1;
        meta.rows = meta.rows + lastRowIndex();
    }
    action in_rows_two(Key k, Pair d) {
        meta.n0 = meta.n0 + 1;
        meta.rows = meta.rows + lastRowIndex();
    }
    action count(bit<32> i) {
        if (i == 4) {
            continue;
        }
        if (i == 7) {
            break;
        }
        meta.n1 = meta.n1 + 1;
        meta.sum = meta.sum + i;
    }
    @tbl("t")
    @methods(one="in_rows_one", two="in_rows_two")
    Foreach() rows;
    @methods(index="count")
    Foreach() loop;
    apply {
        rows.apply(1, 3);
        loop.apply(2, 10);
        hdr.sums.setValid();
        hdr.sums.n0 = meta.n0;
        hdr.sums.n1 = meta.n1;
        hdr.sums.sum = meta.sum;
        hdr.sums.rows = meta.rows;
        send_to_port(7);
    }
}

control BgD(packet_out pkt, in bg_headers_t hdr, in bg_meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG3(P(), I(), D(), Sweeper(), BgD(), Jumps(), BgD(), Ranges(), BgD()) main;

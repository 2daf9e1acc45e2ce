// The program of test_rtc_sweep_gen.c: a Foreach sweep in generated code (p4dp build) over a table
// that the workers insert into (TableOperation.entryAdd) and a background pipeline deletes from
// (entryDel) at the same time, built with the test's sanitizer flags.
//
// Table `flows`: keys 0 .. STABLE-1 are installed by the control thread before the run and never
// deleted (the stable keys); keys STABLE .. STABLE+CHURN-1 come and go: a packet carrying such a
// key adds it (data key ^ MAGIC), and Churner deletes one of them per iteration. Sweeper sweeps the
// table over and over; its loop body checks each visited entry's data, counts each visit of a
// stable key in `visits`, and notes in `seen` the sweep and the row (lastRowIndex()) of the last
// visit of each churning key: a second visit in the same sweep at the same row is the same entry
// twice, counted as a double (a key deleted and added again during a sweep is a second entry, at
// another row, which the sweep may visit too). Cells of `stats`: 0 sweeps completed,
// 1 entries visited with wrong data, 2 double visits of a churning key, 3 adds, 4 deletes,
// 5 packets, 6 entries visited.
#include <core.p4>
#include <rtc.p4>

#define STABLE 256
#define CHURN 256
const bit<32> MAGIC = 0x5a5a0000;

header key_t { bit<32> k; }
struct headers_t { key_t key; }
struct meta_t { bit<64> sweep_no; }
struct Data { bit<32> v; }

Counter(8) stats;
Counter(STABLE + CHURN) visits;
Counter(STABLE + CHURN) seen;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start { pkt.extract(hdr.key); transition accept; }
}

control Fg(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action set(bit<32> v) { }
    table flows {
        key = { hdr.key.k: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    @tbl("flows")
    TableOperation() op;
    apply {
        stats.count(5, 1);
        if (!flows.apply().hit) {
            if (op.entryAdd(hdr.key.k, 0, (Data){ v = hdr.key.k ^ MAGIC })) {
                stats.count(3, 1);
            }
        }
        drop_packet();
    }
}

control FgD(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { }
}

control Churner(inout headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    @tbl("flows")
    TableOperation() op;
    Sleep() sleep;
    apply {
        bit<32> k = STABLE + (bstd.iteration & (CHURN - 1));
        if (op.entryDel(k)) {
            stats.count(4, 1);
        }
        sleep.us(20);
    }
}

control Sweeper(inout headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    action __for_set(bit<32> k, bit<32> v) {
        stats.count(6, 1);
        if (v != (k ^ MAGIC)) {
            stats.count(1, 1);
        }
        if (k < STABLE) {
            visits.count(k, 1);
        } else {
            bit<64> at = (meta.sweep_no << 32) | (bit<64>)lastRowIndex();
            if (seen.get(k) == at) {
                stats.count(2, 1);
            }
            seen.set(k, at);
        }
    }
    @tbl("flows")
    @methods(set="__for_set")
    Foreach() sweep;
    apply {
        meta.sweep_no = stats.get(0) + 1;
        sweep.apply();
        stats.count(0, 1);
    }
}

control BgD(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { }
}

RTC_BG2(P(), Fg(), FgD(), Churner(), BgD(), Sweeper(), BgD()) main;

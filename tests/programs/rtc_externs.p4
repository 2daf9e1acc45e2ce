// The run-to-completion architecture's foreground pipeline (rtc.p4, docs/rtc.md): each packet
// carries one operation on the shared externs and comes back with its result, so the STF checks
// every extern call the C back end generates: atomic Counter count/get/set (an index out of range
// is ignored and reads 0), Lock acquire/release (non-blocking and blocking), Queue push/pop (a
// full queue refuses, an empty one fails, messages come out in order and intact), TableOperation
// entryAdd/entryGet bound with @tbl (the added entry is hit by the table's own apply afterwards;
// lastRowIndex() gives its row), getPktLength() and drop_packet().
#include <core.p4>
#include <rtc.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header op_t { bit<8> op; bit<8> ok; bit<32> key; bit<32> val; bit<64> res; bit<32> row; }
struct headers_t { ethernet_t ethernet; op_t op; }
struct meta_t { }

struct Msg { bit<32> key; bit<32> val; }
struct Data { bit<32> v; }

Counter(8) cnt;
Lock(4) lk;
Queue<Msg>(2) q;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x88b5: op; default: reject; }
    }
    state op { pkt.extract(hdr.op); transition accept; }
}

control I(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action set_res(bit<32> v) { hdr.op.res = (bit<64>)v; }
    table t {
        key = { hdr.op.key: exact; }
        actions = { set_res; NoAction; }
        default_action = NoAction();
        size = 16;
    }
    @tbl("t")
    TableOperation() op;
    apply {
        send_to_port(istd.ingress_port);
        bit<8> o = hdr.op.op;
        if (o == 1) {
            cnt.count(hdr.op.key, hdr.op.val);
            hdr.op.res = cnt.get(hdr.op.key);
        } else if (o == 2) {
            cnt.set(hdr.op.key, (bit<64>)hdr.op.val << 32);
            hdr.op.res = cnt.get(hdr.op.key);
        } else if (o == 3) {
            hdr.op.ok = (bit<8>)(bit<1>)lk.acquire(hdr.op.key, false);
        } else if (o == 4) {
            hdr.op.ok = (bit<8>)(bit<1>)lk.release(hdr.op.key);
        } else if (o == 5) {
            hdr.op.ok = (bit<8>)(bit<1>)lk.acquire(hdr.op.key, true);
        } else if (o == 6) {
            Msg m = { hdr.op.key, hdr.op.val };
            hdr.op.ok = (bit<8>)(bit<1>)q.push(m);
        } else if (o == 7) {
            Msg m;
            hdr.op.ok = (bit<8>)(bit<1>)q.pop(m);
            hdr.op.key = m.key;
            hdr.op.val = m.val;
        } else if (o == 8) {
            bool added = op.entryAdd(hdr.op.key, hdr.op.val[7:0], (Data){ v = hdr.op.val });
            hdr.op.ok = (bit<8>)(bit<1>)added;
            if (added) {
                hdr.op.row = lastRowIndex() + 1;
            }
        } else if (o == 9) {
            bit<8> a;
            Data d;
            hdr.op.ok = (bit<8>)(bit<1>)op.entryGet(hdr.op.key, a, d);
            hdr.op.res = (bit<64>)a;
            hdr.op.val = d.v;
            hdr.op.row = lastRowIndex() + 1;
        } else if (o == 10) {
            hdr.op.ok = (bit<8>)(bit<1>)t.apply().hit;
            hdr.op.row = lastRowIndex() + 1;
        } else if (o == 11) {
            hdr.op.val = getPktLength();
        } else {
            drop_packet();
        }
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC(P(), I(), D()) main;

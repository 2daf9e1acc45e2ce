// Benchmark program of `p4dp bench --suite p4runtime-updates` (as tests/p4runtime/atomic.p4 with
// 65536-entry tables): a controller writes `tag` and `expect` together, so a packet that sees them
// disagree saw half a batch. `outcome` counts per packet: 0 = a miss in either table, 1 = the
// tables disagree, 2 = they agree. Every packet is dropped.
// Update latency: the controller gives each modify of `tag` a larger value. The first packet
// whose `tag` value exceeds every value seen before stamps its time (ingress_global_timestamp,
// microseconds of the switch's run clock) into `seen_at[v % 65536]` and the value into
// `seen_tag[v % 65536]` (the client checks a slot still holds its own value).
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
struct headers_t { ethernet_t eth; }
struct meta_t {
    bit<32> tag;
    bit<32> want;
    bit<1> tagged;
    bit<1> checked;
}

parser AtomicParser(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control AtomicVerify(inout headers_t h, inout meta_t m) { apply { } }

control AtomicIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    counter(3, CounterType.packets) outcome;
    register<bit<32>>(1) last_tag;
    register<bit<48>>(65536) seen_at;
    register<bit<32>>(65536) seen_tag;

    action set_tag(bit<32> v) { m.tag = v; m.tagged = 1; }
    action expect(bit<32> v) { m.want = v; m.checked = 1; }

    table tag {
        key = { h.eth.dst : exact; }
        actions = { set_tag; NoAction; }
        default_action = NoAction();
        size = 65536;
    }
    table check {
        key = { h.eth.dst : exact; }
        actions = { expect; NoAction; }
        default_action = NoAction();
        size = 65536;
    }
    apply {
        m.tagged = 0;
        m.checked = 0;
        tag.apply();
        check.apply();
        if (m.tagged == 1) {
            bit<32> last;
            last_tag.read(last, 0);
            if (m.tag > last) {
                last_tag.write(0, m.tag);
                seen_at.write(m.tag & 32w0xffff, sm.ingress_global_timestamp);
                seen_tag.write(m.tag & 32w0xffff, m.tag);
            }
        }
        if (m.tagged == 0 || m.checked == 0) {
            outcome.count(0);
        } else if (m.tag != m.want) {
            outcome.count(1);
        } else {
            outcome.count(2);
        }
        mark_to_drop(sm);
    }
}
control AtomicEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control AtomicCompute(inout headers_t h, inout meta_t m) { apply { } }
control AtomicDeparser(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(AtomicParser(), AtomicVerify(), AtomicIngress(), AtomicEgress(), AtomicCompute(), AtomicDeparser()) main;

// SpaceSaving top-k without locks on the run-to-completion architecture (rtc.p4, docs/rtc.md), after
// appendix C of Zheng et al., "When P4 Meets Run-to-completion Architecture".
//
// SLOTS slots hold a flow (the IPv4 source address) and its count, in two atomic Counters shared by
// every core. For each packet the foreground scans the slots with a range Foreach: a slot holding the
// packet's flow is counted and the scan stops (`break;`); otherwise the scan remembers the first slot
// with the smallest count, and the flow replaces it with that count plus one (SpaceSaving's
// overestimate). Empty slots count 0, so they fill first, in order. As in the paper no lock guards the
// replacement: each Counter operation is atomic, and two cores replacing the same minimum slot at once
// can at worst lose one of the two small flows. The background pipeline Report sends slot
// (iteration mod SLOTS) to the collector on port 9 each iteration: slot, flow, count.
#include <core.p4>
#include <rtc.p4>

// SLOTS must be a power of two (Report's slot index); `p4dp bench --suite rtc-spacesaving` compiles the
// program with -D SPACESAVING_SLOTS=64
#ifndef SPACESAVING_SLOTS
#define SPACESAVING_SLOTS 4
#endif
const bit<32> SLOTS = SPACESAVING_SLOTS;
// a slot's key is the address plus this bit, so that 0 means empty
const bit<64> USED = 0x100000000;

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset;
    bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { bit<64> key; bool found; bit<64> min; bit<32> min_slot; }

Counter(SLOTS) slot_key;
Counter(SLOTS) slot_count;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control Ingress(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action look(bit<32> i) {
        if (slot_key.get(i) == meta.key) {
            slot_count.count(i, 1);
            meta.found = true;
            break;
        }
        bit<64> c = slot_count.get(i);
        if (c < meta.min) {
            meta.min = c;
            meta.min_slot = i;
        }
    }
    @methods(index="look")
    Foreach() scan;
    apply {
        send_to_port(1);
        if (hdr.ipv4.isValid()) {
            meta.key = USED | (bit<64>)hdr.ipv4.srcAddr;
            meta.found = false;
            meta.min = 0xffffffffffffffff;
            meta.min_slot = 0;
            scan.apply(0, SLOTS);
            if (!meta.found) {
                slot_key.set(meta.min_slot, meta.key);
                slot_count.set(meta.min_slot, meta.min + 1);
            }
        }
    }
}

control Deparser(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header slot_t { bit<32> slot; bit<32> flow; bit<64> count; }
struct report_headers_t { ethernet_t ethernet; slot_t slot; }
struct report_meta_t { }

control Report(inout report_headers_t hdr, inout report_meta_t meta, in rtc_background_metadata_t bstd) {
    apply {
        bit<32> i = bstd.iteration & (SLOTS - 1);
        hdr.ethernet.setValid();
        hdr.ethernet.etherType = 0x88b7;
        hdr.slot.setValid();
        hdr.slot.slot = i;
        hdr.slot.flow = (bit<32>)slot_key.get(i);
        hdr.slot.count = slot_count.get(i);
        send_to_port(9);
    }
}

control ReportD(packet_out pkt, in report_headers_t hdr, in report_meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG1(P(), Ingress(), Deparser(), Report(), ReportD()) main;

// p4dp bench --suite rtc-costs: the foreground of the run-to-completion architecture (rtc.p4,
// docs/rtc.md) over one exact table keyed by the IPv4 destination. A packet whose key is in the
// table runs `known`, which copies the entry's value into the packet; a packet that misses adds
// its key with TableOperation.entryAdd (value = the packet's IPv4 source) and marks the packet
// with the outcome. Every packet goes back out on port 0. The suite measures entryAdd against
// hits (every packet a new key, then hits on the keys added), and the hits with and without a
// background pipeline sweeping the table beside the foreground: with -D SWEEP the program has one,
// Sweeper, whose every iteration is a Foreach over the whole table without a Sleep (so it sweeps
// without pause while a background thread runs it), counting sweeps and entries visited in an
// rtc Counter.
#include <core.p4>
#include <rtc.p4>

#ifndef TABLE_SIZE
#define TABLE_SIZE 2097152
#endif

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}

header value_t {
    bit<32> value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    value_t    val;
}

struct meta_t { }

struct known_data_t {
    bit<32> value;
}

parser FlowsParser(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        pkt.extract(hdr.val);
        transition accept;
    }
}

control FlowsIngress(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action known(bit<32> value) {
        hdr.val.value = value;
    }
    table flows {
        key = { hdr.ipv4.dstAddr : exact; }
        actions = { known; NoAction; }
        default_action = NoAction();
        size = TABLE_SIZE;
    }
    @tbl("flows")
    TableOperation() op;
    apply {
        if (hdr.val.isValid()) {
            send_to_port(0);
            if (!flows.apply().hit) {
                bool ok = op.entryAdd(hdr.ipv4.dstAddr, 0, (known_data_t){ value = hdr.ipv4.srcAddr });
                hdr.val.value = ok ? 32w1 : 32w0;
            }
        } else {
            drop_packet();
        }
    }
}

control FlowsDeparser(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.val);
    }
}

#ifdef SWEEP
// cell 0: sweeps completed, cell 1: entries visited
Counter(2) sweep_stats;

control Sweeper(inout headers_t hdr, inout meta_t meta, in rtc_background_metadata_t bstd) {
    // the loop body gets each entry's key and data, as a sweep that ages or reports entries does
    action __for_known(bit<32> key, bit<32> value) {
        sweep_stats.count(1, 1);
    }
    @tbl("flows")
    @methods(known="__for_known")
    Foreach() sweep;
    apply {
        sweep.apply();
        sweep_stats.count(0, 1);
    }
}

control SweeperDeparser(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { }
}

RTC_BG1(FlowsParser(), FlowsIngress(), FlowsDeparser(), Sweeper(), SweeperDeparser()) main;
#else
RTC(FlowsParser(), FlowsIngress(), FlowsDeparser()) main;
#endif

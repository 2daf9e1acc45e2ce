// A hot-entry cache in front of a large table on the run-to-completion architecture (rtc.p4,
// docs/rtc.md), after section 4.3 of Zheng et al., "When P4 Meets Run-to-completion Architecture",
// with the heavy-key selection and the eviction the paper leaves to the programmer.
//
// routes: the large table (@offchip: sized for DRAM, not cache), IPv4 destination -> output port.
// cache:  a small table of the same key and actions in front of it, written only by the background
//         pipeline.
// Foreground (every worker): look the destination up in the cache; a hit counts into `hits` at the
//   cache entry's row. On a miss, look it up in routes and count the destination as a candidate: a
//   hash of the address picks one of CANDIDATES slots, each holding one address and a count kept by
//   majority vote (the slot's own address adds one; another address takes the slot when the count
//   is 0 and otherwise takes one off), so that an address carrying most of its slot's misses ends up
//   holding it with a high count. As in the paper's SpaceSaving no lock guards a slot: each Counter
//   operation is atomic, and cores racing on one slot can lose a vote.
// Promoter (background, every PERIOD_MS):
//   1. sweeps the cache (Foreach): an entry hit fewer than `cold` times since the last sweep is
//      evicted (entryDel); the hit counts start again from 0;
//   2. scans the candidate slots (range Foreach): an address with `hot` votes or more is
//      promoted: its routes entry is read (entryGet) and added to the cache (entryAdd; false when
//      the cache is full: it waits for a later eviction). Every slot's count is then halved, so that
//      old misses weigh less than new ones;
//   3. reports the iteration to the collector on port 9: addresses promoted, evicted, refused (cache
//      full), the cache hits it swept, the last address promoted and the last evicted.
// Counter `config`, set through the control API (p4dp_runtime_rtc_counter_set), tunes it at run
// time: cell 0 (BYPASS) nonzero makes the foreground look up routes alone, without the cache and the
// candidates; cells 1 (HOT) and 2 (COLD) are the thresholds `hot` and `cold`, HOT_MISSES and
// COLD_HITS while 0. They count per period, so a controller sets them to follow the traffic rate.
#include <core.p4>
#include <rtc.p4>

#ifndef ROUTES_SIZE
#define ROUTES_SIZE 1048576
#endif
#ifndef CACHE_SIZE
#define CACHE_SIZE 1024
#endif
#ifndef HOT_MISSES
#define HOT_MISSES 4
#endif
#ifndef COLD_HITS
#define COLD_HITS 2
#endif
#ifndef PERIOD_MS
#define PERIOD_MS 10
#endif

// candidate slots: 2^CANDIDATE_BITS, picked by the top bits of the address times a 32-bit
// Fibonacci hashing constant
const bit<32> CANDIDATES = 4096;
const bit<32> CANDIDATE_SHIFT = 20;
const bit<32> HASH_MUL = 0x9e3779b1;
// a candidate slot's address is stored with this bit, so that 0 means empty
const bit<64> USED = 0x100000000;

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset;
    bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { }

// the action data of fwd
struct fwd_t { bit<32> port; }

// hits of each cache row since the Promoter's last sweep
Counter(CACHE_SIZE) hits;
// candidate slots: address (with USED) and votes
Counter(CANDIDATES) cand_addr;
Counter(CANDIDATES) cand_votes;
// cell BYPASS nonzero: look up routes alone; cells HOT and COLD: the thresholds (0: the defaults)
Counter(3) config;
const bit<32> BYPASS = 0;
const bit<32> HOT = 1;
const bit<32> COLD = 2;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control Forward(inout headers_t hdr, inout meta_t meta, in rtc_input_metadata_t istd) {
    action fwd(bit<32> port) { send_to_port(port); }
    table cache {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { fwd; NoAction; }
        default_action = NoAction();
        size = CACHE_SIZE;
    }
    @offchip
    table routes {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { fwd; NoAction; }
        default_action = NoAction();
        size = ROUTES_SIZE;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            if (config.get(BYPASS) != 0) {
                routes.apply();
            } else if (cache.apply().hit) {
                hits.count(lastRowIndex(), 1);
            } else if (routes.apply().hit) {
                bit<32> slot = (hdr.ipv4.dstAddr * HASH_MUL) >> CANDIDATE_SHIFT;
                bit<64> addr = USED | (bit<64>)hdr.ipv4.dstAddr;
                if (cand_addr.get(slot) == addr) {
                    cand_votes.count(slot, 1);
                } else {
                    bit<64> votes = cand_votes.get(slot);
                    if (votes == 0) {
                        cand_addr.set(slot, addr);
                        cand_votes.set(slot, 1);
                    } else {
                        cand_votes.set(slot, votes - 1);
                    }
                }
            }
        }
    }
}

control Deparser(packet_out pkt, in headers_t hdr, in meta_t meta) {
    apply { pkt.emit(hdr); }
}

header report_t {
    bit<32> promoted; bit<32> evicted; bit<32> refused; bit<32> hits;
    bit<32> last_promoted; bit<32> last_evicted;
}
struct report_headers_t { ethernet_t ethernet; report_t report; }
struct promoter_meta_t {
    bit<32> promoted; bit<32> evicted; bit<32> refused; bit<32> hits;
    bit<32> last_promoted; bit<32> last_evicted;
    bit<64> hot; bit<64> cold;
}

control Promoter(inout report_headers_t hdr, inout promoter_meta_t meta, in rtc_background_metadata_t bstd) {
    @tbl("cache")
    TableOperation() cache_op;
    @tbl("routes")
    TableOperation() routes_op;

    // a cache entry: evicted if cold; its hit count starts again
    action __for_fwd(bit<32> addr, bit<32> port) {
        bit<32> row = lastRowIndex();
        bit<64> n = hits.get(row);
        meta.hits = meta.hits + (bit<32>)n;
        if (n < meta.cold) {
            if (cache_op.entryDel(addr)) {
                meta.evicted = meta.evicted + 1;
                meta.last_evicted = addr;
            }
        }
        hits.set(row, 0);
    }
    // candidate slot i: promoted if hot; its votes halved (or cleared once promoted)
    action consider(bit<32> i) {
        bit<64> votes = cand_votes.get(i);
        if (votes >= meta.hot) {
            bit<32> addr = (bit<32>)cand_addr.get(i);
            bit<8> act;
            fwd_t data;
            if (routes_op.entryGet(addr, act, data)) {
                if (cache_op.entryAdd(addr, act, data)) {
                    hits.set(lastRowIndex(), 0);
                    meta.promoted = meta.promoted + 1;
                    meta.last_promoted = addr;
                    votes = 0;
                } else {
                    meta.refused = meta.refused + 1;
                }
            }
        }
        cand_votes.set(i, votes >> 1);
    }
    @tbl("cache")
    @methods(fwd="__for_fwd")
    Foreach() sweep;
    @methods(index="consider")
    Foreach() scan;
    Sleep() sleep;

    apply {
        sleep.ms(PERIOD_MS);
        meta.hot = config.get(HOT);
        if (meta.hot == 0) {
            meta.hot = HOT_MISSES;
        }
        meta.cold = config.get(COLD);
        if (meta.cold == 0) {
            meta.cold = COLD_HITS;
        }
        sweep.apply();
        scan.apply(0, CANDIDATES);
        hdr.ethernet.setValid();
        hdr.ethernet.etherType = 0x88b5;
        hdr.report.setValid();
        hdr.report.promoted = meta.promoted;
        hdr.report.evicted = meta.evicted;
        hdr.report.refused = meta.refused;
        hdr.report.hits = meta.hits;
        hdr.report.last_promoted = meta.last_promoted;
        hdr.report.last_evicted = meta.last_evicted;
        send_to_port(9);
    }
}

control ReportDeparser(packet_out pkt, in report_headers_t hdr, in promoter_meta_t meta) {
    apply { pkt.emit(hdr); }
}

RTC_BG1(P(), Forward(), Deparser(), Promoter(), ReportDeparser()) main;

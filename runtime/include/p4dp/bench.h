/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench.h
 * p4dp's built-in benchmark: an in-process traffic source feeding the runtime's real worker loop,
 * and the two reference loops the program is compared with.
 *
 * Traffic source. A bench creates one `net_ring` ethdev per bench port (P4 ports 0..n_ports-1) from
 * rte_rings with this mapping: rx queue 0 of port p is ring R_p; tx queue q of *every* port is ring
 * R_q. Worker w polls port w (the runtime gives port slot k to worker k % n_workers) and transmits on
 * tx queue w, so whatever bench port the program sends a packet to, it comes back to the worker that
 * sent it: packets loop rx -> worker -> tx -> rx forever and every ring has one producer and one
 * consumer (rings are SP/SC). Each worker's ring is pre-filled with its share of n_pkts pre-built
 * mbufs (packet j goes to worker j % n_workers, in order of j).
 *
 * Packets. Every packet is a copy of the template; if key_bytes > 0, packet j carries at key_offset
 * the big-endian key_bytes-byte value key_base + perm[j mod n_keys], where perm is a random
 * permutation of 0..n_keys-1 (Fisher-Yates driven by splitmix64(seed)). With n_pkts == n_keys every
 * key appears in exactly one packet, and one lap of a worker's ring touches each of its keys once in
 * random order. Before every measurement all packets are rewritten from the template and re-queued
 * in the same order (same packets for every loop).
 *
 * Loops measured (same ports, mbufs, burst size 32, warm-up and duration):
 *  - P4DP_BENCH_FLOOR: rte_eth_rx_burst -> rte_eth_tx_burst, nothing else (the raw DPDK floor);
 *  - P4DP_BENCH_L2FWD: the "l2fwd floor": the floor plus, per burst, a prefetch of every packet's
 *    data and, per packet, a read and write of its first cache line (the Ethernet destination and
 *    source addresses are swapped). Ring ports never touch packet data (a NIC driver's DMA and
 *    descriptor handling do), so this is the floor a program that reads packet bytes is compared
 *    with; a packet's length and port never change;
 *  - P4DP_BENCH_TABLE: the floor plus, per burst, extracting each packet's key into the table's
 *    native key layout, one p4dp_table_lookup_bulk() on the program's table object, and reading
 *    each result's action (counted as hits);
 *  - P4DP_BENCH_TABLE_SINGLE (diagnostic): as TABLE with one p4dp_table_lookup() per packet instead
 *    of the bulk lookup, i.e. what process-to-completion code can do at best;
 *  - P4DP_BENCH_PROGRAM: p4dp_runtime_run() itself, i.e. the worker loop of worker.c running the
 *    compiled program.
 *  - P4DP_BENCH_BURST_FN: the floor plus, per burst, a prefetch of each packet's data and a
 *    caller's function on the burst (p4dp_bench_measure_fn), e.g. a DPDK library's bulk lookup of
 *    the packets' keys as a baseline (bench_lpm.h).
 * Each worker's figures come from a TSC window (rte_rdtsc) opened after the warm-up and the number
 * of packets it processed inside the window.
 *
 * Context: control thread on the EAL main lcore (the loops are launched on EAL worker lcores).
 * Thread safety: a bench owns its runtime's ports while it exists; no other p4dp_runtime_run(),
 * p4dp_runtime_port_add() or bench may use the runtime meanwhile. Table writes during a measurement
 * are allowed for FLOOR, L2FWD and PROGRAM but not for TABLE (its lookups do not report RCU quiescence).
 */
#ifndef P4DP_BENCH_H
#define P4DP_BENCH_H

#include <stdint.h>

#include "p4dp/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most workers a bench drives. */
#define P4DP_BENCH_MAX_WORKERS 16u
/** Longest packet template (bytes). */
#define P4DP_BENCH_TMPL_MAX 1500u
/** Longest key field in packets (bytes). */
#define P4DP_BENCH_KEY_MAX 8u

struct p4dp_bench;

struct p4dp_bench_params {
	uint32_t n_workers;     /**< 1..P4DP_BENCH_MAX_WORKERS; <= the runtime's max_workers and EAL worker lcores */
	uint32_t n_ports;       /**< bench ports (P4 ports 0..n_ports-1); 0 = n_workers; >= n_workers */
	uint32_t n_pkts;        /**< pre-built packets in circulation (all workers), >= 32 * n_workers */
	const uint8_t *tmpl;    /**< packet template */
	uint32_t tmpl_len;      /**< 14..P4DP_BENCH_TMPL_MAX */
	uint32_t key_offset;    /**< byte offset of the key field in the packet */
	uint32_t key_bytes;     /**< 0 (all packets equal the template) or 1..P4DP_BENCH_KEY_MAX */
	uint64_t key_base;      /**< first key value */
	uint64_t n_keys;        /**< keys key_base .. key_base + n_keys - 1 (>= 1 if key_bytes > 0) */
	uint64_t seed;          /**< permutation seed */
	uint64_t warmup_ms;     /**< before the measurement window; PROGRAM: counted from when every worker runs (0: the window starts with the run) */
	uint64_t duration_ms;   /**< the measurement window (>= 1) */
	uint32_t dispatch;      /**< PROGRAM runs: enum p4dp_rt_dispatch (rt.h); 0 = auto (software dispatch on
				     the bench's ring ports, which have no RSS) */
};

enum p4dp_bench_kind {
	P4DP_BENCH_FLOOR = 0,   /**< rx burst -> tx burst */
	P4DP_BENCH_TABLE = 1,   /**< floor + key extraction + one bulk lookup per burst */
	P4DP_BENCH_PROGRAM = 2, /**< the runtime's worker loop running the program */
	P4DP_BENCH_TABLE_SINGLE = 3, /**< diagnostic: as TABLE, but one p4dp_table_lookup() per packet */
	P4DP_BENCH_L2FWD = 4,   /**< floor + read and write each packet's first cache line (swap MACs) */
	P4DP_BENCH_BURST_FN = 5, /**< floor + a caller's function per burst (p4dp_bench_measure_fn only) */
};

struct rte_mbuf;

/** A per-burst function of p4dp_bench_measure_fn: look at (never free or keep) the @p n packets
 *  @p m, whose key field starts at byte @p key_offset; add anything derived from the results to
 *  *@p sink (keeps the work alive); return how many of them hit (the rest count as misses).
 *  Runs on a bench worker lcore; @p arg is shared by all workers (read-only use). */
typedef uint32_t (*p4dp_bench_burst_fn)(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset,
					 uint64_t *sink);

struct p4dp_bench_worker {
	uint64_t packets;        /**< packets processed in the window */
	double mpps;
	double cycles_per_pkt;   /**< window TSC cycles / packets */
};

struct p4dp_bench_result {
	uint32_t kind;           /**< enum p4dp_bench_kind */
	uint32_t n_workers;
	uint64_t tsc_hz;         /**< rte_get_tsc_hz() */
	uint64_t window_cycles;  /**< TSC cycles of the measurement window */
	uint64_t packets;        /**< all workers, in the window */
	double mpps;             /**< all workers */
	double cycles_per_pkt;   /**< n_workers * window_cycles / packets (core cycles per packet) */
	uint64_t hits, misses;   /**< TABLE: lookups in the window that hit / missed */
	uint64_t lost;           /**< packets missing from the rings afterwards (dropped by the program) */
	uint64_t lost_in_window; /**< PROGRAM: losses the runtime counted inside the window */
	uint64_t lost_before_window; /**< PROGRAM: losses the runtime counted in the warm-up */
	uint64_t lost_after_window; /**< PROGRAM: losses the runtime counted after the window (run shutdown) */
	uint64_t packets_before_window; /**< all workers: packets processed from the call to the window's start */
	struct p4dp_bench_worker w[P4DP_BENCH_MAX_WORKERS];
};

/**
 * Create the bench ports, the packet pool (its own mempool, n_pkts mbufs) and the packets.
 * @p rt must have no ports and must not be running; its program is not run here.
 * @return 0; -EINVAL (bad params, message in p4dp_runtime_error_get()); -EBUSY (runtime has
 *         ports or is running); -ENOMEM; -ENODEV (net_ring driver unavailable or port creation
 *         failed); -EPERM (not on the EAL main lcore).
 * Context: control thread on the EAL main lcore. Thread safety: see file comment.
 */
int p4dp_bench_create(struct p4dp_runtime *rt, const struct p4dp_bench_params *params, struct p4dp_bench **out);

/**
 * Run one measurement of @p kind (@p table is ignored for FLOOR, L2FWD and PROGRAM; for P4DP_BENCH_TABLE and _TABLE_SINGLE, on table index @p table of the runtime's
 * program, which must have exactly one key field, exact or lpm, bitwidth <= 64, with
 * ceil(bitwidth/8) == key_bytes; P4DP_BENCH_BURST_FN: p4dp_bench_measure_fn). Blocks for about warmup_ms + duration_ms.
 * @return 0; -EINVAL (bad kind/table, message says why); -EAGAIN (no packet was processed in
 *         the window, by all workers or by one, and none is missing: the loops were not
 *         scheduled; the bench may measure again); -EIO (the same with packets missing, or
 *         packets were lost: res->lost > 0 — the program dropped packets or sent them
 *         to a port that is not a bench port; the bench is then unusable). Exception (PROGRAM):
 *         if the runtime counted no loss inside the window and its losses counted in the
 *         warm-up or after the window closed (e.g. packets left in a software-dispatch ring when
 *         the workers stop) account for all res->lost missing packets, the figures stand and 0
 *         is returned with res->lost > 0 (see lost_before_window, lost_after_window); the bench
 *         is unusable afterwards all the same; -EBUSY/-errno from
 *         p4dp_runtime_run() or ethdev setup.
 * Context: control thread on the EAL main lcore.
 */
int p4dp_bench_measure(struct p4dp_bench *b, enum p4dp_bench_kind kind, uint32_t table,
		       struct p4dp_bench_result *res);

/**
 * Run one P4DP_BENCH_BURST_FN measurement: the floor loop with @p fn(@p arg, ...) on every burst
 * after its packet data was prefetched. Same context, blocking and return values as
 * p4dp_bench_measure; res->hits and res->misses are what @p fn reported. -EINVAL if @p fn is NULL.
 */
int p4dp_bench_measure_fn(struct p4dp_bench *b, p4dp_bench_burst_fn fn, void *arg, struct p4dp_bench_result *res);

/**
 * Give the packets these keys instead of key_base + i: packet j carries @p keys[perm[j mod @p n]]
 * (perm: the bench's seeded permutation of 0..n-1), from the next measurement on. Every key must
 * fit the bench's key_bytes. Context: control thread, no measurement running.
 * @return 0; -EINVAL (no key field, n == 0 or > 2^26, a key too wide: message says which); -ENOMEM.
 */
int p4dp_bench_keys_set(struct p4dp_bench *b, const uint64_t *keys, uint64_t n);

/**
 * End PROGRAM measurement windows early once @p done(@p arg) returns nonzero (polled every 10 ms
 * by the timer thread, during the warm-up too; the window then closes at that moment). For a
 * traffic schedule that finishes long before a window sized for the slowest case
 * (p4dp_bdp_done). @p done NULL: windows last their full duration again. Context: control
 * thread, not during p4dp_bench_measure.
 */
void p4dp_bench_set_done(struct p4dp_bench *b, int (*done)(void *arg), void *arg);

/**
 * Run @p n background threads (rtc.p4, p4dp_run_params.n_background) beside the workers in
 * every later PROGRAM measurement (0, the default: none). They run the program's background
 * pipelines for the whole run, warm-up included, on the EAL lcores after the workers' and the
 * worker contexts after theirs, so the runtime's max_workers and the EAL's lcores must cover
 * n_workers + @p n. Context: control thread, not during p4dp_bench_measure.
 * @return 0; -EINVAL (NULL bench, or @p n more than the program's background pipelines).
 */
int p4dp_bench_set_background(struct p4dp_bench *b, uint32_t n);

/** Remove the bench ports from the runtime and the process, free the rings, packets and pool.
 *  NULL is a no-op. Context: control thread on the EAL main lcore. */
void p4dp_bench_free(struct p4dp_bench *b);

/**
 * Install @p n entries in table @p table (one exact or lpm key field of bitwidth <= 64): entry i
 * has key @p keys[i] and, for an lpm field, prefix length @p lens[i] (@p lens NULL: the full
 * width), each with action @p action and the parameters @p params. Key bits beyond the prefix
 * must be zero. @return n or the first failing add's -errno (entries added before stay
 * installed); -EINVAL (table shape, a key or length that does not fit).
 * Context: control thread. Thread safety: as p4dp_runtime_table_entry_add().
 */
int64_t p4dp_bench_table_fill_list(struct p4dp_runtime *rt, uint32_t table, const uint64_t *keys,
				   const uint8_t *lens, uint64_t n, uint32_t action, uint32_t n_params,
				   const struct p4dp_rt_param *params);

/**
 * Install @p n entries key_base .. key_base + n - 1 in table @p table (one exact key field of
 * bitwidth <= 64) through p4dp_runtime_table_entry_add(), each with action @p action and the
 * parameters @p params (big-endian byte strings as in p4dp_rt_param).
 * @return number of entries installed (n) or the first failing add's -errno (entries added before
 *         the failure stay installed); -EINVAL (table shape, key_base + n - 1 beyond the key width).
 * Context: control thread. Thread safety: as p4dp_runtime_table_entry_add().
 */
int64_t p4dp_bench_table_fill(struct p4dp_runtime *rt, uint32_t table, uint64_t key_base, uint64_t n,
			      uint32_t action, uint32_t n_params, const struct p4dp_rt_param *params);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_dp.h
 * Benchmarks of data-plane table writes (the experiments of Simon et al., "High-Performance
 * Match-Action Table Updates from within Programmable Software Data Planes" and "Never Miss
 * Twice"): a traffic source and per-packet latency probe ("tap") on the ports of a bench (bench.h), plus a small log-linear
 * latency histogram.
 *
 * The tap adds DPDK ethdev callbacks to the bench ports (rte_eth_add_rx_callback on rx queue 0 of
 * every bench port, rte_eth_add_tx_callback on every tx queue), so the runtime's worker loop
 * (worker.c) and bench.c's loops run unchanged:
 *  - rx callback = the traffic source. It runs on the worker that polls the port, right after the
 *    ring PMD dequeued a burst, i.e. at the moment the packets are handed to the worker. It keeps
 *    at most `batch` packets (the others go back to the tail of the port's ring: the ring's
 *    producer is the same worker, so this is safe), writes each packet's key (big-endian, at
 *    key_offset) according to the current phase, and stamps each packet with the TSC read once
 *    per burst after that work (an mbuf dynamic field: TSC, phase and class).
 *  - tx callback = the probe. It runs when the worker calls rte_eth_tx_burst; it reads the TSC
 *    once per burst and records tx TSC - rx stamp of every packet into the histogram of the
 *    packet's (phase, class) of that tx queue (a tx queue is used by one worker only).
 * Latency is therefore the time a packet spends in the worker between rx burst and tx burst,
 * including the other packets of its burst. Both callbacks also run during bench FLOOR
 * measurements, which then give the floor plus the tap's own cost.
 *
 * Phases (the insert-only and mixed phases of Simon et al., "Never Miss Twice - Add-on-Miss
 * Table Updates in Software Data Planes"): the source hands out keys following a schedule of phases, each a number of
 * packets and a key mode: RANDOM (key_base + a uniform random index below n_keys + the fresh keys
 * handed out so far), NEW (every packet gets a fresh key: key_base + n_keys + counter), MIX (as
 * RANDOM, but every insert_every-th packet of the phase gets a fresh key). A packet with a fresh
 * key has class 1, others class 0. After the last phase with a packet limit, the source goes idle
 * (hands no packet to the worker). NEW/MIX need a single bench port (one worker).
 *
 * Context: control thread on the EAL main lcore, with no measurement running, for every function
 * below except the histogram ones (any thread, not thread-safe per histogram).
 */
#ifndef P4DP_BENCH_DP_H
#define P4DP_BENCH_DP_H

#include <stdint.h>

#include "p4dp/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ histogram */

/** Sub-buckets per power of two: values are kept with a relative error below 2^-P4DP_HIST_SUB_BITS. */
#define P4DP_HIST_SUB_BITS 7u
/** Values from 2^P4DP_HIST_MAX_BITS on share the top bucket (the exact maximum is kept). */
#define P4DP_HIST_MAX_BITS 36u
/** Number of buckets. */
#define P4DP_HIST_BUCKETS (((P4DP_HIST_MAX_BITS - P4DP_HIST_SUB_BITS) + 1u) << P4DP_HIST_SUB_BITS)

/** A log-linear ("HDR-style") histogram of uint64 values: exact below 2^SUB_BITS, then
 *  2^SUB_BITS buckets per power of two. */
struct p4dp_hist {
	uint64_t count, sum, min, max;
	uint64_t b[P4DP_HIST_BUCKETS];
};

/** Summary of a histogram; values are the highest value of the bucket the percentile falls in
 *  (capped at max), so they overstate by less than 2^-SUB_BITS. All 0 when count == 0. */
struct p4dp_hist_summary {
	uint64_t count, min, max;
	double mean;
	uint64_t p50, p90, p99, p999, p9999;
};

/** Empty @p h. */
void p4dp_hist_reset(struct p4dp_hist *h);
/** Add one value. */
void p4dp_hist_record(struct p4dp_hist *h, uint64_t v);
/** Add every value of @p src to @p dst. */
void p4dp_hist_merge(struct p4dp_hist *dst, const struct p4dp_hist *src);
/** Smallest recorded bucket value v such that at least fraction @p q (0..1) of the values are
 *  <= v (reported as the bucket's highest value, capped at max); 0 if empty. */
uint64_t p4dp_hist_quantile(const struct p4dp_hist *h, double q);
/** Fill @p s from @p h. */
void p4dp_hist_summarize(const struct p4dp_hist *h, struct p4dp_hist_summary *s);

/* ------------------------------------------------------------------ tap */

/** Most phases of a schedule. */
#define P4DP_BDP_MAX_PHASES 8u

enum p4dp_bdp_keys {
	P4DP_BDP_KEYS_RANDOM = 0, /**< key_base + uniform[0, n_keys + fresh keys so far) */
	P4DP_BDP_KEYS_NEW = 1,    /**< every packet a fresh key */
	P4DP_BDP_KEYS_MIX = 2,    /**< RANDOM, every insert_every-th packet a fresh key */
};

struct p4dp_bdp_phase {
	uint64_t packets;      /**< packets of this phase per bench port; 0 = unlimited (last phase only) */
	uint32_t keys;         /**< enum p4dp_bdp_keys */
	uint32_t insert_every; /**< MIX: >= 1 */
};

struct p4dp_bdp_params {
	uint32_t key_offset;      /**< key field offset in the packet (bytes) */
	uint32_t key_bytes;       /**< 1..8 */
	uint64_t key_base;        /**< first key */
	uint64_t n_keys;          /**< keys installed before the run (key_base .. key_base + n_keys - 1) */
	uint64_t seed;            /**< random keys: xorshift seed (per port: seed + port) */
	uint32_t batch;           /**< packets handed to the worker per rx burst: 1..32 (0 = 32) */
	uint32_t n_phases;        /**< 1..P4DP_BDP_MAX_PHASES */
	uint64_t record_after_ms; /**< latencies of packets stamped earlier than this after arm are not recorded */
	uint32_t partition;       /**< 1: emulated RSS. Random keys belong to one worker each (a hash of the key
				       mod n_workers); port p's source hands out only keys of worker p, the
				       worker polling it under P4DP_RT_DISPATCH_NONE, so no packet changes
				       workers. Fresh keys (inserts) are not partitioned. */
	struct p4dp_bdp_phase phase[P4DP_BDP_MAX_PHASES];
};

struct p4dp_bdp_phase_result {
	uint64_t packets;      /**< packets handed out in the phase */
	uint64_t fresh;        /**< of them with a fresh key */
	uint64_t tsc_first;    /**< TSC when its first packet was handed out (port 0) */
	uint64_t tsc_end;      /**< TSC when the next phase began / the source went idle (0 = never) */
	struct p4dp_hist_summary lat[2]; /**< latency (TSC cycles) of class 0 / class 1 packets */
};

struct p4dp_bdp_result {
	uint32_t n_phases;
	uint32_t done;         /**< 1 if every limited phase completed */
	uint64_t handed;       /**< packets handed to workers since arm (all ports) */
	uint64_t recorded;     /**< latencies recorded */
	struct p4dp_hist_summary lat_all; /**< every recorded latency */
	struct p4dp_bdp_phase_result ph[P4DP_BDP_MAX_PHASES];
};

struct p4dp_bdp;

/**
 * Attach a tap to the ports of the one live bench (found by its port names; no other bench may
 * exist meanwhile) created with @p n_workers workers and @p n_ports ports (0 = n_workers), and
 * arm it with @p p. The tap must be detached before the bench is freed.
 * @return 0; -EINVAL (bad params, message in p4dp_runtime_error_get()); -ENODEV (bench ports not
 *         found); -ENOMEM; -ENOTSUP (ethdev callbacks unavailable).
 */
int p4dp_bdp_attach(uint32_t n_workers, uint32_t n_ports, const struct p4dp_bdp_params *p, struct p4dp_bdp **out);

/** Reset all counters and histograms and (re)start the schedule of @p p (NULL: the same params)
 *  now; call right before p4dp_bench_measure(). @return 0; -EINVAL. */
int p4dp_bdp_arm(struct p4dp_bdp *t, const struct p4dp_bdp_params *p);

/** Results since the last arm (after the measurement returned). @return 0; -EINVAL. */
int p4dp_bdp_result(struct p4dp_bdp *t, struct p4dp_bdp_result *r);

/** Remove the callbacks and free the tap. NULL is a no-op. */
void p4dp_bdp_detach(struct p4dp_bdp *t);

/** 1 once every source has handed out its whole schedule (the last phase has a packet count
 *  and is exhausted), else 0. @p t: a struct p4dp_bdp (void * for p4dp_bench_set_done).
 *  Context: any thread (relaxed loads of the sources' state). */
int p4dp_bdp_done(void *t);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_DP_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_trace.h
 * A trace-driven traffic source and per-packet latency probe ("trace tap") on the ports of a bench
 * (bench.h), for the sweeps of `p4dp bench` (table kinds, program shapes, uniform / Zipf / pcap
 * traffic).
 *
 * The caller hands over a trace: n_recs records of rec_size bytes (copied at attach). Each bench
 * port's source walks the trace cyclically from its own start (port i starts at record
 * i * n_recs / n_ports). Like the tap of bench_dp.h it runs as ethdev callbacks, so the runtime's
 * worker loop and bench.c's loops run unchanged:
 *  - rx callback (the source; on the worker polling the port, right after the ring PMD dequeued a
 *    burst): every packet of the burst gets the next record written at byte @c offset. Without
 *    @c lens every record writes rec_size bytes into a packet that keeps its length (header
 *    fields over the template: "overlay" traces); with @c lens record k writes lens[k] bytes and the
 *    packet becomes offset + lens[k] bytes long (whole packets: pcap replay). Then the TSC is read
 *    once for the burst and stored in each packet (an mbuf dynamic field).
 *  - tx callback (the probe; when the worker calls rte_eth_tx_burst): reads the TSC once per burst
 *    and records tx TSC - rx stamp of each stamped packet into the histogram of that tx queue
 *    (a tx queue is used by one worker only).
 * Latency is the time a packet spends in the worker between rx burst and tx burst, including the
 * other packets of its burst. The callbacks run in every loop bench.c measures (FLOOR, L2FWD,
 * PROGRAM), so the floors measured with a tap attached include the source's own cost, as the
 * program does.
 *
 * Context: control thread on the EAL main lcore, with no measurement running.
 */
#ifndef P4DP_BENCH_TRACE_H
#define P4DP_BENCH_TRACE_H

#include <stdint.h>

#include "p4dp/bench.h"
#include "p4dp/bench_dp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most records of a trace. */
#define P4DP_BTR_MAX_RECS (1u << 26)

struct p4dp_btr_params {
	const uint8_t *recs;      /**< n_recs * rec_size bytes, record k at recs + k * rec_size (copied) */
	const uint16_t *lens;     /**< NULL (overlay: every record writes rec_size bytes) or n_recs lengths
				       (1..rec_size): record k writes lens[k] bytes, the packet's length becomes
				       offset + lens[k] (copied) */
	uint32_t rec_size;        /**< 1..P4DP_BENCH_TMPL_MAX */
	uint32_t n_recs;          /**< 1..P4DP_BTR_MAX_RECS */
	uint32_t offset;          /**< byte offset in the packet where a record goes */
	uint64_t record_after_ms; /**< latencies of packets stamped earlier than this after arm are not recorded */
};

struct p4dp_btr_result {
	uint64_t handed;   /**< packets given a record since arm (all ports) */
	uint64_t recorded; /**< latencies recorded */
	uint64_t skipped;  /**< packets whose record did not fit their buffer (left as they were, unstamped) */
};

struct p4dp_btr;

/**
 * Attach a trace tap to the ports of the one live bench (bench created with @p n_workers workers
 * and @p n_ports ports, 0 = n_workers) and arm it. Overlay records must fit the bench's packets
 * (offset + rec_size <= template length), else the packets are skipped (see result). Detach
 * before the bench is freed; at most one tap (this or bench_dp.h's) per bench.
 * @return 0; -EINVAL (bad params, message in p4dp_runtime_error_get()); -ENODEV (bench ports not
 *         found); -ENOMEM; -ENOTSUP (ethdev callbacks unavailable).
 */
int p4dp_btr_attach(uint32_t n_workers, uint32_t n_ports, const struct p4dp_btr_params *p, struct p4dp_btr **out);

/** Reset the counters, histograms and trace positions; call right before p4dp_bench_measure().
 *  @return 0; -EINVAL (NULL). */
int p4dp_btr_arm(struct p4dp_btr *t);

/** Counters since the last arm and, if @p lat is not NULL, every recorded latency (TSC cycles)
 *  merged into @p lat (reset first). Call after the measurement returned. @return 0; -EINVAL. */
int p4dp_btr_result(const struct p4dp_btr *t, struct p4dp_btr_result *r, struct p4dp_hist *lat);

/** A worker's cost per burst, one value per tx burst since the last arm (TSC cycles): the
 *  longest rx -> tx latency among the burst's packets that the sending lcore also received, times
 *  32 (the worker's rx burst) over the packets in the tx burst; tx bursts without such a packet
 *  record nothing. With one worker (or each worker processing what it polls) a tx burst is one
 *  rx burst, so this is its latency. Under software dispatch a packet handed to another worker
 *  waits in that worker's ring for a time that depends on where the two loops are (the latencies
 *  of p4dp_btr_result), while a worker's own packets wait for its loop iteration (dispatching its
 *  rx burst, processing its share, then what the other workers handed it), which sends the
 *  iteration's packets in one tx burst: the value is then the iteration's time per 32 packets
 *  sent, whether the other workers kept up or not. Merged over the workers into @p cost (reset
 *  first). Call after the measurement returned. @return 0; -EINVAL (NULL). */
int p4dp_btr_iteration_cost(const struct p4dp_btr *t, struct p4dp_hist *cost);
/** Remove the callbacks and free the tap. NULL is a no-op. */
void p4dp_btr_detach(struct p4dp_btr *t);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_TRACE_H */

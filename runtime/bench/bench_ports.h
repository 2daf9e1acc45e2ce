/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to libp4dp_bench.so: what the taps (bench_dp.c, bench_trace.c) share. */
#ifndef P4DP_BENCH_PORTS_H
#define P4DP_BENCH_PORTS_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "p4dp/bench.h"
#include "p4dp/rt.h"

/**
 * Find the ethdev ids of the ports "p4dpb<seq>_<i>" (i < @p np) of the single live bench (bench.c
 * names its net_ring ports so) and that bench's sequence number, whose rings are "p4dpb<seq>_<i>".
 * @return 0; -EINVAL (more than one bench exists); -ENODEV (a port is missing; the message lists
 *         the ports seen). Context: control thread. Thread safety: none needed beyond ethdev's own.
 */
int p4dp_bench_ports_find(uint32_t np, uint16_t *ports, uint32_t *seq_out);

/**
 * The first checks of a tap's attach: 1 <= @p n_workers <= P4DP_BENCH_MAX_WORKERS and
 * @p n_workers <= ports <= P4DP_RT_MAX_PORTS, where ports is @p n_ports or, when 0, @p n_workers
 * (stored in @p np_out). @p who prefixes the error message.
 * @return 0; -EINVAL. Context: control thread.
 */
int p4dp_bench_tap_counts(const char *who, uint32_t n_workers, uint32_t n_ports, uint32_t *np_out);

/**
 * Register the tap's mbuf stamp field (@p name, @p size bytes, 8-aligned) unless @p *off already
 * holds its offset, then find the bench's @p np ports and sequence number
 * (p4dp_bench_ports_find()). @p who prefixes the error message.
 * @return 0; -ENOMEM (the field cannot be registered); the errors of p4dp_bench_ports_find().
 *         Context: control thread (the EAL's dynfield lock covers the registration).
 */
int p4dp_bench_tap_find(const char *who, const char *name, size_t size, int *off, uint32_t np, uint16_t *ports,
			uint32_t *seq_out);

/** A zeroed tap object of @p size bytes aligned to @p align (its per-worker probes are
 *  cache-line aligned; calloc only guarantees 16). NULL when out of memory; free() frees it. */
void *p4dp_bench_tap_zalloc(size_t align, size_t size);

/** The ethdev callbacks of a tap: an rx callback on rx queue 0 of each bench port and a tx
 *  callback on each tx queue (one per worker) of each port. Fill np, nw and port[] first. */
struct p4dp_bench_cbs {
	uint32_t np, nw;
	uint16_t port[P4DP_RT_MAX_PORTS];
	const struct rte_eth_rxtx_callback *rx[P4DP_RT_MAX_PORTS];
	const struct rte_eth_rxtx_callback *tx[P4DP_RT_MAX_PORTS][P4DP_BENCH_MAX_WORKERS];
};

/**
 * Add @p rx to every port (port i's argument: @p rx_args + i * @p rx_stride bytes) and @p tx to
 * every tx queue q of every port (argument: @p tx_args + q * @p tx_stride bytes). On failure the
 * callbacks added so far are removed. @p who prefixes the error message.
 * @return 0; -ENOTSUP (the ethdevs have no callbacks); -EINVAL. Context: control thread, with no
 *         measurement running.
 */
int p4dp_bench_cbs_add(struct p4dp_bench_cbs *c, rte_rx_callback_fn rx, void *rx_args, size_t rx_stride,
		       rte_tx_callback_fn tx, void *tx_args, size_t tx_stride, const char *who);

/** Remove and free every callback p4dp_bench_cbs_add() added (those still set). Context: control
 *  thread, with no measurement running (no worker is inside a callback then). */
void p4dp_bench_cbs_remove(struct p4dp_bench_cbs *c);

#endif /* P4DP_BENCH_PORTS_H */

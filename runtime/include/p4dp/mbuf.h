/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p4dp/mbuf.h: the program's view of a DPDK mbuf. Needs DPDK's headers (rte_mbuf.h), so only the
 * runtime and generated code compiled with P4DP_DPDK (the process_mbufs entry, abi.h) include it.
 * Both use p4dp_mbuf_view and p4dp_mbuf_done, so the worker's process/process_burst path and
 * process_mbufs see and write back an mbuf the same way; p4dp_mbufs_run is process_mbufs' loop.
 */
#ifndef P4DP_MBUF_H
#define P4DP_MBUF_H

#include <rte_mbuf.h>

#include "p4dp/abi.h"

/** The packet of single-segment mbuf @p m, received on port @p in_port, as the program sees it. */
static inline struct p4dp_pkt p4dp_mbuf_view(struct rte_mbuf *m, uint32_t in_port)
{
	return (struct p4dp_pkt){
		.data = rte_pktmbuf_mtod(m, uint8_t *),
		.len = m->data_len,
		.headroom = m->data_off,
		.tailroom = (uint32_t)(m->buf_len - m->data_off - m->data_len),
		.in_port = in_port,
		.out_port = P4DP_PORT_DROP,
		.priv = m,
	};
}

/** After the program ran on @p pk, the view of @p m whose data and length were @p data0 and
 *  @p len0 before (p4dp_mbuf_view): write back the packet's bounds if the program moved or resized
 *  it (perf: compared with those values, not reloaded from the mbuf, so the C compiler drops the
 *  check where the program cannot move the packet; an unchanged mbuf is not written) and return
 *  the output port, P4DP_PORT_DROP, or P4DP_OUT_ERROR if the packet could not be finished
 *  (pk->data NULL). */
static inline uint32_t p4dp_mbuf_done(struct rte_mbuf *m, const struct p4dp_pkt *pk, const uint8_t *data0,
				      uint32_t len0)
{
	if (__builtin_expect(pk->data != data0 || pk->len != len0, 0)) {
		if (pk->data == NULL)
			return P4DP_OUT_ERROR;
		m->data_off = (uint16_t)(pk->data - (uint8_t *)m->buf_addr);
		m->data_len = (uint16_t)pk->len;
		m->pkt_len = pk->len;
	}
	/* a program's port in the runtime's range (PNA ports are 32 bits) is no port of the runtime */
	return pk->out_port >= P4DP_OUT_MULTISEG ? P4DP_PORT_DROP + 1u : pk->out_port;
}

/**
 * The loop of a program's process_mbufs (abi.h, p4dp_process_mbufs_fn, whose contract this
 * implements): runs @p one, the program on one packet (with its index in @p m and @p arg), on each
 * single-segment mbuf of @p m in order. perf: always inlined with a constant @p one, itself
 * always_inline (GCC inlines a call through a function pointer only then), so the program's
 * per-packet code is inlined into the loop and the packet view stays in registers; the burst's
 * common output and byte totals are kept in registers too (two ALU operations per packet, not a
 * pass by the runtime).
 */
static inline __attribute__((always_inline)) uint32_t
p4dp_mbufs_run(struct p4dp_ctx *ctx, struct rte_mbuf **m, uint32_t n, uint32_t in_port, uint32_t *out,
	       struct p4dp_mbufs_sum *sum, void (*one)(struct p4dp_ctx *, struct p4dp_pkt *, uint32_t, void *),
	       void *arg)
{
	uint64_t rx = 0, tx = 0;
	/* every output's bits ORed and ANDed: equal exactly when all outputs are the same */
	uint32_t any = 0, all = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *const mb = m[i];
		uint32_t o;
		if (__builtin_expect(mb->nb_segs != 1, 0)) {
			rx += mb->pkt_len;
			o = P4DP_OUT_MULTISEG;
		} else {
			struct p4dp_pkt pk = p4dp_mbuf_view(mb, in_port);
			uint8_t *const data0 = pk.data;
			const uint32_t len0 = pk.len;
			rx += len0; /* single segment: pkt_len == data_len */
			one(ctx, &pk, i, arg);
			o = p4dp_mbuf_done(mb, &pk, data0, len0);
			tx += pk.len;
		}
		out[i] = o;
		any |= o;
		all &= o;
	}
	sum->rx_bytes = rx;
	sum->tx_bytes = tx;
	return any == all ? any : P4DP_OUT_ERROR;
}

#endif

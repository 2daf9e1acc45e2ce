/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p4dp/mbuf.h: the program's view of a DPDK mbuf. Needs DPDK's headers (rte_mbuf.h), so only the
 * runtime and generated code compiled with P4DP_DPDK (the process_mbufs entry, abi.h) include it.
 * Both use these two functions, so the worker's process/process_burst path and process_mbufs
 * see and write back an mbuf the same way.
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
	/* a program's port P4DP_OUT_ERROR (PNA ports are 32 bits) is no port of the runtime either */
	return pk->out_port == P4DP_OUT_ERROR ? P4DP_PORT_DROP + 1u : pk->out_port;
}

#endif

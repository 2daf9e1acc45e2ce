/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Packet primitives of abi.h (p4dp_pkt_finish) and synchronous processing (p4dp_runtime_packet_inject)
 * for the STF runner and tests: one packet to completion on the calling thread with worker
 * context 0, outputs collected in emission order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rt_internal.h"

int p4dp_pkt_finish(struct p4dp_pkt *pkt, const uint8_t *emit, uint32_t emit_len, uint32_t payload_off,
		    uint32_t trunc_len)
{
	if (pkt->data == NULL)
		return -EINVAL; /* already failed */
	uint8_t *start = pkt->data - pkt->headroom;
	uint8_t *end = pkt->data + pkt->len + pkt->tailroom;
	if (payload_off > pkt->len || (emit_len > 0 && emit == NULL)) {
		pkt->data = NULL; /* the runtime drops and counts the packet */
		pkt->len = 0;
		return -EINVAL;
	}
	uint32_t plen = pkt->len - payload_off;
	uint64_t total = (uint64_t)emit_len + plen;
	if (total > (uint64_t)(end - start)) {
		pkt->data = NULL;
		pkt->len = 0;
		return -ENOSPC;
	}
	uint8_t *payload = pkt->data + payload_off;
	uint8_t *ns;
	if ((uint64_t)(payload - start) >= emit_len) {
		ns = payload - emit_len; /* the headers fit in front of the payload where it is */
	} else {
		ns = start; /* move the payload towards the tail to make room */
		memmove(ns + emit_len, payload, plen);
	}
	if (emit_len)
		memmove(ns, emit, emit_len);
	uint32_t len = (uint32_t)total;
	if (trunc_len != 0 && trunc_len < len)
		len = trunc_len;
	pkt->data = ns;
	pkt->len = len;
	pkt->headroom = (uint32_t)(ns - start);
	pkt->tailroom = (uint32_t)(end - (ns + len));
	return 0;
}

/* Called by p4dp_pkt_emit_copy (worker.c) while an inject is running on this context. */
int rt_inject_append(struct rt_worker *w, uint32_t port, const uint8_t *data, uint32_t len, bool copy)
{
	struct rt_inject *inj = w->inj;
	if (inj->n == inj->cap) {
		uint32_t cap = inj->cap ? 2 * inj->cap : 8;
		struct rt_inject_out *o = realloc(inj->outs, sizeof(*o) * cap);
		if (o == NULL)
			goto oom;
		inj->outs = o;
		inj->cap = cap;
	}
	uint8_t *buf = malloc(len ? len : 1);
	if (buf == NULL)
		goto oom;
	if (len)
		memcpy(buf, data, len);
	inj->outs[inj->n++] = (struct rt_inject_out){ port, len, buf };
	if (copy)
		RT_STAT_ADD(w->st.copies, 1);
	return 0;
oom:
	inj->oom = 1;
	if (copy)
		RT_STAT_ADD(w->st.copy_errors, 1);
	return -ENOBUFS;
}

int p4dp_runtime_packet_inject_burst_set(struct p4dp_runtime *rt, int on)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "set_inject_burst: NULL runtime");
	rt->inject_burst = on != 0;
	return 0;
}

int p4dp_runtime_packet_inject(struct p4dp_runtime *rt, uint32_t in_port, const uint8_t *data, uint32_t len,
			p4dp_out_cb cb, void *arg)
{
	if (rt == NULL || cb == NULL || (len > 0 && data == NULL))
		return rt_errc(-EINVAL, "inject: NULL argument");
	if (len > 65535)
		return rt_errc(-EINVAL, "inject: packet of %u bytes is longer than 65535", len);
	/* acquire: pairs with the release store that ends a run, so its state is complete when we inject */
	if (__atomic_load_n(&rt->running, __ATOMIC_ACQUIRE))
		return rt_errc(-EBUSY, "inject: the runtime is running on ports (p4dp_runtime_run)");
	uint8_t *buf = malloc(RT_INJECT_HEADROOM + len + RT_INJECT_TAILROOM);
	if (buf == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	if (len)
		memcpy(buf + RT_INJECT_HEADROOM, data, len);
	struct rt_worker *w = &rt->workers[0];
	struct rt_inject inj = { 0 };
	struct p4dp_pkt pkt = {
		.data = buf + RT_INJECT_HEADROOM,
		.len = len,
		.headroom = RT_INJECT_HEADROOM,
		.tailroom = RT_INJECT_TAILROOM,
		.in_port = in_port,
		.out_port = P4DP_PORT_DROP,
		.priv = NULL,
	};
	w->inj = &inj;
	w->drop_pkt = false;
	/* relaxed: a self-contained value (the simulated clock); publishes nothing */
	w->ctx.now_ns = __atomic_load_n(&rt->now_ns, __ATOMIC_RELAXED);
	const uint64_t room = (uint64_t)RT_INJECT_HEADROOM + len + RT_INJECT_TAILROOM;
	if (rt->inject_burst && rt->prog->process_mbufs != NULL && room <= UINT16_MAX) {
		/* The workers' receive path (process_mbufs), on an mbuf header over the inject buffer:
		 * the program sees and writes back the packet as it does on a port. */
		struct rte_mbuf mb;
		memset(&mb, 0, sizeof(mb));
		mb.buf_addr = buf;
		mb.buf_len = (uint16_t)room;
		mb.data_off = RT_INJECT_HEADROOM;
		mb.data_len = (uint16_t)len;
		mb.pkt_len = len;
		mb.nb_segs = 1;
		struct rte_mbuf *mp = &mb;
		uint32_t out = P4DP_PORT_DROP;
		struct p4dp_mbufs_sum sum;
		rt->prog->process_mbufs(&w->ctx, &mp, 1, in_port, &out, &sum);
		pkt.data = out == P4DP_OUT_ERROR ? NULL : rte_pktmbuf_mtod(&mb, uint8_t *);
		pkt.len = mb.data_len;
		pkt.out_port = out;
	} else if (rt->inject_burst && rt->prog->process_burst != NULL) {
		struct p4dp_pkt *pp = &pkt;
		rt->prog->process_burst(&w->ctx, &pp, 1);
	} else {
		rt->prog->process(&w->ctx, &pkt);
	}
	w->inj = NULL;
	RT_STAT_ADD(w->st.packets, 1);

	int rc = 0;
	if (pkt.data == NULL) {
		RT_STAT_ADD(w->st.finish_errors, 1);
	} else if (w->drop_pkt || pkt.out_port == P4DP_PORT_DROP) {
		RT_STAT_ADD(w->st.drops, 1);
	} else {
		w->inj = &inj;
		rt_inject_append(w, pkt.out_port, pkt.data, pkt.len, false);
		w->inj = NULL;
	}
	if (inj.oom) {
		rc = rt_errc(-ENOMEM, "inject: out of memory collecting output packets");
	} else {
		for (uint32_t i = 0; i < inj.n; i++)
			cb(arg, inj.outs[i].port, inj.outs[i].data, inj.outs[i].len);
		rc = (int)inj.n;
	}
	for (uint32_t i = 0; i < inj.n; i++)
		free(inj.outs[i].data);
	free(inj.outs);
	free(buf);
	return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trace tap (bench_trace.h): a traffic source that writes trace records into the bench's
 * packets in an rx callback, and a latency probe in a tx callback.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "bench_ports.h"
#include "p4dp/bench_trace.h"
#include "rt_internal.h"

#define BTR_MAGIC 0xb7a3c0deu

/* The stamp the source puts into each mbuf (dynamic field). */
struct btr_stamp {
	uint64_t tsc;
	uint32_t magic; /* BTR_MAGIC: stamped by this source and not yet recorded */
	uint32_t lcore; /* the lcore that received the packet */
};

static int btr_stamp_off = -1;

/* Source state of one bench port (rx queue 0), written only by the worker polling it. */
struct btr_src {
	const struct p4dp_btr *t;
	uint16_t port;
	uint32_t cur; /* next record */
	uint64_t handed, skipped;
} __attribute__((aligned(64)));

/* Probe state of one tx queue (= one worker). */
struct btr_probe {
	const struct p4dp_btr *t;
	uint64_t recorded;
	struct p4dp_hist *h;   /* every stamped packet */
	struct p4dp_hist *own; /* per tx burst, see p4dp_btr_iteration_cost */
} __attribute__((aligned(64)));

struct p4dp_btr {
	uint8_t *recs;
	uint16_t *lens;
	uint32_t rec_size, n_recs, offset;
	uint64_t record_after_ms;
	uint32_t nw, np;
	uint64_t rec_from; /* TSC; written before the workers are launched */
	struct btr_src src[P4DP_RT_MAX_PORTS];
	struct btr_probe probe[P4DP_BENCH_MAX_WORKERS];
	struct p4dp_bench_cbs cbs;
};

static uint16_t btr_rx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, uint16_t max_pkts,
		       void *arg)
{
	(void)queue;
	(void)max_pkts;
	struct btr_src *s = arg;
	const struct p4dp_btr *t = s->t;
	if (n == 0)
		return 0;
	const uint32_t off = t->offset, rs = t->rec_size, nr = t->n_recs;
	bool ok[RT_BURST];
	uint32_t cur = s->cur;
	for (uint16_t j = 0; j < n; j++) {
		struct rte_mbuf *m = pkts[j];
		const uint8_t *rec = t->recs + (size_t)cur * rs;
		uint32_t len = t->lens != NULL ? t->lens[cur] : rs;
		if (++cur == nr)
			cur = 0;
		/* as a NIC PMD does (net_ring does not): the worker's software dispatch needs it */
		m->port = port;
		uint32_t room = (uint32_t)(m->buf_len - m->data_off);
		uint32_t need = t->lens != NULL ? off + len : off + rs;
		ok[j] = need <= (t->lens != NULL ? room : rte_pktmbuf_data_len(m));
		if (!ok[j]) {
			s->skipped++;
			continue;
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *) + off, rec, len);
		if (t->lens != NULL) {
			m->data_len = (uint16_t)need;
			m->pkt_len = need;
		}
	}
	s->cur = cur;
	s->handed += n;
	uint64_t stamp = rte_rdtsc(); /* after the source's own work */
	const uint32_t lcore = rte_lcore_id();
	for (uint16_t j = 0; j < n; j++) {
		struct btr_stamp *st = RTE_MBUF_DYNFIELD(pkts[j], btr_stamp_off, struct btr_stamp *);
		st->tsc = stamp;
		st->magic = ok[j] ? BTR_MAGIC : 0;
		st->lcore = lcore;
	}
	return n;
}

static uint16_t btr_tx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, void *arg)
{
	(void)port;
	(void)queue;
	struct btr_probe *pr = arg;
	uint64_t now = rte_rdtsc();
	uint64_t from = pr->t->rec_from;
	uint64_t rec = 0;
	const uint32_t lcore = rte_lcore_id();
	uint64_t oldest_own = 0; /* the longest wait of a packet this lcore received, 0: none */
	for (uint16_t j = 0; j < n; j++) {
		struct btr_stamp *st = RTE_MBUF_DYNFIELD(pkts[j], btr_stamp_off, struct btr_stamp *);
		if (st->magic != BTR_MAGIC)
			continue;
		st->magic = 0;
		if (st->tsc < from || now < st->tsc)
			continue;
		p4dp_hist_record(pr->h, now - st->tsc);
		if (st->lcore == lcore && now - st->tsc > oldest_own)
			oldest_own = now - st->tsc;
		rec++;
	}
	if (oldest_own > 0)
		p4dp_hist_record(pr->own, oldest_own * RT_BURST / n);
	pr->recorded += rec;
	return n;
}

void p4dp_btr_detach(struct p4dp_btr *t)
{
	if (t == NULL)
		return;
	p4dp_bench_cbs_remove(&t->cbs);
	for (uint32_t q = 0; q < P4DP_BENCH_MAX_WORKERS; q++) {
		free(t->probe[q].h);
		free(t->probe[q].own);
	}
	free(t->recs);
	free(t->lens);
	free(t);
}

int p4dp_btr_arm(struct p4dp_btr *t)
{
	if (t == NULL)
		return rt_errc(-EINVAL, "trace tap: NULL");
	for (uint32_t i = 0; i < t->np; i++) {
		struct btr_src *s = &t->src[i];
		s->cur = (uint32_t)((uint64_t)i * t->n_recs / t->np);
		s->handed = s->skipped = 0;
	}
	for (uint32_t q = 0; q < t->nw; q++) {
		t->probe[q].recorded = 0;
		p4dp_hist_reset(t->probe[q].h);
		p4dp_hist_reset(t->probe[q].own);
	}
	t->rec_from = rte_rdtsc() + t->record_after_ms * (rte_get_tsc_hz() / 1000);
	return 0;
}

static int params_check(const struct p4dp_btr_params *p)
{
	if (p->recs == NULL)
		return rt_errc(-EINVAL, "trace tap: no records");
	if (p->rec_size < 1 || p->rec_size > P4DP_BENCH_TMPL_MAX)
		return rt_errc(-EINVAL, "trace tap: record size must be 1..%u bytes", P4DP_BENCH_TMPL_MAX);
	if (p->n_recs < 1 || p->n_recs > P4DP_BTR_MAX_RECS)
		return rt_errc(-EINVAL, "trace tap: 1..%u records", P4DP_BTR_MAX_RECS);
	if ((uint64_t)p->offset + p->rec_size > UINT16_MAX)
		return rt_errc(-EINVAL, "trace tap: offset %u + record size %u exceed a packet", p->offset, p->rec_size);
	if (p->lens != NULL)
		for (uint32_t k = 0; k < p->n_recs; k++)
			if (p->lens[k] < 1 || p->lens[k] > p->rec_size)
				return rt_errc(-EINVAL, "trace tap: record %u has length %u (must be 1..%u)", k, p->lens[k],
					       p->rec_size);
	return 0;
}

int p4dp_btr_attach(uint32_t n_workers, uint32_t n_ports, const struct p4dp_btr_params *p, struct p4dp_btr **out)
{
	if (p == NULL || out == NULL)
		return rt_errc(-EINVAL, "trace tap: NULL argument");
	uint32_t np;
	int rc = p4dp_bench_tap_counts("trace tap", n_workers, n_ports, &np);
	if (rc == 0)
		rc = params_check(p);
	uint16_t ports[P4DP_RT_MAX_PORTS];
	uint32_t seq = 0;
	if (rc == 0)
		rc = p4dp_bench_tap_find("trace tap", "p4dp_bench_trace_stamp", sizeof(struct btr_stamp), &btr_stamp_off,
					 np, ports, &seq);
	if (rc != 0)
		return rc;
	struct p4dp_btr *t = p4dp_bench_tap_zalloc(_Alignof(struct p4dp_btr), sizeof(*t));
	if (t == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	t->nw = n_workers;
	t->np = np;
	t->cbs.nw = n_workers;
	t->cbs.np = np;
	t->rec_size = p->rec_size;
	t->n_recs = p->n_recs;
	t->offset = p->offset;
	t->record_after_ms = p->record_after_ms;
	size_t bytes = (size_t)p->n_recs * p->rec_size;
	t->recs = malloc(bytes);
	t->lens = p->lens != NULL ? malloc(sizeof(uint16_t) * p->n_recs) : NULL;
	if (t->recs == NULL || (p->lens != NULL && t->lens == NULL)) {
		p4dp_btr_detach(t);
		return rt_errc(-ENOMEM, "out of memory");
	}
	memcpy(t->recs, p->recs, bytes);
	if (p->lens != NULL)
		memcpy(t->lens, p->lens, sizeof(uint16_t) * p->n_recs);
	for (uint32_t q = 0; q < n_workers; q++) {
		t->probe[q].t = t;
		t->probe[q].h = malloc(sizeof(struct p4dp_hist));
		t->probe[q].own = malloc(sizeof(struct p4dp_hist));
		if (t->probe[q].h == NULL || t->probe[q].own == NULL) {
			p4dp_btr_detach(t);
			return rt_errc(-ENOMEM, "out of memory");
		}
	}
	for (uint32_t i = 0; i < np; i++) {
		t->src[i].t = t;
		t->src[i].port = ports[i];
		t->cbs.port[i] = ports[i];
	}
	p4dp_btr_arm(t);
	if ((rc = p4dp_bench_cbs_add(&t->cbs, btr_rx, t->src, sizeof(t->src[0]), btr_tx, t->probe, sizeof(t->probe[0]),
				     "trace tap")) != 0) {
		p4dp_btr_detach(t);
		return rc;
	}
	*out = t;
	return 0;
}

int p4dp_btr_result(const struct p4dp_btr *t, struct p4dp_btr_result *r, struct p4dp_hist *lat)
{
	if (t == NULL || r == NULL)
		return rt_errc(-EINVAL, "trace tap: NULL argument");
	memset(r, 0, sizeof(*r));
	for (uint32_t i = 0; i < t->np; i++) {
		r->handed += t->src[i].handed;
		r->skipped += t->src[i].skipped;
	}
	if (lat != NULL)
		p4dp_hist_reset(lat);
	for (uint32_t q = 0; q < t->nw; q++) {
		r->recorded += t->probe[q].recorded;
		if (lat != NULL)
			p4dp_hist_merge(lat, t->probe[q].h);
	}
	return 0;
}

int p4dp_btr_iteration_cost(const struct p4dp_btr *t, struct p4dp_hist *cost)
{
	if (t == NULL || cost == NULL)
		return rt_errc(-EINVAL, "trace tap: NULL argument");
	p4dp_hist_reset(cost);
	for (uint32_t q = 0; q < t->nw; q++)
		p4dp_hist_merge(cost, t->probe[q].own);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-plane write benchmarks (bench_dp.h): the log-linear latency histogram and the tap (traffic
 * source in an rx callback, latency probe in a tx callback) on the ports of a bench (bench.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "p4dp/bench_dp.h"
#include "bench_ports.h"
#include "rt_internal.h"

/* ------------------------------------------------------------ histogram */

static inline uint32_t hist_index(uint64_t v)
{
	const uint32_t S = P4DP_HIST_SUB_BITS;
	if (v < (1ull << S))
		return (uint32_t)v;
	if (v >= (1ull << P4DP_HIST_MAX_BITS))
		return P4DP_HIST_BUCKETS - 1u;
	uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* S <= e < MAX_BITS */
	uint32_t shift = e - S;
	return ((shift + 1u) << S) + (uint32_t)((v >> shift) - (1ull << S));
}

/* Highest value that falls in bucket @p i. */
static uint64_t hist_bucket_high(uint32_t i)
{
	const uint32_t S = P4DP_HIST_SUB_BITS;
	if (i < (1u << S))
		return i;
	uint32_t shift = (i >> S) - 1u;
	uint64_t low = ((uint64_t)(i & ((1u << S) - 1u)) + (1ull << S)) << shift;
	return low + ((1ull << shift) - 1u);
}

void p4dp_hist_reset(struct p4dp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void p4dp_hist_record(struct p4dp_hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void p4dp_hist_merge(struct p4dp_hist *dst, const struct p4dp_hist *src)
{
	if (src->count == 0)
		return;
	for (uint32_t i = 0; i < P4DP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t p4dp_hist_quantile(const struct p4dp_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	/* rank: the ceil(q * count)-th smallest value (1-based) */
	double r = q * (double)h->count;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	uint64_t cum = 0;
	for (uint32_t i = 0; i < P4DP_HIST_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank) {
			if (i == P4DP_HIST_BUCKETS - 1u) /* open-ended top bucket */
				return h->max;
			uint64_t v = hist_bucket_high(i);
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

void p4dp_hist_summarize(const struct p4dp_hist *h, struct p4dp_hist_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (h->count == 0)
		return;
	s->count = h->count;
	s->min = h->min;
	s->max = h->max;
	s->mean = (double)h->sum / (double)h->count;
	s->p50 = p4dp_hist_quantile(h, 0.50);
	s->p90 = p4dp_hist_quantile(h, 0.90);
	s->p99 = p4dp_hist_quantile(h, 0.99);
	s->p999 = p4dp_hist_quantile(h, 0.999);
	s->p9999 = p4dp_hist_quantile(h, 0.9999);
}

/* ------------------------------------------------------------ tap */

#define BDP_MAGIC 0xb0d0u
#define BDP_NHIST (P4DP_BDP_MAX_PHASES * 2u)

/* The stamp the source puts into each mbuf (dynamic field). */
struct bdp_stamp {
	uint64_t tsc;
	uint32_t tag; /* BDP_MAGIC << 16 | phase << 1 | class */
};

static int bdp_stamp_off = -1;

struct bdp_phase_acc {
	uint64_t packets, fresh, tsc_first, tsc_end;
};

/* Source state of one bench port (rx queue 0), written only by the worker polling it. */
struct bdp_src {
	struct p4dp_bdp *t;
	uint16_t port;
	uint32_t idx;
	struct rte_ring *ring; /* the port's rx ring (producer: the same worker's tx queue) */
	uint64_t rng;
	uint32_t phase;
	uint32_t idle;
	uint64_t in_phase;
	uint64_t mix_ctr;
	uint64_t fresh;   /* fresh keys handed out by this port */
	uint64_t handed;
	uint64_t requeue_fail;
	struct bdp_phase_acc ph[P4DP_BDP_MAX_PHASES];
} __attribute__((aligned(64)));

/* Probe state of one tx queue (= one worker). */
struct bdp_probe {
	struct p4dp_bdp *t;
	uint64_t recorded;
	struct p4dp_hist *h; /* [BDP_NHIST] */
} __attribute__((aligned(64)));

struct p4dp_bdp {
	struct p4dp_bdp_params p;
	uint32_t nw, np;
	uint64_t rec_from; /* TSC; written before the workers are launched */
	struct bdp_src src[P4DP_RT_MAX_PORTS];
	struct bdp_probe probe[P4DP_BENCH_MAX_WORKERS];
	struct p4dp_bench_cbs cbs;
};

static inline uint64_t xs64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Emulated RSS: the worker key @p k belongs to (a multiplicative hash: any function of the key
 * alone keeps a flow on one worker). */
static inline uint32_t key_worker(uint64_t k, uint32_t nw)
{
	return (uint32_t)(((k * 0x9e3779b97f4a7c15ull) >> 32) % nw);
}

static inline void key_put(uint8_t *d, uint32_t nb, uint64_t v)
{
	if (nb == 4) {
		uint32_t be = rte_cpu_to_be_32((uint32_t)v);
		memcpy(d, &be, 4);
		return;
	}
	for (uint32_t i = 0; i < nb; i++)
		d[nb - 1 - i] = (uint8_t)(v >> (8 * i));
}

static uint16_t bdp_rx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, uint16_t max_pkts,
		       void *arg)
{
	(void)queue;
	(void)max_pkts;
	struct bdp_src *s = arg;
	const struct p4dp_bdp *t = s->t;
	if (n == 0)
		return 0;
	uint64_t now = rte_rdtsc();
	uint16_t keep = n < t->p.batch ? n : (uint16_t)t->p.batch;
	const struct p4dp_bdp_phase *ph = NULL;
	for (;;) {
		if (s->idle) {
			keep = 0;
			break;
		}
		ph = &t->p.phase[s->phase];
		if (ph->packets != 0 && s->in_phase >= ph->packets) {
			s->ph[s->phase].tsc_end = now;
			if (s->phase + 1 >= t->p.n_phases) {
				/* relaxed: p4dp_bdp_done polls it from the timer thread */
				__atomic_store_n(&s->idle, 1, __ATOMIC_RELAXED);
				continue;
			}
			s->phase++;
			s->in_phase = 0;
			s->mix_ctr = 0;
			continue;
		}
		if (s->in_phase == 0)
			s->ph[s->phase].tsc_first = now;
		if (ph->packets != 0 && ph->packets - s->in_phase < keep)
			keep = (uint16_t)(ph->packets - s->in_phase);
		break;
	}
	if (keep < n) {
		/* back to the tail of the port's ring; this worker is the ring's only producer */
		unsigned k = rte_ring_sp_enqueue_burst(s->ring, (void **)(pkts + keep), (unsigned)(n - keep), NULL);
		if (k < (unsigned)(n - keep)) { /* cannot happen: the packets came from this ring */
			s->requeue_fail += (n - keep) - k;
			/* hand the rest over unstamped rather than losing them */
			for (unsigned j = 0; j < (n - keep) - k; j++)
				pkts[keep + j] = pkts[keep + k + j];
			for (unsigned j = 0; j < (n - keep) - k; j++)
				RTE_MBUF_DYNFIELD(pkts[keep + j], bdp_stamp_off, struct bdp_stamp *)->tag = 0;
			return (uint16_t)(keep + (n - keep) - k);
		}
	}
	if (keep == 0)
		return 0;
	const uint32_t off = t->p.key_offset, nb = t->p.key_bytes, nw = t->nw, part = t->p.partition && nw > 1;
	const uint64_t base = t->p.key_base, nk = t->p.n_keys;
	uint32_t tags[RT_BURST];
	for (uint16_t j = 0; j < keep; j++) {
		uint64_t idx;
		uint32_t cls = 0;
		if (ph->keys == P4DP_BDP_KEYS_NEW ||
		    (ph->keys == P4DP_BDP_KEYS_MIX && ++s->mix_ctr >= ph->insert_every)) {
			s->mix_ctr = 0;
			idx = nk + s->fresh++;
			cls = 1;
		} else {
			uint64_t range = nk + s->fresh;
			idx = range ? (((xs64(&s->rng) >> 32) * range) >> 32) : 0;
			/* emulated RSS: redraw until the key is this port's worker's (expected
			 * n_workers draws; a range smaller than n_workers may have no such key) */
			for (uint32_t tries = 0; part && range >= nw && key_worker(base + idx, nw) != s->idx % nw &&
						  tries < 64 * nw;
			     tries++)
				idx = ((xs64(&s->rng) >> 32) * range) >> 32;
		}
		/* as a NIC PMD does (net_ring does not): the worker's software dispatch needs it */
		pkts[j]->port = port;
		uint8_t *d = rte_pktmbuf_mtod(pkts[j], uint8_t *);
		if (off + nb <= rte_pktmbuf_data_len(pkts[j]))
			key_put(d + off, nb, base + idx);
		tags[j] = (BDP_MAGIC << 16) | (s->phase << 1) | cls;
		s->ph[s->phase].fresh += cls;
	}
	s->in_phase += keep;
	s->ph[s->phase].packets += keep;
	s->handed += keep;
	uint64_t stamp = rte_rdtsc(); /* after the source's own work */
	for (uint16_t j = 0; j < keep; j++) {
		struct bdp_stamp *st = RTE_MBUF_DYNFIELD(pkts[j], bdp_stamp_off, struct bdp_stamp *);
		st->tsc = stamp;
		st->tag = tags[j];
	}
	return keep;
}

static uint16_t bdp_tx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, void *arg)
{
	(void)port;
	(void)queue;
	struct bdp_probe *pr = arg;
	uint64_t now = rte_rdtsc();
	uint64_t from = pr->t->rec_from;
	uint64_t rec = 0;
	for (uint16_t j = 0; j < n; j++) {
		struct bdp_stamp *st = RTE_MBUF_DYNFIELD(pkts[j], bdp_stamp_off, struct bdp_stamp *);
		uint32_t tag = st->tag;
		if ((tag >> 16) != BDP_MAGIC)
			continue;
		st->tag = 0;
		uint32_t hi = tag & 0xffffu;
		if (st->tsc < from || now < st->tsc || hi >= BDP_NHIST)
			continue;
		p4dp_hist_record(&pr->h[hi], now - st->tsc);
		rec++;
	}
	pr->recorded += rec;
	return n;
}

static int params_check(uint32_t np, const struct p4dp_bdp_params *p)
{
	if (p->key_bytes < 1 || p->key_bytes > 8)
		return rt_errc(-EINVAL, "bench tap: key_bytes must be 1..8");
	if (p->batch > RT_BURST)
		return rt_errc(-EINVAL, "bench tap: batch must be 0..%u", RT_BURST);
	if (p->n_phases < 1 || p->n_phases > P4DP_BDP_MAX_PHASES)
		return rt_errc(-EINVAL, "bench tap: 1..%u phases", P4DP_BDP_MAX_PHASES);
	if (p->n_keys >= (1ull << 32))
		return rt_errc(-EINVAL, "bench tap: at most 2^32-1 keys");
	uint64_t fresh_max = 0;
	for (uint32_t i = 0; i < p->n_phases; i++) {
		const struct p4dp_bdp_phase *ph = &p->phase[i];
		if (ph->keys > P4DP_BDP_KEYS_MIX)
			return rt_errc(-EINVAL, "bench tap: phase %u: bad key mode %u", i, ph->keys);
		if (ph->packets == 0 && i + 1 != p->n_phases)
			return rt_errc(-EINVAL, "bench tap: only the last phase may be unlimited");
		if (ph->keys == P4DP_BDP_KEYS_MIX && ph->insert_every < 1)
			return rt_errc(-EINVAL, "bench tap: phase %u: insert_every must be >= 1", i);
		if (ph->keys != P4DP_BDP_KEYS_RANDOM) {
			if (np != 1)
				return rt_errc(-EINVAL, "bench tap: fresh keys need a single bench port");
			if (ph->packets == 0)
				return rt_errc(-EINVAL, "bench tap: a phase with fresh keys needs a packet limit");
			fresh_max += ph->keys == P4DP_BDP_KEYS_NEW ? ph->packets : ph->packets / ph->insert_every;
		}
	}
	uint64_t last = p->key_base + p->n_keys + fresh_max;
	if (last < p->key_base || (p->key_bytes < 8 && (last - 1) >> (8 * p->key_bytes) != 0))
		return rt_errc(-EINVAL, "bench tap: keys up to %#" PRIx64 " do not fit %u bytes", last - 1, p->key_bytes);
	if (last - p->key_base >= (1ull << 32))
		return rt_errc(-EINVAL, "bench tap: at most 2^32-1 keys in all");
	return 0;
}

int p4dp_bench_ports_find(uint32_t np, uint16_t *ports, uint32_t *seq_out)
{
	bool found[P4DP_RT_MAX_PORTS] = {false};
	uint32_t seq = UINT32_MAX;
	uint16_t pid;
	char seen[256] = "";
	RTE_ETH_FOREACH_DEV(pid)
	{
		char name[RTE_ETH_NAME_MAX_LEN];
		if (rte_eth_dev_get_name_by_port(pid, name) != 0)
			continue;
		size_t sl = strlen(seen);
		snprintf(seen + sl, sizeof(seen) - sl, " %s", name);
		unsigned s, i;
		int end = 0;
		/* rte_eth_from_rings() names the ethdev "net_ring_<name>" */
		const char *nm = strncmp(name, "net_ring_", 9) == 0 ? name + 9 : name;
		if (sscanf(nm, "p4dpb%u_%u%n", &s, &i, &end) != 2 || nm[end] != '\0')
			continue;
		if (seq != UINT32_MAX && s != seq)
			return rt_errc(-EINVAL, "bench tap: more than one bench exists");
		seq = s;
		if (i < np) {
			found[i] = true;
			ports[i] = pid;
		}
	}
	for (uint32_t i = 0; i < np; i++)
		if (!found[i])
			return rt_errc(-ENODEV, "bench tap: bench port %u not found (create the bench first; ports:%s)", i,
				       seen);
	*seq_out = seq;
	return 0;
}

int p4dp_bench_tap_counts(const char *who, uint32_t n_workers, uint32_t n_ports, uint32_t *np_out)
{
	uint32_t np = n_ports ? n_ports : n_workers;
	if (n_workers < 1 || n_workers > P4DP_BENCH_MAX_WORKERS || np < n_workers || np > P4DP_RT_MAX_PORTS)
		return rt_errc(-EINVAL, "%s: bad worker/port counts %u/%u", who, n_workers, n_ports);
	*np_out = np;
	return 0;
}

int p4dp_bench_tap_find(const char *who, const char *name, size_t size, int *off, uint32_t np, uint16_t *ports,
			uint32_t *seq_out)
{
	if (*off < 0) {
		struct rte_mbuf_dynfield desc = { .size = size, .align = 8 };
		snprintf(desc.name, sizeof(desc.name), "%s", name);
		*off = rte_mbuf_dynfield_register(&desc);
		if (*off < 0)
			return rt_errc(-ENOMEM, "%s: cannot register the mbuf stamp field: %s", who,
				       rte_strerror(rte_errno));
	}
	return p4dp_bench_ports_find(np, ports, seq_out);
}

void *p4dp_bench_tap_zalloc(size_t align, size_t size)
{
	/* aligned_alloc wants a size that is a multiple of the alignment */
	void *p = aligned_alloc(align, (size + align - 1) / align * align);
	if (p != NULL)
		memset(p, 0, size);
	return p;
}

static void bdp_remove(struct p4dp_bdp *t)
{
	p4dp_bench_cbs_remove(&t->cbs);
}

int p4dp_bench_cbs_add(struct p4dp_bench_cbs *c, rte_rx_callback_fn rx, void *rx_args, size_t rx_stride,
		       rte_tx_callback_fn tx, void *tx_args, size_t tx_stride, const char *who)
{
	for (uint32_t i = 0; i < c->np; i++) {
		c->rx[i] = rte_eth_add_rx_callback(c->port[i], 0, rx, (char *)rx_args + i * rx_stride);
		if (c->rx[i] == NULL) {
			int rc = rte_errno == ENOTSUP ? -ENOTSUP : -EINVAL;
			p4dp_bench_cbs_remove(c);
			return rt_errc(rc, "%s: cannot add an rx callback to bench port %u: %s", who, i,
				       rte_strerror(rte_errno));
		}
		for (uint32_t q = 0; q < c->nw; q++) {
			c->tx[i][q] = rte_eth_add_tx_callback(c->port[i], (uint16_t)q, tx, (char *)tx_args + q * tx_stride);
			if (c->tx[i][q] == NULL) {
				int rc = rte_errno == ENOTSUP ? -ENOTSUP : -EINVAL;
				p4dp_bench_cbs_remove(c);
				return rt_errc(rc, "%s: cannot add a tx callback to bench port %u queue %u: %s", who, i, q,
					       rte_strerror(rte_errno));
			}
		}
	}
	return 0;
}

void p4dp_bench_cbs_remove(struct p4dp_bench_cbs *c)
{
	for (uint32_t i = 0; i < c->np; i++) {
		if (c->rx[i] != NULL && rte_eth_remove_rx_callback(c->port[i], 0, c->rx[i]) == 0)
			rte_free((void *)(uintptr_t)c->rx[i]);
		c->rx[i] = NULL;
		for (uint32_t q = 0; q < c->nw; q++) {
			if (c->tx[i][q] != NULL && rte_eth_remove_tx_callback(c->port[i], (uint16_t)q, c->tx[i][q]) == 0)
				rte_free((void *)(uintptr_t)c->tx[i][q]);
			c->tx[i][q] = NULL;
		}
	}
}

void p4dp_bdp_detach(struct p4dp_bdp *t)
{
	if (t == NULL)
		return;
	bdp_remove(t);
	for (uint32_t q = 0; q < P4DP_BENCH_MAX_WORKERS; q++)
		free(t->probe[q].h);
	free(t);
}

int p4dp_bdp_arm(struct p4dp_bdp *t, const struct p4dp_bdp_params *p)
{
	if (t == NULL)
		return rt_errc(-EINVAL, "bench tap: NULL");
	if (p != NULL) {
		int rc = params_check(t->np, p);
		if (rc != 0)
			return rc;
		t->p = *p;
		if (t->p.batch == 0)
			t->p.batch = RT_BURST;
	}
	for (uint32_t i = 0; i < t->np; i++) {
		struct bdp_src *s = &t->src[i];
		s->rng = t->p.seed * 0x9e3779b97f4a7c15ull + i + 1; /* never 0 for xorshift */
		if (s->rng == 0)
			s->rng = 1;
		s->phase = 0;
		s->idle = 0;
		s->in_phase = s->mix_ctr = s->fresh = s->handed = s->requeue_fail = 0;
		memset(s->ph, 0, sizeof(s->ph));
	}
	for (uint32_t q = 0; q < t->nw; q++) {
		t->probe[q].recorded = 0;
		for (uint32_t h = 0; h < BDP_NHIST; h++)
			p4dp_hist_reset(&t->probe[q].h[h]);
	}
	t->rec_from = rte_rdtsc() + t->p.record_after_ms * (rte_get_tsc_hz() / 1000);
	return 0;
}

int p4dp_bdp_attach(uint32_t n_workers, uint32_t n_ports, const struct p4dp_bdp_params *p, struct p4dp_bdp **out)
{
	if (p == NULL || out == NULL)
		return rt_errc(-EINVAL, "bench tap: NULL argument");
	uint32_t np;
	int rc = p4dp_bench_tap_counts("bench tap", n_workers, n_ports, &np);
	if (rc == 0)
		rc = params_check(np, p);
	uint16_t ports[P4DP_RT_MAX_PORTS];
	uint32_t seq = 0;
	if (rc == 0)
		rc = p4dp_bench_tap_find("bench tap", "p4dp_bench_dp_stamp", sizeof(struct bdp_stamp), &bdp_stamp_off, np,
					 ports, &seq);
	if (rc != 0)
		return rc;
	struct p4dp_bdp *t = p4dp_bench_tap_zalloc(_Alignof(struct p4dp_bdp), sizeof(*t));
	if (t == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	t->nw = n_workers;
	t->np = np;
	t->cbs.nw = n_workers;
	t->cbs.np = np;
	for (uint32_t q = 0; q < n_workers; q++) {
		t->probe[q].t = t;
		t->probe[q].h = malloc(sizeof(struct p4dp_hist) * BDP_NHIST);
		if (t->probe[q].h == NULL) {
			p4dp_bdp_detach(t);
			return rt_errc(-ENOMEM, "out of memory");
		}
	}
	for (uint32_t i = 0; i < np; i++) {
		struct bdp_src *s = &t->src[i];
		s->t = t;
		s->idx = i;
		s->port = ports[i];
		t->cbs.port[i] = ports[i];
		char rn[RTE_RING_NAMESIZE];
		snprintf(rn, sizeof(rn), "p4dpb%u_%u", seq, i);
		s->ring = rte_ring_lookup(rn);
		if (s->ring == NULL) {
			p4dp_bdp_detach(t);
			return rt_errc(-ENODEV, "bench tap: ring %s of the bench not found", rn);
		}
	}
	if ((rc = p4dp_bdp_arm(t, p)) != 0) {
		p4dp_bdp_detach(t);
		return rc;
	}
	if ((rc = p4dp_bench_cbs_add(&t->cbs, bdp_rx, t->src, sizeof(t->src[0]), bdp_tx, t->probe, sizeof(t->probe[0]),
				     "bench tap")) != 0) {
		p4dp_bdp_detach(t);
		return rc;
	}
	*out = t;
	return 0;
}

int p4dp_bdp_done(void *arg)
{
	const struct p4dp_bdp *t = arg;
	if (t == NULL || t->p.phase[t->p.n_phases - 1].packets == 0)
		return 0;
	for (uint32_t i = 0; i < t->np; i++)
		/* relaxed: a progress flag polled until it changes; publishes nothing */
		if (!__atomic_load_n(&t->src[i].idle, __ATOMIC_RELAXED))
			return 0;
	return 1;
}

int p4dp_bdp_result(struct p4dp_bdp *t, struct p4dp_bdp_result *r)
{
	if (t == NULL || r == NULL)
		return rt_errc(-EINVAL, "bench tap: NULL argument");
	memset(r, 0, sizeof(*r));
	struct p4dp_hist *tmp = malloc(sizeof(*tmp)), *all = malloc(sizeof(*all));
	if (tmp == NULL || all == NULL) {
		free(tmp);
		free(all);
		return rt_errc(-ENOMEM, "out of memory");
	}
	r->n_phases = t->p.n_phases;
	r->done = 1;
	for (uint32_t i = 0; i < t->np; i++) {
		const struct bdp_src *s = &t->src[i];
		r->handed += s->handed;
		bool limited_last = t->p.phase[t->p.n_phases - 1].packets != 0;
		if (limited_last && !s->idle)
			r->done = 0;
		for (uint32_t k = 0; k < t->p.n_phases; k++) {
			r->ph[k].packets += s->ph[k].packets;
			r->ph[k].fresh += s->ph[k].fresh;
			if (i == 0) {
				r->ph[k].tsc_first = s->ph[k].tsc_first;
				r->ph[k].tsc_end = s->ph[k].tsc_end;
			}
		}
	}
	p4dp_hist_reset(all);
	for (uint32_t k = 0; k < t->p.n_phases; k++) {
		for (uint32_t c = 0; c < 2; c++) {
			p4dp_hist_reset(tmp);
			for (uint32_t q = 0; q < t->nw; q++)
				p4dp_hist_merge(tmp, &t->probe[q].h[k * 2 + c]);
			p4dp_hist_summarize(tmp, &r->ph[k].lat[c]);
			p4dp_hist_merge(all, tmp);
		}
	}
	for (uint32_t q = 0; q < t->nw; q++)
		r->recorded += t->probe[q].recorded;
	p4dp_hist_summarize(all, &r->lat_all);
	free(tmp);
	free(all);
	return 0;
}

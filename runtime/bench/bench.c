/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in benchmark (bench.h): ring-backed bench ports, pre-built packets, the floor, l2fwd
 * floor and table-baseline loops, and measuring p4dp_runtime_run() with the same ports and packets.
 *
 * The bench ports are attached to the runtime only while a PROGRAM measurement runs (filled into
 * rt->ports like p4dp_runtime_port_add() does, and removed again afterwards), so the FLOOR and
 * TABLE loops can drive the same ethdevs directly in between.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "p4dp/bench.h"
#include "p4dp/table.h"
#include "rt_internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bench.c builds native (little-endian) table keys"
#endif

#define B_BURST RT_BURST  /* the worker loop's rx burst size */
#define B_KEYBUF 16u      /* bytes per native key in the TABLE loop */
#define B_MAX_KEYS (1u << 26)

typedef int (*from_rings_fn)(const char *, struct rte_ring *const[], const unsigned, struct rte_ring *const[],
			     const unsigned, const unsigned);

/* Per-lcore state of the FLOOR/TABLE loops; one cache line per worker (written by its worker). */
struct bench_lcore {
	struct p4dp_bench *b;
	uint32_t id;
	uint32_t kind;
	struct p4dp_table *table;
	uint32_t key_len, fld_off, fld_size;
	p4dp_bench_burst_fn fn; /* BURST_FN */
	void *fn_arg;
	uint64_t pkts;   /* relaxed stores by the worker, relaxed loads by the control thread */
	uint64_t hits;   /* TABLE */
	uint64_t misses; /* TABLE */
	uint64_t tx_lost;
	uint64_t sink;   /* keeps the result reads alive */
} __attribute__((aligned(64)));

struct p4dp_bench {
	struct p4dp_runtime *rt;
	struct p4dp_bench_params p;
	uint8_t tmpl[P4DP_BENCH_TMPL_MAX];
	uint32_t nw, np;
	uint32_t seq;
	struct rte_ring *ring[P4DP_RT_MAX_PORTS];
	uint16_t port[P4DP_RT_MAX_PORTS];
	bool port_ok[P4DP_RT_MAX_PORTS];
	char port_name[P4DP_RT_MAX_PORTS][64];
	struct rte_mempool *pool;
	struct rte_mbuf **pkts; /* [n_pkts], sorted by address */
	uint64_t *keys;         /* [n_pkts] key value of each packet (key_bytes > 0) */
	bool keys_listed;       /* p4dp_bench_keys_set gave the keys */
	bool broken;            /* packets were lost: measurements are refused */
	int stop;               /* release store by the control thread, acquire loads by the loops */
	int (*done)(void *);    /* p4dp_bench_set_done: ends PROGRAM windows early */
	void *done_arg;
	uint32_t n_bg;          /* p4dp_bench_set_background: background threads of PROGRAM runs */
	struct bench_lcore lc[P4DP_BENCH_MAX_WORKERS];
	unsigned lcore_id[P4DP_BENCH_MAX_WORKERS];
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n >= 1) by rejection: no modulo bias. */
static uint64_t rand_below(uint64_t *s, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t r;
	do
		r = splitmix64(s);
	while (r >= lim);
	return r % n;
}

/* A random permutation of 0..n-1 (Fisher-Yates driven by splitmix64(seed)), malloc'd; NULL if
 * out of memory. */
static uint32_t *perm_new(uint32_t n, uint64_t seed)
{
	uint32_t *perm = malloc(sizeof(*perm) * (n ? n : 1));
	if (perm == NULL)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n ? n - 1 : 0; i > 0; i--) {
		uint32_t k = (uint32_t)rand_below(&seed, (uint64_t)i + 1);
		uint32_t t = perm[i];
		perm[i] = perm[k];
		perm[k] = t;
	}
	return perm;
}

static from_rings_fn from_rings_get(void)
{
	/* Debian installs net_ring as an EAL plugin (the EAL dlopen()s it from the pmds directory; the
	 * lib directory's librte_net_ring.so.23 is a symlink to the same file, so this returns the
	 * already-loaded copy). Looking the symbol up here keeps the runtime's link line unchanged. */
	void *h = dlopen("librte_net_ring.so.23", RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL)
		return NULL;
	return (from_rings_fn)(uintptr_t)dlsym(h, "rte_eth_from_rings");
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return x < y ? -1 : x > y;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------ packets */

static void key_store_be(uint8_t *d, uint32_t nbytes, uint64_t v)
{
	for (uint32_t i = 0; i < nbytes; i++)
		d[nbytes - 1 - i] = (uint8_t)(v >> (8 * i));
}

/* Rewrite every packet from the template and queue packet j on ring j % nw, in order of j. */
static int packets_load(struct p4dp_bench *b)
{
	const struct p4dp_bench_params *p = &b->p;
	for (uint32_t i = 0; i < b->np; i++)
		rte_ring_reset(b->ring[i]);
	for (uint32_t j = 0; j < p->n_pkts; j++) {
		struct rte_mbuf *m = b->pkts[j];
		rte_pktmbuf_reset(m);
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)p->tmpl_len);
		if (d == NULL)
			return rt_errc(-ENOMEM, "bench: packet buffer too small");
		memcpy(d, b->tmpl, p->tmpl_len);
		if (p->key_bytes)
			key_store_be(d + p->key_offset, p->key_bytes, b->keys[j]);
		if (rte_ring_enqueue(b->ring[j % b->nw], m) != 0)
			return rt_errc(-ENOSPC, "bench: ring full while loading packets");
	}
	return 0;
}

/* Empty every ring; returns the number of packets found. */
static uint64_t packets_drain(struct p4dp_bench *b)
{
	uint64_t n = 0;
	void *tmp[256];
	for (uint32_t i = 0; i < b->np; i++) {
		unsigned k;
		while ((k = rte_ring_dequeue_burst(b->ring[i], tmp, 256, NULL)) > 0)
			n += k;
	}
	return n;
}

/* ------------------------------------------------------------ ports */

static int ports_configure(struct p4dp_bench *b)
{
	for (uint32_t i = 0; i < b->np; i++) {
		uint16_t pid = b->port[i];
		struct rte_eth_conf conf;
		memset(&conf, 0, sizeof(conf));
		int rc = rte_eth_dev_configure(pid, 1, (uint16_t)b->nw, &conf);
		if (rc == 0)
			rc = rte_eth_rx_queue_setup(pid, 0, 512, (unsigned)rte_socket_id(), NULL, b->pool);
		for (uint16_t q = 0; rc == 0 && q < b->nw; q++)
			rc = rte_eth_tx_queue_setup(pid, q, 512, (unsigned)rte_socket_id(), NULL);
		if (rc == 0)
			rc = rte_eth_dev_start(pid);
		if (rc != 0)
			return rt_errc(-EIO, "bench: port %s setup failed: %s", b->port_name[i], strerror(-rc));
	}
	return 0;
}

static void ports_stop_all(struct p4dp_bench *b)
{
	for (uint32_t i = 0; i < b->np; i++)
		rte_eth_dev_stop(b->port[i]);
}

/* Attach the bench ports to the runtime as P4 ports 0..np-1 (what p4dp_runtime_port_add() does for a
 * probed device). The runtime must have no ports (checked by p4dp_bench_create and here). */
static int ports_attach(struct p4dp_bench *b)
{
	struct p4dp_runtime *rt = b->rt;
	int rc = 0;
	pthread_mutex_lock(&rt->lock);
	/* acquire: pairs with the run's final release store of running */
	if (rt->n_ports != 0 || __atomic_load_n(&rt->running, __ATOMIC_ACQUIRE)) {
		rc = rt_errc(-EBUSY, "bench: the runtime has ports or is running");
		goto out;
	}
	for (uint32_t i = 0; i < b->np; i++) {
		struct rt_port *p = &rt->ports[i];
		memset(p, 0, sizeof(*p));
		p->devargs = strdup(b->port_name[i]);
		if (p->devargs == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
			break;
		}
		snprintf(p->name, sizeof(p->name), "%s", b->port_name[i]);
		p->port_no = i;
		p->dpdk_port = b->port[i];
		p->expected_rx = -1;
		p->used = true;
		rt->port_slot[i] = (int16_t)i;
		rt->n_ports++;
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

/* Undo ports_attach (the ethdevs stay; run() has stopped them). */
static void ports_detach(struct p4dp_bench *b)
{
	struct p4dp_runtime *rt = b->rt;
	pthread_mutex_lock(&rt->lock);
	for (uint32_t i = 0; i < b->np; i++) {
		struct rt_port *p = &rt->ports[i];
		if (!p->used || p->dpdk_port != b->port[i])
			continue;
		if (p->started)
			rte_eth_dev_stop(p->dpdk_port);
		rte_ring_free(p->txring);
		free(p->devargs);
		memset(p, 0, sizeof(*p));
		rt->port_slot[i] = -1;
		rt->n_ports--;
	}
	pthread_mutex_unlock(&rt->lock);
}

/* ------------------------------------------------------------ create / free */

static int params_check(struct p4dp_runtime *rt, const struct p4dp_bench_params *p)
{
	if (p->n_workers < 1 || p->n_workers > P4DP_BENCH_MAX_WORKERS)
		return rt_errc(-EINVAL, "bench: workers must be 1..%u", P4DP_BENCH_MAX_WORKERS);
	if (p->n_workers > rt->max_workers)
		return rt_errc(-EINVAL, "bench: %u workers but the runtime was created with max_workers %u",
			       p->n_workers, rt->max_workers);
	if (p->n_workers > rte_lcore_count() - 1)
		return rt_errc(-EINVAL, "bench: %u workers need %u EAL worker lcores, the EAL has %u (use --lcores)",
			       p->n_workers, p->n_workers, rte_lcore_count() - 1);
	uint32_t np = p->n_ports ? p->n_ports : p->n_workers;
	if (np < p->n_workers || np > P4DP_RT_MAX_PORTS)
		return rt_errc(-EINVAL, "bench: ports must be %u..%u", p->n_workers, P4DP_RT_MAX_PORTS);
	if (p->n_pkts < B_BURST * p->n_workers)
		return rt_errc(-EINVAL, "bench: at least %u packets needed for %u workers", B_BURST * p->n_workers,
			       p->n_workers);
	if (p->n_pkts > (1u << 24))
		return rt_errc(-EINVAL, "bench: at most %u packets", 1u << 24);
	if (p->dispatch > P4DP_RT_DISPATCH_NONE)
		return rt_errc(-EINVAL, "bench: bad dispatch mode %u", p->dispatch);
	if (p->tmpl == NULL || p->tmpl_len < 14 || p->tmpl_len > P4DP_BENCH_TMPL_MAX)
		return rt_errc(-EINVAL, "bench: packet template must have 14..%u bytes", P4DP_BENCH_TMPL_MAX);
	if (p->key_bytes > P4DP_BENCH_KEY_MAX)
		return rt_errc(-EINVAL, "bench: key fields of at most %u bytes", P4DP_BENCH_KEY_MAX);
	if (p->key_bytes) {
		if ((uint64_t)p->key_offset + p->key_bytes > p->tmpl_len)
			return rt_errc(-EINVAL, "bench: key at bytes %u..%u is outside the %u-byte packet", p->key_offset,
				       p->key_offset + p->key_bytes - 1, p->tmpl_len);
		if (p->n_keys < 1 || p->n_keys > B_MAX_KEYS)
			return rt_errc(-EINVAL, "bench: number of keys must be 1..%u", B_MAX_KEYS);
		uint64_t last = p->key_base + p->n_keys - 1;
		if (last < p->key_base || (p->key_bytes < 8 && last >> (8 * p->key_bytes) != 0))
			return rt_errc(-EINVAL, "bench: keys up to %#" PRIx64 " do not fit %u bytes", last, p->key_bytes);
	}
	if (p->duration_ms < 1)
		return rt_errc(-EINVAL, "bench: duration must be >= 1 ms");
	return 0;
}

int p4dp_bench_create(struct p4dp_runtime *rt, const struct p4dp_bench_params *params, struct p4dp_bench **out)
{
	static uint32_t bench_seq;
	if (rt == NULL || params == NULL || out == NULL)
		return rt_errc(-EINVAL, "bench: NULL argument");
	if (rte_lcore_id() != rte_get_main_lcore())
		return rt_errc(-EPERM, "bench: must be called on the EAL main lcore");
	int rc = params_check(rt, params);
	if (rc != 0)
		return rc;
	/* acquire: pairs with the run's final release store of running */
	if (rt->n_ports != 0 || __atomic_load_n(&rt->running, __ATOMIC_ACQUIRE))
		return rt_errc(-EBUSY, "bench: the runtime already has ports or is running");
	from_rings_fn from_rings = from_rings_get();
	if (from_rings == NULL)
		return rt_errc(-ENODEV, "bench: the net_ring driver (librte_net_ring.so.23) is not available: %s",
			       dlerror());

	/* struct p4dp_bench is cache-line aligned (its per-lcore members): calloc only guarantees 16 */
	struct p4dp_bench *b = aligned_alloc(_Alignof(struct p4dp_bench), sizeof(*b));
	if (b != NULL)
		memset(b, 0, sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	b->rt = rt;
	b->p = *params;
	memcpy(b->tmpl, params->tmpl, params->tmpl_len);
	b->p.tmpl = b->tmpl;
	b->nw = params->n_workers;
	b->np = params->n_ports ? params->n_ports : params->n_workers;
	/* relaxed: only uniqueness matters */
	b->seq = __atomic_fetch_add(&bench_seq, 1, __ATOMIC_RELAXED);
	uint32_t n = params->n_pkts;
	int socket = (int)rte_socket_id();

	/* Rings: each holds every packet. Worker w's ring starts with its share, but a packet lands
	 * in the ring of the worker that processed it, and with software dispatch that is the owner
	 * of its flow: the shares drift, and a ring sized for one share overflows (a tx error) when
	 * all packets happen to gather in it. SP/SC: one producer (the worker transmitting on tx
	 * queue w) and one consumer (the worker polling port w). */
	for (uint32_t i = 0; i < b->np; i++) {
		char rn[RTE_RING_NAMESIZE];
		snprintf(rn, sizeof(rn), "p4dpb%u_%u", b->seq, i);
		b->ring[i] = rte_ring_create(rn, rte_align32pow2(n + 1), socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (b->ring[i] == NULL) {
			rc = rt_errc(-ENOMEM, "bench: cannot create ring %s: %s", rn, rte_strerror(rte_errno));
			goto fail;
		}
	}
	for (uint32_t i = 0; i < b->np; i++) {
		snprintf(b->port_name[i], sizeof(b->port_name[i]), "p4dpb%u_%u", b->seq, i);
		int pid = from_rings(b->port_name[i], &b->ring[i], 1, b->ring, b->nw, (unsigned)socket);
		if (pid < 0) {
			rc = rt_errc(-ENODEV, "bench: cannot create ring port %s: %s", b->port_name[i],
				     rte_strerror(rte_errno));
			goto fail;
		}
		b->port[i] = (uint16_t)pid;
		b->port_ok[i] = true;
	}

	/* Packets: their own pool, no per-lcore cache (they are never freed while the bench runs). */
	char pn[RTE_MEMPOOL_NAMESIZE];
	snprintf(pn, sizeof(pn), "p4dpb%u", b->seq);
	uint32_t room = RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(params->tmpl_len + 64u, 64u);
	b->pool = rte_pktmbuf_pool_create(pn, n, 0, 0, (uint16_t)room, socket);
	if (b->pool == NULL) {
		rc = rt_errc(-ENOMEM, "bench: cannot create a pool of %u packets: %s", n, rte_strerror(rte_errno));
		goto fail;
	}
	b->pkts = calloc(n, sizeof(*b->pkts));
	b->keys = params->key_bytes ? calloc(n, sizeof(*b->keys)) : NULL;
	if (b->pkts == NULL || (params->key_bytes && b->keys == NULL)) {
		rc = rt_errc(-ENOMEM, "out of memory");
		goto fail;
	}
	if (rte_pktmbuf_alloc_bulk(b->pool, b->pkts, n) != 0) {
		rc = rt_errc(-ENOMEM, "bench: cannot allocate %u packets", n);
		goto fail;
	}
	/* Queue order = address order: a lap walks the mbufs sequentially, as a NIC's recycled buffers
	 * would stay cache-friendly. Identical for every loop measured. */
	qsort(b->pkts, n, sizeof(*b->pkts), cmp_ptr);

	if (params->key_bytes) {
		/* Packet j carries key_base + perm[j mod n_keys]. */
		uint32_t nk = (uint32_t)params->n_keys;
		uint32_t *perm = perm_new(nk, params->seed);
		if (perm == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
			goto fail;
		}
		for (uint32_t j = 0; j < n; j++)
			b->keys[j] = params->key_base + perm[j % nk];
		free(perm);
	}
	*out = b;
	return 0;
fail:
	p4dp_bench_free(b);
	return rc;
}

void p4dp_bench_set_done(struct p4dp_bench *b, int (*done)(void *arg), void *arg)
{
	if (b == NULL)
		return;
	b->done = done;
	b->done_arg = arg;
}

int p4dp_bench_set_background(struct p4dp_bench *b, uint32_t n)
{
	if (b == NULL)
		return rt_errc(-EINVAL, "bench: NULL argument");
	if (n > b->rt->prog->n_background)
		return rt_errc(-EINVAL, "bench: %u background threads, but the program has %u background pipelines", n,
			       b->rt->prog->n_background);
	b->n_bg = n;
	return 0;
}

void p4dp_bench_free(struct p4dp_bench *b)
{
	if (b == NULL)
		return;
	ports_detach(b);
	for (uint32_t i = 0; i < b->np; i++) {
		if (!b->port_ok[i])
			continue;
		rte_eth_dev_stop(b->port[i]);
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(b->port[i], &info) != 0 || info.device == NULL || rte_dev_remove(info.device) != 0)
			rte_eth_dev_close(b->port[i]);
	}
	for (uint32_t i = 0; i < b->np; i++)
		rte_ring_free(b->ring[i]);
	/* The pool's memory goes back as a whole; the mbufs need not be returned first. */
	rte_mempool_free(b->pool);
	free(b->pkts);
	free(b->keys);
	free(b);
}

/* ------------------------------------------------------------ the reference loops */

static inline uint64_t key_load_be(const uint8_t *d, uint32_t nbytes)
{
	switch (nbytes) {
	case 1: return d[0];
	case 2: { uint16_t v; memcpy(&v, d, 2); return rte_be_to_cpu_16(v); }
	case 4: { uint32_t v; memcpy(&v, d, 4); return rte_be_to_cpu_32(v); }
	case 8: { uint64_t v; memcpy(&v, d, 8); return rte_be_to_cpu_64(v); }
	default: {
		uint64_t v = 0;
		for (uint32_t i = 0; i < nbytes; i++)
			v = (v << 8) | d[i];
		return v;
	}
	}
}

static int loop_main(void *arg)
{
	struct bench_lcore *c = arg;
	struct p4dp_bench *b = c->b;
	const uint16_t q = (uint16_t)c->id;
	const bool table = c->kind == P4DP_BENCH_TABLE || c->kind == P4DP_BENCH_TABLE_SINGLE;
	const bool single = c->kind == P4DP_BENCH_TABLE_SINGLE;
	const bool l2fwd = c->kind == P4DP_BENCH_L2FWD;
	const bool burst_fn = c->kind == P4DP_BENCH_BURST_FN;
	const uint32_t koff = b->p.key_offset, kbytes = b->p.key_bytes;
	uint16_t mine[P4DP_RT_MAX_PORTS];
	uint32_t n_mine = 0;
	for (uint32_t i = c->id; i < b->np; i += b->nw)
		mine[n_mine++] = b->port[i];
	struct rte_mbuf *m[B_BURST];
	uint8_t kbuf[B_BURST][B_KEYBUF] __attribute__((aligned(16)));
	const void *kp[B_BURST];
	const struct p4dp_entry *e[B_BURST];
	memset(kbuf, 0, sizeof(kbuf)); /* padding bytes of the native keys stay zero */
	for (uint32_t j = 0; j < B_BURST; j++)
		kp[j] = kbuf[j];
	uint64_t pkts = 0, hits = 0, misses = 0, lost = 0, sink = 0;

	/* acquire pairs with the control thread's release store of stop */
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		for (uint32_t i = 0; i < n_mine; i++) {
			uint16_t n = rte_eth_rx_burst(mine[i], 0, m, B_BURST);
			if (n == 0)
				continue;
			if (l2fwd) {
				/* Touch every packet as a minimal forwarding application must: prefetch the
				 * burst's packet data, then read and write each packet's first cache line
				 * (swap the Ethernet destination and source addresses). */
				for (uint16_t j = 0; j < n; j++)
					rte_prefetch0(rte_pktmbuf_mtod(m[j], void *));
				for (uint16_t j = 0; j < n; j++) {
					uint8_t *d = rte_pktmbuf_mtod(m[j], uint8_t *);
					uint8_t t[6];
					memcpy(t, d, 6);
					memmove(d, d + 6, 6);
					memcpy(d + 6, t, 6);
				}
			}
			if (burst_fn) {
				for (uint16_t j = 0; j < n; j++)
					rte_prefetch0(rte_pktmbuf_mtod(m[j], void *));
				uint32_t h = c->fn(c->fn_arg, m, n, koff, &sink);
				hits += h;
				misses += n - h;
				/* relaxed: as the TABLE loop's statistics below */
				__atomic_store_n(&c->hits, hits, __ATOMIC_RELAXED);
				__atomic_store_n(&c->misses, misses, __ATOMIC_RELAXED);
			}
			if (table) {
				/* the burst's packet data prefetched first, as the l2fwd floor and the
				 * runtime's workers do (the keys are read from it) */
				for (uint16_t j = 0; j < n; j++)
					rte_prefetch0(rte_pktmbuf_mtod(m[j], void *));
				for (uint16_t j = 0; j < n; j++) {
					const uint8_t *d = rte_pktmbuf_mtod(m[j], const uint8_t *) + koff;
					uint64_t v = key_load_be(d, kbytes);
					memcpy(kbuf[j] + c->fld_off, &v, c->fld_size); /* native layout: little-endian */
				}
				if (single) /* one lookup per packet, as process-to-completion code does */
					for (uint16_t j = 0; j < n; j++)
						e[j] = p4dp_table_lookup(c->table, kp[j]);
				else
					p4dp_table_lookup_bulk(c->table, kp, n, e);
				for (uint16_t j = 0; j < n; j++) {
					if (e[j] != NULL) {
						hits++;
						sink += e[j]->action;
					} else {
						misses++;
					}
				}
				/* relaxed: single-writer statistics read after the lcore is joined (or as recent values) */
				__atomic_store_n(&c->hits, hits, __ATOMIC_RELAXED);
				__atomic_store_n(&c->misses, misses, __ATOMIC_RELAXED);
			}
			uint16_t sent = rte_eth_tx_burst(mine[i], q, m, n);
			if (sent < n) { /* cannot happen (rings hold every packet); counted as lost if it does */
				lost += n - sent;
				rte_pktmbuf_free_bulk(m + sent, n - sent);
				__atomic_store_n(&c->tx_lost, lost, __ATOMIC_RELAXED); /* as hits */
			}
			pkts += n;
			__atomic_store_n(&c->pkts, pkts, __ATOMIC_RELAXED); /* as hits */
		}
	}
	c->sink = sink;
	return 0;
}

/* ------------------------------------------------------------ measuring */

struct window {
	uint64_t tsc0, tsc1;
	uint64_t p0[P4DP_BENCH_MAX_WORKERS], p1[P4DP_BENCH_MAX_WORKERS];
	uint64_t h0, h1, m0, m1;
	uint64_t d_run, d0, d1, d_end; /* PROGRAM: counted losses at run start, window start and end, run end */
};

/* PROGRAM: packets the runtime has counted as lost so far (dropped by the program, no such port,
 * finish errors, software-dispatch drops, tx errors), all workers, bench port slots. */
static uint64_t rt_losses(struct p4dp_bench *b)
{
	uint64_t n = 0;
	for (uint32_t w = 0; w < b->nw; w++) {
		const struct rt_worker *wk = &b->rt->workers[w];
		n += RT_STAT_LOAD(wk->st.drops) + RT_STAT_LOAD(wk->st.dispatch_drops) + RT_STAT_LOAD(wk->st.no_port) +
		     RT_STAT_LOAD(wk->st.finish_errors) + RT_STAT_LOAD(wk->st.multiseg);
		for (uint32_t s = 0; s < b->np; s++)
			n += RT_STAT_LOAD(wk->pst[s].tx_errors);
	}
	return n;
}

static uint64_t worker_pkts(struct p4dp_bench *b, uint32_t kind, uint32_t w)
{
	if (kind == P4DP_BENCH_PROGRAM)
		return RT_STAT_LOAD(b->rt->workers[w].st.packets);
	/* relaxed: a single-writer counter; a recent value is enough for a snapshot */
	return __atomic_load_n(&b->lc[w].pkts, __ATOMIC_RELAXED);
}

static void snapshot(struct p4dp_bench *b, uint32_t kind, uint64_t *tsc, uint64_t *pk, uint64_t *h, uint64_t *m,
		     uint64_t *d)
{
	*tsc = rte_rdtsc();
	*h = *m = 0;
	*d = kind == P4DP_BENCH_PROGRAM ? rt_losses(b) : 0;
	for (uint32_t w = 0; w < b->nw; w++) {
		pk[w] = worker_pkts(b, kind, w);
		*h += __atomic_load_n(&b->lc[w].hits, __ATOMIC_RELAXED);
		*m += __atomic_load_n(&b->lc[w].misses, __ATOMIC_RELAXED);
	}
}

struct timer_arg {
	struct p4dp_bench *b;
	uint32_t kind;
	struct window *win;
	volatile int *stop_run; /* the run's stop flag */
	int abort;              /* set by the control thread if run() returned early */
};

/* Sleep @p ms in small steps; false if aborted. */
static bool timer_sleep(struct timer_arg *t, uint64_t ms)
{
	uint64_t end = rte_rdtsc() + ms * rte_get_tsc_hz() / 1000;
	/* acquire: pairs with the release store that aborts the loop */
	while (!__atomic_load_n(&t->abort, __ATOMIC_ACQUIRE)) {
		uint64_t now = rte_rdtsc();
		if (now >= end || (t->b->done != NULL && t->b->done(t->b->done_arg)))
			return true;
		uint64_t left_ms = (end - now) * 1000 / rte_get_tsc_hz();
		sleep_ms(left_ms > 10 ? 10 : (left_ms ? left_ms : 1));
	}
	return false;
}

/* Wait until every worker of the run has gone once around its loop; false if aborted. A warm-up
 * starts then, not when the run was called: starting a run (ports, the mbuf pool the first run
 * creates, lcore launch) takes tens to hundreds of milliseconds, which would otherwise eat a short
 * warm-up and leave the window with a worker that had not started. Without a warm-up the window
 * starts with the call, so it holds a finite source's whole schedule (p4dp_bench_set_done). */
static bool timer_wait_running(struct timer_arg *t)
{
	struct p4dp_bench *b = t->b;
	uint64_t l0[P4DP_BENCH_MAX_WORKERS];
	for (uint32_t w = 0; w < b->nw; w++)
		l0[w] = RT_STAT_LOAD(b->rt->workers[w].loops);
	for (;;) {
		/* acquire: as above */
		if (__atomic_load_n(&t->abort, __ATOMIC_ACQUIRE))
			return false;
		uint32_t running = 0;
		for (uint32_t w = 0; w < b->nw; w++)
			running += RT_STAT_LOAD(b->rt->workers[w].loops) != l0[w];
		if (running == b->nw)
			return true;
		sleep_ms(1);
	}
}

static void *timer_main(void *arg)
{
	struct timer_arg *t = arg;
	struct window *win = t->win;
	if ((t->b->p.warmup_ms == 0 || timer_wait_running(t)) && timer_sleep(t, t->b->p.warmup_ms)) {
		snapshot(t->b, t->kind, &win->tsc0, win->p0, &win->h0, &win->m0, &win->d0);
		timer_sleep(t, t->b->p.duration_ms);
		snapshot(t->b, t->kind, &win->tsc1, win->p1, &win->h1, &win->m1, &win->d1);
	}
	__atomic_store_n(t->stop_run, 1, __ATOMIC_RELEASE); /* read by p4dp_runtime_run's loop */
	return NULL;
}

static int table_check(struct p4dp_bench *b, uint32_t table, struct bench_lcore *tmpl)
{
	const struct p4dp_program *prog = b->rt->prog;
	if (table >= prog->n_tables)
		return rt_errc(-EINVAL, "bench: no table %u", table);
	const struct p4dp_table_info *ti = &prog->tables[table];
	if (b->p.key_bytes == 0)
		return rt_errc(-EINVAL, "bench: table baseline needs packets with a key field");
	if (ti->n_keys != 1 || (ti->keys[0].match_kind != P4DP_MATCH_EXACT && ti->keys[0].match_kind != P4DP_MATCH_LPM) ||
	    ti->keys[0].bitwidth > 64)
		return rt_errc(-EINVAL, "bench: table %s must have one exact or lpm key field of at most 64 bits",
			       ti->name);
	const struct p4dp_key_info *k = &ti->keys[0];
	if ((k->bitwidth + 7) / 8 != b->p.key_bytes)
		return rt_errc(-EINVAL, "bench: table %s's key %s has %u bits but packets carry %u-byte keys", ti->name,
			       k->name, k->bitwidth, b->p.key_bytes);
	if (ti->key_len > B_KEYBUF || (uint32_t)k->offset + k->size > ti->key_len || k->size > 8)
		return rt_errc(-EINVAL, "bench: table %s: unsupported key layout", ti->name);
	if (b->p.key_bytes < 8 && !b->keys_listed && (b->p.key_base + b->p.n_keys - 1) >> k->bitwidth != 0)
		return rt_errc(-EINVAL, "bench: keys do not fit the %u-bit key of table %s", k->bitwidth, ti->name);
	tmpl->table = b->rt->tables[table];
	tmpl->key_len = ti->key_len;
	tmpl->fld_off = k->offset;
	tmpl->fld_size = k->size;
	return 0;
}

static int run_loops(struct p4dp_bench *b, uint32_t kind, const struct bench_lcore *tmpl, struct window *win)
{
	int rc = ports_configure(b);
	if (rc != 0) {
		ports_stop_all(b);
		return rc;
	}
	/* release: before the lcores are launched, which load it with acquire */
	__atomic_store_n(&b->stop, 0, __ATOMIC_RELEASE);
	uint32_t launched = 0;
	unsigned lc;
	RTE_LCORE_FOREACH_WORKER(lc)
	{
		if (launched == b->nw)
			break;
		struct bench_lcore *c = &b->lc[launched];
		*c = *tmpl;
		c->b = b;
		c->id = launched;
		c->kind = kind;
		if (rte_eal_remote_launch(loop_main, c, lc) != 0) {
			rc = rt_errc(-EBUSY, "bench: lcore %u is busy", lc);
			break;
		}
		b->lcore_id[launched++] = lc;
	}
	if (rc == 0) {
		sleep_ms(b->p.warmup_ms);
		snapshot(b, kind, &win->tsc0, win->p0, &win->h0, &win->m0, &win->d0);
		sleep_ms(b->p.duration_ms);
		snapshot(b, kind, &win->tsc1, win->p1, &win->h1, &win->m1, &win->d1);
	}
	/* release: the loops finish their current burst and return */
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < launched; i++)
		rte_eal_wait_lcore(b->lcore_id[i]);
	ports_stop_all(b);
	return rc;
}

static int run_program(struct p4dp_bench *b, struct window *win)
{
	int rc = ports_attach(b);
	if (rc != 0)
		return rc;
	volatile int stop_run = 0;
	struct timer_arg t = {.b = b, .kind = P4DP_BENCH_PROGRAM, .win = win, .stop_run = &stop_run};
	pthread_t th;
	if (pthread_create(&th, NULL, timer_main, &t) != 0) {
		ports_detach(b);
		return rt_errc(-ENOMEM, "bench: cannot start the timer thread");
	}
	struct p4dp_run_params rp = {.n_workers = b->nw,
				     .n_background = b->n_bg,
				     .stop = (volatile int *)&stop_run,
				     .dispatch = b->p.dispatch};
	win->d_run = rt_losses(b);
	rc = p4dp_runtime_run(b->rt, &rp);
	win->d_end = rt_losses(b);
	/* release pairs with the timer's acquire: it stops waiting if run() returned early */
	__atomic_store_n(&t.abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ports_detach(b);
	return rc;
}

static int measure(struct p4dp_bench *b, uint32_t kind, const struct bench_lcore *tmpl,
		   struct p4dp_bench_result *res);

int p4dp_bench_measure(struct p4dp_bench *b, enum p4dp_bench_kind kind, uint32_t table, struct p4dp_bench_result *res)
{
	if (b == NULL || res == NULL)
		return rt_errc(-EINVAL, "bench: NULL argument");
	if (kind != P4DP_BENCH_FLOOR && kind != P4DP_BENCH_TABLE && kind != P4DP_BENCH_PROGRAM &&
	    kind != P4DP_BENCH_TABLE_SINGLE && kind != P4DP_BENCH_L2FWD)
		return rt_errc(-EINVAL, "bench: unknown measurement kind %d", (int)kind);
	struct bench_lcore tmpl;
	memset(&tmpl, 0, sizeof(tmpl));
	int rc = 0;
	if ((kind == P4DP_BENCH_TABLE || kind == P4DP_BENCH_TABLE_SINGLE) && (rc = table_check(b, table, &tmpl)) != 0)
		return rc;
	return measure(b, kind, &tmpl, res);
}

int p4dp_bench_measure_fn(struct p4dp_bench *b, p4dp_bench_burst_fn fn, void *arg, struct p4dp_bench_result *res)
{
	if (b == NULL || res == NULL || fn == NULL)
		return rt_errc(-EINVAL, "bench: NULL argument");
	struct bench_lcore tmpl;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.fn = fn;
	tmpl.fn_arg = arg;
	return measure(b, P4DP_BENCH_BURST_FN, &tmpl, res);
}

int p4dp_bench_keys_set(struct p4dp_bench *b, const uint64_t *keys, uint64_t n)
{
	if (b == NULL || keys == NULL || b->p.key_bytes == 0 || n == 0 || n > B_MAX_KEYS)
		return rt_errc(-EINVAL, "bench: keys_set needs a bench with a key field and 1..%u keys", B_MAX_KEYS);
	for (uint64_t i = 0; i < n; i++)
		if (b->p.key_bytes < 8 && keys[i] >> (8 * b->p.key_bytes) != 0)
			return rt_errc(-EINVAL, "bench: key %#" PRIx64 " does not fit %u bytes", keys[i], b->p.key_bytes);
	uint32_t *perm = perm_new((uint32_t)n, b->p.seed);
	if (perm == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	for (uint32_t j = 0; j < b->p.n_pkts; j++)
		b->keys[j] = keys[perm[j % n]];
	free(perm);
	b->keys_listed = true;
	return 0;
}

static int measure(struct p4dp_bench *b, uint32_t kind, const struct bench_lcore *tmpl,
		   struct p4dp_bench_result *res)
{
	if (rte_lcore_id() != rte_get_main_lcore())
		return rt_errc(-EPERM, "bench: must be called on the EAL main lcore");
	if (b->broken)
		return rt_errc(-EIO, "bench: packets were lost in an earlier measurement; create a new bench");
	int rc;
	memset(res, 0, sizeof(*res));
	memset(b->lc, 0, sizeof(b->lc));
	rc = packets_load(b);
	if (rc != 0)
		return rc;
	struct window win;
	memset(&win, 0, sizeof(win));
	rc = kind == P4DP_BENCH_PROGRAM ? run_program(b, &win) : run_loops(b, kind, tmpl, &win);
	uint64_t found = packets_drain(b);
	if (rc != 0)
		return rc;
	res->kind = kind;
	res->n_workers = b->nw;
	res->tsc_hz = rte_get_tsc_hz();
	res->window_cycles = win.tsc1 - win.tsc0;
	res->lost = found < b->p.n_pkts ? b->p.n_pkts - found : 0;
	res->hits = win.h1 - win.h0;
	res->misses = win.m1 - win.m0;
	double secs = (double)res->window_cycles / (double)res->tsc_hz;
	for (uint32_t w = 0; w < b->nw; w++) {
		uint64_t pk = win.p1[w] - win.p0[w];
		res->w[w].packets = pk;
		res->w[w].mpps = secs > 0 ? (double)pk / secs / 1e6 : 0;
		res->w[w].cycles_per_pkt = pk ? (double)res->window_cycles / (double)pk : 0;
		res->packets += pk;
		res->packets_before_window += win.p0[w];
	}
	res->mpps = secs > 0 ? (double)res->packets / secs / 1e6 : 0;
	res->cycles_per_pkt = res->packets ? (double)b->nw * (double)res->window_cycles / (double)res->packets : 0;
	if (res->lost > 0)
		b->broken = true; /* packets are missing: the next measurement would have fewer */
	bool after_only = false;
	if (kind == P4DP_BENCH_PROGRAM) {
		res->lost_before_window = win.d0 - win.d_run;
		res->lost_in_window = win.d1 - win.d0;
		res->lost_after_window = win.d_end - win.d1;
		/* Losses the runtime counted outside the window (e.g. packets still in a software
		 * dispatch ring when the workers stop) do not affect the window's figures: the
		 * measurement stands (res->lost and the counters say how many are missing and when) if
		 * nothing was lost inside the window and counted losses account for every missing
		 * packet. Uncounted losses always fail the measurement. */
		after_only = res->lost_in_window == 0 &&
			     res->lost_before_window + res->lost_after_window >= res->lost;
	}
	if (res->lost > 0 && !after_only)
		return rt_errc(-EIO,
			       "bench: %" PRIu64 " of %u packets were lost (the program dropped them or sent them to a "
			       "port other than the bench ports 0..%u; runtime-counted losses: %" PRIu64 " in the warm-up, %" PRIu64
			       " in the window, %" PRIu64 " after it)",
			       res->lost, b->p.n_pkts, b->np - 1, res->lost_before_window, res->lost_in_window,
			       res->lost_after_window);
	/* -EAGAIN only if no packet is missing (all are back in the rings): the loops did not run
	 * in the window (the machine descheduled them) and a caller may measure again. With packets
	 * missing (e.g. the program dropped them all in the warm-up) the bench is broken: -EIO. */
	const int empty_rc = res->lost > 0 ? -EIO : -EAGAIN;
	if (res->packets == 0 && res->lost > 0)
		return rt_errc(-EIO,
			       "bench: no packet was processed in the measurement window: %" PRIu64 " of %u packets were "
			       "lost before it (the program dropped them or sent them to a port other than the bench ports "
			       "0..%u; runtime-counted losses in the warm-up: %" PRIu64 ")",
			       res->lost, b->p.n_pkts, b->np - 1, res->lost_before_window);
	if (res->window_cycles == 0 || res->packets == 0)
		return rt_errc(empty_rc,
			       "bench: no packet was processed in the measurement window (%" PRIu64
			       " TSC cycles; worker 0 had processed %" PRIu64 " packets at its start, %" PRIu64
			       " at its end)",
			       res->window_cycles, win.p0[0], win.p1[0]);
	for (uint32_t w = 0; w < b->nw; w++)
		if (res->w[w].packets == 0)
			return rt_errc(empty_rc, "bench: worker %u processed no packet in the measurement window", w);
	return 0;
}

/* ------------------------------------------------------------ table fill */

/* Table @p table for a fill: one exact (or, with @p lpm_ok, lpm) key field of at most 64 bits. */
static const struct p4dp_table_info *fill_table(struct p4dp_runtime *rt, uint32_t table, bool lpm_ok)
{
	if (rt == NULL) {
		rt_errc(-EINVAL, "bench: NULL runtime");
		return NULL;
	}
	const struct p4dp_program *prog = rt->prog;
	if (table >= prog->n_tables) {
		rt_errc(-EINVAL, "bench: no table %u", table);
		return NULL;
	}
	const struct p4dp_table_info *ti = &prog->tables[table];
	uint8_t mk = ti->n_keys == 1 ? ti->keys[0].match_kind : 0xff;
	if ((mk != P4DP_MATCH_EXACT && !(lpm_ok && mk == P4DP_MATCH_LPM)) || ti->keys[0].bitwidth > 64) {
		rt_errc(-EINVAL, "bench: table %s must have one exact%s key field of at most 64 bits", ti->name,
			lpm_ok ? " or lpm" : "");
		return NULL;
	}
	return ti;
}

/* Add one entry: key @p key (prefix length @p plen for an lpm field). */
static int fill_one(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_table_info *ti, uint64_t key,
		    uint32_t plen, uint32_t action, uint32_t n_params, const struct p4dp_rt_param *params)
{
	uint32_t nb = (ti->keys[0].bitwidth + 7) / 8;
	uint8_t kb[8];
	key_store_be(kb, nb, key);
	struct p4dp_rt_key k = {.type = ti->keys[0].match_kind, .prefix_len = plen, .value = kb, .value_len = nb};
	struct p4dp_rt_entry e = {
		.n_keys = 1, .keys = &k, .priority = 0, .action = action, .n_params = n_params, .params = params};
	return p4dp_runtime_table_entry_add(rt, table, &e);
}

int64_t p4dp_bench_table_fill(struct p4dp_runtime *rt, uint32_t table, uint64_t key_base, uint64_t n,
			      uint32_t action, uint32_t n_params, const struct p4dp_rt_param *params)
{
	const struct p4dp_table_info *ti = fill_table(rt, table, false);
	if (ti == NULL)
		return -EINVAL;
	uint32_t w = ti->keys[0].bitwidth;
	if (n == 0)
		return 0;
	uint64_t last = key_base + n - 1;
	if (last < key_base || (w < 64 && last >> w != 0))
		return rt_errc(-EINVAL, "bench: keys %#" PRIx64 "..%#" PRIx64 " do not fit the %u-bit key of table %s",
			       key_base, last, w, ti->name);
	for (uint64_t i = 0; i < n; i++) {
		int rc = fill_one(rt, table, ti, key_base + i, w, action, n_params, params);
		if (rc < 0)
			return rc;
	}
	return (int64_t)n;
}

int64_t p4dp_bench_table_fill_list(struct p4dp_runtime *rt, uint32_t table, const uint64_t *keys,
				   const uint8_t *lens, uint64_t n, uint32_t action, uint32_t n_params,
				   const struct p4dp_rt_param *params)
{
	const struct p4dp_table_info *ti = fill_table(rt, table, true);
	if (ti == NULL)
		return -EINVAL;
	if (n > 0 && keys == NULL)
		return rt_errc(-EINVAL, "bench: NULL keys");
	uint32_t w = ti->keys[0].bitwidth;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t plen = lens ? lens[i] : w;
		if ((w < 64 && keys[i] >> w != 0) || plen > w ||
		    (plen > 0 && plen < 64 && (keys[i] & ((1ull << (w - plen)) - 1)) != 0) ||
		    (plen == 0 && keys[i] != 0))
			return rt_errc(-EINVAL, "bench: entry %" PRIu64 ": key %#" PRIx64 "/%u does not fit the %u-bit key of %s",
				       i, keys[i], plen, w, ti->name);
		if (lens != NULL && ti->keys[0].match_kind != P4DP_MATCH_LPM && plen != w)
			return rt_errc(-EINVAL, "bench: entry %" PRIu64 ": a prefix length for exact table %s", i, ti->name);
		int rc = fill_one(rt, table, ti, keys[i], plen, action, n_params, params);
		if (rc < 0)
			return rc;
	}
	return (int64_t)n;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Extern state and its two faces: the worker services of abi.h (meters, digests, PRE lookups,
 * log_msg, assert) and the control API of rt.h (counters, registers, meters, digests, multicast,
 * clone sessions).
 *
 * Memory: indexed and direct counters are per-worker arrays (summed on read); registers and meters
 * are shared; digests are per-worker single-producer single-consumer rings; the run-to-completion
 * Counter, Lock and Queue (rtc.h) are one object each, shared by every worker and the background thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "p4dp/rcu.h"
#include "p4dp/rtc.h"
#include "rt_internal.h"

/* ------------------------------------------------------------ creation */

uint32_t rt_ext_cells(const struct p4dp_runtime *rt, uint32_t x)
{
	const struct p4dp_extern_info *xi = &rt->prog->externs[x];
	uint32_t n = xi->n_cells;
	/* a direct resource has a cell per entry slot and, after them, the default entry's */
	if ((xi->kind == P4DP_EXT_DIRECT_COUNTER || xi->kind == P4DP_EXT_DIRECT_METER) && xi->table >= 0 &&
	    rt_direct_default_cell(rt, (uint32_t)xi->table) + 1 > n)
		n = rt_direct_default_cell(rt, (uint32_t)xi->table) + 1;
	return n;
}

uint32_t rt_direct_default_cell(const struct p4dp_runtime *rt, uint32_t table)
{
	return rt->capacity[table];
}

static bool ext_per_worker(uint8_t kind)
{
	return kind == P4DP_EXT_COUNTER || kind == P4DP_EXT_DIRECT_COUNTER || kind == P4DP_EXT_DIGEST;
}

/* A run-to-completion extern could not be created: its name in front of the creator's message
 * (copied first: both live in the thread's one error buffer). */
static int rtc_create_failed(const struct p4dp_extern_info *xi)
{
	char msg[256];
	snprintf(msg, sizeof(msg), "%s", p4dp_runtime_error_get(NULL));
	return rt_errc(-EINVAL, "extern '%s': %s", xi->name, msg);
}

int rt_externs_create(struct p4dp_runtime *rt)
{
	const struct p4dp_program *p = rt->prog;
	for (uint32_t x = 0; x < p->n_externs; x++) {
		const struct p4dp_extern_info *xi = &p->externs[x];
		uint32_t n = rt_ext_cells(rt, x);
		void *shared = NULL;
		switch (xi->kind) {
		case P4DP_EXT_COUNTER:
		case P4DP_EXT_DIRECT_COUNTER:
			for (uint32_t w = 0; w < rt->max_workers; w++) {
				rt->ext[w][x] = rte_zmalloc_socket("p4dp_counter",
								   sizeof(struct p4dp_counter_cell) * (n ? n : 1), 64,
								   rt->socket_id);
				if (rt->ext[w][x] == NULL)
					return rt_errc(-ENOMEM, "extern '%s': out of memory", xi->name);
			}
			break;
		case P4DP_EXT_DIGEST: {
			uint32_t slot = xi->bitwidth ? xi->bitwidth : 1;
			for (uint32_t w = 0; w < rt->max_workers; w++) {
				struct rt_digest_q *q = rte_zmalloc_socket(
					"p4dp_digest", sizeof(*q) + (size_t)slot * rt->digest_qlen, 64, rt->socket_id);
				if (q == NULL)
					return rt_errc(-ENOMEM, "extern '%s': out of memory", xi->name);
				q->mask = rt->digest_qlen - 1;
				q->slot_len = slot;
				rt->ext[w][x] = q;
			}
			break;
		}
		case P4DP_EXT_REGISTER:
			shared = rte_zmalloc_socket("p4dp_register", (size_t)xi->cell_size * (n ? n : 1), 64,
						    rt->socket_id);
			if (shared == NULL)
				return rt_errc(-ENOMEM, "extern '%s': out of memory", xi->name);
			break;
		case P4DP_EXT_METER:
		case P4DP_EXT_DIRECT_METER: {
			struct rt_meter_set *ms = rte_zmalloc_socket(
				"p4dp_meter", sizeof(*ms) + sizeof(struct rt_meter_cell) * (n ? n : 1), 64, rt->socket_id);
			if (ms == NULL)
				return rt_errc(-ENOMEM, "extern '%s': out of memory", xi->name);
			if (xi->meter_type > P4DP_METER_SINGLE_RATE_TWO_COLOR) {
				rte_free(ms);
				return rt_errc(-EINVAL, "meter '%s' has unknown type %u", xi->name, xi->meter_type);
			}
			ms->n_cells = n;
			ms->unit = xi->unit;
			ms->stride = ((n ? n : 1) + 3u) & ~3u;
			ms->counts = rte_zmalloc_socket("p4dp_meter_counts",
							sizeof(struct rt_meter_counts) * ms->stride * rt->max_workers,
							64, rt->socket_id);
			if (ms->counts == NULL) {
				rte_free(ms);
				return rt_errc(-ENOMEM, "extern '%s': out of memory", xi->name);
			}
			shared = ms;
			break;
		}
		case P4DP_EXT_RTC_COUNTER:
			shared = p4dp_rtc_counter_create(n, rt->socket_id);
			if (shared == NULL)
				return rtc_create_failed(xi);
			break;
		case P4DP_EXT_RTC_LOCK:
			shared = p4dp_rtc_lock_create(n, rt->socket_id);
			if (shared == NULL)
				return rtc_create_failed(xi);
			break;
		case P4DP_EXT_RTC_QUEUE:
			shared = p4dp_rtc_queue_create(n, xi->cell_size, rt->socket_id);
			if (shared == NULL)
				return rtc_create_failed(xi);
			break;
		default:
			break;
		}
		if (shared)
			for (uint32_t w = 0; w < rt->max_workers; w++)
				rt->ext[w][x] = shared;
	}
	return 0;
}

void rt_externs_free(struct p4dp_runtime *rt)
{
	if (rt->ext == NULL || rt->prog == NULL)
		return;
	for (uint32_t x = 0; x < rt->prog->n_externs; x++) {
		uint8_t kind = rt->prog->externs[x].kind;
		if (ext_per_worker(kind)) {
			for (uint32_t w = 0; w < rt->max_workers; w++)
				if (rt->ext[w]) {
					rte_free(rt->ext[w][x]);
					rt->ext[w][x] = NULL;
				}
			continue;
		}
		if (rt->ext[0] == NULL)
			continue;
		if (kind == P4DP_EXT_METER || kind == P4DP_EXT_DIRECT_METER) {
			struct rt_meter_set *ms = rt->ext[0][x];
			for (uint32_t i = 0; ms && i < ms->n_cells; i++)
				rte_free(ms->cells[i].cfg);
			if (ms)
				rte_free(ms->counts);
		}
		if (kind == P4DP_EXT_RTC_QUEUE)
			p4dp_rtc_queue_free(rt->ext[0][x]);
		else if (kind == P4DP_EXT_RTC_COUNTER)
			p4dp_rtc_counter_free(rt->ext[0][x]); /* a large one is a mapping of its own */
		else
			rte_free(rt->ext[0][x]); /* the rtc Lock is one rte_malloc block */
		for (uint32_t w = 0; w < rt->max_workers; w++)
			if (rt->ext[w])
				rt->ext[w][x] = NULL;
	}
}

static int check_ext(struct p4dp_runtime *rt, uint32_t x, uint8_t k1, uint8_t k2, const char *what)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "NULL runtime");
	if (x >= rt->prog->n_externs)
		return rt_errc(-EINVAL, "extern index %u out of range (program has %u externs)", x, rt->prog->n_externs);
	uint8_t k = rt->prog->externs[x].kind;
	if (k != k1 && k != k2)
		return rt_errc(-EINVAL, "extern '%s' is not a %s", rt->prog->externs[x].name, what);
	return 0;
}

static int check_index(struct p4dp_runtime *rt, uint32_t x, uint32_t index)
{
	uint32_t n = rt_ext_cells(rt, x);
	if (index >= n)
		return rt_errc(-EINVAL, "extern '%s': index %u out of range (%u cells)", rt->prog->externs[x].name,
			       index, n);
	return 0;
}

/* ------------------------------------------------------------ counters */

int p4dp_runtime_counter_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, struct p4dp_counter_cell *out)
{
	int rc = check_ext(rt, ext, P4DP_EXT_COUNTER, P4DP_EXT_DIRECT_COUNTER, "counter");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	if (out == NULL)
		return rt_errc(-EINVAL, "NULL output");
	out->packets = out->bytes = 0;
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		struct p4dp_counter_cell *c = (struct p4dp_counter_cell *)rt->ext[w][ext] + index;
		/* relaxed: a recent untorn value is all a reader needs (the worker is the only writer) */
		out->packets += __atomic_load_n(&c->packets, __ATOMIC_RELAXED);
		out->bytes += __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
	}
	return 0;
}

int p4dp_runtime_counter_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
			       const struct p4dp_counter_cell *v)
{
	int rc = check_ext(rt, ext, P4DP_EXT_COUNTER, P4DP_EXT_DIRECT_COUNTER, "counter");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	if (v == NULL)
		return rt_errc(-EINVAL, "NULL value");
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		struct p4dp_counter_cell *c = (struct p4dp_counter_cell *)rt->ext[w][ext] + index;
		/* relaxed: untorn stores; a worker's concurrent increment may be lost (documented in rt.h) */
		__atomic_store_n(&c->packets, w == 0 ? v->packets : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->bytes, w == 0 ? v->bytes : 0, __ATOMIC_RELAXED);
	}
	return 0;
}

int p4dp_runtime_counter_reset(struct p4dp_runtime *rt, uint32_t ext)
{
	int rc = check_ext(rt, ext, P4DP_EXT_COUNTER, P4DP_EXT_DIRECT_COUNTER, "counter");
	if (rc)
		return rc;
	uint32_t n = rt_ext_cells(rt, ext);
	for (uint32_t w = 0; w < rt->max_workers; w++)
		memset(rt->ext[w][ext], 0, sizeof(struct p4dp_counter_cell) * n);
	return 0;
}

/* ------------------------------------------------------------ registers */

int p4dp_runtime_register_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint8_t *out,
			       uint32_t out_len)
{
	int rc = check_ext(rt, ext, P4DP_EXT_REGISTER, P4DP_EXT_REGISTER, "register");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	const struct p4dp_extern_info *xi = &rt->prog->externs[ext];
	uint32_t nb = (xi->bitwidth + 7) / 8;
	if (out == NULL || out_len < nb)
		return rt_errc(-ENOSPC, "register '%s': output buffer needs %u bytes", xi->name, nb);
	const uint8_t *cell = (const uint8_t *)rt->ext[0][ext] + (size_t)index * xi->cell_size;
	rt_native_to_be(xi->bitwidth, xi->cell_size, cell, out);
	return (int)nb;
}

int p4dp_runtime_register_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, const uint8_t *value,
				uint32_t len)
{
	int rc = check_ext(rt, ext, P4DP_EXT_REGISTER, P4DP_EXT_REGISTER, "register");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	const struct p4dp_extern_info *xi = &rt->prog->externs[ext];
	uint8_t *tmp = malloc(xi->cell_size);
	if (tmp == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	char what[256];
	snprintf(what, sizeof(what), "register '%s'", xi->name);
	rc = rt_be_to_native(what, xi->bitwidth, xi->cell_size, value, len, tmp);
	if (rc == 0)
		memcpy((uint8_t *)rt->ext[0][ext] + (size_t)index * xi->cell_size, tmp, xi->cell_size);
	free(tmp);
	return rc;
}

int p4dp_runtime_register_reset(struct p4dp_runtime *rt, uint32_t ext)
{
	int rc = check_ext(rt, ext, P4DP_EXT_REGISTER, P4DP_EXT_REGISTER, "register");
	if (rc)
		return rc;
	const struct p4dp_extern_info *xi = &rt->prog->externs[ext];
	memset(rt->ext[0][ext], 0, (size_t)xi->cell_size * rt_ext_cells(rt, ext));
	return 0;
}

/* ------------------------------------------------------------ meters */

/* Nanoseconds to earn @p units at @p rate units/s, rounded up; saturates at UINT64_MAX. */
static uint64_t units_ns(uint64_t units, uint64_t rate)
{
	unsigned __int128 v = ((unsigned __int128)units * 1000000000u + rate - 1) / rate;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Token buckets, each one word on its own clock. A bucket of rate > 0 runs on the nanosecond
 * clock: its word is the time at which it is full again ("theoretical arrival time": tokens(now)
 * = depth - (state - now) * rate, full when state <= now) and a packet costs the time to earn its
 * units. A bucket of rate 0 is never refilled: its clock stands at 0, its word is the units used
 * so far and a packet costs its units. Either way the bucket has room for a packet iff
 * max(state, now) + cost - now <= depth, the depth being the bucket's size on its clock.
 * The words are updated by relaxed CAS: each is self-contained and publishes nothing else.
 */
static inline uint64_t bucket_clock(uint64_t rate, uint64_t now)
{
	return rate ? now : 0;
}

/* @p units on the clock of a bucket of rate @p rate (its depth, or a packet's cost). */
static inline uint64_t bucket_span(uint64_t units, uint64_t rate)
{
	return rate ? units_ns(units, rate) : units;
}

/* Take a packet of @p cost from the bucket @p state of depth @p depth at @p now; 1 if it conforms. */
static int bucket_take(uint64_t *state, uint64_t depth, uint64_t cost, uint64_t now)
{
	/* relaxed: the CAS loop re-checks the value; the word orders nothing else (see above) */
	uint64_t cur = __atomic_load_n(state, __ATOMIC_RELAXED), next;
	do {
		uint64_t base = cur > now ? cur : now;
		next = sat_add(base, cost);
		if (next - now > depth)
			return 0;
	} while (!__atomic_compare_exchange_n(state, &cur, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

/* Take @p cost from the bucket @p state without a depth check (the caller knows it has room). */
static void bucket_charge(uint64_t *state, uint64_t cost, uint64_t now)
{
	/* relaxed: as bucket_take */
	uint64_t cur = __atomic_load_n(state, __ATOMIC_RELAXED), next;
	do {
		uint64_t base = cur > now ? cur : now;
		next = sat_add(base, cost);
	} while (!__atomic_compare_exchange_n(state, &cur, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/*
 * Single-rate three-colour (RFC 2697): the excess bucket E of depth EBS is kept as the difference
 * of two buckets of rate CIR, the committed bucket C (depth CBS, @p c_state) and the bucket T of
 * C's and E's tokens together (@p t_state). RFC 2697 adds tokens to C while C is not full and
 * then to E: while C is not full, C and T grow alike and E keeps its tokens; once C is full only T
 * grows, and E with it. On the buckets' clock E lacks max(T, now) - max(C, now) of its depth. A
 * GREEN packet takes its tokens from C and T (bucket_take on C, bucket_charge on T: T holds C's
 * tokens), a YELLOW one from T only. Take @p cost from E if it has room; 1 if it had.
 */
static int excess_take(uint64_t *t_state, const uint64_t *c_state, uint64_t depth, uint64_t cost, uint64_t now)
{
	/* relaxed: as bucket_take; a C read while another packet takes from it is off by that packet */
	uint64_t c = __atomic_load_n(c_state, __ATOMIC_RELAXED);
	uint64_t c_full = c > now ? c : now;
	uint64_t cur = __atomic_load_n(t_state, __ATOMIC_RELAXED), next;
	do {
		uint64_t base = cur > now ? cur : now;
		next = sat_add(base, cost);
		if (next > c_full && next - c_full > depth)
			return 0;
	} while (!__atomic_compare_exchange_n(t_state, &cur, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

/* The colour of @p n units at @p now on cell @p c (GREEN when unconfigured). */
static uint32_t meter_colour(struct rt_meter_cell *c, uint64_t n, uint64_t now)
{
	/* acquire pairs with the control thread's release store of a fully built config */
	const struct rt_meter_cfg *cfg = __atomic_load_n(&c->cfg, __ATOMIC_ACQUIRE);
	if (cfg == NULL)
		return P4DP_GREEN;
	uint64_t c_now = bucket_clock(cfg->c.cir, now), c_cost = bucket_span(n, cfg->c.cir);
	switch (cfg->type) {
	case P4DP_METER_SINGLE_RATE_TWO_COLOR:
		return bucket_take(&c->c_state, cfg->cburst_ns, c_cost, c_now) ? P4DP_GREEN : P4DP_RED;
	case P4DP_METER_SINGLE_RATE_THREE_COLOR:
		if (bucket_take(&c->c_state, cfg->cburst_ns, c_cost, c_now)) {
			bucket_charge(&c->p_state, c_cost, c_now);
			return P4DP_GREEN;
		}
		return excess_take(&c->p_state, &c->c_state, cfg->eburst_ns, c_cost, c_now) ? P4DP_YELLOW : P4DP_RED;
	default: /* two-rate three-colour (RFC 2698) */
		if (!bucket_take(&c->p_state, cfg->pburst_ns, bucket_span(n, cfg->c.pir),
				 bucket_clock(cfg->c.pir, now)))
			return P4DP_RED;
		if (!bucket_take(&c->c_state, cfg->cburst_ns, c_cost, c_now))
			return P4DP_YELLOW;
		return P4DP_GREEN;
	}
}

uint32_t p4dp_meter_execute(struct p4dp_ctx *ctx, uint32_t ext, uint32_t index, uint32_t bytes)
{
	struct rt_meter_set *ms = ctx->ext[ext];
	if (ms == NULL || index >= ms->n_cells)
		return P4DP_GREEN;
	uint32_t colour = meter_colour(&ms->cells[index], ms->unit == P4DP_UNIT_PACKETS ? 1 : bytes, ctx->now_ns);
	/* this worker's counts of the cell: it is their only writer */
	struct rt_meter_counts *k = &ms->counts[(size_t)ctx->worker_id * ms->stride + index];
	RT_STAT_ADD(k->packets[colour], 1);
	RT_STAT_ADD(k->bytes[colour], bytes);
	return colour;
}

/* Publish @p cfg (may be NULL) of type @p type on cell @p index of meter set @p ms; caller holds
 * rt->lock. */
static int meter_publish(struct p4dp_runtime *rt, struct rt_meter_set *ms, uint32_t index, uint8_t type,
			 const struct p4dp_meter_config *cfg)
{
	struct rt_meter_cfg *n = NULL;
	if (cfg != NULL) {
		n = rte_zmalloc_socket("p4dp_meter_cfg", sizeof(*n), 16, rt->socket_id);
		if (n == NULL)
			return rt_errc(-ENOMEM, "out of memory");
		n->c = *cfg;
		n->type = type;
		n->cburst_ns = bucket_span(cfg->cburst, cfg->cir);
		n->pburst_ns = bucket_span(cfg->pburst, cfg->pir);
		n->eburst_ns = bucket_span(cfg->eburst, cfg->cir);
	}
	struct rt_meter_cell *c = &ms->cells[index];
	/* All buckets start full (state 0 = full for rate > 0, nothing used for rate 0). A packet
	 * metered concurrently with the old configuration may still update them: harmless. */
	__atomic_store_n(&c->p_state, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->c_state, 0, __ATOMIC_RELAXED);
	/* release: the config's fields are visible before the pointer (acquire in meter_execute) */
	struct rt_meter_cfg *old = __atomic_exchange_n(&c->cfg, n, __ATOMIC_ACQ_REL);
	if (old != NULL && p4dp_rcu_defer_free(rt->rcu, old) != 0) {
		p4dp_rcu_synchronize(rt->rcu);
		rte_free(old);
	}
	return 0;
}

int rt_meter_cfg_check(const struct p4dp_runtime *rt, uint32_t ext, const struct p4dp_meter_config *cfg)
{
	if (cfg == NULL)
		return 0;
	const struct p4dp_extern_info *xi = &rt->prog->externs[ext];
	switch (xi->meter_type) {
	case P4DP_METER_TWO_RATE_THREE_COLOR:
		if (cfg->pir < cfg->cir)
			return rt_errc(-EINVAL, "meter '%s': pir (%" PRIu64 ") < cir (%" PRIu64 ")", xi->name, cfg->pir,
				       cfg->cir);
		if (cfg->eburst != 0)
			return rt_errc(-EINVAL,
				       "meter '%s' is two-rate three-color: its configurations have eburst 0, not %" PRIu64,
				       xi->name, cfg->eburst);
		return 0;
	case P4DP_METER_SINGLE_RATE_THREE_COLOR:
	case P4DP_METER_SINGLE_RATE_TWO_COLOR:
		if (cfg->pir != cfg->cir || cfg->pburst != cfg->cburst)
			return rt_errc(-EINVAL,
				       "meter '%s' is single-rate: its configurations have cir == pir and cburst == pburst "
				       "(cir %" PRIu64 ", pir %" PRIu64 ", cburst %" PRIu64 ", pburst %" PRIu64 ")",
				       xi->name, cfg->cir, cfg->pir, cfg->cburst, cfg->pburst);
		if (xi->meter_type == P4DP_METER_SINGLE_RATE_TWO_COLOR && cfg->eburst != 0)
			return rt_errc(-EINVAL,
				       "meter '%s' is single-rate two-color: its configurations have eburst 0, not %" PRIu64,
				       xi->name, cfg->eburst);
		return 0;
	default:
		return rt_errc(-EINVAL, "meter '%s' has unknown type %u", xi->name, xi->meter_type);
	}
}

int p4dp_runtime_meter_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, const struct p4dp_meter_config *cfg)
{
	int rc = check_ext(rt, ext, P4DP_EXT_METER, P4DP_EXT_DIRECT_METER, "meter");
	if (rc || (rc = check_index(rt, ext, index)) || (rc = rt_meter_cfg_check(rt, ext, cfg)))
		return rc;
	pthread_mutex_lock(&rt->lock);
	rc = meter_publish(rt, rt->ext[0][ext], index, rt->prog->externs[ext].meter_type, cfg);
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int p4dp_runtime_meter_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, struct p4dp_meter_config *cfg)
{
	int rc = check_ext(rt, ext, P4DP_EXT_METER, P4DP_EXT_DIRECT_METER, "meter");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	if (cfg == NULL)
		return rt_errc(-EINVAL, "NULL output");
	struct rt_meter_set *ms = rt->ext[0][ext];
	pthread_mutex_lock(&rt->lock);
	const struct rt_meter_cfg *c = ms->cells[index].cfg;
	if (c)
		*cfg = c->c;
	else
		memset(cfg, 0, sizeof(*cfg));
	pthread_mutex_unlock(&rt->lock);
	return c != NULL;
}

/* Zero the per-colour counts of cells [first, first + n) of @p ms on every worker. */
static void meter_counts_zero(struct p4dp_runtime *rt, struct rt_meter_set *ms, uint32_t first, uint32_t n)
{
	for (uint32_t w = 0; w < rt->max_workers; w++)
		for (uint32_t i = first; i < first + n; i++) {
			struct rt_meter_counts *k = &ms->counts[(size_t)w * ms->stride + i];
			for (int c = 0; c < 3; c++) {
				/* relaxed: untorn stores; a worker's concurrent increment may be lost (rt.h) */
				__atomic_store_n(&k->packets[c], 0, __ATOMIC_RELAXED);
				__atomic_store_n(&k->bytes[c], 0, __ATOMIC_RELAXED);
			}
		}
}

int p4dp_runtime_meter_counts_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
				   struct p4dp_meter_counts *out)
{
	int rc = check_ext(rt, ext, P4DP_EXT_METER, P4DP_EXT_DIRECT_METER, "meter");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	if (out == NULL)
		return rt_errc(-EINVAL, "NULL output");
	const struct rt_meter_set *ms = rt->ext[0][ext];
	memset(out, 0, sizeof(*out));
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		const struct rt_meter_counts *k = &ms->counts[(size_t)w * ms->stride + index];
		for (int c = 0; c < 3; c++) {
			/* relaxed: a recent untorn value is all a reader needs (the worker is the only writer) */
			out->colour[c].packets += __atomic_load_n(&k->packets[c], __ATOMIC_RELAXED);
			out->colour[c].bytes += __atomic_load_n(&k->bytes[c], __ATOMIC_RELAXED);
		}
	}
	return 0;
}

int p4dp_runtime_meter_counts_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
				    const struct p4dp_meter_counts *v)
{
	int rc = check_ext(rt, ext, P4DP_EXT_METER, P4DP_EXT_DIRECT_METER, "meter");
	if (rc || (rc = check_index(rt, ext, index)))
		return rc;
	if (v == NULL)
		return rt_errc(-EINVAL, "NULL value");
	struct rt_meter_set *ms = rt->ext[0][ext];
	meter_counts_zero(rt, ms, index, 1);
	struct rt_meter_counts *k = &ms->counts[index]; /* worker 0's holds the value */
	for (int c = 0; c < 3; c++) {
		__atomic_store_n(&k->packets[c], v->colour[c].packets, __ATOMIC_RELAXED);
		__atomic_store_n(&k->bytes[c], v->colour[c].bytes, __ATOMIC_RELAXED);
	}
	return 0;
}

void rt_direct_reset_index(struct p4dp_runtime *rt, uint32_t table, uint32_t index)
{
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	/* the entries' cells only: the default entry's (the last) is not an entry's */
	uint32_t n_entries = rt_direct_default_cell(rt, table);
	if (ti->direct_counter >= 0) {
		uint32_t x = (uint32_t)ti->direct_counter;
		for (uint32_t w = 0; w < rt->max_workers; w++) {
			struct p4dp_counter_cell *c = rt->ext[w][x];
			if (index == UINT32_MAX)
				memset(c, 0, sizeof(*c) * n_entries);
			else if (index < n_entries)
				memset(&c[index], 0, sizeof(*c));
		}
	}
	if (ti->direct_meter >= 0) {
		uint32_t x = (uint32_t)ti->direct_meter;
		struct rt_meter_set *ms = rt->ext[0][x];
		pthread_mutex_lock(&rt->lock);
		for (uint32_t i = 0; i < ms->n_cells && i < n_entries; i++)
			if ((index == UINT32_MAX || i == index) && ms->cells[i].cfg)
				meter_publish(rt, ms, i, 0, NULL);
		pthread_mutex_unlock(&rt->lock);
		if (index == UINT32_MAX)
			meter_counts_zero(rt, ms, 0, n_entries < ms->n_cells ? n_entries : ms->n_cells);
		else if (index < n_entries && index < ms->n_cells)
			meter_counts_zero(rt, ms, index, 1);
	}
}

/* ------------------------------------------------------------ digests */

void p4dp_digest_send(struct p4dp_ctx *ctx, uint32_t ext, const void *data, uint32_t len)
{
	struct rt_digest_q *q = ctx->ext[ext];
	if (q == NULL)
		return;
	uint64_t head = q->head; /* only this worker writes head */
	/* acquire: the consumer has finished reading the slots before its tail store */
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	if (head - tail > q->mask) {
		RT_STAT_ADD(q->drops, 1);
		return;
	}
	uint8_t *slot = q->slots + (size_t)(head & q->mask) * q->slot_len;
	uint32_t n = len < q->slot_len ? len : q->slot_len;
	memcpy(slot, data, n);
	if (n < q->slot_len)
		memset(slot + n, 0, q->slot_len - n);
	/* release: the slot's bytes are visible before the new head (acquire in the poller) */
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
}

int p4dp_runtime_digest_poll(struct p4dp_runtime *rt, uint32_t ext, p4dp_digest_cb cb, void *arg, uint32_t max)
{
	int rc = check_ext(rt, ext, P4DP_EXT_DIGEST, P4DP_EXT_DIGEST, "digest");
	if (rc)
		return rc;
	if (cb == NULL)
		return rt_errc(-EINVAL, "NULL callback");
	uint32_t done = 0;
	pthread_mutex_lock(&rt->digest_lock);
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		struct rt_digest_q *q = rt->ext[w][ext];
		uint64_t tail = q->tail; /* only the (serialized) poller writes tail */
		uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		while (tail < head && (max == 0 || done < max)) {
			cb(arg, w, q->slots + (size_t)(tail & q->mask) * q->slot_len, q->slot_len);
			tail++;
			done++;
			/* release: we are done with the slot before the worker may reuse it */
			__atomic_store_n(&q->tail, tail, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&rt->digest_lock);
	return (int)done;
}

int64_t p4dp_runtime_digest_drops_get(struct p4dp_runtime *rt, uint32_t ext)
{
	int rc = check_ext(rt, ext, P4DP_EXT_DIGEST, P4DP_EXT_DIGEST, "digest");
	if (rc)
		return rc;
	int64_t n = 0;
	for (uint32_t w = 0; w < rt->max_workers; w++)
		n += (int64_t)RT_STAT_LOAD(((struct rt_digest_q *)rt->ext[w][ext])->drops);
	return n;
}

/* ------------------------------------------------------------ multicast + clone */

/* A packet met @p n replicas whose every port is down: count them (the worker's own counter). */
static void replicas_down_count(struct p4dp_ctx *ctx, uint32_t n)
{
	struct rt_worker *w = rt_worker_of(ctx);
	RT_STAT_ADD(w->st.replicas_down, n);
}

uint32_t p4dp_mcast_group_get(struct p4dp_ctx *ctx, uint32_t group, uint32_t *ports, uint16_t *rids, uint32_t max)
{
	struct p4dp_runtime *rt = ctx->rt;
	if (group >= P4DP_RT_MCAST_GROUPS)
		return 0;
	/* acquire pairs with the release in mcast_publish: the list is complete */
	const struct rt_mcast_list *l = __atomic_load_n(&rt->mc_lists[group], __ATOMIC_ACQUIRE);
	if (l == NULL)
		return 0;
	if (__builtin_expect(l->n_down != 0, 0))
		replicas_down_count(ctx, l->n_down);
	uint32_t n = l->n < max ? l->n : max;
	for (uint32_t i = 0; i < n; i++) {
		ports[i] = l->reps[i].port;
		if (rids)
			rids[i] = l->reps[i].rid;
	}
	return n;
}

uint32_t p4dp_clone_session_get(struct p4dp_ctx *ctx, uint32_t session, uint32_t *ports, uint16_t *rids,
				uint32_t max, uint32_t *trunc, uint8_t *cos)
{
	struct p4dp_runtime *rt = ctx->rt;
	*trunc = 0;
	*cos = 0;
	if (session >= P4DP_RT_CLONE_SESSIONS)
		return 0;
	/* acquire pairs with the release in clone_publish: the list is complete */
	const struct rt_clone_list *l = __atomic_load_n(&rt->clone_lists[session], __ATOMIC_ACQUIRE);
	if (l == NULL)
		return 0;
	*cos = l->cos;
	if (l->group < P4DP_RT_MCAST_GROUPS) {
		*trunc = l->trunc;
		return p4dp_mcast_group_get(ctx, l->group, ports, rids, max);
	}
	if (__builtin_expect(l->n_down != 0, 0))
		replicas_down_count(ctx, l->n_down);
	uint32_t n = l->n < max ? l->n : max;
	for (uint32_t i = 0; i < n; i++) {
		ports[i] = l->reps[i].port;
		rids[i] = l->reps[i].rid;
	}
	*trunc = l->trunc;
	return n;
}

/*
 * The replicas the data plane uses from a control list of chains (a replica, then its backups,
 * flagged): per chain the first candidate whose port is live; @p out receives them in order (at
 * most one per chain), the number of chains without a live port goes to *n_down. Returns the
 * number written.
 */
static uint32_t chains_resolve(const struct p4dp_runtime *rt, const struct rt_mcast_rep *c, uint32_t n,
			       struct rt_mcast_rep *out, uint32_t *n_down)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		while (j < n && c[j].backup)
			j++;
		uint32_t pick = j;
		for (uint32_t x = i; x < j && pick == j; x++)
			if (rt_port_live(rt, c[x].port))
				pick = x;
		if (pick < j)
			out[k++] = (struct rt_mcast_rep){ c[pick].port, c[pick].rid, 0 };
		else
			(*n_down)++;
		i = j;
	}
	return k;
}

/* Rebuild and publish the replica list of group @p g; caller holds rt->lock. */
static int mcast_publish(struct p4dp_runtime *rt, uint32_t g)
{
	struct rt_mcast_group *grp = &rt->mc_groups[g];
	struct rt_mcast_list *l = NULL;
	if (grp->exists) {
		uint32_t n = grp->n_direct;
		for (uint32_t i = 0; i < grp->n_nodes; i++)
			n += rt->mc_nodes[grp->nodes[i]].n_ports;
		l = rte_malloc_socket("p4dp_mcast", sizeof(*l) + sizeof(l->reps[0]) * (n ? n : 1), 16, rt->socket_id);
		if (l == NULL)
			return rt_errc(-ENOMEM, "out of memory");
		uint32_t k = 0, down = 0;
		for (uint32_t i = 0; i < grp->n_nodes; i++) {
			const struct rt_mcast_node *nd = &rt->mc_nodes[grp->nodes[i]];
			for (uint32_t j = 0; j < nd->n_ports; j++) {
				if (rt_port_live(rt, nd->ports[j]))
					l->reps[k++] = (struct rt_mcast_rep){ nd->ports[j], nd->rid, 0 };
				else
					down++;
			}
		}
		k += chains_resolve(rt, grp->direct, grp->n_direct, l->reps + k, &down);
		l->n = k;
		l->n_down = down;
	}
	/* release: the list's contents are visible before the pointer */
	struct rt_mcast_list *old = __atomic_exchange_n(&rt->mc_lists[g], l, __ATOMIC_ACQ_REL);
	if (old != NULL && p4dp_rcu_defer_free(rt->rcu, old) != 0) {
		p4dp_rcu_synchronize(rt->rcu);
		rte_free(old);
	}
	return 0;
}

int p4dp_runtime_mcast_group_create(struct p4dp_runtime *rt, uint32_t group)
{
	if (rt == NULL || group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "multicast group id %u out of range (< %u)", group, P4DP_RT_MCAST_GROUPS);
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	if (rt->mc_groups[group].exists) {
		rc = rt_errc(-EEXIST, "multicast group %u already exists", group);
	} else {
		rt->mc_groups[group].exists = true;
		rc = mcast_publish(rt, group);
		if (rc)
			rt->mc_groups[group].exists = false;
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int p4dp_runtime_mcast_group_delete(struct p4dp_runtime *rt, uint32_t group)
{
	if (rt == NULL || group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "multicast group id %u out of range", group);
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	struct rt_mcast_group *g = &rt->mc_groups[group];
	if (!g->exists) {
		rc = rt_errc(-ENOENT, "multicast group %u does not exist", group);
	} else {
		for (uint32_t i = 0; i < g->n_nodes; i++)
			rt->mc_nodes[g->nodes[i]].group = -1;
		free(g->nodes);
		free(g->direct);
		memset(g, 0, sizeof(*g));
		mcast_publish(rt, group); /* publishing NULL cannot fail */
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int p4dp_runtime_mcast_node_create(struct p4dp_runtime *rt, uint16_t rid, const uint32_t *ports, uint32_t n_ports,
				   uint32_t *handle)
{
	if (rt == NULL || handle == NULL || (n_ports && ports == NULL))
		return rt_errc(-EINVAL, "mcast_node_create: NULL argument");
	for (uint32_t i = 0; i < n_ports; i++)
		if (ports[i] >= P4DP_PORT_DROP)
			return rt_errc(-EINVAL, "multicast node port %u out of range (< %u)", ports[i], P4DP_PORT_DROP);
	uint32_t *sorted = malloc(sizeof(uint32_t) * (n_ports ? n_ports : 1));
	if (sorted == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	memcpy(sorted, ports, sizeof(uint32_t) * n_ports);
	qsort(sorted, n_ports, sizeof(uint32_t), cmp_u32);
	uint32_t n = 0;
	for (uint32_t i = 0; i < n_ports; i++)
		if (n == 0 || sorted[n - 1] != sorted[i])
			sorted[n++] = sorted[i];
	pthread_mutex_lock(&rt->lock);
	uint32_t h;
	for (h = 0; h < rt->n_mc_nodes; h++)
		if (!rt->mc_nodes[h].used)
			break;
	if (h == rt->n_mc_nodes) {
		if (rt->n_mc_nodes == rt->cap_mc_nodes) {
			uint32_t cap = rt->cap_mc_nodes ? 2 * rt->cap_mc_nodes : 16;
			struct rt_mcast_node *nn = realloc(rt->mc_nodes, sizeof(*nn) * cap);
			if (nn == NULL) {
				pthread_mutex_unlock(&rt->lock);
				free(sorted);
				return rt_errc(-ENOMEM, "out of memory");
			}
			rt->mc_nodes = nn;
			rt->cap_mc_nodes = cap;
		}
		rt->n_mc_nodes++;
	}
	rt->mc_nodes[h] = (struct rt_mcast_node){ .used = true, .rid = rid, .n_ports = n, .ports = sorted, .group = -1 };
	*handle = h;
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

/* Remove node @p h from group @p g's list; caller holds the lock. */
static void group_remove_node(struct p4dp_runtime *rt, uint32_t g, uint32_t h)
{
	struct rt_mcast_group *grp = &rt->mc_groups[g];
	uint32_t k = 0;
	for (uint32_t i = 0; i < grp->n_nodes; i++)
		if (grp->nodes[i] != h)
			grp->nodes[k++] = grp->nodes[i];
	grp->n_nodes = k;
	rt->mc_nodes[h].group = -1;
}

int p4dp_runtime_mcast_node_delete(struct p4dp_runtime *rt, uint32_t handle)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "NULL runtime");
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	if (handle >= rt->n_mc_nodes || !rt->mc_nodes[handle].used) {
		rc = rt_errc(-ENOENT, "no multicast node %u", handle);
	} else {
		int32_t g = rt->mc_nodes[handle].group;
		if (g >= 0) {
			group_remove_node(rt, (uint32_t)g, handle);
			rc = mcast_publish(rt, (uint32_t)g);
		}
		free(rt->mc_nodes[handle].ports);
		memset(&rt->mc_nodes[handle], 0, sizeof(rt->mc_nodes[handle]));
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int p4dp_runtime_mcast_node_associate(struct p4dp_runtime *rt, uint32_t group, uint32_t handle)
{
	if (rt == NULL || group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "multicast group id %u out of range", group);
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	struct rt_mcast_group *g = &rt->mc_groups[group];
	if (!g->exists) {
		rc = rt_errc(-ENOENT, "multicast group %u does not exist", group);
	} else if (handle >= rt->n_mc_nodes || !rt->mc_nodes[handle].used) {
		rc = rt_errc(-ENOENT, "no multicast node %u", handle);
	} else if (rt->mc_nodes[handle].group >= 0) {
		rc = rt_errc(-EBUSY, "multicast node %u is already associated with group %d", handle,
			     rt->mc_nodes[handle].group);
	} else {
		uint32_t *nn = realloc(g->nodes, sizeof(uint32_t) * (g->n_nodes + 1));
		if (nn == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
		} else {
			g->nodes = nn;
			g->nodes[g->n_nodes++] = handle;
			rt->mc_nodes[handle].group = (int32_t)group;
			rc = mcast_publish(rt, group);
			if (rc)
				group_remove_node(rt, group, handle);
		}
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int p4dp_runtime_mcast_node_dissociate(struct p4dp_runtime *rt, uint32_t group, uint32_t handle)
{
	if (rt == NULL || group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "multicast group id %u out of range", group);
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	if (handle >= rt->n_mc_nodes || !rt->mc_nodes[handle].used || rt->mc_nodes[handle].group != (int32_t)group) {
		rc = rt_errc(-ENOENT, "multicast node %u is not associated with group %u", handle, group);
	} else {
		group_remove_node(rt, group, handle);
		rc = mcast_publish(rt, group);
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

/* Check a list of replicas with backups (@p what names the object); 0 or -EINVAL with a message. */
static int replicas_check(const struct p4dp_rt_replica *reps, uint32_t n, const char *what, uint32_t id)
{
	if (n && reps == NULL)
		return rt_errc(-EINVAL, "%s %u: NULL replicas", what, id);
	uint32_t primary = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (reps[i].port >= P4DP_PORT_DROP)
			return rt_errc(-EINVAL, "%s %u: replica port %u out of range (< %u)", what, id, reps[i].port,
				       P4DP_PORT_DROP);
		if (reps[i].backup > 1)
			return rt_errc(-EINVAL, "%s %u: backup flag %u (0 or 1)", what, id, reps[i].backup);
		if (!reps[i].backup) {
			primary = i;
			continue;
		}
		if (i == 0)
			return rt_errc(-EINVAL, "%s %u: the first replica is a backup (of no replica)", what, id);
		if (reps[i].port == reps[primary].port)
			return rt_errc(-EINVAL, "%s %u: a backup of the replica on port %u is on the same port", what,
				       id, reps[primary].port);
	}
	return 0;
}

/* Check @p reps (replicas_check) and copy them in the control form to *@p out (malloc'd, the
 * caller frees it); 0, -EINVAL or -ENOMEM with a message (*out unset). */
static int replicas_check_copy(const struct p4dp_rt_replica *reps, uint32_t n, const char *what, uint32_t id,
			       struct rt_mcast_rep **out)
{
	int rc = replicas_check(reps, n, what, id);
	if (rc)
		return rc;
	struct rt_mcast_rep *c = malloc(sizeof(*c) * (n ? n : 1));
	if (c == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		c[i] = (struct rt_mcast_rep){ reps[i].port, reps[i].rid, reps[i].backup };
	*out = c;
	return 0;
}

int p4dp_runtime_mcast_group_set_replicas(struct p4dp_runtime *rt, uint32_t group, const struct p4dp_rt_replica *reps,
					  uint32_t n)
{
	if (rt == NULL || group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "multicast group id %u out of range", group);
	struct rt_mcast_rep *c = NULL;
	int rc = replicas_check_copy(reps, n, "multicast group", group, &c);
	if (rc)
		return rc;
	pthread_mutex_lock(&rt->lock);
	struct rt_mcast_group *g = &rt->mc_groups[group];
	struct rt_mcast_rep *old = g->direct;
	uint32_t old_n = g->n_direct;
	bool existed = g->exists;
	g->exists = true;
	g->direct = c;
	g->n_direct = n;
	rc = mcast_publish(rt, group);
	if (rc) {
		g->direct = old;
		g->n_direct = old_n;
		g->exists = existed;
		free(c);
	} else {
		free(old);
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int p4dp_runtime_mcast_group_set(struct p4dp_runtime *rt, uint32_t group, const uint32_t *ports, const uint16_t *rids,
				 uint32_t n)
{
	if (n && (ports == NULL || rids == NULL))
		return rt_errc(-EINVAL, "mcast_group_set: NULL ports or rids");
	struct p4dp_rt_replica *r = malloc(sizeof(*r) * (n ? n : 1));
	if (r == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		r[i] = (struct p4dp_rt_replica){ .port = ports[i], .rid = rids[i] };
	int rc = p4dp_runtime_mcast_group_set_replicas(rt, group, r, n);
	free(r);
	return rc;
}

/* Publish @p l (or NULL) as clone session @p session's list and retire the old one; caller holds rt->lock. */
static void clone_publish(struct p4dp_runtime *rt, uint32_t session, struct rt_clone_list *l)
{
	/* release: the list's contents are visible before the pointer */
	struct rt_clone_list *old = __atomic_exchange_n(&rt->clone_lists[session], l, __ATOMIC_ACQ_REL);
	if (old != NULL && p4dp_rcu_defer_free(rt->rcu, old) != 0) {
		p4dp_rcu_synchronize(rt->rcu);
		rte_free(old);
	}
}

/* A clone session's list built from its chains @p c (n_cands of them, in reps after the live ones)
 * under the current liveness; NULL (message set) when out of memory. */
static struct rt_clone_list *clone_build(struct p4dp_runtime *rt, const struct rt_mcast_rep *c, uint32_t n_cands,
					 uint32_t trunc, uint8_t cos)
{
	struct rt_clone_list *l = rte_malloc_socket(
		"p4dp_clone", sizeof(*l) + sizeof(l->reps[0]) * (2 * n_cands + 1), 16, rt->socket_id);
	if (l == NULL) {
		rt_errc(-ENOMEM, "out of memory");
		return NULL;
	}
	l->n_down = 0;
	l->n = chains_resolve(rt, c, n_cands, l->reps, &l->n_down);
	l->trunc = trunc;
	l->cos = cos;
	l->group = P4DP_RT_MCAST_GROUPS;
	l->n_cands = n_cands;
	/* memmove: c may be the reps of a list being replaced (never this one) */
	memmove(l->reps + l->n, c, sizeof(*c) * n_cands);
	return l;
}

int p4dp_runtime_clone_session_set_replicas(struct p4dp_runtime *rt, uint32_t session,
					    const struct p4dp_rt_replica *reps, uint32_t n, uint32_t trunc, uint8_t cos)
{
	if (rt == NULL || session >= P4DP_RT_CLONE_SESSIONS)
		return rt_errc(-EINVAL, "clone session id %u out of range (< %u)", session, P4DP_RT_CLONE_SESSIONS);
	uint32_t n_primary = 0;
	for (uint32_t i = 0; reps && i < n; i++)
		n_primary += !reps[i].backup;
	if (n_primary > P4DP_CLONE_REPLICAS_MAX)
		return rt_errc(-EINVAL, "clone session %u: %u replicas, at most %u", session, n_primary,
			       P4DP_CLONE_REPLICAS_MAX);
	struct rt_mcast_rep *c = NULL;
	int rc = replicas_check_copy(reps, n, "clone session", session, &c);
	if (rc)
		return rc;
	pthread_mutex_lock(&rt->lock);
	struct rt_clone_list *l = clone_build(rt, c, n, trunc, cos);
	if (l == NULL)
		rc = -ENOMEM;
	else
		clone_publish(rt, session, l);
	pthread_mutex_unlock(&rt->lock);
	free(c);
	return rc;
}

int p4dp_runtime_clone_session_set(struct p4dp_runtime *rt, uint32_t session, const uint32_t *ports,
				   const uint16_t *rids, uint32_t n, uint32_t trunc)
{
	if (n && (ports == NULL || rids == NULL))
		return rt_errc(-EINVAL, "clone_session_set: NULL ports or rids");
	if (n > P4DP_CLONE_REPLICAS_MAX)
		return rt_errc(-EINVAL, "clone session %u: %u replicas, at most %u", session, n, P4DP_CLONE_REPLICAS_MAX);
	struct p4dp_rt_replica r[P4DP_CLONE_REPLICAS_MAX];
	for (uint32_t i = 0; i < n; i++)
		r[i] = (struct p4dp_rt_replica){ .port = ports[i], .rid = rids[i] };
	return p4dp_runtime_clone_session_set_replicas(rt, session, r, n, trunc, 0);
}

int p4dp_runtime_clone_session_set_group(struct p4dp_runtime *rt, uint32_t session, uint32_t group, uint32_t trunc)
{
	if (rt == NULL || session >= P4DP_RT_CLONE_SESSIONS)
		return rt_errc(-EINVAL, "clone session id %u out of range (< %u)", session, P4DP_RT_CLONE_SESSIONS);
	if (group >= P4DP_RT_MCAST_GROUPS)
		return rt_errc(-EINVAL, "clone session %u: multicast group %u out of range (< %u)", session, group,
			       P4DP_RT_MCAST_GROUPS);
	struct rt_clone_list *l = rte_malloc_socket("p4dp_clone", sizeof(*l), 16, rt->socket_id);
	if (l == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	l->n = 0;
	l->n_down = 0;
	l->n_cands = 0;
	l->cos = 0;
	l->trunc = trunc;
	l->group = group;
	pthread_mutex_lock(&rt->lock);
	clone_publish(rt, session, l);
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

int p4dp_runtime_clone_session_delete(struct p4dp_runtime *rt, uint32_t session)
{
	if (rt == NULL || session >= P4DP_RT_CLONE_SESSIONS)
		return rt_errc(-EINVAL, "clone session id %u out of range", session);
	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	if (rt->clone_lists[session] == NULL) /* only writers (under the lock) change the pointer */
		rc = rt_errc(-ENOENT, "clone session %u is not set", session);
	else
		clone_publish(rt, session, NULL);
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

int rt_pre_liveness_apply(struct p4dp_runtime *rt)
{
	int rc = 0;
	pthread_mutex_lock(&rt->lock);
	for (uint32_t g = 0; g < P4DP_RT_MCAST_GROUPS; g++) {
		if (!rt->mc_groups[g].exists)
			continue;
		int r = mcast_publish(rt, g);
		if (r && rc == 0)
			rc = r;
	}
	for (uint32_t sid = 0; sid < P4DP_RT_CLONE_SESSIONS; sid++) {
		/* only writers (under the lock) change the pointer */
		const struct rt_clone_list *old = rt->clone_lists[sid];
		if (old == NULL || old->group < P4DP_RT_MCAST_GROUPS)
			continue;
		struct rt_clone_list *l = clone_build(rt, old->reps + old->n, old->n_cands, old->trunc, old->cos);
		if (l == NULL) {
			if (rc == 0)
				rc = -ENOMEM;
			continue;
		}
		clone_publish(rt, sid, l);
	}
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

/* ------------------------------------------------------------ parser value sets */

static uint64_t width_mask(uint32_t w)
{
	return w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
}

int p4dp_runtime_value_set_set(struct p4dp_runtime *rt, uint32_t vs, const uint64_t *values, const uint64_t *masks,
			       uint32_t n)
{
	if (rt == NULL || vs >= rt->prog->n_value_sets)
		return rt_errc(-EINVAL, "value set index %u out of range", vs);
	const struct p4dp_value_set_info *vi = &rt->prog->value_sets[vs];
	if (n > vi->size)
		return rt_errc(-ENOSPC, "value set '%s': %u members, its size is %u", vi->name, n, vi->size);
	if (n && (values == NULL || masks == NULL))
		return rt_errc(-EINVAL, "value_set_set: NULL values or masks");
	const uint32_t nf = vi->n_fields;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t f = 0; f < nf; f++) {
			uint64_t v = values[(size_t)i * nf + f], m = masks[(size_t)i * nf + f];
			uint64_t wm = width_mask(vi->widths[f]);
			if ((v & ~wm) || (m & ~wm))
				return rt_errc(-EINVAL, "value set '%s': member %u field %u wider than %u bits", vi->name,
					       i, f, vi->widths[f]);
			if (v & ~m)
				return rt_errc(-EINVAL, "value set '%s': member %u field %u has value bits outside its mask",
					       vi->name, i, f);
		}
	struct p4dp_vset_members *l = NULL;
	if (n > 0) {
		l = rte_malloc_socket("p4dp_vset", sizeof(*l) + sizeof(l->vm[0]) * 2 * (size_t)n * nf, 16, rt->socket_id);
		if (l == NULL)
			return rt_errc(-ENOMEM, "out of memory");
		l->n = n;
		l->n_fields = nf;
		for (size_t k = 0; k < (size_t)n * nf; k++) {
			l->vm[2 * k] = values[k];
			l->vm[2 * k + 1] = masks[k];
		}
	}
	pthread_mutex_lock(&rt->lock);
	/* release: the list's contents are visible before the pointer (acquire in p4dp_value_set_match) */
	struct p4dp_vset_members *old = __atomic_exchange_n(&rt->vsets[vs], l, __ATOMIC_ACQ_REL);
	if (old != NULL && p4dp_rcu_defer_free(rt->rcu, old) != 0) {
		p4dp_rcu_synchronize(rt->rcu);
		rte_free(old);
	}
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

int p4dp_runtime_value_set_get(struct p4dp_runtime *rt, uint32_t vs, uint64_t *values, uint64_t *masks,
			       uint32_t max, uint32_t *n)
{
	if (rt == NULL || n == NULL || vs >= rt->prog->n_value_sets)
		return rt_errc(-EINVAL, "value set index %u out of range", vs);
	if (max && (values == NULL || masks == NULL))
		return rt_errc(-EINVAL, "value_set_get: NULL values or masks");
	pthread_mutex_lock(&rt->lock);
	/* relaxed: only writers, who hold rt->lock as we do, change the pointer */
	const struct p4dp_vset_members *l = __atomic_load_n(&rt->vsets[vs], __ATOMIC_RELAXED);
	*n = l ? l->n : 0;
	uint32_t k = l ? (l->n < max ? l->n : max) : 0;
	for (size_t i = 0; l && i < (size_t)k * l->n_fields; i++) {
		values[i] = l->vm[2 * i];
		masks[i] = l->vm[2 * i + 1];
	}
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

/* ------------------------------------------------------------ log, assert, unsupported */

void p4dp_log_msg(struct p4dp_ctx *ctx, const char *fmt, uint32_t n, const uint64_t *values)
{
	char buf[1024];
	size_t o = 0;
	uint32_t vi = 0;
	for (const char *s = fmt ? fmt : ""; *s && o + 1 < sizeof(buf); s++) {
		if (s[0] == '{' && s[1] == '}' && vi < n) {
			int k = snprintf(buf + o, sizeof(buf) - o, "%" PRIu64, values[vi++]);
			if (k > 0)
				o += (size_t)k < sizeof(buf) - o ? (size_t)k : sizeof(buf) - o - 1;
			s++;
			continue;
		}
		buf[o++] = *s;
	}
	buf[o] = '\0';
	rt_log(ctx->rt, 2, "%s", buf);
}

void p4dp_assert_fail(struct p4dp_ctx *ctx, const char *where)
{
	struct rt_worker *w = rt_worker_of(ctx);
	RT_STAT_ADD(w->st.asserts, 1);
	w->drop_pkt = true;
	rt_log(ctx->rt, 0, "assertion failed: %s", where ? where : "?");
}

void p4dp_count_unsupported(struct p4dp_ctx *ctx, const char *what)
{
	struct rt_worker *w = rt_worker_of(ctx);
	struct p4dp_runtime *rt = ctx->rt;
	RT_STAT_ADD(w->st.unsupported, 1);
	/* log the first occurrence only; relaxed exchange is enough for a once-flag */
	if (__atomic_exchange_n(&rt->unsupported_logged, 1, __ATOMIC_RELAXED) == 0)
		rt_log(rt, 1, "unsupported operation at run time: %s (counted; logged once)", what ? what : "?");
}

/* ------------------------------------------------------------ rtc.p4 Counter, Queue, Lock */

int p4dp_runtime_rtc_counter_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint64_t *value)
{
	int rc = check_ext(rt, ext, P4DP_EXT_RTC_COUNTER, P4DP_EXT_RTC_COUNTER, "rtc Counter");
	if (rc)
		return rc;
	const struct p4dp_rtc_counter *c = rt->ext[0][ext];
	if (index >= c->n)
		return rt_errc(-EINVAL, "Counter '%s': index %u out of range (%u cells)", rt->prog->externs[ext].name,
			       index, c->n);
	if (value == NULL)
		return rt_errc(-EINVAL, "NULL output");
	*value = p4dp_rtc_counter_get(c, index); /* a relaxed atomic load: see rtc.h */
	return 0;
}

int p4dp_runtime_rtc_counter_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint64_t value)
{
	int rc = check_ext(rt, ext, P4DP_EXT_RTC_COUNTER, P4DP_EXT_RTC_COUNTER, "rtc Counter");
	if (rc)
		return rc;
	struct p4dp_rtc_counter *c = rt->ext[0][ext];
	if (index >= c->n)
		return rt_errc(-EINVAL, "Counter '%s': index %u out of range (%u cells)", rt->prog->externs[ext].name,
			       index, c->n);
	p4dp_rtc_counter_set(c, index, value); /* a relaxed atomic store: see rtc.h */
	return 0;
}

int p4dp_runtime_rtc_queue_stats_get(struct p4dp_runtime *rt, uint32_t ext, struct p4dp_rt_rtc_queue_stats *out)
{
	int rc = check_ext(rt, ext, P4DP_EXT_RTC_QUEUE, P4DP_EXT_RTC_QUEUE, "rtc Queue");
	if (rc)
		return rc;
	if (out == NULL)
		return rt_errc(-EINVAL, "NULL output");
	const struct p4dp_rtc_queue *q = rt->ext[0][ext];
	out->depth = p4dp_rtc_queue_depth(q);
	out->elem_size = p4dp_rtc_queue_elem_size(q);
	out->queued = p4dp_rtc_queue_count(q);
	out->full_drops = p4dp_rtc_queue_full_count(q);
	return 0;
}

int p4dp_runtime_rtc_lock_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint32_t *held)
{
	int rc = check_ext(rt, ext, P4DP_EXT_RTC_LOCK, P4DP_EXT_RTC_LOCK, "rtc Lock");
	if (rc)
		return rc;
	const struct p4dp_rtc_lock *l = rt->ext[0][ext];
	if (index >= l->n)
		return rt_errc(-EINVAL, "Lock '%s': index %u out of range (%u locks)", rt->prog->externs[ext].name,
			       index, l->n);
	if (held == NULL)
		return rt_errc(-EINVAL, "NULL output");
	/* relaxed: a snapshot for display; nothing the holder wrote is read through it */
	*held = __atomic_load_n(&l->words[index], __ATOMIC_RELAXED) != 0u ? 1u : 0u;
	return 0;
}

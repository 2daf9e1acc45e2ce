/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-plane table writes (runtime side of dpwrite.h), the runtime clock, expire-time profiles,
 * the software-dispatch flow hash and per-worker statistics.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "hash.h"
#include "p4dp/table.h"
#include "rt_internal.h"

/* ------------------------------------------------------------ biased entry locks (dpwrite.h) */

/* While this thread waits it runs no action, so it may acknowledge revocations: two workers
 * revoking each other's entries (or one spinning on an entry whose revoker waits for it) must
 * not wait for each other forever. A thread that is offline (the control thread injecting as
 * worker 0 while no worker runs) stays offline. */
static void bias_ack_waiting(struct p4dp_bias *b, uint32_t self)
{
	/* relaxed: only this thread writes its own slot; the load just reads back its own last store */
	if (b != NULL && self < b->n && __atomic_load_n(&b->ack[self].tok, __ATOMIC_RELAXED) != P4DP_BIAS_OFFLINE)
		p4dp_bias_ack(b, self);
}

/* The bias of an entry was just taken from worker @p owner (its lock word swapped to HELD):
 * publish a new token and wait until the owner acknowledged it (or is not running). */
static void bias_revoke_wait(struct p4dp_bias *b, uint32_t owner, uint32_t self)
{
	/* seq_cst: the lock-word swap (also seq_cst) is ordered before the increment; an owner that
	 * loads this token (acquire) sees the swap in every later load of the lock word */
	uint64_t t = __atomic_add_fetch(&b->tok, 1, __ATOMIC_SEQ_CST);
	if (owner >= b->n)
		return;
	/* seq_cst (at least acquire): pairs with the owner's release store of its slot, so its
	 * actions are visible; and with p4dp_bias_online's seq_cst store and fence */
	while (__atomic_load_n(&b->ack[owner].tok, __ATOMIC_SEQ_CST) < t) {
		bias_ack_waiting(b, self);
		rte_pause();
	}
}

int p4dp_entry_lock_slow(const struct p4dp_ctx *ctx, const struct p4dp_entry *e)
{
	uint32_t *w = (uint32_t *)(uintptr_t)&e->lock;
	struct p4dp_bias *b = ctx->bias;
	const uint32_t self = ctx->worker_id, mine = P4DP_ELOCK_BIAS | self;
	for (;;) {
		/* relaxed: a first look at the lock word; every transition that takes the lock is a CAS with acquire */
		uint32_t x = __atomic_load_n(w, __ATOMIC_RELAXED);
		if (x == mine)
			return 0;
		if (x == P4DP_ELOCK_FREE || x == P4DP_ELOCK_SHARED) {
			/* A fresh entry becomes this worker's (no runtime: never biased). acquire: the
			 * previous holder's writes (release store of the unlock) are visible. */
			uint32_t to = x == P4DP_ELOCK_FREE && b != NULL ? mine : P4DP_ELOCK_HELD;
			if (__atomic_compare_exchange_n(w, &x, to, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return to == mine ? 0 : 1;
			continue;
		}
		if (x == P4DP_ELOCK_HELD) {
			/* test before test-and-set: relaxed loads only watch the word */
			while (__atomic_load_n(w, __ATOMIC_RELAXED) == P4DP_ELOCK_HELD) {
				bias_ack_waiting(b, self);
				rte_pause();
			}
			continue;
		}
		/* biased to another worker: revoke, holding the lock in shared mode */
		if (__atomic_compare_exchange_n(w, &x, P4DP_ELOCK_HELD, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			if (b != NULL)
				bias_revoke_wait(b, x & ~P4DP_ELOCK_BIAS, self);
			return 1;
		}
	}
}

int p4dp_table_dp_add(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action, const void *data,
		      uint32_t expire_profile)
{
	return p4dp_table_dp_add_seen(ctx, table, key, action, data, expire_profile, NULL);
}

uint64_t p4dp_table_dp_gen(struct p4dp_ctx *ctx, uint32_t table)
{
	if (table >= ctx->prog->n_tables)
		return 0;
	return p4dp_table_ins_gen(ctx->tables[table]);
}

int p4dp_table_dp_add_seen(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action,
			   const void *data, uint32_t expire_profile, uint64_t *seen)
{
	return rt_dp_add_row(ctx, table, key, action, data, expire_profile, seen, NULL);
}

int rt_dp_add_row(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action, const void *data,
		  uint32_t expire_profile, uint64_t *seen, uint32_t *row)
{
	const struct p4dp_program *p = ctx->prog;
	if (table >= p->n_tables || key == NULL)
		return -EINVAL;
	const struct p4dp_table_info *ti = &p->tables[table];
	if (ti->n_keys == 0 || (ti->flags & P4DP_TABLE_F_ENTRIES_CONST))
		return -EINVAL;
	uint32_t i;
	for (i = 0; i < ti->n_actions; i++)
		if (ti->actions[i] == action &&
		    (ti->action_scopes == NULL || ti->action_scopes[i] != P4DP_SCOPE_DEFAULT_ONLY))
			break;
	if (i == ti->n_actions)
		return -EINVAL;
	/* The table copies data_len bytes; an action with less data gets zero padding. */
	uint32_t adl = p->actions[action].data_len;
	uint8_t buf[256];
	uint8_t *heap = NULL;
	if (data != NULL && adl < ti->data_len) {
		uint8_t *b = buf;
		if (ti->data_len > sizeof(buf)) {
			heap = rte_malloc("p4dp_dp_data", ti->data_len, 0); /* only for > 256-byte action data */
			if (heap == NULL)
				return -ENOMEM;
			b = heap;
		}
		memcpy(b, data, adl);
		memset(b + adl, 0, ti->data_len - adl);
		data = b;
	}
	int rc = p4dp_table_dp_insert_row(ctx->tables[table], key, action, data, expire_profile, ctx->now_ns, seen, row);
	rte_free(heap);
	return rc;
}

/* ------------------------------------------------------------ clock */

uint64_t rt_now_ns(struct p4dp_runtime *rt)
{
	/* acquire pairs with the release store of clock_live in p4dp_runtime_run: tsc0/ns0 are set */
	if (__atomic_load_n(&rt->clock_live, __ATOMIC_ACQUIRE)) {
		/* relaxed: ordered after the clock_live acquire above */
		uint64_t tsc0 = __atomic_load_n(&rt->tsc0, __ATOMIC_RELAXED);
		uint64_t ns0 = __atomic_load_n(&rt->ns0, __ATOMIC_RELAXED);
		uint64_t d = rte_rdtsc() - tsc0;
		/* the workers' run clock (run_now_ns), without its 128-bit division (perf: it was on every
		 * control-plane insert) */
		return ns0 + (uint64_t)(((unsigned __int128)d * rt->tsc_mult) >> 32);
	}
	/* relaxed: a self-contained value written by the control thread (p4dp_runtime_time_set); publishes nothing */
	return __atomic_load_n(&rt->now_ns, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ expire profiles */

static int check_idle_table(struct p4dp_runtime *rt, uint32_t table, uint32_t profile)
{
	if (rt == NULL || table >= rt->prog->n_tables)
		return rt_errc(-EINVAL, "expire profile: bad table %u", table);
	if (profile >= P4DP_EXPIRE_PROFILES)
		return rt_errc(-EINVAL, "expire profile %u out of range (0..%u)", profile, P4DP_EXPIRE_PROFILES - 1);
	return 0;
}

int p4dp_runtime_table_expire_profile_set(struct p4dp_runtime *rt, uint32_t table, uint32_t profile, uint64_t ns)
{
	int rc = check_idle_table(rt, table, profile);
	return rc ? rc : p4dp_table_expire_profile_set(rt->tables[table], profile, ns);
}

int p4dp_runtime_table_expire_profile_get(struct p4dp_runtime *rt, uint32_t table, uint32_t profile,
					  uint64_t *ns)
{
	int rc = check_idle_table(rt, table, profile);
	if (rc == 0 && ns == NULL)
		rc = rt_errc(-EINVAL, "expire profile: NULL output");
	return rc ? rc : p4dp_table_expire_profile_get(rt->tables[table], profile, ns);
}

/* ------------------------------------------------------------ software dispatch */

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

uint32_t rt_flow_owner(const struct p4dp_runtime *rt, const uint8_t *d, uint32_t len, uint32_t n_workers,
		       uint32_t self)
{
	uint32_t h;
	if (rt->flow_len > 0) {
		if (rt->flow_off >= len)
			return self;
		uint32_t n = len - rt->flow_off < rt->flow_len ? len - rt->flow_off : rt->flow_len;
		h = rt_hash_crc(d + rt->flow_off, n, 0x5bd1e995u);
	} else {
		/* 5-tuple: IPv4/IPv6 (after up to two VLAN tags) addresses, protocol, L4 ports */
		uint8_t tup[37];
		uint32_t tl = 0, off = 12;
		if (len < 14)
			return self;
		uint16_t et = rd16(d + off);
		while ((et == 0x8100 || et == 0x88a8) && off + 6 <= len) {
			off += 4;
			et = rd16(d + off);
		}
		off += 2;
		uint32_t l4 = 0;
		uint8_t proto = 0;
		if (et == 0x0800 && off + 20 <= len) {
			proto = d[off + 9];
			memcpy(tup, d + off + 12, 8);
			tl = 8;
			uint16_t frag = rd16(d + off + 6) & 0x3fff;
			l4 = frag ? 0 : off + (uint32_t)(d[off] & 0xf) * 4u;
		} else if (et == 0x86dd && off + 40 <= len) {
			proto = d[off + 6];
			memcpy(tup, d + off + 8, 32);
			tl = 32;
			l4 = off + 40;
		} else {
			return self; /* not IP: no flow; stays on the polling worker, in port order */
		}
		tup[tl++] = proto;
		if (l4 && (proto == 6 || proto == 17 || proto == 132) && l4 + 4 <= len) {
			memcpy(tup + tl, d + l4, 4);
			tl += 4;
		}
		h = rt_hash_crc(tup, tl, 0x5bd1e995u);
	}
	return h % n_workers;
}

/* ------------------------------------------------------------ worker stats */

int p4dp_runtime_worker_stats_get(struct p4dp_runtime *rt, uint32_t worker, struct p4dp_rt_worker_stats *st)
{
	if (rt == NULL || st == NULL || worker >= rt->max_workers)
		return rt_errc(-EINVAL, "worker_stats: bad worker %u or NULL argument", worker);
	const struct rt_worker *w = &rt->workers[worker];
	memset(st, 0, sizeof(*st));
	st->packets = RT_STAT_LOAD(w->st.packets);
	st->rx_packets = RT_STAT_LOAD(w->st.rx_packets);
	st->dispatched_out = RT_STAT_LOAD(w->st.dispatched_out);
	st->dispatched_in = RT_STAT_LOAD(w->st.dispatched_in);
	st->dispatch_drops = RT_STAT_LOAD(w->st.dispatch_drops);
	st->loops = RT_STAT_LOAD(w->loops);
	/* relaxed: a flag set before the run's launch; statistics need no ordering */
	st->rss = (uint32_t)__atomic_load_n(&rt->dispatch_rss, __ATOMIC_RELAXED);
	return 0;
}

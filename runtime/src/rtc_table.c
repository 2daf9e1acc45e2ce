/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run-to-completion architecture's table externs (p4dp/rtc.h): TableOperation
 * (entryAdd on the data-plane insertion path, entryGet as a lock-free lookup, entryDel on the
 * table's delete path) and the snapshot sweep behind Foreach bound to a table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "err.h"
#include "p4dp/abi.h"
#include "p4dp/rcu.h"
#include "p4dp/rtc.h"
#include "rt_internal.h"

/* Exact tables only: TableOperation and Foreach address an entry by its whole key. */
static int exact_table_of(const struct p4dp_program *prog, uint32_t table)
{
	if (prog == NULL || table >= prog->n_tables)
		return rt_errc(-EINVAL, "no table %u", table);
	const struct p4dp_table_info *ti = &prog->tables[table];
	if (ti->n_keys == 0)
		return rt_errc(-EINVAL, "table %s has no key", ti->name);
	for (uint32_t i = 0; i < ti->n_keys; i++)
		if (ti->keys[i].match_kind != P4DP_MATCH_EXACT)
			return rt_errc(-EINVAL, "table %s: TableOperation and Foreach need exact keys", ti->name);
	return 0;
}

static int exact_table(const struct p4dp_ctx *ctx, uint32_t table)
{
	return ctx == NULL ? rt_errc(-EINVAL, "no context") : exact_table_of(ctx->prog, table);
}

int p4dp_rtc_table_add(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action,
		       const void *data, uint32_t *row)
{
	int rc = exact_table(ctx, table);
	if (rc != 0)
		return rc;
	/* the insert gives the row: the entry's slot, stable until it is deleted */
	return rt_dp_add_row(ctx, table, key, action, data, 0, NULL, row);
}

int p4dp_rtc_table_get(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t *action, void *data,
		       uint32_t *row)
{
	int rc = exact_table(ctx, table);
	if (rc != 0)
		return rc;
	const struct p4dp_entry *e = p4dp_table_lookup(ctx->tables[table], key);
	if (e == NULL)
		return -ENOENT;
	if (action != NULL)
		*action = e->action;
	if (row != NULL)
		*row = e->index;
	if (data != NULL)
		memcpy(data, e->data, ctx->prog->tables[table].data_len);
	return 0;
}

int p4dp_rtc_table_del(struct p4dp_ctx *ctx, uint32_t table, const void *key, struct p4dp_rcu *rcu,
		       uint32_t rcu_thread)
{
	int rc = exact_table(ctx, table);
	if (rc != 0)
		return rc;
	struct p4dp_match m = {.value = key, .mask = NULL, .hi = NULL, .priority = 0};
	/* Offline while we may wait for the mutex: its holder may be waiting for a grace period. */
	if (rcu != NULL)
		p4dp_rcu_thread_offline(rcu, rcu_thread);
	rc = p4dp_table_entry_delete(ctx->tables[table], &m);
	if (rcu != NULL)
		p4dp_rcu_thread_online(rcu, rcu_thread);
	return rc;
}

struct p4dp_rtc_sweep {
	struct p4dp_table *t;
	uint32_t key_len;
	uint32_t cap; /* keys the snapshot holds: the table's capacity */
	uint32_t n;   /* keys in the current snapshot */
	uint32_t pos; /* next key to return (a linear table: the next row to look at) */
	/* a linear table (P4DP_STORAGE_F_LINEAR, the key is the row): the snapshot holds the key of
	 * row r at keys[r], and bit r of this bitmap says whether row r held one, so that the sweep
	 * returns the entries in row order; NULL otherwise (keys[0..n), in the table's walk order) */
	uint64_t *rows;
	uint8_t keys[];
};

static struct p4dp_rtc_sweep *sweep_create(const struct p4dp_program *prog, struct p4dp_table *const *tables,
					    uint32_t table, int socket_id);

struct p4dp_rtc_sweep *p4dp_rtc_sweep_create(struct p4dp_ctx *ctx, uint32_t table, int socket_id)
{
	if (ctx == NULL) {
		rt_err("Foreach: no context");
		return NULL;
	}
	return sweep_create(ctx->prog, ctx->tables, table, socket_id);
}

static struct p4dp_rtc_sweep *sweep_create(const struct p4dp_program *prog, struct p4dp_table *const *tables,
					    uint32_t table, int socket_id)
{
	if (exact_table_of(prog, table) != 0)
		return NULL;
	struct p4dp_table *t = tables[table];
	uint32_t kl = p4dp_table_key_len(t), cap = p4dp_table_max_entries(t);
	const bool linear = (prog->tables[table].storage & P4DP_STORAGE_F_LINEAR) != 0;
	size_t key_bytes = RTE_ALIGN_CEIL((size_t)kl * cap, sizeof(uint64_t));
	size_t bytes = sizeof(struct p4dp_rtc_sweep) + key_bytes +
		       (linear ? ((size_t)cap + 63) / 64 * sizeof(uint64_t) : 0);
	struct p4dp_rtc_sweep *s = rte_zmalloc_socket("p4dp_rtc_sweep", bytes, 64, socket_id);
	if (s == NULL) {
		rt_err("Foreach over %s: no memory for a snapshot of %u keys", p4dp_table_name(t), cap);
		return NULL;
	}
	s->t = t;
	s->key_len = kl;
	s->cap = cap;
	if (linear)
		s->rows = (uint64_t *)(s->keys + key_bytes);
	return s;
}

void p4dp_rtc_sweep_free(struct p4dp_rtc_sweep *s)
{
	rte_free(s);
}

int rt_rtc_sweeps_create(struct p4dp_runtime *rt)
{
	const struct p4dp_program *p = rt->prog;
	for (uint32_t x = 0; x < p->n_externs; x++) {
		const struct p4dp_extern_info *xi = &p->externs[x];
		if (xi->kind != P4DP_EXT_RTC_FOREACH)
			continue;
		/* the program check refused a Foreach without a valid table */
		struct p4dp_rtc_sweep *s = sweep_create(p, rt->tables, (uint32_t)xi->table, rt->socket_id);
		if (s == NULL) {
			char msg[256];
			snprintf(msg, sizeof(msg), "%s", p4dp_runtime_error_get(NULL));
			return rt_errc(-EINVAL, "extern '%s': %s", xi->name, msg);
		}
		for (uint32_t w = 0; w < rt->max_workers; w++)
			rt->ext[w][x] = s;
	}
	return 0;
}

void rt_rtc_sweeps_free(struct p4dp_runtime *rt)
{
	if (rt->ext == NULL || rt->prog == NULL || rt->ext[0] == NULL)
		return;
	for (uint32_t x = 0; x < rt->prog->n_externs; x++) {
		if (rt->prog->externs[x].kind != P4DP_EXT_RTC_FOREACH)
			continue;
		p4dp_rtc_sweep_free(rt->ext[0][x]);
		for (uint32_t w = 0; w < rt->max_workers; w++)
			if (rt->ext[w])
				rt->ext[w][x] = NULL;
	}
}

static int snapshot_key(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	struct p4dp_rtc_sweep *s = arg;
	if (s->n == s->cap)
		return 1; /* cannot happen (entries <= capacity); stop rather than overflow */
	uint32_t at = s->n;
	if (s->rows != NULL) {
		at = e->index; /* < cap: a linear table's row is its key, below its size */
		s->rows[at / 64] |= 1ull << (at % 64);
	}
	memcpy(s->keys + (size_t)at * s->key_len, m->value, s->key_len);
	s->n++;
	return 0;
}

int p4dp_rtc_sweep_begin(struct p4dp_rtc_sweep *s, struct p4dp_rcu *rcu, uint32_t rcu_thread)
{
	s->n = 0;
	s->pos = 0;
	if (s->rows != NULL)
		memset(s->rows, 0, ((size_t)s->cap + 63) / 64 * sizeof(uint64_t));
	if (rcu != NULL)
		p4dp_rcu_thread_offline(rcu, rcu_thread);
	/* The walk holds the table mutex and the insertion spinlock: the keys are those installed
	 * at one instant, each once. */
	int rc = p4dp_table_foreach(s->t, snapshot_key, s);
	if (rcu != NULL)
		p4dp_rcu_thread_online(rcu, rcu_thread);
	if (rc < 0)
		return rc;
	return (int)s->n;
}

/* A linear table's sweep: the next row at or after s->pos that held an entry at the snapshot, or
 * s->cap. */
static uint32_t next_row(const struct p4dp_rtc_sweep *s)
{
	uint64_t r = s->pos; /* 64 bits: the next word's first row may be beyond UINT32_MAX */
	while (r < s->cap) {
		const uint64_t w = s->rows[r / 64] >> (r % 64);
		if (w != 0)
			return (uint32_t)(r + (uint64_t)__builtin_ctzll(w)); /* bits beyond cap are never set */
		r = (r / 64 + 1) * 64;
	}
	return s->cap;
}

const struct p4dp_entry *p4dp_rtc_sweep_next(struct p4dp_rtc_sweep *s, void *key)
{
	const uint32_t end = s->rows != NULL ? s->cap : s->n;
	while (s->pos < end) {
		if (s->rows != NULL) {
			s->pos = next_row(s);
			if (s->pos == s->cap)
				break;
		}
		const uint8_t *k = s->keys + (size_t)s->pos++ * s->key_len;
		/* lock-free lookup: an entry deleted since the snapshot is not found; a found entry
		 * stays readable until our next quiescent state (RCU) */
		const struct p4dp_entry *e = p4dp_table_lookup(s->t, k);
		if (e == NULL)
			continue;
		if (key != NULL)
			memcpy(key, k, s->key_len);
		return e;
	}
	return NULL;
}

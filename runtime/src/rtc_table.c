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
#include "table_internal.h"

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

/* Rows a sweep looks at between two quiescent states of its thread (p4dp_rtc_sweep_next): bounds
 * how long the sweep delays the grace periods of deletes (the release of their rows). */
#define SWEEP_CHUNK_ROWS 1024u

struct p4dp_rtc_sweep {
	struct p4dp_table *t;
	uint32_t key_len;
	uint32_t cap;       /* the table's rows: its capacity */
	uint64_t pos;       /* next row to look at */
	uint64_t chunk_end; /* the row at which the thread next reports a quiescent state */
	struct p4dp_rcu *rcu; /* the sweeping thread's RCU (p4dp_rtc_sweep_begin), or NULL */
	uint32_t rcu_thread;
	struct p4dp_bg_env *env; /* yield every chunk through it (p4dp_rtc_sweep_begin_bg), or NULL */
	uint8_t key[]; /* the key of the entry last returned */
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
	/* from now on the table keeps its row map (each row's key and whether it holds an entry),
	 * which the sweep walks without a lock */
	int rc = table_exact_rows_enable(t);
	if (rc != 0) {
		rt_err("Foreach over %s: %s", p4dp_table_name(t),
		       rc == -ENOMEM ? "no memory for the table's row map" : "not an exact-match table");
		return NULL;
	}
	uint32_t kl = p4dp_table_key_len(t);
	struct p4dp_rtc_sweep *s = rte_zmalloc_socket("p4dp_rtc_sweep", sizeof(*s) + kl, 64, socket_id);
	if (s == NULL) {
		rt_err("Foreach over %s: no memory", p4dp_table_name(t));
		return NULL;
	}
	s->t = t;
	s->key_len = kl;
	s->cap = p4dp_table_max_entries(t);
	s->pos = s->chunk_end = s->cap; /* no sweep begun */
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

int p4dp_rtc_sweep_begin(struct p4dp_rtc_sweep *s, struct p4dp_rcu *rcu, uint32_t rcu_thread)
{
	s->pos = 0;
	s->chunk_end = 0;
	s->rcu = rcu;
	s->rcu_thread = rcu_thread;
	s->env = NULL;
	/* no walk and no lock: p4dp_rtc_sweep_next walks the rows. The count is a relaxed load (the
	 * writers store it relaxed under the insertion spinlock): the entries at about this time. */
	const uint64_t n = __atomic_load_n(&s->t->n_entries, __ATOMIC_RELAXED);
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

int p4dp_rtc_sweep_begin_bg(struct p4dp_rtc_sweep *s, struct p4dp_bg_env *env)
{
	const int n = p4dp_rtc_sweep_begin(s, env != NULL ? env->rcu : NULL, env != NULL ? env->rcu_thread : 0u);
	s->env = env;
	return n;
}

const struct p4dp_entry *p4dp_rtc_sweep_next(struct p4dp_rtc_sweep *s, void *key)
{
	while (s->pos < s->cap) {
		if (s->pos >= s->chunk_end) {
			/* between chunks: the caller holds no entry of ours any more (the last one
			 * returned is valid until this call), so our thread may report a quiescent
			 * state and the deletes' grace periods need not wait for the whole sweep */
			if (s->rcu != NULL)
				p4dp_rcu_quiescent(s->rcu, s->rcu_thread);
			/* ... and a yield point: the pipelines sharing the thread may run an iteration
			 * here (the row map's guarantee holds across it: rows are looked at in order,
			 * each once, whatever ran in between) */
			if (s->env != NULL && s->pos != 0)
				p4dp_rtc_yield(s->env);
			s->chunk_end = s->pos + SWEEP_CHUNK_ROWS;
		}
		const struct p4dp_entry *e = table_exact_row_next(s->t, &s->pos, s->chunk_end, s->key);
		if (e != NULL) {
			if (key != NULL)
				memcpy(key, s->key, s->key_len);
			return e;
		}
	}
	return NULL;
}

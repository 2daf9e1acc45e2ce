/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the table kinds (table_exact.c, table_lpm.c, table_tm.c, table_keyless.c): the
 * slot-index allocator, entry allocation and filling, workers' inserts under the table mutex, deferred reclamation through the table's RCU defer
 * queue, field comparison. The lowest table layer: it calls only rcu.c and DPDK, never a kind or
 * table_common.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "table_internal.h"

int table_field_cmp(const struct p4dp_key_field *f, const uint8_t *a, const uint8_t *b)
{
	if (f->bitwidth > 128)
		return memcmp(a + f->offset, b + f->offset, f->size);
	/* little-endian: compare from the most significant byte down */
	for (int i = (int)f->size - 1; i >= 0; i--) {
		uint8_t x = a[f->offset + i], y = b[f->offset + i];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int table_field_prefix_len(const struct p4dp_key_field *f, const uint8_t *mk)
{
	int len = 0;
	int b = f->bitwidth - 1;
	while (b >= 0 && table_field_bit(f, mk, (uint32_t)b)) {
		len++;
		b--;
	}
	for (; b >= 0; b--)
		if (table_field_bit(f, mk, (uint32_t)b))
			return -1;
	return len;
}

int table_worker_lock(struct p4dp_table *t, uint8_t profile, uint64_t now_ns)
{
	if (pthread_mutex_trylock(&t->lock) != 0) {
		table_wlock(t);
		TABLE_STAT_INC(t->st_dp_busy);
		table_wunlock(t);
		return -EBUSY;
	}
	t->in_worker = true;
	t->worker_now = now_ns;
	t->worker_profile = profile;
	return 0;
}

void table_worker_unlock(struct p4dp_table *t, bool inserted)
{
	t->in_worker = false;
	if (inserted) {
		table_wlock(t);
		t->st_dp_inserts++;
		table_wunlock(t);
	}
	pthread_mutex_unlock(&t->lock);
}

void table_entry_carry_timer(struct p4dp_entry *to, const struct p4dp_entry *from)
{
	/* relaxed: self-contained words; a hit that lands on the old entry after this copy is lost,
	 * which only makes the new entry look idle one hit earlier */
	to->expire_profile = __atomic_load_n(&from->expire_profile, __ATOMIC_RELAXED);
	to->last_hit_ns = __atomic_load_n(&from->last_hit_ns, __ATOMIC_RELAXED);
	to->flags = (uint16_t)(to->flags | (from->flags & (P4DP_ENTRY_F_DP_ADDED | P4DP_ENTRY_F_IDLE_TTL | P4DP_ENTRY_F_META)));
}

int64_t table_idx_alloc(struct p4dp_table *t)
{
	if (t->n_free == 0)
		return -1;
	TABLE_SET_RELAXED(t->n_free, t->n_free - 1);
	const uint32_t idx = t->free_idx[t->n_free];
	if (t->free_pos != NULL)
		t->free_pos[idx] = UINT32_MAX;
	return idx;
}

int64_t table_idx_take(struct p4dp_table *t, uint32_t idx)
{
	if (t->free_pos == NULL || idx >= t->max_entries || t->free_pos[idx] == UINT32_MAX)
		return -1;
	/* move the stack's top into idx's place */
	const uint32_t at = t->free_pos[idx], top = t->free_idx[t->n_free - 1];
	t->free_idx[at] = top;
	t->free_pos[top] = at;
	t->free_pos[idx] = UINT32_MAX;
	TABLE_SET_RELAXED(t->n_free, t->n_free - 1);
	return idx;
}

void table_idx_release(struct p4dp_table *t, uint32_t idx)
{
	/* Cannot overflow: every index in the stack was taken from it. */
	t->free_idx[t->n_free] = idx;
	if (t->free_pos != NULL)
		t->free_pos[idx] = t->n_free;
	TABLE_SET_RELAXED(t->n_free, t->n_free + 1);
}

int64_t table_idx_get(struct p4dp_table *t)
{
	int64_t idx = table_idx_alloc(t);
	if (idx < 0 && t->n_entries < t->max_entries && !t->in_worker) {
		/* Only deleted-but-not-yet-reclaimed entries hold the free slots:
		 * wait for their grace period (spinning on the RCU token). */
		p4dp_rcu_dq_reclaim(t->dq, true);
		idx = table_idx_alloc(t);
	}
	return idx < 0 ? -ENOSPC : idx;
}

void table_entry_fill(struct p4dp_table *t, struct p4dp_entry *e, uint32_t action, const void *data,
		      uint32_t idx, uint32_t flags)
{
	e->action = action;
	e->index = idx;
	e->flags = (uint16_t)flags;
	e->_pad = 0;
	e->lock = 0;
	if (t->in_worker) {
		e->flags = (uint16_t)(e->flags | P4DP_ENTRY_F_DP_ADDED);
		e->expire_profile = t->worker_profile;
		e->last_hit_ns = t->worker_now;
	} else {
		e->expire_profile = 0;
		e->last_hit_ns = table_now(t);
	}
	if (t->data_len > 0) {
		if (data != NULL)
			memcpy(e->data, data, t->data_len);
		else
			memset(e->data, 0, t->data_len);
	}
}

struct p4dp_entry *table_entry_new(struct p4dp_table *t, uint32_t action, const void *data, uint32_t idx,
				   uint32_t flags)
{
	struct p4dp_entry *e = rte_malloc_socket("p4dp_entry", t->entry_size, 16, t->socket_id);
	if (e != NULL)
		table_entry_fill(t, e, action, data, idx, flags);
	return e;
}

static void free_cb(void *ctx, void *p, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	rte_free(p);
}

void table_defer(struct p4dp_table *t, p4dp_rcu_reclaim_fn fn, void *p, uint64_t arg)
{
	if (p4dp_rcu_dq_defer(t->dq, fn, t, p, arg) == 0)
		return;
	if (t->in_worker) {
		/* A worker must never wait for a grace period (it would wait for
		 * itself): reclaim what is due and retry; if the queue still has no
		 * room the memory is leaked (out-of-memory only, counted in dp_busy)
		 * rather than risking a use-after-free or a deadlock. */
		p4dp_rcu_dq_reclaim(t->dq, false);
		if (p4dp_rcu_dq_defer(t->dq, fn, t, p, arg) != 0) {
			table_wlock(t);
			TABLE_STAT_INC(t->st_dp_busy);
			table_wunlock(t);
		}
		return;
	}
	/* Out of memory for the queue: fall back to a synchronous grace period
	 * (spinning, not sleeping), then reclaim now. */
	p4dp_rcu_dq_reclaim(t->dq, true);
	p4dp_rcu_synchronize(t->rcu);
	fn(t, p, arg);
}

void table_defer_free(struct p4dp_table *t, void *p)
{
	if (p != NULL)
		table_defer(t, free_cb, p, 0);
}

/* Reclaim an entry and give its slot index back (table_defer callback). */
void table_entry_idx_reclaim(void *ctx, void *p, uint64_t idx)
{
	struct p4dp_table *t = ctx;
	rte_free(p);
	table_idx_release(t, (uint32_t)idx);
}

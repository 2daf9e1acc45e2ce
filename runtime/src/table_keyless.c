/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keyless tables (no key fields): at most one entry, t->single, which every lookup returns.
 * Writers (the control thread, under the table mutex) publish a complete new entry with one
 * release store of the pointer; readers load it with acquire (p4dp_table_lookup). Replaced and
 * deleted entries are freed after a grace period. Data-plane inserts and idle timeouts do not
 * apply. Calls only table_util.c.
 */
#include <errno.h>
#include <string.h>

#include "table_internal.h"

static int keyless_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	if (m == NULL)
		return -EINVAL;
	if (t->single != NULL)
		return -EEXIST;
	if (t->n_entries >= t->max_entries) {
		TABLE_STAT_INC(t->st_full);
		return -ENOSPC;
	}
	int64_t idx = table_idx_get(t);
	if (idx < 0) {
		TABLE_STAT_INC(t->st_full);
		return (int)idx;
	}
	struct p4dp_entry *e = table_entry_new(t, action, data, (uint32_t)idx, P4DP_ENTRY_F_DYNAMIC);
	if (e == NULL) {
		table_idx_release(t, (uint32_t)idx);
		return -ENOMEM;
	}
	/* Release: the entry's contents are visible before the pointer. Pairs
	 * with the acquire load in p4dp_table_lookup. */
	__atomic_store_n(&t->single, e, __ATOMIC_RELEASE);
	TABLE_SET_RELAXED(t->n_entries, t->n_entries + 1);
	t->st_inserts++;
	return 0;
}

static int keyless_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	if (m == NULL)
		return -EINVAL;
	struct p4dp_entry *old = t->single;
	if (old == NULL)
		return -ENOENT;
	struct p4dp_entry *e = table_entry_new(t, action, data, old->index, P4DP_ENTRY_F_DYNAMIC);
	if (e == NULL)
		return -ENOMEM;
	/* Release publication of the complete new version (see keyless_add). */
	__atomic_store_n(&t->single, e, __ATOMIC_RELEASE);
	table_defer_free(t, old);
	return 0;
}

static int keyless_remove(struct p4dp_table *t)
{
	struct p4dp_entry *old = t->single;
	if (old == NULL)
		return -ENOENT;
	/* Relaxed is enough for NULL: it publishes no memory; the grace period
	 * (token taken after this store, with release) orders the reclaim. */
	__atomic_store_n(&t->single, NULL, __ATOMIC_RELAXED);
	TABLE_SET_RELAXED(t->n_entries, t->n_entries - 1);
	table_defer(t, table_entry_idx_reclaim, old, old->index);
	return 0;
}

static int keyless_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	return m == NULL ? -EINVAL : keyless_remove(t);
}

static int keyless_find(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e)
{
	if (m == NULL)
		return -EINVAL;
	*e = t->single;
	return 0;
}

static int keyless_clear(struct p4dp_table *t)
{
	return t->single != NULL ? keyless_remove(t) : 0;
}

static int keyless_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	if (t->single == NULL)
		return 0;
	struct p4dp_match m = {.value = t->width_mask, .mask = t->width_mask, .hi = NULL, .priority = 0};
	return cb(arg, &m, t->single);
}

static int keyless_create(struct p4dp_table *t)
{
	(void)t; /* the one entry is allocated by add (dynamic storage, set by table_common.c) */
	return 0;
}

static void keyless_free(struct p4dp_table *t)
{
	if (t->single != NULL)
		table_defer_free(t, t->single);
	t->single = NULL;
}

const struct table_kind_ops table_keyless_ops = {
	.kind = TABLE_KIND_KEYLESS,
	.expires = false,
	.create = keyless_create,
	.free = keyless_free,
	.add = keyless_add,
	.modify = keyless_modify,
	.del = keyless_delete,
	.find = keyless_find,
	.clear = keyless_clear,
	.foreach = keyless_foreach,
};

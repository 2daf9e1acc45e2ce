/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p4dp tables (table.h): memory model, parameter checks, creation, and the public entry points.
 * Control-path operations dispatch through the table's kind (struct table_kind_ops:
 * table_exact.c for all-exact keys on rte_hash, table_lpm.c for one lpm field with exact
 * fields (a multibit trie), table_tm.c for a merged tuple space (TupleMerge) of the other keys, table_keyless.c); the kinds never call back into this file (their shared helpers are in
 * table_util.c). The lookups, on every packet, call each kind's lookup directly (a switch on
 * t->kind, no indirect call).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "table_internal.h"

/* ---------------------------------------------------------------- helpers */

/*
 * Memory model (Eq. 2 and 4 of Simon et al., "High-Performance Match-Action Table Updates from
 * within Programmable Software Data Planes", recomputed for p4dp's layout on DPDK
 * 22.11; ARCHITECTURE.md "Entry storage and memory model" derives it):
 *   E   = max(s, 64) hash entries,  B = pow2(E) / 8 buckets of 64 B (main + ext)
 *   hash = 2*B*64 + (E+1)*[8+k]_16 + 4*pow2(E+1) + 4*pow2(B+1)    (buckets, key store, rings)
 *          + X*(b + 4) + 4*s  for k <= 16 and s <= 2^24: the read index (table_xindex.c),
 *            X = max(pow2(ceil(2s/4)), 2) buckets of b = 64 B (k <= 8) or 128 B, a busy byte per
 *            slot, a slot per entry
 *   idx  = 4*(s+1)                                                  (free slot-index stack)
 *   m_static(s)     = hash + idx + s*[24+A]_16                       (slot array)
 *   m_dynamic(n, s) = hash + idx + n*(64 + [24+A]_64)                (rte_malloc header + entry)
 * where s = capacity, n = expected entries, k = key bytes, A = action-data bytes,
 * 24 = sizeof(struct p4dp_entry). AUTO picks the smaller; ties go to static.
 */
static uint64_t pow2_ceil(uint64_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

int p4dp_table_mem_predict(uint32_t size, uint32_t key_len, uint32_t data_len, uint32_t fill_pct,
			   struct p4dp_table_mem *out)
{
	if (out == NULL || key_len == 0 || key_len > P4DP_TABLE_KEY_MAX || fill_pct > 100 || data_len > 65536)
		return -EINVAL;
	if (fill_pct == 0)
		fill_pct = 100;
	uint64_t s = size;
	uint64_t E = RTE_MAX(s, 64u);
	uint64_t B = pow2_ceil(E) / 8;
	uint64_t key_slot = RTE_ALIGN_CEIL(8u + (uint64_t)key_len, 16);
	uint64_t hash = 2 * B * 64 + (E + 1) * key_slot + 4 * pow2_ceil(E + 1) + 4 * pow2_ceil(B + 1);
	if (key_len <= P4DP_XI_KEY_MAX && s > 0 && s <= TABLE_XI_MAX_ENTRIES) {
		/* the read index (table_xindex.c): buckets of 4 slots for twice the capacity, a busy
		 * byte per slot, a slot number per entry index */
		const uint64_t nb = p4dp_xi_buckets((uint32_t)s);
		hash += nb * p4dp_xi_bucket_bytes(key_len) + nb * P4DP_XI_WAYS + 4 * s;
	}
	uint64_t idx = 4 * (s + 1);
	uint64_t hdr = sizeof(struct p4dp_entry);
	uint64_t slot = RTE_ALIGN_CEIL(hdr + data_len, 16);
	uint64_t dyn = 64 + RTE_ALIGN_CEIL(hdr + data_len, 64);
	uint64_t n = (s * fill_pct + 99) / 100;
	out->hash_bytes = hash;
	out->static_bytes = hash + idx + s * slot;
	out->dynamic_bytes = hash + idx + n * dyn;
	out->slot_bytes = (uint32_t)slot;
	out->dyn_entry_bytes = (uint32_t)dyn;
	out->choice = out->static_bytes <= out->dynamic_bytes ? P4DP_STORAGE_STATIC : P4DP_STORAGE_DYNAMIC;
	return 0;
}

int p4dp_table_storage_choose(const struct p4dp_table_params *p)
{
	struct p4dp_table_mem m;
	if (p == NULL || p4dp_table_mem_predict(p->max_entries, p->key_len ? p->key_len : 1, p->data_len,
						p->fill_pct <= 100 ? p->fill_pct : 100, &m) != 0)
		return P4DP_STORAGE_STATIC;
	return m.choice;
}

/* ------------------------------------------------------------- creation */

static int field_width_mask(const struct p4dp_key_field *f, uint8_t *wm)
{
	uint32_t full = f->bitwidth / 8, rem = f->bitwidth % 8;
	if (f->bitwidth <= 128) {
		for (uint32_t i = 0; i < full; i++)
			wm[f->offset + i] = 0xff;
		if (rem)
			wm[f->offset + full] = (uint8_t)((1u << rem) - 1);
	} else {
		/* big-endian, right-aligned: the last `full` bytes are full */
		for (uint32_t i = 0; i < full; i++)
			wm[f->offset + f->size - 1 - i] = 0xff;
		if (rem)
			wm[f->offset + f->size - 1 - full] = (uint8_t)((1u << rem) - 1);
	}
	return 0;
}

static int check_params(const struct p4dp_table_params *p)
{
	if (p == NULL || p->key_len > P4DP_TABLE_KEY_MAX || p->n_fields > P4DP_TABLE_FIELDS_MAX)
		return -EINVAL;
	if (p->n_fields > 0 && p->fields == NULL)
		return -EINVAL;
	if ((p->n_fields == 0) != (p->key_len == 0))
		return -EINVAL;
	if (p->data_len > 65536)
		return -EINVAL;
	if (p->storage != P4DP_STORAGE_AUTO && p->storage != P4DP_STORAGE_STATIC &&
	    p->storage != P4DP_STORAGE_DYNAMIC)
		return -EINVAL;
	for (uint32_t i = 0; i < p->n_fields; i++) {
		const struct p4dp_key_field *f = &p->fields[i];
		if (f->match_kind > P4DP_MATCH_OPTIONAL || f->bitwidth == 0)
			return -EINVAL;
		if (f->bitwidth <= 128) {
			if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8 && f->size != 16)
				return -EINVAL;
			if (f->bitwidth > 8u * f->size)
				return -EINVAL;
		} else if (f->size != (f->bitwidth + 7) / 8) {
			return -EINVAL;
		}
		if ((uint32_t)f->offset + f->size > p->key_len)
			return -EINVAL;
		for (uint32_t j = 0; j < i; j++) {
			const struct p4dp_key_field *g = &p->fields[j];
			if (f->offset < g->offset + g->size && g->offset < f->offset + f->size)
				return -EINVAL;
		}
	}
	return 0;
}

/* The entries from which p4dp_table_stage_ahead() answers 1: P4DP_STAGE_AHEAD_MIN_ENTRIES, or the
 * environment's P4DP_STAGE_AHEAD_MIN (a decimal count; 0: always) for tests and measurements
 * (docs/testing.md). */
uint64_t p4dp_table_stage_ahead_min(void)
{
	const char *v = getenv("P4DP_STAGE_AHEAD_MIN");
	if (v == NULL || *v == '\0')
		return P4DP_STAGE_AHEAD_MIN_ENTRIES;
	char *end = NULL;
	errno = 0;
	const unsigned long long n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || *v == '-')
		return P4DP_STAGE_AHEAD_MIN_ENTRIES;
	return n;
}

struct p4dp_table *p4dp_table_create(const struct p4dp_table_params *p, struct p4dp_rcu *rcu)
{
	int rc = check_params(p);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	struct p4dp_table *t = rte_zmalloc_socket("p4dp_table", sizeof(*t), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->key_len = p->key_len;
	t->data_len = p->data_len;
	t->max_entries = p->max_entries;
	t->n_fields = p->n_fields;
	t->socket_id = p->socket_id;
	t->entry_size = RTE_ALIGN_CEIL((uint32_t)sizeof(struct p4dp_entry) + p->data_len, 16);
	t->rcu = rcu;
	t->clock = p->clock;
	t->clock_arg = p->clock_arg;
	t->dp_writes = p->dp_writes != 0;
	t->stage_min = p4dp_table_stage_ahead_min();
	t->shared_answers = p->shared_answers != 0;
	{
		static const uint64_t defaults[P4DP_EXPIRE_PROFILES] = P4DP_EXPIRE_DEFAULTS_NS;
		memcpy(t->expire_ns, defaults, sizeof(defaults));
	}
	snprintf(t->name, sizeof(t->name), "%s", p->name ? p->name : "");
	rc = -ENOMEM;
	t->fields = calloc(p->n_fields ? p->n_fields : 1, sizeof(*t->fields));
	t->width_mask = calloc(p->key_len ? p->key_len : 1, 1);
	t->free_idx = malloc(((size_t)p->max_entries + 1) * sizeof(uint32_t));
	t->dq = p4dp_rcu_dq_create(rcu, p->socket_id);
	if (t->fields == NULL || t->width_mask == NULL || t->free_idx == NULL || t->dq == NULL)
		goto fail;
	memcpy(t->fields, p->fields, p->n_fields * sizeof(*t->fields));
	bool all_exact = true, only_exact_lpm = true;
	for (uint32_t i = 0; i < p->n_fields; i++) {
		field_width_mask(&p->fields[i], t->width_mask);
		uint8_t k = p->fields[i].match_kind;
		if (k != P4DP_MATCH_EXACT)
			all_exact = false;
		if (k != P4DP_MATCH_EXACT && k != P4DP_MATCH_LPM)
			only_exact_lpm = false;
		if (k == P4DP_MATCH_RANGE)
			t->has_range = true;
	}
	t->prio_is_prefix = only_exact_lpm;
	/* Free-index stack: pop order 0, 1, 2, ... */
	for (uint32_t i = 0; i < p->max_entries; i++)
		t->free_idx[i] = p->max_entries - 1 - i;
	t->n_free = p->max_entries;
	if (p->linear) {
		/* the key is the row: one exact field of at most 32 bits, read as a number */
		rc = -EINVAL;
		if (p->n_fields != 1 || p->fields[0].match_kind != P4DP_MATCH_EXACT || p->fields[0].bitwidth > 32 ||
		    p->fields[0].size > 4)
			goto fail;
		rc = -ENOMEM;
		t->free_pos = malloc(((size_t)p->max_entries + 1) * sizeof(uint32_t));
		if (t->free_pos == NULL)
			goto fail;
		for (uint32_t i = 0; i < p->max_entries; i++)
			t->free_pos[t->free_idx[i]] = i;
		t->linear = true;
	}

	if (p->n_fields == 0) {
		t->ops = &table_keyless_ops;
		t->storage = P4DP_STORAGE_DYNAMIC;
	} else if (all_exact) {
		t->ops = &table_exact_ops;
		t->storage = p->storage == P4DP_STORAGE_AUTO ? p4dp_table_storage_choose(p) : p->storage;
	} else if (table_lpm_accepts(p->fields, p->n_fields)) {
		t->ops = &table_lpm_ops;
		t->storage = P4DP_STORAGE_DYNAMIC;
	} else {
		t->ops = &table_tm_ops;
		t->storage = P4DP_STORAGE_DYNAMIC;
	}
	t->kind = t->ops->kind;
	rc = t->ops->create(t);
	if (rc != 0)
		goto fail;
	return t;
fail:
	p4dp_rcu_dq_free(t->dq);
	free(t->fields);
	free(t->width_mask);
	free(t->free_idx);
	free(t->free_pos);
	free(t->ttl);
	free(t->meta);
	pthread_mutex_destroy(&t->lock);
	rte_free(t);
	errno = -rc;
	return NULL;
}

void p4dp_table_free(struct p4dp_table *t)
{
	if (t == NULL)
		return;
	pthread_mutex_lock(&t->lock);
	t->ops->free(t);
	p4dp_rcu_dq_free(t->dq); /* waits for the grace periods of everything queued */
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_destroy(&t->lock);
	free(t->fields);
	free(t->width_mask);
	free(t->free_idx);
	free(t->free_pos);
	free(t->ttl);
	for (uint32_t i = 0; t->meta != NULL && i < t->max_entries; i++)
		free(t->meta[i].bytes);
	free(t->meta);
	rte_free(t);
}

/* ------------------------------------------------------- public entry points */

/* Under the table mutex, before every write: reclaim what is due, let the kind fold back. */
static void maintain_locked(struct p4dp_table *t)
{
	p4dp_rcu_dq_reclaim(t->dq, false);
	if (t->ops->maintain != NULL)
		t->ops->maintain(t);
}

int p4dp_table_entry_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	maintain_locked(t);
	int rc = t->ops->add(t, m, action, data); /* counts st_inserts itself */
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int p4dp_table_entries_add(struct p4dp_table *t, uint32_t n, p4dp_table_entry_build_fn build, void *arg,
			   uint32_t *done)
{
	if (t == NULL || build == NULL || done == NULL)
		return -EINVAL;
	*done = 0;
	int rc = 0;
	uint32_t i = 0;
	while (i < n && rc == 0) {
		/* The mutex is released every P4DP_TABLE_BATCH_HOLD entries: a worker's data-plane
		 * insert only tries it (and counts the miss), and other control threads wait for it,
		 * so one hold stays short. */
		uint32_t end = n - i > P4DP_TABLE_BATCH_HOLD ? i + P4DP_TABLE_BATCH_HOLD : n;
		pthread_mutex_lock(&t->lock);
		maintain_locked(t);
		/* perf: entry i + 1 is built, and where it goes prefetched, before entry i is added, so
		 * that its cache misses overlap entry i's add (build keeps the two latest valid) */
		const struct p4dp_match *m = NULL;
		uint32_t action = 0;
		const void *data = NULL;
		int built = build(arg, i, &m, &action, &data);
		for (; i < end; i++) {
			if ((rc = built) != 0)
				break;
			const struct p4dp_match *next_m = NULL;
			uint32_t next_action = 0;
			const void *next_data = NULL;
			if (i + 1 < end) {
				built = build(arg, i + 1, &next_m, &next_action, &next_data);
				if (built == 0 && t->ops->prefetch != NULL)
					t->ops->prefetch(t, next_m);
			}
			if ((rc = t->ops->add(t, m, action, data)) != 0) /* counts st_inserts itself */
				break;
			m = next_m;
			action = next_action;
			data = next_data;
		}
		pthread_mutex_unlock(&t->lock);
	}
	*done = i;
	return rc;
}

int p4dp_table_entry_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	maintain_locked(t);
	int rc = t->ops->modify(t, m, action, data);
	if (rc == 0)
		t->st_modifies++;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* Delete under the mutex, freeing the entry's metadata (looked up first only if the table has
 * any: deletes of tables without metadata cost what they did). */
static int delete_locked(struct p4dp_table *t, const struct p4dp_match *m)
{
	const struct p4dp_entry *e = NULL;
	int64_t meta_idx = -1;
	if (t->meta != NULL && t->ops->find(t, m, &e) == 0 && e != NULL && (e->flags & P4DP_ENTRY_F_META))
		meta_idx = e->index;
	int rc = t->ops->del(t, m);
	if (rc == 0 && meta_idx >= 0)
		table_meta_release(t, (uint32_t)meta_idx);
	return rc;
}

int p4dp_table_entry_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	maintain_locked(t);
	int rc = delete_locked(t, m);
	if (rc == 0)
		t->st_deletes++;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int p4dp_table_entry_get(struct p4dp_table *t, const struct p4dp_match *m, uint32_t *action, void *data,
			 uint32_t *index)
{
	if (t == NULL)
		return -EINVAL;
	const struct p4dp_entry *e = NULL;
	pthread_mutex_lock(&t->lock);
	int rc = t->ops->find(t, m, &e);
	if (rc == 0 && e == NULL)
		rc = -ENOENT;
	if (rc == 0) {
		if (action)
			*action = e->action;
		if (index)
			*index = e->index;
		if (data && t->data_len)
			memcpy(data, e->data, t->data_len);
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int p4dp_table_clear(struct p4dp_table *t)
{
	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	maintain_locked(t);
	uint64_t before = t->n_entries;
	int rc = t->ops->clear(t);
	t->st_deletes += before - t->n_entries;
	for (uint32_t i = 0; rc == 0 && t->meta != NULL && i < t->max_entries; i++)
		table_meta_release(t, i);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int p4dp_table_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	if (t == NULL || cb == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	int rc = t->ops->foreach(t, cb, arg);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

unsigned p4dp_table_maintain(struct p4dp_table *t)
{
	if (t == NULL)
		return 0;
	pthread_mutex_lock(&t->lock);
	unsigned n = p4dp_rcu_dq_reclaim(t->dq, false);
	if (t->ops->maintain != NULL)
		n += t->ops->maintain(t);
	pthread_mutex_unlock(&t->lock);
	return n;
}

int p4dp_table_stats_get(struct p4dp_table *t, struct p4dp_table_stats *st)
{
	if (t == NULL || st == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	memset(st, 0, sizeof(*st));
	table_wlock(t); /* a consistent snapshot against data-plane inserts */
	st->entries = t->n_entries;
	st->capacity = t->max_entries;
	st->inserts = t->st_inserts;
	st->deletes = t->st_deletes;
	st->modifies = t->st_modifies;
	/* relaxed: statistics counted with relaxed adds (TABLE_STAT_INC); the spinlock above orders the rest */
	st->table_full = __atomic_load_n(&t->st_full, __ATOMIC_RELAXED);
	st->dp_inserts = t->st_dp_inserts;
	st->dp_busy = __atomic_load_n(&t->st_dp_busy, __ATOMIC_RELAXED);
	st->free_slots = t->n_free;
	st->pending_slots = t->max_entries - t->n_entries - t->n_free;
	table_wunlock(t);
	st->expired = t->st_expired;
	st->idle_notified = t->st_notified;
	st->meta_entries = t->n_meta;
	st->pending_reclaim = p4dp_rcu_dq_pending(t->dq);
	st->kind = t->kind;
	st->storage = (uint32_t)t->storage;
	if (t->ops->stats != NULL)
		t->ops->stats(t, st);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

const char *p4dp_table_name(const struct p4dp_table *t) { return t->name; }
uint32_t p4dp_table_key_len(const struct p4dp_table *t) { return t->key_len; }
uint32_t p4dp_table_data_len(const struct p4dp_table *t) { return t->data_len; }
uint32_t p4dp_table_max_entries(const struct p4dp_table *t) { return t->max_entries; }

/* ------------------------------------------- data-plane inserts, idle timeout */

uint64_t p4dp_table_ins_gen(const struct p4dp_table *t)
{
	/* acquire: pairs with table_exact_insert's release store after the hash insert */
	return __atomic_load_n(&t->ins_gen, __ATOMIC_ACQUIRE);
}

int p4dp_table_dp_insert(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			 uint32_t profile, uint64_t now_ns)
{
	return p4dp_table_dp_insert_seen(t, key, action, data, profile, now_ns, NULL);
}

int p4dp_table_dp_insert_seen(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			      uint32_t profile, uint64_t now_ns, uint64_t *seen)
{
	return p4dp_table_dp_insert_row(t, key, action, data, profile, now_ns, seen, NULL);
}

int p4dp_table_dp_insert_row(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			uint32_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row)
{
	if (t == NULL || key == NULL || profile >= P4DP_EXPIRE_PROFILES)
		return -EINVAL;
	const uint8_t *k = key;
	for (uint32_t i = 0; i < t->key_len; i++)
		if (k[i] & ~t->width_mask[i])
			return -EINVAL; /* bits outside the fields: unreachable by the control plane */
	if (t->ops->dp_insert == NULL)
		return -EINVAL; /* keyless: nothing to insert */
	return t->ops->dp_insert(t, k, action, data, (uint8_t)profile, now_ns, seen, row);
}

int p4dp_table_expire_profile_set(struct p4dp_table *t, uint32_t profile, uint64_t ns)
{
	if (t == NULL || profile >= P4DP_EXPIRE_PROFILES)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	t->expire_ns[profile] = ns; /* read by the scan only, under the mutex */
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int p4dp_table_expire_profile_get(struct p4dp_table *t, uint32_t profile, uint64_t *ns)
{
	if (t == NULL || ns == NULL || profile >= P4DP_EXPIRE_PROFILES)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	*ns = t->expire_ns[profile];
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* Has @p e expired at @p now? Relaxed loads: workers store the timer fields
 * concurrently; a stale value only moves the expiry to the next scan. Entries with their own
 * TTL count from the later of the last hit and the timer's restart (t->ttl: table mutex held).
 * *idle is the time since the last hit. */
static bool entry_expired(const struct p4dp_table *t, const struct p4dp_entry *e, uint64_t now, uint64_t *idle)
{
	/* relaxed: a worker's hit stores a time and nothing else with it (p4dp_entry_touch); a stale
	 * value only moves this expiry decision to the next scan */
	uint64_t last = __atomic_load_n(&e->last_hit_ns, __ATOMIC_RELAXED);
	uint64_t d, from = last;
	if (e->flags & P4DP_ENTRY_F_IDLE_TTL) {
		const struct table_ttl *s = &t->ttl[e->index];
		d = s->ttl_ns;
		if (s->restart_ns > from)
			from = s->restart_ns;
	} else {
		/* relaxed: the profile index is self-contained (set_expire publishes nothing with it) */
		uint8_t prof = __atomic_load_n(&e->expire_profile, __ATOMIC_RELAXED);
		d = t->expire_ns[prof % P4DP_EXPIRE_PROFILES];
	}
	if (d == 0 || now < from)
		return false;
	*idle = now - last;
	return now - from >= d;
}

int p4dp_table_entry_ttl_set(struct p4dp_table *t, const struct p4dp_match *m, uint64_t ttl_ns, uint64_t now_ns)
{
	if (t == NULL || m == NULL || !t->ops->expires)
		return -EINVAL;
	const struct p4dp_entry *e = NULL;
	pthread_mutex_lock(&t->lock);
	int rc = 0;
	if (t->ttl == NULL && (t->ttl = calloc(t->max_entries ? t->max_entries : 1, sizeof(*t->ttl))) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && (rc = t->ops->find(t, m, &e)) == 0 && e == NULL)
		rc = -ENOENT;
	if (rc == 0) {
		t->ttl[e->index] = (struct table_ttl){ttl_ns, now_ns};
		/* flags: control-thread-only field (workers never read it), under the mutex */
		struct p4dp_entry *me = (struct p4dp_entry *)(uintptr_t)e;
		me->flags = (uint16_t)((me->flags | P4DP_ENTRY_F_IDLE_TTL) & ~P4DP_ENTRY_F_IDLE_NOTIFIED);
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void table_meta_release(struct p4dp_table *t, uint32_t idx)
{
	if (t->meta == NULL || idx >= t->max_entries)
		return;
	if (t->meta[idx].bytes != NULL)
		t->n_meta--;
	free(t->meta[idx].bytes);
	t->meta[idx] = (struct table_meta){NULL, 0};
}

int p4dp_table_entry_meta_set(struct p4dp_table *t, const struct p4dp_match *m, const void *meta, uint32_t len)
{
	if (t == NULL || m == NULL || (len > 0 && meta == NULL) || len > P4DP_ENTRY_META_MAX)
		return -EINVAL;
	uint8_t *copy = NULL;
	if (len > 0 && (copy = malloc(len)) == NULL)
		return -ENOMEM;
	if (len > 0)
		memcpy(copy, meta, len);
	const struct p4dp_entry *e = NULL;
	pthread_mutex_lock(&t->lock);
	int rc = 0;
	/* the array is made by the first metadata; removing none from a table without it is free */
	if (len > 0 && t->meta == NULL && (t->meta = calloc(t->max_entries ? t->max_entries : 1, sizeof(*t->meta))) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && (rc = t->ops->find(t, m, &e)) == 0 && e == NULL)
		rc = -ENOENT;
	if (rc == 0 && t->meta != NULL) {
		table_meta_release(t, e->index);
		t->meta[e->index] = (struct table_meta){copy, len};
		t->n_meta += copy != NULL;
		copy = NULL;
		/* flags: control-thread-only field (workers never read it), under the mutex */
		struct p4dp_entry *me = (struct p4dp_entry *)(uintptr_t)e;
		me->flags = (uint16_t)(len > 0 ? me->flags | P4DP_ENTRY_F_META : me->flags & ~P4DP_ENTRY_F_META);
	}
	pthread_mutex_unlock(&t->lock);
	free(copy);
	return rc;
}

uint64_t p4dp_table_meta_entries(struct p4dp_table *t)
{
	if (t == NULL)
		return 0;
	pthread_mutex_lock(&t->lock);
	uint64_t n = t->n_meta;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int p4dp_table_entry_meta_get(struct p4dp_table *t, const struct p4dp_match *m, void *buf, uint32_t cap,
			      uint32_t *len)
{
	if (t == NULL || m == NULL || len == NULL || (cap > 0 && buf == NULL))
		return -EINVAL;
	const struct p4dp_entry *e = NULL;
	pthread_mutex_lock(&t->lock);
	int rc = t->ops->find(t, m, &e);
	if (rc == 0 && e == NULL)
		rc = -ENOENT;
	if (rc == 0) {
		*len = 0;
		if ((e->flags & P4DP_ENTRY_F_META) && t->meta != NULL) {
			const struct table_meta *s = &t->meta[e->index];
			*len = s->len;
			if (cap > 0)
				memcpy(buf, s->bytes, s->len < cap ? s->len : cap);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int p4dp_table_entry_idle_get(struct p4dp_table *t, const struct p4dp_match *m, struct p4dp_table_idle *out)
{
	if (t == NULL || m == NULL || out == NULL)
		return -EINVAL;
	const struct p4dp_entry *e = NULL;
	pthread_mutex_lock(&t->lock);
	int rc = t->ops->find(t, m, &e);
	if (rc == 0 && e == NULL)
		rc = -ENOENT;
	if (rc == 0) {
		/* relaxed: workers store it concurrently (p4dp_entry_touch); a value up to one
		 * burst old is as good as any, and 64-bit aligned loads are not torn */
		/* relaxed, both: self-contained words a report may read one hit late (see entry_expired) */
		out->last_hit_ns = __atomic_load_n(&e->last_hit_ns, __ATOMIC_RELAXED);
		out->own_ttl = (e->flags & P4DP_ENTRY_F_IDLE_TTL) != 0;
		if (out->own_ttl) {
			out->ttl_ns = t->ttl[e->index].ttl_ns;
			out->restart_ns = t->ttl[e->index].restart_ns;
		} else {
			uint8_t prof = __atomic_load_n(&e->expire_profile, __ATOMIC_RELAXED);
			out->ttl_ns = t->ops->expires ? t->expire_ns[prof % P4DP_EXPIRE_PROFILES] : 0;
			out->restart_ns = 0;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

struct exp_walk {
	struct p4dp_table *t;
	uint64_t now;
	int auto_delete;
	uint8_t *buf; /* records: int32 priority, then value, mask, hi (key_len each) */
	size_t n, cap, rec;
	int oom;
};

static int exp_collect_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	struct exp_walk *w = arg;
	struct p4dp_table *t = w->t;
	struct p4dp_entry *me = (struct p4dp_entry *)(uintptr_t)e; /* flags: control-thread only */
	uint64_t idle;
	if (!entry_expired(t, e, w->now, &idle)) {
		me->flags = (uint16_t)(me->flags & ~P4DP_ENTRY_F_IDLE_NOTIFIED); /* hit again: re-arm */
		return 0;
	}
	/* own TTL: the report restarts the timer instead (below), so no flag holds it back */
	if (!w->auto_delete && (e->flags & P4DP_ENTRY_F_IDLE_NOTIFIED) && !(e->flags & P4DP_ENTRY_F_IDLE_TTL))
		return 0;
	if (w->n == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 64;
		uint8_t *nb = realloc(w->buf, nc * w->rec);
		if (nb == NULL) {
			w->oom = 1;
			return 1;
		}
		w->buf = nb;
		w->cap = nc;
	}
	uint8_t *r = w->buf + w->n++ * w->rec;
	uint32_t kl = t->key_len;
	memcpy(r, &m->priority, sizeof(int32_t));
	memcpy(r + 4, m->value, kl);
	memcpy(r + 4 + kl, m->mask ? m->mask : t->width_mask, kl);
	if (m->hi)
		memcpy(r + 4 + 2 * kl, m->hi, kl);
	else
		memset(r + 4 + 2 * kl, 0, kl);
	return 0;
}

int p4dp_table_expire_scan(struct p4dp_table *t, uint64_t now_ns, int auto_delete, p4dp_table_expire_cb cb,
			   void *arg)
{
	if (t == NULL)
		return -EINVAL;
	if (!t->ops->expires)
		return 0; /* keyless tables have no idle timeout */
	struct exp_walk w = {.t = t, .now = now_ns, .auto_delete = auto_delete, .rec = 4 + 3 * (size_t)t->key_len};
	pthread_mutex_lock(&t->lock);
	maintain_locked(t);
	t->ops->foreach(t, exp_collect_cb, &w);
	int found = 0;
	for (size_t i = 0; i < w.n; i++) {
		uint8_t *r = w.buf + i * w.rec;
		struct p4dp_match m = {.value = r + 4, .mask = r + 4 + t->key_len, .hi = r + 4 + 2 * t->key_len};
		memcpy(&m.priority, r, sizeof(int32_t));
		const struct p4dp_entry *e = NULL;
		if (t->ops->find(t, &m, &e) != 0)
			e = NULL;
		uint64_t idle;
		if (e == NULL || !entry_expired(t, e, now_ns, &idle)) /* hit since the walk */
			continue;
		found++;
		if (cb != NULL) {
			cb(arg, &m, e, idle);
			t->st_notified++;
		}
		if (auto_delete) {
			int rc = delete_locked(t, &m);
			if (rc == 0) {
				t->st_deletes++;
				t->st_expired++;
			}
		} else if (e->flags & P4DP_ENTRY_F_IDLE_TTL) {
			t->ttl[e->index].restart_ns = now_ns; /* reported: the next report one TTL later */
		} else {
			struct p4dp_entry *me = (struct p4dp_entry *)(uintptr_t)e;
			me->flags = (uint16_t)(me->flags | P4DP_ENTRY_F_IDLE_NOTIFIED);
		}
	}
	pthread_mutex_unlock(&t->lock);
	free(w.buf);
	return w.oom ? -ENOMEM : found;
}

/* ------------------------------------------------------------ fast path */

const struct p4dp_entry *p4dp_table_lookup(struct p4dp_table *t, const void *key)
{
	switch (t->kind) {
	case TABLE_KIND_EXACT:
		return table_exact_lookup(t, key);
	case TABLE_KIND_KEYLESS:
		/* Acquire: pairs with the writer's release store, so the entry's
		 * contents are visible once the pointer is. */
		return __atomic_load_n(&t->single, __ATOMIC_ACQUIRE);
	case TABLE_KIND_LPM:
		return table_lpm_lookup(t, key);
	default:
		return table_tm_lookup(t, key);
	}
}

void p4dp_table_prefetch_inserts(struct p4dp_table *t, const void *const *keys, uint32_t n,
				 const struct p4dp_entry *const *out)
{
	if (t->kind == TABLE_KIND_EXACT)
		table_exact_prefetch_inserts(t, keys, n, out);
}

int p4dp_table_stage_ahead(const struct p4dp_table *t)
{
	return __atomic_load_n(&t->n_entries, __ATOMIC_RELAXED) >= t->stage_min;
}

void p4dp_table_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			    const struct p4dp_entry **out)
{
	switch (t->kind) {
	case TABLE_KIND_EXACT:
		table_exact_lookup_bulk(t, keys, n, out);
		return;
	case TABLE_KIND_KEYLESS: {
		const struct p4dp_entry *e = __atomic_load_n(&t->single, __ATOMIC_ACQUIRE); /* as above */
		for (uint32_t i = 0; i < n; i++)
			out[i] = e;
		return;
	}
	case TABLE_KIND_LPM:
		table_lpm_lookup_bulk(t, keys, n, out);
		return;
	default:
		table_tm_lookup_bulk(t, keys, n, out);
		return;
	}
}

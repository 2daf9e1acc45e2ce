/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by table_common.c, table_exact.c and table_tss.c. */
#ifndef P4DP_TABLE_INTERNAL_H
#define P4DP_TABLE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_pause.h>

#include "p4dp/rcu.h"
#include "p4dp/table.h"

enum table_kind {
	TABLE_KIND_EXACT = 0,
	TABLE_KIND_KEYLESS = 1,
	TABLE_KIND_TSS = 2,
};

struct table_exact;
struct table_tss;

struct p4dp_table {
	/* read by workers on every lookup */
	uint32_t kind;
	uint32_t key_len;
	struct table_exact *ex;
	struct table_tss *tss;
	/* keyless table: the one entry or NULL. Written with release by the writer,
	 * read with acquire by readers (see table_common.c). */
	struct p4dp_entry *single;

	/* control side */
	uint32_t data_len;
	uint32_t max_entries;
	uint32_t n_fields;
	uint32_t entry_size; /* sizeof(struct p4dp_entry) + data_len, 16-byte aligned */
	int storage;
	int socket_id;
	struct p4dp_key_field *fields;
	uint8_t *width_mask;   /* key_len bytes: the bits each key byte may carry */
	bool prio_is_prefix;   /* only exact + lpm fields: priority = total prefix length */
	bool has_range;
	char name[64];
	struct p4dp_rcu *rcu;
	struct p4dp_rcu_dq *dq; /* owned; used under lock */
	pthread_mutex_t lock;

	/* index allocator: a stack of free slot ids in [0,max_entries) */
	uint32_t *free_idx;
	uint32_t n_free;

	/* Insertion spinlock (exact tables): serializes every mutation of the hash,
	 * the index allocator, n_entries and the counters below it, between
	 * data-plane inserts (workers) and control-plane writes (which also hold
	 * `lock`). Held for O(1) work only, never across a grace period. */
	uint32_t wlock;
	/* Insert generation (exact tables): incremented, under wlock and with a release store,
	 * after every key the hash gains (never by a modify or delete). An acquire load of it
	 * before a lookup that misses lets a later insert of that key skip the existence check
	 * while it is unchanged (p4dp_table_dp_insert_seen). */
	uint64_t ins_gen;
	bool in_worker;        /* tuple space: a worker holds `lock` (no grace-period waits) */
	uint8_t worker_profile; /* with in_worker: timer state of the entry being inserted */
	uint64_t worker_now;
	bool dp_writes;        /* data plane may write entries: never fold side versions back */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	uint64_t expire_ns[P4DP_EXPIRE_PROFILES];

	uint64_t n_entries;
	uint64_t st_inserts, st_deletes, st_modifies, st_full;
	uint64_t st_dp_inserts, st_dp_busy, st_expired, st_notified;
};

/* Statistics a worker may count without the insertion spinlock (st_full, st_dp_busy: the
 * lock-free answer of a data-plane insert into a full exact table, table_exact_insert): every
 * update is a relaxed atomic add and every read a relaxed load. n_free and the n_entries of
 * exact tables are written only under the spinlock, with relaxed atomic stores, so that the
 * same insert may read them (relaxed) as a hint without it. */
#define TABLE_STAT_INC(x) ((void)__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED))
#define TABLE_SET_RELAXED(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The insertion spinlock. Acquire on lock / release on unlock order every
 * access to the state it protects; the test-and-test-and-set loop spins with
 * relaxed loads (ordering nothing) and rte_pause. */
static inline void table_wlock(struct p4dp_table *t)
{
	while (__atomic_exchange_n(&t->wlock, 1u, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(&t->wlock, __ATOMIC_RELAXED) != 0)
			rte_pause();
}

static inline void table_wunlock(struct p4dp_table *t)
{
	__atomic_store_n(&t->wlock, 0u, __ATOMIC_RELEASE);
}

/** Control-plane clock for new entries' last-hit time. */
static inline uint64_t table_now(const struct p4dp_table *t)
{
	return t->clock ? t->clock(t->clock_arg) : 0;
}

/* ---- common helpers (table_common.c) ---- */

/** Allocate a slot index; -1 if none free (caller may reclaim and retry). */
int64_t table_idx_alloc(struct p4dp_table *t);
/** Return a slot index (only after the grace period of the entry that used it). */
void table_idx_release(struct p4dp_table *t, uint32_t idx);
/** Allocate a data-plane entry (rte_malloc on t's socket) filled with action/data/index. */
struct p4dp_entry *table_entry_new(struct p4dp_table *t, uint32_t action, const void *data, uint32_t idx,
				   uint32_t flags);
/** Fill an entry in place (not yet published). */
void table_entry_fill(struct p4dp_table *t, struct p4dp_entry *e, uint32_t action, const void *data,
		      uint32_t idx, uint32_t flags);
/** Get a slot index, reclaiming (waiting for a grace period if needed) when only
 *  deferred releases stand in the way. -ENOSPC if none. */
int64_t table_idx_get(struct p4dp_table *t);
/** Defer rte_free of @p p after a grace period (waits on -ENOMEM as last resort). */
void table_defer_free(struct p4dp_table *t, void *p);
/** Defer fn(t, p, arg) after a grace period; on -ENOMEM waits for one and calls now. */
void table_defer(struct p4dp_table *t, p4dp_rcu_reclaim_fn fn, void *p, uint64_t arg);

/** Bit @p b (0 = least significant) of field @p f in key buffer @p buf. */
static inline int table_field_bit(const struct p4dp_key_field *f, const uint8_t *buf, uint32_t b)
{
	uint32_t byte = f->bitwidth <= 128 ? b / 8 : (uint32_t)f->size - 1 - b / 8;
	return (buf[f->offset + byte] >> (b % 8)) & 1;
}

/** Compare field @p f of buffers @p a and @p b as unsigned integers: <0, 0, >0. */
int table_field_cmp(const struct p4dp_key_field *f, const uint8_t *a, const uint8_t *b);

/* ---- exact (table_exact.c) ---- */
int table_exact_create(struct p4dp_table *t);
void table_exact_free(struct p4dp_table *t);
/* The one insertion path (control adds with worker=false, data-plane adds with
 * worker=true): counts inserts/table_full itself. @p seen: NULL, or the insert
 * generation at which the caller saw the key absent (p4dp_table_dp_insert_seen). */
int table_exact_insert(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data,
		       uint8_t profile, uint64_t now_ns, bool worker, uint64_t *seen);
int table_exact_modify(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data);
int table_exact_delete(struct p4dp_table *t, const uint8_t *key);
const struct p4dp_entry *table_exact_find(struct p4dp_table *t, const uint8_t *key); /* control */
int table_exact_clear(struct p4dp_table *t);
int table_exact_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg);
unsigned table_exact_maintain(struct p4dp_table *t);
uint64_t table_exact_displaced(const struct p4dp_table *t);
const struct p4dp_entry *table_exact_lookup(struct p4dp_table *t, const void *key);
void table_exact_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			     const struct p4dp_entry **out);

/* ---- tuple space search (table_tss.c) ---- */
/* A normalized match: mask (key_len, range fields 0), value (= value & mask, range
 * fields hold lo), hi (range fields), prio (effective priority). */
struct tss_match {
	const uint8_t *value;
	const uint8_t *mask;
	const uint8_t *hi;
	int32_t prio;
	int32_t user_prio;
};
int table_tss_create(struct p4dp_table *t);
void table_tss_free(struct p4dp_table *t);
int table_tss_add(struct p4dp_table *t, const struct tss_match *m, uint32_t action, const void *data);
int table_tss_modify(struct p4dp_table *t, const struct tss_match *m, uint32_t action, const void *data);
int table_tss_delete(struct p4dp_table *t, const struct tss_match *m);
const struct p4dp_entry *table_tss_find(struct p4dp_table *t, const struct tss_match *m);
int table_tss_clear(struct p4dp_table *t);
int table_tss_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg);
uint64_t table_tss_tuples(const struct p4dp_table *t);
const struct p4dp_entry *table_tss_lookup(struct p4dp_table *t, const void *key);

#endif

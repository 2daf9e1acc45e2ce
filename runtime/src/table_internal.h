/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private declarations of the table layer (table_common.c, the kinds table_exact.c, table_lpm.c,
 * table_tm.c, table_keyless.c, and their helpers table_util.c). Only these files include it.
 * Layers, each calling only those below it: table_common.c -> the kinds -> table_util.c -> rcu.c.
 */
#ifndef P4DP_TABLE_INTERNAL_H
#define P4DP_TABLE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_pause.h>

#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "p4dp/xindex.h"
#include "table_mem.h"

enum table_kind {
	TABLE_KIND_EXACT = 0,
	TABLE_KIND_KEYLESS = 1,
	TABLE_KIND_TM = 2, /* merged tuple space (table_tm.c) */
	TABLE_KIND_LPM = 3,
};

struct table_exact;
struct table_tm;
struct table_lpm;
struct p4dp_table;

/*
 * One table kind's control-path operations (one const instance per kind, chosen at creation).
 * table_common.c calls them after its NULL checks; with the table mutex held except create,
 * free (the table is not shared) and dp_insert (a worker: the kind takes what it needs). A kind
 * validates the match itself (-EINVAL), counts st_inserts itself, and never calls table_common.c.
 * Lookups are not here: the per-packet path switches on p4dp_table.kind and calls the kind's
 * lookup directly (no indirect call per packet).
 */
struct table_kind_ops {
	uint32_t kind;  /* enum table_kind, reported in p4dp_table_stats.kind */
	bool expires;   /* entries can time out (p4dp_table_expire_scan) */
	/** Build the kind's structures (t's common fields are set); 0 or -errno. */
	int (*create)(struct p4dp_table *t);
	/** Release them; deferred frees go through t's defer queue, which the caller drains. */
	void (*free)(struct p4dp_table *t);
	/** Add / modify / delete the entry of match @p m: 0, -EINVAL (bad match), -EEXIST / -ENOENT,
	 *  -ENOSPC (full), -ENOMEM. */
	int (*add)(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data);
	int (*modify)(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data);
	int (*del)(struct p4dp_table *t, const struct p4dp_match *m);
	/** The entry of match @p m in *e (NULL if none): 0 or -EINVAL. */
	int (*find)(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e);
	int (*clear)(struct p4dp_table *t);
	/** Call @p cb for every entry until it returns non-zero (that value is returned). */
	int (*foreach)(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg);
	/** Optional: fold back what a grace period freed; returns the number of versions handled. */
	unsigned (*maintain)(struct p4dp_table *t);
	/** Optional (NULL: -EINVAL): a worker's insert of a full key (p4dp_table_dp_insert_seen);
	 *  on success an exact table stores the new entry's row (struct p4dp_entry.index) in *row
	 *  (if not NULL); other kinds leave it. */
	int (*dp_insert)(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data,
			 uint8_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row);
	/** Optional: start loading what an add of match @p m will read first (perf: the batch add
	 *  calls it for the next entry before it adds the current one); changes nothing. */
	void (*prefetch)(const struct p4dp_table *t, const struct p4dp_match *m);
	/** Optional: the kind's own fields of @p st (tuples, displaced). */
	void (*stats)(const struct p4dp_table *t, struct p4dp_table_stats *st);
};

extern const struct table_kind_ops table_exact_ops;
extern const struct table_kind_ops table_tm_ops;
extern const struct table_kind_ops table_keyless_ops;
extern const struct table_kind_ops table_lpm_ops;

struct p4dp_table {
	/* first (p4dp/xindex.h): the read index of exact tables, reached by the program's inline
	 * lookups (abi.h, p4dp_table_apply_exact); set at creation, never changed */
	struct p4dp_table_head head;
	/* read by workers on every lookup */
	uint32_t kind;
	uint32_t key_len;
	struct table_exact *ex;
	struct table_tm *tm;
	struct table_lpm *lpm;
	/* keyless table: the one entry or NULL. Written with release by the writer,
	 * read with acquire by readers (see table_common.c). */
	struct p4dp_entry *single;

	/* control side */
	const struct table_kind_ops *ops;
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
	/* linear tables (table.h `linear`): where each slot id is in free_idx (or UINT32_MAX: not
	 * free), so that the slot of a given key can be taken; NULL otherwise */
	uint32_t *free_pos;
	bool linear;

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
	bool in_worker;        /* merged tuple space: a worker holds `lock` (no grace-period waits) */
	uint8_t worker_profile; /* with in_worker: timer state of the entry being inserted */
	uint64_t worker_now;
	bool dp_writes;        /* data plane may write entries: never fold side versions back */
	bool shared_answers;   /* table.h shared_answers (lpm tables) */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	uint64_t expire_ns[P4DP_EXPIRE_PROFILES];
	/* Per-entry idle timeouts by slot index (entries with P4DP_ENTRY_F_IDLE_TTL), allocated
	 * at the first p4dp_table_entry_ttl_set; read and written only under `lock` by control
	 * threads (workers never touch it, so it needs no atomics). */
	struct table_ttl {
		uint64_t ttl_ns;     /* 0 = never expires */
		uint64_t restart_ns; /* the timer's last restart: TTL set or expiry reported */
	} *ttl;
	/* Control-plane metadata by slot index (entries with P4DP_ENTRY_F_META), allocated at the
	 * first p4dp_table_entry_meta_set; only under `lock`, by control threads. A slot's bytes
	 * are freed when its entry is deleted (table_meta_release). */
	struct table_meta {
		uint8_t *bytes;
		uint32_t len;
	} *meta;
	uint64_t n_meta; /* slots with metadata (under `lock`) */

	uint64_t n_entries;
	uint64_t stage_min; /* p4dp_table_stage_ahead's threshold (entries), set at creation */
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

/* ---- helpers shared by the kinds (table_util.c) ---- */

/** Allocate a slot index; -1 if none free (caller may reclaim and retry). */
int64_t table_idx_alloc(struct p4dp_table *t);
/** Linear tables: take slot index @p idx itself; -1 if it is not free (in use, waiting for a grace
 *  period, or >= max_entries). Under the same locks as table_idx_alloc. */
int64_t table_idx_take(struct p4dp_table *t, uint32_t idx);
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
/** table_defer callback: rte_free the entry @p p and release slot index @p idx. */
void table_entry_idx_reclaim(void *ctx, void *p, uint64_t idx);

/** Free the metadata of slot @p idx (table mutex held; nothing if none). */
void table_meta_release(struct p4dp_table *t, uint32_t idx);

/** Copy the idle-timeout state of the version @p from into its new version @p to (relaxed
 *  loads: workers may be touching @p from right now). */
void table_entry_carry_timer(struct p4dp_entry *to, const struct p4dp_entry *from);

/**
 * A worker's data-plane insert into a kind whose writers hold the table mutex: try the mutex
 * (never block on it: the control thread may wait for a grace period while holding it, which
 * the blocked worker could not end) and mark the writes as the worker's (t->in_worker: no
 * grace-period waits, the entry gets @p profile / @p now_ns). 0, or -EBUSY counted in dp_busy.
 * table_worker_unlock undoes it and counts a successful insert in dp_inserts.
 */
int table_worker_lock(struct p4dp_table *t, uint8_t profile, uint64_t now_ns);
void table_worker_unlock(struct p4dp_table *t, bool inserted);

/* ---- memory for a table's large arrays: table_mem.h ---- */

/* ---- the exact tables' read index, writer side (table_xindex.c; readers: p4dp/xindex.h) ---- */

/* Largest table with a read index. Its buckets take 64 bytes per entry of capacity for keys of
 * at most 8 bytes and 128 for longer ones (twice as many slots as entries, xindex.h), plus 6 bytes
 * per entry for the writer (a busy byte per slot, a slot number per entry): at 2^24 entries 608 MiB
 * or 1.09 GiB, beside rte_hash's own 0.6-0.9 GiB (ARCHITECTURE.md, memory model). 2^24 covers a
 * flow table of 10 M flows (examples/rtc_flow_monitor.p4); a larger table is looked up in
 * rte_hash alone. */
#define TABLE_XI_MAX_ENTRIES (1u << 24)

struct table_xi {
	struct p4dp_xindex pub; /* what readers see (first: &x->pub is the table's head.xi) */
	uint8_t *busy;          /* per slot: holds a key, or held one whose grace period runs */
	size_t busy_mapped;     /* bytes of busy's table_huge_map() mapping, 0: calloc */
	uint32_t *slot_of;      /* per entry index: its slot, or none (overflow / free index) */
	size_t mapped;          /* bytes of pub.b's table_huge_map() mapping, 0: posix_memalign */
	uint32_t key_len;
	uint32_t max_entries;
};

/** A read index for keys of @p key_len bytes and @p max_entries entries in *out, or NULL in
 *  *out when the table gets none (key longer than P4DP_XI_KEY_MAX, or over
 *  TABLE_XI_MAX_ENTRIES entries). 0 or -ENOMEM. Control thread. */
int table_xi_create(struct table_xi **out, uint32_t key_len, uint32_t max_entries);
/** Free it (no reader may use it any more). NULL is ignored. */
void table_xi_free(struct table_xi *x);
/*
 * Mirror one change of the table's rte_hash, right after it and under the insertion spinlock
 * (so one writer at a time); each ignores x == NULL. insert: key @p key now maps to entry @p e
 * of index @p idx (it gets a slot, or counts as overflow). publish: entry index @p idx's key now
 * maps to version @p e. delete: its key was removed (the slot stays reserved). release: the
 * delete's grace period has passed; the slot and the index are free again.
 */
void table_xi_insert(struct table_xi *x, const uint8_t *key, uint32_t idx, struct p4dp_entry *e);
void table_xi_publish(struct table_xi *x, uint32_t idx, struct p4dp_entry *e);
void table_xi_delete(struct table_xi *x, uint32_t idx);
void table_xi_release(struct table_xi *x, uint32_t idx);
/** Whether the table holds key @p key, as far as its read index can tell, under the insertion
 *  spinlock: 1 it does; 0 it does not (the index does not hold it and no key overflowed into
 *  rte_hash alone); -1 the index cannot tell (no index, or keys overflowed: ask rte_hash).
 *  perf: an insert's existence check without an rte_hash lookup, in the bucket the insert then
 *  writes. */
int table_xi_holds(const struct table_xi *x, const uint8_t *key);
/** Prefetch what table_xi_holds and the insert after it read first for key @p key: its two
 *  buckets and the first one's busy flags. Changes nothing; ignores x == NULL. */
void table_xi_prefetch(const struct table_xi *x, const uint8_t *key);

/** Prefix length of lpm field @p f given the mask buffer @p mk (key layout), or -1 if the
 *  mask is not a prefix. */
int table_field_prefix_len(const struct p4dp_key_field *f, const uint8_t *mk);

/** Bit @p b (0 = least significant) of field @p f in key buffer @p buf. */
static inline int table_field_bit(const struct p4dp_key_field *f, const uint8_t *buf, uint32_t b)
{
	uint32_t byte = f->bitwidth <= 128 ? b / 8 : (uint32_t)f->size - 1 - b / 8;
	return (buf[f->offset + byte] >> (b % 8)) & 1;
}

/** Compare field @p f of buffers @p a and @p b as unsigned integers: <0, 0, >0. */
int table_field_cmp(const struct p4dp_key_field *f, const uint8_t *a, const uint8_t *b);

/* ---- the kinds' per-packet lookups (called directly by p4dp_table_lookup*) ---- */
const struct p4dp_entry *table_exact_lookup(struct p4dp_table *t, const void *key);
/** Keep the row map of exact table @p t from now on (the key of every row that holds an entry),
 *  for table_exact_row_next: key_len bytes and one bit per entry of capacity. Idempotent.
 *  -EINVAL (not an exact table), -ENOMEM. Context: control thread (takes the table mutex). */
int table_exact_rows_enable(struct p4dp_table *t);
/** The first row in [*@p pos, @p end) that holds an entry, lock-free: copies its key into
 *  @p key (key_len bytes), advances *@p pos past it and returns the entry, or NULL with *@p pos
 *  = @p end. Rows whose entry is deleted meanwhile are skipped. Context: an RCU reader (online)
 *  of the table's RCU; the entry and the walk's view of each row hold until the caller's next
 *  quiescent state. Needs table_exact_rows_enable() first (otherwise NULL). */
const struct p4dp_entry *table_exact_row_next(struct p4dp_table *t, uint64_t *pos, uint64_t end, void *key);
void table_exact_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			     const struct p4dp_entry **out);
void table_exact_prefetch_inserts(struct p4dp_table *t, const void *const *keys, uint32_t n,
				  const struct p4dp_entry *const *out);
const struct p4dp_entry *table_tm_lookup(struct p4dp_table *t, const void *key);
void table_tm_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			  const struct p4dp_entry **out);
const struct p4dp_entry *table_lpm_lookup(struct p4dp_table *t, const void *key);
void table_lpm_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			   const struct p4dp_entry **out);
/** Does the longest-prefix kind take a key of these fields (one lpm field, the others exact,
 *  few enough bits)? */
bool table_lpm_accepts(const struct p4dp_key_field *fields, uint32_t n_fields);

/* ---- merged tuple space (table_tm.c) ---- */
/* A normalized match: mask (key_len, range fields 0), value (= value & mask, range
 * fields hold lo), hi (range fields), prio (effective priority). */
struct tm_match {
	const uint8_t *value;
	const uint8_t *mask;
	const uint8_t *hi;
	int32_t prio;
	int32_t user_prio;
};

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p4dp match-action tables.
 *
 * Layout. Keys and action data use the *native layout* of generated C code: a
 * key is a byte buffer of key_len bytes; key field i sits at byte `offset` with
 * `size` bytes. For bitwidth <= 128, size is 1, 2, 4, 8 or 16 and the bytes are a
 * little-endian unsigned integer holding a bitwidth-bit value; for bitwidth > 128,
 * size = ceil(bitwidth/8) and the bytes are big-endian (value right-aligned).
 * Bits above bitwidth and bytes outside every field (padding) are always zero,
 * in lookup keys as in match specifications.
 *
 * Structures. Tables whose fields are all exact (including keyless tables) are
 * DPDK rte_hash tables with lock-free readers; entries live in a static array
 * (one indirection) or in one allocation each (dynamic). Tables of one lpm field
 * plus exact fields (at most 248 key bits) are multibit tries (16- or 24-bit
 * first stride, then 8-bit strides; table_lpm.c). All other tables (several lpm
 * fields, ternary, range, optional, possibly mixed with exact) use a merged
 * tuple space (TupleMerge; table_tm.c) with priorities and incremental insert/delete.
 *
 * Concurrency. Readers (workers: p4dp_table_lookup*) never block and take no
 * lock. Writers (control threads: everything else) are serialized per table by
 * a mutex inside the table. Pointers returned by lookup stay valid until the
 * calling worker next reports quiescence on the table's RCU domain
 * (p4dp_rcu_quiescent). Memory of deleted/replaced entries is reclaimed after an
 * RCU grace period, observed by polling, never by sleeping. A modify publishes a
 * complete new entry version atomically: a concurrent lookup sees the old or
 * the new entry, never a mix and never a miss.
 *
 * Errors: 0 / -errno as documented per function. Every function is safe to call
 * with malformed match specifications: they are rejected with -EINVAL.
 */
#ifndef P4DP_TABLE_H
#define P4DP_TABLE_H

#include <stdint.h>

#include "p4dp/rcu.h"

#ifdef __cplusplus
extern "C" {
#endif

enum p4dp_match_kind {
	P4DP_MATCH_EXACT,
	P4DP_MATCH_LPM,
	P4DP_MATCH_TERNARY,
	P4DP_MATCH_RANGE,
	P4DP_MATCH_OPTIONAL,
};

/** Entry storage of exact tables (ignored by other tables, which are dynamic). */
enum p4dp_table_storage {
	P4DP_STORAGE_AUTO = 0, /* p4dp_table_storage_choose() decides */
	P4DP_STORAGE_STATIC,   /* entries in one array of max_entries slots */
	P4DP_STORAGE_DYNAMIC,  /* one allocation per entry */
};

/** Longest key accepted (bytes). */
#define P4DP_TABLE_KEY_MAX 1024u
/** Most key fields accepted. */
#define P4DP_TABLE_FIELDS_MAX 64u

struct p4dp_key_field {
	uint8_t match_kind; /* enum p4dp_match_kind */
	uint16_t offset;    /* byte offset in the key */
	uint16_t size;      /* bytes: 1,2,4,8,16 (LE) for bitwidth <= 128, else ceil(bitwidth/8) (BE) */
	uint16_t bitwidth;  /* 1.. */
};

struct p4dp_table_params {
	const char *name;       /* for diagnostics; may be NULL */
	uint32_t key_len;       /* bytes, <= P4DP_TABLE_KEY_MAX; 0 only with n_fields == 0 */
	uint32_t n_fields;
	const struct p4dp_key_field *fields;
	uint32_t max_entries;   /* capacity; inserts beyond it fail with -ENOSPC and count table_full */
	uint32_t data_len;      /* bytes of action data per entry (max over the table's actions) */
	int storage;            /* enum p4dp_table_storage (exact tables) */
	int socket_id;          /* NUMA socket for data-plane memory (SOCKET_ID_ANY ok) */
	/* Clock for the last-hit time of entries added by the control plane
	 * (NULL: 0). Called on the control thread only. */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	uint32_t fill_pct;      /* expected fill in percent for the AUTO storage model (0: 100) */
	int dp_writes;          /* nonzero: the data plane writes action data (@__ref): modified
				   static entries are never copied back into their slot behind
				   the workers' backs (see p4dp_table_maintain) */
	int linear;             /* nonzero (rtc.p4 @linear; an exact table of one field of at most
				   32 bits): the key is the row: the entry of key k lives in slot
				   k (struct p4dp_entry.index == k), a key >= max_entries is
				   refused (-ERANGE); a key whose slot still waits for the grace
				   period of a deleted entry is refused like a full table */
	int shared_answers;     /* nonzero (abi.h P4DP_TABLE_F_SHARED_ANSWERS): lookups may return a
				   shared read-only entry holding the matched entry's action and
				   data rather than the entry itself; the control plane still
				   finds, reads and modifies the installed entries. Used by lpm
				   tables (table_lpm.c), ignored by the other kinds */
};

/** Entry flags. */
#define P4DP_ENTRY_F_DYNAMIC 0x1u /* entry lives outside the static array (dynamic storage or
                                     a transient new version of a modified static entry) */
#define P4DP_ENTRY_F_IDLE_NOTIFIED 0x2u /* idle expiry already reported (control thread only) */
#define P4DP_ENTRY_F_DP_ADDED 0x4u      /* inserted from the data plane (p4dp_table_dp_insert) */
#define P4DP_ENTRY_F_IDLE_TTL 0x8u      /* idle timeout from the entry's own TTL, not its expire
                                           profile (p4dp_table_entry_ttl_set; control thread only) */
#define P4DP_ENTRY_F_META 0x10u         /* has control-plane metadata (p4dp_table_entry_meta_set) */

/** Most bytes of control-plane metadata per entry (p4dp_table_entry_meta_set). */
#define P4DP_ENTRY_META_MAX 65536u

/** Number of expire-time profiles per table (PNA ExpireTimeProfileId_t values 0..N-1). */
#define P4DP_EXPIRE_PROFILES 8u

/**
 * One installed entry as the data plane sees it (ABI version 2: 24-byte header).
 * Read-only for readers except for the fields below that the data plane writes:
 *  - data: action data the program writes through @__ref parameters (pointer method);
 *  - lock: the @entry_lock lock word (biased lock: p4dp_entry_lock/unlock, dpwrite.h);
 *  - last_hit_ns / expire_profile: idle-timeout state (p4dp_entry_touch/set_expire),
 *    written by workers with relaxed atomic stores and read by the control
 *    thread's expiry scan with relaxed atomic loads (a stale value only delays
 *    expiry by one scan; 64-bit aligned stores are never torn).
 * Control-thread-only fields: action, index, flags (set before publication).
 */
struct p4dp_entry {
	uint32_t action;
	uint32_t index;         /* stable slot id in [0,max_entries): for direct counters/meters */
	uint16_t flags;         /* P4DP_ENTRY_F_* */
	uint8_t expire_profile; /* index into the table's expire-time profiles */
	uint8_t _pad;
	uint32_t lock;          /* @entry_lock state: P4DP_ELOCK_* (dpwrite.h) */
	uint64_t last_hit_ns;   /* time of the last hit/restart (ctx->now_ns), idle-timeout tables */
	uint8_t data[] __attribute__((aligned(8)));
};

/**
 * A match specification, all buffers in the key layout (key_len bytes):
 *  - value: exact value / lpm prefix / ternary value / optional value / range lower bound;
 *  - mask: exact fields all-ones over bitwidth, lpm a prefix mask, ternary any mask,
 *    optional all-ones or zero, range fields 0. NULL means all-ones everywhere
 *    (exact match on every non-range field). Value bits outside the mask must be 0.
 *  - hi: range upper bounds (inclusive) at the range fields' positions; other bytes
 *    ignored. Required iff the table has range fields.
 *  - priority: larger wins (P4Runtime convention); part of the entry's identity; INT32_MIN
 *    is refused (-EINVAL: the classifier's lookups use it for "no match yet").
 *    Ignored for exact tables and for tables whose fields are only exact+lpm
 *    (there the longest prefix wins; foreach reports priority 0).
 */
struct p4dp_match {
	const uint8_t *value;
	const uint8_t *mask;
	const uint8_t *hi;
	int32_t priority;
};

struct p4dp_table;

struct p4dp_table_stats {
	uint64_t entries;     /* installed now */
	uint64_t capacity;    /* max_entries */
	uint64_t inserts;     /* successful adds */
	uint64_t deletes;     /* successful deletes (clear counts each entry) */
	uint64_t modifies;    /* successful modifies */
	uint64_t table_full;  /* adds rejected with -ENOSPC */
	uint64_t pending_reclaim; /* items waiting for an RCU grace period */
	uint64_t tuples;      /* merged tuple space (kind 2): number of hash tables (tabs); 0 otherwise */
	uint64_t displaced;   /* static exact tables: entries whose live version is outside the array */
	uint32_t kind;        /* 0 = exact, 1 = keyless, 2 = merged tuple space, 3 = lpm trie */
	uint32_t storage;     /* enum p4dp_table_storage actually used */
	uint64_t dp_inserts;  /* successful data-plane inserts (also counted in inserts) */
	uint64_t dp_busy;     /* data-plane inserts given up: tuple-space writer lock busy, or only
				 slots still waiting for a grace period (never waited for on a worker) */
	uint64_t expired;     /* entries deleted by idle timeout (auto delete) */
	uint64_t idle_notified; /* idle-timeout notifications produced */
	uint64_t free_slots;  /* slot indices free now (entries + free_slots + pending_slots == capacity) */
	uint64_t pending_slots; /* slot indices of deleted entries waiting for a grace period */
	uint64_t meta_entries;  /* entries with control-plane metadata (p4dp_table_entry_meta_set) */
	uint64_t spare_sides;   /* static exact tables: side versions past their grace period, kept for
				   the next modifies (at most 64); 0 otherwise */
};

/**
 * Storage the AUTO mode picks for an exact table with these parameters: the one
 * with the smaller predicted memory (p4dp_table_mem_predict) at the expected fill
 * p->fill_pct (0 means 100 %); ties go to static (one contiguous array).
 * Context: any. Thread safety: pure function.
 */
int p4dp_table_storage_choose(const struct p4dp_table_params *p);

/** Predicted memory of an exact table (seed-000 Eq. 2 and 4 recomputed for p4dp's layout;
 *  see ARCHITECTURE.md "Entry storage and memory model"). */
struct p4dp_table_mem {
	uint64_t hash_bytes;     /* rte_hash buckets + key store (both storages) */
	uint64_t static_bytes;   /* hash + slot array, independent of the fill */
	uint64_t dynamic_bytes;  /* hash + one allocation per expected entry */
	uint32_t slot_bytes;     /* static: bytes per entry slot */
	uint32_t dyn_entry_bytes;/* dynamic: bytes per allocated entry (incl. allocator header) */
	int choice;              /* what AUTO picks: P4DP_STORAGE_STATIC or P4DP_STORAGE_DYNAMIC */
};

/**
 * Predict the memory of an exact table of @p size entries (0: P4DP_TABLE_DEFAULT_SIZE is not
 * applied here; pass the real capacity), @p key_len key bytes, @p data_len action-data bytes and
 * an expected fill of @p fill_pct percent (1..100; 0 means 100).
 * Context: any. Thread safety: pure function. @return 0, -EINVAL (key_len 0 or > P4DP_TABLE_KEY_MAX,
 * fill_pct > 100, data_len > 65536).
 */
int p4dp_table_mem_predict(uint32_t size, uint32_t key_len, uint32_t data_len, uint32_t fill_pct,
			   struct p4dp_table_mem *out);

/**
 * Create a table. @p rcu is the RCU domain of the workers that will look it up;
 * NULL means single-threaded use (frees are immediate; lookups must then only
 * happen on the control thread between updates).
 * Context: control thread, after rte_eal_init(). Thread safety: reentrant.
 * @return the table or NULL with errno set: EINVAL (bad params: field outside key,
 *         bad size/bitwidth, overlapping fields, nonzero key_len with no fields, linear
 *         without exactly one exact field of at most 32 bits, ...),
 *         ENOMEM, or the rte_hash error.
 */
struct p4dp_table *p4dp_table_create(const struct p4dp_table_params *p, struct p4dp_rcu *rcu);

/**
 * Free the table and all entries, waiting for a grace period first (spinning).
 * No worker may look the table up after this starts. NULL is a no-op.
 * Context: control thread.
 */
void p4dp_table_free(struct p4dp_table *t);

/**
 * Add an entry. @p data holds data_len bytes (NULL: zeros).
 * Context: control thread. Thread safety: serialized by the table mutex; safe
 * against concurrent lookups. @return 0; -EEXIST (same match already
 * installed); -ENOSPC (table full; counted in table_full); -ERANGE (linear
 * table: the key is not below max_entries; counted in table_full); -EINVAL
 * (malformed match: bits outside a field's width or outside the mask, non-prefix
 * lpm mask, optional mask neither full nor zero, range lo > hi, nonzero range
 * mask, missing hi, ...); -ENOMEM.
 */
int p4dp_table_entry_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data);

/** Most entries p4dp_table_entries_add adds under one hold of the table mutex. */
#define P4DP_TABLE_BATCH_HOLD 1024u

/**
 * Builds entry @p i of a batch for p4dp_table_entries_add: its match, action and data, valid
 * until the call after the next one (the batch builds entry i + 1 before it adds entry i, so
 * that it can prefetch where entry i + 1 goes). Called with the table mutex held: must not call
 * the table's API.
 * @return 0; -errno to stop the batch at this entry (the batch returns it once it gets there).
 */
typedef int (*p4dp_table_entry_build_fn)(void *arg, uint32_t i, const struct p4dp_match **m, uint32_t *action,
					 const void **data);

/**
 * Add @p n entries in order, each as p4dp_table_entry_add would, holding the table mutex for up
 * to P4DP_TABLE_BATCH_HOLD entries at a time (perf: one lock and one reclaim per hold instead of
 * per entry). Stops at the first entry that @p build or the add refuses.
 * Context: control thread. Thread safety: as p4dp_table_entry_add; workers see every added entry
 * complete or not at all, one after another.
 * @param done receives the number of entries added (the index of the failing entry on error).
 * @return 0 (all added); -EINVAL (NULL table, @p build or @p done); else the error of entry
 *         *@p done: @p build's, or p4dp_table_entry_add's (-EEXIST, -ENOSPC, -ERANGE, -EINVAL,
 *         -ENOMEM); entries after it are not attempted.
 */
int p4dp_table_entries_add(struct p4dp_table *t, uint32_t n, p4dp_table_entry_build_fn build, void *arg,
			   uint32_t *done);

/**
 * Replace action and data of an installed entry; its index is kept. Readers
 * see the old or the new version, atomically. Context/thread safety: as add.
 * @return 0; -ENOENT; -EINVAL; -ENOMEM.
 */
int p4dp_table_entry_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data);

/**
 * Delete an entry; its memory and index are reused only after a grace period.
 * Context/thread safety: as add. @return 0; -ENOENT; -EINVAL; -ENOMEM.
 */
int p4dp_table_entry_delete(struct p4dp_table *t, const struct p4dp_match *m);

/**
 * Read an installed entry: any of @p action, @p data (data_len bytes), @p index
 * may be NULL. Context/thread safety: as add. @return 0; -ENOENT; -EINVAL.
 */
int p4dp_table_entry_get(struct p4dp_table *t, const struct p4dp_match *m, uint32_t *action, void *data,
			 uint32_t *index);

/**
 * Delete all entries. Context/thread safety: as add. @return 0 or -ENOMEM
 * (then some entries may remain).
 */
int p4dp_table_clear(struct p4dp_table *t);

/** Callback of p4dp_table_foreach: return nonzero to stop the walk. @p m and @p e
 *  are valid only during the call; the callback must not call any table
 *  write function on the same table (the table mutex is held). */
typedef int (*p4dp_table_entry_cb)(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e);

/**
 * Call @p cb for each installed entry (in no particular order). Context:
 * control thread; holds the table mutex during the walk. @return 0 after a
 * full walk, the callback's nonzero return value if it stopped the walk,
 * -ENOMEM.
 */
int p4dp_table_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg);

/**
 * Run deferred reclamation that is due (non-blocking). Write operations do this
 * too; call it periodically on an otherwise idle table to release memory and
 * to fold modified static entries back into the array (not for tables created
 * with dp_writes: their modified entries stay in their side allocation until
 * the next modify or delete). Context: control thread.
 * @return number of items reclaimed.
 */
unsigned p4dp_table_maintain(struct p4dp_table *t);

/** Fill @p st. Context: control thread (takes the table mutex). @return 0 / -EINVAL. */
int p4dp_table_stats_get(struct p4dp_table *t, struct p4dp_table_stats *st);

/** Table parameters (name, key_len, data_len, max_entries). Context: any. */
const char *p4dp_table_name(const struct p4dp_table *t);
uint32_t p4dp_table_key_len(const struct p4dp_table *t);
uint32_t p4dp_table_data_len(const struct p4dp_table *t);
uint32_t p4dp_table_max_entries(const struct p4dp_table *t);

/**
 * Worker fast path: look @p key (key_len bytes, native layout) up. Returns the
 * best matching entry or NULL on miss. No lock, no allocation, no syscall. The
 * pointer stays valid until the calling worker next calls p4dp_rcu_quiescent.
 * Thread safety: any number of concurrent readers, concurrent with one writer.
 */
const struct p4dp_entry *p4dp_table_lookup(struct p4dp_table *t, const void *key);

/**
 * Worker fast path: look up @p n keys; out[i] is the entry for keys[i] or NULL.
 * Same guarantees as p4dp_table_lookup; exact tables use rte_hash bulk lookup.
 */
void p4dp_table_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			    const struct p4dp_entry **out);

/**
 * Warm the cache for the inserts a burst is about to make: for each of @p keys whose bulk
 * lookup missed (@p out[i] == NULL, as p4dp_table_lookup_bulk left it), load the lines an
 * insert of that key reads first (an exact table's hash buckets and its read index's busy
 * flags), all of them before any insert, so that their cache misses overlap instead of coming
 * one insert after the other.
 * A hint: it changes nothing, and a key that is not inserted after it costs only its loads.
 * The generated code calls it after the bulk lookup of a staged add-on-miss table. Context: a
 * worker (an RCU reader of the table). Exact tables; the other kinds: no effect.
 */
void p4dp_table_prefetch_inserts(struct p4dp_table *t, const void *const *keys, uint32_t n,
				 const struct p4dp_entry *const *out);

/** Entries below which p4dp_table_stage_ahead() answers 0 (measured: ARCHITECTURE.md, "Later
 *  staged tables"). The environment's P4DP_STAGE_AHEAD_MIN, read when a table is
 *  created, replaces it (a decimal count; 0: always stage; docs/testing.md). */
#define P4DP_STAGE_AHEAD_MIN_ENTRIES 32768u

/**
 * Whether a burst's bulk lookup of @p t ahead of the packets' pipelines is worth its cost (the
 * generated code's later staged tables, cgen burst.rs, ask once per chunk of a burst): 1 when
 * the table holds at least P4DP_STAGE_AHEAD_MIN_ENTRIES entries (or P4DP_STAGE_AHEAD_MIN), so
 * that its lookups likely miss the cache and overlapping them pays for building the keys ahead;
 * 0 otherwise (a cache-resident table is looked up where it is applied). Only a hint: no result
 * depends on it.
 * Context: worker. Thread safety: a relaxed load of the entry count (written with relaxed
 * stores under the table's locks).
 */
int p4dp_table_stage_ahead(const struct p4dp_table *t);

/**
 * The threshold p4dp_table_stage_ahead() of a table created now compares its entries with:
 * P4DP_STAGE_AHEAD_MIN when the environment holds a decimal count, else
 * P4DP_STAGE_AHEAD_MIN_ENTRIES. `p4dp model` reads it to know which later tables are staged.
 * Context: any. Thread safety: reads the environment.
 */
uint64_t p4dp_table_stage_ahead_min(void);

/* ---- data-plane writes and idle timeout (ABI version 2) ---- */

/**
 * The one insertion path, data-plane side: insert @p key (key_len bytes, native layout;
 * for tuple-space tables an exact match on every field, priority 1) with @p action/@p data,
 * last-hit time @p now_ns and expire-time profile @p profile (< P4DP_EXPIRE_PROFILES).
 * Context: a worker (registered online RCU thread) or a control thread; never waits for an
 * RCU grace period and never sleeps. Thread safety: exact tables: safe against concurrent
 * inserts on other workers, all control-plane writes and lock-free lookups; the hash update,
 * slot allocation and accounting are serialized by the table's insertion spinlock (held for
 * O(1) work, never across a grace period). Tuple-space tables: pthread_mutex_trylock of the
 * table's writer mutex (-EBUSY if a control-plane writer holds it). Keyless tables: -EINVAL.
 * @return 0; -EEXIST (already installed, e.g. by another worker); -ENOSPC (table full:
 * counted in table_full; or every free slot, in a linear table the key's row, still waits
 * for a grace period: counted in dp_busy); -ERANGE (linear
 * table: the key is not below max_entries; counted in table_full); -EBUSY (tuple space: writer
 * busy, counted in dp_busy); -ENOMEM; -EINVAL.
 */
int p4dp_table_dp_insert(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			 uint32_t profile, uint64_t now_ns);

/**
 * The table's insert generation: it changes (under the insertion spinlock, after the hash
 * insert, release order) whenever the table gains a key, by any writer; modifies and deletes
 * leave it. Load it (acquire) before a lookup; if the lookup misses, pass it to
 * p4dp_table_dp_insert_seen. Context: any. Exact tables only (others: always 0).
 */
uint64_t p4dp_table_ins_gen(const struct p4dp_table *t);

/**
 * p4dp_table_dp_insert for a key the caller has just seen missing: @p seen is the insert
 * generation loaded before that lookup (p4dp_table_ins_gen). While the generation is still
 * *seen, nobody has added a key since the lookup, so the insert skips its existence check
 * (an rte_hash lookup); otherwise it checks as p4dp_table_dp_insert does. After an insert
 * that skipped the check, *seen advances to the new generation: the caller's earlier misses
 * of *other* keys stay valid, but a miss of the key just inserted does not, so a caller
 * holding several misses (a burst) must look up again the ones whose key equals an inserted
 * key before inserting them (generated code marks them stale, cgen burst.rs). @p seen may be
 * NULL (= p4dp_table_dp_insert). Same context, thread safety and return values.
 */
int p4dp_table_dp_insert_seen(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			      uint32_t profile, uint64_t now_ns, uint64_t *seen);

/**
 * p4dp_table_dp_insert_seen that also stores the new entry's row (struct p4dp_entry.index,
 * stable for the entry's lifetime) in *@p row on success in an exact table (@p row may be
 * NULL; untouched on failure and by the other kinds), taken from the insert itself, so a caller that needs the row (rtc.p4
 * lastRowIndex) does not look the key up again. Same context, thread safety and return values.
 */
int p4dp_table_dp_insert_row(struct p4dp_table *t, const void *key, uint32_t action, const void *data,
			     uint32_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row);

/** Default expire-time profile durations in ns, index = profile id; 0 = never expires. */
#define P4DP_EXPIRE_DEFAULTS_NS                                                                     \
	{ 10000000000ull, 1000000000ull, 5000000000ull, 30000000000ull, 60000000000ull,            \
	  300000000000ull, 3600000000000ull, 0ull }

/** Set / get the duration (ns, 0 = never) of expire-time profile @p profile.
 *  Context: control thread (set takes the table mutex). @return 0; -EINVAL (bad profile). */
int p4dp_table_expire_profile_set(struct p4dp_table *t, uint32_t profile, uint64_t ns);
int p4dp_table_expire_profile_get(struct p4dp_table *t, uint32_t profile, uint64_t *ns);

/**
 * Give entry @p m its own idle timeout (a P4Runtime TTL) instead of its expire-time profile:
 * from now on it expires when @p ttl_ns is nonzero and it has not been hit for ttl_ns since
 * the later of its last hit and its timer's restart. Setting the TTL restarts the timer at
 * @p now_ns; so does every expiry the scan reports (p4dp_table_expire_scan): an entry still
 * idle is reported again one TTL later, an entry hit meanwhile one TTL after its last hit.
 * The TTL stays with the entry across modifies (its slot index does not change) and goes with
 * its delete. The last-hit time is not changed (time since the last hit stays true).
 * Context: control thread (table mutex; the TTL lives in a per-slot array that only
 * control threads touch, under that mutex, so workers' hit path is unchanged).
 * @return 0; -ENOENT (no such entry); -EINVAL (keyless table, NULL); -ENOMEM.
 */
int p4dp_table_entry_ttl_set(struct p4dp_table *t, const struct p4dp_match *m, uint64_t ttl_ns,
			     uint64_t now_ns);

/** Idle-timeout state of one entry (p4dp_table_entry_idle_get). */
struct p4dp_table_idle {
	uint64_t ttl_ns;      /* its own TTL (own_ttl) or its expire profile's duration; 0 = never */
	uint64_t last_hit_ns; /* time of its last hit (or of its insert) */
	uint64_t restart_ns;  /* own_ttl: when its timer last restarted (TTL set or notification) */
	int own_ttl;          /* nonzero: set by p4dp_table_entry_ttl_set */
};

/**
 * Read the idle-timeout state of entry @p m. The last-hit time is a relaxed load of what the
 * workers store (p4dp_entry_touch): it may be up to one burst old, never torn.
 * Context: control thread (table mutex). @return 0; -ENOENT; -EINVAL.
 */
int p4dp_table_entry_idle_get(struct p4dp_table *t, const struct p4dp_match *m, struct p4dp_table_idle *out);

/**
 * Attach opaque control-plane bytes to entry @p m (P4Runtime `metadata`), replacing what it had;
 * @p len 0 removes them. They stay with the entry across modifies and are freed with its delete
 * (also a clear or an idle-timeout auto delete). Kept beside the table by slot index, like the
 * TTL: workers never see them.
 * Context: control thread (table mutex).
 * @return 0; -ENOENT; -EINVAL (NULL, @p len > P4DP_ENTRY_META_MAX); -ENOMEM.
 */
int p4dp_table_entry_meta_set(struct p4dp_table *t, const struct p4dp_match *m, const void *meta, uint32_t len);

/**
 * How many entries hold control-plane bytes (p4dp_table_entry_meta_set): never fewer than do, so
 * 0 means that no entry has any and that removing an entry's bytes would change nothing.
 * Context: control thread (table mutex). @return the count; 0 for a NULL table.
 */
uint64_t p4dp_table_meta_entries(struct p4dp_table *t);

/**
 * Copy the control-plane bytes of entry @p m into @p buf (up to @p cap bytes); *@p len receives
 * their full length (0: none).
 * Context: control thread (table mutex). @return 0; -ENOENT; -EINVAL.
 */
int p4dp_table_entry_meta_get(struct p4dp_table *t, const struct p4dp_match *m, void *buf, uint32_t cap,
			      uint32_t *len);

/** Expiry callback: @p m and @p e describe the expired entry (valid during the call only);
 *  @p idle_ns is how long it has been idle. Must not call table write functions. */
typedef void (*p4dp_table_expire_cb)(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e,
				     uint64_t idle_ns);

/**
 * Expiry scan at time @p now_ns: an entry has expired when its profile's duration d is
 * nonzero and now_ns - last_hit_ns >= d. Each expired entry is reported to @p cb (if not
 * NULL) once per idle period (an entry hit again is reported again when it next expires;
 * entries with their own TTL are reported again every TTL they stay idle, see
 * p4dp_table_entry_ttl_set), and deleted if @p auto_delete (re-checked just before the delete; deletion goes through
 * the normal delete path, so its memory is reclaimed after a grace period).
 * Context: control thread (takes the table mutex; exact tables: the walk holds the
 * insertion spinlock). @return number of expired entries found, or -ENOMEM / -EINVAL.
 */
int p4dp_table_expire_scan(struct p4dp_table *t, uint64_t now_ns, int auto_delete, p4dp_table_expire_cb cb,
			   void *arg);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_TABLE_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file rt.h
 * The p4dp runtime's control API: load a compiled program, manage its tables and externs, process
 * packets synchronously (STF runner, tests) or on DPDK ports with worker lcores.
 *
 * Conventions.
 *  - Functions return 0 (or a documented non-negative count) on success and a negative errno on
 *    failure. After a failure, p4dp_runtime_error_get() returns a precise message.
 *  - Values cross this API as **big-endian byte strings** as in P4Runtime: a value of bitwidth W is
 *    given as 1..ceil(W/8) bytes (shorter strings are zero-extended on the left; longer strings and
 *    values with bits set at or above W are rejected with -EINVAL). Values read back are always
 *    exactly ceil(W/8) bytes.
 *  - Tables and externs are addressed by index into the program's `tables`/`externs` arrays (see
 *    p4dp_runtime_program_get()); p4dp_runtime_table_find()/p4dp_runtime_extern_find() map names.
 *  - Context: every function is called from a control thread (never from a worker). Unless noted,
 *    functions are thread-safe with respect to each other (table writes are serialized per table,
 *    runtime-level state by a runtime mutex) and to running workers, which never block.
 *  - A failing call leaves the state unchanged.
 */
#ifndef P4DP_RT_H
#define P4DP_RT_H

#include <stddef.h>
#include <stdint.h>

#include "p4dp/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_runtime;

/** Most ports one runtime drives. */
#define P4DP_RT_MAX_PORTS 32u
/** Multicast group ids are 0..P4DP_RT_MCAST_GROUPS-1 (v1model's 16-bit mcast_grp). */
#define P4DP_RT_MCAST_GROUPS 65536u
/** Clone session ids are 0..P4DP_RT_CLONE_SESSIONS-1. */
#define P4DP_RT_CLONE_SESSIONS 65536u
/** Default capacity of the per-worker digest queues (messages). */
#define P4DP_RT_DIGEST_QLEN 1024u

/* ------------------------------------------------------------------------------------------ */
/* Lifecycle                                                                                    */

/**
 * Initialize DPDK's EAL. Call once per process before p4dp_runtime_create(). Typical arguments:
 * `p4dp --no-huge --no-pci -m 512 --no-shconf --no-telemetry --lcores=0@0,1@(0-1),2@(0-1)` (DPDK
 * 22.11 rejects --in-memory together with --no-huge). Workers of p4dp_runtime_run() run on the
 * EAL's worker lcores, so give one lcore more than the most workers you want.
 *
 * @param argc number of arguments in @p argv (at least 1).
 * @param argv EAL arguments; argv[0] is the program name. rte_eal_init() may permute them.
 * @return 0; -EALREADY if the EAL was already initialized by this function; -EINVAL (argc < 1 or
 *         argv NULL, or rejected arguments); another -errno from rte_eal_init(). The message is in
 *         p4dp_runtime_error_get(NULL).
 * Context: main thread, before any other DPDK use. Thread safety: not thread-safe.
 */
int p4dp_eal_init(int argc, char **argv);

/** Log callback: one line (no trailing newline). level: 0 error, 1 warning, 2 info (log_msg). */
typedef void (*p4dp_log_fn)(void *arg, int level, const char *msg);

struct p4dp_runtime_params {
	const char *program_path; /**< compiled program (.so) */
	uint32_t max_workers;     /**< worker contexts (>= 1; 0 means 1); context 0 serves inject() */
	uint32_t digest_qlen;     /**< per worker and digest, rounded up to a power of two; 0 = default */
	uint32_t n_mbufs;         /**< mbuf pool size for ports; 0 = sized from ports and workers */
	int socket_id;            /**< NUMA socket of data-plane memory; -1 = any */
	p4dp_log_fn log_fn;       /**< NULL: lines go to stderr */
	void *log_arg;
};

/**
 * Load a compiled program and create its tables and extern state.
 *
 * dlopen()s params->program_path (RTLD_NOW|RTLD_LOCAL), finds `p4dp_program`, checks its
 * abi_version and metadata, then creates every table (capacity = declared size, or
 * P4DP_TABLE_DEFAULT_SIZE when undeclared), installs the program's (const) entries and default
 * actions, and creates per-worker contexts (counter arrays, digest queues, hit/miss arrays),
 * shared register cells (zeroed) and meter cells (unconfigured), and the RCU domain.
 *
 * @param params program path, worker contexts, queue and pool sizes, socket, log callback (see
 *        struct p4dp_runtime_params); not kept after the call.
 * @param out receives the runtime (unchanged on failure).
 * @return 0; -EINVAL (NULL argument, missing symbol, ABI version mismatch, malformed metadata or
 *         const entries); -ENOENT (cannot open the file); -ENOMEM; -EPERM (EAL not initialized).
 *         The message is in p4dp_runtime_error_get(NULL).
 * Context: control thread, after p4dp_eal_init(). Thread safety: reentrant (each call creates its
 * own runtime).
 */
int p4dp_runtime_create(const struct p4dp_runtime_params *params, struct p4dp_runtime **out);

/**
 * Free everything (tables, externs, ports, worker contexts) and dlclose() the program.
 *
 * @param rt the runtime, not running; NULL is a no-op.
 * Context: control thread. Thread safety: no other call on @p rt may be in progress or follow.
 */
void p4dp_runtime_free(struct p4dp_runtime *rt);

/**
 * The message describing the last failure of a p4dp_runtime_* / p4dp_eal_init call made by the
 * calling thread.
 *
 * @param rt accepted for symmetry; may be NULL (messages are per thread, not per runtime).
 * @return the message, valid until the thread's next failing call; never NULL ("" if none).
 * Context: any thread. Thread safety: thread-local.
 */
const char *p4dp_runtime_error_get(const struct p4dp_runtime *rt);

/**
 * The loaded program's metadata (schema: tables, keys, actions, parameters, externs).
 *
 * @param rt the runtime; NULL gives NULL.
 * @return the program, valid until p4dp_runtime_free().
 * Context: any thread. Thread safety: the metadata is immutable.
 */
const struct p4dp_program *p4dp_runtime_program_get(const struct p4dp_runtime *rt);

/**
 * Replace the log callback.
 *
 * @param rt the runtime; NULL is a no-op.
 * @param fn receives each log line (NULL: lines go to stderr).
 * @param arg passed to @p fn.
 * Context: control thread, not while p4dp_runtime_run() runs (workers may log through it).
 * Thread safety: not synchronized.
 */
void p4dp_runtime_log_set(struct p4dp_runtime *rt, p4dp_log_fn fn, void *arg);

/* ------------------------------------------------------------------------------------------ */
/* Tables                                                                                       */

/** How a key field is given in a p4dp_rt_entry. */
enum p4dp_rt_key_type {
	P4DP_RT_KEY_EXACT = P4DP_MATCH_EXACT,       /**< value */
	P4DP_RT_KEY_LPM = P4DP_MATCH_LPM,           /**< value + prefix_len */
	P4DP_RT_KEY_TERNARY = P4DP_MATCH_TERNARY,   /**< value + mask (value2) */
	P4DP_RT_KEY_RANGE = P4DP_MATCH_RANGE,       /**< low (value) + high (value2), inclusive */
	P4DP_RT_KEY_OPTIONAL = P4DP_MATCH_OPTIONAL, /**< value; value_len 0 means wildcard */
	P4DP_RT_KEY_DONT_CARE = 0xff,               /**< wildcard; any non-exact field */
};

/** One key field, in key order. The type must equal the field's match kind (or DONT_CARE). */
struct p4dp_rt_key {
	uint32_t type;       /**< enum p4dp_rt_key_type */
	uint32_t prefix_len; /**< LPM only */
	const uint8_t *value;
	uint32_t value_len;
	const uint8_t *value2; /**< TERNARY mask, RANGE high; else unused */
	uint32_t value2_len;
};

struct p4dp_rt_param {
	const uint8_t *value;
	uint32_t len;
};

/**
 * A table entry in control-plane form. For add/modify all fields are used; for delete/get only
 * the match (keys + priority). Entries read back carry exactly ceil(W/8)-byte values, lpm prefixes
 * with prefix_len, optional wildcards as value_len 0, and always the field's own match kind.
 */
struct p4dp_rt_entry {
	uint32_t n_keys; /**< must equal the table's n_keys */
	const struct p4dp_rt_key *keys;
	int32_t priority; /**< > 0 for tables with ternary/range/optional keys, else 0 */
	uint32_t action;  /**< index into p4dp_program.actions */
	uint32_t n_params;
	const struct p4dp_rt_param *params; /**< in the action's parameter order */
};

/** Callback receiving an entry; the entry is valid only during the call. Return nonzero to stop. */
typedef int (*p4dp_rt_entry_cb)(void *arg, const struct p4dp_rt_entry *e);

/**
 * Table index of the table named @p name.
 *
 * @param rt the runtime.
 * @param name control-plane name of the table.
 * @param table receives the index into the program's `tables`.
 * @return 0; -EINVAL (NULL argument); -ENOENT (no such table).
 * Context: any thread. Thread safety: reads immutable metadata only.
 */
int p4dp_runtime_table_find(const struct p4dp_runtime *rt, const char *name, uint32_t *table);

/**
 * Add an entry.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the entry in control-plane form: match (keys, priority), action and parameters.
 * @return 0; -EINVAL with a precise message: table index; const table; indirect table (use
 *         p4dp_runtime_table_indirect_entry_add); key count; per field: type, value widths (bytes
 *         and bits), lpm prefix_len <= bitwidth and no value bits beyond the prefix, ternary value
 *         bits outside the mask, range low > high, optional; priority required (> 0) or forbidden
 *         (!= 0); action not in the table or @defaultonly; parameter count and widths.
 *         -EEXIST (same match installed); -ENOSPC (table full); -ENOMEM.
 * Context: control thread. Thread safety: serialized per table; safe against running workers,
 * which see the complete entry or none.
 */
int p4dp_runtime_table_entry_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e);

/**
 * Add @p n entries to one table, in order, each exactly as p4dp_runtime_table_entry_add would
 * (the same checks, errors and messages), stopping at the first one refused. perf: for bulk
 * inserts (a P4Runtime Write of many entries): the table, its mutability and its
 * implementation are checked once, the conversion buffers are allocated once, and the table
 * mutex is taken once per P4DP_TABLE_BATCH_HOLD entries instead of once per entry.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param entries @p n entries in control-plane form, as for p4dp_runtime_table_entry_add.
 * @param n number of entries (0: nothing to do).
 * @param done receives how many entries were added: all @p n on success, else the index of the
 *        entry that failed (entries after it are not attempted; the caller may go on with
 *        entries + *done + 1).
 * @return 0 (all added); the table-level errors of p4dp_runtime_table_entry_add before any
 *         entry is tried (table index, const table, indirect table; *done is 0), -EINVAL for a
 *         NULL @p done or entry array; else the error of entry *done, as
 *         p4dp_runtime_table_entry_add returns it for that entry (-EINVAL, -EEXIST, -ENOSPC,
 *         -ERANGE, -ENOMEM), with its message in p4dp_runtime_error_get.
 * Context: control thread. Thread safety: as p4dp_runtime_table_entry_add (serialized per table,
 * safe against running workers, which see each added entry complete or not at all; a worker may
 * see the first entries of the batch before the later ones).
 */
int p4dp_runtime_table_entries_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *entries,
				   uint32_t n, uint32_t *done);

/**
 * Replace the action and parameters of an installed entry (direct counters/meters are kept).
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the entry: match of the installed entry, new action and parameters.
 * @return 0; -EINVAL (as add); -ENOENT (not installed); -ENOMEM.
 * Context: control thread. Thread safety: as add; a packet sees the old or the new version.
 */
int p4dp_runtime_table_entry_modify(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e);

/**
 * Delete an installed entry; its direct counter/meter cells are reset.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the match of the entry (action and parameters ignored).
 * @return 0; -EINVAL (match validation as add, const table); -ENOENT; -ENOMEM.
 * Context: control thread. Thread safety: as add; the entry is freed after a grace period.
 */
int p4dp_runtime_table_entry_delete(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e);

/**
 * Read one installed entry and pass it to @p cb.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the match of the entry to read.
 * @param cb receives the entry in control-plane form (valid only during the call).
 * @param arg passed to @p cb.
 * @return 0 or cb's nonzero value; -EINVAL (match validation, NULL callback); -ENOENT; -ENOMEM.
 * Context: control thread. Thread safety: as add.
 */
int p4dp_runtime_table_entry_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				 p4dp_rt_entry_cb cb, void *arg);

/**
 * Pass every installed entry (in no particular order) to @p cb.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param cb receives each entry (valid only during the call); must not write the table.
 * @param arg passed to @p cb.
 * @return 0 after the full walk, cb's nonzero value if it stopped; -EINVAL; -ENOMEM.
 * Context: control thread. Thread safety: holds the table's writer lock during the walk.
 */
int p4dp_runtime_table_read(struct p4dp_runtime *rt, uint32_t table, p4dp_rt_entry_cb cb, void *arg);

/**
 * Delete all entries of a table (their direct counter/meter cells are reset).
 *
 * @param rt the runtime.
 * @param table table index; not a const table.
 * @return 0; -EINVAL (bad index, const table); -ENOMEM.
 * Context: control thread. Thread safety: as add.
 */
int p4dp_runtime_table_clear(struct p4dp_runtime *rt, uint32_t table);

/**
 * Set the default (miss) action. The new default is published atomically (workers see the old
 * or the new one); the old one is freed after an RCU grace period.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param action index into the program's actions; an action of the table, not @tableonly.
 * @param n_params number of parameters in @p params.
 * @param params the action's parameters in order, big-endian.
 * @return 0; -EINVAL (bad table, const default action, action not allowed, wrong parameter count
 *         or widths); -ENOMEM.
 * Context: control thread. Thread safety: serialized by the runtime mutex.
 */
int p4dp_runtime_table_default_set(struct p4dp_runtime *rt, uint32_t table, uint32_t action,
				   uint32_t n_params, const struct p4dp_rt_param *params);

/**
 * Pass the current default action to @p cb as an entry with n_keys 0.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param cb receives the action and its parameters (valid only during the call).
 * @param arg passed to @p cb.
 * @return 0 or cb's value; -EINVAL; -ENOMEM.
 * Context: control thread. Thread safety: runtime mutex.
 */
int p4dp_runtime_table_default_get(struct p4dp_runtime *rt, uint32_t table, p4dp_rt_entry_cb cb, void *arg);

/**
 * Restore the program's default action.
 *
 * @param rt the runtime.
 * @param table table index.
 * @return 0; -EINVAL (bad table, const default action); -ENOMEM.
 * Context: control thread. Thread safety: as default_set.
 */
int p4dp_runtime_table_default_reset(struct p4dp_runtime *rt, uint32_t table);

struct p4dp_rt_table_stats {
	uint64_t entries, capacity, inserts, deletes, modifies, table_full;
	uint64_t hits, misses; /**< counted by generated code through p4dp_table_count() */
	uint64_t dp_inserts;   /**< inserts from the data plane (p4dp_table_dp_add; also in inserts) */
	uint64_t dp_busy;      /**< data-plane inserts given up (writer busy / slots in a grace period) */
	uint64_t expired;      /**< entries deleted by idle timeout (also in deletes) */
	uint64_t idle_notified; /**< idle-timeout notifications queued */
	uint64_t meta_entries;  /**< entries with control-plane metadata (p4dp_runtime_table_entry_meta_set) */
	uint64_t tuples;        /**< tuple-space tables: hash tables (tabs) a lookup may probe; 0 otherwise */
};

/**
 * Table statistics; hits and misses are summed over the workers.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param st receives the statistics.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: a consistent snapshot of the table's own counters
 * (under its locks); hits/misses are recent values of counters the workers keep running.
 */
int p4dp_runtime_table_stats_get(struct p4dp_runtime *rt, uint32_t table, struct p4dp_rt_table_stats *st);

/* ------------------------------------------------------------------------------------------ */
/* Idle timeout (PNA pna_idle_timeout / idle_timeout_with_auto_delete)                          */

/**
 * Set the duration of an expire-time profile. Defaults: P4DP_EXPIRE_DEFAULTS_NS (table.h:
 * profile 0 = 10 s, 1 = 1 s, 2 = 5 s, 3 = 30 s, 4 = 60 s, 5 = 300 s, 6 = 3600 s, 7 = never).
 * Control-plane entries use profile 0; PNA add_entry passes its expire_time_profile_id.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param profile profile number, < P4DP_EXPIRE_PROFILES.
 * @param ns idle time after which entries with this profile expire; 0 = never.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: table mutex.
 */
int p4dp_runtime_table_expire_profile_set(struct p4dp_runtime *rt, uint32_t table, uint32_t profile, uint64_t ns);
/**
 * Read the duration of an expire-time profile.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param profile profile number, < P4DP_EXPIRE_PROFILES.
 * @param ns receives the duration in ns (0 = never).
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: table mutex.
 */
int p4dp_runtime_table_expire_profile_get(struct p4dp_runtime *rt, uint32_t table, uint32_t profile,
					  uint64_t *ns);

/**
 * Run the expiry scan of every table with P4DP_TABLE_F_IDLE_NOTIFY or _IDLE_AUTO_DELETE now (at
 * p4dp_runtime_time_get(), or the running clock). p4dp_runtime_time_advance() and
 * p4dp_runtime_time_set() call it, so expiry is exact under the simulated clock; during
 * p4dp_runtime_run() the control thread calls it every 10 ms.
 *
 * @param rt the runtime.
 * @return number of expired entries; -EINVAL (NULL); -ENOMEM.
 * Context: control thread. Thread safety: each table's mutex, the idle-queue mutex.
 */
int p4dp_runtime_idle_scan(struct p4dp_runtime *rt);

/**
 * Give an entry its own idle timeout (P4Runtime TableEntry.idle_timeout_ns) in place of its
 * expire-time profile. The entry then expires when @p ttl_ns is nonzero and it has not been
 * hit for @p ttl_ns since the later of its last hit and the restart of its timer. Setting the
 * TTL restarts the timer; so does every expiry the scan reports (P4Runtime's rule: an entry
 * that stays idle is reported again one TTL later; on _IDLE_AUTO_DELETE tables it is deleted
 * instead). The TTL is kept by modifies and goes with the entry's delete; an entry without
 * one keeps its profile (control-plane entries: profile 0). The data-plane hit path is not
 * involved: the TTL lives in a per-slot array of the table that only control threads touch.
 *
 * @param rt the runtime.
 * @param table table index; the table must have P4DP_TABLE_F_IDLE_NOTIFY or _IDLE_AUTO_DELETE.
 * @param e the match of the entry (action and parameters ignored).
 * @param ttl_ns the TTL in ns; 0 = the entry never expires.
 * @return 0; -EINVAL (table, no idle timeout, const entries, match); -ENOENT; -ENOMEM.
 * Context: control thread. Thread safety: the table's mutex; safe against running workers.
 */
int p4dp_runtime_table_entry_ttl_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				     uint64_t ttl_ns);

/** Idle-timeout state of an entry (p4dp_runtime_table_entry_idle_get). */
struct p4dp_rt_idle {
	uint64_t ttl_ns;       /**< its own TTL, or else its expire profile's duration; 0 = never expires */
	uint64_t since_hit_ns; /**< time since its last hit (or its insert), at the call */
	uint32_t own_ttl;      /**< 1: the TTL was set by p4dp_runtime_table_entry_ttl_set */
	uint32_t _pad;
};

/**
 * Read an entry's idle timeout and the time since its last hit (P4Runtime
 * time_since_last_hit). The last-hit time is what workers last stored: it may lag a hit that is
 * being processed by up to one burst.
 *
 * @param rt the runtime.
 * @param table table index; the table must have P4DP_TABLE_F_IDLE_NOTIFY or _IDLE_AUTO_DELETE.
 * @param e the match of the entry.
 * @param out receives the state.
 * @return 0; -EINVAL; -ENOENT.
 * Context: control thread. Thread safety: the table's mutex; safe against running workers.
 */
int p4dp_runtime_table_entry_idle_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      struct p4dp_rt_idle *out);

/**
 * Attach opaque control-plane bytes to an entry (P4Runtime `metadata`), replacing what it had.
 * They are kept by modifies and freed with the entry's delete (also a clear or an idle-timeout
 * auto delete); workers never see them.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the match of the entry (action and parameters ignored); NULL: the table's default entry
 *        (kept until replaced, also by a table with const entries).
 * @param meta the bytes; @p len 0 removes them.
 * @param len their length, at most P4DP_ENTRY_META_MAX (table.h: 65536).
 * @return 0; -EINVAL (table, const entries, match, length); -ENOENT; -ENOMEM.
 * Context: control thread. Thread safety: the table's mutex; safe against running workers.
 */
int p4dp_runtime_table_entry_meta_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      const void *meta, uint32_t len);

/**
 * Read the control-plane bytes of an entry.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param e the match of the entry; NULL: the table's default entry.
 * @param buf receives up to @p cap bytes (may be NULL when @p cap is 0).
 * @param cap size of @p buf.
 * @param len receives their full length (0: none; more than @p cap: call again with a larger buffer).
 * @return 0; -EINVAL; -ENOENT.
 * Context: control thread. Thread safety: the table's mutex.
 */
int p4dp_runtime_table_entry_meta_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      void *buf, uint32_t cap, uint32_t *len);

/**
 * How many entries of a table hold control-plane bytes (never fewer than do: 0 means none has
 * any, so removing an existing entry's bytes would change nothing). Cheaper than
 * p4dp_runtime_table_stats_get: only the table's mutex, no snapshot against data-plane inserts.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param n receives the count.
 * @return 0; -EINVAL (table, NULL @p n).
 * Context: control thread. Thread safety: the table's mutex.
 */
int p4dp_runtime_table_meta_entries(struct p4dp_runtime *rt, uint32_t table, uint64_t *n);

/** An idle-timeout notification: @p e is the expired entry in control-plane form (match, action,
 *  parameters), @p time_ns the (simulated or run) time of the scan that found it, @p idle_ns how
 *  long it had been idle. Valid only during the call. Return nonzero to stop polling. */
typedef int (*p4dp_rt_idle_cb)(void *arg, uint32_t table, const struct p4dp_rt_entry *e, uint64_t time_ns,
			       uint64_t idle_ns);

/**
 * Deliver queued idle-timeout notifications, oldest first, and remove them. Tables with
 * P4DP_TABLE_F_IDLE_NOTIFY queue one notification per entry and idle period (an entry hit again
 * is reported again when it next expires; an entry with its own TTL every TTL it stays idle,
 * see p4dp_runtime_table_entry_ttl_set); with _IDLE_AUTO_DELETE the entry is also deleted.
 *
 * @param rt the runtime.
 * @param cb receives each notification (see p4dp_rt_idle_cb); nonzero stops the poll.
 * @param arg passed to @p cb.
 * @param max most notifications to deliver; 0 = all.
 * @return number delivered; -EINVAL; -ENOMEM.
 * Context: control thread; one poller at a time. Thread safety: idle-queue mutex.
 */
int p4dp_runtime_idle_poll(struct p4dp_runtime *rt, p4dp_rt_idle_cb cb, void *arg, uint32_t max);

/**
 * Notifications dropped because the idle-timeout queue (65536) was full.
 *
 * @param rt the runtime; NULL gives 0.
 * @return the count since creation.
 * Context: control thread. Thread safety: idle-queue mutex.
 */
uint64_t p4dp_runtime_idle_drops_get(struct p4dp_runtime *rt);

/* ------------------------------------------------------------------------------------------ */
/* Externs: counters, registers, meters, digests                                               */

/**
 * Extern index of the extern named @p name.
 *
 * @param rt the runtime.
 * @param name control-plane name of the extern instance.
 * @param ext receives the index into the program's `externs`.
 * @return 0; -EINVAL (NULL argument); -ENOENT (no such extern).
 * Context: any thread. Thread safety: reads immutable metadata only.
 */
int p4dp_runtime_extern_find(const struct p4dp_runtime *rt, const char *name, uint32_t *ext);

/**
 * Read a counter cell, summed over the workers.
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct counter.
 * @param index cell index.
 * @param out receives packets and bytes.
 * @return 0; -EINVAL (not a counter, index out of range, NULL output).
 * Context: control thread. Thread safety: lock-free; concurrent with workers the value is a
 * recent, untorn snapshot per worker.
 */
int p4dp_runtime_counter_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, struct p4dp_counter_cell *out);

/**
 * Set a counter cell (worker 0's array gets @p v, the others 0).
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct counter.
 * @param index cell index.
 * @param v the new packets and bytes.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: untorn stores; exact only while no workers run
 * (concurrent increments may be lost).
 */
int p4dp_runtime_counter_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
			       const struct p4dp_counter_cell *v);

/**
 * Zero all cells of a counter.
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct counter.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: as counter_write.
 */
int p4dp_runtime_counter_reset(struct p4dp_runtime *rt, uint32_t ext);

/**
 * Read the direct counter cell of a table entry.
 *
 * @param rt the runtime.
 * @param table table index; the table must have a direct counter.
 * @param e the match of the entry; NULL: the table's default entry, whose cell counts (meters)
 *        the packets that miss.
 * @param out receives packets and bytes.
 * @return 0; -EINVAL (no direct counter, bad match); -ENOENT (no such entry).
 * Context: control thread. Thread safety: as counter_read; the entry is found under its table's
 * mutex.
 */
int p4dp_runtime_direct_counter_read(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				     struct p4dp_counter_cell *out);
/**
 * Set the direct counter cell of a table entry.
 *
 * @param rt the runtime.
 * @param table table index; the table must have a direct counter.
 * @param e the match of the entry; NULL: the table's default entry, whose cell counts (meters)
 *        the packets that miss.
 * @param v the new packets and bytes.
 * @return 0; -EINVAL; -ENOENT.
 * Context: control thread. Thread safety: as counter_write.
 */
int p4dp_runtime_direct_counter_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      const struct p4dp_counter_cell *v);

/**
 * Read a register cell as ceil(bitwidth/8) big-endian bytes.
 *
 * @param rt the runtime.
 * @param ext extern index of a register.
 * @param index cell index.
 * @param out receives the value.
 * @param out_len size of @p out.
 * @return the number of bytes written; -EINVAL (not a register, index out of range); -ENOSPC
 *         (@p out NULL or @p out_len too small).
 * Context: control thread. Thread safety: no lock; racing worker writes may be observed torn for
 * cells wider than 8 bytes.
 */
int p4dp_runtime_register_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint8_t *out,
			       uint32_t out_len);

/**
 * Write a register cell.
 *
 * @param rt the runtime.
 * @param ext extern index of a register.
 * @param index cell index.
 * @param value 1..ceil(bitwidth/8) big-endian bytes, value < 2^bitwidth.
 * @param len bytes in @p value.
 * @return 0; -EINVAL (not a register, index, value); -ENOMEM.
 * Context: control thread. Thread safety: no lock; a worker racing on the cell may see a torn
 * value for cells wider than 8 bytes.
 */
int p4dp_runtime_register_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, const uint8_t *value,
				uint32_t len);

/**
 * Zero every cell of a register.
 *
 * @param rt the runtime.
 * @param ext extern index of a register.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: as register_write.
 */
int p4dp_runtime_register_reset(struct p4dp_runtime *rt, uint32_t ext);

/* ---- rtc.p4 externs (docs/rtc.md): Counter, Queue, Lock ---------------------------------- */

/**
 * Read cell @p index of an rtc.p4 `Counter` (one 64-bit cell shared by every pipeline).
 *
 * @param rt the runtime.
 * @param ext extern index of an rtc Counter (p4dp_runtime_extern_find).
 * @param index cell index.
 * @param value receives the cell.
 * @return 0; -EINVAL (not an rtc Counter, index out of range, NULL output).
 * Context: any thread. Thread safety: one relaxed atomic load: a recent value, never torn, while
 * workers and background threads count.
 */
int p4dp_runtime_rtc_counter_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint64_t *value);

/**
 * Set cell @p index of an rtc.p4 `Counter` to @p value.
 *
 * @return 0; -EINVAL (not an rtc Counter, index out of range).
 * Context: any thread. Thread safety: one relaxed atomic store; a count racing with it lands
 * before or after it, never half.
 */
int p4dp_runtime_rtc_counter_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint64_t value);

/** The state of an rtc.p4 `Queue` (p4dp_runtime_rtc_queue_stats_get). */
struct p4dp_rt_rtc_queue_stats {
	uint32_t depth;      /**< messages it holds (the program's `Queue<T>(depth)`) */
	uint32_t elem_size;  /**< bytes per message (T padded to a multiple of 4) */
	uint32_t queued;     /**< messages queued now (a snapshot) */
	uint32_t _pad;
	uint64_t full_drops; /**< pushes refused because it was full, since the program was loaded */
};

/**
 * Depth, message size, messages queued and pushes refused of an rtc.p4 `Queue`.
 *
 * @return 0; -EINVAL (not an rtc Queue, NULL output).
 * Context: any thread. Thread safety: relaxed snapshots; with pushes and pops running, queued
 * is a recent value (each field read on its own).
 */
int p4dp_runtime_rtc_queue_stats_get(struct p4dp_runtime *rt, uint32_t ext, struct p4dp_rt_rtc_queue_stats *out);

/**
 * Whether lock @p index of an rtc.p4 `Lock` is held now (*@p held 1) or free (0) (for display and debugging: a stuck
 * lock stops the cores that wait for it).
 *
 * @return 0; -EINVAL (not an rtc Lock, index out of range, NULL output).
 * Context: any thread. Thread safety: a relaxed snapshot; it may change right after.
 */
int p4dp_runtime_rtc_lock_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, uint32_t *held);

/** Meter parameters, as P4Runtime's MeterConfig. Rates in units per second, bursts in units;
 *  units are bytes or packets per the extern's unit. What a meter takes depends on its type
 *  (enum p4dp_meter_type, abi.h): two-rate three-colour (RFC 2698) pir >= cir and eburst 0;
 *  single-rate three-colour (RFC 2697) pir == cir, pburst == cburst, eburst the excess burst
 *  size (EBS); single-rate two-colour pir == cir, pburst == cburst and eburst 0. */
struct p4dp_meter_config {
	uint64_t cir, cburst, pir, pburst, eburst;
};

/**
 * Configure a meter cell; both buckets start full.
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct meter.
 * @param index cell index.
 * @param cfg the rates and bursts; NULL unconfigures the cell (it then returns GREEN).
 * @return 0; -EINVAL (not a meter, index out of range, a configuration the meter's type does not
 *         take: see struct p4dp_meter_config); -ENOMEM.
 * Context: control thread. Thread safety: runtime mutex; the configuration is published
 * atomically and the old one freed after an RCU grace period.
 */
int p4dp_runtime_meter_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
			   const struct p4dp_meter_config *cfg);

/**
 * Read a meter cell's configuration.
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct meter.
 * @param index cell index.
 * @param cfg receives the configuration (zeroed if unconfigured).
 * @return 1 (configured), 0 (unconfigured); -EINVAL.
 * Context: control thread. Thread safety: runtime mutex.
 */
int p4dp_runtime_meter_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t index, struct p4dp_meter_config *cfg);

/**
 * Configure the direct meter cell of a table entry.
 *
 * @param rt the runtime.
 * @param table table index; the table must have a direct meter.
 * @param e the match of the entry; NULL: the table's default entry, whose cell counts (meters)
 *        the packets that miss.
 * @param cfg as for p4dp_runtime_meter_set().
 * @return 0; -EINVAL (no direct meter, bad match or configuration); -ENOENT (no such entry);
 *         -ENOMEM.
 * Context: control thread. Thread safety: as meter_set.
 */
int p4dp_runtime_direct_meter_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				  const struct p4dp_meter_config *cfg);
/**
 * Read the configuration of the direct meter cell of a table entry.
 *
 * @param rt the runtime.
 * @param table table index; the table must have a direct meter.
 * @param e the match of the entry; NULL: the table's default entry, whose cell counts (meters)
 *        the packets that miss.
 * @param cfg receives the configuration (zeroed if unconfigured).
 * @return 1 (configured), 0 (unconfigured); -EINVAL (no direct meter, bad match, NULL @p cfg);
 *         -ENOENT (no such entry).
 * Context: control thread. Thread safety: as meter_get; the entry must not be deleted by another
 * control thread meanwhile (the P4Runtime server serializes its writes and reads).
 */
int p4dp_runtime_direct_meter_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				  struct p4dp_meter_config *cfg);

/** Per-colour counts of a meter cell: the packets and bytes the meter coloured GREEN, YELLOW and
 *  RED (indexed by enum p4dp_color, abi.h). An unconfigured cell colours every packet GREEN and
 *  counts it so. Bytes are the packets' lengths whatever the meter's unit. */
struct p4dp_meter_counts {
	struct p4dp_counter_cell colour[3];
};

/**
 * Read the per-colour counts of a meter cell (the sum of the workers' counts).
 *
 * @param rt the runtime.
 * @param ext extern index of an indexed or direct meter.
 * @param index cell index.
 * @param out receives the counts.
 * @return 0; -EINVAL (not a meter, index out of range, NULL @p out).
 * Context: any thread. Thread safety: relaxed loads of the workers' counts (each is untorn; the
 * sum is not a snapshot of one instant). Configuring the cell keeps its counts.
 */
int p4dp_runtime_meter_counts_read(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
				   struct p4dp_meter_counts *out);

/**
 * Set the per-colour counts of a meter cell (all zero: reset).
 *
 * @return 0; -EINVAL (not a meter, index out of range, NULL @p v).
 * Context: control thread. Thread safety: relaxed stores; a packet a worker meters at the same
 * moment may be lost from the counts (as for p4dp_runtime_counter_write()).
 */
int p4dp_runtime_meter_counts_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t index,
				    const struct p4dp_meter_counts *v);

/**
 * Read the per-colour counts of the direct meter cell of a table entry.
 *
 * @param e the match of the entry; NULL: the table's default entry (the packets that missed).
 * @return 0; -EINVAL (no direct meter, bad match, NULL @p out); -ENOENT (no such entry).
 * Context and thread safety: as p4dp_runtime_meter_counts_read(); the entry must not be deleted
 * by another control thread meanwhile. Deleting an entry or clearing the table zeroes its entries'
 * counts (not the default entry's).
 */
int p4dp_runtime_direct_meter_counts_read(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
					  struct p4dp_meter_counts *out);

/**
 * Set the per-colour counts of the direct meter cell of a table entry (NULL @p e: the default
 * entry's).
 *
 * @return 0; -EINVAL (no direct meter, bad match, NULL @p v); -ENOENT (no such entry).
 * Context and thread safety: as p4dp_runtime_meter_counts_write().
 */
int p4dp_runtime_direct_meter_counts_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
					   const struct p4dp_meter_counts *v);

/** Digest message callback: @p data is the program's digest struct in native layout (len bytes = the
 *  extern's bitwidth field); valid only during the call. */
typedef void (*p4dp_digest_cb)(void *arg, uint32_t worker, const uint8_t *data, uint32_t len);

/**
 * Deliver queued messages of a digest, worker 0's queue first, each queue in enqueue order.
 *
 * @param rt the runtime.
 * @param ext extern index of a digest.
 * @param cb receives each message (see p4dp_digest_cb).
 * @param arg passed to @p cb.
 * @param max most messages to deliver; 0 = all.
 * @return number delivered; -EINVAL (not a digest, NULL callback).
 * Context: control thread. Thread safety: pollers are serialized by a mutex; lock-free against
 * the producing workers.
 */
int p4dp_runtime_digest_poll(struct p4dp_runtime *rt, uint32_t ext, p4dp_digest_cb cb, void *arg, uint32_t max);

/**
 * Messages of a digest dropped because a worker's queue was full.
 *
 * @param rt the runtime.
 * @param ext extern index of a digest.
 * @return the count over all workers; -EINVAL if not a digest.
 * Context: control thread. Thread safety: lock-free (recent values).
 */
int64_t p4dp_runtime_digest_drops_get(struct p4dp_runtime *rt, uint32_t ext);

/* ------------------------------------------------------------------------------------------ */
/* v1model packet replication engine: multicast groups and clone sessions                     */

/**
 * Create an empty multicast group.
 *
 * @param rt the runtime.
 * @param group group id, < P4DP_RT_MCAST_GROUPS.
 * @return 0; -EINVAL (id out of range); -EEXIST.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_group_create(struct p4dp_runtime *rt, uint32_t group);

/**
 * Delete a multicast group; its nodes become unassociated.
 *
 * @param rt the runtime.
 * @param group group id.
 * @return 0; -EINVAL; -ENOENT.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_group_delete(struct p4dp_runtime *rt, uint32_t group);

/**
 * Create a multicast node.
 *
 * @param rt the runtime.
 * @param rid replication id of the copies it makes.
 * @param ports egress ports (duplicates ignored; each < P4DP_PORT_DROP).
 * @param n_ports number of ports.
 * @param handle receives its handle (0, 1, 2, ... in creation order, reused after delete).
 * @return 0; -EINVAL; -ENOMEM.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_node_create(struct p4dp_runtime *rt, uint16_t rid, const uint32_t *ports, uint32_t n_ports,
				   uint32_t *handle);

/**
 * Delete a multicast node (dissociating it first).
 *
 * @param rt the runtime.
 * @param handle node handle.
 * @return 0; -ENOENT.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_node_delete(struct p4dp_runtime *rt, uint32_t handle);

/**
 * Associate a node with a group: the group replicates to its nodes in association order, each
 * node's ports ascending.
 *
 * @param rt the runtime.
 * @param group group id.
 * @param handle node handle.
 * @return 0; -ENOENT (group or node); -EBUSY (node already associated).
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_node_associate(struct p4dp_runtime *rt, uint32_t group, uint32_t handle);

/**
 * Dissociate a node from a group.
 *
 * @param rt the runtime.
 * @param group group id.
 * @param handle node handle.
 * @return 0; -ENOENT (not associated with it).
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_node_dissociate(struct p4dp_runtime *rt, uint32_t group, uint32_t handle);

/**
 * P4Runtime-style: set the group's own replicas in the given order (after its nodes'), creating
 * the group if needed.
 *
 * @param rt the runtime.
 * @param group group id.
 * @param ports egress port of each replica.
 * @param rids replication id of each replica.
 * @param n number of replicas.
 * @return 0; -EINVAL; -ENOMEM.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_group_set(struct p4dp_runtime *rt, uint32_t group, const uint32_t *ports,
				 const uint16_t *rids, uint32_t n);

/**
 * One replica of a multicast group or clone session, or a backup of the replica before it
 * (P4Runtime v1.5 backup replicas). A replica and its backups form a chain: a packet's copy for
 * that replica goes to the first port of the chain, in order, that is live
 * (p4dp_runtime_port_admin_set, the link status of a running port); when none is, no copy is made
 * and p4dp_rt_stats.replicas_down counts it. The runtime republishes the lists when a port's
 * liveness changes, so workers never look at port state.
 */
struct p4dp_rt_replica {
	uint32_t port;   /**< egress port, < P4DP_PORT_DROP */
	uint16_t rid;    /**< instance (the copy's egress_rid) */
	uint16_t backup; /**< 1: a backup of the replica before it (never the first); 0: a replica */
};

/**
 * Set a multicast group's own replicas with their backups (after its nodes'), creating the group
 * if needed.
 *
 * @param rt the runtime.
 * @param group group id, < P4DP_RT_MCAST_GROUPS.
 * @param reps the replicas in order, each followed by its backups (struct p4dp_rt_replica).
 * @param n number of elements of @p reps.
 * @return 0; -EINVAL (id or port out of range, a backup first or on its replica's port, NULL
 *         array); -ENOMEM. On error the group is unchanged.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_mcast_group_set_replicas(struct p4dp_runtime *rt, uint32_t group, const struct p4dp_rt_replica *reps,
					  uint32_t n);

/**
 * Set a clone session's replicas with their backups (creating the session or replacing it), its
 * truncation length and class of service.
 *
 * @param rt the runtime.
 * @param session session id, < P4DP_RT_CLONE_SESSIONS.
 * @param reps the replicas in clone order, each followed by its backups.
 * @param n number of elements of @p reps; at most P4DP_CLONE_REPLICAS_MAX replicas (backups not counted).
 * @param trunc truncation length of the clones in bytes; 0: no truncation.
 * @param cos class of service of the clones (v1model: their standard_metadata.priority, which
 *        keeps its low 3 bits).
 * @return 0; -EINVAL (as p4dp_runtime_mcast_group_set_replicas, or too many replicas); -ENOMEM.
 *         On error the session is unchanged.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_clone_session_set_replicas(struct p4dp_runtime *rt, uint32_t session,
					    const struct p4dp_rt_replica *reps, uint32_t n, uint32_t trunc, uint8_t cos);

/**
 * Set a clone session's replicas (creating the session or replacing its replicas): a packet
 * cloned to the session gives one clone per replica, in this order, each with the replica's
 * instance as its egress_rid, truncated to @p trunc bytes when @p trunc is not 0.
 *
 * @param rt the runtime.
 * @param session session id, < P4DP_RT_CLONE_SESSIONS.
 * @param ports egress port of each replica, each < P4DP_PORT_DROP.
 * @param rids instance of each replica.
 * @param n number of replicas, at most P4DP_CLONE_REPLICAS_MAX (0: the session clones nothing).
 * @param trunc truncation length of the clones in bytes; 0: no truncation.
 * @return 0; -EINVAL (id, port or count out of range, NULL arrays); -ENOMEM. On error the
 *         session is unchanged.
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_clone_session_set(struct p4dp_runtime *rt, uint32_t session, const uint32_t *ports,
				   const uint16_t *rids, uint32_t n, uint32_t trunc);

/**
 * Point a clone session at a multicast group (creating the session or replacing its replicas):
 * a packet cloned to the session gives one clone per replica the group has at that moment (at
 * most P4DP_CLONE_REPLICAS_MAX), in the group's order, each with the replica's rid as its
 * egress_rid. The group need not exist yet; while it does not (or has no replicas) the session
 * clones nothing. This is BMv2's `mirroring_add_mc`; P4Runtime clone sessions list their
 * replicas instead (p4dp_runtime_clone_session_set).
 *
 * @param rt the runtime.
 * @param session session id, < P4DP_RT_CLONE_SESSIONS.
 * @param group multicast group id, < P4DP_RT_MCAST_GROUPS.
 * @param trunc truncation length of the clones in bytes; 0: no truncation.
 * @return 0; -EINVAL (session or group out of range); -ENOMEM. On error the session is unchanged.
 * Context: control thread. Thread safety: runtime mutex; workers read the published session lock-free.
 */
int p4dp_runtime_clone_session_set_group(struct p4dp_runtime *rt, uint32_t session, uint32_t group, uint32_t trunc);

/**
 * Remove a clone session.
 *
 * @param rt the runtime.
 * @param session session id.
 * @return 0; -EINVAL; -ENOENT (not set).
 * Context: control thread. Thread safety: runtime mutex; workers read the published replica lists lock-free.
 */
int p4dp_runtime_clone_session_delete(struct p4dp_runtime *rt, uint32_t session);

/**
 * Replace the members of a parser value set as a whole. Member i, field f is matched by a key
 * whose field f satisfies (key & masks[i * n_fields + f]) == values[i * n_fields + f]
 * (n_fields and the widths from p4dp_program.value_sets[vs]); an exact field has an all-ones
 * mask of its width.
 *
 * @param rt the runtime.
 * @param vs the value set's index in p4dp_program.value_sets.
 * @param values n * n_fields field values, native, each within its field's width.
 * @param masks n * n_fields masks, each within its field's width; a value has no bits outside its mask.
 * @param n members (0 empties the set).
 * @return 0; -EINVAL (index out of range, NULL arrays, a value or mask wider than its field, a
 *         value bit outside its mask); -ENOSPC (more members than the value set's size); -ENOMEM.
 *         On error the set is unchanged.
 * Context: control thread. Thread safety: runtime mutex; workers match against the published
 * list lock-free and see the old members or the new ones, never a mix; the old list is freed
 * after an RCU grace period.
 */
int p4dp_runtime_value_set_set(struct p4dp_runtime *rt, uint32_t vs, const uint64_t *values, const uint64_t *masks,
			       uint32_t n);

/**
 * Read the members of a parser value set, in the order they were set.
 *
 * @param rt the runtime.
 * @param vs the value set's index in p4dp_program.value_sets.
 * @param values receives up to @p max * n_fields field values (may be NULL when @p max is 0).
 * @param masks receives their masks (likewise).
 * @param max capacity of @p values and @p masks in members.
 * @param n receives the number of members (which may exceed @p max: then only @p max are written).
 * @return 0; -EINVAL (index out of range, NULL @p n).
 * Context: control thread. Thread safety: runtime mutex.
 */
int p4dp_runtime_value_set_get(struct p4dp_runtime *rt, uint32_t vs, uint64_t *values, uint64_t *masks,
			       uint32_t max, uint32_t *n);

/* ------------------------------------------------------------------------------------------ */
/* Synchronous processing                                                                       */

/** Output packet callback: @p data valid only during the call. */
typedef void (*p4dp_out_cb)(void *arg, uint32_t port, const uint8_t *data, uint32_t len);

/**
 * Process one packet to completion on the calling thread with worker context 0 (no ports needed)
 * at the simulated time (p4dp_runtime_time_set). Every output packet is passed to @p cb in
 * emission order: copies (p4dp_pkt_emit_copy) in the order the program emitted them, then the
 * packet itself unless dropped.
 *
 * @param rt the runtime.
 * @param in_port the packet's ingress port.
 * @param data the frame.
 * @param len bytes in @p data, at most 65535.
 * @param cb receives each output packet.
 * @param arg passed to @p cb.
 * @return number of output packets; -EINVAL (bad arguments, len > 65535); -EBUSY
 *         (p4dp_runtime_run in progress); -ENOMEM.
 * Context: control thread. Thread safety: not concurrent with another inject on the same runtime.
 */
int p4dp_runtime_packet_inject(struct p4dp_runtime *rt, uint32_t in_port, const uint8_t *data, uint32_t len,
			       p4dp_out_cb cb, void *arg);

/**
 * Choose the entry point inject() calls: the program's process(), or the path worker lcores
 * take: process_mbufs() on an mbuf header over the packet (packets up to 60415 bytes) if the
 * program has it, else process_burst() with a burst of one packet (batched parsing, staged
 * lookups). Lets STF tests check that path (`p4dp stf --burst`). Programs with neither always
 * use process().
 *
 * @param rt the runtime.
 * @param on 0 (default): process(); nonzero: the workers' path.
 * @return 0; -EINVAL (NULL rt).
 * Context: control thread. Thread safety: not concurrent with inject().
 */
int p4dp_runtime_packet_inject_burst_set(struct p4dp_runtime *rt, int on);

/**
 * Run background pipeline @p name (rtc.p4: the name of its ingress control) @p n times,
 * deterministically, on the calling thread with worker context 0, at the simulated clock
 * (p4dp_runtime_time_set): before each iteration the clock is advanced to the time the
 * pipeline's last Sleep asked it to wait for, if that is later. Queue.popWait does not wait (an
 * empty queue is false at once: nothing else runs meanwhile). Every packet an iteration sends
 * is passed to @p cb, in order.
 *
 * @param rt the runtime.
 * @param name the pipeline.
 * @param n iterations.
 * @param cb receives each output packet.
 * @param arg passed to @p cb.
 * @return number of output packets; -ENOENT (no such background pipeline), -EINVAL (NULL
 *         argument), -EBUSY (p4dp_runtime_run in progress), -ENOMEM.
 * Context: control thread. Thread safety: not concurrent with inject() or another call of this.
 */
int p4dp_runtime_background_run(struct p4dp_runtime *rt, const char *name, uint32_t n, p4dp_out_cb cb,
				 void *arg);

/**
 * Set the simulated clock, seen as ctx->now_ns by inject(), and run the expiry scan at it
 * (p4dp_runtime_idle_scan) unless a run's wall clock is live.
 *
 * @param rt the runtime; NULL is a no-op.
 * @param ns the new time in ns.
 * Context: control thread. Thread safety: one thread drives the simulated clock.
 */
void p4dp_runtime_time_set(struct p4dp_runtime *rt, uint64_t ns);
/**
 * Advance the simulated clock by @p ns (p4dp_runtime_time_set() at time_get() + @p ns).
 *
 * @param rt the runtime; NULL is a no-op.
 * @param ns nanoseconds to add.
 * Context: control thread. Thread safety: as time_set.
 */
void p4dp_runtime_time_advance(struct p4dp_runtime *rt, uint64_t ns);
/**
 * The simulated clock.
 *
 * @param rt the runtime; NULL gives 0.
 * @return the time in ns.
 * Context: any thread. Thread safety: atomic load.
 */
uint64_t p4dp_runtime_time_get(const struct p4dp_runtime *rt);
/**
 * The clock of the run in progress (p4dp_runtime_run), as three numbers another process on the
 * same machine can use to read it. A worker's time (ctx->now_ns: v1model
 * ingress_global_timestamp is it / 1000, PNA's timestamp is it) is
 * ns0 + (((tsc - tsc0) * mult) >> 32), mult = (10^9 << 32) / tsc_hz, with tsc the TSC
 * (rte_rdtsc) read at the start of the worker's poll iteration (at most 4 full
 * bursts earlier while every poll returns a full burst). ns0 is the simulated clock when the
 * run started. Converting its own TSC reading the same way, a process gets a time directly
 * comparable with the data plane's (on one machine, whose TSC every core shares).
 *
 * @param rt the runtime.
 * @param tsc0 receives the TSC at the start of the run.
 * @param ns0 receives the time (ns) at the start of the run.
 * @param tsc_hz receives the TSC frequency the conversion uses (rte_get_tsc_hz).
 * @return 0; -EINVAL (NULL argument); -EAGAIN (no run in progress; nothing written).
 * Context: any thread. Thread safety: atomic loads; the values are constant during a run.
 */
int p4dp_runtime_run_clock_get(const struct p4dp_runtime *rt, uint64_t *tsc0, uint64_t *ns0, uint64_t *tsc_hz);

struct p4dp_rt_stats {
	uint64_t packets;       /**< packets processed (inject and workers) */
	uint64_t drops;         /**< dropped by the program (out_port == P4DP_PORT_DROP) or an assert */
	uint64_t finish_errors; /**< p4dp_pkt_finish failures (frame did not fit; dropped) */
	uint64_t copies;        /**< copies emitted */
	uint64_t copy_errors;   /**< p4dp_pkt_emit_copy without a buffer (-ENOBUFS) */
	uint64_t asserts;       /**< assert/assume failures */
	uint64_t unsupported;   /**< p4dp_count_unsupported events */
	uint64_t no_port;       /**< packets sent to a port number with no port (dropped) */
	uint64_t multiseg;      /**< received frames spanning several mbufs (dropped) */
	uint64_t lock_revocations; /**< @entry_lock entries taken from the worker they were biased to
				        (dpwrite.h): once per entry that a second worker locks */
	uint64_t replicas_down;    /**< multicast or clone replicas not made because every port of
				        their chain (the replica and its backups) was down */
	uint64_t groups_down;      /**< selector group lookups that found every member's watch port
				        down: the table applied as a miss */
};

/**
 * Runtime-wide statistics summed over the workers.
 *
 * @param rt the runtime.
 * @param st receives the statistics.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: lock-free; recent values while workers run.
 */
int p4dp_runtime_stats_get(struct p4dp_runtime *rt, struct p4dp_rt_stats *st);

/* ------------------------------------------------------------------------------------------ */
/* Ports and workers                                                                            */

/**
 * Attach a DPDK device as a P4 port. For net_pcap rx_pcap files the packet count is read so that
 * p4dp_runtime_run() can tell when the input is drained.
 *
 * @param rt the runtime.
 * @param port_no P4 port number, < P4DP_PORT_DROP.
 * @param devargs any vdev string, e.g. `net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap`,
 *        `net_af_packet0,iface=veth0`, `net_ring0`, `net_null0`; the name before the first ','
 *        must be unique in the process.
 * @return 0; -EINVAL (port_no out of range, empty devargs); -EEXIST (port_no in use); -ENOSPC
 *         (P4DP_RT_MAX_PORTS reached); -ENODEV (probe failed); -EBUSY (running).
 * Context: control thread. Thread safety: runtime mutex.
 */
int p4dp_runtime_port_add(struct p4dp_runtime *rt, uint32_t port_no, const char *devargs);

/**
 * Take a port down or bring it up again (the operator's admin state, for port liveness). A port
 * is live when it is not taken down and, while the runtime runs, its device does not report its
 * link down (rte_eth_link_get_nowait, polled every 10 ms by the thread in p4dp_runtime_run).
 * Liveness selects the replicas of multicast groups and clone sessions among their backups
 * (struct p4dp_rt_replica) and excludes the members of selector groups whose watch port is down
 * (p4dp_runtime_actprof_group_member_watch_set); a change republishes the affected lists, which
 * workers then see whole (RCU). Packets the program sends to a port that is down are transmitted
 * as before: liveness does not stop a port.
 *
 * @param rt the runtime.
 * @param port_no P4 port number, < P4DP_PORT_DROP (need not have a device: liveness is per number).
 * @param up 1: up (the default); 0: down.
 * @return 0; -EINVAL (port out of range); -ENOMEM (a list could not be rebuilt: the state is
 *         set, the lists that could not be rebuilt are as before).
 * Context: control thread. Thread safety: liveness mutex, then the runtime mutex and profile mutexes.
 */
int p4dp_runtime_port_admin_set(struct p4dp_runtime *rt, uint32_t port_no, int up);

/** Liveness of one port (p4dp_runtime_port_state_get). */
struct p4dp_rt_port_state {
	uint8_t admin_up; /**< not taken down (p4dp_runtime_port_admin_set) */
	uint8_t link_up;  /**< the device does not report its link down (always 1 while not running) */
	uint8_t live;     /**< both */
};

/**
 * The liveness of a port number.
 *
 * @param rt the runtime.
 * @param port_no P4 port number, < P4DP_PORT_DROP.
 * @param st receives the state.
 * @return 0; -EINVAL (NULL argument, port out of range).
 * Context: control thread. Thread safety: lock-free (a recent state).
 */
int p4dp_runtime_port_state_get(struct p4dp_runtime *rt, uint32_t port_no, struct p4dp_rt_port_state *st);

/** Default queue length of a ring port (packets each way). */
#define P4DP_RT_RING_PORT_QLEN 1024u

/**
 * Attach a ring port: a P4 port whose packets are exchanged with control threads instead of a
 * device. Packets the program sends to @p port_no are queued for p4dp_runtime_ring_port_recv();
 * packets given to p4dp_runtime_ring_port_send() are received by the workers as if they had
 * arrived on @p port_no. Workers see an ordinary DPDK port (rte_eth_from_rings over two
 * multi-producer/multi-consumer rings), so the fast path has no special case. A full queue
 * drops: a transmit counts in the port's tx_errors, a send fails with -ENOBUFS.
 *
 * @param rt the runtime.
 * @param port_no P4 port number, < P4DP_PORT_DROP.
 * @param qlen packets each queue holds, 1..65536; 0 = P4DP_RT_RING_PORT_QLEN.
 * @return 0; -EINVAL (NULL runtime, port_no or qlen out of range); -EEXIST (port_no in use);
 *         -ENOSPC (P4DP_RT_MAX_PORTS reached); -EBUSY (running); -ENOMEM (rings or device).
 * Context: control thread. Thread safety: runtime mutex.
 */
int p4dp_runtime_ring_port_add(struct p4dp_runtime *rt, uint32_t port_no, uint32_t qlen);

/**
 * Queue a packet on a ring port's input: a worker receives it on that port.
 *
 * @param rt the runtime.
 * @param port_no a ring port (p4dp_runtime_ring_port_add).
 * @param data the frame (copied).
 * @param len bytes in @p data, 1 up to a packet buffer's data room (about 4 KiB).
 * @return 0; -EINVAL (NULL or empty packet, too long); -ENOENT (not a ring port); -EAGAIN (no
 *         packet buffers yet: the runtime creates its pool at its first p4dp_runtime_run());
 *         -ENOBUFS (no free buffer, or the input queue is full: the packet is not sent).
 * Context: control thread (any thread that is not a worker). Thread safety: any number of
 * senders (multi-producer ring); lock-free.
 */
int p4dp_runtime_ring_port_send(struct p4dp_runtime *rt, uint32_t port_no, const uint8_t *data, uint32_t len);

/**
 * Deliver the packets the program sent to a ring port, oldest first, and remove them.
 *
 * @param rt the runtime.
 * @param port_no a ring port.
 * @param cb receives each packet (port_no, data valid only during the call).
 * @param arg passed to @p cb.
 * @param max most packets to deliver; 0 = all queued.
 * @return number delivered; -EINVAL (NULL argument); -ENOENT (not a ring port); -ENOMEM.
 * Context: control thread. Thread safety: lock-free (multi-consumer ring); with several
 * receivers each packet goes to one of them.
 */
int p4dp_runtime_ring_port_recv(struct p4dp_runtime *rt, uint32_t port_no, p4dp_out_cb cb, void *arg, uint32_t max);

struct p4dp_run_params {
	uint32_t n_workers;     /**< 1..max_workers, at most the number of EAL worker lcores */
	volatile int *stop;     /**< optional: stop when *stop becomes nonzero */
	uint64_t duration_ms;   /**< 0: no limit */
	int until_input_done;   /**< stop once all input is received and processed (see below) */
	uint32_t idle_ms;       /**< ports with unknown input size: input is done after this long without
				     any received packet (once one was received); 0 = 200 */
	uint32_t dispatch;      /**< enum p4dp_rt_dispatch */
	uint32_t flow_key_off;  /**< software dispatch flow key: frame bytes [off, off + len) ... */
	uint32_t flow_key_len;  /**< ... ; len 0 = the IPv4/IPv6 5-tuple (addresses, protocol, TCP/UDP/
				     SCTP ports); frames without that key (non-IP, too short) stay on the
				     worker that polled them, in port order */
	uint32_t n_background;  /**< rtc.p4: background threads, 0 .. the program's background pipelines
				     (0: they do not run). They take the EAL worker lcores and the worker
				     contexts after the workers' (n_workers + n_background <= max_workers);
				     thread i runs pipelines i, i + n_background, ... round robin, each
				     iteration as soon as its last Sleep allows (docs/rtc.md) */
};

/** How packets are spread over workers (flows stay on one worker, so flow-local state needs no lock). */
enum p4dp_rt_dispatch {
	P4DP_RT_DISPATCH_AUTO = 0, /**< RSS if every port supports n_workers rx queues with RSS, else software */
	P4DP_RT_DISPATCH_RSS = 1,  /**< RSS required (-EIO if a port lacks it) */
	P4DP_RT_DISPATCH_SW = 2,   /**< software: the polling worker hashes the flow key and hands the packet to
				        the owner's ring */
	P4DP_RT_DISPATCH_NONE = 3, /**< none: each port's rx queue 0 is polled by one worker (port slot mod
				        n_workers), which processes all it receives. For sources that already
				        deliver every flow to one port (the bench's emulated RSS, an external
				        load balancer); otherwise flow-local state is shared between workers */
};

/**
 * Start the ports, run @p n_workers worker lcores (rx burst of 32 -> program -> tx burst per output
 * port, RCU quiescent state after every loop iteration), and return when stopped: by *stop, by the
 * duration, or (until_input_done) when every port with a known input size (net_pcap rx_pcap: the
 * records that lie within the file) has received all its packets and every other port has been
 * idle for idle_ms, or no port has received anything for 2 s while input is still missing (a
 * record net_pcap cannot read: the run never waits without a bound) — then the in-flight
 * packets are processed and transmitted before the ports are stopped (net_pcap then closes its
 * output files; a later run replays the input files from the start).
 * Dispatch (params->dispatch): with RSS every worker polls its own rx queue of every port (the NIC
 * hashes the flow); with software dispatch rx queue 0 of each port is polled by worker (port slot %
 * n_workers), which hashes each packet's flow key (CRC32 of the bytes) and processes it itself if it
 * owns the flow (hash % n_workers) or enqueues it on the owner's ring (MP/SC rte_ring, full: dropped
 * and counted); every worker drains its ring each iteration. Either way one flow is processed by
 * one worker. Each worker transmits on its own tx queue where the device has enough, otherwise
 * through a lock-free ring drained by worker 0.
 * Packets are processed at wall-clock time (ctx->now_ns from the TSC).
 * Background threads (n_background, rtc.p4) loop over their pipelines until the stop, on the run
 * clock; when the run ends by until_input_done they get idle_ms more after the input is done, to
 * react to its last packets. Their packets leave like the workers' (own tx queue, else the ring).
 *
 * @param rt the runtime, with ports (p4dp_runtime_port_add).
 * @param params workers, stop conditions and dispatch (see struct p4dp_run_params).
 * @return 0; -EINVAL (no ports, bad n_workers, n_background or dispatch mode, too few lcores, no
 *         stop condition); -EBUSY
 *         (already running); -ENOMEM (mbuf pool, dispatch rings); -EIO (port configuration
 *         failed, RSS required but unavailable; the message has the details).
 * Context: control thread (blocks until the run ends). Thread safety: one run per runtime
 * (-EBUSY); other control functions may be called from other threads meanwhile.
 */
int p4dp_runtime_run(struct p4dp_runtime *rt, const struct p4dp_run_params *params);

struct p4dp_rt_port_stats {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes; /**< handed to the device */
	uint64_t drops;     /**< received on this port and dropped by the program */
	uint64_t tx_errors; /**< sent to this port but not accepted by the device (dropped) */
};

/** Per-worker statistics (of the last/current run; inject() counts as worker 0). */
struct p4dp_rt_worker_stats {
	uint64_t packets;        /**< packets processed */
	uint64_t rx_packets;     /**< received from devices */
	uint64_t dispatched_out; /**< handed to another worker (software dispatch) */
	uint64_t dispatched_in;  /**< received from another worker (software dispatch) */
	uint64_t dispatch_drops; /**< owner's ring full: dropped */
	uint64_t loops;          /**< main-loop iterations */
	uint32_t rss;            /**< 1 if the last run used RSS; 0: software dispatch, none, or one worker */
};

/**
 * Statistics of one worker (of the last or current run; inject() counts as worker 0).
 *
 * @param rt the runtime.
 * @param worker worker index, < max_workers.
 * @param st receives the statistics.
 * @return 0; -EINVAL.
 * Context: control thread. Thread safety: lock-free; recent values while workers run.
 */
int p4dp_runtime_worker_stats_get(struct p4dp_runtime *rt, uint32_t worker, struct p4dp_rt_worker_stats *st);

/**
 * Statistics of a P4 port summed over the workers.
 *
 * @param rt the runtime.
 * @param port_no P4 port number.
 * @param st receives the statistics.
 * @return 0; -EINVAL (NULL argument); -ENOENT (no such port).
 * Context: control thread. Thread safety: lock-free; recent values while workers run.
 */
int p4dp_runtime_port_stats_get(struct p4dp_runtime *rt, uint32_t port_no, struct p4dp_rt_port_stats *st);

/* ------------------------------------------------------------------------------------------ */
/* Data-plane atomic batches (src/batch.c)                                                       */

/** A batch's work: control-API writes of any kind on @p arg. Returns what p4dp_runtime_batch_run
 *  returns (0 or a negative errno, the caller's choice). */
typedef int (*p4dp_rt_batch_fn)(void *arg);

/** Where the time of one batch went (TSC converted to ns). */
struct p4dp_rt_batch_times {
	uint64_t wait_ns;  /**< from the request until every worker had parked at its loop boundary */
	uint64_t apply_ns; /**< @p fn's run: the workers' stall after they parked */
};

/**
 * Run @p fn with every worker of the current run parked at a burst boundary, so that every packet
 * is processed by the tables entirely as they were before @p fn or entirely as @p fn left them
 * (data-plane atomicity across all tables @p fn writes; it works for every table kind and extern
 * because it goes through the ordinary control API). Each worker finishes the burst in hand, then
 * waits (reporting RCU quiescence, so @p fn may wait for grace periods); packets arriving meanwhile
 * wait in the devices' queues. The workers' stall is wait_ns (spent by each one at most one loop
 * iteration) plus apply_ns: validate and prepare everything before the call, and write only inside
 * it. Without a running data plane @p fn just runs. @p fn may undo its own writes before returning
 * (all-or-nothing batches): the workers never see them.
 *
 * @param rt the runtime.
 * @param fn the writes; runs on the calling thread.
 * @param arg passed to @p fn.
 * @param times NULL, or receives the batch's wait and apply times.
 * @return @p fn's return value; -EINVAL (NULL rt or fn); -EDEADLK (called from inside @p fn).
 * Context: control thread. It spins (yielding the CPU every few hundred tries) until every worker
 * has parked; a worker parks within one loop iteration. Thread safety: batches are serialized
 * (one lock per runtime); other control functions may run concurrently on other threads (their
 * writes are then not part of the batch). Not for p4dp_runtime_packet_inject(), which runs on the
 * caller's thread without workers.
 */
int p4dp_runtime_batch_run(struct p4dp_runtime *rt, p4dp_rt_batch_fn fn, void *arg,
			   struct p4dp_rt_batch_times *times);

/* ------------------------------------------------------------------------------------------ */
/* Action profiles and selectors (src/actprof.c; semantics in abi.h)                             */
/*                                                                                              */
/* A profile is addressed by its extern index (kind P4DP_EXT_ACTION_PROFILE or _SELECTOR). It     */
/* holds up to n_cells members (its declared size; 0: P4DP_TABLE_DEFAULT_SIZE) and, for selectors, */
/* as many groups. Member and group ids are the control plane's (any 32-bit value). Writers are    */
/* serialized per profile by a mutex; workers resolve members lock-free: a new member/group       */
/* version is published with one release store and the old one freed after an RCU grace period; */
/* a deleted member's or group's slot is reused only after a grace period.                        */

/** Reference kinds of indirect table entries. */
enum p4dp_rt_ref_kind { P4DP_RT_REF_MEMBER = 1, P4DP_RT_REF_GROUP = 2 };

/** Most members in one group (whatever their weights). */
#define P4DP_RT_ACTPROF_GROUP_MAX 4096u
/** The largest weight of a group member (P4Runtime's int32 weights). A group's sum of weights is
 *  not limited: a sum up to 4096 is kept expanded (a slot per unit of weight), a larger one as
 *  running sums that a pick searches (src/actprof_group.h). */
#define P4DP_RT_ACTPROF_WEIGHT_MAX 0x7fffffffu

/**
 * Create a member of an action profile with an action and its parameters (validated as for
 * table entries: the action must be an action of every table the profile implements, not
 * @defaultonly in any of them).
 *
 * @param rt the runtime.
 * @param ext extern index of an action profile or selector.
 * @param member member id (any 32-bit value).
 * @param action index into the program's actions.
 * @param n_params number of parameters.
 * @param params the parameters in order, big-endian.
 * @return 0; -EINVAL (not a profile, bad action/params); -EEXIST (id in use); -ENOSPC (profile
 *         full); -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_member_add(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, uint32_t action,
				    uint32_t n_params, const struct p4dp_rt_param *params);

/**
 * Replace the action and parameters of a member; packets see the old or the new version.
 *
 * @param rt the runtime.
 * @param ext extern index of an action profile or selector.
 * @param member member id.
 * @param action index into the program's actions.
 * @param n_params number of parameters.
 * @param params the parameters in order, big-endian.
 * @return 0; -EINVAL; -ENOENT (no such member); -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_member_modify(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, uint32_t action,
				       uint32_t n_params, const struct p4dp_rt_param *params);

/**
 * Delete a member.
 *
 * @param rt the runtime.
 * @param ext extern index of an action profile or selector.
 * @param member member id.
 * @return 0; -EINVAL; -ENOENT; -EBUSY (still in a group or referred to by a table entry).
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free. Walks the profile's tables under their mutexes.
 */
int p4dp_runtime_actprof_member_delete(struct p4dp_runtime *rt, uint32_t ext, uint32_t member);

/**
 * Read a member: @p cb gets it as an entry with n_keys 0 (action and parameters).
 *
 * @param rt the runtime.
 * @param ext extern index of an action profile or selector.
 * @param member member id.
 * @param cb receives the member (valid only during the call).
 * @param arg passed to @p cb.
 * @return 0 or cb's value; -EINVAL; -ENOENT; -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_member_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, p4dp_rt_entry_cb cb,
				    void *arg);

/**
 * Create an empty group of a selector.
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id (any 32-bit value).
 * @return 0; -EINVAL (not a selector); -EEXIST; -ENOSPC; -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_create(struct p4dp_runtime *rt, uint32_t ext, uint32_t group);

/**
 * Delete a group.
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @return 0; -EINVAL; -ENOENT; -EBUSY (referred to by a table entry).
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_delete(struct p4dp_runtime *rt, uint32_t ext, uint32_t group);

/**
 * Add a member to a group.
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @param member member id.
 * @param weight 1..P4DP_RT_ACTPROF_WEIGHT_MAX: the member is picked with probability weight / the
 *        sum of the live members' weights.
 * @return 0; -EINVAL (not a selector, bad weight); -ENOENT (no such group or member); -EEXIST
 *         (already a member); -ENOSPC (the group has P4DP_RT_ACTPROF_GROUP_MAX members); -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_member_add(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, uint32_t member,
					  uint32_t weight);

/**
 * Remove a member from a group.
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @param member member id.
 * @return 0; -EINVAL; -ENOENT (no such group, or not a member of it).
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_member_remove(struct p4dp_runtime *rt, uint32_t ext, uint32_t group,
					     uint32_t member);

/**
 * Set how a group picks a packet's member: by the selector hash (@p random 0, the default of a
 * new group) or at random (P4Runtime's RANDOM action selection mode): from the worker's
 * pseudo-random sequence, each member as often as its weight, among the members whose watch
 * port is live.
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @param random 0: by hash; else at random.
 * @return 0; -EINVAL (not a selector); -ENOENT (no such group); -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_random_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, int random);

/** No watch port (p4dp_runtime_actprof_group_member_watch_set). */
#define P4DP_RT_WATCH_NONE UINT32_MAX

/**
 * Set the watch port of a member in a group (P4Runtime watch_port): while that port is not live
 * (p4dp_runtime_port_admin_set) the member is left out of the group's selection, and put back
 * when it is live again. A group whose every member is left out resolves as an empty group does
 * (the table applies as a miss, counted in p4dp_rt_stats.groups_down).
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @param member member id (in the group).
 * @param watch port number < P4DP_PORT_DROP, or P4DP_RT_WATCH_NONE (the member is always selectable).
 * @return 0; -EINVAL (not a selector, port out of range); -ENOENT (no such group, member not in
 *         it); -ENOMEM.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_member_watch_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t group,
						uint32_t member, uint32_t watch);

/**
 * The members of a group in selection order (ascending member id).
 *
 * @param rt the runtime.
 * @param ext extern index of an action selector.
 * @param group group id.
 * @param members receives up to @p max member ids.
 * @param weights receives their weights.
 * @param max capacity of @p members and @p weights.
 * @return the number of members (may exceed @p max); -EINVAL; -ENOENT.
 * Context: control thread. Thread safety: profile mutex; workers resolve members lock-free.
 */
int p4dp_runtime_actprof_group_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, uint32_t *members,
				   uint32_t *weights, uint32_t max);

/**
 * Add an entry of an indirect table: the match of @p e refers to a member or group of the table's
 * profile. Delete/clear/read use the ordinary table functions; entries read back have action
 * P4DP_ACTPROF_REF_MEMBER or _GROUP and one 4-byte big-endian parameter, the id. The ordinary
 * add/modify reject indirect tables.
 *
 * @param rt the runtime.
 * @param table table index of an indirect table.
 * @param e the match (action and parameters ignored).
 * @param kind enum p4dp_rt_ref_kind (groups only for selectors).
 * @param id member or group id.
 * @return 0; -EINVAL (not an indirect table, bad kind, match validation as entry_add); -ENOENT
 *         (no such member/group); -EEXIST; -ENOSPC; -ENOMEM.
 * Context: control thread. Thread safety: profile mutex, then the table's writer lock.
 */
int p4dp_runtime_table_indirect_entry_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
					  uint32_t kind, uint32_t id);
/**
 * Re-point an installed entry of an indirect table to another member or group.
 *
 * @param rt the runtime.
 * @param table table index of an indirect table.
 * @param e the match of the installed entry.
 * @param kind enum p4dp_rt_ref_kind.
 * @param id member or group id.
 * @return 0; -EINVAL; -ENOENT (no such member/group, or no such entry); -ENOMEM.
 * Context: control thread. Thread safety: as indirect_entry_add.
 */
int p4dp_runtime_table_indirect_entry_modify(struct p4dp_runtime *rt, uint32_t table,
					     const struct p4dp_rt_entry *e, uint32_t kind, uint32_t id);

/**
 * The action profile implementing a table.
 *
 * @param rt the runtime.
 * @param table table index.
 * @param ext receives the profile's extern index.
 * @return 0; -ENOENT (a direct table); -EINVAL (NULL argument, bad index).
 * Context: any thread. Thread safety: reads immutable metadata only.
 */
int p4dp_runtime_table_implementation_get(const struct p4dp_runtime *rt, uint32_t table, uint32_t *ext);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_RT_H */

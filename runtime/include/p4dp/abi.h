/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file abi.h
 * The versioned ABI between a compiled P4 program (`prog.so`, generated C) and the p4dp runtime.
 *
 * Direction program -> runtime: the program exports one `const struct p4dp_program p4dp_program`
 * describing its tables, actions, externs and entry point. The runtime creates the tables and extern
 * state from that description and calls `process` on worker threads.
 *
 * Direction runtime -> program: generated code calls the runtime through the functions declared here
 * (implemented in libp4dp_rt.so, resolved when the runtime dlopen()s the program) and the inline
 * primitives of `p4dp/prim.h`. Nothing here depends on DPDK: generated code never includes DPDK headers.
 *
 * Layouts (see ARCHITECTURE.md "Value representation"): table keys and action data use the *native
 * layout*: each field at a byte `offset` with `size` 1, 2, 4, 8 or 16 bytes holding a little-endian
 * (native) unsigned integer of `bitwidth` bits (signed values in two's complement, masked to bitwidth);
 * fields wider than 128 bits use size = ceil(bitwidth/8) big-endian bytes. Padding bytes are zero.
 *
 * Any incompatible change to this file increments P4DP_ABI_VERSION.
 */
#ifndef P4DP_ABI_H
#define P4DP_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "p4dp/prim.h" /* p4dp_move_small (p4dp_pkt_finish_inline) */
#include "p4dp/table.h"
#include "p4dp/xindex.h" /* p4dp_table_apply_exact */

#ifdef __cplusplus
extern "C" {
#endif

#define P4DP_ABI_VERSION 24u /* 2: struct p4dp_entry grew lock + idle-timeout fields (dpwrite.h); 3: p4dp_program gained process_burst and table_impl; 4: biased entry locks (p4dp_ctx.bias, p4dp_entry_lock(ctx, e) returns a mode); 5: p4dp_program gained process_mbufs; 6: process_mbufs takes multi-segment mbufs, returns the burst's common output and its byte totals; 7: struct p4dp_table begins with struct p4dp_table_head (the exact tables' read index, xindex.h); 8: the run-to-completion extern kinds P4DP_EXT_RTC_* and p4dp_program's background entry point; 9: struct p4dp_bg_env waits through a callback of the runtime (wait, wait_arg) instead of a stop flag, and Queue.popWait (p4dp_rtc_queue_pop_wait) takes the env; 10: the extern kind P4DP_EXT_RTC_FOREACH (a table sweep the runtime creates for a Foreach); 11: p4dp_clone_session_get returns a session's replicas (port and instance) and its truncation length; 12: p4dp_table_info.storage may carry P4DP_STORAGE_F_LINEAR (rtc.p4 @linear); 13: parser value sets (p4dp_program.value_sets, p4dp_ctx.vsets, p4dp_value_set_match); 14: the rtc Queue's push and pop are inline in rtc.h (struct p4dp_rtc_queue is public); 15: exact tables of keys of at most 8 bytes have one-line read-index buckets (xindex.h, struct p4dp_xi_bucket8); 16: direct counters and meters have a cell for the table's default entry after the entries' (n_cells = size + 1), which the generated code counts and meters misses in; 17: struct p4dp_bg_env has a yield point (yield) and counts the rtc Locks the iteration holds (locks_held, rtc.h p4dp_rtc_lock_acquire_bg/_release_bg), the table sweep begins with the env (p4dp_rtc_sweep_begin_bg); 18: struct p4dp_table_head has a linear table's direct read index (rows, n_rows), which the generated code's p4dp_table_apply_linear reads; 19: struct p4dp_table_head has copies of the exact read index's shift, buckets and seed (xi_shift, xi_b, xi_seed), which p4dp_table_apply_exact reads instead of the index's own; 20: p4dp_clone_session_get returns the session's class of service (the clones' priority); 21: struct p4dp_extern_info ends with a meter's type (meter_type, enum p4dp_meter_type); 22: struct p4dp_table_head has an lpm table's first-level slots and their shifts (lpm_slots, lpm_lshift, lpm_rshift), which p4dp_table_prefetch reads; 23: the generated code stages later tables, asking p4dp_table_stage_ahead (table.h) once per chunk of a burst; 24: after the bulk lookup of a staged add-on-miss table the generated code calls p4dp_table_prefetch_inserts (table.h) */

/** p4dp_table_info.storage flag: rtc.p4 @linear, the entry of key k lives in row k (table.h linear). */
#define P4DP_STORAGE_F_LINEAR 0x100

/** Egress port value meaning "drop" (v1model's 511, PNA drop_packet()). */
#define P4DP_PORT_DROP 511u

/* ------------------------------------------------------------------------------------------ */
/* Program metadata                                                                             */

/** One control-plane parameter of an action (a directionless parameter). */
struct p4dp_param_info {
	const char *name;
	uint32_t id;        /**< P4Info param id (1-based position) */
	uint32_t bitwidth;
	uint16_t offset;    /**< byte offset in the action data (native layout) */
	uint16_t size;      /**< bytes */
};

struct p4dp_action_info {
	const char *name;   /**< control-plane name, e.g. "ingress.set_port" */
	uint32_t id;        /**< P4Info id */
	uint32_t n_params;
	const struct p4dp_param_info *params;
	uint32_t data_len;  /**< bytes of action data */
};

/** One key field of a table; offset/size in the native key layout. */
struct p4dp_key_info {
	const char *name;   /**< control-plane name, e.g. "hdr.ipv4.dstAddr" */
	uint32_t id;        /**< P4Info match field id (1-based) */
	uint8_t match_kind; /**< enum p4dp_match_kind */
	uint16_t offset;
	uint16_t size;
	uint32_t bitwidth;
};

/** Scope of an action within a table (P4 @tableonly / @defaultonly). */
enum p4dp_action_scope { P4DP_SCOPE_ANY = 0, P4DP_SCOPE_TABLE_ONLY = 1, P4DP_SCOPE_DEFAULT_ONLY = 2 };

/** An entry from the program's `entries`/`const entries`; buffers in the key layout. */
struct p4dp_const_entry {
	const uint8_t *value;
	const uint8_t *mask;
	const uint8_t *hi;    /**< range upper bounds (value holds lower bounds); NULL if no range key */
	int32_t priority;     /**< larger wins */
	uint32_t action;      /**< index into p4dp_program.actions */
	const uint8_t *data;  /**< action data, action's data_len bytes */
};

#define P4DP_TABLE_F_NEEDS_PRIORITY 0x1u /**< has ternary/range/optional keys */
#define P4DP_TABLE_F_DEFAULT_CONST 0x2u
#define P4DP_TABLE_F_ENTRIES_CONST 0x4u

struct p4dp_table_info {
	const char *name;     /**< control-plane name, e.g. "ingress.ipv4_lpm" */
	uint32_t id;          /**< P4Info id */
	uint32_t flags;       /**< P4DP_TABLE_F_* */
	uint32_t key_len;     /**< bytes of the native key */
	uint32_t n_keys;
	const struct p4dp_key_info *keys;
	uint32_t n_actions;
	const uint32_t *actions;       /**< indices into p4dp_program.actions */
	const uint8_t *action_scopes;  /**< enum p4dp_action_scope, parallel to actions */
	uint32_t default_action;       /**< index into p4dp_program.actions */
	const uint8_t *default_data;   /**< its action data */
	uint32_t n_entries;
	const struct p4dp_const_entry *entries;
	uint64_t size;        /**< declared size (0 = not declared; the runtime picks a default) */
	uint32_t data_len;    /**< max data_len over the table's actions */
	int32_t direct_counter; /**< index into p4dp_program.externs, or -1 */
	int32_t direct_meter;   /**< index into p4dp_program.externs, or -1 */
	int32_t storage;      /**< P4DP_STORAGE_* requested by annotation (AUTO if none), or'ed with
			       *   P4DP_STORAGE_F_LINEAR for rtc.p4's @linear (the key is the row) */
};

enum p4dp_extern_kind {
	P4DP_EXT_COUNTER = 1,
	P4DP_EXT_DIRECT_COUNTER,
	P4DP_EXT_METER,
	P4DP_EXT_DIRECT_METER,
	P4DP_EXT_REGISTER,
	P4DP_EXT_DIGEST,
	P4DP_EXT_ACTION_PROFILE,
	P4DP_EXT_ACTION_SELECTOR,
	P4DP_EXT_OTHER,        /**< state-less or program-managed (Hash, Checksum, Random) */
	/* rtc.p4 (p4dp/rtc.h): one object shared by every thread of the run, ext[x] points to it */
	P4DP_EXT_RTC_COUNTER,  /**< atomic Counter: n_cells 64-bit cells (struct p4dp_rtc_counter) */
	P4DP_EXT_RTC_LOCK,     /**< Lock: n_cells test-and-set locks (struct p4dp_rtc_lock) */
	P4DP_EXT_RTC_QUEUE,    /**< Queue<T>: n_cells = depth, cell_size = message bytes (struct p4dp_rtc_queue) */
	P4DP_EXT_RTC_FOREACH,  /**< Foreach bound to exact table `table` (struct p4dp_rtc_sweep); a range loop has no object */
};

enum p4dp_counter_unit { P4DP_UNIT_PACKETS = 1, P4DP_UNIT_BYTES = 2, P4DP_UNIT_BOTH = 3 };

struct p4dp_extern_info {
	const char *name;     /**< control-plane name, e.g. "ingress.port_counter" */
	uint32_t id;          /**< P4Info id */
	uint8_t kind;         /**< enum p4dp_extern_kind */
	uint8_t unit;         /**< counters/meters: enum p4dp_counter_unit (meters: PACKETS or BYTES) */
	uint32_t n_cells;     /**< indexed externs: number of cells; direct: table size + 1 (cell `size`,
				   after the entries' slots, is the default entry's: misses count into it) */
	uint32_t bitwidth;    /**< registers: cell width in bits; digests: data bytes */
	uint32_t cell_size;   /**< registers: bytes per cell in native layout (1,2,4,8,16, or more) */
	int32_t table;        /**< direct counters/meters: index of the owning table, else -1 */
	uint8_t meter_type;   /**< meters: enum p4dp_meter_type (0, two-rate three-colour, for others) */
};

/** A meter's type: the marker it runs and the configurations it takes (P4Runtime MeterSpec.Type;
 *  the P4 program chooses it with an annotation on the meter, docs/p4runtime.md). */
enum p4dp_meter_type {
	P4DP_METER_TWO_RATE_THREE_COLOR = 0,    /**< RFC 2698 trTCM: cir, cburst, pir >= cir, pburst; no eburst */
	P4DP_METER_SINGLE_RATE_THREE_COLOR = 1, /**< RFC 2697 srTCM: cir, cburst (CBS), eburst (EBS);
						     pir == cir and pburst == cburst */
	P4DP_METER_SINGLE_RATE_TWO_COLOR = 2,   /**< one bucket (cir, cburst), GREEN or RED; pir == cir,
						     pburst == cburst, eburst 0 */
};

/** Most fields of one value set member (a struct element type's fields). */
#define P4DP_VSET_FIELDS_MAX 16u

/** A parser value set (`value_set<T>(size)`), one per value set of the program. */
struct p4dp_value_set_info {
	const char *name;        /**< control-plane name, e.g. "ParserImpl.pvs" */
	uint32_t id;             /**< P4Info id */
	uint32_t size;           /**< most members (the declared size) */
	uint32_t n_fields;       /**< fields of a member: 1 for a scalar element type (1..P4DP_VSET_FIELDS_MAX) */
	const uint32_t *widths;  /**< width in bits of each field (1..64) */
};

/** The program's entry point: parse, run the pipeline, deparse. */
struct p4dp_ctx;
struct p4dp_pkt;
struct p4dp_rcu;

/** What a background pipeline's iteration gets from, and gives back to, the runtime (rtc.p4). */
struct p4dp_bg_env {
	/** Queue.popWait found its queue empty: wait a little (the runtime's thread reports RCU
	 *  quiescence, parks for a data-plane atomic batch, pauses) and return 0 to look again, or
	 *  nonzero to give up (the run stops, or another pipeline sharing the thread is due: popWait
	 *  is then false). NULL: never wait (the deterministic STF runner). */
	int (*wait)(struct p4dp_bg_env *env);
	void *wait_arg;            /**< the runtime's, for @p wait */
	struct p4dp_rcu *rcu;      /**< the calling thread's RCU domain (entryDel goes offline while it
				    *   may wait for a table's mutex), or NULL: the caller is no RCU reader */
	uint32_t rcu_thread;       /**< its thread id in @p rcu */
	/** rtc Locks this iteration holds (acquired and not yet released through
	 *  p4dp_rtc_lock_acquire_bg/_release_bg): no yield while nonzero, since a pipeline run at the
	 *  yield point could spin forever on one of them. */
	uint32_t locks_held;
	uint64_t iteration;        /**< iterations of this pipeline before this one */
	uint64_t sleep_ns;         /**< out: the pipeline asked not to run again for this long (Sleep), 0: none */
	/** A yield point of a long iteration (a table sweep every 1,024 rows, a range loop every
	 *  1,024 indices, in a control's apply block: no table entry and no entry lock held; call
	 *  through rtc.h p4dp_rtc_yield): the runtime may run, from here, iterations of the other
	 *  pipelines of the thread that are due and not themselves in the middle of one, so
	 *  pipelines sharing a thread take turns within a long iteration. It reports an RCU quiescent
	 *  state of the thread. NULL: never (the STF runner). */
	void (*yield)(struct p4dp_bg_env *env);
};
/**
 * Optional (rtc.p4 programs with background pipelines): run one iteration of background
 * pipeline @p pipeline (0 .. n_background - 1): every header invalid, the ingress, then, if it
 * called send_to_port, the deparser writes the packet at pkt->data (pkt->len 0 on entry, with
 * headroom and tailroom as for process) and pkt->out_port is set; otherwise out_port stays
 * P4DP_PORT_DROP. Context: the thread that runs background pipelines (never a worker while it
 * processes packets: popWait and entryDel may wait).
 */
typedef void (*p4dp_background_fn)(struct p4dp_ctx *ctx, uint32_t pipeline, struct p4dp_pkt *pkt,
				   struct p4dp_bg_env *env);
typedef void (*p4dp_process_fn)(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt);
/**
 * Optional (NULL if absent): process the @p n packets of one burst, with the same result as
 * `process` on each in order. Generated code stages table lookups across the burst (parse all,
 * one bulk lookup, then the pipeline per packet); table entries it looked up stay valid because
 * workers report RCU quiescence only between bursts. Worker context.
 */
typedef void (*p4dp_process_burst_fn)(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n);

/** process_mbufs' output for a packet the program could not finish (p4dp_pkt_finish failed). */
#define P4DP_OUT_ERROR UINT32_MAX
/** process_mbufs' output for a multi-segment mbuf, which the program does not run on (the runtime
 *  frees and counts it). Outputs >= P4DP_OUT_MULTISEG are the runtime's: a program's port in that
 *  range (PNA ports are 32 bits) comes out as P4DP_PORT_DROP + 1, no port of the runtime. */
#define P4DP_OUT_MULTISEG (UINT32_MAX - 1u)

/** process_mbufs' byte totals over one burst (perf: summed where the lengths are in registers). */
struct p4dp_mbufs_sum {
	uint64_t rx_bytes; /**< pkt_len of all n mbufs before the program ran */
	uint64_t tx_bytes; /**< pkt_len after it, of the mbufs it ran on (not the multi-segment ones) */
};

struct rte_mbuf;
/**
 * Optional (NULL if absent): the runtime's receive path. Runs the program on the @p n DPDK mbufs
 * @p m, all received on port @p in_port, in order, with the same result as `process` on each
 * (the program's view of an mbuf is p4dp_mbuf_view(), p4dp/mbuf.h); a multi-segment mbuf is
 * skipped (output P4DP_OUT_MULTISEG). Writes each packet's output port to out[i]
 * (P4DP_PORT_DROP: dropped; P4DP_OUT_ERROR: could not be finished), when the program moved or
 * resized the packet the mbuf's data_off, data_len and pkt_len (p4dp_mbuf_done()), and the byte
 * totals to @p sum. Returns the output all @p n packets share if they share one, else
 * P4DP_OUT_ERROR (then only out[] tells). perf: the program keeps each packet's state in
 * registers, the runtime builds no struct p4dp_pkt, and the runtime makes no extra pass over the
 * burst to sort it by port or count its bytes. Generated code has it when compiled with DPDK
 * (P4DP_DPDK) and without a staged table (then process_burst is the faster path); its loop is
 * p4dp_mbufs_run(). Worker context.
 */
typedef uint32_t (*p4dp_process_mbufs_fn)(struct p4dp_ctx *ctx, struct rte_mbuf **m, uint32_t n, uint32_t in_port,
					  uint32_t *out, struct p4dp_mbufs_sum *sum);

struct p4dp_program {
	uint32_t abi_version;   /**< P4DP_ABI_VERSION */
	const char *name;       /**< program name (source file stem) */
	const char *arch;       /**< "v1model", "pna" or "rtc" */
	uint32_t n_tables;
	const struct p4dp_table_info *tables;
	uint32_t n_actions;
	const struct p4dp_action_info *actions;
	uint32_t n_externs;
	const struct p4dp_extern_info *externs;
	uint32_t n_errors;
	const char *const *errors; /**< names of the `error` members, index = code */
	p4dp_process_fn process;
	/* appended (perf): runtimes check for NULL; programs without it leave it zero */
	p4dp_process_burst_fn process_burst;
	/* appended (action profiles): indexed like tables, the index into externs of the table's
	 * `implementation` (P4DP_EXT_ACTION_PROFILE/_SELECTOR), or -1; NULL: no table has one */
	const int32_t *table_impl;
	/* appended (perf, ABI 5) */
	p4dp_process_mbufs_fn process_mbufs;
	/* appended (rtc.p4, ABI 7): background pipelines, by their ingress control's name */
	uint32_t n_background;
	const char *const *background_names;
	p4dp_background_fn background; /**< NULL iff n_background == 0 */
	/* appended (ABI 13): parser value sets, indexed by the value set's number in generated code */
	uint32_t n_value_sets;
	const struct p4dp_value_set_info *value_sets;
};

/** The symbol a compiled program exports. */
#define P4DP_PROGRAM_SYMBOL "p4dp_program"

/* ------------------------------------------------------------------------------------------ */
/* Per-packet and per-worker state seen by generated code                                       */

/**
 * One packet being processed. On entry `data[0..len)` is the received frame. The program reads the
 * frame, then writes its output through p4dp_pkt_finish() and sets `out_port`.
 */
struct p4dp_pkt {
	uint8_t *data;
	uint32_t len;
	uint32_t headroom;    /**< writable bytes before data */
	uint32_t tailroom;    /**< writable bytes after data + len */
	uint32_t in_port;
	uint32_t out_port;    /**< set by the program; P4DP_PORT_DROP drops */
	void *priv;           /**< the runtime's (e.g. the mbuf); never touched by generated code */
};

/**
 * Per-worker context: handles of the program's runtime objects and per-worker scratch state.
 * Created by the runtime; generated code only reads it (and the rng state).
 */
struct p4dp_ctx {
	struct p4dp_table **tables;   /**< indexed like p4dp_program.tables */
	/** Default (miss) entry of each table, indexed like tables. The control thread publishes a
	 *  new default by an atomic pointer store (release) and frees the old one after an RCU grace
	 *  period; workers load it with acquire (p4dp_table_default()). Never NULL. */
	struct p4dp_entry **defaults;
	void **ext;                   /**< indexed like p4dp_program.externs: see p4dp_ext_* below */
	const struct p4dp_program *prog;
	uint32_t worker_id;
	uint32_t _pad;
	uint64_t now_ns;              /**< time of the current burst (simulated in STF runs); on a
					   *  worker whose polls all return full bursts it is read every 4th
					   *  loop iteration, so at most 4 full bursts old (worker.c) */
	uint64_t rng;                 /**< xorshift state for random() */
	void *rt;                     /**< the runtime's (struct p4dp_runtime *) */
	uint8_t *emit_buf;            /**< scratch of P4DP_EMIT_MAX bytes for deparsing */
	/* per-worker table statistics, see p4dp_table_count() */
	uint64_t *table_hits;         /**< indexed like p4dp_program.tables */
	uint64_t *table_misses;       /**< indexed like p4dp_program.tables */
	/** Revocation state of the biased entry locks (dpwrite.h); NULL: locks are never biased. */
	struct p4dp_bias *bias;
	/** The members of each value set, indexed like p4dp_program.value_sets: the control thread
	 *  publishes a whole new list by an atomic pointer store (release) and frees the old one after
	 *  an RCU grace period; workers load it with acquire (p4dp_value_set_match()). NULL: empty. */
	struct p4dp_vset_members **vsets;
};

/** The published members of one value set (immutable once published). */
struct p4dp_vset_members {
	uint32_t n;         /**< members */
	uint32_t n_fields;  /**< fields per member */
	/** per member, per field: the value (no bits outside its mask), then the mask; 2 * n * n_fields words */
	uint64_t vm[];
};

/**
 * Whether a select key matches a member of value set @p vs: for some member, every field f has
 * (keys[f] & mask) == value. An empty set matches nothing.
 *
 * @param ctx the worker's context.
 * @param vs the value set's index in p4dp_program.value_sets.
 * @param keys the key's fields (n_fields of the value set), each zero above its width.
 * Context: worker (or inject on the control thread). Thread safety: lock-free (acquire load of
 * the published list, valid until the worker's next RCU quiescent state).
 */
static inline int p4dp_value_set_match(const struct p4dp_ctx *ctx, uint32_t vs, const uint64_t *keys)
{
	/* acquire pairs with the control thread's release exchange: the list's contents are visible */
	const struct p4dp_vset_members *m = __atomic_load_n(&ctx->vsets[vs], __ATOMIC_ACQUIRE);
	if (m == NULL)
		return 0;
	const uint64_t *p = m->vm;
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t f = 0;
		while (f < m->n_fields && (keys[f] & p[2 * f + 1]) == p[2 * f])
			f++;
		if (f == m->n_fields)
			return 1;
		p += 2 * (size_t)m->n_fields;
	}
	return 0;
}

/**
 * The table's current default entry.
 *
 * @param ctx the worker's context.
 * @param table table index.
 * @return the entry, valid until the worker's next RCU quiescent state; never NULL.
 * Context: worker (or inject on the control thread). Thread safety: lock-free (acquire load of the published entry).
 */
static inline const struct p4dp_entry *p4dp_table_default(const struct p4dp_ctx *ctx, uint32_t table)
{
	/* acquire pairs with the control thread's release store: the entry's contents are visible */
	return __atomic_load_n(&ctx->defaults[table], __ATOMIC_ACQUIRE);
}

/**
 * Look a key up, with the default entry on a miss.
 *
 * @param ctx the worker's context.
 * @param table table index.
 * @param key the key in the table's native layout (any alignment).
 * @param hit receives 1 on a hit, 0 on a miss.
 * @return the entry, valid until the worker's next RCU quiescent state; never NULL.
 * Context: worker (or inject on the control thread). Thread safety: lock-free against control-plane and data-plane writers.
 */
static inline const struct p4dp_entry *p4dp_table_apply(const struct p4dp_ctx *ctx, uint32_t table,
							const void *key, int *hit)
{
	const struct p4dp_entry *e = p4dp_table_lookup(ctx->tables[table], key);
	*hit = e != NULL;
	return e ? e : p4dp_table_default(ctx, table);
}

/**
 * p4dp_table_apply() for a key of @p key_len bytes, a constant at the call site (perf: inlined,
 * an exact table's lookup of a key of at most 16 bytes reads the table's read index, xindex.h,
 * without a call; other tables and keys, and keys the index has no room for, call
 * p4dp_table_lookup()). Same contract and result as p4dp_table_apply().
 * Context: worker (or inject on the control thread). Thread safety: lock-free against
 * control-plane and data-plane writers.
 */
static inline __attribute__((always_inline)) const struct p4dp_entry *
p4dp_table_apply_exact(const struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t key_len, int *hit)
{
	struct p4dp_table *t = ctx->tables[table];
	const struct p4dp_table_head *hd = (const struct p4dp_table_head *)t;
	const struct p4dp_entry *e;
	/* the index's fields from the head's copies: the bucket read is two loads after ctx->tables */
	const void *xb = hd->xi_b;
	if (__builtin_expect(xb != NULL && key_len <= P4DP_XI_KEY_MAX, 1)) {
		uint64_t k[2];
		p4dp_xi_key(k, key, key_len);
		/* key_len is a constant here: one of the two finds is compiled */
		e = key_len <= 8 ? p4dp_xi_find8_at(xb, hd->xi_shift, hd->xi_seed, k[0])
				 : p4dp_xi_find_at(xb, hd->xi_shift, hd->xi_seed, k);
		if (e == NULL && p4dp_xi_overflow(hd->xi) != 0)
			e = p4dp_table_lookup(t, key);
	} else {
		e = p4dp_table_lookup(t, key);
	}
	*hit = e != NULL;
	return e ? e : p4dp_table_default(ctx, table);
}

/**
 * Prefetch what a lookup of @p key (@p key_len bytes, a constant at the call site) in table
 * @p table reads first, so that its cache miss overlaps other work: the first-level slot of a
 * longest-prefix-match table of one lpm field of at most 64 bits (xindex.h lpm_slots), the first
 * bucket of an exact table's read index; nothing for other tables and keys. No effect on any
 * result. perf: the generated code's pass that builds a burst's keys for its staged table
 * (cgen burst.rs) prefetches each key's slot as soon as the key is built, so the misses of the
 * burst's lookups overlap the wait for the packets' data and each other, instead of all being
 * taken in the bulk lookup after the pass.
 * Context: worker (or inject on the control thread). Thread safety: reads only fields fixed at
 * the table's creation and the first-level pointer (a prefetch through a stale one is harmless).
 */
static inline __attribute__((always_inline)) void p4dp_table_prefetch(const struct p4dp_ctx *ctx, uint32_t table,
									const void *key, uint32_t key_len)
{
	const struct p4dp_table_head *hd = (const struct p4dp_table_head *)ctx->tables[table];
	if (key_len == 0 || key_len > 8)
		return;
	uint64_t v = 0;
	__builtin_memcpy(&v, key, key_len); /* the native layout is little-endian */
	/* relaxed: only an address to prefetch (a clear's new first level is published with release
	 * for the lookup, which loads its own root with acquire) */
	const uint64_t *slots = __atomic_load_n(&hd->lpm_slots, __ATOMIC_RELAXED);
	if (slots != NULL) {
		__builtin_prefetch(&slots[(v << hd->lpm_lshift) >> hd->lpm_rshift]);
		return;
	}
	const void *xb = hd->xi_b;
	if (xb != NULL) {
		const uint64_t k[2] = {v, 0};
		const uint64_t h = p4dp_xi_hash_seeded(hd->xi_seed, k);
		__builtin_prefetch((const uint8_t *)xb + (h >> hd->xi_shift) * p4dp_xi_bucket_bytes(key_len));
	}
}

/**
 * p4dp_table_apply() for a linear table (rtc.p4 @linear, whose row is its key) of keys of
 * @p key_len bytes, a constant at the call site: the key, read as a little-endian number, is the
 * row of the table's direct read index (xindex.h struct p4dp_table_head rows); a key at or above
 * the table's size, or a row with no entry, misses. perf: one load of the row's pointer, no hash.
 * A table without the index (not linear, or a key longer than 4 bytes) looks up as
 * p4dp_table_apply_exact(). Same contract and result as p4dp_table_apply().
 * Context: worker (or inject on the control thread). Thread safety: lock-free against
 * control-plane and data-plane writers (the entry is valid until the worker's next RCU
 * quiescent state: a delete clears the row before the entry's grace period starts).
 */
static inline __attribute__((always_inline)) const struct p4dp_entry *
p4dp_table_apply_linear(const struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t key_len, int *hit)
{
	const struct p4dp_table_head *h = (const struct p4dp_table_head *)ctx->tables[table];
	if (__builtin_expect(h->rows == NULL || key_len > 4, 0))
		return p4dp_table_apply_exact(ctx, table, key, key_len, hit);
	const uint8_t *kb = (const uint8_t *)key;
	uint32_t row = 0;
	for (uint32_t b = 0; b < key_len; b++) /* key_len is a constant: unrolled */
		row |= (uint32_t)kb[b] << (8u * b);
	/* acquire pairs with the writer's release store: the entry's contents are visible */
	const struct p4dp_entry *e = row < h->n_rows ? __atomic_load_n(&h->rows[row], __ATOMIC_ACQUIRE) : NULL;
	*hit = e != NULL;
	return e ? e : p4dp_table_default(ctx, table);
}

/** Maximum bytes of headers one deparser may emit. */
#define P4DP_EMIT_MAX 4096u

/* ------------------------------------------------------------------------------------------ */
/* Runtime services callable from generated code (worker context, lock-free unless noted)      */

/**
 * Replace the packet's headers: the output frame becomes emit[0..emit_len) followed by the input
 * bytes from @p payload_off on (the unparsed payload), optionally truncated. Moves data within
 * the buffer as needed.
 *
 * @param pkt the packet view; data, len, headroom and tailroom are updated.
 * @param emit the deparsed headers.
 * @param emit_len bytes in @p emit.
 * @param payload_off offset of the payload in the input frame.
 * @param trunc_len truncate the frame to this many bytes; 0 = no truncation.
 * @return 0; -ENOSPC if the frame does not fit the buffer (the runtime then drops and counts it).
 * Context: worker (or inject on the control thread). Thread safety: touches only @p pkt.
 */
int p4dp_pkt_finish(struct p4dp_pkt *pkt, const uint8_t *emit, uint32_t emit_len, uint32_t payload_off,
		    uint32_t trunc_len);

/**
 * p4dp_pkt_finish() with its common case inline (perf; same contract and result): the headers fit
 * in front of the payload where it is and there is no truncation, so only the headers are moved.
 * Needs p4dp/prim.h (p4dp_move_small). Worker context.
 */
static inline int p4dp_pkt_finish_inline(struct p4dp_pkt *pkt, const uint8_t *emit, uint32_t emit_len,
					 uint32_t payload_off, uint32_t trunc_len)
{
	if (__builtin_expect(pkt->data != NULL && trunc_len == 0 && payload_off <= pkt->len &&
				     (uint64_t)payload_off + pkt->headroom >= emit_len && (emit_len == 0 || emit != NULL),
			     1)) {
		uint8_t *ns = pkt->data + payload_off - emit_len;
		/* perf: headers deparsed in place where they already are need no move (and reading
		 * them back right after the deparser's narrower stores would stall store forwarding) */
		if (ns != emit)
			p4dp_move_small(ns, emit, emit_len);
		pkt->headroom = pkt->headroom + payload_off - emit_len;
		pkt->len = pkt->len - payload_off + emit_len;
		pkt->data = ns;
		return 0;
	}
	/* perf: through a copy, so that *pkt itself never escapes to a call and the C compiler can
	 * keep a program's packet view in registers (process_mbufs) */
	struct p4dp_pkt t = *pkt;
	int rc = p4dp_pkt_finish(&t, emit, emit_len, payload_off, trunc_len);
	*pkt = t;
	return rc;
}

/**
 * Send an additional packet (a clone or multicast copy); the bytes are copied.
 *
 * @param ctx the worker's context.
 * @param port egress port.
 * @param data the frame.
 * @param len bytes in @p data.
 * @return 0; -ENOBUFS (counted) if no buffer was available.
 * Context: worker (or inject on the control thread). Thread safety: uses the worker's own buffers and mempool cache.
 */
int p4dp_pkt_emit_copy(struct p4dp_ctx *ctx, uint32_t port, const uint8_t *data, uint32_t len);

/* Indexed counters: ctx->ext[i] is the worker's own array, summed by the control API on read. */
struct p4dp_counter_cell { uint64_t packets; uint64_t bytes; };
/**
 * Count one packet of @p bytes bytes in an indexed counter cell; an index out of range counts
 * nothing. ctx->ext[ext] is the worker's own array, summed over workers by the control API.
 *
 * @param ctx the worker's context.
 * @param ext extern index of the counter.
 * @param index cell index.
 * @param n_cells cells of the counter.
 * @param bytes the packet's length.
 * Context: worker (or inject on the control thread). Thread safety: the worker's own cells; plain increments.
 */
static inline void p4dp_counter_count(struct p4dp_ctx *ctx, uint32_t ext, uint32_t index, uint32_t n_cells,
				      uint32_t bytes)
{
	if (index < n_cells) {
		struct p4dp_counter_cell *c = (struct p4dp_counter_cell *)ctx->ext[ext] + index;
		c->packets++;
		c->bytes += bytes;
	}
}

/** Meter colors as P4 sees them (v1model: GREEN 0, YELLOW 1, RED 2). */
enum p4dp_color { P4DP_GREEN = 0, P4DP_YELLOW = 1, P4DP_RED = 2 };

/**
 * Execute a meter cell at ctx->now_ns, colour-blind, by the meter's type (enum p4dp_meter_type):
 * two-rate three-colour (RFC 2698), single-rate three-colour (RFC 2697) or single-rate two-colour.
 *
 * @param ctx the worker's context.
 * @param ext extern index of the meter.
 * @param index cell index; out of range gives GREEN.
 * @param bytes the packet's length (ignored by packet meters, which count one).
 * @return enum p4dp_color; GREEN for an unconfigured cell.
 * Context: worker (or inject on the control thread). Thread safety: lock-free; each bucket is one word updated by CAS.
 */
uint32_t p4dp_meter_execute(struct p4dp_ctx *ctx, uint32_t ext, uint32_t index, uint32_t bytes);

/**
 * A register's cell array (cell_size bytes per cell, native layout), shared by all workers.
 *
 * @param ctx the worker's context.
 * @param ext extern index of the register.
 * @return the cells.
 * Context: worker (or inject on the control thread). Thread safety: none; concurrent writers of one cell race (P4 semantics).
 */
static inline void *p4dp_register_cells(struct p4dp_ctx *ctx, uint32_t ext)
{
	return ctx->ext[ext];
}

/**
 * Queue a digest message for the control plane (p4dp_runtime_digest_poll); when the worker's
 * queue is full the message is dropped and counted.
 *
 * @param ctx the worker's context.
 * @param ext extern index of the digest.
 * @param data the message in native layout.
 * @param len bytes in @p data (the extern's message size).
 * Context: worker (or inject on the control thread). Thread safety: the worker's own single-producer queue, lock-free.
 */
void p4dp_digest_send(struct p4dp_ctx *ctx, uint32_t ext, const void *data, uint32_t len);

/**
 * The replicas of a multicast group (v1model PRE), in the order the STF/BMv2 PRE defines.
 *
 * @param ctx the worker's context.
 * @param group group id.
 * @param ports receives up to @p max egress ports.
 * @param rids receives their replication ids.
 * @param max capacity of @p ports and @p rids.
 * @return the number of pairs written (0 for an unknown group): per replica the first port of its
 *         chain (the replica, then its backups) that is live; a replica whose every port is down
 *         is left out and counted (p4dp_rt_stats.replicas_down).
 * Context: worker (or inject on the control thread). Thread safety: lock-free (acquire load of the published list).
 */
uint32_t p4dp_mcast_group_get(struct p4dp_ctx *ctx, uint32_t group, uint32_t *ports, uint16_t *rids,
			      uint32_t max);

/** Most replicas of one clone session (p4dp_runtime_clone_session_set). */
#define P4DP_CLONE_REPLICAS_MAX 64u

/**
 * The replicas of a clone session (v1model PRE): one clone per replica, in the order the
 * control plane gave them.
 *
 * @param ctx the worker's context.
 * @param session session id.
 * @param ports receives up to @p max egress ports.
 * @param rids receives each replica's instance (the clone's egress_rid).
 * @param max capacity of @p ports and @p rids (P4DP_CLONE_REPLICAS_MAX holds every session).
 * @param trunc receives the session's truncation length in bytes (0: none).
 * @param cos receives the session's class of service (v1model: the clones' standard_metadata.priority).
 * @return the number of replicas written (per replica the first port of its chain, the replica and
 *         then its backups, that is live; a replica whose every port is down is left out and
 *         counted); 0 if the session is not set or has none.
 * Context: worker (or inject on the control thread). Thread safety: lock-free (acquire load of the published list).
 */
uint32_t p4dp_clone_session_get(struct p4dp_ctx *ctx, uint32_t session, uint32_t *ports, uint16_t *rids,
				uint32_t max, uint32_t *trunc, uint8_t *cos);

/**
 * log_msg(): format @p fmt with its `{}` placeholders replaced by @p values (in decimal) and
 * write one log line. Slow; only called when the P4 program asks.
 *
 * @param ctx the worker's context.
 * @param fmt the message with `{}` placeholders.
 * @param n number of values.
 * @param values the values.
 * Context: worker (or inject on the control thread). Thread safety: the log callback must be thread-safe.
 */
void p4dp_log_msg(struct p4dp_ctx *ctx, const char *fmt, uint32_t n, const uint64_t *values);

/**
 * An `assert`/`assume` failure: log the location, count it; the packet is dropped.
 *
 * @param ctx the worker's context.
 * @param where the source location.
 * Context: worker (or inject on the control thread). Thread safety: the worker's own counters.
 */
void p4dp_assert_fail(struct p4dp_ctx *ctx, const char *where);

/**
 * Count an event the program cannot handle (e.g. an unsupported extern call at run time); the
 * first is logged.
 *
 * @param ctx the worker's context.
 * @param what what was not supported.
 * Context: worker (or inject on the control thread). Thread safety: the worker's own counters.
 */
void p4dp_count_unsupported(struct p4dp_ctx *ctx, const char *what);

/* ------------------------------------------------------------------------------------------ */
/* Table capacity, statistics and lookups                                                       */

/** Capacity the runtime gives a table whose size is not declared (p4dp_table_info.size == 0);
 *  direct counters/meters of such a table have this many cells. */
#define P4DP_TABLE_DEFAULT_SIZE 1024u

/**
 * Count a hit or miss of a table after an apply; the control API sums the workers' arrays.
 *
 * @param ctx the worker's context.
 * @param table table index.
 * @param hit nonzero for a hit.
 * Context: worker (or inject on the control thread). Thread safety: the worker's own arrays; plain increments.
 */
static inline void p4dp_table_count(struct p4dp_ctx *ctx, uint32_t table, int hit)
{
	if (hit)
		ctx->table_hits[table]++;
	else
		ctx->table_misses[table]++;
}


/* ------------------------------------------------------------------------------------------ */
/* Data-plane table writes (@__ref parameters, add-on-miss, entry locks, idle timeouts).          */
/* Contract between generated code and the runtime; the inline parts are in p4dp/dpwrite.h.      */
/*                                                                                              */
/* Table flags (p4dp_table_info.flags):                                                          */
#define P4DP_TABLE_F_ADD_ON_MISS 0x08u      /**< PNA `add_on_miss = true` */
#define P4DP_TABLE_F_IDLE_NOTIFY 0x10u      /**< PNA pna_idle_timeout NOTIFY_CONTROL (v1model support_timeout) */
#define P4DP_TABLE_F_IDLE_AUTO_DELETE 0x20u /**< PNA idle_timeout_with_auto_delete */
#define P4DP_TABLE_F_ENTRY_LOCK 0x40u       /**< `@entry_lock`: a per-entry lock is held while the action runs */
/** The program uses only the matched entry's action and action data, never the entry itself (no
 *  direct counter/meter, implementation, @__ref parameter, entry lock, idle timeout or add_on_miss;
 *  not in rtc.p4 programs, whose lastRowIndex reads the matched entry's index):
 *  a lookup may return a shared read-only entry with the same action and data instead of the
 *  entry that was installed (its index and timer fields mean nothing then). Set by p4dp-cgen on
 *  lpm tables only; a runtime that ignores it returns the installed entries (compatible both
 *  ways, so no ABI version step). */
#define P4DP_TABLE_F_SHARED_ANSWERS 0x80u
/*
 * Semantics the generated code relies on:
 * - `@__ref` action parameters: the action reads and writes the matched entry's action data in
 *   place (`(uint8_t *)e->data + param offset`, native layout), for hits and for the default entry.
 *   Generated code casts away the const of the looked-up entry for this. A later packet sees the
 *   written value. Without @entry_lock, concurrent writers of one entry race (flow-local state is
 *   expected: flows are dispatched to workers by a flow hash).
 * - `@entry_lock` tables: generated code brackets the action with
 *       int mode = p4dp_entry_lock(ctx, e); ... p4dp_entry_unlock(e, mode);
 *   (inline; a lock word inside the entry, biased to the worker using it; never held across
 *   packets; see dpwrite.h).
 * - A control-plane modify publishes a new entry version; @__ref writes that land on the old
 *   version after the modify are lost (the control plane wins), never torn.
 * - add_on_miss: in the default action, PNA `add_entry(action, params, expire_profile)` calls
 *       int p4dp_table_dp_add(struct p4dp_ctx *ctx, uint32_t table, const void *key,
 *                             uint32_t action, const void *data, uint32_t expire_profile);
 *   with the key the table was just looked up with; returns 0, -EEXIST (another packet/worker
 *   inserted it first; not an error), or -ENOSPC (table full: counted in the table's table_full,
 *   the packet continues). The new entry is visible to the next lookup on any worker.
 *   PNA add_entry returns bool: true iff the result was 0.
 * - Idle timeout tables: on every hit generated code calls p4dp_entry_touch(ctx, e) (inline:
 *   stores ctx->now_ns as the entry's last-hit time); `set_entry_expire_time(profile)` calls
 *   p4dp_entry_set_expire(ctx, e, profile) and `restart_expire_timer()` calls p4dp_entry_touch.
 */

/* ------------------------------------------------------------------------------------------ */
/* Action profiles and selectors (v1model action_profile/action_selector, PSA/PNA ActionProfile/  */
/* ActionSelector); runtime side in src/actprof.c.                                             */
/*                                                                                              */
/* A table with an `implementation` (p4dp_program.table_impl[t] >= 0) is *indirect*: its entries  */
/* hold no action but a reference: e->action is P4DP_ACTPROF_REF_MEMBER or _GROUP and e->data     */
/* starts with a struct p4dp_actprof_ref (the table's data_len is at least 8). Members (action +  */
/* data, owned by the profile) are struct p4dp_entry too, so generated code resolves the matched  */
/* entry and then dispatches on the member exactly as on a direct entry. A group picks one of its */
/* members by `hash % n` (n = sum of the members' weights, members ordered by member id, each     */
/* repeated by its weight), where hash is the selector algorithm over the table's `selector` key  */
/* fields packed as for hash() (BMv2: full algorithm output, outputWidth not applied); a group    */
/* whose sum of weights exceeds 4096 mixes the hash to 64 bits and scales it to the sum instead   */
/* (src/actprof_group.h). The table's match key has only the non-selector fields. Default (miss)  */
/* entries are ordinary direct entries.                                                           */

#define P4DP_ACTPROF_REF_MEMBER 0xfffffff0u /**< e->action of an entry referring to a member */
#define P4DP_ACTPROF_REF_GROUP 0xfffffff1u  /**< e->action of an entry referring to a group */

/** Data of an indirect table entry. */
struct p4dp_actprof_ref {
	uint32_t slot; /**< the runtime's slot of the member/group */
	uint32_t id;   /**< the control plane's member/group id */
};

/**
 * Whether a looked-up, non-default entry refers to a group (then the selector hash is needed).
 *
 * @param e the entry.
 * @return nonzero for a group reference. Pure.
 */
static inline int p4dp_actprof_is_group(const struct p4dp_entry *e)
{
	return e->action == P4DP_ACTPROF_REF_GROUP;
}

/**
 * Resolve an indirect entry of a table implemented by an action profile or selector.
 *
 * @param ctx the worker's context.
 * @param ext extern index of the profile.
 * @param e the looked-up entry (a member or group reference).
 * @param hash the selector hash (groups only).
 * @return the member entry, valid until the worker's next RCU quiescent state; NULL if the group
 *         is empty (generated code then runs the default action and the apply is a miss) or @p e
 *         is not a reference.
 * Context: worker (or inject on the control thread). Thread safety: lock-free.
 */
const struct p4dp_entry *p4dp_actprof_resolve(struct p4dp_ctx *ctx, uint32_t ext, const struct p4dp_entry *e,
					      uint64_t hash);

/* Implemented by the runtime (inline functions and p4dp_table_dp_add) in dpwrite.h. */
#include "p4dp/dpwrite.h"

/**
 * Take the @entry_lock lock of an entry (biased lock, dpwrite.h); release it with
 * p4dp_entry_unlock(e, returned mode).
 *
 * @param ctx the worker's context.
 * @param e the entry.
 * @return the unlock mode: 0 when the entry is biased to this worker, 1 when the spinlock was taken.
 * Context: worker. Thread safety: mutual exclusion per entry among workers.
 */
static inline int p4dp_entry_lock(const struct p4dp_ctx *ctx, const struct p4dp_entry *e)
{
	/* perf: the biased case (the entry's only user so far is this worker) is one relaxed load
	 * and a compare; see dpwrite.h for why no atomic read-modify-write is needed */
	uint32_t x = __atomic_load_n((const uint32_t *)&e->lock, __ATOMIC_RELAXED);
	if (__builtin_expect(x == (P4DP_ELOCK_BIAS | ctx->worker_id), 1))
		return 0;
	return p4dp_entry_lock_slow(ctx, e);
}

/**
 * Record a hit of an entry at ctx->now_ns (idle timeout).
 *
 * @param ctx the worker's context.
 * @param e the entry.
 * Context: worker (or inject on the control thread). Thread safety: one relaxed store; the expiry scan reads it relaxed.
 */
static inline void p4dp_entry_touch(const struct p4dp_ctx *ctx, const struct p4dp_entry *e)
{
	/* relaxed: see dpwrite.h; the entry's timer fields are the only data written */
	__atomic_store_n((uint64_t *)(uintptr_t)&e->last_hit_ns, ctx->now_ns, __ATOMIC_RELAXED);
}

/**
 * set_entry_expire_time(): select the entry's expire-time profile and touch it.
 *
 * @param ctx the worker's context.
 * @param e the entry.
 * @param profile profile number; >= P4DP_EXPIRE_PROFILES keeps the current one.
 * Context: worker (or inject on the control thread). Thread safety: relaxed stores (see p4dp_entry_touch).
 */
static inline void p4dp_entry_set_expire(const struct p4dp_ctx *ctx, const struct p4dp_entry *e,
					 uint32_t profile)
{
	/* relaxed: as the touch below; the expiry scan reads the byte with a relaxed load */
	if (profile < P4DP_EXPIRE_PROFILES)
		__atomic_store_n((uint8_t *)(uintptr_t)&e->expire_profile, (uint8_t)profile, __ATOMIC_RELAXED);
	p4dp_entry_touch(ctx, e);
}

#ifdef __cplusplus
}
#endif
#endif /* P4DP_ABI_H */

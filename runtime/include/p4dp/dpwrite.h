/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file dpwrite.h
 * Data-plane table writes (ABI version 4): the inline primitives and the insert call that
 * generated code uses for `@__ref` parameters, `@entry_lock` tables, PNA `add_on_miss` /
 * `add_entry` and idle timeouts. Included at the end of abi.h; the contract (what generated
 * code calls when) is the "Data-plane table writes" section of abi.h.
 *
 * Everything here runs in worker context. No DPDK header is needed.
 */
#ifndef P4DP_DPWRITE_H
#define P4DP_DPWRITE_H

#include <stdint.h>

#include "p4dp/table.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_ctx;

/**
 * Idle timeout: record a hit (or PNA restart_expire_timer) of entry @p e at ctx->now_ns.
 * Context: worker. Thread safety: a relaxed atomic store; the control thread's expiry scan
 * reads it with a relaxed load (an aligned 64-bit store is never torn; ordering with other
 * data is not needed: a stale value only delays the expiry by one scan). Writes to a version
 * replaced by a concurrent control-plane modify are lost (the new version carries the value
 * read at the modify).
 */
static inline void p4dp_entry_touch(const struct p4dp_ctx *ctx, const struct p4dp_entry *e);

/**
 * PNA set_entry_expire_time(profile): select the expire-time profile of entry @p e (profiles
 * >= P4DP_EXPIRE_PROFILES are ignored) and restart its timer. Context: worker. Thread
 * safety: relaxed atomic stores, as p4dp_entry_touch.
 */
static inline void p4dp_entry_set_expire(const struct p4dp_ctx *ctx, const struct p4dp_entry *e,
					 uint32_t profile);

/*
 * `@entry_lock`: per-entry locks, biased to the worker that uses them.
 *
 * An entry's lock word (struct p4dp_entry.lock) is in one of these states:
 *   P4DP_ELOCK_FREE      never locked since the entry was written (a fresh entry);
 *   P4DP_ELOCK_BIAS | w  biased to worker w: w "holds" it whenever it runs the entry's action,
 *                        with no atomic instruction (one relaxed load and a compare);
 *   P4DP_ELOCK_HELD      held by one thread, in shared mode;
 *   P4DP_ELOCK_SHARED    free, in shared mode (an ordinary spinlock: acquire exchange, release
 *                        store).
 * The first lock of a FREE entry biases it to its worker (compare-and-swap). A lock by another
 * worker *revokes* the bias: it swaps BIAS|w for HELD, bumps the revocation token and waits until
 * w acknowledges a token at least as new, which w does only outside any action (between bursts in
 * the worker loop, and while it waits in p4dp_entry_lock_slow itself). From then on the entry is
 * in shared mode for good. So an entry that only one worker writes (flow-local state with RSS or
 * software dispatch, or any entry on a single worker) costs no atomic operation; an entry shared by
 * workers pays one revocation (a wait of up to one loop iteration of the owner), then a spinlock.
 * Entries are re-created FREE by every insert and modify (table_entry_fill).
 */
#define P4DP_ELOCK_FREE 0u
#define P4DP_ELOCK_HELD 1u
#define P4DP_ELOCK_SHARED 2u
#define P4DP_ELOCK_BIAS 0x80000000u

/** One worker's acknowledgement slot (own cache line). */
struct p4dp_bias_ack {
	uint64_t tok; /**< last revocation token acknowledged; P4DP_BIAS_OFFLINE: not running */
	uint8_t _pad[56];
} __attribute__((aligned(64)));

#define P4DP_BIAS_OFFLINE UINT64_MAX

/** Revocation state of one runtime, shared by its workers (p4dp_ctx.bias). */
struct p4dp_bias {
	uint64_t tok; /**< revocation token: incremented by every revocation */
	uint8_t _pad[56];
	uint32_t n;   /**< slots in ack[] (the runtime's workers) */
	struct p4dp_bias_ack *ack;
} __attribute__((aligned(64)));

/**
 * Take entry @p e's lock for the action that follows (never held across packets). Returns the
 * mode to pass to p4dp_entry_unlock. Context: worker (or the control thread during
 * p4dp_runtime_packet_inject, as worker 0). Thread safety: the action's reads and writes of e->data
 * are ordered after those of the previous holder on any worker (biased: same worker, or the
 * revocation handshake; shared: acquire exchange after the release store of the unlock), so
 * concurrent read-modify-writes of one entry on several workers are exact. May wait: for
 * another worker's action (shared mode) or for the bias owner's next loop iteration (one
 * revocation per entry).
 */
int p4dp_entry_lock_slow(const struct p4dp_ctx *ctx, const struct p4dp_entry *e);

static inline int p4dp_entry_lock(const struct p4dp_ctx *ctx, const struct p4dp_entry *e);

/** Release @p e's lock taken with mode @p mode (p4dp_entry_lock's result). Context: the holder. */
static inline void p4dp_entry_unlock(const struct p4dp_entry *e, int mode)
{
	/* release: the action's writes are visible to the next holder's acquire exchange */
	if (mode)
		__atomic_store_n((uint32_t *)(uintptr_t)&e->lock, P4DP_ELOCK_SHARED, __ATOMIC_RELEASE);
}

/**
 * A worker starts running actions (worker loop start; its slot was P4DP_BIAS_OFFLINE, which
 * revokers take as acknowledged). seq_cst store and fence: a revoker either sees this slot
 * online (and waits for the worker's next acknowledgement) or this worker's later loads of the
 * lock word see the revoker's swap. Context: the worker owning the slot.
 */
static inline void p4dp_bias_online(struct p4dp_bias *b, uint32_t self)
{
	uint64_t t = __atomic_load_n(&b->tok, __ATOMIC_ACQUIRE);
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer does not support fences; a seq_cst exchange is a full barrier on x86 */
	(void)__atomic_exchange_n(&b->ack[self].tok, t, __ATOMIC_SEQ_CST);
#else
	__atomic_store_n(&b->ack[self].tok, t, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/** The worker stops running actions (release: they are visible to a revoker that sees it
 *  offline). Context: the worker owning the slot. */
static inline void p4dp_bias_offline(struct p4dp_bias *b, uint32_t self)
{
	__atomic_store_n(&b->ack[self].tok, P4DP_BIAS_OFFLINE, __ATOMIC_RELEASE);
}

/**
 * Acknowledge revocations (worker loop, between bursts: no action is running). @p self is the
 * worker's slot. Context: the worker owning the slot.
 */
static inline void p4dp_bias_ack(struct p4dp_bias *b, uint32_t self)
{
	/* acquire: the revoker's lock-word swap (before its token increment) is visible to every
	 * later load of the lock word; release: every action this worker ran before is visible to
	 * the revoker (its acquire load of the slot) */
	uint64_t t = __atomic_load_n(&b->tok, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&b->ack[self].tok, __ATOMIC_RELAXED) != t)
		__atomic_store_n(&b->ack[self].tok, t, __ATOMIC_RELEASE);
}

/**
 * PNA add_entry / add-on-miss: insert @p key (the key the table was just looked up with,
 * native layout) with action @p action (index into p4dp_program.actions; must be one of the
 * table's actions), action data @p data (the table's data_len bytes; NULL: zeros) and expire
 * profile @p expire_profile. The entry is visible to the next lookup on any worker.
 * Context: worker (or the control thread during p4dp_runtime_packet_inject). Never blocks on a
 * grace period. Thread safety: see p4dp_table_dp_insert (table.h).
 * @return 0; -EEXIST (another packet/worker inserted it first; not an error); -ENOSPC (table
 * full: counted in the table's table_full; the packet continues, typically with the default
 * action); -EBUSY (tuple-space table whose writer lock is held by the control plane; counted
 * in dp_busy); -EINVAL (keyless or const table, action not in the table, bad profile or key).
 */
int p4dp_table_dp_add(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action, const void *data,
		      uint32_t expire_profile);

/**
 * The insert generation of table @p table (p4dp_table_ins_gen): load it before looking up
 * keys that p4dp_table_dp_add_seen may then insert. Context: worker. 0 for a bad index.
 */
uint64_t p4dp_table_dp_gen(struct p4dp_ctx *ctx, uint32_t table);

/**
 * p4dp_table_dp_add for a key whose lookup missed after the generation *@p seen was loaded
 * (p4dp_table_dp_gen); skips the existence check while no key was added since, and then
 * advances *seen past this insert. The caller must look up again (not insert from its old
 * miss) any key equal to one it inserted meanwhile. See p4dp_table_dp_insert_seen (table.h).
 */
int p4dp_table_dp_add_seen(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action,
			   const void *data, uint32_t expire_profile, uint64_t *seen);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_DPWRITE_H */

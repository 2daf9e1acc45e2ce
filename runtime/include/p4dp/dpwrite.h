/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file dpwrite.h
 * Data-plane table writes (ABI version 2): the inline primitives and the insert call that
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

/**
 * `@entry_lock`: take entry @p e's spinlock around the action (never held across packets).
 * Context: worker. Thread safety: the acquire exchange orders the action's reads and writes
 * of e->data after the previous holder's release store in p4dp_entry_unlock, so concurrent
 * read-modify-writes of one entry on several workers are exact. Spins with a pause hint; the
 * lock is held for one action only, so the wait is bounded by other workers' actions.
 */
static inline void p4dp_entry_lock(const struct p4dp_entry *e)
{
	uint32_t *w = (uint32_t *)(uintptr_t)&e->lock;
	while (__atomic_exchange_n(w, 1u, __ATOMIC_ACQUIRE) != 0) {
		/* test before test-and-set: relaxed loads only watch the word */
		while (__atomic_load_n(w, __ATOMIC_RELAXED) != 0) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ volatile("yield");
#endif
		}
	}
}

/** Release @p e's spinlock (release store: the action's writes are visible to the next
 *  holder). Context: worker, the holder. */
static inline void p4dp_entry_unlock(const struct p4dp_entry *e)
{
	__atomic_store_n((uint32_t *)(uintptr_t)&e->lock, 0u, __ATOMIC_RELEASE);
}

/**
 * PNA add_entry / add-on-miss: insert @p key (the key the table was just looked up with,
 * native layout) with action @p action (index into p4dp_program.actions; must be one of the
 * table's actions), action data @p data (the table's data_len bytes; NULL: zeros) and expire
 * profile @p expire_profile. The entry is visible to the next lookup on any worker.
 * Context: worker (or the control thread during p4dp_runtime_inject). Never blocks on a
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

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p4dp RCU: quiescent-state-based reclamation for table entries, a thin wrapper
 * over DPDK's rte_rcu_qsbr.
 *
 * Model. Worker threads (readers) look entries up without locks and may keep the
 * returned pointers until they next report quiescence with p4dp_rcu_quiescent()
 * (between bursts). Control threads (writers) unpublish memory, then hand it to
 * a deferred-reclaim queue; an item is reclaimed once every registered, online
 * worker has reported quiescence after the item was queued. A grace period is
 * observed by polling tokens, never by sleeping.
 *
 * With zero registered workers (single-threaded use, e.g. the STF runner) every
 * grace period is already over when it starts, so deferred items are reclaimed
 * immediately.
 */
#ifndef P4DP_RCU_H
#define P4DP_RCU_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_rcu;
struct p4dp_rcu_dq;

/** Reclaim callback of a deferred item: called once, after its grace period. */
typedef void (*p4dp_rcu_reclaim_fn)(void *ctx, void *ptr, uint64_t arg);

/**
 * Create an RCU domain for up to @p max_threads worker threads (ids
 * 0..max_threads-1). @p max_threads may be 0 (no workers: all frees immediate).
 * Context: control thread, after rte_eal_init(). Thread safety: none needed.
 * @return the domain, or NULL with rte_errno/errno set (EINVAL, ENOMEM).
 */
struct p4dp_rcu *p4dp_rcu_create(uint32_t max_threads, int socket_id);

/**
 * Reclaim everything still queued on the domain's default queue (waiting for
 * grace periods) and free the domain. All workers must have unregistered or gone
 * offline, and no table may still use the domain.
 * Context: control thread. Thread safety: not safe against any other use of @p r.
 */
void p4dp_rcu_free(struct p4dp_rcu *r);

/**
 * Register worker @p thread_id and mark it online: from now on grace periods
 * wait for it. Context: the worker itself (or the control thread before the
 * worker starts). Thread safety: safe against concurrent calls for other ids.
 * @return 0, -EINVAL (bad id / NULL).
 */
int p4dp_rcu_register(struct p4dp_rcu *r, uint32_t thread_id);

/**
 * Mark worker @p thread_id offline and unregister it; it must hold no entry
 * pointers. Context: the worker itself. Thread safety: as p4dp_rcu_register.
 * @return 0, -EINVAL.
 */
int p4dp_rcu_unregister(struct p4dp_rcu *r, uint32_t thread_id);

/**
 * Report a quiescent state: the calling worker holds no pointer obtained from
 * a table lookup any more. Call between bursts. Context: worker, fast path
 * (no lock, no syscall). Thread safety: only thread @p thread_id calls it for its id.
 */
void p4dp_rcu_quiescent(struct p4dp_rcu *r, uint32_t thread_id);

/**
 * Take worker @p thread_id offline (e.g. before blocking for a long time) or
 * back online. An offline worker holds no entry pointers and is not waited for.
 * Context: the worker itself. Thread safety: as p4dp_rcu_quiescent.
 */
void p4dp_rcu_thread_offline(struct p4dp_rcu *r, uint32_t thread_id);
void p4dp_rcu_thread_online(struct p4dp_rcu *r, uint32_t thread_id);

/**
 * Start a grace period and return its token. Context: any thread. Thread safety:
 * lock-free, multi-thread safe. @p r may be NULL (returns 0).
 */
uint64_t p4dp_rcu_token(struct p4dp_rcu *r);

/**
 * Has the grace period of @p token ended (every registered online worker has
 * reported quiescence since the token was taken)? With @p wait, spin (rte_pause,
 * never sleep) until it has. Must not be called with @p wait from a registered
 * online worker. Context: control thread. @p r may be NULL (always true).
 */
bool p4dp_rcu_token_done(struct p4dp_rcu *r, uint64_t token, bool wait);

/**
 * Wait (spinning) for a full grace period. Context: control thread; not from a
 * registered online worker. @p r may be NULL (returns at once).
 */
void p4dp_rcu_synchronize(struct p4dp_rcu *r);

/** Number of currently registered workers. */
uint32_t p4dp_rcu_num_threads(const struct p4dp_rcu *r);

/* ---- deferred reclamation queues ---- */

/**
 * Create a deferred-reclaim queue on domain @p r (NULL: no workers, items run at
 * once). A queue is NOT internally locked: its owner serializes all calls (a
 * table uses one queue under its writer mutex). Context: control thread.
 * @return the queue, or NULL (ENOMEM).
 */
struct p4dp_rcu_dq *p4dp_rcu_dq_create(struct p4dp_rcu *r, int socket_id);

/**
 * Queue @p fn(ctx, ptr, arg) to run after a grace period that starts now. If
 * the grace period is already over (no online workers) the callback runs
 * before this returns. Context: control thread, owner of @p dq.
 * @return 0, or -ENOMEM (nothing queued; the caller must keep the memory and may
 *         call p4dp_rcu_dq_reclaim(dq, true) / retry).
 */
int p4dp_rcu_dq_defer(struct p4dp_rcu_dq *dq, p4dp_rcu_reclaim_fn fn, void *ctx, void *ptr, uint64_t arg);

/**
 * Run the callbacks of all items whose grace period has ended (in queue order).
 * With @p wait, first wait for the grace period of the newest item, so that the
 * queue is empty on return. Context: control thread, owner of @p dq.
 * @return number of callbacks run.
 */
unsigned p4dp_rcu_dq_reclaim(struct p4dp_rcu_dq *dq, bool wait);

/** Number of items still waiting in @p dq. Context: control thread, owner of @p dq. */
unsigned p4dp_rcu_dq_pending(const struct p4dp_rcu_dq *dq);

/** Reclaim everything (waiting) and free the queue. Context: control thread, owner. */
void p4dp_rcu_dq_free(struct p4dp_rcu_dq *dq);

/**
 * rte_free(@p ptr) after a grace period, on the domain's default queue (which
 * is mutex-protected, so any control thread may call this). Never blocks for a
 * grace period. Context: control thread. @return 0 or -ENOMEM (nothing queued).
 */
int p4dp_rcu_defer_free(struct p4dp_rcu *r, void *ptr);

/**
 * Reclaim what is due on the default queue (with @p wait: everything).
 * Context: control thread. Thread safety: mutex-protected. @return items reclaimed.
 */
unsigned p4dp_rcu_reclaim(struct p4dp_rcu *r, bool wait);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_RCU_H */

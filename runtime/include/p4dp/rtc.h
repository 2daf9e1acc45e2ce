/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file rtc.h
 * The run-to-completion architecture's externs (p4include/rtc.p4, docs/rtc.md), after Zheng et
 * al., *When P4 Meets Run-to-completion Architecture* (NSDI '25): `Queue<T>` between pipelines,
 * the `Lock` array, the atomic `Counter`, `TableOperation` (entryAdd/entryDel/entryGet) and the
 * table sweep behind `Foreach`.
 *
 * Who calls what:
 *  - queues, locks and counters: any thread of the run (workers running the foreground pipeline,
 *    the background thread, the control thread); lock-free except a blocking Lock acquire;
 *  - p4dp_rtc_table_add / _get: any thread that is an RCU reader or runs while no worker does;
 *  - p4dp_rtc_table_del and the sweep (p4dp_rtc_sweep_*): the background thread or the control
 *    thread, never a worker (the delete takes the table's writer mutex; a sweep walks the whole
 *    table; see each function).
 *
 * Names: p4dp_rtc_<object>_<verb>; errors are -errno with the message in
 * p4dp_runtime_error_get (rt.h).
 */
#ifndef P4DP_RTC_H
#define P4DP_RTC_H

#include <stdbool.h>
#include <stdint.h>

#include "p4dp/abi.h"
#include "p4dp/table.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_ctx;
struct p4dp_rcu;
struct p4dp_bg_env;

/* ---- Queue<T> ------------------------------------------------------------------------------ */

/*
 * A bounded multi-producer multi-consumer ring of cells, each with a sequence number (the classic
 * per-cell-sequence MPMC array queue). Cell i of a ring of `cap` cells (a power of two) holds
 * seq == pos when free for the producer of position pos, and seq == pos + 1 when it holds that
 * position's message. A producer claims a position with a CAS on `tail`, copies the message, then
 * publishes it with a release store of seq = pos + 1; a consumer that loads that seq with acquire
 * therefore sees the whole message. The consumer claims with a CAS on `head`, copies the message
 * out, then frees the cell for the producer of pos + cap with a release store (the producer's
 * acquire load of seq orders its overwrite after the copy). No thread waits for another: a
 * preempted producer delays only the consumer of its own cell (threads share cores here).
 * rte_ring's multi-producer modes were not used: their tail hand-over between producers is
 * ordered only on TSO hardware, and ThreadSanitizer reports it.
 *
 * push and pop are inline (one locked instruction each, no call): generated code calls the
 * _sized forms with the message size as a constant, so the copy is a few moves. The layout below
 * is therefore part of the ABI (abi.h P4DP_ABI_VERSION). Create and free in rtc_sync.c.
 */
struct p4dp_rtc_queue_cell {
	uint64_t seq;
	uint8_t data[] __attribute__((aligned(8)));
};

/** A bounded multi-producer multi-consumer queue of fixed-size messages (fields: see above). */
struct p4dp_rtc_queue {
	uint64_t tail __attribute__((aligned(64))); /**< next position to push */
	uint64_t head __attribute__((aligned(64))); /**< next position to pop */
	uint64_t full;                              /**< pushes refused (a statistic) */
	uint32_t elem_size;
	uint32_t depth;
	uint64_t mask;     /**< cap - 1 */
	size_t cell_size;  /**< sizeof(struct p4dp_rtc_queue_cell) + elem_size rounded up to 8 */
	uint8_t *cells;
	uint32_t bounded;  /**< 1 when depth < cap: a push also checks the fill against depth */
};

/**
 * Create a queue of @p depth messages of @p elem_size bytes each.
 * @param depth messages it holds (1 .. 2^31 - 1; memory for the next power of two).
 * @param elem_size bytes per message: a multiple of 4, 4 .. 1024 (generated code pads T).
 * @param socket_id NUMA socket (SOCKET_ID_ANY).
 * @return the queue, or NULL (p4dp_runtime_error_get says why: bad size, no memory).
 * Context: control thread, EAL initialised. Thread safety: not with other calls on the queue.
 */
struct p4dp_rtc_queue *p4dp_rtc_queue_create(uint32_t depth, uint32_t elem_size, int socket_id);

/** Free a queue (NULL is a no-op). Context: control thread, no other thread using it. */
void p4dp_rtc_queue_free(struct p4dp_rtc_queue *q);

static inline struct p4dp_rtc_queue_cell *p4dp_rtc_queue_cell_at(const struct p4dp_rtc_queue *q, uint64_t pos)
{
	return (struct p4dp_rtc_queue_cell *)(q->cells + (size_t)(pos & q->mask) * q->cell_size);
}

/* Copy a message: a constant @p size (generated code's) becomes a few moves; any other size is
 * a call of memcpy. */
static inline void p4dp_rtc_queue_copy(uint8_t *dst, const uint8_t *src, uint32_t size)
{
	__builtin_memcpy(dst, src, size);
}

/**
 * Queue.push with the message size given (@p size must be the queue's elem_size; generated code
 * passes it as a constant). See p4dp_rtc_queue_push.
 */
static inline bool p4dp_rtc_queue_push_sized(struct p4dp_rtc_queue *q, const void *msg, uint32_t size)
{
	/* relaxed: the position is only claimed by the CAS below; ordering comes from seq */
	uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	for (;;) {
		if (q->bounded) {
			/* relaxed: a bound on the fill, not an ordering; a racing pop only makes it
			 * stale-high. Without it (depth == cap) the cell's seq alone says full, and
			 * a push does not read the consumers' cache line. */
			uint64_t head = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
			if (pos - head >= q->depth && pos >= head)
				break;
		}
		struct p4dp_rtc_queue_cell *c = p4dp_rtc_queue_cell_at(q, pos);
		/* acquire: pairs with the consumer's release store that freed this cell */
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t diff = (int64_t)(seq - pos);
		if (diff == 0) {
			/* relaxed CAS: claiming the position orders nothing else (seq does) */
			if (__atomic_compare_exchange_n(&q->tail, &pos, pos + 1u, true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				p4dp_rtc_queue_copy(c->data, (const uint8_t *)msg, size);
				/* release: the message is visible to the consumer's acquire load */
				__atomic_store_n(&c->seq, pos + 1u, __ATOMIC_RELEASE);
				return true;
			}
			/* a failed CAS reloaded pos */
		} else if (diff < 0) {
			break; /* the cell still holds an unconsumed message: full */
		} else {
			pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED); /* another producer won */
		}
	}
	__atomic_fetch_add(&q->full, 1u, __ATOMIC_RELAXED); /* a statistic: relaxed */
	return false;
}

/**
 * Queue.pop with the message size given (@p size must be the queue's elem_size). See
 * p4dp_rtc_queue_pop.
 */
static inline bool p4dp_rtc_queue_pop_sized(struct p4dp_rtc_queue *q, void *msg, uint32_t size)
{
	/* relaxed: claimed by the CAS below; ordering comes from seq */
	uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
	for (;;) {
		struct p4dp_rtc_queue_cell *c = p4dp_rtc_queue_cell_at(q, pos);
		/* acquire: pairs with the producer's release store of seq = pos + 1 */
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t diff = (int64_t)(seq - (pos + 1u));
		if (diff == 0) {
			/* relaxed CAS: claiming the position orders nothing else (seq does) */
			if (__atomic_compare_exchange_n(&q->head, &pos, pos + 1u, true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				p4dp_rtc_queue_copy((uint8_t *)msg, c->data, size);
				/* release: our copy happens before the next producer's overwrite */
				__atomic_store_n(&c->seq, pos + q->mask + 1u, __ATOMIC_RELEASE);
				return true;
			}
		} else if (diff < 0) {
			return false; /* empty (or its producer has not published yet) */
		} else {
			pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED); /* another consumer won */
		}
	}
}

/**
 * Queue.push: append one message (elem_size bytes at @p msg).
 * @return true if it was queued, false if the queue held @p depth messages (the message is
 * dropped and counted, p4dp_rtc_queue_full_count; a pop racing with the push may make it refuse
 * although the pop has just made room).
 * Context: any thread. Thread safety: lock-free MPMC (a CAS claims a cell; release/acquire on its sequence number).
 */
static inline bool p4dp_rtc_queue_push(struct p4dp_rtc_queue *q, const void *msg)
{
	return p4dp_rtc_queue_push_sized(q, msg, q->elem_size);
}

/**
 * Queue.pop: take the oldest message into @p msg (elem_size bytes).
 * @return true if one was taken, false if the queue was empty (@p msg is left unchanged).
 * Context: any thread. Thread safety: lock-free MPMC.
 */
static inline bool p4dp_rtc_queue_pop(struct p4dp_rtc_queue *q, void *msg)
{
	return p4dp_rtc_queue_pop_sized(q, msg, q->elem_size);
}

/**
 * Queue.popWait: as p4dp_rtc_queue_pop, but while the queue is empty call @p env->wait (abi.h
 * struct p4dp_bg_env: the background thread's wait, which reports RCU quiescence, parks for a
 * data-plane atomic batch and pauses) until a message arrives or it returns nonzero (then
 * false: the run stops, or another pipeline sharing the thread is due). @p env NULL or its wait
 * NULL: do not wait (the deterministic STF runner, where nothing can arrive while a pipeline runs).
 * Context: the background thread, never a worker (workers must not wait); the caller holds no
 * table entry across the call (the wait reports quiescence). Thread safety: as pop.
 */
bool p4dp_rtc_queue_pop_wait(struct p4dp_rtc_queue *q, void *msg, struct p4dp_bg_env *env);

/** Messages queued now (a snapshot). Context: any thread. */
uint32_t p4dp_rtc_queue_count(const struct p4dp_rtc_queue *q);

/** Message size and depth the queue was created with. Context: any thread. */
uint32_t p4dp_rtc_queue_elem_size(const struct p4dp_rtc_queue *q);
uint32_t p4dp_rtc_queue_depth(const struct p4dp_rtc_queue *q);

/** Pushes refused because the queue was full, since creation. Context: any thread (relaxed load). */
uint64_t p4dp_rtc_queue_full_count(const struct p4dp_rtc_queue *q);

/* ---- Lock ---------------------------------------------------------------------------------- */

/**
 * A Lock(size) extern: @p n test-and-set lock words. Allocate with p4dp_rtc_lock_create.
 * Word values: 0 free, 1 held.
 */
struct p4dp_rtc_lock {
	uint32_t n;
	uint32_t words[];
};

/** Create @p n free locks (1 .. 2^24). @return NULL on a bad size or no memory. Context: control thread. */
struct p4dp_rtc_lock *p4dp_rtc_lock_create(uint32_t n, int socket_id);
/** Free (NULL: no-op). Context: control thread, no holder left. */
void p4dp_rtc_lock_free(struct p4dp_rtc_lock *l);

/**
 * Lock.acquire(idx, blocking): take lock @p idx. Non-blocking: one exchange. Blocking: spin
 * (test, then test-and-set) until it is taken.
 * @return true if the caller now holds it; false if @p idx >= n, or if not blocking and another
 * holder has it.
 * Context: any thread of the run. A blocking acquire on a worker waits for the holder, which the
 * program must release (a holder that never releases stops the waiter: the program's bug).
 * Thread safety: the acquire exchange pairs with the release store of p4dp_rtc_lock_release, so
 * everything the previous holder wrote before releasing is visible to the new holder.
 */
static inline bool p4dp_rtc_lock_acquire(struct p4dp_rtc_lock *l, uint32_t idx, bool blocking)
{
	if (idx >= l->n)
		return false;
	uint32_t *w = &l->words[idx];
	for (;;) {
		/* acquire: the critical section sees the previous holder's writes (see above) */
		if (__atomic_exchange_n(w, 1u, __ATOMIC_ACQUIRE) == 0u)
			return true;
		if (!blocking)
			return false;
		/* test before test-and-set: relaxed loads only watch the word */
		while (__atomic_load_n(w, __ATOMIC_RELAXED) != 0u) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}

/**
 * Lock.release(idx). @return true if the lock was held (it is free now), false if @p idx >= n
 * or it was not held. Context: the holder. Thread safety: release order publishes the critical
 * section's writes to the next acquirer.
 */
static inline bool p4dp_rtc_lock_release(struct p4dp_rtc_lock *l, uint32_t idx)
{
	if (idx >= l->n)
		return false;
	/* release: pairs with the acquire exchange of the next holder */
	return __atomic_exchange_n(&l->words[idx], 0u, __ATOMIC_RELEASE) != 0u;
}

/**
 * Lock.acquire / Lock.release as a background iteration calls them (@p env: its environment, or
 * NULL in the foreground): as p4dp_rtc_lock_acquire/_release, and the iteration's count of held
 * Locks (env->locks_held) follows, so that p4dp_rtc_yield never runs another pipeline of the
 * thread while this one holds a Lock (that pipeline could spin forever on it). Context: as above.
 */
static inline bool p4dp_rtc_lock_acquire_bg(struct p4dp_rtc_lock *l, uint32_t idx, bool blocking,
					    struct p4dp_bg_env *env)
{
	const bool held = p4dp_rtc_lock_acquire(l, idx, blocking);
	if (held && env != NULL)
		env->locks_held++;
	return held;
}

static inline bool p4dp_rtc_lock_release_bg(struct p4dp_rtc_lock *l, uint32_t idx, struct p4dp_bg_env *env)
{
	const bool was = p4dp_rtc_lock_release(l, idx);
	/* a Lock taken in an earlier iteration (or by another thread) counts in no env */
	if (was && env != NULL && env->locks_held != 0)
		env->locks_held--;
	return was;
}

/* ---- yield points of background iterations ------------------------------------------------- */

/**
 * A yield point of a long background iteration (abi.h p4dp_bg_env.yield): the generated range
 * loop calls it every 1,024 indices, the table sweep every 1,024 rows (p4dp_rtc_sweep_begin_bg).
 * The caller must hold no table entry and no entry lock (a control's apply block, not an
 * action); the runtime then may run other pipelines' iterations and reports an RCU quiescent
 * state. Nothing happens while the iteration holds a Lock (env->locks_held), for a NULL @p env
 * (the foreground) or without a yield callback (the STF runner). Context: the background thread.
 */
static inline void p4dp_rtc_yield(struct p4dp_bg_env *env)
{
	if (env != NULL && env->yield != NULL && env->locks_held == 0)
		env->yield(env);
}

/* ---- atomic Counter ------------------------------------------------------------------------ */

/** A Counter(size) extern: @p n 64-bit cells shared by every pipeline. */
struct p4dp_rtc_counter {
	uint32_t n;
	uint32_t _pad;
	uint64_t cells[];
};

/** Create @p n zero cells (1 .. 2^28). @return NULL on a bad size or no memory. Context: control thread. */
struct p4dp_rtc_counter *p4dp_rtc_counter_create(uint32_t n, int socket_id);
/** Free (NULL: no-op). Context: control thread, no user left. */
void p4dp_rtc_counter_free(struct p4dp_rtc_counter *c);

/**
 * Counter.count(idx, v): add @p v to cell @p idx (ignored when idx >= n). Context: any thread.
 * Thread safety: an atomic fetch-add, relaxed: a count orders no other memory access, and
 * concurrent counts never lose an increment.
 */
static inline void p4dp_rtc_counter_count(struct p4dp_rtc_counter *c, uint32_t idx, uint64_t v)
{
	if (idx < c->n)
		__atomic_fetch_add(&c->cells[idx], v, __ATOMIC_RELAXED); /* relaxed: see above */
}

/** Counter.get(idx): the cell's value (0 when idx >= n). Context: any thread. Relaxed atomic load. */
static inline uint64_t p4dp_rtc_counter_get(const struct p4dp_rtc_counter *c, uint32_t idx)
{
	return idx < c->n ? __atomic_load_n(&c->cells[idx], __ATOMIC_RELAXED) : 0u;
}

/** Counter.set(idx, v) (ignored when idx >= n). Context: any thread. Relaxed atomic store: a
 *  count racing with it lands before or after it, never half. */
static inline void p4dp_rtc_counter_set(struct p4dp_rtc_counter *c, uint32_t idx, uint64_t v)
{
	if (idx < c->n)
		__atomic_store_n(&c->cells[idx], v, __ATOMIC_RELAXED);
}

/* ---- TableOperation -------------------------------------------------------------------------- */

/**
 * TableOperation.entryAdd(k, act, data) on table @p table of the program: the data-plane
 * insertion path (p4dp_table_dp_add: existence check, capacity, slot, publication under the
 * table's insertion spinlock), expire profile 0. @p row, if not NULL, receives the new entry's
 * row (struct p4dp_entry.index, stable for the entry's lifetime) on success.
 * @return 0; -EEXIST (the key is installed, e.g. by another thread first); -ENOSPC (full);
 * -EBUSY (tuple-space table busy); -EINVAL (no such table or action); -ENOMEM. Every failure is
 * counted in the table's statistics (table_full, dp_busy) and is `false` for the program.
 * Context: a worker, the background thread, or the control thread while no worker runs.
 * Never waits. Thread safety: as p4dp_table_dp_insert (table.h).
 */
int p4dp_rtc_table_add(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action,
		       const void *data, uint32_t *row);

/**
 * TableOperation.entryGet(k, act, data): copy the entry of @p key: its action index into
 * *@p action, table data_len bytes of action data into @p data, its row into *@p row (each
 * may be NULL). @return 0, or -ENOENT (no entry: outputs unchanged), -EINVAL.
 * Context: an RCU reader (a worker, the background thread) or a thread that runs while no
 * worker does. Lock-free (one lookup).
 */
int p4dp_rtc_table_get(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t *action, void *data,
		       uint32_t *row);

/**
 * TableOperation.entryDel(k): delete the entry of @p key; its memory and row are reused only
 * after an RCU grace period. The calling thread goes RCU-offline (@p rcu, @p rcu_thread) while
 * it waits for the table's writer mutex (a control-plane writer may hold it while waiting for a
 * grace period), so it must hold no table entry pointer across the call; @p rcu NULL: the caller
 * is no RCU reader. @return 0, -ENOENT, -EINVAL.
 * Context: the background thread or the control thread; never a worker (it may block).
 */
int p4dp_rtc_table_del(struct p4dp_ctx *ctx, uint32_t table, const void *key, struct p4dp_rcu *rcu,
		       uint32_t rcu_thread);

/* ---- Foreach over a table ------------------------------------------------------------------ */

/**
 * A sweep over a table's entries (Foreach bound with @tbl), lock-free. p4dp_rtc_sweep_create makes
 * the table keep a row map (each row's key and whether it holds an entry; kept by the insert and
 * delete paths under the insertion spinlock they hold anyway); p4dp_rtc_sweep_next walks the rows
 * in order and returns the entry of each row that holds one. Guarantee (tested under
 * ThreadSanitizer, test_rtc): while other threads insert and delete concurrently, every entry that
 * exists for the whole sweep is returned exactly once (an entry keeps its row from insert to
 * delete); an entry added or deleted during the sweep at most once (no row twice); a returned
 * pointer is never freed memory (it is valid until the caller's next call of
 * p4dp_rtc_sweep_next or RCU quiescent state or offline period). The sweeping thread reports a
 * quiescent state every 1,024 rows inside p4dp_rtc_sweep_next (between entries), and a sweep
 * begun with p4dp_rtc_sweep_begin_bg is a yield point there (p4dp_rtc_yield). Costs: key_len
 * bytes and one bit per row of the table's capacity (allocated at create), and per sweep a pass
 * over the bits and one lookup per installed entry. Entries come in row order (a linear table's,
 * P4DP_STORAGE_F_LINEAR, is key order).
 */
struct p4dp_rtc_sweep;

/** Create a sweep for table @p table of the runtime behind @p ctx. @return NULL on error. Context: control thread. */
struct p4dp_rtc_sweep *p4dp_rtc_sweep_create(struct p4dp_ctx *ctx, uint32_t table, int socket_id);
/** Free (NULL: no-op). Context: control thread. */
void p4dp_rtc_sweep_free(struct p4dp_rtc_sweep *s);

/**
 * Start a sweep (no walk, no lock): the next p4dp_rtc_sweep_next starts at row 0. The sweeping
 * thread is @p rcu's reader @p rcu_thread (NULL: none; then it reports no quiescent state).
 * @return the number of entries installed about now (a hint), or -errno.
 * Context: the background thread or the control thread; never a worker (a sweep walks the table).
 */
int p4dp_rtc_sweep_begin(struct p4dp_rtc_sweep *s, struct p4dp_rcu *rcu, uint32_t rcu_thread);
/**
 * p4dp_rtc_sweep_begin for a background iteration's sweep applied in a control's apply block
 * (no table entry and no entry lock held around it): the reader is @p env's (NULL: none), and
 * every 1,024 rows, after the quiescent state, the sweep is a yield point (p4dp_rtc_yield) at
 * which other pipelines sharing the thread may run. A sweep inside an action, which may hold an
 * entry lock, begins with p4dp_rtc_sweep_begin and never yields.
 */
int p4dp_rtc_sweep_begin_bg(struct p4dp_rtc_sweep *s, struct p4dp_bg_env *env);

/**
 * The entry of the next row that holds one: copies its key into @p key (key_len bytes, may be
 * NULL) and returns the entry, or NULL when the sweep is done. Lock-free; may report an RCU
 * quiescent state of the sweeping thread (so the entry returned before is no longer valid).
 * Context: the thread that began the sweep, RCU-online.
 */
const struct p4dp_entry *p4dp_rtc_sweep_next(struct p4dp_rtc_sweep *s, void *key);

#ifdef __cplusplus
}
#endif

#endif /* P4DP_RTC_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* p4dp RCU: wrapper over rte_rcu_qsbr plus deferred-reclaim queues. See p4dp/rcu.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "p4dp/rcu.h"
#include "p4dp/tsan.h"

struct p4dp_rcu {
	struct rte_rcu_qsbr *qsbr; /* NULL when max_threads == 0 */
	uint32_t max_threads;
	pthread_mutex_t default_lock; /* serializes the default queue */
	struct p4dp_rcu_dq *default_dq;
};

struct dq_item {
	uint64_t token;
	p4dp_rcu_reclaim_fn fn;
	void *ctx;
	void *ptr;
	uint64_t arg;
};

/* Circular buffer of items in token order (tokens from rte_rcu_qsbr_start grow
 * monotonically and one owner pushes in order, so the head is always the oldest). */
struct p4dp_rcu_dq {
	struct p4dp_rcu *rcu;
	struct dq_item *items;
	uint32_t cap; /* power of two, or 0 */
	uint32_t head;
	uint32_t count;
	int in_reclaim; /* a callback is running: do not run further items recursively */
};

struct p4dp_rcu *p4dp_rcu_create(uint32_t max_threads, int socket_id)
{
	struct p4dp_rcu *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	r->max_threads = max_threads;
	if (max_threads > 0) {
		size_t sz = rte_rcu_qsbr_get_memsize(max_threads);
		r->qsbr = rte_zmalloc_socket("p4dp_rcu", sz, RTE_CACHE_LINE_SIZE, socket_id);
		if (r->qsbr == NULL || rte_rcu_qsbr_init(r->qsbr, max_threads) != 0) {
			rte_free(r->qsbr);
			free(r);
			rte_errno = ENOMEM;
			return NULL;
		}
	}
	pthread_mutex_init(&r->default_lock, NULL);
	r->default_dq = p4dp_rcu_dq_create(r, socket_id);
	if (r->default_dq == NULL) {
		rte_free(r->qsbr);
		free(r);
		rte_errno = ENOMEM;
		return NULL;
	}
	return r;
}

void p4dp_rcu_free(struct p4dp_rcu *r)
{
	if (r == NULL)
		return;
	p4dp_rcu_dq_free(r->default_dq);
	pthread_mutex_destroy(&r->default_lock);
	rte_free(r->qsbr);
	free(r);
}

int p4dp_rcu_register(struct p4dp_rcu *r, uint32_t thread_id)
{
	if (r == NULL || r->qsbr == NULL || thread_id >= r->max_threads)
		return -EINVAL;
	if (rte_rcu_qsbr_thread_register(r->qsbr, thread_id) != 0)
		return -EINVAL;
	rte_rcu_qsbr_thread_online(r->qsbr, thread_id);
	return 0;
}

int p4dp_rcu_unregister(struct p4dp_rcu *r, uint32_t thread_id)
{
	if (r == NULL || r->qsbr == NULL || thread_id >= r->max_threads)
		return -EINVAL;
	rte_rcu_qsbr_thread_offline(r->qsbr, thread_id);
	if (rte_rcu_qsbr_thread_unregister(r->qsbr, thread_id) != 0)
		return -EINVAL;
	return 0;
}

void p4dp_rcu_quiescent(struct p4dp_rcu *r, uint32_t thread_id)
{
	/* rte_rcu_qsbr_quiescent stores the current token with release order, so
	 * all of this worker's earlier loads of entry memory happen before the
	 * writer can observe the acknowledgement and reclaim. */
	if (r != NULL && r->qsbr != NULL)
		rte_rcu_qsbr_quiescent(r->qsbr, thread_id);
}

void p4dp_rcu_thread_offline(struct p4dp_rcu *r, uint32_t thread_id)
{
	if (r != NULL && r->qsbr != NULL && thread_id < r->max_threads)
		rte_rcu_qsbr_thread_offline(r->qsbr, thread_id);
}

void p4dp_rcu_thread_online(struct p4dp_rcu *r, uint32_t thread_id)
{
	if (r != NULL && r->qsbr != NULL && thread_id < r->max_threads)
		rte_rcu_qsbr_thread_online(r->qsbr, thread_id);
}

uint64_t p4dp_rcu_token(struct p4dp_rcu *r)
{
	/* rte_rcu_qsbr_start increments the token with release order: the
	 * caller's earlier unpublishing stores are visible before any reader can
	 * acknowledge the new token. */
	if (r == NULL || r->qsbr == NULL)
		return 0;
	return rte_rcu_qsbr_start(r->qsbr);
}

/*
 * ThreadSanitizer: make "grace period over" visible as happens-before from every reader's quiescent
 * report to the caller. rte_rcu_qsbr_check's slow path does that itself (acquire loads of the
 * readers' counters, inline, so TSan sees them), but it may answer from v->acked_token, a hint
 * that another control thread stored (relaxed) after ITS acquire loads, and it skips readers that
 * unregistered (the bitmap is cleared inside uninstrumented librte_rcu). Acquire each reader's
 * counter: the same edges the slow path's acquire loads create (TSan keeps one sync object per
 * atomic's address; the readers' quiescent and offline reports are release stores to it).
 */
static void rcu_tsan_acquire_readers(struct p4dp_rcu *r)
{
#ifdef P4DP_TSAN
	for (uint32_t i = 0; i < r->max_threads; i++)
		P4DP_TSAN_ACQUIRE(&r->qsbr->qsbr_cnt[i].cnt);
#else
	(void)r;
#endif
}

bool p4dp_rcu_token_done(struct p4dp_rcu *r, uint64_t token, bool wait)
{
	if (r == NULL || r->qsbr == NULL)
		return true;
	/* rte_rcu_qsbr_check reads the readers' counters with acquire order, so
	 * once it reports done, the readers' accesses to old memory happened
	 * before our reclamation. With wait it spins with rte_pause(). */
	bool done = rte_rcu_qsbr_check(r->qsbr, token, wait) == 1;
	if (done)
		rcu_tsan_acquire_readers(r);
	return done;
}

void p4dp_rcu_synchronize(struct p4dp_rcu *r)
{
	if (r == NULL || r->qsbr == NULL)
		return;
	(void)p4dp_rcu_token_done(r, p4dp_rcu_token(r), true);
}

uint32_t p4dp_rcu_num_threads(const struct p4dp_rcu *r)
{
	if (r == NULL || r->qsbr == NULL)
		return 0;
	return __atomic_load_n(&r->qsbr->num_threads, __ATOMIC_RELAXED); /* statistic only */
}

/* ---- deferred queues ---- */

struct p4dp_rcu_dq *p4dp_rcu_dq_create(struct p4dp_rcu *r, int socket_id)
{
	(void)socket_id; /* control-side bookkeeping lives in ordinary heap memory */
	struct p4dp_rcu_dq *dq = calloc(1, sizeof(*dq));
	if (dq != NULL)
		dq->rcu = r;
	return dq;
}

static int dq_grow(struct p4dp_rcu_dq *dq)
{
	uint32_t ncap = dq->cap ? dq->cap * 2 : 64;
	if (ncap < dq->cap)
		return -ENOMEM;
	struct dq_item *n = malloc((size_t)ncap * sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < dq->count; i++)
		n[i] = dq->items[(dq->head + i) & (dq->cap - 1)];
	free(dq->items);
	dq->items = n;
	dq->cap = ncap;
	dq->head = 0;
	return 0;
}

static unsigned dq_run(struct p4dp_rcu_dq *dq, bool wait)
{
	unsigned done = 0;
	if (dq->in_reclaim)
		return 0;
	dq->in_reclaim = 1;
	if (wait && dq->count > 0) {
		struct dq_item *last = &dq->items[(dq->head + dq->count - 1) & (dq->cap - 1)];
		(void)p4dp_rcu_token_done(dq->rcu, last->token, true);
	}
	while (dq->count > 0) {
		struct dq_item it = dq->items[dq->head];
		if (!p4dp_rcu_token_done(dq->rcu, it.token, false))
			break;
		dq->head = (dq->head + 1) & (dq->cap - 1);
		dq->count--;
		it.fn(it.ctx, it.ptr, it.arg);
		done++;
	}
	dq->in_reclaim = 0;
	return done;
}

int p4dp_rcu_dq_defer(struct p4dp_rcu_dq *dq, p4dp_rcu_reclaim_fn fn, void *ctx, void *ptr, uint64_t arg)
{
	uint64_t token = p4dp_rcu_token(dq->rcu);
	/* Fast case: nothing older is pending and the grace period is already over
	 * (no online workers): reclaim right away. */
	if (dq->count == 0 && !dq->in_reclaim && p4dp_rcu_token_done(dq->rcu, token, false)) {
		fn(ctx, ptr, arg);
		return 0;
	}
	if (dq->count == dq->cap && dq_grow(dq) != 0)
		return -ENOMEM;
	struct dq_item *it = &dq->items[(dq->head + dq->count) & (dq->cap - 1)];
	it->token = token;
	it->fn = fn;
	it->ctx = ctx;
	it->ptr = ptr;
	it->arg = arg;
	dq->count++;
	return 0;
}

unsigned p4dp_rcu_dq_reclaim(struct p4dp_rcu_dq *dq, bool wait)
{
	if (dq == NULL)
		return 0;
	unsigned n = 0, k;
	/* Callbacks may queue further items (a reclaim that frees another
	 * reclaimable thing); loop so that wait really empties the queue. */
	do {
		k = dq_run(dq, wait);
		n += k;
	} while (wait && k > 0 && dq->count > 0);
	return n;
}

unsigned p4dp_rcu_dq_pending(const struct p4dp_rcu_dq *dq)
{
	return dq ? dq->count : 0;
}

void p4dp_rcu_dq_free(struct p4dp_rcu_dq *dq)
{
	if (dq == NULL)
		return;
	p4dp_rcu_dq_reclaim(dq, true);
	free(dq->items);
	free(dq);
}

static void free_cb(void *ctx, void *ptr, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	rte_free(ptr);
}

int p4dp_rcu_defer_free(struct p4dp_rcu *r, void *ptr)
{
	if (ptr == NULL)
		return 0;
	if (r == NULL) {
		rte_free(ptr);
		return 0;
	}
	pthread_mutex_lock(&r->default_lock);
	dq_run(r->default_dq, false);
	int rc = p4dp_rcu_dq_defer(r->default_dq, free_cb, NULL, ptr, 0);
	pthread_mutex_unlock(&r->default_lock);
	return rc;
}

unsigned p4dp_rcu_reclaim(struct p4dp_rcu *r, bool wait)
{
	if (r == NULL)
		return 0;
	pthread_mutex_lock(&r->default_lock);
	unsigned n = p4dp_rcu_dq_reclaim(r->default_dq, wait);
	pthread_mutex_unlock(&r->default_lock);
	return n;
}

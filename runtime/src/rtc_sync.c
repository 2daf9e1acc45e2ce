/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run-to-completion architecture's shared-state externs (p4dp/rtc.h): Queue<T> (a bounded
 * multi-producer multi-consumer ring of fixed-size messages), the Lock array and the atomic Counter array (their per-call
 * operations are inline in rtc.h; this file creates and frees them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "err.h"
#include "p4dp/abi.h"
#include "p4dp/rtc.h"

/*
 * Queue: a bounded multi-producer multi-consumer ring of cells, each with a sequence number
 * (the classic per-cell-sequence MPMC array queue). Cell i of a ring of `cap` cells (a power of
 * two) holds seq == pos when free for the producer of position pos, and seq == pos + 1 when it
 * holds that position's message. A producer claims a position with a CAS on `tail`, copies the
 * message, then publishes it with a release store of seq = pos + 1; a consumer that loads that
 * seq with acquire therefore sees the whole message. The consumer claims with a CAS on `head`,
 * copies the message out, then frees the cell for the producer of pos + cap with a release store
 * (the producer's acquire load of seq orders its overwrite after the copy). No thread waits for
 * another: a preempted producer delays only the consumer of its own cell (threads share cores
 * here). rte_ring's multi-producer modes were not used: their tail hand-over between producers
 * is ordered only on TSO hardware, and ThreadSanitizer reports it.
 */
struct rtc_cell {
	uint64_t seq;
	uint8_t data[] __attribute__((aligned(8)));
};

struct p4dp_rtc_queue {
	uint64_t tail __attribute__((aligned(64))); /* next position to push */
	uint64_t head __attribute__((aligned(64))); /* next position to pop */
	uint64_t full;                              /* pushes refused (a statistic) */
	uint32_t elem_size;
	uint32_t depth;
	uint64_t mask;      /* cap - 1 */
	size_t cell_size;   /* sizeof(struct rtc_cell) + elem_size rounded up to 8 */
	uint8_t *cells;
};

static inline struct rtc_cell *queue_cell(const struct p4dp_rtc_queue *q, uint64_t pos)
{
	return (struct rtc_cell *)(q->cells + (size_t)(pos & q->mask) * q->cell_size);
}

struct p4dp_rtc_queue *p4dp_rtc_queue_create(uint32_t depth, uint32_t elem_size, int socket_id)
{
	if (depth == 0 || depth > (1u << 31) - 1u) {
		rt_err("Queue depth %u out of range (1 .. 2^31-1)", depth);
		return NULL;
	}
	if (elem_size == 0 || elem_size % 4u != 0 || elem_size > 1024u) {
		rt_err("Queue message size %u: must be a multiple of 4 in 4 .. 1024", elem_size);
		return NULL;
	}
	uint64_t cap = rte_align64pow2(depth);
	size_t cell_size = sizeof(struct rtc_cell) + RTE_ALIGN_CEIL((size_t)elem_size, 8u);
	struct p4dp_rtc_queue *q = rte_zmalloc_socket("p4dp_rtc_queue", sizeof(*q), 64, socket_id);
	uint8_t *cells = rte_malloc_socket("p4dp_rtc_queue_cells", cap * cell_size, 64, socket_id);
	if (q == NULL || cells == NULL) {
		rt_err("Queue of %u messages of %u bytes: out of memory", depth, elem_size);
		rte_free(q);
		rte_free(cells);
		return NULL;
	}
	q->elem_size = elem_size;
	q->depth = depth;
	q->mask = cap - 1u;
	q->cell_size = cell_size;
	q->cells = cells;
	for (uint64_t i = 0; i < cap; i++)
		queue_cell(q, i)->seq = i; /* before any other thread has the queue */
	return q;
}

void p4dp_rtc_queue_free(struct p4dp_rtc_queue *q)
{
	if (q == NULL)
		return;
	rte_free(q->cells);
	rte_free(q);
}

bool p4dp_rtc_queue_push(struct p4dp_rtc_queue *q, const void *msg)
{
	/* relaxed: the position is only claimed by the CAS below; ordering comes from seq */
	uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	for (;;) {
		/* relaxed: a bound on the fill, not an ordering; a racing pop only makes it stale-high */
		uint64_t head = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
		if (pos - head >= q->depth && pos >= head)
			break;
		struct rtc_cell *c = queue_cell(q, pos);
		/* acquire: pairs with the consumer's release store that freed this cell */
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t diff = (int64_t)(seq - pos);
		if (diff == 0) {
			/* relaxed CAS: claiming the position orders nothing else (seq does) */
			if (__atomic_compare_exchange_n(&q->tail, &pos, pos + 1u, true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				memcpy(c->data, msg, q->elem_size);
				/* release: the message is visible to the consumer's acquire load */
				__atomic_store_n(&c->seq, pos + 1u, __ATOMIC_RELEASE);
				return true;
			}
		} else if (diff < 0) {
			break; /* the cell still holds an unconsumed message: full */
		} else {
			pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED); /* another producer won */
		}
	}
	__atomic_fetch_add(&q->full, 1u, __ATOMIC_RELAXED); /* a statistic: relaxed */
	return false;
}

bool p4dp_rtc_queue_pop(struct p4dp_rtc_queue *q, void *msg)
{
	/* relaxed: claimed by the CAS below; ordering comes from seq */
	uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
	for (;;) {
		struct rtc_cell *c = queue_cell(q, pos);
		/* acquire: pairs with the producer's release store of seq = pos + 1 */
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t diff = (int64_t)(seq - (pos + 1u));
		if (diff == 0) {
			if (__atomic_compare_exchange_n(&q->head, &pos, pos + 1u, true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				memcpy(msg, c->data, q->elem_size);
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

bool p4dp_rtc_queue_pop_wait(struct p4dp_rtc_queue *q, void *msg, struct p4dp_bg_env *env)
{
	for (;;) {
		if (p4dp_rtc_queue_pop(q, msg))
			return true;
		if (env == NULL || env->wait == NULL || env->wait(env) != 0)
			return false;
	}
}

uint32_t p4dp_rtc_queue_count(const struct p4dp_rtc_queue *q)
{
	/* relaxed: a snapshot for statistics and tests */
	uint64_t head = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	return tail > head ? (uint32_t)RTE_MIN(tail - head, (uint64_t)q->depth) : 0u;
}

uint32_t p4dp_rtc_queue_elem_size(const struct p4dp_rtc_queue *q)
{
	return q->elem_size;
}

uint32_t p4dp_rtc_queue_depth(const struct p4dp_rtc_queue *q)
{
	return q->depth;
}

uint64_t p4dp_rtc_queue_full_count(const struct p4dp_rtc_queue *q)
{
	return __atomic_load_n(&q->full, __ATOMIC_RELAXED); /* a statistic: relaxed */
}

struct p4dp_rtc_lock *p4dp_rtc_lock_create(uint32_t n, int socket_id)
{
	if (n == 0 || n > (1u << 24)) {
		rt_err("Lock size %u out of range (1 .. 2^24)", n);
		return NULL;
	}
	struct p4dp_rtc_lock *l =
		rte_zmalloc_socket("p4dp_rtc_lock", sizeof(*l) + (size_t)n * sizeof(uint32_t), 64, socket_id);
	if (l == NULL) {
		rt_err("Lock(%u): out of memory", n);
		return NULL;
	}
	l->n = n;
	return l;
}

void p4dp_rtc_lock_free(struct p4dp_rtc_lock *l)
{
	rte_free(l);
}

struct p4dp_rtc_counter *p4dp_rtc_counter_create(uint32_t n, int socket_id)
{
	if (n == 0 || n > (1u << 28)) {
		rt_err("Counter size %u out of range (1 .. 2^28)", n);
		return NULL;
	}
	struct p4dp_rtc_counter *c =
		rte_zmalloc_socket("p4dp_rtc_counter", sizeof(*c) + (size_t)n * sizeof(uint64_t), 64, socket_id);
	if (c == NULL) {
		rt_err("Counter(%u): out of memory", n);
		return NULL;
	}
	c->n = n;
	return c;
}

void p4dp_rtc_counter_free(struct p4dp_rtc_counter *c)
{
	rte_free(c);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run-to-completion architecture's shared-state externs (p4dp/rtc.h): Queue<T> (a bounded
 * multi-producer multi-consumer ring of fixed-size messages), the Lock array and the atomic Counter array (their per-call
 * operations are inline in rtc.h; this file creates and frees them; a large Counter's cells are on
 * huge pages, table_mem.h).
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
#include "table_mem.h"

/* Queue: the ring and its push / pop are in rtc.h (inline); here creation and the rest. */

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
	size_t cell_size = sizeof(struct p4dp_rtc_queue_cell) + RTE_ALIGN_CEIL((size_t)elem_size, 8u);
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
	q->bounded = depth < cap;
	for (uint64_t i = 0; i < cap; i++)
		p4dp_rtc_queue_cell_at(q, i)->seq = i; /* before any other thread has the queue */
	return q;
}

void p4dp_rtc_queue_free(struct p4dp_rtc_queue *q)
{
	if (q == NULL)
		return;
	rte_free(q->cells);
	rte_free(q);
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

/* Bytes of a Counter of @p n cells; from TABLE_HUGE_MIN on it is a table_huge_map() mapping. */
static size_t counter_bytes(uint32_t n)
{
	return sizeof(struct p4dp_rtc_counter) + (size_t)n * sizeof(uint64_t);
}

struct p4dp_rtc_counter *p4dp_rtc_counter_create(uint32_t n, int socket_id)
{
	if (n == 0 || n > (1u << 28)) {
		rt_err("Counter size %u out of range (1 .. 2^28)", n);
		return NULL;
	}
	struct p4dp_rtc_counter *c;
	const size_t bytes = counter_bytes(n);
	if (bytes >= TABLE_HUGE_MIN) {
		/* perf: a large Counter (one cell per row of a large table, as the flow monitor's) on
		 * huge pages: its cells are read at random rows, and on DPDK's 4 KiB heap pages each
		 * such access also missed the TLB. Faulted in here by the zeroing, not by workers. */
		size_t len;
		c = table_huge_map(bytes, &len);
		if (c != NULL)
			memset(c, 0, bytes);
	} else {
		c = rte_zmalloc_socket("p4dp_rtc_counter", bytes, 64, socket_id);
	}
	if (c == NULL) {
		rt_err("Counter(%u): out of memory", n);
		return NULL;
	}
	c->n = n;
	return c;
}

void p4dp_rtc_counter_free(struct p4dp_rtc_counter *c)
{
	if (c == NULL)
		return;
	const size_t bytes = counter_bytes(c->n);
	if (bytes >= TABLE_HUGE_MIN)
		table_huge_unmap(c, RTE_ALIGN_CEIL(bytes, TABLE_HUGE)); /* table_huge_map's length */
	else
		rte_free(c);
}

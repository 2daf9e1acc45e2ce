/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Microbenchmarks of the rtc.p4 primitives of `p4dp bench --suite rtc-costs` (bench_rtc.h): Queue
 * and Lock against DPDK's rte_ring and rte_spinlock. (The suite's sweep figure runs the program's
 * own background pipeline: p4dp_bench_set_background, bench.h.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_spinlock.h>

#include "p4dp/bench_rtc.h"
#include "p4dp/rtc.h"
#include "rt_internal.h"

#define QDEPTH 1024u
#define QBURST 32u
#define ELEM_MAX 1024u

/*
 * Per-chunk timing: besides the window over all operations, each chunk of QBURST operations is
 * timed and the median chunk reported, which leaves out the chunks in which the thread was
 * descheduled (on a loaded machine the window's average is mostly other processes' time).
 */
#define CHUNKS_MAX (1u << 16)

struct chunks {
	uint64_t *c;
	uint32_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Keep the first CHUNKS_MAX chunks, then every other one replaces a slot (a spread sample). */
static void chunk_add(struct chunks *ch, uint64_t i, uint64_t cycles)
{
	if (ch->n < CHUNKS_MAX)
		ch->c[ch->n++] = cycles;
	else
		ch->c[i % CHUNKS_MAX] = cycles;
}

static double chunk_median(struct chunks *ch, uint32_t per_chunk)
{
	if (ch->n == 0)
		return 0.0;
	qsort(ch->c, ch->n, sizeof(uint64_t), cmp_u64);
	return (double)ch->c[ch->n / 2] / (double)per_chunk;
}

/* ---- Queue ---- */

/* The two queues behind one interface, so that both loops are the same code. */
struct q_ops {
	bool (*push)(void *q, const void *msg, uint32_t size);
	bool (*pop)(void *q, void *msg, uint32_t size);
	void *q;
	uint32_t size;
};

/*
 * Generated code pushes and pops with the message size as a constant (p4dp_rtc_queue_push_sized),
 * so the copy compiles to a few moves; these wrappers do the same for each size in QSIZES, and
 * rte_ring gets its size as the same constant (its element copy is inline too). Other sizes go
 * through the non-constant forms (a call of memcpy; rte_ring's switch on the size).
 */
#define QSIZES(X) X(4) X(8) X(16) X(32) X(64)

#define Q_SIZED(N)                                                                             \
	static bool p4dp_push_##N(void *q, const void *msg, uint32_t size)                    \
	{                                                                                      \
		(void)size;                                                                    \
		return p4dp_rtc_queue_push_sized(q, msg, N);                                   \
	}                                                                                      \
	static bool p4dp_pop_##N(void *q, void *msg, uint32_t size)                           \
	{                                                                                      \
		(void)size;                                                                    \
		return p4dp_rtc_queue_pop_sized(q, msg, N);                                    \
	}                                                                                      \
	static bool ring_push_##N(void *q, const void *msg, uint32_t size)                    \
	{                                                                                      \
		(void)size;                                                                    \
		return rte_ring_mp_enqueue_elem(q, (void *)(uintptr_t)msg, N) == 0;            \
	}                                                                                      \
	static bool ring_pop_##N(void *q, void *msg, uint32_t size)                           \
	{                                                                                      \
		(void)size;                                                                    \
		return rte_ring_mc_dequeue_elem(q, msg, N) == 0;                               \
	}
QSIZES(Q_SIZED)

static bool p4dp_push(void *q, const void *msg, uint32_t size)
{
	return p4dp_rtc_queue_push_sized(q, msg, size);
}

static bool p4dp_pop(void *q, void *msg, uint32_t size)
{
	return p4dp_rtc_queue_pop_sized(q, msg, size);
}

static bool ring_push(void *q, const void *msg, uint32_t size)
{
	return rte_ring_mp_enqueue_elem(q, (void *)(uintptr_t)msg, size) == 0;
}

static bool ring_pop(void *q, void *msg, uint32_t size)
{
	return rte_ring_mc_dequeue_elem(q, msg, size) == 0;
}

/* Point @p p (the p4dp queue) and @p r (rte_ring) at the wrappers for @p size. */
static void q_ops_for(uint32_t size, struct q_ops *p, struct q_ops *r)
{
	p->push = p4dp_push;
	p->pop = p4dp_pop;
	r->push = ring_push;
	r->pop = ring_pop;
#define Q_PICK(N)                           \
	if (size == N) {                    \
		p->push = p4dp_push_##N;    \
		p->pop = p4dp_pop_##N;      \
		r->push = ring_push_##N;    \
		r->pop = ring_pop_##N;      \
	}
	QSIZES(Q_PICK)
#undef Q_PICK
}

/* Message i: its first 8 bytes are i, so that the consumer can check order and loss. */
static void msg_fill(uint8_t *m, uint32_t size, uint64_t i)
{
	memset(m, (int)(i & 0xff), size);
	memcpy(m, &i, size < 8 ? size : 8);
}

static uint64_t msg_seq(const uint8_t *m, uint32_t size)
{
	uint64_t i = 0;
	memcpy(&i, m, size < 8 ? size : 8);
	return i;
}

static uint64_t seq_mask(uint32_t size)
{
	return size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

/* One thread: QBURST pushes then QBURST pops, n messages in all (a multiple of QBURST).
 * -EIO on a wrong message. */
static int q_single(const struct q_ops *o, uint64_t n, double *cycles, struct chunks *ch, double *median)
{
	uint8_t m[ELEM_MAX], got[ELEM_MAX];
	const uint64_t mask = seq_mask(o->size);
	uint64_t done = 0, bad = 0;
	ch->n = 0;
	const uint64_t t0 = rte_rdtsc();
	while (done < n) {
		const uint32_t k = QBURST;
		const uint64_t c0 = rte_rdtsc();
		for (uint32_t j = 0; j < k; j++) {
			msg_fill(m, o->size, done + j);
			if (!o->push(o->q, m, o->size))
				bad++;
		}
		for (uint32_t j = 0; j < k; j++)
			if (!o->pop(o->q, got, o->size) || msg_seq(got, o->size) != ((done + j) & mask))
				bad++;
		chunk_add(ch, done / QBURST, rte_rdtsc() - c0);
		done += k;
	}
	*cycles = (double)(rte_rdtsc() - t0) / (double)n;
	*median = chunk_median(ch, QBURST);
	return bad == 0 ? 0 : -EIO;
}

/* Waiting on the other thread: spin a little, then yield the CPU (with more threads than CPUs the
 * other thread may need this one's CPU to make progress). */
static void yield_or_pause(uint32_t spins)
{
	if (spins < 64)
		rte_pause();
	else
		sched_yield();
}

/*
 * Start @p fn on a second thread allowed on every CPU but the caller's (the caller runs on the EAL
 * main lcore, pinned to one CPU, and a new thread would inherit that pin: two threads sharing one
 * CPU measure the scheduler, not the primitive). On a one-CPU machine it shares the CPU.
 */
static int start_other(pthread_t *th, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	cpu_set_t set;
	CPU_ZERO(&set);
	const int self = sched_getcpu();
	const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
		if (c != self)
			CPU_SET((int)c, &set);
	if (CPU_COUNT(&set) > 0)
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	int rc = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc == 0 ? 0 : rt_errc(-rc, "bench: pthread_create: %s", strerror(rc));
}

struct q_producer {
	const struct q_ops *o;
	uint64_t n;
	volatile int go; /* set by the consumer once both threads are ready */
};

static void *q_produce(void *arg)
{
	struct q_producer *p = arg;
	uint8_t m[ELEM_MAX];
	/* acquire: pairs with the consumer's release store of go (start together) */
	while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE))
		rte_pause();
	for (uint64_t i = 0; i < p->n; i++) {
		msg_fill(m, p->o->size, i);
		for (uint32_t spins = 0; !p->o->push(p->o->q, m, p->o->size); spins++)
			yield_or_pause(spins);
	}
	return NULL;
}

/* Producer thread and consumer (the caller); the window runs until the last message is popped. */
static int q_two(const struct q_ops *o, uint64_t n, double *cycles)
{
	struct q_producer p = {.o = o, .n = n, .go = 0};
	pthread_t th;
	int rc = start_other(&th, q_produce, &p);
	if (rc != 0)
		return rc;
	uint8_t got[ELEM_MAX];
	const uint64_t mask = seq_mask(o->size);
	uint64_t bad = 0;
	const uint64_t t0 = rte_rdtsc();
	/* release: the producer starts with the queue as created */
	__atomic_store_n(&p.go, 1, __ATOMIC_RELEASE);
	for (uint64_t i = 0; i < n; i++) {
		for (uint32_t spins = 0; !o->pop(o->q, got, o->size); spins++)
			yield_or_pause(spins);
		bad += msg_seq(got, o->size) != (i & mask);
	}
	*cycles = (double)(rte_rdtsc() - t0) / (double)n;
	pthread_join(th, NULL);
	return bad == 0 ? 0 : -EIO;
}

int p4dp_bench_rtc_queue(uint32_t elem_size, uint64_t n, int two_threads, struct p4dp_bench_rtc_pair *res)
{
	static uint32_t seq;
	if (res == NULL || n == 0 || elem_size < 4 || elem_size > ELEM_MAX || elem_size % 4 != 0)
		return rt_errc(-EINVAL, "bench: queue messages of 4..%u bytes (a multiple of 4), at least one", ELEM_MAX);
	n = (n + QBURST - 1) / QBURST * QBURST;
	memset(res, 0, sizeof(*res));
	struct chunks ch = {.c = malloc(CHUNKS_MAX * sizeof(uint64_t)), .n = 0};
	struct p4dp_rtc_queue *pq = p4dp_rtc_queue_create(QDEPTH, elem_size, SOCKET_ID_ANY);
	char name[RTE_RING_NAMESIZE];
	/* relaxed: only uniqueness of the number matters */
	snprintf(name, sizeof(name), "p4dp_brq%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	struct rte_ring *r = rte_ring_create_elem(name, elem_size, QDEPTH, SOCKET_ID_ANY, 0);
	if (ch.c == NULL || pq == NULL || r == NULL) {
		free(ch.c);
		p4dp_rtc_queue_free(pq);
		rte_ring_free(r);
		return rt_errc(-ENOMEM, "bench: no memory for the queues");
	}
	struct q_ops po = {.q = pq, .size = elem_size};
	struct q_ops ro = {.q = r, .size = elem_size};
	q_ops_for(elem_size, &po, &ro);
	int rc = two_threads ? q_two(&po, n, &res->p4dp_cycles)
			     : q_single(&po, n, &res->p4dp_cycles, &ch, &res->p4dp_median);
	if (rc == -EIO)
		rt_err("bench: the rtc queue returned a message other than the one pushed");
	if (rc == 0) {
		rc = two_threads ? q_two(&ro, n, &res->baseline_cycles)
				 : q_single(&ro, n, &res->baseline_cycles, &ch, &res->baseline_median);
		if (rc == -EIO)
			rt_err("bench: rte_ring returned a message other than the one pushed");
	}
	res->ops = n;
	rte_ring_free(r);
	p4dp_rtc_queue_free(pq);
	free(ch.c);
	return rc;
}

/* ---- Lock ---- */

struct lock_run {
	struct p4dp_rtc_lock *l; /* NULL: the spinlock */
	rte_spinlock_t *sl;
	uint64_t n;
	uint64_t *counter; /* plain: the lock protects it */
	volatile int go;
};

/* r->n pairs (a multiple of QBURST); @p ch NULL: no chunk timing (the second thread). */
static void lock_loop(struct lock_run *r, struct chunks *ch)
{
	for (uint64_t i = 0; i < r->n; i += QBURST) {
		const uint64_t c0 = rte_rdtsc();
		if (r->l != NULL) {
			for (uint32_t j = 0; j < QBURST; j++) {
				p4dp_rtc_lock_acquire(r->l, 0, true);
				(*r->counter)++;
				p4dp_rtc_lock_release(r->l, 0);
			}
		} else {
			for (uint32_t j = 0; j < QBURST; j++) {
				rte_spinlock_lock(r->sl);
				(*r->counter)++;
				rte_spinlock_unlock(r->sl);
			}
		}
		if (ch != NULL)
			chunk_add(ch, i / QBURST, rte_rdtsc() - c0);
	}
}

static void *lock_thread(void *arg)
{
	struct lock_run *r = arg;
	/* acquire: pairs with the release store of go (start together) */
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		rte_pause();
	lock_loop(r, NULL);
	return NULL;
}

static int lock_measure(struct lock_run *r, int two_threads, struct chunks *ch, double *cycles, double *median)
{
	pthread_t th;
	ch->n = 0;
	*r->counter = 0;
	r->go = 0;
	if (two_threads) {
		int rc = start_other(&th, lock_thread, r);
		if (rc != 0)
			return rc;
	}
	const uint64_t t0 = rte_rdtsc();
	/* release: the second thread starts with the counter zeroed */
	__atomic_store_n(&r->go, 1, __ATOMIC_RELEASE);
	lock_loop(r, ch);
	if (two_threads)
		pthread_join(th, NULL);
	const uint64_t pairs = r->n * (two_threads ? 2u : 1u);
	*cycles = (double)(rte_rdtsc() - t0) / (double)pairs;
	*median = chunk_median(ch, QBURST);
	return *r->counter == pairs ? 0 : -EIO;
}

int p4dp_bench_rtc_lock(uint64_t n, int two_threads, struct p4dp_bench_rtc_pair *res)
{
	if (res == NULL || n == 0)
		return rt_errc(-EINVAL, "bench: at least one lock acquisition");
	n = (n + QBURST - 1) / QBURST * QBURST;
	memset(res, 0, sizeof(*res));
	struct chunks ch = {.c = malloc(CHUNKS_MAX * sizeof(uint64_t)), .n = 0};
	struct p4dp_rtc_lock *l = p4dp_rtc_lock_create(1, SOCKET_ID_ANY);
	if (l == NULL || ch.c == NULL) {
		free(ch.c);
		p4dp_rtc_lock_free(l);
		return rt_errc(-ENOMEM, "bench: no memory for the lock");
	}
	rte_spinlock_t sl;
	rte_spinlock_init(&sl);
	uint64_t counter = 0;
	struct lock_run r = {.l = l, .sl = &sl, .n = n, .counter = &counter};
	int rc = lock_measure(&r, two_threads, &ch, &res->p4dp_cycles, &res->p4dp_median);
	if (rc == 0) {
		r.l = NULL;
		rc = lock_measure(&r, two_threads, &ch, &res->baseline_cycles, &res->baseline_median);
	}
	if (rc == -EIO)
		rt_err("bench: a lock let two holders in (the counter lost increments)");
	res->ops = n * (two_threads ? 2u : 1u);
	p4dp_rtc_lock_free(l);
	free(ch.c);
	return rc;
}

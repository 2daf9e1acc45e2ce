/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run-to-completion externs (p4dp/rtc.h): Queue (FIFO, full/empty, bad sizes, two producers
 * and two consumers: every message delivered exactly once), Lock (non-blocking and blocking; a
 * plain shared counter incremented under the lock by two threads stays exact), the atomic
 * Counter (two threads, no lost increment), TableOperation add/get/del (rows, EEXIST, ENOSPC,
 * ENOENT), and the Foreach sweep's guarantee: while a second thread inserts and deletes other
 * keys through TableOperation, every sweep returns each entry that exists for the whole sweep
 * exactly once, churned keys at most once, and only entries with intact data. Run under
 * ThreadSanitizer by `make tsan`. Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include "check.h"
#include "p4dp/abi.h"
#include "p4dp/rcu.h"
#include "p4dp/rtc.h"
#include "tsan_test.h"

/* ---- Queue ---- */

struct msg {
	uint32_t producer, seq, check;
};

#define Q_PER_PRODUCER (200000u / P4DP_TEST_TSAN_DIV / P4DP_TEST_TSAN_DIV / P4DP_TEST_TSAN_DIV)

struct qarg {
	struct p4dp_rtc_queue *q;
	uint32_t id;
	uint8_t *seen[2]; /* consumers: seen[producer][seq] counts */
	uint64_t got, bad;
	volatile int *done_producers;
};

static void *producer(void *a)
{
	struct qarg *x = a;
	for (uint32_t i = 0; i < Q_PER_PRODUCER; i++) {
		struct msg m = {x->id, i, x->id * 7919u + i};
		while (!p4dp_rtc_queue_push(x->q, &m))
			;
	}
	/* release: a consumer that sees the count sees every push before it */
	__atomic_fetch_add(x->done_producers, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer(void *a)
{
	struct qarg *x = a;
	struct msg m;
	for (;;) {
		if (p4dp_rtc_queue_pop(x->q, &m)) {
			if (m.producer > 1 || m.seq >= Q_PER_PRODUCER || m.check != m.producer * 7919u + m.seq)
				x->bad++;
			else
				__atomic_fetch_add(&x->seen[m.producer][m.seq], 1, __ATOMIC_RELAXED);
			x->got++;
			continue;
		}
		/* acquire pairs with the producers' release: all their pushes are visible */
		if (__atomic_load_n(x->done_producers, __ATOMIC_ACQUIRE) == 2 && p4dp_rtc_queue_count(x->q) == 0)
			return NULL;
	}
}

static void test_queue(void)
{
	CHECK(p4dp_rtc_queue_create(0, 4, SOCKET_ID_ANY) == NULL);
	CHECK(p4dp_rtc_queue_create(4, 6, SOCKET_ID_ANY) == NULL);
	CHECK(p4dp_rtc_queue_create(4, 2048, SOCKET_ID_ANY) == NULL);
	struct p4dp_rtc_queue *q = p4dp_rtc_queue_create(3, sizeof(struct msg), SOCKET_ID_ANY);
	CHECK(q != NULL);
	if (q == NULL)
		return;
	CHECK(p4dp_rtc_queue_depth(q) == 3 && p4dp_rtc_queue_elem_size(q) == sizeof(struct msg));
	for (uint32_t i = 0; i < 3; i++) {
		struct msg m = {0, i, i + 100};
		CHECK(p4dp_rtc_queue_push(q, &m));
	}
	struct msg m = {9, 9, 9};
	CHECK(!p4dp_rtc_queue_push(q, &m));
	CHECK(p4dp_rtc_queue_full_count(q) == 1 && p4dp_rtc_queue_count(q) == 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(p4dp_rtc_queue_pop(q, &m) && m.seq == i && m.check == i + 100);
	}
	m.seq = 77;
	CHECK(!p4dp_rtc_queue_pop(q, &m) && m.seq == 77);
	CHECK(!p4dp_rtc_queue_pop_wait(q, &m, NULL));
	p4dp_rtc_queue_free(q);

	/* a depth that is a power of two: full is told by the cells' sequence numbers alone; the
	 * _sized forms (generated code's, a constant size) over several laps of the ring */
	q = p4dp_rtc_queue_create(4, sizeof(struct msg), SOCKET_ID_ANY);
	CHECK(q != NULL);
	if (q == NULL)
		return;
	uint32_t next_in = 0, next_out = 0, refused = 0, wrong = 0;
	for (uint32_t lap = 0; lap < 5; lap++) {
		for (uint32_t i = 0; i < 5; i++) { /* the fifth is refused */
			struct msg in = {lap, next_in, next_in * 7u + 1u};
			if (p4dp_rtc_queue_push_sized(q, &in, sizeof in))
				next_in++;
			else
				refused++;
		}
		for (uint32_t i = 0; i < 3; i++) { /* one stays: the next lap starts mid-ring */
			struct msg out = {0, 0, 0};
			if (!p4dp_rtc_queue_pop_sized(q, &out, sizeof out) || out.seq != next_out ||
			    out.check != next_out * 7u + 1u)
				wrong++;
			next_out++;
		}
	}
	CHECK(wrong == 0 && refused == p4dp_rtc_queue_full_count(q));
	CHECK(next_in == 4u + 4u * 3u && p4dp_rtc_queue_count(q) == next_in - next_out);
	p4dp_rtc_queue_free(q);

	/* two producers, two consumers */
	q = p4dp_rtc_queue_create(1024, sizeof(struct msg), SOCKET_ID_ANY);
	uint8_t *seen[2] = {calloc(Q_PER_PRODUCER, 1), calloc(Q_PER_PRODUCER, 1)};
	volatile int done = 0;
	struct qarg a[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		a[i] = (struct qarg){.q = q, .id = (uint32_t)(i & 1), .seen = {seen[0], seen[1]}, .done_producers = &done};
		pthread_create(&th[i], NULL, i < 2 ? producer : consumer, &a[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	uint64_t once = 0;
	for (int p = 0; p < 2; p++)
		for (uint32_t i = 0; i < Q_PER_PRODUCER; i++)
			once += seen[p][i] == 1;
	CHECK(a[2].bad + a[3].bad == 0);
	CHECK(a[2].got + a[3].got == 2ull * Q_PER_PRODUCER);
	CHECK(once == 2ull * Q_PER_PRODUCER);
	free(seen[0]);
	free(seen[1]);
	p4dp_rtc_queue_free(q);
}

/* ---- Lock and Counter ---- */

#define L_ITERS (400000u / P4DP_TEST_TSAN_DIV / P4DP_TEST_TSAN_DIV / P4DP_TEST_TSAN_DIV)

struct larg {
	struct p4dp_rtc_lock *l;
	struct p4dp_rtc_counter *c;
	uint64_t *plain; /* guarded by lock 3 */
	uint64_t failed;
};

static void *locker(void *a)
{
	struct larg *x = a;
	for (uint32_t i = 0; i < L_ITERS; i++) {
		if (!p4dp_rtc_lock_acquire(x->l, 3, true)) {
			x->failed++;
			continue;
		}
		(*x->plain)++; /* not atomic: the lock makes it exact (and TSan checks the pairing) */
		if (!p4dp_rtc_lock_release(x->l, 3))
			x->failed++;
		p4dp_rtc_counter_count(x->c, 1, 2);
	}
	return NULL;
}

static void test_lock_counter(void)
{
	CHECK(p4dp_rtc_lock_create(0, SOCKET_ID_ANY) == NULL);
	CHECK(p4dp_rtc_counter_create(0, SOCKET_ID_ANY) == NULL);
	struct p4dp_rtc_lock *l = p4dp_rtc_lock_create(4, SOCKET_ID_ANY);
	struct p4dp_rtc_counter *c = p4dp_rtc_counter_create(2, SOCKET_ID_ANY);
	CHECK(l != NULL && c != NULL);
	if (l == NULL || c == NULL)
		return;
	CHECK(p4dp_rtc_lock_acquire(l, 0, false));
	CHECK(!p4dp_rtc_lock_acquire(l, 0, false));
	CHECK(p4dp_rtc_lock_acquire(l, 1, false));
	CHECK(p4dp_rtc_lock_release(l, 0));
	CHECK(!p4dp_rtc_lock_release(l, 0));
	CHECK(p4dp_rtc_lock_acquire(l, 0, true));
	CHECK(!p4dp_rtc_lock_acquire(l, 4, true) && !p4dp_rtc_lock_release(l, 4));
	CHECK(p4dp_rtc_lock_release(l, 0) && p4dp_rtc_lock_release(l, 1));

	p4dp_rtc_counter_set(c, 0, 5);
	p4dp_rtc_counter_count(c, 0, 3);
	p4dp_rtc_counter_count(c, 9, 3); /* out of range: ignored */
	CHECK(p4dp_rtc_counter_get(c, 0) == 8 && p4dp_rtc_counter_get(c, 9) == 0);

	uint64_t plain = 0;
	struct larg a[2] = {{l, c, &plain, 0}, {l, c, &plain, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, locker, &a[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(a[0].failed + a[1].failed == 0);
	CHECK(plain == 2ull * L_ITERS);
	CHECK(p4dp_rtc_counter_get(c, 1) == 4ull * L_ITERS);
	p4dp_rtc_lock_free(l);
	p4dp_rtc_counter_free(c);

	/* a large Counter (a cell per row of a large table) is a huge-page mapping of its own
	 * (table_mem.h: 2 MiB aligned, which the heap's blocks are not), zeroed, freed by unmapping */
	const uint32_t big = 1u << 18;
	struct p4dp_rtc_counter *b = p4dp_rtc_counter_create(big, SOCKET_ID_ANY);
	CHECK(b != NULL && (uintptr_t)b % ((uintptr_t)2 << 20) == 0);
	if (b != NULL) {
		CHECK(p4dp_rtc_counter_get(b, 0) == 0 && p4dp_rtc_counter_get(b, big - 1) == 0);
		p4dp_rtc_counter_count(b, big - 1, 7);
		p4dp_rtc_counter_set(b, big / 2, 9);
		p4dp_rtc_counter_count(b, big, 1); /* out of range: ignored */
		CHECK(p4dp_rtc_counter_get(b, big - 1) == 7 && p4dp_rtc_counter_get(b, big / 2) == 9);
		p4dp_rtc_counter_free(b);
	}
}

/* ---- TableOperation and the Foreach sweep ---- */

/* A program with one exact table: 4-byte key, action 0 with 8 bytes of data. */
static const struct p4dp_param_info params[] = {{"v", 1, 64, 0, 8}};
static const struct p4dp_action_info actions[] = {{"ig.set", 1, 1, params, 8}, {"ig.nop", 2, 0, NULL, 0}};
static const struct p4dp_key_info keys[] = {{"k", 1, P4DP_MATCH_EXACT, 0, 4, 32}};
static const uint32_t t_actions[] = {0, 1};
static const struct p4dp_table_info tinfo[] = {
	{.name = "ig.flows", .id = 1, .key_len = 4, .n_keys = 1, .keys = keys, .n_actions = 2,
	 .actions = t_actions, .default_action = 1, .size = 4096, .data_len = 8, .direct_counter = -1,
	 .direct_meter = -1}};
static const struct p4dp_program prog = {.abi_version = P4DP_ABI_VERSION, .name = "rtc_test", .arch = "rtc",
					 .n_tables = 1, .tables = tinfo, .n_actions = 2, .actions = actions};

#define STABLE 1000u
#define CHURN_BASE 100000u
#define CHURN 1500u
#define SWEEPS (200u / P4DP_TEST_TSAN_DIV)

struct churn {
	struct p4dp_ctx *ctx;
	struct p4dp_rcu *rcu;
	volatile int stop;
	uint64_t adds, dels, bad;
};

static void *churner(void *a)
{
	struct churn *x = a;
	p4dp_rcu_register(x->rcu, 1);
	uint32_t i = 0;
	/* relaxed: a stop flag orders nothing */
	while (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		uint32_t k = CHURN_BASE + i % CHURN;
		uint64_t v = (uint64_t)k * 3u;
		int rc = p4dp_rtc_table_add(x->ctx, 0, &k, 0, &v, NULL);
		if (rc == 0)
			__atomic_fetch_add(&x->adds, 1, __ATOMIC_RELAXED); /* read by main: relaxed, a count */
		else if (rc != -EEXIST && rc != -ENOSPC)
			x->bad++;
		uint32_t d = CHURN_BASE + (i + CHURN / 2) % CHURN;
		rc = p4dp_rtc_table_del(x->ctx, 0, &d, x->rcu, 1);
		if (rc == 0)
			x->dels++;
		else if (rc != -ENOENT)
			x->bad++;
		p4dp_rcu_quiescent(x->rcu, 1);
		/* as the control thread of a run does: release the rows of deletes whose grace period
		 * has passed, so that adds reuse rows (of other keys) while sweeps run */
		p4dp_table_maintain(x->ctx->tables[0]);
		i++;
	}
	p4dp_rcu_unregister(x->rcu, 1);
	return NULL;
}

static void test_table_ops(void)
{
	struct p4dp_rcu *rcu = p4dp_rcu_create(2, SOCKET_ID_ANY);
	struct p4dp_key_field f = {.match_kind = P4DP_MATCH_EXACT, .offset = 0, .size = 4, .bitwidth = 32};
	struct p4dp_table_params tp = {.name = "ig.flows", .key_len = 4, .n_fields = 1, .fields = &f,
				       .max_entries = 4096, .data_len = 8, .storage = P4DP_STORAGE_STATIC,
				       .socket_id = SOCKET_ID_ANY, .dp_writes = 1};
	struct p4dp_table *t = rcu ? p4dp_table_create(&tp, rcu) : NULL;
	CHECK(t != NULL);
	if (t == NULL)
		return;
	struct p4dp_ctx ctx = {.tables = &t, .prog = &prog};
	p4dp_rcu_register(rcu, 0);

	uint32_t k = 7, row = 99, row2 = 98, act = 5;
	uint64_t v = 21, got = 0;
	CHECK(p4dp_rtc_table_add(&ctx, 0, &k, 0, &v, &row) == 0);
	CHECK(p4dp_rtc_table_add(&ctx, 0, &k, 0, &v, NULL) == -EEXIST);
	CHECK(p4dp_rtc_table_get(&ctx, 0, &k, &act, &got, &row2) == 0 && act == 0 && got == 21 && row2 == row);
	CHECK(p4dp_rtc_table_add(&ctx, 0, &k, 7, &v, NULL) == -EINVAL); /* not an action of the table */
	CHECK(p4dp_rtc_table_add(&ctx, 3, &k, 0, &v, NULL) == -EINVAL); /* no such table */
	CHECK(p4dp_rtc_table_del(&ctx, 0, &k, rcu, 0) == 0);
	CHECK(p4dp_rtc_table_del(&ctx, 0, &k, rcu, 0) == -ENOENT);
	CHECK(p4dp_rtc_table_get(&ctx, 0, &k, &act, &got, NULL) == -ENOENT);
	p4dp_rcu_quiescent(rcu, 0);

	/* the row entryAdd gives is the entry's row (what entryGet and the table say), for every key */
	for (uint32_t i = 0; i < STABLE; i++) {
		uint64_t d = (uint64_t)i * 3u;
		uint32_t r_add = UINT32_MAX, r_get = UINT32_MAX - 1;
		CHECK(p4dp_rtc_table_add(&ctx, 0, &i, 0, &d, &r_add) == 0);
		CHECK(p4dp_rtc_table_get(&ctx, 0, &i, NULL, NULL, &r_get) == 0 && r_get == r_add);
	}
	struct p4dp_rtc_sweep *s = p4dp_rtc_sweep_create(&ctx, 0, SOCKET_ID_ANY);
	CHECK(s != NULL);
	uint8_t *hits = calloc(CHURN_BASE + CHURN, 1);
	uint8_t *row_hits = calloc(tinfo[0].size, 1);
	struct churn c = {.ctx = &ctx, .rcu = rcu};
	pthread_t th;
	pthread_create(&th, NULL, churner, &c);
	/* sweep only once the churn has begun: the guarantee is about concurrent writes */
	while (__atomic_load_n(&c.adds, __ATOMIC_RELAXED) < CHURN / 4)
		p4dp_rcu_quiescent(rcu, 0);
	uint64_t stable_bad = 0, churn_bad = 0, data_bad = 0, returned = 0, snap = 0, churn_seen = 0;
	/* at least SWEEPS sweeps, and on until the churn has added CHURN entries since they began
	 * (a sweep without a lock is quick; the churn's adds wait for grace periods) */
	const uint64_t adds0 = __atomic_load_n(&c.adds, __ATOMIC_RELAXED);
	uint32_t sweeps = 0;
	for (uint32_t sw = 0; s != NULL && (sw < SWEEPS || __atomic_load_n(&c.adds, __ATOMIC_RELAXED) < adds0 + CHURN);
	     sw++) {
		sweeps++;
		memset(hits, 0, CHURN_BASE + CHURN);
		memset(row_hits, 0, tinfo[0].size);
		int n = p4dp_rtc_sweep_begin(s, rcu, 0);
		snap += n > 0 ? (uint64_t)n : 0u;
		if (n < (int)STABLE)
			stable_bad++;
		const struct p4dp_entry *e;
		uint32_t key;
		while ((e = p4dp_rtc_sweep_next(s, &key)) != NULL) {
			uint64_t d;
			memcpy(&d, e->data, 8);
			if (d != (uint64_t)key * 3u || e->action != 0 || key >= CHURN_BASE + CHURN)
				data_bad++;
			else
				hits[key]++;
			if (e->index < tinfo[0].size)
				row_hits[e->index]++;
			returned++;
		}
		for (uint32_t i = 0; i < STABLE; i++)
			stable_bad += hits[i] != 1;
		for (uint32_t i = CHURN_BASE; i < CHURN_BASE + CHURN; i++)
			churn_seen += hits[i];
		/* a churn key may be deleted and added again during the sweep, at another row: two
		 * entries of one key, each visited at most once. No entry twice: no row twice (a row
		 * holds one entry at a time and is reused only after its entry's grace period). */
		for (uint32_t i = 0; i < tinfo[0].size; i++)
			churn_bad += row_hits[i] > 1;
		/* between sweeps, offline for a moment: the churn's deletes reach their grace periods
		 * and its adds find free rows (on a loaded machine it may otherwise not run) */
		p4dp_rcu_thread_offline(rcu, 0);
		usleep(100);
		p4dp_rcu_thread_online(rcu, 0);
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(stable_bad == 0);
	CHECK(churn_bad == 0);
	CHECK(data_bad == 0);
	CHECK(c.bad == 0 && c.dels > 0);
	CHECK(returned >= (uint64_t)sweeps * STABLE);
	CHECK(churn_seen > 0); /* the sweeps ran while churned entries were installed */
	printf("sweeps %u: %llu entries when they began, %llu returned (%llu churned); churn: %llu adds, %llu deletes\n",
	       sweeps, (unsigned long long)snap, (unsigned long long)returned, (unsigned long long)churn_seen,
	       (unsigned long long)c.adds, (unsigned long long)c.dels);

	/* a full table: entryAdd fails with -ENOSPC, a defined outcome */
	p4dp_rtc_sweep_free(s);
	free(hits);
	free(row_hits);
	p4dp_rcu_unregister(rcu, 0);
	p4dp_table_free(t);
	tp.max_entries = 2;
	t = p4dp_table_create(&tp, rcu);
	ctx.tables = &t;
	for (uint32_t i = 0; i < 2; i++)
		CHECK(p4dp_rtc_table_add(&ctx, 0, &i, 0, &v, NULL) == 0);
	k = 9;
	CHECK(p4dp_rtc_table_add(&ctx, 0, &k, 0, &v, NULL) == -ENOSPC);
	p4dp_table_free(t);
	p4dp_rcu_free(rcu);
}

/* ---- a sweep holds no lock that inserts wait for ---- */

#define BIG_ROWS 65536u

struct inserter {
	struct p4dp_ctx *ctx;
	uint32_t first, n;
	int done; /* stored with release when all n inserts have returned */
	uint32_t ok;
};

static void *inserter(void *a)
{
	struct inserter *x = a;
	for (uint32_t i = 0; i < x->n; i++) {
		uint32_t k = x->first + i;
		uint64_t v = (uint64_t)k * 3u;
		x->ok += p4dp_rtc_table_add(x->ctx, 0, &k, 0, &v, NULL) == 0;
	}
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Half-way through a sweep of a large table, another thread's inserts (the data-plane insert
 * path, under the table's insertion spinlock) complete while the sweep is still in progress; then
 * the sweep goes on and visits each entry installed before it began exactly once. */
static void test_sweep_no_lock(void)
{
	struct p4dp_rcu *rcu = p4dp_rcu_create(1, SOCKET_ID_ANY);
	struct p4dp_key_field f = {.match_kind = P4DP_MATCH_EXACT, .offset = 0, .size = 4, .bitwidth = 32};
	struct p4dp_table_params tp = {.name = "ig.flows", .key_len = 4, .n_fields = 1, .fields = &f,
				       .max_entries = BIG_ROWS, .data_len = 8, .storage = P4DP_STORAGE_DYNAMIC,
				       .socket_id = SOCKET_ID_ANY, .dp_writes = 1};
	struct p4dp_table *t = rcu ? p4dp_table_create(&tp, rcu) : NULL;
	CHECK(t != NULL);
	if (t == NULL)
		return;
	struct p4dp_table_info big = tinfo[0];
	big.size = BIG_ROWS;
	struct p4dp_program bprog = prog;
	bprog.tables = &big;
	struct p4dp_ctx ctx = {.tables = &t, .prog = &bprog};
	p4dp_rcu_register(rcu, 0);
	const uint32_t before = BIG_ROWS / 2;
	for (uint32_t i = 0; i < before; i++) {
		uint64_t d = (uint64_t)i * 3u;
		CHECK(p4dp_rtc_table_add(&ctx, 0, &i, 0, &d, NULL) == 0);
	}
	struct p4dp_rtc_sweep *s = p4dp_rtc_sweep_create(&ctx, 0, SOCKET_ID_ANY);
	CHECK(s != NULL);
	uint8_t *hits = calloc(BIG_ROWS, 1);
	if (s == NULL || hits == NULL)
		return;
	CHECK(p4dp_rtc_sweep_begin(s, rcu, 0) == (int)before);
	uint32_t key, seen = 0;
	const struct p4dp_entry *e;
	while (seen < before / 2 && (e = p4dp_rtc_sweep_next(s, &key)) != NULL) {
		hits[key < BIG_ROWS ? key : 0]++;
		seen++;
	}
	struct inserter in = {.ctx = &ctx, .first = before, .n = BIG_ROWS / 4};
	pthread_t th;
	pthread_create(&th, NULL, inserter, &in);
	/* mid-sweep (no entry of the sweep held: between two calls of next): wait for the inserts,
	 * at most 60 s; a sweep that held the insertion spinlock would keep them waiting */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int done = 0;
	do {
		p4dp_rcu_quiescent(rcu, 0);
		done = __atomic_load_n(&in.done, __ATOMIC_ACQUIRE);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!done && now.tv_sec - t0.tv_sec < 60);
	CHECK(done);
	pthread_join(th, NULL);
	CHECK(in.ok == BIG_ROWS / 4);
	while ((e = p4dp_rtc_sweep_next(s, &key)) != NULL)
		hits[key < BIG_ROWS ? key : 0]++;
	uint64_t bad = 0, late = 0;
	for (uint32_t i = 0; i < before; i++)
		bad += hits[i] != 1;
	for (uint32_t i = before; i < BIG_ROWS; i++) {
		bad += hits[i] > 1;
		late += hits[i];
	}
	CHECK(bad == 0);
	printf("sweep of %u entries: %u inserts done half-way through it (%llu of them visited later in it)\n", before,
	       in.ok, (unsigned long long)late);
	free(hits);
	p4dp_rtc_sweep_free(s);
	p4dp_rcu_unregister(rcu, 0);
	p4dp_table_free(t);
	p4dp_rcu_free(rcu);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0], "0@0,1@1") != 0)
		return 1;
	test_queue();
	test_lock_counter();
	test_table_ops();
	test_sweep_no_lock();
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

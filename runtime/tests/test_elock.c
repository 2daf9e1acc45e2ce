/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Biased entry locks (dpwrite.h: p4dp_entry_lock / p4dp_entry_unlock, the revocation handshake
 * in src/dpwrite.c). Threads call the lock functions directly with their own p4dp_ctx, as the
 * generated code of an @entry_lock table does; "acknowledging" (p4dp_bias_ack) stands for the
 * worker loop's point between bursts.
 *
 *  (a) the first lock of a fresh entry biases it to its worker; later locks take the biased path;
 *  (b) another worker's lock revokes the bias and waits until the owner acknowledged: it never
 *      runs while the owner is still inside an action it started with the bias;
 *  (c) an offline owner (not running) is not waited for;
 *  (d) two workers revoking each other's entries concurrently (and spinning on entries whose
 *      revoker waits for them) neither deadlock nor lose an increment;
 *  (e) without revocation state (ctx->bias NULL) the lock is a plain spinlock.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "p4dp/abi.h"
#include "tsan_test.h"

#include "check.h"

#define NW 2u

struct fixture {
	struct p4dp_bias b;
	struct p4dp_bias_ack ack[NW];
	struct p4dp_ctx ctx[NW];
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->b.n = NW;
	f->b.ack = f->ack;
	for (uint32_t w = 0; w < NW; w++) {
		f->ack[w].tok = P4DP_BIAS_OFFLINE;
		f->ctx[w].worker_id = w;
		f->ctx[w].bias = &f->b;
	}
}

/* An entry with one 64-bit @__ref counter. */
static struct p4dp_entry *entry_new(void)
{
	struct p4dp_entry *e = aligned_alloc(64, 64);
	memset(e, 0, 64);
	return e;
}

static uint64_t *ctr(const struct p4dp_entry *e)
{
	return (uint64_t *)(uintptr_t)e->data;
}

static uint32_t word(const struct p4dp_entry *e)
{
	return __atomic_load_n(&e->lock, __ATOMIC_ACQUIRE);
}

static void test_bias_first_use(void)
{
	struct fixture f;
	fixture_init(&f);
	p4dp_bias_online(&f.b, 0);
	struct p4dp_entry *e = entry_new();
	CHECK(word(e) == P4DP_ELOCK_FREE);
	int m = p4dp_entry_lock(&f.ctx[0], e);
	CHECK(m == 0);
	CHECK(word(e) == (P4DP_ELOCK_BIAS | 0u));
	*ctr(e) += 1;
	p4dp_entry_unlock(e, m);
	CHECK(word(e) == (P4DP_ELOCK_BIAS | 0u)); /* a biased unlock writes nothing */
	for (int i = 0; i < 1000; i++) {
		m = p4dp_entry_lock(&f.ctx[0], e);
		CHECK(m == 0);
		*ctr(e) += 1;
		p4dp_entry_unlock(e, m);
	}
	CHECK(*ctr(e) == 1001);
	CHECK(word(e) == (P4DP_ELOCK_BIAS | 0u));
	CHECK(__atomic_load_n(&f.b.tok, __ATOMIC_RELAXED) == 0); /* nothing was revoked */
	free(e);
	printf("(a) bias on first use                 ok\n");
}

/* (b) */
struct rv {
	struct fixture *f;
	struct p4dp_entry *e;
	int in_action;     /* owner: inside the action it entered with the bias */
	int revoker_done;  /* revoker: its lock returned and it checked */
	int seen_in_action; /* revoker: the owner's action was still running when its lock returned */
	uint64_t seen_ctr;
	int mode;
};

static void *owner_thread(void *arg)
{
	struct rv *r = arg;
	struct fixture *f = r->f;
	p4dp_bias_online(&f->b, 0);
	int m = p4dp_entry_lock(&f->ctx[0], r->e);
	__atomic_store_n(&r->in_action, 1, __ATOMIC_RELEASE);
	/* A long action: the revoker starts meanwhile and must wait for it. No acknowledgement
	 * here (an action is running). */
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	*ctr(r->e) = 42;
	__atomic_store_n(&r->in_action, 0, __ATOMIC_RELAXED);
	p4dp_entry_unlock(r->e, m);
	/* Between bursts: acknowledge until the revoker is through. */
	while (!__atomic_load_n(&r->revoker_done, __ATOMIC_ACQUIRE))
		p4dp_bias_ack(&f->b, 0);
	p4dp_bias_offline(&f->b, 0);
	return NULL;
}

static void *revoker_thread(void *arg)
{
	struct rv *r = arg;
	struct fixture *f = r->f;
	p4dp_bias_online(&f->b, 1);
	while (!__atomic_load_n(&r->in_action, __ATOMIC_ACQUIRE))
		;
	r->mode = p4dp_entry_lock(&f->ctx[1], r->e);
	r->seen_in_action = __atomic_load_n(&r->in_action, __ATOMIC_RELAXED);
	r->seen_ctr = *ctr(r->e);
	*ctr(r->e) += 1;
	p4dp_entry_unlock(r->e, r->mode);
	__atomic_store_n(&r->revoker_done, 1, __ATOMIC_RELEASE);
	p4dp_bias_offline(&f->b, 1);
	return NULL;
}

static void test_revoke_waits(void)
{
	struct fixture f;
	fixture_init(&f);
	struct rv r = { .f = &f, .e = entry_new() };
	pthread_t a, b;
	CHECK(pthread_create(&a, NULL, owner_thread, &r) == 0);
	CHECK(pthread_create(&b, NULL, revoker_thread, &r) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CHECK(r.mode == 1);
	CHECK(r.seen_in_action == 0); /* the revoker's action did not overlap the owner's */
	CHECK(r.seen_ctr == 42);      /* and it saw the owner's write */
	CHECK(*ctr(r.e) == 43);
	CHECK(word(r.e) == P4DP_ELOCK_SHARED); /* shared mode for good */
	CHECK(__atomic_load_n(&f.b.tok, __ATOMIC_RELAXED) == 1);
	free(r.e);
	printf("(b) revocation waits for the owner    ok\n");
}

static void test_offline_owner(void)
{
	struct fixture f;
	fixture_init(&f);
	struct p4dp_entry *e = entry_new();
	p4dp_bias_online(&f.b, 0);
	int m = p4dp_entry_lock(&f.ctx[0], e);
	CHECK(m == 0);
	p4dp_entry_unlock(e, m);
	p4dp_bias_offline(&f.b, 0);
	/* worker 1 (same thread): must not wait for the offline owner */
	p4dp_bias_online(&f.b, 1);
	m = p4dp_entry_lock(&f.ctx[1], e);
	CHECK(m == 1);
	CHECK(word(e) == P4DP_ELOCK_HELD);
	p4dp_entry_unlock(e, m);
	CHECK(word(e) == P4DP_ELOCK_SHARED);
	/* worker 0 again: shared mode now, no bias */
	p4dp_bias_online(&f.b, 0);
	m = p4dp_entry_lock(&f.ctx[0], e);
	CHECK(m == 1);
	p4dp_entry_unlock(e, m);
	CHECK(word(e) == P4DP_ELOCK_SHARED);
	free(e);
	printf("(c) offline owner not waited for      ok\n");
}

/* (d) */
#define NE 512u
#define BURST 32u
struct mutual {
	struct fixture *f;
	struct p4dp_entry **e;
	uint32_t rounds;
	uint32_t id;
	uint32_t biased; /* locks that took the biased path */
	pthread_barrier_t *start;
};

static void *mutual_thread(void *arg)
{
	struct mutual *m = arg;
	struct fixture *f = m->f;
	struct p4dp_ctx *ctx = &f->ctx[m->id];
	p4dp_bias_online(&f->b, m->id);
	pthread_barrier_wait(m->start); /* both online before either locks */
	uint32_t k = 0;
	for (uint32_t r = 0; r < m->rounds; r++)
		for (uint32_t i = 0; i < NE; i++) {
			/* worker 0 walks up, worker 1 down: each revokes entries the other biased,
			 * while the other may be waiting on it */
			uint32_t j = m->id == 0 ? i : NE - 1 - i;
			int md = p4dp_entry_lock(ctx, m->e[j]);
			m->biased += md == 0;
			*ctr(m->e[j]) += 1;
			p4dp_entry_unlock(m->e[j], md);
			if (++k % BURST == 0)
				p4dp_bias_ack(&f->b, m->id);
		}
	p4dp_bias_offline(&f->b, m->id);
	return NULL;
}

static void test_mutual(void)
{
	/* Fresh entries per trial: each trial starts with every entry FREE, so the first user
	 * biases it and the other revokes it, in both directions at once when the threads overlap. */
	const uint32_t trials = 16, rounds = 400u / P4DP_TEST_TSAN_DIV;
	uint32_t wrong = 0, both = 0;
	uint64_t revocations = 0;
	for (uint32_t t = 0; t < trials; t++) {
		struct fixture f;
		fixture_init(&f);
		struct p4dp_entry *e[NE];
		for (uint32_t i = 0; i < NE; i++)
			e[i] = entry_new();
		struct mutual m[NW];
		pthread_t th[NW];
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, NW);
		for (uint32_t w = 0; w < NW; w++) {
			m[w] = (struct mutual){ .f = &f, .e = e, .rounds = rounds, .id = w, .start = &start };
			CHECK(pthread_create(&th[w], NULL, mutual_thread, &m[w]) == 0);
		}
		for (uint32_t w = 0; w < NW; w++)
			pthread_join(th[w], NULL);
		pthread_barrier_destroy(&start);
		for (uint32_t i = 0; i < NE; i++) {
			wrong += *ctr(e[i]) != 2ull * rounds;
			free(e[i]);
		}
		uint64_t tok = __atomic_load_n(&f.b.tok, __ATOMIC_RELAXED);
		CHECK(tok <= NE); /* every entry is revoked at most once */
		revocations += tok;
		both += m[0].biased > 0 && m[1].biased > 0;
	}
	CHECK(wrong == 0);
	printf("(d) mutual revocation, 2 threads      %s (%u trials of %u entries x %u rounds per thread: %u wrong "
	       "counts; %llu revocations; %u trials with biased locks on both threads)\n",
	       wrong ? "FAIL" : "ok", trials, NE, rounds, wrong, (unsigned long long)revocations, both);
}

static void test_no_bias(void)
{
	struct p4dp_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	struct p4dp_entry *e = entry_new();
	int m = p4dp_entry_lock(&ctx, e);
	CHECK(m == 1);
	CHECK(word(e) == P4DP_ELOCK_HELD);
	p4dp_entry_unlock(e, m);
	CHECK(word(e) == P4DP_ELOCK_SHARED);
	m = p4dp_entry_lock(&ctx, e);
	CHECK(m == 1);
	p4dp_entry_unlock(e, m);
	free(e);
	printf("(e) no revocation state: spinlock     ok\n");
}

int main(void)
{
	/* a deadlock in (b) or (d) must fail the test, not hang it */
	alarm(120);
	test_bias_first_use();
	test_revoke_waits();
	test_offline_owner();
	test_mutual();
	test_no_bias();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

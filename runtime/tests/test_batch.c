/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-plane atomic batches (p4dp_runtime_batch_run, src/batch.c) with the hand-written program
 * tests/rt_prog_batch.c (built to a .so at start; run from runtime/ or set P4DP_RT_SRC): two tables
 * a batch always rewrites together, and packets that count whether the two agree. Checks:
 *  (a) without a run: the function runs, its return value is returned, a nested batch is -EDEADLK;
 *  (b) batches under traffic on 2 workers (software dispatch) and on 1 worker: no packet sees the
 *      tables disagree or an entry missing, although every 8th batch deletes and re-adds an entry
 *      of a table with a direct counter (that delete waits for a grace period while the workers
 *      are parked); the workers forwarded before, between and after the batches;
 *  (c) the same writes without the barrier (one table after the other): the packets' check does
 *      see half-applied states (printed: it shows the check of (b) can fail).
 * Under ThreadSanitizer (make tsan) the batch counts are divided by P4DP_TEST_TSAN_DIV.
 * Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "tsan_test.h"

#include "check.h"
#include "pcap_write.h"

enum { A_NOP, A_TAG, A_EXPECT };
enum { T_TAG, T_EXPECT };
enum { X_CHECKS, X_EXPECT_HITS };
#define N_KEYS 4u

static char g_so[PATH_MAX], g_dir[256];
static int g_id;

/* Packet i: key i % N_KEYS in byte 0, flow i % 256 in bytes [2..6). */
static void fill_pkt(uint8_t *pkt, uint32_t i)
{
	pkt[0] = (uint8_t)(i % N_KEYS);
	uint32_t flow = i % 256;
	memcpy(pkt + 2, &flow, 4);
}

static uint64_t checks(struct p4dp_runtime *rt, uint32_t cell)
{
	struct p4dp_counter_cell c = { 0, 0 };
	p4dp_runtime_counter_read(rt, X_CHECKS, cell, &c);
	return c.packets;
}

/* Write key @p k of table @p t with action @p a and value @p v (add or modify). */
static int put(struct p4dp_runtime *rt, uint32_t t, uint32_t a, uint8_t k, uint32_t v, int modify)
{
	uint8_t kv = k, be[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	struct p4dp_rt_key key = { P4DP_RT_KEY_EXACT, 0, &kv, 1, NULL, 0 };
	struct p4dp_rt_param p = { be, 4 };
	struct p4dp_rt_entry e = { 1, &key, 0, a, 1, &p };
	return modify ? p4dp_runtime_table_entry_modify(rt, t, &e) : p4dp_runtime_table_entry_add(rt, t, &e);
}

static int del(struct p4dp_runtime *rt, uint32_t t, uint8_t k)
{
	uint8_t kv = k;
	struct p4dp_rt_key key = { P4DP_RT_KEY_EXACT, 0, &kv, 1, NULL, 0 };
	struct p4dp_rt_entry e = { 1, &key, 0, 0, 0, NULL };
	return p4dp_runtime_table_entry_delete(rt, t, &e);
}

struct writes {
	struct p4dp_runtime *rt;
	uint32_t v;        /* the value this batch writes to both tables */
	int readd;         /* also delete and re-add the `expect` entries */
};

/* The batch: both tables of every key to w->v, `tag` first. */
static int write_both(void *arg)
{
	struct writes *w = arg;
	for (uint8_t k = 0; k < N_KEYS; k++) {
		int rc = put(w->rt, T_TAG, A_TAG, k, w->v, 1);
		if (rc == 0 && w->readd) {
			rc = del(w->rt, T_EXPECT, k);
			if (rc == 0)
				rc = put(w->rt, T_EXPECT, A_EXPECT, k, w->v, 0);
		} else if (rc == 0) {
			rc = put(w->rt, T_EXPECT, A_EXPECT, k, w->v, 1);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

struct ctl {
	struct p4dp_runtime *rt;
	volatile int stop;
	uint32_t n_batches;
	int atomic;
	uint64_t ok, failed, wait_ns_max, apply_ns_max, wait_ns_sum, apply_ns_sum;
	uint64_t loops_before, loops_between, loops_after;
};

static uint64_t loops(struct p4dp_runtime *rt, uint32_t nw)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < nw; i++) {
		struct p4dp_rt_worker_stats s;
		if (p4dp_runtime_worker_stats_get(rt, i, &s) == 0)
			n += s.loops;
	}
	return n;
}

static uint32_t g_nw;

static void *controller(void *arg)
{
	struct ctl *c = arg;
	/* until the workers loop */
	for (int i = 0; i < 5000 && loops(c->rt, g_nw) == 0; i++)
		usleep(1000);
	usleep(20000);
	c->loops_before = loops(c->rt, g_nw);
	for (uint32_t i = 0; i < c->n_batches; i++) {
		struct writes w = { c->rt, i + 2, i % 8 == 7 };
		int rc;
		if (c->atomic) {
			struct p4dp_rt_batch_times t = { 0, 0 };
			rc = p4dp_runtime_batch_run(c->rt, write_both, &w, &t);
			c->wait_ns_sum += t.wait_ns;
			c->apply_ns_sum += t.apply_ns;
			if (t.wait_ns > c->wait_ns_max)
				c->wait_ns_max = t.wait_ns;
			if (t.apply_ns > c->apply_ns_max)
				c->apply_ns_max = t.apply_ns;
		} else {
			rc = write_both(&w);
		}
		if (rc == 0)
			c->ok++;
		else
			c->failed++;
		if (i == c->n_batches / 2)
			c->loops_between = loops(c->rt, g_nw);
	}
	uint64_t l = loops(c->rt, g_nw);
	for (int i = 0; i < 5000 && loops(c->rt, g_nw) == l; i++)
		usleep(1000);
	c->loops_after = loops(c->rt, g_nw);
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static struct p4dp_runtime *mkrt(uint32_t nw, const char *pcap)
{
	struct p4dp_runtime_params pp = { .program_path = g_so, .max_workers = nw, .n_mbufs = 65536 };
	struct p4dp_runtime *rt = NULL;
	if (p4dp_runtime_create(&pp, &rt) != 0)
		return NULL;
	char dev[3 * PATH_MAX];
	snprintf(dev, sizeof(dev), "net_pcap_batch%d,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1", g_id++, pcap);
	int rc = p4dp_runtime_port_add(rt, 0, dev);
	for (uint8_t k = 0; rc == 0 && k < N_KEYS; k++) {
		rc = put(rt, T_TAG, A_TAG, k, 1, 0);
		if (rc == 0)
			rc = put(rt, T_EXPECT, A_EXPECT, k, 1, 0);
	}
	if (rc != 0) {
		p4dp_runtime_free(rt);
		return NULL;
	}
	return rt;
}

/* Runs n batches under traffic; returns the packets that saw the tables disagree (cell 1). */
static uint64_t run_batches(const char *pcap, uint32_t nw, uint32_t n, int atomic)
{
	struct p4dp_runtime *rt = mkrt(nw, pcap);
	CHECK(rt != NULL);
	if (!rt)
		return 0;
	g_nw = nw;
	struct ctl c = { .rt = rt, .n_batches = n, .atomic = atomic };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, controller, &c) == 0);
	/* the duration only bounds a hung test: the controller stops the run (a run that ended by it
	 * fails the loop check below) */
	struct p4dp_run_params rp = { .n_workers = nw, .stop = (volatile int *)&c.stop, .duration_ms = 900000,
				      .dispatch = nw > 1 ? P4DP_RT_DISPATCH_SW : P4DP_RT_DISPATCH_AUTO,
				      .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	pthread_join(th, NULL);
	uint64_t miss = checks(rt, 0), mixed = checks(rt, 1), good = checks(rt, 2);
	printf("  %s, %u worker(s): %" PRIu64 " batches ok, %" PRIu64 " failed; packets: agree %" PRIu64
	       ", disagree %" PRIu64 ", miss/default %" PRIu64 "; worker loops before/middle/after %" PRIu64
	       "/%" PRIu64 "/%" PRIu64 "\n",
	       atomic ? "batch_run" : "table by table", nw, c.ok, c.failed, good, mixed, miss, c.loops_before,
	       c.loops_between, c.loops_after);
	if (atomic && c.ok > 0)
		printf("  barrier: wait mean %" PRIu64 " ns (max %" PRIu64 "), apply mean %" PRIu64 " ns (max %" PRIu64
		       ")\n", c.wait_ns_sum / c.ok, c.wait_ns_max, c.apply_ns_sum / c.ok, c.apply_ns_max);
	CHECK(c.ok == n && c.failed == 0);
	CHECK(good > 0);
	/* the workers forwarded before, during and after the batches */
	CHECK(c.loops_before > 0 && c.loops_between > c.loops_before && c.loops_after > c.loops_between);
	if (atomic)
		CHECK(mixed == 0 && miss == 0);
	p4dp_runtime_free(rt);
	return mixed;
}

static int ret7(void *arg)
{
	(void)arg;
	return 7;
}

static int nested(void *arg)
{
	return p4dp_runtime_batch_run(arg, ret7, NULL, NULL);
}

static void test_no_run(const char *pcap)
{
	printf("(a) batches without a run\n");
	struct p4dp_runtime *rt = mkrt(1, pcap);
	CHECK(rt != NULL);
	if (!rt)
		return;
	struct p4dp_rt_batch_times t;
	CHECK(p4dp_runtime_batch_run(rt, ret7, NULL, &t) == 7);
	CHECK(p4dp_runtime_batch_run(rt, nested, rt, NULL) == -EDEADLK);
	CHECK(p4dp_runtime_batch_run(rt, NULL, NULL, NULL) == -EINVAL);
	CHECK(p4dp_runtime_batch_run(NULL, ret7, NULL, NULL) == -EINVAL);
	struct writes w = { rt, 9, 1 };
	CHECK(p4dp_runtime_batch_run(rt, write_both, &w, NULL) == 0);
	p4dp_runtime_free(rt);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_prog_build("batch", "rt_prog_batch", g_dir, sizeof(g_dir), g_so, sizeof(g_so)) != 0 ||
	    test_eal_init(argv[0], "0@0,1@(0-1),2@(0-1)") != 0)
		return 1;
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/batch.pcap", g_dir);
	CHECK(test_pcap_write(pcap, 4096, fill_pkt) == 0);
	uint32_t n = getenv("P4DP_TEST_BATCHES") ? (uint32_t)atoi(getenv("P4DP_TEST_BATCHES"))
						: 4000 / P4DP_TEST_TSAN_DIV;
	test_no_run(pcap);
	printf("(b) %u data-plane atomic batches under traffic\n", n);
	run_batches(pcap, 2, n, 1);
	run_batches(pcap, 1, n / 4, 1);
	printf("(c) the same writes without the barrier\n");
	uint64_t torn = run_batches(pcap, 2, n, 0);
	printf("  %s\n", torn > 0 ? "half-applied batches seen: the check of (b) detects them"
				  : "no half-applied batch happened to be seen this time");
	return test_finish(g_dir, n_pass, n_fail);
}

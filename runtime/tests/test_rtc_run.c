/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Background pipelines under p4dp_runtime_run (src/rtc_bg.c) with the hand-written program
 * tests/rt_prog_bg.c (built to a .so at start; run from runtime/ or set P4DP_RT_SRC): one worker
 * pushes the key of each packet of a finite input to a Queue; background pipeline `adder` pops keys (popWait) and adds
 * them to a table the worker reads, sending each added key to a ring port; `deleter` deletes one
 * key every 200 us (Sleep). Meanwhile the control thread runs data-plane atomic batches (which
 * park the background threads, also inside popWait). Checks, with both pipelines on one
 * background thread and on two: the run stops cleanly; both pipelines ran (on one thread the
 * adder's popWait gave way to the deleter); the worker never saw an entry with wrong data; every
 * add sent exactly one packet, and each packet holds its key's data; the batches all ran. Bad
 * background thread counts are refused. Under ThreadSanitizer (make tsan) nothing may be
 * reported. Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "p4dp/rtc.h"
#include "rt_internal.h" /* the program's rtc Counter, which the control API does not read */

#include "bg_test.h"
#include "check.h"

#define N_KEYS 64u
#define N_PACKETS 1024u
#define MIN_WORK (2u * N_KEYS) /* deleter iterations after the input is done */
enum { X_QUEUE, X_CHECKS };

static struct bg_test g_t;

/* Packet i: key i % N_KEYS in bytes [0..4). */
static void fill_pkt(uint8_t *pkt, uint32_t i)
{
	uint32_t k = i % N_KEYS;
	memcpy(pkt, &k, 4);
}

static uint64_t cell(struct p4dp_runtime *rt, uint32_t i)
{
	/* a relaxed load (p4dp_rtc_counter_get): a count, read during the run by the controller */
	return p4dp_rtc_counter_get(rt->ext[0][X_CHECKS], i);
}

/* Once the worker has processed the whole input (and the adder has emptied the queue, so it
 * waits in popWait from then on): the batches, then the stop once the deleter has run MIN_WORK
 * more iterations, enough to delete every key it added (each wait bounded by 20 s, which only a
 * hung run reaches: the checks then fail).
 * With both pipelines on one thread the deleter runs only because the adder's wait gives way. */
static void *controller(void *arg)
{
	struct bg_ctl *c = arg;
	for (int i = 0; i < 20000 && cell(c->rt, 0) < N_PACKETS; i++)
		usleep(1000);
	bg_ctl_batches(c, 2000);
	uint64_t runs = cell(c->rt, 2);
	for (int i = 0; i < 20000 && cell(c->rt, 2) < runs + MIN_WORK; i++)
		usleep(1000);
	bg_ctl_stop(c);
	return NULL;
}

struct outs {
	uint64_t n, bad;
};

static void out_cb(void *arg, uint32_t port, const uint8_t *data, uint32_t len)
{
	struct outs *o = arg;
	uint32_t k, v;
	o->n++;
	if (port != 1 || len != 8) {
		o->bad++;
		return;
	}
	memcpy(&k, data, 4);
	memcpy(&v, data + 4, 4);
	if (k >= N_KEYS || v != k * 3u)
		o->bad++;
}

static void run_bg(uint32_t nb)
{
	struct p4dp_runtime *rt = bg_test_runtime(&g_t, nb, 65536);
	if (rt == NULL)
		return;
	CHECK(p4dp_runtime_ring_port_add(rt, 1, 65536) == 0);
	struct p4dp_run_params bad = { .n_workers = 1, .duration_ms = 10, .n_background = 3 };
	CHECK_ERR(p4dp_runtime_run(rt, &bad), -EINVAL, "background pipelines");
	bad.n_background = nb;
	bad.n_workers = 2;
	CHECK_ERR(p4dp_runtime_run(rt, &bad), -EINVAL, "max_workers");

	struct bg_ctl c = { .rt = rt, .n_batches = 50 / P4DP_TEST_TSAN_DIV };
	bg_test_run(&c, nb, controller, &c);
	uint64_t pkts = cell(rt, 0), adds = cell(rt, 1), runs = cell(rt, 2), wrong = cell(rt, 3), dels = cell(rt, 4);
	struct outs o = { 0, 0 };
	while (p4dp_runtime_ring_port_recv(rt, 1, out_cb, &o, 0) > 0)
		;
	struct p4dp_rt_port_stats ps;
	CHECK(p4dp_runtime_port_stats_get(rt, 1, &ps) == 0);
	struct p4dp_rt_worker_stats ws[3];
	for (uint32_t i = 0; i <= nb; i++)
		CHECK(p4dp_runtime_worker_stats_get(rt, i, &ws[i]) == 0);
	printf("  loops: worker %" PRIu64 ", background %" PRIu64 " %" PRIu64 "\n", ws[0].loops, ws[1].loops, nb > 1 ? ws[2].loops : 0);
	printf("  %u background thread(s): %" PRIu64 " packets, %" PRIu64 " adds, %" PRIu64 " deletes (%" PRIu64 " deleter iterations), %" PRIu64
	       " sent (%" PRIu64 " lost), %u batches\n",
	       nb, pkts, adds, dels, runs, ps.tx_packets, ps.tx_errors, c.ok);
	/* both pipelines ran (on one thread the adder's popWait gives way to the deleter) */
	CHECK(pkts == N_PACKETS);
	CHECK(adds >= N_KEYS); /* each key's first packet adds it */
	CHECK(runs >= MIN_WORK && dels == adds); /* the deleter went on while the adder waited */
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, 0, &ts) == 0 && ts.entries == 0);
	CHECK(wrong == 0); /* the worker never saw an entry with wrong data */
	CHECK(ps.tx_packets + ps.tx_errors == adds); /* one packet per add */
	CHECK(o.n == ps.tx_packets && o.bad == 0);
	CHECK(c.ok == c.n_batches);
	p4dp_runtime_free(rt);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (bg_test_setup(&g_t, argv[0], "rtc_run", "rt_prog_bg", N_PACKETS, fill_pkt) != 0)
		return 1;
	run_bg(1);
	run_bg(2);
	return test_finish(g_t.dir, n_pass, n_fail);
}

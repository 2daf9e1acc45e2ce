/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time-sharing one background thread within long iterations (src/rtc_bg.c yield points), with
 * the hand-written program tests/rt_prog_share.c (built to a .so at start; run from runtime/ or
 * set P4DP_RT_SRC): pipeline `long` runs table sweeps over 60,000 entries and range loops over
 * 262,144 indices, one of them under a Lock; pipeline `short` never sleeps and records how far
 * the long iteration running got between two of its own iterations. With both on one thread:
 * `short` ran inside long iterations, and never more than 2,048 rows or indices apart (a yield
 * point every 1,024: a bound counted in rows, not time; with one iteration at a time it would run
 * only between them); it never ran while `long` held the Lock; every sweep visited each entry
 * exactly once. Then the control thread runs data-plane atomic batches while the iterations go
 * on (the thread parks between outermost iterations only; every batch completes). With two
 * threads both pipelines run. Under ThreadSanitizer (make tsan) nothing may be reported. Last
 * line: 'N passed, N failed'.
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
#include "p4dp/rtc.h"
#include "rt_internal.h" /* the program's rtc Counter, which the control API does not read */
#include "tsan_test.h"

#include "check.h"
#include "pcap_write.h"

#define N_ENTRIES 60000u
#define N_EACH 3u /* long iterations of each kind before the checks */
#define YIELD_ROWS 1024u
enum { X_CELLS };
enum {
	C_ENTRIES,
	C_POS,
	C_RUN,
	C_SWEEPS,
	C_RANGES,
	C_LOCKED_RANGES,
	C_SWEEP_ERR,
	C_SHORT,
	C_MID,
	C_GAP,
	C_LOCKED,
};

static char g_so[PATH_MAX], g_dir[256];
static int g_id;

static void fill_pkt(uint8_t *pkt, uint32_t i)
{
	memcpy(pkt, &i, 4);
}

static uint64_t cell(struct p4dp_runtime *rt, uint32_t i)
{
	/* a relaxed load (p4dp_rtc_counter_get): read during the run by the controller */
	return p4dp_rtc_counter_get(rt->ext[0][X_CELLS], i);
}

static int nop_batch(void *arg)
{
	(void)arg;
	return 0;
}

struct ctl {
	struct p4dp_runtime *rt;
	volatile int stop;
	uint32_t n_batches, ok;
	uint64_t mid, gap, locked, shorts; /* before the batches */
};

static bool each_done(struct p4dp_runtime *rt, uint64_t n)
{
	return cell(rt, C_SWEEPS) >= n && cell(rt, C_RANGES) >= n && cell(rt, C_LOCKED_RANGES) >= n;
}

/* N_EACH long iterations of each kind (each wait bounded by 60 s, which only a hung run
 * reaches: the checks then fail), the snapshot, then the batches during two more of each. */
static void *controller(void *arg)
{
	struct ctl *c = arg;
	for (int i = 0; i < 60000 && !each_done(c->rt, N_EACH); i++)
		usleep(1000);
	c->mid = cell(c->rt, C_MID);
	c->gap = cell(c->rt, C_GAP);
	c->locked = cell(c->rt, C_LOCKED);
	c->shorts = cell(c->rt, C_SHORT);
	for (uint32_t i = 0; i < c->n_batches; i++) {
		if (p4dp_runtime_batch_run(c->rt, nop_batch, NULL, NULL) == 0)
			c->ok++;
		usleep(1000);
	}
	for (int i = 0; i < 60000 && !each_done(c->rt, N_EACH + 2); i++)
		usleep(1000);
	/* release: pairs with the run's acquire load of the stop flag */
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void run_share(const char *pcap, uint32_t nb)
{
	struct p4dp_runtime_params pp = { .program_path = g_so, .max_workers = 1 + nb, .n_mbufs = 8192 };
	struct p4dp_runtime *rt = NULL;
	CHECK(p4dp_runtime_create(&pp, &rt) == 0);
	if (rt == NULL)
		return;
	char dev[3 * PATH_MAX];
	snprintf(dev, sizeof(dev), "net_pcap_share%d,rx_pcap=%s,tx_pcap=/dev/null", g_id++, pcap);
	CHECK(p4dp_runtime_port_add(rt, 0, dev) == 0);
	/* `big`: keys 0 .. N_ENTRIES - 1, action nop */
	uint32_t added = 0;
	for (uint32_t k = 0; k < N_ENTRIES; k++) {
		uint8_t v[4] = { (uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k };
		struct p4dp_rt_key key = { .type = P4DP_RT_KEY_EXACT, .value = v, .value_len = 4 };
		struct p4dp_rt_entry e = { .n_keys = 1, .keys = &key, .action = 0 };
		added += p4dp_runtime_table_entry_add(rt, 0, &e) == 0;
	}
	CHECK(added == N_ENTRIES);
	p4dp_rtc_counter_set(rt->ext[0][X_CELLS], C_ENTRIES, N_ENTRIES);

	struct ctl c = { .rt = rt, .n_batches = 20 / P4DP_TEST_TSAN_DIV };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, controller, &c) == 0);
	/* the duration only bounds a hung test: the controller stops the run */
	struct p4dp_run_params rp = { .n_workers = 1, .stop = (volatile int *)&c.stop, .duration_ms = 600000,
				      .n_background = nb };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	pthread_join(th, NULL);
	printf("  %u background thread(s): %" PRIu64 " sweeps, %" PRIu64 " range loops, %" PRIu64
	       " under the Lock; short: %" PRIu64 " iterations, %" PRIu64 " inside long ones, at most %" PRIu64
	       " rows/indices apart, %" PRIu64 " saw the Lock held; %u batches\n",
	       nb, cell(rt, C_SWEEPS), cell(rt, C_RANGES), cell(rt, C_LOCKED_RANGES), c.shorts, c.mid, c.gap,
	       c.locked, c.ok);
	CHECK(each_done(rt, N_EACH + 2));
	CHECK(cell(rt, C_SWEEP_ERR) == 0); /* every sweep: each entry exactly once */
	CHECK(c.ok == c.n_batches);        /* batches complete while long iterations run */
	if (nb == 1) {
		/* short ran within long iterations, at most two yield intervals apart (the first
		 * yield comes after one interval; one more may pass while the other is due) */
		CHECK(c.mid >= N_EACH * (N_ENTRIES / YIELD_ROWS / 2));
		CHECK(c.gap != 0 && c.gap <= 2u * YIELD_ROWS);
		/* ... but not while long held the Lock */
		CHECK(c.locked == 0);
	} else {
		CHECK(c.shorts > 0);
	}
	p4dp_runtime_free(rt);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_prog_build("rtc_share", "rt_prog_share", g_dir, sizeof(g_dir), g_so, sizeof(g_so)) != 0 ||
	    test_eal_init(argv[0], "0@0,1@(0-1),2@(0-1),3@(0-1)") != 0)
		return 1;
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/pkts.pcap", g_dir);
	CHECK(test_pcap_write(pcap, 64, fill_pkt) == 0);
	run_share(pcap, 1);
	run_share(pcap, 2);
	return test_finish(g_dir, n_pass, n_fail);
}

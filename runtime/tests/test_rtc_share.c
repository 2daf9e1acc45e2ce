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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "p4dp/rtc.h"
#include "rt_internal.h" /* the program's rtc Counter, which the control API does not read */

#include "bg_test.h"
#include "check.h"

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

static struct bg_test g_t;

static void fill_pkt(uint8_t *pkt, uint32_t i)
{
	memcpy(pkt, &i, 4);
}

static uint64_t cell(struct p4dp_runtime *rt, uint32_t i)
{
	/* a relaxed load (p4dp_rtc_counter_get): read during the run by the controller */
	return p4dp_rtc_counter_get(rt->ext[0][X_CELLS], i);
}

struct ctl {
	struct bg_ctl bg;
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
	struct p4dp_runtime *rt = c->bg.rt;
	for (int i = 0; i < 60000 && !each_done(rt, N_EACH); i++)
		usleep(1000);
	c->mid = cell(rt, C_MID);
	c->gap = cell(rt, C_GAP);
	c->locked = cell(rt, C_LOCKED);
	c->shorts = cell(rt, C_SHORT);
	bg_ctl_batches(&c->bg, 1000);
	for (int i = 0; i < 60000 && !each_done(rt, N_EACH + 2); i++)
		usleep(1000);
	bg_ctl_stop(&c->bg);
	return NULL;
}

static void run_share(uint32_t nb)
{
	struct p4dp_runtime *rt = bg_test_runtime(&g_t, nb, 8192);
	if (rt == NULL)
		return;
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

	struct ctl c = { .bg = { .rt = rt, .n_batches = 20 / P4DP_TEST_TSAN_DIV } };
	bg_test_run(&c.bg, nb, controller, &c);
	printf("  %u background thread(s): %" PRIu64 " sweeps, %" PRIu64 " range loops, %" PRIu64
	       " under the Lock; short: %" PRIu64 " iterations, %" PRIu64 " inside long ones, at most %" PRIu64
	       " rows/indices apart, %" PRIu64 " saw the Lock held; %u batches\n",
	       nb, cell(rt, C_SWEEPS), cell(rt, C_RANGES), cell(rt, C_LOCKED_RANGES), c.shorts, c.mid, c.gap,
	       c.locked, c.bg.ok);
	CHECK(each_done(rt, N_EACH + 2));
	CHECK(cell(rt, C_SWEEP_ERR) == 0);     /* every sweep: each entry exactly once */
	CHECK(c.bg.ok == c.bg.n_batches);      /* batches complete while long iterations run */
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
	if (bg_test_setup(&g_t, argv[0], "rtc_share", "rt_prog_share", 64, fill_pkt) != 0)
		return 1;
	run_share(1);
	run_share(2);
	return test_finish(g_t.dir, n_pass, n_fail);
}

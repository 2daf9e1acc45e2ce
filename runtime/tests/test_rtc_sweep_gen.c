/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Foreach sweep in generated code, under concurrent inserts and deletes: the program
 * tests/rtc_sweep_gen.p4 is compiled by p4dp (`p4dp build`, $P4DP_BIN, default
 * ../target/dist/p4dp from runtime/, what `make build` makes) with the test's flags
 * (P4DP_CFLAGS: -fsanitize=thread under make tsan, so the generated loop and loop body are
 * instrumented like the runtime), then
 * run with one worker and two background threads: the worker adds churning keys from the packets
 * of a pcap file replayed without end (TableOperation.entryAdd, when the key is not in the table),
 * background pipeline Churner deletes them (entryDel), and Sweeper sweeps the table without pause
 * (Foreach). Checks (docs/rtc.md, Guarantees): every stable key (installed before the run, never
 * deleted) was visited exactly once per sweep; no churning entry (a key at one row) was visited
 * twice in one sweep; every visited entry had its own data; adds and deletes ran while the sweeps
 * did. Under
 * ThreadSanitizer nothing may be reported (a visit of freed memory would be a race with the free).
 * Last line: 'N passed, N failed'.
 *
 * No check depends on how the threads are scheduled: the input never ends, so the worker keeps
 * adding for as long as the controller waits for the packets, sweeps and deletes it needs (each
 * wait bounded by a timeout only a hung run reaches).
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

#include "bg_test.h"
#include "check.h"
#include "pcap_write.h"

/* as in rtc_sweep_gen.p4 */
#define STABLE 256u
#define CHURN 256u
#define MAGIC 0x5a5a0000u
enum { C_SWEEPS, C_WRONG, C_DOUBLE, C_ADDS, C_DELS, C_PACKETS, C_VISITED };

/* the packets of the input file (replayed without end: each churning key 4 times per pass), and
 * the packets and sweeps the controller waits for before it stops the run */
#define FILE_PACKETS (4u * CHURN)
#define N_PACKETS (32768u / P4DP_TEST_TSAN_DIV)
#define MIN_SWEEPS (400u / P4DP_TEST_TSAN_DIV)

/* The program's compiler flags: the test's (tsan_test.h), so that under make tsan the generated
 * code is instrumented. Under make asan / make ubsan it is built without them: p4dp loads the
 * program it builds to check it, and a process that is not itself built with ASan cannot load an
 * ASan-instrumented library (the runtime and the test around the program still are). */
#if defined(P4DP_TEST_SANITIZED) && !defined(__SANITIZE_THREAD__)
#define SWEEP_PROG_CFLAGS "-O2"
#else
#define SWEEP_PROG_CFLAGS P4DP_TEST_PROG_CFLAGS
#endif

static char g_so[PATH_MAX], g_dir[256];

/* Compile tests/rtc_sweep_gen.p4 with p4dp into g_dir; 0 or -1 after saying why. */
static int build_program(void)
{
	const char *src = getenv("P4DP_RT_SRC") ? getenv("P4DP_RT_SRC") : ".";
	char bin[PATH_MAX];
	if (getenv("P4DP_BIN"))
		snprintf(bin, sizeof(bin), "%s", getenv("P4DP_BIN"));
	else
		snprintf(bin, sizeof(bin), "%s/../target/dist/p4dp", src);
	if (access(bin, X_OK) != 0) {
		fprintf(stderr, "no p4dp binary at %s: build it first (make build) or set P4DP_BIN\n", bin);
		printf("0 passed, 1 failed\n");
		return -1;
	}
	char cmd[4 * PATH_MAX];
	snprintf(g_dir, sizeof(g_dir), "/tmp/p4dp_rtc_sweep_gen_%d", (int)getpid());
	snprintf(g_so, sizeof(g_so), "%s/rtc_sweep_gen.so", g_dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && P4DP_CFLAGS='" SWEEP_PROG_CFLAGS "' %s build %s/tests/rtc_sweep_gen.p4 -o %s >%s/build.log 2>&1",
		 g_dir, bin, src, g_dir, g_dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s/build.log >&2", g_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "(no build log)\n");
		fprintf(stderr, "cannot build tests/rtc_sweep_gen.p4 with %s\n", bin);
		printf("0 passed, 1 failed\n");
		return -1;
	}
	return 0;
}

static uint32_t g_stats, g_visits;

static uint64_t cell(struct p4dp_runtime *rt, uint32_t ext, uint32_t i)
{
	uint64_t v = 0;
	if (p4dp_runtime_rtc_counter_get(rt, ext, i, &v) != 0)
		return UINT64_MAX;
	return v;
}

static void be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

/* The worker's input, packet i: churning key STABLE + i % CHURN in bytes [0..4). */
static void fill_pkt(uint8_t *pkt, uint32_t i) { be32(pkt, STABLE + i % CHURN); }

struct ctl {
	struct bg_ctl bg;
	/* packets and completed sweeps when the worker had a quarter of N_PACKETS, and when the
	 * controller stopped the run */
	uint64_t packets_quarter, sweeps_quarter, packets_stop, sweeps_stop;
};

/* Whether the run has what the checks need: N_PACKETS packets, MIN_SWEEPS sweeps, a delete of
 * every churning key, and since a quarter of the packets two more sweeps and more packets. The
 * last is waited for, not assumed: the controller may note the quarter mark late (when the worker
 * already has N_PACKETS and the sweeps are past MIN_SWEEPS), and then the other conditions can
 * come true within a few sweeps, tens of microseconds, while the worker thread is runnable but
 * not running (time-shared with the background threads and the machine's other load). */
static int enough(const struct ctl *c)
{
	const uint64_t sweeps = cell(c->bg.rt, g_stats, C_SWEEPS), packets = cell(c->bg.rt, g_stats, C_PACKETS);
	return packets >= N_PACKETS && packets > c->packets_quarter && sweeps >= MIN_SWEEPS &&
	       sweeps >= c->sweeps_quarter + 2 && cell(c->bg.rt, g_stats, C_DELS) >= CHURN;
}

/* Wait for a quarter of N_PACKETS (noting packets and sweeps then), then for enough(), then stop
 * the run, noting packets and sweeps again: both advanced in between, so sweeps completed while
 * the worker added. Each wait is bounded by 120 s, which only a hung run reaches (a worker that
 * stopped receiving, e.g. for want of mbufs, or that is stuck: its checks then fail). */
static void *controller(void *arg)
{
	struct ctl *c = arg;
	struct p4dp_runtime *rt = c->bg.rt;
	int i = 0;
	for (; i < 120000 && cell(rt, g_stats, C_PACKETS) < N_PACKETS / 4; i++)
		usleep(1000);
	c->packets_quarter = cell(rt, g_stats, C_PACKETS);
	c->sweeps_quarter = cell(rt, g_stats, C_SWEEPS);
	for (; i < 120000 && !enough(c); i++)
		usleep(1000);
	c->packets_stop = cell(rt, g_stats, C_PACKETS);
	c->sweeps_stop = cell(rt, g_stats, C_SWEEPS);
	bg_ctl_stop(&c->bg);
	return NULL;
}

static int find_action(struct p4dp_runtime *rt, const char *name, uint32_t *a)
{
	const struct p4dp_program *p = p4dp_runtime_program_get(rt);
	for (uint32_t i = 0; i < p->n_actions; i++)
		if (strcmp(p->actions[i].name, name) == 0) {
			*a = i;
			return 0;
		}
	return -ENOENT;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (build_program() != 0 || test_eal_init(argv[0], BG_TEST_LCORES) != 0)
		return 1;
	struct p4dp_runtime_params pp = { .program_path = g_so, .max_workers = 3, .n_mbufs = 8192 };
	struct p4dp_runtime *rt = NULL;
	CHECK(p4dp_runtime_create(&pp, &rt) == 0);
	if (rt == NULL)
		return test_finish(g_dir, n_pass, n_fail);
	uint32_t table = 0, set = 0, seen = 0;
	CHECK(p4dp_runtime_table_find(rt, "Fg.flows", &table) == 0);
	CHECK(find_action(rt, "Fg.set", &set) == 0);
	CHECK(p4dp_runtime_extern_find(rt, "stats", &g_stats) == 0);
	CHECK(p4dp_runtime_extern_find(rt, "visits", &g_visits) == 0);
	CHECK(p4dp_runtime_extern_find(rt, "seen", &seen) == 0);
	/* the stable keys, data key ^ MAGIC as the workers' adds */
	uint32_t installed = 0;
	for (uint32_t k = 0; k < STABLE; k++) {
		uint8_t kb[4], vb[4];
		be32(kb, k);
		be32(vb, k ^ MAGIC);
		struct p4dp_rt_key key = { .type = P4DP_RT_KEY_EXACT, .value = kb, .value_len = 4 };
		struct p4dp_rt_param prm = { .value = vb, .len = 4 };
		struct p4dp_rt_entry e = { .n_keys = 1, .keys = &key, .action = set, .n_params = 1, .params = &prm };
		installed += p4dp_runtime_table_entry_add(rt, table, &e) == 0;
	}
	CHECK(installed == STABLE);
	char pcap[PATH_MAX + 32], dev[3 * PATH_MAX];
	snprintf(pcap, sizeof(pcap), "%s/keys.pcap", g_dir);
	CHECK(test_pcap_write(pcap, FILE_PACKETS, fill_pkt) == 0);
	snprintf(dev, sizeof(dev), "net_pcap_sweep,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1", pcap);
	CHECK(p4dp_runtime_port_add(rt, 0, dev) == 0);

	struct ctl c = { .bg = { .rt = rt } };
	/* one background thread per pipeline: Churner and Sweeper run at the same time as the worker */
	bg_test_run(&c.bg, 2, controller, &c);

	const uint64_t sweeps = cell(rt, g_stats, C_SWEEPS), adds = cell(rt, g_stats, C_ADDS);
	const uint64_t dels = cell(rt, g_stats, C_DELS), visited = cell(rt, g_stats, C_VISITED);
	uint32_t not_once = 0;
	for (uint32_t k = 0; k < STABLE; k++)
		if (cell(rt, g_visits, k) != sweeps) {
			if (not_once++ < 4)
				fprintf(stderr, "stable key %u: %" PRIu64 " visits in %" PRIu64 " sweeps\n", k,
					cell(rt, g_visits, k), sweeps);
		}
	printf("  %" PRIu64 " sweeps (%" PRIu64 " -> %" PRIu64 " while the packets went %" PRIu64 " -> %" PRIu64
	       "; %" PRIu64 " entries visited), %" PRIu64 " packets, %" PRIu64 " adds, %" PRIu64 " deletes\n",
	       sweeps, c.sweeps_quarter, c.sweeps_stop, c.packets_quarter, c.packets_stop, visited,
	       cell(rt, g_stats, C_PACKETS), adds, dels);
	CHECK(sweeps >= MIN_SWEEPS);
	CHECK(cell(rt, g_stats, C_PACKETS) >= N_PACKETS);
	/* the table changed while it was swept: adds and deletes of every churning key, and sweeps
	 * completed while the worker processed packets (and added the keys Churner had deleted) */
	CHECK(adds >= CHURN && dels >= CHURN);
	CHECK(c.sweeps_stop >= c.sweeps_quarter + 2 && c.packets_stop > c.packets_quarter);
	CHECK(not_once == 0);                           /* every stable key exactly once per sweep */
	CHECK(cell(rt, g_stats, C_DOUBLE) == 0);         /* no churning entry twice in one sweep */
	CHECK(cell(rt, g_stats, C_WRONG) == 0);          /* every visited entry had its own data */
	CHECK(visited >= sweeps * STABLE);
	/* what is left: the stable keys and the churning keys added since their last delete */
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, table, &ts) == 0 && ts.entries >= STABLE &&
	      ts.entries <= STABLE + CHURN);
	p4dp_runtime_free(rt);
	return test_finish(g_dir, n_pass, n_fail);
}

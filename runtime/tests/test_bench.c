/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the built-in benchmark (bench.h) with hand-written programs implementing abi.h.
 *
 * This file is two things: compiled normally it is the test; compiled with -DTEST_BENCH_PROGRAM=<n>
 * -shared it is program n (the test compiles its own source that way, so it must run from the
 * runtime directory, as `make test` does, or get the source path in P4DP_TEST_BENCH_SRC):
 *   1 minimal: parse Ethernet, out port 0, deparse Ethernet;
 *   2 l3: Ethernet + IPv4, table ingress.l3 (exact on the 32-bit IPv4 destination) with actions
 *     set_port(9-bit port) / drop (default drop), deparse both headers;
 *   3 dropper: drops every packet.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"

#ifdef TEST_BENCH_PROGRAM

enum { A_SET_PORT, A_DROP };
static const struct p4dp_param_info p_set_port[] = {{"port", 1, 9, 0, 2}};
static const struct p4dp_action_info actions[] = {
	{"ingress.set_port", 1001, 1, p_set_port, 2},
	{"ingress.drop", 1002, 0, NULL, 0},
};
#if TEST_BENCH_PROGRAM == 2
static const struct p4dp_key_info k_l3[] = {{"hdr.ipv4.dstAddr", 1, P4DP_MATCH_EXACT, 0, 4, 32}};
static const uint32_t a_l3[] = {A_SET_PORT, A_DROP};
static const struct p4dp_table_info tables[] = {
	{"ingress.l3", 2001, 0, 4, 1, k_l3, 2, a_l3, NULL, A_DROP, NULL, 0, NULL, 1u << 16, 2, -1, -1, 0},
};
#define N_TABLES 1
#else
static const struct p4dp_table_info *const tables = NULL;
#define N_TABLES 0
#endif

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	uint8_t *emit = ctx->emit_buf;
	const uint8_t *d = pkt->data;
#if TEST_BENCH_PROGRAM == 3
	(void)emit;
	(void)d;
	pkt->out_port = P4DP_PORT_DROP;
#elif TEST_BENCH_PROGRAM == 1
	if (pkt->len < 14) {
		pkt->out_port = P4DP_PORT_DROP;
		return;
	}
	memcpy(emit, d, 14);
	pkt->out_port = 0;
	p4dp_pkt_finish(pkt, emit, 14, 14, 0);
#else
	if (pkt->len < 34 || d[12] != 0x08 || d[13] != 0x00) {
		pkt->out_port = P4DP_PORT_DROP;
		return;
	}
	uint32_t be, key;
	memcpy(&be, d + 30, 4);
	key = __builtin_bswap32(be);
	int hit;
	const struct p4dp_entry *e = p4dp_table_apply(ctx, 0, &key, &hit);
	p4dp_table_count(ctx, 0, hit);
	if (e->action == A_SET_PORT) {
		uint16_t port;
		memcpy(&port, e->data, 2);
		pkt->out_port = port & 0x1ff;
	} else {
		pkt->out_port = P4DP_PORT_DROP;
	}
	memcpy(emit, d, 34);
	p4dp_pkt_finish(pkt, emit, 34, 34, 0);
#endif
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "bench_test",
	.arch = "v1model",
	.n_tables = N_TABLES,
	.tables = tables,
	.n_actions = 2,
	.actions = actions,
	.n_externs = 0,
	.externs = NULL,
	.n_errors = 0,
	.errors = NULL,
	.process = process,
};

#else /* the test */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "p4dp/bench.h"
#include "p4dp/bench_dp.h"
#include "p4dp/rt.h"
#include <time.h>
#include "tsan_test.h"

enum { A_SET_PORT_IDX = 0 }; /* action index of set_port in program 2 */

static int passed, failed;

#define CHECK(cond, ...)                                                                                    \
	do {                                                                                                \
		if (cond) {                                                                                 \
			passed++;                                                                           \
		} else {                                                                                    \
			failed++;                                                                           \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
			printf(__VA_ARGS__);                                                                \
			printf(" [%s]\n", p4dp_runtime_error_get(NULL));                                   \
		}                                                                                           \
	} while (0)

static char so_path[3][256];

static int build_programs(void)
{
	const char *src = getenv("P4DP_TEST_BENCH_SRC");
	if (src == NULL)
		src = __FILE__;
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	for (int i = 0; i < 3; i++) {
		snprintf(so_path[i], sizeof(so_path[i]), "/tmp/p4dp_test_bench_%d_%d.so", (int)getpid(), i + 1);
		char cmd[1024];
		snprintf(cmd, sizeof(cmd), "%s " P4DP_TEST_PROG_CFLAGS " -Wall -Wextra -Werror -shared -fPIC -Iinclude -DTEST_BENCH_PROGRAM=%d %s -o %s",
			 cc, i + 1, src, so_path[i]);
		if (system(cmd) != 0) {
			printf("FAIL: cannot build test program: %s\n", cmd);
			return -1;
		}
	}
	return 0;
}

/* A 60-byte Ethernet/IPv4/UDP frame (64 bytes on the wire with the FCS). */
static void make_template(uint8_t *t)
{
	static const uint8_t hdr[42] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00, /* Ethernet */
		0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 10, 1, 0, 1, 10, 0, 0, 0, /* IPv4 */
		0x04, 0xd2, 0x16, 0x2e, 0, 26, 0, 0, /* UDP */
	};
	memset(t, 0, 60);
	memcpy(t, hdr, sizeof(hdr));
}

static struct p4dp_bench_params base_params(uint8_t *tmpl, uint32_t n_pkts, uint32_t n_keys)
{
	struct p4dp_bench_params p = {
		.n_workers = 1,
		.n_pkts = n_pkts,
		.tmpl = tmpl,
		.tmpl_len = 60,
		.key_offset = 30,
		.key_bytes = n_keys ? 4 : 0,
		.key_base = 0x0a000000u,
		.n_keys = n_keys,
		.seed = 1,
		.warmup_ms = 50,
		.duration_ms = 200,
	};
#if defined(__SANITIZE_THREAD__) || defined(P4DP_TEST_SANITIZED)
	/* Sanitizers (ThreadSanitizer most): starting the ports and the run takes far longer than 50 ms, and every
	 * packet costs 10-50x more; the figures are meaningless, the windows must still see packets. */
	p.warmup_ms = 1000;
	p.duration_ms = 400;
#endif
	return p;
}

static void print_res(const char *what, const struct p4dp_bench_result *r)
{
	printf("  %-22s %8.2f Mpps %8.1f cycles/pkt (%" PRIu64 " pkts, hits %" PRIu64 " misses %" PRIu64 ")\n", what,
	       r->mpps, r->cycles_per_pkt, r->packets, r->hits, r->misses);
}

static void test_minimal(uint8_t *tmpl)
{
	struct p4dp_runtime_params rp = {.program_path = so_path[0], .max_workers = 1};
	struct p4dp_runtime *rt = NULL;
	int rc = p4dp_runtime_create(&rp, &rt);
	CHECK(rc == 0, "create minimal: %d", rc);
	if (rc != 0)
		return;
	struct p4dp_bench_params p = base_params(tmpl, 4096, 0);
	struct p4dp_bench *b = NULL;
	rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create: %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result fl, pr, again;
		rc = p4dp_bench_measure(b, P4DP_BENCH_FLOOR, 0, &fl);
		CHECK(rc == 0 && fl.packets > 0 && fl.lost == 0, "floor: %d", rc);
		CHECK(fl.tsc_hz > 0 && fl.window_cycles > fl.tsc_hz / 10, "window %" PRIu64 " cycles", fl.window_cycles);
		print_res("minimal floor", &fl);
		struct p4dp_bench_result l2;
		rc = p4dp_bench_measure(b, P4DP_BENCH_L2FWD, 0, &l2);
		CHECK(rc == 0 && l2.packets > 0 && l2.lost == 0, "l2fwd floor: %d lost %" PRIu64, rc, l2.lost);
		print_res("minimal l2fwd floor", &l2);
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		CHECK(rc == 0 && pr.packets > 0 && pr.lost == 0, "program: %d lost %" PRIu64, rc, pr.lost);
		print_res("minimal program", &pr);
		/* The program's loop does strictly more work than the floor's. */
		CHECK(pr.cycles_per_pkt > fl.cycles_per_pkt, "program %.1f <= floor %.1f cycles", pr.cycles_per_pkt,
		      fl.cycles_per_pkt);
		/* Per-worker figures add up. */
		CHECK(pr.w[0].packets == pr.packets, "worker 0 packets");
		/* The bench is reusable: the floor again after a program run. */
		rc = p4dp_bench_measure(b, P4DP_BENCH_FLOOR, 0, &again);
		CHECK(rc == 0 && again.packets > 0, "floor again: %d", rc);
		/* The runtime saw the program's packets on port 0 and no drops. */
		struct p4dp_rt_stats st;
		CHECK(p4dp_runtime_stats_get(rt, &st) == 0 && st.drops == 0 && st.packets >= pr.packets, "stats");
		/* No table: the table baseline is refused with a message. */
		rc = p4dp_bench_measure(b, P4DP_BENCH_TABLE, 0, &again);
		CHECK(rc == -EINVAL, "table baseline without table: %d", rc);
		p4dp_bench_free(b);
	}
	/* The bench detached its ports: the runtime has none now. */
	struct p4dp_rt_port_stats ps;
	CHECK(p4dp_runtime_port_stats_get(rt, 0, &ps) == -ENOENT, "port 0 still attached");
	p4dp_runtime_free(rt);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The program's warm-up starts when the run's workers have started, not when the run was called:
 * a fresh runtime's first run creates its mbuf pool (32768 mbufs of 4 KiB on 4 KiB pages) and
 * starts the ports first, which takes far longer than this 1 ms warm-up (0.1-0.25 s here). So the
 * worker has processed packets (its first burst at least) before the window starts; counted from
 * the call, the window would start before the worker ran. */
/* A runtime of the minimal program with @p n_mbufs and a bench over 4096 packets with @p warmup_ms
 * and @p duration_ms; false (checks failed) if either cannot be created. */
static bool minimal_bench(uint8_t *tmpl, uint32_t n_mbufs, uint64_t warmup_ms, uint64_t duration_ms,
			  struct p4dp_runtime **rt, struct p4dp_bench **b)
{
	struct p4dp_runtime_params rp = {.program_path = so_path[0], .max_workers = 1, .n_mbufs = n_mbufs};
	*rt = NULL;
	*b = NULL;
	int rc = p4dp_runtime_create(&rp, rt);
	CHECK(rc == 0, "create: %d", rc);
	if (rc != 0)
		return false;
	struct p4dp_bench_params p = base_params(tmpl, 4096, 0);
	p.warmup_ms = warmup_ms;
	p.duration_ms = duration_ms;
	rc = p4dp_bench_create(*rt, &p, b);
	CHECK(rc == 0, "bench create: %d", rc);
	return rc == 0;
}

static void test_window_after_start(uint8_t *tmpl)
{
	struct p4dp_runtime *rt;
	struct p4dp_bench *b;
	if (minimal_bench(tmpl, 1u << 15, 1, 200, &rt, &b)) {
		struct p4dp_bench_result pr;
		double t0 = mono_s();
		int rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		double el = mono_s() - t0;
		CHECK(rc == 0 && pr.packets > 0 && pr.lost == 0, "first program run, 1 ms warm-up: %d, %" PRIu64 " packets",
		      rc, pr.packets);
		CHECK(pr.packets_before_window >= 32, "the worker ran before the window: %" PRIu64 " packets",
		      pr.packets_before_window);
		printf("  first program run (pool creation, port start): %.3f s for a 200 ms window\n", el);
	}
	p4dp_bench_free(b);
	p4dp_runtime_free(rt);
}

/* The tap (bench_dp.h) with a limited schedule on the minimal program: the phases hand out
 * exactly their packets, the source then goes idle (p4dp_bdp_done), and with p4dp_bench_set_done
 * the window (60 s) ends as soon as that happens. Without the hook the call would take the
 * whole window: the elapsed-time bound is 30x what the schedule needs, so it holds on any
 * machine that can run the test at all. */
static void test_tap_done(uint8_t *tmpl)
{
	struct p4dp_runtime *rt;
	struct p4dp_bench *b;
	int rc = minimal_bench(tmpl, 0, 0, 60000, &rt, &b) ? 0 : -1;
	if (rt == NULL)
		return;
	struct p4dp_bdp *t = NULL;
	struct p4dp_bdp_params tp = {.key_offset = 30, .key_bytes = 4, .key_base = 0x0a000000u, .n_keys = 16,
				     .seed = 1, .batch = 32, .n_phases = 2};
	tp.phase[0] = (struct p4dp_bdp_phase){.packets = 20000, .keys = P4DP_BDP_KEYS_NEW};
	tp.phase[1] = (struct p4dp_bdp_phase){.packets = 30000, .keys = P4DP_BDP_KEYS_RANDOM};
	if (rc == 0) {
		rc = p4dp_bdp_attach(1, 0, &tp, &t);
		CHECK(rc == 0, "tap attach: %d", rc);
	}
	if (rc == 0) {
		CHECK(p4dp_bdp_done(t) == 0, "done before the run");
		p4dp_bench_set_done(b, p4dp_bdp_done, t);
		struct p4dp_bench_result pr;
		double t0 = mono_s();
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		double el = mono_s() - t0;
		CHECK(rc == 0, "program: %d", rc);
		struct p4dp_bdp_result r;
		CHECK(p4dp_bdp_result(t, &r) == 0 && r.done == 1, "schedule done");
		CHECK(r.ph[0].packets == 20000 && r.ph[0].fresh == 20000 && r.ph[1].packets == 30000 &&
			  r.ph[1].fresh == 0 && r.handed == 50000,
		      "phases %" PRIu64 "/%" PRIu64 " %" PRIu64 "/%" PRIu64 " handed %" PRIu64, r.ph[0].packets,
		      r.ph[0].fresh, r.ph[1].packets, r.ph[1].fresh, r.handed);
		CHECK(p4dp_bdp_done(t) == 1, "done after the run");
		CHECK(el < 30.0, "the 60 s window ended early: %.1f s", el);
		printf("  tap schedule of 50000 packets: window closed after %.2f s\n", el);
		p4dp_bench_set_done(b, NULL, NULL);
		p4dp_bdp_detach(t);
	}
	p4dp_bench_free(b);
	p4dp_runtime_free(rt);
}

static void test_l3(uint8_t *tmpl)
{
	struct p4dp_runtime_params rp = {.program_path = so_path[1], .max_workers = 1};
	struct p4dp_runtime *rt = NULL;
	int rc = p4dp_runtime_create(&rp, &rt);
	CHECK(rc == 0, "create l3: %d", rc);
	if (rc != 0)
		return;
	uint32_t t;
	CHECK(p4dp_runtime_table_find(rt, "ingress.l3", &t) == 0, "table_find");
	/* TSan: fewer keys, so that the slowed-down program still finishes a lap in the window */
	const uint32_t n = (1u << 16) / (P4DP_TEST_TSAN_DIV * P4DP_TEST_TSAN_DIV);
	uint8_t port0[2] = {0, 0};
	struct p4dp_rt_param prm = {port0, 2};
	int64_t k = p4dp_bench_table_fill(rt, t, 0x0a000000u, n, A_SET_PORT_IDX, 1, &prm);
	CHECK(k == (int64_t)n, "fill: %" PRId64, k);
	/* A second fill of the same keys fails with -EEXIST; keys beyond the width are refused. */
	CHECK(p4dp_bench_table_fill(rt, t, 0x0a000000u, 1, A_SET_PORT_IDX, 1, &prm) == -EEXIST, "refill");
	CHECK(p4dp_bench_table_fill(rt, t, 0xffffffffu, 2, A_SET_PORT_IDX, 1, &prm) == -EINVAL, "overflow");

	struct p4dp_bench_params p = base_params(tmpl, n, n);
	struct p4dp_bench *b = NULL;
	rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create: %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result fl, tb, pr;
		rc = p4dp_bench_measure(b, P4DP_BENCH_FLOOR, 0, &fl);
		CHECK(rc == 0, "floor: %d", rc);
		print_res("l3 floor", &fl);
		rc = p4dp_bench_measure(b, P4DP_BENCH_TABLE, t, &tb);
		CHECK(rc == 0 && tb.packets > 0, "table: %d", rc);
		/* Every packet carries an installed key: the lookups all hit. */
		CHECK(tb.misses == 0 && tb.hits > 0, "hits %" PRIu64 " misses %" PRIu64, tb.hits, tb.misses);
		CHECK(tb.hits + tb.misses >= tb.packets - 32 && tb.hits + tb.misses <= tb.packets + 32,
		      "lookups %" PRIu64 " vs packets %" PRIu64, tb.hits + tb.misses, tb.packets);
		print_res("l3 table baseline", &tb);
		struct p4dp_bench_result sg;
		rc = p4dp_bench_measure(b, P4DP_BENCH_TABLE_SINGLE, t, &sg);
		CHECK(rc == 0 && sg.packets > 0 && sg.misses == 0 && sg.hits > 0, "single: %d misses %" PRIu64, rc,
		      sg.misses);
		print_res("l3 single lookups", &sg);
		struct p4dp_rt_table_stats ts0, ts1;
		p4dp_runtime_table_stats_get(rt, t, &ts0);
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		CHECK(rc == 0 && pr.packets > 0, "program: %d", rc);
		print_res("l3 program", &pr);
		/* Same packets: the program's packets cover at least one full lap (every key). On a
		 * loaded machine one window may be too short for that: further windows are added (at
		 * most 20), and the hit and lap checks apply to all of them. */
		uint64_t prog_pkts = pr.packets;
		for (int extra = 0; rc == 0 && prog_pkts < n && extra < 20; extra++) {
			struct p4dp_bench_result more;
			rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &more);
			CHECK(rc == 0, "program, window %d: %d", extra + 2, rc);
			prog_pkts += rc == 0 ? more.packets : 0;
		}
		p4dp_runtime_table_stats_get(rt, t, &ts1);
		CHECK(ts1.misses == ts0.misses && ts1.hits > ts0.hits + prog_pkts - 1, "program hits %" PRIu64
		      " misses %" PRIu64, ts1.hits - ts0.hits, ts1.misses - ts0.misses);
		CHECK(prog_pkts >= n, "program did not finish one lap: %" PRIu64, prog_pkts);
		p4dp_bench_free(b);
	}
	/* Keys outside the table: the baseline reports misses, the program drops -> -EIO, lost > 0. */
	p = base_params(tmpl, 1024, 1024);
	p.key_base = 0x0b000000u;
	rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create 2: %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result tb, pr;
		rc = p4dp_bench_measure(b, P4DP_BENCH_TABLE, t, &tb);
		CHECK(rc == 0 && tb.hits == 0 && tb.misses > 0, "misses: %d %" PRIu64, rc, tb.misses);
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		CHECK(rc == -EIO && pr.lost == 1024, "dropping program: %d lost %" PRIu64, rc, pr.lost);
		rc = p4dp_bench_measure(b, P4DP_BENCH_FLOOR, 0, &pr);
		CHECK(rc == -EIO, "broken bench must refuse: %d", rc);
		p4dp_bench_free(b);
	}
	/* Key width mismatch between packets and table. */
	p = base_params(tmpl, 1024, 1024);
	p.key_bytes = 2;
	p.key_base = 0;
	rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create 3: %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result tb;
		rc = p4dp_bench_measure(b, P4DP_BENCH_TABLE, t, &tb);
		CHECK(rc == -EINVAL, "key width mismatch: %d", rc);
		CHECK(p4dp_bench_measure(b, P4DP_BENCH_TABLE, 7, &tb) == -EINVAL, "bad table index");
		p4dp_bench_free(b);
	}
	p4dp_runtime_free(rt);
}

static void test_params(uint8_t *tmpl)
{
	struct p4dp_runtime_params rp = {.program_path = so_path[0], .max_workers = 1};
	struct p4dp_runtime *rt = NULL;
	if (p4dp_runtime_create(&rp, &rt) != 0) {
		CHECK(0, "create");
		return;
	}
	struct p4dp_bench *b = NULL;
	struct p4dp_bench_params p = base_params(tmpl, 4096, 0);
	p.n_workers = 2; /* max_workers is 1 */
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "workers > max_workers");
	p = base_params(tmpl, 16, 0);
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "too few packets");
	p = base_params(tmpl, 4096, 16);
	p.key_offset = 58;
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "key outside packet");
	p = base_params(tmpl, 4096, 16);
	p.key_bytes = 1;
	p.key_base = 250;
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "keys beyond key width");
	p = base_params(tmpl, 4096, 0);
	p.tmpl_len = 10;
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "short template");
	p = base_params(tmpl, 4096, 0);
	p.duration_ms = 0;
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "zero duration");
	/* A runtime that already has a port is refused. */
	CHECK(p4dp_runtime_port_add(rt, 0, "net_null_tb0") == 0, "add_port: %s", p4dp_runtime_error_get(NULL));
	p = base_params(tmpl, 4096, 0);
	CHECK(p4dp_bench_create(rt, &p, &b) == -EBUSY, "runtime with ports");
	p4dp_runtime_free(rt);
}

/* Two workers: the runtime uses software dispatch (ring ports have one rx queue), so about half
 * the packets cross to the other worker and land in the other worker's ring: nothing may be lost,
 * not even while one ring holds (almost) every packet. With dispatch NONE each worker processes
 * what it polls: nothing crosses. */
static void test_two_workers(uint8_t *tmpl)
{
	struct p4dp_runtime_params rp = {.program_path = so_path[0], .max_workers = 2};
	struct p4dp_runtime *rt = NULL;
	if (p4dp_runtime_create(&rp, &rt) != 0) {
		CHECK(0, "create (2 workers)");
		return;
	}
	struct p4dp_bench_params p = base_params(tmpl, 8192, 4096); /* varied keys: flows on both workers */
	p.n_workers = 2;
	struct p4dp_bench *b = NULL;
	int rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create (2 workers): %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result pr;
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		CHECK(rc == 0, "2-worker program: %d (%s)", rc, p4dp_runtime_error_get(NULL));
		CHECK(pr.lost == 0, "2 workers: lost %" PRIu64 " (warm-up %" PRIu64 ", window %" PRIu64 ", after %" PRIu64 ")",
		      pr.lost, pr.lost_before_window, pr.lost_in_window, pr.lost_after_window);
		CHECK(pr.w[0].packets > 0 && pr.w[1].packets > 0, "both workers processed packets");
		struct p4dp_rt_worker_stats w0, w1;
		CHECK(p4dp_runtime_worker_stats_get(rt, 0, &w0) == 0 && p4dp_runtime_worker_stats_get(rt, 1, &w1) == 0 &&
			      w0.dispatched_out > 0 && w1.dispatched_out > 0 && w0.rss == 0,
		      "software dispatch: both workers handed packets over");
		print_res("2-worker program", &pr);
		p4dp_bench_free(b);
	}
	p.dispatch = P4DP_RT_DISPATCH_NONE;
	b = NULL;
	rc = p4dp_bench_create(rt, &p, &b);
	CHECK(rc == 0, "bench create (2 workers, no dispatch): %d", rc);
	if (rc == 0) {
		struct p4dp_bench_result pr;
		struct p4dp_rt_worker_stats a0, a1, w0, w1; /* worker statistics add up over runs */
		CHECK(p4dp_runtime_worker_stats_get(rt, 0, &a0) == 0 && p4dp_runtime_worker_stats_get(rt, 1, &a1) == 0,
		      "worker stats");
		rc = p4dp_bench_measure(b, P4DP_BENCH_PROGRAM, 0, &pr);
		CHECK(rc == 0 && pr.lost == 0, "2-worker program, no dispatch: %d (%s)", rc, p4dp_runtime_error_get(NULL));
		CHECK(pr.w[0].packets > 0 && pr.w[1].packets > 0, "no dispatch: both workers processed packets");
		CHECK(p4dp_runtime_worker_stats_get(rt, 0, &w0) == 0 && p4dp_runtime_worker_stats_get(rt, 1, &w1) == 0 &&
			      w0.dispatched_out == a0.dispatched_out && w1.dispatched_out == a1.dispatched_out &&
			      w0.packets > a0.packets && w1.packets > a1.packets && w0.rss == 0,
		      "no dispatch: no packet changed workers (out %" PRIu64 "/%" PRIu64 ")",
		      w0.dispatched_out - a0.dispatched_out, w1.dispatched_out - a1.dispatched_out);
		print_res("2-worker program, no dispatch", &pr);
		p4dp_bench_free(b);
	}
	p.dispatch = 7;
	CHECK(p4dp_bench_create(rt, &p, &b) == -EINVAL, "bad dispatch mode refused");
	p4dp_runtime_free(rt);
}

int main(int argc, char **argv)
{
	(void)argc;
	char *eal[] = {argv[0], "--no-huge", "--no-pci", "-m", "1024", "--no-shconf", "--no-telemetry",
		       "--lcores=0@0,1@1,2@0", "--log-level=lib.eal:error", NULL};
	if (build_programs() != 0)
		return 1;
	int rc = p4dp_eal_init(9, eal);
	if (rc != 0) {
		printf("FAIL: EAL init: %s\n", p4dp_runtime_error_get(NULL));
		return 1;
	}
	uint8_t tmpl[60];
	make_template(tmpl);
	test_params(tmpl);
	test_minimal(tmpl);
	test_window_after_start(tmpl);
	test_tap_done(tmpl);
	test_l3(tmpl);
	test_two_workers(tmpl);
	for (int i = 0; i < 3; i++)
		remove(so_path[i]);
	printf("test_bench: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif

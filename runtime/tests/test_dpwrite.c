/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-plane table writes and multi-core consistency with 2 worker lcores (software dispatch over
 * net_pcap), using the hand-written program tests/rt_prog_dp.c (built to a .so at start; run from
 * runtime/ or set P4DP_RT_SRC). Each check fails if its property breaks:
 *  (a) shared counter in an @entry_lock table, incremented by both workers: final count exact;
 *  (b) flow-local @__ref counters (add-on-miss inserted) without lock: exact per flow;
 *  (c) data-plane inserts racing control-plane deletes at capacity: accounting consistent, every
 *      -ENOSPC seen by the program counted by the table, no leak after reclaim;
 *  (d) 100k control-plane modifies while packets flow: zero default actions, zero torn pairs;
 *  (e) idle timeout under the simulated clock: exact expiry, notifications, auto delete;
 *  (f) storage model predictions;
 *  (g) per-entry idle timeouts (P4Runtime TTLs) under the simulated clock: expiry after the TTL,
 *      a new report every TTL an entry stays idle, a hit restarting the timer, time since the
 *      last hit, TTL kept by a modify and gone with a delete, profile entries unchanged; then
 *      with 2 workers hitting an entry while a control thread sets TTLs, reads the idle state
 *      and polls notifications (for ThreadSanitizer); control-plane metadata of entries: read back
 *      as written, kept by a modify, gone with a delete, a clear and an idle-timeout auto delete.
 * Under ThreadSanitizer (make tsan) the packet, round and modify counts are divided by
 * P4DP_TEST_TSAN_DIV (tsan_test.h).
 * Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "p4dp/table.h"
#include "rt_internal.h"
#include "tsan_test.h"

#include "check.h"
#include "pcap_write.h"

enum { T_SHARED, T_FLOWS, T_AOM, T_MOD, T_IDLE };
enum { A_NOP, A_COUNT, A_PAIR };
enum { X_OUTCOMES, X_CHECKS };

static char g_so[PATH_MAX], g_dir[256];
static int g_id;


static struct p4dp_runtime *mkrt(void)
{
	struct p4dp_runtime_params pp = { .program_path = g_so, .max_workers = 2, .n_mbufs = 65536 };
	struct p4dp_runtime *rt = NULL;
	if (p4dp_runtime_create(&pp, &rt) != 0)
		return NULL;
	return rt;
}

static int add_port(struct p4dp_runtime *rt, const char *pcap, int infinite)
{
	char dev[3 * PATH_MAX];
	snprintf(dev, sizeof(dev), "net_pcap_dp%d,rx_pcap=%s,tx_pcap=/dev/null%s", g_id++, pcap,
		 infinite ? ",infinite_rx=1" : "");
	return p4dp_runtime_port_add(rt, 0, dev);
}

static uint64_t counter(struct p4dp_runtime *rt, uint32_t ext, uint32_t cell)
{
	struct p4dp_counter_cell c = { 0, 0 };
	p4dp_runtime_counter_read(rt, ext, cell, &c);
	return c.packets;
}

static struct p4dp_rt_entry entry1(struct p4dp_rt_key *k, const uint8_t *kv, uint32_t klen, uint32_t action,
				   struct p4dp_rt_param *ps, uint32_t np)
{
	k->type = P4DP_RT_KEY_EXACT;
	k->prefix_len = 0;
	k->value = kv;
	k->value_len = klen;
	k->value2 = NULL;
	k->value2_len = 0;
	struct p4dp_rt_entry e = { 1, k, 0, action, np, ps };
	return e;
}

struct got { uint64_t v[2]; int ok; };

static void out_cb(void *a, uint32_t port, const uint8_t *d, uint32_t len)
{
	(void)a, (void)port, (void)d, (void)len;
}

static int walk_cb(void *arg, const struct p4dp_rt_entry *e)
{
	(void)e;
	(*(uint64_t *)arg)++;
	return 0;
}
static int get_cb(void *arg, const struct p4dp_rt_entry *e)
{
	struct got *g = arg;
	g->ok = 1;
	for (uint32_t i = 0; i < e->n_params && i < 2; i++) {
		uint64_t v = 0;
		for (uint32_t j = 0; j < e->params[i].len; j++)
			v = (v << 8) | e->params[i].value[j];
		g->v[i] = v;
	}
	return 0;
}

static void check_both_workers(struct p4dp_runtime *rt, const char *what)
{
	struct p4dp_rt_worker_stats w0, w1;
	CHECK(p4dp_runtime_worker_stats_get(rt, 0, &w0) == 0 && p4dp_runtime_worker_stats_get(rt, 1, &w1) == 0);
	printf("  %s: worker 0 processed %" PRIu64 " (in %" PRIu64 "), worker 1 processed %" PRIu64 " (in %" PRIu64
	       "), dispatch drops %" PRIu64 ", rss %u\n", what, w0.packets, w0.dispatched_in, w1.packets,
	       w1.dispatched_in, w0.dispatch_drops + w1.dispatch_drops, w0.rss);
	CHECK(w0.packets > 0 && w1.packets > 0);
}

/* ---------------------------------------------------------------- (a) */
static void mk_shared(uint8_t *p, uint32_t i)
{
	p[0] = 0;
	p[1] = 7;
	uint32_t flow = i % 64;
	memcpy(p + 2, &flow, 4);
}

static void test_shared(void)
{
	printf("(a) shared @entry_lock counter on 2 workers\n");
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/dp_shared.pcap", g_dir);
	const uint32_t n = 200000 / P4DP_TEST_TSAN_DIV;
	CHECK(test_pcap_write(pcap, n, mk_shared) == 0);
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(add_port(rt, pcap, 0) == 0);
	uint8_t kv = 7, zero[8] = { 0 };
	struct p4dp_rt_key k;
	struct p4dp_rt_param pc = { zero, 8 };
	struct p4dp_rt_entry e = entry1(&k, &kv, 1, A_COUNT, &pc, 1);
	CHECK(p4dp_runtime_table_entry_add(rt, T_SHARED, &e) == 0);
	struct p4dp_run_params rp = { .n_workers = 2, .until_input_done = 1, .duration_ms = 60000,
				      .dispatch = P4DP_RT_DISPATCH_SW, .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	struct got g = { { 0, 0 }, 0 };
	CHECK(p4dp_runtime_table_entry_get(rt, T_SHARED, &e, get_cb, &g) == 0 && g.ok);
	struct p4dp_rt_stats st;
	p4dp_runtime_stats_get(rt, &st);
	printf("  count %" PRIu64 ", packets %" PRIu64 ", lock revocations %" PRIu64 "\n", g.v[0], st.packets,
	       st.lock_revocations);
	CHECK(st.packets == n && g.v[0] == n);
	/* biased to the first worker that locked it, revoked once by the other, then shared */
	CHECK(st.lock_revocations == 1);
	check_both_workers(rt, "shared");
	p4dp_runtime_free(rt);
}

/* ---------------------------------------------------------------- (b) */
#define N_FLOWS 512u
static void mk_flows(uint8_t *p, uint32_t i)
{
	p[0] = 1;
	uint32_t flow = 1000 + (i * 7919u) % N_FLOWS; /* packets of all flows interleaved */
	memcpy(p + 2, &flow, 4);
}

static void test_flows(void)
{
	printf("(b) flow-local @__ref counters without lock, add-on-miss\n");
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/dp_flows.pcap", g_dir);
	const uint32_t n = 200704 / P4DP_TEST_TSAN_DIV; /* 392 packets per flow (98 under TSan) */
	CHECK(test_pcap_write(pcap, n, mk_flows) == 0);
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(add_port(rt, pcap, 0) == 0);
	struct p4dp_run_params rp = { .n_workers = 2, .until_input_done = 1, .duration_ms = 60000,
				      .dispatch = P4DP_RT_DISPATCH_AUTO, .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	uint32_t bad = 0;
	for (uint32_t f = 1000; f < 1000 + N_FLOWS; f++) {
		uint8_t kv[4] = { (uint8_t)(f >> 24), (uint8_t)(f >> 16), (uint8_t)(f >> 8), (uint8_t)f };
		struct p4dp_rt_key k;
		struct p4dp_rt_entry e = entry1(&k, kv, 4, A_COUNT, NULL, 0);
		struct got g = { { 0, 0 }, 0 };
		if (p4dp_runtime_table_entry_get(rt, T_FLOWS, &e, get_cb, &g) != 0 || g.v[0] != n / N_FLOWS)
			bad++;
	}
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_FLOWS, &ts) == 0);
	printf("  flows with a wrong count: %u of %u; entries %" PRIu64 ", dp inserts %" PRIu64 "\n", bad, N_FLOWS,
	       ts.entries, ts.dp_inserts);
	CHECK(bad == 0 && ts.entries == N_FLOWS && ts.dp_inserts == N_FLOWS);
	CHECK(counter(rt, X_OUTCOMES, 0) == N_FLOWS && counter(rt, X_OUTCOMES, 1) == 0);
	check_both_workers(rt, "flows");
	p4dp_runtime_free(rt);
}

/* ---------------------------------------------------------------- (c), (d) */
struct ctl_arg {
	struct p4dp_runtime *rt;
	volatile int stop;
	uint32_t n_mod;
	uint64_t deletes, mods, mod_fail;
};

static void mk_aom(uint8_t *p, uint32_t i)
{
	p[0] = 2;
	uint32_t flow = i % 1024, x = (i * 2654435761u) >> 22; /* 10 bits */
	memcpy(p + 2, &flow, 4);
	p[6] = (uint8_t)x;
	p[7] = (uint8_t)(x >> 8);
}

static void *deleter(void *arg)
{
	struct ctl_arg *c = arg;
	usleep(100000);
	for (int round = 0; round < (int)(200 / P4DP_TEST_TSAN_DIV); round++) {
		for (uint32_t x = (uint32_t)round % 3; x < 1024; x += 3) {
			uint8_t kv[2] = { (uint8_t)(x >> 8), (uint8_t)x };
			struct p4dp_rt_key k;
			struct p4dp_rt_entry e = entry1(&k, kv, 2, A_COUNT, NULL, 0);
			if (p4dp_runtime_table_entry_delete(c->rt, T_AOM, &e) == 0)
				c->deletes++;
		}
		usleep(2000);
	}
	usleep(50000); /* let the workers refill the table before stopping */
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_insert_delete(void)
{
	printf("(c) data-plane inserts racing control-plane deletes at capacity\n");
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/dp_aom.pcap", g_dir);
	CHECK(test_pcap_write(pcap, 8192, mk_aom) == 0);
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(add_port(rt, pcap, 1) == 0);
	/* profile 1 (add_entry's) never expires here: this test is about inserts and deletes */
	CHECK(p4dp_runtime_table_expire_profile_set(rt, T_AOM, 1, 0) == 0);
	struct ctl_arg c = { .rt = rt };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, deleter, &c) == 0);
	struct p4dp_run_params rp = { .n_workers = 2, .stop = (volatile int *)&c.stop, .duration_ms = 60000,
				      .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	pthread_join(th, NULL);
	struct p4dp_table_stats s;
	p4dp_table_maintain(rt->tables[T_AOM]);
	p4dp_rcu_reclaim(rt->rcu, true);
	CHECK(p4dp_table_stats_get(rt->tables[T_AOM], &s) == 0);
	uint64_t ok = counter(rt, X_OUTCOMES, 0), ex = counter(rt, X_OUTCOMES, 1), full = counter(rt, X_OUTCOMES, 2),
		 other = counter(rt, X_OUTCOMES, 3);
	printf("  entries %" PRIu64 " free %" PRIu64 " pending %" PRIu64 " capacity %" PRIu64 "; inserts %" PRIu64
	       " (dp %" PRIu64 ") deletes %" PRIu64 " table_full %" PRIu64 " dp_busy %" PRIu64 "\n",
	       s.entries, s.free_slots, s.pending_slots, s.capacity, s.inserts, s.dp_inserts, s.deletes, s.table_full,
	       s.dp_busy);
	printf("  program saw: ok %" PRIu64 " exists %" PRIu64 " nospc %" PRIu64 " other %" PRIu64
	       "; control deletes %" PRIu64 "\n", ok, ex, full, other, c.deletes);
	CHECK(s.entries + s.free_slots + s.pending_slots == s.capacity);
	CHECK(s.pending_slots == 0 && s.pending_reclaim == 0);
	CHECK(s.inserts == ok && s.dp_inserts == ok && s.deletes == c.deletes && s.inserts - s.deletes == s.entries);
	CHECK(full == s.table_full + s.dp_busy && full > 0 && c.deletes > 0 && other == 0);
	/* every installed entry is reachable (walk count == entries) */
	uint64_t walked = 0;
	struct p4dp_table_stats s2;
	CHECK(p4dp_runtime_table_read(rt, T_AOM, walk_cb, &walked) == 0);
	CHECK(p4dp_table_stats_get(rt->tables[T_AOM], &s2) == 0 && walked == s2.entries);
	check_both_workers(rt, "aom");
	p4dp_runtime_free(rt);
}

static void mk_mod(uint8_t *p, uint32_t i)
{
	p[0] = 3;
	p[1] = 5;
	uint32_t flow = i % 1024;
	memcpy(p + 2, &flow, 4);
}

static void *modifier(void *arg)
{
	struct ctl_arg *c = arg;
	uint8_t kv = 5;
	uint8_t va[8] = { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11 };
	uint8_t vb[8] = { 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22 };
	usleep(50000);
	for (uint32_t i = 0; i < c->n_mod; i++) {
		const uint8_t *v = (i & 1) ? va : vb;
		struct p4dp_rt_key k;
		struct p4dp_rt_param ps[2] = { { v, 8 }, { v, 8 } };
		struct p4dp_rt_entry e = entry1(&k, &kv, 1, A_PAIR, ps, 2);
		if (p4dp_runtime_table_entry_modify(c->rt, T_MOD, &e) == 0)
			c->mods++;
		else
			c->mod_fail++;
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_modify_storm(uint32_t n_mod)
{
	printf("(d) %u control-plane modifies while packets flow on 2 workers\n", n_mod);
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/dp_mod.pcap", g_dir);
	CHECK(test_pcap_write(pcap, 8192, mk_mod) == 0);
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(add_port(rt, pcap, 1) == 0);
	uint8_t kv = 5, va[8];
	memset(va, 0x11, 8);
	struct p4dp_rt_key k;
	struct p4dp_rt_param ps[2] = { { va, 8 }, { va, 8 } };
	struct p4dp_rt_entry e = entry1(&k, &kv, 1, A_PAIR, ps, 2);
	CHECK(p4dp_runtime_table_entry_add(rt, T_MOD, &e) == 0);
	struct ctl_arg c = { .rt = rt, .n_mod = n_mod };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, modifier, &c) == 0);
	struct p4dp_run_params rp = { .n_workers = 2, .stop = (volatile int *)&c.stop, .duration_ms = 120000,
				      .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	pthread_join(th, NULL);
	uint64_t def = counter(rt, X_CHECKS, 0), torn = counter(rt, X_CHECKS, 1), good = counter(rt, X_CHECKS, 2);
	printf("  modifies %" PRIu64 " (failed %" PRIu64 "); packets: default %" PRIu64 ", torn %" PRIu64
	       ", consistent %" PRIu64 "\n", c.mods, c.mod_fail, def, torn, good);
	CHECK(c.mods == n_mod && c.mod_fail == 0);
	CHECK(def == 0 && torn == 0 && good > 0);
	check_both_workers(rt, "modify");
	p4dp_runtime_free(rt);
}

/* ---------------------------------------------------------------- (e) */
struct idle_got { uint32_t n, table; uint8_t key[2]; uint64_t idle; };
static int idle_cb(void *arg, uint32_t table, const struct p4dp_rt_entry *e, uint64_t t, uint64_t idle)
{
	struct idle_got *g = arg;
	(void)t;
	g->n++;
	g->table = table;
	g->idle = idle;
	if (e->n_keys == 1 && e->keys[0].value_len <= 2)
		memcpy(g->key, e->keys[0].value, e->keys[0].value_len);
	return 0;
}

static void test_idle(void)
{
	printf("(e) idle timeout with the simulated clock\n");
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(p4dp_runtime_table_expire_profile_set(rt, T_AOM, 1, 1000) == 0);
	uint64_t ns = 0;
	CHECK(p4dp_runtime_table_expire_profile_get(rt, T_AOM, 0, &ns) == 0 && ns == 10000000000ull);
	CHECK(p4dp_runtime_table_expire_profile_set(rt, T_AOM, P4DP_EXPIRE_PROFILES, 1) == -EINVAL);
	uint8_t pkt[64] = { 0 };
	mk_aom(pkt, 0);
	pkt[6] = 0x34, pkt[7] = 0x12;
	p4dp_runtime_time_set(rt, 5000);
	CHECK(p4dp_runtime_packet_inject(rt, 0, pkt, 64, out_cb, NULL) == 0); /* inserts at t=5000 */
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_AOM, &ts) == 0 && ts.entries == 1 && ts.dp_inserts == 1);
	p4dp_runtime_time_advance(rt, 999); /* idle 999 < 1000 */
	CHECK(p4dp_runtime_table_stats_get(rt, T_AOM, &ts) == 0 && ts.entries == 1);
	CHECK(p4dp_runtime_packet_inject(rt, 0, pkt, 64, out_cb, NULL) == 0); /* hit: touch at 5999 */
	p4dp_runtime_time_advance(rt, 999);
	CHECK(p4dp_runtime_table_stats_get(rt, T_AOM, &ts) == 0 && ts.entries == 1);
	p4dp_runtime_time_advance(rt, 1); /* idle exactly 1000: expires */
	CHECK(p4dp_runtime_table_stats_get(rt, T_AOM, &ts) == 0 && ts.entries == 0 && ts.expired == 1);
	struct idle_got g = { 0, 0, { 0, 0 }, 0 };
	CHECK(p4dp_runtime_idle_poll(rt, idle_cb, &g, 0) == 1);
	CHECK(g.n == 1 && g.table == T_AOM && g.key[0] == 0x12 && g.key[1] == 0x34 && g.idle == 1000);
	CHECK(p4dp_runtime_idle_poll(rt, idle_cb, &g, 0) == 0);
	p4dp_runtime_free(rt);
}

/* ---------------------------------------------------------------- (g) */
static struct p4dp_rt_entry idle_entry(struct p4dp_rt_key *k, const uint8_t *kv, struct p4dp_rt_param *pc)
{
	return entry1(k, kv, 1, A_COUNT, pc, 1);
}

/* idle state of T_IDLE's entry *kv: 0 and *out, or the error */
static int idle_of(struct p4dp_runtime *rt, uint8_t kv, struct p4dp_rt_idle *out)
{
	struct p4dp_rt_key k;
	uint8_t zero[8] = { 0 };
	struct p4dp_rt_param pc = { zero, 8 };
	struct p4dp_rt_entry e = idle_entry(&k, &kv, &pc);
	return p4dp_runtime_table_entry_idle_get(rt, T_IDLE, &e, out);
}

static int ttl_of(struct p4dp_runtime *rt, uint32_t table, uint8_t kv, uint64_t ttl)
{
	struct p4dp_rt_key k;
	uint8_t zero[8] = { 0 };
	struct p4dp_rt_param pc = { zero, 8 };
	struct p4dp_rt_entry e = idle_entry(&k, &kv, &pc);
	return p4dp_runtime_table_entry_ttl_set(rt, table, &e, ttl);
}

static void hit_idle(struct p4dp_runtime *rt, uint8_t kv)
{
	uint8_t pkt[64] = { 4, kv };
	CHECK(p4dp_runtime_packet_inject(rt, 0, pkt, 64, out_cb, NULL) == 0);
}

/* notifications queued now: count (UINT32_MAX when the poll failed or its count disagrees with
 * the callbacks), and the key and idle time of the last. No CHECK: also runs on the test's
 * control thread, and the pass/fail counters belong to the main thread. */
static uint32_t idle_poll(struct p4dp_runtime *rt, uint8_t *key, uint64_t *idle)
{
	struct idle_got g = { 0, 0, { 0, 0 }, 0 };
	int n = p4dp_runtime_idle_poll(rt, idle_cb, &g, 0);
	*key = g.key[0];
	*idle = g.idle;
	return n >= 0 && (uint32_t)n == g.n ? g.n : UINT32_MAX;
}

/* idle_poll, checked (main thread) */
static uint32_t idle_notes(struct p4dp_runtime *rt, uint8_t *key, uint64_t *idle)
{
	uint32_t n = idle_poll(rt, key, idle);
	CHECK(n != UINT32_MAX);
	return n == UINT32_MAX ? 0 : n;
}

static void test_ttl(void)
{
	printf("(g) per-entry idle timeouts with the simulated clock\n");
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	uint8_t zero[8] = { 0 }, kv = 9, kp = 10, key = 0;
	uint64_t idle = 0;
	struct p4dp_rt_key k;
	struct p4dp_rt_param pc = { zero, 8 };
	struct p4dp_rt_idle st;
	p4dp_runtime_time_set(rt, 1000);
	struct p4dp_rt_entry e = idle_entry(&k, &kv, &pc);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e) == 0);
	/* before a TTL: the expire profile's (0: 10 s), inserted now */
	CHECK(idle_of(rt, kv, &st) == 0 && st.own_ttl == 0 && st.ttl_ns == 10000000000ull && st.since_hit_ns == 0);
	CHECK(ttl_of(rt, T_IDLE, kv, 500) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.own_ttl == 1 && st.ttl_ns == 500 && st.since_hit_ns == 0);
	/* errors: a table without idle timeout, a missing entry */
	CHECK(ttl_of(rt, T_MOD, kv, 500) == -EINVAL);
	CHECK(ttl_of(rt, T_IDLE, 77, 500) == -ENOENT && idle_of(rt, 77, &st) == -ENOENT);
	p4dp_runtime_time_advance(rt, 499);
	CHECK(idle_notes(rt, &key, &idle) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.since_hit_ns == 499);
	p4dp_runtime_time_advance(rt, 1); /* t=1500: idle 500 = the TTL */
	CHECK(idle_notes(rt, &key, &idle) == 1 && key == kv && idle == 500);
	/* reported: the timer restarts, the time since the last hit does not */
	p4dp_runtime_time_advance(rt, 499);
	CHECK(idle_notes(rt, &key, &idle) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.since_hit_ns == 999);
	p4dp_runtime_time_advance(rt, 1); /* t=2000: one TTL after the report */
	CHECK(idle_notes(rt, &key, &idle) == 1 && key == kv && idle == 1000);
	p4dp_runtime_time_advance(rt, 100);
	hit_idle(rt, kv); /* t=2100 */
	CHECK(idle_of(rt, kv, &st) == 0 && st.since_hit_ns == 0);
	p4dp_runtime_time_advance(rt, 499);
	CHECK(idle_notes(rt, &key, &idle) == 0);
	p4dp_runtime_time_advance(rt, 1); /* t=2600: one TTL after the hit */
	CHECK(idle_notes(rt, &key, &idle) == 1 && idle == 500);
	/* a modify keeps the TTL and the last-hit time */
	p4dp_runtime_time_advance(rt, 10);
	uint8_t one[8] = { 1 };
	struct p4dp_rt_param p1 = { one, 8 };
	struct p4dp_rt_entry em = idle_entry(&k, &kv, &p1);
	CHECK(p4dp_runtime_table_entry_modify(rt, T_IDLE, &em) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.own_ttl == 1 && st.ttl_ns == 500 && st.since_hit_ns == 510);
	/* TTL 0: never expires, the time since the hit still counts */
	CHECK(ttl_of(rt, T_IDLE, kv, 0) == 0);
	p4dp_runtime_time_advance(rt, 100000);
	CHECK(idle_notes(rt, &key, &idle) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.own_ttl == 1 && st.ttl_ns == 0 && st.since_hit_ns == 100510);
	/* the TTL goes with the delete: the same key added again has the profile's */
	CHECK(p4dp_runtime_table_entry_delete(rt, T_IDLE, &e) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e) == 0);
	CHECK(idle_of(rt, kv, &st) == 0 && st.own_ttl == 0 && st.since_hit_ns == 0);
	/* profile entries: reported once per idle period, as before */
	CHECK(p4dp_runtime_table_expire_profile_set(rt, T_IDLE, 0, 300) == 0);
	struct p4dp_rt_entry ep = idle_entry(&k, &kp, &pc);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &ep) == 0);
	CHECK(ttl_of(rt, T_IDLE, kv, 0) == 0); /* kv: no reports */
	p4dp_runtime_time_advance(rt, 300);
	CHECK(idle_notes(rt, &key, &idle) == 1 && key == kp && idle == 300);
	p4dp_runtime_time_advance(rt, 1000);
	CHECK(idle_notes(rt, &key, &idle) == 0);
	p4dp_runtime_free(rt);
}

static int meta_of(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, char *buf,
		   uint32_t cap, uint32_t *len)
{
	return p4dp_runtime_table_entry_meta_get(rt, table, e, buf, cap, len);
}

static void test_meta(void)
{
	printf("(g) control-plane metadata of entries\n");
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	uint8_t zero[8] = { 0 }, one[8] = { 1 }, kv = 9;
	struct p4dp_rt_key k;
	struct p4dp_rt_param pc = { zero, 8 }, p1 = { one, 8 };
	struct p4dp_rt_entry e = idle_entry(&k, &kv, &pc), em = idle_entry(&k, &kv, &p1);
	char buf[16];
	uint32_t len = 99;
	uint64_t n_meta = 99;
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 0);
	/* the count a modify's metadata clear relies on to skip itself (0: no entry has any) */
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, &n_meta) == 0 && n_meta == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, "cookie", 6) == 0);
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_IDLE, &ts) == 0 && ts.meta_entries == 1);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, &n_meta) == 0 && n_meta == 1);
	CHECK(p4dp_runtime_table_meta_entries(rt, 9999, &n_meta) == -EINVAL);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, NULL) == -EINVAL);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 6 && memcmp(buf, "cookie", 6) == 0);
	/* a short buffer gets the length */
	CHECK(meta_of(rt, T_IDLE, &e, buf, 2, &len) == 0 && len == 6 && memcmp(buf, "co", 2) == 0);
	CHECK(p4dp_runtime_table_entry_modify(rt, T_IDLE, &em) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 6 && memcmp(buf, "cookie", 6) == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, "x", 1) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 1 && buf[0] == 'x');
	/* errors */
	uint8_t none = 77;
	struct p4dp_rt_key k2;
	struct p4dp_rt_entry missing = idle_entry(&k2, &none, &pc);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &missing, "x", 1) == -ENOENT);
	CHECK(meta_of(rt, T_IDLE, &missing, buf, sizeof(buf), &len) == -ENOENT);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, buf, P4DP_ENTRY_META_MAX + 1) == -EINVAL);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 1);
	/* gone with the delete and the clear: the same key added again has none */
	CHECK(p4dp_runtime_table_entry_delete(rt, T_IDLE, &e) == 0);
	CHECK(p4dp_runtime_table_stats_get(rt, T_IDLE, &ts) == 0 && ts.meta_entries == 0);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, &n_meta) == 0 && n_meta == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, "y", 1) == 0);
	CHECK(p4dp_runtime_table_clear(rt, T_IDLE) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 0);
	/* removed by length 0 */
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, "z", 1) == 0);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, &n_meta) == 0 && n_meta == 1);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_IDLE, &e, NULL, 0) == 0);
	CHECK(meta_of(rt, T_IDLE, &e, buf, sizeof(buf), &len) == 0 && len == 0);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_IDLE, &n_meta) == 0 && n_meta == 0);
	/* and with an idle-timeout auto delete (a data-plane entry of `aom`, profile 1) */
	CHECK(p4dp_runtime_table_expire_profile_set(rt, T_AOM, 1, 1000) == 0);
	uint8_t pkt[64] = { 0 };
	mk_aom(pkt, 0);
	pkt[6] = 0x34, pkt[7] = 0x12;
	uint8_t k16[2] = { 0x12, 0x34 };
	struct p4dp_rt_key k3;
	struct p4dp_rt_entry ea = entry1(&k3, k16, 2, A_COUNT, &pc, 1);
	p4dp_runtime_time_set(rt, 5000);
	CHECK(p4dp_runtime_packet_inject(rt, 0, pkt, 64, out_cb, NULL) == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_AOM, &ea, "aged", 4) == 0);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_AOM, &n_meta) == 0 && n_meta == 1);
	p4dp_runtime_time_advance(rt, 1000);
	CHECK(meta_of(rt, T_AOM, &ea, buf, sizeof(buf), &len) == -ENOENT);
	CHECK(p4dp_runtime_table_meta_entries(rt, T_AOM, &n_meta) == 0 && n_meta == 0);
	CHECK(p4dp_runtime_packet_inject(rt, 0, pkt, 64, out_cb, NULL) == 0);
	CHECK(meta_of(rt, T_AOM, &ea, buf, sizeof(buf), &len) == 0 && len == 0);
	p4dp_runtime_free(rt);
}

struct ttl_arg {
	struct p4dp_runtime *rt;
	volatile int stop;
	uint32_t rounds;     /* at least this many rounds of 2 ms */
	uint64_t idle_ns;    /* and until the idle entry has not been hit for this long (run clock) */
	uint64_t notes_hit, notes_idle, bad, since_hit, since_idle;
};

static uint64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The control thread of (g): it polls the two entries' idle state until both the rounds are done
 * and the idle entry's time since its last hit has reached idle_ns on the run's clock, bounded by
 * 60 s of wall time. The run's clock starts when p4dp_runtime_run has started its workers, which
 * on a loaded machine (or under ThreadSanitizer) may be long after this thread began, so the
 * rounds' wall time alone does not say how far that clock has gone. */
static void *ttl_control(void *arg)
{
	struct ttl_arg *c = arg;
	usleep(50000);
	const uint64_t give_up = wall_ms() + 60000u;
	for (uint32_t i = 0; i < c->rounds || (c->since_idle < c->idle_ns && wall_ms() < give_up); i++) {
		/* kv 9 is hit by every packet: a 10 s TTL never expires; kv 10 is never hit: 1 ms */
		if (ttl_of(c->rt, T_IDLE, 9, 10000000000ull) != 0 || (i == 0 && ttl_of(c->rt, T_IDLE, 10, 1000000) != 0))
			c->bad++;
		struct p4dp_rt_idle st;
		if (idle_of(c->rt, 9, &st) != 0 || st.ttl_ns != 10000000000ull)
			c->bad++;
		c->since_hit = st.since_hit_ns;
		if (idle_of(c->rt, 10, &st) != 0 || st.ttl_ns != 1000000)
			c->bad++;
		c->since_idle = st.since_hit_ns;
		uint8_t key = 0;
		uint64_t idle = 0;
		uint32_t n = idle_poll(c->rt, &key, &idle);
		if (n == UINT32_MAX) {
			c->bad++;
			n = 0;
		}
		if (n > 0 && key == 9)
			c->notes_hit += n;
		else
			c->notes_idle += n;
		usleep(2000);
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void mk_idle(uint8_t *p, uint32_t i)
{
	p[0] = 4;
	p[1] = 9;
	uint32_t flow = i % 1024;
	memcpy(p + 2, &flow, 4);
}

static void test_ttl_workers(void)
{
	printf("(g) per-entry idle timeouts while 2 workers hit an entry\n");
	char pcap[PATH_MAX + 32];
	snprintf(pcap, sizeof(pcap), "%s/dp_idle.pcap", g_dir);
	CHECK(test_pcap_write(pcap, 4096, mk_idle) == 0);
	struct p4dp_runtime *rt = mkrt();
	CHECK(rt != NULL);
	if (!rt)
		return;
	CHECK(add_port(rt, pcap, 1) == 0);
	uint8_t zero[8] = { 0 }, k9 = 9, k10 = 10;
	struct p4dp_rt_key k;
	struct p4dp_rt_param pc = { zero, 8 };
	struct p4dp_rt_entry e9 = idle_entry(&k, &k9, &pc);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e9) == 0);
	struct p4dp_rt_key k2;
	struct p4dp_rt_entry e10 = idle_entry(&k2, &k10, &pc);
	CHECK(p4dp_runtime_table_entry_add(rt, T_IDLE, &e10) == 0);
	struct ttl_arg c = { .rt = rt, .rounds = 100, .idle_ns = 200000000ull };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, ttl_control, &c) == 0);
	struct p4dp_run_params rp = { .n_workers = 2, .stop = (volatile int *)&c.stop, .duration_ms = 120000,
				      .flow_key_off = 2, .flow_key_len = 4 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	pthread_join(th, NULL);
	printf("  reports: hit entry %" PRIu64 ", idle entry %" PRIu64 ", errors %" PRIu64 "; last reads: time since"
	       " the last hit %" PRIu64 " ns (hit entry), %" PRIu64 " ns (idle entry)\n", c.notes_hit, c.notes_idle,
	       c.bad, c.since_hit, c.since_idle);
	/* the idle entry is reported (about every 10 ms scan), the hit one never; the idle entry's
	 * time since its last hit grows (to 200 ms within the 60 s bound), the hit entry's does not */
	CHECK(c.bad == 0 && c.notes_hit == 0 && c.notes_idle > 0);
	CHECK(c.since_idle >= c.idle_ns && c.since_idle > c.since_hit);
	check_both_workers(rt, "idle");
	p4dp_runtime_free(rt);
}

/* ---------------------------------------------------------------- (f) */
static void test_model(void)
{
	printf("(f) memory model\n");
	struct p4dp_table_mem m;
	CHECK(p4dp_table_mem_predict(1u << 20, 4, 8, 100, &m) == 0);
	CHECK(m.slot_bytes == 32 && m.dyn_entry_bytes == 128 && m.choice == P4DP_STORAGE_STATIC);
	CHECK(p4dp_table_mem_predict(1u << 20, 4, 8, 10, &m) == 0 && m.choice == P4DP_STORAGE_DYNAMIC);
	printf("  2^20 x (k=4, A=8): static %" PRIu64 " B, dynamic at 10%% %" PRIu64 " B\n", m.static_bytes,
	       m.dynamic_bytes);
	CHECK(p4dp_table_mem_predict(16, 0, 8, 100, &m) == -EINVAL);
	CHECK(p4dp_table_mem_predict(16, 4, 8, 101, &m) == -EINVAL);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_prog_build("dpw", "rt_prog_dp", g_dir, sizeof(g_dir), g_so, sizeof(g_so)) != 0 ||
	    test_eal_init(argv[0], "0@0,1@(0-1),2@(0-1)") != 0)
		return 1;
	uint32_t n_mod = getenv("P4DP_TEST_MODIFIES") ? (uint32_t)atoi(getenv("P4DP_TEST_MODIFIES"))
					       : 100000 / P4DP_TEST_TSAN_DIV;
	test_model();
	test_idle();
	test_ttl();
	test_meta();
	test_shared();
	test_flows();
	test_insert_delete();
	test_modify_storm(n_mod);
	test_ttl_workers();
	return test_finish(g_dir, n_pass, n_fail);
}

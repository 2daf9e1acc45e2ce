/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Concurrency test: a reader thread loops lookups of one key (reporting RCU
 * quiescence between lookups) while the main thread modifies that entry
 * P4DP_TEST_MODIFIES times (default 100000) between two versions whose action
 * data are pairs (a,a) and (b,b). The reader must never miss, never see a torn
 * pair, never see a changed index. For tuple-space tables the writer also
 * inserts and deletes other entries (new tuples, higher and lower priorities,
 * hash-table growth) at the same time. Under ThreadSanitizer (make tsan) the default count is
 * divided by P4DP_TEST_TSAN_DIV (tsan_test.h). Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include "p4dp/abi.h"
#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "tsan_test.h"

struct reader {
	struct p4dp_table *t;
	struct p4dp_rcu *rcu;
	const uint8_t *key;
	uint32_t index;
	int linear; /* look up as generated code does a linear table's (p4dp_table_apply_linear) */
	volatile int stop; /* written by main, read by reader; see below */
	int looking; /* set by the reader after its first lookups; main starts writing then */
	uint64_t lookups, misses, torn, bad_index;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	p4dp_rcu_register(r->rcu, 0);
	struct p4dp_entry *def = NULL;
	struct p4dp_ctx ctx = {.tables = &r->t, .defaults = &def};
	/* Relaxed load is enough for a stop flag: it orders nothing. */
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 16; i++) {
			int hit = 0;
			const struct p4dp_entry *e = r->linear ? p4dp_table_apply_linear(&ctx, 0, r->key, 4, &hit)
							       : p4dp_table_lookup(r->t, r->key);
			r->lookups++;
			if (e == NULL) {
				r->misses++;
				continue;
			}
			uint64_t d[2];
			memcpy(d, e->data, sizeof(d));
			if (d[0] != d[1] || e->action != (uint32_t)d[0])
				r->torn++;
			if (e->index != r->index)
				r->bad_index++;
		}
		p4dp_rcu_quiescent(r->rcu, 0);
		__atomic_store_n(&r->looking, 1, __ATOMIC_RELEASE);
	}
	p4dp_rcu_unregister(r->rcu, 0);
	return NULL;
}

static unsigned n_pass, n_fail;

#define F(k, o, sz, w) {.match_kind = (k), .offset = (o), .size = (sz), .bitwidth = (w)}

/* kind: 0 exact static, 1 exact dynamic, 2 keyless, 3 lpm + churn, 4 ternary + churn, 5 and 6 linear
 * (rtc.p4 @linear: lookups read the row of the key directly) static and dynamic + churn */
static void run(const char *name, int kind, uint32_t n_mod)
{
	struct p4dp_key_field fe[1] = {F(P4DP_MATCH_EXACT, 0, 4, 32)};
	struct p4dp_key_field fl[1] = {F(P4DP_MATCH_LPM, 0, 4, 32)};
	struct p4dp_key_field ft[2] = {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_EXACT, 4, 2, 16)};
	struct p4dp_table_params p = {.name = name, .key_len = 4, .n_fields = 1, .fields = fe, .max_entries = 4096,
				      .data_len = 16, .storage = P4DP_STORAGE_STATIC, .socket_id = SOCKET_ID_ANY};
	if (kind == 1 || kind == 6)
		p.storage = P4DP_STORAGE_DYNAMIC;
	if (kind >= 5)
		p.linear = 1;
	if (kind == 2) {
		p.key_len = 0;
		p.n_fields = 0;
	}
	if (kind == 3)
		p.fields = fl;
	if (kind == 4) {
		p.fields = ft;
		p.n_fields = 2;
		p.key_len = 8;
	}
	struct p4dp_rcu *rcu = p4dp_rcu_create(1, SOCKET_ID_ANY);
	struct p4dp_table *t = rcu ? p4dp_table_create(&p, rcu) : NULL;
	if (t == NULL) {
		printf("%-28s FAIL (create: %s)\n", name, strerror(errno));
		n_fail++;
		p4dp_rcu_free(rcu);
		return;
	}
	uint8_t key[8] = {10, 1, 2, 3, 7, 0, 0, 0};
	uint8_t mask[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0};
	uint8_t churn_v[8] = {0}, churn_m[8] = {0};
	struct p4dp_match m = {.value = key, .mask = mask, .priority = 1000};
	if (kind >= 5)
		memset(key + 1, 0, 3); /* row 10 */
	if (kind == 3) {
		mask[0] = 0; /* /24 (little-endian: byte 0 is the least significant) */
		key[0] = 0;
	}
	uint64_t A[2] = {0x1111111111111111ull, 0x1111111111111111ull};
	uint64_t B[2] = {0x2222222222222222ull, 0x2222222222222222ull};
	int rc = p4dp_table_entry_add(t, &m, (uint32_t)A[0], A);
	uint32_t index = 0;
	rc |= p4dp_table_entry_get(t, &m, NULL, NULL, &index);
	uint8_t lkey[8];
	memcpy(lkey, key, 8);
	if (kind == 3)
		lkey[0] = 0x55; /* any host in the /24 */
	struct reader r = {.t = t, .rcu = rcu, .key = lkey, .index = index, .linear = kind >= 5};
	pthread_t th;
	if (rc != 0 || pthread_create(&th, NULL, reader_main, &r) != 0) {
		printf("%-28s FAIL (setup rc %d)\n", name, rc);
		n_fail++;
		p4dp_table_free(t);
		p4dp_rcu_free(rcu);
		return;
	}
	/* The modifies start once the reader looks up: on a loaded machine a writer started
	 * first could finish every modify before the reader ran once (a keyless table's
	 * modifies are that fast), and the test would check nothing. */
	while (!__atomic_load_n(&r.looking, __ATOMIC_ACQUIRE))
		sched_yield();
	uint64_t wfail = 0, seed = 88172645463325252ull;
	uint32_t live_churn = 0;
	for (uint32_t i = 0; i < n_mod; i++) {
		const uint64_t *d = (i & 1) ? A : B;
		if (p4dp_table_entry_modify(t, &m, (uint32_t)d[0], d) != 0)
			wfail++;
		if (kind >= 5) {
			/* churn: add or delete another row (any but the reader's row 10) */
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			uint32_t row = 11 + (uint32_t)(seed % 4000);
			struct p4dp_match cm = {.value = (const uint8_t *)&row};
			int r2 = p4dp_table_entry_add(t, &cm, 1, A);
			if (r2 == 0)
				live_churn++;
			else if (r2 == -EEXIST && p4dp_table_entry_delete(t, &cm) == 0)
				live_churn--;
		} else if (kind >= 3) {
			/* churn: add or delete a random other entry */
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* Churn entries never match the reader's key (0x03020155 / exact 7):
			 * lpm entries have the top bit set (prefix >= 1), ternary entries a
			 * different exact field. */
			uint32_t plen = 1 + (uint32_t)(seed % 16);
			uint32_t v = ((uint32_t)(seed >> 20) & 0x3f) * 0x04010401u;
			uint32_t msk = ~0u << (32 - plen);
			if (kind == 3)
				v |= 0x80000000u;
			if (kind == 4)
				msk = ((uint32_t)(seed >> 8) & 0xf) * 0x11111111u | 1u; /* 16 tuples */
			v &= msk;
			memcpy(churn_v, &v, 4);
			memcpy(churn_m, &msk, 4);
			churn_m[4] = churn_m[5] = kind == 4 ? 0xff : 0;
			churn_v[4] = kind == 4 ? (uint8_t)(8 + (seed >> 40) % 4) : 0;
			struct p4dp_match cm = {.value = churn_v, .mask = churn_m,
						.priority = (int32_t)((seed >> 50) % 2000)}; /* above and below 1000 */
			int r2 = p4dp_table_entry_add(t, &cm, 1, NULL);
			if (r2 == 0)
				live_churn++;
			else if (r2 == -EEXIST && p4dp_table_entry_delete(t, &cm) == 0)
				live_churn--;
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	int ok = r.misses == 0 && r.torn == 0 && r.bad_index == 0 && wfail == 0 && r.lookups > 0;
	printf("%-28s %s (%u modifies, %" PRIu64 " lookups, %" PRIu64 " misses, %" PRIu64 " torn, %" PRIu64
	       " bad index, %" PRIu64 " writer failures, %u churn entries, %" PRIu64 " tuples)\n",
	       name, ok ? "ok" : "FAIL", n_mod, r.lookups, r.misses, r.torn, r.bad_index, wfail, live_churn,
	       st.tuples);
	if (ok)
		n_pass++;
	else
		n_fail++;
	p4dp_table_free(t);
	p4dp_rcu_free(rcu);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0], "0@0,1@1") != 0)
		return 1;
	uint32_t n = getenv("P4DP_TEST_MODIFIES") ? (uint32_t)atoi(getenv("P4DP_TEST_MODIFIES"))
						  : 100000 / P4DP_TEST_TSAN_DIV;
	run("exact static", 0, n);
	run("exact dynamic", 1, n);
	run("keyless", 2, n);
	run("lpm + churn", 3, n);
	run("ternary + churn", 4, n);
	run("linear static + churn", 5, n);
	run("linear dynamic + churn", 6, n);
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

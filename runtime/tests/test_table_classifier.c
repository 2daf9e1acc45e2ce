/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ternary / range classifier (table_tm.c) at the scale where its tabs merge, fill their
 * buckets and double them:
 * - randomized: thousands of random rules (wildcards, full masks, prefixes, non-prefix masks,
 *   ranges, single values, duplicate priorities, the same match at two priorities) inserted,
 *   deleted and modified in random order, each change followed by single and bulk lookups that
 *   must agree with a brute-force scan of the live rules (the best priority among the rules
 *   that match; with equal priorities any of them), and entry_get / foreach agreeing too;
 * - concurrent: two reader threads look up probe keys whose answer never changes (a stable
 *   rule above every rule that can also match) while the writer churns other rules (new tabs,
 *   bucket doublings, emptied tabs, view changes) and modifies the stable rules between two
 *   versions; a reader must never miss, see another rule or a torn version. Runs under
 *   ThreadSanitizer (make tsan).
 * P4DP_TEST_SEED replays a randomized run. Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "tsan_test.h"

static unsigned n_pass, n_fail;

#define CHECK(c, ...)                                                                                    \
	do {                                                                                             \
		if (!(c)) {                                                                              \
			if (case_fail++ < 10) {                                                          \
				fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                          \
				fprintf(stderr, __VA_ARGS__);                                            \
				fputc('\n', stderr);                                                     \
			}                                                                                \
		}                                                                                        \
	} while (0)

static unsigned case_fail;

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define F(k, o, sz, w) {.match_kind = (k), .offset = (o), .size = (sz), .bitwidth = (w)}
#define KEY_MAX 32
#define NF_MAX 6

struct spec {
	const char *name;
	uint32_t key_len, n_fields;
	struct p4dp_key_field f[NF_MAX];
	uint32_t max_rules; /* live rules at most */
};

/* Fields are little-endian host integers of at most 64 bits here. */
static uint64_t fget(const struct p4dp_key_field *f, const uint8_t *b)
{
	uint64_t v = 0;
	memcpy(&v, b + f->offset, f->size);
	return v;
}
static void fput(const struct p4dp_key_field *f, uint8_t *b, uint64_t v)
{
	memcpy(b + f->offset, &v, f->size);
}
static uint64_t wmask(uint32_t w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}
static uint64_t pmask(uint32_t w, uint32_t len)
{
	return len == 0 ? 0 : wmask(w) & ~wmask(w - len);
}

struct rule {
	uint8_t v[KEY_MAX], m[KEY_MAX], hi[KEY_MAX];
	int32_t prio;
	uint32_t action, index;
	int live;
};

#define MODEL_MAX 6000
static struct rule model[MODEL_MAX];
static uint32_t n_model;

/* Values from a small pool (bases) so that rules overlap, share relaxed keys and fill buckets. */
static uint64_t pool_value(uint32_t w)
{
	static const uint64_t bases[4] = {0x0a000000u, 0xc0a80000u, 0xac100000u, 0x0};
	uint64_t v = below(4) ? bases[below(4)] | below(1u << 12) : rnd();
	return v & wmask(w);
}

static void gen_rule(const struct spec *s, struct rule *r)
{
	memset(r, 0, sizeof(*r));
	for (uint32_t i = 0; i < s->n_fields; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		uint32_t w = f->bitwidth;
		uint64_t v = pool_value(w), m;
		if (f->match_kind == P4DP_MATCH_RANGE) {
			uint64_t lo, hi;
			switch (below(5)) {
			case 0:
				lo = 0, hi = wmask(w); /* everything */
				break;
			case 1:
				lo = hi = v; /* one value */
				break;
			case 2: {
				uint32_t len = (uint32_t)below(w + 1); /* an aligned block */
				lo = v & pmask(w, len);
				hi = lo | (wmask(w) & ~pmask(w, len));
				break;
			}
			default:
				lo = v;
				hi = lo + below(2000);
				if (hi > wmask(w) || hi < lo)
					hi = wmask(w);
			}
			fput(f, r->v, lo);
			fput(f, r->hi, hi);
			continue;
		}
		switch (f->match_kind) {
		case P4DP_MATCH_EXACT:
			m = wmask(w);
			break;
		case P4DP_MATCH_OPTIONAL:
			m = below(3) ? wmask(w) : 0;
			break;
		default: /* ternary: wildcard, full, prefix or any mask */
			switch (below(6)) {
			case 0:
				m = 0;
				break;
			case 1:
				m = wmask(w);
				break;
			case 2:
				m = rnd() & wmask(w);
				break;
			default:
				m = pmask(w, (uint32_t)below(w + 1));
			}
		}
		fput(f, r->v, v & m);
		fput(f, r->m, m);
	}
	/* duplicate priorities: often from a small set */
	r->prio = below(3) ? (int32_t)below(40) : (int32_t)below(1000000);
}

static int rule_matches(const struct spec *s, const struct rule *r, const uint8_t *key)
{
	for (uint32_t i = 0; i < s->n_fields; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		uint64_t k = fget(f, key);
		if (f->match_kind == P4DP_MATCH_RANGE) {
			if (k < fget(f, r->v) || k > fget(f, r->hi))
				return 0;
		} else if ((k & fget(f, r->m)) != fget(f, r->v)) {
			return 0;
		}
	}
	return 1;
}

/* A key inside rule @p r (fields it leaves open random), or a random key. */
static void gen_key(const struct spec *s, const struct rule *r, uint8_t *key)
{
	memset(key, 0, KEY_MAX);
	for (uint32_t i = 0; i < s->n_fields; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		uint64_t x = pool_value(f->bitwidth);
		if (r != NULL) {
			if (f->match_kind == P4DP_MATCH_RANGE) {
				uint64_t lo = fget(f, r->v), hi = fget(f, r->hi);
				x = hi - lo == wmask(f->bitwidth) ? x : lo + below(hi - lo + 1);
			} else {
				x = (x & ~fget(f, r->m)) | fget(f, r->v);
			}
		}
		fput(f, key, x & wmask(f->bitwidth));
	}
}

static struct p4dp_match to_match(const struct spec *s, const struct rule *r)
{
	int range = 0;
	for (uint32_t i = 0; i < s->n_fields; i++)
		range |= s->f[i].match_kind == P4DP_MATCH_RANGE;
	return (struct p4dp_match){.value = r->v, .mask = r->m, .hi = range ? r->hi : NULL, .priority = r->prio};
}

static const struct rule *model_by_index(uint32_t index)
{
	for (uint32_t i = 0; i < n_model; i++)
		if (model[i].live && model[i].index == index)
			return &model[i];
	return NULL;
}

/* Compare a lookup result with the brute-force answer. */
static void check_key(const struct spec *s, const uint8_t *key, const struct p4dp_entry *e, const char *how)
{
	int32_t best = INT32_MIN;
	int any = 0;
	for (uint32_t i = 0; i < n_model; i++)
		if (model[i].live && rule_matches(s, &model[i], key) && (!any || model[i].prio > best)) {
			best = model[i].prio;
			any = 1;
		}
	if (!any) {
		CHECK(e == NULL, "%s: %s lookup hit index %u, no rule matches", s->name, how, e->index);
		return;
	}
	CHECK(e != NULL, "%s: %s lookup missed, best priority %d", s->name, how, best);
	if (e == NULL)
		return;
	const struct rule *r = model_by_index(e->index);
	CHECK(r != NULL && rule_matches(s, r, key) && r->prio == best && e->action == r->action,
	      "%s: %s lookup gave index %u (prio %d, action %u, matches %d), want priority %d", s->name, how,
	      e->index, r ? r->prio : -1, e->action, r ? rule_matches(s, r, key) : -1, best);
}

static void lookups(const struct spec *s, struct p4dp_table *t, int n)
{
	enum { NB = 8 };
	uint8_t keys[NB][KEY_MAX];
	const void *kp[NB];
	const struct p4dp_entry *out[NB];
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < NB; i++) {
			const struct rule *r = NULL;
			if (n_model > 0 && below(4)) {
				r = &model[below(n_model)];
				if (!r->live)
					r = NULL;
			}
			gen_key(s, r, keys[i]);
			kp[i] = keys[i];
		}
		p4dp_table_lookup_bulk(t, kp, NB, out);
		for (int i = 0; i < NB; i++) {
			check_key(s, keys[i], out[i], "bulk");
			if (i < 2)
				check_key(s, keys[i], p4dp_table_lookup(t, keys[i]), "single");
		}
	}
}

struct fe_ctx {
	const struct spec *s;
	uint32_t seen, bad;
};

static int fe_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	struct fe_ctx *c = arg;
	const struct rule *r = model_by_index(e->index);
	c->seen++;
	if (r == NULL || m->priority != r->prio || memcmp(m->value, r->v, c->s->key_len) != 0 ||
	    memcmp(m->mask, r->m, c->s->key_len) != 0 || e->action != r->action)
		c->bad++;
	return 0;
}

static void run_random(const struct spec *s, uint32_t n_ops)
{
	case_fail = 0;
	n_model = 0;
	struct p4dp_table_params p = {.name = s->name, .key_len = s->key_len, .n_fields = s->n_fields,
				      .fields = s->f, .max_entries = s->max_rules, .data_len = 8,
				      .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	if (t == NULL) {
		printf("%-34s FAIL (create: %s)\n", s->name, strerror(errno));
		n_fail++;
		return;
	}
	/* INT32_MIN is the burst lookup's "no match yet" (table_tm.c): refused as a rule's priority */
	uint8_t zero[KEY_MAX] = {0};
	struct p4dp_match bad = {.value = zero, .mask = NULL, .hi = zero, .priority = INT32_MIN};
	struct p4dp_table_stats bst;
	CHECK(p4dp_table_entry_add(t, &bad, 0, zero) == -EINVAL && p4dp_table_stats_get(t, &bst) == 0 &&
		      bst.entries == 0,
	      "%s: a rule of priority INT32_MIN was not refused", s->name);
	uint32_t live = 0, ins = 0, del = 0, mod = 0;
	uint64_t max_tabs = 0;
	for (uint32_t op = 0; op < n_ops && case_fail == 0; op++) {
		/* grow to about 3/4 of the capacity, then churn around it */
		uint32_t dice = (uint32_t)below(100);
		uint32_t grow = live < s->max_rules * 3 / 4 ? 75 : 40;
		if (dice < grow && n_model < MODEL_MAX) {
			struct rule *r = &model[n_model];
			if (n_model > 0 && below(20) == 0) {
				/* the same match as a live rule, at another priority */
				*r = model[below(n_model)];
				r->prio = (int32_t)below(40);
			} else {
				gen_rule(s, r);
			}
			r->action = (uint32_t)below(1000);
			r->live = 0;
			struct p4dp_match m = to_match(s, r);
			int exists = 0;
			for (uint32_t i = 0; i < n_model; i++)
				if (model[i].live && model[i].prio == r->prio && !memcmp(model[i].v, r->v, KEY_MAX) &&
				    !memcmp(model[i].m, r->m, KEY_MAX) && !memcmp(model[i].hi, r->hi, KEY_MAX))
					exists = 1;
			int rc = p4dp_table_entry_add(t, &m, r->action, &r->action);
			if (exists) {
				CHECK(rc == -EEXIST, "%s: duplicate add gave %d", s->name, rc);
			} else if (live >= s->max_rules) {
				CHECK(rc == -ENOSPC, "%s: add to a full table gave %d", s->name, rc);
			} else {
				CHECK(rc == 0, "%s: add gave %d", s->name, rc);
				if (rc == 0) {
					CHECK(p4dp_table_entry_get(t, &m, NULL, NULL, &r->index) == 0, "get after add");
					r->live = 1;
					n_model++;
					live++;
					ins++;
				}
			}
		} else if (live > 0) {
			struct rule *r;
			do
				r = &model[below(n_model)];
			while (!r->live);
			struct p4dp_match m = to_match(s, r);
			if (dice < 85) {
				CHECK(p4dp_table_entry_delete(t, &m) == 0, "%s: delete", s->name);
				CHECK(p4dp_table_entry_delete(t, &m) == -ENOENT, "%s: second delete", s->name);
				r->live = 0;
				live--;
				del++;
			} else {
				r->action = (uint32_t)below(1000);
				CHECK(p4dp_table_entry_modify(t, &m, r->action, &r->action) == 0, "%s: modify", s->name);
				mod++;
			}
		}
		/* compact the model now and then (dead rules only slow the brute force down) */
		if (n_model == MODEL_MAX || (op % 512) == 0) {
			uint32_t k = 0;
			for (uint32_t i = 0; i < n_model; i++)
				if (model[i].live)
					model[k++] = model[i];
			n_model = k;
		}
		lookups(s, t, op % 64 == 0 ? 8 : 1);
		struct p4dp_table_stats st;
		p4dp_table_stats_get(t, &st);
		if (st.tuples > max_tabs)
			max_tabs = st.tuples;
	}
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	CHECK(st.entries == live, "%s: %" PRIu64 " entries, model %u", s->name, st.entries, live);
	struct fe_ctx fc = {.s = s};
	CHECK(p4dp_table_foreach(t, fe_cb, &fc) == 0 && fc.seen == live && fc.bad == 0,
	      "%s: foreach saw %u (%u bad) of %u", s->name, fc.seen, fc.bad, live);
	/* delete everything: every tab empties and leaves */
	for (uint32_t i = 0; i < n_model; i++) {
		if (!model[i].live)
			continue;
		struct p4dp_match m = to_match(s, &model[i]);
		CHECK(p4dp_table_entry_delete(t, &m) == 0, "%s: final delete", s->name);
		model[i].live = 0;
	}
	p4dp_table_stats_get(t, &st);
	CHECK(st.entries == 0 && st.tuples == 0, "%s: %" PRIu64 " entries, %" PRIu64 " tabs left", s->name,
	      st.entries, st.tuples);
	lookups(s, t, 4);
	p4dp_table_free(t);
	printf("%-34s %s (%u inserts, %u deletes, %u modifies, up to %" PRIu64 " tabs)\n", s->name,
	       case_fail ? "FAIL" : "ok", ins, del, mod, max_tabs);
	if (case_fail)
		n_fail++;
	else
		n_pass++;
}

/* ------------------------------------------------------------ concurrent readers + writer */

#define N_PROBE 64
#define N_READERS 2

struct conc {
	struct p4dp_table *t;
	struct p4dp_rcu *rcu;
	uint8_t keys[N_PROBE][16];
	uint32_t index[N_PROBE];
	int stop; /* relaxed atomics: a stop flag orders nothing */
};

struct reader {
	struct conc *c;
	uint32_t id;
	uint64_t lookups, misses, wrong, torn;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct conc *c = r->c;
	p4dp_rcu_register(c->rcu, r->id);
	const void *kp[N_PROBE];
	const struct p4dp_entry *out[N_PROBE];
	for (uint32_t i = 0; i < N_PROBE; i++)
		kp[i] = c->keys[i];
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		p4dp_table_lookup_bulk(c->t, kp, N_PROBE, out);
		out[r->lookups % N_PROBE] = p4dp_table_lookup(c->t, kp[r->lookups % N_PROBE]);
		for (uint32_t i = 0; i < N_PROBE; i++) {
			const struct p4dp_entry *e = out[i];
			r->lookups++;
			if (e == NULL) {
				r->misses++;
				continue;
			}
			if (e->index != c->index[i])
				r->wrong++;
			uint32_t d[2];
			memcpy(d, e->data, sizeof(d));
			if (d[0] != d[1] || d[0] != e->action)
				r->torn++;
		}
		p4dp_rcu_quiescent(c->rcu, r->id);
	}
	p4dp_rcu_unregister(c->rcu, r->id);
	return NULL;
}

/* Key: src 32 ternary, dst 32 ternary, proto 8 ternary, sport 16 range, dport 16 range. */
static const struct p4dp_key_field acl_f[5] = {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_TERNARY, 4, 4, 32),
					       F(P4DP_MATCH_TERNARY, 8, 1, 8), F(P4DP_MATCH_RANGE, 10, 2, 16),
					       F(P4DP_MATCH_RANGE, 12, 2, 16)};

/* A churn rule: random prefixes and ranges; proto 17 rules may match probe keys (priorities
 * below the stable rules'), proto 99 rules never do (priorities above). */
static void churn_rule(uint8_t *v, uint8_t *m, uint8_t *hi, int32_t *prio)
{
	memset(v, 0, 16);
	memset(m, 0, 16);
	memset(hi, 0, 16);
	uint32_t src = 0x0a000000u | (uint32_t)below(1u << 16), dst = 0xc0a80000u | (uint32_t)below(1u << 16);
	uint32_t sm = (uint32_t)pmask(32, (uint32_t)below(33)), dm = (uint32_t)pmask(32, (uint32_t)below(33));
	src &= sm;
	dst &= dm;
	memcpy(v, &src, 4);
	memcpy(m, &sm, 4);
	memcpy(v + 4, &dst, 4);
	memcpy(m + 4, &dm, 4);
	int above = below(2) == 0;
	v[8] = above ? 99 : 17;
	m[8] = 0xff;
	uint16_t lo = (uint16_t)below(60000), h = (uint16_t)(lo + below(5000));
	memcpy(v + 10, &lo, 2);
	memcpy(hi + 10, &h, 2);
	uint16_t all = 0xffff, zero = 0;
	memcpy(v + 12, &zero, 2);
	memcpy(hi + 12, &all, 2);
	*prio = above ? 2000 + (int32_t)below(1000) : (int32_t)below(1000);
}

static void run_concurrent(uint32_t n_ops)
{
	case_fail = 0;
	struct p4dp_table_params p = {.name = "classifier concurrent", .key_len = 14, .n_fields = 5, .fields = acl_f,
				      .max_entries = 8192, .data_len = 8, .socket_id = SOCKET_ID_ANY};
	struct conc *c = calloc(1, sizeof(*c));
	c->rcu = p4dp_rcu_create(N_READERS, SOCKET_ID_ANY);
	c->t = c->rcu ? p4dp_table_create(&p, c->rcu) : NULL;
	if (c->t == NULL) {
		printf("%-34s FAIL (create: %s)\n", p.name, strerror(errno));
		n_fail++;
		p4dp_rcu_free(c->rcu);
		free(c);
		return;
	}
	/* stable rules: probe i is 10.0.x.y -> 192.168.x.y proto 17, ports i / any; rule i matches
	 * it with mixed prefixes and a port range, at priority 1000 + i */
	uint8_t sv[N_PROBE][16], sm[N_PROBE][16], sh[N_PROBE][16];
	int rc = 0;
	for (uint32_t i = 0; i < N_PROBE; i++) {
		uint8_t *k = c->keys[i];
		memset(k, 0, 16);
		uint32_t src = 0x0a000000u | (uint32_t)below(1u << 16), dst = 0xc0a80000u | (uint32_t)below(1u << 16);
		uint16_t sport = (uint16_t)(1000 + i), dport = (uint16_t)below(65536);
		memcpy(k, &src, 4);
		memcpy(k + 4, &dst, 4);
		k[8] = 17;
		memcpy(k + 10, &sport, 2);
		memcpy(k + 12, &dport, 2);
		memset(sv[i], 0, 16);
		memset(sm[i], 0, 16);
		memset(sh[i], 0, 16);
		uint32_t msk = (uint32_t)pmask(32, 8 + (uint32_t)below(25)), sv32 = src & msk, dv32 = dst & ~0xffu;
		uint32_t dmk = ~0xffu;
		memcpy(sv[i], &sv32, 4);
		memcpy(sm[i], &msk, 4);
		memcpy(sv[i] + 4, &dv32, 4);
		memcpy(sm[i] + 4, &dmk, 4);
		sv[i][8] = 17;
		sm[i][8] = 0xff;
		uint16_t lo = sport, h = sport, all = 0xffff;
		memcpy(sv[i] + 10, &lo, 2);
		memcpy(sh[i] + 10, &h, 2);
		memcpy(sh[i] + 12, &all, 2);
		struct p4dp_match m = {.value = sv[i], .mask = sm[i], .hi = sh[i], .priority = 1000 + (int32_t)i};
		uint32_t d[2] = {1, 1};
		rc |= p4dp_table_entry_add(c->t, &m, 1, d);
		rc |= p4dp_table_entry_get(c->t, &m, NULL, NULL, &c->index[i]);
	}
	struct reader rd[N_READERS];
	pthread_t th[N_READERS];
	uint32_t started = 0;
	for (uint32_t i = 0; rc == 0 && i < N_READERS; i++) {
		rd[i] = (struct reader){.c = c, .id = i};
		if (pthread_create(&th[i], NULL, reader_main, &rd[i]) == 0)
			started++;
	}
	CHECK(rc == 0 && started == N_READERS, "setup: rc %d, %u readers", rc, started);
	enum { CHURN = 2048 };
	static uint8_t cv[CHURN][16], cm[CHURN][16], ch[CHURN][16];
	static int32_t cp[CHURN];
	static uint8_t clive[CHURN];
	memset(clive, 0, sizeof(clive));
	uint64_t wfail = 0, changes = 0;
	for (uint32_t op = 0; started == N_READERS && op < n_ops; op++) {
		if (op % 4 == 0) {
			uint32_t i = (uint32_t)below(N_PROBE);
			uint32_t a = 1 + (op & 1) + 2 * (uint32_t)below(2), d[2] = {a, a};
			struct p4dp_match m = {.value = sv[i], .mask = sm[i], .hi = sh[i], .priority = 1000 + (int32_t)i};
			wfail += p4dp_table_entry_modify(c->t, &m, a, d) != 0;
			continue;
		}
		uint32_t j = (uint32_t)below(CHURN);
		struct p4dp_match m = {.value = cv[j], .mask = cm[j], .hi = ch[j], .priority = cp[j]};
		if (clive[j]) {
			wfail += p4dp_table_entry_delete(c->t, &m) != 0;
			clive[j] = 0;
		} else {
			churn_rule(cv[j], cm[j], ch[j], &cp[j]);
			m.priority = cp[j];
			int r = p4dp_table_entry_add(c->t, &m, 7, NULL);
			wfail += r != 0 && r != -EEXIST;
			clive[j] = r == 0;
		}
		changes++;
		/* now and then empty the churn completely (every churn tab leaves the view) */
		if (op % 5000 == 4999) {
			for (uint32_t k = 0; k < CHURN; k++) {
				if (!clive[k])
					continue;
				struct p4dp_match mk = {.value = cv[k], .mask = cm[k], .hi = ch[k], .priority = cp[k]};
				wfail += p4dp_table_entry_delete(c->t, &mk) != 0;
				clive[k] = 0;
			}
		}
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
	uint64_t lk = 0, miss = 0, wrong = 0, torn = 0;
	for (uint32_t i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		lk += rd[i].lookups;
		miss += rd[i].misses;
		wrong += rd[i].wrong;
		torn += rd[i].torn;
	}
	struct p4dp_table_stats st;
	p4dp_table_stats_get(c->t, &st);
	CHECK(miss == 0 && wrong == 0 && torn == 0 && wfail == 0 && lk > 0,
	      "%" PRIu64 " lookups: %" PRIu64 " misses, %" PRIu64 " wrong rule, %" PRIu64 " torn; %" PRIu64
	      " writer failures",
	      lk, miss, wrong, torn, wfail);
	printf("%-34s %s (%" PRIu64 " rule changes, %" PRIu64 " lookups, %" PRIu64 " tabs at the end)\n",
	       p.name, case_fail ? "FAIL" : "ok", changes, lk, st.tuples);
	if (case_fail)
		n_fail++;
	else
		n_pass++;
	p4dp_table_free(c->t);
	p4dp_rcu_free(c->rcu);
	free(c);
}

static const struct spec specs[] = {
	{"acl: ternary addresses, port ranges", 14, 5,
	 {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_TERNARY, 4, 4, 32), F(P4DP_MATCH_TERNARY, 8, 1, 8),
	  F(P4DP_MATCH_RANGE, 10, 2, 16), F(P4DP_MATCH_RANGE, 12, 2, 16)},
	 3000},
	{"acl: all ternary", 14, 5,
	 {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_TERNARY, 4, 4, 32), F(P4DP_MATCH_TERNARY, 8, 1, 8),
	  F(P4DP_MATCH_TERNARY, 10, 2, 16), F(P4DP_MATCH_TERNARY, 12, 2, 16)},
	 3000},
	{"mixed: exact, optional, 64-bit fields", 24, 4,
	 {F(P4DP_MATCH_EXACT, 0, 1, 3), F(P4DP_MATCH_OPTIONAL, 2, 2, 12), F(P4DP_MATCH_TERNARY, 8, 8, 64),
	  F(P4DP_MATCH_RANGE, 16, 8, 48)},
	 2000},
	/* the burst lookup has one copy per key width in 8-byte words (1..4) and range / no range
	 * fields (table_tm.c): one word with a range, four words with and without one */
	{"narrow: one word, ternary, range, optional", 7, 3,
	 {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_RANGE, 4, 2, 16), F(P4DP_MATCH_OPTIONAL, 6, 1, 8)},
	 2000},
	{"wide: four words, 64-bit ternary and range", 32, 4,
	 {F(P4DP_MATCH_TERNARY, 0, 8, 64), F(P4DP_MATCH_TERNARY, 8, 8, 64), F(P4DP_MATCH_RANGE, 16, 8, 64),
	  F(P4DP_MATCH_TERNARY, 24, 8, 64)},
	 2000},
	{"wide: four words, ternary only", 26, 3,
	 {F(P4DP_MATCH_TERNARY, 0, 8, 64), F(P4DP_MATCH_TERNARY, 8, 8, 64), F(P4DP_MATCH_TERNARY, 16, 8, 60)},
	 2000},
};

#if defined(__SANITIZE_THREAD__)
#define RANDOM_OPS 0u
#else
#define RANDOM_OPS 6000u
#endif

int main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0], "0@0,1@1") != 0)
		return 1;
	uint64_t seed = getenv("P4DP_TEST_SEED") ? strtoull(getenv("P4DP_TEST_SEED"), NULL, 0) : 0x2545f4914f6cdd1dull;
	printf("seed %" PRIu64 " (P4DP_TEST_SEED replays)\n", seed);
	/* single-threaded: nothing for ThreadSanitizer to check (make tsan runs the concurrent part) */
	for (size_t i = 0; RANDOM_OPS > 0 && i < sizeof(specs) / sizeof(specs[0]); i++) {
		rng_state = seed + i * 0x9e3779b97f4a7c15ull;
		run_random(&specs[i], RANDOM_OPS);
	}
	rng_state = seed ^ 0x5851f42d4c957f2dull;
	run_concurrent(100000 / P4DP_TEST_TSAN_DIV);
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Randomized tests of p4dp tables against a reference model (a linear scan that
 * picks the highest priority / longest prefix). Single-threaded (rcu == NULL and
 * with an RCU domain without online workers).
 * Exit status 0 only if every check passed; last line 'N passed, N failed'.
 * Seed: env P4DP_TEST_SEED (default fixed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "p4dp/abi.h"
#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "p4dp/xindex.h"
#include "hash.h"
#include "tsan_test.h" /* test_eal_init_mem */

static unsigned n_pass, n_fail;
static unsigned case_fail;

#define CHECK(cond, ...)                                                                                  \
	do {                                                                                              \
		if (!(cond)) {                                                                            \
			if (case_fail++ < 10) {                                                           \
				fprintf(stderr, "  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
				fprintf(stderr, __VA_ARGS__);                                             \
				fprintf(stderr, "\n");                                                    \
			}                                                                                 \
		}                                                                                         \
	} while (0)

/* A case ends: it passed when no CHECK of it failed. */
static void case_count(void)
{
	if (case_fail)
		n_fail++;
	else
		n_pass++;
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}
static uint32_t rndn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

/* Distinct pseudo-random priorities: a bijection of a counter. */
static uint32_t prio_ctr;
static int32_t next_prio(void)
{
	uint32_t x = ++prio_ctr;
	x = (x ^ (x >> 16)) * 0x45d9f3bu;
	x = (x ^ (x >> 16)) * 0x45d9f3bu;
	x ^= x >> 16;
	return (int32_t)(x & 0x3fffffff);
}

/* ------------------------------------------------------------ layout helpers (independent of the library) */

#define K_MAX 96
#define D_MAX 32
#define M_MAX 2048

struct spec {
	const char *name;
	uint32_t key_len;
	uint32_t nf;
	struct p4dp_key_field f[8];
	uint32_t max_entries;
	uint32_t data_len;
	int storage;
	int prefix_prio; /* only exact+lpm fields (or keyless): priority not part of the identity */
	uint32_t dom;    /* small value domain, to provoke overlaps */
};

static void set_bit(const struct p4dp_key_field *f, uint8_t *buf, uint32_t b)
{
	uint32_t byte = f->bitwidth <= 128 ? b / 8 : f->size - 1u - b / 8;
	buf[f->offset + byte] |= (uint8_t)(1u << (b % 8));
}

static int get_bit(const struct p4dp_key_field *f, const uint8_t *buf, uint32_t b)
{
	uint32_t byte = f->bitwidth <= 128 ? b / 8 : f->size - 1u - b / 8;
	return (buf[f->offset + byte] >> (b % 8)) & 1;
}

static void width_mask(const struct spec *s, uint8_t *wm)
{
	memset(wm, 0, s->key_len);
	for (uint32_t i = 0; i < s->nf; i++)
		for (uint32_t b = 0; b < s->f[i].bitwidth; b++)
			set_bit(&s->f[i], wm, b);
}

/* Write small integer v into field f (bits beyond the width dropped). */
static void put_int(const struct p4dp_key_field *f, uint8_t *buf, uint64_t v)
{
	memset(buf + f->offset, 0, f->size);
	for (uint32_t b = 0; b < f->bitwidth && b < 64; b++)
		if ((v >> b) & 1)
			set_bit(f, buf, b);
}

/* unsigned compare of field f in a and b */
static int fcmp(const struct p4dp_key_field *f, const uint8_t *a, const uint8_t *b)
{
	for (int bit = f->bitwidth - 1; bit >= 0; bit--) {
		int x = get_bit(f, a, (uint32_t)bit), y = get_bit(f, b, (uint32_t)bit);
		if (x != y)
			return x - y;
	}
	return 0;
}

/* random field value: small domain or fully random */
static void rand_field(const struct spec *s, const struct p4dp_key_field *f, uint8_t *buf)
{
	if (rndn(4) != 0) {
		put_int(f, buf, rndn(s->dom));
		if (f->bitwidth > 16 && rndn(2))
			set_bit(f, buf, f->bitwidth - 1); /* exercise high bits */
	} else {
		memset(buf + f->offset, 0, f->size);
		for (uint32_t b = 0; b < f->bitwidth; b++)
			if (rnd() & 1)
				set_bit(f, buf, b);
	}
}

/* ------------------------------------------------------------ model */

struct ment {
	uint8_t v[K_MAX], mk[K_MAX], hi[K_MAX];
	int32_t prio;
	uint32_t action;
	uint8_t data[D_MAX];
	uint32_t index;
	int live;
};

static struct ment model[M_MAX];
static uint32_t n_model;

static int32_t eff_prio(const struct spec *s, const struct ment *e)
{
	if (!s->prefix_prio)
		return e->prio;
	int32_t p = 0;
	for (uint32_t i = 0; i < s->nf; i++)
		if (s->f[i].match_kind == P4DP_MATCH_LPM)
			for (uint32_t b = 0; b < s->f[i].bitwidth; b++)
				p += get_bit(&s->f[i], e->mk, b);
	return p;
}

static bool same_match(const struct spec *s, const struct ment *a, const struct ment *b)
{
	if (memcmp(a->v, b->v, s->key_len) || memcmp(a->mk, b->mk, s->key_len))
		return false;
	for (uint32_t i = 0; i < s->nf; i++)
		if (s->f[i].match_kind == P4DP_MATCH_RANGE &&
		    memcmp(a->hi + s->f[i].offset, b->hi + s->f[i].offset, s->f[i].size))
			return false;
	return s->prefix_prio || a->prio == b->prio;
}

static int find_live(const struct spec *s, const struct ment *m)
{
	for (uint32_t i = 0; i < n_model; i++)
		if (model[i].live && same_match(s, &model[i], m))
			return (int)i;
	return -1;
}

static uint32_t n_live(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < n_model; i++)
		n += model[i].live;
	return n;
}

static bool model_matches(const struct spec *s, const struct ment *e, const uint8_t *key)
{
	for (uint32_t i = 0; i < s->nf; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		if (f->match_kind == P4DP_MATCH_RANGE) {
			if (fcmp(f, key, e->v) < 0 || fcmp(f, key, e->hi) > 0)
				return false;
		} else {
			for (uint32_t j = f->offset; j < f->offset + f->size; j++)
				if ((key[j] & e->mk[j]) != e->v[j])
					return false;
		}
	}
	return true;
}

static const struct ment *model_lookup(const struct spec *s, const uint8_t *key)
{
	const struct ment *best = NULL;
	for (uint32_t i = 0; i < n_model; i++) {
		const struct ment *e = &model[i];
		if (e->live && model_matches(s, e, key) && (best == NULL || eff_prio(s, e) > eff_prio(s, best)))
			best = e;
	}
	return best;
}

/* A random match for spec s. */
static void gen_match(const struct spec *s, struct ment *m)
{
	memset(m, 0, sizeof(*m));
	for (uint32_t i = 0; i < s->nf; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		uint8_t tmp[K_MAX] = {0};
		switch (f->match_kind) {
		case P4DP_MATCH_EXACT:
			rand_field(s, f, m->v);
			for (uint32_t b = 0; b < f->bitwidth; b++)
				set_bit(f, m->mk, b);
			break;
		case P4DP_MATCH_LPM: {
			uint32_t p = rndn(f->bitwidth + 1u);
			if (rndn(3) == 0 && f->bitwidth > 8)
				p = rndn(9); /* short prefixes overlap more */
			rand_field(s, f, tmp);
			for (uint32_t b = f->bitwidth - p; b < f->bitwidth; b++) {
				set_bit(f, m->mk, b);
				if (get_bit(f, tmp, b))
					set_bit(f, m->v, b);
			}
			break;
		}
		case P4DP_MATCH_TERNARY: {
			uint8_t mk[K_MAX] = {0};
			rand_field(s, f, tmp);
			for (uint32_t b = 0; b < f->bitwidth; b++) {
				if (rndn(3) != 0 || b < 2) /* dense masks, low bits mostly cared for */
					set_bit(f, mk, b);
				if (get_bit(f, mk, b)) {
					set_bit(f, m->mk, b);
					if (get_bit(f, tmp, b))
						set_bit(f, m->v, b);
				}
			}
			break;
		}
		case P4DP_MATCH_OPTIONAL:
			if (rndn(3) != 0) {
				rand_field(s, f, m->v);
				for (uint32_t b = 0; b < f->bitwidth; b++)
					set_bit(f, m->mk, b);
			}
			break;
		case P4DP_MATCH_RANGE: {
			uint8_t a[K_MAX] = {0}, b2[K_MAX] = {0};
			rand_field(s, f, a);
			rand_field(s, f, b2);
			const uint8_t *lo = fcmp(f, a, b2) <= 0 ? a : b2, *hi = lo == a ? b2 : a;
			memcpy(m->v + f->offset, lo + f->offset, f->size);
			memcpy(m->hi + f->offset, hi + f->offset, f->size);
			break;
		}
		}
	}
	m->prio = next_prio();
}

/* A lookup key: from an entry (don't-care bits random) or fully random. */
static void gen_key(const struct spec *s, uint8_t *key)
{
	uint8_t wm[K_MAX];
	width_mask(s, wm);
	memset(key, 0, K_MAX);
	for (uint32_t i = 0; i < s->nf; i++)
		rand_field(s, &s->f[i], key);
	uint32_t live = n_live();
	if (live == 0 || rndn(10) < 3)
		return;
	uint32_t pick = rndn(live);
	const struct ment *e = NULL;
	for (uint32_t i = 0; i < n_model; i++)
		if (model[i].live && pick-- == 0) {
			e = &model[i];
			break;
		}
	for (uint32_t i = 0; i < s->nf; i++) {
		const struct p4dp_key_field *f = &s->f[i];
		if (f->match_kind == P4DP_MATCH_RANGE) {
			uint32_t c = rndn(3);
			if (c < 2)
				memcpy(key + f->offset, (c ? e->hi : e->v) + f->offset, f->size);
		} else {
			for (uint32_t j = f->offset; j < f->offset + f->size; j++)
				key[j] = (uint8_t)((key[j] & ~e->mk[j]) | e->v[j]);
		}
	}
	for (uint32_t j = 0; j < s->key_len; j++)
		key[j] &= wm[j];
}

static struct p4dp_match to_match(const struct spec *s, const struct ment *m)
{
	struct p4dp_match pm = {.value = m->v, .mask = m->mk, .hi = NULL, .priority = m->prio};
	for (uint32_t i = 0; i < s->nf; i++)
		if (s->f[i].match_kind == P4DP_MATCH_RANGE)
			pm.hi = m->hi;
	return pm;
}

static void rand_data(struct ment *m, uint32_t len)
{
	m->action = rndn(16) + 1;
	for (uint32_t i = 0; i < len; i++)
		m->data[i] = (uint8_t)rnd();
}

/* ------------------------------------------------------------ foreach check */

struct fe_ctx {
	const struct spec *s;
	uint32_t seen;
	uint32_t bad;
};

static int fe_cb(void *arg, const struct p4dp_match *pm, const struct p4dp_entry *e)
{
	struct fe_ctx *c = arg;
	const struct spec *s = c->s;
	struct ment m;
	memset(&m, 0, sizeof(m));
	memcpy(m.v, pm->value, s->key_len);
	memcpy(m.mk, pm->mask, s->key_len);
	if (pm->hi)
		memcpy(m.hi, pm->hi, s->key_len);
	m.prio = pm->priority;
	int i = find_live(s, &m);
	c->seen++;
	if (i < 0 || model[i].action != e->action || memcmp(model[i].data, e->data, s->data_len) ||
	    model[i].index != e->index)
		c->bad++;
	return 0;
}

/* ------------------------------------------------------------ the randomized driver */

static unsigned n_hits, n_lookups;

static void check_lookup(const struct spec *s, struct p4dp_table *t, const uint8_t *key)
{
	const struct ment *want = model_lookup(s, key);
	n_lookups++;
	n_hits += want != NULL;
	const struct p4dp_entry *got = p4dp_table_lookup(t, key);
	if (want == NULL) {
		CHECK(got == NULL, "%s: lookup hit (action %u) where model misses", s->name, got ? got->action : 0);
		return;
	}
	CHECK(got != NULL, "%s: lookup miss, model has action %u prio %d", s->name, want->action, want->prio);
	if (got == NULL)
		return;
	CHECK(got->action == want->action && memcmp(got->data, want->data, s->data_len) == 0 &&
		      got->index == want->index,
	      "%s: lookup got action %u index %u, want action %u index %u", s->name, got->action, got->index,
	      want->action, want->index);
}

/* A live model entry: the first at or after a random one; -1 when none is there. */
static int model_live_from_random(void)
{
	for (uint32_t i = rndn(n_model); i < n_model; i++)
		if (model[i].live)
			return (int)i;
	return -1;
}

/* The match in @p m of a modify or a delete: 3 in 4 of them a live entry's, the others a new
 * random one; returns the index of its live model entry, or -1 when it has none. */
static int pick_target(const struct spec *s, struct ment *m)
{
	const int live = rndn(4) != 0 && n_live() > 0 ? model_live_from_random() : -1;
	if (live >= 0)
		*m = model[live];
	else
		gen_match(s, m);
	return find_live(s, m);
}

static void run_random(const struct spec *s, uint32_t nops, struct p4dp_rcu *rcu)
{
	case_fail = 0;
	n_hits = n_lookups = 0;
	n_model = 0;
	prio_ctr = 0;
	uint64_t full = 0, adds = 0, dels = 0, mods = 0;
	struct p4dp_table_params p = {.name = s->name, .key_len = s->key_len, .n_fields = s->nf, .fields = s->f,
				      .max_entries = s->max_entries, .data_len = s->data_len,
				      .storage = s->storage, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, rcu);
	CHECK(t != NULL, "%s: create failed: %s", s->name, strerror(errno));
	if (t == NULL)
		goto out;
	uint8_t key[K_MAX];
	for (uint32_t op = 0; op < nops; op++) {
		uint32_t r = rndn(100);
		struct ment m;
		if (r < 40) { /* add */
			/* 1 in 10 adds: a live entry's match again */
			const int dup = rndn(10) == 0 && n_live() > 0 ? model_live_from_random() : -1;
			if (dup >= 0)
				m = model[dup];
			else
				gen_match(s, &m);
			rand_data(&m, s->data_len);
			struct p4dp_match pm = to_match(s, &m);
			int exp = find_live(s, &m) >= 0 ? -EEXIST : n_live() >= s->max_entries ? -ENOSPC : 0;
			int rc = p4dp_table_entry_add(t, &pm, m.action, m.data);
			CHECK(rc == exp, "%s: add rc %d want %d", s->name, rc, exp);
			if (rc == -ENOSPC)
				full++;
			if (rc == 0 && exp == 0 && n_model < M_MAX) {
				uint32_t idx = UINT32_MAX;
				uint32_t a2 = 0;
				uint8_t d2[D_MAX];
				CHECK(p4dp_table_entry_get(t, &pm, &a2, d2, &idx) == 0, "%s: get after add", s->name);
				CHECK(a2 == m.action && memcmp(d2, m.data, s->data_len) == 0, "%s: get data", s->name);
				CHECK(idx < s->max_entries, "%s: index %u out of range", s->name, idx);
				for (uint32_t i = 0; i < n_model; i++)
					CHECK(!model[i].live || model[i].index != idx, "%s: index %u reused while live",
					      s->name, idx);
				m.index = idx;
				m.live = 1;
				model[n_model++] = m;
				adds++;
			}
		} else if (r < 52) { /* modify */
			const int i = pick_target(s, &m);
			rand_data(&m, s->data_len);
			struct p4dp_match pm = to_match(s, &m);
			int rc = p4dp_table_entry_modify(t, &pm, m.action, m.data);
			CHECK(rc == (i >= 0 ? 0 : -ENOENT), "%s: modify rc %d", s->name, rc);
			if (rc == 0 && i >= 0) {
				model[i].action = m.action;
				memcpy(model[i].data, m.data, s->data_len);
				mods++;
			}
		} else if (r < 67) { /* delete */
			const int i = pick_target(s, &m);
			struct p4dp_match pm = to_match(s, &m);
			int rc = p4dp_table_entry_delete(t, &pm);
			CHECK(rc == (i >= 0 ? 0 : -ENOENT), "%s: delete rc %d want %d", s->name, rc,
			      i >= 0 ? 0 : -ENOENT);
			if (rc == 0 && i >= 0) {
				model[i].live = 0;
				dels++;
			}
			/* compact the model now and then */
			if (n_model > M_MAX - 64) {
				uint32_t w = 0;
				for (uint32_t k = 0; k < n_model; k++)
					if (model[k].live)
						model[w++] = model[k];
				n_model = w;
			}
		} else if (r < 97) { /* lookup */
			gen_key(s, key);
			check_lookup(s, t, key);
		} else { /* bulk lookup */
			enum { NB = 70 };
			static uint8_t keys[NB][K_MAX];
			const void *kp[NB];
			const struct p4dp_entry *out[NB];
			for (int i = 0; i < NB; i++) {
				gen_key(s, keys[i]);
				kp[i] = keys[i];
			}
			p4dp_table_lookup_bulk(t, kp, NB, out);
			/* a hint that changes nothing: the same answers after it (and the model's checks
			 * below and in every later step) */
			p4dp_table_prefetch_inserts(t, kp, NB, out);
			const struct p4dp_entry *again[NB];
			p4dp_table_lookup_bulk(t, kp, NB, again);
			for (int i = 0; i < NB; i++)
				CHECK(again[i] == out[i], "bulk lookup %d changed after p4dp_table_prefetch_inserts", i);
			for (int i = 0; i < NB; i++) {
				const struct ment *w = model_lookup(s, keys[i]);
				if (getenv("P4DP_TEST_DEBUG") && w && out[i] && out[i]->index != w->index) {
					for (uint32_t k = 0; k < n_model; k++)
						if (model[k].live && model_matches(s, &model[k], keys[i]))
							fprintf(stderr, "   match idx %u act %u prio %d v %02x%02x%02x%02x%02x%02x%02x%02x mk %02x%02x%02x%02x%02x%02x%02x%02x\n",
								model[k].index, model[k].action, eff_prio(s, &model[k]),
								model[k].v[0], model[k].v[1], model[k].v[2], model[k].v[3], model[k].v[4], model[k].v[5], model[k].v[6], model[k].v[7],
								model[k].mk[0], model[k].mk[1], model[k].mk[2], model[k].mk[3], model[k].mk[4], model[k].mk[5], model[k].mk[6], model[k].mk[7]);
					const struct p4dp_entry *e1 = p4dp_table_lookup(t, keys[i]);
					struct p4dp_match pm = to_match(s, w);
					uint32_t gi = 0;
					int grc = p4dp_table_entry_get(t, &pm, NULL, NULL, &gi);
					struct p4dp_table_stats st;
					p4dp_table_stats_get(t, &st);
					fprintf(stderr, "   single lookup idx %u; get want rc %d idx %u; tuples %lu\n", e1 ? e1->index : 999, grc, gi, (unsigned long)st.tuples);
					fprintf(stderr, "   key %02x%02x%02x%02x%02x%02x%02x%02x\n", keys[i][0], keys[i][1], keys[i][2], keys[i][3], keys[i][4], keys[i][5], keys[i][6], keys[i][7]);
				}
				CHECK((w == NULL && out[i] == NULL) ||
					      (w != NULL && out[i] != NULL && out[i]->action == w->action &&
					       out[i]->index == w->index),
				      "%s: bulk lookup %d differs: got %u/%u want %u/%u prio %d", s->name, i,
				      out[i] ? out[i]->action : 0, out[i] ? out[i]->index : 0, w ? w->action : 0,
				      w ? w->index : 0, w ? eff_prio(s, w) : -1);
			}
		}
	}
	struct p4dp_table_stats st;
	CHECK(p4dp_table_stats_get(t, &st) == 0, "stats");
	CHECK(st.entries == n_live(), "%s: stats entries %" PRIu64 " model %u", s->name, st.entries, n_live());
	CHECK(st.table_full == full, "%s: table_full %" PRIu64 " want %" PRIu64, s->name, st.table_full, full);
	CHECK(st.inserts == adds && st.deletes == dels && st.modifies == mods, "%s: op counters", s->name);
	struct fe_ctx fc = {.s = s};
	CHECK(p4dp_table_foreach(t, fe_cb, &fc) == 0, "foreach rc");
	CHECK(fc.seen == n_live() && fc.bad == 0, "%s: foreach saw %u (bad %u), model %u", s->name, fc.seen,
	      fc.bad, n_live());
	CHECK(p4dp_table_clear(t) == 0, "clear");
	for (uint32_t i = 0; i < n_model; i++)
		model[i].live = 0;
	for (int i = 0; i < 200; i++) {
		gen_key(s, key);
		CHECK(p4dp_table_lookup(t, key) == NULL, "%s: hit after clear", s->name);
	}
	CHECK(p4dp_table_stats_get(t, &st) == 0 && st.entries == 0, "%s: entries after clear", s->name);
	p4dp_table_free(t);
out:
	CHECK(n_hits > n_lookups / 10, "%s: too few hits to be meaningful", s->name);
	printf("%-32s %s (%u ops, %u/%u lookups hit%s)\n", s->name, case_fail ? "FAIL" : "ok", nops, n_hits,
	       n_lookups, rcu ? ", rcu" : "");
	case_count();
}

/* ------------------------------------------------------------ specs */

#define F(k, o, sz, w) {.match_kind = (k), .offset = (o), .size = (sz), .bitwidth = (w)}

static const struct spec specs[] = {
	{"exact static", 12, 3, {F(P4DP_MATCH_EXACT, 0, 4, 32), F(P4DP_MATCH_EXACT, 4, 2, 16),
				  F(P4DP_MATCH_EXACT, 8, 2, 9)}, 300, 8, P4DP_STORAGE_STATIC, 1, 24},
	{"exact dynamic", 12, 3, {F(P4DP_MATCH_EXACT, 0, 4, 32), F(P4DP_MATCH_EXACT, 4, 2, 16),
				   F(P4DP_MATCH_EXACT, 8, 2, 9)}, 300, 8, P4DP_STORAGE_DYNAMIC, 1, 24},
	{"exact auto wide (128,200 bits)", 48, 2, {F(P4DP_MATCH_EXACT, 0, 16, 128), F(P4DP_MATCH_EXACT, 16, 25, 200)},
	 200, 20, P4DP_STORAGE_AUTO, 1, 40},
	{"exact tiny (max 5)", 1, 1, {F(P4DP_MATCH_EXACT, 0, 1, 3)}, 5, 4, P4DP_STORAGE_STATIC, 1, 8},
	{"keyless", 0, 0, {{0}}, 1, 8, P4DP_STORAGE_AUTO, 1, 1},
	{"lpm 8", 1, 1, {F(P4DP_MATCH_LPM, 0, 1, 8)}, 200, 4, 0, 1, 256},
	{"lpm 32", 4, 1, {F(P4DP_MATCH_LPM, 0, 4, 32)}, 600, 8, 0, 1, 64},
	{"lpm 128", 16, 1, {F(P4DP_MATCH_LPM, 0, 16, 128)}, 600, 8, 0, 1, 64},
	{"lpm 130 (big-endian wide)", 17, 1, {F(P4DP_MATCH_LPM, 0, 17, 130)}, 300, 8, 0, 1, 64},
	{"exact16 + lpm32", 8, 2, {F(P4DP_MATCH_EXACT, 0, 2, 16), F(P4DP_MATCH_LPM, 4, 4, 32)}, 600, 8, 0, 1, 4},
	{"ternary 32+8 prio", 8, 2, {F(P4DP_MATCH_TERNARY, 0, 4, 32), F(P4DP_MATCH_TERNARY, 4, 1, 8)}, 600, 8, 0, 0, 16},
	{"range 16 + exact 8", 4, 2, {F(P4DP_MATCH_RANGE, 0, 2, 16), F(P4DP_MATCH_EXACT, 2, 1, 8)}, 600, 8, 0, 0, 64},
	{"range 64 x2", 16, 2, {F(P4DP_MATCH_RANGE, 0, 8, 64), F(P4DP_MATCH_RANGE, 8, 8, 48)}, 400, 8, 0, 0, 1000},
	{"optional 16 + exact 8", 4, 2, {F(P4DP_MATCH_OPTIONAL, 0, 2, 16), F(P4DP_MATCH_EXACT, 2, 1, 8)}, 600, 8, 0, 0, 8},
	{"mixed ex/lpm/tern/range/opt", 24, 5,
	 {F(P4DP_MATCH_EXACT, 0, 1, 4), F(P4DP_MATCH_LPM, 4, 4, 32), F(P4DP_MATCH_TERNARY, 8, 2, 12),
	  F(P4DP_MATCH_RANGE, 10, 2, 16), F(P4DP_MATCH_OPTIONAL, 16, 8, 33)}, 800, 16, 0, 0, 6},
	{"ternary 136 (big-endian) + 128", 40, 2, {F(P4DP_MATCH_TERNARY, 0, 17, 136), F(P4DP_MATCH_TERNARY, 24, 16, 128)},
	 300, 8, 0, 0, 16},
};

/* ------------------------------------------------------------ targeted error tests */

static void test_errors(void)
{
	case_fail = 0;
	struct p4dp_key_field f2[2] = {F(P4DP_MATCH_LPM, 0, 4, 32), F(P4DP_MATCH_OPTIONAL, 4, 2, 12)};
	struct p4dp_table_params p = {.name = "err", .key_len = 8, .n_fields = 2, .fields = f2, .max_entries = 4,
				      .data_len = 4, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL, "create");
	if (t != NULL) {
		uint8_t v[8] = {0}, mk[8] = {0};
		struct p4dp_match m = {.value = v, .mask = mk};
		/* lpm mask not a prefix: bit 0 set without bit 31 */
		mk[0] = 1;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "non-prefix mask");
		/* value bit outside the mask */
		memset(mk, 0, 8);
		mk[3] = 0xff; /* /8 */
		v[0] = 1;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "value outside mask");
		v[0] = 0;
		/* optional mask partial */
		mk[4] = 0x0f;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "partial optional mask");
		/* optional value beyond 12 bits */
		mk[4] = 0xff;
		mk[5] = 0x0f;
		v[5] = 0x10;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "value beyond width");
		v[5] = 0;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == 0, "valid add");
		CHECK(p4dp_table_entry_add(t, &m, 2, NULL) == -EEXIST, "duplicate");
		CHECK(p4dp_table_entry_add(t, NULL, 2, NULL) == -EINVAL, "NULL match");
		uint8_t key[8] = {0x12, 0x34, 0x56, 0x00, 0x00, 0x00, 0, 0};
		const struct p4dp_entry *e = p4dp_table_lookup(t, key);
		CHECK(e != NULL && e->action == 1, "lookup /8 with optional 0");
		p4dp_table_free(t);
	}
	/* range: lo > hi, nonzero range mask, missing hi */
	struct p4dp_key_field fr[1] = {F(P4DP_MATCH_RANGE, 0, 2, 16)};
	struct p4dp_table_params pr = {.name = "range", .key_len = 2, .n_fields = 1, .fields = fr, .max_entries = 4,
				       .data_len = 0, .socket_id = SOCKET_ID_ANY};
	t = p4dp_table_create(&pr, NULL);
	CHECK(t != NULL, "create range");
	if (t != NULL) {
		uint8_t lo[2] = {0x10, 0x00}, hi[2] = {0x0f, 0x00}, mk[2] = {0xff, 0xff};
		struct p4dp_match m = {.value = lo, .hi = hi, .priority = 1};
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "lo > hi");
		hi[1] = 1;
		m.mask = mk;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "range mask nonzero");
		m.mask = NULL;
		m.hi = NULL;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "missing hi");
		m.hi = hi;
		CHECK(p4dp_table_entry_add(t, &m, 7, NULL) == 0, "range add");
		uint8_t k[2] = {0x00, 0x01};
		const struct p4dp_entry *e = p4dp_table_lookup(t, k);
		CHECK(e != NULL && e->action == 7, "range lookup 0x100 in [0x10,0x10f]");
		k[0] = 0x10;
		CHECK(p4dp_table_lookup(t, k) == NULL, "range lookup 0x110 outside");
		p4dp_table_free(t);
	}
	/* bad params */
	struct p4dp_key_field fb[1] = {F(P4DP_MATCH_EXACT, 0, 3, 24)};
	struct p4dp_table_params pb = {.key_len = 4, .n_fields = 1, .fields = fb, .max_entries = 4};
	errno = 0;
	CHECK(p4dp_table_create(&pb, NULL) == NULL && errno == EINVAL, "size 3 rejected");
	fb[0] = (struct p4dp_key_field)F(P4DP_MATCH_EXACT, 2, 4, 24);
	CHECK(p4dp_table_create(&pb, NULL) == NULL && errno == EINVAL, "field beyond key rejected");
	fb[0] = (struct p4dp_key_field)F(P4DP_MATCH_EXACT, 0, 2, 17);
	CHECK(p4dp_table_create(&pb, NULL) == NULL && errno == EINVAL, "width beyond size rejected");
	/* exact: value bits in padding */
	fb[0] = (struct p4dp_key_field)F(P4DP_MATCH_EXACT, 0, 2, 12);
	t = p4dp_table_create(&pb, NULL);
	CHECK(t != NULL, "create exact");
	if (t != NULL) {
		uint8_t v[4] = {0, 0x10, 0, 0};
		struct p4dp_match m = {.value = v};
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "exact value beyond width");
		v[1] = 0;
		v[3] = 1;
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -EINVAL, "exact padding nonzero");
		v[3] = 0;
		CHECK(p4dp_table_entry_delete(t, &m) == -ENOENT, "delete missing");
		CHECK(p4dp_table_entry_modify(t, &m, 1, NULL) == -ENOENT, "modify missing");
		uint32_t a;
		CHECK(p4dp_table_entry_get(t, &m, &a, NULL, NULL) == -ENOENT, "get missing");
		p4dp_table_free(t);
	}
	printf("%-32s %s\n", "error handling", case_fail ? "FAIL" : "ok");
	case_count();
}

/* Counts the entries a walk finds (each key once: a duplicate key in the hash would not show). */
static int count_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	(void)m;
	(void)e;
	(*(uint64_t *)arg)++;
	return 0;
}

/* p4dp_table_dp_insert_seen: the existence check is skipped only while the insert generation is
 * the one the caller saw; any add in between (control plane or data plane) brings the check back.
 * Both storages. A skip taken when it must not be shows as an insert that returns 0 for a key
 * already present (rte_hash would replace its entry): the walk then finds fewer keys than the
 * table counts. */
static void test_insert_seen(int storage)
{
	case_fail = 0;
	struct p4dp_key_field f[1] = {F(P4DP_MATCH_EXACT, 0, 4, 32)};
	struct p4dp_table_params p = {.name = "seen", .key_len = 4, .n_fields = 1, .fields = f, .max_entries = 64,
				      .data_len = 8, .storage = storage, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	uint32_t k = 1;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	uint64_t d = 7;
	uint64_t g0 = p4dp_table_ins_gen(t);
	/* seen and unchanged: inserted, and the caller's generation follows its own insert */
	uint64_t g = g0;
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &g) == 0, "insert 1");
	CHECK(g == p4dp_table_ins_gen(t) && g != g0, "generation advanced with the insert");
	k = 2;
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &g) == 0, "insert 2 after own insert");
	/* a control-plane add after the caller's look: the key is checked, and found */
	uint64_t old = p4dp_table_ins_gen(t);
	k = 3;
	CHECK(p4dp_table_entry_add(t, &m, 2, NULL) == 0, "control add 3");
	uint64_t stale = old;
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &stale) == -EEXIST, "stale generation: checked");
	CHECK(stale == old, "a checked insert leaves the caller's generation");
	/* a data-plane add by someone else after the caller's look: same */
	old = p4dp_table_ins_gen(t);
	k = 4;
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == 0, "other insert 4");
	stale = old;
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &stale) == -EEXIST, "other's insert: checked");
	/* a stale generation still inserts an absent key (only the check comes back) */
	k = 5;
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &stale) == 0 && stale == old, "stale, absent");
	/* modify and delete leave the generation: the key a delete removed is absent */
	g = p4dp_table_ins_gen(t);
	k = 3;
	d = 9;
	CHECK(p4dp_table_entry_modify(t, &m, 1, &d) == 0 && p4dp_table_ins_gen(t) == g, "modify keeps it");
	CHECK(p4dp_table_entry_delete(t, &m) == 0 && p4dp_table_ins_gen(t) == g, "delete keeps it");
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, &g) == 0, "re-insert after delete");
	/* NULL = p4dp_table_dp_insert */
	CHECK(p4dp_table_dp_insert_seen(t, &k, 1, &d, 0, 0, NULL) == -EEXIST, "NULL checks");
	struct p4dp_table_stats st;
	uint64_t walked = 0;
	CHECK(p4dp_table_stats_get(t, &st) == 0 && st.entries == 5, "entries %" PRIu64, st.entries);
	CHECK(p4dp_table_foreach(t, count_cb, &walked) == 0 && walked == st.entries, "walk %" PRIu64, walked);
	for (k = 1; k <= 5; k++)
		CHECK(p4dp_table_lookup(t, &k) != NULL, "key %u present", k);
	p4dp_table_free(t);
out:
	printf("%-32s %s\n", storage == P4DP_STORAGE_STATIC ? "insert_seen (static)" : "insert_seen (dynamic)",
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/* p4dp_table_stage_ahead: 0 below P4DP_STAGE_AHEAD_MIN_ENTRIES entries and 1 from there, for
 * exact, lpm and ternary tables, following inserts and deletes; P4DP_STAGE_AHEAD_MIN (read at
 * creation) replaces the threshold, and a malformed value leaves the default. */
static void test_stage_ahead(uint32_t kind)
{
	case_fail = 0;
	struct p4dp_key_field f[1] = {F(kind, 0, 4, 32)};
	struct p4dp_table_params p = {.name = "ahead", .key_len = 4, .n_fields = 1, .fields = f,
				      .max_entries = P4DP_STAGE_AHEAD_MIN_ENTRIES + 8, .data_len = 0,
				      .storage = P4DP_STORAGE_STATIC, .socket_id = SOCKET_ID_ANY};
	const uint8_t ones[4] = {0xff, 0xff, 0xff, 0xff};
	uint32_t k = 0;
	struct p4dp_match m = {.value = (const uint8_t *)&k, .priority = 1};
	if (kind != P4DP_MATCH_EXACT)
		m.mask = ones; /* lpm: a /32 prefix; ternary: every bit */
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	CHECK(p4dp_table_stage_ahead(t) == 0, "empty: not staged");
	CHECK(p4dp_table_stage_ahead_min() == P4DP_STAGE_AHEAD_MIN_ENTRIES, "the default threshold");
	for (k = 1; k < P4DP_STAGE_AHEAD_MIN_ENTRIES; k++)
		if (p4dp_table_entry_add(t, &m, 0, NULL) != 0)
			break;
	CHECK(k == P4DP_STAGE_AHEAD_MIN_ENTRIES, "inserted %u", k - 1);
	CHECK(p4dp_table_stage_ahead(t) == 0, "one entry below the threshold: not staged");
	CHECK(p4dp_table_entry_add(t, &m, 0, NULL) == 0, "insert at the threshold");
	CHECK(p4dp_table_stage_ahead(t) == 1, "at the threshold: staged");
	CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete");
	CHECK(p4dp_table_stage_ahead(t) == 0, "after a delete: not staged");
	CHECK(p4dp_table_clear(t) == 0 && p4dp_table_stage_ahead(t) == 0, "cleared: not staged");
	p4dp_table_free(t);
	/* the environment's threshold: 0 stages an empty table; a malformed value is ignored */
	setenv("P4DP_STAGE_AHEAD_MIN", "0", 1);
	t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL && p4dp_table_stage_ahead(t) == 1, "P4DP_STAGE_AHEAD_MIN=0: empty table staged");
	CHECK(p4dp_table_stage_ahead_min() == 0, "P4DP_STAGE_AHEAD_MIN=0: threshold 0");
	p4dp_table_free(t);
	setenv("P4DP_STAGE_AHEAD_MIN", "12x", 1);
	t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL && p4dp_table_stage_ahead(t) == 0, "malformed P4DP_STAGE_AHEAD_MIN: the default");
	CHECK(p4dp_table_stage_ahead_min() == P4DP_STAGE_AHEAD_MIN_ENTRIES, "malformed: the default threshold");
	p4dp_table_free(t);
	unsetenv("P4DP_STAGE_AHEAD_MIN");
out:
	printf("stage_ahead (%s) %s\n",
	       kind == P4DP_MATCH_EXACT ? "exact" : kind == P4DP_MATCH_LPM ? "lpm" : "ternary",
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/* Full table, delete, re-add: with a RCU domain and an online but idle worker,
 * the freed index is only reusable after a grace period; add must still succeed
 * (it waits for the worker's quiescent report, which we give from here). */
static void test_full_with_rcu(struct p4dp_rcu *rcu)
{
	case_fail = 0;
	struct p4dp_key_field f[1] = {F(P4DP_MATCH_EXACT, 0, 4, 32)};
	struct p4dp_table_params p = {.name = "full", .key_len = 4, .n_fields = 1, .fields = f, .max_entries = 16,
				      .data_len = 8, .storage = P4DP_STORAGE_STATIC, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, rcu);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	uint32_t k;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	for (k = 0; k < 16; k++)
		CHECK(p4dp_table_entry_add(t, &m, k, NULL) == 0, "add %u", k);
	k = 100;
	CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -ENOSPC, "full");
	CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == -ENOSPC, "full again");
	/* modify twice (static: side version, then fold back) */
	k = 3;
	uint64_t d = 0x1111;
	CHECK(p4dp_table_entry_modify(t, &m, 33, &d) == 0, "modify 1");
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	CHECK(st.displaced == 1, "displaced after modify: %" PRIu64, st.displaced);
	p4dp_rcu_quiescent(rcu, 0);
	CHECK(p4dp_table_maintain(t) >= 1, "fold back");
	p4dp_table_stats_get(t, &st);
	CHECK(st.displaced == 0, "displaced after maintain");
	const struct p4dp_entry *e = p4dp_table_lookup(t, &k);
	CHECK(e != NULL && e->action == 33 && memcmp(e->data, &d, 8) == 0 && !(e->flags & P4DP_ENTRY_F_DYNAMIC),
	      "folded entry");
	k = 5;
	CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete");
	p4dp_table_stats_get(t, &st);
	CHECK(st.pending_reclaim >= 1, "delete pending while worker online");
	k = 200;
	/* the worker reports quiescence only once; add waits for it */
	p4dp_rcu_quiescent(rcu, 0);
	CHECK(p4dp_table_entry_add(t, &m, 9, NULL) == 0, "add after delete");
	uint32_t idx = 99;
	CHECK(p4dp_table_entry_get(t, &m, NULL, NULL, &idx) == 0 && idx == 5, "index reused: %u", idx);
	p4dp_table_stats_get(t, &st);
	CHECK(st.table_full == 2 && st.entries == 16, "stats full %" PRIu64, st.table_full);
	p4dp_rcu_thread_offline(rcu, 0); /* free waits for a grace period */
	p4dp_table_free(t);
	p4dp_rcu_thread_online(rcu, 0);
out:
	printf("%-32s %s\n", "full table with rcu", case_fail ? "FAIL" : "ok");
	case_count();
}

/* Spare side versions (static exact tables): a modify takes its side version from the table's spares
 * when it has one; a side version joins them after its grace period, at most 64 per table. With and
 * without dp_writes (runtime tables have it: no fold-back behind a modify). @p rcu has thread 0
 * online. */
static void test_spare_sides(struct p4dp_rcu *rcu, int dp_writes)
{
	case_fail = 0;
	struct p4dp_key_field f[1] = {F(P4DP_MATCH_EXACT, 0, 4, 32)};
	struct p4dp_table_params p = {.name = "spares", .key_len = 4, .n_fields = 1, .fields = f, .max_entries = 128,
				      .data_len = 8, .storage = P4DP_STORAGE_STATIC, .socket_id = SOCKET_ID_ANY,
				      .dp_writes = dp_writes};
	struct p4dp_table *t = p4dp_table_create(&p, rcu);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	uint32_t k;
	uint64_t d;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	for (k = 0; k < 100; k++)
		CHECK(p4dp_table_entry_add(t, &m, 1, NULL) == 0, "add %u", k);
	/* rounds of modifies of every entry, a quiescent report after each round */
	for (uint32_t r = 0; r < 4; r++) {
		for (k = 0; k < 100; k++) {
			d = ((uint64_t)r << 32) | k;
			CHECK(p4dp_table_entry_modify(t, &m, 2 + r, &d) == 0, "modify %u round %u", k, r);
		}
		p4dp_rcu_quiescent(rcu, 0);
	}
	/* every side version that readers could still hold is past its grace period now: what the
	 * spares do not keep is freed */
	p4dp_table_maintain(t);
	p4dp_rcu_quiescent(rcu, 0);
	p4dp_table_maintain(t);
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	CHECK(st.spare_sides == 64, "spares kept: %" PRIu64 " (64 expected)", st.spare_sides);
	/* every entry is in its slot: folded back by the maintenance, or (dp_writes) by the last
	 * round's modifies, which wrote their new versions into the slots */
	CHECK(st.displaced == 0, "displaced: %" PRIu64, st.displaced);
	/* ten modifies: each takes a spare */
	for (k = 0; k < 10; k++) {
		d = 0xabcd0000u + k;
		CHECK(p4dp_table_entry_modify(t, &m, 9, &d) == 0, "modify %u", k);
	}
	p4dp_table_stats_get(t, &st);
	CHECK(st.spare_sides == 54 && st.displaced == 10, "spares / displaced after 10 modifies: %" PRIu64 " / %" PRIu64,
	      st.spare_sides, st.displaced);
	for (k = 0; k < 100; k += 3) {
		const struct p4dp_entry *e = p4dp_table_lookup(t, &k);
		uint64_t want = k < 10 ? 0xabcd0000u + k : ((uint64_t)3 << 32) | k;
		CHECK(e != NULL && e->action == (k < 10 ? 9u : 5u) && memcmp(e->data, &want, 8) == 0,
		      "entry %u after the modifies", k);
	}
	p4dp_rcu_thread_offline(rcu, 0); /* free waits for a grace period */
	p4dp_table_free(t);
	p4dp_rcu_thread_online(rcu, 0);
out:
	printf("%-32s %s\n", dp_writes ? "spare side versions, dp_writes" : "spare side versions", case_fail ? "FAIL" : "ok");
	case_count();
}

/* A walk's check that every entry of a linear table lives in the row of its key. */
static int linear_row_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	uint16_t k;
	memcpy(&k, m->value, sizeof(k));
	if (e->index != k)
		(*(uint32_t *)arg)++;
	return 0;
}

/* Linear tables (table.h `linear`, rtc.p4 @linear): the entry of key k is in row k whichever order
 * and writer (control plane or data plane) adds it; keys at or beyond the size are refused with
 * -ERANGE and counted in table_full; a key already there is -EEXIST; a deleted key's row is taken
 * again by that key only, after the grace period (a worker is refused meanwhile, the control plane
 * waits); parameters that cannot be a row are refused at creation. @p rcu has thread 0 online. */
static void test_linear(int storage, struct p4dp_rcu *rcu)
{
	case_fail = 0;
	struct p4dp_key_field f[2] = {F(P4DP_MATCH_EXACT, 0, 2, 16), F(P4DP_MATCH_EXACT, 2, 2, 16)};
	struct p4dp_table_params p = {.name = "linear", .key_len = 4, .n_fields = 2, .fields = f, .max_entries = 16,
				      .data_len = 8, .storage = storage, .socket_id = SOCKET_ID_ANY, .linear = 1};
	errno = 0;
	CHECK(p4dp_table_create(&p, rcu) == NULL && errno == EINVAL, "two fields refused");
	struct p4dp_key_field fw[1] = {F(P4DP_MATCH_EXACT, 0, 8, 48)};
	struct p4dp_table_params pw = p;
	pw.key_len = 8;
	pw.n_fields = 1;
	pw.fields = fw;
	errno = 0;
	CHECK(p4dp_table_create(&pw, rcu) == NULL && errno == EINVAL, "48-bit key refused");
	fw[0] = (struct p4dp_key_field)F(P4DP_MATCH_LPM, 0, 4, 32);
	pw.key_len = 4;
	errno = 0;
	CHECK(p4dp_table_create(&pw, rcu) == NULL && errno == EINVAL, "lpm key refused");
	p.key_len = 2;
	p.n_fields = 1;
	struct p4dp_table *t = p4dp_table_create(&p, rcu);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	uint16_t k;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	uint64_t d = 0;
	uint32_t idx;
	static const uint16_t order[] = {12, 3, 7, 5, 15, 0};
	for (uint32_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		k = order[i];
		d = 0x100u + k;
		CHECK(p4dp_table_entry_add(t, &m, 1, &d) == 0, "add %u", k);
		idx = 99;
		CHECK(p4dp_table_entry_get(t, &m, NULL, NULL, &idx) == 0 && idx == k, "row of %u: %u", k, idx);
	}
	k = 9;
	d = 0x109;
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == 0, "data-plane add 9");
	const struct p4dp_entry *e = p4dp_table_lookup(t, &k);
	CHECK(e != NULL && e->index == 9 && *(const uint64_t *)e->data == 0x109, "data-plane row of 9");
	k = 5;
	CHECK(p4dp_table_entry_add(t, &m, 1, &d) == -EEXIST, "existing key, control plane");
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == -EEXIST, "existing key, data plane");
	e = p4dp_table_lookup(t, &k);
	CHECK(e != NULL && *(const uint64_t *)e->data == 0x105, "existing entry unchanged");
	k = 16;
	CHECK(p4dp_table_entry_add(t, &m, 1, &d) == -ERANGE, "key = size, control plane");
	k = 0xffff;
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == -ERANGE, "key beyond size, data plane");
	struct p4dp_table_stats st;
	CHECK(p4dp_table_stats_get(t, &st) == 0 && st.table_full == 2 && st.entries == 7,
	      "full %" PRIu64 " entries %" PRIu64, st.table_full, st.entries);
	/* modify keeps the row */
	k = 3;
	d = 0x333;
	CHECK(p4dp_table_entry_modify(t, &m, 1, &d) == 0, "modify 3");
	e = p4dp_table_lookup(t, &k);
	CHECK(e != NULL && e->index == 3 && *(const uint64_t *)e->data == 0x333, "modified 3 in row 3");
	/* delete 7 while the worker is online: row 7 waits for the grace period; the data plane is
	 * refused for 7 meanwhile but still gets the other free rows by their keys */
	k = 7;
	CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete 7");
	CHECK(p4dp_table_lookup(t, &k) == NULL, "7 gone");
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == -ENOSPC, "row 7 still pending");
	k = 1;
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == 0, "data-plane add 1 beside the pending row");
	e = p4dp_table_lookup(t, &k);
	CHECK(e != NULL && e->index == 1, "row of 1");
	p4dp_rcu_quiescent(rcu, 0);
	k = 7;
	CHECK(p4dp_table_entry_add(t, &m, 1, &d) == 0, "control add 7 after the grace period");
	idx = 99;
	CHECK(p4dp_table_entry_get(t, &m, NULL, NULL, &idx) == 0 && idx == 7, "7 back in row 7: %u", idx);
	/* fill the table: every row holds its key */
	for (k = 0; k < 16; k++) {
		int rc = p4dp_table_entry_add(t, &m, 1, &d);
		CHECK(rc == 0 || rc == -EEXIST, "fill %u: %d", k, rc);
	}
	k = 16;
	CHECK(p4dp_table_dp_insert(t, &k, 1, &d, 0, 0) == -ENOSPC, "full");
	uint32_t misplaced = 0;
	CHECK(p4dp_table_foreach(t, linear_row_cb, &misplaced) == 0 && misplaced == 0, "misplaced %u", misplaced);
	CHECK(p4dp_table_stats_get(t, &st) == 0 && st.entries == 16, "entries %" PRIu64, st.entries);
	p4dp_rcu_thread_offline(rcu, 0); /* free waits for a grace period */
	p4dp_table_free(t);
	p4dp_rcu_thread_online(rcu, 0);
out:
	printf("%-32s %s\n", storage == P4DP_STORAGE_STATIC ? "linear (static)" : "linear (dynamic)",
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/* A linear table's direct lookup (abi.h p4dp_table_apply_linear, and p4dp_table_lookup and
 * p4dp_table_lookup_bulk, which read the same rows): of @p key_len-byte keys (one field, a
 * little-endian number) in a table of N rows, every key finds its own entry or misses with the
 * default entry: row 0, the last row, keys at and beyond the size (high bytes included), deleted
 * keys (also after the grace period and a re-add), modified keys (the new data). */
static void test_linear_direct(int storage, uint32_t key_len)
{
	case_fail = 0;
	enum { N = 4096, PAST = 64 };
	struct p4dp_key_field f[1] = {F(P4DP_MATCH_EXACT, 0, key_len, 8 * key_len)};
	struct p4dp_table_params p = {.name = "linear-direct", .key_len = key_len, .n_fields = 1, .fields = f,
				      .max_entries = N, .data_len = 8, .storage = storage, .socket_id = SOCKET_ID_ANY,
				      .linear = 1};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL, "create");
	if (t == NULL)
		goto out;
	const struct p4dp_table_head *h = (const struct p4dp_table_head *)t;
	CHECK(h->rows != NULL && h->n_rows == N, "a linear table has N rows (%u)", h->n_rows);
	struct p4dp_entry def_entry;
	struct p4dp_entry *def = &def_entry;
	struct p4dp_ctx ctx = {.tables = &t, .defaults = &def};
	/* expected data of each key (0: not installed) */
	static uint64_t want[N];
	memset(want, 0, sizeof(want));
	uint32_t k = 0;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	for (k = 0; k < N; k++) {
		if (k % 3 != 0 && k != N - 1 && k != 1)
			continue; /* rows 0, 1 and N - 1 and every third */
		uint64_t d = 0x10000u + k;
		CHECK(p4dp_table_entry_add(t, &m, k % 5, &d) == 0, "add %u", k);
		want[k] = d;
	}
	/* deletes (every 7th installed key) and modifies (every 11th) */
	for (k = 0; k < N; k++) {
		if (want[k] == 0)
			continue;
		if (k % 7 == 3) {
			CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete %u", k);
			want[k] = 0;
		} else if (k % 11 == 2 || k == N - 1) {
			uint64_t d = 0x20000u + k;
			CHECK(p4dp_table_entry_modify(t, &m, k % 5, &d) == 0, "modify %u", k);
			want[k] = d;
		}
	}
	/* re-add one deleted key (its grace period is over: no RCU domain) */
	k = 3;
	uint64_t d3 = 0x30003;
	CHECK(want[3] == 0 && p4dp_table_entry_add(t, &m, 3, &d3) == 0, "re-add 3");
	want[3] = d3;
	uint32_t bad = 0, hits = 0;
	const void *bulk_keys[N + PAST];
	static uint32_t bulk_vals[N + PAST];
	for (uint32_t i = 0; i < N + PAST + 3; i++) {
		/* then three keys whose high bytes (or the byte above the 12 bits of a row) are set */
		uint32_t key = i < N + PAST ? i : (i == N + PAST ? 0x10006u : i == N + PAST + 1 ? 0x1000006u : 0x106u * 16);
		if (key_len == 2)
			key &= 0xffff;
		uint8_t kb[4];
		memcpy(kb, &key, 4); /* little-endian: the number's low bytes first */
		const bool in = key < N && want[key] != 0;
		int hit = -1;
		const struct p4dp_entry *e = key_len == 2 ? p4dp_table_apply_linear(&ctx, 0, kb, 2, &hit)
							  : p4dp_table_apply_linear(&ctx, 0, kb, 4, &hit);
		const struct p4dp_entry *l = p4dp_table_lookup(t, kb);
		if (in) {
			hits++;
			if (!(hit == 1 && e != def && e == l && e->index == key && e->action == key % 5 &&
			      *(const uint64_t *)e->data == want[key]))
				bad++;
		} else if (!(hit == 0 && e == def && l == NULL)) {
			bad++;
		}
		if (i < N + PAST) {
			bulk_vals[i] = key;
			bulk_keys[i] = &bulk_vals[i];
		}
	}
	CHECK(bad == 0, "%u of %u keys looked up wrong (%u hits)", bad, N + PAST + 3, hits);
	static const struct p4dp_entry *bulk_out[N + PAST];
	p4dp_table_lookup_bulk(t, bulk_keys, N + PAST, bulk_out);
	uint32_t bad_bulk = 0;
	for (uint32_t i = 0; i < N + PAST; i++) {
		const bool in = i < N && want[i] != 0;
		if (in ? bulk_out[i] == NULL || bulk_out[i]->index != i || *(const uint64_t *)bulk_out[i]->data != want[i]
		       : bulk_out[i] != NULL)
			bad_bulk++;
	}
	CHECK(bad_bulk == 0, "%u keys looked up wrong in bulk", bad_bulk);
	CHECK(want[0] != 0 && want[N - 1] == 0x20000u + N - 1, "rows 0 and N - 1 are installed, N - 1 modified");
	p4dp_table_free(t);
out:
	printf("%-32s %s\n", storage == P4DP_STORAGE_STATIC ? (key_len == 2 ? "linear direct (static, 2)" : "linear direct (static, 4)")
							 : (key_len == 2 ? "linear direct (dynamic, 2)" : "linear direct (dynamic, 4)"),
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/* The tables' key hash (hash.h) equals DPDK's rte_hash_crc on aligned keys, and gives the same
 * value for a key at any alignment (rte_hash_crc itself would load it misaligned: make ubsan). */
static void test_hash_unaligned(void)
{
	uint64_t words[9];
	uint8_t *ref = (uint8_t *)words;
	uint8_t buf[80];
	int bad = 0;
	for (uint32_t i = 0; i < sizeof(words); i++)
		ref[i] = (uint8_t)(rnd() >> 24);
	for (uint32_t len = 0; len <= 64; len++) {
		const uint32_t want = rte_hash_crc(ref, len, 0x9e3779b9u);
		if (rt_hash_crc(ref, len, 0x9e3779b9u) != want)
			bad++;
		for (uint32_t off = 1; off < 8; off++) {
			memcpy(buf + off, ref, len);
			if (rt_hash_crc(buf + off, len, 0x9e3779b9u) != want)
				bad++;
		}
	}
	printf("%-28s %s\n", "hash: unaligned keys", bad ? "FAIL" : "ok");
	if (bad)
		n_fail++;
	else
		n_pass++;
}

/* The exact tables' read index (p4dp/xindex.h): keys that all hash to one bucket fill it and
 * then live in rte_hash alone (overflow); lookups (single, bulk, the program's inline
 * p4dp_table_apply_exact) find every key either way, modifies and deletes reach both, and the
 * overflow count follows. @p key_len: 4 (one-line buckets, the one-word find) or 12 (two-line
 * buckets, the two-word find; the key's second word differs between keys too). */
enum { XI_NK = 10 };

/* Key number @p c of @p key_len bytes in @p out (16 bytes). */
static void xi_test_key(uint8_t out[16], uint32_t c, uint32_t key_len)
{
	memset(out, 0, 16);
	memcpy(out, &c, 4);
	if (key_len > 8) {
		const uint32_t hi = c * 2654435761u;
		memcpy(out + 8, &hi, 4);
	}
}

/* The index's entry of key @p key (its find for the table's key length). */
static const struct p4dp_entry *xi_test_find(const struct p4dp_xindex *xi, const uint8_t *key, uint32_t key_len)
{
	uint64_t kk[2];
	p4dp_xi_key(kk, key, key_len);
	return key_len <= 8 ? p4dp_xi_find8(xi, kk[0]) : p4dp_xi_find(xi, kk);
}

/* p4dp_table_apply_exact with a constant key length, as generated code calls it. */
static const struct p4dp_entry *xi_test_apply(const struct p4dp_ctx *ctx, const uint8_t *key, uint32_t key_len, int *hit)
{
	return key_len <= 8 ? p4dp_table_apply_exact(ctx, 0, key, 4, hit) : p4dp_table_apply_exact(ctx, 0, key, 12, hit);
}

/* An exact table of @p key_len-byte keys (4: one 32-bit field; 12: a 64-bit and a 32-bit field)
 * and 8 bytes of data; NULL after a failed check. */
static struct p4dp_table *xi_table_create(const char *name, uint32_t key_len, uint32_t max_entries, int storage)
{
	struct p4dp_key_field f[2] = {F(P4DP_MATCH_EXACT, 0, 4, 32), F(P4DP_MATCH_EXACT, 8, 4, 32)};
	if (key_len > 8)
		f[0] = (struct p4dp_key_field)F(P4DP_MATCH_EXACT, 0, 8, 64);
	struct p4dp_table_params p = {.name = name, .key_len = key_len, .n_fields = key_len > 8 ? 2 : 1, .fields = f,
				      .max_entries = max_entries, .data_len = 8, .storage = storage,
				      .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	CHECK(t != NULL, "create %s", name);
	return t;
}

static void test_xindex(int storage, uint32_t key_len)
{
	case_fail = 0;
	enum { NK = XI_NK };
	struct p4dp_table *t = xi_table_create("xindex", key_len, 16, storage);
	if (t == NULL)
		goto out;
	const struct p4dp_xindex *xi = ((const struct p4dp_table_head *)t)->xi;
	CHECK(xi != NULL, "an exact table of %u-byte keys has a read index", key_len);
	if (xi == NULL) {
		p4dp_table_free(t);
		goto out;
	}
	/* NK keys whose two buckets are both bucket 0, and one more that is not added */
	uint8_t keys[NK + 1][16];
	uint32_t n = 0;
	for (uint32_t c = 1; n < NK + 1 && c < 1u << 24; c++) {
		uint64_t k[2];
		xi_test_key(keys[n], c, key_len);
		p4dp_xi_key(k, keys[n], key_len);
		const uint64_t h = p4dp_xi_hash1(xi, k);
		if (p4dp_xi_bucket1(xi, h) == 0 && p4dp_xi_bucket2(xi, h) == 0)
			n++;
	}
	CHECK(n == NK + 1, "found %u colliding keys", n);
	if (n != NK + 1) {
		p4dp_table_free(t);
		goto out;
	}
	uint8_t k[16];
	struct p4dp_match m = {.value = k};
	for (uint32_t i = 0; i < NK; i++) {
		memcpy(k, keys[i], 16);
		uint64_t d = 100 + i;
		CHECK(p4dp_table_entry_add(t, &m, i, &d) == 0, "add %u", i);
	}
	CHECK(p4dp_xi_overflow(xi) == NK - P4DP_XI_WAYS, "overflow %" PRIu64, p4dp_xi_overflow(xi));
	/* a second add of any of them is refused, whether the index or rte_hash alone holds it */
	for (uint32_t i = 0; i < NK; i++) {
		memcpy(k, keys[i], 16);
		CHECK(p4dp_table_entry_add(t, &m, i, NULL) == -EEXIST, "second add %u", i);
	}
	struct p4dp_entry *def = NULL;
	struct p4dp_ctx ctx = {.tables = &t, .defaults = &def};
	uint32_t in_index = 0;
	for (uint32_t i = 0; i < NK; i++) {
		const struct p4dp_entry *f = xi_test_find(xi, keys[i], key_len);
		in_index += f != NULL;
		const struct p4dp_entry *e = p4dp_table_lookup(t, keys[i]);
		CHECK(e != NULL && e->action == i && *(const uint64_t *)e->data == 100 + i, "lookup %u", i);
		CHECK(f == NULL || f == e, "the index's entry of key %u is the table's", i);
		int hit = 0;
		CHECK(xi_test_apply(&ctx, keys[i], key_len, &hit) == e && hit, "inline lookup %u", i);
	}
	CHECK(in_index == P4DP_XI_WAYS, "in the index: %u", in_index);
	int hit = 1;
	CHECK(p4dp_table_lookup(t, keys[NK]) == NULL, "absent key of the full bucket");
	CHECK(xi_test_apply(&ctx, keys[NK], key_len, &hit) == NULL && !hit, "inline: absent key");
	CHECK(xi_test_find(xi, keys[NK], key_len) == NULL, "index find: absent key");
	/* modify a key in the index and one in overflow */
	for (uint32_t i = 0; i < NK; i += NK - 1) {
		memcpy(k, keys[i], 16);
		uint64_t d = 900 + i;
		CHECK(p4dp_table_entry_modify(t, &m, 7, &d) == 0, "modify %u", i);
		const struct p4dp_entry *e = p4dp_table_lookup(t, keys[i]);
		CHECK(e != NULL && e->action == 7 && *(const uint64_t *)e->data == 900 + i, "modified %u", i);
		CHECK(xi_test_apply(&ctx, keys[i], key_len, &hit) == e && hit, "inline modified %u", i);
	}
	/* delete the overflow keys and one in the index, then add the absent key */
	for (uint32_t i = P4DP_XI_WAYS - 1; i < NK; i++) {
		memcpy(k, keys[i], 16);
		CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete %u", i);
		CHECK(p4dp_table_lookup(t, keys[i]) == NULL, "deleted %u", i);
	}
	CHECK(p4dp_xi_overflow(xi) == 0, "overflow after deletes %" PRIu64, p4dp_xi_overflow(xi));
	/* nothing overflowed now: the index alone answers the existence check of an add */
	for (uint32_t i = 0; i < P4DP_XI_WAYS - 1; i++) {
		memcpy(k, keys[i], 16);
		CHECK(p4dp_table_entry_add(t, &m, i, NULL) == -EEXIST, "second add %u without overflow", i);
	}
	memcpy(k, keys[NK], 16);
	CHECK(p4dp_table_entry_add(t, &m, 5, NULL) == 0, "add after deletes");
	const struct p4dp_entry *e = p4dp_table_lookup(t, keys[NK]);
	CHECK(e != NULL && e->action == 5, "added after deletes");
	const void *kp[NK + 1];
	const struct p4dp_entry *out[NK + 1];
	for (uint32_t i = 0; i <= NK; i++)
		kp[i] = keys[i];
	p4dp_table_lookup_bulk(t, kp, NK + 1, out);
	for (uint32_t i = 0; i <= NK; i++)
		CHECK(out[i] == p4dp_table_lookup(t, keys[i]), "bulk %u", i);
	for (uint32_t i = 0; i < P4DP_XI_WAYS - 1; i++)
		CHECK(out[i] != NULL, "kept %u", i);
	p4dp_table_free(t);
	/* keys longer than the index takes: no index, lookups through rte_hash */
	struct p4dp_key_field fw[1] = {F(P4DP_MATCH_EXACT, 0, 17, 136)};
	struct p4dp_table_params pw = {.name = "xindex wide", .key_len = 17, .n_fields = 1, .fields = fw,
				       .max_entries = 16, .data_len = 8, .storage = storage,
				       .socket_id = SOCKET_ID_ANY};
	t = p4dp_table_create(&pw, NULL);
	CHECK(t != NULL && ((const struct p4dp_table_head *)t)->xi == NULL, "17-byte keys: no index");
	p4dp_table_free(t);
out:
	printf("read index (%s, %2u-byte keys)   %s\n", storage == P4DP_STORAGE_STATIC ? "static" : "dynamic", key_len,
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/*
 * The workload of the large read-index tests: key i (< n_keys) is xi_test_key(i * stride + first);
 * each is added (action i % 3, data 100 + i), then those with i % period == modified get data
 * 900 + i (none when modified >= period), then those with i % period == deleted are deleted.
 */
struct xi_load {
	uint32_t n_keys, stride, first, key_len, period, modified, deleted;
};

static void xi_load_key(const struct xi_load *l, uint8_t k[16], uint32_t i)
{
	xi_test_key(k, i * l->stride + l->first, l->key_len);
}

/* Key @p i's data after the workload; 0: deleted. */
static uint64_t xi_load_want(const struct xi_load *l, uint32_t i)
{
	if (i % l->period == l->deleted)
		return 0;
	return i % l->period == l->modified ? 900 + i : 100 + i;
}

/* Run the workload on @p t; returns the lowest address of an entry after the adds. */
static uintptr_t xi_load_apply(struct p4dp_table *t, const struct xi_load *l)
{
	uint8_t k[16];
	struct p4dp_match m = {.value = k};
	uintptr_t lowest = UINTPTR_MAX;
	for (uint32_t i = 0; i < l->n_keys; i++) {
		xi_load_key(l, k, i);
		uint64_t d = 100 + i;
		CHECK(p4dp_table_entry_add(t, &m, i % 3, &d) == 0, "add %u", i);
		const struct p4dp_entry *e = p4dp_table_lookup(t, k);
		if (e != NULL && (uintptr_t)e < lowest)
			lowest = (uintptr_t)e;
	}
	for (uint32_t i = l->modified; l->modified < l->period && i < l->n_keys; i += l->period) {
		xi_load_key(l, k, i);
		uint64_t d = 900 + i;
		CHECK(p4dp_table_entry_modify(t, &m, 2, &d) == 0, "modify %u", i);
	}
	for (uint32_t i = l->deleted; i < l->n_keys; i += l->period) {
		xi_load_key(l, k, i);
		CHECK(p4dp_table_entry_delete(t, &m) == 0, "delete %u", i);
	}
	return lowest;
}

/* Every key of the workload through the table's lookup, the index's find and the inline apply
 * (table 0 of the context): a deleted key found by none, the others with their data, the same
 * entry each way (no key is outside the index at these loads). */
static void xi_load_check(struct p4dp_table *t, const struct p4dp_xindex *xi, const struct xi_load *l)
{
	struct p4dp_entry *def = NULL;
	struct p4dp_ctx ctx = {.tables = &t, .defaults = &def};
	uint8_t k[16];
	CHECK(p4dp_xi_overflow(xi) == 0, "no key outside the index");
	for (uint32_t i = 0; i < l->n_keys; i++) {
		xi_load_key(l, k, i);
		const struct p4dp_entry *e = p4dp_table_lookup(t, k);
		const struct p4dp_entry *in = xi_test_find(xi, k, l->key_len);
		int hit = 0;
		const struct p4dp_entry *ap = xi_test_apply(&ctx, k, l->key_len, &hit);
		const uint64_t want = xi_load_want(l, i);
		if (want == 0) {
			CHECK(e == NULL && in == NULL && ap == NULL && !hit, "deleted %u", i);
			continue;
		}
		CHECK(e != NULL && *(const uint64_t *)e->data == want, "lookup %u", i);
		CHECK(in == e && ap == e && hit, "the index and the inline lookup find key %u", i);
	}
}

/* A large table's read index, made when the table is (a huge-page mapping), or NULL after a
 * failed check. */
static const struct p4dp_xindex *xi_large_index(struct p4dp_table *t)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	const struct p4dp_xindex *xi = ((const struct p4dp_table_head *)t)->xi;
	CHECK(xi != NULL, "a large exact table has a read index");
	CHECK(xi == NULL || (uintptr_t)xi->b % huge == 0, "the index buckets are a huge-page mapping");
	return xi;
}

/*
 * A large exact table (table_mem.c): its read index buckets and, with static storage, its entry
 * slots are huge-page mappings (2 MiB aligned, which the heap's blocks are not), and adds,
 * lookups (index, rte_hash, inline), modifies, deletes and the free work on them (the sanitizers
 * check the accesses and the release).
 */
static void test_xindex_large(int storage, uint32_t key_len)
{
	case_fail = 0;
	struct p4dp_table *t = xi_table_create("xindex large", key_len, 1u << 17, storage);
	if (t == NULL)
		goto out;
	const struct p4dp_xindex *xi = xi_large_index(t);
	if (xi != NULL) {
		const struct xi_load l = {.n_keys = 4096, .stride = 7919, .first = 1, .key_len = key_len, .period = 5,
					  .modified = 0, .deleted = 1};
		const uintptr_t lowest = xi_load_apply(t, &l);
		/* static storage: entry index 0's slot is the start of the slot array */
		if (storage == P4DP_STORAGE_STATIC)
			CHECK(lowest % ((uintptr_t)2 << 20) == 0, "the static slots are a huge-page mapping");
		p4dp_table_maintain(t);
		xi_load_check(t, xi, &l);
	}
	p4dp_table_free(t);
out:
	printf("large read index (%s, %2u-byte) %s\n", storage == P4DP_STORAGE_STATIC ? "static" : "dynamic", key_len,
	       case_fail ? "FAIL" : "ok");
	case_count();
}

/*
 * A table of 2^24 entries, the flow table of 10 M flows (examples/rtc_flow_monitor.p4), has a read
 * index (table_xindex.c's limit), on huge pages, and its lookups are the index's. Dynamic storage
 * and 4-byte keys keep the test's memory small (no slot array; one-line buckets: 512 MiB of index,
 * rte_hash's arrays in the EAL's memory); the memory model counts the index at this size.
 */
/*
 * A one-line bucket's lookup (p4dp_xi_in_bucket8, vector compare where SSE4.1 is built in) on
 * bucket states a reader can see while a writer works: the key in a dead slot (pointer NULL,
 * deleted, grace period not over) below its live slot after a re-insert, the key only in a dead
 * slot, the key in every slot, and no slot holding it. The answer must be the lowest live slot
 * holding the key, or NULL, in each (the slot-by-slot scan's answer).
 */
static void test_xindex_bucket8_states(void)
{
	static struct p4dp_entry ents[P4DP_XI_WAYS];
	struct p4dp_xi_bucket8 b;
	const uint64_t k = 0x0123456789abcdefull;
	case_fail = 0;
	for (uint32_t dead = 0; dead < (1u << P4DP_XI_WAYS); dead++) {
		for (uint32_t has = 0; has < (1u << P4DP_XI_WAYS); has++) {
			struct p4dp_entry *want = NULL;
			for (uint32_t w = P4DP_XI_WAYS; w-- > 0;) {
				/* other slots hold keys that differ from k in one half or the other */
				b.key[w] = has >> w & 1 ? k : k ^ (w & 1 ? 1ull << 40 : 1ull);
				b.ent[w] = dead >> w & 1 ? NULL : &ents[w];
				if (has >> w & 1 && !(dead >> w & 1))
					want = &ents[w];
			}
			struct p4dp_entry *got = p4dp_xi_in_bucket8(&b, k);
			CHECK(got == want, "bucket8: slots holding the key %#x, dead %#x: got slot %d, want %d", has, dead,
			      got ? (int)(got - ents) : -1, want ? (int)(want - ents) : -1);
			CHECK(got == p4dp_xi_in_bucket8_scan(&b, k), "bucket8: %#x/%#x differs from the scan", has, dead);
		}
	}
	printf("%-32s %s\n", "xindex bucket8 states", case_fail ? "FAIL" : "ok");
	case_count();
}

static void test_xindex_limit(void)
{
	case_fail = 0;
	const uint32_t max = 1u << 24;
	struct p4dp_table *t = xi_table_create("xindex 2^24", 4, max, P4DP_STORAGE_DYNAMIC);
	if (t == NULL)
		goto out;
	const struct p4dp_xindex *xi = xi_large_index(t);
	/* rte_hash (E = 2^24 entries, B = 2^21 buckets, 16-byte key slots) and the index (2^23
	 * one-line buckets, a busy byte per slot, a slot number per entry), ARCHITECTURE.md */
	const uint64_t E = max, B = E / 8, nb = p4dp_xi_buckets(max);
	const uint64_t want = 2 * B * 64 + (E + 1) * 16 + 4 * (2 * E) + 4 * (2 * B) + nb * 64 + nb * P4DP_XI_WAYS + 4 * E;
	struct p4dp_table_mem mem;
	CHECK(nb == 1u << 23 && p4dp_table_mem_predict(max, 4, 8, 100, &mem) == 0 && mem.hash_bytes == want,
	      "the memory model counts the index of 2^24 entries: %" PRIu64 " bytes, want %" PRIu64,
	      mem.hash_bytes, want);
	if (xi != NULL) {
		/* no key modified (modified == period) */
		const struct xi_load l = {.n_keys = 1024, .stride = 104729, .first = 3, .key_len = 4, .period = 3,
					  .modified = 3, .deleted = 0};
		(void)xi_load_apply(t, &l);
		xi_load_check(t, xi, &l);
	}
	p4dp_table_free(t);
out:
	printf("read index of a 2^24-entry table %s\n", case_fail ? "FAIL" : "ok");
	case_count();
}

int main(int argc, char **argv)
{
	(void)argc;
	/* 1 GiB: rte_hash's arrays of the 2^24-entry table (test_xindex_limit), about 660 MiB */
	if (test_eal_init_mem(argv[0], "0@0,1@1", 1024) != 0)
		return 1;
	const char *seed = getenv("P4DP_TEST_SEED");
	if (seed)
		rng_state = strtoull(seed, NULL, 0) | 1;
	printf("seed 0x%" PRIx64 "\n", rng_state);
	test_hash_unaligned();
	uint32_t nops = getenv("P4DP_TEST_OPS") ? (uint32_t)atoi(getenv("P4DP_TEST_OPS")) : 6000;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		run_random(&specs[i], nops, NULL);
	/* Same with an RCU domain with one registered but offline worker (frees immediate). */
	struct p4dp_rcu *rcu = p4dp_rcu_create(2, SOCKET_ID_ANY);
	if (rcu == NULL || p4dp_rcu_register(rcu, 0) != 0) {
		n_fail++;
	} else {
		p4dp_rcu_thread_offline(rcu, 0);
		run_random(&specs[0], nops, rcu);
		run_random(&specs[14], nops, rcu);
		p4dp_rcu_thread_online(rcu, 0);
		test_full_with_rcu(rcu);
		test_spare_sides(rcu, 0);
		test_spare_sides(rcu, 1);
		test_linear(P4DP_STORAGE_STATIC, rcu);
		test_linear(P4DP_STORAGE_DYNAMIC, rcu);
		p4dp_rcu_unregister(rcu, 0);
	}
	p4dp_rcu_free(rcu);
	test_errors();
	test_insert_seen(P4DP_STORAGE_STATIC);
	test_linear_direct(P4DP_STORAGE_STATIC, 2);
	test_linear_direct(P4DP_STORAGE_DYNAMIC, 4);
	test_insert_seen(P4DP_STORAGE_DYNAMIC);
	test_xindex(P4DP_STORAGE_STATIC, 4);
	test_xindex(P4DP_STORAGE_DYNAMIC, 4);
	test_xindex(P4DP_STORAGE_STATIC, 12);
	test_xindex(P4DP_STORAGE_DYNAMIC, 12);
	test_xindex_large(P4DP_STORAGE_STATIC, 4);
	test_xindex_large(P4DP_STORAGE_DYNAMIC, 12);
	test_xindex_limit();
	test_xindex_bucket8_states();
	test_stage_ahead(P4DP_MATCH_EXACT);
	test_stage_ahead(P4DP_MATCH_LPM);
	test_stage_ahead(P4DP_MATCH_TERNARY);
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The longest-prefix-match table kind (table_lpm.c) against a brute-force reference, and under
 * a concurrent reader.
 *  - Randomized: prefix sets drawn from a small address space (so prefixes overlap and nest),
 *    lengths from /0 to the full width, random adds, deletes and modifies; after every batch,
 *    single and bulk lookups of random keys and of keys at prefix boundaries are compared with
 *    a linear scan for the longest matching prefix (ties cannot exist: equal prefixes are one
 *    entry); reads (foreach, get) are compared with the reference; deleting everything gives the
 *    trie's nodes back (heap usage returns to the empty table's).
 *    Shapes: IPv4 (one 32-bit field), a 20-bit field, exact 16 + lpm 24 (narrow path), IPv6
 *    (128 bits), exact 8 + lpm 128 (wide path), a 130-bit big-endian field; and, declared large
 *    enough for the 24-bit first level (DIR-24-8), IPv4 with prefixes nesting near the top and
 *    near /24, exact 8 + lpm 24, IPv6 and a 100-bit field. Each checks which first level it got (by its heap use).
 *  - The 24-bit first level's edges: /0, /32, /24 and /23 around the level boundary, prefixes
 *    longer than it, a delete giving the covered range back to the covering prefix, the lowest
 *    and highest addresses, modifies.
 *  - IPv6 (128-bit keys), with either first level: ::/0, /128s (lowest, highest, inside a /64),
 *    /63, /64 and /65 at the /64 boundary, three prefixes nested around the first level's
 *    boundary, modifies, and deletes giving ranges back to the covering prefix.
 *  - Concurrent (also under ThreadSanitizer: make tsan), with both first levels: a reader looks up keys inside a /16
 *    while the writer modifies that /16 and adds and deletes longer prefixes inside it (which
 *    creates and folds trie nodes); a /8 covers everything. The reader must never miss, never
 *    see a torn entry, and every entry it gets must be a prefix that covers its key.
 * Seed: env P4DP_TEST_SEED. Last line: 'N passed, N failed'.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "p4dp/xindex.h"
#include "tsan_test.h"

static unsigned n_pass, n_fail, case_fail;

#define CHECK(cond, ...)                                                                                  \
	do {                                                                                              \
		if (!(cond) && case_fail++ < 10) {                                                        \
			fprintf(stderr, "  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                                                     \
			fprintf(stderr, "\n");                                                            \
		}                                                                                         \
	} while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint32_t rndn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

#define F(k, o, sz, w) {.match_kind = (k), .offset = (o), .size = (sz), .bitwidth = (w)}
#define KMAX 40
#define DLEN 16

/* A table shape: an optional exact field, then the lpm field. Keys as bit strings (the
 * reference's own view, MSB first): exact bits, then lpm bits. */
struct shape {
	const char *name;
	uint32_t key_len;
	int has_exact;
	struct p4dp_key_field ex, lpm;
	uint32_t dom_bits; /* prefixes and keys vary only in the top dom_bits of the lpm field */
	uint32_t size;     /* declared entries (0: REF_MAX); large IPv4-width tables get 24 bits */
};

static const struct shape shapes[] = {
	{"ipv4 /32", 4, 0, {0}, F(P4DP_MATCH_LPM, 0, 4, 32), 12, 0},
	{"lpm 20", 4, 0, {0}, F(P4DP_MATCH_LPM, 0, 4, 20), 10, 0},
	{"exact 16 + lpm 24", 8, 1, F(P4DP_MATCH_EXACT, 4, 2, 16), F(P4DP_MATCH_LPM, 0, 4, 24), 12, 0},
	{"ipv6 /128", 16, 0, {0}, F(P4DP_MATCH_LPM, 0, 16, 128), 12, 0},
	{"exact 8 + lpm 128", 24, 1, F(P4DP_MATCH_EXACT, 16, 1, 8), F(P4DP_MATCH_LPM, 0, 16, 128), 12, 0},
	{"lpm 130 (big-endian)", 17, 0, {0}, F(P4DP_MATCH_LPM, 0, 17, 130), 11, 0},
	{"ipv4 /32, 24-bit level", 4, 0, {0}, F(P4DP_MATCH_LPM, 0, 4, 32), 12, 1u << 17},
	{"ipv4 /32, 24-bit, deep", 4, 0, {0}, F(P4DP_MATCH_LPM, 0, 4, 32), 27, 1u << 17},
	{"exact 8 + lpm 24, 24-bit", 8, 1, F(P4DP_MATCH_EXACT, 4, 1, 8), F(P4DP_MATCH_LPM, 0, 4, 24), 12, 1u << 16},
	{"ipv6 /128, 24-bit level", 16, 0, {0}, F(P4DP_MATCH_LPM, 0, 16, 128), 20, 1u << 17},
	{"lpm 100, 24-bit level", 16, 0, {0}, F(P4DP_MATCH_LPM, 0, 16, 100), 14, 1u << 17},
};

/* The 24-bit first level's slots alone (2^24 of 8 bytes). */
#define ROOT24_BYTES ((size_t)8 << 24)

/* The process's virtual memory in bytes (/proc/self/statm): the 24-bit first level is a mapping
 * of its own, so a table that has one grows it by at least ROOT24_BYTES. */
static size_t vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * 4096u;
}

/* Bit b (0 = least significant) of a field in a key buffer (independent of the library). */
static uint32_t byte_of(const struct p4dp_key_field *f, uint32_t b)
{
	return f->offset + (f->bitwidth <= 128 ? b / 8 : f->size - 1u - b / 8);
}
static int getb(const struct p4dp_key_field *f, const uint8_t *k, uint32_t b)
{
	return (k[byte_of(f, b)] >> (b % 8)) & 1;
}
static void setb(const struct p4dp_key_field *f, uint8_t *k, uint32_t b, int v)
{
	uint8_t bit = (uint8_t)(1u << (b % 8));
	k[byte_of(f, b)] = (uint8_t)(v ? k[byte_of(f, b)] | bit : k[byte_of(f, b)] & ~bit);
}

struct ref {
	uint8_t value[KMAX]; /* normalized: host bits 0 */
	uint32_t plen;       /* lpm prefix length */
	uint32_t action;
	uint8_t data[DLEN];
	int live;
};
#define REF_MAX 4096
static struct ref refs[REF_MAX];
static uint32_t n_refs;

/* A random key: exact field from 2 values, lpm bits random in the top dom_bits, rest random
 * or all ones / zeros (boundaries). */
static void rand_key(const struct shape *s, uint8_t *k)
{
	memset(k, 0, s->key_len);
	if (s->has_exact)
		setb(&s->ex, k, 0, (int)rndn(2)), setb(&s->ex, k, 1, 1);
	uint32_t w = s->lpm.bitwidth, mode = rndn(4);
	for (uint32_t b = 0; b < w; b++) {
		int v = b >= w - s->dom_bits ? (int)rndn(2) : mode == 0 ? 0 : mode == 1 ? 1 : (int)rndn(2);
		setb(&s->lpm, k, b, v);
	}
}

static void mask_of(const struct shape *s, uint32_t plen, uint8_t *m)
{
	memset(m, 0, s->key_len);
	if (s->has_exact)
		for (uint32_t b = 0; b < s->ex.bitwidth; b++)
			setb(&s->ex, m, b, 1);
	for (uint32_t b = 0; b < plen; b++)
		setb(&s->lpm, m, s->lpm.bitwidth - 1 - b, 1);
}

static int ref_covers(const struct shape *s, const struct ref *r, const uint8_t *k)
{
	if (s->has_exact && memcmp(r->value + s->ex.offset, k + s->ex.offset, s->ex.size) != 0)
		return 0;
	for (uint32_t i = 0; i < r->plen; i++) {
		uint32_t b = s->lpm.bitwidth - 1 - i;
		if (getb(&s->lpm, r->value, b) != getb(&s->lpm, k, b))
			return 0;
	}
	return 1;
}

static const struct ref *ref_lookup(const struct shape *s, const uint8_t *k)
{
	const struct ref *best = NULL;
	for (uint32_t i = 0; i < n_refs; i++)
		if (refs[i].live && ref_covers(s, &refs[i], k) && (best == NULL || refs[i].plen > best->plen))
			best = &refs[i];
	return best;
}

static int ref_find(const struct shape *s, const uint8_t *v, uint32_t plen)
{
	for (uint32_t i = 0; i < n_refs; i++)
		if (refs[i].live && refs[i].plen == plen && memcmp(refs[i].value, v, s->key_len) == 0)
			return (int)i;
	return -1;
}

/* A random prefix length: /0, the full width and short ones appear often. */
static uint32_t rand_plen(const struct shape *s)
{
	uint32_t w = s->lpm.bitwidth;
	switch (rndn(8)) {
	case 0:
		return 0;
	case 1:
		return w;
	case 2:
		return rndn(w + 1);
	case 3: /* around the 24-bit level's boundary */
		return w >= 26 ? 22 + rndn(5) : rndn(w + 1);
	default:
		return rndn(s->dom_bits + 1);
	}
}

/* The first-level slot the program prefetches for key @p k (xindex.h lpm_slots, abi.h
 * p4dp_table_prefetch) must be the one the lookup reads first: it holds the entry the lookup
 * returned (@p got, NULL on a miss) or a child node (bit 0). Only tables of the lpm field alone
 * of at most 64 bits publish their slots; the others must leave them NULL. */
static void check_prefetch_slot(const struct shape *s, struct p4dp_table *t, const uint8_t *k,
				const struct p4dp_entry *got)
{
	const struct p4dp_table_head *h = (const struct p4dp_table_head *)t;
	const uint64_t *slots = __atomic_load_n(&h->lpm_slots, __ATOMIC_ACQUIRE);
	if (s->has_exact || s->lpm.bitwidth > 64) {
		CHECK(slots == NULL, "%s: first-level slots published for a key the prefetch cannot read", s->name);
		return;
	}
	if (slots == NULL) {
		CHECK(0, "%s: no first-level slots published", s->name);
		return;
	}
	uint64_t v = 0;
	memcpy(&v, k, s->lpm.size);
	const uint64_t slot = __atomic_load_n(&slots[(v << h->lpm_lshift) >> h->lpm_rshift], __ATOMIC_ACQUIRE);
	CHECK((slot & 1) != 0 || slot == (uint64_t)(uintptr_t)got,
	      "%s: the prefetched slot of key %#" PRIx64 " holds %#" PRIx64 ", the lookup gave %p", s->name, v, slot,
	      (const void *)got);
}

static void check_key(const struct shape *s, struct p4dp_table *t, const uint8_t *k, const struct p4dp_entry *got)
{
	check_prefetch_slot(s, t, k, got);
	const struct ref *want = ref_lookup(s, k);
	if (want == NULL) {
		CHECK(got == NULL, "%s: hit (action %u) where the reference misses", s->name, got ? got->action : 0);
		return;
	}
	CHECK(got != NULL && got->action == want->action && memcmp(got->data, want->data, DLEN) == 0,
	      "%s: got action %u, want %u (/%u)", s->name, got ? got->action : 0, want->action, want->plen);
	(void)t;
}

static void check_lookups(const struct shape *s, struct p4dp_table *t, uint32_t n)
{
	uint8_t keys[64][KMAX];
	const void *kp[64];
	const struct p4dp_entry *out[64];
	for (uint32_t round = 0; round < n / 64; round++) {
		for (uint32_t i = 0; i < 64; i++) {
			rand_key(s, keys[i]);
			/* half the keys inside a live prefix, at its first, last or a random address */
			if (n_refs > 0 && (i & 1)) {
				const struct ref *r = &refs[rndn(n_refs)];
				uint32_t mode = rndn(3);
				for (uint32_t b = 0; b < s->lpm.bitwidth; b++) {
					int inside = b >= s->lpm.bitwidth - r->plen;
					int v = inside ? getb(&s->lpm, r->value, b)
						       : mode == 0 ? 0 : mode == 1 ? 1 : (int)rndn(2);
					setb(&s->lpm, keys[i], b, v);
				}
				if (s->has_exact)
					memcpy(keys[i] + s->ex.offset, r->value + s->ex.offset, s->ex.size);
			}
			kp[i] = keys[i];
		}
		uint32_t m = 1 + rndn(64); /* bulk of any size, also across the 32-key chunks */
		p4dp_table_lookup_bulk(t, kp, m, out);
		for (uint32_t i = 0; i < 64; i++)
			check_key(s, t, keys[i], i < m ? out[i] : p4dp_table_lookup(t, keys[i]));
	}
}

struct fe_ctx {
	const struct shape *s;
	uint32_t seen, bad;
};

static int fe_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	struct fe_ctx *c = arg;
	const struct shape *s = c->s;
	uint32_t plen = 0;
	while (plen < s->lpm.bitwidth && getb(&s->lpm, m->mask, s->lpm.bitwidth - 1 - plen))
		plen++;
	uint8_t want_mask[KMAX];
	mask_of(s, plen, want_mask);
	int i = ref_find(s, m->value, plen);
	c->seen++;
	if (i < 0 || memcmp(want_mask, m->mask, s->key_len) != 0 || refs[i].action != e->action ||
	    memcmp(refs[i].data, e->data, DLEN) != 0)
		c->bad++;
	return 0;
}

static size_t heap_used(void)
{
	struct rte_malloc_socket_stats st;
	size_t used = 0;
	for (int sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &st) == 0)
			used += st.heap_allocsz_bytes;
	return used;
}

static size_t heap_used(void);

static void run_random(const struct shape *s, uint32_t nops)
{
	case_fail = 0;
	n_refs = 0;
	struct p4dp_key_field f[2];
	uint32_t nf = 0;
	if (s->has_exact)
		f[nf++] = s->ex;
	f[nf++] = s->lpm;
	struct p4dp_table_params p = {.name = s->name, .key_len = s->key_len, .n_fields = nf, .fields = f,
				      .max_entries = s->size ? s->size : REF_MAX, .data_len = DLEN,
				      .socket_id = SOCKET_ID_ANY};
	size_t before = vm_bytes();
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	size_t grown = vm_bytes() - before;
	if (t == NULL) {
		printf("%-26s FAIL (create: %s)\n", s->name, strerror(errno));
		n_fail++;
		return;
	}
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	CHECK(st.kind == 3, "%s: kind %u, want the lpm trie (3)", s->name, st.kind);
	size_t empty = heap_used();
	uint32_t kbits = s->lpm.bitwidth + (s->has_exact ? s->ex.bitwidth : 0);
	int want24 = p.max_entries >= (1u << 16) && kbits > 16;
	CHECK((grown >= ROOT24_BYTES) == want24, "%s: table of %u entries mapped %zu bytes, want %s", s->name,
	      p.max_entries, grown, want24 ? "the 24-bit first level" : "the 16-bit one");
	uint32_t live = 0, adds = 0, dels = 0, mods = 0;
	for (uint32_t op = 0; op < nops; op++) {
		uint8_t v[KMAX], m[KMAX];
		uint32_t choice = rndn(10);
		int ri = -1;
		uint32_t plen;
		if (choice >= 6 && live > 0) {
			do
				ri = (int)rndn(n_refs);
			while (!refs[ri].live);
			memcpy(v, refs[ri].value, s->key_len);
			plen = refs[ri].plen;
		} else {
			rand_key(s, v);
			plen = rand_plen(s);
			for (uint32_t b = 0; b + plen < s->lpm.bitwidth; b++)
				setb(&s->lpm, v, b, 0);
		}
		mask_of(s, plen, m);
		struct p4dp_match pm = {.value = v, .mask = m, .priority = 0};
		uint32_t action = (uint32_t)rnd();
		uint8_t data[DLEN];
		for (uint32_t i = 0; i < DLEN; i++)
			data[i] = (uint8_t)rnd();
		int have = ref_find(s, v, plen);
		if (choice < 6) {
			int rc = p4dp_table_entry_add(t, &pm, action, data);
			if (have >= 0) {
				CHECK(rc == -EEXIST, "%s: add of an installed prefix: %d", s->name, rc);
			} else if (n_refs == REF_MAX) {
				CHECK(rc == 0 || rc == -ENOSPC, "%s: add: %d", s->name, rc);
				if (rc == 0)
					p4dp_table_entry_delete(t, &pm);
			} else {
				CHECK(rc == 0, "%s: add /%u: %d", s->name, plen, rc);
				struct ref *r = &refs[n_refs++];
				memcpy(r->value, v, s->key_len);
				r->plen = plen;
				r->action = action;
				memcpy(r->data, data, DLEN);
				r->live = 1;
				live++;
				adds++;
			}
		} else if (choice < 8) {
			int rc = p4dp_table_entry_modify(t, &pm, action, data);
			CHECK(rc == (have >= 0 ? 0 : -ENOENT), "%s: modify: %d", s->name, rc);
			if (have >= 0) {
				refs[have].action = action;
				memcpy(refs[have].data, data, DLEN);
				mods++;
			}
		} else {
			int rc = p4dp_table_entry_delete(t, &pm);
			CHECK(rc == (have >= 0 ? 0 : -ENOENT), "%s: delete: %d", s->name, rc);
			if (have >= 0) {
				refs[have].live = 0;
				live--;
				dels++;
			}
		}
		if (op % 500 == 499)
			check_lookups(s, t, 256);
	}
	check_lookups(s, t, 2048);
	struct fe_ctx c = {.s = s};
	p4dp_table_foreach(t, fe_cb, &c);
	CHECK(c.seen == live && c.bad == 0, "%s: foreach saw %u (%u bad), want %u", s->name, c.seen, c.bad, live);
	/* delete everything: lookups miss, the heap is back to the empty table's */
	for (uint32_t i = 0; i < n_refs; i++) {
		if (!refs[i].live)
			continue;
		uint8_t m[KMAX];
		mask_of(s, refs[i].plen, m);
		struct p4dp_match pm = {.value = refs[i].value, .mask = m};
		CHECK(p4dp_table_entry_delete(t, &pm) == 0, "%s: final delete", s->name);
		refs[i].live = 0;
	}
	check_lookups(s, t, 256);
	size_t after = heap_used();
	CHECK(after == empty, "%s: heap %zu bytes after deleting everything, %zu when empty", s->name, after, empty);
	p4dp_table_free(t);
	printf("%-26s %s (%u adds, %u modifies, %u deletes, max %u prefixes)\n", s->name, case_fail ? "FAIL" : "ok",
	       adds, mods, dels, n_refs);
	if (case_fail)
		n_fail++;
	else
		n_pass++;
}

/* Tables the trie does not take stay with tuple-space search. */
static void test_kind_choice(void)
{
	case_fail = 0;
	struct p4dp_key_field two[2] = {F(P4DP_MATCH_LPM, 0, 4, 32), F(P4DP_MATCH_LPM, 4, 4, 32)};
	struct p4dp_key_field tern[2] = {F(P4DP_MATCH_LPM, 0, 4, 32), F(P4DP_MATCH_TERNARY, 4, 4, 32)};
	struct p4dp_key_field wide[2] = {F(P4DP_MATCH_EXACT, 0, 16, 128), F(P4DP_MATCH_LPM, 16, 16, 128)};
	struct p4dp_key_field fits[2] = {F(P4DP_MATCH_EXACT, 0, 16, 112), F(P4DP_MATCH_LPM, 16, 16, 128)};
	const struct {
		struct p4dp_key_field *f;
		uint32_t key_len, kind;
	} c[] = {{two, 8, 2}, {tern, 8, 2}, {wide, 32, 2}, {fits, 32, 3}};
	for (uint32_t i = 0; i < 4; i++) {
		struct p4dp_table_params p = {.key_len = c[i].key_len, .n_fields = 2, .fields = c[i].f,
					      .max_entries = 16, .socket_id = SOCKET_ID_ANY};
		struct p4dp_table *t = p4dp_table_create(&p, NULL);
		struct p4dp_table_stats st = {0};
		if (t != NULL)
			p4dp_table_stats_get(t, &st);
		CHECK(t != NULL && st.kind == c[i].kind, "case %u: kind %u, want %u", i, st.kind, c[i].kind);
		p4dp_table_free(t);
	}
	printf("%-26s %s\n", "kind choice", case_fail ? "FAIL" : "ok");
	case_fail ? n_fail++ : n_pass++;
}

/* ------------------------------------------------------------ concurrent reader */

struct reader {
	struct p4dp_table *t;
	struct p4dp_rcu *rcu;
	uint32_t keys[64];
	int stop; /* relaxed: a stop flag orders nothing */
	uint64_t lookups, misses, torn, wrong, changed;
};

/* Entry data: {tag, tag, prefix, length}: the reader checks the pair and that the prefix
 * covers its key (with shared answers {tag, tag, 0, 0}: every /0 covers). */
static void cdata(uint32_t *d, uint32_t tag, uint32_t pfx, uint32_t len)
{
	d[0] = tag;
	d[1] = tag;
	d[2] = pfx;
	d[3] = len;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	p4dp_rcu_register(r->rcu, 0);
	const void *kp[64];
	const struct p4dp_entry *out[64];
	for (uint32_t i = 0; i < 64; i++)
		kp[i] = &r->keys[i];
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		p4dp_table_lookup_bulk(r->t, kp, 64, out);
		for (uint32_t i = 0; i < 64; i++) {
			const struct p4dp_entry *e = (i & 1) ? out[i] : p4dp_table_lookup(r->t, kp[i]);
			r->lookups++;
			if (e == NULL) {
				r->misses++;
				continue;
			}
			uint32_t d[4];
			memcpy(d, e->data, sizeof(d));
			if (d[0] != d[1] || e->action != d[0])
				r->torn++;
			uint32_t m = d[3] ? ~0u << (32 - d[3]) : 0;
			if ((r->keys[i] & m) != d[2])
				r->wrong++;
		}
		/* Still in the read-side section: every entry or answer the bulk lookup returned is
		 * unchanged (none is written after its publication, none is freed and reused before
		 * this reader's next quiescent state; a free block's first word becomes a list link). */
		for (uint32_t i = 1; i < 64; i += 2) {
			uint32_t d[4];
			if (out[i] == NULL)
				continue;
			memcpy(d, out[i]->data, sizeof(d));
			if (d[0] != d[1] || out[i]->action != d[0])
				r->changed++;
		}
		p4dp_rcu_quiescent(r->rcu, 0);
	}
	p4dp_rcu_unregister(r->rcu, 0);
	return NULL;
}

/* Nonzero while test_concurrent runs a table with shared answers: add4 leaves the prefix out of
 * the data, so prefixes with one tag share one answer. */
static int cshared;

static int add4(struct p4dp_table *t, uint32_t pfx, uint32_t len, uint32_t tag, int modify)
{
	uint32_t m = len ? ~0u << (32 - len) : 0, d[4];
	cdata(d, tag, cshared ? 0 : pfx, cshared ? 0 : len);
	struct p4dp_match pm = {.value = (const uint8_t *)&pfx, .mask = (const uint8_t *)&m};
	return modify ? p4dp_table_entry_modify(t, &pm, tag, d) : p4dp_table_entry_add(t, &pm, tag, d);
}

static int del4(struct p4dp_table *t, uint32_t pfx, uint32_t len)
{
	uint32_t m = len ? ~0u << (32 - len) : 0;
	struct p4dp_match pm = {.value = (const uint8_t *)&pfx, .mask = (const uint8_t *)&m};
	return p4dp_table_entry_delete(t, &pm);
}

/* The tag (action and data) of the writer's step @p i: with shared answers one of 8, so the
 * prefixes share answers and modifies drop answers to no reference and make them again. */
static uint32_t ctag(int shared, uint32_t i)
{
	return shared ? 1 + i % 8 : i;
}

/* @p size: declared entries (1 << 17: the 24-bit first level, 1 << 15: the 16-bit one);
 * @p shared: the table has shared answers (prefix and length are then not in the data). */
static void test_concurrent(uint32_t n_ops, uint32_t size, int shared)
{
	struct p4dp_key_field f = F(P4DP_MATCH_LPM, 0, 4, 32);
	struct p4dp_table_params p = {.name = "lpm concurrent", .key_len = 4, .n_fields = 1, .fields = &f,
				      .max_entries = size, .data_len = 16, .socket_id = SOCKET_ID_ANY,
				      .shared_answers = shared};
	struct p4dp_rcu *rcu = p4dp_rcu_create(1, SOCKET_ID_ANY);
	struct p4dp_table *t = rcu ? p4dp_table_create(&p, rcu) : NULL;
	const uint32_t net8 = 0x0a000000u, net16 = 0x0a010000u;
	struct reader r = {.t = t, .rcu = rcu};
	for (uint32_t i = 0; i < 64; i++)
		r.keys[i] = net16 | (uint32_t)rndn(1u << 16);
	cshared = shared;
	int rc = t ? add4(t, net8, 8, 1, 0) | add4(t, net16, 16, 2, 0) : -1;
	pthread_t th;
	if (rc != 0 || pthread_create(&th, NULL, reader_main, &r) != 0) {
		printf("%-26s FAIL (setup %d)\n", "concurrent reader", rc);
		n_fail++;
		p4dp_table_free(t);
		p4dp_rcu_free(rcu);
		return;
	}
	uint64_t wfail = 0;
	uint32_t tag = 10;
	for (uint32_t i = 0; i < n_ops; i++) {
		/* modify the /16 every step; add or delete a longer prefix inside it: one that
		 * covers a reader key (often), or any /17../32 */
		if (add4(t, net16, 16, ctag(shared, tag++), 1) != 0)
			wfail++;
		uint32_t len = 17 + rndn(16);
		uint32_t key = rndn(2) ? r.keys[rndn(64)] : net16 | (uint32_t)rndn(1u << 16);
		uint32_t pfx = key & (~0u << (32 - len));
		rc = add4(t, pfx, len, ctag(shared, tag++), 0);
		if (rc == -EEXIST)
			rc = rndn(2) ? del4(t, pfx, len) : add4(t, pfx, len, ctag(shared, tag++), 1);
		if (rc != 0)
			wfail++;
		if (i % 4096 == 4095) /* sometimes the /16 goes and comes back: the /8 answers */
			wfail += (del4(t, net16, 16) != 0) + (add4(t, net16, 16, ctag(shared, tag++), 0) != 0);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	cshared = 0;
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	int ok = r.misses == 0 && r.torn == 0 && r.wrong == 0 && r.changed == 0 && wfail == 0 && r.lookups > 0;
	printf("concurrent reader, %u%s: %s (%u steps, %" PRIu64 " lookups, %" PRIu64 " misses, %" PRIu64
	       " torn, %" PRIu64 " not covering, %" PRIu64 " changed in the read-side section, %" PRIu64
	       " writer failures, %" PRIu64 " entries)\n",
	       size, shared ? " shared answers" : "", ok ? "ok" : "FAIL", n_ops, r.lookups, r.misses, r.torn,
	       r.wrong, r.changed, wfail, st.entries);
	ok ? n_pass++ : n_fail++;
	p4dp_table_free(t);
	p4dp_rcu_free(rcu);
}

/* ------------------------------------------------------------ the 24-bit first level's edges */

/* An IPv4 table's answer for @p addr: its action, 0 on a miss; the bulk lookup must agree. */
static uint32_t act4(struct p4dp_table *t, uint32_t addr)
{
	const void *kp[1] = {&addr};
	const struct p4dp_entry *b[1];
	p4dp_table_lookup_bulk(t, kp, 1, b);
	const struct p4dp_entry *e = p4dp_table_lookup(t, &addr);
	CHECK(e == b[0], "0x%08x: single and bulk lookups disagree", addr);
	return e ? e->action : 0;
}

/* ------------------------------------------------------------ shared answers */

/* Data {tag, tag, 0, 0}: no prefix in it, so prefixes of one tag share one answer. */
static int sh4(struct p4dp_table *t, uint32_t pfx, uint32_t len, uint32_t tag, int modify)
{
	cshared = 1;
	int rc = add4(t, pfx, len, tag, modify);
	cshared = 0;
	return rc;
}

/* The control plane's read of prefix @p pfx / @p len: its action (0: none) and data @p d. */
static uint32_t get4(struct p4dp_table *t, uint32_t pfx, uint32_t len, uint32_t *d)
{
	uint32_t m = len ? ~0u << (32 - len) : 0, action = 0;
	struct p4dp_match pm = {.value = (const uint8_t *)&pfx, .mask = (const uint8_t *)&m};
	return p4dp_table_entry_get(t, &pm, &action, d, NULL) == 0 ? action : 0;
}

/* foreach: count the installed entries that are one of the answers in @p arg (5 pointers). */
static int not_answer_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	(void)m;
	const struct p4dp_entry **ans = arg;
	for (uint32_t i = 0; i < 5; i++)
		if (ans[i] == e)
			case_fail++;
	return 0;
}

/* A table with shared answers (@p size: 1 << 17 the 24-bit level and entry blocks, 1 << 10 the
 * 16-bit level and heap entries): lookups of prefixes with one (action, data) return one answer,
 * the control plane still finds each prefix's own entry; a modify moves one prefix to another
 * answer and leaves the others' answer as it was; and an answer that loses its last prefix stays
 * intact while a reader that may hold it has not passed a quiescent state, however much the
 * table changes meanwhile (deterministic: this thread is the reader). */
static void test_shared_answers(uint32_t size)
{
	case_fail = 0;
	struct p4dp_key_field f = F(P4DP_MATCH_LPM, 0, 4, 32);
	struct p4dp_table_params p = {.name = "lpm shared answers", .key_len = 4, .n_fields = 1, .fields = &f,
				      .max_entries = size, .data_len = 16, .socket_id = SOCKET_ID_ANY,
				      .shared_answers = 1};
	struct p4dp_rcu *rcu = p4dp_rcu_create(1, SOCKET_ID_ANY);
	struct p4dp_table *t = rcu ? p4dp_table_create(&p, rcu) : NULL;
	if (t == NULL) {
		printf("%-26s FAIL (create: %s)\n", "shared answers", strerror(errno));
		n_fail++;
		p4dp_rcu_free(rcu);
		return;
	}
	/* n + 1 + n entries at most, under the 1024 of the small table: slot indices of deleted
	 * entries come back only after a grace period, which this thread, a reader, holds up */
	const uint32_t n = 256, base = 0x0c000000u;
	for (uint32_t i = 0; i < n; i++)
		CHECK(sh4(t, base + (i << 8), 24, 1 + i % 4, 0) == 0, "add %u", i);
	const struct p4dp_entry *ans[5] = {NULL};
	uint32_t bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = base + (i << 8) + (uint32_t)rndn(256), tg = 1 + i % 4, d[4];
		const struct p4dp_entry *e = p4dp_table_lookup(t, &a);
		uint32_t od[4] = {0};
		uint32_t own = get4(t, base + (i << 8), 24, od);
		if (e == NULL) {
			bad++;
			continue;
		}
		memcpy(d, e->data, sizeof(d));
		if (ans[tg] == NULL)
			ans[tg] = e;
		/* one answer per tag; the control plane reads the prefix's own entry, same content */
		if (e != ans[tg] || e->action != tg || d[0] != tg || d[1] != tg || own != tg ||
		    memcmp(od, d, 16) != 0)
			bad++;
	}
	CHECK(bad == 0, "%u of %u prefixes: not their tag's one shared answer", bad, n);
	uint32_t f0 = case_fail;
	p4dp_table_foreach(t, not_answer_cb, ans);
	CHECK(case_fail == f0, "the installed entries are the answers lookups return");
	CHECK(act4(t, base + (1u << 8) + 7) == 2, "before the modify");
	/* modify one prefix of tag 2: the others keep the old answer, unchanged */
	CHECK(sh4(t, base + (1u << 8), 24, 3, 1) == 0, "modify to tag 3");
	CHECK(act4(t, base + (1u << 8) + 7) == 3, "the modified prefix answers tag 3");
	uint32_t a5 = base + (5u << 8) + 9;
	CHECK(p4dp_table_lookup(t, &a5) == ans[2] && ans[2]->action == 2, "the other tag-2 prefixes moved");
	CHECK(p4dp_table_lookup(t, &(uint32_t){base + (1u << 8)}) == ans[3], "tag 3's answer is not shared");

	/* two prefixes with an answer of their own (tags 77, 88), held by this thread as a reader */
	const uint32_t lone = 0x0d000000u, gone = 0x0d100000u;
	CHECK(sh4(t, lone, 16, 77, 0) == 0 && sh4(t, gone, 16, 88, 0) == 0, "add the lone prefixes");
	p4dp_rcu_register(rcu, 0);
	uint32_t la = lone + 0x1234, ga = gone + 0x1234;
	const struct p4dp_entry *held[2] = {p4dp_table_lookup(t, &la), p4dp_table_lookup(t, &ga)};
	CHECK(held[0] != NULL && held[0]->action == 77 && held[1] != NULL && held[1]->action == 88,
	      "lone prefix lookups");
	/* their last references go (a modify, a delete), then the table makes new entries and
	 * answers, which take freed blocks first: none may be a held answer's */
	CHECK(sh4(t, lone, 16, 78, 1) == 0, "modify a lone prefix");
	CHECK(del4(t, gone, 16) == 0, "delete a lone prefix");
	for (uint32_t i = 0; i < n; i++)
		CHECK(sh4(t, 0x0e000000u + (i << 8), 24, 100 + i, 0) == 0, "churn %u", i);
	for (uint32_t h = 0; h < 2; h++) {
		uint32_t d[4] = {0}, want = h ? 88 : 77;
		if (held[h] != NULL)
			memcpy(d, held[h]->data, sizeof(d));
		CHECK(held[h] != NULL && held[h]->action == want && d[0] == want && d[1] == want,
		      "an answer was reused before the grace period of its last reader (action %u, data %u %u)",
		      held[h] ? held[h]->action : 0, d[0], d[1]);
	}
	CHECK(act4(t, la) == 78 && act4(t, ga) == 0, "the lone prefixes answer their modified tag, a miss");
	p4dp_rcu_quiescent(rcu, 0);
	p4dp_rcu_unregister(rcu, 0);

	/* every prefix read back by the control plane as installed */
	struct p4dp_table_stats st;
	p4dp_table_stats_get(t, &st);
	CHECK(st.entries == n + 1 + n, "entries %" PRIu64, st.entries);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t od[4], want = i == 1 ? 3 : 1 + i % 4;
		CHECK(get4(t, base + (i << 8), 24, od) == want && od[0] == want, "read back %u", i);
	}
	/* delete everything: later adds of the same content make a new answer that works */
	const struct p4dp_table_head *hd = (const struct p4dp_table_head *)t;
	const uint64_t *slots0 = __atomic_load_n(&hd->lpm_slots, __ATOMIC_ACQUIRE);
	CHECK(p4dp_table_clear(t) == 0, "clear");
	CHECK(sh4(t, base, 24, 2, 0) == 0 && act4(t, base + 1) == 2, "add after clear");
	/* the clear's new first level is the one published for the program's prefetch */
	const struct shape ipv4 = {"shared answers, after a clear", 4, 0, {0}, F(P4DP_MATCH_LPM, 0, 4, 32), 32, 0};
	const uint64_t *slots1 = __atomic_load_n(&hd->lpm_slots, __ATOMIC_ACQUIRE);
	CHECK(slots1 != NULL && slots1 != slots0, "a clear publishes its new first level (%p, before %p)",
	      (const void *)slots1, (const void *)slots0);
	for (uint32_t a = base; a < base + 256; a += 17)
		check_prefetch_slot(&ipv4, t, (const uint8_t *)&a, p4dp_table_lookup(t, &a));
	p4dp_table_free(t);
	p4dp_rcu_free(rcu);
	printf("%-26s %s\n", size > (1u << 16) ? "shared answers, 24-bit" : "shared answers, 16-bit",
	       case_fail ? "FAIL" : "ok");
	case_fail ? n_fail++ : n_pass++;
}

static void test_root24_edges(void)
{
	case_fail = 0;
	struct p4dp_key_field f = F(P4DP_MATCH_LPM, 0, 4, 32);
	struct p4dp_table_params p = {.name = "lpm edges", .key_len = 4, .n_fields = 1, .fields = &f,
				      .max_entries = 1u << 20, .data_len = 16, .socket_id = SOCKET_ID_ANY};
	size_t before = vm_bytes();
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	if (t == NULL) {
		printf("%-26s FAIL (create: %s)\n", "24-bit level edges", strerror(errno));
		n_fail++;
		return;
	}
	size_t empty = heap_used();
	CHECK(vm_bytes() - before >= ROOT24_BYTES, "mapped %zu bytes: not the 24-bit level", vm_bytes() - before);
	const uint32_t net = 0x0a000000u; /* 10.0.0.0 */
	CHECK(act4(t, 0) == 0 && act4(t, ~0u) == 0, "empty table hits");
	CHECK(add4(t, 0, 0, 1, 0) == 0, "add /0");
	CHECK(act4(t, 0) == 1 && act4(t, ~0u) == 1 && act4(t, net) == 1, "/0 covers everything");
	CHECK(add4(t, net, 24, 2, 0) == 0, "add /24");
	CHECK(act4(t, net) == 2 && act4(t, net | 0xff) == 2, "/24: both ends");
	CHECK(act4(t, net - 1) == 1 && act4(t, net + 0x100) == 1, "/24: the neighbours stay /0");
	CHECK(add4(t, net | 0x80, 25, 3, 0) == 0, "add /25 below the /24");
	CHECK(act4(t, net | 0x80) == 3 && act4(t, net | 0xff) == 3 && act4(t, net | 0x7f) == 2, "/25 in the /24");
	CHECK(add4(t, net | 200, 32, 4, 0) == 0, "add /32");
	CHECK(act4(t, net | 200) == 4 && act4(t, net | 199) == 3 && act4(t, net | 201) == 3, "/32 in the /25");
	CHECK(add4(t, net, 23, 5, 0) == 0, "add /23 over the /24");
	CHECK(act4(t, net | 0x100) == 5 && act4(t, net | 0x1ff) == 5 && act4(t, net | 5) == 2, "/23 under the /24");
	CHECK(act4(t, net + 0x200) == 1, "past the /23");
	CHECK(add4(t, net, 24, 6, 1) == 0, "modify /24");
	CHECK(act4(t, net | 5) == 6 && act4(t, net | 0x80) == 3 && act4(t, net | 200) == 4, "modify keeps longer ones");
	CHECK(del4(t, net, 24) == 0, "delete /24");
	CHECK(act4(t, net | 5) == 5 && act4(t, net | 0x80) == 3 && act4(t, net | 200) == 4,
	      "delete /24: its range goes back to the /23, longer prefixes stay");
	CHECK(del4(t, net | 0x80, 25) == 0, "delete /25");
	CHECK(act4(t, net | 0x80) == 5 && act4(t, net | 200) == 4, "delete /25: the /23 covers it, the /32 stays");
	CHECK(del4(t, net, 23) == 0, "delete /23");
	CHECK(act4(t, net | 5) == 1 && act4(t, net | 0x100) == 1 && act4(t, net | 200) == 4, "delete /23: /0 again");
	CHECK(add4(t, 0, 32, 7, 0) == 0 && add4(t, ~0u, 32, 8, 0) == 0, "add the lowest and highest /32");
	CHECK(act4(t, 0) == 7 && act4(t, 1) == 1 && act4(t, ~0u) == 8 && act4(t, ~0u - 1) == 1, "lowest, highest");
	CHECK(add4(t, 0xff000000u, 8, 9, 0) == 0, "add /8");
	CHECK(act4(t, ~0u) == 8 && act4(t, ~0u - 1) == 9 && act4(t, 0xff000000u) == 9, "/8 under the highest /32");
	CHECK(add4(t, net, 24, 6, 0) == 0 && add4(t, net, 24, 6, 0) == -EEXIST, "add twice");
	CHECK(del4(t, net, 25) == -ENOENT, "delete an absent /25");
	CHECK(del4(t, 0, 0) == 0, "delete /0");
	CHECK(act4(t, 0x01020304u) == 0 && act4(t, net | 5) == 6 && act4(t, net | 200) == 4, "no /0: misses");
	const uint32_t left[][2] = {{net | 200, 32}, {0, 32}, {~0u, 32}, {0xff000000u, 8}, {net, 24}};
	for (uint32_t i = 0; i < 5; i++)
		CHECK(del4(t, left[i][0], left[i][1]) == 0, "final delete %u", i);
	CHECK(act4(t, net | 200) == 0 && act4(t, ~0u) == 0 && act4(t, 0) == 0, "empty again");
	CHECK(heap_used() == empty, "heap %zu bytes after deleting everything, %zu when empty", heap_used(), empty);
	p4dp_table_free(t);
	printf("%-26s %s\n", "24-bit level edges", case_fail ? "FAIL" : "ok");
	case_fail ? n_fail++ : n_pass++;
}

/* ------------------------------------------------------------ wide keys' edges */

/* An IPv6 key (little-endian 128-bit layout) of the address whose top 64 bits are @p hi and
 * low 64 bits @p lo. */
static void key6(uint8_t *k, uint64_t hi, uint64_t lo)
{
	memcpy(k, &lo, 8);
	memcpy(k + 8, &hi, 8);
}

static int op6(struct p4dp_table *t, uint64_t hi, uint64_t lo, uint32_t len, uint32_t tag, int what)
{
	uint8_t v[16], m[16];
	key6(v, hi, lo);
	uint64_t mh = len == 0 ? 0 : len >= 64 ? ~0ull : ~0ull << (64 - len);
	uint64_t ml = len <= 64 ? 0 : len == 128 ? ~0ull : ~0ull << (128 - len);
	key6(m, mh, ml);
	struct p4dp_match mt = {.value = v, .mask = m, .hi = NULL, .priority = 0};
	uint32_t d[DLEN / 4] = {tag, len, 0, 0};
	return what == 2 ? p4dp_table_entry_delete(t, &mt)
	       : what == 1 ? p4dp_table_entry_modify(t, &mt, tag, d)
			   : p4dp_table_entry_add(t, &mt, tag, d);
}

/* The table's answer for address @p hi:@p lo: its action, 0 on a miss; the bulk lookup agrees. */
static uint32_t act6(struct p4dp_table *t, uint64_t hi, uint64_t lo)
{
	uint8_t k[16];
	key6(k, hi, lo);
	const void *kp[1] = {k};
	const struct p4dp_entry *b[1];
	p4dp_table_lookup_bulk(t, kp, 1, b);
	const struct p4dp_entry *e = p4dp_table_lookup(t, k);
	CHECK(e == b[0], "%016" PRIx64 ":%016" PRIx64 ": single and bulk lookups disagree", hi, lo);
	return e ? e->action : 0;
}

/* /0, /128, the /64 boundary, the first level's boundary (/23../25 with @p size large enough for
 * the 24-bit level, /15../17 otherwise), and the covering prefix restored by deletes. */
static void test_wide_edges(uint32_t size)
{
	case_fail = 0;
	char name[40];
	snprintf(name, sizeof(name), "ipv6 edges (%s level)", size >= (1u << 16) ? "24-bit" : "16-bit");
	struct p4dp_key_field f = F(P4DP_MATCH_LPM, 0, 16, 128);
	struct p4dp_table_params p = {.name = name, .key_len = 16, .n_fields = 1, .fields = &f,
				      .max_entries = size, .data_len = DLEN, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	if (t == NULL) {
		printf("%-26s FAIL (create: %s)\n", name, strerror(errno));
		n_fail++;
		return;
	}
	size_t empty = heap_used();
	const uint64_t net = 0x20010db800000000ull; /* 2001:db8::/32 */
	const uint32_t rb = size >= (1u << 16) ? 24 : 16; /* the first level's bits */
	CHECK(act6(t, 0, 0) == 0 && act6(t, ~0ull, ~0ull) == 0, "empty table hits");
	CHECK(op6(t, 0, 0, 0, 1, 0) == 0, "add ::/0");
	CHECK(act6(t, 0, 0) == 1 && act6(t, ~0ull, ~0ull) == 1 && act6(t, net, 1) == 1, "/0 covers everything");
	CHECK(op6(t, net, 0, 64, 2, 0) == 0, "add a /64");
	CHECK(act6(t, net, 0) == 2 && act6(t, net, ~0ull) == 2, "/64: both ends");
	CHECK(act6(t, net - 1, ~0ull) == 1 && act6(t, net + 1, 0) == 1, "/64: the neighbours stay /0");
	CHECK(op6(t, net, 1ull << 63, 65, 3, 0) == 0, "add a /65 in the /64");
	CHECK(act6(t, net, 1ull << 63) == 3 && act6(t, net, ~0ull) == 3 && act6(t, net, (1ull << 63) - 1) == 2,
	      "/65: upper half of the /64");
	CHECK(op6(t, net, 0, 63, 4, 0) == 0, "add the /63 over the /64");
	CHECK(act6(t, net | 1, 5) == 4 && act6(t, net, 5) == 2 && act6(t, net + 2, 0) == 1, "/63 around the /64");
	CHECK(op6(t, net, 77, 128, 5, 0) == 0, "add a /128");
	CHECK(act6(t, net, 77) == 5 && act6(t, net, 76) == 2 && act6(t, net, 78) == 2, "/128 in the /64");
	CHECK(op6(t, ~0ull, ~0ull, 128, 6, 0) == 0 && op6(t, 0, 0, 128, 7, 0) == 0, "add the highest and lowest /128");
	CHECK(act6(t, ~0ull, ~0ull) == 6 && act6(t, ~0ull, ~0ull - 1) == 1 && act6(t, 0, 0) == 7 && act6(t, 0, 1) == 1,
	      "highest, lowest");
	/* around the first level's boundary: /rb-1, /rb, /rb+1 nested at the same address */
	const uint64_t top = 0x2a00000000000000ull;
	CHECK(op6(t, top, 0, rb - 1, 8, 0) == 0 && op6(t, top, 0, rb, 9, 0) == 0 && op6(t, top, 0, rb + 1, 10, 0) == 0,
	      "add /%u, /%u, /%u", rb - 1, rb, rb + 1);
	CHECK(act6(t, top, 0) == 10 && act6(t, top | 1ull << (63 - rb), 0) == 9 &&
		      act6(t, top | 1ull << (64 - rb), 0) == 8 && act6(t, top | 1ull << (65 - rb), 0) == 1,
	      "/%u, /%u, /%u nested", rb - 1, rb, rb + 1);
	CHECK(op6(t, top, 0, rb, 11, 1) == 0, "modify /%u", rb);
	CHECK(act6(t, top | 1ull << (63 - rb), 0) == 11 && act6(t, top, 0) == 10, "modify keeps the longer one");
	CHECK(op6(t, top, 0, rb, 0, 2) == 0, "delete /%u", rb);
	CHECK(act6(t, top | 1ull << (63 - rb), 0) == 8 && act6(t, top, 0) == 10, "delete /%u: the /%u covers again", rb,
	      rb - 1);
	/* covering prefixes restored: delete the /64 under the /63 and /65 */
	CHECK(op6(t, net, 0, 64, 0, 2) == 0, "delete the /64");
	CHECK(act6(t, net, 5) == 4 && act6(t, net, 1ull << 63) == 3 && act6(t, net, 77) == 5,
	      "delete the /64: the /63 covers it, the /65 and /128 stay");
	CHECK(op6(t, net, 0, 63, 0, 2) == 0, "delete the /63");
	CHECK(act6(t, net, 5) == 1 && act6(t, net, 77) == 5 && act6(t, net, 1ull << 63) == 3, "delete the /63: /0 again");
	CHECK(op6(t, net, 1ull << 63, 65, 0, 2) == 0 && act6(t, net, 1ull << 63) == 1, "delete the /65");
	CHECK(op6(t, net, 0, 64, 0, 2) == -ENOENT && op6(t, net, 77, 128, 5, 0) == -EEXIST, "absent, duplicate");
	CHECK(op6(t, 0, 0, 0, 0, 2) == 0, "delete ::/0");
	CHECK(act6(t, net, 5) == 0 && act6(t, net, 77) == 5 && act6(t, top, 0) == 10, "no /0: misses");
	CHECK(op6(t, net, 77, 128, 0, 2) == 0 && op6(t, ~0ull, ~0ull, 128, 0, 2) == 0 && op6(t, 0, 0, 128, 0, 2) == 0 &&
		      op6(t, top, 0, rb - 1, 0, 2) == 0 && op6(t, top, 0, rb + 1, 0, 2) == 0,
	      "final deletes");
	CHECK(act6(t, net, 77) == 0 && act6(t, top, 0) == 0 && act6(t, 0, 0) == 0, "empty again");
	CHECK(heap_used() == empty, "heap %zu bytes after deleting everything, %zu when empty", heap_used(), empty);
	p4dp_table_free(t);
	printf("%-26s %s\n", name, case_fail ? "FAIL" : "ok");
	case_fail ? n_fail++ : n_pass++;
}

/* ------------------------------------------------------------ entry blocks of 24-bit tables */

/* A table with the 24-bit level keeps its entries in huge-page chunks of its own, not in the DPDK
 * heap, and reuses a block once its entry is gone: modifying every entry, or deleting them all and
 * adding as many new ones, maps no more chunks (at most one: the blocks of a version and its
 * replacement overlap by one), and each lookup reads its own entry's data. */
static void test_entry_blocks(void)
{
	case_fail = 0;
	struct p4dp_key_field f = F(P4DP_MATCH_LPM, 0, 4, 32);
	struct p4dp_table_params p = {.name = "lpm blocks", .key_len = 4, .n_fields = 1, .fields = &f,
				      .max_entries = 1u << 18, .data_len = 16, .socket_id = SOCKET_ID_ANY};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	if (t == NULL) {
		printf("%-26s FAIL (create: %s)\n", "24-bit entry blocks", strerror(errno));
		n_fail++;
		return;
	}
	/* /24s from 11.0.0.0; under ThreadSanitizer fewer, still more than two chunks of blocks */
	const uint32_t n = 200000 / P4DP_TEST_TSAN_DIV, base = 0x0b000000u;
	const size_t chunk = (size_t)2 << 20;
	size_t heap0 = heap_used(), vm0 = vm_bytes();
	for (uint32_t i = 0; i < n; i++)
		CHECK(add4(t, base + (i << 8), 24, i + 1, 0) == 0, "add %u", i);
	size_t vm1 = vm_bytes();
	/* entries of 40 bytes (48 with alignment), all outside the heap */
	CHECK(heap_used() - heap0 < (size_t)n * 8, "entries in the heap: it grew by %zu bytes", heap_used() - heap0);
	CHECK(vm1 - vm0 >= (size_t)n * 40, "the entries mapped only %zu bytes", vm1 - vm0);
	for (uint32_t i = 0; i < n; i++)
		CHECK(add4(t, base + (i << 8), 24, n + i + 1, 1) == 0, "modify %u", i);
	CHECK(vm_bytes() - vm1 <= chunk, "modifying every entry mapped %zu more bytes", vm_bytes() - vm1);
	for (uint32_t i = 0; i < n; i++)
		CHECK(del4(t, base + (i << 8), 24) == 0, "delete %u", i);
	for (uint32_t i = 0; i < n; i++) /* other prefixes, /23s, in the blocks just freed */
		CHECK(add4(t, 0x30000000u + (i << 9), 23, 2 * n + i + 1, 0) == 0, "add again %u", i);
	CHECK(vm_bytes() - vm1 <= chunk, "adding after the deletes mapped %zu more bytes", vm_bytes() - vm1);
	uint32_t bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = 0x30000000u + (i << 9) + (uint32_t)rndn(512), d[4];
		const struct p4dp_entry *e = p4dp_table_lookup(t, &a);
		if (e != NULL)
			memcpy(d, e->data, sizeof(d));
		if (e == NULL || e->action != 2 * n + i + 1 || d[0] != e->action || d[1] != e->action ||
		    d[2] != 0x30000000u + (i << 9) || d[3] != 23 || act4(t, base + (i << 8)) != 0)
			bad++;
	}
	CHECK(bad == 0, "%u of %u lookups after the reuse wrong", bad, n);
	p4dp_table_free(t);
	printf("%-26s %s\n", "24-bit entry blocks", case_fail ? "FAIL" : "ok");
	case_fail ? n_fail++ : n_pass++;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0], "0@0,1@1") != 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0); /* a crash keeps the lines before it */
	if (getenv("P4DP_TEST_SEED"))
		rng = strtoull(getenv("P4DP_TEST_SEED"), NULL, 0) | 1;
	printf("seed 0x%" PRIx64 "\n", rng);
	/* single-threaded: under ThreadSanitizer only a short run (it checks nothing there) */
	for (uint32_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		run_random(&shapes[i], 5000 / P4DP_TEST_TSAN_DIV / P4DP_TEST_TSAN_DIV);
	test_kind_choice();
	test_root24_edges();
	test_entry_blocks();
	test_wide_edges(1u << 17);
	test_wide_edges(1u << 10);
	test_shared_answers(1u << 17);
	test_shared_answers(1u << 10);
	test_concurrent(40000 / P4DP_TEST_TSAN_DIV, 1u << 17, 0);
	test_concurrent(40000 / P4DP_TEST_TSAN_DIV, 1u << 15, 0);
	test_concurrent(40000 / P4DP_TEST_TSAN_DIV, 1u << 17, 1);
	test_concurrent(40000 / P4DP_TEST_TSAN_DIV, 1u << 15, 1);
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

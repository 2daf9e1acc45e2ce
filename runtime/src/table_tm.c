/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The classifier of tables with ternary / range / optional fields, or several lpm fields: a
 * merged tuple space after TupleMerge (J. Daly, V. Bruschi, L. Linguaglossa, S. Pontarelli,
 * D. Rossi, J. Tollet, E. Torng, A. Yourtchenko, "TupleMerge: Fast Software Packet Processing for
 * Online Packet Classification", IEEE/ACM ToN 2019). ARCHITECTURE.md, "Ternary and range
 * tables", gives the design and why.
 *
 * A rule's tuple is, per field, the length of the longest prefix its match fixes: the leading
 * ones of its mask (exact, lpm, ternary, optional), or the common prefix of lo and hi (range).
 * A hash table ("tab") has a tuple of its own and holds any rule whose tuple is at least as long
 * in every field: it hashes the key bits its own tuple covers, and each bucket holds the
 * candidates in priority order, each checked against its full value / mask / range. Many masks
 * share one tab, so a lookup probes few tabs. Tabs are probed in decreasing order of the highest
 * priority they hold and the walk stops once the best match found beats every remaining tab.
 *
 * Placement (insert): the most specific existing tab that takes the rule and whose bucket for it
 * holds fewer than TM_BUCKET_LIMIT rules; else a new tab of a relaxed tuple of the rule (first
 * a lean one: its longest fields rounded down to a quarter of their width, kept until they fix
 * TM_LEAN_BITS bits; then all fields rounded; then the rule's own tuple), the first of those
 * that does not exist yet; else the rule's own tuple's tab beyond the limit. A placed rule never
 * moves: inserts and deletes touch one bucket (and the view when a tab's top priority changes or
 * a tab appears or empties), never a grace period.
 *
 * Concurrency: one writer (the table mutex), lock-free readers. A bucket is an immutable array
 * of slots (priority, hash, rule, the rule's value / mask / range words); a change builds a new
 * array and publishes it with one release store. A tab doubles its buckets by a new pointer
 * array whose two halves share the old arrays (a reader's full-hash compare skips the other
 * half's slots); an array is split when its bucket next changes, and freed when no slot of the
 * current pointer array names it any more, after a grace period. The view (the tabs by
 * decreasing top priority), a tab's pointer array, each bucket and each rule's entry are
 * published with release and read with acquire; everything replaced is freed after a grace
 * period (the table's RCU defer queue).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "table_internal.h"

#define KW_MAX (P4DP_TABLE_KEY_MAX / 8)
/* Rules a bucket takes before a new rule looks for another tab. */
#define TM_BUCKET_LIMIT 8u
/* Bits a new tab's lean tuple fixes at least (when the rule fixes that many). */
#define TM_LEAN_BITS 16u
/* A tab stops doubling its buckets here. */
#define TM_MAX_BUCKETS (1u << 24)

/* One rule: its entry (what lookups return) and the control side's bookkeeping. */
struct tm_rule {
	struct p4dp_entry *entry; /* release/acquire */
	struct tm_rule *cnext;    /* control: the rule index's chain */
	struct tm_tab *tab;       /* control: the tab holding it */
	uint32_t chash;           /* control: hash of the identity (words + priority) */
	uint32_t heap_pos;        /* control: place in tab's priority heap */
	int32_t prio;
	int32_t user_prio;
	uint64_t w[]; /* kwords value words (value & mask), kwords mask words, lo bytes, hi bytes */
};

/* A bucket's candidate: a copy of the rule's words, so a check reads one array. */
struct tm_slot {
	int32_t prio;
	uint32_t hash;                /* full hash of the rule's relaxed key in its tab */
	const struct tm_rule *rule;
	uint64_t w[];                 /* as tm_rule.w */
};

struct tm_bucket {
	uint32_t n;    /* slots, decreasing priority */
	uint32_t refs; /* control: slots of the tab's current pointer array naming this array */
	uint64_t _pad;
	uint8_t slots[];
};

/* A tab's buckets: each a tagged pointer to its slot array (tm_bref), or 0 when empty. */
struct tm_htab {
	uint32_t mask; /* buckets - 1 */
	uint32_t _pad;
	uintptr_t b[]; /* release/acquire */
};

/* A hashed word of a tab: key word widx masked by mw. */
struct tm_hword {
	uint32_t widx;
	uint32_t _pad;
	uint64_t mw;
};

struct tm_tab {
	struct tm_htab *htab; /* release/acquire */
	uint32_t nw;          /* hashed words */
	uint32_t bits;        /* control: bits the tuple fixes */
	int32_t max_prio;     /* control: the heap's top, INT32_MIN when empty */
	uint32_t n;           /* control: rules */
	struct tm_rule **heap; /* control: max-heap of the rules by priority */
	uint32_t heap_cap;
	uint16_t *plen;        /* control: the tuple, per field */
	struct tm_hword hw[];
};

struct tm_view_ent {
	int32_t max_prio;
	uint32_t _pad;
	const struct tm_tab *tab;
};

struct tm_view {
	uint32_t n;
	uint32_t _pad;
	struct tm_view_ent e[];
};

struct table_tm {
	struct tm_view *view; /* release/acquire */
	uint32_t kwords;      /* ceil(key_len / 8) */
	uint32_t nr;          /* range fields */
	uint32_t rlen;        /* bytes of all range fields */
	uint32_t wlen;        /* bytes of a rule's words: 16 * kwords + 2 * rlen, 8-aligned */
	uint32_t slot_size;   /* sizeof(struct tm_slot) + wlen */
	const struct p4dp_key_field *rf[P4DP_TABLE_FIELDS_MAX];
	uint32_t roff[P4DP_TABLE_FIELDS_MAX]; /* offset of range field i in the lo / hi areas */
	/* control side */
	struct tm_tab **tabs;
	uint32_t n_tabs, cap_tabs;
	struct tm_rule **idx; /* the rule index: chains by identity hash */
	uint32_t idx_mask;
	uint64_t n_rules;
};

/* ------------------------------------------------------------ words and checks */

/* Word @p w of key @p k (key_len bytes): 8 bytes, or the zero-padded tail (its bytes where a
 * memcpy of them into a zeroed word puts them on a little-endian CPU; rules and keys both go
 * through here, so only the consistency matters). perf: the tail is read in 4-, 2- and 1-byte
 * pieces, not by a memcpy of a variable length, which the compiler left as a library call: 15 %
 * of the burst lookup's samples on 13-byte 5-tuple keys (perf cpu-clock, 2026-11-27). */
static inline uint64_t key_word(const uint8_t *k, uint32_t key_len, uint32_t w)
{
	uint64_t v = 0;
	uint32_t off = w * 8;
	if (likely(off + 8 <= key_len)) {
		memcpy(&v, k + off, 8);
		return v;
	}
	const uint8_t *p = k + off;
	uint32_t n = key_len - off, sh = 0;
	if (n & 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		v = x;
		p += 4;
		sh = 32;
	}
	if (n & 2) {
		uint16_t x;
		memcpy(&x, p, 2);
		v |= (uint64_t)x << sh;
		p += 2;
		sh += 16;
	}
	if (n & 1)
		v |= (uint64_t)*p << sh;
	return v;
}

static inline uint32_t tab_hash(const struct tm_tab *tb, const uint64_t *kw)
{
	uint32_t h = 0x9e3779b9u;
	for (uint32_t i = 0; i < tb->nw; i++)
		h = rte_hash_crc_8byte(kw[tb->hw[i].widx] & tb->hw[i].mw, h);
	return h;
}

/* Compare key field bytes @p a with bound bytes @p b (same field layout). */
static inline int field_val_cmp(const struct p4dp_key_field *f, const uint8_t *a, const uint8_t *b)
{
	switch (f->bitwidth <= 128 ? f->size : 0) {
	case 1:
		return (int)*a - (int)*b;
	case 2: {
		uint16_t x, y;
		memcpy(&x, a, 2);
		memcpy(&y, b, 2);
		return x < y ? -1 : x > y;
	}
	case 4: {
		uint32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x < y ? -1 : x > y;
	}
	case 8: {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x < y ? -1 : x > y;
	}
	case 16: {
		uint64_t x[2], y[2];
		memcpy(x, a, 16);
		memcpy(y, b, 16);
		if (x[1] != y[1])
			return x[1] < y[1] ? -1 : 1;
		return x[0] < y[0] ? -1 : x[0] > y[0];
	}
	default:
		return memcmp(a, b, f->size);
	}
}

/* Are key @p key's range fields within a rule's bounds (@p lo, then its hi bytes)? */
static inline bool ranges_match(const struct table_tm *s, const uint8_t *lo, const uint8_t *key)
{
	const uint8_t *hi = lo + s->rlen;
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct p4dp_key_field *f = s->rf[i];
		const uint8_t *kf = key + f->offset;
		if (field_val_cmp(f, kf, lo + s->roff[i]) < 0 || field_val_cmp(f, kf, hi + s->roff[i]) > 0)
			return false;
	}
	return true;
}

/* Does key @p key (its words @p kw) match the rule words @p w? */
static inline bool words_match(const struct table_tm *s, const uint64_t *w, const uint64_t *kw, const uint8_t *key)
{
	const uint64_t *mw = w + s->kwords;
	for (uint32_t i = 0; i < s->kwords; i++)
		if ((kw[i] & mw[i]) != w[i])
			return false;
	return s->nr == 0 || ranges_match(s, (const uint8_t *)(w + 2 * s->kwords), key);
}

static inline const struct tm_slot *slot_at(const struct table_tm *s, const struct tm_bucket *b, uint32_t i)
{
	return (const struct tm_slot *)(b->slots + (size_t)i * s->slot_size);
}

/*
 * A bucket reference: the slot array's address in the low TM_REF_SHIFT bits and, above them, a
 * 16-bit filter of the hashes its slots hold (bit h >> 28 of each), published together in one
 * word. A key whose bit is clear has no candidate in the bucket, so the burst lookup leaves that
 * bucket's slots unread: in a tab where the key has no rule, its bucket is most often another
 * rule's, and reading it was a second dependent cache miss per probe. Measured (p4dp bench
 * --suite table-kinds --kinds ternary, 2^13 ACL rules, 4 alternated pairs with the library
 * swapped under one binary, on a machine disturbed from outside: its floor 69-114 cycles/packet
 * where it is 39 at rest): program overhead 571-778 -> 448-677 cycles/packet, against rte_acl on
 * the same rules 1.23-1.54x -> 1.04-1.27x. A user-space address fits 47 bits on x86-64 and 48 on arm64 (Linux maps
 * none higher without asking); bucket_rewrite refuses an array that does not fit.
 */
#define TM_REF_SHIFT 48u
#define TM_REF_ADDR ((UINT64_C(1) << TM_REF_SHIFT) - 1)

static inline const struct tm_bucket *bref_ptr(uintptr_t r)
{
	return (const struct tm_bucket *)(r & TM_REF_ADDR);
}

/* The filter bit of full hash @p h, at its place in a reference. */
static inline uintptr_t bref_bit(uint32_t h)
{
	return (uintptr_t)1 << (TM_REF_SHIFT + (h >> 28));
}

/* ------------------------------------------------------------ fast path */

const struct p4dp_entry *table_tm_lookup(struct p4dp_table *t, const void *keyp)
{
	const struct table_tm *s = t->tm;
	const uint8_t *key = keyp;
	uint64_t kw[KW_MAX];
	for (uint32_t w = 0; w < s->kwords; w++)
		kw[w] = key_word(key, t->key_len, w);
	/* Acquire: pairs with the release store that published the view, so the view and the
	 * tabs it names (their hashed words) are initialized. */
	const struct tm_view *v = __atomic_load_n(&s->view, __ATOMIC_ACQUIRE);
	const struct tm_rule *best = NULL;
	int32_t bp = INT32_MIN;
	for (uint32_t i = 0; i < v->n; i++) {
		if (best != NULL && bp >= v->e[i].max_prio)
			break; /* no remaining tab holds a higher priority */
		const struct tm_tab *tb = v->e[i].tab;
		uint32_t h = tab_hash(tb, kw);
		/* Acquire: a doubled pointer array is published with release after it was filled. */
		const struct tm_htab *ht = __atomic_load_n(&tb->htab, __ATOMIC_ACQUIRE);
		/* Acquire: a bucket array is published with release after its slots were written. */
		const uintptr_t r = __atomic_load_n(&ht->b[h & ht->mask], __ATOMIC_ACQUIRE);
		if ((r & bref_bit(h)) == 0)
			continue; /* no slot of this hash (or no bucket) */
		const struct tm_bucket *b = bref_ptr(r);
		for (uint32_t j = 0; j < b->n; j++) {
			const struct tm_slot *sl = slot_at(s, b, j);
			if (best != NULL && sl->prio <= bp)
				break; /* slots are in decreasing priority */
			if (sl->hash == h && words_match(s, sl->w, kw, key)) {
				best = sl->rule;
				bp = sl->prio;
				break;
			}
		}
	}
	/* Acquire: a modify publishes a complete new entry with release. */
	return best != NULL ? __atomic_load_n(&best->entry, __ATOMIC_ACQUIRE) : NULL;
}

#define TM_BULK 32

/* words_match for keys of KW words, with range fields or without: the burst lookup's copy, with
 * the word count and the range test known when it is compiled (tm_lookup_chunk). */
static inline __attribute__((always_inline)) bool words_match_kw(const struct table_tm *s, const uint64_t *w,
								  const uint64_t *kw, const uint8_t *key,
								  const uint32_t KW, const bool ranges)
{
	for (uint32_t i = 0; i < KW; i++)
		if ((kw[i] & w[KW + i]) != w[i])
			return false;
	return !ranges || ranges_match(s, (const uint8_t *)(w + 2 * KW), key);
}

/* Up to TM_BULK keys of a burst: the tabs are probed in the view's order for every key still
 * open, each tab in three passes over the keys (hash and prefetch the bucket pointer; load it and
 * prefetch the bucket; check its slots), so that the cache misses of different keys overlap.
 * perf: the passes walk a list of the open keys, compacted before each tab without a branch,
 * rather than testing every key of the burst in each of the three passes: which keys a tab
 * closes is data-dependent, so those tests are hard to predict when the burst's keys finish in
 * different tabs. Measured (p4dp model --check's burst statistic, load 9, two alternated pairs,
 * cycles/packet over the floor): ternary 2^7 305 -> 221, 2^9 Zipf 485 -> 403, range 2^5 257 ->
 * 191, optional 2^5 182 -> 102, ternary 2^4 95 -> 91.
 * KW (the key's words) and ranges (whether it has range fields) are constants of each copy
 * (table_tm_lookup_bulk picks one), so the word loops unroll and a slot's size is known without
 * ranges. A key without a match has priority INT32_MIN, below every rule's (tm_normalize
 * refuses that priority), so "no match yet" needs no test of its own. Measured (p4dp bench --suite
 * table-kinds, 2^13 ACL rules, load 1-3, three alternated runs each, the library swapped under
 * one binary; program cycles/packet): ternary 477-495 -> 397-404, range 338-351 -> 295-313.
 * Both parts matter: the copies with the no-match tests kept measured 463-487 on ternary, and
 * a word compare without the early exit (the words' differences or-ed) 534-540. Tried and not
 * kept, no change: prefetching a bucket's second line, the next tab's hashes and bucket pointers
 * computed while this tab's buckets arrive, the hashed words held in registers per tab, and no
 * full-hash compare before the words'. */
static inline __attribute__((always_inline)) void tm_lookup_chunk(const struct p4dp_table *t,
								  const struct table_tm *s,
								  const uint8_t *const *keys, uint32_t n,
								  const struct p4dp_entry **out, const uint32_t KW,
								  const bool ranges)
{
	uint64_t kw[TM_BULK][4];
	const struct tm_rule *best[TM_BULK];
	int32_t bp[TM_BULK];
	uint32_t h[TM_BULK];
	const struct tm_bucket *bk[TM_BULK];
	uint8_t open[TM_BULK]; /* the keys that a tab may still improve, in burst order */
	const size_t slot_size = ranges ? s->slot_size : sizeof(struct tm_slot) + 16u * KW;
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t w = 0; w < KW; w++)
			kw[k][w] = key_word(keys[k], t->key_len, w);
		best[k] = NULL;
		bp[k] = INT32_MIN;
		open[k] = (uint8_t)k;
	}
	uint32_t n_open = n;
	/* Acquire: as in table_tm_lookup. */
	const struct tm_view *v = __atomic_load_n(&s->view, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < v->n; i++) {
		const struct tm_tab *tb = v->e[i].tab;
		int32_t top = v->e[i].max_prio;
		/* keep the keys whose match (none: INT32_MIN) this tab's top beats */
		uint32_t m = 0;
		for (uint32_t j = 0; j < n_open; j++) {
			uint32_t k = open[j];
			open[m] = (uint8_t)k;
			m += bp[k] < top;
		}
		n_open = m;
		if (n_open == 0)
			break; /* every key has a match no remaining tab can beat */
		/* Acquire: as in table_tm_lookup. */
		const struct tm_htab *ht = __atomic_load_n(&tb->htab, __ATOMIC_ACQUIRE);
		const uint32_t hmask = ht->mask;
		for (uint32_t j = 0; j < n_open; j++) {
			uint32_t k = open[j];
			h[k] = tab_hash(tb, kw[k]);
			rte_prefetch0(&ht->b[h[k] & hmask]);
		}
		/* the keys whose bucket holds rules of their hash's filter bit, in burst order: kept
		 * without a branch (whether a key's bucket is taken is the data's; with a branch on
		 * it, ternary rule sets under uniform traffic cost up to 1.7x as much in alternated
		 * runs when this landed) */
		uint8_t taken[TM_BULK];
		uint32_t nt = 0;
		for (uint32_t j = 0; j < n_open; j++) {
			uint32_t k = open[j];
			/* Acquire: as in table_tm_lookup. */
			const uintptr_t r = __atomic_load_n(&ht->b[h[k] & hmask], __ATOMIC_ACQUIRE);
			bk[k] = bref_ptr(r);
			taken[nt] = (uint8_t)k;
			nt += (r & bref_bit(h[k])) != 0;
		}
		for (uint32_t j = 0; j < nt; j++)
			rte_prefetch0(bk[taken[j]]->slots);
		for (uint32_t j = 0; j < nt; j++) {
			uint32_t k = taken[j];
			const struct tm_bucket *b = bk[k];
			const int32_t kbp = bp[k];
			const uint32_t kh = h[k];
			for (uint32_t q = 0; q < b->n; q++) {
				const struct tm_slot *sl = (const struct tm_slot *)(b->slots + (size_t)q * slot_size);
				if (sl->prio <= kbp)
					break; /* slots are in decreasing priority */
				if (sl->hash == kh && words_match_kw(s, sl->w, kw[k], keys[k], KW, ranges)) {
					best[k] = sl->rule;
					bp[k] = sl->prio;
					break;
				}
			}
		}
	}
	for (uint32_t k = 0; k < n; k++)
		/* Acquire: as in table_tm_lookup. */
		out[k] = best[k] != NULL ? __atomic_load_n(&best[k]->entry, __ATOMIC_ACQUIRE) : NULL;
}

/* One copy of the burst lookup per key width (1..4 words) and range / no range fields. */
#define TM_CHUNK_COPY(KW, RANGES)                                                                         \
	static void tm_lookup_chunk_##KW##_##RANGES(const struct p4dp_table *t, const struct table_tm *s, \
						    const uint8_t *const *keys, uint32_t n,                 \
						    const struct p4dp_entry **out)                          \
	{                                                                                                  \
		tm_lookup_chunk(t, s, keys, n, out, KW, RANGES);                                           \
	}
TM_CHUNK_COPY(1, 0)
TM_CHUNK_COPY(2, 0)
TM_CHUNK_COPY(3, 0)
TM_CHUNK_COPY(4, 0)
TM_CHUNK_COPY(1, 1)
TM_CHUNK_COPY(2, 1)
TM_CHUNK_COPY(3, 1)
TM_CHUNK_COPY(4, 1)

typedef void (*tm_chunk_fn)(const struct p4dp_table *, const struct table_tm *, const uint8_t *const *, uint32_t,
			    const struct p4dp_entry **);

void table_tm_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n, const struct p4dp_entry **out)
{
	static const tm_chunk_fn copies[2][4] = {
		{ tm_lookup_chunk_1_0, tm_lookup_chunk_2_0, tm_lookup_chunk_3_0, tm_lookup_chunk_4_0 },
		{ tm_lookup_chunk_1_1, tm_lookup_chunk_2_1, tm_lookup_chunk_3_1, tm_lookup_chunk_4_1 },
	};
	const struct table_tm *s = t->tm;
	if (s->kwords == 0 || s->kwords > 4) { /* wide keys: one at a time */
		for (uint32_t i = 0; i < n; i++)
			out[i] = table_tm_lookup(t, keys[i]);
		return;
	}
	tm_chunk_fn chunk = copies[s->nr != 0][s->kwords - 1];
	for (uint32_t i = 0; i < n; i += TM_BULK)
		chunk(t, s, (const uint8_t *const *)(keys + i), RTE_MIN(n - i, (uint32_t)TM_BULK), out + i);
}

/* ------------------------------------------------------------ allocation and reclamation */

static struct tm_view *view_alloc(struct p4dp_table *t, uint32_t n)
{
	return rte_zmalloc_socket("p4dp_tm_view", sizeof(struct tm_view) + n * sizeof(struct tm_view_ent),
				  RTE_CACHE_LINE_SIZE, t->socket_id);
}

static struct tm_htab *htab_alloc(struct p4dp_table *t, uint32_t buckets)
{
	struct tm_htab *h = rte_zmalloc_socket("p4dp_tm_htab", sizeof(*h) + (size_t)buckets * sizeof(h->b[0]),
					       RTE_CACHE_LINE_SIZE, t->socket_id);
	if (h != NULL)
		h->mask = buckets - 1;
	return h;
}

static void free_cb(void *ctx, void *p, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	rte_free(p);
}

/* A deleted rule: free it and its entry, give the slot index back. */
static void rule_release_cb(void *ctx, void *p, uint64_t arg)
{
	struct p4dp_table *t = ctx;
	struct tm_rule *r = p;
	(void)arg;
	table_idx_release(t, r->entry->index);
	rte_free(r->entry);
	rte_free(r);
}

/* Free a tab with its pointer array and the bucket arrays it names (no reader left). */
static void tab_free_now(struct tm_tab *tb)
{
	if (tb == NULL)
		return;
	struct tm_htab *ht = tb->htab;
	for (uint32_t i = 0; ht != NULL && i <= ht->mask; i++) {
		struct tm_bucket *b = (struct tm_bucket *)bref_ptr(ht->b[i]);
		if (b != NULL && --b->refs == 0)
			rte_free(b);
	}
	rte_free(ht);
	free(tb->heap);
	free(tb->plen);
	rte_free(tb);
}

static void tab_release_cb(void *ctx, void *p, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	tab_free_now(p);
}

/* ------------------------------------------------------------ the view */

static int view_cmp(const void *a, const void *b)
{
	const struct tm_view_ent *x = a, *y = b;
	if (x->max_prio != y->max_prio)
		return x->max_prio > y->max_prio ? -1 : 1;
	return 0;
}

/* Build and publish a view of the tabs that hold rules. */
static int view_publish(struct p4dp_table *t)
{
	struct table_tm *s = t->tm;
	struct tm_view *v = view_alloc(t, s->n_tabs);
	if (v == NULL)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->n_tabs; i++) {
		if (s->tabs[i]->n == 0)
			continue;
		v->e[n].max_prio = s->tabs[i]->max_prio;
		v->e[n].tab = s->tabs[i];
		n++;
	}
	v->n = n;
	qsort(v->e, n, sizeof(v->e[0]), view_cmp);
	struct tm_view *old = s->view;
	/* Release: the view and everything it names are written before readers can load the
	 * pointer (acquire in table_tm_lookup). */
	__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
	table_defer(t, free_cb, old, 0);
	return 0;
}

/* ------------------------------------------------------------ a tab's priority heap */

static void heap_set(struct tm_tab *tb, uint32_t i, struct tm_rule *r)
{
	tb->heap[i] = r;
	r->heap_pos = i;
}

static void heap_sift(struct tm_tab *tb, uint32_t i)
{
	struct tm_rule *r = tb->heap[i];
	while (i > 0 && tb->heap[(i - 1) / 2]->prio < r->prio) {
		heap_set(tb, i, tb->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= tb->n)
			break;
		if (c + 1 < tb->n && tb->heap[c + 1]->prio > tb->heap[c]->prio)
			c++;
		if (tb->heap[c]->prio <= r->prio)
			break;
		heap_set(tb, i, tb->heap[c]);
		i = c;
	}
	heap_set(tb, i, r);
}

/* Room for one more rule in tb's heap: 0 or -ENOMEM. */
static int heap_reserve(struct tm_tab *tb)
{
	if (tb->n < tb->heap_cap)
		return 0;
	uint32_t nc = tb->heap_cap ? tb->heap_cap * 2 : 16;
	struct tm_rule **h = realloc(tb->heap, (size_t)nc * sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	tb->heap = h;
	tb->heap_cap = nc;
	return 0;
}

/* Add @p r (heap_reserve done) / remove it; n and max_prio follow. */
static void heap_push(struct tm_tab *tb, struct tm_rule *r)
{
	heap_set(tb, tb->n++, r);
	heap_sift(tb, tb->n - 1);
	tb->max_prio = tb->heap[0]->prio;
}

static void heap_remove(struct tm_tab *tb, struct tm_rule *r)
{
	uint32_t i = r->heap_pos;
	tb->n--;
	if (i != tb->n) {
		heap_set(tb, i, tb->heap[tb->n]);
		heap_sift(tb, i);
	}
	tb->max_prio = tb->n ? tb->heap[0]->prio : INT32_MIN;
}

/* ------------------------------------------------------------ tuples and tabs */

/* Set the @p len leading bits of field @p f in buffer @p buf (key layout). */
static void field_prefix_set(const struct p4dp_key_field *f, uint8_t *buf, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++) {
		uint32_t b = f->bitwidth - 1 - k;
		uint32_t byte = f->bitwidth <= 128 ? b / 8 : (uint32_t)f->size - 1 - b / 8;
		buf[f->offset + byte] |= (uint8_t)(1u << (b % 8));
	}
}

/* The rule's tuple: per field the leading ones of its mask, or for a range the common prefix
 * of lo and hi. */
static void rule_tuple(const struct p4dp_table *t, const struct tm_match *m, uint16_t *plen)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const struct p4dp_key_field *f = &t->fields[i];
		uint32_t n = 0;
		for (int b = (int)f->bitwidth - 1; b >= 0; b--, n++) {
			if (f->match_kind == P4DP_MATCH_RANGE) {
				if (table_field_bit(f, m->value, (uint32_t)b) != table_field_bit(f, m->hi, (uint32_t)b))
					break;
			} else if (!table_field_bit(f, m->mask, (uint32_t)b)) {
				break;
			}
		}
		plen[i] = (uint16_t)n;
	}
}

/* Round each field of @p p down to a quarter of its width (@p round), and keep only the longest
 * rounded fields until they fix TM_LEAN_BITS bits (@p lean). */
static void tuple_relax(const struct p4dp_table *t, const uint16_t *p, uint16_t *round, uint16_t *lean)
{
	uint32_t n = t->n_fields;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = t->fields[i].bitwidth >= 4 ? t->fields[i].bitwidth / 4 : 1;
		round[i] = (uint16_t)(p[i] - p[i] % g);
		lean[i] = 0;
	}
	uint32_t bits = 0;
	while (bits < TM_LEAN_BITS) {
		uint32_t pick = n;
		for (uint32_t i = 0; i < n; i++)
			if (lean[i] == 0 && round[i] > 0 && (pick == n || round[i] > round[pick]))
				pick = i;
		if (pick == n)
			break;
		lean[pick] = round[pick];
		bits += round[pick];
	}
}

static bool tuple_covers(const struct p4dp_table *t, const uint16_t *tab, const uint16_t *rule)
{
	for (uint32_t i = 0; i < t->n_fields; i++)
		if (tab[i] > rule[i])
			return false;
	return true;
}

static struct tm_tab *tab_find(struct table_tm *s, const struct p4dp_table *t, const uint16_t *plen)
{
	for (uint32_t i = 0; i < s->n_tabs; i++)
		if (memcmp(s->tabs[i]->plen, plen, t->n_fields * sizeof(*plen)) == 0)
			return s->tabs[i];
	return NULL;
}

/* A new, empty tab of tuple @p plen, listed on the control side (not in the view yet). */
static struct tm_tab *tab_new(struct p4dp_table *t, const uint16_t *plen)
{
	struct table_tm *s = t->tm;
	if (s->n_tabs == s->cap_tabs) {
		uint32_t nc = s->cap_tabs ? s->cap_tabs * 2 : 8;
		struct tm_tab **nt = realloc(s->tabs, nc * sizeof(*nt));
		if (nt == NULL)
			return NULL;
		s->tabs = nt;
		s->cap_tabs = nc;
	}
	uint8_t mask[KW_MAX * 8];
	memset(mask, 0, s->kwords * 8);
	uint32_t bits = 0;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		field_prefix_set(&t->fields[i], mask, plen[i]);
		bits += plen[i];
	}
	uint32_t nw = 0;
	for (uint32_t w = 0; w < s->kwords; w++)
		nw += key_word(mask, s->kwords * 8, w) != 0;
	struct tm_tab *tb = rte_zmalloc_socket("p4dp_tm_tab", sizeof(*tb) + nw * sizeof(tb->hw[0]),
					       RTE_CACHE_LINE_SIZE, t->socket_id);
	if (tb == NULL)
		return NULL;
	tb->plen = malloc(t->n_fields * sizeof(*plen));
	tb->htab = htab_alloc(t, 8);
	if (tb->plen == NULL || tb->htab == NULL) {
		tab_free_now(tb);
		return NULL;
	}
	memcpy(tb->plen, plen, t->n_fields * sizeof(*plen));
	for (uint32_t w = 0; w < s->kwords; w++) {
		uint64_t m = key_word(mask, s->kwords * 8, w);
		if (m != 0) {
			tb->hw[tb->nw].widx = w;
			tb->hw[tb->nw].mw = m;
			tb->nw++;
		}
	}
	tb->bits = bits;
	tb->max_prio = INT32_MIN;
	s->tabs[s->n_tabs++] = tb;
	return tb;
}

static void tab_unlist(struct table_tm *s, struct tm_tab *tb)
{
	for (uint32_t i = 0; i < s->n_tabs; i++) {
		if (s->tabs[i] == tb) {
			s->tabs[i] = s->tabs[--s->n_tabs];
			return;
		}
	}
}

/* Slots of bucket array @p b that belong to bucket @p i of a pointer array of mask @p mask. */
static uint32_t bucket_count(const struct table_tm *s, const struct tm_bucket *b, uint32_t i, uint32_t mask)
{
	uint32_t c = 0;
	for (uint32_t j = 0; b != NULL && j < b->n; j++)
		c += (slot_at(s, b, j)->hash & mask) == i;
	return c;
}

/*
 * Replace bucket @p i of tab @p tb by a copy of its own slots (dropping the other half's after
 * a doubling) with @p add inserted (its slot's rule / hash / priority) and @p drop left out (or
 * NULL), and publish it. 0 or -ENOMEM (nothing changed).
 */
static int bucket_rewrite(struct p4dp_table *t, struct tm_tab *tb, uint32_t i, const struct tm_rule *add,
			  uint32_t add_hash, const struct tm_rule *drop)
{
	struct table_tm *s = t->tm;
	struct tm_htab *ht = tb->htab;
	struct tm_bucket *old = (struct tm_bucket *)bref_ptr(ht->b[i]);
	uint32_t n = bucket_count(s, old, i, ht->mask) + (add != NULL) - (drop != NULL);
	struct tm_bucket *nb = NULL;
	uintptr_t ref = 0;
	if (n > 0) {
		nb = rte_malloc_socket("p4dp_tm_bucket", sizeof(*nb) + (size_t)n * s->slot_size, 16, t->socket_id);
		if (nb == NULL)
			return -ENOMEM;
		if (((uintptr_t)nb & ~(uintptr_t)TM_REF_ADDR) != 0) { /* no room for the filter */
			rte_free(nb);
			return -ENOMEM;
		}
		nb->n = n;
		nb->refs = 1;
		nb->_pad = 0;
		uint32_t k = 0;
		bool placed = add == NULL;
		for (uint32_t j = 0; old != NULL && j <= old->n; j++) {
			const struct tm_slot *o = j < old->n ? slot_at(s, old, j) : NULL;
			if (!placed && (o == NULL || o->prio < add->prio)) {
				struct tm_slot *d = (struct tm_slot *)(nb->slots + (size_t)k++ * s->slot_size);
				d->prio = add->prio;
				d->hash = add_hash;
				d->rule = add;
				memcpy(d->w, add->w, s->wlen);
				placed = true;
			}
			if (o == NULL || (o->hash & ht->mask) != i || o->rule == drop)
				continue;
			memcpy(nb->slots + (size_t)k++ * s->slot_size, o, s->slot_size);
		}
		if (!placed) { /* empty old array */
			struct tm_slot *d = (struct tm_slot *)(nb->slots + (size_t)k++ * s->slot_size);
			d->prio = add->prio;
			d->hash = add_hash;
			d->rule = add;
			memcpy(d->w, add->w, s->wlen);
		}
		ref = (uintptr_t)nb;
		for (uint32_t j = 0; j < n; j++)
			ref |= bref_bit(slot_at(s, nb, j)->hash);
	}
	/* Release: the new array's slots are written before readers can reach it (acquire in
	 * table_tm_lookup); a reader on the old array finishes on its intact slots. The array and
	 * its filter are one word: a reader gets both old or both new. */
	__atomic_store_n(&ht->b[i], ref, __ATOMIC_RELEASE);
	if (old != NULL && --old->refs == 0)
		table_defer(t, free_cb, old, 0);
	return 0;
}

/* Double tb's buckets: both halves name the old arrays, split as their buckets change. */
static void tab_grow(struct p4dp_table *t, struct tm_tab *tb)
{
	struct tm_htab *old = tb->htab;
	uint32_t nb = (old->mask + 1) * 2;
	if (tb->nw == 0 || nb > TM_MAX_BUCKETS)
		return; /* one bucket anyway, or big enough */
	struct tm_htab *nt = htab_alloc(t, nb);
	if (nt == NULL)
		return; /* best effort: longer buckets are still correct */
	for (uint32_t i = 0; i <= old->mask; i++) {
		/* both halves take the reference with its filter, which covers both halves' slots */
		nt->b[i] = nt->b[i + old->mask + 1] = old->b[i];
		struct tm_bucket *b = (struct tm_bucket *)bref_ptr(old->b[i]);
		if (b != NULL)
			b->refs++; /* now named by two slots for each one before */
	}
	/* Release: the new pointer array is filled before readers can load it. */
	__atomic_store_n(&tb->htab, nt, __ATOMIC_RELEASE);
	table_defer(t, free_cb, old, 0);
}

/* ------------------------------------------------------------ the rule index (control) */

static uint32_t rule_ident_hash(const struct table_tm *s, const uint64_t *w, int32_t prio)
{
	uint32_t h = rte_hash_crc_4byte((uint32_t)prio, 0x5bd1e995u);
	for (uint32_t i = 0; i < s->wlen / 8; i++)
		h = rte_hash_crc_8byte(w[i], h);
	return h;
}

static struct tm_rule *rule_find(const struct table_tm *s, const uint64_t *w, int32_t prio)
{
	if (s->idx == NULL)
		return NULL;
	uint32_t h = rule_ident_hash(s, w, prio);
	for (struct tm_rule *r = s->idx[h & s->idx_mask]; r != NULL; r = r->cnext)
		if (r->chash == h && r->prio == prio && memcmp(r->w, w, s->wlen) == 0)
			return r;
	return NULL;
}

/* Room for one more rule in the index: 0 or -ENOMEM. */
static int index_reserve(struct table_tm *s)
{
	if (s->idx != NULL && s->n_rules < s->idx_mask + 1)
		return 0;
	uint32_t nb = s->idx ? (s->idx_mask + 1) * 2 : 64;
	struct tm_rule **ni = calloc(nb, sizeof(*ni));
	if (ni == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; s->idx != NULL && i <= s->idx_mask; i++) {
		struct tm_rule *r = s->idx[i];
		while (r != NULL) {
			struct tm_rule *nx = r->cnext;
			r->cnext = ni[r->chash & (nb - 1)];
			ni[r->chash & (nb - 1)] = r;
			r = nx;
		}
	}
	free(s->idx);
	s->idx = ni;
	s->idx_mask = nb - 1;
	return 0;
}

static void index_unlink(struct table_tm *s, struct tm_rule *r)
{
	struct tm_rule **l = &s->idx[r->chash & s->idx_mask];
	while (*l != r)
		l = &(*l)->cnext;
	*l = r->cnext;
	s->n_rules--;
}

/* The words of a normalized match (value & mask, mask, lo, hi) into @p w (wlen bytes). */
static void match_words(const struct p4dp_table *t, const struct tm_match *m, uint64_t *w)
{
	const struct table_tm *s = t->tm;
	memset(w, 0, s->wlen);
	for (uint32_t i = 0; i < s->kwords; i++) {
		uint64_t mk = key_word(m->mask, t->key_len, i);
		w[i] = key_word(m->value, t->key_len, i) & mk;
		w[s->kwords + i] = mk;
	}
	uint8_t *lo = (uint8_t *)(w + 2 * s->kwords);
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct p4dp_key_field *f = s->rf[i];
		memcpy(lo + s->roff[i], m->value + f->offset, f->size);
		memcpy(lo + s->rlen + s->roff[i], m->hi + f->offset, f->size);
	}
}

/* ------------------------------------------------------------ creation and teardown */

static int table_tm_create(struct p4dp_table *t)
{
	struct table_tm *s = rte_zmalloc_socket("p4dp_tm", sizeof(*s), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (s == NULL)
		return -ENOMEM;
	s->kwords = (t->key_len + 7) / 8;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		if (t->fields[i].match_kind != P4DP_MATCH_RANGE)
			continue;
		s->rf[s->nr] = &t->fields[i];
		s->roff[s->nr] = s->rlen;
		s->rlen += t->fields[i].size;
		s->nr++;
	}
	s->wlen = 16 * s->kwords + RTE_ALIGN_CEIL(2 * s->rlen, 8);
	s->slot_size = (uint32_t)sizeof(struct tm_slot) + s->wlen;
	s->view = view_alloc(t, 0);
	if (s->view == NULL) {
		rte_free(s);
		return -ENOMEM;
	}
	t->tm = s;
	return 0;
}

/* Free every rule and tab now (no reader left). */
static void free_all_now(struct table_tm *s)
{
	for (uint32_t i = 0; s->idx != NULL && i <= s->idx_mask; i++) {
		struct tm_rule *r = s->idx[i];
		while (r != NULL) {
			struct tm_rule *nx = r->cnext;
			rte_free(r->entry);
			rte_free(r);
			r = nx;
		}
	}
	for (uint32_t i = 0; i < s->n_tabs; i++)
		tab_free_now(s->tabs[i]);
}

static void table_tm_free(struct p4dp_table *t)
{
	struct table_tm *s = t->tm;
	if (s == NULL)
		return;
	p4dp_rcu_dq_reclaim(t->dq, true);
	p4dp_rcu_synchronize(t->rcu);
	free_all_now(s);
	free(s->tabs);
	free(s->idx);
	rte_free(s->view);
	rte_free(s);
	t->tm = NULL;
}

/* ------------------------------------------------------------ control API */

/* The bucket of a rule of words-source @p m in tab @p tb: its full hash in *h. */
static uint32_t rule_bucket(const struct p4dp_table *t, const struct tm_tab *tb, const struct tm_match *m,
			    uint32_t *h)
{
	uint64_t kw[KW_MAX];
	for (uint32_t w = 0; w < t->tm->kwords; w++)
		kw[w] = key_word(m->value, t->key_len, w); /* range fields hold lo: in the range's prefix */
	*h = tab_hash(tb, kw);
	return *h & tb->htab->mask;
}

/* The tab a new rule of match @p m goes to (possibly a new one, not yet in the view). */
static struct tm_tab *place(struct p4dp_table *t, const struct tm_match *m)
{
	struct table_tm *s = t->tm;
	uint16_t p[P4DP_TABLE_FIELDS_MAX], round[P4DP_TABLE_FIELDS_MAX], lean[P4DP_TABLE_FIELDS_MAX];
	rule_tuple(t, m, p);
	struct tm_tab *best = NULL;
	for (uint32_t i = 0; i < s->n_tabs; i++) {
		struct tm_tab *tb = s->tabs[i];
		if ((best != NULL && tb->bits <= best->bits) || !tuple_covers(t, tb->plen, p))
			continue;
		uint32_t h, b = rule_bucket(t, tb, m, &h);
		if (bucket_count(s, bref_ptr(tb->htab->b[b]), b, tb->htab->mask) < TM_BUCKET_LIMIT)
			best = tb;
	}
	if (best != NULL)
		return best;
	tuple_relax(t, p, round, lean);
	const uint16_t *cand[3] = {lean, round, p};
	for (int c = 0; c < 3; c++)
		if (tab_find(s, t, cand[c]) == NULL)
			return tab_new(t, cand[c]);
	return tab_find(s, t, p); /* every candidate full: past the limit in the rule's own tuple */
}

static int table_tm_add(struct p4dp_table *t, const struct tm_match *m, uint32_t action, const void *data)
{
	struct table_tm *s = t->tm;
	uint64_t w[(KW_MAX * 16 + 2 * P4DP_TABLE_KEY_MAX) / 8 + 1];
	match_words(t, m, w);
	if (rule_find(s, w, m->prio) != NULL)
		return -EEXIST;
	if (t->n_entries >= t->max_entries) {
		TABLE_STAT_INC(t->st_full);
		return -ENOSPC;
	}
	if (index_reserve(s) != 0)
		return -ENOMEM;
	uint32_t n_tabs = s->n_tabs;
	struct tm_tab *tb = place(t, m);
	if (tb == NULL)
		return -ENOMEM;
	bool fresh = s->n_tabs != n_tabs;
	int rc = -ENOMEM;
	struct tm_rule *r = NULL;
	struct p4dp_entry *e = NULL;
	int64_t idx = table_idx_get(t);
	if (idx < 0) {
		TABLE_STAT_INC(t->st_full);
		rc = (int)idx;
		goto fail;
	}
	r = rte_malloc_socket("p4dp_tm_rule", sizeof(*r) + s->wlen, 16, t->socket_id);
	e = table_entry_new(t, action, data, (uint32_t)idx, P4DP_ENTRY_F_DYNAMIC);
	if (r == NULL || e == NULL || heap_reserve(tb) != 0)
		goto fail_idx;
	r->entry = e;
	r->tab = tb;
	r->prio = m->prio;
	r->user_prio = m->user_prio;
	memcpy(r->w, w, s->wlen);
	r->chash = rule_ident_hash(s, w, m->prio);
	uint32_t h, b = rule_bucket(t, tb, m, &h);
	int32_t old_max = tb->max_prio;
	heap_push(tb, r);
	if (fresh) {
		/* The tab is not visible yet: fill its bucket, then publish the view. */
		if (bucket_rewrite(t, tb, b, r, h, NULL) != 0 || view_publish(t) != 0)
			goto fail_heap;
	} else {
		/* Raise the tab's top priority in the view before the rule becomes reachable, so no
		 * reader skips the tab while it holds the rule. */
		if (tb->max_prio > old_max && view_publish(t) != 0)
			goto fail_heap;
		if (bucket_rewrite(t, tb, b, r, h, NULL) != 0)
			goto fail_heap; /* a raised view top is still correct, only prunes less */
	}
	r->cnext = s->idx[r->chash & s->idx_mask];
	s->idx[r->chash & s->idx_mask] = r;
	s->n_rules++;
	TABLE_SET_RELAXED(t->n_entries, t->n_entries + 1);
	if (tb->n > tb->htab->mask + 1)
		tab_grow(t, tb);
	return 0;
fail_heap:
	heap_remove(tb, r);
fail_idx:
	rte_free(r);
	rte_free(e);
	table_idx_release(t, (uint32_t)idx);
fail:
	if (fresh) {
		tab_unlist(s, tb);
		tab_free_now(tb); /* never visible */
	}
	return rc;
}

static struct tm_rule *match_rule(struct p4dp_table *t, const struct tm_match *m)
{
	uint64_t w[(KW_MAX * 16 + 2 * P4DP_TABLE_KEY_MAX) / 8 + 1];
	match_words(t, m, w);
	return rule_find(t->tm, w, m->prio);
}

static int table_tm_modify(struct p4dp_table *t, const struct tm_match *m, uint32_t action, const void *data)
{
	struct tm_rule *r = match_rule(t, m);
	if (r == NULL)
		return -ENOENT;
	struct p4dp_entry *old = r->entry;
	struct p4dp_entry *e = table_entry_new(t, action, data, old->index, P4DP_ENTRY_F_DYNAMIC);
	if (e == NULL)
		return -ENOMEM;
	table_entry_carry_timer(e, old); /* a modify is no hit: keep the last-hit time and TTL */
	/* Release: the complete new version is visible before its pointer; a reader gets the old
	 * or the new entry, never a mix. */
	__atomic_store_n(&r->entry, e, __ATOMIC_RELEASE);
	table_defer_free(t, old);
	return 0;
}

static int table_tm_delete(struct p4dp_table *t, const struct tm_match *m)
{
	struct table_tm *s = t->tm;
	struct tm_rule *r = match_rule(t, m);
	if (r == NULL)
		return -ENOENT;
	struct tm_tab *tb = r->tab;
	uint32_t h, b = rule_bucket(t, tb, m, &h);
	int rc = bucket_rewrite(t, tb, b, NULL, 0, r);
	if (rc != 0)
		return rc;
	int32_t old_max = tb->max_prio;
	heap_remove(tb, r);
	index_unlink(s, r);
	TABLE_SET_RELAXED(t->n_entries, t->n_entries - 1);
	table_defer(t, rule_release_cb, r, 0);
	if (tb->n == 0) {
		tab_unlist(s, tb);
		if (view_publish(t) != 0) {
			/* Keep the empty tab listed and in the view (correct, only slower); a later
			 * view takes it out. */
			s->tabs[s->n_tabs++] = tb;
			return 0;
		}
		table_defer(t, tab_release_cb, tb, 0);
	} else if (tb->max_prio < old_max) {
		/* Lowering the top after the unlink is safe: a reader with the old view only prunes
		 * less. On failure the old, higher top stays: also correct. */
		(void)view_publish(t);
	}
	return 0;
}

static int table_tm_clear(struct p4dp_table *t)
{
	struct table_tm *s = t->tm;
	struct tm_view *v = view_alloc(t, 0);
	if (v == NULL)
		return -ENOMEM;
	struct tm_view *old = s->view;
	/* Release as in view_publish; after this no reader reaches any tab. */
	__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
	table_defer(t, free_cb, old, 0);
	for (uint32_t i = 0; s->idx != NULL && i <= s->idx_mask; i++) {
		struct tm_rule *r = s->idx[i];
		while (r != NULL) {
			struct tm_rule *nx = r->cnext;
			table_defer(t, rule_release_cb, r, 0);
			TABLE_SET_RELAXED(t->n_entries, t->n_entries - 1);
			r = nx;
		}
		s->idx[i] = NULL;
	}
	s->n_rules = 0;
	for (uint32_t i = 0; i < s->n_tabs; i++)
		table_defer(t, tab_release_cb, s->tabs[i], 0);
	s->n_tabs = 0;
	return 0;
}

static int table_tm_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	struct table_tm *s = t->tm;
	uint8_t val[KW_MAX * 8], msk[KW_MAX * 8], hi[P4DP_TABLE_KEY_MAX];
	for (uint32_t i = 0; s->idx != NULL && i <= s->idx_mask; i++) {
		for (struct tm_rule *r = s->idx[i]; r != NULL; r = r->cnext) {
			memcpy(val, r->w, s->kwords * 8);
			memcpy(msk, r->w + s->kwords, s->kwords * 8);
			memset(hi, 0, t->key_len);
			const uint8_t *lo = (const uint8_t *)(r->w + 2 * s->kwords);
			for (uint32_t k = 0; k < s->nr; k++) {
				const struct p4dp_key_field *f = s->rf[k];
				memcpy(val + f->offset, lo + s->roff[k], f->size);
				memcpy(hi + f->offset, lo + s->rlen + s->roff[k], f->size);
			}
			struct p4dp_match m = {.value = val, .mask = msk, .hi = s->nr ? hi : NULL,
					       .priority = r->user_prio};
			int rc = cb(arg, &m, r->entry);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the kind's operations */

/* Normalize a match into scratch buffers @p val, @p msk, @p hi (key_len bytes each). */
static int tm_normalize(const struct p4dp_table *t, const struct p4dp_match *m, uint8_t *val, uint8_t *msk,
			uint8_t *hi, struct tm_match *out)
{
	if (m == NULL || m->value == NULL)
		return -EINVAL;
	if (t->has_range && m->hi == NULL)
		return -EINVAL;
	if (!t->prio_is_prefix && m->priority == INT32_MIN)
		return -EINVAL; /* the lookups' "no match yet" (tm_lookup_chunk) */
	memset(val, 0, t->key_len);
	memset(msk, 0, t->key_len);
	memset(hi, 0, t->key_len);
	int32_t prefix_sum = 0;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const struct p4dp_key_field *f = &t->fields[i];
		const uint8_t *wm = t->width_mask + f->offset;
		const uint8_t *v = m->value + f->offset;
		const uint8_t *mk = m->mask ? m->mask + f->offset : wm;
		bool full = true, zero = true;
		for (uint32_t j = 0; j < f->size; j++) {
			if (v[j] & ~wm[j])
				return -EINVAL; /* value bits beyond the width */
			if (f->match_kind != P4DP_MATCH_RANGE && (v[j] & ~mk[j]))
				return -EINVAL; /* value bits outside the mask */
			if (mk[j] & ~wm[j])
				return -EINVAL;
			if (mk[j] != wm[j])
				full = false;
			if (mk[j] != 0)
				zero = false;
		}
		switch (f->match_kind) {
		case P4DP_MATCH_EXACT:
			if (!full)
				return -EINVAL;
			break;
		case P4DP_MATCH_LPM: {
			int len = table_field_prefix_len(f, mk - f->offset);
			if (len < 0)
				return -EINVAL;
			prefix_sum += len;
			break;
		}
		case P4DP_MATCH_TERNARY:
			break;
		case P4DP_MATCH_OPTIONAL:
			if (!full && !zero)
				return -EINVAL;
			break;
		case P4DP_MATCH_RANGE: {
			if (m->mask != NULL && !zero)
				return -EINVAL;
			const uint8_t *h = m->hi + f->offset;
			for (uint32_t j = 0; j < f->size; j++)
				if (h[j] & ~wm[j])
					return -EINVAL;
			if (table_field_cmp(f, m->value, m->hi) > 0)
				return -EINVAL; /* lo > hi */
			memcpy(val + f->offset, v, f->size);
			memcpy(hi + f->offset, h, f->size);
			continue; /* mask stays 0 */
		}
		}
		memcpy(val + f->offset, v, f->size);
		memcpy(msk + f->offset, mk, f->size);
	}
	out->value = val;
	out->mask = msk;
	out->hi = hi;
	out->user_prio = t->prio_is_prefix ? 0 : m->priority;
	out->prio = t->prio_is_prefix ? prefix_sum : m->priority;
	return 0;
}

/* Scratch buffers of one normalized match (key_len bytes each). */
#define TM_SCRATCH(t)                                                                                     \
	uint8_t val_[(t)->key_len ? (t)->key_len : 1], msk_[(t)->key_len ? (t)->key_len : 1],             \
		hi_[(t)->key_len ? (t)->key_len : 1]

static int tm_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	TM_SCRATCH(t);
	struct tm_match tm;
	int rc = tm_normalize(t, m, val_, msk_, hi_, &tm);
	if (rc == 0)
		rc = table_tm_add(t, &tm, action, data);
	if (rc == 0)
		t->st_inserts++;
	return rc;
}

static int tm_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	TM_SCRATCH(t);
	struct tm_match tm;
	int rc = tm_normalize(t, m, val_, msk_, hi_, &tm);
	return rc ? rc : table_tm_modify(t, &tm, action, data);
}

static int tm_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	TM_SCRATCH(t);
	struct tm_match tm;
	int rc = tm_normalize(t, m, val_, msk_, hi_, &tm);
	return rc ? rc : table_tm_delete(t, &tm);
}

static int tm_find(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e)
{
	TM_SCRATCH(t);
	struct tm_match tm;
	int rc = tm_normalize(t, m, val_, msk_, hi_, &tm);
	if (rc == 0) {
		const struct tm_rule *r = match_rule(t, &tm);
		*e = r ? r->entry : NULL;
	}
	return rc;
}

/* A worker's insert: an exact match on every field (table_worker_lock: the mutex only tried). */
static int tm_dp_insert(struct p4dp_table *t, const uint8_t *k, uint32_t action, const void *data,
			uint8_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row)
{
	(void)seen;
	(void)row; /* exact tables only (table_internal.h) */
	int rc = table_worker_lock(t, profile, now_ns);
	if (rc != 0)
		return rc;
	TM_SCRATCH(t);
	struct tm_match tm;
	struct p4dp_match m = {.value = k, .mask = NULL, .hi = k, .priority = t->prio_is_prefix ? 0 : 1};
	rc = tm_normalize(t, &m, val_, msk_, hi_, &tm);
	if (rc == 0)
		rc = table_tm_add(t, &tm, action, data);
	if (rc == 0)
		t->st_inserts++;
	table_worker_unlock(t, rc == 0);
	return rc;
}

static void tm_stats(const struct p4dp_table *t, struct p4dp_table_stats *st)
{
	st->tuples = t->tm->n_tabs;
}

const struct table_kind_ops table_tm_ops = {
	.kind = TABLE_KIND_TM,
	.expires = true,
	.create = table_tm_create,
	.free = table_tm_free,
	.add = tm_add,
	.modify = tm_modify,
	.del = tm_delete,
	.find = tm_find,
	.clear = table_tm_clear,
	.foreach = table_tm_foreach,
	.dp_insert = tm_dp_insert,
	.stats = tm_stats,
};

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tuple-space search for tables with lpm / ternary / range / optional fields.
 *
 * Entries are grouped by their mask vector (a tuple; range fields have mask 0).
 * Each tuple owns a chained hash table on the masked key; a bucket's chain is
 * sorted by priority (descending), so the first full match in a chain (masked
 * key equal and every range field within its bounds) is the tuple's best.
 * Readers see a "view": the tuples sorted by the highest priority each holds.
 * A lookup walks the view and stops as soon as the best match found so far has
 * a priority >= the next tuple's maximum. For tables of only exact+lpm fields
 * the priority is the total prefix length (longest prefix wins).
 *
 * Concurrency: one writer (table mutex), lock-free readers. Every pointer that
 * readers follow (view, tuple hash table, bucket heads, chain links, node entry)
 * is published with a release store after the pointee is fully written, and
 * read with an acquire load. Unlinked nodes, replaced entries, replaced hash
 * tables and views are freed after an RCU grace period. Growing a tuple's hash
 * table builds a new table of copied nodes and publishes it with one store.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "table_internal.h"

#define KW_MAX (P4DP_TABLE_KEY_MAX / 8)

struct tss_node {
	struct tss_node *next;     /* release/acquire */
	struct p4dp_entry *entry;  /* release/acquire */
	uint32_t hash;
	int32_t prio;
	int32_t user_prio;
	uint32_t _pad;
	uint64_t w[];              /* nw masked key words, then range lo bytes, then hi bytes */
};

struct tss_htab {
	uint32_t mask; /* buckets - 1 */
	uint32_t _pad;
	struct tss_node *b[];
};

struct tss_tuple {
	struct tss_htab *tab;     /* release/acquire */
	uint32_t nw;              /* number of nonzero mask words */
	uint32_t n;               /* entries (control) */
	int32_t max_prio;         /* control */
	uint32_t n_at_max;        /* control */
	uint16_t *widx;           /* word index of each nonzero mask word */
	uint64_t *mw;             /* the nonzero mask words */
	uint8_t *mask;            /* full mask, kwords * 8 bytes (control) */
	uint32_t node_size;
};

struct tss_view_ent {
	int32_t max_prio;
	uint32_t _pad;
	struct tss_tuple *tup;
};

struct tss_view {
	uint32_t n;
	uint32_t _pad;
	struct tss_view_ent e[];
};

struct table_tss {
	struct tss_view *view; /* release/acquire */
	uint32_t kwords;       /* ceil(key_len / 8) */
	uint32_t nr;           /* number of range fields */
	uint32_t rlen;         /* bytes of all range fields */
	const struct p4dp_key_field *rf[P4DP_TABLE_FIELDS_MAX];
	uint32_t roff[P4DP_TABLE_FIELDS_MAX]; /* offset of range field i in lo/hi areas */
	/* control side */
	struct tss_tuple **tuples;
	uint32_t n_tuples, cap_tuples;
};

/* ------------------------------------------------------------ key words */

/* Word @p w of key @p k (key_len bytes): 8 bytes, or the zero-padded tail. */
static inline uint64_t key_word(const uint8_t *k, uint32_t key_len, uint32_t w)
{
	uint64_t v = 0;
	uint32_t off = w * 8;
	if (likely(off + 8 <= key_len))
		memcpy(&v, k + off, 8);
	else
		memcpy(&v, k + off, key_len - off);
	return v;
}

/* Masked key words and their hash for tuple @p tp. */
static inline uint32_t tuple_hash(const struct tss_tuple *tp, const uint8_t *key, uint32_t key_len,
				  uint64_t *out)
{
	uint32_t h = 0x9e3779b9u;
	for (uint32_t i = 0; i < tp->nw; i++) {
		uint64_t v = key_word(key, key_len, tp->widx[i]) & tp->mw[i];
		out[i] = v;
		h = rte_hash_crc_8byte(v, h);
	}
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

static inline bool node_ranges_ok(const struct table_tss *s, const struct tss_tuple *tp, const struct tss_node *n,
				  const uint8_t *key)
{
	const uint8_t *lo = (const uint8_t *)(n->w + tp->nw);
	const uint8_t *hi = lo + s->rlen;
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct p4dp_key_field *f = s->rf[i];
		const uint8_t *kf = key + f->offset;
		if (field_val_cmp(f, kf, lo + s->roff[i]) < 0 || field_val_cmp(f, kf, hi + s->roff[i]) > 0)
			return false;
	}
	return true;
}

static inline bool node_key_eq(const struct tss_tuple *tp, const struct tss_node *n, const uint64_t *kw)
{
	for (uint32_t i = 0; i < tp->nw; i++)
		if (n->w[i] != kw[i])
			return false;
	return true;
}

/* ------------------------------------------------------------ fast path */

const struct p4dp_entry *table_tss_lookup(struct p4dp_table *t, const void *keyp)
{
	const struct table_tss *s = t->tss;
	const uint8_t *key = keyp;
	uint64_t kw[KW_MAX];
	/* Acquire: pairs with the release store that published the view, so
	 * the view's contents and the tuples it names are initialized. */
	const struct tss_view *v = __atomic_load_n(&s->view, __ATOMIC_ACQUIRE);
	const struct tss_node *best = NULL;
	int32_t bp = INT32_MIN;
	for (uint32_t i = 0; i < v->n; i++) {
		if (best != NULL && bp >= v->e[i].max_prio)
			break; /* no remaining tuple can beat the match found */
		const struct tss_tuple *tp = v->e[i].tup;
		uint32_t h = tuple_hash(tp, key, t->key_len, kw);
		/* Acquire: a grown table is published with release after its
		 * nodes were written. */
		const struct tss_htab *tab = __atomic_load_n(&tp->tab, __ATOMIC_ACQUIRE);
		/* Acquire on each link: nodes are linked in with release after
		 * being fully written. */
		const struct tss_node *n = __atomic_load_n(&tab->b[h & tab->mask], __ATOMIC_ACQUIRE);
		for (; n != NULL; n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
			if (best != NULL && n->prio <= bp)
				break; /* chain is sorted by priority */
			if (n->hash == h && node_key_eq(tp, n, kw) && (s->nr == 0 || node_ranges_ok(s, tp, n, key))) {
				best = n;
				bp = n->prio;
				break;
			}
		}
	}
	/* Acquire: a modify publishes a complete new entry with release. */
	return best != NULL ? __atomic_load_n(&best->entry, __ATOMIC_ACQUIRE) : NULL;
}

/* ------------------------------------------------------------ creation */

static struct tss_view *view_alloc(struct p4dp_table *t, uint32_t n)
{
	return rte_zmalloc_socket("p4dp_tss_view", sizeof(struct tss_view) + n * sizeof(struct tss_view_ent),
				  RTE_CACHE_LINE_SIZE, t->socket_id);
}

static int table_tss_create(struct p4dp_table *t)
{
	struct table_tss *s = rte_zmalloc_socket("p4dp_tss", sizeof(*s), RTE_CACHE_LINE_SIZE, t->socket_id);
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
	s->view = view_alloc(t, 0);
	if (s->view == NULL) {
		rte_free(s);
		return -ENOMEM;
	}
	t->tss = s;
	return 0;
}

static void tuple_free_now(struct tss_tuple *tp)
{
	if (tp == NULL)
		return;
	struct tss_htab *tab = tp->tab;
	if (tab != NULL) {
		for (uint32_t b = 0; b <= tab->mask; b++) {
			struct tss_node *n = tab->b[b];
			while (n != NULL) {
				struct tss_node *nx = n->next;
				rte_free(n);
				n = nx;
			}
		}
		rte_free(tab);
	}
	free(tp->widx);
	free(tp->mask);
	rte_free(tp->mw);
	rte_free(tp);
}

/* Free all entries of a tuple (control, no readers left) */
static void tuple_free_entries_now(struct tss_tuple *tp)
{
	struct tss_htab *tab = tp->tab;
	for (uint32_t b = 0; b <= tab->mask; b++)
		for (struct tss_node *n = tab->b[b]; n != NULL; n = n->next)
			rte_free(n->entry);
}

static void table_tss_free(struct p4dp_table *t)
{
	struct table_tss *s = t->tss;
	if (s == NULL)
		return;
	p4dp_rcu_dq_reclaim(t->dq, true);
	p4dp_rcu_synchronize(t->rcu);
	for (uint32_t i = 0; i < s->n_tuples; i++) {
		tuple_free_entries_now(s->tuples[i]);
		tuple_free_now(s->tuples[i]);
	}
	free(s->tuples);
	rte_free(s->view);
	rte_free(s);
	t->tss = NULL;
}

static uint64_t table_tss_tuples(const struct p4dp_table *t)
{
	return t->tss->n_tuples;
}

/* ------------------------------------------------------------ reclaim callbacks */

static void free_cb(void *ctx, void *p, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	rte_free(p);
}

/* A deleted node: free it and its entry, give the slot index back. */
static void node_release_cb(void *ctx, void *p, uint64_t arg)
{
	struct p4dp_table *t = ctx;
	struct tss_node *n = p;
	(void)arg;
	table_idx_release(t, n->entry->index);
	rte_free(n->entry);
	rte_free(n);
}

/* A replaced hash table: free it and its (copied-from) nodes, not the entries. */
static void htab_release_cb(void *ctx, void *p, uint64_t arg)
{
	struct tss_htab *tab = p;
	(void)ctx;
	(void)arg;
	for (uint32_t b = 0; b <= tab->mask; b++) {
		struct tss_node *n = tab->b[b];
		while (n != NULL) {
			struct tss_node *nx = n->next;
			rte_free(n);
			n = nx;
		}
	}
	rte_free(tab);
}

/* An empty tuple removed from the view. */
static void tuple_release_cb(void *ctx, void *p, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	tuple_free_now(p);
}

/* ------------------------------------------------------------ control helpers */

static int view_cmp(const void *a, const void *b)
{
	const struct tss_view_ent *x = a, *y = b;
	if (x->max_prio != y->max_prio)
		return x->max_prio > y->max_prio ? -1 : 1;
	return 0;
}

/* Build and publish a view of the current tuples (those with entries). */
static int view_publish(struct p4dp_table *t)
{
	struct table_tss *s = t->tss;
	struct tss_view *v = view_alloc(t, s->n_tuples);
	if (v == NULL)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->n_tuples; i++) {
		if (s->tuples[i]->n == 0)
			continue;
		v->e[n].max_prio = s->tuples[i]->max_prio;
		v->e[n].tup = s->tuples[i];
		n++;
	}
	v->n = n;
	qsort(v->e, n, sizeof(v->e[0]), view_cmp);
	struct tss_view *old = s->view;
	/* Release: the view and everything it names are written before readers
	 * can load the pointer (acquire in table_tss_lookup). */
	__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
	table_defer(t, free_cb, old, 0);
	return 0;
}

static struct tss_htab *htab_alloc(struct p4dp_table *t, uint32_t buckets)
{
	return rte_zmalloc_socket("p4dp_tss_htab", sizeof(struct tss_htab) + buckets * sizeof(struct tss_node *),
				  RTE_CACHE_LINE_SIZE, t->socket_id);
}

static struct tss_tuple *tuple_find(struct table_tss *s, const uint8_t *mask, uint32_t key_len)
{
	for (uint32_t i = 0; i < s->n_tuples; i++)
		if (memcmp(s->tuples[i]->mask, mask, key_len) == 0)
			return s->tuples[i];
	return NULL;
}

static struct tss_tuple *tuple_new(struct p4dp_table *t, const uint8_t *mask)
{
	struct table_tss *s = t->tss;
	if (s->n_tuples == s->cap_tuples) {
		uint32_t nc = s->cap_tuples ? s->cap_tuples * 2 : 8;
		struct tss_tuple **nt = realloc(s->tuples, nc * sizeof(*nt));
		if (nt == NULL)
			return NULL;
		s->tuples = nt;
		s->cap_tuples = nc;
	}
	struct tss_tuple *tp = rte_zmalloc_socket("p4dp_tuple", sizeof(*tp), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (tp == NULL)
		return NULL;
	tp->mask = calloc(s->kwords, 8);
	tp->widx = calloc(s->kwords ? s->kwords : 1, sizeof(uint16_t));
	tp->mw = rte_zmalloc_socket("p4dp_tuple_mw", (s->kwords ? s->kwords : 1) * 8, 64, t->socket_id);
	tp->tab = htab_alloc(t, 8);
	if (tp->mask == NULL || tp->widx == NULL || tp->mw == NULL || tp->tab == NULL) {
		tuple_free_now(tp);
		return NULL;
	}
	tp->tab->mask = 7;
	memcpy(tp->mask, mask, t->key_len);
	uint16_t *widx = tp->widx;
	for (uint32_t w = 0; w < s->kwords; w++) {
		uint64_t m = key_word(tp->mask, s->kwords * 8, w);
		if (m != 0) {
			widx[tp->nw] = (uint16_t)w;
			tp->mw[tp->nw] = m;
			tp->nw++;
		}
	}
	tp->node_size = sizeof(struct tss_node) + tp->nw * 8 + 2 * s->rlen;
	tp->max_prio = INT32_MIN;
	s->tuples[s->n_tuples++] = tp;
	return tp;
}

static void tuple_unlist(struct table_tss *s, struct tss_tuple *tp)
{
	for (uint32_t i = 0; i < s->n_tuples; i++) {
		if (s->tuples[i] == tp) {
			s->tuples[i] = s->tuples[--s->n_tuples];
			return;
		}
	}
}

/* Fill the range lo/hi area of a node-sized buffer from a match. */
static void ranges_fill(const struct table_tss *s, uint8_t *lo, const struct tss_match *m)
{
	uint8_t *hi = lo + s->rlen;
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct p4dp_key_field *f = s->rf[i];
		memcpy(lo + s->roff[i], m->value + f->offset, f->size);
		memcpy(hi + s->roff[i], m->hi + f->offset, f->size);
	}
}

/* Find the node of match @p m in tuple @p tp; *pred receives the link that points to it. */
static struct tss_node *node_find(struct p4dp_table *t, struct tss_tuple *tp, const struct tss_match *m,
				  struct tss_node ***pred)
{
	const struct table_tss *s = t->tss;
	uint64_t kw[KW_MAX];
	uint8_t rb[2 * P4DP_TABLE_KEY_MAX];
	uint32_t h = tuple_hash(tp, m->value, t->key_len, kw);
	ranges_fill(s, rb, m);
	struct tss_node **link = &tp->tab->b[h & tp->tab->mask];
	for (struct tss_node *n = *link; n != NULL; link = &n->next, n = n->next) {
		if (n->hash == h && n->prio == m->prio && node_key_eq(tp, n, kw) &&
		    memcmp(n->w + tp->nw, rb, 2 * s->rlen) == 0) {
			if (pred)
				*pred = link;
			return n;
		}
	}
	return NULL;
}

/* Link node @p n (not yet visible) into tab in priority order. */
static void node_link(struct tss_htab *tab, struct tss_node *n)
{
	struct tss_node **link = &tab->b[n->hash & tab->mask];
	while (*link != NULL && (*link)->prio >= n->prio)
		link = &(*link)->next;
	/* The new node is private until the release store below. */
	n->next = *link;
	/* Release: node contents (key, ranges, entry pointer, next) are written
	 * before readers can reach the node (acquire loads of links). */
	__atomic_store_n(link, n, __ATOMIC_RELEASE);
}

/* Double the buckets of @p tp: copy nodes into a new table, publish it. */
static int tuple_grow(struct p4dp_table *t, struct tss_tuple *tp)
{
	struct tss_htab *old = tp->tab;
	uint32_t nb = (old->mask + 1) * 2;
	struct tss_htab *nt = htab_alloc(t, nb);
	if (nt == NULL)
		return -ENOMEM;
	nt->mask = nb - 1;
	for (uint32_t b = 0; b <= old->mask; b++) {
		for (struct tss_node *n = old->b[b]; n != NULL; n = n->next) {
			struct tss_node *c = rte_malloc_socket("p4dp_tss_node", tp->node_size, 16, t->socket_id);
			if (c == NULL) {
				htab_release_cb(NULL, nt, 0); /* never published */
				return -ENOMEM;
			}
			memcpy(c, n, tp->node_size);
			c->next = NULL;
			node_link(nt, c); /* still private: nt is unpublished */
		}
	}
	/* Release: the new table and all its nodes are complete before readers
	 * can load it; readers still walking `old` finish on its intact nodes. */
	__atomic_store_n(&tp->tab, nt, __ATOMIC_RELEASE);
	table_defer(t, htab_release_cb, old, 0);
	return 0;
}

/* ------------------------------------------------------------ control API */

static int table_tss_add(struct p4dp_table *t, const struct tss_match *m, uint32_t action, const void *data)
{
	struct table_tss *s = t->tss;
	struct tss_tuple *tp = tuple_find(s, m->mask, t->key_len);
	if (tp != NULL && node_find(t, tp, m, NULL) != NULL)
		return -EEXIST;
	if (t->n_entries >= t->max_entries) {
		TABLE_STAT_INC(t->st_full);
		return -ENOSPC;
	}
	bool fresh = false;
	if (tp == NULL) {
		tp = tuple_new(t, m->mask);
		if (tp == NULL)
			return -ENOMEM;
		fresh = true;
	}
	int rc = -ENOMEM;
	int64_t idx = table_idx_get(t);
	if (idx < 0) {
		TABLE_STAT_INC(t->st_full);
		rc = (int)idx;
		goto fail_tuple;
	}
	struct tss_node *n = rte_malloc_socket("p4dp_tss_node", tp->node_size, 16, t->socket_id);
	struct p4dp_entry *e = table_entry_new(t, action, data, (uint32_t)idx, P4DP_ENTRY_F_DYNAMIC);
	if (n == NULL || e == NULL) {
		rte_free(n);
		rte_free(e);
		table_idx_release(t, (uint32_t)idx);
		goto fail_tuple;
	}
	n->hash = tuple_hash(tp, m->value, t->key_len, n->w);
	n->prio = m->prio;
	n->user_prio = m->user_prio;
	n->_pad = 0;
	n->entry = e;
	ranges_fill(s, (uint8_t *)(n->w + tp->nw), m);

	bool raise = m->prio > tp->max_prio;
	int32_t old_max = tp->max_prio;
	uint32_t old_at_max = tp->n_at_max;
	if (raise) {
		tp->max_prio = m->prio;
		tp->n_at_max = 1;
	} else if (m->prio == tp->max_prio) {
		tp->n_at_max++;
	}
	tp->n++;
	if (fresh) {
		/* Tuple not yet visible: link the node first, then publish the view. */
		node_link(tp->tab, n);
		if (view_publish(t) != 0) {
			tuple_unlist(s, tp);
			tuple_free_now(tp); /* frees n too; never visible */
			rte_free(e);
			table_idx_release(t, (uint32_t)idx);
			return -ENOMEM;
		}
	} else {
		/* Raise the tuple's maximum in the view before the entry becomes
		 * reachable, so no reader prunes the tuple while it holds it. */
		if (raise && view_publish(t) != 0) {
			tp->n--;
			tp->max_prio = old_max;
			tp->n_at_max = old_at_max;
			rte_free(n);
			rte_free(e);
			table_idx_release(t, (uint32_t)idx);
			return -ENOMEM;
		}
		node_link(tp->tab, n);
	}
	t->n_entries++;
	if (tp->n > (tp->tab->mask + 1) * 2)
		(void)tuple_grow(t, tp); /* best effort: a long chain is still correct */
	return 0;
fail_tuple:
	if (fresh) {
		tuple_unlist(s, tp);
		tuple_free_now(tp);
	}
	return rc;
}

static const struct p4dp_entry *table_tss_find(struct p4dp_table *t, const struct tss_match *m)
{
	struct tss_tuple *tp = tuple_find(t->tss, m->mask, t->key_len);
	if (tp == NULL)
		return NULL;
	struct tss_node *n = node_find(t, tp, m, NULL);
	return n ? n->entry : NULL;
}

static int table_tss_modify(struct p4dp_table *t, const struct tss_match *m, uint32_t action, const void *data)
{
	struct tss_tuple *tp = tuple_find(t->tss, m->mask, t->key_len);
	struct tss_node *n = tp ? node_find(t, tp, m, NULL) : NULL;
	if (n == NULL)
		return -ENOENT;
	struct p4dp_entry *old = n->entry;
	struct p4dp_entry *e = table_entry_new(t, action, data, old->index, P4DP_ENTRY_F_DYNAMIC);
	if (e == NULL)
		return -ENOMEM;
	table_entry_carry_timer(e, old); /* a modify is no hit: keep the last-hit time and TTL */
	/* Release: the complete new version is visible before its pointer; a
	 * reader gets the old or the new entry, never a mix. */
	__atomic_store_n(&n->entry, e, __ATOMIC_RELEASE);
	table_defer_free(t, old);
	return 0;
}

/* Recompute max priority of a tuple (control; after its last max entry left). */
static void tuple_recompute_max(struct tss_tuple *tp)
{
	tp->max_prio = INT32_MIN;
	tp->n_at_max = 0;
	for (uint32_t b = 0; b <= tp->tab->mask; b++) {
		struct tss_node *n = tp->tab->b[b];
		if (n == NULL)
			continue; /* the chain head has the chain's highest priority */
		for (; n != NULL && n->prio >= tp->max_prio; n = n->next) {
			if (n->prio > tp->max_prio) {
				tp->max_prio = n->prio;
				tp->n_at_max = 1;
			} else {
				tp->n_at_max++;
			}
		}
	}
}

static int table_tss_delete(struct p4dp_table *t, const struct tss_match *m)
{
	struct table_tss *s = t->tss;
	struct tss_tuple *tp = tuple_find(s, m->mask, t->key_len);
	struct tss_node **link = NULL;
	struct tss_node *n = tp ? node_find(t, tp, m, &link) : NULL;
	if (n == NULL)
		return -ENOENT;
	/* Release (pointing at an already published node): keeps the usual
	 * publication pairing; readers on `n` still follow n->next intact. */
	__atomic_store_n(link, n->next, __ATOMIC_RELEASE);
	tp->n--;
	t->n_entries--;
	table_defer(t, node_release_cb, n, 0);
	if (tp->n == 0) {
		tuple_unlist(s, tp);
		if (view_publish(t) != 0) {
			/* Keep the empty tuple listed; it stays in the view (correct,
			 * only slower) and is retried on the next change. */
			s->tuples[s->n_tuples++] = tp;
			tp->max_prio = INT32_MIN;
			return 0;
		}
		table_defer(t, tuple_release_cb, tp, 0);
		return 0;
	}
	if (n->prio == tp->max_prio && --tp->n_at_max == 0) {
		/* Lowering the maximum after the unlink is safe: a reader with
		 * the old view only prunes less. */
		tuple_recompute_max(tp);
		(void)view_publish(t); /* on failure the old, higher max stays: correct */
	}
	return 0;
}

static int table_tss_clear(struct p4dp_table *t)
{
	struct table_tss *s = t->tss;
	struct tss_view *v = view_alloc(t, 0);
	if (v == NULL)
		return -ENOMEM;
	struct tss_view *old = s->view;
	/* Release as in view_publish; after this no reader reaches any tuple. */
	__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
	table_defer(t, free_cb, old, 0);
	for (uint32_t i = 0; i < s->n_tuples; i++) {
		struct tss_tuple *tp = s->tuples[i];
		for (uint32_t b = 0; b <= tp->tab->mask; b++) {
			struct tss_node *n = tp->tab->b[b];
			/* Readers of the old view may still walk here: atomic store
			 * (relaxed: NULL publishes nothing); nodes freed one by one. */
			__atomic_store_n(&tp->tab->b[b], NULL, __ATOMIC_RELAXED);
			while (n != NULL) {
				struct tss_node *nx = n->next;
				table_defer(t, node_release_cb, n, 0);
				t->n_entries--;
				n = nx;
			}
		}
		table_defer(t, tuple_release_cb, tp, 0);
	}
	s->n_tuples = 0;
	return 0;
}

static int table_tss_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	struct table_tss *s = t->tss;
	uint8_t val[KW_MAX * 8], hi[P4DP_TABLE_KEY_MAX];
	for (uint32_t i = 0; i < s->n_tuples; i++) {
		struct tss_tuple *tp = s->tuples[i];
		for (uint32_t b = 0; b <= tp->tab->mask; b++) {
			for (struct tss_node *n = tp->tab->b[b]; n != NULL; n = n->next) {
				memset(val, 0, sizeof(val));
				memset(hi, 0, t->key_len);
				for (uint32_t w = 0; w < tp->nw; w++)
					memcpy(val + tp->widx[w] * 8, &n->w[w], 8);
				const uint8_t *lo = (const uint8_t *)(n->w + tp->nw);
				for (uint32_t r = 0; r < s->nr; r++) {
					const struct p4dp_key_field *f = s->rf[r];
					memcpy(val + f->offset, lo + s->roff[r], f->size);
					memcpy(hi + f->offset, lo + s->rlen + s->roff[r], f->size);
				}
				struct p4dp_match m = {.value = val, .mask = tp->mask, .hi = s->nr ? hi : NULL,
						       .priority = n->user_prio};
				int rc = cb(arg, &m, n->entry);
				if (rc != 0)
					return rc;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the kind's operations */

/* Normalize a match for a tuple-space table into scratch buffers @p val, @p msk,
 * @p hi (key_len bytes each). */
static int tss_normalize(const struct p4dp_table *t, const struct p4dp_match *m, uint8_t *val, uint8_t *msk,
			 uint8_t *hi, struct tss_match *out)
{
	if (m == NULL || m->value == NULL)
		return -EINVAL;
	if (t->has_range && m->hi == NULL)
		return -EINVAL;
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
#define TSS_SCRATCH(t)                                                                                    \
	uint8_t val_[(t)->key_len ? (t)->key_len : 1], msk_[(t)->key_len ? (t)->key_len : 1],             \
		hi_[(t)->key_len ? (t)->key_len : 1]

static int tss_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	TSS_SCRATCH(t);
	struct tss_match tm;
	int rc = tss_normalize(t, m, val_, msk_, hi_, &tm);
	if (rc == 0)
		rc = table_tss_add(t, &tm, action, data);
	if (rc == 0)
		t->st_inserts++;
	return rc;
}

static int tss_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	TSS_SCRATCH(t);
	struct tss_match tm;
	int rc = tss_normalize(t, m, val_, msk_, hi_, &tm);
	return rc ? rc : table_tss_modify(t, &tm, action, data);
}

static int tss_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	TSS_SCRATCH(t);
	struct tss_match tm;
	int rc = tss_normalize(t, m, val_, msk_, hi_, &tm);
	return rc ? rc : table_tss_delete(t, &tm);
}

static int tss_find(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e)
{
	TSS_SCRATCH(t);
	struct tss_match tm;
	int rc = tss_normalize(t, m, val_, msk_, hi_, &tm);
	if (rc == 0)
		*e = table_tss_find(t, &tm);
	return rc;
}

/* A worker's insert: an exact match on every field (table_worker_lock: the mutex only tried). */
static int tss_dp_insert(struct p4dp_table *t, const uint8_t *k, uint32_t action, const void *data,
			 uint8_t profile, uint64_t now_ns, uint64_t *seen)
{
	(void)seen;
	int rc = table_worker_lock(t, profile, now_ns);
	if (rc != 0)
		return rc;
	TSS_SCRATCH(t);
	struct tss_match tm;
	struct p4dp_match m = {.value = k, .mask = NULL, .hi = k, .priority = t->prio_is_prefix ? 0 : 1};
	rc = tss_normalize(t, &m, val_, msk_, hi_, &tm);
	if (rc == 0)
		rc = table_tss_add(t, &tm, action, data);
	if (rc == 0)
		t->st_inserts++;
	table_worker_unlock(t, rc == 0);
	return rc;
}

static void tss_stats(const struct p4dp_table *t, struct p4dp_table_stats *st)
{
	st->tuples = table_tss_tuples(t);
}

const struct table_kind_ops table_tss_ops = {
	.kind = TABLE_KIND_TSS,
	.expires = true,
	.create = table_tss_create,
	.free = table_tss_free,
	.add = tss_add,
	.modify = tss_modify,
	.del = tss_delete,
	.find = tss_find,
	.clear = table_tss_clear,
	.foreach = table_tss_foreach,
	.dp_insert = tss_dp_insert,
	.stats = tss_stats,
};

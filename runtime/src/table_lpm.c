/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Longest-prefix-match tables: one lpm field plus any number of exact fields, at most
 * LPM_BITS_MAX key bits in all (table_lpm_accepts). Other tables with an lpm field (several lpm
 * fields, ternary/range/optional fields, wider keys) go to the merged tuple space (table_tm.c).
 *
 * Key bits. A key is read as one bit string: the exact fields in field order, then the lpm
 * field, each most significant bit first, zero-padded to whole bytes. An entry with prefix
 * length p on the lpm field is a prefix of E + p bits of that string (E = the exact fields'
 * bits), so one structure answers "longest prefix" and "exact fields equal" together; every
 * entry of such a table has a length >= E.
 *
 * Structure: a multibit trie with a 16- or 24-bit first stride (8 bits when the key has only 8)
 * and 8-bit strides below it, with controlled prefix expansion as in DIR-24-8 (Gupta, Lin and
 * McKeown, "Routing Lookups in Hardware at Memory Access Speeds") and DPDK's rte_lpm. The first
 * level (lpm_create): 24 bits, a flat array of 2^24 slots (128 MiB, in a mapping of its own
 * advised for transparent huge pages: node_map) indexed by the key's top 24 bits, for keys of
 * 24 bits or more in tables declared for at least LPM_ROOT24_MIN_ENTRIES entries (an IPv4
 * /0../24 lookup reads one slot, /25../32 two; an IPv6 /48 four, as DPDK's rte_lpm6 with its
 * 24-bit first table); 16 bits (512 KiB, cache-resident) otherwise, or when the mapping fails.
 * Each node is an array of
 * 64-bit slots: a slot holds either the entry pointer of the longest prefix covering all keys
 * that reach it (NULL: none), or a child node pointer with bit 0 set. With the 16-bit level an
 * IPv4 lookup reads at most three slots (/0-/16: one, /17-/24: two, /25-/32: three), an IPv6 one
 * at most 15 (14 with the 24-bit level). Each
 * slot also has a control-only depth byte: 0 when no entry covers it, else the covering
 * entry's length + 1; for a child slot, the longest entry covering the whole child. Invariant:
 * every slot of a child has a depth >= its parent slot's depth; a node with no entry ending in
 * it (n_end) and no child (n_child) has every slot equal to its parent slot, and is folded back
 * into it (after a delete), so deletes give their nodes back.
 * Entries (the rules) are also kept in a control-side hash table on (value, length), for
 * find, duplicate checks, reads and the replacement of a deleted prefix (its longest shorter
 * covering entry). The entries a slot points to come from the DPDK heap, except in tables with
 * the 24-bit first level: there they are blocks of t->entry_size carved from 2 MiB huge-page
 * chunks of the table's own (struct lpm_pool; entry_new / entry_put), so the entry read that
 * follows the slot read is a cache miss without a 4 KiB-page TLB miss (the heap is on 4 KiB pages
 * without hugepages), and 1 M entries of 32 bytes take 32 MiB instead of about 128 MiB of heap
 * blocks (a 64-byte header and cache-line alignment each). The nodes below such a first level
 * come from a second pool of the same kind (node_new), so each further level a lookup reads
 * (IPv6 /48: three) is a cache miss without a TLB miss too. A block goes back to its pool's free
 * list only after the grace period of what was in it, as heap memory would be freed.
 *
 * Shared answers (t->shared_answers: the program never uses which entry matched, only its action
 * and data; abi.h P4DP_TABLE_F_SHARED_ANSWERS): the slots do not point at the prefixes' entries
 * but at answers, read-only entries of one action and its data, one per distinct (action, data)
 * pair, shared by every prefix with that pair and counted (struct lpm_answer). A routing table
 * has far fewer next hops than prefixes, so its answers stay in the cache and a /0../24 lookup
 * makes one random read (the first-level slot), as rte_lpm's. The prefixes' own entries are still
 * made and kept in the rules for the control plane (find, reads, counters of the control path).
 * An answer is never written after it is published; a modify points the prefix's slots at the
 * answer of its new (action, data) (found or made), so each slot changes with one release store
 * from one complete answer to another, and an answer no rule uses any more is taken out of the
 * answer index at once and freed after a grace period (readers may still hold it).
 *
 * Updates are incremental: an add, modify or delete rewrites only the slots of the prefix's
 * range (2^(level end - length) slots at the level where it ends) and of the child nodes under
 * them that the prefix covers; at most one new node per level on the prefix's path.
 *
 * Concurrency: one writer (the table mutex), lock-free readers. Every slot is written with one
 * release store and read with an acquire load; a slot only ever changes from one complete
 * answer to another: a new child node is filled with its parent slot's value before its
 * pointer is stored, and a folded node holds its parent's value in every slot. So a lookup
 * returns, for its key, the entry before or after the update, never a torn or absent one:
 * a modify rewrites the prefix's slots from the old entry to the complete new version (the
 * default action is never seen), an add or delete switches them between the prefix's entry and
 * the covering one. Replaced entries, deleted entries (with their slot index) and unlinked
 * nodes are freed after an RCU grace period. Calls only table_util.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "table_internal.h"

/** Most key bits (exact fields + lpm field) the trie takes; the depth byte holds length + 1. */
#define LPM_BITS_MAX 248u
#define LPM_BYTES_MAX (LPM_BITS_MAX / 8)
#define LPM_ROOT_BITS 16u
/** The DIR-24-8 first level: 2^24 slots of 8 bytes (128 MiB) plus their depth bytes (16 MiB). */
#define LPM_ROOT24_BITS 24u
/** perf: the smallest declared table size that gets the 24-bit first level. At 100,000 IPv4
 * prefixes of the realistic mix (--suite lpm), a /17../24 lookup on the 16-bit level reads a
 * second-level node that is nearly always a cache and TLB miss, then the entry; the 24-bit level
 * on huge pages makes that one cache miss in its array (measured: ARCHITECTURE.md). Smaller
 * tables keep the 16-bit level: with few prefixes its nodes stay in the cache, and each table
 * would otherwise map 144 MiB. */
#define LPM_ROOT24_MIN_ENTRIES (1u << 16)
#define LPM_STRIDE 8u
#define LPM_CHILD 1ull /* slot bit 0: child node */
/** Keys a bulk lookup walks in lockstep (one prefetch per key and level). */
#define LPM_BULK 32u

struct lpm_node {
	uint32_t n_child; /* control: child slots */
	uint32_t n_end;   /* control: entries whose prefix ends in this node */
	uint32_t level;   /* control */
	uint32_t pooled;  /* control: a block of the table's node pool (struct lpm_pool) */
	uint32_t _pad[10];
	uint64_t mapped;  /* control: bytes of its own mapping (node_map), 0: pooled or from rte_malloc */
	uint64_t slot[];  /* readers: entry pointer or (child | LPM_CHILD); then the depth bytes */
};

/* A shared answer (tables with shared answers): the read-only entry slots point at, and its
 * control-side bookkeeping. */
struct lpm_answer {
	struct lpm_answer *next;  /* control: answer index chain */
	struct p4dp_entry *entry; /* what slots hold: written only before its first publication */
	uint64_t refs;            /* control: rules whose slots hold it */
	uint32_t hash;            /* control: of (action, data) */
};

/* A control-side record of one entry: its normalized value (key layout) and length. */
struct lpm_rule {
	struct lpm_rule *next;
	struct p4dp_entry *entry;
	struct lpm_answer *ans; /* what its slots hold (shared answers), else NULL: the entry */
	uint32_t hash;
	uint32_t len; /* total prefix length: exact bits + lpm prefix */
	uint8_t value[];
};

/* A chunk of a pool's blocks: this header, then blocks of the pool's size (16-byte multiples). */
struct lpm_chunk {
	struct lpm_chunk *next;
	size_t len; /* bytes of the mapping */
	uint8_t _pad[RTE_CACHE_LINE_SIZE - sizeof(void *) - sizeof(size_t)];
};

/* A free block: only the control thread reads it (no reader can reach it any more). */
struct lpm_block {
	struct lpm_block *next;
};

/* Fixed-size blocks carved from 2 MiB chunks of memory advised for huge pages (table_huge_map). */
struct lpm_pool {
	size_t size;                /* bytes of a block */
	struct lpm_chunk *chunks;   /* every chunk mapped, to unmap at free */
	struct lpm_block *free_blk; /* blocks whose grace period has passed */
	uint8_t *carve;             /* the part of the newest chunk never handed out ... */
	size_t carve_left;          /* ... and its bytes */
};

struct table_lpm {
	/* read by lookups */
	struct lpm_node *root; /* release/acquire (replaced by clear) */
	uint32_t root_bits;    /* 8, 16 or 24 */
	uint32_t bits;         /* W: key bits */
	uint32_t pad_bits;     /* W rounded up to bytes */
	uint32_t n_order;      /* fields in bit-string order */
	bool narrow;           /* W <= 64: the key bits fit one uint64_t */
	bool single;           /* narrow with the lpm field alone */
	bool wide_single;      /* the lpm field alone, 65..128 bits (IPv6) */
	uint16_t order[P4DP_TABLE_FIELDS_MAX];
	/* control */
	uint32_t exact_bits;
	uint32_t lpm_idx; /* index of the lpm field in t->fields */
	uint32_t n_levels;
	struct lpm_rule **bucket;
	uint32_t n_buckets;
	uint64_t n_rules;
	/* control: the shared answers, indexed by (action, data); ans_bucket NULL: not shared */
	struct lpm_answer **ans_bucket;
	uint32_t n_ans_buckets;
	uint64_t n_answers;
	/* control, under the table mutex (tables with the 24-bit level): the entries and the nodes
	 * below the first level are blocks of huge-page chunks, not heap blocks */
	bool slab;
	struct lpm_pool ents;  /* blocks of t->entry_size */
	struct lpm_pool nodes; /* blocks of node_bytes(LPM_STRIDE) */
};

/* ------------------------------------------------------------ geometry */

static inline uint32_t level_stride(const struct table_lpm *s, uint32_t level)
{
	return level == 0 ? s->root_bits : LPM_STRIDE;
}

/* Bit position just past level @p level. */
static inline uint32_t level_end(const struct table_lpm *s, uint32_t level)
{
	return s->root_bits + LPM_STRIDE * level;
}

/* The level where a prefix of @p len bits ends: its bits end inside or at the end of it. */
static inline uint32_t final_level(const struct table_lpm *s, uint32_t len)
{
	return len <= s->root_bits ? 0 : (len - s->root_bits + LPM_STRIDE - 1) / LPM_STRIDE;
}

/* Slot index at @p level of bit string @p kb (big-endian bytes). */
static inline uint32_t level_index(const struct table_lpm *s, const uint8_t *kb, uint32_t level)
{
	if (level > 0)
		return kb[s->root_bits / 8 + level - 1];
	uint32_t i = 0;
	for (uint32_t b = 0; b < s->root_bits / 8; b++)
		i = i << 8 | kb[b];
	return i;
}

static inline uint8_t *node_depth(const struct lpm_node *n, uint32_t stride)
{
	return (uint8_t *)(uintptr_t)(n->slot + (1u << stride));
}

static inline bool slot_is_child(uint64_t v)
{
	return (v & LPM_CHILD) != 0;
}

static inline struct lpm_node *slot_child(uint64_t v)
{
	return (struct lpm_node *)(uintptr_t)(v & ~LPM_CHILD);
}

/* Readers' load of a slot. Acquire: pairs with slot_store's release, so the entry or node it
 * names is completely written before the lookup reads it. */
static inline uint64_t slot_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The writer's publication of a slot (release: see slot_load). */
static inline void slot_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Publish @p root's slots in the table's head for the program's prefetch of a key's first-level
 * slot (xindex.h lpm_slots, abi.h p4dp_table_prefetch): only for a key of the lpm field alone of
 * at most 64 bits at the key's start (the program's layout), whose value gives the slot with two
 * shifts. Release: the slots are
 * written before a program can load the pointer (it only prefetches through it). */
static void head_publish(struct p4dp_table *t, const struct table_lpm *s, struct lpm_node *root)
{
	if (!s->single || t->fields[s->order[0]].offset != 0)
		return;
	__atomic_store_n(&t->head.lpm_slots, root != NULL ? root->slot : NULL, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ key bits */

/* Append the @p n low bits of @p v, most significant first, at bit @p pos of @p out (zeroed). */
static inline uint32_t bits_put(uint8_t *out, uint32_t pos, uint64_t v, uint32_t n)
{
	while (n > 0) {
		uint32_t room = 8 - pos % 8;
		uint32_t take = n < room ? n : room;
		uint32_t chunk = (uint32_t)(v >> (n - take)) & ((1u << take) - 1);
		out[pos / 8] = (uint8_t)(out[pos / 8] | chunk << (room - take));
		pos += take;
		n -= take;
	}
	return pos;
}

/* Field @p f of @p key as an integer (bitwidth <= 64, little-endian layout: size 1, 2, 4 or 8).
 * perf: one load of the field's size; a memcpy of a variable size compiles to byte moves into a
 * stack slot that the 8-byte read of it then waits for (a failed store-to-load forwarding, each
 * key of a bulk lookup). */
static inline uint64_t field_u64(const struct p4dp_key_field *f, const uint8_t *key)
{
	const uint8_t *p = key + f->offset;
	switch (f->size) {
	case 1:
		return p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	}
}

/* The key bits of a narrow table, left-aligned in a uint64_t. */
static inline uint64_t key_bits64(const struct p4dp_table *t, const struct table_lpm *s, const uint8_t *key)
{
	if (s->single)
		return field_u64(&t->fields[s->order[0]], key) << (64 - s->bits);
	uint64_t x = 0;
	for (uint32_t i = 0; i < s->n_order; i++) {
		const struct p4dp_key_field *f = &t->fields[s->order[i]];
		x = (f->bitwidth == 64 ? 0 : x << f->bitwidth) | field_u64(f, key);
	}
	return x << (64 - s->bits);
}

/* The key bits of any table as big-endian bytes (pad_bits / 8 of them). */
static void key_bits(const struct p4dp_table *t, const struct table_lpm *s, const uint8_t *key, uint8_t *kb)
{
	if (s->wide_single) {
		/* perf: one 65..128-bit field (little-endian in the key) is its byte-reversed value,
		 * left-aligned; two byte swaps instead of a bit-by-bit copy */
		const struct p4dp_key_field *f = &t->fields[s->order[0]];
		uint64_t lo, hi;
		memcpy(&lo, key + f->offset, 8);
		memcpy(&hi, key + f->offset + 8, 8);
		uint32_t sh = 128 - f->bitwidth; /* 0..63 */
		if (sh > 0) {
			hi = hi << sh | lo >> (64 - sh);
			lo <<= sh;
		}
		/* all 16 bytes (kb holds LPM_BYTES_MAX): a copy of a fixed size, whose bytes past
		 * pad_bits / 8 no lookup reads */
		hi = rte_cpu_to_be_64(hi);
		lo = rte_cpu_to_be_64(lo);
		memcpy(kb, &hi, 8);
		memcpy(kb + 8, &lo, 8);
		return;
	}
	memset(kb, 0, s->pad_bits / 8);
	uint32_t pos = 0;
	for (uint32_t i = 0; i < s->n_order; i++) {
		const struct p4dp_key_field *f = &t->fields[s->order[i]];
		const uint8_t *p = key + f->offset;
		if (f->bitwidth <= 64) {
			pos = bits_put(kb, pos, field_u64(f, key), f->bitwidth);
		} else if (f->bitwidth <= 128) {
			uint64_t lo, hi;
			memcpy(&lo, p, 8);
			memcpy(&hi, p + 8, 8);
			pos = bits_put(kb, pos, hi, f->bitwidth - 64);
			pos = bits_put(kb, pos, lo, 64);
		} else {
			/* big-endian, right-aligned: a partial leading byte, then whole bytes */
			uint32_t lead = f->bitwidth - 8u * (f->size - 1u);
			pos = bits_put(kb, pos, p[0], lead);
			for (uint32_t j = 1; j < f->size; j++)
				pos = bits_put(kb, pos, p[j], 8);
		}
	}
}

/* ------------------------------------------------------------ fast path */

const struct p4dp_entry *table_lpm_lookup(struct p4dp_table *t, const void *key)
{
	const struct table_lpm *s = t->lpm;
	/* Acquire: pairs with the release store of a new root (create, clear). */
	const struct lpm_node *n = __atomic_load_n(&s->root, __ATOMIC_ACQUIRE);
	uint64_t v;
	if (likely(s->narrow)) {
		uint64_t x = key_bits64(t, s, key);
		uint32_t sh = 64 - s->root_bits;
		v = slot_load(&n->slot[x >> sh]);
		while (slot_is_child(v)) {
			sh -= LPM_STRIDE;
			v = slot_load(&slot_child(v)->slot[(x >> sh) & 0xff]);
		}
	} else {
		uint8_t kb[LPM_BYTES_MAX];
		key_bits(t, s, key, kb);
		v = slot_load(&n->slot[level_index(s, kb, 0)]);
		for (uint32_t pos = s->root_bits / 8; slot_is_child(v); pos++)
			v = slot_load(&slot_child(v)->slot[kb[pos]]);
	}
	return (const struct p4dp_entry *)(uintptr_t)v;
}

/* perf: the keys of a chunk walk the trie in lockstep, each step prefetching the slot its key
 * reads in the next, so the cache misses of up to LPM_BULK lookups overlap instead of adding up. */
void table_lpm_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			   const struct p4dp_entry **out)
{
	const struct table_lpm *s = t->lpm;
	/* Acquire: as in table_lpm_lookup. */
	const struct lpm_node *root = __atomic_load_n(&s->root, __ATOMIC_ACQUIRE);
	for (uint32_t base = 0; base < n; base += LPM_BULK) {
		uint32_t m = RTE_MIN(n - base, LPM_BULK);
		const uint64_t *sp[LPM_BULK];
		uint8_t act[LPM_BULK];
		uint64_t x[LPM_BULK];
		uint32_t sh[LPM_BULK];
		uint8_t kb[s->narrow ? 1 : LPM_BULK][s->narrow ? 1 : LPM_BYTES_MAX];
		for (uint32_t i = 0; i < m; i++) {
			if (s->narrow) {
				x[i] = key_bits64(t, s, keys[base + i]);
				sh[i] = 64 - s->root_bits;
				sp[i] = &root->slot[x[i] >> sh[i]];
			} else {
				key_bits(t, s, keys[base + i], kb[i]);
				sh[i] = s->root_bits / 8; /* next byte */
				sp[i] = &root->slot[level_index(s, kb[i], 0)];
			}
			rte_prefetch0(sp[i]);
			act[i] = (uint8_t)i;
		}
		uint32_t na = m;
		while (na > 0) {
			uint32_t nn = 0;
			for (uint32_t a = 0; a < na; a++) {
				uint32_t i = act[a];
				uint64_t v = slot_load(sp[i]);
				if (!slot_is_child(v)) {
					out[base + i] = (const struct p4dp_entry *)(uintptr_t)v;
					/* perf: the caller reads the entry next; its miss overlaps the
					 * other keys' walks */
					if (v != 0)
						rte_prefetch0((const void *)(uintptr_t)v);
					continue;
				}
				uint32_t idx;
				if (s->narrow) {
					sh[i] -= LPM_STRIDE;
					idx = (uint32_t)(x[i] >> sh[i]) & 0xff;
				} else {
					idx = kb[i][sh[i]++];
				}
				sp[i] = &slot_child(v)->slot[idx];
				rte_prefetch0(sp[i]);
				act[nn++] = (uint8_t)i;
			}
			na = nn;
		}
	}
}

/* ------------------------------------------------------------ nodes */

static size_t node_bytes(uint32_t stride)
{
	return sizeof(struct lpm_node) + ((size_t)1 << stride) * (sizeof(uint64_t) + 1);
}

/* The 24-bit first level in a mapping of its own (table_huge_map). */
static struct lpm_node *node_map(size_t bytes)
{
	size_t len;
	struct lpm_node *n = table_huge_map(bytes, &len);
	if (n != NULL)
		n->mapped = len;
	return n;
}

static void block_put(struct lpm_pool *p, void *blk);

/* Give node @p n (NULL: nothing) back now: no reader can reach it any more. */
static void node_release(struct table_lpm *s, struct lpm_node *n)
{
	if (n == NULL)
		return;
	if (n->pooled)
		block_put(&s->nodes, n);
	else if (n->mapped != 0)
		munmap(n, n->mapped);
	else
		rte_free(n);
}

/* A node of @p level with every slot @p v at depth @p d (not yet visible). */
static void *block_get(struct lpm_pool *p);

/* perf: below a 24-bit first level, nodes are blocks of the table's node pool (huge pages): a
 * lookup that goes past the first level (IPv4 /25../32, IPv6 past /24) reads one node per 8 bits,
 * each a cache miss in a large table; from the heap's 4 KiB pages each would also be a TLB miss. */
static struct lpm_node *node_new(struct p4dp_table *t, uint32_t level, uint64_t v, uint8_t d)
{
	struct table_lpm *s = t->lpm;
	uint32_t stride = level_stride(s, level);
	bool pooled = s->slab && stride == LPM_STRIDE;
	struct lpm_node *n = stride == LPM_ROOT24_BITS ? node_map(node_bytes(stride))
			   : pooled ? block_get(&s->nodes)
				    : rte_malloc_socket("p4dp_lpm_node", node_bytes(stride), RTE_CACHE_LINE_SIZE,
							t->socket_id);
	if (n == NULL)
		return NULL;
	uint64_t mapped = stride == LPM_ROOT24_BITS ? n->mapped : 0;
	memset(n, 0, sizeof(*n));
	n->mapped = mapped;
	n->pooled = pooled;
	n->level = level;
	for (uint32_t i = 0; i < (1u << stride); i++)
		n->slot[i] = v;
	memset(node_depth(n, stride), d, 1u << stride);
	return n;
}

/* table_defer callback (ctx: the table, with its mutex held, after the grace period). */
static void node_free_cb(void *ctx, void *p, uint64_t arg)
{
	(void)arg;
	node_release(((struct p4dp_table *)ctx)->lpm, p);
}

/* Free node @p n and every node under it now (no reader can reach them). */
static void subtree_free_now(struct table_lpm *s, struct lpm_node *n)
{
	uint32_t stride = level_stride(s, n->level);
	for (uint32_t i = 0; n->n_child > 0 && i < (1u << stride); i++)
		if (slot_is_child(n->slot[i]))
			subtree_free_now(s, slot_child(n->slot[i]));
	node_release(s, n);
}

/* Defer the free of every node under @p n (and @p n) past a grace period. */
static void subtree_defer(struct p4dp_table *t, struct lpm_node *n)
{
	uint32_t stride = level_stride(t->lpm, n->level);
	for (uint32_t i = 0; n->n_child > 0 && i < (1u << stride); i++)
		if (slot_is_child(n->slot[i]))
			subtree_defer(t, slot_child(n->slot[i]));
	table_defer(t, node_free_cb, n, 0);
}

/* ------------------------------------------------------------ entries */

/* A block of pool @p p: a free one, else the next of the newest chunk, else the first of a new
 * chunk (2 MiB, or one block when blocks are larger). NULL when no chunk can be mapped. Control
 * thread or a worker's insert (which then maps a chunk itself, once per 2 MiB of blocks), with
 * the table mutex held. */
static void *block_get(struct lpm_pool *p)
{
	struct lpm_block *b = p->free_blk;
	if (b != NULL) {
		p->free_blk = b->next;
		return b;
	}
	if (p->carve_left < p->size) {
		size_t len;
		struct lpm_chunk *c = table_huge_map(sizeof(*c) + p->size, &len);
		if (c == NULL)
			return NULL;
		c->next = p->chunks;
		c->len = len;
		p->chunks = c;
		p->carve = (uint8_t *)(c + 1);
		p->carve_left = len - sizeof(*c);
	}
	void *blk = p->carve;
	p->carve += p->size;
	p->carve_left -= p->size;
	return blk;
}

/* Give block @p blk of pool @p p back (no reader can reach it any more). */
static void block_put(struct lpm_pool *p, void *blk)
{
	struct lpm_block *b = blk;
	b->next = p->free_blk;
	p->free_blk = b;
}

/* A new, unpublished entry of table @p t: a block (s->slab) or a heap allocation. */
static struct p4dp_entry *entry_new(struct p4dp_table *t, uint32_t action, const void *data, uint32_t idx)
{
	if (!t->lpm->slab)
		return table_entry_new(t, action, data, idx, P4DP_ENTRY_F_DYNAMIC);
	struct p4dp_entry *e = block_get(&t->lpm->ents);
	if (e != NULL)
		table_entry_fill(t, e, action, data, idx, P4DP_ENTRY_F_DYNAMIC);
	return e;
}

/* Give the memory of entry @p e (NULL: nothing) back now: no reader can reach it any more. */
static void entry_put(struct p4dp_table *t, struct p4dp_entry *e)
{
	struct table_lpm *s = t->lpm;
	if (!s->slab) {
		rte_free(e);
		return;
	}
	if (e != NULL)
		block_put(&s->ents, e);
}

/* table_defer callbacks (run with the table mutex held, after the grace period): entry_put of an
 * old version; entry_put of a deleted entry and the release of its slot index @p idx. */
static void entry_put_cb(void *ctx, void *p, uint64_t arg)
{
	(void)arg;
	entry_put(ctx, p);
}

static void entry_idx_put_cb(void *ctx, void *p, uint64_t idx)
{
	entry_put(ctx, p);
	table_idx_release(ctx, (uint32_t)idx);
}

/* Unmap every chunk of pool @p p (the table is being freed: nothing refers to a block any more). */
static void pool_unmap(struct lpm_pool *p)
{
	for (struct lpm_chunk *c = p->chunks, *nx; c != NULL; c = nx) {
		nx = c->next;
		munmap(c, c->len);
	}
	p->chunks = NULL;
	p->free_blk = NULL;
	p->carve = NULL;
	p->carve_left = 0;
}

/* ------------------------------------------------------------ shared answers */

static uint32_t answer_hash(const struct p4dp_table *t, const struct p4dp_entry *e)
{
	return rte_hash_crc(e->data, t->data_len, 0x85ebca6bu + e->action);
}

static void answer_link(struct table_lpm *s, struct lpm_answer *a)
{
	struct lpm_answer **b = &s->ans_bucket[a->hash & (s->n_ans_buckets - 1)];
	a->next = *b;
	*b = a;
}

/* Double the answer buckets (best effort, as rules_grow). */
static void answers_grow(struct table_lpm *s)
{
	uint32_t nb = s->n_ans_buckets * 2;
	struct lpm_answer **old = s->ans_bucket, **nbk = calloc(nb, sizeof(*nbk));
	if (nbk == NULL)
		return;
	uint32_t ob = s->n_ans_buckets;
	s->ans_bucket = nbk;
	s->n_ans_buckets = nb;
	for (uint32_t i = 0; i < ob; i++) {
		for (struct lpm_answer *a = old[i], *nx; a != NULL; a = nx) {
			nx = a->next;
			answer_link(s, a);
		}
	}
	free(old);
}

/* The answer of @p action with @p data (NULL: zeros), with one more reference: the published one
 * with that content, else a new one (unpublished until a slot stores it). NULL when out of memory.
 * With the table mutex held (control thread or a worker's insert). */
static struct lpm_answer *answer_get(struct p4dp_table *t, uint32_t action, const void *data)
{
	struct table_lpm *s = t->lpm;
	/* the candidate is filled as any entry, so (action, data) compare in one form */
	struct p4dp_entry *e = entry_new(t, action, data, 0);
	if (e == NULL)
		return NULL;
	uint32_t h = answer_hash(t, e);
	for (struct lpm_answer *a = s->ans_bucket[h & (s->n_ans_buckets - 1)]; a != NULL; a = a->next) {
		if (a->hash == h && a->entry->action == action &&
		    memcmp(a->entry->data, e->data, t->data_len) == 0) {
			entry_put(t, e); /* never published */
			a->refs++;
			return a;
		}
	}
	struct lpm_answer *a = malloc(sizeof(*a));
	if (a == NULL) {
		entry_put(t, e);
		return NULL;
	}
	a->entry = e;
	a->refs = 1;
	a->hash = h;
	answer_link(s, a);
	if (++s->n_answers > s->n_ans_buckets)
		answers_grow(s);
	return a;
}

static void answer_free_cb(void *ctx, void *p, uint64_t arg)
{
	(void)arg;
	struct lpm_answer *a = p;
	entry_put(ctx, a->entry);
	free(a);
}

/* Drop one reference to @p a (NULL: nothing). The last one takes it out of the index at once (no
 * new rule can get it) and frees it after a grace period with @p defer (readers may hold it: its
 * slots were rewritten before this call), else now (nothing ever published it, or the table is
 * being freed). With the table mutex held. */
static void answer_put(struct p4dp_table *t, struct lpm_answer *a, bool defer)
{
	struct table_lpm *s = t->lpm;
	if (a == NULL || --a->refs > 0)
		return;
	for (struct lpm_answer **l = &s->ans_bucket[a->hash & (s->n_ans_buckets - 1)]; *l != NULL; l = &(*l)->next) {
		if (*l == a) {
			*l = a->next;
			break;
		}
	}
	s->n_answers--;
	if (defer)
		table_defer(t, answer_free_cb, a, 0);
	else
		answer_free_cb(t, a, 0);
}

/* What the slots of rule @p r hold: its shared answer, else its entry. */
static inline const struct p4dp_entry *rule_slot(const struct lpm_rule *r)
{
	return r->ans != NULL ? r->ans->entry : r->entry;
}

/*
 * The three range walks: slot @p i of node @p n and, through child slots, the nodes under it.
 *  - cover (add of an entry at depth d): every slot whose depth is < d takes (e, d); a child
 *    slot with a depth >= d is skipped whole (all of its slots are at least as deep).
 *  - replace (delete of the entry at depth d): every slot at depth d takes (e, nd), the
 *    covering entry; child slots at another depth hold nothing of the deleted entry.
 *  - retarget (modify): every slot at depth d takes entry e, depth unchanged.
 */
enum lpm_walk { WALK_COVER, WALK_REPLACE, WALK_RETARGET };

static void slot_walk(struct table_lpm *s, struct lpm_node *n, uint32_t i, enum lpm_walk w, uint8_t d,
		      const struct p4dp_entry *e, uint8_t nd)
{
	uint8_t *depth = node_depth(n, level_stride(s, n->level));
	if (w == WALK_COVER ? depth[i] >= d : depth[i] != d)
		return;
	if (w != WALK_RETARGET)
		depth[i] = w == WALK_COVER ? d : nd;
	uint64_t v = n->slot[i];
	if (slot_is_child(v)) {
		struct lpm_node *c = slot_child(v);
		for (uint32_t j = 0; j < (1u << level_stride(s, c->level)); j++)
			slot_walk(s, c, j, w, d, e, nd);
		return;
	}
	slot_store(&n->slot[i], (uint64_t)(uintptr_t)e);
}

/* Walk the slots of the range of prefix @p kb / @p len in its final node @p n. */
static void range_walk(struct table_lpm *s, struct lpm_node *n, const uint8_t *kb, uint32_t len,
		       enum lpm_walk w, uint8_t d, const struct p4dp_entry *e, uint8_t nd)
{
	uint32_t start = level_index(s, kb, n->level);
	uint32_t count = 1u << (level_end(s, n->level) - len);
	for (uint32_t i = start; i < start + count; i++)
		slot_walk(s, n, i, w, d, e, nd);
}

/* The path of prefix @p kb / @p len: path[k] = node at level k, for k <= final level. Every
 * node exists for an installed prefix (its final node counts it in n_end). */
static void path_get(struct table_lpm *s, const uint8_t *kb, uint32_t len, struct lpm_node **path)
{
	uint32_t fl = final_level(s, len);
	struct lpm_node *n = s->root;
	for (uint32_t k = 0; k < fl; k++) {
		path[k] = n;
		n = slot_child(n->slot[level_index(s, kb, k)]);
	}
	path[fl] = n;
}

/* After a delete on the path: fold nodes that no longer hold anything of their own back into
 * their parent slot (all their slots equal that slot's value), bottom up. */
static void path_fold(struct p4dp_table *t, const uint8_t *kb, struct lpm_node **path, uint32_t fl)
{
	struct table_lpm *s = t->lpm;
	for (uint32_t k = fl; k > 0; k--) {
		struct lpm_node *n = path[k];
		if (n->n_end > 0 || n->n_child > 0)
			return;
		struct lpm_node *p = path[k - 1];
		slot_store(&p->slot[level_index(s, kb, k - 1)], n->slot[0]);
		p->n_child--;
		table_defer(t, node_free_cb, n, 0);
	}
}

/* ------------------------------------------------------------ rules (control side) */

static uint32_t rule_hash(const struct p4dp_table *t, const uint8_t *value, uint32_t len)
{
	return rte_hash_crc(value, t->key_len, 0x9e3779b9u + len);
}

static struct lpm_rule *rule_find(const struct p4dp_table *t, const uint8_t *value, uint32_t len,
				  struct lpm_rule ***link)
{
	const struct table_lpm *s = t->lpm;
	uint32_t h = rule_hash(t, value, len);
	struct lpm_rule **l = &s->bucket[h & (s->n_buckets - 1)];
	for (struct lpm_rule *r = *l; r != NULL; l = &r->next, r = r->next) {
		if (r->hash == h && r->len == len && memcmp(r->value, value, t->key_len) == 0) {
			if (link != NULL)
				*link = l;
			return r;
		}
	}
	return NULL;
}

static void rule_link(struct table_lpm *s, struct lpm_rule *r)
{
	struct lpm_rule **b = &s->bucket[r->hash & (s->n_buckets - 1)];
	r->next = *b;
	*b = r;
}

/* Double the rule buckets (best effort: long chains are only slower). */
static void rules_grow(struct table_lpm *s)
{
	uint32_t nb = s->n_buckets * 2;
	struct lpm_rule **old = s->bucket, **nbk = calloc(nb, sizeof(*nbk));
	if (nbk == NULL)
		return;
	uint32_t ob = s->n_buckets;
	s->bucket = nbk;
	s->n_buckets = nb;
	for (uint32_t i = 0; i < ob; i++) {
		for (struct lpm_rule *r = old[i], *nx; r != NULL; r = nx) {
			nx = r->next;
			rule_link(s, r);
		}
	}
	free(old);
}

/* Clear the bits of lpm field @p f below its top @p plen in @p buf. */
static void prefix_truncate(const struct p4dp_key_field *f, uint8_t *buf, uint32_t plen)
{
	for (uint32_t b = 0; b + plen < f->bitwidth; b++) {
		uint32_t byte = f->bitwidth <= 128 ? b / 8 : (uint32_t)f->size - 1 - b / 8;
		buf[f->offset + byte] = (uint8_t)(buf[f->offset + byte] & ~(1u << (b % 8)));
	}
}

/* The longest rule shorter than @p len covering prefix @p value / @p len, or NULL. */
static struct lpm_rule *rule_cover(const struct p4dp_table *t, const uint8_t *value, uint32_t len)
{
	const struct table_lpm *s = t->lpm;
	const struct p4dp_key_field *f = &t->fields[s->lpm_idx];
	uint8_t v[P4DP_TABLE_KEY_MAX];
	memcpy(v, value, t->key_len);
	for (uint32_t l = len; l-- > s->exact_bits;) {
		prefix_truncate(f, v, l - s->exact_bits);
		struct lpm_rule *r = rule_find(t, v, l, NULL);
		if (r != NULL)
			return r;
	}
	return NULL;
}

/* Normalize match @p m: its value (masked) into @p val, its total length into *len. */
static int lpm_normalize(const struct p4dp_table *t, const struct p4dp_match *m, uint8_t *val, uint32_t *len)
{
	if (m == NULL || m->value == NULL)
		return -EINVAL;
	memset(val, 0, t->key_len);
	uint32_t total = 0;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const struct p4dp_key_field *f = &t->fields[i];
		const uint8_t *wm = t->width_mask + f->offset;
		const uint8_t *v = m->value + f->offset;
		const uint8_t *mk = m->mask ? m->mask + f->offset : wm;
		for (uint32_t j = 0; j < f->size; j++) {
			if ((v[j] & ~wm[j]) || (mk[j] & ~wm[j]) || (v[j] & ~mk[j]))
				return -EINVAL; /* bits beyond the width or outside the mask */
			if (f->match_kind == P4DP_MATCH_EXACT && mk[j] != wm[j])
				return -EINVAL;
		}
		if (f->match_kind == P4DP_MATCH_LPM) {
			int plen = table_field_prefix_len(f, mk - f->offset);
			if (plen < 0)
				return -EINVAL;
			total += (uint32_t)plen;
		} else {
			total += f->bitwidth;
		}
		memcpy(val + f->offset, v, f->size);
	}
	*len = total;
	return 0;
}

/* ------------------------------------------------------------ control operations */

static int lpm_add_rule(struct p4dp_table *t, const uint8_t *val, uint32_t len, uint32_t action,
			const void *data)
{
	struct table_lpm *s = t->lpm;
	if (rule_find(t, val, len, NULL) != NULL)
		return -EEXIST;
	if (t->n_entries >= t->max_entries) {
		TABLE_STAT_INC(t->st_full);
		return -ENOSPC;
	}
	uint8_t kb[LPM_BYTES_MAX];
	key_bits(t, s, val, kb);
	/* Everything that can fail first: the slot index, the entry, the rule, the new nodes. */
	uint32_t fl = final_level(s, len);
	struct lpm_node *fresh[LPM_BYTES_MAX];
	uint32_t n_fresh = 0;
	struct lpm_node *n = s->root;
	for (uint32_t k = 0; k < fl; k++) {
		uint64_t v = n != NULL ? n->slot[level_index(s, kb, k)] : 0;
		if (n != NULL && slot_is_child(v)) {
			n = slot_child(v);
		} else {
			n = NULL;
			fresh[n_fresh++] = NULL;
		}
	}
	int64_t idx = table_idx_get(t);
	if (idx < 0) {
		TABLE_STAT_INC(t->st_full);
		return (int)idx;
	}
	struct p4dp_entry *e = entry_new(t, action, data, (uint32_t)idx);
	struct lpm_rule *r = malloc(sizeof(*r) + t->key_len);
	struct lpm_answer *a = s->ans_bucket != NULL ? answer_get(t, action, data) : NULL;
	bool ok = e != NULL && r != NULL && (s->ans_bucket == NULL || a != NULL);
	for (uint32_t i = 0; ok && i < n_fresh; i++) {
		fresh[i] = node_new(t, fl - n_fresh + i + 1, 0, 0);
		ok = fresh[i] != NULL;
	}
	if (!ok) {
		for (uint32_t i = 0; i < n_fresh; i++)
			rte_free(fresh[i]);
		free(r);
		answer_put(t, a, false); /* not published: new ones are freed now */
		entry_put(t, e);
		table_idx_release(t, (uint32_t)idx);
		return -ENOMEM;
	}
	/* Publish: create the missing nodes on the path, each filled with its parent slot. */
	n = s->root;
	for (uint32_t k = 0, f = 0; k < fl; k++) {
		uint32_t i = level_index(s, kb, k);
		uint64_t v = n->slot[i];
		if (slot_is_child(v)) {
			n = slot_child(v);
			continue;
		}
		struct lpm_node *c = fresh[f++];
		uint32_t cs = level_stride(s, k + 1);
		for (uint32_t j = 0; j < (1u << cs); j++)
			c->slot[j] = v;
		memset(node_depth(c, cs), node_depth(n, level_stride(s, k))[i], 1u << cs);
		n->n_child++;
		/* The child answers every key as the slot did before it is reachable (release). */
		slot_store(&n->slot[i], (uint64_t)(uintptr_t)c | LPM_CHILD);
		n = c;
	}
	n->n_end++;
	r->entry = e;
	r->ans = a;
	range_walk(s, n, kb, len, WALK_COVER, (uint8_t)(len + 1), rule_slot(r), 0);
	r->len = len;
	r->hash = rule_hash(t, val, len);
	memcpy(r->value, val, t->key_len);
	rule_link(s, r);
	if (++s->n_rules > s->n_buckets)
		rules_grow(s);
	TABLE_SET_RELAXED(t->n_entries, t->n_entries + 1);
	t->st_inserts++;
	return 0;
}

/* The scratch buffers of a normalized match. */
#define LPM_SCRATCH(t) uint8_t val_[(t)->key_len ? (t)->key_len : 1]; uint32_t len_

static int lpm_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	LPM_SCRATCH(t);
	int rc = lpm_normalize(t, m, val_, &len_);
	return rc ? rc : lpm_add_rule(t, val_, len_, action, data);
}

static int lpm_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	struct table_lpm *s = t->lpm;
	LPM_SCRATCH(t);
	int rc = lpm_normalize(t, m, val_, &len_);
	if (rc != 0)
		return rc;
	struct lpm_rule *r = rule_find(t, val_, len_, NULL);
	if (r == NULL)
		return -ENOENT;
	struct p4dp_entry *old = r->entry;
	struct p4dp_entry *e = entry_new(t, action, data, old->index);
	struct lpm_answer *a = s->ans_bucket != NULL && e != NULL ? answer_get(t, action, data) : NULL;
	if (e == NULL || (s->ans_bucket != NULL && a == NULL)) {
		entry_put(t, e);
		return -ENOMEM;
	}
	table_entry_carry_timer(e, old);
	uint8_t kb[LPM_BYTES_MAX];
	struct lpm_node *path[LPM_BYTES_MAX];
	key_bits(t, s, val_, kb);
	path_get(s, kb, len_, path);
	struct lpm_answer *old_ans = r->ans;
	r->entry = e;
	r->ans = a;
	/* shared answers: the slots go from the old answer to the (complete, never rewritten) new one;
	 * the old one is freed after a grace period once no rule uses it */
	range_walk(s, path[final_level(s, len_)], kb, len_, WALK_RETARGET, (uint8_t)(len_ + 1), rule_slot(r), 0);
	answer_put(t, old_ans, true);
	table_defer(t, entry_put_cb, old, 0); /* readers may still hold the old version */
	return 0;
}

static int lpm_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	struct table_lpm *s = t->lpm;
	LPM_SCRATCH(t);
	int rc = lpm_normalize(t, m, val_, &len_);
	if (rc != 0)
		return rc;
	struct lpm_rule **link;
	struct lpm_rule *r = rule_find(t, val_, len_, &link);
	if (r == NULL)
		return -ENOENT;
	struct lpm_rule *q = rule_cover(t, val_, len_);
	uint8_t kb[LPM_BYTES_MAX];
	struct lpm_node *path[LPM_BYTES_MAX];
	key_bits(t, s, val_, kb);
	path_get(s, kb, len_, path);
	uint32_t fl = final_level(s, len_);
	range_walk(s, path[fl], kb, len_, WALK_REPLACE, (uint8_t)(len_ + 1), q ? rule_slot(q) : NULL,
		   q ? (uint8_t)(q->len + 1) : 0);
	path[fl]->n_end--;
	path_fold(t, kb, path, fl);
	*link = r->next;
	s->n_rules--;
	TABLE_SET_RELAXED(t->n_entries, t->n_entries - 1);
	table_defer(t, entry_idx_put_cb, r->entry, r->entry->index);
	answer_put(t, r->ans, true);
	free(r);
	return 0;
}

static int lpm_find(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e)
{
	LPM_SCRATCH(t);
	int rc = lpm_normalize(t, m, val_, &len_);
	if (rc == 0) {
		struct lpm_rule *r = rule_find(t, val_, len_, NULL);
		*e = r ? r->entry : NULL;
	}
	return rc;
}

static int lpm_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	struct table_lpm *s = t->lpm;
	const struct p4dp_key_field *f = &t->fields[s->lpm_idx];
	uint8_t mask[P4DP_TABLE_KEY_MAX];
	for (uint32_t b = 0; b < s->n_buckets; b++) {
		for (struct lpm_rule *r = s->bucket[b]; r != NULL; r = r->next) {
			memcpy(mask, t->width_mask, t->key_len);
			prefix_truncate(f, mask, r->len - s->exact_bits);
			struct p4dp_match m = {.value = r->value, .mask = mask, .hi = NULL, .priority = 0};
			int rc = cb(arg, &m, r->entry);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Free every rule record; with @p defer_entries their entries and indices after a grace
 * period, else now. */
static void rules_drop(struct p4dp_table *t, bool defer_entries)
{
	struct table_lpm *s = t->lpm;
	for (uint32_t b = 0; b < s->n_buckets; b++) {
		for (struct lpm_rule *r = s->bucket[b], *nx; r != NULL; r = nx) {
			nx = r->next;
			if (defer_entries)
				table_defer(t, entry_idx_put_cb, r->entry, r->entry->index);
			else
				entry_put(t, r->entry);
			answer_put(t, r->ans, defer_entries);
			free(r);
		}
		s->bucket[b] = NULL;
	}
	s->n_rules = 0;
}

static int lpm_clear(struct p4dp_table *t)
{
	struct table_lpm *s = t->lpm;
	struct lpm_node *root = node_new(t, 0, 0, 0);
	if (root == NULL)
		return -ENOMEM; /* nothing changed (a 24-bit root needs another 144 MiB for a moment) */
	struct lpm_node *old = s->root;
	/* Release: the empty root is written before readers can load it; readers still walking
	 * the old trie finish on it, freed after the grace period. */
	__atomic_store_n(&s->root, root, __ATOMIC_RELEASE);
	head_publish(t, s, root);
	subtree_defer(t, old);
	rules_drop(t, true);
	TABLE_SET_RELAXED(t->n_entries, 0);
	return 0;
}

static int lpm_create(struct p4dp_table *t)
{
	struct table_lpm *s = rte_zmalloc_socket("p4dp_lpm", sizeof(*s), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (s == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		if (t->fields[i].match_kind == P4DP_MATCH_LPM) {
			s->lpm_idx = i;
			continue;
		}
		s->order[s->n_order++] = (uint16_t)i;
		s->exact_bits += t->fields[i].bitwidth;
	}
	s->order[s->n_order++] = (uint16_t)s->lpm_idx;
	s->bits = s->exact_bits + t->fields[s->lpm_idx].bitwidth;
	s->pad_bits = RTE_ALIGN_CEIL(s->bits, 8);
	s->narrow = s->bits <= 64;
	s->single = s->narrow && s->n_order == 1;
	s->wide_single = !s->narrow && s->n_order == 1 && s->bits <= 128;
	s->n_buckets = 64;
	s->bucket = calloc(s->n_buckets, sizeof(*s->bucket));
	bool ans_fail = false;
	if (t->shared_answers) {
		s->n_ans_buckets = 64;
		s->ans_bucket = calloc(s->n_ans_buckets, sizeof(*s->ans_bucket));
		ans_fail = s->ans_bucket == NULL;
	}
	t->lpm = s;
	s->root = NULL;
	/* The first level (see the top of this file): 24 bits for large tables of keys of 24 bits
	 * or more, falling back to 16 when its 144 MiB are not available. */
	if (s->pad_bits >= LPM_ROOT24_BITS && t->max_entries >= LPM_ROOT24_MIN_ENTRIES) {
		s->root_bits = LPM_ROOT24_BITS;
		s->root = node_new(t, 0, 0, 0);
		/* the entries and nodes of a table this large in huge-page chunks (see the top of this
		 * file) */
		s->slab = s->root != NULL;
		s->ents.size = t->entry_size;
		s->nodes.size = RTE_ALIGN_CEIL(node_bytes(LPM_STRIDE), RTE_CACHE_LINE_SIZE);
	}
	if (s->root == NULL) {
		s->root_bits = RTE_MIN(LPM_ROOT_BITS, s->pad_bits);
		s->root = node_new(t, 0, 0, 0);
	}
	s->n_levels = 1 + (s->pad_bits - s->root_bits) / LPM_STRIDE;
	if (s->bucket == NULL || s->root == NULL || ans_fail) {
		free(s->bucket);
		free(s->ans_bucket);
		node_release(s, s->root);
		rte_free(s);
		t->lpm = NULL;
		return -ENOMEM;
	}
	if (s->single) {
		/* the key bits are the field's value left-aligned (key_bits64); the slot, their top
		 * root_bits */
		t->head.lpm_lshift = 64 - s->bits;
		t->head.lpm_rshift = 64 - s->root_bits;
	}
	head_publish(t, s, s->root);
	return 0;
}

static void lpm_free(struct p4dp_table *t)
{
	struct table_lpm *s = t->lpm;
	if (s == NULL)
		return;
	head_publish(t, s, NULL);
	p4dp_rcu_dq_reclaim(t->dq, true);
	p4dp_rcu_synchronize(t->rcu);
	subtree_free_now(s, s->root);
	rules_drop(t, false);
	pool_unmap(&s->ents);
	pool_unmap(&s->nodes);
	free(s->bucket);
	free(s->ans_bucket);
	rte_free(s);
	t->lpm = NULL;
}

/* A worker's insert: an entry matching the whole key (full prefix). */
static int lpm_dp_insert(struct p4dp_table *t, const uint8_t *k, uint32_t action, const void *data,
			 uint8_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row)
{
	(void)seen;
	(void)row; /* exact tables only (table_internal.h) */
	int rc = table_worker_lock(t, profile, now_ns);
	if (rc != 0)
		return rc;
	rc = lpm_add_rule(t, k, t->lpm->bits, action, data);
	table_worker_unlock(t, rc == 0);
	return rc;
}

bool table_lpm_accepts(const struct p4dp_key_field *fields, uint32_t n_fields)
{
	uint32_t n_lpm = 0, bits = 0;
	for (uint32_t i = 0; i < n_fields; i++) {
		if (fields[i].match_kind == P4DP_MATCH_LPM)
			n_lpm++;
		else if (fields[i].match_kind != P4DP_MATCH_EXACT)
			return false;
		bits += fields[i].bitwidth;
	}
	return n_lpm == 1 && bits <= LPM_BITS_MAX;
}

const struct table_kind_ops table_lpm_ops = {
	.kind = TABLE_KIND_LPM,
	.expires = true,
	.create = lpm_create,
	.free = lpm_free,
	.add = lpm_add,
	.modify = lpm_modify,
	.del = lpm_delete,
	.find = lpm_find,
	.clear = lpm_clear,
	.foreach = lpm_foreach,
	.dp_insert = lpm_dp_insert,
};

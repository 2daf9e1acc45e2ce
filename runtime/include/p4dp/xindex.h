/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file xindex.h
 * The read index of exact tables: what a worker's lookup of an exact key of at most 16 bytes
 * reads, inline in the program (abi.h, p4dp_table_apply_exact), so that a cache-resident
 * lookup costs a multiply, one or two buckets and a compare instead of calls into rte_hash.
 *
 * The table's rte_hash stays the authority (writers search it, iterate it, and it holds the keys
 * the index has no room for); every change of its key -> entry map is mirrored here by the same
 * writer, in the same critical section (table_exact.c, under the insertion spinlock), so both
 * always map a key to the same entry pointer.
 *
 * Layout: a power of two of buckets, each with P4DP_XI_WAYS slots (key, entry pointer): for keys
 * of at most 8 bytes, one cache line holding four one-word keys and then their four pointers
 * (struct p4dp_xi_bucket8), so a probe reads one line; for longer keys two lines, the keys
 * zero-padded to 16 bytes and then the pointers (struct p4dp_xi_bucket). A key lives in one slot of bucket b1 or b2 (two multiplicative hashes of the
 * key with a per-table random seed), or, when both are full, in rte_hash only ("overflow": the
 * index counts those keys, and a lookup that misses here asks rte_hash while the count is not
 * zero). Keys never move between slots.
 *
 * Concurrency (readers lock-free, one writer at a time): a writer fills a free slot's key, then
 * stores its entry pointer with release order; a modify stores the new version's pointer with
 * release order (a reader sees the old or the new complete version); a delete stores NULL and the
 * slot's key bytes stay as they are until the RCU grace period of the delete has passed (only
 * then is the slot free for another key). A reader loads the entry pointer with acquire order and
 * only then reads the key bytes: if the pointer is not NULL, the slot has not been freed since
 * the reader's read-side section began, so its key bytes are the ones published with it. A
 * reader scans every slot of a bucket, also a free one whose key the writer may be filling at
 * that moment (its pointer is NULL, so the compare is masked out): the key words are therefore
 * relaxed atomics on both sides (plain moves on x86), never plain reads racing plain writes.
 */
#ifndef P4DP_XINDEX_H
#define P4DP_XINDEX_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#include "p4dp/tsan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_entry;

/** Slots per bucket. */
#define P4DP_XI_WAYS 4u
/** Longest key (bytes) the index holds; longer keys are looked up in rte_hash alone. */
#define P4DP_XI_KEY_MAX 16u

/** One bucket of a table whose keys are longer than 8 bytes: two cache lines (keys, then entry
 *  pointers). */
struct p4dp_xi_bucket {
	uint64_t key[P4DP_XI_WAYS][2];              /**< zero-padded keys; valid while ent != NULL */
	struct p4dp_entry *ent[P4DP_XI_WAYS];       /**< NULL: empty (or deleted, not yet free) */
	uint64_t _pad[8 - P4DP_XI_WAYS];
} __attribute__((aligned(64)));

/** One bucket of a table whose keys are at most 8 bytes long: one cache line. */
struct p4dp_xi_bucket8 {
	uint64_t key[P4DP_XI_WAYS];                 /**< zero-padded keys; valid while ent != NULL */
	struct p4dp_entry *ent[P4DP_XI_WAYS];       /**< NULL: empty (or deleted, not yet free) */
} __attribute__((aligned(64)));

/** The read index of one exact table (created with the table, fixed size). */
struct p4dp_xindex {
	/** The buckets: struct p4dp_xi_bucket8 if the table's keys are at most 8 bytes long, else
	 *  struct p4dp_xi_bucket (the key length is the program's, known to both sides). */
	void *b;
	uint32_t shift;      /**< 64 - log2(buckets): a bucket number is a hash's top bits */
	uint32_t _pad;
	uint64_t seed;       /**< random per table (control thread, at creation) */
	/** Keys held by rte_hash alone. Written by the writer with release order after the key is
	 *  in rte_hash; read with acquire order by a lookup that missed in the index. */
	uint64_t n_overflow;
};

/**
 * The first table's public head: struct p4dp_table begins with it, so inline code can reach the
 * read index through an opaque table pointer.
 */
struct p4dp_table_head {
	const struct p4dp_xindex *xi; /**< NULL: no index (not an exact table, key too long, too big) */
	/** A linear table's (rtc.p4 @linear, table.h `linear`) direct read index: n_rows pointers,
	 *  row r's installed entry or NULL. Each is written by the writer under its insertion
	 *  spinlock with a release store (the entry filled first; NULL on a delete, before the
	 *  entry's grace period starts) and read with an acquire load (abi.h
	 *  p4dp_table_apply_linear). NULL (the array): not a linear table. Set at creation. */
	struct p4dp_entry *const *rows;
	uint32_t n_rows; /**< the table's size (rows): a key at or above it has no row */
	/** Copies of xi's shift, bucket array and seed (fixed for the index's life; xi_b NULL: no
	 *  index), so that a lookup reads them from the table's head. perf: one dependent load less
	 *  before the bucket read (abi.h p4dp_table_apply_exact); xi itself is read only for its
	 *  overflow count, after a miss. Set with xi at the table's creation. */
	uint32_t xi_shift;
	const void *xi_b;
	uint64_t xi_seed;
	/** A longest-prefix-match table of one lpm field of at most 64 bits (table_lpm.c): its
	 *  trie's first-level slots, written with a release store at creation and by a clear (which
	 *  replaces the first level; the old one is freed after a grace period), NULL for other
	 *  tables; the slot of key value v (the field's native value) is
	 *  (v << lpm_lshift) >> lpm_rshift, fixed for the table's life. Only read to prefetch that
	 *  slot before the lookup reads it (abi.h p4dp_table_prefetch). */
	const uint64_t *lpm_slots;
	uint32_t lpm_lshift, lpm_rshift;
};

/** Bytes of one bucket of an index of keys of @p key_len bytes. Pure. */
static inline uint32_t p4dp_xi_bucket_bytes(uint32_t key_len)
{
	return key_len <= 8 ? (uint32_t)sizeof(struct p4dp_xi_bucket8) : (uint32_t)sizeof(struct p4dp_xi_bucket);
}

/** Buckets of the index of a table of @p max_entries entries: a power of two, at least 2, with
 *  twice as many slots as entries (at most half the slots in use: two choices of 4 slots then
 *  overflow very rarely). Pure. */
static inline uint64_t p4dp_xi_buckets(uint32_t max_entries)
{
	uint64_t nb = 2;
	while (nb * P4DP_XI_WAYS < 2ull * max_entries)
		nb <<= 1;
	return nb;
}

/** The hash of key @p k (zero-padded to 16 bytes) in an index of seed @p seed. Pure. perf: the
 *  two multiplies are independent, and for keys of up to 8 bytes (k[1] a constant 0) the second
 *  one folds away. */
static inline uint64_t p4dp_xi_hash_seeded(uint64_t seed, const uint64_t k[2])
{
	/* multiplicative hashing: the product's top bits depend on every key bit */
	return ((k[0] ^ seed) * 0x9e3779b97f4a7c15ull) ^ (k[1] * 0xc2b2ae3d27d4eb4full);
}

/** The hash of key @p k in index @p xi. Pure. */
static inline uint64_t p4dp_xi_hash1(const struct p4dp_xindex *xi, const uint64_t k[2])
{
	return p4dp_xi_hash_seeded(xi->seed, k);
}

/** The first bucket of hash @p h: its top bits. */
static inline uint64_t p4dp_xi_bucket1(const struct p4dp_xindex *xi, uint64_t h)
{
	return h >> xi->shift;
}

/** The second bucket of hash @p h in an index of shift @p shift: the top bits of a second
 *  product. */
static inline uint64_t p4dp_xi_bucket2_shifted(uint32_t shift, uint64_t h)
{
	return ((h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull) >> shift;
}

/** The second bucket of hash @p h in index @p xi. */
static inline uint64_t p4dp_xi_bucket2(const struct p4dp_xindex *xi, uint64_t h)
{
	return p4dp_xi_bucket2_shifted(xi->shift, h);
}

/** @p e if @p x equals @p y and @p e is not NULL, else @p r: one slot's step of a bucket scan
 *  (@p x, @p y: the slot's key word and the looked-up one, or their difference and 0; @p e the
 *  slot's entry pointer). perf: no branch. Which slot holds a key is data, so a branch per slot
 *  mispredicts about every other lookup (gcc turns the plain C form into such branches, whatever
 *  its spelling), and a mispredicted branch also throws away the work of the table applications
 *  after it. */
static inline __attribute__((always_inline)) uintptr_t p4dp_xi_pick(uintptr_t r, uintptr_t e, uint64_t x, uint64_t y)
{
#if defined(__x86_64__)
	const uintptr_t z = 0;
	__asm__("cmp %[y], %[x]\n\t"
		"cmovne %[z], %[e]\n\t"
		"test %[e], %[e]\n\t"
		"cmovnz %[e], %[r]"
		: [e] "+&r"(e), [r] "+r"(r)
		: [x] "r"(x), [y] "re"(y), [z] "r"(z)
		: "cc");
	return r;
#else
	return x == y && e != 0 ? e : r;
#endif
}

/** The entry of key @p k in bucket @p b, or NULL. Worker; see the file comment. */
static inline struct p4dp_entry *p4dp_xi_in_bucket(const struct p4dp_xi_bucket *b, const uint64_t k[2])
{
	uintptr_t r = 0;
	/* the first live slot (e != NULL) that holds the key: scanned from the last slot, each
	 * match replaces the one found before. Two live slots can hold the key as this scan sees
	 * the bucket: a slot read before the key's delete and another read after its re-insert
	 * into the same bucket; either answer is one the table gave during the lookup (combining
	 * them would make a pointer to neither). */
#pragma GCC unroll 4
	for (uint32_t i = 0; i < P4DP_XI_WAYS; i++) {
		const uint32_t w = P4DP_XI_WAYS - 1 - i;
		/* acquire: pairs with the writer's release store of the pointer, which followed the
		 * key's stores; the key is read after it (file comment) */
		const uintptr_t e = (uintptr_t)__atomic_load_n(&b->ent[w], __ATOMIC_ACQUIRE);
		/* relaxed: the writer may be filling a free slot's key at the same time (its pointer is
		 * then NULL and the slot is not picked); for a non-NULL pointer the acquire above
		 * made the key stores before it visible. Plain moves on x86. */
		const uint64_t k0 = __atomic_load_n(&b->key[w][0], __ATOMIC_RELAXED);
		const uint64_t k1 = __atomic_load_n(&b->key[w][1], __ATOMIC_RELAXED);
		r = p4dp_xi_pick(r, e, (k0 ^ k[0]) | (k1 ^ k[1]), 0);
	}
	return (struct p4dp_entry *)r;
}

/**
 * Look key @p k (zero-padded to 16 bytes) up in the index of buckets @p buckets, shift @p shift
 * and seed @p seed (struct p4dp_xindex's, or their copies in struct p4dp_table_head): the entry,
 * or NULL if the index does not hold the key (then rte_hash may, if p4dp_xi_overflow() is not
 * zero).
 * Context: worker (RCU read side) or the table's writer. Thread safety: lock-free against the
 * writer (file comment). The entry is valid until the worker's next quiescent state.
 */
static inline __attribute__((always_inline)) struct p4dp_entry *
p4dp_xi_find_at(const void *buckets, uint32_t shift, uint64_t seed, const uint64_t k[2])
{
	const uint64_t h = p4dp_xi_hash_seeded(seed, k);
	const struct p4dp_xi_bucket *b = (const struct p4dp_xi_bucket *)buckets;
	struct p4dp_entry *e = p4dp_xi_in_bucket(&b[h >> shift], k);
	if (__builtin_expect(e != NULL, 1))
		return e;
	return p4dp_xi_in_bucket(&b[p4dp_xi_bucket2_shifted(shift, h)], k);
}

/** p4dp_xi_find_at() of index @p xi. */
static inline struct p4dp_entry *p4dp_xi_find(const struct p4dp_xindex *xi, const uint64_t k[2])
{
	return p4dp_xi_find_at(xi->b, xi->shift, xi->seed, k);
}

/** p4dp_xi_in_bucket() for a table whose keys are at most 8 bytes long, in its one-line
 *  buckets (@p k0: the key zero-padded to one word), slot by slot. Same contract. perf: one cache
 *  line, half the loads and compares of the 16-byte form. */
static inline struct p4dp_entry *p4dp_xi_in_bucket8_scan(const struct p4dp_xi_bucket8 *b, uint64_t k0)
{
	uintptr_t r = 0;
	/* the first live slot that holds the key, as in p4dp_xi_in_bucket() */
#pragma GCC unroll 4
	for (uint32_t i = 0; i < P4DP_XI_WAYS; i++) {
		const uint32_t w = P4DP_XI_WAYS - 1 - i;
		/* acquire, relaxed: as in p4dp_xi_in_bucket() */
		const uintptr_t e = (uintptr_t)__atomic_load_n(&b->ent[w], __ATOMIC_ACQUIRE);
		const uint64_t s0 = __atomic_load_n(&b->key[w], __ATOMIC_RELAXED);
		r = p4dp_xi_pick(r, e, s0, k0);
	}
	return (struct p4dp_entry *)r;
}

/** p4dp_xi_in_bucket8_scan()'s result, with fewer instructions where SSE4.1 is there (perf: the
 *  four key words compared in two vector compares, about 16 instructions per bucket against 24).
 *  The vector compare only names a candidate slot, the lowest whose key word equals @p k0 as it
 *  read them; the answer is then checked as the scan checks it: the candidate's entry pointer
 *  loaded with acquire order and, after it, its key word again (file comment). A bucket in
 *  which no key word equals @p k0 holds no live slot of the key (a key's slot keeps its bytes
 *  while the key is live); if the candidate is not live or its key changed meanwhile (a writer
 *  at work on the bucket), the slot-by-slot scan answers. Not under ThreadSanitizer: its vector
 *  load of the key words races, by design, with a writer filling a free slot (a candidate only,
 *  checked after), which TSan would report; the scan's loads are the atomics it knows. */
static inline __attribute__((always_inline)) struct p4dp_entry *p4dp_xi_in_bucket8(const struct p4dp_xi_bucket8 *b,
										  uint64_t k0)
{
#if defined(__SSE4_1__) && !defined(P4DP_TSAN)
	const __m128i kk = _mm_set1_epi64x((long long)k0);
	const __m128i lo = _mm_cmpeq_epi64(_mm_load_si128((const __m128i *)(const void *)&b->key[0]), kk);
	const __m128i hi = _mm_cmpeq_epi64(_mm_load_si128((const __m128i *)(const void *)&b->key[2]), kk);
	/* one bit per slot: the signs of the saturated 32-bit halves of each 64-bit compare */
	const uint32_t m = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_packs_epi32(lo, hi)));
	if (m == 0)
		return NULL;
	const uint64_t w = (uint64_t)__builtin_ctz(m) & (P4DP_XI_WAYS - 1u);
	/* acquire, relaxed: as in p4dp_xi_in_bucket(); the key word read again after the pointer */
	struct p4dp_entry *const e = __atomic_load_n(&b->ent[w], __ATOMIC_ACQUIRE);
	if (__builtin_expect(e != NULL && __atomic_load_n(&b->key[w], __ATOMIC_RELAXED) == k0, 1))
		return e;
	return p4dp_xi_in_bucket8_scan(b, k0);
#else
	return p4dp_xi_in_bucket8_scan(b, k0);
#endif
}
/** p4dp_xi_find_at() for a table whose keys are at most 8 bytes long, @p k0 the key
 *  zero-padded to one word (k[0] of p4dp_xi_key()). Same contract. */
static inline __attribute__((always_inline)) struct p4dp_entry *
p4dp_xi_find8_at(const void *buckets, uint32_t shift, uint64_t seed, uint64_t k0)
{
	const uint64_t k[2] = {k0, 0};
	const uint64_t h = p4dp_xi_hash_seeded(seed, k);
	const struct p4dp_xi_bucket8 *b = (const struct p4dp_xi_bucket8 *)buckets;
	struct p4dp_entry *e = p4dp_xi_in_bucket8(&b[h >> shift], k0);
	if (__builtin_expect(e != NULL, 1))
		return e;
	return p4dp_xi_in_bucket8(&b[p4dp_xi_bucket2_shifted(shift, h)], k0);
}

/** p4dp_xi_find8_at() of index @p xi. */
static inline __attribute__((always_inline)) struct p4dp_entry *p4dp_xi_find8(const struct p4dp_xindex *xi,
									     uint64_t k0)
{
	return p4dp_xi_find8_at(xi->b, xi->shift, xi->seed, k0);
}

/** Keys held by rte_hash alone (acquire: see struct p4dp_xindex). Any thread. */
static inline uint64_t p4dp_xi_overflow(const struct p4dp_xindex *xi)
{
	return __atomic_load_n(&xi->n_overflow, __ATOMIC_ACQUIRE);
}

/** Key @p key of @p len bytes (at most P4DP_XI_KEY_MAX) zero-padded into @p k. */
static inline void p4dp_xi_key(uint64_t k[2], const void *key, uint32_t len)
{
	k[0] = 0;
	k[1] = 0;
	memcpy(k, key, len);
}

#ifdef __cplusplus
}
#endif

#endif /* P4DP_XINDEX_H */

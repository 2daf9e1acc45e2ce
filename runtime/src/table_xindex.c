/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The writer's side of the exact tables' read index (p4dp/xindex.h says what the index is and
 * why readers may trust it). table_exact.c calls these functions under the table's insertion
 * spinlock, right after the rte_hash change they mirror, so at most one of them runs at a time
 * per table; only the entry pointer and overflow stores are atomic (readers run concurrently).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "table_internal.h"

/* No slot: the key is in rte_hash alone (overflow), or the index is free. */
#define XI_NONE UINT32_MAX

/* Free buckets @p b of table_xi_create: a mapping of @p mapped bytes, or (0) posix_memalign's. */
static void xi_buckets_free(void *b, size_t mapped)
{
	if (mapped != 0)
		table_huge_unmap(b, mapped);
	else
		free(b);
}

/* @p bytes of zeroed busy flags: perf: a large array on huge pages (table_huge_map; an insert
 * reads the flags of two random buckets), else calloc's; *@p mapped as for the buckets. */
static uint8_t *xi_busy_alloc(size_t bytes, size_t *mapped)
{
	*mapped = 0;
	if (bytes >= TABLE_HUGE_MIN) {
		uint8_t *p = table_huge_map(bytes, mapped);
		if (p != NULL) {
			memset(p, 0, bytes); /* faults its pages in here, as the buckets' */
			return p;
		}
	}
	return calloc(bytes, 1);
}

static void xi_busy_free(uint8_t *p, size_t mapped)
{
	if (mapped != 0)
		table_huge_unmap(p, mapped);
	else
		free(p);
}

int table_xi_create(struct table_xi **out, uint32_t key_len, uint32_t max_entries)
{
	*out = NULL;
	if (key_len == 0 || key_len > P4DP_XI_KEY_MAX || max_entries == 0 || max_entries > TABLE_XI_MAX_ENTRIES)
		return 0;
	const uint64_t nb = p4dp_xi_buckets(max_entries);
	const size_t bsize = p4dp_xi_bucket_bytes(key_len);
	struct table_xi *x = calloc(1, sizeof(*x));
	if (x == NULL)
		return -ENOMEM;
	/* perf: a large index on huge pages (table_huge_map): its random bucket reads would
	 * otherwise each add a 4 KiB-page TLB miss to the cache miss */
	const size_t bytes = nb * bsize;
	void *b = NULL;
	if (bytes >= TABLE_HUGE_MIN)
		b = table_huge_map(bytes, &x->mapped);
	if (b == NULL && posix_memalign(&b, 64, bytes) != 0)
		b = NULL;
	x->busy = xi_busy_alloc(nb * P4DP_XI_WAYS, &x->busy_mapped);
	x->slot_of = malloc((size_t)max_entries * sizeof(*x->slot_of));
	if (b == NULL || x->busy == NULL || x->slot_of == NULL) {
		xi_buckets_free(b, x->mapped);
		xi_busy_free(x->busy, x->busy_mapped);
		free(x->slot_of);
		free(x);
		return -ENOMEM;
	}
	/* also for a mapping (already zero): its pages are faulted in here, on the control thread,
	 * not by the first writes of workers */
	memset(b, 0, bytes);
	for (uint32_t i = 0; i < max_entries; i++)
		x->slot_of[i] = XI_NONE;
	x->pub.b = b;
	x->pub.shift = 64;
	for (uint64_t v = nb; v > 1; v >>= 1)
		x->pub.shift--;
	x->pub.seed = rte_rand();
	x->key_len = key_len;
	x->max_entries = max_entries;
	*out = x;
	return 0;
}

void table_xi_free(struct table_xi *x)
{
	if (x == NULL)
		return;
	xi_buckets_free(x->pub.b, x->mapped);
	xi_busy_free(x->busy, x->busy_mapped);
	free(x->slot_of);
	free(x);
}

/* Slot @p s's entry pointer (the bucket layout of the table's key length, xindex.h). */
static struct p4dp_entry **slot_ent(const struct table_xi *x, uint32_t s)
{
	if (x->key_len <= 8)
		return &((struct p4dp_xi_bucket8 *)x->pub.b)[s / P4DP_XI_WAYS].ent[s % P4DP_XI_WAYS];
	return &((struct p4dp_xi_bucket *)x->pub.b)[s / P4DP_XI_WAYS].ent[s % P4DP_XI_WAYS];
}

/* A free slot of bucket @p bi, or XI_NONE. */
static uint32_t free_slot(const struct table_xi *x, uint64_t bi)
{
	for (uint32_t w = 0; w < P4DP_XI_WAYS; w++)
		if (!x->busy[bi * P4DP_XI_WAYS + w])
			return (uint32_t)(bi * P4DP_XI_WAYS + w);
	return XI_NONE;
}

void table_xi_insert(struct table_xi *x, const uint8_t *key, uint32_t idx, struct p4dp_entry *e)
{
	if (x == NULL)
		return;
	uint64_t k[2];
	p4dp_xi_key(k, key, x->key_len);
	const uint64_t h = p4dp_xi_hash1(&x->pub, k);
	uint32_t s = free_slot(x, p4dp_xi_bucket1(&x->pub, h));
	if (s == XI_NONE)
		s = free_slot(x, p4dp_xi_bucket2(&x->pub, h));
	x->slot_of[idx] = s;
	if (s == XI_NONE) {
		/* release: the key is already in rte_hash (pairs with p4dp_xi_overflow's acquire) */
		__atomic_store_n(&x->pub.n_overflow, x->pub.n_overflow + 1, __ATOMIC_RELEASE);
		return;
	}
	const uint32_t w = s % P4DP_XI_WAYS;
	x->busy[s] = 1;
	/* The slot is free: no reader holds its entry (its last pointer was cleared a grace period
	 * ago), but readers scanning the bucket read every slot's key words, so they are written
	 * as atomics. relaxed: a reader uses them only after loading the pointer stored below with
	 * acquire, which orders these stores before its reads (xindex.h). */
	if (x->key_len <= 8) {
		struct p4dp_xi_bucket8 *b = &((struct p4dp_xi_bucket8 *)x->pub.b)[s / P4DP_XI_WAYS];
		__atomic_store_n(&b->key[w], k[0], __ATOMIC_RELAXED);
	} else {
		struct p4dp_xi_bucket *b = &((struct p4dp_xi_bucket *)x->pub.b)[s / P4DP_XI_WAYS];
		__atomic_store_n(&b->key[w][0], k[0], __ATOMIC_RELAXED);
		__atomic_store_n(&b->key[w][1], k[1], __ATOMIC_RELAXED);
	}
	/* release: the key bytes and the entry's contents are visible with the pointer */
	__atomic_store_n(slot_ent(x, s), e, __ATOMIC_RELEASE);
}

void table_xi_publish(struct table_xi *x, uint32_t idx, struct p4dp_entry *e)
{
	if (x == NULL || x->slot_of[idx] == XI_NONE)
		return;
	const uint32_t s = x->slot_of[idx];
	/* release: the new version's contents are visible with it (a reader sees the old complete
	 * version or the new one) */
	__atomic_store_n(slot_ent(x, s), e, __ATOMIC_RELEASE);
}

void table_xi_delete(struct table_xi *x, uint32_t idx)
{
	if (x == NULL)
		return;
	const uint32_t s = x->slot_of[idx];
	if (s == XI_NONE) {
		/* release: as the increment; a reader that still sees the old count only asks rte_hash */
		__atomic_store_n(&x->pub.n_overflow, x->pub.n_overflow - 1, __ATOMIC_RELEASE);
		return;
	}
	/* relaxed would do for readers (NULL publishes nothing); release keeps the slot's key
	 * stores of a later reuse after this store for readers that look at both */
	__atomic_store_n(slot_ent(x, s), NULL, __ATOMIC_RELEASE);
}

void table_xi_release(struct table_xi *x, uint32_t idx)
{
	if (x == NULL)
		return;
	const uint32_t s = x->slot_of[idx];
	if (s != XI_NONE)
		x->busy[s] = 0;
	x->slot_of[idx] = XI_NONE;
}

int table_xi_holds(const struct table_xi *x, const uint8_t *key)
{
	if (x == NULL)
		return -1;
	uint64_t k[2];
	p4dp_xi_key(k, key, x->key_len);
	/* perf: the busy flags of the key's first bucket, which the insert that follows reads
	 * (free_slot), are an array apart from the buckets: their cache miss overlaps the buckets' */
	__builtin_prefetch(&x->busy[p4dp_xi_bucket1(&x->pub, p4dp_xi_hash1(&x->pub, k)) * P4DP_XI_WAYS]);
	const struct p4dp_entry *e = x->key_len <= 8 ? p4dp_xi_find8(&x->pub, k[0]) : p4dp_xi_find(&x->pub, k);
	if (e != NULL)
		return 1;
	/* the writer's own count: it changes only under the spinlock the caller holds */
	return x->pub.n_overflow == 0 ? 0 : -1;
}

void table_xi_prefetch(const struct table_xi *x, const uint8_t *key)
{
	if (x == NULL)
		return;
	uint64_t k[2];
	p4dp_xi_key(k, key, x->key_len);
	const uint64_t h = p4dp_xi_hash1(&x->pub, k);
	const size_t bytes = p4dp_xi_bucket_bytes(x->key_len);
	const uint64_t b1 = p4dp_xi_bucket1(&x->pub, h), b2 = p4dp_xi_bucket2(&x->pub, h);
	for (size_t off = 0; off < bytes; off += 64) {
		__builtin_prefetch((const uint8_t *)x->pub.b + b1 * bytes + off);
		__builtin_prefetch((const uint8_t *)x->pub.b + b2 * bytes + off);
	}
	__builtin_prefetch(&x->busy[b1 * P4DP_XI_WAYS]);
}

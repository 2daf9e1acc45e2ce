/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The published form of a selector group (actprof.c) and how a packet's hash picks its member.
 *
 * A group lists its live members (those whose watch port is live, or who have none) in selection
 * order (ascending member id) in one of two forms, chosen by the live members' sum of weights:
 *  - expanded (sum at most AP_EXPAND_MAX): a slot per unit of weight, so a pick is one load,
 *    `slots[hash % sum]` (BMv2's `hash % n` over the members repeated by weight);
 *  - searched (larger sums, as a P4Runtime selector with sum-of-members size semantics allows:
 *    up to P4DP_RT_ACTPROF_GROUP_MAX members of weight up to P4DP_RT_ACTPROF_WEIGHT_MAX): a slot
 *    per member and the running sums of the weights; the hash is mixed to 64 bits and scaled to
 *    [0, sum), and a binary search finds the member whose range holds it. Mixing first lets a
 *    narrow hash (a 16-bit crc16, say) reach every member of a group whose sum is far above 2^16.
 * Either way a member is picked with probability weight / sum over uniformly spread hashes.
 * Pure functions: no locks, no allocation (the caller allocates ap_group_size() bytes).
 */
#ifndef P4DP_ACTPROF_GROUP_H
#define P4DP_ACTPROF_GROUP_H

#include <stddef.h>
#include <stdint.h>

/** Largest sum of weights a group keeps in the expanded form. */
#define AP_EXPAND_MAX 4096u

/** A published group version (immutable once published). */
struct ap_group {
	uint32_t n;          /* expanded: slots (the live sum of weights); searched: live members */
	uint32_t n_members;  /* members of the group, live or not (n == 0 < n_members: all down) */
	uint32_t random;     /* 1: a packet's member is picked at random, not by the selector hash */
	uint32_t expanded;   /* 1: the expanded form; 0: searched */
	uint64_t total;      /* the live members' sum of weights */
	const uint64_t *cum; /* searched: cum[i] = weights of live members 0..i (in this allocation) */
	uint32_t slots[];    /* member slots: expanded, one per unit of weight; searched, one per member */
};

/** Bytes of a group of @p n_live live members whose weights sum to @p total. */
static inline size_t ap_group_size(uint32_t n_live, uint64_t total)
{
	if (total <= AP_EXPAND_MAX)
		return sizeof(struct ap_group) + sizeof(uint32_t) * (total + 1);
	/* slots start 8-byte aligned (offset 32); an even count keeps cum[] aligned */
	return sizeof(struct ap_group) + sizeof(uint32_t) * (n_live + (n_live & 1)) + sizeof(uint64_t) * n_live;
}

/**
 * Fill a zeroed group of ap_group_size(@p n_live, @p total) bytes from its live members.
 *
 * @param g the group.
 * @param n_live live members.
 * @param slot their member slots, in selection order.
 * @param weight their weights (>= 1), summing to @p total.
 * @param total the sum of @p weight.
 */
static inline void ap_group_fill(struct ap_group *g, uint32_t n_live, const uint32_t *slot, const uint32_t *weight,
				 uint64_t total)
{
	g->total = total;
	if (total <= AP_EXPAND_MAX) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n_live; i++)
			for (uint32_t w = 0; w < weight[i]; w++)
				g->slots[k++] = slot[i];
		g->expanded = 1;
		g->n = k;
		return;
	}
	uint64_t *cum = (uint64_t *)(void *)(g->slots + n_live + (n_live & 1));
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n_live; i++) {
		g->slots[i] = slot[i];
		sum += weight[i];
		cum[i] = sum;
	}
	g->expanded = 0;
	g->n = n_live;
	g->cum = cum;
}

/** A 64-bit finalizer (every input bit reaches every output bit): multiply-xorshift rounds. */
static inline uint64_t ap_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/**
 * The slot of the member @p hash picks in a group with at least one live member (g->n > 0).
 *
 * @param g the group.
 * @param hash the selector hash or a pseudo-random number.
 * @return a member slot.
 */
static inline uint32_t ap_group_pick(const struct ap_group *g, uint64_t hash)
{
	if (g->expanded)
		return g->slots[hash % g->n];
	/* the mixed hash scaled to [0, total): its high 64 bits of the 128-bit product */
	uint64_t pick = (uint64_t)(((unsigned __int128)ap_hash_mix(hash) * g->total) >> 64);
	/* the first member whose running sum exceeds pick: the answer stays in [base, base + len],
	 * and cum[n - 1] = total > pick keeps it below n */
	const uint64_t *cum = g->cum;
	uint32_t base = 0, len = g->n;
	while (len > 1) {
		uint32_t half = len / 2;
		base = cum[base + half] <= pick ? base + half : base;
		len -= half;
	}
	return g->slots[base + (cum[base] <= pick)];
}

#endif

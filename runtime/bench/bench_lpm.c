/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The baselines of the longest-prefix-match benchmarks (bench_lpm.h): an rte_lpm (IPv4) or
 * rte_lpm6 (IPv6) of the prefix set and the per-burst functions that bench.c's floor loop runs
 * on them; for IPv6 also the table fill of 128-bit keys, the floor plus p4dp's own bulk lookups
 * of 128-bit keys, and the check that p4dp and rte_lpm6 choose the same prefix.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>

#include "p4dp/bench_lpm.h"
#include "rt_internal.h"

struct p4dp_bench_rte_lpm {
	struct rte_lpm *lpm;
	/* the router's next hops (p4dp_bench_rte_lpm_next_hops): the MAC of hop h mod n_nhops */
	uint32_t n_nhops;
	uint8_t (*nhop_mac)[8];
};

int p4dp_bench_rte_lpm_create(const uint32_t *addr, const uint8_t *lens, uint64_t n, int socket_id,
			      struct p4dp_bench_rte_lpm **out)
{
	static uint32_t seq;
	if (addr == NULL || lens == NULL || out == NULL || n == 0 || n > UINT32_MAX)
		return rt_errc(-EINVAL, "bench: rte_lpm needs 1..2^32-1 prefixes");
	uint64_t longer = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (lens[i] < 1 || lens[i] > 32)
			return rt_errc(-EINVAL, "bench: prefix %" PRIu64 " has length %u; rte_lpm takes /1../32", i,
				       lens[i]);
		longer += lens[i] > 24;
	}
	struct p4dp_bench_rte_lpm *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	char name[RTE_LPM_NAMESIZE];
	/* relaxed: only uniqueness of the number matters */
	snprintf(name, sizeof(name), "p4dp_bl%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	struct rte_lpm_config cfg = {
		.max_rules = (uint32_t)n,
		.number_tbl8s = (uint32_t)RTE_MIN(longer + 256, (uint64_t)1 << 24),
		.flags = 0,
	};
	l->lpm = rte_lpm_create(name, socket_id, &cfg);
	if (l->lpm == NULL) {
		int e = rte_errno;
		free(l);
		return rt_errc(e == ENOMEM ? -ENOMEM : -EINVAL, "bench: rte_lpm_create of %" PRIu64 " rules: %s", n,
			       rte_strerror(e));
	}
	for (uint64_t i = 0; i < n; i++) {
		int rc = rte_lpm_add(l->lpm, addr[i], lens[i], (uint32_t)(i & 0xffffff));
		if (rc < 0) {
			p4dp_bench_rte_lpm_free(l);
			return rt_errc(rc, "bench: rte_lpm_add of %#" PRIx32 "/%u: %s", addr[i], lens[i],
				       rte_strerror(-rc));
		}
	}
	*out = l;
	return 0;
}

void p4dp_bench_rte_lpm_free(struct p4dp_bench_rte_lpm *l)
{
	if (l == NULL)
		return;
	rte_lpm_free(l->lpm);
	free(l->nhop_mac);
	free(l);
}

int p4dp_bench_rte_lpm_next_hops(struct p4dp_bench_rte_lpm *l, const uint8_t *macs, uint32_t n)
{
	if (l == NULL || macs == NULL || n == 0)
		return rt_errc(-EINVAL, "bench: rte_lpm next hops need an rte_lpm and 1..2^32-1 MAC addresses");
	uint8_t(*m)[8] = calloc(n, sizeof(*m));
	if (m == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	for (uint32_t h = 0; h < n; h++)
		memcpy(m[h], macs + 6 * (size_t)h, 6);
	free(l->nhop_mac);
	l->nhop_mac = m;
	l->n_nhops = n;
	return 0;
}

/* Each packet's big-endian IPv4 key into host order in @p ip, then one bulk lookup into @p hop
 * (the caller's arrays of @p n: a function with arrays of variable size is not inlined). */
static inline void rte_lpm_keys_lookup(const struct p4dp_bench_rte_lpm *l, struct rte_mbuf **m, uint16_t n,
				       uint32_t key_offset, uint32_t *ip, uint32_t *hop)
{
	for (uint16_t j = 0; j < n; j++) {
		uint32_t v;
		memcpy(&v, rte_pktmbuf_mtod(m[j], const uint8_t *) + key_offset, 4);
		ip[j] = rte_be_to_cpu_32(v);
	}
	rte_lpm_lookup_bulk(l->lpm, ip, hop, n);
}

/* The burst: the keys' bulk lookup (rte_lpm_keys_lookup), the hits counted. */
static uint32_t rte_lpm_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	const struct p4dp_bench_rte_lpm *l = arg;
	uint32_t ip[RTE_MAX(n, 1)], hop[RTE_MAX(n, 1)];
	rte_lpm_keys_lookup(l, m, n, key_offset, ip, hop);
	uint32_t hits = 0;
	uint64_t s = 0;
	for (uint16_t j = 0; j < n; j++) {
		if (hop[j] & RTE_LPM_LOOKUP_SUCCESS) {
			hits++;
			s += hop[j] & 0xffffff;
		}
	}
	*sink += s;
	return hits;
}

int p4dp_bench_rte_lpm_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm *l, struct p4dp_bench_result *res)
{
	if (l == NULL)
		return rt_errc(-EINVAL, "bench: NULL rte_lpm");
	return p4dp_bench_measure_fn(b, rte_lpm_burst, l, res);
}

/* The router's burst: rte_lpm_burst's keys and bulk lookup, then each packet that found a route
 * gets its next hop's MAC address as its Ethernet destination (a write of its first cache line,
 * as l3_lpm.p4's set_nhop). The packets stay on the bench port: the next hop's port is not used. */
static uint32_t rte_lpm_route_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	const struct p4dp_bench_rte_lpm *l = arg;
	uint32_t ip[RTE_MAX(n, 1)], hop[RTE_MAX(n, 1)];
	rte_lpm_keys_lookup(l, m, n, key_offset, ip, hop);
	uint32_t hits = 0;
	for (uint16_t j = 0; j < n; j++) {
		if (hop[j] & RTE_LPM_LOOKUP_SUCCESS) {
			hits++;
			memcpy(rte_pktmbuf_mtod(m[j], uint8_t *), l->nhop_mac[(hop[j] & 0xffffff) % l->n_nhops], 6);
		}
	}
	*sink += hits;
	return hits;
}

int p4dp_bench_rte_lpm_route_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm *l,
				     struct p4dp_bench_result *res)
{
	if (l == NULL || l->nhop_mac == NULL)
		return rt_errc(-EINVAL, "bench: rte_lpm without next hops (p4dp_bench_rte_lpm_next_hops)");
	return p4dp_bench_measure_fn(b, rte_lpm_route_burst, l, res);
}

/* ------------------------------------------------------------ IPv6 */

struct p4dp_bench_rte_lpm6 {
	struct rte_lpm6 *lpm;
};

/* Prefix @p i of a list: checks its length against @p max_len and that no bit beyond it is set. */
static int prefix6_check(const uint8_t *a, uint8_t len, uint32_t max_len, uint64_t i)
{
	if (len > max_len)
		return rt_errc(-EINVAL, "bench: prefix %" PRIu64 " has length %u; at most %u", i, len, max_len);
	for (uint32_t b = len; b < 128; b++)
		if (a[b / 8] & (0x80u >> (b % 8)))
			return rt_errc(-EINVAL, "bench: prefix %" PRIu64 " has bits set beyond its length /%u", i, len);
	return 0;
}

int p4dp_bench_rte_lpm6_create(const uint8_t *addr, const uint8_t *lens, uint64_t n, uint32_t tbl8s, int socket_id,
			       struct p4dp_bench_rte_lpm6 **out)
{
	static uint32_t seq;
	if (addr == NULL || lens == NULL || out == NULL || n == 0 || n > P4DP_BENCH_LPM6_MAX)
		return rt_errc(-EINVAL, "bench: rte_lpm6 needs 1..%u prefixes", P4DP_BENCH_LPM6_MAX);
	for (uint64_t i = 0; i < n; i++) {
		if (lens[i] < 1)
			return rt_errc(-EINVAL, "bench: prefix %" PRIu64 " has length 0; rte_lpm6 takes /1../128", i);
		int rc = prefix6_check(addr + 16 * i, lens[i], 128, i);
		if (rc != 0)
			return rc;
	}
	struct p4dp_bench_rte_lpm6 *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	char name[RTE_LPM6_NAMESIZE];
	/* relaxed: only uniqueness of the number matters */
	snprintf(name, sizeof(name), "p4dp_bl6_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	struct rte_lpm6_config cfg = {.max_rules = (uint32_t)n, .number_tbl8s = tbl8s, .flags = 0};
	l->lpm = rte_lpm6_create(name, socket_id, &cfg);
	if (l->lpm == NULL) {
		int e = rte_errno;
		free(l);
		return rt_errc(e == ENOMEM ? -ENOMEM : -EINVAL, "bench: rte_lpm6_create of %" PRIu64 " rules, %u tbl8s: %s",
			       n, tbl8s, rte_strerror(e));
	}
	for (uint64_t i = 0; i < n; i++) {
		uint8_t ip[RTE_LPM6_IPV6_ADDR_SIZE];
		memcpy(ip, addr + 16 * i, sizeof(ip));
		int rc = rte_lpm6_add(l->lpm, ip, lens[i], (uint32_t)i);
		if (rc < 0) {
			p4dp_bench_rte_lpm6_free(l);
			return rt_errc(rc, "bench: rte_lpm6_add of prefix %" PRIu64 " (/%u): %s", i, lens[i],
				       rte_strerror(-rc));
		}
	}
	*out = l;
	return 0;
}

void p4dp_bench_rte_lpm6_free(struct p4dp_bench_rte_lpm6 *l)
{
	if (l == NULL)
		return;
	rte_lpm6_free(l->lpm);
	free(l);
}

/* The burst: each packet's 16-byte address copied out, one bulk lookup. */
static uint32_t rte_lpm6_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	const struct p4dp_bench_rte_lpm6 *l = arg;
	uint8_t ip[RTE_MAX(n, 1)][RTE_LPM6_IPV6_ADDR_SIZE];
	int32_t hop[RTE_MAX(n, 1)];
	for (uint16_t j = 0; j < n; j++)
		memcpy(ip[j], rte_pktmbuf_mtod(m[j], const uint8_t *) + key_offset, RTE_LPM6_IPV6_ADDR_SIZE);
	rte_lpm6_lookup_bulk_func(l->lpm, ip, hop, n);
	uint32_t hits = 0;
	uint64_t s = 0;
	for (uint16_t j = 0; j < n; j++) {
		if (hop[j] >= 0) {
			hits++;
			s += (uint32_t)hop[j];
		}
	}
	*sink += s;
	return hits;
}

int p4dp_bench_rte_lpm6_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm6 *l, struct p4dp_bench_result *res)
{
	if (l == NULL)
		return rt_errc(-EINVAL, "bench: NULL rte_lpm6");
	return p4dp_bench_measure_fn(b, rte_lpm6_burst, l, res);
}

/* A table of one 128-bit key field (exact or lpm) and where the field sits in its key. */
struct table128 {
	struct p4dp_table *t;
	const struct p4dp_table_info *ti;
	uint32_t off;
};

static int table128_get(struct p4dp_runtime *rt, uint32_t table, struct table128 *out)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "bench: NULL runtime");
	if (table >= rt->prog->n_tables)
		return rt_errc(-EINVAL, "bench: no table %u", table);
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	const struct p4dp_key_info *k = &ti->keys[0];
	if (ti->n_keys != 1 || (k->match_kind != P4DP_MATCH_EXACT && k->match_kind != P4DP_MATCH_LPM) ||
	    k->bitwidth != 128 || k->size != 16 || (uint32_t)k->offset + 16 > ti->key_len || ti->key_len > 64)
		return rt_errc(-EINVAL, "bench: table %s must have one exact or lpm key field of 128 bits", ti->name);
	*out = (struct table128){.t = rt->tables[table], .ti = ti, .off = k->offset};
	return 0;
}

/* A big-endian 128-bit value into the table's native key (little-endian field, rest zero). */
static void key128_native(const struct table128 *tb, const uint8_t *be, uint8_t *key)
{
	memset(key, 0, tb->ti->key_len);
	for (uint32_t i = 0; i < 16; i++)
		key[tb->off + i] = be[15 - i];
}

int64_t p4dp_bench_table_fill_list128(struct p4dp_runtime *rt, uint32_t table, const uint8_t *keys,
				      const uint8_t *lens, uint64_t n, uint32_t action, uint32_t n_params,
				      const struct p4dp_rt_param *params)
{
	struct table128 tb;
	int rc = table128_get(rt, table, &tb);
	if (rc != 0)
		return rc;
	if (n > 0 && keys == NULL)
		return rt_errc(-EINVAL, "bench: NULL keys");
	const struct p4dp_key_info *k = &tb.ti->keys[0];
	if (lens != NULL && k->match_kind != P4DP_MATCH_LPM)
		return rt_errc(-EINVAL, "bench: prefix lengths for exact table %s", tb.ti->name);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t plen = lens ? lens[i] : 128;
		rc = prefix6_check(keys + 16 * i, (uint8_t)plen, 128, i);
		if (rc != 0)
			return rc;
		struct p4dp_rt_key key = {.type = k->match_kind, .prefix_len = plen, .value = keys + 16 * i, .value_len = 16};
		struct p4dp_rt_entry e = {
			.n_keys = 1, .keys = &key, .priority = 0, .action = action, .n_params = n_params, .params = params};
		rc = p4dp_runtime_table_entry_add(rt, table, &e);
		if (rc < 0)
			return rc;
	}
	return (int64_t)n;
}

#define TABLE128_CHUNK 32u

/* The burst: each packet's address into the table's native key, one p4dp_table_lookup_bulk per
 * TABLE128_CHUNK packets (the bench's bursts are that long). */
static uint32_t table128_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	const struct table128 *tb = arg;
	uint8_t key[TABLE128_CHUNK][64] __attribute__((aligned(16)));
	const void *kp[TABLE128_CHUNK];
	const struct p4dp_entry *e[TABLE128_CHUNK] = {NULL};
	uint32_t hits = 0;
	uint64_t s = 0;
	for (uint16_t base = 0; base < n; base += TABLE128_CHUNK) {
		uint16_t c = (uint16_t)RTE_MIN((uint32_t)(n - base), TABLE128_CHUNK);
		for (uint16_t j = 0; j < c; j++) {
			key128_native(tb, rte_pktmbuf_mtod(m[base + j], const uint8_t *) + key_offset, key[j]);
			kp[j] = key[j];
		}
		p4dp_table_lookup_bulk(tb->t, kp, c, e);
		for (uint16_t j = 0; j < c; j++) {
			if (e[j] != NULL) {
				hits++;
				s += e[j]->action; /* read the entry, as a program does */
			}
		}
	}
	*sink += s;
	return hits;
}

int p4dp_bench_table128_measure(struct p4dp_bench *b, struct p4dp_runtime *rt, uint32_t table,
				struct p4dp_bench_result *res)
{
	struct table128 tb;
	int rc = table128_get(rt, table, &tb);
	return rc != 0 ? rc : p4dp_bench_measure_fn(b, table128_burst, &tb, res);
}

int p4dp_bench_lpm6_agree(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_bench_rte_lpm6 *l,
			  const uint8_t *addr, const uint8_t *lens, uint64_t n_prefixes, const uint8_t *dst,
			  uint64_t n_dst)
{
	struct table128 tb;
	int rc = table128_get(rt, table, &tb);
	if (rc != 0)
		return rc;
	if (l == NULL || addr == NULL || lens == NULL || (n_dst > 0 && dst == NULL))
		return rt_errc(-EINVAL, "bench: NULL argument");
	uint8_t key[64], mask[64], data[256];
	const uint32_t data_len = p4dp_table_data_len(tb.t);
	if (data_len > sizeof(data))
		return rt_errc(-EINVAL, "bench: action data of %u bytes (at most %zu)", data_len, sizeof(data));
	for (uint64_t i = 0; i < n_dst; i++) {
		const uint8_t *d = dst + 16 * i;
		uint8_t ip[RTE_LPM6_IPV6_ADDR_SIZE];
		memcpy(ip, d, sizeof(ip));
		uint32_t hop;
		if (rte_lpm6_lookup(l->lpm, ip, &hop) != 0)
			return rt_errc(-EPROTO, "bench: destination %" PRIu64 ": rte_lpm6 finds no prefix", i);
		if (hop >= n_prefixes)
			return rt_errc(-EPROTO, "bench: destination %" PRIu64 ": rte_lpm6 returned next hop %u of %" PRIu64
				       " prefixes", i, hop, n_prefixes);
		key128_native(&tb, d, key);
		const struct p4dp_entry *e = p4dp_table_lookup(tb.t, key);
		if (e == NULL)
			return rt_errc(-EPROTO, "bench: destination %" PRIu64 ": p4dp's table misses, rte_lpm6 finds prefix %u (/%u)",
				       i, hop, lens[hop]);
		/* p4dp's longest match is rte_lpm6's prefix when that prefix is installed, no longer
		 * prefix of the destination is, and the lookup answers with that prefix's action and
		 * data. (The entry the lookup returns cannot name the prefix itself: a table with
		 * shared answers returns one answer for every prefix of the same action and data.) */
		uint8_t pm[16] = {0}, pv[16];
		for (uint32_t b = 0; b < lens[hop]; b++)
			pm[b / 8] = (uint8_t)(pm[b / 8] | 0x80u >> (b % 8));
		key128_native(&tb, addr + 16 * (uint64_t)hop, key);
		key128_native(&tb, pm, mask);
		struct p4dp_match mt = {.value = key, .mask = mask, .hi = NULL, .priority = 0};
		uint32_t action;
		rc = p4dp_table_entry_get(tb.t, &mt, &action, data, NULL);
		if (rc != 0)
			return rt_errc(rc, "bench: prefix %u (/%u) is not in p4dp's table", hop, lens[hop]);
		if (e->action != action || memcmp(e->data, data, data_len) != 0)
			return rt_errc(-EPROTO, "bench: destination %" PRIu64 ": p4dp's lookup answers other than rte_lpm6's "
				       "prefix %u /%u", i, hop, lens[hop]);
		for (uint32_t len = lens[hop] + 1u; len <= 128; len++) {
			pm[(len - 1) / 8] = (uint8_t)(pm[(len - 1) / 8] | 0x80u >> ((len - 1) % 8));
			for (uint32_t b = 0; b < 16; b++)
				pv[b] = d[b] & pm[b];
			key128_native(&tb, pv, key);
			key128_native(&tb, pm, mask);
			rc = p4dp_table_entry_get(tb.t, &mt, NULL, NULL, NULL);
			if (rc == 0)
				return rt_errc(-EPROTO, "bench: destination %" PRIu64 ": p4dp's table holds a /%u prefix of it, "
					       "longer than rte_lpm6's prefix %u /%u", i, len, hop, lens[hop]);
			if (rc != -ENOENT)
				return rt_errc(rc, "bench: destination %" PRIu64 ": finding its /%u prefix", i, len);
		}
	}
	return 0;
}

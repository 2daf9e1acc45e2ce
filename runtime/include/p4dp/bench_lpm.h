/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_lpm.h
 * The baselines of the longest-prefix-match benchmarks (`p4dp bench --suite lpm` and
 * `--suite lpm6`): DPDK's rte_lpm (DIR-24-8) holding the same IPv4 prefixes as the program's
 * table, looked up with rte_lpm_lookup_bulk() once per burst on the packets' destination
 * addresses, inside the bench's floor loop (p4dp_bench_measure_fn, bench.h); for IPv6 the same
 * with rte_lpm6 and rte_lpm6_lookup_bulk_func(). The IPv4 table the program uses is filled with
 * p4dp_bench_table_fill_list, a 128-bit one with p4dp_bench_table_fill_list128.
 * Context: control thread on the EAL main lcore, with no measurement running.
 */
#ifndef P4DP_BENCH_LPM_H
#define P4DP_BENCH_LPM_H

#include <stdint.h>

#include "p4dp/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p4dp_bench_rte_lpm;
struct p4dp_bench_rte_lpm6;
struct p4dp_runtime;
struct p4dp_rt_param;

/** Most prefixes of an rte_lpm6 baseline (its next hops are 21 bits). */
#define P4DP_BENCH_LPM6_MAX (1u << 21)

/**
 * Build an rte_lpm of @p n IPv4 prefixes: @p addr[i] (host byte order, bits beyond the prefix
 * zero) / @p lens[i] (1..32; rte_lpm has no /0), next hop i mod 2^24, on NUMA socket
 * @p socket_id. Sized for the set: n rules, one tbl8 group per prefix longer than /24.
 * @return 0; -EINVAL (n == 0, a length outside 1..32, message says which); -ENOMEM or rte_lpm's
 *         error (rte_lpm_create / rte_lpm_add), with a message in p4dp_runtime_error_get().
 */
int p4dp_bench_rte_lpm_create(const uint32_t *addr, const uint8_t *lens, uint64_t n, int socket_id,
			      struct p4dp_bench_rte_lpm **out);

/**
 * Measure the floor plus one rte_lpm_lookup_bulk() per burst of the packets' 4-byte keys
 * (big-endian IPv4 addresses at the bench's key_offset); a lookup that finds a prefix is a hit.
 * Same blocking and return values as p4dp_bench_measure (bench.h).
 */
int p4dp_bench_rte_lpm_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm *l, struct p4dp_bench_result *res);

/**
 * Give rte_lpm @p l the next hops of a router: next hop h (its rte_lpm next hop, the prefix's
 * index) has the MAC address @p macs[6 * (h mod n) ..] (6 bytes each, copied).
 * @return 0; -EINVAL (NULL argument, n == 0); -ENOMEM. State unchanged on error.
 */
int p4dp_bench_rte_lpm_next_hops(struct p4dp_bench_rte_lpm *l, const uint8_t *macs, uint32_t n);

/**
 * Measure a router on the floor: per burst the packets' 4-byte keys at the bench's key offset
 * looked up with one rte_lpm_lookup_bulk(), as p4dp_bench_rte_lpm_measure(), then each routed
 * packet's Ethernet destination set to its next hop's MAC address (p4dp_bench_rte_lpm_next_hops,
 * which must have been called). Hits and misses are the lookups'.
 * @return 0 or a negative errno (-EINVAL without next hops), as p4dp_bench_measure().
 */
int p4dp_bench_rte_lpm_route_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm *l,
				     struct p4dp_bench_result *res);

/** Free the rte_lpm. NULL is a no-op. */
void p4dp_bench_rte_lpm_free(struct p4dp_bench_rte_lpm *l);

/**
 * Build an rte_lpm6 of @p n IPv6 prefixes: the 16 big-endian bytes @p addr[16*i..] (bits beyond
 * the prefix zero) / @p lens[i] (1..128), next hop i, with @p tbl8s tbl8 groups (rte_lpm6 needs
 * one per distinct 8-bit step a prefix takes below its first 24 bits), on NUMA socket
 * @p socket_id.
 * @return 0; -EINVAL (n outside 1..P4DP_BENCH_LPM6_MAX, a bad length or prefix, message says
 *         which); -ENOMEM or rte_lpm6's error (rte_lpm6_create / rte_lpm6_add, e.g. -ENOSPC when
 *         tbl8s is too small), with a message in p4dp_runtime_error_get().
 */
int p4dp_bench_rte_lpm6_create(const uint8_t *addr, const uint8_t *lens, uint64_t n, uint32_t tbl8s, int socket_id,
			       struct p4dp_bench_rte_lpm6 **out);

/**
 * Measure the floor plus one rte_lpm6_lookup_bulk_func() per burst of the packets' 16-byte keys
 * (IPv6 addresses at the bench's key_offset; the bench writes the top key_bytes of them, the rest
 * comes from the template); a lookup that finds a prefix is a hit. Same blocking and return
 * values as p4dp_bench_measure (bench.h).
 */
int p4dp_bench_rte_lpm6_measure(struct p4dp_bench *b, struct p4dp_bench_rte_lpm6 *l, struct p4dp_bench_result *res);

/** Free the rte_lpm6. NULL is a no-op. */
void p4dp_bench_rte_lpm6_free(struct p4dp_bench_rte_lpm6 *l);

/**
 * Install one entry per key in table @p table of @p rt (one exact or lpm key field of 128 bits):
 * the 16 big-endian bytes @p keys[16*i..], for an lpm field prefix length @p lens[i] (NULL: /128;
 * bits beyond it zero), each running @p action with @p params.
 * @return the number installed; -EINVAL (bad table or key, message says which) or the error of
 *         p4dp_runtime_table_entry_add (entries before it stay installed).
 */
int64_t p4dp_bench_table_fill_list128(struct p4dp_runtime *rt, uint32_t table, const uint8_t *keys,
				      const uint8_t *lens, uint64_t n, uint32_t action, uint32_t n_params,
				      const struct p4dp_rt_param *params);

/**
 * Measure the floor plus one p4dp_table_lookup_bulk() per burst on table @p table of @p rt (one
 * 128-bit key field), the keys being the packets' 16 bytes at the bench's key_offset in the
 * table's native layout; a lookup that finds an entry is a hit. The runtime must be the bench's.
 * Same blocking and return values as p4dp_bench_measure (bench.h).
 */
int p4dp_bench_table128_measure(struct p4dp_bench *b, struct p4dp_runtime *rt, uint32_t table,
				struct p4dp_bench_result *res);

/**
 * Check that lpm table @p table of @p rt (one 128-bit lpm field, filled with the @p n_prefixes
 * prefixes @p addr / @p lens) and rte_lpm6 @p l (built from the same list) choose the same prefix
 * for each of the @p n_dst destinations @p dst (16 big-endian bytes each).
 * @return 0; -EPROTO at the first destination where one misses or they disagree, -EINVAL on bad
 *         arguments, with a message in p4dp_runtime_error_get().
 */
int p4dp_bench_lpm6_agree(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_bench_rte_lpm6 *l,
			  const uint8_t *addr, const uint8_t *lens, uint64_t n_prefixes, const uint8_t *dst,
			  uint64_t n_dst);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_LPM_H */

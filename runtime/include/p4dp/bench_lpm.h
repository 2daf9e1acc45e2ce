/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_lpm.h
 * The baseline of the longest-prefix-match benchmark (`p4dp bench --suite lpm`): DPDK's rte_lpm
 * (DIR-24-8) holding the same IPv4 prefixes as the program's table, looked up with
 * rte_lpm_lookup_bulk() once per burst on the packets' destination addresses, inside the bench's
 * floor loop (p4dp_bench_measure_fn, bench.h). The table the program uses is filled with
 * p4dp_bench_table_fill_list.
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

/** Free the rte_lpm. NULL is a no-op. */
void p4dp_bench_rte_lpm_free(struct p4dp_bench_rte_lpm *l);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_LPM_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_acl.h
 * The baseline of the ACL benchmark (`p4dp bench --suite table-kinds`, ternary and range tables):
 * DPDK's rte_acl holding the same 5-tuple rules as the program's table, classifying each burst's
 * packets with rte_acl_classify() inside the bench's floor loop (p4dp_bench_measure_fn, bench.h).
 * The packets' 5-tuple sits where the generated programs parse it: the IPv4 protocol at byte
 * 23, source and destination addresses at 26 and 30, the L4 ports at 34 and 36 (network order).
 * Context: control thread on the EAL main lcore, with no measurement running.
 */
#ifndef P4DP_BENCH_ACL_H
#define P4DP_BENCH_ACL_H

#include <stdint.h>

#include "p4dp/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One 5-tuple rule, values in host byte order. Addresses are prefixes (length 0..32), the
 *  protocol a value under a bit mask, the ports inclusive ranges. The highest priority of the
 *  rules a packet matches wins (1..2^29-1, as rte_acl takes). */
struct p4dp_bench_acl_rule {
	uint32_t src, dst;
	uint8_t src_len, dst_len;
	uint8_t proto, proto_mask;
	uint16_t sport_lo, sport_hi;
	uint16_t dport_lo, dport_hi;
	int32_t priority;
};

struct p4dp_bench_rte_acl;

/**
 * Build an rte_acl context of the @p n rules @p r (one category) on NUMA socket @p socket_id, and
 * measure the build: *@p build_ns is the wall time of adding the rules and rte_acl_build(), what
 * rte_acl needs to change one rule (it has no incremental update).
 * @return 0; -EINVAL (n == 0, a bad length, range or priority; the message says which); -ENOMEM
 *         or rte_acl's error, with a message in p4dp_runtime_error_get().
 */
int p4dp_bench_rte_acl_create(const struct p4dp_bench_acl_rule *r, uint32_t n, int socket_id,
			      struct p4dp_bench_rte_acl **out, uint64_t *build_ns);

/**
 * Measure the floor plus one rte_acl_classify() per burst of the packets' 5-tuples; a packet
 * that matches a rule is a hit. Same blocking and return values as p4dp_bench_measure (bench.h).
 */
int p4dp_bench_rte_acl_measure(struct p4dp_bench *b, struct p4dp_bench_rte_acl *a, struct p4dp_bench_result *res);

/** Free the context. NULL is a no-op. */
void p4dp_bench_rte_acl_free(struct p4dp_bench_rte_acl *a);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_ACL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rte_lpm baseline of the longest-prefix-match benchmark (bench_lpm.h): an rte_lpm of the
 * prefix set, and the per-burst function that bench.c's floor loop runs on it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "p4dp/bench_lpm.h"
#include "rt_internal.h"

struct p4dp_bench_rte_lpm {
	struct rte_lpm *lpm;
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
	free(l);
}

/* The burst: each packet's big-endian IPv4 key into host order, one bulk lookup. */
static uint32_t rte_lpm_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	const struct p4dp_bench_rte_lpm *l = arg;
	uint32_t ip[RTE_MAX(n, 1)], hop[RTE_MAX(n, 1)];
	for (uint16_t j = 0; j < n; j++) {
		uint32_t v;
		memcpy(&v, rte_pktmbuf_mtod(m[j], const uint8_t *) + key_offset, 4);
		ip[j] = rte_be_to_cpu_32(v);
	}
	rte_lpm_lookup_bulk(l->lpm, ip, hop, n);
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

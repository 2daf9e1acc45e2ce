/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rte_acl baseline of the ACL benchmark (bench_acl.h): an rte_acl context of the rule set,
 * and the per-burst function that bench.c's floor loop runs on it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "p4dp/bench_acl.h"
#include "rt_internal.h"

/* Where the classified bytes start in a packet (the IPv4 protocol), and the fields' offsets from
 * there. rte_acl wants a 1-byte first field; the others are read in 4-byte groups
 * (input_index), the two ports together in one. */
#define ACL_DATA_OFF 23u
enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, N_FIELDS };

RTE_ACL_RULE_DEF(acl5_rule, N_FIELDS);

struct p4dp_bench_rte_acl {
	struct rte_acl_ctx *ctx;
};

static const struct rte_acl_field_def acl5_defs[N_FIELDS] = {
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1, .field_index = F_PROTO, .input_index = 0, .offset = 0 },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = F_SRC, .input_index = 1, .offset = 3 },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = F_DST, .input_index = 2, .offset = 7 },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = F_SPORT, .input_index = 3, .offset = 11 },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = F_DPORT, .input_index = 3, .offset = 13 },
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int p4dp_bench_rte_acl_create(const struct p4dp_bench_acl_rule *r, uint32_t n, int socket_id,
			      struct p4dp_bench_rte_acl **out, uint64_t *build_ns)
{
	static uint32_t seq;
	if (r == NULL || out == NULL || build_ns == NULL || n == 0)
		return rt_errc(-EINVAL, "bench: rte_acl needs 1 or more rules");
	struct acl5_rule *rules = calloc(n, sizeof(*rules));
	if (rules == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const struct p4dp_bench_acl_rule *x = &r[i];
		if (x->src_len > 32 || x->dst_len > 32 || x->sport_lo > x->sport_hi || x->dport_lo > x->dport_hi ||
		    x->priority < RTE_ACL_MIN_PRIORITY || x->priority > RTE_ACL_MAX_PRIORITY) {
			free(rules);
			return rt_errc(-EINVAL, "bench: rte_acl rule %u: bad prefix length, port range or priority %d", i,
				       x->priority);
		}
		struct acl5_rule *a = &rules[i];
		a->data.category_mask = 1;
		a->data.priority = x->priority;
		a->data.userdata = i + 1; /* 0 means no match */
		a->field[F_PROTO].value.u8 = x->proto;
		a->field[F_PROTO].mask_range.u8 = x->proto_mask;
		a->field[F_SRC].value.u32 = x->src;
		a->field[F_SRC].mask_range.u32 = x->src_len;
		a->field[F_DST].value.u32 = x->dst;
		a->field[F_DST].mask_range.u32 = x->dst_len;
		a->field[F_SPORT].value.u16 = x->sport_lo;
		a->field[F_SPORT].mask_range.u16 = x->sport_hi;
		a->field[F_DPORT].value.u16 = x->dport_lo;
		a->field[F_DPORT].mask_range.u16 = x->dport_hi;
	}
	struct p4dp_bench_rte_acl *l = calloc(1, sizeof(*l));
	if (l == NULL) {
		free(rules);
		return rt_errc(-ENOMEM, "out of memory");
	}
	char name[RTE_ACL_NAMESIZE];
	/* relaxed: only uniqueness of the number matters */
	snprintf(name, sizeof(name), "p4dp_ba%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	struct rte_acl_param prm = {
		.name = name, .socket_id = socket_id, .rule_size = RTE_ACL_RULE_SZ(N_FIELDS), .max_rule_num = n,
	};
	uint64_t t0 = mono_ns();
	l->ctx = rte_acl_create(&prm);
	if (l->ctx == NULL) {
		int e = rte_errno;
		free(rules);
		free(l);
		return rt_errc(e == ENOMEM ? -ENOMEM : -EINVAL, "bench: rte_acl_create of %u rules: %s", n,
			       rte_strerror(e));
	}
	int rc = rte_acl_add_rules(l->ctx, (const struct rte_acl_rule *)rules, n);
	free(rules);
	if (rc == 0) {
		struct rte_acl_config cfg = { .num_categories = 1, .num_fields = N_FIELDS };
		memcpy(cfg.defs, acl5_defs, sizeof(acl5_defs));
		rc = rte_acl_build(l->ctx, &cfg);
	}
	*build_ns = mono_ns() - t0;
	if (rc != 0) {
		p4dp_bench_rte_acl_free(l);
		return rt_errc(rc < 0 ? rc : -EINVAL, "bench: building the rte_acl context of %u rules: %s", n,
			       rte_strerror(rc < 0 ? -rc : rc));
	}
	*out = l;
	return 0;
}

void p4dp_bench_rte_acl_free(struct p4dp_bench_rte_acl *a)
{
	if (a == NULL)
		return;
	rte_acl_free(a->ctx);
	free(a);
}

/* The burst: one classification of every packet's 5-tuple. */
static uint32_t rte_acl_burst(void *arg, struct rte_mbuf **m, uint16_t n, uint32_t key_offset, uint64_t *sink)
{
	(void)key_offset; /* the 5-tuple's place is fixed (bench_acl.h) */
	const struct p4dp_bench_rte_acl *a = arg;
	const uint8_t *data[RTE_MAX(n, 1)];
	uint32_t res[RTE_MAX(n, 1)];
	for (uint16_t j = 0; j < n; j++)
		data[j] = rte_pktmbuf_mtod(m[j], const uint8_t *) + ACL_DATA_OFF;
	rte_acl_classify(a->ctx, data, res, n, 1);
	uint32_t hits = 0;
	uint64_t s = 0;
	for (uint16_t j = 0; j < n; j++) {
		hits += res[j] != 0;
		s += res[j];
	}
	*sink += s;
	return hits;
}

int p4dp_bench_rte_acl_measure(struct p4dp_bench *b, struct p4dp_bench_rte_acl *a, struct p4dp_bench_result *res)
{
	if (a == NULL)
		return rt_errc(-EINVAL, "bench: NULL rte_acl context");
	return p4dp_bench_measure_fn(b, rte_acl_burst, a, res);
}

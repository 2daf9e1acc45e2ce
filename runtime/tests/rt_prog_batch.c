/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" for test_batch.c: two tables that a consistent control plane
 * always writes together. Packet bytes: [0] 8-bit key, [2..5] flow id (the dispatch flow key).
 * `tag` (exact on [0]) sets a 32-bit tag; `expect` (exact on [0], direct counter) holds the tag
 * the same batch wrote. `checks` cell 0: a miss or a default action in either table; cell 1: the
 * two tables disagree (a half-applied batch); cell 2: they agree. Every packet is dropped.
 */
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"

enum { A_NOP, A_TAG, A_EXPECT };
enum { T_TAG, T_EXPECT };
enum { X_CHECKS, X_EXPECT_HITS };

static const struct p4dp_param_info p_v[] = { { "v", 1, 32, 0, 4 } };
static const struct p4dp_action_info actions[] = {
	{ "ingress.nop", 1, 0, NULL, 0 },
	{ "ingress.tag", 2, 1, p_v, 4 },
	{ "ingress.expect", 3, 1, p_v, 4 },
};
static const struct p4dp_key_info k8[] = { { "hdr.k", 1, P4DP_MATCH_EXACT, 0, 1, 8 } };
static const uint32_t a_tag[] = { A_TAG, A_NOP };
static const uint32_t a_expect[] = { A_EXPECT, A_NOP };
static const struct p4dp_table_info tables[] = {
	[T_TAG] = { "ingress.tag_t", 11, 0, 1, 1, k8, 2, a_tag, NULL, A_NOP, NULL, 0, NULL, 64, 4, -1, -1, 0 },
	[T_EXPECT] = { "ingress.expect_t", 12, 0, 1, 1, k8, 2, a_expect, NULL, A_NOP, NULL, 0, NULL, 64, 4,
		       X_EXPECT_HITS, -1, 0 },
};
static const struct p4dp_extern_info externs[] = {
	[X_CHECKS] = { "ingress.checks", 21, P4DP_EXT_COUNTER, P4DP_UNIT_PACKETS, 4, 0, 0, -1, 0 },
	[X_EXPECT_HITS] = { "ingress.expect_hits", 22, P4DP_EXT_DIRECT_COUNTER, P4DP_UNIT_PACKETS, 64, 0, 0, T_EXPECT, 0 },
};

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	int hit_a, hit_b;
	uint8_t key[1];
	pkt->out_port = P4DP_PORT_DROP;
	if (pkt->len < 8)
		return;
	key[0] = pkt->data[0];
	const struct p4dp_entry *a = p4dp_table_apply(ctx, T_TAG, key, &hit_a);
	uint32_t tag = 0, want = 0;
	memcpy(&tag, a->data, 4);
	const struct p4dp_entry *b = p4dp_table_apply(ctx, T_EXPECT, key, &hit_b);
	memcpy(&want, b->data, 4);
	if (hit_b)
		p4dp_counter_count(ctx, X_EXPECT_HITS, b->index, 64, pkt->len);
	uint32_t cell = !hit_a || !hit_b || a->action != A_TAG || b->action != A_EXPECT ? 0 : tag != want ? 1 : 2;
	p4dp_counter_count(ctx, X_CHECKS, cell, pkt->len, 0);
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "batch",
	.arch = "pna",
	.n_tables = 2,
	.tables = tables,
	.n_actions = 3,
	.actions = actions,
	.n_externs = 2,
	.externs = externs,
	.process = process,
};

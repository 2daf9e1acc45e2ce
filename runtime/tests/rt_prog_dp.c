/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" (abi.h version 2) exercising data-plane table writes, used by
 * test_dpwrite.c. Packet bytes: [0] command, [1] 8-bit key, [2..5] 32-bit flow id (little-endian,
 * also the dispatch flow key), [6..7] 16-bit key (little-endian). Every packet is dropped.
 * Commands:
 *  0  shared: apply `shared` (@entry_lock) with key [1]; hit: lock, c += 1, unlock.
 *  1  flows: apply `flows` (no lock) with the flow id; hit: c += 1 (@__ref); miss: add_entry with
 *     c = 1 (add-on-miss); outcomes counted in `outcomes`.
 *  2  aom: apply `aom` (add-on-miss, idle timeout with auto delete, 256 entries) with key [6..7];
 *     hit: touch; miss: add_entry(profile 1); outcomes in `outcomes`.
 *  3  mod: apply `mod` with key [1]; `checks` cell 0 = default action taken, 1 = torn (a != b),
 *     2 = consistent hit.
 *  4  idle: apply `idle` (idle timeout with notifications, control-plane entries) with key [1];
 *     hit: touch.
 * `outcomes` cells: 0 ok, 1 -EEXIST, 2 -ENOSPC, 3 other.
 * process_burst runs command 2 as generated code does for a staged add-on-miss table (cgen
 * burst.rs): the burst's `aom` keys are looked up in bulk after loading the table's insert
 * generation, and a miss is inserted with p4dp_table_dp_add_seen (no existence check while the
 * generation is unchanged); an insert marks the later packets of the burst with the same key
 * stale, and those are run by process() (a fresh lookup, a checked insert). Other commands run
 * through process().
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"

enum { A_NOP, A_COUNT, A_PAIR };
enum { T_SHARED, T_FLOWS, T_AOM, T_MOD, T_IDLE };
enum { X_OUTCOMES, X_CHECKS };

static const struct p4dp_param_info p_count[] = { { "c", 1, 64, 0, 8 } };
static const struct p4dp_param_info p_pair[] = { { "a", 1, 64, 0, 8 }, { "b", 2, 64, 8, 8 } };
static const struct p4dp_action_info actions[] = {
	{ "ingress.nop", 1, 0, NULL, 0 },
	{ "ingress.count", 2, 1, p_count, 8 },
	{ "ingress.pair", 3, 2, p_pair, 16 },
};
static const struct p4dp_key_info k8[] = { { "hdr.k8", 1, P4DP_MATCH_EXACT, 0, 1, 8 } };
static const struct p4dp_key_info k32[] = { { "hdr.flow", 1, P4DP_MATCH_EXACT, 0, 4, 32 } };
static const struct p4dp_key_info k16[] = { { "hdr.k16", 1, P4DP_MATCH_EXACT, 0, 2, 16 } };
static const uint32_t a_count[] = { A_COUNT, A_NOP };
static const uint32_t a_pair[] = { A_PAIR, A_NOP };

static const struct p4dp_table_info tables[] = {
	[T_SHARED] = { "ingress.shared", 11, P4DP_TABLE_F_ENTRY_LOCK, 1, 1, k8, 2, a_count, NULL, A_NOP, NULL, 0,
		       NULL, 16, 8, -1, -1, 0 },
	[T_FLOWS] = { "ingress.flows", 12, P4DP_TABLE_F_ADD_ON_MISS, 4, 1, k32, 2, a_count, NULL, A_NOP, NULL, 0,
		      NULL, 4096, 8, -1, -1, 0 },
	[T_AOM] = { "ingress.aom", 13,
		    P4DP_TABLE_F_ADD_ON_MISS | P4DP_TABLE_F_IDLE_NOTIFY | P4DP_TABLE_F_IDLE_AUTO_DELETE, 2, 1, k16, 2,
		    a_count, NULL, A_NOP, NULL, 0, NULL, 256, 8, -1, -1, 0 },
	[T_MOD] = { "ingress.mod", 14, 0, 1, 1, k8, 2, a_pair, NULL, A_NOP, NULL, 0, NULL, 64, 16, -1, -1, 0 },
	[T_IDLE] = { "ingress.idle", 15, P4DP_TABLE_F_IDLE_NOTIFY, 1, 1, k8, 2, a_count, NULL, A_NOP, NULL, 0, NULL,
		     64, 8, -1, -1, 0 },
};
static const struct p4dp_extern_info externs[] = {
	[X_OUTCOMES] = { "ingress.outcomes", 21, P4DP_EXT_COUNTER, P4DP_UNIT_PACKETS, 4, 0, 0, -1, 0 },
	[X_CHECKS] = { "ingress.checks", 22, P4DP_EXT_COUNTER, P4DP_UNIT_PACKETS, 4, 0, 0, -1, 0 },
};

static void outcome(struct p4dp_ctx *ctx, int rc)
{
	uint32_t cell = rc == 0 ? 0 : rc == -EEXIST ? 1 : rc == -ENOSPC ? 2 : 3;
	p4dp_counter_count(ctx, X_OUTCOMES, cell, 4, 0);
}

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	const uint8_t *d = pkt->data;
	int hit;
	uint8_t key[4];
	const struct p4dp_entry *e;
	pkt->out_port = P4DP_PORT_DROP;
	if (pkt->len < 8)
		return;
	switch (d[0]) {
	case 0:
		key[0] = d[1];
		e = p4dp_table_apply(ctx, T_SHARED, key, &hit);
		p4dp_table_count(ctx, T_SHARED, hit);
		if (hit && e->action == A_COUNT) {
			int lk = p4dp_entry_lock(ctx, e);
			uint64_t *c = (uint64_t *)(uintptr_t)e->data; /* @__ref */
			*c += 1;
			p4dp_entry_unlock(e, lk);
		}
		break;
	case 1: {
		memcpy(key, d + 2, 4);
		e = p4dp_table_apply(ctx, T_FLOWS, key, &hit);
		p4dp_table_count(ctx, T_FLOWS, hit);
		if (hit && e->action == A_COUNT) {
			uint64_t *c = (uint64_t *)(uintptr_t)e->data; /* @__ref, flow-local: no lock */
			*c += 1;
		} else if (!hit) {
			uint64_t one = 1;
			outcome(ctx, p4dp_table_dp_add(ctx, T_FLOWS, key, A_COUNT, &one, 0));
		}
		break;
	}
	case 2: {
		memcpy(key, d + 6, 2);
		e = p4dp_table_apply(ctx, T_AOM, key, &hit);
		p4dp_table_count(ctx, T_AOM, hit);
		if (hit) {
			p4dp_entry_touch(ctx, e);
		} else {
			uint64_t zero = 0;
			outcome(ctx, p4dp_table_dp_add(ctx, T_AOM, key, A_COUNT, &zero, 1));
		}
		break;
	}
	case 3: {
		key[0] = d[1];
		e = p4dp_table_apply(ctx, T_MOD, key, &hit);
		p4dp_table_count(ctx, T_MOD, hit);
		uint64_t a, b;
		memcpy(&a, e->data, 8);
		memcpy(&b, e->data + 8, 8);
		uint32_t cell = !hit || e->action != A_PAIR ? 0 : a != b ? 1 : 2;
		p4dp_counter_count(ctx, X_CHECKS, cell, 4, 0);
		break;
	}
	case 4:
		key[0] = d[1];
		e = p4dp_table_apply(ctx, T_IDLE, key, &hit);
		p4dp_table_count(ctx, T_IDLE, hit);
		if (hit)
			p4dp_entry_touch(ctx, e);
		break;
	default:
		break;
	}
}

#define STALE ((const struct p4dp_entry *)(uintptr_t)1)

static void process_burst(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n)
{
	uint8_t keys[64][2];
	const void *kp[64];
	const struct p4dp_entry *e[64];
	uint32_t at[64], m = 0;
	for (uint32_t i = 0; i < n && m < 64; i++)
		if (pkts[i]->len >= 8 && pkts[i]->data[0] == 2) {
			memcpy(keys[m], pkts[i]->data + 6, 2);
			kp[m] = keys[m];
			at[m++] = i;
		}
	uint64_t gen = p4dp_table_dp_gen(ctx, T_AOM);
	if (m > 0) {
		p4dp_table_lookup_bulk(ctx->tables[T_AOM], kp, m, e);
		p4dp_table_prefetch_inserts(ctx->tables[T_AOM], kp, m, e); /* as generated code */
	}
	for (uint32_t i = 0, j = 0; i < n; i++) {
		struct p4dp_pkt *pkt = pkts[i];
		if (j == m || at[j] != i) {
			process(ctx, pkt); /* another command, or beyond the staged 64 */
			continue;
		}
		const struct p4dp_entry *se = e[j++];
		if (se == STALE) {
			process(ctx, pkt);
			continue;
		}
		pkt->out_port = P4DP_PORT_DROP;
		p4dp_table_count(ctx, T_AOM, se != NULL);
		if (se != NULL) {
			p4dp_entry_touch(ctx, se);
			continue;
		}
		uint64_t zero = 0;
		outcome(ctx, p4dp_table_dp_add_seen(ctx, T_AOM, keys[j - 1], A_COUNT, &zero, 1, &gen));
		for (uint32_t l = j; l < m; l++)
			if (memcmp(keys[l], keys[j - 1], 2) == 0)
				e[l] = STALE;
	}
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "dp",
	.arch = "pna",
	.n_tables = 5,
	.tables = tables,
	.n_actions = 3,
	.actions = actions,
	.n_externs = 2,
	.externs = externs,
	.process = process,
	.process_burst = process_burst,
};

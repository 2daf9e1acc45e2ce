/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" with an action profile and an action selector, used by
 * test_actprof.c (built with: cc -shared -fPIC -I runtime/include -o ap.so rt_prog_ap.c).
 *
 * Packet layout (bytes): [0] table (0: prof, 1: sel, 2: plain), [1] key, [2] selector hash
 * (the generated code's hash, given directly), [3] output: tag written by the action.
 * Action set(port, tag): out port = port, byte 3 = tag. Misses run the default (drop) action:
 * out port P4DP_PORT_DROP. Byte 4 = 1 if the apply was a hit.
 */
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"

enum { A_SET, A_DROP, A_DEF_ONLY };
enum { T_PROF, T_SEL, T_PLAIN };
enum { X_PROF, X_SEL };

static const struct p4dp_param_info p_set[] = { { "port", 1, 9, 0, 2 }, { "tag", 2, 8, 2, 1 } };
static const struct p4dp_param_info p_def_only[] = { { "x", 1, 8, 0, 1 } };

static const struct p4dp_action_info actions[] = {
	{ "ingress.set", 1001, 2, p_set, 3 },
	{ "ingress.drop", 1002, 0, NULL, 0 },
	{ "ingress.def_only", 1003, 1, p_def_only, 1 },
};

static const struct p4dp_key_info k_b1[] = { { "hdr.b1", 1, P4DP_MATCH_EXACT, 0, 1, 8 } };
static const uint32_t a_tbl[] = { A_SET, A_DROP, A_DEF_ONLY };
static const uint8_t s_tbl[] = { P4DP_SCOPE_ANY, P4DP_SCOPE_ANY, P4DP_SCOPE_DEFAULT_ONLY };

static const struct p4dp_table_info tables[] = {
	[T_PROF] = { .name = "ingress.t_prof", .id = 2001, .key_len = 1, .n_keys = 1, .keys = k_b1,
		     .n_actions = 3, .actions = a_tbl, .action_scopes = s_tbl, .default_action = A_DROP,
		     .size = 16, .data_len = 8, .direct_counter = -1, .direct_meter = -1 },
	[T_SEL] = { .name = "ingress.t_sel", .id = 2002, .key_len = 1, .n_keys = 1, .keys = k_b1,
		    .n_actions = 3, .actions = a_tbl, .action_scopes = s_tbl, .default_action = A_DROP,
		    .size = 16, .data_len = 8, .direct_counter = -1, .direct_meter = -1 },
	[T_PLAIN] = { .name = "ingress.t_plain", .id = 2003, .key_len = 1, .n_keys = 1, .keys = k_b1,
		      .n_actions = 3, .actions = a_tbl, .action_scopes = s_tbl, .default_action = A_DROP,
		      .size = 16, .data_len = 3, .direct_counter = -1, .direct_meter = -1 },
};

static const struct p4dp_extern_info externs[] = {
	[X_PROF] = { "ingress.prof", 0x11000001, P4DP_EXT_ACTION_PROFILE, 0, 4, 0, 0, -1, 0 },
	[X_SEL] = { "ingress.sel", 0x11000002, P4DP_EXT_ACTION_SELECTOR, 0, 4, 0, 0, -1, 0 },
};

static const int32_t impl[] = { X_PROF, X_SEL, -1 };

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	if (pkt->len < 5 || pkt->data[0] > T_PLAIN) {
		pkt->out_port = P4DP_PORT_DROP;
		return;
	}
	uint32_t t = pkt->data[0];
	int hit = 0;
	const struct p4dp_entry *e = p4dp_table_apply(ctx, t, &pkt->data[1], &hit);
	if (hit && impl[t] >= 0) {
		e = p4dp_actprof_resolve(ctx, (uint32_t)impl[t], e, p4dp_actprof_is_group(e) ? pkt->data[2] : 0);
		if (e == NULL) {
			hit = 0;
			e = p4dp_table_default(ctx, t);
		}
	}
	pkt->data[4] = (uint8_t)hit;
	if (e->action == A_SET) {
		uint16_t port;
		memcpy(&port, e->data, 2);
		pkt->out_port = port;
		pkt->data[3] = e->data[2];
	} else {
		pkt->out_port = P4DP_PORT_DROP;
	}
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "rt_prog_ap",
	.arch = "v1model",
	.n_tables = 3,
	.tables = tables,
	.n_actions = 3,
	.actions = actions,
	.n_externs = 2,
	.externs = externs,
	.process = process,
	.table_impl = impl,
};

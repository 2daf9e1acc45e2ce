/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A tiny hand-written "compiled program" implementing abi.h, used by test_rt.c and by the Rust
 * crate's tests (built with: cc -shared -fPIC -I runtime/include -o tiny.so rt_prog_tiny.c).
 *
 * Packet layout (bytes): [0] fwd key, [1] acl ternary key, [2..5] acl lpm key (BE), [6..7] acl
 * range key (BE), [8] acl optional key, [9] const_tbl key, [10] command, [11] scratch,
 * [12..36] wide table key (200 bits, BE).
 * Commands: 0 apply fwd; 1 apply acl (direct meter: RED drops); 2 apply const_tbl; 3 meter cell 0
 * -> out port = color; 4 reg[byte0 & 7] += 1, out 0; 5 digest of bytes 0..3, drop; 6 multicast
 * group byte0: one copy per member with byte 11 = rid, main dropped; 7 clone to session byte0
 * then fwd; 8 replace bytes 0..1 with "HDR!" and out 1; 9 assert failure (out 0); 10 log_msg;
 * 12 apply wide. Every packet counts in counter cell in_port. As generated code does, a miss of fwd
 * counts into the direct counter's default cell (the one after the entries') and a miss of acl is
 * metered by the direct meter's default cell.
 */
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"

enum { A_SET_PORT, A_DROP, A_DEF_ONLY, A_TBL_ONLY, A_SET_WIDE };
enum { T_FWD, T_ACL, T_CONST, T_WIDE };
enum { X_PKT_COUNTER, X_REG, X_METER, X_FWD_COUNTER, X_DIGEST, X_ACL_METER };

static const struct p4dp_param_info p_set_port[] = { { "port", 1, 9, 0, 2 } };
static const struct p4dp_param_info p_def_only[] = { { "x", 1, 16, 0, 2 } };
static const struct p4dp_param_info p_set_wide[] = { { "v", 1, 130, 0, 17 } };

static const struct p4dp_action_info actions[] = {
	{ "ingress.set_port", 1001, 1, p_set_port, 2 },
	{ "ingress.drop", 1002, 0, NULL, 0 },
	{ "ingress.def_only", 1003, 1, p_def_only, 2 },
	{ "ingress.tbl_only", 1004, 0, NULL, 0 },
	{ "ingress.set_wide", 1005, 1, p_set_wide, 17 },
};

static const struct p4dp_key_info k_fwd[] = { { "hdr.b0", 1, P4DP_MATCH_EXACT, 0, 1, 8 } };
static const struct p4dp_key_info k_acl[] = {
	{ "hdr.b1", 1, P4DP_MATCH_TERNARY, 0, 1, 8 },
	{ "hdr.addr", 2, P4DP_MATCH_LPM, 4, 4, 32 },
	{ "hdr.port", 3, P4DP_MATCH_RANGE, 8, 2, 16 },
	{ "hdr.b8", 4, P4DP_MATCH_OPTIONAL, 10, 1, 8 },
};
static const struct p4dp_key_info k_const[] = { { "hdr.b9", 1, P4DP_MATCH_EXACT, 0, 1, 8 } };
static const struct p4dp_key_info k_wide[] = { { "hdr.wide", 1, P4DP_MATCH_EXACT, 0, 25, 200 } };

static const uint32_t a_fwd[] = { A_SET_PORT, A_DROP, A_DEF_ONLY };
static const uint8_t s_fwd[] = { P4DP_SCOPE_ANY, P4DP_SCOPE_ANY, P4DP_SCOPE_DEFAULT_ONLY };
static const uint32_t a_acl[] = { A_SET_PORT, A_DROP, A_TBL_ONLY };
static const uint8_t s_acl[] = { P4DP_SCOPE_ANY, P4DP_SCOPE_ANY, P4DP_SCOPE_TABLE_ONLY };
static const uint32_t a_const[] = { A_SET_PORT, A_DROP };
static const uint32_t a_wide[] = { A_SET_PORT, A_DROP, A_SET_WIDE };

static const uint8_t ce_key[] = { 0x01 };
static const uint8_t ce_data[] = { 7, 0 }; /* set_port(7), native LE */
static const struct p4dp_const_entry e_const[] = { { ce_key, NULL, NULL, 0, A_SET_PORT, ce_data } };

static const struct p4dp_table_info tables[] = {
	[T_FWD] = { "ingress.fwd", 2001, 0, 1, 1, k_fwd, 3, a_fwd, s_fwd, A_DROP, NULL, 0, NULL, 0, 2,
		    X_FWD_COUNTER, -1, 0 },
	[T_ACL] = { "ingress.acl", 2002, P4DP_TABLE_F_NEEDS_PRIORITY, 12, 4, k_acl, 3, a_acl, s_acl, A_DROP, NULL,
		    0, NULL, 64, 2, -1, X_ACL_METER, 0 },
	[T_CONST] = { "ingress.const_tbl", 2003, P4DP_TABLE_F_ENTRIES_CONST | P4DP_TABLE_F_DEFAULT_CONST, 1, 1,
		      k_const, 2, a_const, NULL, A_DROP, NULL, 1, e_const, 16, 2, -1, -1, 0 },
	[T_WIDE] = { "ingress.wide", 2004, 0, 25, 1, k_wide, 3, a_wide, NULL, A_DROP, NULL, 0, NULL, 16, 17, -1, -1,
		     0 },
};

static const struct p4dp_extern_info externs[] = {
	[X_PKT_COUNTER] = { "ingress.pkt_counter", 3001, P4DP_EXT_COUNTER, P4DP_UNIT_BOTH, 16, 0, 0, -1, 0 },
	[X_REG] = { "ingress.reg", 3002, P4DP_EXT_REGISTER, 0, 8, 48, 8, -1, 0 },
	[X_METER] = { "ingress.meter", 3003, P4DP_EXT_METER, P4DP_UNIT_BYTES, 4, 0, 0, -1, 0 },
	[X_FWD_COUNTER] = { "ingress.fwd_counter", 3004, P4DP_EXT_DIRECT_COUNTER, P4DP_UNIT_BOTH,
			    P4DP_TABLE_DEFAULT_SIZE + 1, 0, 0, T_FWD, 0 },
	[X_DIGEST] = { "ingress.digest", 3005, P4DP_EXT_DIGEST, 0, 0, 4, 0, -1, 0 },
	[X_ACL_METER] = { "ingress.acl_meter", 3006, P4DP_EXT_DIRECT_METER, P4DP_UNIT_PACKETS, 64 + 1, 0, 0, T_ACL, 0 },
};

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

/* Run an entry's action; returns the output port. */
static uint32_t run_action(const struct p4dp_entry *e)
{
	switch (e->action) {
	case A_SET_PORT: return le16(e->data) & 0x1ff;
	case A_DEF_ONLY: return le16(e->data) & 0x1ff;
	case A_TBL_ONLY: return 9;
	case A_SET_WIDE: return e->data[16]; /* BE: last byte is the least significant */
	default: return P4DP_PORT_DROP;
	}
}

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	uint8_t *d = pkt->data;
	uint8_t key[32];
	int hit;
	const struct p4dp_entry *e;
	p4dp_counter_count(ctx, X_PKT_COUNTER, pkt->in_port, 16, pkt->len);
	if (pkt->len < 40) {
		pkt->out_port = P4DP_PORT_DROP;
		return;
	}
	switch (d[10]) {
	case 7: {
		/* one copy per replica, its instance in byte 11, truncated as the session says */
		uint32_t ports[P4DP_CLONE_REPLICAS_MAX], trunc;
		uint16_t rids[P4DP_CLONE_REPLICAS_MAX];
		uint8_t cos;
		uint32_t n = p4dp_clone_session_get(ctx, d[0], ports, rids, P4DP_CLONE_REPLICAS_MAX, &trunc, &cos);
		(void)cos;
		uint8_t orig = d[11];
		for (uint32_t i = 0; i < n; i++) {
			d[11] = (uint8_t)rids[i];
			p4dp_pkt_emit_copy(ctx, ports[i], d, trunc && trunc < pkt->len ? trunc : pkt->len);
		}
		d[11] = orig;
	}
		/* fall through */
	case 0:
		key[0] = d[0];
		e = p4dp_table_apply(ctx, T_FWD, key, &hit);
		p4dp_table_count(ctx, T_FWD, hit);
		if (hit)
			p4dp_counter_count(ctx, X_FWD_COUNTER, e->index, P4DP_TABLE_DEFAULT_SIZE, pkt->len);
		else
			p4dp_counter_count(ctx, X_FWD_COUNTER, P4DP_TABLE_DEFAULT_SIZE, P4DP_TABLE_DEFAULT_SIZE + 1,
					   pkt->len);
		pkt->out_port = run_action(e);
		break;
	case 1:
		memset(key, 0, 12);
		key[0] = d[1];
		key[4] = d[5], key[5] = d[4], key[6] = d[3], key[7] = d[2];
		key[8] = d[7], key[9] = d[6];
		key[10] = d[8];
		e = p4dp_table_apply(ctx, T_ACL, key, &hit);
		p4dp_table_count(ctx, T_ACL, hit);
		pkt->out_port = run_action(e);
		if (p4dp_meter_execute(ctx, X_ACL_METER, hit ? e->index : 64u, pkt->len) == P4DP_RED)
			pkt->out_port = P4DP_PORT_DROP;
		break;
	case 2:
		key[0] = d[9];
		e = p4dp_table_apply(ctx, T_CONST, key, &hit);
		p4dp_table_count(ctx, T_CONST, hit);
		pkt->out_port = run_action(e);
		break;
	case 3:
		pkt->out_port = p4dp_meter_execute(ctx, X_METER, 0, pkt->len);
		break;
	case 4: {
		uint64_t *cells = p4dp_register_cells(ctx, X_REG);
		uint64_t *c = &cells[d[0] & 7];
		*c = (*c + 1) & ((1ull << 48) - 1);
		pkt->out_port = 0;
		break;
	}
	case 5:
		p4dp_digest_send(ctx, X_DIGEST, d, 4);
		pkt->out_port = P4DP_PORT_DROP;
		break;
	case 6: {
		uint32_t ports[16];
		uint16_t rids[16];
		uint32_t n = p4dp_mcast_group_get(ctx, d[0], ports, rids, 16);
		for (uint32_t i = 0; i < n; i++) {
			d[11] = (uint8_t)rids[i];
			p4dp_pkt_emit_copy(ctx, ports[i], d, pkt->len);
		}
		pkt->out_port = P4DP_PORT_DROP;
		break;
	}
	case 8:
		memcpy(ctx->emit_buf, "HDR!", 4);
		p4dp_pkt_finish(pkt, ctx->emit_buf, 4, 2, 0);
		pkt->out_port = 1;
		break;
	case 9:
		p4dp_assert_fail(ctx, "rt_prog_tiny.c:command 9");
		pkt->out_port = 0;
		break;
	case 10: {
		uint64_t v[2] = { d[0], 12345678901ull };
		p4dp_log_msg(ctx, "x={} y={} z={}", 2, v);
		pkt->out_port = 0;
		break;
	}
	case 12:
		memcpy(key, d + 12, 25);
		e = p4dp_table_apply(ctx, T_WIDE, key, &hit);
		p4dp_table_count(ctx, T_WIDE, hit);
		pkt->out_port = run_action(e);
		break;
	default:
		p4dp_count_unsupported(ctx, "unknown command");
		pkt->out_port = P4DP_PORT_DROP;
	}
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "tiny",
	.arch = "v1model",
	.n_tables = 4,
	.tables = tables,
	.n_actions = 5,
	.actions = actions,
	.n_externs = 6,
	.externs = externs,
	.n_errors = 0,
	.errors = NULL,
	.process = process,
};

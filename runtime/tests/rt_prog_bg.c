/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" with two background pipelines (rtc.p4) for test_rtc_run.c.
 * Packet bytes [0..4): a key (< N_KEYS). The foreground looks the key up in table `flows` (a hit
 * must carry the data key * 3, else `checks` cell 3 counts it), queues the key and drops the
 * packet. Background pipeline 0 (adder) waits for a queued key (popWait), adds it to `flows`
 * with data key * 3 (a success counted in cell 1) and sends the 8 bytes key, data to port 1.
 * Background pipeline 1 (deleter) deletes key `iteration % N_KEYS` (a success counted in cell 4,
 * every iteration in cell 2) and sleeps 200 us. Cell 0 counts foreground packets.
 */
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"
#include "p4dp/rtc.h"

#define N_KEYS 64u
enum { A_SET, A_NOP };
enum { T_FLOWS };
enum { X_QUEUE, X_CHECKS };

static const struct p4dp_param_info p_v[] = { { "v", 1, 32, 0, 4 } };
static const struct p4dp_action_info actions[] = {
	{ "ingress.set", 1, 1, p_v, 4 },
	{ "ingress.nop", 2, 0, NULL, 0 },
};
static const struct p4dp_key_info k32[] = { { "hdr.k", 1, P4DP_MATCH_EXACT, 0, 4, 32 } };
static const uint32_t a_flows[] = { A_SET, A_NOP };
static const struct p4dp_table_info tables[] = {
	[T_FLOWS] = { "ingress.flows", 11, 0, 4, 1, k32, 2, a_flows, NULL, A_NOP, NULL, 0, NULL, 256, 4, -1, -1, 0 },
};
static const struct p4dp_extern_info externs[] = {
	[X_QUEUE] = { "seen", 21, P4DP_EXT_RTC_QUEUE, 0, 4096, 0, 4, -1, 0 },
	[X_CHECKS] = { "checks", 22, P4DP_EXT_RTC_COUNTER, 0, 5, 0, 0, -1, 0 },
};

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	pkt->out_port = P4DP_PORT_DROP;
	if (pkt->len < 4)
		return;
	uint32_t key;
	memcpy(&key, pkt->data, 4);
	int hit;
	const struct p4dp_entry *e = p4dp_table_apply(ctx, T_FLOWS, &key, &hit);
	uint32_t v;
	memcpy(&v, e->data, 4);
	if (hit && (e->action != A_SET || v != key * 3u))
		p4dp_rtc_counter_count(ctx->ext[X_CHECKS], 3, 1);
	p4dp_rtc_counter_count(ctx->ext[X_CHECKS], 0, 1);
	(void)p4dp_rtc_queue_push(ctx->ext[X_QUEUE], &key);
}

static void background(struct p4dp_ctx *ctx, uint32_t pipeline, struct p4dp_pkt *pkt, struct p4dp_bg_env *env)
{
	if (pipeline == 0) {
		uint32_t key;
		if (!p4dp_rtc_queue_pop_wait(ctx->ext[X_QUEUE], &key, env))
			return;
		uint32_t v = key * 3u;
		if (p4dp_rtc_table_add(ctx, T_FLOWS, &key, A_SET, &v, NULL) != 0)
			return;
		p4dp_rtc_counter_count(ctx->ext[X_CHECKS], 1, 1);
		memcpy(pkt->data, &key, 4);
		memcpy(pkt->data + 4, &v, 4);
		pkt->len = 8;
		pkt->out_port = 1;
	} else {
		uint32_t key = (uint32_t)(env->iteration % N_KEYS);
		if (p4dp_rtc_table_del(ctx, T_FLOWS, &key, env->rcu, env->rcu_thread) == 0)
			p4dp_rtc_counter_count(ctx->ext[X_CHECKS], 4, 1);
		p4dp_rtc_counter_count(ctx->ext[X_CHECKS], 2, 1);
		env->sleep_ns = 200000;
	}
}

static const char *const bg_names[] = { "adder", "deleter" };

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "bg",
	.arch = "rtc",
	.n_tables = 1,
	.tables = tables,
	.n_actions = 2,
	.actions = actions,
	.n_externs = 2,
	.externs = externs,
	.process = process,
	.n_background = 2,
	.background_names = bg_names,
	.background = background,
};

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" with two background pipelines (rtc.p4) for test_rtc_share.c:
 * time-sharing one background thread within long iterations (rtc_bg.c yield points).
 *
 * Background pipeline 0 (long) runs long iterations in turn: (0) a Foreach sweep over table
 * `big` (filled by the test before the run, not changed during it), beginning with
 * p4dp_rtc_sweep_begin_bg as generated code does in an apply block, (1) a range loop over
 * RANGE indices with a yield point every 1,024 indices as generated code has, (2) the same range
 * loop while holding Lock 0. While one runs, cell C_POS holds its progress (the row of the last
 * entry visited, or the last index, plus one; 0 between long iterations) and cell C_RUN the
 * iteration's number plus one. Pipeline 1 (short, never sleeping) reads them each iteration:
 * cell C_MID counts its iterations that ran inside a long one, C_GAP keeps the most progress
 * (rows or indices) a long iteration made without an iteration of pipeline 1 in between, and
 * C_LOCKED counts its iterations that found Lock 0 held (a yield while the long iteration held
 * it). The sweep checks its own guarantee: each row at most once, exactly C_ENTRIES entries per
 * sweep (C_SWEEP_ERR counts sweeps that were not). The foreground drops every packet.
 */
#include <stdint.h>
#include <string.h>

#include "p4dp/abi.h"
#include "p4dp/rtc.h"

#define ROWS 65536u
#define RANGE (1u << 18)
enum { A_NOP };
enum { T_BIG };
enum { X_CELLS, X_SWEEP, X_LOCK };
enum {
	C_ENTRIES,   /* set by the test: entries of `big` */
	C_POS,       /* progress of the long iteration running, 0: none */
	C_RUN,       /* its iteration number + 1 */
	C_SWEEPS,    /* long iterations done, by kind: sweeps, */
	C_RANGES,    /* range loops, */
	C_LOCKED_RANGES, /* range loops under Lock 0 */
	C_SWEEP_ERR, /* sweeps that did not visit every entry exactly once */
	C_SHORT,     /* pipeline 1 iterations */
	C_MID,       /* ... of them inside a long iteration */
	C_GAP,       /* most progress of a long iteration between two iterations of pipeline 1 */
	C_LOCKED,    /* pipeline 1 iterations that found Lock 0 held */
	C_N
};

static const struct p4dp_action_info actions[] = {
	{ "ingress.nop", 1, 0, NULL, 0 },
};
static const struct p4dp_key_info k32[] = { { "hdr.k", 1, P4DP_MATCH_EXACT, 0, 4, 32 } };
static const uint32_t a_big[] = { A_NOP };
static const struct p4dp_table_info tables[] = {
	[T_BIG] = { "ingress.big", 11, 0, 4, 1, k32, 1, a_big, NULL, A_NOP, NULL, 0, NULL, ROWS, 0, -1, -1, 0 },
};
static const struct p4dp_extern_info externs[] = {
	[X_CELLS] = { "cells", 21, P4DP_EXT_RTC_COUNTER, 0, C_N, 0, 0, -1, 0 },
	[X_SWEEP] = { "sweep", 22, P4DP_EXT_RTC_FOREACH, 0, 0, 0, 0, T_BIG, 0 },
	[X_LOCK] = { "lock", 23, P4DP_EXT_RTC_LOCK, 0, 1, 0, 0, -1, 0 },
};

/* Only pipeline 0 touches these (one thread runs it). */
static uint8_t g_seen[ROWS];
/* Only pipeline 1 touches these. */
static uint64_t g_last_run, g_last_pos;

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	(void)ctx;
	pkt->out_port = P4DP_PORT_DROP;
}

static void set(struct p4dp_ctx *ctx, uint32_t cell, uint64_t v)
{
	p4dp_rtc_counter_set(ctx->ext[X_CELLS], cell, v);
}

static uint64_t get(struct p4dp_ctx *ctx, uint32_t cell)
{
	return p4dp_rtc_counter_get(ctx->ext[X_CELLS], cell);
}

static void range_loop(struct p4dp_ctx *ctx, struct p4dp_bg_env *env)
{
	for (uint32_t ix = 0; ix < RANGE; ix++) {
		if ((ix & 1023u) == 1023u) /* as the generated range loop */
			p4dp_rtc_yield(env);
		set(ctx, C_POS, (uint64_t)ix + 1);
	}
}

static void long_iteration(struct p4dp_ctx *ctx, struct p4dp_bg_env *env)
{
	set(ctx, C_RUN, env->iteration + 1);
	switch (env->iteration % 3) {
	case 0: {
		struct p4dp_rtc_sweep *s = ctx->ext[X_SWEEP];
		memset(g_seen, 0, sizeof(g_seen));
		uint64_t n = 0, bad = 0;
		uint32_t key;
		(void)p4dp_rtc_sweep_begin_bg(s, env);
		const struct p4dp_entry *e;
		while ((e = p4dp_rtc_sweep_next(s, &key)) != NULL) {
			if (e->index >= ROWS || g_seen[e->index]++ != 0)
				bad++;
			n++;
			set(ctx, C_POS, (uint64_t)e->index + 1);
		}
		if (bad != 0 || n != get(ctx, C_ENTRIES))
			p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_SWEEP_ERR, 1);
		p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_SWEEPS, 1);
		break;
	}
	case 1:
		range_loop(ctx, env);
		p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_RANGES, 1);
		break;
	default:
		if (p4dp_rtc_lock_acquire_bg(ctx->ext[X_LOCK], 0, true, env)) {
			range_loop(ctx, env);
			(void)p4dp_rtc_lock_release_bg(ctx->ext[X_LOCK], 0, env);
		}
		p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_LOCKED_RANGES, 1);
		break;
	}
	set(ctx, C_POS, 0);
}

static void short_iteration(struct p4dp_ctx *ctx, struct p4dp_bg_env *env)
{
	p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_SHORT, 1);
	const uint64_t pos = get(ctx, C_POS), run = get(ctx, C_RUN);
	if (pos != 0) {
		p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_MID, 1);
		const uint64_t gap = run == g_last_run && pos >= g_last_pos ? pos - g_last_pos : pos;
		if (gap > get(ctx, C_GAP))
			set(ctx, C_GAP, gap);
		g_last_run = run;
		g_last_pos = pos;
	}
	if (p4dp_rtc_lock_acquire_bg(ctx->ext[X_LOCK], 0, false, env))
		(void)p4dp_rtc_lock_release_bg(ctx->ext[X_LOCK], 0, env);
	else
		p4dp_rtc_counter_count(ctx->ext[X_CELLS], C_LOCKED, 1);
}

static void background(struct p4dp_ctx *ctx, uint32_t pipeline, struct p4dp_pkt *pkt, struct p4dp_bg_env *env)
{
	(void)pkt;
	if (pipeline == 0)
		long_iteration(ctx, env);
	else
		short_iteration(ctx, env);
}

static const char *const bg_names[] = { "long", "short" };

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "share",
	.arch = "rtc",
	.n_tables = 1,
	.tables = tables,
	.n_actions = 1,
	.actions = actions,
	.n_externs = 3,
	.externs = externs,
	.process = process,
	.n_background = 2,
	.background_names = bg_names,
	.background = background,
};

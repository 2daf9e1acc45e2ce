/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in for the p4dp runtime, for testing generated C without DPDK: tables are a linear scan
 * over the program's const entries (priority / longest prefix), defaults come from the metadata,
 * externs are plain arrays, copies are printed. Reads packets from stdin ("<port> <hex>" per
 * line) and prints every output packet as "<port> <HEX>", then "end" after each input packet.
 * Test code only: no DPDK, no concurrency.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4dp/abi.h"

extern const struct p4dp_program p4dp_program;

struct p4dp_table {
	uint32_t idx;
};

static const struct p4dp_table_info *tinfo(const struct p4dp_table *t)
{
	return &p4dp_program.tables[t->idx];
}

static struct p4dp_entry *entries_storage[256];

static uint64_t le_get(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size > 8 ? 8 : size; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

static int field_match(const struct p4dp_key_info *k, const uint8_t *key, const struct p4dp_const_entry *e)
{
	if (k->match_kind == P4DP_MATCH_RANGE) {
		uint64_t x = le_get(key + k->offset, k->size);
		return x >= le_get(e->value + k->offset, k->size) && x <= le_get(e->hi + k->offset, k->size);
	}
	for (unsigned i = 0; i < k->size; i++)
		if ((key[k->offset + i] & e->mask[k->offset + i]) != e->value[k->offset + i])
			return 0;
	return 1;
}

static int popcount_mask(const struct p4dp_table_info *ti, const struct p4dp_const_entry *e)
{
	int n = 0;
	for (uint32_t i = 0; i < ti->key_len; i++)
		n += __builtin_popcount(e->mask[i]);
	return n;
}

/* Referenced by generated process_burst (staged lookups). The harness runs `process` only, and
 * this stub's entries share one buffer per table, so a bulk lookup cannot be honoured: fail loudly. */
void p4dp_table_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			    const struct p4dp_entry **out)
{
	(void)t;
	(void)keys;
	(void)n;
	(void)out;
	fprintf(stderr, "stub runtime: p4dp_table_lookup_bulk is not supported (run process, not process_burst)\n");
	abort();
}

const struct p4dp_entry *p4dp_table_lookup(struct p4dp_table *t, const void *key)
{
	const struct p4dp_table_info *ti = tinfo(t);
	int best = -1;
	long best_prio = 0;
	for (uint32_t i = 0; i < ti->n_entries; i++) {
		const struct p4dp_const_entry *e = &ti->entries[i];
		int ok = 1;
		for (uint32_t k = 0; k < ti->n_keys && ok; k++)
			ok = field_match(&ti->keys[k], key, e);
		if (!ok)
			continue;
		long prio = (ti->flags & P4DP_TABLE_F_NEEDS_PRIORITY) ? e->priority : popcount_mask(ti, e);
		if (best < 0 || prio > best_prio) {
			best = (int)i;
			best_prio = prio;
		}
	}
	if (best < 0)
		return NULL;
	struct p4dp_entry *en = entries_storage[t->idx];
	const struct p4dp_const_entry *e = &ti->entries[best];
	en->action = e->action;
	en->index = (uint32_t)best;
	uint32_t dl = p4dp_program.actions[e->action].data_len;
	memset(en->data, 0, ti->data_len);
	if (dl)
		memcpy(en->data, e->data, dl);
	return en;
}

int p4dp_pkt_finish(struct p4dp_pkt *pkt, const uint8_t *emit, uint32_t emit_len, uint32_t payload_off,
		    uint32_t trunc_len)
{
	static uint8_t tmp[65536];
	uint32_t plen = pkt->len - payload_off;
	memcpy(tmp, emit, emit_len);
	memcpy(tmp + emit_len, pkt->data + payload_off, plen);
	uint32_t n = emit_len + plen;
	if (trunc_len && trunc_len < n)
		n = trunc_len;
	memcpy(pkt->data, tmp, n);
	pkt->len = n;
	return 0;
}

static void print_pkt(uint32_t port, const uint8_t *d, uint32_t n)
{
	printf("%u ", port);
	for (uint32_t i = 0; i < n; i++)
		printf("%02X", d[i]);
	printf("\n");
}

int p4dp_pkt_emit_copy(struct p4dp_ctx *ctx, uint32_t port, const uint8_t *data, uint32_t len)
{
	(void)ctx;
	print_pkt(port, data, len);
	return 0;
}

uint32_t p4dp_meter_execute(struct p4dp_ctx *ctx, uint32_t ext, uint32_t index, uint32_t bytes)
{
	(void)ctx, (void)ext, (void)index, (void)bytes;
	return P4DP_GREEN;
}

void p4dp_digest_send(struct p4dp_ctx *ctx, uint32_t ext, const void *data, uint32_t len)
{
	(void)ctx, (void)data;
	fprintf(stderr, "digest ext %u len %u\n", ext, len);
}

uint32_t p4dp_mcast_group_get(struct p4dp_ctx *ctx, uint32_t group, uint32_t *ports, uint16_t *rids, uint32_t max)
{
	(void)ctx, (void)group, (void)ports, (void)rids, (void)max;
	return 0;
}

int p4dp_clone_session_get(struct p4dp_ctx *ctx, uint32_t session, uint32_t *port)
{
	(void)ctx, (void)session, (void)port;
	return -ENOENT;
}

void p4dp_log_msg(struct p4dp_ctx *ctx, const char *fmt, uint32_t n, const uint64_t *values)
{
	(void)ctx;
	fprintf(stderr, "log: %s (%u values%s", fmt, n, n ? ":" : "");
	for (uint32_t i = 0; i < n; i++)
		fprintf(stderr, " %llu", (unsigned long long)values[i]);
	fprintf(stderr, ")\n");
}

void p4dp_assert_fail(struct p4dp_ctx *ctx, const char *where)
{
	(void)ctx;
	fprintf(stderr, "assert failed at %s\n", where);
}

void p4dp_count_unsupported(struct p4dp_ctx *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, "unsupported: %s\n", what);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int main(void)
{
	const struct p4dp_program *p = &p4dp_program;
	struct p4dp_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.prog = p;
	ctx.rng = 12345;
	ctx.now_ns = 1000000;
	static uint8_t emit[P4DP_EMIT_MAX];
	ctx.emit_buf = emit;
	ctx.tables = calloc(p->n_tables + 1, sizeof *ctx.tables);
	ctx.defaults = calloc(p->n_tables + 1, sizeof *ctx.defaults);
	ctx.table_hits = calloc(p->n_tables + 1, sizeof(uint64_t));
	ctx.table_misses = calloc(p->n_tables + 1, sizeof(uint64_t));
	for (uint32_t i = 0; i < p->n_tables && i < 256; i++) {
		const struct p4dp_table_info *ti = &p->tables[i];
		struct p4dp_table *t = calloc(1, sizeof *t);
		t->idx = i;
		ctx.tables[i] = t;
		entries_storage[i] = calloc(1, sizeof(struct p4dp_entry) + ti->data_len + 8);
		struct p4dp_entry *d = calloc(1, sizeof(struct p4dp_entry) + ti->data_len + 8);
		d->action = ti->default_action;
		uint32_t dl = p->actions[ti->default_action].data_len;
		if (dl)
			memcpy(d->data, ti->default_data, dl);
		ctx.defaults[i] = d;
	}
	ctx.ext = calloc(p->n_externs + 1, sizeof *ctx.ext);
	for (uint32_t i = 0; i < p->n_externs; i++) {
		const struct p4dp_extern_info *x = &p->externs[i];
		size_t n = 0;
		if (x->kind == P4DP_EXT_COUNTER || x->kind == P4DP_EXT_DIRECT_COUNTER)
			n = (size_t)x->n_cells * sizeof(struct p4dp_counter_cell);
		else if (x->kind == P4DP_EXT_REGISTER)
			n = (size_t)x->n_cells * x->cell_size;
		ctx.ext[i] = calloc(1, n + 16);
	}
	static char line[1 << 16];
	static uint8_t buf[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		char *s = line;
		unsigned port = (unsigned)strtoul(s, &s, 10);
		uint32_t n = 0;
		int hi = -1;
		for (; *s; s++) {
			int v = hexval(*s);
			if (v < 0)
				continue;
			if (hi < 0) {
				hi = v;
			} else {
				buf[4096 + n++] = (uint8_t)(hi << 4 | v);
				hi = -1;
			}
		}
		struct p4dp_pkt pkt = { .data = buf + 4096, .len = n, .headroom = 4096, .tailroom = 8192, .in_port = port };
		p->process(&ctx, &pkt);
		if (pkt.out_port != P4DP_PORT_DROP)
			print_pkt(pkt.out_port, pkt.data, pkt.len);
		printf("end\n");
		fflush(stdout);
	}
	return 0;
}

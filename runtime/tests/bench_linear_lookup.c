/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark (not a test: no timed assertions, not in TESTS): a hit in a linear table
 * (rtc.p4 @linear, abi.h p4dp_table_apply_linear: the key is the row of a direct array) against a
 * hit in an exact table of the same size looked up through its hashed read index
 * (p4dp_table_apply_exact), as generated code calls them. Both tables have 2^16 rows of a 16-bit
 * key, all installed; the keys come in a pseudo-random order from an array of 2^20. Runs
 * alternate (linear, hashed, linear, ...) and the medians of cycles per lookup are printed.
 * Build and run: make -C runtime ../build/runtime/tests/bench_linear_lookup &&
 * build/runtime/tests/bench_linear_lookup [rounds]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_memory.h>

#include "p4dp/abi.h"
#include "p4dp/table.h"
#include "p4dp/xindex.h"

enum { ROWS = 1 << 16, NKEYS = 1 << 20 };

static uint16_t keys[NKEYS];

static struct p4dp_table *make_table(int linear)
{
	struct p4dp_key_field f[1] = {{.match_kind = P4DP_MATCH_EXACT, .offset = 0, .size = 2, .bitwidth = 16}};
	struct p4dp_table_params p = {.name = linear ? "linear" : "hashed", .key_len = 2, .n_fields = 1, .fields = f,
				      .max_entries = ROWS, .data_len = 8, .storage = P4DP_STORAGE_STATIC,
				      .socket_id = SOCKET_ID_ANY, .linear = linear};
	struct p4dp_table *t = p4dp_table_create(&p, NULL);
	if (t == NULL)
		return NULL;
	uint16_t k;
	struct p4dp_match m = {.value = (const uint8_t *)&k};
	for (uint32_t i = 0; i < ROWS; i++) {
		k = (uint16_t)i;
		uint64_t d = i;
		if (p4dp_table_entry_add(t, &m, 1, &d) != 0) {
			p4dp_table_free(t);
			return NULL;
		}
	}
	return t;
}

/* Cycles per lookup of every key once; *sum keeps the loads live. */
static double run(const struct p4dp_ctx *ctx, int linear, uint64_t *sum)
{
	uint64_t s = 0;
	const uint64_t t0 = rte_rdtsc();
	for (uint32_t i = 0; i < NKEYS; i++) {
		int hit;
		const struct p4dp_entry *e = linear ? p4dp_table_apply_linear(ctx, 0, &keys[i], 2, &hit)
						    : p4dp_table_apply_exact(ctx, 0, &keys[i], 2, &hit);
		s += *(const uint64_t *)e->data + (uint64_t)hit;
	}
	const uint64_t t1 = rte_rdtsc();
	*sum += s;
	return (double)(t1 - t0) / NKEYS;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	char *eal[] = {argv[0], "--no-huge", "--no-pci", "-m", "512", "--no-shconf", "-l", "0", "--log-level=error", NULL};
	if (rte_eal_init(9, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	const int rounds = argc > 1 ? atoi(argv[1]) : 11;
	if (rounds < 1 || rounds > 1000) {
		fprintf(stderr, "rounds: 1..1000\n");
		return 1;
	}
	uint64_t x = 88172645463325252ull;
	for (uint32_t i = 0; i < NKEYS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		keys[i] = (uint16_t)(x >> 24);
	}
	struct p4dp_table *tl = make_table(1), *th = make_table(0);
	if (tl == NULL || th == NULL || ((const struct p4dp_table_head *)tl)->rows == NULL ||
	    ((const struct p4dp_table_head *)th)->xi == NULL) {
		fprintf(stderr, "table setup failed\n");
		return 1;
	}
	struct p4dp_entry def_entry;
	struct p4dp_entry *def = &def_entry;
	struct p4dp_ctx cl = {.tables = &tl, .defaults = &def}, ch = {.tables = &th, .defaults = &def};
	double *cyl = calloc((size_t)rounds, sizeof(double)), *cyh = calloc((size_t)rounds, sizeof(double));
	uint64_t sum = 0;
	run(&cl, 1, &sum); /* warm-up */
	run(&ch, 0, &sum);
	for (int r = 0; r < rounds; r++) {
		cyl[r] = run(&cl, 1, &sum);
		cyh[r] = run(&ch, 0, &sum);
	}
	qsort(cyl, (size_t)rounds, sizeof(double), cmp_double);
	qsort(cyh, (size_t)rounds, sizeof(double), cmp_double);
	printf("2^16 rows, %d alternated rounds of 2^20 hits: linear (direct) median %.1f cycles/lookup "
	       "[%.1f-%.1f], hashed exact (read index) median %.1f [%.1f-%.1f] (checksum %" PRIu64 ")\n",
	       rounds, cyl[rounds / 2], cyl[0], cyl[rounds - 1], cyh[rounds / 2], cyh[0], cyh[rounds - 1], sum);
	free(cyl);
	free(cyh);
	p4dp_table_free(tl);
	p4dp_table_free(th);
	rte_eal_cleanup();
	return 0;
}

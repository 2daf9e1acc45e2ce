/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark (not a test: no timed assertions, not in TESTS): the cost of picking a selector
 * group's member for a packet (src/actprof_group.h ap_group_pick, what p4dp_actprof_resolve does
 * after loading the group). Rows: `slots[hash % n]` alone over an expanded group (the pick
 * before groups had two forms), ap_group_pick over the same expanded group (4 members, sum of
 * weights 4096), and over searched groups (sums above 4096: mixed hash, scaled, binary search) of
 * 4, 64 and 4096 members. Hashes come from an array of 2^20 pseudo-random values; picks are
 * independent (their loads overlap). Rounds alternate the rows; medians of cycles per pick.
 * Build and run: make -C runtime ../build/runtime/tests/bench_selector_pick &&
 * build/runtime/tests/bench_selector_pick [rounds]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "actprof_group.h"

enum { NHASH = 1 << 20, ROWS = 5, MAXR = 101 };

static uint64_t hashes[NHASH];

static struct ap_group *make_group(uint32_t n, uint32_t weight)
{
	uint32_t *slot = malloc(sizeof(uint32_t) * n), *w = malloc(sizeof(uint32_t) * n);
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++) {
		slot[i] = i;
		w[i] = weight + i; /* unequal weights */
		total += w[i];
	}
	struct ap_group *g = calloc(1, ap_group_size(n, total));
	ap_group_fill(g, n, slot, w, total);
	free(slot);
	free(w);
	return g;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 31;
	if (rounds < 1 || rounds > MAXR)
		rounds = 31;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (uint32_t i = 0; i < NHASH; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		hashes[i] = x;
	}
	/* 4 members of 1022..1025: sum 4094, expanded */
	struct ap_group *exp4 = make_group(4, 1022);
	struct ap_group *g[ROWS] = { exp4, exp4, make_group(4, 100000), make_group(64, 100000),
				     make_group(4096, 100000) };
	const char *name[ROWS] = { "expanded, slots[hash % n] alone", "expanded, ap_group_pick",
				   "searched, 4 members", "searched, 64 members", "searched, 4096 members" };
	if (!exp4->expanded || g[2]->expanded || g[4]->expanded) {
		fprintf(stderr, "unexpected group forms\n");
		return 1;
	}
	static double cyc[ROWS][MAXR];
	uint64_t sink = 0;
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < ROWS; k++) {
			const struct ap_group *gr = g[k];
			uint64_t t0 = rte_rdtsc_precise();
			if (k == 0)
				for (uint32_t i = 0; i < NHASH; i++)
					sink += gr->slots[hashes[i] % gr->n];
			else
				for (uint32_t i = 0; i < NHASH; i++)
					sink += ap_group_pick(gr, hashes[i]);
			cyc[k][r] = (double)(rte_rdtsc_precise() - t0) / NHASH;
		}
	}
	for (int k = 0; k < ROWS; k++) {
		qsort(cyc[k], rounds, sizeof(double), cmp);
		printf("%-34s median %6.2f  min %6.2f cycles per pick\n", name[k], cyc[k][rounds / 2], cyc[k][0]);
	}
	printf("(checksum %" PRIu64 ")\n", sink);
	for (int k = 1; k < ROWS; k++) /* g[0] is g[1] */
		free(g[k]);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the bench's log-linear latency histogram (bench_dp.h), against exact quantiles
 * of the recorded values. No EAL needed. Prints 'N passed, N failed'. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "p4dp/bench_dp.h"

static int passed, failed;
#define CHECK(c, ...)                                                                                  \
	do {                                                                                           \
		if (c) {                                                                               \
			passed++;                                                                      \
		} else {                                                                               \
			failed++;                                                                      \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                    \
			printf(__VA_ARGS__);                                                           \
			printf("\n");                                                                  \
		}                                                                                      \
	} while (0)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The histogram's quantile must be >= the exact one and within the relative bucket width. */
static void check_quantiles(const char *what, uint64_t *v, size_t n)
{
	static struct p4dp_hist h;
	p4dp_hist_reset(&h);
	for (size_t i = 0; i < n; i++)
		p4dp_hist_record(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(h.count == n, "%s: count", what);
	CHECK(h.min == v[0] && h.max == v[n - 1], "%s: min/max", what);
	const double qs[] = {0.0001, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)(qs[i] * (double)n);
		if ((double)rank < qs[i] * (double)n)
			rank++;
		if (rank < 1)
			rank = 1;
		uint64_t exact = v[rank - 1];
		uint64_t got = p4dp_hist_quantile(&h, qs[i]);
		double tol = (double)exact / (double)(1u << P4DP_HIST_SUB_BITS) + 1.0;
		CHECK(got >= exact && (double)(got - exact) <= tol, "%s: q%.4f exact %llu got %llu", what, qs[i],
		      (unsigned long long)exact, (unsigned long long)got);
	}
	struct p4dp_hist_summary s;
	p4dp_hist_summarize(&h, &s);
	CHECK(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.p9999 && s.p9999 <= s.max,
	      "%s: summary not monotonic", what);
}

int main(void)
{
	enum { N = 200000 };
	uint64_t *v = malloc(sizeof(*v) * N);
	if (v == NULL)
		return 1;
	for (size_t i = 0; i < N; i++)
		v[i] = 100 + rnd() % 50; /* exact range */
	check_quantiles("small", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = 500 + rnd() % 3000 + (i % 1000 == 0 ? rnd() % 1000000 : 0); /* a heavy tail */
	check_quantiles("tail", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rnd() >> (rnd() % 64); /* every magnitude, including beyond 2^MAX_BITS */
	for (size_t i = 0; i < N; i++)
		if (v[i] >= (1ull << P4DP_HIST_MAX_BITS))
			v[i] = (1ull << P4DP_HIST_MAX_BITS) - 1; /* the top bucket is open-ended: keep below */
	check_quantiles("wide", v, N);

	struct p4dp_hist a, b;
	p4dp_hist_reset(&a);
	p4dp_hist_reset(&b);
	CHECK(p4dp_hist_quantile(&a, 0.5) == 0, "empty quantile");
	p4dp_hist_record(&a, 10);
	p4dp_hist_record(&b, 1000);
	p4dp_hist_record(&b, 1u << 20);
	p4dp_hist_merge(&a, &b);
	CHECK(a.count == 3 && a.min == 10 && a.max == (1u << 20), "merge");
	CHECK(p4dp_hist_quantile(&a, 0.34) >= 1000 && p4dp_hist_quantile(&a, 0.34) < 1008, "merge quantile");
	p4dp_hist_record(&a, UINT64_MAX);
	CHECK(p4dp_hist_quantile(&a, 1.0) == UINT64_MAX, "max beyond the top bucket");
	free(v);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the meter types (enum p4dp_meter_type, src/externs.c) with the hand-written program
 * tests/rt_prog_meters.c: the colours of each meter on a packet sequence with known times against
 * reference models written from the RFCs' algorithms (RFC 2698 two-rate three-colour, RFC 2697
 * single-rate three-colour, and its two-colour reduction), whole tokens refilled between
 * packets; buckets that never refill (rate 0); and the configurations each type refuses, with
 * the message, leaving the cell's configuration as it was.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4dp/rt.h"
#include "tsan_test.h"

#include "check.h"

enum { X_TWO_RATE, X_SINGLE_RATE, X_TWO_COLOR, X_SINGLE_RATE_PKTS };

static uint32_t out_port;

static void out_cb(void *arg, uint32_t port, const uint8_t *data, uint32_t len)
{
	(void)arg, (void)data, (void)len;
	out_port = port;
}

/* Meter a packet of @p len bytes on cell @p cell of meter @p x; returns its colour. */
static uint32_t meter(struct p4dp_runtime *rt, uint8_t x, uint8_t cell, uint32_t len)
{
	uint8_t p[2048] = { x, cell };
	out_port = UINT32_MAX;
	CHECK(p4dp_runtime_packet_inject(rt, 0, p, len, out_cb, NULL) == 1);
	return out_port;
}

/* The reference models count whole tokens; the rates are whole units per microsecond and the
 * packets arrive on whole microseconds, so the runtime's nanosecond clock is exact for them. */
struct ref_bucket {
	uint64_t tokens, size;
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Adds @p n tokens to @p b up to its size; returns the tokens that did not fit. */
static uint64_t ref_fill(struct ref_bucket *b, uint64_t n)
{
	uint64_t room = b->size - b->tokens, in = min_u64(n, room);
	b->tokens += in;
	return n - in;
}

/* RFC 2697, colour-blind: tokens go to C while C is not full, then to E; a packet of B bytes is
 * GREEN if C holds B (taken from C), else YELLOW if E holds B (taken from E), else RED. With
 * @p two_colour, E has size 0. */
static uint32_t ref_single_rate(struct ref_bucket *c, struct ref_bucket *e, uint64_t earned, uint64_t len)
{
	ref_fill(e, ref_fill(c, earned));
	if (c->tokens >= len) {
		c->tokens -= len;
		return P4DP_GREEN;
	}
	if (e->tokens >= len) {
		e->tokens -= len;
		return P4DP_YELLOW;
	}
	return P4DP_RED;
}

/* RFC 2698, colour-blind: P and C refill at their own rates; RED if P lacks B, else YELLOW if C
 * lacks B (B taken from P), else GREEN (B taken from both). */
static uint32_t ref_two_rate(struct ref_bucket *c, struct ref_bucket *p, uint64_t c_earned, uint64_t p_earned,
			     uint64_t len)
{
	ref_fill(c, c_earned);
	ref_fill(p, p_earned);
	if (p->tokens < len)
		return P4DP_RED;
	if (c->tokens < len) {
		p->tokens -= len;
		return P4DP_YELLOW;
	}
	p->tokens -= len;
	c->tokens -= len;
	return P4DP_GREEN;
}

static uint64_t lcg_state = 0x853c49e6748fea9bull;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

/* Every meter type against its model on one random sequence (fixed seed): bursts of 40 packets
 * 0..99 us apart after a pause of 0..5999 us, packets 2..501 bytes; CIR 1 B/us, PIR 2 B/us,
 * CBS 1500, PBS 3000, EBS 3000. */
static void test_sequence(struct p4dp_runtime *rt)
{
	const uint64_t t0 = 1000000000ull;
	p4dp_runtime_time_set(rt, t0);
	struct p4dp_meter_config tr = { 1000000, 1500, 2000000, 3000, 0 };
	struct p4dp_meter_config sr = { 1000000, 1500, 1000000, 1500, 3000 };
	struct p4dp_meter_config sr2 = { 1000000, 1500, 1000000, 1500, 0 };
	CHECK(p4dp_runtime_meter_set(rt, X_TWO_RATE, 1, &tr) == 0);
	CHECK(p4dp_runtime_meter_set(rt, X_SINGLE_RATE, 1, &sr) == 0);
	CHECK(p4dp_runtime_meter_set(rt, X_TWO_COLOR, 1, &sr2) == 0);
	struct ref_bucket tr_c = { 1500, 1500 }, tr_p = { 3000, 3000 };
	struct ref_bucket sr_c = { 1500, 1500 }, sr_e = { 3000, 3000 };
	struct ref_bucket s2_c = { 1500, 1500 }, s2_e = { 0, 0 };
	uint64_t t_us = 0, n_colour[3][3] = { { 0 } };
	unsigned mismatches = 0;
	for (int i = 0; i < 2000; i++) {
		uint64_t gap = i % 40 == 0 ? lcg() % 6000 : lcg() % 100, len = 2 + lcg() % 500;
		t_us += gap;
		p4dp_runtime_time_set(rt, t0 + t_us * 1000);
		uint32_t want[3] = {
			ref_two_rate(&tr_c, &tr_p, gap, 2 * gap, len),
			ref_single_rate(&sr_c, &sr_e, gap, len),
			ref_single_rate(&s2_c, &s2_e, gap, len),
		};
		for (int m = 0; m < 3; m++) {
			uint32_t got = meter(rt, (uint8_t)m, 1, (uint32_t)len);
			if (got != want[m] && mismatches++ < 5)
				fprintf(stderr, "meter %d packet %d (t %llu us, %llu B): colour %u, the RFC's %u\n", m, i,
					(unsigned long long)t_us, (unsigned long long)len, got, want[m]);
			if (got < 3)
				n_colour[m][got]++;
		}
	}
	CHECK(mismatches == 0);
	/* the sequence reaches every colour of each type (two-colour: never YELLOW) */
	for (int m = 0; m < 2; m++)
		CHECK(n_colour[m][P4DP_GREEN] > 100 && n_colour[m][P4DP_YELLOW] > 100 && n_colour[m][P4DP_RED] > 100);
	CHECK(n_colour[2][P4DP_GREEN] > 100 && n_colour[2][P4DP_YELLOW] == 0 && n_colour[2][P4DP_RED] > 100);
	/* the cell's per-colour counts are the colours given */
	struct p4dp_meter_counts k;
	CHECK(p4dp_runtime_meter_counts_read(rt, X_SINGLE_RATE, 1, &k) == 0);
	CHECK(k.colour[P4DP_GREEN].packets == n_colour[1][P4DP_GREEN] &&
	      k.colour[P4DP_YELLOW].packets == n_colour[1][P4DP_YELLOW] &&
	      k.colour[P4DP_RED].packets == n_colour[1][P4DP_RED]);
	/* the configuration reads back as written, eburst included */
	struct p4dp_meter_config got;
	CHECK(p4dp_runtime_meter_get(rt, X_SINGLE_RATE, 1, &got) == 1 && memcmp(&got, &sr, sizeof(got)) == 0);
}

/* Single-rate three-colour with rate 0 (packets): CBS packets GREEN, then EBS YELLOW, then RED,
 * whatever the time; reconfiguring fills both buckets again. */
static void test_no_refill(struct p4dp_runtime *rt)
{
	struct p4dp_meter_config c = { 0, 3, 0, 3, 2 };
	CHECK(p4dp_runtime_meter_set(rt, X_SINGLE_RATE_PKTS, 2, &c) == 0);
	for (int round = 0; round < 2; round++) {
		uint32_t want[] = { P4DP_GREEN, P4DP_GREEN, P4DP_GREEN, P4DP_YELLOW, P4DP_YELLOW, P4DP_RED, P4DP_RED };
		for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			CHECK(meter(rt, X_SINGLE_RATE_PKTS, 2, 64) == want[i]);
			p4dp_runtime_time_advance(rt, 1000000000ull);
		}
		CHECK(p4dp_runtime_meter_set(rt, X_SINGLE_RATE_PKTS, 2, &c) == 0);
	}
	/* EBS 0: GREEN then RED, as the two-colour meter */
	struct p4dp_meter_config c0 = { 0, 1, 0, 1, 0 };
	CHECK(p4dp_runtime_meter_set(rt, X_SINGLE_RATE_PKTS, 3, &c0) == 0);
	CHECK(meter(rt, X_SINGLE_RATE_PKTS, 3, 64) == P4DP_GREEN);
	CHECK(meter(rt, X_SINGLE_RATE_PKTS, 3, 64) == P4DP_RED);
}

/* Each type refuses the configurations of the others, with the reason; the cell keeps its own. */
static void test_validation(struct p4dp_runtime *rt)
{
	struct p4dp_meter_config tr = { 1000, 100, 2000, 200, 0 }, sr = { 1000, 100, 1000, 100, 50 },
				 sr2 = { 1000, 100, 1000, 100, 0 }, got;
	CHECK(p4dp_runtime_meter_set(rt, X_TWO_RATE, 0, &tr) == 0);
	CHECK(p4dp_runtime_meter_set(rt, X_SINGLE_RATE, 0, &sr) == 0);
	CHECK(p4dp_runtime_meter_set(rt, X_TWO_COLOR, 0, &sr2) == 0);

	struct p4dp_meter_config bad = tr;
	bad.eburst = 7;
	CHECK_ERR(p4dp_runtime_meter_set(rt, X_TWO_RATE, 0, &bad), -EINVAL,
		  "meter 'ingress.two_rate' is two-rate three-color: its configurations have eburst 0, not 7");
	bad = tr;
	bad.pir = 999;
	CHECK_ERR(p4dp_runtime_meter_set(rt, X_TWO_RATE, 0, &bad), -EINVAL, "pir (999) < cir (1000)");
	CHECK(p4dp_runtime_meter_get(rt, X_TWO_RATE, 0, &got) == 1 && memcmp(&got, &tr, sizeof(got)) == 0);

	CHECK_ERR(p4dp_runtime_meter_set(rt, X_SINGLE_RATE, 0, &tr), -EINVAL,
		  "meter 'ingress.single_rate' is single-rate: its configurations have cir == pir and cburst == "
		  "pburst (cir 1000, pir 2000, cburst 100, pburst 200)");
	bad = sr;
	bad.pburst = 101;
	CHECK_ERR(p4dp_runtime_meter_set(rt, X_SINGLE_RATE, 0, &bad), -EINVAL, "cburst == pburst");
	CHECK(p4dp_runtime_meter_get(rt, X_SINGLE_RATE, 0, &got) == 1 && memcmp(&got, &sr, sizeof(got)) == 0);

	CHECK_ERR(p4dp_runtime_meter_set(rt, X_TWO_COLOR, 0, &sr), -EINVAL,
		  "meter 'ingress.two_color' is single-rate two-color: its configurations have eburst 0, not 50");
	CHECK_ERR(p4dp_runtime_meter_set(rt, X_TWO_COLOR, 0, &tr), -EINVAL, "cir == pir");
	CHECK(p4dp_runtime_meter_get(rt, X_TWO_COLOR, 0, &got) == 1 && memcmp(&got, &sr2, sizeof(got)) == 0);
	/* unconfiguring is always allowed */
	CHECK(p4dp_runtime_meter_set(rt, X_TWO_COLOR, 0, NULL) == 0);
	CHECK(p4dp_runtime_meter_get(rt, X_TWO_COLOR, 0, &got) == 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	char dir[PATH_MAX], so[PATH_MAX + 64];
	if (test_prog_build("meter", "rt_prog_meters", dir, sizeof(dir), so, sizeof(so)) != 0 ||
	    test_eal_init(argv[0], "0@0,1@(0-1)") != 0)
		return 1;
	struct p4dp_runtime *rt = NULL;
	struct p4dp_runtime_params pp = { .program_path = so, .max_workers = 1 };
	int rc = p4dp_runtime_create(&pp, &rt);
	CHECK(rc == 0);
	if (rc != 0)
		return test_finish(dir, n_pass, n_fail);
	test_sequence(rt);
	test_no_refill(rt);
	test_validation(rt);
	p4dp_runtime_free(rt);
	return test_finish(dir, n_pass, n_fail);
}

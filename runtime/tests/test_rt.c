/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the runtime core (rt.h) with the hand-written program tests/rt_prog_tiny.c, which this
 * test compiles to a .so at start (cc must be on PATH; run from runtime/ as `make test` does, or
 * set P4DP_RT_SRC to the runtime directory). The test binary must export its symbols to the
 * dlopen()ed program (link with -rdynamic).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "rt_internal.h" /* rt_clock_due */
#include "tsan_test.h"

#include "check.h"
#include "pcap_write.h"

enum { T_FWD, T_ACL, T_CONST, T_WIDE };
enum { A_SET_PORT, A_DROP, A_DEF_ONLY, A_TBL_ONLY, A_SET_WIDE };
enum { X_PKT_COUNTER, X_REG, X_METER, X_FWD_COUNTER, X_DIGEST, X_ACL_METER };

/* ------------------------------------------------------------ helpers */

struct outs {
	int n;
	uint32_t port[16];
	uint32_t len[16];
	uint8_t data[16][2048];
};

static void out_cb(void *arg, uint32_t port, const uint8_t *data, uint32_t len)
{
	struct outs *o = arg;
	if (o->n < 16) {
		o->port[o->n] = port;
		o->len[o->n] = len;
		memcpy(o->data[o->n], data, len < 2048 ? len : 2048);
	}
	o->n++;
}

static void mkpkt(uint8_t *p, uint8_t cmd, uint8_t b0)
{
	memset(p, 0, 64);
	p[0] = b0;
	p[10] = cmd;
	for (int i = 37; i < 64; i++)
		p[i] = (uint8_t)i;
}

static int inject(struct p4dp_runtime *rt, uint32_t port, const uint8_t *p, uint32_t len, struct outs *o)
{
	memset(o, 0, sizeof(*o));
	return p4dp_runtime_packet_inject(rt, port, p, len, out_cb, o);
}

/* Entry builders */
static struct p4dp_rt_key k1(uint32_t type, const uint8_t *v, uint32_t vl)
{
	return (struct p4dp_rt_key){ .type = type, .value = v, .value_len = vl };
}

static struct p4dp_rt_entry ent(uint32_t nk, const struct p4dp_rt_key *k, int32_t prio, uint32_t a, uint32_t np,
				 const struct p4dp_rt_param *p)
{
	return (struct p4dp_rt_entry){ nk, k, prio, a, np, p };
}

struct captured {
	int n;
	struct p4dp_rt_key keys[8];
	uint8_t kv[8][32], kv2[8][32];
	int32_t priority;
	uint32_t action, n_params;
	uint8_t pv[4][32];
	uint32_t pl[4];
};

static int capture_cb(void *arg, const struct p4dp_rt_entry *e)
{
	struct captured *c = arg;
	if (c->n++ > 0)
		return 0;
	for (uint32_t i = 0; i < e->n_keys && i < 8; i++) {
		c->keys[i] = e->keys[i];
		if (e->keys[i].value_len)
			memcpy(c->kv[i], e->keys[i].value, e->keys[i].value_len);
		if (e->keys[i].value2_len)
			memcpy(c->kv2[i], e->keys[i].value2, e->keys[i].value2_len);
	}
	c->priority = e->priority;
	c->action = e->action;
	c->n_params = e->n_params;
	for (uint32_t i = 0; i < e->n_params && i < 4; i++) {
		memcpy(c->pv[i], e->params[i].value, e->params[i].len);
		c->pl[i] = e->params[i].len;
	}
	return 0;
}

static char log_line[1024];
static void log_cb(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	snprintf(log_line, sizeof(log_line), "%s", msg);
}

static int n_digests;
static uint8_t digest_bytes[8];
static void digest_cb(void *arg, uint32_t worker, const uint8_t *data, uint32_t len)
{
	(void)arg;
	(void)worker;
	if (len == 4)
		memcpy(digest_bytes, data, 4);
	n_digests++;
}

/* ------------------------------------------------------------ tests */

static void test_fwd(struct p4dp_runtime *rt)
{
	uint8_t pkt[64], k5 = 5, port3[] = { 0x00, 0x03 }, port4[] = { 0x04 };
	struct outs o;
	struct p4dp_rt_key key = k1(P4DP_RT_KEY_EXACT, &k5, 1);
	struct p4dp_rt_param par = { port3, 2 };
	struct p4dp_rt_entry e = ent(1, &key, 0, A_SET_PORT, 1, &par);

	mkpkt(pkt, 0, 5);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0); /* miss -> default drop */
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &e) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1);
	CHECK(o.port[0] == 3 && o.len[0] == 64 && memcmp(o.data[0], pkt, 64) == 0);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EEXIST, "already exists");

	struct captured c = { 0 };
	CHECK(p4dp_runtime_table_read(rt, T_FWD, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.keys[0].type == P4DP_RT_KEY_EXACT && c.keys[0].value_len == 1 && c.kv[0][0] == 5);
	CHECK(c.action == A_SET_PORT && c.n_params == 1 && c.pl[0] == 2 && c.pv[0][0] == 0 && c.pv[0][1] == 3);

	par = (struct p4dp_rt_param){ port4, 1 }; /* shorter strings are zero-extended */
	CHECK(p4dp_runtime_table_entry_modify(rt, T_FWD, &e) == 0);
	memset(&c, 0, sizeof(c));
	CHECK(p4dp_runtime_table_entry_get(rt, T_FWD, &e, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.pl[0] == 2 && c.pv[0][1] == 4);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 4);

	/* direct counter counted the two hits; delete resets it */
	struct p4dp_counter_cell cell;
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, &e, &cell) == 0);
	CHECK(cell.packets == 2 && cell.bytes == 128);
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_FWD, &ts) == 0);
	CHECK(ts.entries == 1 && ts.hits == 2 && ts.misses == 1 && ts.capacity == P4DP_TABLE_DEFAULT_SIZE);

	CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &e) == 0);
	CHECK_ERR(p4dp_runtime_table_entry_delete(rt, T_FWD, &e), -ENOENT, "no entry");
	CHECK_ERR(p4dp_runtime_table_entry_modify(rt, T_FWD, &e), -ENOENT, "no entry");
	CHECK_ERR(p4dp_runtime_direct_counter_read(rt, T_FWD, &e, &cell), -ENOENT, "no entry");
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &e) == 0);
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, &e, &cell) == 0 && cell.packets == 0);
	struct p4dp_counter_cell set = { 10, 1000 };
	CHECK(p4dp_runtime_direct_counter_write(rt, T_FWD, &e, &set) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1);
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, &e, &cell) == 0 && cell.packets == 11 &&
	      cell.bytes == 1064);

	/* default action: @defaultonly def_only(x) */
	uint8_t x7[] = { 0x00, 0x07 };
	struct p4dp_rt_param px = { x7, 2 };
	CHECK(p4dp_runtime_table_default_set(rt, T_FWD, A_DEF_ONLY, 1, &px) == 0);
	mkpkt(pkt, 0, 99);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 7);
	memset(&c, 0, sizeof(c));
	CHECK(p4dp_runtime_table_default_get(rt, T_FWD, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.action == A_DEF_ONLY && c.pl[0] == 2 && c.pv[0][1] == 7);
	CHECK(p4dp_runtime_table_default_reset(rt, T_FWD) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);

	/* the default entry's direct counter cell (e NULL) counted the four misses, not the hits;
	 * deleting an entry or clearing the table leaves it, a write sets it */
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, NULL, &cell) == 0);
	CHECK(cell.packets == 4 && cell.bytes == 256);
	CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &e) == 0);
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, NULL, &cell) == 0 && cell.packets == 4);
	CHECK(p4dp_runtime_table_clear(rt, T_FWD) == 0);
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, NULL, &cell) == 0 && cell.packets == 4);
	set = (struct p4dp_counter_cell){ 100, 7 };
	CHECK(p4dp_runtime_direct_counter_write(rt, T_FWD, NULL, &set) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	CHECK(p4dp_runtime_direct_counter_read(rt, T_FWD, NULL, &cell) == 0 && cell.packets == 101 &&
	      cell.bytes == 71);
	struct p4dp_meter_config mc;
	CHECK_ERR(p4dp_runtime_direct_meter_get(rt, T_FWD, NULL, &mc), -EINVAL, "no direct meter");
	set = (struct p4dp_counter_cell){ 0, 0 };
	CHECK(p4dp_runtime_direct_counter_write(rt, T_FWD, NULL, &set) == 0);

	/* the default entry's metadata (e NULL): kept beside the table, across a clear */
	uint8_t mbuf[8];
	uint32_t mlen = 99;
	CHECK(p4dp_runtime_table_entry_meta_get(rt, T_FWD, NULL, mbuf, sizeof mbuf, &mlen) == 0 && mlen == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_FWD, NULL, "dflt-meta", 9) == 0);
	CHECK(p4dp_runtime_table_clear(rt, T_FWD) == 0);
	CHECK(p4dp_runtime_table_entry_meta_get(rt, T_FWD, NULL, mbuf, sizeof mbuf, &mlen) == 0 && mlen == 9 &&
	      memcmp(mbuf, "dflt-met", 8) == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_CONST, NULL, "c", 1) == 0); /* const entries only */
	CHECK_ERR(p4dp_runtime_table_entry_meta_set(rt, T_FWD, NULL, NULL, 3), -EINVAL, "metadata of 3 bytes");
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_FWD, NULL, NULL, 0) == 0);
	CHECK(p4dp_runtime_table_entry_meta_get(rt, T_FWD, NULL, NULL, 0, &mlen) == 0 && mlen == 0);
	CHECK(p4dp_runtime_table_entry_meta_set(rt, T_CONST, NULL, NULL, 0) == 0);
}

static void test_validation(struct p4dp_runtime *rt)
{
	uint8_t k5 = 5, two[] = { 0x01, 0x05 }, p3[] = { 0x00, 0x03 }, p512[] = { 0x02, 0x00 };
	struct p4dp_rt_key key = k1(P4DP_RT_KEY_EXACT, &k5, 1);
	struct p4dp_rt_param par = { p3, 2 };
	struct p4dp_rt_entry e = ent(1, &key, 0, A_SET_PORT, 1, &par);
	struct p4dp_rt_table_stats ts;

	CHECK_ERR(p4dp_runtime_table_entry_add(rt, 17, &e), -EINVAL, "out of range");
	e.n_keys = 0;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "has 1 key fields, 0 given");
	e.n_keys = 1;
	key.type = P4DP_RT_KEY_LPM;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "is exact, given as lpm");
	key.type = P4DP_RT_KEY_DONT_CARE;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "cannot be a wildcard");
	key = k1(P4DP_RT_KEY_EXACT, two, 2);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "2 bytes given for a 8-bit value");
	key = k1(P4DP_RT_KEY_EXACT, two, 0);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "empty value");
	key = k1(P4DP_RT_KEY_EXACT, &k5, 1);
	par.value = p512;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "does not fit in 9 bits");
	par.value = p3;
	e.action = A_SET_WIDE;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "not an action of table");
	e.action = 99;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "action index 99 out of range");
	e.action = A_DEF_ONLY;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "@defaultonly");
	e.action = A_DROP;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "takes 0 parameters, 1 given");
	e.action = A_SET_PORT;
	e.priority = 3;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_FWD, &e), -EINVAL, "priority must be 0");
	e.priority = 0;
	CHECK(p4dp_runtime_table_stats_get(rt, T_FWD, &ts) == 0 && ts.entries == 0);

	/* acl: priority required, lpm/ternary/range/optional checks */
	uint8_t b1 = 0x10, m1 = 0xf0, bad1 = 0x11, addr[] = { 10, 1, 0, 0 }, addr_bad[] = { 10, 1, 0, 1 };
	uint8_t lo[] = { 0x00, 0x50 }, hi[] = { 0x01, 0xbb }, b8 = 3;
	struct p4dp_rt_key ak[4] = {
		{ P4DP_RT_KEY_TERNARY, 0, &b1, 1, &m1, 1 },
		{ P4DP_RT_KEY_LPM, 16, addr, 4, NULL, 0 },
		{ P4DP_RT_KEY_RANGE, 0, lo, 2, hi, 2 },
		{ P4DP_RT_KEY_OPTIONAL, 0, &b8, 1, NULL, 0 },
	};
	struct p4dp_rt_entry a = ent(4, ak, 0, A_SET_PORT, 1, &par);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_ACL, &a), -EINVAL, "priority must be > 0");
	a.priority = 10;
	ak[0].value = &bad1;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_ACL, &a), -EINVAL, "outside the mask");
	ak[0].value = &b1;
	ak[1].value = addr_bad;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_ACL, &a), -EINVAL, "beyond prefix length 16");
	ak[1].value = addr;
	ak[1].prefix_len = 33;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_ACL, &a), -EINVAL, "prefix length 33 > bitwidth 32");
	ak[1].prefix_len = 16;
	ak[2].value = hi;
	ak[2].value2 = lo;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_ACL, &a), -EINVAL, "low > high");
	ak[2].value = lo;
	ak[2].value2 = hi;
	a.action = A_TBL_ONLY;
	a.n_params = 0;
	CHECK(p4dp_runtime_table_entry_add(rt, T_ACL, &a) == 0); /* @tableonly is fine for entries */
	CHECK_ERR(p4dp_runtime_table_default_set(rt, T_ACL, A_TBL_ONLY, 0, NULL), -EINVAL, "@tableonly");
	CHECK(p4dp_runtime_table_entry_delete(rt, T_ACL, &a) == 0);

	/* const table and const default */
	uint8_t k1v = 1;
	struct p4dp_rt_key ck = k1(P4DP_RT_KEY_EXACT, &k1v, 1);
	struct p4dp_rt_entry ce = ent(1, &ck, 0, A_SET_PORT, 1, &par);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_CONST, &ce), -EINVAL, "const entries");
	CHECK_ERR(p4dp_runtime_table_entry_delete(rt, T_CONST, &ce), -EINVAL, "const entries");
	CHECK_ERR(p4dp_runtime_table_clear(rt, T_CONST), -EINVAL, "const entries");
	CHECK_ERR(p4dp_runtime_table_default_set(rt, T_CONST, A_DROP, 0, NULL), -EINVAL, "is const");
	struct captured c = { 0 };
	CHECK(p4dp_runtime_table_read(rt, T_CONST, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.kv[0][0] == 1 && c.action == A_SET_PORT && c.pv[0][1] == 7);
	uint8_t pkt[64];
	struct outs o;
	mkpkt(pkt, 2, 0);
	pkt[9] = 1;
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 7);

	uint32_t t;
	CHECK(p4dp_runtime_table_find(rt, "ingress.acl", &t) == 0 && t == T_ACL);
	CHECK_ERR(p4dp_runtime_table_find(rt, "nope", &t), -ENOENT, "no table named 'nope'");
}

static void test_acl(struct p4dp_runtime *rt)
{
	uint8_t b1 = 0x10, m1 = 0xf0, z = 0, addr[] = { 10, 1, 0, 0 }, lo[] = { 0x00, 0x50 }, hi[] = { 0x01, 0xbb };
	uint8_t p2[] = { 2 }, p5[] = { 5 };
	uint8_t zero2[] = { 0, 0 }, ff2[] = { 0xff, 0xff };
	struct p4dp_rt_param par2 = { p2, 1 }, par5 = { p5, 1 };
	/* high priority: b1 0x1?/0xf0, 10.1/16, port 80..443, any b8 -> port 2 */
	struct p4dp_rt_key ka[4] = {
		{ P4DP_RT_KEY_TERNARY, 0, &b1, 1, &m1, 1 },
		{ P4DP_RT_KEY_LPM, 16, addr, 4, NULL, 0 },
		{ P4DP_RT_KEY_RANGE, 0, lo, 2, hi, 2 },
		{ P4DP_RT_KEY_OPTIONAL, 0, NULL, 0, NULL, 0 },
	};
	/* low priority: everything -> port 5 */
	struct p4dp_rt_key kb[4] = {
		{ P4DP_RT_KEY_TERNARY, 0, &z, 1, &z, 1 },
		{ P4DP_RT_KEY_DONT_CARE, 0, NULL, 0, NULL, 0 },
		{ P4DP_RT_KEY_RANGE, 0, zero2, 2, ff2, 2 },
		{ P4DP_RT_KEY_DONT_CARE, 0, NULL, 0, NULL, 0 },
	};
	struct p4dp_rt_entry ea = ent(4, ka, 100, A_SET_PORT, 1, &par2), eb = ent(4, kb, 1, A_SET_PORT, 1, &par5);
	CHECK(p4dp_runtime_table_entry_add(rt, T_ACL, &ea) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_ACL, &eb) == 0);
	uint8_t pkt[64];
	struct outs o;
	mkpkt(pkt, 1, 0);
	pkt[1] = 0x1a, pkt[2] = 10, pkt[3] = 1, pkt[4] = 77, pkt[5] = 3, pkt[6] = 0, pkt[7] = 100, pkt[8] = 9;
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 2);
	pkt[7] = 0x40; /* port 64: outside 80..443 */
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 5);
	pkt[7] = 100, pkt[3] = 2; /* 10.2: outside the /16 */
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 5);

	struct captured c = { 0 };
	CHECK(p4dp_runtime_table_entry_get(rt, T_ACL, &ea, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.priority == 100 && c.keys[0].type == P4DP_RT_KEY_TERNARY && c.kv[0][0] == 0x10 &&
	      c.kv2[0][0] == 0xf0);
	CHECK(c.keys[1].type == P4DP_RT_KEY_LPM && c.keys[1].prefix_len == 16 && c.keys[1].value_len == 4 &&
	      c.kv[1][0] == 10 && c.kv[1][1] == 1 && c.kv[1][2] == 0);
	CHECK(c.keys[2].type == P4DP_RT_KEY_RANGE && c.kv[2][1] == 0x50 && c.kv2[2][0] == 1 && c.kv2[2][1] == 0xbb);
	CHECK(c.keys[3].type == P4DP_RT_KEY_OPTIONAL && c.keys[3].value_len == 0);
	memset(&c, 0, sizeof(c));
	CHECK(p4dp_runtime_table_entry_get(rt, T_ACL, &eb, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.keys[1].prefix_len == 0 && c.keys[3].value_len == 0);

	/* direct meter, packets: cir 1/s burst 1, pir 2/s burst 2 */
	struct p4dp_meter_config mc = { 1, 1, 2, 2, 0 }, got;
	p4dp_runtime_time_set(rt, 1000000000ull);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, &ea, &got) == 0); /* unconfigured */
	CHECK(got.cir == 0 && got.pir == 0);
	CHECK(p4dp_runtime_direct_meter_set(rt, T_ACL, &ea, &mc) == 0);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, &ea, &got) == 1);
	CHECK(got.cir == 1 && got.cburst == 1 && got.pir == 2 && got.pburst == 2);
	CHECK_ERR(p4dp_runtime_direct_meter_get(rt, T_FWD, &ea, &got), -EINVAL, "no direct meter");
	pkt[3] = 1;
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* green */
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* yellow */
	CHECK(inject(rt, 0, pkt, 64, &o) == 0); /* red -> dropped by the program */
	p4dp_runtime_time_advance(rt, 1000000000ull);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* green: both buckets refilled */
	/* per-colour counts of the entry's cell: packets and bytes as coloured */
	struct p4dp_meter_counts mk;
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, &ea, &mk) == 0);
	CHECK(mk.colour[P4DP_GREEN].packets == 3 && mk.colour[P4DP_GREEN].bytes == 192); /* one before the configuration */
	CHECK(mk.colour[P4DP_YELLOW].packets == 1 && mk.colour[P4DP_YELLOW].bytes == 64);
	CHECK(mk.colour[P4DP_RED].packets == 1 && mk.colour[P4DP_RED].bytes == 64);
	CHECK_ERR(p4dp_runtime_direct_meter_counts_read(rt, T_FWD, &ea, &mk), -EINVAL, "no direct meter");
	CHECK_ERR(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, &ea, NULL), -EINVAL, "NULL output");
	/* configuring the cell keeps its counts; a write sets them */
	CHECK(p4dp_runtime_direct_meter_set(rt, T_ACL, &ea, &mc) == 0);
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, &ea, &mk) == 0 && mk.colour[P4DP_RED].packets == 1);
	struct p4dp_meter_counts mset = { { { 7, 70 }, { 8, 80 }, { 9, 90 } } };
	CHECK(p4dp_runtime_direct_meter_counts_write(rt, T_ACL, &ea, &mset) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* green */
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, &ea, &mk) == 0);
	CHECK(mk.colour[P4DP_GREEN].packets == 8 && mk.colour[P4DP_GREEN].bytes == 134);
	CHECK(mk.colour[P4DP_YELLOW].packets == 8 && mk.colour[P4DP_RED].bytes == 90);
	uint32_t ea_cell = 0;
	CHECK(rt_entry_index(rt, T_ACL, &ea, &ea_cell) == 0);
	CHECK(p4dp_runtime_meter_counts_read(rt, X_ACL_METER, ea_cell, &mk) == 0 && mk.colour[P4DP_GREEN].packets == 8);
	CHECK_ERR(p4dp_runtime_meter_counts_read(rt, X_REG, 0, &mk), -EINVAL, "not a meter");
	CHECK_ERR(p4dp_runtime_meter_counts_write(rt, X_ACL_METER, 65, &mset), -EINVAL, "out of range");
	struct p4dp_meter_config bad = { 10, 1, 5, 1, 0 };
	CHECK_ERR(p4dp_runtime_direct_meter_set(rt, T_ACL, &ea, &bad), -EINVAL, "pir");
	struct p4dp_meter_config bad_eburst = { 1, 1, 2, 2, 3 };
	CHECK_ERR(p4dp_runtime_direct_meter_set(rt, T_ACL, &ea, &bad_eburst), -EINVAL,
		  "two-rate three-color: its configurations have eburst 0, not 3");
	CHECK_ERR(p4dp_runtime_direct_meter_set(rt, T_FWD, &ea, &mc), -EINVAL, "no direct meter");

	CHECK(p4dp_runtime_table_clear(rt, T_ACL) == 0);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, &ea, &got) == -ENOENT); /* no such entry */
	/* the clear zeroed the deleted entry's counts */
	CHECK(p4dp_runtime_meter_counts_read(rt, X_ACL_METER, ea_cell, &mk) == 0);
	CHECK(mk.colour[P4DP_GREEN].packets == 0 && mk.colour[P4DP_YELLOW].bytes == 0 && mk.colour[P4DP_RED].packets == 0);
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, &ea, &mk) == -ENOENT);
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_ACL, &ts) == 0 && ts.entries == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);

	/* the default entry's direct meter cell (e NULL) meters the misses; the entries' cells and a
	 * table clear leave it */
	CHECK(p4dp_runtime_table_default_set(rt, T_ACL, A_SET_PORT, 1, &par5) == 0);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, NULL, &got) == 0); /* unconfigured: GREEN */
	for (int i = 0; i < 4; i++)
		CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 5);
	CHECK(p4dp_runtime_direct_meter_set(rt, T_ACL, NULL, &mc) == 0);
	CHECK(p4dp_runtime_table_clear(rt, T_ACL) == 0);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, NULL, &got) == 1 && got.pir == 2 && got.pburst == 2);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* green */
	CHECK(inject(rt, 0, pkt, 64, &o) == 1); /* yellow */
	CHECK(inject(rt, 0, pkt, 64, &o) == 0); /* red -> dropped by the program */
	CHECK_ERR(p4dp_runtime_direct_meter_set(rt, T_ACL, NULL, &bad), -EINVAL, "pir");
	/* the misses' colours in the default entry's cell: 5 unconfigured (GREEN), then green, yellow, red */
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, NULL, &mk) == 0);
	CHECK(mk.colour[P4DP_GREEN].packets == 6 && mk.colour[P4DP_GREEN].bytes == 384);
	CHECK(mk.colour[P4DP_YELLOW].packets == 1 && mk.colour[P4DP_RED].packets == 1 && mk.colour[P4DP_RED].bytes == 64);
	CHECK(p4dp_runtime_direct_meter_counts_write(rt, T_ACL, NULL, &mset) == 0);
	CHECK(p4dp_runtime_direct_meter_counts_read(rt, T_ACL, NULL, &mk) == 0 && mk.colour[P4DP_YELLOW].bytes == 80);
	CHECK(p4dp_runtime_direct_meter_counts_write(rt, T_ACL, NULL, &(struct p4dp_meter_counts){ 0 }) == 0);
	CHECK_ERR(p4dp_runtime_direct_counter_read(rt, T_ACL, NULL, &(struct p4dp_counter_cell){ 0 }), -EINVAL,
		  "no direct counter");
	CHECK(p4dp_runtime_direct_meter_set(rt, T_ACL, NULL, NULL) == 0);
	CHECK(p4dp_runtime_direct_meter_get(rt, T_ACL, NULL, &got) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1);
	CHECK(p4dp_runtime_table_default_reset(rt, T_ACL) == 0);
}

static void test_wide(struct p4dp_runtime *rt)
{
	uint8_t key[25], v[17], vbad[17];
	for (int i = 0; i < 25; i++)
		key[i] = (uint8_t)(0xa0 + i);
	key[0] = 0x80; /* 200 bits = 25 full bytes */
	memset(v, 0, 17);
	v[0] = 0x03; /* 130 bits: top byte may hold 2 bits */
	v[16] = 0x2a;
	memcpy(vbad, v, 17);
	vbad[0] = 0x04;
	struct p4dp_rt_key k = k1(P4DP_RT_KEY_EXACT, key, 25);
	struct p4dp_rt_param par = { vbad, 17 };
	struct p4dp_rt_entry e = ent(1, &k, 0, A_SET_WIDE, 1, &par);
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_WIDE, &e), -EINVAL, "does not fit in 130 bits");
	par.value = v;
	CHECK(p4dp_runtime_table_entry_add(rt, T_WIDE, &e) == 0);
	uint8_t pkt[64];
	struct outs o;
	mkpkt(pkt, 12, 0);
	memcpy(pkt + 12, key, 25);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 0x2a);
	pkt[36] ^= 1;
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	struct captured c = { 0 };
	CHECK(p4dp_runtime_table_read(rt, T_WIDE, capture_cb, &c) == 0);
	CHECK(c.n == 1 && c.keys[0].value_len == 25 && memcmp(c.kv[0], key, 25) == 0);
	CHECK(c.pl[0] == 17 && memcmp(c.pv[0], v, 17) == 0);
}

/* p4dp_runtime_table_entries_add: a packet reader on another thread while a batch goes in */
struct batch_reader {
	struct p4dp_runtime *rt;
	int stop;              /* set by the control thread (atomic) */
	uint64_t rounds, hits; /* read by the control thread (atomic) */
	uint64_t wrong;        /* packets forwarded to another port than their entry's */
};

#define BATCH_KEY0 0x40u
#define BATCH_N 64u

static void *batch_reader_main(void *arg)
{
	struct batch_reader *r = arg;
	uint8_t pkt[64];
	static struct outs o; /* 32 KiB: not on this thread's stack */
	/* relaxed: stop is a request only, no data is published through it */
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (uint32_t k = BATCH_KEY0; k < BATCH_KEY0 + BATCH_N; k++) {
			mkpkt(pkt, 0, (uint8_t)k);
			int n = inject(r->rt, 0, pkt, 64, &o);
			if (n == 1 && o.port[0] == k)
				__atomic_fetch_add(&r->hits, 1, __ATOMIC_RELAXED); /* a count only */
			else if (n != 0)
				r->wrong++; /* a miss is dropped (n 0); a hit goes to port k */
		}
		__atomic_fetch_add(&r->rounds, 1, __ATOMIC_RELAXED); /* a count only */
	}
	return NULL;
}

static void test_entries_add(struct p4dp_runtime *rt)
{
	uint8_t kv[BATCH_N], pv[BATCH_N][2], big[] = { 0x02, 0x00 };
	struct p4dp_rt_key keys[BATCH_N];
	struct p4dp_rt_param pars[BATCH_N];
	struct p4dp_rt_entry es[BATCH_N];
	for (uint32_t i = 0; i < BATCH_N; i++) {
		kv[i] = (uint8_t)(BATCH_KEY0 + i);
		pv[i][0] = 0;
		pv[i][1] = kv[i]; /* set_port(key) */
		keys[i] = k1(P4DP_RT_KEY_EXACT, &kv[i], 1);
		pars[i] = (struct p4dp_rt_param){ pv[i], 2 };
		es[i] = ent(1, &keys[i], 0, A_SET_PORT, 1, &pars[i]);
	}
	uint32_t done = 99;
	CHECK(p4dp_runtime_table_entries_add(rt, T_FWD, es, 0, &done) == 0 && done == 0);
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, 17, es, 1, &done), -EINVAL, "out of range");
	CHECK(done == 0);
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, T_CONST, es, 1, &done), -EINVAL, "const entries");
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, T_FWD, es, 1, NULL), -EINVAL, "NULL done");
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, T_FWD, NULL, 1, &done), -EINVAL, "NULL entry array");

	/* an invalid entry stops the batch there with add's message; the ones before it are in */
	pars[5].value = big; /* 0x200 does not fit in 9 bits */
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, T_FWD, es, 8, &done), -EINVAL, "does not fit in 9 bits");
	CHECK(done == 5);
	struct captured c = { 0 };
	CHECK(p4dp_runtime_table_read(rt, T_FWD, capture_cb, &c) == 0 && c.n == 5);
	for (uint32_t i = 0; i < 5; i++)
		CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &es[i]) == 0);
	pars[5].value = pv[5];

	/* under a concurrent reader: a duplicate stops the batch with -EEXIST, the caller goes on
	 * after it; every packet meets its entry complete or misses */
	struct batch_reader r = { .rt = rt };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, batch_reader_main, &r) == 0);
	for (int i = 0; i < 10000 && __atomic_load_n(&r.rounds, __ATOMIC_RELAXED) < 2; i++)
		usleep(1000);
	struct p4dp_rt_entry dup[BATCH_N + 1];
	memcpy(dup, es, 10 * sizeof(es[0]));
	dup[10] = es[3];
	memcpy(dup + 11, es + 10, (BATCH_N - 10) * sizeof(es[0]));
	CHECK_ERR(p4dp_runtime_table_entries_add(rt, T_FWD, dup, BATCH_N + 1, &done), -EEXIST, "already exists");
	CHECK(done == 10);
	memset(&c, 0, sizeof(c));
	CHECK(p4dp_runtime_table_entry_get(rt, T_FWD, &es[10], capture_cb, &c) == -ENOENT); /* not attempted */
	CHECK(p4dp_runtime_table_entries_add(rt, T_FWD, dup + 11, BATCH_N - 10, &done) == 0 && done == BATCH_N - 10);
	/* the reader finds every entry now: two more full rounds, each hitting all of them */
	uint64_t h0 = __atomic_load_n(&r.hits, __ATOMIC_RELAXED), r0 = __atomic_load_n(&r.rounds, __ATOMIC_RELAXED);
	for (int i = 0; i < 10000 && __atomic_load_n(&r.rounds, __ATOMIC_RELAXED) < r0 + 3; i++)
		usleep(1000);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(r.wrong == 0);
	CHECK(r.rounds >= r0 + 3 && r.hits - h0 >= 2 * BATCH_N);
	struct p4dp_rt_table_stats ts;
	CHECK(p4dp_runtime_table_stats_get(rt, T_FWD, &ts) == 0 && ts.entries == BATCH_N);
	for (uint32_t i = 0; i < BATCH_N; i++)
		CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &es[i]) == 0);
}

static void test_externs(struct p4dp_runtime *rt)
{
	uint8_t pkt[64];
	struct outs o;
	struct p4dp_counter_cell cell, set = { 5, 50 };
	uint32_t x;
	CHECK(p4dp_runtime_extern_find(rt, "ingress.reg", &x) == 0 && x == X_REG);
	CHECK_ERR(p4dp_runtime_extern_find(rt, "ingress.none", &x), -ENOENT, "no extern");

	/* indexed counter: cell = in_port */
	CHECK(p4dp_runtime_counter_reset(rt, X_PKT_COUNTER) == 0);
	mkpkt(pkt, 0, 200);
	inject(rt, 3, pkt, 64, &o);
	inject(rt, 3, pkt, 50, &o);
	CHECK(p4dp_runtime_counter_read(rt, X_PKT_COUNTER, 3, &cell) == 0 && cell.packets == 2 && cell.bytes == 114);
	CHECK(p4dp_runtime_counter_write(rt, X_PKT_COUNTER, 3, &set) == 0);
	inject(rt, 3, pkt, 64, &o);
	CHECK(p4dp_runtime_counter_read(rt, X_PKT_COUNTER, 3, &cell) == 0 && cell.packets == 6 && cell.bytes == 114);
	CHECK_ERR(p4dp_runtime_counter_read(rt, X_PKT_COUNTER, 16, &cell), -EINVAL, "index 16 out of range");
	CHECK_ERR(p4dp_runtime_counter_read(rt, X_REG, 0, &cell), -EINVAL, "not a counter");

	/* registers: 48-bit cells, program increments reg[b0 & 7] */
	uint8_t be[8], v6[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06 }, v7[7] = { 0 };
	mkpkt(pkt, 4, 2);
	inject(rt, 0, pkt, 64, &o);
	inject(rt, 0, pkt, 64, &o);
	CHECK(p4dp_runtime_register_read(rt, X_REG, 2, be, sizeof(be)) == 6);
	CHECK(be[0] == 0 && be[4] == 0 && be[5] == 2);
	CHECK(p4dp_runtime_register_write(rt, X_REG, 2, v6, 6) == 0);
	inject(rt, 0, pkt, 64, &o);
	CHECK(p4dp_runtime_register_read(rt, X_REG, 2, be, sizeof(be)) == 6 && be[0] == 1 && be[5] == 7);
	CHECK_ERR(p4dp_runtime_register_write(rt, X_REG, 2, v7, 7), -EINVAL, "7 bytes given for a 48-bit value");
	CHECK_ERR(p4dp_runtime_register_write(rt, X_REG, 8, v6, 6), -EINVAL, "out of range");
	CHECK_ERR(p4dp_runtime_register_read(rt, X_REG, 2, be, 5), -ENOSPC, "needs 6 bytes");
	CHECK(p4dp_runtime_register_reset(rt, X_REG) == 0);
	CHECK(p4dp_runtime_register_read(rt, X_REG, 2, be, sizeof(be)) == 6 && be[0] == 0 && be[5] == 0);

	/* meter (bytes): unconfigured -> green; cir 1000 B/s burst 100, pir 2000 B/s burst 200 */
	mkpkt(pkt, 3, 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == P4DP_GREEN);
	struct p4dp_meter_config mc = { 1000, 100, 2000, 200, 0 }, got;
	p4dp_runtime_time_set(rt, 5000000000ull);
	CHECK(p4dp_runtime_meter_set(rt, X_METER, 0, &mc) == 0);
	CHECK(p4dp_runtime_meter_get(rt, X_METER, 0, &got) == 1 && got.pir == 2000);
	CHECK(p4dp_runtime_meter_get(rt, X_METER, 1, &got) == 0);
	uint8_t big[100];
	mkpkt(big, 3, 0);
	memset(big + 64, 0, 36);
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_GREEN);
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_YELLOW);
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_RED);
	p4dp_runtime_time_advance(rt, 50000000ull); /* 50 ms: +50 B committed, +100 B peak */
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_YELLOW);
	p4dp_runtime_time_advance(rt, 100000000ull); /* 100 ms: committed full again */
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_GREEN);
	CHECK(p4dp_runtime_meter_set(rt, X_METER, 0, NULL) == 0);
	CHECK(inject(rt, 0, big, 100, &o) == 1 && o.port[0] == P4DP_GREEN);
	CHECK_ERR(p4dp_runtime_meter_set(rt, X_METER, 4, &mc), -EINVAL, "out of range");

	/* digests */
	mkpkt(pkt, 5, 0xab);
	pkt[1] = 1, pkt[2] = 2, pkt[3] = 3;
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	n_digests = 0;
	CHECK(p4dp_runtime_digest_poll(rt, X_DIGEST, digest_cb, NULL, 0) == 1);
	CHECK(n_digests == 1 && digest_bytes[0] == 0xab && digest_bytes[3] == 3);
	CHECK(p4dp_runtime_digest_poll(rt, X_DIGEST, digest_cb, NULL, 0) == 0);
	CHECK(p4dp_runtime_digest_drops_get(rt, X_DIGEST) == 0);
	for (int i = 0; i < 20; i++)
		inject(rt, 0, pkt, 64, &o);
	CHECK(p4dp_runtime_digest_poll(rt, X_DIGEST, digest_cb, NULL, 0) == 16); /* qlen 16 in this test */
	CHECK(p4dp_runtime_digest_drops_get(rt, X_DIGEST) == 4);

	/* multicast */
	uint32_t pa[] = { 2, 1, 2 }, pb[] = { 5 }, h1, h2;
	CHECK(p4dp_runtime_mcast_group_create(rt, 3) == 0);
	CHECK_ERR(p4dp_runtime_mcast_group_create(rt, 3), -EEXIST, "already exists");
	CHECK(p4dp_runtime_mcast_node_create(rt, 7, pa, 3, &h1) == 0);
	CHECK(p4dp_runtime_mcast_node_create(rt, 8, pb, 1, &h2) == 0 && h2 == h1 + 1);
	CHECK(p4dp_runtime_mcast_node_associate(rt, 3, h1) == 0);
	CHECK(p4dp_runtime_mcast_node_associate(rt, 3, h2) == 0);
	CHECK_ERR(p4dp_runtime_mcast_node_associate(rt, 3, h2), -EBUSY, "already associated");
	CHECK_ERR(p4dp_runtime_mcast_node_associate(rt, 4, h2), -ENOENT, "does not exist");
	mkpkt(pkt, 6, 3);
	CHECK(inject(rt, 0, pkt, 64, &o) == 3);
	CHECK(o.port[0] == 1 && o.data[0][11] == 7 && o.port[1] == 2 && o.data[1][11] == 7 && o.port[2] == 5 &&
	      o.data[2][11] == 8);
	CHECK(p4dp_runtime_mcast_node_dissociate(rt, 3, h1) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 5);
	uint32_t dp[] = { 9 };
	uint16_t dr[] = { 4 };
	CHECK(p4dp_runtime_mcast_group_set(rt, 3, dp, dr, 1) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 5 && o.port[1] == 9 && o.data[1][11] == 4);
	CHECK(p4dp_runtime_mcast_group_delete(rt, 3) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	CHECK(p4dp_runtime_mcast_node_delete(rt, h1) == 0);
	CHECK_ERR(p4dp_runtime_mcast_node_delete(rt, h1), -ENOENT, "no multicast node");

	/* clone: copy to the session's port first, then the packet itself */
	uint8_t k4 = 4, p1[] = { 1 };
	struct p4dp_rt_key key = k1(P4DP_RT_KEY_EXACT, &k4, 1);
	struct p4dp_rt_param par = { p1, 1 };
	struct p4dp_rt_entry e = ent(1, &key, 0, A_SET_PORT, 1, &par);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &e) == 0);
	mkpkt(pkt, 7, 4);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 1);
	uint32_t cp[] = { 6, 2, 9 };
	uint16_t cr[] = { 0, 21, 22 };
	CHECK(p4dp_runtime_clone_session_set(rt, 4, cp, cr, 1, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 6 && o.port[1] == 1);
	/* several replicas: one copy each, in order, with its instance; then the packet itself */
	CHECK(p4dp_runtime_clone_session_set(rt, 4, cp, cr, 3, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 4 && o.port[0] == 6 && o.port[1] == 2 && o.port[2] == 9 && o.port[3] == 1);
	CHECK(o.data[0][11] == 0 && o.data[1][11] == 21 && o.data[2][11] == 22 && o.len[2] == 64);
	/* truncation: the copies only */
	CHECK(p4dp_runtime_clone_session_set(rt, 4, cp + 1, cr + 1, 2, 20) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 3 && o.port[0] == 2 && o.port[1] == 9 && o.len[0] == 20 && o.len[1] == 20);
	CHECK(o.port[2] == 1 && o.len[2] == 64 && o.data[1][11] == 22);
	/* no replicas: no copies; bad arguments leave the session as it was */
	CHECK(p4dp_runtime_clone_session_set(rt, 4, NULL, NULL, 0, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 1);
	CHECK(p4dp_runtime_clone_session_set(rt, 4, cp, cr, 3, 0) == 0);
	uint32_t badp[] = { 3, P4DP_PORT_DROP };
	CHECK_ERR(p4dp_runtime_clone_session_set(rt, 4, badp, cr, 2, 0), -EINVAL, "out of range");
	CHECK_ERR(p4dp_runtime_clone_session_set(rt, 4, cp, cr, P4DP_CLONE_REPLICAS_MAX + 1, 0), -EINVAL,
		  "at most");
	CHECK(inject(rt, 0, pkt, 64, &o) == 4 && o.port[2] == 9);
	CHECK(p4dp_runtime_clone_session_delete(rt, 4) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 1);
	CHECK_ERR(p4dp_runtime_clone_session_delete(rt, 4), -ENOENT, "not set");
	CHECK_ERR(p4dp_runtime_clone_session_set(rt, 70000, cp, cr, 1, 0), -EINVAL, "out of range");
	CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &e) == 0);

	/* header replacement via p4dp_pkt_finish */
	mkpkt(pkt, 8, 0x55);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 1 && o.len[0] == 66);
	CHECK(memcmp(o.data[0], "HDR!", 4) == 0 && memcmp(o.data[0] + 4, pkt + 2, 62) == 0);

	/* assert, log, unsupported */
	struct p4dp_rt_stats st0, st1;
	CHECK(p4dp_runtime_stats_get(rt, &st0) == 0);
	mkpkt(pkt, 9, 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	mkpkt(pkt, 10, 5);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1);
	CHECK(strcmp(log_line, "x=5 y=12345678901 z={}") == 0);
	mkpkt(pkt, 200, 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	CHECK(p4dp_runtime_stats_get(rt, &st1) == 0);
	CHECK(st1.asserts == st0.asserts + 1 && st1.unsupported == st0.unsupported + 1);
	CHECK(st1.packets == st0.packets + 3 && st1.drops == st0.drops + 2);
}

/* Port liveness: multicast and clone replicas move to their first live backup and back; a replica
 * whose every port is down makes no copy and is counted. */
static void test_liveness(struct p4dp_runtime *rt)
{
	struct outs o;
	uint8_t pkt[64];
	struct p4dp_rt_port_state ps;
	struct p4dp_rt_stats st0, st1;
	/* replica 1: port 2 (rid 1), backups port 3 (rid 5), port 4 (rid 6); replica 2: port 7 (rid 2) */
	const struct p4dp_rt_replica reps[] = {
		{ 2, 1, 0 }, { 3, 5, 1 }, { 4, 6, 1 }, { 7, 2, 0 },
	};
	CHECK(p4dp_runtime_mcast_group_set_replicas(rt, 5, reps, 4) == 0);
	mkpkt(pkt, 6, 5);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 2 && o.data[0][11] == 1 && o.port[1] == 7);
	CHECK(p4dp_runtime_port_state_get(rt, 2, &ps) == 0 && ps.live && ps.admin_up && ps.link_up);
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 0) == 0);
	CHECK(p4dp_runtime_port_state_get(rt, 2, &ps) == 0 && !ps.live && !ps.admin_up && ps.link_up);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 3 && o.data[0][11] == 5 && o.port[1] == 7);
	CHECK(p4dp_runtime_port_admin_set(rt, 3, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 4 && o.data[0][11] == 6 && o.port[1] == 7);
	/* the primary back up: it makes the copy again, although its backups are down or up */
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 1) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 2 && o.data[0][11] == 1);
	/* every port of the chain down: no copy for that replica, counted once per packet */
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 0) == 0 && p4dp_runtime_port_admin_set(rt, 4, 0) == 0);
	CHECK(p4dp_runtime_stats_get(rt, &st0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 7);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 7);
	CHECK(p4dp_runtime_stats_get(rt, &st1) == 0 && st1.replicas_down == st0.replicas_down + 2);
	/* a replica without backups on a down port makes no copy either */
	CHECK(p4dp_runtime_port_admin_set(rt, 7, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 0);
	for (uint32_t p = 2; p <= 7; p++)
		CHECK(p4dp_runtime_port_admin_set(rt, p, 1) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 2);
	/* a group set while its port is down starts on the backup */
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 0) == 0);
	CHECK(p4dp_runtime_mcast_group_set_replicas(rt, 5, reps, 3) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 3);
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 1) == 0);
	/* bad chains are refused and leave the group as it was */
	const struct p4dp_rt_replica first_backup[] = { { 3, 5, 1 } }, same_port[] = { { 2, 1, 0 }, { 2, 5, 1 } },
				     far[] = { { 2, 1, 0 }, { P4DP_PORT_DROP, 5, 1 } };
	CHECK_ERR(p4dp_runtime_mcast_group_set_replicas(rt, 5, first_backup, 1), -EINVAL, "first replica is a backup");
	CHECK_ERR(p4dp_runtime_mcast_group_set_replicas(rt, 5, same_port, 2), -EINVAL, "same port");
	CHECK_ERR(p4dp_runtime_mcast_group_set_replicas(rt, 5, far, 2), -EINVAL, "out of range");
	CHECK_ERR(p4dp_runtime_port_admin_set(rt, P4DP_PORT_DROP, 0), -EINVAL, "out of range");
	CHECK(inject(rt, 0, pkt, 64, &o) == 1 && o.port[0] == 2 && o.data[0][11] == 1);
	CHECK(p4dp_runtime_mcast_group_delete(rt, 5) == 0);

	/* clone session: the same chains; the packet itself goes to its own port (1) */
	uint8_t k4 = 4, p1[] = { 1 };
	struct p4dp_rt_key key = k1(P4DP_RT_KEY_EXACT, &k4, 1);
	struct p4dp_rt_param par = { p1, 1 };
	struct p4dp_rt_entry e = ent(1, &key, 0, A_SET_PORT, 1, &par);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &e) == 0);
	CHECK(p4dp_runtime_clone_session_set_replicas(rt, 4, reps, 4, 0, 3) == 0);
	/* a bad chain is refused and leaves the session as it was (the injects below) */
	CHECK_ERR(p4dp_runtime_clone_session_set_replicas(rt, 4, same_port, 2, 0, 0), -EINVAL,
		  "clone session 4: a backup of the replica on port 2 is on the same port");
	mkpkt(pkt, 7, 4);
	CHECK(inject(rt, 0, pkt, 64, &o) == 3 && o.port[0] == 2 && o.port[1] == 7 && o.port[2] == 1);
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 3 && o.port[0] == 3 && o.data[0][11] == 5 && o.port[1] == 7);
	CHECK(p4dp_runtime_port_admin_set(rt, 3, 0) == 0 && p4dp_runtime_port_admin_set(rt, 4, 0) == 0);
	CHECK(p4dp_runtime_stats_get(rt, &st0) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 2 && o.port[0] == 7 && o.port[1] == 1);
	CHECK(p4dp_runtime_stats_get(rt, &st1) == 0 && st1.replicas_down == st0.replicas_down + 1);
	CHECK(p4dp_runtime_port_admin_set(rt, 2, 1) == 0);
	CHECK(inject(rt, 0, pkt, 64, &o) == 3 && o.port[0] == 2 && o.data[0][11] == 1);
	CHECK(p4dp_runtime_port_admin_set(rt, 3, 1) == 0 && p4dp_runtime_port_admin_set(rt, 4, 1) == 0);
	CHECK(p4dp_runtime_clone_session_delete(rt, 4) == 0);
	CHECK(p4dp_runtime_table_entry_delete(rt, T_FWD, &e) == 0);
}

static void test_pkt_finish(void)
{
	uint8_t buf[64], emit[32];
	memset(buf, 0xee, sizeof(buf));
	memset(emit, 0x11, sizeof(emit));
	struct p4dp_pkt p = { buf + 8, 40, 8, 16, 0, 0, NULL };
	for (int i = 0; i < 40; i++)
		buf[8 + i] = (uint8_t)i;
	/* 20-byte header -> 30 bytes: must move the payload to the right, within the buffer */
	CHECK(p4dp_pkt_finish(&p, emit, 30, 20, 0) == 0);
	CHECK(p.len == 50 && p.data == buf && p.headroom == 0 && p.tailroom == 14);
	CHECK(p.data[29] == 0x11 && p.data[30] == 20 && p.data[49] == 39);
	CHECK(p4dp_pkt_finish(&p, emit, 4, 30, 10) == 0 && p.len == 10 && p.data[4] == 20);
	struct p4dp_pkt q = { buf + 8, 40, 8, 16, 0, 0, NULL };
	CHECK(p4dp_pkt_finish(&q, emit, 32, 0, 0) == -ENOSPC && q.data == NULL); /* 72 > 64 */
	struct p4dp_pkt r = { buf + 8, 40, 8, 16, 0, 0, NULL };
	CHECK(p4dp_pkt_finish(&r, emit, 4, 41, 0) == -EINVAL && r.data == NULL);
}

/* ------------------------------------------------------------ pcap ports */

/* The keys of the pcap being written (write_pcap). */
static const uint8_t *g_pcap_keys;

static void fill_keyed(uint8_t *pkt, uint32_t i)
{
	mkpkt(pkt, 0, g_pcap_keys[i]);
	pkt[11] = (uint8_t)i;
}

/* @p n packets, packet i with key keys[i] and sequence number i in byte 11. */
static int write_pcap(const char *path, uint32_t n, const uint8_t *keys)
{
	g_pcap_keys = keys;
	return test_pcap_write(path, n, fill_keyed);
}

/* Reads a pcap; returns packet count, fills seq[] with byte 11 of each packet. */
static int read_pcap(const char *path, uint8_t *seq, int max)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t h[24], r[16], pkt[2048];
	int n = 0;
	if (fread(h, 1, 24, f) != 24) {
		fclose(f);
		return -1;
	}
	while (fread(r, 1, 16, f) == 16) {
		uint32_t len;
		memcpy(&len, r + 8, 4);
		if (len > sizeof(pkt) || fread(pkt, 1, len, f) != len)
			break;
		if (n < max && len > 11)
			seq[n] = pkt[11];
		n++;
	}
	fclose(f);
	return n;
}

/* The workers' clock policy (worker.c): a saturated worker still reads the clock every
 * RT_CLOCK_EVERY iterations, any other every iteration. */
static void test_clock_policy(void)
{
	for (uint32_t since = 0; since < 3 * RT_CLOCK_EVERY; since++) {
		CHECK(rt_clock_due(false, since));
		CHECK(rt_clock_due(true, since) == (since >= RT_CLOCK_EVERY));
	}
	CHECK(RT_CLOCK_EVERY >= 1 && RT_CLOCK_EVERY <= 8);
}

static void test_ports(const char *so, const char *dir, uint32_t workers, int id)
{
	struct p4dp_runtime_params pp = { .program_path = so, .max_workers = 2 };
	struct p4dp_runtime *rt;
	CHECK(p4dp_runtime_create(&pp, &rt) == 0);
	if (rt == NULL)
		return;
	char in0[PATH_MAX], in1[PATH_MAX], out0[PATH_MAX], out1[PATH_MAX], dev[4 * PATH_MAX];
	snprintf(in0, sizeof(in0), "%s/rt_in0.pcap", dir);
	snprintf(in1, sizeof(in1), "%s/rt_in1.pcap", dir);
	snprintf(out0, sizeof(out0), "%s/rt_out0_%d.pcap", dir, id);
	snprintf(out1, sizeof(out1), "%s/rt_out1_%d.pcap", dir, id);
	uint8_t keys0[10] = { 0, 1, 0, 1, 0, 1, 0, 1, 0, 1 }, keys1[6] = { 0, 0, 0, 0, 0, 2 };
	CHECK(write_pcap(in0, 10, keys0) == 0 && write_pcap(in1, 6, keys1) == 0);
	snprintf(dev, sizeof(dev), "net_pcap_rt%da,rx_pcap=%s,tx_pcap=%s", id, in0, out0);
	CHECK(p4dp_runtime_port_add(rt, 0, dev) == 0);
	snprintf(dev, sizeof(dev), "net_pcap_rt%db,rx_pcap=%s,tx_pcap=%s", id, in1, out1);
	CHECK(p4dp_runtime_port_add(rt, 1, dev) == 0);
	CHECK_ERR(p4dp_runtime_port_add(rt, 1, "net_null_x"), -EEXIST, "already exists");
	CHECK_ERR(p4dp_runtime_port_add(rt, 2, "net_nosuchdriver0"), -ENODEV, "cannot create device");

	uint8_t k0 = 0, k1v = 1, p0[] = { 0 }, p1[] = { 1 };
	struct p4dp_rt_key ka = k1(P4DP_RT_KEY_EXACT, &k0, 1), kb = k1(P4DP_RT_KEY_EXACT, &k1v, 1);
	struct p4dp_rt_param pa = { p0, 1 }, pb = { p1, 1 };
	struct p4dp_rt_entry ea = ent(1, &ka, 0, A_SET_PORT, 1, &pa), eb = ent(1, &kb, 0, A_SET_PORT, 1, &pb);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &ea) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &eb) == 0);

	struct p4dp_run_params rp = { .n_workers = workers, .until_input_done = 1, .duration_ms = 10000 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	struct p4dp_rt_port_stats s0, s1;
	CHECK(p4dp_runtime_port_stats_get(rt, 0, &s0) == 0 && p4dp_runtime_port_stats_get(rt, 1, &s1) == 0);
	CHECK(s0.rx_packets == 10 && s1.rx_packets == 6);
	CHECK(s0.tx_packets == 10 && s1.tx_packets == 5); /* 5 + 5 to port 0, 5 to port 1 */
	CHECK(s1.drops == 1 && s0.tx_errors == 0 && s1.tx_errors == 0);
	/* 64-byte frames; the worker sums the bytes while it writes the views back (process path) */
	CHECK(s0.rx_bytes == 10 * 64 && s1.rx_bytes == 6 * 64);
	CHECK(s0.tx_bytes == 10 * 64 && s1.tx_bytes == 5 * 64);
	CHECK_ERR(p4dp_runtime_port_stats_get(rt, 7, &s0), -ENOENT, "no port 7");
	p4dp_runtime_free(rt); /* closes the devices: the output files are complete */

	uint8_t seq[32];
	int n0 = read_pcap(out0, seq, 32);
	CHECK(n0 == 10);
	/* port 0 got keys-0 packets of in0 (seq 0,2,4,6,8) and of in1 (seq 0..4), in any interleaving */
	int hist[16] = { 0 };
	for (int i = 0; i < n0 && i < 32; i++)
		if (seq[i] < 16)
			hist[seq[i]]++;
	CHECK(hist[0] == 2 && hist[1] == 1 && hist[2] == 2 && hist[3] == 1 && hist[4] == 2 && hist[6] == 1 &&
	      hist[8] == 1);
	int n1 = read_pcap(out1, seq, 32);
	CHECK(n1 == 5);
	for (int i = 0; i < n1 && i < 5; i++)
		CHECK(seq[i] == 2 * i + 1); /* in order, from in0 */
}

/* A ring port: packets sent by the control thread are processed as received on it, packets the
 * program sends to it come back through recv; a full queue and misuse are errors. */
static void test_ring_port(const char *so)
{
	struct p4dp_runtime_params pp = { .program_path = so, .max_workers = 1 };
	struct p4dp_runtime *rt;
	CHECK(p4dp_runtime_create(&pp, &rt) == 0);
	if (rt == NULL)
		return;
	CHECK_ERR(p4dp_runtime_ring_port_add(rt, P4DP_PORT_DROP, 0), -EINVAL, "out of range");
	CHECK_ERR(p4dp_runtime_ring_port_add(rt, 5, 70000), -EINVAL, "queue length");
	CHECK(p4dp_runtime_ring_port_add(rt, 5, 4) == 0);
	CHECK_ERR(p4dp_runtime_ring_port_add(rt, 5, 0), -EEXIST, "already exists");
	uint8_t pkt[64];
	mkpkt(pkt, 0, 0);
	CHECK_ERR(p4dp_runtime_ring_port_send(rt, 5, pkt, 64), -EAGAIN, "before the first run");
	CHECK_ERR(p4dp_runtime_ring_port_send(rt, 6, pkt, 64), -ENOENT, "not a ring port");
	/* fwd: key 0 -> port 5 (the ring port), key 1 -> port 9 (no such port) */
	uint8_t k0 = 0, k1v = 1, p5[] = { 5 }, p9[] = { 9 };
	struct p4dp_rt_key ka = k1(P4DP_RT_KEY_EXACT, &k0, 1), kb = k1(P4DP_RT_KEY_EXACT, &k1v, 1);
	struct p4dp_rt_param pa = { p5, 1 }, pb = { p9, 1 };
	struct p4dp_rt_entry ea = ent(1, &ka, 0, A_SET_PORT, 1, &pa), eb = ent(1, &kb, 0, A_SET_PORT, 1, &pb);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &ea) == 0);
	CHECK(p4dp_runtime_table_entry_add(rt, T_FWD, &eb) == 0);
	struct p4dp_run_params rp = { .n_workers = 1, .duration_ms = 20 };
	CHECK(p4dp_runtime_run(rt, &rp) == 0); /* creates the packet buffers */
	/* queued while stopped: 3 to the ring port (each with its own byte 11), 1 to no port */
	for (uint8_t i = 0; i < 3; i++) {
		pkt[11] = i;
		CHECK(p4dp_runtime_ring_port_send(rt, 5, pkt, 64) == 0);
	}
	mkpkt(pkt, 0, 1);
	CHECK(p4dp_runtime_ring_port_send(rt, 5, pkt, 64) == 0);
	/* the input queue holds 4 packets */
	CHECK_ERR(p4dp_runtime_ring_port_send(rt, 5, pkt, 64), -ENOBUFS, "full");
	CHECK_ERR(p4dp_runtime_ring_port_send(rt, 5, pkt, 0), -EINVAL, "empty");
	CHECK_ERR(p4dp_runtime_ring_port_send(rt, 5, pkt, 100000), -EINVAL, "do not fit");
	rp.duration_ms = 100;
	CHECK(p4dp_runtime_run(rt, &rp) == 0);
	struct outs o;
	memset(&o, 0, sizeof(o));
	CHECK(p4dp_runtime_ring_port_recv(rt, 5, out_cb, &o, 2) == 2);
	CHECK(p4dp_runtime_ring_port_recv(rt, 5, out_cb, &o, 0) == 1);
	CHECK(o.n == 3);
	for (int i = 0; i < 3 && i < o.n; i++)
		CHECK(o.port[i] == 5 && o.len[i] == 64 && o.data[i][11] == i && o.data[i][0] == 0);
	CHECK(p4dp_runtime_ring_port_recv(rt, 5, out_cb, &o, 0) == 0);
	struct p4dp_rt_port_stats ps;
	CHECK(p4dp_runtime_port_stats_get(rt, 5, &ps) == 0 && ps.rx_packets == 4 && ps.tx_packets == 3);
	struct p4dp_rt_stats st;
	CHECK(p4dp_runtime_stats_get(rt, &st) == 0 && st.no_port == 1);
	CHECK_ERR(p4dp_runtime_ring_port_recv(rt, 5, NULL, NULL, 0), -EINVAL, "NULL callback");
	/* left in the queues at free: freed with the runtime (ASan/LSan would report a leak) */
	mkpkt(pkt, 0, 0);
	CHECK(p4dp_runtime_ring_port_send(rt, 5, pkt, 64) == 0);
	p4dp_runtime_free(rt);
}

/* ------------------------------------------------------------ main */

/* Each worker's table hit and miss counters lie on cache lines no other worker writes (their
 * increments would otherwise bounce lines between the workers' cores), and a control-API read
 * sums every worker's counters. */
static void test_counter_lines(struct p4dp_runtime *rt)
{
	const uint32_t nt = rt->prog->n_tables, nw = rt->max_workers;
	CHECK(nw >= 2);
	for (uint32_t w = 0; w < nw; w++) {
		const struct p4dp_ctx *c = &rt->workers[w].ctx;
		const uintptr_t lo = (uintptr_t)c->table_hits < (uintptr_t)c->table_misses ? (uintptr_t)c->table_hits
											: (uintptr_t)c->table_misses;
		const uintptr_t hi = ((uintptr_t)c->table_hits > (uintptr_t)c->table_misses ? (uintptr_t)c->table_hits
											 : (uintptr_t)c->table_misses) +
				     nt * sizeof(uint64_t);
		CHECK(c->table_hits + nt <= c->table_misses || c->table_misses + nt <= c->table_hits);
		for (uint32_t v = 0; v < nw; v++) {
			if (v == w)
				continue;
			const struct p4dp_ctx *o = &rt->workers[v].ctx;
			const uint64_t *arr[2] = { o->table_hits, o->table_misses };
			for (int a = 0; a < 2; a++) {
				/* the lines of the other worker's array: none may hold a byte of w's */
				const uintptr_t olo = (uintptr_t)arr[a] & ~(uintptr_t)63;
				const uintptr_t ohi = ((uintptr_t)(arr[a] + nt) + 63) & ~(uintptr_t)63;
				CHECK(ohi <= (lo & ~(uintptr_t)63) || olo >= ((hi + 63) & ~(uintptr_t)63));
			}
		}
	}
	/* what a worker counts reaches the control API, for every worker */
	struct p4dp_rt_table_stats st0, st1;
	CHECK(p4dp_runtime_table_stats_get(rt, T_ACL, &st0) == 0);
	rt->workers[nw - 1].ctx.table_hits[T_ACL] += 3;
	rt->workers[0].ctx.table_misses[T_ACL] += 2;
	CHECK(p4dp_runtime_table_stats_get(rt, T_ACL, &st1) == 0);
	CHECK(st1.hits == st0.hits + 3 && st1.misses == st0.misses + 2);
	rt->workers[nw - 1].ctx.table_hits[T_ACL] -= 3;
	rt->workers[0].ctx.table_misses[T_ACL] -= 2;
}

int main(int argc, char **argv)
{
	(void)argc;
	char dir[PATH_MAX], so[PATH_MAX + 64];
	if (test_prog_build("rt", "rt_prog_tiny", dir, sizeof(dir), so, sizeof(so)) != 0)
		return 1;
	if (dlsym(RTLD_DEFAULT, "p4dp_pkt_finish") == NULL)
		fprintf(stderr, "warning: this binary does not export p4dp_* symbols (link with -rdynamic); "
				"loading the program will fail\n");

	/* (--in-memory is rejected together with --no-huge by DPDK 22.11: "not compatible with legacy-mem") */
	test_clock_policy();
	if (test_eal_init(argv[0], "0@0,1@(0-1),2@(0-1)") != 0)
		return test_finish(dir, n_pass, n_fail + 1);
	char *again[] = { argv[0], "--no-huge", "--no-pci", NULL };
	CHECK_ERR(p4dp_eal_init(3, again), -EALREADY, "already");

	struct p4dp_runtime *rt = NULL;
	struct p4dp_runtime_params bad = { .program_path = "/nonexistent/prog.so" };
	CHECK_ERR(p4dp_runtime_create(&bad, &rt), -ENOENT, "cannot load");
	bad.program_path = "libc.so.6";
	CHECK_ERR(p4dp_runtime_create(&bad, &rt), -EINVAL, "does not export symbol p4dp_program");

	struct p4dp_runtime_params pp = { .program_path = so, .max_workers = 2, .digest_qlen = 16,
					  .log_fn = log_cb };
	int rc = p4dp_runtime_create(&pp, &rt);
	CHECK(rc == 0);
	if (rc != 0)
		return test_finish(dir, n_pass, n_fail);
	const struct p4dp_program *prog = p4dp_runtime_program_get(rt);
	CHECK(prog && prog->n_tables == 4 && strcmp(prog->tables[T_ACL].name, "ingress.acl") == 0);

	test_counter_lines(rt);
	test_fwd(rt);
	test_validation(rt);
	test_acl(rt);
	test_wide(rt);
	test_entries_add(rt);
	test_externs(rt);
	test_liveness(rt);
	test_pkt_finish();
	struct p4dp_run_params rp = { .n_workers = 1, .duration_ms = 10 };
	CHECK_ERR(p4dp_runtime_run(rt, &rp), -EINVAL, "no ports");
	p4dp_runtime_free(rt);

	test_ports(so, dir, 1, 1);
	test_ports(so, dir, 2, 2);
	test_ring_port(so);
	return test_finish(dir, n_pass, n_fail);
}

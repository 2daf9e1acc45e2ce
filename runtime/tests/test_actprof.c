/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of action profiles and selectors (rt.h "Action profiles and selectors", src/actprof.c)
 * with the hand-written program tests/rt_prog_ap.c (compiled to a .so at start, as test_rt.c
 * does): every control API error case (precise message, state unchanged) and packet resolution
 * through members, groups (hash % size, members by id, weights) and empty groups, and groups
 * whose weights are far above what is kept expanded (sum-of-members selectors).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4dp/rt.h"
#include "tsan_test.h"

#include "check.h"

enum { A_SET, A_DROP, A_DEF_ONLY };
enum { T_PROF, T_SEL, T_PLAIN };
enum { X_PROF, X_SEL };

struct out {
	int n;
	uint32_t port;
	uint8_t tag, hit;
};

static void out_cb(void *arg, uint32_t port, const uint8_t *data, uint32_t len)
{
	struct out *o = arg;
	o->n++;
	o->port = port;
	if (len >= 5) {
		o->tag = data[3];
		o->hit = data[4];
	}
}

/* Apply table @p t with key @p key and selector hash @p hash; returns the output (n 0: dropped). */
static struct out pkt(struct p4dp_runtime *rt, uint8_t t, uint8_t key, uint8_t hash)
{
	uint8_t p[8] = { t, key, hash, 0, 0, 0, 0, 0 };
	struct out o = { 0 };
	CHECK(p4dp_runtime_packet_inject(rt, 0, p, sizeof(p), out_cb, &o) >= 0);
	return o;
}

static int set_member(struct p4dp_runtime *rt, uint32_t ext, uint32_t id, uint8_t port, uint8_t tag, int modify)
{
	uint8_t pv[2] = { 0, port }, tv[1] = { tag };
	struct p4dp_rt_param ps[2] = { { pv, 2 }, { tv, 1 } };
	return modify ? p4dp_runtime_actprof_member_modify(rt, ext, id, A_SET, 2, ps)
		      : p4dp_runtime_actprof_member_add(rt, ext, id, A_SET, 2, ps);
}

static struct p4dp_rt_key key1_v;
static const struct p4dp_rt_entry *match(uint8_t *kb)
{
	static struct p4dp_rt_entry e;
	key1_v = (struct p4dp_rt_key){ .type = P4DP_RT_KEY_EXACT, .value = kb, .value_len = 1 };
	e = (struct p4dp_rt_entry){ .n_keys = 1, .keys = &key1_v };
	return &e;
}

struct got {
	int n;
	uint32_t action, n_params;
	uint8_t p[2][4];
	uint32_t len[2];
};

static int got_cb(void *arg, const struct p4dp_rt_entry *e)
{
	struct got *g = arg;
	g->n++;
	g->action = e->action;
	g->n_params = e->n_params;
	for (uint32_t i = 0; i < e->n_params && i < 2; i++) {
		g->len[i] = e->params[i].len;
		memcpy(g->p[i], e->params[i].value, e->params[i].len < 4 ? e->params[i].len : 4);
	}
	return 0;
}

static void test_members(struct p4dp_runtime *rt)
{
	uint8_t pv[2] = { 0, 1 }, tv[1] = { 0xaa }, wide[2] = { 0x04, 0x00 }, k1 = 1, k2 = 2;
	struct p4dp_rt_param ps[2] = { { pv, 2 }, { tv, 1 } };
	struct p4dp_rt_param bad[2] = { { wide, 2 }, { tv, 1 } };

	CHECK_ERR(p4dp_runtime_actprof_member_add(rt, 9, 1, A_SET, 2, ps), -EINVAL, "extern index 9 out of range");
	CHECK_ERR(p4dp_runtime_actprof_member_add(rt, X_PROF, 1, 7, 2, ps), -EINVAL, "action index 7 out of range");
	CHECK_ERR(p4dp_runtime_actprof_member_add(rt, X_PROF, 1, A_DEF_ONLY, 1, ps), -EINVAL, "@defaultonly");
	CHECK_ERR(p4dp_runtime_actprof_member_add(rt, X_PROF, 1, A_SET, 1, ps), -EINVAL, "takes 2 parameters, 1 given");
	CHECK_ERR(p4dp_runtime_actprof_member_add(rt, X_PROF, 1, A_SET, 2, bad), -EINVAL, "does not fit in 9 bits");
	CHECK_ERR(p4dp_runtime_actprof_member_modify(rt, X_PROF, 10, A_SET, 2, ps), -ENOENT, "has no member 10");
	CHECK(set_member(rt, X_PROF, 10, 1, 0xaa, 0) == 0);
	CHECK_ERR(set_member(rt, X_PROF, 10, 1, 0xaa, 0), -EEXIST, "already has a member 10");
	CHECK(set_member(rt, X_PROF, 11, 5, 0x55, 0) == 0);
	CHECK(set_member(rt, X_PROF, 12, 5, 0x55, 0) == 0);
	CHECK(set_member(rt, X_PROF, 13, 5, 0x55, 0) == 0);
	CHECK_ERR(set_member(rt, X_PROF, 14, 5, 0x55, 0), -ENOSPC, "is full (4 members)");
	CHECK(set_member(rt, X_PROF, 10, 2, 0xbb, 1) == 0);
	struct got g = { 0 };
	CHECK(p4dp_runtime_actprof_member_get(rt, X_PROF, 10, got_cb, &g) == 0);
	CHECK(g.n == 1 && g.action == A_SET && g.n_params == 2 && g.len[0] == 2 && g.p[0][1] == 2 &&
	      g.p[1][0] == 0xbb);
	CHECK_ERR(p4dp_runtime_actprof_member_get(rt, X_PROF, 99, got_cb, &g), -ENOENT, "has no member 99");
	CHECK_ERR(p4dp_runtime_actprof_group_create(rt, X_PROF, 1), -EINVAL, "is not a selector");

	/* indirect entries */
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_PLAIN, match(&k1), P4DP_RT_REF_MEMBER, 10), -EINVAL,
		  "not implemented by an action profile");
	struct p4dp_rt_entry direct = *match(&k1);
	direct.action = A_SET;
	direct.n_params = 2;
	direct.params = ps;
	CHECK_ERR(p4dp_runtime_table_entry_add(rt, T_PROF, &direct), -EINVAL,
		  "is implemented by action profile 'ingress.prof'");
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k1), P4DP_RT_REF_MEMBER, 99), -ENOENT,
		  "has no member 99");
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k1), 3, 10), -EINVAL, "bad reference kind 3");
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k1), P4DP_RT_REF_GROUP, 10), -EINVAL,
		  "is not a selector");
	CHECK_ERR(p4dp_runtime_table_indirect_entry_modify(rt, T_PROF, match(&k1), P4DP_RT_REF_MEMBER, 10), -ENOENT,
		  "no entry with this match");
	CHECK(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k1), P4DP_RT_REF_MEMBER, 10) == 0);
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k1), P4DP_RT_REF_MEMBER, 11), -EEXIST,
		  "already exists");
	struct out o = pkt(rt, T_PROF, 1, 0);
	CHECK(o.n == 1 && o.port == 2 && o.tag == 0xbb && o.hit == 1);
	o = pkt(rt, T_PROF, 2, 0);
	CHECK(o.n == 0); /* miss: default drop */

	/* read back: one parameter, the member id */
	g = (struct got){ 0 };
	CHECK(p4dp_runtime_table_read(rt, T_PROF, got_cb, &g) == 0);
	CHECK(g.n == 1 && g.action == P4DP_ACTPROF_REF_MEMBER && g.n_params == 1 && g.len[0] == 4 &&
	      g.p[0][0] == 0 && g.p[0][3] == 10);

	/* a member in use cannot be deleted; the failed delete changes nothing */
	CHECK_ERR(p4dp_runtime_actprof_member_delete(rt, X_PROF, 10), -EBUSY,
		  "is used by an entry of table 'ingress.t_prof'");
	o = pkt(rt, T_PROF, 1, 0);
	CHECK(o.n == 1 && o.port == 2 && o.tag == 0xbb);
	CHECK(p4dp_runtime_table_indirect_entry_modify(rt, T_PROF, match(&k1), P4DP_RT_REF_MEMBER, 11) == 0);
	o = pkt(rt, T_PROF, 1, 0);
	CHECK(o.n == 1 && o.port == 5 && o.tag == 0x55);
	CHECK(p4dp_runtime_actprof_member_delete(rt, X_PROF, 10) == 0);
	CHECK_ERR(p4dp_runtime_actprof_member_delete(rt, X_PROF, 10), -ENOENT, "has no member 10");
	CHECK(set_member(rt, X_PROF, 14, 6, 0x66, 0) == 0); /* the freed slot is reused */
	CHECK(p4dp_runtime_table_indirect_entry_add(rt, T_PROF, match(&k2), P4DP_RT_REF_MEMBER, 14) == 0);
	o = pkt(rt, T_PROF, 2, 0);
	CHECK(o.n == 1 && o.port == 6 && o.tag == 0x66);
	CHECK(p4dp_runtime_table_clear(rt, T_PROF) == 0);
	CHECK(p4dp_runtime_actprof_member_delete(rt, X_PROF, 11) == 0);
	uint32_t x = 77;
	CHECK(p4dp_runtime_table_implementation_get(rt, T_SEL, &x) == 0 && x == X_SEL);
	CHECK_ERR(p4dp_runtime_table_implementation_get(rt, T_PLAIN, &x), -ENOENT, "has no action profile");
}

static void test_groups(struct p4dp_runtime *rt)
{
	uint8_t k5 = 5;
	uint32_t ids[4], ws[4];
	CHECK(set_member(rt, X_SEL, 1, 3, 0x33, 0) == 0);
	CHECK(set_member(rt, X_SEL, 2, 4, 0x44, 0) == 0);
	CHECK(p4dp_runtime_actprof_group_create(rt, X_SEL, 7) == 0);
	CHECK_ERR(p4dp_runtime_actprof_group_create(rt, X_SEL, 7), -EEXIST, "already has a group 7");
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 1, 0), -EINVAL, "weight 0 out of range");
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 1, P4DP_RT_ACTPROF_WEIGHT_MAX + 1), -EINVAL,
		  "out of range");
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 99, 1, 1), -ENOENT, "has no group 99");
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 99, 1), -ENOENT, "has no member 99");
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_PROF, 7, 1, 1), -EINVAL, "is not a selector");
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 2, 1) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 1, 1) == 0);
	CHECK_ERR(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 1, 1), -EEXIST, "already in group 7");
	CHECK(p4dp_runtime_actprof_group_get(rt, X_SEL, 7, ids, ws, 4) == 2 && ids[0] == 1 && ids[1] == 2 &&
	      ws[0] == 1 && ws[1] == 1);
	CHECK_ERR(p4dp_runtime_actprof_group_get(rt, X_SEL, 8, ids, ws, 4), -ENOENT, "has no group 8");

	CHECK(p4dp_runtime_table_indirect_entry_add(rt, T_SEL, match(&k5), P4DP_RT_REF_GROUP, 7) == 0);
	CHECK_ERR(p4dp_runtime_table_indirect_entry_add(rt, T_SEL, match(&k5), P4DP_RT_REF_GROUP, 8), -ENOENT,
		  "has no group 8");
	/* hash % 2 picks the member, members ordered by id: 0 -> 1, 1 -> 2, 2 -> 1 */
	struct out o = pkt(rt, T_SEL, 5, 0);
	CHECK(o.n == 1 && o.port == 3 && o.tag == 0x33 && o.hit == 1);
	o = pkt(rt, T_SEL, 5, 1);
	CHECK(o.n == 1 && o.port == 4 && o.tag == 0x44);
	o = pkt(rt, T_SEL, 5, 2);
	CHECK(o.n == 1 && o.port == 3);
	struct got g = { 0 };
	CHECK(p4dp_runtime_table_read(rt, T_SEL, got_cb, &g) == 0);
	CHECK(g.n == 1 && g.action == P4DP_ACTPROF_REF_GROUP && g.n_params == 1 && g.p[0][3] == 7);

	CHECK_ERR(p4dp_runtime_actprof_member_delete(rt, X_SEL, 1), -EBUSY, "still in 1 group(s)");
	CHECK_ERR(p4dp_runtime_actprof_group_delete(rt, X_SEL, 7), -EBUSY, "used by an entry of table 'ingress.t_sel'");
	CHECK_ERR(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 7, 99), -ENOENT, "member 99 is not in group 7");
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 7, 1) == 0);
	o = pkt(rt, T_SEL, 5, 0);
	CHECK(o.n == 1 && o.port == 4);
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 7, 2) == 0);
	o = pkt(rt, T_SEL, 5, 0); /* empty group: default action, a miss */
	CHECK(o.n == 0);

	/* weights: member 1 twice, member 2 once -> hash 0,1 -> 1; 2 -> 2 */
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 1, 2) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 7, 2, 1) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 3 && pkt(rt, T_SEL, 5, 1).port == 3 && pkt(rt, T_SEL, 5, 2).port == 4);

	/* watch ports: a member whose watch port is down is left out of the selection, put back when
	 * it is up again; every member down: a miss, counted */
	struct p4dp_rt_stats st0, st1;
	CHECK(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 7, 1, 10) == 0);
	CHECK(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 7, 2, 11) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 3 && pkt(rt, T_SEL, 5, 2).port == 4);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 0) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 4 && pkt(rt, T_SEL, 5, 1).port == 4 && pkt(rt, T_SEL, 5, 2).port == 4);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 1) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 3 && pkt(rt, T_SEL, 5, 2).port == 4);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 0) == 0 && p4dp_runtime_port_admin_set(rt, 11, 0) == 0);
	CHECK(p4dp_runtime_stats_get(rt, &st0) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).n == 0 && pkt(rt, T_SEL, 5, 1).n == 0);
	CHECK(p4dp_runtime_stats_get(rt, &st1) == 0 && st1.groups_down == st0.groups_down + 2);
	CHECK(p4dp_runtime_port_admin_set(rt, 11, 1) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 4 && pkt(rt, T_SEL, 5, 1).port == 4);
	CHECK_ERR(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 7, 1, P4DP_PORT_DROP), -EINVAL,
		  "out of range");
	CHECK_ERR(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 7, 99, 3), -ENOENT, "not in group 7");
	CHECK_ERR(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 8, 1, 3), -ENOENT, "has no group 8");
	/* no watch port: always selected, whatever port 10 does */
	CHECK(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 7, 1, P4DP_RT_WATCH_NONE) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 3 && pkt(rt, T_SEL, 5, 2).port == 4);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 1) == 0);

	/* random selection: the hash no longer decides; over 3000 packets of one hash member 1
	 * (weight 2) comes about twice as often as member 2, and nothing else; a member whose watch
	 * port is down is never picked; back to the hash */
	CHECK_ERR(p4dp_runtime_actprof_group_random_set(rt, X_SEL, 8, 1), -ENOENT, "has no group 8");
	CHECK_ERR(p4dp_runtime_actprof_group_random_set(rt, X_PROF, 7, 1), -EINVAL, "is not a selector");
	CHECK(p4dp_runtime_actprof_group_random_set(rt, X_SEL, 7, 1) == 0);
	unsigned n3 = 0, n4 = 0, other = 0;
	for (int i = 0; i < 3000; i++) {
		struct out r = pkt(rt, T_SEL, 5, 0);
		if (r.n == 1 && r.port == 3)
			n3++;
		else if (r.n == 1 && r.port == 4)
			n4++;
		else
			other++;
	}
	CHECK(other == 0 && n3 > 1800 && n3 < 2200 && n4 > 800 && n4 < 1200);
	CHECK(p4dp_runtime_port_admin_set(rt, 11, 0) == 0);
	n3 = 0;
	for (int i = 0; i < 200; i++)
		n3 += pkt(rt, T_SEL, 5, 0).port == 3;
	CHECK(n3 == 200);
	CHECK(p4dp_runtime_port_admin_set(rt, 11, 1) == 0);
	CHECK(p4dp_runtime_actprof_group_random_set(rt, X_SEL, 7, 0) == 0);
	n3 = n4 = 0;
	for (int i = 0; i < 100; i++) {
		n3 += pkt(rt, T_SEL, 5, 0).port == 3;
		n4 += pkt(rt, T_SEL, 5, 2).port == 4;
	}
	CHECK(n3 == 100 && n4 == 100);

	/* re-point to a member; the group is then unused and can go */
	CHECK(p4dp_runtime_table_indirect_entry_modify(rt, T_SEL, match(&k5), P4DP_RT_REF_MEMBER, 2) == 0);
	CHECK(pkt(rt, T_SEL, 5, 0).port == 4);
	CHECK(p4dp_runtime_actprof_group_delete(rt, X_SEL, 7) == 0);
	CHECK_ERR(p4dp_runtime_actprof_group_delete(rt, X_SEL, 7), -ENOENT, "has no group 7");
	CHECK(p4dp_runtime_actprof_member_delete(rt, X_SEL, 1) == 0); /* no longer in a group */
	for (uint32_t i = 0; i < 4; i++)
		CHECK(p4dp_runtime_actprof_group_create(rt, X_SEL, 100 + i) == 0);
	CHECK_ERR(p4dp_runtime_actprof_group_create(rt, X_SEL, 200), -ENOSPC, "is full (4 groups)");
}

/* Packets of table T_SEL key @p key over the 256 selector hashes: how many left on ports 3, 4, 6. */
static void spread_by_hash(struct p4dp_runtime *rt, uint8_t key, unsigned n[3])
{
	n[0] = n[1] = n[2] = 0;
	for (int h = 0; h < 256; h++) {
		struct out o = pkt(rt, T_SEL, key, (uint8_t)h);
		n[0] += o.n == 1 && o.port == 3;
		n[1] += o.n == 1 && o.port == 4;
		n[2] += o.n == 1 && o.port == 6;
	}
}

/* Groups whose sum of weights is far above the 4096 slots a group keeps expanded, as P4Runtime's
 * sum-of-members size semantics allow: nothing is expanded (two members of the largest weight
 * work), the picks follow the weights by hash and at random, and watch ports still apply. */
static void test_large_weights(struct p4dp_runtime *rt)
{
	uint8_t k6 = 6;
	unsigned n[3];
	uint32_t ids[4], ws[4];
	CHECK(set_member(rt, X_SEL, 21, 3, 0x33, 0) == 0);
	CHECK(set_member(rt, X_SEL, 22, 4, 0x44, 0) == 0);
	CHECK(set_member(rt, X_SEL, 23, 6, 0x66, 0) == 0);
	CHECK(p4dp_runtime_actprof_group_create(rt, X_SEL, 9) == 0);
	CHECK(p4dp_runtime_table_indirect_entry_add(rt, T_SEL, match(&k6), P4DP_RT_REF_GROUP, 9) == 0);

	/* the sum 4096 is expanded: hash % 4096, so the 256 hashes all fall in member 21's half;
	 * one more unit of weight and the mixed hash spreads them over both */
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 21, 2048) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 22, 2048) == 0);
	spread_by_hash(rt, 6, n);
	CHECK(n[0] == 256 && n[1] == 0);
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 22) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 22, 2049) == 0);
	spread_by_hash(rt, 6, n);
	CHECK(n[0] + n[1] == 256 && n[0] > 90 && n[1] > 90);

	/* weights 100000 : 300000 : 1 -> about 64 : 192 : 0 of the 256 hashes */
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 21) == 0);
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 22) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 21, 100000) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 22, 300000) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 23, 1) == 0);
	CHECK(p4dp_runtime_actprof_group_get(rt, X_SEL, 9, ids, ws, 4) == 3 && ids[0] == 21 && ws[0] == 100000 &&
	      ids[1] == 22 && ws[1] == 300000 && ids[2] == 23 && ws[2] == 1);
	spread_by_hash(rt, 6, n);
	CHECK(n[0] + n[1] + n[2] == 256 && n[0] >= 40 && n[0] <= 90 && n[1] >= 166 && n[1] <= 216 && n[2] <= 1);
	/* at random: 4000 packets of one hash, about 1000 : 3000 */
	CHECK(p4dp_runtime_actprof_group_random_set(rt, X_SEL, 9, 1) == 0);
	unsigned r3 = 0, r4 = 0, rest = 0;
	for (int i = 0; i < 4000; i++) {
		struct out o = pkt(rt, T_SEL, 6, 0);
		r3 += o.n == 1 && o.port == 3;
		r4 += o.n == 1 && o.port == 4;
		rest += o.n != 1 || (o.port != 3 && o.port != 4);
	}
	CHECK(r3 >= 850 && r3 <= 1150 && r4 >= 2850 && r4 <= 3150 && rest <= 2);
	CHECK(p4dp_runtime_actprof_group_random_set(rt, X_SEL, 9, 0) == 0);
	/* a member whose watch port is down is never picked, however heavy */
	CHECK(p4dp_runtime_actprof_group_member_watch_set(rt, X_SEL, 9, 22, 10) == 0);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 0) == 0);
	spread_by_hash(rt, 6, n);
	CHECK(n[1] == 0 && n[0] + n[2] == 256 && n[0] >= 250);
	CHECK(p4dp_runtime_port_admin_set(rt, 10, 1) == 0);
	spread_by_hash(rt, 6, n);
	CHECK(n[1] >= 166);

	/* two members of the largest weight: 2^32 - 2 units, about half each (expanded, 16 GiB) */
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 21) == 0);
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 22) == 0);
	CHECK(p4dp_runtime_actprof_group_member_remove(rt, X_SEL, 9, 23) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 21, P4DP_RT_ACTPROF_WEIGHT_MAX) == 0);
	CHECK(p4dp_runtime_actprof_group_member_add(rt, X_SEL, 9, 22, P4DP_RT_ACTPROF_WEIGHT_MAX) == 0);
	spread_by_hash(rt, 6, n);
	CHECK(n[0] + n[1] == 256 && n[0] > 90 && n[1] > 90);

	CHECK(p4dp_runtime_table_clear(rt, T_SEL) == 0);
	CHECK(p4dp_runtime_actprof_group_delete(rt, X_SEL, 9) == 0);
	for (uint32_t m = 21; m <= 23; m++)
		CHECK(p4dp_runtime_actprof_member_delete(rt, X_SEL, m) == 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	char dir[PATH_MAX], so[PATH_MAX + 64];
	if (test_prog_build("actprof", "rt_prog_ap", dir, sizeof(dir), so, sizeof(so)) != 0 ||
	    test_eal_init(argv[0], "0@0,1@(0-1)") != 0)
		return 1;
	struct p4dp_runtime *rt = NULL;
	struct p4dp_runtime_params pp = { .program_path = so, .max_workers = 1 };
	int rc = p4dp_runtime_create(&pp, &rt);
	CHECK(rc == 0);
	if (rc != 0)
		return test_finish(dir, n_pass, n_fail);
	test_members(rt);
	test_large_weights(rt);
	test_groups(rt);
	p4dp_runtime_free(rt);
	return test_finish(dir, n_pass, n_fail);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Action profiles and action selectors (abi.h "Action profiles", rt.h control API).
 *
 * Data plane view (lock-free): per profile two arrays of published pointers indexed by slot,
 * `members[slot]` (a struct p4dp_entry: action + data, immutable once published) and, for
 * selectors, `groups[slot]` (struct ap_group, actprof_group.h: the live members' slots in
 * selection order, expanded by weight or with running sums of the weights, immutable).
 * Indirect table entries store a struct p4dp_actprof_ref {slot, id}; workers load the pointers
 * with acquire; the control thread publishes new versions with release stores and frees old
 * versions after an RCU grace period (the profile's deferred-reclaim queue). A deleted member's or
 * group's slot is reused only after a grace period too, so a worker that read an entry just
 * before it was deleted never resolves to a newer member in the same slot.
 *
 * Control view (profile mutex): ids, states and group memberships per slot. References from table
 * entries are found by walking the profile's tables (member/group deletes only), so deletes,
 * clears and idle expiry of table entries need no bookkeeping here; every path that *adds* a
 * reference (indirect add/modify, group add member) holds the profile mutex, so a delete's check
 * cannot race with a new reference. Lock order: profile mutex, then a table's writer lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "p4dp/prim.h"
#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "actprof_group.h"
#include "rt_internal.h"

/** Largest profile (members, groups) accepted. */
#define AP_MAX_SIZE (1u << 22)

enum { SLOT_FREE = 0, SLOT_USED, SLOT_PENDING };

struct ap_mctl {
	uint8_t state;
	uint32_t id;
	uint32_t action;
	uint32_t in_groups; /* number of groups containing it */
};

struct ap_gmem {
	uint32_t id, slot, weight;
	uint32_t watch; /* watch port, P4DP_RT_WATCH_NONE: none */
};

struct ap_gctl {
	uint8_t state;
	uint32_t id;
	uint32_t n;        /* members */
	uint64_t total;    /* sum of weights */
	uint32_t random;   /* selection mode: 0 the selector hash, 1 random */
	struct ap_gmem *m; /* sorted by id */
};

struct rt_actprof {
	/* read by workers */
	struct p4dp_entry **members; /* [cap] */
	struct ap_group **groups;    /* [cap] (selectors) */
	uint32_t cap;
	/* control */
	struct p4dp_runtime *rt;
	uint32_t ext;
	int selector;
	uint32_t data_len;
	uint32_t *tables; /* tables implemented by this profile */
	uint32_t n_tables;
	struct ap_mctl *mctl;
	struct ap_gctl *gctl;
	struct p4dp_rcu_dq *dq;
	pthread_mutex_t lock;
};

/* ------------------------------------------------------------------ data plane */

const struct p4dp_entry *p4dp_actprof_resolve(struct p4dp_ctx *ctx, uint32_t ext, const struct p4dp_entry *e,
					      uint64_t hash)
{
	const struct rt_actprof *ap = ctx->ext[ext];
	struct p4dp_actprof_ref ref;
	if (ap == NULL || e == NULL)
		return NULL;
	memcpy(&ref, e->data, sizeof(ref));
	if (ref.slot >= ap->cap)
		return NULL;
	if (e->action == P4DP_ACTPROF_REF_MEMBER)
		/* acquire: pairs with the release half of the writer's exchange, so the member entry's contents are visible */
		return __atomic_load_n(&ap->members[ref.slot], __ATOMIC_ACQUIRE);
	if (e->action != P4DP_ACTPROF_REF_GROUP || ap->groups == NULL)
		return NULL;
	/* acquire: the group's slot array, written before its release publication, is visible */
	const struct ap_group *g = __atomic_load_n(&ap->groups[ref.slot], __ATOMIC_ACQUIRE);
	if (g == NULL)
		return NULL;
	if (g->n == 0) {
		if (g->n_members != 0) /* every member's watch port is down */
			RT_STAT_ADD(rt_worker_of(ctx)->st.groups_down, 1);
		return NULL;
	}
	/* random: the worker's own pseudo-random sequence (p4dp_ctx.rng, which the program's
	 * random() steps too); the pick follows the weights either way (actprof_group.h) */
	if (g->random)
		hash = p4dp_rand_next(&ctx->rng);
	/* acquire: as for a direct member reference */
	return __atomic_load_n(&ap->members[ap_group_pick(g, hash)], __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------------ lifecycle */

static void ap_free(struct rt_actprof *ap)
{
	if (ap == NULL)
		return;
	if (ap->dq)
		p4dp_rcu_dq_free(ap->dq); /* runs every pending reclaim */
	for (uint32_t i = 0; ap->members && i < ap->cap; i++)
		rte_free(ap->members[i]);
	for (uint32_t i = 0; ap->groups && i < ap->cap; i++)
		rte_free(ap->groups[i]);
	for (uint32_t i = 0; ap->gctl && i < ap->cap; i++)
		free(ap->gctl[i].m);
	rte_free(ap->members);
	rte_free(ap->groups);
	free(ap->mctl);
	free(ap->gctl);
	free(ap->tables);
	pthread_mutex_destroy(&ap->lock);
	free(ap);
}

int rt_actprof_create(struct p4dp_runtime *rt)
{
	const struct p4dp_program *p = rt->prog;
	for (uint32_t x = 0; x < p->n_externs; x++) {
		const struct p4dp_extern_info *xi = &p->externs[x];
		if (xi->kind != P4DP_EXT_ACTION_PROFILE && xi->kind != P4DP_EXT_ACTION_SELECTOR)
			continue;
		uint32_t cap = xi->n_cells ? xi->n_cells : P4DP_TABLE_DEFAULT_SIZE;
		if (cap > AP_MAX_SIZE)
			return rt_errc(-EINVAL, "action profile '%s': size %u too large (at most %u)", xi->name, cap,
				       AP_MAX_SIZE);
		struct rt_actprof *ap = calloc(1, sizeof(*ap));
		if (ap == NULL)
			return rt_errc(-ENOMEM, "out of memory");
		pthread_mutex_init(&ap->lock, NULL);
		ap->rt = rt;
		ap->ext = x;
		ap->cap = cap;
		ap->selector = xi->kind == P4DP_EXT_ACTION_SELECTOR;
		ap->tables = calloc(p->n_tables ? p->n_tables : 1, sizeof(uint32_t));
		ap->mctl = calloc(cap, sizeof(*ap->mctl));
		ap->members = rte_zmalloc_socket("p4dp_ap_members", sizeof(*ap->members) * cap, 64, rt->socket_id);
		if (ap->selector) {
			ap->gctl = calloc(cap, sizeof(*ap->gctl));
			ap->groups = rte_zmalloc_socket("p4dp_ap_groups", sizeof(*ap->groups) * cap, 64, rt->socket_id);
		}
		ap->dq = p4dp_rcu_dq_create(rt->rcu, rt->socket_id);
		if (!ap->tables || !ap->mctl || !ap->members || !ap->dq || (ap->selector && (!ap->gctl || !ap->groups))) {
			ap_free(ap);
			return rt_errc(-ENOMEM, "action profile '%s': out of memory", xi->name);
		}
		for (uint32_t t = 0; p->table_impl && t < p->n_tables; t++) {
			if (p->table_impl[t] != (int32_t)x)
				continue;
			ap->tables[ap->n_tables++] = t;
			if (p->tables[t].data_len > ap->data_len)
				ap->data_len = p->tables[t].data_len;
		}
		for (uint32_t w = 0; w < rt->max_workers; w++)
			rt->ext[w][x] = ap;
	}
	/* every table_impl entry names a profile */
	for (uint32_t t = 0; p->table_impl && t < p->n_tables; t++) {
		int32_t x = p->table_impl[t];
		if (x < 0)
			continue;
		const struct p4dp_table_info *ti = &p->tables[t];
		if ((uint32_t)x >= p->n_externs || (p->externs[x].kind != P4DP_EXT_ACTION_PROFILE &&
						    p->externs[x].kind != P4DP_EXT_ACTION_SELECTOR))
			return rt_errc(-EINVAL, "table '%s': implementation %d is not an action profile/selector",
				       ti->name, x);
		if (ti->data_len < sizeof(struct p4dp_actprof_ref))
			return rt_errc(-EINVAL, "table '%s': indirect table with data_len %u < %zu", ti->name,
				       ti->data_len, sizeof(struct p4dp_actprof_ref));
	}
	return 0;
}

void rt_actprof_free(struct p4dp_runtime *rt)
{
	if (rt->ext == NULL || rt->prog == NULL)
		return;
	for (uint32_t x = 0; x < rt->prog->n_externs; x++) {
		uint8_t k = rt->prog->externs[x].kind;
		if (k != P4DP_EXT_ACTION_PROFILE && k != P4DP_EXT_ACTION_SELECTOR)
			continue;
		if (rt->ext[0] == NULL)
			continue;
		ap_free(rt->ext[0][x]);
		for (uint32_t w = 0; w < rt->max_workers; w++)
			if (rt->ext[w])
				rt->ext[w][x] = NULL;
	}
}

/* ------------------------------------------------------------------ helpers */

enum { RECLAIM_FREE = 0, RECLAIM_MEMBER_SLOT = 1, RECLAIM_GROUP_SLOT = 2 };

/* After a grace period: free the old version and, for deletes, make the slot reusable. */
static void ap_reclaim(void *ctx, void *ptr, uint64_t arg)
{
	struct rt_actprof *ap = ctx;
	uint32_t slot = (uint32_t)arg, kind = (uint32_t)(arg >> 32);
	rte_free(ptr);
	if (kind == RECLAIM_MEMBER_SLOT)
		ap->mctl[slot].state = SLOT_FREE;
	else if (kind == RECLAIM_GROUP_SLOT)
		ap->gctl[slot].state = SLOT_FREE;
}

/* Retire @p ptr (may be NULL) after a grace period (profile mutex held). */
static void ap_retire(struct rt_actprof *ap, void *ptr, uint32_t kind, uint32_t slot)
{
	uint64_t arg = ((uint64_t)kind << 32) | slot;
	if (p4dp_rcu_dq_defer(ap->dq, ap_reclaim, ap, ptr, arg) != 0) {
		/* queue full / no memory: wait for the grace period here */
		p4dp_rcu_synchronize(ap->rt->rcu);
		ap_reclaim(ap, ptr, arg);
	}
}

/* Validate @p ext and lock its profile (reclaiming what is due). */
static int ap_get(struct p4dp_runtime *rt, uint32_t ext, int need_selector, struct rt_actprof **out)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "NULL runtime");
	if (ext >= rt->prog->n_externs)
		return rt_errc(-EINVAL, "extern index %u out of range (program has %u externs)", ext,
			       rt->prog->n_externs);
	const struct p4dp_extern_info *xi = &rt->prog->externs[ext];
	if (xi->kind != P4DP_EXT_ACTION_PROFILE && xi->kind != P4DP_EXT_ACTION_SELECTOR)
		return rt_errc(-EINVAL, "extern '%s' is not an action profile or selector", xi->name);
	if (need_selector && xi->kind != P4DP_EXT_ACTION_SELECTOR)
		return rt_errc(-EINVAL, "action profile '%s' is not a selector: it has no groups", xi->name);
	struct rt_actprof *ap = rt->ext[0][ext];
	if (ap == NULL)
		return rt_errc(-EINVAL, "action profile '%s' has no state", xi->name);
	pthread_mutex_lock(&ap->lock);
	p4dp_rcu_dq_reclaim(ap->dq, false);
	*out = ap;
	return 0;
}

static void ap_put(struct rt_actprof *ap)
{
	pthread_mutex_unlock(&ap->lock);
}

static int64_t member_slot(const struct rt_actprof *ap, uint32_t id)
{
	for (uint32_t i = 0; i < ap->cap; i++)
		if (ap->mctl[i].state == SLOT_USED && ap->mctl[i].id == id)
			return i;
	return -1;
}

static int64_t group_slot(const struct rt_actprof *ap, uint32_t id)
{
	for (uint32_t i = 0; i < ap->cap; i++)
		if (ap->gctl[i].state == SLOT_USED && ap->gctl[i].id == id)
			return i;
	return -1;
}

/* A free slot; waits for pending reclaims when only those are left. -1 if full. */
static int64_t free_slot(struct rt_actprof *ap, int group)
{
	for (int pass = 0; pass < 2; pass++) {
		int pending = 0;
		for (uint32_t i = 0; i < ap->cap; i++) {
			uint8_t st = group ? ap->gctl[i].state : ap->mctl[i].state;
			if (st == SLOT_FREE)
				return i;
			pending |= st == SLOT_PENDING;
		}
		if (!pending)
			break;
		p4dp_rcu_dq_reclaim(ap->dq, true);
	}
	return -1;
}

/* Build a member version (validated action + params). */
static int member_build(struct rt_actprof *ap, uint32_t action, uint32_t n_params, const struct p4dp_rt_param *params,
			struct p4dp_entry **out)
{
	struct p4dp_runtime *rt = ap->rt;
	const struct p4dp_program *p = rt->prog;
	const char *pname = p->externs[ap->ext].name;
	if (ap->n_tables == 0)
		return rt_errc(-EINVAL, "action profile '%s' implements no table", pname);
	if (action >= p->n_actions)
		return rt_errc(-EINVAL, "action index %u out of range (program has %u actions)", action, p->n_actions);
	const struct p4dp_action_info *ai = &p->actions[action];
	for (uint32_t k = 0; k < ap->n_tables; k++) {
		const struct p4dp_table_info *ti = &p->tables[ap->tables[k]];
		uint32_t i;
		for (i = 0; i < ti->n_actions; i++)
			if (ti->actions[i] == action)
				break;
		if (i == ti->n_actions)
			return rt_errc(-EINVAL, "action '%s' is not an action of table '%s' (action profile '%s')",
				       ai->name, ti->name, pname);
		if (ti->action_scopes && ti->action_scopes[i] == P4DP_SCOPE_DEFAULT_ONLY)
			return rt_errc(-EINVAL, "action '%s' is @defaultonly in table '%s' and cannot be a member",
				       ai->name, ti->name);
	}
	if (n_params != ai->n_params)
		return rt_errc(-EINVAL, "action '%s' takes %u parameters, %u given", ai->name, ai->n_params, n_params);
	if (n_params > 0 && params == NULL)
		return rt_errc(-EINVAL, "NULL parameter array");
	struct p4dp_entry *e = rte_zmalloc_socket("p4dp_ap_member", sizeof(*e) + ap->data_len + 8, 16, rt->socket_id);
	if (e == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	e->action = action;
	e->index = UINT32_MAX; /* no direct counter/meter cell */
	for (uint32_t k = 0; k < n_params; k++) {
		const struct p4dp_param_info *pi = &ai->params[k];
		char what[256];
		snprintf(what, sizeof(what), "action '%s' parameter '%s'", ai->name, pi->name ? pi->name : "?");
		int rc = rt_be_to_native(what, pi->bitwidth, pi->size, params[k].value, params[k].len,
					 e->data + pi->offset);
		if (rc) {
			rte_free(e);
			return rc;
		}
	}
	*out = e;
	return 0;
}

/* Publish group @p g's member list as a new version (profile mutex held). */
static int group_publish(struct rt_actprof *ap, uint32_t gslot, const struct ap_gctl *g)
{
	uint32_t *live = malloc(sizeof(uint32_t) * 2 * (g->n + 1)), *weight = live + g->n + 1;
	if (live == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	uint32_t n = 0;
	uint64_t total = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		if (g->m[i].watch != P4DP_RT_WATCH_NONE && !rt_port_live(ap->rt, g->m[i].watch))
			continue;
		live[n] = g->m[i].slot;
		weight[n++] = g->m[i].weight;
		total += g->m[i].weight;
	}
	struct ap_group *v = rte_zmalloc_socket("p4dp_ap_group", ap_group_size(n, total), 16, ap->rt->socket_id);
	if (v == NULL) {
		free(live);
		return rt_errc(-ENOMEM, "out of memory");
	}
	ap_group_fill(v, n, live, weight, total);
	free(live);
	v->n_members = g->n;
	v->random = g->random;
	/* release: the contents are visible before the pointer (workers load with acquire) */
	struct ap_group *old = __atomic_exchange_n(&ap->groups[gslot], v, __ATOMIC_ACQ_REL);
	if (old)
		ap_retire(ap, old, RECLAIM_FREE, gslot);
	return 0;
}

struct ref_scan {
	uint32_t action; /* P4DP_ACTPROF_REF_* */
	uint32_t slot;
	int found;
};

static int ref_scan_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	(void)m;
	struct ref_scan *s = arg;
	struct p4dp_actprof_ref ref;
	memcpy(&ref, e->data, sizeof(ref));
	if (e->action == s->action && ref.slot == s->slot) {
		s->found = 1;
		return 1;
	}
	return 0;
}

/* Is member/group @p slot referred to by an entry of one of the profile's tables? (name in *table) */
static int ap_referenced(struct rt_actprof *ap, uint32_t action, uint32_t slot, uint32_t *table)
{
	for (uint32_t k = 0; k < ap->n_tables; k++) {
		struct ref_scan s = { action, slot, 0 };
		int rc = p4dp_table_foreach(ap->rt->tables[ap->tables[k]], ref_scan_cb, &s);
		if (rc < 0)
			return rc;
		if (s.found) {
			*table = ap->tables[k];
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ members */

static int member_write(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, uint32_t action, uint32_t n_params,
			const struct p4dp_rt_param *params, int modify)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 0, &ap);
	if (rc)
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t slot = member_slot(ap, member);
	if (modify && slot < 0) {
		rc = rt_errc(-ENOENT, "action profile '%s' has no member %u", pname, member);
		goto out;
	}
	if (!modify && slot >= 0) {
		rc = rt_errc(-EEXIST, "action profile '%s' already has a member %u", pname, member);
		goto out;
	}
	struct p4dp_entry *e;
	if ((rc = member_build(ap, action, n_params, params, &e)))
		goto out;
	if (!modify && (slot = free_slot(ap, 0)) < 0) {
		rte_free(e);
		rc = rt_errc(-ENOSPC, "action profile '%s' is full (%u members)", pname, ap->cap);
		goto out;
	}
	struct ap_mctl *mc = &ap->mctl[slot];
	mc->action = action;
	if (!modify) {
		mc->state = SLOT_USED;
		mc->id = member;
		mc->in_groups = 0;
	}
	/* release: the new version's contents before its pointer (acquire in the lookup); acquire: the old
	 * version is read for retirement after its publication */
	struct p4dp_entry *old = __atomic_exchange_n(&ap->members[slot], e, __ATOMIC_ACQ_REL);
	if (old)
		ap_retire(ap, old, RECLAIM_FREE, (uint32_t)slot);
out:
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_member_add(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, uint32_t action,
				    uint32_t n_params, const struct p4dp_rt_param *params)
{
	return member_write(rt, ext, member, action, n_params, params, 0);
}

int p4dp_runtime_actprof_member_modify(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, uint32_t action,
				       uint32_t n_params, const struct p4dp_rt_param *params)
{
	return member_write(rt, ext, member, action, n_params, params, 1);
}

int p4dp_runtime_actprof_member_delete(struct p4dp_runtime *rt, uint32_t ext, uint32_t member)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 0, &ap);
	if (rc)
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t slot = member_slot(ap, member);
	uint32_t table = 0;
	if (slot < 0) {
		rc = rt_errc(-ENOENT, "action profile '%s' has no member %u", pname, member);
	} else if (ap->mctl[slot].in_groups > 0) {
		rc = rt_errc(-EBUSY, "member %u of action profile '%s' is still in %u group(s)", member, pname,
			     ap->mctl[slot].in_groups);
	} else if ((rc = ap_referenced(ap, P4DP_ACTPROF_REF_MEMBER, (uint32_t)slot, &table)) != 0) {
		if (rc > 0)
			rc = rt_errc(-EBUSY, "member %u of action profile '%s' is used by an entry of table '%s'",
				     member, pname, rt->prog->tables[table].name);
		else
			rc = rt_errc(rc, "action profile '%s': table walk failed", pname);
	} else {
		/* NULL publishes nothing; acq_rel orders the unlink before the retirement's RCU token */
		struct p4dp_entry *old = __atomic_exchange_n(&ap->members[slot], NULL, __ATOMIC_ACQ_REL);
		ap->mctl[slot].state = SLOT_PENDING;
		ap_retire(ap, old, RECLAIM_MEMBER_SLOT, (uint32_t)slot);
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_member_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t member, p4dp_rt_entry_cb cb,
				    void *arg)
{
	if (cb == NULL)
		return rt_errc(-EINVAL, "NULL callback");
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 0, &ap);
	if (rc)
		return rc;
	int64_t slot = member_slot(ap, member);
	if (slot < 0)
		rc = rt_errc(-ENOENT, "action profile '%s' has no member %u", rt->prog->externs[ext].name, member);
	else if (ap->n_tables == 0)
		rc = rt_errc(-EINVAL, "action profile '%s' implements no table", rt->prog->externs[ext].name);
	else
		rc = rt_emit_action(rt, ap->tables[0], ap->members[slot]->action, ap->members[slot]->data, cb, arg);
	ap_put(ap);
	return rc;
}

/* ------------------------------------------------------------------ groups */

int p4dp_runtime_actprof_group_create(struct p4dp_runtime *rt, uint32_t ext, uint32_t group)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t slot;
	if (group_slot(ap, group) >= 0) {
		rc = rt_errc(-EEXIST, "action selector '%s' already has a group %u", pname, group);
	} else if ((slot = free_slot(ap, 1)) < 0) {
		rc = rt_errc(-ENOSPC, "action selector '%s' is full (%u groups)", pname, ap->cap);
	} else {
		struct ap_gctl *g = &ap->gctl[slot];
		free(g->m);
		memset(g, 0, sizeof(*g));
		if ((rc = group_publish(ap, (uint32_t)slot, g)) == 0) {
			g->state = SLOT_USED;
			g->id = group;
		}
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_group_delete(struct p4dp_runtime *rt, uint32_t ext, uint32_t group)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t slot = group_slot(ap, group);
	uint32_t table = 0;
	if (slot < 0) {
		rc = rt_errc(-ENOENT, "action selector '%s' has no group %u", pname, group);
	} else if ((rc = ap_referenced(ap, P4DP_ACTPROF_REF_GROUP, (uint32_t)slot, &table)) != 0) {
		if (rc > 0)
			rc = rt_errc(-EBUSY, "group %u of action selector '%s' is used by an entry of table '%s'",
				     group, pname, rt->prog->tables[table].name);
		else
			rc = rt_errc(rc, "action selector '%s': table walk failed", pname);
	} else {
		struct ap_gctl *g = &ap->gctl[slot];
		for (uint32_t i = 0; i < g->n; i++)
			ap->mctl[g->m[i].slot].in_groups--;
		free(g->m);
		g->m = NULL;
		g->n = g->total = 0;
		g->state = SLOT_PENDING;
		/* as the member delete: unlinked before the retirement's RCU token */
		struct ap_group *old = __atomic_exchange_n(&ap->groups[slot], NULL, __ATOMIC_ACQ_REL);
		ap_retire(ap, old, RECLAIM_GROUP_SLOT, (uint32_t)slot);
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_group_member_add(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, uint32_t member,
					  uint32_t weight)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t gs = group_slot(ap, group), ms = member_slot(ap, member);
	struct ap_gctl *g = gs >= 0 ? &ap->gctl[gs] : NULL;
	uint32_t pos = 0;
	while (g && pos < g->n && g->m[pos].id < member)
		pos++;
	if (weight == 0 || weight > P4DP_RT_ACTPROF_WEIGHT_MAX) {
		rc = rt_errc(-EINVAL, "weight %u out of range (1..%u)", weight, P4DP_RT_ACTPROF_WEIGHT_MAX);
	} else if (g == NULL) {
		rc = rt_errc(-ENOENT, "action selector '%s' has no group %u", pname, group);
	} else if (ms < 0) {
		rc = rt_errc(-ENOENT, "action selector '%s' has no member %u", pname, member);
	} else if (pos < g->n && g->m[pos].id == member) {
		rc = rt_errc(-EEXIST, "member %u is already in group %u of action selector '%s'", member, group,
			     pname);
	} else if (g->n >= P4DP_RT_ACTPROF_GROUP_MAX) {
		rc = rt_errc(-ENOSPC, "group %u of action selector '%s' is full (%u members)", group, pname,
			     P4DP_RT_ACTPROF_GROUP_MAX);
	} else {
		struct ap_gctl ng = *g;
		ng.m = malloc(sizeof(*ng.m) * (g->n + 1));
		if (ng.m == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
		} else {
			if (g->n)
				memcpy(ng.m, g->m, sizeof(*ng.m) * pos);
			ng.m[pos] = (struct ap_gmem){ member, (uint32_t)ms, weight, P4DP_RT_WATCH_NONE };
			if (g->n > pos)
				memcpy(ng.m + pos + 1, g->m + pos, sizeof(*ng.m) * (g->n - pos));
			ng.n = g->n + 1;
			ng.total = g->total + weight;
			if ((rc = group_publish(ap, (uint32_t)gs, &ng)) == 0) {
				free(g->m);
				*g = ng;
				ap->mctl[ms].in_groups++;
			} else {
				free(ng.m);
			}
		}
	}
	ap_put(ap);
	return rc;
}

/* Group @p group's slot in @p gs and member @p member's position in it in @p pos; -ENOENT (with
 * the reason) when the selector @p pname has no such group or the member is not in it. */
static int group_member_find(struct rt_actprof *ap, const char *pname, uint32_t group, uint32_t member, int64_t *gs,
			     uint32_t *pos)
{
	*gs = group_slot(ap, group);
	if (*gs < 0)
		return rt_errc(-ENOENT, "action selector '%s' has no group %u", pname, group);
	const struct ap_gctl *g = &ap->gctl[*gs];
	for (*pos = 0; *pos < g->n; (*pos)++)
		if (g->m[*pos].id == member)
			return 0;
	return rt_errc(-ENOENT, "member %u is not in group %u of action selector '%s'", member, group, pname);
}

int p4dp_runtime_actprof_group_member_remove(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, uint32_t member)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	int64_t gs = 0;
	uint32_t pos = 0;
	rc = group_member_find(ap, rt->prog->externs[ext].name, group, member, &gs, &pos);
	struct ap_gctl *g = rc == 0 ? &ap->gctl[gs] : NULL;
	if (rc == 0) {
		struct ap_gctl ng = *g;
		ng.m = malloc(sizeof(*ng.m) * (g->n > 1 ? g->n - 1 : 1));
		if (ng.m == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
		} else {
			memcpy(ng.m, g->m, sizeof(*ng.m) * pos);
			memcpy(ng.m + pos, g->m + pos + 1, sizeof(*ng.m) * (g->n - pos - 1));
			ng.n = g->n - 1;
			ng.total = g->total - g->m[pos].weight;
			uint32_t ms = g->m[pos].slot;
			if ((rc = group_publish(ap, (uint32_t)gs, &ng)) == 0) {
				free(g->m);
				*g = ng;
				ap->mctl[ms].in_groups--;
			} else {
				free(ng.m);
			}
		}
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_group_member_watch_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t group,
						uint32_t member, uint32_t watch)
{
	if (watch != P4DP_RT_WATCH_NONE && watch >= P4DP_PORT_DROP)
		return rt_errc(-EINVAL, "watch port %u out of range (< %u)", watch, P4DP_PORT_DROP);
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	int64_t gs = 0;
	uint32_t pos = 0;
	rc = group_member_find(ap, rt->prog->externs[ext].name, group, member, &gs, &pos);
	struct ap_gctl *g = rc == 0 ? &ap->gctl[gs] : NULL;
	if (rc == 0 && g->m[pos].watch != watch) {
		uint32_t old = g->m[pos].watch;
		g->m[pos].watch = watch;
		if ((rc = group_publish(ap, (uint32_t)gs, g)) != 0)
			g->m[pos].watch = old;
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_actprof_group_random_set(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, int random)
{
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	int64_t gs = group_slot(ap, group);
	if (gs < 0) {
		rc = rt_errc(-ENOENT, "action selector '%s' has no group %u", rt->prog->externs[ext].name, group);
	} else if (ap->gctl[gs].random != (random != 0)) {
		struct ap_gctl *g = &ap->gctl[gs];
		g->random = random != 0;
		if ((rc = group_publish(ap, (uint32_t)gs, g)) != 0)
			g->random = random == 0;
	}
	ap_put(ap);
	return rc;
}

int rt_actprof_liveness_apply(struct p4dp_runtime *rt)
{
	int rc = 0;
	for (uint32_t x = 0; rt->ext && rt->ext[0] && x < rt->prog->n_externs; x++) {
		if (rt->prog->externs[x].kind != P4DP_EXT_ACTION_SELECTOR)
			continue;
		struct rt_actprof *ap;
		if (ap_get(rt, x, 1, &ap) != 0)
			continue;
		for (uint32_t gs = 0; gs < ap->cap; gs++) {
			const struct ap_gctl *g = &ap->gctl[gs];
			if (g->state != SLOT_USED)
				continue;
			bool watched = false;
			for (uint32_t i = 0; i < g->n && !watched; i++)
				watched = g->m[i].watch != P4DP_RT_WATCH_NONE;
			int r = watched ? group_publish(ap, gs, g) : 0;
			if (r && rc == 0)
				rc = r;
		}
		ap_put(ap);
	}
	return rc;
}

int p4dp_runtime_actprof_group_get(struct p4dp_runtime *rt, uint32_t ext, uint32_t group, uint32_t *members,
				   uint32_t *weights, uint32_t max)
{
	if (max > 0 && (members == NULL || weights == NULL))
		return rt_errc(-EINVAL, "NULL output arrays");
	struct rt_actprof *ap;
	int rc = ap_get(rt, ext, 1, &ap);
	if (rc)
		return rc;
	int64_t gs = group_slot(ap, group);
	if (gs < 0) {
		rc = rt_errc(-ENOENT, "action selector '%s' has no group %u", rt->prog->externs[ext].name, group);
	} else {
		const struct ap_gctl *g = &ap->gctl[gs];
		for (uint32_t i = 0; i < g->n && i < max; i++) {
			members[i] = g->m[i].id;
			weights[i] = g->m[i].weight;
		}
		rc = (int)g->n;
	}
	ap_put(ap);
	return rc;
}

/* ------------------------------------------------------------------ indirect table entries */

int p4dp_runtime_table_implementation_get(const struct p4dp_runtime *rt, uint32_t table, uint32_t *ext)
{
	if (rt == NULL || ext == NULL)
		return rt_errc(-EINVAL, "NULL argument");
	if (table >= rt->prog->n_tables)
		return rt_errc(-EINVAL, "table index %u out of range (program has %u tables)", table,
			       rt->prog->n_tables);
	if (rt->prog->table_impl == NULL || rt->prog->table_impl[table] < 0)
		return rt_errc(-ENOENT, "table '%s' has no action profile", rt->prog->tables[table].name);
	*ext = (uint32_t)rt->prog->table_impl[table];
	return 0;
}

static int indirect_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, uint32_t kind,
			  uint32_t id, int modify)
{
	uint32_t ext;
	int rc = p4dp_runtime_table_implementation_get(rt, table, &ext);
	if (rc == -ENOENT)
		return rt_errc(-EINVAL, "table '%s' is not implemented by an action profile: use the ordinary "
			       "entry add/modify", rt->prog->tables[table].name);
	if (rc)
		return rc;
	if (kind != P4DP_RT_REF_MEMBER && kind != P4DP_RT_REF_GROUP)
		return rt_errc(-EINVAL, "bad reference kind %u (1 member, 2 group)", kind);
	struct rt_actprof *ap;
	if ((rc = ap_get(rt, ext, kind == P4DP_RT_REF_GROUP, &ap)))
		return rc;
	const char *pname = rt->prog->externs[ext].name;
	int64_t slot = kind == P4DP_RT_REF_MEMBER ? member_slot(ap, id) : group_slot(ap, id);
	if (slot < 0) {
		rc = rt_errc(-ENOENT, "action %s '%s' has no %s %u", ap->selector ? "selector" : "profile", pname,
			     kind == P4DP_RT_REF_MEMBER ? "member" : "group", id);
	} else {
		uint8_t *data = calloc(1, rt->prog->tables[table].data_len + 8);
		if (data == NULL) {
			rc = rt_errc(-ENOMEM, "out of memory");
		} else {
			struct p4dp_actprof_ref ref = { (uint32_t)slot, id };
			memcpy(data, &ref, sizeof(ref));
			rc = rt_entry_write_native(rt, table, e,
						   kind == P4DP_RT_REF_MEMBER ? P4DP_ACTPROF_REF_MEMBER
									      : P4DP_ACTPROF_REF_GROUP,
						   data, modify);
			free(data);
		}
	}
	ap_put(ap);
	return rc;
}

int p4dp_runtime_table_indirect_entry_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				    uint32_t kind, uint32_t id)
{
	return indirect_write(rt, table, e, kind, id, 0);
}

int p4dp_runtime_table_indirect_entry_modify(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				       uint32_t kind, uint32_t id)
{
	return indirect_write(rt, table, e, kind, id, 1);
}

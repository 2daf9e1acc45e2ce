/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port liveness (rt.h p4dp_runtime_port_admin_set): a port number is live unless the operator
 * took it down or, while the runtime runs, its device reports its link down. Liveness picks each
 * multicast and clone replica's port among its backups (externs.c) and leaves the members whose
 * watch port is down out of selector groups (actprof.c).
 *
 * Workers never look at port state: a change republishes every affected list (the replica lists,
 * the groups' member arrays) with the ordinary release-store + RCU publication, so a packet sees
 * either the lists before the change or those after it, and the per-packet cost is nothing.
 *
 * State: rt->port_down[port] holds RT_PORT_DOWN_* bits, written under liveness_lock (relaxed
 * stores: the lists built afterwards read it under the mutex of their kind, which orders them
 * after the store; a publication racing with a change from another thread takes that mutex after
 * or before the change's republication, and in both cases the last list published reflects the
 * new state).
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rt_internal.h"

/* Set or clear @p bit of @p port; liveness_lock held. Returns whether the port's liveness changed. */
static bool down_bit_set(struct p4dp_runtime *rt, uint32_t port, uint8_t bit, bool set)
{
	uint8_t old = rt->port_down[port]; /* only writers, under liveness_lock, change it */
	uint8_t now = set ? (uint8_t)(old | bit) : (uint8_t)(old & ~bit);
	/* relaxed: see the file comment (the list builders read it after taking their mutex) */
	__atomic_store_n(&rt->port_down[port], now, __ATOMIC_RELAXED);
	return (old == 0) != (now == 0);
}

/* Rebuild every list liveness affects; liveness_lock held. */
static int liveness_apply(struct p4dp_runtime *rt)
{
	int rc = rt_pre_liveness_apply(rt);
	int r = rt_actprof_liveness_apply(rt);
	if (rc == 0)
		rc = r;
	if (rc)
		rt_errc(rc, "port liveness: a replica list or selector group could not be rebuilt (out of memory)");
	return rc;
}

int p4dp_runtime_port_admin_set(struct p4dp_runtime *rt, uint32_t port_no, int up)
{
	if (rt == NULL || port_no >= P4DP_PORT_DROP)
		return rt_errc(-EINVAL, "port_admin_set: port %u out of range (< %u)", port_no, P4DP_PORT_DROP);
	pthread_mutex_lock(&rt->liveness_lock);
	int rc = 0;
	if (down_bit_set(rt, port_no, RT_PORT_DOWN_ADMIN, !up))
		rc = liveness_apply(rt);
	pthread_mutex_unlock(&rt->liveness_lock);
	return rc;
}

int p4dp_runtime_port_state_get(struct p4dp_runtime *rt, uint32_t port_no, struct p4dp_rt_port_state *st)
{
	if (rt == NULL || st == NULL || port_no >= P4DP_PORT_DROP)
		return rt_errc(-EINVAL, "port_state_get: NULL argument or port %u out of range (< %u)", port_no,
			       P4DP_PORT_DROP);
	/* relaxed: a recent state is all a reader is promised */
	uint8_t d = __atomic_load_n(&rt->port_down[port_no], __ATOMIC_RELAXED);
	st->admin_up = !(d & RT_PORT_DOWN_ADMIN);
	st->link_up = !(d & RT_PORT_DOWN_LINK);
	st->live = d == 0;
	return 0;
}

void rt_liveness_links_poll(struct p4dp_runtime *rt)
{
	pthread_mutex_lock(&rt->liveness_lock);
	bool changed = false;
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		const struct rt_port *p = &rt->ports[s];
		if (!p->used || !p->started)
			continue;
		struct rte_eth_link link;
		memset(&link, 0, sizeof(link));
		/* nowait: the PMD's last known state, never a blocking query */
		if (rte_eth_link_get_nowait(p->dpdk_port, &link) != 0)
			continue; /* a device that cannot tell keeps its state */
		bool down = link.link_status == RTE_ETH_LINK_DOWN;
		if (down_bit_set(rt, p->port_no, RT_PORT_DOWN_LINK, down)) {
			changed = true;
			rt_log(rt, 1, "port %u (%s): link %s", p->port_no, p->name, down ? "down" : "up");
		}
	}
	if (changed)
		(void)liveness_apply(rt);
	pthread_mutex_unlock(&rt->liveness_lock);
}

void rt_liveness_links_clear(struct p4dp_runtime *rt)
{
	pthread_mutex_lock(&rt->liveness_lock);
	bool changed = false;
	for (uint32_t port = 0; port < P4DP_PORT_DROP; port++)
		if (rt->port_down[port] & RT_PORT_DOWN_LINK)
			changed |= down_bit_set(rt, port, RT_PORT_DOWN_LINK, false);
	if (changed)
		(void)liveness_apply(rt);
	pthread_mutex_unlock(&rt->liveness_lock);
}

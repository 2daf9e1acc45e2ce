/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ports: attaching DPDK virtual devices as P4 ports, counting the packets of net_pcap input
 * files (to detect the end of input), per-port statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rt_internal.h"

static uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* libpcap refuses a record claiming more captured bytes than this (its MAXIMUM_SNAPLEN) */
#define PCAP_MAX_RECORD 262144u

/*
 * Packets in a classic pcap file that can really be read: records whose header and data lie
 * within the file and whose length libpcap accepts. Counting stops at the first record that does
 * not (a last record cut short, a length of 0x7fffffff): net_pcap stops reading there too.
 * -1 if the file cannot be read or is not classic pcap (e.g. pcapng).
 */
static int64_t pcap_count(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	uint8_t h[24];
	int64_t n = -1;
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && fread(h, 1, 24, f) == 24) {
		uint32_t magic;
		memcpy(&magic, h, 4);
		int swap = -1;
		if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
			swap = 0;
		else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
			swap = 1;
		if (swap >= 0) {
			n = 0;
			uint8_t r[16];
			uint64_t at = 24, size = (uint64_t)sb.st_size;
			while (size - at >= 16 && fread(r, 1, 16, f) == 16) {
				uint32_t incl = rd32(r + 8, swap);
				if (incl > PCAP_MAX_RECORD || incl > size - at - 16 || fseek(f, (long)incl, SEEK_CUR) != 0)
					break;
				at += 16 + (uint64_t)incl;
				n++;
			}
		}
	}
	fclose(f);
	return n;
}

/* Sum of packets over every rx_pcap=... in @p args; -1 if unknown (other rx kinds, infinite_rx). */
static int64_t devargs_expected_rx(const char *args)
{
	int64_t total = 0;
	int any = 0;
	char *dup = strdup(args), *save = NULL;
	if (dup == NULL)
		return -1;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strncmp(tok, "rx_pcap=", 8) == 0) {
			int64_t n = pcap_count(tok + 8);
			if (n < 0) {
				total = -1;
				break;
			}
			total += n;
			any = 1;
		} else if (strncmp(tok, "rx_iface", 8) == 0 || strncmp(tok, "iface=", 6) == 0 ||
			   (strncmp(tok, "infinite_rx=", 12) == 0 && atoi(tok + 12) != 0)) {
			total = -1;
			break;
		}
	}
	free(dup);
	return any && total >= 0 ? total : -1;
}

int p4dp_runtime_port_add(struct p4dp_runtime *rt, uint32_t port_no, const char *devargs)
{
	if (rt == NULL || devargs == NULL || devargs[0] == '\0' || devargs[0] == ',')
		return rt_errc(-EINVAL, "add_port: empty devargs");
	if (port_no >= P4DP_PORT_DROP)
		return rt_errc(-EINVAL, "add_port: port number %u out of range (< %u)", port_no, P4DP_PORT_DROP);
	char name[64];
	size_t nl = strcspn(devargs, ",");
	if (nl >= sizeof(name))
		return rt_errc(-EINVAL, "add_port: device name too long");
	memcpy(name, devargs, nl);
	name[nl] = '\0';
	const char *args = devargs[nl] == ',' ? devargs + nl + 1 : "";

	pthread_mutex_lock(&rt->lock);
	int rc = 0;
	uint32_t slot;
	/* acquire: pairs with the release store that ends a run (the ports are stopped once it reads 0) */
	if (__atomic_load_n(&rt->running, __ATOMIC_ACQUIRE)) {
		rc = rt_errc(-EBUSY, "add_port: the runtime is running");
		goto out;
	}
	if (rt->port_slot[port_no] >= 0) {
		rc = rt_errc(-EEXIST, "add_port: port %u already exists", port_no);
		goto out;
	}
	for (slot = 0; slot < P4DP_RT_MAX_PORTS; slot++)
		if (!rt->ports[slot].used)
			break;
	if (slot == P4DP_RT_MAX_PORTS) {
		rc = rt_errc(-ENOSPC, "add_port: at most %u ports", P4DP_RT_MAX_PORTS);
		goto out;
	}
	struct rt_port *p = &rt->ports[slot];
	memset(p, 0, sizeof(*p));
	p->devargs = strdup(devargs);
	if (p->devargs == NULL) {
		rc = rt_errc(-ENOMEM, "out of memory");
		goto out;
	}
	rc = rte_dev_probe(devargs);
	if (rc < 0) {
		rc = rt_errc(-ENODEV, "add_port: cannot create device '%s' (%s)", devargs, strerror(-rc));
		free(p->devargs);
		p->devargs = NULL;
		goto out;
	}
	if (rte_eth_dev_get_port_by_name(name, &p->dpdk_port) != 0) {
		rte_eal_hotplug_remove("vdev", name);
		free(p->devargs);
		p->devargs = NULL;
		rc = rt_errc(-ENODEV, "add_port: '%s' is not an ethernet device", name);
		goto out;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->port_no = port_no;
	p->expected_rx = devargs_expected_rx(args);
	p->used = true;
	rt->port_slot[port_no] = (int16_t)slot;
	rt->n_ports++;
out:
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

void rt_ports_free(struct p4dp_runtime *rt)
{
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		if (!p->used)
			continue;
		if (p->started)
			rte_eth_dev_stop(p->dpdk_port);
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(p->dpdk_port, &info) != 0 || info.device == NULL ||
		    rte_dev_remove(info.device) != 0)
			rte_eth_dev_close(p->dpdk_port);
		rte_ring_free(p->txring);
		free(p->devargs);
		memset(p, 0, sizeof(*p));
	}
	rt->n_ports = 0;
	if (rt->pool) {
		rte_mempool_free(rt->pool);
		rt->pool = NULL;
	}
}

int p4dp_runtime_port_stats_get(struct p4dp_runtime *rt, uint32_t port_no, struct p4dp_rt_port_stats *st)
{
	if (rt == NULL || st == NULL)
		return rt_errc(-EINVAL, "port_stats: NULL argument");
	if (port_no >= P4DP_PORT_DROP || rt->port_slot[port_no] < 0)
		return rt_errc(-ENOENT, "no port %u", port_no);
	uint32_t s = (uint32_t)rt->port_slot[port_no];
	memset(st, 0, sizeof(*st));
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		struct rt_port_wstats *ps = &rt->workers[w].pst[s];
		st->rx_packets += RT_STAT_LOAD(ps->rx_packets);
		st->rx_bytes += RT_STAT_LOAD(ps->rx_bytes);
		st->tx_packets += RT_STAT_LOAD(ps->tx_packets);
		st->tx_bytes += RT_STAT_LOAD(ps->tx_bytes);
		st->drops += RT_STAT_LOAD(ps->drops);
		st->tx_errors += RT_STAT_LOAD(ps->tx_errors);
	}
	return 0;
}

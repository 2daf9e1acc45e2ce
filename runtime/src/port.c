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
#include <rte_eth_ring.h>
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

/* Under rt->lock: check that @p port_no can be added now and claim a free slot for it. Returns
 * the slot's port, zeroed, and its index in *slot; NULL with the error in *rc. */
static struct rt_port *slot_claim(struct p4dp_runtime *rt, uint32_t port_no, const char *what, uint32_t *slot,
				  int *rc)
{
	/* acquire: pairs with the release store that ends a run (the ports are stopped once it reads 0) */
	if (__atomic_load_n(&rt->running, __ATOMIC_ACQUIRE)) {
		*rc = rt_errc(-EBUSY, "%s: the runtime is running", what);
		return NULL;
	}
	if (rt->port_slot[port_no] >= 0) {
		*rc = rt_errc(-EEXIST, "%s: port %u already exists", what, port_no);
		return NULL;
	}
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++)
		if (!rt->ports[s].used) {
			*slot = s;
			memset(&rt->ports[s], 0, sizeof(rt->ports[s]));
			return &rt->ports[s];
		}
	*rc = rt_errc(-ENOSPC, "%s: at most %u ports", what, P4DP_RT_MAX_PORTS);
	return NULL;
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
	uint32_t slot;
	int rc = 0;
	struct rt_port *p = slot_claim(rt, port_no, "add_port", &slot, &rc);
	if (p == NULL)
		goto out;
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

/* Free the mbufs left in @p r, then the ring (NULL: no-op). */
static void ring_drain_free(struct rte_ring *r)
{
	void *m;
	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

int p4dp_runtime_ring_port_add(struct p4dp_runtime *rt, uint32_t port_no, uint32_t qlen)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "ring_port_add: NULL runtime");
	if (port_no >= P4DP_PORT_DROP)
		return rt_errc(-EINVAL, "ring_port_add: port number %u out of range (< %u)", port_no, P4DP_PORT_DROP);
	if (qlen == 0)
		qlen = P4DP_RT_RING_PORT_QLEN;
	if (qlen > (1u << 16))
		return rt_errc(-EINVAL, "ring_port_add: queue length %u above %u", qlen, 1u << 16);
	pthread_mutex_lock(&rt->lock);
	uint32_t slot;
	int rc = 0;
	struct rt_port *p = slot_claim(rt, port_no, "ring_port_add", &slot, &rc);
	if (p == NULL)
		goto out;
	char rn[RTE_RING_NAMESIZE];
	/* multi-producer/multi-consumer: any control thread may send or receive, any worker transmit */
	snprintf(rn, sizeof(rn), "p4dp_ri%u_%p", port_no, (void *)rt);
	p->ring_in = rte_ring_create(rn, qlen, rt->socket_id, RING_F_EXACT_SZ);
	snprintf(rn, sizeof(rn), "p4dp_ro%u_%p", port_no, (void *)rt);
	p->ring_out = p->ring_in ? rte_ring_create(rn, qlen, rt->socket_id, RING_F_EXACT_SZ) : NULL;
	int id = -1;
	/* net_ring: the driver's name; the ring driver takes names of at most RTE_RING_NAMESIZE - 4
	 * characters, so a process-wide sequence number makes it unique (relaxed: only uniqueness
	 * matters) */
	static uint32_t ring_seq;
	snprintf(p->name, sizeof(p->name), "net_ring_p4dp%u", __atomic_fetch_add(&ring_seq, 1, __ATOMIC_RELAXED));
	if (p->ring_out != NULL)
		id = rte_eth_from_rings(p->name, &p->ring_in, 1, &p->ring_out, 1, (unsigned)rte_socket_id());
	if (id < 0) {
		rc = rt_errc(-ENOMEM, "ring_port_add: cannot create the rings or device of port %u (%s)", port_no,
			     rte_strerror(rte_errno));
		ring_drain_free(p->ring_in);
		ring_drain_free(p->ring_out);
		memset(p, 0, sizeof(*p));
		goto out;
	}
	p->dpdk_port = (uint16_t)id;
	p->port_no = port_no;
	p->expected_rx = 0; /* no input of its own: never keeps until_input_done waiting */
	p->used = true;
	rt->port_slot[port_no] = (int16_t)slot;
	rt->n_ports++;
out:
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

/* The ring port numbered @p port_no, or NULL with -EINVAL/-ENOENT in *rc. */
static struct rt_port *ring_port(struct p4dp_runtime *rt, uint32_t port_no, const char *what, int *rc)
{
	if (rt == NULL || port_no >= P4DP_PORT_DROP) {
		*rc = rt_errc(-EINVAL, "%s: bad runtime or port number", what);
		return NULL;
	}
	/* relaxed: port_slot changes only under rt->lock while not running; a caller racing with
	 * port_add gets either answer (its slot is complete before the store) */
	int16_t s = __atomic_load_n(&rt->port_slot[port_no], __ATOMIC_RELAXED);
	if (s < 0 || rt->ports[s].ring_in == NULL) {
		*rc = rt_errc(-ENOENT, "%s: port %u is not a ring port", what, port_no);
		return NULL;
	}
	return &rt->ports[s];
}

int p4dp_runtime_ring_port_send(struct p4dp_runtime *rt, uint32_t port_no, const uint8_t *data, uint32_t len)
{
	int rc;
	struct rt_port *p = ring_port(rt, port_no, "ring_port_send", &rc);
	if (p == NULL)
		return rc;
	if (data == NULL || len == 0)
		return rt_errc(-EINVAL, "ring_port_send: empty packet");
	/* acquire: the pool is created by the first run before running is set back to 0 */
	struct rte_mempool *pool = __atomic_load_n(&rt->pool, __ATOMIC_ACQUIRE);
	if (pool == NULL)
		return rt_errc(-EAGAIN, "ring_port_send: no packet buffers before the first run");
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return rt_errc(-ENOBUFS, "ring_port_send: no free packet buffer");
	if (len > rte_pktmbuf_tailroom(m)) {
		uint32_t room = rte_pktmbuf_tailroom(m);
		rte_pktmbuf_free(m);
		return rt_errc(-EINVAL, "ring_port_send: %u bytes do not fit a packet buffer (at most %u)", len, room);
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), data, len);
	if (rte_ring_enqueue(p->ring_in, m) != 0) {
		rte_pktmbuf_free(m);
		return rt_errc(-ENOBUFS, "ring_port_send: the queue of port %u is full", port_no);
	}
	return 0;
}

int p4dp_runtime_ring_port_recv(struct p4dp_runtime *rt, uint32_t port_no, p4dp_out_cb cb, void *arg, uint32_t max)
{
	int rc;
	struct rt_port *p = ring_port(rt, port_no, "ring_port_recv", &rc);
	if (p == NULL)
		return rc;
	if (cb == NULL)
		return rt_errc(-EINVAL, "ring_port_recv: NULL callback");
	uint8_t *flat = NULL;
	int n = 0;
	void *obj;
	while ((max == 0 || (uint32_t)n < max) && n < INT32_MAX && rte_ring_dequeue(p->ring_out, &obj) == 0) {
		struct rte_mbuf *m = obj;
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		if (!rte_pktmbuf_is_contiguous(m)) {
			if (flat == NULL && (flat = malloc(UINT16_MAX + 1u)) == NULL) {
				rte_pktmbuf_free(m);
				return rt_errc(-ENOMEM, "out of memory");
			}
			d = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		}
		cb(arg, port_no, d, m->pkt_len);
		rte_pktmbuf_free(m);
		n++;
	}
	free(flat);
	return n;
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
		ring_drain_free(p->ring_in);
		ring_drain_free(p->ring_out);
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

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Worker lcores and p4dp_runtime_run(): rx burst -> program -> tx burst per output port.
 *
 * Fast path rules: no allocation other than mbufs from the pool's per-lcore cache, no lock, no
 * syscall, no log (unless the program calls log_msg/assert). Each worker reports an RCU quiescent
 * state after every loop iteration, so table writers' grace periods end within one iteration.
 *
 * Transmit: a worker uses tx queue `worker id` of a port when the device has that many queues;
 * otherwise it hands its packets to the port's multi-producer/single-consumer ring, which worker 0
 * drains to tx queue 0 (lock-free: rte_ring MP enqueue, SC dequeue).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "p4dp/mbuf.h"
#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "rt_internal.h"

#define RT_RXD 512u
#define RT_TXD 512u
#define RT_TXRING 4096u
#define RT_INQ 4096u /* per-worker software-dispatch ring */
#define RT_MBUF_DATA (RTE_PKTMBUF_HEADROOM + 4096u)

/* ------------------------------------------------------------ transmit */

/* Transmit @p n mbufs holding @p bytes bytes in all; counts what was sent, frees the rest. */
static void port_tx_bytes(struct p4dp_runtime *rt, struct rt_worker *acct, uint32_t slot, uint16_t queue,
			  struct rte_mbuf **m, uint32_t n, uint64_t bytes)
{
	struct rt_port *p = &rt->ports[slot];
	uint16_t sent = rte_eth_tx_burst(p->dpdk_port, queue, m, (uint16_t)n);
	/* the unsent mbufs are still ours: count their bytes out, then free them */
	for (uint32_t i = sent; i < n; i++) {
		bytes -= m[i]->pkt_len;
		rte_pktmbuf_free(m[i]);
	}
	struct rt_port_wstats *ps = &acct->pst[slot];
	RT_STAT_ADD(ps->tx_packets, sent);
	RT_STAT_ADD(ps->tx_bytes, bytes);
	if (sent < n)
		RT_STAT_ADD(ps->tx_errors, n - sent);
}

void rt_port_tx(struct p4dp_runtime *rt, struct rt_worker *acct, uint32_t slot, uint16_t queue,
		struct rte_mbuf **m, uint32_t n)
{
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	port_tx_bytes(rt, acct, slot, queue, m, n, bytes);
}

/* Transmit @p n mbufs holding @p bytes bytes on port slot @p slot: on the worker's own tx queue of
 * the port, or through the port's ring when it has too few tx queues (worker 0 drains it). */
static void tx_send(struct rt_worker *w, uint32_t slot, struct rte_mbuf **m, uint32_t n, uint64_t bytes)
{
	struct p4dp_runtime *rt = w->rt;
	struct rt_port *p = &rt->ports[slot];
	if (w->id < p->n_txq) {
		port_tx_bytes(rt, w, slot, (uint16_t)w->id, m, n, bytes);
	} else {
		unsigned k = rte_ring_enqueue_burst(p->txring, (void **)m, n, NULL);
		for (uint32_t i = k; i < n; i++)
			rte_pktmbuf_free(m[i]);
		if (k < n)
			RT_STAT_ADD(w->pst[slot].tx_errors, n - k);
	}
}

static void txbuf_flush(struct rt_worker *w, uint32_t slot)
{
	struct rt_txbuf *b = &w->txb[slot];
	if (b->n == 0)
		return;
	w->txmask &= ~(1u << slot);
	tx_send(w, slot, b->m, b->n, b->bytes);
	b->n = 0;
	b->bytes = 0;
}

_Static_assert(P4DP_RT_MAX_PORTS <= 32, "rt_worker.txmask has one bit per port slot");

static inline void txbuf_put(struct rt_worker *w, uint32_t slot, struct rte_mbuf *m)
{
	struct rt_txbuf *b = &w->txb[slot];
	if (__builtin_expect(b->n == RT_TXBUF, 0))
		txbuf_flush(w, slot);
	b->m[b->n++] = m;
	b->bytes += m->pkt_len;
	w->txmask |= 1u << slot;
}

/* perf: only the slots with pending packets (one bit each), not a scan of all 32 */
static void txbuf_flush_all(struct rt_worker *w)
{
	uint32_t mask = w->txmask;
	while (mask != 0) {
		uint32_t s = (uint32_t)__builtin_ctz(mask);
		mask &= mask - 1;
		txbuf_flush(w, s);
	}
}

/* Move the packets other workers queued for ports lacking tx queues to tx queue 0. */
static void drain_rings(struct p4dp_runtime *rt, struct rt_worker *acct)
{
	struct rte_mbuf *m[RT_BURST];
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		if (!p->used || p->txring == NULL)
			continue;
		unsigned n;
		while ((n = rte_ring_dequeue_burst(p->txring, (void **)m, RT_BURST, NULL)) > 0)
			rt_port_tx(rt, acct, s, 0, m, n);
	}
}

int p4dp_pkt_emit_copy(struct p4dp_ctx *ctx, uint32_t port, const uint8_t *data, uint32_t len)
{
	struct rt_worker *w = rt_worker_of(ctx);
	if (w->inj != NULL)
		return rt_inject_append(w, port, data, len, true);
	struct p4dp_runtime *rt = w->rt;
	int slot = port < P4DP_PORT_DROP ? rt->port_slot[port] : -1;
	if (slot < 0) {
		RT_STAT_ADD(w->st.no_port, 1);
		return 0;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt->pool);
	if (m == NULL) {
		RT_STAT_ADD(w->st.copy_errors, 1);
		return -ENOBUFS;
	}
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (len > UINT16_MAX || d == NULL) {
		rte_pktmbuf_free(m);
		RT_STAT_ADD(w->st.copy_errors, 1);
		return -ENOBUFS;
	}
	memcpy(d, data, len);
	RT_STAT_ADD(w->st.copies, 1);
	txbuf_put(w, (uint32_t)slot, m);
	return 0;
}

/* ------------------------------------------------------------ worker loop */

/* A packet the program did not send to a port of this runtime (output @p op, see
 * p4dp_process_mbufs_fn): free it and count why (an assert failure leaves the port at DROP).
 * Returns 1 for a multi-segment mbuf the program did not run on, else 0. */
static uint32_t pkt_discard(struct rt_worker *w, uint32_t slot, struct rte_mbuf *m, uint32_t op)
{
	uint32_t skipped = 0;
	if (op == P4DP_OUT_MULTISEG) {
		RT_STAT_ADD(w->st.multiseg, 1);
		skipped = 1;
	} else if (op == P4DP_OUT_ERROR) {
		RT_STAT_ADD(w->st.finish_errors, 1);
	} else if (op == P4DP_PORT_DROP) {
		RT_STAT_ADD(w->st.drops, 1);
		RT_STAT_ADD(w->pst[slot].drops, 1);
	} else {
		RT_STAT_ADD(w->st.no_port, 1);
	}
	rte_pktmbuf_free(m);
	return skipped;
}

/* After the program ran on the @p k mbufs @p mm (received on port slot @p slot; out[i] is each
 * one's output, see p4dp_process_mbufs_fn): hand each to its output port's tx buffer, or discard
 * it. @p one is the output all k share, or P4DP_OUT_ERROR if they do not (or may not); then
 * @p bytes is their pkt_len total. Returns how many were multi-segment mbufs the program did not
 * run on. perf: the common case, the whole burst to one port, needs no pass over the burst (the
 * program's loop found @p one and @p bytes); otherwise packets go in runs of the same output port,
 * with the tx buffer's count and byte sum in registers for the run (not a load-add-store through
 * memory per packet). */
static inline uint32_t burst_out(struct rt_worker *w, uint32_t slot, struct rte_mbuf **mm, const uint32_t *out,
				 uint32_t k, uint32_t one, uint64_t bytes)
{
	const struct p4dp_runtime *rt = w->rt;
	if (__builtin_expect(one < P4DP_PORT_DROP && rt->port_slot[one] >= 0, 1)) {
		const uint32_t os = (uint32_t)rt->port_slot[one];
		struct rt_txbuf *b = &w->txb[os];
		if (b->n == 0) {
			/* perf: nothing queued for the port (the usual case): send the burst as it is */
			tx_send(w, os, mm, k, bytes);
			return 0;
		}
		if (b->n + k <= RT_TXBUF) {
			for (uint32_t j = 0; j < k; j++)
				b->m[b->n + j] = mm[j];
			b->n += k;
			b->bytes += bytes;
			w->txmask |= 1u << os;
			return 0;
		}
	}
	uint32_t i = 0, skipped = 0;
	while (i < k) {
		const uint32_t op = out[i];
		const int os = op < P4DP_PORT_DROP ? rt->port_slot[op] : -1;
		if (__builtin_expect(os < 0, 0)) {
			skipped += pkt_discard(w, slot, mm[i], op);
			i++;
			continue;
		}
		struct rt_txbuf *b = &w->txb[os];
		uint32_t bn = b->n;
		uint64_t run_bytes = b->bytes;
		do {
			struct rte_mbuf *m = mm[i];
			if (__builtin_expect(bn == RT_TXBUF, 0)) {
				b->n = bn;
				b->bytes = run_bytes;
				txbuf_flush(w, (uint32_t)os);
				bn = 0;
				run_bytes = 0;
			}
			b->m[bn++] = m;
			run_bytes += m->pkt_len;
			i++;
		} while (i < k && out[i] == op);
		b->n = bn;
		b->bytes = run_bytes;
		w->txmask |= 1u << os;
	}
	return skipped;
}

/*
 * The packets of one rx burst, all received on port slot @p slot, in order. perf: statistics are
 * added once per burst; packet data is prefetched for the whole burst before the program runs.
 * The program gets the burst through process_mbufs (abi.h: its own loop over the mbufs, each
 * packet's state in registers; it also skips multi-segment mbufs and sums the bytes) if it has
 * it, else through process_burst as struct p4dp_pkt views, else process() per packet. Entries a
 * program holds stay valid for the whole call: the worker reports RCU quiescence only between
 * loop iterations.
 */
static void process_many(struct rt_worker *w, uint32_t slot, struct rte_mbuf **bufs, uint32_t n)
{
	struct p4dp_runtime *rt = w->rt;
	const struct p4dp_program *prog = rt->prog;
	struct rt_port_wstats *ps = &w->pst[slot];
	const uint32_t in_port = rt->ports[slot].port_no;
	struct rte_mbuf *mm[RT_BURST];
	uint32_t out[RT_BURST];
	uint64_t rx_bytes = 0, done = 0;
	RT_STAT_ADD(ps->rx_packets, n);
	while (n > 0) {
		uint32_t c = n < RT_BURST ? n : RT_BURST, k = 0, one;
		uint64_t tx_bytes;
		struct rte_mbuf **mp = bufs;
		if (prog->process_mbufs != NULL) {
			for (uint32_t j = 0; j < c; j++)
				rte_prefetch0(rte_pktmbuf_mtod(bufs[j], void *));
			struct p4dp_mbufs_sum sum;
			one = prog->process_mbufs(&w->ctx, bufs, c, in_port, out, &sum);
			rx_bytes += sum.rx_bytes;
			tx_bytes = sum.tx_bytes;
			k = c;
		} else {
			uint32_t multi = 0;
			for (uint32_t j = 0; j < c; j++) {
				struct rte_mbuf *m = bufs[j];
				rte_prefetch0(rte_pktmbuf_mtod(m, void *));
				rx_bytes += m->pkt_len;
				multi |= m->nb_segs - 1u; /* nb_segs >= 1 */
			}
			if (__builtin_expect(multi, 0)) {
				for (uint32_t j = 0; j < c; j++) {
					if (bufs[j]->nb_segs > 1) {
						RT_STAT_ADD(w->st.multiseg, 1);
						rte_pktmbuf_free(bufs[j]);
					} else {
						mm[k++] = bufs[j];
					}
				}
				mp = mm;
			} else {
				k = c;
			}
			struct p4dp_pkt pk[RT_BURST], *pp[RT_BURST];
			for (uint32_t i = 0; i < k; i++) {
				pk[i] = p4dp_mbuf_view(mp[i], in_port);
				pp[i] = &pk[i];
			}
			if (prog->process_burst != NULL) {
				if (k > 0)
					prog->process_burst(&w->ctx, pp, k);
			} else {
				for (uint32_t i = 0; i < k; i++) {
					w->drop_pkt = false;
					prog->process(&w->ctx, &pk[i]);
					if (w->drop_pkt)
						pk[i].out_port = P4DP_PORT_DROP;
				}
			}
			uint32_t any = 0, all = UINT32_MAX;
			tx_bytes = 0;
			for (uint32_t i = 0; i < k; i++) {
				/* the mbufs still hold what the views started from */
				const uint32_t o = p4dp_mbuf_done(mp[i], &pk[i], rte_pktmbuf_mtod(mp[i], uint8_t *),
								  mp[i]->data_len);
				out[i] = o;
				any |= o;
				all &= o;
				tx_bytes += pk[i].len;
			}
			one = any == all ? any : P4DP_OUT_ERROR; /* as p4dp_mbufs_run */
		}
		if (k > 0)
			done += k - burst_out(w, slot, mp, out, k, one, tx_bytes);
		bufs += c;
		n -= c;
	}
	RT_STAT_ADD(ps->rx_bytes, rx_bytes);
	RT_STAT_ADD(w->st.packets, done);
}

static inline uint64_t run_now_ns(const struct rt_worker *w)
{
	const struct p4dp_runtime *rt = w->rt;
	uint64_t d = rte_rdtsc() - rt->tsc0;
	/* perf: a multiply and a shift (tsc_mult is 2^32 ns per TSC cycle), not a 128-bit division */
	return rt->ns0 + (uint64_t)(((unsigned __int128)d * w->tsc_mult) >> 32);
}

/* Software dispatch. Process what other workers handed to this one; returns how many. Runs of
 * packets from the same port go through process_many together. */
static unsigned drain_inq(struct rt_worker *w)
{
	struct p4dp_runtime *rt = w->rt;
	struct rte_mbuf *bufs[RT_BURST];
	unsigned n = rte_ring_sc_dequeue_burst(w->inq, (void **)bufs, RT_BURST, NULL);
	RT_STAT_ADD(w->st.dispatched_in, n);
	unsigned j = 0;
	while (j < n) {
		uint16_t dp = bufs[j]->port;
		int16_t s = dp < 1024 ? rt->dpdk_slot[dp] : -1;
		if (s < 0) {
			RT_STAT_ADD(w->st.dispatch_drops, 1);
			rte_pktmbuf_free(bufs[j]);
			j++;
			continue;
		}
		unsigned e = j + 1;
		while (e < n && bufs[e]->port == dp)
			e++;
		process_many(w, (uint32_t)s, bufs + j, e - j);
		j = e;
	}
	return n;
}

/* Keep the packets of the flows this worker owns (processed as one burst, in order), hand the
 * others to their owners' rings (MP enqueue; the owner is the only consumer). perf: one enqueue
 * per owner and burst, not per packet (each is an atomic compare-and-swap on a shared line). */
static void dispatch_burst(struct rt_worker *w, uint32_t slot, struct rte_mbuf **bufs, uint16_t n)
{
	struct p4dp_runtime *rt = w->rt;
	uint32_t nw = rt->run_workers, n_own = 0, n_oth = 0;
	struct rte_mbuf *own[RT_BURST], *oth[RT_BURST];
	uint32_t owner[RT_BURST];
	const uint16_t dpdk_port = rt->ports[slot].dpdk_port;
	for (uint16_t j = 0; j < n; j++) {
		struct rte_mbuf *m = bufs[j];
		uint32_t o = rt_flow_owner(rt, rte_pktmbuf_mtod(m, const uint8_t *), m->data_len, nw, w->id);
		if (o == w->id) {
			own[n_own++] = m;
			continue;
		}
		/* The owner finds the ingress port through m->port: set it here from the port we
		 * polled, since not every PMD fills it (net_ring does not). */
		m->port = dpdk_port;
		owner[n_oth] = o;
		oth[n_oth++] = m;
	}
	/* Per owner, its packets in arrival order (flow order is what matters: one flow, one owner). */
	uint32_t left = n_oth;
	while (left > 0) {
		uint32_t o = UINT32_MAX, k = 0;
		struct rte_mbuf *q[RT_BURST];
		for (uint32_t j = 0; j < n_oth; j++) {
			if (oth[j] == NULL)
				continue;
			if (o == UINT32_MAX)
				o = owner[j];
			if (owner[j] == o) {
				q[k++] = oth[j];
				oth[j] = NULL;
			}
		}
		left -= k;
		/* Backpressure instead of loss: while the owner's ring is full, keep draining our own
		 * ring (so two workers waiting on each other both make progress). No drop at stop
		 * either: the owner keeps draining its ring until every dispatching worker has left
		 * its loop (see the end of worker_main). */
		uint32_t done = 0;
		while (done < k) {
			done += rte_ring_mp_enqueue_burst(rt->workers[o].inq, (void **)(q + done), k - done, NULL);
			if (done < k && drain_inq(w) == 0)
				rte_pause();
		}
		RT_STAT_ADD(w->st.dispatched_out, k);
	}
	if (n_own > 0)
		process_many(w, slot, own, n_own);
}

bool rt_clock_due(bool saturated, uint32_t since)
{
	return !saturated || since >= RT_CLOCK_EVERY;
}

static int worker_main(void *arg)
{
	struct rt_worker *w = arg;
	struct p4dp_runtime *rt = w->rt;
	uint32_t nw = rt->run_workers;
	int sw = rt->dispatch_sw, rss = rt->dispatch_rss;
	uint32_t mine[P4DP_RT_MAX_PORTS], n_mine = 0, k = 0;
	struct rte_mbuf *bufs[RT_BURST];

	/* RSS: every worker polls its own queue of every port; otherwise each port's queue 0 is
	 * polled by one worker (port slot % n_workers). */
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++)
		if (rt->ports[s].used) {
			if (rss || k % nw == w->id)
				mine[n_mine++] = s;
			k++;
		}
	uint16_t q = rss ? (uint16_t)w->id : 0;
	p4dp_rcu_register(rt->rcu, w->id);
	p4dp_bias_online(rt->bias, w->id); /* from here on, acknowledges bias revocations */
	rt_batch_drain_fn drain = sw ? drain_inq : NULL;
	rt_batch_online(w, drain); /* a data-plane atomic batch in progress: wait for it */
	/* The clock (ctx->now_ns), see rt_clock_due. perf: rte_rdtsc costs 70-90 TSC cycles on a KVM guest (2-3 per
	 * packet of a full burst), so while every poll returns a full burst the clock is read every
	 * RT_CLOCK_EVERY iterations; otherwise every iteration. A program's time is then at most
	 * RT_CLOCK_EVERY full bursts old (about 2 us at 25 cycles/pkt). */
	uint32_t since_clock = RT_CLOCK_EVERY;
	bool saturated = false;
	/* acquire pairs with the control thread's release store of stop_workers */
	while (!__atomic_load_n(&rt->stop_workers, __ATOMIC_ACQUIRE)) {
		if (__builtin_expect(rt_batch_requested(rt), 0)) {
			rt_batch_park(w, drain); /* loop boundary: no entry held, no action running */
			/* the time read before parking is as old as the park: the first packets after
			 * a batch must not carry a time from before it */
			since_clock = RT_CLOCK_EVERY;
		}
		if (rt_clock_due(saturated, since_clock)) {
			w->ctx.now_ns = run_now_ns(w);
			since_clock = 0;
		}
		since_clock++;
		saturated = n_mine > 0 && !sw;
		for (uint32_t i = 0; i < n_mine; i++) {
			uint32_t s = mine[i];
			uint16_t n = rte_eth_rx_burst(rt->ports[s].dpdk_port, q, bufs, RT_BURST);
			RT_STAT_ADD(w->st.rx_packets, n);
			saturated &= n == RT_BURST;
			if (sw) {
				dispatch_burst(w, s, bufs, n);
				continue;
			}
			process_many(w, s, bufs, n); /* perf: staged bursts + prefetch */
		}
		if (sw)
			drain_inq(w);
		txbuf_flush_all(w);
		if (w->id == 0 && rt->any_txring)
			drain_rings(rt, w);
		p4dp_rcu_quiescent(rt->rcu, w->id);
		p4dp_bias_ack(rt->bias, w->id); /* between bursts: no action runs */
		RT_STAT_ADD(w->loops, 1);
	}
	if (sw) {
		/* Stopping: no packet handed over by another worker is lost. Leave the set of
		 * dispatching workers, then drain our ring until nobody can add to it any more.
		 * acq_rel/acquire: a peer's enqueues before its decrement are visible to our dequeue. */
		__atomic_sub_fetch(&rt->dispatching, 1, __ATOMIC_ACQ_REL);
		while (__atomic_load_n(&rt->dispatching, __ATOMIC_ACQUIRE) != 0 || rte_ring_count(w->inq) != 0) {
			/* a peer may be parked by a batch: park too, or it never leaves its loop */
			if (__builtin_expect(rt_batch_requested(rt), 0))
				rt_batch_park(w, drain);
			if (drain_inq(w) == 0)
				rte_pause();
		}
	}
	txbuf_flush_all(w);
	rt_batch_offline(w);
	p4dp_bias_offline(rt->bias, w->id);
	p4dp_rcu_unregister(rt->rcu, w->id);
	return 0;
}

/* ------------------------------------------------------------ run */

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Can every port spread @p nw rx queues by RSS? */
static bool ports_rss_capable(struct p4dp_runtime *rt, uint32_t nw)
{
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		struct rte_eth_dev_info info;
		if (!p->used)
			continue;
		if (rte_eth_dev_info_get(p->dpdk_port, &info) != 0 || info.max_rx_queues < nw ||
		    (info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP)) == 0)
			return false;
	}
	return true;
}

/* @p nw workers poll the ports; @p ntx_users threads send (the workers, then the background
 * threads): each gets a tx queue of its own where the device has enough. */
static int ports_start(struct p4dp_runtime *rt, uint32_t nw, uint32_t ntx_users, bool rss)
{
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		if (!p->used)
			continue;
		struct rte_eth_dev_info info;
		int rc = rte_eth_dev_info_get(p->dpdk_port, &info);
		if (rc != 0)
			return rt_errc(-EIO, "port %u (%s): cannot get device info: %s", p->port_no, p->name,
				       strerror(-rc));
		if (info.max_rx_queues < 1 || info.max_tx_queues < 1)
			return rt_errc(-EIO, "port %u (%s): device has no rx or tx queue", p->port_no, p->name);
		uint16_t ntx = (uint16_t)(ntx_users < info.max_tx_queues ? ntx_users : info.max_tx_queues);
		struct rte_eth_conf conf;
		memset(&conf, 0, sizeof(conf));
		uint16_t nrx = rss ? (uint16_t)nw : 1;
		if (rss) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf =
				(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
		}
		rc = rte_eth_dev_configure(p->dpdk_port, nrx, ntx, &conf);
		if (rc != 0)
			return rt_errc(-EIO, "port %u (%s): configure failed: %s", p->port_no, p->name, strerror(-rc));
		uint16_t rxd = RT_RXD, txd = RT_TXD;
		rte_eth_dev_adjust_nb_rx_tx_desc(p->dpdk_port, &rxd, &txd);
		int sock = rte_eth_dev_socket_id(p->dpdk_port);
		if (sock < 0)
			sock = rt->socket_id;
		for (uint16_t q = 0; q < nrx; q++) {
			rc = rte_eth_rx_queue_setup(p->dpdk_port, q, rxd, (unsigned)sock, NULL, rt->pool);
			if (rc != 0)
				return rt_errc(-EIO, "port %u (%s): rx queue %u setup failed: %s", p->port_no,
					       p->name, q, strerror(-rc));
		}
		if (p->dpdk_port < 1024)
			rt->dpdk_slot[p->dpdk_port] = (int16_t)s;
		for (uint16_t q = 0; q < ntx; q++) {
			rc = rte_eth_tx_queue_setup(p->dpdk_port, q, txd, (unsigned)sock, NULL);
			if (rc != 0)
				return rt_errc(-EIO, "port %u (%s): tx queue %u setup failed: %s", p->port_no, p->name,
					       q, strerror(-rc));
		}
		p->n_txq = ntx;
		if (ntx < ntx_users)
			rt->any_txring = true;
		if (ntx < ntx_users && p->txring == NULL) {
			char rn[RTE_RING_NAMESIZE];
			snprintf(rn, sizeof(rn), "p4dp_tx%u_%p", s, (void *)rt);
			p->txring = rte_ring_create(rn, RT_TXRING, rt->socket_id, RING_F_SC_DEQ);
			if (p->txring == NULL)
				return rt_errc(-ENOMEM, "port %u: cannot create the tx ring", p->port_no);
		}
		rc = rte_eth_dev_start(p->dpdk_port);
		if (rc != 0)
			return rt_errc(-EIO, "port %u (%s): start failed: %s", p->port_no, p->name, strerror(-rc));
		p->started = true;
		rte_eth_promiscuous_enable(p->dpdk_port); /* not all vdevs support it: ignore errors */
	}
	return 0;
}

static void ports_stop(struct p4dp_runtime *rt)
{
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		if (p->used && p->started) {
			rte_eth_dev_stop(p->dpdk_port);
			p->started = false;
		}
	}
}

static int pool_ensure(struct p4dp_runtime *rt)
{
	uint32_t need = rt->n_ports * (rt->max_workers * (RT_RXD + RT_TXD) + RT_TXRING) + rt->max_workers * RT_INQ +
			rt->max_workers * (RT_BURST + P4DP_RT_MAX_PORTS * RT_TXBUF + 512) + 2048;
	if (rt->pool_size > need)
		need = rt->pool_size;
	if (rt->pool != NULL) {
		if (rt->pool->size >= need)
			return 0;
		return rt_errc(-ENOMEM, "mbuf pool of %u too small for %u ports (set n_mbufs when creating)",
			       rt->pool->size, rt->n_ports);
	}
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "p4dp_%p", (void *)rt);
	struct rte_mempool *pool = rte_pktmbuf_pool_create(name, need, 256, 0, RT_MBUF_DATA, rt->socket_id);
	/* release: p4dp_runtime_ring_port_send (another control thread) loads it with acquire */
	__atomic_store_n(&rt->pool, pool, __ATOMIC_RELEASE);
	if (pool == NULL)
		return rt_errc(-ENOMEM, "cannot create an mbuf pool of %u mbufs: %s", need, rte_strerror(rte_errno));
	return 0;
}

/*
 * A port whose input file still has packets but that received nothing for this long has stalled
 * (net_pcap cannot read a record the count took for readable): its input counts as done, so a run
 * never waits without a bound. Generous against a loaded machine; pcap input flows in microseconds.
 */
#define RT_INPUT_STALL_MS 2000

/* Progress of the ports' input, for input_done (control thread only). */
struct input_watch {
	uint64_t unknown_total, unknown_change; /* rx of ports with unknown input size, when it last changed */
	bool unknown_started;			/* one of those received a packet */
	uint64_t all_total, all_change;		/* rx of all ports, when it last changed */
};

/* Has the input of every port been received (or stalled)? */
static bool input_done(struct p4dp_runtime *rt, struct input_watch *iw, uint32_t idle_ms, uint64_t now)
{
	bool done = true, any_unknown = false;
	uint64_t unknown_total = 0, all_total = 0;
	for (uint32_t s = 0; s < P4DP_RT_MAX_PORTS; s++) {
		struct rt_port *p = &rt->ports[s];
		if (!p->used)
			continue;
		uint64_t rx = 0;
		for (uint32_t w = 0; w < rt->max_workers; w++)
			rx += RT_STAT_LOAD(rt->workers[w].pst[s].rx_packets);
		all_total += rx;
		if (p->expected_rx >= 0) {
			if (rx < (uint64_t)p->expected_rx)
				done = false;
		} else {
			any_unknown = true;
			unknown_total += rx;
		}
	}
	if (all_total != iw->all_total) {
		iw->all_total = all_total;
		iw->all_change = now;
	}
	if (any_unknown) {
		if (unknown_total != iw->unknown_total) {
			iw->unknown_total = unknown_total;
			iw->unknown_change = now;
			iw->unknown_started = true;
		}
		if (!iw->unknown_started || now - iw->unknown_change < idle_ms)
			done = false;
	}
	if (!done && now - iw->all_change >= RT_INPUT_STALL_MS)
		done = true; /* stalled: nothing more will come */
	return done;
}

int p4dp_runtime_run(struct p4dp_runtime *rt, const struct p4dp_run_params *params)
{
	if (rt == NULL || params == NULL)
		return rt_errc(-EINVAL, "run: NULL argument");
	uint32_t nw = params->n_workers;
	if (nw == 0 || nw > rt->max_workers)
		return rt_errc(-EINVAL, "run: n_workers %u not in 1..%u (max_workers)", nw, rt->max_workers);
	uint32_t nb = params->n_background;
	if (nb > rt->prog->n_background)
		return rt_errc(-EINVAL, "run: %u background threads for %u background pipelines", nb,
			       rt->prog->n_background);
	if (nw + nb > rt->max_workers)
		return rt_errc(-EINVAL, "run: %u workers and %u background threads need max_workers >= %u (it is %u)",
			       nw, nb, nw + nb, rt->max_workers);
	if (nw + nb > rte_lcore_count() - 1)
		return rt_errc(-EINVAL, "run: %u workers and %u background threads need %u EAL worker lcores, the EAL has %u (use --lcores)",
			       nw, nb, nw + nb, rte_lcore_count() - 1);
	if (params->stop == NULL && params->duration_ms == 0 && !params->until_input_done)
		return rt_errc(-EINVAL, "run: no stop condition (stop flag, duration or until_input_done)");
	int zero = 0;
	/* acq_rel: one run at a time; the previous run's release store of 0 is seen with its state */
	if (!__atomic_compare_exchange_n(&rt->running, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return rt_errc(-EBUSY, "run: already running");
	int rc = 0;
	if (params->dispatch > P4DP_RT_DISPATCH_NONE)
		rc = rt_errc(-EINVAL, "run: bad dispatch mode %u", params->dispatch);
	pthread_mutex_lock(&rt->lock);
	if (rc == 0 && rt->n_ports == 0)
		rc = rt_errc(-EINVAL, "run: no ports (p4dp_runtime_port_add)");
	if (rc == 0)
		rc = pool_ensure(rt);
	bool rss = false;
	if (rc == 0 && nw > 1 && params->dispatch != P4DP_RT_DISPATCH_SW && params->dispatch != P4DP_RT_DISPATCH_NONE) {
		rss = ports_rss_capable(rt, nw);
		if (!rss && params->dispatch == P4DP_RT_DISPATCH_RSS)
			rc = rt_errc(-EIO, "run: RSS dispatch requested but a port cannot spread %u rx queues by RSS",
				     nw);
	}
	/* relaxed: read by workers launched later (the EAL launch orders it) and by statistics */
	__atomic_store_n(&rt->dispatch_sw, nw > 1 && !rss && params->dispatch != P4DP_RT_DISPATCH_NONE,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rt->dispatch_rss, rss, __ATOMIC_RELAXED); /* workers are launched after this */
	rt->flow_off = params->flow_key_off;
	rt->flow_len = params->flow_key_len;
	for (uint32_t i = 0; i < 1024; i++)
		rt->dpdk_slot[i] = -1;
	rt->any_txring = false; /* set by ports_start for ports with fewer tx queues than workers */
	for (uint32_t i = 0; rc == 0 && nw > 1 && !rss && i < nw; i++) {
		if (rt->workers[i].inq != NULL)
			continue;
		char rn[RTE_RING_NAMESIZE];
		snprintf(rn, sizeof(rn), "p4dp_in%u_%p", i, (void *)rt);
		/* multi-producer (any rx worker), single consumer (the owner) */
		rt->workers[i].inq = rte_ring_create(rn, RT_INQ, rt->socket_id, RING_F_SC_DEQ);
		if (rt->workers[i].inq == NULL)
			rc = rt_errc(-ENOMEM, "run: cannot create the dispatch ring of worker %u", i);
	}
	if (rc == 0)
		rc = ports_start(rt, nw, nw + nb, rss);
	pthread_mutex_unlock(&rt->lock);
	if (rc != 0) {
		ports_stop(rt);
		/* release: pairs with the acquire loads of running (inject, port_add, bench) */
		__atomic_store_n(&rt->running, 0, __ATOMIC_RELEASE);
		return rc;
	}

	rt->run_workers = nw;
	rt->run_background = nb; /* read by the background threads, launched below */
	/* relaxed: published by the release store of clock_live below */
	__atomic_store_n(&rt->tsc0, rte_rdtsc(), __ATOMIC_RELAXED);
	__atomic_store_n(&rt->ns0, __atomic_load_n(&rt->now_ns, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	/* release: rt_now_ns on other control threads sees tsc0/ns0 once it sees clock_live */
	__atomic_store_n(&rt->clock_live, 1, __ATOMIC_RELEASE);
	/* release: before the workers' launch; they load it with acquire every iteration */
	__atomic_store_n(&rt->stop_workers, 0, __ATOMIC_RELEASE);
	/* release: set before the launch; workers decrement it (acq_rel) when they stop */
	__atomic_store_n(&rt->dispatching, rt->dispatch_sw ? (int)nw : 0, __ATOMIC_RELEASE);
	uint32_t launched = 0;
	unsigned lcores[RTE_MAX_LCORE];
	unsigned lc;
	RTE_LCORE_FOREACH_WORKER(lc)
	{
		if (launched == nw + nb)
			break;
		struct rt_worker *w = &rt->workers[launched];
		memset(w->txb, 0, sizeof(*w->txb) * P4DP_RT_MAX_PORTS);
		w->txmask = 0;
		w->tsc_mult = rt->tsc_mult;
		w->lcore = (int)lc;
		/* the workers, then the background threads of rtc.p4 programs (rtc_bg.c) */
		if (rte_eal_remote_launch(launched < nw ? worker_main : rt_bg_main, w, lc) != 0) {
			rc = rt_errc(-EBUSY, "run: lcore %u is busy", lc);
			break;
		}
		lcores[launched++] = lc;
	}
	if (rt->dispatch_sw && launched < nw) /* workers that never started never leave the set */
		__atomic_sub_fetch(&rt->dispatching, (int)(nw - launched), __ATOMIC_ACQ_REL);

	uint64_t t0 = mono_ms(), last_maint = t0, last_idle = t0;
	struct input_watch iw = {.all_change = t0};
	uint32_t idle_ms = params->idle_ms ? params->idle_ms : 200;
	uint64_t input_done_at = 0; /* with background threads: when the input was done (0: not yet) */
	while (rc == 0) {
		uint64_t now = mono_ms();
		/* acquire pairs with the release store of whoever sets *stop (another thread) */
		if (params->stop && __atomic_load_n(params->stop, __ATOMIC_ACQUIRE))
			break;
		if (params->duration_ms && now - t0 >= params->duration_ms)
			break;
		if (params->until_input_done && input_done(rt, &iw, idle_ms, now)) {
			/* background pipelines get idle_ms more to react to the last packets */
			if (nb == 0 || (input_done_at != 0 && now - input_done_at >= idle_ms))
				break;
			if (input_done_at == 0)
				input_done_at = now;
		}
		if (now - last_idle >= 10) {
			/* idle-timeout sweep on the control thread (entries' last-hit times are the
			 * workers' run clock, which rt_now_ns also reads) */
			(void)rt_idle_scan(rt, rt_now_ns(rt));
			last_idle = now;
		}
		if (now - last_maint >= 10) {
			/* port liveness: the devices' link status (a change republishes the replica lists
			 * and selector groups, liveness.c) */
			rt_liveness_links_poll(rt);
			for (uint32_t t = 0; t < rt->prog->n_tables; t++)
				p4dp_table_maintain(rt->tables[t]);
			p4dp_rcu_reclaim(rt->rcu, false);
			last_maint = now;
		}
		usleep(1000);
	}
	/* release: workers see the stop after everything above (they finish their burst, flush, exit) */
	__atomic_store_n(&rt->stop_workers, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < launched; i++)
		rte_eal_wait_lcore(lcores[i]);
	/* the workers are gone: the control thread may use tx queue 0 for what is left in the rings */
	drain_rings(rt, &rt->workers[0]);
	/* packets dispatched to a worker that had already stopped: dropped and counted */
	for (uint32_t i = 0; i < nw; i++) {
		struct rte_mbuf *m;
		while (rt->workers[i].inq != NULL && rte_ring_sc_dequeue(rt->workers[i].inq, (void **)&m) == 0) {
			rte_pktmbuf_free(m);
			RT_STAT_ADD(rt->workers[i].st.dispatch_drops, 1);
		}
	}
	/* release: rt_now_ns falls back to the simulated clock from here on */
	__atomic_store_n(&rt->clock_live, 0, __ATOMIC_RELEASE);
	/* release: the stopped ports and final statistics before running reads 0 (acquire in its readers) */
	ports_stop(rt);
	rt_liveness_links_clear(rt); /* stopped ports have no link to report: only the admin state counts */
	__atomic_store_n(&rt->running, 0, __ATOMIC_RELEASE);
	return rc;
}

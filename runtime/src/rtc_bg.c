/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Background threads of a run (rtc.p4 background pipelines under p4dp_runtime_run).
 *
 * p4dp_runtime_run (worker.c) launches params->n_background of them on the EAL lcores after the
 * workers'; thread i uses worker context run_workers + i (its own RCU thread id, bias slot, batch
 * park state, statistics and emit buffer) and runs the pipelines b with b % n_background == i,
 * so with one thread per pipeline each loops on a core of its own, and with fewer they share.
 *
 * Scheduling on a thread: round robin over its pipelines, one iteration at a time; a pipeline
 * whose last iteration called Sleep is not due until that iteration's start plus the sleep (the
 * run clock, rt_now_ns). When none is due the thread gives its core away: it goes offline (RCU,
 * biased locks, batch barrier) and sleeps until the earliest one is due (at most 1 ms at a time,
 * to see the stop), spinning instead for waits under BG_SPIN_NS. Queue.popWait on an empty queue
 * waits through bg_wait, which ends the wait when another pipeline of the thread is due (so a
 * pipeline blocked on its queue never starves its neighbours) or the run stops.
 *
 * Time-sharing within a long iteration: a table sweep every 1,024 rows and a range loop every
 * 1,024 indices (in a control's apply block) are yield points (bg_yield, p4dp_bg_env.yield). At
 * one, the thread runs, nested on its stack, the other pipelines that are due and not themselves
 * in the middle of an iteration (t->active), round robin, each at least once and then while they
 * have run for less time than the interrupted iteration since it began or last yielded (equal
 * shares; a pipeline whose popWait found its queue empty is done for that yield), then the
 * interrupted iteration goes on. A pipeline is never re-entered, so the nesting is at most the thread's
 * pipelines deep, each level with its own packet buffer. A nested iteration that waits in
 * popWait gives way at once (the interrupted one counts as due). No yield while the iteration
 * holds an rtc Lock (p4dp_bg_env.locks_held), while a data-plane atomic batch is requested (the
 * thread parks only between its outermost iterations, or in popWait, so a batch is never applied
 * in the middle of a sweep it did not already wait for), or once the run stops.
 *
 * Like a worker the thread reports RCU quiescence between iterations, and also while popWait
 * waits (the generated code holds no table entry across popWait, as across entryDel); it parks
 * for data-plane atomic batches at the same points. The packet an iteration builds is copied to
 * an mbuf and sent on the thread's own tx queue of the port when the device has one, else
 * through the port's ring, which worker 0 drains (as for workers beyond the tx queues).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "p4dp/dpwrite.h"
#include "p4dp/rcu.h"
#include "rt_internal.h"

/* Waits shorter than this are spun (a sleep's wake-up costs tens of microseconds). */
#define BG_SPIN_NS 20000u
/* The longest single sleep of an idle thread: how late it may see the stop. */
#define BG_SLEEP_MAX_NS 1000000u
/* popWait: spins between short sleeps while the queue stays empty (a waiting thread leaves the
 * CPU to others now and then: on a small machine it shares one with a worker). */
#define BG_WAIT_SPINS 4096u
#define BG_WAIT_SLEEP_NS 20000u

/* One background thread's schedule. */
struct bg_thread {
	struct rt_worker *w;
	uint32_t n;                            /* pipelines it runs */
	uint32_t pipe[P4DP_RT_MAX_BACKGROUND]; /* their numbers */
	uint64_t wake[P4DP_RT_MAX_BACKGROUND]; /* run clock before which pipe[j] sleeps */
	uint32_t cur;                          /* index in pipe[] of the innermost iteration running */
	uint32_t spins;                        /* popWait spins since the last sleep */
	uint32_t next;                         /* round robin: the index in pipe[] looked at first */
	uint32_t depth;                        /* iterations on the stack (nested at yield points) */
	uint32_t active;                       /* bit j: pipe[j] is in the middle of an iteration */
	uint32_t waited;                       /* bit j: pipe[j] found its queue empty at this yield */
	uint64_t slice[P4DP_RT_MAX_BACKGROUND]; /* run clock when each level's iteration began or
						  * came back from its last yield point */
	uint8_t *buf[P4DP_RT_MAX_BACKGROUND];  /* the packet buffer of each nesting level */
};

/* The first pipeline from t->next on, round robin, that is due at @p now and not in the middle of
 * an iteration; UINT32_MAX if none, with *@p earliest the earliest wake of the others. */
static uint32_t bg_pick(const struct bg_thread *t, uint64_t now, uint64_t *earliest)
{
	*earliest = UINT64_MAX;
	for (uint32_t k = 0; k < t->n; k++) {
		const uint32_t j = (t->next + k) % t->n;
		if (t->active & (1u << j))
			continue;
		if (t->wake[j] <= now)
			return j;
		if (t->wake[j] < *earliest)
			*earliest = t->wake[j];
	}
	return UINT32_MAX;
}

static bool bg_stopping(const struct p4dp_runtime *rt)
{
	/* acquire pairs with the control thread's release store of stop_workers */
	return __atomic_load_n(&rt->stop_workers, __ATOMIC_ACQUIRE) != 0;
}

static void bg_nap(uint64_t ns)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};
	nanosleep(&ts, NULL);
}

/* Nothing is due for @p ns: give the core away. Offline for RCU, biased locks and the batch
 * barrier while asleep, so no grace period, revocation or batch waits for a sleeping thread. */
static void bg_idle(struct rt_worker *w, uint64_t ns)
{
	struct p4dp_runtime *rt = w->rt;
	if (ns < BG_SPIN_NS) {
		rte_pause();
		return;
	}
	p4dp_rcu_thread_offline(rt->rcu, w->id);
	p4dp_bias_offline(rt->bias, w->id);
	rt_batch_offline(w);
	bg_nap(ns < BG_SLEEP_MAX_NS ? ns : BG_SLEEP_MAX_NS);
	p4dp_rcu_thread_online(rt->rcu, w->id);
	p4dp_bias_online(rt->bias, w->id);
	rt_batch_online(w, NULL); /* parks here if a batch runs */
}

/* p4dp_bg_env.wait: popWait found its queue empty. Nonzero ends the wait (popWait is false). */
static int bg_wait(struct p4dp_bg_env *env)
{
	struct bg_thread *t = env->wait_arg;
	struct rt_worker *w = t->w;
	struct p4dp_runtime *rt = w->rt;
	if (bg_stopping(rt))
		return 1;
	if (t->depth > 1) {
		/* nested at a yield point: the interrupted iteration is due, so give way at once, and
		 * this pipeline has nothing to do for the rest of this yield */
		t->waited |= 1u << t->cur;
		return 1;
	}
	if (t->n > 1) {
		uint64_t now = rt_now_ns(rt);
		for (uint32_t j = 0; j < t->n; j++)
			if (j != t->cur && ((t->active & (1u << j)) || t->wake[j] <= now))
				return 1; /* time-sharing: a neighbour is due, or waits at a yield point */
	}
	if (rt_batch_requested(rt))
		rt_batch_park(w, NULL);
	/* the iteration holds no table entry across popWait (rtc.h): a quiescent state */
	p4dp_rcu_quiescent(rt->rcu, w->id);
	p4dp_bias_ack(rt->bias, w->id);
	if (++t->spins % BG_WAIT_SPINS == 0) {
		p4dp_rcu_thread_offline(rt->rcu, w->id);
		bg_nap(BG_WAIT_SLEEP_NS);
		p4dp_rcu_thread_online(rt->rcu, w->id);
	} else {
		rte_pause();
	}
	return 0;
}

/* Send the @p len bytes at @p data, an iteration's packet, to P4 port @p port. */
static void bg_send(struct rt_worker *w, uint32_t port, const uint8_t *data, uint32_t len)
{
	struct p4dp_runtime *rt = w->rt;
	int slot = port < P4DP_PORT_DROP ? rt->port_slot[port] : -1;
	if (slot < 0) {
		RT_STAT_ADD(w->st.no_port, 1);
		return;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt->pool);
	uint8_t *d = m != NULL && len <= UINT16_MAX ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;
	if (d == NULL) {
		rte_pktmbuf_free(m); /* NULL: no-op */
		RT_STAT_ADD(w->st.copy_errors, 1);
		return;
	}
	memcpy(d, data, len);
	struct rt_port *p = &rt->ports[slot];
	struct rt_port_wstats *ps = &w->pst[slot];
	if (w->id < p->n_txq) {
		if (rte_eth_tx_burst(p->dpdk_port, (uint16_t)w->id, &m, 1) == 1) {
			RT_STAT_ADD(ps->tx_packets, 1);
			RT_STAT_ADD(ps->tx_bytes, len);
			return;
		}
	} else if (rte_ring_mp_enqueue(p->txring, m) == 0) {
		return; /* worker 0 sends it and counts it */
	}
	rte_pktmbuf_free(m);
	RT_STAT_ADD(ps->tx_errors, 1);
}

static void bg_yield(struct p4dp_bg_env *env);

/* One iteration of pipeline t->pipe[j], started at @p now, at nesting level t->depth (0: between
 * iterations; else at a yield point of the iterations below). */
static void bg_iteration(struct bg_thread *t, uint32_t j, uint64_t now)
{
	struct rt_worker *w = t->w;
	struct p4dp_runtime *rt = w->rt;
	const uint32_t b = t->pipe[j];
	t->next = (j + 1) % t->n; /* round robin: the others first next time */
	t->cur = j;
	t->active |= 1u << j;
	t->slice[t->depth] = now;
	struct p4dp_pkt pkt = rt_bg_pkt(t->buf[t->depth++]);
	struct p4dp_bg_env env = {
		.wait = bg_wait,
		.wait_arg = t,
		.yield = t->n > 1 ? bg_yield : NULL,
		.rcu = rt->rcu,
		.rcu_thread = w->id,
		/* this thread is the pipeline's only runner during the run; the EAL launch and join
		 * order it with the control thread's accesses (p4dp_runtime_background_run) */
		.iteration = rt->bg_iter[b],
		.sleep_ns = 0,
	};
	w->ctx.now_ns = now;
	w->drop_pkt = false;
	t->spins = 0;
	rt->prog->background(&w->ctx, b, &pkt, &env);
	t->depth--;
	t->active &= ~(1u << j);
	rt->bg_iter[b]++;
	if (env.sleep_ns != 0)
		t->wake[j] = now + env.sleep_ns;
	if (pkt.data == NULL)
		RT_STAT_ADD(w->st.finish_errors, 1);
	else if (!w->drop_pkt && pkt.out_port != P4DP_PORT_DROP)
		bg_send(w, pkt.out_port, pkt.data, pkt.len);
	RT_STAT_ADD(w->loops, 1);
}

/* p4dp_bg_env.yield (through rtc.h p4dp_rtc_yield, which checked locks_held): the iteration of
 * t->pipe[t->cur] is at a yield point, holding no table entry, entry lock or Lock. Runs the
 * other pipelines that are due and not in the middle of an iteration, round robin, an iteration
 * at a time, for about as long as the interrupted iteration ran since it began or last yielded
 * (equal shares of the thread), at least one iteration each; a pipeline whose popWait found its
 * queue empty is not run again in this yield (the file comment). */
static void bg_yield(struct p4dp_bg_env *env)
{
	struct bg_thread *t = env->wait_arg;
	struct rt_worker *w = t->w;
	struct p4dp_runtime *rt = w->rt;
	/* the caller holds no entry: a quiescent state, as between iterations */
	p4dp_rcu_quiescent(rt->rcu, w->id);
	p4dp_bias_ack(rt->bias, w->id);
	if (bg_stopping(rt) || rt_batch_requested(rt))
		return;
	/* what the iteration interrupted here has in the thread's context */
	const uint32_t cur = t->cur, spins = t->spins, waited = t->waited;
	const uint64_t now_ns = w->ctx.now_ns;
	const bool drop = w->drop_pkt;
	const uint32_t level = t->depth - 1; /* the interrupted iteration's */
	const uint64_t start = rt_now_ns(rt), until = start + (start - t->slice[level]);
	uint32_t ran = 0; /* bit j: pipe[j] ran in this yield */
	t->waited = 0;
	for (;;) {
		const uint64_t now = rt_now_ns(rt);
		uint64_t earliest;
		/* each due pipeline once, then again while the share lasts */
		const uint32_t active = t->active;
		t->active |= t->waited | (now >= until ? ran : 0u);
		const uint32_t j = bg_pick(t, now, &earliest);
		t->active = active;
		if (j == UINT32_MAX)
			break;
		ran |= 1u << j;
		bg_iteration(t, j, now);
		if (rt_batch_requested(rt) || bg_stopping(rt))
			break;
	}
	t->slice[level] = rt_now_ns(rt);
	t->cur = cur;
	t->spins = spins;
	t->waited = waited;
	w->ctx.now_ns = now_ns;
	w->drop_pkt = drop;
}

int rt_bg_main(void *arg)
{
	struct rt_worker *w = arg;
	struct p4dp_runtime *rt = w->rt;
	const struct p4dp_program *prog = rt->prog;
	struct bg_thread t = {.w = w};
	const uint32_t nt = rt->run_background, self = w->id - rt->run_workers;
	for (uint32_t b = self; b < prog->n_background && t.n < P4DP_RT_MAX_BACKGROUND; b += nt)
		t.pipe[t.n++] = b;
	for (uint32_t j = 0; j < t.n; j++) {
		t.buf[j] = malloc(RT_INJECT_HEADROOM + RT_INJECT_TAILROOM);
		if (t.buf[j] == NULL) {
			rt_log(rt, 0, "background thread %u: out of memory; its pipelines do not run", self);
			for (uint32_t i = 0; i < j; i++)
				free(t.buf[i]);
			return -ENOMEM;
		}
	}
	p4dp_rcu_register(rt->rcu, w->id);
	p4dp_bias_online(rt->bias, w->id);
	rt_batch_online(w, NULL);
	while (!bg_stopping(rt)) {
		if (rt_batch_requested(rt))
			rt_batch_park(w, NULL); /* between iterations: no entry held, no action running */
		const uint64_t now = rt_now_ns(rt);
		uint64_t earliest;
		const uint32_t due = bg_pick(&t, now, &earliest);
		if (due == UINT32_MAX) {
			bg_idle(w, earliest - now);
			continue;
		}
		bg_iteration(&t, due, now);
		p4dp_rcu_quiescent(rt->rcu, w->id);
		p4dp_bias_ack(rt->bias, w->id); /* between iterations: no action runs */
	}
	rt_batch_offline(w);
	p4dp_bias_offline(rt->bias, w->id);
	p4dp_rcu_unregister(rt->rcu, w->id);
	for (uint32_t j = 0; j < t.n; j++)
		free(t.buf[j]);
	return 0;
}

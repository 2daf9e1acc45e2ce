/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-plane atomic batches: a barrier at the workers' burst boundary.
 *
 * p4dp_runtime_batch_run() makes every worker of the current run finish the burst in hand and wait
 * at its quiescent point (between loop iterations, where it holds no entry, no entry lock and runs
 * no action), runs the caller's function (any control-API writes, on any table kind), then lets
 * the workers go on. A packet is processed entirely before the batch or entirely after it; the
 * workers' stall is the time the function takes plus the time to reach the barrier (at most one
 * loop iteration of each worker).
 *
 * The handshake is a Dekker pair on seq_cst atomics: the gate (control thread) and each worker's
 * park state. Gate: OPEN -> REQUEST (workers park at their next loop boundary) -> CLOSED (the
 * function runs) -> OPEN. A worker's state: OFF (not in its loop), RUN, PARKED. The control thread
 * closes the gate only after seeing every worker OFF or PARKED, then loads every state again:
 * a worker that went to RUN meanwhile (it stores RUN, then loads the gate) is either seen RUN
 * by that second look (the gate goes back to REQUEST) or sees the gate CLOSED itself and parks
 * again. Both sides use seq_cst stores and loads, so the two cannot both miss each other.
 *
 * Parked workers are offline for RCU and for biased entry locks while they wait, so the function
 * may wait for grace periods (deletes of entries with direct counters, adds that wait for pending
 * slots) and no grace period or bias revocation waits for a parked worker. With software dispatch a parked worker
 * keeps draining its ring while the gate is only requested (a worker still running may be waiting
 * for room in it); once the gate is closed nobody processes packets.
 *
 * A parked worker spins; it gives its CPU away (sched_yield) only to the thread running the batch,
 * when that thread last ran on the worker's CPU (batch_cpu): on a machine where other threads
 * wait for the CPU, a yield to anyone else lets them run their whole time slice (milliseconds)
 * while the gate may already be open, and every packet after the batch waits for it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <errno.h>
#include <sched.h>

#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "p4dp/dpwrite.h"
#include "p4dp/rcu.h"
#include "rt_internal.h"

/* Spins of the control thread (or a parked worker) before it yields the CPU to a thread sharing it. */
#define BATCH_SPINS_BEFORE_YIELD 256u

static inline int gate_load(const struct p4dp_runtime *rt)
{
	/* seq_cst: the worker half of the Dekker pair (store own state, then load the gate) */
	return __atomic_load_n(&rt->batch_gate, __ATOMIC_SEQ_CST);
}

static inline void state_store(struct rt_worker *w, int s)
{
	/* seq_cst: ordered before the worker's next gate load (Dekker pair, see the file comment);
	 * also a release: the worker's loads of entries before parking happen before the control
	 * thread's writes once it has seen PARKED */
	__atomic_store_n(&w->park, s, __ATOMIC_SEQ_CST);
}

/* Record the CPU the calling (batch) thread runs on, for the parked workers' choice to yield. */
static void batch_cpu_note(struct p4dp_runtime *rt)
{
	/* relaxed: a hint; a stale CPU costs one needless yield or a wait for the scheduler's
	 * preemption, never correctness (the gate handshake does not depend on it) */
	__atomic_store_n(&rt->batch_cpu, sched_getcpu(), __ATOMIC_RELAXED);
}

/* Should a parked worker yield its CPU? Yes when the batch's thread last ran on this CPU (it may
 * be waiting for this very CPU), or when this CPU is unknown. */
static bool batch_shares_cpu(const struct p4dp_runtime *rt)
{
	int c = sched_getcpu();
	return c < 0 || c == __atomic_load_n(&rt->batch_cpu, __ATOMIC_RELAXED); /* relaxed: see batch_cpu_note */
}

/* Leave the RCU domain and the bias protocol while parked: grace periods and bias revocations
 * then never wait for a parked worker (which may not even be scheduled on a shared CPU). */
static void park_offline(struct rt_worker *w)
{
	p4dp_rcu_thread_offline(w->rt->rcu, w->id);
	p4dp_bias_offline(w->rt->bias, w->id);
}

/* Back online before the worker looks up entries or runs actions again. */
static void park_online(struct rt_worker *w)
{
	p4dp_rcu_thread_online(w->rt->rcu, w->id);
	p4dp_bias_online(w->rt->bias, w->id);
}

/* Software dispatch: has another worker handed packets to this one? This worker is the ring's
 * only consumer, so cons.tail is its own; acquire on prod.tail pairs with the producers' release
 * of it (rte_ring_count reads both with plain loads, which ThreadSanitizer reports). */
static bool ring_pending(const struct rte_ring *r)
{
	return r != NULL &&
	       __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE) != __atomic_load_n(&r->cons.tail, __ATOMIC_RELAXED);
}

void rt_batch_park(struct rt_worker *w, rt_batch_drain_fn drain)
{
	struct p4dp_runtime *rt = w->rt;
	state_store(w, RT_PARK_PARKED);
	park_offline(w);
	for (uint32_t spins = 1;; spins++) {
		int g = gate_load(rt);
		if (g == RT_GATE_OPEN) {
			park_online(w);
			state_store(w, RT_PARK_RUN);
			/* the gate may have been requested again since: go on only if still open (a
			 * REQUEST seen here is answered at the next loop boundary; CLOSED: the control
			 * thread saw us PARKED and is writing) */
			if (gate_load(rt) != RT_GATE_CLOSED)
				return;
			state_store(w, RT_PARK_PARKED);
			park_offline(w);
			continue;
		}
		if (g == RT_GATE_REQUEST && drain != NULL && ring_pending(w->inq)) {
			/* software dispatch: packets waiting for this worker. Process them as a running
			 * worker (the gate is not closed while we are RUN). */
			park_online(w);
			state_store(w, RT_PARK_RUN);
			if (gate_load(rt) != RT_GATE_CLOSED)
				(void)drain(w);
			state_store(w, RT_PARK_PARKED);
			p4dp_rcu_quiescent(rt->rcu, w->id);
			park_offline(w);
		}
		/* a parked worker leaves the CPU to the control thread applying the batch when they
		 * share it, to nobody else (see the file comment) */
		if (spins % BATCH_SPINS_BEFORE_YIELD == 0 && batch_shares_cpu(rt))
			sched_yield();
		else
			rte_pause();
	}
}

void rt_batch_online(struct rt_worker *w, rt_batch_drain_fn drain)
{
	state_store(w, RT_PARK_RUN);
	if (gate_load(w->rt) != RT_GATE_OPEN)
		rt_batch_park(w, drain);
}

void rt_batch_offline(struct rt_worker *w)
{
	/* release: everything this worker did is visible to a control thread that sees OFF */
	__atomic_store_n(&w->park, RT_PARK_OFF, __ATOMIC_RELEASE);
}

/* Is every worker OFF or PARKED? */
static bool all_parked(struct p4dp_runtime *rt)
{
	for (uint32_t i = 0; i < rt->max_workers; i++)
		/* seq_cst: the control half of the Dekker pair (store the gate, then load the states);
		 * also an acquire of the worker's PARKED/OFF store */
		if (__atomic_load_n(&rt->workers[i].park, __ATOMIC_SEQ_CST) == RT_PARK_RUN)
			return false;
	return true;
}

int p4dp_runtime_batch_run(struct p4dp_runtime *rt, p4dp_rt_batch_fn fn, void *arg,
			   struct p4dp_rt_batch_times *times)
{
	if (rt == NULL || fn == NULL)
		return rt_errc(-EINVAL, "batch: NULL argument");
	int lrc = pthread_mutex_lock(&rt->batch_lock);
	if (lrc == EDEADLK)
		return rt_errc(-EDEADLK, "batch: called from inside a batch function");
	if (lrc != 0)
		return rt_errc(-lrc, "batch: cannot take the batch lock");
	uint64_t t0 = rte_rdtsc();
	batch_cpu_note(rt);
	/* seq_cst: see all_parked */
	__atomic_store_n(&rt->batch_gate, RT_GATE_REQUEST, __ATOMIC_SEQ_CST);
	uint32_t spins = 0;
	for (;;) {
		if (!all_parked(rt)) {
			if (++spins % BATCH_SPINS_BEFORE_YIELD == 0) {
				sched_yield(); /* a worker may share this CPU: let it reach the barrier */
				batch_cpu_note(rt); /* we may run elsewhere now */
			} else
				rte_pause();
			continue;
		}
		__atomic_store_n(&rt->batch_gate, RT_GATE_CLOSED, __ATOMIC_SEQ_CST);
		if (all_parked(rt))
			break;
		/* a worker went back to RUN between the two looks: request again and wait for it */
		__atomic_store_n(&rt->batch_gate, RT_GATE_REQUEST, __ATOMIC_SEQ_CST);
	}
	uint64_t t1 = rte_rdtsc();
	batch_cpu_note(rt);
	int rc = fn(arg);
	/* release: the workers' acquire (seq_cst) load of OPEN makes every write of fn visible */
	__atomic_store_n(&rt->batch_gate, RT_GATE_OPEN, __ATOMIC_RELEASE);
	uint64_t t2 = rte_rdtsc();
	pthread_mutex_unlock(&rt->batch_lock);
	if (times != NULL) {
		const uint64_t hz = rt->tsc_hz ? rt->tsc_hz : 1;
		times->wait_ns = (uint64_t)(((unsigned __int128)(t1 - t0) * 1000000000u) / hz);
		times->apply_ns = (uint64_t)(((unsigned __int128)(t2 - t1) * 1000000000u) / hz);
	}
	return rc;
}

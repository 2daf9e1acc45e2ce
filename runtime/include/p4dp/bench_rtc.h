/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file bench_rtc.h
 * The primitives of the run-to-completion architecture measured by `p4dp bench --suite rtc-costs`
 * (rtc.h, docs/rtc.md), each beside a baseline from the same call:
 *  - Queue push + pop per message against DPDK's MPMC rte_ring with the same message size, on one
 *    thread (bursts of 32 pushes then 32 pops) and as producer and consumer on two threads;
 *  - Lock acquire + release against rte_spinlock, uncontended and with two threads on one lock.
 * Time is read with rte_rdtsc. Context: the control thread, EAL initialised; the two-thread
 * figures start one pthread besides the caller, allowed on every CPU but the caller's.
 */
#ifndef P4DP_BENCH_RTC_H
#define P4DP_BENCH_RTC_H

#include <stdint.h>

#include "p4dp/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One figure and its baseline, TSC cycles per operation (message or acquire/release pair): over
 * the whole window, and the median over chunks of 32 operations, each timed on its own (the
 * chunks in which the thread was descheduled fall in the upper half: on a loaded machine the
 * median chunk is the primitive's cost, the window mostly other processes' time). Two-thread
 * queue runs have no chunk figure (0); two-thread lock runs time the caller's chunks.
 */
struct p4dp_bench_rtc_pair {
	double p4dp_cycles;     /**< the rtc primitive, window */
	double baseline_cycles; /**< the DPDK baseline measured right after it, window */
	double p4dp_median;     /**< the rtc primitive, median chunk */
	double baseline_median; /**< the baseline, median chunk */
	uint64_t ops;           /**< operations timed for each (n rounded up to a multiple of 32) */
};

/**
 * Queue<T> push + pop per message (p4dp_rtc_queue) against rte_ring_mp_enqueue_elem +
 * rte_ring_mc_dequeue_elem, messages of @p elem_size bytes (4..1024, a multiple of 4), @p n
 * messages each, through a queue of 1024 messages. @p two_threads 0: the caller pushes 32 and pops
 * them, over and over; 1: a second thread pushes while the caller pops (each spins, then yields, while
 * the queue is full / empty; the figure is the window over the messages).
 * @return 0; -EINVAL (bad size, n == 0); -ENOMEM; -EIO (a message came out different from what
 * went in: the queue lost or reordered one); -errno of pthread_create.
 */
int p4dp_bench_rtc_queue(uint32_t elem_size, uint64_t n, int two_threads, struct p4dp_bench_rtc_pair *res);

/**
 * Lock acquire (blocking) + release of one lock (p4dp_rtc_lock) against rte_spinlock_lock +
 * rte_spinlock_unlock, @p n pairs each; the critical section increments a plain counter.
 * @p two_threads 1: a second thread does the same on the same lock at the same time (the figure
 * is the window over both threads' pairs).
 * @return 0; -EINVAL (n == 0); -ENOMEM; -EIO (the counter lost an increment: mutual exclusion
 * failed); -errno of pthread_create.
 */
int p4dp_bench_rtc_lock(uint64_t n, int two_threads, struct p4dp_bench_rtc_pair *res);

#ifdef __cplusplus
}
#endif
#endif /* P4DP_BENCH_RTC_H */

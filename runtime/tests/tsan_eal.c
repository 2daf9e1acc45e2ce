/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadSanitizer support linked into the `make tsan` test binaries only (never into
 * libp4dp_rt.so): makes the thread hand-overs of DPDK's EAL visible to TSan.
 *
 * librte_eal is not instrumented. rte_eal_remote_launch() stores the function for the worker
 * lcore with release order and the lcore's thread loads it with acquire; when the function
 * returns, the thread stores the lcore state WAIT with release order and rte_eal_wait_lcore()
 * loads it with acquire. Both pairs happen inside librte_eal, so TSan sees neither and reports
 * every access of the control thread after a join (freeing, reading worker statistics) as a race
 * with the worker's accesses.
 *
 * The test binaries are linked with -Wl,--wrap=rte_eal_remote_launch,--wrap=rte_eal_wait_lcore,
 * so every call of these two functions in the runtime and the tests lands here: the launch
 * releases a per-lcore sync object that the trampoline running the function acquires first (the
 * start), the trampoline releases a second one when the function has returned, and the wait
 * acquires it after the real wait returned (the join). That is exactly the ordering the EAL
 * provides; nothing else is ordered by it.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "p4dp/tsan.h"

int __real_rte_eal_remote_launch(lcore_function_t *f, void *arg, unsigned worker_id);
int __real_rte_eal_wait_lcore(unsigned worker_id);
int __wrap_rte_eal_remote_launch(lcore_function_t *f, void *arg, unsigned worker_id);
int __wrap_rte_eal_wait_lcore(unsigned worker_id);

/* Sync objects per lcore (only the addresses matter): launch and completion. */
static char launch_sync[RTE_MAX_LCORE];
static char done_sync[RTE_MAX_LCORE];

struct launch {
	lcore_function_t *f;
	void *arg;
};

static int trampoline(void *p)
{
	unsigned id = rte_lcore_id(); /* this EAL thread's own (thread-local) lcore id */
	P4DP_TSAN_ACQUIRE(&launch_sync[id]); /* mirrors the worker's acquire load of f */
	struct launch l = *(struct launch *)p;
	free(p);
	int rc = l.f(l.arg);
	P4DP_TSAN_RELEASE(&done_sync[id]); /* mirrors the EAL's release store of state WAIT */
	return rc;
}

int __wrap_rte_eal_remote_launch(lcore_function_t *f, void *arg, unsigned worker_id)
{
	if (worker_id >= RTE_MAX_LCORE)
		return __real_rte_eal_remote_launch(f, arg, worker_id);
	struct launch *l = malloc(sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	l->f = f;
	l->arg = arg;
	P4DP_TSAN_RELEASE(&launch_sync[worker_id]); /* mirrors the EAL's release store of f */
	int rc = __real_rte_eal_remote_launch(trampoline, l, worker_id);
	if (rc != 0)
		free(l); /* not launched (lcore busy): the trampoline never runs */
	return rc;
}

int __wrap_rte_eal_wait_lcore(unsigned worker_id)
{
	int rc = __real_rte_eal_wait_lcore(worker_id);
	if (worker_id < RTE_MAX_LCORE)
		P4DP_TSAN_ACQUIRE(&done_sync[worker_id]); /* mirrors the EAL's acquire load of the state */
	return rc;
}

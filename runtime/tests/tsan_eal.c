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
 *
 * The same goes for rte_malloc's heap: rte_free() zeroes the freed element (a memset TSan
 * intercepts, attributed to the freeing thread) and a later rte_malloc() in another thread may
 * return the same memory. The heap's spinlock orders the two, inside librte_eal, so TSan would
 * report the new owner's first writes as racing with the old owner's free. The test binaries are
 * also linked with --wrap for rte_free and the rte_malloc functions the runtime calls: each wrapper
 * holds a pthread mutex (which TSan sees) around the real call, so every free is ordered before
 * every later allocation, as the heap lock orders them; accesses to the new object itself are
 * checked as before. (AnnotateNewMemory would be the narrower tool, but it is a no-op in GCC 12's
 * TSan runtime.)
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

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

/* Held around every wrapped heap call: the heap lock, made visible. */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

void *__real_rte_malloc(const char *type, size_t size, unsigned align);
void *__real_rte_malloc_socket(const char *type, size_t size, unsigned align, int socket);
void *__real_rte_zmalloc_socket(const char *type, size_t size, unsigned align, int socket);
void __real_rte_free(void *p);
void *__wrap_rte_malloc(const char *type, size_t size, unsigned align);
void *__wrap_rte_malloc_socket(const char *type, size_t size, unsigned align, int socket);
void *__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned align, int socket);
void __wrap_rte_free(void *p);

void *__wrap_rte_malloc(const char *type, size_t size, unsigned align)
{
	pthread_mutex_lock(&heap_lock);
	void *p = __real_rte_malloc(type, size, align);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void *__wrap_rte_malloc_socket(const char *type, size_t size, unsigned align, int socket)
{
	pthread_mutex_lock(&heap_lock);
	void *p = __real_rte_malloc_socket(type, size, align, socket);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void *__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned align, int socket)
{
	pthread_mutex_lock(&heap_lock);
	void *p = __real_rte_zmalloc_socket(type, size, align, socket);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void __wrap_rte_free(void *p)
{
	pthread_mutex_lock(&heap_lock);
	__real_rte_free(p);
	pthread_mutex_unlock(&heap_lock);
}

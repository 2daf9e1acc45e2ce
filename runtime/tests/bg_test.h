/* SPDX-License-Identifier: Apache-2.0 */
/* The harness of the background-pipeline tests (test_rtc_run.c, test_rtc_share.c,
 * test_rtc_sweep_gen.c): a program with background pipelines runs with one worker and one or two
 * background threads while a controller thread of the test's own watches the program's counters,
 * runs data-plane atomic batches during the run and then stops it. The EAL's lcores: 0 for the
 * control thread, 1-3 for the worker and the background threads, each on either core. */
#ifndef P4DP_TEST_BG_TEST_H
#define P4DP_TEST_BG_TEST_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "p4dp/rt.h"

#include "check.h"
#include "pcap_write.h"
#include "tsan_test.h"

/** The EAL's lcore map of the background-pipeline tests (test_eal_init). */
#define BG_TEST_LCORES "0@0,1@(0-1),2@(0-1),3@(0-1)"

/** A test's hand-written program and its input (bg_test_setup). */
struct bg_test {
	char so[PATH_MAX], dir[256];
	char pcap[PATH_MAX + 32]; /* the worker's input */
	int n_ports;              /* pcap devices made so far: each needs a name of its own */
};

/** What the run and the test's controller thread share. */
struct bg_ctl {
	struct p4dp_runtime *rt;
	volatile int stop;      /* set once by the controller (bg_ctl_stop) */
	uint32_t n_batches, ok; /* batches bg_ctl_batches runs; those that returned 0 */
};

/** Build the program tests/<prog>.c into the scratch directory /tmp/p4dp_<tag>_<pid>, start the
 *  EAL with BG_TEST_LCORES and write the worker's input, @p n_pkts packets filled by @p fill, to
 *  <dir>/input.pcap (a failed CHECK when it cannot). 0; -1 after printing why and a failed count
 *  (the test then exits 1). */
static inline int bg_test_setup(struct bg_test *t, char *argv0, const char *tag, const char *prog, uint32_t n_pkts,
				test_pkt_fill_fn fill)
{
	if (test_prog_build(tag, prog, t->dir, sizeof(t->dir), t->so, sizeof(t->so)) != 0 ||
	    test_eal_init(argv0, BG_TEST_LCORES) != 0)
		return -1;
	snprintf(t->pcap, sizeof(t->pcap), "%s/input.pcap", t->dir);
	CHECK(test_pcap_write(t->pcap, n_pkts, fill) == 0);
	return 0;
}

/** A runtime of the test's program for one worker and @p n_background background threads, with
 *  @p n_mbufs packet buffers and port 0 reading the input once. NULL after a failed CHECK. */
static inline struct p4dp_runtime *bg_test_runtime(struct bg_test *t, uint32_t n_background, uint32_t n_mbufs)
{
	struct p4dp_runtime_params pp = { .program_path = t->so, .max_workers = 1 + n_background, .n_mbufs = n_mbufs };
	struct p4dp_runtime *rt = NULL;
	CHECK(p4dp_runtime_create(&pp, &rt) == 0);
	if (rt == NULL)
		return NULL;
	char dev[3 * PATH_MAX];
	snprintf(dev, sizeof(dev), "net_pcap_input%d,rx_pcap=%s,tx_pcap=/dev/null", t->n_ports++, t->pcap);
	CHECK(p4dp_runtime_port_add(rt, 0, dev) == 0);
	return rt;
}

/** Run c->rt with one worker and @p n_background background threads while @p controller(@p arg)
 *  runs on a thread of its own, until the controller calls bg_ctl_stop (the run's 600 s limit only
 *  ends a hung test, whose checks then fail). */
static inline void bg_test_run(struct bg_ctl *c, uint32_t n_background, void *(*controller)(void *), void *arg)
{
	pthread_t th;
	int created = pthread_create(&th, NULL, controller, arg) == 0;
	CHECK(created);
	if (!created)
		return;
	struct p4dp_run_params rp = { .n_workers = 1, .stop = (volatile int *)&c->stop, .duration_ms = 600000,
				      .n_background = n_background };
	CHECK(p4dp_runtime_run(c->rt, &rp) == 0);
	pthread_join(th, NULL);
}

static int bg_nop_batch(void *arg)
{
	(void)arg;
	return 0;
}

/** The controller's batches: c->n_batches empty data-plane atomic batches, @p pause_us apart;
 *  c->ok counts those that returned 0. */
static inline void bg_ctl_batches(struct bg_ctl *c, unsigned pause_us)
{
	for (uint32_t i = 0; i < c->n_batches; i++) {
		if (p4dp_runtime_batch_run(c->rt, bg_nop_batch, NULL, NULL) == 0)
			c->ok++;
		usleep(pause_us);
	}
}

/** The controller ends the run. */
static inline void bg_ctl_stop(struct bg_ctl *c)
{
	/* release: pairs with the run's acquire load of the stop flag */
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
}

#endif

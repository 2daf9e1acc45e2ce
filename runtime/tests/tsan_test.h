/* SPDX-License-Identifier: Apache-2.0 */
/* Compiler flags for the program .so files the runtime tests build at start: in the ThreadSanitizer
 * build (make tsan) the program is instrumented too (and under make asan / make ubsan, with their flags), so that its accesses to entries (@__ref data,
 * @entry_lock words, timers) and to packets are checked like the runtime's. Also what every
 * runtime test does at start and end: build its program (test_prog_build), start the EAL
 * (test_eal_init), remove its scratch directory and report (test_finish). */
#ifndef P4DP_TSAN_TEST_H
#define P4DP_TSAN_TEST_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "p4dp/rt.h"

#if defined(__SANITIZE_THREAD__)
#define P4DP_TEST_PROG_CFLAGS "-O1 -g -fsanitize=thread"
/* ThreadSanitizer slows every memory access 10-50x: concurrency tests divide their packet and
 * operation counts by this so that `make tsan` stays short. Each property is still exercised by
 * tens of thousands of concurrent operations. */
#define P4DP_TEST_TSAN_DIV 4u
#elif defined(P4DP_TEST_SANITIZED)
/* make asan / make ubsan: P4DP_TEST_PROG_CFLAGS comes from the command line; every packet costs
 * 2-5x more, so the concurrency tests halve their counts. */
#define P4DP_TEST_TSAN_DIV 2u
#else
#define P4DP_TEST_PROG_CFLAGS "-O2"
#define P4DP_TEST_TSAN_DIV 1u
#endif

/** Make the scratch directory /tmp/p4dp_<tag>_<pid> (its path in @p dir) and compile the test
 *  program tests/<prog>.c of the runtime sources ($P4DP_RT_SRC, default ".") with
 *  P4DP_TEST_PROG_CFLAGS into <dir>/<prog>.so (its path in @p so). 0; -1 after printing why and
 *  a failed count (the test then exits). */
static inline int test_prog_build(const char *tag, const char *prog, char *dir, size_t dir_len, char *so,
				  size_t so_len)
{
	const char *src = getenv("P4DP_RT_SRC") ? getenv("P4DP_RT_SRC") : ".";
	char cmd[4 * PATH_MAX];
	snprintf(dir, dir_len, "/tmp/p4dp_%s_%d", tag, (int)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
	if (system(cmd) == 0) {
		snprintf(so, so_len, "%s/%s.so", dir, prog);
		snprintf(cmd, sizeof(cmd),
			 "cc -shared -fPIC " P4DP_TEST_PROG_CFLAGS " -Wall -Wextra -Werror -I%s/include -o %s %s/tests/%s.c",
			 src, so, src, prog);
		if (system(cmd) == 0)
			return 0;
	}
	fprintf(stderr, "cannot build the test program: %s\n", cmd);
	printf("0 passed, 1 failed\n");
	return -1;
}

/** Remove the scratch directory @p dir of test_prog_build(), print the test's counts and return
 *  its exit status. */
static inline int test_finish(const char *dir, unsigned passed, unsigned failed)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

/** p4dp_eal_init with the tests' arguments (no hugepages, no PCI, @p mem_mb MiB of memory, no
 *  shared configuration, no telemetry) and the lcore map @p lcores (e.g. "0@0,1@(0-1)"). Its
 *  result; on failure after printing the error and a failed count. */
static inline int test_eal_init_mem(char *argv0, const char *lcores, unsigned mem_mb)
{
	/* static: the EAL may keep pointers into its arguments */
	static char l[128], m[16];
	snprintf(l, sizeof(l), "--lcores=%s", lcores);
	snprintf(m, sizeof(m), "%u", mem_mb);
	char *eal[] = { argv0, "--no-huge", "--no-pci", "-m", m, "--no-shconf", "--no-telemetry", l,
			"--log-level=error", NULL };
	int rc = p4dp_eal_init(9, eal);
	if (rc != 0)
		printf("EAL: %s\n0 passed, 1 failed\n", p4dp_runtime_error_get(NULL));
	return rc;
}

/** test_eal_init_mem with 512 MiB. */
static inline int test_eal_init(char *argv0, const char *lcores)
{
	return test_eal_init_mem(argv0, lcores, 512);
}

#endif

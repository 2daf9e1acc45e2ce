/* SPDX-License-Identifier: Apache-2.0 */
/* Compiler flags for the program .so files the runtime tests build at start: in the ThreadSanitizer
 * build (make tsan) the program is instrumented too (and under make asan / make ubsan, with their flags), so that its accesses to entries (@__ref data,
 * @entry_lock words, timers) and to packets are checked like the runtime's. */
#ifndef P4DP_TSAN_TEST_H
#define P4DP_TSAN_TEST_H

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

#endif

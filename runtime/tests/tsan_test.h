/* SPDX-License-Identifier: Apache-2.0 */
/* Compiler flags for the program .so files the runtime tests build at start: in the ThreadSanitizer
 * build (make tsan) the program is instrumented too, so that its accesses to entries (@__ref data,
 * @entry_lock words, timers) and to packets are checked like the runtime's. */
#ifndef P4DP_TSAN_TEST_H
#define P4DP_TSAN_TEST_H

#if defined(__SANITIZE_THREAD__)
#define P4DP_TEST_PROG_CFLAGS "-O1 -g -fsanitize=thread"
/* ThreadSanitizer slows every memory access 10-50x: concurrency tests divide their packet and
 * operation counts by this so that `make tsan` stays short. Each property is still exercised by
 * tens of thousands of concurrent operations. */
#define P4DP_TEST_TSAN_DIV 4u
#else
#define P4DP_TEST_PROG_CFLAGS "-O2"
#define P4DP_TEST_TSAN_DIV 1u
#endif

#endif

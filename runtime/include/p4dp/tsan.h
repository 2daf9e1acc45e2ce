/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file tsan.h
 * ThreadSanitizer annotations for hand-over points whose synchronization happens inside
 * uninstrumented DPDK libraries (the Debian packages are not built with -fsanitize=thread, so
 * their acquire/release operations are invisible to TSan).
 *
 * P4DP_TSAN_RELEASE(p) is placed right before p4dp code hands memory to another thread through
 * such a library call (e.g. publishing an entry with rte_hash_add_key_data, whose release store
 * happens inside librte_hash), P4DP_TSAN_ACQUIRE(p) right after the matching receiving call
 * (rte_hash lookup). @p p is the address used as TSan's synchronization object: the same address
 * on both sides (the entry itself, the RCU domain, ...). Each use site states which library
 * operation it mirrors; an annotation never creates an ordering that the library does not
 * provide.
 *
 * Without -fsanitize=thread both macros expand to nothing.
 */
#ifndef P4DP_TSAN_H
#define P4DP_TSAN_H

#include <stdint.h>

#if defined(__SANITIZE_THREAD__)
#define P4DP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define P4DP_TSAN 1
#endif
#endif

#ifdef P4DP_TSAN
/* From the TSan runtime (sanitizer/tsan_interface.h declares the same). */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define P4DP_TSAN_ACQUIRE(p) __tsan_acquire((void *)(uintptr_t)(p))
#define P4DP_TSAN_RELEASE(p) __tsan_release((void *)(uintptr_t)(p))
#else
#define P4DP_TSAN_ACQUIRE(p) ((void)(p))
#define P4DP_TSAN_RELEASE(p) ((void)(p))
#endif

#endif /* P4DP_TSAN_H */

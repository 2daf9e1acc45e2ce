/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory for large arrays (table_mem.c): the tables' (table_internal.h) and the rtc Counter's
 * cells (rtc_sync.c). A leaf: libc and the kernel only.
 */
#ifndef P4DP_TABLE_MEM_H
#define P4DP_TABLE_MEM_H

#include <stddef.h>

/** The huge page size table_huge_map() aligns to and rounds up to. */
#define TABLE_HUGE ((size_t)2 << 20)
/** Arrays of at least this many bytes (the exact tables' read index buckets and busy flags and
 *  static entry slots, rtc Counters' cells) go to table_huge_map(); rounding up wastes at most
 *  half of the mapping. */
#define TABLE_HUGE_MIN (TABLE_HUGE / 2)

/**
 * perf: an anonymous mapping of @p bytes rounded up to TABLE_HUGE (*len_out), aligned to
 * TABLE_HUGE, zero-filled and advised for transparent huge pages (MADV_HUGEPAGE), so random reads
 * of a large array do not each pay a 4 KiB-page TLB miss (DPDK's heap without hugepages is 4 KiB
 * pages; the EAL's memory is also too small for arrays of hundreds of MiB). Where the kernel
 * gives no huge pages (transparent_hugepage "never") the advice is ignored and the pages are
 * 4 KiB. NULL on failure. The mapping's NUMA node is the kernel's choice (first touch: the
 * creating thread). Give it back with table_huge_unmap(p, *len_out). Any thread.
 */
void *table_huge_map(size_t bytes, size_t *len_out);
/** Unmap a table_huge_map() mapping of @p len bytes (NULL: nothing). */
void table_huge_unmap(void *p, size_t len);

#endif

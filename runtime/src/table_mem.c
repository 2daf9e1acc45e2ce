/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory for the tables' large arrays (the exact tables' read index buckets and static entry
 * slots, the lpm tables' 24-bit first level and entry chunks) and the rtc Counter's cells:
 * anonymous mappings advised for transparent huge pages (table_mem.h, table_huge_map). The lowest layer: libc and the
 * kernel only.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <rte_common.h>

#include "table_mem.h"

void *table_huge_map(size_t bytes, size_t *len_out)
{
	size_t len = RTE_ALIGN_CEIL(bytes, TABLE_HUGE);
	uint8_t *p = mmap(NULL, len + TABLE_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uint8_t *a = RTE_PTR_ALIGN_CEIL(p, TABLE_HUGE);
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + len + TABLE_HUGE)
		munmap(a + len, (size_t)(p + len + TABLE_HUGE - (a + len)));
	(void)madvise(a, len, MADV_HUGEPAGE); /* advice: 4 KiB pages still work */
	*len_out = len;
	return a;
}

void table_huge_unmap(void *p, size_t len)
{
	if (p != NULL)
		munmap(p, len);
}

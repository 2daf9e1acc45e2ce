/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory for the tables' arrays (the exact tables' read index buckets and static entry slots,
 * the lpm tables' 24-bit first level and entry chunks): anonymous mappings advised for
 * transparent huge pages (table_internal.h, table_huge_map); arrays below TABLE_HUGE_MIN share
 * such mappings (table_small_map). The lowest layer: libc and the kernel only.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <rte_common.h>

#include "table_internal.h"

/* A mapping of TABLE_HUGE bytes that small arrays share: handed out front to back, unmapped
 * when the last array in it is given back (its space is never handed out twice, so what it
 * hands out is always zero). */
struct small_chunk {
	uint8_t *base;
	size_t used;   /* bytes handed out */
	size_t live;   /* arrays not yet given back */
	struct small_chunk *next;
};

static pthread_mutex_t small_mu = PTHREAD_MUTEX_INITIALIZER;
static struct small_chunk *small_chunks; /* the newest first: the one still handing out */

void *table_small_map(size_t bytes, size_t *len_out)
{
	const size_t len = RTE_ALIGN_CEIL(bytes, RTE_CACHE_LINE_SIZE);
	void *p = NULL;
	pthread_mutex_lock(&small_mu);
	struct small_chunk *c = small_chunks;
	if (c == NULL || TABLE_HUGE - c->used < len) {
		size_t got;
		struct small_chunk *n = malloc(sizeof(*n));
		uint8_t *b = n != NULL ? table_huge_map(TABLE_HUGE, &got) : NULL;
		if (b == NULL) {
			free(n);
			pthread_mutex_unlock(&small_mu);
			return NULL;
		}
		*n = (struct small_chunk){.base = b, .used = 0, .live = 0, .next = small_chunks};
		small_chunks = c = n;
	}
	p = c->base + c->used;
	c->used += len;
	c->live++;
	pthread_mutex_unlock(&small_mu);
	*len_out = len;
	return p;
}

/* Give back table_small_map's array @p p. */
static void small_unmap(void *p)
{
	pthread_mutex_lock(&small_mu);
	for (struct small_chunk **pc = &small_chunks; *pc != NULL; pc = &(*pc)->next) {
		struct small_chunk *c = *pc;
		if ((uint8_t *)p < c->base || (uint8_t *)p >= c->base + TABLE_HUGE)
			continue;
		if (--c->live == 0) {
			*pc = c->next;
			munmap(c->base, TABLE_HUGE);
			free(c);
		}
		break;
	}
	pthread_mutex_unlock(&small_mu);
}

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
	if (p == NULL)
		return;
	/* a mapping of its own is at least TABLE_HUGE bytes long, table_small_map's array less */
	if (len < TABLE_HUGE)
		small_unmap(p);
	else
		munmap(p, len);
}

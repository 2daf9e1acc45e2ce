/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Errors and logging, the lowest layer of the runtime: every other file reports through it, and it
 * calls nothing of the runtime. Failing functions store a one-line message in a thread-local
 * buffer (p4dp_runtime_error_get) and return -errno; rt_log formats a line for the runtime's log
 * callback (stderr without one).
 */
#include <stdarg.h>
#include <stdio.h>

#include "rt_internal.h"

static __thread char rt_errbuf[512];

void rt_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rt_errbuf, sizeof(rt_errbuf), fmt, ap);
	va_end(ap);
}

int rt_errc(int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rt_errbuf, sizeof(rt_errbuf), fmt, ap);
	va_end(ap);
	return rc;
}

const char *p4dp_runtime_error_get(const struct p4dp_runtime *rt)
{
	(void)rt;
	return rt_errbuf;
}

void rt_log(struct p4dp_runtime *rt, int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (rt != NULL && rt->log_fn != NULL)
		rt->log_fn(rt->log_arg, level, line);
	else
		fprintf(stderr, "p4dp: %s\n", line);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Errors and logging (err.c), the runtime's lowest layer. Private to runtime/src. */
#ifndef P4DP_RT_ERR_H
#define P4DP_RT_ERR_H

struct p4dp_runtime;

/** Store the message of the calling thread's last failure (p4dp_runtime_error_get). */
void rt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** rt_err, then return @p rc (return rt_errc(-EINVAL, "...")). */
int rt_errc(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** One log line to @p rt's log callback, or to stderr (rt NULL or no callback). Control thread;
 *  never called by a worker on the packet path. */
void rt_log(struct p4dp_runtime *rt, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

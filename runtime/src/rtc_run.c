/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Background pipelines of rtc.p4 programs run deterministically for STF tests
 * (p4dp_runtime_background_run, rt.h): one iteration at a time on the control thread with worker
 * context 0, at the simulated clock, which Sleep moves forward.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* One iteration of pipeline b; its packet, if it sends one, goes to inj. */
static void bg_iteration(struct p4dp_runtime *rt, uint32_t b, uint8_t *buf, struct rt_inject *inj)
{
	struct rt_worker *w = &rt->workers[0];
	/* Sleep: the iteration starts no earlier than the wake time the last one asked for */
	uint64_t now = rt_now_ns(rt);
	if (rt->bg_wake[b] > now) {
		p4dp_runtime_time_set(rt, rt->bg_wake[b]);
		now = rt->bg_wake[b];
	}
	struct p4dp_pkt pkt = rt_bg_pkt(buf);
	struct p4dp_bg_env env = {
		.wait = NULL, /* deterministic: popWait on an empty queue is false at once */
		.yield = NULL, /* one pipeline at a time: `background NAME N` runs N iterations in order */
		.rcu = NULL,  /* the control thread is no RCU reader; no worker runs (rt->running is 0) */
		.rcu_thread = 0,
		.iteration = rt->bg_iter[b],
		.sleep_ns = 0,
	};
	w->ctx.now_ns = now;
	w->drop_pkt = false;
	rt->prog->background(&w->ctx, b, &pkt, &env);
	rt->bg_iter[b]++;
	if (env.sleep_ns != 0)
		rt->bg_wake[b] = now + env.sleep_ns;
	if (pkt.data == NULL) {
		RT_STAT_ADD(w->st.finish_errors, 1);
	} else if (!w->drop_pkt && pkt.out_port != P4DP_PORT_DROP) {
		w->inj = inj;
		rt_inject_append(w, pkt.out_port, pkt.data, pkt.len, false);
		w->inj = NULL;
	}
}

int p4dp_runtime_background_run(struct p4dp_runtime *rt, const char *name, uint32_t n, p4dp_out_cb cb,
				 void *arg)
{
	if (rt == NULL || name == NULL || cb == NULL)
		return rt_errc(-EINVAL, "background_run: NULL argument");
	/* acquire: pairs with the release store that ends a run, as in inject */
	if (__atomic_load_n(&rt->running, __ATOMIC_ACQUIRE))
		return rt_errc(-EBUSY, "background_run: the runtime is running on ports (p4dp_runtime_run)");
	const struct p4dp_program *p = rt->prog;
	uint32_t b = 0;
	while (b < p->n_background && strcmp(p->background_names[b], name) != 0)
		b++;
	if (b == p->n_background)
		return rt_errc(-ENOENT, "no background pipeline '%s' (the program has %u)", name, p->n_background);
	uint8_t *buf = malloc(RT_INJECT_HEADROOM + RT_INJECT_TAILROOM);
	if (buf == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	struct rt_inject inj = { 0 };
	for (uint32_t i = 0; i < n && !inj.oom; i++)
		bg_iteration(rt, b, buf, &inj);
	int rc;
	if (inj.oom) {
		rc = rt_errc(-ENOMEM, "background_run: out of memory collecting output packets");
	} else {
		for (uint32_t i = 0; i < inj.n; i++)
			cb(arg, inj.outs[i].port, inj.outs[i].data, inj.outs[i].len);
		rc = (int)inj.n;
	}
	for (uint32_t i = 0; i < inj.n; i++)
		free(inj.outs[i].data);
	free(inj.outs);
	free(buf);
	return rc;
}

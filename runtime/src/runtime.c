/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime lifecycle, the top of the runtime's layers: EAL initialization, loading and checking a
 * compiled program, and creating (and freeing) the runtime: tables (ctl.c), externs (externs.c),
 * action profiles (actprof.c), the per-worker contexts, the RCU domain. Nothing calls into this
 * file but the API user.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "p4dp/rcu.h"
#include "rt_internal.h"

static int eal_done;

int p4dp_eal_init(int argc, char **argv)
{
	if (eal_done)
		return rt_errc(-EALREADY, "EAL already initialized");
	if (argc < 1 || argv == NULL)
		return rt_errc(-EINVAL, "p4dp_eal_init: argv must hold at least the program name");
	int rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		int e = rte_errno ? rte_errno : EINVAL;
		return rt_errc(-e, "rte_eal_init failed: %s", rte_strerror(e));
	}
	eal_done = 1;
	return 0;
}

const struct p4dp_program *p4dp_runtime_program_get(const struct p4dp_runtime *rt)
{
	return rt ? rt->prog : NULL;
}

void p4dp_runtime_log_set(struct p4dp_runtime *rt, p4dp_log_fn fn, void *arg)
{
	if (rt == NULL)
		return;
	rt->log_fn = fn;
	rt->log_arg = arg;
}

int p4dp_runtime_table_find(const struct p4dp_runtime *rt, const char *name, uint32_t *table)
{
	if (rt == NULL || name == NULL || table == NULL)
		return rt_errc(-EINVAL, "table_find: NULL argument");
	for (uint32_t i = 0; i < rt->prog->n_tables; i++)
		if (strcmp(rt->prog->tables[i].name, name) == 0) {
			*table = i;
			return 0;
		}
	return rt_errc(-ENOENT, "no table named '%s'", name);
}

int p4dp_runtime_extern_find(const struct p4dp_runtime *rt, const char *name, uint32_t *ext)
{
	if (rt == NULL || name == NULL || ext == NULL)
		return rt_errc(-EINVAL, "extern_find: NULL argument");
	for (uint32_t i = 0; i < rt->prog->n_externs; i++)
		if (strcmp(rt->prog->externs[i].name, name) == 0) {
			*ext = i;
			return 0;
		}
	return rt_errc(-ENOENT, "no extern named '%s'", name);
}

/* ------------------------------------------------------------ metadata checks */

static int check_field_layout(const char *what, const char *name, uint32_t bitwidth, uint32_t offset,
			      uint32_t size, uint32_t total)
{
	if (bitwidth == 0 || bitwidth > 65535)
		return rt_errc(-EINVAL, "%s '%s': bad bitwidth %u", what, name, bitwidth);
	if (bitwidth <= 128) {
		if ((size != 1 && size != 2 && size != 4 && size != 8 && size != 16) || bitwidth > 8 * size)
			return rt_errc(-EINVAL, "%s '%s': size %u does not hold %u bits", what, name, size, bitwidth);
	} else if (size != (bitwidth + 7) / 8) {
		return rt_errc(-EINVAL, "%s '%s': size %u for %u bits (want %u)", what, name, size, bitwidth,
			       (bitwidth + 7) / 8);
	}
	if (offset + size > total)
		return rt_errc(-EINVAL, "%s '%s': bytes %u..%u outside %u", what, name, offset, offset + size, total);
	return 0;
}

static const char *nz(const char *s)
{
	return s ? s : "?";
}

static int check_program(const struct p4dp_program *p)
{
	int rc;
	if (p->abi_version != P4DP_ABI_VERSION)
		return rt_errc(-EINVAL, "program ABI version %u, runtime supports %u", p->abi_version,
			       P4DP_ABI_VERSION);
	if (p->process == NULL)
		return rt_errc(-EINVAL, "program has no process function");
	if ((p->n_tables && !p->tables) || (p->n_actions && !p->actions) || (p->n_externs && !p->externs))
		return rt_errc(-EINVAL, "program metadata: NULL array with nonzero count");
	for (uint32_t a = 0; a < p->n_actions; a++) {
		const struct p4dp_action_info *ai = &p->actions[a];
		if (ai->name == NULL || (ai->n_params && ai->params == NULL))
			return rt_errc(-EINVAL, "action %u: malformed metadata", a);
		for (uint32_t i = 0; i < ai->n_params; i++) {
			const struct p4dp_param_info *pi = &ai->params[i];
			rc = check_field_layout("action parameter", nz(pi->name), pi->bitwidth, pi->offset, pi->size,
						ai->data_len);
			if (rc)
				return rc;
		}
	}
	for (uint32_t t = 0; t < p->n_tables; t++) {
		const struct p4dp_table_info *ti = &p->tables[t];
		if (ti->name == NULL || (ti->n_keys && !ti->keys) || (ti->n_actions && !ti->actions) ||
		    (ti->n_entries && !ti->entries))
			return rt_errc(-EINVAL, "table %u: malformed metadata", t);
		if (ti->size > UINT32_MAX)
			return rt_errc(-EINVAL, "table '%s': size %llu too large", ti->name,
				       (unsigned long long)ti->size);
		for (uint32_t k = 0; k < ti->n_keys; k++) {
			const struct p4dp_key_info *ki = &ti->keys[k];
			if (ki->match_kind > P4DP_MATCH_OPTIONAL)
				return rt_errc(-EINVAL, "table '%s' key %u: bad match kind", ti->name, k);
			rc = check_field_layout("key field", nz(ki->name), ki->bitwidth, ki->offset, ki->size,
						ti->key_len);
			if (rc)
				return rc;
		}
		for (uint32_t i = 0; i < ti->n_actions; i++) {
			if (ti->actions[i] >= p->n_actions)
				return rt_errc(-EINVAL, "table '%s': action index %u out of range", ti->name,
					       ti->actions[i]);
			if (p->actions[ti->actions[i]].data_len > ti->data_len)
				return rt_errc(-EINVAL, "table '%s': action data longer than data_len", ti->name);
		}
		if (ti->default_action >= p->n_actions)
			return rt_errc(-EINVAL, "table '%s': default action out of range", ti->name);
		if (p->actions[ti->default_action].data_len > ti->data_len && ti->n_actions > 0)
			return rt_errc(-EINVAL, "table '%s': default action data longer than data_len", ti->name);
		for (uint32_t e = 0; e < ti->n_entries; e++)
			if (ti->entries[e].action >= p->n_actions || ti->entries[e].value == NULL)
				return rt_errc(-EINVAL, "table '%s': malformed entry %u", ti->name, e);
		if ((ti->direct_counter >= 0 && (uint32_t)ti->direct_counter >= p->n_externs) ||
		    (ti->direct_meter >= 0 && (uint32_t)ti->direct_meter >= p->n_externs))
			return rt_errc(-EINVAL, "table '%s': direct extern index out of range", ti->name);
	}
	if (p->n_background > P4DP_RT_MAX_BACKGROUND || (p->n_background > 0) != (p->background != NULL) ||
	    (p->n_background > 0 && p->background_names == NULL))
		return rt_errc(-EINVAL, "malformed background pipelines (%u)", p->n_background);
	for (uint32_t b = 0; b < p->n_background; b++)
		if (p->background_names[b] == NULL)
			return rt_errc(-EINVAL, "background pipeline %u: no name", b);
	if (p->n_value_sets > 0 && p->value_sets == NULL)
		return rt_errc(-EINVAL, "malformed value sets (%u)", p->n_value_sets);
	for (uint32_t v = 0; v < p->n_value_sets; v++) {
		const struct p4dp_value_set_info *vi = &p->value_sets[v];
		if (vi->name == NULL || vi->widths == NULL || vi->n_fields == 0 || vi->n_fields > P4DP_VSET_FIELDS_MAX)
			return rt_errc(-EINVAL, "value set %u: malformed", v);
		for (uint32_t f = 0; f < vi->n_fields; f++)
			if (vi->widths[f] == 0 || vi->widths[f] > 64)
				return rt_errc(-EINVAL, "value set '%s': field %u of %u bits (1..64)", vi->name, f,
					       vi->widths[f]);
	}
	for (uint32_t x = 0; x < p->n_externs; x++) {
		const struct p4dp_extern_info *xi = &p->externs[x];
		if (xi->name == NULL)
			return rt_errc(-EINVAL, "extern %u: no name", x);
		if ((xi->kind == P4DP_EXT_DIRECT_COUNTER || xi->kind == P4DP_EXT_DIRECT_METER) &&
		    (xi->table < 0 || (uint32_t)xi->table >= p->n_tables))
			return rt_errc(-EINVAL, "extern '%s': direct extern without a valid table", xi->name);
		if (xi->kind > P4DP_EXT_RTC_FOREACH)
			return rt_errc(-EINVAL, "extern '%s': unknown kind %u", xi->name, xi->kind);
		if (xi->kind == P4DP_EXT_RTC_FOREACH && (xi->table < 0 || (uint32_t)xi->table >= p->n_tables))
			return rt_errc(-EINVAL, "extern '%s': Foreach without a valid table", xi->name);
		if (xi->kind == P4DP_EXT_REGISTER) {
			rc = check_field_layout("register", xi->name, xi->bitwidth, 0, xi->cell_size, xi->cell_size);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- create/free */

int p4dp_runtime_create(const struct p4dp_runtime_params *params, struct p4dp_runtime **out)
{
	int rc;
	if (params == NULL || out == NULL || params->program_path == NULL)
		return rt_errc(-EINVAL, "runtime_create: NULL params, out or program_path");
	if (!eal_done && rte_lcore_count() == 0)
		return rt_errc(-EPERM, "runtime_create: call p4dp_eal_init() first");
	uint32_t nw = params->max_workers ? params->max_workers : 1;
	if (nw > RTE_MAX_LCORE)
		return rt_errc(-EINVAL, "max_workers %u > %u", nw, RTE_MAX_LCORE);

	void *dl = dlopen(params->program_path, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		const char *m = dlerror();
		return rt_errc(strstr(m ? m : "", "No such file") ? -ENOENT : -EINVAL, "cannot load '%s': %s",
			       params->program_path, m ? m : "?");
	}
	const struct p4dp_program *prog = dlsym(dl, P4DP_PROGRAM_SYMBOL);
	if (prog == NULL) {
		rc = rt_errc(-EINVAL, "'%s' does not export symbol %s", params->program_path, P4DP_PROGRAM_SYMBOL);
		dlclose(dl);
		return rc;
	}
	rc = check_program(prog);
	if (rc) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", p4dp_runtime_error_get(NULL));
		rt_err("%s: %s", params->program_path, msg);
		dlclose(dl);
		return rc;
	}

	struct p4dp_runtime *rt = calloc(1, sizeof(*rt));
	if (rt == NULL) {
		dlclose(dl);
		return rt_errc(-ENOMEM, "out of memory");
	}
	rt->dl = dl;
	rt->prog = prog;
	rt->max_workers = nw;
	rt->socket_id = params->socket_id < 0 ? SOCKET_ID_ANY : params->socket_id;
	rt->log_fn = params->log_fn;
	rt->log_arg = params->log_arg;
	rt->pool_size = params->n_mbufs;
	uint32_t q = params->digest_qlen ? params->digest_qlen : P4DP_RT_DIGEST_QLEN;
	uint32_t p2 = 1;
	while (p2 < q && p2 < (1u << 24))
		p2 <<= 1;
	rt->digest_qlen = p2;
	rt->tsc_hz = rte_get_tsc_hz();
	rt->tsc_mult = (uint64_t)(((unsigned __int128)1000000000u << 32) / rt->tsc_hz);
	pthread_mutex_init(&rt->lock, NULL);
	pthread_mutex_init(&rt->digest_lock, NULL);
	pthread_mutex_init(&rt->idle_lock, NULL);
	pthread_mutex_init(&rt->liveness_lock, NULL);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&rt->batch_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	for (uint32_t i = 0; i < P4DP_PORT_DROP; i++)
		rt->port_slot[i] = -1;

	rc = -ENOMEM;
	uint32_t nt = prog->n_tables, nx = prog->n_externs;
	rt->workers = rte_zmalloc_socket("p4dp_workers", sizeof(*rt->workers) * nw, 64, rt->socket_id);
	/* perf: each worker's hits and misses on cache lines of their own (false sharing between the
	 * workers' increments otherwise: one line held 8 counters of several workers) */
	const uint32_t cl_words = RTE_CACHE_LINE_SIZE / sizeof(uint64_t);
	rt->cnt_stride = 2 * (((nt ? nt : 1) + cl_words - 1) / cl_words * cl_words);
	rt->hits = rte_zmalloc_socket("p4dp_counts", (size_t)nw * rt->cnt_stride * sizeof(uint64_t),
				      RTE_CACHE_LINE_SIZE, rt->socket_id);
	rt->ext = calloc(nw, sizeof(void **));
	rt->emit_bufs = rte_zmalloc_socket("p4dp_emit", (size_t)nw * P4DP_EMIT_MAX, 64, rt->socket_id);
	rt->mc_lists = calloc(P4DP_RT_MCAST_GROUPS, sizeof(*rt->mc_lists));
	rt->mc_groups = calloc(P4DP_RT_MCAST_GROUPS, sizeof(*rt->mc_groups));
	rt->clone_lists = calloc(P4DP_RT_CLONE_SESSIONS, sizeof(*rt->clone_lists));
	rt->vsets = calloc(prog->n_value_sets ? prog->n_value_sets : 1, sizeof(*rt->vsets));
	if (!rt->workers || !rt->hits || !rt->ext || !rt->emit_bufs || !rt->mc_lists ||
	    !rt->mc_groups || !rt->clone_lists || !rt->vsets) {
		rt_err("out of memory creating the runtime");
		goto fail;
	}
	for (uint32_t w = 0; w < nw; w++) {
		rt->ext[w] = calloc(nx ? nx : 1, sizeof(void *));
		struct rt_worker *wk = &rt->workers[w];
		wk->pst = calloc(P4DP_RT_MAX_PORTS, sizeof(*wk->pst));
		wk->txb = rte_zmalloc_socket("p4dp_txb", sizeof(*wk->txb) * P4DP_RT_MAX_PORTS, 64, rt->socket_id);
		if (!rt->ext[w] || !wk->pst || !wk->txb) {
			rt_err("out of memory creating worker contexts");
			goto fail;
		}
	}
	rt->bias = rte_zmalloc_socket("p4dp_bias", sizeof(*rt->bias), 64, rt->socket_id);
	rt->bias_acks = rte_zmalloc_socket("p4dp_bias_ack", sizeof(*rt->bias_acks) * nw, 64, rt->socket_id);
	if (!rt->bias || !rt->bias_acks) {
		rt_err("out of memory creating worker contexts");
		goto fail;
	}
	rt->bias->n = nw;
	rt->bias->ack = rt->bias_acks;
	for (uint32_t w = 0; w < nw; w++)
		rt->bias_acks[w].tok = P4DP_BIAS_OFFLINE; /* no worker runs yet */
	rt->rcu = p4dp_rcu_create(nw, rt->socket_id);
	if (rt->rcu == NULL) {
		rt_err("cannot create the RCU domain");
		goto fail;
	}
	rc = rt_tables_create(rt);
	if (rc)
		goto fail;
	rc = rt_externs_create(rt);
	if (rc)
		goto fail;
	rc = rt_rtc_sweeps_create(rt);
	if (rc)
		goto fail;
	rc = rt_actprof_create(rt);
	if (rc)
		goto fail;
	for (uint32_t w = 0; w < nw; w++) {
		struct rt_worker *wk = &rt->workers[w];
		struct p4dp_ctx *c = &wk->ctx;
		c->tables = rt->tables;
		c->defaults = rt->defaults;
		c->ext = rt->ext[w];
		c->prog = prog;
		c->worker_id = w;
		c->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(w + 1) * 0xbf58476d1ce4e5b9ull);
		c->rt = rt;
		c->emit_buf = rt->emit_bufs + (size_t)w * P4DP_EMIT_MAX;
		c->table_hits = rt_counters_of(rt, w, 0);
		c->table_misses = rt_counters_of(rt, w, 1);
		c->bias = rt->bias;
		c->vsets = rt->vsets;
		wk->rt = rt;
		wk->id = w;
	}
	*out = rt;
	return 0;
fail:
	p4dp_runtime_free(rt);
	return rc;
}

void p4dp_runtime_free(struct p4dp_runtime *rt)
{
	if (rt == NULL)
		return;
	rt_ports_free(rt);
	rt_tables_free(rt);
	rt_idle_free(rt);
	rt_actprof_free(rt); /* before rt_externs_free: clears the profiles' ext pointers */
	rt_rtc_sweeps_free(rt); /* the same for the Foreach sweeps */
	rt_externs_free(rt);
	if (rt->rcu)
		p4dp_rcu_free(rt->rcu);
	if (rt->mc_lists) {
		for (uint32_t g = 0; g < P4DP_RT_MCAST_GROUPS; g++)
			rte_free(rt->mc_lists[g]);
		free(rt->mc_lists);
	}
	if (rt->mc_groups) {
		for (uint32_t g = 0; g < P4DP_RT_MCAST_GROUPS; g++) {
			free(rt->mc_groups[g].nodes);
			free(rt->mc_groups[g].direct);
		}
		free(rt->mc_groups);
	}
	for (uint32_t i = 0; i < rt->n_mc_nodes; i++)
		free(rt->mc_nodes[i].ports);
	free(rt->mc_nodes);
	if (rt->clone_lists) {
		for (uint32_t c = 0; c < P4DP_RT_CLONE_SESSIONS; c++)
			rte_free(rt->clone_lists[c]);
		free(rt->clone_lists);
	}
	if (rt->vsets) {
		for (uint32_t v = 0; v < rt->prog->n_value_sets; v++)
			rte_free(rt->vsets[v]);
		free(rt->vsets);
	}
	if (rt->ext) {
		for (uint32_t w = 0; w < rt->max_workers; w++)
			free(rt->ext[w]);
		free(rt->ext);
	}
	if (rt->workers) {
		for (uint32_t w = 0; w < rt->max_workers; w++) {
			free(rt->workers[w].pst);
			rte_free(rt->workers[w].txb);
			rte_ring_free(rt->workers[w].inq);
		}
		rte_free(rt->workers);
	}
	rte_free(rt->hits);
	rte_free(rt->emit_bufs);
	rte_free(rt->bias);
	rte_free(rt->bias_acks);
	pthread_mutex_destroy(&rt->lock);
	pthread_mutex_destroy(&rt->digest_lock);
	pthread_mutex_destroy(&rt->idle_lock);
	pthread_mutex_destroy(&rt->liveness_lock);
	pthread_mutex_destroy(&rt->batch_lock);
	if (rt->dl)
		dlclose(rt->dl);
	free(rt);
}

/* ---------------------------------------------------------------- time, stats */

/* The simulated clock: relaxed atomics (read by rt_now_ns on any control thread). Changing it
 * runs the expiry scan synchronously, so idle timeouts are exact in tests (STF advance_time). */
void p4dp_runtime_time_set(struct p4dp_runtime *rt, uint64_t ns)
{
	if (rt == NULL)
		return;
	/* relaxed: a self-contained value read by inject and rt_now_ns; publishes nothing */
	__atomic_store_n(&rt->now_ns, ns, __ATOMIC_RELAXED);
	/* acquire: pairs with the release stores of clock_live in p4dp_runtime_run */
	if (!__atomic_load_n(&rt->clock_live, __ATOMIC_ACQUIRE))
		(void)rt_idle_scan(rt, ns);
}

void p4dp_runtime_time_advance(struct p4dp_runtime *rt, uint64_t ns)
{
	if (rt == NULL)
		return;
	/* relaxed: as in time_set (one control thread drives the simulated clock) */
	p4dp_runtime_time_set(rt, __atomic_load_n(&rt->now_ns, __ATOMIC_RELAXED) + ns);
}

uint64_t p4dp_runtime_time_get(const struct p4dp_runtime *rt)
{
	/* relaxed: a self-contained value */
	return rt ? __atomic_load_n(&rt->now_ns, __ATOMIC_RELAXED) : 0;
}

int p4dp_runtime_run_clock_get(const struct p4dp_runtime *rt, uint64_t *tsc0, uint64_t *ns0, uint64_t *tsc_hz)
{
	if (rt == NULL || tsc0 == NULL || ns0 == NULL || tsc_hz == NULL)
		return rt_errc(-EINVAL, "run clock: NULL argument");
	/* acquire: pairs with the release store of clock_live in p4dp_runtime_run (tsc0/ns0 set) */
	if (!__atomic_load_n(&rt->clock_live, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	/* relaxed: ordered after the clock_live acquire above; constant while the run lasts */
	*tsc0 = __atomic_load_n(&rt->tsc0, __ATOMIC_RELAXED);
	*ns0 = __atomic_load_n(&rt->ns0, __ATOMIC_RELAXED);
	*tsc_hz = rt->tsc_hz;
	return 0;
}

int p4dp_runtime_stats_get(struct p4dp_runtime *rt, struct p4dp_rt_stats *st)
{
	if (rt == NULL || st == NULL)
		return rt_errc(-EINVAL, "stats: NULL argument");
	memset(st, 0, sizeof(*st));
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		struct rt_wstats *s = &rt->workers[w].st;
		st->packets += RT_STAT_LOAD(s->packets);
		st->drops += RT_STAT_LOAD(s->drops);
		st->finish_errors += RT_STAT_LOAD(s->finish_errors);
		st->copies += RT_STAT_LOAD(s->copies);
		st->copy_errors += RT_STAT_LOAD(s->copy_errors);
		st->asserts += RT_STAT_LOAD(s->asserts);
		st->unsupported += RT_STAT_LOAD(s->unsupported);
		st->no_port += RT_STAT_LOAD(s->no_port);
		st->multiseg += RT_STAT_LOAD(s->multiseg);
		st->replicas_down += RT_STAT_LOAD(s->replicas_down);
		st->groups_down += RT_STAT_LOAD(s->groups_down);
	}
	/* the revocation token counts revocations (relaxed: a statistic) */
	st->lock_revocations = __atomic_load_n(&rt->bias->tok, __ATOMIC_RELAXED);
	return 0;
}

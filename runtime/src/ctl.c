/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Table control: creation from program metadata, validation and conversion of control-plane
 * entries (big-endian byte strings per field/parameter) to the native layout of table.h, and back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "p4dp/rcu.h"
#include "p4dp/table.h"
#include "rt_internal.h"

static const char *kind_name(uint32_t k)
{
	switch (k) {
	case P4DP_MATCH_EXACT: return "exact";
	case P4DP_MATCH_LPM: return "lpm";
	case P4DP_MATCH_TERNARY: return "ternary";
	case P4DP_MATCH_RANGE: return "range";
	case P4DP_MATCH_OPTIONAL: return "optional";
	case P4DP_RT_KEY_DONT_CARE: return "don't-care";
	default: return "unknown";
	}
}

/* Native all-ones over the field's bitwidth, or its top @p plen bits. perf: built a byte at a time
 * (every key field of every inserted entry gets one). Bit i of the field (0 = least significant) is
 * set when bitwidth - plen <= i < bitwidth; native order puts the least significant byte first for
 * fields of up to 128 bits and keeps the big-endian bytes right-aligned in @p size above that. */
static void field_mask(uint32_t bitwidth, uint32_t size, uint32_t plen, uint8_t *out)
{
	uint32_t nbytes = (bitwidth + 7) / 8, lo = bitwidth - plen;
	memset(out, 0, size);
	for (uint32_t j = lo / 8; j < nbytes; j++) {
		uint32_t from = lo > 8 * j ? lo - 8 * j : 0;
		uint32_t to = bitwidth < 8 * j + 8 ? bitwidth - 8 * j : 8;
		uint8_t m = (uint8_t)(((1u << to) - 1u) & ~((1u << from) - 1u));
		if (bitwidth <= 128)
			out[j] = m;
		else
			out[size - 1 - j] = m;
	}
}

/* Unsigned compare of two native fields. */
static int field_cmp(uint32_t bitwidth, uint32_t size, const uint8_t *a, const uint8_t *b)
{
	if (bitwidth > 128)
		return memcmp(a, b, size);
	for (int i = (int)size - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* ------------------------------------------------------------ match building */

struct match_buf {
	uint8_t value[P4DP_TABLE_KEY_MAX];
	uint8_t mask[P4DP_TABLE_KEY_MAX];
	uint8_t hi[P4DP_TABLE_KEY_MAX];
	struct p4dp_match m;
};

static int check_table(struct p4dp_runtime *rt, uint32_t table)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "NULL runtime");
	if (table >= rt->prog->n_tables)
		return rt_errc(-EINVAL, "table index %u out of range (program has %u tables)", table,
			       rt->prog->n_tables);
	return 0;
}

/* rt_be_to_native, with the value's name in an error (@p fmt with the names @p n1 and @p n2) formatted
 * only when there is an error. perf: formatting it for every value of every write cost more than the
 * conversion (a tenth of a P4Runtime insert's time on the control thread). */
static int value_to_native(const char *fmt, const char *n1, const char *n2, uint32_t bitwidth, uint32_t size,
			   const uint8_t *be, uint32_t be_len, uint8_t *out)
{
	if (rt_be_fits(bitwidth, be, be_len))
		return rt_be_to_native("", bitwidth, size, be, be_len, out);
	char what[256];
	snprintf(what, sizeof(what), fmt, n1, n2);
	return rt_be_to_native(what, bitwidth, size, be, be_len, out);
}

/* A key field's value (@p part: "" or which of its values) to its native field. */
static int key_to_native(const struct p4dp_key_info *ki, const char *part, const uint8_t *be, uint32_t be_len,
			 uint8_t *out)
{
	return value_to_native("key field '%s'%s", ki->name, part, ki->bitwidth, ki->size, be, be_len, out);
}

static int build_match(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
		       struct match_buf *b)
{
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	int rc;
	if (e == NULL)
		return rt_errc(-EINVAL, "NULL entry");
	if (e->n_keys != ti->n_keys)
		return rt_errc(-EINVAL, "table '%s' has %u key fields, %u given", ti->name, ti->n_keys, e->n_keys);
	if (e->n_keys > 0 && e->keys == NULL)
		return rt_errc(-EINVAL, "NULL key array");
	if (ti->flags & P4DP_TABLE_F_NEEDS_PRIORITY) {
		if (e->priority <= 0)
			return rt_errc(-EINVAL, "table '%s' has ternary/range/optional keys: priority must be > 0",
				       ti->name);
	} else if (e->priority != 0) {
		return rt_errc(-EINVAL, "table '%s' has no ternary/range/optional keys: priority must be 0",
			       ti->name);
	}
	memset(b->value, 0, ti->key_len);
	memset(b->mask, 0, ti->key_len);
	memset(b->hi, 0, ti->key_len);
	bool has_range = false;
	for (uint32_t k = 0; k < ti->n_keys; k++) {
		const struct p4dp_key_info *ki = &ti->keys[k];
		const struct p4dp_rt_key *rk = &e->keys[k];
		uint8_t *v = b->value + ki->offset, *mk = b->mask + ki->offset, *hi = b->hi + ki->offset;
		uint32_t bw = ki->bitwidth, sz = ki->size;
		if (ki->match_kind == P4DP_MATCH_RANGE)
			has_range = true;
		if (rk->type == P4DP_RT_KEY_DONT_CARE) {
			if (ki->match_kind == P4DP_MATCH_EXACT)
				return rt_errc(-EINVAL, "key field '%s' is exact and cannot be a wildcard", ki->name);
			if (ki->match_kind == P4DP_MATCH_RANGE)
				field_mask(bw, sz, bw, hi);
			continue;
		}
		if (rk->type != ki->match_kind)
			return rt_errc(-EINVAL, "key field '%s' is %s, given as %s", ki->name, kind_name(ki->match_kind),
				       kind_name(rk->type));
		switch (ki->match_kind) {
		case P4DP_MATCH_EXACT:
			if ((rc = key_to_native(ki, "", rk->value, rk->value_len, v)))
				return rc;
			field_mask(bw, sz, bw, mk);
			break;
		case P4DP_MATCH_LPM:
			if (rk->prefix_len > bw)
				return rt_errc(-EINVAL, "key field '%s': prefix length %u > bitwidth %u", ki->name,
					       rk->prefix_len, bw);
			if ((rc = key_to_native(ki, "", rk->value, rk->value_len, v)))
				return rc;
			field_mask(bw, sz, rk->prefix_len, mk);
			for (uint32_t i = 0; i < sz; i++)
				if (v[i] & ~mk[i])
					return rt_errc(-EINVAL, "key field '%s': lpm value has bits set beyond prefix "
						       "length %u", ki->name, rk->prefix_len);
			break;
		case P4DP_MATCH_TERNARY:
			if ((rc = key_to_native(ki, "", rk->value, rk->value_len, v)))
				return rc;
			if ((rc = key_to_native(ki, " mask", rk->value2, rk->value2_len, mk)))
				return rc;
			for (uint32_t i = 0; i < sz; i++)
				if (v[i] & ~mk[i])
					return rt_errc(-EINVAL, "key field '%s': ternary value has bits set outside the "
						       "mask", ki->name);
			break;
		case P4DP_MATCH_RANGE:
			if ((rc = key_to_native(ki, " low", rk->value, rk->value_len, v)))
				return rc;
			if ((rc = key_to_native(ki, " high", rk->value2, rk->value2_len, hi)))
				return rc;
			if (field_cmp(bw, sz, v, hi) > 0)
				return rt_errc(-EINVAL, "key field '%s': range low > high", ki->name);
			break;
		case P4DP_MATCH_OPTIONAL:
			if (rk->value_len == 0)
				break; /* wildcard */
			if ((rc = key_to_native(ki, "", rk->value, rk->value_len, v)))
				return rc;
			field_mask(bw, sz, bw, mk);
			break;
		}
	}
	b->m.value = b->value;
	b->m.mask = b->mask;
	b->m.hi = has_range ? b->hi : NULL;
	b->m.priority = e->priority;
	return 0;
}

enum { SCOPE_ENTRY, SCOPE_DEFAULT };

static int build_action(struct p4dp_runtime *rt, uint32_t table, uint32_t action, uint32_t n_params,
			const struct p4dp_rt_param *params, int scope, uint8_t *data)
{
	const struct p4dp_program *p = rt->prog;
	const struct p4dp_table_info *ti = &p->tables[table];
	if (action >= p->n_actions)
		return rt_errc(-EINVAL, "action index %u out of range (program has %u actions)", action, p->n_actions);
	const struct p4dp_action_info *ai = &p->actions[action];
	uint32_t i;
	for (i = 0; i < ti->n_actions; i++)
		if (ti->actions[i] == action)
			break;
	if (i == ti->n_actions)
		return rt_errc(-EINVAL, "action '%s' is not an action of table '%s'", ai->name, ti->name);
	uint8_t sc = ti->action_scopes ? ti->action_scopes[i] : P4DP_SCOPE_ANY;
	if (scope == SCOPE_ENTRY && sc == P4DP_SCOPE_DEFAULT_ONLY)
		return rt_errc(-EINVAL, "action '%s' is @defaultonly in table '%s'", ai->name, ti->name);
	if (scope == SCOPE_DEFAULT && sc == P4DP_SCOPE_TABLE_ONLY)
		return rt_errc(-EINVAL, "action '%s' is @tableonly in table '%s'", ai->name, ti->name);
	if (n_params != ai->n_params)
		return rt_errc(-EINVAL, "action '%s' takes %u parameters, %u given", ai->name, ai->n_params, n_params);
	if (n_params > 0 && params == NULL)
		return rt_errc(-EINVAL, "NULL parameter array");
	memset(data, 0, ti->data_len);
	for (uint32_t k = 0; k < n_params; k++) {
		const struct p4dp_param_info *pi = &ai->params[k];
		int rc = value_to_native("action '%s' parameter '%s'", ai->name, pi->name ? pi->name : "?",
					 pi->bitwidth, pi->size, params[k].value, params[k].len, data + pi->offset);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------ native -> control form */

struct read_ctx {
	struct p4dp_runtime *rt;
	uint32_t table;
	p4dp_rt_entry_cb cb;
	void *arg;
	struct p4dp_rt_key keys[P4DP_TABLE_FIELDS_MAX];
	struct p4dp_rt_param *params;
	uint8_t *bytes; /* scratch for the converted values */
};

static size_t read_scratch_size(const struct p4dp_program *p, const struct p4dp_table_info *ti)
{
	size_t n = 0;
	for (uint32_t k = 0; k < ti->n_keys; k++)
		n += 2 * ((ti->keys[k].bitwidth + 7) / 8);
	size_t maxp = 0;
	for (uint32_t a = 0; a < ti->n_actions; a++) {
		const struct p4dp_action_info *ai = &p->actions[ti->actions[a]];
		size_t s = 0;
		for (uint32_t i = 0; i < ai->n_params; i++)
			s += (ai->params[i].bitwidth + 7) / 8;
		if (s > maxp)
			maxp = s;
	}
	const struct p4dp_action_info *da = &p->actions[ti->default_action];
	size_t s = 0;
	for (uint32_t i = 0; i < da->n_params; i++)
		s += (da->params[i].bitwidth + 7) / 8;
	return n + (s > maxp ? s : maxp) + 8;
}

static uint32_t max_params(const struct p4dp_program *p)
{
	uint32_t m = 1;
	for (uint32_t a = 0; a < p->n_actions; a++)
		if (p->actions[a].n_params > m)
			m = p->actions[a].n_params;
	return m;
}

static int read_ctx_init(struct read_ctx *r, struct p4dp_runtime *rt, uint32_t table, p4dp_rt_entry_cb cb,
			 void *arg)
{
	r->rt = rt;
	r->table = table;
	r->cb = cb;
	r->arg = arg;
	r->params = calloc(max_params(rt->prog), sizeof(*r->params));
	r->bytes = malloc(read_scratch_size(rt->prog, &rt->prog->tables[table]));
	if (r->params == NULL || r->bytes == NULL) {
		free(r->params);
		free(r->bytes);
		return rt_errc(-ENOMEM, "out of memory");
	}
	return 0;
}

static void read_ctx_fini(struct read_ctx *r)
{
	free(r->params);
	free(r->bytes);
}

static int emit_entry(struct read_ctx *r, const struct p4dp_match *m, uint32_t action, const uint8_t *data)
{
	const struct p4dp_program *p = r->rt->prog;
	const struct p4dp_table_info *ti = &p->tables[r->table];
	uint8_t *out = r->bytes;
	struct p4dp_rt_entry e = { 0 };
	if (m != NULL) {
		for (uint32_t k = 0; k < ti->n_keys; k++) {
			const struct p4dp_key_info *ki = &ti->keys[k];
			struct p4dp_rt_key *rk = &r->keys[k];
			uint32_t nb = (ki->bitwidth + 7) / 8;
			const uint8_t *v = m->value + ki->offset;
			uint8_t ones[P4DP_TABLE_KEY_MAX];
			const uint8_t *mk;
			if (m->mask) {
				mk = m->mask + ki->offset;
			} else {
				field_mask(ki->bitwidth, ki->size, ki->bitwidth, ones);
				mk = ones;
			}
			memset(rk, 0, sizeof(*rk));
			rk->type = ki->match_kind;
			rt_native_to_be(ki->bitwidth, ki->size, v, out);
			rk->value = out;
			rk->value_len = nb;
			out += nb;
			switch (ki->match_kind) {
			case P4DP_MATCH_LPM:
				for (uint32_t i = 0; i < ki->size; i++)
					rk->prefix_len += (uint32_t)__builtin_popcount(mk[i]);
				break;
			case P4DP_MATCH_TERNARY:
				rt_native_to_be(ki->bitwidth, ki->size, mk, out);
				rk->value2 = out;
				rk->value2_len = nb;
				out += nb;
				break;
			case P4DP_MATCH_RANGE:
				if (m->hi) {
					rt_native_to_be(ki->bitwidth, ki->size, m->hi + ki->offset, out);
				} else {
					field_mask(ki->bitwidth, ki->size, ki->bitwidth, ones);
					rt_native_to_be(ki->bitwidth, ki->size, ones, out);
				}
				rk->value2 = out;
				rk->value2_len = nb;
				out += nb;
				break;
			case P4DP_MATCH_OPTIONAL: {
				int any = 0;
				for (uint32_t i = 0; i < ki->size; i++)
					any |= mk[i];
				if (!any) {
					rk->value = NULL;
					rk->value_len = 0;
				}
				break;
			}
			default:
				break;
			}
		}
		e.n_keys = ti->n_keys;
		e.keys = r->keys;
		e.priority = m->priority;
	}
	if (action == P4DP_ACTPROF_REF_MEMBER || action == P4DP_ACTPROF_REF_GROUP) {
		/* indirect table entry (actprof.c): one parameter, the member/group id */
		struct p4dp_actprof_ref ref;
		memcpy(&ref, data, sizeof(ref));
		for (int i = 0; i < 4; i++)
			out[i] = (uint8_t)(ref.id >> (24 - 8 * i));
		r->params[0].value = out;
		r->params[0].len = 4;
		e.action = action;
		e.n_params = 1;
		e.params = r->params;
		return r->cb(r->arg, &e);
	}
	const struct p4dp_action_info *ai = &p->actions[action < p->n_actions ? action : 0];
	e.action = action;
	e.n_params = ai->n_params;
	e.params = r->params;
	for (uint32_t i = 0; i < ai->n_params; i++) {
		const struct p4dp_param_info *pi = &ai->params[i];
		uint32_t nb = (pi->bitwidth + 7) / 8;
		rt_native_to_be(pi->bitwidth, pi->size, data + pi->offset, out);
		r->params[i].value = out;
		r->params[i].len = nb;
		out += nb;
	}
	return r->cb(r->arg, &e);
}

/* ------------------------------------------------------------ creation */

static struct p4dp_entry *default_new(struct p4dp_runtime *rt, uint32_t table, uint32_t action, const uint8_t *data)
{
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	struct p4dp_entry *e = rte_zmalloc_socket("p4dp_default", sizeof(*e) + ti->data_len + 8, 16, rt->socket_id);
	if (e == NULL)
		return NULL;
	e->action = action;
	e->index = UINT32_MAX; /* no direct counter/meter cell */
	if (data)
		memcpy(e->data, data, ti->data_len);
	return e;
}

/* The program's default action data padded to the table's data_len. */
static void program_default_data(const struct p4dp_program *p, const struct p4dp_table_info *ti, uint8_t *buf)
{
	memset(buf, 0, ti->data_len);
	uint32_t dl = p->actions[ti->default_action].data_len;
	if (dl > ti->data_len)
		dl = ti->data_len;
	if (ti->default_data && dl)
		memcpy(buf, ti->default_data, dl);
}

static uint64_t rt_clock_cb(void *arg)
{
	return rt_now_ns(arg);
}

int rt_tables_create(struct p4dp_runtime *rt)
{
	const struct p4dp_program *p = rt->prog;
	uint32_t nt = p->n_tables;
	rt->tables = calloc(nt ? nt : 1, sizeof(*rt->tables));
	rt->defaults = rte_zmalloc_socket("p4dp_defaults", sizeof(*rt->defaults) * (nt ? nt : 1), 64, rt->socket_id);
	rt->capacity = calloc(nt ? nt : 1, sizeof(*rt->capacity));
	rt->default_meta = calloc(nt ? nt : 1, sizeof(*rt->default_meta));
	if (!rt->tables || !rt->defaults || !rt->capacity || !rt->default_meta)
		return rt_errc(-ENOMEM, "out of memory creating tables");
	for (uint32_t t = 0; t < nt; t++) {
		const struct p4dp_table_info *ti = &p->tables[t];
		struct p4dp_key_field fields[P4DP_TABLE_FIELDS_MAX];
		if (ti->n_keys > P4DP_TABLE_FIELDS_MAX || ti->key_len > P4DP_TABLE_KEY_MAX)
			return rt_errc(-EINVAL, "table '%s': key too large (%u fields, %u bytes)", ti->name, ti->n_keys,
				       ti->key_len);
		for (uint32_t k = 0; k < ti->n_keys; k++) {
			fields[k].match_kind = ti->keys[k].match_kind;
			fields[k].offset = ti->keys[k].offset;
			fields[k].size = ti->keys[k].size;
			fields[k].bitwidth = (uint16_t)ti->keys[k].bitwidth;
		}
		rt->capacity[t] = ti->size ? (uint32_t)ti->size : P4DP_TABLE_DEFAULT_SIZE;
		struct p4dp_table_params tp = {
			.name = ti->name,
			.key_len = ti->key_len,
			.n_fields = ti->n_keys,
			.fields = fields,
			.max_entries = rt->capacity[t],
			.data_len = ti->data_len,
			.storage = ti->storage & ~P4DP_STORAGE_F_LINEAR,
			.linear = (ti->storage & P4DP_STORAGE_F_LINEAR) != 0,
			.socket_id = rt->socket_id,
			.clock = rt_clock_cb,
			.clock_arg = rt,
			/* any table may have @__ref parameters (the ABI has no flag for it) */
			.dp_writes = 1,
			.shared_answers = (ti->flags & P4DP_TABLE_F_SHARED_ANSWERS) != 0,
		};
		rt->tables[t] = p4dp_table_create(&tp, rt->rcu);
		if (rt->tables[t] == NULL)
			return rt_errc(errno ? -errno : -ENOMEM, "table '%s': p4dp_table_create failed: %s", ti->name,
				       strerror(errno ? errno : ENOMEM));
		uint8_t *buf = calloc(1, ti->data_len + 8);
		if (buf == NULL)
			return rt_errc(-ENOMEM, "out of memory");
		program_default_data(p, ti, buf);
		rt->defaults[t] = default_new(rt, t, ti->default_action, buf);
		if (rt->defaults[t] == NULL) {
			free(buf);
			return rt_errc(-ENOMEM, "out of memory");
		}
		for (uint32_t i = 0; i < ti->n_entries; i++) {
			const struct p4dp_const_entry *ce = &ti->entries[i];
			struct p4dp_match m = { ce->value, ce->mask, ce->hi, ce->priority };
			memset(buf, 0, ti->data_len);
			uint32_t dl = p->actions[ce->action].data_len;
			if (ce->data && dl)
				memcpy(buf, ce->data, dl < ti->data_len ? dl : ti->data_len);
			int rc = p4dp_table_entry_add(rt->tables[t], &m, ce->action, buf);
			if (rc) {
				free(buf);
				return rt_errc(rc == -ENOSPC || rc == -ENOMEM ? rc : -EINVAL,
					       "table '%s': initial entry %u rejected: %s", ti->name, i, strerror(-rc));
			}
		}
		free(buf);
	}
	return 0;
}

void rt_tables_free(struct p4dp_runtime *rt)
{
	if (rt->tables) {
		for (uint32_t t = 0; t < rt->prog->n_tables; t++)
			p4dp_table_free(rt->tables[t]);
		free(rt->tables);
		rt->tables = NULL;
	}
	if (rt->defaults) {
		for (uint32_t t = 0; t < rt->prog->n_tables; t++)
			rte_free(rt->defaults[t]);
		rte_free(rt->defaults);
		rt->defaults = NULL;
	}
	free(rt->capacity);
	rt->capacity = NULL;
	if (rt->default_meta) {
		for (uint32_t t = 0; t < rt->prog->n_tables; t++)
			free(rt->default_meta[t].bytes);
		free(rt->default_meta);
		rt->default_meta = NULL;
	}
}

/* ------------------------------------------------------------ entry operations */

static int table_rc(const struct p4dp_table_info *ti, int rc, uint32_t cap)
{
	switch (rc) {
	case 0: return 0;
	case -EEXIST: return rt_errc(rc, "table '%s': an entry with this match already exists", ti->name);
	case -ENOSPC: return rt_errc(rc, "table '%s' is full (capacity %u)", ti->name, cap);
	case -ENOENT: return rt_errc(rc, "table '%s': no entry with this match", ti->name);
	case -ENOMEM: return rt_errc(rc, "table '%s': out of memory", ti->name);
	case -ERANGE:
		return rt_errc(rc, "table '%s' is @linear: the key is the row and must be below its size %u", ti->name, cap);
	case -EINVAL: return rt_errc(rc, "table '%s': the table rejected the match", ti->name);
	default: return rt_errc(rc, "table '%s': %s", ti->name, strerror(-rc));
	}
}

static int check_mutable(struct p4dp_runtime *rt, uint32_t table)
{
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (ti->flags & P4DP_TABLE_F_ENTRIES_CONST)
		return rt_errc(-EINVAL, "table '%s' has const entries and cannot be changed", ti->name);
	return 0;
}

int rt_entry_write_native(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, uint32_t action,
			  const uint8_t *data, int modify)
{
	int rc = check_table(rt, table);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	if ((rc = build_match(rt, table, e, b)) == 0) {
		if (modify)
			rc = p4dp_table_entry_modify(rt->tables[table], &b->m, action, data);
		else
			rc = p4dp_table_entry_add(rt->tables[table], &b->m, action, data);
		rc = table_rc(&rt->prog->tables[table], rc, rt->capacity[table]);
	}
	free(b);
	return rc;
}

int rt_emit_action(struct p4dp_runtime *rt, uint32_t table, uint32_t action, const uint8_t *data, p4dp_rt_entry_cb cb,
		   void *arg)
{
	struct read_ctx r;
	int rc = read_ctx_init(&r, rt, table, cb, arg);
	if (rc)
		return rc;
	rc = emit_entry(&r, NULL, action, data);
	read_ctx_fini(&r);
	return rc;
}

static int entry_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, int modify)
{
	int rc = check_table(rt, table);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (rt->prog->table_impl != NULL && rt->prog->table_impl[table] >= 0)
		return rt_errc(-EINVAL, "table '%s' is implemented by action profile '%s': its entries refer to "
			       "members or groups (use the indirect add/modify)", ti->name,
			       rt->prog->externs[rt->prog->table_impl[table]].name);
	/* perf: the match and (usually) the action data on the stack: two allocations per write were
	 * a measurable part of a P4Runtime insert (match_buf is 3 KiB, above malloc's per-thread cache) */
	struct match_buf b;
	uint8_t small[256];
	uint8_t *data = ti->data_len + 8 <= sizeof(small) ? small : malloc(ti->data_len + 8);
	if (data == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	if ((rc = build_match(rt, table, e, &b)))
		goto out;
	if ((rc = build_action(rt, table, e->action, e->n_params, e->params, SCOPE_ENTRY, data)))
		goto out;
	if (modify)
		rc = p4dp_table_entry_modify(rt->tables[table], &b.m, e->action, data);
	else
		rc = p4dp_table_entry_add(rt->tables[table], &b.m, e->action, data);
	rc = table_rc(ti, rc, rt->capacity[table]);
out:
	if (data != small)
		free(data);
	return rc;
}

int p4dp_runtime_table_entry_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e)
{
	return entry_write(rt, table, e, 0);
}

/* p4dp_runtime_table_entries_add's conversion of one entry, called by the table under its mutex:
 * the match and action data of entry i in the batch's buffers (two of each, alternately: the
 * table keeps the two latest entries, p4dp_table_entry_build_fn). */
struct entries_add {
	struct p4dp_runtime *rt;
	uint32_t table;
	const struct p4dp_rt_entry *entries;
	uint32_t build_failed_at; /* the entry whose conversion failed (its message is set), or UINT32_MAX */
	uint8_t *data[2];
	struct match_buf b[2];
};

static int entries_add_build(void *arg, uint32_t i, const struct p4dp_match **m, uint32_t *action,
			     const void **data)
{
	struct entries_add *a = arg;
	const struct p4dp_rt_entry *e = &a->entries[i];
	struct match_buf *b = &a->b[i & 1];
	uint8_t *d = a->data[i & 1];
	int rc = build_match(a->rt, a->table, e, b);
	if (rc == 0)
		rc = build_action(a->rt, a->table, e->action, e->n_params, e->params, SCOPE_ENTRY, d);
	if (rc) {
		a->build_failed_at = i;
		return rc;
	}
	*m = &b->m;
	*action = e->action;
	*data = d;
	return 0;
}

int p4dp_runtime_table_entries_add(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *entries,
				   uint32_t n, uint32_t *done)
{
	if (done != NULL)
		*done = 0;
	int rc = check_table(rt, table);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (done == NULL || (n > 0 && entries == NULL))
		return rt_errc(-EINVAL, "NULL %s", done == NULL ? "done pointer" : "entry array");
	if (rt->prog->table_impl != NULL && rt->prog->table_impl[table] >= 0)
		return rt_errc(-EINVAL, "table '%s' is implemented by action profile '%s': its entries refer to "
			       "members or groups (use the indirect add/modify)", ti->name,
			       rt->prog->externs[rt->prog->table_impl[table]].name);
	/* perf: two match buffers and two action-data buffers for the whole batch */
	struct entries_add *a = malloc(sizeof(*a));
	const size_t stride = ((size_t)ti->data_len + 8 + 63) & ~(size_t)63;
	uint8_t *data = malloc(2 * stride);
	if (a == NULL || data == NULL) {
		free(a);
		free(data);
		return rt_errc(-ENOMEM, "out of memory");
	}
	a->rt = rt;
	a->table = table;
	a->entries = entries;
	a->data[0] = data;
	a->data[1] = data + stride;
	a->build_failed_at = UINT32_MAX;
	rc = p4dp_table_entries_add(rt->tables[table], n, entries_add_build, a, done);
	/* build's errors carry their message already (the batch stopped at the entry whose
	 * conversion failed); the table's get theirs here */
	if (rc != 0 && a->build_failed_at != *done)
		rc = table_rc(ti, rc, rt->capacity[table]);
	free(a);
	free(data);
	return rc;
}

int p4dp_runtime_table_entry_modify(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e)
{
	return entry_write(rt, table, e, 1);
}

int rt_entry_index(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, uint32_t *index)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	rc = build_match(rt, table, e, b);
	if (rc == 0)
		rc = table_rc(&rt->prog->tables[table],
			      p4dp_table_entry_get(rt->tables[table], &b->m, NULL, NULL, index), 0);
	free(b);
	return rc;
}

int p4dp_runtime_table_entry_delete(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e)
{
	int rc = check_table(rt, table);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	struct match_buf b; /* perf: on the stack, as in entry_write */
	uint32_t index = UINT32_MAX;
	rc = build_match(rt, table, e, &b);
	if (rc)
		return rc;
	rc = p4dp_table_entry_get(rt->tables[table], &b.m, NULL, NULL, &index);
	if (rc == 0)
		rc = p4dp_table_entry_delete(rt->tables[table], &b.m);
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (rc == 0 && (ti->direct_counter >= 0 || ti->direct_meter >= 0)) {
		/* No worker can still count into the deleted entry's cell after a grace period; the
		 * index is reused only after one too (table.h), so the reset cannot hit a new entry.
		 * perf: only tables with direct resources wait (a grace period costs the control
		 * thread up to a scheduler slice when it shares a CPU with a polling worker). */
		p4dp_rcu_synchronize(rt->rcu);
		rt_direct_reset_index(rt, table, index);
	}
	return table_rc(&rt->prog->tables[table], rc, 0);
}

int p4dp_runtime_table_entry_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				 p4dp_rt_entry_cb cb, void *arg)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	if (cb == NULL)
		return rt_errc(-EINVAL, "NULL callback");
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	struct match_buf *b = malloc(sizeof(*b));
	uint8_t *data = malloc(ti->data_len + 8);
	struct read_ctx r;
	if (b == NULL || data == NULL) {
		rc = rt_errc(-ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = build_match(rt, table, e, b)))
		goto out;
	uint32_t action;
	rc = p4dp_table_entry_get(rt->tables[table], &b->m, &action, data, NULL);
	if (rc) {
		rc = table_rc(ti, rc, 0);
		goto out;
	}
	if ((rc = read_ctx_init(&r, rt, table, cb, arg)))
		goto out;
	rc = emit_entry(&r, &b->m, action, data);
	read_ctx_fini(&r);
out:
	free(b);
	free(data);
	return rc;
}

static int foreach_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e)
{
	return emit_entry(arg, m, e->action, e->data);
}

int p4dp_runtime_table_read(struct p4dp_runtime *rt, uint32_t table, p4dp_rt_entry_cb cb, void *arg)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	if (cb == NULL)
		return rt_errc(-EINVAL, "NULL callback");
	struct read_ctx r;
	if ((rc = read_ctx_init(&r, rt, table, cb, arg)))
		return rc;
	rc = p4dp_table_foreach(rt->tables[table], foreach_cb, &r);
	read_ctx_fini(&r);
	if (rc == -ENOMEM)
		return rt_errc(rc, "out of memory");
	return rc;
}

int p4dp_runtime_table_clear(struct p4dp_runtime *rt, uint32_t table)
{
	int rc = check_table(rt, table);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	rc = p4dp_table_clear(rt->tables[table]);
	if (rc)
		return table_rc(&rt->prog->tables[table], rc, 0);
	p4dp_rcu_synchronize(rt->rcu);
	rt_direct_reset_index(rt, table, UINT32_MAX);
	return 0;
}

/* ------------------------------------------------------------ default actions */

static int default_publish(struct p4dp_runtime *rt, uint32_t table, uint32_t action, const uint8_t *data)
{
	struct p4dp_entry *e = default_new(rt, table, action, data);
	if (e == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	/* release: the entry's contents are visible before the pointer (pairs with the workers'
	 * acquire load in p4dp_table_default()). */
	struct p4dp_entry *old = __atomic_exchange_n(&rt->defaults[table], e, __ATOMIC_ACQ_REL);
	if (p4dp_rcu_defer_free(rt->rcu, old) != 0) {
		p4dp_rcu_synchronize(rt->rcu);
		rte_free(old);
	}
	return 0;
}

int p4dp_runtime_table_default_set(struct p4dp_runtime *rt, uint32_t table, uint32_t action, uint32_t n_params,
				   const struct p4dp_rt_param *params)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (ti->flags & P4DP_TABLE_F_DEFAULT_CONST)
		return rt_errc(-EINVAL, "the default action of table '%s' is const", ti->name);
	uint8_t *data = malloc(ti->data_len + 8);
	if (data == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	rc = build_action(rt, table, action, n_params, params, SCOPE_DEFAULT, data);
	if (rc == 0) {
		pthread_mutex_lock(&rt->lock);
		rc = default_publish(rt, table, action, data);
		pthread_mutex_unlock(&rt->lock);
	}
	free(data);
	return rc;
}

int p4dp_runtime_table_default_reset(struct p4dp_runtime *rt, uint32_t table)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	uint8_t *data = malloc(ti->data_len + 8);
	if (data == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	program_default_data(rt->prog, ti, data);
	pthread_mutex_lock(&rt->lock);
	rc = default_publish(rt, table, ti->default_action, data);
	pthread_mutex_unlock(&rt->lock);
	free(data);
	return rc;
}

int p4dp_runtime_table_default_get(struct p4dp_runtime *rt, uint32_t table, p4dp_rt_entry_cb cb, void *arg)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	if (cb == NULL)
		return rt_errc(-EINVAL, "NULL callback");
	struct read_ctx r;
	if ((rc = read_ctx_init(&r, rt, table, cb, arg)))
		return rc;
	pthread_mutex_lock(&rt->lock); /* the default cannot be freed while we read it */
	const struct p4dp_entry *e = __atomic_load_n(&rt->defaults[table], __ATOMIC_ACQUIRE);
	rc = emit_entry(&r, NULL, e->action, e->data);
	pthread_mutex_unlock(&rt->lock);
	read_ctx_fini(&r);
	return rc;
}

int p4dp_runtime_table_stats_get(struct p4dp_runtime *rt, uint32_t table, struct p4dp_rt_table_stats *st)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	if (st == NULL)
		return rt_errc(-EINVAL, "NULL stats");
	struct p4dp_table_stats ts;
	rc = p4dp_table_stats_get(rt->tables[table], &ts);
	if (rc)
		return rt_errc(rc, "table stats failed");
	memset(st, 0, sizeof(*st));
	st->entries = ts.entries;
	st->capacity = ts.capacity;
	st->inserts = ts.inserts;
	st->deletes = ts.deletes;
	st->modifies = ts.modifies;
	st->table_full = ts.table_full;
	st->dp_inserts = ts.dp_inserts;
	st->dp_busy = ts.dp_busy;
	st->expired = ts.expired;
	st->idle_notified = ts.idle_notified;
	st->meta_entries = ts.meta_entries;
	st->tuples = ts.tuples;
	for (uint32_t w = 0; w < rt->max_workers; w++) {
		/* relaxed: single-writer counters (one worker each); a recent untorn value is enough */
		st->hits += __atomic_load_n(&rt_counters_of(rt, w, 0)[table], __ATOMIC_RELAXED);
		st->misses += __atomic_load_n(&rt_counters_of(rt, w, 1)[table], __ATOMIC_RELAXED);
	}
	return 0;
}

/* ------------------------------------------------------------ idle timeout */

/* A queued notification: the match and action in native layout. */
struct rt_idle_note {
	uint32_t table;
	uint32_t action;
	int32_t priority;
	uint32_t _pad;
	uint64_t time_ns, idle_ns;
	uint8_t bytes[]; /* value, mask, hi (key_len each), data (data_len) */
};

struct idle_scan_ctx {
	struct p4dp_runtime *rt;
	uint32_t table;
	uint64_t now;
	int notify;
	uint32_t *idx; /* auto delete: slot indices whose direct counters/meters are reset */
	uint32_t n_idx, cap_idx;
};

/* Called by the table's expiry scan (table mutex held): remember the index, copy and queue. */
static void idle_note_cb(void *arg, const struct p4dp_match *m, const struct p4dp_entry *e, uint64_t idle_ns)
{
	struct idle_scan_ctx *c = arg;
	struct p4dp_runtime *rt = c->rt;
	if (c->n_idx == c->cap_idx) {
		uint32_t nc = c->cap_idx ? 2 * c->cap_idx : 64;
		uint32_t *ni = realloc(c->idx, nc * sizeof(uint32_t));
		if (ni != NULL) {
			c->idx = ni;
			c->cap_idx = nc;
		}
	}
	if (c->n_idx < c->cap_idx)
		c->idx[c->n_idx++] = e->index;
	if (!c->notify)
		return;
	const struct p4dp_table_info *ti = &rt->prog->tables[c->table];
	uint32_t kl = ti->key_len, dl = ti->data_len;
	struct rt_idle_note *n = malloc(sizeof(*n) + 3 * (size_t)kl + dl);
	pthread_mutex_lock(&rt->idle_lock);
	if (n == NULL || rt->idle_n == rt->idle_cap) {
		rt->idle_drops++;
		pthread_mutex_unlock(&rt->idle_lock);
		free(n);
		return;
	}
	n->table = c->table;
	n->action = e->action;
	n->priority = m->priority;
	n->_pad = 0;
	n->time_ns = c->now;
	n->idle_ns = idle_ns;
	memcpy(n->bytes, m->value, kl);
	if (m->mask)
		memcpy(n->bytes + kl, m->mask, kl);
	else
		memset(n->bytes + kl, 0xff, kl);
	if (m->hi)
		memcpy(n->bytes + 2 * kl, m->hi, kl);
	else
		memset(n->bytes + 2 * kl, 0, kl);
	memcpy(n->bytes + 3 * kl, e->data, dl);
	rt->idle_q[(rt->idle_head + rt->idle_n++) % rt->idle_cap] = n;
	pthread_mutex_unlock(&rt->idle_lock);
}

static int idle_queue_init(struct p4dp_runtime *rt)
{
	if (rt->idle_q != NULL)
		return 0;
	void **q = calloc(RT_IDLE_QLEN, sizeof(void *));
	if (q == NULL)
		return -ENOMEM;
	rt->idle_q = q;
	rt->idle_cap = RT_IDLE_QLEN;
	return 0;
}

int rt_idle_scan(struct p4dp_runtime *rt, uint64_t now)
{
	int total = 0;
	for (uint32_t t = 0; t < rt->prog->n_tables; t++) {
		uint32_t f = rt->prog->tables[t].flags;
		if (!(f & (P4DP_TABLE_F_IDLE_NOTIFY | P4DP_TABLE_F_IDLE_AUTO_DELETE)))
			continue;
		pthread_mutex_lock(&rt->idle_lock);
		int qrc = idle_queue_init(rt);
		pthread_mutex_unlock(&rt->idle_lock);
		if (qrc)
			return rt_errc(qrc, "out of memory for the idle-timeout queue");
		int auto_del = (f & P4DP_TABLE_F_IDLE_AUTO_DELETE) != 0;
		struct idle_scan_ctx c = { rt, t, now, (f & P4DP_TABLE_F_IDLE_NOTIFY) != 0, NULL, 0, 0 };
		int n = p4dp_table_expire_scan(rt->tables[t], now, auto_del, idle_note_cb, &c);
		/* deleted entries' direct counters/meters start from zero when the index is reused
		 * (as a control-plane delete does); done after the scan (no table mutex held) */
		for (uint32_t i = 0; auto_del && i < c.n_idx; i++)
			rt_direct_reset_index(rt, t, c.idx[i]);
		free(c.idx);
		if (n < 0)
			return rt_errc(n, "table '%s': expiry scan failed", rt->prog->tables[t].name);
		total += n;
	}
	return total;
}

int p4dp_runtime_idle_scan(struct p4dp_runtime *rt)
{
	if (rt == NULL)
		return rt_errc(-EINVAL, "idle_scan: NULL runtime");
	return rt_idle_scan(rt, rt_now_ns(rt));
}

static int check_idle_entry(struct p4dp_runtime *rt, uint32_t table, const void *out)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (!(ti->flags & (P4DP_TABLE_F_IDLE_NOTIFY | P4DP_TABLE_F_IDLE_AUTO_DELETE)))
		return rt_errc(-EINVAL, "table '%s' has no idle timeout", ti->name);
	if (out == NULL)
		return rt_errc(-EINVAL, "table '%s': NULL argument", ti->name);
	return 0;
}

int p4dp_runtime_table_entry_ttl_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				     uint64_t ttl_ns)
{
	int rc = check_idle_entry(rt, table, e);
	if (rc || (rc = check_mutable(rt, table)))
		return rc;
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	rc = build_match(rt, table, e, b);
	if (rc == 0)
		rc = table_rc(&rt->prog->tables[table],
			      p4dp_table_entry_ttl_set(rt->tables[table], &b->m, ttl_ns, rt_now_ns(rt)), 0);
	free(b);
	return rc;
}

int p4dp_runtime_table_entry_idle_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      struct p4dp_rt_idle *out)
{
	int rc = check_idle_entry(rt, table, out);
	if (rc || (rc = check_idle_entry(rt, table, e)))
		return rc;
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	struct p4dp_table_idle st;
	rc = build_match(rt, table, e, b);
	if (rc == 0)
		rc = table_rc(&rt->prog->tables[table], p4dp_table_entry_idle_get(rt->tables[table], &b->m, &st), 0);
	free(b);
	if (rc == 0) {
		/* the clock is read after the last-hit time: a worker's newer hit may still make
		 * it later than now (both come from one clock), which is no time since the hit */
		uint64_t now = rt_now_ns(rt);
		out->ttl_ns = st.ttl_ns;
		out->since_hit_ns = now > st.last_hit_ns ? now - st.last_hit_ns : 0;
		out->own_ttl = (uint32_t)st.own_ttl;
		out->_pad = 0;
	}
	return rc;
}

/* ------------------------------------------------------------ entry metadata */

/* The default entry's metadata (checked by the caller): replaced under rt->lock. */
static int default_meta_set(struct p4dp_runtime *rt, uint32_t table, const void *meta, uint32_t len)
{
	uint8_t *copy = NULL;
	if (len > 0 && (copy = malloc(len)) == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	if (len > 0)
		memcpy(copy, meta, len);
	pthread_mutex_lock(&rt->lock);
	struct rt_default_meta *d = &rt->default_meta[table];
	uint8_t *old = d->bytes;
	d->bytes = copy;
	d->len = len;
	pthread_mutex_unlock(&rt->lock);
	free(old);
	return 0;
}

int p4dp_runtime_table_entry_meta_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      const void *meta, uint32_t len)
{
	int rc = check_table(rt, table);
	if (rc || (e != NULL && (rc = check_mutable(rt, table))))
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (len > P4DP_ENTRY_META_MAX || (len > 0 && meta == NULL))
		return rt_errc(-EINVAL, "table '%s': metadata of %u bytes (at most %u, not NULL)", ti->name, len,
			       P4DP_ENTRY_META_MAX);
	if (e == NULL)
		return default_meta_set(rt, table, meta, len);
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	rc = build_match(rt, table, e, b);
	if (rc == 0)
		rc = table_rc(ti, p4dp_table_entry_meta_set(rt->tables[table], &b->m, meta, len), 0);
	free(b);
	return rc;
}

int p4dp_runtime_table_entry_meta_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      void *buf, uint32_t cap, uint32_t *len)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	if (len == NULL || (cap > 0 && buf == NULL))
		return rt_errc(-EINVAL, "table '%s': NULL argument", ti->name);
	if (e == NULL) {
		pthread_mutex_lock(&rt->lock);
		const struct rt_default_meta *d = &rt->default_meta[table];
		*len = d->len;
		if (cap > 0 && d->len > 0)
			memcpy(buf, d->bytes, d->len < cap ? d->len : cap);
		pthread_mutex_unlock(&rt->lock);
		return 0;
	}
	struct match_buf *b = malloc(sizeof(*b));
	if (b == NULL)
		return rt_errc(-ENOMEM, "out of memory");
	rc = build_match(rt, table, e, b);
	if (rc == 0)
		rc = table_rc(ti, p4dp_table_entry_meta_get(rt->tables[table], &b->m, buf, cap, len), 0);
	free(b);
	return rc;
}

int p4dp_runtime_table_meta_entries(struct p4dp_runtime *rt, uint32_t table, uint64_t *n)
{
	int rc = check_table(rt, table);
	if (rc)
		return rc;
	if (n == NULL)
		return rt_errc(-EINVAL, "table '%s': NULL count", rt->prog->tables[table].name);
	*n = p4dp_table_meta_entries(rt->tables[table]);
	return 0;
}

/* Convert a queued note to control-plane form and pass it on (read_ctx machinery). */
struct idle_emit {
	p4dp_rt_idle_cb cb;
	void *arg;
	const struct rt_idle_note *n;
};

static int idle_emit_cb(void *arg, const struct p4dp_rt_entry *e)
{
	struct idle_emit *ie = arg;
	return ie->cb(ie->arg, ie->n->table, e, ie->n->time_ns, ie->n->idle_ns);
}

int p4dp_runtime_idle_poll(struct p4dp_runtime *rt, p4dp_rt_idle_cb cb, void *arg, uint32_t max)
{
	if (rt == NULL || cb == NULL)
		return rt_errc(-EINVAL, "idle_poll: NULL argument");
	int delivered = 0;
	for (;;) {
		if (max && (uint32_t)delivered >= max)
			break;
		pthread_mutex_lock(&rt->idle_lock);
		struct rt_idle_note *n = NULL;
		if (rt->idle_n > 0) {
			n = rt->idle_q[rt->idle_head];
			rt->idle_head = (rt->idle_head + 1) % rt->idle_cap;
			rt->idle_n--;
		}
		pthread_mutex_unlock(&rt->idle_lock);
		if (n == NULL)
			break;
		const struct p4dp_table_info *ti = &rt->prog->tables[n->table];
		uint32_t kl = ti->key_len;
		struct idle_emit ie = { cb, arg, n };
		struct read_ctx r;
		int rc = read_ctx_init(&r, rt, n->table, idle_emit_cb, &ie);
		if (rc) {
			free(n);
			return rc;
		}
		struct p4dp_match m = { n->bytes, n->bytes + kl, n->bytes + 2 * kl, n->priority };
		rc = emit_entry(&r, &m, n->action, n->bytes + 3 * kl);
		read_ctx_fini(&r);
		free(n);
		delivered++;
		if (rc != 0)
			break;
	}
	return delivered;
}

uint64_t p4dp_runtime_idle_drops_get(struct p4dp_runtime *rt)
{
	if (rt == NULL)
		return 0;
	pthread_mutex_lock(&rt->idle_lock);
	uint64_t d = rt->idle_drops;
	pthread_mutex_unlock(&rt->idle_lock);
	return d;
}

void rt_idle_free(struct p4dp_runtime *rt)
{
	if (rt->idle_q == NULL)
		return;
	for (uint32_t i = 0; i < rt->idle_n; i++)
		free(rt->idle_q[(rt->idle_head + i) % rt->idle_cap]);
	free(rt->idle_q);
	rt->idle_q = NULL;
	rt->idle_n = 0;
}

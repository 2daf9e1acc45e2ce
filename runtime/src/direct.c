/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Direct counters and meters addressed by table entry (rt.h): the entry's slot index comes from
 * the table layer (ctl.c, rt_entry_index), the cell from the extern layer (externs.c). This file
 * sits above both, so that neither calls the other back: ctl.c calls externs.c (resetting a
 * deleted entry's cells), externs.c never calls ctl.c. The default entry (e NULL) has the cell
 * after the entries' (rt_direct_default_cell), which misses count into and are metered by.
 */
#include <errno.h>

#include "rt_internal.h"

static int direct_ext(struct p4dp_runtime *rt, uint32_t table, int meter, uint32_t *ext)
{
	if (rt == NULL || table >= rt->prog->n_tables)
		return rt_errc(-EINVAL, "table index %u out of range", table);
	const struct p4dp_table_info *ti = &rt->prog->tables[table];
	int32_t x = meter ? ti->direct_meter : ti->direct_counter;
	if (x < 0)
		return rt_errc(-EINVAL, "table '%s' has no direct %s", ti->name, meter ? "meter" : "counter");
	*ext = (uint32_t)x;
	return 0;
}

/* The extern (direct counter, or meter if @p meter) of @p table and the cell of entry @p e in it,
 * or of the default entry for e NULL. */
static int direct_locate(struct p4dp_runtime *rt, uint32_t table, int meter, const struct p4dp_rt_entry *e,
			 uint32_t *ext, uint32_t *index)
{
	int rc = direct_ext(rt, table, meter, ext);
	if (rc)
		return rc;
	if (e == NULL) {
		*index = rt_direct_default_cell(rt, table);
		return 0;
	}
	return rt_entry_index(rt, table, e, index);
}

int p4dp_runtime_direct_counter_read(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				     struct p4dp_counter_cell *out)
{
	uint32_t x = 0, index = 0;
	int rc = direct_locate(rt, table, 0, e, &x, &index);
	if (rc)
		return rc;
	return p4dp_runtime_counter_read(rt, x, index, out);
}

int p4dp_runtime_direct_counter_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				      const struct p4dp_counter_cell *v)
{
	uint32_t x = 0, index = 0;
	int rc = direct_locate(rt, table, 0, e, &x, &index);
	if (rc)
		return rc;
	return p4dp_runtime_counter_write(rt, x, index, v);
}

int p4dp_runtime_direct_meter_set(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				  const struct p4dp_meter_config *cfg)
{
	uint32_t x = 0, index = 0;
	/* a configuration the meter does not take is refused before the entry is looked up */
	int rc = direct_ext(rt, table, 1, &x);
	if (rc || (rc = rt_meter_cfg_check(rt, x, cfg)) || (rc = direct_locate(rt, table, 1, e, &x, &index)))
		return rc;
	return p4dp_runtime_meter_set(rt, x, index, cfg);
}

int p4dp_runtime_direct_meter_get(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
				  struct p4dp_meter_config *cfg)
{
	uint32_t x = 0, index = 0;
	int rc = direct_locate(rt, table, 1, e, &x, &index);
	if (rc)
		return rc;
	return p4dp_runtime_meter_get(rt, x, index, cfg);
}

int p4dp_runtime_direct_meter_counts_read(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
					  struct p4dp_meter_counts *out)
{
	uint32_t x = 0, index = 0;
	int rc = direct_locate(rt, table, 1, e, &x, &index);
	if (rc)
		return rc;
	return p4dp_runtime_meter_counts_read(rt, x, index, out);
}

int p4dp_runtime_direct_meter_counts_write(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e,
					   const struct p4dp_meter_counts *v)
{
	uint32_t x = 0, index = 0;
	int rc = direct_locate(rt, table, 1, e, &x, &index);
	if (rc)
		return rc;
	return p4dp_runtime_meter_counts_write(rt, x, index, v);
}

//! Data-plane table writes in the generated C (docs/dataplane-writes.md, abi.h): the runtime calls
//! and table metadata emitted for `@__ref`, `@entry_lock`, `@storage`, PNA add-on-miss and idle
//! timeouts, checked on the corpus programs that use them.

use p4dp_testutil::{compile, repo_root, scratch_dir};

fn gen(name: &str) -> String {
    compile::c_of(&repo_root().join("tests/programs").join(format!("{name}.p4")))
}

/// The text of the C function whose definition starts with `head` (up to its closing brace).
fn function<'a>(c: &'a str, head: &str) -> &'a str {
    // the definition, not the prototype: the line after the head opens the body
    let start = c
        .match_indices(head)
        .map(|(i, _)| i)
        .find(|i| c[*i..].split_once('\n').is_some_and(|(_, rest)| rest.starts_with('{')))
        .unwrap_or_else(|| panic!("no definition `{head}` in:\n{c}"));
    let end = c[start..].find("\n}\n").map(|i| start + i + 3).unwrap_or(c.len());
    &c[start..end]
}

fn has(hay: &str, needle: &str) {
    assert!(hay.contains(needle), "expected `{needle}` in:\n{hay}");
}

fn table_row<'a>(c: &'a str, fq: &str) -> &'a str {
    let key = format!(".name = \"{fq}\"");
    let start = c.find(&key).unwrap_or_else(|| panic!("no table row {fq}"));
    let end = c[start..].find('\n').map(|i| start + i).unwrap_or(c.len());
    &c[start..end]
}

#[test]
fn ref_params_point_into_the_entry() {
    let c = gen("ref_counter");
    // frame: pointers with the native layout's alignment, may_alias
    has(
        &c,
        "typedef uint32_t __attribute__((may_alias, aligned(4))) ref_uint32_t;",
    );
    has(
        &c,
        "typedef uint64_t __attribute__((may_alias, aligned(8))) ref_uint64_t;",
    );
    has(&c, "ref_uint32_t *v_n; /* @__ref */");
    // the table binds them to the hit entry's data at the params' offsets (n at 0, acc at 8)
    let t = function(&c, "int tbl_ingress_flows(struct gst *R");
    has(t, "struct p4dp_entry *_me = (struct p4dp_entry *)(uintptr_t)e;");
    has(t, "R->f_ingress.v_n = (ref_uint32_t *)(void *)(_me->data + 0);");
    has(t, "R->f_ingress.v_acc = (ref_uint64_t *)(void *)(_me->data + 8);");
    // the plain parameter is still copied
    has(t, "memcpy(&R->f_ingress.v_port, e->data + 16, 2);");
    // uses and writes in the action go through the pointer
    let a = function(&c, "int act_ingress_count(struct gst *R)");
    has(a, "R->f_incr.v_x = (*R->f_ingress.v_n);");
    has(a, "(*R->f_ingress.v_n) = R->f_incr.v_x;");
    // no lock, no idle timer, no add-on-miss context for this table
    assert!(
        !t.contains("p4dp_entry_lock") && !t.contains("p4dp_entry_touch") && !t.contains("R->dp_key"),
        "{t}"
    );
    has(table_row(&c, "ingress.flows"), ".flags = 0,");
    has(table_row(&c, "ingress.flows"), ".storage = P4DP_STORAGE_STATIC }");
}

#[test]
fn ref_on_default_action_binds_the_default_entry() {
    let c = gen("ref_default");
    let t = function(&c, "int tbl_ingress_t(struct gst *R");
    // the switch over e->action covers the default entry (e is the runtime's default on a miss)
    let case = &t[t.find("/* ingress.miss */").expect("case for miss")..];
    has(case, "R->f_ingress.v_misses = (ref_uint32_t *)(void *)(_me->data + 0);");
    // the defensive no-default path points at the frame's scratch slot instead
    has(t, "R->f_ingress.s_misses = ((uint32_t)0xau);");
    has(t, "R->f_ingress.v_misses = (ref_uint32_t *)&R->f_ingress.s_misses;");
}

#[test]
fn entry_lock_brackets_the_action() {
    let c = gen("entry_lock");
    let t = function(&c, "int tbl_ingress_by_port(struct gst *R");
    has(
        t,
        "{\n\t\t\tconst int _lk = p4dp_entry_lock(R->ctx, _me);\n\t\t\t_rc = act_ingress_shared(R);\n\t\t\tp4dp_entry_unlock(_me, _lk);\n\t\t}",
    );
    has(
        t,
        "{\n\t\t\tconst int _lk = p4dp_entry_lock(R->ctx, _me);\n\t\t\t_rc = act_ingress_other(R);\n\t\t\tp4dp_entry_unlock(_me, _lk);\n\t\t}",
    );
    let row = table_row(&c, "ingress.by_port");
    has(row, ".flags = P4DP_TABLE_F_ENTRY_LOCK,");
    has(row, ".storage = P4DP_STORAGE_DYNAMIC }");
}

#[test]
fn add_on_miss_calls_dp_add_with_the_lookup_key() {
    let c = gen("pna_add_on_miss");
    has(&c, "#include \"p4dp/dpwrite.h\"");
    let t = function(&c, "int tbl_MainControlImpl_flows(struct gst *R");
    has(
        t,
        "R->dp_entry = _hit ? _me : NULL;\n\tR->dp_key = key;\n\tR->dp_table = 0u;",
    );
    // the context is cleared before the key buffer dies
    has(t, "\tR->dp_entry = NULL;\n\tR->dp_key = NULL;\n\treturn _rc;");
    assert!(!t.contains("p4dp_entry_touch"), "no idle timeout on this table:\n{t}");
    let a = function(&c, "int act_MainControlImpl_learn(struct gst *R)");
    // params struct -> native layout of `known(bit<16> tag, bit<8> mark)`: tag at 0, mark at 2;
    // the buffer has the table's data_len (3) bytes
    has(a, "uint8_t _d[3] __attribute__((aligned(8)));");
    has(a, "memcpy(_d + 0, &_p.f_tag, 2);");
    has(a, "memcpy(_d + 2, &_p.f_mark, 1);");
    // action 0 of p4dp_program.actions is `known`
    has(
        &c,
        "static const struct p4dp_action_info md_actions[] = {\n\t{ \"MainControlImpl.known\",",
    );
    has(
        a,
        "R->dp_key ? p4dp_table_dp_add_seen(R->ctx, R->dp_table, R->dp_key, 0u, _d, (uint32_t)(((uint8_t)0x0u)), (R->dp_table == 0u && R->st_fresh) ? R->st_gen : NULL) : -1;",
    );
    // the existence check is skipped only for a staged miss not yet consumed by an add_entry
    has(a, "R->st_fresh = 0;");
    let burst = function(
        &c,
        "static void process_burst(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n)",
    );
    has(
        burst,
        "st_gen = p4dp_table_dp_gen(ctx, 0u);\n\t\tp4dp_table_lookup_bulk(",
    );
    has(t, "R->st_fresh = !_hit;");
    has(a, "R->f_MainControlImpl.v_tmp_1 = (uint8_t)(_r == 0);");
    let row = table_row(&c, "MainControlImpl.flows");
    has(row, ".flags = P4DP_TABLE_F_DEFAULT_CONST | P4DP_TABLE_F_ADD_ON_MISS,");
    has(row, ".storage = P4DP_STORAGE_AUTO }");
}

#[test]
fn idle_timeout_touches_hits_and_lowers_expire_externs() {
    let c = gen("pna_idle_timeout");
    let t = function(&c, "int tbl_MainControlImpl_flows(struct gst *R");
    has(
        t,
        "if (_hit) {\n\t\tR->entry_index = e->index;\n\t\tp4dp_entry_touch(R->ctx, _me);",
    );
    let a = function(&c, "int act_MainControlImpl_known(struct gst *R)");
    has(
        a,
        "if (R->dp_entry)\n\t\t\tp4dp_entry_set_expire(R->ctx, R->dp_entry, (uint32_t)(",
    );
    has(a, "if (R->dp_entry)\n\t\t\tp4dp_entry_touch(R->ctx, R->dp_entry);");
    has(
        table_row(&c, "MainControlImpl.flows"),
        ".flags = P4DP_TABLE_F_DEFAULT_CONST | P4DP_TABLE_F_ADD_ON_MISS | P4DP_TABLE_F_IDLE_AUTO_DELETE,",
    );
}

#[test]
fn programs_without_dp_writes_are_unchanged() {
    let c = gen("action_params_cp");
    assert!(
        !c.contains("dpwrite.h") && !c.contains("struct p4dp_entry *_me") && !c.contains("R->dp_key = key;"),
        "plain tables must not pay for data-plane writes"
    );
    has(table_row(&c, "ingress.t"), ".storage = P4DP_STORAGE_AUTO }");
}

#[test]
fn p4info_reports_idle_notification_tables() {
    let src = std::fs::read_to_string(repo_root().join("tests/programs/pna_idle_timeout.p4")).expect("read");
    let dir = scratch_dir("cgen-dpwrite");
    let info = |text: &str| -> String {
        let done = compile::front_text(&dir, "idle.p4", text).unwrap_or_else(|d| panic!("{d}"));
        p4dp_cgen::generate_p4info(&done.program)
    };
    // AUTO_DELETE: the data plane deletes, nothing is reported
    assert!(!info(&src).contains("idle_timeout_behavior"));
    let notify = src.replace("PNA_IdleTimeout_t.AUTO_DELETE", "PNA_IdleTimeout_t.NOTIFY_CONTROL");
    let p = info(&notify);
    has(&p, "  size: 64\n  idle_timeout_behavior: NOTIFY_CONTROL\n}");
    let c = compile::c_of(&dir.join("idle.p4"));
    has(
        table_row(&c, "MainControlImpl.flows"),
        ".flags = P4DP_TABLE_F_DEFAULT_CONST | P4DP_TABLE_F_ADD_ON_MISS | P4DP_TABLE_F_IDLE_NOTIFY,",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An lpm table whose program uses only the matched entry's action and data may get shared
/// answers; a direct counter (indexed by the entry), or a key the lpm kind does not take, keeps the
/// installed entries in lookups.
#[test]
fn shared_answers_only_where_the_entry_is_unused() {
    has(
        table_row(&gen("table_lpm_basic"), "ingress.t"),
        "P4DP_TABLE_F_SHARED_ANSWERS",
    );
    let mixed = gen("table_mixed_kinds");
    assert!(
        !table_row(&mixed, "ingress.t").contains("SHARED_ANSWERS"),
        "lpm + ternary got the flag"
    );
    let src = std::fs::read_to_string(repo_root().join("tests/programs/counter_direct.p4")).expect("counter_direct.p4");
    let lpm = src.replace("hdr.data.b1: exact;", "hdr.data.b1: lpm;");
    assert_ne!(src, lpm);
    let d = scratch_dir("shared-answers");
    let p = d.join("counter_direct_lpm.p4");
    std::fs::write(&p, lpm).expect("writing the program");
    let c = compile::c_of(&p);
    assert!(
        !table_row(&c, "ingress.t").contains("SHARED_ANSWERS"),
        "a direct counter's table got the flag"
    );
    let _ = std::fs::remove_dir_all(d);
}

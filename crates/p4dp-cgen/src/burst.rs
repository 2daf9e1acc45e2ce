//! Burst processing (perf): `process_burst(ctx, pkts, n)` and `process_mbufs` (abi.h) for
//! v1model and PNA programs.
//!
//! Both run the packets one after the other with `process_staged` inlined, so each packet's state
//! stays in registers (ARCHITECTURE.md, "Per-packet state lives in registers"); `process_mbufs`
//! (compiled under `P4DP_DPDK`) is the workers' entry and reads the mbufs itself (p4dp/mbuf.h,
//! `p4dp_mbufs_run`).
//!
//! With a staged table (below), and when the parser and VerifyChecksum only affect the packet's
//! own state (`StagePlan::batch_parse`: no extern calls in the parser and its sub-parsers other than
//! packet_in methods; in VerifyChecksum only `verify_checksum*`), a pre-pass over each chunk of up
//! to 32 packets parses each packet only for the staged table's key (the C compiler drops the rest
//! of that parse), then one bulk lookup, then each packet's whole pipeline in order, which parses
//! it again (unobservable: the parser is pure) with its state in registers.
//!
//! *Staged table*: if ingress first applies (in program order) a table without an
//! implementation whose key reads only ingress parameters (p4dp_ir's staging plan), the keys of
//! the whole burst are built after parsing and looked up with one `p4dp_table_lookup_bulk` (which
//! overlaps the cache misses of all keys). That table's apply reuses the staged entry only if the key it
//! computes is byte-identical to the staged key; otherwise it looks up again, so correctness
//! never depends on the staging. Data-plane writes stay exact: `@__ref` writes and entry locks
//! act on the entry when the action runs (a later packet of the burst sees an earlier packet's
//! write), and for an `add_on_miss` table (PNA) each `add_entry` marks the later packets' staged
//! results for the same key stale (`stage_invalidate`), so those look the key up again. Entries stay valid for the burst: workers report RCU quiescence
//! only between bursts.
//!
//! *Later staged tables* (`StagePlan::later`): the other tables of that control whose keys read
//! only its parameters are staged the same way, each in the chunks where the runtime says a
//! lookup ahead pays (`p4dp_table_stage_ahead`: the table is large enough that its lookups miss
//! the cache; a cache-resident table costs less looked up in place). The pre-pass builds their
//! keys from the packet as parsed, before any action ran, so the staged entry is used only if
//! the key computed at the apply is still byte-identical (an earlier action may have changed a
//! field of it); otherwise the apply looks up again. perf: without this a large table applied
//! after the first one paid its cache misses one packet at a time (ARCHITECTURE.md, "Later staged
//! tables").

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::native_layout;
use crate::{unsupported_as, Gen, Owner, UnsupportedKind, R};

/// Maximum packets per staged lookup (the runtime's burst size).
const STAGE_MAX: u32 = 32;

/// `code` with one more tab at the start of each line.
fn indent(code: &str) -> String {
    code.lines().map(|l| format!("\t{l}\n")).collect()
}

/// A later staged table (`StagePlan::later`): its key code (`Gen::key_code`) and key length.
struct Later {
    tid: TableId,
    kl: u32,
    keyc: String,
}

/// `process_burst` when the parser cannot run ahead: the packets one after the other.
/// perf: `process_staged` is inlined into the loop, so the C compiler keeps each packet's state
/// (`struct gst`, the architecture's state struct) in registers where it can (scalar replacement:
/// no pointer to that state may reach a function that is not inlined; see lib.rs, gst_init).
const ONE_BY_ONE: &str = "static void process_burst(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n)\n{\n\tfor (uint32_t i = 0; i < n; i++)\n\t\tprocess_staged(ctx, pkts[i], NULL, NULL, NULL);\n}\n";
/// `process_mbufs` (abi.h) with `process_staged` inlined per mbuf: the packet view is a local
/// whose address reaches no call on the fast path, so it stays in registers too. Compiled only
/// with DPDK's headers (`P4DP_DPDK`, lib.rs `compile_so`); included last, so DPDK's macros
/// cannot meet the program's own names. `@ST@`: the `process_staged` arguments after `pkt`.
const MBUFS: &str = "\n#ifdef P4DP_DPDK\n#include \"p4dp/mbuf.h\"\n\nstatic inline __attribute__((always_inline)) void process_one(struct p4dp_ctx *ctx, struct p4dp_pkt *pk, uint32_t i, void *arg)\n{\n\t(void)i;\n\t(void)arg;\n\tprocess_staged(ctx, pk, @ST@);\n}\n\n/* The runtime's receive path (abi.h, process_mbufs): one packet after the other, p4dp_mbufs_run's loop. */\nstatic uint32_t process_mbufs(struct p4dp_ctx *ctx, struct rte_mbuf **m, uint32_t n, uint32_t in_port, uint32_t *out,\n\t\t\t      struct p4dp_mbufs_sum *sum)\n{\n\treturn p4dp_mbufs_run(ctx, m, n, in_port, out, sum, process_one, NULL);\n}\n#define P4DP_PROCESS_MBUFS process_mbufs\n#else\n#define P4DP_PROCESS_MBUFS NULL\n#endif\n";

/// [`ONE_BY_ONE`] for PNA's `process_staged`.
const ONE_BY_ONE_PNA: &str = "static void process_burst(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n)\n{\n\tfor (uint32_t i = 0; i < n; i++)\n\t\tprocess_staged(ctx, pkts[i], NULL, NULL, 0, NULL, NULL);\n}\n";

impl Gen<'_> {
    /// `process_burst` and `process_mbufs` for a program without a staged table (v1model, or PNA
    /// if `pna`): the packets one after the other, each with its state in registers. perf:
    /// staging the parse alone (no table) would only move each packet's state to memory; the
    /// worker prefetches the burst's packet data already.
    fn one_by_one(&mut self, pna: bool) -> String {
        let mut o = String::from(if self.info.stage.batch_parse {
            "/* Bursts (burst.rs): no staged table, so the packets run one after the other, each with its\n * state in registers. */\n"
        } else {
            "/* Bursts (burst.rs): the parser (v1model: or VerifyChecksum) has effects beyond the packet, so\n * packets run one after the other. */\n"
        });
        o.push_str(if pna { ONE_BY_ONE_PNA } else { ONE_BY_ONE });
        o.push_str(&MBUFS.replace(
            "@ST@",
            if pna {
                "NULL, NULL, 0, NULL, NULL"
            } else {
                "NULL, NULL, NULL"
            },
        ));
        self.has_mbufs = true;
        o
    }

    /// Statements declaring `uint8_t key[]` and filling it with a table's match keys `keys`
    /// (native layout) in the current owner; returns them and the key length.
    pub(crate) fn key_code(&mut self, keys: &[&TableKey]) -> R<(String, u32)> {
        let widths: Vec<u32> = keys
            .iter()
            .map(|k| match self.value_width(k.expr.ty) {
                Some(w) => Ok(w),
                None => unsupported_as(
                    UnsupportedKind::Type,
                    k.expr.span,
                    format!("table key `{}` of a non-scalar type", k.name),
                ),
            })
            .collect::<R<_>>()?;
        let (lay, key_len) = native_layout(&widths);
        let mut body = String::new();
        let _ = writeln!(
            body,
            "\tuint8_t key[{}] __attribute__((aligned(16)));\n\tmemset(key, 0, sizeof key);",
            key_len.max(1)
        );
        for (k, (off, size)) in keys.iter().zip(&lay) {
            if crate::tables::match_kind_c(&k.match_kind).is_none() {
                return unsupported_as(
                    UnsupportedKind::Table,
                    k.expr.span,
                    format!("match kind `{}`", k.match_kind),
                );
            }
            let ct = self.ctype(k.expr.ty, k.expr.span)?;
            let x = self.expr(&k.expr)?;
            let _ = writeln!(
                body,
                "\t{{\n\t\t{ct} _k = {x};\n\t\tmemcpy(key + {off}, &_k, {size});\n\t}}"
            );
        }
        Ok((body, key_len))
    }

    /// After an `add_entry` (dpwrite.rs) into the staged add-on-miss table: the later packets of
    /// the burst whose staged key equals the key just added (or found present) must look it up
    /// again, so the flow's next packet hits ("never miss twice"). Empty if nothing is staged.
    pub(crate) fn stage_invalidate(&self, ind: &str) -> String {
        let Some(tid) = self.info.stage.staged.filter(|_| self.info.stage.staged_add_on_miss) else {
            return String::new();
        };
        let widths: Vec<u32> = self.p.tables[tid]
            .keys
            .iter()
            .filter_map(|k| self.value_width(k.expr.ty))
            .collect();
        let (_, kl) = native_layout(&widths);
        let kla = kl.max(1).div_ceil(16) * 16;
        // st_fresh = 0: a second add_entry of this packet checks for the key (its miss is used up)
        format!(
            "{ind}R->st_fresh = 0;\n{ind}if (R->st_ents != NULL && R->dp_table == {}u)\n{ind}\tfor (uint32_t _j = 1; _j < R->st_n; _j++)\n{ind}\t\tif (memcmp(R->st_keys + _j * {kla}u, R->dp_key, {kl}u) == 0)\n{ind}\t\t\tR->st_ents[_j] = ST_STALE;\n",
            tid.index()
        )
    }

    /// The `seen` argument of `p4dp_table_dp_add_seen` in an `add_entry`: the burst's insert
    /// generation when the running table is the staged add-on-miss table and this packet's
    /// apply used a staged miss not yet consumed (`st_fresh`), so the runtime may skip its
    /// existence check; NULL otherwise (the runtime checks).
    pub(crate) fn stage_seen(&self) -> String {
        match self.info.stage.staged.filter(|_| self.info.stage.staged_add_on_miss) {
            Some(tid) => format!("(R->dp_table == {}u && R->st_fresh) ? R->st_gen : NULL", tid.index()),
            None => "NULL".to_string(),
        }
    }

    /// The lookup statement of table `tid`'s apply function: sets `e` and `_hit` from `key`.
    /// perf: a table of exact keys looks up with `p4dp_table_apply_exact`, inline through the
    /// runtime's read index (p4dp/xindex.h) when the table has one; an rtc.p4 `@linear` table
    /// with `p4dp_table_apply_linear`, a direct array access (the key is the row).
    pub(crate) fn lookup_code(&self, tid: TableId, key_len: u32) -> String {
        let ti = tid.index();
        let exact = self.p.tables[tid]
            .keys
            .iter()
            .all(|k| k.match_kind == MatchKind::Key(KeyMatch::Exact));
        let apply = if exact && key_len > 0 && key_len <= 4 && self.is_linear(&self.p.tables[tid]) {
            // the key is the row: one load from the table's direct read index
            format!("p4dp_table_apply_linear(R->ctx, {ti}u, key, {key_len}u, &_hit)")
        } else if exact && key_len > 0 {
            format!("p4dp_table_apply_exact(R->ctx, {ti}u, key, {key_len}u, &_hit)")
        } else {
            format!("p4dp_table_apply(R->ctx, {ti}u, key, &_hit)")
        };
        if self.info.stage.staged == Some(tid) {
            // add-on-miss: a staged entry marked stale (an earlier packet of the burst added or
            // found the key, stage_invalidate) is looked up again
            let hit_only = if self.info.stage.staged_add_on_miss {
                "R->st_entry != ST_STALE && "
            } else {
                ""
            };
            // add-on-miss: add_entry may skip its existence check for a staged miss (st_fresh)
            let (fresh, stale) = if self.info.stage.staged_add_on_miss {
                ("\n\t\tR->st_fresh = !_hit;", "\n\t\tR->st_fresh = 0;")
            } else {
                ("", "")
            };
            format!(
                "\tint _hit = 0;\n\tconst struct p4dp_entry *e;\n\tif (R->st_key != NULL && {hit_only}memcmp(R->st_key, key, {key_len}u) == 0) {{\n\t\t/* staged by process_burst (burst.rs) */\n\t\t_hit = R->st_entry != NULL;\n\t\te = _hit ? R->st_entry : p4dp_table_default(R->ctx, {ti}u);{fresh}\n\t}} else {{\n\t\te = {apply};{stale}\n\t}}\n\tR->st_key = NULL;"
            )
        } else if let Some(j) = self.info.stage.later.iter().position(|t| *t == tid) {
            // a later staged table: the pre-pass's key may differ from this one (an earlier
            // action changed a field of it), then the apply looks up again
            format!(
                "\tint _hit = 0;\n\tconst struct p4dp_entry *e;\n\tif (R->sl_key[{j}] != NULL && memcmp(R->sl_key[{j}], key, {key_len}u) == 0) {{\n\t\t/* staged by process_burst (burst.rs, a later staged table) */\n\t\t_hit = R->sl_ent[{j}] != NULL;\n\t\te = _hit ? R->sl_ent[{j}] : p4dp_table_default(R->ctx, {ti}u);\n\t}} else {{\n\t\te = {apply};\n\t}}\n\tR->sl_key[{j}] = NULL;"
            )
        } else {
            format!("\tint _hit = 0;\n\tconst struct p4dp_entry *e = {apply};")
        }
    }

    /// The statements of `process_staged` that take its `sl` argument (one packet's lookups of
    /// the later staged tables, or NULL) into the packet's state.
    pub(crate) fn stage_later_init(&self) -> String {
        let nl = self.info.stage.later.len();
        if nl == 0 {
            return "\t(void)sl;\n".to_string();
        }
        let mut o = String::from("\tif (sl != NULL) {\n");
        for j in 0..nl {
            let _ = writeln!(
                o,
                "\t\tR->sl_key[{j}] = sl->key[{j}];\n\t\tR->sl_ent[{j}] = sl->ent[{j}];"
            );
        }
        o.push_str("\t}\n");
        o
    }

    /// `process_burst` and `process_mbufs` of a program with staged table `tid`. `pass1` is one
    /// packet's pre-pass (it has `ctx`, `pkt` and `ts_us`, writes the key to `out` and the later
    /// staged tables' keys to `outL<j>` when `onL<j>`), `decl` the staged arrays' declarations,
    /// `kl` the key length, `gen` a statement run just before the bulk lookup (empty if none),
    /// `later` the later staged tables, `call` the rest of packet `@P@`'s pipeline given its
    /// index `i` in a chunk of `@M@` packets, the keys `@K@`, the entries `@E@`, the insert
    /// generation `@G@` and the later tables' lookups `@L@`.
    /// perf: the pre-pass keeps only the keys; the pipeline parses the packet again (the parser is
    /// pure, `StagePlan::batch_parse`) with its state in registers, which is cheaper than keeping a
    /// burst of parsed states in memory. `process_mbufs` runs the pipeline through
    /// `p4dp_mbufs_run` (p4dp/mbuf.h), as programs without a staged table do.
    #[allow(clippy::too_many_arguments)]
    fn staged_entries(
        pass1: &str,
        decl: &str,
        kl: u32,
        tid: TableId,
        gen: &str,
        later: &[Later],
        call: &str,
        aom: bool,
    ) -> String {
        let ti = tid.index();
        let kla = kl.max(1).div_ceil(16) * 16;
        let mut lookup = format!("{gen}\t\tp4dp_table_lookup_bulk(ctx->tables[{ti}u], kp, m, ents);\n\t\t/* perf: the entries' cache misses overlap here instead of one per packet in its action */\n\t\tfor (uint32_t i = 0; i < m; i++)\n\t\t\tif (ents[i] != NULL)\n\t\t\t\t__builtin_prefetch(ents[i]);\n");
        if aom {
            // perf: the misses' inserts (add_entry in their actions) find the lines they read
            // first in the cache instead of each waiting for them in turn
            let _ = writeln!(
                lookup,
                "\t\tp4dp_table_prefetch_inserts(ctx->tables[{ti}u], kp, m, ents);"
            );
        }
        // the later staged tables: declarations, whether each is staged in this chunk, the
        // pre-pass's arguments, their bulk lookups and each packet's struct st_later
        let mut ldecl = String::new();
        let mut lon = String::new();
        let mut lparams = String::new();
        let mut largs = String::new();
        let mut lkp = String::new();
        let mut lzero = String::new();
        let mut lsl = String::new();
        for (j, l) in later.iter().enumerate() {
            let (lt, lkla) = (l.tid.index(), l.kl.max(1).div_ceil(16) * 16);
            let _ = write!(ldecl, "\tuint8_t keysL{j}[{STAGE_MAX}][{lkla}] __attribute__((aligned(16)));\n\tconst void *kpL{j}[{STAGE_MAX}];\n\tconst struct p4dp_entry *entsL{j}[{STAGE_MAX}];\n");
            let _ = writeln!(
                lon,
                "\t\tconst int onL{j} = p4dp_table_stage_ahead(ctx->tables[{lt}u]);"
            );
            let _ = write!(lparams, ", uint8_t *outL{j}, int onL{j}");
            let _ = write!(largs, ", keysL{j}[i], onL{j}");
            let _ = writeln!(lkp, "\t\t\tkpL{j}[i] = keysL{j}[i];");
            let _ = write!(
                lzero,
                "\t\t\t\tif (onL{j})\n\t\t\t\t\tmemset(keysL{j}[i], 0, {lkla}u);\n"
            );
            let _ = write!(lookup, "\t\tif (onL{j}) {{\n\t\t\tp4dp_table_lookup_bulk(ctx->tables[{lt}u], kpL{j}, m, entsL{j});\n\t\t\tfor (uint32_t i = 0; i < m; i++)\n\t\t\t\tif (entsL{j}[i] != NULL)\n\t\t\t\t\t__builtin_prefetch(entsL{j}[i]);\n\t\t}}\n");
            let _ = write!(lsl, "\t\t\tsls[i].key[{j}] = onL{j} ? keysL{j}[i] : NULL;\n\t\t\tsls[i].ent[{j}] = onL{j} ? entsL{j}[i] : NULL;\n");
        }
        if !later.is_empty() {
            // perf: a chunk that stages none of them passes no struct st_later at all
            let any: Vec<String> = (0..later.len()).map(|j| format!("onL{j}")).collect();
            let _ = writeln!(lon, "\t\tconst int onL = {};", any.join(" | "));
            let _ = writeln!(ldecl, "\tstruct st_later sls[{STAGE_MAX}];");
            let _ = write!(
                lookup,
                "\t\tif (onL)\n\t\t\tfor (uint32_t i = 0; i < m; i++) {{\n{}\t\t\t}}\n",
                lsl.replace("\t\t\tsls", "\t\t\t\tsls")
            );
        }
        let genv = if aom { "\tuint64_t st_gen;\n" } else { "" };
        let head = format!("{decl}{ldecl}{genv}\t/* perf: the burst's time (ctx->now_ns is per burst) converted once */\n\tconst uint64_t ts_us = ctx->now_ns / 1000u;\n\t(void)ts_us;\n");
        let call_with = |vals: [&str; 6]| {
            ["@P@", "@K@", "@M@", "@E@", "@G@", "@L@"]
                .iter()
                .zip(vals)
                .fold(call.to_string(), |c, (k, v)| c.replace(k, v))
        };
        // perf: with later tables, each chunk runs one of two copies of its loops: one staging
        // them, one (no later table staged in the chunk) where the C compiler drops their keys and
        // their checks at the applies, so small later tables cost nothing
        let nol: String = (0..later.len()).map(|_| ", NULL, 0").collect();
        let versions = |on: &str, off: &str| -> String {
            if later.is_empty() {
                on.to_string()
            } else {
                format!("\t\tif (onL) {{\n{}\t\t}} else {{\n{}\t\t}}\n", indent(on), indent(off))
            }
        };
        // one packet's pre-pass, shared by both entries
        let mut o = format!("/* The staged tables' keys of packet pkt: a parse for the keys only (the C compiler drops the\n * rest). */\nstatic inline __attribute__((always_inline)) void stage_key_of(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, uint64_t ts_us, uint8_t *out{lparams})\n{{\n\t(void)ts_us;\n{pass1}}}\n\n");
        // process_burst
        let keys_loop = |args: &str, kpl: &str| {
            format!("\t\tfor (uint32_t i = 0; i < m; i++) {{\n\t\t\tstage_key_of(ctx, pkts[b + i], ts_us, keys[i]{args});\n\t\t\tkp[i] = keys[i];\n{kpl}\t\t}}\n")
        };
        let kl_burst = versions(&keys_loop(&largs, &lkp), &keys_loop(&nol, ""));
        let _ = write!(o, "static void process_burst(struct p4dp_ctx *ctx, struct p4dp_pkt **pkts, uint32_t n)\n{{\n{head}\tfor (uint32_t b = 0; b < n; b += {STAGE_MAX}u) {{\n\t\tuint32_t m = n - b < {STAGE_MAX}u ? n - b : {STAGE_MAX}u;\n{lon}{kl_burst}{lookup}");
        let run = |sl: &str| {
            let c = call_with([
                "pkts[b + i]",
                "keys",
                "m",
                "ents",
                if aom { "&st_gen" } else { "NULL" },
                sl,
            ]);
            format!("\t\tfor (uint32_t i = 0; i < m; i++)\n\t\t\t{c};\n")
        };
        let staged_run = run(if later.is_empty() { "NULL" } else { "&sls[i]" });
        let _ = write!(o, "{}\t}}\n}}\n", versions(&staged_run, &run("NULL")));
        // process_mbufs
        let one = |name: &str, sl: &str| {
            let c = call_with(["pk", "a->keys", "a->m", "a->ents", "a->gen", sl]);
            format!("static inline __attribute__((always_inline)) void {name}(struct p4dp_ctx *ctx, struct p4dp_pkt *pk, uint32_t i, void *arg)\n{{\n\tstruct stage_arg *a = arg;\n\t(void)a->gen;\n\t(void)a->sl;\n\t{c};\n}}\n\n")
        };
        let ones = if later.is_empty() {
            one("process_one", "NULL")
        } else {
            format!(
                "{}{}",
                one("process_one", "&a->sl[i]"),
                one("process_one_unstaged", "NULL")
            )
        };
        let _ = write!(o, "\n#ifdef P4DP_DPDK\n#include \"p4dp/mbuf.h\"\n\n/* process_mbufs' chunk: the staged keys, entries, insert generation and later tables' lookups */\nstruct stage_arg {{\n\tuint8_t (*keys)[{kla}];\n\tconst struct p4dp_entry **ents;\n\tuint32_t m;\n\tuint64_t *gen;\n\tconst struct st_later *sl;\n}};\n\n{ones}");
        let keys_loop = |args: &str, kpl: &str, zero: &str| {
            format!("\t\tfor (uint32_t i = 0; i < m; i++) {{\n\t\t\tkp[i] = keys[i];\n{kpl}\t\t\tif (__builtin_expect(mb[b + i]->nb_segs != 1, 0)) {{\n\t\t\t\tmemset(keys[i], 0, {kla}u);\n{zero}\t\t\t\tcontinue;\n\t\t\t}}\n\t\t\tstruct p4dp_pkt pk0 = p4dp_mbuf_view(mb[b + i], in_port);\n\t\t\tstage_key_of(ctx, &pk0, ts_us, keys[i]{args});\n\t\t}}\n")
        };
        let kl_mbufs = versions(&keys_loop(&largs, &lkp, &lzero), &keys_loop(&nol, "", ""));
        let _ = write!(o, "/* The runtime's receive path (abi.h, process_mbufs): per chunk of the burst, the keys, one bulk\n * lookup per staged table, then each packet's pipeline in p4dp_mbufs_run's loop. A multi-segment mbuf\n * gets zero keys (their lookups are not used: p4dp_mbufs_run skips it). */\nstatic uint32_t process_mbufs(struct p4dp_ctx *ctx, struct rte_mbuf **mb, uint32_t n, uint32_t in_port, uint32_t *out,\n\t\t\t      struct p4dp_mbufs_sum *sum)\n{{\n{head}\tuint32_t one = P4DP_OUT_ERROR;\n\tsum->rx_bytes = 0;\n\tsum->tx_bytes = 0;\n\tfor (uint32_t b = 0; b < n; b += {STAGE_MAX}u) {{\n\t\tuint32_t m = n - b < {STAGE_MAX}u ? n - b : {STAGE_MAX}u;\n{lon}{kl_mbufs}{lookup}");
        let g = if aom { "&st_gen" } else { "NULL" };
        let sla = if later.is_empty() { "NULL" } else { "sls" };
        let runm = if later.is_empty() {
            "\t\tconst uint32_t r = p4dp_mbufs_run(ctx, mb + b, m, in_port, out + b, &s, process_one, &a);\n"
                .to_string()
        } else {
            "\t\tconst uint32_t r = onL ? p4dp_mbufs_run(ctx, mb + b, m, in_port, out + b, &s, process_one, &a)\n\t\t\t\t       : p4dp_mbufs_run(ctx, mb + b, m, in_port, out + b, &s, process_one_unstaged, &a);\n".to_string()
        };
        let _ = write!(o, "\t\tstruct stage_arg a = {{ keys, ents, m, {g}, {sla} }};\n\t\tstruct p4dp_mbufs_sum s;\n{runm}\t\tsum->rx_bytes += s.rx_bytes;\n\t\tsum->tx_bytes += s.tx_bytes;\n\t\tone = b == 0 || r == one ? r : P4DP_OUT_ERROR;\n\t}}\n\treturn one;\n}}\n#define P4DP_PROCESS_MBUFS process_mbufs\n#else\n#define P4DP_PROCESS_MBUFS NULL\n#endif\n");
        o
    }

    /// The end of one packet's pre-pass: `keyc` (key_code) builds its key into `out`, then (keys
    /// of at most 8 bytes) prefetches what table `tid`'s lookup of it reads first.
    /// perf: `p4dp_table_prefetch` (abi.h) issues the key's first-level slot (lpm) or bucket
    /// (exact read index) as soon as the key is known, so those misses overlap the pass's wait for
    /// the later packets' data and each other; the bulk lookup after the pass then finds them in
    /// the cache (an lpm table of 1M prefixes: a random slot of a 128 MiB array per packet).
    fn stage_key(keyc: &str, kl: u32, tid: TableId) -> String {
        let mut o = String::from("\t{\n");
        for l in keyc.lines() {
            let _ = writeln!(o, "\t{l}");
        }
        let _ = writeln!(o, "\t\tmemcpy(out, key, {kl}u);");
        if (1..=8).contains(&kl) {
            let _ = writeln!(o, "\t\tp4dp_table_prefetch(ctx, {}u, out, {kl}u);", tid.index());
        }
        o.push_str("\t}\n");
        o
    }

    /// The pre-pass's part for later staged table `l` (the `j`th): when it is staged in this chunk
    /// (`onL<j>`), its key into `outL<j>`, prefetched as [`Gen::stage_key`] does.
    fn stage_key_later(j: usize, l: &Later) -> String {
        let mut o = format!("\tif (onL{j}) {{\n");
        for x in l.keyc.lines() {
            let _ = writeln!(o, "\t{x}");
        }
        let _ = writeln!(o, "\t\tmemcpy(outL{j}, key, {}u);", l.kl);
        if (1..=8).contains(&l.kl) {
            let _ = writeln!(
                o,
                "\t\tp4dp_table_prefetch(ctx, {}u, outL{j}, {}u);",
                l.tid.index(),
                l.kl
            );
        }
        o.push_str("\t}\n");
        o
    }

    /// The later staged tables of control `ig` (`StagePlan::later`) with their key code.
    fn stage_later(&mut self, ig: ControlId) -> R<Vec<Later>> {
        self.owner = Owner::Control(ig);
        let mut v = Vec::new();
        for &tid in &self.info.stage.later.clone() {
            let keys = self.match_keys(tid);
            let (keyc, kl) = self.key_code(&keys)?;
            v.push(Later { tid, kl, keyc });
        }
        Ok(v)
    }

    /// The pre-pass's bindings of control `c`'s parameters to packet i's state `lvs` (in parameter
    /// order), so its staged table's key can be built: as the glue binds them (glue_call), a
    /// pointer per top-level parameter not reached through `R->vs`.
    fn stage_bind(&self, c: ControlId, lvs: &[&str]) -> String {
        let o = Owner::Control(c);
        let fr = self.frame(o);
        let mut s = String::new();
        for (v, x) in self.p.controls[c].params.iter().zip(lvs) {
            if self.is_top_param(o, *v) && !self.info.top_params.contains_key(&(o, *v)) {
                let _ = writeln!(s, "\tR->{}.{} = &{x};", fr.field, fr.vars[v.index()]);
            }
        }
        s
    }

    /// The declarations of the staged keys and entries, and the code building table `tid`'s key
    /// in control `ig` (key_code) with its length.
    fn stage_decl(&mut self, ig: ControlId, tid: TableId) -> R<(String, String, u32)> {
        self.owner = Owner::Control(ig);
        let keys = self.match_keys(tid);
        let (keyc, kl) = self.key_code(&keys)?;
        let kla = kl.max(1).div_ceil(16) * 16;
        let decl = format!("\tuint8_t keys[{STAGE_MAX}][{kla}] __attribute__((aligned(16)));\n\tconst void *kp[{STAGE_MAX}];\n\tconst struct p4dp_entry *ents[{STAGE_MAX}];\n");
        Ok((decl, keyc, kl))
    }

    /// `process_burst` and `process_mbufs` for PNA programs: if `p4dp_ir::analysis::staging` found a table
    /// to stage (the MainParser is then pure, `StagePlan::batch_parse`), parse each packet for the key
    /// of MainControl's first table (`pna_parse`, pna.rs), stage its lookups, then run each
    /// packet's pipeline in order (`process_staged`, [`Gen::staged_entries`]); otherwise
    /// [`Gen::one_by_one`]. For an `add_on_miss` table, an insert marks the later staged lookups of
    /// the same key stale (`stage_invalidate`), so a key one packet adds is found by the next
    /// packet of the same burst ("never miss twice").
    fn emit_burst_pna(&mut self, pkg: &Package) -> R<Option<String>> {
        let p = self.p;
        let BlockRef::Control(mc) = pkg.blocks[2].1 else {
            return Ok(None);
        };
        let Some(tid) = self.info.stage.staged else {
            return Ok(Some(self.one_by_one(true)));
        };
        let mut o = String::new();
        let _ = writeln!(o, "/* Bursts (burst.rs): build the keys of table {} (a pre-pass parses each packet for its key\n * only), one bulk lookup, then each packet's pipeline (parsing it again), reusing the entries. */", p.tables[tid].fq_name);
        let (decl, keyc, kl) = self.stage_decl(mc, tid)?;
        let mut pass1 = String::from("\tstruct gst G;\n\tstruct gst *R = &G;\n\tR->ctx = ctx;\n\tR->pkt = pkt;\n\tstruct pnast S1 = (struct pnast){};\n\tpna_parse(R, &S1);\n");
        pass1.push_str(&self.stage_bind(mc, &["S1.mh", "S1.mm", "S1.mi", "S1.mo"]));
        pass1.push_str(&Self::stage_key(&keyc, kl, tid));
        let later = self.stage_later(mc)?;
        for (j, l) in later.iter().enumerate() {
            pass1.push_str(&Self::stage_key_later(j, l));
        }
        // add-on-miss: the insert generation before the lookup lets add_entry skip its
        // existence check for a staged miss (p4dp_table_dp_add_seen)
        let aom = self.info.stage.staged_add_on_miss;
        let gen = if aom {
            format!("\t\tst_gen = p4dp_table_dp_gen(ctx, {}u);\n", tid.index())
        } else {
            String::new()
        };
        o.push_str(&Self::staged_entries(
            &pass1,
            &decl,
            kl,
            tid,
            &gen,
            &later,
            "process_staged(ctx, @P@, @K@[i], @E@ + i, @M@ - i, @G@, @L@)",
            aom,
        ));
        self.has_mbufs = true;
        Ok(Some(o))
    }

    /// `process_burst` and `process_mbufs` (abi.h) for v1model programs: with a staged table
    /// (`p4dp_ir::analysis::staging`, which implies `StagePlan::batch_parse`), parse (and verify) each packet
    /// for the table's key, stage the lookups in one bulk lookup, then run every packet's pipeline
    /// in order ([`Gen::staged_entries`]); otherwise [`Gen::one_by_one`]. Needs the glue's
    /// `struct v1st`, `v1_parse`, `process_staged`. None for other architectures.
    pub(crate) fn emit_burst(&mut self) -> R<Option<String>> {
        let p = self.p;
        let Some(pkg) = p.package.as_ref() else { return Ok(None) };
        if pkg.arch == "pna" && pkg.blocks.len() == 4 {
            return self.emit_burst_pna(pkg);
        }
        if pkg.arch != "v1model" || pkg.blocks.len() != 6 {
            return Ok(None);
        }
        let (BlockRef::Parser(prs), BlockRef::Control(ig)) = (pkg.blocks[0].1, pkg.blocks[2].1) else {
            return Ok(None);
        };
        let Some(tid) = self.info.stage.staged else {
            return Ok(Some(self.one_by_one(false)));
        };
        let mut o = String::new();
        let pr = &p.parsers[prs];
        let st = pr.vars[pr.params[3]].ty;
        let _ = writeln!(o, "/* Bursts (burst.rs): build the keys of table {} (a pre-pass parses each packet for its key\n * only), one bulk lookup, then each packet's pipeline (parsing it again), reusing the entries. */", p.tables[tid].fq_name);
        let (decl, keyc, kl) = self.stage_decl(ig, tid)?;
        // the parser and VerifyChecksum (pure, see StagePlan::batch_parse) read no gst flag v1_parse does not
        // set, except `drop` when the program has assert
        let mut pass1 = String::from("\tstruct gst G;\n\tstruct gst *R = &G;\n\tR->ctx = ctx;\n\tR->pkt = pkt;\n");
        if self.info.features.assert {
            pass1.push_str("\tR->drop = 0;\n");
        }
        pass1.push_str("\tstruct v1st S1 = (struct v1st){};\n");
        // standard metadata of a first pass, as process_staged sets it (a key may read it)
        let sfields: Vec<(String, String, u32)> = match p.types.get(st) {
            Type::Struct(s) => s
                .fields
                .iter()
                .map(|f| {
                    (
                        f.name.clone(),
                        format!("f_{}", crate::namer::sanitize(&f.name)),
                        self.scalar(f.ty).map(|x| x.w).unwrap_or(32),
                    )
                })
                .collect(),
            _ => {
                return unsupported_as(
                    UnsupportedKind::Architecture,
                    pr.span,
                    "standard_metadata is not a struct",
                )
            }
        };
        for (name, val) in [
            ("ingress_port", "pkt->in_port"),
            ("packet_length", "pkt->len"),
            ("ingress_global_timestamp", "ts_us"),
            ("instance_type", "0"),
        ] {
            if let Some((_, c, w)) = sfields.iter().find(|(n, _, _)| n == name) {
                let _ = writeln!(
                    pass1,
                    "\tS1.sm.{c} = ({})(({})({val}) & {});",
                    crate::ctype::storage(*w),
                    crate::ctype::opty(*w),
                    crate::ctype::mask_lit(*w)
                );
            }
        }
        pass1.push_str("\tv1_parse(R, &S1);\n\tR->vs = &S1;\n");
        pass1.push_str(&self.stage_bind(ig, &["S1.hdr", "S1.meta", "S1.sm"]));
        pass1.push_str(&Self::stage_key(&keyc, kl, tid));
        let later = self.stage_later(ig)?;
        for (j, l) in later.iter().enumerate() {
            pass1.push_str(&Self::stage_key_later(j, l));
        }
        o.push_str(&Self::staged_entries(
            &pass1,
            &decl,
            kl,
            tid,
            "",
            &later,
            "process_staged(ctx, @P@, @K@[i], @E@[i], @L@)",
            false,
        ));
        self.has_mbufs = true;
        Ok(Some(o))
    }
}

//! p4dp-cgen: the back end. Translates a validated IR program ([`ValidProgram`]) into one C
//! translation unit implementing `runtime/include/p4dp/abi.h`, and into P4Info text.
//!
//! The generated C is thin: it translates, it does not transform. Layout of the output:
//! 1. includes (`p4dp/abi.h`, `p4dp/prim.h`), type definitions ([`ctype`]);
//! 2. `struct gst`: the per-packet state (parser cursor, emit cursor, flags) and one *frame* per
//!    owner (control instance, parser instance, function) holding all of its variables;
//! 3. prototypes, then the functions of every control ([`stmt`], [`expr`], [`externs`]), parser
//!    ([`parser`]), table ([`tables`]) and action;
//! 4. the architecture glue (`process`, [`glue`]) and the metadata (`p4dp_program`, [`tables`]).
//!
//! Every action/control/function returns `int`: 0, or 1 when P4 `exit` ran (propagated to the
//! top-level block after copy-out). Parsers return 0 (accept) or 1 (reject, error in `R->perr`).
//!
//! # Error codes
//!
//! What the back end cannot translate ([`capability_check`], which `p4dp check` and `p4dp build`
//! both run) is reported with the code of its kind ([`UnsupportedKind`]):
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0501 | an architecture other than v1model and pna, or a package or block whose signature is not the architecture's |
//! | E0502 | a call of an extern function the back end does not implement (a program's own `extern` functions, rtc.p4's `lastRowIndex`, ...) |
//! | E0503 | a method the back end does not implement for its extern object |
//! | E0504 | an operation on a value wider than 128 bits other than copy, `==`, `!=`, slices, concatenation, extract/emit and table keys |
//! | E0505 | a value of a type the back end cannot hold where it is: a non-scalar table key, action parameter, register cell or `@__ref` parameter, an extern object as a value, a value over 1 MiB |
//! | E0506 | a table the back end cannot build: a match kind, an implementation combined with entries, direct resources or data-plane writes, an entry priority outside the runtime's 32 bits, an entry keyset |
//! | E0507 | any other statement or expression form (`return` in a parser, ...) |

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use p4dp_ir::analysis::ProgramInfo;
use p4dp_ir::*;

pub(crate) use p4dp_ir::analysis::Owner;

mod actprof;
mod burst;
mod ctype;
mod dpwrite;
mod elide;
mod expr;
mod externs;
mod fastio;
mod glue;
pub mod ids;
pub mod namer;
mod p4info;
mod parser;
mod pna;
mod rtc;
mod stmt;
mod tables;
#[cfg(test)]
mod tests;

pub use ids::{assign_ids, Ids};
pub use p4info::generate_p4info;

/// Errors of the back end.
#[derive(Debug, thiserror::Error)]
pub enum CgenError {
    /// The program uses a construct the back end does not support.
    #[error("unsupported: {message} (at file {}, bytes {}..{})", span.file, span.lo, span.hi)]
    Unsupported {
        kind: UnsupportedKind,
        message: String,
        span: Span,
    },
    /// gcc failed; its stderr.
    #[error("gcc failed:\n{stderr}")]
    Compile { stderr: String },
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// The kinds of construct the back end cannot translate, each with its diagnostic code (the
/// crate doc's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnsupportedKind {
    /// The architecture, or a package or block whose signature is not the architecture's.
    Architecture,
    /// An extern function the back end does not implement.
    ExternFunction,
    /// A method the back end does not implement for its extern object.
    ExternMethod,
    /// An operation on a value wider than 128 bits that only narrower values have.
    WideValue,
    /// A value of a type the back end cannot hold where it is.
    Type,
    /// A match kind, table property combination or table entry the back end cannot build.
    Table,
    /// Any other statement or expression form.
    Construct,
}

impl UnsupportedKind {
    /// The diagnostic code.
    pub fn code(self) -> &'static str {
        match self {
            UnsupportedKind::Architecture => "E0501",
            UnsupportedKind::ExternFunction => "E0502",
            UnsupportedKind::ExternMethod => "E0503",
            UnsupportedKind::WideValue => "E0504",
            UnsupportedKind::Type => "E0505",
            UnsupportedKind::Table => "E0506",
            UnsupportedKind::Construct => "E0507",
        }
    }
}

/// A construct of the program the back end cannot translate (see [`capability_check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub kind: UnsupportedKind,
    pub message: String,
    /// Where it is; `Span::default()` when it is the program as a whole (e.g. its package).
    pub span: Span,
}

impl Unsupported {
    /// The diagnostic `p4dp check` and `p4dp build` report: the kind's code, at the construct's
    /// source location (none for the program as a whole).
    pub fn diagnostic(&self) -> p4dp_syntax::Diagnostic {
        let msg = format!("not supported by the p4dp back end: {}", self.message);
        let code = self.kind.code();
        if self.span == Span::default() {
            p4dp_syntax::Diagnostic::error_nospan(code, msg)
        } else {
            let sp = p4dp_syntax::Span::new(p4dp_syntax::FileId(self.span.file), self.span.lo, self.span.hi);
            p4dp_syntax::Diagnostic::error(code, msg, sp, "not supported")
        }
    }
}

pub(crate) type R<T> = Result<T, CgenError>;

/// A statement or expression form the back end cannot translate ([`UnsupportedKind::Construct`]).
pub(crate) fn unsupported<T>(span: Span, message: impl Into<String>) -> R<T> {
    unsupported_as(UnsupportedKind::Construct, span, message)
}

/// A construct of kind `kind` the back end cannot translate.
pub(crate) fn unsupported_as<T>(kind: UnsupportedKind, span: Span, message: impl Into<String>) -> R<T> {
    Err(CgenError::Unsupported {
        kind,
        message: message.into(),
        span,
    })
}

/// Options of [`generate_c`].
#[derive(Debug, Clone)]
pub struct CgenOptions {
    /// `p4dp_program.name` (usually the source file stem).
    pub program_name: String,
    /// Upper bound of parser state transitions per packet (then `error.ParserTimeout`).
    pub parser_step_limit: u32,
}

impl Default for CgenOptions {
    fn default() -> Self {
        CgenOptions {
            program_name: "prog".into(),
            parser_step_limit: 10_000,
        }
    }
}

/// The frame of one owner: its struct type, its member in `struct gst`, its variables' names.
#[derive(Debug, Clone, Default)]
pub(crate) struct Frame {
    pub ty: String,
    pub field: String,
    pub vars: Vec<String>,
    /// The C function implementing the owner (apply / parse / call).
    pub func: String,
}

pub(crate) struct Gen<'a> {
    pub p: &'a Program,
    /// The analyses' facts about `p` (p4dp_ir::analysis).
    pub info: &'a ProgramInfo,
    pub opts: &'a CgenOptions,
    pub ids: Ids,
    pub namer: namer::Namer,
    /// Type definitions, in dependency order.
    pub types_out: String,
    pub type_names: HashMap<TypeId, String>,
    /// The size in bytes of each type in `type_names` (saturating; see [`ctype::MAX_VALUE_BYTES`]).
    pub type_bytes: HashMap<TypeId, u64>,
    pub wide_names: HashMap<u32, String>,
    pub eq_names: HashMap<TypeId, String>,
    pub helpers_out: String,
    pub protos: String,
    pub funcs: String,
    pub ctl_frames: Vec<Frame>,
    pub parser_frames: Vec<Frame>,
    pub fn_frames: Vec<Frame>,
    pub act_fns: Vec<String>,
    pub tbl_fns: Vec<String>,
    /// ABI action array: one entry per distinct action fq_name; `abi_action[ActionId]` = index.
    pub abi_actions: Vec<ActionId>,
    pub abi_action_of: Vec<u32>,
    /// Index of each digest type in `p4dp_program.externs` (after the IR externs).
    pub digest_ext: HashMap<TypeId, u32>,
    /// `@__ref` pointer typedefs by C value type.
    pub ref_types: HashMap<String, String>,
    /// The owner whose body is being emitted.
    pub owner: Owner,
    /// In a parser: the label rejecting the current parser.
    pub reject_label: Option<String>,
    pub tmp: u32,
    /// While an rtc.p4 Foreach loop body is emitted: how many `for` loops of the body enclose the
    /// statement (a `break;`/`continue;` outside all of them ends the Foreach loop; rtc.rs).
    pub(crate) foreach_body: Option<u32>,
    /// Emitting an action's body (which may run as a table's action under its `@entry_lock`):
    /// no yield points there (rtc.rs).
    pub(crate) in_action: bool,
    /// Whether the glue got a `process_burst` (burst.rs).
    pub has_burst: bool,
    /// Whether the glue got a `process_mbufs` (burst.rs; defined only under `P4DP_DPDK`).
    pub has_mbufs: bool,
    /// v1model: the definition of `struct v1st` (glue.rs), emitted before the blocks.
    pub(crate) v1st_def: String,
    /// While an emit is generated: (C lvalue, `R->xo` slot) of the read-only headers it may skip.
    pub(crate) emit_elide: Vec<(String, usize)>,
    /// The constructs the translation could not translate so far; it goes on with the next
    /// statement or block, so one run finds all of them ([`capability_check`]).
    pub(crate) skipped: Vec<Unsupported>,
}

impl<'a> Gen<'a> {
    pub fn vars(&self, o: Owner) -> &'a Arena<Var> {
        match o {
            Owner::Control(c) => &self.p.controls[c].vars,
            Owner::Parser(x) => &self.p.parsers[x].vars,
            Owner::Function(f) => &self.p.functions[f].vars,
        }
    }
    pub fn frame(&self, o: Owner) -> &Frame {
        match o {
            Owner::Control(c) => &self.ctl_frames[c.index()],
            Owner::Parser(x) => &self.parser_frames[x.index()],
            Owner::Function(f) => &self.fn_frames[f.index()],
        }
    }
    /// The C lvalue of variable `v` of owner `o`. An `@__ref` action parameter is a pointer
    /// into the entry's action data (set by the table before the action runs): `(*R->f.v)`.
    pub fn var_ref(&self, o: Owner, v: VarId) -> String {
        let f = self.frame(o);
        if let Some(tp) = self.info.top_params.get(&(o, v)) {
            format!("(R->vs->{})", tp.member())
        } else if self.is_ref_var(o, v) || self.is_top_param(o, v) {
            format!("(*R->{}.{})", f.field, f.vars[v.index()])
        } else {
            format!("R->{}.{}", f.field, f.vars[v.index()])
        }
    }
    /// Whether `v` is a (non-extern) parameter of a top-level block of the package: its frame
    /// member is a pointer to the architecture glue's storage (no copy-in/copy-out: the glue's
    /// arguments are distinct objects nothing else references while the block runs).
    pub fn is_top_param(&self, o: Owner, v: VarId) -> bool {
        p4dp_ir::analysis::is_top_param(self.p, o, v)
    }
    /// The C function specifiers of owner `o`'s apply/parse function. perf: every control's apply
    /// (like every table's and action's, tables.rs and stmt.rs) is forced inline, so the whole
    /// pipeline is inlined into the per-packet code and the packet's state stays in registers
    /// (ARCHITECTURE.md, "Per-packet state lives in registers": one call that is not inlined and
    /// takes `R` puts all of it in memory; benches/l3_exact.p4 with a hot table: ~145 -> ~92 TSC
    /// cycles/pkt). The package's parser is forced inline too; P4 functions and sub-parsers are left
    /// to the compiler.
    pub(crate) fn inline_block(&self, o: Owner) -> &'static str {
        const ALWAYS: &str = "inline __attribute__((always_inline)) ";
        let Some(pkg) = self.p.package.as_ref() else { return "" };
        match o {
            Owner::Control(_) => ALWAYS,
            // the package's parser (v1model's Parser, PNA's MainParser): called from one place
            Owner::Parser(x) if matches!(pkg.blocks.first(), Some((_, BlockRef::Parser(y))) if x == *y) => ALWAYS,
            _ => "",
        }
    }
    /// Whether `v` of `o` is an `@__ref` (directionless) action parameter.
    pub fn is_ref_var(&self, o: Owner, v: VarId) -> bool {
        self.vars(o)[v].entry_ref
    }
    /// The frame member holding an `@__ref` parameter's value when there is no entry to point
    /// to (the defensive no-default path of a table).
    pub fn ref_scratch(&self, o: Owner, v: VarId) -> String {
        let f = self.frame(o);
        let n = &f.vars[v.index()];
        format!("R->{}.s{}", f.field, n.strip_prefix('v').unwrap_or(n))
    }
    /// Records an [`Unsupported`] error of a statement or block and lets the translation go on
    /// with the next one; any other error is returned.
    pub(crate) fn skip(&mut self, r: R<()>) -> R<()> {
        match r {
            Err(CgenError::Unsupported { kind, message, span }) => {
                self.skipped.push(Unsupported { kind, message, span });
                Ok(())
            }
            r => r,
        }
    }

    pub fn fresh_tmp(&mut self) -> String {
        self.tmp += 1;
        format!("_t{}", self.tmp)
    }

    fn new(p: &'a Program, info: &'a ProgramInfo, opts: &'a CgenOptions) -> Self {
        Gen {
            p,
            info,
            opts,
            ids: assign_ids(p),
            namer: namer::Namer::new(),
            types_out: String::new(),
            type_names: HashMap::new(),
            type_bytes: HashMap::new(),
            wide_names: HashMap::new(),
            eq_names: HashMap::new(),
            helpers_out: String::new(),
            protos: String::new(),
            funcs: String::new(),
            ctl_frames: Vec::new(),
            parser_frames: Vec::new(),
            fn_frames: Vec::new(),
            act_fns: Vec::new(),
            tbl_fns: Vec::new(),
            abi_actions: Vec::new(),
            abi_action_of: Vec::new(),
            digest_ext: HashMap::new(),
            ref_types: HashMap::new(),
            owner: Owner::Control(Id::new(0)),
            reject_label: None,
            tmp: 0,
            foreach_body: None,
            in_action: false,
            has_burst: false,
            has_mbufs: false,
            v1st_def: String::new(),
            emit_elide: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Name every owner's frame and function, every action and table function.
    fn plan(&mut self) -> R<()> {
        // frames
        let p = self.p;
        for (_, c) in p.controls.iter() {
            let f = self.plan_frame("ctl_", &c.path, &c.vars, None)?;
            self.ctl_frames.push(f);
        }
        for (_, x) in p.parsers.iter() {
            let f = self.plan_frame("prs_", &x.path, &x.vars, None)?;
            self.parser_frames.push(f);
        }
        for (_, x) in p.functions.iter() {
            let ret = if matches!(p.types.get(x.ret), Type::Void) {
                None
            } else {
                Some("ret".to_string())
            };
            let f = self.plan_frame("fn_", &x.name, &x.vars, ret)?;
            self.fn_frames.push(f);
        }
        for (_, a) in p.actions.iter() {
            let n = self.namer.fresh("act_", &a.fq_name);
            self.act_fns.push(n);
        }
        for (_, t) in p.tables.iter() {
            let n = self.namer.fresh("tbl_", &t.fq_name);
            self.tbl_fns.push(n);
        }
        // ABI action array, deduplicated by control-plane name
        let mut by_name: HashMap<&str, u32> = HashMap::new();
        for (id, a) in p.actions.iter() {
            let idx = *by_name.entry(a.fq_name.as_str()).or_insert_with(|| {
                self.abi_actions.push(id);
                (self.abi_actions.len() - 1) as u32
            });
            self.abi_action_of.push(idx);
        }
        let n_ext = p.externs.len() as u32;
        for (i, (t, _, _)) in self.ids.digests.iter().enumerate() {
            self.digest_ext.insert(*t, n_ext + i as u32);
        }
        Ok(())
    }

    fn plan_frame(&mut self, prefix: &str, name: &str, vars: &Arena<Var>, ret: Option<String>) -> R<Frame> {
        let ty = self.namer.fresh("frame_", name);
        let field = self.namer.fresh("f_", name);
        let func = self.namer.fresh(prefix, name);
        let mut local = namer::Namer::new();
        let _ = ret;
        let names = vars.iter().map(|(_, v)| local.fresh("v_", &v.name)).collect();
        Ok(Frame {
            ty,
            field,
            vars: names,
            func,
        })
    }

    /// Emit the frame struct definitions and `struct gst`.
    fn emit_frames(&mut self) -> R<String> {
        let p = self.p;
        let mut out = String::new();
        let mut owners: Vec<Owner> = Vec::new();
        owners.extend(p.controls.ids().map(Owner::Control));
        owners.extend(p.parsers.ids().map(Owner::Parser));
        owners.extend(p.functions.ids().map(Owner::Function));
        for o in &owners {
            let vars = self.vars(*o);
            let mut body = String::new();
            for (id, v) in vars.iter() {
                if matches!(p.types.get(v.ty), Type::Extern { .. }) {
                    continue; // packet_in/packet_out parameters have no storage
                }
                let ct = self.ctype(v.ty, v.span)?;
                if self.is_ref_var(*o, id) {
                    // @__ref: a pointer into the entry's action data, plus a scratch value.
                    let rt = self.ref_type(&ct, v.ty, v.span)?;
                    let name = &self.frame(*o).vars[id.index()];
                    let scratch = format!("s{}", name.strip_prefix('v').unwrap_or(name));
                    let _ = writeln!(body, "\t{rt} *{name}; /* @__ref */\n\t{ct} {scratch};");
                    continue;
                }
                if self.is_top_param(*o, id) {
                    let _ = writeln!(
                        body,
                        "\t{} *{}; /* top-level parameter: the glue's storage */",
                        ct,
                        self.frame(*o).vars[id.index()]
                    );
                    continue;
                }
                let _ = writeln!(body, "\t{} {};", ct, self.frame(*o).vars[id.index()]);
            }
            if let Owner::Function(f) = o {
                let ret = p.functions[*f].ret;
                if !matches!(p.types.get(ret), Type::Void) {
                    let ct = self.ctype(ret, p.functions[*f].span)?;
                    let _ = writeln!(body, "\t{ct} ret;");
                }
            }
            if body.is_empty() {
                body.push_str("\tuint8_t _empty;\n");
            }
            let _ = writeln!(out, "struct {} {{\n{}}};\n", self.frame(*o).ty, body);
        }
        out.push_str(
            "/* Per-packet state: cursors, flags and the frame of every owner. */\n\
             struct v1st;\n\
             struct gst {\n\
             \tstruct p4dp_ctx *ctx;\n\
             \tstruct p4dp_pkt *pkt;\n\
             \tstruct v1st *vs;     /* v1model: the state the running top-level block works on */\n\
             \t/* zeroed by gst_init (one store each: see there) */\n\
             \tuint32_t drop;       /* assert failure: drop all copies */\n\
             \tuint32_t trunc;      /* truncate(): output length limit, 0 = none */\n\
             \tuint32_t csum_err;   /* verify_checksum mismatch */\n\
             \tuint32_t entry_index; /* direct counters/meters: index of the hit entry */\n\
             \tuint32_t entry_hit;\n\
             \tuint32_t dp_table;    /* index of the table of dp_entry/dp_key */\n\
             \tuint32_t resubmit, recirculate;\n\
             \tstruct p4dp_entry *dp_entry; /* entry the running table action matched (NULL on a miss) */\n\
             \tconst uint8_t *dp_key; /* key the running table action's table was looked up with */\n\
             \tconst uint8_t *st_key; /* process_burst: key the staged table was looked up with (or NULL) */\n\
             \tconst struct p4dp_entry *st_entry; /* and its entry (NULL: miss) */\n\
             \t/* set by the glue before use */\n\
             \tuint32_t cur;        /* parser cursor, bits */\n\
             \tuint32_t pkt_bits;   /* bits of input */\n\
             \tuint32_t perr;       /* parser error code */\n\
             \tuint32_t steps;      /* parser transitions */\n\
             \tuint32_t emit_bits;  /* deparser cursor, bits from emit_base */\n\
             \tuint32_t emit_overflow;\n\
             \tuint32_t emit_cap;   /* bits the deparser may write at emit_base */\n\
             \tuint8_t *emit_base;  /* deparser output: the packet itself (in place) or ctx->emit_buf */\n\
             \tuint32_t payload_off; /* bytes of input consumed by the parser */\n\
             \tuint32_t pna_drop, pna_port; /* PNA forwarding decision */\n\
             \tstruct p4dp_bg_env *bg; /* rtc.p4: the background iteration's environment (set by its glue; NULL in process) */\n\
             \tint32_t clone_type;  /* -1 none, 0 I2E, 1 E2E (gst_init) */\n\
             \tuint32_t clone_session;\n",
        );
        let _ = writeln!(
            out,
            "\tuint16_t xsum[{}]; /* InternetChecksum states, by extern index */",
            p.externs.len().max(1)
        );
        if self.info.header_writes.count() > 0 {
            let _ = writeln!(
                out,
                "\tuint32_t xo[{}]; /* elide.rs: 1 + bit offset each read-only header was extracted from, 0: not extracted */",
                self.info.header_writes.count()
            );
        }
        if self.info.stage.staged_add_on_miss {
            out.push_str(
                "\t/* burst.rs, staged add-on-miss table: this packet's and the later packets' staged keys and\n\
                 \t * entries (st_n of them, set by process_staged; st_ents NULL outside a burst) */\n\
                 \tconst uint8_t *st_keys;\n\tconst struct p4dp_entry **st_ents;\n\tuint32_t st_n;\n\
                 \t/* the burst's insert generation of the staged table (p4dp_table_dp_add_seen), and whether this\n\
                 \t * packet's apply of it used a staged miss that no add_entry has consumed yet */\n\
                 \tuint64_t *st_gen;\n\tuint32_t st_fresh;\n",
            );
        }
        let nl = self.info.stage.later.len();
        if nl > 0 {
            let _ = writeln!(
                out,
                "\t/* burst.rs, the later staged tables (in StagePlan order): the keys they were looked up with\n\
                 \t * (NULL: not staged) and their entries (NULL: miss) */\n\
                 \tconst uint8_t *sl_key[{nl}];\n\tconst struct p4dp_entry *sl_ent[{nl}];"
            );
        }
        for o in &owners {
            let f = self.frame(*o);
            let _ = writeln!(out, "\tstruct {} {};", f.ty, f.field);
        }
        out.push_str("};\n\n");
        if nl > 0 {
            let _ = write!(
                out,
                "/* burst.rs: one packet's staged lookups of the later staged tables (process_staged) */\nstruct st_later {{\n\tconst uint8_t *key[{nl}];\n\tconst struct p4dp_entry *ent[{nl}];\n}};\n\n"
            );
        } else {
            out.push_str("struct st_later; /* no later staged tables (burst.rs) */\n\n");
        }
        if self.info.stage.staged_add_on_miss {
            out.push_str("/* burst.rs: a staged entry an earlier packet's insert made stale (looked up again) */\n#define ST_STALE ((const struct p4dp_entry *)(uintptr_t)1)\n\n");
        }
        // perf: only the flags read before the glue sets them are initialised (see the struct).
        // One store per member, no memset: a memset on part of the struct (or any pointer to it
        // passed to a function that is not inlined) stops the C compiler from keeping the
        // struct in registers (scalar replacement of aggregates), which costs the simplest
        // programs most of their cycles per packet.
        let xsum: String = (0..p.externs.len()).map(|k| format!("\tR->xsum[{k}] = 0;\n")).collect();
        out.push_str(
            &"/* A packet's (or pass's) fresh state. Frames are set up by each block's caller. */\n\
             static inline __attribute__((always_inline)) void gst_init(struct gst *R, struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)\n{\n\
             \tR->ctx = ctx;\n\tR->pkt = pkt;\n\
             \tR->drop = R->trunc = R->csum_err = R->entry_index = R->entry_hit = R->dp_table = 0;\n\
             \tR->resubmit = R->recirculate = 0;\n\
             \tR->dp_entry = NULL;\n\tR->dp_key = R->st_key = NULL;\n\tR->st_entry = NULL;\n\
             @SL@@CLONE@@XSUM@}\n\n"
            .replace(
                "@SL@",
                &(0..nl)
                    .map(|j| format!("\tR->sl_key[{j}] = NULL;\n\tR->sl_ent[{j}] = NULL;\n"))
                    .collect::<String>(),
            )
            .replace(
                "@CLONE@",
                if self.info.features.clone { "\tR->clone_type = -1;\n\tR->clone_session = 0;\n" } else { "" },
            )
            .replace(
                "@XSUM@",
                &xsum,
            ),
        );
        // perf: in-place deparsing (glue.rs); the emit code calls this when a header does not fit
        out.push_str(
            "/* The deparser writes at R->emit_base: in place over the packet's own (already parsed) header\n \
             * bytes while the output fits in front of the payload, else in ctx->emit_buf. Called when\n \
             * `need` more bits do not fit at *b: moves what was written so far to ctx->emit_buf (once)\n \
             * and returns whether they fit there (0: overflow). */\n\
             static __attribute__((noinline, unused)) int emit_room_slow(struct p4dp_ctx *ctx, uint8_t **b, uint32_t *cap, uint32_t o, uint32_t need)\n{\n\
             \tuint8_t *eb = ctx->emit_buf;\n\
             \tif (*b != eb) {\n\t\tmemcpy(eb, *b, (o + 7u) / 8u);\n\t\t*b = eb;\n\t\t*cap = P4DP_EMIT_MAX * 8u;\n\t}\n\
             \treturn o + need <= *cap;\n}\n\n\
             /* perf: R stays out of the call (see gst_init) */\n\
             static inline __attribute__((always_inline, unused)) int emit_room(struct gst *R, uint8_t **b, uint32_t *cap, uint32_t o, uint32_t need)\n{\n\
             \tuint8_t *nb = *b;\n\tuint32_t nc = *cap;\n\
             \tint ok = emit_room_slow(R->ctx, &nb, &nc, o, need);\n\
             \t*b = R->emit_base = nb;\n\t*cap = R->emit_cap = nc;\n\
             \treturn ok;\n}\n\n",
        );
        Ok(out)
    }
}

/// Generate the C translation unit of `p`. Fails with the first construct (in source order) the
/// back end cannot translate; [`capability_check`] lists all of them.
pub fn generate_c(p: &ValidProgram, opts: &CgenOptions) -> Result<String, CgenError> {
    generate_c_with(p, &p4dp_ir::analysis::analyze(p), opts)
}

/// [`generate_c`] with the program's analyses already run (`info` must be
/// `p4dp_ir::analysis::analyze(p)`).
pub fn generate_c_with(p: &ValidProgram, info: &ProgramInfo, opts: &CgenOptions) -> Result<String, CgenError> {
    let (c, skipped) = translate(p, info, opts)?;
    match skipped.into_iter().next() {
        Some(Unsupported { kind, message, span }) => Err(CgenError::Unsupported { kind, message, span }),
        None => Ok(c),
    }
}

/// The back end's capability check: every construct of `p` the back end cannot translate, in
/// source order, each once. It is the translation itself run without keeping its output (a
/// statement or block that cannot be translated is recorded and skipped), so what it accepts is
/// exactly what [`generate_c`] translates: `p4dp check` runs it, and then agrees with `p4dp build`.
pub fn capability_check(p: &ValidProgram) -> Vec<Unsupported> {
    match translate(p, &p4dp_ir::analysis::analyze(p), &CgenOptions::default()) {
        Ok((_, skipped)) => skipped,
        // a construct the translation could not skip (planning stops at the first)
        Err(CgenError::Unsupported { kind, message, span }) => vec![Unsupported { kind, message, span }],
        // only the unsupported kind of error comes out of the translation
        Err(e) => vec![Unsupported {
            kind: UnsupportedKind::Construct,
            message: e.to_string(),
            span: Span::default(),
        }],
    }
}

/// The C translation unit of `p` and the constructs it could not translate (sorted by span,
/// without duplicates; the text is incomplete when there are any).
fn translate(
    p: &ValidProgram,
    info: &ProgramInfo,
    opts: &CgenOptions,
) -> Result<(String, Vec<Unsupported>), CgenError> {
    let p = p.program();
    let mut g = Gen::new(p, info, opts);
    g.plan()?;
    let frames = g.emit_frames();
    let frames = match frames {
        Ok(f) => f,
        Err(e) => {
            g.skip(Err(e))?;
            String::new()
        }
    };
    // bodies
    for c in p.controls.ids() {
        let r = g.emit_control(c);
        g.skip(r)?;
    }
    for x in p.parsers.ids() {
        let r = g.emit_parser(x);
        g.skip(r)?;
    }
    for f in p.functions.ids() {
        let r = g.emit_function(f);
        g.skip(r)?;
    }
    for t in p.tables.ids() {
        let r = g.emit_table(t);
        g.skip(r)?;
    }
    let mut glue = match g.emit_glue() {
        Ok(x) => x,
        Err(e) => {
            g.skip(Err(e))?;
            String::new()
        }
    };
    match g.emit_burst() {
        Ok(Some(b)) => {
            g.has_burst = true;
            glue.push('\n');
            glue.push_str(&b);
        }
        Ok(None) => {}
        Err(e) => g.skip(Err(e))?,
    }
    let meta = match g.emit_metadata() {
        Ok(x) => x,
        Err(e) => {
            g.skip(Err(e))?;
            String::new()
        }
    };
    let mut skipped = std::mem::take(&mut g.skipped);
    skipped.sort_by_key(|u| (u.span.file, u.span.lo, u.span.hi));
    skipped.dedup();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by p4dp-cgen from P4 program `{}`. Do not edit. */\n\
         #include <stdint.h>\n#include <string.h>\n\n#include \"p4dp/abi.h\"\n#include \"p4dp/prim.h\"\n{}",
        opts.program_name.replace("*/", "* /"),
        if g.uses_dpwrite() {
            "#include \"p4dp/dpwrite.h\"\n"
        } else {
            ""
        }
    );
    if g.is_rtc() {
        out.push_str("#include \"p4dp/rtc.h\"\n");
    }
    out.push_str("/* ---- types ---- */\n");
    out.push_str(&g.types_out);
    if !g.v1st_def.is_empty() {
        out.push_str("\n/* ---- architecture state (v1model) ---- */\n");
        out.push_str(&g.v1st_def);
    }
    out.push_str("\n/* ---- frames ---- */\n");
    out.push_str(&frames);
    out.push_str("/* ---- helpers ---- */\n");
    out.push_str(&g.helpers_out);
    out.push_str("\n/* ---- prototypes ---- */\n");
    out.push_str(&g.protos);
    out.push_str("\n/* ---- blocks ---- */\n");
    out.push_str(&g.funcs);
    out.push_str("\n/* ---- architecture glue ---- */\n");
    out.push_str(&glue);
    out.push_str("\n/* ---- metadata ---- */\n");
    out.push_str(&meta);
    Ok((out, skipped))
}

/// DPDK's compiler flags (`pkg-config --cflags libdpdk`, split on whitespace), or None when
/// pkg-config or DPDK's development files are missing. Asked once per process.
pub fn dpdk_cflags() -> Option<&'static [String]> {
    static FLAGS: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    FLAGS
        .get_or_init(|| {
            let out = std::process::Command::new("pkg-config")
                .args(["--cflags", "libdpdk"])
                .output()
                .ok()?;
            out.status.success().then(|| {
                String::from_utf8_lossy(&out.stdout)
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect()
            })
        })
        .as_deref()
}

/// Compile generated C at `c_path` into a shared object at `so_path` with
/// `gcc -shared -fPIC -O<opt_level> -Wall -Wextra -Werror -I<runtime_include_dir>`, plus DPDK's flags
/// and `-DP4DP_DPDK` when DPDK's development files are there (the program then has the
/// `process_mbufs` entry where cgen generates one, abi.h), plus the flags in the environment
/// variable `P4DP_CFLAGS` (split at white space; for tests and debugging, e.g. sanitizers).
/// Returns gcc's stderr on failure.
pub fn compile_so(c_path: &Path, so_path: &Path, runtime_include_dir: &Path, opt_level: u32) -> Result<(), CgenError> {
    let mut cmd = std::process::Command::new("gcc");
    p4dp_syntax::child::unblock_signals(&mut cmd);
    if let Some(f) = dpdk_cflags() {
        cmd.args(f).arg("-DP4DP_DPDK");
    }
    let out = cmd
        .arg("-shared")
        .arg("-fPIC")
        .arg(format!("-O{}", opt_level.min(3)))
        // perf: tuning only (no new instructions, the .so stays portable); with the generic tuning gcc
        // zeroes the per-packet state with `rep stos`, which costs tens of cycles per packet
        .arg("-mtune=native")
        .arg("-Wall")
        .arg("-Wextra")
        .arg("-Werror")
        .args(std::env::var("P4DP_CFLAGS").unwrap_or_default().split_whitespace())
        .arg("-I")
        .arg(runtime_include_dir)
        .arg("-o")
        .arg(so_path)
        .arg(c_path)
        .output()?;
    if !out.status.success() {
        return Err(CgenError::Compile {
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(())
}

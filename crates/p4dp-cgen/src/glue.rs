//! Architecture glue: the `process` entry point. v1model follows stf.md section 9 (BMv2
//! simple_switch order). Simplifications (documented): clone field lists are ignored (an I2E clone
//! re-parses the original bytes with fresh metadata; an E2E clone copies the state at the end of
//! egress with standard metadata reset); copies (clones, multicast) are built in `ctx->emit_buf` and
//! must fit in P4DP_EMIT_MAX bytes.
//!
//! v1model resubmit and recirculate: `process` runs the pipeline in a loop of *passes*. A resubmit
//! (checked at the end of ingress, after the I2E clone, before multicast) runs the parser and
//! ingress again on the original input bytes with `instance_type` 6; a recirculate (checked after
//! egress, once the packet was deparsed and not dropped) runs the whole pipeline again on the
//! deparsed packet with `instance_type` 4. Both keep `ingress_port`; headers, standard metadata and
//! user metadata start from zero, except the user metadata fields annotated `@field_list(N)` for
//! the index given to `*_preserving_field_list(N)`, whose values at the end of that pass are copied
//! (the deprecated `resubmit(data)`/`recirculate(data)` keep nothing; with a non-empty list that is
//! a known gap, counted at run time with `p4dp_count_unsupported`, see externs.rs). `@field_list`
//! is looked for on the fields of the user metadata struct and, for fields without it, recursively
//! in nested structs. At most `V1_MAX_PASSES` (16) passes run per
//! input packet: the next one drops the packet and is counted with `p4dp_count_unsupported`
//! ("resubmit/recirculate: ..."). A recirculate requested while a clone or multicast copy runs
//! egress is not performed: it is counted with `p4dp_count_unsupported` and the copy is sent.

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{mask_lit, opty, storage};
use crate::{unsupported_as, Gen, Owner, UnsupportedKind, R};

/// How a glue argument binds to a block parameter.
pub(crate) enum Bind<'s> {
    /// No storage (packet_in/packet_out) or nothing to pass.
    None,
    /// A C lvalue of the glue.
    Lv(&'s str),
}

impl Gen<'_> {
    /// Call block `o` with parameters bound to glue lvalues: zero the frame, copy in (in/inout),
    /// call, copy out (out/inout). The int result is assigned to `rc_var` if given. With
    /// `out_zeroed` the caller guarantees the storage bound to `out` parameters is already zero
    /// (perf: not zeroed again).
    pub(crate) fn glue_call(
        &self,
        o: Owner,
        params: &[VarId],
        binds: &[Bind],
        rc_var: Option<&str>,
        ind: &str,
        out_zeroed: bool,
    ) -> String {
        let fr = self.frame(o);
        let vars = self.vars(o);
        // perf: a frame holding only the top-level parameters' pointers (all set below) is not zeroed
        let locals = vars
            .iter()
            .any(|(v, x)| !self.is_top_param(o, v) && !matches!(self.p.types.get(x.ty), Type::Extern { .. }));
        let mut s = if locals {
            // perf: an assignment, not a memset (see gst_init, lib.rs)
            format!("{ind}R->{0} = (struct {1}){{}};\n", fr.field, fr.ty)
        } else {
            String::new()
        };
        for (v, b) in params.iter().zip(binds) {
            if let (Bind::Lv(x), VarKind::Param(d)) = (b, vars[*v].kind) {
                if self.is_top_param(o, *v) {
                    // by pointer: `out` starts zeroed (as the zeroed frame did), others as they are
                    if d == Direction::Out && !out_zeroed {
                        let _ = writeln!(s, "{ind}{x} = (__typeof__({x})){{}};");
                    }
                    // v1model: reached through R->vs (ProgramInfo::top_params), which the glue sets
                    if !self.info.top_params.contains_key(&(o, *v)) {
                        let _ = writeln!(s, "{ind}R->{}.{} = &{x};", fr.field, fr.vars[v.index()]);
                    }
                } else if d != Direction::Out {
                    let _ = writeln!(s, "{ind}R->{}.{} = {x};", fr.field, fr.vars[v.index()]);
                }
            }
        }
        match rc_var {
            Some(r) => {
                let _ = writeln!(s, "{ind}{r} = {}(R);", fr.func);
            }
            None => {
                let _ = writeln!(s, "{ind}(void){}(R);", fr.func);
            }
        }
        for (v, b) in params.iter().zip(binds) {
            if let (Bind::Lv(x), VarKind::Param(d)) = (b, vars[*v].kind) {
                if (d == Direction::Out || d == Direction::InOut) && !self.is_top_param(o, *v) {
                    let _ = writeln!(s, "{ind}{x} = R->{}.{};", fr.field, fr.vars[v.index()]);
                }
            }
        }
        s
    }

    pub fn emit_glue(&mut self) -> R<String> {
        let Some(pkg) = self.p.package.clone() else {
            return unsupported_as(UnsupportedKind::Architecture, Span::default(), "no `main` package");
        };
        match pkg.arch.as_str() {
            "v1model" => self.glue_v1model(&pkg),
            "pna" => self.glue_pna(&pkg),
            "rtc" => self.glue_rtc(&pkg),
            a => unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                format!("architecture `{a}` (the C back end supports v1model, pna and rtc)"),
            ),
        }
    }

    fn blocks(&self, pkg: &Package, n: usize) -> R<Vec<BlockRef>> {
        if pkg.blocks.len() != n {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                format!(
                    "package `{}` with {} blocks, expected {n}",
                    pkg.type_name,
                    pkg.blocks.len()
                ),
            );
        }
        Ok(pkg.blocks.iter().map(|(_, b)| *b).collect())
    }

    fn glue_v1model(&mut self, pkg: &Package) -> R<String> {
        let p = self.p;
        let b = self.blocks(pkg, 6)?;
        let (
            BlockRef::Parser(prs),
            BlockRef::Control(vr),
            BlockRef::Control(ig),
            BlockRef::Control(eg),
            BlockRef::Control(ck),
            BlockRef::Control(dep),
        ) = (b[0], b[1], b[2], b[3], b[4], b[5])
        else {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                "V1Switch blocks of unexpected kinds",
            );
        };
        let pr = &p.parsers[prs];
        if pr.params.len() != 4 {
            return unsupported_as(
                UnsupportedKind::Architecture,
                pr.span,
                "v1model parser with other than 4 parameters",
            );
        }
        let (ht, mt, st) = (
            pr.vars[pr.params[1]].ty,
            pr.vars[pr.params[2]].ty,
            pr.vars[pr.params[3]].ty,
        );
        let hc = self.ctype(ht, pr.span)?;
        let mc = self.ctype(mt, pr.span)?;
        let sc = self.ctype(st, pr.span)?;
        // standard_metadata fields by name
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
        let set = |who: &str, name: &str, val: &str| -> String {
            match sfields.iter().find(|(n, _, _)| n == name) {
                Some((_, c, w)) => format!(
                    "\t{who}.{c} = ({})(({})({val}) & {});\n",
                    storage(*w),
                    opty(*w),
                    mask_lit(*w)
                ),
                None => String::new(),
            }
        };
        let get = |who: &str, name: &str| -> Option<String> {
            sfields
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, c, _)| format!("{who}.{c}"))
        };
        let need = |name: &str| -> R<String> {
            match get("S->sm", name) {
                Some(x) => Ok(x),
                None => unsupported_as(
                    UnsupportedKind::Architecture,
                    pr.span,
                    format!("standard_metadata_t has no field `{name}`"),
                ),
            }
        };
        let egress_spec = need("egress_spec")?;
        let mut o = String::new();
        // the blocks reach their parameters through R->vs (ProgramInfo::top_params): defined before them (lib.rs)
        let mut def = String::new();
        let _ = writeln!(
            def,
            "struct v1st {{\n\t{hc} hdr;\n\t{mc} meta;\n\t{sc} sm;\n\tuint32_t payload_off;\n}};\n"
        );
        self.v1st_def = def;

        // parse + verify checksum
        let ctl = |g: &Gen, c: ControlId, binds: &[Bind], rc: Option<&str>| {
            g.glue_call(Owner::Control(c), &p.controls[c].params, binds, rc, "\t", false)
        };
        let ctl_arity = |c: ControlId, n: usize| -> R<()> {
            if p.controls[c].params.len() != n {
                return unsupported_as(
                    UnsupportedKind::Architecture,
                    p.controls[c].span,
                    format!(
                        "v1model control `{}` with {} parameters, expected {n}",
                        p.controls[c].type_name,
                        p.controls[c].params.len()
                    ),
                );
            }
            Ok(())
        };
        ctl_arity(vr, 2)?;
        ctl_arity(ig, 3)?;
        ctl_arity(eg, 3)?;
        ctl_arity(ck, 2)?;
        ctl_arity(dep, 2)?;
        let _ = writeln!(o, "/* Parser and VerifyChecksum on the input bytes. */\nstatic inline __attribute__((always_inline)) void v1_parse(struct gst *R, struct v1st *S)\n{{\n\tint rej = 0;\n\tR->vs = S;\n\tR->cur = 0;\n\tR->perr = 0;\n\tR->steps = 0;\n\tR->pkt_bits = R->pkt->len * 8u;");
        if self.info.header_writes.count() > 0 {
            for k in 0..self.info.header_writes.count() {
                let _ = writeln!(o, "\tR->xo[{k}] = 0;");
            }
        }
        // every caller of v1_parse zeroes the whole struct v1st first
        o.push_str(&self.glue_call(
            Owner::Parser(prs),
            &pr.params,
            &[Bind::None, Bind::Lv("S->hdr"), Bind::Lv("S->meta"), Bind::Lv("S->sm")],
            Some("rej"),
            "\t",
            true,
        ));
        if let Some(pe) = get("S->sm", "parser_error") {
            let _ = writeln!(o, "\tif (rej)\n\t\t{pe} = R->perr;");
        } else {
            o.push_str("\t(void)rej;\n");
        }
        o.push_str("\tS->payload_off = (R->cur + 7u) / 8u;\n\tR->payload_off = S->payload_off;\n\tR->csum_err = 0;\n");
        o.push_str(&ctl(self, vr, &[Bind::Lv("S->hdr"), Bind::Lv("S->meta")], None));
        if let Some(ce) = get("S->sm", "checksum_error") {
            let _ = writeln!(o, "\tif (R->csum_err)\n\t\t{ce} = 1;");
        }
        o.push_str("}\n\n");

        // perf: without copies (no clone, no multicast: ProgramInfo::features) egress runs once per pass, for
        // the packet itself, and is inlined into process_staged
        let copies = self.info.features.clone || self.info.features.mcast;
        let inl = if copies {
            ""
        } else {
            "inline __attribute__((always_inline)) "
        };
        // output
        o.push_str(
            &"/* Deparsed headers + unparsed payload: the packet itself, or a copy. */\n\
             static @INL@void v1_output(struct gst *R, struct v1st *S, uint32_t port, int copy)\n{\n\
             \tstruct p4dp_pkt *pkt = R->pkt;\n\
             \tif (R->emit_overflow) {\n\t\tp4dp_count_unsupported(R->ctx, \"deparser: headers exceed P4DP_EMIT_MAX\");\n\t\treturn;\n\t}\n\
             \tuint32_t elen = (R->emit_bits + 7u) / 8u;\n\
             \tuint32_t poff = S->payload_off <= pkt->len ? S->payload_off : pkt->len;\n\
             \tif (R->emit_bits & 7u) /* the bits after the last header in its last byte are 0 */\n\
             \t\tR->emit_base[elen - 1] &= (uint8_t)(0xffu << (8u - (R->emit_bits & 7u)));\n\
             \tif (!copy) {\n\t\tuint32_t trunc = @TRUNC@;\n\
             \t\t/* perf: headers deparsed in place exactly over the parsed ones: the packet is ready */\n\
             \t\tif (__builtin_expect(R->emit_base == pkt->data && elen == poff && trunc == 0, 1)) {\n\t\t\tpkt->out_port = port;\n\t\t\treturn;\n\t\t}\n\
             \t\tif (p4dp_pkt_finish_inline(pkt, R->emit_base, elen, poff, trunc) == 0)\n\t\t\tpkt->out_port = port;\n\t\treturn;\n\t}\n\
             \tuint32_t plen = pkt->len - poff;\n\
             \tif (elen + plen > P4DP_EMIT_MAX) {\n\t\tp4dp_count_unsupported(R->ctx, \"packet copy larger than P4DP_EMIT_MAX\");\n\t\treturn;\n\t}\n\
             \tmemcpy(R->ctx->emit_buf + elen, pkt->data + poff, plen);\n\
             \tuint32_t tot = elen + plen;\n\
             \tif (R->trunc && R->trunc < tot)\n\t\ttot = R->trunc;\n\
             \t(void)p4dp_pkt_emit_copy(R->ctx, port, R->ctx->emit_buf, tot);\n}\n\n"
                .replace("@TRUNC@", if self.info.features.truncate { "R->trunc" } else { "0u" })
                .replace("@INL@", inl),
        );

        // egress + checksum + deparser + output
        let _ = writeln!(o, "static void v1_egress(struct gst *R, struct v1st *S, uint32_t port, int copy, int depth);\n\n/* Egress for one packet instance, then ComputeChecksum, Deparser and output. */\nstatic {inl}void v1_egress_run(struct gst *R, struct v1st *S, uint32_t port, int copy, int depth)\n{{");
        o.push_str("\tR->vs = S;\n");
        o.push_str(&set("S->sm", "egress_port", "port"));
        let _ = writeln!(o, "\t/* BMv2 writes 512 into the 9-bit egress_spec before egress, i.e. 0. */\n\t{egress_spec} = 0;\n\tR->clone_type = -1;");
        o.push_str(&ctl(
            self,
            eg,
            &[Bind::Lv("S->hdr"), Bind::Lv("S->meta"), Bind::Lv("S->sm")],
            None,
        ));
        if self.info.features.assert {
            o.push_str("\tif (R->drop)\n\t\treturn;\n");
        }
        if self.info.features.clone {
            // one clone per replica of the session, its instance as egress_rid, truncated to the
            // session's length (or the program's own truncate() if shorter)
            o.push_str("\tif (R->clone_type == 1 && depth < 4) {\n\t\tuint32_t cports[P4DP_CLONE_REPLICAS_MAX], ctrunc;\n\t\tuint16_t crids[P4DP_CLONE_REPLICAS_MAX];\n\t\tuint8_t ccos;\n\t\tuint32_t cn = p4dp_clone_session_get(R->ctx, R->clone_session, cports, crids, P4DP_CLONE_REPLICAS_MAX, &ctrunc, &ccos);\n\t\tfor (uint32_t ci = 0; ci < cn; ci++) {\n\t\t\tstruct v1st C = *S;\n\t\t\tmemset(&C.sm, 0, sizeof C.sm);\n");
            for f in ["ingress_port", "packet_length", "ingress_global_timestamp"] {
                if let (Some(dst), Some(src)) = (get("C.sm", f), get("S->sm", f)) {
                    let _ = writeln!(o, "\t\t\t{dst} = {src};");
                }
            }
            let _ = write!(o, "\t\t{}", set("C.sm", "instance_type", "2"));
            if let Some(rid) = get("C.sm", "egress_rid") {
                let _ = writeln!(o, "\t\t\t{rid} = crids[ci];");
            }
            // the session's class of service is the clones' priority (docs/p4runtime.md)
            let _ = write!(o, "\t\t{}", set("C.sm", "priority", "ccos"));
            o.push_str("\t\t\tuint32_t trunc = R->trunc;\n\t\t\tif (ctrunc && (trunc == 0 || ctrunc < trunc))\n\t\t\t\tR->trunc = ctrunc;\n\t\t\tv1_egress(R, &C, cports[ci], 1, depth + 1);\n\t\t\tR->trunc = trunc;\n\t\t\tR->vs = S;\n\t\t}\n\t}\n");
        }
        o.push_str("\t(void)depth;\n");
        let _ = writeln!(
            o,
            "\tif ({} == 511)\n\t\treturn;\n\tR->payload_off = S->payload_off;",
            egress_spec
        );
        o.push_str(&ctl(self, ck, &[Bind::Lv("S->hdr"), Bind::Lv("S->meta")], None));
        // perf: the packet's own output is deparsed in place (emit_room in lib.rs); copies
        // (clones, multicast) need the input bytes intact and go to ctx->emit_buf
        o.push_str("\tR->emit_bits = 0;\n\tR->emit_overflow = 0;\n\tif (!copy) {\n\t\tR->emit_base = R->pkt->data;\n\t\tR->emit_cap = (S->payload_off <= R->pkt->len ? S->payload_off : R->pkt->len) * 8u;\n\t} else {\n\t\tR->emit_base = R->ctx->emit_buf;\n\t\tR->emit_cap = P4DP_EMIT_MAX * 8u;\n\t}\n");
        o.push_str(&ctl(self, dep, &[Bind::None, Bind::Lv("S->hdr")], None));
        o.push_str("\tv1_output(R, S, port, copy);\n}\n\n");
        o.push_str(
            &"/* Egress of the packet (copy = 0; a recirculate request is left in R->recirculate) or of a\n \
             * clone/multicast copy (copy = 1; such copies cannot recirculate: counted, copy sent). */\n\
             static @INL@void v1_egress(struct gst *R, struct v1st *S, uint32_t port, int copy, int depth)\n{\n\
             \tif (!copy) {\n\t\tv1_egress_run(R, S, port, copy, depth);\n\t\treturn;\n\t}\n\
             \tuint32_t saved = R->recirculate;\n\
             \tR->recirculate = 0;\n\
             \tv1_egress_run(R, S, port, copy, depth);\n\
             \tif (R->recirculate)\n\t\tp4dp_count_unsupported(R->ctx, \"recirculate of a clone or multicast copy (not recirculated)\");\n\
             \tR->recirculate = saved;\n}\n\n"
                .replace("@INL@", inl),
        );

        // user metadata kept across resubmit/recirculate (@field_list)
        if self.info.features.passes() {
            let mut lists = std::collections::BTreeMap::new();
            field_lists(&p.types, mt, "meta", &mut lists, 0);
            o.push_str("#define V1_MAX_PASSES 16u\n\n/* Copies the user metadata fields of field list `fl` (annotated @field_list(fl)). */\nstatic void v1_keep_fields(struct v1st *to, const struct v1st *from, uint32_t fl)\n{\n\tswitch (fl) {\n");
            for (idx, members) in &lists {
                let _ = writeln!(o, "\tcase {idx}u:");
                for m in members {
                    let _ = writeln!(o, "\t\tmemcpy(&to->{m}, &from->{m}, sizeof to->{m});");
                }
                o.push_str("\t\tbreak;\n");
            }
            o.push_str("\tdefault:\n\t\t(void)to;\n\t\t(void)from;\n\t\tbreak;\n\t}\n}\n\n");
        }

        // process: one pass per loop iteration (resubmit and recirculate start another); without
        // them (ProgramInfo::features) the loop runs once and the C compiler removes it
        // perf: process_staged takes the staged lookup of process_burst/process_mbufs (burst.rs);
        // process = no staging
        let ft = self.info.features;
        o.push_str("static void process_staged(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, const uint8_t *st_key, const struct p4dp_entry *st_entry, const struct st_later *sl);\n\nstatic void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)\n{\n\tprocess_staged(ctx, pkt, NULL, NULL, NULL);\n}\n\n");
        o.push_str("/* One input packet: all its passes. st_key, st_entry: the staged lookup of process_burst or\n * process_mbufs (burst.rs), or NULL; sl: the later staged tables' (or NULL). */\nstatic inline __attribute__((always_inline)) void process_staged(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, const uint8_t *st_key, const struct p4dp_entry *st_entry, const struct st_later *sl)\n{\n\tstruct gst G;\n\tstruct gst *R = &G;\n\tstruct v1st S0, *S;\n");
        if ft.passes() {
            o.push_str("\tstruct v1st K;\n\tuint32_t itype = 0, keep = 0;\n");
        } else {
            o.push_str("\tconst uint32_t itype = 0;\n");
        }
        o.push_str("\tpkt->out_port = P4DP_PORT_DROP;\n\tfor (uint32_t pass = 0;; pass++) {\n");
        if ft.passes() {
            o.push_str("\tif (pass == V1_MAX_PASSES) {\n\t\tp4dp_count_unsupported(ctx, \"resubmit/recirculate: more than 16 passes, packet dropped\");\n\t\treturn;\n\t}\n");
        }
        o.push_str("\tgst_init(R, ctx, pkt);\n\tR->st_key = st_key;\n\tR->st_entry = st_entry;\n");
        o.push_str(&self.stage_later_init());
        o.push_str("\tS = &S0;\n\t*S = (struct v1st){};\n");
        if ft.passes() {
            o.push_str("\tif (keep)\n\t\tv1_keep_fields(S, &K, keep - 1u);\n");
        }
        o.push_str(&set("S->sm", "ingress_port", "pkt->in_port"));
        o.push_str(&set("S->sm", "packet_length", "pkt->len"));
        o.push_str(&set("S->sm", "ingress_global_timestamp", "ctx->now_ns / 1000u"));
        o.push_str(&set("S->sm", "instance_type", "itype"));
        o.push_str("\tv1_parse(R, S);\n\t(void)itype;\n\tR->vs = S;\n");
        o.push_str(&ctl(
            self,
            ig,
            &[Bind::Lv("S->hdr"), Bind::Lv("S->meta"), Bind::Lv("S->sm")],
            None,
        ));
        if ft.assert {
            o.push_str("\tif (R->drop)\n\t\treturn;\n");
        }
        // 1. I2E clone
        if ft.clone {
            // one clone per replica of the session (the input packet parsed again), its instance
            // as egress_rid, truncated to the session's length
            o.push_str("\tif (R->clone_type == 0) {\n\t\tuint32_t cports[P4DP_CLONE_REPLICAS_MAX], ctrunc;\n\t\tuint16_t crids[P4DP_CLONE_REPLICAS_MAX];\n\t\tuint8_t ccos;\n\t\tuint32_t cn = p4dp_clone_session_get(ctx, R->clone_session, cports, crids, P4DP_CLONE_REPLICAS_MAX, &ctrunc, &ccos);\n\t\tuint32_t trunc = R->trunc;\n\t\tfor (uint32_t ci = 0; ci < cn; ci++) {\n\t\t\tstruct v1st C;\n\t\t\tmemset(&C, 0, sizeof C);\n");
            for f in ["ingress_port", "packet_length", "ingress_global_timestamp"] {
                if let (Some(dst), Some(src)) = (get("C.sm", f), get("S->sm", f)) {
                    let _ = writeln!(o, "\t\t\t{dst} = {src};");
                }
            }
            o.push_str("\t\t\tR->trunc = ctrunc;\n\t\t\tv1_parse(R, &C);\n");
            if let Some(it) = get("C.sm", "instance_type") {
                let _ = writeln!(o, "\t\t\t{it} = 1;");
            }
            if let Some(rid) = get("C.sm", "egress_rid") {
                let _ = writeln!(o, "\t\t\t{rid} = crids[ci];");
            }
            let _ = write!(o, "\t\t{}", set("C.sm", "priority", "ccos"));
            o.push_str("\t\t\tv1_egress(R, &C, cports[ci], 1, 1);\n\t\t\tR->payload_off = S->payload_off;\n\t\t\tR->vs = S;\n\t\t}\n\t\tR->trunc = trunc;\n\t}\n");
        }
        // 3. resubmit: the original input bytes (pkt is unchanged until the unicast output)
        if ft.resubmit {
            o.push_str(
                "\tif (R->resubmit) {\n\t\tK = *S;\n\t\tkeep = R->resubmit;\n\t\titype = 6;\n\t\tcontinue;\n\t}\n",
            );
        }
        // 4. multicast
        if let (true, Some(mg)) = (ft.mcast, get("S->sm", "mcast_grp")) {
            let _ = writeln!(o, "\tif ({mg} != 0) {{\n\t\tuint32_t ports[256];\n\t\tuint16_t rids[256];\n\t\tuint32_t n = p4dp_mcast_group_get(ctx, {mg}, ports, rids, 256);\n\t\tfor (uint32_t i = 0; i < n; i++) {{\n\t\t\tstruct v1st C = *S;");
            if let Some(rid) = get("C.sm", "egress_rid") {
                let _ = writeln!(o, "\t\t\t{rid} = rids[i];");
            }
            if let Some(it) = get("C.sm", "instance_type") {
                let _ = writeln!(o, "\t\t\t{it} = 5;");
            }
            o.push_str("\t\t\tv1_egress(R, &C, ports[i], 1, 0);\n");
            if ft.assert {
                o.push_str("\t\t\tif (R->drop)\n\t\t\t\treturn;\n");
            }
            o.push_str("\t\t}\n\t\treturn;\n\t}\n");
        }
        // 5. drop or unicast; a recirculate runs the next pass on the deparsed packet
        let _ = writeln!(
            o,
            "\tif ({egress_spec} == 511)\n\t\treturn;\n\tv1_egress(R, S, {egress_spec}, 0, 0);"
        );
        if ft.recirculate {
            o.push_str("\tif (R->recirculate && pkt->out_port != P4DP_PORT_DROP) {\n\t\tK = *S;\n\t\tkeep = R->recirculate;\n\t\titype = 4;\n\t\tpkt->out_port = P4DP_PORT_DROP;\n\t\tcontinue;\n\t}\n");
        }
        o.push_str("\treturn;\n\t}\n}\n");
        Ok(o)
    }
}

/// Members (C paths under `struct v1st`, e.g. `meta.f_x`) of the user metadata fields annotated
/// `@field_list(N)`, by N (0..=255, the range of the `bit<8>` index). A field without the
/// annotation is searched recursively when it is a struct.
fn field_lists(
    types: &TypeTable,
    t: TypeId,
    path: &str,
    out: &mut std::collections::BTreeMap<i128, Vec<String>>,
    depth: u32,
) {
    let Type::Struct(s) = types.get(t) else { return };
    if depth > 32 {
        return;
    }
    for f in &s.fields {
        let m = format!("{path}.f_{}", crate::namer::sanitize(&f.name));
        let idx: Vec<i128> = f
            .annotations
            .iter()
            .filter(|a| a.name == "field_list")
            .flat_map(|a| {
                a.args
                    .iter()
                    .filter_map(|x| if let AnnotationArg::Int(i) = x { Some(*i) } else { None })
            })
            .collect();
        if idx.is_empty() {
            field_lists(types, f.ty, &m, out, depth + 1);
        }
        for i in idx {
            if (0..=255).contains(&i) {
                let v = out.entry(i).or_default();
                if !v.contains(&m) {
                    v.push(m.clone());
                }
            }
        }
    }
}

//! PNA: the `process` glue (MainParser -> PreControl -> MainControl -> MainDeparser) and the PNA
//! externs (send_to_port/drop_packet, Counter, DirectCounter, Meter, DirectMeter, Register,
//! Hash, InternetChecksum, Random, Digest). Packets are dropped unless `send_to_port` ran.
//! Data-plane table writes (`add_entry`, expire timers) are in [`crate::dpwrite`]; mirroring is
//! not supported yet (counted unsupported at run time).

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{storage, storage_size};
use crate::glue::Bind;
use crate::stmt::ind;
use crate::{unsupported, unsupported_as, Gen, Owner, UnsupportedKind, R};

fn arg(c: &Call, i: usize) -> R<&Expr> {
    match c.args.get(i) {
        Some(Arg::In(e)) | Some(Arg::InOut(e)) | Some(Arg::Out(e)) => Ok(e),
        None => unsupported(c.span, format!("missing argument {}", i + 1)),
    }
}

/// p4dp color (GREEN 0, YELLOW 1, RED 2) -> PNA_MeterColor_t (RED 0, GREEN 1, YELLOW 2).
fn pna_color(v: &str) -> String {
    format!("({{ uint32_t _c = {v}; _c == 0u ? 1u : (_c == 1u ? 2u : 0u); }})")
}

/// Before the deparser (PNA, rtc.p4's foreground): it writes in place over the packet's parsed
/// header bytes (emit_room, lib.rs); these architectures make no copies.
pub(crate) const DEPARSE_IN_PLACE: &str = "\tR->emit_bits = 0;\n\tR->emit_overflow = 0;\n\tR->emit_base = pkt->data; /* perf: in place (emit_room, lib.rs); no copies */\n\tR->emit_cap = (R->payload_off <= pkt->len ? R->payload_off : pkt->len) * 8u;\n";

/// After the deparser: the emitted headers followed by the payload become the packet, sent to
/// `R->pna_port` (`send_to_port`).
pub(crate) const DEPARSE_FINISH: &str = "\tif (R->emit_overflow) {\n\t\tp4dp_count_unsupported(ctx, \"deparser: headers exceed P4DP_EMIT_MAX\");\n\t\treturn;\n\t}\n\tuint32_t poff = R->payload_off <= pkt->len ? R->payload_off : pkt->len;\n\tif (R->emit_bits & 7u) /* the bits after the last header in its last byte are 0 */\n\t\tR->emit_base[R->emit_bits / 8u] &= (uint8_t)(0xffu << (8u - (R->emit_bits & 7u)));\n\tif (p4dp_pkt_finish_inline(pkt, R->emit_base, (R->emit_bits + 7u) / 8u, poff, 0) == 0)\n\t\tpkt->out_port = R->pna_port;\n";

impl Gen<'_> {
    pub(crate) fn glue_pna(&mut self, pkg: &Package) -> R<String> {
        let p = self.p;
        if pkg.blocks.len() != 4 {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                "PNA_NIC with other than 4 blocks",
            );
        }
        let b: Vec<BlockRef> = pkg.blocks.iter().map(|(_, b)| *b).collect();
        let (BlockRef::Parser(mp), BlockRef::Control(pre), BlockRef::Control(mc), BlockRef::Control(md)) =
            (b[0], b[1], b[2], b[3])
        else {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                "PNA_NIC blocks of unexpected kinds",
            );
        };
        let (pr, prc, mcc, mdc) = (&p.parsers[mp], &p.controls[pre], &p.controls[mc], &p.controls[md]);
        if pr.params.len() != 4 || prc.params.len() != 4 || mcc.params.len() != 4 || mdc.params.len() != 4 {
            return unsupported_as(
                UnsupportedKind::Architecture,
                pr.span,
                "PNA blocks with unexpected parameter lists",
            );
        }
        let pty = |o: &Arena<Var>, ps: &[VarId], i: usize| o[ps[i]].ty;
        let (mh, mm, pis) = (
            pty(&pr.vars, &pr.params, 1),
            pty(&pr.vars, &pr.params, 2),
            pty(&pr.vars, &pr.params, 3),
        );
        let (ph, pm, pri, pro) = (
            pty(&prc.vars, &prc.params, 0),
            pty(&prc.vars, &prc.params, 1),
            pty(&prc.vars, &prc.params, 2),
            pty(&prc.vars, &prc.params, 3),
        );
        let (mi, mo) = (pty(&mcc.vars, &mcc.params, 2), pty(&mcc.vars, &mcc.params, 3));
        let mut o = String::from("struct pnast {\n");
        for (n, t) in [
            ("mh", mh),
            ("mm", mm),
            ("pis", pis),
            ("ph", ph),
            ("pm", pm),
            ("pri", pri),
            ("pro", pro),
            ("mi", mi),
            ("mo", mo),
        ] {
            let ct = self.ctype(t, pr.span)?;
            let _ = writeln!(o, "\t{ct} {n};");
        }
        o.push_str("\tuint32_t perr;        /* the parser's error, 0 if it accepted */\n\tuint32_t payload_off; /* bytes of input the parser consumed */\n};\n\n");
        let setf = |g: &Gen, lv: &str, t: TypeId, name: &str, val: &str| -> String {
            match g.fields(t).iter().find(|(f, _)| f == &format!("f_{name}")) {
                Some((f, ft)) => match g.scalar(*ft) {
                    Some(s) => format!("\t{lv}.{f} = ({})({val});\n", storage(s.w)),
                    None => format!("\t{lv}.{f} = (uint32_t)({val});\n"),
                },
                None => String::new(),
            }
        };
        // MainParser, then the input metadata known once the packet is parsed. Its effects stay in
        // the packet's own state when the parser is pure (burst.rs), so process_burst may run it
        // for a whole burst ahead of the controls.
        o.push_str("/* MainParser on the input bytes, and the input metadata known after it. *S is zeroed by the caller. */\nstatic inline __attribute__((always_inline)) void pna_parse(struct gst *R, struct pnast *S)\n{\n\tstruct p4dp_ctx *ctx = R->ctx;\n\tstruct p4dp_pkt *pkt = R->pkt;\n\tint rej = 0;\n\t(void)ctx;\n\tR->cur = 0;\n\tR->perr = 0;\n\tR->steps = 0;\n");
        o.push_str(&setf(self, "S->pis", pis, "input_port", "pkt->in_port"));
        o.push_str("\tR->pkt_bits = pkt->len * 8u;\n");
        o.push_str(&self.glue_call(
            Owner::Parser(mp),
            &pr.params,
            &[Bind::None, Bind::Lv("S->mh"), Bind::Lv("S->mm"), Bind::Lv("S->pis")],
            Some("rej"),
            "\t",
            true,
        ));
        o.push_str("\tS->perr = rej ? R->perr : 0u;\n\tS->payload_off = (R->cur + 7u) / 8u;\n");
        o.push_str(&setf(self, "S->pri", pri, "input_port", "pkt->in_port"));
        o.push_str(&setf(self, "S->pri", pri, "parser_error", "S->perr"));
        o.push_str(&setf(self, "S->mi", mi, "input_port", "pkt->in_port"));
        o.push_str(&setf(self, "S->mi", mi, "parser_error", "S->perr"));
        o.push_str(&setf(self, "S->mi", mi, "timestamp", "ctx->now_ns"));
        o.push_str("}\n\n");
        o.push_str("static void process_staged(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, const uint8_t *st_key, const struct p4dp_entry **st_ents, uint32_t st_n, uint64_t *st_gen, const struct st_later *sl);\n\nstatic void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)\n{\n\tprocess_staged(ctx, pkt, NULL, NULL, 0, NULL, NULL);\n}\n\n");
        o.push_str(&"/* One packet. st_key, st_ents[0]: the staged lookup of the first table (or NULL); st_ents[1..st_n): the\n * later packets' (an add-on-miss insert may mark them stale); st_gen: the staged table's insert\n * generation loaded before the staged lookup (add-on-miss; or NULL); sl: the later staged tables'\n * lookups (or NULL). */\nstatic inline __attribute__((always_inline)) void process_staged(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, const uint8_t *st_key, const struct p4dp_entry **st_ents, uint32_t st_n, uint64_t *st_gen, const struct st_later *sl)\n{\n\tstruct gst G;\n\tstruct gst *R = &G;\n\tgst_init(R, ctx, pkt);\n\tR->st_key = st_key;\n\tR->st_entry = st_ents != NULL ? st_ents[0] : NULL;\n@SLI@\t(void)st_n;\n\t(void)st_gen;\n\tR->pna_drop = 1;\n\tR->pna_port = 0;\n\tpkt->out_port = P4DP_PORT_DROP;\n@STAOM@\tstruct pnast S0, *S = &S0;\n\t*S = (struct pnast){};\n\tpna_parse(R, S);\n\tR->payload_off = S->payload_off;\n".replace(
            "@STAOM@",
            if self.info.stage.staged_add_on_miss {
                "\tR->st_keys = st_key;\n\tR->st_ents = st_ents;\n\tR->st_n = st_n;\n\tR->st_gen = st_gen;\n\tR->st_fresh = 0;\n"
            } else {
                ""
            },
        ).replace("@SLI@", &self.stage_later_init()));
        // pre control: shares the main headers/metadata when the types agree
        let same_h = self.ctype(ph, pr.span)? == self.ctype(mh, pr.span)?;
        let same_m = self.ctype(pm, pr.span)? == self.ctype(mm, pr.span)?;
        if same_h {
            o.push_str("\tS->ph = S->mh;\n");
        }
        if same_m {
            o.push_str("\tS->pm = S->mm;\n");
        }
        o.push_str(&self.glue_call(
            Owner::Control(pre),
            &prc.params,
            &[
                Bind::Lv("S->ph"),
                Bind::Lv("S->pm"),
                Bind::Lv("S->pri"),
                Bind::Lv("S->pro"),
            ],
            None,
            "\t",
            false,
        ));
        if same_m {
            o.push_str("\tS->mm = S->pm;\n");
        }
        o.push_str(&self.glue_call(
            Owner::Control(mc),
            &mcc.params,
            &[
                Bind::Lv("S->mh"),
                Bind::Lv("S->mm"),
                Bind::Lv("S->mi"),
                Bind::Lv("S->mo"),
            ],
            None,
            "\t",
            false,
        ));
        o.push_str("\tif (R->drop || R->pna_drop)\n\t\treturn;\n");
        o.push_str(DEPARSE_IN_PLACE);
        o.push_str(&self.glue_call(
            Owner::Control(md),
            &mdc.params,
            &[Bind::None, Bind::Lv("S->mh"), Bind::Lv("S->mm"), Bind::Lv("S->mo")],
            None,
            "\t",
            false,
        ));
        o.push_str(DEPARSE_FINISH);
        o.push_str("\tif (R->recirculate)\n\t\tp4dp_count_unsupported(ctx, \"recirculate\");\n}\n");
        Ok(o)
    }

    /// PNA extern functions; Ok(false) if `name` is not one.
    pub(crate) fn pna_function(&mut self, name: &str, c: &Call, level: usize, out: &mut String) -> R<bool> {
        let i = ind(level);
        match name {
            "send_to_port" => {
                let x = self.expr(arg(c, 0)?)?;
                let _ = writeln!(out, "{i}R->pna_port = (uint32_t)({x});\n{i}R->pna_drop = 0;");
            }
            "drop_packet" => {
                let _ = writeln!(out, "{i}R->pna_drop = 1;");
            }
            "recirculate" if c.args.is_empty() => {
                let _ = writeln!(out, "{i}R->recirculate = 1;");
            }
            "mirror_packet" => {
                let _ = writeln!(out, "{i}p4dp_count_unsupported(R->ctx, \"mirror_packet\");");
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// PNA extern object methods; Ok(false) if not one.
    pub(crate) fn pna_method(
        &mut self,
        x: ExternId,
        method: &str,
        c: &Call,
        level: usize,
        out: &mut String,
    ) -> R<bool> {
        let p = self.p;
        let i = ind(level);
        let inst = &p.externs[x];
        let ext = x.index();
        let n = inst.ctor_args.first().and_then(crate::externs::const_u64).unwrap_or(0);
        let ret = |g: &mut Self, v: &str, out: &mut String| -> R<()> {
            if let Some(r) = &c.ret {
                let st = g.store(r, v, level)?;
                out.push_str(&st);
            }
            Ok(())
        };
        match (inst.kind, method) {
            (ExternKind::PnaCounter, "count") => {
                let v = self.expr(arg(c, 0)?)?;
                let inr = self.index_below(arg(c, 0)?, &v, n);
                let _ = writeln!(out, "{i}p4dp_counter_count(R->ctx, {ext}u, ({inr} ? (uint32_t)({v}) : 0xffffffffu), {n}u, R->pkt->len);");
            }
            (ExternKind::PnaDirectCounter, "count") => {
                let _ = writeln!(out, "{i}/* DirectCounter.count(): counted when the table hits */");
            }
            (ExternKind::PnaMeter, "execute") => {
                let v = self.expr(arg(c, 0)?)?;
                let inr = self.index_below(arg(c, 0)?, &v, n);
                let col = pna_color(&format!(
                    "p4dp_meter_execute(R->ctx, {ext}u, ({inr} ? (uint32_t)({v}) : 0xffffffffu), R->pkt->len)"
                ));
                ret(self, &col, out)?;
            }
            (ExternKind::PnaDirectMeter, "execute") => {
                let col = pna_color(&format!(
                    "p4dp_meter_execute(R->ctx, {ext}u, R->entry_index, R->pkt->len)"
                ));
                ret(self, &col, out)?;
            }
            (ExternKind::PnaRegister, "read") | (ExternKind::PnaRegister, "write") => {
                let Some(s) = inst.type_args.first().and_then(|t| self.scalar(*t)) else {
                    return unsupported_as(UnsupportedKind::Type, c.span, "Register of non-scalar cells");
                };
                let ct = self.ctype(inst.type_args[0], c.span)?;
                let cs = storage_size(s.w);
                let idx = self.expr(arg(c, 0)?)?;
                let inr = self.index_below(arg(c, 0)?, &idx, n);
                if method == "read" {
                    let _ = writeln!(out, "{i}{{\n{i}\t{ct} _v;\n{i}\tmemset(&_v, 0, sizeof _v);\n{i}\tif ({inr})\n{i}\t\tmemcpy(&_v, (const uint8_t *)p4dp_register_cells(R->ctx, {ext}u) + (size_t)({idx}) * {cs}u, {cs}u);");
                    let mut inner = String::new();
                    ret(self, "_v", &mut inner)?;
                    out.push_str(&inner.replace(&format!("\n{i}"), &format!("\n{i}\t")));
                    let _ = writeln!(out, "{i}}}");
                } else {
                    let v = self.expr(arg(c, 1)?)?;
                    let _ = writeln!(out, "{i}if ({inr}) {{\n{i}\t{ct} _v = {v};\n{i}\tmemcpy((uint8_t *)p4dp_register_cells(R->ctx, {ext}u) + (size_t)({idx}) * {cs}u, &_v, {cs}u);\n{i}}}");
                }
            }
            (ExternKind::PnaRandom, "read") => {
                let lo = inst.ctor_args.first().and_then(crate::externs::const_u64).unwrap_or(0);
                let hi = inst
                    .ctor_args
                    .get(1)
                    .and_then(crate::externs::const_u64)
                    .unwrap_or(u64::MAX);
                ret(self, &format!("p4dp_rand_range(&R->ctx->rng, {lo}ull, {hi}ull)"), out)?;
            }
            (ExternKind::PnaHash, "get_hash") => {
                let algo = match inst.ctor_args.first() {
                    Some(Value::Enum(k)) => match k {
                        0..=2 => "crc32",
                        3 | 4 => "crc16",
                        5 => "csum16",
                        _ => "identity",
                    },
                    _ => {
                        return unsupported_as(
                            UnsupportedKind::ExternMethod,
                            c.span,
                            "Hash with a non-constant algorithm",
                        )
                    }
                };
                let (data, base, max) = if c.args.len() == 3 {
                    (arg(c, 1)?, Some(arg(c, 0)?), Some(arg(c, 2)?))
                } else {
                    (arg(c, 0)?, None, None)
                };
                let _ = writeln!(out, "{i}{{");
                let mut inner = String::new();
                let (buf, len) = self.serialize(data, level + 1, &mut inner)?;
                out.push_str(&inner);
                let h = self.hash_value(algo, &buf, &len, false, c.span)?;
                let _ = writeln!(out, "{i}\t(void)_b;\n{i}\tp4dp_u128 _v = (p4dp_u128){h};");
                if let (Some(b), Some(m)) = (base, max) {
                    let (b, m) = (self.expr(b)?, self.expr(m)?);
                    let _ = writeln!(
                        out,
                        "{i}\tp4dp_u128 _m = (p4dp_u128)({m});\n{i}\t_v = (p4dp_u128)({b}) + (_m ? _v % _m : 0);"
                    );
                }
                let mut inner = String::new();
                if let Some(r) = &c.ret {
                    let w = self.scalar(r.ty).map(|s| s.w).unwrap_or(32).min(128);
                    inner = self.store(r, &format!("(({})(_v & p4dp_mask128({w})))", storage(w)), level + 1)?;
                }
                out.push_str(&inner);
                let _ = writeln!(out, "{i}}}");
            }
            (ExternKind::PnaInternetChecksum, m) => {
                let st = format!("R->xsum[{ext}]");
                match m {
                    "clear" => {
                        let _ = writeln!(out, "{i}{st} = 0;");
                    }
                    "add" | "subtract" => {
                        let data = arg(c, 0)?;
                        let _ = writeln!(out, "{i}{{");
                        let mut inner = String::new();
                        let (buf, len) = self.serialize(data, level + 1, &mut inner)?;
                        out.push_str(&inner);
                        // ones' complement: subtracting x is adding ~x (16-bit words)
                        if m == "add" {
                            let _ = writeln!(out, "{i}\t(void)_b;\n{i}\t{st} = (uint16_t)~p4dp_csum16_finish(p4dp_csum16_add({st}, {buf}, {len}, 0));");
                        } else {
                            let _ = writeln!(out, "{i}\t(void)_b;\n{i}\t{st} = (uint16_t)~p4dp_csum16_finish((uint64_t){st} + (uint16_t)p4dp_csum16({buf}, {len}));");
                        }
                        let _ = writeln!(out, "{i}}}");
                    }
                    "get" => ret(self, &format!("(uint16_t)~(uint16_t){st}"), out)?,
                    "get_state" => ret(self, &format!("(uint16_t){st}"), out)?,
                    "set_state" => {
                        let v = self.expr(arg(c, 0)?)?;
                        let _ = writeln!(out, "{i}{st} = (uint16_t)({v});");
                    }
                    _ => return Ok(false),
                }
            }
            (ExternKind::PnaDigest, "pack") => {
                self.digest_send(arg(c, 0)?, ext as u32, &i, c.span, out)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

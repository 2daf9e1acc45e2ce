//! P4Runtime ids of every control-plane object, shared by the P4Info writer and the C metadata.
//!
//! An id is `(prefix << 24) | low`, where the prefix is the P4Runtime specification's resource
//! type and `low` (24 bits, never 0) comes from `@id(N)` if present, else from a stable hash
//! (FNV-1a) of the fully-qualified name; collisions are resolved by linear probing, in a
//! deterministic order (`@id` objects first, then by name).

use std::collections::{BTreeMap, HashMap, HashSet};

use p4dp_ir::{Annotation, AnnotationArg, ExternKind, Program, TypeId};

pub const PREFIX_ACTION: u32 = 0x01;
pub const PREFIX_TABLE: u32 = 0x02;
pub const PREFIX_VALUE_SET: u32 = 0x03;
pub const PREFIX_CONTROLLER_HEADER: u32 = 0x04;
pub const PREFIX_ACTION_PROFILE: u32 = 0x11;
pub const PREFIX_COUNTER: u32 = 0x12;
pub const PREFIX_DIRECT_COUNTER: u32 = 0x13;
pub const PREFIX_METER: u32 = 0x14;
pub const PREFIX_DIRECT_METER: u32 = 0x15;
pub const PREFIX_REGISTER: u32 = 0x16;
pub const PREFIX_DIGEST: u32 = 0x17;

/// The ids of a program's objects.
#[derive(Debug, Clone, Default)]
pub struct Ids {
    /// By action fq_name (copies of one action in several controls share the id).
    pub actions: HashMap<String, u32>,
    /// Indexed by `TableId`.
    pub tables: Vec<u32>,
    /// Indexed by `ExternId` (0 for externs without a control-plane id, e.g. Hash).
    pub externs: Vec<u32>,
    /// Indexed by `ValueSetId`.
    pub value_sets: Vec<u32>,
    /// Digest type -> (name, id), in first-use order.
    pub digests: Vec<(TypeId, String, u32)>,
    /// `@controller_header("NAME")` header types -> (NAME, id), ordered by name.
    pub controller_headers: Vec<(TypeId, String, u32)>,
}

fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The value of an `@id(N)` annotation, if any.
pub fn id_annotation(anns: &[Annotation]) -> Option<u32> {
    anns.iter().find(|a| a.name == "id").and_then(|a| match a.args.first() {
        Some(AnnotationArg::Int(n)) if *n > 0 && *n <= u32::MAX as i128 => Some(*n as u32),
        Some(AnnotationArg::Raw(s)) => s.trim().parse::<u32>().ok(),
        _ => None,
    })
}

/// The resource-type prefix of an extern instance of kind `kind` (0: no control-plane id).
pub fn extern_prefix(kind: ExternKind) -> u32 {
    match kind {
        ExternKind::V1Counter | ExternKind::PnaCounter => PREFIX_COUNTER,
        ExternKind::V1DirectCounter | ExternKind::PnaDirectCounter => PREFIX_DIRECT_COUNTER,
        ExternKind::V1Meter | ExternKind::PnaMeter => PREFIX_METER,
        ExternKind::V1DirectMeter | ExternKind::PnaDirectMeter => PREFIX_DIRECT_METER,
        ExternKind::V1Register | ExternKind::PnaRegister => PREFIX_REGISTER,
        ExternKind::PnaDigest => PREFIX_DIGEST,
        k if k.is_action_profile() => PREFIX_ACTION_PROFILE,
        _ => 0,
    }
}

/// Assigns ids with probing. `items`: (prefix, name, @id).
struct Assigner {
    used: HashSet<u32>,
}
impl Assigner {
    fn assign(&mut self, items: &[(u32, String, Option<u32>)]) -> BTreeMap<(u32, String), u32> {
        let mut out = BTreeMap::new();
        // explicit ids first
        for (prefix, name, id) in items {
            if let Some(n) = id {
                let full = if n >> 24 == 0 { (prefix << 24) | n } else { *n };
                if self.used.insert(full) || out.contains_key(&(*prefix, name.clone())) {
                    out.insert((*prefix, name.clone()), full);
                }
            }
        }
        let mut rest: Vec<&(u32, String, Option<u32>)> = items
            .iter()
            .filter(|(p, n, _)| !out.contains_key(&(*p, n.clone())))
            .collect();
        rest.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        rest.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        for (prefix, name, _) in rest {
            let mut low = fnv1a(name) & 0x00ff_ffff;
            loop {
                if low == 0 {
                    low = 1;
                }
                let full = (prefix << 24) | low;
                if self.used.insert(full) {
                    out.insert((*prefix, name.clone()), full);
                    break;
                }
                low = (low + 1) & 0x00ff_ffff;
            }
        }
        out
    }
}

/// The digest types a program sends (calls of the `digest` extern function), in first-use order.
pub fn digest_types(p: &Program) -> Vec<TypeId> {
    fn walk(b: &p4dp_ir::Block, out: &mut Vec<TypeId>) {
        p4dp_ir::for_each_call(b, &mut |c| {
            if let p4dp_ir::CallTarget::ExternFunction(n) = &c.target {
                if n == "digest" {
                    let ty = c.type_args.first().copied().or_else(|| match c.args.get(1) {
                        Some(p4dp_ir::Arg::In(e)) => Some(e.ty),
                        _ => None,
                    });
                    if let Some(t) = ty {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
            }
        });
    }
    let mut out = Vec::new();
    for (_, c) in p.controls.iter() {
        walk(&c.body, &mut out);
    }
    for (_, a) in p.actions.iter() {
        walk(&a.body, &mut out);
    }
    for (_, f) in p.functions.iter() {
        walk(&f.body, &mut out);
    }
    out
}

/// The P4Info name of a digest type (its struct/header name, else `digest_<n>`).
pub fn digest_name(p: &Program, t: TypeId, n: usize) -> String {
    match p.types.get(t) {
        p4dp_ir::Type::Struct(s) | p4dp_ir::Type::Header(s) => s.name.clone(),
        _ => format!("digest_{n}"),
    }
}

/// The header types annotated `@controller_header("NAME")` (P4Runtime packet I/O metadata:
/// `packet_in`, `packet_out`), with NAME, ordered by NAME; the first type of a NAME wins.
pub fn controller_header_types(p: &Program) -> Vec<(TypeId, String, Option<u32>)> {
    let mut out: Vec<(TypeId, String, Option<u32>)> = Vec::new();
    for (t, ty) in p.types.iter() {
        let p4dp_ir::Type::Header(s) = ty else { continue };
        for a in s.annotations.iter().filter(|a| a.name == "controller_header") {
            let name = match a.args.first() {
                Some(AnnotationArg::String(n)) => n.clone(),
                Some(AnnotationArg::Raw(r)) => r.trim().trim_matches('"').to_string(),
                _ => continue,
            };
            if !name.is_empty() && !out.iter().any(|(_, n, _)| *n == name) {
                out.push((t, name, id_annotation(&s.annotations)));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// Assign the P4Runtime ids of every control-plane object of `p`.
pub fn assign_ids(p: &Program) -> Ids {
    let mut items: Vec<(u32, String, Option<u32>)> = Vec::new();
    for (_, a) in p.actions.iter() {
        items.push((PREFIX_ACTION, a.fq_name.clone(), id_annotation(&a.annotations)));
    }
    for (_, t) in p.tables.iter() {
        items.push((PREFIX_TABLE, t.fq_name.clone(), id_annotation(&t.annotations)));
    }
    for (_, e) in p.externs.iter() {
        let pre = extern_prefix(e.kind);
        if pre != 0 {
            items.push((pre, e.fq_name.clone(), id_annotation(&e.annotations)));
        }
    }
    for (_, v) in p.value_sets.iter() {
        items.push((PREFIX_VALUE_SET, v.fq_name.clone(), id_annotation(&v.annotations)));
    }
    let dtypes = digest_types(p);
    let dnames: Vec<String> = dtypes.iter().enumerate().map(|(i, t)| digest_name(p, *t, i)).collect();
    for n in &dnames {
        items.push((PREFIX_DIGEST, n.clone(), None));
    }
    let cheaders = controller_header_types(p);
    for (_, n, id) in &cheaders {
        items.push((PREFIX_CONTROLLER_HEADER, n.clone(), *id));
    }
    let mut asg = Assigner { used: HashSet::new() };
    let m = asg.assign(&items);
    let get = |pre: u32, name: &str| m.get(&(pre, name.to_string())).copied().unwrap_or(0);
    Ids {
        actions: p
            .actions
            .iter()
            .map(|(_, a)| (a.fq_name.clone(), get(PREFIX_ACTION, &a.fq_name)))
            .collect(),
        tables: p.tables.iter().map(|(_, t)| get(PREFIX_TABLE, &t.fq_name)).collect(),
        externs: p
            .externs
            .iter()
            .map(|(_, e)| get(extern_prefix(e.kind), &e.fq_name))
            .collect(),
        value_sets: p
            .value_sets
            .iter()
            .map(|(_, v)| get(PREFIX_VALUE_SET, &v.fq_name))
            .collect(),
        digests: dtypes
            .into_iter()
            .zip(dnames)
            .map(|(t, n)| {
                let id = get(PREFIX_DIGEST, &n);
                (t, n, id)
            })
            .collect(),
        controller_headers: cheaders
            .into_iter()
            .map(|(t, n, _)| {
                let id = get(PREFIX_CONTROLLER_HEADER, &n);
                (t, n, id)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probing_and_explicit() {
        let mut a = Assigner { used: HashSet::new() };
        let items = vec![
            (PREFIX_TABLE, "ingress.t".to_string(), None),
            (PREFIX_TABLE, "ingress.u".to_string(), Some(5)),
            (PREFIX_ACTION, "a".to_string(), None),
        ];
        let m = a.assign(&items);
        assert_eq!(m[&(PREFIX_TABLE, "ingress.u".to_string())], 0x0200_0005);
        let t = m[&(PREFIX_TABLE, "ingress.t".to_string())];
        assert_eq!(t >> 24, 2);
        assert_eq!(t & 0xff_ffff, fnv1a("ingress.t") & 0xff_ffff);
        assert_eq!(m[&(PREFIX_ACTION, "a".to_string())] >> 24, 1);
        // a forced collision probes to the next value
        let mut b = Assigner { used: HashSet::new() };
        let low = fnv1a("x") & 0xff_ffff;
        let m = b.assign(&[(1, "y".to_string(), Some(low)), (1, "x".to_string(), None)]);
        assert_eq!(m[&(1, "x".to_string())], (1 << 24) | (low + 1));
    }
}

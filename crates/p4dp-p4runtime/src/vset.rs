//! Parser value sets (`ValueSetEntry`): a MODIFY replaces a set's members as a whole (INSERT
//! and DELETE are INVALID_ARGUMENT, as the specification defines); a read returns the members as
//! written, in canonical bytestrings. A member has one field per field of the element type (one
//! for a scalar, one per struct field), each with the match kind of the P4Info (`@match` on the
//! struct field: EXACT, TERNARY, LPM or OPTIONAL); the runtime keeps a value and a mask per field.

use p4dp_rt::{Program, Runtime, ValueSetInfo, ValueSetMember as RtMember};
use tonic::Code;

use crate::bytes::{canonical, fit, to_u64};
use crate::proto::p4::config::v1::{match_field, P4Info};
use crate::proto::p4::v1::{field_match, FieldMatch, ValueSetEntry, ValueSetMember};
use crate::switch::Pipeline;
use crate::tables::{err, invalid, rt_err, Op, OpError};

pub fn by_id(p: &Program, id: u32) -> Result<&ValueSetInfo, OpError> {
    p.value_sets
        .iter()
        .find(|v| v.id == id)
        .ok_or_else(|| err(Code::NotFound, format!("no value set with id {id}")))
}

/// How a member field matches (from the P4Info).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Exact,
    Ternary,
    Lpm,
    Optional,
}

/// The match kind of each field of value set `id` (EXACT where the P4Info says nothing else).
fn kinds(info: &P4Info, vs: &ValueSetInfo) -> Vec<Kind> {
    use match_field::MatchType as M;
    let fields = info
        .value_sets
        .iter()
        .find(|v| v.preamble.as_ref().is_some_and(|p| p.id == vs.id))
        .map(|v| v.r#match.as_slice())
        .unwrap_or_default();
    (0..vs.widths.len())
        .map(|i| match fields.get(i).and_then(|f| f.r#match.as_ref()) {
            Some(match_field::Match::MatchType(t)) => match M::try_from(*t) {
                Ok(M::Ternary) => Kind::Ternary,
                Ok(M::Lpm) => Kind::Lpm,
                Ok(M::Optional) => Kind::Optional,
                _ => Kind::Exact,
            },
            _ => Kind::Exact,
        })
        .collect()
}

fn all_ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// One field of a member as the runtime's (value, mask), after the checks of its kind.
fn field_of(vs: &ValueSetInfo, i: usize, fid: u32, kind: Kind, f: &FieldMatch) -> Result<(u64, u64), OpError> {
    use field_match::FieldMatchType as F;
    let w = vs.widths[(fid - 1) as usize];
    let bad = |what: &str| invalid(format!("value set {} member {i}: match field {fid}: {what}", vs.name));
    let num = |b: &[u8]| {
        fit(b, w)
            .and_then(|b| to_u64(&b))
            .ok_or_else(|| bad(&format!("value does not fit in {w} bits")))
    };
    let full = all_ones(w);
    match (kind, &f.field_match_type) {
        (Kind::Exact, Some(F::Exact(x))) => Ok((num(&x.value)?, full)),
        (Kind::Optional, Some(F::Optional(x))) => Ok((num(&x.value)?, full)),
        (Kind::Ternary, Some(F::Ternary(x))) => {
            let (v, m) = (num(&x.value)?, num(&x.mask)?);
            if m == 0 {
                return Err(bad("a ternary mask of 0 is a wildcard: omit the field"));
            }
            if v & !m != 0 {
                return Err(bad("value bits outside the mask"));
            }
            Ok((v, m))
        }
        (Kind::Lpm, Some(F::Lpm(x))) => {
            if x.prefix_len <= 0 || x.prefix_len as u32 > w {
                return Err(bad(&format!(
                    "prefix length {} (1..{w}; a prefix of 0 is a wildcard: omit the field)",
                    x.prefix_len
                )));
            }
            let m = full & !all_ones(w - x.prefix_len as u32);
            let v = num(&x.value)?;
            if v & !m != 0 {
                return Err(bad("value bits outside the prefix"));
            }
            Ok((v, m))
        }
        (k, _) => Err(bad(&format!("the field is {}", format!("{k:?}").to_uppercase()))),
    }
}

/// The runtime's members of `e` after every check of the specification (nothing written).
fn members_of(vs: &ValueSetInfo, kinds: &[Kind], e: &ValueSetEntry) -> Result<Vec<RtMember>, OpError> {
    if e.members.len() > vs.size as usize {
        return Err(err(
            Code::ResourceExhausted,
            format!(
                "value set {}: {} members, its size is {}",
                vs.name,
                e.members.len(),
                vs.size
            ),
        ));
    }
    let mut out = Vec::with_capacity(e.members.len());
    for (i, m) in e.members.iter().enumerate() {
        let mut fields: Vec<Option<(u64, u64)>> = vec![None; vs.widths.len()];
        for f in &m.r#match {
            let pos = (f.field_id as usize)
                .checked_sub(1)
                .filter(|&p| p < fields.len())
                .ok_or_else(|| invalid(format!("value set {}: no match field with id {}", vs.name, f.field_id)))?;
            if fields[pos].is_some() {
                return Err(invalid(format!(
                    "value set {} member {i}: match field {} given twice",
                    vs.name, f.field_id
                )));
            }
            fields[pos] = Some(field_of(vs, i, f.field_id, kinds[pos], f)?);
        }
        let fields = fields
            .into_iter()
            .enumerate()
            .map(|(f, x)| match (x, kinds[f]) {
                (Some(x), _) => Ok(x),
                // an omitted non-exact field is a wildcard
                (None, Kind::Ternary | Kind::Lpm | Kind::Optional) => Ok((0, 0)),
                (None, Kind::Exact) => Err(invalid(format!(
                    "value set {} member {i}: match field {} (EXACT) is missing",
                    vs.name,
                    f + 1
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(RtMember { fields });
    }
    Ok(out)
}

/// Validates a write of `e` without writing: the value set's index and its members.
pub fn check(pipe: &Pipeline, e: &ValueSetEntry, op: Op) -> Result<(u32, Vec<RtMember>), OpError> {
    if !matches!(op, Op::Modify) {
        return Err(invalid(
            "value set entries are written with MODIFY only (INSERT and DELETE are invalid)",
        ));
    }
    let vs = by_id(pipe.rt.program(), e.value_set_id)?;
    Ok((vs.index, members_of(vs, &kinds(&pipe.p4info, vs), e)?))
}

/// Writes `e` (a MODIFY: the set's members become `e`'s); on error the set is unchanged.
pub fn write(pipe: &Pipeline, e: &ValueSetEntry, op: Op) -> Result<(), OpError> {
    let (index, members) = check(pipe, e, op)?;
    pipe.rt.value_set_set(index, &members).map_err(rt_err)
}

/// The members of one value set as the runtime holds them, every field as TERNARY (value and
/// mask) whatever its kind: the undo of a batch, restored by [`restore`], never sent to clients.
pub fn snapshot(rt: &Runtime, vs: &ValueSetInfo) -> Result<ValueSetEntry, OpError> {
    let members = rt.value_set_get(vs.index).map_err(rt_err)?;
    Ok(ValueSetEntry {
        value_set_id: vs.id,
        members: members
            .into_iter()
            .map(|m| ValueSetMember {
                r#match: m
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(f, &(v, mask))| FieldMatch {
                        field_id: f as u32 + 1,
                        field_match_type: Some(field_match::FieldMatchType::Ternary(field_match::Ternary {
                            value: v.to_be_bytes().to_vec(),
                            mask: mask.to_be_bytes().to_vec(),
                        })),
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// Writes back a [`snapshot`].
pub fn restore(rt: &Runtime, e: &ValueSetEntry) -> Result<(), OpError> {
    let vs = by_id(rt.program(), e.value_set_id)?;
    let members: Vec<RtMember> = e
        .members
        .iter()
        .map(|m| RtMember {
            fields: m
                .r#match
                .iter()
                .map(|f| match &f.field_match_type {
                    Some(field_match::FieldMatchType::Ternary(t)) => {
                        (to_u64(&t.value).unwrap_or(0), to_u64(&t.mask).unwrap_or(0))
                    }
                    _ => (0, 0),
                })
                .collect(),
        })
        .collect();
    rt.value_set_set(vs.index, &members).map_err(rt_err)
}

/// The entry of one value set as a client wrote it: each field in its kind, wildcards omitted.
pub fn current(pipe: &Pipeline, vs: &ValueSetInfo) -> Result<ValueSetEntry, OpError> {
    use field_match::FieldMatchType as F;
    let members = pipe.rt.value_set_get(vs.index).map_err(rt_err)?;
    let kinds = kinds(&pipe.p4info, vs);
    let bytes = |v: u64| canonical(&v.to_be_bytes());
    Ok(ValueSetEntry {
        value_set_id: vs.id,
        members: members
            .into_iter()
            .map(|m| ValueSetMember {
                r#match: m
                    .fields
                    .iter()
                    .enumerate()
                    .filter_map(|(f, &(v, mask))| {
                        let t = match kinds[f] {
                            Kind::Exact => F::Exact(field_match::Exact { value: bytes(v) }),
                            _ if mask == 0 => return None,
                            Kind::Optional => F::Optional(field_match::Optional { value: bytes(v) }),
                            Kind::Ternary => F::Ternary(field_match::Ternary {
                                value: bytes(v),
                                mask: bytes(mask),
                            }),
                            Kind::Lpm => F::Lpm(field_match::Lpm {
                                value: bytes(v),
                                prefix_len: mask.count_ones() as i32,
                            }),
                        };
                        Some(FieldMatch {
                            field_id: f as u32 + 1,
                            field_match_type: Some(t),
                        })
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// Reads one value set (`value_set_id` != 0) or every one (0).
pub fn read(pipe: &Pipeline, e: &ValueSetEntry, out: &mut Vec<ValueSetEntry>) -> Result<(), OpError> {
    if !e.members.is_empty() {
        return Err(invalid("a value set read must not set members"));
    }
    let p = pipe.rt.program();
    if e.value_set_id == 0 {
        for vs in &p.value_sets {
            out.push(current(pipe, vs)?);
        }
    } else {
        out.push(current(pipe, by_id(p, e.value_set_id)?)?);
    }
    Ok(())
}

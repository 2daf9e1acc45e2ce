//! Parser value sets (`ValueSetEntry`): a MODIFY replaces a set's members as a whole (INSERT
//! and DELETE are INVALID_ARGUMENT, as the specification defines); a read returns the members as
//! written, in canonical bytestrings. Every field of a member is EXACT (the P4Info's match_type:
//! p4dp's value sets are over one `bit<W>`/`int<W>` value).

use p4dp_rt::{Program, Runtime, ValueSetInfo, ValueSetMember as RtMember};
use tonic::Code;

use crate::bytes::{canonical, fit, to_u64};
use crate::proto::p4::v1::{field_match, FieldMatch, ValueSetEntry, ValueSetMember};
use crate::tables::{err, invalid, rt_err, Op, OpError};

pub fn by_id(p: &Program, id: u32) -> Result<&ValueSetInfo, OpError> {
    p.value_sets
        .iter()
        .find(|v| v.id == id)
        .ok_or_else(|| err(Code::NotFound, format!("no value set with id {id}")))
}

/// The runtime's members of `e` after every check of the specification (nothing written).
fn members_of(vs: &ValueSetInfo, e: &ValueSetEntry) -> Result<Vec<RtMember>, OpError> {
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
            let w = vs.widths[pos];
            let v = match &f.field_match_type {
                Some(field_match::FieldMatchType::Exact(x)) => {
                    fit(&x.value, w).and_then(|b| to_u64(&b)).ok_or_else(|| {
                        invalid(format!(
                            "value set {} member {i}: value of match field {} does not fit in {w} bits",
                            vs.name, f.field_id
                        ))
                    })?
                }
                _ => {
                    return Err(invalid(format!(
                        "value set {} member {i}: match field {} is EXACT",
                        vs.name, f.field_id
                    )))
                }
            };
            let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            fields[pos] = Some((v, mask));
        }
        let fields = fields
            .into_iter()
            .enumerate()
            .map(|(f, x)| {
                x.ok_or_else(|| {
                    invalid(format!(
                        "value set {} member {i}: match field {} (EXACT) is missing",
                        vs.name,
                        f + 1
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(RtMember { fields });
    }
    Ok(out)
}

/// Validates a write of `e` without writing: the value set's index and its members.
pub fn check(p: &Program, e: &ValueSetEntry, op: Op) -> Result<(u32, Vec<RtMember>), OpError> {
    if !matches!(op, Op::Modify) {
        return Err(invalid(
            "value set entries are written with MODIFY only (INSERT and DELETE are invalid)",
        ));
    }
    let vs = by_id(p, e.value_set_id)?;
    Ok((vs.index, members_of(vs, e)?))
}

/// Writes `e` (a MODIFY: the set's members become `e`'s); on error the set is unchanged.
pub fn write(rt: &Runtime, e: &ValueSetEntry, op: Op) -> Result<(), OpError> {
    let (index, members) = check(rt.program(), e, op)?;
    rt.value_set_set(index, &members).map_err(rt_err)
}

/// The entry of one value set as the runtime holds it now.
pub fn current(rt: &Runtime, vs: &ValueSetInfo) -> Result<ValueSetEntry, OpError> {
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
                    .map(|(f, &(v, _))| FieldMatch {
                        field_id: f as u32 + 1,
                        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
                            value: canonical(&v.to_be_bytes()),
                        })),
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// Reads one value set (`value_set_id` != 0) or every one (0).
pub fn read(rt: &Runtime, e: &ValueSetEntry, out: &mut Vec<ValueSetEntry>) -> Result<(), OpError> {
    if !e.members.is_empty() {
        return Err(invalid("a value set read must not set members"));
    }
    let p = rt.program();
    if e.value_set_id == 0 {
        for vs in &p.value_sets {
            out.push(current(rt, vs)?);
        }
    } else {
        out.push(current(rt, by_id(p, e.value_set_id)?)?);
    }
    Ok(())
}

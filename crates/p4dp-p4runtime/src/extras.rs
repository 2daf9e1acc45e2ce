//! What a table entry carries besides its match and action: its idle timeout
//! (`idle_timeout_ns`), the configuration of its direct meter (`meter_config`), the value of its
//! direct counter (`counter_data`), the per-colour counts of its direct meter
//! (`meter_counter_data`) and the controller's opaque `metadata` and
//! `controller_metadata`, with the specification's rules for inserts, modifies and reads.
//! All of it is kept by the runtime beside the entry (metadata: `p4dp_runtime_table_entry_meta_set`),
//! so it goes with the entry's delete, whoever deletes it. A table's default entry has them too
//! (no idle timeout): its direct counter and meter cells are the ones a miss counts into and is
//! metered by, and the runtime keeps its metadata beside the table.

use p4dp_rt::{MatchField, Program, Runtime, TableInfo};

use crate::proto::p4::v1::{MeterCounterData, TableEntry};
use crate::tables::{counter_data, counter_value, invalid, meter_value, rt_err, Op, OpError};

/// Most bytes of `metadata` per entry (with 9 bytes of `controller_metadata`, the runtime's
/// limit of 65536).
pub const METADATA_MAX: usize = 65536 - 9;

/// What an insert or modify sets besides the entry itself, after writing it. `None` leaves a
/// part as the write of the entry left it (an insert: the defaults).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    /// The direct counter's value (`counter_data`; a modify without it keeps the value).
    pub counter: Option<p4dp_rt::CounterValue>,
    /// The entry's idle timeout (`idle_timeout_ns`; NOTIFY_CONTROL tables only, where every
    /// insert and modify sets it, 0 included).
    pub ttl: Option<u64>,
    /// The direct meter's configuration (`meter_config`; Some(None) is the default, which a
    /// modify without it restores).
    pub meter: Option<Option<p4dp_rt::MeterConfig>>,
    /// The direct meter's per-colour counts (`meter_counter_data`; a modify without it keeps them).
    pub meter_counts: Option<p4dp_rt::MeterCounts>,
    /// `controller_metadata` and `metadata` encoded ([`encode_meta`]; a modify always sets them,
    /// empty = none).
    pub metadata: Option<Vec<u8>>,
}

impl Extras {
    /// Validates the extras of a written entry (not a default entry) and gives what to set.
    // controller_metadata: deprecated by the specification in favour of metadata, still served
    #[allow(deprecated)]
    pub fn of(p: &Program, t: &TableInfo, e: &TableEntry, op: Op) -> Result<Extras, OpError> {
        if e.time_since_last_hit.is_some() {
            return Err(invalid("time_since_last_hit must not be set in a write"));
        }
        if e.idle_timeout_ns < 0 {
            return Err(invalid("idle_timeout_ns must not be negative"));
        }
        if !t.idle_notify && e.idle_timeout_ns != 0 {
            return Err(invalid(format!(
                "table {} does not support idle timeout (idle_timeout_ns must be 0)",
                t.name
            )));
        }
        if e.meter_config.is_some() && t.direct_meter.is_none() {
            return Err(invalid(format!("table {} has no direct meter", t.name)));
        }
        if e.counter_data.is_some() && t.direct_counter.is_none() {
            return Err(invalid(format!("table {} has no direct counter", t.name)));
        }
        if e.meter_counter_data.is_some() && t.direct_meter.is_none() {
            return Err(invalid(format!("table {} has no direct meter", t.name)));
        }
        if e.metadata.len() > METADATA_MAX {
            return Err(invalid(format!(
                "metadata of {} bytes (at most {METADATA_MAX})",
                e.metadata.len()
            )));
        }
        let meter = match (&e.meter_config, t.direct_meter) {
            (Some(c), Some(x)) => Some(meter_value(c, &p.externs[x as usize])?),
            _ => None,
        };
        let counter = e.counter_data.as_ref().map(counter_value).transpose()?;
        let meter_counts = e.meter_counter_data.as_ref().map(meter_counts_value).transpose()?;
        let meta = encode_meta(e.controller_metadata, &e.metadata);
        Ok(match op {
            Op::Delete => Extras::default(),
            Op::Insert => Extras {
                counter,
                ttl: t.idle_notify.then_some(e.idle_timeout_ns as u64),
                meter: meter.map(Some),
                meter_counts,
                metadata: (!meta.is_empty()).then_some(meta),
            },
            Op::Modify => Extras {
                counter,
                ttl: t.idle_notify.then_some(e.idle_timeout_ns as u64),
                meter: t.direct_meter.is_some().then_some(meter),
                meter_counts,
                metadata: Some(meta),
            },
        })
    }

    /// [`Extras::of`] an update that gives none of them (no idle timeout, direct counter or
    /// meter data, metadata: crate::fastwrite's entries), without an entry to read.
    pub fn of_plain(t: &TableInfo, op: Op) -> Extras {
        match op {
            Op::Delete => Extras::default(),
            Op::Insert => Extras {
                ttl: t.idle_notify.then_some(0),
                ..Extras::default()
            },
            // a modify puts back the meter's default configuration and clears the metadata
            Op::Modify => Extras {
                ttl: t.idle_notify.then_some(0),
                meter: t.direct_meter.is_some().then_some(None),
                metadata: Some(Vec::new()),
                ..Extras::default()
            },
        }
    }

    /// Validates the extras of a default entry's MODIFY and gives what to set: `counter_data`
    /// sets the counter (without it the counter keeps its value), `meter_config` sets the meter
    /// (without it the meter returns to its default), the metadata are always set.
    // controller_metadata: deprecated by the specification in favour of metadata, still served
    #[allow(deprecated)]
    pub fn of_default(p: &Program, t: &TableInfo, e: &TableEntry) -> Result<Extras, OpError> {
        if e.idle_timeout_ns != 0 || e.time_since_last_hit.is_some() {
            return Err(invalid(
                "a default entry has no idle timeout (idle_timeout_ns 0, no time_since_last_hit)",
            ));
        }
        let x = Extras::of(p, t, e, Op::Modify)?;
        Ok(Extras { ttl: None, ..x })
    }

    /// What `rt` holds now for the default entry of `t`, as extras that restore it.
    pub fn current_default(rt: &Runtime, t: &TableInfo) -> Result<Extras, OpError> {
        let counter = match t.direct_counter {
            Some(_) => Some(rt.default_counter_read(t.index).map_err(rt_err)?),
            None => None,
        };
        let meter = match t.direct_meter {
            Some(_) => Some(rt.default_meter_get(t.index).map_err(rt_err)?),
            None => None,
        };
        let meter_counts = match t.direct_meter {
            Some(_) => Some(rt.default_meter_counts_read(t.index).map_err(rt_err)?),
            None => None,
        };
        Ok(Extras {
            counter,
            ttl: None,
            meter,
            meter_counts,
            metadata: Some(rt.default_meta_get(t.index).map_err(rt_err)?),
        })
    }

    /// Sets them on the default entry of table `table`.
    pub fn apply_default(&self, rt: &Runtime, table: u32) -> Result<(), OpError> {
        if let Some(cfg) = self.meter {
            rt.default_meter_set(table, cfg).map_err(rt_err)?;
        }
        if let Some(c) = self.counter {
            rt.default_counter_write(table, c).map_err(rt_err)?;
        }
        if let Some(k) = self.meter_counts {
            rt.default_meter_counts_write(table, k).map_err(rt_err)?;
        }
        if let Some(meta) = &self.metadata {
            rt.default_meta_set(table, meta).map_err(rt_err)?;
        }
        Ok(())
    }

    /// What `rt` holds now for the entry `m`/`prio` of `t`, which exists, as extras that restore
    /// it.
    pub fn current(rt: &Runtime, t: &TableInfo, m: &[MatchField], prio: i32) -> Result<Extras, OpError> {
        let counter = match t.direct_counter {
            Some(_) => Some(rt.direct_counter_read(t.index, m, prio).map_err(rt_err)?),
            None => None,
        };
        let meter = match t.direct_meter {
            Some(_) => Some(rt.direct_meter_get(t.index, m, prio).map_err(rt_err)?),
            None => None,
        };
        let meter_counts = match t.direct_meter {
            Some(_) => Some(rt.direct_meter_counts_read(t.index, m, prio).map_err(rt_err)?),
            None => None,
        };
        let ttl = if t.idle_notify {
            let i = rt.entry_idle_get(t.index, m, prio).map_err(rt_err)?;
            i.own_ttl.then_some(i.ttl_ns)
        } else {
            None
        };
        // perf: a table without metadata has none to read back (the entry exists: its caller
        // read it), and the lookup ran inside a DATAPLANE_ATOMIC batch's stall (see apply)
        let metadata = Some(if rt.table_meta_entries(t.index).map_err(rt_err)? > 0 {
            rt.entry_meta_get(t.index, m, prio).map_err(rt_err)?
        } else {
            Vec::new()
        });
        Ok(Extras {
            counter,
            ttl,
            meter,
            meter_counts,
            metadata,
        })
    }

    /// Sets them on the entry `m`/`prio` of table `table`, which was just written.
    pub fn apply(&self, rt: &Runtime, table: u32, m: &[MatchField], prio: i32) -> Result<(), OpError> {
        if let Some(ttl) = self.ttl {
            rt.entry_ttl_set(table, m, prio, ttl).map_err(rt_err)?;
        }
        if let Some(cfg) = self.meter {
            rt.direct_meter_set(table, m, prio, cfg).map_err(rt_err)?;
        }
        if let Some(c) = self.counter {
            rt.direct_counter_write(table, m, prio, c).map_err(rt_err)?;
        }
        if let Some(k) = self.meter_counts {
            rt.direct_meter_counts_write(table, m, prio, k).map_err(rt_err)?;
        }
        if let Some(meta) = &self.metadata {
            // perf: a modify clears the metadata, which in a table without any changes nothing
            // on the entry just written; skipped, it costs no second lookup of that entry. With
            // the read-back in Extras::current skipped as well, the workers' stall of an 8-modify
            // DATAPLANE_ATOMIC Write fell from 12.0-12.1 to 7.7-7.9 us and its CONTINUE_ON_ERROR
            // d_control from 10.0-10.3 to 6.9-8.4 us (p4runtime-updates, three alternated rounds)
            if !meta.is_empty() || rt.table_meta_entries(table).map_err(rt_err)? > 0 {
                rt.entry_meta_set(table, m, prio, meta).map_err(rt_err)?;
            }
        }
        Ok(())
    }
}

/// The runtime's bytes for `controller_metadata` and `metadata`: nothing when both are unset,
/// else a tag byte (1: a cookie follows), the cookie (8 bytes, big-endian) if set, then `metadata`.
pub fn encode_meta(cookie: u64, metadata: &[u8]) -> Vec<u8> {
    if cookie == 0 && metadata.is_empty() {
        return Vec::new();
    }
    let mut v = Vec::with_capacity(9 + metadata.len());
    if cookie != 0 {
        v.push(1);
        v.extend_from_slice(&cookie.to_be_bytes());
    } else {
        v.push(0);
    }
    v.extend_from_slice(metadata);
    v
}

/// The inverse of [`encode_meta`]: (`controller_metadata`, `metadata`).
pub fn decode_meta(b: &[u8]) -> (u64, Vec<u8>) {
    match b {
        [1, rest @ ..] if rest.len() >= 8 => {
            let mut c = [0u8; 8];
            c.copy_from_slice(&rest[..8]);
            (u64::from_be_bytes(c), rest[8..].to_vec())
        }
        [0, rest @ ..] => (0, rest.to_vec()),
        _ => (0, Vec::new()),
    }
}

/// Per-colour meter counts in runtime form (a colour left out is 0; negative counts
/// INVALID_ARGUMENT).
pub fn meter_counts_value(k: &MeterCounterData) -> Result<p4dp_rt::MeterCounts, OpError> {
    let v = |c: &Option<crate::proto::p4::v1::CounterData>| c.as_ref().map(counter_value).transpose();
    Ok(p4dp_rt::MeterCounts {
        green: v(&k.green)?.unwrap_or_default(),
        yellow: v(&k.yellow)?.unwrap_or_default(),
        red: v(&k.red)?.unwrap_or_default(),
    })
}

/// Per-colour meter counts as the protos have them (every colour set).
pub fn meter_counter_data(k: p4dp_rt::MeterCounts) -> MeterCounterData {
    MeterCounterData {
        green: Some(counter_data(k.green)),
        yellow: Some(counter_data(k.yellow)),
        red: Some(counter_data(k.red)),
    }
}

/// A meter configuration as the protos have it.
pub fn meter_msg(m: p4dp_rt::MeterConfig) -> crate::proto::p4::v1::MeterConfig {
    crate::proto::p4::v1::MeterConfig {
        cir: m.cir as i64,
        cburst: m.cburst as i64,
        pir: m.pir as i64,
        pburst: m.pburst as i64,
        eburst: m.eburst as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_round_trips() {
        for (c, m) in [(0u64, &b""[..]), (0, b"abc"), (7, b""), (u64::MAX, b"\x01\x00")] {
            let b = encode_meta(c, m);
            assert_eq!(b.is_empty(), c == 0 && m.is_empty());
            assert_eq!(decode_meta(&b), (c, m.to_vec()));
        }
    }
}

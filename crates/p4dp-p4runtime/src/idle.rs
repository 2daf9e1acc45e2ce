//! Idle-timeout notifications (P4Runtime "Table Idle Timeout Notification").
//!
//! A table entry's `idle_timeout_ns` is its own TTL in the runtime
//! (`p4dp_runtime_table_entry_ttl_set`, written with the entry by [`crate::tables`]). The
//! runtime's control thread scans the idle-timeout tables every 10 ms and queues each entry not
//! hit for its TTL; the scan restarts the entry's timer, so an entry that stays idle is queued
//! again one TTL later (the specification's reset rule) and one hit again is queued one TTL after
//! its last hit. The notification thread takes the queue and sends one
//! `IdleTimeoutNotification` per table and poll (never an empty one) to the primaries, each entry
//! with its match, priority, `idle_timeout_ns`, `controller_metadata` and `metadata`.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use p4dp_rt::Runtime;

use crate::extras::decode_meta;
use crate::proto::p4::v1::{stream_message_response, IdleTimeoutNotification, StreamMessageResponse, TableEntry};
use crate::tables::{fields_of, ttl_i64};

/// The queued idle-timeout notifications of `rt`, one message per table. Entries without a TTL
/// of their own (installed by the program, never written with `idle_timeout_ns`) have
/// `idle_timeout_ns` 0, which means "never expires", and entries deleted since the scan are gone:
/// neither is reported.
// controller_metadata: deprecated by the specification in favour of metadata, still served
#[allow(deprecated)]
pub(crate) fn poll(rt: &Runtime) -> Vec<StreamMessageResponse> {
    let notes = match rt.idle_poll(0) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("p4runtime: idle-timeout notifications lost: {e}");
            return Vec::new();
        }
    };
    if notes.is_empty() {
        return Vec::new();
    }
    let p = rt.program();
    let mut by_table: BTreeMap<u32, Vec<TableEntry>> = BTreeMap::new();
    for n in notes {
        let Some(t) = p.tables.iter().find(|t| t.index == n.table && t.idle_notify) else {
            continue;
        };
        let (m, prio) = (&n.entry.matches, n.entry.priority);
        let Ok(idle) = rt.entry_idle_get(t.index, m, prio) else {
            continue;
        };
        if !idle.own_ttl || idle.ttl_ns == 0 {
            continue;
        }
        let (controller_metadata, metadata) = rt
            .entry_meta_get(t.index, m, prio)
            .map(|b| decode_meta(&b))
            .unwrap_or_default();
        by_table.entry(t.id).or_default().push(TableEntry {
            table_id: t.id,
            r#match: fields_of(t, m),
            priority: prio,
            idle_timeout_ns: ttl_i64(idle.ttl_ns),
            controller_metadata,
            metadata,
            ..Default::default()
        });
    }
    let timestamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |t| ttl_i64(t.as_nanos().min(u64::MAX as u128) as u64));
    by_table
        .into_values()
        .map(|table_entry| StreamMessageResponse {
            update: Some(stream_message_response::Update::IdleTimeoutNotification(
                IdleTimeoutNotification { table_entry, timestamp },
            )),
        })
        .collect()
}

//! Client arbitration per (device, role) (P4Runtime spec, "Client Arbitration and Controller
//! Replication"): every StreamChannel announces an election id; the controller whose id equals
//! the highest id seen for its role is the primary, the others are backups. An unset id never
//! becomes primary. A second live stream with the same id is refused (INVALID_ARGUMENT). When the
//! primary changes every controller of the role is told (status OK to the primary,
//! ALREADY_EXISTS to backups while a primary exists, NOT_FOUND while none does).
//!
//! Each controller may send a role configuration ([`crate::roles`]); the one in effect for the
//! (device, role) is the primary's, kept when the primary leaves until another becomes primary.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc;
use tonic::{Code, Status};

use crate::proto::google::rpc;
use crate::proto::p4::v1::{stream_message_response, MasterArbitrationUpdate, Role, StreamMessageResponse, Uint128};
use crate::roles::RoleConfig;

pub type StreamTx = mpsc::Sender<Result<StreamMessageResponse, Status>>;

struct Controller {
    stream: u64,
    election_id: Option<u128>,
    tx: StreamTx,
    /// The role config of its last arbitration message (None: full access).
    config: Option<Arc<RoleConfig>>,
}

#[derive(Default)]
struct Group {
    controllers: Vec<Controller>,
    /// Highest election id ever announced for this (device, role).
    max_seen: Option<u128>,
    /// The role config in effect: the primary's, or the last primary's while there is none.
    config: Option<Arc<RoleConfig>>,
}

impl Group {
    fn primary(&self) -> Option<u64> {
        let max = self.max_seen?;
        self.controllers
            .iter()
            .find(|c| c.election_id == Some(max))
            .map(|c| c.stream)
    }

    /// Takes the primary's role config, if there is a primary.
    fn adopt_config(&mut self) {
        if let Some(p) = self.primary() {
            if let Some(c) = self.controllers.iter().find(|c| c.stream == p) {
                self.config = c.config.clone();
            }
        }
    }
}

/// The arbitration state of all streams.
#[derive(Default)]
pub struct Arbiter {
    /// device id -> role -> its group. perf: a Write's check ([`Arbiter::write_access`]) finds
    /// its group by the request's role without an allocation.
    groups: HashMap<u64, HashMap<String, Group>>,
    /// stream id -> its (device, role)
    streams: HashMap<u64, (u64, String)>,
}

pub fn u128_of(id: &Option<Uint128>) -> Option<u128> {
    id.as_ref().map(|u| ((u.high as u128) << 64) | u.low as u128)
}

fn uint128(v: u128) -> Uint128 {
    Uint128 {
        high: (v >> 64) as u64,
        low: v as u64,
    }
}

impl Arbiter {
    /// Handles a MasterArbitrationUpdate on stream `stream`. On error the stream must be ended
    /// with the returned status (its registration is unchanged).
    pub fn update(
        &mut self,
        stream: u64,
        device_id: u64,
        role: &str,
        election_id: Option<u128>,
        config: Option<Arc<RoleConfig>>,
        tx: &StreamTx,
    ) -> Result<(), Status> {
        let key = (device_id, role.to_string());
        if let Some(prev) = self.streams.get(&stream) {
            if *prev != key {
                return Err(Status::new(
                    Code::FailedPrecondition,
                    format!(
                        "this stream is bound to device {} role `{}`: a stream cannot change device or role",
                        prev.0, prev.1
                    ),
                ));
            }
        }
        let g = self
            .groups
            .entry(device_id)
            .or_default()
            .entry(key.1.clone())
            .or_default();
        if let Some(id) = election_id {
            if g.controllers
                .iter()
                .any(|c| c.stream != stream && c.election_id == Some(id))
            {
                return Err(Status::new(
                    Code::InvalidArgument,
                    format!("election id {id} is already used by another controller of this role"),
                ));
            }
        }
        let before = g.primary();
        match g.controllers.iter_mut().find(|c| c.stream == stream) {
            Some(c) => {
                c.election_id = election_id;
                c.config = config;
            }
            None => g.controllers.push(Controller {
                stream,
                election_id,
                tx: tx.clone(),
                config,
            }),
        }
        if let Some(id) = election_id {
            g.max_seen = Some(g.max_seen.map_or(id, |m| m.max(id)));
        }
        self.streams.insert(stream, key.clone());
        let after = g.primary();
        g.adopt_config();
        if before != after {
            notify_all(device_id, role, g);
        } else if let Some(c) = g.controllers.iter().find(|c| c.stream == stream) {
            let _ = c.tx.try_send(Ok(message(device_id, role, g, c.stream)));
        }
        Ok(())
    }

    /// A stream ended: forget it and tell the others if it was the primary.
    pub fn remove(&mut self, stream: u64) {
        let Some(key) = self.streams.remove(&stream) else {
            return;
        };
        let Some(g) = self.groups.get_mut(&key.0).and_then(|d| d.get_mut(&key.1)) else {
            return;
        };
        let before = g.primary();
        g.controllers.retain(|c| c.stream != stream);
        g.adopt_config();
        if before != g.primary() {
            notify_all(key.0, &key.1, g);
        }
    }

    /// Is `election_id` the primary's for (device, role)? Write and SetForwardingPipelineConfig
    /// are allowed only then.
    pub fn is_primary(&self, device_id: u64, role: &str, election_id: Option<u128>) -> bool {
        self.write_access(device_id, role, election_id).is_some()
    }

    /// A Write's check: None when `election_id` is not the primary's for (device, role), else
    /// the role config in effect ([`Arbiter::role_config`]), both from one lookup.
    pub fn write_access(
        &self,
        device_id: u64,
        role: &str,
        election_id: Option<u128>,
    ) -> Option<Option<Arc<RoleConfig>>> {
        let id = election_id?;
        let g = self.group(device_id, role)?;
        let s = g.primary()?;
        g.controllers
            .iter()
            .any(|c| c.stream == s && c.election_id == Some(id))
            .then(|| g.config.clone())
    }

    fn group(&self, device_id: u64, role: &str) -> Option<&Group> {
        self.groups.get(&device_id)?.get(role)
    }

    /// Is stream `stream` the primary of its (device, role)?
    pub fn is_primary_stream(&self, stream: u64) -> bool {
        let Some(key) = self.streams.get(&stream) else {
            return false;
        };
        self.group(key.0, &key.1).and_then(|g| g.primary()) == Some(stream)
    }

    /// The role config in effect for (device, role): None for full access (no config, or a
    /// role no controller has announced).
    pub fn role_config(&self, device_id: u64, role: &str) -> Option<Arc<RoleConfig>> {
        self.group(device_id, role)?.config.clone()
    }

    /// The role config in effect for the role of stream `stream`.
    pub fn stream_config(&self, stream: u64) -> Option<Arc<RoleConfig>> {
        let (d, role) = self.streams.get(&stream)?;
        self.group(*d, role)?.config.clone()
    }

    /// The primaries' streams of every role of `device_id`, each with its role's config: where
    /// PacketIns, digests and idle-timeout notifications go (each role's primary gets those its
    /// config allows).
    pub fn primaries(&self, device_id: u64) -> Vec<(StreamTx, Option<Arc<RoleConfig>>)> {
        let mut out = Vec::new();
        for g in self.groups.get(&device_id).into_iter().flat_map(|d| d.values()) {
            if let Some(s) = g.primary() {
                if let Some(c) = g.controllers.iter().find(|c| c.stream == s) {
                    out.push((c.tx.clone(), g.config.clone()));
                }
            }
        }
        out
    }

    /// The primary's stream of (device, role), to deliver PacketIn/digests/notifications.
    pub fn primary_tx(&self, device_id: u64, role: &str) -> Option<StreamTx> {
        let g = self.group(device_id, role)?;
        let s = g.primary()?;
        g.controllers.iter().find(|c| c.stream == s).map(|c| c.tx.clone())
    }
}

fn message(device_id: u64, role: &str, g: &Group, stream: u64) -> StreamMessageResponse {
    let primary = g.primary();
    let (code, msg) = match primary {
        Some(p) if p == stream => (Code::Ok, "you are the primary"),
        Some(_) => (Code::AlreadyExists, "a primary exists: you are a backup"),
        None => (Code::NotFound, "there is no primary"),
    };
    StreamMessageResponse {
        update: Some(stream_message_response::Update::Arbitration(MasterArbitrationUpdate {
            device_id,
            role: if role.is_empty() {
                None
            } else {
                #[allow(deprecated)]
                Some(Role {
                    id: 0,
                    name: role.to_string(),
                    config: None,
                })
            },
            election_id: g.max_seen.map(uint128),
            status: Some(rpc::Status {
                code: code as i32,
                message: msg.to_string(),
                details: vec![],
            }),
        })),
    }
}

fn notify_all(device_id: u64, role: &str, g: &Group) {
    for c in &g.controllers {
        let _ = c.tx.try_send(Ok(message(device_id, role, g, c.stream)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(rx: &mut mpsc::Receiver<Result<StreamMessageResponse, Status>>) -> Option<i32> {
        match rx.try_recv() {
            Ok(Ok(StreamMessageResponse {
                update: Some(stream_message_response::Update::Arbitration(a)),
            })) => a.status.map(|s| s.code),
            _ => None,
        }
    }

    #[test]
    fn primary_backup_and_failover() {
        let mut a = Arbiter::default();
        let (t1, mut r1) = mpsc::channel(8);
        let (t2, mut r2) = mpsc::channel(8);
        let (t3, mut r3) = mpsc::channel(8);
        a.update(1, 1, "", Some(5), None, &t1).unwrap();
        assert_eq!(status_of(&mut r1), Some(Code::Ok as i32));
        a.update(2, 1, "", Some(3), None, &t2).unwrap();
        assert_eq!(status_of(&mut r2), Some(Code::AlreadyExists as i32));
        assert!(a.is_primary(1, "", Some(5)));
        assert!(!a.is_primary(1, "", Some(3)));
        // same id as a live controller
        assert_eq!(
            a.update(3, 1, "", Some(5), None, &t3).unwrap_err().code(),
            Code::InvalidArgument
        );
        // an unset id is a backup
        a.update(3, 1, "", None, None, &t3).unwrap();
        assert_eq!(status_of(&mut r3), Some(Code::AlreadyExists as i32));
        // changing device on a stream
        assert_eq!(
            a.update(3, 2, "", None, None, &t3).unwrap_err().code(),
            Code::FailedPrecondition
        );
        // the primary leaves: no primary (5 is still the highest seen), everyone told
        a.remove(1);
        assert_eq!(status_of(&mut r2), Some(Code::NotFound as i32));
        assert_eq!(status_of(&mut r3), Some(Code::NotFound as i32));
        assert!(!a.is_primary(1, "", Some(3)));
        // a backup takes over with a higher id
        a.update(2, 1, "", Some(6), None, &t2).unwrap();
        assert_eq!(status_of(&mut r2), Some(Code::Ok as i32));
        assert_eq!(status_of(&mut r3), Some(Code::AlreadyExists as i32));
        assert!(a.is_primary(1, "", Some(6)));
        // another role is independent
        assert!(!a.is_primary(1, "other", Some(6)));
    }

    #[test]
    fn the_primarys_config_is_the_roles() {
        let mut a = Arbiter::default();
        let (t1, _r1) = mpsc::channel(8);
        let (t2, _r2) = mpsc::channel(8);
        let cfg = |id| {
            Some(Arc::new(RoleConfig {
                p4_ids: vec![id],
                ..Default::default()
            }))
        };
        assert!(a.role_config(1, "r").is_none(), "an unknown role has full access");
        a.update(1, 1, "r", Some(5), cfg(100), &t1).unwrap();
        a.update(2, 1, "r", Some(3), cfg(200), &t2).unwrap();
        assert_eq!(
            a.role_config(1, "r").unwrap().p4_ids,
            vec![100],
            "the backup's config waits"
        );
        assert_eq!(a.stream_config(2).unwrap().p4_ids, vec![100]);
        // the primary leaves: its config stays until another becomes primary
        a.remove(1);
        assert_eq!(a.role_config(1, "r").unwrap().p4_ids, vec![100]);
        a.update(2, 1, "r", Some(6), cfg(200), &t2).unwrap();
        assert_eq!(a.role_config(1, "r").unwrap().p4_ids, vec![200]);
        // the primary drops its config: full access
        a.update(2, 1, "r", Some(6), None, &t2).unwrap();
        assert!(a.role_config(1, "r").is_none());
        assert_eq!(a.primaries(1).len(), 1);
    }

    #[test]
    fn a_writes_access_is_its_roles_primary_and_config() {
        let mut a = Arbiter::default();
        let chans: Vec<_> = (0..4).map(|_| mpsc::channel(8)).collect();
        let cfg = Arc::new(RoleConfig {
            p4_ids: vec![7],
            ..Default::default()
        });
        a.update(1, 1, "r", Some(5), Some(cfg.clone()), &chans[0].0).unwrap();
        a.update(2, 1, "r", Some(3), None, &chans[1].0).unwrap();
        a.update(3, 1, "", Some(3), None, &chans[2].0).unwrap();
        a.update(4, 2, "r", Some(9), None, &chans[3].0).unwrap();
        // the primary of (1, "r") with that role's config; its backup, an unset id and an
        // unknown role or device get nothing
        assert_eq!(
            a.write_access(1, "r", Some(5)).map(|c| c.map(|c| c.p4_ids.clone())),
            Some(Some(vec![7]))
        );
        assert_eq!(a.write_access(1, "r", Some(3)), None);
        assert_eq!(a.write_access(1, "r", None), None);
        assert_eq!(a.write_access(1, "q", Some(5)), None);
        assert_eq!(a.write_access(3, "r", Some(5)), None);
        // the same election id in another role or on another device is that group's own
        assert_eq!(a.write_access(1, "", Some(3)), Some(None));
        assert_eq!(a.write_access(2, "r", Some(9)), Some(None));
        assert_eq!(a.write_access(2, "r", Some(5)), None);
        // each device's primaries, over its roles
        assert_eq!(a.primaries(1).len(), 2);
        assert_eq!(a.primaries(2).len(), 1);
        assert_eq!(a.primaries(3).len(), 0);
        // a primary that leaves takes its access with it; the other groups keep theirs
        a.remove(1);
        assert_eq!(a.write_access(1, "r", Some(5)), None);
        assert_eq!(a.write_access(1, "", Some(3)), Some(None));
        assert!(a.is_primary_stream(4) && !a.is_primary_stream(2));
    }
}

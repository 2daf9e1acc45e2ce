//! Role configurations (P4Runtime "Role Config"): what the controllers of one role may do. The
//! specification leaves the format of `Role.config` (an `Any`) to the target; p4dp's is
//! `p4dp.v1.RoleConfig` (`proto/p4dp/v1/role_config.proto`): the P4 objects the role may write
//! (by P4Info id or name) and whose notifications it receives, and whether it may write the
//! replication engine, receive PacketIns, send PacketOuts and set the pipeline. An unset config is
//! full pipeline access. The config in effect for a (device, role) is its primary's
//! ([`crate::arbitration`]); a [`Scope`] resolves it against one pipeline's P4Info.

use std::collections::HashSet;
use std::sync::Arc;

use prost::Message;

use crate::proto::p4::config::v1::{P4Info, Preamble};
use crate::proto::p4::v1::{entity, stream_message_response, Entity, StreamMessageResponse, Update};
pub use crate::proto::p4dp::v1::RoleConfig;

/// The full name of p4dp's role configuration message; an `Any`'s type URL must end with it.
pub const ROLE_CONFIG_TYPE: &str = "p4dp.v1.RoleConfig";

/// A `Role.config` p4dp cannot use.
#[derive(Debug, thiserror::Error)]
pub enum RoleConfigError {
    #[error("a role config of type `{0}`: p4dp takes `type.googleapis.com/{ROLE_CONFIG_TYPE}` (see docs/p4runtime.md, Roles)")]
    WrongType(String),
    #[error("the role config does not decode as {ROLE_CONFIG_TYPE}: {0}")]
    Decode(#[from] prost::DecodeError),
}

/// `cfg` as a `Role.config` (an `Any` with p4dp's type URL), for Rust clients.
pub fn to_any(cfg: &RoleConfig) -> prost_types::Any {
    prost_types::Any {
        type_url: format!("type.googleapis.com/{ROLE_CONFIG_TYPE}"),
        value: cfg.encode_to_vec(),
    }
}

/// Decodes a `Role.config`.
pub fn parse(any: &prost_types::Any) -> Result<Arc<RoleConfig>, RoleConfigError> {
    let ty = any.type_url.rsplit('/').next().unwrap_or_default();
    if ty != ROLE_CONFIG_TYPE {
        return Err(RoleConfigError::WrongType(any.type_url.clone()));
    }
    Ok(Arc::new(RoleConfig::decode(any.value.as_slice())?))
}

/// What an entity belongs to, for the role check.
enum Target {
    /// A P4 object by its P4Info id (0 when the entity names none).
    Object(u32),
    /// Multicast groups and clone sessions.
    Replication,
}

fn target(e: &entity::Entity) -> Target {
    use entity::Entity as E;
    let table_of = |t: &Option<crate::proto::p4::v1::TableEntry>| t.as_ref().map_or(0, |t| t.table_id);
    Target::Object(match e {
        E::ExternEntry(x) => x.extern_id,
        E::TableEntry(t) => t.table_id,
        E::ActionProfileMember(m) => m.action_profile_id,
        E::ActionProfileGroup(g) => g.action_profile_id,
        E::MeterEntry(m) => m.meter_id,
        E::DirectMeterEntry(d) => table_of(&d.table_entry),
        E::CounterEntry(c) => c.counter_id,
        E::DirectCounterEntry(d) => table_of(&d.table_entry),
        E::PacketReplicationEngineEntry(_) => return Target::Replication,
        E::ValueSetEntry(v) => v.value_set_id,
        E::RegisterEntry(r) => r.register_id,
        E::DigestEntry(d) => d.digest_id,
    })
}

/// Every preamble of a P4Info (the objects a role config may name).
fn preambles(info: &P4Info) -> Vec<&Preamble> {
    let mut v: Vec<Option<&Preamble>> = Vec::new();
    v.extend(info.tables.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.action_profiles.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.counters.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.direct_counters.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.meters.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.direct_meters.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.value_sets.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.registers.iter().map(|t| t.preamble.as_ref()));
    v.extend(info.digests.iter().map(|t| t.preamble.as_ref()));
    v.extend(
        info.externs
            .iter()
            .flat_map(|x| x.instances.iter().map(|i| i.preamble.as_ref())),
    );
    v.into_iter().flatten().collect()
}

/// A role's config resolved against one pipeline: its P4 object ids (its names looked up in the
/// P4Info; a name or id the program does not have allows nothing).
pub struct Scope {
    cfg: Arc<RoleConfig>,
    ids: HashSet<u32>,
}

impl Scope {
    pub fn new(cfg: Arc<RoleConfig>, info: &P4Info) -> Scope {
        let mut ids: HashSet<u32> = cfg.p4_ids.iter().copied().collect();
        if !cfg.p4_names.is_empty() {
            for p in preambles(info) {
                if cfg
                    .p4_names
                    .iter()
                    .any(|n| *n == p.name || (!p.alias.is_empty() && *n == p.alias))
                {
                    ids.insert(p.id);
                }
            }
        }
        Scope { cfg, ids }
    }

    /// May the role write (and read, in a Read with its name) this entity?
    pub fn allows(&self, e: &entity::Entity) -> bool {
        match target(e) {
            Target::Object(id) => self.ids.contains(&id),
            Target::Replication => self.cfg.packet_replication,
        }
    }

    /// May the role write what this update writes? (An update without an entity is left to the
    /// write's own validation.)
    pub fn allows_update(&self, u: &Update) -> bool {
        u.entity
            .as_ref()
            .and_then(|e| e.entity.as_ref())
            .is_none_or(|e| self.allows(e))
    }

    /// Does the role's primary get this stream message (a DigestList, an
    /// IdleTimeoutNotification, a PacketIn)?
    pub fn receives(&self, m: &StreamMessageResponse) -> bool {
        use stream_message_response::Update as U;
        match &m.update {
            Some(U::Digest(d)) => self.ids.contains(&d.digest_id),
            Some(U::IdleTimeoutNotification(n)) => {
                n.table_entry.first().is_some_and(|t| self.ids.contains(&t.table_id))
            }
            Some(U::Packet(_)) => self.cfg.receive_packet_in,
            _ => true,
        }
    }

    pub fn config(&self) -> &RoleConfig {
        &self.cfg
    }
}

/// Keeps the entities a role may read (a Read that names a role returns only those).
pub fn filter_read(scope: &Scope, entities: &mut Vec<Entity>) {
    entities.retain(|e| e.entity.as_ref().is_some_and(|x| scope.allows(x)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::p4::config::v1::Table;
    use crate::proto::p4::v1::{packet_replication_engine_entry, PacketReplicationEngineEntry, TableEntry};

    fn table(id: u32, name: &str, alias: &str) -> Table {
        Table {
            preamble: Some(Preamble {
                id,
                name: name.into(),
                alias: alias.into(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn entry(table_id: u32) -> entity::Entity {
        entity::Entity::TableEntry(TableEntry {
            table_id,
            ..Default::default()
        })
    }

    #[test]
    fn ids_names_and_aliases() {
        let info = P4Info {
            tables: vec![
                table(10, "ingress.a", "a"),
                table(11, "ingress.b", "b"),
                table(12, "ingress.c", "c"),
            ],
            ..Default::default()
        };
        let cfg = Arc::new(RoleConfig {
            p4_ids: vec![10],
            p4_names: vec!["ingress.b".into(), "c".into(), "nothing".into()],
            ..Default::default()
        });
        let s = Scope::new(cfg, &info);
        assert!(s.allows(&entry(10)) && s.allows(&entry(11)) && s.allows(&entry(12)));
        assert!(!s.allows(&entry(13)));
        let pre = entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
            r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
                Default::default(),
            )),
        });
        assert!(!s.allows(&pre));
    }

    #[test]
    fn wrong_type_and_bad_bytes() {
        let any = |t: &str, v: Vec<u8>| prost_types::Any {
            type_url: t.into(),
            value: v,
        };
        assert!(matches!(
            parse(&any("type.googleapis.com/p4.v1.Role", vec![])),
            Err(RoleConfigError::WrongType(_))
        ));
        assert!(matches!(
            parse(&any("type.googleapis.com/p4dp.v1.RoleConfig", vec![0x0a, 0x05])),
            Err(RoleConfigError::Decode(_))
        ));
        let c = RoleConfig {
            p4_ids: vec![1, 2],
            ..Default::default()
        };
        assert_eq!(
            parse(&any("x/p4dp.v1.RoleConfig", c.encode_to_vec())).unwrap().p4_ids,
            vec![1, 2]
        );
    }
}

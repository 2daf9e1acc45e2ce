//! The P4Runtime gRPC service. Every RPC runs its checks in the specification's order and
//! answers with its error codes. Handlers run on tokio's blocking threads (control threads);
//! the data plane's workers never wait for them: the runtime's control API publishes changes
//! with RCU and release/acquire stores.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Code, Request, Response, Status, Streaming};

use crate::arbitration::{u128_of, Arbiter};
use crate::batch::Atomicity;
use crate::device_config::DeviceConfig;
use crate::externs::Pre;
use crate::p4info;
use crate::proto::google::rpc;
use crate::proto::p4::v1::p4_runtime_server::P4Runtime;
use crate::proto::p4::v1::*;
use crate::roles::Scope;
use crate::switch::{Compiler, Device, DeviceOptions, Pipeline};
use crate::tables::{self, Op, OpError};

/// The P4Runtime API version this server implements.
pub const API_VERSION: &str = "1.5.0";
/// Most updates in one WriteRequest (more: RESOURCE_EXHAUSTED).
pub const MAX_UPDATES_PER_WRITE: usize = 1 << 20;
/// Largest message accepted or sent (device configs carry whole programs).
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;
/// Writes of at most this many updates run on the gRPC thread that received them (they take up
/// to 1-2 ms; a DATAPLANE_ATOMIC one also waits for the workers to park at a burst boundary, one
/// loop iteration of theirs), and other clients' requests and streams wait that long; longer
/// ones on a blocking thread, so that they do not hold up that thread for tens of milliseconds.
/// perf: the hand-off to a blocking thread and back cost two thread wake-ups per Write, and the
/// two threads then ran at once, one of them on the worker's CPU when the control threads have
/// no CPUs of their own: at 64, batched inserts of 1000 ran at 0.62-0.88M entries/s against
/// 0.83-1.09M at 1024 (alternated runs, docs/p4runtime.md).
const INLINE_WRITE_MAX: usize = 1024;
/// The HTTP/2 receive window of a P4Runtime connection (all its streams) and of one stream, in
/// bytes (serve).
const HTTP2_CONNECTION_WINDOW: u32 = 16 << 20;
const HTTP2_STREAM_WINDOW: u32 = 4 << 20;
/// Read responses are split so that each stays below this size.
const READ_CHUNK_BYTES: usize = 4 << 20;

pub(crate) struct State {
    pub(crate) arb: Arbiter,
    pub(crate) dev: Device,
    /// Per pipeline: the replication engine entries as written (reset by a commit).
    pre: Pre,
    saved_pre: Option<Pre>,
}

/// The shared server state.
pub struct Shared {
    state: Mutex<State>,
    compiler: Arc<dyn Compiler>,
    next_stream: AtomicU64,
    pub(crate) device_id: u64,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves consistent runtime state (every runtime call is
        // atomic); keep serving.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The P4Runtime service (cheap to clone).
#[derive(Clone)]
pub struct Service {
    pub(crate) s: Arc<Shared>,
}

fn status(e: OpError) -> Status {
    Status::new(e.code, e.msg)
}

impl Service {
    pub fn new(opts: DeviceOptions, compiler: Arc<dyn Compiler>) -> Service {
        let device_id = opts.device_id;
        let svc = Service {
            s: Arc::new(Shared {
                state: Mutex::new(State {
                    arb: Arbiter::default(),
                    dev: Device::new(opts),
                    pre: Pre::default(),
                    saved_pre: None,
                }),
                compiler,
                next_stream: AtomicU64::new(1),
                device_id,
            }),
        };
        crate::stream::spawn_poller(Arc::downgrade(&svc.s));
        svc
    }

    /// The tonic server of this service, with p4dp's message size limits; its Write method reads
    /// the request's bytes itself (crate::codec::WriteRoute).
    pub fn into_server(self) -> crate::codec::WriteRoute {
        crate::codec::WriteRoute::new(self, MAX_MESSAGE_BYTES)
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.s.lock()
    }

    /// Installs a pipeline from a compiled program at start-up (`p4dp run --p4runtime`).
    pub fn install(&self, compiled: &crate::switch::CompiledProgram, cfg: &DeviceConfig) -> Result<(), String> {
        let info = p4info::parse_text(&compiled.p4info_text).map_err(|e| e.to_string())?;
        let mut st = self.lock();
        let p = st.dev.load(compiled, info, cfg.encode(), None, cfg.name.clone())?;
        st.dev.commit(p)?;
        st.pre = Pre::default();
        Ok(())
    }

    /// Stops the data plane (workers joined). Used at shutdown.
    pub fn shutdown(&self) -> Result<(), String> {
        self.lock().dev.stop_workers()
    }

    /// Number of pipeline switch-overs so far.
    pub fn switchovers(&self) -> u64 {
        self.lock().dev.switchovers
    }

    /// The data-plane thread's error, if it ended by itself.
    pub fn dataplane_error(&self) -> Option<String> {
        self.lock().dev.check_runner()
    }

    fn check_device(&self, id: u64) -> Result<(), Status> {
        if id != self.s.device_id {
            return Err(Status::not_found(format!(
                "unknown device id {id} (this switch is device {})",
                self.s.device_id
            )));
        }
        Ok(())
    }

    /// A Write: decoded by prost already, or its bytes read by crate::fastwrite (decoded by prost
    /// when that does not read them), then applied.
    fn write_blocking(&self, body: WriteBody) -> Result<(), Status> {
        match body {
            WriteBody::Decoded(r) => self.write_updates(&WriteHead::of(&r), Updates::Decoded(&r.updates)),
            WriteBody::Encoded(b) => match crate::fastwrite::parse(&b) {
                Some(w) => self.write_updates(
                    &WriteHead {
                        device_id: w.device_id,
                        role: w.role,
                        election_id: u128_of(&w.election_id),
                        atomicity: w.atomicity,
                    },
                    Updates::Fast(&w),
                ),
                None => {
                    let r = crate::codec::decode_write(&b)?;
                    self.write_updates(&WriteHead::of(&r), Updates::Decoded(&r.updates))
                }
            },
        }
    }

    fn write_updates(&self, r: &WriteHead, updates: Updates) -> Result<(), Status> {
        self.check_device(r.device_id)?;
        let mut st = self.lock();
        let Some(role_config) = st.arb.write_access(r.device_id, r.role, r.election_id) else {
            return Err(Status::permission_denied(
                "only the primary controller of this role may write (election id does not match the primary's)",
            ));
        };
        let st = &mut *st;
        let (pipe, pre) = match (&st.dev.saved, &st.dev.active) {
            (Some(p), _) => (p, st.saved_pre.get_or_insert_with(Pre::default)),
            (None, Some(p)) => (p, &mut st.pre),
            (None, None) => {
                return Err(Status::failed_precondition(
                    "no forwarding pipeline config has been set",
                ))
            }
        };
        let mode = match write_request::Atomicity::try_from(r.atomicity) {
            Ok(write_request::Atomicity::ContinueOnError) => Atomicity::ContinueOnError,
            Ok(write_request::Atomicity::RollbackOnError) => Atomicity::RollbackOnError,
            Ok(write_request::Atomicity::DataplaneAtomic) => Atomicity::DataplaneAtomic,
            Err(_) => return Err(Status::invalid_argument(format!("unknown atomicity {}", r.atomicity))),
        };
        let n = match updates {
            Updates::Decoded(u) => u.len(),
            Updates::Fast(w) => w.updates.len(),
        };
        if n > MAX_UPDATES_PER_WRITE {
            return Err(Status::resource_exhausted(format!(
                "{n} updates in one write: at most {MAX_UPDATES_PER_WRITE}"
            )));
        }
        let results = match (role_config, updates) {
            (None, Updates::Fast(w)) if mode == Atomicity::ContinueOnError => {
                crate::batch::continue_on_error_fast(pipe, pre, w)
            }
            (role_config, updates) => {
                // prost's form of fast-read updates for the other paths
                let owned;
                let updates = match updates {
                    Updates::Decoded(u) => u,
                    Updates::Fast(w) => {
                        owned = w.to_updates();
                        &owned[..]
                    }
                };
                match role_config {
                    None => crate::batch::write(pipe, pre, updates, mode),
                    Some(cfg) => write_in_role(pipe, pre, updates, mode, &Scope::new(cfg, &pipe.p4info)),
                }
            }
        };
        if results.iter().all(|x| x.is_ok()) {
            return Ok(());
        }
        Err(batch_error(&results))
    }

    /// [`Service::write_blocking`], and where its time went when the handler that started at
    /// `timed` asked for timing.
    fn write_stamped(
        &self,
        r: WriteBody,
        timed: Option<crate::timing::Start>,
    ) -> (Result<(), Status>, Option<crate::timing::ControlParts>) {
        crate::timing::stamped(
            timed,
            || self.with_active(|rt| rt.run_clock()).flatten(),
            || self.write_blocking(r),
        )
    }

    fn read_blocking(&self, r: ReadRequest) -> Result<Vec<ReadResponse>, Status> {
        self.check_device(r.device_id)?;
        let st = self.lock();
        let pre = if st.dev.saved.is_some() {
            st.saved_pre.as_ref()
        } else {
            Some(&st.pre)
        };
        let pipe = st
            .dev
            .current()
            .ok_or_else(|| Status::failed_precondition("no forwarding pipeline config has been set"))?;
        let mut entities = Vec::new();
        for e in &r.entities {
            read_entity(pipe, pre, e, &mut entities).map_err(status)?;
        }
        if !r.role.is_empty() {
            if let Some(cfg) = st.arb.role_config(r.device_id, &r.role) {
                crate::roles::filter_read(&Scope::new(cfg, &pipe.p4info), &mut entities);
            }
        }
        // split below the message limit
        let mut out = vec![ReadResponse::default()];
        let mut size = 0;
        for e in entities {
            let n = e.encoded_len();
            if size + n > READ_CHUNK_BYTES && !out.last().is_some_and(|r| r.entities.is_empty()) {
                out.push(ReadResponse::default());
                size = 0;
            }
            size += n;
            if let Some(last) = out.last_mut() {
                last.entities.push(e);
            }
        }
        Ok(out)
    }

    fn set_pipeline_blocking(&self, r: SetForwardingPipelineConfigRequest) -> Result<(), Status> {
        use set_forwarding_pipeline_config_request::Action as A;
        self.check_device(r.device_id)?;
        {
            let st = self.lock();
            if !st.arb.is_primary(r.device_id, &r.role, u128_of(&r.election_id)) {
                return Err(Status::permission_denied(
                    "only the primary controller of this role may set the forwarding pipeline",
                ));
            }
            if st
                .arb
                .role_config(r.device_id, &r.role)
                .is_some_and(|c| !c.set_pipeline)
            {
                return Err(Status::permission_denied(format!(
                    "role `{}` may not set the forwarding pipeline (its role config has no set_pipeline)",
                    r.role
                )));
            }
        }
        let action = A::try_from(r.action).unwrap_or(A::Unspecified);
        match action {
            A::Unspecified => return Err(Status::invalid_argument("the action is unspecified")),
            A::Commit => {
                let mut st = self.lock();
                let Some(p) = st.dev.saved.take() else {
                    return Err(Status::failed_precondition(
                        "COMMIT without a config saved by VERIFY_AND_SAVE",
                    ));
                };
                let pre = st.saved_pre.take().unwrap_or_default();
                st.dev.commit(p).map_err(Status::internal)?;
                st.pre = pre;
                return Ok(());
            }
            A::Verify | A::VerifyAndSave | A::VerifyAndCommit | A::ReconcileAndCommit => {}
        }
        let cfg = r.config.ok_or_else(|| Status::invalid_argument("no config given"))?;
        let client_info = cfg
            .p4info
            .clone()
            .ok_or_else(|| Status::invalid_argument("the config has no P4Info"))?;
        let dc = DeviceConfig::decode(&cfg.p4_device_config).map_err(|e| Status::invalid_argument(e.to_string()))?;
        // compile outside the lock: it takes seconds
        let compiled = self.s.compiler.compile(&dc).map_err(Status::invalid_argument)?;
        let own = p4info::parse_text(&compiled.p4info_text).map_err(|e| Status::internal(e.to_string()))?;
        if !p4info::same_program(&own, &client_info) {
            return Err(Status::invalid_argument(
                "the P4Info does not describe the program in the device config (build both with the same `p4dp build`)",
            ));
        }
        if action == A::Verify {
            return Ok(());
        }
        let mut st = self.lock();
        let p = st
            .dev
            .load(
                &compiled,
                client_info,
                cfg.p4_device_config,
                cfg.cookie.map(|c| c.cookie),
                dc.name.clone(),
            )
            .map_err(Status::invalid_argument)?;
        if action == A::VerifyAndSave {
            st.dev.saved = Some(p);
            st.saved_pre = Some(Pre::default());
            return Ok(());
        }
        let mut pre = Pre::default();
        if action == A::ReconcileAndCommit {
            // from the state reads and writes see: the saved pipeline's if one is saved
            let (old, old_pre) = match (st.dev.saved.as_ref(), st.saved_pre.as_ref()) {
                (Some(s), Some(sp)) => (Some(s), sp),
                _ => (st.dev.active.as_ref(), &st.pre),
            };
            if let Some(old) = old {
                let c = crate::reconcile::carry(old, old_pre, &p, &mut pre).map_err(|e| Status::new(e.code, e.msg))?;
                eprintln!(
                    "p4runtime: RECONCILE_AND_COMMIT keeps {} entries, {} default entries, {} members, {} groups, {} extern cells, {} value sets, {} digest configurations, {} replication entries{}",
                    c.entries,
                    c.defaults,
                    c.members,
                    c.groups,
                    c.cells,
                    c.value_sets,
                    c.digests,
                    c.replication,
                    if c.reset.is_empty() {
                        String::new()
                    } else {
                        format!("; reset (changed or removed): {}", c.reset.join(", "))
                    }
                );
            }
        }
        st.dev.commit(p).map_err(Status::internal)?;
        st.pre = pre;
        st.saved_pre = None;
        Ok(())
    }

    fn get_pipeline_blocking(&self, r: GetForwardingPipelineConfigRequest) -> Result<ForwardingPipelineConfig, Status> {
        use get_forwarding_pipeline_config_request::ResponseType as T;
        self.check_device(r.device_id)?;
        let st = self.lock();
        let Some(p) = st.dev.active.as_ref() else {
            // no pipeline: an empty config (no P4Info, no cookie)
            return Ok(ForwardingPipelineConfig::default());
        };
        let cookie = p.cookie.map(|c| forwarding_pipeline_config::Cookie { cookie: c });
        let t = T::try_from(r.response_type)
            .map_err(|_| Status::invalid_argument(format!("unknown response type {}", r.response_type)))?;
        Ok(ForwardingPipelineConfig {
            p4info: matches!(t, T::All | T::P4infoAndCookie).then(|| p.p4info.clone()),
            p4_device_config: if matches!(t, T::All | T::DeviceConfigAndCookie) {
                p.device_config.clone()
            } else {
                vec![]
            },
            cookie,
        })
    }
}

/// A Write's request: decoded by prost, or its encoding (the Write route of [`Service::into_server`]).
pub enum WriteBody {
    Decoded(WriteRequest),
    Encoded(prost::bytes::Bytes),
}

impl WriteBody {
    /// How many updates it has (counted in the encoding without decoding it).
    fn len(&self) -> usize {
        match self {
            WriteBody::Decoded(r) => r.updates.len(),
            WriteBody::Encoded(b) => crate::codec::count_updates(b),
        }
    }
}

/// What a Write's checks read besides its updates.
struct WriteHead<'a> {
    device_id: u64,
    role: &'a str,
    election_id: Option<u128>,
    atomicity: i32,
}

impl WriteHead<'_> {
    fn of(r: &WriteRequest) -> WriteHead<'_> {
        WriteHead {
            device_id: r.device_id,
            role: &r.role,
            election_id: u128_of(&r.election_id),
            atomicity: r.atomicity,
        }
    }
}

/// A Write's updates: prost's messages, or table entries read from the encoding.
#[derive(Clone, Copy)]
enum Updates<'a, 'b> {
    Decoded(&'a [Update]),
    Fast(&'a crate::fastwrite::FastWrite<'b>),
}

pub(crate) fn update_op(u: &Update) -> Result<Op, OpError> {
    match update::Type::try_from(u.r#type) {
        Ok(update::Type::Insert) => Ok(Op::Insert),
        Ok(update::Type::Modify) => Ok(Op::Modify),
        Ok(update::Type::Delete) => Ok(Op::Delete),
        _ => Err(tables::invalid("the update type is unspecified")),
    }
}

pub(crate) fn apply(p: &Pipeline, pre: &mut Pre, u: &Update) -> Result<(), OpError> {
    use crate::externs as x;
    use entity::Entity as E;
    let op = update_op(u)?;
    let is_modify = matches!(op, Op::Modify);
    let rt = &*p.rt;
    match u.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        None => Err(tables::invalid("the update has no entity")),
        Some(E::TableEntry(t)) => crate::actprof::of(p).write_entry(rt, t, op),
        Some(E::CounterEntry(c)) => x::write_counter(rt, c, is_modify),
        Some(E::RegisterEntry(r)) => x::write_register(rt, r, is_modify),
        Some(E::MeterEntry(m)) => x::write_meter(rt, m, is_modify),
        Some(E::DirectCounterEntry(d)) => x::write_direct_counter(rt, d, is_modify),
        Some(E::DirectMeterEntry(d)) => x::write_direct_meter(rt, d, is_modify),
        Some(E::DigestEntry(d)) => crate::stream::digests(p).write(d, op),
        Some(E::ValueSetEntry(v)) => crate::vset::write(p, v, op),
        Some(E::ActionProfileMember(m)) => crate::actprof::of(p).write_member(rt, m, op),
        Some(E::ActionProfileGroup(g)) => crate::actprof::of(p).write_group(rt, g, op),
        Some(E::PacketReplicationEngineEntry(pe)) => match &pe.r#type {
            Some(packet_replication_engine_entry::Type::MulticastGroupEntry(g)) => pre.write_group(rt, g, op),
            Some(packet_replication_engine_entry::Type::CloneSessionEntry(c)) => pre.write_clone(rt, c, op),
            None => Err(tables::invalid("empty packet replication engine entry")),
        },
        Some(E::ExternEntry(e)) => Err(x::no_extern_type(e.extern_type_id)),
    }
}

pub(crate) fn read_entity(p: &Pipeline, pre: Option<&Pre>, e: &Entity, out: &mut Vec<Entity>) -> Result<(), OpError> {
    use crate::externs as x;
    use entity::Entity as E;
    let rt = &*p.rt;
    let prog = rt.program();
    match e.entity.as_ref() {
        None => return Err(tables::invalid("an empty entity in a read")),
        Some(E::TableEntry(te)) => {
            let ts: Vec<&p4dp_rt::TableInfo> = if te.table_id == 0 {
                if !te.r#match.is_empty() || te.is_default_action {
                    return Err(tables::invalid("a match or is_default_action needs a table id"));
                }
                prog.tables.iter().collect()
            } else {
                vec![tables::table_by_id(prog, te.table_id)?]
            };
            let mut v = Vec::new();
            for t in ts {
                if te.table_id == 0 && t.keys.is_empty() {
                    continue;
                }
                tables::read(rt, t, te, &mut v)?;
            }
            crate::actprof::of(p).restore_one_shots(prog, &mut v);
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::TableEntry(t)),
            }));
        }
        Some(E::CounterEntry(c)) => {
            let mut v = Vec::new();
            x::read_counter(rt, c, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::CounterEntry(t)),
            }));
        }
        Some(E::RegisterEntry(c)) => {
            let mut v = Vec::new();
            x::read_register(rt, c, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::RegisterEntry(t)),
            }));
        }
        Some(E::MeterEntry(c)) => {
            let mut v = Vec::new();
            x::read_meter(rt, c, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::MeterEntry(t)),
            }));
        }
        Some(E::ActionProfileMember(m)) => {
            let mut v = Vec::new();
            crate::actprof::of(p).read_member(rt, m, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::ActionProfileMember(t)),
            }));
        }
        Some(E::ActionProfileGroup(g)) => {
            let mut v = Vec::new();
            crate::actprof::of(p).read_group(rt, g, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::ActionProfileGroup(t)),
            }));
        }
        Some(E::DigestEntry(d)) => {
            let mut v = Vec::new();
            crate::stream::digests(p).read(d, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::DigestEntry(t)),
            }));
        }
        Some(E::DirectCounterEntry(c)) => {
            let mut v = Vec::new();
            x::read_direct_counter(rt, c, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::DirectCounterEntry(t)),
            }));
        }
        Some(E::ValueSetEntry(e)) => {
            let mut v = Vec::new();
            crate::vset::read(p, e, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::ValueSetEntry(t)),
            }));
        }
        Some(E::DirectMeterEntry(c)) => {
            let mut v = Vec::new();
            x::read_direct_meter(rt, c, &mut v)?;
            out.extend(v.into_iter().map(|t| Entity {
                entity: Some(E::DirectMeterEntry(t)),
            }));
        }
        Some(E::PacketReplicationEngineEntry(pe)) => {
            let pre = pre.ok_or_else(|| tables::err(Code::Internal, "no replication engine state"))?;
            let wrap = |t| Entity {
                entity: Some(E::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
                    r#type: Some(t),
                })),
            };
            use packet_replication_engine_entry::Type as P;
            match &pe.r#type {
                Some(P::MulticastGroupEntry(g)) if g.multicast_group_id != 0 => {
                    if let Some(x) = pre.groups.get(&g.multicast_group_id) {
                        out.push(wrap(P::MulticastGroupEntry(x.clone())));
                    }
                }
                Some(P::MulticastGroupEntry(_)) => {
                    out.extend(pre.groups.values().map(|x| wrap(P::MulticastGroupEntry(x.clone()))))
                }
                Some(P::CloneSessionEntry(c)) if c.session_id != 0 => {
                    if let Some(x) = pre.clones.get(&c.session_id) {
                        out.push(wrap(P::CloneSessionEntry(x.clone())));
                    }
                }
                Some(P::CloneSessionEntry(_)) => {
                    out.extend(pre.clones.values().map(|x| wrap(P::CloneSessionEntry(x.clone()))))
                }
                None => {
                    out.extend(pre.groups.values().map(|x| wrap(P::MulticastGroupEntry(x.clone()))));
                    out.extend(pre.clones.values().map(|x| wrap(P::CloneSessionEntry(x.clone()))));
                }
            }
        }
        // a wildcard over the architecture-specific externs, of which the P4Info lists none
        Some(E::ExternEntry(x)) if x.extern_type_id == 0 => {}
        Some(E::ExternEntry(x)) => return Err(x::no_extern_type(x.extern_type_id)),
    }
    Ok(())
}

/// A Write of a role with a config: an update outside the role is PERMISSION_DENIED. With
/// CONTINUE_ON_ERROR the others are applied; in the all-or-nothing modes nothing is written (the
/// others ABORTED) when one is outside.
fn write_in_role(
    pipe: &Pipeline,
    pre: &mut Pre,
    updates: &[Update],
    mode: Atomicity,
    scope: &Scope,
) -> Vec<Result<(), OpError>> {
    let allowed: Vec<bool> = updates.iter().map(|u| scope.allows_update(u)).collect();
    if allowed.iter().all(|a| *a) {
        return crate::batch::write(pipe, pre, updates, mode);
    }
    let denied = || {
        Err(tables::err(
            Code::PermissionDenied,
            "the entity is outside this controller's role (its role config does not list it)",
        ))
    };
    if !matches!(mode, Atomicity::ContinueOnError) {
        return allowed
            .iter()
            .map(|a| match a {
                false => denied(),
                true => Err(tables::err(
                    Code::Aborted,
                    "not attempted: another update of this batch is outside the role",
                )),
            })
            .collect();
    }
    let inside: Vec<Update> = updates
        .iter()
        .zip(&allowed)
        .filter(|(_, a)| **a)
        .map(|(u, _)| u.clone())
        .collect();
    let mut applied = crate::batch::write(pipe, pre, &inside, mode).into_iter();
    allowed
        .iter()
        .map(|a| match a {
            false => denied(),
            true => applied.next().unwrap_or(Ok(())),
        })
        .collect()
}

/// The Write error of a batch with failed updates: UNKNOWN, with one `p4.v1.Error` per update
/// (in order; OK for the updates that succeeded) in the status details.
fn batch_error(results: &[Result<(), OpError>]) -> Status {
    let details: Vec<prost_types::Any> = results
        .iter()
        .map(|r| {
            let e = match r {
                Ok(()) => Error {
                    canonical_code: Code::Ok as i32,
                    ..Default::default()
                },
                Err(e) => Error {
                    canonical_code: e.code as i32,
                    message: e.msg.clone(),
                    ..Default::default()
                },
            };
            prost_types::Any {
                type_url: "type.googleapis.com/p4.v1.Error".into(),
                value: e.encode_to_vec(),
            }
        })
        .collect();
    let n = results.iter().filter(|r| r.is_err()).count();
    let msg = format!("{n} of {} updates failed", results.len());
    let st = rpc::Status {
        code: Code::Unknown as i32,
        message: msg.clone(),
        details,
    };
    Status::with_details(Code::Unknown, msg, st.encode_to_vec().into())
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, Status> + Send + 'static) -> Result<T, Status> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Status::internal(format!("the request handler failed: {e}")))?
}

impl Service {
    /// The Write handler: a Write of at most INLINE_WRITE_MAX updates runs on this thread, a
    /// longer one on a blocking thread.
    pub async fn write_body(&self, request: Request<WriteBody>) -> Result<Response<WriteResponse>, Status> {
        let timed = crate::timing::requested(request.metadata());
        // perf: the request's metadata and extensions are dropped after the Write is applied,
        // not before (their frees were on an update's way to the data plane)
        let (metadata, extensions, r) = request.into_parts();
        let (res, parts) = if r.len() <= INLINE_WRITE_MAX {
            // perf: a short Write runs here, on the gRPC thread that decoded it: a hand-off to a
            // blocking thread and back cost two thread wake-ups per Write, more than the Write
            // (on a loaded machine each wake-up can wait for a CPU for milliseconds). A short
            // DATAPLANE_ATOMIC Write too: its barrier holds this thread for one loop iteration of
            // the workers plus its few updates (the bench's "barrier" and "stall" rows)
            self.write_stamped(r, timed)
        } else {
            let me = self.clone();
            blocking(move || Ok(me.write_stamped(r, timed))).await?
        };
        res?;
        let mut resp = Response::new(WriteResponse {});
        if let Some(start) = timed {
            let control = start.at.elapsed();
            let clock = self.with_active(|rt| rt.run_clock()).flatten();
            crate::timing::annotate(&mut resp, control, parts, clock);
        }
        drop((metadata, extensions));
        Ok(resp)
    }
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(&self, request: Request<WriteRequest>) -> Result<Response<WriteResponse>, Status> {
        self.write_body(request.map(WriteBody::Decoded)).await
    }

    type ReadStream = BoxStream<ReadResponse>;

    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<Self::ReadStream>, Status> {
        let me = self.clone();
        let r = request.into_inner();
        let chunks = blocking(move || me.read_blocking(r)).await?;
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks.into_iter().map(Ok)))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<SetForwardingPipelineConfigResponse>, Status> {
        let me = self.clone();
        let r = request.into_inner();
        blocking(move || me.set_pipeline_blocking(r)).await?;
        Ok(Response::new(SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        request: Request<GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<GetForwardingPipelineConfigResponse>, Status> {
        let me = self.clone();
        let r = request.into_inner();
        let config = blocking(move || me.get_pipeline_blocking(r)).await?;
        Ok(Response::new(GetForwardingPipelineConfigResponse {
            config: Some(config),
        }))
    }

    type StreamChannelStream = BoxStream<StreamMessageResponse>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let mut inbound = request.into_inner();
        let (tx, rx) = mpsc::channel(256);
        let me = self.clone();
        let stream = self.s.next_stream.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let mut arbitrated = false;
            while let Some(msg) = inbound.next().await {
                let Ok(msg) = msg else { break };
                use stream_message_request::Update as U;
                match msg.update {
                    Some(U::Arbitration(a)) => {
                        if a.device_id != me.s.device_id {
                            let _ = tx
                                .send(Err(Status::not_found(format!("unknown device id {}", a.device_id))))
                                .await;
                            break;
                        }
                        let config = match a.role.as_ref().and_then(|r| r.config.as_ref()) {
                            None => None,
                            Some(any) => match crate::roles::parse(any) {
                                Ok(c) => Some(c),
                                Err(e) => {
                                    let _ = tx.send(Err(Status::invalid_argument(e.to_string()))).await;
                                    break;
                                }
                            },
                        };
                        let role = a.role.map(|r| r.name).unwrap_or_default();
                        let res =
                            me.lock()
                                .arb
                                .update(stream, a.device_id, &role, u128_of(&a.election_id), config, &tx);
                        if let Err(e) = res {
                            let _ = tx.send(Err(e)).await;
                            break;
                        }
                        arbitrated = true;
                    }
                    Some(_) if !arbitrated => {
                        let _ = tx
                            .send(Err(Status::failed_precondition(
                                "the first message on a stream must be a MasterArbitrationUpdate",
                            )))
                            .await;
                        break;
                    }
                    Some(U::Packet(p)) => {
                        if let Some(e) = crate::stream::packet_out(&me, stream, p) {
                            let _ = tx
                                .send(Ok(StreamMessageResponse {
                                    update: Some(stream_message_response::Update::Error(e)),
                                }))
                                .await;
                        }
                    }
                    Some(U::DigestAck(a)) => {
                        let Some(e) = crate::stream::digest_ack(&me, stream, a) else {
                            continue;
                        };
                        let _ = tx
                            .send(Ok(StreamMessageResponse {
                                update: Some(stream_message_response::Update::Error(e)),
                            }))
                            .await;
                    }
                    Some(U::Other(_)) | None => {}
                }
            }
            me.lock().arb.remove(stream);
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn capabilities(&self, _r: Request<CapabilitiesRequest>) -> Result<Response<CapabilitiesResponse>, Status> {
        Ok(Response::new(CapabilitiesResponse {
            p4runtime_api_version: API_VERSION.into(),
            ..Default::default()
        }))
    }
}

/// TLS for the P4Runtime server: its certificate chain and private key (PEM), and for mutual
/// TLS the CA (PEM) whose certificates clients must present (a client without one is refused
/// during the handshake).
#[derive(Clone, Debug)]
pub struct TlsConfig {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
    pub client_ca_pem: Option<Vec<u8>>,
}

/// A TLS configuration that cannot be used, with the reason.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("the TLS certificate holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    NoCertificate,
    #[error("the TLS key holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)")]
    NoKey,
    #[error("the TLS client CA holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    NoClientCa,
    #[error("the TLS configuration is invalid: {0}")]
    Invalid(String),
}

impl TlsConfig {
    /// tonic's server configuration, after checking that each part holds PEM of its kind and
    /// that rustls accepts them (a key that does not parse or match is an error here, not at the
    /// first connection).
    pub fn server_config(&self) -> Result<tonic::transport::ServerTlsConfig, TlsError> {
        let has = |pem: &[u8], what: &str| {
            let t = String::from_utf8_lossy(pem);
            t.lines().any(|l| l.starts_with("-----BEGIN ") && l.contains(what))
        };
        if !has(&self.cert_pem, "CERTIFICATE-----") {
            return Err(TlsError::NoCertificate);
        }
        if !has(&self.key_pem, "PRIVATE KEY-----") {
            return Err(TlsError::NoKey);
        }
        let mut cfg = tonic::transport::ServerTlsConfig::new()
            .identity(tonic::transport::Identity::from_pem(&self.cert_pem, &self.key_pem));
        if let Some(ca) = &self.client_ca_pem {
            if !has(ca, "CERTIFICATE-----") {
                return Err(TlsError::NoClientCa);
            }
            cfg = cfg
                .client_ca_root(tonic::transport::Certificate::from_pem(ca))
                .client_auth_optional(false);
        }
        // tonic builds the rustls configuration here: bad PEM contents or a key that does not
        // match the certificate fail now
        tonic::transport::Server::builder()
            .tls_config(cfg.clone())
            .map_err(|e| TlsError::Invalid(error_chain(&e)))?;
        Ok(cfg)
    }
}

/// An error and its sources on one line.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Where P4Runtime is served: a TCP socket, or a Unix stream socket for a controller on the
/// same host (docs/p4runtime.md "Unix socket").
pub enum Listener {
    Tcp(tokio::net::TcpListener),
    Unix(tokio::net::UnixListener),
}

/// Serves P4Runtime on a bound listener until `shutdown` resolves, over TLS when `tls` is given
/// (TCP only: a Unix socket's file permissions say who may connect, and one given with TLS is
/// refused).
pub async fn serve(
    svc: Service,
    listener: Listener,
    tls: Option<&TlsConfig>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), String> {
    // HTTP/2 flow control: receive windows that hold the Writes a controller keeps in flight
    // (hyper's default of 1 MiB per connection holds two of 10000 inserts, about 400 KB each:
    // the sender then waits for WINDOW_UPDATEs)
    let mut b = tonic::transport::Server::builder()
        .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
        .initial_stream_window_size(HTTP2_STREAM_WINDOW);
    if let Some(t) = tls {
        if matches!(listener, Listener::Unix(_)) {
            return Err(
                "P4Runtime TLS is for TCP addresses: a Unix socket's file permissions say who may connect".into(),
            );
        }
        let cfg = t.server_config().map_err(|e| e.to_string())?;
        b = b
            .tls_config(cfg)
            .map_err(|e| format!("P4Runtime TLS: {}", error_chain(&e)))?;
    }
    let router = b
        .add_service(svc.clone().into_server())
        .add_service(crate::ports::server(svc));
    // `shutdown` starts tonic's graceful stop (no new connections, the open ones told to go
    // away) and, SHUTDOWN_GRACE later, ends the open connections too
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopping = {
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    };
    let signal = async move {
        shutdown.await;
        let _ = stop_tx.send(true);
        std::future::pending::<()>().await
    };
    let served = match listener {
        Listener::Tcp(l) => {
            // TCP_NODELAY on every accepted connection (tonic sets it only on listeners it
            // binds itself): with Nagle's algorithm a small write (a response's trailers, a
            // flow-control WINDOW_UPDATE while a large Write arrives) waits for the peer's
            // delayed ACK, up to 40 ms
            let incoming = tonic::transport::server::TcpIncoming::from(l).with_nodelay(Some(true));
            until_stopped(router.serve_with_incoming_shutdown(incoming, stopping), signal, stop_rx).await
        }
        Listener::Unix(l) => {
            let incoming = tokio_stream::wrappers::UnixListenerStream::new(l);
            until_stopped(router.serve_with_incoming_shutdown(incoming, stopping), signal, stop_rx).await
        }
    };
    served.map_err(|e| format!("P4Runtime server: {e}"))
}

/// How long a stopping server lets its open connections finish: a Write being applied completes
/// and its response is sent. A controller's StreamChannel never ends by itself, and tonic's
/// graceful stop would wait for it for ever: a switch asked to stop (SIGTERM, `--duration`) with
/// a controller connected would not.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs `server` until it ends, or until SHUTDOWN_GRACE after `signal` marked `stop` (then the
/// server and its connections are dropped: their sockets close).
async fn until_stopped<E>(
    server: impl std::future::Future<Output = Result<(), E>>,
    signal: impl std::future::Future<Output = ()>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), E> {
    let grace_over = async move {
        let _ = stop.wait_for(|s| *s).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        r = server => r,
        () = signal => unreachable!("the stop signal's future never ends"),
        () = grace_over => Ok(()),
    }
}

impl Service {
    /// Calls `f` with the forwarding pipeline's runtime (None: no pipeline). For start-up work
    /// such as installing table entries from a file.
    pub fn with_active<R>(&self, f: impl FnOnce(&p4dp_rt::Runtime) -> R) -> Option<R> {
        let st = self.lock();
        st.dev.active.as_ref().map(|p| f(&p.rt))
    }
}

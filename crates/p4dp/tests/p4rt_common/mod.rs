//! Helpers of the P4Runtime stream tests: a `p4dp serve` on pcap ports, raw tonic stubs for
//! arbitration, pipeline push, writes and reads, and the stream's messages by kind.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;

pub const DEVICE: u64 = 1;

pub struct Switch {
    child: Child,
    pub addr: String,
}

impl Drop for Switch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Switch {
    /// The switch process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4dp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `p4dp build` of `tests/p4runtime/NAME.p4` into `dir`: (P4Info, device config).
pub fn build(name: &str, dir: &Path) -> (P4Info, Vec<u8>) {
    build_file(&root().join(format!("tests/p4runtime/{name}.p4")), dir)
}

/// `p4dp build` of the program at `path` (named by its file stem) into `dir`.
pub fn build_file(path: &Path, dir: &Path) -> (P4Info, Vec<u8>) {
    let name = path.file_stem().and_then(|s| s.to_str()).expect("a program file name");
    let st = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("build")
        .arg(path)
        .arg("-o")
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .expect("run p4dp build");
    assert!(st.success(), "p4dp build failed");
    let text = std::fs::read_to_string(dir.join(format!("{name}.p4info.txtpb"))).expect("p4info");
    (
        p4dp_p4runtime::p4info::parse_text(&text).expect("P4Info parses"),
        std::fs::read(dir.join(format!("{name}.device.bin"))).expect("device config"),
    )
}

/// `p4dp serve` with the given extra arguments, which it must refuse before it serves: its
/// standard error.
pub fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["serve", "--p4runtime", "127.0.0.1:0", "--duration", "5", "--mem", "256"])
        .args(args)
        .stdout(Stdio::null())
        .output()
        .expect("run p4dp serve");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "p4dp serve accepted {args:?}: {err}");
    err
}

/// `p4dp serve` with the given extra arguments (ports), for up to 120 s.
pub fn start(args: &[String]) -> Switch {
    start_for(args, 120)
}

/// `p4dp serve` with the given extra arguments (ports), for up to `secs` seconds.
pub fn start_for(args: &[String], secs: u64) -> Switch {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args([
            "serve",
            "--p4runtime",
            &addr,
            "--duration",
            &secs.to_string(),
            "--mem",
            "256",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start p4dp serve");
    Switch { child, addr }
}

/// The output files of a switch's pcap ports: port `i` writes `out[i]`.
pub struct Ports {
    pub out: Vec<PathBuf>,
}

impl Ports {
    /// How many frames each port has written so far.
    pub fn counts(&self) -> Vec<usize> {
        self.out.iter().map(|p| p4dp_testutil::pcap::written(p).len()).collect()
    }
}

/// `p4dp serve` on pcap ports 0 to 2, port `i` reading an empty `in{i}.pcap` in `dir` (so that
/// only PacketOuts enter) and writing `out{i}.pcap`.
pub fn start_on_three_ports(dir: &Path) -> (Switch, Ports) {
    let mut args = vec![];
    let mut out = vec![];
    for i in 0..3 {
        let inp = dir.join(format!("in{i}.pcap"));
        p4dp_testutil::pcap::write(&inp, &[]);
        let o = dir.join(format!("out{i}.pcap"));
        args.push("--port".to_string());
        args.push(format!("{i}={}:{}", inp.display(), o.display()));
        out.push(o);
    }
    (start(&args), Ports { out })
}

pub async fn connect(addr: &str) -> P4RuntimeClient<Channel> {
    for _ in 0..100 {
        if let Ok(c) = P4RuntimeClient::connect(format!("http://{addr}")).await {
            return c
                .max_decoding_message_size(64 << 20)
                .max_encoding_message_size(64 << 20);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("cannot connect to {addr}");
}

pub fn eid(v: u64) -> Option<Uint128> {
    Some(Uint128 { high: 0, low: v })
}

/// A controller's stream: send with `tx`, receive with [`Stream::next_of`].
pub struct Stream {
    pub tx: mpsc::Sender<StreamMessageRequest>,
    pub rx: tonic::Streaming<StreamMessageResponse>,
}

impl Stream {
    /// Opens a stream and arbitrates with `election`; asserts the arbitration answer `want`.
    pub async fn open(c: &mut P4RuntimeClient<Channel>, election: u64, want: Code) -> Stream {
        Stream::open_role(c, None, election, want).await
    }

    /// [`Stream::open`] for a role (its name and config) instead of the default role.
    pub async fn open_role(c: &mut P4RuntimeClient<Channel>, role: Option<Role>, election: u64, want: Code) -> Stream {
        let (tx, rx) = mpsc::channel(64);
        tx.send(StreamMessageRequest {
            update: Some(stream_message_request::Update::Arbitration(MasterArbitrationUpdate {
                device_id: DEVICE,
                election_id: eid(election),
                role,
                ..Default::default()
            })),
        })
        .await
        .expect("send arbitration");
        let rx = c
            .stream_channel(ReceiverStream::new(rx))
            .await
            .expect("stream")
            .into_inner();
        let mut s = Stream { tx, rx };
        let a = s
            .next_of(Duration::from_secs(10), |u| match u {
                stream_message_response::Update::Arbitration(a) => Some(a),
                _ => None,
            })
            .await
            .expect("an arbitration answer");
        assert_eq!(Code::from(a.status.map_or(-1, |s| s.code)), want, "arbitration");
        s
    }

    pub async fn send(&self, u: stream_message_request::Update) {
        self.tx
            .send(StreamMessageRequest { update: Some(u) })
            .await
            .expect("send on the stream");
    }

    /// A PacketOut of `payload` without metadata.
    pub async fn packet_out(&self, payload: Vec<u8>) {
        self.send(stream_message_request::Update::Packet(PacketOut {
            payload,
            metadata: vec![],
        }))
        .await;
    }

    /// The next message `pick` accepts within `t` (others are skipped); None on timeout.
    pub async fn next_of<T>(
        &mut self,
        t: Duration,
        mut pick: impl FnMut(stream_message_response::Update) -> Option<T>,
    ) -> Option<T> {
        let end = Instant::now() + t;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.rx.next()).await {
                Ok(Some(Ok(m))) => {
                    if let Some(x) = m.update.and_then(&mut pick) {
                        return Some(x);
                    }
                }
                Ok(Some(Err(e))) => panic!("the stream ended with {e:?}"),
                Ok(None) => panic!("the stream ended"),
                Err(_) => return None,
            }
        }
    }

    pub async fn packet_in(&mut self, t: Duration) -> Option<PacketIn> {
        self.next_of(t, |u| match u {
            stream_message_response::Update::Packet(p) => Some(p),
            _ => None,
        })
        .await
    }

    pub async fn stream_error(&mut self, t: Duration) -> Option<StreamError> {
        self.next_of(t, |u| match u {
            stream_message_response::Update::Error(e) => Some(e),
            _ => None,
        })
        .await
    }

    pub async fn digest(&mut self, t: Duration) -> Option<DigestList> {
        self.next_of(t, |u| match u {
            stream_message_response::Update::Digest(d) => Some(d),
            _ => None,
        })
        .await
    }

    pub async fn idle_notification(&mut self, t: Duration) -> Option<IdleTimeoutNotification> {
        self.next_of(t, |u| match u {
            stream_message_response::Update::IdleTimeoutNotification(n) => Some(n),
            _ => None,
        })
        .await
    }
}

/// VERIFY_AND_COMMIT of the program as primary `election`.
pub async fn push(c: &mut P4RuntimeClient<Channel>, election: u64, info: &P4Info, dc: &[u8]) {
    c.set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        election_id: eid(election),
        action: set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
        config: Some(ForwardingPipelineConfig {
            p4info: Some(info.clone()),
            p4_device_config: dc.to_vec(),
            cookie: None,
        }),
        ..Default::default()
    })
    .await
    .expect("VERIFY_AND_COMMIT");
}

/// The id of the P4Info object named `name` (tables, actions, digests, action profiles,
/// counters, registers, meters, controller headers).
pub fn id_of(info: &P4Info, name: &str) -> u32 {
    let pre = info
        .tables
        .iter()
        .filter_map(|t| t.preamble.as_ref())
        .chain(info.actions.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.digests.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.action_profiles.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.counters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.registers.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.direct_counters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.meters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.direct_meters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(
            info.controller_packet_metadata
                .iter()
                .filter_map(|a| a.preamble.as_ref()),
        )
        .find(|p| p.name == name);
    pre.unwrap_or_else(|| panic!("no {name} in the P4Info")).id
}

pub fn update(t: update::Type, e: entity::Entity) -> Update {
    Update {
        r#type: t as i32,
        entity: Some(Entity { entity: Some(e) }),
    }
}

/// The code of the single update of a failed one-update Write.
pub fn one_code(r: Result<(), tonic::Status>) -> Code {
    let s = r.expect_err("the write fails");
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = p4dp_p4runtime::proto::google::rpc::Status::decode(s.details()).expect("details");
    assert_eq!(st.details.len(), 1);
    Code::from(
        Error::decode(st.details[0].value.as_slice())
            .expect("p4.v1.Error")
            .canonical_code,
    )
}

pub async fn write(c: &mut P4RuntimeClient<Channel>, election: u64, updates: Vec<Update>) -> Result<(), tonic::Status> {
    c.write(WriteRequest {
        device_id: DEVICE,
        election_id: eid(election),
        updates,
        ..Default::default()
    })
    .await
    .map(|_| ())
}

pub async fn read(c: &mut P4RuntimeClient<Channel>, e: entity::Entity) -> Result<Vec<entity::Entity>, tonic::Status> {
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: vec![Entity { entity: Some(e) }],
            ..Default::default()
        })
        .await?
        .into_inner();
    let mut out = vec![];
    while let Some(r) = s.next().await {
        out.extend(r?.entities.into_iter().filter_map(|e| e.entity));
    }
    Ok(out)
}

/// Reads the given entities (one request); the answer in a canonical order (sorted encodings), so
/// that two reads of the same state compare equal.
pub async fn read_sorted(c: &mut P4RuntimeClient<Channel>, what: Vec<entity::Entity>) -> Vec<Vec<u8>> {
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: what.into_iter().map(|e| Entity { entity: Some(e) }).collect(),
            ..Default::default()
        })
        .await
        .expect("read")
        .into_inner();
    let mut out = vec![];
    while let Some(r) = s.next().await {
        out.extend(r.expect("read response").entities.iter().map(|e| e.encode_to_vec()));
    }
    out.sort();
    out
}

/// Action profile member `id` of profile `prof`: action `fwd` with its one parameter, `port`.
pub fn member(prof: u32, id: u32, fwd: u32, port: u8) -> entity::Entity {
    let Some(table_action::Type::Action(a)) = action(fwd, &[&[port]]).r#type else {
        unreachable!("action() makes an Action")
    };
    entity::Entity::ActionProfileMember(ActionProfileMember {
        action_profile_id: prof,
        member_id: id,
        action: Some(a),
    })
}

/// An action profile group of (member id, weight) pairs.
pub fn group(prof: u32, id: u32, members: &[(u32, i32)], max_size: i32) -> entity::Entity {
    entity::Entity::ActionProfileGroup(ActionProfileGroup {
        action_profile_id: prof,
        group_id: id,
        members: members
            .iter()
            .map(|&(member_id, weight)| action_profile_group::Member {
                member_id,
                weight,
                ..Default::default()
            })
            .collect(),
        max_size,
    })
}

pub fn exact(id: u32, v: &[u8]) -> FieldMatch {
    FieldMatch {
        field_id: id,
        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
            value: v.to_vec(),
        })),
    }
}

pub fn action(id: u32, params: &[&[u8]]) -> TableAction {
    TableAction {
        r#type: Some(table_action::Type::Action(Action {
            action_id: id,
            params: params
                .iter()
                .enumerate()
                .map(|(i, v)| action::Param {
                    param_id: i as u32 + 1,
                    value: v.to_vec(),
                })
                .collect(),
        })),
    }
}

/// An Ethernet frame of 64 bytes.
pub fn frame(dst: [u8; 6], src: [u8; 6], tag: u8) -> Vec<u8> {
    let mut f = Vec::with_capacity(64);
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&[0x88, 0xb5]);
    f.resize(64, tag);
    f
}

/// Waits until `path` (a pcap port's output) holds a frame satisfying `pred`.
pub fn wait_pcap(path: &Path, t: Duration, pred: impl Fn(&[Vec<u8>]) -> bool) -> Vec<Vec<u8>> {
    let end = Instant::now() + t;
    loop {
        let frames = p4dp_testutil::pcap::written(path);
        if pred(&frames) || Instant::now() > end {
            return frames;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

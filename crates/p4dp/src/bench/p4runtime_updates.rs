//! `p4dp bench --suite p4runtime-updates`: the P4Runtime Write path, measured by a gRPC client
//! (this process) against a switch in another process over loopback: `p4dp serve` running
//! benches/p4runtime_updates.p4 on an endless pcap port, so packets keep flowing through the
//! tables being written. The client takes Write round trips, entries per second, and the
//! switch's packet rate and per-packet outcomes read from the program's counter. Update latency
//! as Stubbe et al. define it in "Keeping up to Date with P4Runtime": d_all (the Write leaving the
//! client -> the first packet processed with the new entry) from the program's stamps (registers
//! `seen_at`/`seen_tag`, written on the switch's run clock) against the client's TSC at the send,
//! put on that clock with the run-clock parameters the switch returns (p4dp_p4runtime::timing);
//! d_control (Write handler start -> response built) as the switch measured it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use super::json::{self, Json};
use super::svg::{Plot, Scale, Series};
use super::{BenchArgs, Suite};
use crate::compile;
use p4dp_p4runtime::timing;

const DEVICE: u64 = 1;
const ELECTION: u64 = 1;
/// Destinations of the flowing packets (keys of both tables).
const FLOW_KEYS: u64 = 4;
/// Keys of entries the benchmark inserts: never in the packets, so inserts do not change
/// what packets do.
const KEY_BASE: u64 = 0x1000_0000;
/// Batch sizes of the insert-throughput experiment (the table holds 65536 entries).
const INSERT_BATCHES: [u64; 5] = [1, 10, 100, 1000, 10_000];
/// Insert Writes the insert-throughput experiment keeps in flight on its connection (HTTP/2
/// streams): the switch decodes the next Write while it applies one, and a batch of 1 is not
/// bound by one round trip per entry. The switch applies Writes one at a time, in the order it
/// takes them; the inserts of different Writes have different keys, so the order is free.
const INSERT_IN_FLIGHT: usize = 4;
/// Rounds of each batch size's inserts (the table holds one round's entries).
const INSERT_ROUNDS: u64 = 4;
/// Cells of the program's `seen_at`/`seen_tag` registers: a modify's value v stamps cell v % this.
const STAMP_CELLS: u32 = 65536;

/// The switch process; killed when dropped.
struct Switch(Child);

impl Drop for Switch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Client {
    c: P4RuntimeClient<Channel>,
    /// The same connection, for Writes encoded beforehand ([`PreEncoded`]).
    raw: tonic::client::Grpc<Channel>,
    _arb: mpsc::Sender<StreamMessageRequest>,
    tag: u32,
    check: u32,
    set_tag: u32,
    expect: u32,
    outcome: u32,
    seen_at: u32,
    seen_tag: u32,
    /// The switch's run clock, from the last timed Write's response.
    clock: Option<p4dp_rt::clock::RunClock>,
    /// When a timed Write's bytes left this process (the connection's writes, watched).
    wire: std::sync::Arc<super::wire::WireStamp>,
}

/// One timed modify: the value it gave the flowing entries, when it left the client on the
/// switch's run clock (None: no TSC here or no run clock from the switch), its round trip and
/// the switch's d_control.
struct Timed {
    v: u32,
    /// When the client called Write (before encoding it), on the switch's run clock.
    sent_ns: Option<u64>,
    /// When its bytes left the client (the write system call that carried them, [`super::wire`]),
    /// on the switch's run clock: where d_all starts.
    wire_ns: Option<u64>,
    /// When the response reached the client, on the switch's run clock.
    received_ns: Option<u64>,
    rtt: Duration,
    control: Option<Duration>,
    /// Where the switch says d_control went.
    parts: Option<timing::ControlParts>,
}

fn id_of(info: &P4Info, name: &str) -> Result<u32> {
    info.tables
        .iter()
        .filter_map(|t| t.preamble.as_ref())
        .chain(info.actions.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.counters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.registers.iter().filter_map(|a| a.preamble.as_ref()))
        .find(|p| p.name == name)
        .map(|p| p.id)
        .ok_or_else(|| anyhow!("no {name} in the P4Info"))
}

fn entry(table: u32, key: u64, action: u32, v: u32) -> entity::Entity {
    entity::Entity::TableEntry(TableEntry {
        table_id: table,
        r#match: vec![FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
                value: key.to_be_bytes()[2..].to_vec(),
            })),
        }],
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: action,
                params: vec![action::Param {
                    param_id: 1,
                    value: v.to_be_bytes().to_vec(),
                }],
            })),
        }),
        ..Default::default()
    })
}

fn up(t: update::Type, e: entity::Entity) -> Update {
    Update {
        r#type: t as i32,
        entity: Some(Entity { entity: Some(e) }),
    }
}

/// The gRPC codec of [`write_encoded`]: the request is a WriteRequest already encoded,
/// so the client's protobuf encoding stays out of the timed loop; the response is decoded.
#[derive(Clone, Default)]
struct PreEncoded;
struct RawEncoder;
struct ResponseDecoder;

impl tonic::codec::Encoder for RawEncoder {
    type Item = bytes::Bytes;
    type Error = tonic::Status;
    fn encode(&mut self, item: bytes::Bytes, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for ResponseDecoder {
    type Item = WriteResponse;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<WriteResponse>, tonic::Status> {
        use prost::Message;
        WriteResponse::decode(src)
            .map(Some)
            .map_err(|e| tonic::Status::internal(format!("WriteResponse: {e}")))
    }
}

impl tonic::codec::Codec for PreEncoded {
    type Encode = bytes::Bytes;
    type Decode = WriteResponse;
    type Encoder = RawEncoder;
    type Decoder = ResponseDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> ResponseDecoder {
        ResponseDecoder
    }
}

/// Sends a WriteRequest encoded by [`Client::encode`] on `raw` (a clone of [`Client::raw`]).
async fn write_encoded(mut raw: tonic::client::Grpc<Channel>, req: bytes::Bytes) -> Result<()> {
    raw.ready()
        .await
        .map_err(|e| anyhow!("the connection is not ready: {e}"))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/p4.v1.P4Runtime/Write");
    raw.unary(tonic::Request::new(req), path, PreEncoded)
        .await
        .map_err(|s| anyhow!("Write: {s}"))?;
    Ok(())
}

impl Client {
    /// A WriteRequest of `updates`, encoded.
    fn encode(atomicity: write_request::Atomicity, updates: Vec<Update>) -> bytes::Bytes {
        use prost::Message;
        WriteRequest {
            device_id: DEVICE,
            election_id: Some(Uint128 { high: 0, low: ELECTION }),
            updates,
            atomicity: atomicity as i32,
            ..Default::default()
        }
        .encode_to_vec()
        .into()
    }

    /// Sends WriteRequests encoded by [`Client::encode`], keeping up to `in_flight` of them
    /// outstanding on the connection; fails at the first Write that fails.
    async fn write_encoded_all(&mut self, reqs: Vec<bytes::Bytes>, in_flight: usize) -> Result<()> {
        let mut pending = tokio::task::JoinSet::new();
        for req in reqs {
            if pending.len() >= in_flight.max(1) {
                pending.join_next().await.expect("a Write is pending")??;
            }
            let raw = self.raw.clone();
            pending.spawn(write_encoded(raw, req));
        }
        while let Some(r) = pending.join_next().await {
            r??;
        }
        Ok(())
    }

    async fn write(&mut self, atomicity: write_request::Atomicity, updates: Vec<Update>) -> Result<Duration> {
        let req = WriteRequest {
            device_id: DEVICE,
            election_id: Some(Uint128 { high: 0, low: ELECTION }),
            updates,
            atomicity: atomicity as i32,
            ..Default::default()
        };
        let t = Instant::now();
        self.c.write(req).await.map_err(|s| anyhow!("Write: {s}"))?;
        Ok(t.elapsed())
    }

    /// A Write that asks the switch for its timing (p4dp_p4runtime::timing): the client's TSC is
    /// read just before the call and just before the write system call that carries the request
    /// ([`super::wire`]), and both are put on the switch's run clock with the clock the response
    /// carries.
    async fn write_timed(
        &mut self,
        atomicity: write_request::Atomicity,
        updates: Vec<Update>,
        v: u32,
    ) -> Result<Timed> {
        let t = Instant::now();
        let tsc = p4dp_rt::clock::tsc_now();
        let body = Client::encode(atomicity, updates);
        self.wire.arm(&body);
        let mut req = tonic::Request::new(body);
        req.metadata_mut()
            .insert(timing::REQUEST_KEY, tonic::metadata::MetadataValue::from_static("1"));
        self.raw
            .ready()
            .await
            .map_err(|e| anyhow!("the connection is not ready: {e}"))?;
        let path = tonic::codegen::http::uri::PathAndQuery::from_static("/p4.v1.P4Runtime/Write");
        let resp = self
            .raw
            .unary(req, path, PreEncoded)
            .await
            .map_err(|s| anyhow!("Write: {s}"))?;
        let back = p4dp_rt::clock::tsc_now();
        let rtt = t.elapsed();
        let wire = self.wire.taken();
        let m = resp.metadata();
        let text = |k: &str| m.get(k).and_then(|v| v.to_str().ok());
        let control = text(timing::CONTROL_NS_KEY)
            .and_then(|s| s.parse::<u64>().ok())
            .map(Duration::from_nanos);
        let clock = text(timing::RUN_CLOCK_KEY).and_then(timing::parse_run_clock);
        let parts = text(timing::PARTS_KEY).and_then(timing::parse_parts);
        self.clock = clock.or(self.clock);
        Ok(Timed {
            v,
            sent_ns: tsc.zip(clock).map(|(t, c)| c.ns_at(t)),
            wire_ns: wire.zip(clock).map(|(t, c)| c.ns_at(t)),
            received_ns: back.zip(clock).map(|(t, c)| c.ns_at(t)),
            rtt,
            control,
            parts,
        })
    }

    /// Every cell of register `id`, by index (a wildcard Read).
    async fn register(&mut self, id: u32) -> Result<Vec<u64>> {
        let mut s = self
            .c
            .read(ReadRequest {
                device_id: DEVICE,
                entities: vec![Entity {
                    entity: Some(entity::Entity::RegisterEntry(RegisterEntry {
                        register_id: id,
                        ..Default::default()
                    })),
                }],
                ..Default::default()
            })
            .await
            .map_err(|s| anyhow!("Read: {s}"))?
            .into_inner();
        let mut out = vec![0u64; STAMP_CELLS as usize];
        while let Some(r) = s.next().await {
            for e in r.map_err(|s| anyhow!("Read: {s}"))?.entities {
                if let Some(entity::Entity::RegisterEntry(c)) = e.entity {
                    let i = c.index.map_or(-1, |i| i.index);
                    let v = match c.data.and_then(|d| d.data) {
                        Some(p4_data::Data::Bitstring(b)) => b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x)),
                        _ => bail!("register {id} cell {i}: not a bitstring"),
                    };
                    if let Some(cell) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                        *cell = v;
                    }
                }
            }
        }
        Ok(out)
    }

    /// The program's `outcome` counter: packets that missed, saw the tables disagree, agree.
    async fn outcomes(&mut self) -> Result<[i64; 3]> {
        let mut s = self
            .c
            .read(ReadRequest {
                device_id: DEVICE,
                entities: vec![Entity {
                    entity: Some(entity::Entity::CounterEntry(CounterEntry {
                        counter_id: self.outcome,
                        ..Default::default()
                    })),
                }],
                ..Default::default()
            })
            .await
            .map_err(|s| anyhow!("Read: {s}"))?
            .into_inner();
        let mut out = [0i64; 3];
        while let Some(r) = s.next().await {
            for e in r.map_err(|s| anyhow!("Read: {s}"))?.entities {
                if let Some(entity::Entity::CounterEntry(c)) = e.entity {
                    let i = c.index.map_or(0, |i| i.index).clamp(0, 2) as usize;
                    out[i] = c.data.map_or(0, |d| d.packet_count);
                }
            }
        }
        Ok(out)
    }

    /// Both tables of every flowing key to `v`.
    fn flow_updates(&self, t: update::Type, v: u32) -> Vec<Update> {
        (0..FLOW_KEYS)
            .flat_map(|k| {
                [
                    up(t, entry(self.tag, 0x0200_0000_0000 + k, self.set_tag, v)),
                    up(t, entry(self.check, 0x0200_0000_0000 + k, self.expect, v)),
                ]
            })
            .collect()
    }

    fn bulk(&self, t: update::Type, from: u64, n: u64, v: u32) -> Vec<Update> {
        (from..from + n)
            .map(|i| up(t, entry(self.tag, KEY_BASE + i, self.set_tag, v)))
            .collect()
    }
}

/// Builds the program, starts the switch with it on an endless pcap port and connects as primary.
async fn setup(a: &BenchArgs, scratch: &Path, placement: &(Vec<usize>, Vec<usize>)) -> Result<(Switch, Client)> {
    let exe = std::env::current_exe().context("locating the p4dp binary")?;
    let prog = compile::home().join("benches/p4runtime_updates.p4");
    let st = Command::new(&exe)
        .arg("build")
        .arg(&prog)
        .arg("-o")
        .arg(scratch)
        .stdout(Stdio::null())
        .status()
        .context("running p4dp build")?;
    if !st.success() {
        bail!("p4dp build {} failed", prog.display());
    }
    let text = std::fs::read_to_string(scratch.join("p4runtime_updates.p4info.txtpb")).context("reading the P4Info")?;
    let info = p4dp_p4runtime::p4info::parse_text(&text).map_err(|e| anyhow!("P4Info: {e}"))?;
    let dc = std::fs::read(scratch.join("p4runtime_updates.device.bin")).context("reading the device config")?;
    let frames: Vec<Vec<u8>> = (0..256u32)
        .map(|i| {
            let mut f = vec![0u8; 64];
            f[..6].copy_from_slice(&(0x0200_0000_0000u64 + u64::from(i) % FLOW_KEYS).to_be_bytes()[2..]);
            f[6..12].copy_from_slice(&[4, 0, 0, 0, 0, i as u8]);
            f[12..14].copy_from_slice(&[0x88, 0xb5]);
            f
        })
        .collect();
    let pcap = scratch.join("flows.pcap");
    write_pcap(&pcap, &frames)?;
    let (addr, target) = if a.p4runtime_unix {
        let path = scratch.join("p4runtime.sock");
        (format!("unix:{}", path.display()), super::wire::Target::Unix(path))
    } else {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .context("finding a free port")?;
        let sa: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
        (sa.to_string(), super::wire::Target::Tcp(sa))
    };
    let mut cmd = Command::new(&exe);
    cmd.args(["serve", "--p4runtime", &addr, "--workers", "1", "--mem"])
        .arg(a.mem.unwrap_or(1024).to_string())
        .arg("--vdev")
        .arg(format!("0=net_pcap_p4rtb,rx_pcap={},infinite_rx=1", pcap.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(e) = &a.eal {
        cmd.arg("--eal").arg(e);
    }
    if let Some(c) = &a.control_cpus {
        cmd.arg("--control-cpus").arg(c.to_string());
    }
    if a.p4runtime_busy_poll {
        cmd.arg("--p4runtime-busy-poll");
    }
    if let Some(p) = a.p4runtime_rt_priority {
        cmd.arg("--p4runtime-rt-priority").arg(p.to_string());
    }
    if let Some(us) = a.cpu_latency_limit {
        // the switch's errors go nowhere: the same request made here says why it would fail
        drop(crate::cpu_latency::hold(
            std::path::Path::new(crate::cpu_latency::DEVICE),
            us,
        )?);
        cmd.arg("--cpu-latency-limit").arg(us.to_string());
    }
    let sw = Switch(cmd.spawn().context("starting p4dp serve")?);
    // started before the client is pinned, so the switch sees every CPU
    if placement.0 != placement.1 {
        pin_client(&placement.0);
    }
    // the connector makes the connection: the URI names the HTTP/2 authority only
    let uri = match &target {
        super::wire::Target::Tcp(sa) => format!("http://{sa}"),
        super::wire::Target::Unix(_) => "http://localhost".to_string(),
    };
    let wire = std::sync::Arc::new(super::wire::WireStamp::default());
    let connector = super::wire::Connector {
        target,
        stamp: wire.clone(),
    };
    let mut ch = None;
    for _ in 0..200 {
        if let Ok(x) = Channel::from_shared(uri.clone())
            .context("the switch's address")?
            .connect_with_connector(connector.clone())
            .await
        {
            ch = Some(x);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ch = ch.ok_or_else(|| anyhow!("cannot connect to the switch at {addr}"))?;
    let mut c = P4RuntimeClient::new(ch.clone());
    let (tx, rx) = mpsc::channel(4);
    tx.send(StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(MasterArbitrationUpdate {
            device_id: DEVICE,
            election_id: Some(Uint128 { high: 0, low: ELECTION }),
            ..Default::default()
        })),
    })
    .await
    .map_err(|_| anyhow!("arbitration stream closed"))?;
    let mut inbound = c
        .stream_channel(ReceiverStream::new(rx))
        .await
        .map_err(|s| anyhow!("StreamChannel: {s}"))?
        .into_inner();
    inbound
        .next()
        .await
        .ok_or_else(|| anyhow!("no arbitration answer"))?
        .map_err(|s| anyhow!("arbitration: {s}"))?;
    tokio::spawn(async move { while inbound.next().await.is_some() {} });
    c.set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        election_id: Some(Uint128 { high: 0, low: ELECTION }),
        action: set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
        config: Some(ForwardingPipelineConfig {
            p4info: Some(info.clone()),
            p4_device_config: dc,
            cookie: None,
        }),
        ..Default::default()
    })
    .await
    .map_err(|s| anyhow!("SetForwardingPipelineConfig: {s}"))?;
    let client = Client {
        c,
        raw: tonic::client::Grpc::new(ch),
        _arb: tx,
        tag: id_of(&info, "AtomicIngress.tag")?,
        check: id_of(&info, "AtomicIngress.check")?,
        set_tag: id_of(&info, "AtomicIngress.set_tag")?,
        expect: id_of(&info, "AtomicIngress.expect")?,
        outcome: id_of(&info, "AtomicIngress.outcome")?,
        seen_at: id_of(&info, "AtomicIngress.seen_at")?,
        seen_tag: id_of(&info, "AtomicIngress.seen_tag")?,
        clock: None,
        wire,
    };
    Ok((sw, client))
}

/// A pcap file (microsecond timestamps, Ethernet) of `frames`.
fn write_pcap(path: &Path, frames: &[Vec<u8>]) -> Result<()> {
    let mut b = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        b.extend(v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [1u32, i as u32, f.len() as u32, f.len() as u32] {
            b.extend(v.to_le_bytes());
        }
        b.extend(f);
    }
    std::fs::write(path, b).with_context(|| format!("writing {}", path.display()))
}

/// The value at percentile `p` (0-100) of ascending `sorted`: the nearest rank of
/// (n - 1) * p / 100; None when empty.
fn pct(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let i = (last as f64 * p / 100.0).round() as usize;
    Some(sorted[i.min(last)])
}

/// A latency distribution in microseconds, sorted.
struct Dist(Vec<f64>);

impl Dist {
    fn new(mut us: Vec<f64>) -> Dist {
        us.sort_by(f64::total_cmp);
        Dist(us)
    }

    fn of(d: impl IntoIterator<Item = Duration>) -> Dist {
        Dist::new(d.into_iter().map(|d| d.as_secs_f64() * 1e6).collect())
    }

    /// The summary the report gives: (name, percentile) pairs; max is the 100th.
    const POINTS: [(&'static str, f64); 5] = [
        ("median", 50.0),
        ("p99", 99.0),
        ("p99_9", 99.9),
        ("p99_99", 99.99),
        ("max", 100.0),
    ];

    fn row(&self, label: &str) -> String {
        let mut r = format!("{label:<44} n {:>6}", self.0.len());
        for (name, p) in Dist::POINTS {
            let v = pct(&self.0, p).map_or("-".into(), |v| format!("{v:.1}"));
            let _ = write!(r, "  {} {v:>8}", name.replace('_', "."));
        }
        r.push_str(" us");
        r
    }

    fn json(&self) -> Json {
        let mut o = vec![("count".to_string(), Json::uint(self.0.len() as u64))];
        for (name, p) in Dist::POINTS {
            o.push((name.to_string(), Json::opt(pct(&self.0, p))));
        }
        Json::Obj(o)
    }

    /// Points of the percentile-distribution plot: (latency, fraction p) at steps of a tenth of
    /// a decade of 1 - p up to the largest rank the sample holds, and the maximum; latencies
    /// <= 0 (not drawable on the log axis) are left out.
    fn plot_points(&self) -> Vec<(f64, f64)> {
        let n = self.0.len();
        if n == 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut k = 0;
        loop {
            let p = 1.0 - 10f64.powf(-(k as f64) / 10.0);
            // a rank beyond the sample's resolution says nothing more than the maximum
            if (1.0 - p) * (n as f64) < 1.0 {
                break;
            }
            out.extend(pct(&self.0, p * 100.0).map(|v| (v, p)));
            k += 1;
        }
        out.extend(self.0.last().map(|&v| (v, 1.0 - 1.0 / n as f64)));
        out.retain(|&(v, _)| v > 0.0);
        out
    }
}

/// d_all in ns of each timed Write (`writes` in the order sent, values increasing): the first
/// stamp of its value or of a later one (a packet that saw a later value saw this one's effect
/// too: a later Write is applied after it) minus its start, `from` (when its bytes left the
/// client: [`Timed::wire_ns`]; or when the client called Write: [`Timed::sent_ns`]). A value's
/// stamp counts when its cell (`seen_tag`) still holds it; `seen_at` is in microseconds of the
/// run clock. Also returns how many Writes took a later value's stamp, and how many had none (no
/// packet saw this value or a later one before the read, or the start is unknown).
fn d_all_ns(
    writes: &[Timed],
    from: fn(&Timed) -> Option<u64>,
    seen_tag: &[u64],
    seen_at_us: &[u64],
) -> (Vec<i64>, usize, usize) {
    let mut out = Vec::with_capacity(writes.len());
    let (mut later, mut missing) = (0, 0);
    for (w, seen) in writes.iter().zip(first_seen_ns(writes, seen_tag, seen_at_us)) {
        match (from(w), seen) {
            (Some(sent), Some((at, own))) => {
                out.push(at.saturating_sub(sent as i64));
                later += usize::from(!own);
            }
            _ => missing += 1,
        }
    }
    (out, later, missing)
}

/// The median (nearest rank, as [`pct`]) of d_all values `ns` with each negative one (a first
/// packet stamped before the bytes left: its worker read the clock, was descheduled and saw the
/// new value after it resumed, at a time nobody recorded) counted as slower than every other:
/// the median with that unknown resolved against the switch.
fn median_with_early_last(ns: &[i64]) -> Option<i64> {
    let mut v: Vec<i64> = ns.iter().map(|&d| if d < 0 { i64::MAX } else { d }).collect();
    v.sort_unstable();
    let last = v.len().checked_sub(1)?;
    Some(v[(last as f64 * 0.5).round() as usize]).filter(|&m| m != i64::MAX)
}

/// Per timed Write (in `writes`' order): the first stamp (ns of the run clock) of its value or
/// of a later one, and whether it was its own value's; None when no packet saw either.
fn first_seen_ns(writes: &[Timed], seen_tag: &[u64], seen_at_us: &[u64]) -> Vec<Option<(i64, bool)>> {
    let mut out = vec![None; writes.len()];
    let mut first_seen: Option<i64> = None;
    for (i, w) in writes.iter().enumerate().rev() {
        let cell = (w.v % STAMP_CELLS) as usize;
        let own = match (seen_tag.get(cell), seen_at_us.get(cell)) {
            (Some(&tag), Some(&at)) if tag == u64::from(w.v) => Some((at as i64).saturating_mul(1000)),
            _ => None,
        };
        first_seen = own.or(first_seen);
        out[i] = first_seen.map(|at| (at, own.is_some()));
    }
    out
}

/// Per timed Write stamped by its own value whose switch gave the time it was applied: the
/// first packet's stamp minus that time (ns): how long the workers took to process a packet
/// with the new entry once it was in place.
fn applied_to_seen_ns(writes: &[Timed], seen_tag: &[u64], seen_at_us: &[u64]) -> Vec<i64> {
    writes
        .iter()
        .zip(first_seen_ns(writes, seen_tag, seen_at_us))
        .filter_map(|(w, seen)| match (w.parts, seen) {
            (Some(p), Some((at, true))) if p.applied_ns > 0 => Some(at.saturating_sub(p.applied_ns as i64)),
            _ => None,
        })
        .collect()
}

/// Where each timed Write's round trip went, on the switch's run clock (ns), for the Writes
/// whose switch gave its times and whose client stamps are on that clock: the client's part (its
/// Write call -> the request's bytes handed to the kernel: protobuf encoding, its gRPC and
/// HTTP/2 work, its runtime's scheduling), the request's way in (those bytes -> the switch's
/// Write handler start: the loopback TCP path, the server's wake-up, HTTP/2 and decoding), the
/// handler (its start -> the Write applied) and the response's way out (the response built -> the
/// client has it). d_all is the way in + the handler + applied -> first packet.
#[derive(Default)]
struct Ways {
    request_in: Vec<i64>,
    /// Before the way in, in the client: its Write call -> the request's bytes left it.
    client_stack: Vec<i64>,
    handler: Vec<i64>,
    response_out: Vec<i64>,
}

fn ways_ns(writes: &[Timed]) -> Ways {
    let mut w = Ways::default();
    for t in writes {
        let (Some(p), Some(sent), Some(wire), Some(back), Some(control)) =
            (t.parts, t.sent_ns, t.wire_ns, t.received_ns, t.control)
        else {
            continue;
        };
        if p.start_ns == 0 || p.applied_ns == 0 {
            continue;
        }
        let built = p.start_ns as i64 + control.as_nanos() as i64;
        w.client_stack.push(wire as i64 - sent as i64);
        w.request_in.push(p.start_ns as i64 - wire as i64);
        w.handler.push(p.applied_ns as i64 - p.start_ns as i64);
        w.response_out.push(back as i64 - built);
    }
    w
}

/// The client's busy poll (`--client-busy-poll`) while it lives: a task of the client's
/// runtime (one thread) that only yields, so the runtime polls the connection without sleeping
/// while a Write is out, instead of waiting in the kernel for its response.
struct Spin(Option<tokio::task::JoinHandle<()>>);

impl Spin {
    fn start(on: bool) -> Spin {
        Spin(on.then(|| {
            tokio::spawn(async {
                loop {
                    tokio::task::yield_now().await;
                }
            })
        }))
    }

    /// Waits until `until`: spinning (the runtime keeps polling) when on, else asleep.
    async fn wait_until(&self, until: Instant) {
        if self.0.is_some() {
            while Instant::now() < until {
                tokio::task::yield_now().await;
            }
        } else {
            tokio::time::sleep_until(until.into()).await;
        }
    }
}

impl Drop for Spin {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.abort();
        }
    }
}

/// Packets per second through both tables (agreeing packets) over `d`.
async fn rate(c: &mut Client, d: Duration) -> Result<f64> {
    let a = c.outcomes().await?;
    let t = Instant::now();
    tokio::time::sleep(d).await;
    let b = c.outcomes().await?;
    Ok((b[2] - a[2]) as f64 / t.elapsed().as_secs_f64())
}

/// What a run produced besides its text: JSON results and the series of the latency plot.
#[derive(Default)]
struct Outputs {
    inserts: Vec<Json>,
    modifies: Vec<Json>,
    /// The gRPC floor: Capabilities round trips at each pace.
    grpc_floor: Vec<(String, Json)>,
    /// The TCP floor: loopback round trips to an echo thread at each pace.
    tcp_floor: Vec<(String, Json)>,
    /// The Unix socket floor (--p4runtime-unix only): the same echo over a Unix socket pair.
    unix_floor: Vec<(String, Json)>,
    /// The cache floor: per buffer size, the cache task's times at each pace.
    cache_floor: Vec<(String, Json)>,
    /// DATAPLANE_ATOMIC commits per batch size: the barrier and the workers' stall.
    commits: Vec<Json>,
    plot: Vec<Series>,
    tsc_hz: Option<u64>,
}

async fn run(a: &BenchArgs, scratch: &Path, text: &mut String, outs: &mut Outputs) -> Result<()> {
    use update::Type::{Delete, Insert, Modify};
    use write_request::Atomicity::{ContinueOnError, DataplaneAtomic};
    let cpus = placement(a)?;
    let (sw, mut c) = setup(a, scratch, &cpus).await?;
    // `--duration S` shortens the run: each modify window lasts S seconds (default 5) and the
    // counts of the other experiments shrink in proportion (never below 2 Writes)
    let window = Duration::from_secs_f64(a.duration.unwrap_or(5.0).max(0.1));
    let scale = |n: u64| ((n as f64 * window.as_secs_f64() / 5.0) as u64).clamp(2, n);
    let first = c.flow_updates(Insert, 1);
    c.write(DataplaneAtomic, first).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle = rate(&mut c, window.min(Duration::from_secs(2))).await?;
    let _ = writeln!(
        text,
        "switch: p4dp serve, 1 worker, an endless pcap port; packets through both tables at rest: {:.2} Mpps\n",
        idle / 1e6
    );
    let list = |v: &[usize]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
    let _ = writeln!(
        text,
        "CPUs (--control-cpus): the switch's control threads and this client on {}; its worker on {}\nCPU latency limit: {}\nP4Runtime serving: {}, on {}; the client {}\n",
        list(&cpus.0),
        list(&cpus.1),
        match a.cpu_latency_limit {
            Some(us) => format!("{us} us, held by the switch (--cpu-latency-limit)"),
            None => "none (the default: the kernel's idle states as configured)".to_string(),
        },
        match (a.p4runtime_busy_poll, a.p4runtime_rt_priority) {
            (true, _) => "one busy-polling thread (--p4runtime-busy-poll)".to_string(),
            (false, Some(p)) => format!(
                "one tokio thread that sleeps between requests, at real-time priority {p} (--p4runtime-rt-priority)"
            ),
            (false, None) => "one tokio thread that sleeps between requests (the default)".to_string(),
        },
        if a.p4runtime_unix {
            "a Unix socket (--p4runtime-unix)"
        } else {
            "loopback TCP (the default)"
        },
        if a.client_busy_poll {
            "busy-polls (--client-busy-poll)"
        } else {
            "sleeps between requests (the default)"
        }
    );

    let _ = writeln!(
        text,
        "== Insert throughput (CONTINUE_ON_ERROR, new keys into `tag` while packets hit it; requests encoded before the clock starts; {INSERT_IN_FLIGHT} Writes in flight; {INSERT_ROUNDS} rounds per batch size, each after {} ms at rest) ==",
        window.min(Duration::from_millis(300)).as_millis()
    );
    for bs in a.insert_batches.clone().unwrap_or(INSERT_BATCHES.to_vec()) {
        let n: u64 = scale(if bs == 1 { 5000 } else { 50_000 }).div_ceil(bs) * bs;
        let reqs: Vec<bytes::Bytes> = (0..n)
            .step_by(bs as usize)
            .map(|from| Client::encode(ContinueOnError, c.bulk(Insert, from, bs, 7)))
            .collect();
        // INSERT_ROUNDS rounds of the same inserts (deleted after each, untimed), each after a
        // window at rest, so the rate at rest and the rate during the inserts see about the same
        // machine load; the figures are the rounds' sums
        let (mut secs, mut cpu, mut pkts, mut rest_pkts, mut rest_secs) = (0.0, Some(0.0), 0i64, 0i64, 0.0);
        // how long the switch's control threads waited for a CPU while runnable (schedstat)
        let mut cpu_wait = Some(0.0);
        // this client's CPU time during the inserts (all its threads: tonic, hyper, tokio): with
        // the worker spinning on one of the machine's CPUs, the switch's control threads and the
        // client share what is left
        let mut client_cpu = Some(0.0);
        // the worker's CPU time at rest and during the inserts (through the same reads of the
        // packet counter): packets per second of the worker's own CPU time tell a worker that
        // got less CPU (the same rate per CPU second) from one slowed down while it ran (cache
        // and coherence traffic of the table writes: a lower rate per CPU second)
        let (mut wk_rest, mut wk_ins) = (Some(0.0), Some(0.0));
        let span =
            |a: Option<Sched>, b: Option<Sched>| a.zip(b).map(|(a, b)| b.run.saturating_sub(a.run).as_secs_f64());
        let waited = |a: Option<Sched>, b: Option<Sched>| {
            a.and_then(|a| a.wait)
                .zip(b.and_then(|b| b.wait))
                .map(|(a, b)| b.saturating_sub(a).as_secs_f64())
        };
        for _ in 0..INSERT_ROUNDS {
            let w0 = threads_cpu(sw.0.id(), |n| n == "rte-worker-1");
            let r0 = c.outcomes().await?;
            let t = Instant::now();
            tokio::time::sleep(window.min(Duration::from_millis(300))).await;
            let o0 = c.outcomes().await?;
            let w1 = threads_cpu(sw.0.id(), |n| n == "rte-worker-1");
            rest_secs += t.elapsed().as_secs_f64();
            rest_pkts += o0[2] - r0[2];
            let cpu0 = control_cpu(sw.0.id());
            let me0 = threads_cpu(std::process::id(), |_| true);
            let t = Instant::now();
            c.write_encoded_all(reqs.clone(), INSERT_IN_FLIGHT).await?;
            secs += t.elapsed().as_secs_f64();
            let me1 = threads_cpu(std::process::id(), |_| true);
            let cpu1 = control_cpu(sw.0.id());
            let o1 = c.outcomes().await?;
            let w2 = threads_cpu(sw.0.id(), |n| n == "rte-worker-1");
            wk_rest = wk_rest.zip(span(w0, w1)).map(|(a, b)| a + b);
            wk_ins = wk_ins.zip(span(w1, w2)).map(|(a, b)| a + b);
            pkts += o1[2] - o0[2];
            cpu = cpu.zip(span(cpu0, cpu1)).map(|(c, d)| c + d);
            cpu_wait = cpu_wait.zip(waited(cpu0, cpu1)).map(|(c, d)| c + d);
            client_cpu = client_cpu.zip(span(me0, me1)).map(|(c, d)| c + d);
            for from in (0..n).step_by(1000) {
                let b = c.bulk(Delete, from, 1000.min(n - from), 0);
                c.write(ContinueOnError, b).await?;
            }
        }
        let (pps, rest) = (pkts as f64 / secs, rest_pkts as f64 / rest_secs);
        let n = n * INSERT_ROUNDS;
        // per worker CPU second; the inserts' window is the packet counter's (o0 -> o1)
        let per_cpu = wk_rest
            .zip(wk_ins)
            .filter(|(r, i)| *r > 0.0 && *i > 0.0)
            .map(|(r, i)| (rest_pkts as f64 / r, pkts as f64 / i));
        let _ = writeln!(
            text,
            "batch {bs:>5}: {n:>6} inserts in {secs:>6.3} s = {:>9.0} entries/s; switch control CPU {}{}; client CPU {}; packets meanwhile {:.2} Mpps ({:+.1}% vs {:.2} Mpps at rest between the rounds); per second of the worker's CPU time {}",
            n as f64 / secs,
            cpu.map_or("?".into(), |c| format!("{:.2} us/entry", c * 1e6 / n as f64)),
            cpu_wait.map_or(String::new(), |w| format!(
                " (and {:.2} us/entry runnable but waiting for a CPU, summed over its threads)",
                w * 1e6 / n as f64
            )),
            client_cpu.map_or("?".into(), |c| format!("{:.2} us/entry", c * 1e6 / n as f64)),
            pps / 1e6,
            (pps / rest - 1.0) * 100.0,
            rest / 1e6,
            per_cpu.map_or("?".into(), |(r, i)| format!(
                "{:.2} Mpps ({:+.1}% vs {:.2} at rest; the worker ran {:.0}% of the time at rest, {:.0}% meanwhile)",
                i / 1e6,
                (i / r - 1.0) * 100.0,
                r / 1e6,
                wk_rest.unwrap_or(0.0) * 100.0 / rest_secs,
                wk_ins.unwrap_or(0.0) * 100.0 / secs
            ))
        );
        outs.inserts.push(Json::obj([
            ("batch", Json::uint(bs)),
            ("entries", Json::uint(n)),
            ("entries_per_s", Json::Num(n as f64 / secs)),
            ("control_cpu_us_per_entry", Json::opt(cpu.map(|c| c * 1e6 / n as f64))),
            (
                "control_cpu_wait_us_per_entry",
                Json::opt(cpu_wait.map(|w| w * 1e6 / n as f64)),
            ),
            (
                "client_cpu_us_per_entry",
                Json::opt(client_cpu.map(|c| c * 1e6 / n as f64)),
            ),
            ("packets_mpps", Json::Num(pps / 1e6)),
            ("packets_at_rest_mpps", Json::Num(rest / 1e6)),
            (
                "packets_per_worker_cpu_s_mpps",
                Json::opt(per_cpu.map(|(_, i)| i / 1e6)),
            ),
            (
                "packets_per_worker_cpu_s_at_rest_mpps",
                Json::opt(per_cpu.map(|(r, _)| r / 1e6)),
            ),
            ("writes_in_flight", Json::uint(INSERT_IN_FLIGHT as u64)),
        ]));
    }
    if a.inserts_only {
        return Ok(());
    }

    let _ = writeln!(
        text,
        "\n== DATAPLANE_ATOMIC commit cost (modifies of entries not in the traffic; round trip per Write; for DATAPLANE_ATOMIC the switch's barrier (request -> every worker parked) and the workers' stall (the batch applied while they wait)) =="
    );
    for from in (0..10_000u64).step_by(1000) {
        let b = c.bulk(Insert, from, 1000, 1);
        c.write(ContinueOnError, b).await?;
    }
    for bs in [1u64, 10, 100, 1000, 10_000] {
        let reps = scale(match bs {
            1 | 10 => 500,
            100 => 200,
            1000 => 40,
            _ => 8,
        }) as usize;
        for mode in [ContinueOnError, DataplaneAtomic] {
            let o0 = c.outcomes().await?;
            let t = Instant::now();
            let mut writes = Vec::with_capacity(reps);
            for r in 0..reps {
                let b = c.bulk(Modify, 0, bs, r as u32 + 2);
                writes.push(c.write_timed(mode, b, 0).await?);
            }
            let secs = t.elapsed().as_secs_f64();
            let o1 = c.outcomes().await?;
            let pps = (o1[2] - o0[2]) as f64 / secs;
            let name = format!("batch {bs:>5} {}", mode.as_str_name());
            let mut row = Dist::of(writes.iter().map(|w| w.rtt)).row(&name);
            let _ = write!(
                row,
                "; {:.0} updates/s; packets {:.2} Mpps ({:+.1}%)",
                (bs as f64 * reps as f64) / secs,
                pps / 1e6,
                (pps / idle - 1.0) * 100.0
            );
            let _ = writeln!(text, "{row}");
            if mode == DataplaneAtomic {
                // the commit's cost to the workers: reaching the barrier, then the stall
                let parts: Vec<timing::ControlParts> = writes.iter().filter_map(|w| w.parts).collect();
                let barrier = Dist::of(parts.iter().map(|p| p.barrier));
                let stall = Dist::of(parts.iter().map(|p| p.stall));
                let _ = writeln!(text, "{}", barrier.row(&format!("{name}: barrier")));
                let _ = writeln!(text, "{}", stall.row(&format!("{name}: workers' stall")));
                outs.commits.push(Json::obj([
                    ("batch", Json::uint(bs)),
                    ("barrier_us", barrier.json()),
                    ("stall_us", stall.json()),
                ]));
            }
        }
    }

    let _ = writeln!(
        text,
        "\n== Modifies of the flowing entries (8 updates per Write: both tables of 4 keys; 1 update: `tag` of one key, a rule update as Stubbe et al. define it; d_all as Stubbe et al. start it, at the Write reaching the control plane: the Write's bytes leaving the client (the write to its socket) -> first packet with the new value, at 1 us resolution; d_all from the client's call adds the client's own encoding and gRPC stack; d_control: the switch's Write handler start -> response built; the way in: the bytes leaving the client -> the handler's start; the way out: the response built -> the client has it) =="
    );
    // every modify gives the flowing entries a larger value than any before (the program
    // stamps a value the first time a packet sees one larger than all it saw)
    let mut v = 100u32;
    // (report label, JSON key, plot legend, atomicity, gap between Writes, one update per Write)
    // The one-update Writes come last: they leave `tag` and `check` of their key disagreeing
    // (the packets of that key count as "tables disagree" meanwhile: by design, not a torn batch)
    let pace = Some(Duration::from_millis(10));
    // with --client-busy-poll the client waits for the next send time and for each response
    // without sleeping, from here to the end of the gRPC floor
    let spin = Spin::start(a.client_busy_poll);
    for (label, key, short, mode, gap, single) in [
        (
            "DATAPLANE_ATOMIC at 100/s",
            "dataplane_atomic_100_per_s",
            "atomic 100/s",
            DataplaneAtomic,
            pace,
            false,
        ),
        (
            "DATAPLANE_ATOMIC back to back",
            "dataplane_atomic_back_to_back",
            "atomic, max rate",
            DataplaneAtomic,
            None,
            false,
        ),
        (
            "CONTINUE_ON_ERROR back to back",
            "continue_on_error_back_to_back",
            "non-atomic, max rate",
            ContinueOnError,
            None,
            false,
        ),
        (
            "1 update, DATAPLANE_ATOMIC at 100/s",
            "one_update_dataplane_atomic_100_per_s",
            "1 update, atomic 100/s",
            DataplaneAtomic,
            pace,
            true,
        ),
        (
            "1 update, CONTINUE_ON_ERROR at 100/s",
            "one_update_continue_on_error_100_per_s",
            "1 update, 100/s",
            ContinueOnError,
            pace,
            true,
        ),
        (
            "1 update, CONTINUE_ON_ERROR back to back",
            "one_update_continue_on_error_back_to_back",
            "1 update, max rate",
            ContinueOnError,
            None,
            true,
        ),
    ] {
        let o0 = c.outcomes().await?;
        let wk0 = threads_cpu(sw.0.id(), |n| n == "rte-worker-1");
        let mut writes = Vec::new();
        let t = Instant::now();
        while t.elapsed() < window && writes.len() < STAMP_CELLS as usize {
            let start = Instant::now();
            let b = if single {
                vec![up(Modify, entry(c.tag, 0x0200_0000_0000, c.set_tag, v))]
            } else {
                c.flow_updates(Modify, v)
            };
            writes.push(c.write_timed(mode, b, v).await?);
            v += 1;
            if let Some(g) = gap {
                spin.wait_until(start + g).await;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        let wk1 = threads_cpu(sw.0.id(), |n| n == "rte-worker-1");
        // the worker, runnable but off its CPU meanwhile (another thread ran there): a pause
        // longer than a round trip leaves Writes that no packet stamped (a later value's stamp)
        let worker_off = wk0.zip(wk1).and_then(|(a, b)| {
            let wait = b.wait?.saturating_sub(a.wait?);
            Some((wait, b.slices?.saturating_sub(a.slices?)))
        });
        // packets still flow: the last value's stamp is there once one packet has seen it
        tokio::time::sleep(Duration::from_millis(20)).await;
        let o1 = c.outcomes().await?;
        let seen_tag = c.register(c.seen_tag).await?;
        let seen_at = c.register(c.seen_at).await?;
        let (d_all, by_later, unstamped) = d_all_ns(&writes, |w| w.wire_ns, &seen_tag, &seen_at);
        let early = d_all.iter().filter(|&&d| d < 0).count();
        let early_last = median_with_early_last(&d_all).map(|m| m as f64 / 1e3);
        let median_early_last = early_last.map_or("-".into(), |m| format!("{m:.1}"));
        let d_all = Dist::new(d_all.iter().map(|&d| d as f64 / 1e3).collect());
        let d_all_call = Dist::new(
            d_all_ns(&writes, |w| w.sent_ns, &seen_tag, &seen_at)
                .0
                .iter()
                .map(|&d| d as f64 / 1e3)
                .collect(),
        );
        let d_control = Dist::of(writes.iter().filter_map(|w| w.control));
        let parts: Vec<timing::ControlParts> = writes.iter().filter_map(|w| w.parts).collect();
        let handoff = Dist::of(parts.iter().map(|p| p.handoff));
        let barrier = Dist::of(parts.iter().map(|p| p.barrier));
        let stall = Dist::of(parts.iter().map(|p| p.stall));
        let after = Dist::new(
            applied_to_seen_ns(&writes, &seen_tag, &seen_at)
                .iter()
                .map(|&d| d as f64 / 1e3)
                .collect(),
        );
        let ways = ways_ns(&writes);
        let us = |v: &[i64]| Dist::new(v.iter().map(|&d| d as f64 / 1e3).collect());
        let (way_in, handler, way_out) = (us(&ways.request_in), us(&ways.handler), us(&ways.response_out));
        let client_stack = us(&ways.client_stack);
        let rtt = Dist::of(writes.iter().map(|w| w.rtt));
        let rate = writes.len() as f64 / secs;
        let _ = writeln!(
            text,
            "{} ({rate:.0} Writes/s); packets during them: default action (miss) {}, tables disagree {}{}, consistent {}",
            rtt.row(&format!("{label}: round trip")),
            o1[0] - o0[0],
            o1[1] - o0[1],
            if single { " (one table written: by design)" } else { "" },
            o1[2] - o0[2]
        );
        let _ = writeln!(
            text,
            "{}; a later value's stamp {by_later}; no stamp {unstamped}; stamp before the bytes left {early} (median with those counted as the slowest: {median_early_last} us)",
            d_all.row(&format!("{label}: d_all"))
        );
        let _ = writeln!(
            text,
            "{}",
            d_all_call.row(&format!("{label}: d_all from the client's call"))
        );
        let _ = writeln!(text, "{}", d_control.row(&format!("{label}: d_control")));
        let _ = writeln!(text, "{}", handoff.row(&format!("{label}: d_control: hand-off")));
        if mode == DataplaneAtomic {
            let _ = writeln!(text, "{}", barrier.row(&format!("{label}: d_control: barrier")));
            let _ = writeln!(text, "{}", stall.row(&format!("{label}: d_control: stall")));
        }
        let _ = writeln!(text, "{}", after.row(&format!("{label}: applied -> first packet")));
        if let Some((wait, n)) = worker_off {
            let _ = writeln!(
                text,
                "{label}: the worker runnable but off its CPU: {:.3} ms in all, put back on it {n} times (schedstat)",
                wait.as_secs_f64() * 1e3
            );
        }
        let _ = writeln!(
            text,
            "{}",
            client_stack.row(&format!("{label}: client (call -> bytes to the kernel)"))
        );
        let _ = writeln!(text, "{}", way_in.row(&format!("{label}: way in (bytes -> handler)")));
        let _ = writeln!(text, "{}", handler.row(&format!("{label}: handler -> applied")));
        let _ = writeln!(
            text,
            "{}",
            way_out.row(&format!("{label}: way out (response -> client)"))
        );
        outs.plot.push(Series {
            name: format!("d_all {short}"),
            points: d_all.plot_points(),
        });
        outs.plot.push(Series {
            name: format!("d_control {short}"),
            points: d_control.plot_points(),
        });
        outs.modifies.push(Json::obj([
            ("experiment", Json::str(key)),
            ("atomicity", Json::str(mode.as_str_name())),
            ("writes", Json::uint(writes.len() as u64)),
            ("writes_per_s", Json::Num(rate)),
            ("round_trip_us", rtt.json()),
            ("d_all_us", d_all.json()),
            ("d_all_by_later_stamp", Json::uint(by_later as u64)),
            ("d_all_unstamped", Json::uint(unstamped as u64)),
            ("d_all_stamp_before_send", Json::uint(early as u64)),
            ("d_all_median_early_as_slowest_us", Json::opt(early_last)),
            ("d_all_from_call_us", d_all_call.json()),
            ("d_control_us", d_control.json()),
            ("d_control_handoff_us", handoff.json()),
            ("d_control_barrier_us", barrier.json()),
            ("d_control_stall_us", stall.json()),
            ("applied_to_first_packet_us", after.json()),
            (
                "worker_runnable_off_cpu_ms",
                Json::opt(worker_off.map(|(w, _)| w.as_secs_f64() * 1e3)),
            ),
            ("worker_put_on_cpu", Json::opt(worker_off.map(|(_, n)| n as f64))),
            ("request_way_in_us", way_in.json()),
            ("request_way_in_client_us", client_stack.json()),
            ("handler_to_applied_us", handler.json()),
            ("response_way_out_us", way_out.json()),
            ("updates_per_write", Json::uint(if single { 1 } else { 2 * FLOW_KEYS })),
            ("packets_default_action", Json::Int(o1[0] - o0[0])),
            ("packets_tables_disagree", Json::Int(o1[1] - o0[1])),
            ("packets_consistent", Json::Int(o1[2] - o0[2])),
        ]));
    }

    // The transport's own floor, in this run: Capabilities round trips (the switch does no work
    // for one) on the same connection at the same two paces. Every Write's round trip and d_all
    // contain it; d_all minus it is what the switch adds.
    let _ = writeln!(
        text,
        "\n== gRPC floor (Capabilities round trips on the same connection: no switch work; part of every Write's round trip and d_all) =="
    );
    for (label, key, gap) in FLOOR_PACES {
        let mut rtts = Vec::new();
        let t = Instant::now();
        while t.elapsed() < window.min(Duration::from_secs(2)) {
            let start = Instant::now();
            c.c.capabilities(CapabilitiesRequest { device_id: DEVICE })
                .await
                .context("Capabilities")?;
            rtts.push(start.elapsed());
            if let Some(g) = gap {
                spin.wait_until(start + g).await;
            }
        }
        let d = Dist::of(rtts);
        let _ = writeln!(text, "{}", d.row(&format!("Capabilities {label}: round trip")));
        outs.grpc_floor.push((key.to_string(), d.json()));
    }
    drop(spin);

    // Below gRPC: one small message to a thread of this process over loopback TCP and back, with
    // blocking sockets (no HTTP/2, no async runtime), at the same paces, while the switch's worker
    // keeps forwarding. What a request costs this machine's kernel and scheduler before any gRPC
    // stack runs: no d_all can be lower than half of it.
    let floors = [
        (
            Echo::Tcp,
            "TCP",
            "TCP floor (16-byte messages to an echo thread over loopback TCP and back, blocking sockets: no gRPC; the kernel's and the scheduler's part of every round trip)",
        ),
        (
            Echo::Unix,
            "Unix socket",
            "Unix socket floor (the same echo over a connected pair of Unix stream sockets, the transport of --p4runtime-unix)",
        ),
    ];
    for (over, name, title) in floors {
        if over == Echo::Unix && !a.p4runtime_unix {
            continue;
        }
        let _ = writeln!(text, "\n== {title} ==");
        for (label, key, gap) in FLOOR_PACES {
            let span = window.min(Duration::from_secs(2));
            let rtts = tokio::task::spawn_blocking(move || echo_round_trips(span, gap, over))
                .await
                .with_context(|| format!("{name} floor thread"))??;
            let d = Dist::of(rtts);
            let _ = writeln!(text, "{}", d.row(&format!("{name} {label}: round trip")));
            let out = if over == Echo::Tcp {
                &mut outs.tcp_floor
            } else {
                &mut outs.unix_floor
            };
            out.push((key.to_string(), d.json()));
        }
    }

    // Below everything: the control CPU's caches. A fixed task that writes each 64-byte line of a
    // buffer once, on the client's CPU (a control CPU), at the same two paces, asleep between.
    // Between Writes at 100/s the switch's control path idles as long; its code and data then come
    // from farther caches by as much as this task's do, before any of its own work differs.
    let _ = writeln!(
        text,
        "\n== Cache floor (a task writing each 64-byte line of a buffer once, in a scattered order, on the client's CPU, asleep between: what 10 ms idle does to a control CPU's caches) =="
    );
    for bytes in CACHE_TASK_BYTES {
        let mut paces = Vec::new();
        let mut medians = Vec::new();
        for (label, key, gap) in FLOOR_PACES {
            let times = tokio::task::spawn_blocking(move || cache_task_times(bytes, gap, CACHE_TASK_RUNS))
                .await
                .context("cache floor thread")?;
            let d = Dist::of(times);
            let _ = writeln!(text, "{}", d.row(&format!("cache task {} KiB {label}", bytes >> 10)));
            medians.push(pct(&d.0, 50.0));
            paces.push((key.to_string(), d.json()));
        }
        if let [Some(idle), Some(warm)] = medians[..] {
            let _ = writeln!(
                text,
                "cache task {} KiB: at 100/s {:.2}x its time back to back (medians)",
                bytes >> 10,
                idle / warm
            );
        }
        outs.cache_floor.push((bytes.to_string(), Json::Obj(paces)));
    }
    outs.tsc_hz = c.clock.map(|k| k.tsc_hz);
    Ok(())
}

/// The cache floor's buffer sizes: one that fits a core's first-level data cache, one that needs
/// its second level (a megabyte on the machines measured).
const CACHE_TASK_BYTES: [usize; 2] = [32 << 10, 512 << 10];
/// Timed runs of the cache task per size and pace (at 100/s they take a second).
const CACHE_TASK_RUNS: usize = 100;

/// The times of `runs` runs of a task that writes each 64-byte line of a `bytes` buffer (a power
/// of two) once, in a scattered order (an odd stride modulo the line count: every line once),
/// each `gap` after the one before (back to back without one), after as many untimed runs that
/// bring the buffer into the caches.
fn cache_task_times(bytes: usize, gap: Option<Duration>, runs: usize) -> Vec<Duration> {
    const LINE_WORDS: usize = 64 / 8;
    let lines = bytes / 64;
    debug_assert!(lines.is_power_of_two());
    let mut buf = vec![0u64; lines * LINE_WORDS];
    let task = |buf: &mut [u64]| {
        for i in 0..lines {
            let at = scattered_line(i, lines) * LINE_WORDS;
            buf[at] = buf[at].wrapping_add(1);
        }
        std::hint::black_box(&mut *buf);
    };
    for _ in 0..runs {
        task(&mut buf);
    }
    let mut times = Vec::with_capacity(runs);
    let mut next = Instant::now();
    for _ in 0..runs {
        if let Some(g) = gap {
            next += g;
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
        let start = Instant::now();
        task(&mut buf);
        times.push(start.elapsed());
    }
    times
}

/// The `i`th line the cache task writes of `lines` (a power of two): an odd stride modulo a power
/// of two visits every line once, far from the one before.
fn scattered_line(i: usize, lines: usize) -> usize {
    i.wrapping_mul(0x9e37_79b1) & (lines - 1)
}

/// The floors' two paces: label, JSON key, the time from one request's start to the next.
const FLOOR_PACES: [(&str, &str, Option<Duration>); 2] = [
    ("at 100/s", "per_100_s", Some(Duration::from_millis(10))),
    ("back to back", "back_to_back", None),
];

/// The socket an echo floor's messages cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Echo {
    /// Loopback TCP, Nagle off on both ends as gRPC's transports set it.
    Tcp,
    /// A connected pair of Unix stream sockets.
    Unix,
}

/// Round trips of a 16-byte message to an echo thread over `over` for `span`, one at a time, each
/// `gap` after the one before (back to back without one).
fn echo_round_trips(span: Duration, gap: Option<Duration>, over: Echo) -> Result<Vec<Duration>> {
    use std::io::{Read, Write};
    fn echo<S: Read + Write>(mut s: S) -> std::io::Result<()> {
        let mut buf = [0u8; 16];
        loop {
            match s.read_exact(&mut buf) {
                Ok(()) => s.write_all(&buf)?,
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
    fn time<S: Read + Write>(mut s: S, span: Duration, gap: Option<Duration>) -> std::io::Result<Vec<Duration>> {
        let mut rtts = Vec::new();
        let mut buf = [0u8; 16];
        let t = Instant::now();
        while t.elapsed() < span {
            let start = Instant::now();
            s.write_all(&buf)?;
            s.read_exact(&mut buf)?;
            rtts.push(start.elapsed());
            if let Some(g) = gap {
                std::thread::sleep((start + g).saturating_duration_since(Instant::now()));
            }
        }
        Ok(rtts)
    }
    let thread = std::thread::Builder::new().name("floor-echo".into());
    let (rtts, echoed) = match over {
        Echo::Tcp => {
            use std::net::{TcpListener, TcpStream};
            let listener = TcpListener::bind("127.0.0.1:0").context("TCP floor: bind")?;
            let addr = listener.local_addr()?;
            let e = thread
                .spawn(move || -> std::io::Result<()> {
                    let (s, _) = listener.accept()?;
                    s.set_nodelay(true)?;
                    echo(s)
                })
                .context("TCP floor: echo thread")?;
            let s = TcpStream::connect(addr).context("TCP floor: connect")?;
            s.set_nodelay(true)?;
            (time(s, span, gap), e)
        }
        Echo::Unix => {
            let (a, b) = std::os::unix::net::UnixStream::pair().context("Unix floor: socket pair")?;
            let e = thread.spawn(move || echo(b)).context("Unix floor: echo thread")?;
            (time(a, span, gap), e)
        }
    };
    // the client's socket is closed by now: the echo thread sees the end and returns
    echoed
        .join()
        .map_err(|_| anyhow!("{over:?} floor: echo thread panicked"))??;
    Ok(rtts?)
}

/// The CPUs of the switch's control threads (`--control-cpus`), where the client runs too (a
/// controller's CPU is never a worker's), and those of its worker; every CPU for both when there
/// is no split. Called before the client is pinned.
fn placement(a: &BenchArgs) -> Result<(Vec<usize>, Vec<usize>)> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let split = crate::run::control_split(a.control_cpus.as_ref(), cpus)?;
    if let (Some(p), None) = (a.p4runtime_rt_priority, &split) {
        bail!("--p4runtime-rt-priority {p} needs --control-cpus with a CPU list (the switch refuses it without one)");
    }
    Ok(split.map_or_else(
        || ((0..cpus).collect(), (0..cpus).collect()),
        |s| (s.control, s.workers),
    ))
}

/// Pins the calling thread (the client's runtime runs on it, and the threads it starts later
/// inherit its CPUs) to `cpus`; left where it is if that fails.
fn pin_client(cpus: &[usize]) {
    // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus.iter().filter(|c| **c < 1024) {
        // SAFETY: c < 1024 = CPU_SETSIZE.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: set is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let _ = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
}

/// CPU time (user + system) the switch's P4Runtime threads (named `p4dp-p4runtime`: the gRPC
/// runtime and the request handlers) have used so far, from /proc; None where /proc lacks it.
fn control_cpu(pid: u32) -> Option<Sched> {
    threads_cpu(pid, |n| n == "p4dp-p4runtime")
}

/// What the scheduler says of a set of threads so far.
#[derive(Clone, Copy)]
struct Sched {
    /// CPU time used.
    run: Duration,
    /// Time runnable but waiting for a CPU (None without /proc's schedstat).
    wait: Option<Duration>,
    /// Times put on a CPU (schedstat's time slices; None without it).
    slices: Option<u64>,
}

/// CPU time the threads of process `pid` whose name `name` accepts have used so far, and how long
/// they waited for a CPU: from /proc's schedstat (nanoseconds), else user + system time from
/// /proc's stat (10 ms resolution; no waiting time); None where /proc lacks the process.
fn threads_cpu(pid: u32, name: impl Fn(&str) -> bool) -> Option<Sched> {
    let tick = 100.0; // USER_HZ: the unit of /proc's utime and stime on Linux
    let (mut ticks, mut run_ns, mut wait_ns, mut slices, mut precise) = (0u64, 0u64, 0u64, 0u64, true);
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue; // the thread ended meanwhile
        };
        // "tid (comm) state ...": the name is between the first '(' and the last ')'
        let (Some(a), Some(b)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if !name(&stat[a + 1..b]) {
            continue;
        }
        let f: Vec<&str> = stat[b + 1..].split_whitespace().collect();
        // after the name: state is field 3 of stat(5), utime field 14, stime field 15
        ticks += f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        ticks += f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        // schedstat: time on a CPU, time waiting on a run queue (ns), time slices
        let ss = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
        let mut v = ss.split_whitespace().map(|x| x.parse::<u64>().ok());
        match (v.next().flatten(), v.next().flatten(), v.next().flatten()) {
            (Some(r), Some(w), Some(n)) => {
                run_ns += r;
                wait_ns += w;
                slices += n;
            }
            _ => precise = false,
        }
    }
    Some(if precise {
        Sched {
            run: Duration::from_nanos(run_ns),
            wait: Some(Duration::from_nanos(wait_ns)),
            slices: Some(slices),
        }
    } else {
        Sched {
            run: Duration::from_secs_f64(ticks as f64 / tick),
            wait: None,
            slices: None,
        }
    })
}

fn uptime() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// `p4dp bench --suite p4runtime-updates`.
pub fn suite_p4runtime_updates(a: &BenchArgs) -> Result<ExitCode> {
    let out = a.out.clone().unwrap_or_else(|| Suite::P4runtimeUpdates.default_out());
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let scratch = compile::scratch_dir("bench-p4runtime-updates")?;
    let mut text = String::new();
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let _ = writeln!(
        text,
        "p4dp bench --suite p4runtime-updates results\ncommand: {cmdline}\nload average at start: {}",
        uptime()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the client's runtime")?;
    let mut outs = Outputs::default();
    let r = rt.block_on(run(a, &scratch, &mut text, &mut outs));
    let plot_file = out.with_extension("svg");
    if !outs.plot.is_empty() {
        let plot = Plot {
            title: "P4Runtime modifies: d_all and d_control".into(),
            x_label: "latency (us)".into(),
            y_label: "percentile".into(),
            x_scale: Scale::Log10,
            y_scale: Scale::Percentile,
            series: std::mem::take(&mut outs.plot),
        };
        std::fs::write(&plot_file, plot.render()).with_context(|| format!("writing {}", plot_file.display()))?;
        let _ = writeln!(
            text,
            "percentile distribution of d_all and d_control: {}",
            plot_file.display()
        );
    }
    let _ = writeln!(text, "load average at end: {}", uptime());
    if let Err(e) = &r {
        let _ = writeln!(text, "ERROR: {e:#}");
    }
    if a.json.as_deref().is_none_or(|p| p.as_os_str() != "-") {
        print!("{text}");
    }
    std::fs::write(&out, &text).with_context(|| format!("writing {}", out.display()))?;
    if let Some(j) = &a.json {
        let settings = Json::obj([("window_s", Json::Num(a.duration.unwrap_or(5.0).max(0.1)))]);
        let unix_floor =
            (!outs.unix_floor.is_empty()).then_some(("unix_floor_round_trip_us", Json::Obj(outs.unix_floor)));
        let results = Json::obj(
            [
                ("insert_throughput", Json::Arr(outs.inserts)),
                ("modifies", Json::Arr(outs.modifies)),
                ("dataplane_atomic_commits", Json::Arr(outs.commits)),
                ("grpc_floor_round_trip_us", Json::Obj(outs.grpc_floor)),
                ("tcp_floor_round_trip_us", Json::Obj(outs.tcp_floor)),
            ]
            .into_iter()
            .chain(unix_floor)
            .chain([
                ("cache_floor_task_us", Json::Obj(outs.cache_floor)),
                ("plot", Json::str(plot_file.display().to_string())),
            ]),
        );
        let summary = Json::obj([(
            "error",
            r.as_ref().err().map_or(Json::Null, |e| Json::str(format!("{e:#}"))),
        )]);
        let hz = outs.tsc_hz.map_or(f64::NAN, |h| h as f64);
        json::emit(
            j,
            &json::document(Some(Suite::P4runtimeUpdates.name()), hz, settings, results, summary),
        )?;
    }
    r.map(|()| ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(v: u32, wire_ns: Option<u64>) -> Timed {
        Timed {
            v,
            sent_ns: wire_ns.map(|t| t.saturating_sub(10_000)),
            wire_ns,
            received_ns: None,
            rtt: Duration::ZERO,
            control: None,
            parts: None,
        }
    }

    #[test]
    fn d_all_is_the_first_stamp_of_the_value_or_a_later_one_minus_the_send() {
        let mut tag = vec![0u64; STAMP_CELLS as usize];
        let mut at = vec![0u64; STAMP_CELLS as usize];
        // value 100 stamped at 1,000 us; value 101's cell taken by 101 + 65536 (a later value)
        tag[100] = 100;
        at[100] = 1_000;
        tag[101] = 101 + u64::from(STAMP_CELLS);
        at[101] = 5_000;
        // value 102 stamped at 2,000 us but sent after that (the worker's clock is per poll)
        tag[102] = 102;
        at[102] = 2_000;
        let w = [
            timed(100, Some(999_250)),
            timed(101, Some(1_500_000)),
            timed(102, Some(2_000_400)),
            timed(103, Some(3_000_000)),
            timed(104, None),
        ];
        let (mut d, later, missing) = d_all_ns(&w, |w| w.wire_ns, &tag, &at);
        d.sort();
        // 101 (cell taken) takes 102's stamp: 2,000,000 - 1,500,000
        assert_eq!(d, vec![-400, 750, 500_000]);
        assert_eq!(later, 1);
        assert_eq!(missing, 2, "103: no stamp of its own or later; 104: no send time");
        // from the client's call, 10 us earlier here
        let (mut d, _, _) = d_all_ns(&w, |w| w.sent_ns, &tag, &at);
        d.sort();
        assert_eq!(d, vec![9_600, 10_750, 510_000]);
        // the early stamp counted as the slowest moves the median up
        assert_eq!(median_with_early_last(&[-400, 750, 500_000]), Some(500_000));
        assert_eq!(median_with_early_last(&[300, -400, 750, 500_000, 20]), Some(750));
        assert_eq!(median_with_early_last(&[-1]), None);
        assert_eq!(median_with_early_last(&[]), None);
    }

    #[test]
    fn applied_to_first_packet_counts_only_writes_stamped_by_their_own_value() {
        let mut tag = vec![0u64; STAMP_CELLS as usize];
        let mut at = vec![0u64; STAMP_CELLS as usize];
        tag[7] = 7;
        at[7] = 3_000;
        tag[9] = 9;
        at[9] = 4_000;
        let applied = |v: u32, ns: u64| Timed {
            parts: Some(timing::ControlParts {
                applied_ns: ns,
                ..Default::default()
            }),
            ..timed(v, Some(0))
        };
        // 8 has no stamp of its own (9's would count for d_all, not here); 9's switch gave no time
        let w = [applied(7, 2_999_000), applied(8, 3_500_000), applied(9, 0)];
        assert_eq!(applied_to_seen_ns(&w, &tag, &at), vec![1_000]);
    }

    #[test]
    fn a_writes_round_trip_splits_into_the_way_in_the_handler_and_the_way_out() {
        let full = Timed {
            received_ns: Some(1_000_000),
            sent_ns: Some(0),
            control: Some(Duration::from_nanos(30_000)),
            parts: Some(timing::ControlParts {
                start_ns: 400_000,
                applied_ns: 420_000,
                ..Default::default()
            }),
            ..timed(1, Some(50_000))
        };
        // no handler start from the switch (no run clock there): left out
        let no_start = Timed {
            received_ns: Some(1_000_000),
            control: Some(Duration::from_nanos(30_000)),
            parts: Some(timing::ControlParts {
                start_ns: 0,
                applied_ns: 420_000,
                ..Default::default()
            }),
            ..timed(2, Some(50_000))
        };
        let w = ways_ns(&[full, no_start, timed(3, None)]);
        assert_eq!(w.client_stack, vec![50_000]);
        assert_eq!(w.request_in, vec![350_000]);
        assert_eq!(w.handler, vec![20_000]);
        // the response was built at 400,000 + 30,000
        assert_eq!(w.response_out, vec![570_000]);
    }

    #[test]
    fn the_echo_floors_time_each_round_trip_at_its_pace_and_end_their_echo_threads() {
        for over in [Echo::Tcp, Echo::Unix] {
            let back_to_back = echo_round_trips(Duration::from_millis(100), None, over).unwrap();
            let paced = echo_round_trips(Duration::from_millis(30), Some(Duration::from_millis(10)), over).unwrap();
            // at most one round trip per 10 ms gap (the first starts at once); without a gap, more
            // than the pace would allow in 100 ms
            assert!(
                (1..=4).contains(&paced.len()),
                "{} paced round trips in 30 ms",
                paced.len()
            );
            assert!(
                back_to_back.len() > 11,
                "{} round trips back to back in 100 ms",
                back_to_back.len()
            );
        }
    }

    #[test]
    fn the_cache_task_writes_every_line_once_and_keeps_its_pace() {
        for lines in [1usize, 2, 512, 8192] {
            let mut seen = vec![0u32; lines];
            for i in 0..lines {
                seen[scattered_line(i, lines)] += 1;
            }
            assert!(seen.iter().all(|&n| n == 1), "{lines} lines: {seen:?}");
        }
        // consecutive lines are not neighbours (the prefetcher does not bring the next one)
        assert!((1..8192).all(|i| scattered_line(i, 8192).abs_diff(scattered_line(i - 1, 8192)) > 1));
        let t = Instant::now();
        let paced = cache_task_times(32 << 10, Some(Duration::from_millis(10)), 3);
        assert!(t.elapsed() >= Duration::from_millis(30), "{:?}", t.elapsed());
        let back_to_back = cache_task_times(32 << 10, None, 3);
        assert_eq!((paced.len(), back_to_back.len()), (3, 3));
        assert!(paced.iter().chain(&back_to_back).all(|d| *d > Duration::ZERO));
    }

    #[test]
    fn percentiles_are_nearest_ranks_and_the_plot_stops_at_the_samples_resolution() {
        let d = Dist::new((1..=1000).rev().map(f64::from).collect());
        assert_eq!(pct(&d.0, 50.0), Some(501.0)); // rank round(999 * 0.5) = 500 (0-based)
        assert_eq!(pct(&d.0, 99.0), Some(990.0));
        assert_eq!(pct(&d.0, 100.0), Some(1000.0));
        assert_eq!(pct(&[], 50.0), None);
        let pts = d.plot_points();
        // 1 - p from 1 down to 10^-3 by tenths of a decade (31 points), then the maximum
        assert_eq!(pts.len(), 32, "{pts:?}");
        assert_eq!(pts[0], (1.0, 0.0));
        assert_eq!(pts.last().copied(), Some((1000.0, 0.999)));
        assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1), "{pts:?}");
        let row = d.row("x");
        assert!(
            row.contains("median    501.0") && row.contains("p99.99   1000.0"),
            "{row}"
        );
    }
}

//! The device: its ports, workers and forwarding pipelines (a loaded program in the runtime).
//!
//! Switch-over (SetForwardingPipelineConfig with a commit): the new program is compiled,
//! loaded and its tables created while the old one forwards; then the old pipeline's workers are
//! stopped (they finish the burst in hand), its runtime is freed (ports detached), the ports are
//! attached to the new runtime and its workers started. No packet is processed by a half-loaded
//! program: a packet is processed either by the old pipeline or, after the switch-over, by the
//! new one with its complete initial state. Packets that arrive during the pause wait in the
//! devices' queues (pcap input files are replayed from their start). Switch-overs are counted.
//! An rtc.p4 program's background pipelines run on the switch's background threads, started and
//! stopped with its workers (the old program's threads are joined before the new program loads
//! its ports).

use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use p4dp_rt::{RunParams, Runtime, RuntimeOptions};

use crate::device_config::DeviceConfig;
use crate::proto::p4::config::v1::P4Info;

/// What the compiler made of a device config.
pub struct CompiledProgram {
    pub so_path: PathBuf,
    pub p4info_text: String,
}

/// Compiles the program of a device config (the CLI provides it: front end, cgen, gcc). Called
/// on a control thread, never while the switch's state lock is held.
pub trait Compiler: Send + Sync + 'static {
    fn compile(&self, cfg: &DeviceConfig) -> Result<CompiledProgram, String>;
}

/// Where the device's packets come from and go to.
#[derive(Clone, Debug)]
pub struct PortSpec {
    pub port: u32,
    pub devargs: String,
}

#[derive(Clone, Debug)]
pub struct DeviceOptions {
    pub device_id: u64,
    pub ports: Vec<PortSpec>,
    pub workers: u32,
    /// The controller (CPU) port: packets the program sends to it become PacketIns, PacketOuts
    /// enter the program as received on it (a runtime ring port). None: no packet I/O.
    pub cpu_port: Option<u32>,
    /// Threads (EAL lcores after the workers') that run an rtc.p4 program's background
    /// pipelines; a thread runs several pipelines in turn. 0: programs with background pipelines
    /// are refused.
    pub background_threads: u32,
}

/// A loaded program with its P4Runtime description.
pub struct Pipeline {
    pub rt: Arc<Runtime>,
    pub p4info: P4Info,
    pub device_config: Vec<u8>,
    pub cookie: Option<u64>,
    pub name: String,
    /// Packet I/O metadata (controller headers) of the program.
    pub packet_io: crate::stream::PacketIo,
    /// Digest configurations and lists (the notification thread polls them).
    pub digests: std::sync::Mutex<crate::digest::Digests>,
    /// Action profile member and group ids as written.
    pub profiles: std::sync::Mutex<crate::actprof::Profiles>,
    /// Each table's default entry as the program loaded it (RECONCILE_AND_COMMIT keeps only the
    /// default entries the controller changed).
    pub initial_defaults: Vec<crate::proto::p4::v1::TableEntry>,
}

struct Runner {
    stop: Arc<AtomicI32>,
    thread: JoinHandle<Result<(), String>>,
}

/// The device state (guarded by the server's lock).
pub struct Device {
    pub opts: DeviceOptions,
    /// The pipeline forwarding packets (and taking writes unless one is saved).
    pub active: Option<Pipeline>,
    /// VERIFY_AND_SAVE: loaded, not forwarding; reads and writes go to it until COMMIT.
    pub saved: Option<Pipeline>,
    runner: Option<Runner>,
    pub switchovers: u64,
    /// Ports the operator took down (p4dp.v1.Ports); applied to every pipeline's runtime.
    pub admin_down: std::collections::BTreeSet<u32>,
}

impl Device {
    pub fn new(opts: DeviceOptions) -> Device {
        Device {
            opts,
            active: None,
            saved: None,
            runner: None,
            switchovers: 0,
            admin_down: Default::default(),
        }
    }

    /// The pipeline Read/Write use: the saved one if any, else the active one.
    pub fn current(&self) -> Option<&Pipeline> {
        self.saved.as_ref().or(self.active.as_ref())
    }

    /// Loads a compiled program (tables created, not forwarding).
    pub fn load(
        &self,
        compiled: &CompiledProgram,
        p4info: P4Info,
        device_config: Vec<u8>,
        cookie: Option<u64>,
        name: String,
    ) -> Result<Pipeline, String> {
        let opts = RuntimeOptions {
            // background threads use the worker contexts after the workers'
            max_workers: self.opts.workers.max(1) + self.opts.background_threads,
            ..Default::default()
        };
        let rt = Runtime::load(&compiled.so_path, opts).map_err(|e| format!("loading the program: {e}"))?;
        if !rt.program().background.is_empty() && self.opts.background_threads == 0 {
            return Err(format!(
                "the program has background pipelines ({}) and the switch has no background threads (`p4dp serve --background-threads N`; `p4dp run --p4runtime` has them when its own program has background pipelines)",
                rt.program().background.join(", ")
            ));
        }
        let mut initial_defaults = Vec::new();
        for t in &rt.program().tables {
            let e = crate::proto::p4::v1::TableEntry {
                table_id: t.id,
                is_default_action: true,
                ..Default::default()
            };
            crate::tables::read(&rt, t, &e, &mut initial_defaults)
                .map_err(|e| format!("reading the default entries: {e}"))?;
        }
        Ok(Pipeline {
            initial_defaults,
            profiles: std::sync::Mutex::new(crate::actprof::Profiles::new(&p4info)),
            digests: std::sync::Mutex::new(crate::digest::Digests::new(&p4info, rt.program())),
            rt: Arc::new(rt),
            packet_io: crate::stream::PacketIo::from_p4info(&p4info),
            p4info,
            device_config,
            cookie,
            name,
        })
    }

    /// Makes `p` the forwarding pipeline (see the module doc). On error the device has no
    /// forwarding pipeline and the error says why.
    pub fn commit(&mut self, p: Pipeline) -> Result<(), String> {
        let t0 = Instant::now();
        self.stop_workers()?;
        self.active = None; // frees the old runtime and detaches its ports
        self.saved = None;
        for ps in &self.opts.ports {
            p.rt.add_port(ps.port, &ps.devargs)
                .map_err(|e| format!("attaching port {} ({}): {e}", ps.port, ps.devargs))?;
        }
        if let (Some(cpu), false) = (self.opts.cpu_port, self.opts.ports.is_empty()) {
            p.rt.add_ring_port(cpu, 0)
                .map_err(|e| format!("attaching the controller port {cpu}: {e}"))?;
        }
        for &port in &self.admin_down {
            p.rt.port_admin_set(port, false)
                .map_err(|e| format!("taking port {port} down: {e}"))?;
        }
        if !self.opts.ports.is_empty() {
            let stop = Arc::new(AtomicI32::new(0));
            let (rt, s, n) = (p.rt.clone(), stop.clone(), self.opts.workers.max(1));
            // as many background threads as the program has pipelines, at most the switch's
            let n_bg = (p.rt.program().background.len() as u32).min(self.opts.background_threads);
            let thread = std::thread::Builder::new()
                .name("p4dp-dataplane".into())
                .spawn(move || {
                    let params = RunParams {
                        n_workers: n,
                        stop: Some(&s),
                        n_background: n_bg,
                        ..Default::default()
                    };
                    let r = rt.run(&params).map_err(|e| e.to_string());
                    if let Err(e) = &r {
                        eprintln!("p4runtime: the data plane stopped: {e}");
                    }
                    r
                })
                .map_err(|e| format!("starting the data-plane thread: {e}"))?;
            // The commit is done when the workers forward: wait until worker 0 has looped (its
            // ports are started), so a client's next write and packets meet the new pipeline.
            let t = Instant::now();
            while !thread.is_finished()
                && t.elapsed() < Duration::from_secs(10)
                && !p.rt.worker_stats(0).is_ok_and(|w| w.loops > 0)
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.runner = Some(Runner { stop, thread });
            if let Some(e) = self.check_runner() {
                return Err(format!("the new pipeline's data plane did not start: {e}"));
            }
        }
        self.switchovers += 1;
        eprintln!(
            "p4runtime: pipeline `{}` committed (switch-over {}, {:.1} ms)",
            p.name,
            self.switchovers,
            t0.elapsed().as_secs_f64() * 1e3
        );
        self.active = Some(p);
        Ok(())
    }

    /// The device's port numbers: its data ports and, with data ports, the controller port.
    pub fn port_numbers(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.opts.ports.iter().map(|p| p.port).collect();
        if let (Some(cpu), false) = (self.opts.cpu_port, self.opts.ports.is_empty()) {
            v.push(cpu);
        }
        v.sort_unstable();
        v
    }

    /// Takes a port down or brings it up (the operator's admin state): in the pipelines' runtimes
    /// now and in every pipeline committed later.
    pub fn port_admin_set(&mut self, port: u32, up: bool) -> Result<(), String> {
        if !self.port_numbers().contains(&port) {
            return Err(format!("the device has no port {port}"));
        }
        for p in [self.active.as_ref(), self.saved.as_ref()].into_iter().flatten() {
            p.rt.port_admin_set(port, up).map_err(|e| e.to_string())?;
        }
        if up {
            self.admin_down.remove(&port);
        } else {
            self.admin_down.insert(port);
        }
        Ok(())
    }

    /// Stops the workers (if running) and waits for them.
    pub fn stop_workers(&mut self) -> Result<(), String> {
        if let Some(r) = self.runner.take() {
            // Release: the run loop polls the flag; no data is published through it.
            r.stop.store(1, Ordering::Release);
            match r.thread.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(format!("the data plane stopped with an error: {e}")),
                Err(_) => return Err("the data-plane thread panicked".into()),
            }
        }
        Ok(())
    }

    /// Has the data-plane thread ended by itself (an error)? Returns its error once.
    pub fn check_runner(&mut self) -> Option<String> {
        if self.runner.as_ref().is_some_and(|r| r.thread.is_finished()) {
            let r = self.runner.take()?;
            return match r.thread.join() {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("the data-plane thread panicked".into()),
            };
        }
        None
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let _ = self.stop_workers();
    }
}

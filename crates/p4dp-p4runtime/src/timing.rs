//! Write timing for benchmarks: a client that sends the request metadata key [`REQUEST_KEY`] with
//! a Write gets two response metadata entries back. [`CONTROL_NS_KEY`]: d_control, the time (ns)
//! from the Write handler's start (the request received and decoded by gRPC) to its response
//! built (the update applied, or all of a DATAPLANE_ATOMIC batch committed), on the switch's
//! monotonic clock; it leaves out HTTP/2 framing and the protobuf decoding before the handler and
//! the encoding and sending after it. [`RUN_CLOCK_KEY`]: "tsc0 ns0 tsc_hz" of the data plane's run
//! clock (p4dp_rt::clock::RunClock), with which a client on the same machine puts its own TSC
//! readings on the data plane's time line. Writes without the key get neither, at no cost.

use std::time::{Duration, Instant};

use p4dp_rt::clock::RunClock;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::Response;

/// Request metadata key asking for the timing entries.
pub const REQUEST_KEY: &str = "p4dp-timing";
/// Response metadata key of d_control in ns.
pub const CONTROL_NS_KEY: &str = "p4dp-control-ns";
/// Response metadata key of the run clock, "tsc0 ns0 tsc_hz" (absent when no run is in progress).
pub const RUN_CLOCK_KEY: &str = "p4dp-run-clock";

/// The handler's start time when the request asks for timing.
pub fn requested(m: &MetadataMap) -> Option<Instant> {
    m.contains_key(REQUEST_KEY).then(Instant::now)
}

/// Adds the timing entries to `resp`: d_control and the run clock.
pub fn annotate<T>(resp: &mut Response<T>, control: Duration, clock: Option<RunClock>) {
    let ns = control.as_nanos().to_string();
    let m = resp.metadata_mut();
    if let Ok(v) = MetadataValue::try_from(ns.as_str()) {
        m.insert(CONTROL_NS_KEY, v);
    }
    if let Some(c) = clock {
        if let Ok(v) = MetadataValue::try_from(format!("{} {} {}", c.tsc0, c.ns0, c.tsc_hz).as_str()) {
            m.insert(RUN_CLOCK_KEY, v);
        }
    }
}

/// The run clock of a response's [`RUN_CLOCK_KEY`] entry.
pub fn parse_run_clock(v: &str) -> Option<RunClock> {
    let mut it = v.split(' ').map(|x| x.parse::<u64>().ok());
    let c = RunClock {
        tsc0: it.next()??,
        ns0: it.next()??,
        tsc_hz: it.next()??,
    };
    (it.next().is_none() && c.tsc_hz > 0).then_some(c)
}

//! Write timing for benchmarks: a client that sends the request metadata key [`REQUEST_KEY`] with
//! a Write gets two response metadata entries back. [`CONTROL_NS_KEY`]: d_control, the time (ns)
//! from the Write handler's start (the request received and decoded by gRPC) to its response
//! built (the update applied, or all of a DATAPLANE_ATOMIC batch committed), on the switch's
//! monotonic clock; it leaves out HTTP/2 framing and the protobuf decoding before the handler and
//! the encoding and sending after it. [`RUN_CLOCK_KEY`]: "tsc0 ns0 tsc_hz" of the data plane's run
//! clock (p4dp_rt::clock::RunClock), with which a client on the same machine puts its own TSC
//! readings on the data plane's time line. [`PARTS_KEY`]: where d_control went ([`ControlParts`]).
//! Writes without the key get none of them, at no cost.

use std::cell::Cell;
use std::time::{Duration, Instant};

use p4dp_rt::clock::RunClock;
use p4dp_rt::BatchTimes;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::Response;

/// Request metadata key asking for the timing entries.
pub const REQUEST_KEY: &str = "p4dp-timing";
/// Response metadata key of d_control in ns.
pub const CONTROL_NS_KEY: &str = "p4dp-control-ns";
/// Response metadata key of the run clock, "tsc0 ns0 tsc_hz" (absent when no run is in progress).
pub const RUN_CLOCK_KEY: &str = "p4dp-run-clock";

/// Response metadata key of [`ControlParts`], "handoff_ns barrier_ns stall_ns applied_ns start_ns".
pub const PARTS_KEY: &str = "p4dp-control-parts";

/// Where a timed Write's d_control went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ControlParts {
    /// The handler's start -> the thread that applies the Write starting on it (a blocking
    /// thread's wake-up; 0 when the handler applies it itself).
    pub handoff: Duration,
    /// DATAPLANE_ATOMIC: the barrier request -> every worker parked (0 otherwise).
    pub barrier: Duration,
    /// DATAPLANE_ATOMIC: the updates' application while the workers were parked (their stall).
    pub stall: Duration,
    /// When the Write was applied (the workers released, or the last update made), in ns of
    /// the data plane's run clock; 0 when no run is in progress.
    pub applied_ns: u64,
    /// When the Write handler started (the request received and decoded), in ns of the data
    /// plane's run clock; 0 when no run is in progress. With the client's send time it gives
    /// the request's way in; with d_control, when the response was built.
    pub start_ns: u64,
}

/// The start of a timed Write's handler: [`requested`]'s answer.
#[derive(Clone, Copy, Debug)]
pub struct Start {
    pub at: Instant,
    /// The TSC then (None where there is none).
    pub tsc: Option<u64>,
}

thread_local! {
    /// The times of the last data-plane atomic batch this thread ran (see [`note_batch`]).
    static LAST_BATCH: Cell<Option<BatchTimes>> = const { Cell::new(None) };
}

/// Records the times of a data-plane atomic batch this thread just ran, for [`take_batch`].
pub fn note_batch(t: BatchTimes) {
    LAST_BATCH.with(|c| c.set(Some(t)));
}

/// The times [`note_batch`] recorded on this thread since the last call, if any.
pub fn take_batch() -> Option<BatchTimes> {
    LAST_BATCH.with(Cell::take)
}

/// Runs `apply` (a Write's application) for a Write whose handler started at `timed` (None:
/// not timed, nothing recorded); its result and, when timed, where its time went (`clock`: the
/// data plane's run clock, or None).
pub fn stamped<T>(
    timed: Option<Start>,
    clock: impl FnOnce() -> Option<RunClock>,
    apply: impl FnOnce() -> T,
) -> (T, Option<ControlParts>) {
    let Some(start) = timed else {
        return (apply(), None);
    };
    let handoff = start.at.elapsed();
    let _ = take_batch();
    let out = apply();
    let tsc = p4dp_rt::clock::tsc_now();
    let b = take_batch().unwrap_or_default();
    let clock = clock();
    let on_clock = |t: Option<u64>| clock.zip(t).map_or(0, |(c, t)| c.ns_at(t));
    (
        out,
        Some(ControlParts {
            handoff,
            barrier: b.wait,
            stall: b.apply,
            applied_ns: on_clock(tsc),
            start_ns: on_clock(start.tsc),
        }),
    )
}

/// The [`ControlParts`] of a response's [`PARTS_KEY`] entry.
pub fn parse_parts(v: &str) -> Option<ControlParts> {
    let mut it = v.split(' ').map(|x| x.parse::<u64>().ok());
    let p = ControlParts {
        handoff: Duration::from_nanos(it.next()??),
        barrier: Duration::from_nanos(it.next()??),
        stall: Duration::from_nanos(it.next()??),
        applied_ns: it.next()??,
        start_ns: it.next()??,
    };
    it.next().is_none().then_some(p)
}

/// The handler's start time when the request asks for timing.
pub fn requested(m: &MetadataMap) -> Option<Start> {
    m.contains_key(REQUEST_KEY).then(|| Start {
        tsc: p4dp_rt::clock::tsc_now(),
        at: Instant::now(),
    })
}

/// Adds the timing entries to `resp`: d_control, where it went and the run clock.
pub fn annotate<T>(resp: &mut Response<T>, control: Duration, parts: Option<ControlParts>, clock: Option<RunClock>) {
    let ns = control.as_nanos().to_string();
    let m = resp.metadata_mut();
    if let Ok(v) = MetadataValue::try_from(ns.as_str()) {
        m.insert(CONTROL_NS_KEY, v);
    }
    if let Some(p) = parts {
        let text = format!(
            "{} {} {} {} {}",
            p.handoff.as_nanos(),
            p.barrier.as_nanos(),
            p.stall.as_nanos(),
            p.applied_ns,
            p.start_ns
        );
        if let Ok(v) = MetadataValue::try_from(text.as_str()) {
            m.insert(PARTS_KEY, v);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_go_through_the_response_metadata_and_back() {
        let p = ControlParts {
            handoff: Duration::from_nanos(1_500),
            barrier: Duration::from_nanos(2_000),
            stall: Duration::from_nanos(700),
            applied_ns: 123_456_789,
            start_ns: 123_400_000,
        };
        let mut resp = Response::new(());
        annotate(&mut resp, Duration::from_micros(9), Some(p), None);
        let text = resp.metadata().get(PARTS_KEY).and_then(|v| v.to_str().ok());
        assert_eq!(text.and_then(parse_parts), Some(p));
        assert_eq!(parse_parts("1 2 3 4"), None);
        assert_eq!(parse_parts("1 2 3 4 5 6"), None);
    }

    #[test]
    fn a_write_not_timed_records_nothing_and_a_batch_is_taken_once() {
        let (v, parts) = stamped(None, || None, || 5);
        assert_eq!((v, parts), (5, None));
        let t = BatchTimes {
            wait: Duration::from_nanos(10),
            apply: Duration::from_nanos(20),
        };
        let start = Start {
            at: Instant::now(),
            tsc: Some(1_000),
        };
        let (_, parts) = stamped(Some(start), || None, || note_batch(t));
        let parts = parts.expect("timed");
        assert_eq!(
            (parts.barrier, parts.stall, parts.applied_ns, parts.start_ns),
            (t.wait, t.apply, 0, 0)
        );
        // with a run clock, the handler's start and the application are on it, in that order
        let clock = RunClock {
            tsc0: 0,
            ns0: 0,
            tsc_hz: 1_000_000_000,
        };
        let (_, parts) = stamped(Some(start), || Some(clock), || ());
        let parts = parts.expect("timed");
        assert_eq!(parts.start_ns, 1_000);
        assert!(parts.applied_ns >= parts.start_ns, "{parts:?}");
        assert_eq!(take_batch(), None);
    }
}

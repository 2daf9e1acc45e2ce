//! Data-plane atomic batches: `Runtime::batch` runs a closure while every worker waits at a
//! burst boundary (`p4dp_runtime_batch_run`, runtime/src/batch.c).

use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use crate::{check, ffi, Result, Runtime};

/// Where the time of one batch went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchTimes {
    /// From the request until every worker had parked at its loop boundary.
    pub wait: Duration,
    /// The closure's run: how long the parked workers stalled after parking.
    pub apply: Duration,
}

struct Call<F, R> {
    f: Option<F>,
    out: Option<std::thread::Result<R>>,
}

unsafe extern "C" fn trampoline<F: FnOnce() -> R, R>(arg: *mut c_void) -> c_int {
    // SAFETY: arg is the &mut Call<F, R> that `batch` passed, alive for the whole C call, and
    // the C side calls this function exactly once.
    let call = unsafe { &mut *(arg as *mut Call<F, R>) };
    if let Some(f) = call.f.take() {
        // A panic must not unwind through C: catch it here, resume it after the barrier.
        call.out = Some(catch_unwind(AssertUnwindSafe(f)));
    }
    0
}

impl Runtime {
    /// Runs `f` with every worker of the current run parked at a burst boundary: each packet is
    /// processed entirely before or entirely after everything `f` writes, on every table and
    /// extern (`f` uses the ordinary control API). Workers stall while `f` runs: validate and
    /// prepare before, only write inside. Without a running data plane `f` just runs. Batches
    /// are serialized; calling `batch` inside `f` is an error (EDEADLK). A panic in `f` is
    /// resumed after the workers were released.
    pub fn batch<F: FnOnce() -> R, R>(&self, f: F) -> Result<(R, BatchTimes)> {
        let mut call: Call<F, R> = Call { f: Some(f), out: None };
        let mut t = ffi::p4dp_rt_batch_times::default();
        // SAFETY: trampoline matches the C signature; &mut call and &mut t outlive the call.
        let rc = unsafe {
            ffi::p4dp_runtime_batch_run(
                self.p(),
                trampoline::<F, R>,
                &mut call as *mut Call<F, R> as *mut c_void,
                &mut t,
            )
        };
        check("data-plane atomic batch", rc)?;
        let times = BatchTimes {
            wait: Duration::from_nanos(t.wait_ns),
            apply: Duration::from_nanos(t.apply_ns),
        };
        match call.out {
            Some(Ok(r)) => Ok((r, times)),
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => Err(crate::Error::Runtime {
                op: "data-plane atomic batch",
                errno: crate::errno::EINVAL,
                msg: "the batch function did not run".into(),
            }),
        }
    }
}

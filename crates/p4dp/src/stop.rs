//! Stopping the process on request: SIGINT and SIGTERM set one process-wide stop flag that every
//! long-running part (the run loop, and anything else that blocks: a server, a compile) polls; a
//! second signal ends the process at once. Temporary directories are removed on every exit path,
//! including that forced one, and child processes (gcc) are ended with us.
//!
//! How: [`install`] blocks both signals in the calling thread before any other thread exists, so
//! every thread created later (DPDK's lcores, its interrupt thread) inherits the mask, and one
//! thread of ours takes the signals with `sigwait`. That thread runs ordinary code (no
//! async-signal-safety limits): it sets the flag, stops the children, and on the second signal
//! removes the temporary directories and calls `_exit`. A child process would inherit the blocked
//! signals (Rust's `Command` keeps the mask): the compilers p4dp starts (cpp, gcc) are started
//! with none blocked (`p4dp_syntax::child::unblock_signals`), so that a stop ends them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// 0 while running; the number of the signal that asked to stop afterwards. The C run loop reads
/// it too (an `int` with an acquire load).
static STOP: AtomicI32 = AtomicI32::new(0);

/// Temporary directories to remove if the process is ended by a second signal.
static TEMP_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread it creates later) and starts
/// the thread that receives them. Call first in `main`, before any other thread is started.
pub fn install() {
    // SAFETY: sigset_t and sigaction are plain data (sigemptyset initializes the set, sigaction
    // with a null new action only reads the disposition); pthread_sigmask only changes the calling
    // thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // a signal our parent set to be ignored stays ignored (a shell does that to SIGINT
            // for background commands, nohup-like wrappers to others)
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    let spawned = std::thread::Builder::new()
        .name("p4dp-signals".into())
        .spawn(move || signal_thread(set));
    if let Err(e) = spawned {
        // without the thread the signals stay blocked: undo that so they at least end the process
        eprintln!("warning: no signal handling ({e}): SIGINT and SIGTERM end p4dp at once");
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

fn signal_thread(set: libc::sigset_t) {
    loop {
        let mut sig: libc::c_int = 0;
        // SAFETY: set is initialized and both signals are blocked in every thread.
        if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
            continue;
        }
        // Relaxed is enough for the check: only this thread stores to STOP.
        if STOP.load(Ordering::Relaxed) == 0 {
            // release: pairs with the acquire loads of the run loop and of `requested`
            STOP.store(sig, Ordering::Release);
            eprintln!(
                "p4dp: {} received, stopping (send it again to end at once)",
                signal_name(sig)
            );
            // a compile in progress is of no use any more: end it (the caller sees the stop)
            signal_children(libc::SIGTERM);
        } else {
            eprintln!("p4dp: {} received again, ending now", signal_name(sig));
            signal_children(libc::SIGKILL);
            remove_temp_dirs();
            // SAFETY: ends the process without running destructors or atexit handlers, which
            // could wait on the threads that are still running.
            unsafe { libc::_exit(128 + sig) };
        }
    }
}

/// The signal that asked the process to stop, if one did.
pub fn requested() -> Option<i32> {
    // acquire: pairs with the signal thread's release store
    match STOP.load(Ordering::Acquire) {
        0 => None,
        s => Some(s),
    }
}

/// The flag itself, for loops that poll it (`p4dp_rt::RunParams::stop`).
pub fn flag() -> &'static AtomicI32 {
    &STOP
}

/// The conventional exit status of a process stopped by @sig: 128 + the signal number (130 for
/// SIGINT, 143 for SIGTERM).
pub fn exit_code(sig: i32) -> ExitCode {
    ExitCode::from(u8::try_from(128 + sig).unwrap_or(1))
}

/// Sends @sig to every process below this one (gcc and the programs it starts), found through
/// /proc: the children of a process are those whose parent pid (the 4th field of
/// /proc/PID/stat) is its pid.
fn signal_children(sig: i32) {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return;
    };
    let mut parent_of: Vec<(i32, i32)> = Vec::new();
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may contain spaces and parentheses, the last ')' ends it
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|s| s.parse().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut tree = vec![std::process::id() as i32];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    for pid in &tree[1..] {
        // SAFETY: kill has no memory effects; a pid that has gone meanwhile gives ESRCH.
        unsafe { libc::kill(*pid, sig) };
    }
}

/// Registers @dir for removal if the process is ended by a second signal.
pub fn register_temp_dir(dir: &Path) {
    if let Ok(mut v) = TEMP_DIRS.lock() {
        v.push(dir.to_path_buf());
    }
}

fn unregister_temp_dir(dir: &Path) {
    if let Ok(mut v) = TEMP_DIRS.lock() {
        v.retain(|d| d != dir);
    }
}

fn remove_temp_dirs() {
    // try_lock: never wait for a thread that may be stopped while holding the lock
    if let Ok(v) = TEMP_DIRS.try_lock() {
        for d in v.iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A temporary directory removed when dropped (every return path, errors included) and on the
/// forced exit of a second signal.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `$TMPDIR/p4dp-TAG-PID` (emptied first if a process with our pid left one behind).
    pub fn new(tag: &str) -> std::io::Result<TempDir> {
        let path = std::env::temp_dir().join(format!("p4dp-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)?;
        register_temp_dir(&path);
        Ok(TempDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        unregister_temp_dir(&self.path);
    }
}

/// The error of work abandoned because a signal asked the process to stop.
#[derive(Debug, thiserror::Error)]
#[error("stopped by {}", signal_name(*.0))]
pub struct Stopped(pub i32);

/// `Err(Stopped)` once a stop was requested: for the points between steps where work that is no
/// longer wanted should not begin.
pub fn check() -> Result<(), Stopped> {
    match requested() {
        Some(sig) => Err(Stopped(sig)),
        None => Ok(()),
    }
}

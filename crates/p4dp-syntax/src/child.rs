//! Starting the external tools the compiler runs (cpp, gcc).

use std::process::Command;

/// Makes `cmd`'s process start with no signal blocked.
///
/// A process inherits its parent's signal mask, and the standard library does not reset it. The
/// p4dp CLI blocks SIGINT and SIGTERM in every thread and takes them on a thread of its own; a
/// compiler started from it would inherit the blocked signals and could then not be ended by
/// them (neither by p4dp passing a stop on nor by a Ctrl-C to the terminal's process group).
pub fn unblock_signals(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec and calls only sigemptyset
    // and sigprocmask, which are async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(|| {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            if libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked-signal mask (`SigBlk` of /proc/self/status) of a child process (grep, which
    /// keeps the mask it starts with; a shell would clear it).
    fn child_mask(unblock: bool) -> String {
        let mut cmd = Command::new("grep");
        cmd.args(["SigBlk", "/proc/self/status"]);
        if unblock {
            unblock_signals(&mut cmd);
        }
        let out = cmd.output().expect("run sh");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[test]
    fn a_child_starts_with_no_signal_blocked_even_if_the_parent_blocks_some() {
        // block SIGTERM in a thread of our own (the test harness's other threads are untouched)
        let masks = std::thread::spawn(|| {
            // SAFETY: plain-data set; pthread_sigmask changes only this thread's mask.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGTERM);
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            }
            (child_mask(false), child_mask(true))
        })
        .join()
        .expect("thread");
        // SIGTERM is signal 15: bit 14 of the mask
        assert_eq!(
            masks.0, "SigBlk:\t0000000000004000",
            "the inherited mask (the case this guards)"
        );
        assert_eq!(masks.1, "SigBlk:\t0000000000000000");
    }
}

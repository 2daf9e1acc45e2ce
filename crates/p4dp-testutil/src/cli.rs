//! Running a built binary (`p4dp`) on small programs written for one test.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How one run of a binary ended and what it printed.
#[derive(Debug, Clone)]
pub struct Run {
    /// The exit status (`None`: killed by a signal).
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock time of the run.
    pub took: Duration,
}

impl Run {
    /// Whether it exited with status 0.
    pub fn ok(&self) -> bool {
        self.status == Some(0)
    }
}

/// Runs `bin` with `args` to completion (stdin closed) and captures its output.
pub fn run<S: AsRef<OsStr>>(bin: &Path, args: &[S]) -> Run {
    let start = Instant::now();
    let out = Command::new(bin)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    }
}

/// Writes `text` to a file `name` in a scratch directory of its own (tests run in parallel:
/// `tag` must be distinct per test) and returns its path.
pub fn scratch_file(tag: &str, name: &str, text: &str) -> PathBuf {
    let p = crate::scratch_dir(tag).join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    p
}

/// A v1model program: a header `h_t { bit<8> a; bit<8> b; bit<32> c; }` extracted by the parser,
/// `top` before the blocks, and an ingress control with the declarations `locals` and
/// `apply { body }`. `locals` starts on line 12, and `body` on line 14 when `top` and `locals` are one line each.
pub fn v1model_program(top: &str, locals: &str, body: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<8> b; bit<32> c; }}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
{top}
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pk.extract(hdr.h); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{locals}
    apply {{
{body}
    }}
}}
control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control DP(packet_out pk, in headers_t hdr) {{ apply {{ pk.emit(hdr.h); }} }}
V1Switch(P(), VC(), Ing(), EG(), CC(), DP()) main;
"#
    )
}

//! `p4dp bench --json`: the figures of any suite or program as one JSON document, for machines.
//!
//! The document is `{"p4dp_bench": 2, "suite": NAME|null, "command": ..., "tsc_hz": ...,
//! "settings": {...}, "results": ..., "summary": {...}}`; `results` has the shape of the suite
//! (docs/PERFORMANCE.md, "Machine-readable output"). Cycles are TSC cycles; a figure that was not
//! measured (a phase that did not finish, a ratio of nothing) is `null`, never NaN.

use std::path::Path;

use anyhow::{Context, Result};
use p4dp_rt::bench_dp::Latency;

/// Version of the document's layout; bumped when a field changes meaning or goes away.
pub const FORMAT: u32 = 2;

/// A JSON value. Objects keep their keys in insertion order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number; non-finite values are written as `null`.
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An object from (key, value) pairs.
    pub fn obj<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// A string.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An unsigned count (saturating at i64::MAX, far beyond any packet count).
    pub fn uint(v: u64) -> Json {
        Json::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }

    /// A number, or `null` for `None`.
    pub fn opt(v: Option<f64>) -> Json {
        v.map_or(Json::Null, Json::Num)
    }

    /// The document's text (compact, one line, ending in a newline).
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s.push('\n');
        s
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(v) if v.is_finite() => {
                // Rust's shortest round-trip form; integers keep a ".0"-free look
                if v.fract() == 0.0 && v.abs() < 1e15 {
                    out.push_str(&format!("{}", *v as i64));
                } else {
                    out.push_str(&format!("{v}"));
                }
            }
            Json::Num(_) => out.push_str("null"),
            Json::Int(v) => out.push_str(&v.to_string()),
            Json::Str(s) => write_str(s, out),
            Json::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Obj(o) => {
                out.push('{');
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A latency summary in TSC cycles.
pub fn latency(l: &Latency) -> Json {
    Json::obj([
        ("count", Json::uint(l.count)),
        ("p50", Json::uint(l.p50)),
        ("p90", Json::uint(l.p90)),
        ("p99", Json::uint(l.p99)),
        ("p99_9", Json::uint(l.p999)),
        ("p99_99", Json::uint(l.p9999)),
        ("max", Json::uint(l.max)),
    ])
}

/// A list of numbers (one per repetition).
pub fn nums(v: &[f64]) -> Json {
    Json::Arr(v.iter().map(|x| Json::Num(*x)).collect())
}

/// The whole document.
pub fn document(suite: Option<&str>, tsc_hz: f64, settings: Json, results: Json, summary: Json) -> Json {
    Json::obj([
        ("p4dp_bench", Json::Int(FORMAT as i64)),
        ("suite", suite.map_or(Json::Null, Json::str)),
        ("command", Json::str(std::env::args().collect::<Vec<_>>().join(" "))),
        ("tsc_hz", Json::Num(tsc_hz)),
        ("settings", settings),
        ("results", results),
        ("summary", summary),
    ])
}

/// Write the document to `path`, or to stdout if `path` is `-`.
pub fn emit(path: &Path, doc: &Json) -> Result<()> {
    let text = doc.render();
    if path.as_os_str() == "-" {
        print!("{text}");
        return Ok(());
    }
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("bench: JSON written to {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_render_as_json() {
        let v = Json::obj([
            ("a", Json::Num(1.5)),
            ("b", Json::Num(f64::NAN)),
            ("c", Json::Num(f64::INFINITY)),
            ("d", Json::Num(3.0)),
            ("e", Json::str("q\"\\\n\u{1}")),
            ("f", Json::Arr(vec![Json::Null, Json::Bool(true), Json::Int(-2)])),
            ("g", Json::obj(Vec::<(&str, Json)>::new())),
        ]);
        assert_eq!(
            v.render(),
            "{\"a\":1.5,\"b\":null,\"c\":null,\"d\":3,\"e\":\"q\\\"\\\\\\n\\u0001\",\"f\":[null,true,-2],\"g\":{}}\n"
        );
        assert_eq!(Json::uint(u64::MAX), Json::Int(i64::MAX));
        assert_eq!(Json::opt(None), Json::Null);
    }
}

//! Comparing one received packet with an `expect` pattern (docs/stf.md, "Pass or fail") and
//! rendering an [`Outcome`] as a readable report.
//!
//! For a failing port, the report lists every expected/received pair in
//! order. A pair that differs is printed nibble by nibble, the pattern above
//! the received bytes, 16 bytes per row, with `^` under each nibble that
//! differs, is missing, or is beyond a `$`-terminated pattern:
//!
//! ```text
//! port 2: packet 1: 2 nibbles differ (expect at line 3, packet from line 4)
//!     exp 0000: 00000101 ******** ****7F66
//!     got 0000: 00000101 00000202 03035566 77778800
//!                                     ^ ^
//! ```

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

use crate::ast::Pattern;
use crate::runner::{Failure, Outcome, PairStatus, PortFailure, ReceivedPacket, Warning};

/// Uppercase hex of `data`, two digits per byte.
pub fn hex(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 2);
    for b in data {
        let _ = write!(s, "{b:02X}");
    }
    s
}

fn nibbles(data: &[u8]) -> Vec<u8> {
    data.iter().flat_map(|b| [b >> 4, b & 0xf]).collect()
}

/// Compare a received packet with a pattern (`None` = any packet): the
/// packet must be at least as long as the pattern, exactly as long if the
/// pattern ends in `$`, and every non-`*` nibble must be equal.
pub fn compare(pattern: Option<&Pattern>, data: &[u8]) -> PairStatus {
    let Some(p) = pattern else { return PairStatus::Match };
    let got = nibbles(data);
    let mut bad: Vec<usize> = p
        .nibbles
        .iter()
        .zip(&got)
        .enumerate()
        .filter(|(_, (e, g))| e.is_some_and(|e| e != **g))
        .map(|(i, _)| i)
        .collect();
    let mut reasons = Vec::new();
    if got.len() < p.nibbles.len() {
        bad.extend(got.len()..p.nibbles.len());
        reasons.push(format!(
            "received {} bytes ({} nibbles), shorter than the pattern ({} nibbles)",
            data.len(),
            got.len(),
            p.nibbles.len()
        ));
    } else if p.exact_len && got.len() > p.nibbles.len() {
        bad.extend(p.nibbles.len()..got.len());
        reasons.push(format!(
            "received {} bytes, but the pattern ends in `$` at {} bytes",
            data.len(),
            p.nibbles.len() / 2
        ));
    }
    let differ = bad.iter().filter(|&&i| i < got.len().min(p.nibbles.len())).count();
    if differ > 0 {
        reasons.insert(
            0,
            format!(
                "{differ} nibble{} differ{}",
                if differ == 1 { "" } else { "s" },
                if differ == 1 { "s" } else { "" }
            ),
        );
    }
    if bad.is_empty() {
        PairStatus::Match
    } else {
        PairStatus::Mismatch {
            nibbles: bad,
            reason: reasons.join("; "),
        }
    }
}

const ROW: usize = 32; // nibbles per row (16 bytes)
const GROUP: usize = 8; // nibbles per space-separated group
const MAX_ROWS: usize = 8; // beyond this, only rows with marks are shown

fn row_text(chars: &[char], row: usize) -> String {
    let mut s = String::new();
    let lo = (row * ROW).min(chars.len());
    let hi = ((row + 1) * ROW).min(chars.len());
    for (j, &c) in chars[lo..hi].iter().enumerate() {
        if j != 0 && j % GROUP == 0 {
            s.push(' ');
        }
        s.push(c);
    }
    s.trim_end().to_string()
}

fn mark_text(marks: &BTreeSet<usize>, row: usize) -> String {
    let mut s = String::new();
    for i in row * ROW..(row + 1) * ROW {
        if i % ROW != 0 && i % GROUP == 0 {
            s.push(' ');
        }
        s.push(if marks.contains(&i) { '^' } else { ' ' });
    }
    s.trim_end().to_string()
}

/// Render an expected pattern and/or received bytes aligned by nibble.
fn render_aligned(out: &mut String, indent: &str, exp: Option<&Pattern>, got: Option<&[u8]>, marks: &BTreeSet<usize>) {
    let exp_chars: Option<Vec<char>> = exp.map(|p| {
        p.nibbles
            .iter()
            .map(|n| {
                n.map_or('*', |v| {
                    char::from_digit(u32::from(v), 16).unwrap_or('?').to_ascii_uppercase()
                })
            })
            .collect()
    });
    let got_chars: Option<Vec<char>> = got.map(|d| hex(d).chars().collect());
    let len = exp_chars
        .as_ref()
        .map_or(0, Vec::len)
        .max(got_chars.as_ref().map_or(0, Vec::len));
    let rows = len.div_ceil(ROW).max(1);
    let mut skipped = false;
    for row in 0..rows {
        let row_marked = marks.iter().any(|&m| m / ROW == row);
        if rows > MAX_ROWS && row > 0 && row + 1 < rows && !row_marked {
            if !skipped {
                let _ = writeln!(out, "{indent}    ...");
                skipped = true;
            }
            continue;
        }
        skipped = false;
        let off = row * ROW / 2;
        if let Some(e) = &exp_chars {
            let tail = if exp.is_some_and(|p| p.exact_len) && (row + 1) * ROW >= e.len() && row * ROW <= e.len() {
                "$"
            } else {
                ""
            };
            let _ = writeln!(out, "{indent}exp {off:04X}: {}{tail}", row_text(e, row));
        }
        if let Some(g) = &got_chars {
            let _ = writeln!(out, "{indent}got {off:04X}: {}", row_text(g, row));
        }
        if row_marked {
            let _ = writeln!(out, "{indent}          {}", mark_text(marks, row));
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn render_port(out: &mut String, f: &PortFailure) {
    let (ne, nr) = (f.expected.len(), f.received.len());
    if ne != nr {
        let _ = writeln!(
            out,
            "port {}: expected {}, received {}",
            f.port,
            plural(ne, "packet"),
            plural(nr, "packet")
        );
    } else {
        let bad = f.pairs.iter().filter(|p| **p != PairStatus::Match).count();
        let _ = writeln!(out, "port {}: {} of {} differ", f.port, plural(bad, "packet"), ne);
    }
    for (i, status) in f.pairs.iter().enumerate() {
        let e = f.expected.get(i);
        let r = f.received.get(i);
        let where_ = match (e, r) {
            (Some(e), Some(r)) => format!("expect at line {}, packet from line {}", e.line, r.from_line),
            (Some(e), None) => format!("expect at line {}", e.line),
            (None, Some(r)) => format!("packet from line {}", r.from_line),
            (None, None) => String::new(),
        };
        let n = i + 1;
        match status {
            PairStatus::Match => {
                let _ = writeln!(out, "  packet {n}: ok ({where_})");
            }
            PairStatus::Mismatch { nibbles, reason } => {
                let _ = writeln!(out, "  packet {n}: {reason} ({where_})");
                let marks: BTreeSet<usize> = nibbles.iter().copied().collect();
                render_aligned(
                    out,
                    "      ",
                    e.and_then(|e| e.pattern.as_ref()),
                    r.map(|r| r.data.as_slice()),
                    &marks,
                );
            }
            PairStatus::Missing => {
                let _ = writeln!(out, "  packet {n}: expected but not received ({where_})");
                match e.and_then(|e| e.pattern.as_ref()) {
                    Some(p) => render_aligned(out, "      ", Some(p), None, &BTreeSet::new()),
                    None => {
                        let _ = writeln!(out, "      exp: any packet");
                    }
                }
            }
            PairStatus::Unexpected => {
                let _ = writeln!(out, "  packet {n}: received but not expected ({where_})");
                render_aligned(out, "      ", None, r.map(|r| r.data.as_slice()), &BTreeSet::new());
            }
        }
    }
}

fn render_received(out: &mut String, p: &ReceivedPacket) {
    let _ = writeln!(
        out,
        "warning: a packet left on port {}, which no `packet` or `expect` statement mentions (from the packet at line {})",
        p.port, p.from_line
    );
    render_aligned(out, "      ", None, Some(&p.data), &BTreeSet::new());
}

impl fmt::Display for Outcome {
    /// The full report: failures, then warnings, then a summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for fail in &self.failures {
            match fail {
                Failure::Statement { line, text, message } => {
                    let _ = writeln!(out, "{}:{line}: error: {message}", self.file);
                    let _ = writeln!(out, "      {text}");
                    let _ = writeln!(out, "  the run stopped here; packet output was not compared");
                }
                Failure::CounterCheck { line, text, message } => {
                    let _ = writeln!(out, "{}:{line}: check_counter failed: {message}", self.file);
                    let _ = writeln!(out, "      {text}");
                }
                Failure::Port(p) => render_port(&mut out, p),
            }
        }
        for w in &self.warnings {
            match w {
                Warning::UnmentionedPort(p) => render_received(&mut out, p),
            }
        }
        let status = if self.passed() { "PASS" } else { "FAIL" };
        let _ = write!(
            out,
            "{status}: {} ({}, {}, {} received",
            self.file,
            plural(self.failures.len(), "failure"),
            plural(self.warnings.len(), "warning"),
            plural(self.received.len(), "packet")
        );
        if !self.completed {
            let _ = write!(out, ", stopped after {}", plural(self.steps_run, "statement"));
        }
        out.push(')');
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Pattern {
        let exact_len = s.ends_with('$');
        let nibbles = s
            .trim_end_matches('$')
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_digit(16).map(|d| d as u8))
            .collect();
        Pattern { nibbles, exact_len }
    }

    #[test]
    fn prefix_match_and_wildcards() {
        let data = [
            0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x02, 0x02, 0x03, 0x03, 0x7f, 0x66, 0x77,
        ];
        assert_eq!(
            compare(Some(&pat("00000101 ******** **** 7f 66")), &data),
            PairStatus::Match
        );
        assert_eq!(compare(None, &data), PairStatus::Match);
        assert_eq!(compare(Some(&pat("")), &data), PairStatus::Match);
        assert_eq!(compare(Some(&pat("0000")), &[0, 0]), PairStatus::Match);
        assert_eq!(compare(Some(&pat("0000$")), &[0, 0]), PairStatus::Match);
    }

    #[test]
    fn mismatches() {
        match compare(Some(&pat("0001 02")), &[0x00, 0x11, 0x02]) {
            PairStatus::Mismatch { nibbles, reason } => {
                assert_eq!(nibbles, vec![2]);
                assert_eq!(reason, "1 nibble differs");
            }
            s => panic!("{s:?}"),
        }
        match compare(Some(&pat("000102")), &[0x00, 0x01]) {
            PairStatus::Mismatch { nibbles, reason } => {
                assert_eq!(nibbles, vec![4, 5]);
                assert_eq!(
                    reason,
                    "received 2 bytes (4 nibbles), shorter than the pattern (6 nibbles)"
                );
            }
            s => panic!("{s:?}"),
        }
        match compare(Some(&pat("0001$")), &[0x00, 0x01, 0x02]) {
            PairStatus::Mismatch { nibbles, reason } => {
                assert_eq!(nibbles, vec![4, 5]);
                assert_eq!(reason, "received 3 bytes, but the pattern ends in `$` at 2 bytes");
            }
            s => panic!("{s:?}"),
        }
        // Odd-length pattern: prefix at nibble granularity.
        assert_eq!(compare(Some(&pat("001")), &[0x00, 0x1f]), PairStatus::Match);
    }

    #[test]
    fn aligned_rendering() {
        let mut out = String::new();
        let marks: BTreeSet<usize> = [20usize, 21].into_iter().collect();
        render_aligned(
            &mut out,
            "",
            Some(&pat("00000101 ******** ****7f66")),
            Some(&[0, 0, 1, 1, 0, 0, 2, 2, 3, 3, 0x55, 0x66, 0x77]),
            &marks,
        );
        let expected = "\
exp 0000: 00000101 ******** ****7F66
got 0000: 00000101 00000202 03035566 77
                                ^^
";
        assert_eq!(out, expected);
    }

    #[test]
    fn long_packets_elide_unmarked_rows() {
        let data = vec![0xabu8; 16 * 12];
        let marks: BTreeSet<usize> = [32 * 5 + 3].into_iter().collect();
        let mut out = String::new();
        render_aligned(&mut out, "", None, Some(&data), &marks);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("got 0000: "));
        assert_eq!(lines[1], "    ...");
        assert!(lines[2].starts_with("got 0050: "));
        assert_eq!(lines[3], "             ^");
        assert_eq!(lines[4], "    ...");
        assert!(lines[5].starts_with("got 00B0: "));
        assert_eq!(lines.len(), 6);
    }
}

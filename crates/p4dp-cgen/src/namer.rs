//! The [`Namer`]: the one owner of every C identifier the generator emits.
//!
//! P4 names are sanitized (anything but `[A-Za-z0-9_]` becomes `_`), given a kind prefix (`t_`,
//! `ctl_`, `act_`, ...) so they can never be C keywords or `p4dp_`/`P4DP_` runtime names, and made
//! unique with a numeric suffix.

use std::collections::HashSet;

#[derive(Debug, Default)]
pub struct Namer {
    used: HashSet<String>,
}

/// Replace every character that cannot appear in a C identifier by `_`.
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if s.is_empty() {
        s.push('x');
    }
    s
}

impl Namer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh identifier `<prefix><sanitized name>` (with `_<n>` appended if already taken).
    pub fn fresh(&mut self, prefix: &str, name: &str) -> String {
        let base = format!("{prefix}{}", sanitize(name));
        if self.used.insert(base.clone()) {
            return base;
        }
        let mut n = 1u32;
        loop {
            let cand = format!("{base}_{n}");
            if self.used.insert(cand.clone()) {
                return cand;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_and_sanitized() {
        let mut n = Namer::new();
        assert_eq!(n.fresh("t_", "a.b"), "t_a_b");
        assert_eq!(n.fresh("t_", "a_b"), "t_a_b_1");
        assert_eq!(n.fresh("t_", "a-b"), "t_a_b_2");
        assert_eq!(n.fresh("v_", "int"), "v_int");
        assert_eq!(n.fresh("", ""), "x");
    }
}

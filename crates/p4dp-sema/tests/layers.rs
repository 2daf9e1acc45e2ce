//! The module order of p4dp-sema (see the crate's doc comment): a module calls only modules below
//! it, except through the named recursion seams, where the language itself nests (a type holds
//! a constant expression, an expression a call, a call a function body or a sub-block, an
//! instance the block it instantiates). The check reads the sources: the callers of a method are
//! found by `self.name(` / `s.name(` / `Self::name(`, and uses of free items by `crate::module::`
//! paths and `use crate::module::...` imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules from the bottom up; each may use only modules before it (and itself).
const ORDER: &[&str] = &[
    "consts",
    "env",
    "types",
    "dpwrite",
    "rtc",
    "overload",
    "expr",
    "ops",
    "aggregate",
    "builtins",
    "call",
    "loops",
    "stmt",
    "action",
    "keyset",
    "selector",
    "instance",
    "table",
    "parser",
    "control",
    "elab",
    "passes",
];

/// Modules that use each other because the grammar nests them (an operand is an expression, an
/// aggregate holds expressions; a built-in method is a call; a loop body is a statement).
const GROUPS: &[&[&str]] = &[&["expr", "ops", "aggregate"], &["builtins", "call"], &["loops", "stmt"]];

/// The methods a lower module may call in a higher one: where the language nests a construct of
/// a higher layer inside one of a lower layer.
const SEAMS: &[(&str, &str)] = &[
    (
        "const_eval",
        "a type's width or a stack's size is a constant expression",
    ),
    ("call_expr", "an expression may be a call"),
    ("table_apply_result", "an expression may be a member of `t.apply()`"),
    (
        "use_global_action",
        "a top-level action is lowered into a control when first named",
    ),
    (
        "global_extern",
        "a top-level extern instance is created when first named",
    ),
    ("block", "a call of a function lowers its body once per type arguments"),
    ("direct_instance", "`C.apply()` instantiates `C`"),
    ("elab_control", "instantiating a control elaborates it"),
    ("elab_parser", "instantiating a parser elaborates it"),
];

fn sources() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(&dir).expect("src") {
        let p = e.expect("entry").path();
        let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        // the crate root holds the analyzer's state and entry points; tests are not layered
        if name == "lib" || name.ends_with("tests") || p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
        m.insert(name, code);
    }
    m
}

/// Identifiers following `prefix` in `s`, each with the text right after it.
fn idents_after<'s>(s: &'s str, prefix: &str) -> Vec<(&'s str, &'s str)> {
    let mut v = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(prefix) {
        let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric() && rest.as_bytes()[i - 1] != b'_';
        let after = &rest[i + prefix.len()..];
        let n = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if before_ok && n > 0 {
            v.push((&after[..n], &after[n..]));
        }
        rest = &rest[i + prefix.len()..];
    }
    v
}

/// Methods taking `self` defined in each module.
fn methods(src: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, s) in src {
        for (name, after) in idents_after(s, "fn ") {
            let sig = after.split(')').next().unwrap_or_default();
            if sig.contains("self") {
                m.entry(name.to_string()).or_default().insert(module.clone());
            }
        }
    }
    m
}

fn rank(module: &str) -> usize {
    let i = ORDER.iter().position(|m| *m == module);
    i.unwrap_or_else(|| panic!("module `{module}` is not in ORDER: place it in the module order"))
}

fn same_group(a: &str, b: &str) -> bool {
    GROUPS.iter().any(|g| g.contains(&a) && g.contains(&b))
}

#[test]
fn modules_use_only_modules_below_them() {
    let src = sources();
    let defs = methods(&src);
    let mut bad = Vec::new();
    for (name, mods) in &defs {
        if mods.len() > 1 {
            bad.push(format!("method `{name}` is defined in several modules: {mods:?}"));
        }
    }
    for (module, s) in &src {
        let r = rank(module);
        let mut uses: BTreeSet<(String, String)> = BTreeSet::new();
        for recv in ["self.", "s.", "Self::"] {
            for (name, after) in idents_after(s, recv) {
                if !after.starts_with('(') && !after.starts_with("::<") {
                    continue;
                }
                for m in defs.get(name).into_iter().flatten() {
                    uses.insert((m.clone(), name.to_string()));
                }
            }
        }
        for (target, after) in idents_after(s, "crate::") {
            if src.contains_key(target) {
                let item = after
                    .trim_start_matches("::")
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'));
                uses.insert((
                    target.to_string(),
                    item.into_iter().next().unwrap_or_default().to_string(),
                ));
            }
        }
        for (target, name) in uses {
            if target == *module || rank(&target) < r || same_group(module, &target) {
                continue;
            }
            if SEAMS.iter().any(|(n, _)| *n == name) {
                continue;
            }
            bad.push(format!("{module}.rs uses `{name}` of {target}.rs, which is above it"));
        }
    }
    assert!(bad.is_empty(), "module order broken:\n{}", bad.join("\n"));
}

#[test]
fn every_seam_is_a_method_that_exists() {
    let defs = methods(&sources());
    for (name, why) in SEAMS {
        assert!(defs.contains_key(*name), "seam `{name}` ({why}) is not a method");
    }
}

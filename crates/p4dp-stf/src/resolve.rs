//! Name resolution against the program schema (docs/stf.md, "What p4dp decides", names).
//!
//! * Tables: the exact fully-qualified name, else a unique suffix that starts
//!   at a `.` boundary (`c.t` and `t` both find `ingress.c.t`; `t` does not
//!   find `ingress.ct`). Ambiguity is an error that lists the candidates.
//! * Actions: the same rule, among the table's own actions.
//! * Key fields: the order of docs/stf.md ("Names"), after rewriting header
//!   stack indices `$N` to `[N]` (`extra$0.h` → `extra[0].h`).
//! * Counters for `check_counter`: the same rule as tables, among indexed and
//!   direct counters. Extern names in pass-through commands must be exact
//!   (the reference passes them through verbatim).

use crate::schema::{ActionRefSchema, ActionScope, KeyFieldSchema, ProgramSchema, TableSchema};

/// A failed lookup: message plus an optional note (candidates, hints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResolveError {
    pub message: String,
    pub note: Option<String>,
}

/// Result of looking a name up in a list of fully-qualified names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    Found(usize),
    Ambiguous(Vec<usize>),
    NotFound,
}

/// `full` ends with `.` + `query` (or equals `query`).
pub(crate) fn is_dot_suffix(full: &str, query: &str) -> bool {
    full == query
        || (full.len() > query.len() && full.ends_with(query) && full.as_bytes()[full.len() - query.len() - 1] == b'.')
}

/// Exact match first, else a unique dot-boundary suffix.
pub(crate) fn lookup<'a>(names: impl Iterator<Item = &'a str> + Clone, query: &str) -> Lookup {
    if let Some(i) = names.clone().position(|n| n == query) {
        return Lookup::Found(i);
    }
    let hits: Vec<usize> = names
        .enumerate()
        .filter(|(_, n)| is_dot_suffix(n, query))
        .map(|(i, _)| i)
        .collect();
    match hits.len() {
        0 => Lookup::NotFound,
        1 => Lookup::Found(hits[0]),
        _ => Lookup::Ambiguous(hits),
    }
}

fn quoted_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if v.is_empty() {
        "(none)".into()
    } else {
        v.join(", ")
    }
}

pub(crate) fn resolve_table<'s>(schema: &'s ProgramSchema, query: &str) -> Result<&'s TableSchema, ResolveError> {
    let names = schema.tables.iter().map(|t| t.name.as_str());
    match lookup(names.clone(), query) {
        Lookup::Found(i) => Ok(&schema.tables[i]),
        Lookup::Ambiguous(hits) => Err(ResolveError {
            message: format!("table name `{query}` is ambiguous"),
            note: Some(format!(
                "it matches {}; write more of the name",
                quoted_list(hits.iter().map(|&i| schema.tables[i].name.as_str()))
            )),
        }),
        Lookup::NotFound => Err(ResolveError {
            message: format!("unknown table `{query}`"),
            note: Some(format!("the program's tables are {}", quoted_list(names))),
        }),
    }
}

/// Resolve an action among `table`'s actions.
pub(crate) fn resolve_action<'t>(table: &'t TableSchema, query: &str) -> Result<&'t ActionRefSchema, ResolveError> {
    let names = table.actions.iter().map(|a| a.name.as_str());
    match lookup(names.clone(), query) {
        Lookup::Found(i) => Ok(&table.actions[i]),
        Lookup::Ambiguous(hits) => Err(ResolveError {
            message: format!("action name `{query}` is ambiguous in table `{}`", table.name),
            note: Some(format!(
                "it matches {}; write more of the name",
                quoted_list(hits.iter().map(|&i| table.actions[i].name.as_str()))
            )),
        }),
        Lookup::NotFound => Err(ResolveError {
            message: format!("`{query}` is not an action of table `{}`", table.name),
            note: Some(format!("its actions are {}", quoted_list(names))),
        }),
    }
}

/// Check that `action` may be used as an entry action (`for_default` false)
/// or as the default action (`for_default` true).
pub(crate) fn check_scope(
    table: &TableSchema,
    action: &ActionRefSchema,
    for_default: bool,
) -> Result<(), ResolveError> {
    match (action.scope, for_default) {
        (ActionScope::DefaultOnly, false) => Err(ResolveError {
            message: format!(
                "action `{}` is `@defaultonly` in table `{}`; it cannot be used in an entry",
                action.name, table.name
            ),
            note: None,
        }),
        (ActionScope::TableOnly, true) => Err(ResolveError {
            message: format!(
                "action `{}` is `@tableonly` in table `{}`; it cannot be the default action",
                action.name, table.name
            ),
            note: None,
        }),
        _ => Ok(()),
    }
}

/// Rewrite header-stack indices written as `$N` into `[N]`: `extra$0.h` →
/// `extra[0].h`. A `$` is rewritten only when followed by digits that end
/// the component (so `$valid$` and `a$b` are untouched).
pub(crate) fn rewrite_stack_indices(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 2);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && i > 0 {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && (j == chars.len() || chars[j] == '.' || chars[j] == '[') {
                out.push('[');
                out.extend(&chars[i + 1..j]);
                out.push(']');
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Find the key field of `table` that STF key name `query` denotes, in the
/// order of docs/stf.md ("What p4dp decides", names):
/// 1. the exact name; 2. name + `$`; 3. name + `.$valid$`;
/// 4. a name ending in `.valid`, read as `….$valid$`;
/// 5. a unique `.`-boundary suffix (of the name, or of its `.valid` reading);
/// 6. `valid` alone → the table's one validity key.
pub(crate) fn resolve_key(table: &TableSchema, query: &str) -> Result<usize, ResolveError> {
    let q = rewrite_stack_indices(query);
    let keys: &[KeyFieldSchema] = &table.keys;
    let find = |name: &str| keys.iter().position(|k| k.name == name);
    if let Some(i) = find(&q) {
        return Ok(i);
    }
    if let Some(i) = find(&format!("{q}$")) {
        return Ok(i);
    }
    if let Some(i) = find(&format!("{q}.$valid$")) {
        return Ok(i);
    }
    let valid_form = q.strip_suffix(".valid").map(|p| format!("{p}.$valid$"));
    if let Some(v) = &valid_form {
        if let Some(i) = find(v) {
            return Ok(i);
        }
    }
    let mut hits: Vec<usize> = keys
        .iter()
        .enumerate()
        .filter(|(_, k)| is_dot_suffix(&k.name, &q) || valid_form.as_deref().is_some_and(|v| is_dot_suffix(&k.name, v)))
        .map(|(i, _)| i)
        .collect();
    if hits.is_empty() && q == "valid" {
        hits = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.name.ends_with("$valid$"))
            .map(|(i, _)| i)
            .collect();
    }
    let all = || quoted_list(keys.iter().map(|k| k.name.as_str()));
    match hits.len() {
        1 => Ok(hits[0]),
        0 => Err(ResolveError {
            message: format!("table `{}` has no key field `{query}`", table.name),
            note: Some(format!("its key fields are {}", all())),
        }),
        _ => Err(ResolveError {
            message: format!("key name `{query}` is ambiguous in table `{}`", table.name),
            note: Some(format!(
                "it matches {}; write more of the name",
                quoted_list(hits.iter().map(|&i| keys[i].name.as_str()))
            )),
        }),
    }
}

/// What a `check_counter` name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CounterRef {
    Indexed(usize),
    Direct(usize),
}

/// Resolve a `check_counter` name among indexed and direct counters (exact,
/// else unique dot-boundary suffix).
pub(crate) fn resolve_counter(schema: &ProgramSchema, query: &str) -> Result<CounterRef, ResolveError> {
    let all: Vec<(CounterRef, &str)> = schema
        .counters
        .iter()
        .enumerate()
        .map(|(i, c)| (CounterRef::Indexed(i), c.name.as_str()))
        .chain(
            schema
                .direct_counters
                .iter()
                .enumerate()
                .map(|(i, c)| (CounterRef::Direct(i), c.name.as_str())),
        )
        .collect();
    match lookup(all.iter().map(|(_, n)| *n), query) {
        Lookup::Found(i) => Ok(all[i].0),
        Lookup::Ambiguous(hits) => Err(ResolveError {
            message: format!("counter name `{query}` is ambiguous"),
            note: Some(format!("it matches {}", quoted_list(hits.iter().map(|&i| all[i].1)))),
        }),
        Lookup::NotFound => Err(ResolveError {
            message: format!("unknown counter `{query}`"),
            note: Some(format!(
                "the program's counters are {}",
                quoted_list(all.iter().map(|(_, n)| *n))
            )),
        }),
    }
}

/// Resolve an extern instance name used by a pass-through command: exact
/// only. `kind` is "counter", "register" or "meter".
pub(crate) fn resolve_exact<'a>(
    names: impl Iterator<Item = &'a str> + Clone,
    query: &str,
    kind: &str,
) -> Result<usize, ResolveError> {
    match lookup(names.clone(), query) {
        Lookup::Found(i) if names.clone().nth(i) == Some(query) => Ok(i),
        Lookup::Found(i) => Err(ResolveError {
            message: format!("unknown {kind} `{query}`"),
            note: Some(format!(
                "did you mean `{}`? {kind} names in CLI commands must be fully qualified",
                names.clone().nth(i).unwrap_or_default()
            )),
        }),
        _ => Err(ResolveError {
            message: format!("unknown {kind} `{query}`"),
            note: Some(format!("the program's {kind}s are {}", quoted_list(names))),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::MatchKind;

    fn table(name: &str, keys: &[&str], actions: &[&str]) -> TableSchema {
        TableSchema {
            name: name.into(),
            keys: keys
                .iter()
                .map(|k| KeyFieldSchema {
                    name: (*k).into(),
                    match_kind: MatchKind::Exact,
                    width: 8,
                })
                .collect(),
            actions: actions
                .iter()
                .map(|a| ActionRefSchema {
                    name: (*a).into(),
                    scope: ActionScope::TableAndDefault,
                })
                .collect(),
            const_default_action: false,
            const_entries: false,
            needs_priority: false,
        }
    }

    fn schema(tables: Vec<TableSchema>) -> ProgramSchema {
        ProgramSchema {
            tables,
            ..Default::default()
        }
    }

    #[test]
    fn dot_suffix() {
        assert!(is_dot_suffix("ingress.c.t", "c.t"));
        assert!(is_dot_suffix("ingress.c.t", "t"));
        assert!(is_dot_suffix("ingress.c.t", "ingress.c.t"));
        assert!(!is_dot_suffix("ingress.ct", "t"));
        assert!(!is_dot_suffix("ingress.c.t", "s.c.t"));
    }

    #[test]
    fn tables_full_and_suffix() {
        let s = schema(vec![
            table("ingress.c.t", &[], &[]),
            table("ingress.test1", &[], &[]),
            table("egress.t2", &[], &[]),
        ]);
        assert_eq!(resolve_table(&s, "ingress.c.t").unwrap().name, "ingress.c.t");
        assert_eq!(resolve_table(&s, "c.t").unwrap().name, "ingress.c.t");
        assert_eq!(resolve_table(&s, "t").unwrap().name, "ingress.c.t");
        assert_eq!(resolve_table(&s, "test1").unwrap().name, "ingress.test1");
        assert_eq!(resolve_table(&s, "t2").unwrap().name, "egress.t2");
        let e = resolve_table(&s, "est1").unwrap_err();
        assert_eq!(e.message, "unknown table `est1`");
        assert_eq!(
            e.note.unwrap(),
            "the program's tables are `ingress.c.t`, `ingress.test1`, `egress.t2`"
        );
    }

    #[test]
    fn table_ambiguity_and_exact_preference() {
        let s = schema(vec![
            table("ingress.t", &[], &[]),
            table("egress.t", &[], &[]),
            table("t", &[], &[]),
        ]);
        // The exact name wins over suffixes.
        assert_eq!(resolve_table(&s, "t").unwrap().name, "t");
        let s = schema(vec![table("ingress.t", &[], &[]), table("egress.t", &[], &[])]);
        let e = resolve_table(&s, "t").unwrap_err();
        assert_eq!(e.message, "table name `t` is ambiguous");
        assert_eq!(
            e.note.unwrap(),
            "it matches `ingress.t`, `egress.t`; write more of the name"
        );
    }

    #[test]
    fn actions_within_table() {
        let t = table("ingress.t", &[], &["ingress.setb1", "ingress.c.a", "NoAction"]);
        assert_eq!(resolve_action(&t, "ingress.setb1").unwrap().name, "ingress.setb1");
        assert_eq!(resolve_action(&t, "setb1").unwrap().name, "ingress.setb1");
        assert_eq!(resolve_action(&t, "c.a").unwrap().name, "ingress.c.a");
        assert_eq!(resolve_action(&t, "NoAction").unwrap().name, "NoAction");
        let e = resolve_action(&t, "drop").unwrap_err();
        assert_eq!(e.message, "`drop` is not an action of table `ingress.t`");
        let t = table("ingress.t", &[], &["ingress.c1.a", "ingress.c2.a"]);
        assert!(resolve_action(&t, "a").unwrap_err().message.contains("ambiguous"));
    }

    #[test]
    fn stack_index_rewrite() {
        assert_eq!(rewrite_stack_indices("extra$0.h"), "extra[0].h");
        assert_eq!(rewrite_stack_indices("hdrs.extra$12"), "hdrs.extra[12]");
        assert_eq!(rewrite_stack_indices("h.$valid$"), "h.$valid$");
        assert_eq!(rewrite_stack_indices("a$b.c"), "a$b.c");
        assert_eq!(rewrite_stack_indices("$0"), "$0");
    }

    #[test]
    fn key_order() {
        let t = table(
            "ingress.t",
            &[
                "hdrs.data.f1",
                "hdrs.extra[0].h",
                "e",
                "meta.x$",
                "hdr.ipv4.$valid$",
                "hdr.eth.dst",
                "ipv4.dst",
            ],
            &[],
        );
        // 1. exact
        assert_eq!(resolve_key(&t, "e").unwrap(), 2);
        assert_eq!(resolve_key(&t, "ipv4.dst").unwrap(), 6);
        // 2. + `$`
        assert_eq!(resolve_key(&t, "meta.x").unwrap(), 3);
        // 3. + `.$valid$`
        assert_eq!(resolve_key(&t, "hdr.ipv4").unwrap(), 4);
        // 4. `.valid`
        assert_eq!(resolve_key(&t, "hdr.ipv4.valid").unwrap(), 4);
        // 5. suffix, incl. `$N` rewriting and `.valid` reading
        assert_eq!(resolve_key(&t, "data.f1").unwrap(), 0);
        assert_eq!(resolve_key(&t, "extra$0.h").unwrap(), 1);
        assert_eq!(resolve_key(&t, "extra[0].h").unwrap(), 1);
        assert_eq!(resolve_key(&t, "ipv4.valid").unwrap(), 4);
        // 6. `valid` alone
        assert_eq!(resolve_key(&t, "valid").unwrap(), 4);
        // ambiguity: `dst` is a suffix of two keys
        let e = resolve_key(&t, "dst").unwrap_err();
        assert_eq!(e.message, "key name `dst` is ambiguous in table `ingress.t`");
        let e = resolve_key(&t, "f2").unwrap_err();
        assert_eq!(e.message, "table `ingress.t` has no key field `f2`");
    }

    #[test]
    fn valid_alone_needs_exactly_one() {
        let t = table("t", &["a.$valid$", "b.$valid$"], &[]);
        assert!(resolve_key(&t, "valid").unwrap_err().message.contains("ambiguous"));
        let t = table("t", &["a.f"], &[]);
        assert!(resolve_key(&t, "valid").is_err());
    }

    #[test]
    fn counters_and_exact_externs() {
        let mut s = schema(vec![]);
        s.counters.push(crate::schema::CounterSchema {
            name: "ingress.cnt".into(),
            size: 4,
            unit: Default::default(),
        });
        s.direct_counters.push(crate::schema::DirectCounterSchema {
            name: "ingress.dc".into(),
            table: "ingress.t".into(),
            unit: Default::default(),
        });
        assert_eq!(resolve_counter(&s, "cnt").unwrap(), CounterRef::Indexed(0));
        assert_eq!(resolve_counter(&s, "ingress.dc").unwrap(), CounterRef::Direct(0));
        assert!(resolve_counter(&s, "x").is_err());
        let names = ["cIngress.regfile", "cIngress.other"];
        assert_eq!(
            resolve_exact(names.iter().copied(), "cIngress.regfile", "register").unwrap(),
            0
        );
        let e = resolve_exact(names.iter().copied(), "regfile", "register").unwrap_err();
        assert_eq!(e.message, "unknown register `regfile`");
        assert!(e.note.unwrap().starts_with("did you mean `cIngress.regfile`?"));
    }
}

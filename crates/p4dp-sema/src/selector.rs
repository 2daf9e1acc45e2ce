//! An action selector's group annotations (P4Runtime specification, "ActionProfile"):
//! `@selector_size_semantics("sum_of_weights" | "sum_of_members")`, `@max_group_size(N)`,
//! `@max_member_weight(N)` and `@weights_disallowed` on the selector instance become
//! [`ir::SelectorSizing`], which the P4Info reports. Bad values are E0426; the annotations on
//! any other extern are W0304 (p4c warns too: they mean nothing there) and ignored.

use p4dp_ir as ir;
use p4dp_syntax::{Diagnostic, Span};

use crate::Sema;

/// The largest group the runtime holds, in members or in units of weight (rt.h
/// `P4DP_RT_ACTPROF_GROUP_MAX`): the largest `@max_group_size`.
pub(crate) const GROUP_MAX: u32 = 4096;

/// The largest weight (P4Runtime weights are int32): the largest `@max_member_weight`.
const WEIGHT_MAX: u32 = i32::MAX as u32;

const SEMANTICS: &str = "selector_size_semantics";
const MAX_GROUP_SIZE: &str = "max_group_size";
const MAX_MEMBER_WEIGHT: &str = "max_member_weight";
const WEIGHTS_DISALLOWED: &str = "weights_disallowed";

impl Sema<'_> {
    /// The sizing and weighing an instance's annotations choose; `size` is the selector's
    /// declared size (0: none given), which `@max_group_size` may not exceed.
    pub(crate) fn selector_sizing(
        &mut self,
        kind: ir::ExternKind,
        type_name: &str,
        anns: &[ir::Annotation],
        size: u64,
        span: Span,
    ) -> ir::SelectorSizing {
        let mut out = ir::SelectorSizing::default();
        let mut semantics: Option<ir::SizeSemantics> = None;
        let mut weight_given = false;
        for a in anns {
            let name = a.name.as_str();
            if ![SEMANTICS, MAX_GROUP_SIZE, MAX_MEMBER_WEIGHT, WEIGHTS_DISALLOWED].contains(&name) {
                continue;
            }
            if !kind.is_action_selector() {
                let what = if name == WEIGHTS_DISALLOWED {
                    "leaves an action selector's weights to the switch"
                } else {
                    "sizes an action selector's groups"
                };
                self.report(Diagnostic::warning(
                    "W0304",
                    format!("@{name} {what}; it means nothing on `{type_name}` and is ignored"),
                    span,
                    "not an action selector",
                ));
                continue;
            }
            match name {
                SEMANTICS => {
                    let Some(s) = self.semantics_arg(a, span) else { continue };
                    match semantics {
                        Some(prev) if prev != s => self.err(
                            "E0426",
                            format!(
                                "a selector has one size semantics: \"{}\" and \"{}\" both given",
                                prev.annotation_value(),
                                s.annotation_value()
                            ),
                            span,
                            "conflicting size semantics",
                        ),
                        _ => semantics = Some(s),
                    }
                }
                MAX_GROUP_SIZE => {
                    let Some(n) = self.count_arg(a, GROUP_MAX, "p4dp's largest group", span) else {
                        continue;
                    };
                    if size > 0 && u64::from(n) > size {
                        self.err(
                            "E0426",
                            format!("@max_group_size({n}) is larger than the selector's size {size}"),
                            span,
                            "a group larger than the selector",
                        );
                        continue;
                    }
                    out.max_group_size = n;
                }
                // a flag: the annotation's presence sets it, a value would suggest it can be unset
                WEIGHTS_DISALLOWED if a.args.is_empty() => out.weights_disallowed = true,
                WEIGHTS_DISALLOWED => self.err(
                    "E0426",
                    format!(
                        "@{WEIGHTS_DISALLOWED} takes no argument, not {}: the annotation itself leaves the weights to the switch",
                        describe(&a.args)
                    ),
                    span,
                    "an argument given",
                ),
                _ => {
                    weight_given = true;
                    if let Some(n) = self.count_arg(a, WEIGHT_MAX, "the largest P4Runtime weight", span) {
                        out.max_member_weight = n;
                    }
                }
            }
        }
        out.semantics = semantics.unwrap_or_default();
        if weight_given && out.semantics != ir::SizeSemantics::SumOfMembers {
            self.err(
                "E0426",
                "@max_member_weight needs @selector_size_semantics(\"sum_of_members\"): with the sum of weights a group's size already bounds each weight",
                span,
                "not a sum-of-members selector",
            );
            out.max_member_weight = 0;
        }
        out
    }

    /// The argument of `@selector_size_semantics`: one of the two names, quoted or not.
    fn semantics_arg(&mut self, a: &ir::Annotation, span: Span) -> Option<ir::SizeSemantics> {
        let text = match a.args.as_slice() {
            [ir::AnnotationArg::String(s)] | [ir::AnnotationArg::Raw(s)] => Some(s.trim()),
            _ => None,
        };
        let found = text.and_then(|t| ir::SizeSemantics::ALL.into_iter().find(|s| s.annotation_value() == t));
        if found.is_none() {
            self.err(
                "E0426",
                format!(
                    "@{SEMANTICS} takes \"sum_of_weights\" or \"sum_of_members\", not {}",
                    describe(&a.args)
                ),
                span,
                "unknown size semantics",
            );
        }
        found
    }

    /// The argument of `@max_group_size` / `@max_member_weight`: one integer in 1..=max.
    fn count_arg(&mut self, a: &ir::Annotation, max: u32, what: &str, span: Span) -> Option<u32> {
        match a.args.as_slice() {
            [ir::AnnotationArg::Int(v)] if (1..=i128::from(max)).contains(v) => Some(*v as u32),
            [ir::AnnotationArg::Int(v)] => {
                self.err(
                    "E0426",
                    format!("@{}({v}) is out of range: 1 to {max} ({what})", a.name),
                    span,
                    "out of range",
                );
                None
            }
            args => {
                self.err(
                    "E0426",
                    format!("@{} takes one integer, not {}", a.name, describe(args)),
                    span,
                    "not an integer",
                );
                None
            }
        }
    }
}

/// Annotation arguments as a message shows them.
fn describe(args: &[ir::AnnotationArg]) -> String {
    match args {
        [] => "nothing".into(),
        [ir::AnnotationArg::String(s)] => format!("\"{s}\""),
        [ir::AnnotationArg::Int(v)] => v.to_string(),
        [ir::AnnotationArg::Raw(s)] => format!("`{}`", s.trim()),
        [ir::AnnotationArg::Kv(k, _)] => format!("`{k} = ...`"),
        _ => format!("{} arguments", args.len()),
    }
}

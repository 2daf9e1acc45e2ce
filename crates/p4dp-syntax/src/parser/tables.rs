//! Table declarations and their properties.

use super::{Fail, PResult, Parser};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Kw, Punct};
use crate::span::Span;

impl Parser {
    pub(crate) fn table_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Table)?;
        let name = self.ident()?;
        // `table t() { ... }`: not in the P4_16 grammar, but p4c accepts an empty parameter list
        // (older syntax) and its test programs use it.
        if self.at_p(Punct::LParen) && self.nth_is_p(1, Punct::RParen) {
            let sp = self.span().to(self.nth_span(1));
            self.bump();
            self.bump();
            if self.speculating == 0 {
                self.diags.push(
                    Diagnostic::warning(
                        "W0101",
                        format!(
                            "empty parameter list after table name `{}`; p4dp accepts it for compatibility with p4c",
                            name.name
                        ),
                        sp,
                        "not in the P4_16 grammar",
                    )
                    .with_help("remove the `()`"),
                );
            }
        }
        self.expect_p(Punct::LBrace)?;
        let properties = self.items_until_rbrace(|p| p.table_property())?;
        self.expect_p(Punct::RBrace)?;
        Ok(Decl::Table(TableDecl {
            annotations,
            name,
            properties,
            span: start.to(self.prev_span()),
        }))
    }

    fn table_property(&mut self) -> PResult<TableProperty> {
        let start = self.span();
        let annotations = self.annotations()?;
        let is_const = self.eat_kw(Kw::Const);
        let name = match self.ident() {
            Ok(n) => n,
            Err(Fail) => {
                return Err(Fail);
            }
        };
        if !self.at_p(Punct::Assign) {
            let d = Diagnostic::error(
                "E0116",
                format!(
                    "expected `=` after table property `{}`, found {}",
                    name.name,
                    self.kind().describe()
                ),
                self.span(),
                "expected `=`",
            );
            return Err(self.report(d));
        }
        self.bump();
        let kind = match name.name.as_str() {
            "key" if self.at_p(Punct::LBrace) => TablePropertyKind::Key(self.key_elements()?),
            "actions" if self.at_p(Punct::LBrace) => TablePropertyKind::Actions(self.action_list()?),
            "entries" if self.at_p(Punct::LBrace) => TablePropertyKind::Entries(self.entries()?),
            "key" | "actions" | "entries" => {
                return Err(self.err_expected("E0116", &format!("`{{` to start the `{}` list", name.name)));
            }
            _ => {
                let value = self.expr()?;
                self.expect_p(Punct::Semi)?;
                TablePropertyKind::Other { name, value }
            }
        };
        Ok(TableProperty {
            annotations,
            is_const,
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// Run `item` for each element of a `{ ... }` list with recovery.
    fn braced_list<T>(&mut self, mut item: impl FnMut(&mut Parser) -> PResult<T>) -> PResult<Vec<T>> {
        self.expect_p(Punct::LBrace)?;
        let v = self.items_until_rbrace(&mut item)?;
        self.expect_p(Punct::RBrace)?;
        // Optional `;` after the list.
        self.eat_p(Punct::Semi);
        Ok(v)
    }

    fn key_elements(&mut self) -> PResult<Vec<KeyElement>> {
        self.braced_list(|p| {
            let start = p.span();
            let mut annotations = p.annotations()?;
            let expr = p.expr()?;
            if !p.at_p(Punct::Colon) {
                let d = Diagnostic::error(
                    "E0116",
                    format!(
                        "expected `:` and a match kind after the key expression, found {}",
                        p.kind().describe()
                    ),
                    p.span(),
                    "expected `:`",
                );
                return Err(p.report(d));
            }
            p.bump();
            let match_kind = p.path_name()?;
            annotations.extend(p.annotations()?);
            p.expect_p(Punct::Semi)?;
            Ok(KeyElement {
                annotations,
                expr,
                match_kind,
                span: start.to(p.prev_span()),
            })
        })
    }

    fn action_ref(&mut self) -> PResult<ActionRef> {
        let start = self.span();
        let annotations = self.annotations()?;
        let name = self.path_name()?;
        let args = if self.at_p(Punct::LParen) {
            Some(self.args()?)
        } else {
            None
        };
        Ok(ActionRef {
            annotations,
            name,
            args,
            span: start.to(self.prev_span()),
        })
    }

    fn action_list(&mut self) -> PResult<Vec<ActionRef>> {
        self.braced_list(|p| {
            let r = p.action_ref()?;
            p.expect_p(Punct::Semi)?;
            Ok(r)
        })
    }

    fn entries(&mut self) -> PResult<Vec<Entry>> {
        self.braced_list(|p| {
            let start = p.span();
            let mut annotations = p.annotations()?;
            let is_const = p.eat_kw(Kw::Const);
            let priority = if p.at_word("priority") && p.nth_is_p(1, Punct::Assign) {
                p.bump();
                p.bump();
                let e = p.expr()?;
                p.expect_p(Punct::Colon)?;
                Some(e)
            } else {
                None
            };
            let keyset = p.keyset()?;
            if !p.at_p(Punct::Colon) {
                let d = Diagnostic::error(
                    "E0114",
                    format!("expected `:` after entry keyset, found {}", p.kind().describe()),
                    p.span(),
                    "expected `:`",
                );
                return Err(p.report(d));
            }
            p.bump();
            let action = p.action_ref()?;
            annotations.extend(p.annotations()?);
            p.expect_p(Punct::Semi)?;
            Ok(Entry {
                annotations,
                is_const,
                priority,
                keyset,
                action,
                span: start.to(p.prev_span()),
            })
        })
    }
}

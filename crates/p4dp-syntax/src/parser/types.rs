//! Types, type parameters and parameter lists.

use super::{Fail, PResult, Parser};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Kw, Punct, TokenKind};

impl Parser {
    /// True if the current token can start a type.
    pub(crate) fn at_type_start(&self) -> bool {
        match self.kind() {
            TokenKind::Kw(
                Kw::Bit
                | Kw::Int
                | Kw::Varbit
                | Kw::Bool
                | Kw::Error
                | Kw::MatchKind
                | Kw::String
                | Kw::Void
                | Kw::Tuple,
            ) => true,
            TokenKind::Ident(_) | TokenKind::DontCare => true,
            TokenKind::Punct(Punct::Dot) => self.nth_is_ident(1),
            _ => false,
        }
    }

    /// A type, including header stacks `T[n]`.
    pub(crate) fn ty(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        let mut t = self.base_type()?;
        while self.at_p(Punct::LBracket) {
            self.bump();
            let size = self.expr()?;
            let close = self.expect_p(Punct::RBracket)?;
            t = Type {
                span: t.span.to(close),
                kind: TypeKind::Stack {
                    elem: Box::new(t),
                    size: Box::new(size),
                },
            };
        }
        Ok(t)
    }

    fn base_type(&mut self) -> PResult<Type> {
        let start = self.span();
        let kind = match self.kind().clone() {
            TokenKind::Kw(Kw::Bool) => {
                self.bump();
                TypeKind::Bool
            }
            TokenKind::Kw(Kw::Error) => {
                self.bump();
                TypeKind::Error
            }
            TokenKind::Kw(Kw::MatchKind) => {
                self.bump();
                TypeKind::MatchKind
            }
            TokenKind::Kw(Kw::String) => {
                self.bump();
                TypeKind::String
            }
            TokenKind::Kw(Kw::Void) => {
                self.bump();
                TypeKind::Void
            }
            TokenKind::DontCare => {
                self.bump();
                TypeKind::DontCare
            }
            TokenKind::Kw(Kw::Bit) => {
                self.bump();
                TypeKind::Bit(self.opt_width()?)
            }
            TokenKind::Kw(Kw::Int) => {
                self.bump();
                TypeKind::Int(self.opt_width()?)
            }
            TokenKind::Kw(Kw::Varbit) => {
                self.bump();
                match self.opt_width()? {
                    Some(w) => TypeKind::Varbit(w),
                    None => return Err(self.err_expected("E0104", "`<` (varbit needs a maximum width)")),
                }
            }
            TokenKind::Kw(Kw::Tuple) => {
                self.bump();
                self.expect_p(Punct::Lt)?;
                let args = self.type_arg_list()?;
                TypeKind::Tuple(args)
            }
            TokenKind::Ident(ref s) if s == "list" && self.nth_is_p(1, Punct::Lt) => {
                self.bump();
                self.bump();
                let elem = self.ty()?;
                self.expect_close_angle()?;
                TypeKind::List(Box::new(elem))
            }
            TokenKind::Ident(_) | TokenKind::Punct(Punct::Dot) => {
                let base = self.path_name()?;
                if self.at_p(Punct::Lt) {
                    self.bump();
                    let args = self.type_arg_list()?;
                    TypeKind::Specialized { base, args }
                } else {
                    TypeKind::Named(base)
                }
            }
            _ => return Err(self.err_expected("E0104", "a type")),
        };
        Ok(Type {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// Optional `<W>` after `bit`/`int`/`varbit`: an integer, `(expr)`, or a
    /// name.
    fn opt_width(&mut self) -> PResult<Option<Box<Expr>>> {
        if !self.at_p(Punct::Lt) {
            return Ok(None);
        }
        self.bump();
        let e = match self.kind().clone() {
            TokenKind::Int {
                value,
                width,
                signed,
                radix,
            } => {
                let sp = self.bump().span;
                Expr::new(
                    ExprKind::Int(IntLit {
                        value,
                        width,
                        signed,
                        radix,
                    }),
                    sp,
                )
            }
            TokenKind::Punct(Punct::LParen) => {
                let open = self.bump().span;
                let inner = self.expr()?;
                let close = self.expect_p(Punct::RParen)?;
                Expr {
                    span: open.to(close),
                    ..inner
                }
            }
            TokenKind::Ident(_) | TokenKind::Punct(Punct::Dot) => {
                let n = self.path_name()?;
                let span = n.span;
                Expr::new(ExprKind::Name(n), span)
            }
            _ => return Err(self.err_expected("E0104", "a width (integer or parenthesized expression)")),
        };
        self.expect_close_angle()?;
        Ok(Some(Box::new(e)))
    }

    /// Type arguments after the opening `<`, through the closing `>`.
    pub(crate) fn type_arg_list(&mut self) -> PResult<Vec<Type>> {
        let mut args = Vec::new();
        if self.at_p(Punct::Gt) {
            self.bump();
            return Ok(args);
        }
        loop {
            args.push(self.ty()?);
            if !self.eat_p(Punct::Comma) {
                break;
            }
        }
        self.expect_close_angle()?;
        Ok(args)
    }

    /// Optional `<T1, T2>` type parameters of a declaration.
    pub(crate) fn opt_type_params(&mut self) -> PResult<Vec<Ident>> {
        let mut v = Vec::new();
        if !self.eat_p(Punct::Lt) {
            return Ok(v);
        }
        loop {
            v.push(self.ident()?);
            if !self.eat_p(Punct::Comma) {
                break;
            }
        }
        self.expect_close_angle()?;
        Ok(v)
    }

    /// `( param, ... )`
    pub(crate) fn params(&mut self) -> PResult<Vec<Param>> {
        self.expect_p(Punct::LParen)?;
        let mut v = Vec::new();
        if self.eat_p(Punct::RParen) {
            return Ok(v);
        }
        loop {
            let before = self.pos();
            v.push(self.param()?);
            if self.pos() == before {
                return Err(Fail);
            }
            if !self.eat_p(Punct::Comma) {
                break;
            }
            if self.at_p(Punct::RParen) {
                break; // trailing comma
            }
        }
        self.expect_p(Punct::RParen)?;
        Ok(v)
    }

    fn param(&mut self) -> PResult<Param> {
        let start = self.span();
        let annotations = self.annotations()?;
        let direction = if self.eat_kw(Kw::In) {
            Direction::In
        } else if self.eat_kw(Kw::Out) {
            Direction::Out
        } else if self.eat_kw(Kw::InOut) {
            Direction::InOut
        } else {
            Direction::None
        };
        if !self.at_type_start() {
            return Err(self.err_expected("E0104", "a parameter type"));
        }
        let ty = self.ty()?;
        let name = self.ident()?;
        let default = if self.eat_p(Punct::Assign) {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Param {
            annotations,
            direction,
            ty,
            name,
            default,
            span: start.to(self.prev_span()),
        })
    }

    /// Optional constructor parameters `( params )`.
    pub(crate) fn opt_params(&mut self) -> PResult<Vec<Param>> {
        if self.at_p(Punct::LParen) {
            self.params()
        } else {
            Ok(Vec::new())
        }
    }

    /// Report a declaration that is not allowed where it appears.
    pub(crate) fn not_allowed(&mut self, what: &str, where_: &str, span: crate::span::Span) -> Fail {
        self.report(Diagnostic::error(
            "E0111",
            format!("{what} is not allowed {where_}"),
            span,
            format!("{what} here"),
        ))
    }
}

//! Expressions (precedence climbing), arguments and keysets.
//!
//! Binary precedence, lowest to highest (P4_16 spec / p4c): `?:` (right),
//! `||`, `&&`, `== !=`, `< > <= >=`, `|`, `^`, `&`, `<< >>`,
//! `++ + - |+| |-|`, `* / %`, then prefix `! ~ - +` and casts, then postfix
//! `. [] ()`. Note that, unlike C, the bitwise operators bind tighter than
//! comparisons.

use super::{PResult, Parser};
use crate::ast::*;
use crate::lexer::{Kw, Punct, TokenKind};

impl Parser {
    /// A full expression (including `?:`).
    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.ternary();
        self.leave();
        r
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if !self.at_p(Punct::Question) {
            return Ok(cond);
        }
        self.bump();
        let then_e = self.expr()?;
        self.expect_p(Punct::Colon)?;
        let else_e = self.expr()?;
        let span = cond.span.to(else_e.span);
        self.mk_expr(
            ExprKind::Ternary {
                cond: Box::new(cond),
                then_e: Box::new(then_e),
                else_e: Box::new(else_e),
            },
            span,
        )
    }

    /// The binary operator at the cursor: (op, precedence, tokens to consume).
    pub(crate) fn peek_binop(&self) -> Option<(BinaryOp, u8, usize)> {
        use BinaryOp as B;
        let TokenKind::Punct(p) = self.kind() else { return None };
        Some(match p {
            Punct::OrOr => (B::Or, 1, 1),
            Punct::AndAnd => (B::And, 2, 1),
            Punct::EqEq => (B::Eq, 3, 1),
            Punct::Ne => (B::Ne, 3, 1),
            Punct::Lt => (B::Lt, 4, 1),
            Punct::Le => (B::Le, 4, 1),
            Punct::Gt => {
                if self.nth_is_p(1, Punct::Gt) && self.adjacent(0) {
                    if self.nth_is_p(2, Punct::Assign) && self.adjacent(1) {
                        return None; // `>>=` compound assignment
                    }
                    (B::Shr, 8, 2)
                } else if self.nth_is_p(1, Punct::Assign) && self.adjacent(0) {
                    (B::Ge, 4, 2)
                } else {
                    (B::Gt, 4, 1)
                }
            }
            Punct::Pipe => (B::BitOr, 5, 1),
            Punct::Caret => (B::BitXor, 6, 1),
            Punct::Amp => (B::BitAnd, 7, 1),
            Punct::Shl => (B::Shl, 8, 1),
            Punct::PlusPlus => (B::Concat, 9, 1),
            Punct::Plus => (B::Add, 9, 1),
            Punct::Minus => (B::Sub, 9, 1),
            Punct::AddSat => (B::AddSat, 9, 1),
            Punct::SubSat => (B::SubSat, 9, 1),
            Punct::Star => (B::Mul, 10, 1),
            Punct::Slash => (B::Div, 10, 1),
            Punct::Percent => (B::Mod, 10, 1),
            _ => return None,
        })
    }

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, prec, ntok)) = self.peek_binop() {
            if prec < min_prec {
                break;
            }
            for _ in 0..ntok {
                self.bump();
            }
            self.enter()?;
            let rhs = self.binary(prec + 1);
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            lhs = self.mk_expr(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            )?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.kind() {
            TokenKind::Punct(Punct::Not) => Some(UnaryOp::Not),
            TokenKind::Punct(Punct::Tilde) => Some(UnaryOp::BitNot),
            TokenKind::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            _ => None,
        };
        if let Some(op) = op {
            let start = self.bump().span;
            self.enter()?;
            let e = self.unary();
            self.leave();
            let e = e?;
            let span = start.to(e.span);
            return self.mk_expr(ExprKind::Unary { op, expr: Box::new(e) }, span);
        }
        if self.at_p(Punct::LParen) {
            if let Some(cast) = self.try_cast()? {
                return Ok(cast);
            }
        }
        self.postfix()
    }

    /// `(T) e` if the parenthesized text is a type used as a cast.
    fn try_cast(&mut self) -> PResult<Option<Expr>> {
        let start = self.span();
        // `(bit<...` etc. can only be a cast: parse it for real so that
        // errors inside the type are reported precisely.
        if matches!(
            self.nth(1),
            TokenKind::Kw(Kw::Bit | Kw::Int | Kw::Varbit | Kw::Bool | Kw::Tuple | Kw::String | Kw::Void)
        ) {
            self.bump();
            let ty = self.ty()?;
            self.expect_p(Punct::RParen)?;
            self.enter()?;
            let e = self.unary();
            self.leave();
            let e = e?;
            let span = start.to(e.span);
            return self.mk_expr(ExprKind::Cast { ty, expr: Box::new(e) }, span).map(Some);
        }
        let snap = self.snapshot();
        let ty = self.speculate(|p| {
            p.bump();
            let t = p.ty()?;
            p.expect_p(Punct::RParen)?;
            Ok(t)
        });
        let Some(ty) = ty else { return Ok(None) };
        let clearly_type = !matches!(
            ty.kind,
            TypeKind::Named(_) | TypeKind::Stack { .. } | TypeKind::DontCare
        );
        let operand_follows = match self.kind() {
            TokenKind::Ident(_)
            | TokenKind::Int { .. }
            | TokenKind::Str(_)
            | TokenKind::Kw(Kw::True | Kw::False | Kw::This | Kw::Error)
            | TokenKind::Punct(Punct::LParen | Punct::LBrace | Punct::Not | Punct::Tilde) => true,
            TokenKind::Punct(Punct::Minus | Punct::Plus) => clearly_type,
            _ => false,
        };
        let named_ok = matches!(ty.kind, TypeKind::Named(_));
        if operand_follows && (clearly_type || named_ok) {
            self.enter()?;
            let e = self.unary();
            self.leave();
            let e = e?;
            let span = start.to(e.span);
            return self.mk_expr(ExprKind::Cast { ty, expr: Box::new(e) }, span).map(Some);
        }
        self.restore(snap);
        Ok(None)
    }

    /// `<types>` immediately followed by `(`: explicit type arguments of a call.
    fn try_call_type_args(&mut self) -> Option<Vec<Type>> {
        if !self.at_p(Punct::Lt) {
            return None;
        }
        self.speculate(|p| {
            p.bump();
            let args = p.type_arg_list()?;
            if !p.at_p(Punct::LParen) {
                return Err(super::Fail);
            }
            Ok(args)
        })
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            match self.kind() {
                TokenKind::Punct(Punct::Dot) => {
                    self.bump();
                    let member = self.member_name()?;
                    let span = e.span.to(member.span);
                    e = self.mk_expr(
                        ExprKind::Member {
                            base: Box::new(e),
                            member,
                        },
                        span,
                    )?;
                    if let Some(targs) = self.try_call_type_args() {
                        e = self.call_rest(e, targs)?;
                    }
                }
                TokenKind::Punct(Punct::LParen) => {
                    e = self.call_rest(e, Vec::new())?;
                }
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let first = self.expr()?;
                    if self.eat_p(Punct::Colon) {
                        let lo = self.expr()?;
                        let close = self.expect_p(Punct::RBracket)?;
                        let span = e.span.to(close);
                        e = self.mk_expr(
                            ExprKind::Slice {
                                base: Box::new(e),
                                hi: Box::new(first),
                                lo: Box::new(lo),
                            },
                            span,
                        )?;
                    } else {
                        let close = self.expect_p(Punct::RBracket)?;
                        let span = e.span.to(close);
                        e = self.mk_expr(
                            ExprKind::Index {
                                base: Box::new(e),
                                index: Box::new(first),
                            },
                            span,
                        )?;
                    }
                }
                _ => break,
            }
        }
        Ok(e)
    }

    /// Member name after `.`: identifiers, plus keywords used as member names.
    fn member_name(&mut self) -> PResult<Ident> {
        if let TokenKind::Kw(k) = self.kind() {
            let name = k.as_str().to_string();
            let span = self.bump().span;
            return Ok(Ident { name, span });
        }
        self.ident()
    }

    fn call_rest(&mut self, callee: Expr, type_args: Vec<Type>) -> PResult<Expr> {
        let args = self.args()?;
        let span = callee.span.to(self.prev_span());
        self.mk_expr(
            ExprKind::Call {
                callee: Box::new(callee),
                type_args,
                args,
            },
            span,
        )
    }

    /// `( arg, ... )` — positional, named (`x = e`) or `_`.
    pub(crate) fn args(&mut self) -> PResult<Vec<Argument>> {
        self.expect_p(Punct::LParen)?;
        let mut v = Vec::new();
        if self.eat_p(Punct::RParen) {
            return Ok(v);
        }
        loop {
            let start = self.span();
            let name = if self.nth_is_ident(0) && self.nth_is_p(1, Punct::Assign) {
                let n = self.ident()?;
                self.bump();
                Some(n)
            } else {
                None
            };
            let value = self.expr()?;
            v.push(Argument {
                span: start.to(value.span),
                name,
                value,
            });
            if !self.eat_p(Punct::Comma) || self.at_p(Punct::RParen) {
                break;
            }
        }
        self.expect_p(Punct::RParen)?;
        Ok(v)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.kind().clone() {
            TokenKind::Int {
                value,
                width,
                signed,
                radix,
            } => {
                self.bump();
                ExprKind::Int(IntLit {
                    value,
                    width,
                    signed,
                    radix,
                })
            }
            TokenKind::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            TokenKind::Kw(Kw::True) => {
                self.bump();
                ExprKind::Bool(true)
            }
            TokenKind::Kw(Kw::False) => {
                self.bump();
                ExprKind::Bool(false)
            }
            TokenKind::Kw(Kw::This) => {
                self.bump();
                ExprKind::This
            }
            TokenKind::DontCare => {
                self.bump();
                ExprKind::DontCare
            }
            TokenKind::Kw(Kw::Error) if self.nth_is_p(1, Punct::Dot) => {
                self.bump();
                self.bump();
                ExprKind::ErrorMember(self.member_name()?)
            }
            TokenKind::Ident(_) | TokenKind::Punct(Punct::Dot) => {
                let name = self.path_name()?;
                let span = name.span;
                let e = Expr::new(ExprKind::Name(name), span);
                if let Some(targs) = self.try_call_type_args() {
                    return self.call_rest(e, targs);
                }
                return Ok(e);
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let inner = self.expr()?;
                let close = self.expect_p(Punct::RParen)?;
                // Parentheses are not kept as a node; the span covers them.
                return Ok(Expr {
                    span: start.to(close),
                    ..inner
                });
            }
            TokenKind::Punct(Punct::LBrace) => return self.brace_expr(),
            // Constructor call on a non-name type, e.g. `tuple<...>(...)` is
            // not P4; but `bit<8>` etc. as call targets are diagnosed by sema.
            TokenKind::Kw(Kw::Bit | Kw::Int | Kw::Varbit | Kw::Tuple) if self.looks_like_type_call() => {
                let ty = self.ty()?;
                let args = self.args()?;
                ExprKind::ConstructorCall { ty, args }
            }
            _ => return Err(self.err_expected("E0103", "an expression")),
        };
        let span = start.to(self.prev_span());
        self.mk_expr(kind, span)
    }

    fn looks_like_type_call(&mut self) -> bool {
        let snap = self.snapshot();
        let ok = self
            .speculate(|p| {
                p.ty()?;
                if p.at_p(Punct::LParen) || p.at_p(Punct::Dot) {
                    Ok(())
                } else {
                    Err(super::Fail)
                }
            })
            .is_some();
        self.restore(snap);
        ok
    }

    /// `{#}`, `{ e, ... }`, `{ f = e, ... }`, optionally with trailing `...`.
    fn brace_expr(&mut self) -> PResult<Expr> {
        let open = self.expect_p(Punct::LBrace)?;
        if self.at_p(Punct::Hash) && self.nth_is_p(1, Punct::RBrace) {
            self.bump();
            let close = self.bump().span;
            return Ok(Expr::new(ExprKind::InvalidHeader, open.to(close)));
        }
        let is_struct = self.nth_is_ident(0) && self.nth_is_p(1, Punct::Assign);
        let mut dots = false;
        let kind = if is_struct {
            let mut fields = Vec::new();
            loop {
                if self.at_p(Punct::Ellipsis) {
                    self.bump();
                    dots = true;
                    break;
                }
                if self.at_p(Punct::RBrace) {
                    break;
                }
                let name = self.ident()?;
                self.expect_p(Punct::Assign)?;
                let value = self.expr()?;
                fields.push(NamedExpr {
                    span: name.span.to(value.span),
                    name,
                    value,
                });
                if !self.eat_p(Punct::Comma) {
                    break;
                }
            }
            ExprKind::Struct { fields, dots }
        } else {
            let mut elems = Vec::new();
            loop {
                if self.at_p(Punct::Ellipsis) {
                    self.bump();
                    dots = true;
                    break;
                }
                if self.at_p(Punct::RBrace) {
                    break;
                }
                elems.push(self.expr()?);
                if !self.eat_p(Punct::Comma) {
                    break;
                }
            }
            ExprKind::List { elems, dots }
        };
        let close = self.expect_p(Punct::RBrace)?;
        self.mk_expr(kind, open.to(close))
    }

    // ───────────── keysets ─────────────

    /// Keyset of a `select` case or table entry (followed by `:`).
    pub(crate) fn keyset(&mut self) -> PResult<Keyset> {
        if self.at_p(Punct::LParen) {
            let start = self.span();
            let tuple = self.speculate(|p| {
                p.bump();
                let mut elems = Vec::new();
                loop {
                    elems.push(p.simple_keyset()?);
                    if !p.eat_p(Punct::Comma) {
                        break;
                    }
                }
                p.expect_p(Punct::RParen)?;
                if !p.at_p(Punct::Colon) {
                    return Err(super::Fail);
                }
                Ok(elems)
            });
            if let Some(mut elems) = tuple {
                let span = start.to(self.prev_span());
                if matches!(elems.as_slice(), [SimpleKeyset::Expr(_)]) {
                    if let Some(SimpleKeyset::Expr(e)) = elems.pop() {
                        return Ok(Keyset::Simple(SimpleKeyset::Expr(Expr { span, ..e })));
                    }
                }
                return Ok(Keyset::Tuple { elems, span });
            }
        }
        Ok(Keyset::Simple(self.simple_keyset()?))
    }

    fn simple_keyset(&mut self) -> PResult<SimpleKeyset> {
        if self.at_kw(Kw::Default) {
            return Ok(SimpleKeyset::Default(self.bump().span));
        }
        if matches!(self.kind(), TokenKind::DontCare)
            && matches!(
                self.nth(1),
                TokenKind::Punct(Punct::Comma | Punct::RParen | Punct::Colon)
            )
        {
            return Ok(SimpleKeyset::DontCare(self.bump().span));
        }
        let e = self.expr()?;
        if self.eat_p(Punct::Mask) {
            let mask = self.expr()?;
            let span = e.span.to(mask.span);
            return Ok(SimpleKeyset::Mask { value: e, mask, span });
        }
        if self.eat_p(Punct::DotDot) {
            let hi = self.expr()?;
            let span = e.span.to(hi.span);
            return Ok(SimpleKeyset::Range { lo: e, hi, span });
        }
        Ok(SimpleKeyset::Expr(e))
    }
}

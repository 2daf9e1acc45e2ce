//! Statements, blocks, parser states and transitions.

use super::{DeclCtx, Fail, PResult, Parser, MAX_ELSE_IF_ARMS};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Kw, Punct, TokenKind};
use crate::span::Span;

impl Parser {
    /// `{ statements }` (annotations, if any, were parsed by the caller).
    pub(crate) fn block(&mut self, annotations: Vec<Annotation>) -> PResult<Block> {
        let open = self.expect_p(Punct::LBrace)?;
        let stmts = self.stmt_list()?;
        let close = self.expect_p(Punct::RBrace)?;
        Ok(Block {
            annotations,
            stmts,
            span: open.to(close),
        })
    }

    /// Statements up to (not including) the closing `}`, with recovery.
    fn stmt_list(&mut self) -> PResult<Vec<Stmt>> {
        let stmts = self.items_until_rbrace(|p| p.stmt())?;
        Ok(stmts)
    }

    pub(crate) fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.kind().clone() {
            TokenKind::Punct(Punct::LBrace) => StmtKind::Block(self.block(Vec::new())?),
            TokenKind::Punct(Punct::At) => {
                let annotations = self.annotations()?;
                if self.at_p(Punct::LBrace) {
                    StmtKind::Block(self.block(annotations)?)
                } else if let Some(d) = self.try_local_decl(annotations.clone())? {
                    StmtKind::Decl(Box::new(d))
                } else {
                    // Annotations on other statements are not in the spec.
                    return Err(self.err_expected("E0105", "a block or declaration after annotations"));
                }
            }
            TokenKind::Punct(Punct::Semi) => {
                self.bump();
                StmtKind::Empty
            }
            TokenKind::Kw(Kw::If) => return self.if_chain(),
            TokenKind::Kw(Kw::Switch) => self.switch_stmt()?,
            TokenKind::Kw(Kw::Exit) => {
                self.bump();
                self.expect_p(Punct::Semi)?;
                StmtKind::Exit
            }
            TokenKind::Kw(Kw::Break) => {
                self.bump();
                self.expect_p(Punct::Semi)?;
                StmtKind::Break
            }
            TokenKind::Kw(Kw::Continue) => {
                self.bump();
                self.expect_p(Punct::Semi)?;
                StmtKind::Continue
            }
            TokenKind::Kw(Kw::Return) => {
                self.bump();
                let v = if self.at_p(Punct::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_p(Punct::Semi)?;
                StmtKind::Return(v)
            }
            TokenKind::Kw(Kw::For) => self.for_stmt()?,
            TokenKind::Kw(Kw::Const) => StmtKind::Decl(Box::new(self.const_decl(Vec::new())?)),
            _ => {
                if let Some(d) = self.try_local_decl(Vec::new())? {
                    StmtKind::Decl(Box::new(d))
                } else {
                    let k = self.simple_stmt()?;
                    self.expect_p(Punct::Semi)?;
                    k
                }
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `if (c1) s1 else if (c2) s2 ... else sN`. An `else if` continues the chain rather than
    /// nesting: the arms are parsed in a loop (not counted against the nesting limit), bounded by
    /// [`MAX_ELSE_IF_ARMS`], and folded into the nested `If` statements of the AST.
    fn if_chain(&mut self) -> PResult<Stmt> {
        let mut arms: Vec<(Span, Expr, Stmt)> = Vec::new();
        let else_s = loop {
            let start = self.span();
            if arms.len() >= MAX_ELSE_IF_ARMS {
                let d = Diagnostic::error(
                    "E0113",
                    format!("`else if` chain too long (more than {MAX_ELSE_IF_ARMS} arms)"),
                    start,
                    "arm limit reached here",
                );
                return Err(self.report(d));
            }
            self.bump();
            self.expect_p(Punct::LParen)?;
            let cond = self.expr()?;
            self.expect_p(Punct::RParen)?;
            let then_s = self.stmt()?;
            arms.push((start, cond, then_s));
            if !self.eat_kw(Kw::Else) {
                break None;
            }
            if !self.at_kw(Kw::If) {
                break Some(self.stmt()?);
            }
        };
        let end = self.prev_span();
        let mut tail = else_s;
        while let Some((start, cond, then_s)) = arms.pop() {
            tail = Some(Stmt {
                kind: StmtKind::If {
                    cond,
                    then_s: Box::new(then_s),
                    else_s: tail.map(Box::new),
                },
                span: start.to(end),
            });
        }
        tail.ok_or(Fail)
    }

    /// Assignment, compound assignment or call, without the `;`.
    fn simple_stmt(&mut self) -> PResult<StmtKind> {
        let lhs = self.expr()?;
        if self.eat_p(Punct::Assign) {
            let rhs = self.expr()?;
            return Ok(StmtKind::Assign { lhs, rhs });
        }
        if let Some((op, n)) = self.peek_compound_assign() {
            for _ in 0..n {
                self.bump();
            }
            let rhs = self.expr()?;
            return Ok(StmtKind::CompoundAssign { op, lhs, rhs });
        }
        if matches!(lhs.kind, ExprKind::Call { .. }) {
            return Ok(StmtKind::Call(lhs));
        }
        if self.at_p(Punct::Semi) {
            let d = Diagnostic::error(
                "E0105",
                "expected a statement, found an expression",
                lhs.span,
                "this expression is not an assignment or a call",
            );
            return Err(self.report(d));
        }
        Err(self.err_expected("E0101", "`=`, `(` or `;`"))
    }

    fn peek_compound_assign(&self) -> Option<(BinaryOp, usize)> {
        use BinaryOp as B;
        let TokenKind::Punct(p) = self.kind() else { return None };
        Some(match p {
            Punct::PlusAssign => (B::Add, 1),
            Punct::MinusAssign => (B::Sub, 1),
            Punct::StarAssign => (B::Mul, 1),
            Punct::SlashAssign => (B::Div, 1),
            Punct::PercentAssign => (B::Mod, 1),
            Punct::ShlAssign => (B::Shl, 1),
            Punct::AmpAssign => (B::BitAnd, 1),
            Punct::CaretAssign => (B::BitXor, 1),
            Punct::PipeAssign => (B::BitOr, 1),
            Punct::AddSatAssign => (B::AddSat, 1),
            Punct::SubSatAssign => (B::SubSat, 1),
            Punct::Gt
                if self.nth_is_p(1, Punct::Gt)
                    && self.nth_is_p(2, Punct::Assign)
                    && self.adjacent(0)
                    && self.adjacent(1) =>
            {
                (B::Shr, 3)
            }
            _ => return None,
        })
    }

    /// If a local declaration (variable, constant, instantiation) starts
    /// here, parse it. Returns None (without consuming) otherwise.
    pub(crate) fn try_local_decl(&mut self, annotations: Vec<Annotation>) -> PResult<Option<Decl>> {
        if self.at_kw(Kw::Const) {
            return self.const_decl(annotations).map(Some);
        }
        if !self.at_type_start() || matches!(self.kind(), TokenKind::DontCare) {
            return Ok(None);
        }
        // Decide by speculation: `Type name` (var) or `Type(args) name` (instantiation).
        let is_decl = {
            let snap = self.snapshot();
            let r = self.speculate(|p| {
                p.ty()?;
                if p.at_p(Punct::LParen) {
                    p.args()?;
                }
                if p.nth_is_ident(0) && matches!(p.nth(1), TokenKind::Punct(Punct::Semi | Punct::Assign)) {
                    Ok(())
                } else {
                    Err(Fail)
                }
            });
            self.restore(snap);
            r.is_some()
        };
        let keyword_type = matches!(self.kind(), TokenKind::Kw(_));
        if !is_decl && !keyword_type {
            return Ok(None);
        }
        self.var_or_instance(annotations, DeclCtx::Control).map(Some)
    }

    fn switch_stmt(&mut self) -> PResult<StmtKind> {
        self.expect_kw(Kw::Switch)?;
        self.expect_p(Punct::LParen)?;
        let expr = self.expr()?;
        self.expect_p(Punct::RParen)?;
        self.expect_p(Punct::LBrace)?;
        let cases = self.items_until_rbrace(|p| p.switch_case())?;
        self.expect_p(Punct::RBrace)?;
        Ok(StmtKind::Switch { expr, cases })
    }

    fn switch_case(&mut self) -> PResult<SwitchCase> {
        let start = self.span();
        let label = if self.at_kw(Kw::Default) {
            SwitchLabel::Default(self.bump().span)
        } else {
            SwitchLabel::Expr(self.expr()?)
        };
        if !self.at_p(Punct::Colon) {
            let d = Diagnostic::error(
                "E0118",
                format!("expected `:` after switch label, found {}", self.kind().describe()),
                self.span(),
                "expected `:`",
            );
            return Err(self.report(d));
        }
        self.bump();
        let body = if self.at_p(Punct::LBrace) {
            Some(self.block(Vec::new())?)
        } else {
            None
        };
        Ok(SwitchCase {
            label,
            body,
            span: start.to(self.prev_span()),
        })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.expect_kw(Kw::For)?;
        self.expect_p(Punct::LParen)?;
        // `for (... in ...)` if `in` appears before `;`/`)` at depth 0.
        let mut depth = 0i32;
        let mut is_in = false;
        for i in 0.. {
            match self.nth(i) {
                TokenKind::Eof => break,
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                TokenKind::Punct(Punct::Semi) if depth == 0 => break,
                TokenKind::Kw(Kw::In) if depth == 0 => {
                    is_in = true;
                    break;
                }
                _ => {}
            }
            if i > 10_000 {
                break;
            }
        }
        if is_in {
            let annotations = self.annotations()?;
            let ty = if self.nth_is_ident(0) && self.nth_is_kw(1, Kw::In) {
                None
            } else {
                Some(self.ty()?)
            };
            let var = self.ident()?;
            self.expect_kw(Kw::In)?;
            let range = self.for_range()?;
            self.expect_p(Punct::RParen)?;
            let body = Box::new(self.stmt()?);
            return Ok(StmtKind::ForIn {
                annotations,
                ty,
                var,
                range,
                body,
            });
        }
        let init = self.for_clause_list(Punct::Semi)?;
        self.expect_p(Punct::Semi)?;
        let cond = if self.at_p(Punct::Semi) {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_p(Punct::Semi)?;
        let update = self.for_clause_list(Punct::RParen)?;
        self.expect_p(Punct::RParen)?;
        let body = Box::new(self.stmt()?);
        Ok(StmtKind::For {
            init,
            cond,
            update,
            body,
        })
    }

    /// `for (x in lo .. hi)` ranges are kept as an expression; a `..` range
    /// becomes a `List` of the two bounds with `dots` set.
    fn for_range(&mut self) -> PResult<Expr> {
        let lo = self.expr()?;
        if self.eat_p(Punct::DotDot) {
            let hi = self.expr()?;
            let span = lo.span.to(hi.span);
            return self.mk_expr(
                ExprKind::List {
                    elems: vec![lo, hi],
                    dots: true,
                },
                span,
            );
        }
        Ok(lo)
    }

    fn for_clause_list(&mut self, end: Punct) -> PResult<Vec<Stmt>> {
        let mut v = Vec::new();
        if self.at_p(end) {
            return Ok(v);
        }
        loop {
            let start = self.span();
            let kind = if let Some(d) = self.try_for_var_decl()? {
                StmtKind::Decl(Box::new(d))
            } else {
                self.simple_stmt()?
            };
            v.push(Stmt {
                kind,
                span: start.to(self.prev_span()),
            });
            if !self.eat_p(Punct::Comma) {
                break;
            }
        }
        Ok(v)
    }

    /// `T x = e` inside a `for` header (no `;`).
    fn try_for_var_decl(&mut self) -> PResult<Option<Decl>> {
        if !self.at_type_start() {
            return Ok(None);
        }
        let snap = self.snapshot();
        let ok = self
            .speculate(|p| {
                p.ty()?;
                if p.nth_is_ident(0) && p.nth_is_p(1, Punct::Assign) {
                    Ok(())
                } else {
                    Err(Fail)
                }
            })
            .is_some();
        self.restore(snap);
        if !ok {
            return Ok(None);
        }
        let start = self.span();
        let ty = self.ty()?;
        let name = self.ident()?;
        self.expect_p(Punct::Assign)?;
        let init = Some(self.expr()?);
        Ok(Some(Decl::Var(VarDecl {
            annotations: Vec::new(),
            ty,
            name,
            init,
            span: start.to(self.prev_span()),
        })))
    }

    // ───────────── parser states ─────────────

    /// `state name { statements transition }` (annotations already parsed).
    pub(crate) fn parser_state(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<ParserState> {
        self.expect_word("state")?;
        let name = self.ident()?;
        self.expect_p(Punct::LBrace)?;
        let mut stmts = Vec::new();
        let mut transition = None;
        while !self.at_p(Punct::RBrace) && !self.at_eof() {
            let before = self.pos();
            if self.at_kw(Kw::Transition) {
                match self.transition() {
                    Ok(t) => transition = Some(t),
                    Err(Fail) => {
                        if self.aborted {
                            return Err(Fail);
                        }
                        self.recover();
                    }
                }
                if !self.at_p(Punct::RBrace) && !self.at_eof() {
                    let d = Diagnostic::error(
                        "E0115",
                        "a parser state must end with its `transition` statement",
                        self.span(),
                        "unexpected code after the transition",
                    );
                    self.report(d);
                    // Skip to the end of the state.
                    while !self.at_p(Punct::RBrace) && !self.at_eof() {
                        let b = self.pos();
                        self.recover();
                        if self.pos() == b {
                            self.bump();
                        }
                    }
                }
                continue;
            }
            match self.stmt() {
                Ok(s) => stmts.push(s),
                Err(Fail) => {
                    if self.aborted {
                        return Err(Fail);
                    }
                    self.recover();
                }
            }
            if self.pos() == before {
                self.bump();
            }
        }
        self.expect_p(Punct::RBrace)?;
        Ok(ParserState {
            annotations,
            name,
            stmts,
            transition,
            span: start.to(self.prev_span()),
        })
    }

    fn transition(&mut self) -> PResult<Transition> {
        let start = self.expect_kw(Kw::Transition)?;
        if self.at_kw(Kw::Select) {
            self.bump();
            self.expect_p(Punct::LParen)?;
            let mut exprs = Vec::new();
            if !self.at_p(Punct::RParen) {
                loop {
                    exprs.push(self.expr()?);
                    if !self.eat_p(Punct::Comma) {
                        break;
                    }
                }
            }
            self.expect_p(Punct::RParen)?;
            self.expect_p(Punct::LBrace)?;
            let cases = self.items_until_rbrace(|p| p.select_case())?;
            self.expect_p(Punct::RBrace)?;
            // An optional `;` after the select block is tolerated.
            self.eat_p(Punct::Semi);
            return Ok(Transition::Select {
                exprs,
                cases,
                span: start.to(self.prev_span()),
            });
        }
        let state = match self.path_name() {
            Ok(s) => s,
            Err(Fail) => return Err(Fail),
        };
        self.expect_p(Punct::Semi)?;
        Ok(Transition::Direct {
            state,
            span: start.to(self.prev_span()),
        })
    }

    fn select_case(&mut self) -> PResult<SelectCase> {
        let start = self.span();
        let keyset = self.keyset()?;
        if !self.at_p(Punct::Colon) {
            let d = Diagnostic::error(
                "E0114",
                format!("expected `:` after select keyset, found {}", self.kind().describe()),
                self.span(),
                "expected `:`",
            );
            return Err(self.report(d));
        }
        self.bump();
        let state = self.path_name()?;
        self.expect_p(Punct::Semi)?;
        Ok(SelectCase {
            keyset,
            state,
            span: start.to(self.prev_span()),
        })
    }
}

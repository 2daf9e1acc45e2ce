//! Declarations: top level, control/parser locals, externs, tables.

use super::{DeclCtx, Fail, PResult, Parser};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Kw, Punct, TokenKind};
use crate::span::Span;

impl Parser {
    /// One declaration in context `ctx` (annotations included).
    pub(crate) fn decl(&mut self, ctx: DeclCtx) -> PResult<Decl> {
        if self.aborted {
            return Err(Fail);
        }
        let start = self.span();
        let annotations = self.annotations()?;
        let where_ = match ctx {
            DeclCtx::TopLevel => "at top level",
            DeclCtx::Control => "inside a control",
            DeclCtx::Parser => "inside a parser",
            DeclCtx::ObjInit => "inside an object initializer",
        };
        let top = ctx == DeclCtx::TopLevel;
        match self.kind().clone() {
            TokenKind::Kw(Kw::Const) => self.const_decl(annotations),
            TokenKind::Kw(k @ (Kw::Header | Kw::HeaderUnion | Kw::Struct)) => {
                if !top {
                    return Err(self.not_allowed(&format!("a `{}` declaration", k.as_str()), where_, start));
                }
                self.struct_decl(annotations, start, k)
            }
            TokenKind::Kw(Kw::Enum) => {
                if !top {
                    return Err(self.not_allowed("an `enum` declaration", where_, start));
                }
                self.enum_decl(annotations, start)
            }
            TokenKind::Kw(Kw::Typedef) => {
                if !top {
                    return Err(self.not_allowed("a `typedef`", where_, start));
                }
                self.typedef_decl(annotations, start, false)
            }
            TokenKind::Ident(ref s) if s == "type" && top && self.at_newtype() => {
                self.typedef_decl(annotations, start, true)
            }
            TokenKind::Kw(k @ (Kw::Error | Kw::MatchKind)) if self.nth_is_p(1, Punct::LBrace) => {
                if !top {
                    return Err(self.not_allowed(&format!("a `{}` declaration", k.as_str()), where_, start));
                }
                self.name_list_decl(k, start)
            }
            TokenKind::Kw(Kw::Extern) => {
                if !top {
                    return Err(self.not_allowed("an `extern` declaration", where_, start));
                }
                self.extern_decl(annotations, start)
            }
            TokenKind::Kw(Kw::Parser) => {
                if !top {
                    return Err(self.not_allowed("a `parser` declaration", where_, start));
                }
                self.parser_decl(annotations, start)
            }
            TokenKind::Kw(Kw::Control) => {
                if !top {
                    return Err(self.not_allowed("a `control` declaration", where_, start));
                }
                self.control_decl(annotations, start)
            }
            TokenKind::Kw(Kw::Package) => {
                if !top {
                    return Err(self.not_allowed("a `package` declaration", where_, start));
                }
                self.bump();
                let h = self.type_decl_header(annotations, start)?;
                self.expect_p(Punct::Semi)?;
                Ok(Decl::PackageType(TypeDeclHeader {
                    span: start.to(self.prev_span()),
                    ..h
                }))
            }
            TokenKind::Kw(Kw::Action) => {
                if !(top || ctx == DeclCtx::Control) {
                    return Err(self.not_allowed("an `action`", where_, start));
                }
                self.action_decl(annotations, start)
            }
            TokenKind::Kw(Kw::Table) => {
                if ctx != DeclCtx::Control {
                    return Err(self.not_allowed("a `table`", where_, start));
                }
                self.table_decl(annotations, start)
            }
            TokenKind::Kw(Kw::ValueSet) => {
                if ctx != DeclCtx::Parser {
                    return Err(self.not_allowed("a `value_set`", where_, start));
                }
                self.value_set_decl(annotations, start)
            }
            _ if self.at_type_start() => self.var_or_instance(annotations, ctx),
            _ => Err(self.err_expected("E0102", "a declaration")),
        }
    }

    /// `type` used as the new-type keyword: `type T N;`.
    fn at_newtype(&self) -> bool {
        // `type` followed by something that is not `(`/`=`/`;`/`.`/`<` (which
        // would make `type` a name).
        let next_ends_name = matches!(
            self.nth(1),
            TokenKind::Punct(Punct::LParen | Punct::Assign | Punct::Semi | Punct::Dot | Punct::Lt) | TokenKind::Eof
        );
        let is_var_like =
            self.nth_is_ident(1) && matches!(self.nth(2), TokenKind::Punct(Punct::Assign | Punct::LParen));
        !next_ends_name && !is_var_like
    }

    pub(crate) fn const_decl(&mut self, annotations: Vec<Annotation>) -> PResult<Decl> {
        let start = self.span();
        self.expect_kw(Kw::Const)?;
        let ty = self.ty()?;
        let name = self.ident()?;
        self.expect_p(Punct::Assign)?;
        let value = self.expr()?;
        self.expect_p(Punct::Semi)?;
        let start = annotations.first().map(|a| a.span).unwrap_or(start);
        Ok(Decl::Const(ConstDecl {
            annotations,
            ty,
            name,
            value,
            span: start.to(self.prev_span()),
        }))
    }

    /// Variable, instantiation or function, starting with a type.
    pub(crate) fn var_or_instance(&mut self, annotations: Vec<Annotation>, ctx: DeclCtx) -> PResult<Decl> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let ty = self.ty()?;
        if self.at_p(Punct::LParen) {
            let args = self.args()?;
            let name = self.ident()?;
            let initializer = if self.eat_p(Punct::Assign) {
                self.expect_p(Punct::LBrace)?;
                let decls = self.decl_list(DeclCtx::ObjInit)?;
                self.expect_p(Punct::RBrace)?;
                Some(decls)
            } else {
                None
            };
            self.expect_p(Punct::Semi)?;
            return Ok(Decl::Instantiation(Instantiation {
                annotations,
                ty,
                args,
                name,
                initializer,
                span: start.to(self.prev_span()),
            }));
        }
        let name = self.ident()?;
        if self.at_p(Punct::LParen) || self.at_p(Punct::Lt) {
            // Function declaration.
            if !matches!(ctx, DeclCtx::TopLevel | DeclCtx::ObjInit | DeclCtx::Control) {
                return Err(self.not_allowed("a function declaration", "here", start));
            }
            let type_params = self.opt_type_params()?;
            let params = self.params()?;
            let proto = FunctionProto {
                annotations,
                ret: ty,
                name,
                type_params,
                params,
                span: start.to(self.prev_span()),
            };
            let body = self.block(Vec::new())?;
            return Ok(Decl::Function(FunctionDecl {
                proto,
                body,
                span: start.to(self.prev_span()),
            }));
        }
        let init = if self.eat_p(Punct::Assign) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_p(Punct::Semi)?;
        Ok(Decl::Var(VarDecl {
            annotations,
            ty,
            name,
            init,
            span: start.to(self.prev_span()),
        }))
    }

    /// Declarations until `}` (not consumed), with recovery.
    pub(crate) fn decl_list(&mut self, ctx: DeclCtx) -> PResult<Vec<Decl>> {
        let v = self.items_until_rbrace(|p| {
            if p.eat_p(Punct::Semi) {
                Ok(None)
            } else {
                p.decl(ctx).map(Some)
            }
        })?;
        Ok(v.into_iter().flatten().collect())
    }

    fn struct_decl(&mut self, annotations: Vec<Annotation>, start: Span, k: Kw) -> PResult<Decl> {
        self.bump();
        let name = self.ident()?;
        let type_params = self.opt_type_params()?;
        self.expect_p(Punct::LBrace)?;
        let fields = self.items_until_rbrace(|p| p.field())?;
        self.expect_p(Punct::RBrace)?;
        let d = StructDecl {
            annotations,
            name,
            type_params,
            fields,
            span: start.to(self.prev_span()),
        };
        Ok(match k {
            Kw::Header => Decl::Header(d),
            Kw::HeaderUnion => Decl::HeaderUnion(d),
            _ => Decl::Struct(d),
        })
    }

    fn field(&mut self) -> PResult<Field> {
        let start = self.span();
        let annotations = self.annotations()?;
        let ty = self.ty()?;
        let name = self.ident()?;
        self.expect_p(Punct::Semi)?;
        Ok(Field {
            annotations,
            ty,
            name,
            span: start.to(self.prev_span()),
        })
    }

    fn enum_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Enum)?;
        let repr = if self.nth_is_ident(0) && self.nth_is_p(1, Punct::LBrace) {
            None
        } else {
            Some(self.ty()?)
        };
        let name = self.ident()?;
        self.expect_p(Punct::LBrace)?;
        let mut members = Vec::new();
        while !self.at_p(Punct::RBrace) && !self.at_eof() {
            let mstart = self.span();
            let ann = self.annotations()?;
            let mname = self.ident()?;
            let value = if self.eat_p(Punct::Assign) {
                Some(self.expr()?)
            } else {
                None
            };
            members.push(EnumMember {
                annotations: ann,
                name: mname,
                value,
                span: mstart.to(self.prev_span()),
            });
            if !self.eat_p(Punct::Comma) {
                break;
            }
        }
        self.expect_p(Punct::RBrace)?;
        Ok(Decl::Enum(EnumDecl {
            annotations,
            repr,
            name,
            members,
            span: start.to(self.prev_span()),
        }))
    }

    fn typedef_decl(&mut self, annotations: Vec<Annotation>, start: Span, is_newtype: bool) -> PResult<Decl> {
        self.bump(); // `typedef` / `type`
        let target = if matches!(
            self.kind(),
            TokenKind::Kw(Kw::Header | Kw::HeaderUnion | Kw::Struct | Kw::Enum)
        ) {
            let dstart = self.span();
            let inner = match self.kind().clone() {
                TokenKind::Kw(Kw::Enum) => self.enum_decl(Vec::new(), dstart)?,
                TokenKind::Kw(k) => self.struct_decl(Vec::new(), dstart, k)?,
                _ => return Err(Fail),
            };
            TypedefTarget::Decl(Box::new(inner))
        } else {
            TypedefTarget::Type(self.ty()?)
        };
        let name = self.ident()?;
        self.expect_p(Punct::Semi)?;
        Ok(Decl::Typedef(TypedefDecl {
            annotations,
            is_newtype,
            target,
            name,
            span: start.to(self.prev_span()),
        }))
    }

    fn name_list_decl(&mut self, k: Kw, start: Span) -> PResult<Decl> {
        let kw_span = self.bump().span;
        let keyword = Ident {
            name: k.as_str().to_string(),
            span: kw_span,
        };
        self.expect_p(Punct::LBrace)?;
        let mut members = Vec::new();
        while !self.at_p(Punct::RBrace) && !self.at_eof() {
            members.push(self.ident()?);
            if !self.eat_p(Punct::Comma) {
                break;
            }
        }
        self.expect_p(Punct::RBrace)?;
        let d = NameListDecl {
            keyword,
            members,
            span: start.to(self.prev_span()),
        };
        Ok(if k == Kw::Error {
            Decl::Error(d)
        } else {
            Decl::MatchKind(d)
        })
    }

    fn extern_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Extern)?;
        // Extern object: `extern Name [<T,...>] {`.
        let obj_head = if self.nth_is_ident(0) {
            self.speculate(|p| {
                let name = p.ident()?;
                let tps = p.opt_type_params()?;
                if p.at_p(Punct::LBrace) {
                    Ok((name, tps))
                } else {
                    Err(Fail)
                }
            })
        } else {
            None
        };
        let Some((name, type_params)) = obj_head else {
            // Extern function.
            let fstart = self.span();
            let ret = self.ty()?;
            let name = self.ident()?;
            let type_params = self.opt_type_params()?;
            let params = self.params()?;
            self.expect_p(Punct::Semi)?;
            let _ = fstart;
            return Ok(Decl::ExternFunction(FunctionProto {
                annotations,
                ret,
                name,
                type_params,
                params,
                span: start.to(self.prev_span()),
            }));
        };
        self.expect_p(Punct::LBrace)?;
        let members = self.items_until_rbrace(|p| p.extern_member(&name))?;
        self.expect_p(Punct::RBrace)?;
        Ok(Decl::ExternObject(ExternDecl {
            annotations,
            name,
            type_params,
            members,
            span: start.to(self.prev_span()),
        }))
    }

    fn extern_member(&mut self, ext_name: &Ident) -> PResult<ExternMember> {
        let start = self.span();
        let annotations = self.annotations()?;
        let is_abstract = self.eat_kw(Kw::Abstract);
        if !is_abstract && self.at_word(&ext_name.name) && self.nth_is_p(1, Punct::LParen) {
            let name = self.ident()?;
            let params = self.params()?;
            self.expect_p(Punct::Semi)?;
            return Ok(ExternMember::Constructor {
                annotations,
                name,
                params,
                span: start.to(self.prev_span()),
            });
        }
        let ret = self.ty()?;
        let name = self.ident()?;
        let type_params = self.opt_type_params()?;
        let params = self.params()?;
        self.expect_p(Punct::Semi)?;
        Ok(ExternMember::Method {
            is_abstract,
            proto: FunctionProto {
                annotations,
                ret,
                name,
                type_params,
                params,
                span: start.to(self.prev_span()),
            },
        })
    }

    /// `Name <T> (params)` after the `parser`/`control`/`package` keyword.
    fn type_decl_header(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<TypeDeclHeader> {
        let name = self.ident()?;
        let type_params = self.opt_type_params()?;
        let params = self.params()?;
        Ok(TypeDeclHeader {
            annotations,
            name,
            type_params,
            params,
            span: start.to(self.prev_span()),
        })
    }

    fn parser_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Parser)?;
        let header = self.type_decl_header(annotations, start)?;
        if self.eat_p(Punct::Semi) {
            return Ok(Decl::ParserType(header));
        }
        let ctor_params = self.opt_params()?;
        self.expect_p(Punct::LBrace)?;
        let mut locals = Vec::new();
        let mut states = Vec::new();
        self.items_until_rbrace(|p| {
            if p.eat_p(Punct::Semi) {
                return Ok(());
            }
            let s = p.span();
            let snap = p.snapshot();
            let ann = p.annotations()?;
            if p.at_word("state") && p.nth_is_ident(1) {
                states.push(p.parser_state(ann, s)?);
            } else {
                p.restore(snap);
                locals.push(p.decl(DeclCtx::Parser)?);
            }
            Ok(())
        })?;
        self.expect_p(Punct::RBrace)?;
        Ok(Decl::Parser(ParserDecl {
            header,
            ctor_params,
            locals,
            states,
            span: start.to(self.prev_span()),
        }))
    }

    fn control_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Control)?;
        let header = self.type_decl_header(annotations, start)?;
        if self.eat_p(Punct::Semi) {
            return Ok(Decl::ControlType(header));
        }
        let ctor_params = self.opt_params()?;
        let open = self.expect_p(Punct::LBrace)?;
        let mut locals = Vec::new();
        let mut apply = None;
        self.items_until_rbrace(|p| {
            if p.eat_p(Punct::Semi) {
                return Ok(());
            }
            if !(p.at_word("apply") && p.nth_is_p(1, Punct::LBrace)) {
                locals.push(p.decl(DeclCtx::Control)?);
                return Ok(());
            }
            p.bump();
            let b = p.block(Vec::new())?;
            if apply.is_some() {
                let d = Diagnostic::error(
                    "E0111",
                    "a control has only one `apply` block",
                    b.span,
                    "second `apply` block",
                );
                p.report(d);
            } else {
                apply = Some(b);
            }
            Ok(())
        })?;
        let close = self.expect_p(Punct::RBrace)?;
        let apply = match apply {
            Some(a) => a,
            None => {
                let d = Diagnostic::error(
                    "E0101",
                    format!("control `{}` has no `apply` block", header.name.name),
                    close,
                    "expected `apply { ... }` before this `}`",
                )
                .with_secondary(header.name.span, "control declared here");
                self.report(d);
                Block {
                    annotations: Vec::new(),
                    stmts: Vec::new(),
                    span: open.to(close),
                }
            }
        };
        Ok(Decl::Control(ControlDecl {
            header,
            ctor_params,
            locals,
            apply,
            span: start.to(self.prev_span()),
        }))
    }

    fn action_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::Action)?;
        let name = self.ident()?;
        let params = self.params()?;
        let body = self.block(Vec::new())?;
        Ok(Decl::Action(ActionDecl {
            annotations,
            name,
            params,
            body,
            span: start.to(self.prev_span()),
        }))
    }

    fn value_set_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Kw::ValueSet)?;
        self.expect_p(Punct::Lt)?;
        let elem_ty = self.ty()?;
        self.expect_close_angle()?;
        self.expect_p(Punct::LParen)?;
        let size = self.expr()?;
        self.expect_p(Punct::RParen)?;
        let name = self.ident()?;
        self.expect_p(Punct::Semi)?;
        Ok(Decl::ValueSet(ValueSetDecl {
            annotations,
            elem_ty,
            size,
            name,
            span: start.to(self.prev_span()),
        }))
    }
}

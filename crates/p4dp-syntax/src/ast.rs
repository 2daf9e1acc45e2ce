//! The P4_16 abstract syntax tree.
//!
//! # Shape
//!
//! The AST is a faithful tree of the source: nothing is desugared, resolved or
//! typed here. Every node carries a [`Span`] (byte range in the preprocessed
//! text; resolve it with [`crate::SourceMap::lookup`]).
//!
//! * A [`Program`] is a list of [`Decl`]s. **One `Decl` enum is used for every
//!   declaration context** (top level, control locals, parser locals, extern
//!   object initializers, statements that declare). The parser only produces a
//!   variant where the grammar allows it, except where the spec leaves it to
//!   semantic checks (e.g. a `table` at top level is a syntax error, but a
//!   `const` inside a control is fine).
//! * Names are [`Ident`]s. Uses of names in expressions/types are [`PathName`]s
//!   (`.x` refers to the top-level `x`). Type names and value names are not
//!   distinguished syntactically; sema resolves them.
//! * Types are [`Type`] (kind + span). `bit` alone is `TypeKind::Bit(None)`
//!   (= `bit<1>`); `int` alone is `TypeKind::Int(None)` (arbitrary precision).
//!   Widths are expressions (`bit<8>`, `bit<(W+1)>`), evaluated by sema.
//! * Expressions are [`Expr`] (kind + span). Calls cover function/method/action
//!   calls, constructor calls (`Register<bit<32>>(1024)` as an argument) and
//!   `T.minSizeInBits()`; the callee is an arbitrary expression and type
//!   arguments are kept separately. Table-entry / `select` keysets use the
//!   separate [`Keyset`] type (masks `&&&`, ranges `..`, `default`, `_`).
//! * Statements are [`Stmt`] (kind + span); declarations inside blocks are
//!   `StmtKind::Decl` (variables, constants, instantiations).
//! * Annotations ([`Annotation`]) appear on most declarations, parameters,
//!   fields, statements blocks, table properties, keys, entries and action refs.
//!   Unstructured bodies keep the raw tokens plus, when the tokens form an
//!   expression list, the parsed expressions (`@name("x")`, `@priority(3)`).
//! * Error recovery: when a construct could not be parsed, the parser emits a
//!   diagnostic and drops the enclosing list element (declaration, statement,
//!   field, table property, select case, ...) and resynchronizes. The
//!   `ExprKind::Invalid` / `TypeKind::Invalid` / `StmtKind::Invalid`
//!   placeholders exist for tools that build partial trees; the parser does
//!   not produce them today. Sema should skip them silently (an error was
//!   already reported). If the parse produced errors, sema should not run.
//!
//! Everything derives `Debug` and `Clone`; the `Debug` dump is the
//! `--show-ast` output.

use crate::lexer::Token;
use crate::span::Span;
use num_bigint::BigUint;

/// An identifier (name at its declaration or use site).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A name used to refer to something: `x` or `.x` (top-level scope).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathName {
    /// True for the dot-prefixed form `.x`.
    pub top_level: bool,
    pub name: Ident,
    pub span: Span,
}

/// A whole source file (after preprocessing).
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub decls: Vec<Decl>,
}

// ───────────────────────────── annotations ─────────────────────────────

#[derive(Clone, Debug)]
pub struct Annotation {
    /// Name without the `@` (`name`, `priority`, `hidden`, `__ref`, ...).
    pub name: Ident,
    pub body: AnnotationBody,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum AnnotationBody {
    /// `@hidden`
    Empty,
    /// `@name(tokens...)`: raw tokens between the parentheses (balanced,
    /// excluding the outer parentheses). `exprs` is `Some` when the tokens
    /// parse as a comma-separated expression list (e.g. `@name("x")`,
    /// `@priority(3)`), `None` otherwise.
    Unstructured {
        tokens: Vec<Token>,
        exprs: Option<Vec<Expr>>,
    },
    /// `@name[e1, e2]`
    ExprList(Vec<Expr>),
    /// `@name[k1 = e1, k2 = e2]`
    KeyValueList(Vec<NamedExpr>),
}

/// `name = expr` (structured annotations, struct-valued expressions).
#[derive(Clone, Debug)]
pub struct NamedExpr {
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

// ───────────────────────────────── types ─────────────────────────────────

#[derive(Clone, Debug)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

impl Type {
    /// The largest height of an expression inside this type (a width, a stack size) plus the
    /// type's own nesting, so that an expression's height also bounds the types inside it. Type
    /// nesting is bounded by the parser's nesting limit, so this recursion is too.
    pub fn expr_height(&self) -> u32 {
        let inner = match &self.kind {
            TypeKind::Bit(w) | TypeKind::Int(w) => w.as_ref().map_or(0, |e| e.height),
            TypeKind::Varbit(w) => w.height,
            TypeKind::Specialized { args, .. } | TypeKind::Tuple(args) => {
                args.iter().map(Type::expr_height).max().unwrap_or(0)
            }
            TypeKind::Stack { elem, size } => elem.expr_height().max(size.height),
            TypeKind::List(t) => t.expr_height(),
            TypeKind::Bool
            | TypeKind::Error
            | TypeKind::MatchKind
            | TypeKind::String
            | TypeKind::Void
            | TypeKind::Named(_)
            | TypeKind::DontCare
            | TypeKind::Invalid => 0,
        };
        inner.saturating_add(1)
    }
}

#[derive(Clone, Debug)]
pub enum TypeKind {
    Bool,
    /// The `error` type.
    Error,
    MatchKind,
    String,
    Void,
    /// `bit` (None, = `bit<1>`) or `bit<W>` / `bit<(expr)>`.
    Bit(Option<Box<Expr>>),
    /// `int` (None: arbitrary precision) or `int<W>`.
    Int(Option<Box<Expr>>),
    /// `varbit<W>`.
    Varbit(Box<Expr>),
    /// A named type (`H`, `.H`, a type parameter `T`).
    Named(PathName),
    /// A generic type applied to arguments: `Register<bit<32>, bit<10>>`.
    /// Arguments may be `_` (`TypeKind::DontCare`) or `void`.
    Specialized {
        base: PathName,
        args: Vec<Type>,
    },
    /// Header stack / array `T[size]`.
    Stack {
        elem: Box<Type>,
        size: Box<Expr>,
    },
    /// `tuple<T1, T2>`.
    Tuple(Vec<Type>),
    /// `list<T>` (P4_16 v1.2.4+).
    List(Box<Type>),
    /// `_` as a type argument.
    DontCare,
    /// Placeholder after a syntax error.
    Invalid,
}

// ────────────────────────────── expressions ──────────────────────────────

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the expression tree: 1 for a leaf, else 1 + the largest height among the
    /// sub-expressions (those inside a cast's or constructor call's type included). Set by
    /// [`Expr::new`]; the parser rejects expressions higher than its limit, so every recursive
    /// walk over expressions (semantic analysis, IR, C generation) has a bounded depth.
    pub height: u32,
}

impl Expr {
    /// An expression node; its [`Expr::height`] is computed from the direct children.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let height = kind.child_height().saturating_add(1);
        Expr { kind, span, height }
    }
}

impl ExprKind {
    /// The largest height among the direct sub-expressions (0 for a leaf).
    pub fn child_height(&self) -> u32 {
        fn args(a: &[Argument]) -> u32 {
            a.iter().map(|a| a.value.height).max().unwrap_or(0)
        }
        match self {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Name(_)
            | ExprKind::This
            | ExprKind::DontCare
            | ExprKind::ErrorMember(_)
            | ExprKind::InvalidHeader
            | ExprKind::Invalid => 0,
            ExprKind::Member { base, .. } => base.height,
            ExprKind::Index { base, index } => base.height.max(index.height),
            ExprKind::Slice { base, hi, lo } => base.height.max(hi.height).max(lo.height),
            ExprKind::Call {
                callee,
                type_args,
                args: a,
            } => callee
                .height
                .max(args(a))
                .max(type_args.iter().map(Type::expr_height).max().unwrap_or(0)),
            ExprKind::ConstructorCall { ty, args: a } => ty.expr_height().max(args(a)),
            ExprKind::Unary { expr, .. } => expr.height,
            ExprKind::Binary { lhs, rhs, .. } => lhs.height.max(rhs.height),
            ExprKind::Ternary { cond, then_e, else_e } => cond.height.max(then_e.height).max(else_e.height),
            ExprKind::Cast { ty, expr } => ty.expr_height().max(expr.height),
            ExprKind::List { elems, .. } => elems.iter().map(|e| e.height).max().unwrap_or(0),
            ExprKind::Struct { fields, .. } => fields.iter().map(|f| f.value.height).max().unwrap_or(0),
        }
    }
}

/// Integer literal. `8w5` → width 8, unsigned; `4s3` → width 4, signed;
/// `5` → no width (arbitrary-precision `int`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// Magnitude (literals are non-negative; `-` is a unary operator).
    pub value: BigUint,
    pub width: Option<u32>,
    /// True for `s` literals (`4s3`); false for `w` and unsized literals.
    pub signed: bool,
    /// Base the literal was written in: 2, 8, 10 or 16.
    pub radix: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `!`
    Not,
    /// `~`
    BitNot,
    /// `-`
    Neg,
    /// unary `+`
    Plus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    /// `|+|`
    AddSat,
    /// `|-|`
    SubSat,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    /// `++` (bit-string concatenation)
    Concat,
    /// `&&`
    And,
    /// `||`
    Or,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(IntLit),
    Bool(bool),
    /// String literal contents (escapes kept as written, quotes removed).
    Str(String),
    /// A name: variable, constant, action, type name used as a value (e.g.
    /// the `T` in `T.minSizeInBits()`), enum type in `E.member`, ...
    Name(PathName),
    /// `this` (in abstract method implementations).
    This,
    /// `_` (don't-care argument / lvalue).
    DontCare,
    /// `error.X`
    ErrorMember(Ident),
    /// `base.member` (fields, methods, enum members, `hdr.isValid`, `T.minSizeInBits`).
    Member {
        base: Box<Expr>,
        member: Ident,
    },
    /// `base[index]`
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `base[hi:lo]`
    Slice {
        base: Box<Expr>,
        hi: Box<Expr>,
        lo: Box<Expr>,
    },
    /// `callee<type_args>(args)`: function, method, action and constructor calls.
    Call {
        callee: Box<Expr>,
        type_args: Vec<Type>,
        args: Vec<Argument>,
    },
    /// `T(args)` where `T` is a *type* that cannot be an expression
    /// (e.g. a specialized type `Register<bit<8>>(4)` inside an argument list
    /// is parsed as `Call` on `Name`; this variant is only used when the type
    /// is not a plain/specialized name, which the spec does not allow but the
    /// parser accepts for better diagnostics in sema).
    ConstructorCall {
        ty: Type,
        args: Vec<Argument>,
    },
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `cond ? then_e : else_e`
    Ternary {
        cond: Box<Expr>,
        then_e: Box<Expr>,
        else_e: Box<Expr>,
    },
    /// `(T) expr`
    Cast {
        ty: Type,
        expr: Box<Expr>,
    },
    /// `{ e1, e2 }` (list / tuple / header-stack / struct initializer by
    /// position). `dots` is true for a trailing `...` (`{ e1, ... }`).
    List {
        elems: Vec<Expr>,
        dots: bool,
    },
    /// `{ f1 = e1, f2 = e2 }`; `dots` for a trailing `...`.
    Struct {
        fields: Vec<NamedExpr>,
        dots: bool,
    },
    /// `{#}`: an invalid header / header union.
    InvalidHeader,
    /// Placeholder after a syntax error.
    Invalid,
}

/// A call argument: positional `e`, named `name = e`, or `_` (a don't-care
/// value is `ExprKind::DontCare`).
#[derive(Clone, Debug)]
pub struct Argument {
    pub name: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

/// One element of a keyset.
#[derive(Clone, Debug)]
pub enum SimpleKeyset {
    Expr(Expr),
    /// `value &&& mask`
    Mask {
        value: Expr,
        mask: Expr,
        span: Span,
    },
    /// `lo .. hi`
    Range {
        lo: Expr,
        hi: Expr,
        span: Span,
    },
    Default(Span),
    /// `_`
    DontCare(Span),
}

/// Keyset of a `select` case or a table entry.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Keyset {
    Simple(SimpleKeyset),
    /// `(k1, k2, ...)`
    Tuple {
        elems: Vec<SimpleKeyset>,
        span: Span,
    },
}

// ────────────────────────────── statements ──────────────────────────────

#[derive(Clone, Debug)]
pub struct Block {
    pub annotations: Vec<Annotation>,
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `lhs = rhs;`
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    /// `lhs op= rhs;` (compound assignment, P4_16 v1.2.5: `+=`, `-=`, `*=`,
    /// `/=`, `%=`, `<<=`, `>>=`, `&=`, `^=`, `|=`, `|+|=`, `|-|=`).
    CompoundAssign {
        op: BinaryOp,
        lhs: Expr,
        rhs: Expr,
    },
    /// `f(args);` / `t.apply();` — `call` is always an `ExprKind::Call`.
    Call(Expr),
    /// `if (cond) then_s else else_s`
    If {
        cond: Expr,
        then_s: Box<Stmt>,
        else_s: Option<Box<Stmt>>,
    },
    /// `switch (expr) { cases }`
    Switch {
        expr: Expr,
        cases: Vec<SwitchCase>,
    },
    Block(Block),
    Exit,
    Return(Option<Expr>),
    /// `;`
    Empty,
    /// Variable / constant declaration or instantiation inside a block
    /// (`Decl::Var`, `Decl::Const`, `Decl::Instantiation`).
    Decl(Box<Decl>),
    /// `for (init; cond; update) body` (P4_16 v1.2.5).
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        update: Vec<Stmt>,
        body: Box<Stmt>,
    },
    /// `for (T x in range) body` / `for (x in range) body` (P4_16 v1.2.5).
    ForIn {
        annotations: Vec<Annotation>,
        ty: Option<Type>,
        var: Ident,
        range: Expr,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    /// Placeholder after a syntax error.
    Invalid,
}

#[derive(Clone, Debug)]
pub enum SwitchLabel {
    Default(Span),
    /// An action name (for `t.apply().action_run`) or a constant expression.
    Expr(Expr),
}

#[derive(Clone, Debug)]
pub struct SwitchCase {
    pub label: SwitchLabel,
    /// None for a fall-through label (`a: b: { ... }`, `a` falls through).
    pub body: Option<Block>,
    pub span: Span,
}

// ───────────────────────────── declarations ─────────────────────────────

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// No direction (directionless: action data / constructor-style).
    None,
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub annotations: Vec<Annotation>,
    pub direction: Direction,
    pub ty: Type,
    pub name: Ident,
    /// Default value `= expr` (optional parameters with defaults).
    pub default: Option<Expr>,
    pub span: Span,
}

/// A struct / header / header_union field.
#[derive(Clone, Debug)]
pub struct Field {
    pub annotations: Vec<Annotation>,
    pub ty: Type,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Decl {
    Const(ConstDecl),
    /// Variable declaration (controls, parsers, blocks; also accepted at top
    /// level for sema to reject).
    Var(VarDecl),
    Header(StructDecl),
    HeaderUnion(StructDecl),
    Struct(StructDecl),
    /// `enum E { A, B }` and serializable `enum bit<8> E { A = 1, B = 2 }`.
    Enum(EnumDecl),
    /// `typedef T N;` and `type T N;`
    Typedef(TypedefDecl),
    /// `error { A, B }` (members added to the single `error` type).
    Error(NameListDecl),
    /// `match_kind { exact, lpm }`
    MatchKind(NameListDecl),
    /// `extern Name<T> { constructors and methods }`
    ExternObject(ExternDecl),
    /// `extern R f<T>(params);`
    ExternFunction(FunctionProto),
    /// `parser P<T>(params);`
    ParserType(TypeDeclHeader),
    /// `control C<T>(params);`
    ControlType(TypeDeclHeader),
    /// `package Pkg<T>(params);`
    PackageType(TypeDeclHeader),
    Parser(ParserDecl),
    Control(ControlDecl),
    /// `T(args) name;` / `T<...>(args) name = { ... };`
    Instantiation(Instantiation),
    /// `R f<T>(params) { body }`
    Function(FunctionDecl),
    Action(ActionDecl),
    Table(TableDecl),
    /// `value_set<T>(size) name;`
    ValueSet(ValueSetDecl),
}

impl Decl {
    /// The declared name.
    pub fn name(&self) -> &Ident {
        match self {
            Decl::Const(d) => &d.name,
            Decl::Var(d) => &d.name,
            Decl::Header(d) | Decl::HeaderUnion(d) | Decl::Struct(d) => &d.name,
            Decl::Enum(d) => &d.name,
            Decl::Typedef(d) => &d.name,
            Decl::Error(d) | Decl::MatchKind(d) => &d.keyword,
            Decl::ExternObject(d) => &d.name,
            Decl::ExternFunction(d) => &d.name,
            Decl::ParserType(d) | Decl::ControlType(d) | Decl::PackageType(d) => &d.name,
            Decl::Parser(d) => &d.header.name,
            Decl::Control(d) => &d.header.name,
            Decl::Instantiation(d) => &d.name,
            Decl::Function(d) => &d.proto.name,
            Decl::Action(d) => &d.name,
            Decl::Table(d) => &d.name,
            Decl::ValueSet(d) => &d.name,
        }
    }

    /// Span of the whole declaration.
    pub fn span(&self) -> Span {
        match self {
            Decl::Const(d) => d.span,
            Decl::Var(d) => d.span,
            Decl::Header(d) | Decl::HeaderUnion(d) | Decl::Struct(d) => d.span,
            Decl::Enum(d) => d.span,
            Decl::Typedef(d) => d.span,
            Decl::Error(d) | Decl::MatchKind(d) => d.span,
            Decl::ExternObject(d) => d.span,
            Decl::ExternFunction(d) => d.span,
            Decl::ParserType(d) | Decl::ControlType(d) | Decl::PackageType(d) => d.span,
            Decl::Parser(d) => d.span,
            Decl::Control(d) => d.span,
            Decl::Instantiation(d) => d.span,
            Decl::Function(d) => d.span,
            Decl::Action(d) => d.span,
            Decl::Table(d) => d.span,
            Decl::ValueSet(d) => d.span,
        }
    }
}

/// The identity of a declaration for as long as its AST lives: its span. Spans index the
/// (preprocessed) source text, and the declarations of one list (a program's, a parser's or a
/// control's locals) are parsed one after another, each from its first token to its last, so
/// their spans are non-empty and disjoint, and a nested declaration lies strictly inside its
/// parent's. `tests/corpus.rs` checks this on every program of the project. Later passes key
/// what they know about a declaration by it (not by the node's address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    file: u32,
    lo: u32,
    hi: u32,
}

impl NodeId {
    /// The id of the declaration spanning `span`.
    pub fn of(span: Span) -> NodeId {
        NodeId {
            file: span.file.0,
            lo: span.lo,
            hi: span.hi,
        }
    }
}

impl Decl {
    /// This declaration's identity (the same as that of the `ControlDecl`, `FunctionDecl`, ...
    /// it holds).
    pub fn id(&self) -> NodeId {
        NodeId::of(self.span())
    }
}

#[derive(Clone, Debug)]
pub struct ConstDecl {
    pub annotations: Vec<Annotation>,
    pub ty: Type,
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub annotations: Vec<Annotation>,
    pub ty: Type,
    pub name: Ident,
    pub init: Option<Expr>,
    pub span: Span,
}

/// `header`, `header_union` and `struct` declarations.
#[derive(Clone, Debug)]
pub struct StructDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    /// Generic structs/headers (`struct S<T> { T f; }`).
    pub type_params: Vec<Ident>,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct EnumMember {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    /// Present (and required) for serializable enums.
    pub value: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub annotations: Vec<Annotation>,
    /// Underlying type of a serializable enum (`enum bit<8> E`).
    pub repr: Option<Type>,
    pub name: Ident,
    pub members: Vec<EnumMember>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypedefTarget {
    Type(Type),
    /// `typedef struct S { ... } N;` (a derived type declaration).
    Decl(Box<Decl>),
}

#[derive(Clone, Debug)]
pub struct TypedefDecl {
    pub annotations: Vec<Annotation>,
    /// True for `type T N;` (a new type), false for `typedef`.
    pub is_newtype: bool,
    pub target: TypedefTarget,
    pub name: Ident,
    pub span: Span,
}

/// `error { ... }` / `match_kind { ... }`.
#[derive(Clone, Debug)]
pub struct NameListDecl {
    /// The `error` / `match_kind` keyword itself.
    pub keyword: Ident,
    pub members: Vec<Ident>,
    pub span: Span,
}

/// Header of a function / method / extern function: `R name<T>(params)`.
#[derive(Clone, Debug)]
pub struct FunctionProto {
    pub annotations: Vec<Annotation>,
    pub ret: Type,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExternMember {
    /// `Name(params);` (may be generic: `Name<T>(params);` is not in the
    /// spec; type params are those of the extern).
    Constructor {
        annotations: Vec<Annotation>,
        name: Ident,
        params: Vec<Param>,
        span: Span,
    },
    /// `R m<T>(params);` or `abstract R m(params);`
    Method { is_abstract: bool, proto: FunctionProto },
}

#[derive(Clone, Debug)]
pub struct ExternDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub members: Vec<ExternMember>,
    pub span: Span,
}

/// `parser`/`control`/`package` type header: `annotations kw Name<T>(params)`.
#[derive(Clone, Debug)]
pub struct TypeDeclHeader {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ParserDecl {
    /// Name, type parameters and apply parameters.
    pub header: TypeDeclHeader,
    pub ctor_params: Vec<Param>,
    /// Constants, variables, instantiations, value sets.
    pub locals: Vec<Decl>,
    pub states: Vec<ParserState>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ParserState {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub stmts: Vec<Stmt>,
    /// None when the state has no `transition` (implicitly `reject`).
    pub transition: Option<Transition>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Transition {
    /// `transition next;` (including `accept` / `reject`).
    Direct { state: PathName, span: Span },
    /// `transition select(exprs) { cases }`
    Select {
        exprs: Vec<Expr>,
        cases: Vec<SelectCase>,
        span: Span,
    },
}

#[derive(Clone, Debug)]
pub struct SelectCase {
    pub keyset: Keyset,
    pub state: PathName,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ControlDecl {
    pub header: TypeDeclHeader,
    pub ctor_params: Vec<Param>,
    /// Constants, variables, instantiations, actions, tables, functions.
    pub locals: Vec<Decl>,
    pub apply: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Instantiation {
    pub annotations: Vec<Annotation>,
    /// The instantiated type, possibly specialized (`Register<bit<32>>`).
    pub ty: Type,
    pub args: Vec<Argument>,
    pub name: Ident,
    /// `= { ... }` object initializer: implementations of abstract methods
    /// (`Decl::Function`) and nested instantiations.
    pub initializer: Option<Vec<Decl>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FunctionDecl {
    pub proto: FunctionProto,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ActionDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ValueSetDecl {
    pub annotations: Vec<Annotation>,
    pub elem_ty: Type,
    pub size: Expr,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TableDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub properties: Vec<TableProperty>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TableProperty {
    pub annotations: Vec<Annotation>,
    /// `const` prefix (`const default_action = ...`, `const entries = ...`).
    pub is_const: bool,
    pub kind: TablePropertyKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TablePropertyKind {
    /// `key = { e : match_kind; ... }`
    Key(Vec<KeyElement>),
    /// `actions = { a; b(1); ... }`
    Actions(Vec<ActionRef>),
    /// `entries = { ... }` (const or not, see `TableProperty::is_const`).
    Entries(Vec<Entry>),
    /// Any other `name = expr;` property: `default_action`, `size`,
    /// `implementation`, `counters`, `meters`, `support_timeout`, ...
    /// (`default_action = a(1)` is an `ExprKind::Call` on the action name).
    Other { name: Ident, value: Expr },
}

#[derive(Clone, Debug)]
pub struct KeyElement {
    pub annotations: Vec<Annotation>,
    pub expr: Expr,
    pub match_kind: PathName,
    pub span: Span,
}

/// An action in an `actions` list or a table entry: `a` or `a(args)`.
#[derive(Clone, Debug)]
pub struct ActionRef {
    pub annotations: Vec<Annotation>,
    pub name: PathName,
    /// None when written without parentheses.
    pub args: Option<Vec<Argument>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub annotations: Vec<Annotation>,
    /// Per-entry `const` (P4_16 v1.2.4 non-const `entries` with const items).
    pub is_const: bool,
    /// `priority = N :` prefix.
    pub priority: Option<Expr>,
    pub keyset: Keyset,
    pub action: ActionRef,
    pub span: Span,
}

macro_rules! node_ids {
    ($($t:ty),*) => {$(
        impl $t {
            /// This declaration's identity ([`NodeId`]).
            pub fn id(&self) -> NodeId {
                NodeId::of(self.span)
            }
        }
    )*};
}
node_ids!(
    ConstDecl,
    ParserDecl,
    ControlDecl,
    FunctionDecl,
    ActionDecl,
    Instantiation
);

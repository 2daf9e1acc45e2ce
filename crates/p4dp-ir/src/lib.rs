//! p4dp's one typed IR.
//!
//! A [`Program`] is what semantic analysis (`p4dp-sema`) produces from a P4_16 program and what the back
//! ends (`p4dp-cgen`: C code and P4Info) consume. Its meaning:
//!
//! * **Resolved and typed.** Every name is resolved to an arena handle ([`Id`]); every expression carries
//!   its [`TypeId`]; every width is known. There is no `int` (infinite-precision) type left: sema gives
//!   every constant a width. Generic functions and externs are instantiated (type arguments explicit).
//! * **Elaborated.** Each instance of a parser or control (e.g. a control `C` instantiated twice inside
//!   `ingress`) is its own [`Control`]/[`Parser`], with constructor parameters already substituted as
//!   constants. Top-level actions used by a control are copied into that control. `main`'s blocks are in
//!   [`Package`].
//! * **Pure expressions.** An [`Expr`] has no side effects and calls nothing. Every call (action,
//!   function, extern method, sub-control/sub-parser apply, table apply, header builtins) is a
//!   [`Stmt`]; sema hoists calls out of expressions into temporaries in the specification's
//!   left-to-right evaluation order, and lowers short-circuit operators and `?:` containing calls into
//!   `if` statements. Copy-in/copy-out is the back end's job: [`Arg`] says which direction each argument
//!   has; lvalue arguments are evaluated once by sema (dynamic indices hoisted into temporaries).
//! * **Variables live in their owner.** A [`Control`], [`Parser`] or [`Function`] owns an arena of
//!   [`Var`]s: apply parameters, local variables, temporaries, and (for controls) the parameters and
//!   locals of the control's actions. No recursion exists in P4, so every variable has exactly one
//!   storage slot per owner instance.
//! * **Validated before emission.** Back ends take a [`ValidProgram`], which only [`validate`] produces.
//! * **One loop form.** P4_16 `for` loops (both forms) are [`Stmt::Loop`]: repeat { `pre`; leave if
//!   `cond` is false; `body`; `update` }, with [`Stmt::Break`]/[`Stmt::Continue`] referring to the
//!   innermost enclosing loop (`Continue` goes on with `update`). Sema lowers `for (T x in stack)` and
//!   `for (T x in lo .. hi)` to an index/counter loop.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

pub use num_bigint::BigUint;

pub mod analysis;
mod extern_kind;
pub mod print;
pub mod validate;
pub use extern_kind::{ExternKind, MeterType, SelectorSizing, SizeSemantics};
pub use validate::{validate, ValidProgram, ValidationError};

// ---------------------------------------------------------------------------------------------
// Arenas and handles

/// A typed index into an [`Arena`].
pub struct Id<T> {
    index: u32,
    _marker: PhantomData<fn() -> T>,
}
impl<T> Id<T> {
    pub fn new(index: usize) -> Self {
        Id {
            index: index as u32,
            _marker: PhantomData,
        }
    }
    pub fn index(self) -> usize {
        self.index as usize
    }
}
impl<T> Clone for Id<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Id<T> {}
impl<T> PartialEq for Id<T> {
    fn eq(&self, o: &Self) -> bool {
        self.index == o.index
    }
}
impl<T> Eq for Id<T> {}
impl<T> std::hash::Hash for Id<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.index.hash(h)
    }
}
impl<T> PartialOrd for Id<T> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Id<T> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.index.cmp(&o.index)
    }
}
impl<T> fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A growable store of `T`s addressed by [`Id<T>`].
#[derive(Debug, Clone)]
pub struct Arena<T> {
    items: Vec<T>,
}
impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { items: Vec::new() }
    }
}
impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn alloc(&mut self, v: T) -> Id<T> {
        self.items.push(v);
        Id::new(self.items.len() - 1)
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (Id<T>, &T)> {
        self.items.iter().enumerate().map(|(i, v)| (Id::new(i), v))
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Id<T>, &mut T)> {
        self.items.iter_mut().enumerate().map(|(i, v)| (Id::new(i), v))
    }
    pub fn ids(&self) -> impl Iterator<Item = Id<T>> {
        (0..self.items.len()).map(Id::new)
    }
}
impl<T> std::ops::Index<Id<T>> for Arena<T> {
    type Output = T;
    fn index(&self, id: Id<T>) -> &T {
        &self.items[id.index()]
    }
}
impl<T> std::ops::IndexMut<Id<T>> for Arena<T> {
    fn index_mut(&mut self, id: Id<T>) -> &mut T {
        &mut self.items[id.index()]
    }
}

/// A source location: file index (as numbered by the front end's source map) and byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: u32,
    pub lo: u32,
    pub hi: u32,
}

// ---------------------------------------------------------------------------------------------
// Types

pub type TypeId = Id<Type>;

/// A P4 type after resolution. Types are interned in [`TypeTable`]: equal types have equal ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Bool,
    /// `bit<W>`, unsigned. W may be 0..=2^16 (the back end documents what it supports).
    Bit(u32),
    /// `int<W>`, two's complement, W >= 1.
    Int(u32),
    /// `varbit<W>`: W is the maximum width.
    Varbit(u32),
    /// The `error` type; values are indices into [`Program::errors`].
    Error,
    /// A string (only as an argument of `log_msg` and similar externs).
    String,
    /// `match_kind` values (only inside annotations/tables; kept for completeness).
    MatchKind,
    /// A non-serializable enum; values are member indices.
    Enum {
        name: String,
        members: Vec<String>,
    },
    /// A serializable enum `enum bit<W> E { ... }`: values are of the underlying type.
    SerEnum {
        name: String,
        underlying: TypeId,
        members: Vec<(String, Value)>,
    },
    Header(StructType),
    HeaderUnion(StructType),
    Struct(StructType),
    /// A header stack `elem[size]` (elem is a header or header union type).
    Stack {
        elem: TypeId,
        size: u32,
    },
    /// `tuple<...>` and the type of list expressions.
    Tuple(Vec<TypeId>),
    /// An extern object type used as a parameter type (e.g. `packet_in`, `packet_out`), with its
    /// type arguments.
    Extern {
        name: String,
        args: Vec<TypeId>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructType {
    pub name: String,
    pub fields: Vec<Field>,
    pub annotations: Vec<Annotation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: TypeId,
    pub annotations: Vec<Annotation>,
}

/// Interned types.
#[derive(Debug, Clone, Default)]
pub struct TypeTable {
    arena: Arena<Type>,
    map: HashMap<Type, TypeId>,
}
impl TypeTable {
    pub fn intern(&mut self, t: Type) -> TypeId {
        if let Some(id) = self.map.get(&t) {
            return *id;
        }
        let id = self.arena.alloc(t.clone());
        self.map.insert(t, id);
        id
    }
    pub fn get(&self, id: TypeId) -> &Type {
        &self.arena[id]
    }
    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &Type)> {
        self.arena.iter()
    }
    pub fn len(&self) -> usize {
        self.arena.len()
    }
    pub fn is_empty(&self) -> bool {
        self.arena.is_empty()
    }
    /// The width in bits of a fixed-width scalar (`bit`, `int`, `bool` = 1, serializable enum =
    /// underlying width); `None` for anything else.
    pub fn scalar_width(&self, id: TypeId) -> Option<u32> {
        match self.get(id) {
            Type::Bool => Some(1),
            Type::Bit(w) | Type::Int(w) => Some(*w),
            Type::SerEnum { underlying, .. } => self.scalar_width(*underlying),
            _ => None,
        }
    }
}
impl std::ops::Index<TypeId> for TypeTable {
    type Output = Type;
    fn index(&self, id: TypeId) -> &Type {
        self.get(id)
    }
}

// ---------------------------------------------------------------------------------------------
// Values

/// A compile-time constant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    /// A `bit<width>`/`int<width>`/serializable-enum value: `bits` holds the two's complement
    /// representation, always `< 2^width`.
    Bits {
        width: u32,
        signed: bool,
        bits: BigUint,
    },
    /// An `error` member (index into [`Program::errors`]).
    Error(u32),
    /// A member of a non-serializable enum (member index).
    Enum(u32),
    String(String),
    /// A struct, header (`valid` + fields), union or tuple value, fields in declaration order.
    Aggregate {
        valid: Option<bool>,
        fields: Vec<Value>,
    },
}

// ---------------------------------------------------------------------------------------------
// Expressions

/// A pure, typed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: TypeId,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Const(Value),
    /// A variable of the enclosing owner (control, parser or function).
    Var(VarId),
    /// Member `index` of a struct, header or header union.
    Field(Box<Expr>, u32),
    /// Element of a header stack. Reads out of range give an unspecified value of the element
    /// type; writes out of range are ignored (P4_16 spec).
    StackElem(Box<Expr>, Box<Expr>),
    /// The `nextIndex` of a header stack, as `bit<32>`. An lvalue (sema lowers `.next`, `.last`,
    /// `push_front`, `pop_front` in terms of it).
    StackNextIndex(Box<Expr>),
    /// `e[hi:lo]`; an lvalue when `e` is.
    Slice(Box<Expr>, u32, u32),
    /// `a ++ b`.
    Concat(Box<Expr>, Box<Expr>),
    /// A cast to `self.ty` (only casts the specification allows).
    Cast(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// Both operands have the type the operator needs (sema inserts casts), except shifts, whose
    /// right operand is any unsigned type; a shift by >= width gives 0 (or sign bits for `int >>`).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b` (all pure, so evaluating both is fine).
    Mux(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `h.isValid()` for a header; for a header union: any member valid.
    IsValid(Box<Expr>),
    /// A list/struct/header/tuple expression with one element per field of `self.ty`, in field
    /// order. A header built this way is valid.
    List(Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// Two's complement negation (`-x`), wrapping.
    Neg,
    /// `~x`.
    BitNot,
    /// `!b`.
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Only with constant positive right operand for `bit`, or as the spec allows.
    Div,
    Mod,
    AddSat,
    SubSat,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    /// Equality, also on headers, structs, tuples (valid bits and fields).
    Eq,
    Ne,
    /// Ordered comparisons are signed for `int<W>`, unsigned for `bit<W>`.
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// The operator as P4 source spells it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::AddSat => "|+|",
            BinOp::SubSat => "|-|",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Statements

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `dst = src`; `dst` is an lvalue expression, same type as `src`. Assigning to a field of an
    /// invalid header is allowed (it writes the field; the header stays invalid).
    Assign {
        dst: Expr,
        src: Expr,
        span: Span,
    },
    If {
        cond: Expr,
        then_: Block,
        else_: Block,
        span: Span,
    },
    /// Switch on a scalar value (bit/int/serializable enum/enum/error or an `action_run` variable).
    /// Cases are tested in order; `values` of one case may hold several labels (fallthrough
    /// labels are merged by sema).
    Switch {
        expr: Expr,
        cases: Vec<SwitchCase>,
        default: Option<Block>,
        span: Span,
    },
    Call(Call),
    /// Apply a table. If `hit` is given, it receives `bool` hit. If `action_run` is given it
    /// receives the [`ActionId`] index (as `bit<32>`) of the action that ran.
    ApplyTable {
        table: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
        span: Span,
    },
    /// Leave the whole top-level control/parser block (P4 `exit`).
    Exit {
        span: Span,
    },
    /// Return from the enclosing action, function, or control apply body.
    Return {
        value: Option<Expr>,
        span: Span,
    },
    /// In a parser state: `verify(cond, err)`: if `cond` is false, set the parser error to `err`
    /// and go to `reject`.
    Verify {
        cond: Expr,
        error: Expr,
        span: Span,
    },
    Block(Block),
    /// A loop: repeat { run `pre` (the statements computing `cond`, e.g. hoisted calls); leave the
    /// loop if `cond` (`bool`) is false; run `body`; run `update` }.
    Loop {
        pre: Block,
        cond: Expr,
        body: Block,
        update: Block,
        span: Span,
    },
    /// Leave the innermost enclosing [`Stmt::Loop`] (allowed in its `body` and `update`), or, outside
    /// any, the `Foreach` loop whose loop body ([`Action::loop_body`]) this is.
    Break {
        span: Span,
    },
    /// Go on with the `update` of the innermost enclosing [`Stmt::Loop`] (allowed in its `body`), or,
    /// outside any, end this iteration of the `Foreach` loop whose loop body this is.
    Continue {
        span: Span,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCase {
    pub values: Vec<Value>,
    pub body: Block,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub target: CallTarget,
    pub type_args: Vec<TypeId>,
    pub args: Vec<Arg>,
    /// Where the return value goes (an lvalue), if the call returns something that is used.
    pub ret: Option<Expr>,
    pub span: Span,
}

/// Calls `f` on every call statement of `b`, nested blocks included (if/switch/block/loop).
pub fn for_each_call<'b>(b: &'b Block, f: &mut dyn FnMut(&'b Call)) {
    for s in b {
        match s {
            Stmt::Call(c) => f(c),
            Stmt::If { then_, else_, .. } => {
                for_each_call(then_, f);
                for_each_call(else_, f);
            }
            Stmt::Switch { cases, default, .. } => {
                for c in cases {
                    for_each_call(&c.body, f);
                }
                if let Some(d) = default {
                    for_each_call(d, f);
                }
            }
            Stmt::Block(x) => for_each_call(x, f),
            Stmt::Loop { pre, body, update, .. } => {
                for_each_call(pre, f);
                for_each_call(body, f);
                for_each_call(update, f);
            }
            _ => {}
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallTarget {
    /// Call an action of the enclosing control directly. `args` covers all its parameters.
    Action(ActionId),
    Function(FunctionId),
    /// Apply a sub-control instance.
    Control(ControlId),
    /// Apply a sub-parser instance (in a parser state).
    Parser(ParserId),
    /// A method of an extern object: an instance, or a parameter of extern type (`packet_in`
    /// `extract`/`lookahead`/`advance`/`length`, `packet_out` `emit`).
    ExternMethod {
        obj: ExternRef,
        method: String,
    },
    /// An extern function of the architecture (`mark_to_drop`, `hash`, `verify_checksum`, ...).
    ExternFunction(String),
    /// `h.setValid()`: args = [InOut(header lvalue)].
    SetValid,
    /// `h.setInvalid()`.
    SetInvalid,
    /// `s.push_front(n)` / `s.pop_front(n)`: args = [InOut(stack lvalue)], count is the constant.
    PushFront(u32),
    PopFront(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExternRef {
    Instance(ExternId),
    /// A parameter (of [`Type::Extern`] type) of the enclosing owner.
    Param(VarId),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    In(Expr),
    /// An `out` argument: an lvalue expression.
    Out(Expr),
    InOut(Expr),
}

// ---------------------------------------------------------------------------------------------
// Variables and owners

pub type VarId = Id<Var>;

#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: TypeId,
    pub kind: VarKind,
    /// A directionless action parameter (`ActionParam(_, Direction::None)`) that is a reference
    /// into the matched table entry's action data rather than a copy (`@__ref`, data-plane
    /// writes): writes to it change the entry. False for every other variable.
    pub entry_ref: bool,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    None,
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// An apply (or function) parameter of the owner.
    Param(Direction),
    /// A local variable (declared in P4) or a compiler temporary. Locals start at zero (as BMv2
    /// does; headers start invalid).
    Local,
    /// A parameter of one of the owner's actions.
    ActionParam(ActionId, Direction),
}

pub type ControlId = Id<Control>;
pub type ParserId = Id<Parser>;
pub type FunctionId = Id<Function>;
pub type ActionId = Id<Action>;
pub type TableId = Id<Table>;
pub type ExternId = Id<ExternInstance>;
pub type ValueSetId = Id<ValueSet>;
pub type StateId = Id<ParserState>;

/// One elaborated control instance.
#[derive(Debug, Clone)]
pub struct Control {
    /// The control type's name, e.g. `MyIngress`.
    pub type_name: String,
    /// The instance's fully-qualified control-plane path, e.g. `ingress` or `ingress.c`.
    pub path: String,
    pub params: Vec<VarId>,
    pub vars: Arena<Var>,
    pub actions: Vec<ActionId>,
    pub tables: Vec<TableId>,
    pub externs: Vec<ExternId>,
    /// Local declarations' initializers first, then the apply body.
    pub body: Block,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

/// One elaborated parser instance.
#[derive(Debug, Clone)]
pub struct Parser {
    pub type_name: String,
    pub path: String,
    pub params: Vec<VarId>,
    pub vars: Arena<Var>,
    pub externs: Vec<ExternId>,
    pub value_sets: Vec<ValueSetId>,
    /// Statements run once before the `start` state (local declarations' initializers).
    pub init: Block,
    pub states: Arena<ParserState>,
    pub start: StateId,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ParserState {
    pub name: String,
    pub body: Block,
    pub transition: Transition,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    Goto(Target),
    /// No matching case: the parser rejects with `error.NoMatch`.
    Select {
        keys: Vec<Expr>,
        cases: Vec<SelectCase>,
        span: Span,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Accept,
    Reject,
    State(StateId),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelectCase {
    /// One keyset per key (a single `default`/`_` is expanded to one per key).
    pub keysets: Vec<KeySet>,
    pub next: Target,
}

#[derive(Debug, Clone, PartialEq)]
pub enum KeySet {
    /// `default` or `_`.
    Any,
    Value(Value),
    /// `value &&& mask`.
    Mask(Value, Value),
    /// `lo .. hi` inclusive.
    Range(Value, Value),
    /// A value set: for a struct element type of n fields it covers this key and the next
    /// n - 1 keys (whose keysets are `Any`).
    ValueSet(ValueSetId),
}

/// One field of a value set member.
#[derive(Debug, Clone)]
pub struct ValueSetField {
    pub name: String,
    pub ty: TypeId,
    /// How a member's field matches the key (`@match(...)` on the struct field; exact without).
    pub kind: VsetMatch,
}

/// The match kinds a value set field may have (p4dp keeps a value and a mask per field, so a
/// range is not one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VsetMatch {
    Exact,
    Ternary,
    Lpm,
    Optional,
}

#[derive(Debug, Clone)]
pub struct ValueSet {
    pub name: String,
    pub fq_name: String,
    /// Element type (a scalar or a struct of scalars).
    pub ty: TypeId,
    /// The fields of a member: the struct's fields in order, or the scalar element alone.
    pub fields: Vec<ValueSetField>,
    pub size: u32,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub params: Vec<VarId>,
    pub ret: TypeId,
    pub vars: Arena<Var>,
    pub body: Block,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Action {
    /// Local name, e.g. `set_port`.
    pub name: String,
    /// Control-plane name (with `@name` applied), e.g. `ingress.set_port` or `NoAction`.
    pub fq_name: String,
    pub owner: ControlId,
    /// All parameters in order; each is a var of `owner` with `VarKind::ActionParam`.
    /// Directionless parameters are the control-plane action data.
    pub params: Vec<VarId>,
    pub body: Block,
    pub annotations: Vec<Annotation>,
    /// A loop body of an rtc.p4 `Foreach` (named by its `@methods`): `break`/`continue` outside
    /// any `for` loop of the body leave the Foreach loop / its iteration.
    pub loop_body: bool,
    pub span: Span,
}

/// Capacity of a table without a `size` property (the runtime's `P4DP_TABLE_DEFAULT_SIZE`).
pub const DEFAULT_TABLE_SIZE: u64 = 1024;

#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    /// Control-plane name, e.g. `ingress.ipv4_lpm`.
    pub fq_name: String,
    pub owner: ControlId,
    pub keys: Vec<TableKey>,
    pub actions: Vec<TableAction>,
    pub default_action: DefaultAction,
    /// `entries`/`const entries` in source order.
    pub entries: Vec<ConstEntry>,
    /// True for `const entries` (the control plane may not change them).
    pub entries_const: bool,
    /// Capacity in entries: 1 to `u32::MAX` (what the runtime accepts). `None`: not declared and
    /// [`DEFAULT_TABLE_SIZE`] holds the table's initial entries (sema sets it to their number
    /// when they are more).
    pub size: Option<u64>,
    /// `counters = ...`/`meters = ...`/`implementation = ...` and other extern-valued properties.
    pub direct_counter: Option<ExternId>,
    pub direct_meter: Option<ExternId>,
    pub implementation: Option<ExternId>,
    /// `add_on_miss = true` (PNA): the table's default action may insert the missed key
    /// (`add_entry`).
    pub add_on_miss: bool,
    /// Entry aging (`support_timeout`, `idle_timeout_with_auto_delete`, `pna_idle_timeout`).
    pub idle_timeout: IdleTimeout,
    /// `@entry_lock`: each action of the table runs holding the matched entry's lock.
    pub entry_lock: bool,
    /// How entries are stored (`@storage`).
    pub storage: Storage,
    /// Every other property, by name (e.g. `largest_priority_wins`), as a constant.
    pub other_properties: Vec<(String, Value)>,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableKey {
    pub expr: Expr,
    pub match_kind: MatchKind,
    /// Control-plane name: `@name` if given, else the source text of the key expression
    /// (`hdr.ipv4.dstAddr`; `hdr.h.isValid()` for validity keys).
    pub name: String,
    pub annotations: Vec<Annotation>,
}

/// A match kind the runtime implements for one field of a table key (the ABI's
/// `enum p4dp_match_kind`, P4Runtime's match types). The one definition for the IR, the
/// runtime bindings (`p4dp_rt::MatchKind`) and the STF runner (`p4dp_stf::MatchKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyMatch {
    Exact,
    Lpm,
    Ternary,
    Range,
    Optional,
}

impl KeyMatch {
    /// The name P4 source spells it with.
    pub fn name(self) -> &'static str {
        match self {
            KeyMatch::Exact => "exact",
            KeyMatch::Lpm => "lpm",
            KeyMatch::Ternary => "ternary",
            KeyMatch::Range => "range",
            KeyMatch::Optional => "optional",
        }
    }

    /// Whether entries with keys of this kind need a priority (several may match one key).
    pub fn needs_priority(self) -> bool {
        matches!(self, KeyMatch::Ternary | KeyMatch::Range | KeyMatch::Optional)
    }
}

/// How a table key matches: a match kind of core.p4 and the architectures, or one the program
/// declares itself (`match_kind { ... }`), which no back end knows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// A match kind the runtime implements.
    Key(KeyMatch),
    /// An action selector's key: hashed to pick a group member, not matched.
    Selector,
    Other(String),
}

impl MatchKind {
    /// The match kind named `name` in P4 source.
    pub fn from_name(name: &str) -> MatchKind {
        match name {
            "exact" => MatchKind::Key(KeyMatch::Exact),
            "lpm" => MatchKind::Key(KeyMatch::Lpm),
            "ternary" => MatchKind::Key(KeyMatch::Ternary),
            "range" => MatchKind::Key(KeyMatch::Range),
            "optional" => MatchKind::Key(KeyMatch::Optional),
            "selector" => MatchKind::Selector,
            other => MatchKind::Other(other.to_string()),
        }
    }

    /// The name P4 source spells it with.
    pub fn as_str(&self) -> &str {
        match self {
            MatchKind::Key(k) => k.name(),
            MatchKind::Selector => "selector",
            MatchKind::Other(n) => n,
        }
    }

    /// Whether entries with keys of this kind need a priority (several may match one key).
    pub fn needs_priority(&self) -> bool {
        matches!(self, MatchKind::Key(k) if k.needs_priority())
    }
}

impl fmt::Display for MatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a table's entries are stored (`@storage("static" | "dynamic" | "auto")`; see
/// ARCHITECTURE.md "Entry storage and memory model"). Only tables whose keys are all exact use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    /// The runtime picks the smaller of the two by its memory model.
    #[default]
    Auto,
    /// One slot per entry of the table's capacity, allocated up front.
    Static,
    /// One allocation per entry.
    Dynamic,
}

/// Entry aging of a table: what happens to an entry no packet hit for its timeout.
/// (`support_timeout = true` and PNA's `pna_idle_timeout = NOTIFY_CONTROL` notify the control
/// plane; `idle_timeout_with_auto_delete = true` and `pna_idle_timeout = AUTO_DELETE` delete it;
/// a table may ask for both.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IdleTimeout {
    pub notify: bool,
    pub auto_delete: bool,
}

impl IdleTimeout {
    /// Whether entries age at all (hits must refresh their last-hit time).
    pub fn any(self) -> bool {
        self.notify || self.auto_delete
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableAction {
    pub action: ActionId,
    /// One per action parameter: `Some` for directional parameters bound in the `actions` list
    /// (evaluated when the action runs), `None` for directionless (control-plane) parameters.
    pub bound: Vec<Option<Arg>>,
    /// e.g. `@tableonly`, `@defaultonly`.
    pub annotations: Vec<Annotation>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DefaultAction {
    pub action: ActionId,
    /// Values of the directionless parameters, in order.
    pub data: Vec<Value>,
    pub is_const: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConstEntry {
    /// One per table key.
    pub keys: Vec<KeySet>,
    pub action: ActionId,
    /// Values of the directionless parameters.
    pub data: Vec<Value>,
    /// Explicit `priority = N` or the order-derived priority sema computes (larger wins). Every
    /// entry has one ([`validate`] checks it); a back end may support only part of the range.
    pub priority: Option<i64>,
    pub span: Span,
}

/// An extern object instance (`counter`, `register<bit<32>>`, `Hash<bit<16>>`, ...).
#[derive(Debug, Clone)]
pub struct ExternInstance {
    /// The extern type's name as the source spells it (messages, the IR dump).
    pub type_name: String,
    /// What the extern is, decided once by sema when it creates the instance; back ends and
    /// analyses match on this, not on `type_name`.
    pub kind: ExternKind,
    pub name: String,
    /// Control-plane name, e.g. `ingress.port_counter`.
    pub fq_name: String,
    pub type_args: Vec<TypeId>,
    /// Constructor arguments, evaluated.
    pub ctor_args: Vec<Value>,
    pub annotations: Vec<Annotation>,
    /// Meters: the type their annotation chose (sema checks the annotations); two-rate
    /// three-colour for every other extern.
    pub meter_type: MeterType,
    /// Action selectors: their size semantics and group limits (sema checks the annotations);
    /// the default for every other extern.
    pub selector: SelectorSizing,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Annotation {
    pub name: String,
    /// Parsed arguments where they are expressions/strings (e.g. `@name("x")`, `@priority(3)`).
    pub args: Vec<AnnotationArg>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AnnotationArg {
    String(String),
    Int(i128),
    /// `key = value` (structured annotations).
    Kv(String, Box<AnnotationArg>),
    /// Anything else, as source text.
    Raw(String),
}

/// The architecture package `main` is an instance of.
#[derive(Debug, Clone)]
pub struct Package {
    /// `v1model`, `pna` or `rtc` (from the package type: `V1Switch`, `PNA_NIC`, ...).
    pub arch: String,
    pub type_name: String,
    /// The package's constructor arguments by parameter name, in order.
    pub blocks: Vec<(String, BlockRef)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockRef {
    Parser(ParserId),
    Control(ControlId),
}

/// A whole elaborated program.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub types: TypeTable,
    /// `error` members, in declaration order (index = code).
    pub errors: Vec<String>,
    pub match_kinds: Vec<String>,
    pub functions: Arena<Function>,
    pub actions: Arena<Action>,
    pub tables: Arena<Table>,
    pub externs: Arena<ExternInstance>,
    pub controls: Arena<Control>,
    pub parsers: Arena<Parser>,
    pub value_sets: Arena<ValueSet>,
    pub package: Option<Package>,
}

impl Program {
    /// The code of a named `error` member.
    pub fn error_code(&self, name: &str) -> Option<u32> {
        self.errors.iter().position(|e| e == name).map(|i| i as u32)
    }
}

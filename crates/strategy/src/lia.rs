//! Linear integer arithmetic written once and read two ways: evaluated on numbers (`i64`,
//! `bool`) by the exhaustive checkers, and built into SMT-LIB 2 terms ([`Term`]) for the proof
//! for every board size. The strategy's notions and conditions ([`crate::conditions`]) are
//! generic over [`Num`], so the two readings cannot drift apart.
//!
//! Owns: [`Num`], [`Truth`], [`Term`], [`Smt`] (the SMT-LIB text of a query).
//! Must never: multiply two unknowns (the proofs stay in linear arithmetic), or evaluate a
//! [`Term`] — a term is text for a solver, never a value.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::{Add, BitAnd, BitOr, Not, Sub};

/// An integer in one reading: a number, or a term over unknowns.
pub trait Num: Clone + Add<Output = Self> + Sub<Output = Self> {
    /// The truth values of the same reading.
    type B: Truth<Self>;
    /// A constant.
    fn lit(value: i64) -> Self;
    /// `self < other`.
    fn lt(&self, other: &Self) -> Self::B;
    /// `self ≤ other`.
    fn le(&self, other: &Self) -> Self::B;
    /// `self = other`.
    fn equals(&self, other: &Self) -> Self::B;
    /// `self ≠ other`.
    fn differs(&self, other: &Self) -> Self::B {
        !self.equals(other)
    }
    /// `self > other`.
    fn gt(&self, other: &Self) -> Self::B {
        other.lt(self)
    }
    /// `self ≥ other`.
    fn ge(&self, other: &Self) -> Self::B {
        other.le(self)
    }
    /// `self + value`.
    fn plus(&self, value: i64) -> Self {
        self.clone() + Self::lit(value)
    }
}

/// A truth value in one reading.
pub trait Truth<I>:
    Clone + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self>
{
    /// A constant.
    fn lit(value: bool) -> Self;
    /// `if self then a else b`.
    fn select(&self, a: I, b: I) -> I;
    /// `self ∧ rest()`, where numbers skip `rest` when `self` is false.
    fn and_then(self, rest: impl FnOnce() -> Self) -> Self;
    /// `self ∨ rest()`, where numbers skip `rest` when `self` is true.
    fn or_else(self, rest: impl FnOnce() -> Self) -> Self;
    /// `self → other`.
    fn implies(self, other: Self) -> Self {
        !self | other
    }
}

impl Num for i64 {
    type B = bool;
    fn lit(value: i64) -> i64 {
        value
    }
    fn lt(&self, other: &i64) -> bool {
        self < other
    }
    fn le(&self, other: &i64) -> bool {
        self <= other
    }
    fn equals(&self, other: &i64) -> bool {
        self == other
    }
}

impl Truth<i64> for bool {
    fn lit(value: bool) -> bool {
        value
    }
    fn select(&self, a: i64, b: i64) -> i64 {
        if *self {
            a
        } else {
            b
        }
    }
    fn and_then(self, rest: impl FnOnce() -> bool) -> bool {
        self && rest()
    }
    fn or_else(self, rest: impl FnOnce() -> bool) -> bool {
        self || rest()
    }
}

/// `|a|`.
pub fn abs<I: Num>(a: I) -> I {
    a.lt(&I::lit(0)).select(I::lit(0) - a.clone(), a)
}

/// `max(a, b)`.
pub fn max<I: Num>(a: I, b: I) -> I {
    a.lt(&b).select(b, a)
}

/// `|a − b|`.
pub fn distance<I: Num>(a: &I, b: &I) -> I {
    abs(a.clone() - b.clone())
}

/// `b` strictly between `a` and `c`.
pub fn between<I: Num>(a: &I, b: &I, c: &I) -> I::B {
    (a.lt(b) & b.lt(c)) | (c.lt(b) & b.lt(a))
}

/// Any of the values (false for none).
pub fn any<I: Num>(values: impl IntoIterator<Item = I::B>) -> I::B {
    values
        .into_iter()
        .fold(<I::B as Truth<I>>::lit(false), |a, b| a | b)
}

/// All of the values (true for none).
pub fn all<I: Num>(values: impl IntoIterator<Item = I::B>) -> I::B {
    values
        .into_iter()
        .fold(<I::B as Truth<I>>::lit(true), |a, b| a & b)
}

/// A node of a term: its operator (or leaf) and children, interned so that equal terms are one
/// node and the SMT-LIB text defines each once.
#[derive(Debug, PartialEq, Eq, Hash, Clone)]
enum Node {
    Number(i64),
    Constant(bool),
    IntVar(String),
    BoolVar(String),
    App(&'static str, Vec<u32>),
}

/// Which sort a node has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Int,
    Bool,
}

#[derive(Default)]
struct Interner {
    nodes: Vec<(Node, Sort)>,
    ids: HashMap<Node, u32>,
}

thread_local! {
    static TERMS: RefCell<Interner> = RefCell::new(Interner::default());
}

fn intern(node: Node, sort: Sort) -> u32 {
    TERMS.with(|t| {
        let mut t = t.borrow_mut();
        if let Some(&id) = t.ids.get(&node) {
            return id;
        }
        let id = u32::try_from(t.nodes.len()).expect("fewer than 2³² terms");
        t.nodes.push((node.clone(), sort));
        t.ids.insert(node, id);
        id
    })
}

fn node(id: u32) -> Node {
    TERMS.with(|t| t.borrow().nodes[id as usize].0.clone())
}

/// An integer term of linear arithmetic over named unknowns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Term(u32);

/// A Boolean term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Formula(u32);

impl Term {
    /// The unknown `name` (declared in the query's text).
    pub fn var(name: &str) -> Term {
        Term(intern(Node::IntVar(name.to_string()), Sort::Int))
    }

    fn number(&self) -> Option<i64> {
        match node(self.0) {
            Node::Number(v) => Some(v),
            _ => None,
        }
    }

    fn app(op: &'static str, args: Vec<u32>, sort: Sort) -> u32 {
        intern(Node::App(op, args), sort)
    }
}

impl Formula {
    /// The Boolean unknown `name`.
    pub fn var(name: &str) -> Formula {
        Formula(intern(Node::BoolVar(name.to_string()), Sort::Bool))
    }

    fn constant(&self) -> Option<bool> {
        match node(self.0) {
            Node::Constant(v) => Some(v),
            _ => None,
        }
    }
}

impl Add for Term {
    type Output = Term;
    fn add(self, other: Term) -> Term {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => Term::lit(a + b),
            (Some(0), _) => other,
            (_, Some(0)) => self,
            _ => Term(Term::app("+", vec![self.0, other.0], Sort::Int)),
        }
    }
}

impl Sub for Term {
    type Output = Term;
    fn sub(self, other: Term) -> Term {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => Term::lit(a - b),
            (_, Some(0)) => self,
            _ if self == other => Term::lit(0),
            _ => Term(Term::app("-", vec![self.0, other.0], Sort::Int)),
        }
    }
}

impl Num for Term {
    type B = Formula;
    fn lit(value: i64) -> Term {
        Term(intern(Node::Number(value), Sort::Int))
    }
    fn lt(&self, other: &Term) -> Formula {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => Formula::lit(a < b),
            _ if self == other => Formula::lit(false),
            _ => Formula(Term::app("<", vec![self.0, other.0], Sort::Bool)),
        }
    }
    fn le(&self, other: &Term) -> Formula {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => Formula::lit(a <= b),
            _ if self == other => Formula::lit(true),
            _ => Formula(Term::app("<=", vec![self.0, other.0], Sort::Bool)),
        }
    }
    fn equals(&self, other: &Term) -> Formula {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => Formula::lit(a == b),
            _ if self == other => Formula::lit(true),
            _ => {
                let (a, b) = (self.0.min(other.0), self.0.max(other.0));
                Formula(Term::app("=", vec![a, b], Sort::Bool))
            }
        }
    }
}

impl BitAnd for Formula {
    type Output = Formula;
    fn bitand(self, other: Formula) -> Formula {
        match (self.constant(), other.constant()) {
            (Some(false), _) | (_, Some(false)) => Formula::lit(false),
            (Some(true), _) => other,
            (_, Some(true)) => self,
            _ if self == other => self,
            _ => Formula(Term::app("and", vec![self.0, other.0], Sort::Bool)),
        }
    }
}

impl BitOr for Formula {
    type Output = Formula;
    fn bitor(self, other: Formula) -> Formula {
        match (self.constant(), other.constant()) {
            (Some(true), _) | (_, Some(true)) => Formula::lit(true),
            (Some(false), _) => other,
            (_, Some(false)) => self,
            _ if self == other => self,
            _ => Formula(Term::app("or", vec![self.0, other.0], Sort::Bool)),
        }
    }
}

impl Not for Formula {
    type Output = Formula;
    fn not(self) -> Formula {
        if let Some(v) = self.constant() {
            return Formula::lit(!v);
        }
        if let Node::App("not", args) = node(self.0) {
            return Formula(args[0]);
        }
        Formula(Term::app("not", vec![self.0], Sort::Bool))
    }
}

impl Truth<Term> for Formula {
    fn lit(value: bool) -> Formula {
        Formula(intern(Node::Constant(value), Sort::Bool))
    }
    fn select(&self, a: Term, b: Term) -> Term {
        match self.constant() {
            Some(true) => a,
            Some(false) => b,
            None if a == b => a,
            None => Term(Term::app("ite", vec![self.0, a.0, b.0], Sort::Int)),
        }
    }
    fn and_then(self, rest: impl FnOnce() -> Formula) -> Formula {
        match self.constant() {
            Some(false) => self,
            _ => self & rest(),
        }
    }
    fn or_else(self, rest: impl FnOnce() -> Formula) -> Formula {
        match self.constant() {
            Some(true) => self,
            _ => self | rest(),
        }
    }
}

/// How a query's text names its shared subterms: solvers differ in which they digest faster
/// (Z3 the equations, cvc5 the macros, by a factor of 5 to 50 on these queries); the two texts
/// are equisatisfiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Definitions {
    /// `(define-fun t () Int body)`.
    Macros,
    /// `(declare-const t Int) (assert (= t body))`.
    Equations,
}

/// The SMT-LIB 2 text of one satisfiability query: declarations, one definition per shared
/// subterm, and the assertions.
pub struct Smt {
    /// Lines before the definitions (comments).
    pub header: Vec<String>,
    assertions: Vec<Formula>,
}

impl Smt {
    /// An empty query with comment lines on top.
    pub fn new(header: Vec<String>) -> Smt {
        Smt {
            header,
            assertions: Vec::new(),
        }
    }

    /// Adds an assertion.
    pub fn assert(&mut self, f: Formula) {
        self.assertions.push(f);
    }

    /// The text: `set-logic QF_LIA`, declarations, definitions (as `define-fun` macros, or as
    /// unknowns with defining equations), assertions, `check-sat` and `get-value` of the
    /// unknowns named in `report` (in that order).
    pub fn text(&self, report: &[String], style: Definitions) -> String {
        let mut out = String::new();
        for line in &self.header {
            let _ = writeln!(out, "; {line}");
        }
        out.push_str("(set-logic QF_LIA)\n(set-option :produce-models true)\n");
        let mut order = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<(u32, bool)> =
            self.assertions.iter().rev().map(|f| (f.0, false)).collect();
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                order.push(id);
                continue;
            }
            if !seen.insert(id) {
                continue;
            }
            stack.push((id, true));
            if let Node::App(_, args) = node(id) {
                for &a in args.iter().rev() {
                    if !seen.contains(&a) {
                        stack.push((a, false));
                    }
                }
            }
        }
        let name = |id: u32| -> String {
            match node(id) {
                Node::Number(v) if v < 0 => format!("(- {})", -v),
                Node::Number(v) => v.to_string(),
                Node::Constant(v) => v.to_string(),
                Node::IntVar(s) | Node::BoolVar(s) => s,
                Node::App(..) => format!("t{id}"),
            }
        };
        for &id in &order {
            match node(id) {
                Node::IntVar(s) => {
                    let _ = writeln!(out, "(declare-const {s} Int)");
                }
                Node::BoolVar(s) => {
                    let _ = writeln!(out, "(declare-const {s} Bool)");
                }
                _ => {}
            }
        }
        for &id in &order {
            if let Node::App(op, args) = node(id) {
                let sort = TERMS.with(|t| t.borrow().nodes[id as usize].1);
                let sort = if sort == Sort::Int { "Int" } else { "Bool" };
                let args: Vec<String> = args.iter().map(|&a| name(a)).collect();
                let body = format!("({op} {})", args.join(" "));
                let _ = match style {
                    Definitions::Macros => writeln!(out, "(define-fun t{id} () {sort} {body})"),
                    Definitions::Equations => writeln!(
                        out,
                        "(declare-const t{id} {sort}) (assert (= t{id} {body}))"
                    ),
                };
            }
        }
        for f in &self.assertions {
            let _ = writeln!(out, "(assert {})", name(f.0));
        }
        out.push_str("(check-sat)\n");
        if !report.is_empty() {
            let _ = writeln!(out, "(get-value ({}))", report.join(" "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_terms_read_one_definition_alike() {
        fn f<I: Num>(a: I, b: I) -> I::B {
            between(&I::lit(0), &a, &b) & distance(&a, &b).le(&I::lit(2))
        }
        assert!(f(1_i64, 3));
        assert!(!f(1_i64, 4));
        let t = f(Term::var("a"), Term::var("b"));
        let mut smt = Smt::new(vec!["test".into()]);
        smt.assert(t);
        let text = smt.text(&["a".into(), "b".into()], Definitions::Macros);
        assert!(text.contains("(declare-const a Int)"), "{text}");
        assert!(text.contains("(check-sat)"), "{text}");
        // Constants fold: nothing about them reaches the text.
        assert_eq!(Term::lit(2) + Term::lit(3), Term::lit(5));
        assert_eq!(
            Formula::lit(true) & Term::var("a").lt(&Term::var("a")),
            Formula::lit(false)
        );
    }
}

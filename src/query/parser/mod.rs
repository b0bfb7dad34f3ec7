//! The query language: user text -> [`Query`].
//!
//! # Syntax
//!
//! | written | meaning |
//! |---|---|
//! | `deploy` | a term (raw text; the engine analyzes it) |
//! | `"dry run"` | a phrase; `"dry run"~2` allows slop 2 (max 100) |
//! | `depl*` | prefix term |
//! | `deploi~1`, `deploi~2` | fuzzy term; a bare `deploi~` means distance 1 |
//! | `+deploy` | required |
//! | `-draft`, `NOT draft` | excluded |
//! | `a AND b`, `a && b` | both required |
//! | `a OR b`, `a \|\| b` | either |
//! | `( ... )` | grouping |
//! | `title:deploy`, `title:"dry run"`, `title:(a b)` | field restriction (known fields only) |
//! | `deploy^2`, `"dry run"^1.5`, `(a b)^2` | boost (positive number) |
//!
//! Field names match the known fields exactly (case-sensitive); a field
//! restriction inside `title:( ... )` can be overridden per term.
//! Operators are uppercase only: `and`, `or`, `not` are ordinary words.
//! `!` is an ordinary character (agents paste code such as `!isValid`). A
//! `+`/`-` is an operator only at the start of a word and before text:
//! `C++`, `foo-bar`, `--release`, `-5` and `+1` are plain text. There are no
//! escapes; quote text to take it literally (`"title:x"`).
//!
//! ```
//! use memdex::query::parser::{parse_lenient, parse_strict};
//!
//! let fields = ["title", "text"];
//! let q = parse_lenient("title:deploy* friday OR weekend -\"dry run\"", &fields);
//! assert_eq!(q.to_string(), "(title:deploy* (?friday ?weekend) -\"dry run\")");
//! // Agents' raw text never fails in lenient mode...
//! assert_eq!(parse_lenient("see http://x.org (a AND", &fields).to_string(), "(see http://x.org a)");
//! // ...while strict mode says what is wrong and where.
//! let err = parse_strict("see http://x.org (a AND", &fields).unwrap_err();
//! assert_eq!(err.to_string().split(" (use").next().unwrap(),
//!     "invalid query at position 4: unknown field `http`; known fields: title, text");
//! ```
//!
//! # Precedence (tightest first)
//!
//! 1. prefixes and `NOT` (`-a AND b` is `(-a) AND b`; repeated negations
//!    cancel pairwise);
//! 2. `AND`;
//! 3. `OR`;
//! 4. juxtaposition: `a b AND c OR d` is `a ((b AND c) OR d)`, like web
//!    search engines, so `deploy friday OR weekend` requires `deploy` in AND
//!    mode. Juxtaposed clauses get [`Occur::Default`].
//!
//! Inside `OR` an operand keeps an explicit `+`/`-`/`NOT`, otherwise it is
//! `Should`; inside `AND` it is `Must` unless negated. A group with a single
//! juxtaposed member unwraps to that member (`((a))^2` is `a^2`); the whole
//! query unwraps the same way, so `deploy` parses to a bare Term and the
//! empty query to an empty Bool.
//!
//! # Lenient and strict
//!
//! [`parse_lenient`] never fails and never panics: malformed syntax degrades
//! to plain terms — an unclosed `"` is dropped, a stray `)` or dangling
//! `AND` is ignored, an unclosed `(` closes at the end, `foo:bar` with an
//! unknown field `foo` is the plain term `foo:bar`, bad modifier values are
//! dropped or clamped. [`parse_strict`] rejects those inputs with
//! [`Error::InvalidQuery`]; whenever it succeeds, [`parse_lenient`] returns
//! the same tree (both run the same code; only the error branches differ).
//!
//! # Limits
//!
//! Groups nest at most [`MAX_DEPTH`] deep and a query holds at most
//! [`MAX_TERMS`] leaves. Beyond that, lenient mode flattens deeper groups
//! into their parent and drops further terms; strict mode fails. Parsing is
//! linear in the input length.

mod lexer;
mod modifiers;

pub use modifiers::{DEFAULT_FUZZY, MAX_FUZZY, MAX_SLOP};

use crate::error::{Error, Result};
use crate::query::ast::{Clause, Occur, Query};
use lexer::{Kind, Tok};

/// Deepest allowed nesting of parentheses.
pub const MAX_DEPTH: usize = 32;
/// Most leaves (terms and phrases) in one query.
pub const MAX_TERMS: usize = 1024;

/// Parses user text, never failing. See the module docs for how malformed
/// input degrades.
pub fn parse_lenient(input: &str, fields: &[&str]) -> Query {
    // Lenient mode has no error path; the fallback only guards the invariant.
    parse(input, fields, false).unwrap_or_else(|_| Query::empty())
}

/// Parses user text, failing with [`Error::InvalidQuery`] (char position and
/// reason) on any malformed syntax, unknown field or exceeded limit.
pub fn parse_strict(input: &str, fields: &[&str]) -> Result<Query> {
    parse(input, fields, true)
}

fn parse(input: &str, fields: &[&str], strict: bool) -> Result<Query> {
    let toks = lexer::tokenize(input, strict)?;
    let mut p = Parser {
        toks,
        pos: 0,
        fields,
        strict,
        leaves: 0,
        flattened: 0,
    };
    let (clauses, _) = p.clauses(None, 0, None)?;
    Ok(group(clauses, 1.0).unwrap_or_else(Query::empty))
}

/// An operand with the occur its own prefixes asked for (`None`: none).
type Operand = (Option<Occur>, Query);

struct Parser<'a, 'f> {
    toks: Vec<Tok<'a>>,
    pos: usize,
    fields: &'f [&'f str],
    strict: bool,
    /// Leaves produced so far, for [`MAX_TERMS`].
    leaves: usize,
    /// `(` skipped in lenient mode beyond [`MAX_DEPTH`]; their `)` are
    /// skipped too.
    flattened: usize,
}

fn invalid(position: usize, reason: impl Into<String>) -> Error {
    Error::InvalidQuery {
        position,
        reason: reason.into(),
    }
}

/// Builds the result of a parenthesized group (or the whole query).
fn group(mut clauses: Vec<Clause>, boost: f32) -> Option<Query> {
    if clauses.len() == 1 && clauses[0].occur == Occur::Default {
        let mut q = clauses.pop()?.query;
        q.scale_boost(boost);
        return Some(q);
    }
    (!clauses.is_empty()).then_some(Query::Bool { clauses, boost })
}

/// Combines the operands of an `AND`/`OR` chain. `plain` is the occur of an
/// operand without prefix.
fn chain(mut ops: Vec<Operand>, plain: Occur) -> Option<Operand> {
    if ops.len() <= 1 {
        return ops.pop();
    }
    let clauses = ops
        .into_iter()
        .map(|(occur, query)| Clause {
            occur: match occur {
                Some(Occur::MustNot) => Occur::MustNot,
                Some(Occur::Must) => Occur::Must,
                _ => plain,
            },
            query,
        })
        .collect();
    Some((
        None,
        Query::Bool {
            clauses,
            boost: 1.0,
        },
    ))
}

fn keyword(tok: &Tok<'_>) -> &'static str {
    match tok.kind {
        Kind::And => "AND",
        Kind::Or => "OR",
        _ => "NOT",
    }
}

impl<'a> Parser<'a, '_> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<Tok<'a>> {
        let t = self.peek();
        self.pos += 1;
        t
    }

    /// The next token if it starts right where `end` is (no space between).
    fn glued(&self, end: usize) -> Option<Tok<'a>> {
        self.peek().filter(|t| t.start == end)
    }

    fn starts_operand(tok: Option<Tok<'_>>) -> bool {
        matches!(
            tok.map(|t| t.kind),
            Some(
                Kind::Word(_)
                    | Kind::Phrase(_)
                    | Kind::LParen
                    | Kind::Not
                    | Kind::Plus
                    | Kind::Minus
            )
        )
    }

    /// Juxtaposed clauses up to the end or, for a group opened at `open`,
    /// its `)`. Also returns the end of that `)` when there was one.
    fn clauses(
        &mut self,
        field: Option<&'a str>,
        depth: usize,
        open: Option<usize>,
    ) -> Result<(Vec<Clause>, Option<usize>)> {
        let mut out = Vec::new();
        while let Some(tok) = self.peek() {
            match tok.kind {
                Kind::RParen if self.flattened > 0 => {
                    self.flattened -= 1;
                    self.pos += 1;
                }
                Kind::RParen if open.is_some() => break,
                Kind::RParen if self.strict => return Err(invalid(tok.start, "unbalanced `)`")),
                Kind::And | Kind::Or if self.strict => {
                    return Err(invalid(
                        tok.start,
                        format!("expected a term before {}", keyword(&tok)),
                    ))
                }
                Kind::Dangling(c) if self.strict => {
                    return Err(invalid(tok.start, format!("expected a term after `{c}`")))
                }
                Kind::RParen | Kind::And | Kind::Or | Kind::Dangling(_) => self.pos += 1,
                _ => {
                    if let Some((occur, query)) = self.or_chain(field, depth)? {
                        out.push(Clause {
                            occur: occur.unwrap_or(Occur::Default),
                            query,
                        });
                    }
                }
            }
        }
        let mut close = None;
        if let Some(at) = open {
            match self.bump() {
                Some(t) if t.kind == Kind::RParen => close = Some(t.end),
                _ if self.strict => {
                    return Err(invalid(at, format!("unclosed `(` opened at {at}")))
                }
                _ => {}
            }
        }
        Ok((out, close))
    }

    /// `and_chain (OR and_chain)*`
    fn or_chain(&mut self, field: Option<&'a str>, depth: usize) -> Result<Option<Operand>> {
        let mut ops: Vec<Operand> = self.and_chain(field, depth)?.into_iter().collect();
        while let Some(tok) = self.peek().filter(|t| t.kind == Kind::Or) {
            self.pos += 1;
            if Self::starts_operand(self.peek()) {
                ops.extend(self.and_chain(field, depth)?);
            } else if self.strict {
                return Err(invalid(
                    tok.start,
                    format!("expected a term after {}", keyword(&tok)),
                ));
            }
        }
        Ok(chain(ops, Occur::Should))
    }

    /// `unary (AND unary)*`
    fn and_chain(&mut self, field: Option<&'a str>, depth: usize) -> Result<Option<Operand>> {
        let mut ops: Vec<Operand> = self.unary(field, depth)?.into_iter().collect();
        while let Some(tok) = self.peek().filter(|t| t.kind == Kind::And) {
            self.pos += 1;
            if Self::starts_operand(self.peek()) {
                ops.extend(self.unary(field, depth)?);
            } else if self.strict {
                return Err(invalid(
                    tok.start,
                    format!("expected a term after {}", keyword(&tok)),
                ));
            }
        }
        Ok(chain(ops, Occur::Must))
    }

    /// `(NOT)* (+|-)? primary`; consumes at least one token.
    fn unary(&mut self, field: Option<&'a str>, depth: usize) -> Result<Option<Operand>> {
        let mut negations = 0usize;
        let mut required = false;
        let mut last_op = None;
        while let Some(tok) = self.peek() {
            match tok.kind {
                Kind::Not | Kind::Minus => negations += 1,
                Kind::Plus => required = true,
                _ => break,
            }
            last_op = Some(tok);
            self.pos += 1;
            if tok.kind != Kind::Not {
                break; // a glued prefix is always followed by its operand
            }
        }
        let next = self.peek();
        if !matches!(
            next.map(|t| t.kind),
            Some(Kind::Word(_) | Kind::Phrase(_) | Kind::LParen)
        ) {
            return match last_op {
                Some(op) if self.strict => {
                    let name = match op.kind {
                        Kind::Minus => "`-`",
                        Kind::Plus => "`+`",
                        _ => "NOT",
                    };
                    Err(invalid(op.start, format!("expected a term after {name}")))
                }
                // Lenient: drop the modifiers; the caller handles `next`.
                _ => Ok(None),
            };
        }
        let occur = if negations % 2 == 1 {
            Some(Occur::MustNot)
        } else if required {
            Some(Occur::Must)
        } else {
            None
        };
        Ok(self.primary(field, depth)?.map(|q| (occur, q)))
    }

    /// A word, a phrase or a group. The next token must be one of those.
    fn primary(&mut self, field: Option<&'a str>, depth: usize) -> Result<Option<Query>> {
        let Some(tok) = self.bump() else {
            return Ok(None);
        };
        match tok.kind {
            Kind::Word(word) => self.word(tok, word, field, depth),
            Kind::Phrase(text) => self.phrase(tok, text, field),
            Kind::LParen => self.group(tok, field, depth),
            _ => Ok(None),
        }
    }

    /// Counts a new leaf against [`MAX_TERMS`]; `false`: drop it (lenient).
    fn admit_leaf(&mut self, at: usize) -> Result<bool> {
        if self.leaves < MAX_TERMS {
            self.leaves += 1;
            Ok(true)
        } else if self.strict {
            Err(invalid(at, format!("too many terms (limit {MAX_TERMS})")))
        } else {
            Ok(false)
        }
    }

    fn word(
        &mut self,
        tok: Tok<'a>,
        word: &'a str,
        inherited: Option<&'a str>,
        depth: usize,
    ) -> Result<Option<Query>> {
        let mut field = inherited;
        let mut body = word;
        let mut body_start = tok.start;
        if let Some(colon) = word.find(':').filter(|&c| c > 0) {
            let name = &word[..colon];
            if self.fields.contains(&name) {
                field = Some(name);
                body = &word[colon + 1..];
                body_start = tok.start + name.chars().count() + 1;
            } else if self.strict && is_identifier(name) {
                let known = if self.fields.is_empty() {
                    "(none)".to_string()
                } else {
                    self.fields.join(", ")
                };
                return Err(invalid(
                    tok.start,
                    format!("unknown field `{name}`; known fields: {known}"),
                ));
            }
        }
        if body.is_empty() {
            // `title:` applies to a glued phrase or group.
            match self.glued(tok.end).map(|t| t.kind) {
                Some(Kind::Phrase(text)) => {
                    let t = self.bump().unwrap_or(tok);
                    return self.phrase(t, text, field);
                }
                Some(Kind::LParen) => {
                    let t = self.bump().unwrap_or(tok);
                    return self.group(t, field, depth);
                }
                _ if self.strict => {
                    return Err(invalid(
                        tok.start,
                        format!("expected a term after `{word}`"),
                    ))
                }
                _ => {
                    field = inherited;
                    body = word;
                    body_start = tok.start;
                }
            }
        }
        let parts = modifiers::term_parts(body, body_start, self.strict)?;
        if !self.admit_leaf(tok.start)? {
            return Ok(None);
        }
        Ok(Some(Query::Term {
            field: field.map(str::to_string),
            text: parts.text.to_string(),
            boost: parts.boost,
            prefix: parts.prefix,
            fuzzy: parts.fuzzy,
        }))
    }

    /// Reads modifiers glued after `end` (a closing `"` or `)`).
    fn suffix(&mut self, end: usize, allow_slop: bool) -> Result<modifiers::Suffix> {
        if let Some(Tok {
            kind: Kind::Word(w),
            start,
            ..
        }) = self.glued(end)
        {
            if let Some(s) = modifiers::suffix(w, start, self.strict, allow_slop)? {
                self.pos += 1;
                return Ok(s);
            }
            // Lenient reads a malformed modifier as a separate word.
            if self.strict {
                let reason = match w.chars().next() {
                    Some('~') if allow_slop => "expected a slop number after `~`",
                    Some('~') => "`~` applies to terms and phrases, not groups",
                    Some('^') => "boost must be a positive number",
                    _ => "",
                };
                if !reason.is_empty() {
                    return Err(invalid(start, reason));
                }
            }
        }
        Ok(modifiers::Suffix {
            slop: 0,
            boost: 1.0,
        })
    }

    fn phrase(
        &mut self,
        tok: Tok<'a>,
        text: &'a str,
        field: Option<&'a str>,
    ) -> Result<Option<Query>> {
        let suffix = self.suffix(tok.end, true)?;
        if text.trim().is_empty() {
            return if self.strict {
                Err(invalid(tok.start, "empty phrase"))
            } else {
                Ok(None)
            };
        }
        if !self.admit_leaf(tok.start)? {
            return Ok(None);
        }
        Ok(Some(Query::Phrase {
            field: field.map(str::to_string),
            text: text.to_string(),
            slop: suffix.slop,
            boost: suffix.boost,
        }))
    }

    /// `(` was just consumed as `open`.
    fn group(
        &mut self,
        open: Tok<'a>,
        field: Option<&'a str>,
        depth: usize,
    ) -> Result<Option<Query>> {
        if depth >= MAX_DEPTH {
            if self.strict {
                return Err(invalid(
                    open.start,
                    format!("groups nested deeper than {MAX_DEPTH} levels"),
                ));
            }
            // Flatten: the contents become siblings in the parent group.
            self.flattened += 1;
            return Ok(None);
        }
        let (clauses, close) = self.clauses(field, depth + 1, Some(open.start))?;
        let boost = match close {
            Some(end) => self.suffix(end, false)?.boost,
            None => 1.0,
        };
        if clauses.is_empty() && self.strict {
            return Err(invalid(open.start, "empty group"));
        }
        Ok(group(clauses, boost))
    }
}

/// Whether `name` looks like a field name (so `foo:bar` in strict mode is an
/// unknown field, while `12:30` or `:)` are just text).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

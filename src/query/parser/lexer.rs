//! Query text -> flat token list, in one linear pass.
//!
//! Only four characters split words: whitespace, `(`, `)` and `"`. Every
//! other character (`:`, `*`, `~`, `^`, `+` inside `C++`, `/` in URLs) stays
//! inside its word; the grammar looks inside words later. Positions are char
//! offsets into the query, as reported by `Error::InvalidQuery`.

use crate::error::{Error, Result};

/// What a token is. `Word` and `Phrase` borrow from the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind<'a> {
    /// A run of non-delimiter chars that is not an operator keyword.
    Word(&'a str),
    /// The text between a pair of `"`, quotes excluded.
    Phrase(&'a str),
    LParen,
    RParen,
    /// `AND` or `&&`.
    And,
    /// `OR` or `||`.
    Or,
    /// `NOT`.
    Not,
    /// `+` glued to the start of a term: `+deploy`.
    Plus,
    /// `-` glued to the start of a term: `-draft`.
    Minus,
    /// A lone `+` or `-` followed by nothing usable: `a - b`.
    Dangling(char),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Tok<'a> {
    pub kind: Kind<'a>,
    /// Char offset of the first char.
    pub start: usize,
    /// Char offset one past the last char.
    pub end: usize,
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '"')
}

/// Splits `input` into tokens. Strict mode fails on an unclosed quote;
/// lenient mode drops the stray `"` and reads on as plain words.
pub(super) fn tokenize(input: &str, strict: bool) -> Result<Vec<Tok<'_>>> {
    // (byte offset, char) per char, so char positions index it directly and
    // every slice lands on a char boundary.
    let chars: Vec<(usize, char)> = input.char_indices().collect();
    let n = chars.len();
    let byte_at = |i: usize| chars.get(i).map_or(input.len(), |&(b, _)| b);
    let mut toks = Vec::new();
    // Whether the previous char allows a `+`/`-` prefix operator.
    let at_word_start =
        |i: usize| i == 0 || matches!(chars[i - 1].1, c if c.is_whitespace() || c == '(');
    // Set after a prefix operator: `-AND` searches for the word "AND".
    let mut keyword_ok = true;
    // After an unmatched `"` no later quote can close anything.
    let mut quotes_exhausted = false;
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        let start = i;
        let kind = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => {
                i += 1;
                Kind::LParen
            }
            ')' => {
                i += 1;
                Kind::RParen
            }
            '"' => {
                let close = if quotes_exhausted {
                    None
                } else {
                    (i + 1..n).find(|&j| chars[j].1 == '"')
                };
                match close {
                    Some(j) => {
                        i = j + 1;
                        Kind::Phrase(&input[byte_at(start + 1)..byte_at(j)])
                    }
                    None if strict => {
                        return Err(Error::InvalidQuery {
                            position: start,
                            reason: format!("unclosed quote opened at {start}"),
                        })
                    }
                    None => {
                        quotes_exhausted = true;
                        i += 1;
                        continue;
                    }
                }
            }
            '+' | '-' if at_word_start(i) => match chars.get(i + 1).map(|&(_, c)| c) {
                None => {
                    i += 1;
                    Kind::Dangling(c)
                }
                Some(next) if next.is_whitespace() || next == ')' => {
                    i += 1;
                    Kind::Dangling(c)
                }
                // `--flag`, `+-x`, `-5`, `+1`: literal text, not an operator.
                Some(next) if matches!(next, '+' | '-') || next.is_ascii_digit() => {
                    i = word_end(&chars, i);
                    Kind::Word(&input[byte_at(start)..byte_at(i)])
                }
                Some(_) => {
                    i += 1;
                    toks.push(Tok {
                        kind: if c == '+' { Kind::Plus } else { Kind::Minus },
                        start,
                        end: i,
                    });
                    keyword_ok = false;
                    continue;
                }
            },
            _ => {
                i = word_end(&chars, i);
                let word = &input[byte_at(start)..byte_at(i)];
                match word {
                    "AND" | "&&" if keyword_ok => Kind::And,
                    "OR" | "||" if keyword_ok => Kind::Or,
                    "NOT" if keyword_ok => Kind::Not,
                    _ => Kind::Word(word),
                }
            }
        };
        toks.push(Tok {
            kind,
            start,
            end: i,
        });
        keyword_ok = true;
    }
    Ok(toks)
}

/// Char index one past the word starting at `i`.
fn word_end(chars: &[(usize, char)], mut i: usize) -> usize {
    while i < chars.len() && !is_delimiter(chars[i].1) {
        i += 1;
    }
    i
}

//! Link-aware candidates for the agent set (a measurement, not a memdex
//! option): a ranking's top hits bring the memories linked to them, each
//! scored just below its source hit, and at most [`MAX_ADDED`] join.
//! Links: the turns just before and after a hit in its session, and
//! memories of the same conversation that name someone the hit names (the
//! set has no thread ids; a shared name is what ties a bridge's two turns).

use std::collections::{HashMap, HashSet};

/// Hits whose links are followed, from the top.
pub const SOURCES: usize = 5;
/// A link scores its source's score less this share of its magnitude.
pub const DECAY: f32 = 0.2;
/// Linked memories added to a ranking at most.
pub const MAX_ADDED: usize = 5;
/// A name in more turns of a conversation than this is small talk, no link.
pub const MAX_NAME_TURNS: usize = 6;

#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    /// The turns before and after a hit in its session.
    Session,
    /// Memories of the hit's conversation naming a name the hit names.
    Names,
    /// Both.
    Both,
}

impl Kind {
    /// The kind a configuration name asks for: "neighbours …", "names …",
    /// "links …".
    pub fn of(config: &str) -> Option<Kind> {
        match config.split(' ').next()? {
            "neighbours" => Some(Kind::Session),
            "names" => Some(Kind::Names),
            "links" => Some(Kind::Both),
            _ => None,
        }
    }
}

pub struct Links {
    /// memory id -> (conversation, session, turn)
    place: HashMap<String, (String, u64, u64)>,
    at: HashMap<(String, u64, u64), String>,
    /// memory id -> the names it mentions
    names: HashMap<String, Vec<String>>,
    /// (conversation, name) -> memory ids, in file order
    named: HashMap<(String, String), Vec<String>>,
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_end_matches("'s").trim_matches('\''))
        .filter(|w| !w.is_empty())
}

/// A name: a capitalized word of three letters or more whose lower-case
/// form the corpus never uses ("Dmitri", "Edinburgh"; not "The", "Did").
fn is_name(word: &str, lower_words: &HashSet<String>) -> bool {
    word.len() >= 3
        && word.chars().all(char::is_alphabetic)
        && word.starts_with(|c: char| c.is_uppercase())
        && !lower_words.contains(&word.to_lowercase())
}

impl Links {
    /// From the agent set's memories (`{id, conversation, session, turn, text}`).
    pub fn new(memories: &[serde_json::Value]) -> Links {
        let lower_words: HashSet<String> = memories
            .iter()
            .flat_map(|m| words(m["text"].as_str().unwrap_or("")))
            .filter(|w| w.starts_with(|c: char| c.is_lowercase()))
            .map(str::to_string)
            .collect();
        let mut links = Links {
            place: HashMap::new(),
            at: HashMap::new(),
            names: HashMap::new(),
            named: HashMap::new(),
        };
        for m in memories {
            let id = m["id"].as_str().expect("id").to_string();
            let conv = m["conversation"]
                .as_str()
                .expect("conversation")
                .to_string();
            let place = (
                conv.clone(),
                m["session"].as_u64().expect("session"),
                m["turn"].as_u64().expect("turn"),
            );
            links.at.insert(place.clone(), id.clone());
            links.place.insert(id.clone(), place);
            let mut names: Vec<String> = words(m["text"].as_str().unwrap_or(""))
                .filter(|w| is_name(w, &lower_words))
                .map(str::to_string)
                .collect();
            names.sort();
            names.dedup();
            for n in &names {
                links
                    .named
                    .entry((conv.clone(), n.clone()))
                    .or_default()
                    .push(id.clone());
            }
            links.names.insert(id, names);
        }
        links.named.retain(|_, ids| ids.len() <= MAX_NAME_TURNS);
        links
    }

    /// The memories linked to `id`, nearest first.
    fn linked(&self, id: &str, kind: Kind) -> Vec<String> {
        let Some((conv, session, turn)) = self.place.get(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if kind != Kind::Names {
            for t in [turn.wrapping_sub(1), turn + 1] {
                if let Some(n) = self.at.get(&(conv.clone(), *session, t)) {
                    out.push(n.clone());
                }
            }
        }
        if kind != Kind::Session {
            for name in &self.names[id] {
                for n in self
                    .named
                    .get(&(conv.clone(), name.clone()))
                    .into_iter()
                    .flatten()
                {
                    if n != id && !out.contains(n) {
                        out.push(n.clone());
                    }
                }
            }
        }
        out
    }

    /// `hits` with the links of its top [`SOURCES`] merged in by score (each
    /// link its source's score less [`DECAY`] of its magnitude, at most
    /// [`MAX_ADDED`] links), the first `limit` ids.
    pub fn expand(&self, hits: &[memdex::Hit], kind: Kind, limit: usize) -> Vec<String> {
        let have: HashSet<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        let mut added: Vec<(f32, String)> = Vec::new();
        for h in hits.iter().take(SOURCES) {
            let score = h.score - h.score.abs() * DECAY;
            for n in self.linked(&h.id, kind) {
                if !have.contains(n.as_str()) && !added.iter().any(|(_, a)| *a == n) {
                    added.push((score, n));
                }
            }
        }
        // Sources come in rank order, so a stable sort keeps the better
        // source's link first among equal scores.
        added.sort_by(|a, b| b.0.total_cmp(&a.0));
        added.truncate(MAX_ADDED);
        let mut all: Vec<(f32, bool, String)> = hits
            .iter()
            .map(|h| (h.score, true, h.id.clone()))
            .chain(added.into_iter().map(|(s, id)| (s, false, id)))
            .collect();
        // A hit stays ahead of a link of equal score.
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        all.into_iter().take(limit).map(|(_, _, id)| id).collect()
    }
}

//! Options of the stages around a ranked search: link expansion, recency,
//! sorting and proximity.

use crate::json::Value;
use crate::jsonopt;

/// Which edges a traversal follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// From a document to the ids it links to.
    #[default]
    Out,
    /// From a document to the documents that link to it.
    In,
    Both,
}

/// `expand` / `related` options.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpandOptions {
    /// 1..=3 edges away.
    pub hops: u32,
    /// Only these link types (`None`: all).
    pub types: Option<Vec<String>>,
    pub direction: Direction,
    /// At most this many documents: the answer of `related`, the documents
    /// expansion adds to a search's hits (default 10, at most
    /// [`crate::query::budget::MAX_RESULTS`]).
    pub limit: usize,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        ExpandOptions {
            hops: 1,
            types: None,
            direction: Direction::Out,
            limit: 10,
        }
    }
}

pub const MAX_HOPS: u32 = 3;
const EXPAND_FIELDS: &[&str] = &["hops", "types", "direction", "limit"];

impl ExpandOptions {
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = ExpandOptions::default();
        if let Value::Bool(true) = v {
            return Ok(o);
        }
        for (k, v) in jsonopt::entries(v, path, EXPAND_FIELDS)? {
            match k {
                "hops" => o.hops = jsonopt::uint(v, path, k, MAX_HOPS as u64)? as u32,
                "types" => {
                    o.types = jsonopt::opt(v)
                        .map(|v| jsonopt::strings(v, path, k))
                        .transpose()?
                }
                "direction" => {
                    o.direction = [Direction::Out, Direction::In, Direction::Both]
                        [jsonopt::variant(v, path, k, &["out", "in", "both"])?]
                }
                _ => {
                    o.limit = jsonopt::uint(v, path, k, crate::query::budget::MAX_RESULTS as u64)?
                        as usize
                }
            }
        }
        if o.hops == 0 {
            return Err(format!(
                "`{}` must be between 1 and {MAX_HOPS}",
                jsonopt::join(path, "hops")
            ));
        }
        Ok(o)
    }
}

/// `recency` options: `score * ((1 - weight) + weight * 0.5^(age / halfLife))`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecencyOptions {
    pub field: String,
    /// Milliseconds (JSON: a number of ms or a string like `"30d"`).
    pub half_life_ms: f64,
    pub weight: f64,
    /// Documents this filter allows never decay.
    pub exempt: Option<Value>,
    /// The "now" ages are measured from, epoch ms (default: the host clock
    /// when the search runs).
    pub now: Option<f64>,
}

const RECENCY_FIELDS: &[&str] = &["field", "halfLife", "weight", "exempt", "now"];

impl RecencyOptions {
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = RecencyOptions {
            field: "timestamp".into(),
            half_life_ms: 30.0 * DAY_MS,
            weight: 0.5,
            exempt: None,
            now: None,
        };
        for (k, v) in jsonopt::entries(v, path, RECENCY_FIELDS)? {
            match k {
                "field" => o.field = jsonopt::string(v, path, k)?,
                "halfLife" => o.half_life_ms = duration_ms(v, &jsonopt::join(path, k))?,
                "weight" => o.weight = jsonopt::f32_(v, path, k)? as f64,
                "exempt" => o.exempt = jsonopt::opt(v).cloned(),
                _ => {
                    o.now = Some(v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                        jsonopt::invalid(&jsonopt::join(path, k), "epoch milliseconds", v)
                    })?)
                }
            }
        }
        if !(0.0..=1.0).contains(&o.weight) {
            return Err(format!(
                "`{}` must be between 0 and 1",
                jsonopt::join(path, "weight")
            ));
        }
        Ok(o)
    }
}

const DAY_MS: f64 = 86_400_000.0;

/// `"30d"`, `"12h"`, `"90m"`, `"45s"`, `"2w"` or a number of milliseconds (> 0).
fn duration_ms(v: &Value, path: &str) -> jsonopt::Res<f64> {
    let expected = "a positive number of milliseconds or a duration like \"30d\", \"12h\", \"2w\"";
    let ms = match v {
        Value::Number(_) => v.as_f64(),
        Value::String(s) => {
            let (num, unit) = s.trim().split_at(s.trim().len().saturating_sub(1));
            let scale = match unit {
                "s" => Some(1e3),
                "m" => Some(6e4),
                "h" => Some(3.6e6),
                "d" => Some(DAY_MS),
                "w" => Some(7.0 * DAY_MS),
                _ => None,
            };
            // Through the JSON number parser: `str::parse::<f64>` would link
            // core's dec2flt into the wasm (~15 KB gz).
            let n = crate::json::parse(num).ok().and_then(|v| v.as_f64());
            scale.and_then(|k| n.map(|n| n * k))
        }
        _ => None,
    };
    ms.filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| jsonopt::invalid(path, expected, v))
}
/// `sort` of a search: a field and a direction.
#[derive(Debug, Clone, PartialEq)]
pub struct SortSpec {
    pub field: String,
    pub descending: bool,
}

const SORT_FIELDS: &[&str] = &["field", "order"];

impl SortSpec {
    /// Reads `{ field, order: 'asc' | 'desc' }` (`order` defaults to `asc`).
    pub(crate) fn from_json(v: &Value) -> jsonopt::Res<Self> {
        let mut field = None;
        let mut descending = false;
        for (k, v) in jsonopt::entries(v, "sort", SORT_FIELDS)? {
            match k {
                "field" => field = Some(jsonopt::string(v, "sort", k)?),
                _ => descending = jsonopt::variant(v, "sort", k, &["asc", "desc"])? == 1,
            }
        }
        let field = field.ok_or("missing field `sort.field`")?;
        Ok(SortSpec { field, descending })
    }
}

/// Default `proximity.depth`: measured, 20 candidates give the nDCG@10 of
/// 100 on Cranfield and CISI at half the extra query time.
pub const DEFAULT_DEPTH: usize = 20;
/// Most candidates a rerank may ask for (`proximity.depth`).
pub const MAX_DEPTH: usize = 1000;
/// At most this many distinct positive terms take part (the highest idf;
/// pairs grow quadratically).
pub const MAX_TERMS: usize = 16;

/// Tuning of the bonus (JSON `proximity: true | { weight, window }`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProximityOptions {
    /// Multiplier of each pair's saturated, idf-weighted bonus.
    pub weight: f32,
    /// Largest distance (in positions) between two occurrences that counts.
    pub window: u32,
    /// Candidates of the BM25F pass reordered; the ones after them keep
    /// their BM25F order (their scores are below every reordered one's), so
    /// pages do not depend on `offset`.
    pub depth: usize,
}

impl Default for ProximityOptions {
    fn default() -> Self {
        ProximityOptions {
            weight: 0.25,
            window: 5,
            depth: DEFAULT_DEPTH,
        }
    }
}

const FIELDS: &[&str] = &["weight", "window", "depth"];

impl ProximityOptions {
    /// How many candidates the first pass collects for a page ending at
    /// `page_end` (`offset + limit`).
    pub(crate) fn collect(&self, page_end: usize) -> usize {
        page_end.max(self.depth)
    }

    /// `true` (defaults), `false`/`null` (off), or `{ weight, window }`.
    pub(crate) fn from_json(v: &Value) -> jsonopt::Res<Option<Self>> {
        match jsonopt::opt(v) {
            None | Some(Value::Bool(false)) => Ok(None),
            Some(Value::Bool(true)) => Ok(Some(Self::default())),
            Some(v @ Value::Object(_)) => {
                let mut o = Self::default();
                for (k, v) in jsonopt::entries(v, "proximity", FIELDS)? {
                    match k {
                        "weight" => o.weight = jsonopt::f32_(v, "proximity", k)?,
                        "depth" => o.depth = jsonopt::usize_(v, "proximity", k)?,
                        _ => o.window = jsonopt::uint(v, "proximity", k, 64)? as u32,
                    }
                }
                Ok(Some(o))
            }
            Some(v) => Err(jsonopt::invalid(
                "proximity",
                "true, false or { weight, window }",
                v,
            )),
        }
    }

    /// Whether the values are usable; the reason names the option.
    pub(crate) fn check(&self) -> std::result::Result<(), &'static str> {
        if !self.weight.is_finite() || self.weight < 0.0 {
            return Err("`proximity.weight` must be a finite number >= 0");
        }
        if self.window == 0 {
            return Err("`proximity.window` must be between 1 and 64");
        }
        if self.depth > MAX_DEPTH {
            return Err("`proximity.depth` must be at most 1000");
        }
        Ok(())
    }
}

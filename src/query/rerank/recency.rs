//! Recency decay inside the top-k: the factor is at most 1, so the pruning
//! bounds of the raw scores stay valid and the answer is exact.

use crate::error::{Error, Result};
use crate::filter::{allowed, Filter};
use crate::query::options::RecencyOptions;
use crate::query::searcher::Searcher;
use crate::schema::{FieldRef, FilterKind};
use crate::store::Column;

/// Recency resolved against an index: per segment, its time column and
/// the docs exempt from decay.
type SegmentTimes<'a> = (Option<&'a [f64]>, Option<Vec<u64>>, bool);

pub(crate) struct Recency<'a> {
    /// Per segment: its times, the exempt docs, whether exemption applies.
    columns: Vec<SegmentTimes<'a>>,
    now: f64,
    half_life: f64,
    weight: f64,
}

impl<'a> Recency<'a> {
    pub(crate) fn new(index: &'a Searcher<'a>, o: &RecencyOptions) -> Result<Recency<'a>> {
        let column = match index.schema.by_name.get(&o.field) {
            Some(FieldRef::Filter(c))
                if matches!(
                    index.schema.filters[*c].kind,
                    FilterKind::Date | FilterKind::Number
                ) =>
            {
                *c
            }
            Some(_) => {
                return Err(Error::schema(
                    &o.field,
                    "recency.field must be a date or number field",
                ))
            }
            None => {
                return Err(Error::schema(
                    &o.field,
                    "is not declared in the schema (recency.field)",
                ))
            }
        };
        let exempt = match &o.exempt {
            Some(json) => Some(Filter::compile(json, index.schema)?),
            None => None,
        };
        let columns = index
            .segments
            .iter()
            .map(|e| {
                let times = match e.segment.columns.get(column) {
                    Some(Column::Number(xs)) => Some(xs.as_slice()),
                    _ => None,
                };
                let (allow, any) = match &exempt {
                    Some(f) => (f.evaluate(&e.segment), true),
                    None => (None, false),
                };
                (times, allow, any)
            })
            .collect();
        Ok(Recency {
            columns,
            now: o.now.unwrap_or_else(|| crate::host::now_ms() as f64),
            half_life: o.half_life_ms,
            weight: o.weight,
        })
    }

    /// The multiplier of a document's score, in `[1 - weight, 1]`: 1 for
    /// exempt documents and for timestamps at or after "now"; documents
    /// without a timestamp get the full decay (`1 - weight`).
    pub(crate) fn factor(&self, segment: usize, doc: u32) -> f32 {
        let (times, allow, exempting) = &self.columns[segment];
        if *exempting && allowed(allow, doc) {
            return 1.0;
        }
        let decay = match times
            .and_then(|t| t.get(doc as usize))
            .filter(|t| !t.is_nan())
        {
            Some(&t) => crate::host::half_pow((self.now - t).max(0.0) / self.half_life),
            None => 0.0,
        };
        ((1.0 - self.weight) + self.weight * decay) as f32
    }
}

//! The checks every search passes before it runs: sizes within their
//! limits, values in range, names the schema has.

use crate::error::{Error, Result};
use crate::query::budget::{
    MAX_HIGHLIGHT_TAG_BYTES, MAX_QUERY_BYTES, MAX_RESULTS, MAX_SNIPPET_LENGTH,
};
use crate::query::options::{SearchOptions, StoredSelection, FUZZY_AUTO};
use crate::schema::FieldRef;

use super::Searcher;

pub(super) fn validate(index: &Searcher<'_>, query: &str, opts: &SearchOptions) -> Result<()> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::Limit {
            what: "query bytes",
            limit: MAX_QUERY_BYTES,
            got: query.len(),
        });
    }
    let wanted = opts.offset.saturating_add(opts.limit);
    if wanted > MAX_RESULTS {
        return Err(Error::Limit {
            what: "offset + limit",
            limit: MAX_RESULTS,
            got: wanted,
        });
    }
    if let Some(h) = &opts.highlight {
        let tag = h.pre_tag.len().max(h.post_tag.len());
        if tag > MAX_HIGHLIGHT_TAG_BYTES {
            return Err(Error::Limit {
                what: "highlight tag bytes (preTag, postTag)",
                limit: MAX_HIGHLIGHT_TAG_BYTES,
                got: tag,
            });
        }
        if h.snippet_length > MAX_SNIPPET_LENGTH {
            return Err(Error::Limit {
                what: "highlight snippetLength",
                limit: MAX_SNIPPET_LENGTH,
                got: h.snippet_length,
            });
        }
    }
    // Wrong values are the caller's (`USAGE`); names the schema lacks are
    // `SCHEMA` (below).
    let usage = |reason: &str| {
        Err(Error::Usage {
            reason: format!("search option {reason}"),
        })
    };
    if opts.fuzzy > 2 && opts.fuzzy != FUZZY_AUTO {
        return usage(
            "`fuzzy` must be 0, 1 or 2 (an edit distance), 'auto' or true (by word length), or false",
        );
    }
    if let Some(k1) = opts.k1 {
        if !k1.is_finite() || k1 < 0.0 {
            return usage("`k1` must be a finite number >= 0");
        }
    }
    if let Some(b) = opts.b {
        if !(0.0..=1.0).contains(&b) {
            return usage("`b` must be a number between 0 and 1");
        }
    }
    if let Some(Err(reason)) = opts.proximity.map(|p| p.check()) {
        return usage(reason);
    }
    if let Some(sort) = &opts.sort {
        crate::query::list::SortColumn::resolve(sort, index.schema)?;
    }
    crate::query::hybrid::validate(index, opts)?;
    if let StoredSelection::Only(names) = &opts.stored_fields {
        for name in names {
            if !index
                .config()
                .fields
                .get(name)
                .is_some_and(|f| f.is_stored())
            {
                return Err(Error::schema(
                    name,
                    "is not a stored field (storedFields lists fields declared with stored: true)",
                ));
            }
        }
    }
    if let Some(fields) = &opts.fields {
        for (name, w) in fields {
            if !matches!(index.schema.by_name.get(name), Some(FieldRef::Text(_))) {
                return Err(Error::schema(name, "is not a text field"));
            }
            if !w.is_finite() || *w < 0.0 {
                return usage(&format!("`fields.{name}` must be a finite weight >= 0"));
            }
        }
    }
    Ok(())
}

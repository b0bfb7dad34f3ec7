//! Language -> Snowball stemmer (`rust-stemmers`).
//!
//! Without the `all-languages` feature only English is compiled in; every
//! other stemming language is rejected by [`super::Analyzer::new`] so an
//! index never silently analyzes with the wrong stemmer.

use rust_stemmers::{Algorithm, Stemmer};

use super::Language;
use crate::error::{Error, Result};

/// The stemmer for `language`, `None` for [`Language::None`].
pub(crate) fn stemmer_for(language: Language) -> Result<Option<Stemmer>> {
    if language == Language::None {
        return Ok(None);
    }
    if language == Language::English {
        // Kept separate so an English-only build links only this algorithm.
        return Ok(Some(Stemmer::create(Algorithm::English)));
    }
    match algorithm(language) {
        Some(a) => Ok(Some(Stemmer::create(a))),
        None => Err(Error::schema(
            "language",
            format!("{language:?} is not compiled in; enable the `all-languages` feature"),
        )),
    }
}

#[cfg(feature = "all-languages")]
fn algorithm(language: Language) -> Option<Algorithm> {
    Some(match language {
        Language::None => return None,
        Language::Arabic => Algorithm::Arabic,
        Language::Danish => Algorithm::Danish,
        Language::Dutch => Algorithm::Dutch,
        Language::English => Algorithm::English,
        Language::Finnish => Algorithm::Finnish,
        Language::French => Algorithm::French,
        Language::German => Algorithm::German,
        Language::Greek => Algorithm::Greek,
        Language::Hungarian => Algorithm::Hungarian,
        Language::Italian => Algorithm::Italian,
        Language::Norwegian => Algorithm::Norwegian,
        Language::Portuguese => Algorithm::Portuguese,
        Language::Romanian => Algorithm::Romanian,
        Language::Russian => Algorithm::Russian,
        Language::Spanish => Algorithm::Spanish,
        Language::Swedish => Algorithm::Swedish,
        Language::Tamil => Algorithm::Tamil,
        Language::Turkish => Algorithm::Turkish,
    })
}

#[cfg(not(feature = "all-languages"))]
fn algorithm(_language: Language) -> Option<Algorithm> {
    None
}

//! What this build of the engine can do. The package ships two wasm
//! builds: the full one (`memdex`) and the lexical one (`memdex/lexical`:
//! English only, and none of the features below: what a search box needs).
//! Both read and write the same index bytes: the lexical build keeps vector
//! columns and links as data; only the calls that use them are left out, by
//! the checks below (constant in each build, so the code behind them is not
//! linked).

use crate::{Error, Result};

/// Vector and hybrid search (`vector`, `hybrid`; cargo feature `vectors`).
pub const VECTORS: bool = cfg!(feature = "vectors");
/// Link traversal (`expand`, `related`, `strategy: 'auto'` expansion; feature `links`).
pub const LINKS: bool = cfg!(feature = "links");
/// Result reranking for agents (`diversity`, `dedupe`; feature `rerank`).
pub const RERANK: bool = cfg!(feature = "rerank");
/// Operator's tools (`Memdex.recover`, `Memdex.migrate`; feature `maintenance`).
pub const MAINTENANCE: bool = cfg!(feature = "maintenance");

/// The build's name, as the JS layer reports it.
pub const NAME: &str = if VECTORS && LINKS && RERANK && MAINTENANCE {
    "full"
} else {
    "lexical"
};

/// Ok when this build has the feature (`have`, one of the constants above),
/// else `USAGE` naming `what` and the build that has it.
pub fn need(have: bool, what: &str) -> Result<()> {
    if have {
        return Ok(());
    }
    Err(Error::Usage {
        reason: format!(
            "{what} is not in the lexical build (memdex/lexical); import the full build from 'memdex'"
        ),
    })
}

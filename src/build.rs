//! What this build of the engine can do. The package ships two wasm
//! builds: the full one (`memdex`) and the lexical one (`memdex/lexical`:
//! English only, no vector, hybrid or link-following search). Both read and
//! write the same index bytes: the lexical build keeps vector columns and
//! links as data; only the searches over them are left out, by the checks
//! below (constant in each build, so the code behind them is not linked).

use crate::{Error, Result};

/// Vector and hybrid search (`vector`, `hybrid` options; cargo feature `vectors`).
pub const VECTORS: bool = cfg!(feature = "vectors");
/// Link traversal (`expand`, `related`, `strategy: 'auto'` expansion; feature `links`).
pub const LINKS: bool = cfg!(feature = "links");

/// The build's name, as the JS layer reports it.
pub const NAME: &str = if VECTORS && LINKS { "full" } else { "lexical" };

/// `USAGE` for a call this build lacks, naming the build that has it.
pub fn lacks(what: &str) -> Error {
    Error::Usage {
        reason: format!(
            "{what} is not in the lexical build (memdex/lexical); import the full build from 'memdex'"
        ),
    }
}

/// Ok when this build searches vectors, else [`lacks`].
pub fn need_vectors(what: &str) -> Result<()> {
    if VECTORS {
        Ok(())
    } else {
        Err(lacks(what))
    }
}

/// Ok when this build follows links, else [`lacks`].
pub fn need_links(what: &str) -> Result<()> {
    if LINKS {
        Ok(())
    } else {
        Err(lacks(what))
    }
}

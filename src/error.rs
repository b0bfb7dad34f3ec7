//! The one error type of memdex.
//!
//! Every variant carries the data a caller needs to act on it, and maps to a
//! stable string [`Error::code`] that the JS layer exposes as `err.code`.
//! Codes are part of the public API: never rename one.

use std::fmt;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in memdex.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A strict-mode query could not be parsed. `position` is a char offset
    /// into the query string.
    InvalidQuery { position: usize, reason: String },
    /// A document or option does not fit the schema (unknown field, wrong type,
    /// bad field definition). `field` names the offending field.
    Schema { field: String, reason: String },
    /// A schema given to open an index changes it in a way that cannot be
    /// applied to the documents already indexed (code `SCHEMA`): `field`
    /// (empty: the whole index) and which `change` (`analyzer`, `language`,
    /// `type`, `stored`, `dimensions`, `metric`); the index must be rebuilt.
    SchemaChange {
        field: String,
        change: &'static str,
        reason: String,
    },
    /// No document with this id exists.
    NotFound { id: String },
    /// The storage backend failed; nothing was committed. `adapter_reason`
    /// is the adapter's own code for it when it gave one (a JS adapter's
    /// `err.reason`: `QUOTA_EXCEEDED`, `PERMISSION`, `LOCKED`, ...), handed
    /// on to JS as `err.reason`.
    Storage {
        key: String,
        reason: String,
        adapter_reason: Option<String>,
    },
    /// Stored bytes fail their checksum or do not decode.
    Corrupt { key: String, reason: String },
    /// Another writer committed first (manifest generation moved).
    Conflict { expected: u64, found: u64 },
    /// Data was written by a format version this build cannot read.
    Version { expected: u32, got: u32 },
    /// An API was called the wrong way (an argument or state the caller
    /// controls); `reason` says what to do instead.
    Usage { reason: String },
    /// An input exceeds a documented limit.
    Limit {
        what: &'static str,
        limit: usize,
        got: usize,
    },
}

impl Error {
    /// Stable machine-readable code (`INVALID_QUERY`, `SCHEMA`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidQuery { .. } => "INVALID_QUERY",
            Error::Schema { .. } | Error::SchemaChange { .. } => "SCHEMA",
            Error::NotFound { .. } => "NOT_FOUND",
            Error::Storage { .. } => "STORAGE",
            Error::Corrupt { .. } => "CORRUPT",
            Error::Conflict { .. } => "CONFLICT",
            Error::Version { .. } => "VERSION",
            Error::Limit { .. } => "LIMIT",
            Error::Usage { .. } => "USAGE",
        }
    }

    /// A failed manifest write whose outcome could not be read back: the
    /// commit may or may not have been stored.
    pub(crate) fn outcome_unknown(self) -> Self {
        match self {
            Error::Storage {
                key,
                reason,
                adapter_reason,
            } => Error::Storage {
                key,
                reason: format!(
                    "{reason} (and reading it back failed: the commit may have been stored; reopen the index to see its state)"
                ),
                adapter_reason,
            },
            other => other,
        }
    }

    pub(crate) fn schema(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Schema {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// What a [`Error::SchemaChange`] message tells the caller to do.
const REBUILD: &str = "the documents already indexed cannot take this change in place: rebuild the index from its stored documents with Memdex.migrate({ from, to }) (`memdex migrate <dir> --schema file.json` on the command line), or open it with the stored definition";

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidQuery { position, reason } => write!(
                f,
                "invalid query at position {position}: {reason} (use the lenient parser to treat the text as plain terms)"
            ),
            // An empty `field`: the schema as a whole (its reason names the option path).
            Error::Schema { field, reason } if field.is_empty() => write!(f, "schema error: {reason}"),
            Error::Schema { field, reason } => write!(f, "schema error on field `{field}`: {reason}"),
            Error::SchemaChange { field, reason, .. } if field.is_empty() => write!(
                f,
                "schema error: {reason}; {REBUILD}"
            ),
            Error::SchemaChange { field, reason, .. } => write!(
                f,
                "schema error on field `{field}`: {reason}; {REBUILD}"
            ),
            Error::NotFound { id } => write!(f, "no document with id `{id}`"),
            Error::Storage { key, reason, .. } => write!(
                f,
                "storage failed at key `{key}`: {reason}; nothing was committed, retry the operation"
            ),
            Error::Corrupt { key, reason } => write!(
                f,
                "stored data at key `{key}` is corrupt: {reason}; restore from a snapshot or rebuild the index"
            ),
            Error::Conflict { expected, found } => write!(
                f,
                "another writer committed first (expected generation {expected}, found {found}); call reload() and retry"
            ),
            Error::Version { expected, got } => write!(
                f,
                "format version {got} is not supported (this build reads version {expected}); upgrade memdex or rebuild the index"
            ),
            Error::Usage { reason } => write!(f, "{reason}"),
            Error::Limit { what, limit, got } => {
                write!(f, "{what} exceeds the limit: {got} > {limit}")
            }
        }
    }
}

impl std::error::Error for Error {}

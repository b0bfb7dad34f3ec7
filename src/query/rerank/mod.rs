//! Rerank stages over a ranked list: proximity (term distance), recency
//! (document age, inside the top-k) and diversity (MMR, dedupe).

pub mod diversity;
pub mod proximity;
pub mod recency;

//! Empty library: this crate exists only for its wasm32 test targets
//! (see Cargo.toml).

//! The storage conformance suite. One suite, every adapter: native tests run
//! it on memory and filesystem storage, the browser tests on IndexedDB, the
//! Worker tests on Workers KV (through the wasm export `runStorageConformance`).
//!
//! Uses keys under `prefix` only and removes them afterwards.

use super::Storage;
use crate::error::{Error, Result};

fn fail(check: &str, detail: String) -> Error {
    Error::Storage {
        key: check.to_string(),
        reason: format!("conformance check failed: {detail}"),
        adapter_reason: None,
    }
}

/// A read value for a failure message. Not `{:?}`: `Debug` of strings
/// links core's Unicode printable tables (~7 KB gzipped) into the wasm,
/// which exports this suite.
fn show(value: &Option<Vec<u8>>) -> String {
    match value {
        None => "nothing".to_string(),
        Some(v) => format!("{} bytes `{}`", v.len(), String::from_utf8_lossy(v)),
    }
}

/// Listed keys for a failure message, comma-separated (see [`show`]).
fn show_keys(keys: &[String]) -> String {
    format!("[{}]", keys.join(", "))
}

macro_rules! ensure {
    ($cond:expr, $check:expr, $($fmt:tt)*) => {
        if !$cond {
            return Err(fail($check, format!($($fmt)*)));
        }
    };
}

/// Number of checks [`run`] makes (what it resolves to when all pass).
pub const CHECKS: u32 = 12;

/// Runs every check; returns the number of checks passed.
pub async fn run<S: Storage>(storage: &S, prefix: &str) -> Result<u32> {
    let k = |s: &str| format!("{prefix}/{s}");
    let mut passed = 0;

    ensure!(
        storage.get(&k("missing")).await?.is_none(),
        "get-missing",
        "missing key returned a value"
    );
    passed += 1;

    storage.put(&k("a"), b"alpha").await?;
    let got = storage.get(&k("a")).await?;
    ensure!(
        got.as_deref() == Some(&b"alpha"[..]),
        "put-get",
        "got {}",
        show(&got)
    );
    passed += 1;

    storage.put(&k("a"), b"beta").await?;
    let got = storage.get(&k("a")).await?;
    ensure!(
        got.as_deref() == Some(&b"beta"[..]),
        "overwrite",
        "got {}",
        show(&got)
    );
    passed += 1;

    // Binary values survive untouched, including zero bytes and all 256 values.
    let binary: Vec<u8> = (0..=255u8).chain([0, 0, 255]).collect();
    storage.put(&k("bin"), &binary).await?;
    ensure!(
        storage.get(&k("bin")).await?.as_deref() == Some(&binary[..]),
        "binary",
        "binary value changed"
    );
    passed += 1;

    storage.put(&k("empty"), b"").await?;
    let got = storage.get(&k("empty")).await?;
    ensure!(
        got.as_deref() == Some(&b""[..]),
        "empty-value",
        "got {}",
        show(&got)
    );
    passed += 1;

    // A larger value (1 MiB) round-trips.
    let big: Vec<u8> = (0..1 << 20)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    storage.put(&k("blob/big"), &big).await?;
    ensure!(
        storage.get(&k("blob/big")).await?.as_deref() == Some(&big[..]),
        "large-value",
        "1 MiB value changed"
    );
    passed += 1;

    storage.put(&k("blob/x1"), b"1").await?;
    storage.put(&k("blob/x2"), b"2").await?;
    storage.put(&k("blobby"), b"3").await?;
    let listed = storage.list(&k("blob/")).await?;
    let want = vec![k("blob/big"), k("blob/x1"), k("blob/x2")];
    ensure!(
        listed == want,
        "list-prefix",
        "listed {}, want {}",
        show_keys(&listed),
        show_keys(&want)
    );
    passed += 1;

    storage.delete(&k("blob/x1")).await?;
    ensure!(
        storage.get(&k("blob/x1")).await?.is_none(),
        "delete",
        "deleted key still readable"
    );
    storage.delete(&k("blob/x1")).await?;
    passed += 1;

    // Several keys at once (an adapter's `getMany`): each key's value in
    // the order asked, a missing key as nothing, a key asked twice twice.
    let keys = [k("blob/x2"), k("blob/x1"), k("bin"), k("blob/x2")];
    let got = storage.get_many(&keys).await?;
    let want: [Option<&[u8]>; 4] = [Some(b"2"), None, Some(&binary), Some(b"2")];
    ensure!(
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g.as_deref() == w),
        "get-many",
        "got {}",
        got.iter().map(show).collect::<Vec<_>>().join(", ")
    );
    ensure!(
        storage.get_many(&[]).await?.is_empty(),
        "get-many",
        "no keys gave values"
    );
    passed += 1;

    let listed = storage.list(&k("blob/")).await?;
    ensure!(
        listed == vec![k("blob/big"), k("blob/x2")],
        "list-after-delete",
        "listed {}",
        show_keys(&listed)
    );
    passed += 1;

    // Compare-and-swap: stores only over the expected value (or absence).
    // One table-driven loop: each awaited step of an async fn grows its
    // state machine, and this suite ships in the wasm.
    let m = k("manifest");
    // (key, expected, value, whether it stores, the value afterwards)
    type Step<'a> = (&'a str, Option<&'a [u8]>, &'a [u8], bool, Option<&'a [u8]>);
    let steps: [Step; 5] = [
        (&m, None, b"one", true, Some(b"one")),
        (&m, None, b"two", false, Some(b"one")),
        (&m, Some(b"other"), b"two", false, Some(b"one")),
        (&m, Some(b"one"), b"two", true, Some(b"two")),
        ("", Some(b"x"), b"y", false, None),
    ];
    let absent = k("absent");
    for (i, (key, expected, value, stores, after)) in steps.into_iter().enumerate() {
        let key = if key.is_empty() { absent.as_str() } else { key };
        let stored = storage.swap(key, expected, value).await?;
        let got = storage.get(key).await?;
        ensure!(
            stored == stores && got.as_deref() == after,
            "swap",
            "step {i}: swap resolved {stored} (want {stores}) and left {}",
            show(&got)
        );
    }
    passed += 1;

    for key in storage.list(&format!("{prefix}/")).await? {
        storage.delete(&key).await?;
    }
    let left = storage.list(&format!("{prefix}/")).await?;
    ensure!(left.is_empty(), "cleanup", "left {}", show_keys(&left));
    passed += 1;
    Ok(passed)
}

//! What counts as CI for the tests, in one place (`build.rs` holds the same
//! rule for what it decides at build time): `CI` set to anything but the
//! empty string. `CI=1`, `CI=yes` and `CI=true` are all CI; under CI no test
//! skips and no snapshot is rewritten.
#![allow(dead_code)]

use std::ffi::OsStr;

/// True for a value of `CI` that means "this is CI": any but unset or empty.
pub fn is_ci(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// True when this test runs under CI.
pub fn under_ci() -> bool {
    is_ci(std::env::var_os("CI").as_deref())
}

/// True when `var` (e.g. `UPDATE_GOLDEN`) asks to rewrite the snapshots;
/// under CI that fails the test, since a rewritten snapshot would make
/// every comparison pass.
pub fn updating(var: &str) -> bool {
    let update = std::env::var_os(var).is_some();
    assert!(
        !(update && under_ci()),
        "{var} is set under CI (CI={:?}): CI compares the snapshots, it never rewrites them; unset it",
        std::env::var_os("CI").unwrap_or_default()
    );
    update
}

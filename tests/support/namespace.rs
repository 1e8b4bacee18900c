//! Namespace names for the end-to-end tests: one per test, never reused by
//! another test or by an earlier run of the same test binary, so tests run
//! side by side on the shared control plane without meeting.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// `PREFIX-PID-N`: this process's id keeps runs apart, `N` the tests of
/// one run. Short enough for any prefix a test picks (a namespace name has
/// at most 63 characters).
pub fn unique(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id() % 100000,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

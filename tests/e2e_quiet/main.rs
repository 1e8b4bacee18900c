//! A binary of its own, with a control plane of its own, for the end-to-end
//! tests that need that control plane to themselves at times:
//! - tests that assert on every request cf-runner's user agent sent since a
//!   mark in the audit log (`e2e_auth_plugin`, `e2e_check_requests`,
//!   `e2e_preflight_rounds`, `e2e_shared_files`), which any other cf-runner
//!   run at that moment would show up in;
//! - `e2e_check`, which counts every write of the `limited` user, a user
//!   tests of the `e2e` binary also run cf-runner as;
//! - `e2e_day_two`'s bridge check, which adds a node whose pod CIDR fails
//!   the "dind bridge" check of every `check` and `init` in the cluster.
//!
//! The `e2e` binary runs up to two tests at once on its shared control
//! plane, so none of these could live there. Here every test holds
//! [`alone`] or [`together`] for its whole run: the tests above run alone;
//! the others run side by side as usual, never beside an `alone` one. A new
//! test here takes one of the two on its first line. Run one file's tests
//! with `cargo test --test e2e_quiet e2e_check::`.

#[path = "../support/mod.rs"]
mod support;

mod e2e_auth_plugin;
mod e2e_check;
mod e2e_check_requests;
mod e2e_day_two;
mod e2e_deploy_step;
mod e2e_preflight_rounds;
mod e2e_shared_files;

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Writers are the tests that need the control plane to themselves; readers
/// are the rest. tokio's lock is fair: a waiting writer holds back new
/// readers, so an `alone` test is not starved by a stream of `together` ones.
static CONTROL_PLANE: RwLock<()> = RwLock::const_new(());

/// Held by a test that needs the control plane to itself (see the list
/// above): no other test of this binary runs until it is dropped.
pub async fn alone() -> RwLockWriteGuard<'static, ()> {
    CONTROL_PLANE.write().await
}

/// [`alone`] for a test that is not `async` (it must not be called from
/// inside a runtime).
pub fn alone_blocking() -> RwLockWriteGuard<'static, ()> {
    CONTROL_PLANE.blocking_write()
}

/// Held by every other test of this binary: it may run beside the others
/// that hold it, never beside an [`alone`] test.
pub async fn together() -> RwLockReadGuard<'static, ()> {
    CONTROL_PLANE.read().await
}

/// [`together`] for a test that is not `async` (it must not be called from
/// inside a runtime).
pub fn together_blocking() -> RwLockReadGuard<'static, ()> {
    CONTROL_PLANE.blocking_read()
}

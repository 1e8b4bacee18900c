//! A binary of its own: the tests that run the real binary in a
//! pseudo-terminal (`init`'s wizard), through rexpect. rexpect starts the
//! child with a bare `fork()` and only then builds the `exec`'s arguments
//! and environment (it allocates and takes the environment lock in the
//! child): if another thread of the test process held the allocator's or
//! the environment's lock at the fork, the child hangs before it ever runs
//! cf-runner. The `e2e` binary is full of such threads (kube clients, fake
//! platforms, readiness watches, the control plane's keeper); here only
//! these few tests run. The pty's master descriptor is also opened without
//! close-on-exec, so any process spawned meanwhile would inherit it. Run one
//! file's tests with `cargo test --test e2e_terminal e2e_wizard_pty::`.

#[path = "../support/mod.rs"]
mod support;

mod e2e_wizard_attach;
mod e2e_wizard_pty;

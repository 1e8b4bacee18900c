//! The end-to-end tests that share one test control plane (see
//! `support::controlplane::shared`), linked into one binary, so the control
//! plane starts once for all of them and the binary is linked once. Each
//! test works in a namespace of its own; a test that breaks the control
//! plane on purpose starts a private one. Run one file's tests with
//! `cargo test --test e2e <file>::`.
//!
//! Kept out, as binaries of their own: tests that change what every test
//! of the cluster sees (`e2e_admission`: webhooks and Pod Security;
//! `e2e_preflight_nodes`, `e2e_probe`: nodes), the terminal test
//! (`e2e_wizard_pty`), the benchmark (`bench_apply`), and tests whose
//! audit-log assertions cover every request of a user or of cf-runner's
//! user agent, which other tests' requests would disturb (`e2e_check`:
//! the limited user's writes; `e2e_auth_plugin`: "nothing was sent").

#[path = "../support/mod.rs"]
mod support;

mod e2e_adopt;
mod e2e_adopt_credentials;
mod e2e_adopt_runtimes;
mod e2e_apply_order;
mod e2e_build_rights;
mod e2e_cluster_access;
mod e2e_controlplane;
mod e2e_diff;
mod e2e_examples_apply;
mod e2e_foreign_install;
mod e2e_init;
mod e2e_install_thread;
mod e2e_lifecycle;
mod e2e_lock;
mod e2e_lock_forged;
mod e2e_lock_namespace;
mod e2e_messages;
mod e2e_ownership;
mod e2e_ownership_forged;
mod e2e_platform;
mod e2e_reach;
mod e2e_terminal_data;
mod e2e_trust_platform;
mod e2e_wait_outage;

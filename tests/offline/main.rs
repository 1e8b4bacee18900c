//! The integration tests that need neither a cluster nor a process of
//! their own, linked into one binary: each file is a module, as it was a
//! test binary of its own before. Run one file's tests with
//! `cargo test --test offline <file>::`.
//!
//! A new test file may still go at the top of `tests/` (cargo builds it as
//! a binary of its own); move it here when it needs nothing the others
//! would disturb: no process-wide environment variable, no terminal.

#[path = "../support/mod.rs"]
mod support;

mod agent_only;
mod bad_input;
mod bounded_reads;
mod ca_bundle;
mod chart_keys;
mod chart_parity;
mod chart_parity_tuning;
mod cli_help;
mod completions;
mod completions_shells;
mod docs_front_door;
mod fleet_cli;
mod golden;
mod honest_input;
mod images;
mod kubectl_plugin;
mod messages;
mod readme_commands;
mod reference;
mod render_invariants;
mod support_bundle_flags;
mod test_honesty;
mod user_files;
mod values_no_panic;
mod values_schema;

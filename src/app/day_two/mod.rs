//! Looking at an installation that runs: its status and health for `info`
//! (`status`, `health`), the version skew check (`skew`) and the support
//! bundle's collection (`bundle`), and why builds did not run (`diagnose`).
//! Read-only.

pub mod bundle;
pub mod cluster_reads;
pub mod diagnose;
pub mod health;
pub mod images;
pub mod redaction;
pub mod status;
pub mod support_bundle;

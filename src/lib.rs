//! cf-runner: installs, inspects, upgrades and removes the Codefresh Runner.
//!
//! The flow is the architecture: flags, values files and wizard answers
//! become validated [`values::Values`]; [`render`] turns them into manifests;
//! the manifests go to files (dry-run), to a Helm values file, or to a
//! cluster. [`app`] is the one place that orders those steps.

// The template context is one `json!` literal, deeper than the default 128.
#![recursion_limit = "256"]

pub mod app;
pub mod bundle;
pub mod cli;
pub mod cluster;
pub mod env;
pub mod export;
pub mod fleet;
pub mod input_file;
pub mod output;
pub mod platform;
pub mod reference;
pub mod render;
pub mod text;
pub mod values;
pub mod wizard;

//! The kernel every command stands on: how a run ends ([`Outcome`], the one
//! mapping to exit codes), how flags and values files become [`Input`]
//! (`input`), how a cluster is reached (`connect`), the install's lock, the
//! server-side apply with live progress (`converge`) and the preflight gate.
//! Nothing here knows a command, a capability, the record or the platform.
//!
//! [`Outcome`]: outcome::Outcome
//! [`Input`]: crate::values::Input

pub mod connect;
pub mod converge;
pub mod input;
pub mod lock;
pub mod options;
pub mod outcome;
pub mod preflight;

//! Looking at an installation that runs: its status and health for `info`
//! (`status`, `health`), the version skew check (`skew`), the build probe
//! (`probe`) and the support bundle's collection (`bundle`). Read-only, but
//! for the probe's short-lived pod and claim.

pub mod bundle;
pub mod health;
pub mod probe;
pub mod skew;
pub mod status;

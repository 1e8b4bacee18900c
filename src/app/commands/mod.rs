//! One file per command: it turns the command's flags into options, calls
//! the capability that does the work, and says how the run ended with an
//! [`Outcome`](crate::app::session::outcome::Outcome). A command never imports another one.

pub mod adopt;
pub mod check;
pub mod completions;
pub mod delete;
pub mod diagnose;
pub mod diff;
pub mod flags;
pub mod fleet;
pub mod images;
pub mod info;
pub mod init;
pub mod renew;
pub mod runtime;
pub mod schema;
pub mod support_bundle;
pub mod test_pipeline;
pub mod upgrade;

//! The named steps the commands order. A step knows nothing of the command
//! that runs it: it takes plain options and returns an [`Outcome`] to stop
//! with. Steps may use one another; commands use steps, never each other.
//!
//! [`Outcome`]: crate::app::Outcome

pub mod agent_token;
pub mod attach;
pub mod bundle;
pub mod certificate;
pub mod converge;
pub mod health;
pub mod identity;
pub mod input;
pub mod install;
pub mod installation;
pub mod leftovers;
pub mod lock;
pub mod preflight;
pub mod probe;
pub mod record;
pub mod register;
pub mod rotate;
pub mod runtime_life;
pub mod runtimes_view;
pub mod session;
pub mod skew;
pub mod status;
pub mod upgrade_plan;
pub mod verified;

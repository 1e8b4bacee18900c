//! What cf-runner does, in layers that only point down (the table is in
//! docs/design/ARCHITECTURE.md, and the tests of `architecture.rs` hold the
//! code to it): [`commands`] read their flags into options and call one
//! capability ([`install`], [`runtimes`], [`adopt`], [`fleet`],
//! [`day_two`], [`identity`]), which stand on the kernel: the installation
//! as the cluster holds it ([`installation`]) and what every run needs
//! ([`session`]: its outcome, input, connection, lock and apply).

pub mod adopt;
pub mod commands;
pub mod day_two;
pub mod fleet;
pub mod identity;
pub mod install;
pub mod installation;
pub mod runtimes;
pub mod session;

pub use session::outcome::Outcome;

#[cfg(test)]
mod architecture;

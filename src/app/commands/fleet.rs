//! `cf-runner fleet export|register|retire`: each subcommand's flags go to
//! the fleet capability ([`crate::app::fleet`]).

use crate::app::fleet::{export_tree, register_fleet, retire};
use crate::app::session::outcome::Outcome;
use crate::cli::FleetCommand;

/// Runs one `fleet` subcommand.
pub fn run(command: &FleetCommand) -> Outcome {
    match command {
        FleetCommand::Export(args) => export_tree(args),
        FleetCommand::Register(args) => register_fleet(args),
        FleetCommand::Retire(args) => retire(args),
    }
}

//! `cf-runner fleet export|register|retire`: each subcommand's flags, read
//! into the fleet capability's options ([`crate::app::fleet`]).

use crate::app::commands::flags;
use crate::app::fleet::export::export_tree;
use crate::app::fleet::options::{
    FleetExportOptions, FleetFiles, FleetRegisterOptions, RegistrationTrust,
};
use crate::app::fleet::register::register_fleet;
use crate::app::fleet::retire::retire;
use crate::app::session::outcome::Outcome;
use crate::cli::{self, FleetCommand};

/// Runs one `fleet` subcommand.
pub fn run(command: &FleetCommand) -> Outcome {
    match command {
        FleetCommand::Export(args) => export_tree(&FleetExportOptions {
            files: files(&args.files),
            overwrite: args.overwrite,
            trust: trust(&args.trust),
        }),
        FleetCommand::Register(args) => register_fleet(&register(args)),
        FleetCommand::Retire(args) => retire(&register(args)),
    }
}

fn files(args: &cli::FleetFiles) -> FleetFiles {
    FleetFiles {
        fleet: args.fleet.clone(),
        output_dir: args.output_dir.clone(),
    }
}

fn trust(args: &cli::RegistrationTrust) -> RegistrationTrust {
    RegistrationTrust {
        registration_key_file: args.registration_key_file.clone(),
        accept_unsigned_registrations: args.accept_unsigned_registrations,
    }
}

fn register(args: &cli::FleetRegisterArgs) -> FleetRegisterOptions {
    FleetRegisterOptions {
        files: files(&args.files),
        platform: flags::platform(&args.platform),
        age_key_file: args.age_key_file.clone(),
        store_material_dir: args.store_material_dir.clone(),
        trust: trust(&args.trust),
    }
}

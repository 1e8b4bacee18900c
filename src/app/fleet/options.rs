//! What the fleet commands are asked to do, from their flags.

use std::path::PathBuf;

use crate::app::session::options::PlatformOptions;

/// Where the fleet file and the tree are.
#[derive(Debug, Clone)]
pub struct FleetFiles {
    /// The fleet file.
    pub fleet: PathBuf,
    /// The tree's folder, inside the user's Git repository.
    pub output_dir: PathBuf,
}

/// Which registrations in the tree cf-runner takes as its own.
#[derive(Debug, Clone)]
pub struct RegistrationTrust {
    /// The key registrations are sealed with (`None`: the default place).
    pub registration_key_file: Option<PathBuf>,
    /// Read registrations without a valid seal (each checked against the
    /// platform first).
    pub accept_unsigned_registrations: bool,
}

/// `fleet export`.
#[derive(Debug, Clone)]
pub struct FleetExportOptions {
    /// Where the fleet file and the tree are.
    pub files: FleetFiles,
    /// Write beside files cf-runner did not write.
    pub overwrite: bool,
    /// Which registrations are ours.
    pub trust: RegistrationTrust,
}

/// `fleet register` and `fleet retire`.
#[derive(Debug, Clone)]
pub struct FleetRegisterOptions {
    /// Where the fleet file and the tree are.
    pub files: FleetFiles,
    /// How the platform is reached.
    pub platform: PlatformOptions,
    /// age identities, to re-encrypt a registration.
    pub age_key_file: Option<PathBuf>,
    /// Where a new registration's Secrets go for an external store.
    pub store_material_dir: Option<PathBuf>,
    /// Which registrations are ours.
    pub trust: RegistrationTrust,
}

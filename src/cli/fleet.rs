//! Flags of `cf-runner fleet …`: runners for many clusters, as a Git tree a
//! GitOps engine applies.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::examples;

use super::PlatformArgs;

/// `cf-runner fleet` and its commands.
#[derive(Debug, Clone, Subcommand)]
pub enum FleetCommand {
    /// Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted
    #[command(after_long_help = examples::long_help("fleet register"))]
    Register(FleetRegisterArgs),
    /// Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications
    #[command(after_long_help = examples::long_help("fleet export"))]
    Export(FleetExportArgs),
    /// Remove from the platform the runtimes registered in the tree that the fleet file no longer lists
    #[command(after_long_help = examples::long_help("fleet retire"))]
    Retire(FleetRegisterArgs),
}

/// Where the fleet file and the tree are.
#[derive(Debug, Clone, Args)]
pub struct FleetFiles {
    /// The fleet file (YAML: defaults, gitops, sops, clusters)
    #[arg(long, value_name = "PATH")]
    pub fleet: PathBuf,
    /// The tree's folder (inside your Git repository)
    #[arg(long, value_name = "DIR")]
    pub output_dir: PathBuf,
}

/// Flags of `fleet export`.
#[derive(Debug, Clone, Args)]
pub struct FleetExportArgs {
    #[command(flatten)]
    pub files: FleetFiles,
    /// Write beside files cf-runner did not write (files with the same names are replaced)
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub trust: RegistrationTrust,
}

/// Which registrations in the tree cf-runner takes as its own.
#[derive(Debug, Clone, Args)]
pub struct RegistrationTrust {
    /// The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]
    #[arg(long, value_name = "PATH", env = "CF_RUNNER_FLEET_KEY_FILE")]
    pub registration_key_file: Option<PathBuf>,
    /// Read registration.yaml files without a valid seal (an older cf-runner's, or another key's); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team's agent
    #[arg(long)]
    pub accept_unsigned_registrations: bool,
}

/// Flags of `fleet register` and `fleet retire`.
#[derive(Debug, Clone, Args)]
pub struct FleetRegisterArgs {
    #[command(flatten)]
    pub files: FleetFiles,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed [default: $SOPS_AGE_KEY_FILE]
    #[arg(long, value_name = "PATH", env = "SOPS_AGE_KEY_FILE")]
    pub age_key_file: Option<PathBuf>,
    /// With `externalSecrets`: where a new registration's Secrets are written (0600, outside the tree) for you to load into your store
    #[arg(long, value_name = "DIR")]
    pub store_material_dir: Option<PathBuf>,
    #[command(flatten)]
    pub trust: RegistrationTrust,
}

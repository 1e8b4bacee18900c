//! `cf-runner fleet register | export | retire`: runners for many clusters,
//! kept in Git and applied by a GitOps engine.
//!
//! `register` does the platform side of every runtime of the fleet file
//! without a cluster connection (agent, runtime environment, signed dind
//! certificate, runtime spec) and writes the secret material into the tree
//! encrypted with SOPS (age); a re-run that finds nothing changed does not
//! contact the platform. `export` writes the rest of the tree, the same
//! bytes for the same fleet file. `retire` removes from the platform what
//! was registered for runtimes the fleet file no longer lists (the engine
//! prunes the cluster side; it cannot reach the platform).

pub mod options;

pub(crate) mod common;
pub(crate) mod export;
pub(crate) mod files;
pub(crate) mod register;
pub(crate) mod registration;
pub(crate) mod retire;

//! What `delete` is asked to do, from its flags.

use crate::app::session::options::{KubeOptions, PlatformOptions};

/// What `delete` is asked to do, from its flags.
#[derive(Debug, Clone)]
pub struct DeleteOptions {
    /// Where the installation is.
    pub kube: KubeOptions,
    /// How the platform is reached.
    pub platform: PlatformOptions,
    /// Never ask.
    pub yes: bool,
    /// Delete the namespace too, when cf-runner created it and nothing else is in it.
    pub delete_namespace: bool,
    /// Delete the namespace cf-runner created with everything still in it.
    pub delete_namespace_with_contents: bool,
    /// Delete the dind volumes (PVs and PVCs) too.
    pub purge_volumes: bool,
    /// Leave the agent and runtime environment on the platform.
    pub keep_platform: bool,
    /// Delete every runtime attached to the agent first.
    pub all_runtimes: bool,
    /// Delete an attached runtime's objects although an agent may still serve it.
    pub ignore_agent: bool,
    /// Delete objects that existed before the install and were taken over too.
    pub delete_adopted: bool,
    /// How long to wait for the objects to be gone, and for another run's lock.
    pub timeout: std::time::Duration,
    /// Fail at once when another run holds the install's lock.
    pub no_wait_for_lock: bool,
}

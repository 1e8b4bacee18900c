//! The options every capability may take that several commands share: where
//! the cluster is ([`KubeOptions`]) and how the platform is reached
//! ([`PlatformOptions`]). Plain data: the commands fill them from their
//! flags (`commands/flags.rs`), the wizard and values files from theirs, so
//! no capability depends on the command line's definitions.

use std::path::PathBuf;

/// Which kube context, namespace and kubeconfig to use (`None`: the
/// kubeconfig's current context, the command's default namespace, and
/// `$KUBECONFIG` or `~/.kube/config`).
#[derive(Debug, Clone, Default)]
pub struct KubeOptions {
    /// The kube context.
    pub kube_context_name: Option<String>,
    /// The runner's namespace.
    pub kube_namespace: Option<String>,
    /// The kubeconfig file.
    pub kube_config_path: Option<PathBuf>,
}

/// How to reach the Codefresh platform.
#[derive(Debug, Clone, Default)]
pub struct PlatformOptions {
    /// The API token given (`None`: `$CF_API_KEY`, then `~/.cfconfig`).
    pub token: Option<String>,
    /// The platform's URL given (`None`: the installation's, else the default).
    pub url: Option<String>,
    /// Skip TLS verification towards the platform.
    pub insecure: bool,
    /// Send the API key over plain http:// (other than to localhost).
    pub allow_http: bool,
}

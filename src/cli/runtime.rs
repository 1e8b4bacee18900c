//! Flags of `cf-runner runtime`: runtimes in other namespaces or clusters
//! served by one installed agent.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::examples;

use super::{parse_duration, KubeArgs, PlatformArgs};

/// `cf-runner runtime <attach|detach>`.
#[derive(Debug, Clone, Args)]
pub struct RuntimeArgs {
    #[command(subcommand)]
    pub command: RuntimeCommand,
}

/// What to do with a runtime.
#[derive(Debug, Clone, Subcommand)]
pub enum RuntimeCommand {
    /// Let an installed agent serve the runtime in another namespace or cluster
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runtime (builds run there) [default: the agent's namespace]"
    )))]
    #[command(mut_arg("kube_context_name", |a| a.help(
        "Context of the runtime's cluster [default: the agent's context]"
    )))]
    #[command(after_long_help = examples::long_help("runtime attach"))]
    Attach(AttachArgs),
    /// Stop the agent serving a runtime, and remove its credentials there
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runtime to detach"
    )))]
    #[command(mut_arg("kube_context_name", |a| a.help(
        "Context of the runtime's cluster [default: the agent's context]"
    )))]
    #[command(after_long_help = examples::long_help("runtime detach"))]
    Detach(DetachArgs),
    /// Give the agent a new token for an attached runtime; the old one stops working
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runtime whose token is rotated"
    )))]
    #[command(mut_arg("kube_context_name", |a| a.help(
        "Context of the runtime's cluster [default: the agent's context]"
    )))]
    #[command(after_long_help = examples::long_help("runtime rotate"))]
    Rotate(RotateArgs),
    /// Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runtime to delete"
    )))]
    #[command(mut_arg("kube_context_name", |a| a.help(
        "Context of the runtime's cluster [default: the agent's context]"
    )))]
    #[command(after_long_help = examples::long_help("runtime delete"))]
    Delete(RuntimeDeleteArgs),
    /// Re-apply one attached runtime's objects from the agent's values (images, dind config)
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runtime to upgrade"
    )))]
    #[command(mut_arg("kube_context_name", |a| a.help(
        "Context of the runtime's cluster [default: the agent's context]"
    )))]
    #[command(after_long_help = examples::long_help("runtime upgrade"))]
    Upgrade(RuntimeUpgradeArgs),
}

/// Where the agent is: a cf-runner installation.
#[derive(Debug, Clone, Args)]
pub struct AgentPlace {
    /// Namespace of the installed agent (made by `cf-runner init`)
    #[arg(long, value_name = "NAMESPACE")]
    pub agent_namespace: String,
    /// Context of the agent's cluster [default: the kubeconfig's current context]
    #[arg(long, value_name = "NAME")]
    pub agent_context: Option<String>,
}

/// Flags of `runtime attach`.
#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub agent: AgentPlace,
    #[command(flatten)]
    pub platform: PlatformArgs,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Name of the runtime environment on the platform [default: <context>/<namespace>]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
    /// API server URL the agent reaches the runtime's cluster at [default: in-cluster for the agent's own cluster, else the kubeconfig's]
    #[arg(long, value_name = "URL")]
    pub kube_host: Option<String>,
    /// Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Option<PathBuf>,
    /// The runtime's own setting, by a runtimes file entry's key (repeatable): NodeSelector=zone=a, Storage.Backend=local
    #[arg(
        long = "set-value",
        value_name = "KEY=VALUE",
        conflicts_with = "values"
    )]
    pub set_value: Vec<String>,
    /// How long to wait for each token and for the agent's rollout, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Let a kubeconfig that the runtimes file names (Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)
    #[arg(long)]
    pub trust_values_kubeconfig: bool,
    /// Attach although the agent skips TLS verification (--insecure at init): it would then skip it towards every attached runtime's API server too
    #[arg(long)]
    pub accept_agent_insecure_tls: bool,
    /// Attach although the agent's namespace runs builds of its own runtime: every pipeline there could read the attached runtime's token and create pods in its namespace
    #[arg(long)]
    pub allow_builds_to_read_tokens: bool,
}

/// Flags of `runtime detach`.
#[derive(Debug, Clone, Args)]
pub struct DetachArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub agent: AgentPlace,
    #[command(flatten)]
    pub platform: PlatformArgs,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Name of the runtime environment to detach [default: <context>/<namespace>]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
    /// How long to wait for the agent's rollout and the removals, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
}

/// Flags of `runtime rotate`.
#[derive(Debug, Clone, Args)]
pub struct RotateArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub agent: AgentPlace,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Name of the runtime environment whose token is rotated [default: <context>/<namespace>]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
    /// How long to wait for each token, each rollout of the agent and the removals, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
}

/// Flags of `runtime delete`.
#[derive(Debug, Clone, Args)]
pub struct RuntimeDeleteArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub agent: AgentPlace,
    #[command(flatten)]
    pub platform: PlatformArgs,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Name of the runtime environment to delete [default: <context>/<namespace>]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
    /// Leave the runtime environment on the platform (it is still detached from the agent)
    #[arg(long)]
    pub keep_platform: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// How long to wait for the agent's rollout and the removals, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
}

/// Flags of `runtime upgrade`.
#[derive(Debug, Clone, Args)]
pub struct RuntimeUpgradeArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub agent: AgentPlace,
    #[command(flatten)]
    pub platform: PlatformArgs,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Name of the runtime environment to upgrade [default: <context>/<namespace>]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
    /// The runtime's own setting, as at attach (repeatable): NodeSelector=zone=a, Storage.Backend=local; a setting of its own on the platform that is not given again is refused, not dropped
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// How long to wait for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
}

//! The command line: the clap types, plus the two helpers that belong to
//! parsing (durations like `90s`, and hints for kubectl habits in a usage
//! error). One definition drives parsing, `--help` and the shell
//! completions (`cf-runner completions`; the files in `completions/` are
//! its output), and the generated reference (`crate::reference`); each leaf
//! command's examples come from one table, `cli/examples.rs`. Flag names
//! follow `codefresh runner init` so scripts port by swapping the command.
//! Which values key each flag sets is the table in `app::session::input`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod examples;
pub use examples::{examples_of, long_help, Example, EXAMPLES};
mod runtime;
pub use runtime::*;
mod fleet;
pub use fleet::*;

/// Installs, inspects, upgrades and removes the Codefresh Runner on a Kubernetes cluster.
#[derive(Debug, Parser)]
#[command(
    name = "cf-runner",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install the runner: wizard, or non-interactive with --values/--yes
    #[command(after_long_help = examples::long_help("init"))]
    Init(Box<InitArgs>),
    /// Show what is installed and whether it is healthy
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: every installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("info"))]
    Info(InfoArgs),
    /// Remove exactly what cf-runner installed
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("delete"))]
    Delete(DeleteArgs),
    /// Re-render from the stored values (plus new flags) and apply
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("upgrade"))]
    Upgrade(Box<UpgradeArgs>),
    /// Preflight: check that the cluster and your permissions can take an install
    #[command(after_long_help = examples::long_help("check"))]
    Check(CheckArgs),
    /// Run the demo pipeline on a runtime environment
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("test-pipeline"))]
    TestPipeline(TestPipelineArgs),
    /// Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes
    #[command(after_long_help = examples::long_help("adopt"))]
    Adopt(AdoptArgs),
    /// Print a shell completion script
    #[command(after_long_help = examples::long_help("completions"))]
    Completions(CompletionsArgs),
    /// Show what upgrade (or init) with these flags would change; changes nothing
    #[command(after_long_help = examples::long_help("diff"))]
    Diff(Box<DiffArgs>),
    /// Print the JSON Schema of a values file, for editors and linters
    #[command(after_long_help = examples::long_help("schema"))]
    Schema,
    /// List every image an install with these values runs; --check asks the registry
    #[command(after_long_help = examples::long_help("images"))]
    Images(Box<ImagesArgs>),
    /// Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies
    #[command(subcommand)]
    Fleet(FleetCommand),
    /// Write a redacted .tar.gz of what support needs to look into a runner
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("support-bundle"))]
    SupportBundle(SupportBundleArgs),
    /// Attach a runtime in another namespace or cluster to an installed agent, or detach it
    Runtime(Box<RuntimeArgs>),
    /// Renew what the platform issued: the dind certificate, or the agent token
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("renew"))]
    Renew(RenewArgs),
    /// Why builds did not run: each build pod's wait, the cause and the fix; exit 1 when something is wrong
    #[command(mut_arg("kube_namespace", |a| a.help(
        "Namespace of the runner [default: the only installation in the cluster]"
    )))]
    #[command(after_long_help = examples::long_help("diagnose"))]
    Diagnose(DiagnoseArgs),
}

/// How `diagnose` prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiagnoseFormat {
    /// Lines for a person
    Text,
    /// JSON, for scripts
    Json,
    /// YAML, for scripts
    Yaml,
}

/// Flags of `diagnose`.
#[derive(Debug, Clone, Args)]
pub struct DiagnoseArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Look at build pods created this long ago or later (e.g. 30m, 1h, 2d)
    #[arg(long, value_name = "AGE", default_value = "1h", value_parser = parse_since)]
    pub since: std::time::Duration,
    /// Output format
    #[arg(long, short = 'o', value_enum, default_value = "text")]
    pub output: DiagnoseFormat,
}

/// What `renew` renews.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Renewable {
    /// The dind daemon's TLS certificate, signed again by the platform
    Certificate,
    /// The agent's Codefresh token: a new agent with the same runtimes replaces the old one
    AgentToken,
}

/// Flags of `renew`.
#[derive(Debug, Clone, Args)]
pub struct RenewArgs {
    /// What to renew
    #[arg(value_enum)]
    pub what: Renewable,
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// How long to wait for another run's lock, and for the agent's rollout (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Stop at once (exit 1) when another run holds the install's lock, instead of waiting up to --timeout
    #[arg(long)]
    pub no_wait_for_lock: bool,
}

/// Output format of inspection commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Yaml,
}

/// Which kube context and kubeconfig to use.
#[derive(Debug, Clone, Args)]
pub struct KubeArgs {
    /// Kubernetes context to use [default: the kubeconfig's current context]
    #[arg(long, value_name = "NAME")]
    pub kube_context_name: Option<String>,
    /// Namespace of the runner [default: codefresh]
    #[arg(long, value_name = "NAMESPACE")]
    pub kube_namespace: Option<String>,
    /// Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]
    #[arg(long, value_name = "PATH")]
    pub kube_config_path: Option<PathBuf>,
}

/// Flags of `init`.
/// What to install and where builds run: flags shared by `init` and `upgrade`.
#[derive(Debug, Clone, Args)]
pub struct SettingsArgs {
    /// Node selector for the runner and volume provisioner: key=value[,key=value]
    #[arg(long, value_name = "K=V,...")]
    pub kube_node_selector: Option<String>,
    /// Node selector for build (engine and dind) pods: key=value[,key=value]
    #[arg(long, value_name = "K=V,...")]
    pub build_node_selector: Option<String>,
    /// Registry that serves every image (a mirror of quay.io)
    #[arg(long, value_name = "HOST[/PATH]")]
    pub docker_registry: Option<String>,
    /// Secret of yours (type docker-registry, in the runner's namespace) that
    /// every pod and build pulls images with (repeatable)
    #[arg(long = "image-pull-secret", value_name = "SECRET")]
    pub image_pull_secrets: Vec<String>,
    /// Environment variable for every component and build (repeatable): KEY=VALUE
    #[arg(long = "env-vars", value_name = "KEY=VALUE")]
    pub env_vars: Vec<String>,
    /// HTTP proxy for every component and build
    #[arg(long, value_name = "URL")]
    pub http_proxy: Option<String>,
    /// HTTPS proxy for every component and build
    #[arg(long, value_name = "URL")]
    pub https_proxy: Option<String>,
    /// Hosts that bypass the proxy, comma-separated
    #[arg(long, value_name = "HOSTS")]
    pub no_proxy: Option<String>,
    /// PEM file of CA certificates (a TLS-inspecting proxy's) that cf-runner,
    /// every component and every build trust besides the public roots
    #[arg(long, value_name = "FILE")]
    pub ca_bundle: Option<PathBuf>,
    /// Install the cluster monitor (with upgrade, false removes it)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub install_monitor: Option<bool>,
    /// Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub app_proxy: Option<bool>,
    /// Host name of the app-proxy Ingress
    #[arg(long, value_name = "HOST")]
    pub app_proxy_host: Option<String>,
    /// IngressClass of the app-proxy Ingress
    #[arg(long, value_name = "CLASS")]
    pub app_proxy_ingress_class: Option<String>,
    /// Let pipeline steps reach the docker daemon
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub docker_daemon_access: Option<bool>,
}

#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Values file in the venonactl format (repeatable; later files win)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// Set a value to a file's contents (repeatable): Storage.GoogleServiceAccount=key.json
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,

    // clap's help text, not rustdoc's markup: `[default: …]` and a bare URL
    // are what `--help` shows.
    #[allow(
        rustdoc::broken_intra_doc_links,
        rustdoc::invalid_html_tags,
        rustdoc::bare_urls
    )]
    /// Name of the agent on the platform [default: <context>_<namespace>]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Codefresh API token [default: $CF_API_KEY, then ~/.cfconfig]
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Agent token issued earlier by the platform (re-install an existing agent)
    #[arg(long, value_name = "TOKEN")]
    pub agent_token: Option<String>,
    // clap's help text, not rustdoc's markup: `[default: …]` and a bare URL
    // are what `--help` shows.
    #[allow(
        rustdoc::broken_intra_doc_links,
        rustdoc::invalid_html_tags,
        rustdoc::bare_urls
    )]
    /// Codefresh platform URL [default: https://g.codefresh.io]
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Skip TLS verification towards the platform (self-signed on-prem only)
    #[arg(long)]
    pub insecure: bool,
    /// Send the API key over a plain http:// platform URL (other than localhost)
    #[arg(long)]
    pub allow_http: bool,

    /// Tolerations for the runner and provisioner: JSON list, or @file.json
    #[arg(long, value_name = "JSON|@FILE")]
    pub tolerations: Option<String>,
    /// Use an existing StorageClass for dind volumes (skips the volume provisioner)
    #[arg(long, value_name = "NAME")]
    pub storage_class_name: Option<String>,

    /// Make the new runtime environment the account's default
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub set_default_runtime: Option<bool>,
    /// Create and run the demo pipeline after install
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub exec_demo_pipeline: Option<bool>,

    /// Skip the preflight checks
    #[arg(long)]
    pub skip_cluster_test: bool,
    /// Do not create the cluster integration on the platform
    #[arg(long)]
    pub skip_cluster_integration: bool,
    /// Install the agent alone, with no runtime in its namespace (attach runtimes with `runtime attach`)
    #[arg(long)]
    pub agent_only: bool,

    /// Write the manifests instead of installing; touches neither cluster nor platform
    #[arg(long)]
    pub dry_run: bool,
    /// Where --dry-run writes: a directory, or - for one YAML stream on stdout
    #[arg(long, value_name = "DIR", default_value = "codefresh_manifests")]
    pub output_dir: PathBuf,
    /// Write a values file for the cf-runtime Helm chart instead of installing
    #[arg(long, num_args = 0..=1, default_missing_value = "generated_values.yaml", value_name = "PATH")]
    pub generate_helm_values_file: Option<PathBuf>,
    /// Write over files cf-runner did not write (in the --output-dir folder, or at the Helm values path)
    #[arg(long)]
    pub overwrite: bool,

    /// Take over fields that another field manager owns
    #[arg(long)]
    pub force_conflicts: bool,
    /// How long to wait for the workloads to become ready, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Apply and return without waiting for the workloads
    #[arg(long)]
    pub no_wait: bool,
    /// Stop at once (exit 1) when another run holds the install's lock, instead of waiting up to --timeout
    #[arg(long)]
    pub no_wait_for_lock: bool,
    /// After the install, try the build path: a dind claim and a dind-like pod
    #[arg(long)]
    pub probe: bool,
    /// How long the probe may take (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub probe_timeout: std::time::Duration,

    /// Answer every question with its default; never prompt
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Let a kubeconfig that a values file names (ConfigPath, Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)
    #[arg(long)]
    pub trust_values_kubeconfig: bool,
    /// Attach the values' Runtimes although the agent skips TLS verification (--insecure): it would then skip it towards every attached runtime's API server too
    #[arg(long)]
    pub accept_agent_insecure_tls: bool,
    /// Attach the values' Runtimes although the agent runs builds of its own runtime in its namespace: every pipeline there could read their tokens and create pods in their namespaces
    #[arg(long)]
    pub allow_builds_to_read_tokens: bool,
}

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Output format
    #[arg(long, short = 'o', value_enum, default_value = "table")]
    pub output: OutputFormat,
    /// Wait until the install is healthy (runner ready, runtime registered, certificate valid); exit 1 at --timeout
    #[arg(long)]
    pub wait: bool,
    /// How long --wait waits (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration, requires = "wait")]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Clone, Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Also delete the namespace, if cf-runner created it and nothing else is in it
    #[arg(long)]
    pub delete_namespace: bool,
    /// Also delete the namespace cf-runner created with everything still in it (lists it first)
    #[arg(long)]
    pub delete_namespace_with_contents: bool,
    /// Also delete dind volumes (PVs and PVCs)
    #[arg(long)]
    pub purge_volumes: bool,
    /// Leave the agent and runtime environment on the platform
    #[arg(long)]
    pub keep_platform: bool,
    /// Also delete every runtime attached to the agent, first (their objects and runtime environments; the agent is not rolled for them)
    #[arg(long)]
    pub all_runtimes: bool,
    /// Delete an attached runtime's namespace objects although an agent may still serve it (its agent is gone)
    #[arg(long)]
    pub ignore_agent: bool,
    /// Also delete objects that existed before the install and were taken over with --force-conflicts
    #[arg(long)]
    pub delete_adopted: bool,
    /// How long to wait for the objects to be gone, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Stop at once (exit 1) when another run holds the install's lock, instead of waiting up to --timeout
    #[arg(long)]
    pub no_wait_for_lock: bool,
}

/// Flags of `upgrade`: which installation, and what to change. Everything
/// not given is taken from the installation's record.
#[derive(Debug, Clone, Args)]
pub struct UpgradeArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Values file applied on top of the stored values (repeatable; later files win)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// Set a value to a file's contents (repeatable): Storage.GoogleServiceAccount=key.json
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,

    /// Codefresh API token (for the monitor) [default: the one installed]
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Codefresh platform URL; the only host other than the token's own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation's, when it is the token's own]
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Agent token [default: the one installed]
    #[arg(long, value_name = "TOKEN")]
    pub agent_token: Option<String>,
    /// Send the API key over a plain http:// platform URL (other than localhost)
    #[arg(long)]
    pub allow_http: bool,

    /// Take over fields that another field manager owns
    #[arg(long)]
    pub force_conflicts: bool,
    /// How long to wait for the workloads to become ready, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Apply and return without waiting for the workloads
    #[arg(long)]
    pub no_wait: bool,
    /// Stop at once (exit 1) when another run holds the install's lock, instead of waiting up to --timeout
    #[arg(long)]
    pub no_wait_for_lock: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    /// Values file to check the install of (repeatable)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// Output format
    #[arg(long, short = 'o', value_enum, default_value = "table")]
    pub output: OutputFormat,
    /// Also try the build path on the installed namespace: a dind claim and a dind-like pod
    #[arg(long)]
    pub probe: bool,
    /// How long the probe may take (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub probe_timeout: std::time::Duration,
    /// Let a kubeconfig that a values file names (ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)
    #[arg(long)]
    pub trust_values_kubeconfig: bool,
}

/// Flags of `diff`: the flags of `upgrade` that decide what is applied.
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Values file applied on top of the stored values (repeatable; later files win)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// Set a value to a file's contents (repeatable): Storage.GoogleServiceAccount=key.json
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// Codefresh API token (for the monitor) [default: the one installed]
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Codefresh platform URL; the only host other than the token's own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation's, when it is the token's own]
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Agent token [default: the one installed]
    #[arg(long, value_name = "TOKEN")]
    pub agent_token: Option<String>,
    /// Output format
    #[arg(long, short = 'o', value_enum, default_value = "table")]
    pub output: OutputFormat,
}

/// Flags of `images`: the values of an install, as `init` takes them.
#[derive(Debug, Clone, Args)]
pub struct ImagesArgs {
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Values file in the venonactl format (repeatable; later files win)
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=true
    #[arg(long = "set-value", value_name = "KEY=VALUE")]
    pub set_value: Vec<String>,
    /// Set a value to a file's contents (repeatable): Storage.GoogleServiceAccount=key.json
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// Ask each image's registry whether it holds it; exit 1 when one is missing
    #[arg(long)]
    pub check: bool,
    /// Docker config file with registry credentials for --check [default: $DOCKER_CONFIG/config.json, then ~/.docker/config.json]
    #[arg(long, value_name = "PATH")]
    pub docker_config: Option<PathBuf>,
    /// Output format
    #[arg(long, short = 'o', value_enum, default_value = "table")]
    pub output: OutputFormat,
}

/// Flags of `support-bundle`.
#[derive(Debug, Clone, Args)]
pub struct SupportBundleArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    // clap's help text, not rustdoc's markup: `<…>` is what `--help` shows.
    #[allow(rustdoc::invalid_html_tags)]
    /// Where to write the bundle [default: cf-runner-support-<namespace>-<UTC time>.tar.gz here]
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write over a file at --output that is not a bundle cf-runner wrote
    #[arg(long)]
    pub overwrite: bool,
    /// Only log lines newer than this (e.g. 30m, 6h, 2d)
    #[arg(long, value_name = "AGE", default_value = "6h", value_parser = parse_since)]
    pub since: std::time::Duration,
    /// Most bytes kept of each container log, the newest (e.g. 512Ki, 2Mi)
    #[arg(long, value_name = "BYTES", default_value = "1Mi", value_parser = parse_size)]
    pub max_log_bytes: u64,
    /// Largest bundle to write; what would pass it is left out and listed (e.g. 20Mi)
    #[arg(long, value_name = "BYTES", default_value = "50Mi", value_parser = parse_size)]
    pub max_size: u64,
}

/// How to reach the Codefresh platform (commands other than `init`).
#[derive(Debug, Clone, Args)]
pub struct PlatformArgs {
    /// Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    // clap's help text, not rustdoc's markup: `[default: …]` and a bare URL
    // are what `--help` shows.
    #[allow(
        rustdoc::broken_intra_doc_links,
        rustdoc::invalid_html_tags,
        rustdoc::bare_urls
    )]
    /// Codefresh platform URL [default: the installation's, else https://g.codefresh.io]
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Skip TLS verification towards the platform (self-signed on-prem only)
    #[arg(long)]
    pub insecure: bool,
    /// Send the API key over a plain http:// platform URL (other than localhost)
    #[arg(long)]
    pub allow_http: bool,
}

#[derive(Debug, Clone, Args)]
pub struct TestPipelineArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Runtime environment to run the demo pipeline on [default: the installation's]
    #[arg(long, value_name = "NAME")]
    pub runtime_name: Option<String>,
}

/// Flags of `adopt`.
#[derive(Debug, Clone, Args)]
pub struct AdoptArgs {
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Read the install, save the values file and print the plan; change nothing in the cluster
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask for confirmation before moving the runner
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// How long to wait for each step of the move, and for another run's lock (e.g. 90s, 5m)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Stop at once (exit 1) when another run holds the install's lock, instead of waiting up to --timeout
    #[arg(long)]
    pub no_wait_for_lock: bool,
    /// Where to save what the install is, as a cf-runner values file
    #[arg(long, value_name = "PATH", default_value = "cf-runner-values.yaml")]
    pub values_file: PathBuf,
    /// Write over a file at --values-file that cf-runner adopt did not write
    #[arg(long)]
    pub overwrite: bool,
}

/// Shells with completion scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Flags typed from kubectl habit, and the flag of cf-runner that does that.
const KUBECTL_HABITS: &[(&str, &str)] = &[
    ("--namespace", "--kube-namespace"),
    ("-n", "--kube-namespace"),
    ("--context", "--kube-context-name"),
    ("--kubeconfig", "--kube-config-path"),
];

/// Points an unknown kubectl-style flag at cf-runner's own (`--namespace`
/// is the runner's namespace, `--kube-namespace`; clap alone would suggest
/// `--name`, the agent's name on the platform).
pub fn suggest_kubectl_habits(err: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::UnknownArgument {
        return;
    }
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidArg) else {
        return;
    };
    let flag = typed.split('=').next().unwrap_or(typed).to_string();
    if let Some((_, ours)) = KUBECTL_HABITS.iter().find(|(habit, _)| *habit == flag) {
        err.insert(
            ContextKind::SuggestedArg,
            ContextValue::String((*ours).to_string()),
        );
        // clap's usage line shows the flag it would have suggested; show ours.
        if let Some(ContextValue::StyledStr(usage)) = err.get(ContextKind::Usage) {
            let text = usage.to_string();
            if let Some(start) = text.find("Usage: ") {
                let command: Vec<&str> = text[start + 7..]
                    .split_whitespace()
                    .take_while(|w| !w.starts_with('-') && !w.starts_with('['))
                    .collect();
                let line = format!("Usage: {} {ours} <VALUE>", command.join(" "));
                err.insert(ContextKind::Usage, ContextValue::StyledStr(line.into()));
            }
        }
    }
}

/// The longest wait a `--timeout` may ask for: a day. Longer is a typo (and
/// a deadline past what a clock can hold would wrap or panic).
pub const MAX_WAIT_SECS: u64 = 24 * 3600;

/// The oldest log line `--since` may ask for, in days.
pub const MAX_SINCE_DAYS: u64 = 30;

/// Parses a log age: `90s`, `30m`, `6h`, `2d` or plain seconds, up to
/// [`MAX_SINCE_DAYS`].
pub fn parse_since(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let per_unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("{text:?} is not an age; write e.g. 30m, 6h or 2d")),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not an age; write e.g. 30m, 6h or 2d"))?;
    match n.checked_mul(per_unit) {
        Some(0) => Err(format!("{text:?} keeps no log line; write e.g. 30m, 6h or 2d")),
        Some(secs) if secs <= MAX_SINCE_DAYS * 86_400 => Ok(std::time::Duration::from_secs(secs)),
        _ => Err(format!(
            "{text:?} is older than the {MAX_SINCE_DAYS}d a node keeps logs for at most; write e.g. 7d"
        )),
    }
}

/// Parses a size in bytes: `1048576`, `512Ki`, `20Mi`, `1Gi` (or `K`, `M`,
/// `G` for powers of 1000).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let per_unit: u64 = match unit {
        "" => 1,
        "K" | "k" => 1000,
        "M" => 1000 * 1000,
        "G" => 1000 * 1000 * 1000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        _ => {
            return Err(format!(
                "{text:?} is not a size; write e.g. 512Ki, 20Mi or 1Gi"
            ))
        }
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size; write e.g. 512Ki, 20Mi or 1Gi"))?;
    match n.checked_mul(per_unit) {
        Some(0) => Err(format!(
            "{text:?} is no room at all; write e.g. 512Ki or 20Mi"
        )),
        Some(bytes) => Ok(bytes),
        None => Err(format!("{text:?} is too large; write e.g. 20Mi or 1Gi")),
    }
}

/// Parses `90s`, `5m`, `1h` or plain seconds, up to [`MAX_WAIT_SECS`].
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let too_long = || {
        format!(
            "{text:?} is longer than the {}h a wait may last; write e.g. 30m or 2h",
            MAX_WAIT_SECS / 3600
        )
    };
    // A number too large for u64 is a too-long wait, not a non-number.
    let n: u64 = match number.parse() {
        Ok(n) => n,
        Err(_) if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(too_long())
        }
        Err(_) => {
            return Err(format!(
                "{text:?} is not a duration; write e.g. 90s, 5m or 1h"
            ))
        }
    };
    let per_unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("{text:?} has an unknown unit; use s, m or h")),
    };
    let secs = n.checked_mul(per_unit).ok_or_else(too_long)?;
    if secs == 0 {
        return Err("the timeout must be more than 0".into());
    }
    if secs > MAX_WAIT_SECS {
        return Err(too_long());
    }
    Ok(std::time::Duration::from_secs(secs))
}

//! The validated values: the typed model the rest of cf-runner works from,
//! its defaults, and the shape checks the `Reader` uses (names, labels,
//! quantities). The `Reader` itself, which turns one key of the merged tree
//! into a typed field (recording a [`super::Problem`] when its shape is
//! wrong), is in `model/reader.rs`. The rules between keys (PRODUCT.md §2),
//! and the order the keys are read in, live in `values/mod.rs`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::tree::lookup;

pub use super::ballast::Ballast;
pub use super::ca_bundle::CaBundle;
pub use super::component_tuning::ComponentTuning;
pub use super::engine_tuning::EngineTuning;
pub use super::gateway::HttpRoute;
pub use super::hygiene::Hygiene;
pub use super::metrics::Metrics;
pub use super::placement::Placement;

pub(super) mod reader;

/// The Codefresh platform's address when none is given.
pub const DEFAULT_CODEFRESH_HOST: &str = "https://g.codefresh.io";
/// The namespace suggested when none is given.
pub const DEFAULT_NAMESPACE: &str = "codefresh";
/// Where local dind volumes live on the node when not told otherwise.
pub const DEFAULT_LOCAL_VOLUME_PARENT_DIR: &str = "/var/lib/codefresh/dind-volumes";

/// A secret string (token, key). Its `Debug` never shows the value, so a
/// stray `{:?}` cannot leak it.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The value, for the few places that must place it (a Kubernetes Secret).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// CPU architecture of the nodes the runner and builds run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// Any architecture: no `kubernetes.io/arch` selector is added.
    Any,
    Amd64,
    Arm64,
}

/// Resource requirements, kept as validated quantity strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Resources {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, String>,
}

impl Resources {
    /// True when neither limits nor requests are set.
    pub fn is_empty(&self) -> bool {
        self.limits.is_empty() && self.requests.is_empty()
    }
}

/// One Kubernetes toleration, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// Scheduling for one group of pods.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Scheduling {
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
}

/// An image reference override (`Name`/`Tag` or one string).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageOverride(pub String);

/// The storage backend and the parameters that belong to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "backend", rename_all = "kebab-case")]
pub enum Backend {
    Local {
        volume_parent_dir: String,
    },
    Ebs {
        csi: bool,
        availability_zone: String,
        volume_type: String,
        fs_type: String,
        encrypted: bool,
        kms_key_id: Option<String>,
        iops: Option<i64>,
        throughput: Option<i64>,
    },
    Gcedisk {
        availability_zone: String,
        volume_type: String,
        fs_type: String,
    },
    Azuredisk {
        sku_name: String,
        caching_mode: String,
        fs_type: String,
        location: Option<String>,
        resource_group: Option<String>,
    },
}

impl Backend {
    /// The name used in values files and StorageClass parameters.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Local { .. } => "local",
            Backend::Ebs { csi: false, .. } => "ebs",
            Backend::Ebs { csi: true, .. } => "ebs-csi",
            Backend::Gcedisk { .. } => "gcedisk",
            Backend::Azuredisk { .. } => "azuredisk",
        }
    }
}

/// The Secrets cf-runner writes and deletes itself (render names them):
/// never one a values key may point at as the user's.
pub const OWN_SECRETS: &[&str] = &[
    "dind-volume-provisioner",
    "cf-runner-credentials",
    "runner",
    "monitor",
    "cf-runner-values",
    "codefresh-certs-server",
    "codefresh-cluster-reader-token",
];

/// One key of a Secret the user keeps (the chart's `…SecretKeyRef`):
/// cf-runner points the provisioner at it, never writes or deletes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretKeyRef {
    pub name: String,
    pub key: String,
}

/// Cloud credentials handed to the volume provisioner, if any: each one
/// either a value cf-runner keeps in its own Secret, or a key of a Secret
/// of the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProvisionerCredentials {
    pub aws_access_key_id: Option<Secret>,
    pub aws_secret_access_key: Option<Secret>,
    pub google_service_account: Option<Secret>,
    pub aws_access_key_id_ref: Option<SecretKeyRef>,
    pub aws_secret_access_key_ref: Option<SecretKeyRef>,
    pub google_service_account_ref: Option<SecretKeyRef>,
}

impl ProvisionerCredentials {
    /// True when any credential is a value of cf-runner's own (its Secret
    /// must be rendered).
    pub fn any(&self) -> bool {
        self.aws_access_key_id.is_some()
            || self.aws_secret_access_key.is_some()
            || self.google_service_account.is_some()
    }
}

/// Storage for dind volumes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Storage {
    /// The StorageClass the runtime's dind PVCs use.
    pub class_name: String,
    /// False when the user brought their own StorageClass: then no
    /// provisioner, StorageClass or volume cleaner is installed.
    pub provisioned: bool,
    pub backend: Backend,
    pub annotations: BTreeMap<String, String>,
    pub credentials: ProvisionerCredentials,
    pub provisioner_scheduling: Scheduling,
    pub provisioner_resources: Resources,
    pub provisioner_sa_annotations: BTreeMap<String, String>,
    /// The provisioner's and its volume cleaner's pod annotations and affinity.
    pub provisioner_placement: Placement,
    pub mount_azure_json: bool,
    pub provisioner_image: Option<ImageOverride>,
    pub lv_monitor_image: Option<ImageOverride>,
    pub lv_monitor_resources: Resources,
    pub cleaner_image: Option<ImageOverride>,
}

/// Engine and dind pods: the runtime environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Runtime {
    pub scheduling: Scheduling,
    pub sa_annotations: BTreeMap<String, String>,
    pub env: BTreeMap<String, String>,
    pub dind_resources: Resources,
    pub user_volumes: Option<Value>,
    pub user_volume_mounts: Option<Value>,
    pub volume_size: String,
    pub mtu: Option<i64>,
    pub registry_mirrors: Vec<String>,
    pub insecure_registries: Vec<String>,
    pub docker_daemon_access: bool,
    /// Annotations, labels, affinity and scheduler of engine and dind pods.
    pub placement: Placement,
}

/// The optional cluster monitor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Monitor {
    pub enabled: bool,
    pub image: Option<ImageOverride>,
    pub resources: Resources,
    pub env: BTreeMap<String, String>,
    pub sa_annotations: BTreeMap<String, String>,
    /// Read-only access to its own namespace (default) or the whole cluster.
    pub namespaced: bool,
    pub cluster_id: Option<String>,
    /// The monitor's Helm-release view (`Monitor.Helm3`): it reads Helm 3's
    /// release Secrets, so turning it on also grants reading Secrets.
    pub helm_releases: bool,
    pub placement: Placement,
}

/// The optional app-proxy and its Ingress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppProxy {
    pub enabled: bool,
    pub image: Option<ImageOverride>,
    pub resources: Resources,
    pub env: BTreeMap<String, String>,
    pub sa_annotations: BTreeMap<String, String>,
    pub host: Option<String>,
    pub ingress_class: Option<String>,
    pub tls_secret: Option<String>,
    pub path_prefix: String,
    pub annotations: BTreeMap<String, String>,
    /// `AppProxy.Ingress.Enabled`: off, only the Service (and the HTTPRoute).
    pub ingress: bool,
    /// `AppProxy.HttpRoute`: a Gateway API route to the app-proxy.
    pub http_route: Option<HttpRoute>,
    pub placement: Placement,
}

/// The runner (agent) Deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Runner {
    pub scheduling: Scheduling,
    pub resources: Resources,
    pub env: BTreeMap<String, String>,
    pub image: Option<ImageOverride>,
    pub placement: Placement,
}

/// Everything cf-runner needs to render and install, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Values {
    pub namespace: String,
    pub context: Option<String>,
    pub config_path: Option<String>,
    pub codefresh_host: String,
    pub token: Option<Secret>,
    pub agent_token: Option<Secret>,
    pub agent_name: Option<String>,
    pub runtime_name: Option<String>,
    pub kubernetes_host: Option<String>,
    pub insecure: bool,
    pub set_default_runtime: bool,
    pub exec_demo_pipeline: bool,
    pub skip_cluster_test: bool,
    pub skip_cluster_integration: bool,
    /// `AgentOnly`: the agent alone, no runtime in its namespace (its
    /// runtimes are attached in other namespaces or clusters).
    pub agent_only: bool,
    /// Global env vars (proxies): every component and the runtime get them.
    pub env_vars: BTreeMap<String, String>,
    /// Every value that carries URL credentials (a proxy's password, say),
    /// by its key in the credentials Secret; pods read them from there.
    #[serde(skip)]
    pub url_credentials: BTreeMap<String, Secret>,
    pub docker_registry: Option<String>,
    /// `ImagePullSecrets`: the user's registry Secrets, by name, on every
    /// pod cf-runner renders and on the builds' ServiceAccount.
    pub image_pull_secrets: Vec<String>,
    /// Volume retention and cleaning, volume reuse, the dind bridge and
    /// the engine's workflow limits.
    pub hygiene: Hygiene,
    /// Prometheus monitors and the event exporter (`Metrics.*`, `EventExporter.*`).
    pub metrics: Metrics,
    /// Images, resources, grace periods and user env of every build's
    /// engine and dind pod.
    pub engine_tuning: EngineTuning,
    /// Service account and pod annotations, the cleaner's schedule and
    /// replicas of the components.
    pub component_tuning: ComponentTuning,
    /// `Runtime.Ballast`: placeholder pods keeping build room warm.
    pub ballast: Ballast,
    /// Security contexts of every pod, and rootless dind.
    pub security: super::security::Security,
    /// `OpenShift`: follow the OpenShift recipe (SCC bindings, no fixed ids).
    pub openshift: super::openshift::OpenShift,
    /// `CaBundle`: certificates every component and build trusts (a
    /// TLS-inspecting proxy's CA).
    pub ca_bundle: Option<CaBundle>,
    /// `Storage.AwsPodIdentity`: the volume provisioner's AWS rights come
    /// from an EKS Pod Identity association.
    pub aws_pod_identity: bool,
    /// `ExtraResources`: the user's own objects, installed and removed with
    /// the runner, each checked (see `values::extra_resources`).
    pub extra_resources: Vec<Value>,
    pub arch: Arch,
    pub runner: Runner,
    pub storage: Storage,
    pub runtime: Runtime,
    pub monitor: Monitor,
    pub app_proxy: AppProxy,
}

/// The YAML core schema's spellings of a boolean (`true`, `True`, `TRUE`).
pub fn bool_text(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Checks a Kubernetes qualified name (`[prefix/]name`).
pub fn check_qualified_name(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        if p.is_empty() || p.len() > 253 || !is_dns_subdomain(p) {
            return Err(format!("the prefix `{p}` is not a DNS subdomain"));
        }
    }
    if name.is_empty() || name.len() > 63 {
        return Err("the name must be 1 to 63 characters".into());
    }
    let ok_inner = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    let ends_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric());
    if !ok_inner || !ends_ok {
        return Err(
            "the name must be alphanumeric, `-`, `_` or `.`, and start and end alphanumeric".into(),
        );
    }
    Ok(())
}

/// Checks a label value (may be empty).
pub fn check_label_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    check_qualified_name(value).map_err(|_| {
        "it must be at most 63 characters of letters, digits, `-`, `_` or `.`".to_string()
    })?;
    if value.contains('/') {
        return Err("it cannot contain `/`".into());
    }
    Ok(())
}

/// DNS-1123 label: lowercase alphanumerics and `-`, at most 63, alphanumeric ends.
pub fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// DNS-1123 subdomain: dot-separated labels, at most 253.
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
}

const QUANTITY_SUFFIXES: &[(&str, f64)] = &[
    ("Ki", 1024.0),
    ("Mi", 1048576.0),
    ("Gi", 1073741824.0),
    ("Ti", 1099511627776.0),
    ("Pi", 1125899906842624.0),
    ("Ei", 1152921504606846976.0),
    ("n", 1e-9),
    ("u", 1e-6),
    ("m", 1e-3),
    ("k", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("P", 1e15),
    ("E", 1e18),
];

/// The numeric value of a Kubernetes quantity (`500m`, `2Gi`, `1e3`), if it is one.
pub fn quantity_value(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, scale) = QUANTITY_SUFFIXES
        .iter()
        .find_map(|(suffix, scale)| text.strip_suffix(suffix).map(|n| (n, *scale)))
        .unwrap_or((text, 1.0));
    let unsigned = number.strip_prefix(['+', '-']).unwrap_or(number);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) if scale == 1.0 => (m, Some(e)),
        Some(_) => return None,
        None => (unsigned, None),
    };
    let digits_ok = !mantissa.is_empty()
        && mantissa != "."
        && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.')
        && mantissa.matches('.').count() <= 1;
    if !digits_ok {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let value: f64 = number.parse().ok()?;
    Some(value * scale).filter(|v| v.is_finite())
}

/// True when `text` is a Kubernetes quantity.
pub fn is_quantity(text: &str) -> bool {
    quantity_value(text).is_some_and(|v| v >= 0.0)
}

#[cfg(test)]
mod tests;

//! Render: `&Values` (+ the platform-issued identity) → the Kubernetes objects
//! to install, and the runtime-environment spec. Pure: no I/O, no clock, no
//! randomness, so the same input always gives the same bytes.
//!
//! Templates live in `templates/` and are embedded at build time (MiniJinja
//! syntax). Values are inserted with `tojson`, which YAML reads as flow
//! style, so no value can break the indentation or inject keys.
//!
//! Two writers share what they say about the same pods: the manifests (here)
//! and the Helm chart's values file ([`helm`]). What both use stays private
//! to this module, so nothing outside can depend on it: the node selector
//! with the architecture, the dind daemon config and the lv-monitor's
//! tolerations; the provisioner's name and the pinned [`images`] are public
//! because other commands read them too.

pub mod helm;
pub mod images;
pub mod record;
pub mod runtime_spec;
pub mod runtimes;
mod tojson;
pub mod yaml;

pub use runtime_spec::runtime_environment_spec;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::values::{Arch, Backend, Scheduling, Secret, SecretKeyRef, Values};

/// Label every object carries: who manages it.
pub const LABEL_MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// Label every object carries: which product it is part of.
pub const LABEL_PART_OF: &str = "app.kubernetes.io/part-of";
/// Label every object carries: which installation (the runner's namespace).
pub const LABEL_INSTANCE: &str = "app.kubernetes.io/instance";
/// Label every object carries: which component.
pub const LABEL_COMPONENT: &str = "app.kubernetes.io/component";
/// Name of the Secret that records the values an installation used.
pub const RECORD_SECRET: &str = "cf-runner-values";
/// Name of the Secret holding the values that carry URL credentials (a
/// proxy's password, say): pods read them from it, never from a literal.
pub const CREDENTIALS_SECRET: &str = "cf-runner-credentials";
/// Version of the record's layout, so later versions can read older ones.
pub const RECORD_FORMAT: &str = "1";
/// The keys of the record Secret, as `templates/record.yaml` writes them.
pub mod record_keys {
    /// The cf-runner version that last installed or upgraded.
    pub const VERSION: &str = "cf-runner-version";
    /// [`RECORD_FORMAT`](super::RECORD_FORMAT).
    pub const FORMAT: &str = "record-format";
    /// The agent's name on the platform.
    pub const AGENT_NAME: &str = "agent-name";
    /// The runtime environment's name on the platform.
    pub const RUNTIME_NAME: &str = "runtime-name";
    /// `true` when the install registered on the platform.
    pub const REGISTERED: &str = "registered-on-platform";
    /// The merged values as YAML, secrets redacted.
    pub const VALUES: &str = "values.yaml";
    /// Every key, in the template's order.
    pub const ALL: [&str; 6] = [
        VERSION,
        FORMAT,
        AGENT_NAME,
        RUNTIME_NAME,
        REGISTERED,
        VALUES,
    ];
}
/// The key of the API token in [`RUNNER_SECRET`] (the agent's) and
/// [`MONITOR_SECRET`] (the platform's).
pub const TOKEN_KEY: &str = "codefresh.token";
/// The keys of [`DIND_CERTS_SECRET`]: CA, certificate, key.
pub const DIND_CERT_KEYS: [&str; 3] = ["ca.pem", "server-cert.pem", "server-key.pem"];

/// The Secret holding the agent token (`templates/runner.yaml`).
pub const RUNNER_SECRET: &str = "runner";
/// The Secret holding dind's TLS key, certificate and CA (`templates/runtime.yaml`).
pub const DIND_CERTS_SECRET: &str = "codefresh-certs-server";
/// The Secret holding the monitor's API token (`templates/monitor.yaml`).
pub const MONITOR_SECRET: &str = "monitor";
/// The Secret holding the volume provisioner's cloud credentials
/// (`templates/volume-provisioner.yaml`).
pub const PROVISIONER_SECRET: &str = "dind-volume-provisioner";
/// The token Secret of the cluster integration's ServiceAccount
/// (`templates/cluster-integration.yaml`).
pub const CLUSTER_READER_TOKEN_SECRET: &str = "codefresh-cluster-reader-token";

/// What a placeholder looks like, so nobody mistakes it for a real value.
pub fn placeholder(what: &str) -> String {
    format!("<placeholder: {what}, issued by the Codefresh platform during install>")
}

/// True for a value rendered as a [`placeholder`] (the platform issued none).
pub fn is_placeholder(text: &str) -> bool {
    text.starts_with("<placeholder")
}

/// Names and credentials that come from the platform (or the kubeconfig) at
/// install time. Anything unknown renders as an obvious placeholder.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub context: Option<String>,
    pub agent_name: Option<String>,
    pub runtime_name: Option<String>,
    pub account_id: Option<String>,
    pub agent_token: Option<Secret>,
    pub dind_ca: Option<Secret>,
    pub dind_cert: Option<Secret>,
    pub dind_key: Option<Secret>,
    /// True when the agent and runtime are registered on the platform (not
    /// an offline install); recorded so `delete` knows what to clean there.
    pub registered: bool,
}

impl Identity {
    /// The kube context name, or a placeholder.
    pub fn context_or_placeholder(&self) -> String {
        self.context
            .clone()
            .unwrap_or_else(|| "<placeholder: kube context name>".into())
    }
    /// `<context>_<namespace>` unless named.
    pub fn agent_name(&self, values: &Values) -> String {
        self.agent_name
            .clone()
            .unwrap_or_else(|| format!("{}_{}", self.context_or_placeholder(), values.namespace))
    }
    /// `<context>/<namespace>` unless named.
    pub fn runtime_name(&self, values: &Values) -> String {
        self.runtime_name
            .clone()
            .unwrap_or_else(|| format!("{}/{}", self.context_or_placeholder(), values.namespace))
    }
}

/// Which part of the runner an object belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Component {
    Namespace,
    Runner,
    Runtime,
    VolumeProvisioner,
    Monitor,
    AppProxy,
    ClusterIntegration,
    Record,
    /// What an agent acts as in an attached runtime's namespace, and its runtimes' files.
    RuntimeAccess,
}

impl Component {
    /// The label value and file-name part.
    pub fn as_str(self) -> &'static str {
        match self {
            Component::Namespace => "namespace",
            Component::Runner => "runner",
            Component::Runtime => "runtime",
            Component::VolumeProvisioner => "volume-provisioner",
            Component::Monitor => "monitor",
            Component::AppProxy => "app-proxy",
            Component::ClusterIntegration => "cluster-integration",
            Component::Record => "record",
            Component::RuntimeAccess => "runtime-access",
        }
    }
}

/// One rendered Kubernetes object, as plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    pub component: Component,
    /// Apply stage: 0 namespace/cluster storage, 1 RBAC/config/secrets, 2 workloads.
    pub stage: u8,
    pub object: Value,
}

impl Manifest {
    /// True when this is a ClusterRole whose rules grant `verb` on the core
    /// `resource` (a `*` in a rule counts), i.e. in every namespace.
    pub fn grants_cluster_wide(&self, resource: &str, verb: &str) -> bool {
        if self.kind != "ClusterRole" {
            return false;
        }
        let has = |rule: &Value, field: &str, want: &str| {
            rule[field]
                .as_array()
                .is_some_and(|l| l.iter().any(|v| v == want || v == "*"))
        };
        self.object["rules"].as_array().is_some_and(|rules| {
            rules.iter().any(|rule| {
                has(rule, "apiGroups", "")
                    && has(rule, "resources", resource)
                    && has(rule, "verbs", verb)
            })
        })
    }

    /// True for Secrets (their files are written 0600).
    pub fn is_secret(&self) -> bool {
        self.kind == "Secret"
    }
    /// `kind/name`, for messages.
    pub fn display_name(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }
    /// A stable file name: stage, kind and name.
    pub fn file_name(&self) -> String {
        format!(
            "{}-{}-{}.yaml",
            self.stage,
            self.kind.to_ascii_lowercase(),
            self.name
        )
    }
}

/// Everything `render` produces.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub manifests: Vec<Manifest>,
    /// The runtime-environment spec registered on the platform, from
    /// [`runtime_environment_spec`].
    pub runtime_environment: Value,
}

/// Why rendering failed: always a bug in cf-runner, never bad input (input is
/// validated before it gets here).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {template} failed to render: {source}")]
    Template {
        template: String,
        #[source]
        source: minijinja::Error,
    },
    #[error("template {template} produced invalid YAML in document {index}: {message}")]
    Yaml {
        template: String,
        index: usize,
        message: String,
    },
    #[error("{object} from template {template} is not a valid {kind}: {message}")]
    Schema {
        template: String,
        object: String,
        kind: String,
        message: String,
    },
}

/// The embedded templates: (name, component, text).
const TEMPLATES: &[(&str, Component, &str)] = &[
    (
        "namespace.yaml",
        Component::Namespace,
        include_str!("../../templates/namespace.yaml"),
    ),
    (
        "runner.yaml",
        Component::Runner,
        include_str!("../../templates/runner.yaml"),
    ),
    (
        "runtime.yaml",
        Component::Runtime,
        include_str!("../../templates/runtime.yaml"),
    ),
    (
        "volume-provisioner.yaml",
        Component::VolumeProvisioner,
        include_str!("../../templates/volume-provisioner.yaml"),
    ),
    (
        "monitor.yaml",
        Component::Monitor,
        include_str!("../../templates/monitor.yaml"),
    ),
    (
        "app-proxy.yaml",
        Component::AppProxy,
        include_str!("../../templates/app-proxy.yaml"),
    ),
    (
        "cluster-integration.yaml",
        Component::ClusterIntegration,
        include_str!("../../templates/cluster-integration.yaml"),
    ),
    (
        "credentials.yaml",
        Component::Runner,
        include_str!("../../templates/credentials.yaml"),
    ),
    (
        "record.yaml",
        Component::Record,
        include_str!("../../templates/record.yaml"),
    ),
];

/// The template engine with every embedded template. MiniJinja, because a
/// dry-run is a whole process that parses every template once: MiniJinja
/// parses them about 30 times faster than Tera did (see bench/), which was
/// most of a dry-run's CPU time. No auto-escaping (`.yaml` names), strict
/// about undefined values so a typo in a template fails the tests.
///
/// Empty but for `tojson`, the one filter the templates use: the default
/// environment registers some fifty filters, tests and globals on every
/// run. A template that used another would fail to render in every test.
fn engine() -> Result<minijinja::Environment<'static>, RenderError> {
    let mut env = minijinja::Environment::empty();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("tojson", tojson::tojson);
    for (name, _, text) in TEMPLATES {
        env.add_template(name, text)
            .map_err(|source| RenderError::Template {
                template: name.to_string(),
                source,
            })?;
    }
    Ok(env)
}

/// The ClusterRoles of `rendered` that let their subject read Secrets
/// (get, list or watch) in every namespace, for a warning: no default
/// renders one; a setting can (the monitor's Helm-release view without its
/// namespaced Role).
pub fn cluster_wide_secret_readers(rendered: &Rendered) -> Vec<&Manifest> {
    rendered
        .manifests
        .iter()
        .filter(|m| {
            ["get", "list", "watch"]
                .iter()
                .any(|verb| m.grants_cluster_wide("secrets", verb))
        })
        .collect()
}

/// Renders every object and the runtime-environment spec.
///
/// `record` is the redacted values tree stored in the record Secret.
pub fn render(
    values: &Values,
    identity: &Identity,
    record: &Value,
) -> Result<Rendered, RenderError> {
    let mut manifests = Vec::new();
    for (name, component, text) in template_output(values, identity, record)? {
        let objects =
            yaml::parse_documents(&text).map_err(|(index, message)| RenderError::Yaml {
                template: name.to_string(),
                index,
                message,
            })?;
        // Once per template, not per object: they all share the component.
        let labels = common_labels(&values.namespace, component);
        for object in objects {
            if object.is_null() {
                continue;
            }
            manifests.push(finish(object, component, &labels, name, values)?);
        }
    }
    if values.agent_only {
        runtimes::agent_only(&mut manifests, &values.namespace);
    }
    record::keep_held(&mut manifests, record);
    manifests.sort_by(|a, b| {
        (a.stage, kind_rank(&a.kind), &a.name).cmp(&(b.stage, kind_rank(&b.kind), &b.name))
    });
    let runtime_environment = runtime_environment_spec(values, identity);
    Ok(Rendered {
        manifests,
        runtime_environment,
    })
}

/// What each template renders to, as text: its name, its component, and the
/// YAML stream.
pub fn template_output(
    values: &Values,
    identity: &Identity,
    record: &Value,
) -> Result<Vec<(&'static str, Component, String)>, RenderError> {
    let env = engine()?;
    let ctx = build_context(values, identity, record);
    let mut out = Vec::new();
    for (name, component, _) in TEMPLATES {
        let text = env
            .get_template(name)
            .and_then(|t| t.render(&ctx))
            .map_err(|source| RenderError::Template {
                template: name.to_string(),
                source,
            })?;
        out.push((*name, *component, text));
    }
    Ok(out)
}

/// Splits a multi-document YAML stream on `---` lines, dropping blank documents.
pub fn split_documents(text: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            docs.push(&text[start..offset]);
            start = offset + line.len();
        }
        offset += line.len();
    }
    docs.push(&text[start..]);
    docs.into_iter()
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "Namespace" => 0,
        "StorageClass" => 1,
        "ServiceAccount" => 2,
        "ClusterRole" => 3,
        "Role" => 4,
        "ClusterRoleBinding" => 5,
        "RoleBinding" => 6,
        "Secret" => 7,
        "ConfigMap" => 8,
        "Service" => 9,
        "Deployment" => 10,
        "DaemonSet" => 11,
        "CronJob" => 12,
        "Ingress" => 13,
        _ => 20,
    }
}

fn stage_of(kind: &str) -> u8 {
    match kind {
        "Namespace" | "StorageClass" => 0,
        "Deployment" | "DaemonSet" | "CronJob" | "Ingress" => 2,
        _ => 1,
    }
}

fn is_cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace" | "StorageClass" | "ClusterRole" | "ClusterRoleBinding"
    )
}

/// The labels every object of `component` carries.
pub fn common_labels(namespace: &str, component: Component) -> BTreeMap<String, String> {
    BTreeMap::from([
        (LABEL_MANAGED_BY.to_string(), "cf-runner".to_string()),
        (LABEL_PART_OF.to_string(), "codefresh-runner".to_string()),
        (LABEL_INSTANCE.to_string(), namespace.to_string()),
        (LABEL_COMPONENT.to_string(), component.as_str().to_string()),
    ])
}

/// Adds labels and namespace, then checks the object against its
/// k8s-openapi type.
fn finish(
    mut object: Value,
    component: Component,
    common: &BTreeMap<String, String>,
    template: &str,
    values: &Values,
) -> Result<Manifest, RenderError> {
    let str_field = |o: &Value, f: &str| o.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let api_version = str_field(&object, "apiVersion");
    let kind = str_field(&object, "kind");
    let metadata = object
        .as_object_mut()
        .and_then(|o| {
            o.entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
        })
        .ok_or_else(|| RenderError::Yaml {
            template: template.into(),
            index: 0,
            message: "a document is not a map".into(),
        })?;
    let name = metadata
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let labels = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(labels) = labels.as_object_mut() {
        for (k, v) in common {
            labels.insert(k.clone(), Value::String(v.clone()));
        }
    }
    let namespace = if is_cluster_scoped(&kind) {
        metadata.remove("namespace");
        None
    } else {
        metadata.insert("namespace".into(), Value::String(values.namespace.clone()));
        Some(values.namespace.clone())
    };
    check_schema(&api_version, &kind, &object).map_err(|message| RenderError::Schema {
        template: template.into(),
        object: format!("{kind}/{name}"),
        kind: kind.clone(),
        message,
    })?;
    Ok(Manifest {
        stage: stage_of(&kind),
        api_version,
        kind,
        name,
        namespace,
        component,
        object,
    })
}

fn typed<T: serde::de::DeserializeOwned>(object: &Value) -> Result<(), String> {
    // Deserialized from a borrow: no copy of the tree.
    T::deserialize(object)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Deserializes the object into its k8s-openapi type, so a malformed template
/// fails here (and in the tests) rather than in the user's cluster.
pub fn check_schema(api_version: &str, kind: &str, object: &Value) -> Result<(), String> {
    use k8s_openapi::api::{apps, batch, core, networking, rbac, storage};
    match (api_version, kind) {
        ("v1", "Namespace") => typed::<core::v1::Namespace>(object),
        ("v1", "ServiceAccount") => typed::<core::v1::ServiceAccount>(object),
        ("v1", "Secret") => typed::<core::v1::Secret>(object),
        ("v1", "ConfigMap") => typed::<core::v1::ConfigMap>(object),
        ("v1", "Service") => typed::<core::v1::Service>(object),
        ("apps/v1", "Deployment") => typed::<apps::v1::Deployment>(object),
        ("apps/v1", "DaemonSet") => typed::<apps::v1::DaemonSet>(object),
        ("batch/v1", "CronJob") => typed::<batch::v1::CronJob>(object),
        ("rbac.authorization.k8s.io/v1", "Role") => typed::<rbac::v1::Role>(object),
        ("rbac.authorization.k8s.io/v1", "RoleBinding") => typed::<rbac::v1::RoleBinding>(object),
        ("rbac.authorization.k8s.io/v1", "ClusterRole") => typed::<rbac::v1::ClusterRole>(object),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding") => {
            typed::<rbac::v1::ClusterRoleBinding>(object)
        }
        ("storage.k8s.io/v1", "StorageClass") => typed::<storage::v1::StorageClass>(object),
        ("networking.k8s.io/v1", "Ingress") => typed::<networking::v1::Ingress>(object),
        _ => Err(format!("cf-runner does not render {api_version} {kind}")),
    }
}

/// Node selector for a group of pods: its own, plus the architecture.
fn selector_with_arch(scheduling: &Scheduling, arch: Arch) -> BTreeMap<String, String> {
    let mut selector = scheduling.node_selector.clone();
    match arch {
        Arch::Any => {}
        Arch::Amd64 => {
            selector.insert("kubernetes.io/arch".into(), "amd64".into());
        }
        Arch::Arm64 => {
            selector.insert("kubernetes.io/arch".into(), "arm64".into());
        }
    }
    selector
}

/// A container's env list. A value that carries URL credentials, or whose
/// variable is named as a credential's (`DB_PASSWORD`), comes from the
/// credentials Secret (under the values key it was given at, else under
/// `env.NAME`, added to `credentials`), never from a literal.
fn env_list(
    env: &BTreeMap<String, String>,
    credentials: &mut BTreeMap<String, String>,
) -> Vec<Value> {
    env.iter()
        .map(|(k, v)| {
            let named = !v.is_empty() && crate::text::is_credential_name(k);
            if !named && !crate::text::has_url_credentials(v) {
                return json!({"name": k, "value": v});
            }
            let key = credentials
                .iter()
                .find(|(_, real)| real.as_str() == v.trim() || real.as_str() == v.as_str())
                .map(|(key, _)| key.clone())
                .unwrap_or_else(|| {
                    let key = format!("env.{k}");
                    credentials.insert(key.clone(), v.clone());
                    key
                });
            json!({"name": k, "valueFrom": {"secretKeyRef": {"name": CREDENTIALS_SECRET, "key": key}}})
        })
        .collect()
}

fn secret_or_placeholder(secret: Option<&Secret>, what: &str) -> String {
    secret
        .map(|s| s.expose().to_string())
        .unwrap_or_else(|| placeholder(what))
}

/// The provisioner name the StorageClass points at.
pub fn provisioner_name(namespace: &str) -> String {
    format!("codefresh.io/dind-volume-provisioner-runner-{namespace}")
}

/// The docker daemon configuration of dind pods (`daemon.json`), also the
/// Helm chart's `runtime.dindDaemon`.
fn daemon_config(values: &Values) -> Value {
    let mut daemon = json!({
        "hosts": ["unix:///var/run/docker.sock", "tcp://0.0.0.0:1300"],
        "tlsverify": true,
        "tls": true,
        "tlscacert": "/etc/ssl/cf-client/ca.pem",
        "tlscert": "/etc/ssl/cf/server-cert.pem",
        "tlskey": "/etc/ssl/cf/server-key.pem",
        "metrics-addr": "0.0.0.0:9323",
        "experimental": true,
    });
    let map = daemon.as_object_mut().expect("a map");
    // Always present, even empty: in the Helm values an absent key would let
    // the chart's example registry (192.168.99.100:5000) through.
    map.insert(
        "insecure-registries".into(),
        json!(values.runtime.insecure_registries),
    );
    if !values.runtime.registry_mirrors.is_empty() {
        map.insert(
            "registry-mirrors".into(),
            json!(values.runtime.registry_mirrors),
        );
    }
    if let Some(mtu) = values.runtime.mtu {
        map.insert("mtu".into(), json!(mtu));
    }
    daemon
}

fn storage_parameters(values: &Values) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    let mut put = |k: &str, v: &str| {
        p.insert(k.to_string(), v.to_string());
    };
    put("volumeBackend", values.storage.backend.name());
    match &values.storage.backend {
        Backend::Local { volume_parent_dir } => put("volumeParentDir", volume_parent_dir),
        Backend::Ebs {
            availability_zone,
            volume_type,
            fs_type,
            encrypted,
            kms_key_id,
            iops,
            throughput,
            ..
        } => {
            put("AvailabilityZone", availability_zone);
            put("VolumeType", volume_type);
            put("fsType", fs_type);
            put("encrypted", if *encrypted { "true" } else { "false" });
            if let Some(k) = kms_key_id {
                put("kmsKeyId", k);
            }
            if let Some(i) = iops {
                put("iops", &i.to_string());
            }
            if let Some(t) = throughput {
                put("throughput", &t.to_string());
            }
        }
        Backend::Gcedisk {
            availability_zone,
            volume_type,
            fs_type,
        } => {
            put("zone", availability_zone);
            put("type", volume_type);
            put("fsType", fs_type);
        }
        Backend::Azuredisk {
            sku_name,
            caching_mode,
            fs_type,
            location,
            resource_group,
        } => {
            put("kind", "managed");
            put("skuName", sku_name);
            put("cachingMode", caching_mode);
            put("fsType", fs_type);
            if let Some(l) = location {
                put("location", l);
            }
            if let Some(g) = resource_group {
                put("resourceGroup", g);
            }
        }
    }
    p
}

/// Toleration lists concatenated without duplicates, in order.
fn union_tolerations(lists: &[&[crate::values::Toleration]]) -> Vec<crate::values::Toleration> {
    let mut out: Vec<crate::values::Toleration> = Vec::new();
    for list in lists {
        for t in *list {
            if !out.contains(t) {
                out.push(t.clone());
            }
        }
    }
    out
}

/// Tolerations of the local-volume cleaner: it must run on every node a
/// build volume can be on, so it tolerates the `codefresh/dind` taint, the
/// builds' tolerations and the runner's.
fn lv_monitor_tolerations(values: &Values) -> Vec<crate::values::Toleration> {
    let dind_toleration = crate::values::Toleration {
        key: Some("codefresh/dind".into()),
        operator: Some("Exists".into()),
        value: None,
        effect: Some("NoSchedule".into()),
        toleration_seconds: None,
    };
    union_tolerations(&[
        std::slice::from_ref(&dind_toleration),
        &values.runtime.scheduling.tolerations,
        &values.runner.scheduling.tolerations,
    ])
}

/// The app-proxy's telemetry settings, as the chart sets them: OpenTelemetry
/// and Prometheus off, OTLP only to localhost, and its service identity.
fn app_proxy_telemetry_env(
    values: &Values,
    identity: &Identity,
    credentials: &mut BTreeMap<String, String>,
) -> Vec<Value> {
    let version = match &values.app_proxy.image {
        None => format!("{}@{}", images::APP_PROXY.tag, images::APP_PROXY.digest),
        Some(crate::values::ImageOverride(reference)) => reference
            .rsplit_once(':')
            .map(|(_, tag)| tag.to_string())
            .unwrap_or_default(),
    };
    let mut env: BTreeMap<String, String> = [
        ("CF_TELEMETRY_LOGS_LEVEL", "debug"),
        ("CF_TELEMETRY_OTEL_ENABLE", "false"),
        ("CF_TELEMETRY_OTEL_ALLOW_HTTP_INSTRUMENTATION", "false"),
        ("CF_TELEMETRY_PROMETHEUS_ENABLE", "false"),
        ("CF_TELEMETRY_PROMETHEUS_ENABLE_PROCESS_METRICS", "false"),
        ("CF_TELEMETRY_PROMETHEUS_HOST", "0.0.0.0"),
        ("CF_TELEMETRY_PROMETHEUS_PORT", "9100"),
        ("CF_TELEMETRY_PYROSCOPE_ENABLE", "false"),
        ("PYROSCOPE_SERVER_ADDRESS", ""),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4317"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
        ("OTEL_LOGS_EXPORTER", "none"),
        ("OTEL_TRACES_EXPORTER", "none"),
        ("OTEL_TRACES_SAMPLER", "parentbased_always_on"),
        ("OTEL_METRICS_EXPORTER", "otlp"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "10000"),
        ("OTEL_METRIC_EXPORT_TIMEOUT", "5000"),
        ("OTEL_EXPORTER_PROMETHEUS_HOST", "0.0.0.0"),
        ("OTEL_EXPORTER_PROMETHEUS_PORT", "9464"),
        ("OTEL_SEMCONV_STABILITY_OPT_IN", "http"),
        (
            "CF_TELEMETRY_PYROSCOPE_TAGS",
            "pod=$(A_POD_NAME),namespace=$(A_NAMESPACE_NAME)",
        ),
        ("CF_SERVICE_NAME", "cf-classic-app-proxy"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    env.insert("CF_SERVICE_VERSION".into(), version.clone());
    env.insert(
        "OTEL_RESOURCE_ATTRIBUTES".into(),
        format!(
            "service.name=cf-classic-app-proxy,service.version={version},\
             service.namespace=cf-classic-runtime,cf.classic.runtime.name={},\
             cf.classic.runtime.version={}",
            identity.runtime_name(values),
            images::CHART_VERSION
        ),
    );
    // The user's own env wins over these defaults.
    env.retain(|k, _| !values.app_proxy.env.contains_key(k));
    env_list(&env, credentials)
}

/// One context value, serialized straight into the template engine's own
/// form (no JSON tree in between).
fn ser<T: Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}

/// What the templates see. Built as the engine's values directly: a JSON
/// tree first, converted whole afterwards, cost about as much again.
fn build_context(values: &Values, identity: &Identity, record: &Value) -> minijinja::Value {
    use minijinja::context;
    let registry = values.docker_registry.as_deref();
    let ns = &values.namespace;
    let runtime_selector = selector_with_arch(&values.runtime.scheduling, values.arch);
    let agent_name = identity.agent_name(values);
    // An agent alone has no runtime of its own: the record names none.
    let runtime_name = if values.agent_only {
        String::new()
    } else {
        identity.runtime_name(values)
    };
    let mut runner_env = values.runner.env.clone();
    if values.insecure {
        runner_env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), "0".into());
    }
    if let Some(reg) = registry {
        runner_env.insert("DOCKER_REGISTRY".into(), reg.to_string());
    }
    let record_yaml = yaml::emit_like_serde_yaml(record);
    let storage = &values.storage;
    let creds = &storage.credentials;
    let mut credentials: BTreeMap<String, String> = values
        .url_credentials
        .iter()
        .map(|(k, v)| (k.clone(), v.expose().to_string()))
        .collect();
    let runner_env = env_list(&runner_env, &mut credentials);
    let provisioner_env = env_list(&values.env_vars, &mut credentials);
    let monitor_env = env_list(&values.monitor.env, &mut credentials);
    let app_proxy_env = env_list(&values.app_proxy.env, &mut credentials);
    let app_proxy_telemetry_env = app_proxy_telemetry_env(values, identity, &mut credentials);
    context! {
        credentials_secret => ser(&CREDENTIALS_SECRET),
        credentials => ser(&credentials),
        namespace => ser(&ns),
        codefresh_host => ser(&values.codefresh_host),
        agent_name => ser(&agent_name),
        runtime_name => ser(&runtime_name),
        cluster_id => ser(&values.monitor.cluster_id.clone().unwrap_or_else(|| identity.context_or_placeholder())),
        version => ser(&env!("CARGO_PKG_VERSION")),
        chart_version => ser(&images::CHART_VERSION),
        docker_registry => ser(&registry),
        record_format => ser(&RECORD_FORMAT),
        record_secret => ser(&RECORD_SECRET),
        record_values => ser(&record_yaml),
        cluster_integration => ser(&!values.skip_cluster_integration),
        registered => ser(&if identity.registered { "true" } else { "false" }),
        runner => context! {
            image => ser(&images::reference(images::RUNNER, values.runner.image.as_ref(), registry)),
            node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
            tolerations => ser(&values.runner.scheduling.tolerations),
            resources => ser(&values.runner.resources),
            env => ser(&runner_env),
            token => ser(&secret_or_placeholder(identity.agent_token.as_ref().or(values.agent_token.as_ref()), "agent token")),
        },
        runtime => context! {
            sa_annotations => ser(&values.runtime.sa_annotations),
            daemon_json => ser(&serde_json::to_string_pretty(&daemon_config(values)).expect("serializable")),
            dind_ca => ser(&secret_or_placeholder(identity.dind_ca.as_ref(), "dind CA certificate")),
            dind_cert => ser(&secret_or_placeholder(identity.dind_cert.as_ref(), "dind server certificate")),
            dind_key => ser(&secret_or_placeholder(identity.dind_key.as_ref(), "dind server key, generated locally")),
            node_selector => ser(&runtime_selector),
            tolerations => ser(&values.runtime.scheduling.tolerations),
            env => ser(&values.runtime.env),
            dind_resources => ser(&values.runtime.dind_resources),
            user_volumes => ser(&values.runtime.user_volumes),
            user_volume_mounts => ser(&values.runtime.user_volume_mounts),
            volume_size => ser(&values.runtime.volume_size),
            docker_daemon_access => ser(&values.runtime.docker_daemon_access),
            dind_image => ser(&images::reference(images::DIND, None, registry)),
            engine_image => ser(&images::reference(images::ENGINE, None, registry)),
            context => ser(&identity.context_or_placeholder()),
            account_id => ser(&identity.account_id.clone().unwrap_or_else(|| placeholder("account id"))),
        },
        storage => context! {
            provisioned => ser(&storage.provisioned),
            class_name => ser(&storage.class_name),
            backend => ser(&storage.backend.name()),
            local => ser(&matches!(storage.backend, Backend::Local { .. })),
            volume_parent_dir => ser(&match &storage.backend { Backend::Local { volume_parent_dir } => volume_parent_dir.clone(), _ => String::new() }),
            parameters => ser(&storage_parameters(values)),
            annotations => ser(&storage.annotations),
            provisioner_name => ser(&provisioner_name(ns)),
            provisioner_image => ser(&images::reference(images::VOLUME_PROVISIONER, storage.provisioner_image.as_ref(), registry)),
            lv_monitor_image => ser(&images::reference(images::LV_MONITOR, storage.lv_monitor_image.as_ref(), registry)),
            cleaner_image => ser(&images::reference(images::VOLUME_CLEANUP, storage.cleaner_image.as_ref(), registry)),
            provisioner_node_selector => ser(&selector_with_arch(&storage.provisioner_scheduling, values.arch)),
            provisioner_tolerations => ser(&storage.provisioner_scheduling.tolerations),
            provisioner_resources => ser(&storage.provisioner_resources),
            provisioner_env => ser(&provisioner_env),
            provisioner_sa_annotations => ser(&storage.provisioner_sa_annotations),
            lv_monitor_node_selector => ser(&runtime_selector),
            lv_monitor_tolerations => ser(&lv_monitor_tolerations(values)),
            lv_monitor_resources => ser(&storage.lv_monitor_resources),
            has_credentials => ser(&creds.any()),
            aws_keys => ser(&(creds.aws_access_key_id.is_some() || creds.aws_access_key_id_ref.is_some())),
            aws_access_key_id_ref => ser(&creds.aws_access_key_id_ref.clone().unwrap_or(SecretKeyRef {
                name: PROVISIONER_SECRET.into(),
                key: "aws_access_key_id".into(),
            })),
            aws_secret_access_key_ref => ser(&creds.aws_secret_access_key_ref.clone().unwrap_or(SecretKeyRef {
                name: PROVISIONER_SECRET.into(),
                key: "aws_secret_access_key".into(),
            })),
            google_credentials => ser(&(creds.google_service_account.is_some() || creds.google_service_account_ref.is_some())),
            google_service_account_ref => ser(&creds.google_service_account_ref.clone().unwrap_or(SecretKeyRef {
                name: PROVISIONER_SECRET.into(),
                key: "google-service-account.json".into(),
            })),
            aws_access_key_id => ser(&creds.aws_access_key_id),
            aws_secret_access_key => ser(&creds.aws_secret_access_key),
            google_service_account => ser(&creds.google_service_account),
            mount_azure_json => ser(&storage.mount_azure_json),
        },
        monitor => context! {
            enabled => ser(&values.monitor.enabled),
            image => ser(&images::reference(images::MONITOR, values.monitor.image.as_ref(), registry)),
            namespaced => ser(&values.monitor.namespaced),
            helm_releases => ser(&values.monitor.helm_releases),
            resources => ser(&values.monitor.resources),
            env => ser(&monitor_env),
            sa_annotations => ser(&values.monitor.sa_annotations),
            node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
            tolerations => ser(&values.runner.scheduling.tolerations),
            token => ser(&secret_or_placeholder(values.token.as_ref(), "Codefresh API token for the monitor")),
        },
        app_proxy => context! {
            enabled => ser(&values.app_proxy.enabled),
            image => ser(&images::reference(images::APP_PROXY, values.app_proxy.image.as_ref(), registry)),
            resources => ser(&values.app_proxy.resources),
            env => ser(&app_proxy_env),
            telemetry_env => ser(&app_proxy_telemetry_env),
            sa_annotations => ser(&values.app_proxy.sa_annotations),
            host => ser(&values.app_proxy.host),
            ingress_class => ser(&values.app_proxy.ingress_class),
            tls_secret => ser(&values.app_proxy.tls_secret),
            path_prefix => ser(&values.app_proxy.path_prefix),
            annotations => ser(&values.app_proxy.annotations),
            node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
            tolerations => ser(&values.runner.scheduling.tolerations),
        },
    }
}

#[cfg(test)]
mod own_secrets {
    #[test]
    fn every_secret_cf_runner_writes_is_one_no_values_key_may_call_the_users() {
        for name in [
            super::PROVISIONER_SECRET,
            super::CREDENTIALS_SECRET,
            super::RUNNER_SECRET,
            super::MONITOR_SECRET,
            super::RECORD_SECRET,
            super::DIND_CERTS_SECRET,
            super::CLUSTER_READER_TOKEN_SECRET,
        ] {
            assert!(crate::values::OWN_SECRETS.contains(&name), "{name}");
        }
    }
}

#[cfg(test)]
mod record_layout {
    /// The readers of the record (`app::installation::record`) go by
    /// [`super::record_keys`]: the template must write exactly those keys.
    #[test]
    fn the_record_template_writes_the_keys_its_readers_read() {
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "test".into(),
                text: "Namespace: ci\nAgentToken: t\n".into(),
            }],
            ..Default::default()
        };
        let loaded = crate::values::load(&input).expect("the values load");
        let identity = super::Identity::default();
        let rendered =
            super::render(&loaded.values, &identity, &loaded.redacted_tree).expect("it renders");
        let record = rendered
            .manifests
            .iter()
            .find(|m| m.kind == "Secret" && m.name == super::RECORD_SECRET)
            .expect("the record is rendered");
        let keys: Vec<&str> = record.object["stringData"]
            .as_object()
            .expect("stringData")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = super::record_keys::ALL.to_vec();
        want.sort();
        let mut got = keys.clone();
        got.sort();
        assert_eq!(got, want);
    }
}

#[cfg(test)]
mod credential_env {
    /// A credential-named variable reaches the pods from the credentials
    /// Secret: no other object holds its value.
    #[test]
    fn a_credential_named_variable_is_read_from_the_credentials_secret() {
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "test".into(),
                text: "Namespace: ci\nAgentToken: t\nEnvVars:\n  SEED_DB_PASSWORD: pw-0123\n  NO_PROXY: x\n"
                    .into(),
            }],
            ..Default::default()
        };
        let loaded = crate::values::load(&input).expect("the values load");
        let rendered = super::render(
            &loaded.values,
            &super::Identity::default(),
            &loaded.redacted_tree,
        )
        .expect("it renders");
        let holders: Vec<String> = rendered
            .manifests
            .iter()
            .filter(|m| m.object.to_string().contains("pw-0123"))
            .map(|m| format!("{}/{}", m.kind, m.name))
            .collect();
        assert_eq!(holders, [format!("Secret/{}", super::CREDENTIALS_SECRET)]);
        let runner = rendered
            .manifests
            .iter()
            .find(|m| m.kind == "Deployment" && m.object.to_string().contains("SEED_DB_PASSWORD"))
            .expect("a Deployment has the variable");
        let text = runner.object.to_string();
        assert!(
            text.contains(r#""key":"EnvVars.SEED_DB_PASSWORD""#),
            "{text}"
        );
        assert!(text.contains(r#""name":"NO_PROXY","value":"x""#), "{text}");
    }
}

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

mod ballast;
pub mod ca_bundle;
mod context;
pub mod extra_resources;
mod gateway;
pub mod helm;
pub mod images;
pub mod metrics;
mod pod_parts;
pub mod record;
pub mod runtime_spec;
pub mod runtimes;
mod security;
mod tojson;
pub(crate) mod tuning;
pub mod yaml;

pub use context::provisioner_name;
pub use runtime_spec::runtime_environment_spec;

use context::build_context;
use context::{daemon_config, lv_monitor_tolerations};
use pod_parts::selector_with_arch;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::values::{Secret, Values};

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
    /// Prometheus monitors (`Metrics.*`).
    Metrics,
    /// The Kubernetes event exporter (`EventExporter.*`).
    EventExporter,
    /// `ExtraResources`: the user's own objects, installed with the runner.
    Extra,
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
            Component::Metrics => "metrics",
            Component::EventExporter => "event-exporter",
            Component::Extra => "extra",
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
        "metrics.yaml",
        Component::Metrics,
        include_str!("../../templates/metrics.yaml"),
    ),
    (
        "event-exporter.yaml",
        Component::EventExporter,
        include_str!("../../templates/event-exporter.yaml"),
    ),
    (
        "ballast.yaml",
        Component::Runtime,
        include_str!("../../templates/ballast.yaml"),
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
    ca_bundle::apply(&mut manifests, values)?;
    extra_resources::apply(&mut manifests, values)?;
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
        "HTTPRoute" => 14,
        "PriorityClass" => 1,
        _ => 20,
    }
}

fn stage_of(kind: &str) -> u8 {
    match kind {
        "Namespace" | "StorageClass" | "PriorityClass" => 0,
        "Deployment" | "DaemonSet" | "CronJob" | "Ingress" | "HTTPRoute" => 2,
        _ => 1,
    }
}

fn is_cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace" | "StorageClass" | "ClusterRole" | "ClusterRoleBinding" | "PriorityClass"
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
        (metrics::MONITORING_API_VERSION, "ServiceMonitor" | "PodMonitor") => {
            metrics::check_monitor(kind, object)
        }
        ("scheduling.k8s.io/v1", "PriorityClass") => {
            typed::<k8s_openapi::api::scheduling::v1::PriorityClass>(object)
        }
        // No Rust type for it: the end-to-end test dry-runs it against the
        // Gateway API's own CRDs.
        ("gateway.networking.k8s.io/v1", "HTTPRoute") => gateway::check_route(object),
        _ => Err(format!("cf-runner does not render {api_version} {kind}")),
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

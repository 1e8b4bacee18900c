//! One agent, several runtimes: what an attached runtime consists of, as
//! plain data. Pure (no I/O), like the rest of `render`.
//!
//! The agent (venona) runs in one of two exclusive modes: in-cluster (one
//! runtime, the pod's own ServiceAccount: what `init` installs) or
//! config-dir (`VENONA_CONFIG_DIR`: every `*.runtime.yaml` file of the
//! folder is one runtime, `{type: runtime, name, host, token, crt}`). An
//! agent with runtimes attached runs in config-dir mode, its own
//! namespace's runtime included, and reads the files from the Secret
//! [`CONFIG_SECRET`] in its namespace, one key per runtime (venonactl's
//! layout, so `adopt` and people who know venonactl find it where they look).
//!
//! In each runtime namespace the agent acts as the ServiceAccount
//! [`ACCESS_NAME`], bound to a Role of that namespace only, whose token is
//! a `kubernetes.io/service-account-token` Secret ([`ACCESS_TOKEN_SECRET`]):
//! Kubernetes 1.24+ no longer makes one by itself. The audit log of the
//! runtime's API server names that ServiceAccount on every pod the agent
//! creates there.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::{common_labels, Component, Manifest};
use crate::values::Secret;

/// The Secret in the agent's namespace holding one `*.runtime.yaml` per runtime.
pub const CONFIG_SECRET: &str = "runnerconf";
/// Where the agent's container reads [`CONFIG_SECRET`] (venonactl's path).
pub const CONFIG_DIR: &str = "/etc/secrets";
/// The ServiceAccount (and RoleBinding) the agent acts as while its own is
/// made again.
pub const BRIDGE: &str = "cf-runner-agent-rotating";
/// The token Secret of [`BRIDGE`].
pub const BRIDGE_TOKEN_SECRET: &str = "cf-runner-agent-rotating-token";
/// ServiceAccount, Role and RoleBinding the agent acts as in a runtime namespace.
pub const ACCESS_NAME: &str = "cf-runner-agent";
/// The token Secret of [`ACCESS_NAME`].
pub const ACCESS_TOKEN_SECRET: &str = "cf-runner-agent-token";
/// Pod-template annotation: a hash of the runtimes file set, so that a
/// change of it rolls the agent (and an interrupted run still rolls it on
/// the next run: the Deployment differs until it is applied).
pub const RUNTIMES_HASH_ANNOTATION: &str = "cf-runner.codefresh.io/runtimes-hash";
/// The agent Deployment's name (`templates/runner.yaml`).
pub const AGENT_DEPLOYMENT: &str = "runner";

/// The key of a runtime's file in [`CONFIG_SECRET`]: the runtime name with
/// `/`, `@` and `:` replaced by `.`, plus `.runtime.yaml` (venonactl's
/// rule). `None` when the name leaves characters a Secret key cannot hold.
pub fn config_key(runtime_name: &str) -> Option<String> {
    let key: String = runtime_name
        .chars()
        .map(|c| if matches!(c, '/' | '@' | ':') { '.' } else { c })
        .collect();
    let valid = !runtime_name.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    valid.then(|| format!("{key}.runtime.yaml"))
}

/// One runtime's file as the agent reads it.
#[derive(Serialize)]
struct RuntimeFile<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    name: &'a str,
    host: &'a str,
    token: &'a str,
    crt: &'a str,
}

/// How the agent reaches one runtime.
#[derive(Debug, Clone)]
pub struct RuntimeAccess {
    /// The runtime environment's name on the platform.
    pub name: String,
    /// The runtime cluster's API server URL, as the agent's pod reaches it.
    pub host: String,
    /// The token of [`ACCESS_NAME`] in the runtime namespace.
    pub token: Secret,
    /// The CA of the runtime cluster's API server (PEM).
    pub ca_pem: String,
}

impl RuntimeAccess {
    /// The `*.runtime.yaml` text (holds the token: goes only into a Secret).
    pub fn file_text(&self) -> String {
        serde_yaml_ng::to_string(&RuntimeFile {
            kind: "runtime",
            name: &self.name,
            host: &self.host,
            token: self.token.expose(),
            crt: &self.ca_pem,
        })
        .expect("a runtime file serializes")
    }
}

/// A `*.runtime.yaml` as read back (cf-runner's, venonactl's or the
/// chart's): each field as the file has it, `None` when missing or not a
/// string; text that is no YAML map reads as all `None`.
#[derive(Debug, Clone, Default)]
pub struct ReadRuntimeFile {
    /// The runtime environment's name.
    pub name: Option<String>,
    /// The runtime cluster's API server, as the agent reaches it.
    pub host: Option<String>,
    /// The token the agent acts with in the runtime namespace.
    pub token: Option<Secret>,
    /// The CA of the runtime cluster's API server (PEM).
    pub crt: Option<String>,
}

/// Reads a `*.runtime.yaml`: the one reader of these files.
pub fn read_runtime_file(text: &str) -> ReadRuntimeFile {
    let v: Value = serde_yaml_ng::from_str(text).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    ReadRuntimeFile {
        name: field("name"),
        host: field("host"),
        token: field("token").map(Secret::new),
        crt: field("crt"),
    }
}

/// The runtime name a `*.runtime.yaml` text names (without the token).
pub fn file_runtime_name(text: &str) -> Option<String> {
    read_runtime_file(text).name
}

fn labelled(mut object: Value, namespace: &str, stage: u8) -> Manifest {
    let labels: serde_json::Map<String, Value> = common_labels(namespace, Component::RuntimeAccess)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    object["metadata"]["labels"] = Value::Object(labels);
    object["metadata"]["namespace"] = Value::String(namespace.to_string());
    Manifest {
        api_version: object["apiVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        kind: object["kind"].as_str().unwrap_or_default().to_string(),
        name: object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        namespace: Some(namespace.to_string()),
        component: Component::RuntimeAccess,
        stage,
        object,
    }
}

/// What the agent acts as in runtime namespace `namespace`: a
/// ServiceAccount, a Role of that namespace only (the rights the agent
/// uses: build pods and their volume claims, as the runner's own Role),
/// its binding, and the ServiceAccount's token Secret. Labelled as
/// cf-runner's, with the namespace as the instance.
pub fn access_manifests(namespace: &str) -> Vec<Manifest> {
    vec![
        labelled(
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                   "metadata": {"name": ACCESS_NAME}}),
            namespace,
            1,
        ),
        labelled(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": ACCESS_NAME},
                   "rules": [{"apiGroups": [""],
                              "resources": ["pods", "persistentvolumeclaims"],
                              "verbs": ["get", "create", "delete", "patch"]}]}),
            namespace,
            1,
        ),
        labelled(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": ACCESS_NAME},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ACCESS_NAME},
                   "subjects": [{"kind": "ServiceAccount", "name": ACCESS_NAME, "namespace": namespace}]}),
            namespace,
            1,
        ),
        labelled(
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": ACCESS_TOKEN_SECRET,
                                "annotations": {"kubernetes.io/service-account.name": ACCESS_NAME}},
                   "type": "kubernetes.io/service-account-token"}),
            namespace,
            1,
        ),
    ]
}

/// The Secret [`CONFIG_SECRET`] in the agent's namespace with these files
/// (key → `*.runtime.yaml` text).
///
/// As `data`, not `stringData`: server-side apply removes a key only from a
/// field it owns, and `stringData` is never stored, so a detached
/// runtime's file would stay.
pub fn config_manifest(agent_namespace: &str, files: &BTreeMap<String, String>) -> Manifest {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let data: BTreeMap<&String, String> = files.iter().map(|(k, v)| (k, b64.encode(v))).collect();
    labelled(
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": CONFIG_SECRET},
               "type": "Opaque",
               "data": data}),
        agent_namespace,
        1,
    )
}

/// A hash of the files, for [`RUNTIMES_HASH_ANNOTATION`] (a one-way 64-bit
/// digest: it tells a change, not a token).
pub fn files_hash(files: &BTreeMap<String, String>) -> String {
    let mut hash: u64 = 0xcbf29ce484222325;
    for (k, v) in files {
        for byte in k.bytes().chain([0]).chain(v.bytes()).chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x100000001b3);
        }
    }
    format!("{hash:016x}")
}

/// Turns the rendered agent Deployment to config-dir mode: the runtimes
/// come from [`CONFIG_SECRET`] mounted at [`CONFIG_DIR`] (never
/// `CODEFRESH_IN_CLUSTER_RUNTIME`: the two modes exclude each other), the
/// pod template carries the files' hash, and a rollout adds a pod before
/// it removes one (maxUnavailable 0), so the agent never has no ready
/// replica. Applying it twice gives the same object.
///
/// With no file at all (an agent installed alone, before its first attach
/// or after its last detach) the agent runs no replica: venona 2.0.10
/// exits at start without a runtime (`Runtimes options is required`,
/// `pkg/agent/agent.go`), so a pod would only restart for ever. Its
/// first runtime starts it.
pub fn config_dir_mode(deployment: &mut Manifest, files: &BTreeMap<String, String>) {
    let files_hash = files_hash(files);
    let object = &mut deployment.object;
    object["spec"]["replicas"] = json!(if files.is_empty() { 0 } else { 1 });
    object["spec"]["strategy"] = json!({"type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}});
    let template = &mut object["spec"]["template"];
    template["metadata"]["annotations"][RUNTIMES_HASH_ANNOTATION] =
        Value::String(files_hash.to_string());
    let pod = &mut template["spec"];
    let volumes = pod["volumes"].as_array().cloned().unwrap_or_default();
    let mut volumes: Vec<Value> = volumes
        .into_iter()
        .filter(|v| v["name"] != CONFIG_SECRET)
        .collect();
    volumes.push(json!({"name": CONFIG_SECRET, "secret": {"secretName": CONFIG_SECRET}}));
    pod["volumes"] = Value::Array(volumes);
    if let Some(containers) = pod["containers"].as_array_mut() {
        for c in containers.iter_mut().filter(|c| c["name"] == "runner") {
            let env = c["env"].as_array().cloned().unwrap_or_default();
            let mut env: Vec<Value> = env
                .into_iter()
                .filter(|e| {
                    e["name"] != "CODEFRESH_IN_CLUSTER_RUNTIME" && e["name"] != "VENONA_CONFIG_DIR"
                })
                .collect();
            env.push(json!({"name": "VENONA_CONFIG_DIR", "value": CONFIG_DIR}));
            c["env"] = Value::Array(env);
            let mounts = c["volumeMounts"].as_array().cloned().unwrap_or_default();
            let mut mounts: Vec<Value> = mounts
                .into_iter()
                .filter(|m| m["name"] != CONFIG_SECRET)
                .collect();
            mounts.push(json!({"name": CONFIG_SECRET, "mountPath": CONFIG_DIR, "readOnly": true}));
            c["volumeMounts"] = Value::Array(mounts);
        }
    }
}

/// An agent alone (`AgentOnly`): the runtime's objects of its namespace
/// and the volume provisioner go; the agent runs in config-dir mode from
/// the start, with an empty [`CONFIG_SECRET`] that attach fills. venona
/// accepts a folder without `*.runtime.yaml` files: it polls the platform
/// for tasks and reports its status, and has no runtime to start builds in
/// until one is attached.
pub fn agent_only(manifests: &mut Vec<Manifest>, namespace: &str) {
    manifests.retain(|m| {
        !matches!(
            m.component,
            Component::Runtime | Component::VolumeProvisioner
        )
    });
    let none = BTreeMap::new();
    for m in manifests
        .iter_mut()
        .filter(|m| m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
    {
        config_dir_mode(m, &none);
    }
    manifests.push(config_manifest(namespace, &none));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys_follow_venonactl() {
        assert_eq!(
            config_key("prod/builds@eu:1").as_deref(),
            Some("prod.builds.eu.1.runtime.yaml")
        );
        assert_eq!(config_key("has space"), None);
        assert_eq!(config_key(""), None);
    }

    #[test]
    fn the_file_is_what_venona_reads() {
        let a = RuntimeAccess {
            name: "ctx/ns".into(),
            host: "https://h:6443".into(),
            token: Secret::new("tok"),
            ca_pem: "-----BEGIN CERTIFICATE-----\nx\n".into(),
        };
        let v: Value = serde_yaml_ng::from_str(&a.file_text()).unwrap();
        assert_eq!(
            v,
            json!({"type": "runtime", "name": "ctx/ns", "host": "https://h:6443",
                   "token": "tok", "crt": "-----BEGIN CERTIFICATE-----\nx\n"})
        );
        assert_eq!(file_runtime_name(&a.file_text()).as_deref(), Some("ctx/ns"));
    }

    #[test]
    fn config_dir_mode_drops_in_cluster_mode_and_never_goes_to_zero_ready() {
        let mut d = Manifest {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "runner".into(),
            namespace: Some("ns".into()),
            component: Component::Runner,
            stage: 2,
            object: json!({"spec": {"strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": "50%"}},
                "template": {"metadata": {}, "spec": {"containers": [{"name": "runner",
                "env": [{"name": "CODEFRESH_IN_CLUSTER_RUNTIME", "value": "c/ns"},
                        {"name": "AGENT_ID", "value": "a"}]}]}}}}),
        };
        let files = BTreeMap::from([("a.runtime.yaml".to_string(), "x".to_string())]);
        config_dir_mode(&mut d, &files);
        let once = d.object.clone();
        config_dir_mode(&mut d, &files);
        assert_eq!(d.object, once);
        let env = &d.object["spec"]["template"]["spec"]["containers"][0]["env"];
        let names: Vec<&str> = env
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["AGENT_ID", "VENONA_CONFIG_DIR"]);
        assert_eq!(
            d.object["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"],
            0
        );
        assert_eq!(
            d.object["spec"]["template"]["metadata"]["annotations"][RUNTIMES_HASH_ANNOTATION],
            files_hash(&files)
        );
        assert_eq!(d.object["spec"]["replicas"], 1);
        config_dir_mode(&mut d, &BTreeMap::new());
        assert_eq!(d.object["spec"]["replicas"], 0, "no runtime, no replica");
    }

    #[test]
    fn the_hash_tells_a_change() {
        let a = BTreeMap::from([("k".to_string(), "v".to_string())]);
        let b = BTreeMap::from([("k".to_string(), "w".to_string())]);
        assert_ne!(files_hash(&a), files_hash(&b));
        assert_eq!(files_hash(&a), files_hash(&a.clone()));
    }

    #[test]
    fn access_is_one_namespace_only() {
        let m = access_manifests("b");
        assert!(m.iter().all(|m| m.namespace.as_deref() == Some("b")));
        assert!(m.iter().all(|m| m.kind != "ClusterRole"));
        let secret = m.iter().find(|m| m.kind == "Secret").unwrap();
        assert_eq!(secret.object["type"], "kubernetes.io/service-account-token");
    }
}

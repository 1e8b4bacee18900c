//! Pod admission: would the namespace let the runner's pods, and a build's
//! dind pod and its volume claim, in? RBAC says who may create a
//! Deployment; only admission says whether its pods will ever exist. A
//! namespace that enforces Pod Security `baseline` takes every Deployment
//! and then refuses each pod, and the install waits in vain.
//!
//! Two sources, asked side by side:
//! - a server-side dry-run create of one Pod from each pod template the
//!   install renders (Deployments, DaemonSets, Jobs, CronJobs), of a build's
//!   dind pod built from the runtime spec, and of its volume claim: Pod
//!   Security, ResourceQuota, LimitRange, policy webhooks and
//!   ValidatingAdmissionPolicies all answer, and nothing is persisted;
//! - the namespace's own Pod Security labels, ResourceQuotas and LimitRanges,
//!   read and reasoned about here, so the report also works where a dry-run
//!   is not possible (the namespace does not exist yet, the user may not
//!   create pods, a webhook does not support dry-run).
//!
//! A dry-run answer that differs from what was sent (a sidecar, a rewritten
//! image) is a mutating webhook at work: a warning naming the fields.
//!
//! The deciding logic (Pod Security levels, quota arithmetic, the diff of
//! a mutated pod, which fix fits which refusal) is pure and unit-tested.

use std::collections::BTreeMap;
use std::fmt;

use kube::api::{DynamicObject, ListParams, PostParams};
use kube::Client;
use serde_json::{json, Map, Value};

use super::{api_message, names, Check, NamespaceState};
use crate::cluster::{api_for, request, KubeError, FIELD_MANAGER};
use crate::render::Manifest;
use crate::values::quantity_value;

/// The Pod Security label that admission enforces.
pub const ENFORCE_LABEL: &str = "pod-security.kubernetes.io/enforce";
/// The component name of a build's pods in findings.
pub const EVERY_BUILD: &str = "every build";
/// The name given to the objects created in dry-run (nothing persists).
const DRY_RUN_NAME: &str = "cf-runner-admission";
/// Where dind keeps its images and layers (the claim's mount).
const DIND_DATA_DIR: &str = "/var/lib/docker";

// ------------------------------------------------------------ Pod Security

/// A Pod Security Standards level, from the most open to the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Privileged,
    Baseline,
    Restricted,
}

impl Level {
    /// The level a label value names; `None` for anything else.
    pub fn parse(text: &str) -> Option<Level> {
        match text.trim() {
            "privileged" => Some(Level::Privileged),
            "baseline" => Some(Level::Baseline),
            "restricted" => Some(Level::Restricted),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Privileged => "privileged",
            Level::Baseline => "baseline",
            Level::Restricted => "restricted",
        })
    }
}

/// Capabilities `baseline` lets a container add.
const BASELINE_CAPABILITIES: &[&str] = &[
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];
/// Volume types `restricted` allows.
const RESTRICTED_VOLUMES: &[&str] = &[
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
];

fn all_containers(spec: &Value) -> Vec<&Value> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .filter_map(|k| spec.get(*k).and_then(Value::as_array))
        .flatten()
        .collect()
}

fn volume_name(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("?")
}

fn container_name(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("?")
}

/// What keeps a pod out of `level`, worded like Pod Security's own
/// messages. Covers the checks the runner's pods can meet (host namespaces,
/// privileged, capabilities, hostPath and host ports, seccomp; for
/// `restricted` also volume types, privilege escalation and running as
/// root); the API server's dry-run answer stays the authority.
pub fn violations(spec: &Value, level: Level) -> Vec<String> {
    let mut out = Vec::new();
    if level == Level::Privileged {
        return out;
    }
    let containers = all_containers(spec);
    let flag = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_bool);
    let host: Vec<&str> = ["hostNetwork", "hostPID", "hostIPC"]
        .into_iter()
        .filter(|k| flag(spec, &format!("/{k}")) == Some(true))
        .collect();
    if !host.is_empty() {
        out.push(format!(
            "host namespaces ({})",
            host.iter()
                .map(|k| format!("{k}=true"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let privileged: Vec<&str> = containers
        .iter()
        .filter(|c| flag(c, "/securityContext/privileged") == Some(true))
        .map(|c| container_name(c))
        .collect();
    if !privileged.is_empty() {
        out.push(format!(
            "privileged (container {} must not set securityContext.privileged=true)",
            quoted(&privileged)
        ));
    }
    let added = |c: &Value| -> Vec<String> {
        c.pointer("/securityContext/capabilities/add")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut extra_caps = Vec::new();
    for c in &containers {
        for cap in added(c) {
            if !BASELINE_CAPABILITIES.contains(&cap.as_str()) {
                extra_caps.push(format!("{} adds {cap}", container_name(c)));
            }
        }
    }
    if !extra_caps.is_empty() {
        out.push(format!(
            "non-default capabilities ({})",
            extra_caps.join(", ")
        ));
    }
    let volumes: Vec<&Value> = spec
        .get("volumes")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let host_paths: Vec<&str> = volumes
        .iter()
        .filter(|v| v.get("hostPath").is_some())
        .map(|v| volume_name(v))
        .collect();
    if !host_paths.is_empty() {
        out.push(format!("hostPath volumes ({})", quoted(&host_paths)));
    }
    let host_ports: Vec<String> = containers
        .iter()
        .flat_map(|c| {
            c.get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| p.get("hostPort").and_then(Value::as_i64))
                .filter(|p| *p != 0)
                .map(|p| format!("{}:{p}", container_name(c)))
        })
        .collect();
    if !host_ports.is_empty() {
        out.push(format!("hostPort ({})", host_ports.join(", ")));
    }
    let seccomp = |v: &Value| {
        v.pointer("/securityContext/seccompProfile/type")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let pod_seccomp = seccomp(spec);
    if pod_seccomp.as_deref() == Some("Unconfined")
        || containers
            .iter()
            .any(|c| seccomp(c).as_deref() == Some("Unconfined"))
    {
        out.push("seccompProfile (type must not be Unconfined)".into());
    }
    if level == Level::Baseline {
        return out;
    }

    let odd_volumes: Vec<String> = volumes
        .iter()
        .filter_map(|v| {
            let kind = v
                .as_object()?
                .keys()
                .find(|k| k.as_str() != "name")?
                .clone();
            (!RESTRICTED_VOLUMES.contains(&kind.as_str()))
                .then(|| format!("{} uses {kind}", volume_name(v)))
        })
        .collect();
    if !odd_volumes.is_empty() {
        out.push(format!(
            "restricted volume types ({})",
            odd_volumes.join(", ")
        ));
    }
    let escalating: Vec<&str> = containers
        .iter()
        .filter(|c| flag(c, "/securityContext/allowPrivilegeEscalation") != Some(false))
        .map(|c| container_name(c))
        .collect();
    if !escalating.is_empty() {
        out.push(format!(
            "allowPrivilegeEscalation != false (container {} must set securityContext.allowPrivilegeEscalation=false)",
            quoted(&escalating)
        ));
    }
    let pod_non_root = flag(spec, "/securityContext/runAsNonRoot");
    let as_root: Vec<&str> = containers
        .iter()
        .filter(|c| {
            let own = flag(c, "/securityContext/runAsNonRoot");
            own == Some(false) || (own.is_none() && pod_non_root != Some(true))
        })
        .map(|c| container_name(c))
        .collect();
    if !as_root.is_empty() {
        out.push(format!(
            "runAsNonRoot != true (container {} must set securityContext.runAsNonRoot=true)",
            quoted(&as_root)
        ));
    }
    let uid0 = |v: &Value| {
        v.pointer("/securityContext/runAsUser")
            .and_then(Value::as_i64)
            == Some(0)
    };
    if uid0(spec) || containers.iter().any(|c| uid0(c)) {
        out.push("runAsUser=0 (must not run as root)".into());
    }
    let confined = |t: Option<String>| matches!(t.as_deref(), Some("RuntimeDefault" | "Localhost"));
    let unconfined: Vec<&str> = containers
        .iter()
        .filter(|c| match seccomp(c) {
            Some(t) => !confined(Some(t)),
            None => !confined(pod_seccomp.clone()),
        })
        .map(|c| container_name(c))
        .collect();
    if !unconfined.is_empty() {
        out.push(format!(
            "seccompProfile (pod or container {} must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")",
            quoted(&unconfined)
        ));
    }
    let loose_caps: Vec<&str> = containers
        .iter()
        .filter(|c| {
            let drops_all = c
                .pointer("/securityContext/capabilities/drop")
                .and_then(Value::as_array)
                .is_some_and(|d| d.iter().any(|x| x.as_str() == Some("ALL")));
            let adds_other = added(c).iter().any(|a| a != "NET_BIND_SERVICE");
            !drops_all || adds_other
        })
        .map(|c| container_name(c))
        .collect();
    if !loose_caps.is_empty() {
        out.push(format!(
            "unrestricted capabilities (container {} must set securityContext.capabilities.drop=[\"ALL\"] and add at most NET_BIND_SERVICE)",
            quoted(&loose_caps)
        ));
    }
    out
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The strictest level that admits the pod, and why the next one does not.
pub fn level_needed(spec: &Value) -> (Level, Vec<String>) {
    let baseline = violations(spec, Level::Baseline);
    if !baseline.is_empty() {
        return (Level::Privileged, baseline);
    }
    let restricted = violations(spec, Level::Restricted);
    if !restricted.is_empty() {
        return (Level::Baseline, restricted);
    }
    (Level::Restricted, Vec::new())
}

/// The level a Pod Security refusal names (`violates PodSecurity "baseline:latest"`).
fn enforced_in(message: &str) -> Option<Level> {
    let quoted = quoted_after(message, "violates PodSecurity")?;
    Level::parse(quoted.split(':').next()?)
}

/// The next level down.
fn below(level: Level) -> Level {
    match level {
        Level::Restricted => Level::Baseline,
        _ => Level::Privileged,
    }
}

/// The exact command that lets `level` pods into the namespace.
pub fn label_command(namespace: &str, level: Level) -> String {
    format!("kubectl label --overwrite namespace {namespace} {ENFORCE_LABEL}={level}")
}

// ------------------------------------------------------------ what is asked

/// One object the preflight asks admission about.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// `Deployment/runner`, or [`EVERY_BUILD`] with what it is.
    pub component: String,
    /// `Pod` or `PersistentVolumeClaim`.
    pub kind: &'static str,
    /// The object sent in dry-run.
    pub object: Value,
    /// How many of it the install runs at once (for quotas).
    pub copies: u32,
    /// A build's object, not the install's.
    pub build: bool,
}

impl Candidate {
    fn pod_spec(&self) -> Option<&Value> {
        (self.kind == "Pod")
            .then(|| self.object.get("spec"))
            .flatten()
    }
}

/// The pod template of a workload, with its replica count.
fn pod_template(m: &Manifest) -> Option<(&Value, u32)> {
    let o = &m.object;
    match m.kind.as_str() {
        "Deployment" => Some((
            o.pointer("/spec/template")?,
            o.pointer("/spec/replicas")
                .and_then(Value::as_u64)
                .unwrap_or(1) as u32,
        )),
        // One per node it selects; at least one.
        "DaemonSet" => Some((o.pointer("/spec/template")?, 1)),
        "Job" => Some((o.pointer("/spec/template")?, 1)),
        "CronJob" => Some((o.pointer("/spec/jobTemplate/spec/template")?, 1)),
        _ => None,
    }
}

/// A dry-run pod's name from its component (`Deployment/runner` gives
/// `cf-runner-admission-deployment-runner`).
fn dry_run_name(component: &str) -> String {
    let mut name: String = format!("{DRY_RUN_NAME}-{component}")
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.truncate(63);
    name.trim_end_matches('-').to_string()
}

/// A pod spec as the dry-run sends it. The ServiceAccount is left out: the
/// install creates it, and admission refuses a pod whose ServiceAccount
/// does not exist yet, which says nothing about the real install.
fn without_service_account(spec: &Value) -> Value {
    let mut spec = spec.clone();
    if let Some(map) = spec.as_object_mut() {
        map.remove("serviceAccountName");
        map.remove("serviceAccount");
    }
    spec
}

/// One Pod from each workload's pod template.
pub fn workload_pods(manifests: &[Manifest]) -> Vec<Candidate> {
    manifests
        .iter()
        .filter_map(|m| {
            let (template, copies) = pod_template(m)?;
            let component = m.display_name();
            let mut metadata = Map::new();
            metadata.insert("name".into(), json!(dry_run_name(&component)));
            for key in ["labels", "annotations"] {
                if let Some(v) = template.pointer(&format!("/metadata/{key}")) {
                    metadata.insert(key.into(), v.clone());
                }
            }
            let spec = without_service_account(template.get("spec").unwrap_or(&Value::Null));
            Some(Candidate {
                component,
                kind: "Pod",
                object: json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}),
                copies,
                build: false,
            })
        })
        .collect()
}

/// The entries of a runtime-spec collection, which may be a map (name →
/// entry, the form the docs and cf-runner use) or a list.
fn entries(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Object(m)) => m.values().cloned().collect(),
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// The name of a build's dind claim: the `dind` entry of `pvcs`.
fn dind_claim_entry(dind: &Value) -> Value {
    entries(dind.get("pvcs"))
        .into_iter()
        .next()
        .unwrap_or(Value::Null)
}

/// How one build's dind pod looks, as the platform builds it from the
/// runtime spec's `dockerDaemonScheduler` and the agent creates it: the
/// dind image, privileged (docker needs it), its environment and
/// resources, the build node placement, the claim mounted at
/// `/var/lib/docker`, and the spec's volumes. `claim` names the claim;
/// `with_spec_volumes` false leaves out everything but the claim (the probe
/// runs before the runtime's Secret exists).
pub fn dind_pod(
    runtime_spec: &Value,
    name: &str,
    claim: &str,
    with_spec_volumes: bool,
) -> Option<Value> {
    let dind = runtime_spec.get("dockerDaemonScheduler")?;
    let image = dind.get("dindImage")?.as_str()?;
    let env: Vec<Value> = dind
        .get("envVars")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    json!({"name": k, "value": v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())})
                })
                .collect()
        })
        .unwrap_or_default();
    let mut resources = Map::new();
    for key in ["limits", "requests"] {
        if let Some(v) = dind
            .pointer(&format!("/defaultDindResources/{key}"))
            .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            resources.insert(key.into(), v.clone());
        }
    }
    let mut mounts = vec![json!({"name": "dind", "mountPath": DIND_DATA_DIR})];
    let mut volumes = vec![json!({"name": "dind", "persistentVolumeClaim": {"claimName": claim}})];
    if with_spec_volumes {
        mounts.extend(entries(dind.get("volumeMounts")));
        mounts.extend(entries(dind.get("userVolumeMounts")));
        volumes.extend(entries(dind.get("volumes")));
        volumes.extend(entries(dind.get("userVolumes")));
    }
    let mut spec = Map::new();
    spec.insert(
        "containers".into(),
        json!([{
            "name": "dind",
            "image": image,
            "imagePullPolicy": dind.get("imagePullPolicy").cloned().unwrap_or(json!("IfNotPresent")),
            "env": env,
            "resources": resources,
            "securityContext": {"privileged": true},
            "volumeMounts": mounts,
        }]),
    );
    spec.insert("volumes".into(), json!(volumes));
    if let Some(sa) = dind.pointer("/cluster/serviceAccount") {
        spec.insert("serviceAccountName".into(), sa.clone());
    }
    if let Some(sel) = dind.pointer("/cluster/nodeSelector") {
        spec.insert("nodeSelector".into(), sel.clone());
    }
    if let Some(t) = dind.get("tolerations") {
        spec.insert("tolerations".into(), t.clone());
    }
    if let Some(g) = dind.get("terminationGracePeriodSeconds") {
        spec.insert("terminationGracePeriodSeconds".into(), g.clone());
    }
    Some(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "dind"}},
        "spec": spec,
    }))
}

/// A build's dind volume claim, from the runtime spec's `pvcs`.
pub fn dind_claim(runtime_spec: &Value, name: &str) -> Option<Value> {
    let entry = dind_claim_entry(runtime_spec.get("dockerDaemonScheduler")?);
    let mut spec = json!({
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": entry.get("volumeSize").cloned().unwrap_or(json!("16Gi"))}},
    });
    if let Some(sc) = entry.get("storageClassName") {
        spec["storageClassName"] = sc.clone();
    }
    Some(json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": spec,
    }))
}

/// A build's dind pod and its claim, as dry-run candidates.
pub fn build_objects(runtime_spec: &Value) -> Vec<Candidate> {
    let pod_name = dry_run_name("dind");
    let mut out = Vec::new();
    if let Some(pod) = dind_pod(runtime_spec, &pod_name, &pod_name, true) {
        let spec = without_service_account(&pod["spec"]);
        let mut pod = pod;
        pod["spec"] = spec;
        out.push(Candidate {
            component: format!("{EVERY_BUILD} (its dind pod)"),
            kind: "Pod",
            object: pod,
            copies: 1,
            build: true,
        });
    }
    if let Some(claim) = dind_claim(runtime_spec, &pod_name) {
        out.push(Candidate {
            component: format!("{EVERY_BUILD} (its dind volume claim)"),
            kind: "PersistentVolumeClaim",
            object: claim,
            copies: 1,
            build: true,
        });
    }
    out
}

// ------------------------------------------------------------ refusals

/// What refused an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refuser {
    PodSecurity,
    Quota,
    LimitRange,
    Webhook,
    Policy,
    /// The pod's ServiceAccount does not exist (yet).
    ServiceAccount,
    Other,
}

/// Which admission control a refusal's message comes from.
pub fn refuser(message: &str) -> Refuser {
    if message.contains("violates PodSecurity") {
        Refuser::PodSecurity
    } else if message.contains("exceeded quota") || message.contains("must specify") {
        Refuser::Quota
    } else if message.contains("usage per Container")
        || message.contains("usage per Pod")
        || message.contains("usage per PersistentVolumeClaim")
        || message.contains("ratio")
    {
        Refuser::LimitRange
    } else if message.contains("admission webhook") {
        Refuser::Webhook
    } else if message.contains("ValidatingAdmissionPolicy") {
        Refuser::Policy
    } else if message.contains("error looking up service account") {
        Refuser::ServiceAccount
    } else {
        Refuser::Other
    }
}

/// The text between the first pair of double quotes after `after`.
fn quoted_after<'a>(message: &'a str, after: &str) -> Option<&'a str> {
    let rest = &message[message.find(after)? + after.len()..];
    let start = rest.find('"')? + 1;
    let end = rest[start..].find('"')? + start;
    Some(&rest[start..end])
}

/// Where the values set a component's resources, for fixes.
fn resources_key(component: &str) -> String {
    if component.starts_with(EVERY_BUILD) {
        "the builds' dind resources (Runtime.resources)".into()
    } else {
        format!("the resources of {component}")
    }
}

/// What to do about one refusal of `component`. `level` is the Pod
/// Security level the refused pod needs; `limit_ranges` the names of the
/// namespace's LimitRanges when they are known.
pub fn fix_for(
    message: &str,
    component: &str,
    namespace: &str,
    level: Level,
    limit_ranges: &[String],
) -> String {
    match refuser(message) {
        Refuser::PodSecurity => format!(
            "the namespace's Pod Security level must allow {level} pods: `{}` (or ask the cluster admin for it)",
            label_command(namespace, level)
        ),
        Refuser::Quota => {
            let quota = message
                .split("exceeded quota: ")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .map(str::trim);
            match quota {
                Some(q) => format!(
                    "raise ResourceQuota {q} (`kubectl edit resourcequota {q} -n {namespace}`) by what {component} asks, or lower {} in the values",
                    resources_key(component)
                ),
                None => {
                    let quota = message
                        .split("failed quota: ")
                        .nth(1)
                        .and_then(|r| r.split(':').next())
                        .map(|q| format!("ResourceQuota {} of namespace {namespace}", q.trim()))
                        .unwrap_or_else(|| format!("a ResourceQuota of namespace {namespace}"));
                    format!(
                        "{quota} only admits containers that set what the message names: set it in the values for each component named, or ask for a LimitRange that gives a default"
                    )
                }
            }
        }
        Refuser::LimitRange => {
            let which = match limit_ranges {
                [] => "the namespace's LimitRange".to_string(),
                names => format!("LimitRange {}", names.join(", ")),
            };
            format!(
                "ask for {which} of namespace {namespace} to allow it (`kubectl edit limitrange -n {namespace}`), or change {} in the values to fit",
                resources_key(component)
            )
        }
        Refuser::Webhook => {
            let hook = quoted_after(message, "admission webhook").unwrap_or("the webhook");
            format!(
                "ask the owner of the policy behind admission webhook \"{hook}\" for an exception for {component} in namespace {namespace}"
            )
        }
        Refuser::Policy => format!(
            "ask the owner of the ValidatingAdmissionPolicy for an exception for {component} in namespace {namespace}"
        ),
        Refuser::ServiceAccount => format!(
            "the ServiceAccount comes with the install: run `cf-runner init` into namespace {namespace} first"
        ),
        Refuser::Other => "read the API server's message; fix the cluster or the values and re-run".into(),
    }
}

// ------------------------------------------------------------ mutations

/// The fields a mutating admission step changed in `got` against `sent`:
/// values sent that came back different or missing, and containers,
/// volumes, mounts, env vars, labels and annotations added. Fields only
/// added to what was sent (defaults, the ServiceAccount token volume, a
/// LimitRange's default resources, default tolerations) are not changes.
pub fn mutations(sent: &Value, got: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["labels", "annotations"] {
        let before = sent.pointer(&format!("/metadata/{key}"));
        let after = got
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object);
        // The LimitRanger's note of the defaults it set is no webhook's.
        let built_in = |k: &str| k == "kubernetes.io/limit-ranger";
        for (k, v) in after.into_iter().flatten().filter(|(k, _)| !built_in(k)) {
            match before.and_then(|b| b.get(k)) {
                None => out.push(format!("metadata.{key}[{k}] added ({})", short(v))),
                Some(b) if b != v => {
                    out.push(format!("metadata.{key}[{k}]: {} → {}", short(b), short(v)))
                }
                _ => {}
            }
        }
    }
    let (Some(s), Some(g)) = (sent.get("spec"), got.get("spec")) else {
        return out;
    };
    changed("spec", s, g, &mut out);
    for key in ["initContainers", "containers"] {
        let sent_names = names_in(s.get(key));
        for name in names_in(g.get(key)) {
            if !sent_names.contains(&name) {
                out.push(format!("spec.{key}[{name}] added"));
            }
        }
    }
    let ignored = |name: &str| name.starts_with("kube-api-access-");
    let sent_volumes = names_in(s.get("volumes"));
    for name in names_in(g.get("volumes")) {
        if !sent_volumes.contains(&name) && !ignored(&name) {
            out.push(format!("spec.volumes[{name}] added"));
        }
    }
    for c in g
        .get("containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = container_name(c);
        let Some(before) = s
            .get("containers")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find(|x| container_name(x) == name))
        else {
            continue;
        };
        for field in ["env", "volumeMounts"] {
            let was = names_in(before.get(field));
            for added in names_in(c.get(field)) {
                if !was.contains(&added) && !ignored(&added) {
                    out.push(format!("spec.containers[{name}].{field}[{added}] added"));
                }
            }
        }
    }
    out
}

fn names_in(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

/// Empty values the API server leaves out of its answer.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// Walks what was sent; reports each value that came back different.
/// Lists of named items are matched by name (an injected sidecar shifts
/// the others); quantities are compared by value (`1000m` is `1`).
fn changed(path: &str, sent: &Value, got: &Value, out: &mut Vec<String>) {
    match (sent, got) {
        (Value::Object(s), Value::Object(g)) => {
            for (k, v) in s {
                let p = format!("{path}.{k}");
                match g.get(k) {
                    Some(gv) => changed(&p, v, gv, out),
                    None if is_empty(v) => {}
                    None => out.push(format!("{p} removed (was {})", short(v))),
                }
            }
        }
        (Value::Array(s), Value::Array(g)) => {
            let named = !s.is_empty() && s.iter().all(|x| x.get("name").is_some());
            for (i, v) in s.iter().enumerate() {
                let (label, other) = if named {
                    let name = v.get("name").and_then(Value::as_str).unwrap_or("?");
                    (
                        format!("{path}[{name}]"),
                        g.iter().find(|x| x.get("name") == v.get("name")),
                    )
                } else {
                    (format!("{path}[{i}]"), g.get(i))
                };
                match other {
                    Some(gv) => changed(&label, v, gv, out),
                    None => out.push(format!("{label} removed")),
                }
            }
        }
        (Value::String(a), Value::String(b)) if a != b => {
            let same_quantity = matches!(
                (quantity_value(a), quantity_value(b)),
                (Some(x), Some(y)) if (x - y).abs() <= f64::EPSILON * x.abs().max(1.0)
            );
            if !same_quantity {
                out.push(format!("{path}: {} → {}", short(sent), short(got)));
            }
        }
        // A number sent as text and answered as a number is the same.
        (a, b)
            if a != b
                && !(is_empty(a) && is_empty(b))
                && a.as_str() != Some(b.to_string().as_str())
                && b.as_str() != Some(a.to_string().as_str()) =>
        {
            out.push(format!("{path}: {} → {}", short(a), short(b)));
        }
        _ => {}
    }
}

// ------------------------------------------------------------ quotas

/// How much of each quota resource the install and one build need.
pub fn quota_needs(candidates: &[Candidate]) -> BTreeMap<String, f64> {
    let mut need: BTreeMap<String, f64> = BTreeMap::new();
    let mut add = |key: String, v: f64| *need.entry(key).or_default() += v;
    for c in candidates {
        let n = c.copies as f64;
        if let Some(spec) = c.pod_spec() {
            add("pods".into(), n);
            add("count/pods".into(), n);
            for (kind, keys) in [
                ("requests", ["requests.cpu", "requests.memory"]),
                ("limits", ["limits.cpu", "limits.memory"]),
            ] {
                for (resource, key) in ["cpu", "memory"].iter().zip(keys) {
                    let amount = pod_amount(spec, kind, resource);
                    add(key.to_string(), amount * n);
                    if kind == "requests" {
                        add(resource.to_string(), amount * n);
                    }
                }
            }
        } else {
            let storage = c
                .object
                .pointer("/spec/resources/requests/storage")
                .and_then(Value::as_str)
                .and_then(quantity_value)
                .unwrap_or(0.0);
            add("persistentvolumeclaims".into(), n);
            add("count/persistentvolumeclaims".into(), n);
            add("requests.storage".into(), storage * n);
            if let Some(sc) = c
                .object
                .pointer("/spec/storageClassName")
                .and_then(Value::as_str)
            {
                add(
                    format!("{sc}.storageclass.storage.k8s.io/requests.storage"),
                    storage * n,
                );
                add(
                    format!("{sc}.storageclass.storage.k8s.io/persistentvolumeclaims"),
                    n,
                );
            }
        }
    }
    need
}

/// A pod's `requests` or `limits` of one resource: the sum over its
/// containers, or its largest init container's when that is more.
fn pod_amount(spec: &Value, kind: &str, resource: &str) -> f64 {
    let read = |c: &Value, kind: &str| {
        c.pointer(&format!("/resources/{kind}/{resource}"))
            .and_then(|v| match v {
                Value::String(s) => quantity_value(s),
                Value::Number(n) => n.as_f64(),
                _ => None,
            })
    };
    // A container with a limit and no request requests its limit (the API
    // server's default), and that is what a quota counts.
    let amount = |c: &Value| {
        read(c, kind)
            .or_else(|| (kind == "requests").then(|| read(c, "limits")).flatten())
            .unwrap_or(0.0)
    };
    let list = |k: &str| -> Vec<f64> {
        spec.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(amount).collect())
            .unwrap_or_default()
    };
    let sum: f64 = list("containers").iter().sum();
    list("initContainers").into_iter().fold(sum, f64::max)
}

/// A quantity for messages: cores for CPU, binary units for bytes.
fn amount_text(resource: &str, v: f64) -> String {
    if resource.ends_with("cpu") || resource == "cpu" {
        let milli = (v * 1000.0).round() as u64;
        if milli % 1000 == 0 {
            format!("{}", milli / 1000)
        } else {
            format!("{milli}m")
        }
    } else if resource.ends_with("memory") || resource.ends_with("storage") {
        const MI: f64 = 1024.0 * 1024.0;
        let mi = (v / MI).ceil() as u64;
        if mi >= 1024 && mi % 1024 == 0 {
            format!("{}Gi", mi / 1024)
        } else {
            format!("{mi}Mi")
        }
    } else {
        format!("{}", v.round() as i64)
    }
}

/// The findings of one ResourceQuota: each resource whose room left is
/// less than the install and a build need. `quota` is the object as read.
pub fn quota_findings(quota: &Value, need: &BTreeMap<String, f64>, namespace: &str) -> Vec<String> {
    let name = quota
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let hard = quota
        .pointer("/status/hard")
        .or_else(|| quota.pointer("/spec/hard"))
        .and_then(Value::as_object);
    let used = quota.pointer("/status/used");
    let mut out = Vec::new();
    for (resource, limit) in hard.into_iter().flatten() {
        let Some(want) = need.get(resource).copied().filter(|w| *w > 0.0) else {
            continue;
        };
        let value = |v: Option<&Value>| v.and_then(Value::as_str).and_then(quantity_value);
        let Some(limit) = value(Some(limit)) else {
            continue;
        };
        let used = value(used.and_then(|u| u.get(resource))).unwrap_or(0.0);
        let left = (limit - used).max(0.0);
        if want > left + 1e-9 {
            out.push(format!(
                "ResourceQuota {name}: {resource} has {} left (hard {}, used {}), the runner's pods and one build need {}; fix: raise it by at least {} (`kubectl edit resourcequota {name} -n {namespace}`), or lower the runner's and the builds' resources in the values",
                amount_text(resource, left),
                amount_text(resource, limit),
                amount_text(resource, used),
                amount_text(resource, want),
                amount_text(resource, want - left),
            ));
        }
    }
    out
}

/// The findings of one LimitRange: each container limit above its
/// `max`, and a dind claim above the PVC `max`.
pub fn limit_range_findings(
    range: &Value,
    candidates: &[Candidate],
    namespace: &str,
) -> Vec<String> {
    let name = range
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let mut out = Vec::new();
    let items = range
        .pointer("/spec/limits")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let fix = format!(
        "fix: ask for LimitRange {name}'s max to be raised (`kubectl edit limitrange {name} -n {namespace}`), or lower the resources in the values"
    );
    for item in &items {
        let Some(max) = item.get("max").and_then(Value::as_object) else {
            continue;
        };
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        for c in candidates {
            match (kind, c.pod_spec()) {
                ("Container", Some(spec)) => {
                    for container in all_containers(spec) {
                        for (resource, cap) in max {
                            let Some(cap) = cap.as_str().and_then(quantity_value) else {
                                continue;
                            };
                            let limit = container
                                .pointer(&format!("/resources/limits/{resource}"))
                                .and_then(Value::as_str)
                                .and_then(quantity_value);
                            if let Some(limit) = limit.filter(|l| *l > cap) {
                                out.push(format!(
                                    "{} (container {}): LimitRange {name} allows at most {} {resource} per container, its limit is {}; {fix}",
                                    c.component,
                                    container_name(container),
                                    amount_text(resource, cap),
                                    amount_text(resource, limit),
                                ));
                            }
                        }
                    }
                }
                ("PersistentVolumeClaim", None) => {
                    let cap = max
                        .get("storage")
                        .and_then(Value::as_str)
                        .and_then(quantity_value);
                    let size = c
                        .object
                        .pointer("/spec/resources/requests/storage")
                        .and_then(Value::as_str)
                        .and_then(quantity_value);
                    if let (Some(cap), Some(size)) = (cap, size) {
                        if size > cap {
                            out.push(format!(
                                "{}: LimitRange {name} allows at most {} per volume claim, the claim asks {}; {fix} (Runtime.VolumeSize)",
                                c.component,
                                amount_text("storage", cap),
                                amount_text("storage", size),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

// ------------------------------------------------------------ the check

/// The namespace as read before the check.
#[derive(Debug, Clone, Copy)]
pub struct NamespaceView<'a> {
    pub name: &'a str,
    pub state: NamespaceState,
    /// The live namespace, when it exists and could be read.
    pub live: Option<&'a Value>,
}

/// What one dry-run gave.
#[derive(Debug)]
enum Answer {
    Admitted(Value),
    Refused(String),
    /// The user may not create this kind (RBAC), so admission was not asked.
    NotAllowed,
    /// A webhook on the path does not support dry-run.
    NoDryRun(String),
    /// No answer, or an error that is not admission's.
    Failed(String),
}

/// The fix for a create that admission refused, worded as the preflight
/// words it; `None` when the error is not admission's (no permission, no
/// answer). `pod` is the pod sent, if it was one.
pub fn explain_refusal(
    err: &KubeError,
    component: &str,
    namespace: &str,
    pod: Option<&Value>,
) -> Option<String> {
    let Answer::Refused(message) = classify(err) else {
        return None;
    };
    let mut level = pod
        .and_then(|p| p.get("spec"))
        .map(|s| level_needed(s).0)
        .unwrap_or(Level::Privileged);
    if let Some(enforced) = enforced_in(&message) {
        if level >= enforced {
            level = below(enforced);
        }
    }
    Some(fix_for(&message, component, namespace, level, &[]))
}

fn classify(err: &KubeError) -> Answer {
    let message = api_message(err);
    if err.code().is_none() {
        return Answer::Failed(message);
    }
    if message.contains("does not support dry run") {
        return Answer::NoDryRun(message);
    }
    if err.code() == Some(403) && message.contains("cannot create resource") {
        return Answer::NotAllowed;
    }
    if err.code() == Some(401) {
        return Answer::Failed(message);
    }
    Answer::Refused(message)
}

/// The check: dry-runs, labels, quotas and LimitRanges, asked at once.
pub(super) async fn check_admission(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
    ns: NamespaceView<'_>,
) -> Check {
    let mut candidates = workload_pods(manifests);
    if let Some(spec) = runtime_environment {
        candidates.extend(build_objects(spec));
    }
    if candidates.is_empty() {
        return Check::pass(names::ADMISSION, "no pod to check");
    }
    let enforce = ns
        .live
        .and_then(|l| l.pointer("/metadata/labels"))
        .and_then(|l| l.get(ENFORCE_LABEL))
        .and_then(Value::as_str);
    let enforce_level = enforce.and_then(Level::parse);
    let exists = matches!(ns.state, NamespaceState::Ours | NamespaceState::Foreign);

    let mut findings: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut fixes: Vec<String> = Vec::new();

    // The Pod Security level each pod needs, from the spec alone.
    let needs: Vec<Option<(Level, Vec<String>)>> = candidates
        .iter()
        .map(|c| c.pod_spec().map(level_needed))
        .collect();

    if !exists {
        let missing = ns.state == NamespaceState::Missing;
        notes.push(if missing {
            format!(
                "namespace {} does not exist yet, so no pod could be dry-run in it; reasoned from Pod Security levels instead",
                ns.name
            )
        } else {
            format!(
                "namespace {} could not be read, so neither its Pod Security label nor a dry-run was checked",
                ns.name
            )
        });
        let strictest = needs.iter().flatten().map(|(l, _)| *l).min();
        if let Some(level) = strictest {
            // The labels it will have: those of the rendered Namespace.
            let will_have = manifests
                .iter()
                .find(|m| m.kind == "Namespace")
                .and_then(|m| m.object.pointer("/metadata/labels"))
                .and_then(|l| l.get(ENFORCE_LABEL))
                .and_then(Value::as_str)
                .and_then(Level::parse);
            let who = who_needs(&candidates, &needs, level);
            match will_have {
                Some(will) if missing && will > level => {
                    findings.push(format!(
                        "namespace {} will enforce Pod Security `{will}`; the runner needs `{level}`{who}",
                        ns.name
                    ));
                    fixes.push(label_command(ns.name, level));
                }
                _ if missing => notes.push(format!(
                    "cf-runner makes it with no Pod Security label, so the cluster's default level applies (`privileged` unless the API server's admission configuration sets another); the runner needs `{level}`{who}"
                )),
                _ => notes.push(format!(
                    "the runner needs Pod Security `{level}`{who}: make sure the namespace allows it"
                )),
            }
        }
        return finish(candidates.len(), findings, warnings, notes, fixes, false);
    }

    // Pod Security from the labels, so the report holds without a dry-run:
    // which pods the enforced level keeps out, and the level they need.
    let mut label_refused: Vec<usize> = Vec::new();
    let mut label_summary = None;
    if let Some(level) = enforce_level {
        label_refused = needs
            .iter()
            .enumerate()
            .filter(|(_, n)| n.as_ref().is_some_and(|(need, _)| *need < level))
            .map(|(i, _)| i)
            .collect();
        if !label_refused.is_empty() {
            let parts: Vec<String> = label_refused
                .iter()
                .map(|i| {
                    let (need, why) = needs[*i].as_ref().expect("a pod");
                    format!(
                        "{} needs `{need}` ({})",
                        candidates[*i].component,
                        why.join("; ")
                    )
                })
                .collect();
            label_summary = Some(format!(
                "namespace {} enforces Pod Security `{level}`: {}",
                ns.name,
                parts.join(", ")
            ));
        }
    } else if let Some(text) = enforce {
        notes.push(format!(
            "namespace {} has {ENFORCE_LABEL}={text}, which is not a Pod Security level",
            ns.name
        ));
    }

    // Everything at once: the dry-runs, the quotas, the LimitRanges.
    let pods = api_for(client, "v1", "Pod", Some(ns.name));
    let claims = api_for(client, "v1", "PersistentVolumeClaim", Some(ns.name));
    let params = PostParams {
        dry_run: true,
        field_manager: Some(FIELD_MANAGER.to_string()),
    };
    let dry_runs = futures::future::join_all(candidates.iter().map(|c| {
        let api = if c.kind == "Pod" { &pods } else { &claims };
        let params = params.clone();
        async move {
            let object: DynamicObject = match serde_json::from_value(c.object.clone()) {
                Ok(o) => o,
                Err(e) => return Answer::Failed(e.to_string()),
            };
            let shown = format!("{} {}", c.kind, c.component);
            match request("dry-running", &shown, api.create(&params, &object)).await {
                Ok(o) => Answer::Admitted(serde_json::to_value(o).unwrap_or(Value::Null)),
                Err(e) => classify(&e),
            }
        }
    }));
    let list = |kind: &'static str| {
        let api = api_for(client, "v1", kind, Some(ns.name));
        async move {
            request("listing", kind, api.list(&ListParams::default()))
                .await
                .map(|l| {
                    l.items
                        .into_iter()
                        .map(|i| serde_json::to_value(i).unwrap_or(Value::Null))
                        .collect::<Vec<Value>>()
                })
        }
    };
    let (answers, quotas, ranges) =
        futures::join!(dry_runs, list("ResourceQuota"), list("LimitRange"));

    let range_names: Vec<String> = ranges
        .as_ref()
        .map(|r| {
            r.iter()
                .filter_map(|x| x.pointer("/metadata/name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut not_allowed = Vec::new();
    let mut unanswered = false;
    let mut answered = vec![false; candidates.len()];
    let mut psa_refused: Vec<Level> = Vec::new();
    for (i, ((c, answer), need)) in candidates.iter().zip(answers).zip(&needs).enumerate() {
        match answer {
            Answer::Admitted(got) => {
                answered[i] = true;
                let changes = mutations(&c.object, &got);
                if !changes.is_empty() {
                    warnings.push(format!(
                        "{}: admission changed the pod: {}",
                        c.component,
                        changes.join("; ")
                    ));
                }
            }
            Answer::Refused(message) => {
                answered[i] = true;
                let mut level = need.as_ref().map(|(l, _)| *l).unwrap_or(Level::Privileged);
                // What the local reading missed, admission's word settles.
                if let Some(enforced) = enforced_in(&message) {
                    if level >= enforced {
                        level = below(enforced);
                    }
                }
                let fix = fix_for(&message, &c.component, ns.name, level, &range_names);
                findings.push(format!("{}: {message}; fix: {fix}", c.component));
                if refuser(&message) == Refuser::PodSecurity {
                    psa_refused.push(level);
                } else {
                    fixes.push(fix);
                }
            }
            Answer::NotAllowed => not_allowed.push(c.kind),
            Answer::NoDryRun(message) => warnings.push(format!(
                "{}: {message}; that webhook could not be asked, so it may still refuse the pod",
                c.component
            )),
            Answer::Failed(message) => {
                unanswered = true;
                warnings.push(format!("{}: could not dry-run: {message}", c.component));
            }
        }
    }
    not_allowed.sort_unstable();
    not_allowed.dedup();
    if !not_allowed.is_empty() {
        notes.push(format!(
            "your user may not create {} in namespace {}, so admission could not be asked in dry-run; reasoned from the namespace's labels, quotas and LimitRanges instead",
            not_allowed.join(" or "),
            ns.name
        ));
    }
    // Pod Security: the dry-run's refusals, else the labels' word for the
    // pods no dry-run answered for. A pod the labels would refuse but the
    // dry-run admitted is exempt (the admission configuration says so).
    let unasked_refused: Vec<usize> = label_refused
        .iter()
        .copied()
        .filter(|i| !answered[*i])
        .collect();
    if let Some(level) = psa_refused.iter().min() {
        if let Some(summary) = label_summary {
            notes.insert(0, summary);
        }
        fixes.insert(
            0,
            format!(
                "let the pods in: `{}` (or ask the cluster admin for it)",
                label_command(ns.name, *level)
            ),
        );
    } else if !unasked_refused.is_empty() {
        let level = unasked_refused
            .iter()
            .filter_map(|i| needs[*i].as_ref().map(|(l, _)| *l))
            .min()
            .unwrap_or(Level::Privileged);
        if let Some(summary) = label_summary {
            findings.insert(0, summary);
        }
        fixes.insert(
            0,
            format!(
                "let the pods in: `{}` (or ask the cluster admin for it)",
                label_command(ns.name, level)
            ),
        );
    }

    let need = quota_needs(&candidates);
    match quotas {
        Ok(list) => {
            for q in &list {
                let mut found = quota_findings(q, &need, ns.name);
                found.retain(|f| !findings.iter().any(|x| x == f));
                findings.extend(found);
            }
        }
        Err(e) if e.code() == Some(403) => notes.push(format!(
            "your user may not list ResourceQuotas in namespace {}, so they were not checked against the runner's needs",
            ns.name
        )),
        Err(e) => warnings.push(format!("could not list ResourceQuotas: {}", api_message(&e))),
    }
    match ranges {
        Ok(list) => {
            for r in &list {
                for f in limit_range_findings(r, &candidates, ns.name) {
                    // The dry-run already named it, in admission's words.
                    let component = f.split(':').next().unwrap_or("");
                    let said = findings.iter().any(|x| {
                        x.starts_with(component.split(" (container").next().unwrap_or(component))
                            && refuser(x) == Refuser::LimitRange
                    });
                    if !said {
                        findings.push(f);
                    }
                }
            }
        }
        Err(e) if e.code() == Some(403) => notes.push(format!(
            "your user may not list LimitRanges in namespace {}, so they were not checked",
            ns.name
        )),
        Err(e) => warnings.push(format!("could not list LimitRanges: {}", api_message(&e))),
    }
    finish(
        candidates.len(),
        findings,
        warnings,
        notes,
        fixes,
        unanswered,
    )
}

/// ", for every build (its dind pod): privileged (…)": who needs `level`.
fn who_needs(
    candidates: &[Candidate],
    needs: &[Option<(Level, Vec<String>)>],
    level: Level,
) -> String {
    let who: Vec<String> = candidates
        .iter()
        .zip(needs)
        .filter_map(|(c, n)| {
            let (l, why) = n.as_ref()?;
            (*l == level && level != Level::Restricted)
                .then(|| format!("{}: {}", c.component, why.join("; ")))
        })
        .collect();
    if who.is_empty() {
        String::new()
    } else {
        format!(" ({})", who.join(", "))
    }
}

fn finish(
    asked: usize,
    findings: Vec<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
    mut fixes: Vec<String>,
    unanswered: bool,
) -> Check {
    let mut seen = std::collections::HashSet::new();
    fixes.retain(|f| seen.insert(f.clone()));
    if !findings.is_empty() {
        let pod_security = findings
            .iter()
            .any(|f| f.contains("violates PodSecurity") || f.contains("Pod Security"));
        let reason = format!(
            "admission would refuse {} of what the install and its builds create{}",
            findings.len(),
            if pod_security {
                " (Pod Security among them)"
            } else {
                ""
            }
        );
        let fix = if fixes.is_empty() {
            "see the fix on each line above, then re-run".to_string()
        } else {
            fixes.join("; ")
        };
        let mut details = findings;
        details.extend(warnings);
        details.extend(notes);
        return Check::fail(names::ADMISSION, reason, fix).with_details(details);
    }
    if !warnings.is_empty() {
        let reason = if unanswered {
            "admission could not be asked about every pod".to_string()
        } else {
            "admission accepts the pods, with changes or unchecked webhooks".to_string()
        };
        let mut details = warnings;
        details.extend(notes);
        return Check::warn(
            names::ADMISSION,
            reason,
            "read the lines above: a webhook that changes a build's dind pod (a sidecar, another image) often breaks builds; ask for the namespace to be excluded from it",
        )
        .with_details(details);
    }
    let mut check = Check::pass(
        names::ADMISSION,
        format!(
            "admission accepts the runner's pods, a build's dind pod and its volume claim ({asked} server-side dry-runs)"
        ),
    );
    if !notes.is_empty() {
        check.reason = "no refusal found".into();
    }
    check.with_details(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dind_spec() -> Value {
        json!({"dockerDaemonScheduler": {
            "dindImage": "quay.io/codefresh/dind:3@sha256:aa",
            "cluster": {"serviceAccount": "codefresh-engine", "nodeSelector": {"pool": "builds"}},
            "envVars": {"CLEAN_DOCKER": "true"},
            "pvcs": [{"name": "dind", "storageClassName": "dind-local", "volumeSize": "16Gi"}],
            "defaultDindResources": {"limits": {"cpu": "400m", "memory": "800Mi"}, "requests": null},
            "volumes": {"codefresh-certs-server": {"name": "codefresh-certs-server", "secret": {"secretName": "codefresh-certs-server"}}},
            "volumeMounts": {"codefresh-certs-server": {"name": "codefresh-certs-server", "mountPath": "/etc/ssl/cf"}},
        }})
    }

    #[test]
    fn a_builds_dind_pod_is_privileged_and_mounts_its_claim() {
        let objects = build_objects(&dind_spec());
        assert_eq!(objects.len(), 2);
        let pod = &objects[0].object;
        assert_eq!(
            pod["spec"]["containers"][0]["securityContext"]["privileged"],
            true
        );
        assert_eq!(
            pod["spec"]["containers"][0]["image"],
            "quay.io/codefresh/dind:3@sha256:aa"
        );
        assert_eq!(pod["spec"]["nodeSelector"], json!({"pool": "builds"}));
        assert!(pod["spec"].get("serviceAccountName").is_none());
        let volumes = names_in(pod["spec"].get("volumes"));
        assert_eq!(volumes, vec!["dind", "codefresh-certs-server"]);
        let claim = &objects[1].object;
        assert_eq!(claim["spec"]["storageClassName"], "dind-local");
        assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "16Gi");
        let (level, why) = level_needed(&pod["spec"]);
        assert_eq!(level, Level::Privileged);
        assert!(why[0].contains("privileged (container \"dind\""), "{why:?}");
    }

    #[test]
    fn levels_follow_the_pod_security_standards() {
        let host_path = json!({"containers": [{"name": "c"}], "volumes": [{"name": "v", "hostPath": {"path": "/x"}}]});
        assert_eq!(level_needed(&host_path).0, Level::Privileged);
        let plain = json!({"containers": [{"name": "c"}]});
        let (level, why) = level_needed(&plain);
        assert_eq!(level, Level::Baseline);
        assert!(why
            .iter()
            .any(|w| w.starts_with("allowPrivilegeEscalation")));
        let hardened = json!({
            "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "c", "securityContext": {
                "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}],
        });
        assert_eq!(level_needed(&hardened).0, Level::Restricted);
        assert_eq!(Level::parse("baseline"), Some(Level::Baseline));
        assert_eq!(
            label_command("cf", Level::Privileged),
            "kubectl label --overwrite namespace cf pod-security.kubernetes.io/enforce=privileged"
        );
    }

    #[test]
    fn each_refusal_gets_its_fix() {
        let psa = "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": privileged";
        assert!(fix_for(psa, "every build", "cf", Level::Privileged, &[])
            .contains("kubectl label --overwrite namespace cf pod-security.kubernetes.io/enforce=privileged"));
        let quota = "pods \"x\" is forbidden: exceeded quota: small, requested: requests.memory=1Gi, used: requests.memory=0, limited: requests.memory=100Mi";
        assert!(
            fix_for(quota, "Deployment/runner", "cf", Level::Baseline, &[])
                .contains("kubectl edit resourcequota small -n cf")
        );
        let hook = "admission webhook \"deny-privileged.example.com\" denied the request: no privileged pods";
        assert!(fix_for(hook, "every build", "cf", Level::Privileged, &[])
            .contains("\"deny-privileged.example.com\""));
        let range =
            "pods \"x\" is forbidden: maximum cpu usage per Container is 100m, but limit is 1";
        assert!(fix_for(
            range,
            "Deployment/runner",
            "cf",
            Level::Baseline,
            &["tight".into()]
        )
        .contains("LimitRange tight"));
    }

    #[test]
    fn a_sidecar_and_a_rewritten_image_are_mutations_but_defaults_are_not() {
        let sent = json!({"metadata": {"labels": {"app": "dind"}}, "spec": {
            "containers": [{"name": "dind", "image": "a/dind:1", "resources": {"limits": {"cpu": "1000m"}}, "env": [{"name": "E", "value": ""}]}],
            "volumes": [{"name": "dind", "persistentVolumeClaim": {"claimName": "c"}}],
            "tolerations": [{"key": "k", "operator": "Exists"}],
        }});
        let defaulted = json!({"metadata": {"labels": {"app": "dind"},
            "annotations": {"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request"}}, "spec": {
            "containers": [{"name": "dind", "image": "a/dind:1", "imagePullPolicy": "IfNotPresent",
                "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}, "env": [{"name": "E"}],
                "volumeMounts": [{"name": "kube-api-access-x", "mountPath": "/var/run/secrets"}]}],
            "volumes": [{"name": "dind", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "kube-api-access-x", "projected": {}}],
            "tolerations": [{"key": "k", "operator": "Exists"}, {"key": "node.kubernetes.io/not-ready"}],
            "dnsPolicy": "ClusterFirst",
        }});
        assert_eq!(mutations(&sent, &defaulted), Vec::<String>::new());
        let mut injected = defaulted.clone();
        injected["spec"]["containers"][0]["image"] = json!("mirror/dind:1");
        injected["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .insert(0, json!({"name": "istio-proxy"}));
        injected["metadata"]["annotations"] = json!({"sidecar.istio.io/status": "{}"});
        let found = mutations(&sent, &injected);
        assert!(
            found.contains(&"spec.containers[dind].image: a/dind:1 → mirror/dind:1".to_string()),
            "{found:?}"
        );
        assert!(
            found.contains(&"spec.containers[istio-proxy] added".to_string()),
            "{found:?}"
        );
        assert!(found
            .iter()
            .any(|f| f.starts_with("metadata.annotations[sidecar.istio.io/status] added")));
    }

    #[test]
    fn a_quota_too_small_for_a_build_is_named_with_what_is_left() {
        let candidates = build_objects(&dind_spec());
        let need = quota_needs(&candidates);
        assert_eq!(need["requests.storage"], 16.0 * 1024.0 * 1024.0 * 1024.0);
        let quota = json!({"metadata": {"name": "small"}, "status": {
            "hard": {"requests.storage": "10Gi", "limits.memory": "4Gi"},
            "used": {"requests.storage": "2Gi", "limits.memory": "0"}}});
        let found = quota_findings(&quota, &need, "cf");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "ResourceQuota small: requests.storage has 8Gi left (hard 10Gi, used 2Gi)"
            ),
            "{}",
            found[0]
        );
        assert!(
            found[0].contains("raise it by at least 8Gi"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn a_limit_range_below_a_limit_is_named() {
        let candidates = build_objects(&dind_spec());
        let range = json!({"metadata": {"name": "tight"}, "spec": {"limits": [
            {"type": "Container", "max": {"cpu": "200m"}},
            {"type": "PersistentVolumeClaim", "max": {"storage": "8Gi"}}]}});
        let found = limit_range_findings(&range, &candidates, "cf");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("allows at most 200m cpu per container, its limit is 400m"));
        assert!(found[1].contains("at most 8Gi per volume claim, the claim asks 16Gi"));
    }
}

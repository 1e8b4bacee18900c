//! `cf-runner adopt`: move a runner made by another tool (the cf-runtime
//! Helm chart, venonactl or `codefresh runner init`) to cf-runner.
//!
//! It reads the namespace, tells which tool made the runner, refuses what
//! cannot be adopted safely, saves what the install is as a cf-runner values
//! file (tokens left out) and prints the plan; `--dry-run` stops there.
//! Otherwise, after confirmation, it moves the runner in an order where one
//! always serves builds: cf-runner's runner comes up with the same agent
//! token and is ready, then the old runner goes, then the rest (the Helm
//! release record last). The record Secret is written first and marked
//! while the move is under way, so an interrupted adopt re-runs to the end.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::Outcome;
use crate::cli::AdoptArgs;
use crate::cluster;
use crate::output;
use crate::render::{self, Manifest, LABEL_MANAGED_BY};
use crate::values::{self, Input, Problem, Problems};
use crate::wizard;

/// The chart version whose layout `adopt` knows (the one cf-runner follows).
pub const COVERED_CHART: &str = "cf-runtime-10.5.2";
/// The label the chart puts on every object it renders.
const HELM_CHART_LABEL: &str = "helm.sh/chart";
/// The Secret type Helm stores a release in.
const HELM_RELEASE_TYPE: &str = "helm.sh/release.v1";
/// The Secret cf-runner keeps the agent token in (templates/runner.yaml).
const RUNNER_TOKEN_SECRET: &str = "runner";
/// The first line of a values file `adopt` wrote (and may write over).
const SAVED_MARK: &str = "# cf-runner values, read by `cf-runner adopt`";

/// Which tool made the runner found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// The cf-runtime chart, installed as Helm release `release`.
    Helm { release: String },
    /// venonactl, or `codefresh runner init` (which drives it).
    Venonactl,
}

impl Tool {
    fn describe(&self) -> String {
        match self {
            Tool::Helm { release } => {
                format!("the cf-runtime Helm chart ({COVERED_CHART}, release {release:?})")
            }
            Tool::Venonactl => "venonactl / `codefresh runner init`".to_string(),
        }
    }
}

/// One object of the old install, by kind and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectRef {
    pub kind: String,
    pub name: String,
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.kind, self.name)
    }
}

/// What a namespace holds, as `adopt` reads it.
#[derive(Debug, Clone)]
pub struct Found {
    pub tool: Tool,
    /// The old install's objects (dind volumes and the namespace excluded).
    pub objects: Vec<ObjectRef>,
    /// The install as a cf-runner values tree (no tokens in it).
    pub values: Value,
    /// Settings the install has that this version of `adopt` does not read.
    pub not_read: Vec<String>,
    /// The Secret holding the agent token (kept; its value is never read here).
    pub token_secret: Option<String>,
    /// The dind volume claims (left alone).
    pub volume_claims: Vec<String>,
    /// The StorageClass of the dind volumes, with its provisioner.
    pub storage_class: Option<(String, String)>,
    /// The pod selector of each workload (`Kind/name`), which Kubernetes
    /// does not let an update change.
    pub selectors: BTreeMap<String, Value>,
}

/// What happens to each object of the old install.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Same kind and name in cf-runner's install: applied over, then labelled.
    pub taken_over: Vec<ObjectRef>,
    /// A cf-runner object of another name does its job: the new one comes up
    /// first, then the old one is deleted. (old, new)
    pub replaced: Vec<(ObjectRef, ObjectRef)>,
    /// Same kind and name, but a different pod selector, which cannot be
    /// changed in place: the old one must go before cf-runner's of that
    /// name can exist, so the move needs a runner under another name first.
    pub selector_clash: Vec<ObjectRef>,
    /// Only the old tool needed it: deleted (the Helm release record last).
    pub removed: Vec<ObjectRef>,
    /// Never touched.
    pub left_alone: Vec<String>,
}

fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object["metadata"]["labels"][key].as_str()
}

fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

fn reference(object: &Value) -> ObjectRef {
    ObjectRef {
        kind: kind(object).to_string(),
        name: name(object).to_string(),
    }
}

fn in_namespace(object: &Value, namespace: &str) -> bool {
    object["metadata"]["namespace"].as_str() == Some(namespace)
}

/// True for a cluster-scoped object that belongs to an install in
/// `namespace`: Helm's release-namespace annotation names it, a binding's
/// subject lives there, or a StorageClass's provisioner is that namespace's.
fn cluster_object_of(object: &Value, namespace: &str, roles: &BTreeSet<String>) -> bool {
    if object["metadata"]["namespace"].is_string() {
        return false;
    }
    if object["metadata"]["annotations"]["meta.helm.sh/release-namespace"].as_str()
        == Some(namespace)
    {
        return true;
    }
    match kind(object) {
        "StorageClass" => {
            object["provisioner"].as_str() == Some(&render::provisioner_name(namespace))
                || object["provisioner"].as_str()
                    == Some(&format!(
                        "codefresh.io/dind-volume-provisioner-runner-{namespace}"
                    ))
        }
        "ClusterRoleBinding" => object["subjects"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["namespace"].as_str() == Some(namespace))),
        "ClusterRole" => roles.contains(name(object)),
        _ => false,
    }
}

/// True when a cluster-scoped object is clearly the old tool's own for
/// `namespace`: Helm's marks (the chart's label, the release's namespace
/// annotation), the dind provisioner of that namespace, or venonactl's
/// labels or names ending in `-<namespace>`.
fn made_by(object: &Value, tool: &Tool, namespace: &str) -> bool {
    if kind(object) == "StorageClass" {
        return true; // cluster_object_of matched its provisioner to the namespace
    }
    match tool {
        Tool::Helm { .. } => {
            label(object, HELM_CHART_LABEL).is_some_and(|c| c.starts_with("cf-runtime-"))
                || object["metadata"]["annotations"]["meta.helm.sh/release-namespace"].as_str()
                    == Some(namespace)
        }
        Tool::Venonactl => {
            is_venonactl_object(object) || name(object).ends_with(&format!("-{namespace}"))
        }
    }
}

/// The `app` label values venonactl gives its objects.
const VENONACTL_APPS: &[&str] = &[
    "runner",
    "venona",
    "dind",
    "dind-volume-provisioner",
    "dind-lv-monitor",
    "app-proxy",
    "monitor",
];

/// Objects venonactl creates without an `app` label, by kind and name.
const VENONACTL_UNLABELLED: &[(&str, &str)] = &[
    ("ServiceAccount", "runner"),
    ("Role", "runner"),
    ("RoleBinding", "runner"),
    ("Secret", "runner"),
    ("Secret", "runnerconf"),
    ("ServiceAccount", "codefresh-engine"),
    ("Role", "codefresh-engine"),
    ("RoleBinding", "codefresh-engine"),
    ("ConfigMap", "codefresh-dind-config"),
    ("ServiceAccount", "volume-provisioner-runner"),
    ("ServiceAccount", "monitor"),
    ("ServiceAccount", "monitor-rollback"),
    ("ServiceAccount", "app-proxy"),
];

fn is_venonactl_object(object: &Value) -> bool {
    if label(object, HELM_CHART_LABEL).is_some()
        || label(object, LABEL_MANAGED_BY) == Some("cf-runner")
    {
        return false;
    }
    if label(object, "app").is_some_and(|a| VENONACTL_APPS.contains(&a)) {
        return true;
    }
    VENONACTL_UNLABELLED
        .iter()
        .any(|(k, n)| kind(object) == *k && name(object) == *n)
}

fn refuse(
    key: &str,
    value: Option<&str>,
    why: impl Into<String>,
    fix: impl Into<String>,
) -> Problems {
    let value = value.map(|v| Value::String(v.to_string()));
    Problems(vec![Problem::new(key, value.as_ref(), why, fix)])
}

/// Reads what runs in `namespace` from a scan of it. `Ok(None)`: the
/// namespace already holds a cf-runner install and nothing else.
/// Refusals (exit 2) name the namespace and why.
pub fn detect(
    objects: &[Value],
    namespace: &str,
    context: &str,
) -> Result<Option<Found>, Problems> {
    let local: Vec<&Value> = objects
        .iter()
        .filter(|o| in_namespace(o, namespace))
        .collect();
    let ns_flag = "--kube-namespace";

    // Helm releases: the release Secrets, and the chart's instance labels.
    let mut releases: BTreeSet<String> = BTreeSet::new();
    let mut charts: BTreeSet<String> = BTreeSet::new();
    let mut release_secrets = Vec::new();
    for o in &local {
        if kind(o) == "Secret"
            && (o["type"].as_str() == Some(HELM_RELEASE_TYPE)
                || name(o).starts_with("sh.helm.release.v1."))
        {
            let release = label(o, "name").map(str::to_string).or_else(|| {
                name(o)
                    .strip_prefix("sh.helm.release.v1.")
                    .and_then(|r| r.rsplit_once(".v"))
                    .map(|(r, _)| r.to_string())
            });
            if let Some(r) = release {
                releases.insert(r);
            }
            release_secrets.push(reference(o));
        } else if let Some(chart) = label(o, HELM_CHART_LABEL) {
            if chart.starts_with("cf-runtime-") {
                charts.insert(chart.to_string());
                if let Some(r) = label(o, "app.kubernetes.io/instance") {
                    releases.insert(r.to_string());
                }
            }
        }
    }
    let venonactl_runner = local
        .iter()
        .any(|o| kind(o) == "Deployment" && name(o) == "runner" && is_venonactl_object(o));
    let ours = local
        .iter()
        .any(|o| label(o, LABEL_MANAGED_BY) == Some("cf-runner"));

    let mut runners: Vec<String> = releases
        .iter()
        .map(|r| format!("Helm release {r:?}"))
        .collect();
    if venonactl_runner {
        runners.push("a venonactl runner (Deployment/runner)".into());
    }
    if ours {
        runners.push("a cf-runner install".into());
    }
    if runners.len() > 1 {
        return Err(refuse(
            ns_flag,
            Some(namespace),
            format!(
                "holds more than one runner ({}); adopt moves exactly one, and cannot tell which you mean",
                runners.join(", ")
            ),
            "remove the runners you no longer use (`helm uninstall`, `cf-runner delete`), then re-run adopt",
        ));
    }
    if ours {
        return Ok(None);
    }
    if runners.is_empty() {
        return Err(refuse(
            ns_flag,
            Some(namespace),
            "holds no runner made by the cf-runtime Helm chart, venonactl or `codefresh runner init`",
            "pass --kube-namespace with the namespace of the runner to adopt",
        ));
    }
    if let Some(other) = charts.iter().find(|c| c.as_str() != COVERED_CHART) {
        return Err(refuse(
            "helm.sh/chart",
            Some(other),
            format!(
                "is a chart version whose layout adopt does not cover (it covers {COVERED_CHART}); \
                 guessing at another layout could lose a volume or the agent token"
            ),
            format!(
                "upgrade the release to {} with helm first, then re-run adopt",
                COVERED_CHART.trim_start_matches("cf-runtime-")
            ),
        ));
    }
    let tool = match releases.iter().next() {
        Some(r) => Tool::Helm { release: r.clone() },
        None => Tool::Venonactl,
    };

    // The old install's objects.
    let mut mine: Vec<&Value> = local
        .iter()
        .copied()
        .filter(|o| match &tool {
            Tool::Helm { release } => {
                label(o, HELM_CHART_LABEL).is_some_and(|c| c.starts_with("cf-runtime-"))
                    || release_secrets.contains(&reference(o))
                    // The chart renders some objects (the gencerts RBAC)
                    // without labels: Helm's ownership annotation names them.
                    || o["metadata"]["annotations"]["meta.helm.sh/release-name"].as_str()
                        == Some(release.as_str())
            }
            Tool::Venonactl => is_venonactl_object(o),
        })
        .filter(|o| kind(o) != "PersistentVolumeClaim")
        .collect();
    // Objects the chart creates at run time, outside the manifests.
    let token_secret = match &tool {
        Tool::Helm { .. } => local
            .iter()
            .find(|o| kind(o) == "Secret" && o["data"].get("agent-codefresh-token").is_some())
            .map(|o| name(o).to_string()),
        Tool::Venonactl => local
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == "runner")
            .map(|o| name(o).to_string()),
    };
    if let Some(t) = &token_secret {
        if let Some(o) = local.iter().find(|o| kind(o) == "Secret" && name(o) == t) {
            if !mine.iter().any(|m| kind(m) == "Secret" && name(m) == t) {
                mine.push(o);
            }
        }
        if let Some(o) = local
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == "codefresh-certs-server")
        {
            if !mine
                .iter()
                .any(|m| kind(m) == "Secret" && name(m) == name(o))
            {
                mine.push(o);
            }
        }
    }
    let mut roles = BTreeSet::new();
    let cluster_bindings: Vec<&Value> = objects
        .iter()
        .filter(|o| kind(o) == "ClusterRoleBinding")
        .filter(|o| cluster_object_of(o, namespace, &BTreeSet::new()))
        .collect();
    for b in &cluster_bindings {
        if let Some(r) = b["roleRef"]["name"].as_str() {
            roles.insert(r.to_string());
        }
    }
    let cluster_mine: Vec<&Value> = objects
        .iter()
        .filter(|o| cluster_object_of(o, namespace, &roles))
        // Built-in roles a binding points at are not the install's.
        .filter(|o| !(kind(o) == "ClusterRole" && name(o).starts_with("system:")))
        .filter(|o| !(kind(o) == "ClusterRole" && name(o) == "cluster-admin"))
        // Adopt removes what it counts as the old install's: a binding of
        // the user's to an account in this namespace, or a role shared by
        // every namespace's monitor, must not be counted.
        .filter(|o| made_by(o, &tool, namespace))
        .collect();
    mine.extend(cluster_mine.iter().copied());

    let runner = mine.iter().find(|o| {
        kind(o) == "Deployment"
            && (label(o, "codefresh.io/application") == Some("runner") || name(o) == "runner")
    });
    let storage_class = mine.iter().find(|o| kind(o) == "StorageClass").map(|o| {
        (
            name(o).to_string(),
            o["provisioner"].as_str().unwrap_or_default().to_string(),
        )
    });
    let (values, not_read) = read_values(namespace, context, runner.copied(), &mine, objects);
    let volume_claims = local
        .iter()
        .filter(|o| kind(o) == "PersistentVolumeClaim")
        .map(|o| name(o).to_string())
        .collect();
    let selectors = mine
        .iter()
        .filter(|o| o["spec"]["selector"].is_object())
        .map(|o| (reference(o).to_string(), o["spec"]["selector"].clone()))
        .collect();
    let mut refs: Vec<ObjectRef> = mine.iter().map(|o| reference(o)).collect();
    refs.sort();
    refs.dedup();
    Ok(Some(Found {
        tool,
        objects: refs,
        values,
        not_read,
        token_secret,
        volume_claims,
        storage_class,
        selectors,
    }))
}

fn env_of(container: &Value) -> BTreeMap<String, String> {
    container["env"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| {
            Some((
                e["name"].as_str()?.to_string(),
                e["value"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// The install as a cf-runner values tree, and what was not read.
fn read_values(
    namespace: &str,
    context: &str,
    runner: Option<&Value>,
    mine: &[&Value],
    all: &[Value],
) -> (Value, Vec<String>) {
    let mut v = json!({ "Namespace": namespace, "Context": context });
    let mut not_read = vec![
        "resources of every component".to_string(),
        "the dind and engine settings of the runtime environment (kept on the platform)"
            .to_string(),
    ];
    if let Some(runner) = runner {
        let spec = &runner["spec"]["template"]["spec"];
        let containers = spec["containers"].as_array().cloned().unwrap_or_default();
        let container = containers
            .iter()
            .find(|c| c["name"] == "runner")
            .or_else(|| containers.first())
            .cloned()
            .unwrap_or(Value::Null);
        let env = env_of(&container);
        if let Some(a) = env.get("AGENT_ID") {
            v["AgentId"] = json!(a);
        }
        if let Some(h) = env.get("CODEFRESH_HOST") {
            v["CodefreshHost"] = json!(h);
        }
        match env.get("CODEFRESH_IN_CLUSTER_RUNTIME") {
            Some(r) => v["RuntimeEnvironmentName"] = json!(r),
            None => not_read.push(
                "the runtime environment's name (venonactl keeps it only in Secret runnerconf): set RuntimeEnvironmentName in the values file"
                    .to_string(),
            ),
        }
        let mut env_vars = Map::new();
        for key in ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"] {
            if let Some(p) = env.get(key) {
                env_vars.insert(key.to_string(), json!(p));
            }
        }
        if !env_vars.is_empty() {
            v["EnvVars"] = Value::Object(env_vars);
        }
        if let Some(sel) = spec["nodeSelector"].as_object().filter(|m| !m.is_empty()) {
            v["NodeSelector"] = Value::Object(sel.clone());
        }
        if let Some(t) = spec["tolerations"].as_array().filter(|t| !t.is_empty()) {
            v["Tolerations"] = Value::Array(t.clone());
        }
        if let Some(image) = container["image"].as_str() {
            if let Some((registry, _)) = image.split_once("/codefresh/") {
                if registry != "quay.io" && !registry.is_empty() {
                    v["DockerRegistry"] = json!(registry);
                }
            }
        }
    }
    if let Some(sc) = mine.iter().find(|o| kind(o) == "StorageClass") {
        let p = &sc["parameters"];
        let backend = p["volumeBackend"].as_str().unwrap_or("local");
        v["Storage"] = json!({ "Backend": backend, "StorageClassName": name(sc) });
        let pairs: &[(&str, &str)] = match backend {
            "local" => &[("volumeParentDir", "LocalVolumeParentDir")],
            "ebs" | "ebs-csi" => &[
                ("VolumeType", "VolumeType"),
                ("AvailabilityZone", "AvailabilityZone"),
                ("fsType", "FsType"),
                ("encrypted", "Encrypted"),
                ("kmsKeyId", "KmsKeyId"),
            ],
            "gcedisk" => &[
                ("type", "VolumeType"),
                ("zone", "AvailabilityZone"),
                ("fsType", "FsType"),
            ],
            "azuredisk" | "azuredisk-csi" => &[
                ("skuName", "SkuName"),
                ("cachingMode", "CachingMode"),
                ("fsType", "FsType"),
                ("location", "AzureLocation"),
                ("resourceGroup", "AzureResourceGroup"),
            ],
            _ => &[],
        };
        for (param, key) in pairs {
            if let Some(value) = p[*param].as_str() {
                v["Storage"][*key] = if *key == "Encrypted" {
                    json!(value == "true")
                } else {
                    json!(value)
                };
            }
        }
    } else {
        not_read.push(
            "the StorageClass of dind volumes (the install made none): set StorageClass in the values file"
                .to_string(),
        );
    }
    let has = |component: &str| {
        mine.iter().any(|o| {
            kind(o) == "Deployment"
                && (label(o, "codefresh.io/application") == Some(component)
                    || label(o, "app") == Some(component)
                    || name(o) == component)
        })
    };
    v["Monitor"] = json!({ "Enabled": has("monitor") });
    v["AppProxy"] = json!({ "Enabled": has("app-proxy") });
    if has("app-proxy") {
        if let Some(ingress) = all.iter().find(|o| {
            kind(o) == "Ingress"
                && mine
                    .iter()
                    .any(|m| kind(m) == "Ingress" && name(m) == name(o))
        }) {
            if let Some(host) = ingress["spec"]["rules"][0]["host"].as_str() {
                v["AppProxy"]["Ingress"] = json!({ "Host": host });
            }
            if let Some(class) = ingress["spec"]["ingressClassName"].as_str() {
                v["AppProxy"]["Ingress"]["IngressClass"] = json!(class);
            }
        }
    }
    (v, not_read)
}

/// Sorts the old install's objects against what cf-runner would install.
/// `ours` holds each object cf-runner would install with its pod selector
/// (`Value::Null` for kinds without one).
pub fn plan(found: &Found, ours: &[(ObjectRef, Value)], namespace: &str) -> Plan {
    let selector_of: BTreeMap<&ObjectRef, &Value> = ours.iter().map(|(o, s)| (o, s)).collect();
    let ours: Vec<ObjectRef> = ours.iter().map(|(o, _)| o.clone()).collect();
    let mut plan = Plan::default();
    let by_kind = |k: &str| {
        ours.iter()
            .filter(|o| o.kind == k)
            .cloned()
            .collect::<Vec<_>>()
    };
    let mut helm_records = Vec::new();
    for old in &found.objects {
        if old.kind == "StorageClass" && ours.contains(old) {
            if let Some((_, provisioner)) = &found.storage_class {
                if *provisioner == render::provisioner_name(namespace) {
                    plan.left_alone.push(format!(
                        "{old} (cf-runner uses the same name and provisioner {provisioner}: the class and its volumes stay as they are; cf-runner only adds its labels)"
                    ));
                    continue;
                }
            }
        }
        if ours.contains(old) {
            let theirs = found.selectors.get(&old.to_string());
            let mine = selector_of.get(old).copied().filter(|s| !s.is_null());
            if theirs.is_some() && mine.is_some() && theirs != mine {
                plan.selector_clash.push(old.clone());
                continue;
            }
            plan.taken_over.push(old.clone());
            continue;
        }
        if found.token_secret.as_deref() == Some(old.name.as_str()) && old.kind == "Secret" {
            // The agent token moves to cf-runner's Secret; the old one goes
            // once the new runner serves builds.
            if let Some(new) = ours
                .iter()
                .find(|o| o.kind == "Secret" && o.name == RUNNER_TOKEN_SECRET)
            {
                plan.replaced.push((old.clone(), new.clone()));
                continue;
            }
        }
        if old.kind == "StorageClass" {
            if let Some((_, provisioner)) = &found.storage_class {
                plan.left_alone.push(format!(
                    "{old} (provisioner {provisioner}; cf-runner renders another name, so it stays and the new class is added)"
                ));
                continue;
            }
        }
        if old.kind == "Secret" && old.name.starts_with("sh.helm.release.v1.") {
            helm_records.push(old.clone());
            continue;
        }
        let counterpart = match old.kind.as_str() {
            "Deployment" | "DaemonSet" => {
                let role = component_of(&old.name);
                by_kind(&old.kind)
                    .into_iter()
                    .find(|o| role.is_some() && component_of(&o.name) == role)
            }
            _ => None,
        };
        match counterpart {
            Some(new) => plan.replaced.push((old.clone(), new)),
            None => plan.removed.push(old.clone()),
        }
    }
    plan.removed.extend(helm_records);
    plan.left_alone.push(format!(
        "dind volume claims and their volumes ({})",
        if found.volume_claims.is_empty() {
            "none yet".to_string()
        } else {
            found.volume_claims.join(", ")
        }
    ));
    plan.left_alone.push("the namespace".into());
    plan.left_alone.push(
        "the agent and the runtime environment on the platform (same names, same agent token)"
            .into(),
    );
    plan
}

/// Which part of the runner a workload's name says it is.
fn component_of(name: &str) -> Option<&'static str> {
    if name.contains("lv-monitor") {
        Some("lv-monitor")
    } else if name.contains("volume-provisioner") {
        Some("volume-provisioner")
    } else if name.contains("app-proxy") {
        Some("app-proxy")
    } else if name.contains("monitor") {
        Some("monitor")
    } else if name.contains("runner") {
        Some("runner")
    } else {
        None
    }
}

/// The saved values file's text: like the wizard's, with adopt's header.
pub fn values_text(found: &Found, namespace: &str) -> wizard::SavedValues {
    let mut saved = wizard::values_file(&found.values);
    let rest = saved
        .text
        .split_once('\n')
        .map(|(_, r)| r)
        .unwrap_or_default();
    // The wizard's second line says how to replay the file with `init`;
    // here that would install a second runner beside the old one.
    let rest = rest.split_once('\n').map(|(_, r)| r).unwrap_or_default();
    saved.text = format!(
        "{SAVED_MARK} from {} in namespace {namespace}.\n\
         # It describes that install: `cf-runner init --values` with it would put a second runner beside the old one.\n{rest}",
        found.tool.describe()
    );
    saved
}

/// Annotation on the record Secret while a move is under way (its value
/// names the old tool): a re-run of `adopt` continues the move.
pub const ADOPTING_ANNOTATION: &str = "cf-runner.codefresh.io/adopting";
/// Suffix of the name a workload runs under while an old one of the same
/// name (and another pod selector) is removed.
pub const INTERIM_SUFFIX: &str = "-adopting";

/// Runs `cf-runner adopt`.
pub fn run(args: &AdoptArgs) -> Outcome {
    if !args.dry_run && !args.yes && !output::stdin_is_tty() {
        return borrowed::need_yes();
    }
    let path = args.values_file.clone();
    if let Err(problems) = check_save_path(&path, args.overwrite) {
        return Outcome::BadInput(problems);
    }
    let moved = borrowed::runtime().block_on(async {
        let cluster = borrowed::connect(&args.kube).await?;
        let namespace = args
            .kube
            .kube_namespace
            .clone()
            .unwrap_or_else(|| "codefresh".into());
        let objects = cluster::adopt::scan(&cluster, &namespace)
            .await
            .map_err(|e| borrowed::failed(e, "reading the namespace failed"))?;
        let resuming = objects
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == render::RECORD_SECRET)
            .and_then(|o| o["metadata"]["annotations"][ADOPTING_ANNOTATION].as_str())
            .map(str::to_string);
        if let (Some(tool), false) = (&resuming, args.dry_run) {
            output::say(&format!(
                "namespace {namespace}: an earlier adopt (from {tool}) did not finish; continuing it"
            ));
            // What is not cf-runner's yet is what is left of the old install.
            let others: Vec<Value> = objects
                .iter()
                .filter(|o| label(o, LABEL_MANAGED_BY) != Some("cf-runner"))
                .cloned()
                .collect();
            let found = detect(&others, &namespace, &cluster.context)
                .ok()
                .flatten();
            let record = cluster::inventory::record(&cluster.client, &namespace)
                .await
                .map_err(|e| borrowed::failed(e, "reading the installation record failed"))?
                .and_then(|r| r.values_yaml)
                .unwrap_or_default();
            let tree = values::tree::parse_values_text(&record, "the installation record")
                .map_err(|p| Outcome::BadInput(Problems(vec![p])))?;
            let start = Start {
                found,
                tree,
                tool: tool.clone(),
                resuming: true,
            };
            return move_runner(args, &cluster, &namespace, &objects, start)
                .await
                .map(|()| Some(namespace));
        }
        if let Some(tool) = &resuming {
            output::say(&format!(
                "namespace {namespace}: a move from {tool} to cf-runner is under way (an earlier adopt did not finish); \
                 run `cf-runner adopt` without --dry-run to finish it"
            ));
            return Ok(None);
        }
        let found = match detect(&objects, &namespace, &cluster.context) {
            Ok(Some(f)) => f,
            Ok(None) => {
                output::say(&format!(
                    "namespace {namespace} already holds a cf-runner install: nothing to adopt"
                ));
                return Ok(None);
            }
            Err(p) => return Err(Outcome::BadInput(p)),
        };
        if args.dry_run {
            return Err(report(&found, &namespace, &path));
        }
        let tree = found.values.clone();
        let tool = found.tool.describe();
        let start = Start {
            found: Some(found),
            tree,
            tool,
            resuming: false,
        };
        move_runner(args, &cluster, &namespace, &objects, start)
            .await
            .map(|()| Some(namespace))
    });
    match moved {
        Ok(Some(namespace)) => {
            // `info` opens its own runtime: after this one is done.
            let mut kube = args.kube.clone();
            kube.kube_namespace = Some(namespace);
            borrowed::info(kube, args.platform.clone())
        }
        Ok(None) => Outcome::Ok,
        Err(outcome) => outcome,
    }
}

/// The calls into other commands' files, gathered in one place.
mod borrowed {
    use super::super::steps::{converge, register, session, status, upgrade_plan};
    use super::super::Outcome;
    use crate::cli::{InfoArgs, KubeArgs, OutputFormat, PlatformArgs};
    use crate::cluster::{Cluster, KubeError};
    use crate::platform::{Auth, Platform, PlatformError};
    use crate::render::Manifest;

    pub fn need_yes() -> Outcome {
        session::need_yes("adopt", "the move of the runner")
    }
    pub fn runtime() -> tokio::runtime::Runtime {
        session::runtime()
    }
    pub async fn connect(kube: &KubeArgs) -> Result<Cluster, Outcome> {
        session::connect_flags(kube).await
    }
    pub fn failed(e: KubeError, what: &str) -> Outcome {
        session::failed(e, what)
    }
    pub fn info(kube: KubeArgs, platform: PlatformArgs) -> Outcome {
        status::show(&InfoArgs {
            kube,
            platform,
            output: OutputFormat::Table,
        })
    }
    pub fn resolve(args: &PlatformArgs, host: Option<&str>) -> Result<Option<Auth>, PlatformError> {
        register::resolve(args, host)
    }
    pub fn client(auth: &Auth, args: &PlatformArgs) -> Result<Platform, Outcome> {
        register::client(auth, args)
    }
    pub fn platform_failed(e: PlatformError, doing: &str) -> Outcome {
        register::failed(e, doing)
    }
    pub fn token_needed(why: &str) -> Outcome {
        register::token_needed("adopt", why, "")
    }
    pub fn spec_differences(ours: &serde_json::Value, theirs: &serde_json::Value) -> Vec<String> {
        register::spec_differences(ours, theirs)
    }
    pub fn spec_to_send(rendered: &serde_json::Value, account: Option<&str>) -> serde_json::Value {
        register::spec_to_send(rendered, account)
    }
    pub async fn apply(
        cluster: &Cluster,
        manifests: &[Manifest],
        namespace: &str,
    ) -> Result<(), Outcome> {
        converge::apply_with_progress(cluster, manifests, namespace, true, "adopt")
            .await
            .map(|_| ())
    }
    pub async fn wait(
        cluster: &Cluster,
        manifests: &[Manifest],
        timeout: std::time::Duration,
    ) -> Result<(), Outcome> {
        converge::wait_with_progress(cluster, manifests, timeout, "adopt").await
    }
    pub fn print_diffs(diffs: &[crate::cluster::diff::ObjectDiff], namespace: &str, context: &str) {
        upgrade_plan::print_diffs(diffs, namespace, context, true)
    }
    pub fn delete_failed(
        report: &crate::cluster::delete::Report,
        timeout: std::time::Duration,
    ) -> Outcome {
        converge::delete_failed(report, timeout)
    }
}

fn failed(err: anyhow::Error, hint: impl Into<String>) -> Outcome {
    Outcome::Failed(err, Some(hint.into()))
}

/// Everything the move needs from the platform, checked before the
/// cluster is touched.
struct OnPlatform {
    client: crate::platform::Platform,
    /// The API token, for a monitor the install runs.
    token: values::Secret,
    account_id: Option<String>,
    agent: String,
    runtime: String,
    /// The runtime environment as the platform has it now.
    spec: Value,
}

async fn on_platform(args: &AdoptArgs, values: &values::Values) -> Result<OnPlatform, Outcome> {
    use crate::platform::Need;
    let auth = match borrowed::resolve(&args.platform, Some(&values.codefresh_host)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            return Err(borrowed::token_needed(
                "compare the runtime environment's spec on the Codefresh platform with the one cf-runner \
                 runs and send it when it differs (builds would otherwise keep the old installer's spec)",
            ))
        }
        Err(e) => return Err(borrowed::platform_failed(e, "finding the Codefresh API token")),
    };
    let client = borrowed::client(&auth, &args.platform)?;
    let who = client
        .whoami()
        .await
        .map_err(|e| borrowed::platform_failed(e, "checking the Codefresh API token"))?;
    client
        .require_scopes(&[Need::Agents, Need::RuntimeEnvironments])
        .await
        .map_err(|e| borrowed::platform_failed(e, "checking the Codefresh API token's scopes"))?;
    let Some(agent_name) = values.agent_name.clone() else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "AgentId",
            None,
            "could not be read from the runner (its AGENT_ID variable is missing)",
            "check the old runner's Deployment: adopt keeps the agent it runs as",
        )])));
    };
    let agents = client
        .agents_named(&agent_name)
        .await
        .map_err(|e| borrowed::platform_failed(e, "looking up the agent"))?;
    let Some(agent) = agents.into_iter().next() else {
        return Err(failed(
            anyhow::anyhow!(
                "agent {agent_name}, which the runner runs as, is not on the Codefresh platform {}",
                client.url()
            ),
            "pass --token (and --url) for the account the runner was installed with; nothing was changed",
        ));
    };
    let runtime = match &values.runtime_name {
        Some(r) => r.clone(),
        None => match agent.runtimes.as_slice() {
            [one] => one.clone(),
            other => {
                return Err(failed(
                    anyhow::anyhow!(
                        "the install does not name its runtime environment, and agent {agent_name} serves {} ({})",
                        other.len(),
                        other.join(", ")
                    ),
                    "adopt moves an agent with exactly one runtime environment; nothing was changed",
                ))
            }
        },
    };
    let spec = client
        .runtime(&runtime)
        .await
        .map_err(|e| borrowed::platform_failed(e, "reading the runtime environment"))?
        .ok_or_else(|| {
            failed(
                anyhow::anyhow!("runtime environment {runtime} is not on the Codefresh platform"),
                "pass --token for the account the runner was installed with; nothing was changed",
            )
        })?;
    let account_id = who.account_id.or_else(|| {
        spec.get("accountId")
            .or(spec.pointer("/runtimeScheduler/cluster/clusterProvider/accountId"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    output::done(&format!(
        "Codefresh platform {}: agent {agent_name} and runtime environment {runtime} found",
        client.url()
    ));
    Ok(OnPlatform {
        client,
        token: auth.token.clone(),
        account_id,
        agent: agent_name,
        runtime,
        spec,
    })
}

/// The agent token the old runner uses (or, on a re-run, cf-runner's copy).
async fn agent_token(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Option<&Found>,
) -> Result<values::Secret, Outcome> {
    let mut places: Vec<(String, &str)> = Vec::new();
    if let Some(secret) = found.and_then(|f| f.token_secret.clone()) {
        places.push((secret.clone(), "agent-codefresh-token"));
        places.push((secret, "codefresh.token"));
    }
    places.push((RUNNER_TOKEN_SECRET.to_string(), "codefresh.token"));
    for (secret, key) in &places {
        let value = cluster::secrets::read_key(&cluster.client, namespace, secret, key)
            .await
            .map_err(|e| borrowed::failed(e, "reading the agent token failed"))?;
        if let Some(v) = value.filter(|v| !v.is_empty() && !v.starts_with("<placeholder")) {
            return Ok(values::Secret::new(v));
        }
    }
    Err(failed(
        anyhow::anyhow!(
            "no agent token found in namespace {namespace} (looked in {})",
            places
                .iter()
                .map(|(s, k)| format!("Secret/{s} key {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "adopt keeps the agent's token and cannot go on without it; nothing was changed",
    ))
}

/// The dind TLS material in place (`None`: the install has none yet).
async fn kept_certs(
    cluster: &cluster::Cluster,
    namespace: &str,
) -> Result<Option<(values::Secret, values::Secret, values::Secret)>, Outcome> {
    let mut got = Vec::new();
    for key in ["ca.pem", "server-cert.pem", "server-key.pem"] {
        let value =
            cluster::secrets::read_key(&cluster.client, namespace, "codefresh-certs-server", key)
                .await
                .map_err(|e| borrowed::failed(e, "reading the dind certificates failed"))?;
        got.push(value.filter(|v| !v.starts_with("<placeholder") && !v.is_empty()));
    }
    Ok(match got.as_slice() {
        [Some(ca), Some(cert), Some(key)] => Some((
            values::Secret::new(ca.clone()),
            values::Secret::new(cert.clone()),
            values::Secret::new(key.clone()),
        )),
        _ => None,
    })
}

/// A new dind key, signed by the platform, for an install that has none.
async fn signed_certs(
    namespace: &str,
    platform: &OnPlatform,
) -> Result<(values::Secret, values::Secret, values::Secret), Outcome> {
    let generated = crate::platform::certs::generate(namespace)
        .map_err(|e| borrowed::platform_failed(e, "preparing the dind TLS certificate"))?;
    let sans = crate::platform::certs::subject_alt_names(namespace);
    let (ca, cert) = platform
        .client
        .sign_server_certs(&generated.csr_pem, &sans)
        .await
        .map_err(|e| {
            borrowed::platform_failed(e, "having the platform sign the dind certificate")
        })?;
    output::done("the install had no dind TLS certificate: a new one was signed by the platform");
    Ok((
        values::Secret::new(ca),
        values::Secret::new(cert),
        generated.key_pem,
    ))
}

/// Refuses a move that would change how dind volumes are made: the
/// StorageClass cf-runner renders must equal the one in place (a class's
/// provisioner and parameters cannot change, and the volumes belong to it).
fn storage_problems(rendered: &[Manifest], objects: &[Value]) -> Vec<Problem> {
    let mut out = Vec::new();
    for ours in rendered.iter().filter(|m| m.kind == "StorageClass") {
        let Some(live) = objects
            .iter()
            .find(|o| kind(o) == "StorageClass" && name(o) == ours.name)
        else {
            continue;
        };
        let backend = |o: &Value| {
            o["parameters"]["volumeBackend"]
                .as_str()
                .unwrap_or("(none)")
                .to_string()
        };
        if live["provisioner"] != ours.object["provisioner"]
            || backend(live) != backend(&ours.object)
        {
            out.push(Problem::new(
                "Storage.Backend",
                Some(&Value::String(backend(&ours.object))),
                format!(
                    "would change the storage backend of the dind volumes: StorageClass {} has provisioner {} and backend {}, \
                     cf-runner would make it {} with backend {}; the existing volumes belong to the old class",
                    ours.name,
                    live["provisioner"].as_str().unwrap_or("(none)"),
                    backend(live),
                    ours.object["provisioner"].as_str().unwrap_or("(none)"),
                    backend(&ours.object)
                ),
                "adopt keeps the storage as it is; to change it, adopt first, then `cf-runner delete --purge-volumes` and `cf-runner init` with the new storage",
            ));
            continue;
        }
        // Immutable too; the API server fills them in when left out.
        for (field, default) in [
            ("reclaimPolicy", "Delete"),
            ("volumeBindingMode", "Immediate"),
        ] {
            let value = |o: &Value| o[field].as_str().unwrap_or(default).to_string();
            if value(live) != value(&ours.object) {
                out.push(Problem::new(
                    "Storage",
                    None,
                    format!(
                        "would change the {field} of StorageClass {} ({} → {}), which Kubernetes does not allow",
                        ours.name,
                        value(live),
                        value(&ours.object)
                    ),
                    "adopt keeps the storage as it is: this class was made in a way cf-runner does not render; keep the old install, or move with `cf-runner delete --purge-volumes` and `cf-runner init`",
                ));
            }
        }
        let theirs = live["parameters"].as_object().cloned().unwrap_or_default();
        let mine = ours.object["parameters"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let differ: Vec<String> = theirs
            .keys()
            .chain(mine.keys())
            .filter(|k| theirs.get(*k) != mine.get(*k))
            .map(|k| {
                format!(
                    "{k}: {} → {}",
                    theirs
                        .get(k)
                        .map(ToString::to_string)
                        .unwrap_or("(unset)".into()),
                    mine.get(k)
                        .map(ToString::to_string)
                        .unwrap_or("(unset)".into())
                )
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !differ.is_empty() {
            out.push(Problem::new(
                "Storage",
                None,
                format!(
                    "would change the parameters of StorageClass {} ({}), which Kubernetes does not allow and the existing volumes rely on",
                    ours.name,
                    differ.join(", ")
                ),
                "set the Storage values in the saved values file to the class's parameters; adopt reads the common ones",
            ));
        }
    }
    out
}

/// A copy of workload `m` under another name and pod selector, to serve
/// while the old workload of `m`'s name (and another selector) is removed.
fn interim(m: &Manifest) -> Manifest {
    let mut copy = m.clone();
    copy.name = format!("{}{INTERIM_SUFFIX}", m.name);
    let o = &mut copy.object;
    o["metadata"]["name"] = json!(copy.name);
    o["spec"]["selector"] = json!({"matchLabels": {
        "app.kubernetes.io/name": copy.name,
        render::LABEL_INSTANCE: m.namespace.clone().unwrap_or_default(),
    }});
    let labels = &mut o["spec"]["template"]["metadata"]["labels"];
    if let Some(map) = labels.as_object_mut() {
        // Old selectors (venonactl's `app: runner`) must not match it.
        map.remove("app");
    }
    labels["app.kubernetes.io/name"] = json!(copy.name);
    labels[render::LABEL_INSTANCE] = json!(m.namespace.clone().unwrap_or_default());
    copy
}

/// Deletes scanned objects (after taking the old tool's finalizer off
/// them), waiting until they are gone.
async fn remove(
    cluster: &cluster::Cluster,
    objects: Vec<&Value>,
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    if objects.is_empty() {
        return Ok(());
    }
    for o in &objects {
        cluster::adopt::remove_old_marks(
            cluster,
            o["apiVersion"].as_str().unwrap_or_default(),
            kind(o),
            o["metadata"]["namespace"].as_str(),
            name(o),
        )
        .await
        .map_err(|e| {
            borrowed::failed(
                e,
                "preparing the old installer's objects for removal failed",
            )
        })?;
    }
    let live: Vec<cluster::inventory::LiveObject> = objects
        .iter()
        .map(|o| cluster::adopt::live_object(o))
        .collect();
    let phases = cluster::delete::plan(live);
    let on_event = |e: &cluster::delete::Event| {
        if let cluster::delete::Event::Gone(o) = e {
            output::removed(&o.display_name(), o.namespace.as_deref());
        }
    };
    let report = cluster::delete::delete_all(&cluster.client, &phases, timeout, &on_event).await;
    if report.ok() {
        Ok(())
    } else {
        Err(borrowed::delete_failed(&report, timeout))
    }
}

/// Moves the runner to cf-runner: checks everything, asks, then brings
/// cf-runner's runner up with the same agent token before the old one goes.
/// Where a move starts from.
struct Start {
    /// What is left of the old install (`None`: nothing, on a re-run).
    found: Option<Found>,
    /// The values: read from the install, or recorded by the earlier run.
    tree: Value,
    /// The old tool, in words (kept on the record while the move runs).
    tool: String,
    /// True when continuing an earlier, interrupted run.
    resuming: bool,
}

async fn move_runner(
    args: &AdoptArgs,
    cluster: &cluster::Cluster,
    namespace: &str,
    objects: &[Value],
    start: Start,
) -> Result<(), Outcome> {
    let Start {
        found,
        tree,
        tool,
        resuming,
    } = start;
    // The values: what the install is (or, on a re-run, what was recorded).
    let input = Input {
        files: vec![values::ValuesFile {
            origin: format!("the install in namespace {namespace}"),
            text: serde_yaml_ng::to_string(&tree).expect("a tree serializes"),
        }],
        overrides: vec![
            ("Context".into(), Value::String(cluster.context.clone())),
            ("Namespace".into(), Value::String(namespace.to_string())),
        ],
        ..Default::default()
    };
    let mut loaded = values::load(&input).map_err(Outcome::BadInput)?;
    let platform = on_platform(args, &loaded.values).await?;
    if loaded.values.monitor.enabled && loaded.values.token.is_none() {
        // The monitor reads the API token from its Secret, as after `init`.
        let mut input = input;
        input.overrides.push((
            "Token".into(),
            Value::String(platform.token.expose().to_string()),
        ));
        loaded = values::load(&input).map_err(Outcome::BadInput)?;
    }
    // The runtime's name is now known for sure: the record keeps it.
    loaded.redacted_tree["RuntimeEnvironmentName"] = json!(platform.runtime);
    loaded.redacted_tree["AgentId"] = json!(platform.agent);
    let token = agent_token(cluster, namespace, found.as_ref()).await?;
    let kept = kept_certs(cluster, namespace).await?;
    if kept.is_some() {
        output::done("dind TLS certificates kept (Secret/codefresh-certs-server)");
    }
    let (ca, cert, key) = match kept.clone() {
        Some((ca, cert, key)) => (Some(ca), Some(cert), Some(key)),
        None => (None, None, None),
    };
    let mut identity = render::Identity {
        context: Some(cluster.context.clone()),
        agent_name: Some(platform.agent.clone()),
        runtime_name: Some(platform.runtime.clone()),
        account_id: platform.account_id.clone(),
        agent_token: Some(token),
        dind_ca: ca,
        dind_cert: cert,
        dind_key: key,
        registered: true,
    };
    let mut rendered =
        render::render(&loaded.values, &identity, &loaded.redacted_tree).map_err(|e| {
            failed(
                anyhow::Error::new(e).context("rendering failed (a bug in cf-runner)"),
                "please report it; nothing was changed",
            )
        })?;
    let problems = storage_problems(&rendered.manifests, objects);
    if !problems.is_empty() {
        return Err(Outcome::BadInput(Problems(problems)));
    }
    let ours: Vec<(ObjectRef, Value)> = rendered
        .manifests
        .iter()
        .map(|m| {
            (
                ObjectRef {
                    kind: m.kind.clone(),
                    name: m.name.clone(),
                },
                m.object["spec"]["selector"].clone(),
            )
        })
        .collect();
    let plan = match &found {
        Some(f) => plan(f, &ours, namespace),
        None => Plan::default(),
    };
    // A re-run continues a move: the values file was saved by the first run.
    if let Some(f) = found.as_ref().filter(|_| !resuming) {
        output::say(&format!(
            "found in namespace {namespace}: a runner made by {}",
            f.tool.describe()
        ));
        let saved = values_text(f, namespace);
        crate::export::write_file(&args.values_file, &saved.text, saved.holds_secret)
            .map_err(|e| Outcome::Failed(e.into(), None))?;
        output::note(&format!(
            "saved what the install is to {} (tokens are not in it)",
            args.values_file.display()
        ));
    }
    print_plan(found.as_ref(), &plan, false);
    let spec = borrowed::spec_to_send(
        &rendered.runtime_environment,
        platform.account_id.as_deref(),
    );
    let differ = borrowed::spec_differences(&spec, &platform.spec);
    if differ.is_empty() {
        output::say(&format!(
            "  runtime environment {} on the platform: its spec already matches cf-runner's",
            platform.runtime
        ));
    } else {
        output::say(&format!(
            "  runtime environment {} on the platform: cf-runner's spec replaces the old installer's ({} differ)",
            platform.runtime,
            differ.join(", ")
        ));
    }
    if !args.yes {
        // What the apply changes in each object, as `diff` shows it: the
        // settings the old install had and the values file does not carry
        // (a hand-edited daemon.json, say) show up here.
        match cluster::diff::diff_all(&cluster.client, &rendered.manifests, &[]).await {
            Ok(diffs) => borrowed::print_diffs(&diffs, namespace, &cluster.context),
            Err(e) => output::warn(&format!(
                "the server-side dry-run failed, no diff to show: {e}"
            )),
        }
        match output::confirm("Move the runner to cf-runner?", false) {
            Ok(true) => {}
            Ok(false) => {
                output::say("Nothing was changed.");
                return Err(Outcome::Ok);
            }
            Err(e) => {
                return Err(failed(
                    anyhow::Error::new(e).context("reading the answer failed"),
                    "re-run with --yes to skip the question",
                ))
            }
        }
    }

    if kept.is_none() {
        // Signed only now, once the move is confirmed.
        let (ca, cert, key) = signed_certs(namespace, &platform).await?;
        identity.dind_ca = Some(ca);
        identity.dind_cert = Some(cert);
        identity.dind_key = Some(key);
        rendered =
            render::render(&loaded.values, &identity, &loaded.redacted_tree).map_err(|e| {
                failed(
                    anyhow::Error::new(e).context("rendering failed (a bug in cf-runner)"),
                    "please report it; nothing was changed",
                )
            })?;
    }

    let by_ref = |r: &ObjectRef| {
        objects
            .iter()
            .find(|o| {
                kind(o) == r.kind && name(o) == r.name && !is_cluster_scoped_value(o, namespace)
            })
            .or_else(|| {
                objects
                    .iter()
                    .find(|o| kind(o) == r.kind && name(o) == r.name)
            })
    };
    let record = rendered
        .manifests
        .iter()
        .find(|m| m.kind == "Secret" && m.name == render::RECORD_SECRET)
        .cloned()
        .expect("the record is always rendered");
    let mut moving = record.clone();
    moving.object["metadata"]["annotations"][ADOPTING_ANNOTATION] = json!(tool);

    // 0. The record first, marked: a re-run continues from here.
    borrowed::apply(cluster, std::slice::from_ref(&moving), namespace).await?;

    // 1. cf-runner's runner (and every other object) up and ready, with the
    //    same agent token; a workload whose name an old one of another pod
    //    selector holds comes up under an interim name.
    let clash: Vec<&Manifest> = rendered
        .manifests
        .iter()
        .filter(|m| {
            plan.selector_clash
                .iter()
                .any(|c| c.kind == m.kind && c.name == m.name)
        })
        .collect();
    let mut first: Vec<Manifest> = rendered
        .manifests
        .iter()
        .filter(|m| !clash.iter().any(|c| c.kind == m.kind && c.name == m.name))
        .map(|m| {
            if m.name == record.name && m.kind == "Secret" {
                moving.clone()
            } else {
                m.clone()
            }
        })
        .collect();
    first.extend(clash.iter().map(|m| interim(m)));
    output::say("Step 1 of 3: cf-runner's runner comes up beside the old one (same agent token)");
    borrowed::apply(cluster, &first, namespace).await?;
    borrowed::wait(cluster, &first, args.timeout).await?;

    // 2. The old runner (and the old workloads replaced) go.
    output::say("Step 2 of 3: the old runner goes");
    let old_workloads: Vec<&Value> = plan
        .replaced
        .iter()
        .map(|(old, _)| old)
        .chain(plan.selector_clash.iter())
        .filter(|o| matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
        .filter_map(by_ref)
        .collect();
    remove(cluster, old_workloads, args.timeout).await?;
    if !clash.is_empty() {
        let now: Vec<Manifest> = clash.iter().map(|m| (*m).clone()).collect();
        borrowed::apply(cluster, &now, namespace).await?;
        borrowed::wait(cluster, &now, args.timeout).await?;
    }
    // Interim workloads (of this run or an interrupted one) go once the
    // real ones are ready.
    let mut interims = Vec::new();
    for m in rendered
        .manifests
        .iter()
        .filter(|m| matches!(m.kind.as_str(), "Deployment" | "DaemonSet"))
    {
        let interim_name = format!("{}{INTERIM_SUFFIX}", m.name);
        if let Some(live) = cluster::inventory::get(
            &cluster.client,
            &m.api_version,
            &m.kind,
            m.namespace.as_deref(),
            &interim_name,
        )
        .await
        .map_err(|e| borrowed::failed(e, "reading the interim workloads failed"))?
        {
            interims.push(live.object.clone());
            interims.last_mut().expect("just pushed")["apiVersion"] = json!(m.api_version);
            interims.last_mut().expect("just pushed")["kind"] = json!(m.kind);
        }
    }
    remove(cluster, interims.iter().collect(), args.timeout).await?;

    // 3. The rest: the old tool's marks off what cf-runner took over, the
    //    old objects replaced or only the old tool needed, and the Helm
    //    release records last, so that helm no longer claims anything.
    output::say("Step 3 of 3: the old installer's objects go (the Helm release record last)");
    // Never the namespace: it is left alone, marks and all.
    for m in rendered.manifests.iter().filter(|m| m.kind != "Namespace") {
        cluster::adopt::remove_old_marks(
            cluster,
            &m.api_version,
            &m.kind,
            m.namespace.as_deref(),
            &m.name,
        )
        .await
        .map_err(|e| borrowed::failed(e, "removing the old installer's labels failed"))?;
    }
    let is_release =
        |r: &ObjectRef| r.kind == "Secret" && r.name.starts_with("sh.helm.release.v1.");
    let rest: Vec<&Value> = plan
        .replaced
        .iter()
        .map(|(old, _)| old)
        .chain(plan.removed.iter())
        .filter(|o| !matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
        .filter(|o| !is_release(o))
        .filter_map(by_ref)
        .collect();
    remove(cluster, rest, args.timeout).await?;
    let releases: Vec<&Value> = plan
        .removed
        .iter()
        .filter(|o| is_release(o))
        .filter_map(by_ref)
        .collect();
    remove(cluster, releases, args.timeout).await?;

    // The platform's runtime spec, as `upgrade` keeps it.
    if differ.is_empty() {
        output::done(&format!(
            "runtime environment {}: the platform's spec already matches cf-runner's",
            platform.runtime
        ));
    } else {
        platform
            .client
            .put_runtime(&platform.runtime, &spec)
            .await
            .map_err(|e| {
                borrowed::platform_failed(
                    e,
                    "sending the runtime environment's spec failed (the cluster is moved; re-run `cf-runner upgrade` with a token to send it)",
                )
            })?;
        output::done(&format!(
            "runtime environment {}: cf-runner's spec sent to the platform ({} differed)",
            platform.runtime,
            differ.join(", ")
        ));
    }
    // The record, no longer marked: the move is over.
    borrowed::apply(cluster, std::slice::from_ref(&record), namespace).await?;
    output::done(&format!(
        "the runner in namespace {namespace} is cf-runner's now: `cf-runner upgrade`, `info` and `delete` work on it"
    ));
    Ok(())
}

fn is_cluster_scoped_value(o: &Value, namespace: &str) -> bool {
    !in_namespace(o, namespace)
}

fn report(found: &Found, namespace: &str, path: &Path) -> Outcome {
    output::say(&format!(
        "found in namespace {namespace}: a runner made by {}",
        found.tool.describe()
    ));
    let saved = values_text(found, namespace);
    // What cf-runner would install from these values.
    let input = Input {
        files: vec![values::ValuesFile {
            origin: path.display().to_string(),
            text: saved.text.clone(),
        }],
        ..Default::default()
    };
    let loaded = match values::load(&input) {
        Ok(l) => l,
        Err(p) => return Outcome::BadInput(p),
    };
    let identity = render::Identity {
        context: loaded.values.context.clone(),
        agent_name: loaded.values.agent_name.clone(),
        runtime_name: loaded.values.runtime_name.clone(),
        ..Default::default()
    };
    let rendered = match render::render(&loaded.values, &identity, &loaded.redacted_tree) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(anyhow::Error::new(e), None),
    };
    let ours: Vec<(ObjectRef, Value)> = rendered
        .manifests
        .iter()
        .map(|m| {
            let reference = ObjectRef {
                kind: m.kind.clone(),
                name: m.name.clone(),
            };
            (reference, m.object["spec"]["selector"].clone())
        })
        .collect();
    if let Err(e) = crate::export::write_file(path, &saved.text, saved.holds_secret) {
        return Outcome::Failed(e.into(), None);
    }
    output::note(&format!(
        "saved what the install is to {}{} (tokens are not in it)",
        path.display(),
        if saved.holds_secret {
            " (mode 0600: it holds a secret)"
        } else {
            ""
        }
    ));
    let plan = plan(found, &ours, namespace);
    print_plan(Some(found), &plan, true);
    output::say("run `cf-runner adopt` without --dry-run to carry the plan out");
    Outcome::Ok
}

fn print_plan(found: Option<&Found>, plan: &Plan, dry_run: bool) {
    output::say(if dry_run {
        "plan (dry run: nothing was changed in the cluster or on the platform):"
    } else {
        "plan:"
    });
    if let Some(t) = found.and_then(|f| f.token_secret.as_ref()) {
        output::say(&format!("  keep the agent token from Secret/{t}"));
    }
    output::say(
        "  taken over (same kind and name; applied by cf-runner, then labelled as cf-runner's):",
    );
    list(plan.taken_over.iter().map(ToString::to_string));
    output::say("  replaced (cf-runner's comes up and is ready, then the old one is deleted):");
    list(
        plan.replaced
            .iter()
            .map(|(old, new)| format!("{old} -> {new}")),
    );
    if !plan.selector_clash.is_empty() {
        output::say(&format!(
            "  same name, different pod selector (Kubernetes cannot change it in place; \
             cf-runner's comes up as <name>{INTERIM_SUFFIX} first, then the old one goes, then cf-runner's takes the name):"
        ));
        list(plan.selector_clash.iter().map(ToString::to_string));
    }
    output::say("  removed (only the old tool needed them; a Helm release record goes last):");
    list(plan.removed.iter().map(ToString::to_string));
    output::say("  left alone:");
    list(plan.left_alone.iter().cloned());
    if let Some(f) = found.filter(|f| !f.not_read.is_empty()) {
        output::say("  not read from the install by this version (check them in the values file):");
        list(f.not_read.iter().cloned());
    }
}

fn list(items: impl Iterator<Item = String>) {
    let mut any = false;
    for item in items {
        any = true;
        output::say(&format!("    - {item}"));
    }
    if !any {
        output::say("    (none)");
    }
}

/// Refuses to write over a file `adopt` did not write, unless `overwrite`.
fn check_save_path(path: &Path, overwrite: bool) -> Result<(), Problems> {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    let flag = "--values-file";
    let shown = path.display().to_string();
    if !meta.is_file() {
        return Err(refuse(
            flag,
            Some(&shown),
            "is not a regular file; adopt writes the values file there",
            "pass --values-file with another path",
        ));
    }
    let ours = std::fs::read_to_string(path)
        .map(|t| t.starts_with(SAVED_MARK))
        .unwrap_or(false);
    if ours || overwrite {
        Ok(())
    } else {
        Err(refuse(
            flag,
            Some(&shown),
            "is a file cf-runner adopt did not write; writing over it could lose your data",
            "pass --values-file with another path, or --overwrite to replace it",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(name: &str, labels: Value, env: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "cf", "labels": labels},
            "spec": {"template": {"spec": {
                "nodeSelector": {"pool": "ci"},
                "containers": [{"name": "runner", "image": "registry.example.com/codefresh/venona:1.9.0", "env": env}]
            }}}
        })
    }

    fn venonactl_install() -> Vec<Value> {
        vec![
            deployment(
                "runner",
                json!({"app": "runner", "version": "2.0.7"}),
                json!([{"name": "AGENT_ID", "value": "old-agent"},
                       {"name": "CODEFRESH_HOST", "value": "https://cf.example.com"},
                       {"name": "HTTPS_PROXY", "value": "http://proxy:3128"}]),
            ),
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "runner", "namespace": "cf"},
                   "data": {"codefresh.token": ""}}),
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                   "metadata": {"name": "runner", "namespace": "cf"}}),
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": "dind-local-volumes-runner-cf"},
                   "provisioner": "codefresh.io/dind-volume-provisioner-runner-cf",
                   "parameters": {"volumeBackend": "ebs", "VolumeType": "gp3",
                                  "AvailabilityZone": "us-east-1a", "encrypted": "true"}}),
            // Another namespace's class is not this install's.
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": "dind-local-volumes-runner-other"},
                   "provisioner": "codefresh.io/dind-volume-provisioner-runner-other"}),
        ]
    }

    #[test]
    fn a_venonactl_install_is_read_into_values() {
        let found = detect(&venonactl_install(), "cf", "ctx").unwrap().unwrap();
        assert_eq!(found.tool, Tool::Venonactl);
        assert_eq!(found.token_secret.as_deref(), Some("runner"));
        let v = &found.values;
        assert_eq!(v["AgentId"], json!("old-agent"));
        assert_eq!(v["CodefreshHost"], json!("https://cf.example.com"));
        assert_eq!(v["EnvVars"]["HTTPS_PROXY"], json!("http://proxy:3128"));
        assert_eq!(v["DockerRegistry"], json!("registry.example.com"));
        assert_eq!(v["NodeSelector"], json!({"pool": "ci"}));
        assert_eq!(v["Storage"]["Backend"], json!("ebs"));
        assert_eq!(v["Storage"]["VolumeType"], json!("gp3"));
        assert_eq!(v["Storage"]["AvailabilityZone"], json!("us-east-1a"));
        assert_eq!(v["Storage"]["Encrypted"], json!(true));
        // venonactl keeps the runtime name only in runnerconf: said, not guessed.
        assert!(v.get("RuntimeEnvironmentName").is_none());
        assert!(found
            .not_read
            .iter()
            .any(|n| n.contains("RuntimeEnvironmentName")));
        let names: Vec<String> = found.objects.iter().map(ToString::to_string).collect();
        assert!(names.contains(&"StorageClass/dind-local-volumes-runner-cf".to_string()));
        assert!(!names.iter().any(|n| n.ends_with("-other")), "{names:?}");
        // The file it makes is valid cf-runner input.
        let saved = values_text(&found, "cf");
        assert!(saved.text.starts_with(SAVED_MARK));
        let input = Input {
            files: vec![values::ValuesFile {
                origin: "adopted.yaml".into(),
                text: saved.text,
            }],
            ..Default::default()
        };
        values::load(&input).unwrap();
    }

    #[test]
    fn a_users_binding_to_an_account_of_the_namespace_is_not_the_old_installs() {
        let mut objects = venonactl_install();
        let binding = |name: &str| {
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": name},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "ServiceAccount", "name": "ci-bot", "namespace": "cf"}]})
        };
        objects.push(binding("ci-bot-can-view"));
        objects.push(binding("runner-cf"));
        let found = detect(&objects, "cf", "ctx").unwrap().unwrap();
        let names: Vec<String> = found.objects.iter().map(ToString::to_string).collect();
        assert!(
            names.contains(&"ClusterRoleBinding/runner-cf".to_string()),
            "{names:?}"
        );
        assert!(!names.iter().any(|n| n.contains("ci-bot")), "{names:?}");
        assert!(!names.iter().any(|n| n == "ClusterRole/view"), "{names:?}");
    }

    #[test]
    fn a_cf_runner_install_beside_an_old_runner_is_two_runners() {
        let mut objects = venonactl_install();
        objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "namespace": "cf",
                         "labels": {LABEL_MANAGED_BY: "cf-runner"}}}));
        let err = detect(&objects, "cf", "ctx").unwrap_err();
        assert_eq!(err.0[0].key, "--kube-namespace");
        assert!(err.0[0].why.contains("more than one runner"), "{:?}", err.0);
    }

    #[test]
    fn a_namespace_with_only_cf_runner_has_nothing_to_adopt() {
        let objects = vec![json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "namespace": "cf",
                         "labels": {LABEL_MANAGED_BY: "cf-runner"}}})];
        assert!(detect(&objects, "cf", "ctx").unwrap().is_none());
    }

    fn rendered_for(tree: Value) -> Vec<Manifest> {
        let input = Input {
            files: vec![values::ValuesFile {
                origin: "test".into(),
                text: serde_yaml_ng::to_string(&tree).unwrap(),
            }],
            ..Default::default()
        };
        let loaded = values::load(&input).unwrap();
        let identity = render::Identity {
            context: Some("ctx".into()),
            ..Default::default()
        };
        render::render(&loaded.values, &identity, &loaded.redacted_tree)
            .unwrap()
            .manifests
    }

    #[test]
    fn a_move_that_would_change_the_storage_backend_is_refused() {
        let ours = rendered_for(json!({"Namespace": "cf", "Storage": {"Backend": "local"}}));
        let class = ours.iter().find(|m| m.kind == "StorageClass").unwrap();
        // The same class as in place: nothing to refuse.
        assert!(storage_problems(&ours, std::slice::from_ref(&class.object)).is_empty());
        // Another backend behind the same class name.
        let mut ebs = class.object.clone();
        ebs["parameters"] = json!({"volumeBackend": "ebs", "VolumeType": "gp3"});
        let problems = storage_problems(&ours, &[ebs]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "Storage.Backend");
        assert!(
            problems[0].why.contains("backend ebs"),
            "{}",
            problems[0].why
        );
        // The same backend, another parameter.
        let mut moved = class.object.clone();
        moved["parameters"]["volumeParentDir"] = json!("/elsewhere");
        let problems = storage_problems(&ours, &[moved]);
        assert_eq!(problems[0].key, "Storage");
        assert!(
            problems[0].why.contains("volumeParentDir"),
            "{}",
            problems[0].why
        );
        // Volumes bound later than cf-runner's class binds them.
        let mut late = class.object.clone();
        late["volumeBindingMode"] = json!("WaitForFirstConsumer");
        let problems = storage_problems(&ours, &[late]);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].why.contains("volumeBindingMode"),
            "{}",
            problems[0].why
        );
    }

    #[test]
    fn the_interim_workload_has_its_own_name_and_a_selector_old_ones_do_not_match() {
        let ours = rendered_for(json!({"Namespace": "cf"}));
        let runner = ours
            .iter()
            .find(|m| m.kind == "Deployment" && m.name == "runner")
            .unwrap();
        let copy = interim(runner);
        assert_eq!(copy.name, "runner-adopting");
        assert_eq!(copy.object["metadata"]["name"], json!("runner-adopting"));
        let selector = &copy.object["spec"]["selector"]["matchLabels"];
        let labels = &copy.object["spec"]["template"]["metadata"]["labels"];
        for (k, v) in selector.as_object().unwrap() {
            assert_eq!(&labels[k], v, "the pods must match their own selector");
        }
        // venonactl's runner selects `app: runner`: the interim pods must
        // not be counted as its own.
        assert!(labels.get("app").is_none());
        assert_ne!(selector, &runner.object["spec"]["selector"]["matchLabels"]);
        // cf-runner's labels stay, so `delete` finds it after an interruption.
        assert_eq!(
            copy.object["metadata"]["labels"][LABEL_MANAGED_BY],
            json!("cf-runner")
        );
    }
}

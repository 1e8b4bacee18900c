//! `cf-runner adopt`: move a runner made by another tool (the cf-runtime
//! Helm chart, venonactl or `codefresh runner init`) to cf-runner.
//!
//! Built so far: `--dry-run` only. It reads the namespace (never writing to
//! it), tells which tool made the runner, refuses what cannot be adopted
//! safely, saves what the install is as a cf-runner values file (tokens
//! left out) and prints the plan. The apply path is not built yet: without
//! `--dry-run` the command says so and changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::Outcome;
use crate::cli::AdoptArgs;
use crate::kube as cluster;
use crate::output;
use crate::render::{self, LABEL_MANAGED_BY};
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
            Tool::Helm { .. } => {
                label(o, HELM_CHART_LABEL).is_some_and(|c| c.starts_with("cf-runtime-"))
                    || release_secrets.contains(&reference(o))
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
                        "{old} (cf-runner uses the same name and provisioner {provisioner})"
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

/// Runs `cf-runner adopt`.
pub fn run(args: &AdoptArgs) -> Outcome {
    if !args.dry_run {
        return Outcome::BadInput(Problems(vec![Problem::new(
            "--dry-run",
            None,
            "is required: this version of cf-runner reads an install and shows the plan, \
             but cannot yet carry it out; nothing was changed",
            "add --dry-run to see the values file and the plan",
        )]));
    }
    let path = args.values_file.clone();
    if let Err(problems) = check_save_path(&path, args.overwrite) {
        return Outcome::BadInput(problems);
    }
    super::steps::session::runtime().block_on(async {
        let cluster = match super::steps::session::connect_flags(&args.kube).await {
            Ok(c) => c,
            Err(o) => return o,
        };
        let namespace = args
            .kube
            .kube_namespace
            .clone()
            .unwrap_or_else(|| "codefresh".into());
        let objects = match cluster::adopt::scan(&cluster, &namespace).await {
            Ok(o) => o,
            Err(e) => return super::steps::session::failed(e, "reading the namespace failed"),
        };
        let found = match detect(&objects, &namespace, &cluster.context) {
            Ok(Some(f)) => f,
            Ok(None) => {
                output::say(&format!(
                    "namespace {namespace} already holds a cf-runner install: nothing to adopt"
                ));
                return Outcome::Ok;
            }
            Err(p) => return Outcome::BadInput(p),
        };
        report(&found, &namespace, &path)
    })
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
    output::say("plan (dry run: nothing was changed in the cluster or on the platform):");
    if let Some(t) = &found.token_secret {
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
        output::say(
            "  same name, different pod selector (Kubernetes cannot change it in place; \
             the move must bring cf-runner's runner up under another name first):",
        );
        list(plan.selector_clash.iter().map(ToString::to_string));
    }
    output::say("  removed (only the old tool needed them; a Helm release record goes last):");
    list(plan.removed.iter().map(ToString::to_string));
    output::say("  left alone:");
    list(plan.left_alone.iter().cloned());
    if !found.not_read.is_empty() {
        output::say("  not read from the install by this version (check them in the values file):");
        list(found.not_read.iter().cloned());
    }
    output::say(
        "applying the plan is not built yet: `cf-runner adopt` without --dry-run changes nothing",
    );
    Outcome::Ok
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
}

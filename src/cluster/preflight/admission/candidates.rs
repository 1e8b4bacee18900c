//! What the preflight asks admission about: one Pod from each workload the
//! install renders, and a build's dind pod and volume claim as the
//! platform builds them from the runtime spec.

use serde_json::{json, Map, Value};

use crate::render::Manifest;

/// The component name of a build's pods in findings.
pub const EVERY_BUILD: &str = "every build";
/// The name given to the objects created in dry-run (nothing persists).
const DRY_RUN_NAME: &str = "cf-runner-admission";
/// Where dind keeps its images and layers (the claim's mount).
const DIND_DATA_DIR: &str = "/var/lib/docker";

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
    /// The pod spec, when the candidate is a Pod.
    pub(super) fn pod_spec(&self) -> Option<&Value> {
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

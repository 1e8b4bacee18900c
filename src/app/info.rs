//! `cf-runner info`: what is installed and whether it is healthy. Reads the
//! cluster only (labels and the record Secret, through `kube::inventory`),
//! for one namespace or every namespace holding an installation, and prints
//! it as a table or as JSON/YAML for scripts.
//!
//! Also home of the steps `delete` and `upgrade` share with it: connecting
//! from the kube flags alone, and picking the installation to work on.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::Outcome;
use crate::cli::{InfoArgs, KubeArgs, OutputFormat};
use crate::kube::inventory::{self, LiveObject, Record, VolumeScope};
use crate::kube::{self as cluster, Cluster, KubeError};
use crate::output;
use crate::render::{self, RECORD_SECRET};
use crate::values::{self, Input, Problem, Problems, ValuesFile};

/// Connects with the kube flags alone (commands that read their values
/// from the cluster); an unknown context is bad input.
pub(crate) async fn connect(kube: &KubeArgs) -> Result<Cluster, Outcome> {
    let options = cluster::ConnectOptions {
        kubeconfig: kube.kube_config_path.clone(),
        context: kube.kube_context_name.clone(),
    };
    cluster::connect(&options).await.map_err(|e| match &e {
        KubeError::UnknownContext {
            wanted, available, ..
        } => Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-context-name",
            Some(&Value::String(wanted.clone())),
            "is not a context of the kubeconfig",
            format!("use one of: {}", available.join(", ")),
        )])),
        _ => failed(e, "connecting to the cluster failed"),
    })
}

/// A line on stderr when the API server has not answered the first
/// request within two seconds: what is waited for, where, and for how long
/// at most. Dropping it (the answer came) cancels the line.
pub(crate) struct SlowNote(tokio::task::JoinHandle<()>);

impl SlowNote {
    pub(crate) fn start(cluster: &Cluster) -> SlowNote {
        let server = cluster.server.clone();
        SlowNote(tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            output::note(&format!(
                "waiting for the API server at {server} to answer (a connection it does not accept fails after {}s)",
                cluster::CONNECT_TIMEOUT.as_secs()
            ));
        }))
    }
}

impl Drop for SlowNote {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A cluster error as a failed outcome, with its hint.
pub(crate) fn failed(e: KubeError, what: &str) -> Outcome {
    let hint = e.hint();
    Outcome::Failed(anyhow::Error::new(e).context(what.to_string()), hint)
}

/// The namespace of the installation a command works on: the one named by
/// `--kube-namespace`, else the only one in the cluster. `Ok(None)` when
/// there is none; several without a name is bad input.
pub(crate) async fn pick_installation(
    cluster: &Cluster,
    kube: &KubeArgs,
    command: &str,
) -> Result<Option<String>, Outcome> {
    if let Some(ns) = &kube.kube_namespace {
        return Ok(Some(ns.clone()));
    }
    let slow = SlowNote::start(cluster);
    let found = inventory::installations(&cluster.client).await;
    drop(slow);
    let found = match found {
        Ok(found) => found,
        Err(e) if e.code() == Some(403) => {
            output::note(&format!(
                "your user may not list installations cluster-wide; looking in namespace {} \
                 (pass --kube-namespace to name another)",
                values::DEFAULT_NAMESPACE
            ));
            return Ok(Some(values::DEFAULT_NAMESPACE.to_string()));
        }
        Err(e) => {
            return Err(failed(
                e,
                &format!("looking for installations at {} failed", cluster.server),
            ))
        }
    };
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.into_iter().next()),
        _ => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-namespace",
            None,
            format!(
                "is needed: context {} holds {} installations ({})",
                cluster.context,
                found.len(),
                found.join(", ")
            ),
            format!("run `cf-runner {command} --kube-namespace <one of them>`"),
        )]))),
    }
}

/// Everything known about one installation, read from the cluster.
pub(crate) struct Installation {
    pub namespace: String,
    pub record: Option<Record>,
    /// The record's values, validated (`None` without a record, or when the
    /// record no longer validates).
    pub values: Option<values::Values>,
    /// Every object carrying the installation's labels.
    pub objects: Vec<LiveObject>,
    /// dind PVCs and PVs.
    pub volumes: Vec<LiveObject>,
}

impl Installation {
    /// True when nothing of it is in the cluster (volumes aside).
    pub fn is_empty(&self) -> bool {
        self.record.is_none() && self.objects.is_empty()
    }
}

/// The values a record holds, validated as a values file.
pub(crate) fn record_values(record: &Record) -> Option<values::Loaded> {
    let text = record.values_yaml.as_ref()?;
    let input = Input {
        files: vec![ValuesFile {
            origin: format!("the installation record (Secret {RECORD_SECRET})"),
            text: text.clone(),
        }],
        ..Input::default()
    };
    values::load(&input).ok()
}

/// StorageClass names whose every volume is a dind volume of `namespace`:
/// ours by label, the one the record names when we provisioned it, and the
/// default name (which still finds the volumes after the class is gone).
pub(crate) fn own_classes(
    namespace: &str,
    values: Option<&values::Values>,
    objects: &[LiveObject],
) -> Vec<String> {
    let mut classes: Vec<String> = objects
        .iter()
        .filter(|o| o.kind == "StorageClass")
        .map(|o| o.name.clone())
        .collect();
    if let Some(v) = values.filter(|v| v.storage.provisioned) {
        classes.push(v.storage.class_name.clone());
    }
    classes.push(format!("dind-local-volumes-runner-{namespace}"));
    classes.sort();
    classes.dedup();
    classes
}

/// Reads one installation: record, labelled objects and dind volumes.
pub(crate) async fn read_installation(
    cluster: &Cluster,
    namespace: &str,
) -> Result<Installation, KubeError> {
    let client = &cluster.client;
    let (record, objects) = futures::join!(
        inventory::record(client, namespace),
        inventory::labelled(client, namespace)
    );
    let record = record?;
    let objects = objects?;
    let values = record.as_ref().and_then(record_values).map(|l| l.values);
    let scope = VolumeScope {
        namespace: namespace.to_string(),
        own_classes: own_classes(namespace, values.as_ref(), &objects),
    };
    let volumes = inventory::volumes(client, &scope).await?;
    Ok(Installation {
        namespace: namespace.to_string(),
        record,
        values,
        objects,
        volumes,
    })
}

/// What `info -o json|yaml` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    context: String,
    server: String,
    installations: Vec<InstallationInfo>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct InstallationInfo {
    namespace: String,
    /// The cf-runner version that last installed or upgraded it.
    installed_by: Option<String>,
    record_format: Option<String>,
    agent_name: Option<String>,
    runtime_name: Option<String>,
    /// Whether init registered the agent and runtime on the platform
    /// (false: an offline install, whose names were never verified).
    registered: Option<bool>,
    /// True when every workload is ready.
    healthy: bool,
    /// The values that matter most, in words.
    summary: Map<String, Value>,
    /// The recorded values, secrets redacted.
    values: Value,
    components: Vec<ComponentInfo>,
    storage: Option<StorageInfo>,
    volumes: Vec<VolumeInfo>,
    platform: String,
    notes: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ComponentInfo {
    name: String,
    objects: Vec<ObjectInfo>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjectInfo {
    kind: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<String>,
    /// For workloads: whether they are ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    ready: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StorageInfo {
    class_name: String,
    /// False for a StorageClass the user brought.
    installed_by_cf_runner: bool,
    exists: bool,
    provisioner: Option<String>,
    backend: Option<String>,
    parameters: BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct VolumeInfo {
    kind: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<String>,
    status: Option<String>,
    capacity: Option<String>,
    storage_class: Option<String>,
}

const PLATFORM_NO_TOKEN: &str =
    "not shown: no Codefresh API token (--token, CF_API_KEY or the current context of ~/.cfconfig)";

/// The agent's and runtime's state on the platform, when a token is at hand.
async fn platform_status(args: &InfoArgs, inst: &Installation, context: &str) -> String {
    let Some(record) = &inst.record else {
        return "no record of an agent or runtime environment".into();
    };
    if record.registered == Some(false) {
        return "not registered: an offline install (--agent-token only); the agent and runtime environment \
                names were never verified on the platform"
            .into();
    }
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    let auth = match super::platform_link::resolve(&args.platform, host.as_deref()) {
        Ok(Some(a)) => a,
        Ok(None) => return PLATFORM_NO_TOKEN.into(),
        Err(e) => return format!("not shown: {e}"),
    };
    match crate::platform::Platform::new(&auth, super::platform_link::transport(&args.platform)) {
        Ok(p) => {
            // What cf-runner would send now, to compare with the platform's spec.
            let expected = |account_id: Option<String>| {
                let values = inst.values.as_ref()?;
                let identity = crate::render::Identity {
                    context: Some(context.to_string()),
                    agent_name: record.agent_name.clone(),
                    runtime_name: record.runtime_name.clone(),
                    account_id,
                    registered: true,
                    ..Default::default()
                };
                crate::render::render(values, &identity, &Value::Object(Map::new()))
                    .ok()
                    .map(|r| r.runtime_environment)
            };
            super::platform_link::status(
                &p,
                record.agent_name.as_deref(),
                record.runtime_name.as_deref(),
                Some(&expected),
            )
            .await
        }
        Err(e) => format!("not shown: {e}"),
    }
}

fn int(o: &LiveObject, pointer: &str) -> i64 {
    o.object
        .pointer(pointer)
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Readiness of a workload, in words; `None` for objects that have none.
fn readiness(o: &LiveObject) -> Option<(bool, String)> {
    if o.is_deleting() {
        return Some((false, "being deleted".into()));
    }
    match o.kind.as_str() {
        "Deployment" => {
            let want = o
                .object
                .pointer("/spec/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            let ready = int(o, "/status/readyReplicas");
            let available = int(o, "/status/availableReplicas");
            let updated = int(o, "/status/updatedReplicas");
            let ok = available >= want && updated >= want;
            Some((ok, format!("{ready}/{want} ready")))
        }
        "DaemonSet" => {
            let want = int(o, "/status/desiredNumberScheduled");
            let ready = int(o, "/status/numberReady");
            let updated = int(o, "/status/updatedNumberScheduled");
            let ok = ready >= want && updated >= want;
            Some((ok, format!("{ready}/{want} ready")))
        }
        _ => None,
    }
}

/// A short status for objects that are not workloads.
fn status_of(o: &LiveObject) -> Option<String> {
    if o.is_deleting() {
        return Some("being deleted".into());
    }
    match o.kind.as_str() {
        "CronJob" => {
            let schedule = o.text("/spec/schedule").unwrap_or("?");
            let last = o.text("/status/lastScheduleTime").unwrap_or("never");
            let suspended = o
                .object
                .pointer("/spec/suspend")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Some(format!(
                "schedule {schedule:?}, last run {last}{}",
                if suspended { ", suspended" } else { "" }
            ))
        }
        "Ingress" => {
            let hosts: Vec<&str> = o
                .object
                .pointer("/spec/rules")
                .and_then(Value::as_array)
                .map(|rules| rules.iter().filter_map(|r| r["host"].as_str()).collect())
                .unwrap_or_default();
            Some(format!("hosts: {}", hosts.join(", ")))
        }
        _ => None,
    }
}

/// The images of a workload's containers (init containers too).
fn images(o: &LiveObject) -> Vec<String> {
    let pod = match o.kind.as_str() {
        "Deployment" | "DaemonSet" => o.object.pointer("/spec/template/spec"),
        "CronJob" => o.object.pointer("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    };
    let Some(pod) = pod else { return Vec::new() };
    let mut out: Vec<String> = ["initContainers", "containers"]
        .iter()
        .filter_map(|k| pod.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c["image"].as_str().map(str::to_string))
        .collect();
    out.dedup();
    out
}

/// A proxy URL without the credentials it may carry.
fn without_password(url: &str) -> String {
    values::secrets::masked(url)
}

fn selector_text(selector: &BTreeMap<String, String>) -> String {
    selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The values a reader wants first, in words.
fn summary(values: &values::Values) -> Map<String, Value> {
    let mut out = Map::new();
    let mut put = |k: &str, v: String| {
        out.insert(k.to_string(), Value::String(v));
    };
    let storage = &values.storage;
    put(
        "storage",
        if storage.provisioned {
            format!(
                "{} volumes through StorageClass {}",
                storage.backend.name(),
                storage.class_name
            )
        } else {
            format!("the existing StorageClass {}", storage.class_name)
        },
    );
    put("volume size", values.runtime.volume_size.clone());
    put(
        "monitor",
        if values.monitor.enabled {
            "installed"
        } else {
            "not installed"
        }
        .into(),
    );
    put(
        "app-proxy",
        match (&values.app_proxy.enabled, &values.app_proxy.host) {
            (true, Some(host)) => format!("installed, host {host}"),
            (true, None) => "installed".into(),
            (false, _) => "not installed".into(),
        },
    );
    put("codefresh host", values.codefresh_host.clone());
    if let Some(r) = &values.docker_registry {
        put("docker registry", r.clone());
    }
    if !values.runner.scheduling.node_selector.is_empty() {
        put(
            "node selector",
            selector_text(&values.runner.scheduling.node_selector),
        );
    }
    if !values.runtime.scheduling.node_selector.is_empty() {
        put(
            "build node selector",
            selector_text(&values.runtime.scheduling.node_selector),
        );
    }
    for key in ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"] {
        if let Some(v) = values.env_vars.get(key) {
            put(
                &key.to_ascii_lowercase().replace('_', " "),
                without_password(v),
            );
        }
    }
    out
}

fn storage_info(
    inst: &Installation,
    class: Option<&LiveObject>,
    ours: bool,
    name: String,
) -> StorageInfo {
    let parameters: BTreeMap<String, String> = class
        .and_then(|c| c.object.get("parameters"))
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let backend = parameters.get("volumeBackend").cloned().or_else(|| {
        inst.values
            .as_ref()
            .filter(|v| v.storage.provisioned)
            .map(|v| v.storage.backend.name().to_string())
    });
    StorageInfo {
        class_name: name,
        installed_by_cf_runner: ours,
        exists: class.is_some(),
        provisioner: class
            .and_then(|c| c.text("/provisioner"))
            .map(str::to_string),
        backend,
        parameters,
    }
}

async fn describe(cluster: &Cluster, inst: &Installation) -> Result<InstallationInfo, KubeError> {
    let mut notes = Vec::new();
    let record = inst.record.clone().unwrap_or_default();
    if inst.record.is_none() {
        notes.push(format!(
            "no installation record (Secret {RECORD_SECRET}): an init or a delete stopped half-way; \
             re-run it to finish"
        ));
    } else if inst.values.is_none() {
        notes.push(
            "the recorded values do not validate with this version of cf-runner; `upgrade` will say why"
                .into(),
        );
    }
    let recorded: Value = record
        .values_yaml
        .as_deref()
        .and_then(|t| serde_yaml_ng::from_str(t).ok())
        .map(|t| values::redact(&t))
        .unwrap_or(Value::Null);

    let mut by_component: BTreeMap<String, Vec<ObjectInfo>> = BTreeMap::new();
    let mut healthy = true;
    for o in &inst.objects {
        let ready = readiness(o);
        if let Some((false, _)) = ready {
            healthy = false;
        }
        by_component
            .entry(o.component().unwrap_or("(unlabelled)").to_string())
            .or_default()
            .push(ObjectInfo {
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: o.namespace.clone(),
                ready: ready.as_ref().map(|(r, _)| *r),
                status: ready.map(|(_, s)| s).or_else(|| status_of(o)),
                images: images(o),
            });
    }
    let order = [
        render::Component::Namespace,
        render::Component::Runner,
        render::Component::Runtime,
        render::Component::VolumeProvisioner,
        render::Component::Monitor,
        render::Component::AppProxy,
        render::Component::ClusterIntegration,
        render::Component::Record,
    ];
    let rank = |name: &str| {
        order
            .iter()
            .position(|c| c.as_str() == name)
            .unwrap_or(order.len())
    };
    let mut components: Vec<ComponentInfo> = by_component
        .into_iter()
        .map(|(name, objects)| ComponentInfo { name, objects })
        .collect();
    components.sort_by_key(|c| rank(&c.name));

    let own_class = inst.objects.iter().find(|o| o.kind == "StorageClass");
    let storage = match (own_class, &inst.values) {
        (Some(class), _) => Some(storage_info(inst, Some(class), true, class.name.clone())),
        (None, Some(v)) => {
            let name = v.storage.class_name.clone();
            let live = inventory::get(
                &cluster.client,
                "storage.k8s.io/v1",
                "StorageClass",
                None,
                &name,
            )
            .await?;
            if v.storage.provisioned && live.is_none() {
                notes.push(format!(
                    "the StorageClass {name} that cf-runner installs is missing"
                ));
            }
            Some(storage_info(inst, live.as_ref(), false, name))
        }
        (None, None) => None,
    };
    let volumes = inst
        .volumes
        .iter()
        .map(|v| VolumeInfo {
            kind: v.kind.clone(),
            name: v.name.clone(),
            namespace: v.namespace.clone(),
            status: v.text("/status/phase").map(str::to_string),
            capacity: v
                .text("/spec/capacity/storage")
                .or_else(|| v.text("/status/capacity/storage"))
                .or_else(|| v.text("/spec/resources/requests/storage"))
                .map(str::to_string),
            storage_class: v.text("/spec/storageClassName").map(str::to_string),
        })
        .collect();
    Ok(InstallationInfo {
        namespace: inst.namespace.clone(),
        installed_by: record.cf_runner_version,
        record_format: record.record_format,
        agent_name: record.agent_name,
        runtime_name: record.runtime_name,
        registered: record.registered,
        healthy,
        summary: inst.values.as_ref().map(summary).unwrap_or_default(),
        values: recorded,
        components,
        storage,
        volumes,
        platform: PLATFORM_NO_TOKEN.into(),
        notes,
    })
}

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Outcome {
    super::init::runtime().block_on(async {
        let cluster = match connect(&args.kube).await {
            Ok(c) => c,
            Err(outcome) => return outcome,
        };
        let listed = match &args.kube.kube_namespace {
            Some(_) => None,
            None => {
                let slow = SlowNote::start(&cluster);
                let found = inventory::installations(&cluster.client).await;
                drop(slow);
                Some(found)
            }
        };
        let namespaces = match (&args.kube.kube_namespace, listed) {
            (Some(ns), _) => vec![ns.clone()],
            (None, None) => Vec::new(),
            (None, Some(found)) => match found {
                Ok(found) => found,
                Err(e) => {
                    let hint = if e.code() == Some(403) {
                        Some("your user may not list Secrets cluster-wide: name the namespace with --kube-namespace".to_string())
                    } else {
                        e.hint()
                    };
                    return Outcome::Failed(
                        anyhow::Error::new(e).context(format!(
                            "looking for installations at {} failed",
                            cluster.server
                        )),
                        hint,
                    );
                }
            },
        };
        let mut installations = Vec::new();
        for ns in &namespaces {
            let inst = match read_installation(&cluster, ns).await {
                Ok(i) => i,
                Err(e) => return failed(e, &format!("reading the installation in namespace {ns} failed")),
            };
            if inst.is_empty() {
                continue;
            }
            match describe(&cluster, &inst).await {
                Ok(mut info) => {
                    info.platform = platform_status(args, &inst, &cluster.context).await;
                    installations.push(info)
                }
                Err(e) => return failed(e, &format!("reading the installation in namespace {ns} failed")),
            }
        }
        let report = Report {
            context: cluster.context.clone(),
            server: cluster.server.clone(),
            installations,
        };
        match args.output {
            OutputFormat::Json => output::print_raw(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).expect("the report serializes")
            )),
            OutputFormat::Yaml => output::print_raw(
                &serde_yaml_ng::to_string(&report).expect("the report serializes"),
            ),
            OutputFormat::Table => print_table(&report, args.kube.kube_namespace.as_deref()),
        }
        Outcome::Ok
    })
}

fn print_table(report: &Report, namespace: Option<&str>) {
    if report.installations.is_empty() {
        let place = match namespace {
            Some(ns) => format!("namespace {ns} of context {}", report.context),
            None => format!("context {}", report.context),
        };
        output::say(&format!("No Codefresh Runner is installed in {place}."));
        output::say("Install one with `cf-runner init`.");
        return;
    }
    for (i, inst) in report.installations.iter().enumerate() {
        if i > 0 {
            output::say("");
        }
        print_installation(inst, report);
    }
}

fn print_installation(inst: &InstallationInfo, report: &Report) {
    let unknown = || "unknown".to_string();
    let unverified = |name: String| {
        if inst.registered == Some(false) {
            format!("{name} (offline install: not registered, not verified)")
        } else {
            name
        }
    };
    output::heading(&format!(
        "Codefresh Runner in namespace {} (context {}, {})",
        inst.namespace, report.context, report.server
    ));
    let mut facts: Vec<Vec<String>> = vec![
        vec![
            "installed by".into(),
            match (&inst.installed_by, &inst.record_format) {
                (Some(v), Some(f)) => format!("cf-runner {v} (record format {f})"),
                (Some(v), None) => format!("cf-runner {v}"),
                _ => unknown(),
            },
        ],
        vec![
            "agent".into(),
            unverified(inst.agent_name.clone().unwrap_or_else(unknown)),
        ],
        vec![
            "runtime environment".into(),
            unverified(inst.runtime_name.clone().unwrap_or_else(unknown)),
        ],
    ];
    for (k, v) in &inst.summary {
        facts.push(vec![k.clone(), v.as_str().unwrap_or_default().to_string()]);
    }
    facts.push(vec!["platform".into(), inst.platform.clone()]);
    output::table(2, &["", ""], &facts);

    output::heading("Components");
    let mut rows = Vec::new();
    for c in &inst.components {
        for (i, o) in c.objects.iter().enumerate() {
            let ready = match o.ready {
                Some(true) => "yes".to_string(),
                Some(false) => "no".to_string(),
                None => String::new(),
            };
            rows.push(vec![
                if i == 0 {
                    c.name.clone()
                } else {
                    String::new()
                },
                format!("{}/{}", o.kind, o.name),
                ready,
                o.status.clone().unwrap_or_default(),
                o.images.join(", "),
            ]);
        }
    }
    output::table(
        2,
        &["COMPONENT", "OBJECT", "READY", "STATUS", "IMAGES"],
        &rows,
    );

    output::heading("Storage");
    match &inst.storage {
        Some(s) => {
            let whose = if s.installed_by_cf_runner {
                "installed by cf-runner"
            } else {
                "brought by you"
            };
            let mut rows = vec![vec![
                "class".to_string(),
                format!("{} ({whose})", s.class_name),
            ]];
            if !s.exists {
                rows.push(vec!["".into(), "missing from the cluster".into()]);
            }
            if let Some(p) = &s.provisioner {
                rows.push(vec!["provisioner".into(), p.clone()]);
            }
            if let Some(b) = &s.backend {
                rows.push(vec!["backend".into(), b.clone()]);
            }
            let params: Vec<String> = s
                .parameters
                .iter()
                .filter(|(k, _)| k.as_str() != "volumeBackend")
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if !params.is_empty() {
                rows.push(vec!["parameters".into(), params.join(", ")]);
            }
            output::table(2, &["", ""], &rows);
        }
        None => output::say("  unknown (no installation record)"),
    }

    output::heading("dind volumes");
    if inst.volumes.is_empty() {
        output::say("  none");
    } else {
        let rows: Vec<Vec<String>> = inst
            .volumes
            .iter()
            .map(|v| {
                vec![
                    format!("{}/{}", v.kind, v.name),
                    v.status.clone().unwrap_or_default(),
                    v.capacity.clone().unwrap_or_default(),
                    v.storage_class.clone().unwrap_or_default(),
                ]
            })
            .collect();
        output::table(2, &["VOLUME", "STATUS", "SIZE", "CLASS"], &rows);
    }
    for note in &inst.notes {
        output::warn(note);
    }
    let not_ready: Vec<String> = inst
        .components
        .iter()
        .flat_map(|c| &c.objects)
        .filter(|o| o.ready == Some(false))
        .map(|o| {
            format!(
                "{}/{} ({})",
                o.kind,
                o.name,
                o.status.clone().unwrap_or_default()
            )
        })
        .collect();
    if not_ready.is_empty() {
        output::done("every workload is ready");
    } else {
        output::warn(&format!("not ready: {}", not_ready.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live(kind: &str, object: Value) -> LiveObject {
        LiveObject {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            name: "x".into(),
            namespace: Some("ci".into()),
            object,
        }
    }

    #[test]
    fn a_deployment_is_ready_when_every_replica_is_available_and_updated() {
        let d = live(
            "Deployment",
            json!({"spec": {"replicas": 1}, "status": {"readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1}}),
        );
        assert_eq!(readiness(&d), Some((true, "1/1 ready".into())));
        let d = live("Deployment", json!({"spec": {"replicas": 1}, "status": {}}));
        assert_eq!(readiness(&d), Some((false, "0/1 ready".into())));
    }

    #[test]
    fn a_daemonset_is_ready_when_rolled_out_on_every_node() {
        let d = live(
            "DaemonSet",
            json!({"status": {"desiredNumberScheduled": 2, "numberReady": 1, "updatedNumberScheduled": 2}}),
        );
        assert_eq!(readiness(&d), Some((false, "1/2 ready".into())));
    }

    #[test]
    fn images_include_init_containers_and_cronjob_pods() {
        let c = live(
            "CronJob",
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {
                "initContainers": [{"image": "a:1"}], "containers": [{"image": "b:2"}]}}}}}}),
        );
        assert_eq!(images(&c), vec!["a:1", "b:2"]);
    }

    #[test]
    fn a_proxy_password_is_not_shown() {
        assert_eq!(
            without_password("http://user:s3cret@proxy:3128"),
            "http://user:<redacted>@proxy:3128"
        );
        assert_eq!(without_password("http://proxy:3128"), "http://proxy:3128");
    }
}

//! What a support bundle gathers about one installation, read by read: the
//! secrets cf-runner knows (first, so that the redactor knows them before
//! anything else goes in), the check run against the recorded values, the
//! runtime spec on both sides, the record, events, pods with their logs,
//! volumes, nodes, Secrets by name and the versions. Each read that fails
//! is named in the bundle's index and the next one goes on: a bundle is
//! most needed when the API server is half broken.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::app::identity::register;
use crate::app::installation::{identity, own_classes, record};
use crate::app::session::options::PlatformOptions;
use crate::bundle::{Bundle, Redactor};
use crate::cluster::inventory::{self, Record};
use crate::cluster::support::{self as reads, LogLimits};
use crate::cluster::{attached, preflight, secrets, Cluster};
use crate::render::{self, images};
use crate::values::{self, Secret};

/// The Secrets looked up by name besides those labelled as the install's:
/// cf-runner's own (an older version may not have labelled them), the
/// runtimes file and the attached runtime's token (labelled with the
/// agent's namespace, not this one), and venonactl's provisioner Secret,
/// whose keys an adopted install carries. Looking for more values only
/// makes the redaction and the scan stricter, so a claim is enough here.
const NAMED_SECRETS: &[&str] = &[
    render::RUNNER_SECRET,
    render::MONITOR_SECRET,
    render::PROVISIONER_SECRET,
    render::CREDENTIALS_SECRET,
    render::DIND_CERTS_SECRET,
    render::CLUSTER_READER_TOKEN_SECRET,
    render::runtimes::CONFIG_SECRET,
    render::runtimes::ACCESS_TOKEN_SECRET,
    "dind-volume-provisioner-runner",
];

/// Keys whose values are public by design: a CA or certificate, the
/// namespace of a service-account token Secret. Looking for them would
/// redact (or refuse) what support needs.
fn public_key(key: &str, value: &str) -> bool {
    let certificates_only = value
        .trim_start()
        .starts_with("-----BEGIN CERTIFICATE-----")
        && !value.contains("PRIVATE KEY-----")
        && value
            .lines()
            .filter(|l| l.starts_with("-----BEGIN "))
            .all(|l| l == "-----BEGIN CERTIFICATE-----");
    certificates_only
        || key == "namespace"
        || key.ends_with(".crt")
        || matches!(key, "ca.pem" | "server-cert.pem")
}

/// The secret values of one Secret, each with what it is (never the
/// value): every key but the public ones; of a runtime's file in
/// `runnerconf`, its token (the rest is its name, host and CA). The
/// record holds no secret (only names, and values already redacted).
pub(crate) fn secret_values(name: &str, data: &BTreeMap<String, String>) -> Vec<(String, Secret)> {
    if name == render::RECORD_SECRET {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (key, value) in data {
        if render::is_placeholder(value) {
            continue;
        }
        // A runtime's file holds its CA too: the token is looked for
        // before the file could pass for a certificate.
        if name == render::runtimes::CONFIG_SECRET && key.ends_with(".runtime.yaml") {
            let file = render::runtimes::read_runtime_file(value);
            if let Some(token) = file.token.as_ref().map(|t| t.expose()) {
                let runtime = file.name.as_deref().unwrap_or(key);
                out.push((
                    format!("the token of attached runtime {runtime} (Secret {name}, key {key})"),
                    Secret::new(token),
                ));
                continue;
            }
        }
        if public_key(key, value) {
            continue;
        }
        let kind = match (name, key.as_str()) {
            (render::RUNNER_SECRET, render::TOKEN_KEY) => {
                format!("the agent token (Secret {name}, key {key})")
            }
            (render::DIND_CERTS_SECRET, _) => format!("the dind key (Secret {name}, key {key})"),
            (render::runtimes::ACCESS_TOKEN_SECRET, "token") => {
                format!("an attached runtime's token (Secret {name}, key {key})")
            }
            _ => format!("the value of Secret {name}, key {key}"),
        };
        out.push((kind, Secret::new(value.as_str())));
    }
    out
}

/// The Secrets labelled as the install's in `namespace`, with their data.
async fn labelled_secrets(
    client: &kube::Client,
    namespace: &str,
) -> Result<Vec<(String, BTreeMap<String, String>)>, kube::Error> {
    use k8s_openapi::api::core::v1::Secret as KubeSecret;
    let api: kube::Api<KubeSecret> = kube::Api::namespaced(client.clone(), namespace);
    let params = kube::api::ListParams::default().labels(&inventory::instance_selector(namespace));
    let list = api.list(&params).await?;
    Ok(list
        .items
        .into_iter()
        .map(|s| {
            (
                s.metadata.name.unwrap_or_default(),
                secrets::text_data(s.data.unwrap_or_default()),
            )
        })
        .collect())
}

/// The annotation `kubectl apply` keeps a copy of the object in (a
/// Secret's data included): never taken into a bundle.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the collection needs besides the cluster.
pub(crate) struct Request<'a> {
    pub namespace: &'a str,
    pub platform: &'a PlatformOptions,
    pub since: std::time::Duration,
    pub max_log_bytes: u64,
    pub max_size: u64,
    /// What `info -o json` printed for the namespace, or why it failed.
    pub info: Result<String, String>,
}

/// Reads every secret value cf-runner wrote or uses for the install in
/// `namespace`, into a redactor: the API key in use, every value of every
/// Secret labelled as the install's and of the Secrets of
/// [`NAMED_SECRETS`], and the tokens of the attached runtimes (from
/// `runnerconf`, and from their `cf-runner-agent-token` Secrets where this
/// cluster has them). Names in `gaps` what it could not read: the last
/// scan then covers less, and the bundle's README says so.
async fn known_secrets(
    cluster: &Cluster,
    namespace: &str,
    auth: Option<&crate::platform::auth::Auth>,
    gaps: &mut Vec<(String, String)>,
) -> Redactor {
    let mut redactor = Redactor::default();
    if let Some(auth) = auth {
        redactor.know("the Codefresh API key in use", auth.token.clone());
    }
    let mut read: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    match labelled_secrets(&cluster.client, namespace).await {
        Ok(list) => read.extend(list),
        Err(e) => gaps.push((
            format!("the values of the Secrets labelled as the install's in namespace {namespace}, for the last scan"),
            format!("listing them failed: {e}; the scan could not look for them"),
        )),
    }
    for name in NAMED_SECRETS {
        if read.iter().any(|(n, _)| n == name) {
            continue;
        }
        match secrets::read_text(&cluster.client, namespace, name).await {
            Ok(Some(data)) => read.push((name.to_string(), data)),
            Ok(None) => {}
            Err(e) => gaps.push((
                format!("the values of Secret {name}, for the last scan"),
                format!("{}; the scan could not look for them", e.chain_text()),
            )),
        }
    }
    for (name, data) in &read {
        for (kind, value) in secret_values(name, data) {
            redactor.know(kind, value);
        }
    }
    for (other, data) in attached_tokens(cluster, namespace, &read, gaps).await {
        for (kind, value) in secret_values(render::runtimes::ACCESS_TOKEN_SECRET, &data) {
            redactor.know(format!("{kind} in namespace {other}"), value);
        }
    }
    redactor
}

/// The `cf-runner-agent-token` Secrets of the runtimes attached to the
/// agent in `namespace`, in the namespaces their tokens in `runnerconf`
/// were issued for, where this cluster has them (a runtime in another
/// cluster is covered by its token in `runnerconf`).
async fn attached_tokens(
    cluster: &Cluster,
    namespace: &str,
    read: &[(String, BTreeMap<String, String>)],
    gaps: &mut Vec<(String, String)>,
) -> Vec<(String, BTreeMap<String, String>)> {
    let name = render::runtimes::ACCESS_TOKEN_SECRET;
    let mut namespaces: Vec<String> = read
        .iter()
        .filter(|(n, _)| n == render::runtimes::CONFIG_SECRET)
        .flat_map(|(_, data)| data.values())
        .filter_map(|file| render::runtimes::read_runtime_file(file).token)
        .filter_map(|token| attached::token_namespace(token.expose()))
        .filter(|ns| ns != namespace)
        .collect();
    namespaces.sort();
    namespaces.dedup();
    let mut out = Vec::new();
    for other in namespaces {
        match secrets::read_text(&cluster.client, &other, name).await {
            Ok(Some(data)) => out.push((other, data)),
            Ok(None) => {}
            Err(e) => gaps.push((
                format!("the values of Secret {name} in namespace {other}, for the last scan"),
                format!(
                    "{}; the scan looked for the token runnerconf holds for it instead",
                    e.chain_text()
                ),
            )),
        }
    }
    out
}

/// A pod as `kubectl describe` would show it, as data: a summary of each
/// container's state first, then the object (without the noise), then the
/// pod's events.
fn describe_pod(pod: &Value, events: &[Value]) -> Value {
    let mut containers = Vec::new();
    for list in ["initContainerStatuses", "containerStatuses"] {
        for c in pod
            .pointer(&format!("/status/{list}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let state = |which: &str| -> Option<String> {
                let s = c.get(which)?.as_object()?;
                let (phase, detail) = s.iter().next()?;
                let reason = detail.get("reason").and_then(Value::as_str).unwrap_or("");
                let message = detail.get("message").and_then(Value::as_str).unwrap_or("");
                let code = detail
                    .get("exitCode")
                    .map(|c| format!(" (exit code {c})"))
                    .unwrap_or_default();
                Some(
                    format!("{phase}: {reason}{code} {message}")
                        .trim()
                        .trim_end_matches(':')
                        .to_string(),
                )
            };
            containers.push(json!({
                "name": c["name"],
                "image": c["image"],
                "ready": c["ready"],
                "restarts": c["restartCount"],
                "state": state("state"),
                "last state": state("lastState"),
            }));
        }
    }
    let mut object = pod.clone();
    drop_last_applied(&mut object);
    json!({
        "pod": pod.pointer("/metadata/name"),
        "phase": pod.pointer("/status/phase"),
        "node": pod.pointer("/spec/nodeName"),
        "conditions": pod.pointer("/status/conditions").map(conditions),
        "containers": containers,
        "events": events.iter().map(event_line).collect::<Vec<_>>(),
        "object": object,
    })
}

/// `Type=Status (reason: message)` of each condition.
fn conditions(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            let mut line = format!("{}={}", text("type"), text("status"));
            if !text("reason").is_empty() || !text("message").is_empty() {
                line.push_str(&format!(" ({}: {})", text("reason"), text("message")));
            }
            line
        })
        .collect()
}

fn drop_last_applied(object: &mut Value) {
    if let Some(a) = object
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        a.remove(LAST_APPLIED);
    }
}

/// One event as a line: when, type, reason, object, message, count.
fn event_line(e: &Value) -> Value {
    let text = |p: &str| e.pointer(p).and_then(Value::as_str).unwrap_or("");
    let when = [
        text("/lastTimestamp"),
        text("/eventTime"),
        text("/metadata/creationTimestamp"),
    ]
    .into_iter()
    .find(|t| !t.is_empty())
    .unwrap_or("");
    let count = e.get("count").and_then(Value::as_u64).unwrap_or(1);
    Value::String(format!(
        "{when} {} {} {}/{}: {}{}",
        text("/type"),
        text("/reason"),
        text("/involvedObject/kind"),
        text("/involvedObject/name"),
        text("/message"),
        if count > 1 {
            format!(" (x{count})")
        } else {
            String::new()
        }
    ))
}

/// The zone of an object by its labels (current, then the older beta key).
fn zone_label(object: &Value) -> Option<String> {
    let labels = object.pointer("/metadata/labels")?;
    [
        "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/zone",
    ]
    .iter()
    .find_map(|k| labels.get(*k).and_then(Value::as_str))
    .map(str::to_string)
}

/// The zone a PV is pinned to: its label, else its node affinity (a zone,
/// or a node whose zone is known).
fn pv_zone(pv: &Value, node_zones: &BTreeMap<String, String>) -> Option<String> {
    if let Some(z) = zone_label(pv) {
        return Some(z);
    }
    let terms = pv.pointer("/spec/nodeAffinity/required/nodeSelectorTerms")?;
    for term in terms.as_array()? {
        for expr in term["matchExpressions"].as_array().into_iter().flatten() {
            let key = expr["key"].as_str().unwrap_or("");
            let values: Vec<&str> = expr["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if key.ends_with("/zone") {
                return Some(values.join(","));
            }
            if key == "kubernetes.io/hostname" {
                let zones: Vec<&str> = values
                    .iter()
                    .filter_map(|n| node_zones.get(*n).map(String::as_str))
                    .collect();
                if !zones.is_empty() {
                    return Some(zones.join(","));
                }
            }
        }
    }
    None
}

/// Collects the bundle of the installation in `req.namespace`. `step`
/// says which part is being read (the progress line).
pub(crate) async fn collect(
    cluster: &Cluster,
    record: Option<&Record>,
    req: &Request<'_>,
    step: &dyn Fn(&str),
) -> Bundle {
    let ns = req.namespace;
    let client = &cluster.client;
    let loaded = record.and_then(record::loaded);
    let values = loaded.as_ref().map(|l| &l.values);

    // The platform first: its key is a secret the redactor must know.
    let host = values.map(|v| v.codefresh_host.clone());
    let auth = register::resolve(
        req.platform,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    );
    step("reading the Secrets cf-runner wrote, to know what to redact");
    let mut gaps = Vec::new();
    let auth_ok = auth.as_ref().ok().and_then(Option::as_ref);
    let mut redactor = known_secrets(cluster, ns, auth_ok, &mut gaps).await;
    // The token on the command line is known even when it could not be
    // used (another host, a bad config): it may still be echoed somewhere.
    if let Some(token) = &req.platform.token {
        redactor.know(
            "the Codefresh API key given with --token",
            Secret::new(token.as_str()),
        );
    }
    let mut bundle = Bundle::new(redactor, req.max_size);
    for (what, why) in gaps {
        bundle.failed(what, why);
    }
    bundle.left_out(
        "Secret values",
        "never read into the bundle: secrets.yaml lists each Secret's keys and sizes",
    );
    bundle.left_out(
        format!("the {LAST_APPLIED} annotation"),
        "a copy of the whole object, which for a Secret holds its data",
    );

    add_info(&mut bundle, &req.info);
    add_check_and_spec(&mut bundle, cluster, record, values, ns, step).await;
    add_platform_spec(&mut bundle, &auth, record, req.platform, step).await;
    add_record(&mut bundle, record, ns);
    let events = add_events(&mut bundle, client, ns, step).await;
    let node_zones = add_nodes(&mut bundle, client, step).await;
    add_storage(&mut bundle, client, ns, values, &events, &node_zones, step).await;
    add_secrets(&mut bundle, client, ns, step).await;
    let pods = add_pods(&mut bundle, client, ns, &events, step).await;
    add_logs(&mut bundle, client, ns, &pods, req, step).await;

    bundle.add_value(
        "versions.json",
        &json!({
            "cf-runner": env!("CARGO_PKG_VERSION"),
            "chart parity": images::CHART_VERSION,
            "installed by cf-runner": record.and_then(|r| r.cf_runner_version.clone()),
            "images running": running_images(&pods),
        }),
    );
    bundle
}

/// `info -o json` of the namespace, or why there is none.
fn add_info(bundle: &mut Bundle, info: &Result<String, String>) {
    match info {
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(info) => bundle.add_value("info.json", &info),
            Err(_) => bundle.add_text("info.json", text),
        },
        Err(why) => bundle.failed("info.json", why),
    }
}

/// The runtime spec, as cf-runner builds it from the record, and the
/// check, against what the record would render.
async fn add_check_and_spec(
    bundle: &mut Bundle,
    cluster: &Cluster,
    record: Option<&Record>,
    values: Option<&values::Values>,
    ns: &str,
    step: &dyn Fn(&str),
) {
    let client = &cluster.client;
    let rendered = match (record, values) {
        (Some(record), Some(values)) => {
            let identity = identity::recorded(record, Some(values), &cluster.context);
            render::render(values, &identity, &Value::Object(Map::new())).ok()
        }
        _ => None,
    };
    match &rendered {
        Some(r) => {
            step("running the checks of `cf-runner check` against the recorded values");
            let checks =
                preflight::run(client, &r.manifests, Some(&r.runtime_environment), ns).await;
            bundle.add_value(
                "check.json",
                &json!({"passed": !preflight::failed(&checks), "checks": checks}),
            );
            bundle.add_value("runtime/from-record.json", &r.runtime_environment);
        }
        None => {
            let why = if record.is_none() {
                "no installation record in the namespace"
            } else {
                "the recorded values do not validate with this cf-runner"
            };
            bundle.failed("check.json and runtime/from-record.json", why);
        }
    }
}

/// The runtime spec as the platform holds it (needs an API token).
async fn add_platform_spec(
    bundle: &mut Bundle,
    auth: &Result<Option<crate::platform::auth::Auth>, crate::platform::PlatformError>,
    record: Option<&Record>,
    platform: &PlatformOptions,
    step: &dyn Fn(&str),
) {
    let runtime_name = record.and_then(|r| r.runtime_name.clone());
    match (auth, &runtime_name) {
        (Ok(Some(auth)), Some(name)) => {
            step("reading the runtime environment on the platform");
            match crate::app::identity::register::platform_for(auth, register::transport(platform))
            {
                Ok(p) => match p.runtime(name).await {
                    Ok(Some(spec)) => bundle.add_value("runtime/platform.json", &spec),
                    Ok(None) => bundle.failed(
                        "runtime/platform.json",
                        format!("the platform has no runtime environment {name}"),
                    ),
                    Err(e) => bundle.failed("runtime/platform.json", e),
                },
                Err(e) => bundle.failed("runtime/platform.json", e),
            }
        }
        (Ok(None), _) => bundle.left_out(
            "runtime/platform.json",
            "no Codefresh API token (--token, CF_API_KEY or ~/.cfconfig)",
        ),
        (Err(e), _) => bundle.failed("runtime/platform.json", e),
        (_, None) => bundle.left_out(
            "runtime/platform.json",
            "the record names no runtime environment",
        ),
    }
}

/// The record, its values redacted when it was written and again here.
fn add_record(bundle: &mut Bundle, record: Option<&Record>, ns: &str) {
    match record {
        Some(r) => {
            let values_tree = record::shown_values(r);
            bundle.add_value(
                "record.yaml",
                &json!({
                    "cf-runner-version": r.cf_runner_version,
                    "record-format": r.record_format,
                    "agent-name": r.agent_name,
                    "runtime-name": r.runtime_name,
                    "registered-on-platform": r.registered,
                    "values": values_tree,
                }),
            );
        }
        None => bundle.failed(
            "record.yaml",
            format!("no Secret {} in namespace {ns}", render::RECORD_SECRET),
        ),
    }
}

/// The namespace's events, sorted; the pods and claims show their own.
async fn add_events(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    step: &dyn Fn(&str),
) -> Vec<Value> {
    step("reading the events of the namespace");
    match reads::list(client, "v1", "Event", Some(ns)).await {
        Ok(mut events) => {
            events.sort_by_key(|e| event_line(e).as_str().unwrap_or_default().to_string());
            bundle.add_value(
                "events.yaml",
                &Value::Array(events.iter().map(event_line).collect()),
            );
            events
        }
        Err(e) => {
            bundle.failed("events.yaml", e.chain_text());
            Vec::new()
        }
    }
}

/// The events of one object.
fn events_of(events: &[Value], kind: &str, name: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| {
            e.pointer("/involvedObject/kind").and_then(Value::as_str) == Some(kind)
                && e.pointer("/involvedObject/name").and_then(Value::as_str) == Some(name)
        })
        .cloned()
        .collect()
}

/// The nodes; returns each node's zone, for the volumes.
async fn add_nodes(
    bundle: &mut Bundle,
    client: &kube::Client,
    step: &dyn Fn(&str),
) -> BTreeMap<String, String> {
    step("reading the nodes");
    let mut node_zones = BTreeMap::new();
    match reads::list(client, "v1", "Node", None).await {
        Ok(nodes) => {
            let shown: Vec<Value> = nodes
                .iter()
                .map(|n| {
                    let name = n
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let zone = zone_label(n);
                    if let Some(z) = &zone {
                        node_zones.insert(name.to_string(), z.clone());
                    }
                    json!({
                        "name": name,
                        "zone": zone,
                        "conditions": n.pointer("/status/conditions").map(conditions),
                        "unschedulable": n.pointer("/spec/unschedulable"),
                        "taints": n.pointer("/spec/taints"),
                        "allocatable": n.pointer("/status/allocatable"),
                        "labels": n.pointer("/metadata/labels"),
                        "kubelet": n.pointer("/status/nodeInfo/kubeletVersion"),
                        "pod CIDRs": n.pointer("/spec/podCIDRs"),
                    })
                })
                .collect();
            bundle.add_value("nodes.yaml", &Value::Array(shown));
        }
        Err(e) => bundle.failed("nodes.yaml", e.chain_text()),
    }

    node_zones
}

/// The dind volumes: their StorageClass, the namespace's claims and the
/// volumes, with zones.
async fn add_storage(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    values: Option<&values::Values>,
    events: &[Value],
    node_zones: &BTreeMap<String, String>,
    step: &dyn Fn(&str),
) {
    step("reading the dind volumes and their StorageClass");
    let objects = inventory::labelled(client, ns).await;
    let classes = own_classes(ns, values, objects.as_deref().unwrap_or_default());
    let mut storage = Map::new();
    let mut storage_failed = Vec::new();
    match reads::list(client, "storage.k8s.io/v1", "StorageClass", None).await {
        Ok(list) => {
            let named: Vec<Value> = list
                .into_iter()
                .filter(|c| {
                    c.pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| classes.iter().any(|k| k == n))
                })
                .collect();
            storage.insert("storage classes".into(), Value::Array(named));
        }
        Err(e) => storage_failed.push(("StorageClasses", e.chain_text())),
    }
    match reads::list(client, "v1", "PersistentVolumeClaim", Some(ns)).await {
        Ok(list) => {
            let claims: Vec<Value> = list
                .iter()
                .map(|c| {
                    let name = c.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                    let node = c
                        .pointer("/metadata/annotations/volume.kubernetes.io~1selected-node")
                        .and_then(Value::as_str);
                    json!({
                        "name": name,
                        "phase": c.pointer("/status/phase"),
                        "storage class": c.pointer("/spec/storageClassName"),
                        "requested": c.pointer("/spec/resources/requests/storage"),
                        "volume": c.pointer("/spec/volumeName"),
                        "selected node": node,
                        "zone": node.and_then(|n| node_zones.get(n)),
                        "events": events_of(events, "PersistentVolumeClaim", name).iter().map(event_line).collect::<Vec<_>>(),
                    })
                })
                .collect();
            storage.insert("claims in the namespace".into(), Value::Array(claims));
        }
        Err(e) => storage_failed.push(("PersistentVolumeClaims", e.chain_text())),
    }
    match reads::list(client, "v1", "PersistentVolume", None).await {
        Ok(list) => {
            let volumes: Vec<Value> = list
                .iter()
                .filter(|v| {
                    v.pointer("/spec/claimRef/namespace")
                        .and_then(Value::as_str)
                        == Some(ns)
                        || v.pointer("/spec/storageClassName")
                            .and_then(Value::as_str)
                            .is_some_and(|c| classes.iter().any(|k| k == c))
                })
                .map(|v| {
                    json!({
                        "name": v.pointer("/metadata/name"),
                        "phase": v.pointer("/status/phase"),
                        "storage class": v.pointer("/spec/storageClassName"),
                        "capacity": v.pointer("/spec/capacity/storage"),
                        "claim": v.pointer("/spec/claimRef/name"),
                        "zone": pv_zone(v, node_zones),
                        "node affinity": v.pointer("/spec/nodeAffinity"),
                        "reclaim policy": v.pointer("/spec/persistentVolumeReclaimPolicy"),
                    })
                })
                .collect();
            storage.insert("volumes".into(), Value::Array(volumes));
        }
        Err(e) => storage_failed.push(("PersistentVolumes", e.chain_text())),
    }
    bundle.add_value("storage.yaml", &Value::Object(storage));
    for (what, why) in storage_failed {
        bundle.failed(format!("the {what} of storage.yaml"), why);
    }
}

/// The namespace's Secrets: names, keys and sizes, never a value.
async fn add_secrets(bundle: &mut Bundle, client: &kube::Client, ns: &str, step: &dyn Fn(&str)) {
    step("reading the Secrets of the namespace (names, keys and sizes)");
    match reads::secret_summaries(client, ns).await {
        Ok(list) => bundle.add_value(
            "secrets.yaml",
            &serde_json::to_value(list).unwrap_or_default(),
        ),
        Err(e) => bundle.failed("secrets.yaml", e.chain_text()),
    }
}

/// Each pod, described; returns the pods for their logs and images.
async fn add_pods(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    events: &[Value],
    step: &dyn Fn(&str),
) -> Vec<Value> {
    step("reading the pods");
    let pods = match reads::list(client, "v1", "Pod", Some(ns)).await {
        Ok(p) => p,
        Err(e) => {
            bundle.failed("pods/", e.chain_text());
            Vec::new()
        }
    };
    for pod in &pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        bundle.add_value(
            &format!("pods/{name}.yaml"),
            &describe_pod(pod, &events_of(events, "Pod", &name)),
        );
    }
    pods
}

/// The container statuses of a pod, init containers first.
fn container_statuses(pod: &Value) -> impl Iterator<Item = &Value> {
    ["initContainerStatuses", "containerStatuses"]
        .into_iter()
        .filter_map(|l| {
            pod.pointer(&format!("/status/{l}"))
                .and_then(Value::as_array)
        })
        .flatten()
}

/// The image of every container that runs.
fn running_images(pods: &[Value]) -> Vec<Value> {
    let mut images = Vec::new();
    for pod in pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        for c in container_statuses(pod) {
            images.push(json!({
                "pod": name, "container": c["name"], "image": c["image"], "image id": c["imageID"],
            }));
        }
    }
    images
}

/// Logs last: they are the largest, and what the size cap leaves out.
async fn add_logs(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    pods: &[Value],
    req: &Request<'_>,
    step: &dyn Fn(&str),
) {
    let limits = LogLimits {
        since_seconds: req.since.as_secs() as i64,
        max_bytes: req.max_log_bytes as i64,
    };
    for pod in pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        step(&format!("reading the logs of Pod/{name}"));
        for c in container_statuses(pod) {
            let container = c["name"].as_str().unwrap_or("");
            let entry = format!("pods/{name}/{container}.log");
            if let Some(waiting) = c.pointer("/state/waiting") {
                if c.pointer("/lastState/terminated").is_none() {
                    let reason = waiting["reason"].as_str().unwrap_or("waiting");
                    bundle.left_out(
                        entry,
                        format!("the container never started ({reason}): no log"),
                    );
                    continue;
                }
            }
            for previous in [false, true] {
                if previous && c.pointer("/lastState/terminated").is_none() {
                    continue;
                }
                let entry = if previous {
                    format!("pods/{name}/{container}.previous.log")
                } else {
                    entry.clone()
                };
                match reads::container_log(client, ns, name, container, previous, limits).await {
                    Ok(text) => bundle.add_text(&entry, &text),
                    Err(e) => bundle.failed(entry, e.chain_text()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;

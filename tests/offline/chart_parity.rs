//! cf-runner against the official `cf-runtime` chart 10.5.2, for every values
//! example:
//!
//! - **parity**: cf-runner's dry-run and `helm template` of the chart (with
//!   cf-runner's own `--generate-helm-values-file` output) are compared
//!   object by object and field by field: env, command, args, ports, probes,
//!   RBAC rules, volumes, securityContext, scheduling, resources, and the
//!   runtime-environment spec. Every difference must be listed, with its
//!   reason, in `docs/chart-parity.md`; an unlisted one fails the test, and
//!   so does a listed one that no example shows any more.
//! - **settings**: each setting an example gives reaches the chart's objects
//!   through the generated Helm values (storage, credentials, scheduling of
//!   every pod, proxies in every pod that calls out, daemon.json, registry,
//!   arch, app-proxy, monitor, volume size, names).
//!
//! helm and the chart are required: without them these tests fail (see
//! `tests/support/helm.rs`).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Map, Value};

use support::cli;
use support::helm;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = fs::read_dir(root().join("values-examples"))
        .expect("values-examples/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    list.sort();
    assert!(list.len() >= 10, "expected at least 10 examples");
    list
}

fn cf_runner(cwd: &Path, args: &[&str]) -> Output {
    let output = cli::cf_runner(cwd)
        .args(args)
        .output()
        .expect("cf-runner runs");
    assert!(
        output.status.success(),
        "cf-runner {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn yaml_file(path: &Path) -> Value {
    serde_yaml_ng::from_str(&fs::read_to_string(path).unwrap()).expect("valid YAML")
}

/// What cf-runner and the chart make of one example.
pub(crate) struct Side {
    pub(crate) example: String,
    pub(crate) namespace: String,
    /// cf-runner's objects, by `Kind/name`.
    pub(crate) ours: BTreeMap<String, Value>,
    /// cf-runner's runtime-environment spec.
    pub(crate) our_spec: Value,
    /// The chart's objects, by `Kind/name` (chart names).
    pub(crate) chart: BTreeMap<String, Value>,
    /// The runtime-environment spec in the chart's runtime-config ConfigMap.
    pub(crate) chart_spec: Value,
    /// The generated Helm values.
    pub(crate) helm_values: Value,
}

/// Both sides of every example, rendered once per test binary.
pub(crate) fn sides() -> &'static [Side] {
    static SIDES: std::sync::OnceLock<Vec<Side>> = std::sync::OnceLock::new();
    SIDES.get_or_init(|| examples().iter().map(|e| render_both(e)).collect())
}

fn render_both(example: &Path) -> Side {
    let name = example.file_stem().unwrap().to_string_lossy().into_owned();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let values_file = tmp.path().join("generated_values.yaml");
    let ex = example.to_str().unwrap();
    cf_runner(
        tmp.path(),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            ex,
            "--output-dir",
            out.to_str().unwrap(),
        ],
    );
    cf_runner(
        tmp.path(),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            ex,
            "--generate-helm-values-file",
            values_file.to_str().unwrap(),
        ],
    );
    let mut ours = BTreeMap::new();
    let mut our_spec = Value::Null;
    for entry in fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        // The runtime environment's spec goes to the platform: a .txt file.
        if path.file_name().unwrap() == "runtime-environment.txt" {
            our_spec = yaml_file(&path);
            continue;
        }
        // The export's own list of what it wrote is not an object.
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let doc = yaml_file(&path);
        ours.insert(key_of(&doc), doc);
    }
    let namespace = ours
        .keys()
        .find_map(|k| k.strip_prefix("Namespace/"))
        .expect("a Namespace object")
        .to_string();
    // What a user adds before `helm install`: the API key. The account id
    // stays unknown on both sides (cf-runner's placeholder counts as unset).
    let fill = tmp.path().join("fill.yaml");
    fs::write(&fill, "global:\n  codefreshToken: parity-test-token\n").unwrap();
    let objects = helm::template(&namespace, &[&values_file, &fill])
        .unwrap_or_else(|e| panic!("{name}: the chart does not render cf-runner's values: {e}"));
    let mut chart = BTreeMap::new();
    let mut chart_spec = Value::Null;
    for object in objects {
        let key = key_of(&object);
        if key.starts_with("ConfigMap/") && key.ends_with("-runtime-config") {
            let text = object["data"]
                .as_object()
                .and_then(|d| d.values().next())
                .and_then(Value::as_str)
                .expect("the runtime-config ConfigMap holds the spec");
            chart_spec = serde_yaml_ng::from_str(text).expect("the chart's spec is YAML");
        }
        chart.insert(key, object);
    }
    assert!(!chart_spec.is_null(), "{name}: no runtime-config ConfigMap");
    Side {
        example: name,
        namespace,
        ours,
        our_spec,
        chart,
        chart_spec,
        helm_values: yaml_file(&values_file),
    }
}

fn key_of(object: &Value) -> String {
    format!(
        "{}/{}",
        object["kind"].as_str().unwrap_or("?"),
        object["metadata"]["name"].as_str().unwrap_or("?")
    )
}

/// The chart's name for cf-runner's object `Kind/name`, when the chart has a
/// counterpart.
fn chart_name(kind: &str, name: &str, namespace: &str) -> String {
    let cluster_role = format!("volume-provisioner-{namespace}");
    let exporter_role = format!("event-exporter-{namespace}");
    let mapped = match (kind, name) {
        ("Deployment", "dind-volume-provisioner") => "cf-runtime-volume-provisioner".to_string(),
        ("DaemonSet", "dind-lv-monitor") => "cf-runtime-lv-monitor".to_string(),
        ("CronJob", "dind-volume-cleanup") => "cf-runtime-volume-cleanup".to_string(),
        ("ClusterRole" | "ClusterRoleBinding", n) if n == cluster_role => {
            "cf-runtime-volume-provisioner".to_string()
        }
        ("ClusterRole" | "ClusterRoleBinding", n) if n == exporter_role => {
            "cf-runtime-event-exporter".to_string()
        }
        ("ServiceAccount" | "Deployment" | "Service" | "ServiceMonitor", "event-exporter") => {
            "cf-runtime-event-exporter".to_string()
        }
        ("Secret", "runner") => "cf-runtime-runner".to_string(),
        ("Secret", "dind-volume-provisioner") => "cf-runtime-volume-provisioner".to_string(),
        (
            "ServiceAccount" | "Role" | "RoleBinding" | "Deployment" | "Service" | "Ingress"
            | "HTTPRoute",
            n @ ("runner" | "monitor" | "app-proxy" | "volume-provisioner"),
        ) => format!("cf-runtime-{n}"),
        // One per installation here; one fixed name in the chart.
        ("PriorityClass", n) if n == format!("cf-ballast-{namespace}") => "cf-ballast".to_string(),
        (_, n) => n.to_string(),
    };
    format!("{kind}/{mapped}")
}

/// A stable name for a difference: cf-runner's `Kind/name` with the
/// namespace replaced by `<ns>`, then the field path.
fn diff_key(object: &str, path: &str, namespace: &str) -> String {
    let object = match object.strip_suffix(namespace) {
        Some(head) if head.ends_with('/') || head.ends_with('-') => format!("{head}<ns>"),
        _ => object.to_string(),
    };
    if path.is_empty() {
        object
    } else {
        format!("{object} {path}")
    }
}

/// Turns a list of `{name: …}` maps into a map by name, so entries compare
/// by name and not by position.
fn by_name(list: &Value) -> Value {
    match list {
        Value::Array(items) => Value::Object(
            items
                .iter()
                .map(|item| {
                    let mut item = item.clone();
                    let name = item
                        .as_object_mut()
                        .and_then(|m| m.remove("name"))
                        .and_then(|n| n.as_str().map(String::from))
                        .unwrap_or_else(|| "?".into());
                    (name, item)
                })
                .collect(),
        ),
        _ => Value::Object(Map::new()),
    }
}

/// RBAC rules as a set of `group/resource verb[names]` strings.
fn rule_set(rules: &Value) -> Value {
    let mut set = BTreeSet::new();
    for rule in rules.as_array().into_iter().flatten() {
        let strings = |f: &str| -> Vec<String> {
            rule[f]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        };
        let names = strings("resourceNames");
        let names = if names.is_empty() {
            String::new()
        } else {
            format!("[{}]", names.join(","))
        };
        for group in strings("apiGroups") {
            for resource in strings("resources") {
                for verb in strings("verbs") {
                    let group = if group.is_empty() { "core" } else { &group };
                    set.insert(format!("{group}/{resource}:{verb}{names}"));
                }
            }
        }
    }
    Value::Object(set.into_iter().map(|s| (s, json!(true))).collect())
}

/// Probe fields with the Kubernetes defaults spelled out, so a field left
/// to its default equals the same value written out.
fn probe(p: &Value) -> Value {
    if p.is_null() {
        return Value::Null;
    }
    let mut p = p.clone();
    let m = p.as_object_mut().unwrap();
    for (k, d) in [
        ("initialDelaySeconds", 0),
        ("periodSeconds", 10),
        ("timeoutSeconds", 1),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ] {
        m.entry(k).or_insert(json!(d));
    }
    p
}

fn non_empty(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.is_empty() => Value::Null,
        Value::Array(a) if a.is_empty() => Value::Null,
        other => other.clone(),
    }
}

/// An env entry with neither a value nor a source is the same as none (the
/// chart leaves out a variable whose value is unset, such as an unknown
/// account id, where cf-runner writes a placeholder).
fn without_unset(mut env: Value) -> Value {
    if let Some(m) = env.as_object_mut() {
        m.retain(|_, e| !(e["value"].is_null() && e["valueFrom"].is_null()));
    }
    env
}

/// `readOnly: false` is the default: written out or not, the same mount.
fn without_default_read_only(mut mounts: Value) -> Value {
    for mount in mounts
        .as_object_mut()
        .into_iter()
        .flat_map(|m| m.values_mut())
    {
        if let Some(m) = mount.as_object_mut() {
            if m.get("readOnly") == Some(&json!(false)) {
                m.remove("readOnly");
            }
        }
    }
    mounts
}

/// The part of a container the comparison looks at.
fn container_view(c: &Value) -> Value {
    json!({
        "image": c["image"],
        "imagePullPolicy": c["imagePullPolicy"],
        "command": non_empty(&c["command"]),
        "args": non_empty(&c["args"]),
        "env": without_unset(by_name(&c["env"])),
        "ports": by_name(&c["ports"]),
        "readinessProbe": probe(&c["readinessProbe"]),
        "livenessProbe": probe(&c["livenessProbe"]),
        "securityContext": non_empty(&c["securityContext"]),
        "resources": non_empty(&c["resources"]),
        "volumeMounts": without_default_read_only(by_name(&c["volumeMounts"])),
    })
}

/// The part of a pod template the comparison looks at.
fn pod_view(spec: &Value) -> Value {
    let containers: Map<String, Value> = spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or("?").to_string(),
                container_view(c),
            )
        })
        .collect();
    let init: Vec<Value> = spec["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["name"].clone())
        .collect();
    json!({
        "containers": containers,
        "initContainers": non_empty(&json!(init)),
        "nodeSelector": non_empty(&spec["nodeSelector"]),
        "tolerations": non_empty(&spec["tolerations"]),
        "affinity": non_empty(&spec["affinity"]),
        "priorityClassName": spec["priorityClassName"],
        "securityContext": non_empty(&spec["securityContext"]),
        "imagePullSecrets": non_empty(&spec["imagePullSecrets"]),
        "volumes": by_name(&spec["volumes"]),
        "restartPolicy": spec["restartPolicy"],
    })
}

fn pod_spec(object: &Value) -> Option<&Value> {
    match object["kind"].as_str()? {
        "Deployment" | "DaemonSet" | "Job" => Some(&object["spec"]["template"]["spec"]),
        "CronJob" => Some(&object["spec"]["jobTemplate"]["spec"]["template"]["spec"]),
        _ => None,
    }
}

/// The part of an object the comparison looks at, by kind.
fn view(object: &Value) -> Value {
    let kind = object["kind"].as_str().unwrap_or("");
    match kind {
        "Deployment" | "DaemonSet" => {
            let mut view = pod_view(pod_spec(object).unwrap());
            view["podAnnotations"] =
                non_empty(&object["spec"]["template"]["metadata"]["annotations"]);
            if kind == "Deployment" {
                // How many pods, and how they are replaced (the chart sets
                // only the type; unset is Kubernetes' RollingUpdate).
                view["replicas"] = object["spec"]["replicas"].clone();
                let strategy = &object["spec"]["strategy"]["type"];
                view["strategy.type"] = strategy
                    .as_str()
                    .map_or(json!("RollingUpdate"), |t| json!(t));
            }
            view
        }
        "CronJob" => json!({
            "schedule": object["spec"]["schedule"],
            "concurrencyPolicy": object["spec"]["concurrencyPolicy"],
            "suspend": object["spec"]["suspend"].as_bool().unwrap_or(false),
            "pod": pod_view(pod_spec(object).unwrap()),
            "podAnnotations": non_empty(
                &object["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["annotations"]
            ),
        }),
        "Role" | "ClusterRole" => json!({"rules": rule_set(&object["rules"])}),
        "RoleBinding" | "ClusterRoleBinding" => json!({"roleRef.kind": object["roleRef"]["kind"]}),
        "ServiceAccount" => json!({
            "annotations": non_empty(&object["metadata"]["annotations"]),
            "imagePullSecrets": non_empty(&object["imagePullSecrets"]),
        }),
        "Service" => json!({
            "type": object["spec"].get("type").cloned().unwrap_or(json!("ClusterIP")),
            "clusterIP": object["spec"]["clusterIP"],
            "ports": by_name(&object["spec"]["ports"]),
        }),
        "StorageClass" => json!({
            "provisioner": object["provisioner"],
            "parameters": object["parameters"],
        }),
        "ConfigMap" if object["metadata"]["name"] == "codefresh-dind-config" => {
            let text = object["data"]["daemon.json"].as_str().unwrap_or("null");
            json!({"daemon.json": serde_json::from_str::<Value>(text).unwrap_or(Value::Null)})
        }
        // Secrets: only which keys they hold, never the values.
        "Secret" => {
            let mut keys: BTreeSet<String> = BTreeSet::new();
            for field in ["data", "stringData"] {
                if let Some(m) = object[field].as_object() {
                    keys.extend(m.keys().cloned());
                }
            }
            json!({"keys": keys})
        }
        "Ingress" => {
            let spec = &object["spec"];
            json!({
                "ingressClassName": spec["ingressClassName"],
                "tls": non_empty(&spec["tls"]),
                "host": spec["rules"][0]["host"],
                "path": spec["rules"][0]["http"]["paths"][0]["path"],
                "pathType": spec["rules"][0]["http"]["paths"][0]["pathType"],
            })
        }
        // What a monitor scrapes and selects, and the labels a Prometheus
        // selects it by (each side's own bookkeeping labels left out).
        "ServiceMonitor" | "PodMonitor" => {
            let mut labels = object["metadata"]["labels"].clone();
            if let Some(m) = labels.as_object_mut() {
                m.retain(|k, _| {
                    !(k.starts_with("app.kubernetes.io/") || k == "helm.sh/chart" || k == "app")
                });
            }
            json!({"labels": non_empty(&labels), "spec": object["spec"]})
        }
        "HTTPRoute" => {
            let spec = &object["spec"];
            json!({
                "parentRefs": spec["parentRefs"],
                "hostnames": spec["hostnames"],
                "path": spec["rules"][0]["matches"][0]["path"],
                "backend.port": spec["rules"][0]["backendRefs"][0]["port"],
                "labels.team": object["metadata"]["labels"]["team"],
                "annotations": object["metadata"]["annotations"],
            })
        }
        "PriorityClass" => json!({
            "value": object["value"],
            "globalDefault": object["globalDefault"],
        }),
        _ => json!({}),
    }
}

/// Every path where `a` and `b` differ. Maps are walked key by key; other
/// values (lists included) compare whole.
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<(String, String)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                diff(
                    &p,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ if a == b => {}
        // A number and its text are the same setting (YAML typing).
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n))
            if n.to_string() == *s => {}
        _ => out.push((path.to_string(), format!("cf-runner {a} / chart {b}"))),
    }
}

/// cf-runner's placeholders (unknown until the platform issues them) stand
/// for "not set", which is what the chart renders for an unset value.
fn unplaceholder(v: &Value) -> Value {
    match v {
        Value::String(s) if s.starts_with("<placeholder: account id") => Value::Null,
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), unplaceholder(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(unplaceholder).collect()),
        other => other.clone(),
    }
}

/// Hooks and other objects only the chart renders, with the reason key they
/// are listed under in docs/chart-parity.md.
fn differences(side: &Side) -> Vec<(String, String)> {
    let ns = &side.namespace;
    let mut out = Vec::new();
    let mut matched_chart = BTreeSet::new();
    for (key, object) in &side.ours {
        let (kind, name) = key.split_once('/').unwrap();
        let theirs_key = chart_name(kind, name, ns);
        match side.chart.get(&theirs_key) {
            None => out.push((diff_key(key, "", ns), "only cf-runner has it".to_string())),
            Some(theirs) => {
                matched_chart.insert(theirs_key);
                let mut d = Vec::new();
                diff("", &view(&unplaceholder(object)), &view(theirs), &mut d);
                for (path, what) in d {
                    out.push((diff_key(key, &path, ns), what));
                }
            }
        }
    }
    for key in side.chart.keys().filter(|k| !matched_chart.contains(*k)) {
        if key.ends_with("-runtime-config") && key.starts_with("ConfigMap/") {
            continue; // the spec, compared below
        }
        out.push((format!("chart {key}"), "only the chart has it".to_string()));
    }
    let mut d = Vec::new();
    diff("", &unplaceholder(&side.our_spec), &side.chart_spec, &mut d);
    for (path, what) in d {
        out.push((format!("runtime-spec {path}"), what));
    }
    out
}

/// The keys listed in docs/chart-parity.md: the first backticked text of
/// every table row above the table of the chart's keys (which
/// `chart_keys.rs` reads). A `*` matches any run of characters.
fn listed() -> Vec<String> {
    let text = fs::read_to_string(root().join("docs/chart-parity.md"))
        .expect("docs/chart-parity.md exists");
    text.lines()
        .take_while(|l| !l.starts_with(crate::chart_keys::HEADING))
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1).map(String::from))
        .collect()
}

fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text.ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn cf_runner_matches_the_chart_or_lists_why_not() {
    let allowed = listed();
    assert!(!allowed.is_empty(), "docs/chart-parity.md lists nothing");
    let mut unlisted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for side in sides() {
        for (key, what) in differences(side) {
            match allowed.iter().find(|p| glob(p, &key)) {
                Some(p) => {
                    used.insert(p.clone());
                }
                None => unlisted
                    .entry(key)
                    .or_default()
                    .push(format!("{}: {what}", side.example)),
            }
        }
    }
    let stale: Vec<&String> = allowed.iter().filter(|p| !used.contains(*p)).collect();
    let mut report = String::new();
    for (key, seen) in &unlisted {
        report.push_str(&format!("\n`{key}`\n    {}", seen.join("\n    ")));
    }
    assert!(
        unlisted.is_empty(),
        "cf-runner differs from the chart where docs/chart-parity.md does not say why \
         (match the chart, or list the key there with the reason):{report}"
    );
    assert!(
        stale.is_empty(),
        "docs/chart-parity.md lists differences no example shows any more: {stale:?}"
    );
}

// ---------------------------------------------------------------------------
// Settings: every value an example gives reaches the chart's objects.
// ---------------------------------------------------------------------------

fn pods(objects: &BTreeMap<String, Value>) -> Vec<(&String, &Value)> {
    objects
        .iter()
        .filter_map(|(k, o)| pod_spec(o).map(|s| (k, s)))
        .collect()
}

fn env_of(container: &Value) -> BTreeMap<String, Value> {
    container["env"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or("").to_string(),
                e.get("value").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Pods of the chart that call the Codefresh platform (hooks, the
/// runtime-update CronJob, the runner and its init container).
fn platform_callers(side: &Side) -> Vec<(&String, &Value)> {
    pods(&side.chart)
        .into_iter()
        .filter(|(k, _)| {
            k.starts_with("Job/")
                || k.as_str() == "CronJob/cf-runtime-runtime-patch"
                || k.as_str() == "Deployment/cf-runtime-runner"
        })
        .collect()
}

/// Checks one example; returns what did not reach the chart.
fn lost_settings(side: &Side) -> Vec<String> {
    let mut lost = Vec::new();
    let ns = &side.namespace;
    let mut check = |ok: bool, what: String| {
        if !ok {
            lost.push(what);
        }
    };

    // Scheduling of every pod cf-runner runs, and of the pods only the
    // chart runs (they get the runner's).
    let runner = pod_spec(&side.ours["Deployment/runner"]).unwrap().clone();
    for (key, spec) in pods(&side.ours) {
        let (kind, name) = key.split_once('/').unwrap();
        let theirs = chart_name(kind, name, ns);
        let Some(chart_spec) = side.chart.get(&theirs).and_then(pod_spec) else {
            check(false, format!("{key}: the chart renders no {theirs}"));
            continue;
        };
        for field in ["nodeSelector", "tolerations"] {
            check(
                non_empty(&spec[field]) == non_empty(&chart_spec[field]),
                format!(
                    "{key} {field}: cf-runner {} / chart {}",
                    spec[field], chart_spec[field]
                ),
            );
        }
        // Resources the user gave.
        let ours = &spec["containers"][0]["resources"];
        if !non_empty(ours).is_null() {
            check(
                *ours == chart_spec["containers"][0]["resources"],
                format!(
                    "{key} resources: cf-runner {ours} / chart {}",
                    chart_spec["containers"][0]["resources"]
                ),
            );
        }
    }
    for (key, spec) in platform_callers(side) {
        for field in ["nodeSelector", "tolerations"] {
            check(
                non_empty(&runner[field]) == non_empty(&spec[field]),
                format!(
                    "{key} {field}: runner's {} / chart {}",
                    runner[field], spec[field]
                ),
            );
        }
    }

    // Proxies: every cf-runner pod's proxy variables reach its chart
    // counterpart, and every chart pod that calls the platform has them.
    let runner_env = env_of(&runner["containers"][0]);
    let proxies: BTreeMap<&String, &Value> = runner_env
        .iter()
        .filter(|(k, _)| k.to_ascii_uppercase().ends_with("_PROXY"))
        .collect();
    for (key, spec) in platform_callers(side) {
        for c in spec["containers"]
            .as_array()
            .into_iter()
            .chain(spec["initContainers"].as_array())
            .flatten()
        {
            let env = env_of(c);
            for (name, value) in &proxies {
                check(
                    env.get(*name) == Some(value),
                    format!("{key} container {}: {name} missing", c["name"]),
                );
            }
        }
    }
    for (name, value) in &proxies {
        for scheduler in ["runtimeScheduler", "dockerDaemonScheduler"] {
            check(
                side.chart_spec[scheduler]["envVars"][name.as_str()] == **value,
                format!("runtime spec {scheduler}.envVars.{name} missing"),
            );
        }
    }

    // Storage parameters and credentials.
    let class = side.ours.keys().find(|k| k.starts_with("StorageClass/"));
    if let Some(class) = class {
        let ours = &side.ours[class]["parameters"];
        let theirs = &side.chart.get(class).map(|o| o["parameters"].clone());
        for (k, v) in ours.as_object().unwrap() {
            // Listed in docs/chart-parity.md: the chart has no location.
            if k == "location" {
                continue;
            }
            check(
                theirs.as_ref().map(|t| &t[k]) == Some(v),
                format!(
                    "{class} parameters.{k}: cf-runner {v} / chart {:?}",
                    theirs.as_ref().map(|t| &t[k])
                ),
            );
        }
    }
    if let Some(secret) = side.ours.get("Secret/dind-volume-provisioner") {
        let chart_secret = side.chart.get("Secret/cf-runtime-volume-provisioner");
        for (k, v) in secret["stringData"].as_object().unwrap() {
            let theirs = chart_secret.and_then(|s| {
                s["stringData"][k].as_str().map(String::from).or_else(|| {
                    s["data"][k].as_str().map(|b| {
                        use base64::Engine;
                        String::from_utf8(
                            base64::engine::general_purpose::STANDARD.decode(b).unwrap(),
                        )
                        .unwrap()
                    })
                })
            });
            // A block scalar in the chart adds a final newline.
            check(
                theirs.as_deref().map(str::trim_end) == v.as_str().map(str::trim_end),
                format!("provisioner credential {k} does not reach the chart's Secret"),
            );
        }
    }

    // daemon.json.
    let daemon = |o: Option<&Value>| {
        o.and_then(|o| o["data"]["daemon.json"].as_str())
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
    };
    check(
        daemon(side.ours.get("ConfigMap/codefresh-dind-config"))
            == daemon(side.chart.get("ConfigMap/codefresh-dind-config")),
        "daemon.json differs".into(),
    );

    // Registry: every image of every chart pod, and the step images.
    if let Some(registry) = side.helm_values["global"]["imageRegistry"].as_str() {
        for (key, spec) in pods(&side.chart) {
            for c in spec["containers"]
                .as_array()
                .into_iter()
                .chain(spec["initContainers"].as_array())
                .flatten()
            {
                let image = c["image"].as_str().unwrap_or("");
                check(
                    image.starts_with(&format!("{registry}/")),
                    format!("{key}: image {image} is not under {registry}"),
                );
            }
        }
    }

    // The runtime spec: images, volume size, storage class, scheduling.
    for path in [
        &["runtimeScheduler", "image"][..],
        &["dockerDaemonScheduler", "dindImage"],
        &["runtimeScheduler", "cluster", "nodeSelector"],
        &["runtimeScheduler", "tolerations"],
        &["dockerDaemonScheduler", "cluster", "nodeSelector"],
        &["dockerDaemonScheduler", "tolerations"],
        &["dockerDaemonScheduler", "pvcs"],
        &["dockerDaemonScheduler", "defaultDindResources"],
        &["dockerDaemonScheduler", "userVolumes"],
        &["dockerDaemonScheduler", "userVolumeMounts"],
        &["dockerDaemonScheduler", "podSecurityContext"],
        &["dockerDaemonScheduler", "containerSecurityContext"],
        &["dockerDaemonScheduler", "initContainers"],
        &["metadata", "name"],
        &["appProxy"],
    ] {
        let get = |v: &Value| path.iter().fold(v.clone(), |v, k| v[*k].clone());
        check(
            get(&side.our_spec) == get(&side.chart_spec),
            format!(
                "runtime spec {}: cf-runner {} / chart {}",
                path.join("."),
                get(&side.our_spec),
                get(&side.chart_spec)
            ),
        );
    }

    security_contexts(side, &mut check);

    // Names, app-proxy, monitor.
    let chart_runner = pod_spec(&side.chart["Deployment/cf-runtime-runner"]).unwrap();
    let chart_runner_env = env_of(&chart_runner["containers"][0]);
    for name in ["AGENT_ID", "CODEFRESH_IN_CLUSTER_RUNTIME", "CODEFRESH_HOST"] {
        check(
            runner_env.get(name) == chart_runner_env.get(name),
            format!(
                "runner env {name}: cf-runner {:?} / chart {:?}",
                runner_env.get(name),
                chart_runner_env.get(name)
            ),
        );
    }
    for key in [
        "Ingress/app-proxy",
        "Deployment/monitor",
        "Deployment/app-proxy",
    ] {
        let (kind, name) = key.split_once('/').unwrap();
        check(
            side.ours.contains_key(key) == side.chart.contains_key(&chart_name(kind, name, ns)),
            format!("{key}: installed by one side only"),
        );
    }
    if let Some(ingress) = side.ours.get("Ingress/app-proxy") {
        // The settings: host, class, TLS secret, path (pathType is not one;
        // docs/chart-parity.md covers it).
        let settings = |o: &Value| {
            let mut v = view(o);
            v.as_object_mut().unwrap().remove("pathType");
            v
        };
        let theirs = side.chart.get("Ingress/cf-runtime-app-proxy").map(settings);
        check(
            Some(settings(ingress)) == theirs,
            format!(
                "Ingress: cf-runner {} / chart {theirs:?}",
                settings(ingress)
            ),
        );
    }
    for kind in ["Role", "ClusterRole"] {
        let ours = side.ours.contains_key(&format!("{kind}/monitor"))
            || side
                .ours
                .contains_key(&format!("{kind}/monitor-reader-{ns}"));
        let theirs = side
            .chart
            .contains_key(&format!("{kind}/cf-runtime-monitor"));
        check(
            ours == theirs,
            format!("monitor {kind}: cf-runner {ours} / chart {theirs}"),
        );
    }
    lost
}

#[test]
fn every_setting_reaches_the_charts_objects() {
    let mut lost = Vec::new();
    for side in sides() {
        for what in lost_settings(side) {
            lost.push(format!("{}: {what}", side.example));
        }
    }
    assert!(
        lost.is_empty(),
        "settings lost on the way through --generate-helm-values-file:\n{}",
        lost.join("\n")
    );
}

#[test]
fn the_generated_values_render_without_a_kubeconfig() {
    // No kube context known: the file must still render (a placeholder never
    // breaks the chart), and its header must list what is left to fill.
    let tmp = tempfile::tempdir().unwrap();
    let values = tmp.path().join("values.yaml");
    fs::write(&values, "Namespace: codefresh\n").unwrap();
    let out = tmp.path().join("generated_values.yaml");
    cf_runner(
        tmp.path(),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            values.to_str().unwrap(),
            "--generate-helm-values-file",
            out.to_str().unwrap(),
        ],
    );
    let text = fs::read_to_string(&out).unwrap();
    for needle in [
        "--version 10.5.2",
        "global.codefreshToken",
        "global.accountId",
        "global.context",
    ] {
        assert!(text.contains(needle), "the header lacks {needle}:\n{text}");
    }
    let fill = tmp.path().join("fill.yaml");
    fs::write(&fill, "global:\n  codefreshToken: t\n").unwrap();
    helm::template("codefresh", &[&out, &fill])
        .unwrap_or_else(|e| panic!("the chart does not render the file: {e}\n{text}"));
}

/// The security contexts a values file gives (or rootless and OpenShift
/// make) reach the chart's pods as cf-runner renders them: every pod
/// security context, and the lv-monitor's container context and init
/// container, which the hardening rows above would otherwise cover.
fn security_contexts(side: &Side, check: &mut impl FnMut(bool, String)) {
    for (key, spec) in pods(&side.ours) {
        let (kind, name) = key.split_once('/').unwrap();
        let Some(chart_spec) = side
            .chart
            .get(&chart_name(kind, name, &side.namespace))
            .and_then(pod_spec)
        else {
            continue;
        };
        let ours = without_non_root(&spec["securityContext"]);
        let theirs = without_non_root(&chart_spec["securityContext"]);
        // The app-proxy and monitor rows: the chart sets no ids of its own;
        // warm capacity's placeholders are hardened whatever the values say
        // (the `Deployment/*-ballast securityContext` row).
        let listed = matches!(name, "app-proxy" | "monitor") || name.ends_with("-ballast");
        if !theirs.is_null() || !listed {
            check(
                ours == theirs,
                format!("{key} securityContext: cf-runner {ours} / chart {theirs}"),
            );
        }
        if name == "dind-lv-monitor" {
            let c = |s: &Value| s["containers"][0]["securityContext"].clone();
            if !c(chart_spec).is_null() {
                check(
                    c(spec) == c(chart_spec),
                    format!(
                        "{key} container securityContext: cf-runner {} / chart {}",
                        c(spec),
                        c(chart_spec)
                    ),
                );
            }
            check(
                spec["initContainers"] == chart_spec["initContainers"],
                format!(
                    "{key} initContainers: cf-runner {} / chart {}",
                    spec["initContainers"], chart_spec["initContainers"]
                ),
            );
        }
    }
}

/// A pod security context without `runAsNonRoot` (cf-runner's addition,
/// listed), null when nothing else is left.
fn without_non_root(context: &Value) -> Value {
    let mut c = context.clone();
    if let Some(map) = c.as_object_mut() {
        map.remove("runAsNonRoot");
        if map.is_empty() {
            return Value::Null;
        }
    }
    c
}

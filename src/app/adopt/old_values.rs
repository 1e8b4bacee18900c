//! The values an old install amounts to, read from its runner's Deployment
//! and objects (as a cf-runner values file would say them), and the saved
//! values file's text.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::app::adopt::component_settings;
use crate::app::adopt::credentials;
use crate::app::adopt::found::Found;
use crate::app::adopt::objects::{kind, label, name, SAVED_MARK};
use crate::render;
use crate::wizard;

pub(crate) fn env_of(container: &Value) -> BTreeMap<String, String> {
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
pub(crate) fn read_values(
    namespace: &str,
    context: &str,
    runner: Option<&Value>,
    mine: &[&Value],
    all: &[Value],
) -> (Value, Vec<String>) {
    let mut v = json!({ "Namespace": namespace, "Context": context });
    let mut not_read = vec![
        "resources of every component".to_string(),
        "the engine, dind and step images of the runtime environment (an older chart's pinned images cannot be told from a choice; set Runtime.Engine.Image and the like to keep one); its resources, grace periods, volume sort order and user env are carried"
            .to_string(),
    ];
    if let Some(runner) = runner {
        from_runner(runner, &mut v, &mut not_read);
    }
    from_storage_class(mine, &mut v, &mut not_read);
    crate::app::adopt::old_security::read_security(mine, &mut v);
    let has = |component: &str| {
        mine.iter().any(|o| {
            kind(o) == "Deployment"
                && (label(o, "codefresh.io/application") == Some(component)
                    || label(o, "app") == Some(component)
                    || name(o) == component)
        })
    };
    v["Monitor"] = json!({ "Enabled": has("monitor") });
    crate::app::adopt::old_metrics::read(mine, &mut v);
    v["AppProxy"] = json!({ "Enabled": has("app-proxy") });
    crate::app::adopt::old_extras::ballast(mine, &mut v);
    if has("app-proxy") {
        let ingress = all.iter().find(|o| {
            kind(o) == "Ingress"
                && mine
                    .iter()
                    .any(|m| kind(m) == "Ingress" && name(m) == name(o))
        });
        crate::app::adopt::old_extras::app_proxy_exposure(mine, ingress.is_some(), &mut v);
        if let Some(ingress) = ingress {
            if let Some(host) = ingress["spec"]["rules"][0]["host"].as_str() {
                v["AppProxy"]["Ingress"] = json!({ "Host": host });
            }
            if let Some(class) = ingress["spec"]["ingressClassName"].as_str() {
                v["AppProxy"]["Ingress"]["IngressClass"] = json!(class);
            }
        }
    }
    component_settings::read(runner, mine, &mut v);
    (v, not_read)
}

/// What the old runner's Deployment says: the agent, the platform, the
/// runtime's name, proxies, placement and the image registry.
fn from_runner(runner: &Value, v: &mut Value, not_read: &mut Vec<String>) {
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
            "the runtime environment's name (no CODEFRESH_IN_CLUSTER_RUNTIME, no name: in Secret runnerconf): the move takes the one the platform's agent serves; set RuntimeEnvironmentName in the values file"
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
    runner_placement(runner, v);
    // A mirror's pull secrets on the runner's pod: the Secrets are the
    // user's and stay; cf-runner names them on every pod it renders.
    let pull_secrets: Vec<Value> = spec["imagePullSecrets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .map(|name| json!(name))
        .collect();
    if !pull_secrets.is_empty() {
        v["ImagePullSecrets"] = Value::Array(pull_secrets);
    }
    if let Some(image) = container["image"].as_str() {
        if let Some((registry, _)) = image.split_once("/codefresh/") {
            if registry != "quay.io" && !registry.is_empty() {
                v["DockerRegistry"] = json!(registry);
            }
        }
    }
}

/// The user's pod annotations and affinity of the runner (the chart's
/// `runner.podAnnotations` and `runner.affinity`). Annotations tools add
/// by themselves (`kubectl rollout restart`'s) are not the user's setting.
fn runner_placement(runner: &Value, v: &mut Value) {
    const TOOLS_ANNOTATIONS: &[&str] = &["kubectl.kubernetes.io/", "deployment.kubernetes.io/"];
    let template = &runner["spec"]["template"];
    let annotations: Map<String, Value> = template["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !TOOLS_ANNOTATIONS.iter().any(|p| k.starts_with(p)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !annotations.is_empty() {
        v["Runner"]["PodAnnotations"] = Value::Object(annotations);
    }
    if let Some(affinity) = template["spec"]["affinity"]
        .as_object()
        .filter(|a| !a.is_empty())
    {
        v["Runner"]["Affinity"] = Value::Object(affinity.clone());
    }
}

/// The dind volumes' storage, from the install's StorageClass.
fn from_storage_class(mine: &[&Value], v: &mut Value, not_read: &mut Vec<String>) {
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
         # It describes that install: `cf-runner init --values` with it would put a second runner beside the old one.\n{}{rest}",
        found.tool.describe(),
        credential_references(found),
    );
    saved
}

/// Comment lines naming where each credential cf-runner keeps in its own
/// Secret comes from and goes: the values file holds references only,
/// never a key's value.
pub(crate) fn credential_references(found: &Found) -> String {
    let mut out = String::new();
    for c in &found.credentials {
        if let credentials::Destination::OwnSecret { key } = &c.to {
            out.push_str(&format!(
                "# {}: not written here; adopt carries it from {} into cf-runner's Secret {} key {key}, where `cf-runner upgrade` reads it.\n",
                c.key,
                c.from,
                render::PROVISIONER_SECRET
            ));
        }
    }
    out
}

/// Gives the runtime environment's name runnerconf holds to an install
/// that names it nowhere else (venonactl's runner reads it from there).
pub(crate) fn use_runnerconf(found: &mut Found, names: Vec<String>) {
    if found.values.get("RuntimeEnvironmentName").is_none() {
        if let [one] = names.as_slice() {
            found.values["RuntimeEnvironmentName"] = json!(one);
            found
                .not_read
                .retain(|n| !n.contains("RuntimeEnvironmentName"));
        } else if names.len() > 1 {
            for n in &mut found.not_read {
                if n.contains("RuntimeEnvironmentName") {
                    *n = format!(
                        "the runtime environment's name: Secret runnerconf names {} ({}); the move takes the one the platform's agent serves",
                        names.len(),
                        names.join(", ")
                    );
                }
            }
        }
    }
    found.runnerconf_runtimes = names;
}

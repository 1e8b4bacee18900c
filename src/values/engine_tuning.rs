//! Every build's engine and dind pod, beyond placement and disk hygiene:
//! their images, the step images the engine starts, the engine's
//! resources, how long each pod gets to stop, the env a build's engine
//! adds for pipelines (`userEnvVars`), and how the platform picks among
//! reusable volumes. These are the chart's `runtime.engine.*` and
//! `runtime.dind.*` settings; all go to the runtime spec, which the
//! platform reads at each build, so an unset key keeps the chart's default.
//!
//! Image overrides are pinned references (a tag, and a digest if you
//! like); a floating `latest` is refused as everywhere else. A literal
//! credential in `UserEnvVars` is refused: the spec is stored on the
//! platform in clear, so secrets come from a Secret by `valueFrom`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::model::reader::Reader;
use super::model::{check_qualified_name, quantity_value, ImageOverride, Resources, OWN_SECRETS};
use super::Problem;
use crate::text;

/// The step images the engine starts, by the name of the engine's env
/// variable that carries each (`runtime.engine.runtimeImages` of the chart).
pub const RUNTIME_IMAGE_NAMES: &[&str] = &[
    "COMPOSE_IMAGE",
    "CONTAINER_LOGGER_IMAGE",
    "DEFAULT_QEMU_IMAGE",
    "DOCKER_BUILDER_IMAGE",
    "DOCKER_PULLER_IMAGE",
    "DOCKER_PUSHER_IMAGE",
    "FS_OPS_IMAGE",
    "GIT_CLONE_IMAGE",
    "KUBE_DEPLOY",
    "PIPELINE_DEBUGGER_IMAGE",
    "TEMPLATE_ENGINE",
    "CR_6177_FIXER",
    "GC_BUILDER_IMAGE",
    "COSIGN_IMAGE_SIGNER_IMAGE",
];

/// Env names the engine's spec already sets (`envVars`), besides the step
/// images: cf-runner's derived ones and the chart's defaults, which
/// `Runtime.AdditionalEnvVars` overrides. A `UserEnvVars` entry of the same
/// name would give the engine's pod the variable twice.
pub const ENGINE_ENV_NAMES: &[&str] = &[
    "RUNTIME_CHART_VERSION",
    "CF_SERVICE_NAME",
    "CF_SERVICE_VERSION",
    "OTEL_RESOURCE_ATTRIBUTES",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "CF_TELEMETRY_LOGS_LEVEL",
    "CF_TELEMETRY_OTEL_ENABLE",
    "CF_TELEMETRY_OTEL_ALLOW_HTTP_INSTRUMENTATION",
    "CF_TELEMETRY_PROMETHEUS_ENABLE",
    "CF_TELEMETRY_PROMETHEUS_ENABLE_PROCESS_METRICS",
    "CF_TELEMETRY_PROMETHEUS_HOST",
    "CF_TELEMETRY_PROMETHEUS_PORT",
    "CF_TELEMETRY_PYROSCOPE_ENABLE",
    "PYROSCOPE_SERVER_ADDRESS",
    "LOGGER_LEVEL",
    "LOG_OUTGOING_HTTP_REQUESTS",
    "METRICS_SCRAPE_TIMEOUT_MS",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_COMPRESSION",
    "OTEL_LOGS_EXPORTER",
    "OTEL_TRACES_EXPORTER",
    "OTEL_TRACES_SAMPLER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_METRIC_EXPORT_INTERVAL",
    "OTEL_METRIC_EXPORT_TIMEOUT",
    "OTEL_EXPORTER_PROMETHEUS_HOST",
    "OTEL_EXPORTER_PROMETHEUS_PORT",
    "OTEL_SEMCONV_STABILITY_OPT_IN",
    "CONTAINER_LOGGER_EXEC_CHECK_INTERVAL_MS",
    "DOCKER_REQUEST_TIMEOUT_MS",
    "FORCE_COMPOSE_SERIAL_PULL",
    "TRUSTED_QEMU_IMAGES",
    "NEW_RELIC_ENABLED",
];

/// The engine's requests when none are given: the chart's.
pub const ENGINE_DEFAULT_REQUESTS: [(&str, &str); 2] = [("cpu", "100m"), ("memory", "128Mi")];
/// The engine's limits when none are given: the chart's.
pub const ENGINE_DEFAULT_LIMITS: [(&str, &str); 2] = [("cpu", "1000m"), ("memory", "2048Mi")];

/// The longest grace period accepted: a day. Longer only keeps a
/// stopped build's node from scaling down.
const MAX_GRACE_SECONDS: i64 = 86_400;

/// The engine's and dind's settings, validated; `None` and empty mean the
/// chart's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EngineTuning {
    /// `Runtime.Engine.Image`.
    pub engine_image: Option<ImageOverride>,
    /// `Runtime.Dind.Image`.
    pub dind_image: Option<ImageOverride>,
    /// `Runtime.Engine.RuntimeImages`: step images by env name.
    pub runtime_images: BTreeMap<String, ImageOverride>,
    /// `Runtime.Engine.resources`, over the chart's default.
    pub engine_resources: Resources,
    /// `Runtime.Engine.TerminationGracePeriodSeconds`.
    pub engine_grace_seconds: Option<i64>,
    /// `Runtime.Dind.TerminationGracePeriodSeconds`.
    pub dind_grace_seconds: Option<i64>,
    /// `Runtime.Engine.UserEnvVars`: Kubernetes env entries, as written.
    pub user_env_vars: Vec<Value>,
    /// `Runtime.ReuseVolumeSortOrder`: the build label reusable volumes
    /// are sorted by.
    pub reuse_volume_sort_order: Option<String>,
}

/// Reads the keys of this module, each mistake a problem naming its key.
pub(super) fn resolve(r: &mut Reader) -> EngineTuning {
    let engine_image = tagged_image(r, "Runtime.Engine.Image");
    let dind_image = tagged_image(r, "Runtime.Dind.Image");
    let runtime_images = runtime_images(r);
    let engine_resources = r.resources("Runtime.Engine.resources");
    check_against_defaults(r, &engine_resources);
    let engine_grace_seconds = grace(r, "Runtime.Engine.TerminationGracePeriodSeconds");
    let dind_grace_seconds = grace(r, "Runtime.Dind.TerminationGracePeriodSeconds");
    let user_env_vars = user_env_vars(r);
    let key = "Runtime.ReuseVolumeSortOrder";
    let reuse_volume_sort_order = r.text(key);
    if let Some(label) = &reuse_volume_sort_order {
        if check_qualified_name(label).is_err() {
            r.problems.push(Problem::new(
                key,
                Some(&Value::String(label.clone())),
                "is not a build label",
                "name one build label, e.g. pipeline_id (the chart's default)",
            ));
        }
    }
    EngineTuning {
        engine_image,
        dind_image,
        runtime_images,
        engine_resources,
        engine_grace_seconds,
        dind_grace_seconds,
        user_env_vars,
        reuse_volume_sort_order,
    }
}

/// An image with a tag: the runtime spec reports the engine's and dind's
/// version from it (`CF_SERVICE_VERSION`), as the chart does.
fn tagged_image(r: &mut Reader, key: &str) -> Option<ImageOverride> {
    let image = r.image(key)?;
    let name = image.0.split('@').next().unwrap_or_default();
    let last = name.rsplit('/').next().unwrap_or_default();
    if !last.contains(':') {
        r.problems.push(Problem::new(
            key,
            Some(&Value::String(image.0.clone())),
            "has a digest but no tag",
            "give the tag with the digest, e.g. codefresh/engine:3.3.13@sha256:…: the builds report their version from it",
        ));
        return None;
    }
    Some(image)
}

/// The user's resources are laid over the defaults: a limit below the
/// default request (or a request above the default limit) makes a pod
/// Kubernetes refuses at every build.
fn check_against_defaults(r: &mut Reader, user: &Resources) {
    let default = |table: [(&str, &str); 2], name: &str| {
        table
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    };
    for (name, limit) in &user.limits {
        let request = user.requests.get(name).cloned();
        if let Some(request) = request.or_else(|| default(ENGINE_DEFAULT_REQUESTS, name)) {
            if quantity_value(&request) > quantity_value(limit) {
                r.problems.push(Problem::new(
                    &format!("Runtime.Engine.resources.limits.{name}"),
                    Some(&Value::String(limit.clone())),
                    format!("is below the engine's request {request}"),
                    format!(
                        "raise the limit, or set Runtime.Engine.resources.requests.{name} below it"
                    ),
                ));
            }
        }
    }
    for (name, request) in &user.requests {
        if user.limits.contains_key(name) {
            continue;
        }
        if let Some(limit) = default(ENGINE_DEFAULT_LIMITS, name) {
            if quantity_value(request) > quantity_value(&limit) {
                r.problems.push(Problem::new(
                    &format!("Runtime.Engine.resources.requests.{name}"),
                    Some(&Value::String(request.clone())),
                    format!("is above the engine's default limit {limit}"),
                    format!("set Runtime.Engine.resources.limits.{name} too"),
                ));
            }
        }
    }
}

fn runtime_images(r: &mut Reader) -> BTreeMap<String, ImageOverride> {
    let key = "Runtime.Engine.RuntimeImages";
    let mut out = BTreeMap::new();
    let names: Vec<String> = match r.raw_value(key) {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        None | Some(Value::Null) => return out,
        Some(other) => {
            let other = other.clone();
            r.problems.push(Problem::new(
                key,
                Some(&other),
                "is not a map of step images",
                "write each image by its name, e.g. `GIT_CLONE_IMAGE: mirror.example.com/codefresh/cf-git-cloner:10.3.13`",
            ));
            return out;
        }
    };
    for name in names {
        let at = format!("{key}.{name}");
        if !RUNTIME_IMAGE_NAMES.contains(&name.as_str()) {
            r.problems.push(Problem::new(
                &at,
                None,
                "is not a step image the engine knows",
                format!("use one of {}", RUNTIME_IMAGE_NAMES.join(", ")),
            ));
            continue;
        }
        if let Some(image) = r.image(&at) {
            out.insert(name, image);
        }
    }
    out
}

fn grace(r: &mut Reader, key: &str) -> Option<i64> {
    r.raw_value(key)?;
    match r.int(key) {
        Some(n) if (1..=MAX_GRACE_SECONDS).contains(&n) => Some(n),
        _ => {
            let value = r.raw_value(key).cloned();
            r.problems.push(Problem::new(
                key,
                value.as_ref(),
                format!("is not a number of seconds from 1 to {MAX_GRACE_SECONDS}"),
                "give whole seconds, e.g. 180 for the engine (the chart's default) or 30 for dind",
            ));
            None
        }
    }
}

/// `UserEnvVars`: a list of `{name, value}` or `{name, valueFrom}` entries.
fn user_env_vars(r: &mut Reader) -> Vec<Value> {
    let key = "Runtime.Engine.UserEnvVars";
    let items = match r.raw_value(key).cloned() {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => return Vec::new(),
        Some(other) => {
            r.problems.push(Problem::new(
                key,
                Some(&other),
                "is not a list of env entries",
                "write a list, e.g. `- {name: GIT_SSL_NO_VERIFY, value: \"false\"}`",
            ));
            return Vec::new();
        }
    };
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match user_env_var(item, &seen) {
            Ok(name) => {
                seen.push(name);
                out.push(item.clone());
            }
            Err((why, fix)) => {
                let at = match item["name"].as_str() {
                    Some(name) => format!("{key}[{i}] ({name})"),
                    None => format!("{key}[{i}]"),
                };
                // Never echo the entry: its value may be the credential.
                r.problems.push(Problem::new(&at, None, why, fix));
            }
        }
    }
    out
}

type Refusal = (String, String);

/// One entry's name, or why it is refused and the fix.
fn user_env_var(item: &Value, seen: &[String]) -> Result<String, Refusal> {
    let refuse = |why: &str, fix: &str| Err((why.to_string(), fix.to_string()));
    let Some(map) = item.as_object() else {
        return refuse("is not an env entry", "write `{name: NAME, value: TEXT}`");
    };
    let name = map.get("name").and_then(Value::as_str).unwrap_or_default();
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-');
    if !valid {
        return refuse(
            "has no valid variable name",
            "give `name`: letters, digits and underscores, not starting with a digit",
        );
    }
    if RUNTIME_IMAGE_NAMES.contains(&name) || ENGINE_ENV_NAMES.contains(&name) {
        return refuse(
            "is a variable cf-runner already sets on the engine",
            "set a step image with Runtime.Engine.RuntimeImages, and the chart's engine env with Runtime.AdditionalEnvVars",
        );
    }
    if seen.iter().any(|s| s == name) {
        return refuse("is given twice", "keep one entry per name");
    }
    if map
        .keys()
        .any(|k| !["name", "value", "valueFrom"].contains(&k.as_str()))
    {
        return refuse(
            "has a field an env entry cannot have",
            "use only name, value and valueFrom",
        );
    }
    match (map.get("value"), map.get("valueFrom")) {
        (Some(Value::String(_)), None) if text::is_credential_name(name) => refuse(
            "holds a credential as plain text, which the platform would store in clear in the runtime spec",
            "keep it in a Secret of the runner's namespace and write `valueFrom: {secretKeyRef: {name: SECRET, key: KEY}}`",
        ),
        (Some(Value::String(_)), None) => Ok(name.to_string()),
        (None, Some(from)) => value_from(from).map(|()| name.to_string()),
        _ => refuse(
            "needs either a text `value` or a `valueFrom`",
            "quote the value (`value: \"8\"`), or read it with valueFrom.secretKeyRef",
        ),
    }
}

/// `valueFrom`: one key of a Secret or ConfigMap of the user's.
fn value_from(from: &Value) -> Result<(), Refusal> {
    let source = ["secretKeyRef", "configMapKeyRef"]
        .iter()
        .find_map(|kind| from.get(*kind).map(|r| (*kind, r)));
    let Some((kind, reference)) = source.filter(|_| from.as_object().is_some_and(|m| m.len() == 1))
    else {
        return Err((
            "has a valueFrom that is not one secretKeyRef or configMapKeyRef".into(),
            "write `valueFrom: {secretKeyRef: {name: SECRET, key: KEY}}`".into(),
        ));
    };
    let name = reference["name"].as_str().unwrap_or_default();
    if name.is_empty() || reference["key"].as_str().unwrap_or_default().is_empty() {
        return Err((
            format!("has a {kind} without a name and a key"),
            format!("write `{kind}: {{name: NAME, key: KEY}}`"),
        ));
    }
    if kind == "secretKeyRef" && OWN_SECRETS.contains(&name) {
        return Err((
            format!("reads Secret {name}, which cf-runner writes and rotates itself"),
            "put the value in a Secret of your own and name that one".into(),
        ));
    }
    Ok(())
}

/// The JSON Schema of `Runtime.Engine.UserEnvVars`.
pub fn user_env_vars_schema() -> Value {
    json!({
        "type": ["array", "null"],
        "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "value": {"type": "string"},
                "valueFrom": {"type": "object"},
            },
            "additionalProperties": false,
        },
    })
}

#[cfg(test)]
mod tests;

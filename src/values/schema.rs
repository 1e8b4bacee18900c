//! Every key a values file may hold: the venonactl keys (accepted unchanged)
//! and the few cf-runner adds. One table drives unknown-key detection, the
//! "did you mean" suggestions and the shape check of each leaf.

use serde_json::Value;

use super::tree::kind_name;
use super::Problem;

/// What a leaf key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A scalar read as text (numbers and booleans are taken as their text).
    Text,
    /// `true`/`false`, also as the strings "true"/"false" (old files quote them).
    Bool,
    /// An integer, also as a numeric string.
    Int,
    /// A map of string keys to scalar values (labels, annotations, env vars).
    TextMap,
    /// `k=v,k2=v2` as one string, or a map.
    NodeSelector,
    /// A list of Kubernetes tolerations.
    Tolerations,
    /// Kubernetes resource requirements (`limits`/`requests`).
    Resources,
    /// A list of strings (also one string, or a `{a,b}` list from `--set-value`).
    TextList,
    /// Passed through as given (Kubernetes volume and mount specs).
    Opaque,
    /// Accepted for compatibility with venonactl files; has no effect here.
    Ignored,
}

use Kind::*;

/// The known leaf keys, by dotted path. A path that is a prefix of others is
/// a section (a map whose own keys are checked in turn).
pub const KEYS: &[(&str, Kind)] = &[
    // platform
    ("CodefreshHost", Text),
    ("Token", Text),
    ("insecure", Bool),
    ("Insecure", Bool),
    ("CaBundle", Text),
    ("AgentToken", Text),
    ("AgentId", Text),
    ("RuntimeEnvironmentName", Text),
    ("SetDefaultRuntime", Bool),
    ("ExecDemoPipeline", Bool),
    ("SkipClusterTest", Bool),
    ("SkipClusterIntegration", Bool),
    ("AgentOnly", Bool),
    ("DockerDaemonAccess", Bool),
    ("OpenShift", Text),
    // cluster
    ("ConfigPath", Text),
    ("Context", Text),
    ("Namespace", Text),
    ("KubernetesHost", Text),
    ("ClusterId", Text),
    // general
    ("EnvVars", TextMap),
    ("DockerRegistry", Text),
    ("ImagePullSecrets", TextList),
    ("Arch", Text),
    ("NodeSelector", NodeSelector),
    ("Tolerations", Tolerations),
    ("AdditionalEnvVars", TextMap),
    ("Image.Name", Text),
    ("Image.Tag", Text),
    ("Runner.resources", Resources),
    ("Runner.PodAnnotations", TextMap),
    ("Runner.Affinity", Opaque),
    ("Runner.PriorityClassName", Text),
    ("Runner.ServiceAccount.Annotations", TextMap),
    ("Runner.SecurityContext", Opaque),
    ("Runner.ContainerSecurityContext", Opaque),
    // storage
    ("StorageClass", Text),
    ("Storage.Backend", Text),
    ("Storage.CreateStorageClass", Bool),
    ("Storage.StorageClassName", Text),
    ("Storage.Annotations", TextMap),
    ("Storage.LocalVolumeParentDir", Text),
    ("Storage.AvailabilityZone", Text),
    ("Storage.VolumeType", Text),
    ("Storage.FsType", Text),
    ("Storage.Encrypted", Bool),
    ("Storage.KmsKeyId", Text),
    ("Storage.Iops", Int),
    ("Storage.Throughput", Int),
    ("Storage.AwsAccessKeyId", Text),
    ("Storage.AwsPodIdentity", Bool),
    ("Storage.AwsSecretAccessKey", Text),
    ("Storage.GoogleServiceAccount", Text),
    ("Storage.AwsAccessKeyIdSecretKeyRef.Name", Text),
    ("Storage.AwsAccessKeyIdSecretKeyRef.Key", Text),
    ("Storage.AwsSecretAccessKeySecretKeyRef.Name", Text),
    ("Storage.AwsSecretAccessKeySecretKeyRef.Key", Text),
    ("Storage.GoogleServiceAccountSecretKeyRef.Name", Text),
    ("Storage.GoogleServiceAccountSecretKeyRef.Key", Text),
    ("Storage.SkuName", Text),
    ("Storage.CachingMode", Text),
    ("Storage.AzureLocation", Text),
    ("Storage.AzureResourceGroup", Text),
    ("Storage.VolumeProvisioner.Image", Text),
    ("Storage.VolumeProvisioner.NodeSelector", NodeSelector),
    ("Storage.VolumeProvisioner.Tolerations", Tolerations),
    ("Storage.VolumeProvisioner.resources", Resources),
    ("Storage.VolumeProvisioner.PodAnnotations", TextMap),
    ("Storage.VolumeProvisioner.Affinity", Opaque),
    ("Storage.VolumeProvisioner.PriorityClassName", Text),
    ("Storage.VolumeProvisioner.Replicas", Int),
    ("Storage.VolumeProvisioner.SecurityContext", Opaque),
    ("Storage.VolumeProvisioner.ContainerSecurityContext", Opaque),
    (
        "Storage.VolumeProvisioner.ServiceAccount.Annotations",
        TextMap,
    ),
    ("Storage.VolumeProvisioner.MountAzureJson", Bool),
    (
        "Storage.VolumeProvisioner.CreateDindVolDirResouces",
        Ignored,
    ),
    ("Storage.LocalVolumeMonitor.Image", Text),
    ("Storage.LocalVolumeMonitor.resources", Resources),
    ("Storage.LocalVolumeMonitor.KbUsageThreshold", Int),
    ("Storage.LocalVolumeMonitor.InodeUsageThreshold", Int),
    ("Storage.LocalVolumeMonitor.PodAnnotations", TextMap),
    ("Storage.LocalVolumeMonitor.SecurityContext", Opaque),
    (
        "Storage.LocalVolumeMonitor.ContainerSecurityContext",
        Opaque,
    ),
    ("Storage.VolumeCleaner.Image", Text),
    ("Storage.VolumeCleaner.RetentionDays", Int),
    ("Storage.VolumeCleaner.Schedule", Text),
    ("Storage.VolumeCleaner.Suspend", Bool),
    // runtime (engine and dind pods)
    ("Runtime.NodeSelector", NodeSelector),
    ("Runtime.tolerations", Tolerations),
    ("Runtime.ServiceAccount.Annotations", TextMap),
    ("Runtime.AdditionalEnvVars", TextMap),
    ("Runtime.resources", Resources),
    ("Runtime.PodAnnotations", TextMap),
    ("Runtime.PodLabels", TextMap),
    ("Runtime.Affinity", Opaque),
    ("Runtime.SchedulerName", Text),
    ("Runtime.userVolumeMounts", Opaque),
    ("Runtime.userVolumes", Opaque),
    ("Runtime.VolumeSize", Text),
    ("Runtime.Mtu", Int),
    ("Runtime.RegistryMirrors", TextList),
    ("Runtime.InsecureRegistries", TextList),
    ("Runtime.Bip", Text),
    ("Runtime.VolumeRetention", Text),
    ("Runtime.ReuseVolumeSelector", Text),
    ("Runtime.WorkflowLimits", Opaque),
    ("Runtime.ReuseVolumeSortOrder", Text),
    ("Runtime.Dind.Image", Text),
    ("Runtime.Dind.TerminationGracePeriodSeconds", Int),
    ("Runtime.Engine.Image", Text),
    ("Runtime.Engine.resources", Resources),
    ("Runtime.Engine.TerminationGracePeriodSeconds", Int),
    ("Runtime.Engine.RuntimeImages", Opaque),
    ("Runtime.Engine.UserEnvVars", Opaque),
    // warm capacity (`values::ballast`)
    ("Runtime.Ballast.Dind.Enabled", Bool),
    ("Runtime.Ballast.Dind.Replicas", Int),
    ("Runtime.Ballast.Dind.resources", Resources),
    ("Runtime.Ballast.Dind.PodAnnotations", TextMap),
    ("Runtime.Ballast.Engine.Enabled", Bool),
    ("Runtime.Ballast.Engine.Replicas", Int),
    ("Runtime.Ballast.Engine.resources", Resources),
    ("Runtime.Ballast.Engine.PodAnnotations", TextMap),
    ("Runtime.Dind.SecurityContext", Opaque),
    ("Runtime.Dind.ContainerSecurityContext", Opaque),
    ("Runtime.Dind.Rootless", Bool),
    ("Runtime.EngineAppName", Ignored),
    // more runtimes served by the same agent (`values::runtimes`)
    ("Runtimes", Opaque),
    ("ExtraResources", Opaque),
    // monitor
    ("Monitor.Enabled", Bool),
    ("Monitor.Image.Name", Text),
    ("Monitor.Image.Tag", Text),
    ("Monitor.resources", Resources),
    ("Monitor.PodAnnotations", TextMap),
    ("Monitor.Affinity", Opaque),
    ("Monitor.PriorityClassName", Text),
    ("Monitor.SecurityContext", Opaque),
    ("Monitor.ContainerSecurityContext", Opaque),
    ("Monitor.AdditionalEnvVars", TextMap),
    ("Monitor.ServiceAccount.Annotations", TextMap),
    ("Monitor.UseNamespaceWithRole", Bool),
    ("Monitor.Helm3", Bool),
    ("Monitor.RbacEnabled", Ignored),
    // app-proxy
    ("AppProxy.Enabled", Bool),
    ("AppProxy.Image.Name", Text),
    ("AppProxy.Image.Tag", Text),
    ("AppProxy.resources", Resources),
    ("AppProxy.PodAnnotations", TextMap),
    ("AppProxy.Affinity", Opaque),
    ("AppProxy.PriorityClassName", Text),
    ("AppProxy.Replicas", Int),
    ("AppProxy.SecurityContext", Opaque),
    ("AppProxy.ContainerSecurityContext", Opaque),
    ("AppProxy.AdditionalEnvVars", TextMap),
    ("AppProxy.ServiceAccount.Annotations", TextMap),
    ("AppProxy.Ingress.Host", Text),
    ("AppProxy.Ingress.IngressClass", Text),
    ("AppProxy.Ingress.TLSSecret", Text),
    ("AppProxy.Ingress.PathPrefix", Text),
    ("AppProxy.Ingress.Annotations", TextMap),
    // Prometheus monitors and the event exporter (`values::metrics`)
    ("Metrics.ServiceMonitors", Bool),
    ("Metrics.PodMonitors", Bool),
    ("Metrics.Dind", Bool),
    ("Metrics.AppProxy", Bool),
    ("Metrics.EventExporter", Bool),
    ("Metrics.Engine", Bool),
    ("Metrics.Runner", Bool),
    ("Metrics.VolumeProvisioner", Bool),
    ("Metrics.Labels", TextMap),
    ("EventExporter.Enabled", Bool),
    ("EventExporter.Image", Text),
    ("EventExporter.resources", Resources),
    ("EventExporter.NodeSelector", NodeSelector),
    ("EventExporter.tolerations", Tolerations),
    ("EventExporter.PodAnnotations", TextMap),
    ("EventExporter.Affinity", Opaque),
    ("EventExporter.AdditionalEnvVars", TextMap),
    ("EventExporter.ServiceAccount.Annotations", TextMap),
    ("AppProxy.Ingress.Enabled", Bool),
    // the app-proxy behind a Gateway (`values::gateway`)
    ("AppProxy.HttpRoute.Enabled", Bool),
    ("AppProxy.HttpRoute.ParentRefs", Opaque),
    ("AppProxy.HttpRoute.Hostnames", TextList),
    ("AppProxy.HttpRoute.PathPrefix", Text),
    ("AppProxy.HttpRoute.Annotations", TextMap),
    ("AppProxy.HttpRoute.Labels", TextMap),
    // venonactl keys that steered its own network test or in-cluster mode
    ("InCluster", Ignored),
    ("RuntimeInCluster", Ignored),
    ("RuntimeServiceAccount", Ignored),
    ("GitProviderURL", Ignored),
    ("Logging", Ignored),
    ("NewRelicLicense", Ignored),
];

/// Keys whose values are secret (see [`super::secrets`]).
pub use super::secrets::SECRET_KEYS;

/// The kind of a leaf key, if known.
pub fn kind_of(path: &str) -> Option<Kind> {
    KEYS.iter().find(|(k, _)| *k == path).map(|(_, kind)| *kind)
}

fn is_section(path: &str) -> bool {
    KEYS.iter().any(|(k, _)| {
        k.len() > path.len() && k.starts_with(path) && k.as_bytes()[path.len()] == b'.'
    })
}

/// The keys directly under a section (`""` for the top level).
fn children(section: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = KEYS
        .iter()
        .filter_map(|(k, _)| {
            let rest = if section.is_empty() {
                Some(*k)
            } else {
                k.strip_prefix(section).and_then(|r| r.strip_prefix('.'))
            }?;
            Some(rest.split('.').next().unwrap_or(rest))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The closest known sibling of an unknown key, if one is close enough.
pub fn suggest(section: &str, key: &str) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in children(section) {
        let score = if candidate.to_ascii_lowercase() == lower {
            1.0
        } else {
            strsim::jaro_winkler(&candidate.to_ascii_lowercase(), &lower)
        };
        if score > 0.8 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| {
        if section.is_empty() {
            c.to_string()
        } else {
            format!("{section}.{c}")
        }
    })
}

/// Walks the merged tree, reporting unknown keys and leaves of the wrong
/// shape. Returns the keys that are accepted but ignored, for a warning.
pub fn check(root: &Value, problems: &mut Vec<Problem>) -> Vec<String> {
    let mut ignored = Vec::new();
    walk("", root, problems, &mut ignored);
    ignored
}

fn walk(section: &str, node: &Value, problems: &mut Vec<Problem>, ignored: &mut Vec<String>) {
    let Some(map) = node.as_object() else {
        problems.push(Problem::new(
            section,
            Some(node),
            format!("is a {}, but it is a section of keys", kind_name(node)),
            format!("write it as a map, e.g. `{section}:` followed by indented keys"),
        ));
        return;
    };
    for (key, value) in map {
        let path = if section.is_empty() {
            key.clone()
        } else {
            format!("{section}.{key}")
        };
        if value.is_null() {
            continue;
        }
        if let Some(below) = first_nul(value) {
            problems.push(Problem::new(
                &format!("{path}{below}"),
                None,
                "holds a NUL character, which no Kubernetes object or process can carry",
                "remove the \\0 from the value",
            ));
            continue;
        }
        match kind_of(&path) {
            Some(Ignored) => ignored.push(path),
            Some(kind) => check_leaf(&path, kind, value, problems),
            None if is_section(&path) => walk(&path, value, problems, ignored),
            None => {
                let fix = match suggest(section, key) {
                    Some(s) => format!("did you mean `{s}`? (keys are case-sensitive)"),
                    None => format!(
                        "remove it; the keys allowed here are: {}",
                        children(section).join(", ")
                    ),
                };
                problems.push(Problem::new(&path, None, "is not a known key", fix));
            }
        }
    }
}

/// Where a NUL character hides in a value: the path below it (empty for
/// the value itself).
fn first_nul(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if s.contains('\0') => Some(String::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_nul(v).map(|rest| format!("[{i}]{rest}"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.contains('\0') {
                Some(format!(".{}", k.replace('\0', "\\0")))
            } else {
                first_nul(v).map(|rest| format!(".{k}{rest}"))
            }
        }),
        _ => None,
    }
}

/// The longest text a key takes: names are short, a service-account key is
/// a JSON document, an env value may hold a certificate.
pub fn max_text_chars(path: &str) -> usize {
    match path {
        "Storage.GoogleServiceAccount" => 64 * 1024,
        super::ca_bundle::KEY => super::ca_bundle::MAX_CHARS,
        "Namespace" | "AgentId" | "RuntimeEnvironmentName" => 253,
        "Context" | "ConfigPath" | "CodefreshHost" | "KubernetesHost" => 4096,
        _ if path.ends_with("AdditionalEnvVars") || path == "EnvVars" => 32 * 1024,
        _ => 4096,
    }
}

fn text_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        _ => 0,
    }
}

fn is_scalar(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

fn check_leaf(path: &str, kind: Kind, value: &Value, problems: &mut Vec<Problem>) {
    let wrong = |expected: &str, fix: &str| {
        Problem::new(
            path,
            Some(value),
            format!("is a {}, but {expected} is expected", kind_name(value)),
            fix,
        )
    };
    let limit = max_text_chars(path);
    let too_long = |len: usize, at: &str| {
        Problem::new(
            at,
            None,
            format!("is {len} characters long, over the {limit} this key takes"),
            "check the value; it looks pasted by mistake",
        )
    };
    match kind {
        // A label value that is a list or map was dropped without a word.
        NodeSelector if value.is_object() => check_leaf(path, TextMap, value, problems),
        Text if !is_scalar(value) => problems.push(wrong("a single value", "give one value")),
        Text if text_len(value) > limit => problems.push(too_long(text_len(value), path)),
        TextMap => {
            if let Some(m) = value.as_object() {
                for (k, v) in m {
                    if text_len(v) > limit {
                        problems.push(too_long(text_len(v), &format!("{path}.{k}")));
                    }
                }
            }
            check_text_map(path, value, problems, &wrong);
        }
        Bool => match value {
            Value::Bool(_) => {}
            Value::String(s) if super::model::bool_text(s).is_some() || s.is_empty() => {}
            _ => problems.push(Problem::new(
                path,
                Some(value),
                "is not a boolean",
                "use true or false",
            )),
        },
        Int => match value {
            // Above i64::MAX the value could not be read, so it would be dropped.
            Value::Number(n) if n.is_i64() => {}
            Value::String(s) if s.parse::<i64>().is_ok() => {}
            _ => problems.push(Problem::new(
                path,
                Some(value),
                "is not a whole number",
                "write a number without a unit, e.g. 3000",
            )),
        },
        NodeSelector if !(value.is_string() || value.is_object()) => problems.push(wrong(
            "a map or a `key=value,key2=value2` string",
            "e.g. `kubernetes.io/os=linux`",
        )),
        Tolerations if !value.is_array() => problems.push(wrong(
            "a list of tolerations",
            "write a YAML list of {key, operator, value, effect}",
        )),
        Resources if !value.is_object() => problems.push(wrong(
            "a map with limits and requests",
            "e.g. `limits: {cpu: 500m, memory: 1Gi}`",
        )),
        TextList if !(value.is_array() || value.is_string()) => {
            problems.push(wrong("a list", "write a YAML list of strings"))
        }
        _ => {}
    }
}

fn check_text_map(
    path: &str,
    value: &Value,
    problems: &mut Vec<Problem>,
    wrong: &dyn Fn(&str, &str) -> Problem,
) {
    match value.as_object() {
        Some(m) => {
            for (k, v) in m {
                if !(is_scalar(v) || v.is_null()) {
                    problems.push(Problem::new(
                        &format!("{path}.{k}"),
                        Some(v),
                        format!("is a {}, but a single value is expected", kind_name(v)),
                        "give a string value",
                    ));
                }
            }
        }
        None => problems.push(wrong("a map", "write `key: value` pairs under it")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_keys_get_suggestions() {
        assert_eq!(
            suggest("Storage", "backend").as_deref(),
            Some("Storage.Backend")
        );
        assert_eq!(suggest("", "Namspace").as_deref(), Some("Namespace"));
        assert_eq!(suggest("", "zzzzzz"), None);
    }

    #[test]
    fn check_reports_unknown_and_wrong_shapes() {
        let mut problems = Vec::new();
        let ignored = check(
            &json!({"Storage": {"Backnd": "ebs", "Encrypted": "maybe"}, "Logging": {"x": 1}}),
            &mut problems,
        );
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, vec!["Storage.Backnd", "Storage.Encrypted"]);
        assert_eq!(ignored, vec!["Logging".to_string()]);
    }

    #[test]
    fn every_secret_key_is_a_known_key() {
        for key in SECRET_KEYS {
            assert!(kind_of(key).is_some(), "{key}");
        }
    }
}

//! Pod Security Standards read from a pod spec: which level admits a pod,
//! and why a stricter one would not. Pure, so the preflight can reason
//! about a namespace it cannot dry-run in.

use std::fmt;

use serde_json::Value;

/// The Pod Security label that admission enforces.
pub const ENFORCE_LABEL: &str = "pod-security.kubernetes.io/enforce";

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

pub(super) fn all_containers(spec: &Value) -> Vec<&Value> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .filter_map(|k| spec.get(*k).and_then(Value::as_array))
        .flatten()
        .collect()
}

fn volume_name(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("?")
}

pub(super) fn container_name(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("?")
}

/// What keeps a pod out of `level`, worded like Pod Security's own
/// messages. Covers the checks the runner's pods can meet (host namespaces,
/// privileged, capabilities, hostPath and host ports, seccomp; for
/// `restricted` also volume types, privilege escalation and running as
/// root); the API server's dry-run answer stays the authority.
pub fn violations(spec: &Value, level: Level) -> Vec<String> {
    if level == Level::Privileged {
        return Vec::new();
    }
    let pod = PodView::of(spec);
    let mut out = baseline_violations(&pod);
    if level == Level::Restricted {
        out.extend(restricted_violations(&pod));
    }
    out
}

/// The parts of a pod spec the Pod Security checks read.
struct PodView<'a> {
    spec: &'a Value,
    containers: Vec<&'a Value>,
    volumes: Vec<&'a Value>,
}

impl<'a> PodView<'a> {
    fn of(spec: &'a Value) -> Self {
        let volumes = spec
            .get("volumes")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        PodView {
            spec,
            containers: all_containers(spec),
            volumes,
        }
    }

    /// The names of the containers `keep` picks, in the pod's order.
    fn containers_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<&'a str> {
        self.containers
            .iter()
            .filter(|c| keep(c))
            .map(|c| container_name(c))
            .collect()
    }
}

/// What `baseline` refuses; `restricted` refuses it too.
fn baseline_violations(pod: &PodView) -> Vec<String> {
    [
        host_namespaces(pod),
        privileged(pod),
        extra_capabilities(pod),
        host_paths(pod),
        host_ports(pod),
        unconfined_seccomp(pod),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// What `restricted` refuses beyond `baseline`.
fn restricted_violations(pod: &PodView) -> Vec<String> {
    [
        restricted_volume_types(pod),
        privilege_escalation(pod),
        running_as_root(pod),
        root_user(pod),
        unset_seccomp(pod),
        unrestricted_capabilities(pod),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A boolean field of a pod or a container, when set.
fn flag(v: &Value, pointer: &str) -> Option<bool> {
    v.pointer(pointer).and_then(Value::as_bool)
}

/// The capabilities a container adds.
fn added_capabilities(c: &Value) -> Vec<String> {
    c.pointer("/securityContext/capabilities/add")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The seccomp profile type a pod or a container sets.
fn seccomp(v: &Value) -> Option<String> {
    v.pointer("/securityContext/seccompProfile/type")
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn host_namespaces(pod: &PodView) -> Option<String> {
    let host: Vec<&str> = ["hostNetwork", "hostPID", "hostIPC"]
        .into_iter()
        .filter(|k| flag(pod.spec, &format!("/{k}")) == Some(true))
        .collect();
    (!host.is_empty()).then(|| {
        format!(
            "host namespaces ({})",
            host.iter()
                .map(|k| format!("{k}=true"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn privileged(pod: &PodView) -> Option<String> {
    let privileged = pod.containers_where(|c| flag(c, "/securityContext/privileged") == Some(true));
    (!privileged.is_empty()).then(|| {
        format!(
            "privileged (container {} must not set securityContext.privileged=true)",
            quoted(&privileged)
        )
    })
}

fn extra_capabilities(pod: &PodView) -> Option<String> {
    let mut extra_caps = Vec::new();
    for c in &pod.containers {
        for cap in added_capabilities(c) {
            if !BASELINE_CAPABILITIES.contains(&cap.as_str()) {
                extra_caps.push(format!("{} adds {cap}", container_name(c)));
            }
        }
    }
    (!extra_caps.is_empty())
        .then(|| format!("non-default capabilities ({})", extra_caps.join(", ")))
}

fn host_paths(pod: &PodView) -> Option<String> {
    let host_paths: Vec<&str> = pod
        .volumes
        .iter()
        .filter(|v| v.get("hostPath").is_some())
        .map(|v| volume_name(v))
        .collect();
    (!host_paths.is_empty()).then(|| format!("hostPath volumes ({})", quoted(&host_paths)))
}

fn host_ports(pod: &PodView) -> Option<String> {
    let host_ports: Vec<String> = pod
        .containers
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
    (!host_ports.is_empty()).then(|| format!("hostPort ({})", host_ports.join(", ")))
}

fn unconfined_seccomp(pod: &PodView) -> Option<String> {
    let unconfined = |v: &Value| seccomp(v).as_deref() == Some("Unconfined");
    (unconfined(pod.spec) || pod.containers.iter().any(|c| unconfined(c)))
        .then(|| "seccompProfile (type must not be Unconfined)".into())
}

fn restricted_volume_types(pod: &PodView) -> Option<String> {
    let odd_volumes: Vec<String> = pod
        .volumes
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
    (!odd_volumes.is_empty())
        .then(|| format!("restricted volume types ({})", odd_volumes.join(", ")))
}

fn privilege_escalation(pod: &PodView) -> Option<String> {
    let escalating = pod
        .containers_where(|c| flag(c, "/securityContext/allowPrivilegeEscalation") != Some(false));
    (!escalating.is_empty()).then(|| {
        format!(
            "allowPrivilegeEscalation != false (container {} must set securityContext.allowPrivilegeEscalation=false)",
            quoted(&escalating)
        )
    })
}

fn running_as_root(pod: &PodView) -> Option<String> {
    let pod_non_root = flag(pod.spec, "/securityContext/runAsNonRoot");
    let as_root = pod.containers_where(|c| {
        let own = flag(c, "/securityContext/runAsNonRoot");
        own == Some(false) || (own.is_none() && pod_non_root != Some(true))
    });
    (!as_root.is_empty()).then(|| {
        format!(
            "runAsNonRoot != true (container {} must set securityContext.runAsNonRoot=true)",
            quoted(&as_root)
        )
    })
}

fn root_user(pod: &PodView) -> Option<String> {
    let uid0 = |v: &Value| {
        v.pointer("/securityContext/runAsUser")
            .and_then(Value::as_i64)
            == Some(0)
    };
    (uid0(pod.spec) || pod.containers.iter().any(|c| uid0(c)))
        .then(|| "runAsUser=0 (must not run as root)".into())
}

fn unset_seccomp(pod: &PodView) -> Option<String> {
    let confined = |t: Option<String>| matches!(t.as_deref(), Some("RuntimeDefault" | "Localhost"));
    let pod_seccomp = seccomp(pod.spec);
    let unconfined = pod.containers_where(|c| match seccomp(c) {
        Some(t) => !confined(Some(t)),
        None => !confined(pod_seccomp.clone()),
    });
    (!unconfined.is_empty()).then(|| {
        format!(
            "seccompProfile (pod or container {} must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")",
            quoted(&unconfined)
        )
    })
}

fn unrestricted_capabilities(pod: &PodView) -> Option<String> {
    let loose_caps = pod.containers_where(|c| {
        let drops_all = c
            .pointer("/securityContext/capabilities/drop")
            .and_then(Value::as_array)
            .is_some_and(|d| d.iter().any(|x| x.as_str() == Some("ALL")));
        let adds_other = added_capabilities(c)
            .iter()
            .any(|a| a != "NET_BIND_SERVICE");
        !drops_all || adds_other
    });
    (!loose_caps.is_empty()).then(|| {
        format!(
            "unrestricted capabilities (container {} must set securityContext.capabilities.drop=[\"ALL\"] and add at most NET_BIND_SERVICE)",
            quoted(&loose_caps)
        )
    })
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

/// The next level down.
pub(super) fn below(level: Level) -> Level {
    match level {
        Level::Restricted => Level::Baseline,
        _ => Level::Privileged,
    }
}

/// The exact command that lets `level` pods into the namespace.
pub fn label_command(namespace: &str, level: Level) -> String {
    format!("kubectl label --overwrite namespace {namespace} {ENFORCE_LABEL}={level}")
}

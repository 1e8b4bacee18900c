//! Security contexts of every pod cf-runner runs or registers, rootless
//! dind, and what OpenShift changes in them. Each group of pods takes
//! `<section>.SecurityContext` (the pod's) and
//! `<section>.ContainerSecurityContext` (its main container's), written with
//! Kubernetes' own field names; a field Kubernetes does not have is refused,
//! because the API server would drop it silently on a non-strict apply and
//! the user would believe a pod hardened that is not.
//!
//! What the user writes replaces cf-runner's default for that pod or
//! container (an empty map: none), so the file says exactly what the pod
//! gets. The defaults are what cf-runner rendered before these keys existed
//! (the chart's users and groups, non-root, no privilege escalation), then
//! changed by `Runtime.Dind.Rootless` (the chart's `values-rootless.yaml`)
//! and by OpenShift (the chart README's recipe), in that order.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::model::reader::Reader;
use super::Problem;

/// Fields of a Kubernetes `PodSecurityContext` (core/v1, 1.33).
const POD_FIELDS: &[&str] = &[
    "appArmorProfile",
    "fsGroup",
    "fsGroupChangePolicy",
    "runAsGroup",
    "runAsNonRoot",
    "runAsUser",
    "seLinuxChangePolicy",
    "seLinuxOptions",
    "seccompProfile",
    "supplementalGroups",
    "supplementalGroupsPolicy",
    "sysctls",
    "windowsOptions",
];

/// Fields of a Kubernetes container `SecurityContext` (core/v1, 1.33).
const CONTAINER_FIELDS: &[&str] = &[
    "allowPrivilegeEscalation",
    "appArmorProfile",
    "capabilities",
    "privileged",
    "procMount",
    "readOnlyRootFilesystem",
    "runAsGroup",
    "runAsNonRoot",
    "runAsUser",
    "seLinuxOptions",
    "seccompProfile",
    "windowsOptions",
];

/// The fields that hold a user or group id.
const ID_FIELDS: &[&str] = &["fsGroup", "runAsGroup", "runAsUser"];
/// The fields that hold `true`/`false`.
const BOOL_FIELDS: &[&str] = &[
    "allowPrivilegeEscalation",
    "privileged",
    "readOnlyRootFilesystem",
    "runAsNonRoot",
];
/// The fields that hold a map (checked by the API server's dry run).
const MAP_FIELDS: &[&str] = &[
    "appArmorProfile",
    "capabilities",
    "seLinuxOptions",
    "seccompProfile",
    "windowsOptions",
];

/// The user and group the rootless dind image and lv-monitor run as.
pub const ROOTLESS_UID: i64 = 1000;

/// A group of pods with security contexts of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pods {
    Runner,
    /// The volume provisioner and its volume cleaner.
    Provisioner,
    /// The local-volume monitor (node cleaner) DaemonSet.
    LvMonitor,
    Monitor,
    AppProxy,
    /// The builds' dind pods, in the runtime spec.
    Dind,
}

impl Pods {
    /// Every group, in the order the key table lists them.
    pub const ALL: [Pods; 6] = [
        Pods::Runner,
        Pods::Provisioner,
        Pods::LvMonitor,
        Pods::Monitor,
        Pods::AppProxy,
        Pods::Dind,
    ];

    /// The values section that holds this group's keys.
    pub fn section(self) -> &'static str {
        match self {
            Pods::Runner => "Runner",
            Pods::Provisioner => "Storage.VolumeProvisioner",
            Pods::LvMonitor => "Storage.LocalVolumeMonitor",
            Pods::Monitor => "Monitor",
            Pods::AppProxy => "AppProxy",
            Pods::Dind => "Runtime.Dind",
        }
    }
}

/// The two security contexts of one group of pods.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Contexts {
    /// The pod's `securityContext`; empty renders none.
    pub pod: Map<String, Value>,
    /// The main container's `securityContext`; empty renders none.
    pub container: Map<String, Value>,
}

/// What the user gave for one group; `None`: cf-runner's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Given {
    pub pod: Option<Map<String, Value>>,
    pub container: Option<Map<String, Value>>,
}

/// The settings of this module, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Security {
    /// By group, in [`Pods::ALL`]'s order.
    pub given: Vec<Given>,
    /// `Runtime.Dind.Rootless`: dockerd runs as a user (the chart's
    /// `values-rootless.yaml`).
    pub rootless: bool,
}

/// Reads `<section>.SecurityContext` and `.ContainerSecurityContext` of
/// every group and `Runtime.Dind.Rootless`.
pub(super) fn resolve(r: &mut Reader) -> Security {
    let given = Pods::ALL
        .iter()
        .map(|pods| Given {
            pod: context(r, &format!("{}.SecurityContext", pods.section()), true),
            container: context(
                r,
                &format!("{}.ContainerSecurityContext", pods.section()),
                false,
            ),
        })
        .collect();
    Security {
        given,
        rootless: r.boolean("Runtime.Dind.Rootless", false),
    }
}

/// One security context as the user wrote it, checked field by field.
fn context(r: &mut Reader, key: &str, pod: bool) -> Option<Map<String, Value>> {
    let value = r.raw_value(key)?;
    let Some(map) = value.as_object() else {
        if !value.is_null() {
            r.problems.push(Problem::new(
                key,
                Some(value),
                "is not a security context",
                "write a map with Kubernetes' field names, e.g. `{runAsNonRoot: true, runAsUser: 1000}`",
            ));
        }
        return None;
    };
    let fields = if pod { POD_FIELDS } else { CONTAINER_FIELDS };
    let before = r.problems.len();
    for (field, inner) in map {
        let Some(why) = field_problem(fields, field, inner) else {
            continue;
        };
        let fix = if fields.contains(&field.as_str()) {
            format!("write `{field}` as Kubernetes does: {}", expected(field))
        } else {
            format!(
                "use a field of a {} securityContext: {}",
                if pod { "pod's" } else { "container's" },
                fields.join(", ")
            )
        };
        r.problems.push(Problem::new(
            &format!("{key}.{field}"),
            Some(inner),
            why,
            fix,
        ));
    }
    (r.problems.len() == before).then(|| map.clone())
}

/// Why one field is wrong, if it is.
fn field_problem(fields: &[&str], field: &str, value: &Value) -> Option<String> {
    if !fields.contains(&field) {
        return Some("is not a field of a Kubernetes security context".into());
    }
    let ok = if ID_FIELDS.contains(&field) {
        value
            .as_i64()
            .is_some_and(|id| (0..=i64::from(u32::MAX)).contains(&id))
    } else if BOOL_FIELDS.contains(&field) {
        value.is_boolean()
    } else if MAP_FIELDS.contains(&field) {
        value.is_object()
    } else {
        match field {
            "fsGroupChangePolicy" => matches!(value.as_str(), Some("OnRootMismatch" | "Always")),
            "supplementalGroups" => value
                .as_array()
                .is_some_and(|ids| ids.iter().all(|id| id.as_i64().is_some_and(|n| n >= 0))),
            "sysctls" => value.is_array(),
            _ => value.is_string(),
        }
    };
    (!ok).then(|| format!("is not {}", expected(field)))
}

/// What a field holds, for a problem's fix.
fn expected(field: &str) -> &'static str {
    if ID_FIELDS.contains(&field) {
        "a whole number from 0, unquoted"
    } else if BOOL_FIELDS.contains(&field) {
        "true or false"
    } else if MAP_FIELDS.contains(&field) {
        "a map"
    } else {
        match field {
            "fsGroupChangePolicy" => "OnRootMismatch or Always",
            "supplementalGroups" => "a list of group ids",
            "sysctls" => "a list of {name, value}",
            _ => "a word",
        }
    }
}

/// The JSON Schema of a pod's (`pod`) or a container's security context,
/// accepting exactly what the values reader accepts.
pub fn json_schema(pod: bool) -> Value {
    let fields = if pod { POD_FIELDS } else { CONTAINER_FIELDS };
    let properties: Map<String, Value> = fields
        .iter()
        .map(|field| {
            let schema = if ID_FIELDS.contains(field) {
                json!({"type": "integer", "minimum": 0, "maximum": u32::MAX})
            } else if BOOL_FIELDS.contains(field) {
                json!({"type": "boolean"})
            } else if MAP_FIELDS.contains(field) {
                json!({"type": "object"})
            } else {
                match *field {
                    "fsGroupChangePolicy" => json!({"enum": ["OnRootMismatch", "Always"]}),
                    "supplementalGroups" => {
                        json!({"type": "array", "items": {"type": "integer", "minimum": 0}})
                    }
                    "sysctls" => json!({"type": "array"}),
                    _ => json!({"type": "string"}),
                }
            };
            (field.to_string(), schema)
        })
        .collect();
    json!({"type": ["object", "null"], "properties": properties, "additionalProperties": false})
}

/// No privilege escalation and no capabilities: cf-runner's default for
/// every container that needs none.
fn hardened() -> Map<String, Value> {
    as_map(json!({"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}))
}

fn as_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A pod running as `id` (user, group and fsGroup), non-root.
fn runs_as(id: i64, fs_group: bool) -> Map<String, Value> {
    let mut pod = as_map(json!({"runAsNonRoot": true, "runAsUser": id, "runAsGroup": id}));
    if fs_group {
        pod.insert("fsGroup".into(), json!(id));
    }
    pod
}

/// What cf-runner renders for `pods` when the user gives nothing.
fn default_contexts(pods: Pods, rootless: bool, openshift: bool) -> Contexts {
    let mut c = match pods {
        Pods::Runner => Contexts {
            pod: runs_as(10001, true),
            container: hardened(),
        },
        Pods::Provisioner => Contexts {
            pod: runs_as(3000, true),
            container: hardened(),
        },
        Pods::Monitor | Pods::AppProxy => Contexts {
            pod: runs_as(1000, false),
            container: hardened(),
        },
        Pods::LvMonitor => {
            // Root, with only the two capabilities that delete any build's files.
            let mut container = hardened();
            container.insert(
                "capabilities".into(),
                json!({"drop": ["ALL"], "add": ["DAC_OVERRIDE", "FOWNER"]}),
            );
            Contexts {
                pod: Map::new(),
                container,
            }
        }
        // The platform's own defaults (a privileged dockerd).
        Pods::Dind => Contexts::default(),
    };
    if rootless {
        rootless_contexts(pods, &mut c);
    }
    if openshift {
        openshift_contexts(pods, &mut c);
    }
    c
}

/// `values-rootless.yaml`: dind and the lv-monitor run as user 1000, their
/// volumes group-owned by 1000.
fn rootless_contexts(pods: Pods, c: &mut Contexts) {
    let volumes = as_map(json!({"fsGroup": ROOTLESS_UID, "fsGroupChangePolicy": "OnRootMismatch"}));
    match pods {
        Pods::Dind => {
            c.pod = volumes;
            // Still privileged: rootless dockerd needs user namespaces and mounts.
            c.container = as_map(json!({"privileged": true, "runAsUser": ROOTLESS_UID}));
        }
        Pods::LvMonitor => {
            c.pod = volumes;
            c.container = hardened();
            c.container.insert("runAsUser".into(), json!(ROOTLESS_UID));
        }
        _ => {}
    }
}

/// The OpenShift recipe: the SCC assigns users and groups, so no pod fixes
/// them; the runner and provisioner run under the `privileged` SCC (their
/// pods get none of the chart's ids), and the lv-monitor is privileged.
fn openshift_contexts(pods: Pods, c: &mut Contexts) {
    match pods {
        Pods::Runner | Pods::Provisioner => c.pod = Map::new(),
        Pods::Monitor | Pods::AppProxy => c.pod = as_map(json!({"runAsNonRoot": true})),
        Pods::LvMonitor => {
            // A privileged container may not also refuse escalation (the API
            // server rejects the pair), so only what the recipe sets is kept.
            let user = c.container.get("runAsUser").cloned();
            c.container = as_map(json!({"privileged": true}));
            if let Some(user) = user {
                c.container.insert("runAsUser".into(), user);
            }
        }
        Pods::Dind => {}
    }
}

/// Where the rootless dind image keeps docker's data (its `dind` volume).
pub const ROOTLESS_DOCKER_DIR: &str = "/home/rootless/.local/share/docker";

/// The init container that hands a volume to the user a rootless pod runs
/// as: whose it becomes (`user:group`) and the init container's own
/// security context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VolumeOwner {
    pub owner: String,
    pub security_context: Map<String, Value>,
}

impl Security {
    /// What the user gave for `pods`.
    pub fn given(&self, pods: Pods) -> Given {
        let i = Pods::ALL.iter().position(|p| *p == pods).expect("listed");
        self.given.get(i).cloned().unwrap_or_default()
    }

    /// The security contexts `pods` get: the default (with rootless and
    /// OpenShift), each replaced by the user's when given.
    pub fn contexts(&self, pods: Pods, openshift: bool) -> Contexts {
        let mut c = default_contexts(pods, self.rootless, openshift);
        let given = self.given(pods);
        if let Some(pod) = given.pod {
            c.pod = pod;
        }
        if let Some(container) = given.container {
            c.container = container;
        }
        c
    }

    /// True when `pods`' contexts are not what the chart's values give by
    /// default, so the Helm values must carry them.
    pub fn changed(&self, pods: Pods, openshift: bool) -> (bool, bool) {
        let given = self.given(pods);
        let plain = default_contexts(pods, false, false);
        let now = default_contexts(pods, self.rootless, openshift);
        (
            given.pod.is_some() || plain.pod != now.pod,
            given.container.is_some() || plain.container != now.container,
        )
    }

    /// The volume-permissions init container of `pods` (dind and the
    /// lv-monitor, rootless only): `chown` needs a user and a group to give
    /// the volume to, so a context without either gets none. As root, or
    /// privileged where OpenShift's SCC assigns the user.
    pub fn volume_owner(&self, pods: Pods, openshift: bool) -> Option<VolumeOwner> {
        if !self.rootless || !matches!(pods, Pods::Dind | Pods::LvMonitor) {
            return None;
        }
        let c = self.contexts(pods, openshift);
        let id = |v: Option<&Value>| v.and_then(Value::as_i64);
        let user = id(c.container.get("runAsUser"))?;
        let group = id(c.pod.get("fsGroup"))?;
        let security_context = if openshift {
            as_map(json!({"privileged": true}))
        } else {
            as_map(json!({"runAsUser": 0}))
        };
        Some(VolumeOwner {
            owner: format!("{user}:{group}"),
            security_context,
        })
    }

    /// Every group's contexts, by the name the templates use.
    pub fn rendered(&self, openshift: bool) -> Value {
        let names = [
            "runner",
            "provisioner",
            "lv_monitor",
            "monitor",
            "app_proxy",
            "dind",
        ];
        let mut out = Map::new();
        for (pods, name) in Pods::ALL.iter().zip(names) {
            out.insert(name.into(), json!(self.contexts(*pods, openshift)));
        }
        out.insert("rootless".into(), json!(self.rootless));
        Value::Object(out)
    }
}

#[cfg(test)]
#[path = "security_tests.rs"]
mod tests;

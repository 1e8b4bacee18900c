//! Preflight: can this cluster, with this user, take the install? Five
//! checks, run concurrently and read-only (the only writes are
//! SelfSubjectAccessReviews and server-side dry-runs, which persist nothing):
//!
//! - the server version is one the rendered objects work on;
//! - the user holds every permission the install uses, including every rule
//!   of the Roles and ClusterRoles it creates (RBAC refuses to grant what the
//!   granter does not hold, unless they hold `escalate` and `bind`);
//! - the API server accepts the cluster-scoped objects (strict dry-run);
//! - a node can run the runner;
//! - an installation already in the namespace (ours or an older installer's)
//!   is found and named.
//!
//! Each check ends as pass, warn or fail with a reason and, unless it passed,
//! a fix. The deciding logic is kept in pure functions so it is unit-tested
//! without a cluster.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use futures::stream::{self, StreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, ValidationDirective};
use kube::Client;
use serde::Serialize;
use serde_json::Value;

use super::{api_for, inventory, resource_for, KubeError, FIELD_MANAGER};
use crate::render::{Manifest, LABEL_MANAGED_BY, RECORD_SECRET};
use crate::values::quantity_value;

/// Oldest supported minor version of Kubernetes 1.x. The rendered objects
/// (`batch/v1` CronJob among them) are not made for, nor tested on, older
/// servers.
pub const MIN_MINOR: u32 = 25;
/// Newest minor version the rendered objects were tested against.
pub const MAX_TESTED_MINOR: u32 = 37;
/// Allocatable CPU (cores) a node needs for the runner.
pub const MIN_NODE_CPU: f64 = 0.5;
/// Allocatable memory (bytes) a node needs for the runner.
pub const MIN_NODE_MEMORY: f64 = 1024.0 * 1024.0 * 1024.0;
/// How many SelfSubjectAccessReviews are in flight at once: enough to finish
/// ~100 reviews in a few round-trips, few enough not to open a connection
/// per review against a small API server.
const REVIEW_CONCURRENCY: usize = 16;
/// The `app` label values the older installers (venonactl, `codefresh runner
/// init`) put on their objects.
pub const OLD_INSTALLER_APPS: [&str; 5] = [
    "runner",
    "venona",
    "dind-volume-provisioner",
    "dind-lv-monitor",
    "app-proxy",
];

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
/// The label Helm charts put on what they render (`cf-runtime-10.5.2`).
const HELM_CHART_LABEL: &str = "helm.sh/chart";

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    /// Worth knowing, does not stop an install.
    Warn,
    /// The install would fail: `check` exits 3 and `init` stops.
    Fail,
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    /// Why it ended that way, in one line.
    pub reason: String,
    /// Itemised findings (missing permissions, rejected objects, …).
    pub details: Vec<String>,
    /// What the user can do; `None` when the check passed.
    pub fix: Option<String>,
    /// The API server did not answer at all (no status came back).
    #[serde(skip)]
    pub unreachable: bool,
}

impl Check {
    fn pass(name: &str, reason: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            status: Status::Pass,
            reason: reason.into(),
            details: Vec::new(),
            fix: None,
            unreachable: false,
        }
    }
    fn warn(name: &str, reason: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            status: Status::Warn,
            reason: reason.into(),
            details: Vec::new(),
            fix: Some(fix.into()),
            unreachable: false,
        }
    }
    fn fail(name: &str, reason: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            status: Status::Fail,
            ..Check::warn(name, reason, fix)
        }
    }
    fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// True when any check failed.
pub fn failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.status == Status::Fail)
}

/// Check names, as shown and as keys in `-o json`.
pub mod names {
    pub const VERSION: &str = "server version";
    pub const PERMISSIONS: &str = "permissions";
    pub const DRY_RUN: &str = "cluster-scoped objects";
    pub const NODES: &str = "node capacity";
    pub const EXISTING: &str = "existing installation";
}

/// Runs every check against the cluster for installing `manifests` into
/// `namespace`. Never fails as a whole: a check that cannot be made says so.
pub async fn run(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
    namespace: &str,
) -> Vec<Check> {
    // One probe first, with one deadline: when the API server does not
    // answer, every other check would wait out its own timeout in turn.
    let version = check_version(client).await;
    if version.status == Status::Fail && version.unreachable {
        let not_run = |name: &str| {
            Check::fail(
                name,
                "not run: the API server did not answer the first request",
                "see the server version check",
            )
        };
        return vec![
            version,
            not_run(names::PERMISSIONS),
            not_run(names::DRY_RUN),
            not_run(names::NODES),
            not_run(names::EXISTING),
        ];
    }
    // Whether the namespace is someone else's changes what the install does
    // with it (only reads it), so both of these checks wait for the answer.
    let rbac_and_dry_run = async {
        let state = namespace_state(client, manifests).await;
        futures::join!(
            check_permissions(client, manifests, state),
            check_dry_run(client, manifests, state),
        )
    };
    let ((permissions, dry_run), nodes, existing) = futures::join!(
        rbac_and_dry_run,
        check_nodes(client, manifests, runtime_environment),
        check_existing(client, namespace),
    );
    vec![version, permissions, dry_run, nodes, existing]
}

/// The runner's namespace as it is before the install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespaceState {
    Missing,
    /// Exists, labelled as cf-runner's: the install applies it.
    Ours,
    /// Exists, made by someone else: the install only reads it.
    Foreign,
    /// Could not be read.
    Unknown,
}

async fn namespace_state(client: &Client, manifests: &[Manifest]) -> NamespaceState {
    let Some(ns) = manifests.iter().find(|m| m.kind == "Namespace") else {
        return NamespaceState::Unknown;
    };
    match api_for(client, "v1", "Namespace", None)
        .get_opt(&ns.name)
        .await
    {
        Ok(None) => NamespaceState::Missing,
        Ok(Some(live)) => {
            let live = serde_json::to_value(&live).unwrap_or(Value::Null);
            if foreign_namespace(&live) {
                NamespaceState::Foreign
            } else {
                NamespaceState::Ours
            }
        }
        Err(_) => NamespaceState::Unknown,
    }
}

// ---------------------------------------------------------------- version

/// How long the first request of the preflight may take: a server that
/// has not answered by then is not reachable from here.
pub const FIRST_ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

async fn check_version(client: &Client) -> Check {
    let started = std::time::Instant::now();
    match tokio::time::timeout(FIRST_ANSWER_TIMEOUT, client.apiserver_version()).await {
        Ok(Ok(info)) => version_check(&info.major, &info.minor, &info.git_version),
        Ok(Err(e)) => {
            let err = KubeError::from_kube("reading", "the server version", e);
            let mut check = Check::fail(
                names::VERSION,
                format!(
                    "could not read the server version (after {:.1}s): {}",
                    started.elapsed().as_secs_f32(),
                    api_message(&err)
                ),
                err.hint().unwrap_or_else(|| {
                    "check that the API server is reachable with this kubeconfig".into()
                }),
            );
            check.unreachable = err.code().is_none();
            check
        }
        Err(_) => {
            let mut check = Check::fail(
                names::VERSION,
                format!(
                    "the API server did not answer within {}s",
                    FIRST_ANSWER_TIMEOUT.as_secs()
                ),
                "check the server address in the kubeconfig, that the cluster is running, \
                 and the network path to it (VPN, firewall, HTTPS_PROXY/NO_PROXY)",
            );
            check.unreachable = true;
            check
        }
    }
}

/// Decides the version check from `/version`'s `major` and `minor` (which
/// some distributions suffix, e.g. `28+`).
pub fn version_check(major: &str, minor: &str, shown: &str) -> Check {
    let digits = |s: &str| -> Option<u32> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let shown = if shown.is_empty() {
        format!("{major}.{minor}")
    } else {
        shown.to_string()
    };
    let range = format!("1.{MIN_MINOR}–1.{MAX_TESTED_MINOR}");
    match (digits(major), digits(minor)) {
        (Some(1), Some(m)) if m < MIN_MINOR => Check::fail(
            names::VERSION,
            format!("Kubernetes {shown} is older than 1.{MIN_MINOR}, which the runner needs (batch/v1 CronJob)"),
            format!("upgrade the cluster to 1.{MIN_MINOR} or newer"),
        ),
        (Some(1), Some(m)) if m > MAX_TESTED_MINOR => Check::warn(
            names::VERSION,
            format!("Kubernetes {shown} is newer than tested ({range})"),
            "it will most likely work; if something misbehaves, report it with the version",
        ),
        (Some(1), Some(_)) => Check::pass(
            names::VERSION,
            format!("Kubernetes {shown} is in the supported range {range}"),
        ),
        _ => Check::warn(
            names::VERSION,
            format!("could not understand the server version {shown:?}"),
            format!("make sure the cluster runs Kubernetes {range}"),
        ),
    }
}

// ------------------------------------------------------------ permissions

/// One thing a user may or may not be allowed to do.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permission {
    pub verb: String,
    /// API group; empty for the core group.
    pub group: String,
    /// Plural resource name.
    pub resource: String,
    /// Limited to one object, when a rule names it.
    pub name: Option<String>,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

impl Permission {
    fn new(verb: &str, group: &str, resource: &str, namespace: Option<&str>) -> Self {
        Permission {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            name: None,
            namespace: namespace.map(str::to_string),
        }
    }
    fn named(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if let Some(name) = &self.name {
            write!(f, "/{name}")?;
        }
        if !self.group.is_empty() {
            write!(f, " ({})", self.group)?;
        }
        match &self.namespace {
            Some(ns) => write!(f, " in namespace {ns}"),
            None => write!(f, " cluster-wide"),
        }
    }
}

/// What applying and waiting do to each object: GET (the namespace, the
/// workloads while waiting), LIST (the inventory of what exists), and
/// server-side apply, which is a PATCH that RBAC also checks as CREATE when
/// the object is new. Waiting also lists pods to explain a stuck workload.
/// A namespace someone else made is only read, so a user who administers
/// just that namespace is not asked for rights on every namespace.
pub fn install_permissions(manifests: &[Manifest], namespace: NamespaceState) -> Vec<Permission> {
    let mut out: Vec<Permission> = Vec::new();
    let mut push = |p: Permission| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    for m in manifests {
        if m.kind == "Namespace" && namespace == NamespaceState::Foreign {
            // RBAC sees a namespace's own name as the request's namespace.
            push(Permission::new("get", "", "namespaces", Some(&m.name)).named(&m.name));
            continue;
        }
        let ar = resource_for(&m.api_version, &m.kind);
        for verb in ["get", "list", "create", "patch"] {
            push(Permission::new(
                verb,
                &ar.group,
                &ar.plural,
                m.namespace.as_deref(),
            ));
        }
    }
    if let Some(ns) = manifests
        .iter()
        .find(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .and_then(|m| m.namespace.as_deref())
    {
        push(Permission::new("list", "", "pods", Some(ns)));
    }
    out
}

/// A Role or ClusterRole the install creates, with what it grants.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    /// `Role/name` or `ClusterRole/name`.
    pub role: String,
    pub name: String,
    /// `None` for a ClusterRole.
    pub namespace: Option<String>,
    pub permissions: Vec<Permission>,
}

impl Grant {
    /// `escalate` and `bind` on this role: together they let a user create
    /// and bind it without holding its rules.
    fn escalate_and_bind(&self) -> [Permission; 2] {
        let resource = if self.namespace.is_some() {
            "roles"
        } else {
            "clusterroles"
        };
        let ns = self.namespace.as_deref();
        [
            Permission::new("escalate", RBAC_GROUP, resource, ns).named(&self.name),
            Permission::new("bind", RBAC_GROUP, resource, ns).named(&self.name),
        ]
    }
}

/// Every rule of every rendered Role and ClusterRole, expanded to single
/// permissions. A ClusterRole's rules must be held cluster-wide (that is
/// what the API server compares against when it is created).
pub fn granted_permissions(manifests: &[Manifest]) -> Vec<Grant> {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    manifests
        .iter()
        .filter(|m| m.kind == "Role" || m.kind == "ClusterRole")
        .map(|m| {
            let namespace = if m.kind == "Role" {
                m.namespace.clone()
            } else {
                None
            };
            let mut permissions = Vec::new();
            let rules = m.object.get("rules").and_then(Value::as_array);
            // cf-runner's templates grant no nonResourceURLs, so rules without
            // resources contribute nothing here.
            for rule in rules.into_iter().flatten() {
                let names = strings(rule.get("resourceNames"));
                let names: Vec<Option<String>> = if names.is_empty() {
                    vec![None]
                } else {
                    names.into_iter().map(Some).collect()
                };
                for group in strings(rule.get("apiGroups")) {
                    for resource in strings(rule.get("resources")) {
                        for verb in strings(rule.get("verbs")) {
                            for name in &names {
                                let p = Permission {
                                    verb: verb.clone(),
                                    group: group.clone(),
                                    resource: resource.clone(),
                                    name: name.clone(),
                                    namespace: namespace.clone(),
                                };
                                if !permissions.contains(&p) {
                                    permissions.push(p);
                                }
                            }
                        }
                    }
                }
            }
            Grant {
                role: m.display_name(),
                name: m.name.clone(),
                namespace,
                permissions,
            }
        })
        .collect()
}

/// Every permission to ask the API server about, without repeats.
pub fn permissions_to_review(required: &[Permission], grants: &[Grant]) -> Vec<Permission> {
    let mut out: Vec<Permission> = Vec::new();
    let all = required.iter().cloned().chain(
        grants
            .iter()
            .flat_map(|g| g.permissions.iter().cloned().chain(g.escalate_and_bind())),
    );
    for p in all {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The permissions the user lacks, each with why it is needed, given the
/// API server's answers. A role's rules the user does not hold are missing
/// unless the user may both `escalate` and `bind` that role.
pub fn missing_permissions(
    required: &[Permission],
    grants: &[Grant],
    allowed: &HashMap<Permission, bool>,
) -> Vec<String> {
    let held = |p: &Permission| allowed.get(p).copied().unwrap_or(false);
    let mut out: Vec<String> = required
        .iter()
        .filter(|p| !held(p))
        .map(ToString::to_string)
        .collect();
    for grant in grants {
        let lacking: Vec<&Permission> = grant.permissions.iter().filter(|p| !held(p)).collect();
        if lacking.is_empty() || grant.escalate_and_bind().iter().all(held) {
            continue;
        }
        for p in lacking {
            let line = format!("{p} (granted by {})", grant.role);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

async fn review(client: &Client, p: &Permission) -> Result<bool, KubeError> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let ssar = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(p.verb.clone()),
                group: Some(p.group.clone()),
                resource: Some(p.resource.clone()),
                name: p.name.clone(),
                namespace: p.namespace.clone(),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = api
        .create(&PostParams::default(), &ssar)
        .await
        .map_err(|e| KubeError::from_kube("asking", "for a SelfSubjectAccessReview", e))?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

async fn check_permissions(
    client: &Client,
    manifests: &[Manifest],
    namespace: NamespaceState,
) -> Check {
    let required = install_permissions(manifests, namespace);
    let grants = granted_permissions(manifests);
    let to_review = permissions_to_review(&required, &grants);
    let answers: Vec<Result<bool, KubeError>> = stream::iter(to_review.iter())
        .map(|p| review(client, p))
        .buffered(REVIEW_CONCURRENCY)
        .collect()
        .await;
    let mut allowed = HashMap::new();
    for (p, answer) in to_review.iter().zip(answers) {
        match answer {
            Ok(yes) => {
                allowed.insert(p.clone(), yes);
            }
            Err(e) => {
                return Check::fail(
                    names::PERMISSIONS,
                    format!("could not review your permissions: {}", api_message(&e)),
                    e.hint().unwrap_or_else(|| {
                        "SelfSubjectAccessReview is open to every signed-in user; check the connection and re-run".into()
                    }),
                )
            }
        }
    }
    let missing = missing_permissions(&required, &grants, &allowed);
    if missing.is_empty() {
        let granted: usize = grants.iter().map(|g| g.permissions.len()).sum();
        return Check::pass(
            names::PERMISSIONS,
            format!(
                "you hold the {} permissions the install uses and the {granted} its roles grant",
                required.len()
            ),
        );
    }
    Check::fail(
        names::PERMISSIONS,
        format!(
            "your user lacks {} permission(s) the install needs",
            missing.len()
        ),
        "ask a cluster admin to grant them (RBAC lets you create a role only with rules you hold \
         yourself, or with `escalate` and `bind` on it), or use a kube context with more rights",
    )
    .with_details(missing)
}

// ---------------------------------------------------------------- dry-run

/// The reason a namespace that exists is left alone, if it is not ours.
fn foreign_namespace(live: &Value) -> bool {
    live.pointer("/metadata/labels")
        .and_then(|l| l.get(LABEL_MANAGED_BY))
        .and_then(Value::as_str)
        != Some("cf-runner")
}

async fn check_dry_run(
    client: &Client,
    manifests: &[Manifest],
    namespace: NamespaceState,
) -> Check {
    let mut targets: Vec<&Manifest> = manifests.iter().filter(|m| m.namespace.is_none()).collect();
    let mut notes = Vec::new();
    if namespace == NamespaceState::Foreign {
        if let Some(pos) = targets.iter().position(|m| m.kind == "Namespace") {
            notes.push(format!(
                "namespace {} exists and was not created by cf-runner; it is used as it is",
                targets[pos].name
            ));
            targets.remove(pos);
        }
    }
    let params = PatchParams::apply(FIELD_MANAGER)
        .dry_run()
        .validation(ValidationDirective::Strict);
    let results = futures::future::join_all(targets.iter().map(|m| {
        let api = api_for(client, &m.api_version, &m.kind, None);
        let params = params.clone();
        async move {
            api.patch(&m.name, &params, &Patch::Apply(&m.object))
                .await
                .map(|_| ())
                .map_err(|e| KubeError::from_kube("dry-running", &m.display_name(), e))
        }
    }))
    .await;
    let rendered_cluster_roles: Vec<&str> = manifests
        .iter()
        .filter(|m| m.kind == "ClusterRole")
        .map(|m| m.name.as_str())
        .collect();
    let mut rejected = Vec::new();
    let mut forbidden = false;
    let mut unauthorized = false;
    let mut unreachable = false;
    for (m, result) in targets.iter().zip(results) {
        let Err(e) = result else { continue };
        if m.kind == "ClusterRoleBinding"
            && binds_role_not_yet_created(m, &e, &rendered_cluster_roles)
        {
            notes.push(format!(
                "{} can only be fully checked once its ClusterRole exists",
                m.display_name()
            ));
            continue;
        }
        forbidden |= e.code() == Some(403);
        unauthorized |= e.code() == Some(401);
        unreachable |= e.code().is_none();
        rejected.push(format!("{}: {}", m.display_name(), api_message(&e)));
    }
    let checked = targets.len();
    if rejected.is_empty() {
        let mut reason = format!(
            "the API server accepts {} (server-side dry-run, strict validation)",
            targets
                .iter()
                .map(|m| m.display_name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if checked == 0 {
            reason = "no cluster-scoped object to check".into();
        }
        return Check::pass(names::DRY_RUN, reason).with_details(notes);
    }
    // Blame what happened: no answer, no valid credentials, no permission,
    // and only then the objects themselves.
    let fix = if unreachable {
        "the API server did not answer: check the server address in the kubeconfig, the network (VPN, HTTPS_PROXY/NO_PROXY) and the CA, then re-run"
    } else if unauthorized {
        "the cluster rejected your credentials (401): refresh them (e.g. re-run your cloud's get-credentials command), then re-run"
    } else if forbidden {
        "you may not create these objects: see the permissions check for what to ask a cluster admin for"
    } else {
        "another object or an admission policy rejects them: read the message, fix the cluster or the values, and re-run"
    };
    let reason = if unreachable {
        format!(
            "could not dry-run {} of {checked} cluster-scoped object(s): the API server did not answer",
            rejected.len()
        )
    } else if unauthorized {
        format!(
            "could not dry-run {} of {checked} cluster-scoped object(s): the credentials were rejected",
            rejected.len()
        )
    } else {
        format!(
            "the API server rejects {} of {checked} cluster-scoped object(s) (server-side dry-run)",
            rejected.len()
        )
    };
    rejected.extend(notes);
    Check::fail(names::DRY_RUN, reason, fix).with_details(rejected)
}

/// A ClusterRoleBinding to a ClusterRole the install also creates fails a
/// dry-run for a user without `bind`: the API server checks the binding
/// against the role's rules, and the role does not exist yet. It answers
/// NotFound (naming the binding, not the role). That says nothing about the
/// real apply, which creates the role first.
fn binds_role_not_yet_created(binding: &Manifest, err: &KubeError, rendered: &[&str]) -> bool {
    let Some(role) = binding
        .object
        .pointer("/roleRef/name")
        .and_then(Value::as_str)
    else {
        return false;
    };
    rendered.contains(&role) && (err.code() == Some(404) || api_message(err).contains("not found"))
}

// ------------------------------------------------------------------ nodes

/// What the node check needs to know about one node.
#[derive(Debug, Clone, Default)]
pub struct NodeInfo {
    pub name: String,
    pub allocatable_cpu: Option<String>,
    pub allocatable_memory: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub unschedulable: bool,
}

impl NodeInfo {
    /// True when the node is schedulable and has the CPU and memory.
    pub fn fits(&self) -> bool {
        let at_least = |q: &Option<String>, min: f64| {
            q.as_deref()
                .and_then(quantity_value)
                .is_some_and(|v| v >= min)
        };
        !self.unschedulable
            && at_least(&self.allocatable_cpu, MIN_NODE_CPU)
            && at_least(&self.allocatable_memory, MIN_NODE_MEMORY)
    }
}

/// Decides the node check. `selector` is the runner Deployment's node
/// selector: a node that fits but does not match it is no use to the runner.
pub fn node_capacity(nodes: &[NodeInfo], selector: &BTreeMap<String, String>) -> Check {
    let need = "500m CPU and 1Gi memory allocatable";
    let fitting: Vec<&NodeInfo> = nodes.iter().filter(|n| n.fits()).collect();
    if fitting.is_empty() {
        return Check::fail(
            names::NODES,
            if nodes.is_empty() {
                "the cluster has no nodes".to_string()
            } else {
                format!(
                    "none of the {} node(s) is schedulable with {need}",
                    nodes.len()
                )
            },
            "add a node (or a node pool) with at least 500m CPU and 1Gi memory, or uncordon one",
        );
    }
    if selector.is_empty() {
        return Check::pass(
            names::NODES,
            format!("{} of {} node(s) have {need}", fitting.len(), nodes.len()),
        );
    }
    let shown: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let shown = shown.join(",");
    let matching = fitting
        .iter()
        .filter(|n| selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)))
        .count();
    if matching == 0 {
        return Check::warn(
            names::NODES,
            format!(
                "{} node(s) have {need}, but none matches the runner's node selector {shown}",
                fitting.len()
            ),
            "label a node to match (kubectl label node NAME key=value) or change --kube-node-selector; \
             until then the runner stays Pending",
        );
    }
    Check::pass(
        names::NODES,
        format!("{matching} node(s) matching {shown} have {need}"),
    )
}

fn node_info(node: &Node) -> NodeInfo {
    let allocatable = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
    let get = |k: &str| allocatable.and_then(|a| a.get(k)).map(|q| q.0.clone());
    NodeInfo {
        name: node.metadata.name.clone().unwrap_or_default(),
        allocatable_cpu: get("cpu"),
        allocatable_memory: get("memory"),
        labels: node.metadata.labels.clone().unwrap_or_default(),
        unschedulable: node
            .spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false),
    }
}

/// Every component's node selector: the workloads rendered, and the build
/// pods (engine and dind) of the runtime environment.
pub fn component_selectors(
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
) -> Vec<(String, BTreeMap<String, String>)> {
    let as_map = |v: Option<&Value>| -> BTreeMap<String, String> {
        v.and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out: Vec<(String, BTreeMap<String, String>)> = manifests
        .iter()
        .filter(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .map(|m| {
            (
                m.display_name(),
                as_map(m.object.pointer("/spec/template/spec/nodeSelector")),
            )
        })
        .collect();
    if let Some(re) = runtime_environment {
        for (what, pointer) in [
            (
                "build engine pods",
                "/runtimeScheduler/cluster/nodeSelector",
            ),
            (
                "build dind pods",
                "/dockerDaemonScheduler/cluster/nodeSelector",
            ),
        ] {
            out.push((what.to_string(), as_map(re.pointer(pointer))));
        }
    }
    out
}

/// The components no schedulable node with room can take, each with its
/// selector: those would stay Pending for ever.
pub fn unschedulable(
    nodes: &[NodeInfo],
    components: &[(String, BTreeMap<String, String>)],
) -> Vec<String> {
    let fitting: Vec<&NodeInfo> = nodes.iter().filter(|n| n.fits()).collect();
    components
        .iter()
        .filter(|(_, selector)| !selector.is_empty())
        .filter(|(_, selector)| {
            !fitting
                .iter()
                .any(|n| selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)))
        })
        .map(|(component, selector)| {
            let shown: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!(
                "{component}: no schedulable node with 500m CPU and 1Gi memory matches {}",
                shown.join(",")
            )
        })
        .collect()
}

async fn check_nodes(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
) -> Check {
    let api: Api<Node> = Api::all(client.clone());
    let nodes = match api.list(&ListParams::default()).await {
        Ok(list) => list.items,
        Err(e) => {
            let err = KubeError::from_kube("listing", "nodes", e);
            let (reason, fix) = if err.code() == Some(403) {
                (
                    "your user may not list nodes, so their capacity was not checked".to_string(),
                    "make sure a node has 500m CPU and 1Gi memory allocatable, or ask for `list nodes` to have it checked",
                )
            } else {
                (
                    format!("could not list nodes: {}", api_message(&err)),
                    "make sure a node has 500m CPU and 1Gi memory allocatable",
                )
            };
            return Check::warn(names::NODES, reason, fix);
        }
    };
    let selector: BTreeMap<String, String> = manifests
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == "runner")
        .and_then(|m| m.object.pointer("/spec/template/spec/nodeSelector"))
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let infos: Vec<NodeInfo> = nodes.iter().map(node_info).collect();
    let capacity = node_capacity(&infos, &selector);
    if capacity.status == Status::Fail {
        return capacity;
    }
    let stuck = unschedulable(&infos, &component_selectors(manifests, runtime_environment));
    if stuck.is_empty() {
        return capacity;
    }
    Check::fail(
        names::NODES,
        format!(
            "{} component(s) could never be scheduled: no node matches their node selector",
            stuck.len()
        ),
        "label nodes to match (kubectl label node NAME key=value), or change the node selector \
         (--kube-node-selector, --build-node-selector, Storage.AvailabilityZone)",
    )
    .with_details(stuck)
}

// ------------------------------------------------------- existing install

/// Decides the existing-installation check.
/// What the cf-runtime Helm chart left in a namespace: its workloads
/// (`helm.sh/chart: cf-runtime-*`) and the release records of their releases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmInstall {
    /// `Kind/name (chart cf-runtime-x.y.z, release r)`.
    pub objects: Vec<String>,
    /// `Secret/sh.helm.release.v1.<release>.v<N>`.
    pub releases: Vec<String>,
}

pub fn existing_installation(
    namespace: &str,
    record: Option<&inventory::Record>,
    old: &[String],
    helm: &HelmInstall,
) -> Check {
    let mut details = Vec::new();
    let mut reasons = Vec::new();
    let mut fixes = Vec::new();
    if let Some(r) = record {
        let unknown = || "unknown".to_string();
        reasons.push(format!(
            "an installation exists (made by cf-runner {}, agent {}); init will update it in place",
            r.cf_runner_version.clone().unwrap_or_else(unknown),
            r.agent_name.clone().unwrap_or_else(unknown),
        ));
        if let Some(runtime) = &r.runtime_name {
            details.push(format!("runtime environment: {runtime}"));
        }
        fixes.push(
            "nothing to do to update it; to install a second runner, choose another --kube-namespace",
        );
    }
    // Another tool's runner: installing beside it would half-install over
    // its objects and run two runners on the same builds. Its objects are
    // never cf-runner's to take over (no --force-conflicts).
    let mut foreign = false;
    if !helm.objects.is_empty() || !helm.releases.is_empty() {
        foreign = true;
        reasons.push(format!(
            "a runner installed with the cf-runtime Helm chart is in namespace {namespace}"
        ));
        details.extend(helm.objects.iter().cloned());
        details.extend(helm.releases.iter().cloned());
        fixes.push(
            "keep managing it with Helm (`helm upgrade`), or remove it (`helm uninstall`) before \
             installing with cf-runner, or install into another --kube-namespace",
        );
    }
    if !old.is_empty() {
        foreign = true;
        reasons.push(format!(
            "a runner installed by an older installer (venonactl / codefresh runner init) is in namespace {namespace}"
        ));
        details.extend(old.iter().cloned());
        fixes.push(
            "remove the old runner first (`codefresh runner delete`, or kubectl delete the objects listed), \
             or install into another --kube-namespace: two runners would take the same builds",
        );
    }
    if reasons.is_empty() {
        return Check::pass(
            names::EXISTING,
            format!("no installation found in namespace {namespace}"),
        );
    }
    if foreign {
        return Check::fail(names::EXISTING, reasons.join("; "), fixes.join("; "))
            .with_details(details);
    }
    Check::warn(names::EXISTING, reasons.join("; "), fixes.join("; ")).with_details(details)
}

/// The chart label's value when it is the cf-runtime chart's.
fn cf_runtime_chart(labels: Option<&BTreeMap<String, String>>) -> Option<String> {
    labels?
        .get(HELM_CHART_LABEL)
        .filter(|c| c.starts_with("cf-runtime"))
        .cloned()
}

/// Looks for the cf-runtime Helm chart's workloads and release records.
async fn helm_install(client: &Client, namespace: &str) -> Result<HelmInstall, KubeError> {
    use k8s_openapi::api::core::v1::Secret;
    let charted = ListParams::default().labels(HELM_CHART_LABEL);
    let helm_owned = ListParams::default().labels("owner=helm");
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let (deployments, daemonsets, releases) = futures::join!(
        deployments.list_metadata(&charted),
        daemonsets.list_metadata(&charted),
        secrets.list_metadata(&helm_owned),
    );
    let mut found = HelmInstall::default();
    let mut release_names = std::collections::BTreeSet::new();
    let mut take = |kind: &str, meta: kube::core::ObjectMeta| {
        if let Some(chart) = cf_runtime_chart(meta.labels.as_ref()) {
            let release = meta
                .labels
                .as_ref()
                .and_then(|l| l.get("app.kubernetes.io/instance"))
                .cloned()
                .unwrap_or_default();
            found.objects.push(format!(
                "{kind}/{} (chart {chart}, release {release})",
                meta.name.unwrap_or_default()
            ));
            release_names.insert(release);
        }
    };
    let deployments = deployments.map_err(|e| KubeError::from_kube("listing", "Deployments", e))?;
    for d in deployments.items {
        take("Deployment", d.metadata);
    }
    let daemonsets = daemonsets.map_err(|e| KubeError::from_kube("listing", "DaemonSets", e))?;
    for d in daemonsets.items {
        take("DaemonSet", d.metadata);
    }
    // Release records are Secrets: without the right to list them, the
    // workloads' labels still tell.
    if let Ok(list) = releases {
        for s in list.items {
            let release = s
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("name"))
                .cloned()
                .unwrap_or_default();
            let named_runtime = release_names.contains(&release)
                || s.metadata
                    .name
                    .as_deref()
                    .is_some_and(|n| n.contains("cf-runtime"));
            if named_runtime {
                found.releases.push(format!(
                    "Secret/{} (Helm release {release})",
                    s.metadata.name.unwrap_or_default()
                ));
            }
        }
    }
    Ok(found)
}

async fn check_existing(client: &Client, namespace: &str) -> Check {
    let old_selector = format!(
        "app in ({}),{LABEL_MANAGED_BY}!=cf-runner,{LABEL_MANAGED_BY}!=Helm",
        OLD_INSTALLER_APPS.join(",")
    );
    let lp = ListParams::default().labels(&old_selector);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    let (record, deployments, daemonsets, helm) = futures::join!(
        inventory::record(client, namespace),
        deployments.list_metadata(&lp),
        daemonsets.list_metadata(&lp),
        helm_install(client, namespace),
    );
    let unreadable = |what: &str, err: KubeError| {
        let reason = if err.code() == Some(403) {
            format!(
                "your user may not read {what} in namespace {namespace}, so an installation there could not be looked for"
            )
        } else {
            format!(
                "could not look for an installation in namespace {namespace}: {}",
                api_message(&err)
            )
        };
        Check::warn(
            names::EXISTING,
            reason,
            "if a runner is installed there already, init updates it in place; to have it checked, \
             ask for get on secrets and list on deployments and daemonsets in the namespace",
        )
    };
    let record = match record {
        Ok(r) => r,
        Err(e) => return unreadable(&format!("Secret/{RECORD_SECRET}"), e),
    };
    let names_of = |kind: &str, names: Vec<Option<String>>| -> Vec<String> {
        names
            .into_iter()
            .flatten()
            .map(|n| format!("{kind}/{n}"))
            .collect()
    };
    let mut old = match deployments {
        Ok(list) => names_of(
            "Deployment",
            list.items.into_iter().map(|o| o.metadata.name).collect(),
        ),
        Err(e) => {
            return unreadable(
                "Deployments",
                KubeError::from_kube("reading", "Deployments", e),
            )
        }
    };
    match daemonsets {
        Ok(list) => old.extend(names_of(
            "DaemonSet",
            list.items.into_iter().map(|o| o.metadata.name).collect(),
        )),
        Err(e) => {
            return unreadable(
                "DaemonSets",
                KubeError::from_kube("reading", "DaemonSets", e),
            )
        }
    }
    let helm = match helm {
        Ok(h) => h,
        Err(e) => return unreadable("Deployments and DaemonSets", e),
    };
    existing_installation(namespace, record.as_ref(), &old, &helm)
}

// ----------------------------------------------------------------- errors

/// The API server's message, or the error chain when it did not answer.
fn api_message(err: &KubeError) -> String {
    match err {
        KubeError::Api { message, .. } => message.clone(),
        other => error_chain(other),
    }
}

fn error_chain(err: &KubeError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Component;
    use serde_json::json;

    fn manifest(
        api_version: &str,
        kind: &str,
        name: &str,
        ns: Option<&str>,
        object: Value,
    ) -> Manifest {
        Manifest {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            namespace: ns.map(str::to_string),
            component: Component::Runner,
            stage: 1,
            object,
        }
    }

    #[test]
    fn versions_below_1_25_fail_above_tested_warn() {
        assert_eq!(version_check("1", "24", "v1.24.17").status, Status::Fail);
        assert_eq!(version_check("1", "25", "v1.25.0").status, Status::Pass);
        assert_eq!(
            version_check("1", "28+", "v1.28.3-eks").status,
            Status::Pass
        );
        assert_eq!(version_check("1", "37", "").status, Status::Pass);
        let newer = version_check("1", "38", "v1.38.0");
        assert_eq!(newer.status, Status::Warn);
        assert!(
            newer.reason.contains("newer than tested"),
            "{}",
            newer.reason
        );
        assert_eq!(version_check("", "", "").status, Status::Warn);
        let old = version_check("1", "22", "v1.22.0");
        assert!(old.reason.contains("v1.22.0") && old.fix.is_some());
    }

    fn node(cpu: &str, memory: &str) -> NodeInfo {
        NodeInfo {
            name: "n".into(),
            allocatable_cpu: Some(cpu.into()),
            allocatable_memory: Some(memory.into()),
            ..Default::default()
        }
    }

    #[test]
    fn node_capacity_parses_quantities() {
        assert!(node("500m", "1Gi").fits());
        assert!(node("4", "16Gi").fits());
        assert!(node("0.5", "1073741824").fits());
        assert!(node("1", "1100M").fits());
        assert!(!node("499m", "8Gi").fits());
        assert!(!node("2", "1000Mi").fits());
        assert!(!node("2", "1G").fits(), "1G is less than 1Gi");
        assert!(!node("garbage", "8Gi").fits());
        let cordoned = NodeInfo {
            unschedulable: true,
            ..node("8", "32Gi")
        };
        assert!(!cordoned.fits());
    }

    #[test]
    fn node_check_fails_without_capacity_and_warns_on_an_unmatched_selector() {
        let none = BTreeMap::new();
        assert_eq!(node_capacity(&[], &none).status, Status::Fail);
        assert_eq!(
            node_capacity(&[node("250m", "512Mi")], &none).status,
            Status::Fail
        );
        assert_eq!(
            node_capacity(&[node("250m", "512Mi"), node("1", "2Gi")], &none).status,
            Status::Pass
        );
        let selector = BTreeMap::from([("pool".to_string(), "ci".to_string())]);
        let unmatched = node_capacity(&[node("1", "2Gi")], &selector);
        assert_eq!(unmatched.status, Status::Warn);
        assert!(unmatched.reason.contains("pool=ci"), "{}", unmatched.reason);
        let labelled = NodeInfo {
            labels: selector.clone(),
            ..node("1", "2Gi")
        };
        assert_eq!(node_capacity(&[labelled], &selector).status, Status::Pass);
    }

    #[test]
    fn permissions_read_like_an_admin_would_grant_them() {
        let p = Permission::new("create", "apps", "deployments", Some("ci"));
        assert_eq!(p.to_string(), "create deployments (apps) in namespace ci");
        let p = Permission::new("create", RBAC_GROUP, "clusterroles", None);
        assert_eq!(
            p.to_string(),
            "create clusterroles (rbac.authorization.k8s.io) cluster-wide"
        );
        let p = Permission::new("get", "", "secrets", Some("ci")).named("x");
        assert_eq!(p.to_string(), "get secrets/x in namespace ci");
    }

    fn sample() -> Vec<Manifest> {
        vec![
            manifest("v1", "Namespace", "ci", None, json!({})),
            manifest("apps/v1", "Deployment", "runner", Some("ci"), json!({})),
            manifest(
                "rbac.authorization.k8s.io/v1",
                "Role",
                "runner",
                Some("ci"),
                json!({"rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"], "verbs": ["get", "create"]}]}),
            ),
            manifest(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "prov-ci",
                None,
                json!({"rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}]}),
            ),
        ]
    }

    #[test]
    fn the_install_needs_get_list_create_patch_on_every_object() {
        let required = install_permissions(&sample(), NamespaceState::Missing);
        let shown: Vec<String> = required.iter().map(ToString::to_string).collect();
        for line in [
            "create namespaces cluster-wide",
            "patch namespaces cluster-wide",
            "get deployments (apps) in namespace ci",
            "list deployments (apps) in namespace ci",
            "create roles (rbac.authorization.k8s.io) in namespace ci",
            "create clusterroles (rbac.authorization.k8s.io) cluster-wide",
            "list pods in namespace ci",
        ] {
            assert!(
                shown.contains(&line.to_string()),
                "{line} not in {shown:#?}"
            );
        }
        assert_eq!(shown.len(), 4 * 4 + 1, "no repeats: {shown:#?}");
    }

    #[test]
    fn a_namespace_made_by_someone_else_is_only_read() {
        let required = install_permissions(&sample(), NamespaceState::Foreign);
        let shown: Vec<String> = required.iter().map(ToString::to_string).collect();
        assert!(
            shown.contains(&"get namespaces/ci in namespace ci".to_string()),
            "{shown:#?}"
        );
        assert!(
            !shown.iter().any(|l| l.contains("namespaces cluster-wide")),
            "{shown:#?}"
        );
        assert_eq!(shown.len(), 3 * 4 + 1 + 1);
    }

    #[test]
    fn role_rules_are_expanded_in_their_scope() {
        let grants = granted_permissions(&sample());
        assert_eq!(grants.len(), 2);
        assert_eq!(grants[0].role, "Role/runner");
        assert_eq!(grants[0].permissions.len(), 4);
        assert!(grants[0].permissions.contains(&Permission::new(
            "create",
            "",
            "persistentvolumeclaims",
            Some("ci")
        )));
        assert_eq!(
            grants[1].permissions,
            vec![Permission::new("list", "", "nodes", None)]
        );
    }

    #[test]
    fn missing_rules_are_forgiven_only_with_escalate_and_bind() {
        let manifests = sample();
        let required = install_permissions(&manifests, NamespaceState::Missing);
        let grants = granted_permissions(&manifests);
        let all = permissions_to_review(&required, &grants);
        // Everything but the ClusterRole's rule.
        let mut allowed: HashMap<Permission, bool> =
            all.iter().map(|p| (p.clone(), true)).collect();
        let nodes = Permission::new("list", "", "nodes", None);
        allowed.insert(nodes.clone(), false);
        let [escalate, bind] = grants[1].escalate_and_bind();
        allowed.insert(bind.clone(), false);
        let missing = missing_permissions(&required, &grants, &allowed);
        assert_eq!(
            missing,
            vec!["list nodes cluster-wide (granted by ClusterRole/prov-ci)".to_string()]
        );
        allowed.insert(bind, true);
        assert!(missing_permissions(&required, &grants, &allowed).is_empty());
        allowed.insert(escalate, false);
        assert_eq!(missing_permissions(&required, &grants, &allowed).len(), 1);

        // No rights at all: every required permission is named, in order.
        let none = HashMap::new();
        let missing = missing_permissions(&required, &grants, &none);
        assert_eq!(missing[0], "get namespaces cluster-wide");
        assert_eq!(missing.len(), required.len() + 4 + 1);
    }

    #[test]
    fn an_existing_installation_is_named() {
        let record = inventory::Record {
            cf_runner_version: Some("0.1.0".into()),
            agent_name: Some("ctx_ci".into()),
            runtime_name: Some("ctx/ci".into()),
            ..Default::default()
        };
        let none = HelmInstall::default();
        let c = existing_installation("ci", Some(&record), &[], &none);
        assert_eq!(c.status, Status::Warn);
        assert!(
            c.reason.contains("made by cf-runner 0.1.0, agent ctx_ci"),
            "{}",
            c.reason
        );
        // Another tool's runner stops the install, naming what is there.
        let c = existing_installation("ci", None, &["Deployment/venona".into()], &none);
        assert_eq!(c.status, Status::Fail);
        assert_eq!(c.details, vec!["Deployment/venona".to_string()]);
        assert_eq!(
            existing_installation("ci", None, &[], &none).status,
            Status::Pass
        );
    }

    #[test]
    fn a_component_pinned_where_no_node_is_cannot_be_scheduled() {
        let mut in_zone = node("2", "4Gi");
        in_zone
            .labels
            .insert("topology.kubernetes.io/zone".into(), "us-east-1a".into());
        let pinned = |zone: &str| {
            BTreeMap::from([("topology.kubernetes.io/zone".to_string(), zone.to_string())])
        };
        let components = vec![
            ("Deployment/runner".to_string(), BTreeMap::new()),
            ("build dind pods".to_string(), pinned("us-east-1b")),
            (
                "DaemonSet/dind-lv-monitor".to_string(),
                pinned("us-east-1a"),
            ),
        ];
        assert_eq!(
            unschedulable(&[in_zone], &components),
            vec![
                "build dind pods: no schedulable node with 500m CPU and 1Gi memory matches \
                 topology.kubernetes.io/zone=us-east-1b"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_helm_installed_runner_stops_the_install_without_force_conflicts() {
        let helm = HelmInstall {
            objects: vec![
                "Deployment/cf-runtime-runner (chart cf-runtime-10.5.2, release cf-runtime)".into(),
            ],
            releases: vec![
                "Secret/sh.helm.release.v1.cf-runtime.v1 (Helm release cf-runtime)".into(),
            ],
        };
        let c = existing_installation("ci", None, &[], &helm);
        assert_eq!(c.status, Status::Fail);
        assert!(c.reason.contains("cf-runtime Helm chart"), "{}", c.reason);
        assert_eq!(c.details.len(), 2);
        let fix = c.fix.unwrap();
        assert!(fix.contains("helm uninstall"), "{fix}");
        assert!(!fix.contains("force-conflicts"), "{fix}");
    }

    #[test]
    fn a_namespace_is_foreign_unless_labelled_ours() {
        assert!(foreign_namespace(&json!({"metadata": {"name": "x"}})));
        assert!(!foreign_namespace(
            &json!({"metadata": {"labels": {LABEL_MANAGED_BY: "cf-runner"}}})
        ));
    }
}

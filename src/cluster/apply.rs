//! Server-side apply of rendered manifests, in stages (namespace and
//! StorageClass → RBAC, config, secrets → workloads), concurrently within a
//! stage, with one field manager.
//!
//! Re-running with the same values must change nothing and write nothing:
//! each object carries a hash of what cf-runner last applied, and an object
//! whose hash matches and whose live fields still hold every value we set is
//! left alone ("unchanged") — no PATCH is sent. Anything else (new, changed,
//! drifted) gets exactly one PATCH.

use std::collections::{BTreeMap, HashMap};

use base64::Engine;
use futures::future::join_all;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, ValidationDirective};
use kube::Client;
use serde_json::{Map, Value};

pub use super::marks::{
    applied_hash, with_hash, ADOPTED_ANNOTATION, APPLIED_HASH_ANNOTATION, RESTARTED_AT_ANNOTATION,
    RESTART_FIELD_MANAGER,
};
use super::{api_for, request, KubeError, FIELD_MANAGER};
use crate::render::{Manifest, LABEL_INSTANCE, LABEL_MANAGED_BY};

/// What happened to one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Created,
    Configured,
    Unchanged,
    /// Left alone on purpose, with the reason (e.g. a namespace cf-runner did not create).
    Skipped(String),
}

impl Change {
    /// The word shown to the user.
    pub fn word(&self) -> &str {
        match self {
            Change::Created => "created",
            Change::Configured => "configured",
            Change::Unchanged => "unchanged",
            Change::Skipped(_) => "skipped",
        }
    }
}

/// One object's outcome.
#[derive(Debug, Clone)]
pub struct Applied {
    /// `Kind/name`.
    pub object: String,
    pub namespace: Option<String>,
    pub change: Change,
    /// For a configured object: the first field path where the live object
    /// differed from the render (shown with `CF_RUNNER_DEBUG_APPLY`).
    pub differs_at: Option<String>,
    /// The object's uid as the API server gave it (created, configured or
    /// found unchanged): what the ledger records (`ownership::record`).
    pub uid: Option<String>,
}

/// Why an object could not be applied.
#[derive(Debug)]
pub enum FailureCause {
    /// Fields owned by another field manager (field path, owner).
    Conflict(Vec<(String, String)>),
    /// RBAC denied the request.
    Forbidden { verb: String, message: String },
    /// Anything else: validation, transport, ...
    Other(KubeError),
}

/// One object that failed.
#[derive(Debug)]
pub struct Failure {
    pub object: String,
    pub namespace: Option<String>,
    pub cause: FailureCause,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = match &self.namespace {
            Some(ns) => format!("{} in namespace {ns}", self.object),
            None => self.object.clone(),
        };
        match &self.cause {
            FailureCause::Conflict(fields) => {
                write!(f, "{at}: fields owned by another manager:")?;
                for (field, owner) in fields {
                    write!(f, " {field} (owned by {owner:?})")?;
                }
                Ok(())
            }
            FailureCause::Forbidden { verb, message } => {
                write!(f, "{at}: forbidden to {verb}: {message}")
            }
            FailureCause::Other(e) => write!(f, "{at}: {}", e.chain_text()),
        }
    }
}

/// The outcome of a whole apply.
#[derive(Debug, Default)]
pub struct Report {
    pub applied: Vec<Applied>,
    pub failed: Vec<Failure>,
    /// Objects of later stages, not attempted because an earlier one failed.
    pub not_attempted: Vec<String>,
    /// Objects the apply would write that exist and are not cf-runner's
    /// (`ownership`): when there is any, nothing is written at all.
    pub foreign: Vec<super::ownership::Collision>,
    /// What the user should know although the apply went through (the
    /// ledger could not be recorded: the user may not patch namespaces).
    pub warnings: Vec<String>,
}

impl Report {
    /// True when every object was applied (or left unchanged).
    pub fn ok(&self) -> bool {
        self.failed.is_empty() && self.not_attempted.is_empty() && self.foreign.is_empty()
    }
    /// How many objects had each kind of change.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for a in &self.applied {
            *out.entry(a.change.word().to_string()).or_insert(0) += 1;
        }
        out
    }
}

/// Options of an apply.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Take over fields owned by another manager (`--force-conflicts`), in
    /// objects that are cf-runner's; never an object someone else made.
    pub force_conflicts: bool,
}

/// The path of the first value of `want` that `live` does not hold, if any
/// (`None`: the object is unchanged). Extra live fields, such as server
/// defaults and status, are fine; empty maps and lists match absent fields;
/// quantities match by value (`1000m` = `1`). Shown with
/// `CF_RUNNER_DEBUG_APPLY` to explain why an object is re-applied.
pub fn first_difference(live: &Value, want: &Value) -> Option<String> {
    match want {
        Value::Object(w) => w.iter().find_map(|(k, wv)| match live.get(k) {
            Some(lv) => first_difference(lv, wv).map(|p| format!(".{k}{p}")),
            None if is_empty(wv) => None,
            None => Some(format!(".{k} (missing)")),
        }),
        Value::Array(w) => match live.as_array() {
            Some(l) if l.len() == w.len() => l
                .iter()
                .zip(w)
                .enumerate()
                .find_map(|(i, (lv, wv))| first_difference(lv, wv).map(|p| format!("[{i}]{p}"))),
            None if w.is_empty() && live.is_null() => None,
            _ => Some(" (list length)".into()),
        },
        Value::String(ws) => {
            let same = match live {
                Value::String(ls) => ls == ws || same_quantity(ls, ws),
                Value::Number(n) => n.to_string() == *ws,
                _ => false,
            };
            (!same).then(|| format!(" ({live} != {want})"))
        }
        Value::Null => (!live.is_null()).then(|| " (should be absent)".into()),
        other => (live != other).then(|| format!(" ({live} != {other})")),
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.values().all(is_empty),
        Value::Array(a) => a.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

fn same_quantity(a: &str, b: &str) -> bool {
    use crate::values::quantity_value;
    match (quantity_value(a), quantity_value(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= f64::EPSILON * x.abs().max(1.0),
        _ => false,
    }
}

/// What a LIST returns for the object: items carry no `apiVersion`/`kind`,
/// and a Secret's `stringData` is stored as base64 `data`.
fn as_stored(manifest: &Manifest, object: &Value) -> Value {
    let mut out = object.clone();
    if let Some(map) = out.as_object_mut() {
        map.remove("apiVersion");
        map.remove("kind");
    }
    if manifest.kind != "Secret" {
        return out;
    }
    if let Some(map) = out.as_object_mut() {
        if let Some(Value::Object(string_data)) = map.remove("stringData") {
            let data = map
                .entry("data")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(data) = data.as_object_mut() {
                for (k, v) in string_data {
                    let text = v.as_str().unwrap_or_default();
                    data.insert(
                        k,
                        Value::String(base64::engine::general_purpose::STANDARD.encode(text)),
                    );
                }
            }
        }
    }
    out
}

type Key = (String, String, Option<String>);

fn key_of(m: &Manifest) -> Key {
    (m.api_version.clone(), m.kind.clone(), m.namespace.clone())
}

/// Lists what already exists with our labels, one LIST per kind and namespace.
async fn inventory(
    client: &Client,
    manifests: &[&Manifest],
    instance: &str,
) -> Result<HashMap<(Key, String), DynamicObject>, Failure> {
    let mut keys: Vec<Key> = manifests.iter().map(|m| key_of(m)).collect();
    keys.sort();
    keys.dedup();
    let selector = format!("{LABEL_MANAGED_BY}=cf-runner,{LABEL_INSTANCE}={instance}");
    let lists = join_all(keys.iter().map(|(api_version, kind, ns)| {
        let api = api_for(client, api_version, kind, ns.as_deref());
        let lp = ListParams::default().labels(&selector);
        let kind = kind.clone();
        async move { request("listing", &kind, api.list(&lp)).await }
    }))
    .await;
    let mut out = HashMap::new();
    for (key, result) in keys.into_iter().zip(lists) {
        let list = result.map_err(|e| Failure {
            object: format!("{} (list)", key.1),
            namespace: key.2.clone(),
            cause: classify(e, "list"),
        })?;
        for item in list.items {
            if let Some(name) = item.metadata.name.clone() {
                out.insert((key.clone(), name), item);
            }
        }
    }
    Ok(out)
}

/// Turns an API error into a failure cause a user can act on.
fn classify(err: KubeError, verb: &str) -> FailureCause {
    match &err {
        KubeError::Api {
            code: 409, message, ..
        } => {
            let fields = parse_conflicts(message);
            if fields.is_empty() {
                FailureCause::Other(err)
            } else {
                FailureCause::Conflict(fields)
            }
        }
        KubeError::Api {
            code: 403, message, ..
        } => FailureCause::Forbidden {
            verb: verb.to_string(),
            message: message.clone(),
        },
        _ => FailureCause::Other(err),
    }
}

/// Parses the API server's conflict message: `conflict with "manager" using
/// v1: .spec.replicas` or, for several, a manager line followed by `- .path`
/// lines.
pub fn parse_conflicts(message: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut owner = String::new();
    for line in message.lines() {
        let line = line.trim();
        if let Some(start) = line
            .find("conflict with \"")
            .or(line.find("conflicts with \""))
        {
            let rest = &line[start..];
            let quoted = rest.split('"').nth(1).unwrap_or("").to_string();
            owner = quoted;
            if let Some(idx) = rest.rfind(": .") {
                out.push((rest[idx + 2..].trim().to_string(), owner.clone()));
            }
        } else if let Some(path) = line.strip_prefix("- ") {
            if path.starts_with('.') {
                out.push((path.to_string(), owner.clone()));
            }
        }
    }
    out
}

/// Applies every manifest. `on_applied` is called as each object is done,
/// for live progress.
///
/// First one round of reads, side by side: the namespace (one that exists
/// and is not ours is used, never adopted), what carries our labels (an
/// object whose live fields already hold the render is left alone), and
/// every object to write (none may be someone else's: then nothing is
/// written at all). Then each object is applied as soon as what it needs
/// is in place (`dependencies`), not stage by stage: a failed object
/// stops what waits for it, and workloads are never started when anything
/// of an earlier stage (RBAC, config, secrets) failed.
pub async fn apply_all(
    client: &Client,
    manifests: &[Manifest],
    instance: &str,
    options: Options,
    on_applied: &(dyn Fn(&Applied) + Sync),
) -> Report {
    let nothing = async { Ok::<_, std::convert::Infallible>(Vec::new()) };
    match apply_all_after(client, manifests, instance, options, on_applied, nothing).await {
        Ok(report) => report,
        Err(never) => match never {},
    }
}

/// [`apply_all`], with something the caller must learn before the first
/// write (`first`) sent side by side with the apply's own read round, not
/// before it: one round trip fewer. `first` gives the manifests it changed
/// (the same kind and name as one given: only their content may differ),
/// which are written instead of those. When `first` fails, nothing is
/// written and its error is given.
pub async fn apply_all_after<E>(
    client: &Client,
    manifests: &[Manifest],
    instance: &str,
    options: Options,
    on_applied: &(dyn Fn(&Applied) + Sync),
    first: impl std::future::Future<Output = Result<Vec<Manifest>, E>>,
) -> Result<Report, E> {
    let changed: Vec<Manifest>;
    let mut report = Report::default();
    let mut manifests: Vec<&Manifest> = manifests.iter().collect();
    let namespace = manifests.iter().copied().find(|m| m.kind == "Namespace");

    let read_namespace = async {
        match namespace {
            Some(ns) => {
                let api = api_for(client, "v1", "Namespace", None);
                Some(request("reading", &ns.display_name(), api.get_opt(&ns.name)).await)
            }
            None => None,
        }
    };
    // The Namespace is not listed: its GET says all there is, and a user
    // who may not list namespaces (a namespace admin) installs all the same.
    let namespaced: Vec<&Manifest> = manifests
        .iter()
        .copied()
        .filter(|m| m.kind != "Namespace")
        .collect();
    // The ledger (`ownership`) is on the installation's Namespace: read by
    // the GET above when the Namespace is applied too, else on its own.
    let holds_ledger = namespace.is_some_and(|ns| ns.name == instance);
    let read_ledger = async {
        match holds_ledger {
            true => None,
            false => Some(super::ownership::Ledger::read(client, instance).await),
        }
    };
    let (namespace_read, inventoried, existing, ledger_read, may_bind, learned) = futures::join!(
        read_namespace,
        inventory(client, &namespaced, instance),
        super::ownership::existing(client, &manifests),
        read_ledger,
        bind_rights(client, &manifests),
        first,
    );
    changed = learned?;
    let ledger = match (ledger_read, &namespace_read) {
        (Some(read), _) => read,
        (None, Some(Ok(live))) => Ok(live
            .as_ref()
            .map(|l| {
                super::ownership::Ledger::of_namespace(&serde_json::to_value(l).unwrap_or_default())
            })
            .unwrap_or_default()),
        // The Namespace's GET failed: said below.
        (None, _) => Ok(super::ownership::Ledger::Absent),
    };

    // A namespace that exists but is not ours is used, never adopted: taking
    // it over would let `delete` remove something we did not create.
    let mut namespace_exists = namespace.is_none();
    let mut namespace_live = None;
    if let (Some(ns), Some(read)) = (namespace, namespace_read) {
        match read {
            Ok(Some(live)) => {
                namespace_exists = true;
                let labels = live.metadata.labels.clone().unwrap_or_default();
                if labels.get(LABEL_MANAGED_BY).map(String::as_str) == Some("cf-runner")
                    && labels.get(LABEL_INSTANCE).map(String::as_str) == Some(instance)
                {
                    namespace_live = Some(((key_of(ns), ns.name.clone()), live.clone()));
                }
                if !super::namespace_is_ours(&live) {
                    let applied = Applied {
                        object: ns.display_name(),
                        namespace: None,
                        change: Change::Skipped(
                            "exists, created by someone else; left as it is".into(),
                        ),
                        differs_at: None,
                        uid: None,
                    };
                    on_applied(&applied);
                    report.applied.push(applied);
                    manifests.retain(|m| !std::ptr::eq(*m, ns));
                }
            }
            Ok(None) => {}
            Err(e) => {
                report.failed.push(Failure {
                    object: ns.display_name(),
                    namespace: None,
                    cause: classify(e, "get"),
                });
                report.not_attempted = manifests.iter().map(|m| m.display_name()).collect();
                return Ok(report);
            }
        }
    }

    let mut live = match inventoried {
        Ok(l) => l,
        Err(f) => {
            report.failed.push(f);
            report.not_attempted = manifests.iter().map(|m| m.display_name()).collect();
            return Ok(report);
        }
    };

    // What the labelled LIST of namespaces would have given.
    live.extend(namespace_live);

    // Before the first write: every object that exists must be cf-runner's.
    let foreign = ledger.and_then(|ledger| {
        let found = existing?.collisions(instance, &ledger);
        Ok((found, ledger))
    });
    let ledger = match foreign {
        Ok((foreign, ledger)) if foreign.is_empty() => ledger,
        Ok((foreign, _)) => {
            report.foreign = foreign;
            report.not_attempted = manifests.iter().map(|m| m.display_name()).collect();
            return Ok(report);
        }
        Err(e) => {
            report.failed.push(Failure {
                object: "the objects to apply (reading them first)".into(),
                namespace: None,
                cause: classify(e, "get"),
            });
            report.not_attempted = manifests.iter().map(|m| m.display_name()).collect();
            return Ok(report);
        }
    };

    // What `first` learned, in place of what it changed.
    for m in manifests.iter_mut() {
        if let Some(c) = changed
            .iter()
            .find(|c| c.kind == m.kind && c.name == m.name && c.namespace == m.namespace)
        {
            *m = c;
        }
    }
    let params = {
        let p = PatchParams::apply(FIELD_MANAGER).validation(ValidationDirective::Strict);
        if options.force_conflicts {
            p.force()
        } else {
            p
        }
    };
    let waits_for = dependencies(&manifests, namespace_exists, &|m| {
        role_scope(m).is_some_and(|scope| may_bind.contains(&scope))
    });
    let mut outcome: Vec<Option<Result<Applied, Failure>>> =
        manifests.iter().map(|_| None).collect();
    let mut started = vec![false; manifests.len()];
    let mut skipped = vec![false; manifests.len()];
    let mut running = futures::stream::FuturesUnordered::new();
    loop {
        // What waits for a failed or skipped object is skipped in turn.
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..manifests.len() {
                if started[i] || skipped[i] {
                    continue;
                }
                let blocked = waits_for[i]
                    .iter()
                    .any(|&j| skipped[j] || matches!(outcome[j], Some(Err(_))));
                if blocked {
                    skipped[i] = true;
                    changed = true;
                }
            }
        }
        for i in 0..manifests.len() {
            let ready = waits_for[i]
                .iter()
                .all(|&j| matches!(outcome[j], Some(Ok(_))));
            if !started[i] && !skipped[i] && ready {
                started[i] = true;
                let m = manifests[i];
                let existing = live.get(&(key_of(m), m.name.clone()));
                let params = &params;
                running.push(async move {
                    (i, apply_one(client, m, existing, params, on_applied).await)
                });
            }
        }
        match futures::StreamExt::next(&mut running).await {
            Some((i, result)) => outcome[i] = Some(result),
            None => break,
        }
    }
    for (i, result) in outcome.into_iter().enumerate() {
        match result {
            Some(Ok(a)) => report.applied.push(a),
            Some(Err(f)) => report.failed.push(f),
            None => report.not_attempted.push(manifests[i].display_name()),
        }
    }
    // Whatever was applied, even when something else failed, is recorded:
    // an object cf-runner made and did not record is not its to delete.
    // A namespace admin may not patch namespaces: the install works as it
    // did before the ledger, and says what that leaves open.
    match record_applied(client, instance, &ledger, &report.applied).await {
        Ok(()) => {}
        Err(e) if e.code() == Some(403) => report.warnings.push(format!(
            "what cf-runner created was not recorded in its ledger on Namespace/{instance} (your user may \
             not patch namespaces, or list a kind cluster-wide: {}): until someone who may runs \
             `cf-runner upgrade --kube-namespace {instance}`, `delete` and `upgrade` judge these objects \
             by their labels and managedFields, which anyone who may patch them can forge",
            e.chain_text()
        )),
        Err(e) => report.failed.push(Failure {
            object: format!("Namespace/{instance} (cf-runner's ledger of what it created)"),
            namespace: None,
            cause: classify(e, "patch"),
        }),
    }
    Ok(report)
}

/// Records in the ledger of `instance` (`ownership::record`) the objects
/// an apply wrote or found as wanted, the Namespace that holds the ledger
/// included (`delete --delete-namespace` asks the same rule). Where no
/// ledger was kept yet, the first one holds, besides, every object of the
/// installation the marks call cf-runner's: trust on first use, so that an
/// installation of an earlier version keeps all its objects, not only
/// those this apply wrote (one LIST per kind, once). A namespace this
/// apply created held nothing before: then what it wrote is all there is.
async fn record_applied(
    client: &Client,
    instance: &str,
    ledger: &super::ownership::Ledger,
    applied: &[Applied],
) -> Result<(), KubeError> {
    let mut uids: std::collections::BTreeSet<String> =
        applied.iter().filter_map(|a| a.uid.clone()).collect();
    // All there already: not even a read (a re-run writes nothing).
    if uids.is_empty() || uids.is_subset(&ledger.uids()) {
        return Ok(());
    }
    let namespace_new = applied
        .iter()
        .any(|a| a.object == format!("Namespace/{instance}") && a.change == Change::Created);
    if ledger.is_absent() && !namespace_new {
        uids.extend(super::ownership::trusted_on_first_use(client, instance).await?);
    }
    super::ownership::record(client, instance, ledger, &uids).await?;
    Ok(())
}

/// What each object waits for before it is applied (indices into
/// `manifests`), from what Kubernetes itself needs and one promise:
/// - an object in a namespace, for that Namespace when it does not exist
///   yet (`namespace_exists` false);
/// - a binding, for the Role or ClusterRole it grants, when that is applied
///   too ([`needs_peers_first`]), unless `may_bind` says the user may
///   `bind` that role: the API server then takes the binding without
///   looking the role up;
/// - a ServiceAccount token Secret, for its ServiceAccount;
/// - a workload (stage 2 and later), for every object of an earlier stage
///   but ServiceAccount token Secrets (no pod of the install mounts one):
///   workloads are not started without their RBAC, config and secrets.
fn dependencies(
    manifests: &[&Manifest],
    namespace_exists: bool,
    may_bind: &dyn Fn(&Manifest) -> bool,
) -> Vec<Vec<usize>> {
    let text = |m: &Manifest, pointer: &str| {
        m.object
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    manifests
        .iter()
        .map(|m| {
            let role = (m.kind.ends_with("Binding") && !may_bind(m))
                .then(|| (text(m, "/roleRef/kind"), text(m, "/roleRef/name")));
            let account = (needs_peers_first(m) && m.kind == "Secret")
                .then(|| {
                    text(
                        m,
                        "/metadata/annotations/kubernetes.io~1service-account.name",
                    )
                })
                .flatten();
            manifests
                .iter()
                .enumerate()
                .filter(|(_, other)| {
                    let namespace = !namespace_exists
                        && other.kind == "Namespace"
                        && m.namespace.as_deref() == Some(other.name.as_str());
                    let granted = role.as_ref().is_some_and(|(kind, name)| {
                        kind.as_deref() == Some(other.kind.as_str())
                            && name.as_deref() == Some(other.name.as_str())
                            && (other.kind == "ClusterRole" || other.namespace == m.namespace)
                    });
                    let owner = account.as_deref().is_some_and(|a| {
                        other.kind == "ServiceAccount"
                            && other.name == a
                            && other.namespace == m.namespace
                    });
                    let token = other.kind == "Secret" && needs_peers_first(other);
                    let earlier_stage = m.stage >= 2 && other.stage < m.stage && !token;
                    namespace || granted || owner || earlier_stage
                })
                .map(|(j, _)| j)
                .collect()
        })
        .collect()
}

/// Where binding a binding's role is authorized: the role's resource
/// (`roles` or `clusterroles`) and the binding's namespace (`None` for a
/// ClusterRoleBinding). `None` for anything but a binding.
fn role_scope(m: &Manifest) -> Option<(String, Option<String>)> {
    if !m.kind.ends_with("Binding") {
        return None;
    }
    let resource = match m.object.pointer("/roleRef/kind").and_then(Value::as_str) {
        Some("ClusterRole") => "clusterroles",
        Some("Role") => "roles",
        _ => return None,
    };
    Some((resource.to_string(), m.namespace.clone()))
}

/// Where the user may `bind` any role, asked with one access review per
/// place the bindings of `manifests` grant in (side by side with the
/// apply's reads). An error or a refusal counts as "may not": the binding
/// then waits for its role, as it always may.
async fn bind_rights(
    client: &Client,
    manifests: &[&Manifest],
) -> std::collections::HashSet<(String, Option<String>)> {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let mut scopes: Vec<(String, Option<String>)> =
        manifests.iter().filter_map(|m| role_scope(m)).collect();
    scopes.sort();
    scopes.dedup();
    let api: kube::Api<SelfSubjectAccessReview> = kube::Api::all(client.clone());
    let answers = join_all(scopes.iter().map(|(resource, namespace)| {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    verb: Some("bind".into()),
                    group: Some("rbac.authorization.k8s.io".into()),
                    resource: Some(resource.clone()),
                    namespace: namespace.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let api = &api;
        async move {
            request(
                "asking whether this user may bind",
                resource,
                api.create(&kube::api::PostParams::default(), &review),
            )
            .await
            .ok()
            .and_then(|r| r.status)
            .is_some_and(|s| s.allowed)
        }
    }))
    .await;
    scopes
        .into_iter()
        .zip(answers)
        .filter_map(|(scope, allowed)| allowed.then_some(scope))
        .collect()
}

/// True for objects that must go after a peer of their stage:
/// - bindings, after their roles: the API server checks a binding against its
///   role's rules, and refuses anyone without `bind` (everyone but cluster
///   admins) while that role does not exist yet;
/// - ServiceAccount token Secrets, after their ServiceAccount: the token
///   controller deletes such a Secret when its account does not exist.
fn needs_peers_first(m: &Manifest) -> bool {
    m.kind.ends_with("Binding")
        || (m.kind == "Secret"
            && m.object.get("type").and_then(Value::as_str)
                == Some("kubernetes.io/service-account-token"))
}

async fn apply_one(
    client: &Client,
    manifest: &Manifest,
    existing: Option<&DynamicObject>,
    params: &PatchParams,
    on_applied: &(dyn Fn(&Applied) + Sync),
) -> Result<Applied, Failure> {
    let mut desired = with_hash(&manifest.object);
    // Adopted once, adopted for good: the mark stays on every later apply.
    let adopted = existing.is_some_and(|live| {
        live.metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key(ADOPTED_ANNOTATION))
    });
    if adopted {
        if let Some(meta) = desired.get_mut("metadata").and_then(Value::as_object_mut) {
            let annotations = meta
                .entry("annotations")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(a) = annotations.as_object_mut() {
                a.insert(ADOPTED_ANNOTATION.into(), Value::String("true".into()));
            }
        }
    }
    let mut differs_at = None;
    let change = match existing {
        Some(live) => {
            let live_json = serde_json::to_value(live).unwrap_or(Value::Null);
            match first_difference(&live_json, &as_stored(manifest, &desired)) {
                None => Change::Unchanged,
                Some(path) => {
                    differs_at = Some(path);
                    Change::Configured
                }
            }
        }
        None => Change::Created,
    };
    let mut uid = existing.and_then(|live| live.metadata.uid.clone());
    if change != Change::Unchanged {
        let api = api_for(
            client,
            &manifest.api_version,
            &manifest.kind,
            manifest.namespace.as_deref(),
        );
        match request(
            "applying",
            &manifest.display_name(),
            api.patch(&manifest.name, params, &Patch::Apply(&desired)),
        )
        .await
        {
            Ok(written) => uid = written.metadata.uid,
            Err(e) => {
                let verb = if existing.is_some() {
                    "patch"
                } else {
                    "create"
                };
                return Err(Failure {
                    object: manifest.display_name(),
                    namespace: manifest.namespace.clone(),
                    cause: classify(e, verb),
                });
            }
        }
    }
    // A namespace made a moment ago for this run's lock, as wanted: nothing
    // written now, but this run created it.
    let change = if change == Change::Unchanged
        && manifest.kind == "Namespace"
        && existing
            .and_then(|live| live.metadata.uid.as_deref())
            .is_some_and(super::marks::made_by_this_process)
    {
        Change::Created
    } else {
        change
    };
    let applied = Applied {
        object: manifest.display_name(),
        namespace: manifest.namespace.clone(),
        change,
        differs_at,
        uid,
    };
    on_applied(&applied);
    Ok(applied)
}

/// Rolls a workload's pods, as `kubectl rollout restart` does: for a change
/// its pods only read when they start (the values of a Secret they take env
/// variables from). `stamp` makes the template differ (e.g. the time).
pub async fn restart(client: &Client, manifest: &Manifest, stamp: &str) -> Result<(), KubeError> {
    let api = api_for(
        client,
        &manifest.api_version,
        &manifest.kind,
        manifest.namespace.as_deref(),
    );
    let patch = serde_json::json!({"spec": {"template": {"metadata": {"annotations": {
        RESTARTED_AT_ANNOTATION: stamp
    }}}}});
    let params = PatchParams {
        field_manager: Some(RESTART_FIELD_MANAGER.into()),
        ..PatchParams::default()
    };
    request(
        "restarting",
        &manifest.display_name(),
        api.patch(&manifest.name, &params, &Patch::Merge(&patch)),
    )
    .await
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unchanged_ignores_server_defaults_and_normalized_quantities() {
        let live = json!({"spec": {"replicas": 1, "x": "default", "resources": {"limits": {"cpu": "1"}}}, "status": {}});
        let want = json!({"spec": {"replicas": 1, "resources": {"limits": {"cpu": "1000m"}}, "nodeSelector": {}}});
        assert!(first_difference(&live, &want).is_none());
        let want = json!({"spec": {"replicas": 2}});
        assert!(first_difference(&live, &want).is_some());
        let want = json!({"spec": {"tolerations": [{"key": "a"}]}});
        assert!(first_difference(&live, &want).is_some());
    }

    #[test]
    fn conflicts_are_parsed_with_field_and_owner() {
        let one = r#"Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas"#;
        assert_eq!(
            parse_conflicts(one),
            vec![(".spec.replicas".to_string(), "kubectl-edit".to_string())]
        );
        let many = "Apply failed with 2 conflicts: conflicts with \"helm\" using v1:\n- .data.a\n- .data.b";
        assert_eq!(
            parse_conflicts(many),
            vec![
                (".data.a".to_string(), "helm".to_string()),
                (".data.b".to_string(), "helm".to_string())
            ]
        );
    }

    #[test]
    fn bindings_and_token_secrets_wait_for_their_peers() {
        let m = |kind: &str, object: Value| Manifest {
            api_version: "v1".into(),
            kind: kind.into(),
            name: "x".into(),
            namespace: Some("ns".into()),
            component: crate::render::Component::Runner,
            stage: 1,
            object,
        };
        assert!(needs_peers_first(&m("RoleBinding", json!({}))));
        assert!(needs_peers_first(&m(
            "Secret",
            json!({"type": "kubernetes.io/service-account-token"})
        )));
        assert!(!needs_peers_first(&m("Secret", json!({"type": "Opaque"}))));
        assert!(!needs_peers_first(&m("ServiceAccount", json!({}))));
    }

    #[test]
    fn each_object_waits_only_for_what_it_needs() {
        let m = |kind: &str, name: &str, stage: u8, object: Value| Manifest {
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            namespace: (!matches!(kind, "Namespace" | "ClusterRole" | "ClusterRoleBinding"))
                .then(|| "ns".to_string()),
            component: crate::render::Component::Runner,
            stage,
            object,
        };
        let all = [
            m("Namespace", "ns", 0, json!({})),
            m("ServiceAccount", "runner", 1, json!({})),
            m("Role", "runner", 1, json!({})),
            m("ClusterRole", "runner-ns", 1, json!({})),
            m(
                "RoleBinding",
                "runner",
                1,
                json!({"roleRef": {"kind": "Role", "name": "runner"}}),
            ),
            m(
                "ClusterRoleBinding",
                "runner-ns",
                1,
                json!({"roleRef": {"kind": "ClusterRole", "name": "runner-ns"}}),
            ),
            m(
                "Secret",
                "runner-token",
                1,
                json!({"type": "kubernetes.io/service-account-token",
                       "metadata": {"annotations": {"kubernetes.io/service-account.name": "runner"}}}),
            ),
            m("ConfigMap", "config", 1, json!({})),
            m("Deployment", "runner", 2, json!({})),
        ];
        let refs: Vec<&Manifest> = all.iter().collect();
        let no_bind = |_: &Manifest| false;
        // The namespace exists (init's lock made it): nothing waits for it.
        let deps = dependencies(&refs, true, &no_bind);
        assert!(deps[0].is_empty() && deps[1].is_empty() && deps[7].is_empty());
        assert_eq!(deps[4], [2], "the RoleBinding waits for its Role only");
        assert_eq!(
            deps[5],
            [3],
            "the ClusterRoleBinding waits for its ClusterRole"
        );
        assert_eq!(
            deps[6],
            [1],
            "the token Secret waits for its ServiceAccount"
        );
        assert_eq!(
            deps[8],
            [0, 1, 2, 3, 4, 5, 7],
            "the Deployment waits for everything of the earlier stages but the token Secret"
        );
        // A namespace still to make: what goes into it waits for it.
        let deps = dependencies(&refs, false, &no_bind);
        assert_eq!(deps[7], [0]);
        assert_eq!(deps[4], [0, 2]);
        assert!(deps[3].is_empty(), "a ClusterRole waits for no namespace");
        // A user who may bind roles: bindings go with their roles.
        let deps = dependencies(&refs, true, &|m: &Manifest| role_scope(m).is_some());
        assert!(deps[4].is_empty() && deps[5].is_empty());
        assert_eq!(
            deps[6],
            [1],
            "the token Secret still waits for its ServiceAccount"
        );
    }

    #[test]
    fn the_hash_is_stable_and_sensitive() {
        let a = json!({"a": 1, "b": [1, 2]});
        assert_eq!(applied_hash(&a), applied_hash(&a.clone()));
        assert_ne!(
            applied_hash(&a),
            applied_hash(&json!({"a": 1, "b": [2, 1]}))
        );
    }
}

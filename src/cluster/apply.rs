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

mod order;

use order::{bind_rights, dependencies, role_scope};

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
    let mut report = Report::default();
    let mut manifests: Vec<&Manifest> = manifests.iter().collect();
    let namespace = manifests.iter().copied().find(|m| m.kind == "Namespace");
    let (reads, learned) = read_round(client, &manifests, namespace, instance, first).await;
    let changed = learned?;
    let ReadRound {
        namespace_read,
        inventoried,
        existing,
        ledger,
        may_bind,
    } = reads;
    let Some(found) = settle_namespace(
        namespace,
        namespace_read,
        instance,
        on_applied,
        &mut report,
        &mut manifests,
    ) else {
        return Ok(report);
    };
    let mut live = match inventoried {
        Ok(l) => l,
        Err(f) => {
            report.failed.push(f);
            report.not_attempted = display_names(&manifests);
            return Ok(report);
        }
    };
    // What the labelled LIST of namespaces would have given.
    live.extend(found.live);
    let Some(ledger) = all_ours(ledger, existing, instance, &mut report) else {
        report.not_attempted = display_names(&manifests);
        return Ok(report);
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
    let waits_for = dependencies(&manifests, found.exists, &|m| {
        role_scope(m).is_some_and(|scope| may_bind.contains(&scope))
    });
    let outcome = apply_in_order(client, &manifests, &waits_for, &live, options, on_applied).await;
    for (i, result) in outcome.into_iter().enumerate() {
        match result {
            Some(Ok(a)) => report.applied.push(a),
            Some(Err(f)) => report.failed.push(f),
            None => report.not_attempted.push(manifests[i].display_name()),
        }
    }
    record_in_ledger(client, instance, &ledger, &mut report).await;
    Ok(report)
}

/// What the objects' live state reads as, by kind, name and namespace.
type Live = HashMap<(Key, String), DynamicObject>;

/// What the read round before the first write learned.
struct ReadRound<'m> {
    /// The GET of the Namespace, when one is applied.
    namespace_read: Option<Result<Option<DynamicObject>, KubeError>>,
    /// What carries our labels.
    inventoried: Result<Live, Failure>,
    /// Every object to write, as it exists.
    existing: Result<super::ownership::Existing<'m>, KubeError>,
    /// The installation's ledger of what cf-runner created.
    ledger: Result<super::ownership::Ledger, KubeError>,
    /// The role scopes the user may bind.
    may_bind: std::collections::HashSet<(String, Option<String>)>,
}

/// The read round: the namespace, what carries our labels, every object to
/// write, the ledger and the bind rights, side by side with `first`.
async fn read_round<'m, E>(
    client: &Client,
    manifests: &[&'m Manifest],
    namespace: Option<&Manifest>,
    instance: &str,
    first: impl std::future::Future<Output = Result<Vec<Manifest>, E>>,
) -> (ReadRound<'m>, Result<Vec<Manifest>, E>) {
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
        super::ownership::existing(client, manifests),
        read_ledger,
        bind_rights(client, manifests),
        first,
    );
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
    let reads = ReadRound {
        namespace_read,
        inventoried,
        existing,
        ledger,
        may_bind,
    };
    (reads, learned)
}

/// The applied Namespace as the read round found it.
struct NamespaceFound {
    /// It exists (or none is applied): what is in it need not wait for it.
    exists: bool,
    /// It is ours, as the labelled LIST would have given it.
    live: Option<((Key, String), DynamicObject)>,
}

/// A namespace that exists but is not ours is used, never adopted: taking
/// it over would let `delete` remove something we did not create. `None`
/// when its GET failed: nothing is written, and the report says why.
fn settle_namespace(
    namespace: Option<&Manifest>,
    read: Option<Result<Option<DynamicObject>, KubeError>>,
    instance: &str,
    on_applied: &(dyn Fn(&Applied) + Sync),
    report: &mut Report,
    manifests: &mut Vec<&Manifest>,
) -> Option<NamespaceFound> {
    let mut found = NamespaceFound {
        exists: namespace.is_none(),
        live: None,
    };
    let (Some(ns), Some(read)) = (namespace, read) else {
        return Some(found);
    };
    match read {
        Ok(Some(live)) => {
            found.exists = true;
            let labels = live.metadata.labels.clone().unwrap_or_default();
            if labels.get(LABEL_MANAGED_BY).map(String::as_str) == Some("cf-runner")
                && labels.get(LABEL_INSTANCE).map(String::as_str) == Some(instance)
            {
                found.live = Some(((key_of(ns), ns.name.clone()), live.clone()));
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
            report.not_attempted = display_names(manifests);
            return None;
        }
    }
    Some(found)
}

/// Before the first write: every object that exists must be cf-runner's.
/// Gives the ledger when it is so; else says in `report` which object is
/// someone else's, or why that could not be read, and gives `None`.
fn all_ours(
    ledger: Result<super::ownership::Ledger, KubeError>,
    existing: Result<super::ownership::Existing<'_>, KubeError>,
    instance: &str,
    report: &mut Report,
) -> Option<super::ownership::Ledger> {
    let foreign = ledger.and_then(|ledger| {
        let found = existing?.collisions(instance, &ledger);
        Ok((found, ledger))
    });
    match foreign {
        Ok((foreign, ledger)) if foreign.is_empty() => Some(ledger),
        Ok((foreign, _)) => {
            report.foreign = foreign;
            None
        }
        Err(e) => {
            report.failed.push(Failure {
                object: "the objects to apply (reading them first)".into(),
                namespace: None,
                cause: classify(e, "get"),
            });
            None
        }
    }
}

/// The names of the objects, as a report lists what it did not attempt.
fn display_names(manifests: &[&Manifest]) -> Vec<String> {
    manifests.iter().map(|m| m.display_name()).collect()
}

/// Applies each object as soon as everything it waits for is applied;
/// what waits for a failed or skipped object is skipped in turn. Gives each
/// object's outcome, `None` for one never started.
async fn apply_in_order(
    client: &Client,
    manifests: &[&Manifest],
    waits_for: &[Vec<usize>],
    live: &Live,
    options: Options,
    on_applied: &(dyn Fn(&Applied) + Sync),
) -> Vec<Option<Result<Applied, Failure>>> {
    let params = {
        let p = PatchParams::apply(FIELD_MANAGER).validation(ValidationDirective::Strict);
        if options.force_conflicts {
            p.force()
        } else {
            p
        }
    };
    let mut outcome: Vec<Option<Result<Applied, Failure>>> =
        manifests.iter().map(|_| None).collect();
    let mut started = vec![false; manifests.len()];
    let mut skipped = vec![false; manifests.len()];
    let mut running = futures::stream::FuturesUnordered::new();
    loop {
        skip_blocked(waits_for, &outcome, &started, &mut skipped);
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
    outcome
}

/// Marks skipped what waits for a failed or skipped object, until nothing
/// more changes.
fn skip_blocked(
    waits_for: &[Vec<usize>],
    outcome: &[Option<Result<Applied, Failure>>],
    started: &[bool],
    skipped: &mut [bool],
) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..waits_for.len() {
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
}

/// Whatever was applied, even when something else failed, is recorded:
/// an object cf-runner made and did not record is not its to delete.
/// A namespace admin may not patch namespaces: the install works as it
/// did before the ledger, and says what that leaves open.
async fn record_in_ledger(
    client: &Client,
    instance: &str,
    ledger: &super::ownership::Ledger,
    report: &mut Report,
) {
    match record_applied(client, instance, ledger, &report.applied).await {
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

/// What to apply: the render with its hash, and the adopted mark when the
/// live object carries it (adopted once, adopted for good: the mark stays
/// on every later apply).
fn desired_object(manifest: &Manifest, existing: Option<&DynamicObject>) -> Value {
    let mut desired = with_hash(&manifest.object);
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
    desired
}

async fn apply_one(
    client: &Client,
    manifest: &Manifest,
    existing: Option<&DynamicObject>,
    params: &PatchParams,
    on_applied: &(dyn Fn(&Applied) + Sync),
) -> Result<Applied, Failure> {
    let desired = desired_object(manifest, existing);
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
mod tests;

//! Ownership: which objects in the cluster are cf-runner's. The one rule
//! that the preflight, apply, `delete`, `upgrade`'s prune and the namespace
//! check all use, so that cf-runner never writes over, nor deletes, an
//! object someone else made that merely shares a name with one of its own.
//!
//! Everything written on an object is a claim, not a fact: whoever may
//! `patch` it may set its labels, its annotations and even its
//! `metadata.managedFields` (the API server keeps managedFields a client
//! sends, manager names, operations and times included). A user granted
//! `patch` but not `delete` on ConfigMaps could otherwise dress a ConfigMap
//! of theirs as cf-runner's and have the admin's `delete` remove it. So the
//! fact the rule rests on lives where such a user cannot write: the
//! **ledger**, an annotation ([`LEDGER_ANNOTATION`]) on the Namespace object
//! of the installation, listing the uid of every object cf-runner created
//! (or `adopt` took over) for it, cluster-scoped ones included. A Namespace
//! is cluster-scoped: a RoleBinding in the namespace cannot grant rights on
//! it, so builds and narrow users cannot touch the ledger. cf-runner writes
//! it with its own field manager ([`LEDGER_FIELD_MANAGER`]) after each apply
//! ([`record`]); an attached runtime namespace keeps its own. The preflight
//! (`check`) judges on the marks alone, sending no request more; the apply
//! asks the ledger before its first write, and `delete`, `upgrade`'s prune,
//! `runtime detach` and `adopt` read it before they act.
//!
//! An object is cf-runner's for the installation in namespace `instance`
//! when its uid is in that installation's ledger and either
//!
//! 1. `cf-runner adopt` took it over from another runner installer: it
//!    carries [`ADOPTED_UID_ANNOTATION`] with its own uid (a mark copied
//!    from another object does not match), or
//! 2. it carries cf-runner's labels for this installation
//!    (`app.kubernetes.io/managed-by=cf-runner`,
//!    `app.kubernetes.io/instance=<instance>`) **and** its managedFields say
//!    cf-runner created it.
//!
//! An installation made before the ledger has none ([`Ledger::Absent`]):
//! then the marks alone decide, as they did, and the first run that applies
//! (a re-run of `init`, `upgrade`, `adopt`, `runtime attach`) records what
//! it applies: trust on first use. `delete` of such an installation warns
//! that what it deletes was judged on forgeable marks. The Namespace that
//! holds the ledger is recorded in it too (for `delete --delete-namespace`);
//! whether the apply may write it is read from its marks alone
//! (`super::namespace_is_ours`): only someone with cluster-level rights can
//! mark a Namespace.
//!
//! The marks still matter: labels alone prove nothing (a user can put them
//! on by hand, and server-side apply merges into an object someone else
//! created without any conflict when the fields differ), and "created by
//! cf-runner" is read from `metadata.managedFields`. They tell apart what
//! the ledger cannot (an object made by someone else under cf-runner's name
//! before the first ledger), and they name who made an object that is not
//! cf-runner's. What they say:
//!
//! - cf-runner's field manager ([`super::FIELD_MANAGER`]) holds an `Apply`
//!   entry (every object cf-runner renders is written by server-side apply;
//!   so is the namespace the install's lock makes first, by a create-only
//!   apply: `super::lock::create_namespace`);
//! - and either that entry still dates from the object's creation (its time
//!   within [`CREATION_WINDOW_SECS`] of `metadata.creationTimestamp`), or no
//!   other manager holds an entry that does: an entry (not on a subresource
//!   such as `status` or `scale`) stamped at most [`CREATION_WINDOW_SECS`]
//!   before the creation time, and not after it. The creator's entry is
//!   stamped in the request that created the object, just before the
//!   object's own creation time, so a `kubectl create`, `kubectl apply`,
//!   Helm or a team's tooling shows there. cf-runner's own managers
//!   (`cf-runner`, `cf-runner-restart`, `cf-runner-adopt`,
//!   `cf-runner-ledger`) and the control plane's controllers
//!   ([`SYSTEM_MANAGERS`], which fill a Deployment's revision or a token
//!   Secret right after creation) never count as creators.
//!
//! Later writes by anyone (a `kubectl rollout restart`, an edit, a
//! controller) come after creation and do not make an object foreign.
//!
//! What the marks cannot see, since `managedFields` keep one time per
//! manager (its last write) with a one-second grain: a creator that wrote
//! no field at all (the API server keeps no entry for it); a creator that
//! has written the object again since (its entry moved past the creation
//! time); and, the other way round, another manager's write in the very
//! second cf-runner created the object, once cf-runner has re-applied it
//! since (that write then looks like the creation). Where a ledger is kept
//! none of these can make an object cf-runner's; without one, the first two
//! still need our labels, and the last is left alone and named.
//!
//! What the ledger cannot see: an object a run created and did not record
//! because the run was stopped in between (it is then named as not in the
//! ledger, never written or deleted: delete it by hand and re-run), and
//! anyone with `patch` on Namespaces (cluster-level rights, as good as the
//! admin's for this purpose) may edit it.
//!
//! Objects taken over with `--force-conflicts` by an earlier version carry
//! [`super::marks::ADOPTED_ANNOTATION`]: they stay applied as before, and
//! `delete` removes them only with `--delete-adopted`; where a ledger is
//! kept, only those in it.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use kube::api::{ListParams, Patch, PatchParams};
use kube::Client;
use serde_json::Value;

use super::{api_for, request, KubeError, FIELD_MANAGER};
use crate::render::{Manifest, LABEL_INSTANCE, LABEL_MANAGED_BY};

mod contents;

pub use contents::{namespace_contents, Contents};

/// Set by `cf-runner adopt` on each object it takes over from another
/// runner installer, to that object's own uid.
pub const ADOPTED_UID_ANNOTATION: &str = "cf-runner.codefresh.io/adopted-uid";

/// The field manager of `adopt`'s marks, apart from the applied fields.
pub const ADOPT_FIELD_MANAGER: &str = "cf-runner-adopt";

/// The annotation on an installation's Namespace that holds its ledger:
/// the uids (comma-separated, sorted) of the objects cf-runner created or
/// took over for that installation.
pub const LEDGER_ANNOTATION: &str = "cf-runner.codefresh.io/ledger";

/// The field manager of the ledger's writes, apart from the applied fields.
pub const LEDGER_FIELD_MANAGER: &str = "cf-runner-ledger";

/// cf-runner's own field managers: never another creator.
const OUR_MANAGERS: [&str; 4] = [
    FIELD_MANAGER,
    super::marks::RESTART_FIELD_MANAGER,
    ADOPT_FIELD_MANAGER,
    LEDGER_FIELD_MANAGER,
];

/// The control plane's controllers: they write into objects right after
/// someone else created them, and never create one of cf-runner's names.
pub const SYSTEM_MANAGERS: [&str; 4] = [
    "kube-controller-manager",
    "kube-scheduler",
    "kube-apiserver",
    "kubelet",
];

/// How far from `creationTimestamp` (both have a one-second grain) a
/// manager's entry counts as the creation.
pub const CREATION_WINDOW_SECS: i64 = 1;

/// Whose an object is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// cf-runner's: it may apply and delete it.
    Ours,
    /// Existed before an earlier cf-runner took it over with
    /// `--force-conflicts`: applied as before, deleted only on request.
    ForceAdopted,
    /// Someone else's: never written, never deleted.
    Foreign(Foreign),
}

/// Why an object is not cf-runner's, and who made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// In words: "carries no cf-runner labels", …
    pub why: String,
    /// The field managers that wrote it (`kubectl-create`, `helm`, …),
    /// subresources and cf-runner's own left out.
    pub managers: Vec<String>,
    /// Other tools' labels on it (`app.kubernetes.io/managed-by=Helm`, …).
    pub marks: Vec<String>,
}

impl Foreign {
    /// `why; made by …; labels …`, for messages.
    pub fn describe(&self) -> String {
        let mut out = self.why.clone();
        if !self.managers.is_empty() {
            out.push_str(&format!(
                "; written by field manager(s) {}",
                self.managers.join(", ")
            ));
        }
        if !self.marks.is_empty() {
            out.push_str(&format!("; labelled {}", self.marks.join(", ")));
        }
        if self.managers.is_empty() && self.marks.is_empty() {
            // `kubectl create serviceaccount x` sets no field, so the API
            // server records no manager.
            out.push_str("; its managedFields name no writer (made with no fields of its own)");
        }
        out
    }
}

fn text<'a>(object: &'a Value, pointer: &str) -> Option<&'a str> {
    object.pointer(pointer).and_then(Value::as_str)
}

fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object
        .pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

/// The entries of `metadata.managedFields` that are writes of the object
/// itself (not of a subresource).
fn main_entries(object: &Value) -> Vec<&Value> {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter(|e| text(e, "/subresource").unwrap_or("").is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn manager(entry: &Value) -> &str {
    text(entry, "/manager").unwrap_or("(unnamed)")
}

/// The managers other than cf-runner's and the control plane's that wrote
/// the object, in the order the API server lists them.
fn other_managers(object: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in main_entries(object) {
        let m = manager(e);
        if !OUR_MANAGERS.contains(&m)
            && !SYSTEM_MANAGERS.contains(&m)
            && !out.iter().any(|o| o == m)
        {
            out.push(m.to_string());
        }
    }
    out
}

/// Every manager the object's managedFields name (the control plane's
/// aside), cf-runner's too: for an object whose marks say cf-runner's and
/// whose uid the ledger does not hold, where they may be forged.
fn named_managers(object: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in main_entries(object) {
        let m = manager(e);
        if !SYSTEM_MANAGERS.contains(&m) && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    out
}

/// The managers other than cf-runner's whose entry dates from the object's
/// creation: who created it, when it was not cf-runner.
pub fn other_creators(object: &Value) -> Vec<String> {
    let created = text(object, "/metadata/creationTimestamp").and_then(crate::text::parse_rfc3339);
    let mut out: Vec<String> = Vec::new();
    for e in main_entries(object) {
        let m = manager(e);
        if OUR_MANAGERS.contains(&m) || SYSTEM_MANAGERS.contains(&m) {
            continue;
        }
        let at_creation = match (
            created,
            text(e, "/time").and_then(crate::text::parse_rfc3339),
        ) {
            // The creator's entry is stamped before the object's creation
            // time, in the same request: never after it.
            (Some(c), Some(t)) => t <= c && c - t <= CREATION_WINDOW_SECS,
            // Without times, any other writer may be the creator.
            _ => true,
        };
        if at_creation && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    out
}

/// True when cf-runner's `Apply` entry still dates from the object's
/// creation: cf-runner created it, whoever wrote it in the same second.
fn applied_at_creation(object: &Value) -> bool {
    let Some(created) =
        text(object, "/metadata/creationTimestamp").and_then(crate::text::parse_rfc3339)
    else {
        return false;
    };
    main_entries(object).iter().any(|e| {
        manager(e) == FIELD_MANAGER
            && text(e, "/operation") == Some("Apply")
            && text(e, "/time")
                .and_then(crate::text::parse_rfc3339)
                .is_some_and(|t| (t - created).abs() <= CREATION_WINDOW_SECS)
    })
}

/// True when cf-runner's field manager applied the object (server-side).
fn applied_by_us(object: &Value) -> bool {
    main_entries(object)
        .iter()
        .any(|e| manager(e) == FIELD_MANAGER && text(e, "/operation") == Some("Apply"))
}

/// Other tools' labels on an object: who else claims it.
fn other_marks(object: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(labels) = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
    else {
        return out;
    };
    for (k, v) in labels {
        let v = v.as_str().unwrap_or_default();
        let claims = (k == LABEL_MANAGED_BY && v != "cf-runner")
            || k.starts_with("helm.sh/")
            || (k == "app" && crate::cluster::marks::OLD_INSTALLER_APPS.contains(&v));
        if claims {
            out.push(format!("{k}={v}"));
        }
    }
    out
}

/// The rule (see the module's comment): whose `object` (as JSON, with its
/// `metadata`) is, for the installation in namespace `instance` whose
/// ledger is `ledger` ([`Ledger::read`]).
pub fn ownership(object: &Value, instance: &str, ledger: &Ledger) -> Ownership {
    let by_marks = ownership_by_marks(object, instance);
    if matches!(by_marks, Ownership::Foreign(_)) {
        return by_marks;
    }
    match ledger {
        Ledger::Absent => by_marks,
        Ledger::Kept(uids) if text(object, "/metadata/uid").is_some_and(|u| uids.contains(u)) => {
            by_marks
        }
        Ledger::Kept(_) => Ownership::Foreign(Foreign {
            why: format!(
                "carries cf-runner's marks, but cf-runner did not record it: its uid is not in the ledger \
                 on Namespace/{instance} (marks are written by whoever may patch the object; or a run was \
                 stopped between creating and recording it: then delete it yourself and re-run)"
            ),
            // cf-runner's own names included: a patch may have written them.
            managers: named_managers(object),
            marks: other_marks(object),
        }),
    }
}

/// What the object's own marks say (labels, adopt mark, managedFields),
/// before the ledger is asked: forgeable by whoever may patch the object.
fn ownership_by_marks(object: &Value, instance: &str) -> Ownership {
    let uid = text(object, "/metadata/uid");
    let adopt_mark = text(
        object,
        "/metadata/annotations/cf-runner.codefresh.io~1adopted-uid",
    );
    if uid.is_some() && adopt_mark == uid {
        return Ownership::Ours;
    }
    let foreign = |why: String| {
        Ownership::Foreign(Foreign {
            why,
            managers: other_managers(object),
            marks: other_marks(object),
        })
    };
    if label(object, LABEL_MANAGED_BY) != Some("cf-runner") {
        return foreign("carries no cf-runner labels".into());
    }
    match label(object, LABEL_INSTANCE) {
        Some(i) if i == instance => {}
        Some(other) => {
            return foreign(format!(
                "belongs to the cf-runner installation in namespace {other}"
            ))
        }
        None => return foreign("carries no cf-runner instance label".into()),
    }
    let force_adopted = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(super::marks::ADOPTED_ANNOTATION))
        .is_some();
    if force_adopted {
        return Ownership::ForceAdopted;
    }
    if applied_at_creation(object) {
        return Ownership::Ours;
    }
    let creators = other_creators(object);
    if !creators.is_empty() {
        return Ownership::Foreign(Foreign {
            why: format!(
                "carries cf-runner's labels, but cf-runner did not create it ({} did)",
                creators.join(", ")
            ),
            managers: other_managers(object),
            marks: other_marks(object),
        });
    }
    if !applied_by_us(object) {
        return foreign(
            "carries cf-runner's labels, but cf-runner never applied it (its managedFields hold no \
             `cf-runner` Apply entry)"
                .into(),
        );
    }
    Ownership::Ours
}

/// True when the rule says cf-runner may delete `object` without being
/// asked for more (not force-adopted, not foreign).
pub fn is_ours(object: &Value, instance: &str, ledger: &Ledger) -> bool {
    ownership(object, instance, ledger) == Ownership::Ours
}

// ------------------------------------------------------------------ ledger

/// The uids cf-runner recorded for one installation, as its Namespace holds
/// them (see the module's comment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Ledger {
    /// No ledger: the namespace carries none (installed by a version
    /// before the ledger, or nothing recorded yet) or does not exist. The
    /// marks alone decide, as before the ledger.
    #[default]
    Absent,
    /// The uids recorded.
    Kept(BTreeSet<String>),
}

impl Ledger {
    /// The ledger a Namespace object (as JSON) carries.
    pub fn of_namespace(namespace: &Value) -> Ledger {
        match namespace
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(LEDGER_ANNOTATION))
            .and_then(Value::as_str)
        {
            Some(list) => Ledger::Kept(
                list.split(',')
                    .map(str::trim)
                    .filter(|u| !u.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
            None => Ledger::Absent,
        }
    }

    /// Reads the ledger of the installation in namespace `instance`; a
    /// namespace that does not exist has none. A refused read is an error:
    /// without it, nothing can be deleted on verified facts.
    pub async fn read(client: &Client, instance: &str) -> Result<Ledger, KubeError> {
        let api = api_for(client, "v1", "Namespace", None);
        let what = format!("Namespace/{instance} (cf-runner's ledger)");
        let live = request("reading", &what, api.get_metadata_opt(instance)).await?;
        Ok(live
            .map(|l| Ledger::of_namespace(&serde_json::to_value(&l).unwrap_or(Value::Null)))
            .unwrap_or_default())
    }

    /// True when no ledger is kept (see [`Ledger::Absent`]).
    pub fn is_absent(&self) -> bool {
        *self == Ledger::Absent
    }

    /// The uids recorded (none when absent).
    pub fn uids(&self) -> BTreeSet<String> {
        match self {
            Ledger::Absent => BTreeSet::new(),
            Ledger::Kept(uids) => uids.clone(),
        }
    }
}

/// What `delete` says before deleting on marks alone (no ledger kept): the
/// risk, and the command that records a ledger first.
pub fn no_ledger_warning(instance: &str) -> String {
    format!(
        "namespace {instance} holds no ledger of cf-runner's objects (installed by a cf-runner before the \
         ledger): whether an object is cf-runner's is judged on its labels and managedFields alone, which \
         anyone who may patch it can forge; check the list, or run `cf-runner upgrade --kube-namespace \
         {instance}` (or re-run init) first: it records what cf-runner applies"
    )
}

/// Adds `uids` to the ledger of the installation in namespace `instance`,
/// `kept` being what it holds (read by the caller in this run), with
/// [`LEDGER_FIELD_MANAGER`]; nothing is sent when they are all there. A
/// merge patch: it never creates a namespace (an apply would). Commands
/// that write hold the install's lock (`super::lock`), so no other run
/// writes the ledger in between; were one to (two runs on a namespace
/// without its lock), a uid could be lost, and that object would then be
/// left alone and named, never deleted: the safe side. Gives whether it
/// wrote; a namespace that does not exist gets nothing (`Ok(false)`).
pub async fn record(
    client: &Client,
    instance: &str,
    kept: &Ledger,
    uids: &BTreeSet<String>,
) -> Result<bool, KubeError> {
    let mut all = kept.uids();
    all.extend(uids.iter().cloned());
    if *kept == Ledger::Kept(all.clone()) {
        return Ok(false);
    }
    let api = api_for(client, "v1", "Namespace", None);
    let what = format!("Namespace/{instance} (cf-runner's ledger)");
    let patch = serde_json::json!({"metadata": {
        "annotations": {LEDGER_ANNOTATION: all.into_iter().collect::<Vec<_>>().join(",")},
    }});
    let params = PatchParams {
        field_manager: Some(LEDGER_FIELD_MANAGER.into()),
        ..PatchParams::default()
    };
    match request(
        "recording in",
        &what,
        api.patch(instance, &params, &Patch::Merge(&patch)),
    )
    .await
    {
        Ok(_) => Ok(true),
        Err(e) if e.code() == Some(404) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The uids of every object the marks alone call cf-runner's for
/// `instance` (labelled, or carrying the adopt mark with its own uid):
/// what the first ledger of an installation made before the ledger starts
/// from (trust on first use). One metadata LIST per kind cf-runner
/// renders, without a selector (the adopt mark is not a label).
pub async fn trusted_on_first_use(
    client: &Client,
    instance: &str,
) -> Result<BTreeSet<String>, KubeError> {
    let kinds = super::inventory::RENDERED_KINDS;
    let lists = join_all(kinds.iter().map(|k| {
        let api = api_for(
            client,
            k.api_version,
            k.kind,
            k.namespaced.then_some(instance),
        );
        async move {
            (
                k,
                request("listing", k.kind, api.list_metadata(&ListParams::default())).await,
            )
        }
    }))
    .await;
    let mut out = BTreeSet::new();
    for (k, list) in lists {
        let Some(list) = super::inventory::served(k, list)? else {
            continue;
        };
        for item in list.items {
            let o = serde_json::to_value(&item).unwrap_or(Value::Null);
            if !matches!(ownership_by_marks(&o, instance), Ownership::Foreign(_)) {
                out.extend(item.metadata.uid);
            }
        }
    }
    Ok(out)
}

/// One object the install would write that is someone else's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// `Kind/name`.
    pub object: String,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    pub foreign: Foreign,
}

impl std::fmt::Display for Collision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(
                f,
                "{} in namespace {ns}: {}",
                self.object,
                self.foreign.describe()
            ),
            None => write!(
                f,
                "{} (cluster-wide): {}",
                self.object,
                self.foreign.describe()
            ),
        }
    }
}

/// What to do about collisions, in one sentence.
pub fn collision_fix(namespace: &str) -> String {
    format!(
        "cf-runner never writes over an object it did not create, not even with --force-conflicts: \
         install into another --kube-namespace (cf-runner's object names are fixed; the cluster-wide \
         ones end in the namespace, and the StorageClass can be named with Storage.StorageClassName); \
         if they belong to a runner made by the cf-runtime Helm chart or venonactl, run \
         `cf-runner adopt --kube-namespace {namespace}`; otherwise delete or rename them yourself \
         once you know nobody needs them"
    )
}

/// Reads every object `manifests` would write (the Namespace aside: one
/// that exists and is not ours is used, never written) and gives those that
/// exist and are not cf-runner's. `known` gives an object already read
/// (e.g. by a labelled LIST), so it is not read again.
///
/// Objects of one kind in one namespace (or cluster-wide) are read by one
/// metadata LIST of that kind, without a label selector (an object someone
/// else made under our name carries none of our labels): one request per
/// kind instead of one per object. A kind with a single object to read, or
/// whose LIST fails (e.g. `get` granted without `list`), is read object by
/// object as before, so what is found, and every error, stays the same.
///
/// This is the preflight's answer (`check`, and `init` before its lock),
/// from the objects' marks alone: it sends no request for the ledger. The
/// apply, which writes, asks the ledger too before its first write
/// ([`Existing::collisions`]), so a forged object the preflight let pass
/// is refused there, with nothing written.
pub async fn collisions(
    client: &Client,
    manifests: &[&Manifest],
    instance: &str,
    known: &(dyn Fn(&Manifest) -> Option<Value> + Sync),
) -> Result<Vec<Collision>, KubeError> {
    let live = read_targets(client, manifests, known).await?;
    Ok(judge(live, instance, &Ledger::Absent))
}

/// What the cluster holds under the names an apply would write, read
/// before the ledger is known (side by side with the apply's other reads).
pub struct Existing<'m>(Vec<(&'m Manifest, Option<Value>)>);

impl Existing<'_> {
    /// Those that exist and are not cf-runner's by the rule, `ledger` asked.
    pub fn collisions(self, instance: &str, ledger: &Ledger) -> Vec<Collision> {
        judge(self.0, instance, ledger)
    }
}

/// Reads what [`Existing`] holds for `manifests` (the Namespace aside).
pub async fn existing<'m>(
    client: &Client,
    manifests: &[&'m Manifest],
) -> Result<Existing<'m>, KubeError> {
    Ok(Existing(read_targets(client, manifests, &|_| None).await?))
}

/// The objects `manifests` would write (the Namespace aside), each with
/// what the cluster holds under its name.
async fn read_targets<'m>(
    client: &Client,
    manifests: &[&'m Manifest],
    known: &(dyn Fn(&Manifest) -> Option<Value> + Sync),
) -> Result<Vec<(&'m Manifest, Option<Value>)>, KubeError> {
    let targets: Vec<&Manifest> = manifests
        .iter()
        .copied()
        .filter(|m| m.kind != "Namespace")
        .collect();
    let mut live: Vec<Option<Result<Option<Value>, KubeError>>> = targets
        .iter()
        .map(|m| known(m).map(|l| Ok(Some(l))))
        .collect();
    // The objects still to read, by kind and namespace.
    let mut kinds: BTreeMap<(&str, &str, Option<&str>), Vec<usize>> = BTreeMap::new();
    for (i, m) in targets.iter().enumerate() {
        if live[i].is_none() {
            kinds
                .entry((&m.api_version, &m.kind, m.namespace.as_deref()))
                .or_default()
                .push(i);
        }
    }
    let read = join_all(
        kinds
            .into_iter()
            .map(|((api_version, kind, namespace), at)| {
                read_kind(client, (api_version, kind, namespace), at, &targets)
            }),
    )
    .await;
    for (i, result) in read.into_iter().flatten() {
        live[i] = Some(result);
    }
    let mut out = Vec::new();
    for (m, live) in targets.into_iter().zip(live) {
        out.push((m, live.expect("every object read")?));
    }
    Ok(out)
}

/// Reads the objects `at` (indexes into `targets`) of one kind and
/// namespace: one LIST when there are several (a GET each when the LIST
/// is refused), else a GET. Gives each index with what was read.
async fn read_kind(
    client: &Client,
    (api_version, kind, namespace): (&str, &str, Option<&str>),
    at: Vec<usize>,
    targets: &[&Manifest],
) -> Vec<(usize, Result<Option<Value>, KubeError>)> {
    let api = api_for(client, api_version, kind, namespace);
    let get_each = || {
        join_all(at.iter().map(|&i| {
            let (api, m) = (&api, targets[i]);
            async move {
                let live =
                    request("reading", &m.display_name(), api.get_metadata_opt(&m.name)).await?;
                Ok(live.map(|l| serde_json::to_value(&l).unwrap_or(Value::Null)))
            }
        }))
    };
    if at.len() < 2 {
        return at.iter().copied().zip(get_each().await).collect::<Vec<_>>();
    }
    let listed = request("listing", kind, api.list_metadata(&ListParams::default())).await;
    match listed {
        Ok(list) => {
            let mut by_name: BTreeMap<String, Value> = list
                .items
                .into_iter()
                .filter_map(|o| {
                    let name = o.metadata.name.clone()?;
                    Some((name, serde_json::to_value(&o).unwrap_or(Value::Null)))
                })
                .collect();
            at.iter()
                .map(|&i| (i, Ok(by_name.remove(&targets[i].name))))
                .collect()
        }
        // Refused (or any other answer): each object is read
        // on its own, and a GET names the object and verb.
        Err(KubeError::Api { .. }) => at.iter().copied().zip(get_each().await).collect(),
        // No answer: the first object carries the error; the
        // caller stops there.
        Err(e) => std::iter::once((at[0], Err(e)))
            .chain(at[1..].iter().map(|&i| (i, Ok(None))))
            .collect(),
    }
}

/// Those of the objects read that exist and are not cf-runner's.
fn judge(live: Vec<(&Manifest, Option<Value>)>, instance: &str, ledger: &Ledger) -> Vec<Collision> {
    let mut out = Vec::new();
    for (m, live) in live {
        let Some(live) = live else {
            continue;
        };
        if let Ownership::Foreign(foreign) = ownership(&live, instance, ledger) {
            out.push(Collision {
                object: m.display_name(),
                namespace: m.namespace.clone(),
                foreign,
            });
        }
    }
    out
}

/// Marks an object `adopt` takes over from another runner installer as
/// cf-runner's from now on, for the installation in namespace `instance`
/// (see [`ADOPTED_UID_ANNOTATION`]). The mark is a claim anyone who may
/// patch an object can copy, so the object is recorded in that
/// installation's ledger too; a first ledger starts from every object the
/// marks call cf-runner's ([`trusted_on_first_use`]), so that it disowns
/// none of an installation made before it.
pub async fn mark_adopted(
    client: &Client,
    instance: &str,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
    uid: &str,
) -> Result<(), KubeError> {
    let api = api_for(client, api_version, kind, namespace);
    let patch = serde_json::json!({"metadata": {
        "annotations": {ADOPTED_UID_ANNOTATION: uid},
    }});
    let params = PatchParams {
        field_manager: Some(ADOPT_FIELD_MANAGER.into()),
        ..PatchParams::default()
    };
    request(
        "marking as taken over",
        &format!("{kind}/{name}"),
        api.patch(name, &params, &Patch::Merge(&patch)),
    )
    .await?;
    let kept = Ledger::read(client, instance).await?;
    let mut uids = BTreeSet::from([uid.to_string()]);
    if kept.is_absent() {
        uids.extend(trusted_on_first_use(client, instance).await?);
    }
    record(client, instance, &kept, &uids).await?;
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod ledger_tests;

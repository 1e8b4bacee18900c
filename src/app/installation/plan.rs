//! The plan of an upgrade, worked out before anything is written: the
//! stored values (their secrets read back from the Secrets that hold them)
//! below what the user changes now, what cannot change in place, the new
//! render, the spec the platform should get and what to prune. `upgrade`
//! carries it out; `diff` shows it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::installation::record::{self, Record};
use crate::app::installation::{identity, left_behind};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::diff::{Action, ObjectDiff};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::{secrets, Cluster};
use crate::output;
use crate::render::record::SECRET_HOMES;
use crate::render::{self, Manifest, RECORD_SECRET};
use crate::text::REDACTED;
use crate::values::{self, Input, Problem, Problems, Values, ValuesFile};

/// The record layouts this version reads (absent: older than format 1,
/// read the same way).
const READABLE_RECORD_FORMATS: &[&str] = &["1"];

/// Puts the real secrets back into the stored (redacted) tree, from the
/// Secrets that hold them. Gives the keys that were recorded but could not
/// be restored (their Secret or key is gone); those are removed.
pub(crate) async fn restore_secrets(
    cluster: &Cluster,
    namespace: &str,
    tree: &mut Value,
) -> Result<Vec<String>, crate::cluster::KubeError> {
    let mut lost = Vec::new();
    for (path, secret, key) in SECRET_HOMES {
        let stored = values::tree::lookup(tree, path).cloned();
        let redacted = stored.as_ref().and_then(Value::as_str) == Some(REDACTED);
        if !redacted {
            continue;
        }
        let live = record::read_kept(cluster, namespace, secret, key).await?;
        match live {
            Some(v) => {
                let steps = values::tree::parse_path(path).expect("a plain key path");
                values::tree::set_path(tree, &steps, Value::String(v));
            }
            None => {
                render::record::remove_path(tree, path);
                if redacted {
                    lost.push(path.to_string());
                }
            }
        }
    }
    // URLs with credentials (proxies): from the credentials Secret.
    let mut held = BTreeMap::new();
    for key in values::secrets::masked_url_keys(tree) {
        let live =
            secrets::read_key(&cluster.client, namespace, render::CREDENTIALS_SECRET, &key).await?;
        if let Some(v) = live {
            held.insert(key, v);
        }
    }
    // What stays masked is refused after merging, unless given again.
    values::secrets::restore_url_credentials(tree, &held);
    Ok(lost)
}

/// A value recorded with URL credentials that no Secret holds any more:
/// the upgrade must not install the masked text in its place.
fn lost_credentials_problems(merged: &Value) -> Vec<Problem> {
    values::secrets::masked_url_paths(merged)
        .into_iter()
        .map(|path| {
            if values::secrets::is_credential_env(&path) {
                return Problem::new(
                    &path,
                    None,
                    format!(
                        "was recorded hidden (its name is a credential's), and the Secret {} no longer holds it",
                        render::CREDENTIALS_SECRET
                    ),
                    format!("pass the value again, e.g. --set-value {path}=<value>"),
                );
            }
            Problem::new(
                &path,
                None,
                format!(
                    "was recorded with credentials in its URL, and the Secret {} no longer holds them",
                    render::CREDENTIALS_SECRET
                ),
                format!("pass the value again, e.g. --set-value {path}=http://user:password@proxy:3128"),
            )
        })
        .collect()
}

/// What the platform issued at install time, as installed: the dind TLS
/// material (unless placeholders of an offline install) and, when the
/// values carry none, the agent token. A re-render then keeps them.
async fn restore_identity(
    cluster: &Cluster,
    namespace: &str,
    record: &Record,
    values: &Values,
) -> Result<render::Identity, crate::cluster::KubeError> {
    let mut identity = identity::recorded(record, Some(values), &cluster.context);
    let left = left_behind(cluster, namespace).await?;
    identity.dind_ca = left.dind.ca;
    identity.dind_cert = left.dind.cert;
    identity.dind_key = left.dind.key;
    // An install registered on the platform keeps its agent token only in
    // the runner Secret; `--agent-token` (in the values) would replace it.
    if values.agent_token.is_none() {
        identity.agent_token = left.agent_token;
    }
    Ok(identity)
}

fn describe_storage(v: &Values) -> String {
    if v.storage.provisioned {
        format!(
            "{} volumes through StorageClass {}",
            v.storage.backend.name(),
            v.storage.class_name
        )
    } else {
        format!("the existing StorageClass {}", v.storage.class_name)
    }
}

fn namespace_problem(installed_in: &str, wanted: &str) -> Problem {
    Problem::new(
        "Namespace",
        Some(&Value::String(wanted.to_string())),
        format!(
            "differs from the installation's namespace {installed_in}: upgrade changes an installation in place, it cannot move it"
        ),
        format!(
            "to move it, run `cf-runner delete --kube-namespace {installed_in}` then `cf-runner init --kube-namespace {wanted}`; \
             to upgrade in place, pass --kube-namespace {installed_in}"
        ),
    )
}

fn storage_problem(installed_in: &str, key: &str, what: &str) -> Problem {
    Problem::new(
        key,
        None,
        format!(
            "would change the storage of the dind volumes in place ({what}): a StorageClass's parameters cannot change, \
             and the existing volumes belong to the old one"
        ),
        format!(
            "to change the storage, run `cf-runner delete --kube-namespace {installed_in} --purge-volumes`, \
             then `cf-runner init` with the new storage values"
        ),
    )
}

/// The same refusals as [`in_place_problems`], decided on the merged trees
/// before validation: a new backend usually leaves the old backend's keys
/// behind, and "remove this key" would be the wrong advice.
pub fn in_place_problems_raw(installed_in: &str, stored: &Value, merged: &Value) -> Vec<Problem> {
    let text = |tree: &Value, key: &str| {
        values::tree::lookup(tree, key).and_then(|v| match v {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    };
    let namespace =
        text(merged, "Namespace").unwrap_or_else(|| values::DEFAULT_NAMESPACE.to_string());
    if namespace != installed_in {
        return vec![namespace_problem(installed_in, &namespace)];
    }
    let backend = |tree: &Value| {
        text(tree, "Storage.Backend")
            .unwrap_or_else(|| "local".into())
            .to_ascii_lowercase()
    };
    let class = |tree: &Value| {
        text(tree, "StorageClass").or_else(|| text(tree, "Storage.StorageClassName"))
    };
    if let Some(p) = values::agent_only::changed_problem(installed_in, stored, merged) {
        return vec![p];
    }
    let mut out = Vec::new();
    if backend(stored) != backend(merged) {
        out.push(storage_problem(
            installed_in,
            "Storage.Backend",
            &format!("{} to {}", backend(stored), backend(merged)),
        ));
    } else if class(stored) != class(merged) {
        let shown = |c: Option<String>| c.unwrap_or_else(|| "the one cf-runner installs".into());
        out.push(storage_problem(
            installed_in,
            "StorageClass",
            &format!(
                "StorageClass {} to {}",
                shown(class(stored)),
                shown(class(merged))
            ),
        ));
    }
    out
}

/// What an upgrade cannot change in place, as problems saying how instead.
pub fn in_place_problems(installed_in: &str, old: Option<&Values>, new: &Values) -> Vec<Problem> {
    if new.namespace != installed_in {
        // A new namespace renames the default StorageClass too: one problem is enough.
        return vec![namespace_problem(installed_in, &new.namespace)];
    }
    let Some(old) = old else {
        return Vec::new();
    };
    let (o, n) = (&old.storage, &new.storage);
    let changed = o.provisioned != n.provisioned
        || o.class_name != n.class_name
        || (n.provisioned && o.backend != n.backend);
    if !changed {
        return Vec::new();
    }
    let key = if o.backend.name() != n.backend.name() {
        "Storage.Backend"
    } else if o.class_name != n.class_name || o.provisioned != n.provisioned {
        "StorageClass"
    } else {
        "Storage"
    };
    let what = if describe_storage(old) == describe_storage(new) {
        format!("the parameters of {}", describe_storage(old))
    } else {
        format!("{} to {}", describe_storage(old), describe_storage(new))
    };
    vec![storage_problem(installed_in, key, &what)]
}

/// Leaf paths of a values tree and their values as text.
fn leaves(tree: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match tree {
        Value::Object(map) => {
            for (k, v) in map {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(v, &path, out);
            }
        }
        Value::Null => {}
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// `key: old → new` for every value that differs (secrets stay redacted).
pub fn values_changes(old: &Value, new: &Value) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(old, "", &mut a);
    leaves(new, "", &mut b);
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) if x == y => None,
            (Some(x), Some(y)) => Some(format!("{k}: {x} → {y}")),
            (Some(x), None) => Some(format!("{k}: {x} → (unset)")),
            (None, Some(y)) => Some(format!("{k}: (unset) → {y}")),
            (None, None) => None,
        })
        .collect()
}

/// `key: credentials changed` for a URL whose password changed: the masked
/// diff cannot show it, and the user should still see that it changes.
pub(crate) fn credential_changes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, values::Secret>,
) -> Vec<String> {
    new.iter()
        .filter_map(|(key, value)| {
            let before = old.get(key)?;
            let masked = crate::text::masked_value;
            // A credential-named variable is hidden whole: any change is
            // one the values diff cannot show.
            let hidden =
                values::secrets::is_credential_env(key) || masked(before) == masked(value.expose());
            (before != value.expose() && hidden).then(|| format!("{key}: credentials changed"))
        })
        .collect()
}

/// Labelled objects that the new render no longer has (never the
/// namespace), of those cf-runner created (`cluster::ownership`); those it
/// did not are named, left alone.
fn to_prune(
    live: &[LiveObject],
    rendered: &[Manifest],
    namespace: &str,
    ledger: &crate::cluster::ownership::Ledger,
) -> Vec<LiveObject> {
    use crate::cluster::ownership::{ownership, Ownership};
    let mut prune = Vec::new();
    let mut not_ours = Vec::new();
    for o in live.iter().filter(|o| o.kind != "Namespace").filter(|o| {
        !rendered
            .iter()
            .any(|m| o.same_object(&m.kind, m.namespace.as_deref(), &m.name))
    }) {
        match ownership(&o.object, namespace, ledger) {
            Ownership::Ours => prune.push(o.clone()),
            Ownership::ForceAdopted => {}
            Ownership::Foreign(f) => {
                not_ours.push(format!("{} ({})", o.display_name(), f.describe()))
            }
        }
    }
    if !not_ours.is_empty() {
        crate::output::note(&format!(
            "left alone, not pruned: {} object(s) carry cf-runner's labels, but are not cf-runner's:\n  {}",
            not_ours.len(),
            not_ours.join("\n  ")
        ));
    }
    prune
}

/// Everything an upgrade will do, worked out before anything is written:
/// shared by `upgrade` and `diff`.
pub(crate) struct Plan {
    pub version: String,
    pub loaded: values::Loaded,
    pub identity: render::Identity,
    pub stored_redacted: Value,
    /// URL credentials of the stored values (restored from their Secret),
    /// to say which changed without showing them.
    pub stored_url_credentials: std::collections::BTreeMap<String, String>,
    pub record_tree: Value,
    pub rendered: render::Rendered,
    /// The runtime environment's name, for an install registered on the platform.
    pub runtime_name: Option<String>,
    pub spec_changed: bool,
    /// Labelled objects this render no longer has.
    pub prune: Vec<LiveObject>,
}

/// Reads the installation in `namespace` and works out the upgrade to
/// `input` (stored values below it). Reads only.
pub(crate) async fn plan(
    mut input: Input,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Plan, Outcome> {
    let record = read_record(cluster, namespace).await?;
    let version = record
        .cf_runner_version
        .clone()
        .unwrap_or_else(|| "unknown".into());
    let stored = read_stored(cluster, namespace, &record).await?;
    let old_values = values::load(&Input {
        files: vec![stored.file.clone()],
        overrides: vec![("Context".into(), Value::String(cluster.context.clone()))],
        ..Input::default()
    })
    .ok()
    .map(|l| l.values);
    input.files.insert(0, stored.file.clone());
    // The context connected to is the one the names and the record carry.
    input.overrides.insert(
        0,
        ("Context".into(), Value::String(cluster.context.clone())),
    );
    let mut ignored = Vec::new();
    let merged = values::merge_layers(&input, &mut ignored);
    let mut refused = in_place_problems_raw(namespace, &stored.tree, &merged);
    if refused.is_empty() {
        refused = lost_credentials_problems(&merged);
    }
    if !refused.is_empty() {
        return Err(Outcome::BadInput(Problems(refused)));
    }
    let loaded = values::load(&input)?;
    let values = &loaded.values;
    let identity = restore_identity(cluster, namespace, &record, values)
        .await
        .doing("reading the installed secrets failed")?;
    // The plan would render the recorded agent into the Deployment and act
    // for it on the platform (`upgrade`, `diff`, `runtime attach`, the
    // renewals): it must be the one the Deployment runs.
    crate::app::installation::verified::recorded_agent(
        cluster,
        namespace,
        &identity.agent_name(values),
        "",
    )
    .await?;
    let mut problems = in_place_problems(namespace, old_values.as_ref(), values);
    problems.extend(missing_secrets(values, &identity));
    if !problems.is_empty() {
        return Err(Outcome::BadInput(Problems(problems)));
    }
    crate::app::session::input::warn_loaded(&loaded);
    let (record_tree, mut rendered) = render_and_record(&loaded, &identity, &stored.lost)?;
    // A registered install keeps the platform's runtime spec in step, as the
    // chart's post-upgrade hook does: the token is checked before anything
    // is applied, and without one a change to the spec is refused.
    let runtime_name = identity
        .runtime_name
        .clone()
        .filter(|_| record.registered == Some(true));
    let old_spec = old_values.as_ref().and_then(|old| {
        render::render(old, &identity, &stored.redacted)
            .ok()
            .map(|r| r.runtime_environment)
    });
    let spec_changed = old_spec.as_ref() != Some(&rendered.runtime_environment);
    let (live, ledger) = futures::join!(
        inventory::labelled(&cluster.client, namespace),
        crate::cluster::ownership::Ledger::read(&cluster.client, namespace)
    );
    let (live, ledger) = live
        .and_then(|l| Ok((l, ledger?)))
        .doing("listing the installed objects failed")?;
    let mut prune = to_prune(&live, &rendered.manifests, namespace, &ledger);
    crate::app::installation::attached::keep_attached(
        cluster,
        namespace,
        &mut rendered.manifests,
        &mut prune,
    )
    .await?;
    Ok(Plan {
        version,
        loaded,
        identity,
        stored_redacted: stored.redacted,
        stored_url_credentials: values::secrets::url_credentials(&stored.tree),
        record_tree,
        rendered,
        runtime_name,
        spec_changed,
        prune,
    })
}

/// The record of the installation in `namespace`, in a format this
/// version reads.
async fn read_record(cluster: &Cluster, namespace: &str) -> Result<Record, Outcome> {
    let record = match record::read(cluster, namespace).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Err(Outcome::Failed(
                anyhow::anyhow!(
                    "namespace {namespace} holds no cf-runner installation (no Secret {RECORD_SECRET})"
                ),
                Some(
                    "upgrade needs the record init writes: if an init stopped half-way, re-run it; \
                     to replace an installation made by another tool, remove it and run `cf-runner init`"
                        .into(),
                ),
            ))
        }
        Err(e) => return Err(Outcome::from_cluster(e, "reading the installation record failed")),
    };
    if let Some(format) = &record.record_format {
        if !READABLE_RECORD_FORMATS.contains(&format.as_str()) {
            let version = record.cf_runner_version.as_deref().unwrap_or("unknown");
            return Err(Outcome::Failed(
                anyhow::anyhow!(
                    "the installation in namespace {namespace} was recorded by cf-runner {version} in record format {format}, \
                     which this cf-runner ({}) cannot read",
                    env!("CARGO_PKG_VERSION")
                ),
                Some(format!("upgrade with cf-runner {version} or newer")),
            ));
        }
    }
    Ok(record)
}

/// The values an installation was made with.
struct Stored {
    /// With the secrets read back from their Secrets.
    tree: Value,
    /// As recorded (secrets redacted).
    redacted: Value,
    /// Keys recorded whose Secret no longer holds them.
    lost: Vec<String>,
    /// `tree` as the lowest values file.
    file: ValuesFile,
}

async fn read_stored(
    cluster: &Cluster,
    namespace: &str,
    record: &Record,
) -> Result<Stored, Outcome> {
    let origin = record::origin(namespace);
    let mut tree = record::values_tree(record)?;
    let redacted = values::redact(&tree);
    let lost = restore_secrets(cluster, namespace, &mut tree)
        .await
        .doing("reading the installed secrets failed")?;
    let file = ValuesFile {
        origin,
        text: serde_yaml_ng::to_string(&tree).expect("a tree serializes"),
    };
    Ok(Stored {
        tree,
        redacted,
        lost,
        file,
    })
}

/// The tokens an upgrade cannot do without, when neither the values nor
/// the cluster hold them.
fn missing_secrets(values: &Values, identity: &render::Identity) -> Vec<Problem> {
    let mut problems = Vec::new();
    if values.agent_token.is_none() && identity.agent_token.is_none() {
        problems.push(Problem::new(
            "AgentToken",
            None,
            "could not be read back from the Secret runner",
            "pass --agent-token",
        ));
    }
    if values.monitor.enabled && values.token.is_none() {
        problems.push(Problem::new(
            "Token",
            None,
            "is needed by the monitor, and no installed Secret holds it",
            "pass --token with a Codefresh API token",
        ));
    }
    problems
}

/// The render, and the values it records: the record names only the
/// secrets some Secret holds ([`render::record`]), so that a later upgrade
/// can restore every secret it names.
fn render_and_record(
    loaded: &values::Loaded,
    identity: &render::Identity,
    lost: &[String],
) -> Result<(Value, render::Rendered), Outcome> {
    let rendered = render::render(&loaded.values, identity, &loaded.redacted_tree)
        .map_err(Outcome::render_failed)?;
    for (path, secret, _) in SECRET_HOMES {
        let secret_rendered = rendered
            .manifests
            .iter()
            .any(|m| m.kind == "Secret" && m.name == *secret);
        if secret_rendered
            && lost.iter().any(|l| l == path)
            && values::tree::lookup(&loaded.redacted_tree, path).is_none()
        {
            output::warn(&format!(
                "{path} was recorded, but the Secret {secret} no longer holds it: pass it again (--set-value {path}=...)"
            ));
        }
    }
    let record_tree = render::record::recorded_values(&loaded.redacted_tree, &rendered.manifests);
    Ok((record_tree, rendered))
}

/// The human form: each changed object's diff, the names of those to
/// create and remove, and a count. Also shown by `upgrade` before it asks.
pub(crate) fn print_diffs(objects: &[ObjectDiff], namespace: &str, context: &str, installed: bool) {
    let count = |a: Action| objects.iter().filter(|o| o.action == a).count();
    for o in objects.iter().filter(|o| o.action == Action::Change) {
        output::heading(&format!("~ {}", o.object));
        output::print_text(&o.diff);
    }
    for (action, mark, word) in [
        (Action::Create, "+", "create"),
        (Action::Prune, "-", "remove"),
    ] {
        let names: Vec<&str> = objects
            .iter()
            .filter(|o| o.action == action)
            .map(|o| o.object.as_str())
            .collect();
        if !names.is_empty() {
            output::heading(&format!("{mark} {word}: {}", names.join(", ")));
        }
    }
    let what = if installed {
        format!("the installation in namespace {namespace} of context {context}")
    } else {
        format!("namespace {namespace} of context {context} (nothing installed: what init would create)")
    };
    output::say(&format!(
        "{}: {} to create, {} to change, {} to remove, {} unchanged",
        what,
        count(Action::Create),
        count(Action::Change),
        count(Action::Prune),
        count(Action::Same),
    ));
}

#[cfg(test)]
mod tests;

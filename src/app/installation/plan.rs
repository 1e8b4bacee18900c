//! The plan of an upgrade, worked out before anything is written: the
//! installation as it stands with what the user changes now
//! ([`crate::app::installation::standing`]), whether the platform's spec
//! changes, and what to prune. `upgrade` carries it out; `diff` and
//! `adopt` show it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::installation::standing;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::diff::{Action, ObjectDiff};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::Cluster;
use crate::output;
use crate::render::{self, Manifest};
use crate::values::{self, Input};

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
    /// True when this run gave `CaBundle` itself. Only then do calls to the
    /// platform with the user's token trust it: a bundle only the record
    /// holds is a claim (whoever may edit that Secret could add a CA of
    /// theirs), which the cluster's components may carry but the user's
    /// token does not travel under.
    pub ca_bundle_given: bool,
}

/// How this run reaches the platform with the user's token: the values'
/// `Insecure`, and their `CaBundle` only when this run gave it
/// ([`Plan::ca_bundle_given`]); a bundle only the record holds is left out,
/// and the user is told how to give it.
pub(crate) fn platform_transport(plan: &Plan, allow_http: bool) -> crate::platform::Transport {
    let transport = crate::platform::Transport::of(&plan.loaded.values, allow_http);
    if plan.ca_bundle_given || plan.loaded.values.ca_bundle.is_none() {
        return transport;
    }
    crate::output::note(
        "the installation's CaBundle is not trusted for this run's calls to the platform: \
         its record can be edited by others; behind a TLS-inspecting proxy, pass --ca-bundle FILE",
    );
    transport.without_extra_roots()
}

/// Reads the installation in `namespace` and works out the upgrade to
/// `input` (stored values below it). Reads only.
pub(crate) async fn plan(
    input: Input,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Plan, Outcome> {
    let ca_bundle_given = input.sets("CaBundle");
    let s = standing::read(input, cluster, namespace).await?;
    // A registered install keeps the platform's runtime spec in step, as the
    // chart's post-upgrade hook does: the token is checked before anything
    // is applied, and without one a change to the spec is refused.
    let old_spec = s.old_values.as_ref().and_then(|old| {
        render::render(old, &s.identity, &s.stored_redacted)
            .ok()
            .map(|r| r.runtime_environment)
    });
    let spec_changed = old_spec.as_ref() != Some(&s.rendered.runtime_environment);
    let (live, ledger) = futures::join!(
        inventory::labelled(&cluster.client, namespace),
        crate::cluster::ownership::Ledger::read(&cluster.client, namespace)
    );
    let (live, ledger) = live
        .and_then(|l| Ok((l, ledger?)))
        .doing("listing the installed objects failed")?;
    let mut rendered = s.rendered;
    let mut prune = to_prune(&live, &rendered.manifests, namespace, &ledger);
    crate::app::installation::attached::keep_attached(
        cluster,
        namespace,
        &mut rendered.manifests,
        &mut prune,
    )
    .await?;
    Ok(Plan {
        version: s.version,
        loaded: s.loaded,
        identity: s.identity,
        stored_url_credentials: values::secrets::url_credentials(&s.stored_tree),
        stored_redacted: s.stored_redacted,
        record_tree: s.record_tree,
        rendered,
        runtime_name: s.runtime_name,
        spec_changed,
        prune,
        ca_bundle_given,
    })
}

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

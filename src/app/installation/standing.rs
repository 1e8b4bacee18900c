//! The installation as it stands: its record (in a format this version
//! reads), the values it was made with and their secrets read back from the
//! Secrets that hold them, the user's changes merged on top (refusing what
//! cannot change in place), checked against the agent the Deployment runs,
//! and rendered. The upgrade plan builds on it; the renewals and `runtime
//! attach` read the agent's install through it. Reads only.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::installation::in_place::{in_place_problems, in_place_problems_raw};
use crate::app::installation::record::{self, Record};
use crate::app::installation::{identity, left_behind};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{secrets, Cluster};
use crate::output;
use crate::render::record::SECRET_HOMES;
use crate::render::{self, RECORD_SECRET};
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

/// The installation in a namespace with the user's changes on top, rendered.
pub(crate) struct Standing {
    /// The cf-runner version that recorded it.
    pub version: String,
    /// The values as they were installed (`None` when they no longer load).
    pub old_values: Option<Values>,
    /// The stored values, secrets restored.
    pub stored_tree: Value,
    /// The stored values as recorded (secrets redacted).
    pub stored_redacted: Value,
    pub loaded: values::Loaded,
    pub identity: render::Identity,
    /// The values the record will hold after this render.
    pub record_tree: Value,
    pub rendered: render::Rendered,
    /// The runtime environment's name, for an install registered on the platform.
    pub runtime_name: Option<String>,
}

/// Reads the installation in `namespace` and renders it with `input` on
/// top of its stored values (`Input::default()`: as it stands).
pub(crate) async fn read(
    mut input: Input,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Standing, Outcome> {
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
    // The install would be rendered with the recorded agent in the
    // Deployment and acted for on the platform (`upgrade`, `diff`, `runtime
    // attach`, the renewals): it must be the one the Deployment runs.
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
    let (record_tree, rendered) = render_and_record(&loaded, &identity, &stored.lost)?;
    let registered = record.registered == Some(true);
    let runtime_name = identity.runtime_name.clone().filter(|_| registered);
    Ok(Standing {
        version,
        old_values,
        stored_tree: stored.tree,
        stored_redacted: stored.redacted,
        loaded,
        identity,
        record_tree,
        rendered,
        runtime_name,
    })
}

/// The installation in `namespace` as `upgrade` would write it with no
/// change, an agent serving attached runtimes kept in config-dir mode: for
/// the renewals and `runtime attach`, which rewrite a part of it.
pub(crate) async fn as_it_stands(cluster: &Cluster, namespace: &str) -> Result<Standing, Outcome> {
    let mut standing = read(Input::default(), cluster, namespace).await?;
    crate::app::installation::attached::keep_attached(
        cluster,
        namespace,
        &mut standing.rendered.manifests,
        &mut Vec::new(),
    )
    .await?;
    Ok(standing)
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

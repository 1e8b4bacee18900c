//! The credentials an old install gives its components, and where each
//! goes in cf-runner's install: the volume provisioner's AWS keys, Google
//! service-account key and Azure `azure.json` mount, and the cloud
//! identities (IRSA, workload identity) on the service accounts. Read from
//! the scanned objects, whose Secret values are blank: a value cf-runner
//! keeps in its own Secret is read only when the move carries it.
//!
//! A credential adopt cannot carry (its Secret is gone, or it comes from a
//! place cf-runner cannot mount the same way) is a refusal, before anything
//! is written: moving without it would leave a provisioner that makes no
//! volume.

pub(crate) mod pod_identity;
pub(crate) mod provisioner;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::app::adopt::objects::{in_namespace, kind, name};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::render;
use crate::values::{self, Problem, Problems};

/// Where the old install keeps a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A key of a Secret in the namespace.
    SecretKey { secret: String, key: String },
    /// A literal in the old Deployment's pod spec (plain text there).
    Literal { env: String, value: values::Secret },
    /// A file of the node, mounted from a hostPath.
    HostFile { path: String },
    /// An annotation of a ServiceAccount.
    Annotation {
        service_account: String,
        annotation: String,
        value: String,
    },
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::SecretKey { secret, key } => write!(f, "Secret/{secret} key {key}"),
            Source::Literal { env, .. } => {
                write!(f, "a literal {env} in the old Deployment (plain text)")
            }
            Source::HostFile { path } => write!(f, "the node's {path} (hostPath)"),
            Source::Annotation {
                service_account,
                annotation,
                value,
            } => write!(
                f,
                "ServiceAccount/{service_account} annotation {annotation}={value}"
            ),
        }
    }
}

/// Where cf-runner keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// cf-runner's own Secret, with the same value under `key`; the old
    /// Secret goes once cf-runner's provisioner is up.
    OwnSecret { key: &'static str },
    /// The user's Secret, as it is: cf-runner's provisioner reads it there
    /// (the values file holds the reference) and cf-runner never deletes it.
    UsersSecret,
    /// The same node file, mounted the same way.
    HostFile,
    /// The same annotation on cf-runner's ServiceAccount.
    Annotation { service_account: &'static str },
}

/// One credential of the old install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// The values key that carries it in cf-runner's install.
    pub key: String,
    /// What it is, in words.
    pub what: String,
    pub from: Source,
    pub to: Destination,
}

impl Credential {
    /// The plan's line: what, from where, to where.
    pub fn line(&self) -> String {
        let to = match &self.to {
            Destination::OwnSecret { key } => format!(
                "cf-runner's Secret/{} key {key} (same value; {} in the values file)",
                render::PROVISIONER_SECRET,
                self.key
            ),
            Destination::UsersSecret => match &self.from {
                Source::SecretKey { secret, .. }
                    if crate::app::installation::leftovers::runner_credential(secret, &[]).is_some() =>
                {
                    format!(
                        "stays where it is (named like an old installer's Secret, without its labels: cf-runner \
                         cannot tell who made it); cf-runner's provisioner reads it and never deletes it, and \
                         `cf-runner delete` names it as left ({}SecretKeyRef in the values file)",
                        self.key
                    )
                }
                _ => format!(
                    "stays where it is, yours: cf-runner's provisioner reads it and never deletes it ({}SecretKeyRef in the values file)",
                    self.key
                ),
            },
            Destination::HostFile => format!(
                "the same file, mounted into cf-runner's provisioner ({}: true)",
                self.key
            ),
            Destination::Annotation { service_account } => format!(
                "the same annotation on ServiceAccount/{service_account} ({})",
                self.key
            ),
        };
        format!("{}: {} -> {to}", self.what, self.from)
    }

    /// The old Secret whose key cf-runner takes into its own.
    pub fn carried_secret(&self) -> Option<&str> {
        match (&self.from, &self.to) {
            (Source::SecretKey { secret, .. }, Destination::OwnSecret { .. }) => {
                Some(secret.as_str())
            }
            _ => None,
        }
    }
}

/// What [`read`] finds.
#[derive(Debug, Default)]
pub struct Read {
    pub credentials: Vec<Credential>,
    /// Values that point at credentials (references, flags, annotations;
    /// never a secret value): key path and value.
    pub values: Vec<(String, Value)>,
    /// Credentials that cannot be carried.
    pub problems: Vec<Problem>,
}

pub(crate) fn secret_in<'a>(local: &[&'a Value], name_: &str) -> Option<&'a Value> {
    local
        .iter()
        .copied()
        .find(|o| kind(o) == "Secret" && name(o) == name_)
}

pub(crate) fn has_key(secret: &Value, key: &str) -> bool {
    secret["data"].get(key).is_some() || secret["stringData"].get(key).is_some()
}

/// A credential adopt cannot carry, with why and what to do.
pub(crate) fn refuse(out: &mut Read, key: &str, why: String, fix: String) {
    out.problems.push(Problem::new(key, None, why, fix));
}

/// The values of the credentials cf-runner keeps in its own Secret, read
/// from where the old install keeps them (or, on a re-run after the old
/// Secret went, from cf-runner's Secret): key path and value, as
/// overrides of the move. They never reach the saved values file.
pub(super) async fn carried_values(
    cluster: &cluster::Cluster,
    namespace: &str,
    credentials: &[Credential],
) -> Result<Vec<(String, Value)>, Outcome> {
    let mut out = Vec::new();
    for c in credentials {
        let Destination::OwnSecret { key: own_key } = &c.to else {
            continue;
        };
        let value = match &c.from {
            Source::Literal { value, .. } => Some(value.expose().to_string()),
            Source::SecretKey { secret, key } => {
                let old = cluster::secrets::read_key(&cluster.client, namespace, secret, key)
                    .await
                    .doing("reading the old install's credentials failed")?;
                match old {
                    Some(v) => Some(v),
                    None => cluster::secrets::read_key(
                        &cluster.client,
                        namespace,
                        render::PROVISIONER_SECRET,
                        own_key,
                    )
                    .await
                    .doing("reading the provisioner's credentials failed")?,
                }
            }
            _ => None,
        };
        match value.filter(|v| !v.is_empty()) {
            Some(v) => out.push((c.key.clone(), Value::String(v))),
            None => {
                return Err(Outcome::BadInput(Problems(vec![Problem::new(
                    &c.key,
                    None,
                    format!(
                        "{} could not be read from {} (it is empty or gone); nothing was changed",
                        c.what, c.from
                    ),
                    "restore it and re-run adopt",
                )])))
            }
        }
    }
    Ok(out)
}

/// The names runnerconf gives the runtime environments the agent serves
/// (venonactl's attach writes one `<name>.runtime.yaml` entry each, with
/// a `name:` field). Only the names leave this function: the entries also
/// hold a service-account token.
pub(super) async fn runnerconf_runtimes(
    cluster: &cluster::Cluster,
    namespace: &str,
    objects: &[Value],
) -> Result<Vec<String>, Outcome> {
    let Some(conf) = objects
        .iter()
        .find(|o| kind(o) == "Secret" && name(o) == "runnerconf" && in_namespace(o, namespace))
    else {
        return Ok(Vec::new());
    };
    let entries: Vec<String> = conf["data"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    for entry in entries {
        let text = cluster::secrets::read_key(&cluster.client, namespace, "runnerconf", &entry)
            .await
            .doing("reading Secret runnerconf failed")?;
        let name = text
            .and_then(|t| crate::render::runtimes::file_runtime_name(&t))
            .filter(|n| !n.trim().is_empty());
        if let Some(n) = name {
            names.insert(n);
        }
    }
    Ok(names.into_iter().collect())
}

//! The installation a command works on, as the cluster holds it: which
//! namespace, its record, its labelled objects and dind volumes, and what
//! an earlier install left there (agent token, dind certificates) for a
//! re-run or an upgrade to keep.

pub mod attached;
pub mod identity;
pub mod in_place;
pub mod leftovers;
pub mod plan;
pub mod record;
pub mod skew;
pub mod standing;
pub mod verified;

use futures::join;

use crate::app::installation::record::Record;
use crate::app::session::connect::SlowNote;
use crate::app::session::options::KubeOptions;
use crate::app::session::outcome::Outcome;
use crate::cluster::inventory::{self, LiveObject, VolumeScope};
use crate::cluster::{secrets, Cluster, KubeError};
use crate::output;
use crate::render;
use crate::values::{self, Problem, Problems, Secret};

/// The namespace of the installation a command works on: the one named by
/// `--kube-namespace`, else the only one in the cluster. `Ok(None)` when
/// there is none; several without a name is bad input.
pub(crate) async fn pick_installation(
    cluster: &Cluster,
    kube: &KubeOptions,
    command: &str,
) -> Result<Option<String>, Outcome> {
    if let Some(ns) = &kube.kube_namespace {
        return Ok(Some(ns.clone()));
    }
    let slow = SlowNote::start(cluster);
    let found = inventory::installations(&cluster.client).await;
    drop(slow);
    let found = match found {
        Ok(found) => found,
        Err(e) if e.code() == Some(403) => {
            output::note(&format!(
                "your user may not list installations cluster-wide; looking in namespace {} \
                 (pass --kube-namespace to name another)",
                values::DEFAULT_NAMESPACE
            ));
            return Ok(Some(values::DEFAULT_NAMESPACE.to_string()));
        }
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                &format!("looking for installations at {} failed", cluster.server),
            ))
        }
    };
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.into_iter().next()),
        _ => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-namespace",
            None,
            format!(
                "is needed: context {} holds {} installations ({})",
                cluster.context,
                found.len(),
                found.join(", ")
            ),
            format!("run `cf-runner {command} --kube-namespace <one of them>`"),
        )]))),
    }
}

/// Everything known about one installation, read from the cluster.
pub(crate) struct Installation {
    pub namespace: String,
    pub record: Option<Record>,
    /// The record's values, validated (`None` without a record, or when the
    /// record no longer validates).
    pub values: Option<values::Values>,
    /// Every object carrying the installation's labels.
    pub objects: Vec<LiveObject>,
    /// What cf-runner recorded it created (`cluster::ownership::Ledger`).
    pub ledger: crate::cluster::ownership::Ledger,
    /// dind PVCs and PVs.
    pub volumes: Vec<LiveObject>,
}

impl Installation {
    /// True when nothing of it is in the cluster (volumes aside).
    pub fn is_empty(&self) -> bool {
        self.record.is_none() && self.objects.is_empty()
    }
}

/// StorageClass names whose every volume is a dind volume of `namespace`:
/// ours by label, the one the record names when we provisioned it, and the
/// default name (which still finds the volumes after the class is gone).
pub(crate) fn own_classes(
    namespace: &str,
    values: Option<&values::Values>,
    objects: &[LiveObject],
) -> Vec<String> {
    let mut classes: Vec<String> = objects
        .iter()
        .filter(|o| o.kind == "StorageClass")
        .map(|o| o.name.clone())
        .collect();
    if let Some(v) = values.filter(|v| v.storage.provisioned) {
        classes.push(v.storage.class_name.clone());
    }
    classes.push(format!("dind-local-volumes-runner-{namespace}"));
    classes.sort();
    classes.dedup();
    classes
}

/// Reads one installation: record, labelled objects and dind volumes.
pub(crate) async fn read_installation(
    cluster: &Cluster,
    namespace: &str,
) -> Result<Installation, KubeError> {
    let client = &cluster.client;
    let (record, objects, ledger) = futures::join!(
        record::read(cluster, namespace),
        inventory::labelled(client, namespace),
        crate::cluster::ownership::Ledger::read(client, namespace)
    );
    let (record, objects, ledger) = (record?, objects?, ledger?);
    let values = record.as_ref().and_then(record::loaded).map(|l| l.values);
    let scope = VolumeScope {
        namespace: namespace.to_string(),
        own_classes: own_classes(namespace, values.as_ref(), &objects),
    };
    let volumes = inventory::volumes(client, &scope).await?;
    Ok(Installation {
        namespace: namespace.to_string(),
        record,
        values,
        objects,
        ledger,
        volumes,
    })
}

/// `Kind/name, …` of a list of objects.
pub(crate) fn names(objects: &[LiveObject]) -> String {
    objects
        .iter()
        .map(LiveObject::display_name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// dind's TLS material as an install left it (each `None` when missing,
/// not text, or a placeholder of an offline install).
#[derive(Debug, Clone, Default)]
pub(crate) struct DindCerts {
    pub ca: Option<Secret>,
    pub cert: Option<Secret>,
    pub key: Option<Secret>,
}

impl DindCerts {
    /// All three, when they look like a certificate and its key: what a
    /// re-run of `init` reuses instead of having new ones signed.
    pub(crate) fn complete(&self) -> Option<(Secret, Secret, Secret)> {
        match (&self.ca, &self.cert, &self.key) {
            (Some(ca), Some(cert), Some(key))
                if cert.expose().contains("BEGIN CERTIFICATE")
                    && key.expose().contains("PRIVATE KEY") =>
            {
                Some((ca.clone(), cert.clone(), key.clone()))
            }
            _ => None,
        }
    }
}

/// What an earlier install left in the cluster, with placeholders read as
/// absent.
#[derive(Debug, Default)]
pub(crate) struct LeftBehind {
    /// The agent and runtime names the record holds.
    pub agent_name: Option<String>,
    pub runtime_name: Option<String>,
    /// The agent token of the runner Secret.
    pub agent_token: Option<Secret>,
    pub dind: DindCerts,
}

/// Reads what an install left in `namespace`: the record's names, the agent
/// token and the dind certificates, each through [`record::kept`].
pub(crate) async fn left_behind(
    cluster: &Cluster,
    namespace: &str,
) -> Result<LeftBehind, KubeError> {
    let client = &cluster.client;
    let (record, runner, certs) = join!(
        record::read(cluster, namespace),
        secrets::read_text(client, namespace, render::RUNNER_SECRET),
        secrets::read_text(client, namespace, render::DIND_CERTS_SECRET),
    );
    let (record, runner, certs) = (record?, runner?, certs?);
    let real = |map: &Option<std::collections::BTreeMap<String, String>>, key: &str| {
        record::kept(map.as_ref().and_then(|m| m.get(key)))
    };
    let [ca, cert, key] = render::DIND_CERT_KEYS;
    Ok(LeftBehind {
        agent_name: record::kept(record.as_ref().and_then(|r| r.agent_name.as_ref())),
        runtime_name: record::kept(record.as_ref().and_then(|r| r.runtime_name.as_ref())),
        agent_token: real(&runner, render::TOKEN_KEY).map(Secret::new),
        dind: DindCerts {
            ca: real(&certs, ca).map(Secret::new),
            cert: real(&certs, cert).map(Secret::new),
            key: real(&certs, key).map(Secret::new),
        },
    })
}

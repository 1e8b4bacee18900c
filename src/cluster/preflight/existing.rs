//! An installation already in the namespace, cf-runner's or another
//! tool's (the cf-runtime Helm chart, venonactl, `codefresh runner init`),
//! is found and named; another tool's stops the install. So does any object
//! the install would write that exists and is not cf-runner's
//! (`cluster::ownership`), namespaced or cluster-wide.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use kube::api::{Api, ListParams};
use kube::Client;

use super::{api_message, names, Check, NamespaceState};
pub use crate::cluster::marks::OLD_INSTALLER_APPS;
use crate::cluster::ownership::{self, Collision};
use crate::cluster::{inventory, KubeError};
use crate::render::{Manifest, LABEL_MANAGED_BY, RECORD_SECRET};

/// The label Helm charts put on what they render (`cf-runtime-10.5.2`).
const HELM_CHART_LABEL: &str = "helm.sh/chart";

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
    collisions: &[Collision],
) -> Check {
    let mut details = Vec::new();
    let mut reasons = Vec::new();
    let mut fixes: Vec<String> = Vec::new();
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
            "nothing to do to update it; to install a second runner, choose another --kube-namespace"
                .into(),
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
             installing with cf-runner, or install into another --kube-namespace"
                .into(),
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
             or install into another --kube-namespace: two runners would take the same builds"
                .into(),
        );
    }
    if !collisions.is_empty() {
        foreign = true;
        reasons.push(format!(
            "{} object(s) the install would write exist and are not cf-runner's",
            collisions.len()
        ));
        details.extend(collisions.iter().map(ToString::to_string));
        fixes.push(ownership::collision_fix(namespace));
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

pub(super) async fn check_existing(
    client: &Client,
    manifests: &[Manifest],
    namespace: &str,
    state: NamespaceState,
) -> Check {
    // A namespace that does not exist holds nothing: no record, no other
    // installer's workloads, no object under one of our names. Only the
    // cluster-wide objects can be in the way.
    if state == NamespaceState::Missing {
        let cluster_wide: Vec<&Manifest> =
            manifests.iter().filter(|m| m.namespace.is_none()).collect();
        return match ownership::collisions(client, &cluster_wide, namespace, &|_| None).await {
            Ok(collisions) => {
                existing_installation(namespace, None, &[], &HelmInstall::default(), &collisions)
            }
            Err(e) => unreadable(namespace, "the objects the install would write", e),
        };
    }
    let old_selector = format!(
        "app in ({}),{LABEL_MANAGED_BY}!=cf-runner,{LABEL_MANAGED_BY}!=Helm",
        OLD_INSTALLER_APPS.join(",")
    );
    let lp = ListParams::default().labels(&old_selector);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    let written: Vec<&Manifest> = manifests.iter().collect();
    let (record, deployments, daemonsets, helm, collisions) = futures::join!(
        inventory::record(client, namespace),
        deployments.list_metadata(&lp),
        daemonsets.list_metadata(&lp),
        helm_install(client, namespace),
        ownership::collisions(client, &written, namespace, &|_| None),
    );
    let unreadable = |what: &str, err: KubeError| unreadable(namespace, what, err);
    let collisions = match collisions {
        Ok(c) => c,
        Err(e) => return unreadable("the objects the install would write", e),
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
    existing_installation(namespace, record.as_ref(), &old, &helm, &collisions)
}

/// The check when `what` could not be read.
fn unreadable(namespace: &str, what: &str, err: KubeError) -> Check {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::preflight::Status;

    #[test]
    fn an_existing_installation_is_named() {
        let record = inventory::Record {
            cf_runner_version: Some("0.1.0".into()),
            agent_name: Some("ctx_ci".into()),
            runtime_name: Some("ctx/ci".into()),
            ..Default::default()
        };
        let none = HelmInstall::default();
        let c = existing_installation("ci", Some(&record), &[], &none, &[]);
        assert_eq!(c.status, Status::Warn);
        assert!(
            c.reason.contains("made by cf-runner 0.1.0, agent ctx_ci"),
            "{}",
            c.reason
        );
        // Another tool's runner stops the install, naming what is there.
        let c = existing_installation("ci", None, &["Deployment/venona".into()], &none, &[]);
        assert_eq!(c.status, Status::Fail);
        assert_eq!(c.details, vec!["Deployment/venona".to_string()]);
        assert_eq!(
            existing_installation("ci", None, &[], &none, &[]).status,
            Status::Pass
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
        let c = existing_installation("ci", None, &[], &helm, &[]);
        assert_eq!(c.status, Status::Fail);
        assert!(c.reason.contains("cf-runtime Helm chart"), "{}", c.reason);
        assert_eq!(c.details.len(), 2);
        let fix = c.fix.unwrap();
        assert!(fix.contains("helm uninstall"), "{fix}");
        assert!(!fix.contains("force-conflicts"), "{fix}");
    }
}

//! OpenShift: a cluster that serves `security.openshift.io` admits pods by
//! SecurityContextConstraints (SCCs), and the install's pods need more than
//! the `restricted-v2` SCC every account gets: the runner creates the
//! builds' dind pods, which are privileged (an SCC is checked against the
//! account that creates a pod as well as the pod's own), and the volume
//! provisioner's node cleaner and helpers write host folders. This check
//! says so where it matters, from one request (`GET /apis`): on a cluster
//! without the group it shows nothing, unless the render binds the SCC
//! anyway.

use kube::Client;

use super::{names, Check};
use crate::render::Manifest;
use crate::values::openshift::{PRIVILEGED_SCC_ROLE, SCC_GROUP};

/// The accounts that need the `privileged` SCC, and why.
pub const NEEDS_PRIVILEGED: &[(&str, &str)] = &[
    (
        "runner",
        "creates the builds' dind pods, which run privileged",
    ),
    (
        "volume-provisioner",
        "its node cleaner and volume helpers write host folders",
    ),
];

/// Whether the API server serves the OpenShift SCC API; `Err` when it did
/// not answer.
pub async fn serves_scc(client: &Client) -> Result<bool, String> {
    let groups = client.list_api_groups().await.map_err(|e| e.to_string())?;
    Ok(groups.groups.iter().any(|g| g.name == SCC_GROUP))
}

/// True when the rendered objects bind the privileged SCC.
fn binds_privileged(manifests: &[Manifest]) -> bool {
    manifests.iter().any(|m| {
        m.kind == "RoleBinding" && m.object["roleRef"]["name"].as_str() == Some(PRIVILEGED_SCC_ROLE)
    })
}

/// The check, decided from whether the group is served and whether the
/// render binds the SCC; `None` where OpenShift plays no part.
pub fn decide(served: bool, manifests: &[Manifest]) -> Option<Check> {
    let bound = binds_privileged(manifests);
    let needs: Vec<String> = NEEDS_PRIVILEGED
        .iter()
        .map(|(account, why)| format!("ServiceAccount {account}: SCC privileged ({why})"))
        .chain(std::iter::once(
            "builds (dind, engine): admitted through the runner's SCC, which creates them".into(),
        ))
        .collect();
    match (served, bound) {
        (false, false) => None,
        (true, true) => Some(
            Check::pass(
                names::OPENSHIFT,
                format!(
                    "OpenShift ({SCC_GROUP} is served): the install binds the accounts that need it \
                     to SCC privileged (RoleBinding openshift-scc-privileged) and fixes no user ids"
                ),
            )
            .with_details(needs),
        ),
        (true, false) => Some(
            Check::warn(
                names::OPENSHIFT,
                format!(
                    "OpenShift ({SCC_GROUP} is served), but the install does not bind SCC \
                     privileged (OpenShift: false): the runner's and the provisioner's pods, and \
                     every build, are refused unless an admin granted it"
                ),
                "set OpenShift: true (or leave it out: auto), or have an admin run \
                 `oc adm policy add-scc-to-user privileged -z runner -z volume-provisioner -n <namespace>`",
            )
            .with_details(needs),
        ),
        (false, true) => Some(Check::warn(
            names::OPENSHIFT,
            format!(
                "OpenShift: true, but the cluster does not serve {SCC_GROUP}: the SCC binding \
                 grants nothing here"
            ),
            "on a cluster that is not OpenShift, leave OpenShift out (auto) or set it to false",
        )),
    }
}

/// Asks the server and decides; a server that does not answer gets no
/// check of its own (the version check says so).
pub(super) async fn check_openshift(client: &Client, manifests: &[Manifest]) -> Option<Check> {
    let served = serves_scc(client).await.ok()?;
    decide(served, manifests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::preflight::Status;

    fn binding() -> Manifest {
        let object = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "openshift-scc-privileged"},
            "roleRef": {"kind": "ClusterRole", "name": PRIVILEGED_SCC_ROLE}});
        Manifest {
            api_version: "rbac.authorization.k8s.io/v1".into(),
            kind: "RoleBinding".into(),
            name: "openshift-scc-privileged".into(),
            namespace: Some("codefresh".into()),
            component: crate::render::Component::Runner,
            stage: 1,
            object,
        }
    }

    #[test]
    fn openshift_shows_only_where_it_matters() {
        assert!(decide(false, &[]).is_none());
        let bound = decide(true, &[binding()]).unwrap();
        assert_eq!(bound.status, Status::Pass);
        assert!(bound.details.iter().any(|d| d.contains("runner")));
        let unbound = decide(true, &[]).unwrap();
        assert_eq!(unbound.status, Status::Warn);
        assert!(unbound.fix.unwrap().contains("OpenShift: true"));
        assert_eq!(decide(false, &[binding()]).unwrap().status, Status::Warn);
    }
}

//! Permissions: the user holds every right the install uses, including
//! every rule of the Roles and ClusterRoles it creates (RBAC refuses to
//! grant what the granter does not hold, unless they hold `escalate` and
//! `bind`). Asked with a SelfSubjectRulesReview per namespace and
//! SelfSubjectAccessReviews where the rules cannot answer (`rules_review`).

use std::collections::HashMap;
use std::fmt;

use kube::Client;
use serde_json::Value;

use super::{api_message, names, Check, NamespaceState};
use crate::cluster::resource_for;
use crate::render::Manifest;

pub use super::rules_review::Permission;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if let Some(name) = &self.name {
            write!(f, "/{name}")?;
        }
        if !self.group.is_empty() {
            write!(f, " ({})", self.group)?;
        }
        match &self.namespace {
            Some(ns) => write!(f, " in namespace {ns}"),
            None => write!(f, " cluster-wide"),
        }
    }
}

/// What applying and waiting do to each object: GET (the namespace, the
/// workloads while waiting), LIST (the inventory of what exists), and
/// server-side apply, which is a PATCH that RBAC also checks as CREATE when
/// the object is new. Waiting also lists pods to explain a stuck workload.
/// A namespace someone else made is only read, so a user who administers
/// just that namespace is not asked for rights on every namespace.
pub fn install_permissions(manifests: &[Manifest], namespace: NamespaceState) -> Vec<Permission> {
    let mut out: Vec<Permission> = Vec::new();
    let mut push = |p: Permission| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    for m in manifests {
        if m.kind == "Namespace" && namespace == NamespaceState::Foreign {
            // RBAC sees a namespace's own name as the request's namespace.
            push(Permission::new("get", "", "namespaces", Some(&m.name)).named(&m.name));
            continue;
        }
        let ar = resource_for(&m.api_version, &m.kind);
        for verb in ["get", "list", "create", "patch"] {
            push(Permission::new(
                verb,
                &ar.group,
                &ar.plural,
                m.namespace.as_deref(),
            ));
        }
    }
    if let Some(ns) = manifests
        .iter()
        .find(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .and_then(|m| m.namespace.as_deref())
    {
        push(Permission::new("list", "", "pods", Some(ns)));
    }
    // The install's lock (`cluster::lock`): a Lease in the namespace.
    if let Some(ns) = manifests.iter().find_map(|m| m.namespace.as_deref()) {
        for (verb, group, resource) in crate::cluster::marks::PERMISSIONS {
            push(Permission::new(verb, group, resource, Some(ns)));
        }
    }
    out
}

/// A Role or ClusterRole the install creates, with what it grants.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    /// `Role/name` or `ClusterRole/name`.
    pub role: String,
    pub name: String,
    /// `None` for a ClusterRole.
    pub namespace: Option<String>,
    pub permissions: Vec<Permission>,
}

impl Grant {
    /// `escalate` and `bind` on this role: together they let a user create
    /// and bind it without holding its rules.
    pub(super) fn escalate_and_bind(&self) -> [Permission; 2] {
        let resource = if self.namespace.is_some() {
            "roles"
        } else {
            "clusterroles"
        };
        let ns = self.namespace.as_deref();
        [
            Permission::new("escalate", RBAC_GROUP, resource, ns).named(&self.name),
            Permission::new("bind", RBAC_GROUP, resource, ns).named(&self.name),
        ]
    }
}

/// Every rule of every rendered Role and ClusterRole, expanded to single
/// permissions. A ClusterRole's rules must be held cluster-wide (that is
/// what the API server compares against when it is created).
pub fn granted_permissions(manifests: &[Manifest]) -> Vec<Grant> {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    manifests
        .iter()
        .filter(|m| m.kind == "Role" || m.kind == "ClusterRole")
        .map(|m| {
            let namespace = if m.kind == "Role" {
                m.namespace.clone()
            } else {
                None
            };
            let mut permissions = Vec::new();
            let rules = m.object.get("rules").and_then(Value::as_array);
            // cf-runner's templates grant no nonResourceURLs, so rules without
            // resources contribute nothing here.
            for rule in rules.into_iter().flatten() {
                let names = strings(rule.get("resourceNames"));
                let names: Vec<Option<String>> = if names.is_empty() {
                    vec![None]
                } else {
                    names.into_iter().map(Some).collect()
                };
                for group in strings(rule.get("apiGroups")) {
                    for resource in strings(rule.get("resources")) {
                        for verb in strings(rule.get("verbs")) {
                            for name in &names {
                                let p = Permission {
                                    verb: verb.clone(),
                                    group: group.clone(),
                                    resource: resource.clone(),
                                    name: name.clone(),
                                    namespace: namespace.clone(),
                                };
                                if !permissions.contains(&p) {
                                    permissions.push(p);
                                }
                            }
                        }
                    }
                }
            }
            Grant {
                role: m.display_name(),
                name: m.name.clone(),
                namespace,
                permissions,
            }
        })
        .collect()
}

/// Every permission to ask the API server about, without repeats.
pub fn permissions_to_review(required: &[Permission], grants: &[Grant]) -> Vec<Permission> {
    let mut out: Vec<Permission> = Vec::new();
    let all = required.iter().cloned().chain(
        grants
            .iter()
            .flat_map(|g| g.permissions.iter().cloned().chain(g.escalate_and_bind())),
    );
    for p in all {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The permissions the user lacks, each with why it is needed, given the
/// API server's answers. A role's rules the user does not hold are missing
/// unless the user may both `escalate` and `bind` that role.
pub fn missing_permissions(
    required: &[Permission],
    grants: &[Grant],
    allowed: &HashMap<Permission, bool>,
) -> Vec<String> {
    let held = |p: &Permission| allowed.get(p).copied().unwrap_or(false);
    let mut out: Vec<String> = required
        .iter()
        .filter(|p| !held(p))
        .map(ToString::to_string)
        .collect();
    for grant in grants {
        let lacking: Vec<&Permission> = grant.permissions.iter().filter(|p| !held(p)).collect();
        if lacking.is_empty() || grant.escalate_and_bind().iter().all(held) {
            continue;
        }
        for p in lacking {
            let line = format!("{p} (granted by {})", grant.role);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

/// Asks the API server about every permission; `Err` is the check to
/// return when it could not answer.
async fn review_all(
    client: &Client,
    to_review: &[Permission],
    check_name: &str,
) -> Result<HashMap<Permission, bool>, Check> {
    match super::rules_review::allowed(client, to_review).await {
        Ok(allowed) => Ok(allowed),
        Err(e) => Err(Check::fail(
            check_name,
            format!("could not review your permissions: {}", api_message(&e)),
            e.hint().unwrap_or_else(|| {
                "SelfSubjectAccessReview is open to every signed-in user; check the connection and re-run".into()
            }),
        )),
    }
}

pub(super) async fn check_permissions(
    client: &Client,
    manifests: &[Manifest],
    namespace: NamespaceState,
) -> Check {
    let required = install_permissions(manifests, namespace);
    let grants = granted_permissions(manifests);
    let to_review = permissions_to_review(&required, &grants);
    let allowed = match review_all(client, &to_review, names::PERMISSIONS).await {
        Ok(a) => a,
        Err(check) => return check,
    };
    let missing = missing_permissions(&required, &grants, &allowed);
    if missing.is_empty() {
        let granted: usize = grants.iter().map(|g| g.permissions.len()).sum();
        return Check::pass(
            names::PERMISSIONS,
            format!(
                "you hold the {} permissions the install uses and the {granted} its roles grant",
                required.len()
            ),
        );
    }
    Check::fail(
        names::PERMISSIONS,
        format!(
            "your user lacks {} permission(s) the install needs",
            missing.len()
        ),
        "ask a cluster admin to grant them (RBAC lets you create a role only with rules you hold \
         yourself, or with `escalate` and `bind` on it), or use a kube context with more rights",
    )
    .with_details(missing)
}

/// What `diff` does to each object: reads it (GET, and LIST for the
/// inventory of what exists) and sends a server-side apply with
/// `dryRun=All`, which RBAC checks as the real request: PATCH, and CREATE as
/// well for an object not there yet (`installed` false: nothing is). Nothing
/// is written, but a dry-run of a Role or ClusterRole is still refused to a
/// user who holds neither its rules nor `escalate` and `bind` on it.
pub fn diff_permissions(manifests: &[Manifest], installed: bool) -> Vec<Permission> {
    let mut out: Vec<Permission> = Vec::new();
    let verbs: &[&str] = if installed {
        &["get", "list", "patch"]
    } else {
        &["get", "list", "patch", "create"]
    };
    for m in manifests {
        let ar = resource_for(&m.api_version, &m.kind);
        for verb in verbs {
            let p = Permission::new(verb, &ar.group, &ar.plural, m.namespace.as_deref());
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The rights `diff` needs (see [`diff_permissions`]), asked of the API
/// server with SelfSubjectAccessReviews; fails naming each one missing.
pub async fn check_diff_permissions(
    client: &Client,
    manifests: &[Manifest],
    installed: bool,
) -> Check {
    let required = diff_permissions(manifests, installed);
    let grants = granted_permissions(manifests);
    let to_review = permissions_to_review(&required, &grants);
    let allowed = match review_all(client, &to_review, names::DIFF_PERMISSIONS).await {
        Ok(a) => a,
        Err(check) => return check,
    };
    let missing = missing_permissions(&required, &grants, &allowed);
    if missing.is_empty() {
        return Check::pass(
            names::DIFF_PERMISSIONS,
            format!(
                "you hold the {} read and dry-run permissions diff uses",
                required.len()
            ),
        );
    }
    Check::fail(
        names::DIFF_PERMISSIONS,
        format!(
            "your user lacks {} permission(s) diff needs: it reads each object (get, list) and asks \
             the API server for a dry-run of the apply (patch{})",
            missing.len(),
            if installed { "" } else { ", create" }
        ),
        "ask a cluster admin for them: diff writes nothing, but RBAC checks a dry-run as the real \
         request (and a role's dry-run needs its rules, or `escalate` and `bind` on it); or use a \
         kube context with more rights",
    )
    .with_details(missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Component;
    use serde_json::json;

    fn manifest(
        api_version: &str,
        kind: &str,
        name: &str,
        ns: Option<&str>,
        object: Value,
    ) -> Manifest {
        Manifest {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            namespace: ns.map(str::to_string),
            component: Component::Runner,
            stage: 1,
            object,
        }
    }

    #[test]
    fn permissions_read_like_an_admin_would_grant_them() {
        let p = Permission::new("create", "apps", "deployments", Some("ci"));
        assert_eq!(p.to_string(), "create deployments (apps) in namespace ci");
        let p = Permission::new("create", RBAC_GROUP, "clusterroles", None);
        assert_eq!(
            p.to_string(),
            "create clusterroles (rbac.authorization.k8s.io) cluster-wide"
        );
        let p = Permission::new("get", "", "secrets", Some("ci")).named("x");
        assert_eq!(p.to_string(), "get secrets/x in namespace ci");
    }

    fn sample() -> Vec<Manifest> {
        vec![
            manifest("v1", "Namespace", "ci", None, json!({})),
            manifest("apps/v1", "Deployment", "runner", Some("ci"), json!({})),
            manifest(
                "rbac.authorization.k8s.io/v1",
                "Role",
                "runner",
                Some("ci"),
                json!({"rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"], "verbs": ["get", "create"]}]}),
            ),
            manifest(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "prov-ci",
                None,
                json!({"rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}]}),
            ),
        ]
    }

    #[test]
    fn the_install_needs_get_list_create_patch_on_every_object() {
        let required = install_permissions(&sample(), NamespaceState::Missing);
        let shown: Vec<String> = required.iter().map(ToString::to_string).collect();
        for line in [
            "create namespaces cluster-wide",
            "patch namespaces cluster-wide",
            "get deployments (apps) in namespace ci",
            "list deployments (apps) in namespace ci",
            "create roles (rbac.authorization.k8s.io) in namespace ci",
            "create clusterroles (rbac.authorization.k8s.io) cluster-wide",
            "list pods in namespace ci",
            "create leases (coordination.k8s.io) in namespace ci",
            "update leases (coordination.k8s.io) in namespace ci",
            "delete leases (coordination.k8s.io) in namespace ci",
        ] {
            assert!(
                shown.contains(&line.to_string()),
                "{line} not in {shown:#?}"
            );
        }
        // Four kinds, the pods, and the lock's Lease.
        assert_eq!(shown.len(), 4 * 4 + 1 + 4, "no repeats: {shown:#?}");
    }

    #[test]
    fn a_namespace_made_by_someone_else_is_only_read() {
        let required = install_permissions(&sample(), NamespaceState::Foreign);
        let shown: Vec<String> = required.iter().map(ToString::to_string).collect();
        assert!(
            shown.contains(&"get namespaces/ci in namespace ci".to_string()),
            "{shown:#?}"
        );
        assert!(
            !shown.iter().any(|l| l.contains("namespaces cluster-wide")),
            "{shown:#?}"
        );
        assert_eq!(shown.len(), 3 * 4 + 1 + 1 + 4);
    }

    #[test]
    fn role_rules_are_expanded_in_their_scope() {
        let grants = granted_permissions(&sample());
        assert_eq!(grants.len(), 2);
        assert_eq!(grants[0].role, "Role/runner");
        assert_eq!(grants[0].permissions.len(), 4);
        assert!(grants[0].permissions.contains(&Permission::new(
            "create",
            "",
            "persistentvolumeclaims",
            Some("ci")
        )));
        assert_eq!(
            grants[1].permissions,
            vec![Permission::new("list", "", "nodes", None)]
        );
    }

    #[test]
    fn missing_rules_are_forgiven_only_with_escalate_and_bind() {
        let manifests = sample();
        let required = install_permissions(&manifests, NamespaceState::Missing);
        let grants = granted_permissions(&manifests);
        let all = permissions_to_review(&required, &grants);
        // Everything but the ClusterRole's rule.
        let mut allowed: HashMap<Permission, bool> =
            all.iter().map(|p| (p.clone(), true)).collect();
        let nodes = Permission::new("list", "", "nodes", None);
        allowed.insert(nodes.clone(), false);
        let [escalate, bind] = grants[1].escalate_and_bind();
        allowed.insert(bind.clone(), false);
        let missing = missing_permissions(&required, &grants, &allowed);
        assert_eq!(
            missing,
            vec!["list nodes cluster-wide (granted by ClusterRole/prov-ci)".to_string()]
        );
        allowed.insert(bind, true);
        assert!(missing_permissions(&required, &grants, &allowed).is_empty());
        allowed.insert(escalate, false);
        assert_eq!(missing_permissions(&required, &grants, &allowed).len(), 1);

        // No rights at all: every required permission is named, in order.
        let none = HashMap::new();
        let missing = missing_permissions(&required, &grants, &none);
        assert_eq!(missing[0], "get namespaces cluster-wide");
        assert_eq!(missing.len(), required.len() + 4 + 1);
    }

    #[test]
    fn diff_needs_read_and_dry_run_rights_and_create_only_on_a_first_install() {
        let shown = |installed| -> Vec<String> {
            diff_permissions(&sample(), installed)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let installed = shown(true);
        assert_eq!(installed.len(), 4 * 3, "{installed:#?}");
        assert!(installed.contains(&"patch deployments (apps) in namespace ci".to_string()));
        assert!(!installed.iter().any(|l| l.starts_with("create ")));
        let fresh = shown(false);
        assert_eq!(fresh.len(), 4 * 4, "{fresh:#?}");
        assert!(fresh
            .contains(&"create clusterroles (rbac.authorization.k8s.io) cluster-wide".to_string()));
    }
}

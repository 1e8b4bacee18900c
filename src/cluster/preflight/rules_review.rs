//! Which of a list of permissions the user holds, in as few requests as the
//! cluster's authorizers allow, with the same answers as one
//! SelfSubjectAccessReview (SSAR) per permission, which stays the authority.
//!
//! One SelfSubjectRulesReview (SSRR) per namespace asked about lists the
//! rules the user holds there; permissions are matched against them the way
//! the RBAC authorizer matches a request against a rule. How a rules review
//! differs from an access review, and what is done about each difference:
//!
//! - **Cluster-scoped permissions.** A rules review is always for a
//!   namespace, and its rules mix the ClusterRoleBindings' with the
//!   namespace's RoleBindings', without saying which is which; a
//!   cluster-scoped request is allowed by the former only. So cluster-scoped
//!   permissions are matched against the rules review of [`CLUSTER_SCOPE`], a
//!   name no namespace can have (it holds a dot): no RoleBinding can exist
//!   there, so its rules are exactly those of the ClusterRoleBindings.
//! - **Other authorizers (webhook, Node).** Only authorizers that can list
//!   rules (RBAC, ABAC, AlwaysAllow) contribute to a rules review; a webhook
//!   authorizer (GKE's IAM, for one) can allow or explicitly deny anything,
//!   so the API server marks every review `incomplete`. Then nothing the
//!   rules say is trusted and every permission gets its own SSAR, as before.
//!   The same when a review fails or RBAC could not evaluate a binding (its
//!   role is missing: `incomplete` with an `evaluationError`).
//! - **Groups that need no rule** (`system:masters` is allowed everything
//!   before RBAC is asked, and no review lists that). A permission the rules
//!   do not allow is therefore never reported missing on the rules' word:
//!   each such permission is confirmed by its own SSAR. A user who holds
//!   everything (the usual install) sends no SSAR at all; one who lacks
//!   something sends one per permission lacking.
//! - **Aggregated ClusterRoles** are stored with the aggregated rules filled
//!   in by the controller, and RBAC reads those same stored rules for both
//!   kinds of review: nothing differs.
//! - **Wildcards** (`*` in verbs, apiGroups, resources) are matched as RBAC
//!   matches them; `resourceNames` too (a rule that names objects allows a
//!   request for one of those names only, never an unnamed one). A resource
//!   with a subresource (`pods/log`) is asked as that one string, as the SSAR
//!   was: it matches `*` or exactly `pods/log`.
//! - **Non-resource URLs**: the install asks for none (rendered rules with
//!   `nonResourceURLs` only are not checked), so they are not read.

use std::collections::{BTreeSet, HashMap};

use futures::stream::{self, StreamExt};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, ResourceRule, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    SelfSubjectRulesReview, SelfSubjectRulesReviewSpec,
};
use kube::api::{Api, PostParams};
use kube::Client;

use crate::cluster::KubeError;

/// One thing a user may or may not be allowed to do.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permission {
    pub verb: String,
    /// API group; empty for the core group.
    pub group: String,
    /// Plural resource name.
    pub resource: String,
    /// Limited to one object, when a rule names it.
    pub name: Option<String>,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

impl Permission {
    pub(crate) fn new(verb: &str, group: &str, resource: &str, namespace: Option<&str>) -> Self {
        Permission {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            name: None,
            namespace: namespace.map(str::to_string),
        }
    }
    pub(super) fn named(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// How many SelfSubjectAccessReviews are in flight at once: enough to finish
/// ~100 reviews in a few round-trips, few enough not to open a connection
/// per review against a small API server. (kube's client sets no QPS limit.)
const REVIEW_CONCURRENCY: usize = 16;

/// The namespace whose rules review lists only cluster-wide rules: not a
/// DNS label (it has a dot), so no namespace, and no RoleBinding, can be in it.
pub const CLUSTER_SCOPE: &str = "cf-runner.cluster-scope";

/// The rules a user holds in one namespace, as a rules review gave them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    pub rules: Vec<ResourceRule>,
    /// The review could not list everything that may allow or deny.
    pub incomplete: bool,
}

/// True when `rule` allows `p`, as RBAC's rule matching decides it.
pub fn rule_allows(rule: &ResourceRule, p: &Permission) -> bool {
    let has = |list: Option<&Vec<String>>, want: &str| {
        list.is_some_and(|l| l.iter().any(|x| x == "*" || x == want))
    };
    let names_match = match rule.resource_names.as_deref() {
        None | Some([]) => true,
        Some(names) => names.iter().any(|n| Some(n) == p.name.as_ref()),
    };
    rule.verbs.iter().any(|v| v == "*" || *v == p.verb)
        && has(rule.api_groups.as_ref(), &p.group)
        && has(rule.resources.as_ref(), &p.resource)
        && names_match
}

/// The namespace whose rules answer for `p`.
fn scope_of(p: &Permission) -> &str {
    p.namespace.as_deref().unwrap_or(CLUSTER_SCOPE)
}

/// What the rules alone say about each permission: `Some(true)` allowed,
/// `None` when they cannot say (an incomplete review, or not allowed: only
/// an access review may deny).
pub fn decide(to_review: &[Permission], rules: &HashMap<String, Rules>) -> Vec<Option<bool>> {
    to_review
        .iter()
        .map(|p| {
            let r = rules.get(scope_of(p))?;
            (!r.incomplete && r.rules.iter().any(|rule| rule_allows(rule, p))).then_some(true)
        })
        .collect()
}

async fn rules_in(client: &Client, namespace: &str) -> Result<Rules, KubeError> {
    let api: Api<SelfSubjectRulesReview> = Api::all(client.clone());
    let review = SelfSubjectRulesReview {
        spec: SelfSubjectRulesReviewSpec {
            namespace: Some(namespace.to_string()),
        },
        ..Default::default()
    };
    let answer = api
        .create(&PostParams::default(), &review)
        .await
        .map_err(|e| KubeError::from_kube("asking", "for a SelfSubjectRulesReview", e))?;
    let status = answer.status.unwrap_or_default();
    Ok(Rules {
        rules: status.resource_rules,
        incomplete: status.incomplete,
    })
}

async fn access_review(client: &Client, p: &Permission) -> Result<bool, KubeError> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let ssar = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(p.verb.clone()),
                group: Some(p.group.clone()),
                resource: Some(p.resource.clone()),
                name: p.name.clone(),
                namespace: p.namespace.clone(),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = api
        .create(&PostParams::default(), &ssar)
        .await
        .map_err(|e| KubeError::from_kube("asking", "for a SelfSubjectAccessReview", e))?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

/// Whether the user holds each of `to_review`: one rules review per
/// namespace (and one for cluster scope), then an access review for each
/// permission the rules do not allow, or for every one when the rules
/// cannot be trusted. The first error of an access review is returned.
pub async fn allowed(
    client: &Client,
    to_review: &[Permission],
) -> Result<HashMap<Permission, bool>, KubeError> {
    let scopes: BTreeSet<&str> = to_review.iter().map(scope_of).collect();
    let reviews = futures::future::join_all(scopes.iter().map(|ns| rules_in(client, ns))).await;
    let mut rules = HashMap::new();
    for (ns, review) in scopes.iter().zip(reviews) {
        // A review that failed tells nothing: its permissions get SSARs,
        // which report the failure themselves if it persists.
        if let Ok(r) = review {
            rules.insert(ns.to_string(), r);
        }
    }
    // One incomplete review means an authorizer that lists nothing is in
    // the chain, and it may deny what the rules allow: trust no rule.
    if rules.values().any(|r| r.incomplete) {
        rules.clear();
    }
    let decided = decide(to_review, &rules);
    let ask: Vec<&Permission> = to_review
        .iter()
        .zip(&decided)
        .filter(|(_, d)| d.is_none())
        .map(|(p, _)| p)
        .collect();
    let answers: Vec<Result<bool, KubeError>> = stream::iter(ask.iter())
        .map(|p| access_review(client, p))
        .buffered(REVIEW_CONCURRENCY)
        .collect()
        .await;
    let mut out: HashMap<Permission, bool> = to_review
        .iter()
        .zip(&decided)
        .filter_map(|(p, d)| d.map(|yes| (p.clone(), yes)))
        .collect();
    for (p, answer) in ask.into_iter().zip(answers) {
        match answer {
            Ok(yes) => {
                out.insert(p.clone(), yes);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> ResourceRule {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        ResourceRule {
            verbs: v(verbs),
            api_groups: Some(v(groups)),
            resources: Some(v(resources)),
            resource_names: (!names.is_empty()).then(|| v(names)),
        }
    }

    #[test]
    fn rules_match_as_rbac_matches_them() {
        let create_deploy = Permission::new("create", "apps", "deployments", Some("ci"));
        assert!(rule_allows(
            &rule(&["create"], &["apps"], &["deployments"], &[]),
            &create_deploy
        ));
        assert!(rule_allows(
            &rule(&["*"], &["*"], &["*"], &[]),
            &create_deploy
        ));
        // The core group is the empty string, not a wildcard.
        assert!(!rule_allows(
            &rule(&["create"], &[""], &["deployments"], &[]),
            &create_deploy
        ));
        assert!(!rule_allows(
            &rule(&["get", "list"], &["apps"], &["deployments"], &[]),
            &create_deploy
        ));
        // A subresource is matched as one string, or by `*`.
        let logs = Permission::new("get", "", "pods/log", Some("ci"));
        assert!(!rule_allows(&rule(&["get"], &[""], &["pods"], &[]), &logs));
        assert!(rule_allows(
            &rule(&["get"], &[""], &["pods/log"], &[]),
            &logs
        ));
        assert!(rule_allows(&rule(&["get"], &[""], &["*"], &[]), &logs));
        // resourceNames: only the named object, never an unnamed request.
        let named = Permission::new("bind", "rbac.authorization.k8s.io", "roles", Some("ci"))
            .named("runner");
        let only_runner = rule(
            &["bind"],
            &["rbac.authorization.k8s.io"],
            &["roles"],
            &["runner"],
        );
        assert!(rule_allows(&only_runner, &named));
        assert!(!rule_allows(
            &only_runner,
            &Permission::new("bind", "rbac.authorization.k8s.io", "roles", Some("ci"))
        ));
        assert!(!rule_allows(
            &only_runner,
            &Permission::new("bind", "rbac.authorization.k8s.io", "roles", Some("ci"))
                .named("other")
        ));
    }

    #[test]
    fn cluster_scoped_permissions_are_answered_by_cluster_rules_only() {
        let everything = Rules {
            rules: vec![rule(&["*"], &["*"], &["*"], &[])],
            incomplete: false,
        };
        let nothing = Rules::default();
        // Admin of the namespace only (a RoleBinding): its rules allow
        // creating namespaces *in* ci, which says nothing cluster-wide.
        let rules = HashMap::from([
            ("ci".to_string(), everything.clone()),
            (CLUSTER_SCOPE.to_string(), nothing),
        ]);
        let ps = [
            Permission::new("create", "", "namespaces", None),
            Permission::new("create", "apps", "deployments", Some("ci")),
        ];
        assert_eq!(decide(&ps, &rules), vec![None, Some(true)]);
        let rules = HashMap::from([
            ("ci".to_string(), everything.clone()),
            (CLUSTER_SCOPE.to_string(), everything),
        ]);
        assert_eq!(decide(&ps, &rules), vec![Some(true), Some(true)]);
    }

    #[test]
    fn an_incomplete_or_missing_review_decides_nothing() {
        let rules = HashMap::from([(
            "ci".to_string(),
            Rules {
                rules: vec![rule(&["*"], &["*"], &["*"], &[])],
                incomplete: true,
            },
        )]);
        let ps = [
            Permission::new("create", "apps", "deployments", Some("ci")),
            Permission::new("create", "apps", "deployments", Some("other")),
        ];
        assert_eq!(decide(&ps, &rules), vec![None, None]);
    }
}

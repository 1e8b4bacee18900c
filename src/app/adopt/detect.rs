//! Which tool made the runner in a namespace, what its install is as
//! cf-runner values, and the plan of the move.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::app::adopt::credentials;
use crate::app::adopt::found::Found;
use crate::app::adopt::objects::{
    in_namespace, kind, label, name, reference, ObjectRef, Tool, COVERED_CHART, HELM_CHART_LABEL,
    HELM_RELEASE_TYPE,
};
use crate::app::adopt::old_values::read_values;
use crate::app::installation::leftovers;
use crate::render::{self, LABEL_MANAGED_BY};
use crate::values::{self, Problem, Problems};

/// True for a cluster-scoped object that belongs to an install in
/// `namespace`: Helm's release-namespace annotation names it, a binding's
/// subject lives there, or a StorageClass's provisioner is that namespace's.
pub(super) fn cluster_object_of(object: &Value, namespace: &str, roles: &BTreeSet<String>) -> bool {
    if object["metadata"]["namespace"].is_string() {
        return false;
    }
    if object["metadata"]["annotations"]["meta.helm.sh/release-namespace"].as_str()
        == Some(namespace)
    {
        return true;
    }
    match kind(object) {
        "StorageClass" => {
            object["provisioner"].as_str() == Some(&render::provisioner_name(namespace))
                || object["provisioner"].as_str()
                    == Some(&format!(
                        "codefresh.io/dind-volume-provisioner-runner-{namespace}"
                    ))
        }
        "ClusterRoleBinding" => object["subjects"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["namespace"].as_str() == Some(namespace))),
        "ClusterRole" => roles.contains(name(object)),
        _ => false,
    }
}

/// True when a cluster-scoped object is clearly the old tool's own for
/// `namespace`: Helm's marks (the chart's label, the release's namespace
/// annotation), the dind provisioner of that namespace, or venonactl's
/// labels or names ending in `-<namespace>`.
pub(super) fn made_by(object: &Value, tool: &Tool, namespace: &str) -> bool {
    if kind(object) == "StorageClass" {
        return true; // cluster_object_of matched its provisioner to the namespace
    }
    match tool {
        Tool::Helm { .. } => {
            label(object, HELM_CHART_LABEL).is_some_and(|c| c.starts_with("cf-runtime-"))
                || object["metadata"]["annotations"]["meta.helm.sh/release-namespace"].as_str()
                    == Some(namespace)
        }
        Tool::Venonactl => {
            is_venonactl_object(object) || name(object).ends_with(&format!("-{namespace}"))
        }
    }
}

/// The `app` label values venonactl gives its objects.
pub(super) const VENONACTL_APPS: &[&str] = &[
    "runner",
    "venona",
    "dind",
    "dind-volume-provisioner",
    "dind-volume-cleanup",
    "dind-lv-monitor",
    "app-proxy",
    "monitor",
];

/// Objects venonactl creates without an `app` label, by kind and name.
pub(super) const VENONACTL_UNLABELLED: &[(&str, &str)] = &[
    ("ServiceAccount", "runner"),
    ("Role", "runner"),
    ("RoleBinding", "runner"),
    ("Secret", "runner"),
    ("Secret", "runnerconf"),
    ("ServiceAccount", "codefresh-engine"),
    ("Role", "codefresh-engine"),
    ("RoleBinding", "codefresh-engine"),
    ("ConfigMap", "codefresh-dind-config"),
    ("ServiceAccount", "volume-provisioner-runner"),
    ("ServiceAccount", "monitor"),
    ("ServiceAccount", "monitor-rollback"),
    ("ServiceAccount", "app-proxy"),
];

pub(super) fn is_venonactl_object(object: &Value) -> bool {
    if label(object, HELM_CHART_LABEL).is_some()
        || label(object, LABEL_MANAGED_BY) == Some("cf-runner")
    {
        return false;
    }
    if label(object, "app").is_some_and(|a| VENONACTL_APPS.contains(&a)) {
        return true;
    }
    VENONACTL_UNLABELLED
        .iter()
        .any(|(k, n)| kind(object) == *k && name(object) == *n)
}

pub(super) fn refuse(
    key: &str,
    value: Option<&str>,
    why: impl Into<String>,
    fix: impl Into<String>,
) -> Problems {
    let value = value.map(|v| Value::String(v.to_string()));
    Problems(vec![Problem::new(key, value.as_ref(), why, fix)])
}

/// Reads what runs in `namespace` from a scan of it. `Ok(None)`: the
/// namespace already holds a cf-runner install and nothing else.
/// Refusals (exit 2) name the namespace and why.
pub fn detect(
    objects: &[Value],
    namespace: &str,
    context: &str,
) -> Result<Option<Found>, Problems> {
    let local: Vec<&Value> = objects
        .iter()
        .filter(|o| in_namespace(o, namespace))
        .collect();
    let helm = helm_releases(&local);
    let Some(tool) = which_runner(&local, namespace, &helm)? else {
        return Ok(None);
    };
    let (mut mine, token_secret) = old_objects(&local, &tool, &helm.release_secrets);
    mine.extend(cluster_objects(objects, namespace, &tool));
    let (extra, extra_left) = match &tool {
        Tool::Helm { release } => {
            crate::app::adopt::extra_objects::split(&mut mine, release, namespace)
        }
        Tool::Venonactl => (Vec::new(), Vec::new()),
    };
    let made_at_run_time = made_at_run_time(&local, &mine);
    let run_time: Vec<ObjectRef> = made_at_run_time.iter().map(|o| reference(o)).collect();
    mine.extend(made_at_run_time);
    let read = credentials::provisioner::read(&mine, &local, namespace);
    if !read.problems.is_empty() {
        return Err(Problems(read.problems));
    }

    let runner = mine.iter().find(|o| {
        kind(o) == "Deployment"
            && (label(o, "codefresh.io/application") == Some("runner") || name(o) == "runner")
    });
    let storage_class = mine.iter().find(|o| kind(o) == "StorageClass").map(|o| {
        (
            name(o).to_string(),
            o["provisioner"].as_str().unwrap_or_default().to_string(),
        )
    });
    let (mut values, mut not_read) =
        read_values(namespace, context, runner.copied(), &mine, objects);
    if !extra.is_empty() {
        values[values::extra_resources::KEY] = Value::Array(extra);
    }
    not_read.extend(extra_left);
    for (key, value) in &read.values {
        let steps = values::tree::parse_path(key).expect("a plain key path");
        values::tree::set_path(&mut values, &steps, value.clone());
    }
    let volume_claims = local
        .iter()
        .filter(|o| kind(o) == "PersistentVolumeClaim")
        .map(|o| name(o).to_string())
        .collect();
    let selectors = mine
        .iter()
        .filter(|o| o["spec"]["selector"].is_object())
        .map(|o| (reference(o).to_string(), o["spec"]["selector"].clone()))
        .collect();
    let stray_credentials = stray_credentials(&local, &mine, &read.credentials);
    let mut refs: Vec<ObjectRef> = mine.iter().map(|o| reference(o)).collect();
    refs.sort();
    refs.dedup();
    Ok(Some(Found {
        tool,
        objects: refs,
        values,
        not_read,
        token_secret,
        volume_claims,
        storage_class,
        selectors,
        credentials: read.credentials,
        runnerconf_runtimes: Vec::new(),
        run_time,
        stray_credentials,
    }))
}

/// The Helm releases in a namespace: from their release Secrets and the
/// chart's instance labels.
struct HelmReleases {
    releases: BTreeSet<String>,
    /// The `helm.sh/chart` labels of cf-runtime charts.
    charts: BTreeSet<String>,
    release_secrets: Vec<ObjectRef>,
}

fn helm_releases(local: &[&Value]) -> HelmReleases {
    let mut found = HelmReleases {
        releases: BTreeSet::new(),
        charts: BTreeSet::new(),
        release_secrets: Vec::new(),
    };
    for o in local {
        if kind(o) == "Secret"
            && (o["type"].as_str() == Some(HELM_RELEASE_TYPE)
                || name(o).starts_with("sh.helm.release.v1."))
        {
            let release = label(o, "name").map(str::to_string).or_else(|| {
                name(o)
                    .strip_prefix("sh.helm.release.v1.")
                    .and_then(|r| r.rsplit_once(".v"))
                    .map(|(r, _)| r.to_string())
            });
            if let Some(r) = release {
                found.releases.insert(r);
            }
            found.release_secrets.push(reference(o));
        } else if let Some(chart) = label(o, HELM_CHART_LABEL) {
            if chart.starts_with("cf-runtime-") {
                found.charts.insert(chart.to_string());
                if let Some(r) = label(o, "app.kubernetes.io/instance") {
                    found.releases.insert(r.to_string());
                }
            }
        }
    }
    found
}

/// The one runner adopt moves, and the tool that made it; `None` when the
/// namespace holds cf-runner's install alone. Refused: several runners,
/// none, or a chart version whose layout adopt does not cover.
fn which_runner(
    local: &[&Value],
    namespace: &str,
    helm: &HelmReleases,
) -> Result<Option<Tool>, Problems> {
    let ns_flag = "--kube-namespace";
    let venonactl_runner = local
        .iter()
        .any(|o| kind(o) == "Deployment" && name(o) == "runner" && is_venonactl_object(o));
    let ours = local
        .iter()
        .any(|o| label(o, LABEL_MANAGED_BY) == Some("cf-runner"));

    let mut runners: Vec<String> = helm
        .releases
        .iter()
        .map(|r| format!("Helm release {r:?}"))
        .collect();
    if venonactl_runner {
        runners.push("a venonactl runner (Deployment/runner)".into());
    }
    if ours {
        runners.push("a cf-runner install".into());
    }
    if runners.len() > 1 {
        return Err(refuse(
            ns_flag,
            Some(namespace),
            format!(
                "holds more than one runner ({}); adopt moves exactly one, and cannot tell which you mean",
                runners.join(", ")
            ),
            "remove the runners you no longer use (`helm uninstall`, `cf-runner delete`), then re-run adopt",
        ));
    }
    if ours {
        return Ok(None);
    }
    if runners.is_empty() {
        return Err(refuse(
            ns_flag,
            Some(namespace),
            "holds no runner made by the cf-runtime Helm chart, venonactl or `codefresh runner init`",
            "pass --kube-namespace with the namespace of the runner to adopt",
        ));
    }
    if let Some(other) = helm.charts.iter().find(|c| c.as_str() != COVERED_CHART) {
        return Err(refuse(
            "helm.sh/chart",
            Some(other),
            format!(
                "is a chart version whose layout adopt does not cover (it covers {COVERED_CHART}); \
                 guessing at another layout could lose a volume or the agent token"
            ),
            format!(
                "upgrade the release to {} with helm first, then re-run adopt",
                COVERED_CHART.trim_start_matches("cf-runtime-")
            ),
        ));
    }
    Ok(Some(match helm.releases.iter().next() {
        Some(r) => Tool::Helm { release: r.clone() },
        None => Tool::Venonactl,
    }))
}

/// The Secret the chart's runner container reads `CODEFRESH_TOKEN` from.
fn runner_token_secret(mine: &[&Value]) -> Option<String> {
    let runner = mine.iter().find(|o| {
        kind(o) == "Deployment" && label(o, "codefresh.io/application") == Some("runner")
    })?;
    let containers = runner["spec"]["template"]["spec"]["containers"].as_array()?;
    containers.iter().find_map(|c| {
        let env = c["env"].as_array()?;
        let token = env.iter().find(|e| e["name"] == "CODEFRESH_TOKEN")?;
        let reference = &token["valueFrom"]["secretKeyRef"];
        (reference["key"] == "agent-codefresh-token")
            .then(|| reference["name"].as_str().map(str::to_string))
            .flatten()
    })
}

/// The old install's objects in the namespace (its Persistent Volume
/// Claims aside), with the Secrets the chart makes at run time; and the
/// Secret that holds the agent token.
fn old_objects<'a>(
    local: &[&'a Value],
    tool: &Tool,
    release_secrets: &[ObjectRef],
) -> (Vec<&'a Value>, Option<String>) {
    let mut mine: Vec<&Value> = local
        .iter()
        .copied()
        .filter(|o| match &tool {
            Tool::Helm { release } => {
                label(o, HELM_CHART_LABEL).is_some_and(|c| c.starts_with("cf-runtime-"))
                    || release_secrets.contains(&reference(o))
                    // The chart renders some objects (the gencerts RBAC)
                    // without labels: Helm's ownership annotation names them.
                    || o["metadata"]["annotations"]["meta.helm.sh/release-name"].as_str()
                        == Some(release.as_str())
            }
            Tool::Venonactl => is_venonactl_object(o),
        })
        .filter(|o| kind(o) != "PersistentVolumeClaim")
        .collect();
    // Objects the chart creates at run time, outside the manifests.
    let token_secret = match &tool {
        // The Secret the chart's runner reads its token from; any Secret
        // with that key only when the runner names none. A Secret of the
        // user's (`global.agentTokenSecretKeyRef`, which the chart's init
        // container copies from) may hold the same key and must stay.
        Tool::Helm { .. } => runner_token_secret(&mine).or_else(|| {
            local
                .iter()
                .find(|o| kind(o) == "Secret" && o["data"].get("agent-codefresh-token").is_some())
                .map(|o| name(o).to_string())
        }),
        Tool::Venonactl => local
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == "runner")
            .map(|o| name(o).to_string()),
    };
    if let Some(t) = &token_secret {
        if let Some(o) = local.iter().find(|o| kind(o) == "Secret" && name(o) == t) {
            if !mine.iter().any(|m| kind(m) == "Secret" && name(m) == t) {
                mine.push(o);
            }
        }
        if let Some(o) = local
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == "codefresh-certs-server")
        {
            if !mine
                .iter()
                .any(|m| kind(m) == "Secret" && name(m) == name(o))
            {
                mine.push(o);
            }
        }
    }
    (mine, token_secret)
}

/// The old install's cluster-wide objects: the bindings to its accounts in
/// the namespace and the roles they bind, made by the old tool.
fn cluster_objects<'a>(objects: &'a [Value], namespace: &str, tool: &Tool) -> Vec<&'a Value> {
    let mut roles = BTreeSet::new();
    let cluster_bindings: Vec<&Value> = objects
        .iter()
        .filter(|o| kind(o) == "ClusterRoleBinding")
        .filter(|o| cluster_object_of(o, namespace, &BTreeSet::new()))
        .collect();
    for b in &cluster_bindings {
        if let Some(r) = b["roleRef"]["name"].as_str() {
            roles.insert(r.to_string());
        }
    }
    let cluster_mine: Vec<&Value> = objects
        .iter()
        .filter(|o| cluster_object_of(o, namespace, &roles))
        // Built-in roles a binding points at are not the install's.
        .filter(|o| !(kind(o) == "ClusterRole" && name(o).starts_with("system:")))
        .filter(|o| !(kind(o) == "ClusterRole" && name(o) == "cluster-admin"))
        // Adopt removes what it counts as the old install's: a binding of
        // the user's to an account in this namespace, or a role shared by
        // every namespace's monitor, must not be counted.
        .filter(|o| made_by(o, tool, namespace))
        .collect();
    cluster_mine
}

/// What the old tool's objects made at run time: Jobs of its CronJobs
/// (owned by them), and the token Secrets of its service accounts
/// (venonactl's attach makes `runner-token-*` for runnerconf).
fn made_at_run_time<'a>(local: &[&'a Value], mine: &[&'a Value]) -> Vec<&'a Value> {
    let uids: BTreeSet<&str> = mine
        .iter()
        .filter_map(|o| o["metadata"]["uid"].as_str())
        .collect();
    let accounts: BTreeSet<&str> = mine
        .iter()
        .filter(|o| kind(o) == "ServiceAccount")
        .map(|o| name(o))
        .collect();
    let made_at_run_time: Vec<&Value> = local
        .iter()
        .copied()
        .filter(|o| {
            !mine
                .iter()
                .any(|m| kind(m) == kind(o) && name(m) == name(o))
        })
        .filter(|o| label(o, LABEL_MANAGED_BY) != Some("cf-runner"))
        .filter(|o| kind(o) != "PersistentVolumeClaim")
        .filter(|o| {
            let owned = o["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| r["uid"].as_str().is_some_and(|u| uids.contains(u)));
            let account_token = kind(o) == "Secret"
                && o["type"].as_str() == Some(SERVICE_ACCOUNT_TOKEN_TYPE)
                && o["metadata"]["annotations"]["kubernetes.io/service-account.name"]
                    .as_str()
                    .is_some_and(|a| accounts.contains(a));
            owned || account_token
        })
        .collect();
    made_at_run_time
}

/// The Secrets of `local` that look like a runner's credentials
/// ([`leftovers::runner_credential`]) but are neither the old install's
/// (`mine`), cf-runner's, nor a Secret a credential is read from where it
/// is (the plan names those already).
fn stray_credentials(
    local: &[&Value],
    mine: &[&Value],
    credentials: &[credentials::Credential],
) -> Vec<String> {
    let read_in_place = |n: &str| {
        credentials.iter().any(|c| {
            matches!(&c.from, credentials::Source::SecretKey { secret, .. } if secret == n)
                && c.to == credentials::Destination::UsersSecret
        })
    };
    local
        .iter()
        .filter(|o| kind(o) == "Secret")
        .filter(|o| label(o, LABEL_MANAGED_BY) != Some("cf-runner"))
        .filter(|o| {
            !mine
                .iter()
                .any(|m| kind(m) == "Secret" && name(m) == name(o))
        })
        .filter(|o| !read_in_place(name(o)))
        .filter(|o| {
            let keys: Vec<&str> = o["data"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .collect();
            leftovers::runner_credential(name(o), &keys).is_some()
        })
        .map(|o| name(o).to_string())
        .collect()
}

/// Why a credential Secret that looks like the old tool's is left: adopt
/// removes only what it recognises as the old install's (by its labels).
/// Removing it later would need proof that it is unchanged since adopt,
/// which cf-runner cannot keep where nobody else can write; naming it
/// with the command is always safe.
pub(crate) const STRAY_NOTE: &str =
    "a credential named like an old installer's, without its labels: cf-runner \
     cannot tell who made it, so it never deletes it";

/// The type of the Secrets Kubernetes fills with a service account's token.
pub(super) const SERVICE_ACCOUNT_TOKEN_TYPE: &str = "kubernetes.io/service-account-token";

/// The kinds the move knows what to do with once no cf-runner object of
/// the same name or role takes their place: it removes them.
pub(crate) const REMOVABLE_KINDS: &[&str] = &[
    "Deployment",
    "DaemonSet",
    "CronJob",
    "Job",
    "ConfigMap",
    "ServiceAccount",
    "Service",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "Ingress",
    "ServiceMonitor",
    "PodMonitor",
    "HTTPRoute",
    "PriorityClass",
];

/// The Secrets of the old tools the move knows, by name (or name prefix):
/// what each holds, and so why removing it loses nothing.
pub(crate) const KNOWN_SECRETS: &[(&str, &str)] = &[
    // venonactl: runtime kubeconfig fragments (a service-account token each).
    ("runnerconf", "runnerconf"),
    // The provisioner's keys (used ones are carried; an empty one is left
    // by venonactl when there are none).
    ("dind-volume-provisioner-", "provisioner credentials"),
    // The chart: the user's API key, which cf-runner keeps out of the cluster.
    (
        "codefresh-user-token",
        "the Codefresh API key the chart's hooks used",
    ),
];

/// Annotation on the record Secret while a move is under way (its value
/// names the old tool): a re-run of `adopt` continues the move.
pub const ADOPTING_ANNOTATION: &str = "cf-runner.codefresh.io/adopting";
/// Suffix of the name a workload runs under while an old one of the same
/// name (and another pod selector) is removed.
pub const INTERIM_SUFFIX: &str = "-adopting";

#[cfg(test)]
mod token_secret_tests {
    use super::*;
    use serde_json::json;

    /// A user's Secret given to the chart as `agentTokenSecretKeyRef` may
    /// hold the chart's key and sort first: the runner's own reference
    /// wins, so adopt never takes (and removes) the user's Secret.
    #[test]
    fn the_secret_the_charts_runner_reads_wins_over_a_users_with_the_same_key() {
        let runner = json!({"kind": "Deployment",
            "metadata": {"name": "cf-runtime-runner", "labels": {"codefresh.io/application": "runner"}},
            "spec": {"template": {"spec": {"containers": [{"name": "runner", "env": [
                {"name": "CODEFRESH_TOKEN", "valueFrom": {"secretKeyRef":
                    {"name": "cf-runtime-runner", "key": "agent-codefresh-token"}}}]}]}}}});
        let users = json!({"kind": "Secret", "metadata": {"name": "agent-token"},
            "data": {"agent-codefresh-token": ""}});
        assert_eq!(
            runner_token_secret(&[&users, &runner]).as_deref(),
            Some("cf-runtime-runner")
        );
        assert_eq!(runner_token_secret(&[&users]), None);
    }
}

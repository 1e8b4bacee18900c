//! `cf-runner runtime rotate`: a new token for the agent in one attached
//! runtime, with the old one dead at the end and the agent never without
//! a token that works.
//!
//! A legacy ServiceAccount token carries no issue time: re-creating its
//! Secret under the same name for the same ServiceAccount can give the
//! very same token back (RSA signatures are deterministic). Only a new
//! ServiceAccount (a new uid in the token) makes a new one. So:
//! 1. a bridge: ServiceAccount [`BRIDGE`], bound to the runtime's Role, and
//!    its token Secret; the agent's file gets that token and the agent rolls;
//! 2. ServiceAccount [`ACCESS_NAME`] and its token Secret are deleted (the
//!    old token dies) and made again: a new uid, a new token;
//! 3. the agent's file gets the new token and the agent rolls again;
//! 4. the bridge is deleted.
//!
//! The end state is what `runtime attach` makes, so a re-run of attach
//! writes nothing. A rotation stopped half-way is finished by running it
//! again (every step is compared before it is written).

use std::time::Duration;

use serde_json::Value;

use crate::app::runtimes::agent_side;
use crate::app::runtimes::target::{
    self, AgentSide, AgentState, Resolved, Target, IN_CLUSTER_HOST,
};
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::runtime_access::{self, Access};
use crate::cluster::runtimes as live;
use crate::cluster::Cluster;
use crate::output;
use crate::render::runtimes::{
    access_manifests, RuntimeAccess, ACCESS_NAME, ACCESS_TOKEN_SECRET, BRIDGE, BRIDGE_TOKEN_SECRET,
};
use crate::render::{Component, Manifest, LABEL_COMPONENT};
use crate::values::{Problem, Problems, Secret};

const COMMAND: &str = "runtime rotate";

/// Runs `runtime rotate` for `target` of the agent in `agent`.
pub(crate) async fn run(agent: AgentSide, target: Target, timeout: Duration) -> Outcome {
    let mut problems = target::target_problems(&target);
    if target.namespace.is_none() && target.name.is_none() {
        problems.push(Problem::new(
            "--kube-namespace",
            None,
            "is needed (or --runtime-name): it names the runtime whose token is rotated",
            "pass --kube-namespace <runtime namespace> (and --kube-context-name for another cluster)",
        ));
    }
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    let ns = agent.namespace.clone();
    agent_side::under_agent_lock(&agent, COMMAND, timeout, async |cluster: &Cluster| {
        let state = agent_side::read_agent(cluster.clone(), &ns, COMMAND).await?;
        rotate(state, target, timeout).await
    })
    .await
}

/// The bridge's objects: a ServiceAccount bound to the runtime's Role, and
/// its token Secret, labelled like the agent's own access objects.
fn bridge_manifests(namespace: &str) -> Vec<Manifest> {
    let mut out = Vec::new();
    for mut m in access_manifests(namespace) {
        match m.kind.as_str() {
            "ServiceAccount" => m.name = BRIDGE.into(),
            "RoleBinding" => {
                m.name = BRIDGE.into();
                m.object["subjects"][0]["name"] = Value::String(BRIDGE.into());
            }
            "Secret" => {
                m.name = BRIDGE_TOKEN_SECRET.into();
                m.object["metadata"]["annotations"]["kubernetes.io/service-account.name"] =
                    Value::String(BRIDGE.into());
            }
            _ => continue,
        }
        m.object["metadata"]["name"] = Value::String(m.name.clone());
        out.push(m);
    }
    out
}

/// Applies `manifests` in the runtime's namespace and reads the token of
/// Secret `secret` once Kubernetes has filled it.
async fn issue(
    r: &Resolved,
    manifests: &[Manifest],
    secret: &str,
    timeout: Duration,
) -> Result<(Secret, String), Outcome> {
    converge::apply_with_progress(&r.cluster, manifests, &r.namespace, false, COMMAND).await?;
    let wait = timeout.min(Duration::from_secs(60));
    let shown = output::waiting(&format!(
        "waiting up to {}s for Kubernetes to fill the token of Secret {secret} in namespace {} (context {})",
        wait.as_secs(),
        r.namespace,
        r.cluster.context
    ));
    let filled = live::filled_token(&r.cluster.client, &r.namespace, secret, wait).await;
    drop(shown);
    match filled {
        Ok(Some(t)) => Ok(t),
        Ok(None) => Err(Outcome::Failed(
            anyhow::anyhow!(
                "Kubernetes did not fill the token of Secret {secret} in namespace {} within {}s",
                r.namespace,
                wait.as_secs()
            ),
            Some(
                "the cluster's token controller (kube-controller-manager) fills it: check that it runs, then re-run `cf-runner runtime rotate`"
                    .into(),
            ),
        )),
        Err(e) => Err(Outcome::from_cluster(e, "reading the runtime's token failed")),
    }
}

/// Deletes cf-runner's access objects `objects` (kind, name) in the
/// runtime's namespace (labelled as such: nothing else is touched), waiting
/// until gone.
async fn remove(r: &Resolved, objects: &[(&str, &str)], timeout: Duration) -> Result<(), Outcome> {
    let listed = inventory::labelled(&r.cluster.client, &r.namespace)
        .await
        .doing("listing the agent's credentials in the runtime's namespace failed")?;
    let ours: Vec<LiveObject> = listed
        .into_iter()
        .filter(|o| o.label(LABEL_COMPONENT) == Some(Component::RuntimeAccess.as_str()))
        .filter(|o| objects.contains(&(o.kind.as_str(), o.name.as_str())))
        .collect();
    if ours.is_empty() {
        return Ok(());
    }
    converge::delete_with_progress(&r.cluster, ours, timeout).await
}

async fn rotate(state: AgentState, target: Target, timeout: Duration) -> Result<(), Outcome> {
    let mut r = target::resolve(&state.cluster, &state.namespace, &target).await?;
    if let (true, Some(own)) = (
        r.same_cluster && r.namespace == state.namespace && target.name.is_none(),
        &state.own_runtime,
    ) {
        // The agent's own namespace: its runtime goes by its own name.
        r.name = own.clone();
        r.key = crate::render::runtimes::config_key(&r.name).unwrap_or(r.key);
    }
    // `team.x` must not rotate the token in `team/x`'s file.
    target::refuse_key_clash(&state, &target, &r)?;
    let Some(old_text) = state.files.get(&r.key).cloned() else {
        let (flag, value) = match &target.name {
            Some(n) => ("--runtime-name", n.clone()),
            None => ("--kube-namespace", r.namespace.clone()),
        };
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            flag,
            Some(&Value::String(value)),
            format!(
                "names runtime {}, which the agent {} in namespace {} does not serve from a runtime file",
                r.name, state.agent_name, state.namespace
            ),
            "attach it first with `cf-runner runtime attach`, or name an attached runtime",
        )])));
    };
    let old_file = crate::render::runtimes::read_runtime_file(&old_text);
    let host = old_file
        .host
        .clone()
        .unwrap_or_else(|| IN_CLUSTER_HOST.into());
    let old_token = old_file.token.clone();
    let file = |token: Secret, ca_pem: String| RuntimeAccess {
        name: r.name.clone(),
        host: host.clone(),
        token,
        ca_pem,
    };
    let mut files = state.files.clone();

    // 1. The bridge, and the agent on it.
    let (token, ca) = issue(
        &r,
        &bridge_manifests(&r.namespace),
        BRIDGE_TOKEN_SECRET,
        timeout,
    )
    .await?;
    files.insert(r.key.clone(), file(token, ca).file_text());
    agent_side::roll_agent(&state, &files, timeout, COMMAND).await?;

    // 2. The agent's own ServiceAccount made again: the old token dies.
    // Its RoleBinding names it by name: it stays, and binds the new one.
    let own = [
        ("ServiceAccount", ACCESS_NAME),
        ("Secret", ACCESS_TOKEN_SECRET),
    ];
    remove(&r, &own, timeout).await?;
    let (token, ca) = issue(
        &r,
        &access_manifests(&r.namespace),
        ACCESS_TOKEN_SECRET,
        timeout,
    )
    .await?;

    // 3. The agent on the new token; 4. the bridge removed.
    files.insert(r.key.clone(), file(token, ca).file_text());
    agent_side::roll_agent(&state, &files, timeout, COMMAND).await?;
    let bridge = [
        ("ServiceAccount", BRIDGE),
        ("RoleBinding", BRIDGE),
        ("Secret", BRIDGE_TOKEN_SECRET),
    ];
    remove(&r, &bridge, timeout).await?;

    // Say what the API server now makes of the old token (not a gate:
    // the rotation is done either way).
    if let (Some(old), Some(ca)) = (old_token, old_file.crt.clone()) {
        say_old_token(&r, &host, &old, &ca, &state.namespace).await;
    }
    output::done(&format!(
        "runtime {}: the agent {} in namespace {} holds a new token; the old one is removed",
        r.name, state.agent_name, state.namespace
    ));
    Ok(())
}

/// What the API server makes of the old token, waited for a while: the
/// API server caches a token's answer for a few seconds.
async fn say_old_token(r: &Resolved, host: &str, old: &Secret, ca: &str, agent_namespace: &str) {
    let at = if host.trim_end_matches('/') == IN_CLUSTER_HOST {
        r.cluster.server.trim_end_matches('/').to_string()
    } else {
        host.to_string()
    };
    // The API server caches a token's answer for a few seconds (10s
    // in kube-apiserver): the old token may still pass that long.
    let patience = Duration::from_secs(30);
    let shown = output::waiting(&format!(
        "waiting up to {}s for {at} to refuse the old token of runtime {} (the API server caches tokens for about 10s)",
        patience.as_secs(),
        r.name
    ));
    let deadline = std::time::Instant::now() + patience;
    let last = loop {
        let access = runtime_access::check(&at, ca, old, Some(&r.namespace)).await;
        if matches!(access, Access::Refused | Access::NotChecked(_))
            || std::time::Instant::now() >= deadline
        {
            break access;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    drop(shown);
    match last {
        Access::Refused => output::note(&format!(
            "the old token of runtime {} is refused by {at} (401)",
            r.name
        )),
        Access::NotChecked(why) => output::note(&format!(
            "the old token of runtime {} was not checked: {why}",
            r.name
        )),
        _ => output::warn(&format!(
            "the old token of runtime {} still passed at {at} after {}s, though its Secret and ServiceAccount are gone; `cf-runner info --kube-namespace {}` shows the agent's credentials",
            r.name,
            patience.as_secs(),
            agent_namespace
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_is_bound_to_the_runtime_role_under_its_own_name() {
        let m = bridge_manifests("builds");
        let names: Vec<(&str, &str)> = m
            .iter()
            .map(|m| (m.kind.as_str(), m.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("ServiceAccount", BRIDGE),
                ("RoleBinding", BRIDGE),
                ("Secret", BRIDGE_TOKEN_SECRET)
            ]
        );
        assert_eq!(m[1].object["roleRef"]["name"], ACCESS_NAME);
        assert_eq!(m[1].object["subjects"][0]["name"], BRIDGE);
        assert_eq!(
            m[2].object["metadata"]["annotations"]["kubernetes.io/service-account.name"],
            BRIDGE
        );
        assert!(m.iter().all(|m| m.component == Component::RuntimeAccess));
    }
}

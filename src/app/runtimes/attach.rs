//! Attaching a runtime in another namespace or cluster to an installed
//! agent, and detaching it: the agent's credentials in the runtime's
//! namespace, the runtime's file in the agent's `CONFIG_SECRET`, the
//! agent's runtime list on the platform, and a rollout of the agent that
//! adds a pod before it removes one. Everything is compared before it is
//! written, so a re-run writes nothing, and a run stopped half-way
//! converges on the next (the agent's pod template carries a hash of the
//! files: the rollout happens until it has happened).
//!
//! Order. Attach: credentials → files → rollout → platform (the platform
//! sends the runtime's builds only once the agent can create their pods).
//! Detach: platform → files → rollout → credentials removed (no build is
//! sent that the agent could no longer start; the old token dies last).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::app::runtimes::access::{register_runtime, remove_access};
use crate::app::runtimes::target::{key_clash, vet_target};
use crate::app::session::connect::vet_kubeconfig;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{Cluster, ConnectOptions};
use crate::output;
use crate::platform::{Agent, Platform};
use crate::values::runtimes::RuntimeEntry;
use crate::values::{Problem, Problems};

pub(crate) use crate::app::runtimes::access::{
    account_of, ensure_access, on_platform, runtime_objects,
};
pub(crate) use crate::app::runtimes::agent_side::{
    agent_on_platform, platform_client, read_agent, roll_agent, set_platform_runtimes,
    stop_serving, under_agent_lock,
};
pub(crate) use crate::app::runtimes::target::{
    builds_beside_agent_problem, insecure_agent_problem, read_runtimes_file, refuse_key_clash,
    resolve, settings_from_flags, target_problems, Accepted, AgentSide, AgentState, Change, Target,
};

impl From<RuntimeEntry> for Target {
    fn from(e: RuntimeEntry) -> Target {
        Target {
            context: e.context,
            kubeconfig: e.config_path.map(PathBuf::from),
            namespace: e.namespace,
            name: e.name,
            kube_host: e.kube_host,
            origin: e.origin,
            settings: e.settings,
        }
    }
}

/// Runs an attach or a detach of the agent in `agent`.
pub(crate) async fn run(
    agent: AgentSide,
    change: Change,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Outcome {
    let command = change.command();
    let problems: Vec<Problem> = match &change {
        Change::Attach { targets, .. } => targets.iter().flat_map(target_problems).collect(),
        Change::Detach(t) => {
            let mut p = target_problems(t);
            if t.namespace.is_none() {
                p.push(Problem::new(
                    "--kube-namespace",
                    None,
                    "is needed: it names the runtime to detach",
                    "pass --kube-namespace <runtime namespace> (and --kube-context-name for another cluster)",
                ));
            }
            p
        }
    };
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    // Before the lock, any platform call or write: a kubeconfig that the
    // runtimes file names may not run a command unasked.
    if let Change::Attach { targets, .. } = &change {
        for t in targets {
            if let Err(o) = vet_target(t, &agent) {
                return o;
            }
        }
    }
    let ns = agent.namespace.clone();
    under_agent_lock(&agent, command, timeout, async |cluster: &Cluster| {
        under_lock(cluster.clone(), &ns, change, platform_args, timeout).await
    })
    .await
}

async fn attach(
    state: AgentState,
    targets: Vec<Target>,
    platform: &Platform,
    agent: Agent,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = "runtime attach";
    let mut resolved = Vec::new();
    // The agent's own runtime has a file too: config-dir mode excludes
    // in-cluster mode. An agent installed alone has none.
    if let Some(own) = &state.own_runtime {
        let own = Target {
            name: Some(own.clone()),
            ..Target::default()
        };
        resolved.push(resolve(&state.cluster, &state.namespace, &own).await?);
    }
    let own_count = resolved.len();
    for t in &targets {
        let r = resolve(&state.cluster, &state.namespace, t).await?;
        if own_count == 0 && r.same_cluster && r.namespace == state.namespace {
            return Err(Outcome::BadInput(Problems(vec![Problem::new(
                &t.key("Namespace"),
                Some(&Value::String(r.namespace.clone())),
                "is the namespace of an agent installed alone (AgentOnly): it holds no runtime's objects, and its runtimes build in other namespaces",
                "name the namespace the runtime builds in (it exists, and is not the agent's)",
            )])));
        }
        if let Some(other) = resolved.iter().find(|o| o.key == r.key) {
            return Err(Outcome::BadInput(Problems(vec![if other.name == r.name {
                Problem::new(
                    &t.key("Name"),
                    Some(&Value::String(r.name.clone())),
                    "names a runtime given twice (or the agent's own)",
                    "give each runtime once; the agent's own runtime is always served",
                )
            } else {
                key_clash(t, &r, &other.name)
            }])));
        }
        refuse_key_clash(&state, t, &r)?;
        resolved.push(r);
    }
    // Before any write: what the platform has of each runtime.
    let mut found = Vec::new();
    for r in resolved.iter().skip(own_count) {
        let re = platform
            .runtime(&r.name)
            .await
            .doing("reading the runtime environment on the Codefresh platform")?;
        let fix = format!(
            "name a new runtime with {} (cf-runner registers it), or drop the runtime's own settings",
            r.target.key("Name")
        );
        found.push(on_platform(r, re.as_ref(), &fix)?);
    }
    for r in resolved.iter().skip(own_count) {
        if !r.same_cluster
            && r.target.settings.storage.is_none()
            && state.values.storage.provisioned
        {
            output::warn(&format!(
                "runtime {} has no Storage of its own: its builds' volumes use StorageClass {}, which cf-runner installed in the agent's cluster only, not in {}; give the runtime its own Storage (docs/guide/runtimes.md: Placement and storage of each runtime)",
                r.name, state.values.storage.class_name, r.cluster.context
            ));
        }
    }
    let account_id = account_of(platform, &state).await?;
    let mut files = state.files.clone();
    let mut specs = Vec::new();
    for (i, r) in resolved.iter().enumerate() {
        // The agent's own namespace has its runtime's objects from `init`.
        let objects = if i < own_count {
            Vec::new()
        } else {
            let render = runtime_objects(&state, r, platform, &account_id).await?;
            specs.push(render.spec);
            render.manifests
        };
        let access = ensure_access(r, objects, timeout, command).await?;
        files.insert(r.key.clone(), access.file_text());
    }
    roll_agent(&state, &files, timeout, command).await?;
    // The platform last: it sends a runtime's builds once the agent can start them.
    for ((r, found), spec) in resolved.iter().skip(own_count).zip(&found).zip(&specs) {
        register_runtime(platform, &state, r, found, spec).await?;
    }
    let mut wanted = agent.runtimes.clone();
    wanted.extend(resolved.iter().map(|r| r.name.clone()));
    set_platform_runtimes(platform, &agent, wanted).await?;
    let names: Vec<&str> = resolved
        .iter()
        .skip(own_count)
        .map(|r| r.name.as_str())
        .collect();
    output::done(&format!(
        "agent {} in namespace {} serves {}{}",
        state.agent_name,
        state.namespace,
        names.join(", "),
        match &state.own_runtime {
            Some(own) => format!(" (and its own runtime {own})"),
            None => String::new(),
        }
    ));
    Ok(())
}

async fn detach(
    state: AgentState,
    target: Target,
    platform: &Platform,
    agent: Agent,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = "runtime detach";
    let r = resolve(&state.cluster, &state.namespace, &target).await?;
    if state.is_own(&r) {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-namespace",
            Some(&Value::String(r.namespace.clone())),
            match &state.own_runtime {
                Some(own) => format!(
                    "is the agent's own runtime {own}: an agent always serves its own namespace"
                ),
                None => "is the namespace of the agent installed alone: no runtime builds there"
                    .to_string(),
            },
            format!(
                "to remove the agent, run `cf-runner delete --kube-namespace {}`",
                state.namespace
            ),
        )])));
    }
    refuse_key_clash(&state, &target, &r)?;
    stop_serving(&state, &r, Some((platform, &agent)), timeout, command).await?;
    remove_access(&r, timeout).await?;
    output::done(&format!(
        "agent {} in namespace {} no longer serves {}",
        state.agent_name, state.namespace, r.name
    ));
    Ok(())
}

/// `init` with `Runtimes` in its values: once the agent is installed, the
/// runtimes are attached to it as `runtime attach -f` does (under attach's
/// own lock, with the token the install used).
pub(crate) fn after_init(
    values: &crate::values::Values,
    runtimes: &[RuntimeEntry],
    auth: &crate::platform::Auth,
    allow_http: bool,
    accepted: Accepted,
    timeout: Duration,
) -> Outcome {
    let agent = AgentSide {
        connect: ConnectOptions {
            kubeconfig: values.config_path.as_ref().map(PathBuf::from),
            context: values.context.clone(),
        },
        namespace: values.namespace.clone(),
    };
    let platform = PlatformOptions {
        token: Some(auth.token.expose().to_string()),
        url: Some(auth.url.clone()),
        insecure: values.insecure,
        allow_http,
    };
    let targets = runtimes.iter().cloned().map(Target::from).collect();
    output::say(&format!(
        "Attaching the {} runtime(s) of Runtimes to the agent in namespace {}",
        runtimes.len(),
        values.namespace
    ));
    let change = Change::Attach { targets, accepted };
    crate::app::session::connect::runtime().block_on(run(agent, change, &platform, timeout))
}

/// The wizard's choice: attach the runtime of an existing namespace to the
/// agent it found in the cluster of `context`.
pub(crate) fn from_wizard(
    to: &crate::wizard::AttachTo,
    kubeconfig: Option<PathBuf>,
    context: Option<String>,
    platform: PlatformOptions,
    accepted: Accepted,
    timeout: Duration,
) -> Outcome {
    let agent = AgentSide {
        connect: ConnectOptions {
            kubeconfig,
            context,
        },
        namespace: to.agent_namespace.clone(),
    };
    // The wizard's kubeconfig may be a values file's `ConfigPath`.
    if let Err(o) = vet_kubeconfig(&agent.connect, "ConfigPath") {
        return o;
    }
    let target = Target {
        namespace: Some(to.namespace.clone()),
        ..Target::default()
    };
    let change = Change::Attach {
        targets: vec![target],
        accepted,
    };
    crate::app::session::connect::runtime().block_on(run(agent, change, &platform, timeout))
}

#[cfg(test)]
mod tests;

pub(crate) async fn under_lock(
    cluster: Cluster,
    ns: &str,
    change: Change,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = change.command();
    let state = read_agent(cluster, ns, command).await?;
    let platform = platform_client(platform_args, &state, command)?;
    let agent = agent_on_platform(&platform, &state.agent_name).await?;
    match change {
        Change::Attach { targets, accepted } => {
            if !accepted.insecure_tls {
                if let Some(p) = insecure_agent_problem(&state.deployment, &state.namespace) {
                    return Err(Outcome::BadInput(Problems(vec![p])));
                }
            }
            if !accepted.build_readable_tokens {
                if let Some(own) = &state.own_runtime {
                    let places: Vec<String> =
                        targets.iter().filter_map(|t| t.namespace.clone()).collect();
                    let p = builds_beside_agent_problem(&state.namespace, own, &places);
                    return Err(Outcome::BadInput(Problems(vec![p])));
                }
            }
            attach(state, targets, &platform, agent, timeout).await
        }
        Change::Detach(target) => detach(state, *target, &platform, agent, timeout).await,
    }
}

//! `init` into a cluster: the order of every step of an install.
//!
//! With a Codefresh API token: validate it → connect → preflight → agent →
//! dind key and CSR, signed by the platform → runtime environment → apply
//! → attach the runtime to the agent → runtime spec → default → cluster
//! integration → demo pipeline → wait. Each step first looks at what an
//! earlier run left (in the cluster and on the platform) and reuses it, so a
//! failed install re-runs to completion without creating anything twice and
//! without a local state file.
//!
//! With only `--agent-token` (no API token anywhere): offline, the platform
//! is not contacted, and the run says so.

use std::time::Duration;

use serde_json::{json, Value};

use super::installation::{left_behind, LeftBehind};
use super::session::{connect, runtime};
use super::{converge, identity, preflight, register};
use crate::app::Outcome;
use crate::cluster::{self, apply, secrets};
use crate::output;
use crate::platform::{
    self, certs, Agent, Auth, Need, Platform, PlatformError, RegisterRuntime, Transport,
};
use crate::render::{self, Identity, Manifest};
use crate::values::{self, Problem, Problems, Secret};

/// How an install runs, decided once by `init` from its flags.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// `--force-conflicts`: take over fields another manager owns.
    pub force_conflicts: bool,
    /// How long to wait for the workloads; `None` with `--no-wait`.
    pub wait: Option<Duration>,
    /// How the platform is reached (`--insecure`, `--allow-http`).
    pub transport: Transport,
}

/// Whether the install registers on the platform, and with which token.
#[derive(Debug)]
pub(crate) enum Registration {
    /// With a Codefresh API token: everything is registered.
    Platform(Auth),
    /// Only `--agent-token`: the platform is not contacted.
    Offline,
}

/// Where the platform token for `init` may come from, besides `CF_API_KEY`
/// and the cfconfig.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenPlaces<'a> {
    /// True when `--token` was given (its value is the values' `Token`).
    pub flag_given: bool,
    /// `--url`, else `CodefreshHost` when a values file or `--set-value` set it.
    pub explicit_url: Option<&'a str>,
}

/// Resolves the platform token the way an install does; no token is bad
/// input, unless an agent token allows an offline install.
pub(crate) fn registration(
    places: TokenPlaces<'_>,
    values: &values::Values,
) -> Result<Registration, Outcome> {
    let (flag, in_values) = if places.flag_given {
        (values.token.as_ref(), None)
    } else {
        (None, values.token.as_ref())
    };
    let found = register::find_token(register::TokenFrom {
        flag,
        values: in_values,
        url: places.explicit_url,
    })
    .map_err(|e| register::failed(e, "finding the Codefresh API token"))?;
    match found {
        Some(auth) => Ok(Registration::Platform(auth)),
        None if values.agent_token.is_some() => Ok(Registration::Offline),
        None => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            format!(
                "is required to register the runner on the Codefresh platform (none in --token, CF_API_KEY or {})",
                platform::auth::cfconfig_path().display()
            ),
            format!(
                "pass --token with an API key that has the scopes {}, or set CF_API_KEY",
                Need::describe(&needs(values))
            ),
        )]))),
    }
}

/// The scopes a run with these options will use.
pub(crate) fn needs(values: &values::Values) -> Vec<Need> {
    let mut needs = vec![Need::Agents, Need::RuntimeEnvironments];
    if !values.skip_cluster_integration {
        needs.push(Need::Clusters);
    }
    if values.exec_demo_pipeline {
        needs.extend([Need::Projects, Need::Pipelines]);
    }
    needs
}

/// Runs the install.
pub(crate) fn run(
    options: &Options,
    registration: &Registration,
    loaded: &values::Loaded,
) -> Outcome {
    runtime().block_on(async {
        match registration {
            Registration::Platform(auth) => with_platform(options, loaded, auth).await,
            Registration::Offline => offline(options, loaded).await,
        }
    })
}

/// For `--generate-helm-values-file` without `--dry-run`: the account id and
/// free agent and runtime names, from the platform (nothing is created).
pub(crate) fn helm_identity(
    registration: &Registration,
    transport: Transport,
    values: &values::Values,
    mut identity: Identity,
) -> Result<Identity, Outcome> {
    let Registration::Platform(auth) = registration else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            "is required to fill the Helm values from the platform",
            "pass --token or set CF_API_KEY, or add --dry-run to leave the account id for you to fill",
        )])));
    };
    runtime().block_on(async {
        let (platform, who) = register::checked_client(auth, transport, None).await?;
        identity.account_id = who.account_id;
        let wanted = identity.agent_name(values);
        for name in candidates(&wanted) {
            let agents = platform
                .agents_named(&name)
                .await
                .map_err(|e| register::failed(e, "looking up agent names"))?;
            if agents.is_empty() {
                identity.agent_name = Some(name);
                break;
            }
        }
        let wanted: String = identity.runtime_name(values).chars().take(63).collect();
        for name in candidates(&wanted) {
            let existing = platform
                .runtime(&name)
                .await
                .map_err(|e| register::failed(e, "looking up runtime environment names"))?;
            if existing.is_none() {
                identity.runtime_name = Some(name);
                break;
            }
        }
        Ok(identity)
    })
}

fn failed(err: impl Into<anyhow::Error>, hint: Option<String>) -> Outcome {
    Outcome::Failed(err.into(), hint)
}

fn render_or_fail(
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<render::Rendered, Outcome> {
    render::render(values, identity, record).map_err(|e| {
        failed(
            anyhow::Error::new(e).context("rendering failed (a bug in cf-runner)"),
            Some("please report it with the values file (secrets removed)".into()),
        )
    })
}

/// Connects and says where the runner goes.
async fn connect_and_announce(values: &values::Values) -> Result<cluster::Cluster, Outcome> {
    let cluster = connect(values).await?;
    output::say(&format!(
        "Installing the Codefresh Runner into namespace {} of context {} ({})",
        values.namespace, cluster.context, cluster.server
    ));
    Ok(cluster)
}

/// The preflight against what `identity` renders, unless `SkipClusterTest`.
async fn preflight(
    cluster: &cluster::Cluster,
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<(), Outcome> {
    if values.skip_cluster_test {
        return Ok(());
    }
    let prelim = render_or_fail(values, identity, record)?;
    preflight::gate_install(
        cluster,
        &prelim.manifests,
        &prelim.runtime_environment,
        &values.namespace,
    )
    .await
}

async fn offline(options: &Options, loaded: &values::Loaded) -> Outcome {
    match offline_steps(options, loaded).await {
        Ok(()) => Outcome::Ok,
        Err(outcome) => outcome,
    }
}

async fn offline_steps(options: &Options, loaded: &values::Loaded) -> Result<(), Outcome> {
    let values = &loaded.values;
    let cluster = connect_and_announce(values).await?;
    output::warn(
        "offline mode (no Codefresh API token, only --agent-token): the platform is not contacted; \
         the dind TLS Secret holds placeholders and the runtime environment is not registered",
    );
    output::warn(&format!(
        "the agent name {} and runtime environment name {} were NOT verified: without an API key cf-runner \
         cannot check that --agent-token belongs to that agent, nor that the runtime is attached to it \
         (pass --token to verify)",
        values.agent_name.clone().unwrap_or_else(|| format!("{}_{}", cluster.context, values.namespace)),
        values.runtime_name.clone().unwrap_or_else(|| format!("{}/{}", cluster.context, values.namespace)),
    ));
    let identity = identity::seed(values, Some(cluster.context.clone()));
    let rendered = render_or_fail(values, &identity, &loaded.redacted_tree)?;
    if !values.skip_cluster_test {
        preflight::gate_install(
            &cluster,
            &rendered.manifests,
            &rendered.runtime_environment,
            &values.namespace,
        )
        .await?;
    }
    converge::apply_with_progress(
        &cluster,
        &rendered.manifests,
        &values.namespace,
        options.force_conflicts,
        "install",
    )
    .await?;
    wait_for_install(&cluster, &rendered.manifests, &values.namespace, options).await
}

/// Waits after an install (unless `--no-wait`), and says the runner is running.
async fn wait_for_install(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    options: &Options,
) -> Result<(), Outcome> {
    let Some(timeout) = options.wait else {
        return Ok(());
    };
    converge::wait_with_progress(cluster, manifests, timeout, "init").await?;
    output::done(&format!("the runner is running in namespace {namespace}"));
    Ok(())
}

mod agent;
mod registered;

use agent::*;
use registered::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clash_suffixes_never_push_a_name_past_the_platform_limit() {
        let long = format!("{}/codefresh", "a-very-long-kube-context-name".repeat(3));
        assert!(long.chars().count() > platform::MAX_NAME_LEN);
        let names: Vec<String> = candidates(&long).collect();
        assert_eq!(names.len(), 20);
        for name in &names {
            assert!(name.chars().count() <= platform::MAX_NAME_LEN, "{name}");
        }
        assert!(names[1].ends_with("_1") && names[19].ends_with("_19"));
        assert_eq!(names[1].chars().count(), platform::MAX_NAME_LEN);
        // A short name is kept whole.
        let short: Vec<String> = candidates("ctx_ns").take(2).collect();
        assert_eq!(short, vec!["ctx_ns", "ctx_ns_1"]);
    }

    /// A platform that answers from lists and records every call, in order.
    #[derive(Default)]
    struct FakePlatform {
        agents: Vec<&'static str>,
        /// Runtime names, with the namespace they are registered for.
        runtimes: Vec<(&'static str, &'static str)>,
        calls: std::cell::RefCell<Vec<String>>,
    }

    fn agent(name: &str) -> Agent {
        Agent {
            id: format!("id-{name}"),
            name: name.to_string(),
            runtimes: Vec::new(),
            token: Some("new-agent-token".into()),
            status: None,
        }
    }

    impl Registrar for FakePlatform {
        async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
            self.calls.borrow_mut().push(format!("agents_named {name}"));
            Ok(self
                .agents
                .iter()
                .filter(|a| **a == name)
                .map(|a| agent(a))
                .collect())
        }
        async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
            self.calls.borrow_mut().push(format!("create_agent {name}"));
            Ok(agent(name))
        }
        async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
            self.calls.borrow_mut().push(format!("runtime {name}"));
            Ok(self
                .runtimes
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, ns)| {
                    json!({"runtimeScheduler": {"cluster": {"namespace": ns,
                    "clusterProvider": {"selector": "ctx"}}}})
                }))
        }
        async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
            self.calls.borrow_mut().push(format!(
                "register_runtime {}",
                request.runtime_environment_name
            ));
            Ok(())
        }
    }

    fn values(namespace: &str) -> values::Values {
        let input = values::Input {
            overrides: vec![("Namespace".into(), Value::String(namespace.into()))],
            ..Default::default()
        };
        values::load(&input).expect("the values load").values
    }

    fn calls(fake: &FakePlatform) -> Vec<String> {
        fake.calls.borrow().clone()
    }

    /// A re-run finds the agent the earlier run saved (its name in the
    /// record, its token in the runner Secret) and creates nothing.
    #[test]
    fn a_rerun_reuses_the_saved_agent_and_creates_none() {
        let fake = FakePlatform {
            agents: vec!["ctx_ci"],
            ..Default::default()
        };
        let left = LeftBehind {
            agent_name: Some("ctx_ci".into()),
            agent_token: Some(Secret::new("saved-token")),
            ..Default::default()
        };
        let (agent, token, source) =
            futures::executor::block_on(ensure_agent(&fake, &values("ci"), "ctx_ci", &left, None))
                .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(source, AgentSource::EarlierInstall);
        assert_eq!(
            (agent.name.as_str(), token.expose()),
            ("ctx_ci", "saved-token")
        );
        assert_eq!(calls(&fake), ["agents_named ctx_ci"]);
    }

    /// A first install looks each candidate name up before it creates the
    /// agent under the first free one.
    #[test]
    fn a_new_agent_is_created_under_the_first_free_name_after_looking() {
        let fake = FakePlatform {
            agents: vec!["ctx_ci"],
            ..Default::default()
        };
        let (agent, token, source) = futures::executor::block_on(ensure_agent(
            &fake,
            &values("ci"),
            "ctx_ci",
            &LeftBehind::default(),
            None,
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(source, AgentSource::Created);
        assert_eq!(
            (agent.name.as_str(), token.expose()),
            ("ctx_ci_1", "new-agent-token")
        );
        assert_eq!(
            calls(&fake),
            [
                "agents_named ctx_ci",
                "agents_named ctx_ci_1",
                "create_agent ctx_ci_1"
            ]
        );
    }

    /// A runtime registered for this cluster and namespace is reused; one
    /// of another namespace is skipped, never taken over.
    #[test]
    fn a_runtime_of_another_namespace_is_skipped_and_ours_is_reused() {
        let fake = FakePlatform {
            runtimes: vec![("ctx/ci", "other"), ("ctx/ci_1", "ci")],
            ..Default::default()
        };
        let (name, source) = futures::executor::block_on(ensure_runtime(
            &fake,
            &values("ci"),
            "ctx",
            "ctx/ci",
            &LeftBehind::default(),
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!((name.as_str(), source), ("ctx/ci_1", RuntimeSource::Reused));
        assert_eq!(calls(&fake), ["runtime ctx/ci", "runtime ctx/ci_1"]);

        let fresh = FakePlatform::default();
        let (name, source) = futures::executor::block_on(ensure_runtime(
            &fresh,
            &values("ci"),
            "ctx",
            "ctx/ci",
            &LeftBehind::default(),
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(
            (name.as_str(), source),
            ("ctx/ci", RuntimeSource::Registered)
        );
        assert_eq!(calls(&fresh), ["runtime ctx/ci", "register_runtime ctx/ci"]);
    }
}

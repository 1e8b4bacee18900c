//! The runtimes attached to an agent, as `delete` of the agent sees them:
//! where each is, whether the agent may go, and their deletion first with
//! `delete --all-runtimes`.

use std::path::PathBuf;
use std::time::Duration;

use crate::app::installation::attached::is_attached_runtime;
use crate::app::runtimes::agent_side;
use crate::app::runtimes::life::{check_claim, remove, written_for, Leaving};
use crate::app::runtimes::target::{self, Target, IN_CLUSTER_HOST};
use crate::app::session::outcome::Outcome;
use crate::cluster::inventory::LiveObject;
use crate::cluster::{attached, runtimes as live, Cluster};
use crate::output;
use crate::platform::Platform;
use crate::render::runtimes::{ACCESS_NAME, ACCESS_TOKEN_SECRET, CONFIG_SECRET};

/// A runtime attached to an agent, besides its own, as its file names it.
pub(crate) struct Attached {
    /// The runtime environment's name.
    pub name: String,
    /// Where it is, when that could be told: `Err` says why not.
    pub(crate) place: Result<Target, String>,
}

impl Attached {
    pub(crate) fn describe(&self) -> String {
        match &self.place {
            Ok(t) => format!(
                "{} (namespace {}{})",
                self.name,
                t.namespace.as_deref().unwrap_or("?"),
                t.context
                    .as_deref()
                    .map(|c| format!(", context {c}"))
                    .unwrap_or_default()
            ),
            Err(_) => self.name.clone(),
        }
    }
}

/// The runtimes the agent in `namespace` serves besides `own`, from the
/// files cf-runner wrote for it. The namespace of each is the one its
/// token was issued in; its cluster is the agent's (in-cluster address)
/// or the kubeconfig context that reaches the address its file names.
pub(crate) async fn attached_to(
    cluster: &Cluster,
    namespace: &str,
    own: Option<&str>,
    kubeconfig: Option<&PathBuf>,
) -> Result<Vec<Attached>, Outcome> {
    let files = match live::read_config(&cluster.client, namespace, CONFIG_SECRET).await {
        Ok(Some(c)) if c.ours => c.files,
        Ok(_) => return Ok(Vec::new()),
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the agent's runtimes failed",
            ))
        }
    };
    let mut out = Vec::new();
    for text in files.values() {
        let file = crate::render::runtimes::read_runtime_file(text);
        let name = file.name.clone().unwrap_or_default();
        if name.is_empty() || Some(name.as_str()) == own {
            continue;
        }
        let host = file
            .host
            .as_deref()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_string();
        let place = match attached::token_namespace(
            file.token.as_ref().map(|t| t.expose()).unwrap_or_default(),
        ) {
            None => Err("its token names no namespace".to_string()),
            Some(ns) => {
                let context =
                    if host == IN_CLUSTER_HOST || host == cluster.server.trim_end_matches('/') {
                        Ok(None)
                    } else {
                        match attached::contexts_serving(kubeconfig, &host) {
                            Ok(list) => list
                                .into_iter()
                                .next()
                                .map(Some)
                                .ok_or_else(|| format!("no kubeconfig context reaches {host}")),
                            Err(e) => Err(format!("the kubeconfig cannot be read: {e}")),
                        }
                    };
                context.map(|context| Target {
                    settings: Default::default(),
                    context,
                    kubeconfig: kubeconfig.cloned(),
                    namespace: Some(ns),
                    name: Some(name.clone()),
                    kube_host: None,
                    origin: String::new(),
                })
            }
        };
        out.push(Attached { name, place });
    }
    Ok(out)
}

/// Before `delete` of an agent: with runtimes attached, refuses (exit 3,
/// naming them and `--all-runtimes`), unless `all_runtimes`; then every
/// one of them must be found, and the plan names them.
pub(crate) fn check_agent_delete(
    attached: &[Attached],
    namespace: &str,
    all_runtimes: bool,
) -> Result<(), Outcome> {
    if attached.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = attached.iter().map(Attached::describe).collect();
    if !all_runtimes {
        output::error(
            &anyhow::anyhow!(
                "the agent in namespace {namespace} serves {} attached runtime(s): {}; deleting it would leave them without an agent",
                attached.len(),
                listed.join(", ")
            ),
            Some(&format!(
                "delete them one by one with `cf-runner runtime delete --agent-namespace {namespace} --kube-namespace <namespace>`, \
                 or re-run this command with --all-runtimes to delete them all first, then the agent"
            )),
        );
        return Err(Outcome::PreflightFailed);
    }
    let unplaced: Vec<String> = attached
        .iter()
        .filter_map(|a| {
            a.place
                .as_ref()
                .err()
                .map(|why| format!("{} ({why})", a.name))
        })
        .collect();
    if !unplaced.is_empty() {
        output::error(
            &anyhow::anyhow!(
                "--all-runtimes cannot tell where these attached runtimes are: {}",
                unplaced.join(", ")
            ),
            Some(&format!(
                "delete each with `cf-runner runtime delete --agent-namespace {namespace} --runtime-name <name> \
                 --kube-context-name <context> --kube-namespace <namespace>`, then re-run this command"
            )),
        );
        return Err(Outcome::PreflightFailed);
    }
    Ok(())
}

/// Before `delete` of a namespace: one that an agent serves as an attached
/// runtime (the agent's access objects are there, and no runtimes file: it
/// is not the agent's own) is refused (exit 3) unless `ignore_agent`. Its
/// objects gone, the agent would keep a file whose token no longer works;
/// `runtime delete` detaches it first.
pub(crate) fn check_runtime_namespace(
    objects: &[LiveObject],
    namespace: &str,
    ignore_agent: bool,
) -> Result<(), Outcome> {
    if !is_attached_runtime(objects) || ignore_agent {
        return Ok(());
    }
    output::error(
        &anyhow::anyhow!(
            "namespace {namespace} is a runtime attached to an agent (ServiceAccount {ACCESS_NAME} and Secret \
             {ACCESS_TOKEN_SECRET} are that agent's credentials there): deleting its objects here would leave \
             the agent serving a runtime whose token no longer works"
        ),
        Some(&format!(
            "delete it with `cf-runner runtime delete --agent-namespace <the agent's namespace> --kube-namespace {namespace}`, \
             which detaches it first; if its agent is gone, re-run this command with --ignore-agent"
        )),
    );
    Err(Outcome::PreflightFailed)
}

/// The line of `delete`'s plan that names the attached runtimes it takes
/// first, and what becomes of them; `platform` when the platform is cleaned.
pub(crate) fn say_attached(attached: &[Attached], platform: bool) {
    if attached.is_empty() {
        return;
    }
    let listed: Vec<String> = attached.iter().map(Attached::describe).collect();
    output::say(&attached_plan(&listed, platform));
}

pub(crate) fn attached_plan(listed: &[String], platform: bool) -> String {
    let what = if platform {
        "the agent's runtimes on the platform drop them, then each one's objects in its namespace \
         and its runtime environment on the platform go"
    } else {
        "each one's objects in its namespace go (the platform is left as it is)"
    };
    format!(
        "  first, the runtime(s) attached to the agent (--all-runtimes): {}; {what}. The agent is not \
         rolled for them: it is deleted next, and its runtimes file (Secret {CONFIG_SECRET}) with it",
        listed.join(", ")
    )
}

/// `delete --all-runtimes`: the agent `agent_name` in `namespace` is about
/// to be deleted, so its attached runtimes are not detached one by one
/// (each a rollout of the agent and a wait): the platform's list of the
/// agent's runtimes drops them all at once, so that no build of theirs goes
/// to it, then each runtime's objects and runtime environment go. The
/// agent's runtimes file is not written: it goes with the agent, and until
/// then it names what a re-run must still finish. With no platform
/// (`--keep-platform`, or an install the platform never saw), the platform
/// is left as it is.
pub(crate) async fn delete_attached(
    cluster: &Cluster,
    namespace: &str,
    agent_name: Option<&str>,
    attached: &[Attached],
    platform: Option<&Platform>,
    timeout: Duration,
) -> Result<(), Outcome> {
    if attached.is_empty() {
        return Ok(());
    }
    // The runtimes Secret names them: a claim. Each is resolved and held
    // against the platform before anything is written there.
    let mut resolved = Vec::new();
    for a in attached {
        let Ok(target) = &a.place else { continue };
        let r = target::resolve(cluster, namespace, target).await?;
        if let Some(p) = platform {
            check_claim(p, &r, agent_name, "the agent's runtimes Secret").await?;
        }
        resolved.push((a, r));
    }
    if let (Some(p), Some(name)) = (platform, agent_name) {
        match agent_side::agent_if_there(p, name).await? {
            Some(agent) => {
                let wanted = agent
                    .runtimes
                    .iter()
                    .filter(|n| attached.iter().all(|a| a.name != **n))
                    .cloned()
                    .collect();
                agent_side::set_platform_runtimes(p, &agent, wanted).await?;
            }
            None => output::note(&format!(
                "agent {name} is not on the Codefresh platform: no list of runtimes to take them off there"
            )),
        }
    }
    let leaving = Leaving::AgentGoes {
        namespace,
        name: agent_name,
    };
    for (a, r) in resolved {
        output::say(&format!("Deleting attached runtime {}", a.describe()));
        let written = written_for(&r).await?;
        for note in &written.notes {
            output::note(note);
        }
        remove(
            &leaving,
            &r,
            platform,
            platform.is_some(),
            written.objects,
            timeout,
        )
        .await
        .map_err(|outcome| match outcome {
            // The agent's runtimes file still names every runtime not
            // fully gone: the same command finds them again.
            Outcome::Failed(e, None) => Outcome::Failed(
                e,
                Some(format!(
                    "re-run the same `cf-runner delete --all-runtimes` of namespace {namespace}, with the same \
                     flags: what is already gone is skipped"
                )),
            ),
            other => other,
        })?;
    }
    Ok(())
}

//! Carrying the move out: the platform checks, the kept token and
//! certificates, the storage refusal, and the order in which one runner
//! always serves builds.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::app::adopt::credentials;
use crate::app::adopt::detect::{plan, values_text, ADOPTING_ANNOTATION, INTERIM_SUFFIX};
use crate::app::adopt::found::{Found, Plan, Start};
use crate::app::adopt::handover::{kept_certs, mark_taken_over, remove, signed_certs, OnPlatform};
use crate::app::adopt::objects::AdoptOptions;
use crate::app::adopt::objects::{in_namespace, kind, name, ObjectRef, RUNNER_TOKEN_SECRET};
use crate::app::adopt::report::{print_plan, unclassified_refusal};
use crate::app::identity::register;
use crate::app::installation::{identity, plan, record};
use crate::app::session::outcome::{Doing, Outcome};
use crate::app::session::{converge, lock};
use crate::cluster;
use crate::output;
use crate::render::{self, Identity, Manifest, Rendered};
use crate::values::{self, Input, Problem, Problems};

/// Applies with force: adopt takes over the old tool's objects of the same
/// name.
async fn adopt_apply(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
) -> Result<(), Outcome> {
    converge::apply_with_progress(cluster, manifests, namespace, true, "adopt")
        .await
        .map(|_| ())
}

async fn adopt_wait(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    converge::wait_with_progress(cluster, manifests, timeout, "adopt").await
}

/// The diff of a move, against objects that are installed.
fn print_diffs(diffs: &[cluster::diff::ObjectDiff], namespace: &str, context: &str) {
    plan::print_diffs(diffs, namespace, context, true)
}

fn token_needed(why: &str) -> Outcome {
    register::token_needed("adopt", why, "")
}

pub(super) async fn on_platform(
    args: &AdoptOptions,
    values: &values::Values,
    runnerconf: &[String],
    namespace: &str,
) -> Result<OnPlatform, Outcome> {
    use crate::platform::Need;
    let auth = match register::resolve(
        &args.platform,
        Some(crate::platform::auth::NamedUrl {
            url: &values.codefresh_host,
            origin: "the old runner (its CODEFRESH_HOST)",
        }),
    ) {
        Ok(Some(a)) => a,
        Ok(None) => {
            return Err(token_needed(
                "compare the runtime environment's spec on the Codefresh platform with the one cf-runner \
                 runs and send it when it differs (builds would otherwise keep the old installer's spec)",
            ))
        }
        Err(e) => return Err(Outcome::from_platform(e, "finding the Codefresh API token")),
    };
    let client = register::client(&auth, &args.platform)?;
    let who = client
        .whoami()
        .await
        .doing("checking the Codefresh API token")?;
    client
        .require_scopes(&[Need::Agents, Need::RuntimeEnvironments])
        .await
        .doing("checking the Codefresh API token's scopes")?;
    let Some(agent_name) = values.agent_name.clone() else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "AgentId",
            None,
            "could not be read from the runner (its AGENT_ID variable is missing)",
            "check the old runner's Deployment: adopt keeps the agent it runs as",
        )])));
    };
    let agents = client
        .agents_named(&agent_name)
        .await
        .doing("looking up the agent")?;
    let Some(agent) = agents.into_iter().next() else {
        return Err(Outcome::failed(
            anyhow::anyhow!(
                "agent {agent_name}, which the runner runs as, is not on the Codefresh platform {}",
                client.url()
            ),
            "pass --token (and --url) for the account the runner was installed with; nothing was changed",
        ));
    };
    let listed = agent.runtimes.as_slice();
    let runtime = match &values.runtime_name {
        Some(r) if listed.is_empty() || listed.contains(r) => r.clone(),
        Some(r) => choose_runtime(args, &agent_name, r, listed)?,
        None => match listed {
            [one] => one.clone(),
            other if other.iter().filter(|r| runnerconf.contains(r)).count() == 1 => other
                .iter()
                .find(|r| runnerconf.contains(r))
                .cloned()
                .expect("counted one"),
            other => match crate::app::adopt::runtimes::own_of(&client, other, runnerconf, namespace).await? {
                Some(own) => own,
                None => return Err(Outcome::failed(
                    anyhow::anyhow!(
                        "the install does not name its runtime environment, and agent {agent_name} serves {} ({})",
                        other.len(),
                        other.join(", ")
                    ),
                    "adopt moves an agent with exactly one runtime environment of its own namespace; nothing was changed",
                )),
            },
        },
    };
    let spec = client
        .runtime(&runtime)
        .await
        .doing("reading the runtime environment")?
        .ok_or_else(|| {
            Outcome::failed(
                anyhow::anyhow!("runtime environment {runtime} is not on the Codefresh platform"),
                "pass --token for the account the runner was installed with; nothing was changed",
            )
        })?;
    let account_id = who.account_id.or_else(|| {
        spec.get("accountId")
            .or(spec.pointer("/runtimeScheduler/cluster/clusterProvider/accountId"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    output::done(&format!(
        "Codefresh platform {}: agent {agent_name} and runtime environment {runtime} found",
        client.url()
    ));
    Ok(OnPlatform {
        client,
        token: auth.token.clone(),
        account_id,
        agent: agent_name,
        runtime,
        spec,
    })
}

/// The install names runtime environment `from_install` and the
/// platform's agent record lists others: asks which one on a terminal,
/// otherwise refuses (exit 2) naming both.
fn choose_runtime(
    args: &AdoptOptions,
    agent: &str,
    from_install: &str,
    listed: &[String],
) -> Result<String, Outcome> {
    if let ([platform], true) = (listed, !args.yes && output::stdin_is_tty()) {
        output::say(&format!(
            "the install names runtime environment {from_install} (runnerconf's name: entry), \
             but the platform's agent {agent} serves {platform}"
        ));
        let prompt = format!("Move the runner as runtime environment {platform} (the platform's)?");
        return match output::confirm(&prompt, false) {
            Ok(true) => Ok(platform.clone()),
            Ok(false) => Ok(from_install.to_string()),
            Err(e) => Err(Outcome::failed(
                anyhow::Error::new(e).context("reading the answer failed"),
                "nothing was changed",
            )),
        };
    }
    Err(Outcome::BadInput(Problems(vec![Problem::new(
        "RuntimeEnvironmentName",
        Some(&Value::String(from_install.to_string())),
        format!(
            "is the runtime environment the install names (runnerconf's name: entry), \
             but the platform's agent {agent} serves {}; adopt cannot tell which one builds go to",
            listed.join(", ")
        ),
        "attach the runtime environment to the agent on the platform (or fix runnerconf) so both agree, \
         or run adopt on a terminal without --yes to choose; nothing was changed",
    )])))
}

/// The agent token the old runner uses (or, on a re-run, cf-runner's copy).
pub(super) async fn agent_token(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Option<&Found>,
) -> Result<values::Secret, Outcome> {
    let mut places: Vec<(String, &str)> = Vec::new();
    if let Some(secret) = found.and_then(|f| f.token_secret.clone()) {
        places.push((secret.clone(), "agent-codefresh-token"));
        places.push((secret, render::TOKEN_KEY));
    }
    places.push((RUNNER_TOKEN_SECRET.to_string(), render::TOKEN_KEY));
    for (secret, key) in &places {
        let value = record::read_kept(cluster, namespace, secret, key)
            .await
            .doing("reading the agent token failed")?;
        if let Some(v) = value {
            return Ok(values::Secret::new(v));
        }
    }
    Err(Outcome::failed(
        anyhow::anyhow!(
            "no agent token found in namespace {namespace} (looked in {})",
            places
                .iter()
                .map(|(s, k)| format!("Secret/{s} key {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "adopt keeps the agent's token and cannot go on without it; nothing was changed",
    ))
}

/// Refuses a move that would change how dind volumes are made: the
/// StorageClass cf-runner renders must equal the one in place (a class's
/// provisioner and parameters cannot change, and the volumes belong to it).
pub(super) fn storage_problems(rendered: &[Manifest], objects: &[Value]) -> Vec<Problem> {
    let mut out = Vec::new();
    for ours in rendered.iter().filter(|m| m.kind == "StorageClass") {
        let Some(live) = objects
            .iter()
            .find(|o| kind(o) == "StorageClass" && name(o) == ours.name)
        else {
            continue;
        };
        let backend = |o: &Value| {
            o["parameters"]["volumeBackend"]
                .as_str()
                .unwrap_or("(none)")
                .to_string()
        };
        if live["provisioner"] != ours.object["provisioner"]
            || backend(live) != backend(&ours.object)
        {
            out.push(Problem::new(
                "Storage.Backend",
                Some(&Value::String(backend(&ours.object))),
                format!(
                    "would change the storage backend of the dind volumes: StorageClass {} has provisioner {} and backend {}, \
                     cf-runner would make it {} with backend {}; the existing volumes belong to the old class",
                    ours.name,
                    live["provisioner"].as_str().unwrap_or("(none)"),
                    backend(live),
                    ours.object["provisioner"].as_str().unwrap_or("(none)"),
                    backend(&ours.object)
                ),
                "adopt keeps the storage as it is; to change it, adopt first, then `cf-runner delete --purge-volumes` and `cf-runner init` with the new storage",
            ));
            continue;
        }
        // Immutable too; the API server fills them in when left out.
        for (field, default) in [
            ("reclaimPolicy", "Delete"),
            ("volumeBindingMode", "Immediate"),
        ] {
            let value = |o: &Value| o[field].as_str().unwrap_or(default).to_string();
            if value(live) != value(&ours.object) {
                out.push(Problem::new(
                    "Storage",
                    None,
                    format!(
                        "would change the {field} of StorageClass {} ({} → {}), which Kubernetes does not allow",
                        ours.name,
                        value(live),
                        value(&ours.object)
                    ),
                    "adopt keeps the storage as it is: this class was made in a way cf-runner does not render; keep the old install, or move with `cf-runner delete --purge-volumes` and `cf-runner init`",
                ));
            }
        }
        let theirs = live["parameters"].as_object().cloned().unwrap_or_default();
        let mine = ours.object["parameters"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let differ: Vec<String> = theirs
            .keys()
            .chain(mine.keys())
            .filter(|k| theirs.get(*k) != mine.get(*k))
            .map(|k| {
                format!(
                    "{k}: {} → {}",
                    theirs
                        .get(k)
                        .map(ToString::to_string)
                        .unwrap_or("(unset)".into()),
                    mine.get(k)
                        .map(ToString::to_string)
                        .unwrap_or("(unset)".into())
                )
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !differ.is_empty() {
            out.push(Problem::new(
                "Storage",
                None,
                format!(
                    "would change the parameters of StorageClass {} ({}), which Kubernetes does not allow and the existing volumes rely on",
                    ours.name,
                    differ.join(", ")
                ),
                "set the Storage values in the saved values file to the class's parameters; adopt reads the common ones",
            ));
        }
    }
    out
}

/// A copy of workload `m` under another name and pod selector, to serve
/// while the old workload of `m`'s name (and another selector) is removed.
pub(super) fn interim(m: &Manifest) -> Manifest {
    let mut copy = m.clone();
    copy.name = format!("{}{INTERIM_SUFFIX}", m.name);
    let o = &mut copy.object;
    o["metadata"]["name"] = json!(copy.name);
    o["spec"]["selector"] = json!({"matchLabels": {
        "app.kubernetes.io/name": copy.name,
        render::LABEL_INSTANCE: m.namespace.clone().unwrap_or_default(),
    }});
    let labels = &mut o["spec"]["template"]["metadata"]["labels"];
    if let Some(map) = labels.as_object_mut() {
        // Old selectors (venonactl's `app: runner`) must not match it.
        map.remove("app");
    }
    labels["app.kubernetes.io/name"] = json!(copy.name);
    labels[render::LABEL_INSTANCE] = json!(m.namespace.clone().unwrap_or_default());
    copy
}

/// Moves the runner: reads what the move needs (values, platform, token,
/// certificates), refuses what cannot move, saves the values file, shows
/// the plan and asks; then, under the install's lock, carries it out.
/// False when the user said no (nothing was changed).
pub(super) async fn move_runner(
    args: &AdoptOptions,
    cluster: &cluster::Cluster,
    namespace: &str,
    objects: &[Value],
    start: Start,
) -> Result<bool, Outcome> {
    let mut moving = prepare(args, cluster, namespace, objects, start).await?;
    if !args.yes && !confirmed(cluster, &moving.rendered.manifests, namespace).await? {
        return Ok(false);
    }
    // The install's lock from the first write (on the platform or in the
    // cluster) to the end: after the question, so that a refusal or a
    // "no" writes nothing at all.
    let how = lock::LockWait::of(args.no_wait_for_lock, args.timeout);
    let held = lock::take(cluster, namespace, "adopt", how, None).await?;
    let moved = carry_out(args, cluster, namespace, objects, &mut moving).await;
    lock::release(held, namespace).await;
    moved.map(|()| true)
}

/// Everything a confirmed move needs, read and checked before the
/// question: nothing is written to make it.
struct Moving {
    found: Option<Found>,
    tool: String,
    loaded: values::Loaded,
    platform: OnPlatform,
    /// Secret runnerconf's files as they are now.
    conf: std::collections::BTreeMap<String, String>,
    /// The agent serves several runtimes from runnerconf.
    several: bool,
    /// The agent moves to an install of its own (no runtime here).
    alone: bool,
    /// The dind certificates in place, if any.
    kept: Option<crate::app::identity::certificate::DindTls>,
    identity: Identity,
    rendered: Rendered,
    layout: Option<crate::app::adopt::runtimes::Layout>,
    plan: Plan,
    spec: Value,
    differ: Vec<String>,
}

/// Reads what the move needs, refuses what cannot move, saves the values
/// file and shows the plan.
async fn prepare(
    args: &AdoptOptions,
    cluster: &cluster::Cluster,
    namespace: &str,
    objects: &[Value],
    start: Start,
) -> Result<Moving, Outcome> {
    let Start {
        found,
        tree,
        tool,
        resuming,
    } = start;
    let (loaded, conf, several, platform, alone) =
        load_move(args, cluster, namespace, found.as_ref(), tree, resuming).await?;
    let token = agent_token(cluster, namespace, found.as_ref()).await?;
    let kept = if alone {
        None
    } else {
        kept_certs(cluster, namespace).await?
    };
    if kept.is_some() {
        output::done("dind TLS certificates kept (Secret/codefresh-certs-server)");
    }
    let identity = kept_identity(&loaded, cluster, &platform, token, kept.clone());
    let mut rendered = render_move(&loaded, &identity)?;
    let layout = if several || alone {
        let names = crate::app::adopt::runtimes::runtime_object_names(&loaded, &identity)?;
        if alone {
            let ledger = cluster::ownership::Ledger::read(&cluster.client, namespace)
                .await
                .doing("reading the namespace's ledger failed")?;
            crate::app::adopt::several_runtimes::refuse_runtime_objects_here(
                namespace, objects, &names, &ledger,
            )?;
        }
        let own = (!alone).then_some(platform.runtime.as_str());
        let layout =
            crate::app::adopt::runtimes::survey(cluster, namespace, &platform, own, &conf, &names)
                .await?;
        crate::app::adopt::runtimes::config_dir(&mut rendered, namespace, &conf);
        Some(layout)
    } else {
        None
    };
    let (plan, spec, differ) = plan_move(
        args,
        namespace,
        objects,
        &rendered,
        &platform,
        found.as_ref(),
        resuming,
    )?;
    if let Some(layout) = &layout {
        crate::app::adopt::runtimes::print_plan(layout, namespace);
    }
    say_platform_side(&platform, alone, &differ);
    Ok(Moving {
        found,
        tool,
        loaded,
        platform,
        conf,
        several,
        alone,
        kept,
        identity,
        rendered,
        layout,
        plan,
        spec,
        differ,
    })
}

/// The move's values, the agent's runtimes (Secret runnerconf) and what
/// the platform holds, checked; and whether the agent moves alone.
async fn load_move(
    args: &AdoptOptions,
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Option<&Found>,
    tree: Value,
    resuming: bool,
) -> Result<
    (
        values::Loaded,
        std::collections::BTreeMap<String, String>,
        bool,
        OnPlatform,
        bool,
    ),
    Outcome,
> {
    let (mut input, mut loaded) = load_values(cluster, namespace, found, tree, resuming).await?;
    // Secret runnerconf as it is now (venonactl's, or cf-runner's once an
    // interrupted move took it over): several runtimes keep config-dir mode.
    let conf = crate::app::adopt::runtimes::read_files(cluster, namespace).await?;
    let several = crate::app::adopt::runtimes::serves_several(&conf);
    let runnerconf = if several {
        conf.values()
            .filter_map(|t| render::runtimes::file_runtime_name(t))
            .collect()
    } else {
        found
            .map(|f| f.runnerconf_runtimes.clone())
            .unwrap_or_default()
    };
    if !several {
        let named = loaded.values.runtime_name.as_deref();
        crate::app::adopt::several_runtimes::refuse_several(namespace, named, &runnerconf)?;
    }
    let platform = on_platform(args, &loaded.values, &runnerconf, namespace).await?;
    // venonactl's agent in a namespace of its own (config-dir mode, every
    // runtime elsewhere) moves to an agent installed alone.
    let alone = loaded.values.agent_only
        || (!conf.is_empty()
            && crate::app::adopt::several_runtimes::builds_elsewhere(namespace, &platform.spec)
                .is_some());
    if alone {
        let (agent_input, agent_loaded) =
            crate::app::adopt::several_runtimes::as_agent_alone(&input, namespace)?;
        (input, loaded) = (agent_input, agent_loaded);
    } else {
        crate::app::adopt::several_runtimes::refuse_elsewhere(
            namespace,
            &platform.agent,
            &platform.runtime,
            &platform.spec,
        )?;
    }
    if loaded.values.monitor.enabled && loaded.values.token.is_none() {
        // The monitor reads the API token from its Secret, as after `init`.
        let mut input = input;
        input.overrides.push((
            "Token".into(),
            Value::String(platform.token.expose().to_string()),
        ));
        loaded = values::load(&input)?;
    }
    // The runtime's name is now known for sure: the record keeps it (an
    // agent alone has none of its own).
    if !alone {
        loaded.redacted_tree["RuntimeEnvironmentName"] = json!(platform.runtime);
    }
    loaded.redacted_tree["AgentId"] = json!(platform.agent);
    Ok((loaded, conf, several, platform, alone))
}

/// The move's plan, refused where an object is not classified or the
/// dind volumes would change; the values file saved (by the first run of
/// a move) and the plan shown. Gives the plan and the spec to send.
fn plan_move(
    args: &AdoptOptions,
    namespace: &str,
    objects: &[Value],
    rendered: &Rendered,
    platform: &OnPlatform,
    found: Option<&Found>,
    resuming: bool,
) -> Result<(Plan, Value, Vec<String>), Outcome> {
    let problems = storage_problems(&rendered.manifests, objects);
    if !problems.is_empty() {
        return Err(Outcome::BadInput(Problems(problems)));
    }
    let ours: Vec<(ObjectRef, Value)> = rendered
        .manifests
        .iter()
        .map(|m| {
            (
                ObjectRef {
                    kind: m.kind.clone(),
                    name: m.name.clone(),
                },
                m.object["spec"]["selector"].clone(),
            )
        })
        .collect();
    let plan = match found {
        Some(f) => plan(f, &ours, namespace),
        None => Plan::default(),
    };
    if let Some(problems) = unclassified_refusal(&plan) {
        return Err(Outcome::BadInput(problems));
    }
    // A re-run continues a move: the values file was saved by the first run.
    if let Some(f) = found.filter(|_| !resuming) {
        save_values_file(args, f, namespace)?;
    }
    print_plan(found, &plan, false);
    let spec = register::spec_to_send(
        &rendered.runtime_environment,
        platform.account_id.as_deref(),
    );
    let differ = register::spec_differences(&spec, &platform.spec);
    Ok((plan, spec, differ))
}

/// What the move does on the platform, as the plan shows it.
fn say_platform_side(platform: &OnPlatform, alone: bool, differ: &[String]) {
    if alone {
        output::say(
            "  on the platform: the agent keeps its runtimes; it has no runtime environment of its own, and no spec is sent",
        );
    } else if differ.is_empty() {
        output::say(&format!(
            "  runtime environment {} on the platform: its spec already matches cf-runner's",
            platform.runtime
        ));
    } else {
        output::say(&format!(
            "  runtime environment {} on the platform: cf-runner's spec replaces the old installer's ({} differ)",
            platform.runtime,
            differ.join(", ")
        ));
    }
}

/// The confirmed move, under the install's lock: the dind certificate
/// signed if there was none, every runtime's access, the runner carried
/// over, the old access removed, the spec sent, and the record unmarked.
async fn carry_out(
    args: &AdoptOptions,
    cluster: &cluster::Cluster,
    namespace: &str,
    objects: &[Value],
    m: &mut Moving,
) -> Result<(), Outcome> {
    if m.kept.is_none() && !m.alone {
        // Signed only now, once the move is confirmed.
        let (ca, cert, key) = signed_certs(namespace, &m.platform).await?;
        m.identity.dind_ca = Some(ca);
        m.identity.dind_cert = Some(cert);
        m.identity.dind_key = Some(key);
        m.rendered = render_move(&m.loaded, &m.identity)?;
        if m.several {
            crate::app::adopt::runtimes::config_dir(&mut m.rendered, namespace, &m.conf);
        }
    }
    if let Some(layout) = &m.layout {
        // Every runtime's access first: cf-runner's runner comes up
        // with every runtime's file and cf-runner's tokens.
        let files = crate::app::adopt::runtimes::take_over(
            cluster,
            namespace,
            layout,
            &m.loaded,
            &m.identity,
            &m.platform,
            args.timeout,
        )
        .await?;
        crate::app::adopt::runtimes::config_dir(&mut m.rendered, namespace, &files);
    }
    let carry = Carry {
        cluster,
        namespace,
        objects,
        timeout: args.timeout,
    };
    carry
        .run(&m.rendered, &m.plan, m.found.as_ref(), &m.tool)
        .await?;
    if let Some(layout) = &m.layout {
        crate::app::adopt::runtimes::remove_old_access(cluster, layout, args.timeout).await?;
    }
    if !m.alone {
        send_spec(&m.platform, &m.spec, &m.differ).await?;
    }
    // The record, no longer marked: the move is over.
    adopt_apply(
        cluster,
        std::slice::from_ref(carry.record(&m.rendered)),
        namespace,
    )
    .await?;
    output::done(&format!(
        "the runner in namespace {namespace} is cf-runner's now: `cf-runner upgrade`, `info` and `delete` work on it"
    ));
    Ok(())
}

/// The values of the move: what the install is (or, on a re-run, what was
/// recorded, its secrets back from cf-runner's Secrets), with the
/// credentials the old install keeps as overrides.
async fn load_values(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Option<&Found>,
    mut tree: Value,
    resuming: bool,
) -> Result<(Input, values::Loaded), Outcome> {
    if resuming {
        // The record holds the secrets redacted: back from cf-runner's
        // Secrets, which the first run wrote.
        plan::restore_secrets(cluster, namespace, &mut tree)
            .await
            .doing("reading the installed secrets failed")?;
    }
    // The credentials cf-runner keeps in its own Secret, read from where
    // the old install keeps them: overrides, never in the saved file.
    let carried = match found {
        Some(f) => credentials::carried_values(cluster, namespace, &f.credentials).await?,
        None => Vec::new(),
    };
    // The values: what the install is (or, on a re-run, what was recorded).
    let input = Input {
        files: vec![values::ValuesFile {
            origin: format!("the install in namespace {namespace}"),
            text: serde_yaml_ng::to_string(&tree).expect("a tree serializes"),
        }],
        overrides: [
            ("Context".into(), Value::String(cluster.context.clone())),
            ("Namespace".into(), Value::String(namespace.to_string())),
        ]
        .into_iter()
        .chain(carried)
        .collect(),
        ..Default::default()
    };
    let loaded = values::load(&input)?;
    Ok((input, loaded))
}

/// The names the platform knows, with the credentials kept from the old
/// install.
fn kept_identity(
    loaded: &values::Loaded,
    cluster: &cluster::Cluster,
    platform: &OnPlatform,
    token: values::Secret,
    kept: Option<(values::Secret, values::Secret, values::Secret)>,
) -> Identity {
    let (ca, cert, key) = match kept {
        Some((ca, cert, key)) => (Some(ca), Some(cert), Some(key)),
        None => (None, None, None),
    };
    let mut identity = identity::seed(&loaded.values, Some(cluster.context.clone()));
    identity.agent_name = Some(platform.agent.clone());
    identity.runtime_name = Some(platform.runtime.clone());
    identity.account_id = platform.account_id.clone();
    identity.agent_token = Some(token);
    (identity.dind_ca, identity.dind_cert, identity.dind_key) = (ca, cert, key);
    identity.registered = true;
    identity
}

fn render_move(loaded: &values::Loaded, identity: &Identity) -> Result<Rendered, Outcome> {
    Ok(render::render(
        &loaded.values,
        identity,
        &loaded.redacted_tree,
    )?)
}

/// Saves what the install is as a values file (tokens left out).
fn save_values_file(args: &AdoptOptions, found: &Found, namespace: &str) -> Result<(), Outcome> {
    output::say(&format!(
        "found in namespace {namespace}: a runner made by {}",
        found.tool.describe()
    ));
    let saved = values_text(found, namespace);
    crate::export::write_owned(
        &args.values_file,
        &saved.text,
        saved.holds_secret,
        args.overwrite,
    )
    .map_err(|e| Outcome::Failed(e.into(), None))?;
    output::note(&format!(
        "saved what the install is to {} (tokens are not in it)",
        args.values_file.display()
    ));
    Ok(())
}

/// Shows what the apply changes in each object, as `diff` shows it, and
/// asks: the settings the old install had and the values file does not
/// carry (a hand-edited daemon.json, say) show up here.
async fn confirmed(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
) -> Result<bool, Outcome> {
    match cluster::diff::diff_all(&cluster.client, manifests, &[]).await {
        Ok(diffs) => print_diffs(&diffs, namespace, &cluster.context),
        Err(e) => output::warn(&format!(
            "the server-side dry-run failed, no diff to show: {e}"
        )),
    }
    match output::confirm("Move the runner to cf-runner?", false) {
        Ok(true) => Ok(true),
        Ok(false) => {
            output::say("Nothing was changed.");
            Ok(false)
        }
        Err(e) => Err(Outcome::failed(
            anyhow::Error::new(e).context("reading the answer failed"),
            "re-run with --yes to skip the question",
        )),
    }
}

/// The platform's runtime spec, as `upgrade` keeps it.
async fn send_spec(platform: &OnPlatform, spec: &Value, differ: &[String]) -> Result<(), Outcome> {
    if differ.is_empty() {
        output::done(&format!(
            "runtime environment {}: the platform's spec already matches cf-runner's",
            platform.runtime
        ));
        return Ok(());
    }
    // `differ` already holds what the platform's spec lacks.
    register::put_spec(
        &platform.client,
        &platform.runtime,
        spec,
        None,
        "sending the runtime environment's spec failed (the cluster is moved; re-run `cf-runner upgrade` with a token to send it)",
    )
    .await?;
    output::done(&format!(
        "runtime environment {}: cf-runner's spec sent to the platform ({} differed)",
        platform.runtime,
        differ.join(", ")
    ));
    Ok(())
}

/// The confirmed move in the cluster, in an order where one runner always
/// serves builds.
struct Carry<'a> {
    cluster: &'a cluster::Cluster,
    namespace: &'a str,
    /// The namespace's objects, as scanned before the move.
    objects: &'a [Value],
    timeout: std::time::Duration,
}

impl<'a> Carry<'a> {
    /// The scanned object `r` names (the namespace's first).
    fn by_ref(&self, r: &ObjectRef) -> Option<&'a Value> {
        let objects = self.objects;
        objects
            .iter()
            .find(|o| {
                kind(o) == r.kind
                    && name(o) == r.name
                    && !is_cluster_scoped_value(o, self.namespace)
            })
            .or_else(|| {
                objects
                    .iter()
                    .find(|o| kind(o) == r.kind && name(o) == r.name)
            })
    }

    /// The rendered record Secret.
    fn record<'r>(&self, rendered: &'r Rendered) -> &'r Manifest {
        rendered
            .manifests
            .iter()
            .find(|m| m.kind == "Secret" && m.name == render::RECORD_SECRET)
            .expect("the record is always rendered")
    }

    /// Steps 0 to 3 of the move.
    async fn run(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        found: Option<&Found>,
        tool: &str,
    ) -> Result<(), Outcome> {
        let record = self.record(rendered);
        let mut moving = record.clone();
        moving.object["metadata"]["annotations"][ADOPTING_ANNOTATION] = json!(tool);
        self.mark_taken_over(rendered, plan, found).await?;

        // 0. The record first, marked: a re-run continues from here.
        adopt_apply(self.cluster, std::slice::from_ref(&moving), self.namespace).await?;
        let clash = self.bring_up(rendered, plan, &moving).await?;
        self.old_runner_goes(rendered, plan, &clash).await?;
        self.old_objects_go(rendered, plan).await
    }

    /// What is taken over in place is cf-runner's from now on: marked with
    /// its own uid before the first apply, which refuses any object that is
    /// someone else's (`cluster::ownership`).
    /// The runner's StorageClass stays (same name and provisioner) and gets
    /// cf-runner's labels: it is taken over too.
    async fn mark_taken_over(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        found: Option<&Found>,
    ) -> Result<(), Outcome> {
        let class = found
            .and_then(|f| f.storage_class.as_ref())
            .map(|(name, _)| ObjectRef {
                kind: "StorageClass".into(),
                name: name.clone(),
            });
        let rendered_class = class.as_ref().filter(|c| {
            rendered
                .manifests
                .iter()
                .any(|m| m.kind == c.kind && m.name == c.name)
        });
        for r in plan.taken_over.iter().chain(rendered_class) {
            let Some(o) = self.by_ref(r) else { continue };
            mark_taken_over(self.cluster, self.namespace, o).await?;
        }
        Ok(())
    }

    /// 1. cf-runner's runner (and every other object) up and ready, with the
    ///    same agent token; a workload whose name an old one of another pod
    ///    selector holds comes up under an interim name. Gives those
    ///    workloads.
    async fn bring_up<'r>(
        &self,
        rendered: &'r Rendered,
        plan: &Plan,
        moving: &Manifest,
    ) -> Result<Vec<&'r Manifest>, Outcome> {
        let clash: Vec<&Manifest> = rendered
            .manifests
            .iter()
            .filter(|m| {
                plan.selector_clash
                    .iter()
                    .any(|c| c.kind == m.kind && c.name == m.name)
            })
            .collect();
        let mut first: Vec<Manifest> = rendered
            .manifests
            .iter()
            .filter(|m| !clash.iter().any(|c| c.kind == m.kind && c.name == m.name))
            .map(|m| {
                if m.name == moving.name && m.kind == "Secret" {
                    moving.clone()
                } else {
                    m.clone()
                }
            })
            .collect();
        first.extend(clash.iter().map(|m| interim(m)));
        output::say(
            "Step 1 of 3: cf-runner's runner comes up beside the old one (same agent token)",
        );
        adopt_apply(self.cluster, &first, self.namespace).await?;
        adopt_wait(self.cluster, &first, self.timeout).await?;
        Ok(clash)
    }

    /// 2. The old runner (and the old workloads replaced) go; the workloads
    ///    of their names come up, and the interim ones (of this run or an
    ///    interrupted one) go once the real ones are ready.
    async fn old_runner_goes(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        clash: &[&Manifest],
    ) -> Result<(), Outcome> {
        output::say("Step 2 of 3: the old runner goes");
        let old_workloads: Vec<&Value> = plan
            .replaced
            .iter()
            .map(|(old, _)| old)
            .chain(plan.selector_clash.iter())
            .filter(|o| matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, old_workloads, self.timeout).await?;
        if !clash.is_empty() {
            let now: Vec<Manifest> = clash.iter().map(|m| (*m).clone()).collect();
            adopt_apply(self.cluster, &now, self.namespace).await?;
            adopt_wait(self.cluster, &now, self.timeout).await?;
        }
        let mut interims = Vec::new();
        for m in rendered
            .manifests
            .iter()
            .filter(|m| matches!(m.kind.as_str(), "Deployment" | "DaemonSet"))
        {
            let interim_name = format!("{}{INTERIM_SUFFIX}", m.name);
            if let Some(live) = cluster::inventory::get(
                &self.cluster.client,
                &m.api_version,
                &m.kind,
                m.namespace.as_deref(),
                &interim_name,
            )
            .await
            .doing("reading the interim workloads failed")?
            {
                let mut object = live.object.clone();
                object["apiVersion"] = json!(m.api_version);
                object["kind"] = json!(m.kind);
                interims.push(object);
            }
        }
        remove(self.cluster, interims.iter().collect(), self.timeout).await
    }

    /// 3. The rest: the old tool's marks off what cf-runner took over, the
    ///    old objects replaced or only the old tool needed, and the Helm
    ///    release records last, so that helm no longer claims anything.
    async fn old_objects_go(&self, rendered: &Rendered, plan: &Plan) -> Result<(), Outcome> {
        output::say("Step 3 of 3: the old installer's objects go (the Helm release record last)");
        // Never the namespace: it is left alone, marks and all.
        for m in rendered.manifests.iter().filter(|m| m.kind != "Namespace") {
            cluster::adopt::remove_old_marks(
                self.cluster,
                &m.api_version,
                &m.kind,
                m.namespace.as_deref(),
                &m.name,
            )
            .await
            .doing("removing the old installer's labels failed")?;
        }
        let is_release =
            |r: &ObjectRef| r.kind == "Secret" && r.name.starts_with("sh.helm.release.v1.");
        let rest: Vec<&Value> = plan
            .replaced
            .iter()
            .map(|(old, _)| old)
            .chain(plan.removed.iter())
            .filter(|o| !matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
            .filter(|o| !is_release(o))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, rest, self.timeout).await?;
        let releases: Vec<&Value> = plan
            .removed
            .iter()
            .filter(|o| is_release(o))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, releases, self.timeout).await
    }
}

pub(super) fn is_cluster_scoped_value(o: &Value, namespace: &str) -> bool {
    !in_namespace(o, namespace)
}

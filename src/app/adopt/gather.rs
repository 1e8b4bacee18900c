//! What a move needs, read before anything is written: the values (a
//! re-run's from the record), the platform's side of the install, the
//! agent token, the identity it renders with; and the refusal of a move
//! that would change how dind volumes are made.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::app::adopt::credentials;
use crate::app::adopt::detect::INTERIM_SUFFIX;
use crate::app::adopt::found::Found;
use crate::app::adopt::handover::OnPlatform;
use crate::app::adopt::objects::AdoptOptions;
use crate::app::adopt::objects::{kind, name, RUNNER_TOKEN_SECRET};
use crate::app::identity::register;
use crate::app::installation::{identity, record, standing};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::output;
use crate::render::{self, Identity, Manifest, Rendered};
use crate::values::{self, Input, Problem, Problems};

pub(crate) fn token_needed(why: &str) -> Outcome {
    register::token_needed("adopt", why, "")
}

/// The platform client of the move, from the token the flags, the
/// environment or the CLI config give for the old runner's platform, with
/// the scopes adopt needs checked.
async fn checked_client(
    args: &AdoptOptions,
    values: &values::Values,
) -> Result<
    (
        crate::platform::auth::Auth,
        crate::platform::Platform,
        crate::platform::Whoami,
    ),
    Outcome,
> {
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
    Ok((auth, client, who))
}

/// The old install's agent and runtime environment on the platform (its
/// spec too), found with the user's token before anything is changed.
pub(crate) async fn on_platform(
    args: &AdoptOptions,
    values: &values::Values,
    runnerconf: &[String],
    namespace: &str,
) -> Result<OnPlatform, Outcome> {
    let (auth, client, who) = checked_client(args, values).await?;
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
    let runtime = own_runtime(
        args,
        &client,
        values,
        (&agent_name, &agent),
        runnerconf,
        namespace,
    )
    .await?;
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

/// The runtime environment of the install's own namespace among those the
/// agent serves: the one the install names, else the only one, else the
/// one runnerconf and the platform agree on.
async fn own_runtime(
    args: &AdoptOptions,
    client: &crate::platform::Platform,
    values: &values::Values,
    (agent_name, agent): (&str, &crate::platform::Agent),
    runnerconf: &[String],
    namespace: &str,
) -> Result<String, Outcome> {
    let listed = agent.runtimes.as_slice();
    match &values.runtime_name {
        Some(r) if listed.is_empty() || listed.contains(r) => Ok(r.clone()),
        Some(r) => choose_runtime(args, agent_name, r, listed),
        None => match listed {
            [one] => Ok(one.clone()),
            other if other.iter().filter(|r| runnerconf.contains(r)).count() == 1 => Ok(other
                .iter()
                .find(|r| runnerconf.contains(r))
                .cloned()
                .expect("counted one")),
            other => match crate::app::adopt::runtimes::own_of(client, other, runnerconf, namespace).await? {
                Some(own) => Ok(own),
                None => Err(Outcome::failed(
                    anyhow::anyhow!(
                        "the install does not name its runtime environment, and agent {agent_name} serves {} ({})",
                        other.len(),
                        other.join(", ")
                    ),
                    "adopt moves an agent with exactly one runtime environment of its own namespace; nothing was changed",
                )),
            },
        },
    }
}

/// The install names runtime environment `from_install` and the
/// platform's agent record lists others: asks which one on a terminal,
/// otherwise refuses (exit 2) naming both.
pub(crate) fn choose_runtime(
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
pub(crate) async fn agent_token(
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
pub(crate) fn storage_problems(rendered: &[Manifest], objects: &[Value]) -> Vec<Problem> {
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
pub(crate) fn interim(m: &Manifest) -> Manifest {
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

/// The values of the move: what the install is (or, on a re-run, what was
/// recorded, its secrets back from cf-runner's Secrets), with the
/// credentials the old install keeps as overrides.
pub(crate) async fn load_values(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Option<&Found>,
    mut tree: Value,
    resuming: bool,
) -> Result<(Input, values::Loaded), Outcome> {
    if resuming {
        // The record holds the secrets redacted: back from cf-runner's
        // Secrets, which the first run wrote.
        standing::restore_secrets(cluster, namespace, &mut tree)
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
pub(crate) fn kept_identity(
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

pub(crate) fn render_move(
    loaded: &values::Loaded,
    identity: &Identity,
) -> Result<Rendered, Outcome> {
    Ok(render::render(
        &loaded.values,
        identity,
        &loaded.redacted_tree,
    )?)
}

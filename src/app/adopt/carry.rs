//! Carrying the move out: the platform checks, the kept token and
//! certificates, the storage refusal, and the order in which one runner
//! always serves builds.

use serde_json::{json, Value};

use crate::app::adopt::classify::plan;
use crate::app::adopt::cluster_move::{adopt_apply, Carry};
use crate::app::adopt::found::{Found, Plan, Start};
use crate::app::adopt::gather::{
    agent_token, kept_identity, load_values, on_platform, render_move, storage_problems,
};
use crate::app::adopt::handover::{kept_certs, signed_certs, OnPlatform};
use crate::app::adopt::objects::{AdoptOptions, ObjectRef};
use crate::app::adopt::old_values::values_text;
use crate::app::adopt::report::{print_plan, unclassified_refusal};
use crate::app::adopt::spec_settings;
use crate::app::identity::register;
use crate::app::installation::plan;
use crate::app::session::lock;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::output;
use crate::render::{self, Identity, Manifest, Rendered};
use crate::values::{self, Problems};

/// The diff of a move, against objects that are installed.
fn print_diffs(diffs: &[cluster::diff::ObjectDiff], namespace: &str, context: &str) {
    plan::print_diffs(diffs, namespace, context, true)
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
    layout: Option<crate::app::adopt::runtimes::survey::Layout>,
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
        mut found,
        tree,
        tool,
        resuming,
    } = start;
    let (loaded, conf, several, platform, alone) =
        load_move(args, cluster, namespace, found.as_ref(), tree, resuming).await?;
    // The saved values file says what load_move carried from the spec.
    if let (Some(f), false, false) = (found.as_mut(), alone, resuming) {
        for (key, value) in spec_settings::carried(&platform.spec).0 {
            let steps = values::tree::parse_path(&key).expect("a plain key path");
            values::tree::set_path(&mut f.values, &steps, value);
        }
    }
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
        let layout = crate::app::adopt::runtimes::survey::survey(
            cluster, namespace, &platform, own, &conf, &names,
        )
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
    let several = crate::app::adopt::runtimes::survey::serves_several(&conf);
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
        // Build settings the old spec holds, which cf-runner's replaces.
        if !resuming {
            let (carried, left_out) = spec_settings::carried(&platform.spec);
            spec_settings::warn_left_out(&left_out);
            if !carried.is_empty() {
                input.overrides.extend(carried);
                loaded = values::load(&input)?;
            }
        }
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

//! `cf-runner diff`: what `upgrade` (or, with nothing installed, `init`)
//! with the same flags and values would change in the cluster, changing
//! nothing. The upgrade's own plan (`installation::plan`) decides what would be
//! applied and pruned; `cluster::diff` asks the API server for a dry-run of
//! each object and compares it with the live one. Exit codes follow
//! `kubectl diff`: 0 no changes, 1 changes, above 1 an error.

use serde::Serialize;
use serde_json::Value;

use crate::app::commands::flags;
use crate::app::identity::register::{self, TokenFrom};
use crate::app::installation::plan::{self, print_diffs, Plan};
use crate::app::installation::{identity, pick_installation, record};
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::lock;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cli::{DiffArgs, OutputFormat};
use crate::cluster::diff::{self, Action, ObjectDiff};
use crate::cluster::{preflight, Cluster};
use crate::output::{self, Structured};
use crate::{render, values};

/// What `diff -o json|yaml` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    context: &'a str,
    namespace: &'a str,
    /// True when an apply would change something (exit code 1).
    changes: bool,
    objects: &'a [ObjectDiff],
    /// The runtime spec cf-runner would send against the platform's.
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime_spec: Option<&'a SpecDiff>,
}

/// The runtime environment's spec on the platform against what `upgrade`
/// would send.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SpecDiff {
    runtime: String,
    /// False when it could not be compared (no token, platform error).
    compared: bool,
    /// Dotted paths of the fields that differ.
    differences: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Compares the runtime spec with the platform's, for a registered install
/// and when a token is at hand; never fails the diff, says why instead.
async fn spec_diff(args: &DiffArgs, plan: &Plan) -> Option<SpecDiff> {
    let runtime = plan.runtime_name.clone()?;
    let values = &plan.loaded.values;
    let not_compared = |note: String| SpecDiff {
        runtime: runtime.clone(),
        compared: false,
        differences: Vec::new(),
        note: Some(note),
    };
    let flag = args.token.as_ref().map(values::Secret::new);
    let auth = match register::find_token(TokenFrom {
        flag: flag.as_ref(),
        values: values.token.as_ref(),
        cli_url: args.url.as_deref(),
        named: Some(crate::platform::auth::NamedUrl {
            url: &values.codefresh_host,
            origin: "CodefreshHost of the installation (its record, or --values)",
        }),
    }) {
        Ok(Some(a)) => a,
        Ok(None) => {
            return Some(not_compared(
                "not compared: no Codefresh API token (--token, CF_API_KEY, the installed monitor or ~/.cfconfig)"
                    .into(),
            ))
        }
        Err(e) => return Some(not_compared(format!("not compared: {e}"))),
    };
    let transport = crate::app::installation::plan::platform_transport(plan, false);
    let client = match crate::app::identity::register::platform_for(&auth, transport) {
        Ok(c) => c,
        Err(e) => return Some(not_compared(format!("not compared: {e}"))),
    };
    let who = match client.whoami().await {
        Ok(w) => w,
        Err(e) => return Some(not_compared(format!("not compared: {e}"))),
    };
    let current = match client.runtime(&runtime).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Some(not_compared(format!(
                "runtime environment {runtime} is not on the platform {}",
                client.url()
            )))
        }
        Err(e) => return Some(not_compared(format!("not compared: {e}"))),
    };
    let account_id = who
        .account_id
        .or_else(|| register::account_of_runtime(&current));
    let mut identity = plan.identity.clone();
    identity.account_id = account_id.clone();
    let rendered = render::render(values, &identity, &plan.record_tree).ok()?;
    let ours = register::spec_to_send(&rendered.runtime_environment, account_id.as_deref());
    Some(SpecDiff {
        runtime,
        compared: true,
        differences: register::spec_differences(&ours, &current),
        note: None,
    })
}

/// The upgrade flags `diff` shares.
fn upgrade_flags(args: &DiffArgs) -> flags::UpgradeFlags<'_> {
    flags::UpgradeFlags {
        kube: &args.kube,
        settings: &args.settings,
        values: &args.values,
        set_value: &args.set_value,
        set_file: &args.set_file,
        token: &args.token,
        url: &args.url,
        agent_token: &args.agent_token,
    }
}

/// Runs `diff`; any failure exits 2, as `kubectl diff` exits above 1.
pub fn run(args: &DiffArgs) -> Outcome {
    let ended = flags::for_upgrade(upgrade_flags(args))
        .map_err(Outcome::from)
        .and_then(|input| runtime().block_on(diff(args, input)));
    match ended {
        Ok(true) => Outcome::Differs,
        Ok(false) => Outcome::Ok,
        // Like `kubectl diff`, every error is 2, a refusal to act on a
        // claim (`verified`) included.
        Err(Outcome::Failed(err, hint)) | Err(Outcome::FailedWithCode(err, hint, _)) => {
            Outcome::FailedWithCode(err, hint, 2)
        }
        Err(other) => other,
    }
}

/// Shows what an apply would change; true when it would change something.
async fn diff(args: &DiffArgs, input: values::Input) -> Result<bool, Outcome> {
    let cluster = connect_flags(&flags::kube(&args.kube)).await?;
    let namespace = pick_installation(&cluster, &flags::kube(&args.kube), "diff")
        .await?
        .or_else(|| args.kube.kube_namespace.clone())
        .unwrap_or_else(|| values::DEFAULT_NAMESPACE.to_string());
    lock::note_holder(&cluster, &namespace).await;
    let installed = record::read(&cluster, &namespace)
        .await
        .doing("reading the installation record failed")?
        .is_some();
    let (manifests, prune, spec) = if installed {
        let plan = plan::plan(input, &cluster, &namespace).await?;
        let spec = spec_diff(args, &plan).await;
        (plan.rendered.manifests, plan.prune, spec)
    } else {
        (would_init(input, &cluster, &namespace)?, Vec::new(), None)
    };
    // Read and dry-run rights first: a 403 half-way names one object.
    let rights = preflight::check_diff_permissions(&cluster.client, &manifests, installed).await;
    if preflight::failed(std::slice::from_ref(&rights)) {
        let mut message = rights.reason.clone();
        for d in &rights.details {
            message.push_str(&format!("\n  - {d}"));
        }
        return Err(Outcome::failed(
            anyhow::anyhow!(message),
            rights.fix.clone(),
        ));
    }
    let objects = diff::diff_all(&cluster.client, &manifests, &prune)
        .await
        .doing("the server-side dry-run failed")?;
    let changes = objects
        .iter()
        .any(|o| !matches!(o.action, Action::Same | Action::Skip))
        || spec.as_ref().is_some_and(|s| !s.differences.is_empty());
    let report = Report {
        context: &cluster.context,
        namespace: &namespace,
        changes,
        objects: &objects,
        runtime_spec: spec.as_ref(),
    };
    print_report(args.output, &report, installed);
    Ok(changes)
}

/// What init would create: its values, in this context and namespace.
fn would_init(
    mut input: values::Input,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Vec<render::Manifest>, Outcome> {
    input.overrides.insert(
        0,
        ("Context".into(), Value::String(cluster.context.clone())),
    );
    input
        .overrides
        .push(("Namespace".into(), Value::String(namespace.to_string())));
    let loaded = values::load(&input)?;
    let identity = identity::seed(&loaded.values, Some(cluster.context.clone()));
    Ok(render::render(&loaded.values, &identity, &loaded.redacted_tree)?.manifests)
}

fn print_report(format: OutputFormat, report: &Report<'_>, installed: bool) {
    match format {
        OutputFormat::Json => output::print_structured(report, Structured::Json),
        OutputFormat::Yaml => output::print_structured(report, Structured::Yaml),
        OutputFormat::Table => {
            print_diffs(report.objects, report.namespace, report.context, installed);
            if let Some(s) = report.runtime_spec {
                let line = match (&s.note, s.differences.is_empty()) {
                    (Some(note), _) => format!("runtime environment {}: {note}", s.runtime),
                    (None, true) => format!(
                        "runtime environment {}: the platform's spec is what cf-runner would send",
                        s.runtime
                    ),
                    (None, false) => format!(
                        "runtime environment {}: the platform's spec differs in {}",
                        s.runtime,
                        s.differences.join(", ")
                    ),
                };
                output::say(&line);
            }
        }
    }
}

//! `init`'s work once its flags are read into a [`Plan`]: the wizard when a
//! person is at the terminal, loading and validating the values, then the
//! mode's steps: the manifests to a folder (dry-run), the cf-runtime chart's
//! values, or an install into the cluster (with the runtimes to attach and
//! the build probe after it).

pub(crate) mod facts;
pub(crate) mod openshift;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::app::install;
use crate::app::install::init::facts::cluster_facts;
use crate::app::install::probe;
use crate::app::install::{Registration, TokenPlaces};
use crate::app::installation::identity;
use crate::app::runtimes::attach;
use crate::app::session::outcome::Outcome;
use crate::app::session::{connect, input};
use crate::cluster;
use crate::platform::Transport;
use crate::render::helm;
use crate::values::{self, tree, Input, Problem, Problems};
use crate::{export, output, render, wizard};

/// What `init` does with the render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `--dry-run`: write the manifests to this folder (`-`: stdout).
    DryRun { output_dir: PathBuf },
    /// `--generate-helm-values-file`; `from_platform` unless `--dry-run`
    /// (the platform fills the account id and free names).
    Helm { path: PathBuf, from_platform: bool },
    /// Install into the cluster; `probe` the build path after it (`--probe`).
    Install { probe: Option<Duration> },
}

impl Mode {
    /// True when the run talks to the Codefresh platform.
    pub(crate) fn needs_platform(&self) -> bool {
        match self {
            Mode::DryRun { .. } => false,
            Mode::Helm { from_platform, .. } => *from_platform,
            Mode::Install { .. } => true,
        }
    }

    /// The mode as the wizard shows it.
    pub(crate) fn for_wizard(&self) -> wizard::Mode {
        match self {
            Mode::Helm { path, .. } => wizard::Mode::Helm {
                path: path.display().to_string(),
            },
            Mode::DryRun { output_dir } => wizard::Mode::DryRun {
                output: output_dir.display().to_string(),
            },
            Mode::Install { .. } => wizard::Mode::Install,
        }
    }
}

/// Everything `init` takes from its flags, read once.
#[derive(Debug)]
pub(crate) struct Plan {
    pub mode: Mode,
    /// `--overwrite`: write over files cf-runner did not write.
    pub overwrite: bool,
    /// `--yes`: never ask.
    pub yes: bool,
    /// The flags that set values keys, to name them in problems.
    pub flags: Vec<(&'static str, &'static str)>,
    /// Where the platform token may come from.
    pub token_flag_given: bool,
    /// `--url`, when given.
    pub url: Option<String>,
    /// `--allow-http`.
    pub allow_http: bool,
    /// `--accept-agent-insecure-tls` and `--allow-builds-to-read-tokens`:
    /// the risks of attaching `Runtimes` the user accepted.
    pub accepted: attach::Accepted,
    /// How an install applies and waits.
    pub force_conflicts: bool,
    pub wait: Option<Duration>,
    /// How a lock another run holds is waited for.
    pub lock_wait: install::LockWait,
}

impl Plan {
    /// How the platform is reached with these values.
    pub(crate) fn transport(&self, values: &values::Values) -> Transport {
        Transport::of(values, self.allow_http)
    }

    /// The install's options.
    pub(crate) fn install_options(&self, values: &values::Values) -> install::Options {
        install::Options {
            force_conflicts: self.force_conflicts,
            wait: self.wait,
            transport: self.transport(values),
            lock_wait: self.lock_wait,
        }
    }

    /// Whether the install registers, and with which token: the URL is the
    /// flag's, else `CodefreshHost` when the input set it and it is the
    /// token's own platform.
    pub(crate) fn registration(&self, loaded: &values::Loaded) -> Result<Registration, Outcome> {
        let values_url = tree::lookup(&loaded.redacted_tree, "CodefreshHost")
            .map(|_| loaded.values.codefresh_host.as_str());
        install::registration(
            TokenPlaces {
                flag_given: self.token_flag_given,
                cli_url: self.url.as_deref(),
                values_url,
            },
            &loaded.values,
        )
    }
}

/// Loads and validates the input gathered (and perhaps completed by the
/// wizard), including the checks that depend on the mode (an output
/// folder for a dry-run, say).
///
/// `merged` is the tree [`values::merge_layers`] built from `input` without
/// problems, when the caller has it (a dry-run then parses its files once).
fn load_input(
    plan: &Plan,
    input: &Input,
    merged: Option<Value>,
) -> Result<values::Loaded, Problems> {
    let mut loaded = match merged {
        Some(tree) => values::load_merged(tree),
        None => values::load(input),
    };
    if let Err(Problems(list)) = &mut loaded {
        input::name_the_flags(list, &plan.flags);
    }
    let mut extra = Vec::new();
    match &plan.mode {
        Mode::DryRun { output_dir } if output_dir.as_os_str() != "-" && output_dir.is_file() => {
            extra.push(Problem::new(
                "--output-dir",
                Some(&Value::String(output_dir.display().to_string())),
                "is a file, not a folder",
                "name a folder (it is created if missing), or - for stdout",
            ));
        }
        Mode::Helm { path, .. } => {
            if path.is_dir() {
                extra.push(Problem::new(
                    "--generate-helm-values-file",
                    Some(&Value::String(path.display().to_string())),
                    "is a folder, not a file",
                    "name a file, e.g. generated_values.yaml",
                ));
            } else if let Err(e) = export::check_helm_values_path(path, plan.overwrite) {
                extra.push(export_problem("--generate-helm-values-file", path, &e));
            }
        }
        _ => {}
    }
    if !extra.is_empty() {
        match &mut loaded {
            Ok(_) => loaded = Err(Problems(extra)),
            Err(Problems(list)) => list.extend(extra),
        }
    }
    loaded
}

/// The kube context for names like `<context>/<namespace>`: the one given,
/// else the kubeconfig's current context (the file is read, no cluster is
/// contacted), else none (a placeholder is rendered).
fn context_name(values: &values::Values) -> Option<String> {
    if let Some(c) = &values.context {
        return Some(c.clone());
    }
    let explicit = values.config_path.as_ref().map(PathBuf::from);
    cluster::current_context(explicit.as_ref())
}

/// What an agent-only install cannot do in `mode`: the cf-runtime chart
/// always runs the agent with the runtime of its namespace
/// (`CODEFRESH_IN_CLUSTER_RUNTIME`, no config folder), so its values cannot
/// describe an agent alone.
fn agent_only_problem(mode: &Mode) -> Option<Problem> {
    match mode {
        Mode::Helm { path, .. } => Some(Problem::new(
            "--generate-helm-values-file",
            Some(&Value::String(path.display().to_string())),
            "cannot describe an agent alone (AgentOnly, --agent-only): the cf-runtime chart always installs the agent with a runtime in its namespace",
            "install the agent alone with `cf-runner init --agent-only`, or drop AgentOnly for chart values of an agent with its runtime",
        )),
        _ => None,
    }
}

/// `Runtimes` of the values, attached once the agent is installed.
fn attach_runtimes(
    plan: &Plan,
    loaded: &values::Loaded,
    registration: &Registration,
    installed: Outcome,
) -> Outcome {
    match (registration, installed) {
        (Registration::Platform(auth), Outcome::Ok) if !loaded.runtimes.is_empty() => {
            crate::app::runtimes::attach::after_init(
                &loaded.values,
                &loaded.runtimes,
                auth,
                plan.allow_http,
                plan.accepted,
                plan.wait.unwrap_or(Duration::from_secs(300)),
            )
        }
        (_, outcome) => outcome,
    }
}

/// What an install refuses before any platform call or cluster write: a
/// kubeconfig of a values file's (`ConfigPath`, `Runtimes[].ConfigPath`)
/// that would run a command unasked, and Runtimes to attach to an agent
/// that skips TLS verification without `--accept-agent-insecure-tls`.
fn before_install(plan: &Plan, loaded: &values::Loaded) -> Result<(), Outcome> {
    let values = &loaded.values;
    let own = connect::options_from_values(values);
    connect::vet_kubeconfig(&own, "ConfigPath")?;
    for (i, entry) in loaded.runtimes.iter().enumerate() {
        let options = cluster::ConnectOptions {
            kubeconfig: entry.config_path.as_ref().map(PathBuf::from),
            context: entry.context.clone().or_else(|| values.context.clone()),
        };
        connect::vet_kubeconfig(&options, &format!("Runtimes[{i}].ConfigPath"))?;
    }
    if !loaded.runtimes.is_empty() && !plan.accepted.insecure_tls {
        let identity = identity::seed(values, values.context.clone());
        let rendered = render::render(values, &identity, &loaded.redacted_tree)?;
        let agent = rendered.manifests.iter().find(|m| {
            m.kind == "Deployment" && m.name == crate::render::runtimes::AGENT_DEPLOYMENT
        });
        if let Some(p) = agent.and_then(|d| attach::insecure_agent_problem(d, &values.namespace)) {
            return Err(Outcome::BadInput(Problems(vec![p])));
        }
    }
    // The agent's own runtime builds beside the tokens of the attached ones.
    if !loaded.runtimes.is_empty() && !values.agent_only && !plan.accepted.build_readable_tokens {
        let own = identity::seed(values, values.context.clone()).runtime_name(values);
        let places: Vec<String> = loaded
            .runtimes
            .iter()
            .filter_map(|r| r.namespace.clone())
            .collect();
        let p = attach::builds_beside_agent_problem(&values.namespace, &own, &places);
        return Err(Outcome::BadInput(Problems(vec![p])));
    }
    Ok(())
}

/// Writes the cf-runtime chart's values (to stdout for `-`, secrets withheld).
fn write_helm_values(
    path: &Path,
    values: &values::Values,
    identity: &render::Identity,
    overwrite: bool,
) -> Outcome {
    let generated = helm::generate(values, identity);
    if path.as_os_str() == "-" {
        let (text, withheld) =
            export::helm_values_for_stdout(&generated.text, &secret_texts(values));
        output::print_raw(&text);
        if withheld > 0 {
            output::note(&format!(
                "{withheld} secret value(s) withheld from stdout; name a file instead of - to write them (mode 0600)"
            ));
        }
        return Outcome::Ok;
    }
    if let Err(e) =
        export::write_helm_values(path, &generated.text, generated.holds_secret, overwrite)
    {
        if e.is_refusal() {
            return Outcome::BadInput(Problems(vec![export_problem(
                "--generate-helm-values-file",
                path,
                &e,
            )]));
        }
        return Outcome::Failed(e.into(), None);
    }
    output::done(&format!(
        "wrote {} for the cf-runtime chart {}{}",
        path.display(),
        helm::CHART_VERSION,
        if generated.holds_secret {
            " (mode 0600: it holds a secret)"
        } else {
            ""
        }
    ));
    Outcome::Ok
}

/// A refused path as a problem: the flag, the path, why, and the fix.
fn export_problem(flag: &str, path: &Path, e: &export::ExportError) -> Problem {
    Problem::new(
        flag,
        Some(&Value::String(path.display().to_string())),
        e.to_string(),
        e.fix(),
    )
}

/// The values behind every secret the Helm values may hold, to withhold
/// them from stdout.
fn secret_texts(values: &values::Values) -> Vec<String> {
    [&values.token, &values.agent_token]
        .into_iter()
        .flatten()
        .chain(values.storage.credentials.aws_access_key_id.iter())
        .chain(values.storage.credentials.aws_secret_access_key.iter())
        .chain(values.storage.credentials.google_service_account.iter())
        .map(|s| s.expose().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn write_dry_run(dir: &Path, rendered: &render::Rendered, overwrite: bool) -> Outcome {
    if dir.as_os_str() == "-" {
        let (stream, withheld) = export::to_stream(rendered);
        output::print_raw(&stream);
        if withheld > 0 {
            output::note(&format!(
                "{withheld} secret value(s) withheld from stdout; use --output-dir DIR to write them to 0600 files"
            ));
        }
        return Outcome::Ok;
    }
    match export::write_dir(dir, rendered, overwrite) {
        Ok(files) => {
            let secrets = rendered.manifests.iter().filter(|m| m.is_secret()).count();
            output::done(&format!(
                "wrote {} manifests and {} to {}/ ({} Secret file(s) with mode 0600)",
                rendered.manifests.len(),
                export::RUNTIME_ENVIRONMENT_FILE,
                dir.display(),
                secrets
            ));
            debug_assert_eq!(files.len(), rendered.manifests.len() + 1);
            Outcome::Ok
        }
        Err(e) if e.is_refusal() => {
            Outcome::BadInput(Problems(vec![export_problem("--output-dir", dir, &e)]))
        }
        Err(e) => {
            let fix = e.fix();
            Outcome::Failed(e.into(), Some(fix))
        }
    }
}

// ---- the wizard ---------------------------------------------------------

/// What came of asking.
enum Asked {
    /// Go on with this input (the wizard's answers added, if it ran), and
    /// its merged tree when nothing was asked (it is loaded from that).
    Proceed(Input, Option<Value>),
    /// The user stopped after the summary: nothing is applied (exit 0).
    Stopped,
    /// Attach a runtime to the agent the wizard found, instead of installing.
    Attach(wizard::AttachTo, Input),
}

/// Runs the wizard when a person is at the terminal (stdin and stderr are
/// terminals, no `--yes`); its answers go after the flags, the highest
/// layer. Without one nothing is asked, and an answer an install cannot do
/// without is bad input naming the flag that gives it.
fn ask(plan: &Plan, mut input: Input) -> Result<Asked, Outcome> {
    let mut problems = Vec::new();
    let given = values::merge_layers(&input, &mut problems);
    if !problems.is_empty() {
        // A file that does not parse is reported (with every other
        // problem) before any question.
        let all = load_input(plan, &input, None)
            .err()
            .unwrap_or(Problems(problems));
        return Err(Outcome::BadInput(all));
    }
    // The wizard's questions are about the runtime of the agent's
    // namespace (storage, builds' placement): an agent alone asks none.
    let agent_only = tree::lookup(&given, "AgentOnly").and_then(Value::as_bool) == Some(true);
    let interactive = !plan.yes && !agent_only && wizard::terminal::attended();
    let kubeconfig = tree::lookup(&given, "ConfigPath")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let found = cluster::discover::contexts(kubeconfig.as_ref()).unwrap_or_default();
    let mode = plan.mode.for_wizard();
    let needs_platform = plan.mode.needs_platform();
    let setup = wizard::Setup {
        given,
        contexts: wizard::KubeContexts {
            path: found.path.map(|p| p.display().to_string()),
            names: found.names,
            current: found.current,
        },
        env_proxies: wizard::EnvProxies::from_env(),
        mode,
        ask_token: needs_platform
            && matches!(
                crate::app::identity::register::find_token(Default::default()),
                Ok(None)
            ),
    };
    let mut missing = wizard::required_but_missing(&setup, interactive);
    if !missing.is_empty() {
        // Report every problem at once: the values' own ones too.
        if let Err(Problems(more)) = load_input(plan, &input, None) {
            missing.extend(more);
        }
        return Err(Outcome::BadInput(Problems(missing)));
    }
    if !interactive {
        // Nothing was asked: the tree merged above is the input's.
        return Ok(Asked::Proceed(input, Some(setup.given)));
    }

    let guard = wizard::terminal::InterruptGuard::install();
    let mut prompter = wizard::terminal::TerminalPrompter::new();
    let mut look = |context: &str| cluster_facts(kubeconfig.clone(), context);
    let plan = match wizard::run(&mut prompter, &mut look, &setup) {
        Ok(plan) => plan,
        Err(wizard::PromptError::Interrupted) => {
            // Nothing to unwind: the wizard runs before anything is written.
            return Err(Outcome::Interrupted);
        }
        Err(e) => {
            return Err(Outcome::Failed(
                anyhow::Error::new(e).context("the wizard could not ask"),
                Some("answer with flags or --values and add --yes".into()),
            ))
        }
    };
    drop(guard);

    input.overrides.extend(plan.answers);
    if let Some(path) = &plan.save_to {
        let merged = values::merge_layers(&input, &mut Vec::new());
        let saved = wizard::values_file(&merged);
        // The user agreed to replace a file there; it is written aside and
        // renamed, so a failed write leaves the old one whole.
        if let Err(e) = export::replace_file(path, &saved.text, saved.holds_secret) {
            if e.is_refusal() {
                return Err(Outcome::BadInput(Problems(vec![export_problem(
                    "the wizard's values file",
                    path,
                    &e,
                )])));
            }
            return Err(Outcome::Failed(e.into(), None));
        }
        output::note(&format!(
            "saved to {}{}; replay with: cf-runner init --values {}",
            path.display(),
            if saved.holds_secret {
                " (mode 0600: it holds a secret)"
            } else {
                ""
            },
            path.display()
        ));
    }
    if !plan.proceed {
        output::note("stopped after the summary: nothing was applied");
        return Ok(Asked::Stopped);
    }
    if let Some(to) = plan.attach {
        return Ok(Asked::Attach(to, input));
    }
    Ok(Asked::Proceed(input, None))
}

/// Runs `init` on the input its flags gave: (wizard) → load → the mode's
/// steps. `Err` is an outcome that stopped it before its mode's steps.
pub(crate) fn init(input: Input, plan: Plan) -> Result<Outcome, Outcome> {
    let (mut input, merged) = match ask(&plan, input)? {
        Asked::Proceed(input, merged) => (input, merged),
        Asked::Stopped => return Ok(Outcome::Ok),
        Asked::Attach(to, input) => {
            let given = values::merge_layers(&input, &mut Vec::new());
            let text = |key: &str| {
                tree::lookup(&given, key)
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            return Ok(crate::app::runtimes::attach::from_wizard(
                &to,
                text("ConfigPath").map(PathBuf::from),
                text("Context"),
                crate::app::session::options::PlatformOptions {
                    token: text("Token"),
                    url: plan.url.clone(),
                    insecure: tree::lookup(&given, "Insecure")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    allow_http: plan.allow_http,
                },
                plan.accepted,
                plan.wait.unwrap_or(Duration::from_secs(300)),
            ));
        }
    };
    let loaded = load_input(&plan, &input, merged)?;
    // An install records the context it went into, the kubeconfig's current
    // one when none was given: `diff` and `upgrade` read the record in the
    // context they connect to, and a record without it would show changed.
    let loaded = match (&plan.mode, &loaded.values.context) {
        (Mode::Install { .. }, None) => match context_name(&loaded.values) {
            Some(current) => {
                input
                    .overrides
                    .insert(0, ("Context".into(), Value::String(current)));
                load_input(&plan, &input, None)?
            }
            None => loaded,
        },
        _ => loaded,
    };
    // `OpenShift: auto` is the cluster's to decide (an install's once its input is good).
    let reload = |i: &Input| load_input(&plan, i, None);
    let dry_run = matches!(plan.mode, Mode::DryRun { .. });
    let loaded = openshift::recorded(dry_run, loaded, &mut input, reload)?;
    input::warn_loaded(&loaded);
    let values = &loaded.values;
    if values.agent_only {
        if let Some(problem) = agent_only_problem(&plan.mode) {
            return Err(Outcome::BadInput(Problems(vec![problem])));
        }
    }
    let identity = identity::seed(values, context_name(values));
    Ok(match &plan.mode {
        Mode::Helm {
            path,
            from_platform,
        } => {
            let identity = if *from_platform {
                let registration = plan.registration(&loaded)?;
                install::helm_identity(&registration, plan.transport(values), values, identity)?
            } else {
                identity
            };
            write_helm_values(path, values, &identity, plan.overwrite)
        }
        Mode::Install { probe } => {
            before_install(&plan, &loaded)?;
            let registration = plan.registration(&loaded)?;
            if matches!(registration, Registration::Offline) && values.agent_only {
                return Err(Outcome::BadInput(Problems(vec![Problem::new(
                    "AgentOnly",
                    None,
                    "(--agent-only) needs the Codefresh platform: an agent alone serves the runtimes attached to it there, and an --agent-token install does not contact it",
                    "pass --token (or set CF_API_KEY), or drop --agent-only to install the agent with its runtime",
                )])));
            }
            if matches!(registration, Registration::Offline) && !loaded.runtimes.is_empty() {
                return Err(Outcome::BadInput(Problems(vec![Problem::new(
                    "Runtimes",
                    None,
                    "needs the Codefresh platform: the agent's runtimes are set there, and an --agent-token install does not contact it",
                    "pass --token (or set CF_API_KEY), or remove Runtimes and attach them later with `cf-runner runtime attach -f`",
                )])));
            }
            let loaded = openshift::recorded(true, loaded.clone(), &mut input, reload)?;
            let outcome = install::run(&plan.install_options(values), &registration, &loaded);
            let outcome = attach_runtimes(&plan, &loaded, &registration, outcome);
            match (probe, &outcome) {
                (Some(timeout), Outcome::Ok) => probe::after_install(values, *timeout),
                _ => outcome,
            }
        }
        Mode::DryRun { output_dir } => {
            if !loaded.runtimes.is_empty() {
                output::note("Runtimes: not rendered; an install attaches them after the agent (`cf-runner runtime attach -f` does it later)");
            }
            let rendered = render::render(values, &identity, &loaded.redacted_tree)?;
            let outcome = write_dry_run(output_dir, &rendered, plan.overwrite);
            // The process ends right after a dry-run, and its memory goes
            // back whole: freeing the objects one by one (some 15,000
            // allocations) would be a few percent of its CPU time for nothing.
            std::mem::forget(rendered);
            outcome
        }
    })
}

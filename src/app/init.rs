//! `cf-runner init`: gather the input (files, `--set-*`, flags), validate it
//! all before anything is written, render, then export (dry-run), write Helm
//! values, or install.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Outcome;
use crate::cli::{InitArgs, SettingsArgs};
use crate::kube::{self as cluster, apply};
use crate::values::{self, tree, Input, Problem, Problems, SetFile, ValuesFile};
use crate::{export, helm, output, render, wizard};

/// The overrides of the flags `init` and `upgrade` share (where builds run,
/// proxies, registry, optional components).
pub(crate) fn settings_overrides(
    settings: &SettingsArgs,
    out: &mut Vec<(String, Value)>,
    problems: &mut Vec<Problem>,
) {
    for (key, value) in [
        ("NodeSelector", &settings.kube_node_selector),
        ("Runtime.NodeSelector", &settings.build_node_selector),
        ("DockerRegistry", &settings.docker_registry),
        ("EnvVars.HTTP_PROXY", &settings.http_proxy),
        ("EnvVars.HTTPS_PROXY", &settings.https_proxy),
        ("EnvVars.NO_PROXY", &settings.no_proxy),
        ("AppProxy.Ingress.Host", &settings.app_proxy_host),
        (
            "AppProxy.Ingress.IngressClass",
            &settings.app_proxy_ingress_class,
        ),
    ] {
        if let Some(v) = value {
            out.push((key.to_string(), Value::String(v.clone())));
        }
    }
    for (key, value) in [
        ("Monitor.Enabled", settings.install_monitor),
        ("AppProxy.Enabled", settings.app_proxy),
        ("DockerDaemonAccess", settings.docker_daemon_access),
    ] {
        if let Some(b) = value {
            out.push((key.to_string(), Value::Bool(b)));
        }
    }
    for pair in &settings.env_vars {
        match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => out.push((
                format!("EnvVars.{}", k.trim().replace('.', "\\.")),
                Value::String(v.to_string()),
            )),
            _ => problems.push(Problem::new(
                "--env-vars",
                Some(&Value::String(pair.clone())),
                "is not KEY=VALUE",
                "write --env-vars NAME=value, once per variable",
            )),
        }
    }
}

/// Turns the flags into values overrides (explicit flags beat files and
/// `--set-value`). Flag-specific parsing errors become problems too.
pub fn flag_overrides(args: &InitArgs, problems: &mut Vec<Problem>) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for (key, value) in [
        ("Context", &args.kube.kube_context_name),
        ("Namespace", &args.kube.kube_namespace),
        ("AgentId", &args.name),
        ("Token", &args.token),
        ("AgentToken", &args.agent_token),
        ("CodefreshHost", &args.url),
        ("StorageClass", &args.storage_class_name),
    ] {
        if let Some(v) = value {
            out.push((key.to_string(), Value::String(v.clone())));
        }
    }
    if let Some(path) = &args.kube.kube_config_path {
        out.push((
            "ConfigPath".into(),
            Value::String(path.display().to_string()),
        ));
    }
    settings_overrides(&args.settings, &mut out, problems);
    for (key, value) in [
        ("SetDefaultRuntime", args.set_default_runtime),
        ("ExecDemoPipeline", args.exec_demo_pipeline),
        ("Insecure", args.insecure.then_some(true)),
        ("SkipClusterTest", args.skip_cluster_test.then_some(true)),
        (
            "SkipClusterIntegration",
            args.skip_cluster_integration.then_some(true),
        ),
    ] {
        if let Some(b) = value {
            out.push((key.to_string(), Value::Bool(b)));
        }
    }
    if let Some(raw) = &args.tolerations {
        match parse_tolerations_flag(raw) {
            Ok(v) => out.push(("Tolerations".into(), v)),
            Err(p) => problems.push(p),
        }
    }
    out
}

/// `--tolerations` takes a JSON (or YAML) list, or `@file` holding one.
fn parse_tolerations_flag(raw: &str) -> Result<Value, Problem> {
    let (text, origin) = match raw.strip_prefix('@') {
        Some(path) => match crate::input_file::read_text(Path::new(path), tree::MAX_INPUT_BYTES) {
            Ok(t) => (t, format!("the file {path}")),
            Err(e) => {
                return Err(Problem::new(
                    "--tolerations",
                    Some(&Value::String(raw.to_string())),
                    format!("names a file that {e}"),
                    "check the path after @",
                ))
            }
        },
        None => (raw.to_string(), "the flag's value".to_string()),
    };
    match tree::parse_yaml(&text, "--tolerations") {
        Ok(v @ Value::Array(_)) => Ok(v),
        Ok(_) | Err(_) => Err(Problem::new(
            "--tolerations",
            None,
            format!("{origin} is not a JSON list of tolerations"),
            r#"write e.g. '[{"key":"dedicated","operator":"Equal","value":"ci","effect":"NoSchedule"}]' or @tolerations.json"#,
        )),
    }
}

/// Reads the values files and the `--set-file` files the flags name (the
/// file-reading half of every command that takes values: init, upgrade, check).
pub(crate) fn read_input(
    values_files: &[std::path::PathBuf],
    set_values: &[String],
    set_files: &[String],
) -> (Input, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut input = Input::default();
    for path in values_files {
        match crate::input_file::read_text(path, tree::MAX_INPUT_BYTES) {
            Ok(text) => input.files.push(ValuesFile {
                origin: path.display().to_string(),
                text,
            }),
            Err(e) => problems.push(Problem::new(
                "--values",
                Some(&Value::String(path.display().to_string())),
                e.to_string(),
                "check the path; it is read relative to the current directory",
            )),
        }
    }
    input.set_values = set_values.to_vec();
    for raw in set_files {
        let contents = match raw.split_once('=') {
            Some((_, path)) => {
                crate::input_file::read_text(Path::new(path.trim()), tree::MAX_INPUT_BYTES)
                    .map_err(|e| e.to_string())
            }
            None => Err("no `=`".into()),
        };
        input.set_files.push(SetFile {
            raw: raw.clone(),
            contents,
        });
    }
    (input, problems)
}

/// Reads the values files and `--set-file` files named by the flags.
pub fn gather_input(args: &InitArgs) -> Result<Input, Problems> {
    let (mut input, mut problems) = read_input(&args.values, &args.set_value, &args.set_file);
    input.overrides = flag_overrides(args, &mut problems);
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    Ok(input)
}

/// Loads and validates everything, including the checks that depend on the
/// mode (an output folder for a dry-run, say).
pub fn load(args: &InitArgs) -> Result<values::Loaded, Problems> {
    let input = gather_input(args)?;
    load_input(args, &input)
}

/// The flags set on the command line and the keys they set, so a problem
/// names what the user typed before the key (`--build-node-selector
/// → Runtime.NodeSelector`).
pub(crate) fn flags_set(args: &InitArgs) -> Vec<(&'static str, &'static str)> {
    let s = &args.settings;
    let k = &args.kube;
    [
        (
            "--kube-node-selector",
            "NodeSelector",
            s.kube_node_selector.is_some(),
        ),
        (
            "--build-node-selector",
            "Runtime.NodeSelector",
            s.build_node_selector.is_some(),
        ),
        (
            "--docker-registry",
            "DockerRegistry",
            s.docker_registry.is_some(),
        ),
        ("--http-proxy", "EnvVars.HTTP_PROXY", s.http_proxy.is_some()),
        (
            "--https-proxy",
            "EnvVars.HTTPS_PROXY",
            s.https_proxy.is_some(),
        ),
        ("--no-proxy", "EnvVars.NO_PROXY", s.no_proxy.is_some()),
        (
            "--app-proxy-host",
            "AppProxy.Ingress.Host",
            s.app_proxy_host.is_some(),
        ),
        (
            "--app-proxy-ingress-class",
            "AppProxy.Ingress.IngressClass",
            s.app_proxy_ingress_class.is_some(),
        ),
        (
            "--kube-context-name",
            "Context",
            k.kube_context_name.is_some(),
        ),
        ("--kube-namespace", "Namespace", k.kube_namespace.is_some()),
        ("--name", "AgentId", args.name.is_some()),
        ("--url", "CodefreshHost", args.url.is_some()),
        (
            "--storage-class-name",
            "StorageClass",
            args.storage_class_name.is_some(),
        ),
        ("--tolerations", "Tolerations", args.tolerations.is_some()),
    ]
    .into_iter()
    .filter(|(_, _, set)| *set)
    .map(|(flag, key, _)| (flag, key))
    .collect()
}

/// Prefixes each problem about a key a flag set with that flag.
pub(crate) fn name_the_flags(problems: &mut [Problem], flags: &[(&str, &str)]) {
    for p in problems.iter_mut() {
        if let Some((flag, _)) = flags.iter().find(|(_, key)| {
            p.key == *key
                || p.key.starts_with(&format!("{key}."))
                || p.key.starts_with(&format!("{key}["))
        }) {
            p.key = format!("{flag} → {}", p.key);
        }
    }
}

/// [`load`] for input gathered already (and perhaps completed by the wizard).
fn load_input(args: &InitArgs, input: &Input) -> Result<values::Loaded, Problems> {
    let mut loaded = values::load(input);
    if let Err(Problems(list)) = &mut loaded {
        name_the_flags(list, &flags_set(args));
    }
    let mut extra = Vec::new();
    if args.dry_run && args.output_dir.as_os_str() != "-" && args.output_dir.is_file() {
        extra.push(Problem::new(
            "--output-dir",
            Some(&Value::String(args.output_dir.display().to_string())),
            "is a file, not a folder",
            "name a folder (it is created if missing), or - for stdout",
        ));
    }
    if let Some(path) = &args.generate_helm_values_file {
        if path.is_dir() {
            extra.push(Problem::new(
                "--generate-helm-values-file",
                Some(&Value::String(path.display().to_string())),
                "is a folder, not a file",
                "name a file, e.g. generated_values.yaml",
            ));
        } else if let Err(e) = export::check_helm_values_path(path, args.overwrite) {
            extra.push(export_problem("--generate-helm-values-file", path, &e));
        }
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
    let (config, _) = cluster::read_kubeconfig(explicit.as_ref()).ok()??;
    config.current_context
}

/// True for the field managers of other runner installers.
fn is_installer(manager: &str) -> bool {
    let m = manager.to_ascii_lowercase();
    m == "helm" || m.starts_with("helm-") || m.contains("venona") || m.contains("codefresh")
}

/// Runs `init`.
pub fn run(args: &InitArgs) -> Outcome {
    let input = match gather_input(args).map_err(Outcome::BadInput) {
        Ok(input) => ask(args, input),
        Err(outcome) => Err(outcome),
    };
    let input = match input {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let loaded = match load_input(args, &input) {
        Ok(l) => l,
        Err(problems) => return Outcome::BadInput(problems),
    };
    for line in &loaded.warnings {
        output::warn(line);
    }
    for key in &loaded.ignored_keys {
        output::warn(&format!(
            "{key} is a venonactl key that cf-runner accepts but does not use"
        ));
    }
    let values = &loaded.values;
    let identity = render::Identity {
        context: context_name(values),
        agent_name: values.agent_name.clone(),
        runtime_name: values.runtime_name.clone(),
        ..Default::default()
    };

    if let Some(path) = &args.generate_helm_values_file {
        // Without --dry-run the platform fills the account id and free names.
        let identity = if args.dry_run {
            identity
        } else {
            match super::install::helm_identity(args, &loaded, identity) {
                Ok(i) => i,
                Err(outcome) => return outcome,
            }
        };
        let generated = helm::generate(values, &identity);
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
        if let Err(e) = export::write_helm_values(
            path,
            &generated.text,
            generated.holds_secret,
            args.overwrite,
        ) {
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
        return Outcome::Ok;
    }

    if !args.dry_run {
        let outcome = super::install::run(args, &loaded);
        if args.probe && matches!(outcome, Outcome::Ok) {
            return super::probe::after_install(&loaded.values, args.probe_timeout);
        }
        return outcome;
    }

    let rendered = match render::render(values, &identity, &loaded.redacted_tree) {
        Ok(r) => r,
        Err(e) => {
            return Outcome::Failed(
                anyhow::Error::new(e)
                    .context("rendering the manifests failed (a bug in cf-runner)"),
                Some("please report it with the values file (secrets removed)".into()),
            )
        }
    };
    write_dry_run(&args.output_dir, &rendered, args.overwrite)
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

/// The tokio runtime for commands that talk to a cluster.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    // aws-lc-rs is the one crypto back-end (rcgen needs it for the RSA key);
    // installed by hand because test builds also link ring. An error only
    // means one is already installed.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts")
}

/// Connects as the values say; a context that does not exist is bad input.
pub(crate) async fn connect(values: &values::Values) -> Result<cluster::Cluster, Outcome> {
    let options = cluster::ConnectOptions {
        kubeconfig: values.config_path.as_ref().map(std::path::PathBuf::from),
        context: values.context.clone(),
    };
    cluster::connect(&options).await.map_err(|e| match &e {
        cluster::KubeError::UnknownContext {
            wanted, available, ..
        } => Outcome::BadInput(Problems(vec![Problem::new(
            "Context",
            Some(&Value::String(wanted.clone())),
            "is not a context of the kubeconfig",
            format!("use one of: {} (--kube-context-name)", available.join(", ")),
        )])),
        _ => {
            let hint = e.hint();
            Outcome::Failed(e.into(), hint)
        }
    })
}

/// Reports a failed apply: what failed, what was and was not applied, and what to do.
pub(crate) fn apply_failed(report: &apply::Report, command: &str) -> Outcome {
    let is_transport = |f: &apply::Failure| {
        matches!(
            f.cause,
            apply::FailureCause::Other(
                cluster::KubeError::Transport { .. } | cluster::KubeError::Timeout { .. }
            )
        )
    };
    // Lost connections are one cause, not one per object: say it once.
    let unreachable: Vec<&apply::Failure> =
        report.failed.iter().filter(|f| is_transport(f)).collect();
    let mut lines: Vec<String> = report
        .failed
        .iter()
        .filter(|f| !is_transport(f))
        .map(|f| format!("failed: {f}"))
        .collect();
    // A request cut off by a lost connection may have been stored before
    // the answer was lost: "not confirmed", not "not applied".
    let mut unconfirmed: Vec<String> = Vec::new();
    for f in &unreachable {
        if !unconfirmed.contains(&f.object) {
            unconfirmed.push(f.object.clone());
        }
    }
    let not_applied: Vec<String> = report
        .not_attempted
        .iter()
        .filter(|o| !unconfirmed.contains(o))
        .cloned()
        .collect();
    let headline = match unreachable.first() {
        Some(first) => {
            let cause = match &first.cause {
                apply::FailureCause::Other(e) => root_cause(e),
                _ => String::new(),
            };
            lines.insert(0, format!("the API server could not be reached: {cause}"));
            format!("the {command} stopped: the API server went away")
        }
        None => format!(
            "the {command} stopped: {} object(s) failed",
            report.failed.len()
        ),
    };
    let done: Vec<String> = report
        .applied
        .iter()
        .map(|a| format!("{} ({})", a.object, a.change.word()))
        .collect();
    let unconfirmed_line = if unconfirmed.is_empty() {
        String::new()
    } else {
        format!(
            "\n  not confirmed (sent as the server went away; it may have stored them): {}",
            unconfirmed.join(", ")
        )
    };
    let message = format!(
        "{headline}\n  {}\n  applied: {}{unconfirmed_line}\n  not applied: {}",
        lines.join("\n  "),
        if done.is_empty() {
            "none".to_string()
        } else {
            done.join(", ")
        },
        if not_applied.is_empty() {
            "none".to_string()
        } else {
            not_applied.join(", ")
        },
    );
    let conflict = report
        .failed
        .iter()
        .any(|f| matches!(f.cause, apply::FailureCause::Conflict(_)));
    let forbidden = report
        .failed
        .iter()
        .any(|f| matches!(f.cause, apply::FailureCause::Forbidden { .. }));
    // Helm's or an old installer's objects are another installation, never
    // cf-runner's to take over.
    let installer_owned = report.failed.iter().any(|f| match &f.cause {
        apply::FailureCause::Conflict(fields) => {
            fields.iter().any(|(_, owner)| is_installer(owner))
        }
        _ => false,
    });
    let hint = if installer_owned {
        "another installer (Helm or venonactl) owns those objects: remove that installation first \
         (`helm uninstall`, `codefresh runner delete`), or install into another --kube-namespace"
    } else if conflict {
        "another tool manages those fields: remove them there, or re-run with --force-conflicts to take them over"
    } else if forbidden {
        "ask a cluster admin for the missing permission (`cf-runner check` lists them all), then re-run"
    } else if !unreachable.is_empty() {
        "check that the API server is reachable (VPN, HTTPS_PROXY/NO_PROXY), then re-run: objects already applied are left as they are and the rest are applied"
    } else {
        "fix the cause and re-run: objects already applied are left as they are and the rest are applied"
    };
    Outcome::Failed(anyhow::anyhow!(message), Some(hint.into()))
}

/// The innermost cause of an error, which says what actually happened
/// ("Connection refused (os error 111)").
fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

// ---- the wizard ---------------------------------------------------------

/// Runs the wizard when a person is at the terminal (stdin and stderr are
/// terminals, no `--yes`); its answers go after the flags, the highest
/// layer. Without one nothing is asked, and an answer an install cannot do
/// without is bad input naming the flag that gives it. `Err(Outcome::Ok)`
/// means the user stopped after the summary.
fn ask(args: &InitArgs, mut input: Input) -> Result<Input, Outcome> {
    let mut problems = Vec::new();
    let given = values::merge_layers(&input, &mut problems);
    if !problems.is_empty() {
        // A file that does not parse is reported (with every other
        // problem) before any question.
        let all = load_input(args, &input).err().unwrap_or(Problems(problems));
        return Err(Outcome::BadInput(all));
    }
    let interactive = !args.yes && wizard::terminal::attended();
    let kubeconfig = tree::lookup(&given, "ConfigPath")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let found = cluster::discover::contexts(kubeconfig.as_ref()).unwrap_or_default();
    let mode = match (&args.generate_helm_values_file, args.dry_run) {
        (Some(path), _) => wizard::Mode::Helm {
            path: path.display().to_string(),
        },
        (None, true) => wizard::Mode::DryRun {
            output: args.output_dir.display().to_string(),
        },
        (None, false) => wizard::Mode::Install,
    };
    let needs_platform = !args.dry_run;
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
                crate::platform::auth::resolve(None, None, None),
                Err(crate::platform::PlatformError::NoToken { .. })
            ),
    };
    let mut missing = wizard::required_but_missing(&setup, interactive);
    if !missing.is_empty() {
        // Report every problem at once: the values' own ones too.
        if let Err(Problems(more)) = load_input(args, &input) {
            missing.extend(more);
        }
        return Err(Outcome::BadInput(Problems(missing)));
    }
    if !interactive {
        return Ok(input);
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
        if let Err(e) = export::write_file(path, &saved.text, saved.holds_secret) {
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
        return Err(Outcome::Ok);
    }
    Ok(input)
}

/// The wizard's read-only look at the cluster of `context`.
fn cluster_facts(kubeconfig: Option<PathBuf>, context: &str) -> wizard::Facts {
    let options = cluster::ConnectOptions {
        kubeconfig,
        context: Some(context.to_string()),
    };
    let budget = std::time::Duration::from_secs(5);
    match runtime().block_on(cluster::discover::facts(&options, budget)) {
        Ok(found) => wizard::Facts {
            unreachable: None,
            namespaces: found.namespaces.map(|list| {
                list.into_iter()
                    .map(|n| wizard::NamespaceFact {
                        name: n.name,
                        ours: n.managed_by_us,
                    })
                    .collect()
            }),
            storage_classes: found
                .storage_classes
                .unwrap_or_default()
                .into_iter()
                .map(|c| wizard::StorageClassFact {
                    name: c.name,
                    provisioner: c.provisioner,
                    is_default: c.is_default,
                })
                .collect(),
            zones: found.zones.unwrap_or_default(),
            ingress_classes: found.ingress_classes.map(|list| {
                list.into_iter()
                    .map(|c| wizard::IngressClassFact {
                        name: c.name,
                        is_default: c.is_default,
                    })
                    .collect()
            }),
        },
        Err(why) => wizard::Facts {
            unreachable: Some(why),
            ..Default::default()
        },
    }
}

//! Turning what the user typed into values input: the files the flags
//! name, and the flags themselves as overrides. One table,
//! `FLAG_KEYS`, says which values key each flag sets; every command that
//! takes flags for values (`init`, `upgrade`, `diff`, `check`, `images`)
//! builds its overrides from it, and problems name the flag by it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::{KubeArgs, SettingsArgs};
use crate::output;
use crate::values::{self, tree, Input, Problem, Problems, SetFile, ValuesFile};

/// A flag and the values key it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FlagKey {
    /// The flag as typed, e.g. `--build-node-selector`.
    pub flag: &'static str,
    /// The values key, e.g. `Runtime.NodeSelector`.
    pub key: &'static str,
    /// True when a problem with the key is reported under the flag too
    /// (`--build-node-selector → Runtime.NodeSelector`).
    pub named_in_problems: bool,
}

const fn fk(flag: &'static str, key: &'static str, named_in_problems: bool) -> FlagKey {
    FlagKey {
        flag,
        key,
        named_in_problems,
    }
}

/// Every flag that sets a values key, and the key it sets.
pub(crate) const FLAG_KEYS: &[FlagKey] = &[
    fk("--kube-context-name", "Context", true),
    fk("--kube-namespace", "Namespace", true),
    fk("--kube-config-path", "ConfigPath", false),
    fk("--name", "AgentId", true),
    fk("--token", "Token", false),
    fk("--agent-token", "AgentToken", false),
    fk("--url", "CodefreshHost", true),
    fk("--storage-class-name", "StorageClass", true),
    fk("--kube-node-selector", "NodeSelector", true),
    fk("--build-node-selector", "Runtime.NodeSelector", true),
    fk("--docker-registry", "DockerRegistry", true),
    fk("--http-proxy", "EnvVars.HTTP_PROXY", true),
    fk("--https-proxy", "EnvVars.HTTPS_PROXY", true),
    fk("--no-proxy", "EnvVars.NO_PROXY", true),
    fk("--app-proxy-host", "AppProxy.Ingress.Host", true),
    fk(
        "--app-proxy-ingress-class",
        "AppProxy.Ingress.IngressClass",
        true,
    ),
    fk("--install-monitor", "Monitor.Enabled", false),
    fk("--app-proxy", "AppProxy.Enabled", false),
    fk("--docker-daemon-access", "DockerDaemonAccess", false),
    fk("--set-default-runtime", "SetDefaultRuntime", false),
    fk("--exec-demo-pipeline", "ExecDemoPipeline", false),
    fk("--insecure", "Insecure", false),
    fk("--skip-cluster-test", "SkipClusterTest", false),
    fk("--agent-only", "AgentOnly", false),
    fk(
        "--skip-cluster-integration",
        "SkipClusterIntegration",
        false,
    ),
    fk("--tolerations", "Tolerations", true),
];

/// The row of `flag` in [`FLAG_KEYS`].
fn row(flag: &str) -> FlagKey {
    *FLAG_KEYS
        .iter()
        .find(|f| f.flag == flag)
        .unwrap_or_else(|| panic!("{flag} is in FLAG_KEYS"))
}

/// Overrides built from flags, with the flags that were set.
#[derive(Debug, Default)]
pub(crate) struct Overrides {
    /// `(key, value)`, in the order the flags are listed.
    pub list: Vec<(String, Value)>,
    /// The flags given, in the same order.
    pub set: Vec<FlagKey>,
}

impl Overrides {
    fn push(&mut self, flag: &str, value: Value) {
        let row = row(flag);
        self.list.push((row.key.to_string(), value));
        self.set.push(row);
    }

    /// `flag` set to a text, when given.
    pub(crate) fn text(&mut self, flag: &str, value: &Option<String>) {
        if let Some(v) = value {
            self.push(flag, Value::String(v.clone()));
        }
    }

    /// `flag` set to a path, when given.
    pub(crate) fn path(&mut self, flag: &str, value: &Option<PathBuf>) {
        if let Some(p) = value {
            self.push(flag, Value::String(p.display().to_string()));
        }
    }

    /// `flag` set to a boolean, when given.
    pub(crate) fn boolean(&mut self, flag: &str, value: Option<bool>) {
        if let Some(b) = value {
            self.push(flag, Value::Bool(b));
        }
    }

    /// `flag` set to an already parsed value.
    pub(crate) fn value(&mut self, flag: &str, value: Value) {
        self.push(flag, value);
    }

    /// The flags set whose keys problems are reported under, as
    /// `(flag, key)` for [`name_the_flags`].
    pub(crate) fn named(&self) -> Vec<(&'static str, &'static str)> {
        self.set
            .iter()
            .filter(|f| f.named_in_problems)
            .map(|f| (f.flag, f.key))
            .collect()
    }
}

/// The kube flags as overrides: context, namespace, kubeconfig.
pub(crate) fn kube_overrides(kube: &KubeArgs, out: &mut Overrides) {
    out.text("--kube-context-name", &kube.kube_context_name);
    out.text("--kube-namespace", &kube.kube_namespace);
    out.path("--kube-config-path", &kube.kube_config_path);
}

/// The overrides of the flags `init` and `upgrade` share (where builds run,
/// proxies, registry, optional components).
pub(crate) fn settings_overrides(
    settings: &SettingsArgs,
    out: &mut Overrides,
    problems: &mut Vec<Problem>,
) {
    out.text("--kube-node-selector", &settings.kube_node_selector);
    out.text("--build-node-selector", &settings.build_node_selector);
    out.text("--docker-registry", &settings.docker_registry);
    out.text("--http-proxy", &settings.http_proxy);
    out.text("--https-proxy", &settings.https_proxy);
    out.text("--no-proxy", &settings.no_proxy);
    out.text("--app-proxy-host", &settings.app_proxy_host);
    out.text(
        "--app-proxy-ingress-class",
        &settings.app_proxy_ingress_class,
    );
    out.boolean("--install-monitor", settings.install_monitor);
    out.boolean("--app-proxy", settings.app_proxy);
    out.boolean("--docker-daemon-access", settings.docker_daemon_access);
    for pair in &settings.env_vars {
        match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => out.list.push((
                format!("EnvVars.{}", k.trim().replace('.', "\\.")),
                Value::String(v.to_string()),
            )),
            _ => problems.push(Problem::new(
                "--env-vars",
                // `DB_PASSWORD:secret` carries a credential after its name.
                (!crate::text::is_credential_name(pair))
                    .then(|| Value::String(pair.clone()))
                    .as_ref(),
                "is not KEY=VALUE",
                "write --env-vars NAME=value, once per variable",
            )),
        }
    }
}

/// `--tolerations` takes a JSON (or YAML) list, or `@file` holding one.
pub(crate) fn parse_tolerations_flag(raw: &str) -> Result<Value, Problem> {
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

/// The flags `upgrade` and `diff` share that change the stored values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpgradeFlags<'a> {
    /// Which installation (and where the kubeconfig is).
    pub kube: &'a KubeArgs,
    /// The settings flags (`--storage-class`, …).
    pub settings: &'a SettingsArgs,
    /// `--values` files, later ones winning.
    pub values: &'a [PathBuf],
    /// `--set-value KEY=VALUE`.
    pub set_value: &'a [String],
    /// `--set-file KEY=PATH`.
    pub set_file: &'a [String],
    /// `--token`.
    pub token: &'a Option<String>,
    /// `--url`.
    pub url: &'a Option<String>,
    /// `--agent-token`.
    pub agent_token: &'a Option<String>,
}

/// The input of `upgrade` (and `diff`, which shows it): the files the flags
/// name and the flags as the highest-precedence overrides; the stored
/// values join later, below them.
pub(crate) fn for_upgrade(flags: UpgradeFlags<'_>) -> Result<Input, Problems> {
    let (mut input, mut problems) = read_input(flags.values, flags.set_value, flags.set_file);
    let mut out = Overrides::default();
    out.text("--kube-namespace", &flags.kube.kube_namespace);
    out.text("--token", flags.token);
    out.text("--url", flags.url);
    out.text("--agent-token", flags.agent_token);
    out.path("--kube-config-path", &flags.kube.kube_config_path);
    settings_overrides(flags.settings, &mut out, &mut problems);
    input.overrides = out.list;
    if problems.is_empty() {
        Ok(input)
    } else {
        Err(Problems(problems))
    }
}

/// Says what the values loaded with: advice, and venonactl keys accepted
/// but not used.
pub(crate) fn warn_loaded(loaded: &values::Loaded) {
    for line in &loaded.warnings {
        output::warn(line);
    }
    for key in &loaded.ignored_keys {
        output::warn(&format!(
            "{key} is a venonactl key that cf-runner accepts but does not use"
        ));
    }
}

/// Warns of each ClusterRole the render holds that reads Secrets in every
/// namespace, naming the setting that asked for it and the fix.
pub(crate) fn warn_cluster_wide_secret_readers(
    rendered: &crate::render::Rendered,
    namespace: &str,
) {
    for m in crate::render::cluster_wide_secret_readers(rendered) {
        let why = match m.component {
            crate::render::Component::Monitor => format!(
                "Monitor.Helm3 is true (Helm keeps its releases in Secrets) and \
                 Monitor.UseNamespaceWithRole is false; set Monitor.UseNamespaceWithRole: true \
                 to keep it to namespace {namespace}"
            ),
            other => format!("the {} asks for it", other.as_str()),
        };
        output::warn(&format!(
            "{} lets its account read every Secret in the cluster: {why}",
            m.display_name()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every flag of the table is a flag of `init` (a renamed flag would
    /// otherwise set nothing).
    #[test]
    fn every_flag_in_the_key_table_is_a_flag_of_init() {
        let cli = crate::cli::Cli::command();
        let init = cli.find_subcommand("init").expect("init exists");
        let longs: Vec<String> = init
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        for row in FLAG_KEYS {
            assert!(longs.contains(&row.flag.to_string()), "{}", row.flag);
        }
    }

    /// `check`, `upgrade` and `init` once mapped the kube flags each in
    /// their own list; the table gives them all one mapping.
    #[test]
    fn init_check_and_upgrade_map_a_flag_to_the_same_key() {
        let kube = KubeArgs {
            kube_context_name: Some("ctx".into()),
            kube_namespace: Some("ns".into()),
            kube_config_path: Some(PathBuf::from("/k")),
        };
        let mut out = Overrides::default();
        kube_overrides(&kube, &mut out);
        let keys: Vec<&str> = out.list.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["Context", "Namespace", "ConfigPath"]);
        assert_eq!(
            out.named(),
            [
                ("--kube-context-name", "Context"),
                ("--kube-namespace", "Namespace")
            ]
        );
    }
}

//! Turning what the user typed into values input: the files the flags
//! name, and the flags themselves as overrides. One table,
//! `FLAG_KEYS`, says which values key each flag sets; every command that
//! takes flags for values (`init`, `upgrade`, `diff`, `check`, `images`)
//! builds its overrides from it, and problems name the flag by it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::output;
use crate::values::{self, tree, Input, Problem, SetFile, ValuesFile};

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
    fk("--image-pull-secret", "ImagePullSecrets", true),
    fk("--http-proxy", "EnvVars.HTTP_PROXY", true),
    fk("--https-proxy", "EnvVars.HTTPS_PROXY", true),
    fk("--no-proxy", "EnvVars.NO_PROXY", true),
    fk("--ca-bundle", "CaBundle", false),
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

//! The flag groups several commands share, read into the capabilities'
//! options. Not a command: the one file of `commands/` that the others use.

use std::path::PathBuf;

use serde_json::Value;

use crate::app::session::input::{read_input, Overrides};
use crate::app::session::options::{KubeOptions, PlatformOptions};
use crate::cli::{KubeArgs, PlatformArgs, SettingsArgs};
use crate::values::{Input, Problem, Problems};

/// `--kube-context-name`, `--kube-namespace`, `--kube-config-path`.
pub fn kube(args: &KubeArgs) -> KubeOptions {
    KubeOptions {
        kube_context_name: args.kube_context_name.clone(),
        kube_namespace: args.kube_namespace.clone(),
        kube_config_path: args.kube_config_path.clone(),
    }
}

/// `--token`, `--url`, `--insecure`, `--allow-http`.
pub fn platform(args: &PlatformArgs) -> PlatformOptions {
    PlatformOptions {
        token: args.token.clone(),
        url: args.url.clone(),
        insecure: args.insecure,
        allow_http: args.allow_http,
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
    if !settings.image_pull_secrets.is_empty() {
        out.value(
            "--image-pull-secret",
            Value::from(settings.image_pull_secrets.clone()),
        );
    }
    out.text("--http-proxy", &settings.http_proxy);
    out.text("--https-proxy", &settings.https_proxy);
    out.text("--no-proxy", &settings.no_proxy);
    if let Some(path) = &settings.ca_bundle {
        ca_bundle_flag(path, out, problems);
    }
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

/// `--ca-bundle FILE`: the file read now and checked, so a mistake names
/// the flag and the path; `CaBundle` then holds the certificates (the
/// record must not depend on a file that a later `upgrade` may not see).
fn ca_bundle_flag(path: &std::path::Path, out: &mut Overrides, problems: &mut Vec<Problem>) {
    use crate::values::ca_bundle;
    let shown = Value::String(path.display().to_string());
    let limit = ca_bundle::MAX_CHARS as u64;
    match crate::input_file::read_text(path, limit) {
        Err(e) => problems.push(Problem::new(
            "--ca-bundle",
            Some(&shown),
            format!("names a file that {e}"),
            "check the path; it is read relative to the current directory",
        )),
        Ok(text) => match ca_bundle::check(&text) {
            Ok(_) => out.value("--ca-bundle", Value::String(text)),
            Err(e) => problems.push(Problem::new("--ca-bundle", Some(&shown), e.why, e.fix)),
        },
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
        for row in crate::app::session::input::FLAG_KEYS {
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

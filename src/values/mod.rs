//! Values: parse, merge and validate everything the user said (values files,
//! `--set-value`, `--set-file`, flags, wizard answers) into one validated
//! [`Values`]. Pure: the caller reads files and hands over their text.
//!
//! Precedence, lowest first: built-in defaults < values files (in order) <
//! `--set-value`/`--set-file` (in order) < explicit flags < wizard answers.
//! Every problem is collected, so the user fixes them all in one go.

pub mod agent_only;
pub mod ballast;
pub mod ca_bundle;
pub mod cloud;
pub mod component_tuning;
pub mod engine_tuning;
pub mod extra_resources;
pub mod gateway;
pub mod hygiene;
pub mod json_schema;
pub mod metrics;
pub mod model;
pub mod openshift;
pub mod placement;
pub mod pod_identity;
pub mod pull_secrets;
pub mod runtimes;
pub mod schema;
pub mod secrets;
pub mod security;
mod storage;
pub mod tree;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::text;

pub use model::*;

use model::reader::Reader;
use tree::{display_path, parse_path, set_path};

/// One thing wrong with the input: which key, the value, why, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key path (or flag name / file) the problem is about.
    pub key: String,
    /// The offending value, already redacted for secret keys.
    pub value: Option<String>,
    pub why: String,
    pub fix: String,
}

impl Problem {
    /// Builds a problem; the value is shown unless the key holds a secret.
    pub fn new(
        key: &str,
        value: Option<&Value>,
        why: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        let secret = secrets::hides_whole(key);
        let value = value.map(|v| {
            if secret {
                text::REDACTED.to_string()
            } else {
                let text = match v {
                    Value::String(s) => format!("{:?}", text::masked_value(s)),
                    other => text::masked_value(&other.to_string()),
                };
                if text.chars().count() > 80 {
                    format!("{}…", text.chars().take(77).collect::<String>())
                } else {
                    text
                }
            }
        });
        // Keys, reasons and fixes may quote what the user typed: one line
        // each, with URL credentials masked.
        Problem {
            key: text::one_line(key),
            value,
            why: text::one_line(&text::masked(&why.into())),
            fix: text::one_line(&text::masked(&fix.into())),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{} = {}: {}", self.key, v, self.why)?,
            None => write!(f, "{}: {}", self.key, self.why)?,
        }
        write!(f, "\n    fix: {}", self.fix)
    }
}

/// All the problems found in one go; the caller exits with code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", render_problems(.0))]
pub struct Problems(pub Vec<Problem>);

fn render_problems(problems: &[Problem]) -> String {
    let mut out = format!(
        "the input has {} problem{}; nothing was applied or written",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for p in problems {
        out.push_str("\n  ");
        out.push_str(&p.to_string().replace('\n', "\n  "));
    }
    out
}

/// A values file's text and where it came from.
#[derive(Debug, Clone)]
pub struct ValuesFile {
    pub origin: String,
    pub text: String,
}

/// `--set-file key=path`, with the file already read (or the read error).
#[derive(Debug, Clone)]
pub struct SetFile {
    pub raw: String,
    pub contents: Result<String, String>,
}

/// Everything the user said, in layers, before merging.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub files: Vec<ValuesFile>,
    /// `--set-value` strings, `key=value`, typed like Helm's strvals.
    pub set_values: Vec<String>,
    pub set_files: Vec<SetFile>,
    /// Explicit flags and wizard answers: key path → value, highest precedence.
    pub overrides: Vec<(String, Value)>,
}

impl Input {
    /// True when this run's own input (a values file, `--set-value`,
    /// `--set-file`, a flag or a wizard answer) sets `key` or a key below
    /// it: what the user says now, as against what an installation's record
    /// says (a claim anyone who may edit that Secret can make).
    pub fn sets(&self, key: &str) -> bool {
        let names = |k: &str| {
            k == key
                || k.strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        };
        let assigned = |s: &String| s.split_once('=').is_some_and(|(k, _)| names(k.trim()));
        self.overrides.iter().any(|(k, _)| names(k))
            || self.set_values.iter().any(assigned)
            || self.set_files.iter().map(|f| &f.raw).any(assigned)
            || self.files.iter().any(|f| {
                serde_yaml_ng::from_str::<Value>(&f.text)
                    .ok()
                    .is_some_and(|t| tree::lookup(&t, key).is_some())
            })
    }
}

/// What validation hands back besides the values.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub values: Values,
    /// The merged tree, as the record Secret stores it (secrets redacted).
    pub redacted_tree: Value,
    /// Keys accepted for compatibility that have no effect.
    pub ignored_keys: Vec<String>,
    /// Settings that work but are probably not what the user wants.
    pub warnings: Vec<String>,
    /// `Runtimes`: runtimes the agent serves besides its own (none unless asked).
    pub runtimes: Vec<runtimes::RuntimeEntry>,
}

/// Merges the layers of `input` and validates the result.
pub fn load(input: &Input) -> Result<Loaded, Problems> {
    let mut problems = Vec::new();
    let tree = merge_layers(input, &mut problems);
    validate(tree, problems)
}

/// [`load`] of the tree that [`merge_layers`] built from the input, when it
/// found no problem: the files are not read and parsed a second time.
pub fn load_merged(tree: Value) -> Result<Loaded, Problems> {
    validate(tree, Vec::new())
}

/// Validates a merged tree; `problems` are those the merge found.
fn validate(tree: Value, mut problems: Vec<Problem>) -> Result<Loaded, Problems> {
    let ignored_keys = schema::check(&tree, &mut problems);
    let mut reader = Reader::new(&tree);
    let mut values = resolve(&mut reader);
    values.url_credentials = secrets::url_credentials(&tree)
        .into_iter()
        .map(|(k, v)| (k, Secret::new(v)))
        .collect();
    problems.extend(credentials_outside_a_secret(&tree));
    problems.append(&mut reader.problems);
    if values.agent_only {
        problems.extend(agent_only::problems(&tree));
    }
    let runtimes = runtimes::read_list(tree.get("Runtimes")).unwrap_or_else(|mut found| {
        problems.append(&mut found);
        Vec::new()
    });
    if !problems.is_empty() {
        dedup(&mut problems);
        return Err(Problems(problems));
    }
    let warnings = advice(&values);
    Ok(Loaded {
        values,
        // The merged tree is not needed any more: it becomes the record's.
        redacted_tree: secrets::redacted(tree),
        ignored_keys,
        warnings,
        runtimes,
    })
}

use secrets::ENV_MAPS;

/// A problem for each value outside the environment maps that carries URL
/// credentials: a mirror, an annotation, a volume spec… would put them in
/// clear into a ConfigMap, a StorageClass or a pod spec. The value is never
/// shown. `CodefreshHost` and `KubernetesHost` have their own message.
fn credentials_outside_a_secret(tree: &Value) -> Vec<Problem> {
    secrets::keys_with_url_credentials(tree)
        .into_iter()
        .filter(|key| {
            !ENV_MAPS.iter().any(|m| {
                key.strip_prefix(m)
                    .is_some_and(|rest| rest.starts_with('.'))
            }) && !["CodefreshHost", "KubernetesHost"].contains(&key.as_str())
        })
        .map(|key| {
            let (why, fix) = if key.starts_with("Runtime.RegistryMirrors") {
                (
                    "carries credentials in the URL (user:password@): dockerd cannot log in to a mirror with them, \
                     and they would be written in clear into the dind daemon configuration (a ConfigMap)",
                    "remove user:password@ from the mirror URL; give pipelines the registry's credentials \
                     as a Codefresh registry integration",
                )
            } else if key.contains("Annotations") {
                (
                    "carries credentials in a URL (user:password@): an annotation is written in clear, \
                     readable by anyone who can read the object",
                    "remove user:password@ from the annotation's URL",
                )
            } else {
                (
                    "carries credentials in a URL (user:password@), which cf-runner would write in clear: \
                     it keeps URL credentials in a Secret only for environment variables \
                     (EnvVars, AdditionalEnvVars, Runtime/Monitor/AppProxy.AdditionalEnvVars)",
                    "remove user:password@ from the URL, or pass it as an environment variable",
                )
            };
            Problem::new(&key, None, why, fix)
        })
        .collect()
}

/// Warnings about settings that are valid but unsafe or surprising.
fn advice(values: &Values) -> Vec<String> {
    let mut out = Vec::new();
    let proxy = &values.app_proxy;
    if proxy.enabled && proxy.ingress && proxy.tls_secret.is_none() {
        if let Some(host) = &proxy.host {
            out.push(format!(
                "AppProxy.Ingress.Host is {host}, but AppProxy.Ingress.TLSSecret is not set: \
                 the Ingress serves plain HTTP unless your ingress controller adds TLS itself; \
                 set AppProxy.Ingress.TLSSecret to a kubernetes.io/tls Secret's name"
            ));
        }
    }
    out
}

fn dedup(problems: &mut Vec<Problem>) {
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert((p.key.clone(), p.why.clone())));
}

/// Builds the merged tree from every layer, in precedence order.
pub fn merge_layers(input: &Input, problems: &mut Vec<Problem>) -> Value {
    let mut root = Value::Object(Map::new());
    for file in &input.files {
        match tree::parse_values(&file.text, &file.origin) {
            Ok(v) => tree::merge(&mut root, v),
            Err(mut found) => problems.append(&mut found),
        }
    }
    for raw in &input.set_values {
        match split_assignment(raw, "--set-value") {
            Ok((steps, text)) => set_path(&mut root, &steps, tree::typed_scalar(text)),
            Err(p) => problems.push(p),
        }
    }
    for set in &input.set_files {
        match split_assignment(&set.raw, "--set-file") {
            Ok((steps, path)) => match &set.contents {
                Ok(text) => set_path(&mut root, &steps, Value::String(text.clone())),
                Err(e) => problems.push(Problem::new(
                    &format!("--set-file {}", display_path(&steps)),
                    Some(&Value::String(path.trim().to_string())),
                    format!("names a file that {e}"),
                    "check the path after `=`; it is read relative to the current directory",
                )),
            },
            Err(p) => problems.push(p),
        }
    }
    for (key, value) in &input.overrides {
        match parse_path(key) {
            Ok(steps) => set_path(&mut root, &steps, value.clone()),
            Err(e) => problems.push(Problem::new(key, None, format!("key {e}"), "check the key")),
        }
    }
    root
}

fn split_assignment<'a>(raw: &'a str, flag: &str) -> Result<(Vec<tree::Step>, &'a str), Problem> {
    let Some((key, value)) = raw.split_once('=') else {
        let mut problem = Problem::new(
            flag,
            Some(&Value::String(raw.to_string())),
            "has no `=`",
            format!("write {flag} KEY=VALUE, e.g. {flag} Storage.Backend=ebs"),
        );
        // `Token:abc` or `Token abc` still carries the secret after the key.
        if names_secret_key(raw) {
            problem.value = Some("<redacted>".into());
        }
        return Err(problem);
    };
    let steps = parse_path(key.trim()).map_err(|e| {
        Problem::new(
            flag,
            Some(&Value::String(key.to_string())),
            format!("has a key that {e}"),
            "write the key as a dotted path, e.g. Storage.VolumeProvisioner.NodeSelector",
        )
    })?;
    Ok((steps, value))
}

/// True when `raw` starts with a secret key's name, in any case, or with
/// a credential-named variable of an environment map
/// (`EnvVars.DB_PASSWORD:abc`).
fn names_secret_key(raw: &str) -> bool {
    let raw = raw.trim_start();
    schema::SECRET_KEYS.iter().any(|key| {
        raw.get(..key.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(key))
    }) || ENV_MAPS.iter().any(|map| {
        raw.get(..map.len() + 1).is_some_and(|head| {
            head.eq_ignore_ascii_case(&format!("{map}."))
                && text::is_credential_name(&raw[map.len() + 1..])
        })
    })
}

/// Replaces every secret value in the tree (see [`secrets::redact`]).
pub fn redact(tree: &Value) -> Value {
    secrets::redact(tree)
}

fn resolve(r: &mut Reader) -> Values {
    let namespace = resolve_namespace(r);
    let (codefresh_host, kubernetes_host) = resolve_hosts(r);
    let env_vars = resolve_env_vars(r);
    let docker_registry = resolve_docker_registry(r);
    let image_pull_secrets = pull_secrets::resolve(r);
    let hygiene = hygiene::resolve(r);
    let engine_tuning = engine_tuning::resolve(r);
    let component_tuning = component_tuning::resolve(r);
    let ballast = ballast::resolve(r);
    let security = security::resolve(r);
    let openshift = openshift::resolve(r);
    let ca_bundle = ca_bundle::resolve(r);
    let arch = resolve_arch(r);

    let global_scheduling = Scheduling {
        node_selector: r.node_selector("NodeSelector"),
        tolerations: r.tolerations("Tolerations"),
    };

    let mut runner_env = env_vars.clone();
    runner_env.extend(r.env_map("AdditionalEnvVars"));
    let runner = Runner {
        scheduling: global_scheduling.clone(),
        resources: r.resources("Runner.resources"),
        env: runner_env,
        image: r.image("Image"),
        placement: placement::resolve(r, "Runner"),
    };

    let storage = storage::resolve(r, &namespace, &global_scheduling);
    let aws_pod_identity = pod_identity::resolve(r, &storage);
    let extra_resources = extra_resources::resolve(r, &namespace);
    let runtime = resolve_runtime(r, &env_vars);
    let monitor = resolve_monitor(r, &env_vars);
    let app_proxy = resolve_app_proxy(r, &env_vars);
    let metrics = metrics::resolve(
        r,
        &global_scheduling,
        app_proxy.enabled,
        storage.provisioned,
    );

    let agent_name = resolve_name(
        r,
        "AgentId",
        "is not a usable agent name",
        "mycluster_codefresh",
    );
    let runtime_name = resolve_name(
        r,
        "RuntimeEnvironmentName",
        "is not a usable runtime environment name",
        "mycluster/codefresh",
    );
    let context = r.text("Context");

    Values {
        namespace,
        context,
        config_path: r.text("ConfigPath"),
        codefresh_host,
        token: r.text("Token").map(Secret::new),
        agent_token: r.text("AgentToken").map(Secret::new),
        agent_name,
        runtime_name,
        kubernetes_host,
        insecure: r.boolean("Insecure", r.boolean("insecure", false)),
        set_default_runtime: r.boolean("SetDefaultRuntime", false),
        exec_demo_pipeline: r.boolean("ExecDemoPipeline", false),
        skip_cluster_test: r.boolean("SkipClusterTest", false),
        skip_cluster_integration: r.boolean("SkipClusterIntegration", false),
        agent_only: r.boolean("AgentOnly", false),
        env_vars,
        url_credentials: BTreeMap::new(),
        docker_registry,
        image_pull_secrets,
        hygiene,
        metrics,
        engine_tuning,
        component_tuning,
        ballast,
        security,
        openshift,
        ca_bundle,
        aws_pod_identity,
        extra_resources,
        arch,
        runner,
        storage,
        runtime,
        monitor,
        app_proxy,
    }
}

/// The namespace, which must be a DNS-1123 label.
fn resolve_namespace(r: &mut Reader) -> String {
    let namespace = r
        .text("Namespace")
        .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
    if !is_dns_label(&namespace) {
        let fix = format!(
            "use lowercase letters, digits and `-`, at most 63, starting and ending alphanumeric, e.g. {:?}",
            suggest_dns_label(&namespace)
        );
        r.problems.push(Problem::new(
            "Namespace",
            Some(&Value::String(namespace.clone())),
            "is not a valid namespace name (DNS-1123 label)",
            fix,
        ));
    }
    namespace
}

/// The platform's URL and the Kubernetes API's, neither carrying
/// credentials (every pod would get them in plain text).
fn resolve_hosts(r: &mut Reader) -> (String, Option<String>) {
    for key in ["CodefreshHost", "KubernetesHost"] {
        if r.text(key)
            .is_some_and(|t| crate::text::has_url_credentials(&t))
        {
            r.problems.push(Problem::new(
                key,
                r.raw_value(key),
                "carries credentials in the URL: every pod would get them in plain text",
                "remove `user:password@` from the URL; cf-runner authenticates with the API token (--token)",
            ));
        }
    }
    let codefresh_host = r
        .url("CodefreshHost", &["https", "http"])
        .map(|h| h.trim_end_matches('/').to_string())
        .unwrap_or_else(|| DEFAULT_CODEFRESH_HOST.to_string());
    let kubernetes_host = r.url("KubernetesHost", &["https", "http"]);
    (codefresh_host, kubernetes_host)
}

/// The env of every pod: a proxy that is no URL is left out, and each
/// proxy is set in both cases.
fn resolve_env_vars(r: &mut Reader) -> BTreeMap<String, String> {
    let mut env_vars = r.env_map("EnvVars");
    for proxy in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
        let key = format!("EnvVars.{proxy}");
        if r.text(&key).is_some() && r.url(&key, &["http", "https", "socks5"]).is_none() {
            env_vars.remove(proxy);
        }
    }
    mirror_proxy_case(&mut env_vars);
    env_vars
}

/// The registry mirror as a host with an optional path (a scheme or a
/// trailing slash given is dropped).
fn resolve_docker_registry(r: &mut Reader) -> Option<String> {
    r.text("DockerRegistry").map(|reg| {
        let trimmed = reg
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        if trimmed.is_empty()
            || trimmed.contains(char::is_whitespace)
            || trimmed.contains(':')
                && trimmed
                    .rsplit(':')
                    .next()
                    .is_some_and(|p| p.parse::<u16>().is_err())
        {
            r.problems.push(Problem::new(
                "DockerRegistry",
                Some(&Value::String(reg.clone())),
                "is not a registry host",
                "write a registry host with an optional path, e.g. registry.example.com/mirror",
            ));
        }
        trimmed
    })
}

/// The nodes' architecture; any when not given.
fn resolve_arch(r: &mut Reader) -> Arch {
    match r.text("Arch").as_deref() {
        None => Arch::Any,
        Some("amd64") => Arch::Amd64,
        Some("arm64") | Some("aarch64") => Arch::Arm64,
        Some(_) => {
            r.problems.push(Problem::new(
                "Arch",
                r.text("Arch").map(Value::String).as_ref(),
                "is not a supported architecture",
                "use amd64 or arm64 (or leave it out for any)",
            ));
            Arch::Any
        }
    }
}

/// A name the platform keeps (the agent's, the runtime's): at most 63
/// characters, no spaces.
fn resolve_name(r: &mut Reader, key: &str, why: &str, example: &str) -> Option<String> {
    let name = r.text(key);
    if let Some(name) = &name {
        if name.len() > 63 || name.contains(char::is_whitespace) {
            r.problems.push(Problem::new(
                key,
                Some(&Value::String(name.clone())),
                why,
                format!("use at most 63 characters without spaces, e.g. {example}"),
            ));
        }
    }
    name
}

/// Proxies are read in both cases by different tools; set both.
fn mirror_proxy_case(env: &mut BTreeMap<String, String>) {
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"] {
        let lower = name.to_ascii_lowercase();
        match (env.get(name).cloned(), env.get(&lower).cloned()) {
            (Some(v), None) => {
                env.insert(lower, v);
            }
            (None, Some(v)) => {
                env.insert(name.to_string(), v);
            }
            _ => {}
        }
    }
}

fn suggest_dns_label(s: &str) -> String {
    let mut out: String = s
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    out.truncate(63);
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        DEFAULT_NAMESPACE.to_string()
    } else {
        out
    }
}

/// `<key>SecretKeyRef`: a key of a Secret of the user's that holds the
/// value of `key` instead. Both `Name` and `Key` are needed; the value
/// itself and a reference are not both allowed; cf-runner's own Secrets
/// cannot be named (it rewrites and deletes them).
fn secret_key_ref(r: &mut Reader, key: &str) -> Option<SecretKeyRef> {
    let ref_key = format!("{key}SecretKeyRef");
    let name = r.text(&format!("{ref_key}.Name"));
    let secret_key = r.text(&format!("{ref_key}.Key"));
    let (name, secret_key) = match (name, secret_key) {
        (None, None) => return None,
        (Some(n), Some(k)) => (n, k),
        (Some(_), None) | (None, Some(_)) => {
            r.problems.push(Problem::new(
                &ref_key,
                None,
                "needs both Name (the Secret) and Key (the key in it)",
                format!("set {ref_key}.Name and {ref_key}.Key"),
            ));
            return None;
        }
    };
    let mut ok = true;
    if r.text(key).is_some() {
        r.problems.push(Problem::new(
            &ref_key,
            None,
            format!("is set together with {key}: the provisioner can read only one of them"),
            format!("remove {key} (the value) or {ref_key} (the Secret of yours)"),
        ));
        ok = false;
    }
    if !is_dns_subdomain(&name) {
        r.problems.push(Problem::new(
            &format!("{ref_key}.Name"),
            Some(&Value::String(name.clone())),
            "is not a Secret name (lowercase letters, digits, '-' and '.')",
            "write the name of the Secret in the runner's namespace that holds the value",
        ));
        ok = false;
    }
    if OWN_SECRETS.contains(&name.as_str()) {
        r.problems.push(Problem::new(
            &format!("{ref_key}.Name"),
            Some(&Value::String(name.clone())),
            "is a Secret cf-runner writes and deletes itself, not one of yours",
            format!("set {key} to the value instead (cf-runner keeps it in a Secret of its own)"),
        ));
        ok = false;
    }
    let key_ok = !secret_key.is_empty()
        && secret_key.len() <= 253
        && secret_key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !key_ok {
        r.problems.push(Problem::new(
            &format!("{ref_key}.Key"),
            Some(&Value::String(secret_key.clone())),
            "is not a Secret key (letters, digits, '-', '_' and '.')",
            "write the key in the Secret that holds the value",
        ));
        ok = false;
    }
    ok.then_some(SecretKeyRef {
        name,
        key: secret_key,
    })
}

fn resolve_runtime(r: &mut Reader, env_vars: &BTreeMap<String, String>) -> Runtime {
    let mut env = env_vars.clone();
    env.extend(r.env_map("Runtime.AdditionalEnvVars"));
    let volume_size = r
        .text("Runtime.VolumeSize")
        .unwrap_or_else(|| "16Gi".into());
    if !is_quantity(&volume_size) || quantity_value(&volume_size).unwrap_or(0.0) < 1073741824.0 {
        r.problems.push(Problem::new(
            "Runtime.VolumeSize",
            Some(&Value::String(volume_size.clone())),
            "is not a volume size of at least 1Gi",
            "write a size such as 16Gi or 50Gi",
        ));
    }
    let mtu = r.int("Runtime.Mtu");
    if let Some(m) = mtu {
        if !(576..=9001).contains(&m) {
            r.problems.push(Problem::new(
                "Runtime.Mtu",
                Some(&Value::from(m)),
                "is outside the MTU range 576–9001",
                "set it below the node network's MTU, e.g. 1440 when eth0 has 1450 (VXLAN)",
            ));
        }
    }
    let registry_mirrors = r.text_list("Runtime.RegistryMirrors");
    for (i, mirror) in registry_mirrors.iter().enumerate() {
        match url::Url::parse(mirror) {
            Ok(u) if (u.scheme() == "https" || u.scheme() == "http") && u.host_str().is_some() => {}
            _ => r.problems.push(Problem::new(
                &format!("Runtime.RegistryMirrors[{i}]"),
                Some(&Value::String(mirror.clone())),
                "is not a registry mirror URL",
                "write the mirror as a URL, e.g. https://mirror.example.com",
            )),
        }
    }
    let insecure_registries = r.text_list("Runtime.InsecureRegistries");
    for (i, reg) in insecure_registries.iter().enumerate() {
        if reg.contains("://") || reg.contains(char::is_whitespace) || reg.is_empty() {
            r.problems.push(Problem::new(
                &format!("Runtime.InsecureRegistries[{i}]"),
                Some(&Value::String(reg.clone())),
                "is not a registry host",
                "write host[:port] or a CIDR without a scheme, e.g. 10.0.0.5:5000",
            ));
        }
    }
    let user_volumes = r_opaque_map(r, "Runtime.userVolumes");
    let user_volume_mounts = r_opaque_map(r, "Runtime.userVolumeMounts");
    Runtime {
        scheduling: Scheduling {
            node_selector: r.node_selector("Runtime.NodeSelector"),
            tolerations: r.tolerations("Runtime.tolerations"),
        },
        sa_annotations: r.service_account_annotations("Runtime.ServiceAccount.Annotations"),
        env,
        dind_resources: r.resources("Runtime.resources"),
        user_volumes,
        user_volume_mounts,
        volume_size,
        mtu,
        registry_mirrors,
        insecure_registries,
        docker_daemon_access: r.boolean("DockerDaemonAccess", true),
        placement: placement::resolve(r, "Runtime"),
    }
}

fn r_opaque_map(r: &mut Reader, key: &str) -> Option<Value> {
    let value = tree::lookup(r.root(), key)?.clone();
    if !value.is_object() {
        r.problems.push(Problem::new(
            key,
            Some(&value),
            "is not a map of volume names to specs",
            "see the custom volume mounts section of the runner docs for the shape",
        ));
        return None;
    }
    Some(value)
}

fn resolve_monitor(r: &mut Reader, env_vars: &BTreeMap<String, String>) -> Monitor {
    let mut env = env_vars.clone();
    env.extend(r.env_map("Monitor.AdditionalEnvVars"));
    Monitor {
        enabled: r.boolean("Monitor.Enabled", false),
        image: r.image("Monitor.Image"),
        resources: r.resources("Monitor.resources"),
        env,
        sa_annotations: r.service_account_annotations("Monitor.ServiceAccount.Annotations"),
        namespaced: r.boolean("Monitor.UseNamespaceWithRole", true),
        cluster_id: r.text("ClusterId"),
        helm_releases: r.boolean("Monitor.Helm3", false),
        placement: placement::resolve(r, "Monitor"),
    }
}

fn resolve_app_proxy(r: &mut Reader, env_vars: &BTreeMap<String, String>) -> AppProxy {
    let mut env = env_vars.clone();
    env.extend(r.env_map("AppProxy.AdditionalEnvVars"));
    let given_host = r.text("AppProxy.Ingress.Host");
    // Like the old wizard, an AppProxy section with a host (or an
    // HTTPRoute's parents) turns it on.
    let route_asked = r.raw_value("AppProxy.HttpRoute.ParentRefs").is_some()
        || r.boolean(gateway::HTTP_ROUTE_ENABLED_KEY, false);
    let enabled = r.boolean("AppProxy.Enabled", given_host.is_some() || route_asked);
    let exposure = gateway::resolve(r, enabled);
    if let Some(h) = &given_host {
        let bare = h.strip_prefix("*.").unwrap_or(h);
        if !is_dns_subdomain(bare) || !bare.contains('.') {
            r.problems.push(Problem::new(
                "AppProxy.Ingress.Host",
                Some(&Value::String(h.clone())),
                "is not a DNS host name (no scheme, no port, no path)",
                "write just the host, e.g. app-proxy.example.com",
            ));
        }
    }
    let host = gateway::address(r, enabled, given_host, &exposure);
    let path_prefix = gateway::path_prefix(r, &exposure);
    if !path_prefix.starts_with('/') || path_prefix.contains(char::is_whitespace) {
        r.problems.push(Problem::new(
            "AppProxy.Ingress.PathPrefix",
            Some(&Value::String(path_prefix.clone())),
            "is not a URL path",
            "start it with /, e.g. /app-proxy",
        ));
    }
    let tls_secret = r.text("AppProxy.Ingress.TLSSecret");
    if let Some(s) = &tls_secret {
        if !is_dns_subdomain(s) {
            r.problems.push(Problem::new(
                "AppProxy.Ingress.TLSSecret",
                Some(&Value::String(s.clone())),
                "is not a valid Secret name",
                "use the name of a kubernetes.io/tls Secret in the runner's namespace",
            ));
        }
    }
    let ingress_class = r.text("AppProxy.Ingress.IngressClass");
    if let Some(c) = &ingress_class {
        if !is_dns_subdomain(c) {
            r.problems.push(Problem::new(
                "AppProxy.Ingress.IngressClass",
                Some(&Value::String(c.clone())),
                "is not a valid IngressClass name",
                "use the name shown by `kubectl get ingressclass`, e.g. nginx",
            ));
        }
    }
    AppProxy {
        enabled,
        image: r.image("AppProxy.Image"),
        resources: r.resources("AppProxy.resources"),
        env,
        sa_annotations: r.service_account_annotations("AppProxy.ServiceAccount.Annotations"),
        host,
        ingress_class,
        tls_secret,
        path_prefix,
        annotations: r.annotation_map("AppProxy.Ingress.Annotations"),
        ingress: exposure.ingress,
        http_route: exposure.http_route,
        placement: placement::resolve(r, "AppProxy"),
    }
}

#[cfg(test)]
mod secret_key_ref_tests;

/// Each values example (`values-examples/*.yaml`) as an [`Input`] of that
/// one file, with its path: for tests that hold something true of them all.
#[cfg(test)]
pub(crate) fn example_inputs() -> Vec<(std::path::PathBuf, Input)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("values-examples");
    let mut out: Vec<(std::path::PathBuf, Input)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .map(|path| {
            let input = Input {
                files: vec![ValuesFile {
                    origin: path.display().to_string(),
                    text: std::fs::read_to_string(&path).unwrap(),
                }],
                ..Default::default()
            };
            (path, input)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(test)]
mod load_merged_tests;

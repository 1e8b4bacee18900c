//! A fleet: many clusters' runners described in one file, exported as a Git
//! tree that a GitOps engine (Flux, or Argo CD) applies and keeps applied.
//!
//! The fleet file holds shared `defaults` (values, as in a values file) and
//! a list of `clusters`, each with its own values over the defaults and its
//! runtimes (one per namespace; values over the cluster's). Every runtime is
//! validated exactly like a values file, and a problem names the cluster,
//! the runtime and the key. Pure: the caller reads the file.
//!
//! [`tree`] turns a fleet into files (a Kustomize base, an overlay per
//! cluster, Flux `Kustomization`s, Argo CD `Application`s); [`sops`] writes
//! the registration's secrets encrypted to age recipients, or [`external`]
//! references them in a store the team runs (`externalSecrets`); [`trust`]
//! tells cf-runner's own registrations from claims in the tree.

pub mod external;
pub mod sops;
pub mod tree;
pub mod trust;

use serde_json::{Map, Value};

use crate::values::{self, Input, Problem, Problems, ValuesFile};

/// Where the fleet file's settings for the GitOps objects are read.
pub const FLEET_FLAG: &str = "--fleet";

/// A cluster of the fleet, validated.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The cluster's name: the folder of its overlay, and the "context"
    /// in the names cf-runner gives its agent and runtime environment.
    pub name: String,
    /// Flux: the Secret (in Flux's namespace) holding the cluster's
    /// kubeconfig under `value`; `None` for the cluster Flux runs in.
    pub kube_config_secret: Option<String>,
    /// Argo CD: the destination server.
    pub server: String,
    /// Its runtimes, in the order the file lists them.
    pub runtimes: Vec<Runtime>,
}

/// One runtime of a cluster: one install of the runner, in one namespace.
#[derive(Debug, Clone)]
pub struct Runtime {
    pub loaded: values::Loaded,
}

impl Runtime {
    /// The runtime's namespace: its key within the cluster.
    pub fn namespace(&self) -> &str {
        &self.loaded.values.namespace
    }
}

/// Settings of the GitOps objects.
#[derive(Debug, Clone)]
pub struct Gitops {
    /// The tree's folder inside the repository (`.` for the root).
    pub path: String,
    pub flux_namespace: String,
    /// The Flux `GitRepository` that holds the tree.
    pub flux_source: String,
    /// The Secret with the age key (`*.agekey`) kustomize-controller decrypts with.
    pub decryption_secret: String,
    pub interval: String,
    pub timeout: String,
    pub argocd_namespace: String,
    pub argocd_project: String,
    pub repo_url: String,
    pub target_revision: String,
}

/// A validated fleet file.
#[derive(Debug, Clone)]
pub struct Fleet {
    /// The defaults, as a values tree (for the Kustomize base).
    pub defaults: Value,
    pub gitops: Gitops,
    /// The age recipients the secrets are encrypted to.
    pub age_recipients: Vec<String>,
    /// `externalSecrets`: the registered Secrets come from this store (as
    /// ExternalSecrets) instead of SOPS files.
    pub external_secrets: Option<external::Store>,
    pub clusters: Vec<Cluster>,
}

const TOP_KEYS: &[&str] = &["defaults", "gitops", "sops", "externalSecrets", "clusters"];
const STORE_KEYS: &[&str] = &["secretStoreRef", "keyPrefix", "refreshInterval"];

/// A name the ExternalSecret CRD accepts for a store (a DNS subdomain).
fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        })
}

/// The `externalSecrets` section: the store the registered Secrets come from.
fn store(map: &Map<String, Value>, problems: &mut Vec<Problem>) -> Option<external::Store> {
    let at = "externalSecrets.";
    unknown_keys(map, STORE_KEYS, at, problems);
    let Some(r) = map_at(map, "secretStoreRef", at, problems) else {
        problems.push(Problem::new(
            "externalSecrets.secretStoreRef",
            None,
            "is missing: the ExternalSecrets must name the store they read",
            "write `secretStoreRef: {kind: ClusterSecretStore, name: <store>}`",
        ));
        return None;
    };
    unknown_keys(
        r,
        &["kind", "name"],
        "externalSecrets.secretStoreRef.",
        problems,
    );
    let ref_at = "externalSecrets.secretStoreRef.";
    let kind = text_at(r, "kind", ref_at, "SecretStore", problems);
    if !["SecretStore", "ClusterSecretStore"].contains(&kind.as_str()) {
        problems.push(Problem::new(
            &format!("{ref_at}kind"),
            Some(&Value::String(kind.clone())),
            "is not a kind of store",
            "write SecretStore (a store in the runner's namespace) or ClusterSecretStore",
        ));
    }
    let name = match r.get("name") {
        Some(Value::String(n)) if is_dns_subdomain(n) => n.clone(),
        other => {
            problems.push(Problem::new(
                &format!("{ref_at}name"),
                other,
                "must name the store (a lowercase DNS name)",
                "write the name of your SecretStore or ClusterSecretStore, e.g. `name: vault-backend`",
            ));
            String::new()
        }
    };
    let key_prefix = text_at(map, "keyPrefix", at, "codefresh/runners", problems)
        .trim_matches('/')
        .to_string();
    let refresh_interval = text_at(map, "refreshInterval", at, "1h", problems);
    Some(external::Store {
        kind,
        name,
        key_prefix,
        refresh_interval,
    })
}
const CLUSTER_KEYS: &[&str] = &["name", "kubeConfigSecret", "server", "values", "runtimes"];
const RUNTIME_KEYS: &[&str] = &["values"];
const GITOPS_KEYS: &[&str] = &[
    "path",
    "fluxNamespace",
    "fluxSource",
    "decryptionSecret",
    "interval",
    "timeout",
    "argocdNamespace",
    "argocdProject",
    "repoURL",
    "targetRevision",
];

/// A DNS label: what a cluster's name must be (it names a folder and
/// Kubernetes objects).
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn unknown_keys(map: &Map<String, Value>, known: &[&str], at: &str, problems: &mut Vec<Problem>) {
    for k in map.keys() {
        if !known.contains(&k.as_str()) {
            problems.push(Problem::new(
                &format!("{at}{k}"),
                None,
                "is not a fleet file key",
                format!("use one of {}", known.join(", ")),
            ));
        }
    }
}

fn text_at(
    map: &Map<String, Value>,
    key: &str,
    at: &str,
    default: &str,
    problems: &mut Vec<Problem>,
) -> String {
    match map.get(key) {
        None => default.to_string(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(other) => {
            problems.push(Problem::new(
                &format!("{at}{key}"),
                Some(other),
                "must be a non-empty text",
                format!("write it as `{key}: <text>`, or leave it out for {default:?}"),
            ));
            default.to_string()
        }
    }
}

fn map_at<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    at: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'a Map<String, Value>> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            problems.push(Problem::new(
                &format!("{at}{key}"),
                Some(other),
                "must be a map",
                format!("write `{key}:` followed by indented keys"),
            ));
            None
        }
    }
}

/// Values keys a fleet file may not hold: secrets (and credential-named
/// environment variables) would sit in Git in clear.
fn secret_values(tree: &Value, at: &str, problems: &mut Vec<Problem>) {
    fn walk(v: &Value, path: &str, at: &str, problems: &mut Vec<Problem>) {
        if let Value::Object(map) = v {
            for (k, v) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if values::secrets::hides_whole(&p) && !v.is_null() {
                    // Never the value: the key's prefix hides it from the
                    // masking that knows `Token` only at the top.
                    problems.push(Problem::new(
                        &format!("{at}{p}"),
                        None,
                        "is a secret: a fleet file lives in Git, where it would be readable in clear",
                        "leave it out: `cf-runner fleet register` creates the agent token and the dind \
                         certificate and writes them encrypted; give other credentials to the cluster \
                         as a Secret of your own (or an ExternalSecret)",
                    ));
                } else {
                    walk(v, &p, at, problems);
                }
            }
        }
    }
    walk(tree, "", at, problems);
    if !values::secrets::keys_with_url_credentials(tree).is_empty() {
        for key in values::secrets::keys_with_url_credentials(tree) {
            problems.push(Problem::new(
                &format!("{at}{key}"),
                None,
                "carries credentials in a URL (user:password@), which would sit in Git in clear",
                "remove user:password@ from the URL",
            ));
        }
    }
}

/// The values of one runtime: the defaults, then the cluster's, then the
/// runtime's, validated as one values file would be.
fn load_runtime(
    layers: &[(&str, &Value)],
    at: &str,
    problems: &mut Vec<Problem>,
) -> Option<values::Loaded> {
    let files = layers
        .iter()
        .map(|(origin, tree)| ValuesFile {
            origin: origin.to_string(),
            text: crate::export::to_yaml(tree),
        })
        .collect();
    match values::load(&Input {
        files,
        ..Default::default()
    }) {
        Ok(loaded) => Some(loaded),
        Err(Problems(found)) => {
            for mut p in found {
                p.key = format!("{at}{}", p.key);
                problems.push(p);
            }
            None
        }
    }
}

/// Parses and validates a fleet file's text. `origin` names it in problems.
pub fn parse(text: &str, origin: &str) -> Result<Fleet, Problems> {
    let mut problems = Vec::new();
    let root = values::tree::parse_values(text, origin).map_err(Problems)?;
    let root = root.as_object().cloned().unwrap_or_default();
    unknown_keys(&root, TOP_KEYS, "", &mut problems);
    let empty = Map::new();
    let defaults = map_at(&root, "defaults", "", &mut problems).unwrap_or(&empty);
    let defaults = Value::Object(defaults.clone());
    secret_values(&defaults, "defaults.", &mut problems);
    let g = map_at(&root, "gitops", "", &mut problems).unwrap_or(&empty);
    let gitops = gitops(g, &mut problems);
    let age_recipients = match map_at(&root, "sops", "", &mut problems) {
        Some(s) => age_recipients(s, &mut problems),
        None => Vec::new(),
    };
    let external_secrets =
        map_at(&root, "externalSecrets", "", &mut problems).and_then(|m| store(m, &mut problems));
    if external_secrets.is_some() && !age_recipients.is_empty() {
        problems.push(Problem::new(
            "externalSecrets",
            None,
            "cannot be combined with sops.ageRecipients: the registered Secrets come either from SOPS files or from a store",
            "keep one of the two sections",
        ));
    }
    let clusters = clusters(root.get("clusters"), &defaults, &mut problems);
    if problems.is_empty() && clusters.is_empty() {
        problems.push(Problem::new(
            "clusters",
            None,
            "lists no cluster",
            "add `clusters: [{name: <cluster>}]`",
        ));
    }
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    Ok(Fleet {
        defaults,
        gitops,
        age_recipients,
        external_secrets,
        clusters,
    })
}

/// The `gitops` section: where the tree lives and how Flux and Argo CD
/// read it, each with its default.
fn gitops(g: &Map<String, Value>, problems: &mut Vec<Problem>) -> Gitops {
    unknown_keys(g, GITOPS_KEYS, "gitops.", problems);
    let mut t = |key: &str, default: &str| text_at(g, key, "gitops.", default, problems);
    let gitops = Gitops {
        path: t("path", ".").trim_matches('/').to_string(),
        flux_namespace: t("fluxNamespace", "flux-system"),
        flux_source: t("fluxSource", "flux-system"),
        decryption_secret: t("decryptionSecret", "sops-age"),
        interval: t("interval", "10m"),
        timeout: t("timeout", "5m"),
        argocd_namespace: t("argocdNamespace", "argocd"),
        argocd_project: t("argocdProject", "default"),
        repo_url: t("repoURL", "<placeholder: the Git repository's URL>"),
        target_revision: t("targetRevision", "HEAD"),
    };
    Gitops {
        path: if gitops.path.is_empty() {
            ".".into()
        } else {
            gitops.path
        },
        ..gitops
    }
}

/// The `sops` section's age recipients, each checked to be one.
fn age_recipients(s: &Map<String, Value>, problems: &mut Vec<Problem>) -> Vec<String> {
    let mut recipients = Vec::new();
    unknown_keys(s, &["ageRecipients"], "sops.", problems);
    match s.get("ageRecipients") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item.as_str().map(str::trim) {
                    Some(r) if r.parse::<age::x25519::Recipient>().is_ok() => {
                        recipients.push(r.to_string())
                    }
                    _ => problems.push(Problem::new(
                        &format!("sops.ageRecipients[{i}]"),
                        Some(item),
                        "is not an age recipient",
                        "give the public key `age-keygen` prints (age1…)",
                    )),
                }
            }
        }
        Some(other) => problems.push(Problem::new(
            "sops.ageRecipients",
            Some(other),
            "must be a list of age recipients",
            "write `ageRecipients: [age1…]`",
        )),
        None => {}
    }
    recipients
}

/// The `clusters` list, each cluster named once.
fn clusters(list: Option<&Value>, defaults: &Value, problems: &mut Vec<Problem>) -> Vec<Cluster> {
    let mut clusters = Vec::new();
    match list {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(c) = cluster(item, i, defaults, problems) {
                    if clusters.iter().any(|o: &Cluster| o.name == c.name) {
                        problems.push(Problem::new(
                            &format!("clusters[{i}].name"),
                            Some(&Value::String(c.name.clone())),
                            "names a cluster listed earlier",
                            "give each cluster its own name",
                        ));
                    } else {
                        clusters.push(c);
                    }
                }
            }
        }
        None | Some(Value::Null) => {}
        Some(other) => problems.push(Problem::new(
            "clusters",
            Some(other),
            "must be a list of clusters",
            "write `clusters:` followed by `- name: <cluster>` items",
        )),
    }
    clusters
}

fn cluster(
    item: &Value,
    i: usize,
    defaults: &Value,
    problems: &mut Vec<Problem>,
) -> Option<Cluster> {
    let Some(map) = item.as_object() else {
        problems.push(Problem::new(
            &format!("clusters[{i}]"),
            Some(item),
            "must be a map",
            "write `- name: <cluster>`",
        ));
        return None;
    };
    unknown_keys(map, CLUSTER_KEYS, &format!("clusters[{i}]."), problems);
    let name = match map.get("name").and_then(Value::as_str) {
        Some(n) if is_dns_label(n) => n.to_string(),
        other => {
            problems.push(Problem::new(
                &format!("clusters[{i}].name"),
                other.map(|s| Value::String(s.into())).as_ref(),
                "must be a lowercase DNS label of at most 40 characters (it names a folder and objects)",
                "write e.g. `name: build-eu-1`",
            ));
            return None;
        }
    };
    let at = format!("clusters[{name}].");
    let kube_config_secret = match map.get("kubeConfigSecret") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if is_dns_label(s) => Some(s.clone()),
        Some(other) => {
            problems.push(Problem::new(
                &format!("{at}kubeConfigSecret"),
                Some(other),
                "must name a Secret (a lowercase DNS label)",
                "name the Secret in Flux's namespace that holds the cluster's kubeconfig under `value`",
            ));
            None
        }
    };
    let server = text_at(
        map,
        "server",
        &at,
        "https://kubernetes.default.svc",
        problems,
    );
    let empty = Value::Object(Map::new());
    let cluster_values = map_at(map, "values", &at, problems)
        .map(|m| Value::Object(m.clone()))
        .unwrap_or_else(|| empty.clone());
    secret_values(&cluster_values, &format!("{at}values."), problems);
    let runtime_items: Vec<Value> = match map.get("runtimes") {
        None | Some(Value::Null) => vec![Value::Object(Map::new())],
        Some(Value::Array(items)) if !items.is_empty() => items.clone(),
        Some(other) => {
            problems.push(Problem::new(
                &format!("{at}runtimes"),
                Some(other),
                "must be a non-empty list",
                "write `runtimes: [{values: {Namespace: …}}]`, or leave it out for one runtime",
            ));
            return None;
        }
    };
    let runtimes = cluster_runtimes(&runtime_items, &name, defaults, &cluster_values, problems);
    Some(Cluster {
        name,
        kube_config_secret,
        server,
        runtimes,
    })
}

/// The runtimes of cluster `name`, each loaded from the layers of values
/// it inherits (the cluster's name as its context, the fleet's defaults,
/// the cluster's values, its own), each in a namespace of its own.
fn cluster_runtimes(
    runtime_items: &[Value],
    name: &str,
    defaults: &Value,
    cluster_values: &Value,
    problems: &mut Vec<Problem>,
) -> Vec<Runtime> {
    let at = format!("clusters[{name}].");
    let empty = Value::Object(Map::new());
    let mut runtimes: Vec<Runtime> = Vec::new();
    for (j, r) in runtime_items.iter().enumerate() {
        let rat = format!("{at}runtimes[{j}].");
        let Some(rmap) = r.as_object() else {
            problems.push(Problem::new(
                &format!("{at}runtimes[{j}]"),
                Some(r),
                "must be a map",
                "write `- values: {…}`",
            ));
            continue;
        };
        unknown_keys(rmap, RUNTIME_KEYS, &rat, problems);
        let rvalues = map_at(rmap, "values", &rat, problems)
            .map(|m| Value::Object(m.clone()))
            .unwrap_or_else(|| empty.clone());
        secret_values(&rvalues, &format!("{rat}values."), problems);
        // The cluster's name stands for its kube context (it is in the
        // agent's and runtime's names), and the record says so as `init
        // --kube-context-name <cluster>` would: `diff` and `info` then read
        // an engine-applied install as one of theirs.
        let context = serde_json::json!({ "Context": name });
        let layers = [
            ("the cluster's name", &context),
            ("the fleet file's defaults", defaults),
            ("the cluster's values", cluster_values),
            ("the runtime's values", &rvalues),
        ];
        if let Some(loaded) = load_runtime(&layers, &at, problems) {
            if runtimes
                .iter()
                .any(|o| o.namespace() == loaded.values.namespace)
            {
                problems.push(Problem::new(
                    &format!("{rat}values.Namespace"),
                    Some(&Value::String(loaded.values.namespace.clone())),
                    "is the namespace of another runtime of this cluster",
                    "give each runtime of a cluster its own Namespace",
                ));
                continue;
            }
            runtimes.push(Runtime { loaded });
        }
    }
    runtimes
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLEET: &str = "\
defaults:
  Namespace: codefresh
clusters:
  - name: east
  - name: west
    values:
      Namespace: cf-west
";

    #[test]
    fn a_fleet_file_gives_each_cluster_its_values_over_the_defaults() {
        let fleet = parse(FLEET, "fleet.yaml").unwrap();
        assert_eq!(fleet.clusters.len(), 2);
        assert_eq!(fleet.clusters[0].runtimes[0].namespace(), "codefresh");
        assert_eq!(fleet.clusters[1].runtimes[0].namespace(), "cf-west");
    }

    #[test]
    fn a_bad_value_is_named_with_its_cluster_and_key() {
        let text = "clusters:\n  - name: east\n    values:\n      Namespace: Not_Valid\n";
        let err = parse(text, "fleet.yaml").unwrap_err();
        assert!(
            err.0.iter().any(|p| p.key == "clusters[east].Namespace"),
            "{:?}",
            err.0
        );
    }

    #[test]
    fn a_token_in_the_fleet_file_is_refused_and_never_shown() {
        let text = "defaults:\n  Token: s3cr3t-token\nclusters:\n  - name: east\n";
        let err = parse(text, "fleet.yaml").unwrap_err();
        let p = err
            .0
            .iter()
            .find(|p| p.key == "defaults.Token")
            .expect("named");
        assert!(!format!("{p:?}").contains("s3cr3t-token"));
    }

    #[test]
    fn an_unknown_key_and_a_duplicate_cluster_are_named() {
        let text = "clusters:\n  - name: east\n    colour: red\n  - name: east\n";
        let err = parse(text, "fleet.yaml").unwrap_err();
        let keys: Vec<&str> = err.0.iter().map(|p| p.key.as_str()).collect();
        assert!(keys.contains(&"clusters[0].colour"), "{keys:?}");
        assert!(keys.contains(&"clusters[1].name"), "{keys:?}");
    }

    #[test]
    fn an_external_secrets_store_is_read_and_its_mistakes_are_named() {
        let text = "externalSecrets:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n  keyPrefix: /runners/\nclusters:\n  - name: east\n";
        let fleet = parse(text, "fleet.yaml").unwrap();
        let store = fleet.external_secrets.expect("a store");
        assert_eq!(
            (
                store.kind.as_str(),
                store.name.as_str(),
                store.key_prefix.as_str(),
                store.refresh_interval.as_str()
            ),
            ("ClusterSecretStore", "vault", "runners", "1h")
        );
        assert_eq!(
            store.remote_key("east", "cf", "runner"),
            "runners/east/cf/runner"
        );

        let text = "sops:\n  ageRecipients: [age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p]\n\
                    externalSecrets:\n  secretStoreRef: {kind: Vault, name: Bad_Name}\nclusters:\n  - name: east\n";
        let err = parse(text, "fleet.yaml").unwrap_err();
        let keys: Vec<&str> = err.0.iter().map(|p| p.key.as_str()).collect();
        for key in [
            "externalSecrets",
            "externalSecrets.secretStoreRef.kind",
            "externalSecrets.secretStoreRef.name",
        ] {
            assert!(keys.contains(&key), "{key} not named: {keys:?}");
        }
        let text = "externalSecrets:\n  keyPrefix: x\nclusters:\n  - name: east\n";
        let err = parse(text, "fleet.yaml").unwrap_err();
        assert!(
            err.0
                .iter()
                .any(|p| p.key == "externalSecrets.secretStoreRef"),
            "{:?}",
            err.0
        );
    }
}

//! The fleet as a Git tree: every file, as text, from a fleet and the
//! registrations `cf-runner fleet register` left. Pure and deterministic:
//! the same fleet file and registrations give byte-identical files.
//!
//! ```text
//! base/                     cf-runner's objects for the defaults (no Secret
//!                           with secret material) + kustomization.yaml
//! clusters/<cluster>/       kustomization.yaml: the base, JSON patches for
//!                           what differs in this cluster, objects only it has,
//!                           deletions of base objects it lacks, and its
//!                           encrypted Secrets (../../secrets/<cluster>/<ns>)
//! secrets/<cluster>/<ns>/   written by `fleet register`: SOPS files and
//!                           registration.yaml (names, no secret)
//! flux/                     a Flux Kustomization per cluster
//! argocd/                   an Argo CD Application per cluster
//! ```

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{Cluster, Fleet, Runtime};
use crate::render::{self, Identity, Manifest};

/// The Secrets that hold what registration made (the agent token, the dind
/// key and certificate): never in the tree in clear, only encrypted.
pub const REGISTERED_SECRETS: &[&str] = &[render::RUNNER_SECRET, render::DIND_CERTS_SECRET];
/// Registration's public file in `secrets/<cluster>/<ns>/`.
pub const REGISTRATION_FILE: &str = "registration.yaml";
/// The annotation Argo CD orders a sync by.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// The context name the base is rendered with; every cluster patches it.
const BASE_CONTEXT: &str = "fleet-base";

/// One file of the tree: its folder (relative, `/`-separated), name, text,
/// and whether it is private (0600).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub folder: String,
    pub name: String,
    pub text: String,
}

/// What registration recorded for a runtime (no secret). Read from the
/// tree it is a claim until its seal is checked ([`super::trust::verify`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registration {
    pub agent_name: String,
    pub runtime_name: String,
    pub account_id: Option<String>,
    /// Digest of the runtime spec last sent to the platform.
    pub spec_digest: String,
    /// Digest of the registered Secrets' shape (metadata and keys, no value).
    pub secrets_digest: String,
    /// The platform the agent and runtime environment were registered on
    /// (`None` in registrations an older cf-runner wrote).
    pub platform: Option<String>,
    /// cf-runner's seal over the rest (see [`super::trust`]); `None` when
    /// the file carries none.
    pub seal: Option<String>,
}

impl Registration {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut map = Map::new();
        map.insert("agentName".into(), json!(self.agent_name));
        map.insert("runtimeName".into(), json!(self.runtime_name));
        if let Some(a) = &self.account_id {
            map.insert("accountId".into(), json!(a));
        }
        map.insert("specDigest".into(), json!(self.spec_digest));
        map.insert("secretsDigest".into(), json!(self.secrets_digest));
        if let Some(p) = &self.platform {
            map.insert("platform".into(), json!(p));
        }
        if let Some(s) = &self.seal {
            map.insert("seal".into(), json!(s));
        }
        format!(
            "# What `cf-runner fleet register` registered for this runtime (no secret).\n{}",
            crate::export::to_yaml(&Value::Object(map))
        )
    }

    /// Reads the file's text.
    pub fn from_text(text: &str) -> Option<Registration> {
        let v = crate::render::yaml::parse(text).ok()?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Registration {
            agent_name: s("agentName")?,
            runtime_name: s("runtimeName")?,
            account_id: s("accountId"),
            spec_digest: s("specDigest").unwrap_or_default(),
            secrets_digest: s("secretsDigest").unwrap_or_default(),
            platform: s("platform"),
            seal: s("seal"),
        })
    }
}

/// The folder of a runtime's registration.
pub fn secrets_folder(cluster: &str, namespace: &str) -> String {
    format!("secrets/{cluster}/{namespace}")
}

/// The identity a runtime renders with once registered (placeholders for
/// the secrets: those objects are left out of the plain tree).
pub fn identity(cluster: &Cluster, reg: Option<&Registration>) -> Identity {
    Identity {
        context: Some(cluster.name.clone()),
        agent_name: reg.map(|r| r.agent_name.clone()),
        runtime_name: reg.map(|r| r.runtime_name.clone()),
        account_id: reg.and_then(|r| r.account_id.clone()),
        registered: reg.is_some(),
        ..Default::default()
    }
}

/// Renders one runtime.
pub fn render_runtime(
    runtime: &Runtime,
    identity: &Identity,
) -> Result<render::Rendered, render::RenderError> {
    render::render(
        &runtime.loaded.values,
        identity,
        &runtime.loaded.redacted_tree,
    )
}

fn is_registered_secret(m: &Manifest) -> bool {
    m.kind == "Secret" && REGISTERED_SECRETS.contains(&m.name.as_str())
}

/// Group and version of an apiVersion.
fn group_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

type Key = (String, String, Option<String>, String);

fn key_of(m: &Manifest) -> Key {
    (
        m.api_version.clone(),
        m.kind.clone(),
        m.namespace.clone(),
        m.name.clone(),
    )
}

fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// JSON Patch operations (RFC 6902) that turn `from` into `to`: maps
/// key by key, lists and scalars whole.
pub fn json_patch(from: &Value, to: &Value, path: &str, ops: &mut Vec<Value>) {
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys() {
                if !b.contains_key(k) {
                    ops.push(
                        json!({"op": "remove", "path": format!("{path}/{}", pointer_escape(k))}),
                    );
                }
            }
            for (k, v) in b {
                let p = format!("{path}/{}", pointer_escape(k));
                match a.get(k) {
                    None => ops.push(json!({"op": "add", "path": p, "value": v})),
                    Some(old) => json_patch(old, v, &p, ops),
                }
            }
        }
        (a, b) if a == b => {}
        (_, b) => ops.push(json!({"op": "replace", "path": path, "value": b})),
    }
}

fn kustomization(resources: &[String], patches: Vec<Value>) -> String {
    let mut k = Map::new();
    k.insert(
        "apiVersion".into(),
        json!("kustomize.config.k8s.io/v1beta1"),
    );
    k.insert("kind".into(), json!("Kustomization"));
    k.insert("resources".into(), json!(resources));
    if !patches.is_empty() {
        k.insert("patches".into(), Value::Array(patches));
    }
    crate::export::to_yaml(&Value::Object(k))
}

const HEADER: &str =
    "# Written by `cf-runner fleet export` from the fleet file: edit the fleet file, not this.\n";

fn file(folder: &str, name: &str, text: String) -> File {
    File {
        folder: folder.to_string(),
        name: name.to_string(),
        text: format!("{HEADER}{text}"),
    }
}

/// Why the tree could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("runtime {namespace} of cluster {cluster} is not registered yet")]
    NotRegistered { cluster: String, namespace: String },
    #[error(transparent)]
    Render(#[from] render::RenderError),
}

/// Every file of the tree except `secrets/` (which registration writes).
/// `registrations` maps (cluster, namespace) to what registration recorded.
pub fn files(
    fleet: &Fleet,
    registrations: &BTreeMap<(String, String), Registration>,
) -> Result<Vec<File>, TreeError> {
    let mut out = Vec::new();
    let base = render_base(fleet)?;
    let base_objects: Vec<&Manifest> = base
        .manifests
        .iter()
        .filter(|m| !is_registered_secret(m))
        .collect();
    let mut base_names = Vec::new();
    for m in &base_objects {
        let name = m.file_name();
        out.push(file("base", &name, crate::export::to_yaml(&m.object)));
        base_names.push(name);
    }
    out.push(file(
        "base",
        "kustomization.yaml",
        kustomization(&base_names, vec![]),
    ));

    let mut flux_names = Vec::new();
    let mut argo_names = Vec::new();
    for cluster in &fleet.clusters {
        let name = format!("{}.yaml", cluster.name);
        let namespaces = cluster_files(cluster, registrations, &base_objects, &mut out)?;
        out.push(file(
            "flux",
            &name,
            crate::export::to_yaml(&flux_kustomization(fleet, cluster, &namespaces)),
        ));
        flux_names.push(name.clone());
        out.push(file(
            "argocd",
            &name,
            crate::export::to_yaml(&argo_application(fleet, cluster, &namespaces)),
        ));
        argo_names.push(name);
    }
    out.push(file(
        "flux",
        "kustomization.yaml",
        kustomization(&flux_names, vec![]),
    ));
    out.push(file(
        "argocd",
        "kustomization.yaml",
        kustomization(&argo_names, vec![]),
    ));
    Ok(out)
}

/// The base: the defaults, rendered as a cluster with no values of its own.
fn render_base(fleet: &Fleet) -> Result<render::Rendered, TreeError> {
    let base_loaded = crate::values::load(&crate::values::Input {
        files: vec![crate::values::ValuesFile {
            origin: "the fleet file's defaults".into(),
            text: crate::export::to_yaml(&fleet.defaults),
        }],
        ..Default::default()
    })
    .map_err(|_| TreeError::NotRegistered {
        cluster: BASE_CONTEXT.into(),
        namespace: String::new(),
    })?;
    let base_id = Identity {
        context: Some(BASE_CONTEXT.into()),
        registered: true,
        ..Default::default()
    };
    Ok(render::render(
        &base_loaded.values,
        &base_id,
        &base_loaded.redacted_tree,
    )?)
}

/// The objects of one cluster's runtimes, each once, in the order first
/// rendered; with the secrets folder and the namespace of each runtime.
struct ClusterObjects {
    objects: BTreeMap<Key, Manifest>,
    order: Vec<Key>,
    secret_dirs: Vec<String>,
    namespaces: Vec<String>,
}

impl ClusterObjects {
    fn render(
        cluster: &Cluster,
        registrations: &BTreeMap<(String, String), Registration>,
    ) -> Result<Self, TreeError> {
        let mut all = ClusterObjects {
            objects: BTreeMap::new(),
            order: Vec::new(),
            secret_dirs: Vec::new(),
            namespaces: Vec::new(),
        };
        for runtime in &cluster.runtimes {
            let ns = runtime.namespace().to_string();
            let reg = registrations
                .get(&(cluster.name.clone(), ns.clone()))
                .ok_or_else(|| TreeError::NotRegistered {
                    cluster: cluster.name.clone(),
                    namespace: ns.clone(),
                })?;
            let rendered = render_runtime(runtime, &identity(cluster, Some(reg)))?;
            for m in rendered.manifests {
                if is_registered_secret(&m) {
                    continue;
                }
                let k = key_of(&m);
                if let std::collections::btree_map::Entry::Vacant(slot) =
                    all.objects.entry(k.clone())
                {
                    all.order.push(k);
                    slot.insert(m);
                }
            }
            all.secret_dirs
                .push(format!("../../{}", secrets_folder(&cluster.name, &ns)));
            all.namespaces.push(ns);
        }
        Ok(all)
    }
}

/// The files of `clusters/<name>/`: a patch for each base object this
/// cluster renders differently, a delete for each it does not have, its own
/// objects, and the kustomization that puts them over the base. Gives the
/// cluster's runtime namespaces.
fn cluster_files(
    cluster: &Cluster,
    registrations: &BTreeMap<(String, String), Registration>,
    base_objects: &[&Manifest],
    out: &mut Vec<File>,
) -> Result<Vec<String>, TreeError> {
    let folder = format!("clusters/{}", cluster.name);
    let mine = ClusterObjects::render(cluster, registrations)?;
    let mut resources = vec!["../../base".to_string()];
    let mut patches = Vec::new();
    for b in base_objects {
        if let Some(patch) = base_patch(b, &mine.objects, &folder, out) {
            patches.push(patch);
        }
    }
    for k in &mine.order {
        if base_objects.iter().any(|b| key_of(b) == *k) {
            continue;
        }
        let m = &mine.objects[k];
        let name = m.file_name();
        out.push(file(&folder, &name, crate::export::to_yaml(&m.object)));
        resources.push(name);
    }
    resources.extend(mine.secret_dirs);
    out.push(file(
        &folder,
        "kustomization.yaml",
        kustomization(&resources, patches),
    ));
    Ok(mine.namespaces)
}

/// How the cluster's kustomization changes one base object: a JSON patch
/// (its file written to `out`) when the cluster renders it otherwise, a
/// delete when the cluster does not have it, `None` when it is the same.
fn base_patch(
    b: &Manifest,
    objects: &BTreeMap<Key, Manifest>,
    folder: &str,
    out: &mut Vec<File>,
) -> Option<Value> {
    let (group, version) = group_version(&b.api_version);
    let mut target = Map::new();
    if !group.is_empty() {
        target.insert("group".into(), json!(group));
    }
    target.insert("version".into(), json!(version));
    target.insert("kind".into(), json!(b.kind));
    target.insert("name".into(), json!(b.name));
    if let Some(ns) = &b.namespace {
        target.insert("namespace".into(), json!(ns));
    }
    match objects.get(&key_of(b)) {
        Some(mine) => {
            let mut ops = Vec::new();
            json_patch(&b.object, &mine.object, "", &mut ops);
            if ops.is_empty() {
                return None;
            }
            let name = format!("patch-{}", b.file_name());
            out.push(file(
                folder,
                &name,
                crate::export::to_yaml(&Value::Array(ops)),
            ));
            Some(json!({"path": name, "target": target}))
        }
        None => {
            // Not in this cluster: deleted from the base here.
            let mut meta = Map::new();
            meta.insert("name".into(), json!(b.name));
            if let Some(ns) = &b.namespace {
                meta.insert("namespace".into(), json!(ns));
            }
            let doc = json!({"$patch": "delete", "apiVersion": b.api_version, "kind": b.kind, "metadata": meta});
            Some(json!({"patch": crate::export::to_yaml(&doc), "target": target}))
        }
    }
}

fn repo_path(fleet: &Fleet, rest: &str) -> String {
    if fleet.gitops.path == "." {
        format!("./{rest}")
    } else {
        format!("./{}/{rest}", fleet.gitops.path)
    }
}

/// The Flux `Kustomization` of a cluster: prune, wait, health checks on
/// each runner, SOPS decryption, and the cluster's kubeconfig when remote.
pub fn flux_kustomization(fleet: &Fleet, cluster: &Cluster, namespaces: &[String]) -> Value {
    let g = &fleet.gitops;
    let checks: Vec<Value> = namespaces
        .iter()
        .map(|ns| json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "runner", "namespace": ns}))
        .collect();
    let mut spec = Map::new();
    spec.insert("interval".into(), json!(g.interval));
    spec.insert("timeout".into(), json!(g.timeout));
    spec.insert(
        "path".into(),
        json!(repo_path(fleet, &format!("clusters/{}", cluster.name))),
    );
    spec.insert("prune".into(), json!(true));
    spec.insert("wait".into(), json!(true));
    spec.insert("healthChecks".into(), Value::Array(checks));
    spec.insert(
        "sourceRef".into(),
        json!({"kind": "GitRepository", "name": g.flux_source}),
    );
    if fleet.external_secrets.is_none() {
        spec.insert(
            "decryption".into(),
            json!({"provider": "sops", "secretRef": {"name": g.decryption_secret}}),
        );
    }
    if let Some(secret) = &cluster.kube_config_secret {
        spec.insert("kubeConfig".into(), json!({"secretRef": {"name": secret}}));
    }
    json!({
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": format!("cf-runner-{}", cluster.name), "namespace": g.flux_namespace,
                     "labels": {(render::LABEL_MANAGED_BY): "cf-runner", (render::LABEL_PART_OF): "codefresh-runner"}},
        "spec": spec,
    })
}

/// The Argo CD `Application` of a cluster: automated sync with prune, and
/// sync waves (namespace and storage, then RBAC/config, then workloads) in
/// place of hooks, set by patches in the Application so that the tree
/// Flux reads stays as it is.
pub fn argo_application(fleet: &Fleet, cluster: &Cluster, namespaces: &[String]) -> Value {
    let g = &fleet.gitops;
    let waves = [
        ("Namespace", 0),
        ("StorageClass", 0),
        ("ServiceAccount", 1),
        ("ClusterRole", 1),
        ("ClusterRoleBinding", 1),
        ("Role", 1),
        ("RoleBinding", 1),
        ("ConfigMap", 1),
        ("Secret", 1),
        ("Deployment", 2),
        ("DaemonSet", 2),
        ("CronJob", 2),
        ("Service", 2),
        ("Ingress", 2),
    ];
    // ExternalSecrets make the registered Secrets: in the Secrets' wave.
    let external = fleet
        .external_secrets
        .as_ref()
        .map(|_| ("ExternalSecret", 1));
    let patches: Vec<Value> = waves
        .iter()
        .chain(external.iter())
        .map(|(kind, wave)| {
            json!({"target": {"kind": kind},
                   "patch": format!(
                       "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: any\n  annotations:\n    {SYNC_WAVE}: \"{wave}\"\n"
                   )})
        })
        .collect();
    json!({
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": format!("cf-runner-{}", cluster.name),
            "namespace": g.argocd_namespace,
            "labels": {(render::LABEL_MANAGED_BY): "cf-runner", (render::LABEL_PART_OF): "codefresh-runner"},
            "finalizers": ["resources-finalizer.argocd.argoproj.io"],
        },
        "spec": {
            "project": g.argocd_project,
            "source": {
                "repoURL": g.repo_url,
                "targetRevision": g.target_revision,
                "path": repo_path(fleet, &format!("clusters/{}", cluster.name)).trim_start_matches("./"),
                "kustomize": {"patches": patches},
            },
            "destination": {"server": cluster.server, "namespace": namespaces.first().cloned().unwrap_or_default()},
            "syncPolicy": {
                "automated": {"prune": true, "selfHeal": true},
                "syncOptions": ["ServerSideApply=true"],
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(bravo: &str) -> (Fleet, BTreeMap<(String, String), Registration>) {
        let text = format!(
            "defaults:\n  Namespace: cf\nclusters:\n  - name: alpha\n  - name: bravo\n    values:\n{bravo}  - name: charlie\n    values:\n      Namespace: cf-c\n"
        );
        let fleet = crate::fleet::parse(&text, "fleet.yaml").unwrap();
        let mut regs = BTreeMap::new();
        for c in &fleet.clusters {
            let ns = c.runtimes[0].namespace().to_string();
            regs.insert(
                (c.name.clone(), ns.clone()),
                Registration {
                    agent_name: format!("{}_{ns}", c.name),
                    runtime_name: format!("{}/{ns}", c.name),
                    account_id: Some("acc".into()),
                    ..Default::default()
                },
            );
        }
        (fleet, regs)
    }

    #[test]
    fn the_same_fleet_gives_the_same_bytes_and_one_change_touches_one_cluster() {
        let (f1, r1) = fleet("      Namespace: cf\n");
        let first = files(&f1, &r1).unwrap();
        assert_eq!(first, files(&f1, &r1).unwrap(), "not deterministic");
        let (f2, r2) =
            fleet("      Namespace: cf\n      EnvVars:\n        HTTP_PROXY: http://proxy:3128\n");
        let second = files(&f2, &r2).unwrap();
        let changed: Vec<String> = second
            .iter()
            .filter(|f| !first.contains(f))
            .map(|f| format!("{}/{}", f.folder, f.name))
            .collect();
        assert!(!changed.is_empty());
        assert!(
            changed.iter().all(|p| p.starts_with("clusters/bravo/")),
            "{changed:?}"
        );
    }

    #[test]
    fn no_registered_secret_is_in_the_plain_tree() {
        let (f, r) = fleet("      Namespace: cf-b\n");
        for file in files(&f, &r).unwrap() {
            assert!(
                !file.text.contains("codefresh.token:") && !file.text.contains("server-key.pem:"),
                "{}/{} holds a registered secret",
                file.folder,
                file.name
            );
        }
    }

    #[test]
    fn a_json_patch_names_only_what_changed() {
        let a = json!({"spec": {"replicas": 1, "x/y": "a", "gone": 1}, "keep": [1, 2]});
        let b = json!({"spec": {"replicas": 2, "x/y": "a", "new": true}, "keep": [1, 2]});
        let mut ops = Vec::new();
        json_patch(&a, &b, "", &mut ops);
        assert_eq!(
            ops,
            vec![
                json!({"op": "remove", "path": "/spec/gone"}),
                json!({"op": "replace", "path": "/spec/replicas", "value": 2}),
                json!({"op": "add", "path": "/spec/new", "value": true}),
            ]
        );
    }
}

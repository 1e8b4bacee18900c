//! `Runtimes:`: the runtimes one agent serves besides its own, each in its
//! own namespace (and maybe its own cluster), as a runtimes file for
//! `runtime attach -f` or `init`'s values file lists them. Each entry may
//! give its runtime its own build-pod node selector and tolerations and its
//! own storage, with the keys and the validation of `init`'s values: the
//! entry's settings are validated by [`super::load`] itself, and each
//! problem names the key as the user wrote it (`Runtimes[1].NodeSelector`).
//!
//! Pure: no I/O.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Input, Problem, Storage, Toleration};

/// The keys of one runtime entry.
pub const ENTRY_KEYS: &[&str] = &[
    "Namespace",
    "Context",
    "Name",
    "KubeHost",
    "ConfigPath",
    "NodeSelector",
    "Tolerations",
    "StorageClass",
    "Storage",
];

/// A runtime's own settings; `None` keeps the agent's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeSettings {
    /// Node selector of the runtime's build (engine and dind) pods.
    pub node_selector: Option<BTreeMap<String, String>>,
    /// Tolerations of the runtime's build pods.
    pub tolerations: Option<Vec<Toleration>>,
    /// The runtime's own storage: its StorageClass (and, when cf-runner
    /// provisions it, the volume provisioner) in the runtime's namespace
    /// and cluster.
    pub storage: Option<Storage>,
}

impl RuntimeSettings {
    /// True when the entry sets nothing of its own.
    pub fn is_empty(&self) -> bool {
        self.node_selector.is_none() && self.tolerations.is_none() && self.storage.is_none()
    }
}

/// One runtime as a runtimes list names it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeEntry {
    pub namespace: Option<String>,
    pub context: Option<String>,
    pub name: Option<String>,
    pub kube_host: Option<String>,
    pub config_path: Option<String>,
    pub settings: RuntimeSettings,
    /// How problems name this entry's keys: `Runtimes[1].` for a file,
    /// `--set-value ` for the flags.
    pub origin: String,
}

/// Reads `Runtimes` (the list under that key of a values or runtimes
/// file). `None` (no such key) is no runtime.
pub fn read_list(list: Option<&Value>) -> Result<Vec<RuntimeEntry>, Vec<Problem>> {
    let list = match list {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(vec![Problem::new(
                "Runtimes",
                Some(other),
                "must be a list of runtimes",
                "write Runtimes:\n  - Namespace: builds\n    Context: my-cluster",
            )])
        }
    };
    let mut problems = Vec::new();
    let mut entries = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let origin = format!("Runtimes[{i}].");
        match item.as_object() {
            Some(_) => match read_entry(item, &origin, true) {
                Ok(e) => entries.push(e),
                Err(mut p) => problems.append(&mut p),
            },
            None => problems.push(Problem::new(
                &format!("Runtimes[{i}]"),
                Some(item),
                "must be a map",
                "write - Namespace: builds",
            )),
        }
    }
    if problems.is_empty() {
        Ok(entries)
    } else {
        Err(problems)
    }
}

/// Reads one runtime entry (a map of [`ENTRY_KEYS`]); `origin` prefixes
/// every key a problem names. `needs_namespace`: a list entry must name it.
pub fn read_entry(
    entry: &Value,
    origin: &str,
    needs_namespace: bool,
) -> Result<RuntimeEntry, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut out = RuntimeEntry {
        origin: origin.to_string(),
        ..RuntimeEntry::default()
    };
    let empty = serde_json::Map::new();
    let map = entry.as_object().unwrap_or(&empty);
    let mut settings = serde_json::Map::new();
    for (k, v) in map {
        let key = format!("{origin}{k}");
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "Namespace" | "Context" | "Name" | "KubeHost" | "ConfigPath" => {
                let Some(text) = v.as_str().filter(|s| !s.is_empty()) else {
                    problems.push(Problem::new(
                        &key,
                        Some(v),
                        "must be a non-empty text",
                        "quote it",
                    ));
                    continue;
                };
                let text = Some(text.to_string());
                match k.as_str() {
                    "Namespace" => out.namespace = text,
                    "Context" => out.context = text,
                    "Name" => out.name = text,
                    "KubeHost" => out.kube_host = text,
                    _ => out.config_path = text,
                }
            }
            "NodeSelector" | "Tolerations" | "StorageClass" | "Storage" => {
                settings.insert(k.clone(), v.clone());
            }
            _ => problems.push(unknown_entry_key(&key, k)),
        }
    }
    if needs_namespace && out.namespace.is_none() {
        problems.push(Problem::new(
            &format!("{origin}Namespace"),
            None,
            "is missing",
            "name the namespace the runtime's builds run in",
        ));
    }
    if let Some(host) = &out.kube_host {
        if crate::text::has_url_credentials(host) {
            problems.push(Problem::new(
                &format!("{origin}KubeHost"),
                Some(&Value::String(host.clone())),
                "carries credentials in the URL: they would be written in plain text",
                "remove `user:password@`; the agent authenticates with the token cf-runner issues",
            ));
        }
    }
    match settings_of(&settings, out.namespace.as_deref(), origin) {
        Ok(s) => out.settings = s,
        Err(mut p) => problems.append(&mut p),
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// A key no runtime entry has, with the one meant when it is close to one.
fn unknown_entry_key(key: &str, k: &str) -> Problem {
    let close = ENTRY_KEYS
        .iter()
        .find(|c| strsim::jaro_winkler(&c.to_ascii_lowercase(), &k.to_ascii_lowercase()) > 0.85);
    let fix = match close {
        Some(c) => format!("did you mean `{c}`? (keys are case-sensitive)"),
        None => format!("use {}", ENTRY_KEYS.join(", ")),
    };
    Problem::new(key, None, "is not a key of a runtime", fix)
}

/// Validates an entry's own settings as `init`'s values: `NodeSelector`
/// and `Tolerations` are those of the runtime's build pods
/// (`Runtime.NodeSelector`, `Runtime.tolerations`) and the default of its
/// volume provisioner (`NodeSelector`, `Tolerations`); `Storage` and
/// `StorageClass` are `init`'s, for the runtime's namespace.
fn settings_of(
    given: &serde_json::Map<String, Value>,
    namespace: Option<&str>,
    origin: &str,
) -> Result<RuntimeSettings, Vec<Problem>> {
    if given.is_empty() {
        return Ok(RuntimeSettings::default());
    }
    let mut problems = Vec::new();
    // A runtime's storage credentials would land in the record in plain
    // text: they come from a Secret of the user's (`...SecretKeyRef`).
    if let Some(storage) = given.get("Storage").and_then(Value::as_object) {
        for k in storage.keys() {
            let path = format!("Storage.{k}");
            if super::secrets::is_secret_key(&path) {
                problems.push(Problem::new(
                    &format!("{origin}{path}"),
                    None,
                    "is a credential, which a runtime entry does not take inline",
                    format!("put it in a Secret of the runtime's namespace and name it with {origin}{path}SecretKeyRef (Name, Key)"),
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut overrides = vec![(
        "Namespace".to_string(),
        Value::String(namespace.unwrap_or("default").to_string()),
    )];
    if let Some(v) = given.get("NodeSelector") {
        overrides.push(("Runtime.NodeSelector".into(), v.clone()));
        overrides.push(("NodeSelector".into(), v.clone()));
    }
    if let Some(v) = given.get("Tolerations") {
        overrides.push(("Runtime.tolerations".into(), v.clone()));
        overrides.push(("Tolerations".into(), v.clone()));
    }
    for key in ["Storage", "StorageClass"] {
        if let Some(v) = given.get(key) {
            overrides.push((key.into(), v.clone()));
        }
    }
    let loaded = super::load(&Input {
        overrides,
        ..Input::default()
    });
    match loaded {
        Ok(l) => Ok(RuntimeSettings {
            node_selector: given
                .contains_key("NodeSelector")
                .then(|| l.values.runtime.scheduling.node_selector.clone()),
            tolerations: given
                .contains_key("Tolerations")
                .then(|| l.values.runtime.scheduling.tolerations.clone()),
            storage: (given.contains_key("Storage") || given.contains_key("StorageClass"))
                .then(|| l.values.storage.clone()),
        }),
        Err(found) => {
            let mut seen = std::collections::HashSet::new();
            Err(found
                .0
                .into_iter()
                .map(|mut p| {
                    p.key = entry_key(&p.key, origin);
                    p
                })
                .filter(|p| seen.insert((p.key.clone(), p.why.clone())))
                .collect())
        }
    }
}

/// The key of an entry that an `init` key of its settings came from.
fn entry_key(key: &str, origin: &str) -> String {
    for (from, to) in [
        ("Runtime.NodeSelector", "NodeSelector"),
        ("Runtime.tolerations", "Tolerations"),
    ] {
        if let Some(rest) = key.strip_prefix(from) {
            return format!("{origin}{to}{rest}");
        }
    }
    format!("{origin}{key}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(p: Vec<Problem>) -> Vec<String> {
        p.into_iter().map(|p| p.key).collect()
    }

    #[test]
    fn each_runtime_has_its_own_scheduling_and_storage() {
        let list = json!([
            {"Namespace": "a", "NodeSelector": "zone=eu-1a",
             "Tolerations": [{"key": "builds", "operator": "Exists", "effect": "NoSchedule"}]},
            {"Namespace": "b", "Context": "other", "Storage": {"Backend": "local"}},
            {"Namespace": "c"},
        ]);
        let e = read_list(Some(&list)).unwrap();
        assert_eq!(
            e[0].settings.node_selector,
            Some(BTreeMap::from([("zone".into(), "eu-1a".into())]))
        );
        assert_eq!(e[0].settings.tolerations.as_ref().unwrap().len(), 1);
        assert!(e[0].settings.storage.is_none());
        let storage = e[1].settings.storage.as_ref().unwrap();
        assert_eq!(storage.class_name, "dind-local-volumes-runner-b");
        assert!(storage.provisioned);
        assert!(e[2].settings.is_empty());
    }

    #[test]
    fn a_problem_names_the_key_of_the_entry_as_written() {
        let list = json!([
            {"Namespace": "a"},
            {"Namespace": "b", "NodeSelector": ["x"], "Tolerations": "no",
             "Storage": {"Backend": "ebs", "Colour": 1}, "Colr": 2},
        ]);
        let mut k = keys(read_list(Some(&list)).unwrap_err());
        k.sort();
        assert_eq!(
            k,
            [
                "Runtimes[1].Colr",
                "Runtimes[1].NodeSelector",
                "Runtimes[1].Storage.AvailabilityZone",
                "Runtimes[1].Storage.Colour",
                "Runtimes[1].Tolerations",
            ]
        );
    }

    #[test]
    fn a_runtime_takes_no_inline_credential() {
        let list = json!([{"Namespace": "a",
            "Storage": {"Backend": "ebs", "AvailabilityZone": "eu-1a", "AwsSecretAccessKey": "s3cr3t"}}]);
        let p = read_list(Some(&list)).unwrap_err();
        assert_eq!(keys(p.clone()), ["Runtimes[0].Storage.AwsSecretAccessKey"]);
        assert!(!format!("{p:?}").contains("s3cr3t"));
    }

    #[test]
    fn no_runtimes_key_is_no_runtime() {
        assert_eq!(read_list(None).unwrap(), Vec::new());
        assert_eq!(
            keys(read_list(Some(&json!("x"))).unwrap_err()),
            ["Runtimes"]
        );
    }
}

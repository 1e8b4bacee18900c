//! What the `fleet` commands take from the tree as fact, and how they tell.
//!
//! The tree lives in a Git repository that people with fewer rights than
//! the fleet's admin can write to. A `registration.yaml` there names the
//! agent and runtime environment that `retire` deletes and `register`
//! sends specs to, so a file cf-runner did not write could steer those
//! calls at another team's objects. cf-runner therefore seals every
//! registration it writes with an HMAC under a key kept outside the tree
//! (by default in the user's config folder), binding the names to the
//! cluster and namespace of the folder. A registration without a valid seal
//! is a claim: it is refused, or (with the user's explicit word) checked
//! against the platform first.
//!
//! The same module finds the Git work trees a path lies in (material in
//! clear must stay out of the export's), and reads the age recipients a
//! SOPS file is encrypted to (public, no key needed).

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::tree::Registration;
use super::{Cluster, Fleet};
use crate::values::Problem;

/// The environment variable naming the registration key file.
pub const KEY_ENV: &str = "CF_RUNNER_FLEET_KEY_FILE";
/// The flag naming the registration key file.
pub const KEY_FLAG: &str = "--registration-key-file";
/// The flag that accepts registrations without a valid seal.
pub const ACCEPT_FLAG: &str = "--accept-unsigned-registrations";
/// What starts a seal in `registration.yaml`.
const SEAL_PREFIX: &str = "hmac-sha256:";
/// What the sealed text starts with: a seal of another kind of text never
/// matches one of a registration.
const SEAL_DOMAIN: &str = "cf-runner fleet registration v1";

/// The key registrations are sealed with (32 random bytes).
#[derive(Clone)]
pub struct SealKey(Vec<u8>);

impl std::fmt::Debug for SealKey {
    // Never the bytes: the key is as good as the right to retire.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(…)")
    }
}

/// The key file when neither the flag nor [`KEY_ENV`] names one:
/// `$XDG_CONFIG_HOME/cf-runner/fleet-registration.key`, else under
/// `~/.config`.
pub fn default_key_path() -> PathBuf {
    let config = crate::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::env::home().map(|h| h.join(".config")))
        .unwrap_or_else(|| PathBuf::from(".config"));
    config.join("cf-runner").join("fleet-registration.key")
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    let hex = text.trim();
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

/// Reads the key at `path`: `Ok(None)` when there is no file.
pub fn read_key(path: &Path) -> Result<Option<SealKey>, String> {
    match crate::input_file::read_regular_text_if_exists(path, 1024) {
        Ok(None) => Ok(None),
        Ok(Some(text)) => text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .and_then(from_hex)
            .map(|k| Some(SealKey(k)))
            .ok_or_else(|| "holds no key (64 hex digits) as cf-runner writes it".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// A new random key (not yet written).
pub fn new_key() -> Result<SealKey, String> {
    let mut key = vec![0u8; 32];
    aws_lc_rs::rand::fill(&mut key).map_err(|_| "no random bytes from the system".to_string())?;
    Ok(SealKey(key))
}

/// Writes `key` to `path` (0600, its folder 0700 when made), never over a
/// file that is there.
pub fn write_key(path: &Path, key: &SealKey) -> Result<(), String> {
    use std::io::Write;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(|e| e.to_string())?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let hex: String = key.0.iter().map(|b| format!("{b:02x}")).collect();
    let text = format!(
        "# cf-runner's key for sealing fleet registrations: share it only with who may retire the fleet's runners\n{hex}\n"
    );
    let mut file = options.open(path).map_err(|e| e.to_string())?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| e.to_string())
}

/// The text a seal covers: every field of the registration, and the
/// cluster and namespace of the folder it is in (a registration copied to
/// another folder no longer matches).
fn sealed_text(cluster: &str, namespace: &str, reg: &Registration) -> String {
    let opt = |o: &Option<String>| o.clone().unwrap_or_default();
    [
        SEAL_DOMAIN,
        cluster,
        namespace,
        &reg.agent_name,
        &reg.runtime_name,
        &opt(&reg.account_id),
        &opt(&reg.platform),
        &reg.spec_digest,
        &reg.secrets_digest,
    ]
    .iter()
    // Length-prefixed: no field can run into the next.
    .map(|f| format!("{}:{f}\n", f.len()))
    .collect()
}

/// The seal of `reg` in the folder of `cluster`/`namespace`.
pub fn seal(key: &SealKey, cluster: &str, namespace: &str, reg: &Registration) -> String {
    let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &key.0);
    let tag = aws_lc_rs::hmac::sign(&k, sealed_text(cluster, namespace, reg).as_bytes());
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("{SEAL_PREFIX}{hex}")
}

/// True when `reg` carries a seal of `key` for this folder (compared in
/// constant time).
pub fn verify(key: &SealKey, cluster: &str, namespace: &str, reg: &Registration) -> bool {
    let Some(tag) = reg
        .seal
        .as_deref()
        .and_then(|s| s.strip_prefix(SEAL_PREFIX))
        .and_then(from_hex)
    else {
        return false;
    };
    let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &key.0);
    aws_lc_rs::hmac::verify(&k, sealed_text(cluster, namespace, reg).as_bytes(), &tag).is_ok()
}

/// `path` made absolute with its symbolic links resolved, component by
/// component, whether or not the rest exists (a link to a folder not yet
/// made still counts where it points); `..` applies to the resolved path.
pub fn resolved(path: &Path) -> PathBuf {
    resolve_links(path, 0)
}

/// How many links deep [`resolved`] follows (a loop ends there).
const MAX_LINKS: usize = 40;

fn resolve_links(path: &Path, depth: usize) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if depth < MAX_LINKS {
                    if let Ok(target) = std::fs::read_link(&out) {
                        let base = out.parent().map(Path::to_path_buf).unwrap_or_default();
                        out = resolve_links(&base.join(target), depth + 1);
                    }
                }
            }
        }
    }
    out
}

/// Every Git work tree `path` lies in, innermost first: the folders above
/// it (itself included, links resolved) that hold a `.git` folder or file
/// (a submodule's or a linked work tree's `.git` is a file).
pub fn git_work_trees(path: &Path) -> Vec<PathBuf> {
    resolved(path)
        .ancestors()
        .filter(|a| a.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf)
        .collect()
}

/// The age recipients a SOPS file is encrypted to (its `sops.age` list),
/// sorted, one per entry: a recipient named twice shows twice (an entry
/// relabelled to hide another key must not pass for the fleet's list).
pub fn recipients(file: &Value) -> Vec<String> {
    let mut out: Vec<String> = file
        .pointer("/sops/age")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            e.get("recipient")
                .and_then(Value::as_str)
                .unwrap_or("(an entry without a recipient)")
                .trim()
                .to_string()
        })
        .collect();
    out.sort();
    out
}

/// The refusal of a registration without a valid seal, at `file`.
/// `key_path` is the key looked for, `key_there` whether it exists.
pub fn unsealed_problem(file: &Path, key_path: &Path, key_there: bool) -> Problem {
    let why = if key_there {
        format!(
            "is not sealed with the registration key {}: cf-runner did not write it (it was added or changed in Git, \
             or copied from another fleet), or wrote it with another key; the agent and runtime environment it names \
             may be another team's",
            key_path.display()
        )
    } else {
        format!(
            "cannot be checked: there is no registration key at {}, so nothing shows that cf-runner wrote it; \
             the agent and runtime environment it names may be another team's",
            key_path.display()
        )
    };
    Problem::new(
        &file.display().to_string(),
        None,
        why,
        format!(
            "pass {KEY_FLAG} (or set {KEY_ENV}) with the key the fleet was registered with; if an older cf-runner \
             wrote the file, check the names in it and re-run with {ACCEPT_FLAG} (risky: anyone who can write to the \
             repository can then name another team's agent; cf-runner checks each against the platform first and \
             `fleet register` seals it); otherwise remove the file from the repository"
        ),
    )
}

/// The key of the fleet file that sets cluster `cluster`'s `CodefreshHost`,
/// as problems of the fleet name it.
fn host_key(fleet: &Fleet, cluster: &Cluster, host: &str) -> String {
    let in_defaults = fleet
        .defaults
        .get("CodefreshHost")
        .and_then(Value::as_str)
        .map(|h| h.trim().trim_end_matches('/'));
    match in_defaults {
        Some(d) if d == host => "defaults.CodefreshHost".into(),
        None if host == crate::values::DEFAULT_CODEFRESH_HOST => "defaults.CodefreshHost".into(),
        _ => format!("clusters[{}].CodefreshHost", cluster.name),
    }
}

/// The runtimes of `fleet` whose `CodefreshHost` is not `platform`, the
/// platform the agent tokens are (or were) minted on; `origin` says where
/// that platform was read. `only`, when given, limits the check to the
/// (cluster, namespace) pairs it accepts. One problem per key.
pub fn host_problems(
    fleet: &Fleet,
    platform: &str,
    origin: &str,
    only: &dyn Fn(&str, &str) -> bool,
) -> Vec<Problem> {
    let mut out: Vec<Problem> = Vec::new();
    for cluster in &fleet.clusters {
        for runtime in &cluster.runtimes {
            let host = runtime.loaded.values.codefresh_host.as_str();
            if !only(&cluster.name, runtime.namespace())
                || crate::platform::auth::same_platform(host, platform)
            {
                continue;
            }
            let key = host_key(fleet, cluster, host);
            if out.iter().any(|p| p.key == key) {
                continue;
            }
            let shown = if fleet.defaults.get("CodefreshHost").is_none()
                && key == "defaults.CodefreshHost"
            {
                format!("{host} (the default: the key is not set)")
            } else {
                host.to_string()
            };
            out.push(Problem::new(
                &key,
                Some(&Value::String(shown)),
                format!(
                    "is not the platform the agent tokens are minted on ({origin}: {platform}): the exported runners \
                     would take their tokens to {host}, a host that did not issue them"
                ),
                format!(
                    "set {key} to {platform} in the fleet file (as `init --url` would), or register the fleet with a \
                     token for {host} (`--url {host}`)"
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> Registration {
        Registration {
            agent_name: "east_cf".into(),
            runtime_name: "east/cf".into(),
            account_id: Some("acc".into()),
            platform: Some("https://g.codefresh.io".into()),
            spec_digest: "s".into(),
            secrets_digest: "d".into(),
            seal: None,
        }
    }

    #[test]
    fn a_seal_binds_every_field_the_folder_and_the_key() {
        let key = new_key().unwrap();
        let mut r = reg();
        r.seal = Some(seal(&key, "east", "cf", &r));
        assert!(verify(&key, "east", "cf", &r));
        let mut cases = 0;
        for (c, ns) in [("west", "cf"), ("east", "cf2"), ("eas", "tcf")] {
            cases += 1;
            assert!(!verify(&key, c, ns, &r), "{c}/{ns}");
        }
        let edits: [fn(&mut Registration); 6] = [
            |r| r.agent_name = "other_cf".into(),
            |r| r.runtime_name = "other/cf".into(),
            |r| r.account_id = None,
            |r| r.platform = Some("https://evil.example".into()),
            |r| r.spec_digest.push('x'),
            |r| r.secrets_digest.clear(),
        ];
        for edit in edits {
            cases += 1;
            let mut changed = r.clone();
            edit(&mut changed);
            assert!(!verify(&key, "east", "cf", &changed));
        }
        cases += 1;
        assert!(!verify(&new_key().unwrap(), "east", "cf", &r));
        cases += 1;
        let mut unsealed = r.clone();
        unsealed.seal = None;
        assert!(!verify(&key, "east", "cf", &unsealed));
        assert_eq!(cases, 11);
    }

    #[test]
    fn recipients_are_read_one_per_entry() {
        let file = serde_json::json!({"sops": {"age": [
            {"recipient": "age1b", "enc": "x"},
            {"recipient": "age1a", "enc": "y"},
            {"recipient": "age1a", "enc": "z"},
            {"enc": "w"},
        ]}});
        assert_eq!(
            recipients(&file),
            vec!["(an entry without a recipient)", "age1a", "age1a", "age1b"]
        );
        assert!(recipients(&serde_json::json!({"kind": "Secret"})).is_empty());
    }

    #[test]
    fn a_key_round_trips_through_its_file_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("k");
        assert!(read_key(&path).unwrap().is_none());
        let key = new_key().unwrap();
        write_key(&path, &key).unwrap();
        assert_eq!(read_key(&path).unwrap().unwrap().0, key.0);
        assert!(write_key(&path, &key).is_err(), "never over a file");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(&path, "nonsense\n").unwrap();
        assert!(read_key(&path).is_err());
    }

    #[test]
    fn links_are_resolved_before_work_trees_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        std::fs::write(
            repo.join("sub").join(".git"),
            "gitdir: ../.git/modules/sub\n",
        )
        .unwrap();
        let real = resolved(&repo);
        assert_eq!(
            git_work_trees(&repo.join("sub/x/y")),
            vec![real.join("sub"), real.clone()]
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(repo.join("sub"), &link).unwrap();
            assert_eq!(git_work_trees(&link.join("new"))[1], real);
            assert_eq!(resolved(&link.join("a/../b")), real.join("sub/b"));
        }
        assert!(git_work_trees(dir.path())
            .iter()
            .all(|r| !r.starts_with(&real)));
    }
}

//! What the fleet commands share: reading the fleet file and the tree's
//! registrations (sealed, or accepted by the user and checked against the
//! platform), the platform client made once, and small helpers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::app::fleet::options::{FleetFiles, FleetRegisterOptions, RegistrationTrust};
use crate::app::identity::register;
use crate::app::session::outcome::Outcome;
use crate::export;
use crate::fleet::tree::{self, Registration, REGISTERED_SECRETS, REGISTRATION_FILE};
use crate::fleet::trust::{self, SealKey};
use crate::fleet::{self, external, Fleet};
use crate::output;
use crate::platform::{Need, Platform};
use crate::render;
use crate::values::{Problem, Problems};

/// The largest fleet file read.
pub(crate) const FLEET_FILE_LIMIT: u64 = 4 << 20;

pub(crate) fn bad(key: &str, why: impl Into<String>, fix: impl Into<String>) -> Outcome {
    Outcome::BadInput(Problems(vec![Problem::new(key, None, why, fix)]))
}

pub(crate) fn load(files: &FleetFiles) -> Result<Fleet, Outcome> {
    let text = crate::input_file::read_text(&files.fleet, FLEET_FILE_LIMIT).map_err(|e| {
        bad(
            fleet::FLEET_FLAG,
            format!("could not read {}: {e}", files.fleet.display()),
            "name a readable fleet file",
        )
    })?;
    fleet::parse(&text, &files.fleet.display().to_string()).map_err(Outcome::BadInput)
}

pub(crate) fn export_failed(e: export::ExportError) -> Outcome {
    let fix = e.fix();
    if e.is_refusal() {
        return bad("--output-dir", e.to_string(), fix);
    }
    Outcome::Failed(anyhow::Error::new(e), Some(fix))
}

/// Marks the tree's root as cf-runner's (an empty record), so that its
/// sub-folders are not taken for a user's files.
pub(crate) fn claim_root(dir: &Path, overwrite: bool) -> Result<(), Outcome> {
    export::write_files(dir, &[], overwrite)
        .map(|_| ())
        .map_err(export_failed)
}

pub(crate) fn read(path: &Path) -> Option<String> {
    crate::input_file::read_text(path, 16 << 20).ok()
}

/// A (cluster, namespace) pair: the folder of a registration.
pub(crate) type At = (String, String);

/// The registrations found under `secrets/<cluster>/<namespace>/`, sorted
/// by what cf-runner can tell of them.
#[derive(Default)]
pub(crate) struct Found {
    /// Sealed with the user's key for their folder: cf-runner's own.
    pub(crate) sealed: BTreeMap<At, Registration>,
    /// Without a valid seal: claims, which only the user's explicit word
    /// ([`trust::ACCEPT_FLAG`]) lets cf-runner check and use.
    pub(crate) unsealed: BTreeMap<At, Registration>,
}

impl Found {
    /// The registrations a command may use: the sealed ones, and the
    /// unsealed ones when the user accepted them.
    pub(crate) fn usable(&self, ring: &Keyring) -> BTreeMap<At, Registration> {
        let mut out = self.sealed.clone();
        if ring.accept {
            out.extend(self.unsealed.clone());
        }
        out
    }

    /// The refusals of the unsealed registrations `wanted` picks, unless
    /// the user accepted them.
    pub(crate) fn refusals(
        &self,
        dir: &Path,
        ring: &Keyring,
        wanted: &dyn Fn(&At) -> bool,
    ) -> Vec<Problem> {
        if ring.accept {
            return Vec::new();
        }
        self.unsealed
            .keys()
            .filter(|at| wanted(at))
            .map(|(c, ns)| {
                trust::unsealed_problem(
                    &dir.join(tree::secrets_folder(c, ns))
                        .join(REGISTRATION_FILE),
                    &ring.path,
                    ring.key.is_some(),
                )
            })
            .collect()
    }
}

/// Registrations found under `secrets/<cluster>/<namespace>/`; a file that
/// is not a registration is left out (nothing is done with it).
pub(crate) fn registrations(dir: &Path, key: Option<&SealKey>) -> Found {
    let mut out = Found::default();
    let Ok(clusters) = std::fs::read_dir(dir.join("secrets")) else {
        return out;
    };
    for c in clusters.flatten() {
        let Ok(runtimes) = std::fs::read_dir(c.path()) else {
            continue;
        };
        for r in runtimes.flatten() {
            let Some(reg) = read(&r.path().join(REGISTRATION_FILE))
                .as_deref()
                .and_then(Registration::from_text)
            else {
                continue;
            };
            let at = (
                c.file_name().to_string_lossy().into_owned(),
                r.file_name().to_string_lossy().into_owned(),
            );
            if key.is_some_and(|k| trust::verify(k, &at.0, &at.1, &reg)) {
                out.sealed.insert(at, reg);
            } else {
                out.unsealed.insert(at, reg);
            }
        }
    }
    out
}

/// The registration key, where it is looked for, and whether registrations
/// without its seal are accepted.
pub(crate) struct Keyring {
    pub(crate) path: PathBuf,
    pub(crate) key: Option<SealKey>,
    pub(crate) accept: bool,
}

/// Reads the registration key the flags name (none there is no error:
/// `register` makes one, the others refuse what they cannot check).
pub(crate) fn keyring(args: &RegistrationTrust, tree: &Path) -> Result<Keyring, Outcome> {
    let path = args
        .registration_key_file
        .clone()
        .unwrap_or_else(trust::default_key_path);
    // A key anyone who reads the repository can read seals nothing.
    let trees = trust::git_work_trees(tree);
    if let Some(root) = trust::git_work_trees(&path)
        .into_iter()
        .find(|r| trees.contains(r))
    {
        return Err(bad(
            trust::KEY_FLAG,
            format!(
                "{} is inside the Git work tree {} that also holds the tree: whoever can read the repository \
                 could seal a registration with it",
                path.display(),
                root.display()
            ),
            "keep the key outside every Git work tree (the default is ~/.config/cf-runner/fleet-registration.key)",
        ));
    }
    let key = trust::read_key(&path).map_err(|why| {
        bad(
            trust::KEY_FLAG,
            format!("{}: {why}", path.display()),
            format!(
                "name the key file `cf-runner fleet register` made (or set {})",
                trust::KEY_ENV
            ),
        )
    })?;
    Ok(Keyring {
        path,
        key,
        accept: args.accept_unsigned_registrations,
    })
}

/// `problems` as the outcome, or nothing when there are none.
pub(crate) fn refuse(problems: Vec<Problem>) -> Result<(), Outcome> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Outcome::BadInput(Problems(problems)))
    }
}

/// The outcome of a run that stopped after it had changed the platform or
/// the tree (`done` says what): bad input then becomes a failure that says
/// what was done, never "nothing was applied or written".
pub(crate) fn honest(outcome: Outcome, done: &[String]) -> Outcome {
    match outcome {
        Outcome::BadInput(Problems(problems)) if !done.is_empty() => {
            let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            Outcome::Failed(
                anyhow::anyhow!(
                    "{}\nbefore it stopped, this run did: {}",
                    list.join("\n"),
                    done.join("; ")
                ),
                Some(
                    "fix what is named above and re-run; what this run did stays done (an agent it created without \
                     writing its registration must first be removed in Codefresh: Account settings → Runners)"
                        .into(),
                ),
            )
        }
        other => other,
    }
}

pub(crate) fn sha256_hex(text: &str) -> String {
    let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The registered Secrets' shape: metadata and keys, every value blanked.
pub(crate) fn secrets_shape(manifests: &[render::Manifest]) -> String {
    let mut shapes = Vec::new();
    for m in manifests {
        if m.kind == "Secret" && REGISTERED_SECRETS.contains(&m.name.as_str()) {
            let mut o = m.object.clone();
            for field in ["data", "stringData"] {
                if let Some(map) = o.get_mut(field).and_then(Value::as_object_mut) {
                    for v in map.values_mut() {
                        *v = json!("");
                    }
                }
            }
            shapes.push(o);
        }
    }
    sha256_hex(&Value::Array(shapes).to_string())
}

/// One run's context: the platform, once (the token checked the first
/// time it is needed), the key registrations are sealed with, and what the
/// run changed so far (on the platform or in the tree).
pub(crate) struct Lazy<'a> {
    pub(crate) args: &'a FleetRegisterOptions,
    pub(crate) client: Option<(Platform, Option<String>)>,
    pub(crate) key: SealKey,
    pub(crate) done: Vec<String>,
}

impl Lazy<'_> {
    pub(crate) async fn get(&mut self) -> Result<&(Platform, Option<String>), Outcome> {
        if self.client.is_none() {
            self.client = Some(connect(self.args, "fleet register").await?);
        }
        Ok(self.client.as_ref().expect("set above"))
    }

    /// Notes a change this run made.
    pub(crate) fn did(&mut self, what: String) {
        self.done.push(what);
    }
}

/// A client of the platform the flags name, its token checked, and the
/// account the token is for.
pub(crate) async fn connect(
    args: &FleetRegisterOptions,
    command: &str,
) -> Result<(Platform, Option<String>), Outcome> {
    let auth = match register::resolve(&args.platform, None) {
        Ok(Some(a)) => a,
        Ok(None) => {
            let why = if command == "fleet retire" {
                "retire the fleet's runtimes"
            } else {
                "register the fleet's runtimes"
            };
            return Err(register::token_needed(command, why, ""));
        }
        Err(e) => return Err(Outcome::from_platform(e, "finding the Codefresh API token")),
    };
    let (platform, who) = register::checked_client(
        &auth,
        register::transport(&args.platform),
        Some(&[Need::Agents, Need::RuntimeEnvironments][..]),
    )
    .await?;
    output::done(&format!(
        "Codefresh platform {}: token from {}",
        platform.url(),
        auth.source
    ));
    Ok((platform, who.account_id))
}

pub(crate) fn failed(why: String, fix: &str) -> Outcome {
    Outcome::Failed(anyhow::anyhow!(why), Some(fix.to_string()))
}

/// The URL of the platform the token is for, when there is a token: read
/// from the flags, `CF_API_KEY` and the cfconfig, without a call.
pub(crate) fn token_platform(args: &FleetRegisterOptions) -> Option<String> {
    register::resolve(&args.platform, None)
        .ok()
        .flatten()
        .map(|a| a.url.trim_end_matches('/').to_string())
}

/// A registration found in the tree for the runtime being registered.
#[derive(Clone, Copy)]
pub(crate) struct Earlier<'a> {
    pub(crate) reg: &'a Registration,
    /// False for one the user accepted without a seal: it is checked on
    /// the platform, then sealed.
    pub(crate) sealed: bool,
}

/// The file of the tree that carries the registered Secret `secret`.
pub(crate) fn secret_file(fleet: &Fleet, secret: &str) -> String {
    match &fleet.external_secrets {
        Some(_) => external::file_name(secret),
        None => format!("{secret}.sops.yaml"),
    }
}

/// Why runtime environment `re` is not for cluster `at.0`, namespace
/// `at.1`, as the platform shows it; `None` when it is.
pub(crate) fn elsewhere(re: &Value, at: (&str, &str)) -> Option<String> {
    let text = |p: &str| re.pointer(p).and_then(Value::as_str).unwrap_or("(none)");
    let (cluster, ns) = (
        text("/runtimeScheduler/cluster/clusterProvider/selector"),
        text("/runtimeScheduler/cluster/namespace"),
    );
    (cluster != at.0 || ns != at.1)
        .then(|| format!("runs its builds in namespace {ns} of cluster {cluster}"))
}

/// The platform's word on a registration found in the tree, for the
/// runtime of cluster `at.0`, namespace `at.1`: its runtime environment (if
/// still there) runs its builds there, in the token's account, and its
/// agent (if still there) serves nothing else. Reads only. Gives the
/// agents to delete and whether the runtime environment is there.
pub(crate) async fn claim_holds(
    platform: &Platform,
    account: Option<&str>,
    at: (&str, &str),
    reg: &Registration,
) -> Result<(Vec<crate::platform::Agent>, bool), String> {
    let runtime = platform
        .runtime(&reg.runtime_name)
        .await
        .map_err(|e| format!("could not be checked on the platform: {e}"))?;
    if let Some(re) = &runtime {
        if let Some(why) = elsewhere(re, at) {
            return Err(format!(
                "names runtime environment {}, which {why}",
                reg.runtime_name
            ));
        }
        let theirs = register::account_of_runtime(re);
        if let (Some(theirs), Some(ours)) = (theirs.as_deref(), account) {
            if theirs != ours {
                return Err(format!(
                    "names runtime environment {}, which belongs to another account than the token's",
                    reg.runtime_name
                ));
            }
        }
    }
    let agents = platform
        .agents_named(&reg.agent_name)
        .await
        .map_err(|e| format!("could not be checked on the platform: {e}"))?;
    for a in &agents {
        let others: Vec<&str> = a
            .runtimes
            .iter()
            .map(String::as_str)
            .filter(|r| *r != reg.runtime_name)
            .collect();
        if !others.is_empty() {
            return Err(format!(
                "names agent {}, which also serves {}: a fleet's agent serves its own runtime only",
                reg.agent_name,
                others.join(", ")
            ));
        }
    }
    Ok((agents, runtime.is_some()))
}

/// The refusal of a registration the platform does not bear out.
pub(crate) fn claim_refused(folder: &Path, why: String) -> Outcome {
    bad(
        &folder.join(REGISTRATION_FILE).display().to_string(),
        format!("{why}; nothing on the platform was changed for it"),
        "this registration is not the fleet's: remove it from the repository (and find out who wrote it)",
    )
}

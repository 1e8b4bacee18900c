//! The platform side of `info`, `delete` and `test-pipeline`: which token to
//! use, the agent's and runtime's status, the clean-up of what `init`
//! registered, and the demo pipeline. Shared by those commands' files.

use serde_json::Value;

use super::Outcome;
use crate::cli::PlatformArgs;
use crate::output;
use crate::platform::{self, Auth, Platform, PlatformError};
use crate::values::{Problem, Problems, Secret};

/// The token and platform for a command: `--token`, `CF_API_KEY` or the
/// cfconfig; the URL from `--url`, else the installation's `CodefreshHost`,
/// else the token's context. `Ok(None)` when there is no token at all.
pub(crate) fn resolve(
    args: &PlatformArgs,
    installed_host: Option<&str>,
) -> Result<Option<Auth>, PlatformError> {
    let token = args.token.as_ref().map(Secret::new);
    let url = args.url.as_deref().or(installed_host);
    match platform::auth::resolve(token.as_ref(), None, url) {
        Ok(auth) => Ok(Some(auth)),
        Err(PlatformError::NoToken { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A client, or the outcome to return.
pub(crate) fn client(auth: &Auth, args: &PlatformArgs) -> Result<Platform, Outcome> {
    Platform::new(auth, args.insecure).map_err(|e| {
        let hint = e.hint();
        Outcome::Failed(e.into(), hint)
    })
}

/// `--token` is needed: no token anywhere.
pub(crate) fn token_needed(command: &str, why: &str, alternative: &str) -> Outcome {
    Outcome::BadInput(Problems(vec![Problem::new(
        "--token",
        None,
        format!(
            "is needed to {why}: there is no token in --token, CF_API_KEY or {}",
            platform::auth::cfconfig_path().display()
        ),
        format!("pass --token (or set CF_API_KEY){alternative}, then re-run `cf-runner {command}`"),
    )]))
}

/// The agent's and runtime's state on the platform, in words.
pub(crate) async fn status(
    platform: &Platform,
    agent: Option<&str>,
    runtime: Option<&str>,
) -> String {
    let mut parts = Vec::new();
    if let Some(name) = agent {
        match platform.agents_named(name).await {
            Ok(list) => match list.first() {
                Some(a) => {
                    let status = a.status.as_ref();
                    let message = status
                        .and_then(|s| s.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("no status reported");
                    let when = status
                        .and_then(|s| s.get("reportedDate"))
                        .and_then(Value::as_str)
                        .map(|d| format!(", last report {d}"))
                        .unwrap_or_default();
                    parts.push(format!("agent {name}: {message}{when}"));
                }
                None => parts.push(format!("agent {name}: not on the platform")),
            },
            Err(e) => return format!("not shown: {e}"),
        }
    }
    if let Some(name) = runtime {
        match platform.runtime(name).await {
            Ok(Some(re)) => {
                let message = re
                    .pointer("/status/message")
                    .and_then(Value::as_str)
                    .unwrap_or("registered");
                parts.push(format!("runtime environment {name}: {message}"));
            }
            Ok(None) => parts.push(format!("runtime environment {name}: not on the platform")),
            Err(e) => return format!("not shown: {e}"),
        }
    }
    if parts.is_empty() {
        "no agent or runtime environment recorded".into()
    } else {
        parts.join("; ")
    }
}

/// Removes what `init` registered: detaches and deletes the runtime
/// environment, deletes the agent when it has no other runtime, and the
/// cluster integration of `context` when no runtime uses that cluster any
/// more. Anything already gone is fine, so it can run again.
pub(crate) async fn clean_up(
    platform: &Platform,
    agent: Option<&str>,
    runtime: Option<&str>,
    context: &str,
) -> Result<(), PlatformError> {
    let mut remaining_runtimes = Vec::new();
    if let Some(agent_name) = agent {
        for a in platform.agents_named(agent_name).await? {
            let keep: Vec<String> = a
                .runtimes
                .iter()
                .filter(|r| Some(r.as_str()) != runtime)
                .cloned()
                .collect();
            if keep.len() != a.runtimes.len() {
                platform.update_agent(&a, &keep).await?;
            }
            if keep.is_empty() {
                platform.delete_agent(&a.id).await?;
                output::removed(&format!("agent {agent_name}"), None);
            } else {
                output::note(&format!(
                    "agent {agent_name} stays: it still serves {}",
                    keep.join(", ")
                ));
            }
            remaining_runtimes = keep;
        }
    }
    if let Some(name) = runtime {
        platform.delete_runtime(name).await?;
        output::removed(&format!("runtime environment {name}"), None);
    }
    let uses_context = |re: &Value| {
        re.pointer("/runtimeScheduler/cluster/clusterProvider/selector")
            .and_then(Value::as_str)
            == Some(context)
    };
    let still_used =
        platform.runtimes().await?.iter().any(uses_context) || !remaining_runtimes.is_empty();
    if !still_used {
        for c in platform.clusters().await? {
            if c.get("selector").and_then(Value::as_str) == Some(context) {
                let id = c
                    .get("_id")
                    .or(c.get("id"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let provider = c.get("provider").and_then(Value::as_str).unwrap_or("local");
                platform.delete_cluster_integration(provider, id).await?;
                output::removed(&format!("cluster integration {context}"), None);
            }
        }
    }
    Ok(())
}

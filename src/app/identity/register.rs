//! The platform side of every command: which Codefresh API token to use
//! (one resolution for all), a checked client, the runtime spec as the
//! platform gets it, the agent's and runtime's status, and the clean-up of
//! what `init` registered.

use serde_json::Value;

use crate::app::identity::registrar::Registrar;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::platform::{
    self, Auth, Need, Platform, PlatformError, RegisterRuntime, Transport, Whoami,
};
use crate::values::{Problem, Problems, Secret, Values};

/// Where a command looks for its Codefresh API token and platform URL,
/// before `CF_API_KEY` and the cfconfig.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TokenFrom<'a> {
    /// `--token`, as the command line gave it.
    pub flag: Option<&'a Secret>,
    /// `Token` of the values (a file, `--set-value`, an installed monitor).
    pub values: Option<&'a Secret>,
    /// `--url`, as the command line gave it: any token may go there.
    pub cli_url: Option<&'a str>,
    /// A platform URL from a values file or the cluster: used only when it
    /// is the token's own platform (see [`platform::auth::resolve`]).
    pub named: Option<platform::auth::NamedUrl<'a>>,
}

/// The one resolution of the platform token: the flag, the values, then
/// `CF_API_KEY`, then the cfconfig's current context. `Ok(None)` when there
/// is no token anywhere: each command says what that means for it.
pub(crate) fn find_token(from: TokenFrom<'_>) -> Result<Option<Auth>, PlatformError> {
    match platform::auth::resolve(from.flag, from.values, from.cli_url, from.named) {
        Ok(auth) => Ok(Some(auth)),
        Err(PlatformError::NoToken { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A client whose token the platform accepted, with the scopes `needs`
/// checked (none when `needs` is `None`), or the outcome to return.
pub(crate) async fn checked_client(
    auth: &Auth,
    transport: Transport,
    needs: Option<&[Need]>,
) -> Result<(Platform, Whoami), Outcome> {
    let platform = platform_for(auth, transport).doing("preparing the platform client")?;
    let who = platform
        .whoami()
        .await
        .doing("checking the Codefresh API token")?;
    if let Some(needs) = needs {
        platform
            .require_scopes(needs)
            .await
            .doing("checking the Codefresh API token's scopes")?;
    }
    Ok((platform, who))
}

/// The runtime spec as the platform gets it: the rendered one, with
/// `accountId` set to the account the platform named for this token (the
/// render puts the recorded identity's, which an offline dry-run lacks).
pub(crate) fn spec_to_send(rendered: &Value, account_id: Option<&str>) -> Value {
    let mut spec = rendered.clone();
    if let (Some(map), Some(account)) = (spec.as_object_mut(), account_id) {
        map.insert("accountId".into(), Value::String(account.to_string()));
    }
    spec
}

/// The registration of runtime environment `name` for the builds of
/// `values` (their namespace, StorageClass and node selector) in cluster
/// `context`: what `init` registers, and `runtime attach` for a runtime
/// the platform does not have yet. The whole spec follows ([`send_spec`]).
pub(crate) fn registration(values: &Values, context: &str, name: &str) -> RegisterRuntime {
    let node_selector: serde_json::Map<String, Value> = values
        .runtime
        .scheduling
        .node_selector
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    RegisterRuntime {
        cluster_name: context.to_string(),
        namespace: values.namespace.clone(),
        storage_class_name: values.storage.class_name.clone(),
        service_account: "codefresh-engine".into(),
        runtime_environment_name: name.to_string(),
        agent: true,
        docker_daemon_scheduler: serde_json::json!({"userAccess": values.runtime.docker_daemon_access}),
        node_selector: Value::Object(node_selector),
    }
}

/// True when runtime environment `re` runs its builds in `namespace` of
/// cluster `context`: one cf-runner registered for that place (and keeps
/// in step), not one that sends builds elsewhere.
pub(crate) fn runs_in(re: &Value, namespace: &str, context: &str) -> bool {
    re.pointer("/runtimeScheduler/cluster/namespace")
        .and_then(Value::as_str)
        == Some(namespace)
        && re
            .pointer("/runtimeScheduler/cluster/clusterProvider/selector")
            .and_then(Value::as_str)
            == Some(context)
}

/// Sends runtime environment `name`'s spec unless the platform holds it
/// already (a re-run writes nothing). True when it was sent.
pub(crate) async fn send_spec(
    platform: &impl Registrar,
    name: &str,
    spec: &Value,
) -> Result<bool, Outcome> {
    let current = platform
        .runtime(name)
        .await
        .doing("reading the runtime environment's spec")?;
    put_spec(
        platform,
        name,
        spec,
        current.as_ref(),
        "sending the runtime environment's spec",
    )
    .await
}

/// Sends runtime environment `name`'s spec unless `current` (the platform's
/// copy, when it was read) already matches it: the one place a runtime spec
/// goes to the platform. True when it was sent; `failure` is what the
/// message says failed.
pub(crate) async fn put_spec(
    platform: &impl Registrar,
    name: &str,
    spec: &Value,
    current: Option<&Value>,
    failure: &str,
) -> Result<bool, Outcome> {
    if current.is_some_and(|c| spec_differences(spec, c).is_empty()) {
        return Ok(false);
    }
    platform.put_runtime(name, spec).await.doing(failure)?;
    Ok(true)
}

/// The account a runtime environment belongs to, as the platform shows it.
pub(crate) fn account_of_runtime(runtime: &Value) -> Option<String> {
    runtime
        .get("accountId")
        .or(runtime.pointer("/runtimeScheduler/cluster/clusterProvider/accountId"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The token and platform for a command: `--token`, `CF_API_KEY` or the
/// cfconfig; the URL from `--url`, else the token's own. A host the
/// installation names (`installed`: the URL and where it was read) must be
/// that same platform, or the token is not sent. `Ok(None)` when there is
/// no token at all.
pub(crate) fn resolve(
    args: &PlatformOptions,
    installed: Option<platform::auth::NamedUrl<'_>>,
) -> Result<Option<Auth>, PlatformError> {
    let token = args.token.as_ref().map(Secret::new);
    find_token(TokenFrom {
        flag: token.as_ref(),
        values: None,
        cli_url: args.url.as_deref(),
        named: installed,
    })
}

/// Where a host recorded in the cluster was read, for refusals.
pub(crate) const RECORDED_HOST: &str = "the installation's record in the cluster (CodefreshHost)";

/// How `args` say to reach the platform.
pub(crate) fn transport(args: &PlatformOptions) -> Transport {
    Transport {
        insecure: args.insecure,
        allow_http: args.allow_http,
        extra_roots: None,
    }
}

/// A client, or the outcome to return.
pub(crate) fn client(auth: &Auth, args: &PlatformOptions) -> Result<Platform, Outcome> {
    platform_for(auth, transport(args)).doing("preparing the platform client")
}

/// The one place a token becomes a platform client: every command that
/// talks to the platform comes through here (through [`client`] and
/// [`checked_client`], or here directly where a platform problem is only
/// shown, not fatal).
pub(crate) fn platform_for(auth: &Auth, transport: Transport) -> Result<Platform, PlatformError> {
    Platform::new(auth, transport)
}

/// Seconds since the Unix epoch of an RFC 3339 time (`2026-11-22T20:50:00.123Z`,
/// `…+02:00`) or of a number of milliseconds.
pub(crate) fn epoch_seconds(value: &Value) -> Option<i64> {
    if let Some(ms) = value.as_i64() {
        return Some(ms / 1000);
    }
    crate::text::parse_rfc3339(value.as_str()?)
}

/// "42s", "5m", "3h", "2d" ago.
pub(crate) fn ago(seconds: i64) -> String {
    let s = seconds.max(0);
    if s < 120 {
        format!("{s}s ago")
    } else if s < 7200 {
        format!("{}m ago", s / 60)
    } else if s < 172_800 {
        format!("{}h ago", s / 3600)
    } else {
        format!("{}d ago", s / 86_400)
    }
}

/// The agent's status in words, from the fields the old CLI reads:
/// `status.healthStatus` and `status.reportedAt`.
pub(crate) fn agent_status(status: Option<&Value>, now: i64) -> String {
    let health = status
        .and_then(|s| s.get("healthStatus"))
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty());
    let seen = status
        .and_then(|s| s.get("reportedAt"))
        .and_then(epoch_seconds);
    match (health, seen) {
        (None, None) => "never reported".into(),
        (Some(h), None) => format!("{h}, last report time unknown"),
        (h, Some(t)) => format!(
            "{}, last seen {}",
            h.unwrap_or("health unknown"),
            ago(now - t)
        ),
    }
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
    expected_spec: Option<&dyn Fn(Option<String>) -> Option<Value>>,
) -> String {
    let mut parts = Vec::new();
    if let Some(name) = agent {
        match platform.agents_named(name).await {
            Ok(list) => match list.first() {
                Some(a) => {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_secs() as i64)
                        .unwrap_or_default();
                    parts.push(format!(
                        "agent {name}: {}",
                        agent_status(a.status.as_ref(), now)
                    ));
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
                let account = account_of_runtime(&re);
                let sync = match expected_spec.and_then(|render| render(account.clone())) {
                    None => String::new(),
                    Some(ours) => {
                        let ours = spec_to_send(&ours, account.as_deref());
                        let differ = spec_differences(&ours, &re);
                        if differ.is_empty() {
                            ", spec matches what cf-runner sends".into()
                        } else {
                            format!(
                                ", spec DIFFERS from what cf-runner would send ({}): run `cf-runner upgrade` with a token to send it",
                                differ.join(", ")
                            )
                        }
                    }
                };
                parts.push(format!("runtime environment {name}: {message}{sync}"));
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

/// The leaves of `ours` that `theirs` lacks or holds otherwise, as dotted
/// paths (at most 5), with `[i]` for an item of a list of records. Fields
/// only the platform has are not differences.
pub(crate) fn spec_differences(ours: &Value, theirs: &Value) -> Vec<String> {
    fn walk(ours: &Value, theirs: Option<&Value>, path: &str, out: &mut Vec<String>) {
        match ours {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(v, theirs.and_then(|t| t.get(k)), &p, out);
                }
            }
            // Lists of records (e.g. `pvcs`) are compared item by item, so
            // a difference names its field, not the whole list.
            Value::Array(items)
                if items.iter().any(Value::is_object)
                    && theirs
                        .and_then(Value::as_array)
                        .is_some_and(|t| t.len() == items.len()) =>
            {
                for (i, v) in items.iter().enumerate() {
                    walk(
                        v,
                        theirs.and_then(|t| t.get(i)),
                        &format!("{path}[{i}]"),
                        out,
                    );
                }
            }
            leaf => {
                let same = match (leaf, theirs) {
                    (Value::Null, None) => true,
                    (Value::Object(_), None) | (Value::Array(_), None) => {
                        leaf.as_object().is_some_and(|m| m.is_empty())
                            || leaf.as_array().is_some_and(|a| a.is_empty())
                    }
                    (_, Some(t)) => t == leaf,
                    _ => false,
                };
                if !same {
                    out.push(path.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(ours, Some(theirs), "", &mut out);
    out.truncate(5);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `diff`, `upgrade`, `init` and `info` each resolved the token their
    /// own way; all now go through `find_token`: the flag, then the values,
    /// and the URL the command names.
    #[test]
    fn one_token_resolution_the_flag_beats_the_values_and_the_url_is_kept() {
        let flag = Secret::new("from-flag");
        let values = Secret::new("from-values");
        let both = find_token(TokenFrom {
            flag: Some(&flag),
            values: Some(&values),
            cli_url: Some("https://cf.example.com"),
            named: None,
        })
        .unwrap()
        .unwrap();
        assert_eq!(both.token.expose(), "from-flag");
        assert_eq!(both.source, platform::TokenSource::Flag);
        assert_eq!(both.url, "https://cf.example.com");
        let only_values = find_token(TokenFrom {
            values: Some(&values),
            ..Default::default()
        })
        .unwrap()
        .unwrap();
        assert_eq!(only_values.token.expose(), "from-values");
        assert_eq!(only_values.source, platform::TokenSource::Values);
    }

    #[test]
    fn report_times_are_read_in_rfc3339_and_milliseconds() {
        assert_eq!(epoch_seconds(&json!("1970-01-01T00:00:00Z")), Some(0));
        assert_eq!(
            epoch_seconds(&json!("2026-11-22T20:50:00.123Z")),
            Some(1_795_380_600)
        );
        assert_eq!(
            epoch_seconds(&json!("2026-11-22T22:50:00+02:00")),
            Some(1_795_380_600)
        );
        assert_eq!(
            epoch_seconds(&json!(1_795_380_600_123_i64)),
            Some(1_795_380_600)
        );
        assert_eq!(epoch_seconds(&json!("yesterday")), None);
    }

    #[test]
    fn spec_differences_name_what_the_platform_lacks_or_holds_otherwise() {
        let ours = json!({"a": {"b": 1, "c": [1]}, "d": {}, "e": "x"});
        let theirs = json!({"a": {"b": 1, "c": [1], "extra": true}, "e": "x", "status": {}});
        assert!(spec_differences(&ours, &theirs).is_empty());
        let changed = json!({"a": {"b": 2, "c": [1]}, "e": "y"});
        assert_eq!(spec_differences(&ours, &changed), vec!["a.b", "e"]);
    }

    #[test]
    fn a_changed_field_in_a_list_of_records_is_named_with_its_index() {
        let ours = json!({"pvcs": [{"name": "dind", "volumeSize": "16Gi"}]});
        let theirs = json!({"pvcs": [{"name": "dind", "volumeSize": "1Gi", "extra": 1}]});
        assert_eq!(spec_differences(&ours, &theirs), vec!["pvcs[0].volumeSize"]);
        let shorter = json!({"pvcs": []});
        assert_eq!(spec_differences(&ours, &shorter), vec!["pvcs"]);
    }

    #[test]
    fn the_agent_status_shows_health_and_when_it_was_seen() {
        let now = 1_795_380_600;
        let status = json!({"healthStatus": "healthy", "reportedAt": "2026-11-22T20:45:00Z", "message": "All good"});
        assert_eq!(
            agent_status(Some(&status), now),
            "healthy, last seen 5m ago"
        );
        // The agent's own message alone says nothing about its health now.
        let message_only = json!({"message": "All good", "reportedDate": "2026-11-22T20:45:00Z"});
        assert_eq!(agent_status(Some(&message_only), now), "never reported");
        assert_eq!(agent_status(None, now), "never reported");
    }
}

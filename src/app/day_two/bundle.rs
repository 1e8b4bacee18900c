//! What a support bundle gathers about one installation, read by read: the
//! secrets cf-runner knows (first, so that the redactor knows them before
//! anything else goes in), the check run against the recorded values, the
//! runtime spec on both sides, the record, events, pods with their logs,
//! volumes, nodes, Secrets by name and the versions. Each read that fails
//! is named in the bundle's index and the next one goes on: a bundle is
//! most needed when the API server is half broken.

use serde_json::{json, Map, Value};

use crate::app::day_two::cluster_reads::{
    add_events, add_logs, add_nodes, add_pods, add_storage, running_images,
};
use crate::app::day_two::cluster_reads::{Request, LAST_APPLIED};
use crate::app::day_two::redaction::known_secrets;
use crate::app::identity::register;
use crate::app::installation::{identity, record};
use crate::app::session::options::PlatformOptions;
use crate::bundle::Bundle;
use crate::cluster::inventory::Record;
use crate::cluster::support::{self as reads};
use crate::cluster::{preflight, Cluster};
use crate::render::{self, images};
use crate::values::{self, Secret};

/// Collects the bundle of the installation in `req.namespace`. `step`
/// says which part is being read (the progress line).
pub(crate) async fn collect(
    cluster: &Cluster,
    record: Option<&Record>,
    req: &Request<'_>,
    step: &dyn Fn(&str),
) -> Bundle {
    let ns = req.namespace;
    let client = &cluster.client;
    let loaded = record.and_then(record::loaded);
    let values = loaded.as_ref().map(|l| &l.values);

    // The platform first: its key is a secret the redactor must know.
    let host = values.map(|v| v.codefresh_host.clone());
    let auth = register::resolve(
        req.platform,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    );
    step("reading the Secrets cf-runner wrote, to know what to redact");
    let mut gaps = Vec::new();
    let auth_ok = auth.as_ref().ok().and_then(Option::as_ref);
    let mut redactor = known_secrets(cluster, ns, auth_ok, &mut gaps).await;
    // The token on the command line is known even when it could not be
    // used (another host, a bad config): it may still be echoed somewhere.
    if let Some(token) = &req.platform.token {
        redactor.know(
            "the Codefresh API key given with --token",
            Secret::new(token.as_str()),
        );
    }
    let mut bundle = Bundle::new(redactor, req.max_size);
    for (what, why) in gaps {
        bundle.failed(what, why);
    }
    bundle.left_out(
        "Secret values",
        "never read into the bundle: secrets.yaml lists each Secret's keys and sizes",
    );
    bundle.left_out(
        format!("the {LAST_APPLIED} annotation"),
        "a copy of the whole object, which for a Secret holds its data",
    );

    add_info(&mut bundle, &req.info);
    add_check_and_spec(&mut bundle, cluster, record, values, ns, step).await;
    add_platform_spec(&mut bundle, &auth, record, req.platform, step).await;
    add_record(&mut bundle, record, ns);
    let events = add_events(&mut bundle, client, ns, step).await;
    let node_zones = add_nodes(&mut bundle, client, step).await;
    add_storage(&mut bundle, client, ns, values, &events, &node_zones, step).await;
    add_secrets(&mut bundle, client, ns, step).await;
    let pods = add_pods(&mut bundle, client, ns, &events, step).await;
    add_logs(&mut bundle, client, ns, &pods, req, step).await;

    bundle.add_value(
        "versions.json",
        &json!({
            "cf-runner": env!("CARGO_PKG_VERSION"),
            "chart parity": images::CHART_VERSION,
            "installed by cf-runner": record.and_then(|r| r.cf_runner_version.clone()),
            "images running": running_images(&pods),
        }),
    );
    bundle
}

/// `info -o json` of the namespace, or why there is none.
fn add_info(bundle: &mut Bundle, info: &Result<String, String>) {
    match info {
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(info) => bundle.add_value("info.json", &info),
            Err(_) => bundle.add_text("info.json", text),
        },
        Err(why) => bundle.failed("info.json", why),
    }
}

/// The runtime spec, as cf-runner builds it from the record, and the
/// check, against what the record would render.
async fn add_check_and_spec(
    bundle: &mut Bundle,
    cluster: &Cluster,
    record: Option<&Record>,
    values: Option<&values::Values>,
    ns: &str,
    step: &dyn Fn(&str),
) {
    let client = &cluster.client;
    let rendered = match (record, values) {
        (Some(record), Some(values)) => {
            let identity = identity::recorded(record, Some(values), &cluster.context);
            render::render(values, &identity, &Value::Object(Map::new())).ok()
        }
        _ => None,
    };
    match &rendered {
        Some(r) => {
            step("running the checks of `cf-runner check` against the recorded values");
            let checks =
                preflight::run(client, &r.manifests, Some(&r.runtime_environment), ns).await;
            bundle.add_value(
                "check.json",
                &json!({"passed": !preflight::failed(&checks), "checks": checks}),
            );
            bundle.add_value("runtime/from-record.json", &r.runtime_environment);
        }
        None => {
            let why = if record.is_none() {
                "no installation record in the namespace"
            } else {
                "the recorded values do not validate with this cf-runner"
            };
            bundle.failed("check.json and runtime/from-record.json", why);
        }
    }
}

/// The runtime spec as the platform holds it (needs an API token).
async fn add_platform_spec(
    bundle: &mut Bundle,
    auth: &Result<Option<crate::platform::auth::Auth>, crate::platform::PlatformError>,
    record: Option<&Record>,
    platform: &PlatformOptions,
    step: &dyn Fn(&str),
) {
    let runtime_name = record.and_then(|r| r.runtime_name.clone());
    match (auth, &runtime_name) {
        (Ok(Some(auth)), Some(name)) => {
            step("reading the runtime environment on the platform");
            match crate::app::identity::register::platform_for(auth, register::transport(platform))
            {
                Ok(p) => match p.runtime(name).await {
                    Ok(Some(spec)) => bundle.add_value("runtime/platform.json", &spec),
                    Ok(None) => bundle.failed(
                        "runtime/platform.json",
                        format!("the platform has no runtime environment {name}"),
                    ),
                    Err(e) => bundle.failed("runtime/platform.json", e),
                },
                Err(e) => bundle.failed("runtime/platform.json", e),
            }
        }
        (Ok(None), _) => bundle.left_out(
            "runtime/platform.json",
            "no Codefresh API token (--token, CF_API_KEY or ~/.cfconfig)",
        ),
        (Err(e), _) => bundle.failed("runtime/platform.json", e),
        (_, None) => bundle.left_out(
            "runtime/platform.json",
            "the record names no runtime environment",
        ),
    }
}

/// The record, its values redacted when it was written and again here.
fn add_record(bundle: &mut Bundle, record: Option<&Record>, ns: &str) {
    match record {
        Some(r) => {
            let values_tree = record::shown_values(r);
            bundle.add_value(
                "record.yaml",
                &json!({
                    "cf-runner-version": r.cf_runner_version,
                    "record-format": r.record_format,
                    "agent-name": r.agent_name,
                    "runtime-name": r.runtime_name,
                    "registered-on-platform": r.registered,
                    "values": values_tree,
                }),
            );
        }
        None => bundle.failed(
            "record.yaml",
            format!("no Secret {} in namespace {ns}", render::RECORD_SECRET),
        ),
    }
}

/// The namespace's Secrets: names, keys and sizes, never a value.
async fn add_secrets(bundle: &mut Bundle, client: &kube::Client, ns: &str, step: &dyn Fn(&str)) {
    step("reading the Secrets of the namespace (names, keys and sizes)");
    match reads::secret_summaries(client, ns).await {
        Ok(list) => bundle.add_value(
            "secrets.yaml",
            &serde_json::to_value(list).unwrap_or_default(),
        ),
        Err(e) => bundle.failed("secrets.yaml", e.chain_text()),
    }
}

//! `docs/reference/objects.md`: the Kubernetes objects an install creates,
//! found by rendering every values example the way `init --dry-run` does,
//! grouped by the part of the runner they belong to, with why that part is
//! there and which examples create each object.

use std::collections::BTreeMap;

use super::{table_cell, ValuesExample};
use crate::render::{self, Component, Identity};
use crate::values::{self, Input, ValuesFile};

/// Why a part of the runner is installed, for the reader of the page.
fn why(component: Component) -> &'static str {
    match component {
        Component::Namespace => "The namespace the runner lives in, when cf-runner creates it.",
        Component::Runner => {
            "The agent: it polls the Codefresh platform for builds and starts their pods, \
             with the account and rights it needs for that and its token."
        }
        Component::Runtime => {
            "What a build runs with: the engine's and dind's accounts and rights, the dind \
             daemon's configuration and TLS certificate."
        }
        Component::VolumeProvisioner => {
            "Gives each build's dind a volume that keeps its docker cache between builds: the \
             provisioner, its StorageClass, rights and credentials, and a cleaner of old volumes \
             (a DaemonSet for backend `local`, a CronJob for the cloud backends). Not there with \
             a StorageClass of your own (`--storage-class-name`)."
        }
        Component::Monitor => {
            "Reports the cluster's state to the platform; only with `--install-monitor`."
        }
        Component::AppProxy => {
            "Lets the platform reach Git providers inside your network; only with `--app-proxy`."
        }
        Component::ClusterIntegration => {
            "A read-only account and its token for the cluster integration on the platform; \
             left out with `--skip-cluster-integration`."
        }
        Component::Record => {
            "What cf-runner installed and with which values: what `upgrade`, `diff` and `delete` read."
        }
        Component::Metrics => {
            "ServiceMonitors and PodMonitors a prometheus-operator picks up; only with \
             `Metrics.ServiceMonitors` or `Metrics.PodMonitors`."
        }
        Component::EventExporter => {
            "Kubernetes events as Prometheus metrics; only with `EventExporter.Enabled`."
        }
        Component::RuntimeAccess => {
            "What the agent acts as in an attached runtime's namespace, and its runtimes' files."
        }
        Component::Extra => {
            "Objects of yours (`ExtraResources`), installed, upgraded and removed with the runner."
        }
    }
}

/// The namespace every example is rendered into.
const NAMESPACE: &str = "codefresh";

/// A second namespace to render into: a name that differs between the two
/// renders is made of the namespace, and the page says so.
const OTHER_NAMESPACE: &str = "cf-runner-reference-ns";

/// One object as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ObjectRow {
    kind: String,
    name: String,
    /// `namespace` or `cluster`.
    scope: &'static str,
}

/// The page; an error names an example that does not load or render.
pub(super) fn page(examples: &[ValuesExample]) -> Result<String, String> {
    // component → object → the examples that create it
    let mut parts: BTreeMap<Component, BTreeMap<ObjectRow, Vec<String>>> = BTreeMap::new();
    for example in examples {
        for (manifest, name) in render_named(example)? {
            let row = ObjectRow {
                kind: manifest.kind.clone(),
                name,
                scope: if manifest.namespace.is_some() {
                    "namespace"
                } else {
                    "cluster"
                },
            };
            let users = parts
                .entry(manifest.component)
                .or_default()
                .entry(row)
                .or_default();
            if !users.contains(&example.name) {
                users.push(example.name.clone());
            }
        }
    }
    let mut out = String::from(
        "# Objects an install creates\n\n\
         Found by rendering every file in `values-examples/` as `cf-runner init --dry-run` does \
         (run it on your own values to see exactly yours). Objects in a namespace are in the \
         runner's; `<namespace>` in a name is the runner's namespace. Each object \
         carries the label `app.kubernetes.io/managed-by: cf-runner`, by which `delete` finds \
         exactly what it installed.\n\n\
         Examples rendered: ",
    );
    let names: Vec<String> = examples.iter().map(|e| format!("`{}`", e.name)).collect();
    out.push_str(&names.join(", "));
    out.push_str(".\n");
    for (component, objects) in parts {
        out.push_str(&format!(
            "\n## {}\n\n{}\n\n",
            component.as_str(),
            why(component)
        ));
        out.push_str("| kind | name | scope | created by |\n|---|---|---|---|\n");
        for (row, users) in objects {
            let by = created_by(&users, examples);
            out.push_str(&format!(
                "| {} | `{}` | {} | {} |\n",
                row.kind,
                table_cell(&row.name),
                row.scope,
                by
            ));
        }
    }
    Ok(out)
}

/// Which examples create an object: all, all but a few, or the few.
fn created_by(users: &[String], examples: &[ValuesExample]) -> String {
    let quoted = |names: Vec<&str>| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missing: Vec<&str> = examples
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !users.iter().any(|u| u == n))
        .collect();
    if missing.is_empty() {
        "every example".to_string()
    } else if missing.len() < users.len() {
        format!("every example but {}", quoted(missing))
    } else {
        quoted(users.iter().map(String::as_str).collect())
    }
}

/// The manifests of one example, each with its name as the page shows it:
/// `<namespace>` where the name is made of the namespace.
fn render_named(example: &ValuesExample) -> Result<Vec<(render::Manifest, String)>, String> {
    let here = render_example(example, NAMESPACE)?;
    let there = render_example(example, OTHER_NAMESPACE)?;
    if here.len() != there.len() {
        return Err(format!(
            "{}: {} objects in one namespace, {} in another",
            example.name,
            here.len(),
            there.len()
        ));
    }
    Ok(here
        .into_iter()
        .zip(there)
        .map(|(manifest, other)| {
            let name = if manifest.name == other.name {
                manifest.name.clone()
            } else {
                other.name.replace(OTHER_NAMESPACE, "<namespace>")
            };
            (manifest, name)
        })
        .collect())
}

/// The manifests `init --dry-run` would write for one example installed
/// into `namespace`.
fn render_example(
    example: &ValuesExample,
    namespace: &str,
) -> Result<Vec<render::Manifest>, String> {
    let input = Input {
        files: vec![ValuesFile {
            origin: format!("values-examples/{}.yaml", example.name),
            text: example.text.clone(),
        }],
        // One namespace for every example, so an object has one name.
        overrides: vec![("Namespace".to_string(), serde_json::json!(namespace))],
        ..Default::default()
    };
    let loaded = values::load(&input).map_err(|p| format!("{}: {p}", example.name))?;
    let identity = Identity {
        context: loaded.values.context.clone(),
        ..Default::default()
    };
    let rendered = render::render(&loaded.values, &identity, &loaded.redacted_tree)
        .map_err(|e| format!("{}: {e}", example.name))?;
    Ok(rendered.manifests)
}

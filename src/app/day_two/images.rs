//! `images`: every image an install with these values runs, for
//! whoever fills an air-gapped mirror. The list is read from what `init`
//! would render (every `image` of every object, and the images the runtime
//! spec makes the platform start: engine, dind, and the pipeline step
//! images), so it cannot miss one the install uses. `--check` asks each
//! image's registry whether it holds it (`platform::registry`).

use std::collections::BTreeMap;

use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;

use crate::app::session::outcome::Outcome;
use crate::output::{self, Structured};
use crate::platform::registry::{DockerConfig, Presence, Registry};
use crate::render;
use crate::values::{self, Problem, Problems};

/// One image and what runs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageUse {
    pub image: String,
    /// True when the reference names a digest (`@sha256:…`).
    pub pinned: bool,
    /// `Kind/name` of each object running it, or `runtime: …` for what the
    /// platform starts from the runtime spec.
    pub used_by: Vec<String>,
}

/// Every image of `rendered`, in first-seen order.
pub fn list(rendered: &render::Rendered) -> Vec<ImageUse> {
    let mut found: Vec<(String, String)> = Vec::new();
    for manifest in &rendered.manifests {
        let mut images = Vec::new();
        object_images(&manifest.object, &mut images);
        for image in images {
            found.push((image, format!("{}/{}", manifest.kind, manifest.name)));
        }
    }
    let mut spec = Vec::new();
    spec_images(&rendered.runtime_environment, "", &mut spec);
    for (image, key) in spec {
        found.push((image, format!("runtime: {key}")));
    }
    let mut order: Vec<String> = Vec::new();
    let mut users: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (image, user) in found {
        let entry = users.entry(image.clone()).or_default();
        if entry.is_empty() {
            order.push(image);
        }
        if !entry.contains(&user) {
            entry.push(user);
        }
    }
    order
        .into_iter()
        .map(|image| ImageUse {
            pinned: image.contains("@sha256:"),
            used_by: users.remove(&image).unwrap_or_default(),
            image,
        })
        .collect()
}

/// The `image` of every container and init container of an object, and any
/// other value in it that is an image pinned by digest.
fn object_images(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                match value {
                    Value::String(s) if names_image(key, s) => out.push(s.clone()),
                    _ => object_images(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| object_images(i, out)),
        _ => {}
    }
}

/// Images the runtime spec names: `runtimeScheduler.image`,
/// `dockerDaemonScheduler.dindImage`, and every value that is an image
/// pinned by digest wherever the spec puts it (the step images of the
/// engine's env, `CR_6177_FIXER` among them). The rule reads the rendered
/// spec, not a list of names, so an image the renderer adds is listed
/// without anyone updating this file.
fn spec_images(node: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                match value {
                    Value::String(s) if names_image(key, s) => {
                        // An env variable is named by itself; a field by its path.
                        let env_name = key
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                        out.push((s.clone(), if env_name { key.clone() } else { path }));
                    }
                    _ => spec_images(value, &path, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| spec_images(i, at, out)),
        _ => {}
    }
}

/// True when `value`, found under `key`, is an image reference: under a
/// key that holds one (`image`, `dindImage`, `…_IMAGE`), or pinned by a
/// digest whatever its key.
fn names_image(key: &str, value: &str) -> bool {
    let image_key = key == "image" || key == "dindImage" || key.ends_with("_IMAGE");
    (image_key && looks_like_image(value)) || pinned_by_digest(value)
}

fn looks_like_image(s: &str) -> bool {
    !s.is_empty() && !s.contains(char::is_whitespace) && (s.contains('/') || s.contains(':'))
}

/// `repository:tag@sha256:<64 hex digits>` or `host/repository@sha256:…`,
/// with nothing else around it. A bare `3.3.13@sha256:…` is a version (the
/// engine's `CF_SERVICE_VERSION`), not an image.
fn pinned_by_digest(s: &str) -> bool {
    let Some((name, digest)) = s.rsplit_once("@sha256:") else {
        return false;
    };
    (name.contains('/') || name.contains(':'))
        && !name.contains(char::is_whitespace)
        && digest.len() == 64
        && digest.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What `images -o json|yaml` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    /// The `--docker-registry` the images are under, if any.
    registry: Option<&'a str>,
    images: Vec<ReportedImage<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportedImage<'a> {
    #[serde(flatten)]
    image: &'a ImageUse,
    /// With `--check`: present, missing, denied or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

fn status_of(p: &Presence) -> (&'static str, Option<String>) {
    match p {
        Presence::Present => ("present", None),
        Presence::Missing => ("missing", None),
        Presence::Denied(why) => ("denied", Some(why.clone())),
        Presence::Failed(why) => ("failed", Some(why.clone())),
    }
}

/// What `images` is asked to do, besides the values.
#[derive(Debug, Clone)]
pub struct ImagesOptions {
    /// Ask each image's registry whether it holds the image.
    pub check: bool,
    /// The docker config with the registries' logins (`None`: docker's).
    pub docker_config: Option<std::path::PathBuf>,
    /// `-o json|yaml`; `None` prints a table.
    pub format: Option<Structured>,
}

/// Runs `images` on the loaded values: the list, each image's presence in
/// its registry with `--check`, and a failure when one is missing.
pub fn run(loaded: &values::Loaded, options: &ImagesOptions) -> Outcome {
    let config = if options.check {
        match docker_config(options.docker_config.clone()) {
            Ok(c) => c,
            Err(problems) => return Outcome::BadInput(problems),
        }
    } else {
        DockerConfig::default()
    };
    let values = &loaded.values;
    let identity = crate::app::installation::identity::seed(values, values.context.clone());
    let rendered = match render::render(values, &identity, &loaded.redacted_tree) {
        Ok(r) => r,
        Err(e) => return Outcome::render_failed(e),
    };
    let images = list(&rendered);
    let presence = if options.check {
        match presence(&images, config) {
            Ok(p) => Some(p),
            Err(outcome) => return outcome,
        }
    } else {
        None
    };
    match options.format {
        Some(format) => print_report(values, &images, presence.as_deref(), format),
        None => print_table(values, &images, presence.as_deref()),
    }
    match &presence {
        Some(p) => missing(&images, p),
        None => Outcome::Ok,
    }
}

/// The docker config `--check` logs in with: the one named, else docker's.
fn docker_config(named: Option<std::path::PathBuf>) -> Result<DockerConfig, Problems> {
    let path = named.or_else(DockerConfig::default_path);
    match path.as_deref().map(DockerConfig::load) {
        None => Ok(DockerConfig::default()),
        Some(Ok(c)) => Ok(c),
        Some(Err(why)) => Err(Problems(vec![Problem::new(
            "--docker-config",
            path.map(|p| Value::String(p.display().to_string()))
                .as_ref(),
            why,
            "name a docker config.json (as `docker login` writes it), or leave the flag out",
        )])),
    }
}

/// Asks each image's registry whether it holds it, eight at a time.
fn presence(images: &[ImageUse], config: DockerConfig) -> Result<Vec<Presence>, Outcome> {
    if let (Some(helper), true) = (&config.helper, config.is_empty()) {
        output::note(&format!(
            "the docker config uses the credential helper {helper:?}, which cf-runner does not run; \
             registries that need a login will show as denied"
        ));
    }
    let registry =
        Registry::new(config).map_err(|why| Outcome::Failed(anyhow::anyhow!(why), None))?;
    Ok(crate::app::session::connect::runtime().block_on(async {
        futures::stream::iter(images.iter())
            .map(|i| registry.presence(&i.image))
            .buffered(8)
            .collect::<Vec<_>>()
            .await
    }))
}

/// `-o json|yaml`: the registry and each image, with what its registry said.
fn print_report(
    values: &values::Values,
    images: &[ImageUse],
    presence: Option<&[Presence]>,
    format: Structured,
) {
    let report = Report {
        registry: values.docker_registry.as_deref(),
        images: images
            .iter()
            .enumerate()
            .map(|(i, image)| {
                let (status, detail) = match presence {
                    Some(p) => {
                        let (s, d) = status_of(&p[i]);
                        (Some(s), d)
                    }
                    None => (None, None),
                };
                ReportedImage {
                    image,
                    status,
                    detail,
                }
            })
            .collect(),
    };
    output::print_structured(&report, format);
}

/// The table of images, what runs each, and what its registry said.
fn print_table(values: &values::Values, images: &[ImageUse], presence: Option<&[Presence]>) {
    let mut headers = vec!["IMAGE", "USED BY"];
    if presence.is_some() {
        headers.push("REGISTRY SAYS");
    }
    let rows: Vec<Vec<String>> = images
        .iter()
        .enumerate()
        .map(|(i, image)| {
            let mut row = vec![image.image.clone(), image.used_by.join(", ")];
            if let Some(p) = presence {
                let (s, d) = status_of(&p[i]);
                row.push(match d {
                    Some(d) => format!("{s}: {d}"),
                    None => s.to_string(),
                });
            }
            row
        })
        .collect();
    output::table(0, &headers, &rows);
    let pinned = images.iter().filter(|i| i.pinned).count();
    output::say(&format!(
        "{} images, {pinned} pinned by digest{}",
        images.len(),
        values
            .docker_registry
            .as_deref()
            .map(|r| format!(", under {r}"))
            .unwrap_or_default()
    ));
}

/// After `--check`: a failure naming the images their registries lack.
fn missing(images: &[ImageUse], presence: &[Presence]) -> Outcome {
    let absent: Vec<&str> = images
        .iter()
        .zip(presence)
        .filter(|(_, p)| **p != Presence::Present)
        .map(|(i, _)| i.image.as_str())
        .collect();
    if !absent.is_empty() {
        return Outcome::Failed(
            anyhow::anyhow!(
                "{} of {} images are not available: {}",
                absent.len(),
                images.len(),
                absent.join(", ")
            ),
            Some(
                "copy the missing images into the registry (e.g. with `crane copy` or `skopeo copy`), \
                 or log in with `docker login` if it was denied"
                    .into(),
            ),
        );
    }
    output::done(&format!(
        "all {} images are in their registries",
        images.len()
    ));
    Outcome::Ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pinned(name: &str, hex: char) -> String {
        format!("{name}@sha256:{}", hex.to_string().repeat(64))
    }

    #[test]
    fn step_images_of_the_runtime_spec_are_listed_wherever_they_sit() {
        let spec = json!({
            "runtimeScheduler": {
                "image": pinned("quay.io/codefresh/engine:3.3.13", 'a'),
                "envVars": {
                    "COMPOSE_IMAGE": pinned("quay.io/codefresh/compose:v2", 'b'),
                    "KUBE_DEPLOY": pinned("quay.io/codefresh/cf-deploy-kubernetes:16", 'c'),
                    "CR_6177_FIXER": pinned("docker.io/alpine:latest", 'e'),
                    "TRUSTED_QEMU_IMAGES": "tonistiigi/binfmt",
                    "LOGGER_LEVEL": "debug",
                    "NOT_PINNED": "quay.io/x/y:1@sha256:short",
                    "CF_SERVICE_VERSION": pinned("3.3.13", 'f'),
                },
            },
            "dockerDaemonScheduler": {"dindImage": pinned("quay.io/codefresh/dind:3", 'd')},
        });
        let mut out = Vec::new();
        spec_images(&spec, "", &mut out);
        let labels: Vec<&str> = out.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "runtimeScheduler.image",
                "COMPOSE_IMAGE",
                "KUBE_DEPLOY",
                "CR_6177_FIXER",
                "dockerDaemonScheduler.dindImage"
            ]
        );
    }

    /// The list is read from what the renderer wrote: every digest-pinned
    /// reference anywhere in the manifests or the runtime spec is listed,
    /// every step image of the engine's env among them.
    #[test]
    fn every_pinned_reference_the_render_holds_is_listed() {
        let input = values::Input {
            files: vec![values::ValuesFile {
                origin: "test.yaml".into(),
                text: "Namespace: ns\nContext: c\nMonitor:\n  Enabled: true\nAppProxy:\n  Enabled: true\n  Ingress:\n    Host: ap.example.com\n"
                    .into(),
            }],
            ..Default::default()
        };
        let loaded = values::load(&input).unwrap();
        let identity = render::Identity {
            context: Some("c".into()),
            ..Default::default()
        };
        let rendered = render::render(&loaded.values, &identity, &loaded.redacted_tree).unwrap();
        let listed: Vec<String> = list(&rendered).into_iter().map(|i| i.image).collect();
        let mut held = Vec::new();
        let mut strings = |v: &Value| collect_strings(v, &mut held);
        for m in &rendered.manifests {
            strings(&m.object);
        }
        strings(&rendered.runtime_environment);
        let pinned: Vec<&String> = held.iter().filter(|s| pinned_by_digest(s)).collect();
        assert!(pinned.len() >= 20, "{pinned:?}");
        for image in pinned {
            assert!(listed.contains(image), "{image} is rendered but not listed");
        }
        for (name, step) in render::images::STEP_IMAGES {
            assert!(
                listed.iter().any(|i| i.contains(step.digest)),
                "{name} ({}) is not listed",
                step.repository
            );
        }
    }

    fn collect_strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
            Value::Object(map) => map.values().for_each(|i| collect_strings(i, out)),
            _ => {}
        }
    }
}

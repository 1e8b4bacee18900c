//! The view model of `cf-runner info` and its table. `app::info` reads the
//! cluster into a [`Report`]; JSON and YAML print it as it is, and
//! [`print_table`] is the human form.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

/// What `info -o json|yaml` prints, and the table shows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub context: String,
    pub server: String,
    pub installations: Vec<InstallationInfo>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// One installation, as `info` shows it.
pub struct InstallationInfo {
    pub namespace: String,
    /// The cf-runner version that last installed or upgraded it.
    pub installed_by: Option<String>,
    pub record_format: Option<String>,
    pub agent_name: Option<String>,
    pub runtime_name: Option<String>,
    /// Whether init registered the agent and runtime on the platform
    /// (false: an offline install, whose names were never verified).
    pub registered: Option<bool>,
    /// True when every workload is ready.
    pub healthy: bool,
    /// The values that matter most, in words.
    pub summary: Map<String, Value>,
    /// The recorded values, secrets redacted.
    pub values: Value,
    pub components: Vec<ComponentInfo>,
    pub storage: Option<StorageInfo>,
    pub volumes: Vec<VolumeInfo>,
    /// The runtimes the agent serves, when more than its own (never a token or CA).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<RuntimeInfo>,
    pub platform: String,
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// The objects of one component.
pub struct ComponentInfo {
    pub name: String,
    pub objects: Vec<ObjectInfo>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// One installed object.
pub struct ObjectInfo {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// For workloads: whether they are ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// One runtime the agent serves, and whether its credentials work.
pub struct RuntimeInfo {
    pub name: String,
    /// Its file's key in the agent's runtimes Secret (`None`: no file).
    pub config_key: Option<String>,
    /// The API server the agent reaches the runtime's cluster at.
    pub host: Option<String>,
    pub namespace: Option<String>,
    /// Whether the platform lists it on the agent (`None`: not asked).
    pub on_platform: Option<bool>,
    /// Whether the agent's credentials work (`None`: not checked).
    pub works: Option<bool>,
    /// The check's result, in words.
    pub credentials: String,
    /// The command that gives the agent working credentials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// The StorageClass of the dind volumes.
pub struct StorageInfo {
    pub class_name: String,
    /// False for a StorageClass the user brought.
    pub installed_by_cf_runner: bool,
    pub exists: bool,
    pub provisioner: Option<String>,
    pub backend: Option<String>,
    pub parameters: BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
/// One dind volume (PVC or PV).
pub struct VolumeInfo {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub status: Option<String>,
    pub capacity: Option<String>,
    pub storage_class: Option<String>,
}

/// The human form of a report: one block per installation, or how to
/// install one when there is none.
pub fn print_table(report: &Report, namespace: Option<&str>) {
    if report.installations.is_empty() {
        let place = match namespace {
            Some(ns) => format!("namespace {ns} of context {}", report.context),
            None => format!("context {}", report.context),
        };
        super::say(&format!("No Codefresh Runner is installed in {place}."));
        super::say("Install one with `cf-runner init`.");
        return;
    }
    for (i, inst) in report.installations.iter().enumerate() {
        if i > 0 {
            super::say("");
        }
        print_installation(inst, report);
    }
}

fn print_installation(inst: &InstallationInfo, report: &Report) {
    super::heading(&format!(
        "Codefresh Runner in namespace {} (context {}, {})",
        inst.namespace, report.context, report.server
    ));
    print_facts(inst);
    print_components(inst);
    if !inst.runtimes.is_empty() {
        print_runtimes(&inst.runtimes);
    }
    super::heading("Storage");
    match &inst.storage {
        Some(s) => print_storage(s),
        None => super::say("  unknown (no installation record)"),
    }
    print_volumes(&inst.volumes);
    for note in &inst.notes {
        super::warn(note);
    }
    let not_ready: Vec<String> = inst
        .components
        .iter()
        .flat_map(|c| &c.objects)
        .filter(|o| o.ready == Some(false))
        .map(|o| {
            format!(
                "{}/{} ({})",
                o.kind,
                o.name,
                o.status.clone().unwrap_or_default()
            )
        })
        .collect();
    if not_ready.is_empty() {
        super::done("every workload is ready");
    } else {
        super::warn(&format!("not ready: {}", not_ready.join(", ")));
    }
}

/// Who installed it, the agent and runtime names, the summary, the platform.
fn print_facts(inst: &InstallationInfo) {
    let unknown = || "unknown".to_string();
    let unverified = |name: String| {
        if inst.registered == Some(false) {
            format!("{name} (offline install: not registered, not verified)")
        } else {
            name
        }
    };
    let mut facts: Vec<Vec<String>> = vec![
        vec![
            "installed by".into(),
            match (&inst.installed_by, &inst.record_format) {
                (Some(v), Some(f)) => format!("cf-runner {v} (record format {f})"),
                (Some(v), None) => format!("cf-runner {v}"),
                _ => unknown(),
            },
        ],
        vec![
            "agent".into(),
            unverified(inst.agent_name.clone().unwrap_or_else(unknown)),
        ],
        vec![
            "runtime environment".into(),
            unverified(inst.runtime_name.clone().unwrap_or_else(unknown)),
        ],
    ];
    for (k, v) in &inst.summary {
        facts.push(vec![k.clone(), v.as_str().unwrap_or_default().to_string()]);
    }
    facts.push(vec!["platform".into(), inst.platform.clone()]);
    super::table(2, &["", ""], &facts);
}

/// Each component's objects, with readiness, status and images.
fn print_components(inst: &InstallationInfo) {
    super::heading("Components");
    let mut rows = Vec::new();
    for c in &inst.components {
        for (i, o) in c.objects.iter().enumerate() {
            let ready = match o.ready {
                Some(true) => "yes".to_string(),
                Some(false) => "no".to_string(),
                None => String::new(),
            };
            rows.push(vec![
                if i == 0 {
                    c.name.clone()
                } else {
                    String::new()
                },
                format!("{}/{}", o.kind, o.name),
                ready,
                o.status.clone().unwrap_or_default(),
                o.images.join(", "),
            ]);
        }
    }
    super::table(
        2,
        &["COMPONENT", "OBJECT", "READY", "STATUS", "IMAGES"],
        &rows,
    );
}

/// The dind StorageClass: whose it is, whether it exists, how it provisions.
fn print_storage(s: &StorageInfo) {
    let whose = if s.installed_by_cf_runner {
        "installed by cf-runner"
    } else {
        "brought by you"
    };
    let mut rows = vec![vec![
        "class".to_string(),
        format!("{} ({whose})", s.class_name),
    ]];
    if !s.exists {
        rows.push(vec!["".into(), "missing from the cluster".into()]);
    }
    if let Some(p) = &s.provisioner {
        rows.push(vec!["provisioner".into(), p.clone()]);
    }
    if let Some(b) = &s.backend {
        rows.push(vec!["backend".into(), b.clone()]);
    }
    let params: Vec<String> = s
        .parameters
        .iter()
        .filter(|(k, _)| k.as_str() != "volumeBackend")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !params.is_empty() {
        rows.push(vec!["parameters".into(), params.join(", ")]);
    }
    super::table(2, &["", ""], &rows);
}

/// The builds' dind volumes, or "none".
fn print_volumes(volumes: &[VolumeInfo]) {
    super::heading("dind volumes");
    if volumes.is_empty() {
        super::say("  none");
        return;
    }
    let rows: Vec<Vec<String>> = volumes
        .iter()
        .map(|v| {
            vec![
                format!("{}/{}", v.kind, v.name),
                v.status.clone().unwrap_or_default(),
                v.capacity.clone().unwrap_or_default(),
                v.storage_class.clone().unwrap_or_default(),
            ]
        })
        .collect();
    super::table(2, &["VOLUME", "STATUS", "SIZE", "CLASS"], &rows);
}

fn print_runtimes(runtimes: &[RuntimeInfo]) {
    super::heading("Runtimes served by the agent");
    let rows: Vec<Vec<String>> = runtimes
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.namespace.clone().unwrap_or_else(|| "?".into()),
                r.host.clone().unwrap_or_default(),
                match r.on_platform {
                    Some(true) => "listed".into(),
                    Some(false) => "not listed".into(),
                    None => "not asked".into(),
                },
                r.credentials.clone(),
            ]
        })
        .collect();
    super::table(
        2,
        &["RUNTIME", "NAMESPACE", "HOST", "PLATFORM", "CREDENTIALS"],
        &rows,
    );
}

//! The view model of `cf-runner diagnose` and its text form.
//! `app::day_two::diagnose` reads the cluster into a [`Diagnosis`]; JSON and
//! YAML print it as it is, and [`print_text`] is what a person reads: one
//! line per build pod, one line per cause with its fix and the guide's
//! section, the patterns across builds, and a last line that says whether
//! anything is wrong.

use serde::Serialize;

use super::{heading, say, table};

/// The user guide's page that explains each cause; a cause's `guide` is
/// this page with the cause's anchor.
pub const GUIDE_PAGE: &str = "docs/guide/diagnose.md";

/// Every kind of cause and pattern: each is a section of [`GUIDE_PAGE`]
/// whose heading gives this anchor (a test holds the page to the list).
pub const KINDS: [&str; 17] = [
    "insufficient-resources",
    "untolerated-taint",
    "no-matching-node",
    "not-scheduled",
    "quota-or-limitrange",
    "missing-priorityclass",
    "admission-refused",
    "volume-not-provisioned",
    "volume-not-attached",
    "image-pull",
    "evicted",
    "oom-killed",
    "node-gone",
    "dind-certificate",
    "bridge-overlap",
    "slow-scheduling",
    "volume-reuse",
];

/// What `diagnose -o json|yaml` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub context: String,
    /// The namespace of the installation looked at.
    pub namespace: String,
    /// The window looked at, in words (`1h`).
    pub since: String,
    pub runtimes: Vec<RuntimeDiagnosis>,
    /// What is wrong beyond one pod (the dind certificate).
    pub causes: Vec<Cause>,
    /// What the builds together show.
    pub patterns: Vec<Pattern>,
    /// What could not be looked at, and why.
    pub notes: Vec<String>,
    /// False when any cause was found: the exit code is then 1.
    pub nothing_wrong: bool,
}

/// The builds of one runtime (the agent's own, or one attached to it).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeDiagnosis {
    /// The runtime environment's name, when known.
    pub runtime: Option<String>,
    /// The kube context its builds run in.
    pub context: String,
    pub namespace: String,
    pub pods: Vec<BuildPod>,
}

/// One engine or dind pod of a build.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildPod {
    pub name: String,
    /// `engine` or `dind`.
    pub role: String,
    /// The build it belongs to, read from the pod's name (`dind-<build>`).
    pub build: Option<String>,
    pub phase: String,
    /// When it was created (RFC 3339).
    pub created: String,
    /// Seconds from its creation until a node was given to it (or until
    /// now, when it still waits).
    pub waited_for_node_seconds: Option<i64>,
    /// Seconds from its creation until its first container started.
    pub started_after_seconds: Option<i64>,
    pub node: Option<String>,
    /// Why it did not run as expected; empty when it did.
    pub causes: Vec<Cause>,
}

/// One thing that went wrong, with what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    /// A stable name of the kind of cause (the guide's anchor).
    pub kind: String,
    /// What went wrong, in one line.
    pub what: String,
    /// What to do about it.
    pub fix: String,
    /// The guide's section that explains it.
    pub guide: String,
}

impl Cause {
    /// A cause of kind `kind` (also its anchor on the guide's page). `what`
    /// quotes the cluster (events, the scheduler, a registry's answer), so
    /// credentials in it are masked here, for the JSON as for the text.
    pub fn new(kind: &str, what: impl Into<String>, fix: impl Into<String>) -> Cause {
        debug_assert!(
            KINDS.contains(&kind),
            "{kind} has no section in {GUIDE_PAGE}"
        );
        Cause {
            kind: kind.to_string(),
            what: crate::text::masked_printout(&what.into()),
            fix: fix.into(),
            guide: format!("{GUIDE_PAGE}#{kind}"),
        }
    }
}

/// A finding across builds: advice, not a failure.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pattern {
    pub kind: String,
    pub text: String,
    pub guide: String,
}

fn duration_text(seconds: Option<i64>) -> String {
    match seconds {
        None => "-".into(),
        Some(s) if s < 120 => format!("{s}s"),
        Some(s) if s < 7200 => format!("{}m{:02}s", s / 60, s % 60),
        Some(s) => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

fn cause_line(subject: &str, c: &Cause) -> String {
    format!("✗ {subject}: {}; fix: {} (see {})", c.what, c.fix, c.guide)
}

/// The text form: a table of build pods per runtime, then each cause, the
/// patterns, the notes, and whether anything is wrong.
pub fn print_text(d: &Diagnosis) {
    for rt in &d.runtimes {
        let runtime = rt
            .runtime
            .as_deref()
            .map(|r| format!(", runtime {r}"))
            .unwrap_or_default();
        heading(&format!(
            "Build pods of the last {} in namespace {} (context {}{runtime})",
            d.since, rt.namespace, rt.context
        ));
        if rt.pods.is_empty() {
            say("  no build pod in the window");
            continue;
        }
        let rows: Vec<Vec<String>> = rt
            .pods
            .iter()
            .map(|p| {
                vec![
                    p.name.clone(),
                    p.role.clone(),
                    p.phase.clone(),
                    duration_text(p.waited_for_node_seconds),
                    duration_text(p.started_after_seconds),
                    p.node.clone().unwrap_or_else(|| "-".into()),
                ]
            })
            .collect();
        table(
            2,
            &[
                "POD",
                "ROLE",
                "PHASE",
                "WAITED FOR NODE",
                "STARTED AFTER",
                "NODE",
            ],
            &rows,
        );
        for p in &rt.pods {
            for c in &p.causes {
                say(&cause_line(&format!("{}/{}", rt.namespace, p.name), c));
            }
        }
    }
    for c in &d.causes {
        say(&cause_line(&format!("namespace {}", d.namespace), c));
    }
    for p in &d.patterns {
        say(&format!("pattern: {} (see {})", p.text, p.guide));
    }
    for n in &d.notes {
        super::note(n);
    }
    if d.nothing_wrong {
        let pods: usize = d.runtimes.iter().map(|r| r.pods.len()).sum();
        say(&format!(
            "nothing wrong: {pods} build pod(s) of the last {} ran or wait as expected",
            d.since
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_shown_in_the_unit_a_person_reads() {
        assert_eq!(duration_text(None), "-");
        assert_eq!(duration_text(Some(45)), "45s");
        assert_eq!(duration_text(Some(185)), "3m05s");
        assert_eq!(duration_text(Some(7260)), "2h01m");
    }

    /// A cause's link must land on its section: GitHub's anchor of each
    /// `##` heading of the page, as docs_front_door computes it.
    #[test]
    fn every_kind_has_a_section_in_the_guide() {
        let page = include_str!("../../docs/guide/diagnose.md");
        let anchors: Vec<String> = page
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .map(|h| {
                h.trim()
                    .to_lowercase()
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let missing: Vec<&str> = KINDS
            .iter()
            .filter(|k| !anchors.iter().any(|a| a == *k))
            .copied()
            .collect();
        assert!(
            missing.is_empty(),
            "no section in {GUIDE_PAGE} for {missing:?}"
        );
    }

    #[test]
    fn credentials_quoted_from_the_cluster_are_masked() {
        let c = Cause::new(
            "image-pull",
            "failed to pull from https://robot:s3cr3t-pull@registry.example/dind: denied",
            "fix",
        );
        assert!(!c.what.contains("s3cr3t-pull"), "{}", c.what);
        assert!(c.what.contains("registry.example/dind"), "{}", c.what);
    }

    #[test]
    fn a_cause_links_its_section_of_the_guide() {
        let c = Cause::new("oom-killed", "killed", "raise it");
        assert_eq!(c.guide, "docs/guide/diagnose.md#oom-killed");
        assert!(cause_line("ns/dind-1", &c).contains("fix: raise it"));
    }
}

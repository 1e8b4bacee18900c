//! Pod admission: would the namespace let the runner's pods, and a build's
//! dind pod and its volume claim, in? RBAC says who may create a
//! Deployment; only admission says whether its pods will ever exist. A
//! namespace that enforces Pod Security `baseline` takes every Deployment
//! and then refuses each pod, and the install waits in vain.
//!
//! Two sources, asked side by side:
//! - a server-side dry-run create of one Pod from each pod template the
//!   install renders (Deployments, DaemonSets, Jobs, CronJobs), of a build's
//!   dind pod built from the runtime spec, and of its volume claim: Pod
//!   Security, ResourceQuota, LimitRange, policy webhooks and
//!   ValidatingAdmissionPolicies all answer, and nothing is persisted;
//! - the namespace's own Pod Security labels, ResourceQuotas and LimitRanges,
//!   read and reasoned about here, so the report also works where a dry-run
//!   is not possible (the namespace does not exist yet, the user may not
//!   create pods, a webhook does not support dry-run).
//!
//! A dry-run answer that differs from what was sent (a sidecar, a rewritten
//! image) is a mutating webhook at work: a warning naming the fields.
//!
//! The deciding logic (Pod Security levels, quota arithmetic, the diff of
//! a mutated pod, which fix fits which refusal) is pure and unit-tested.

//!
//! The pure parts live in submodules, one per thing admission weighs:
//! `pod_security`, `candidates` (what is asked), `refusals`, `mutations`
//! and `quotas` (ResourceQuotas and LimitRanges). This file asks the
//! cluster and weaves their answers into one check.

mod candidates;
mod mutations;
mod pod_security;
mod quotas;
mod refusals;

use kube::api::{DynamicObject, ListParams, PostParams};
use kube::Client;
use serde_json::Value;

use super::{api_message, names, Check, NamespaceState};
use crate::cluster::{api_for, request, KubeError, FIELD_MANAGER};
use crate::render::Manifest;

pub use candidates::{build_objects, dind_claim, dind_pod, workload_pods, Candidate, EVERY_BUILD};
pub use mutations::mutations;
pub use pod_security::{label_command, level_needed, Level, ENFORCE_LABEL};
pub use quotas::{limit_range_findings, quota_findings, quota_needs};
pub use refusals::{fix_for, refuser, Refuser};

use pod_security::below;
use refusals::enforced_in;

// ------------------------------------------------------------ the check

/// The namespace as read before the check.
#[derive(Debug, Clone, Copy)]
pub struct NamespaceView<'a> {
    pub name: &'a str,
    pub state: NamespaceState,
    /// The live namespace, when it exists and could be read.
    pub live: Option<&'a Value>,
}

/// What one dry-run gave.
#[derive(Debug)]
enum Answer {
    Admitted(Value),
    Refused(String),
    /// The user may not create this kind (RBAC), so admission was not asked.
    NotAllowed,
    /// A webhook on the path does not support dry-run.
    NoDryRun(String),
    /// No answer, or an error that is not admission's.
    Failed(String),
}

/// The fix for a create that admission refused, worded as the preflight
/// words it; `None` when the error is not admission's (no permission, no
/// answer). `pod` is the pod sent, if it was one.
pub fn explain_refusal(
    err: &KubeError,
    component: &str,
    namespace: &str,
    pod: Option<&Value>,
) -> Option<String> {
    let Answer::Refused(message) = classify(err) else {
        return None;
    };
    let level = pod
        .and_then(|p| p.get("spec"))
        .map(|s| level_needed(s).0)
        .unwrap_or(Level::Privileged);
    let level = settled_level(level, &message);
    Some(fix_for(&message, component, namespace, level, &[]))
}

fn classify(err: &KubeError) -> Answer {
    let message = api_message(err);
    if err.code().is_none() {
        return Answer::Failed(message);
    }
    if message.contains("does not support dry run") {
        return Answer::NoDryRun(message);
    }
    if err.code() == Some(403) && message.contains("cannot create resource") {
        return Answer::NotAllowed;
    }
    if err.code() == Some(401) {
        return Answer::Failed(message);
    }
    Answer::Refused(message)
}

/// The check: dry-runs, labels, quotas and LimitRanges, asked at once.
pub(super) async fn check_admission(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
    ns: NamespaceView<'_>,
) -> Check {
    let mut candidates = workload_pods(manifests);
    if let Some(spec) = runtime_environment {
        candidates.extend(build_objects(spec));
    }
    if candidates.is_empty() {
        return Check::pass(names::ADMISSION, "no pod to check");
    }
    // The Pod Security level each pod needs, from the spec alone.
    let needs: Vec<Need> = candidates
        .iter()
        .map(|c| c.pod_spec().map(level_needed))
        .collect();
    let mut report = Report::default();
    if !matches!(ns.state, NamespaceState::Ours | NamespaceState::Foreign) {
        report.without_namespace(manifests, &candidates, &needs, ns);
        return report.finish(candidates.len(), false);
    }
    let labels = LabelVerdict::read(&candidates, &needs, ns, &mut report.notes);
    let (answers, quotas, ranges) = ask(client, &candidates, ns.name).await;
    let range_names: Vec<String> = ranges
        .as_ref()
        .map(|r| {
            r.iter()
                .filter_map(|x| x.pointer("/metadata/name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let dry_run = report.dry_run_answers(&candidates, answers, &needs, ns.name, &range_names);
    report.pod_security(labels, &dry_run, &needs, ns.name);
    report.quotas(quotas, &candidates, ns.name);
    report.limit_ranges(ranges, &candidates, ns.name);
    report.finish(candidates.len(), dry_run.unanswered)
}

/// The Pod Security level a pod needs and why the next one refuses it;
/// `None` for a volume claim.
type Need = Option<(Level, Vec<String>)>;

/// What the namespace's objects of one kind read as, or why not.
type Listed = Result<Vec<Value>, KubeError>;

/// The check's lines as they gather, each list in the order it is shown.
#[derive(Default)]
struct Report {
    findings: Vec<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
    fixes: Vec<String>,
}

/// The Pod Security word of the namespace's enforce label, read before any
/// dry-run: which pods it keeps out, and the line that says so.
struct LabelVerdict {
    refused: Vec<usize>,
    summary: Option<String>,
}

/// What the dry-runs settled between them.
struct DryRunTally {
    /// Which candidates admission answered for, by index.
    answered: Vec<bool>,
    /// The level each pod refused by Pod Security needs.
    psa_refused: Vec<Level>,
    /// A dry-run got no answer at all.
    unanswered: bool,
}

/// The dry-runs, the ResourceQuotas and the LimitRanges, asked at once.
async fn ask(
    client: &Client,
    candidates: &[Candidate],
    namespace: &str,
) -> (Vec<Answer>, Listed, Listed) {
    let pods = api_for(client, "v1", "Pod", Some(namespace));
    let claims = api_for(client, "v1", "PersistentVolumeClaim", Some(namespace));
    let params = PostParams {
        dry_run: true,
        field_manager: Some(FIELD_MANAGER.to_string()),
    };
    let dry_runs = futures::future::join_all(candidates.iter().map(|c| {
        let api = if c.kind == "Pod" { &pods } else { &claims };
        let params = params.clone();
        async move {
            let object: DynamicObject = match serde_json::from_value(c.object.clone()) {
                Ok(o) => o,
                Err(e) => return Answer::Failed(e.to_string()),
            };
            let shown = format!("{} {}", c.kind, c.component);
            match request("dry-running", &shown, api.create(&params, &object)).await {
                Ok(o) => Answer::Admitted(serde_json::to_value(o).unwrap_or(Value::Null)),
                Err(e) => classify(&e),
            }
        }
    }));
    let list = |kind: &'static str| {
        let api = api_for(client, "v1", kind, Some(namespace));
        async move {
            request("listing", kind, api.list(&ListParams::default()))
                .await
                .map(|l| {
                    l.items
                        .into_iter()
                        .map(|i| serde_json::to_value(i).unwrap_or(Value::Null))
                        .collect::<Vec<Value>>()
                })
        }
    };
    futures::join!(dry_runs, list("ResourceQuota"), list("LimitRange"))
}

impl LabelVerdict {
    /// Pod Security from the labels, so the report holds without a
    /// dry-run: which pods the enforced level keeps out, and the level they
    /// need. A label that names no level is a note.
    fn read(
        candidates: &[Candidate],
        needs: &[Need],
        ns: NamespaceView<'_>,
        notes: &mut Vec<String>,
    ) -> Self {
        let mut verdict = LabelVerdict {
            refused: Vec::new(),
            summary: None,
        };
        let enforce = ns
            .live
            .and_then(|l| l.pointer("/metadata/labels"))
            .and_then(|l| l.get(ENFORCE_LABEL))
            .and_then(Value::as_str);
        let Some(text) = enforce else {
            return verdict;
        };
        let Some(level) = Level::parse(text) else {
            notes.push(format!(
                "namespace {} has {ENFORCE_LABEL}={text}, which is not a Pod Security level",
                ns.name
            ));
            return verdict;
        };
        verdict.refused = needs
            .iter()
            .enumerate()
            .filter(|(_, n)| n.as_ref().is_some_and(|(need, _)| *need < level))
            .map(|(i, _)| i)
            .collect();
        if !verdict.refused.is_empty() {
            let parts: Vec<String> = verdict
                .refused
                .iter()
                .map(|i| {
                    let (need, why) = needs[*i].as_ref().expect("a pod");
                    format!(
                        "{} needs `{need}` ({})",
                        candidates[*i].component,
                        why.join("; ")
                    )
                })
                .collect();
            verdict.summary = Some(format!(
                "namespace {} enforces Pod Security `{level}`: {}",
                ns.name,
                parts.join(", ")
            ));
        }
        verdict
    }
}

impl Report {
    /// The namespace is missing or unreadable, so nothing was dry-run:
    /// reason from the levels the pods need and the label the rendered
    /// Namespace will carry.
    fn without_namespace(
        &mut self,
        manifests: &[Manifest],
        candidates: &[Candidate],
        needs: &[Need],
        ns: NamespaceView<'_>,
    ) {
        let missing = ns.state == NamespaceState::Missing;
        self.notes.push(if missing {
            format!(
                "namespace {} does not exist yet, so no pod could be dry-run in it; reasoned from Pod Security levels instead",
                ns.name
            )
        } else {
            format!(
                "namespace {} could not be read, so neither its Pod Security label nor a dry-run was checked",
                ns.name
            )
        });
        let strictest = needs.iter().flatten().map(|(l, _)| *l).min();
        let Some(level) = strictest else {
            return;
        };
        // The labels it will have: those of the rendered Namespace.
        let will_have = manifests
            .iter()
            .find(|m| m.kind == "Namespace")
            .and_then(|m| m.object.pointer("/metadata/labels"))
            .and_then(|l| l.get(ENFORCE_LABEL))
            .and_then(Value::as_str)
            .and_then(Level::parse);
        let who = who_needs(candidates, needs, level);
        match will_have {
            Some(will) if missing && will > level => {
                self.findings.push(format!(
                    "namespace {} will enforce Pod Security `{will}`; the runner needs `{level}`{who}",
                    ns.name
                ));
                self.fixes.push(label_command(ns.name, level));
            }
            _ if missing => self.notes.push(format!(
                "cf-runner makes it with no Pod Security label, so the cluster's default level applies (`privileged` unless the API server's admission configuration sets another); the runner needs `{level}`{who}"
            )),
            _ => self.notes.push(format!(
                "the runner needs Pod Security `{level}`{who}: make sure the namespace allows it"
            )),
        }
    }

    /// Each dry-run's answer as a line: a mutation, a refusal and its fix,
    /// a webhook that could not be asked, or no answer.
    fn dry_run_answers(
        &mut self,
        candidates: &[Candidate],
        answers: Vec<Answer>,
        needs: &[Need],
        namespace: &str,
        range_names: &[String],
    ) -> DryRunTally {
        let mut tally = DryRunTally {
            answered: vec![false; candidates.len()],
            psa_refused: Vec::new(),
            unanswered: false,
        };
        let mut not_allowed = Vec::new();
        for (i, ((c, answer), need)) in candidates.iter().zip(answers).zip(needs).enumerate() {
            match answer {
                Answer::Admitted(got) => {
                    tally.answered[i] = true;
                    let changes = mutations(&c.object, &got);
                    if !changes.is_empty() {
                        self.warnings.push(format!(
                            "{}: admission changed the pod: {}",
                            c.component,
                            changes.join("; ")
                        ));
                    }
                }
                Answer::Refused(message) => {
                    tally.answered[i] = true;
                    let level = need.as_ref().map(|(l, _)| *l).unwrap_or(Level::Privileged);
                    // What the local reading missed, admission's word settles.
                    let level = settled_level(level, &message);
                    let fix = fix_for(&message, &c.component, namespace, level, range_names);
                    self.findings
                        .push(format!("{}: {message}; fix: {fix}", c.component));
                    if refuser(&message) == Refuser::PodSecurity {
                        tally.psa_refused.push(level);
                    } else {
                        self.fixes.push(fix);
                    }
                }
                Answer::NotAllowed => not_allowed.push(c.kind),
                Answer::NoDryRun(message) => self.warnings.push(format!(
                    "{}: {message}; that webhook could not be asked, so it may still refuse the pod",
                    c.component
                )),
                Answer::Failed(message) => {
                    tally.unanswered = true;
                    self.warnings
                        .push(format!("{}: could not dry-run: {message}", c.component));
                }
            }
        }
        not_allowed.sort_unstable();
        not_allowed.dedup();
        if !not_allowed.is_empty() {
            self.notes.push(format!(
                "your user may not create {} in namespace {}, so admission could not be asked in dry-run; reasoned from the namespace's labels, quotas and LimitRanges instead",
                not_allowed.join(" or "),
                namespace
            ));
        }
        tally
    }

    /// Pod Security: the dry-run's refusals, else the labels' word for the
    /// pods no dry-run answered for. A pod the labels would refuse but the
    /// dry-run admitted is exempt (the admission configuration says so).
    fn pod_security(
        &mut self,
        labels: LabelVerdict,
        dry_run: &DryRunTally,
        needs: &[Need],
        namespace: &str,
    ) {
        let unasked_refused: Vec<usize> = labels
            .refused
            .iter()
            .copied()
            .filter(|i| !dry_run.answered[*i])
            .collect();
        let level = if let Some(level) = dry_run.psa_refused.iter().min() {
            if let Some(summary) = labels.summary {
                self.notes.insert(0, summary);
            }
            *level
        } else if !unasked_refused.is_empty() {
            if let Some(summary) = labels.summary {
                self.findings.insert(0, summary);
            }
            unasked_refused
                .iter()
                .filter_map(|i| needs[*i].as_ref().map(|(l, _)| *l))
                .min()
                .unwrap_or(Level::Privileged)
        } else {
            return;
        };
        self.fixes.insert(
            0,
            format!(
                "let the pods in: `{}` (or ask the cluster admin for it)",
                label_command(namespace, level)
            ),
        );
    }

    /// Each ResourceQuota too small for the install and a build, unless a
    /// dry-run already said the same.
    fn quotas(&mut self, quotas: Listed, candidates: &[Candidate], namespace: &str) {
        let need = quota_needs(candidates);
        match quotas {
            Ok(list) => {
                let before = self.findings.len();
                for q in &list {
                    let mut found = quota_findings(q, &need, namespace);
                    found.retain(|f| !self.findings.iter().any(|x| x == f));
                    self.findings.extend(found);
                }
                if self.findings.len() > before {
                    self.notes.extend(quotas::warm_capacity_note(candidates));
                }
            }
            Err(e) if e.code() == Some(403) => self.notes.push(format!(
                "your user may not list ResourceQuotas in namespace {namespace}, so they were not checked against the runner's needs"
            )),
            Err(e) => self
                .warnings
                .push(format!("could not list ResourceQuotas: {}", api_message(&e))),
        }
    }

    /// Each LimitRange maximum a pod or the claim exceeds, unless a dry-run
    /// already named it in admission's words.
    fn limit_ranges(&mut self, ranges: Listed, candidates: &[Candidate], namespace: &str) {
        match ranges {
            Ok(list) => {
                for r in &list {
                    for f in limit_range_findings(r, candidates, namespace) {
                        let component = f.split(':').next().unwrap_or("");
                        let said = self.findings.iter().any(|x| {
                            x.starts_with(
                                component.split(" (container").next().unwrap_or(component),
                            ) && refuser(x) == Refuser::LimitRange
                        });
                        if !said {
                            self.findings.push(f);
                        }
                    }
                }
            }
            Err(e) if e.code() == Some(403) => self.notes.push(format!(
                "your user may not list LimitRanges in namespace {namespace}, so they were not checked"
            )),
            Err(e) => self
                .warnings
                .push(format!("could not list LimitRanges: {}", api_message(&e))),
        }
    }

    /// The check, from the lines gathered.
    fn finish(self, asked: usize, unanswered: bool) -> Check {
        finish(
            asked,
            self.findings,
            self.warnings,
            self.notes,
            self.fixes,
            unanswered,
        )
    }
}

/// The level a refused pod needs: the one read from its spec, unless
/// admission's message names an enforced level that reading missed.
fn settled_level(level: Level, message: &str) -> Level {
    match enforced_in(message) {
        Some(enforced) if level >= enforced => below(enforced),
        _ => level,
    }
}

/// ", for every build (its dind pod): privileged (…)": who needs `level`.
fn who_needs(candidates: &[Candidate], needs: &[Need], level: Level) -> String {
    let who: Vec<String> = candidates
        .iter()
        .zip(needs)
        .filter_map(|(c, n)| {
            let (l, why) = n.as_ref()?;
            (*l == level && level != Level::Restricted)
                .then(|| format!("{}: {}", c.component, why.join("; ")))
        })
        .collect();
    if who.is_empty() {
        String::new()
    } else {
        format!(" ({})", who.join(", "))
    }
}

fn finish(
    asked: usize,
    findings: Vec<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
    mut fixes: Vec<String>,
    unanswered: bool,
) -> Check {
    let mut seen = std::collections::HashSet::new();
    fixes.retain(|f| seen.insert(f.clone()));
    if !findings.is_empty() {
        let pod_security = findings
            .iter()
            .any(|f| f.contains("violates PodSecurity") || f.contains("Pod Security"));
        let reason = format!(
            "admission would refuse {} of what the install and its builds create{}",
            findings.len(),
            if pod_security {
                " (Pod Security among them)"
            } else {
                ""
            }
        );
        let fix = if fixes.is_empty() {
            "see the fix on each line above, then re-run".to_string()
        } else {
            fixes.join("; ")
        };
        let mut details = findings;
        details.extend(warnings);
        details.extend(notes);
        return Check::fail(names::ADMISSION, reason, fix).with_details(details);
    }
    if !warnings.is_empty() {
        let reason = if unanswered {
            "admission could not be asked about every pod".to_string()
        } else {
            "admission accepts the pods, with changes or unchecked webhooks".to_string()
        };
        let mut details = warnings;
        details.extend(notes);
        return Check::warn(
            names::ADMISSION,
            reason,
            "read the lines above: a webhook that changes a build's dind pod (a sidecar, another image) often breaks builds; ask for the namespace to be excluded from it",
        )
        .with_details(details);
    }
    let mut check = Check::pass(
        names::ADMISSION,
        format!(
            "admission accepts the runner's pods, a build's dind pod and its volume claim ({asked} server-side dry-runs)"
        ),
    );
    if !notes.is_empty() {
        check.reason = "no refusal found".into();
    }
    check.with_details(notes)
}

#[cfg(test)]
mod tests;

//! The table of the chart's keys in `docs/chart-parity.md` against the
//! chart's own `values.yaml`: every key a chart user can set has a row that
//! names cf-runner's key or says why there is none, so a new chart version
//! cannot add a setting that cf-runner silently drops, and a row cannot
//! outlive the key it names.
//!
//! A row covers a key and everything under it, so a subtree cf-runner maps
//! as one (`runtime.patch`) needs one row, and a leaf of a subtree without
//! a row of its own needs its own.

use crate::support::helm;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use serde_json::Value;

/// The heading of the table of the chart's keys; the differences table of
/// `chart_parity.rs` ends there.
pub const HEADING: &str = "## Every key of the chart's values";

/// What a row says cf-runner has for a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// A cf-runner key (backticked) takes the setting.
    Mapped,
    /// cf-runner has no key, and the row says why.
    Refused,
    /// Still to do, under issue 44.
    NotYet,
}

/// The rows of the table: chart key → verdict.
fn rows() -> BTreeMap<String, Verdict> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/chart-parity.md");
    let text = fs::read_to_string(path).expect("docs/chart-parity.md exists");
    let table = text
        .split_once(HEADING)
        .unwrap_or_else(|| panic!("docs/chart-parity.md has no section `{HEADING}`"))
        .1;
    let mut rows = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let mut cells = line.split('|').map(str::trim).skip(1);
        let key = cells.next().unwrap().trim_matches('`').to_string();
        let what = cells.next().unwrap_or_default();
        let verdict = if what.starts_with("**not yet: issue 44**") {
            Verdict::NotYet
        } else if what.starts_with("**refused:**") && what.len() > "**refused:**".len() + 3 {
            Verdict::Refused
        } else if what.starts_with('`') {
            Verdict::Mapped
        } else {
            panic!(
                "docs/chart-parity.md, row `{key}`: say a cf-runner key in backticks, \
                 **refused:** and why, or **not yet: issue 44** (found `{what}`)"
            );
        };
        assert!(
            rows.insert(key.clone(), verdict).is_none(),
            "docs/chart-parity.md has two rows for `{key}`"
        );
    }
    rows
}

/// Every key of the chart's values, by dotted path: subtrees and leaves.
/// An empty map or list is a leaf (a setting the user fills).
fn chart_keys() -> (BTreeSet<String>, BTreeSet<String>) {
    let path = helm::chart_dir().join("values.yaml");
    let text = fs::read_to_string(&path).expect("the chart's values.yaml");
    let values: Value = serde_yaml_ng::from_str(&text).expect("the chart's values are YAML");
    let (mut all, mut leaves) = (BTreeSet::new(), BTreeSet::new());
    walk("", &values, &mut all, &mut leaves);
    (all, leaves)
}

fn walk(path: &str, value: &Value, all: &mut BTreeSet<String>, leaves: &mut BTreeSet<String>) {
    if !path.is_empty() {
        all.insert(path.to_string());
    }
    match value.as_object().filter(|m| !m.is_empty()) {
        Some(map) => {
            for (key, child) in map {
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(&child_path, child, all, leaves);
            }
        }
        None => {
            leaves.insert(path.to_string());
        }
    }
}

/// The row that covers `leaf`: its own, or the nearest ancestor's.
fn covering<'a>(leaf: &str, rows: &'a BTreeMap<String, Verdict>) -> Option<&'a String> {
    rows.keys()
        .filter(|k| leaf == k.as_str() || leaf.starts_with(&format!("{k}.")))
        .max_by_key(|k| k.len())
}

#[test]
fn every_key_of_the_chart_has_a_row_in_the_parity_table() {
    let rows = rows();
    let (all, leaves) = chart_keys();
    let missing: Vec<&String> = leaves
        .iter()
        .filter(|leaf| covering(leaf, &rows).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "the chart {} has keys docs/chart-parity.md (`{HEADING}`) does not name: add a row \
         for each (or for the subtree), with cf-runner's key or why there is none: {missing:?}",
        helm::CHART_VERSION
    );
    let unknown: Vec<&String> = rows.keys().filter(|k| !all.contains(*k)).collect();
    assert!(
        unknown.is_empty(),
        "docs/chart-parity.md names keys the chart {} does not have: {unknown:?}",
        helm::CHART_VERSION
    );
    let mut counts: BTreeMap<Verdict, usize> = BTreeMap::new();
    for verdict in rows.values() {
        *counts.entry(*verdict).or_default() += 1;
    }
    // Shown with --nocapture: the figures the closing note asks for.
    println!(
        "chart {}: {} keys ({} leaves), {} rows: {counts:?}",
        helm::CHART_VERSION,
        all.len(),
        leaves.len(),
        rows.len()
    );
}

/// Chart 10.5.2 renders `global.imagePullSecrets` one level too deep in
/// every Deployment, so helm refuses the release; cf-runner's Helm values
/// leave the key out and say why (`render::helm`). When a chart version
/// renders it, this fails, and the generated file should carry the key.
#[test]
fn the_charts_own_pull_secrets_key_still_breaks_its_release() {
    let tmp = tempfile::tempdir().unwrap();
    let base = "global:\n  codefreshToken: t\n  accountId: a\n  context: c\n";
    let plain = tmp.path().join("plain.yaml");
    fs::write(&plain, base).unwrap();
    helm::template("codefresh", &[&plain]).expect("the chart renders without pull secrets");
    let with_secrets = tmp.path().join("pull-secrets.yaml");
    fs::write(
        &with_secrets,
        format!("{base}  imagePullSecrets: [mirror-pull]\n"),
    )
    .unwrap();
    let Err(err) = helm::template("codefresh", &[&with_secrets]) else {
        panic!(
            "the chart renders global.imagePullSecrets now: write ImagePullSecrets into the \
             generated Helm values (src/render/helm.rs) and drop the note and the parity row"
        );
    };
    assert!(err.contains("did not find expected key"), "{err}");
}

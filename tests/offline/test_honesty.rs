//! The end-to-end tests are the outer ring: with `CF_RUNNER_SKIP_E2E=1`
//! (fast tests alone, see CONTRIBUTING.md) each must be reported as ignored, never
//! as passed. That works only while every test in an `e2e_*.rs` file carries
//! `#[cfg_attr(skip_e2e, ignore = ...)]` (see `build.rs`), those that need no
//! cluster too (the whole outer ring is skipped), wherever the file is:
//! at the top of `tests/` or in a group's folder (`tests/e2e/`). Several people add
//! end-to-end tests at once; this keeps a forgotten attribute from turning a
//! skipped test into a passing one.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::ci;

const ATTR: &str = "#[cfg_attr(skip_e2e, ignore";

/// The test functions of `text` that lack the skip attribute.
fn unmarked_tests(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if !(t == "#[test]" || t.starts_with("#[tokio::test")) {
            continue;
        }
        // The attributes up to the `fn` line.
        let mut marked = false;
        let mut name = String::from("?");
        for next in &lines[i + 1..] {
            let n = next.trim();
            if n.starts_with(ATTR) {
                marked = true;
            }
            if let Some(rest) = n
                .strip_prefix("fn ")
                .or_else(|| n.strip_prefix("async fn "))
            {
                name = rest.split('(').next().unwrap_or("?").to_string();
                break;
            }
        }
        if !marked {
            out.push(name);
        }
    }
    out
}

/// Every `.rs` file under `dir`, in its folders too: the test groups
/// (`tests/offline/`, `tests/e2e/`) and `tests/support/`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn every_end_to_end_test_is_ignored_not_passed_when_skipped() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    let mut seen = 0;
    for path in rust_files(&dir) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("e2e_") && name.ends_with(".rs")) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        seen += text.matches("#[test]").count() + text.matches("#[tokio::test").count();
        for test in unmarked_tests(&text) {
            missing.push(format!("{name}: {test}"));
        }
    }
    assert!(
        seen > 40,
        "found only {seen} end-to-end tests in {}",
        dir.display()
    );
    assert!(
        missing.is_empty(),
        "end-to-end tests without `{ATTR} = \"CF_RUNNER_SKIP_E2E=1\")]` \
         (they would pass in silence when skipped):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn a_test_without_the_attribute_is_found() {
    let text = "#[test]\n#[cfg_attr(skip_e2e, ignore = \"x\")]\nfn marked() {}\n\
                #[tokio::test(flavor = \"multi_thread\")]\nasync fn unmarked() {}\n";
    assert_eq!(unmarked_tests(text), vec!["unmarked".to_string()]);
}

/// `CI=1`, `CI=yes` or any other non-empty value is CI, not only `CI=true`:
/// under it a missing shell failed nothing and `UPDATE_*` rewrote the
/// snapshots it should compare.
#[test]
fn any_non_empty_ci_is_ci() {
    let cases: &[(Option<&str>, bool)] = &[
        (None, false),
        (Some(""), false),
        (Some("true"), true),
        (Some("1"), true),
        (Some("yes"), true),
        (Some("TRUE"), true),
        (Some("woodpecker"), true),
    ];
    for (value, want) in cases {
        assert_eq!(ci::is_ci(value.map(OsStr::new)), *want, "CI={value:?}");
    }
}

/// Every test reads `CI` through `tests/support/ci.rs` (and `build.rs`
/// through its one function), so no file keeps its own, narrower rule.
#[test]
fn ci_is_read_in_one_place() {
    let needle = ["\"", "C", "I", "\""].concat();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("build.rs")];
    files.extend(rust_files(&root.join("tests")));
    let mut offences = Vec::new();
    for path in &files {
        let text = fs::read_to_string(path).unwrap();
        let reads = text.matches(&needle).count();
        let allowed = match path.strip_prefix(root).unwrap().to_str().unwrap() {
            "tests/support/ci.rs" => usize::MAX,
            "build.rs" | "tests/host-tools/build.rs" => 1,
            _ => 0,
        };
        if reads > allowed {
            offences.push(format!("{} reads CI {reads} times", path.display()));
        }
    }
    assert!(files.len() > 20, "{files:?}");
    assert!(offences.is_empty(), "{offences:#?}");
}

/// Under CI no completion test is built ignored: `tests/host-tools` marks a
/// missing shell's test ignored only outside CI, so there it fails.
#[test]
fn under_ci_no_shell_test_is_ignored() {
    let ignored: &[&str] = cf_runner_test_host::ignored_shells!();
    if ci::under_ci() {
        assert!(ignored.is_empty(), "ignored under CI: {ignored:?}");
    }
}

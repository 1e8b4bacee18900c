//! Unit tests of the export: folder syncs around the moves, and URL
//! credentials masked in the stream on stdout.

use super::*;

fn files(text: &str) -> Vec<OutFile> {
    ["a.yaml", "b.yaml"]
        .iter()
        .map(|name| OutFile {
            name: (*name).into(),
            text: format!("{name}: {text}\n"),
            private: false,
        })
        .collect()
}

fn steps() -> Vec<String> {
    STEPS.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// The power-loss promise rests on the order: a new folder's files and
/// entries durable before it takes the export's name, and that name
/// (and the folders made for it) durable before the run returns; in a
/// folder that is there, the pending record's name durable before any
/// file moves, every move durable before the run returns.
#[test]
fn folder_syncs_bracket_the_moves_and_reach_the_folders_made() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("new").join("export");
    steps();
    write_files(&dir, &files("one"), false).unwrap();
    let sync = |p: &Path| format!("sync {}", p.display());
    assert_eq!(
        steps(),
        vec![
            // a.yaml, b.yaml, the record and its key.
            "sync 4 files and their folder".into(),
            format!("rename to {}", dir.display()),
            sync(&tmp.path().join("new")),
            sync(tmp.path()),
        ]
    );
    let mut names: Vec<String> = fs::read_dir(tmp.path().join("new"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["export"], "nothing is left beside the export");
    // Into the folder that is there now: its own syncs only.
    write_files(&dir, &files("two"), false).unwrap();
    assert_eq!(
        steps(),
        vec![
            format!("rename {PENDING_RECORD_FILE}"),
            sync(&dir),
            "rename a.yaml".into(),
            "rename b.yaml".into(),
            format!("rename {EXPORT_RECORD_FILE}"),
            sync(&dir),
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.join("b.yaml")).unwrap(),
        "b.yaml: two\n"
    );
}

/// The stream copies only the objects it changes; one that is not a
/// Secret still shows a URL's credentials masked, and the objects
/// around it unchanged.
#[test]
fn the_stdout_stream_masks_url_credentials_in_any_object() {
    let object = |kind: &str, name: &str, data: Value| crate::render::Manifest {
        api_version: "v1".into(),
        kind: kind.into(),
        name: name.into(),
        namespace: Some("ns".into()),
        component: crate::render::Component::Runner,
        stage: 1,
        object: serde_json::json!({
            "apiVersion": "v1",
            "kind": kind,
            "metadata": {"name": name},
            "data": data,
        }),
    };
    let rendered = Rendered {
        manifests: vec![
            object(
                "ConfigMap",
                "plain",
                serde_json::json!({"url": "https://proxy:3128"}),
            ),
            object(
                "ConfigMap",
                "proxy",
                serde_json::json!({"url": "http://user:hunter2@proxy:3128", "n": "1"}),
            ),
            object("Secret", "token", serde_json::json!({"token": "abc"})),
        ],
        runtime_environment: serde_json::json!({"name": "rt"}),
    };
    let (stream, withheld) = to_stream(&rendered);
    assert!(!stream.contains("hunter2"), "{stream}");
    assert!(
        stream.contains("http://user:<redacted>@proxy:3128"),
        "{stream}"
    );
    assert!(stream.contains("url: https://proxy:3128\n"), "{stream}");
    assert!(!stream.contains("abc"), "{stream}");
    assert_eq!(withheld, 1);
}

//! Loading an already merged values tree gives what loading the input
//! gives, for every example; and what the input itself sets.

use super::*;

/// A dry-run loads the tree it merged to decide whether to ask
/// ([`load_merged`]) instead of parsing the files again ([`load`]):
/// both must give the same values, record, warnings and runtimes, for
/// every example and with overrides on top.
#[test]
fn loading_the_merged_tree_gives_what_loading_the_input_gives() {
    let mut seen = 0;
    for (path, example) in super::example_inputs() {
        let input = Input {
            set_values: vec!["EnvVars.EXTRA=1".into()],
            overrides: vec![("Namespace".into(), Value::String("other".into()))],
            ..example
        };
        let mut problems = Vec::new();
        let tree = merge_layers(&input, &mut problems);
        assert!(problems.is_empty(), "{}: {problems:?}", path.display());
        assert_eq!(
            format!("{:?}", load_merged(tree)),
            format!("{:?}", load(&input)),
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} examples read");
}

#[test]
fn sets_names_what_this_runs_own_input_gives() {
    let mut input = Input::default();
    assert!(!input.sets("CaBundle"));
    input.files.push(ValuesFile {
        origin: "values.yaml".into(),
        text: "Storage:\n  Backend: local\n".into(),
    });
    assert!(input.sets("Storage.Backend") && input.sets("Storage"));
    assert!(!input.sets("CaBundle") && !input.sets("Stor"));
    input.set_values.push("CaBundleX=1".into());
    assert!(!input.sets("CaBundle"), "a longer key is another key");
    input
        .overrides
        .push(("CaBundle".into(), Value::String("pem".into())));
    assert!(input.sets("CaBundle"));
}

//! `cf-runner support-bundle` with a bad flag value: exit 2 naming the
//! flag, before any cluster is reached and with nothing written.

use crate::support;

use support::cli::text;

/// A bad value exits 2 naming the flag, before the cluster is reached.
#[test]
fn a_bad_flag_value_exits_2_naming_it() {
    let home = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--max-size", "10x"),
        ("--max-size", "1Ki"),
        ("--max-log-bytes", "lots"),
        ("--since", "0"),
        ("--since", "90d"),
    ] {
        let out = support::cli::cf_runner(home.path())
            .args(["support-bundle", flag, value])
            .output()
            .unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {said}");
        assert!(said.contains(flag), "{flag} {value}: {said}");
        assert_eq!(
            std::fs::read_dir(home.path()).unwrap().count(),
            0,
            "nothing written"
        );
    }
}

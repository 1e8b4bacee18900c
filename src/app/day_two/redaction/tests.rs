//! Unit tests of `app/day_two/redaction.rs`.

use std::collections::BTreeMap;

use super::*;

/// Every secret value of a Secret is known, and nothing public: a
/// runtime's file gives its token (not its CA), a certificate or a
/// token Secret's namespace is left out, the record holds no secret.
#[test]
fn every_secret_value_is_known_and_no_public_one() {
    let data = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    let file = format!(
        "type: runtime\nname: ctx/b\nhost: https://h\ntoken: rt-token-123456789\ncrt: |\n  {}",
        cert.replace('\n', "\n  ")
    );
    let cases: Vec<(&str, BTreeMap<String, String>, Vec<&str>)> = vec![
        (
            "runnerconf",
            data(&[("ctx.b.runtime.yaml", &file)]),
            vec!["rt-token-123456789"],
        ),
        (
            "codefresh-certs-server",
            data(&[
                ("ca.pem", cert),
                ("server-cert.pem", cert),
                ("server-key.pem", "-----BEGIN PRIVATE KEY-----\nK\n"),
            ]),
            vec!["-----BEGIN PRIVATE KEY-----\nK\n"],
        ),
        (
            "cf-runner-agent-token",
            data(&[
                ("token", "sa-token-abcdefgh"),
                ("ca.crt", cert),
                ("namespace", "builds"),
            ]),
            vec!["sa-token-abcdefgh"],
        ),
        (
            "cf-runner-values",
            data(&[("agent-name", "ctx_ns"), ("values.yaml", "a: b")]),
            vec![],
        ),
        (
            "my-secret",
            data(&[("password", "hunter2-hunter2")]),
            vec!["hunter2-hunter2"],
        ),
    ];
    for (name, data, want) in cases {
        let got: Vec<String> = secret_values(name, &data)
            .into_iter()
            .map(|(_, v)| v.expose().to_string())
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

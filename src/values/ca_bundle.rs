//! `CaBundle`: the certificates of a TLS-inspecting proxy (or of a private
//! CA) that every component and every build must trust on top of the
//! public roots.
//!
//! The key holds the PEM text itself, not a path: the record keeps the
//! values, and `upgrade` or `diff` run later (from another machine, from
//! CI) must render the same bundle without the file. A person gives the
//! file with `--ca-bundle FILE` (or `--set-file CaBundle=FILE`), which
//! reads it at run time. Certificates are public, so the record, the
//! ConfigMap that carries them and the dry-run's files may hold them; a
//! private key may not, and is refused.

use serde::Serialize;
use serde_json::Value;

use super::model::reader::Reader;
use super::Problem;

/// The values key.
pub const KEY: &str = "CaBundle";

/// The longest bundle accepted, in characters: a distribution's whole
/// trust store is about 220 KB, a proxy's chain a few KB.
pub const MAX_CHARS: usize = 512 * 1024;

/// A bundle of certificates, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaBundle {
    /// The certificates, as PEM, each block as the user gave it.
    pub pem: String,
    /// How many certificates it holds.
    pub certificates: usize,
    /// Hex SHA-256 of `pem`: changes when the bundle does, so the pods that
    /// read the bundle at start roll when it changes.
    pub sha256: String,
}

/// Why a text is not a bundle cf-runner accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotABundle {
    /// Completes "… is not accepted: WHY".
    pub why: String,
    /// What to do instead.
    pub fix: &'static str,
}

/// Checks a text as one or more PEM certificates and nothing else.
pub fn check(text: &str) -> Result<CaBundle, NotABundle> {
    let fix =
        "give a PEM file of CERTIFICATE blocks (e.g. the proxy's root CA) with --ca-bundle FILE";
    if !text.contains("-----BEGIN ") {
        let why = if text.lines().count() <= 1 && !text.trim().is_empty() {
            "is not PEM: the key holds the certificates themselves, not a path".to_string()
        } else {
            "is not PEM: it holds no -----BEGIN CERTIFICATE----- block".to_string()
        };
        return Err(NotABundle { why, fix });
    }
    let mut certificates = 0;
    for (index, block) in x509_parser::pem::Pem::iter_from_buffer(text.as_bytes()).enumerate() {
        let n = index + 1;
        let block = block.map_err(|e| NotABundle {
            why: format!("is not PEM: block {n} does not decode ({e})"),
            fix,
        })?;
        if block.label.contains("PRIVATE KEY") {
            // A key in a ConfigMap would be readable by anyone who may read
            // the namespace's ConfigMaps: never write it.
            return Err(NotABundle {
                why: format!("holds a private key (block {n}); only certificates belong here"),
                fix: "give the CA's certificate alone; keep its key out of the cluster",
            });
        }
        if block.label != "CERTIFICATE" {
            return Err(NotABundle {
                why: format!("block {n} is a {} and not a CERTIFICATE", block.label),
                fix,
            });
        }
        if let Err(e) = block.parse_x509() {
            return Err(NotABundle {
                why: format!("block {n} is not an X.509 certificate ({e})"),
                fix,
            });
        }
        certificates += 1;
    }
    if certificates == 0 {
        return Err(NotABundle {
            why: "is not PEM: it holds no certificate".into(),
            fix,
        });
    }
    let pem = format!("{}\n", text.trim());
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, pem.as_bytes());
    let sha256 = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    Ok(CaBundle {
        pem,
        certificates,
        sha256,
    })
}

/// Reads and checks `CaBundle`. The problem never quotes the value: a file
/// given by mistake may be a key.
pub(super) fn resolve(r: &mut Reader) -> Option<CaBundle> {
    let raw = r.raw_value(KEY)?;
    let Value::String(text) = raw else {
        r.problems.push(Problem::new(
            KEY,
            None,
            "is not text",
            "give a PEM file with --ca-bundle FILE",
        ));
        return None;
    };
    if text.trim().is_empty() {
        return None;
    }
    match check(text) {
        Ok(bundle) => Some(bundle),
        Err(e) => {
            r.problems.push(Problem::new(KEY, None, e.why, e.fix));
            None
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A throwaway CA's certificate, made for the test.
    pub(crate) fn throwaway_ca_pem() -> String {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).expect("a certificate").pem()
    }

    #[test]
    fn certificates_are_accepted_and_counted() {
        let two = format!("{}{}", throwaway_ca_pem(), throwaway_ca_pem());
        let bundle = check(&two).expect("two certificates");
        assert_eq!(bundle.certificates, 2);
        assert_eq!(bundle.sha256.len(), 64);
    }

    #[test]
    fn a_path_a_key_or_garbage_is_refused_with_why() {
        let path = check("/etc/corp/ca.pem").unwrap_err();
        assert!(path.why.contains("not a path"), "{}", path.why);

        let key = rcgen::KeyPair::generate().unwrap().serialize_pem();
        let with_key = format!("{}{key}", throwaway_ca_pem());
        let refused = check(&with_key).unwrap_err();
        assert!(refused.why.contains("private key"), "{}", refused.why);

        let broken = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
        assert!(check(broken).unwrap_err().why.contains("not an X.509"));
    }
}

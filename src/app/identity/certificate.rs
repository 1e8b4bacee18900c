//! The dind certificate over time: its expiry date as `info` and `check`
//! show it, and its renewal (`cf-runner renew certificate`).
//!
//! The certificate is read from the Secret cf-runner writes
//! ([`render::DIND_CERTS_SECRET`]), never from a dind pod. A renewal never
//! reads the old certificate as a precondition: the day it expired is the
//! day a renewal must work, so it makes a new key and CSR, has the platform
//! sign them exactly as `init` does, and writes the Secret as `upgrade`
//! would render it. dind pods are made per build and mount the Secret when
//! they start, so no workload needs a restart.

use serde_json::Value;

use crate::app::identity::registrar::Registrar;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::preflight::{Check, Status};
use crate::cluster::{secrets, Cluster, KubeError};
use crate::output::info::InstallationInfo;
use crate::platform::certs;
use crate::render::{self, DIND_CERTS_SECRET};
use crate::values::Secret;

/// A certificate with fewer days left than this is reported (and fails
/// `check`), leaving a month to renew it.
pub(crate) const WARN_DAYS: i64 = 30;

/// Name of the `check` line.
pub(crate) const CHECK_NAME: &str = "dind certificate";

/// The command that renews the certificate of the install in `namespace`.
pub(crate) fn renew_command(namespace: &str) -> String {
    format!("cf-runner renew certificate --kube-namespace {namespace}")
}

/// The dind server certificate as the cluster holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CertState {
    /// No Secret, or no certificate in it.
    Missing,
    /// The placeholder of an install that was never registered.
    Placeholder,
    /// Present but not a certificate this can read.
    Unreadable(String),
    /// Its notAfter, in seconds since the Unix epoch.
    Expires(i64),
}

/// The notAfter of the first certificate of a PEM text, in seconds since
/// the Unix epoch.
pub(crate) fn not_after(pem: &str) -> Result<i64, String> {
    let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes())
        .map_err(|e| format!("not a PEM certificate ({e})"))?;
    let cert = block
        .parse_x509()
        .map_err(|e| format!("not an X.509 certificate ({e})"))?;
    Ok(cert.validity().not_after.timestamp())
}

/// What a Secret's `server-cert.pem` says.
pub(crate) fn state_of(cert: Option<&str>) -> CertState {
    match cert {
        None => CertState::Missing,
        Some(t) if t.trim().is_empty() => CertState::Missing,
        Some(t) if render::is_placeholder(t) => CertState::Placeholder,
        Some(t) => match not_after(t) {
            Ok(at) => CertState::Expires(at),
            Err(e) => CertState::Unreadable(e),
        },
    }
}

/// Reads the dind certificate of the install in `namespace`.
pub(crate) async fn read(cluster: &Cluster, namespace: &str) -> Result<CertState, KubeError> {
    let cert = secrets::read_key(
        &cluster.client,
        namespace,
        DIND_CERTS_SECRET,
        "server-cert.pem",
    )
    .await?;
    Ok(state_of(cert.as_deref()))
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// `2027-11-25 17:21 UTC` of seconds since the Unix epoch.
pub(crate) fn date(unix: i64) -> String {
    let c = crate::text::Civil::of(unix);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        c.year, c.month, c.day, c.hour, c.minute
    )
}

/// How the certificate stands, in words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    /// False when it is expired, expires within [`WARN_DAYS`], or cannot be
    /// read: builds fail (or soon will) with a TLS error.
    pub ok: bool,
    /// True when there is nothing to judge (no Secret, an offline install).
    pub absent: bool,
    pub text: String,
    /// The command that renews it, when not ok.
    pub fix: Option<String>,
}

/// Judges `state` at `now` for the install in `namespace`.
pub(crate) fn judge(state: &CertState, now: i64, namespace: &str) -> Verdict {
    let renew = || {
        Some(format!(
            "run `{}` (a Codefresh API token is needed: --token or CF_API_KEY)",
            renew_command(namespace)
        ))
    };
    match state {
        CertState::Missing => Verdict {
            ok: true,
            absent: true,
            text: format!("no certificate in Secret {DIND_CERTS_SECRET}"),
            fix: None,
        },
        CertState::Placeholder => Verdict {
            ok: true,
            absent: true,
            text: "a placeholder: the install was never registered on the platform, which signs it"
                .into(),
            fix: None,
        },
        CertState::Unreadable(why) => Verdict {
            ok: false,
            absent: false,
            text: format!(
                "Secret {DIND_CERTS_SECRET} holds a certificate that cannot be read: {why}"
            ),
            fix: renew(),
        },
        CertState::Expires(at) => {
            let left = at - now;
            let days = left.div_euclid(86_400);
            if left <= 0 {
                Verdict {
                    ok: false,
                    absent: false,
                    text: format!(
                        "EXPIRED on {}: every build fails with a TLS error until it is renewed",
                        date(*at)
                    ),
                    fix: renew(),
                }
            } else if days < WARN_DAYS {
                Verdict {
                    ok: false,
                    absent: false,
                    text: format!(
                        "expires on {} ({days} days left, under {WARN_DAYS}): builds fail with a TLS error from then on",
                        date(*at)
                    ),
                    fix: renew(),
                }
            } else {
                Verdict {
                    ok: true,
                    absent: false,
                    text: format!("valid until {} ({days} days left)", date(*at)),
                    fix: None,
                }
            }
        }
    }
}

/// Adds the certificate's expiry to what `info` shows of one installation:
/// a summary line, and a note with the renewal command when it needs one.
pub(crate) async fn annotate(cluster: &Cluster, info: &mut InstallationInfo) {
    let verdict = match read(cluster, &info.namespace).await {
        Ok(state) => judge(&state, now(), &info.namespace),
        Err(e) => Verdict {
            ok: true,
            absent: false,
            text: format!("not read: {e}"),
            fix: None,
        },
    };
    info.summary
        .insert(CHECK_NAME.into(), Value::String(verdict.text.clone()));
    if !verdict.ok {
        info.healthy = false;
        info.notes.push(format!(
            "the dind certificate {}; {}",
            verdict.text,
            verdict.fix.unwrap_or_default()
        ));
    }
}

/// The `check` line of an install already in `namespace` (`None` when
/// there is none to judge). Under [`WARN_DAYS`] or expired it fails, so a
/// pipeline running `check` stops a month ahead.
pub(crate) async fn check(cluster: &Cluster, namespace: &str) -> Option<Check> {
    let state = read(cluster, namespace).await.ok()?;
    let verdict = judge(&state, now(), namespace);
    if verdict.absent {
        return None;
    }
    Some(Check {
        name: CHECK_NAME.into(),
        status: if verdict.ok {
            Status::Pass
        } else {
            Status::Fail
        },
        reason: verdict.text,
        details: Vec::new(),
        fix: verdict.fix,
        unreachable: false,
    })
}

/// The dind TLS material: the CA, the server certificate and its key.
pub(crate) type DindTls = (Secret, Secret, Secret);

/// A new dind key for the builds of `namespace`, its certificate signed by
/// the platform: the one way cf-runner makes a dind certificate (install,
/// attach, adopt, fleet, renewal). The key is made here and goes only into
/// the cluster's Secret; the platform sees the signing request.
pub(crate) async fn sign(platform: &impl Registrar, namespace: &str) -> Result<DindTls, Outcome> {
    let generated = certs::generate(namespace).doing("preparing the dind TLS certificate")?;
    let sans = certs::subject_alt_names(namespace);
    let (ca, cert) = platform
        .sign_server_certs(&generated.csr_pem, &sans)
        .await
        .doing("having the platform sign the dind certificate")?;
    Ok((Secret::new(ca), Secret::new(cert), generated.key_pem))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert_valid(from: (i32, u8, u8), to: (i32, u8, u8)) -> String {
        let mut p = rcgen::CertificateParams::new(vec!["dind".to_string()]).unwrap();
        p.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
        p.not_after = rcgen::date_time_ymd(to.0, to.1, to.2);
        let key = rcgen::KeyPair::generate().unwrap();
        p.self_signed(&key).unwrap().pem()
    }

    #[test]
    fn the_expiry_date_is_read_from_the_certificate() {
        let pem = cert_valid((2020, 1, 1), (2031, 3, 4));
        let at = not_after(&pem).unwrap();
        assert_eq!(date(at), "2031-03-04 00:00 UTC");
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(951_782_400 + 3_660), "2000-02-29 01:01 UTC");
    }

    #[test]
    fn an_expired_or_soon_expiring_certificate_names_the_renewal() {
        let at = 2_000_000_000;
        let day = 86_400;
        let v = judge(&CertState::Expires(at), at + 1, "ci");
        assert!(!v.ok && v.text.starts_with("EXPIRED on"), "{v:?}");
        assert!(v
            .fix
            .unwrap()
            .contains("cf-runner renew certificate --kube-namespace ci"));
        let v = judge(&CertState::Expires(at), at - 10 * day, "ci");
        assert!(!v.ok && v.text.contains("10 days left"), "{v:?}");
        let v = judge(&CertState::Expires(at), at - 90 * day, "ci");
        assert!(
            v.ok && v.fix.is_none() && v.text.contains("90 days left"),
            "{v:?}"
        );
        assert!(judge(&CertState::Placeholder, at, "ci").absent);
        assert!(!judge(&state_of(Some("-----BEGIN CERTIFICATE-----\nxx")), at, "ci").ok);
    }
}

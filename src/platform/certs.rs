//! The dind daemon's TLS: an RSA key generated here (it never leaves this
//! machine except into the cluster Secret), a CSR the platform signs, and
//! the zip it answers with.

use std::io::Read;

use rcgen::{CertificateParams, DistinguishedName, DnType, KeyPair, RsaKeySize, PKCS_RSA_SHA256};

use super::PlatformError;
use crate::values::Secret;

/// The common name the dind server certificate carries (as the old installer).
pub const COMMON_NAME: &str = "docker.codefresh.io";

/// The subject alternative names the platform is asked to sign, in the
/// `reqSubjectAltName` format: every name a dind pod is reached by.
pub fn subject_alt_names(namespace: &str) -> String {
    format!(
        "IP:127.0.0.1,DNS:dind,DNS:*.dind.{namespace},DNS:*.dind.{namespace}.svc,DNS:*.cf-cd.com,DNS:*.codefresh.io"
    )
}

/// A freshly generated key and its CSR.
pub struct KeyAndCsr {
    pub key_pem: Secret,
    pub csr_pem: String,
}

/// Generates an RSA-2048 key and a CSR for the dind server certificate.
pub fn generate(namespace: &str) -> Result<KeyAndCsr, PlatformError> {
    let key = KeyPair::generate_rsa_for(&PKCS_RSA_SHA256, RsaKeySize::_2048)
        .map_err(|e| PlatformError::Certs(format!("generating the key: {e}")))?;
    let mut sans: Vec<String> = vec!["dind".into()];
    sans.push(format!("*.dind.{namespace}"));
    sans.push(format!("*.dind.{namespace}.svc"));
    let mut params = CertificateParams::new(sans)
        .map_err(|e| PlatformError::Certs(format!("the names: {e}")))?;
    params
        .subject_alt_names
        .push(rcgen::SanType::IpAddress(std::net::IpAddr::from([
            127, 0, 0, 1,
        ])));
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, COMMON_NAME);
    params.distinguished_name = dn;
    let csr = params
        .serialize_request(&key)
        .map_err(|e| PlatformError::Certs(format!("the CSR: {e}")))?;
    let csr_pem = csr
        .pem()
        .map_err(|e| PlatformError::Certs(format!("the CSR: {e}")))?;
    Ok(KeyAndCsr {
        key_pem: Secret::new(key.serialize_pem()),
        csr_pem,
    })
}

/// The most read of one certificate file in the platform's zip.
const MAX_CERT_BYTES: u64 = 1024 * 1024;

/// Reads `cf-ca.pem` and `cf-server-cert.pem` out of the platform's zip.
pub fn unzip_signed(bytes: &[u8]) -> Result<(String, String), String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a zip archive ({e})"))?;
    let mut read = |name: &str| -> Result<String, String> {
        let mut file = archive
            .by_name(name)
            .map_err(|_| format!("the archive has no {name}"))?;
        // A certificate chain is a few kilobytes; an entry that inflates
        // past the bound is refused, not unpacked into memory.
        let mut text = String::new();
        (&mut file)
            .take(MAX_CERT_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| format!("{name} is not text ({e})"))?;
        if text.len() as u64 > MAX_CERT_BYTES {
            return Err(format!("{name} is larger than {MAX_CERT_BYTES} bytes"));
        }
        if !text.contains("-----BEGIN CERTIFICATE-----") {
            return Err(format!("{name} is not a PEM certificate"));
        }
        Ok(text)
    };
    let ca = read("cf-ca.pem")?;
    let cert = read("cf-server-cert.pem")?;
    Ok((ca, cert))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_and_csr_are_generated() {
        let k = generate("codefresh").unwrap();
        assert!(k.csr_pem.starts_with("-----BEGIN CERTIFICATE REQUEST-----"));
        assert!(k.key_pem.expose().contains("PRIVATE KEY"));
        assert_eq!(
            subject_alt_names("ns"),
            "IP:127.0.0.1,DNS:dind,DNS:*.dind.ns,DNS:*.dind.ns.svc,DNS:*.cf-cd.com,DNS:*.codefresh.io"
        );
    }

    #[test]
    fn a_bad_archive_is_explained() {
        assert!(unzip_signed(b"not a zip")
            .unwrap_err()
            .contains("not a zip"));
    }
}

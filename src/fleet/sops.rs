//! SOPS files encrypted to age recipients, in the format the `sops` command
//! and Flux's kustomize-controller read: each value under `data` or
//! `stringData` becomes `ENC[AES256_GCM,data:…,iv:…,tag:…,type:str]`
//! (AES-256-GCM under one random data key, a 32-byte IV, the value's key
//! path joined with `:` as additional data), the data key is encrypted to
//! every recipient as an armored age file, and a SHA-512 MAC over every
//! value (encrypted or not, in document order) is kept encrypted under the
//! data key with the file's `lastmodified` time as additional data.
//!
//! Written here rather than with the `rops` crate: `rops` 0.1 pulls
//! `serde_yaml` and an AWS KMS client by default, and its typed-state API
//! does not fit objects that are already `serde_json::Value`s; the format
//! itself is small and is checked in tests against kustomize-controller
//! (and, where built, the `sops` command).

use std::io::{Read, Write};

use aes_gcm::aead::generic_array::typenum::U32;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::aes::Aes256;
use aes_gcm::AesGcm;
use base64::Engine as _;
use serde_json::{Map, Value};

/// AES-256-GCM with SOPS's 32-byte nonce.
type SopsGcm = AesGcm<Aes256, U32>;

/// The keys whose values are encrypted (as `sops --encrypted-regex`).
pub const ENCRYPTED_REGEX: &str = "^(data|stringData)$";
/// The `sops` version the metadata names: the format's, not a binary's.
const FORMAT_VERSION: &str = "3.13.0";

/// Why a SOPS file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SopsError {
    #[error("{0} is not an age recipient (age1…)")]
    BadRecipient(String),
    #[error("no age recipient to encrypt to")]
    NoRecipient,
    #[error("encrypting to the age recipients failed: {0}")]
    Age(String),
    #[error("none of the age identities given opens this file")]
    NoIdentity,
    #[error("the file is not SOPS-encrypted as cf-runner writes it: {0}")]
    Format(String),
    #[error("the file's MAC does not match its values: it was changed after encryption")]
    Mac,
    #[error("no random bytes from the system")]
    Random,
}

fn random(n: usize) -> Result<Vec<u8>, SopsError> {
    let mut bytes = vec![0u8; n];
    aws_lc_rs::rand::fill(&mut bytes).map_err(|_| SopsError::Random)?;
    Ok(bytes)
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn encrypt_value(plain: &str, key: &[u8], aad: &str) -> Result<String, SopsError> {
    if plain.is_empty() {
        return Ok(String::new());
    }
    let iv = random(32)?;
    let cipher = SopsGcm::new_from_slice(key).map_err(|e| SopsError::Format(e.to_string()))?;
    let out = cipher
        .encrypt(
            aes_gcm::Nonce::<U32>::from_slice(&iv),
            Payload {
                msg: plain.as_bytes(),
                aad: aad.as_bytes(),
            },
        )
        .map_err(|_| SopsError::Format("AES-GCM refused to encrypt".into()))?;
    let (data, tag) = out.split_at(out.len() - 16);
    Ok(format!(
        "ENC[AES256_GCM,data:{},iv:{},tag:{},type:str]",
        b64(data),
        b64(&iv),
        b64(tag)
    ))
}

fn decrypt_value(text: &str, key: &[u8], aad: &str) -> Result<String, SopsError> {
    if text.is_empty() {
        return Ok(String::new());
    }
    let inner = text
        .strip_prefix("ENC[AES256_GCM,")
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| SopsError::Format("a value is not ENC[AES256_GCM,…]".into()))?;
    let mut parts = std::collections::BTreeMap::new();
    for part in inner.split(',') {
        if let Some((k, v)) = part.split_once(':') {
            parts.insert(k, v);
        }
    }
    let field = |name: &str| -> Result<Vec<u8>, SopsError> {
        let v = parts
            .get(name)
            .ok_or_else(|| SopsError::Format(format!("a value has no {name}")))?;
        base64::engine::general_purpose::STANDARD
            .decode(v)
            .map_err(|e| SopsError::Format(e.to_string()))
    };
    if parts.get("type") != Some(&"str") {
        return Err(SopsError::Format("only type:str values are read".into()));
    }
    let (mut data, iv, tag) = (field("data")?, field("iv")?, field("tag")?);
    if iv.len() != 32 {
        return Err(SopsError::Format("the IV is not 32 bytes".into()));
    }
    data.extend_from_slice(&tag);
    let cipher = SopsGcm::new_from_slice(key).map_err(|e| SopsError::Format(e.to_string()))?;
    let plain = cipher
        .decrypt(
            aes_gcm::Nonce::<U32>::from_slice(&iv),
            Payload {
                msg: &data,
                aad: aad.as_bytes(),
            },
        )
        .map_err(|_| SopsError::Mac)?;
    String::from_utf8(plain).map_err(|e| SopsError::Format(e.to_string()))
}

fn is_encrypted_key(key: &str) -> bool {
    key == "data" || key == "stringData"
}

/// Walks the leaves of `value` in document order, calling `leaf` with the
/// leaf, its key path joined as SOPS does (`a:b:`), and whether a key on
/// its path matches [`ENCRYPTED_REGEX`].
fn walk(
    value: &mut Value,
    path: &mut Vec<String>,
    encrypted: bool,
    leaf: &mut dyn FnMut(&mut Value, &str, bool) -> Result<(), SopsError>,
) -> Result<(), SopsError> {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                path.push(k.clone());
                walk(v, path, encrypted || is_encrypted_key(k), leaf)?;
                path.pop();
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                walk(v, path, encrypted, leaf)?;
            }
        }
        Value::Null => {}
        other => {
            let aad = format!("{}:", path.join(":"));
            leaf(other, &aad, encrypted)?;
        }
    }
    Ok(())
}

/// The bytes SOPS feeds the MAC for a plain leaf.
fn mac_bytes(v: &Value) -> Result<String, SopsError> {
    Ok(match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        _ => return Err(SopsError::Format("a leaf of unknown type".into())),
    })
}

fn hex_upper(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// `object` with every value under `data`/`stringData` encrypted for
/// `recipients` and the `sops` metadata added, stamped `lastmodified`
/// (RFC 3339, seconds, UTC).
pub fn encrypt(
    object: &Value,
    recipients: &[String],
    lastmodified: &str,
) -> Result<Value, SopsError> {
    if recipients.is_empty() {
        return Err(SopsError::NoRecipient);
    }
    let parsed: Vec<age::x25519::Recipient> = recipients
        .iter()
        .map(|r| r.parse().map_err(|_| SopsError::BadRecipient(r.clone())))
        .collect::<Result<_, _>>()?;
    let key = random(32)?;
    let mut out = object.clone();
    let mut hash = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA512);
    walk(
        &mut out,
        &mut Vec::new(),
        false,
        &mut |leaf, aad, encrypted| {
            let plain = mac_bytes(leaf)?;
            hash.update(plain.as_bytes());
            if encrypted {
                *leaf = Value::String(encrypt_value(&plain, &key, aad)?);
            }
            Ok(())
        },
    )?;
    let mac = hex_upper(hash.finish().as_ref());
    let mut age_keys = Vec::new();
    for (text, recipient) in recipients.iter().zip(&parsed) {
        age_keys.push(serde_json::json!({
            "recipient": text,
            "enc": armored_to(recipient, &key)?,
        }));
    }
    let mut sops = Map::new();
    sops.insert("age".into(), Value::Array(age_keys));
    sops.insert("lastmodified".into(), Value::String(lastmodified.into()));
    sops.insert(
        "mac".into(),
        Value::String(encrypt_value(&mac, &key, lastmodified)?),
    );
    sops.insert(
        "encrypted_regex".into(),
        Value::String(ENCRYPTED_REGEX.into()),
    );
    sops.insert("version".into(), Value::String(FORMAT_VERSION.into()));
    if let Some(map) = out.as_object_mut() {
        map.insert("sops".into(), Value::Object(sops));
    }
    Ok(out)
}

fn armored_to(recipient: &age::x25519::Recipient, key: &[u8]) -> Result<String, SopsError> {
    let age_err = |e: &dyn std::fmt::Display| SopsError::Age(e.to_string());
    let encryptor =
        age::Encryptor::with_recipients(std::iter::once(recipient as &dyn age::Recipient))
            .map_err(|e| age_err(&e))?;
    let mut buf = Vec::new();
    let armor = age::armor::ArmoredWriter::wrap_output(&mut buf, age::armor::Format::AsciiArmor)
        .map_err(|e| age_err(&e))?;
    let mut writer = encryptor.wrap_output(armor).map_err(|e| age_err(&e))?;
    writer.write_all(key).map_err(|e| age_err(&e))?;
    writer
        .finish()
        .and_then(|armor| armor.finish())
        .map_err(|e| age_err(&e))?;
    String::from_utf8(buf).map_err(|e| age_err(&e))
}

/// Parses age identities (`AGE-SECRET-KEY-1…` lines; `#` comments).
pub fn identities(text: &str) -> Vec<age::x25519::Identity> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.parse().ok())
        .collect()
}

/// The plain object of a file [`encrypt`] wrote, its MAC checked.
pub fn decrypt(file: &Value, identities: &[age::x25519::Identity]) -> Result<Value, SopsError> {
    let sops = file
        .get("sops")
        .ok_or_else(|| SopsError::Format("no sops metadata".into()))?;
    let mut key = None;
    for entry in sops
        .get("age")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(enc) = entry.get("enc").and_then(Value::as_str) else {
            continue;
        };
        let Ok(decryptor) = age::Decryptor::new(age::armor::ArmoredReader::new(enc.as_bytes()))
        else {
            continue;
        };
        let ids = identities.iter().map(|i| i as &dyn age::Identity);
        if let Ok(mut reader) = decryptor.decrypt(ids) {
            let mut bytes = Vec::new();
            if reader.read_to_end(&mut bytes).is_ok() && bytes.len() == 32 {
                key = Some(bytes);
                break;
            }
        }
    }
    let key = key.ok_or(SopsError::NoIdentity)?;
    let mut out = file.clone();
    if let Some(map) = out.as_object_mut() {
        map.remove("sops");
    }
    let mut hash = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA512);
    walk(
        &mut out,
        &mut Vec::new(),
        false,
        &mut |leaf, aad, encrypted| {
            if encrypted {
                if let Value::String(text) = &*leaf {
                    let plain = decrypt_value(text, &key, aad)?;
                    *leaf = Value::String(plain);
                }
            }
            hash.update(mac_bytes(leaf)?.as_bytes());
            Ok(())
        },
    )?;
    let lastmodified = sops
        .get("lastmodified")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let stored = sops.get("mac").and_then(Value::as_str).unwrap_or_default();
    if decrypt_value(stored, &key, lastmodified)? != hex_upper(hash.finish().as_ref()) {
        return Err(SopsError::Mac);
    }
    Ok(out)
}

/// The current time as SOPS's `lastmodified`.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default();
    let c = crate::text::Civil::of(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret() -> Value {
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "runner", "namespace": "cf", "labels": {"a": "b"}},
               "type": "Opaque", "stringData": {"codefresh.token": "t0ken-value", "empty": ""}})
    }

    #[test]
    fn a_secret_round_trips_and_no_value_stays_in_clear() {
        let id = age::x25519::Identity::generate();
        let recipient = id.to_public().to_string();
        let enc = encrypt(&secret(), &[recipient], "2026-11-25T18:00:00Z").unwrap();
        let text = crate::export::to_yaml(&enc);
        assert!(!text.contains("t0ken-value"), "{text}");
        assert!(text.contains("ENC[AES256_GCM,data:"));
        assert_eq!(
            enc["metadata"],
            secret()["metadata"],
            "metadata stays readable"
        );
        let back = decrypt(&enc, &[id]).unwrap();
        assert_eq!(back, secret());
    }

    #[test]
    fn a_changed_value_fails_the_mac_and_a_stranger_cannot_open_it() {
        let id = age::x25519::Identity::generate();
        let enc = encrypt(
            &secret(),
            &[id.to_public().to_string()],
            "2026-11-25T18:00:00Z",
        )
        .unwrap();
        let mut changed = enc.clone();
        changed["metadata"]["labels"]["a"] = json!("c");
        assert!(matches!(decrypt(&changed, &[id]), Err(SopsError::Mac)));
        let stranger = age::x25519::Identity::generate();
        assert!(matches!(
            decrypt(&enc, &[stranger]),
            Err(SopsError::NoIdentity)
        ));
    }

    #[test]
    fn lastmodified_is_rfc3339_utc() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.starts_with("20"));
    }
}

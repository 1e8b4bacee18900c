//! The support bundle as a file: its entries, the redaction every entry
//! passes through on the way in, the index of what was left out or could
//! not be collected, the size cap, the last scan for known secrets, and the
//! one `.tar.gz` written 0600 in one rename. What goes in is gathered by
//! `app::day_two::bundle`; this module owns the guarantee that no secret
//! value cf-runner knows of comes out.
//!
//! Redaction is the one mechanism of [`crate::values::secrets`] (URL
//! credentials, credential-named fields), applied to every string, plus
//! the values of the tokens and Secrets cf-runner knows, replaced wherever
//! they appear in any of the forms of [`ENCODINGS`]. The last scan looks
//! for those same forms in the bytes about to be written, and refuses the
//! file if one is there: a bug in the redaction then costs a bundle, never
//! a token. The bundle's README says how many values were looked for, in
//! which encodings, and what could not be read to know: it claims no more
//! than the scan did.
//!
//! The forms are searched for all at once (`Finder`): a bundle of tens
//! of megabytes against a few hundred forms stays a single pass.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use base64::Engine;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::text::{masked_printout, REDACTED};
use crate::values::Secret;

/// The comment in the gzip header of every bundle: how cf-runner tells its
/// own bundle (which it may write over) from any other file (which it
/// never does without `--overwrite`).
pub const GZIP_MARK: &str = "cf-runner support-bundle";

/// What the index and the progress line reserve of `--max-size`.
pub const INDEX_RESERVE: u64 = 64 * 1024;

/// The smallest `--max-size` that leaves room for anything but the index.
pub const MIN_MAX_SIZE: u64 = 2 * INDEX_RESERVE;

/// Known secret values shorter than this are not searched for: a short
/// placeholder would match everywhere, and no token is that short.
const MIN_KNOWN_LEN: usize = 8;

/// A secret value cf-runner knows, with what it is (never the value) for
/// messages.
#[derive(Debug, Clone)]
pub struct Known {
    /// What the value is: "the agent token", "Secret runner, key codefresh.token".
    pub kind: String,
    pub value: Secret,
}

/// Replaces secrets in what goes into a bundle.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    known: Vec<Known>,
    /// Values offered that were too short to look for (see [`MIN_KNOWN_LEN`]).
    too_short: usize,
    /// The forms of `known`, built on first use (and again after a `know`).
    finder: OnceLock<Finder>,
}

/// True when a field or variable named `name` holds a credential, by the
/// words `text::mask_credential_fields` uses.
fn is_credential_name(name: &str) -> bool {
    crate::text::is_credential_name(name)
}

impl Redactor {
    /// Adds a value to replace and to scan for (too short a value is
    /// ignored, and counted: the README says so).
    pub fn know(&mut self, kind: impl Into<String>, value: Secret) {
        let trimmed = value.expose().trim();
        if trimmed.is_empty() {
            return;
        }
        if trimmed.len() < MIN_KNOWN_LEN {
            self.too_short += 1;
            return;
        }
        let value = Secret::new(trimmed);
        if self
            .known
            .iter()
            .any(|k| k.value.expose() == value.expose())
        {
            return;
        }
        self.known.push(Known {
            kind: kind.into(),
            value,
        });
        self.finder = OnceLock::new();
    }

    /// The values known, for the last scan.
    pub fn known(&self) -> &[Known] {
        &self.known
    }

    /// How many values offered were too short to be looked for.
    pub fn too_short(&self) -> usize {
        self.too_short
    }

    fn finder(&self) -> &Finder {
        self.finder.get_or_init(|| Finder::new(&self.known))
    }

    /// A text made safe: URL credentials and credential-named fields
    /// masked, and every known value, in every form of [`ENCODINGS`],
    /// replaced.
    pub fn text(&self, text: &str) -> String {
        self.finder().replace(&masked_printout(text), REDACTED)
    }

    /// A JSON tree made safe: every string through [`Redactor::text`]; the
    /// string value of a credential-named field (`Token`, an annotation
    /// `example.com/api-token`, an env map's `DB_PASSWORD`) and of an
    /// environment variable (`{name, value}`) whose name is a credential's,
    /// replaced whole. A field that names a key or an object (`key`,
    /// `secretName`) is kept: it is a reference, and what support needs.
    pub fn tree(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.tree(v)).collect()),
            Value::Object(map) => {
                let env_name = map
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| map.contains_key("value") && is_credential_name(n));
                let mut out = Map::new();
                for (k, v) in map {
                    let hide = v.is_string()
                        && ((k == "value" && env_name.is_some())
                            || (is_credential_name(k) && !is_reference(k)));
                    let v = if hide {
                        Value::String(REDACTED.into())
                    } else {
                        self.tree(v)
                    };
                    out.insert(k.clone(), v);
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
}

/// True for a field that names a key or an object rather than holding a
/// value: `key` (a toleration's, a `secretKeyRef`'s), `secretName`.
fn is_reference(field: &str) -> bool {
    field == "key" || field.to_ascii_lowercase().ends_with("name")
}

/// The encodings the redaction replaces and the last scan looks for, as
/// the bundle's README names them. A person pasting a token into a log or
/// a config reaches for these; `forms` makes each of them.
pub const ENCODINGS: &[&str] = &[
    "as it is",
    "base64, standard and URL-safe alphabets, at each of the three byte alignments \
     (the value inside a longer encoded text, such as `user:<token>`), padded or not",
    "hex, lower and upper case",
    "URL percent-encoding (upper- and lower-case escapes, and form encoding)",
    "JSON string escaping",
    "each line of 16 characters or more of a multi-line value (a PEM key re-indented)",
];

/// The shortest line of a multi-line value searched for on its own.
const MIN_LINE_LEN: usize = 16;

/// Every form of `value` in [`ENCODINGS`], each at least [`HEAD`] bytes.
///
/// Base64 is searched for by its core: the characters that encode whole
/// 3-byte groups of the value only. The value can start at any of three
/// offsets within a group of the surrounding text (base64 of `user:` plus
/// the token puts it at offset 2), so the core is taken from the value
/// less 0, 1 and 2 leading bytes; the characters at either end depend on
/// the neighbours (and the padding), so they are left out.
fn forms(value: &str) -> Vec<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let bytes = value.as_bytes();
    let mut out: Vec<Vec<u8>> = vec![bytes.to_vec()];
    for skip in 0..3.min(bytes.len()) {
        let rest = &bytes[skip..];
        let whole = &rest[..rest.len() / 3 * 3];
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            out.push(engine.encode(whole).into_bytes());
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    out.push(hex.to_ascii_uppercase().into_bytes());
    out.push(hex.into_bytes());
    let percent: String = bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    out.push(percent.to_ascii_lowercase_escapes().into_bytes());
    out.push(percent.into_bytes());
    out.push(
        url::form_urlencoded::byte_serialize(bytes)
            .collect::<String>()
            .into_bytes(),
    );
    let json = serde_json::to_string(value).unwrap_or_default();
    let json = json.trim_start_matches('"').trim_end_matches('"');
    out.push(json.replace('/', "\\/").into_bytes());
    out.push(json.as_bytes().to_vec());
    if value.contains('\n') {
        for line in value.lines().map(str::trim) {
            if line.len() >= MIN_LINE_LEN && !line.starts_with("-----") {
                out.push(line.as_bytes().to_vec());
            }
        }
    }
    out.retain(|f| f.len() >= HEAD);
    out.sort();
    out.dedup();
    out
}

/// Lower-case hex digits in `%XX` escapes (`%2F` → `%2f`): some encoders
/// write them so.
trait LowerEscapes {
    fn to_ascii_lowercase_escapes(&self) -> String;
}

impl LowerEscapes for String {
    fn to_ascii_lowercase_escapes(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut after_percent = 0;
        for c in self.chars() {
            if c == '%' {
                after_percent = 2;
                out.push(c);
            } else if after_percent > 0 {
                after_percent -= 1;
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// How many leading bytes of a form the finder indexes: every form is at
/// least this long (a known value has at least [`MIN_KNOWN_LEN`] bytes,
/// and its shortest base64 core is 8 characters).
const HEAD: usize = 8;

/// Every form of every known value, searched for in one pass: a table of
/// the two first bytes rules out most positions, a map of the first
/// [`HEAD`] bytes gives the few forms to compare. Its `Debug` shows counts
/// only (the forms are secrets).
#[derive(Clone, Default)]
struct Finder {
    /// Each form, with the index of its known value.
    forms: Vec<(Vec<u8>, usize)>,
    /// True at `first byte * 256 + second byte` of some form.
    pairs: Vec<bool>,
    /// The forms (indexes into `forms`) by their first [`HEAD`] bytes.
    heads: HashMap<[u8; HEAD], Vec<usize>>,
}

impl std::fmt::Debug for Finder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Finder({} forms)", self.forms.len())
    }
}

/// One form found: where, how long, and which known value.
struct Found {
    start: usize,
    len: usize,
    known: usize,
}

impl Finder {
    fn new(known: &[Known]) -> Finder {
        let mut finder = Finder {
            pairs: vec![false; 1 << 16],
            ..Finder::default()
        };
        for (i, k) in known.iter().enumerate() {
            for form in forms(k.value.expose()) {
                let mut head = [0u8; HEAD];
                head.copy_from_slice(&form[..HEAD]);
                finder.pairs[usize::from(form[0]) << 8 | usize::from(form[1])] = true;
                finder
                    .heads
                    .entry(head)
                    .or_default()
                    .push(finder.forms.len());
                finder.forms.push((form, i));
            }
        }
        finder
    }

    /// The longest form that starts at `at` in `hay`.
    fn at(&self, hay: &[u8], at: usize) -> Option<Found> {
        let window = hay.get(at..at + HEAD)?;
        if !self.pairs[usize::from(window[0]) << 8 | usize::from(window[1])] {
            return None;
        }
        let head: [u8; HEAD] = window.try_into().ok()?;
        self.heads
            .get(&head)?
            .iter()
            .map(|&f| &self.forms[f])
            .filter(|(form, _)| hay[at..].starts_with(form))
            .max_by_key(|(form, _)| form.len())
            .map(|(form, known)| Found {
                start: at,
                len: form.len(),
                known: *known,
            })
    }

    /// The first form in `hay` at or after `from`.
    fn next(&self, hay: &[u8], from: usize) -> Option<Found> {
        if self.forms.is_empty() || hay.len() < HEAD {
            return None;
        }
        (from..=hay.len() - HEAD).find_map(|at| self.at(hay, at))
    }

    /// `text` with every form found replaced by `with`, left to right.
    fn replace(&self, text: &str, with: &str) -> String {
        let hay = text.as_bytes();
        let mut out = String::new();
        let (mut done, mut from) = (0, 0);
        while let Some(f) = self.next(hay, from) {
            let end = f.start + f.len;
            // A form of a UTF-8 value starts and ends on character
            // boundaries; anything else is not replaced here (and the last
            // scan still sees it).
            if !(text.is_char_boundary(f.start) && text.is_char_boundary(end)) {
                from = f.start + 1;
                continue;
            }
            out.push_str(&text[done..f.start]);
            out.push_str(with);
            (done, from) = (end, end);
        }
        out.push_str(&text[done..]);
        out
    }
}

/// Something the bundle does not hold, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Gap {
    pub what: String,
    pub why: String,
}

/// One file of the bundle.
#[derive(Debug, Clone, Serialize)]
pub struct EntryInfo {
    pub name: String,
    pub bytes: u64,
}

/// The bundle being built: redacted entries, and the index of gaps.
#[derive(Debug)]
pub struct Bundle {
    redactor: Redactor,
    entries: Vec<(String, Vec<u8>)>,
    /// Left out on purpose (secret values, over the size cap, no token).
    pub left_out: Vec<Gap>,
    /// Could not be collected (an API error, a timeout).
    pub failed: Vec<Gap>,
    max_size: u64,
    used: u64,
}

/// The space an entry takes in the tar stream: a header and whole blocks.
fn tar_size(bytes: usize) -> u64 {
    512 + (bytes as u64).div_ceil(512) * 512
}

impl Bundle {
    /// An empty bundle of at most `max_size` bytes (before compression).
    pub fn new(redactor: Redactor, max_size: u64) -> Bundle {
        Bundle {
            redactor,
            entries: Vec::new(),
            left_out: Vec::new(),
            failed: Vec::new(),
            max_size,
            used: 0,
        }
    }

    /// The redactor every entry goes through.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Adds a text entry, redacted; left out (and listed) when it would
    /// take the bundle past its size cap.
    pub fn add_text(&mut self, name: &str, text: &str) {
        let safe = self.redactor.text(text);
        self.put(name, safe.into_bytes());
    }

    /// Adds a JSON value as YAML (`.yaml`) or JSON (any other name), redacted.
    pub fn add_value(&mut self, name: &str, value: &Value) {
        let safe = self.redactor.tree(value);
        let text = if name.ends_with(".yaml") {
            serde_yaml_ng::to_string(&safe).unwrap_or_default()
        } else {
            format!(
                "{}\n",
                serde_json::to_string_pretty(&safe).unwrap_or_default()
            )
        };
        self.put(name, text.into_bytes());
    }

    /// Names something that could not be collected.
    pub fn failed(&mut self, what: impl Into<String>, why: impl std::fmt::Display) {
        let why = self.redactor.text(&crate::text::one_line(&why.to_string()));
        self.failed.push(Gap {
            what: what.into(),
            why,
        });
    }

    /// Names something left out on purpose.
    pub fn left_out(&mut self, what: impl Into<String>, why: impl Into<String>) {
        self.left_out.push(Gap {
            what: what.into(),
            why: why.into(),
        });
    }

    fn put(&mut self, name: &str, bytes: Vec<u8>) {
        let size = tar_size(bytes.len());
        let budget = self.max_size.saturating_sub(INDEX_RESERVE);
        if self.used + size > budget {
            self.left_out.push(Gap {
                what: name.to_string(),
                why: format!(
                    "{} bytes would take the bundle past --max-size {}",
                    bytes.len(),
                    self.max_size
                ),
            });
            return;
        }
        self.used += size;
        self.entries.push((name.to_string(), bytes));
    }

    /// The entries so far, by name and size.
    pub fn entries(&self) -> Vec<EntryInfo> {
        self.entries
            .iter()
            .map(|(name, bytes)| EntryInfo {
                name: name.clone(),
                bytes: bytes.len() as u64,
            })
            .collect()
    }

    /// How many entries were left out for the size cap.
    pub fn over_cap(&self) -> usize {
        self.left_out
            .iter()
            .filter(|g| g.why.contains("--max-size"))
            .count()
    }

    /// Adds the index (`index.json`, and `README.txt` for people) and gives
    /// the finished entries. The index goes in whatever its size: it is what
    /// says what is missing.
    pub fn finish(mut self, about: &Value) -> Vec<(String, Vec<u8>)> {
        let index = serde_json::json!({
            "about": about,
            "entries": self.entries(),
            "left_out": self.left_out,
            "failed": self.failed,
        });
        let readme = readme(
            about,
            &self.redactor,
            &self.entries(),
            &self.left_out,
            &self.failed,
        );
        let index = self.redactor.text(&format!(
            "{}\n",
            serde_json::to_string_pretty(&index).unwrap_or_default()
        ));
        let readme = self.redactor.text(&readme);
        self.entries
            .insert(0, ("index.json".into(), index.into_bytes()));
        self.entries
            .insert(0, ("README.txt".into(), readme.into_bytes()));
        self.entries
    }
}

/// What the last scan looked for, for the README: the count and kinds of
/// the values known, the encodings, and what it could not know. Written
/// before the scan; the bundle exists only if the scan found nothing.
fn scan_statement(redactor: &Redactor, failed: &[Gap]) -> String {
    let known = redactor.known();
    let mut out = if known.is_empty() {
        "The last scan knew no secret value to look for (none could be read), so it looked\n\
         for nothing: this bundle was redacted by field names and URL credentials only.\n"
            .to_string()
    } else {
        let mut out = format!(
            "A last scan of every file looked for the {} secret value(s) cf-runner knows, each in\n\
             these encodings, and found none of them (it refuses to write a bundle where it finds one):\n",
            known.len()
        );
        for e in ENCODINGS {
            out.push_str(&format!("  - {e}\n"));
        }
        out.push_str("The values looked for (never the values themselves):\n");
        for k in known {
            out.push_str(&format!("  - {}\n", k.kind));
        }
        out
    };
    if redactor.too_short() > 0 {
        out.push_str(&format!(
            "{} value(s) shorter than {MIN_KNOWN_LEN} characters were not looked for: they would match everywhere.\n",
            redactor.too_short()
        ));
    }
    let unknown: Vec<&Gap> = failed
        .iter()
        .filter(|g| g.what.contains("for the last scan"))
        .collect();
    if !unknown.is_empty() {
        out.push_str(&format!(
            "The scan could not look for what it could not read ({} part(s), under \"Could not be collected\").\n",
            unknown.len()
        ));
    }
    out.push('\n');
    out
}

fn readme(
    about: &Value,
    redactor: &Redactor,
    entries: &[EntryInfo],
    left_out: &[Gap],
    failed: &[Gap],
) -> String {
    let mut out = String::from(
        "cf-runner support bundle\n\
         ========================\n\n\
         Made by `cf-runner support-bundle`. Secret values were never read into it: Secrets\n\
         appear by name, key and size only, and every text passed through cf-runner's\n\
         redaction (URL credentials, credential-named fields, the values listed below).\n\n",
    );
    out.push_str(&scan_statement(redactor, failed));
    if let Some(map) = about.as_object() {
        for (k, v) in map {
            out.push_str(&format!(
                "{k}: {}\n",
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            ));
        }
        out.push('\n');
    }
    out.push_str("Files:\n");
    for e in entries {
        out.push_str(&format!("  {:50} {:>10} bytes\n", e.name, e.bytes));
    }
    let mut section = |title: &str, gaps: &[Gap]| {
        out.push_str(&format!("\n{title}:\n"));
        if gaps.is_empty() {
            out.push_str("  (none)\n");
        }
        for g in gaps {
            out.push_str(&format!("  - {}: {}\n", g.what, g.why));
        }
    };
    section("Left out on purpose", left_out);
    section("Could not be collected", failed);
    out
}

/// A known secret found in an entry by the last scan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} was found in {entry} of the bundle; the bundle was not written")]
pub struct Leak {
    /// What the secret is (never its value).
    pub kind: String,
    /// The entry it was found in.
    pub entry: String,
}

/// The last scan: the first known value, in any form of [`ENCODINGS`],
/// found in any entry's bytes.
pub fn scan(entries: &[(String, Vec<u8>)], known: &[Known]) -> Result<(), Leak> {
    let finder = Finder::new(known);
    for (name, bytes) in entries {
        if let Some(found) = finder.next(bytes, 0) {
            return Err(Leak {
                kind: known[found.known].kind.clone(),
                entry: name.clone(),
            });
        }
    }
    Ok(())
}

/// Why a bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Leak(#[from] Leak),
    #[error("{path} is {what}, not a file cf-runner can replace")]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{path} exists and is not a support bundle cf-runner wrote; writing over it could lose your data")]
    NotOurs { path: PathBuf },
    #[error("the bundle is {size} bytes compressed, over --max-size {max}")]
    TooBig { size: u64, max: u64 },
    #[error("could not write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// True when `path` holds a bundle cf-runner wrote (its gzip header has
/// [`GZIP_MARK`]).
fn is_our_bundle(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let decoder = flate2::read::GzDecoder::new(file.take(64 * 1024));
    decoder
        .header()
        .and_then(|h| h.comment())
        .is_some_and(|c| c == GZIP_MARK.as_bytes())
}

/// Refuses `path` when something is there that cf-runner may not replace:
/// anything but a regular file always, a file that is not one of its
/// bundles unless `overwrite`.
pub fn check_path(path: &Path, overwrite: bool) -> Result<(), WriteError> {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    let what = if meta.file_type().is_symlink() {
        Some("a symbolic link")
    } else if meta.is_dir() {
        Some("a folder")
    } else if !meta.is_file() {
        Some("not a regular file")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(WriteError::NotRegular {
            path: path.into(),
            what,
        });
    }
    if overwrite || is_our_bundle(path) {
        Ok(())
    } else {
        Err(WriteError::NotOurs { path: path.into() })
    }
}

/// The `.tar.gz` of `entries` (each 0600, dated `mtime`), in memory.
pub fn archive(entries: &[(String, Vec<u8>)], mtime: u64) -> std::io::Result<Vec<u8>> {
    let gz = flate2::GzBuilder::new()
        .comment(GZIP_MARK)
        .write(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o600);
        header.set_mtime(mtime);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        tar.append_data(&mut header, name, bytes.as_slice())?;
    }
    tar.into_inner()?.finish()
}

/// Scans, archives and writes the bundle at `path`: refused when a known
/// secret is in it, or when the archive is over `max_size`; written 0600
/// beside `path` then renamed over it, so a failed write leaves nothing
/// half-made. Gives the archive's size.
pub fn write(
    path: &Path,
    entries: &[(String, Vec<u8>)],
    known: &[Known],
    max_size: u64,
    overwrite: bool,
) -> Result<u64, WriteError> {
    scan(entries, known)?;
    check_path(path, overwrite)?;
    let mtime = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let io = |source| WriteError::Io {
        path: path.into(),
        source,
    };
    let bytes = archive(entries, mtime).map_err(io)?;
    let size = bytes.len() as u64;
    if size > max_size {
        return Err(WriteError::TooBig {
            size,
            max: max_size,
        });
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "support-bundle.tar.gz".into());
    let aside = path.with_file_name(format!(".{name}.cf-runner-{}", std::process::id()));
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // Elsewhere (Windows) the file keeps the folder's permissions.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&aside)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&aside, path)
    })();
    if let Err(source) = written {
        let _ = std::fs::remove_file(&aside);
        return Err(io(source));
    }
    Ok(size)
}

/// `YYYYMMDD-HHMMSS` (UTC) of a time in seconds since the epoch, for the
/// default file name.
pub fn stamp(secs: u64) -> String {
    let c = crate::text::Civil::of(secs as i64);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

#[cfg(test)]
mod tests;

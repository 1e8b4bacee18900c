//! The export folder as it stands: the record of what an earlier export
//! wrote (with the keyed checksums of private files), the lock against a
//! second export into it, and the check that it holds nothing cf-runner
//! would overwrite unasked.

use std::fs;
use std::path::{Path, PathBuf};

use super::{
    create_file, runtime_environment_text, to_yaml, ExportError, EXPORT_RECORD_FILE,
    PENDING_RECORD_FILE, RUNTIME_ENVIRONMENT_FILE, STAGING_PREFIX,
};
use crate::render::Rendered;

/// The key of the keyed checksums of private files: 32 random bytes, hex,
/// in a file of mode 0600 beside them. Whoever can read it can read the
/// Secret files themselves, so the 0644 record gives nothing away.
pub(super) const RECORD_KEY_FILE: &str = ".cf-runner-export.key";
/// What starts a keyed checksum in the record.
const KEYED: &str = "hmac-sha256:";

/// The record's key of `dir`, when it has a readable one.
pub(super) fn read_record_key(dir: &Path) -> Option<Vec<u8>> {
    let path = dir.join(RECORD_KEY_FILE);
    if !path.symlink_metadata().ok()?.is_file() {
        return None;
    }
    let text = crate::input_file::read_text(&path, 256).ok()?;
    let hex = text.trim();
    if hex.len() != 64 {
        return None;
    }
    (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

/// A file written but not yet synced, with its path for messages.
pub(super) type Unsynced = (PathBuf, fs::File);

/// The record's key of `dir`: the one there, else a new one written 0600
/// (returned unsynced: it is synced with the staged files, before the
/// record that depends on it can be in place).
pub(super) fn record_key(dir: &Path) -> Result<(Vec<u8>, Option<Unsynced>), ExportError> {
    if let Some(key) = read_record_key(dir) {
        return Ok((key, None));
    }
    // The kernel's generator, read directly: seeding aws-lc's own generator
    // costs about 20 ms of CPU, four times the rest of a first export.
    let mut key = vec![0u8; 32];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        .map_err(|e| ExportError::Write {
            path: dir.join(RECORD_KEY_FILE),
            source: std::io::Error::other(format!("no random bytes from the system: {e}")),
        })?;
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(RECORD_KEY_FILE);
    let file = create_file(&path, &format!("{hex}\n"), true)?;
    Ok((key, Some((path, file))))
}

/// The record's checksum of a file: keyed (HMAC-SHA256) for a private file,
/// so a guessed password cannot be checked against the 0644 record; the
/// plain [`checksum`] for the others, whose text is public anyway.
pub(super) fn record_sum(bytes: &[u8], private: bool, key: &[u8]) -> String {
    if !private {
        return checksum(bytes);
    }
    let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, key);
    let tag = aws_lc_rs::hmac::sign(&k, bytes);
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("{KEYED}{hex}")
}

/// True when `bytes` are what the record's `sum` was made of.
fn sum_matches(sum: &str, bytes: &[u8], key: Option<&[u8]>) -> bool {
    if sum.starts_with(KEYED) {
        key.is_some_and(|k| record_sum(bytes, true, k) == sum)
    } else {
        checksum(bytes) == sum
    }
}

/// A checksum that notices a changed file (not a security measure): 64-bit
/// FNV-1a, stable across versions and platforms.
pub(super) fn checksum(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The files an earlier export wrote: name → checksum.
fn read_record(dir: &Path) -> Option<Vec<(String, String)>> {
    let mut files = read_list(dir, EXPORT_RECORD_FILE);
    if let Some(pending) = read_list(dir, PENDING_RECORD_FILE) {
        files.get_or_insert_with(Vec::new).extend(pending);
    }
    files
}

/// The most cf-runner reads of a file in an export folder: its record (a
/// line per file) or a file it wrote there (a rendered manifest).
const MAX_EXPORT_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// A file of the export folder, read with the bound and only if it is a
/// regular file: a FIFO or a link to `/dev/zero` there (a cloned repository
/// can carry either) is unreadable, never a hang.
pub(super) fn read_export_file(path: &Path) -> Option<Vec<u8>> {
    crate::input_file::read_bytes(
        path,
        MAX_EXPORT_FILE_BYTES,
        crate::input_file::Accept::RegularFile,
    )
    .ok()
}

pub(super) fn read_list(dir: &Path, name: &str) -> Option<Vec<(String, String)>> {
    let text = String::from_utf8(read_export_file(&dir.join(name))?).ok()?;
    let mut files = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (sum, name) = line.split_once(' ')?;
        files.push((name.to_string(), sum.to_string()));
    }
    Some(files)
}

pub(super) fn record_text(files: &[(String, String)]) -> String {
    let mut text = String::from(
        "# The files cf-runner wrote into this folder (checksum, name). A later\n\
         # `cf-runner init --dry-run` replaces these and refuses anything else.\n",
    );
    for (name, sum) in files {
        text.push_str(&format!("{sum} {name}\n"));
    }
    text
}

/// Holds an exclusive lock on a folder until dropped.
pub(super) struct FolderLock {
    pub(super) _handle: fs::File,
}

/// Locks `dir` for this run, or says another run holds it (`Busy`).
pub(super) fn lock_folder(dir: &Path) -> Result<FolderLock, ExportError> {
    let lock_err = |source| ExportError::Lock {
        dir: dir.into(),
        source,
    };
    let handle = open_locked(dir).map_err(lock_err)?;
    Ok(FolderLock {
        _handle: handle.ok_or_else(|| ExportError::Busy { dir: dir.into() })?,
    })
}

/// Opens `dir` holding its lock; `Ok(None)` when another run holds it.
/// Unix: an advisory `flock` on the folder itself, which nothing else
/// holds by accident.
#[cfg(unix)]
fn open_locked(dir: &Path) -> std::io::Result<Option<fs::File>> {
    use std::os::unix::io::AsRawFd;
    let handle = fs::File::open(dir)?;
    // SAFETY: flock on a descriptor this function owns; no memory is shared.
    let rc = unsafe { libc::flock(handle.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(Some(handle));
    }
    let err = std::io::Error::last_os_error();
    match err.kind() {
        std::io::ErrorKind::WouldBlock => Ok(None),
        _ => Err(err),
    }
}

/// Opens `dir` holding its lock; `Ok(None)` when another run holds it.
/// Windows: the folder opened for writing (a folder needs the "backup
/// semantics" flag to be opened at all) without sharing write access, so a
/// second run's same open fails with a sharing violation; readers (Explorer,
/// an editor) are not shut out.
#[cfg(windows)]
fn open_locked(dir: &Path) -> std::io::Result<Option<fs::File>> {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_SHARE_READ: u32 = 0x1;
    const FILE_SHARE_DELETE: u32 = 0x4;
    const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
    const ERROR_SHARING_VIOLATION: i32 = 32;
    let opened = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(dir);
    match opened {
        Ok(handle) => Ok(Some(handle)),
        Err(e) if e.raw_os_error() == Some(ERROR_SHARING_VIOLATION) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What kind of thing a non-regular directory entry is, for messages.
pub(super) fn kind_of(meta: &fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("a special file")
    }
}

/// One file of the new export.
pub(super) struct Planned {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) private: bool,
}

pub(super) fn plan(rendered: &Rendered) -> Vec<Planned> {
    let mut files: Vec<Planned> = rendered
        .manifests
        .iter()
        .map(|m| Planned {
            name: m.file_name(),
            text: to_yaml(&m.object),
            private: m.is_secret(),
        })
        .collect();
    files.push(Planned {
        name: RUNTIME_ENVIRONMENT_FILE.into(),
        text: runtime_environment_text(&rendered.runtime_environment),
        private: false,
    });
    files
}

/// What an earlier export left in the folder, as the new one sees it.
pub(super) struct Folder {
    /// Earlier-export files the new render no longer has: removed once the
    /// new export is in place.
    pub(super) stale: Vec<String>,
    /// Earlier-export files that already hold exactly what the new render
    /// would write, with the right mode: left in place, not rewritten.
    pub(super) unchanged: Vec<String>,
}

/// Decides what the folder holds that the export must not touch, and what
/// of an earlier export is stale or already up to date.
pub(super) fn check_folder(
    dir: &Path,
    planned: &[Planned],
    overwrite: bool,
) -> Result<Folder, ExportError> {
    // A folder cf-runner wrote before is its own: other files in it are left
    // alone (unless they take the name of one of cf-runner's files). A
    // folder it did not write must be empty.
    let record = read_record(dir);
    let record_found = record.is_some();
    let ours_folder = record_found || overwrite;
    let record = record.unwrap_or_default();
    let mut seen = Seen::default();
    for (name, meta) in sorted_entries(dir)? {
        if name == EXPORT_RECORD_FILE || name == PENDING_RECORD_FILE || name == RECORD_KEY_FILE {
            seen.bookkeeping(dir, name, &meta, ours_folder);
            continue;
        }
        if record_found && is_left_staging(dir, &name, &meta) {
            // A run that was killed half-way left it; the lock says no run is
            // using it now.
            let _ = fs::remove_dir_all(dir.join(&name));
            continue;
        }
        let planned_here = planned.iter().any(|p| p.name == name);
        if let Some(what) = kind_of(&meta) {
            if planned_here {
                seen.not_files.push(format!("{name} ({what})"));
            } else if !ours_folder {
                seen.in_the_way.push(format!("{name} ({what})"));
            }
            continue;
        }
        let sums: Vec<&String> = record
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, sum)| sum)
            .collect();
        if !sums.is_empty() {
            match recorded_file(dir, &name, &meta, &sums, planned) {
                Some(same) => {
                    if same {
                        seen.unchanged.push(name.clone());
                    }
                    seen.ours.push(name);
                }
                None if !overwrite => seen
                    .in_the_way
                    .push(format!("{name} (changed since cf-runner wrote it)")),
                None => {}
            }
        } else if !overwrite && (!ours_folder || planned_here) {
            seen.in_the_way.push(name);
        }
    }
    seen.verdict(dir, planned)
}

/// What the check found among the folder's entries.
#[derive(Default)]
struct Seen {
    /// Entries the export must not touch: the check fails on them.
    in_the_way: Vec<String>,
    /// Entries where a file must be that are not files.
    not_files: Vec<String>,
    /// Files of an earlier export, still as cf-runner wrote them.
    ours: Vec<String>,
    /// Of those, the ones that already hold what the new render writes.
    unchanged: Vec<String>,
}

impl Seen {
    /// One of cf-runner's own bookkeeping files (the record, a pending
    /// record, the key): it must be a file; without a record (and unless
    /// `mine`), only a key in cf-runner's own form (a first export that
    /// failed after making it) is cf-runner's.
    fn bookkeeping(&mut self, dir: &Path, name: String, meta: &fs::Metadata, mine: bool) {
        if let Some(what) = kind_of(meta) {
            self.not_files.push(format!("{name} ({what})"));
        } else if name == RECORD_KEY_FILE
            && !mine
            && (read_record_key(dir).is_none() || !mode_fits(meta, true))
        {
            self.in_the_way.push(name);
        }
    }

    /// The folder as the new export sees it, or why it may not be written.
    fn verdict(self, dir: &Path, planned: &[Planned]) -> Result<Folder, ExportError> {
        if !self.not_files.is_empty() {
            return Err(ExportError::NotAFile {
                dir: dir.into(),
                entries: self.not_files,
            });
        }
        if !self.in_the_way.is_empty() {
            return Err(ExportError::InTheWay {
                dir: dir.into(),
                entries: self.in_the_way,
            });
        }
        let stale = self
            .ours
            .into_iter()
            .filter(|n| !planned.iter().any(|p| p.name == *n))
            .collect();
        Ok(Folder {
            stale,
            unchanged: self.unchanged,
        })
    }
}

/// The folder's entries with their own metadata (a link is not
/// followed), sorted by name.
fn sorted_entries(dir: &Path) -> Result<Vec<(String, fs::Metadata)>, ExportError> {
    let entries = fs::read_dir(dir).map_err(|source| ExportError::CreateDir {
        path: dir.into(),
        source,
    })?;
    let mut names: Vec<(String, fs::Metadata)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Ok(meta) = entry.path().symlink_metadata() {
            names.push((name, meta));
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(names)
}

/// A file the record names: `None` when it changed since cf-runner wrote
/// it (no recorded checksum matches), else whether it already holds what
/// the new render writes there, with the right mode.
fn recorded_file(
    dir: &Path,
    name: &str,
    meta: &fs::Metadata,
    sums: &[&String],
    planned: &[Planned],
) -> Option<bool> {
    let bytes = read_export_file(&dir.join(name));
    let key = read_record_key(dir);
    if !bytes
        .as_deref()
        .is_some_and(|b| sums.iter().any(|sum| sum_matches(sum, b, key.as_deref())))
    {
        return None;
    }
    Some(
        planned.iter().find(|p| p.name == name).is_some_and(|p| {
            bytes.as_deref() == Some(p.text.as_bytes()) && mode_fits(meta, p.private)
        }),
    )
}

/// The file a staging folder holds from its first moment, naming the
/// process that made it: only a folder with it is cf-runner's to remove.
pub(super) const STAGING_OWNER_FILE: &str = ".cf-runner-staging-of";

/// What [`STAGING_OWNER_FILE`] says for the process `pid`.
pub(super) fn staging_owner_text(pid: u32) -> String {
    format!("cf-runner export staging of process {pid}\n")
}

/// True when `name` is a staging folder an earlier cf-runner run left: a
/// real folder (not a link) named with a process id, holding the owner
/// file that names that same process, and nothing but regular files. A
/// user's folder that only shares the name prefix is never one.
fn is_left_staging(dir: &Path, name: &str, meta: &fs::Metadata) -> bool {
    let Some(pid) = name
        .strip_prefix(STAGING_PREFIX)
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| p.to_string() == name[STAGING_PREFIX.len()..])
    else {
        return false;
    };
    if !meta.is_dir() {
        return false;
    }
    let folder = dir.join(name);
    let owner = folder.join(STAGING_OWNER_FILE);
    let owned = owner.symlink_metadata().is_ok_and(|m| m.is_file())
        && crate::input_file::read_text(&owner, 256).ok() == Some(staging_owner_text(pid));
    owned
        && fs::read_dir(&folder).is_ok_and(|entries| {
            entries.into_iter().all(|e| {
                e.ok()
                    .and_then(|e| e.path().symlink_metadata().ok())
                    .is_some_and(|m| m.is_file())
            })
        })
}

/// True when a file's permissions are the ones cf-runner creates it with.
fn mode_fits(meta: &fs::Metadata, private: bool) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o777 == if private { 0o600 } else { 0o644 }
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, private);
        true
    }
}

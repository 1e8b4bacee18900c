//! Dry-run export: rendered manifests to a folder (one file per object, plus
//! `runtime-environment.txt`) or to stdout as one YAML stream, and the Helm
//! values file. The runtime environment's spec goes to the platform, not the
//! cluster: it is kept where `kubectl apply -f` does not read it (a `.txt`
//! file; comment lines at the end of the stream), so the export applies as
//! it is. Files that hold a Secret are created 0600 from the start,
//! never widened later.
//!
//! A user's files are never lost. An export folder carries a list of the
//! files cf-runner wrote there (with a checksum of each), and a later export
//! replaces only those. Anything else in the folder is refused, named, unless
//! the user passes `--overwrite`. The new export is written aside (a staging
//! folder inside the target) and moved into place only once every file is
//! complete, so a failed export leaves the previous one as it was. A lock on
//! the folder keeps two runs from mixing their files.
//!
//! Power loss. The steps, and what each guarantees once it returns:
//!
//! 1. every staged file, the new record (as the pending record) and a new
//!    record key are written without syncing, their write-back started
//!    together (`sync_file_range`), then fsynced, concurrently: their
//!    contents and inodes are durable (never torn, never empty), with one
//!    journal commit for the batch rather than one per file in turn;
//! 2. the pending record is renamed into the folder, then the folder is
//!    fsynced: its name and the key's are durable before any file moves,
//!    so whatever a power loss keeps of the moves, the records list it;
//! 3. the files are renamed into place one by one (renames within the
//!    folder, each atomic), stale files removed, the pending record renamed
//!    over the record, and the folder fsynced again: the new export is
//!    durable before the run says it is written (and a folder the run
//!    created is made durable in its parent too).
//!
//! A folder that does not exist yet takes a shorter way with the same
//! promise (`new_folder`): every file, the record and its key are written
//! and fsynced in a hidden folder beside it, together with that folder, which
//! is then renamed into place (never over anything) and its parent fsynced.
//! After a power loss there is no folder or the whole new export.
//!
//! So after a power loss the folder holds the old export or the new one,
//! file by file each wholly one or the other, and every file is listed in
//! the records: the next run recognises them all as its own and completes
//! the export (never a mix that it refuses as someone else's). Two cheaper
//! schemes were measured and not taken: `syncfs` of the staging folder's
//! file system makes everything durable with one call, but also waits for
//! every other process's unwritten data on that file system (seconds
//! behind a build; 0.76 s at worst in 30 runs here, against 11 ms for the
//! per-file fsyncs); and `sync_file_range` for all plus an fsync of the
//! folder and the record only promises the names: `sync_file_range` writes
//! no metadata and flushes no disk cache, so on anything but ext4's ordered
//! journal a moved file may come back empty. The fsyncs run on a few
//! threads: one after the other they took 1.6–1.8 times as long here (each
//! flushes the disk cache on a file system without a journal).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::render::Rendered;
use crate::values::secrets;

mod folder;
mod new_folder;
mod stdout;

use folder::{
    check_folder, checksum, kind_of, lock_folder, plan, read_export_file, read_list,
    read_record_key, record_key, record_sum, record_text, staging_owner_text, Folder, Planned,
    Unsynced, RECORD_KEY_FILE, STAGING_OWNER_FILE,
};
pub use stdout::{helm_values_for_stdout, to_stream};

/// Name of the runtime-environment spec file in an export folder: not a
/// Kubernetes object, so not `.yaml` (kubectl reads `.yaml`, `.yml` and
/// `.json` files of a folder, and would refuse it).
pub const RUNTIME_ENVIRONMENT_FILE: &str = "runtime-environment.txt";

/// The first lines of [`RUNTIME_ENVIRONMENT_FILE`], and of the section that
/// carries the spec at the end of a stream on stdout.
const RUNTIME_ENVIRONMENT_HEADER: &str = "\
# The runtime environment's spec, as cf-runner sends it to the Codefresh
# platform (PUT /api/runtime-environments/NAME). It is YAML, but not a
# Kubernetes object: `kubectl apply -f` leaves it out, and so should you.
";

/// The runtime environment's spec as the export shows it: the header, then
/// the YAML, with credentials in URLs and credential-named variables
/// masked (the file is 0644 and stdout ends up in logs; the platform gets
/// the real values at install time).
pub fn runtime_environment_text(spec: &Value) -> String {
    format!(
        "{RUNTIME_ENVIRONMENT_HEADER}{}",
        to_yaml(&secrets::redacted_runtime_spec(spec))
    )
}
/// The list of files cf-runner wrote into an export folder.
pub const EXPORT_RECORD_FILE: &str = ".cf-runner-export";
/// The list of the export being moved into place; it joins the record for
/// the next run, so an export interrupted half-way is still cf-runner's own.
const PENDING_RECORD_FILE: &str = ".cf-runner-export.next";
/// Prefix of the staging folder a new export is written to first.
const STAGING_PREFIX: &str = ".cf-runner-export.staging-";
/// The flag that lets cf-runner write over files it did not write.
pub const OVERWRITE_FLAG: &str = "--overwrite";
/// How many names of files in the way a message lists before "and N more".
const SHOWN_IN_THE_WAY: usize = 8;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("could not create the output folder {path}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not write {path}; the folder's previous contents are unchanged")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} exists and is not a folder")]
    NotADir { path: PathBuf },
    #[error("{dir} holds {} that cf-runner did not write: {}", plural(.entries.len(), "file"), list(.entries))]
    InTheWay {
        dir: PathBuf,
        /// Names, each with why it is in the way when it is not plain.
        entries: Vec<String>,
    },
    #[error("{dir} holds {} in the way that cf-runner never replaces: {}", plural(.entries.len(), "entry"), list(.entries))]
    NotAFile { dir: PathBuf, entries: Vec<String> },
    #[error("another cf-runner is writing to {dir} right now")]
    Busy { dir: PathBuf },
    #[error("could not lock {dir} against a concurrent export")]
    Lock {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not move the new export into {dir} (at {file}); files moved so far: {moved}")]
    Commit {
        dir: PathBuf,
        file: String,
        moved: usize,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} exists and was not generated by cf-runner, or was changed since (its last line's checksum does not match)")]
    NotOurs { path: PathBuf },
    #[error("{path} is {what}, not a regular file")]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("the new files are in {dir}, but the folder could not be synced to disk: a power loss could still undo the move")]
    SyncDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ExportError {
    /// True when the user's input is the cause (exit 2): nothing was written.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ExportError::NotADir { .. }
                | ExportError::InTheWay { .. }
                | ExportError::NotAFile { .. }
                | ExportError::NotOurs { .. }
                | ExportError::NotRegular { .. }
        )
    }

    /// What the user can do about it.
    pub fn fix(&self) -> String {
        match self {
            ExportError::InTheWay { .. } => format!(
                "choose an empty or new folder with --output-dir, or pass {OVERWRITE_FLAG} to write beside them \
                 (files with the same names as cf-runner's are replaced, others are left alone)"
            ),
            ExportError::NotAFile { .. } => {
                "move those entries away, or choose another folder with --output-dir".into()
            }
            ExportError::NotADir { .. } => {
                "name a folder (it is created if missing), or - for stdout".into()
            }
            ExportError::NotOurs { .. } => format!(
                "choose another path, or pass {OVERWRITE_FLAG} to replace it (its contents are lost)"
            ),
            ExportError::NotRegular { .. } => {
                "name a regular file (it is created if missing), or - for stdout".into()
            }
            ExportError::Busy { .. } => "wait for the other run to finish, then try again".into(),
            _ => "check the folder's permissions and free space, then run again".into(),
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    match (n, what) {
        (1, _) => format!("1 {what}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {what}s"),
    }
}

fn list(entries: &[String]) -> String {
    let mut out = entries
        .iter()
        .take(SHOWN_IN_THE_WAY)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if entries.len() > SHOWN_IN_THE_WAY {
        out.push_str(&format!(" and {} more", entries.len() - SHOWN_IN_THE_WAY));
    }
    out
}

/// One object as a YAML document.
pub fn to_yaml(object: &Value) -> String {
    crate::render::yaml::emit(object)
}

/// Writes every manifest to `dir` so that it holds exactly one render:
/// files of an earlier export are replaced, anything else is refused unless
/// `overwrite` (then left alone, or replaced when it has the same name as
/// one of cf-runner's files). Returns every file of the export, written now or already up to date.
pub fn write_dir(
    dir: &Path,
    rendered: &Rendered,
    overwrite: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    write_into(dir, plan(rendered), overwrite)
}

/// [`write_dir`] and [`write_files`]: a folder that does not exist yet is
/// made whole in one step ([`new_folder`]); otherwise the export is staged
/// inside the folder and moved into place file by file.
fn write_into(
    dir: &Path,
    planned: Vec<Planned>,
    overwrite: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ExportError::NotADir { path: dir.into() });
    }
    if let Some(written) = new_folder::write(dir, &planned)? {
        return Ok(written);
    }
    let made = create_dir(dir)?;
    let written = write_planned(dir, planned, overwrite)?;
    sync_made(dir, made.as_deref())?;
    Ok(written)
}

/// Creates `dir` and its missing parents; gives the nearest one that
/// existed when some were made (its entries, and theirs, are synced once
/// the export is in place: see [`sync_made`]).
fn create_dir(dir: &Path) -> Result<Option<PathBuf>, ExportError> {
    let existed = dir
        .ancestors()
        .find(|a| a.as_os_str().is_empty() || a.is_dir())
        .map(Path::to_path_buf);
    fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
        path: dir.into(),
        source,
    })?;
    Ok(existed.filter(|e| e.as_path() != dir))
}

/// Syncs the folders that hold the entries of the folders this run made
/// (from `dir`'s parent up to `existed`, the nearest that was there), so a
/// new export folder does not vanish with a power loss after the run said
/// it was written.
fn sync_made(dir: &Path, existed: Option<&Path>) -> Result<(), ExportError> {
    let Some(existed) = existed else {
        return Ok(());
    };
    for parent in dir.ancestors().skip(1) {
        let at = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        sync_dir(at)?;
        if parent == existed {
            break;
        }
    }
    Ok(())
}

/// Makes a folder's entries (names created, renamed, removed) durable.
fn sync_dir(dir: &Path) -> Result<(), ExportError> {
    step(|| format!("sync {}", dir.display()));
    let synced = fs::File::open(dir).and_then(|d| d.sync_all());
    #[cfg(unix)]
    {
        synced.map_err(|source| ExportError::SyncDir {
            dir: dir.into(),
            source,
        })
    }
    // A folder cannot be opened for syncing everywhere else.
    #[cfg(not(unix))]
    {
        let _ = synced;
        Ok(())
    }
}

/// One file for [`write_files`]: its name in the folder, its text, and
/// whether it is private (0600).
#[derive(Debug, Clone)]
pub struct OutFile {
    pub name: String,
    pub text: String,
    pub private: bool,
}

/// Writes `files` into `dir` the way [`write_dir`] writes an export: a
/// record of what cf-runner wrote, a staging folder, never over a file
/// cf-runner did not write (unless `overwrite`), and the files an earlier
/// run wrote there that are not in `files` removed. Sub-folders are left
/// alone once the folder has a record.
pub fn write_files(
    dir: &Path,
    files: &[OutFile],
    overwrite: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    let planned = files
        .iter()
        .map(|f| Planned {
            name: f.name.clone(),
            text: f.text.clone(),
            private: f.private,
        })
        .collect();
    write_into(dir, planned, overwrite)
}

/// Removes what cf-runner wrote into `dir` (its files and its record) and
/// the folder itself when nothing else is left; a file cf-runner did not
/// write, or changed since, stays and is named.
pub fn remove_files(dir: &Path) -> Result<Vec<String>, ExportError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    write_planned(dir, Vec::new(), false)?;
    for name in [EXPORT_RECORD_FILE, RECORD_KEY_FILE] {
        let _ = fs::remove_file(dir.join(name));
    }
    let left: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if left.is_empty() {
        let _ = fs::remove_dir(dir);
    }
    Ok(left)
}

/// The record's lines for `planned`: name and checksum, sorted by name.
fn recorded(planned: &[Planned], key: &[u8]) -> Vec<(String, String)> {
    let mut recorded: Vec<(String, String)> = planned
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                record_sum(p.text.as_bytes(), p.private, key),
            )
        })
        .collect();
    recorded.sort();
    recorded
}

fn write_planned(
    dir: &Path,
    planned: Vec<Planned>,
    overwrite: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    let _lock = lock_folder(dir)?;
    let Folder { stale, unchanged } = check_folder(dir, &planned, overwrite)?;
    let (key, new_key) = record_key(dir)?;
    let recorded = recorded(&planned, &key);
    let all = || planned.iter().map(|p| dir.join(&p.name)).collect();
    // Files that already hold what this render would write stay as they are:
    // re-exporting an unchanged render writes nothing but the record.
    let to_write: Vec<&Planned> = planned
        .iter()
        .filter(|p| !unchanged.contains(&p.name))
        .collect();
    if to_write.is_empty()
        && stale.is_empty()
        && read_export_file(&dir.join(EXPORT_RECORD_FILE))
            == Some(record_text(&recorded).into_bytes())
        && !dir.join(PENDING_RECORD_FILE).exists()
    {
        return Ok(all());
    }

    // Everything is written aside first, and made durable together; a
    // failure here leaves `dir` as it was.
    let staging = dir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
    stage(&staging, &to_write, &record_text(&recorded), new_key)?;
    // The new list goes in first: were the run killed while moving, the next
    // one finds every file listed, old or new, and finishes the job.
    let pending = staging.join(PENDING_RECORD_FILE);
    step(|| format!("rename {PENDING_RECORD_FILE}"));
    let listed =
        fs::rename(&pending, dir.join(PENDING_RECORD_FILE)).map_err(|source| ExportError::Write {
            path: dir.join(PENDING_RECORD_FILE),
            source,
        });
    // Its name, and the new key's, are durable before any file is moved:
    // whatever a power loss keeps of the moves below, the records list it.
    if let Err(e) = listed.and_then(|()| sync_dir(dir)) {
        let _ = fs::remove_dir_all(&staging);
        return Err(e);
    }

    // Then moved into place, file by file (renames within one folder).
    for (moved, p) in to_write.iter().enumerate() {
        let to = dir.join(&p.name);
        step(|| format!("rename {}", p.name));
        if let Err(source) = fs::rename(staging.join(&p.name), &to) {
            let _ = fs::remove_dir_all(&staging);
            return Err(ExportError::Commit {
                dir: dir.into(),
                file: p.name.clone(),
                moved,
                source,
            });
        }
    }
    for name in stale {
        let _ = fs::remove_file(dir.join(name));
    }
    let _ = fs::remove_dir_all(&staging);
    step(|| format!("rename {EXPORT_RECORD_FILE}"));
    fs::rename(dir.join(PENDING_RECORD_FILE), dir.join(EXPORT_RECORD_FILE)).map_err(|source| {
        ExportError::Write {
            path: dir.join(EXPORT_RECORD_FILE),
            source,
        }
    })?;
    // The moves, the removals and the record's rename are durable before the
    // run says the export is written.
    sync_dir(dir)?;
    Ok(all())
}

#[cfg(test)]
thread_local! {
    /// The renames into an export folder and the folder syncs, in order.
    static STEPS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Notes a step of the commit protocol (kept only by the tests).
fn step(what: impl FnOnce() -> String) {
    #[cfg(test)]
    STEPS.with(|s| s.borrow_mut().push(what()));
    #[cfg(not(test))]
    let _ = what;
}

/// Writes the given files, and the new record (as [`PENDING_RECORD_FILE`]),
/// into a new `staging` folder, which this process creates (something
/// already there by that name is never removed: it is not this run's), then
/// makes them and `also` (the record's new key) durable in one batch. On
/// failure the folder this run made is removed.
fn stage(
    staging: &Path,
    planned: &[&Planned],
    record: &str,
    also: Option<Unsynced>,
) -> Result<(), ExportError> {
    fs::create_dir(staging).map_err(|source| ExportError::Write {
        path: staging.into(),
        source,
    })?;
    let filled = (|| {
        let mut files: Vec<Unsynced> = also.into_iter().collect();
        let owner = staging.join(STAGING_OWNER_FILE);
        let text = staging_owner_text(std::process::id());
        files.push((owner.clone(), create_new_file(&owner, &text, false)?));
        for p in planned {
            let path = staging.join(&p.name);
            let file = create_new_file(&path, &p.text, p.private)?;
            files.push((path, file));
        }
        let pending = staging.join(PENDING_RECORD_FILE);
        files.push((pending.clone(), create_new_file(&pending, record, false)?));
        sync_all(&files)
    })();
    if filled.is_err() {
        let _ = fs::remove_dir_all(staging);
    }
    filled
}

/// How many fsyncs are in flight at once when a batch is made durable (the
/// calling thread takes one share of them).
const SYNC_THREADS: usize = 8;

/// Makes every staged file durable before any is moved into place, each
/// with its own fsync. On Linux the write-back of all of them is started
/// first, so their blocks are allocated together; the fsyncs then run
/// concurrently, so the file system serves them with one journal commit
/// and one cache flush instead of one (or two) per file in turn.
fn sync_all(files: &[Unsynced]) -> Result<(), ExportError> {
    #[cfg(target_os = "linux")]
    for (_, file) in files {
        use std::os::fd::AsRawFd;
        // SAFETY: only reads the descriptor, which `file` keeps open. A
        // failure only loses the head start; the fsync below still runs.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    let sync = |batch: &[Unsynced]| -> Result<(), ExportError> {
        for (path, file) in batch {
            file.sync_all().map_err(|source| ExportError::Write {
                path: path.clone(),
                source,
            })?;
        }
        Ok(())
    };
    if files.len() < 2 {
        return sync(files);
    }
    let per_thread = files.len().div_ceil(SYNC_THREADS);
    let mut batches = files.chunks(per_thread);
    let own = batches.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let running: Vec<_> = batches
            .map(|batch| scope.spawn(move || sync(batch)))
            .collect();
        // This thread takes the first batch; the scope joins every thread
        // even when one failed early.
        let mine = sync(own);
        running
            .into_iter()
            .try_for_each(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .and(mine)
    })
}

/// Writes `text` to a new file at `path`; private files are created with
/// mode 0600. An existing file there is replaced.
pub fn write_file(path: &Path, text: &str, private: bool) -> Result<(), ExportError> {
    let file = create_file(path, text, private)?;
    file.sync_all().map_err(|source| ExportError::Write {
        path: path.into(),
        source,
    })
}

/// [`write_file`] without the sync: the caller makes it durable.
fn create_file(path: &Path, text: &str, private: bool) -> Result<fs::File, ExportError> {
    // Remove first, so an older file's wider mode is not inherited.
    let _ = fs::remove_file(path);
    create_new_file(path, text, private)
}

/// [`create_file`] in a folder this run made, where nothing can be in the
/// way: no removal first (it would fail, once per file). Something there
/// after all is an error, never replaced.
fn create_new_file(path: &Path, text: &str, private: bool) -> Result<fs::File, ExportError> {
    let err = |source| ExportError::Write {
        path: path.into(),
        source,
    };
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    // Windows has no mode bits: the file keeps the folder's permissions
    // (the README's Platforms section says so).
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(path).map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)?;
    Ok(file)
}

/// The start of the last line of a file cf-runner owns (the Helm values
/// file, adopt's values file): the checksum of every line above it. A file
/// is cf-runner's to replace only while the two agree, so an edit the user
/// made (as the header invites) is never written over.
const OWNED_MARK: &str =
    "# cf-runner wrote this file and replaces it only while it is unchanged; checksum ";

/// The most cf-runner reads of a file it may own before deciding it is not.
const OWNED_READ_LIMIT: u64 = 16 << 20;

/// `text` with the last line that lets cf-runner recognise it, unchanged.
pub fn stamped(text: &str) -> String {
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    let sum = checksum(out.as_bytes());
    out.push_str(&format!("{OWNED_MARK}{sum}\n"));
    out
}

/// True when `text` is a [`stamped`] text nobody changed since.
pub fn is_unchanged_since_stamped(text: &str) -> bool {
    let Some(body) = text.strip_suffix('\n') else {
        return false;
    };
    let (above, last) = match body.rfind('\n') {
        Some(i) => (&text[..=i], &body[i + 1..]),
        None => ("", body),
    };
    last.strip_prefix(OWNED_MARK) == Some(checksum(above.as_bytes()).as_str())
}

/// Refuses a path cf-runner would write its own file to, when something is
/// there that is not a regular file (a link, a folder, a device, a pipe:
/// even with `overwrite`), or a file that cf-runner did not write or that
/// was changed since (unless `overwrite`). `-` is stdout.
pub fn check_owned_path(path: &Path, overwrite: bool) -> Result<(), ExportError> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    let meta = match path.symlink_metadata() {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    if let Some(what) = kind_of(&meta) {
        return Err(ExportError::NotRegular {
            path: path.into(),
            what,
        });
    }
    if overwrite {
        return Ok(());
    }
    let ours = crate::input_file::read_text(path, OWNED_READ_LIMIT)
        .is_ok_and(|text| is_unchanged_since_stamped(&text));
    if ours {
        Ok(())
    } else {
        Err(ExportError::NotOurs { path: path.into() })
    }
}

/// The Helm values path's check: [`check_owned_path`].
pub fn check_helm_values_path(path: &Path, overwrite: bool) -> Result<(), ExportError> {
    check_owned_path(path, overwrite)
}

/// Writes a file cf-runner owns: checked like [`check_owned_path`], then
/// [`stamped`] and [`replace_file`]d.
pub fn write_owned(
    path: &Path,
    text: &str,
    private: bool,
    overwrite: bool,
) -> Result<(), ExportError> {
    check_owned_path(path, overwrite)?;
    replace_file(path, &stamped(text), private)
}

/// Writes the Helm values file (see [`write_owned`]).
pub fn write_helm_values(
    path: &Path,
    text: &str,
    private: bool,
    overwrite: bool,
) -> Result<(), ExportError> {
    write_owned(path, text, private, overwrite)
}

/// Puts `text` at `path`: written aside (beside it, so the rename stays in
/// one file system) and renamed over the old file, so a failed or
/// interrupted write leaves the old file whole. Anything at `path` that is
/// not a regular file is refused, never replaced.
pub fn replace_file(path: &Path, text: &str, private: bool) -> Result<(), ExportError> {
    if let Ok(meta) = path.symlink_metadata() {
        if let Some(what) = kind_of(&meta) {
            return Err(ExportError::NotRegular {
                path: path.into(),
                what,
            });
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cf-runner.yaml".into());
    let aside = path.with_file_name(format!(".{name}.cf-runner-{}", std::process::id()));
    if let Err(e) = write_file(&aside, text, private) {
        let _ = fs::remove_file(&aside);
        return Err(e);
    }
    fs::rename(&aside, path).map_err(|source| {
        let _ = fs::remove_file(&aside);
        ExportError::Write {
            path: path.into(),
            source,
        }
    })?;
    // The rename is durable before the run says the file is written.
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => sync_dir(p),
        _ => sync_dir(Path::new(".")),
    }
}

#[cfg(test)]
mod tests;

//! A first export into a folder that does not exist yet, made in one step.
//!
//! Every file, the record and its key are written under their own names
//! into a new hidden folder beside the export's (`.NAME.cf-runner-new-PID`),
//! made durable together with that folder's entries, and the folder is then
//! renamed to NAME (refusing to replace anything that appeared there
//! meanwhile), and its parent synced. After a power loss there is no export
//! folder (the "old" export: none) or the whole new one, never part of it.
//! This needs no staging folder inside the export, no pending record, no
//! move per file and one folder sync fewer than writing into an existing
//! folder: about a third of a first export's system calls.
//!
//! A power loss before the rename can leave the hidden folder behind; the
//! next first export into the same folder removes it (see [`leftovers`]).

use std::fs;
use std::path::{Path, PathBuf};

use super::{
    create_new_file, record_key, record_text, recorded, step, sync_all, sync_made, ExportError,
    Planned, Unsynced, EXPORT_RECORD_FILE, RECORD_KEY_FILE,
};

/// Between the export folder's name and the process id in the name of the
/// folder a first export is written to.
const INFIX: &str = ".cf-runner-new-";

/// The longest file name most file systems take.
const NAME_MAX: usize = 255;

/// Writes `planned` as a whole new folder at `dir`. `None` when `dir` names
/// something already (or its name cannot carry a hidden sibling, or the
/// rename cannot refuse to replace): the caller then writes into the
/// folder the usual way.
pub(super) fn write(dir: &Path, planned: &[Planned]) -> Result<Option<Vec<PathBuf>>, ExportError> {
    if !cfg!(target_os = "linux") || dir.symlink_metadata().is_ok() {
        return Ok(None);
    }
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
        return Ok(None);
    };
    let staging_name = format!(".{name}{INFIX}{}", std::process::id());
    if staging_name.len() > NAME_MAX {
        return Ok(None);
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The nearest folder that is there now: the new ones up to it are
    // synced into their parents once the export is in place.
    let existed = parent
        .ancestors()
        .find(|a| a.as_os_str().is_empty() || a.is_dir())
        .map(Path::to_path_buf);
    fs::create_dir_all(parent).map_err(|source| ExportError::CreateDir {
        path: dir.into(),
        source,
    })?;
    leftovers(parent, name);
    let staging = parent.join(&staging_name);
    match fs::create_dir(&staging) {
        Ok(()) => {}
        // Left by an earlier process with this id, and not recognised as
        // cf-runner's: the usual way never touches it.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(None),
        Err(source) => {
            return Err(ExportError::CreateDir {
                path: dir.into(),
                source,
            })
        }
    }
    let moved = fill(&staging, planned).and_then(|()| rename_new(&staging, dir));
    match moved {
        Ok(true) => {}
        Ok(false) => {
            let _ = fs::remove_dir_all(&staging);
            return Ok(None);
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    }
    // `dir`'s name (and that of every folder made for it) is durable before
    // the run says the export is written.
    sync_made(dir, existed.as_deref())?;
    Ok(Some(planned.iter().map(|p| dir.join(&p.name)).collect()))
}

/// Writes the record's key, the record and the files into `staging` (in
/// that order, so whatever a kill leaves is recognised by [`leftovers`]),
/// then makes them and the folder's entries durable in one batch.
fn fill(staging: &Path, planned: &[Planned]) -> Result<(), ExportError> {
    let (key, key_file) = record_key(staging)?;
    let mut files: Vec<Unsynced> = key_file.into_iter().collect();
    let record = staging.join(EXPORT_RECORD_FILE);
    let text = record_text(&recorded(planned, &key));
    files.push((record.clone(), create_new_file(&record, &text, false)?));
    for p in planned {
        let path = staging.join(&p.name);
        let file = create_new_file(&path, &p.text, p.private)?;
        files.push((path, file));
    }
    let folder = fs::File::open(staging).map_err(|source| ExportError::Write {
        path: staging.into(),
        source,
    })?;
    files.push((staging.into(), folder));
    step(|| format!("sync {} files and their folder", files.len() - 1));
    sync_all(&files)
}

/// Renames `staging` to `dir` unless something is there by then: `false`
/// when something is, or when the file system cannot refuse to replace.
fn rename_new(staging: &Path, dir: &Path) -> Result<bool, ExportError> {
    step(|| format!("rename to {}", dir.display()));
    match rename_noreplace(staging, dir) {
        Ok(()) => Ok(true),
        Err(e)
            if e.kind() == std::io::ErrorKind::AlreadyExists
                || e.raw_os_error() == Some(libc::EINVAL)
                || e.raw_os_error() == Some(libc::ENOSYS) =>
        {
            Ok(false)
        }
        Err(source) => Err(ExportError::Write {
            path: dir.into(),
            source,
        }),
    }
}

/// `renameat2(…, RENAME_NOREPLACE)`: never replaces what is at `to`.
#[cfg(target_os = "linux")]
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|_| std::io::ErrorKind::InvalidInput)
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn rename_noreplace(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Removes what a first export into `parent/name` left beside it when a
/// power loss or a kill stopped it before the rename: a real folder named
/// `.NAME.cf-runner-new-PID` holding nothing but regular files, among them
/// the record and its key, every other one listed in that record, and no
/// process of that id alive. Anything else of that name is left alone.
fn leftovers(parent: &Path, name: &str) {
    let prefix = format!(".{name}{INFIX}");
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .filter(|p| !p.starts_with('0') && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let path = entry.path();
        if pid != std::process::id() && !alive(pid) && is_left_export(&path) {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// True when a process `pid` runs (or cannot be told apart from one that
/// does).
fn alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        // SAFETY: signal 0 only checks that the process exists.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// True when `folder` holds only what [`fill`] writes: regular files, a
/// record key in cf-runner's form, and besides it only the record and the
/// files that record lists.
fn is_left_export(folder: &Path) -> bool {
    if !folder.symlink_metadata().is_ok_and(|m| m.is_dir())
        || super::read_record_key(folder).is_none()
    {
        return false;
    }
    let listed = super::read_list(folder, EXPORT_RECORD_FILE).unwrap_or_default();
    let Ok(entries) = fs::read_dir(folder) else {
        return false;
    };
    entries.into_iter().all(|entry| {
        entry.is_ok_and(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            entry.path().symlink_metadata().is_ok_and(|m| m.is_file())
                && (name == EXPORT_RECORD_FILE
                    || name == RECORD_KEY_FILE
                    || listed.iter().any(|(n, _)| *n == name))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id of a process that has ended.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// A folder as a first export killed before its rename leaves it:
    /// the key, the record, and some of the files the record lists.
    fn left(parent: &Path, name: &str, pid: u32, extra: Option<&str>) -> PathBuf {
        let folder = parent.join(format!(".{name}{INFIX}{pid}"));
        fs::create_dir(&folder).unwrap();
        fs::write(
            folder.join(RECORD_KEY_FILE),
            format!("{}\n", "ab".repeat(32)),
        )
        .unwrap();
        fs::write(
            folder.join(EXPORT_RECORD_FILE),
            "# list\n0123 a.yaml\n0456 b.yaml\n",
        )
        .unwrap();
        fs::write(folder.join("a.yaml"), "a: 1\n").unwrap();
        if let Some(extra) = extra {
            fs::write(folder.join(extra), "mine\n").unwrap();
        }
        folder
    }

    /// A first export that fails half-way (here: a file it cannot create)
    /// leaves no folder, and nothing beside where it would have been.
    #[test]
    fn a_failed_first_export_leaves_no_folder_and_nothing_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let files = ["a.yaml", "missing/b.yaml"].map(|name| super::super::OutFile {
            name: name.into(),
            text: "x: 1\n".into(),
            private: false,
        });
        let dir = tmp.path().join("export");
        let err = super::super::write_files(&dir, &files, false).unwrap_err();
        assert!(err.to_string().contains("missing/b.yaml"), "{err}");
        assert_eq!(
            fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "something is left"
        );
    }

    /// A power loss before the rename leaves a hidden folder beside the
    /// export: the next first export there removes it, and only it (never
    /// a folder holding a file cf-runner did not write, nor another
    /// export's, nor a running process's).
    #[test]
    fn a_first_export_removes_what_a_killed_one_left_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = left(tmp.path(), "export", dead_pid(), None);
        let with_user_file = left(tmp.path(), "export", dead_pid(), Some("notes.txt"));
        let other_export = left(tmp.path(), "other", dead_pid(), None);
        let running = left(tmp.path(), "export", 1, None);
        let files = [super::super::OutFile {
            name: "a.yaml".into(),
            text: "a: 2\n".into(),
            private: false,
        }];
        super::super::write_files(&tmp.path().join("export"), &files, false).unwrap();
        assert!(!gone.exists(), "{} is left", gone.display());
        for kept in [&with_user_file, &other_export, &running] {
            assert!(
                kept.join("a.yaml").exists(),
                "{} was removed",
                kept.display()
            );
        }
        assert_eq!(
            fs::read_to_string(tmp.path().join("export/a.yaml")).unwrap(),
            "a: 2\n"
        );
    }
}

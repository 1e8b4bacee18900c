//! Reading every file cf-runner reads, with one bound: values files,
//! `--set-file` sources, `--tolerations @file`, kubeconfigs, and its own
//! files (the export record, `~/.cfconfig`, a docker `config.json`, the
//! wizard's key file). The kind of file is checked before anything is read
//! and again on the opened handle, and never more than a limit is read, so a
//! FIFO, `/dev/zero` or a huge file fails at once with a message instead of
//! hanging or eating memory.

use std::io::Read;
use std::path::Path;

/// Why a named file could not be read, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("could not be read: it does not exist")]
    Missing,
    #[error("could not be read: {0}")]
    Io(String),
    #[error("is a {0}, not a file")]
    NotAFile(&'static str),
    #[error("is larger than the {limit} bytes cf-runner reads from one file")]
    TooBig { limit: u64 },
    #[error("is not UTF-8 text")]
    NotText,
}

/// Which kinds of file a read accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// Regular files (through symlinks) only: what cf-runner reads on its
    /// own, where a FIFO would block the run and a device never ends.
    RegularFile,
    /// Regular files and pipes: what a user names on the command line,
    /// where `<(…)` process substitution is a pipe.
    FileOrPipe,
}

/// Reads `path` as UTF-8 text of at most `limit` bytes. Regular files and
/// pipes (`<(…)` process substitution) are read; folders, devices and
/// sockets are refused before anything is read.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    text_of(read_bytes(path, limit, Accept::FileOrPipe)?)
}

/// Reads `path`, a regular file (a symlink to one is fine), as UTF-8 text of
/// at most `limit` bytes: for the files cf-runner finds on its own.
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    text_of(read_bytes(path, limit, Accept::RegularFile)?)
}

/// Like [`read_regular_text`], with a missing file as `None`.
pub fn read_regular_text_if_exists(path: &Path, limit: u64) -> Result<Option<String>, ReadError> {
    match read_regular_text(path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(ReadError::Missing) => Ok(None),
        Err(e) => Err(e),
    }
}

fn text_of(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
}

/// Reads at most `limit` bytes of `path`, after checking its kind: first by
/// its metadata (nothing is opened that is not accepted: opening a FIFO
/// blocks until someone writes, opening a device can act on it), then on
/// the opened handle, so a file swapped in between is still refused.
pub fn read_bytes(path: &Path, limit: u64, accept: Accept) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(io_error)?;
    check_kind(&meta, limit, accept)?;
    let file = open(path, meta.file_type().is_file()).map_err(io_error)?;
    let opened = file.metadata().map_err(io_error)?;
    check_kind(&opened, limit, accept)?;
    if meta.file_type().is_file() != opened.file_type().is_file() {
        return Err(ReadError::NotAFile(describe(&opened.file_type())));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooBig { limit });
    }
    Ok(bytes)
}

fn check_kind(meta: &std::fs::Metadata, limit: u64, accept: Accept) -> Result<(), ReadError> {
    let kind = meta.file_type();
    let accepted = kind.is_file() || (accept == Accept::FileOrPipe && is_pipe(&kind));
    if !accepted {
        return Err(ReadError::NotAFile(describe(&kind)));
    }
    if kind.is_file() && meta.len() > limit {
        return Err(ReadError::TooBig { limit });
    }
    Ok(())
}

fn io_error(e: std::io::Error) -> ReadError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ReadError::Missing
    } else {
        ReadError::Io(e.to_string())
    }
}

/// Opens for reading; a regular file is opened non-blocking, so that a FIFO
/// put in its place after the check does not block the open (the kind is
/// checked again on the handle).
fn open(path: &Path, regular: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if regular {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    let _ = regular;
    options.open(path)
}

#[cfg(unix)]
fn is_pipe(kind: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_fifo()
}

#[cfg(not(unix))]
fn is_pipe(_kind: &std::fs::FileType) -> bool {
    false
}

fn describe(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "character device";
        }
        if kind.is_block_device() {
            return "block device";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_fifo() {
            return "named pipe (FIFO)";
        }
    }
    if kind.is_dir() {
        "folder"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_big_files_are_refused() {
        assert_eq!(
            read_text(Path::new("/dev/zero"), 1024),
            Err(ReadError::NotAFile("character device"))
        );
        assert_eq!(
            read_text(Path::new("/"), 1024),
            Err(ReadError::NotAFile("folder"))
        );
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, "a: 1\n".repeat(300)).unwrap();
        assert_eq!(
            read_text(&big, 1024),
            Err(ReadError::TooBig { limit: 1024 })
        );
        assert_eq!(read_text(&big, 4096).unwrap().len(), 1500);
        assert_eq!(
            read_regular_text_if_exists(&dir.path().join("none"), 1024),
            Ok(None)
        );
    }

    /// A FIFO nobody writes to, and a symlink to `/dev/zero`, where
    /// cf-runner reads a file of its own: refused at once. The read runs on
    /// a thread with a deadline, so a regression fails instead of hanging.
    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_to_a_device_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path this test owns.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let regular = dir.path().join("real");
        std::fs::write(&regular, "ok").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&regular, &link).unwrap();
        let within = |path: std::path::PathBuf| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(read_regular_text(&path, 1024));
            });
            rx.recv_timeout(std::time::Duration::from_secs(5))
                .expect("the read returns within 5 s")
        };
        assert_eq!(within(fifo), Err(ReadError::NotAFile("named pipe (FIFO)")));
        assert_eq!(within(zero), Err(ReadError::NotAFile("character device")));
        assert_eq!(within(link), Ok("ok".to_string()));
    }
}

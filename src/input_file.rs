//! Reading the files a user names (values files, `--set-file` sources,
//! `--tolerations @file`, kubeconfigs) with a bound: only regular files and
//! pipes, never more than a limit, so `/dev/zero` or a huge file fails at
//! once with a message instead of eating memory.

use std::io::Read;
use std::path::Path;

/// Why a named file could not be read, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("could not be read: {0}")]
    Io(String),
    #[error("is a {0}, not a file")]
    NotAFile(&'static str),
    #[error("is larger than the {limit} bytes cf-runner reads from one file")]
    TooBig { limit: u64 },
    #[error("is not UTF-8 text")]
    NotText,
}

/// Reads `path` as UTF-8 text of at most `limit` bytes. Regular files and
/// pipes (`<(…)` process substitution) are read; folders, devices and
/// sockets are refused before anything is read.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(e.to_string()))?;
    let kind = meta.file_type();
    if !kind.is_file() && !is_pipe(&kind) {
        return Err(ReadError::NotAFile(describe(&kind)));
    }
    if kind.is_file() && meta.len() > limit {
        return Err(ReadError::TooBig { limit });
    }
    let file = std::fs::File::open(path).map_err(|e| ReadError::Io(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooBig { limit });
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
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
    }
}

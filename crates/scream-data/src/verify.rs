//! Checking and installing a fetched file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::catalogue::DataFile;

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A fetched file that is not the one the catalogue pins, or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch {
    /// Its digest differs: the upstream changed or the download was corrupted.
    #[error("{name}: SHA-256 {got} differs from the pinned {want}; nothing was written")]
    Digest {
        /// The data file.
        name: String,
        /// What came.
        got: String,
        /// What the catalogue pins.
        want: String,
    },
    /// Writing it failed.
    #[error("{path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
}

/// Checks `bytes` against `file`'s pinned digest and writes them to `dir/<file.path>`,
/// through a temporary file renamed into place, so that an interrupted or refused fetch
/// never leaves a partial file that a later run would take for the real one.
pub fn install(dir: &Path, file: &DataFile, bytes: &[u8]) -> Result<PathBuf, Mismatch> {
    let got = sha256_hex(bytes);
    if got != file.sha256 {
        return Err(Mismatch::Digest {
            name: file.path.to_owned(),
            got,
            want: file.sha256.to_owned(),
        });
    }
    let target = dir.join(file.path);
    let write_error = |path: &Path, e: std::io::Error| Mismatch::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let parent = target.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(|e| write_error(parent, e))?;
    let partial = target.with_extension("partial");
    let mut out = std::fs::File::create(&partial).map_err(|e| write_error(&partial, e))?;
    out.write_all(bytes)
        .and_then(|()| out.sync_all())
        .map_err(|e| write_error(&partial, e))?;
    std::fs::rename(&partial, &target).map_err(|e| write_error(&target, e))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELLO: DataFile = DataFile {
        path: "links/hello.txt",
        url: "",
        // SHA-256 of "hello\n".
        sha256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
        bytes: 6,
    };

    #[test]
    fn digest_is_the_standard_sha256() {
        assert_eq!(sha256_hex(b"hello\n"), HELLO.sha256);
    }

    #[test]
    fn a_matching_file_is_installed_under_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = install(dir.path(), &HELLO, b"hello\n").unwrap();
        assert_eq!(path, dir.path().join("links/hello.txt"));
        assert_eq!(std::fs::read(path).unwrap(), b"hello\n");
        assert!(!dir.path().join("links/hello.partial").exists());
    }

    #[test]
    fn a_file_with_another_digest_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let e = install(dir.path(), &HELLO, b"hellO\n").unwrap_err();
        assert!(matches!(e, Mismatch::Digest { .. }), "{e}");
        assert!(!dir.path().join("links").exists());
    }
}

//! One sweep at a time per folder.
//!
//! Two sweeps appending to one results.csv would each run every run the other has not
//! finished yet, and the file would hold every run twice. A sweep therefore holds an
//! exclusive lock on `sweep.lock` in its folder for as long as it runs. The lock is the
//! operating system's (`flock` on Unix, `LockFileEx` on Windows, through `fs4`), not a
//! pid written into a file: it is released when the process ends, however it ends, so
//! a sweep that was killed never blocks the next one. The file itself stays; deleting
//! it while another process held it open would let a third take a lock of its own on a
//! new file.

use std::fs::{File, OpenOptions};
use std::path::Path;

use super::SweepError;

/// The lock file in a sweep's folder (empty).
pub const LOCK_FILE: &str = "sweep.lock";

/// A held lock on a sweep folder; dropping it releases the lock.
#[derive(Debug)]
pub(super) struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the lock on `dir` (which must exist), or says that another sweep holds it.
    pub(super) fn take(dir: &Path) -> Result<Self, SweepError> {
        let path = dir.join(LOCK_FILE);
        let io_error = |source| SweepError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_error)?;
        // Called through the trait: std's own `File::try_lock` is newer than the
        // workspace's minimum Rust version.
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => Ok(Self { _file: file }),
            Err(fs4::TryLockError::WouldBlock) => Err(SweepError::Busy {
                dir: dir.to_path_buf(),
                lock: path,
            }),
            Err(fs4::TryLockError::Error(e)) => Err(io_error(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_folder_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = FolderLock::take(dir.path()).expect("free");
        let e = FolderLock::take(dir.path()).expect_err("held");
        assert!(matches!(e, SweepError::Busy { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&dir.path().display().to_string()) && text.contains("another"),
            "{text}"
        );
        drop(first);
        let _again = FolderLock::take(dir.path()).expect("released");
        assert!(dir.path().join(LOCK_FILE).is_file());
    }
}

//! Output files replaced whole or not at all.
//!
//! A plot, a summary or a manifest is written to a temporary file in the folder it
//! belongs to, flushed to the disk, and only then renamed over its name: the rename
//! either happens or not, so a full disk, a failed write or a killed process never
//! leaves a truncated PNG, JSON or CSV under a name that looks complete. The earlier
//! file, if any, stays until the new one is whole. A process killed mid-write leaves
//! at most a hidden `.NAME.*.tmp` file beside it, never a file of the real name.
//!
//! Every writer of a run's, a sweep's or a report's files goes through [`write_atomic`]
//! or [`write_atomic_with`].

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder.
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes.as_ref()))
}

/// Writes `path` by `fill` through a temporary file in the same folder; nothing
/// replaces `path` unless `fill` and the flush to the disk succeed.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // A temporary file is private (0600) by default; an output file gets the mode any
    // new file gets (0666 less the umask), as std::fs::write would give it.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // Dropped on any error below, which deletes it.
    let temp = builder.tempfile_in(dir)?;
    {
        let mut w = BufWriter::new(temp.as_file());
        fill(&mut w)?;
        w.flush()?;
    }
    // Some file systems report a full disk only here; and without it a crash of the
    // machine could leave the new name pointing at data never written.
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("listed")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("summary.json");
        write_atomic(&path, "old").expect("written");
        write_atomic(&path, "new and longer").expect("written");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "new and longer"
        );
        assert_eq!(names(dir.path()), ["summary.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn an_output_file_gets_the_mode_of_any_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let plain = dir.path().join("plain.csv");
        std::fs::write(&plain, "x").expect("written");
        let atomic = dir.path().join("atomic.csv");
        write_atomic(&atomic, "x").expect("written");
        let mode = |p: &Path| p.metadata().expect("metadata").permissions().mode() & 0o777;
        assert_eq!(mode(&atomic), mode(&plain));
    }

    #[test]
    fn a_failed_write_keeps_the_earlier_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("plot.png");
        write_atomic(&path, "complete").expect("written");
        let e = write_atomic_with(&path, |w| {
            w.write_all(b"half a pl")?;
            Err(io::Error::other("disk full"))
        })
        .expect_err("the fill failed");
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "complete");
        assert_eq!(names(dir.path()), ["plot.png"]);
        // And with no earlier file, no file of that name appears at all.
        let fresh = dir.path().join("fresh.csv");
        write_atomic_with(&fresh, |_| Err(io::Error::other("disk full"))).expect_err("failed");
        assert!(!fresh.exists());
        assert_eq!(names(dir.path()), ["plot.png"]);
    }
}

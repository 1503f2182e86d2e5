//! Embeds the git commit the binary is built from (for manifest.json), as the
//! environment variables (read by `scream_sim::toolkit_of_this_build!`; the Python
//! module, crates/scream-py, runs this same script) `SCREAM_GIT_COMMIT` (40 hex digits or `unknown`) and
//! `SCREAM_GIT_DIRTY` (`true`, `false` or `unknown`).
//!
//! Outside a git checkout (a source tarball, a crate package) or without `git`, both
//! are `unknown` and the build goes on. A packager can set `SCREAM_GIT_COMMIT` itself.
//!
//! The script reruns only when the answer may have changed: a commit, checkout or
//! `git add` (HEAD, the branch's ref, packed refs, the index) or an edit of what the
//! binary is built from (the crates, scenarios and assets, the workspace manifest and
//! lock file) — all of which rebuild this crate anyway. An edit elsewhere (docs) after
//! the last build is not seen by the dirty flag.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in the crate's folder; `None` if git is missing or says no.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        // `git status` refreshes the index file when it can; that write would change a
        // watched file and make every later build rerun this script.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Asks cargo to rerun the script when `path` changes. Only for paths that exist: cargo
/// counts a missing one as changed, which would rerun the script on every build (a ref
/// can live in packed-refs and have no file of its own).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SCREAM_GIT_COMMIT");
    if let Ok(commit) = std::env::var("SCREAM_GIT_COMMIT") {
        println!("cargo:rustc-env=SCREAM_GIT_COMMIT={commit}");
        println!("cargo:rustc-env=SCREAM_GIT_DIRTY=unknown");
        return;
    }
    let commit = git(&["rev-parse", "HEAD"]);
    let dirty = commit.as_ref().and_then(|_| {
        git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty())
    });
    println!(
        "cargo:rustc-env=SCREAM_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo:rustc-env=SCREAM_GIT_DIRTY={}",
        dirty.map_or("unknown", |d| if d { "true" } else { "false" })
    );
    if commit.is_none() {
        // No git state to watch; build.rs alone decides when to look again.
        return;
    }
    // A linked worktree keeps HEAD and index in its own git dir, refs in the common one.
    let abs = |p: String| -> PathBuf {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            std::env::current_dir().map_or(p.clone(), |d| d.join(p))
        }
    };
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]).map(abs) {
        watch(&git_dir.join("HEAD"));
        watch(&git_dir.join("index"));
    }
    if let Some(common) = git(&["rev-parse", "--git-common-dir"]).map(abs) {
        watch(&common.join("packed-refs"));
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(&common.join(branch));
        }
    }
    // The workspace root, two levels above this crate.
    if let Some(root) = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2) {
        for source in ["crates", "scenarios", "assets", "Cargo.toml", "Cargo.lock"] {
            watch(&root.join(source));
        }
    }
}

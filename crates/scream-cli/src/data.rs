//! `scream data`: which data files the toolkit knows and where they were found, and
//! fetching the ones the repository does not ship (data/README.md).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use scream_data::{DATASETS, DataFile, DataPath, Dataset};

/// Arguments of `scream data`.
#[derive(Debug, clap::Args)]
pub(crate) struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(Debug, clap::Subcommand)]
enum DataCommand {
    /// Every data file: shipped or fetched, licence, and where it was found.
    List,
    /// Download data the repository does not ship, checked against pinned SHA-256s.
    Fetch(FetchArgs),
}

#[derive(Debug, clap::Args)]
struct FetchArgs {
    /// A dataset (`scream data list`), one file by its path (`links/<name>`), or `all`.
    #[arg(default_value = "all")]
    what: String,
    /// Folder to write to (default: the first data folder searched: the repository's
    /// data/, or the first folder of SCREAM_DATA_PATH).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Fetch from a mirror of a data folder instead of the upstream sources: files are
    /// requested as URL/<path>, e.g. URL/links/lumos5g-5g_trace_54_walking.tsv.
    #[arg(long, value_name = "URL", env = "SCREAM_DATA_MIRROR")]
    from: Option<String>,
    /// Download again files that are already present and intact.
    #[arg(long)]
    force: bool,
}

/// The data search path of a command: `extra` (its `--data DIR`) first, then the
/// default path (data/README.md).
pub(crate) fn search_path(extra: Option<&Path>) -> DataPath {
    let path = DataPath::from_env();
    match extra {
        // Absolute, so that scenarios built from it resolve the same from any folder.
        Some(dir) => path.with_first(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.into())),
        None => path,
    }
}

pub(crate) fn main(args: &DataArgs) -> Result<String, String> {
    match &args.command {
        DataCommand::List => Ok(list(&DataPath::from_env())),
        DataCommand::Fetch(f) => fetch(f),
    }
}

fn list(path: &DataPath) -> String {
    let mut out = format!(
        "data folders searched, in order: {}\n",
        path.dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for d in DATASETS {
        let how = if d.shipped {
            "shipped".to_owned()
        } else {
            format!("fetch: scream data fetch {}", d.name)
        };
        out.push_str(&format!(
            "\n{}  ({how})\n  {}\n  licence: {}\n  cite: {}\n",
            d.name, d.about, d.licence, d.cite
        ));
        for f in d.files {
            let at = path
                .find(f.path)
                .map_or_else(|_| "missing".to_owned(), |p| p.display().to_string());
            out.push_str(&format!("  {:<46} {at}\n", f.path));
        }
    }
    out
}

/// The files `what` names.
fn selection(what: &str) -> Result<Vec<(&'static Dataset, &'static DataFile)>, String> {
    let fetchable = || DATASETS.iter().filter(|d| !d.shipped);
    let picked: Vec<_> = if what == "all" {
        fetchable()
            .flat_map(|d| d.files.iter().map(move |f| (d, f)))
            .collect()
    } else if let Some(d) = scream_data::dataset(what) {
        d.files.iter().map(|f| (d, f)).collect()
    } else if let Some(pair) = scream_data::file(what.strip_prefix("data:").unwrap_or(what)) {
        vec![pair]
    } else {
        let names: Vec<&str> = fetchable().map(|d| d.name).collect();
        return Err(format!(
            "{what}: no such dataset or data file; fetchable datasets: {}, or all \
             (`scream data list` shows every file)",
            names.join(", ")
        ));
    };
    if let Some((d, _)) = picked.iter().find(|(d, _)| d.shipped) {
        return Err(format!(
            "{what}: the {} files ship in the repository's data/ folder and are not \
             fetched; restore them with `git checkout -- data`",
            d.name
        ));
    }
    Ok(picked)
}

fn fetch(args: &FetchArgs) -> Result<String, String> {
    let files = selection(&args.what)?;
    let path = DataPath::from_env();
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => path
            .fetch_dir()
            .map(Path::to_path_buf)
            .ok_or("no data folder to write to: give one with --dir DIR")?,
    };
    let agent = agent();
    let mut out = String::new();
    for (dataset, file) in files {
        let (verb, written) = fetch_one(&agent, &dir, file, args.from.as_deref(), args.force)?;
        out.push_str(&format!(
            "{}  {verb}  {} ({}: {})\n",
            file.path,
            written.display(),
            dataset.name,
            dataset.licence
        ));
    }
    Ok(out)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(FETCH_TIMEOUT))
        .build()
        .into()
}

/// Fetches one file into `dir` unless an intact copy is there; says which it did.
fn fetch_one(
    agent: &ureq::Agent,
    dir: &Path,
    file: &DataFile,
    mirror: Option<&str>,
    force: bool,
) -> Result<(&'static str, PathBuf), String> {
    let target = dir.join(file.path);
    if !force && intact(&target, file) {
        return Ok(("present", target));
    }
    let url = match mirror {
        Some(base) => format!("{}/{}", base.trim_end_matches('/'), file.path),
        None => file.url.to_owned(),
    };
    let bytes =
        download(agent, &url, file.bytes).map_err(|e| format!("{}: {url}: {e}", file.path))?;
    let written = scream_data::install(dir, file, &bytes).map_err(|e| e.to_string())?;
    Ok(("fetched, SHA-256 verified", written))
}

/// A whole download may take this long: the largest file is about 1.2 MB.
const FETCH_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether `target` already holds the pinned bytes.
fn intact(target: &Path, file: &DataFile) -> bool {
    std::fs::read(target).is_ok_and(|b| scream_data::sha256_hex(&b) == file.sha256)
}

/// The body at `url`, refused when it is larger than the pinned size (a server that
/// sends more than the file can hold nothing we want).
fn download(agent: &ureq::Agent, url: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
    let response = agent.get(url).call().map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "the server sent more than the file's {max_bytes} bytes; nothing was written"
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves `body` at every path for `requests` requests, on a free loopback port.
    fn serve(body: &'static [u8], requests: usize) -> String {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let url = format!("http://{}", server.server_addr().to_ip().unwrap());
        std::thread::spawn(move || {
            for request in server.incoming_requests().take(requests) {
                let _ = request.respond(tiny_http::Response::from_data(body));
            }
        });
        url
    }

    /// A catalogue entry whose pinned digest and size are those of `body`.
    fn pinned(body: &'static [u8]) -> DataFile {
        DataFile {
            path: "links/hello.txt",
            url: "",
            // Leaked: a catalogue entry holds `'static` text; a few bytes per test.
            sha256: Box::leak(scream_data::sha256_hex(body).into_boxed_str()),
            bytes: body.len() as u64,
        }
    }

    #[test]
    fn fetches_from_a_mirror_verifies_and_then_keeps_the_intact_copy() {
        let dir = tempfile::tempdir().unwrap();
        let file = pinned(b"hello\n");
        let url = serve(b"hello\n", 1);
        let (verb, path) = fetch_one(&agent(), dir.path(), &file, Some(&url), false).unwrap();
        assert!(verb.starts_with("fetched"), "{verb}");
        assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
        // The server has answered its one request: a second fetch must not ask again.
        let (verb, _) = fetch_one(&agent(), dir.path(), &file, Some(&url), false).unwrap();
        assert_eq!(verb, "present");
    }

    #[test]
    fn a_body_with_another_digest_or_too_long_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = pinned(b"hello\n");
        for (served, says) in [
            (&b"jello\n"[..], "SHA-256"),
            (&b"hello\nhello\n"[..], "more than the file's 6 bytes"),
        ] {
            let e =
                fetch_one(&agent(), dir.path(), &file, Some(&serve(served, 1)), false).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
        assert!(!dir.path().join("links").exists());
    }

    #[test]
    fn shipped_data_and_unknown_names_are_refused_with_what_to_do() {
        assert!(selection("video").unwrap_err().contains("git checkout"));
        let e = selection("nope").unwrap_err();
        assert!(e.contains("lumos5g") && e.contains("mahimahi"), "{e}");
        let all = selection("all").unwrap();
        assert!(all.iter().all(|(d, _)| !d.shipped));
        let one = selection("data:links/mahimahi-Verizon-LTE-short.up").unwrap();
        assert_eq!(one.len(), 1);
    }
}

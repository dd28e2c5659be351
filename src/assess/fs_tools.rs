//! assess/fs_tools.rs: the read-only tools the risk-assessment agent may call — `read_file`,
//! `list_dir`, `glob`, `grep` — defined with the crate's `#[tool]` registry and confined to the
//! working directory and the allowed paths. They never write, never follow a symlink out of
//! those roots, never open anything but regular files and directories, and read bounded amounts.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use regex::RegexBuilder;

use crate::tool::{Tool, ToolCallContext, tool};

/// The most bytes `read_file` returns.
const MAX_READ: usize = 32 * 1024;
/// The most entries `list_dir` returns.
const MAX_LIST: usize = 300;
/// The most paths `glob` returns, and the most lines `grep` returns.
const MAX_HITS: usize = 100;
/// The most directory entries one `glob` or `grep` walks.
const MAX_WALK: usize = 10_000;
/// How deep `glob` and `grep` descend.
const MAX_DEPTH: usize = 16;
/// Files larger than this are skipped by `grep`.
const MAX_GREP_FILE: u64 = 1024 * 1024;
/// The most bytes one `grep` reads in all.
const MAX_GREP_TOTAL: u64 = 8 * 1024 * 1024;
/// The longest line `grep` quotes, in bytes.
const MAX_LINE: usize = 200;

/// Where the assessment tools may look: the working directory and the allowed paths, each
/// canonicalised once (symlinks resolved), so a path is inside exactly when its canonical form
/// starts with one of them.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// The canonical working directory; relative paths are resolved against it.
    cwd: Option<PathBuf>,
    /// Every canonical root, the working directory first.
    roots: Vec<PathBuf>,
}

impl Confinement {
    /// The roots for a request. Roots that do not exist or cannot be resolved are left out:
    /// with none at all, every tool call is refused.
    pub fn new(cwd: Option<&Path>, allowed_paths: &[&Path]) -> Confinement {
        let cwd = cwd.and_then(|cwd| fs::canonicalize(cwd).ok());
        let mut roots: Vec<PathBuf> = cwd.iter().cloned().collect();
        roots.extend(
            allowed_paths
                .iter()
                .filter_map(|path| fs::canonicalize(path).ok()),
        );
        Confinement { cwd, roots }
    }

    /// The canonical roots, the working directory first.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Resolves `path` (relative to the working directory) to an existing canonical path inside
    /// a root, or says why not.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            match &self.cwd {
                Some(cwd) => cwd.join(given),
                None => return Err(format!("no working directory to resolve {path:?} against")),
            }
        };
        let canonical =
            fs::canonicalize(&joined).map_err(|error| format!("cannot open {path:?}: {error}"))?;
        if self.contains(&canonical) {
            Ok(canonical)
        } else {
            Err(format!(
                "{path:?} is outside the working directory and the allowed paths"
            ))
        }
    }

    /// Like [`Confinement::resolve`], and also refuses files that usually hold secrets
    /// (see [`looks_secret`]): what a tool reads goes to the model, often a remote service.
    pub fn resolve_readable(&self, path: &str) -> Result<PathBuf, String> {
        let resolved = self.resolve(path)?;
        if looks_secret(&resolved) {
            return Err(format!(
                "{path:?} may hold secrets; it is not shown to the assessor"
            ));
        }
        Ok(resolved)
    }

    fn contains(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|root| canonical.starts_with(root))
    }
}

/// Whether a path names a file that usually holds secrets: `.env` files, private keys,
/// credential stores, and anything under `.ssh`, `.gnupg`, `.aws` or `.docker`. Defence in
/// depth only — the roots are the real bound — so the list is short and errs on refusing.
pub fn looks_secret(path: &Path) -> bool {
    const DIRS: &[&str] = &[".ssh", ".gnupg", ".aws", ".docker", ".kube"];
    const NAMES: &[&str] = &[
        ".env",
        ".envrc",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".pgpass",
        ".git-credentials",
        "credentials",
        "credentials.json",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
    ];
    const EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "jks", "keystore"];
    let in_secret_dir = path.components().any(|part| {
        DIRS.iter()
            .any(|dir| part.as_os_str() == std::ffi::OsStr::new(dir))
    });
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    in_secret_dir
        || NAMES.contains(&name.as_str())
        || name.starts_with(".env.")
        || EXTENSIONS.contains(&extension.as_str())
}

/// The four read-only tools, for a [`ToolBox<Confinement>`](crate::tool::ToolBox).
pub fn assessor_tools() -> Vec<Tool<Confinement>> {
    vec![read_file_tool(), list_dir_tool(), glob_tool(), grep_tool()]
}

/// Reads a text file inside the working directory or the allowed paths (at most 32 KiB per call;
/// use offset to read further).
#[tool]
fn read_file(
    /// The file, relative to the working directory or absolute.
    path: String,
    /// The byte to start at.
    #[tool(default = 0)]
    offset: u64,
    ctx: &ToolCallContext<Confinement>,
) -> Result<String, String> {
    let resolved = ctx.value().resolve(&path)?;
    let mut file =
        open_regular(&resolved).map_err(|error| format!("cannot read {path:?}: {error}"))?;
    let size = file.metadata().map(|meta| meta.len()).unwrap_or(0);
    let start = offset.min(size);
    file.seek(SeekFrom::Start(start))
        .map_err(|error| format!("cannot read {path:?}: {error}"))?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_READ).unwrap_or(u64::MAX);
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read {path:?}: {error}"))?;
    let end = start + u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if end < size {
        text.push_str(&format!(
            "\n[… {} more bytes; read on with offset {end}]",
            size - end
        ));
    }
    Ok(text)
}

/// Lists a directory inside the working directory or the allowed paths; directories end with `/`.
#[tool]
fn list_dir(
    /// The directory, relative to the working directory or absolute; `.` unless given.
    #[tool(default = ".")]
    path: String,
    ctx: &ToolCallContext<Confinement>,
) -> Result<String, String> {
    let resolved = ctx.value().resolve(&path)?;
    let entries =
        fs::read_dir(&resolved).map_err(|error| format!("cannot list {path:?}: {error}"))?;
    let mut names: Vec<String> = Vec::new();
    for entry in entries.flatten().take(MAX_WALK) {
        let mut name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            name.push('/');
        }
        names.push(name);
    }
    names.sort();
    let total = names.len();
    names.truncate(MAX_LIST);
    let mut listing = names.join("\n");
    if total > MAX_LIST {
        listing.push_str(&format!("\n[… {} more entries]", total - MAX_LIST));
    }
    Ok(listing)
}

/// Finds files whose path (relative to the search directory) matches a glob: `*` and `?` within
/// a name, `**` across directories, `[abc]` classes.
#[tool]
fn glob(
    /// The pattern, e.g. `src/**/*.rs`.
    pattern: String,
    /// The directory to search; `.` unless given.
    #[tool(default = ".")]
    path: String,
    ctx: &ToolCallContext<Confinement>,
) -> Result<String, String> {
    let base = ctx.value().resolve(&path)?;
    let matcher = glob_matcher(&pattern)?;
    let mut hits = Vec::new();
    let mut truncated = false;
    walk(&base, &mut |relative, _| {
        if matcher.is_match(relative) {
            if hits.len() == MAX_HITS {
                truncated = true;
                return Walk::Stop;
            }
            hits.push(relative.to_owned());
        }
        Walk::Continue
    });
    hits.sort();
    let mut listing = hits.join("\n");
    if truncated {
        listing.push_str(&format!("\n[stopped after {MAX_HITS} paths]"));
    }
    Ok(listing)
}

/// Searches the text files under a directory (or one file) for lines matching a regular
/// expression; answers `path:line: text`.
#[tool]
fn grep(
    /// The regular expression (Rust `regex` syntax).
    pattern: String,
    /// The directory or file to search; `.` unless given.
    #[tool(default = ".")]
    path: String,
    /// Only search files whose relative path matches this glob, e.g. `**/*.toml`.
    include: Option<String>,
    ctx: &ToolCallContext<Confinement>,
) -> Result<String, String> {
    let base = ctx.value().resolve(&path)?;
    let regex = RegexBuilder::new(&pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|error| format!("invalid pattern {pattern:?}: {error}"))?;
    let include = include.as_deref().map(glob_matcher).transpose()?;
    let mut hits = Vec::new();
    let mut budget = MAX_GREP_TOTAL;
    let mut truncated = false;
    let mut search = |relative: &str, file: &Path| -> Walk {
        // Secret-looking files are skipped, also when named directly.
        if include
            .as_ref()
            .is_some_and(|glob| !glob.is_match(relative))
            || looks_secret(file)
        {
            return Walk::Continue;
        }
        let Ok(mut handle) = open_regular(file) else {
            return Walk::Continue;
        };
        let size = handle.metadata().map(|meta| meta.len()).unwrap_or(u64::MAX);
        if size > MAX_GREP_FILE || size > budget {
            return Walk::Continue;
        }
        budget -= size;
        let mut bytes = Vec::new();
        if (&mut handle).take(size).read_to_end(&mut bytes).is_err() || bytes.contains(&0) {
            return Walk::Continue; // unreadable or binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for (number, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if hits.len() == MAX_HITS {
                    truncated = true;
                    return Walk::Stop;
                }
                let line = crate::assess::command::truncate(line.to_owned(), MAX_LINE);
                hits.push(format!("{relative}:{}: {line}", number + 1));
            }
        }
        Walk::Continue
    };
    if base.is_file() {
        let name = base
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        search(&name, &base);
    } else {
        walk(&base, &mut search);
    }
    let mut listing = hits.join("\n");
    if truncated {
        listing.push_str(&format!("\n[stopped after {MAX_HITS} lines]"));
    }
    if listing.is_empty() {
        listing.push_str("no match");
    }
    Ok(listing)
}

/// Whether a walk goes on.
enum Walk {
    Continue,
    Stop,
}

/// Visits the regular files under `base` (relative path with `/`, full path), depth first,
/// without following symlinks, at most [`MAX_WALK`] entries and [`MAX_DEPTH`] levels.
fn walk(base: &Path, visit: &mut dyn FnMut(&str, &Path) -> Walk) {
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(base.to_path_buf(), String::new(), 0)];
    let mut seen = 0;
    while let Some((dir, prefix, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            seen += 1;
            if seen > MAX_WALK {
                return;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            // `file_type` does not follow symlinks: a link is neither a file nor a directory here.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth + 1 < MAX_DEPTH {
                    stack.push((entry.path(), relative, depth + 1));
                }
            } else if kind.is_file()
                && let Walk::Stop = visit(&relative, &entry.path())
            {
                return;
            }
        }
    }
}

/// Opens a regular file for reading without blocking on a FIFO planted in its place.
fn open_regular(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// A shell glob over a relative path, `/` matched only by `/` and `**`: globset's reading.
fn glob_matcher(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| format!("invalid glob {pattern:?}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_a_shell() {
        let cases = [
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false),
            ("**/*.rs", "src/main.rs", true),
            ("**/*.rs", "main.rs", true),
            ("src/**", "src/a/b", true),
            ("?.txt", "a.txt", true),
            ("?.txt", "ab.txt", false),
            ("[ab].txt", "b.txt", true),
            ("[!ab].txt", "b.txt", false),
            ("a+b.txt", "a+b.txt", true),
            ("a+b.txt", "aab.txt", false),
            ("\\[.txt", "[.txt", true),
        ];
        for (pattern, path, expected) in cases {
            let glob = glob_matcher(pattern).unwrap();
            assert_eq!(glob.is_match(path), expected, "{pattern} vs {path}");
        }
        // An unclosed class is an error the model reads, not a literal `[`.
        assert!(glob_matcher("[.txt").unwrap_err().contains("invalid glob"));
    }

    #[test]
    fn secret_looking_paths() {
        let cases = [
            ("/w/.env", true),
            ("/w/.env.production", true),
            ("/w/config/.ENV", true),
            ("/w/deploy/server.pem", true),
            ("/w/tls.key", true),
            ("/home/u/.ssh/config", true),
            ("/home/u/.aws/config", true),
            ("/w/.git-credentials", true),
            ("/w/id_ed25519", true),
            ("/w/environment.rs", false),
            ("/w/src/keys.rs", false),
            ("/w/Makefile", false),
            ("/w/.envrc", true),
            ("/w/.envrc.md", false),
            ("/w/ssh/config", false),
        ];
        for (path, expected) in cases {
            assert_eq!(looks_secret(Path::new(path)), expected, "{path}");
        }
    }
}

//! repo: what a git repository makes git run, read from its files without running git.
//!
//! `git status` looks harmless, but a repository's own `.git/config` can name programs git runs
//! for it: `core.fsmonitor` on every status, `diff.<driver>.textconv` on every diff, a pager,
//! a filter. A repository that arrived as a tarball, or that a previous command wrote, is not
//! the user's. This module finds the repository a directory belongs to the way git does
//! (`.git` directories, `.git` files of worktrees and submodules, bare repositories), reads
//! every config file git would read for it — `config`, `config.worktree`, `include.path` and
//! `includeIf.*.path` targets, whatever their condition — and reports each key from the
//! allowlist's `[git] program_keys` that is set, plus active hooks that read-only commands can
//! trigger. It then does the same for every populated submodule the index lists, because
//! `git status` and `git diff` run git inside them. Files it cannot read or parse are reported
//! too: fail closed.
//!
//! This is the only module that touches the file system, and only when the caller passes a
//! [`Workdir`]; [`crate::Analyzer::analyze`] stays pure.

mod config;
mod index;
mod secrets;
mod walk;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use crate::budget::Budget;

pub(crate) use self::config::Variable;
pub(crate) use self::secrets::{config_file_clean, names_a_branch, remote_urls_clean, toplevel};
pub(crate) use self::walk::{Links, WalkRules, Walked, walk};
use crate::allowlist::KeyPattern;

/// Where a command will run: the directory, and what of the caller's environment decides where
/// `cd` goes. Pass it to [`crate::Analyzer::analyze_in`] to have git commands checked against
/// the repository they would run in.
///
/// ```
/// use cmdguard::Workdir;
/// let dir = Workdir::new("/srv/project").with_home("/home/me");
/// assert_eq!(dir.cwd(), std::path::Path::new("/srv/project"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workdir {
    cwd: PathBuf,
    home: Option<PathBuf>,
    cdpath: Option<String>,
    git_env: Vec<String>,
}

/// Environment variables that make git use another repository or config than the one found
/// on disk; when the command inherits one, cmdguard cannot tell what git will read.
pub const GIT_ENV_REDIRECTS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_OBJECT_DIRECTORY",
];

impl Workdir {
    /// A working directory, with `$HOME` and `$CDPATH` unknown (so `cd ~` is a directory known
    /// only at run time).
    pub fn new(cwd: impl Into<PathBuf>) -> Workdir {
        Workdir {
            cwd: cwd.into(),
            home: None,
            cdpath: None,
            git_env: Vec::new(),
        }
    }

    /// The process's current directory, `$HOME`, `$CDPATH` and which of
    /// [`GIT_ENV_REDIRECTS`] are set: what the CLI uses, since the command inherits them.
    pub fn from_env() -> std::io::Result<Workdir> {
        // bash's `cd ..` is logical: start from `$PWD` when it names the current directory.
        let physical_cwd = std::env::current_dir()?;
        let cwd = match std::env::var_os("PWD").map(PathBuf::from) {
            Some(pwd)
                if pwd.is_absolute()
                    && fs::canonicalize(&pwd).ok() == fs::canonicalize(&physical_cwd).ok() =>
            {
                pwd
            }
            _ => physical_cwd,
        };
        let mut dir = Workdir::new(cwd);
        dir.home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        dir.cdpath = std::env::var("CDPATH").ok().filter(|c| !c.is_empty());
        dir.git_env = GIT_ENV_REDIRECTS
            .iter()
            .filter(|v| std::env::var_os(v).is_some())
            .map(|v| v.to_string())
            .collect();
        Ok(dir)
    }

    /// Records that the command inherits `name` (one of [`GIT_ENV_REDIRECTS`], such as
    /// `GIT_DIR`): git commands then ask, since git may read another repository.
    ///
    /// ```
    /// use cmdguard::{Analyzer, Verdict, Workdir};
    /// let dir = Workdir::new("/").with_git_env("GIT_DIR");
    /// assert_eq!(Analyzer::default().analyze_in("git log", &dir).verdict, Verdict::Ask);
    /// ```
    pub fn with_git_env(mut self, name: impl Into<String>) -> Workdir {
        self.git_env.push(name.into());
        self
    }

    /// The inherited variables that redirect git, as recorded.
    pub fn git_env(&self) -> &[String] {
        &self.git_env
    }

    /// The same environment, in another directory.
    pub fn in_dir(mut self, cwd: impl Into<PathBuf>) -> Workdir {
        self.cwd = cwd.into();
        self
    }

    /// Sets the home directory `cd ~` and `cd` go to.
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Workdir {
        self.home = Some(home.into());
        self
    }

    /// Sets the `CDPATH` bash will search for relative `cd` targets.
    pub fn with_cdpath(mut self, cdpath: impl Into<String>) -> Workdir {
        self.cdpath = Some(cdpath.into()).filter(|c| !c.is_empty());
        self
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The home directory, when known.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// `CDPATH`, when set.
    pub fn cdpath(&self) -> Option<&str> {
        self.cdpath.as_deref()
    }
}

/// Why git in a repository may run something cmdguard has not vetted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hazard {
    /// The file that says so.
    pub file: PathBuf,
    /// Its line, 0 when not about one line.
    pub line: usize,
    /// What it is, as a sentence for a person.
    pub what: String,
}

/// Settings for a scan, from the allowlist.
pub(crate) struct ScanRules<'a> {
    pub keys: &'a [KeyPattern],
    /// Keys known not to make git run a program or verify a signature: every other key set in
    /// the repository's config is a hazard.
    pub inert: &'a [KeyPattern],
    /// Values that switch a key off (`core.fsmonitor = false`), compared case-insensitively.
    pub safe_values: &'a [(KeyPattern, Vec<String>)],
    pub hooks: &'a [String],
    pub home: Option<&'a Path>,
    /// What the analysis may still read.
    pub budget: &'a Budget,
    /// What the analysis has read already.
    pub cache: &'a Cache,
}

/// What one analysis has read from the file system, so that each file is read once however
/// many directories, submodules and `cd`s lead to it. Files are keyed by identity (device,
/// inode), size and modification time, not by path.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    files: RefCell<HashMap<FileKey, Rc<Vec<u8>>>>,
    /// Each repository's scan, by its git directory and work tree.
    repos: RefCell<HashMap<RepoKey, Vec<Hazard>>>,
    /// What `lstat` said about a path whose directory part is physical already.
    kinds: RefCell<HashMap<PathBuf, Option<Kind>>>,
    /// The repository each directory belongs to (see [`discover`]).
    discovered: RefCell<HashMap<PathBuf, Option<Result<Found, Hazard>>>>,
    /// Paths resolved by [`Cache::physical`].
    resolved: RefCell<HashMap<PathBuf, Option<PathBuf>>>,
}

/// A file system entry as `lstat` sees it.
#[derive(Debug, Clone)]
enum Kind {
    Dir,
    Other,
    Symlink(PathBuf),
}

/// Most symlinks followed resolving one path, as the kernel's limit (`ELOOP`).
const MAX_SYMLINKS: usize = 40;

/// A repository: its git directory and work tree.
type RepoKey = (PathBuf, Option<PathBuf>);

/// Which file a read was: the same file reached by two paths (or twice) is read once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FileKey {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i128,
    /// Where no inode number is at hand, the path stands for the file.
    path: Option<PathBuf>,
}

impl FileKey {
    #[cfg(unix)]
    fn of(_path: &Path, meta: &fs::Metadata) -> FileKey {
        use std::os::unix::fs::MetadataExt;
        FileKey {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            path: None,
        }
    }

    #[cfg(not(unix))]
    fn of(path: &Path, meta: &fs::Metadata) -> FileKey {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        FileKey {
            dev: 0,
            ino: 0,
            len: meta.len(),
            mtime,
            path: Some(path.to_path_buf()),
        }
    }
}

impl Cache {
    fn kind(&self, path: &Path) -> Option<Kind> {
        if let Some(k) = self.kinds.borrow().get(path) {
            return k.clone();
        }
        let k = fs::symlink_metadata(path).ok().and_then(|m| {
            if m.file_type().is_symlink() {
                fs::read_link(path).ok().map(Kind::Symlink)
            } else if m.is_dir() {
                Some(Kind::Dir)
            } else {
                Some(Kind::Other)
            }
        });
        self.kinds
            .borrow_mut()
            .insert(path.to_path_buf(), k.clone());
        k
    }

    /// `fs::canonicalize(path)`: symlinks and `..` resolved as the kernel resolves them;
    /// `None` when it does not resolve. Worked out one component at a time with each `lstat`
    /// remembered, so the 32 ancestors of a directory 200 levels deep cost 200 system calls,
    /// not 32 × 200 (a `cd ..` loop). A relative path goes to `fs::canonicalize`.
    pub(crate) fn physical(&self, path: &Path) -> Option<PathBuf> {
        if let Some(p) = self.resolved.borrow().get(path) {
            return p.clone();
        }
        let p = self.resolve(path);
        self.resolved
            .borrow_mut()
            .insert(path.to_path_buf(), p.clone());
        p
    }

    fn resolve(&self, path: &Path) -> Option<PathBuf> {
        if !path.is_absolute() {
            return fs::canonicalize(path).ok();
        }
        let mut todo: Vec<std::ffi::OsString> = Vec::new();
        let push_rev = |todo: &mut Vec<std::ffi::OsString>, p: &Path| {
            for c in p.components().rev() {
                todo.push(c.as_os_str().to_os_string());
            }
        };
        push_rev(&mut todo, path);
        let mut cur = PathBuf::from("/");
        let mut hops = 0;
        // `todo` holds the components still to resolve, the next one last.
        while let Some(c) = todo.pop() {
            match Path::new(&c).components().next() {
                Some(Component::RootDir | Component::Prefix(_)) => cur = PathBuf::from(&c),
                Some(Component::CurDir) | None => {}
                Some(Component::ParentDir) => {
                    // `x/..` needs `x` to be a directory, as the kernel does.
                    if cur.parent().is_some() && !matches!(self.kind(&cur), Some(Kind::Dir)) {
                        return None;
                    }
                    cur.pop();
                }
                Some(Component::Normal(name)) => {
                    let next = cur.join(name);
                    match self.kind(&next)? {
                        Kind::Symlink(target) => {
                            hops += 1;
                            if hops > MAX_SYMLINKS {
                                return None;
                            }
                            push_rev(&mut todo, &target);
                        }
                        // `lstat` of `file/name` fails: only a directory gets here as `cur`.
                        Kind::Dir | Kind::Other => cur = next,
                    }
                }
            }
        }
        Some(cur)
    }

    /// Whether `path` is a directory (following symlinks).
    pub(crate) fn is_dir(&self, path: &Path) -> bool {
        self.physical(path)
            .is_some_and(|p| p.parent().is_none() || matches!(self.kind(&p), Some(Kind::Dir)))
    }
}

impl ScanRules<'_> {
    /// A whole regular file of at most `max` bytes, read once per analysis and counted against
    /// the budget (see [`open_regular`]). A file over what is left of the budget is not read.
    fn read(&self, path: &Path, max: u64) -> std::io::Result<Option<Rc<Vec<u8>>>> {
        use std::io::Read;
        let Some((file, len)) = open_regular(path)? else {
            return Ok(None);
        };
        let key = FileKey::of(path, &file.metadata()?);
        if len > max {
            return Err(std::io::Error::other(format!("over {max} bytes")));
        }
        if let Some(data) = self.cache.files.borrow().get(&key) {
            return Ok(Some(Rc::clone(data)));
        }
        if len > self.budget.repo_bytes_left() {
            self.budget.take_repo_bytes(len);
            return Err(std::io::Error::other(format!(
                "{len} bytes, over what is left of cmdguard's repository read limit"
            )));
        }
        let mut out = Vec::new();
        let cap = max.min(self.budget.repo_bytes_left());
        file.take(cap + 1).read_to_end(&mut out)?;
        if !self.budget.take_repo_bytes(out.len() as u64) || out.len() as u64 > cap {
            return Err(std::io::Error::other(
                "the file grew while read, over cmdguard's repository read limit",
            ));
        }
        let data = Rc::new(out);
        self.cache.files.borrow_mut().insert(key, Rc::clone(&data));
        Ok(Some(data))
    }
}

/// Largest config or `.git` file read; a bigger one is a hazard rather than a slow read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Largest `commondir` or `.git` file read. git reads any size, then strips trailing newlines;
/// a path is at most a few KiB, and these files are read during discovery, outside the
/// repository byte budget, once per directory and submodule: a larger one is a hazard (ask),
/// not 64 submodules × 16 MiB of reading.
const MAX_PATH_FILE_BYTES: u64 = 64 << 10;
/// Most hazards listed for one repository scan; past them a config file's other settings are
/// counted, not read.
const MAX_HAZARDS: usize = 64;
/// git's own limit on nested includes.
const MAX_INCLUDE_DEPTH: usize = 10;
/// Most submodules read for one repository, nested ones included.
const MAX_SUBMODULES: usize = 64;
/// Deepest nesting of submodules read.
const MAX_SUBMODULE_DEPTH: usize = 4;

/// What could make git run programs in the repository git would use in `dir`: `None` when
/// `dir` is in no repository, an empty list for a repository with nothing to report.
pub(crate) fn scan(dir: &Path, rules: &ScanRules<'_>) -> Option<Vec<Hazard>> {
    // git walks up from the physical directory (`getcwd`), not from a path through a symlink.
    let dir = rules
        .cache
        .physical(dir)
        .unwrap_or_else(|| dir.to_path_buf());
    let found = match discover(&dir, rules.cache)? {
        Ok(found) => found,
        Err(h) => return Some(vec![h]),
    };
    let key = (found.gitdir.clone(), found.worktree.clone());
    if let Some(h) = rules.cache.repos.borrow().get(&key) {
        return Some(h.clone());
    }
    let mut hazards = Vec::new();
    let mut budget = MAX_SUBMODULES;
    scan_found(&found, rules, 0, &mut budget, &mut hazards);
    rules.cache.repos.borrow_mut().insert(key, hazards.clone());
    Some(hazards)
}

/// A repository as discovery found it.
#[derive(Debug, Clone)]
struct Found {
    gitdir: PathBuf,
    /// The work tree: the directory holding `.git`; `None` for a bare repository.
    worktree: Option<PathBuf>,
}

/// Reads one repository's config and hooks, then those of its populated submodules, which
/// `git status`, `git diff` and `git grep --recurse-submodules` run git in (found as gitlinks
/// in the index, since `.gitmodules` need not list them).
fn scan_found(
    found: &Found,
    rules: &ScanRules<'_>,
    depth: usize,
    budget: &mut usize,
    hazards: &mut Vec<Hazard>,
) {
    let gitdir = &found.gitdir;
    let common = match common_dir(gitdir) {
        Ok(c) => c,
        Err(e) => {
            hazards.push(Hazard {
                file: gitdir.join("commondir"),
                line: 0,
                what: format!(
                    "a `commondir` file cmdguard cannot read ({e}), so git's config is unknown"
                ),
            });
            gitdir.clone()
        }
    };
    let mut reader = Reader {
        rules,
        hazards,
        seen: HashSet::new(),
    };
    reader.file(&common.join("config"), 0);
    reader.file(&gitdir.join("config.worktree"), 0);
    // Hooks in the default directory run unless `core.hooksPath` moves them, and that key is
    // a hazard of its own.
    hooks(&common.join("hooks"), rules.hooks, hazards);
    // Submodule repositories kept in `modules/`, populated or not: `git grep
    // --recurse-submodules REV` reads them even without a work tree.
    let mut modules = Vec::new();
    module_gitdirs(&common.join("modules"), 0, &mut modules);
    for gitdir in modules {
        if !within_budget(depth, budget, &gitdir, hazards) {
            return;
        }
        let found = Found {
            gitdir,
            worktree: None,
        };
        scan_found(&found, rules, depth + 1, budget, hazards);
    }
    let Some(worktree) = &found.worktree else {
        return;
    };
    let index_path = gitdir.join("index");
    if !rules.budget.ok() {
        return;
    }
    let links = match index::gitlinks(&index_path, rules) {
        Ok(links) => links,
        Err(why) => {
            return hazards.push(Hazard {
                file: index_path,
                line: 0,
                what: format!(
                    "an index cmdguard cannot read ({why}), so the submodules git visits are unknown"
                ),
            });
        }
    };
    for link in links {
        if !rules.budget.ok() {
            return;
        }
        let sub = worktree.join(&link);
        // git only goes into a populated submodule.
        let meta = match fs::metadata(sub.join(".git")) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                hazards.push(Hazard {
                    file: sub.join(".git"),
                    line: 0,
                    what: format!("a submodule cmdguard cannot look into ({e})"),
                });
                continue;
            }
        };
        if !within_budget(depth, budget, &sub, hazards) {
            return;
        }
        match dotgit(&sub, &meta) {
            Some(Ok(inner)) => scan_found(&inner, rules, depth + 1, budget, hazards),
            Some(Err(h)) => hazards.push(h),
            None => {}
        }
    }
}

/// Takes one submodule from the budget; `false` (with a hazard naming `at`) when it is spent
/// or the nesting is too deep.
fn within_budget(depth: usize, budget: &mut usize, at: &Path, hazards: &mut Vec<Hazard>) -> bool {
    if depth + 1 > MAX_SUBMODULE_DEPTH || *budget == 0 {
        hazards.push(Hazard {
            file: at.to_path_buf(),
            line: 0,
            what: format!(
                "more submodules than cmdguard reads (over {MAX_SUBMODULES}, or nested over {MAX_SUBMODULE_DEPTH} deep)"
            ),
        });
        return false;
    }
    *budget -= 1;
    true
}

/// The git directories under `modules/` (submodule names may hold `/`, so it is walked a few
/// levels down), at most one more than the submodule budget.
fn module_gitdirs(dir: &Path, level: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if out.len() > MAX_SUBMODULES {
            return;
        }
        let path = e.path();
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if is_gitdir(&path) {
            out.push(path);
        } else if level < 4 {
            module_gitdirs(&path, level + 1, out);
        }
    }
}

/// Where git runs hooks from for the repository holding `dir`, by the repository's own
/// config files (`config`, `config.worktree`; read bounded, as the scan reads them):
/// `Ok(None)` when `dir` is in no repository or the repository sets no `core.hooksPath` (its
/// hooks are then in the git directory), `Ok(Some((base, hooks)))` for the work tree (the
/// git directory of a bare repository) and the directory the key names (a relative value is
/// taken from the work tree, as git runs hooks there). Fail closed: `Err`,
/// with a reason for a person, when a config file cannot be read or parsed, holds a NUL, or
/// includes other files (which could set the key).
pub(crate) fn hooks_path(dir: &Path) -> Result<Option<(PathBuf, PathBuf)>, String> {
    let cache = Cache::default();
    let found = match discover(dir, &cache) {
        None => return Ok(None),
        Some(Ok(found)) => found,
        Some(Err(h)) => return Err(h.what),
    };
    let common = common_dir(&found.gitdir)
        .map_err(|e| format!("the repository's `commondir` cannot be read ({e})"))?;
    let mut set = None;
    for file in [common.join("config"), found.gitdir.join("config.worktree")] {
        let text = match read_regular(&file, MAX_CONFIG_BYTES) {
            Ok(None) => continue,
            Ok(Some(t)) => t,
            Err(e) => {
                return Err(format!(
                    "the repository's config file {} cannot be read ({e})",
                    file.display()
                ));
            }
        };
        if text.contains(&0) {
            return Err(format!("{} holds a NUL byte", file.display()));
        }
        let vars = config::parse(&text)
            .map_err(|e| format!("{} cannot be parsed: {}", file.display(), e.message))?;
        for v in vars {
            if v.name == "path" && (v.section == "include" || v.section == "includeif") {
                return Err(format!(
                    "{} includes other config files, which cmdguard does not follow here",
                    file.display()
                ));
            }
            if v.section == "core" && v.subsection.is_none() && v.name == "hookspath" {
                set = v.value;
            }
        }
    }
    let Some(value) = set else {
        return Ok(None);
    };
    let base = found.worktree.unwrap_or(found.gitdir);
    let path = match value.strip_prefix("~/") {
        Some(rest) => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest),
            None => return Err("core.hooksPath starts with `~/` and HOME is not set".to_owned()),
        },
        None => base.join(value),
    };
    Ok(Some((base, normalize(&path))))
}

/// The directory holding config, hooks, objects and refs: `commondir` of a linked worktree's
/// git directory (resolved by the kernel, `..` through symlinks included), else the git
/// directory itself.
fn common_dir(gitdir: &Path) -> std::io::Result<PathBuf> {
    Ok(
        match read_regular(&gitdir.join("commondir"), MAX_PATH_FILE_BYTES)? {
            Some(text) => physical(&gitdir.join(os_path(c_string(trim_newlines(&text))))),
            None => gitdir.to_path_buf(),
        },
    )
}

/// `text` without the CR and LF bytes git strips from the end of a path file.
fn trim_newlines(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|b| *b != b'\n' && *b != b'\r')
        .map_or(0, |i| i + 1);
    &text[..end]
}

/// `text` up to its first NUL, where git's C strings end.
fn c_string(text: &[u8]) -> &[u8] {
    text.iter()
        .position(|b| *b == 0)
        .map_or(text, |i| &text[..i])
}

#[cfg(unix)]
fn os_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn os_path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The git directory for `dir`, walking up as git's `setup_git_directory` does. `Err` for a
/// `.git` file git would stop at but cmdguard cannot follow.
/// Each directory is looked at once per analysis: the answer for a directory with no
/// repository of its own is its parent's, so the nested directories of a `cd` chain cost one
/// walk up, not one each.
fn discover(dir: &Path, cache: &Cache) -> Option<Result<Found, Hazard>> {
    let mut walked: Vec<&Path> = Vec::new();
    let mut answer = None;
    for d in dir.ancestors() {
        if let Some(known) = cache.discovered.borrow().get(d) {
            answer = known.clone();
            break;
        }
        walked.push(d);
        if let Ok(m) = fs::metadata(d.join(".git"))
            && let Some(found) = dotgit(d, &m)
        {
            answer = Some(found);
            break;
        }
        if is_gitdir(d) {
            // A bare repository, or a directory inside `.git` itself.
            answer = Some(Ok(Found {
                gitdir: d.to_path_buf(),
                worktree: None,
            }));
            break;
        }
    }
    let mut known = cache.discovered.borrow_mut();
    for d in walked {
        known.insert(d.to_path_buf(), answer.clone());
    }
    answer
}

/// The repository `d/.git` stands for, as git reads it: a directory that passes git's own
/// test, or a regular file `gitdir: PATH` (which git follows or dies on). Anything else —
/// an invalid directory, a FIFO — git walks past.
fn dotgit(d: &Path, meta: &fs::Metadata) -> Option<Result<Found, Hazard>> {
    let dotgit = d.join(".git");
    let worktree = Some(d.to_path_buf());
    if meta.is_dir() {
        return is_gitdir(&dotgit).then_some(Ok(Found {
            gitdir: dotgit,
            worktree,
        }));
    }
    if !meta.is_file() {
        return None;
    }
    let fail = |what: &str| {
        Some(Err(Hazard {
            file: dotgit.clone(),
            line: 1,
            what: format!("the repository's `.git` file {what}"),
        }))
    };
    let text = match read_regular(&dotgit, MAX_PATH_FILE_BYTES) {
        Ok(Some(t)) => t,
        _ => return fail("cannot be read"),
    };
    // git wants exactly `gitdir: `, strips trailing CR and LF only, and reads the rest as a C
    // string.
    let Some(target) = trim_newlines(&text).strip_prefix(b"gitdir: ") else {
        return fail("is not `gitdir: PATH`");
    };
    let target = os_path(c_string(target));
    let gitdir = physical(&d.join(&target));
    if !is_gitdir(&gitdir) {
        return fail(&format!(
            "points to `{}`, which is no git directory git would use",
            target.display()
        ));
    }
    Some(Ok(Found { gitdir, worktree }))
}

/// git's `is_git_directory`: a valid `HEAD`, and `objects` and `refs` in the common directory
/// that can be searched.
fn is_gitdir(d: &Path) -> bool {
    if !valid_head(&d.join("HEAD")) {
        return false;
    }
    // A `commondir` that cannot be read stops discovery here, where the scan reports it.
    let Ok(common) = common_dir(d) else {
        return true;
    };
    searchable(&common.join("objects")) && searchable(&common.join("refs"))
}

/// git's `validate_headref`: a symlink whose target starts with `refs/`; or a file whose first
/// 255 bytes are `ref:`, git's whitespace, `refs/…`, or start with an object id.
fn valid_head(head: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(head) else {
        return false;
    };
    if meta.file_type().is_symlink() {
        return fs::read_link(head).is_ok_and(|t| os_bytes(t.as_os_str()).starts_with(b"refs/"));
    }
    let Ok(Some(text)) = read_prefix(head, 255) else {
        return false;
    };
    let text = c_string(&text);
    if let Some(rest) = text.strip_prefix(b"ref:") {
        let start = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(rest.len());
        if rest[start..].starts_with(b"refs/") {
            return true;
        }
    }
    let hex = |n: usize| text.len() >= n && text[..n].iter().all(u8::is_ascii_hexdigit);
    hex(40) || hex(64)
}

#[cfg(unix)]
fn os_bytes(s: &std::ffi::OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes()
}

#[cfg(not(unix))]
fn os_bytes(s: &std::ffi::OsStr) -> &[u8] {
    s.as_encoded_bytes()
}

/// git's `access(path, X_OK)` on `objects` and `refs`: a directory this process can search
/// (resolving `p/.` needs exactly that, and root always can), or a file with an execute bit.
#[cfg(unix)]
fn searchable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p.join(".")).is_ok()
        || fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn searchable(p: &Path) -> bool {
    p.exists()
}

/// The files the index of the repository around `dir` tracks: absolute paths in its work
/// tree, each with whether it is a symlink. `Ok(None)` outside a work tree; an error when the
/// index cannot be read whole (the caller asks).
pub(crate) fn tracked(dir: &Path, cache: &Cache) -> Result<Option<Vec<(PathBuf, bool)>>, String> {
    let found = match discover(dir, cache) {
        None => return Ok(None),
        Some(Err(h)) => return Err(h.what),
        Some(Ok(f)) => f,
    };
    let Some(worktree) = found.worktree else {
        return Ok(None);
    };
    let index = found.gitdir.join("index");
    let data = match read_regular(&index, index::MAX_INDEX_BYTES) {
        Ok(Some(d)) => d,
        // A repository with nothing added yet.
        Ok(None) => return Ok(Some(Vec::new())),
        Err(e) => return Err(format!("{}: {e}", index.display())),
    };
    let mut out = Vec::new();
    for (mode, path) in index::entries(&data)? {
        let path = String::from_utf8(path).map_err(|_| "a non-UTF-8 path in the index")?;
        out.push((worktree.join(path), mode & 0o170000 == 0o120000));
    }
    Ok(Some(out))
}

/// Opens a regular file for reading without blocking (a FIFO planted in a repository would
/// hang a plain open or read): `None` when it does not exist, an error when it is no regular
/// file.
pub(crate) fn open_regular(path: &Path) -> std::io::Result<Option<(fs::File, u64)>> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(Some((file, meta.len())))
}

/// A whole regular file of at most `max` bytes (see [`open_regular`]).
pub(crate) fn read_regular(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let Some((file, len)) = open_regular(path)? else {
        return Ok(None);
    };
    if len > max {
        return Err(std::io::Error::other(format!("over {max} bytes")));
    }
    let mut out = Vec::new();
    file.take(max + 1).read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(std::io::Error::other(format!("over {max} bytes")));
    }
    Ok(Some(out))
}

/// The first `n` bytes of a regular file, however long it is.
fn read_prefix(path: &Path, n: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let Some((file, _)) = open_regular(path)? else {
        return Ok(None);
    };
    let mut out = Vec::new();
    file.take(n).read_to_end(&mut out)?;
    Ok(Some(out))
}

/// `path` with symlinks and `..` resolved the way the kernel resolves them when git opens it;
/// the path as given when it does not exist.
fn physical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

struct Reader<'a, 'r> {
    rules: &'a ScanRules<'r>,
    hazards: &'a mut Vec<Hazard>,
    seen: HashSet<PathBuf>,
}

impl Reader<'_, '_> {
    fn hazard(&mut self, file: &Path, line: usize, what: String) {
        self.hazards.push(Hazard {
            file: file.to_path_buf(),
            line,
            what,
        });
    }

    fn file(&mut self, path: &Path, depth: usize) {
        // Read each file once (include cycles end), but resolve relative includes from the
        // path as opened, as git does, not from where a symlink leads.
        let real = physical(path);
        if !self.seen.insert(real.clone()) {
            return;
        }
        if !self.rules.budget.ok() {
            return;
        }
        let text = match self.rules.read(path, MAX_CONFIG_BYTES) {
            // git skips config and include files that do not exist.
            Ok(None) => return,
            Ok(Some(t)) => t,
            Err(e) => {
                return self.hazard(
                    &real,
                    0,
                    format!("the repository's config file cannot be read ({e})"),
                );
            }
        };
        if let Some(at) = text.iter().position(|b| *b == 0) {
            // git cuts names at a NUL (`[core "fsmonitor\0x"]` is core.fsmonitor to it).
            let line = 1 + text[..at].iter().filter(|b| **b == b'\n').count();
            return self.hazard(
                &real,
                line,
                "the repository's config file holds a NUL byte, which git and cmdguard read differently".into(),
            );
        }
        let vars = match config::parse(&text) {
            Ok(v) => v,
            Err(e) => {
                return self.hazard(
                    &real,
                    e.line,
                    format!(
                        "the repository's config file cannot be parsed: {}",
                        e.message
                    ),
                );
            }
        };
        let mut unlisted = 0usize;
        for v in &vars {
            if self.hazards.len() >= MAX_HAZARDS {
                // A config of thousands of program keys asks after the first few; listing
                // each would cost time and memory for nothing.
                unlisted += 1;
                continue;
            }
            let include = v.name == "path"
                && (v.section == "include" || (v.section == "includeif" && v.subsection.is_some()));
            if include {
                self.include(path, &real, v, depth);
                continue;
            }
            if v.section == "core" && v.name == "worktree" {
                self.hazard(
                    &real,
                    v.line,
                    "the repository's config sets `core.worktree`, which moves the work tree (and its submodules) where cmdguard does not look".into(),
                );
                continue;
            }
            let named = self
                .rules
                .keys
                .iter()
                .any(|k| k.matches(&v.section, v.subsection.is_some(), &v.name));
            if !named
                && !self
                    .rules
                    .inert
                    .iter()
                    .any(|k| k.matches(&v.section, v.subsection.is_some(), &v.name))
            {
                self.hazard(
                    &real,
                    v.line,
                    format!(
                        "the repository's config sets `{}`, which is not in `[git] inert_keys`: git may run a program or verify a signature for it",
                        v.key()
                    ),
                );
                continue;
            }
            if named && !self.switched_off(v) {
                let shown = v
                    .value
                    .as_deref()
                    .map(|s| format!(" = {s:?}"))
                    .unwrap_or_default();
                self.hazard(
                    &real,
                    v.line,
                    format!(
                        "the repository's config sets `{}{shown}`, which can make git run a program",
                        v.key()
                    ),
                );
            }
        }
        if unlisted > 0 {
            self.hazard(
                &real,
                0,
                format!(
                    "the repository's config has {unlisted} more settings cmdguard did not look at, past the first {MAX_HAZARDS} findings"
                ),
            );
        }
    }

    /// True when the value is one of `[git] safe_values` for the key.
    fn switched_off(&self, v: &Variable) -> bool {
        let Some(value) = v.value.as_deref() else {
            return false;
        };
        self.rules.safe_values.iter().any(|(k, vals)| {
            k.matches(&v.section, v.subsection.is_some(), &v.name)
                && vals.iter().any(|s| s.eq_ignore_ascii_case(value))
        })
    }

    /// `include.path` / `includeIf.<condition>.path`: followed whatever the condition, since
    /// a condition is one more thing to get wrong.
    /// `from` is the including file as git opened it (relative paths start from its
    /// directory); `shown` is where it really is, for messages.
    fn include(&mut self, from: &Path, shown: &Path, v: &Variable, depth: usize) {
        let Some(target) = v.value.as_deref() else {
            return self.hazard(
                shown,
                v.line,
                format!("the repository's config has `{}` with no value", v.key()),
            );
        };
        if depth + 1 > MAX_INCLUDE_DEPTH {
            return self.hazard(
                shown,
                v.line,
                format!("the repository's config nests includes deeper than {MAX_INCLUDE_DEPTH}"),
            );
        }
        let resolved = if let Some(rest) = target.strip_prefix("~/") {
            match self.rules.home {
                Some(home) => home.join(rest),
                None => {
                    return self.hazard(
                        shown,
                        v.line,
                        format!(
                            "the repository's config includes `{target}` (`{}`), under an unknown home directory",
                            v.key()
                        ),
                    );
                }
            }
        } else if target.starts_with('~') || target.starts_with("%(") {
            // `~user/…` and `%(prefix)/…` are interpolated by git.
            return self.hazard(
                shown,
                v.line,
                format!(
                    "the repository's config includes `{target}` (`{}`), which cmdguard cannot locate",
                    v.key()
                ),
            );
        } else {
            from.parent().unwrap_or(Path::new("/")).join(target)
        };
        self.file(&resolved, depth + 1);
    }
}

/// Hooks in the default hooks directory that commands cmdguard allows can set off
/// (`post-index-change` runs when `git status` refreshes the index).
fn hooks(dir: &Path, names: &[String], hazards: &mut Vec<Hazard>) {
    for name in names {
        let path = dir.join(name);
        if is_executable(&path) {
            hazards.push(Hazard {
                what: format!(
                    "the repository has an executable `{name}` hook, which git runs on its own"
                ),
                file: path,
                line: 0,
            });
        }
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The directories `cd DIR` may end in, as bash's `cd` decides: unless `physical` (`cd -P`,
/// chdir(2)), the logical one (`..` resolved in the text) when every directory a `..` climbs
/// out of is one and the result is a directory, with the physical directory it names (where
/// the kernel resolves a later relative path: `cd ext && cat ../x` climbs from where the link
/// `ext` leads); otherwise the physical one, when it is a directory. None: `cd` fails and
/// stays where it was.
pub(crate) fn cd_targets(cache: &Cache, dir: &Path, physical: bool) -> Vec<PathBuf> {
    if !physical && let Some(logical) = logical(cache, dir) {
        let real = cache.physical(&logical).filter(|r| *r != logical);
        return std::iter::once(logical).chain(real).collect();
    }
    cache
        .physical(dir)
        .filter(|d| cache.is_dir(d))
        .into_iter()
        .collect()
}

/// `dir` with `.` and `..` applied to the text, as bash's logical `cd` canonicalises it (its
/// `sh_canonpath` with the `..` and existence checks): `None` when a `..` climbs out of
/// something that is no directory, or the result is none.
fn logical(cache: &Cache, dir: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in dir.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !cache.is_dir(&out) {
                    return None;
                }
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    (out.is_absolute() && cache.is_dir(&out)).then_some(out)
}

/// The names in directory `dir`, for expanding a glob as bash would (`check/sensitive.rs`):
/// `None` when it cannot be read or holds more than `max` entries, so the caller falls back to
/// reasoning about the pattern alone. Names that are not UTF-8 are skipped: no sensitive
/// pattern is written in other bytes.
pub(crate) fn list_names(dir: &Path, max: usize) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        if out.len() >= max {
            return None;
        }
        if let Ok(name) = entry.file_name().into_string() {
            out.push(name);
        }
    }
    Some(out)
}

/// `a/./b/../c` → `a/c`, as bash's logical `cd` and git's include paths read it.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached resolution agrees with the kernel's: symlinks (relative, absolute, chained,
    /// looping), `..` after a symlink, files in the middle of a path, missing entries.
    #[cfg(unix)]
    #[test]
    fn physical_paths_match_canonicalize() {
        use std::os::unix::fs::symlink;
        let root = std::env::temp_dir().join(format!("cmdguard-phys-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("a/b/c")).unwrap();
        fs::write(root.join("a/file"), "x").unwrap();
        symlink("b/c", root.join("a/rel")).unwrap();
        symlink(root.join("a/b"), root.join("abs")).unwrap();
        symlink("abs", root.join("chain")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        let cache = Cache::default();
        for rel in [
            "a",
            "a/b/c",
            "a/rel",
            "a/rel/..",
            "a/rel/../..",
            "abs/c/../..",
            "chain/c",
            "chain/..",
            "a/file",
            "a/file/..",
            "a/file/x",
            "a/missing",
            "a/missing/..",
            "loop1",
            "loop1/x",
            "a/./b/../b/c",
            "..",
            "a/b/c/../../../..",
        ] {
            let p = root.join(rel);
            assert_eq!(cache.physical(&p), fs::canonicalize(&p).ok(), "{rel}");
            assert_eq!(cache.is_dir(&p), p.is_dir(), "{rel}");
        }
        assert_eq!(cache.physical(Path::new("/")), Some(PathBuf::from("/")));
        let _ = fs::remove_dir_all(&root);
    }

    /// A file reached twice (or through a hard link) is read once and counted once; a file
    /// over what is left of the budget is not read, and spends the budget.
    #[cfg(unix)]
    #[test]
    fn files_are_read_once_within_the_budget() {
        let root = std::env::temp_dir().join(format!("cmdguard-reads-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a"), "12345678").unwrap();
        fs::hard_link(root.join("a"), root.join("b")).unwrap();
        fs::write(root.join("c"), "abcdefgh").unwrap();
        let limits = crate::limits::Limits {
            max_repo_bytes: 10,
            ..Default::default()
        };
        let budget = Budget::new(&limits);
        let cache = Cache::default();
        let rules = ScanRules {
            keys: &[],
            inert: &[],
            safe_values: &[],
            hooks: &[],
            home: None,
            budget: &budget,
            cache: &cache,
        };
        for name in ["a", "b", "a"] {
            let data = rules.read(&root.join(name), 100).unwrap().unwrap();
            assert_eq!(data.as_slice(), b"12345678");
        }
        assert_eq!(budget.repo_bytes_left(), 2);
        assert!(budget.spent().is_none());
        assert!(rules.read(&root.join("c"), 100).is_err());
        assert!(budget.spent().is_some());
        // A size over the file kind's own limit is refused before the cache is looked at.
        assert!(rules.read(&root.join("a"), 4).is_err());
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn normalizes_like_logical_cd() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), Path::new("/x"));
        assert_eq!(normalize(Path::new("../../a/../b")), Path::new("../../b"));
    }
}

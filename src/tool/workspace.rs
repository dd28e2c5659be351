//! tool/workspace.rs: where the built-in tools may touch the file system — the agent's working
//! directory and a temporary directory made on first use — and who is asked before a tool
//! overwrites, moves or deletes something outside the temporary directory. It resolves and
//! confines paths, and opens and creates files for the tools without following links; it never
//! decides what to write.
//!
//! Symbolic links are followed when a path is resolved, dangling ones too (a link whose target
//! does not exist yet resolves to that target, which must be inside). Between the check and the
//! use, another process could swap a directory for a link (check-then-use race). On Unix the
//! `fs` and `patch` tools therefore reach what they write, move, delete and read
//! (`write_file`, `mkdir`, `copy`, `move`, `delete`, `read_file`, `file_info`, `apply_patch`,
//! and `browser_screenshot`'s `save_to`, which writes as `write_file` does) through a held
//! directory ([`Workspace::dir`]): one `openat` per component below the working
//! or the temporary directory with `O_NOFOLLOW`, so a link swapped in makes the call fail
//! instead of leading outside. Limits: `list_dir`, `glob`, `grep`, `request_image` and the
//! `diagnostic` tools still read by the resolved path (a swap in that window can make them
//! read through a link, not write); the kind of a path (file, directory, link) is looked up by
//! path before the operation, so a swap can make an operation fail, not escape; on platforms
//! other than Unix every operation is by path. A file with more than one hard link is not
//! rewritten in place (its other names may be outside); it may be read.
//!
//! Three kinds of files get a question every time, with the default no, whatever was granted:
//! a new (or rewritten) file where git runs hooks or reads its configuration, or a new
//! executable ([`Workspace::runs_beyond_checks`]); a new file that is not known to be inert
//! ([`Workspace::why_ask_to_create`]); and a credential file a tool would read
//! ([`Workspace::permit_read`], by the analyser's `[sensitive]` table). Where hooks live is
//! read from the repository's own config (`core.hooksPath`); a hooks path set only in the
//! user's global git config is not read.
//!
//! # Which new files are free
//! Creating a file destroys nothing, so it needs no permission, except where a program the
//! user runs later would read the new file as its configuration or run it as code: a git
//! hook, a hook manager's or linter's configuration, a build script, a package manifest, an
//! agent's instructions. Those names are too many to list (each red team found more), so the
//! rule lists what is free instead, and everything else asks. A new file is free when all of
//! these hold (see `workspace/new_file.rs` for the tables and why each entry is there):
//! - no component below the workspace root starts with `.` (dotfiles and dot-directories are
//!   where programs keep configuration), and none is a directory code is loaded from on its
//!   own (`node_modules`, `__pycache__`, `site-packages`);
//! - it does not shadow a module of Python's standard library (`json.py`, `subprocess.py`,
//!   `json/__init__.py`), which a script or test run beside it would import instead;
//! - its name is no tool's configuration, build file or manifest (`conftest.py`, `setup.py`,
//!   `package.json`, `*.config.*`, `*rc`, `lefthook*`, …);
//! - its extension says source, text or data (`.rs`, `.py`, `.md`, `.json`, …): an unknown
//!   one (`main.tf`, `x.pth`, `fix.patch`) asks; a name without one asks when it follows a
//!   build tool's convention (`Makefile`, `Justfile`, any `*file`, `BUILD`), and is free
//!   otherwise (a fixture, a script without an execute bit);
//! - at the top of a project (the workspace root, a directory holding `.git`, or one holding a
//!   manifest such as `Cargo.toml` or `package.json`), where tools look up more names than any
//!   list holds (`gulpfile.js`, `gatsby-node.js`, `renovate.json`), only documents, text,
//!   images and tables are free (`README.md`, `LICENSE`, `notes.txt`, `data.csv`);
//! - it does not make, and is not inside, a git directory: git treats any directory holding
//!   `HEAD`, `objects/` and `refs/` as a (bare) repository and runs what its `config` names
//!   (`core.fsmonitor`) at the next `git status` there, so a new `HEAD` asks anywhere, a new
//!   `objects`, `refs`, `config`, `commondir` or `packed-refs` beside a `HEAD` asks, and so
//!   does anything new inside such a directory. This one holds for new directories too
//!   (`mkdir`); other new directories are free (an empty directory runs nothing, and what is
//!   put in it is asked about by this rule).
//!
//! An agent writing `src/foo.rs`, `tests/test_x.py`, `tests/data/case.json` or `docs/x.md` is
//! not asked; one writing `main.py` or `config.json` at the workspace root, `Cargo.toml`
//! anywhere or a `Makefile` is. A tree that `copy` or `move` puts at a new name is judged file
//! by file at its new place, with one question for all that ask. Limits: a free file still
//! runs when the project's own code, or the user, runs it, and some builds take every source
//! file of a directory without being told (a new `.go` file's `init` runs at the next `go
//! test` of its package; Maven, .NET and SwiftPM compile all sources below theirs). A new
//! Python module named after one a Python file beside it imports (`yaml.py` beside a
//! script's `import yaml`, or a package `requests/` beside `from requests import get`) asks:
//! Python would import it in place of the installed one. One no file beside it imports yet
//! (only a module elsewhere, or an import made at run time) is free, a limit.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::assess::Decision;
use crate::config::Config;
use crate::policy::{Choice, Confirm, Outcome, Policy, Prompt, TITLE_FILE_CHANGE};
use crate::tool::groups::cmd::Jobs;
use crate::{Analyzer, Verdict, Workdir};

mod new_file;

/// What a tool is about to create, for [`Workspace::why_ask_to_create`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewEntry {
    /// A regular file, executable or not.
    File {
        /// Whether it gets an execute bit.
        executable: bool,
    },
    /// A directory.
    Dir,
}

/// Which directories are the top of a project, as found so far (see
/// [`Workspace::why_ask_to_create_in`]).
#[derive(Debug, Default)]
pub(crate) struct Tops(std::collections::HashMap<PathBuf, Option<String>>);

/// Names that, beside a `HEAD`, make a directory a git directory (with `HEAD`: `objects` and
/// `refs`, or `commondir` in place of both) or give it what git reads there.
const GIT_DIR_PARTS: &[&str] = &[
    "objects",
    "refs",
    "commondir",
    "config",
    "config.worktree",
    "packed-refs",
    "hooks",
    "info",
    "worktrees",
];

/// The directories an agent's built-in tools may use: its working directory, and a temporary
/// directory created on first use and removed when the last handle is dropped.
///
/// A cheap handle: clones share the same temporary directory and the same write permission.
/// Give it to an agent with [`AgentHandle::with_workspace`](crate::tool::AgentHandle::with_workspace);
/// every path parameter of a built-in tool goes through [`Workspace::resolve`].
///
/// ```
/// use cmdguard::tool::Workspace;
///
/// let dir = std::env::temp_dir();
/// let ws = Workspace::new(&dir).unwrap();
/// assert!(ws.resolve("notes.txt").unwrap().starts_with(ws.workdir()));
/// assert!(ws.resolve("/").is_err());
/// ```
#[derive(Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

struct Inner {
    workdir: PathBuf,
    permission: Option<Arc<Mutex<Permission>>>,
    analyzer: Option<Arc<Analyzer>>,
    /// A whole configuration (allowlist layers and command rules), when the runtime gave one.
    config: Option<Arc<Config>>,
    /// The embedded default analyser, built on first use when none was given.
    default_analyzer: OnceLock<Analyzer>,
    temp: OnceLock<PathBuf>,
    /// The `cmd` group's background jobs, killed when the workspace goes away.
    jobs: Mutex<Jobs>,
    /// Files that a link with a credential file's name leads to, as the tools came across
    /// such links (resolved path to the `[sensitive]` pattern and the link): they are
    /// credential files under their own name too.
    behind_links: Mutex<HashMap<PathBuf, String>>,
    /// Files `write_file` created (none was there): a module they import is the agent's own
    /// code's, which runs only when that code runs ([`shadows_an_import`]).
    created: Mutex<std::collections::HashSet<PathBuf>>,
}

impl Inner {
    fn new(
        workdir: PathBuf,
        permission: Option<Arc<Mutex<Permission>>>,
        analyzer: Option<Arc<Analyzer>>,
        config: Option<Arc<Config>>,
    ) -> Inner {
        Inner {
            workdir,
            permission,
            analyzer,
            config,
            default_analyzer: OnceLock::new(),
            temp: OnceLock::new(),
            jobs: Mutex::new(Jobs::default()),
            behind_links: Mutex::new(HashMap::new()),
            created: Mutex::new(std::collections::HashSet::new()),
        }
    }
}

/// The policy and the person who answer a tool's request to change a file outside the
/// temporary directory.
struct Permission {
    policy: Arc<Policy>,
    confirm: Box<dyn Confirm + Send>,
}

/// Why a path or a change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceError {
    /// The path resolves outside the working directory and the temporary directory.
    Outside {
        /// The path as the tool was given it.
        path: String,
    },
    /// The working directory does not exist or cannot be resolved.
    Workdir {
        /// The directory.
        path: PathBuf,
        /// What the operating system said.
        error: String,
    },
    /// A file-system error while resolving the path.
    Io {
        /// The path as the tool was given it.
        path: String,
        /// What the operating system said.
        error: String,
    },
    /// The change needs a person's permission and none was given.
    Refused {
        /// What was asked.
        action: String,
        /// Why it was refused.
        reason: String,
    },
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkspaceError::Outside { path } => {
                write!(f, "path {path:?} is not within the agent's workspace")
            }
            WorkspaceError::Workdir { path, error } => {
                write!(
                    f,
                    "working directory {} is unusable: {error}",
                    path.display()
                )
            }
            WorkspaceError::Io { path, error } => write!(f, "cannot resolve {path:?}: {error}"),
            WorkspaceError::Refused { action, reason } => write!(f, "{action} refused: {reason}"),
        }
    }
}

impl std::error::Error for WorkspaceError {}

impl Workspace {
    /// A workspace rooted at `workdir` (resolved through symlinks now). Without
    /// [`with_permission`](Workspace::with_permission), changes to existing files outside the
    /// temporary directory are refused.
    pub fn new(workdir: impl AsRef<Path>) -> Result<Workspace, WorkspaceError> {
        let path = workdir.as_ref();
        let workdir = fs::canonicalize(path).map_err(|e| WorkspaceError::Workdir {
            path: path.to_path_buf(),
            error: e.to_string(),
        })?;
        if !workdir.is_dir() {
            return Err(WorkspaceError::Workdir {
                path: path.to_path_buf(),
                error: "not a directory".to_owned(),
            });
        }
        Ok(Workspace {
            inner: Arc::new(Inner::new(workdir, None, None, None)),
        })
    }

    /// The same workspace whose tools ask `confirm`, through `policy`, before they overwrite,
    /// move, copy over or delete a file outside the temporary directory. A path the user
    /// granted earlier ([`Policy::may_write`]) is not asked again.
    pub fn with_permission(
        self,
        policy: Arc<Policy>,
        confirm: impl Confirm + Send + 'static,
    ) -> Workspace {
        let permission = Arc::new(Mutex::new(Permission {
            policy,
            confirm: Box::new(confirm),
        }));
        Workspace {
            inner: Arc::new(Inner::new(
                self.inner.workdir.clone(),
                Some(permission),
                self.inner.analyzer.clone(),
                self.inner.config.clone(),
            )),
        }
    }

    /// The same workspace judging the `cmd` group's commands with `analyzer` (e.g. one built
    /// from the user's configuration) instead of the embedded default allowlist.
    pub fn with_analyzer(self, analyzer: Arc<Analyzer>) -> Workspace {
        Workspace {
            inner: Arc::new(Inner::new(
                self.inner.workdir.clone(),
                self.inner.permission.clone(),
                Some(analyzer),
                None,
            )),
        }
    }

    /// The same workspace judging the `cmd` group's commands with a whole configuration (see
    /// [`Config`]): its merged allowlist and its command rules (`Bash(…)` rules imported from
    /// Claude Code), as `cmdguard check` would. It replaces an analyser given before.
    pub fn with_config(self, config: Arc<Config>) -> Workspace {
        Workspace {
            inner: Arc::new(Inner::new(
                self.inner.workdir.clone(),
                self.inner.permission.clone(),
                None,
                Some(config),
            )),
        }
    }

    /// The working directory, canonical.
    pub fn workdir(&self) -> &Path {
        &self.inner.workdir
    }

    /// The analyser that judges commands: the one given, or the embedded default, built on
    /// first use.
    pub fn analyzer(&self) -> &Analyzer {
        match (&self.inner.analyzer, &self.inner.config) {
            (Some(a), _) => a,
            (None, Some(c)) => &c.analyzer,
            (None, None) => self.inner.default_analyzer.get_or_init(Analyzer::default),
        }
    }

    /// The background jobs of the `cmd` group.
    pub(crate) fn jobs(&self) -> &Mutex<Jobs> {
        &self.inner.jobs
    }

    /// Decides whether `command` may run in `cwd`: the analyser first, then, for `ask`, the
    /// confirmation policy (its assessor and the person). Without a permission only what the
    /// analyser allows runs. `Err` says why the command was refused; it has not started.
    pub fn permit_command(&self, command: &str, cwd: &Path) -> Result<(), String> {
        let dir = Workdir::from_env()
            .map(|d| d.in_dir(cwd))
            .unwrap_or_else(|_| Workdir::new(cwd));
        match &self.inner.permission {
            Some(permission) => {
                let mut permission = permission.lock().unwrap_or_else(PoisonError::into_inner);
                let Permission { policy, confirm } = &mut *permission;
                let decided = match &self.inner.config {
                    Some(config) => config.check_in(policy, command, &dir, confirm.as_mut()),
                    None => policy.check_in(self.analyzer(), command, &dir, confirm.as_mut()),
                };
                match decided.outcome {
                    Outcome::Run => Ok(()),
                    Outcome::Refused { message } => Err(message),
                }
            }
            None => {
                let analysis = match &self.inner.config {
                    Some(config) => config.analyze_in(command, &dir),
                    None => self.analyzer().analyze_in(command, &dir),
                };
                if analysis.verdict == Verdict::Allow {
                    return Ok(());
                }
                let reasons: Vec<&str> = analysis
                    .findings
                    .iter()
                    .map(|f| f.message.as_str())
                    .collect();
                Err(format!(
                    "command `{command}` was not run: cmdguard says {} ({}), and no confirmation policy is configured to ask the user",
                    analysis.verdict,
                    reasons.join("; ")
                ))
            }
        }
    }

    /// The temporary directory, when it has been created.
    pub fn existing_temp_dir(&self) -> Option<&Path> {
        self.inner.temp.get().map(PathBuf::as_path)
    }

    /// The temporary directory, created on first call (private to this workspace, removed with
    /// it).
    pub fn temp_dir(&self) -> Result<&Path, WorkspaceError> {
        if let Some(dir) = self.inner.temp.get() {
            return Ok(dir);
        }
        let made = make_temp_dir().map_err(|e| WorkspaceError::Io {
            path: std::env::temp_dir().display().to_string(),
            error: e.to_string(),
        })?;
        // Another thread may have won the race: keep its directory and drop ours.
        if let Err(unused) = self.inner.temp.set(made) {
            let _ = fs::remove_dir(unused);
        }
        Ok(self
            .inner
            .temp
            .get()
            .map_or(Path::new(""), PathBuf::as_path))
    }

    /// Resolves a tool's path parameter: relative paths against the working directory,
    /// symlinks resolved as far as the path exists, `..` refused in the part that does not
    /// exist yet. Only paths inside the working directory or the (existing) temporary
    /// directory are returned, absolute.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        if path.is_empty() || path.contains('\0') {
            return Err(WorkspaceError::Outside {
                path: path.to_owned(),
            });
        }
        let joined = self.joined(path);
        let resolved = resolve_existing_prefix(&joined).map_err(|error| WorkspaceError::Io {
            path: path.to_owned(),
            error,
        })?;
        if self.contains(&resolved) {
            Ok(resolved)
        } else {
            Err(WorkspaceError::Outside {
                path: path.to_owned(),
            })
        }
    }

    /// True when `resolved` (canonical) lies in the working or the temporary directory.
    pub fn contains(&self, resolved: &Path) -> bool {
        resolved.starts_with(&self.inner.workdir) || self.in_temp(resolved)
    }

    /// True when `resolved` lies in the temporary directory, which exists.
    pub fn in_temp(&self, resolved: &Path) -> bool {
        self.existing_temp_dir()
            .is_some_and(|t| resolved.starts_with(t))
    }

    /// Asks permission for `action` (e.g. `overwrite /w/a.txt`) on `path`: granted without a
    /// question inside the temporary directory and under a path the user granted before;
    /// otherwise the policy's confirmer is asked (default yes, or no for `destructive`
    /// changes). Without a configured permission, it is refused.
    pub fn permit(
        &self,
        action: &str,
        path: &Path,
        destructive: bool,
    ) -> Result<(), WorkspaceError> {
        if self.in_temp(path) {
            return Ok(());
        }
        let Some(permission) = &self.inner.permission else {
            return Err(WorkspaceError::Refused {
                action: action.to_owned(),
                reason: "no confirmation policy is configured for this workspace".to_owned(),
            });
        };
        let mut permission = permission.lock().unwrap_or_else(PoisonError::into_inner);
        let Permission { policy, confirm } = &mut *permission;
        policy
            .confirm_change(action, path, destructive, confirm.as_mut())
            .map_err(|reason| WorkspaceError::Refused {
                action: action.to_owned(),
                reason,
            })
    }
}

/// How [`Dir::create`] treats a name that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Create {
    /// Nothing may exist at the name yet, not even a link (`O_EXCL`).
    New,
    /// An existing regular file is emptied and rewritten; a missing one is created. A link at
    /// the name is not followed.
    Replace,
}

/// A directory of the workspace, held open (on Unix) so that the names below it are looked up
/// in it and not by a path that could change meanwhile. Every operation refuses to follow a
/// symbolic link at the name it is given.
pub(crate) struct Dir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

impl Workspace {
    /// The directory `dir` (a resolved path inside the workspace), opened component by
    /// component from the working or temporary directory without following links: a component
    /// that is a link (say, swapped in after `resolve` checked the path) makes it fail.
    pub(crate) fn dir(&self, dir: &Path) -> io::Result<Dir> {
        self.walk_down(dir, |held, name| held.sub(name))
    }

    /// Opens the workspace root above `dir`, then each component below it with `step`,
    /// refusing a path outside the workspace or one with a component that is not a name.
    fn walk_down(
        &self,
        dir: &Path,
        mut step: impl FnMut(&Dir, &std::ffi::OsStr) -> io::Result<Dir>,
    ) -> io::Result<Dir> {
        let (root, below) = self.root_of(dir).ok_or_else(|| {
            io::Error::other(format!(
                "{} is not within the agent's workspace",
                dir.display()
            ))
        })?;
        let mut held = Dir::open_root(root)?;
        for part in below.components() {
            let std::path::Component::Normal(name) = part else {
                return Err(io::Error::other(format!(
                    "{} is not a plain path",
                    dir.display()
                )));
            };
            held = step(&held, name)?;
        }
        Ok(held)
    }

    /// The directory holding `path` and the last component of `path`.
    pub(crate) fn parent_of<'p>(&self, path: &'p Path) -> io::Result<(Dir, &'p std::ffi::OsStr)> {
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Ok((self.dir(parent)?, name)),
            _ => Err(io::Error::other(format!(
                "{} does not name a file",
                path.display()
            ))),
        }
    }

    /// Creates the directory `dir` (resolved, inside the workspace) and its missing parents,
    /// without following a link at any component.
    pub(crate) fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.walk_down(dir, |held, name| match held.sub(name) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                held.mkdir(name)?;
                held.sub(name)
            }
            other => other,
        })
        .map(|_| ())
    }

    /// Asks before a tool creates the file `path` when it is not known to be inert, outside
    /// the temporary directory ([`Workspace::why_ask_to_create`]). That question is asked
    /// every time, with the default no (auto-confirm refuses), whatever the user granted
    /// before: a grant answers overwrites, not what runs later. Any other new file needs no
    /// permission: it destroys nothing.
    pub fn permit_create(&self, path: &Path, executable: bool) -> Result<(), WorkspaceError> {
        match self.why_ask_to_create(path, NewEntry::File { executable }) {
            None => Ok(()),
            Some(why) => self.ask_every_time(&format!("create {} ({why})", path.display()), path),
        }
    }

    /// [`Workspace::permit_create`] for `path` (resolved), which the model named `given`:
    /// when the name leads elsewhere through a link (the repository ships `.vscode` ->
    /// `editor`, or `.envrc` dangling to an ignored file), programs read the new file under
    /// the name, so it is judged too, and asked every time, the temporary directory included
    /// (a link from the workspace makes a file there read).
    pub fn permit_create_named(
        &self,
        given: &str,
        path: &Path,
        executable: bool,
    ) -> Result<(), WorkspaceError> {
        let entry = NewEntry::File { executable };
        match self
            .named_elsewhere(given, path)
            .and_then(|named| Some((self.why_ask_by_name(&named, entry)?, named)))
        {
            Some((why, named)) => self.ask_always(&format!(
                "create {} (as {}: {why})",
                path.display(),
                named.display()
            )),
            None => self.permit_create(path, executable),
        }
    }

    /// Why a new entry at `named`, a name the model gave that a link leads elsewhere, needs a
    /// question by that name: where git runs hooks or reads its configuration, a dotfile or
    /// dot-directory, a tool's configuration or build name, a kind not known to be inert
    /// ([`new_file::why_by_name`]). The top-of-project rule is applied where the entry lands.
    pub(crate) fn why_ask_by_name(&self, named: &Path, entry: NewEntry) -> Option<String> {
        match entry {
            NewEntry::Dir => self.hook_place_by_name(named),
            NewEntry::File { .. } => self.runs_beyond_checks(named, false).or_else(|| {
                new_file::why_by_name(named.strip_prefix(self.workdir()).unwrap_or(named))
            }),
        }
    }

    /// The path the model gave (`given`, absolute, `.` and `..` read textually, links not
    /// followed) when it lies in the working directory and differs from where it resolved
    /// (`resolved`): a link on the way.
    pub(crate) fn named_elsewhere(&self, given: &str, resolved: &Path) -> Option<PathBuf> {
        let named = self.lexical(given);
        (named != resolved && named.starts_with(self.workdir())).then_some(named)
    }

    /// Asks, as [`Workspace::permit_create`] does, before a tool creates the directory `path`
    /// and its missing parents: each new one that would make or lie inside a git directory
    /// asks (see the module docs); other new directories are free.
    pub fn permit_new_dir(&self, path: &Path) -> Result<(), WorkspaceError> {
        let mut missing: Vec<&Path> = path
            .ancestors()
            .take_while(|a| fs::symlink_metadata(a).is_err() && self.contains(a))
            .collect();
        missing.reverse();
        for dir in missing {
            if let Some(why) = self.why_ask_to_create(dir, NewEntry::Dir) {
                return self.ask_every_time(
                    &format!("create the directory {} ({why})", dir.display()),
                    dir,
                );
            }
        }
        Ok(())
    }

    /// Why creating `entry` at `path` (resolved) needs a question, or `None` when it is free
    /// (see "Which new files are free" in the module docs).
    pub fn why_ask_to_create(&self, path: &Path, entry: NewEntry) -> Option<String> {
        self.why_ask_to_create_in(path, entry, None, &mut Tops::default())
    }

    /// [`Workspace::why_ask_to_create`] for an entry of a tree being copied or moved: `probe`
    /// is the directory whose entries stand for those beside `path` (the entry's source
    /// directory: its new directory does not exist yet), and `tops` remembers which
    /// directories are the top of a project, so a large tree lists each directory once. A
    /// tree's entries are judged by their names for hooks (the tree's new root is checked
    /// against the repository's hooks path by the caller).
    pub(crate) fn why_ask_to_create_in(
        &self,
        path: &Path,
        entry: NewEntry,
        probe: Option<&Path>,
        tops: &mut Tops,
    ) -> Option<String> {
        if self.in_temp(path) {
            return None;
        }
        let beside = probe.or_else(|| path.parent()).unwrap_or(path);
        let executable = match entry {
            NewEntry::File { executable } => executable,
            NewEntry::Dir => {
                if let Some(why) = self.git_place_by_name(path) {
                    return Some(why);
                }
                return self.git_dir_place(path, beside);
            }
        };
        let hooks = match probe {
            None => self.runs_beyond_checks(path, executable),
            Some(_) => self
                .hook_place_by_name(path)
                .or_else(|| executable.then(|| "an executable file".to_owned())),
        };
        if let Some(why) = hooks {
            return Some(why);
        }
        if let Some(why) = self.git_dir_place(path, beside) {
            return Some(why);
        }
        // A workspace inside a dot-directory (`~/.config/nvim`, `~/.oh-my-zsh`) is some
        // program's configuration through and through: every new file there asks.
        if let Some(dot) = self.workdir().components().find_map(|c| match c {
            Component::Normal(n) if n.to_string_lossy().starts_with('.') => Some(n),
            _ => None,
        }) {
            return Some(format!(
                "the workspace is inside {}, a dot-directory, where programs look for their \
                 configuration",
                dot.to_string_lossy()
            ));
        }
        let below = path.strip_prefix(self.workdir()).unwrap_or(path);
        if let Some(why) = new_file::why_by_name(below) {
            return Some(why);
        }
        if let Some(vendor) = self.go_vendor(path) {
            return Some(format!(
                "inside {}, Go's vendored dependencies (it holds modules.txt): go builds every \
                 file of a package there into what imports it",
                vendor.display()
            ));
        }
        if let Some(why) = self.shadows_an_import(path, beside) {
            return Some(why);
        }
        let name = path.file_name()?.to_string_lossy().to_lowercase();
        let name = new_file::as_created(&name);
        let name = name.as_str();
        if new_file::inert_at_root(name) {
            return None;
        }
        let at = path.parent().unwrap_or(path);
        let top = match tops.0.get(beside) {
            Some(top) => top.clone(),
            None => {
                let top = self.project_top(at, beside);
                tops.0.insert(beside.to_path_buf(), top.clone());
                top
            }
        };
        top.map(|top| {
            format!(
                "{name} would sit at the top of {top}, where tools read more names than cmdguard \
                 can list; only documents, text, images and tables are created there freely"
            )
        })
    }

    /// [`shadows_an_import`] with the files this workspace's tools created.
    fn shadows_an_import(&self, path: &Path, beside: &Path) -> Option<String> {
        let created = self
            .inner
            .created
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        shadows_an_import(path, beside, &created)
    }

    /// The `vendor` directory above `path` (in the working directory) that Go builds
    /// dependencies from: one holding `modules.txt` (go 1.14 and later vendor by it). Other
    /// `vendor` directories (Composer's, Bundler's) load files by explicit maps only.
    fn go_vendor<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(self.workdir()))
            .find(|a| {
                a.file_name()
                    .is_some_and(|n| n.eq_ignore_ascii_case("vendor"))
                    && a.join("modules.txt").is_file()
            })
    }

    /// What makes `dir` (where a new file goes; its entries are `beside`'s) the top of a
    /// project, or `None`: the workspace root, a repository's top level (a `.git` in it), or a
    /// manifest in it. A directory that cannot be listed counts as one (fail closed).
    fn project_top(&self, dir: &Path, beside: &Path) -> Option<String> {
        if dir == self.workdir() {
            return Some("the workspace".to_owned());
        }
        let Ok(entries) = fs::read_dir(beside) else {
            return fs::symlink_metadata(beside)
                .is_ok()
                .then(|| format!("{} (which cannot be listed)", dir.display()));
        };
        for entry in entries {
            let Ok(entry) = entry else {
                return Some(format!("{} (which cannot be listed)", dir.display()));
            };
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.eq_ignore_ascii_case(".git") {
                return Some(format!("the repository {}", dir.display()));
            }
            if new_file::is_manifest(&name) {
                return Some(format!("the project {} (it holds {name})", dir.display()));
            }
        }
        None
    }

    /// Why `path` would make or lie inside a git directory, by git's own test (a `HEAD` with
    /// `objects` and `refs`, or with `commondir`), or `None`. The entries beside `path` are
    /// `beside`'s; its existing ancestors in the workspace are looked at as they are.
    fn git_dir_place(&self, path: &Path, beside: &Path) -> Option<String> {
        let name = path.file_name()?.to_string_lossy().to_lowercase();
        let name = new_file::as_created(&name);
        let name = name.as_str();
        if name == "head" {
            return Some(
                "a HEAD makes its directory a git repository once objects/ and refs/ sit beside \
                 it, and git runs what that repository's config names at the next git command there"
                    .to_owned(),
            );
        }
        if GIT_DIR_PARTS.contains(&name) && has(beside, "HEAD") {
            return Some(format!(
                "{name} beside a HEAD makes (or belongs to) a git repository, and git runs what \
                 its config names at the next git command there"
            ));
        }
        let root = self.workdir();
        path.ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(root))
            .find(|a| is_git_dir(a))
            .map(|a| {
                format!(
                    "inside {}, which git treats as a repository (HEAD, objects/, refs/): git \
                     runs hooks from there and reads its configuration",
                    a.display()
                )
            })
    }

    /// Asks before a tool rewrites the existing file `path` outside the temporary directory:
    /// as [`Workspace::permit`] does (a grant covers it), except where git runs hooks or
    /// reads its configuration, which is asked every time with the default no, as
    /// [`Workspace::permit_create`] asks. (An existing executable is asked as any other
    /// file: it was runnable before the change, as every source file of a project is.)
    pub fn permit_overwrite(&self, path: &Path) -> Result<(), WorkspaceError> {
        match self.runs_beyond_checks(path, false) {
            None => self.permit(&format!("overwrite {}", path.display()), path, false),
            Some(why) => {
                self.ask_every_time(&format!("overwrite {} ({why})", path.display()), path)
            }
        }
    }

    /// Asks permission for `action`, a change to both `a` and `b` (a move takes a file away
    /// from one and puts it at the other): no question when both lie in the temporary
    /// directory or under paths the user granted; otherwise one question, about the side that
    /// is not covered, as [`Workspace::permit`] asks.
    pub fn permit_both(&self, action: &str, a: &Path, b: &Path) -> Result<(), WorkspaceError> {
        let Some(permission) = &self.inner.permission else {
            if self.in_temp(a) && self.in_temp(b) {
                return Ok(());
            }
            return Err(WorkspaceError::Refused {
                action: action.to_owned(),
                reason: "no confirmation policy is configured for this workspace".to_owned(),
            });
        };
        let covered = {
            let permission = permission.lock().unwrap_or_else(PoisonError::into_inner);
            move |p: &Path| self.in_temp(p) || permission.policy.may_write(p)
        };
        let ask = match (covered(a), covered(b)) {
            (true, true) => return Ok(()),
            (false, _) => a,
            (true, false) => b,
        };
        drop(covered);
        self.permit(action, ask, false)
    }

    /// Why a file at `path` (new or rewritten) would be run, or would change what runs,
    /// beyond every check cmdguard makes; `None` when it would not, or when it lies in the
    /// temporary directory. Listed, fail closed:
    /// - inside a `.git` directory (git runs hooks from there and reads its configuration);
    /// - in the directory the repository's `core.hooksPath` names, or in that directory's
    ///   parent when the parent lies below the work tree (husky sets `.husky/_`, whose
    ///   wrappers run `.husky/<hook>` with `sh`); when the repository's config cannot be read
    ///   (or includes other files) where hooks live is unknown, and that counts too;
    /// - a hook manager's own directory or file ([`HOOK_MANAGER_NAMES`]);
    /// - a `HEAD` anywhere, a git directory's part beside one, or anything inside a directory
    ///   git takes for a repository (`HEAD`, `objects/`, `refs/`; see the module docs);
    /// - an executable file.
    pub fn runs_beyond_checks(&self, path: &Path, executable: bool) -> Option<String> {
        if let Some(why) = self.hook_place_by_name(path) {
            return Some(why);
        }
        if self.in_temp(path) {
            return None;
        }
        if let Some(why) = self.git_dir_place(path, path.parent().unwrap_or(path)) {
            return Some(why);
        }
        let dir = path.parent().unwrap_or(path);
        match crate::repo::hooks_path(dir) {
            Ok(None) => {}
            Ok(Some((base, hooks))) => {
                let hooks = fs::canonicalize(&hooks).unwrap_or(hooks);
                let base = fs::canonicalize(&base).unwrap_or(base);
                let parent = hooks
                    .parent()
                    .filter(|p| p.starts_with(&base) && *p != base.as_path());
                // A directory made above the hooks directory may hold it (a copied tree).
                if path.starts_with(&hooks)
                    || hooks.starts_with(path)
                    || parent.is_some_and(|p| path.starts_with(p))
                {
                    return Some(format!(
                        "where the repository's core.hooksPath ({}) has git run hooks",
                        hooks.display()
                    ));
                }
            }
            Err(why) => {
                return Some(format!(
                    "in a repository whose hooks directory is unknown: {why}"
                ));
            }
        }
        executable.then(|| "an executable file".to_owned())
    }

    /// The part of [`Workspace::runs_beyond_checks`] that needs only the path's names: a
    /// `.git` component, or a hook manager's name ([`HOOK_MANAGER_NAMES`]) among the
    /// components below the working directory. For each file of a tree a tool copies or
    /// moves.
    pub(crate) fn hook_place_by_name(&self, path: &Path) -> Option<String> {
        if let Some(why) = self.git_place_by_name(path) {
            return Some(why);
        }
        let below = path.strip_prefix(self.workdir()).unwrap_or(path);
        let name = below.components().map(|c| c.as_os_str()).find(|c| {
            let c = c.to_string_lossy().to_lowercase();
            HOOK_MANAGER_NAMES
                .iter()
                .any(|n| crate::tool::fnmatch::fnmatch(n, &c))
        })?;
        Some(format!(
            "{} belongs to a git hook manager, whose scripts git runs at a commit",
            name.to_string_lossy()
        ))
    }

    /// A `.git` component of `path` below the working directory (any case, as a
    /// case-insensitive file system reads it), outside the temporary directory.
    fn git_place_by_name(&self, path: &Path) -> Option<String> {
        if self.in_temp(path) {
            return None;
        }
        let below = path.strip_prefix(self.workdir()).unwrap_or(path);
        below
            .components()
            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
            .then(|| "inside .git, where git runs hooks and reads its configuration".to_owned())
    }

    /// Asks `action` about `path` with the default no, whatever the user granted before, and
    /// records no grant: for changes that make something run beyond every check. Granted
    /// without a question inside the temporary directory; under auto-confirm, refused.
    pub(crate) fn ask_every_time(&self, action: &str, path: &Path) -> Result<(), WorkspaceError> {
        if self.in_temp(path) {
            return Ok(());
        }
        self.ask_always(action)
    }

    /// [`Workspace::ask_every_time`] without the temporary directory's exemption: for reads
    /// of a credential file, which stays one wherever it was copied.
    pub(crate) fn ask_always(&self, action: &str) -> Result<(), WorkspaceError> {
        let refused = |reason: &str| WorkspaceError::Refused {
            action: action.to_owned(),
            reason: reason.to_owned(),
        };
        let Some(permission) = &self.inner.permission else {
            return Err(refused(
                "no confirmation policy is configured for this workspace",
            ));
        };
        let mut permission = permission.lock().unwrap_or_else(PoisonError::into_inner);
        let Permission { policy, confirm } = &mut *permission;
        if policy.settings().auto_confirm {
            return Err(refused(
                "auto-confirm took the default answer, no (this is asked of a person every time)",
            ));
        }
        let prompt = Prompt {
            title: TITLE_FILE_CHANGE.to_owned(),
            command: action.to_owned(),
            text: format!(
                "A tool wants to {action}. What is there may run later, outside every check cmdguard makes."
            ),
            default: Choice::No,
            decision: Decision::Reject,
            kind: None,
            remember: None,
            grant_path: None,
        };
        if confirm.confirm(&prompt).choice.runs() {
            Ok(())
        } else {
            Err(refused("the user answered no"))
        }
    }

    /// The `[sensitive]` pattern of the analyser's allowlist that `path` (resolved) matches,
    /// when reading it would ask in a command (`cat PATH`); see
    /// [`Allowlist::sensitive_path`](crate::Allowlist::sensitive_path).
    /// `$HOME` is matched as written and with its links resolved (a home under a linked
    /// `/home`, as on Fedora Silverblue or automounted homes, is reached both ways). A file
    /// the environment names as a credential file (`KUBECONFIG`, `DOCKER_CONFIG`'s
    /// `config.json`, a file below `XDG_CONFIG_HOME` as it would be below `~/.config`; see
    /// [`CREDENTIAL_VARIABLES`]) is one wherever it is.
    pub fn sensitive(&self, path: &Path) -> Option<String> {
        let list = self.analyzer().allowlist();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let canonical = home.as_deref().and_then(canonical_home);
        let mut homes = vec![home.as_deref()];
        if canonical.as_deref() != home.as_deref() {
            homes.push(canonical.as_deref());
        }
        homes.into_iter().find_map(|home| {
            list.sensitive_path(path, home)
                .map(str::to_owned)
                .or_else(|| {
                    let home = home?;
                    named_by_environment(path, &|moved| {
                        list.sensitive_path(&home.join(moved), Some(home))
                            .map(str::to_owned)
                    })
                })
        })
    }

    /// [`Workspace::sensitive`] for a path the model gave (`given`, as written) that resolved
    /// to `resolved`: the name as given counts as much as where it leads, as for `cat .env`
    /// when `.env` is a link to `env/production`. The name is taken against the working
    /// directory with `.` and `..` read textually, links not followed.
    /// When the name is a credential file's and leads elsewhere, the file it leads to is
    /// remembered as one too ([`Workspace::credential`]): the model must not get it under its
    /// own, plain name with no question.
    pub fn sensitive_named(&self, given: &str, resolved: &Path) -> Option<String> {
        let named = self.lexical(given);
        match self.sensitive(&named) {
            Some(pattern) => {
                if named != resolved {
                    self.guard_behind_link(resolved, &pattern, &named);
                }
                Some(pattern)
            }
            None => self.credential(resolved),
        }
    }

    /// [`Workspace::sensitive`] for `path` (resolved), or why it is a credential file under
    /// another name: a link with a credential file's name that a tool came across leads to
    /// it (`.env` -> `env/production`; see [`Workspace::sensitive_named`] and
    /// [`Workspace::note_link`]). A link no tool saw is not known (a limit).
    pub fn credential(&self, path: &Path) -> Option<String> {
        let behind = self
            .inner
            .behind_links
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
            .cloned();
        behind.or_else(|| self.sensitive(path))
    }

    /// Notes a symbolic link `link` (in the workspace, not resolved) that a tool came across
    /// while listing or walking: when its name is a credential file's, the file it leads to
    /// is guarded as one ([`Workspace::credential`]).
    pub(crate) fn note_link(&self, link: &Path) {
        let Some(pattern) = self.sensitive(link) else {
            return;
        };
        if let Ok(target) = resolve_existing_prefix(link) {
            self.guard_behind_link(&target, &pattern, link);
        }
    }

    fn guard_behind_link(&self, target: &Path, pattern: &str, link: &Path) {
        self.inner
            .behind_links
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(target.to_path_buf())
            .or_insert_with(|| format!("{pattern}, through the link {}", link.display()));
    }

    /// `given` as it stands when absolute, else joined to the working directory.
    fn joined(&self, given: &str) -> PathBuf {
        let given = Path::new(given);
        if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.inner.workdir.join(given)
        }
    }

    /// `given` made absolute against the working directory, `.` and `..` read textually.
    pub(crate) fn lexical(&self, given: &str) -> PathBuf {
        let mut out = PathBuf::new();
        for c in self.joined(given).components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }

    /// Asks before a tool reads `path` (resolved) when the analyser would ask before a
    /// command read it (a credential file the `[sensitive]` table lists): asked every time,
    /// default no, refused without a confirmation policy and under auto-confirm, in the
    /// temporary directory too (a copy of a credential file is one). Other files of the
    /// workspace are read without a question.
    pub fn permit_read(&self, path: &Path) -> Result<(), WorkspaceError> {
        self.ask_before_reading(self.credential(path), path)
    }

    /// [`Workspace::permit_read`] for `resolved`, which the model named `given`: asks when
    /// either is a credential file's ([`Workspace::sensitive_named`]).
    pub fn permit_read_named(&self, given: &str, resolved: &Path) -> Result<(), WorkspaceError> {
        self.ask_before_reading(self.sensitive_named(given, resolved), resolved)
    }

    /// [`Workspace::resolve`] for reading: resolves `given`, then asks as
    /// [`Workspace::permit_read`] does when the name as given or the file it leads to is a
    /// credential file ([`Workspace::sensitive_named`]).
    pub fn resolve_read(&self, given: &str) -> Result<PathBuf, WorkspaceError> {
        let resolved = self.resolve(given)?;
        self.ask_before_reading(self.sensitive_named(given, &resolved), &resolved)?;
        Ok(resolved)
    }

    fn ask_before_reading(
        &self,
        pattern: Option<String>,
        path: &Path,
    ) -> Result<(), WorkspaceError> {
        match pattern {
            None => Ok(()),
            Some(pattern) => self.ask_always(&format!(
                "read {} (a credential file: [sensitive] {pattern})",
                path.display()
            )),
        }
    }

    /// Writes `bytes` to the resolved `path`, as the `write_file` tool does: an existing
    /// regular file is rewritten after [`Workspace::permit_overwrite`], a new one created
    /// after [`Workspace::permit_create`]; through the held directory, never through a link
    /// (`O_NOFOLLOW`), never onto a FIFO or device (`O_NONBLOCK`, regular files only), never
    /// into a file with more than one hard link. `Err` is a message for the model.
    /// `given` is the name the model gave for `path`: a new file is judged under it too
    /// ([`Workspace::permit_create_named`]), and so is a rewrite where git runs hooks.
    pub(crate) fn write_file(&self, given: &str, path: &Path, bytes: &[u8]) -> Result<(), String> {
        let failed = |e: &io::Error| format!("cannot write {}: {e}", path.display());
        let how = match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(format!("{} is a directory", path.display()));
            }
            Ok(_) => {
                match self
                    .named_elsewhere(given, path)
                    .and_then(|named| Some((self.runs_beyond_checks(&named, false)?, named)))
                {
                    Some((why, named)) => self.ask_always(&format!(
                        "overwrite {} (as {}: {why})",
                        path.display(),
                        named.display()
                    )),
                    None => self.permit_overwrite(path),
                }
                .map_err(|e| e.to_string())?;
                Create::Replace
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.permit_create_named(given, path, false)
                    .map_err(|e| e.to_string())?;
                // New, as it was when nobody was asked: a file (or link) that appears
                // meanwhile makes the write fail.
                Create::New
            }
            Err(e) => return Err(failed(&e)),
        };
        if !path.parent().is_some_and(Path::is_dir) {
            return Err(format!(
                "the directory of {} does not exist; create it with mkdir first",
                path.display()
            ));
        }
        let (dir, name) = self.parent_of(path).map_err(|e| failed(&e))?;
        dir.create(name, how, 0o666)
            .and_then(|mut file| io::Write::write_all(&mut file, bytes))
            .map_err(|e| failed(&e))?;
        if how == Create::New {
            self.inner
                .created
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(path.to_path_buf());
        }
        Ok(())
    }

    /// The root (working or temporary directory, the longer when both hold it) under which
    /// `resolved` lies, and the rest of the path.
    fn root_of<'p>(&self, resolved: &'p Path) -> Option<(&Path, &'p Path)> {
        let roots = [Some(self.workdir()), self.existing_temp_dir()];
        roots
            .into_iter()
            .flatten()
            .filter_map(|root| Some((root, resolved.strip_prefix(root).ok()?)))
            .min_by_key(|(_, rest)| rest.components().count())
    }
}

impl Dir {
    /// The directory's path, as it was resolved.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The open directory (for the `bash` tool, which starts bash in it).
    #[cfg(unix)]
    pub(crate) fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.fd.as_fd()
    }

    #[cfg(unix)]
    fn open_root(root: &Path) -> io::Result<Dir> {
        use rustix::fs::{CWD, Mode, OFlags, openat};
        let fd = openat(
            CWD,
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Dir {
            path: root.to_path_buf(),
            fd,
        })
    }

    #[cfg(not(unix))]
    fn open_root(root: &Path) -> io::Result<Dir> {
        Ok(Dir {
            path: root.to_path_buf(),
        })
    }

    /// The subdirectory `name`, which must be a directory and not a link.
    #[cfg(unix)]
    pub(crate) fn sub(&self, name: &std::ffi::OsStr) -> io::Result<Dir> {
        use rustix::fs::{Mode, OFlags, openat};
        let path = self.path.join(name);
        let fd = openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| not_followed(&path, e))?;
        Ok(Dir { path, fd })
    }

    /// The subdirectory `name`, which must be a directory and not a link.
    #[cfg(not(unix))]
    pub(crate) fn sub(&self, name: &std::ffi::OsStr) -> io::Result<Dir> {
        let path = self.path.join(name);
        if !fs::symlink_metadata(&path)?.is_dir() {
            return Err(io::Error::other(format!(
                "{} is not a directory",
                path.display()
            )));
        }
        Ok(Dir { path })
    }

    /// Creates (or, with [`Create::Replace`], empties) the regular file `name` for writing,
    /// with `mode` (before the umask) when it is new.
    pub(crate) fn create(
        &self,
        name: &std::ffi::OsStr,
        how: Create,
        mode: u32,
    ) -> io::Result<fs::File> {
        let path = self.path.join(name);
        #[cfg(unix)]
        let file = {
            use rustix::fs::{Mode, OFlags, openat};
            // O_NONBLOCK: a FIFO planted at the name fails (ENXIO) instead of hanging.
            let mut flags = OFlags::WRONLY
                | OFlags::CREATE
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::CLOEXEC;
            // Replace truncates only after the checks below: not at open.
            if how == Create::New {
                flags |= OFlags::EXCL;
            }
            let fd = openat(&self.fd, name, flags, Mode::from_raw_mode(mode))
                .map_err(|e| not_followed(&path, e))?;
            fs::File::from(fd)
        };
        #[cfg(not(unix))]
        let file = {
            let _ = mode;
            let mut options = fs::OpenOptions::new();
            options.write(true);
            match how {
                Create::New => options.create_new(true),
                Create::Replace => options.create(true).truncate(true),
            };
            options.open(&path)?
        };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        #[cfg(unix)]
        if how == Create::Replace {
            use std::os::unix::fs::MetadataExt;
            // A hard link shares its contents with a name that may be outside the workspace:
            // rewriting it would change that file too.
            if meta.nlink() > 1 {
                return Err(io::Error::other(format!(
                    "{} has {} hard links, and a write would change every one of them, \
                     wherever they are",
                    path.display(),
                    meta.nlink()
                )));
            }
            file.set_len(0)?;
        }
        Ok(file)
    }

    /// Opens the regular file `name` for reading, not through a link.
    pub(crate) fn open(&self, name: &std::ffi::OsStr) -> io::Result<fs::File> {
        let path = self.path.join(name);
        #[cfg(unix)]
        let file = {
            use rustix::fs::{Mode, OFlags, openat};
            let fd = openat(
                &self.fd,
                name,
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| not_followed(&path, e))?;
            fs::File::from(fd)
        };
        #[cfg(not(unix))]
        let file = fs::File::open(&path)?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        Ok(file)
    }

    /// Creates the directory `name`.
    pub(crate) fn mkdir(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::mkdirat(&self.fd, name, rustix::fs::Mode::from_raw_mode(0o777))
                .map_err(|e| not_followed(&self.path.join(name), e))
        }
        #[cfg(not(unix))]
        {
            fs::create_dir(self.path.join(name))
        }
    }

    /// Renames `from` to `to`, both in this directory (replacing a file at `to`).
    pub(crate) fn rename(&self, from: &std::ffi::OsStr, to: &std::ffi::OsStr) -> io::Result<()> {
        self.rename_to(from, self, to)
    }

    /// Renames `from` in this directory to `to` in `dir` (replacing a file there).
    pub(crate) fn rename_to(
        &self,
        from: &std::ffi::OsStr,
        dir: &Dir,
        to: &std::ffi::OsStr,
    ) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::renameat(&self.fd, from, &dir.fd, to).map_err(io::Error::from)
        }
        #[cfg(not(unix))]
        {
            fs::rename(self.path.join(from), dir.path.join(to))
        }
    }

    /// Removes the directory `name` with everything in it. On Linux it is reached through this
    /// held directory (`/proc/self/fd/N/name`; std's `remove_dir_all` then opens each level
    /// without following links); elsewhere by its path.
    pub(crate) fn remove_tree(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let held = PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()));
            if held.is_dir() {
                return fs::remove_dir_all(held.join(name));
            }
        }
        fs::remove_dir_all(self.path.join(name))
    }

    /// Creates the symbolic link `name` pointing to `target`.
    #[cfg(unix)]
    pub(crate) fn symlink(&self, target: &Path, name: &std::ffi::OsStr) -> io::Result<()> {
        rustix::fs::symlinkat(target, &self.fd, name).map_err(io::Error::from)
    }

    /// Removes the file (or link) `name`.
    pub(crate) fn remove_file(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::unlinkat(&self.fd, name, rustix::fs::AtFlags::empty())
                .map_err(io::Error::from)
        }
        #[cfg(not(unix))]
        {
            fs::remove_file(self.path.join(name))
        }
    }
}

/// An `openat` error, said plainly when it is a link that was not followed.
#[cfg(unix)]
fn not_followed(path: &Path, e: rustix::io::Errno) -> io::Error {
    if e == rustix::io::Errno::LOOP
        || (e == rustix::io::Errno::NOTDIR
            && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()))
    {
        io::Error::other(format!(
            "{} is a symbolic link (changed since the path was checked?), which is not followed here",
            path.display()
        ))
    } else {
        io::Error::from(e)
    }
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("workdir", &self.inner.workdir)
            .field("temp_dir", &self.inner.temp.get())
            .field("permission", &self.inner.permission.is_some())
            .finish()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.jobs
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .stop_all();
        if let Some(dir) = self.temp.get() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Patterns (lower case, compared without regard to case) of the directory and file names of
/// git hook managers and of the tools their hooks run, anywhere in the workspace: what they
/// hold runs at the user's next commit. A file matching one is asked about every time it is
/// rewritten too (a new one asks anyway: see "Which new files are free"), in every format the
/// tool reads.
pub const HOOK_MANAGER_NAMES: &[&str] = &[
    // husky: `.husky/<hook>` scripts, run by the wrappers in `.husky/_`; husky 4's `.huskyrc*`
    // and `husky.config.*`.
    ".husky",
    ".huskyrc*",
    "husky.config.*",
    // A common `core.hooksPath` directory of hand-made setups.
    ".githooks",
    // lefthook's configuration, in any of its formats (commands per hook).
    "lefthook.*",
    "lefthook-local.*",
    ".lefthook.*",
    ".lefthook-local.*",
    // pre-commit's configuration (hooks to install and run).
    ".pre-commit-config.*",
    // What husky's hooks usually run: lint-staged's and commitlint's configurations name
    // commands (or are code).
    ".lintstagedrc*",
    "lint-staged.config.*",
    ".commitlintrc*",
    "commitlint.config.*",
    // simple-git-hooks' configuration.
    ".simple-git-hooks*",
    "simple-git-hooks.*",
    // Rush copies every file of `common/git-hooks` into `.git/hooks` at `rush install`.
    "git-hooks",
];

/// How many Python files beside a new module [`shadows_an_import`] reads, and how much of each.
const MAX_IMPORTERS: usize = 200;
const MAX_IMPORTER_BYTES: u64 = 256 * 1024;

/// Why a new Python module at `path` (`yaml.py`, or `requests/__init__.py`) would be imported
/// in place of an installed one: a Python file beside it (beside the package) imports that
/// name, and Python puts a script's own directory first on the module path (pytest a test
/// file's). The entries beside `path` are `beside`'s (a tree being copied); for a package, the
/// files beside its directory are read where it lands. Fail closed: a directory that cannot
/// be listed, or more Python files than are read, counts as importing it. A file the agent
/// created itself (`created`) does not count: its imports are the agent's own code's.
fn shadows_an_import(
    path: &Path,
    beside: &Path,
    created: &std::collections::HashSet<PathBuf>,
) -> Option<String> {
    let name = new_file::as_created(&path.file_name()?.to_string_lossy().to_lowercase());
    let dir = path.parent()?;
    let (module, package) = new_file::python_module(&name, dir.file_name())?;
    let importers: Vec<&Path> = if package {
        let mut at = vec![dir.parent()?];
        if let Some(source) = beside.parent().filter(|p| *p != dir && !at.contains(p)) {
            at.push(source);
        }
        at
    } else {
        let mut at = vec![beside];
        if dir != beside {
            at.push(dir);
        }
        at
    };
    for place in importers {
        let Ok(entries) = fs::read_dir(place) else {
            if fs::symlink_metadata(place).is_err() {
                continue;
            }
            return Some(format!(
                "{name} may be imported in place of the module {module} by a script beside it \
                 ({} cannot be listed)",
                place.display()
            ));
        };
        let mut read = 0;
        for entry in entries.flatten() {
            let file = entry.path();
            let is_py = file
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("py"));
            if !is_py
                || file == path
                || created.contains(&file)
                || !entry.file_type().is_ok_and(|t| t.is_file())
            {
                continue;
            }
            read += 1;
            if read > MAX_IMPORTERS {
                return Some(format!(
                    "{name} may be imported in place of the module {module} by one of the many \
                     scripts in {}",
                    place.display()
                ));
            }
            let Ok(f) = fs::File::open(&file) else {
                continue;
            };
            let mut text = Vec::new();
            if io::Read::read_to_end(&mut io::Read::take(f, MAX_IMPORTER_BYTES), &mut text).is_err()
            {
                continue;
            }
            if new_file::python_imports(&String::from_utf8_lossy(&text)).contains(&module) {
                return Some(format!(
                    "{name} would be imported in place of an installed module {module} by {}, \
                     which imports it (Python looks in a script's own directory first)",
                    file.display()
                ));
            }
        }
    }
    None
}

/// True when `dir/name` exists (as anything, a link included).
fn has(dir: &Path, name: &str) -> bool {
    fs::symlink_metadata(dir.join(name)).is_ok()
}

/// True when git would take `dir` for a git directory: a `HEAD` with `objects` and `refs`, or
/// with `commondir` (a linked worktree's, whose objects and refs live elsewhere). Git also
/// checks that `HEAD` holds a ref; any `HEAD` counts here.
fn is_git_dir(dir: &Path) -> bool {
    has(dir, "HEAD") && (has(dir, "objects") && has(dir, "refs") || has(dir, "commondir"))
}

/// True for a file with an execute bit.
#[cfg(unix)]
pub(crate) fn executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

/// True for a file with an execute bit (none elsewhere than Unix).
#[cfg(not(unix))]
pub(crate) fn executable(_meta: &fs::Metadata) -> bool {
    false
}

/// How many dangling symbolic links [`resolve_existing_prefix`] follows in one path (Linux's
/// own limit for a path lookup).
const MAX_LINK_HOPS: usize = 40;

/// The canonical form of `path`: the longest existing prefix resolved through symlinks, then
/// the rest appended. `..` or `.` in the rest would be resolved against a path that does not
/// exist (and a later symlink could change its meaning), so it is refused. A dangling link
/// (`canonicalize` fails on it, as on a missing name) is followed too: its target, read with
/// `read_link` and taken relative to the link's directory, replaces it, up to
/// [`MAX_LINK_HOPS`] times; otherwise a write to the link's own path would land wherever it
/// points.
fn resolve_existing_prefix(path: &Path) -> Result<PathBuf, String> {
    let mut path = path.to_path_buf();
    let mut hops = 0;
    'path: loop {
        let mut missing = Vec::new();
        let mut probe = path.clone();
        loop {
            match fs::canonicalize(&probe) {
                Ok(base) => {
                    let mut out = base;
                    for part in missing.iter().rev() {
                        out.push(part);
                    }
                    return Ok(out);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if fs::symlink_metadata(&probe).is_ok_and(|m| m.file_type().is_symlink()) {
                        hops += 1;
                        if hops > MAX_LINK_HOPS {
                            return Err("too many levels of symbolic links".to_owned());
                        }
                        let target = fs::read_link(&probe).map_err(|e| e.to_string())?;
                        let mut next = probe.parent().map(Path::to_path_buf).unwrap_or_default();
                        next.push(target);
                        for part in missing.iter().rev() {
                            next.push(part);
                        }
                        path = next;
                        continue 'path;
                    }
                    // A path ending in `..` has no file name: `..` after a missing directory.
                    let Some(name) = probe.file_name() else {
                        return Err("`..` after a path that does not exist".to_owned());
                    };
                    missing.push(name.to_os_string());
                    if !probe.pop() {
                        return Err(e.to_string());
                    }
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }
}

/// A fresh private directory under the system's temporary directory.
fn make_temp_dir() -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for _ in 0..100 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("cmdguard-ws-{}-{nanos:x}-{n}", std::process::id()));
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&dir) {
            Ok(()) => return fs::canonicalize(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free name for a temporary directory"))
}

/// What an environment variable of [`CREDENTIAL_VARIABLES`] names.
#[derive(Debug, Clone, Copy)]
enum Names {
    /// Credential files: the value is a file, or a `:`-separated list of files
    /// (`KUBECONFIG`), maybe with Kerberos's `FILE:` prefix.
    Files,
    /// A directory whose files of these names (all, when empty) hold credentials.
    Dir(&'static [&'static str]),
    /// A directory standing for the one below the home directory named here (`XDG_*`): a
    /// file below it is judged as if it were below that one.
    Home(&'static str),
}

/// Environment variables that move the user's credential files from the places the
/// `[sensitive]` table names (each tool documents its variable): a project that sets one
/// (`export KUBECONFIG=$PWD/clusters/dev.yaml` in its `.envrc`, Google's quick-starts'
/// `GOOGLE_APPLICATION_CREDENTIALS=$PWD/key.json`) keeps its credentials under plain names.
const CREDENTIAL_VARIABLES: &[(&str, Names)] = &[
    ("GOOGLE_APPLICATION_CREDENTIALS", Names::Files),
    ("KUBECONFIG", Names::Files),
    ("AWS_SHARED_CREDENTIALS_FILE", Names::Files),
    ("AWS_CONFIG_FILE", Names::Files),
    ("AWS_WEB_IDENTITY_TOKEN_FILE", Names::Files),
    ("AZURE_FEDERATED_TOKEN_FILE", Names::Files),
    ("NETRC", Names::Files),
    ("NPM_CONFIG_USERCONFIG", Names::Files),
    ("npm_config_userconfig", Names::Files),
    ("PIP_CONFIG_FILE", Names::Files),
    ("PGPASSFILE", Names::Files),
    ("TF_CLI_CONFIG_FILE", Names::Files),
    ("BOTO_CONFIG", Names::Files),
    ("SOPS_AGE_KEY_FILE", Names::Files),
    ("RCLONE_CONFIG", Names::Files),
    ("GIT_CONFIG_GLOBAL", Names::Files),
    ("ANSIBLE_VAULT_PASSWORD_FILE", Names::Files),
    ("VAULT_TOKEN_FILE", Names::Files),
    ("KRB5CCNAME", Names::Files),
    ("KRB5_KTNAME", Names::Files),
    ("DOCKER_CONFIG", Names::Dir(&["config.json"])),
    ("GH_CONFIG_DIR", Names::Dir(&["hosts.yml"])),
    (
        "CARGO_HOME",
        Names::Dir(&["credentials", "credentials.toml"]),
    ),
    ("GRADLE_USER_HOME", Names::Dir(&["gradle.properties"])),
    ("CLOUDSDK_CONFIG", Names::Dir(&[])),
    ("AZURE_CONFIG_DIR", Names::Dir(&[])),
    ("GNUPGHOME", Names::Dir(&[])),
    ("PASSWORD_STORE_DIR", Names::Dir(&[])),
    ("XDG_CONFIG_HOME", Names::Home(".config")),
    ("XDG_DATA_HOME", Names::Home(".local/share")),
    ("XDG_CACHE_HOME", Names::Home(".cache")),
];

/// The variable of [`CREDENTIAL_VARIABLES`] that names `path` (resolved) as a credential
/// file, as `$NAME` (with the `[sensitive]` pattern for an `XDG_*` one, which
/// `below_home` judges for the path moved below the home directory).
fn named_by_environment(
    path: &Path,
    below_home: &dyn Fn(&Path) -> Option<String>,
) -> Option<String> {
    for (name, names) in CREDENTIAL_VARIABLES {
        let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) else {
            continue;
        };
        let value = value.to_string_lossy().into_owned();
        let hit = match names {
            Names::Files => value
                .split(':')
                .filter(|v| !v.is_empty() && *v != "FILE")
                .any(|file| canonical_value(file).is_some_and(|f| f == path)),
            Names::Dir(files) => canonical_value(&value).is_some_and(|dir| {
                path.strip_prefix(&dir).is_ok_and(|rest| {
                    files.is_empty() || files.iter().any(|f| rest == Path::new(f))
                })
            }),
            Names::Home(moved) => {
                let Some(rest) = canonical_value(&value)
                    .and_then(|dir| path.strip_prefix(dir).ok().map(Path::to_path_buf))
                else {
                    continue;
                };
                if let Some(pattern) = below_home(&Path::new(moved).join(rest)) {
                    return Some(format!("{pattern} (through ${name})"));
                }
                false
            }
        };
        if hit {
            return Some(format!("${name}"));
        }
    }
    None
}

/// A variable's value (a path) with its links resolved, remembered per value: `sensitive`
/// runs for every file a tool reads. A value that does not exist (yet) is taken as written
/// when absolute.
fn canonical_value(value: &str) -> Option<PathBuf> {
    static KNOWN: Mutex<Option<HashMap<String, Option<PathBuf>>>> = Mutex::new(None);
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let known = known.get_or_insert_with(HashMap::new);
    if let Some(found) = known.get(value) {
        return found.clone();
    }
    let found = fs::canonicalize(value)
        .ok()
        .or_else(|| Path::new(value).is_absolute().then(|| PathBuf::from(value)));
    if known.len() > 256 {
        known.clear();
    }
    known.insert(value.to_owned(), found.clone());
    found
}

/// `home` with its links resolved, remembered for the last `$HOME` value asked about:
/// [`Workspace::sensitive`] runs for every path a tool reads, and resolving the home each
/// time costs a system call per component. Keyed on the value, so a changed `$HOME` is
/// resolved afresh.
fn canonical_home(home: &Path) -> Option<PathBuf> {
    static LAST: Mutex<Option<(PathBuf, Option<PathBuf>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((key, canonical)) = last.as_ref()
        && key == home
    {
        return canonical.clone();
    }
    let canonical = fs::canonicalize(home).ok();
    *last = Some((home.to_path_buf(), canonical.clone()));
    canonical
}

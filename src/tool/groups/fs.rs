//! tool/groups/fs.rs: the `fs` group — listing, reading, searching and changing files inside
//! the agent's [`Workspace`]. Every path parameter goes through [`Workspace::resolve`]; a change
//! to something that exists outside the temporary directory (overwrite, move, copy over,
//! delete) asks through the workspace's permission first. A move asks about both its sides
//! (a grant must cover each). Creating a new file or directory does not ask (it destroys
//! nothing), except where git runs hooks or reads its configuration and for executable files
//! ([`Workspace::permit_create`], asked every time with the default no). Moving something
//! into the temporary directory is asked as a deletion: the temporary directory is removed
//! with the workspace. A credential file (the analyser's `[sensitive]` table: `.env`, private
//! keys) is read, copied or moved only after the user says yes ([`Workspace::permit_read`]);
//! `grep` skips such files and names them. Files are written through the workspace's held
//! directories ([`Workspace::dir`]), never through a link; see `tool/workspace.rs` for what
//! that covers.

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::workspace::{Create, Dir, NewEntry, Tops, executable};
use crate::tool::{Crop, Tool, ToolCallContext, Workspace, defer_tool_image, fit_image, tool};

/// The largest file `read_file` reads, in bytes.
pub const MAX_READ_BYTES: u64 = 2 * 1024 * 1024;
/// The most entries `list_dir` returns.
pub const MAX_LIST: usize = 1000;
/// The most paths `glob` returns.
pub const MAX_GLOB: usize = 1000;
/// The most matching lines (or files) `grep` returns.
pub const MAX_GREP: usize = 500;
/// The longest line `grep` quotes, in bytes; longer lines are cut with `…`.
pub const MAX_GREP_LINE: usize = 300;
/// How many skipped credential files `grep` names; the rest are counted.
const MAX_SKIPPED_NAMED: usize = 50;

/// Files larger than this are skipped by `grep`.
pub const MAX_GREP_FILE: u64 = 8 * 1024 * 1024;

/// The tools of the group, in the order a model sees them.
pub fn tools() -> Vec<Tool> {
    vec![
        list_dir_tool(),
        file_info_tool(),
        read_file_tool(),
        temp_dir_tool(),
        write_file_tool(),
        mkdir_tool(),
        move_path_tool(),
        copy_tool(),
        delete_tool(),
        glob_tool(),
        grep_tool(),
        request_image_tool(),
    ]
}

type Ctx = ToolCallContext<()>;
type Outcome<T = String> = Result<T, String>;

fn workspace(ctx: &Ctx) -> Outcome<&Workspace> {
    super::agent_workspace(ctx)
}

fn resolve(ctx: &Ctx, path: &str) -> Outcome<(Workspace, PathBuf)> {
    let ws = workspace(ctx)?.clone();
    let resolved = ws.resolve(path).map_err(|e| e.to_string())?;
    Ok((ws, resolved))
}

fn io_error(what: &str, path: &Path, e: &io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

/// One entry of `list_dir`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    /// The entry's name; directories end in `/`.
    pub name: String,
    /// `file`, `directory`, `symlink` or `other` (with `details`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// Size in bytes (with `details`, files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Last modification, ISO 8601 UTC (with `details`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

/// What `list_dir` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The directory, absolute.
    pub path: String,
    /// Its entries, sorted by name.
    pub entries: Vec<DirEntry>,
    /// Set when more than the returned entries exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

fn modified(meta: &fs::Metadata) -> Option<String> {
    let time = meta.modified().ok()?;
    let stamp = jiff::Timestamp::try_from(time).ok()?;
    Some(stamp.round(jiff::Unit::Second).ok()?.to_string())
}

/// Lists a directory of the workspace: names sorted, directories ending in `/`; with
/// `details`, each entry's kind, size and modification time.
#[tool]
fn list_dir(
    /// The directory, relative to the working directory or absolute.
    path: &str,
    /// Also report kind, size and modification time.
    #[tool(default = false)]
    details: bool,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Listing> {
    let (ws, dir) = resolve(ctx, path)?;
    let read = fs::read_dir(&dir).map_err(|e| io_error("list", &dir, &e))?;
    let mut entries = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| io_error("list", &dir, &e))?;
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            ws.note_link(&entry.path());
        }
        let meta = entry.metadata().ok();
        let mut name = entry.file_name().to_string_lossy().into_owned();
        if meta.as_ref().is_some_and(fs::Metadata::is_dir) {
            name.push('/');
        }
        let (kind, size, modified) = match (&meta, details) {
            (Some(m), true) => (
                Some(kind_of(m)),
                m.is_file().then_some(m.len()),
                modified(m),
            ),
            _ => (None, None, None),
        };
        entries.push(DirEntry {
            name,
            kind,
            size,
            modified,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let truncated = (entries.len() > MAX_LIST)
        .then(|| format!("{} entries; the first {MAX_LIST} are shown", entries.len()));
    entries.truncate(MAX_LIST);
    Ok(Listing {
        path: dir.display().to_string(),
        entries,
        truncated,
    })
}

/// What `file_info` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// The path, absolute.
    pub path: String,
    /// `file`, `directory` or `other`.
    pub kind: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Number of lines, for a text file no larger than the read limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<usize>,
    /// Last modification, ISO 8601 UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// True for a UTF-8 file without NUL bytes (files over the read limit, and credential
    /// files, are not examined).
    pub is_text: bool,
    /// Set for a credential file (the analyser's `[sensitive]` table): its contents were not
    /// examined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<String>,
}

/// Reports a path's kind, size, line count, modification time and whether it is text.
#[tool]
fn file_info(
    /// The file or directory.
    path: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<FileInfo> {
    let given = path;
    let (ws, path) = resolve(ctx, given)?;
    let meta = fs::metadata(&path).map_err(|e| io_error("read", &path, &e))?;
    let sensitive = ws.sensitive_named(given, &path);
    let (lines, is_text) = if sensitive.is_none() && meta.is_file() && meta.len() <= MAX_READ_BYTES
    {
        match read_text_in(&ws, &path) {
            Ok(text) => (Some(count_lines(&text)), true),
            Err(_) => (None, false),
        }
    } else {
        (None, false)
    };
    // A credential file is named as it was given: the name a link (`.env`) leads to is one
    // the model could read without the question the link's name asks.
    let shown = match sensitive {
        Some(_) => ws.lexical(given),
        None => path,
    };
    Ok(FileInfo {
        path: shown.display().to_string(),
        kind: kind_of(&meta),
        size: meta.len(),
        lines,
        modified: modified(&meta),
        is_text,
        sensitive: sensitive.map(|p| {
            format!(
                "a credential file ([sensitive] {p}); read_file asks the user before reading it"
            )
        }),
    })
}

fn count_lines(text: &str) -> usize {
    text.lines().count()
}

/// Why a file cannot be shown as text.
pub(crate) enum NotText {
    Io(io::Error),
    TooLarge(u64),
    Binary,
}

/// The file's contents as text: a regular file of at most [`MAX_READ_BYTES`], UTF-8, without
/// NUL bytes.
pub(crate) fn read_text(path: &Path) -> Result<String, NotText> {
    let meta = fs::metadata(path).map_err(NotText::Io)?;
    if !meta.is_file() {
        return Err(NotText::Io(io::Error::other("not a regular file")));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(NotText::TooLarge(meta.len()));
    }
    read_open(fs::File::open(path).map_err(NotText::Io)?)
}

/// [`read_text`] of a resolved path of the workspace, opened through its held directory
/// without following a link (one swapped in after the path was checked is refused).
fn read_text_in(ws: &Workspace, path: &Path) -> Result<String, NotText> {
    let (dir, name) = ws.parent_of(path).map_err(NotText::Io)?;
    read_open(dir.open(name).map_err(NotText::Io)?)
}

/// The text of an open regular file, as [`read_text`] accepts it.
fn read_open(file: fs::File) -> Result<String, NotText> {
    let meta = file.metadata().map_err(NotText::Io)?;
    if !meta.is_file() {
        return Err(NotText::Io(io::Error::other("not a regular file")));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(NotText::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(NotText::Io)?;
    if bytes.len() as u64 > MAX_READ_BYTES {
        return Err(NotText::TooLarge(bytes.len() as u64));
    }
    if bytes.contains(&0) {
        return Err(NotText::Binary);
    }
    String::from_utf8(bytes).map_err(|_| NotText::Binary)
}

/// Reads a text file of the workspace, whole or a range of lines, optionally numbered (from
/// 1). Binary files and files over 2 MiB are refused with a clear error; a credential file
/// (`.env`, private keys) is read only if the user says yes.
#[tool]
fn read_file(
    /// The file.
    path: &str,
    /// How many lines to skip first.
    #[tool(default = 0)]
    line_offset: usize,
    /// How many lines to return at most; all when absent.
    line_limit: Option<usize>,
    /// Prefix each line with its number and a tab.
    #[tool(default = false)]
    include_line_numbers: bool,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let ws = workspace(ctx)?.clone();
    let path = ws.resolve_read(path).map_err(|e| e.to_string())?;
    let text = read_text_in(&ws, &path).map_err(|e| match e {
        NotText::Io(e) => io_error("read", &path, &e),
        NotText::TooLarge(n) => format!(
            "{} is {n} bytes, over the {MAX_READ_BYTES}-byte limit of read_file; use grep to find the part you need",
            path.display()
        ),
        NotText::Binary => format!("{} is not a text file", path.display()),
    })?;
    let mut out = String::new();
    let lines = text.split_inclusive('\n').enumerate().skip(line_offset);
    for (i, line) in lines.take(line_limit.unwrap_or(usize::MAX)) {
        if include_line_numbers {
            out.push_str(&format!("{:>6}\t", i + 1));
        }
        out.push_str(line);
    }
    Ok(out)
}

/// Returns the agent's temporary directory, creating it on first use. Files there can be
/// written, moved and deleted without asking; it is removed when the workspace goes away.
#[tool]
fn temp_dir(#[tool(context)] ctx: &Ctx) -> Outcome {
    let ws = workspace(ctx)?;
    let dir = ws.temp_dir().map_err(|e| e.to_string())?;
    Ok(dir.display().to_string())
}

/// Writes text to a file, creating it or replacing its contents. Replacing a file outside the
/// temporary directory asks the user first.
#[tool]
fn write_file(
    /// The file.
    path: &str,
    /// The complete new contents.
    content: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let given = path;
    let (ws, path) = resolve(ctx, given)?;
    ws.write_file(given, &path, content.as_bytes())?;
    Ok(format!(
        "wrote {} bytes to {}",
        content.len(),
        path.display()
    ))
}

/// Creates a directory and any missing parents.
#[tool]
fn mkdir(
    /// The directory.
    path: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let (ws, path) = resolve(ctx, path)?;
    if path.is_dir() {
        return Ok(format!("{} already exists", path.display()));
    }
    // A directory that makes a git repository (objects/ or refs/ beside a HEAD) asks.
    ws.permit_new_dir(&path).map_err(|e| e.to_string())?;
    ws.create_dir_all(&path)
        .map_err(|e| io_error("create", &path, &e))?;
    Ok(format!("created {}", path.display()))
}

/// Moves or renames a file or directory. Moving something outside the temporary directory, or
/// onto an existing file, asks the user first.
#[tool(name = "move")]
fn move_path(
    /// What to move.
    src: &str,
    /// Where to; an existing directory receives it under its own name.
    dst: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let given = src;
    let (ws, src) = resolve(ctx, given)?;
    let (named, dst) = resolve_dst(ctx, dst)?;
    permit_named(&ws, given, &src)?;
    let src_meta = fs::symlink_metadata(&src).map_err(|e| io_error("move", &src, &e))?;
    let named = named.map(|n| landing_named(&n, &dst, &src));
    let dst = into_dir(&dst, &src)?;
    if src == ws.workdir() {
        return Err("the working directory itself cannot be moved".to_owned());
    }
    if src_meta.is_dir() && dst.starts_with(&src) {
        return Err(format!("cannot move {} into itself", src.display()));
    }
    // A credential file moved to another name would be read there without a question.
    let entries = tree(&src)?;
    permit_reads(&ws, &entries, &src, &dst)?;
    let replaces = fs::symlink_metadata(&dst).is_ok();
    if replaces && dst.is_dir() {
        return Err(format!("{} already exists", dst.display()));
    }
    if ws.in_temp(&dst) && !ws.in_temp(&src) {
        // The temporary directory goes with the workspace, and anything in it may be deleted
        // without a question: moving something there deletes it, and is asked as a deletion.
        ws.permit(
            &format!(
                "move {} into the temporary directory ({}), which is deleted with the workspace",
                src.display(),
                dst.display()
            ),
            &src,
            true,
        )
        .map_err(|e| e.to_string())?;
    } else if !ws.in_temp(&dst) {
        // Both sides are asked about: the file leaves `src` and appears at `dst`, and a grant
        // of one directory says nothing about the other. Where it appears is also checked as
        // a creation (or an overwrite) there: a hook directory or an executable asks every
        // time.
        let how = if replaces { " (replacing it)" } else { "" };
        ws.permit_both(
            &format!("move {} to {}{how}", src.display(), dst.display()),
            &src,
            &dst,
        )
        .map_err(|e| e.to_string())?;
        if replaces {
            permit_replace(&ws, &src_meta, &dst)?;
        } else {
            permit_new_tree(&ws, &entries, &src, &dst, named.as_deref())?;
        }
    }
    // A rename moves the tree as it is now: what appeared in it while the user was asked (a
    // parallel call writing the temporary directory, a background job) was judged by nobody.
    if !same_tree(&entries, &tree(&src)?) {
        return Err(format!(
            "{} changed while the move was being checked; nothing was moved (move it again)",
            src.display()
        ));
    }
    let (from, from_name) = ws.parent_of(&src).map_err(|e| io_error("move", &src, &e))?;
    let (to, to_name) = ws.parent_of(&dst).map_err(|e| io_error("move", &dst, &e))?;
    if let Err(e) = from.rename_to(from_name, &to, to_name) {
        // Across file systems (e.g. into the temporary directory): copy, then remove.
        if src_meta.is_file() && e.kind() == io::ErrorKind::CrossesDevices {
            let how = if replaces {
                Create::Replace
            } else {
                Create::New
            };
            copy_tree(&from, from_name, &to, to_name, how, &judged(&entries))
                .map_err(|e| io_error("copy", &src, &e))?;
            from.remove_file(from_name)
                .map_err(|e| io_error("remove", &src, &e))?;
        } else {
            return Err(io_error("move", &src, &e));
        }
    }
    Ok(format!("moved {} to {}", src.display(), dst.display()))
}

/// Copies a file, or a directory with everything in it (symbolic links are copied as links).
/// Copying onto an existing file outside the temporary directory asks the user first.
#[tool]
fn copy(
    /// What to copy.
    src: &str,
    /// Where to; an existing directory receives it under its own name.
    dst: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let given = src;
    let (ws, src) = resolve(ctx, given)?;
    let (named, dst) = resolve_dst(ctx, dst)?;
    permit_named(&ws, given, &src)?;
    let meta = fs::symlink_metadata(&src).map_err(|e| io_error("copy", &src, &e))?;
    let named = named.map(|n| landing_named(&n, &dst, &src));
    let dst = into_dir(&dst, &src)?;
    if meta.is_dir() && dst.starts_with(&src) {
        return Err(format!("cannot copy {} into itself", src.display()));
    }
    // The tree is walked once, before anything is copied: every link in it must still point
    // inside the workspace at its new place, and a credential file in it is asked about (a
    // copy under another name would be read without a question).
    let entries = tree(&src)?;
    check_links(&ws, &entries, &src, &dst)?;
    permit_reads(&ws, &entries, &src, &dst)?;
    let how = match fs::symlink_metadata(&dst) {
        Ok(m) if m.is_dir() => return Err(format!("{} already exists", dst.display())),
        Ok(_) => {
            permit_replace(&ws, &meta, &dst)?;
            Create::Replace
        }
        Err(_) => {
            permit_new_tree(&ws, &entries, &src, &dst, named.as_deref())?;
            Create::New
        }
    };
    let (from, from_name) = ws.parent_of(&src).map_err(|e| io_error("copy", &src, &e))?;
    let (to, to_name) = ws.parent_of(&dst).map_err(|e| io_error("copy", &dst, &e))?;
    let n = copy_tree(&from, from_name, &to, to_name, how, &judged(&entries))
        .map_err(|e| io_error("copy", &src, &e))?;
    Ok(format!(
        "copied {} to {} ({n} file{})",
        src.display(),
        dst.display(),
        if n == 1 { "" } else { "s" }
    ))
}

/// Asks before a copy or move of `src` (its metadata `src_meta`) replaces the existing file
/// `dst`: as an overwrite ([`Workspace::permit_overwrite`]), and, when an executable replaces
/// a file that is not one, as a new executable is asked about (every time, default no).
fn permit_replace(ws: &Workspace, src_meta: &fs::Metadata, dst: &Path) -> Outcome<()> {
    ws.permit_overwrite(dst).map_err(|e| e.to_string())?;
    let was_executable = fs::symlink_metadata(dst).is_ok_and(|m| executable(&m));
    if src_meta.is_file() && executable(src_meta) && !was_executable {
        let why = ws
            .runs_beyond_checks(dst, true)
            .unwrap_or_else(|| "an executable file".to_owned());
        ws.ask_every_time(
            &format!(
                "overwrite {} with an executable file ({why})",
                dst.display()
            ),
            dst,
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// What the check of a tree judged, per entry: whether it was a directory and whether an
/// executable file. [`copy_tree`] copies those entries only, as they were.
type Judged = std::collections::HashMap<PathBuf, (bool, bool)>;

/// The [`Judged`] form of a tree's entries (from [`tree`]).
fn judged(entries: &[(PathBuf, fs::Metadata)]) -> Judged {
    entries
        .iter()
        .map(|(path, meta)| {
            (
                path.clone(),
                (meta.is_dir(), meta.is_file() && executable(meta)),
            )
        })
        .collect()
}

/// True when two walks of a tree ([`tree`]) found the same entries, each of the same kind
/// (directory, link, file, executable file).
fn same_tree(a: &[(PathBuf, fs::Metadata)], b: &[(PathBuf, fs::Metadata)]) -> bool {
    let kinds = |entries: &[(PathBuf, fs::Metadata)]| -> std::collections::HashMap<PathBuf, (bool, bool, bool)> {
        entries
            .iter()
            .map(|(path, meta)| {
                (
                    path.clone(),
                    (
                        meta.is_dir(),
                        meta.file_type().is_symlink(),
                        meta.is_file() && executable(meta),
                    ),
                )
            })
            .collect()
    };
    a.len() == b.len() && kinds(a) == kinds(b)
}

/// Resolves the destination `given` of a copy or move, with the name as given when a link on
/// the way leads elsewhere ([`Workspace::named_elsewhere`]).
fn resolve_dst(ctx: &Ctx, given: &str) -> Outcome<(Option<PathBuf>, PathBuf)> {
    let (ws, dst) = resolve(ctx, given)?;
    Ok((ws.named_elsewhere(given, &dst), dst))
}

/// The name given for a destination (`named`, resolved to `dst`) where `src` lands, as
/// [`into_dir`] places it.
fn landing_named(named: &Path, dst: &Path, src: &Path) -> PathBuf {
    match (dst.is_dir(), src.file_name()) {
        (true, Some(name)) => named.join(name),
        _ => named.to_path_buf(),
    }
}

/// `dst`, or `dst/<name of src>` when `dst` is an existing directory.
fn into_dir(dst: &Path, src: &Path) -> Outcome<PathBuf> {
    if dst.is_dir() {
        let name = src
            .file_name()
            .ok_or_else(|| format!("{} has no name to copy under", src.display()))?;
        Ok(dst.join(name))
    } else {
        Ok(dst.to_path_buf())
    }
}

/// The most directory levels `copy` and `move` walk below their source; a deeper tree is
/// refused before anything changes (the copy itself recurses once per level).
pub const MAX_TREE_DEPTH: usize = 256;

/// Every entry of the tree at `root`, itself included, with its `lstat` metadata (links not
/// followed), walked with an explicit stack; a tree nested deeper than [`MAX_TREE_DEPTH`] is
/// an error.
fn tree(root: &Path) -> Outcome<Vec<(PathBuf, fs::Metadata)>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((path, depth)) = stack.pop() {
        let meta = fs::symlink_metadata(&path).map_err(|e| io_error("read", &path, &e))?;
        if meta.is_dir() {
            if depth >= MAX_TREE_DEPTH {
                return Err(format!(
                    "{} is nested more than {MAX_TREE_DEPTH} directories deep; nothing was changed",
                    root.display()
                ));
            }
            for entry in fs::read_dir(&path).map_err(|e| io_error("read", &path, &e))? {
                let entry = entry.map_err(|e| io_error("read", &path, &e))?;
                stack.push((entry.path(), depth + 1));
            }
        }
        out.push((path, meta));
    }
    Ok(out)
}

/// Where `path`, an entry of the tree at `src`, lands when the tree is copied or moved to
/// `dst` (`src` itself lands at `dst`).
fn landing(path: &Path, src: &Path, dst: &Path) -> PathBuf {
    let below = path.strip_prefix(src).unwrap_or(Path::new(""));
    if below.as_os_str().is_empty() {
        dst.to_path_buf()
    } else {
        dst.join(below)
    }
}

/// Asks before copying or moving `src` (resolved from `given`) when only the name as given is
/// a credential file's (a link `.env` -> `env/production`): the tree walk sees the target.
fn permit_named(ws: &Workspace, given: &str, src: &Path) -> Outcome<()> {
    if ws.credential(src).is_none() {
        ws.resolve_read(given).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Asks about each credential file of a tree (`entries`, from `src`) before it is copied or
/// moved to `dst` (see [`Workspace::permit_read`]), unless its new place is a credential
/// file's place too (`app/.env` moved to `app2/.env` is still asked about when read).
fn permit_reads(
    ws: &Workspace,
    entries: &[(PathBuf, fs::Metadata)],
    src: &Path,
    dst: &Path,
) -> Outcome<()> {
    for (path, meta) in entries {
        if !meta.is_file() || ws.credential(path).is_none() {
            continue;
        }
        let new = landing(path, src, dst);
        if ws.credential(&new).is_none() {
            ws.permit_read(path).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Refuses the copy of `src` to `dst` when a symbolic link in its tree (`entries`), copied
/// as a link, would point outside the workspace from its new place (a relative link means
/// something else there; a dangling one would lead a later write outside).
fn check_links(
    ws: &Workspace,
    entries: &[(PathBuf, fs::Metadata)],
    src: &Path,
    dst: &Path,
) -> Outcome<()> {
    for (path, meta) in entries {
        if !meta.file_type().is_symlink() {
            continue;
        }
        let new = landing(path, src, dst);
        let target = fs::read_link(path).map_err(|e| io_error("copy", path, &e))?;
        // The leading `..` of a relative target climb from the new link's directory, which is
        // resolved or new (a real directory copy makes): taken here, not by `resolve` (which
        // refuses `..` after a name that does not exist yet).
        let mut lands = new.parent().unwrap_or(&new).to_path_buf();
        let mut rest = target.components().peekable();
        while rest.next_if_eq(&Component::ParentDir).is_some() {
            lands.pop();
        }
        lands.extend(rest);
        let inside = lands.to_str().is_some_and(|p| ws.resolve(p).is_ok());
        if !inside {
            return Err(format!(
                "{} is a symbolic link to {}, which at {} would point outside the agent's workspace; nothing was copied",
                path.display(),
                target.display(),
                new.display()
            ));
        }
    }
    Ok(())
}

/// Asks before a tree (`entries`, from `src`) appears at the new name `dst` when any of its
/// entries, at its new place, is not free to create ([`Workspace::why_ask_to_create`]): `dst`
/// itself, then every file (an executable one asks) and directory below it, judged beside the
/// entries of its source directory (its new directory does not exist yet). One question names
/// what asks. With `named`, the name the model gave for `dst` through a link, the tree is
/// judged at that name too, and a question it raises is asked even in the temporary
/// directory (the link makes what lands there read).
fn permit_new_tree(
    ws: &Workspace,
    entries: &[(PathBuf, fs::Metadata)],
    src: &Path,
    dst: &Path,
    named: Option<&Path>,
) -> Outcome<()> {
    let mut why = Vec::new();
    if let Some(named) = named {
        for (path, meta) in entries {
            let new = landing(path, src, named);
            let entry = if meta.is_dir() {
                NewEntry::Dir
            } else {
                NewEntry::File { executable: false }
            };
            if let Some(reason) = ws.why_ask_by_name(&new, entry) {
                why.push(format!("{}: {reason}", new.display()));
            }
        }
    }
    let by_name = !why.is_empty();
    tree_reasons(ws, entries, src, dst, &mut why);
    let Some(first) = why.first() else {
        return Ok(());
    };
    let more = match why.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let action = format!(
        "create {} from {} ({first}{more})",
        dst.display(),
        src.display()
    );
    if by_name {
        ws.ask_always(&action)
    } else {
        ws.ask_every_time(&action, dst)
    }
    .map_err(|e| e.to_string())
}

/// Why each entry of a tree (`entries`, from `src`) would ask at its place below `dst`, as
/// `path: reason` lines pushed to `why` (see [`permit_new_tree`]).
fn tree_reasons(
    ws: &Workspace,
    entries: &[(PathBuf, fs::Metadata)],
    src: &Path,
    dst: &Path,
    why: &mut Vec<String>,
) {
    let mut tops = Tops::default();
    for (path, meta) in entries {
        let new = landing(path, src, dst);
        let entry = if meta.is_dir() {
            NewEntry::Dir
        } else {
            NewEntry::File {
                executable: meta.is_file() && executable(meta),
            }
        };
        let reason = match (new == dst, entry) {
            // The new root of a tree, against the repository's hooks path too (a tree made
            // above the hooks directory may hold it); its entries are judged by their names.
            (true, NewEntry::Dir) => ws
                .runs_beyond_checks(dst, false)
                .or_else(|| ws.why_ask_to_create(dst, entry)),
            (true, NewEntry::File { .. }) => ws.why_ask_to_create(dst, entry),
            (false, _) => ws.why_ask_to_create_in(&new, entry, path.parent(), &mut tops),
        };
        if let Some(reason) = reason {
            why.push(format!("{}: {reason}", new.display()));
        }
    }
}

/// Copies `from/src` to `to/dst` without following symbolic links (they are copied as links,
/// checked first by [`check_links`]); returns how many files it copied. Only `dst` itself may
/// exist, with `how` [`Create::Replace`]. Only the entries the check saw (`judged`) are
/// copied: one that appeared since (another call writing in the temporary directory) is
/// left out, and one that became a directory, or an executable, fails the copy.
fn copy_tree(
    from: &Dir,
    src: &std::ffi::OsStr,
    to: &Dir,
    dst: &std::ffi::OsStr,
    how: Create,
    judged: &Judged,
) -> io::Result<usize> {
    let path = from.path().join(src);
    let Some(&(was_dir, was_executable)) = judged.get(&path) else {
        return Ok(0);
    };
    let changed = || {
        io::Error::other(format!(
            "{} changed while it was copied; copy it again",
            path.display()
        ))
    };
    let meta = fs::symlink_metadata(&path)?;
    if meta.is_dir() != was_dir {
        return Err(changed());
    }
    if meta.file_type().is_symlink() {
        copy_link(from, src, to, dst, how)?;
        Ok(1)
    } else if meta.is_dir() {
        let source = from.sub(src)?;
        to.mkdir(dst)?;
        let target = to.sub(dst)?;
        let mut n = 0;
        for entry in fs::read_dir(source.path())? {
            let name = entry?.file_name();
            n += copy_tree(&source, &name, &target, &name, Create::New, judged)?;
        }
        Ok(n)
    } else if meta.is_file() {
        let mut reader = from.open(src)?;
        let opened = reader.metadata()?;
        if executable(&opened) && !was_executable {
            return Err(changed());
        }
        let permissions = opened.permissions();
        let mut writer = to.create(dst, how, 0o600)?;
        io::copy(&mut reader, &mut writer)?;
        writer.set_permissions(permissions)?;
        Ok(1)
    } else {
        Err(io::Error::other("not a regular file, directory or link"))
    }
}

#[cfg(unix)]
fn copy_link(
    from: &Dir,
    src: &std::ffi::OsStr,
    to: &Dir,
    dst: &std::ffi::OsStr,
    how: Create,
) -> io::Result<()> {
    let target = fs::read_link(from.path().join(src))?;
    if how == Create::Replace {
        to.remove_file(dst)?;
    }
    to.symlink(&target, dst)
}

#[cfg(not(unix))]
fn copy_link(
    from: &Dir,
    src: &std::ffi::OsStr,
    _to: &Dir,
    _dst: &std::ffi::OsStr,
    _how: Create,
) -> io::Result<()> {
    Err(io::Error::other(format!(
        "{} is a symbolic link, which is not copied here",
        from.path().join(src).display()
    )))
}

/// Deletes a file or a directory with everything in it. Outside the temporary directory it
/// asks the user first (default no).
#[tool]
fn delete(
    /// What to delete.
    path: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let ws = workspace(ctx)?.clone();
    // The link itself is deleted, not what it points to: resolve the parent only.
    let given = Path::new(path);
    let parent = given.parent().filter(|p| !p.as_os_str().is_empty());
    let name = given
        .file_name()
        .ok_or_else(|| format!("{path:?} does not name a file to delete"))?;
    let dir = ws
        .resolve(parent.map_or(".", |p| p.to_str().unwrap_or("\0")))
        .map_err(|e| e.to_string())?;
    let path = dir.join(name);
    if !ws.contains(&path) || path == ws.workdir() || Some(path.as_path()) == ws.existing_temp_dir()
    {
        return Err(format!(
            "path {:?} is not within the agent's workspace",
            path.display().to_string()
        ));
    }
    let meta = fs::symlink_metadata(&path).map_err(|e| io_error("delete", &path, &e))?;
    ws.permit(&format!("delete {}", path.display()), &path, true)
        .map_err(|e| e.to_string())?;
    let (held, name) = ws
        .parent_of(&path)
        .map_err(|e| io_error("delete", &path, &e))?;
    if meta.is_dir() {
        held.remove_tree(name)
            .map_err(|e| io_error("delete", &path, &e))?;
    } else {
        held.remove_file(name)
            .map_err(|e| io_error("delete", &path, &e))?;
    }
    Ok(format!("deleted {}", path.display()))
}

/// Which entries `glob` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    /// Files and directories.
    Any,
    /// Files only.
    File,
    /// Directories only.
    Directory,
}

/// What `glob` and `grep` return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The search root, absolute.
    pub root: String,
    /// Paths relative to the root (`grep`: `path:line:text`, or paths alone).
    pub matches: Vec<String>,
    /// Set when the search stopped at its limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// `grep`: the credential files (the analyser's `[sensitive]` table) that were not
    /// searched, relative to the root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// A shell-style pattern (`*.rs`, `src/**/mod.rs`, `{a,b}.txt`): matched against the entry's
/// name, or against its path below the root when the pattern holds a `/`.
struct NamePattern {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl NamePattern {
    fn new(pattern: &str) -> Outcome<NamePattern> {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("bad pattern {pattern:?}: {e}"))?;
        Ok(NamePattern {
            matcher: glob.compile_matcher(),
            whole_path: pattern.contains('/'),
        })
    }

    fn matches(&self, relative: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            relative
                .file_name()
                .is_some_and(|n| self.matcher.is_match(Path::new(n)))
        }
    }
}

/// Walks `root` (a directory or one file) in sorted order without following links, skipping
/// `.git` and, with `skip_ignored`, what .gitignore and .ignore files exclude. Hidden files
/// are included.
fn walk(root: &Path, skip_ignored: bool) -> ignore::Walk {
    WalkBuilder::new(root)
        .standard_filters(false)
        .git_ignore(skip_ignored)
        .git_exclude(skip_ignored)
        .ignore(skip_ignored)
        .parents(skip_ignored)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| e.file_name() != ".git")
        .build()
}

/// Finds files and directories below a directory whose names match a shell pattern
/// (`*.rs`; a pattern with `/`, like `src/**/*.rs`, matches the path below the root). Paths
/// are returned relative to the root; .gitignore'd files are skipped unless `skip_ignored` is
/// false.
#[tool]
fn glob(
    /// The directory to search.
    #[tool(default = ".")]
    path: &str,
    /// The shell pattern.
    #[tool(default = "*")]
    name_pattern: &str,
    /// `any`, `file` or `directory`.
    #[tool(default = "any")]
    file_type: FileType,
    /// Skip what .gitignore excludes.
    #[tool(default = true)]
    skip_ignored: bool,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Found> {
    let (ws, root) = resolve(ctx, path)?;
    let pattern = NamePattern::new(name_pattern)?;
    let mut matches = Vec::new();
    let mut truncated = None;
    for entry in walk(&root, skip_ignored) {
        ctx.check_cancelled()
            .map_err(|c| format!("cancelled: {}", c.reason))?;
        let Ok(entry) = entry else { continue };
        if entry.path_is_symlink() {
            ws.note_link(entry.path());
        }
        let Ok(relative) = entry.path().strip_prefix(&root) else {
            continue;
        };
        if relative.as_os_str().is_empty() {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let wanted = match file_type {
            FileType::Any => true,
            FileType::File => !is_dir,
            FileType::Directory => is_dir,
        };
        if wanted && pattern.matches(relative) {
            if matches.len() == MAX_GLOB {
                truncated = Some(format!("stopped after {MAX_GLOB} paths"));
                break;
            }
            matches.push(relative.to_string_lossy().into_owned());
        }
    }
    Ok(Found {
        root: root.display().to_string(),
        matches,
        truncated,
        skipped: None,
    })
}

/// Searches file contents below a directory (or in one file) for a regular expression (or a
/// literal text with `regex` false). Returns `path:line:text` for each matching line, or only
/// the paths of matching files without `include_content`. Binary files, files over 8 MiB,
/// credential files (`.env`, private keys: read them with `read_file`, which asks the user)
/// and .gitignore'd files (unless `skip_ignored` is false) are skipped.
#[tool]
fn grep(
    /// The directory or file to search.
    path: &str,
    /// What to look for.
    pattern: &str,
    /// Only files whose names match this shell pattern.
    #[tool(default = "*")]
    file_pattern: &str,
    /// Return the matching lines; false returns only the paths of matching files.
    #[tool(default = true)]
    include_content: bool,
    /// Read `pattern` as a regular expression; false searches for it literally.
    #[tool(default = true)]
    regex: bool,
    /// Skip what .gitignore excludes.
    #[tool(default = true)]
    skip_ignored: bool,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Found> {
    let given = path;
    let (ws, root) = resolve(ctx, given)?;
    // Files are judged under the names given too (`.env` a link to `env/production`).
    let named_root = ws.lexical(given);
    let names = NamePattern::new(file_pattern)?;
    let text = if regex {
        pattern.to_owned()
    } else {
        regex_syntax_escape(pattern)
    };
    let matcher = RegexMatcherBuilder::new()
        .build(&text)
        .map_err(|e| format!("bad pattern {pattern:?}: {e}"))?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut matches = Vec::new();
    let mut truncated = None;
    let mut skipped = Vec::new();
    // The whole walk first: a link with a credential file's name anywhere in it guards the
    // file it leads to, which the walk may reach before the link.
    let mut files = Vec::new();
    for entry in walk(&root, skip_ignored) {
        ctx.check_cancelled()
            .map_err(|c| format!("cancelled: {}", c.reason))?;
        let Ok(entry) = entry else { continue };
        if entry.path_is_symlink() {
            ws.note_link(entry.path());
        } else if entry.file_type().is_some_and(|t| t.is_file()) {
            files.push(entry);
        }
    }
    'files: for entry in files {
        ctx.check_cancelled()
            .map_err(|c| format!("cancelled: {}", c.reason))?;
        let relative = match entry.path().strip_prefix(&root) {
            Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
            // The root is the file itself.
            _ => PathBuf::from(entry.file_name()),
        };
        if !names.matches(&relative) || entry.metadata().map_or(true, |m| m.len() > MAX_GREP_FILE) {
            continue;
        }
        let shown = relative.to_string_lossy().into_owned();
        // Under the name given only when a link on the way makes it another.
        let named = (named_root != root).then(|| {
            if entry.path() == root {
                named_root.clone()
            } else {
                named_root.join(&relative)
            }
        });
        if ws.credential(entry.path()).is_some()
            || named.is_some_and(|named| ws.sensitive(&named).is_some())
        {
            skipped.push(shown);
            continue;
        }
        let mut hits = Vec::new();
        let mut full = false;
        let budget = MAX_GREP - matches.len();
        let searched = searcher.search_path(
            &matcher,
            entry.path(),
            Lossy(|line_number, line| {
                if hits.len() == budget {
                    full = true;
                    return Ok(false);
                }
                hits.push((line_number, cut(line.trim_end_matches(['\n', '\r']))));
                Ok(include_content)
            }),
        );
        if searched.is_err() {
            continue;
        }
        if include_content {
            matches.extend(
                hits.into_iter()
                    .map(|(n, line)| format!("{shown}:{n}:{line}")),
            );
        } else if !hits.is_empty() {
            matches.push(shown);
        }
        if full || matches.len() >= MAX_GREP {
            truncated = Some(format!("stopped after {MAX_GREP} matches"));
            break 'files;
        }
    }
    let skipped = (!skipped.is_empty()).then(|| {
        let shown = skipped.len().min(MAX_SKIPPED_NAMED);
        let more = match skipped.len() - shown {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        format!(
            "{} credential file{} not searched (read one with read_file, which asks the user): {}{more}",
            skipped.len(),
            if skipped.len() == 1 { " was" } else { "s were" },
            skipped[..shown].join(", ")
        )
    });
    Ok(Found {
        root: root.display().to_string(),
        matches,
        truncated,
        skipped,
    })
}

/// `line` cut to [`MAX_GREP_LINE`] bytes at a character boundary.
fn cut(line: &str) -> String {
    if line.len() <= MAX_GREP_LINE {
        return line.to_owned();
    }
    let mut end = MAX_GREP_LINE;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// `text` with every regex metacharacter escaped, for a literal search.
fn regex_syntax_escape(text: &str) -> String {
    regex::escape(text)
}

/// Shows an image file of the workspace to you (PNG, JPEG, WebP or GIF, at most 10 MB): it
/// arrives as a message after this round's tool results, optionally cropped first, and scaled
/// down so its longer side is at most 1000 pixels.
#[tool(required_capabilities = ["vision"])]
fn request_image(
    /// The image file.
    src: &str,
    /// Only this rectangle of the image, in pixels of the original.
    crop: Option<Crop>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let ws = workspace(ctx)?.clone();
    let path = ws.resolve_read(src).map_err(|e| e.to_string())?;
    let meta = fs::metadata(&path).map_err(|e| io_error("read", &path, &e))?;
    if !meta.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    if meta.len() > crate::tool::MAX_IMAGE_BYTES as u64 {
        return Err(format!(
            "{} is {} bytes, over the {}-byte limit for images",
            path.display(),
            meta.len(),
            crate::tool::MAX_IMAGE_BYTES
        ));
    }
    let data = fs::read(&path).map_err(|e| io_error("read", &path, &e))?;
    let (image, fitted) = fit_image(data, crop).map_err(|e| format!("{}: {e}", path.display()))?;
    let (w, h) = fitted.sent;
    let (ow, oh) = fitted.original;
    let message = format!("{} ({w}x{h})", path.display());
    defer_tool_image(ctx, image.data, &message).map_err(|e| e.to_string())?;
    Ok(if (w, h) == (ow, oh) {
        format!("the image {} ({w}x{h}) follows", path.display())
    } else {
        format!(
            "the image {} follows at {w}x{h} (original {ow}x{oh})",
            path.display()
        )
    })
}

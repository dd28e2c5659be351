//! tool/groups/patch.rs: the `patch` group — `apply_patch`, a unified diff (as `git diff` or
//! `diff -u` writes it) applied to existing regular text files of the workspace, all or
//! nothing: every hunk of every file is checked against the files before any file is written,
//! and a change outside the temporary directory asks, as `write_file` does. Creating,
//! deleting, renaming, mode changes and binary patches are refused with the reason.

use std::fs;
use std::path::{Path, PathBuf};

use crate::tool::{Tool, ToolCallContext, Workspace, tool};

/// The largest file `apply_patch` changes, in bytes.
pub const MAX_FILE: u64 = 8 * 1024 * 1024;
/// How far from its stated line a hunk may have moved and still apply, in lines.
pub const MAX_OFFSET: usize = 1000;

/// The tools of the group.
pub fn tools() -> Vec<Tool> {
    vec![apply_patch_tool()]
}

type Ctx = ToolCallContext<()>;

/// Applies a unified diff (as `git diff` writes it) to existing text files below `directory`.
/// Either every hunk applies and every file is written, or nothing is written and the error
/// says which hunk failed. New, deleted, renamed and binary files are not supported.
#[tool]
fn apply_patch(
    /// The patch text.
    patch: &str,
    /// The directory the patch's paths are relative to, inside the workspace.
    #[tool(default = ".")]
    directory: &str,
    #[tool(context)] ctx: &Ctx,
) -> Result<String, String> {
    let ws = super::agent_workspace(ctx)?.clone();
    let root = ws.resolve(directory).map_err(|e| e.to_string())?;
    if !root.is_dir() {
        return Err(format!("{} is not a directory", root.display()));
    }
    let files = parse(patch)?;
    if files.is_empty() {
        return Err("the patch holds no file changes (no `--- a/…`/`+++ b/…` headers)".to_owned());
    }
    // Check everything first.
    let mut planned: Vec<(PathBuf, String, usize)> = Vec::new();
    for file in &files {
        let path = confine(&ws, &root, &file.path)?;
        if planned.iter().any(|(p, _, _)| *p == path) {
            return Err(format!("{} appears twice in the patch", file.path));
        }
        let old = read_text(&path)?;
        let new = apply(&old, file).map_err(|why| format!("{}: {why}", file.path))?;
        planned.push((path, new, file.hunks.len()));
    }
    // Then ask, once per file, before writing anything.
    for (path, _, _) in &planned {
        ws.permit(&format!("patch {}", path.display()), path, false)
            .map_err(|e| e.to_string())?;
    }
    let mut report = Vec::new();
    for (path, new, hunks) in &planned {
        write_atomically(path, new)?;
        report.push(format!(
            "patched {} ({hunks} hunk{})",
            path.display(),
            if *hunks == 1 { "" } else { "s" }
        ));
    }
    Ok(report.join("\n"))
}

/// The file `name` below `root`, which must stay below it (and in the workspace) once
/// symlinks are resolved.
fn confine(ws: &Workspace, root: &Path, name: &str) -> Result<PathBuf, String> {
    if Path::new(name).is_absolute() {
        return Err(format!(
            "{name}: an absolute path in a patch is not applied"
        ));
    }
    let joined = root.join(name);
    let path = ws
        .resolve(&joined.to_string_lossy())
        .map_err(|e| e.to_string())?;
    if !path.starts_with(root) {
        return Err(format!(
            "{name}: resolves to {}, outside {}",
            path.display(),
            root.display()
        ));
    }
    Ok(path)
}

fn read_text(path: &Path) -> Result<String, String> {
    let meta = fs::symlink_metadata(path).map_err(|e| {
        format!(
            "{}: {e} (apply_patch changes existing files only)",
            path.display()
        )
    })?;
    let meta = if meta.file_type().is_symlink() {
        fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?
    } else {
        meta
    };
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    if meta.len() > MAX_FILE {
        return Err(format!("{} is over {MAX_FILE} bytes", path.display()));
    }
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.contains(&0) {
        return Err(format!("{} is not a text file", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// Writes `text` next to `path` and renames it over, keeping the file's permissions.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.cmdguard-patch"));
    let perms = fs::metadata(path).map(|m| m.permissions()).ok();
    fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    if let Some(perms) = perms {
        let _ = fs::set_permissions(&tmp, perms);
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot replace {}: {e}", path.display())
    })
}

/// One file's changes.
#[derive(Debug, PartialEq)]
struct FilePatch {
    path: String,
    hunks: Vec<Hunk>,
}

/// One hunk: where it starts in the old file (1-based) and its lines.
#[derive(Debug, PartialEq)]
struct Hunk {
    old_start: usize,
    lines: Vec<Line>,
    /// `\ No newline at end of file` after the old side's last line.
    old_no_eol: bool,
    /// … after the new side's last line.
    new_no_eol: bool,
}

#[derive(Debug, PartialEq)]
enum Line {
    Context(String),
    Remove(String),
    Add(String),
}

/// Header lines that announce what this tool does not do.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("new file mode", "creates a file"),
    ("deleted file mode", "deletes a file"),
    ("rename from", "renames a file"),
    ("rename to", "renames a file"),
    ("copy from", "copies a file"),
    ("old mode", "changes a file's mode"),
    ("new mode", "changes a file's mode"),
    ("GIT binary patch", "is a binary patch"),
    ("Binary files", "is a binary patch"),
];

/// Reads a unified diff into file patches, checking every count.
fn parse(patch: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = patch.lines().collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some((_, what)) = UNSUPPORTED.iter().find(|(p, _)| line.starts_with(p)) {
            return Err(format!("the patch {what} (line {}): not supported", i + 1));
        }
        if line.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")) {
            let old = header_path(&line[4..]);
            let new = header_path(&lines[i + 1][4..]);
            let path = match (old, new) {
                (None, _) => {
                    return Err(format!(
                        "line {}: the patch creates a file: not supported",
                        i + 1
                    ));
                }
                (_, None) => {
                    return Err(format!(
                        "line {}: the patch deletes a file: not supported",
                        i + 1
                    ));
                }
                (Some(o), Some(n)) if o != n => {
                    return Err(format!(
                        "line {}: the patch renames {o} to {n}: not supported",
                        i + 1
                    ));
                }
                (Some(p), Some(_)) => p,
            };
            files.push(FilePatch {
                path,
                hunks: Vec::new(),
            });
            i += 2;
            continue;
        }
        if line.starts_with("@@") {
            let Some(file) = files.last_mut() else {
                return Err(format!(
                    "line {}: a hunk before any `---`/`+++` header",
                    i + 1
                ));
            };
            let (hunk, next) = parse_hunk(&lines, i)?;
            file.hunks.push(hunk);
            i = next;
            continue;
        }
        i += 1;
    }
    if let Some(empty) = files.iter().find(|f| f.hunks.is_empty()) {
        return Err(format!("{}: a file header without hunks", empty.path));
    }
    Ok(files)
}

/// `a/src/x.rs` → `src/x.rs`; `/dev/null` → `None`. A tab ends the name (diff -u adds the
/// time after it).
fn header_path(text: &str) -> Option<String> {
    let name = text.split('\t').next().unwrap_or("").trim_end();
    if name == "/dev/null" {
        return None;
    }
    let name = name
        .strip_prefix("a/")
        .or_else(|| name.strip_prefix("b/"))
        .unwrap_or(name);
    Some(name.to_owned())
}

/// `@@ -a[,b] +c[,d] @@` and the lines that follow, counted against b and d.
fn parse_hunk(lines: &[&str], at: usize) -> Result<(Hunk, usize), String> {
    let bad = || format!("line {}: a malformed hunk header {:?}", at + 1, lines[at]);
    let header = lines[at];
    let inner = header
        .strip_prefix("@@ -")
        .and_then(|r| r.split(" @@").next())
        .ok_or_else(bad)?;
    let (old, new) = inner.split_once(" +").ok_or_else(bad)?;
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_len) = range(old).ok_or_else(bad)?;
    let (_, new_len) = range(new).ok_or_else(bad)?;
    let mut hunk = Hunk {
        old_start,
        lines: Vec::new(),
        old_no_eol: false,
        new_no_eol: false,
    };
    let (mut seen_old, mut seen_new) = (0, 0);
    let mut i = at + 1;
    while i < lines.len() && (seen_old < old_len || seen_new < new_len) {
        let line = lines[i];
        let (kind, text) = line.split_at(line.len().min(1));
        match kind {
            " " | "" => {
                hunk.lines.push(Line::Context(text.to_owned()));
                seen_old += 1;
                seen_new += 1;
            }
            "-" => {
                hunk.lines.push(Line::Remove(text.to_owned()));
                seen_old += 1;
            }
            "+" => {
                hunk.lines.push(Line::Add(text.to_owned()));
                seen_new += 1;
            }
            "\\" => {}
            _ => {
                return Err(format!(
                    "line {}: the hunk at line {} ends early ({seen_old} of {old_len} old lines, {seen_new} of {new_len} new)",
                    i + 1,
                    at + 1
                ));
            }
        }
        i += 1;
        // `\ No newline at end of file` belongs to the line just read.
        if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
            match hunk.lines.last() {
                Some(Line::Remove(_)) => hunk.old_no_eol = true,
                Some(Line::Add(_)) => hunk.new_no_eol = true,
                _ => {
                    hunk.old_no_eol = true;
                    hunk.new_no_eol = true;
                }
            }
            i += 1;
        }
    }
    if seen_old != old_len || seen_new != new_len {
        return Err(format!(
            "the hunk at line {} is cut short ({seen_old} of {old_len} old lines, {seen_new} of {new_len} new)",
            at + 1
        ));
    }
    Ok((hunk, i))
}

/// The file's text with every hunk applied, or which hunk does not apply and why.
fn apply(old: &str, file: &FilePatch) -> Result<String, String> {
    let ends_with_newline = old.ends_with('\n') || old.is_empty();
    let src: Vec<&str> = old.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut pos = 0; // next line of `src` not yet copied
    let mut last_new_no_eol = !ends_with_newline;
    for (n, hunk) in file.hunks.iter().enumerate() {
        let want: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Remove(t) => Some(t.as_str()),
                Line::Add(_) => None,
            })
            .collect();
        let stated = hunk.old_start.saturating_sub(1).max(pos);
        let at = find(&src, &want, stated, pos).ok_or_else(|| {
            format!(
                "hunk {} (at line {}) does not apply: its context and removed lines are not in the file{}",
                n + 1,
                hunk.old_start,
                if pos > 0 { " after the previous hunk" } else { "" }
            )
        })?;
        out.extend(src[pos..at].iter().map(|s| (*s).to_owned()));
        for line in &hunk.lines {
            match line {
                Line::Context(t) | Line::Add(t) => out.push(t.clone()),
                Line::Remove(_) => {}
            }
        }
        pos = at + want.len();
        if pos == src.len() {
            if hunk.old_no_eol == ends_with_newline && !want.is_empty() {
                return Err(format!(
                    "hunk {}: the file's last line {} a newline, the patch says otherwise",
                    n + 1,
                    if ends_with_newline {
                        "ends with"
                    } else {
                        "does not end with"
                    }
                ));
            }
            last_new_no_eol = hunk.new_no_eol;
        }
    }
    out.extend(src[pos..].iter().map(|s| (*s).to_owned()));
    let mut text = out.join("\n");
    if !out.is_empty() && !last_new_no_eol {
        text.push('\n');
    }
    Ok(text)
}

/// Where `want` occurs in `src` at or after `min`, nearest to `stated` (at most
/// [`MAX_OFFSET`] lines away).
fn find(src: &[&str], want: &[&str], stated: usize, min: usize) -> Option<usize> {
    let fits =
        |at: usize| at >= min && at + want.len() <= src.len() && src[at..at + want.len()] == *want;
    (0..=MAX_OFFSET).find_map(|d| {
        [stated.checked_add(d), stated.checked_sub(d)]
            .into_iter()
            .flatten()
            .find(|&at| fits(at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(patch: &str) -> FilePatch {
        parse(patch).unwrap().remove(0)
    }

    #[test]
    fn hunks_apply_at_their_line_or_moved() {
        let p = one("--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n");
        assert_eq!(apply("a\nb\nc\nd\n", &p).unwrap(), "a\nb\nC\nd\n");
        assert_eq!(
            apply("x\ny\na\nb\nc\nd\n", &p).unwrap(),
            "x\ny\na\nb\nC\nd\n"
        );
        assert!(apply("a\nb\nX\nd\n", &p).unwrap_err().contains("hunk 1"));
    }

    #[test]
    fn missing_final_newlines_are_kept_or_changed_as_the_patch_says() {
        let p = one("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n");
        assert_eq!(apply("a", &p).unwrap(), "b\n");
        assert!(apply("a\n", &p).is_err());
        let q =
            one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-a\n+b\n\\ No newline at end of file\n");
        assert_eq!(apply("x\na\n", &q).unwrap(), "x\nb");
    }

    #[test]
    fn what_the_tool_does_not_do_is_refused_by_name() {
        for (patch, says) in [
            (
                "diff --git a/f b/f\nnew file mode 100644\n",
                "creates a file",
            ),
            (
                "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n",
                "creates a file",
            ),
            (
                "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
                "deletes a file",
            ),
            ("--- a/f\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n", "renames"),
            ("diff --git a/f b/f\nold mode 100644\n", "mode"),
            ("diff --git a/f b/f\nGIT binary patch\n", "binary"),
            ("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n+y\n", "cut short"),
            ("--- a/f\n+++ b/f\n@@ nonsense @@\n", "malformed"),
            ("@@ -1 +1 @@\n-x\n+y\n", "before any"),
        ] {
            let e = parse(patch).unwrap_err();
            assert!(e.contains(says), "{patch:?}: {e}");
        }
    }
}

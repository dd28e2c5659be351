//! tool/groups/patch.rs: the `patch` group — `apply_patch`, a unified diff (as `git diff` or
//! `diff -u` writes it) applied to existing regular text files of the workspace, all or
//! nothing: every hunk of every file is checked against the files before any file is written,
//! and a change outside the temporary directory asks, as `write_file` does. Creating,
//! deleting, renaming, mode changes and binary patches are refused with the reason.
//!
//! Writing is all or nothing too, as far as the file system allows: every new text is first
//! written to a scratch file created exclusively (`O_EXCL`, a random name, never through a
//! link) next to its file, and only when all of them are written are they renamed over the
//! files; a failure before that removes every scratch file and changes nothing. A rename that
//! fails after others succeeded (the directory changed under the tool) is reported with the
//! files already replaced. Line endings are kept: unchanged lines keep theirs (`\r\n`, `\n`,
//! `\r`), added lines get the file's (that of its first line).

use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::tool::workspace::{Create, Dir};
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
    let mut planned: Vec<Planned> = Vec::new();
    for file in &files {
        let path = confine(&ws, &root, &file.path)?;
        if planned.iter().any(|p| p.path == path) {
            return Err(format!("{} appears twice in the patch", file.path));
        }
        let (dir, name) = ws
            .parent_of(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let name = name.to_os_string();
        // A patch's context must match the file: a credential file would be read through it,
        // under the name the patch gives (`.env`, a link to `env/production`) or its own.
        let given = Path::new(directory).join(&file.path);
        ws.permit_read_named(&given.to_string_lossy(), &path)
            .map_err(|e| e.to_string())?;
        let old = read_text(&dir, &name, &path)?;
        let new = apply(&old, file).map_err(|why| format!("{}: {why}", file.path))?;
        planned.push(Planned {
            path,
            dir,
            name,
            new,
            hunks: file.hunks.len(),
        });
    }
    // Then ask, once per file, before writing anything.
    for p in &planned {
        match ws.runs_beyond_checks(&p.path, false) {
            None => ws.permit(&format!("patch {}", p.path.display()), &p.path, false),
            Some(_) => ws.permit_overwrite(&p.path),
        }
        .map_err(|e| e.to_string())?;
    }
    // Write every new text to its scratch file; only then replace the files.
    let mut staged: Vec<OsString> = Vec::new();
    for p in &planned {
        match stage(p) {
            Ok(scratch) => staged.push(scratch),
            Err(e) => {
                for (p, scratch) in planned.iter().zip(&staged) {
                    let _ = p.dir.remove_file(scratch);
                }
                return Err(format!("{e}; no file was changed"));
            }
        }
    }
    let mut report = Vec::new();
    for (n, (p, scratch)) in planned.iter().zip(&staged).enumerate() {
        if let Err(e) = p.dir.rename(scratch, &p.name) {
            for (q, scratch) in planned.iter().zip(&staged).skip(n) {
                let _ = q.dir.remove_file(scratch);
            }
            let done: Vec<String> = planned[..n]
                .iter()
                .map(|q| q.path.display().to_string())
                .collect();
            return Err(format!(
                "cannot replace {}: {e}; {}",
                p.path.display(),
                if done.is_empty() {
                    "no file was changed".to_owned()
                } else {
                    format!("already patched: {}", done.join(", "))
                }
            ));
        }
        report.push(format!(
            "patched {} ({} hunk{})",
            p.path.display(),
            p.hunks,
            if p.hunks == 1 { "" } else { "s" }
        ));
    }
    Ok(report.join("\n"))
}

/// One file the patch changes, checked and ready to write.
struct Planned {
    path: PathBuf,
    /// Its directory, held open.
    dir: Dir,
    name: OsString,
    new: String,
    hunks: usize,
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

/// The text of the regular file `name` in `dir` (`path`, for messages), opened without
/// following a link.
fn read_text(dir: &Dir, name: &OsStr, path: &Path) -> Result<String, String> {
    let file = dir.open(name).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            format!(
                "{}: {e} (apply_patch changes existing files only)",
                path.display()
            )
        } else {
            format!("{}: {e}", path.display())
        }
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!("{} is over {MAX_FILE} bytes", path.display()));
    }
    if bytes.contains(&0) {
        return Err(format!("{} is not a text file", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// Writes the planned text to a new scratch file next to its file, created exclusively under
/// a random name (so nothing planted there is followed or reused), with the file's
/// permissions. Returns the scratch file's name; on failure nothing is left behind.
fn stage(p: &Planned) -> Result<OsString, String> {
    let original = p
        .dir
        .open(&p.name)
        .and_then(|f| f.metadata())
        .map_err(|e| format!("{}: {e}", p.path.display()))?;
    for _ in 0..16 {
        let scratch = OsString::from(format!(".cmdguard-patch-{:016x}", random()));
        let mut file = match p.dir.create(&scratch, Create::New, 0o600) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "cannot write a scratch file in {}: {e}",
                    p.dir.path().display()
                ));
            }
        };
        let written = file
            .write_all(p.new.as_bytes())
            .and_then(|()| file.set_permissions(original.permissions()))
            .and_then(|()| file.sync_all());
        return match written {
            Ok(()) => Ok(scratch),
            Err(e) => {
                let _ = p.dir.remove_file(&scratch);
                Err(format!(
                    "cannot write the new text of {}: {e}",
                    p.path.display()
                ))
            }
        };
    }
    Err(format!(
        "no free scratch name in {}",
        p.dir.path().display()
    ))
}

/// 64 bits nobody outside the process can predict (std's randomly keyed hasher, fed a
/// counter and the time), for scratch names.
fn random() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(NEXT.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(d.as_nanos());
    }
    hasher.finish()
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
    // Lines end at `\n` only: a `\r` before it belongs to the line (a CRLF file's diff).
    let lines: Vec<&str> = patch
        .split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .collect();
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
        let (kind, text) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
        match kind {
            // An empty context line whose space was trimmed (`\r` alone: a CRLF file's).
            " " | "" | "\r" => {
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

/// One line of a file: its text and how it ends (`\n`, `\r\n`, `\r`, or nothing for a last
/// line without a newline).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FileLine<'a> {
    text: &'a str,
    end: &'a str,
}

/// `text` cut into lines, each with its own ending; a lone `\r` ends a line too.
fn split_lines(text: &str) -> Vec<FileLine<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(at) = rest.find(['\n', '\r']) else {
            lines.push(FileLine {
                text: rest,
                end: "",
            });
            break;
        };
        let len = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
        lines.push(FileLine {
            text: &rest[..at],
            end: &rest[at..at + len],
        });
        rest = &rest[at + len..];
    }
    lines
}

/// A patch line's text as it is compared with the file's: without the `\r` of a CRLF diff.
fn bare(text: &str) -> &str {
    text.strip_suffix('\r').unwrap_or(text)
}

/// The file's text with every hunk applied, or which hunk does not apply and why. Lines the
/// patch does not change keep their own endings; added lines get the file's (its first
/// line's, `\n` when it has none).
fn apply(old: &str, file: &FilePatch) -> Result<String, String> {
    let src = split_lines(old);
    let ends_with_newline = src.last().is_none_or(|l| !l.end.is_empty());
    let newline = src
        .iter()
        .map(|l| l.end)
        .find(|e| !e.is_empty())
        .unwrap_or("\n");
    let texts: Vec<&str> = src.iter().map(|l| l.text).collect();
    let mut out: Vec<FileLine<'_>> = Vec::new();
    let mut pos = 0; // next line of `src` not yet copied
    // Whether the new text ends without a newline, once a hunk reached the file's end.
    let mut end_no_eol = None;
    for (n, hunk) in file.hunks.iter().enumerate() {
        let want: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Remove(t) => Some(bare(t)),
                Line::Add(_) => None,
            })
            .collect();
        let stated = hunk.old_start.saturating_sub(1).max(pos);
        let at = find(&texts, &want, stated, pos).ok_or_else(|| {
            format!(
                "hunk {} (at line {}) does not apply: its context and removed lines are not in the file{}",
                n + 1,
                hunk.old_start,
                if pos > 0 { " after the previous hunk" } else { "" }
            )
        })?;
        out.extend_from_slice(&src[pos..at]);
        let mut old_line = at;
        for line in &hunk.lines {
            match line {
                Line::Context(_) => {
                    out.push(src[old_line]);
                    old_line += 1;
                }
                Line::Remove(_) => old_line += 1,
                Line::Add(t) => out.push(FileLine {
                    text: bare(t),
                    end: newline,
                }),
            }
        }
        pos = old_line;
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
            end_no_eol = Some(hunk.new_no_eol);
        }
    }
    out.extend_from_slice(&src[pos..]);
    let last = out.len().saturating_sub(1);
    let mut text = String::with_capacity(old.len());
    for (i, line) in out.iter().enumerate() {
        text.push_str(line.text);
        let end = match (i == last, end_no_eol) {
            (true, Some(true)) => "",
            (true, None) => line.end,
            (true, Some(false)) | (false, _) if line.end.is_empty() => newline,
            (true, Some(false)) | (false, _) => line.end,
        };
        text.push_str(end);
    }
    Ok(text)
}

/// Where `want` occurs in `src` at or after `min`, nearest to `stated` (at most
/// [`MAX_OFFSET`] lines away).
fn find(src: &[&str], want: &[&str], stated: usize, min: usize) -> Option<usize> {
    let fits = |at: usize| {
        at >= min
            && at
                .checked_add(want.len())
                .and_then(|end| src.get(at..end))
                .is_some_and(|lines| lines == want)
    };
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
    use proptest::prelude::*;

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
    fn line_endings_are_kept_where_unchanged_and_taken_from_the_file_where_added() {
        // (file, patch body after the headers, expected)
        let table = [
            // A CRLF diff of a CRLF file.
            (
                "one\r\ntwo\r\nthree\r\n",
                "@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\r\n",
                "one\r\nTWO\r\nthree\r\n",
            ),
            // An LF diff (a model's) of a CRLF file: added lines take the file's CRLF.
            (
                "one\r\ntwo\r\nthree\r\n",
                "@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n",
                "one\r\nTWO\r\n2b\r\nthree\r\n",
            ),
            // Old Mac endings.
            ("a\rb\rc\r", "@@ -2 +2 @@\n-b\n+B\n", "a\rB\rc\r"),
            // Mixed: each unchanged line keeps its own.
            ("a\nb\r\nc\n", "@@ -1 +1 @@\n-a\n+A\n", "A\nb\r\nc\n"),
            // A line added after a last line without a newline gives it the file's newline.
            (
                "a\r\nb",
                "@@ -2 +2,2 @@\n-b\n\\ No newline at end of file\n+b\n+c\n",
                "a\r\nb\r\nc\r\n",
            ),
        ];
        for (old, body, want) in table {
            let p = one(&format!("--- a/f\n+++ b/f\n{body}"));
            assert_eq!(apply(old, &p).unwrap(), want, "{old:?} {body:?}");
        }
    }

    #[test]
    fn malformed_hunks_are_errors() {
        for (patch, says) in [
            (
                "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n\u{e9}b\n",
                "ends early",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -18446744073709551615,2 +1,2 @@\n a\n-b\n+c\n",
                "does not apply",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -1,18446744073709551615 +1 @@\n a\n",
                "cut short",
            ),
        ] {
            let e = parse(patch).and_then(|files| apply("a\nb\n", &files[0]));
            assert!(
                e.as_ref().is_err_and(|e| e.contains(says)),
                "{patch:?}: {e:?}"
            );
        }
    }

    proptest! {
        /// Any patch text, built from the pieces of real patches and noise, against any small
        /// file: an error or a text, never a panic.
        #[test]
        fn no_patch_text_makes_it_panic(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("--- a/f".to_owned()),
                    Just("+++ b/f".to_owned()),
                    Just("\\ No newline at end of file".to_owned()),
                    (0usize..4, 0usize..4, 0usize..4, 0usize..4)
                        .prop_map(|(a, b, c, d)| format!("@@ -{a},{b} +{c},{d} @@")),
                    Just(format!("@@ -{},1 +1 @@", usize::MAX)),
                    Just(format!("@@ -1,{} +1 @@", usize::MAX)),
                    "[ +-][abé\r]{0,3}",
                    "[é€][ab]{0,2}",
                    "\\PC{0,6}",
                ],
                0..24,
            ),
            old in "[ab\r\né]{0,12}",
            crlf in any::<bool>(),
        ) {
            let newline = if crlf { "\r\n" } else { "\n" };
            let patch = pieces.join(newline);
            if let Ok(files) = parse(&patch) {
                for file in &files {
                    let _ = apply(&old, file);
                }
            }
        }
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

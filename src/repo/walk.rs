//! repo/walk: a bounded walk of the tree a recursive reader would read (`grep -r`, `rg`,
//! `git grep --no-index`, `diff -r`, the names `find` or `ls` hand to `xargs`), honouring what
//! that reader skips: hidden entries, symlinks below the root, directories a `.gitignore`
//! names. It never decides what is sensitive — the caller's predicate does — and it stops
//! when it has seen too much, saying why, so the caller can fail closed.
//!
//! Every skip is one the real program makes too, and the walk skips less than the program
//! where the program's rule is too rich to copy: `.gitignore` lines are honoured only when they
//! are plain names, a file with a negation (`!x`) is not honoured at all, and global excludes
//! are never. Skipping less only makes the walk reach more.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Most entries looked at in one walk.
const MAX_ENTRIES: usize = 20_000;
/// Deepest directory below the root entered.
const MAX_DEPTH: usize = 24;
/// Longest one walk may take.
const MAX_TIME: Duration = Duration::from_millis(250);
/// Largest `.gitignore` read; a larger one is not honoured.
const MAX_IGNORE_BYTES: u64 = 64 << 10;

/// What a reader does with symlinks it meets below the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Skipped, files and directories alike (`grep -r`, `rg` without `-L`, `git grep`).
    Skip,
    /// Followed into directories and files (`grep -R`, `rg -L`, `diff -r`).
    Follow,
    /// Listed, not entered: a reader handed the name opens the file it leads to (`find` or
    /// `ls` feeding `xargs cat`).
    Open,
}

/// How one reader walks a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WalkRules {
    /// Reads entries whose name starts with `.` below the root.
    pub hidden: bool,
    pub links: Links,
    /// Skips the names a `.gitignore` lists, inside a git work tree (`rg`, `git grep
    /// --untracked`).
    pub gitignore: bool,
    /// Directory levels below the root read: `None` for all, `Some(1)` for the root's own
    /// entries (`ls`).
    pub levels: Option<usize>,
}

/// What a walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Walked {
    /// Every entry was looked at, and the predicate named none.
    Clean,
    /// The first entry the predicate named, as the reader would open it.
    Reached(PathBuf),
    /// The walk stopped before it had seen everything: why, as a phrase for a person.
    Stopped(String),
}

/// Walks `root` (absolute) as `rules` say, calling `sensitive(path, physical)` for every file
/// the reader would open — `path` as the reader names it, `physical` where it really is — and
/// stopping at the first one it names. The root itself is followed when it is a symlink, as
/// every reader follows its command-line operands.
pub(crate) fn walk(
    root: &Path,
    rules: &WalkRules,
    sensitive: &mut dyn FnMut(&Path, &Path) -> bool,
) -> Walked {
    let Ok(physical) = fs::canonicalize(root) else {
        // A root that does not exist is read by no one.
        return Walked::Clean;
    };
    if !physical.is_dir() {
        return if sensitive(root, &physical) {
            Walked::Reached(root.to_path_buf())
        } else {
            Walked::Clean
        };
    }
    // rg asks whether the root is in a work tree by the path it was given; the walk honours
    // `.gitignore` only when both that path and the physical one are.
    let in_repo = rules.gitignore
        && physical.ancestors().any(|a| a.join(".git").exists())
        && root.ancestors().any(|a| a.join(".git").exists());
    let mut w = Walker {
        rules,
        sensitive,
        entries: 0,
        deadline: Instant::now() + MAX_TIME,
        seen: HashSet::new(),
    };
    w.seen.insert(physical.clone());
    let frame = Frame {
        path: root.to_path_buf(),
        physical,
        depth: 0,
        in_repo,
        ignored: Vec::new(),
    };
    match w.dir(frame) {
        Ok(()) => Walked::Clean,
        Err(Stop::Reached(p)) => Walked::Reached(p),
        Err(Stop::Over(why)) => Walked::Stopped(why),
    }
}

enum Stop {
    Reached(PathBuf),
    Over(String),
}

struct Frame {
    path: PathBuf,
    physical: PathBuf,
    depth: usize,
    in_repo: bool,
    /// Names `.gitignore` files of this directory and its parents (inside the walk) list.
    ignored: Vec<Ignored>,
}

/// One plain-name line of a `.gitignore`.
#[derive(Clone)]
struct Ignored {
    name: String,
    /// `/name`: only in the directory of its `.gitignore`, at this depth.
    at_depth: Option<usize>,
    /// `name/`: only directories.
    dir_only: bool,
}

struct Walker<'a> {
    rules: &'a WalkRules,
    sensitive: &'a mut dyn FnMut(&Path, &Path) -> bool,
    entries: usize,
    deadline: Instant,
    /// Physical directories entered: a symlink loop ends.
    seen: HashSet<PathBuf>,
}

impl Walker<'_> {
    fn dir(&mut self, mut frame: Frame) -> Result<(), Stop> {
        let read = fs::read_dir(&frame.physical).map_err(|e| {
            Stop::Over(format!(
                "cannot list `{}` ({e})",
                frame.path.to_string_lossy()
            ))
        })?;
        let mut names: Vec<(String, fs::FileType)> = Vec::new();
        for entry in read {
            let entry = entry.map_err(|e| Stop::Over(format!("cannot list a directory ({e})")))?;
            self.count()?;
            let Ok(kind) = entry.file_type() else {
                return Err(Stop::Over(format!(
                    "cannot tell what `{}` is",
                    entry.path().to_string_lossy()
                )));
            };
            // A name that is not UTF-8 matches no sensitive pattern as text, but what it leads
            // to may: it is kept, read lossily.
            names.push((entry.file_name().to_string_lossy().into_owned(), kind));
        }
        if self.rules.gitignore {
            if !frame.in_repo && names.iter().any(|(n, _)| n == ".git") {
                frame.in_repo = true;
            }
            if frame.in_repo && names.iter().any(|(n, _)| n == ".gitignore") {
                frame
                    .ignored
                    .extend(ignore_file(&frame.physical.join(".gitignore"), frame.depth));
            }
        }
        for (name, kind) in names {
            if !self.rules.hidden && name.starts_with('.') {
                continue;
            }
            let is_dir_entry = kind.is_dir();
            if frame.in_repo && ignored(&frame.ignored, &name, frame.depth, is_dir_entry) {
                continue;
            }
            let path = frame.path.join(&name);
            let physical = frame.physical.join(&name);
            if kind.is_symlink() {
                match self.rules.links {
                    Links::Skip => continue,
                    Links::Open | Links::Follow => {
                        let Ok(real) = fs::canonicalize(&physical) else {
                            // A dangling link is opened by no one.
                            continue;
                        };
                        if real.is_dir() {
                            if self.rules.links == Links::Follow {
                                self.enter(&frame, path, real)?;
                            }
                        } else {
                            self.file(&path, &real)?;
                        }
                    }
                }
            } else if is_dir_entry {
                self.enter(&frame, path, physical)?;
            } else {
                self.file(&path, &physical)?;
            }
        }
        Ok(())
    }

    fn enter(&mut self, parent: &Frame, path: PathBuf, physical: PathBuf) -> Result<(), Stop> {
        let depth = parent.depth + 1;
        if self.rules.levels.is_some_and(|l| depth >= l) {
            // A lister that does not descend still names the directory; a reader cannot read
            // it as a file.
            return Ok(());
        }
        if depth > MAX_DEPTH {
            return Err(Stop::Over(format!(
                "goes deeper than {MAX_DEPTH} directories"
            )));
        }
        if !self.seen.insert(physical.clone()) {
            return Ok(());
        }
        self.dir(Frame {
            path,
            physical,
            depth,
            in_repo: parent.in_repo,
            ignored: parent.ignored.clone(),
        })
    }

    fn file(&mut self, path: &Path, physical: &Path) -> Result<(), Stop> {
        if (self.sensitive)(path, physical) {
            return Err(Stop::Reached(path.to_path_buf()));
        }
        Ok(())
    }

    fn count(&mut self) -> Result<(), Stop> {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return Err(Stop::Over(format!("holds more than {MAX_ENTRIES} entries")));
        }
        if self.entries.is_multiple_of(256) && Instant::now() >= self.deadline {
            return Err(Stop::Over(format!(
                "takes longer than {} ms to list",
                MAX_TIME.as_millis()
            )));
        }
        Ok(())
    }
}

/// The plain-name lines of a `.gitignore` at `depth`; none when it cannot be read, is too
/// large, or negates anything (a `!` line can bring back what a plain line hid).
fn ignore_file(path: &Path, depth: usize) -> Vec<Ignored> {
    let Ok(Some(bytes)) = super::read_regular(path, MAX_IGNORE_BYTES) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.lines().any(|l| l.trim_start().starts_with('!')) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in text.lines() {
        // git keeps trailing blanks escaped with `\`; a line with any escape is not plain.
        let line = line.trim_end_matches([' ', '\t']);
        if line.is_empty() || line.starts_with('#') || line.contains(['\\', '*', '?', '[']) {
            continue;
        }
        let (anchored, rest) = match line.strip_prefix('/') {
            Some(r) => (true, r),
            None => (false, line),
        };
        let (dir_only, name) = match rest.strip_suffix('/') {
            Some(n) => (true, n),
            None => (false, rest),
        };
        // `a/b` is matched against paths, not names: not copied here.
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            continue;
        }
        out.push(Ignored {
            name: name.to_string(),
            at_depth: anchored.then_some(depth),
            dir_only,
        });
    }
    out
}

fn ignored(list: &[Ignored], name: &str, depth: usize, is_dir: bool) -> bool {
    list.iter()
        .any(|i| i.name == name && (!i.dir_only || is_dir) && i.at_depth.is_none_or(|d| d == depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cmdguard-walk-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        root
    }

    fn first(root: &Path, rules: WalkRules, hit: &str) -> Walked {
        walk(root, &rules, &mut |p, real| {
            p.to_string_lossy().ends_with(hit) || real.to_string_lossy().ends_with(hit)
        })
    }

    const GREP_R: WalkRules = WalkRules {
        hidden: true,
        links: Links::Skip,
        gitignore: false,
        levels: None,
    };

    /// Each reader's skips, against a tree laid out as the red team's: a hidden `.env`, a
    /// symlinked key, a symlinked directory, a gitignored directory in a work tree.
    #[cfg(unix)]
    #[test]
    fn skips_what_each_reader_skips() {
        use std::os::unix::fs::symlink;
        let root = scratch("skips");
        let secret = root.join("secret");
        fs::create_dir_all(&secret).unwrap();
        fs::write(secret.join("id_rsa"), "k").unwrap();
        let p = root.join("p");
        fs::create_dir_all(p.join("src")).unwrap();
        fs::create_dir_all(p.join(".git")).unwrap();
        fs::create_dir_all(p.join("build")).unwrap();
        fs::write(p.join("src/a.rs"), "x").unwrap();
        fs::write(p.join(".env"), "x").unwrap();
        fs::write(p.join("build/gen.key"), "x").unwrap();
        fs::write(p.join(".gitignore"), "/build/\n*.log\n").unwrap();
        symlink(&secret, p.join("conf")).unwrap();
        symlink(secret.join("id_rsa"), p.join("link")).unwrap();
        let rg = WalkRules {
            hidden: false,
            links: Links::Skip,
            gitignore: true,
            levels: None,
        };
        assert_eq!(first(&p, GREP_R, ".env"), Walked::Reached(p.join(".env")));
        assert_eq!(first(&p, GREP_R, "id_rsa"), Walked::Clean);
        assert_eq!(first(&p, rg, ".env"), Walked::Clean);
        assert_eq!(first(&p, rg, "gen.key"), Walked::Clean);
        assert_eq!(
            first(&p, GREP_R, "gen.key"),
            Walked::Reached(p.join("build/gen.key"))
        );
        let follow = WalkRules {
            links: Links::Follow,
            ..GREP_R
        };
        assert!(matches!(first(&p, follow, "id_rsa"), Walked::Reached(_)));
        let open = WalkRules {
            links: Links::Open,
            ..GREP_R
        };
        assert_eq!(first(&p, open, "id_rsa"), Walked::Reached(p.join("link")));
        let ls = WalkRules {
            hidden: false,
            links: Links::Open,
            gitignore: false,
            levels: Some(1),
        };
        assert_eq!(first(&p, ls, "a.rs"), Walked::Clean);
        // The root is followed when it is a symlink.
        assert!(matches!(
            first(&p.join("conf"), GREP_R, "id_rsa"),
            Walked::Reached(_)
        ));
        let _ = fs::remove_dir_all(&root);
    }

    /// A symlink loop ends; too many entries stop the walk with a reason.
    #[cfg(unix)]
    #[test]
    fn loops_end_and_large_trees_stop() {
        use std::os::unix::fs::symlink;
        let root = scratch("bounds");
        fs::create_dir_all(root.join("a")).unwrap();
        symlink(&root, root.join("a/up")).unwrap();
        let follow = WalkRules {
            links: Links::Follow,
            ..GREP_R
        };
        assert_eq!(first(&root, follow, "nothing"), Walked::Clean);
        let wide = root.join("wide");
        fs::create_dir_all(&wide).unwrap();
        for k in 0..=MAX_ENTRIES {
            fs::write(wide.join(k.to_string()), "").unwrap();
        }
        assert!(matches!(
            first(&wide, GREP_R, "nothing"),
            Walked::Stopped(_)
        ));
        let _ = fs::remove_dir_all(&root);
    }
}

//! check/sensitive: stage 3 — finds reads of the paths the `[sensitive]` table lists and
//! commands that print the environment or a secret-looking variable. It never parses the
//! command (it reads segments' words) and never touches the file system itself: symlinks are
//! resolved through `repo` by way of [`Place`](super::Place), only when a working directory
//! is known.
//!
//! Fail closed: every static operand of every allowed program is a path it may read unless the
//! entry says `reads_operands = false` (`echo`, `ls`, `stat`); a glob asks when anything it can
//! match is sensitive; a recursive search asks when its root can reach a sensitive place.

use std::path::{Path, PathBuf};

use super::{Arg, Ctx, names};
use crate::allowlist::Entry;
use crate::allowlist::sensitive::{Glob, Sensitive, Tok, Which, class, intersects};
use crate::finding::{Code, Span};
use crate::repo::{Links, WalkRules, Walked};
use crate::segment::{Joiner, Redirect, RedirectOp, Segment, SegmentKind, Word};

/// Programs whose first operand is a pattern or a script, not a file, unless an option gives
/// it (`grep -e PAT`, `sed -e SCRIPT`).
const SCRIPT_FIRST: &[(&str, &[&str])] = &[
    ("grep", &["-e", "--regexp", "-f", "--file"]),
    ("egrep", &["-e", "--regexp", "-f", "--file"]),
    ("fgrep", &["-e", "--regexp", "-f", "--file"]),
    (
        "rg",
        &["-e", "--regexp", "-f", "--file", "--files", "--type-list"],
    ),
    ("git grep", &["-e", "-f"]),
    ("jq", &[]),
    ("awk", &["-f", "--file"]),
    ("gawk", &["-f", "--file"]),
    ("sed", &["-e", "--expression", "-f", "--file"]),
];

/// Options whose value names a file the program reads.
const FILE_OPTIONS: &[&str] = &[
    "-f",
    "--file",
    "--from-file",
    "--to-file",
    "--files0-from",
    "--ignore-file",
    "--exclude-from",
    "-X",
    "--rawfile",
    "--slurpfile",
];

/// find actions that run a program on what find reaches.
const FIND_EXEC: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// Builtins that print variables when given no names.
const PRINTING_BUILTINS: &[&str] = &["export", "declare", "typeset", "readonly", "local"];

/// Where relative paths lead and what `~` is, as far as the analysis knows.
struct Base {
    dirs: Option<Vec<PathBuf>>,
    home: Option<PathBuf>,
    /// A working directory was given, and a `cd` left it for one known only at run time.
    lost: bool,
}

/// One place a word can name, as a glob over absolute (`/…`), home (`~/…`) or relative
/// (`./…`) paths, and whether it is a plain path that may be resolved on disk.
struct Candidate {
    glob: Glob,
    literal: Option<String>,
    /// A relative path after a `cd` to a directory known only at run time (`cd -`): it may
    /// lie under any directory, a home's `~/.aws` included.
    anywhere: bool,
}

/// Which file names a walking program opens, by its own name filters (`find -name`, `grep
/// --include`/`--exclude`): a file whose name fails them is not read. With no filter every
/// name is opened.
#[derive(Debug, Clone, Default)]
struct Names {
    /// The name matches every one (`find -name A -name B`).
    all: Vec<Glob>,
    /// The name matches one of them, when there are any (`grep --include`).
    any: Vec<Glob>,
    /// The name matches none (`grep --exclude`).
    none: Vec<Glob>,
    /// Compared without regard to case (`find -iname`).
    fold: bool,
}

impl Names {
    fn opens(&self, name: &str) -> bool {
        let name = if self.fold {
            name.to_lowercase()
        } else {
            name.to_string()
        };
        let is = |g: &Glob| intersects(g, &Glob::literal(&name));
        self.all.iter().all(is)
            && (self.any.is_empty() || self.any.iter().any(is))
            && !self.none.iter().any(is)
    }

    /// A name pattern as fnmatch reads it without `FNM_PERIOD`: `*` matches a leading dot.
    fn glob(pattern: &str) -> Glob {
        let chars: Vec<char> = pattern.chars().collect();
        let mut toks = Vec::with_capacity(chars.len());
        let mut k = 0;
        while k < chars.len() {
            match chars[k] {
                '*' => toks.push(Tok::Star),
                '?' => toks.push(Tok::One),
                '[' => {
                    if let Some((t, next)) = class(&chars, k) {
                        toks.push(t);
                        k = next;
                        continue;
                    }
                    toks.push(Tok::Lit('['));
                }
                '\\' if k + 1 < chars.len() => {
                    k += 1;
                    toks.push(Tok::Lit(chars[k]));
                }
                c => toks.push(Tok::Lit(c)),
            }
            k += 1;
        }
        Glob {
            toks,
            dot_rule: false,
        }
    }

    /// `grep --include=GLOB` / `--exclude=GLOB`, from the parsed options.
    fn of_grep(parsed: &[Arg<'_>]) -> Names {
        let mut n = Names::default();
        for a in parsed {
            if let Arg::Opt {
                name: o,
                value: Some(v),
                ..
            } = a
            {
                if names(o, "--include") {
                    n.any.push(Names::glob(v));
                } else if names(o, "--exclude") {
                    n.none.push(Names::glob(v));
                }
            }
        }
        n
    }

    /// rg's `-g`/`--glob` whitelist: a file is read when its name matches one of them. A glob
    /// with a `/` matches more than a name, and `--iglob` folds case: then no filter.
    fn of_rg(parsed: &[Arg<'_>]) -> Names {
        let mut n = Names::default();
        // `--glob-case-insensitive` makes every `-g` an `--iglob`.
        if parsed
            .iter()
            .any(|a| matches!(a, Arg::Opt { name: o, .. } if names(o, "--glob-case-insensitive")))
        {
            return Names::default();
        }
        for a in parsed {
            if let Arg::Opt {
                name: o,
                value: Some(v),
                ..
            } = a
            {
                // ripgrep's parser takes `-g=GLOB` as `-g GLOB`.
                let v = if names(o, "-g") {
                    v.strip_prefix('=').unwrap_or(v)
                } else {
                    v
                };
                if names(o, "--iglob") {
                    return Names::default();
                }
                if (names(o, "-g") || names(o, "--glob")) && !v.starts_with('!') {
                    if v.contains('/') {
                        return Names::default();
                    }
                    n.any.push(Names::glob(v));
                }
            }
        }
        n
    }

    /// `find`'s `-name`/`-iname` tests, when the expression is a plain conjunction (no `-o`,
    /// `!`, `-not`, `,` or parentheses, which could bring back what a test left out).
    fn of_find(expression: &[Word]) -> Names {
        let mut n = Names::default();
        if expression.iter().any(|w| {
            matches!(
                w.text.as_str(),
                "-o" | "-or" | "!" | "-not" | "," | "(" | ")"
            )
        }) {
            return n;
        }
        let iname = expression.iter().any(|w| w.text == "-iname");
        let name = expression.iter().any(|w| w.text == "-name");
        if iname && name {
            // One compares with case, one without: not worth copying.
            return n;
        }
        n.fold = iname;
        for pair in expression.windows(2) {
            if matches!(pair[0].text.as_str(), "-name" | "-iname") {
                let Some(p) = pair[1].static_text() else {
                    return Names::default();
                };
                let p = if iname {
                    p.to_lowercase()
                } else {
                    p.to_string()
                };
                n.all.push(Names::glob(&p));
            }
        }
        n
    }
}

/// The checks on an allowlist entry's arguments: sensitive operands, option values and
/// recursive roots, and the programs' ways of printing the environment.
pub(super) fn entry(cx: &mut Ctx<'_>, i: usize, entry: &Entry, rest: &[Word], parsed: &[Arg<'_>]) {
    let name = entry.name.as_str();
    if name == "ps" {
        ps(cx, i, rest);
    }
    let verbose = parsed
        .iter()
        .any(|a| matches!(a, Arg::Opt { name: o, .. } if names(o, "-v") || names(o, "--verbose")));
    if matches!(name, "declare" | "typeset" | "local") {
        array_reparse(cx, i, rest);
    }
    // `wc --files0-from=F`, `du --files0-from=-`, `sha256sum -c SUMS`: the program reads the
    // files a list names (a file, or stdin), names nobody saw, as `xargs -a FILE` does.
    let given = |o: &str| {
        parsed
            .iter()
            .any(|a| matches!(a, Arg::Opt { name: n, .. } if names(n, o)))
    };
    let checks = name.ends_with("sum") && (given("-c") || given("--check"));
    // `--files0-from` exactly: `names` would take `--files` (rg) as its abbreviation.
    let files0 = parsed
        .iter()
        .any(|a| matches!(a, Arg::Opt { name: n, .. } if n.starts_with("--files0-from")));
    if files0 || checks {
        let span = rest.first().map_or(Span::default(), |w| w.span);
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            format!("`{name}` reads the files a list names (its input or a file), names cmdguard does not see, which may be secrets"),
            name,
        );
    }
    if name == "git remote get-url" || (name == "git remote" && verbose) {
        remote_urls(cx, i, rest, name);
    }
    if name.starts_with("git ")
        && !GIT_NAMES_ONLY.contains(&name)
        && let Some(why) = git_elsewhere(cx, i)
    {
        cx.push_rule(
            Code::SensitiveRead,
            rest.first().map_or(Span::default(), |w| w.span),
            Some(i),
            why,
            name,
        );
    }
    if PRINTING_BUILTINS.contains(&name)
        && rest
            .iter()
            .all(|w| w.static_text().is_some_and(|t| t.starts_with(['-', '+'])))
    {
        cx.push_rule(
            Code::PrintsEnvironment,
            rest.first().map_or(Span::default(), |w| w.span),
            Some(i),
            format!("`{name}` without a name prints variables, secrets included"),
            name,
        );
    }
    let script_first = SCRIPT_FIRST
        .iter()
        .find(|(p, _)| *p == name)
        .is_some_and(|(_, given)| {
            !parsed
                .iter()
                .any(|a| matches!(a, Arg::Opt { name: o, .. } if given.iter().any(|g| names(o, g))))
        });
    let mut first = script_first;
    let mut roots: Vec<&Word> = Vec::new();
    // Which words of `rest` the operands after the first (a pattern or script) are.
    let mut operand_words: Vec<usize> = Vec::new();
    let mut pattern_word: Option<usize> = None;
    for a in parsed {
        match a {
            Arg::Operand { word, .. } | Arg::Dynamic { word } => {
                let w = &rest[*word];
                // `<(…)` is a pipe from a command checked as a segment of its own.
                if w.expansions.process {
                    first = false;
                    continue;
                }
                if std::mem::take(&mut first) {
                    pattern_word = Some(*word);
                    if name == "jq" {
                        jq_filter(cx, i, w);
                    }
                    continue;
                }
                roots.push(w);
                operand_words.push(*word);
                if entry.reads_operands {
                    // `rg --files DIR` lists names under DIR and reads no file.
                    let lists = name == "rg"
                        && parsed
                            .iter()
                            .any(|a| matches!(a, Arg::Opt { name: o, .. } if names(o, "--files")));
                    read_with(cx, i, w, name, !lists);
                    // `cat "$(echo ~/.ssh/id_rsa)"`, `head -- $(find ~/.ssh -type f)`: what the
                    // substitution prints is unknown, but a path it names may be what it prints.
                    if w.expansions.command {
                        for path in substituted_paths(&w.text) {
                            let t = Word {
                                text: path,
                                span: w.span,
                                expansions: Default::default(),
                                quoted: false,
                            };
                            search(cx, i, &t, name, None);
                        }
                    }
                    // `:/msg` names a commit by its message, `:/`, `:(top)`, `:!x` are
                    // pathspec magic: none is a `REV:path`.
                    if let Some(t) = w.static_text()
                        && name.starts_with("git ")
                        && !t
                            .strip_prefix(':')
                            .is_some_and(|m| m.starts_with(['/', '(', '!', '^']))
                        && let Some((_, path)) = t.split_once(':')
                    {
                        // `git show HEAD:.env` prints the file from the repository.
                        read_text(cx, i, w.span, path, name);
                    }
                }
            }
            Arg::Opt {
                name: o,
                value: Some(v),
                word,
                // `--exclude` and `--include` are options of their own (a glob), not
                // abbreviations of `--exclude-from`.
            } if FILE_OPTIONS.iter().any(|f| names(o, f))
                && !matches!(o.as_str(), "--exclude" | "--include") =>
            {
                // `grep -f "$f"`: the value keeps what bash expands in it. It is the rest of
                // the option's word (`--file=$f`, `-f$f`) or the next word.
                let own = &rest[*word];
                let from = if own.text.len() > v.len() && own.text.ends_with(v) {
                    own
                } else {
                    rest.get(*word + 1).unwrap_or(own)
                };
                let value = Word {
                    text: v.to_string(),
                    span: from.span,
                    expansions: from.expansions,
                    quoted: from.quoted,
                };
                read(cx, i, &value, name);
            }
            Arg::Opt { .. } | Arg::Refused { .. } => {}
        }
    }
    // `xargs -a FILE` reads FILE whatever it runs; a reader under xargs reads its input's words.
    xargs_feed(cx, i, name, entry.reads_operands);
    if let Some(how) = walk_rules(name, parsed) {
        let filter = if name == "rg" {
            Names::of_rg(parsed)
        } else if name == "git grep" {
            Names::default()
        } else {
            Names::of_grep(parsed)
        };
        let span = rest.last().map_or(Span::default(), |w| w.span);
        // `git -C DIR grep`: the search starts in DIR, and its paths are relative to it.
        let chdir = if name == "git grep" {
            git_chdir(cx, i)
        } else {
            Some(String::new())
        };
        let Some(chdir) = chdir else {
            cx.push_rule(
                Code::SensitiveRead,
                span,
                Some(i),
                "`git grep` searches a directory `-C` names only at run time".into(),
                name,
            );
            return;
        };
        let under = |text: &str| -> Word {
            let text = if chdir.is_empty() || text.starts_with(['/', '~']) {
                text.to_string()
            } else if text == "." {
                chdir.clone()
            } else {
                format!("{chdir}/{text}")
            };
            Word {
                text,
                span,
                expansions: Default::default(),
                quoted: false,
            }
        };
        // With no path, grep -r searches the working directory; rg searches it too unless its
        // input is a pipe, which it then reads instead.
        let piped = i
            .checked_sub(1)
            .and_then(|p| cx.script.segments.get(p))
            .is_some_and(|p| p.joiner == Some(Joiner::Pipe));
        if roots.is_empty() && !(name == "rg" && piped) {
            search(cx, i, &under("."), name, Some((&how, &filter)));
        }
        for w in roots {
            if name == "git grep" {
                // A pathspec is not a path: `':(glob)**'`, `'.e*'`, `':!src'` and `':/'` read
                // what git matches, from the top of the work tree for `:/`.
                match (w.static_text(), w.static_text().map(pathspec_root)) {
                    (_, Some(Pathspec::Path(t))) => {
                        search(cx, i, &under(&t), name, Some((&how, &filter)));
                    }
                    (_, Some(Pathspec::Top)) => {
                        for top in toplevels(cx, &chdir) {
                            search(cx, i, &under(&top), name, Some((&how, &filter)));
                        }
                    }
                    (Some(_), None) | (None, _) => search(cx, i, w, name, Some((&how, &filter))),
                }
                continue;
            }
            match w.static_text() {
                Some(t) if !chdir.is_empty() => {
                    search(cx, i, &under(t), name, Some((&how, &filter)));
                }
                _ => search(cx, i, w, name, Some((&how, &filter))),
            }
        }
    }
    if matches!(
        name,
        "git show"
            | "git log"
            | "git diff"
            | "git cat-file"
            | "git reflog"
            | "git reflog show"
            | "git stash show"
            | "git stash list"
    ) {
        git_history(cx, i, name, rest, parsed);
    }
    if name == "git status" && verbose {
        // `-v` prints the staged patch, `-vv` the unstaged one too.
        worktree_patch(
            cx,
            i,
            name,
            rest.first().map_or(Span::default(), |w| w.span),
        );
    }
    if name.starts_with("git ") {
        raw_format(cx, i, name, parsed, rest);
    }
    if name == "git grep" && walk_rules(name, parsed).is_none() {
        git_grep_tracked(cx, i, rest, &operand_words, pattern_word);
    }
    if name == "find" && rest.iter().any(|w| FIND_EXEC.contains(&w.text.as_str())) {
        let start = rest
            .iter()
            .take_while(|w| matches!(w.text.as_str(), "-H" | "-L" | "-P"))
            .count();
        for w in rest[start..]
            .iter()
            .take_while(|w| !w.text.starts_with(['-', '(', '!', ')']))
        {
            search(cx, i, w, "find -exec", None);
            outside_root(cx, i, w, "find -exec");
        }
    }
}

/// The literal runs of each `[sensitive]` path pattern (`~/.ssh/`, `.pem`): a literal path a
/// pattern matches holds every run of it, so a walk passes over most files with a few
/// substring tests and matches globs only for the rest.
struct Runs(Vec<Vec<String>>);

impl Runs {
    fn of(table: &Sensitive) -> Runs {
        Runs(
            table
                .paths
                .iter()
                .map(|(_, g)| {
                    let mut runs = vec![String::new()];
                    for t in &g.toks {
                        match t {
                            Tok::Lit(c) => runs.last_mut().into_iter().for_each(|r| r.push(*c)),
                            Tok::One | Tok::Star | Tok::Any | Tok::Class { .. } => {
                                runs.push(String::new());
                            }
                        }
                    }
                    runs.retain(|r| !r.is_empty());
                    runs
                })
                .collect(),
        )
    }

    fn may_match(&self, path: &str) -> bool {
        self.0
            .iter()
            .any(|runs| runs.iter().all(|r| path.contains(r.as_str())))
    }
}

/// `path` with a leading home written `~`, as the table's patterns write it.
fn tilde(path: &str, home: Option<&Path>) -> String {
    let Some(home) = home.map(|h| h.to_string_lossy()) else {
        return path.to_string();
    };
    let home = home.trim_end_matches('/');
    match path.strip_prefix(home) {
        Some(rest) if home.len() > 1 && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => path.to_string(),
    }
}

/// How `name` walks the roots it searches recursively, as the real program does; `None` when
/// it does not search recursively here. Verified against GNU grep 3.8, ripgrep 13, git 2.47
/// and GNU diff 3.8: `grep -r` reads hidden files and skips symlinks below its roots, `-R`
/// follows them; rg skips hidden and gitignored entries (`--hidden`, `-uu` read the first,
/// `-u`, `--no-ignore` the second) and follows symlinks only with `-L`; `git grep` reads
/// untracked files only with `--untracked` (which honours `.gitignore`) or `--no-index` (which
/// does not), never through symlinks; `diff -r` follows symlinks and reads hidden files.
fn walk_rules(name: &str, parsed: &[Arg<'_>]) -> Option<WalkRules> {
    let count = |options: &[&str]| {
        parsed
            .iter()
            .filter(
                |a| matches!(a, Arg::Opt { name: o, .. } if options.iter().any(|x| names(o, x))),
            )
            .count()
    };
    let has = |options: &[&str]| count(options) > 0;
    let links = |follow: bool| if follow { Links::Follow } else { Links::Skip };
    match name {
        "grep" | "egrep" | "fgrep" => {
            let follow = has(&["-R", "--dereference-recursive"]);
            let recurse = parsed.iter().any(|a| {
                matches!(a, Arg::Opt { name: o, value, .. }
                    if (names(o, "-d") || names(o, "--directories")) && *value == Some("recurse"))
            });
            (follow || recurse || has(&["-r", "--recursive"])).then_some(WalkRules {
                hidden: true,
                links: links(follow),
                gitignore: false,
                levels: None,
            })
        }
        "diff" => has(&["-r", "--recursive"]).then_some(WalkRules {
            hidden: true,
            links: Links::Follow,
            gitignore: false,
            levels: None,
        }),
        // `rg --files` lists the files it would search, and reads none of them.
        "rg" if has(&["--files", "--type-list"]) => None,
        "rg" => {
            let unrestricted = count(&["-u", "--unrestricted"]);
            // A `-g`/`--glob`/`--iglob` that is not a `!` exclusion overrides the ignore rules
            // and the hidden-file rule for what it matches (ripgrep 13: `rg x -g '*'` reads
            // `.env` and gitignored `secrets/`).
            let whitelist = parsed.iter().any(|a| {
                matches!(a, Arg::Opt { name: o, value: Some(v), .. }
                    if (names(o, "-g") || names(o, "--glob") || names(o, "--iglob"))
                        && !v.starts_with('!'))
            });
            Some(WalkRules {
                hidden: whitelist || unrestricted >= 2 || has(&["--hidden", "-."]),
                links: links(has(&["-L", "--follow"])),
                gitignore: !whitelist
                    && unrestricted == 0
                    && !has(&["--no-ignore", "--no-ignore-vcs"]),
                levels: None,
            })
        }
        "git grep" => {
            let untracked = has(&["--untracked"]);
            (untracked || has(&["--no-index"])).then_some(WalkRules {
                hidden: true,
                links: Links::Skip,
                gitignore: untracked && !has(&["--no-exclude-standard"]),
                levels: None,
            })
        }
        _ => None,
    }
}

/// Git subcommands that print names, counts and messages but no file's content: run with `-C`
/// in a repository outside the project they pass as they do inside it. Every other
/// subcommand reads the files there (`git show HEAD:notes.txt`, `git grep`, `git blame`), and
/// `git log` and `git reflog` are judged by the history rule, which proves no pathspec
/// elsewhere.
const GIT_NAMES_ONLY: &[&str] = &[
    "git status",
    "git rev-parse",
    "git ls-files",
    "git ls-tree",
    "git branch",
    "git describe",
    "git shortlog",
    "git show-ref",
    "git merge-base",
    "git name-rev",
    "git count-objects",
    "git stash list",
    "git worktree list",
    "git log",
    "git reflog",
    "git reflog show",
];

/// Why a git command runs in a repository outside the project: `-C` names a directory outside
/// it and every public place, or one known only at run time. Its paths (`REV:path`,
/// pathspecs, `blame FILE`) are then files there, not the project's.
fn git_elsewhere(cx: &Ctx<'_>, i: usize) -> Option<String> {
    let Some(dir) = git_chdir(cx, i) else {
        return Some("`git -C` names a directory known only at run time, which may be a repository outside the project".into());
    };
    if dir.is_empty() {
        return None;
    }
    let w = Word {
        text: dir.clone(),
        span: Span::default(),
        expansions: Default::default(),
        quoted: false,
    };
    let base = base(cx);
    let cands = candidates(cx, &w, &base);
    outside(cx, &w, &cands, &base, "git").map(|_| {
        format!("`git -C {dir}` reads files of a repository outside the project (the working directory) and outside the places `[sensitive] public_paths` lists")
    })
}

/// The directory `git -C A -C B grep` runs in, relative to where it starts (`""` for there);
/// `None` when a `-C` value is only known at run time.
fn git_chdir(cx: &Ctx<'_>, i: usize) -> Option<String> {
    let words = &cx.script.segments.get(i)?.words;
    let git = words
        .iter()
        .position(|w| super::deny::basename(&w.text) == "git")?;
    let mut dir = String::new();
    let mut k = git + 1;
    while let Some(w) = words.get(k) {
        match w.static_text() {
            Some("-C") => {
                let d = words.get(k + 1)?.static_text()?;
                dir = if d.starts_with(['/', '~']) || dir.is_empty() {
                    d.to_string()
                } else {
                    format!("{dir}/{d}")
                };
                k += 2;
            }
            Some(t) if t.starts_with('-') => k += 1,
            _ => break,
        }
    }
    Some(dir)
}

/// `r=(x); declare r='($(cmd))'`: when `r` is already an array, `declare`, `typeset` and
/// `local` read a quoted value in parentheses as a compound assignment and expand it again
/// (bash 5.2 ran `cmd`; `export` and `readonly` do not). Whether the name is an array is not
/// tracked, so such a value asks, and its text is analysed as the array assignment it may be
/// (a denied command inside denies). An unquoted `name=(…)` is an ordinary array assignment,
/// segmented where it is written.
fn array_reparse(cx: &mut Ctx<'_>, i: usize, rest: &[Word]) {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for w in rest {
        let Some((_, value)) = w.text.split_once('=') else {
            continue;
        };
        if !value.starts_with('(') {
            continue;
        }
        let source = cx.src.get(w.span.start..w.span.end).unwrap_or("");
        let head = source.trim_start_matches(ident);
        if head.starts_with("=(") || head.starts_with("+=(") {
            continue;
        }
        cx.push(
            Code::EvaluatedExpansion,
            w.span,
            Some(i),
            format!(
                "`{}`: a quoted value in parentheses is expanded again as an array assignment when the name is already an array",
                w.text
            ),
        );
        if w.is_static() {
            let script = w.text.clone();
            cx.nested(
                i,
                w.span,
                "the array assignment `declare` may re-parse",
                &script,
            );
        }
    }
}

/// A `<` redirect from a static path: `true` when it was judged here (a sensitive path asks, an
/// ordinary file inside the working directory is read like an operand, one outside the project
/// and every public place asks as an operand there would); `false` leaves it to the redirect
/// check (a public path outside the working directory).
pub(super) fn input(cx: &mut Ctx<'_>, r: &Redirect, seg: Option<usize>) -> bool {
    let Some(target) = r.target.as_ref() else {
        return false;
    };
    let base = base(cx);
    let cands = candidates(cx, target, &base);
    if let Some((pattern, shown)) = reached(cx, &cands, false) {
        cx.push(
            Code::SensitiveRead,
            r.span,
            seg,
            format!("`<` reads `{shown}`, which `[sensitive]` lists (`{pattern}`)"),
        );
        return true;
    }
    // `..` leaves the directory the analysis assumes when it knows none.
    let up = target.text.split('/').any(|p| p == "..");
    if !cands.is_empty() && cands.iter().all(|c| inside(cx, c, &base, up)) {
        return true;
    }
    // A file outside the project and every public place is read as an operand there would
    // be (`wc -l < ../notes.txt` like `wc -l ../notes.txt`): the same code and reason.
    if let Some(message) = outside(cx, target, &cands, &base, "<") {
        cx.push(Code::SensitiveRead, r.span, seg, message);
        return true;
    }
    false
}

/// Subcommands of programs outside the default allowlist that print a credential: a user's
/// rule (`Bash(gh:*)`, imported from an agent's settings) covers `not_allowlisted`, not this.
/// Each row is the program, the subcommand words, and what must hold besides (`None`: the
/// subcommand always prints one). Each is documented to print the secret (`gh auth token`,
/// `kubectl config view --raw`, `aws configure get`, `gcloud auth print-access-token`, …).
const SECRET_PRINTERS: &[(&str, &[&str], Option<Also>)] = &[
    ("gh", &["auth", "token"], None),
    (
        "gh",
        &["auth", "status"],
        Some(Also::Option(&["-t", "--show-token"])),
    ),
    (
        "kubectl",
        &["config", "view"],
        Some(Also::Option(&["--raw"])),
    ),
    ("kubectl", &["get"], Some(Also::SecretOutput)),
    ("kubectl", &["create", "token"], None),
    ("aws", &["configure", "get"], Some(Also::KeyNotPublic)),
    ("aws", &["configure", "export-credentials"], None),
    ("aws", &["sts", "get-session-token"], None),
    ("aws", &["sts", "assume-role"], None),
    ("aws", &["ecr", "get-login-password"], None),
    ("aws", &["ecr", "get-authorization-token"], None),
    ("aws", &["codeartifact", "get-authorization-token"], None),
    ("aws", &["secretsmanager", "get-secret-value"], None),
    (
        "aws",
        &["ssm", "get-parameter"],
        Some(Also::Option(&["--with-decryption"])),
    ),
    (
        "aws",
        &["ssm", "get-parameters"],
        Some(Also::Option(&["--with-decryption"])),
    ),
    ("gcloud", &["auth", "print-access-token"], None),
    ("gcloud", &["auth", "print-identity-token"], None),
    (
        "gcloud",
        &["auth", "application-default", "print-access-token"],
        None,
    ),
    ("gcloud", &["config", "config-helper"], None),
    ("gcloud", &["secrets", "versions", "access"], None),
    ("az", &["account", "get-access-token"], None),
    ("az", &["keyvault", "secret", "show"], None),
    ("npm", &["config", "get"], Some(Also::KeyNotPublic)),
    ("pnpm", &["config", "get"], Some(Also::KeyNotPublic)),
    ("yarn", &["config", "get"], Some(Also::KeyNotPublic)),
    ("vault", &["print", "token"], None),
    ("vault", &["kv", "get"], None),
    ("vault", &["read"], None),
    ("heroku", &["auth:token"], None),
    ("doctl", &["auth", "token"], None),
    ("git", &["credential", "fill"], None),
    // More of the same (red team s9): temporary and federated keys, cluster and database
    // tokens, decrypted parameters, functions' environments.
    ("aws", &["sts", "assume-role-with-web-identity"], None),
    ("aws", &["sts", "assume-role-with-saml"], None),
    ("aws", &["sts", "get-federation-token"], None),
    ("aws", &["iam", "create-access-key"], None),
    ("aws", &["eks", "get-token"], None),
    ("aws", &["rds", "generate-db-auth-token"], None),
    ("aws", &["sso", "get-role-credentials"], None),
    ("aws", &["ecr-public", "get-login-password"], None),
    ("aws", &["ecr-public", "get-authorization-token"], None),
    (
        "aws",
        &["ssm", "get-parameters-by-path"],
        Some(Also::Option(&["--with-decryption"])),
    ),
    ("aws", &["lambda", "get-function-configuration"], None),
    ("aws", &["lambda", "get-function"], None),
    ("az", &["storage", "account", "keys", "list"], None),
    (
        "az",
        &["storage", "account", "show-connection-string"],
        None,
    ),
    (
        "az",
        &["acr", "login"],
        Some(Also::Option(&["--expose-token"])),
    ),
    ("az", &["ad", "sp", "create-for-rbac"], None),
    ("az", &["ad", "sp", "credential", "reset"], None),
    ("az", &["ad", "app", "credential", "reset"], None),
    // `compose config` interpolates `.env`; `inspect` shows the `-e` values a container got.
    ("docker", &["compose", "config"], None),
    ("docker-compose", &["config"], None),
    ("podman-compose", &["config"], None),
    ("docker", &["inspect"], None),
    ("docker", &["container", "inspect"], None),
    ("podman", &["inspect"], None),
    ("podman", &["container", "inspect"], None),
    (
        "kubectl",
        &["exec"],
        Some(Also::Word(&["env", "printenv", "set", "export"])),
    ),
    // git's credential helpers answer `get` with the password.
    ("git", &["credential-store", "get"], None),
    ("git", &["credential-cache", "get"], None),
    ("git", &["credential-libsecret", "get"], None),
    ("git", &["credential-osxkeychain", "get"], None),
    ("git", &["credential-manager", "get"], None),
    // An index URL may carry a password (`https://user:pass@host/simple`).
    ("pip", &["config", "list"], None),
    ("pip", &["config", "get"], None),
    ("pip3", &["config", "list"], None),
    ("pip3", &["config", "get"], None),
    ("heroku", &["config"], None),
    ("heroku", &["config:get"], None),
    ("vault", &["token", "create"], None),
    ("vault", &["write"], None),
    ("terraform", &["output"], None),
    ("terraform", &["state", "pull"], None),
    ("terraform", &["show"], Some(Also::Option(&["-json"]))),
    ("tofu", &["output"], None),
    ("tofu", &["state", "pull"], None),
    ("tofu", &["show"], Some(Also::Option(&["-json"]))),
    // `helm get manifest` holds the release's Secrets, `values` its passwords.
    ("helm", &["get"], None),
    (
        "glab",
        &["auth", "status"],
        Some(Also::Option(&["-t", "--show-token"])),
    ),
    ("npm", &["token", "create"], None),
    // password managers and decrypters
    ("op", &["read"], None),
    ("op", &["inject"], None),
    ("op", &["item", "get"], None),
    ("op", &["document", "get"], None),
    ("bw", &["get"], None),
    ("bw", &["list"], None),
    ("bw", &["export"], None),
    ("pass", &["show"], None),
    ("pass", &["grep"], None),
    ("pass", &["otp"], None),
    (
        "security",
        &["find-generic-password"],
        Some(Also::Option(&["-w", "-g"])),
    ),
    (
        "security",
        &["find-internet-password"],
        Some(Also::Option(&["-w", "-g"])),
    ),
    ("sops", &[], Some(Also::Option(&["-d", "--decrypt"]))),
    ("sops", &["decrypt"], None),
    ("sops", &["exec-env"], None),
];

/// What a [`SECRET_PRINTERS`] row needs besides its subcommand.
#[derive(Debug, Clone, Copy)]
enum Also {
    /// One of these options (`--raw`, `--show-token`), alone or as `--raw=true`.
    Option(&'static [&'static str]),
    /// `kubectl get` of secrets with an output format that shows their data (any `-o` but
    /// `name` and `wide`).
    SecretOutput,
    /// A config key (the operands after `get`) other than the few known to hold no secret.
    KeyNotPublic,
    /// One of these words among the operands (`kubectl exec POD -- env`).
    Word(&'static [&'static str]),
}

/// Config keys `aws configure get` and `npm config get` print that hold no secret; any other
/// key (`aws_secret_access_key`, `//registry.npmjs.org/:_authToken`) asks.
const PUBLIC_CONFIG_KEYS: &[&str] = &[
    "region",
    "output",
    "registry",
    "prefix",
    "cache",
    "init-author-name",
    "init-license",
    "save-exact",
    "engine-strict",
    "node-version",
    "strict-ssl",
    "loglevel",
    "fund",
    "audit",
];

/// Container runs whose mounts or env files give the container (and what it prints) a host
/// path: `docker run -v ~/.aws:/a alpine cat /a/credentials`.
const CONTAINER_RUNS: &[(&str, &[&str])] = &[
    ("docker", &["run"]),
    ("docker", &["create"]),
    ("docker", &["container", "run"]),
    ("docker", &["container", "create"]),
    ("podman", &["run"]),
    ("podman", &["create"]),
    ("podman", &["container", "run"]),
    ("nerdctl", &["run"]),
];

/// A segment that runs a program documented to print a credential ([`SECRET_PRINTERS`]), or a
/// container with a sensitive host path mounted or read as an env file, asks with
/// `sensitive_read` whether or not the program is allowlisted: a user's rule for the program
/// covers "not in the allowlist", never a secret read.
pub(super) fn secret_printers(cx: &mut Ctx<'_>, i: usize, seg: &Segment) {
    let Some(program) = seg.words.first().and_then(Word::static_text) else {
        return;
    };
    let program = super::deny::basename(program);
    let args = &seg.words[1..];
    // Operands, loosely: a word after an option may be its value, so subcommands are looked
    // for anywhere among the non-option words (matching more only asks more).
    let plain: Vec<&str> = args
        .iter()
        .filter_map(Word::static_text)
        .filter(|t| !t.starts_with('-'))
        .collect();
    // No subcommand words: the program itself (`sops -d FILE`).
    let has_run = |sub: &[&str]| sub.is_empty() || plain.windows(sub.len()).any(|w| w == sub);
    let span = seg.words.first().map_or(Span::default(), |w| w.span);
    for (name, sub, also) in SECRET_PRINTERS {
        if *name != program || !has_run(sub) {
            continue;
        }
        let holds = match also {
            None => true,
            Some(Also::Option(names)) => has_option(args, names),
            Some(Also::SecretOutput) => kubectl_shows_secrets(args, &plain),
            Some(Also::Word(words)) => plain.iter().any(|t| words.contains(t)),
            Some(Also::KeyNotPublic) => {
                let keys: Vec<&str> = plain
                    .iter()
                    .skip_while(|t| **t != "get")
                    .skip(1)
                    .copied()
                    .collect();
                keys.is_empty()
                    || args.iter().any(|w| !w.is_static())
                    || keys.iter().any(|k| {
                        let bare = k.rsplit('.').next().unwrap_or(k);
                        !PUBLIC_CONFIG_KEYS.contains(&bare)
                    })
            }
        };
        if holds {
            let command = format!("{program} {}", sub.join(" "))
                .trim_end()
                .to_string();
            cx.push_rule(
                Code::SensitiveRead,
                span,
                Some(i),
                format!("`{command}` prints a credential (a token, key or password)"),
                &command,
            );
            return;
        }
    }
    // `git remote show NAME` prints the fetch and push URLs too; it is not allowlisted, but a
    // user's `Bash(git:*)` would cover that.
    if program == "git" && has_run(&["remote", "show"]) {
        remote_urls(cx, i, args, "git remote show");
    }
    if CONTAINER_RUNS
        .iter()
        .any(|(name, sub)| *name == program && plain.starts_with(sub))
    {
        container_mounts(cx, i, args, program);
    }
}

/// Whether one of `names` is given: as written, `--raw=true`, or a short one in a bundle.
fn has_option(args: &[Word], names: &[&str]) -> bool {
    args.iter().filter_map(Word::static_text).any(|t| {
        names.iter().any(|n| {
            let short = n.len() == 2 && !n.starts_with("--");
            t == *n
                || t.strip_prefix(n)
                    .is_some_and(|r| r.starts_with('=') && r != "=false")
                || (short && t.starts_with('-') && !t.starts_with("--") && t[1..].contains(&n[1..]))
        })
    })
}

/// `kubectl get secret[s][/NAME][,…] -o yaml|json|jsonpath=…|go-template=…`: the output shows
/// the secrets' data; the default table and `-o name|wide` show none.
fn kubectl_shows_secrets(args: &[Word], plain: &[&str]) -> bool {
    let secrets = plain.iter().any(|t| {
        t.split(',').any(|r| {
            let r = r.split('/').next().unwrap_or(r).to_ascii_lowercase();
            r == "secret" || r == "secrets" || r.starts_with("secret.")
        })
    });
    let shown = args.iter().enumerate().any(|(k, w)| {
        let t = w.text.as_str();
        let value = if t == "-o" || t == "--output" {
            args.get(k + 1).map(|v| v.text.as_str())
        } else {
            t.strip_prefix("--output=")
                .or_else(|| t.strip_prefix("-o="))
                .or_else(|| t.strip_prefix("-o"))
        };
        value.is_some_and(|v| !matches!(v, "name" | "wide" | ""))
    });
    secrets && shown
}

/// The host paths a container run gives the container: `-v|--volume HOST:CTR`, `--mount
/// …,source=HOST,…`, `--env-file FILE`. A host path that can reach a sensitive place asks (the
/// container reads anything under it); a named volume (no `/`, `.`, `~` or `$`) is no host
/// path.
fn container_mounts(cx: &mut Ctx<'_>, i: usize, args: &[Word], program: &str) {
    let what = format!("{program} run");
    let mut k = 0;
    while k < args.len() {
        let w = &args[k];
        let t = w.text.as_str();
        let (opt, inline) = match t.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ if t.len() > 2 && t.starts_with("-v") => ("-v", Some(&t[2..])),
            _ => (t, None),
        };
        k += 1;
        let value = match inline {
            Some(v) => Some((v.to_string(), w)),
            None if matches!(opt, "-v" | "--volume" | "--mount" | "--env-file") => {
                let v = args.get(k);
                k += 1;
                v.map(|v| (v.text.clone(), v))
            }
            None => None,
        };
        let Some((value, from)) = value else {
            continue;
        };
        let host = match opt {
            "-v" | "--volume" => value.split(':').next().unwrap_or("").to_string(),
            "--mount" => value
                .split(',')
                .find_map(|kv| {
                    let (key, v) = kv.split_once('=')?;
                    matches!(key, "source" | "src").then(|| v.to_string())
                })
                .unwrap_or_default(),
            "--env-file" => value,
            _ => continue,
        };
        // `-v "$(pwd)":/app`, `-v $PWD/src:/s`: the working directory bash expands.
        let unquoted = host.replace(['"', '\''], "");
        let here = ["$(pwd)", "${PWD}", "$PWD", "`pwd`"]
            .iter()
            .find_map(|p| unquoted.strip_prefix(p))
            .filter(|r| r.is_empty() || r.starts_with('/') && !r.contains(['$', '`']));
        let word = match here {
            Some(r) => Word {
                text: format!(".{r}"),
                span: from.span,
                expansions: Default::default(),
                quoted: false,
            },
            None => Word {
                text: host,
                span: from.span,
                expansions: from.expansions,
                quoted: from.quoted,
            },
        };
        if here.is_none() && !from.is_static() && opt != "--env-file" {
            cx.push_rule(
                Code::SensitiveRead,
                from.span,
                Some(i),
                format!(
                    "`{what}` gives the container a host path known only at run time (`{}`), which may hold a secret",
                    word.text
                ),
                &what,
            );
            continue;
        }
        if opt == "--env-file" {
            read(cx, i, &word, &what);
            continue;
        }
        if !word.text.starts_with(['/', '.', '~', '$']) {
            continue;
        }
        let how = WalkRules {
            hidden: true,
            links: Links::Follow,
            gitignore: false,
            levels: None,
        };
        search(cx, i, &word, &what, Some((&how, &Names::default())));
    }
}

/// Secret-looking variables a segment expands into its words, assignments or redirections
/// (`echo $GITHUB_TOKEN`, `x=$AWS_SECRET_ACCESS_KEY`, a heredoc body). A test only compares
/// (`[ -n "$TOKEN" ]`): not a print.
pub(super) fn secret_variables(cx: &mut Ctx<'_>, i: usize, seg: &Segment) {
    // A test only compares: its operands are not printed — unless it fails loudly (`-eq` on
    // a non-number prints the operand), fills `BASH_REMATCH` (`=~`), or xtrace echoes it.
    let loud = seg.words.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "=~"
        )
    }) || xtrace(cx.src);
    // Only a test of presence compares nothing the command chose: `[[ ${T:0:1} == F ]] &&
    // echo F` prints whether the secret starts with `F`, letter by letter. Every word of an
    // exempt test is an operator that asks about one operand or a plain `$NAME`.
    let presence = |w: &Word| {
        let t = w.text.as_str();
        let plain = t
            .strip_prefix("${")
            .and_then(|n| n.strip_suffix('}'))
            .or_else(|| t.strip_prefix('$'))
            .is_some_and(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        plain
            || w.is_static()
                && matches!(
                    t,
                    "[" | "]"
                        | "[["
                        | "]]"
                        | "test"
                        | "!"
                        | "-n"
                        | "-z"
                        | "-a"
                        | "-o"
                        | "&&"
                        | "||"
                        | "("
                        | ")"
                        | "-e"
                        | "-f"
                        | "-d"
                        | "-s"
                        | "-r"
                        | "-w"
                        | "-x"
                        | "-L"
                        | "-h"
                        | "-v"
                        | "="
                        | "=="
                        | "!="
                        | "<"
                        | ">"
                )
    };
    // Two values the command did not choose may be compared (`[ "$a" = "$b" ]`); one it chose
    // (a literal, a loop variable, a public one) against one it did not is a guess.
    let chosen = seg.words.iter().any(|w| {
        w.expansions.parameter
            && expanded_names(&w.text)
                .iter()
                .any(|n| known_value(cx, Some(i), n, w.span.start))
    });
    let compares = seg
        .words
        .iter()
        .any(|w| w.is_static() && matches!(w.text.as_str(), "=" | "==" | "!=" | "<" | ">"));
    let loud = loud || !seg.words.iter().all(presence) || (compares && chosen);
    let test = !loud
        && (seg.kind == SegmentKind::Test
            || seg
                .words
                .first()
                .is_some_and(|w| matches!(w.text.as_str(), "test" | "[")));
    let mut found: Vec<(Span, String)> = Vec::new();
    let words = seg.words.iter().filter(|_| !test);
    for w in words
        .chain(seg.assignments.iter().map(|a| &a.value))
        .chain(seg.redirects.iter().filter_map(|r| r.target.as_ref()))
    {
        if w.expansions.parameter {
            for n in expanded_names(&w.text) {
                found.push((w.span, n));
            }
        }
    }
    for r in &seg.redirects {
        if matches!(r.op, RedirectOp::Heredoc | RedirectOp::HeredocStripTabs) && !r.quoted_heredoc {
            let body = cx.src.get(r.span.start..r.span.end).unwrap_or("");
            for n in expanded_names(body) {
                found.push((r.span, n));
            }
        }
    }
    for (span, n) in found {
        // `$_` and `BASH_REMATCH` hold what an earlier command was given or matched: a secret
        // the test above only compared (`test -n "$TOKEN"; echo "$_"`).
        let remembered = n == "_" || n == "BASH_REMATCH";
        if !remembered && known_value(cx, Some(i), &n, span.start) {
            continue;
        }
        let message = unknown_variable(cx, &n, "expands");
        cx.push(Code::PrintsEnvironment, span, Some(i), message);
    }
}

/// Why expanding `$name` asks: its name looks like a secret, or it is merely not known to be
/// public. `how` says what the command does with it.
fn unknown_variable(cx: &Ctx<'_>, name: &str, how: &str) -> String {
    if cx.list.sensitive.secret_var(name) || name == "_" || name == "BASH_REMATCH" {
        format!(
            "`${name}` {how} a variable whose name looks like a secret (`[sensitive] secret_vars`)"
        )
    } else {
        format!(
            "`${name}` {how} a variable the command did not set and `[sensitive] public_vars` does not list: its value may be a secret"
        )
    }
}

/// Whether `$name`, expanded at byte `at` (in segment `i`, when the use is one), holds a value
/// known not to be a secret: `public_vars` lists it, or the command itself gave it its value
/// before `at` (see [`set_before`]), from words that are checked where they are written.
fn known_value(cx: &Ctx<'_>, i: Option<usize>, name: &str, at: usize) -> bool {
    cx.list.sensitive.public_var(name) || set_before(cx, i, name, at)
}

/// Whether segment `seg` of `src` surely gives variable `name` a value of its own: a plain
/// assignment (`x=…`, not `x+=…`, which keeps the inherited value in front), `local x=…`
/// inside a function (at the top level `local` fails and assigns nothing), `declare`,
/// `typeset`, `export`, `readonly` with a value, `printf -v x`, `getopts`, or a `read` /
/// `mapfile` whose success the use depends on ([`gates`]): one that fails before reading
/// (a bad descriptor, a bad option value, a directory as input) leaves the inherited value,
/// `read -t 0` only polls, and `mapfile -O N` keeps element 0.
fn assigns(src: &str, seg: &Segment, name: &str) -> bool {
    let words: Vec<&str> = seg.words.iter().map(|w| w.text.as_str()).collect();
    let Some((&program, args)) = words.split_first() else {
        let appends = |a: &crate::segment::Assignment| {
            src.get(a.span.start..)
                .is_some_and(|t| t.starts_with(&format!("{name}+=")))
        };
        return seg.kind == SegmentKind::Assignments
            && seg
                .assignments
                .iter()
                .any(|a| a.name == name && !a.subscript && !appends(a));
    };
    // Option letters of `read` and `mapfile` that take a value (the rest of the word, or
    // the next word); every word that is no option is a name.
    let valued: &[char] = match program {
        "read" => &['a', 'd', 'i', 'n', 'N', 'p', 't', 'u'],
        _ => &['d', 'n', 'O', 's', 'u', 'C', 'c'],
    };
    let zero = |v: &str| !v.is_empty() && v.chars().all(|c| c == '0' || c == '.');
    match program {
        "read" | "mapfile" | "readarray" => {
            let mut names = Vec::new();
            let mut k = 0;
            while let Some(&a) = args.get(k) {
                k += 1;
                let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
                    names.push(a);
                    continue;
                };
                for (n, c) in cluster.char_indices() {
                    if !valued.contains(&c) {
                        continue;
                    }
                    let rest = &cluster[n + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        k += 1;
                        args.get(k - 1).copied().unwrap_or("")
                    } else {
                        rest
                    };
                    match (program, c) {
                        ("read", 'a') => names.push(value),
                        ("read", 't') if zero(value) => return false,
                        ("mapfile" | "readarray", 'O') => return false,
                        _ => {}
                    }
                    break;
                }
            }
            let default = if program == "read" {
                "REPLY"
            } else {
                "MAPFILE"
            };
            let named = names.contains(&name) || (names.is_empty() && name == default);
            named && gates(src, seg)
        }
        // `local x=1`: only with a value (`declare x` keeps an inherited one), and `local`
        // only in a function.
        "local" | "declare" | "typeset" | "export" | "readonly" => {
            // The words show `x+=1` as `x=1`: the source tells.
            let appends = src
                .get(seg.span.start..seg.span.end)
                .is_some_and(|t| t.contains(&format!("{name}+=")));
            (program != "local" || seg.nesting.contains(&crate::segment::Nest::Function))
                && !appends
                && args
                    .iter()
                    .any(|a| a.split_once('=').is_some_and(|(n, _)| n == name))
        }
        "printf" => args.windows(2).any(|p| p[0] == "-v" && p[1] == name),
        "getopts" => args.get(1) == Some(&name),
        _ => false,
    }
}

/// Whether what follows segment `seg` runs only when it succeeded: it is followed by `&&`, or
/// it is the condition of a `while`, `if` or `elif`.
fn gates(src: &str, seg: &Segment) -> bool {
    let before = src
        .get(..seg.span.start)
        .unwrap_or("")
        .trim_end_matches([' ', '\t', '\n']);
    let after = src
        .get(seg.span.end..)
        .unwrap_or("")
        .trim_start_matches([' ', '\t']);
    let keyword = |kw: &str| {
        before.strip_suffix(kw).is_some_and(|b| {
            b.is_empty() || b.ends_with([' ', '\t', '\n', ';', '&', '|', '(', '{'])
        })
    };
    let condition = (keyword("while") || keyword("if") || keyword("elif")) && {
        let next = after.trim_start_matches([';', ' ', '\t', '\n']);
        (after.starts_with([';', '\n'])) && (next.starts_with("do") || next.starts_with("then"))
    };
    after.starts_with("&&") || condition
}

/// Whether the command gives `name` its value before byte `at` where the use surely sees it:
/// a segment that assigns it (`x=…`, `read x`, `mapfile x`, `local x=…`, `printf -v x`) that
/// sits in the same or an outer construct as the use (segment `i`; at the top level when the
/// use is no segment's), runs whenever the text after it runs (not after `&&`, `||`, `|`, not
/// before `|` or `&`) and is not left before the use (no `fi`, `done`, `esac`, `else`, `}` or
/// `)` between them: a branch or subshell that may not have run); or the variable of a
/// `for NAME in` / `for ((NAME=…` loop whose body holds the use.
fn set_before(cx: &Ctx<'_>, i: Option<usize>, name: &str, at: usize) -> bool {
    let src = cx.src;
    let nesting: &[crate::segment::Nest] = i
        .and_then(|i| cx.script.segments.get(i))
        .map_or(&[], |s| s.nesting.as_slice());
    if kept_read_only(cx, name) {
        return false;
    }
    let assigned = cx
        .script
        .segments
        .iter()
        .any(|s| runs_before(src, nesting, s, at) && assigns(src, s, name));
    assigned || loop_body_holds(cx, name, at)
}

/// Whether the command makes `name` read-only without a value (`readonly x`, `declare -r x`):
/// the inherited value stays, and a later `read x`, `mapfile x` or `getopts … x` fails and
/// assigns nothing while bash goes on.
fn kept_read_only(cx: &Ctx<'_>, name: &str) -> bool {
    cx.script.segments.iter().any(|s| {
        let Some((program, args)) = s.words.split_first() else {
            return false;
        };
        let flagged = args.iter().any(|a| {
            a.text
                .strip_prefix('-')
                .is_some_and(|f| !f.starts_with('-') && f.contains('r'))
        });
        let read_only = match program.text.as_str() {
            "readonly" => true,
            "declare" | "typeset" | "local" => flagged,
            _ => false,
        };
        read_only && args.iter().any(|a| a.text == name)
    })
}

/// Whether segment `s` surely runs before byte `at` of `src`, a use nested in `nesting`: it
/// ends before `at`, sits in the same or an outer construct, runs whenever the text after it
/// runs (not after `&&`, `||`, `|`, `!`, not before `|` or `&`), and is not left before the
/// use (no `fi`, `done`, `esac`, `else`, `}` or `)` between them).
fn runs_before(src: &str, nesting: &[crate::segment::Nest], s: &Segment, at: usize) -> bool {
    let (start, end) = (s.span.start, s.span.end);
    if end > at {
        return false;
    }
    let before = src.get(..start).unwrap_or("").trim_end_matches([' ', '\t']);
    let after = src.get(end..).unwrap_or("").trim_start_matches([' ', '\t']);
    // `((n++))` between them is arithmetic, not the end of a subshell.
    let between = src.get(end..at).unwrap_or(")").replace("))", "");
    let conditional = before.ends_with("&&")
        || before.ends_with('|')
        || before.ends_with('!')
        || after.starts_with('|')
        || (after.starts_with('&') && !after.starts_with("&&"));
    let left = between.contains(";;")
        || between.contains(";&")
        || between
            .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
            .any(|t| {
                t.contains(')') || matches!(t, "fi" | "done" | "esac" | "else" | "elif" | "}")
            });
    nesting.starts_with(&s.nesting) && !conditional && !left
}

/// Builtins that can give a variable a value under a name built at run time (`read "$n"`,
/// `declare "$n=…"`, `printf -v "$n"`), or run text as commands (`eval`, `source`, `trap`).
const NAMES_AT_RUN_TIME: &[&str] = &[
    "eval",
    "source",
    ".",
    "trap",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "unset",
    "let",
    "wait",
    "printf",
];

/// Whether the command may assign a variable whose name is only known at run time, so no
/// variable's value can be taken from the text: a builtin of [`NAMES_AT_RUN_TIME`] with a
/// run-time word (`eval`, `source` and `trap` with any word), an indirect `${!x…}` (which
/// `${!x:=v}` assigns through), arithmetic over an expansion (`(( ${x} = 1 ))`), or an `IFS`
/// that would split the value.
fn names_at_run_time(cx: &Ctx<'_>) -> bool {
    let src = cx.src;
    if src.contains("${!") || src.contains("IFS") {
        return true;
    }
    // The builtin is the segment's program, after any `command`, `builtin` or `time` (and
    // their options); a program named at run time (`$cmd x`) may be any of them.
    let builtin = cx.script.segments.iter().any(|s| {
        let dynamic = s.words.iter().any(|w| !w.is_static());
        let program = s.words.iter().find(|w| {
            !matches!(w.text.as_str(), "command" | "builtin" | "time") && !w.text.starts_with('-')
        });
        program.is_some_and(|w| match w.text.as_str() {
            "eval" | "source" | "." | "trap" => true,
            t => !w.is_static() || (NAMES_AT_RUN_TIME.contains(&t) && dynamic),
        })
    });
    builtin
        || cx.script.events.iter().any(|(ev, sp)| {
            matches!(ev, crate::segment::Event::Arithmetic)
                && src
                    .get(sp.start..sp.end)
                    .is_none_or(|t| t.contains(['$', '`']))
        })
}

/// The value of `$name`, read at byte `at` in segment `i`, when the command gives it a
/// literal exactly once before (`d=src; cat "$d/x"`): one plain assignment `name=VALUE` in a
/// segment of its own that surely runs before the use ([`runs_before`]), whose value is a
/// static run of plain path characters, and no other mention of the name anywhere in the
/// command but `$name` and `${name…}` reads (a second assignment, `read name`, `export name`,
/// `${name:=…}`, a loop over it, `name+=…` all refuse). Nothing may assign a variable by a
/// name built at run time ([`names_at_run_time`]).
fn assigned_literal(cx: &Ctx<'_>, i: usize, name: &str, at: usize) -> Option<Word> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(ident) || name.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    if names_at_run_time(cx) {
        return None;
    }
    let src = cx.src;
    let mut assignment: Option<usize> = None;
    let mut from = 0;
    while let Some(k) = src[from..].find(name) {
        let s = from + k;
        let e = s + name.len();
        from = e;
        let before = &src[..s];
        if before.ends_with(ident) || src[e..].starts_with(ident) {
            continue;
        }
        if before.ends_with('$') || before.ends_with("${") || before.ends_with("${#") {
            // `${name=x}` and `${name:=x}` assign.
            let after = &src[e..];
            let assigns =
                before.ends_with("${") && (after.starts_with('=') || after.starts_with(":="));
            if assigns {
                return None;
            }
            continue;
        }
        let word_start =
            before.is_empty() || before.ends_with([' ', '\t', '\n', ';', '&', '|', '(', '{']);
        let plain = word_start && src[e..].starts_with('=') && !src[e..].starts_with("==");
        if !plain || assignment.is_some() {
            return None;
        }
        assignment = Some(s);
    }
    let at_name = assignment?;
    let nesting = cx
        .script
        .segments
        .get(i)
        .map_or(&[][..], |s| s.nesting.as_slice());
    let seg = cx.script.segments.iter().find(|s| {
        s.kind == SegmentKind::Assignments && s.span.start <= at_name && at_name < s.span.end
    })?;
    if !runs_before(src, nesting, seg, at) {
        return None;
    }
    let a = seg.assignments.iter().find(|a| a.span.start == at_name)?;
    let value = a.value.static_text()?;
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-/+,@%*?".contains(c);
    let tilde = value.strip_prefix('~').unwrap_or(value);
    if a.subscript || value.is_empty() || !tilde.chars().all(plain) {
        return None;
    }
    Some(Word {
        text: value.to_string(),
        span: a.value.span,
        expansions: crate::segment::Expansions {
            glob: value.contains(['*', '?']),
            ..Default::default()
        },
        quoted: a.value.quoted,
    })
}

/// Whether byte `at` lies in the body of a `for NAME in …`, `select NAME in …` or
/// `for ((NAME=…` loop: before the first `done` after its head (a nested loop's `done` only
/// makes this stricter).
fn loop_body_holds(cx: &Ctx<'_>, name: &str, at: usize) -> bool {
    let src = cx.src;
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let Some(head) = src.get(..at) else {
        return false;
    };
    let mut from = 0;
    while let Some(k) = head[from..].find(name) {
        let s = from + k;
        let e = s + name.len();
        from = e;
        if head[..s].ends_with(ident) || head[e..].starts_with(ident) {
            continue;
        }
        let before = head[..s].trim_end_matches([' ', '\t']);
        let after = head[e..].trim_start_matches([' ', '\t']);
        let keyword = |kw: &str| {
            before.strip_suffix(kw).is_some_and(|b| {
                b.is_empty() || b.ends_with([' ', '\t', ';', '\n', '&', '|', '(', '{'])
            })
        };
        let listed = (keyword("for") || keyword("select")) && after.starts_with("in ");
        let counted = before.ends_with("((")
            && keyword_before_parens(before)
            && after.starts_with('=')
            && !after.starts_with("==");
        // The head must be a loop the parser saw, not the same text in a comment, a heredoc
        // or an argument (`echo x for NAME in y`): the walker reports `for NAME` as an
        // assignment ending at the name, and a C-style loop's `NAME=` as arithmetic there.
        let parsed = cx.script.events.iter().any(|(ev, sp)| match ev {
            crate::segment::Event::ExpansionAssignment(n) => listed && n == name && sp.end == e,
            crate::segment::Event::Arithmetic => counted && sp.start == s,
            _ => false,
        });
        if !parsed {
            continue;
        }
        let body = &head[e..];
        let closed = body
            .match_indices("done")
            .any(|(d, _)| !body[..d].ends_with(ident) && !body[d + 4..].starts_with(ident));
        if !closed {
            return true;
        }
    }
    false
}

/// Whether `text` (ending in `((`) is the head of an arithmetic `for ((`.
fn keyword_before_parens(text: &str) -> bool {
    let b = text
        .strip_suffix("((")
        .unwrap_or("")
        .trim_end_matches([' ', '\t']);
    b.strip_suffix("for")
        .is_some_and(|b| b.is_empty() || b.ends_with([' ', '\t', ';', '\n', '&', '|', '(', '{']))
}

/// `for t in "$GITHUB_TOKEN"; do echo "$t"; done`: the words of a `for` list reach the body
/// through the loop variable, so a secret-looking variable there counts as printed. `span` is
/// the `for NAME` of a `for_statement` event (any other event span is left alone); the list is
/// the text after it up to the first unquoted `;`, `&` or newline outside a substitution, with
/// single-quoted parts (which expand nothing) dropped.
pub(super) fn for_list(cx: &mut Ctx<'_>, span: Span) {
    let Some(head) = cx.src.get(span.start..span.end) else {
        return;
    };
    if !(head.starts_with("for") || head.starts_with("select")) {
        return;
    }
    let rest = cx.src.get(span.end..).unwrap_or("");
    let after = rest.trim_start_matches([' ', '\t']);
    let Some(list) = after
        .strip_prefix("in")
        .filter(|l| l.starts_with([' ', '\t', '\n']))
    else {
        return;
    };
    let start = span.end + (rest.len() - list.len());
    let mut text = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut end = start + list.len();
    let mut chars = list.char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => continue,
            (Some('"'), '"') => quote = None,
            (None, '\'') if depth == 0 => {
                quote = Some('\'');
                continue;
            }
            (None, '"') => quote = Some('"'),
            (_, '\\') => {
                text.push(c);
                if let Some((_, n)) = chars.next() {
                    text.push(n);
                }
                continue;
            }
            (_, '(') => depth += 1,
            (_, ')') => depth = depth.saturating_sub(1),
            (None, ';' | '&' | '\n') if depth == 0 => {
                end = start + k;
                break;
            }
            _ => {}
        }
        text.push(c);
    }
    for n in expanded_names(&text) {
        if !known_value(cx, None, &n, start) {
            let why = unknown_variable(
                cx,
                &n,
                "in a `for` list reaches the loop's body through the loop variable; it is",
            );
            cx.push(Code::PrintsEnvironment, Span::new(start, end), None, why);
            return;
        }
    }
}

/// `case $TOKEN in F*) echo F;; esac`: which arm runs (or the exit status) tells what the value
/// is like, letter by letter, as a comparison that prints its outcome does. A variable in a
/// `case` subject that is neither public nor set by the command asks. The subject is found in
/// the text (`case WORD in`); the same text inside a string only makes this stricter.
pub(super) fn case_subjects(cx: &mut Ctx<'_>) {
    static CASE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(re) = CASE
        .get_or_init(|| {
            regex::Regex::new(r"(?:^|[\s;&|(){}])case[ \t]+(.+?)[ \t\n]+in(?:[ \t\n;]|$)").ok()
        })
        .as_ref()
    else {
        return;
    };
    let found: Vec<(Span, String)> = re
        .captures_iter(cx.src)
        .filter_map(|c| c.get(1))
        .flat_map(|m| {
            let span = Span::new(m.start(), m.end());
            expanded_names(m.as_str())
                .into_iter()
                .map(move |n| (span, n))
        })
        .collect();
    for (span, n) in found {
        if !known_value(cx, None, &n, span.start) {
            let why = unknown_variable(
                cx,
                &n,
                "is compared in a `case` whose arms tell its value; it is",
            );
            cx.push(Code::PrintsEnvironment, span, None, why);
        }
    }
}

/// Whether the command turns on xtrace (`set -x`, `set -o xtrace`, `bash -x`), which prints
/// every expanded word to stderr.
fn xtrace(src: &str) -> bool {
    src.contains("xtrace")
        || src.split_whitespace().any(|w| {
            let w = w.trim_end_matches([';', '&', '|', ')']);
            w.len() > 1
                && (w.starts_with('-') || w.starts_with('+'))
                && !w.starts_with("--")
                && w[1..].chars().all(|c| c.is_ascii_alphabetic())
                && w.contains('x')
        }) && src
            .split_whitespace()
            .any(|w| w == "set" || w.ends_with("sh"))
}

/// awk's `ENVIRON` array, and files awk reads with `getline < "path"`.
pub(super) fn awk_program(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str, rule: &str) {
    if program.contains("ENVIRON") {
        cx.push_rule(
            Code::PrintsEnvironment,
            span,
            Some(i),
            "awk program reads `ENVIRON`, the whole environment".into(),
            rule,
        );
    }
    let mut rest = program;
    while let Some(at) = rest.find("getline") {
        rest = &rest[at + "getline".len()..];
        let end = rest.find([';', '\n', '}', ')']).unwrap_or(rest.len());
        if let Some(lt) = rest[..end].find('<')
            && let Some(q) = rest[lt + 1..].trim_start().strip_prefix('"')
            && let Some(close) = q.find('"')
        {
            read_text(cx, i, span, &q[..close], rule);
        }
    }
}

/// Files a sed script reads with `r FILE` / `R FILE`, which run to the end of the line: the
/// rest of the line after every `r` and `R` counts as a file name. That over-approximates
/// (`s/for/x/` yields `/x/`), which only matters when the tail names a sensitive path.
pub(super) fn sed_script(cx: &mut Ctx<'_>, i: usize, span: Span, script: &str) {
    for line in script.lines() {
        for (k, _) in line.match_indices(['r', 'R']) {
            let file = line[k + 1..].trim();
            if file.is_empty() {
                continue;
            }
            // Where a command can start (`1r f`, `$r f`, `;r f`, `r f`), the tail is surely
            // a file name, and one outside the project asks too; elsewhere (`s/x/bar/g`) it is
            // only guessed to be one, and judged by the table alone.
            let command = line[..k]
                .trim_end()
                .chars()
                .last()
                .is_none_or(|c| c.is_ascii_digit() || "$;{}!".contains(c));
            let w = Word {
                text: file.to_string(),
                span,
                expansions: Default::default(),
                quoted: false,
            };
            read_with(cx, i, &w, "sed", command);
        }
    }
}

/// `ps` fields that show no process's arguments or environment (`comm` is the program's
/// name, at most 15 bytes, not its command line).
const PS_FIELDS: &[&str] = &[
    "pid", "ppid", "pgid", "pgrp", "sid", "tty", "tt", "tname", "stat", "state", "s", "time",
    "etime", "etimes", "start", "stime", "lstart", "comm", "ucomm", "ucmd", "user", "uid", "ruser",
    "euser", "ruid", "euid", "group", "gid", "pcpu", "%cpu", "pmem", "%mem", "rss", "rssize",
    "vsz", "vsize", "sz", "nlwp", "lwp", "tid", "spid", "pri", "ni", "nice", "wchan", "psr", "cls",
    "f", "c",
];

/// Whether `ps WORDS` shows only what [`PS_FIELDS`] name: the UNIX options that select
/// processes or pick the default, `-l`, `-j` or tree layouts (all with the 15-byte `comm`),
/// and `-o`/`--format` lists of those fields. `ps aux`, `ps -ef`, `ps -f`, any BSD form (its
/// default shows `args`) and `-o args` print every process's command line, where tokens are
/// passed (`mysql -pPASS`, `curl -u user:pass`, servers started with `--api-key`).
fn ps_shows_no_arguments(rest: &[Word]) -> bool {
    let fields_ok = |list: &str| {
        list.split([',', ' '])
            .filter(|f| !f.is_empty())
            .all(|f| PS_FIELDS.contains(&f.split_once('=').map_or(f, |(n, _)| n)))
    };
    let mut k = 0;
    while k < rest.len() {
        let Some(t) = rest[k].static_text() else {
            return false;
        };
        let next = rest.get(k + 1).and_then(Word::static_text);
        match t {
            "-o" | "--format" => match next {
                Some(list) if fields_ok(list) => k += 1,
                _ => return false,
            },
            "-p" | "-C" | "-u" | "-U" | "-g" | "-G" | "-t" | "-q" | "--pid" | "--ppid"
            | "--sort" => {
                if next.is_none() {
                    return false;
                }
                k += 1;
            }
            "--no-headers" | "--forest" | "--help" | "-V" | "--version" => {}
            t if t.starts_with("--sort=")
                || t.starts_with("--pid=")
                || t.starts_with("--ppid=") => {}
            t if t.starts_with("--format=") => {
                if !fields_ok(&t["--format=".len()..]) {
                    return false;
                }
            }
            t if t.starts_with("-o") && t.len() > 2 => {
                if !fields_ok(&t[2..]) {
                    return false;
                }
            }
            t if t.starts_with('-')
                && !t.starts_with("--")
                && t.len() > 1
                && t[1..].chars().all(|c| "eAadNlHjyLTmhr".contains(c)) => {}
            // `-eo pid,comm`: selection letters, then `-o` and its list.
            t if t.starts_with('-')
                && !t.starts_with("--")
                && t.ends_with('o')
                && t[1..t.len() - 1]
                    .chars()
                    .all(|c| "eAadNlHjyLTmhr".contains(c)) =>
            {
                match next {
                    Some(list) if fields_ok(list) => k += 1,
                    _ => return false,
                }
            }
            _ => return false,
        }
        k += 1;
    }
    true
}

/// `ps e`, `ps eww`, `ps auxe` (BSD `e`) and `ps -E` print other processes' environments;
/// any form that may show their command lines asks too ([`ps_shows_no_arguments`]).
fn ps(cx: &mut Ctx<'_>, i: usize, rest: &[Word]) {
    if !ps_shows_no_arguments(rest) {
        let span = rest.first().map_or(Span::default(), |w| w.span);
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            "`ps` prints other processes' command lines here, where passwords and tokens are often passed (`mysql -pPASS`, `--api-key`); `ps -e -o pid,comm` shows only names".into(),
            "ps",
        );
    }
    for w in rest {
        let Some(t) = w.static_text() else { continue };
        let bsd =
            !t.starts_with('-') && t.chars().all(|c| c.is_ascii_alphabetic()) && t.contains('e');
        let unix = t.starts_with('-') && !t.starts_with("--") && t.contains('E');
        // procps reads `-auxe` as the BSD `auxe` (it warns and carries on), so an `e` in a dash
        // cluster that also holds a BSD-only letter shows environments too.
        let dashed_bsd = t.starts_with('-')
            && !t.starts_with("--")
            && t.contains('e')
            && t[1..]
                .chars()
                .any(|c| matches!(c, 'u' | 'x' | 'r' | 'w' | 'S' | 'c' | 'v'));
        let unix = unix || dashed_bsd;
        if bsd || unix {
            cx.push_rule(
                Code::PrintsEnvironment,
                w.span,
                Some(i),
                format!("`ps {t}` prints the environment of processes"),
                "ps",
            );
        }
    }
}

/// `jq -n env`, `$ENV`, `env.TOKEN`: jq's view of the environment. A field named `env`
/// (`.env`) is data.
fn jq_filter(cx: &mut Ctx<'_>, i: usize, w: &Word) {
    // A run-time filter is a dynamic argument of jq already.
    let Some(text) = w.static_text() else { return };
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // jq allows blanks between `$` and the name (`$ ENV`).
    let squeezed: String = text
        .split('$')
        .enumerate()
        .map(|(k, part)| {
            if k == 0 {
                part.to_string()
            } else {
                format!("${}", part.trim_start())
            }
        })
        .collect();
    let mut hit = squeezed.contains("$ENV");
    let mut at = 0;
    while !hit && let Some(k) = text[at..].find("env") {
        let s = at + k;
        let e = s + 3;
        let before = s.checked_sub(1).map(|p| b[p]);
        hit = !before.is_some_and(|c| ident(c) || c == b'.' || c == b'$')
            && !b.get(e).is_some_and(|&c| ident(c));
        at = e;
    }
    if hit {
        cx.push_rule(
            Code::PrintsEnvironment,
            w.span,
            Some(i),
            format!("jq filter `{text}` reads the environment (`env`, `$ENV`)"),
            "jq",
        );
    }
}

/// An operand the program reads.
fn read(cx: &mut Ctx<'_>, i: usize, w: &Word, program: &str) {
    read_with(cx, i, w, program, true);
}

/// An operand the program reads; `outside` says whether a read outside the working directory
/// asks (not for text only guessed to be a file name, as sed's `r` in `s/foo/bar/`).
fn read_with(cx: &mut Ctx<'_>, i: usize, w: &Word, program: &str, outside_asks: bool) {
    if climbs_out_of_a_link(&w.text) {
        cx.push_rule(
            Code::SensitiveRead,
            w.span,
            Some(i),
            format!(
                "`{program}` reads `{}`: `..` after a `/dev` or `/proc` link (`/dev/fd` is `/proc/self/fd`) leads where the text does not say",
                w.text
            ),
            program,
        );
        return;
    }
    // `cat "$PWD/x"`, `for d in src; do cat "$d/notes"; done`: a run-time prefix whose values
    // are known is read as each of them.
    if let Some(values) = known_prefix(cx, i, w) {
        for v in &values {
            read_with(cx, i, v, program, outside_asks);
        }
        return;
    }
    let base = base(cx);
    let cands = candidates(cx, w, &base);
    if cands.is_empty() && !w.is_static() {
        // `cat "$f"`, `cat "$(find . -name .env)"`, `cat "${f:-.env}"`: the whole name is a
        // run-time value, which may be any file, a secret included.
        if let Some(values) = loop_values(cx, i, w) {
            for v in &values {
                read_with(cx, i, v, program, outside_asks);
            }
            return;
        }
        if substituted_lister(cx, i, w, program) {
            return;
        }
        cx.push_rule(
            Code::SensitiveRead,
            w.span,
            Some(i),
            format!(
                "`{program}` reads a file whose name is only known when it runs (`{}`), which may be a secret",
                w.text
            ),
            program,
        );
        return;
    }
    if let Some((pattern, shown)) = reached(cx, &cands, false) {
        let message = match cx.place.as_deref().and_then(|p| p.lost()) {
            Some(why) if cands.iter().any(|c| c.anywhere) => format!(
                "`{program}` reads `{}` after {why}, in a directory known only at run time, which may be a sensitive place (`{pattern}`)",
                w.text
            ),
            _ => format!("`{program}` reads `{shown}`, which `[sensitive]` lists (`{pattern}`)"),
        };
        cx.push_rule(Code::SensitiveRead, w.span, Some(i), message, program);
        return;
    }
    if !outside_asks {
        return;
    }
    if let Some(message) = outside(cx, w, &cands, &base, program) {
        cx.push_rule(Code::SensitiveRead, w.span, Some(i), message, program);
    }
}

/// Why reading `w` asks when a place it names lies outside the working directory and in no
/// `[sensitive] public_paths` place: a path under a run-time directory (`"$XDG_CONFIG_HOME/x"`,
/// which may be a home's `.config`), a relative path after a `cd` to a directory known only at
/// run time, or an absolute or home path outside the project (the directory the command
/// starts in, not one a `cd` reached; every path, when none is known). A symlink inside counts as the file it reaches (its candidate is there).
fn outside(
    cx: &Ctx<'_>,
    w: &Word,
    cands: &[Candidate],
    base: &Base,
    program: &str,
) -> Option<String> {
    if word_toks(w).is_some_and(|t| t.first() == Some(&Tok::Any)) {
        return Some(format!(
            "`{program}` reads `{}`, under a directory known only at run time, which may be outside the project (a home's credentials included)",
            w.text
        ));
    }
    // The project is the directory the command starts in: a `cd /tmp` or `cd ..` before the
    // read does not make `/tmp` or the parent part of it.
    let place = cx.place.as_deref();
    let phys: Vec<PathBuf> = place
        .map(|p| [Some(p.project().to_path_buf()), p.physical(p.project())])
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    let c = cands.iter().find(|c| {
        if c.anywhere {
            return true;
        }
        if !matches!(c.glob.toks.first(), Some(Tok::Lit('/' | '~'))) {
            return false;
        }
        let prefix: String = c
            .glob
            .toks
            .iter()
            .map_while(|t| match t {
                Tok::Lit(ch) => Some(*ch),
                _ => None,
            })
            .collect();
        let within = absolute(&prefix, base).is_some_and(|abs| {
            let abs = Path::new(&abs);
            phys.iter().any(|d| abs.starts_with(d))
        });
        !within && !cx.list.sensitive.public_path(&c.glob)
    })?;
    Some(if c.anywhere {
        format!(
            "`{program}` reads `{}` in a directory known only at run time, which may be outside the project",
            w.text
        )
    } else {
        format!(
            "`{program}` reads `{}`, a file outside the project (the working directory) and outside the places `[sensitive] public_paths` lists",
            show(&c.glob)
        )
    })
}

/// The root of a walk whose files a program reads (`find ROOT -exec cat`, `find ROOT | xargs
/// cat`): outside the working directory and every public place, it asks as a read there does.
fn outside_root(cx: &mut Ctx<'_>, i: usize, w: &Word, program: &str) {
    let base = base(cx);
    let cands = candidates(cx, w, &base);
    if let Some(message) = outside(cx, w, &cands, &base, program) {
        cx.push_rule(Code::SensitiveRead, w.span, Some(i), message, program);
    }
}

/// The words a read operand stands for when it starts with a run-time value whose values are
/// known: the working directory (`$PWD`, `$(pwd)`), the top of the work tree
/// (`$(git rev-parse --show-toplevel)`), or the variable of the `for` loop around it over
/// plain words (`for d in src; do cat "$d/notes"; done`). `None` for any other word.
fn known_prefix(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<Vec<Word>> {
    let text = w.text.as_str();
    let word = |t: String| Word {
        expansions: crate::segment::Expansions {
            glob: w.expansions.glob,
            ..w.expansions
        },
        text: t,
        span: w.span,
        quoted: w.quoted,
    };
    let split = |prefix: &str| {
        text.strip_prefix(prefix)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    for here in ["$PWD", "${PWD}", "$(pwd)", "`pwd`"] {
        if let Some(rest) = split(here) {
            return Some(vec![word(format!(".{rest}"))]);
        }
    }
    for top in [
        "$(git rev-parse --show-toplevel)",
        "`git rev-parse --show-toplevel`",
    ] {
        if let Some(rest) = split(top) {
            return Some(
                toplevels(cx, "")
                    .into_iter()
                    .map(|t| word(format!("{t}{rest}")))
                    .collect(),
            );
        }
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let (name, rest) = if let Some(t) = text.strip_prefix("${") {
        let (n, r) = t.split_once('}')?;
        (n, r)
    } else {
        let t = text.strip_prefix('$')?;
        let end = t.find(|c: char| !ident(c)).unwrap_or(t.len());
        t.split_at(end)
    };
    if name.is_empty() || !name.chars().all(ident) {
        return None;
    }
    // `d=src; cat "$d/x"`, `f=notes; cat $f.txt`: a literal the command assigned once is read
    // as written there. The word's text must start with the expansion in the source too (not
    // a single-quoted `'$d'`, which is literal).
    let source = cx.src.get(w.span.start..w.span.end).unwrap_or("");
    let source = source.strip_prefix('"').unwrap_or(source);
    let expanded =
        source.starts_with(&format!("${name}")) || source.starts_with(&format!("${{{name}}}"));
    if let Some(v) = expanded
        .then(|| assigned_literal(cx, i, name, w.span.start))
        .flatten()
    {
        let mut out = word(format!("{}{rest}", v.text));
        if !rest.contains(['$', '`']) {
            out.expansions = crate::segment::Expansions {
                glob: w.expansions.glob,
                ..Default::default()
            };
        }
        out.expansions.glob |= v.expansions.glob;
        return Some(vec![out]);
    }
    if !rest.starts_with('/') {
        return None;
    }
    let var = Word {
        text: format!("${name}"),
        span: w.span,
        expansions: Default::default(),
        quoted: false,
    };
    let values = loop_values(cx, i, &var)?;
    Some(
        values
            .into_iter()
            .map(|v| {
                let mut out = word(format!("{}{rest}", v.text));
                // With no other run-time part, the word is the loop word's text: a glob in it
                // is expanded as bash expanded the loop's list (`for d in src/*`).
                if !rest.contains(['$', '`']) {
                    out.expansions = crate::segment::Expansions {
                        glob: w.expansions.glob,
                        ..Default::default()
                    };
                }
                out.expansions.glob |= v.expansions.glob;
                out
            })
            .collect(),
    )
}

/// `cat "$(find . -name '*.md')"`, `wc -l -- $(git ls-files)`: a reader's operand that is the
/// output of one lister (the programs `xargs` readers are judged by, `git ls-files`, `echo`)
/// names what that lister lists, and is judged the same way. `false` when the substitution is
/// anything else (a pipeline, another program), which the caller asks about.
fn substituted_lister(cx: &mut Ctx<'_>, i: usize, w: &Word, reader: &str) -> bool {
    let plain = w
        .text
        .strip_prefix("$(")
        .and_then(|t| t.strip_suffix(')'))
        .is_some_and(|t| !t.contains(['$', '`', '(', ')', '|', ';', '&', '<', '>', '\n']));
    if !plain {
        return false;
    }
    let script = cx.script;
    let within = |s: &Segment| s.span.start >= w.span.start && s.span.end <= w.span.end;
    let mut inside = script
        .segments
        .iter()
        .enumerate()
        .filter(|(k, s)| *k != i && within(s));
    let (Some((_, seg)), None) = (inside.next(), inside.next()) else {
        return false;
    };
    if seg.kind != SegmentKind::Command || !seg.redirects.is_empty() {
        return false;
    }
    let Some(first) = seg.words.first() else {
        return false;
    };
    let program = super::deny::basename(&first.text);
    let args = &seg.words[1..];
    let shown = format!("{reader} $({program} …)");
    match program {
        "git" if args.first().is_some_and(|a| a.text == "ls-files") => {
            ls_files(cx, i, &args[1..], w.span, reader);
        }
        "echo" | "printf" => {
            for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                read(cx, i, a, reader);
            }
        }
        // `"$(pwd)"` is the working directory, wherever the `cd`s before it led.
        "pwd" if args.iter().all(|a| matches!(a.text.as_str(), "-L" | "-P")) => {
            let here = Word {
                text: ".".into(),
                span: w.span,
                expansions: Default::default(),
                quoted: false,
            };
            read(cx, i, &here, reader);
        }
        _ => match lister(program, args) {
            Some((how, filter, roots)) => {
                for root in roots {
                    search(cx, i, &root, &shown, Some((&how, &filter)));
                    outside_root(cx, i, &root, &shown);
                }
            }
            None => return false,
        },
    }
    true
}

/// The values a whole-word `"$NAME"` can take when `NAME` is only ever the variable of one
/// `for NAME in WORDS` whose words are plain or globs, and the word is inside a loop: then it
/// is one of those words (`for f in src/*.c; do wc -l "$f"; done`). `None` otherwise — any
/// other mention of the name (`f=…`, `read f`, `declare f`) may give it another value.
fn loop_values(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<Vec<Word>> {
    let inside_loop = cx
        .script
        .segments
        .get(i)?
        .nesting
        .contains(&crate::segment::Nest::Control);
    if !inside_loop {
        return None;
    }
    let name = w
        .text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| w.text.strip_prefix('$'))?;
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(ident) || name.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    let src = cx.src;
    let mut list: Option<&str> = None;
    let mut head_at = 0;
    let mut at = 0;
    while let Some(k) = src[at..].find(name) {
        let s = at + k;
        let e = s + name.len();
        at = e;
        let before = &src[..s];
        if before.ends_with(ident) || src[e..].starts_with(ident) {
            continue;
        }
        // `$f` and `${f}` read it; `${f:=x}` / `${f=x}` assign it.
        if before.ends_with("${") && (src[e..].starts_with(":=") || src[e..].starts_with('=')) {
            return None;
        }
        if before.ends_with('$') || before.ends_with("${") {
            continue;
        }
        // Inside a longer word (`-f`, `x.f`, `a/f`) the name assigns nothing; at a word's
        // start it may (`f=…`, `read f`, `declare f`, `((f=1))`).
        if !(before.is_empty()
            || before.ends_with(|c: char| c.is_whitespace() || ";&|(){}'\"=<>`".contains(c)))
        {
            continue;
        }
        // The one `for NAME in …` head.
        let head = before.trim_end_matches([' ', '\t']);
        if list.is_none()
            && head.strip_suffix("for").is_some_and(|b| {
                b.is_empty() || b.ends_with([' ', '\t', ';', '\n', '&', '|', '(', '{'])
            })
        {
            let after = src[e..].trim_start_matches([' ', '\t']);
            let words = after.strip_prefix("in ")?;
            let end = words.find([';', '\n'])?;
            list = Some(&words[..end]);
            head_at = e;
            continue;
        }
        return None;
    }
    // The read must lie in the loop's body: before the first `done` after the head (a nested
    // loop's `done`, or `done` in a string, only makes this stricter). After the loop, in a
    // pipeline beside it (`for …; done | if …; then cat "$f"; fi` runs in a subshell forked
    // before the loop), the variable may hold what was inherited.
    let body_end = {
        let mut end = None;
        let mut at = head_at;
        while let Some(k) = src.get(at..).and_then(|r| r.find("done")) {
            let s = at + k;
            let e = s + 4;
            at = e;
            if !src[..s].ends_with(ident) && !src[e..].starts_with(ident) {
                end = Some(s);
                break;
            }
        }
        end?
    };
    if w.span.start < head_at || w.span.end > body_end {
        return None;
    }
    let plain = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/+,:@%*?".contains(c))
    };
    let words: Vec<&str> = list?.split_whitespace().collect();
    if words.is_empty() || !words.iter().all(|t| plain(t)) {
        return None;
    }
    Some(
        words
            .into_iter()
            .map(|t| Word {
                text: t.to_string(),
                span: w.span,
                expansions: crate::segment::Expansions {
                    glob: t.contains(['*', '?']),
                    ..Default::default()
                },
                quoted: false,
            })
            .collect(),
    )
}

/// A glob with a wildcard in a directory part, expanded level by level as bash expands it:
/// every directory a wildcard component matches is listed in turn (a name that is not a
/// directory leads nowhere, a symlink to one is followed), and the paths it names in the end
/// are the candidates, or the pattern as written when none matches. `None` when the start is
/// not an absolute or home path, or past [`MAX_LISTED`] names in all.
fn expand_levels(place: &super::Place, toks: &[Tok], base: &Base) -> Option<Vec<Candidate>> {
    let mut comps: Vec<&[Tok]> = toks.split(|t| *t == Tok::Lit('/')).collect();
    let start = match comps.first() {
        Some([]) => "/".to_string(),
        Some([Tok::Lit('~')]) => absolute("~", base)?,
        _ => return None,
    };
    comps.remove(0);
    let mut frontier = vec![PathBuf::from(start)];
    let mut listed = 0usize;
    let last = comps.len().checked_sub(1)?;
    for (k, comp) in comps.iter().enumerate() {
        if comp.is_empty() {
            continue;
        }
        if !comp.iter().any(wild) {
            let name: String = comp
                .iter()
                .map(|t| match t {
                    Tok::Lit(c) => Some(*c),
                    _ => None,
                })
                .collect::<Option<String>>()?;
            for p in &mut frontier {
                p.push(&name);
            }
            continue;
        }
        let pattern = Glob {
            toks: comp.to_vec(),
            dot_rule: true,
        };
        let mut next = Vec::new();
        for dir in &frontier {
            // A name that is not a directory (or cannot be listed) has no names below it.
            let Some(names) = place.list(dir, MAX_LISTED) else {
                continue;
            };
            listed += names.len();
            if listed > MAX_LISTED {
                return None;
            }
            next.extend(
                names
                    .iter()
                    .filter(|n| intersects(&pattern, &Glob::literal(n)))
                    .map(|n| dir.join(n)),
            );
        }
        frontier = next;
        if frontier.is_empty() && k < last {
            break;
        }
    }
    let mut out: Vec<Candidate> = frontier
        .iter()
        .map(|p| literal_candidate(&p.to_string_lossy(), base))
        .collect();
    if out.is_empty() {
        let written = show(&Glob {
            toks: toks.to_vec(),
            dot_rule: false,
        });
        out.push(Candidate {
            glob: Glob::literal(&written),
            literal: Some(written),
            anywhere: false,
        });
    }
    Some(out)
}

/// `link/../x` where `link` is a symlink: the kernel applies `..` to the directory the link
/// leads to, not to the text, so `keys/../notes.txt` with `keys -> ~/.ssh` reads
/// `~/notes.txt`. With a working directory known, a word whose `..` follows a name is walked
/// component by component, each `..` applied to the physical directory, and the path reached
/// is a candidate too (its own symlinks resolved as any path's). A `..` after a wildcard or a
/// run-time part may lead anywhere: a candidate under any directory. `None` for a word with
/// no such `..`, or with no working directory (the lexical reading stands; README limits).
fn climbed(cx: &Ctx<'_>, w: &Word, base: &Base) -> Option<Vec<Candidate>> {
    let place = cx.place.as_deref()?;
    let parts: Vec<&str> = w.text.split('/').collect();
    let last_up = parts.iter().enumerate().rposition(|(k, p)| {
        *p == ".." && parts[..k].iter().any(|q| !matches!(*q, "" | "." | ".."))
    })?;
    let rest = parts[last_up + 1..].join("/");
    let prefix = &parts[..=last_up];
    let anywhere = || {
        let mut toks = vec![Tok::Any, Tok::Lit('/')];
        toks.extend(rest.chars().map(Tok::Lit));
        vec![Candidate {
            glob: Glob {
                toks,
                dot_rule: true,
            },
            literal: None,
            anywhere: true,
        }]
    };
    let dynamic = prefix
        .iter()
        .any(|p| p.contains(['$', '`']) || (w.expansions.glob && p.contains(['*', '?', '['])));
    if dynamic {
        return Some(anywhere());
    }
    let starts: Vec<PathBuf> = match prefix.first() {
        Some(&"") => vec![PathBuf::from("/")],
        Some(&"~") => match absolute("~", base) {
            Some(h) => vec![PathBuf::from(h)],
            None => return Some(anywhere()),
        },
        Some(p) if p.starts_with('~') => return Some(anywhere()),
        _ => match &base.dirs {
            Some(dirs) => dirs.clone(),
            None => return Some(anywhere()),
        },
    };
    let mut out = Vec::new();
    for start in starts {
        let mut cur = start;
        for p in prefix {
            match *p {
                "" | "." | "~" => {}
                ".." => {
                    if let Some(real) = place.physical(&cur) {
                        cur = real;
                    }
                    cur.pop();
                }
                name => cur.push(name),
            }
        }
        let text = if rest.is_empty() {
            cur.to_string_lossy().into_owned()
        } else {
            format!("{}/{rest}", cur.to_string_lossy().trim_end_matches('/'))
        };
        let walked = Word {
            text,
            span: w.span,
            expansions: w.expansions,
            quoted: w.quoted,
        };
        out.extend(candidates(cx, &walked, base));
    }
    Some(out)
}

/// `/dev/fd/../environ` is `/proc/self/environ`: under `/dev` and `/proc` many entries are
/// symlinks (`/dev/fd`, `/dev/stdin`, `/proc/self`, `/proc/N/cwd`), so `..` there cannot be
/// applied to the text.
fn climbs_out_of_a_link(text: &str) -> bool {
    let t = text.trim_start_matches('/');
    let under = text.starts_with('/') && (t.starts_with("dev/") || t.starts_with("proc/"));
    under && text.split('/').any(|p| p == "..")
}

/// `… | xargs cat`: xargs hands the reader the words of its input. Judged where they can be
/// seen — the words an `echo`/`printf` before the pipe prints, the roots a `find`/`ls` before it
/// lists, a here-string, the file `-a` names; a file of names given with `<` cannot be read here
/// and asks.
fn xargs_feed(cx: &mut Ctx<'_>, i: usize, name: &str, reader: bool) {
    let Some(seg) = cx.script.segments.get(i) else {
        return;
    };
    if seg.words.first().map(|w| super::deny::basename(&w.text)) != Some("xargs") {
        return;
    }
    let mut feed: Vec<(Word, Option<(WalkRules, Names)>)> = Vec::new();
    let words = &seg.words;
    for (k, w) in words.iter().enumerate() {
        let t = w.text.as_str();
        if t == "-a" || t == "--arg-file" {
            if let Some(f) = words.get(k + 1) {
                feed.push((f.clone(), None));
            }
        } else if let Some(f) = t.strip_prefix("--arg-file=").or_else(|| {
            t.strip_prefix("-a")
                .filter(|r| !r.is_empty() && !t.starts_with("--"))
        }) {
            let mut named = w.clone();
            named.text = f.to_string();
            feed.push((named, None));
        }
    }
    // xargs reads the file itself whatever it runs.
    for (w, _) in &feed {
        read(cx, i, w, "xargs -a");
    }
    if !reader {
        return;
    }
    // The names in it are what the reader opens, and nobody saw them.
    let mut unseen: Option<(Span, String)> = feed
        .drain(..)
        .next()
        .map(|(w, _)| (w.span, format!("`{}`", w.text)));
    for r in &seg.redirects {
        match (r.op, &r.target) {
            (RedirectOp::Herestring, Some(t)) => {
                for tok in t.text.split_whitespace() {
                    let mut w = t.clone();
                    w.text = tok.to_string();
                    feed.push((w, None));
                }
            }
            (RedirectOp::Read, Some(t)) if r.fd.is_none_or(|fd| fd == 0) => {
                unseen = Some((t.span, "a file".into()));
            }
            _ => {}
        }
    }
    let feeder = i
        .checked_sub(1)
        .and_then(|p| cx.script.segments.get(p))
        .filter(|p| p.joiner == Some(Joiner::Pipe));
    // Without a pipe the input is the caller's own (an agent's is empty), not names the
    // command chose.
    if let Some(prev) = feeder {
        let program = prev
            .words
            .first()
            .map_or("", |w| super::deny::basename(&w.text));
        let args = prev.words.get(1..).unwrap_or(&[]);
        match program {
            "echo" | "printf" => {
                feed.extend(
                    args.iter()
                        .filter(|w| !w.text.starts_with('-'))
                        .map(|w| (w.clone(), None)),
                );
            }
            // `git ls-files` lists tracked files (a committed `.env`, a tracked symlink into
            // `~/.aws`) or, with `-o`, untracked and ignored ones: judged by the index where
            // it can be read, asked about otherwise.
            "git" if args.first().is_some_and(|w| w.text == "ls-files") => {
                ls_files(cx, i, &args[1..], prev.span, name);
            }
            _ => match lister(program, args) {
                Some((how, filter, roots)) => {
                    feed.extend(roots.into_iter().map(|w| (w, Some((how, filter.clone())))));
                }
                None => {
                    let shown = prev.words.first().map_or("", |w| w.text.as_str());
                    unseen = Some((prev.span, format!("the output of `{shown}`")));
                }
            },
        }
    }
    let feeder = feeder
        .and_then(|p| p.words.first())
        .map_or(String::new(), |w| format!("{} | ", w.text));
    let program = format!("{feeder}xargs {name}");
    for (w, how) in feed {
        match how {
            Some((how, filter)) => {
                search(cx, i, &w, &program, Some((&how, &filter)));
                outside_root(cx, i, &w, &program);
            }
            None => read(cx, i, &w, name),
        }
    }
    if let Some((span, from)) = unseen {
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            format!("`xargs {name}` reads the files named in {from}, which cmdguard cannot see"),
            name,
        );
    }
}

/// `git grep` without `--no-index`/`--untracked` reads the files git tracks (a committed
/// `.env` or key): judged by the index, under the roots of the pathspecs (see
/// [`pathspec_root`]; `:/` is the top of the work tree), under the working directory when
/// there are none. An operand before `--` that names no existing path is a revision, whose
/// tree cmdguard does not read (a secret committed there and deleted since is printed): it
/// asks.
///
/// `operands` are the words after the pattern (`pattern`, when it is an operand rather than
/// an `-e` value): a `--` before the pattern ends the options, not the revisions.
fn git_grep_tracked(
    cx: &mut Ctx<'_>,
    i: usize,
    rest: &[Word],
    operands: &[usize],
    pattern: Option<usize>,
) {
    let span = rest.last().map_or(Span::default(), |w| w.span);
    let Some(dirs) = cx
        .place
        .as_deref()
        .and_then(|p| p.dirs())
        .map(<[PathBuf]>::to_vec)
    else {
        return;
    };
    let Some(chdir) = git_chdir(cx, i) else {
        // `git -C "$d" grep` already asks.
        return;
    };
    let starts: Vec<PathBuf> = dirs
        .iter()
        .map(|d| match chdir.as_str() {
            "" => d.clone(),
            c if c.starts_with('/') => PathBuf::from(c),
            c => d.join(c),
        })
        .collect();
    let dashes = rest
        .iter()
        .enumerate()
        .position(|(k, w)| {
            w.static_text() == Some("--") && !operands.contains(&k) && pattern.is_none_or(|p| k > p)
        })
        .unwrap_or(rest.len());
    let mut specs: Vec<Pathspec> = Vec::new();
    for &k in operands {
        let w = &rest[k];
        let Some(t) = w.static_text() else {
            if k < dashes {
                return ask_revision(cx, i, w);
            }
            // A pathspec known only at run time may be `:/`.
            specs.push(Pathspec::Top);
            continue;
        };
        if k < dashes {
            let exists = starts.iter().all(|d| {
                let p = d.join(t);
                cx.place
                    .as_deref()
                    .and_then(|pl| pl.physical(&p))
                    .is_some_and(|r| r.exists())
            });
            if !exists {
                return ask_revision(cx, i, w);
            }
            specs.push(Pathspec::Path(t.to_string()));
            continue;
        }
        specs.push(pathspec_root(t));
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    for d in &starts {
        if specs.is_empty() {
            roots.push(d.clone());
        }
        for spec in &specs {
            match spec {
                Pathspec::Path(t) => roots.push(repo_join(d, t)),
                Pathspec::Top => roots.push(
                    cx.place
                        .as_deref()
                        .and_then(|p| p.toplevel(d))
                        .unwrap_or_else(|| d.clone()),
                ),
            }
        }
    }
    tracked(cx, i, span, &roots, Links::Skip, "git grep");
}

/// Options of `git log`, `git show` and `git diff` that select an output with no file content:
/// names, counts and summaries of changes.
const GIT_NO_CONTENT: &[&str] = &[
    "--stat",
    "--numstat",
    "--shortstat",
    "--name-only",
    "--name-status",
    "-s",
    "--no-patch",
    "--summary",
    "--compact-summary",
    "--dirstat",
    "-X",
    "--dirstat-by-file",
    "--raw",
    "--quiet",
    "--exit-code",
    "--check",
];

/// Options of `git log` and `git show` that neither print file content nor stop it: commit
/// selection, ordering and formatting. Any other option (`-p`, `--cc`, `--word-diff`, `-W`, one
/// cmdguard does not know) is taken to print content.
const GIT_CONTENT_NEUTRAL: &[&str] = &[
    "-n",
    "--max-count",
    "--skip",
    "--since",
    "--after",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep",
    "--all-match",
    "--invert-grep",
    "-i",
    "--regexp-ignore-case",
    "-E",
    "--extended-regexp",
    "-F",
    "--fixed-strings",
    "-P",
    "--perl-regexp",
    "--basic-regexp",
    "--merges",
    "--no-merges",
    "--min-parents",
    "--max-parents",
    "--no-min-parents",
    "--no-max-parents",
    "--first-parent",
    "--not",
    "--all",
    "--branches",
    "--tags",
    "--remotes",
    "--exclude",
    "--reflog",
    "-g",
    "--walk-reflogs",
    "--ancestry-path",
    "--simplify-by-decoration",
    "--full-history",
    "--dense",
    "--sparse",
    "--cherry-pick",
    "--cherry-mark",
    "--cherry",
    "--left-only",
    "--right-only",
    "--left-right",
    "--boundary",
    "--no-walk",
    "--do-walk",
    "--topo-order",
    "--date-order",
    "--author-date-order",
    "--reverse",
    "--oneline",
    "--format",
    "--pretty",
    "--abbrev-commit",
    "--no-abbrev-commit",
    "--abbrev",
    "--no-abbrev",
    "--date",
    "--relative-date",
    "--decorate",
    "--no-decorate",
    "--decorate-refs",
    "--decorate-refs-exclude",
    "--source",
    "--graph",
    "--parents",
    "--children",
    "--log-size",
    "--color",
    "--no-color",
    "--mailmap",
    "--use-mailmap",
    "--no-mailmap",
    "--no-use-mailmap",
    "--encoding",
    "--expand-tabs",
    "--no-expand-tabs",
    "--notes",
    "--no-notes",
    "--show-notes",
    "-z",
    "--follow",
    "--no-renames",
    "-M",
    "--find-renames",
    "-C",
    "--find-copies",
    "--find-copies-harder",
    "-l",
    "--diff-filter",
    "--relative",
    "--no-relative",
    "--find-object",
    "--stat-width",
    "--stat-name-width",
    "--stat-graph-width",
    "--stat-count",
    "--count",
    "--no-ext-diff",
    "--no-textconv",
];

/// `git show`, `git log -p`, `git diff REV`, `git cat-file -p OBJECT`: they print the content of
/// committed files, and a secret committed and later deleted would be printed. Only the forms
/// that print no content pass (names and summaries, [`GIT_NO_CONTENT`]), or the content of
/// pathspecs proven to be literal file paths, which the table judges as reads (`-- src/a.rs`).
fn git_history(cx: &mut Ctx<'_>, i: usize, name: &str, rest: &[Word], parsed: &[Arg<'_>]) {
    let dashdash = rest.iter().position(|w| w.text == "--");
    let mut options: Vec<&str> = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    let mut pathspecs: Vec<&Word> = Vec::new();
    for a in parsed {
        match a {
            Arg::Opt { name: o, .. } => options.push(o.as_str()),
            Arg::Operand { word, .. } | Arg::Dynamic { word } => {
                let w = &rest[*word];
                if dashdash.is_some_and(|d| *word > d) {
                    pathspecs.push(w);
                } else {
                    operands.push(w);
                }
            }
            Arg::Refused { .. } => {}
        }
    }
    let is = |o: &str, list: &[&str]| {
        list.iter()
            .any(|l| o == *l || o.strip_prefix(l).is_some_and(|r| r.starts_with('=')))
            || (o.starts_with('-')
                && !o.starts_with("--")
                && o[1..].bytes().all(|b| b.is_ascii_digit())
                && o.len() > 1)
    };
    let content_free = options.iter().any(|o| is(o, GIT_NO_CONTENT));
    let unknown = options
        .iter()
        .find(|o| !is(o, GIT_NO_CONTENT) && !is(o, GIT_CONTENT_NEUTRAL));
    let place = cx.place.as_deref();
    let base = base(cx);
    let why = match name {
        "git cat-file" => {
            // `-t`, `-s`, `-e` and `--batch-check` print types and sizes; `-p` of a commit
            // or tree prints no file; `REV:path` is judged as a read of the path.
            let object = options
                .iter()
                .any(|o| matches!(*o, "-p" | "--batch" | "--batch-all-objects"))
                || operands.first().is_some_and(|w| w.text == "blob");
            let harmless = |w: &&Word| {
                w.static_text().is_some_and(|t| {
                    (t.contains(':') && !t.starts_with(":/"))
                        || matches!(t, "commit" | "tree" | "tag")
                        || a_commit(cx, t)
                })
            };
            if options.contains(&"--batch-all-objects") {
                Some("prints every object in the repository".to_string())
            } else if options.contains(&"--batch") {
                Some("prints the objects its input names".to_string())
            } else if object && !operands.iter().all(harmless) {
                Some(format!(
                    "prints object `{}`, which may be a committed file",
                    operands
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ))
            } else {
                None
            }
        }
        _ => {
            // Operands that name a blob (`REV:path`) are judged as reads of the path.
            let blobs = |w: &&Word| w.text.contains(':') && !w.text.starts_with(":/");
            let revs: Vec<&&Word> = match name {
                // `git diff PATH` without `--`: a file on disk is a path, as git decides.
                "git diff" => operands
                    .iter()
                    .filter(|w| {
                        let on_disk = w.static_text().is_some_and(|t| {
                            let abs = base.dirs.as_ref().and_then(|d| d.first()).map(|d| d.join(t));
                            matches!((place, abs), (Some(p), Some(abs)) if p.physical(&abs).is_some())
                        });
                        !on_disk && w.text != "HEAD"
                    })
                    .collect(),
                _ => operands.iter().filter(|w| !blobs(w)).collect(),
            };
            let only_blobs =
                name == "git show" && !operands.is_empty() && operands.iter().all(blobs);
            // `git show --stat TAG` prints the file when the tag names a blob: each revision
            // must be proven a commit.
            let commits = revs.iter().all(|w| {
                w.static_text()
                    .is_some_and(|t| t.split("..").all(|r| r.is_empty() || a_commit(cx, r)))
            });
            let prints = match name {
                // These print no content unless told to (`-p`): `git stash show` a diffstat.
                "git log" | "git reflog" | "git reflog show" | "git stash list" => {
                    unknown.is_some()
                }
                // `git stash show` prints a diffstat only when given no option and no `--`:
                // any other (`--color`, `-M`, `--relative`) is handed to diff, which prints the
                // patch.
                "git stash show" => {
                    let untracked = [
                        "-u",
                        "--include-untracked",
                        "--only-untracked",
                        "--no-include-untracked",
                    ];
                    let to_diff = options.iter().any(|o| !untracked.contains(o));
                    unknown.is_some_and(|o| !untracked.contains(o))
                        || (!content_free && (to_diff || dashdash.is_some()))
                }
                "git show" => !only_blobs && (!content_free || unknown.is_some() || !commits),
                _ => !revs.is_empty() && (!content_free || unknown.is_some()),
            };
            // For the work tree (no revision), literal file pathspecs narrow the patch to those
            // files as they are now: no wildcard or magic, no `..`, and no directory on disk
            // (git's pathspec matches what lies under one); `--full-diff` and `--follow` widen
            // it. A `git -C DIR` elsewhere asked already in `entry`, and `worktree_patch`
            // judges the repository it runs in.
            let widened = options
                .iter()
                .any(|o| matches!(*o, "--full-diff" | "--follow"));
            let project = base.dirs.as_ref().and_then(|d| d.first());
            let a_directory = |t: &str| match (place, project) {
                (Some(p), Some(d)) => p.list(&d.join(t), 1).is_some(),
                _ => false,
            };
            let literal_file = |w: &&Word| {
                w.static_text().is_some_and(|t| {
                    !t.is_empty()
                        && !t.starts_with(':')
                        && !t.contains(['*', '?', '[', '\\'])
                        && !t.ends_with('/')
                        && !t.split('/').any(|p| p == ".." || p == ".")
                        && !a_directory(t)
                })
            };
            let literal_paths =
                !pathspecs.is_empty() && pathspecs.iter().all(literal_file) && !widened;
            // `git diff`, `git diff HEAD`, `git diff --cached`: the work tree and the index
            // against them, judged by what the index tracks.
            if name == "git diff"
                && revs.is_empty()
                && !literal_paths
                && (!content_free || unknown.is_some())
            {
                worktree_patch(
                    cx,
                    i,
                    name,
                    rest.first().map_or(Span::default(), |w| w.span),
                );
            }
            let pickaxe = unknown.filter(|o| is(o, &["-S", "-G"]));
            let what = match (name, revs.first()) {
                (_, _) if pickaxe.is_some() => {
                    let o = pickaxe.copied().unwrap_or("-S");
                    format!(
                        "`{name} {o}` picks commits by the content of their changes, an oracle that recovers a committed file a character at a time, and so"
                    )
                }
                (
                    "git log" | "git reflog" | "git reflog show" | "git stash show"
                    | "git stash list",
                    _,
                ) => {
                    format!("`{name}` with `{}`", unknown.copied().unwrap_or("-p"))
                }
                (_, Some(r)) => format!("`{name} {}`", r.text),
                (_, None) => format!("`{name}`"),
            };
            // A pathspec proves nothing about history: a literal `config` that is a file now may
            // have been a directory holding `config/.env` in a commit the command reaches
            // (cmdguard does not read git's objects), so only names and summaries pass.
            prints.then(|| format!("{what} prints the content of committed files"))
        }
    };
    if let Some(why) = why {
        cx.push_rule(
            Code::SensitiveRead,
            rest.first().map_or(Span::default(), |w| w.span),
            Some(i),
            format!("{why}; a secret committed and later deleted would be printed (only names, counts and summaries pass: a pathspec cannot prove a file was never a directory)"),
            name,
        );
    }
}

/// `git diff` without a revision, `git diff HEAD`, `--cached` and `git status -v` print the
/// changes of the files the index tracks, anywhere in the work tree: they pass only when the
/// index lists no file the `[sensitive]` table matches (judged as `git grep`'s index walk is),
/// in a work tree inside the project. A repository elsewhere (`cd ../other && git diff`) asks
/// as a read outside the project does. A file whose deletion is staged is no longer in the
/// index; its old content is not judged (README, Limits).
fn worktree_patch(cx: &mut Ctx<'_>, i: usize, name: &str, span: Span) {
    let Some(place) = cx.place.as_deref() else {
        return;
    };
    let (Some(dirs), Some(chdir)) = (place.dirs().map(<[PathBuf]>::to_vec), git_chdir(cx, i))
    else {
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            format!("`{name}` prints the changes of a repository known only at run time"),
            name,
        );
        return;
    };
    let base = base(cx);
    let mut tops: Vec<PathBuf> = Vec::new();
    for d in &dirs {
        let start = match chdir.as_str() {
            "" => d.clone(),
            c if c.starts_with('/') => PathBuf::from(c),
            c => d.join(c),
        };
        let w = Word {
            text: crate::repo::normalize(&start)
                .to_string_lossy()
                .into_owned(),
            span,
            expansions: Default::default(),
            quoted: false,
        };
        let cands = candidates(cx, &w, &base);
        if outside(cx, &w, &cands, &base, name).is_some() {
            cx.push_rule(
                Code::SensitiveRead,
                span,
                Some(i),
                format!("`{name}` prints the changed content of files in `{}`, a repository outside the project (the working directory) and outside the places `[sensitive] public_paths` lists", w.text),
                name,
            );
            return;
        }
        let top = cx
            .place
            .as_deref()
            .and_then(|p| p.toplevel(&start))
            .unwrap_or(start);
        tops.push(top);
    }
    tracked(cx, i, span, &tops, Links::Skip, name);
}

/// `%(raw)` in a ref listing's `--format` prints the raw content of the object each ref points
/// at, and a tag may point at the blob of a committed `.env` (`%(*raw)` through an annotated
/// tag). A format known only at run time may hold it.
fn raw_format(cx: &mut Ctx<'_>, i: usize, name: &str, parsed: &[Arg<'_>], rest: &[Word]) {
    for a in parsed {
        if let Arg::Opt {
            name: o,
            value: Some(v),
            word,
        } = a
            && (names(o, "--format") || names(o, "--pretty"))
        {
            let w = &rest[*word];
            let raw = v.contains("%(raw") || v.contains("%(*raw");
            let unknown = v.contains(['$', '`']);
            if raw || unknown {
                cx.push_rule(
                    Code::SensitiveRead,
                    w.span,
                    Some(i),
                    format!("`{name} --format` with `%(raw)` prints the content of the objects refs point at, which may be a committed file"),
                    name,
                );
                return;
            }
        }
    }
}

/// Whether revision `t` surely names a commit (or a tree) when git reads it: `HEAD` and what is
/// counted from it, anything peeled with `~N`, `^`, `^N`, `^{commit}` or `^{tree}` (git refuses
/// to peel a blob so), `:/TEXT` (a commit by its message), or a branch of the repository in the
/// working directory. A tag, or an object id, may name a blob.
fn a_commit(cx: &Ctx<'_>, t: &str) -> bool {
    let peeled = t.ends_with("^{commit}")
        || t.ends_with("^{tree}")
        || t.ends_with('^')
        || t.rfind(['~', '^'])
            .is_some_and(|k| t[k + 1..].bytes().all(|b| b.is_ascii_digit()));
    if commit_of_head(t) || peeled || t.starts_with(":/") {
        return true;
    }
    let Some(place) = cx.place.as_deref() else {
        return false;
    };
    place
        .dirs()
        .and_then(|d| d.first())
        .is_some_and(|d| place.names_a_branch(d, t))
}

/// Whether `t` names `HEAD` or a commit counted from it (`HEAD~2`, `HEAD^`, `HEAD^{tree}`):
/// a commit or a tree, never a file's content.
fn commit_of_head(t: &str) -> bool {
    let Some(mut rest) = t.strip_prefix("HEAD") else {
        return false;
    };
    for peel in ["^{tree}", "^{commit}", "^{}"] {
        if let Some(r) = rest.strip_suffix(peel) {
            rest = r;
            break;
        }
    }
    rest.chars()
        .all(|c| c == '~' || c == '^' || c.is_ascii_digit())
}

/// `git grep PATTERN REV`: the revision's tree is not the index.
fn ask_revision(cx: &mut Ctx<'_>, i: usize, w: &Word) {
    cx.push_rule(
        Code::SensitiveRead,
        w.span,
        Some(i),
        format!(
            "`git grep` searches the tree of revision `{}`, which cmdguard does not read: a secret committed there, even one deleted since, would be printed",
            w.text
        ),
        "git grep",
    );
}

/// Where the files a git pathspec can match start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pathspec {
    /// Under this path, relative to where git runs (`src`, `.`).
    Path(String),
    /// Anywhere in the work tree: `:/`, `:(top)`.
    Top,
}

/// The directory under which git finds the files a pathspec matches, as git 2.47 reads it:
/// a plain path is itself; a wildcard (`*`, `?`, `[`, `\`; git's `*` crosses `/`) matches
/// under the components before the first one holding it (`src/*.rs` under `src`, `.e*`
/// under `.`); `:(literal)` takes the rest as a plain path and `:(glob)`/`:(attr:…)` as
/// a wildcard; `top` (`:/`, `:(top)`) starts at the top of the work tree; any other magic
/// (`icase`, `exclude`/`!`/`^`, one git does not know) matches anywhere under `.`. `..` is
/// kept, so the search that follows asks about it.
fn pathspec_root(text: &str) -> Pathspec {
    // (top, only narrows by the rest's text, the rest is literal, rest)
    let (top, narrows, literal, rest) = match text.strip_prefix(':') {
        None => (false, true, false, text),
        Some(m) => match m.strip_prefix('(') {
            Some(long) => match long.split_once(')') {
                Some((words, rest)) => {
                    let words: Vec<&str> = words
                        .split(',')
                        .map(|w| w.trim().split(':').next().unwrap_or(""))
                        .collect();
                    let narrows = words
                        .iter()
                        .all(|w| matches!(*w, "glob" | "literal" | "attr" | "top"));
                    (
                        words.contains(&"top"),
                        narrows,
                        words.contains(&"literal"),
                        rest,
                    )
                }
                // git rejects it and reads nothing; the whole tree over-approximates.
                None => (true, false, false, ""),
            },
            None => {
                let k = m
                    .find(|c: char| !matches!(c, '/' | '!' | '^'))
                    .unwrap_or(m.len());
                let rest = &m[k..];
                let magic = &m[..k];
                (
                    magic.contains('/'),
                    !magic.contains(['!', '^']),
                    false,
                    rest.strip_prefix(':').unwrap_or(rest),
                )
            }
        },
    };
    if top {
        return Pathspec::Top;
    }
    let climbs = rest.split('/').any(|p| p == "..");
    if !narrows && !climbs {
        return Pathspec::Path(".".into());
    }
    if literal || !rest.contains(['*', '?', '[', '\\']) {
        return Pathspec::Path(if rest.is_empty() { "." } else { rest }.to_string());
    }
    let fixed: Vec<&str> = rest
        .split('/')
        .take_while(|c| !c.contains(['*', '?', '[', '\\']))
        .collect();
    let prefix = fixed.join("/");
    if prefix.is_empty() && !rest.starts_with('/') {
        Pathspec::Path(".".into())
    } else if prefix.is_empty() {
        Pathspec::Path("/".into())
    } else {
        Pathspec::Path(prefix)
    }
}

/// The tops of the work trees `git -C CHDIR grep` runs in, from every directory the command
/// may run in (the directory itself outside a work tree); `.` with none known.
fn toplevels(cx: &Ctx<'_>, chdir: &str) -> Vec<String> {
    let Some(place) = cx.place.as_deref() else {
        return vec![".".into()];
    };
    let Some(dirs) = place.dirs() else {
        return vec![".".into()];
    };
    dirs.iter()
        .map(|d| {
            let start = match chdir {
                "" => d.clone(),
                c if c.starts_with('/') => PathBuf::from(c),
                c => d.join(c),
            };
            place
                .toplevel(&start)
                .unwrap_or(start)
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// `git remote -v`, `git remote get-url`: they print remote URLs as the config holds them,
/// and `https://TOKEN@host/x` holds a token. They pass only when `repo` reads every config
/// git would read there and finds no URL with a credential. With no working directory nothing
/// is read (README, Limits), as for the secrets a project may hold.
fn remote_urls(cx: &mut Ctx<'_>, i: usize, rest: &[Word], name: &str) {
    let span = rest.last().map_or(Span::default(), |w| w.span);
    let Some(place) = cx.place.as_deref() else {
        return;
    };
    let why = match (place.dirs(), git_chdir(cx, i)) {
        (Some(dirs), Some(chdir)) => dirs.iter().find_map(|d| {
            let start = match chdir.as_str() {
                "" => d.clone(),
                c if c.starts_with('/') => PathBuf::from(c),
                c => d.join(c),
            };
            place.remote_urls_clean(&start).err()
        }),
        _ => Some("the repository is only known at run time".to_string()),
    };
    if let Some(why) = why {
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            format!(
                "`{name}` prints remote URLs, which can embed a token (`https://TOKEN@host/…`), and cmdguard cannot vouch for them: {why}"
            ),
            name,
        );
    }
}

fn repo_join(dir: &Path, rel: &str) -> PathBuf {
    crate::repo::normalize(&dir.join(rel.trim_start_matches("./")))
}

/// `git ls-files … | xargs READER`: the reader opens the files git lists. Tracked files are
/// read from the index (a committed `.env`, a tracked symlink into `~/.aws`); `-o`
/// (`--others`) and `-i` list untracked and ignored files too, judged by walking the working
/// directory as `find` would (every file, hidden and ignored ones included).
fn ls_files(cx: &mut Ctx<'_>, i: usize, args: &[Word], span: Span, reader: &str) {
    let program = format!("git ls-files | xargs {reader}");
    // Without a working directory nothing is read from disk: as for a recursive search, the
    // secrets a project may hold are not judged (README, Limits). After a `cd` to a directory
    // known only at run time the repository is unknown: ask.
    let Some(place) = cx.place.as_deref() else {
        return;
    };
    let Some(dirs) = place.dirs().map(<[PathBuf]>::to_vec) else {
        cx.push_rule(
            Code::SensitiveRead,
            span,
            Some(i),
            format!("`{program}` reads the files git lists in a directory known only at run time"),
            reader,
        );
        return;
    };
    let opt = |short: char, long: &str| {
        args.iter().any(|w| {
            let t = w.text.as_str();
            t == long || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains(short))
        })
    };
    if opt('o', "--others") || opt('i', "--ignored") {
        let how = WalkRules {
            hidden: true,
            links: Links::Open,
            gitignore: false,
            levels: None,
        };
        for d in &dirs {
            let w = Word {
                text: d.to_string_lossy().into_owned(),
                span,
                expansions: Default::default(),
                quoted: false,
            };
            search(cx, i, &w, &program, Some((&how, &Names::default())));
        }
    }
    tracked(cx, i, span, &dirs, Links::Open, &program);
}

/// Judges the files the index of the repository around each of `dirs` tracks under it, as a
/// reader opens them (`Links::Open`: through a tracked symlink) or as `git grep` reads them
/// (`Links::Skip`: the link itself). An index that cannot be read asks.
fn tracked(cx: &mut Ctx<'_>, i: usize, span: Span, dirs: &[PathBuf], links: Links, program: &str) {
    let base = base(cx);
    let runs = Runs::of(&cx.list.sensitive);
    let mut found: Option<String> = None;
    for d in dirs {
        let Some(place) = cx.place.as_deref() else {
            return;
        };
        let files = match place.tracked(d) {
            Ok(Some(files)) => files,
            // Not in a work tree: git lists nothing.
            Ok(None) => continue,
            Err(why) => {
                found = Some(format!(
                    "`{program}` reads the files git tracks, from an index cmdguard cannot read ({why})"
                ));
                break;
            }
        };
        for (path, symlink) in files {
            if !path.starts_with(d) {
                continue;
            }
            let mut cands = Vec::new();
            if runs.may_match(&tilde(&path.to_string_lossy(), base.home.as_deref())) {
                cands.push(literal_candidate(&path.to_string_lossy(), &base));
            }
            if symlink
                && links != Links::Skip
                && let Some(real) = place.physical(&path)
            {
                cands.push(literal_candidate(&real.to_string_lossy(), &base));
            }
            if let Some((pattern, shown)) = reached(cx, &cands, false) {
                let file = path.strip_prefix(d).unwrap_or(&path).display().to_string();
                let through = if shown.ends_with(&file) {
                    String::new()
                } else {
                    format!(" (`{shown}`)")
                };
                found = Some(format!(
                    "`{program}` reads `{file}`{through}, a file git tracks, which `[sensitive]` lists (`{pattern}`)"
                ));
                break;
            }
        }
        if found.is_some() {
            break;
        }
    }
    if let Some(message) = found {
        cx.push_rule(Code::SensitiveRead, span, Some(i), message, program);
    }
}

/// A program whose output is names of files, with how it finds them and where it starts:
/// `find`, `ls`, `fd`, `tree`, `du`, `rg --files`, `grep -r -l`. The names it prints are what
/// the program after `| xargs` opens, symlinks followed. Options are read loosely, so the
/// working directory is a root too wherever a word could be an option's value rather than a
/// path: the walk may only cover more than the program lists.
fn lister(program: &str, args: &[Word]) -> Option<(WalkRules, Names, Vec<Word>)> {
    let short = |w: &Word, letters: &[char]| {
        let t = w.text.as_str();
        t.starts_with('-') && !t.starts_with("--") && t[1..].contains(letters)
    };
    let long = |w: &Word, names: &[&str]| names.contains(&w.text.as_str());
    let any = |f: &dyn Fn(&Word) -> bool| args.iter().any(f);
    let here = |span: Span| Word {
        text: ".".into(),
        span,
        expansions: Default::default(),
        quoted: false,
    };
    let span = args.first().map_or(Span::default(), |w| w.span);
    let plain: Vec<Word> = args
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .cloned()
        .collect();
    let open = |follow: bool| if follow { Links::Follow } else { Links::Open };
    let (how, filter, mut roots) = match program {
        "find" => {
            let start = args
                .iter()
                .take_while(|w| matches!(w.text.as_str(), "-H" | "-L" | "-P"))
                .count();
            let roots: Vec<Word> = args[start..]
                .iter()
                .take_while(|w| !w.text.starts_with(['-', '(', '!']))
                .cloned()
                .collect();
            let levels = args
                .windows(2)
                .find(|p| p[0].text == "-maxdepth")
                .and_then(|p| p[1].text.parse::<usize>().ok());
            // `-follow` is the old spelling of `-L`, and may stand anywhere in the expression.
            let how = WalkRules {
                hidden: true,
                links: open(
                    args[..start].iter().any(|w| w.text == "-L")
                        || args.iter().any(|w| w.text == "-follow"),
                ),
                gitignore: false,
                levels,
            };
            let filter = Names::of_find(&args[start + roots.len()..]);
            (how, filter, roots)
        }
        "ls" => {
            let how = WalkRules {
                hidden: any(&|w| short(w, &['a', 'A', 'f']) || long(w, &["--all", "--almost-all"])),
                links: Links::Open,
                gitignore: false,
                levels: (!any(&|w| short(w, &['R']) || long(w, &["--recursive"]))).then_some(1),
            };
            // `ls DIR` prints bare names, which the reader opens in the working directory.
            let mut roots = plain;
            if !roots.is_empty() {
                roots.push(here(span));
            }
            (how, Names::default(), roots)
        }
        "fd" | "fdfind" | "tree" | "du" => {
            let unrestricted = any(&|w| short(w, &['u']) || long(w, &["--unrestricted"]));
            let how = WalkRules {
                hidden: program == "du"
                    || unrestricted
                    || any(&|w| long(w, &["--hidden"]))
                    || (program == "tree" && any(&|w| short(w, &['a'])))
                    || (program != "tree" && any(&|w| short(w, &['H']))),
                links: open(
                    any(&|w| long(w, &["--follow"]))
                        || (program == "tree" && any(&|w| short(w, &['l'])))
                        || (program != "tree" && any(&|w| short(w, &['L']))),
                ),
                gitignore: program.starts_with("fd")
                    && !unrestricted
                    && !any(&|w| short(w, &['I']) || long(w, &["--no-ignore"])),
                levels: None,
            };
            let mut roots = plain;
            roots.push(here(span));
            (how, Names::default(), roots)
        }
        "rg" if any(&|w| long(w, &["--files"])) => {
            let u = args
                .iter()
                .filter(|w| short(w, &['u']))
                .map(|w| w.text.matches('u').count())
                .sum::<usize>()
                + args.iter().filter(|w| long(w, &["--unrestricted"])).count();
            let how = WalkRules {
                hidden: u >= 2 || any(&|w| long(w, &["--hidden"]) || short(w, &['.'])),
                links: if any(&|w| short(w, &['L']) || long(w, &["--follow"])) {
                    Links::Follow
                } else {
                    Links::Skip
                },
                gitignore: u == 0 && !any(&|w| long(w, &["--no-ignore", "--no-ignore-vcs"])),
                levels: None,
            };
            let mut roots = plain;
            roots.push(here(span));
            (how, Names::default(), roots)
        }
        "grep" | "egrep" | "fgrep"
            if any(&|w| short(w, &['l', 'L']) || long(w, &["--files-with-matches"]))
                && any(&|w| short(w, &['r', 'R']) || long(w, &["--recursive"])) =>
        {
            let how = WalkRules {
                hidden: true,
                links: if any(&|w| short(w, &['R'])) {
                    Links::Follow
                } else {
                    Links::Skip
                },
                gitignore: false,
                levels: None,
            };
            // The first plain word is the pattern unless `-e` gave one; with no path left,
            // grep searches the working directory.
            let given = any(&|w| short(w, &['e', 'f']) || w.text.starts_with("--regexp"));
            let mut roots: Vec<Word> = plain.into_iter().skip(usize::from(!given)).collect();
            if roots.is_empty() {
                roots.push(here(span));
            }
            (how, Names::default(), roots)
        }
        _ => return None,
    };
    if roots.is_empty() {
        roots.push(here(span));
    }
    Some((how, filter, roots))
}

/// The path-like words written inside the `$(…)` / backquote substitutions of `text`:
/// absolute, home-relative or holding a `/`, with quotes removed.
fn substituted_paths(text: &str) -> Vec<String> {
    let inner: String = match (text.find("$("), text.find('`')) {
        (Some(k), _) => text[k + 2..].to_string(),
        (None, Some(k)) => text[k + 1..].to_string(),
        (None, None) => return Vec::new(),
    };
    inner
        .split(|c: char| c.is_whitespace() || matches!(c, '|' | ';' | '&' | '(' | ')' | '`'))
        .map(|t| t.trim_matches(|c| matches!(c, '"' | '\'')))
        .filter(|t| {
            t.starts_with('/')
                || t.starts_with('~')
                || t.starts_with("$HOME")
                || t.starts_with("${HOME")
                || (t.contains('/') && !t.starts_with('-'))
        })
        .map(|t| t.replace("${HOME}", "~").replace("$HOME", "~"))
        .collect()
}

/// A path given as part of a word (an option's value, a `rev:path`).
fn read_text(cx: &mut Ctx<'_>, i: usize, span: Span, text: &str, program: &str) {
    let w = Word {
        text: text.to_string(),
        span,
        expansions: Default::default(),
        quoted: false,
    };
    read(cx, i, &w, program);
}

/// The root of a recursive search: it asks when the search can reach a place the table
/// fixes (a home's `~/.ssh`, `/proc`), and — when the working directory is known and `how`
/// says how the program walks — when a walk of the tree the program reads reaches a
/// sensitive file or is too large to finish.
fn search(cx: &mut Ctx<'_>, i: usize, w: &Word, program: &str, how: Option<(&WalkRules, &Names)>) {
    // `grep -r x ~/..` or `../../..`: a root above where it starts can hold the home
    // directory and everything in it.
    if w.text.split('/').any(|p| p == "..") {
        cx.push_rule(
            Code::SensitiveRead,
            w.span,
            Some(i),
            format!(
                "`{program}` searches `{}` recursively: a directory above can hold the home directory and its secrets",
                w.text
            ),
            program,
        );
        return;
    }
    let base = base(cx);
    let mut cands = candidates(cx, w, &base);
    let roots: Vec<PathBuf> = cands
        .iter()
        .filter_map(|c| c.literal.as_deref().and_then(|l| absolute(l, &base)))
        .map(PathBuf::from)
        .collect();
    let direct = reached(cx, &cands, false);
    for c in &mut cands {
        if c.glob.toks.last() != Some(&Tok::Lit('/')) {
            c.glob.toks.push(Tok::Lit('/'));
        }
        c.glob.toks.push(Tok::Any);
    }
    if let Some((pattern, _)) = direct.or_else(|| reached(cx, &cands, true)) {
        cx.push_rule(
            Code::SensitiveRead,
            w.span,
            Some(i),
            format!(
                "`{program}` searches `{}` recursively and can read `{pattern}`, which `[sensitive]` lists",
                w.text
            ),
            program,
        );
        return;
    }
    if let Some((how, names)) = how
        && base.dirs.is_some()
    {
        walk(cx, i, w, program, (how, names), &roots, &base);
    }
}

/// Walks each root as the program would and asks at the first sensitive file it reaches, or
/// when the walk stops before it has seen the whole tree.
fn walk(
    cx: &mut Ctx<'_>,
    i: usize,
    w: &Word,
    program: &str,
    (how, names): (&WalkRules, &Names),
    roots: &[PathBuf],
    base: &Base,
) {
    let Some(place) = cx.place.as_deref() else {
        return;
    };
    let mut walked: Vec<PathBuf> = Vec::new();
    // What stopped the walk, the pattern and shown path when it reached a file, and the root.
    type Found<'r> = (Walked, Option<(String, String)>, &'r Path);
    let mut found: Option<Found<'_>> = None;
    for root in roots {
        // A symlinked root and the place it leads are one tree.
        let real = place.physical(root).unwrap_or_else(|| root.clone());
        if walked.contains(&real) {
            continue;
        }
        walked.push(real);
        let mut hit = None;
        let cx_ref: &Ctx<'_> = cx;
        let runs = Runs::of(&cx.list.sensitive);
        let outcome = place.walk(root, how, &mut |path, real| {
            let name = path.file_name().map(|n| n.to_string_lossy());
            if !name.is_some_and(|n| names.opens(&n)) {
                return false;
            }
            let shown = |p: &Path| tilde(&p.to_string_lossy(), base.home.as_deref());
            if !runs.may_match(&shown(path)) && (path == real || !runs.may_match(&shown(real))) {
                return false;
            }
            let cands = [
                literal_candidate(&path.to_string_lossy(), base),
                literal_candidate(&real.to_string_lossy(), base),
            ];
            hit = reached(cx_ref, &cands, false);
            hit.is_some()
        });
        if outcome != Walked::Clean {
            found = Some((outcome, hit, root));
            break;
        }
    }
    // The file as the command names it: `./.env` under `.`.
    let named = |p: &Path, root: &Path| match p.strip_prefix(root) {
        Ok(rel) => Path::new(&w.text).join(rel).display().to_string(),
        Err(_) => p.display().to_string(),
    };
    let message = match found {
        None | Some((Walked::Clean, _, _)) => return,
        Some((Walked::Reached(p), Some((pattern, shown)), root)) => {
            let file = named(&p, root);
            let through = if shown.ends_with(file.trim_start_matches("./")) {
                String::new()
            } else {
                format!(" (`{shown}`)")
            };
            format!(
                "`{program}` searches `{}` recursively and reads `{file}`{through}, which `[sensitive]` lists (`{pattern}`)",
                w.text
            )
        }
        Some((Walked::Reached(p), None, root)) => format!(
            "`{program}` searches `{}` recursively and reads `{}`, which `[sensitive]` lists",
            w.text,
            named(&p, root)
        ),
        Some((Walked::Stopped(why), _, _)) => format!(
            "`{program}` searches `{}` recursively, and the tree {why}: cmdguard stopped looking before it could tell whether a secret is in it",
            w.text
        ),
    };
    cx.push_rule(Code::SensitiveRead, w.span, Some(i), message, program);
}

fn base(cx: &Ctx<'_>) -> Base {
    match cx.place.as_deref() {
        Some(p) => Base {
            dirs: p.dirs().map(<[PathBuf]>::to_vec),
            home: p.home().map(Path::to_path_buf),
            lost: p.dirs().is_none(),
        },
        None => Base {
            dirs: None,
            home: None,
            lost: false,
        },
    }
}

/// The first sensitive pattern any candidate reaches, with the candidate as shown. A
/// candidate is also tried with its letters in lower case: on a case-insensitive file system
/// (macOS's default, whose homes are `/Users/*`) `KEY.PEM` and `.ENV` open the secret.
///
/// A git config file (`.git/config`, `~/.gitconfig`) is listed because a remote URL or an
/// `http.*.extraheader` in it may hold a token; one that `repo` proves clean is not a hit.
fn reached(cx: &Ctx<'_>, cands: &[Candidate], anchored_only: bool) -> Option<(String, String)> {
    cands.iter().find_map(|c| {
        let hit = reached_one(cx, c, anchored_only)?;
        (!clean_git_config(cx, c, &hit.0)).then_some(hit)
    })
}

/// The `[sensitive]` patterns of git config files: a file they match is read only when it is
/// proven to hold no secret (see [`clean_git_config`]).
const GIT_CONFIG_FILES: &[&str] = &[
    ".git/config",
    ".git/config.worktree",
    ".git/modules/**/config",
    ".git/worktrees/*/config.worktree",
    "~/.gitconfig",
    "~/.config/git/config",
    "/etc/gitconfig",
];

/// Whether `c`, reached by `pattern`, is a git config file that holds no secret: a plain path,
/// a working directory known, and every key in it one of `[git] inert_keys` or
/// `program_keys` (not `credential.*`) with no URL that carries a credential
/// (`crate::repo::config_file_clean`).
fn clean_git_config(cx: &Ctx<'_>, c: &Candidate, pattern: &str) -> bool {
    if !GIT_CONFIG_FILES.contains(&pattern) || cx.place.is_none() {
        return false;
    }
    let base = base(cx);
    let Some(path) = c.literal.as_deref().and_then(|l| absolute(l, &base)) else {
        return false;
    };
    crate::repo::config_file_clean(Path::new(&path), &cx.list.git_inert_keys, &cx.list.git_keys)
        .is_ok()
}

/// The pattern one candidate reaches, as written or with its letters in lower case.
fn reached_one(cx: &Ctx<'_>, c: &Candidate, anchored_only: bool) -> Option<(String, String)> {
    let cands = std::slice::from_ref(c);
    reached_as_written(cx, cands, anchored_only).or_else(|| {
        let folded: Vec<Candidate> = cands
            .iter()
            .filter(|c| {
                c.glob
                    .toks
                    .iter()
                    .any(|t| matches!(t, Tok::Lit(ch) if ch.is_ascii_uppercase()))
            })
            .map(|c| Candidate {
                glob: Glob {
                    toks: c
                        .glob
                        .toks
                        .iter()
                        .map(|t| match t {
                            Tok::Lit(ch) => Tok::Lit(ch.to_ascii_lowercase()),
                            other => other.clone(),
                        })
                        .collect(),
                    dot_rule: c.glob.dot_rule,
                },
                literal: c.literal.as_ref().map(|l| l.to_ascii_lowercase()),
                anywhere: c.anywhere,
            })
            .collect();
        reached_as_written(cx, &folded, anchored_only)
    })
}

fn reached_as_written(
    cx: &Ctx<'_>,
    cands: &[Candidate],
    anchored_only: bool,
) -> Option<(String, String)> {
    let sensitive = &cx.list.sensitive;
    let all = if anchored_only {
        Which::Anchored
    } else {
        Which::All
    };
    cands.iter().find_map(|c| {
        let hit = if c.anywhere {
            sensitive.reaches(&c.glob, Which::All)
        } else if c.glob.toks.first() == Some(&Tok::Any) {
            // A path under a run-time value (`"$(git rev-parse --show-toplevel)/README.md"`):
            // where it lies is unknown, so only its own name is judged (`$dir/.env` asks), or
            // every such path would ask because some home's `~/.ssh/**` could hold it.
            (!anchored_only)
                .then(|| sensitive.reaches(&c.glob, Which::AnyDepth))
                .flatten()
        } else if c.glob.toks.iter().any(wild) {
            // A glob no directory listing expanded: it asks when it can reach a place the table
            // fixes (`~/.ssh/*`, `/proc/*/environ`), and against patterns at any depth only
            // when its own text names a secret (`*.pem`, `.env*`), not when a wildcard could
            // spell one (`*.rs` could be `id_rsa.rs`), or every glob would ask.
            let named = Glob {
                toks: c.glob.toks.iter().filter(|t| !wild(t)).cloned().collect(),
                dot_rule: false,
            };
            sensitive.reaches(&c.glob, Which::Anchored).or_else(|| {
                (!anchored_only)
                    .then(|| sensitive.reaches(&named, Which::AnyDepth))
                    .flatten()
            })
        } else {
            sensitive.reaches(&c.glob, all)
        };
        hit.map(|p| (p.to_string(), show(&c.glob)))
    })
}

fn wild(t: &Tok) -> bool {
    matches!(t, Tok::One | Tok::Star | Tok::Class { .. })
}

/// Whether a candidate lies inside the project, the directory the command starts in (or, with
/// none known, is a relative path that does not climb out with `..`). A `cd` elsewhere does
/// not make where it led part of the project.
fn inside(cx: &Ctx<'_>, c: &Candidate, base: &Base, up: bool) -> bool {
    let Some(lit) = &c.literal else { return false };
    match (&base.dirs, cx.place.as_deref()) {
        (Some(_), Some(place)) => {
            let project = place.project();
            let under = |p: &Path| p.starts_with(project) && p != project;
            let Some(abs) = absolute(lit, base) else {
                return false;
            };
            let path = Path::new(&abs);
            under(path)
                && match place.physical(path) {
                    // A symlink inside may lead out: the file it reaches must be inside too.
                    Some(real) => {
                        place.physical(project).is_some_and(|d| real.starts_with(d)) || under(&real)
                    }
                    None => true,
                }
        }
        _ => lit.starts_with("./") && !up,
    }
}

/// The places a word can name: lexically normalised, relative paths joined to each known
/// working directory, `~` and `$HOME` as the home, and the file a symlink leads to.
fn candidates(cx: &Ctx<'_>, w: &Word, base: &Base) -> Vec<Candidate> {
    let mut out = lexical_candidates(cx, w, base);
    if !out.is_empty() {
        out.extend(climbed(cx, w, base).unwrap_or_default());
    }
    out
}

/// [`candidates`] with `..` applied to the text (see [`climbed`] for where that is wrong).
fn lexical_candidates(cx: &Ctx<'_>, w: &Word, base: &Base) -> Vec<Candidate> {
    let Some(toks) = word_toks(w) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let dot_rule = w.expansions.glob;
    let (root, comps) = components(&toks);
    let mut push = |mut toks: Vec<Tok>, anywhere: bool| {
        if let Some(home) = &base.home {
            toks = home_to_tilde(toks, home);
        }
        let literal = toks
            .iter()
            .map(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect::<Option<String>>();
        out.push(Candidate {
            glob: Glob { toks, dot_rule },
            literal,
            anywhere,
        });
    };
    match root {
        Root::Abs => push(join(&['/'], &comps), false),
        Root::Home => push(join(&['~'], &comps), false),
        Root::Unknown => {
            let mut t = vec![Tok::Any];
            t.extend(join(&['/'], &comps));
            push(t, false);
        }
        Root::Relative(up) => match &base.dirs {
            Some(dirs) => {
                for d in dirs {
                    let mut d = d.clone();
                    for _ in 0..up {
                        d.pop();
                    }
                    let prefix: Vec<char> =
                        d.to_string_lossy().trim_end_matches('/').chars().collect();
                    push(join(&prefix, &comps), false);
                }
            }
            // After `cd -` (or `cd ~-`) the directory is the inherited `$OLDPWD`, which may be
            // `~/.aws`: the path may lie under any directory.
            None if base.lost => {
                let mut t = vec![Tok::Any];
                t.extend(join(&['/'], &comps));
                push(t, true);
            }
            // With no working directory, a relative path is taken to be in the project, even
            // after `..`: only patterns at any depth (`.env`, `*.pem`) can match it. The CLI
            // always has one.
            None => push(join(&['.'], &comps), false),
        },
    }
    let Some(place) = cx.place.as_deref() else {
        return out;
    };
    // With a working directory known, a glob is expanded as bash would expand it, and a symlink
    // counts as the file it reaches.
    if w.expansions.glob && !dynamic_beyond_glob(w) {
        out = out
            .into_iter()
            .flat_map(|c| expand(place, c, base))
            .collect();
    }
    let mut resolved = Vec::new();
    for c in &out {
        let Some(abs) = c.literal.as_deref().and_then(|l| absolute(l, base)) else {
            continue;
        };
        if let Some(real) = place.physical(Path::new(&abs)) {
            let real = real.to_string_lossy().into_owned();
            if real != abs {
                resolved.push(real);
            }
        }
    }
    for r in resolved {
        out.push(literal_candidate(&r, base));
    }
    out
}

/// Most names read from one directory to expand a glob; past it the pattern is reasoned about.
const MAX_LISTED: usize = 4096;

fn dynamic_beyond_glob(w: &Word) -> bool {
    let e = w.expansions;
    e.parameter || e.command || e.arithmetic || e.process
}

/// `~/x` or `/x` as an absolute path, when the home is known.
fn absolute(lit: &str, base: &Base) -> Option<String> {
    match (lit.strip_prefix('~'), &base.home) {
        (Some(rest), Some(home)) => Some(format!("{}{rest}", home.display())),
        (Some(_), None) => None,
        (None, _) => lit.starts_with('/').then(|| lit.to_string()),
    }
}

fn literal_candidate(path: &str, base: &Base) -> Candidate {
    let mut toks = lit(path);
    if let Some(home) = &base.home {
        toks = home_to_tilde(toks, home);
    }
    let literal = Some(show(&Glob {
        toks: toks.clone(),
        dot_rule: false,
    }));
    Candidate {
        glob: Glob {
            toks,
            dot_rule: false,
        },
        literal,
        anywhere: false,
    }
}

/// A glob whose wildcards are all in its last component, expanded against its directory:
/// the names it matches, or the pattern itself when none does (bash then passes it as
/// written). Any other glob, or a directory that cannot be listed, stays a pattern.
fn expand(place: &super::Place, c: Candidate, base: &Base) -> Vec<Candidate> {
    let toks = &c.glob.toks;
    let Some(slash) = toks.iter().rposition(|t| *t == Tok::Lit('/')) else {
        return vec![c];
    };
    let dir: Option<String> = toks[..slash]
        .iter()
        .map(|t| match t {
            Tok::Lit(ch) => Some(*ch),
            _ => None,
        })
        .collect();
    let Some(dir) = dir.map(|d| if d.is_empty() { "/".to_string() } else { d }) else {
        // A wildcard in a directory part (`src/*/x`, `for d in src/*; do cat "$d/x"`): each
        // level is listed as bash lists it, so a symlink it passes through is resolved below.
        if let Some(out) = expand_levels(place, toks, base) {
            return out;
        }
        // Too many names, or a start no listing reaches: a wildcard in a directory part can
        // pass through any directory, a symlink into `~/.aws` included: judge it as a path
        // under any directory, ending in its last component.
        let mut anywhere = vec![Tok::Any, Tok::Lit('/')];
        anywhere.extend_from_slice(&toks[slash + 1..]);
        let under = Candidate {
            glob: Glob {
                toks: anywhere,
                dot_rule: true,
            },
            literal: None,
            anywhere: false,
        };
        return vec![c, under];
    };
    let Some(abs) = absolute(&dir, base) else {
        return vec![c];
    };
    let Some(names) = place.list(Path::new(&abs), MAX_LISTED) else {
        return vec![c];
    };
    let last = Glob {
        toks: toks[slash + 1..].to_vec(),
        dot_rule: true,
    };
    let mut out: Vec<Candidate> = names
        .iter()
        .filter(|n| intersects(&last, &Glob::literal(n)))
        .map(|n| literal_candidate(&format!("{abs}/{n}"), base))
        .collect();
    if out.is_empty() {
        let written = show(&Glob {
            toks: toks.clone(),
            dot_rule: false,
        });
        out.push(Candidate {
            glob: Glob::literal(&written),
            literal: Some(written),
            anywhere: false,
        });
    }
    out
}

enum Root {
    Abs,
    Home,
    /// A path whose start is only known at run time, or that climbs above a home.
    Unknown,
    /// Relative, after this many leading `..`.
    Relative(usize),
}

/// Splits a path into its root and its components, with `.` dropped and `..` applied.
fn components(toks: &[Tok]) -> (Root, Vec<Vec<Tok>>) {
    let mut parts: Vec<Vec<Tok>> = vec![Vec::new()];
    for t in toks {
        if *t == Tok::Lit('/') {
            parts.push(Vec::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(t.clone());
        }
    }
    let mut root = if toks.first() == Some(&Tok::Lit('/')) {
        parts.remove(0);
        Root::Abs
    } else if parts[0] == [Tok::Lit('~')] {
        parts.remove(0);
        Root::Home
    } else if parts[0].first() == Some(&Tok::Lit('~')) {
        // `~user/…`: some user's home.
        let user: Vec<Tok> = parts.remove(0).into_iter().skip(1).collect();
        let mut p = vec![lit("home"), user];
        p.extend(parts);
        parts = p;
        Root::Abs
    } else if parts[0].first() == Some(&Tok::Any) {
        Root::Unknown
    } else {
        Root::Relative(0)
    };
    let mut out: Vec<Vec<Tok>> = Vec::new();
    for p in parts {
        if p.is_empty() || p == [Tok::Lit('.')] {
            continue;
        }
        if p == [Tok::Lit('.'), Tok::Lit('.')] {
            match out.last() {
                Some(last) if !last.contains(&Tok::Any) => {
                    out.pop();
                }
                Some(_) => {
                    // `$x/..`: the value may hold slashes; where it leads is unknown.
                    out.clear();
                    root = Root::Unknown;
                }
                None => match root {
                    Root::Abs | Root::Unknown => {}
                    Root::Home => root = Root::Unknown,
                    Root::Relative(up) => root = Root::Relative(up + 1),
                },
            }
            continue;
        }
        out.push(p);
    }
    (root, out)
}

fn lit(s: &str) -> Vec<Tok> {
    s.chars().map(Tok::Lit).collect()
}

fn join(prefix: &[char], comps: &[Vec<Tok>]) -> Vec<Tok> {
    let mut t: Vec<Tok> = prefix.iter().map(|&c| Tok::Lit(c)).collect();
    if comps.is_empty() && t.is_empty() {
        t.push(Tok::Lit('/'));
    }
    for c in comps {
        if t.last() != Some(&Tok::Lit('/')) {
            t.push(Tok::Lit('/'));
        }
        t.extend(c.iter().cloned());
    }
    t
}

/// `/home/me/x` → `~/x` when `/home/me` is `$HOME`.
fn home_to_tilde(toks: Vec<Tok>, home: &Path) -> Vec<Tok> {
    let home: Vec<Tok> = lit(home.to_string_lossy().trim_end_matches('/'));
    if home.len() > 1
        && toks.starts_with(&home)
        && matches!(toks.get(home.len()), None | Some(Tok::Lit('/')))
    {
        let mut t = vec![Tok::Lit('~')];
        t.extend(toks[home.len()..].iter().cloned());
        return t;
    }
    toks
}

/// A word as glob tokens: run-time parts (`$x`, `$(…)`) are `**`, unquoted glob characters
/// wildcards, a leading `$HOME` the home. `None` for a word that is one run-time value
/// (`"$f"`): what it names is unknown, and every read of a variable would ask otherwise.
fn word_toks(w: &Word) -> Option<Vec<Tok>> {
    let chars: Vec<char> = w.text.chars().collect();
    if w.is_static() {
        return Some(chars.into_iter().map(Tok::Lit).collect());
    }
    let e = w.expansions;
    let dynamic = e.parameter || e.command || e.arithmetic || e.process;
    let mut toks = Vec::with_capacity(chars.len());
    let mut k = 0;
    if dynamic {
        for prefix in ["$HOME", "${HOME}"] {
            let n = prefix.len();
            if w.text.starts_with(prefix) && matches!(chars.get(n), None | Some('/')) {
                toks.push(Tok::Lit('~'));
                k = n;
                break;
            }
        }
    }
    while k < chars.len() {
        let c = chars[k];
        if dynamic && (c == '$' || c == '`') {
            let end = expansion_end(&chars, k);
            if end > k + 1 {
                if toks.last() != Some(&Tok::Any) {
                    toks.push(Tok::Any);
                }
                k = end;
                continue;
            }
        }
        if e.glob {
            match c {
                '*' => {
                    toks.push(Tok::Star);
                    k += 1;
                    continue;
                }
                '?' => {
                    toks.push(Tok::One);
                    k += 1;
                    continue;
                }
                '[' => {
                    if let Some((t, next)) = class(&chars, k) {
                        toks.push(t);
                        k = next;
                        continue;
                    }
                }
                _ => {}
            }
        }
        toks.push(Tok::Lit(c));
        k += 1;
    }
    (toks != [Tok::Any]).then_some(toks)
}

/// Where an expansion starting at `chars[k]` (`$` or `` ` ``) ends; `k + 1` when it is a
/// literal `$`.
fn expansion_end(chars: &[char], k: usize) -> usize {
    let close = |open: char, shut: char, from: usize| {
        let mut depth = 0usize;
        for (n, &c) in chars.iter().enumerate().skip(from) {
            if c == open {
                depth += 1;
            } else if c == shut {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return n + 1;
                }
            }
        }
        chars.len()
    };
    if chars[k] == '`' {
        return chars[k + 1..]
            .iter()
            .position(|&c| c == '`')
            .map_or(chars.len(), |p| k + p + 2);
    }
    match chars.get(k + 1) {
        Some('{') => close('{', '}', k + 1),
        Some('(') => close('(', ')', k + 1),
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let mut e = k + 1;
            while chars
                .get(e)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                e += 1;
            }
            e
        }
        Some(c) if "#?!@*-$0123456789".contains(*c) => k + 2,
        _ => k + 1,
    }
}

/// The names of variables whose value `text` expands, or anything derived from it. An
/// allowlist: only these forms reveal nothing of a value, so they are left out —
/// `${X:+w}` and `${X+w}` (whether it is set: the value is never used), `${!P*}` and `${!P@}`
/// (the names of variables starting with `P`), `${!X[@]}` and `${!X[*]}` (an array's indices)
/// and `${#X[@]}` and `${#X[*]}` (how many elements it has; an inherited variable is a scalar,
/// one element). Every other form counts: `$X`, `${X}`, defaults (`${X:-w}`, `${X:=w}`,
/// `${X:?w}`), the length `${#X}`, substrings `${X:0:1}`, pattern removal `${X#p}` `${X%%p}`,
/// replacement `${X/p/r}`, case changes `${X^^}` `${X,}`, transformations `${X@Q}`, a subscript
/// `${X[0]}`, and indirection `${!X}` (the value is used as a name, and an invalid one is
/// printed in bash's error).
fn expanded_names(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'$' {
            k += 1;
            continue;
        }
        let braced = b.get(k + 1) == Some(&b'{');
        let mut s = k + 1 + usize::from(braced);
        // `${#X}` is the length and `${!X}` the indirection; `${#}` and `${!}` are `$#`, `$!`.
        let prefix =
            if braced && matches!(b.get(s), Some(b'#' | b'!')) && b.get(s + 1) != Some(&b'}') {
                s += 1;
                Some(b[s - 1])
            } else {
                None
            };
        let start = s;
        while b.get(s).is_some_and(|&c| ident(c)) {
            s += 1;
        }
        let name = &text[start..s];
        let rest = &text[s..];
        let reveals_nothing = braced
            && match prefix {
                None => rest.starts_with(":+") || rest.starts_with('+'),
                Some(b'!') => ["*}", "@}", "[@]}", "[*]}"]
                    .iter()
                    .any(|t| rest.starts_with(t)),
                Some(_) => rest.starts_with("[@]}") || rest.starts_with("[*]}"),
            };
        if !name.is_empty() && !name.as_bytes()[0].is_ascii_digit() && !reveals_nothing {
            out.push(name.to_string());
        }
        k = s.max(k + 1);
    }
    out
}

fn show(g: &Glob) -> String {
    let mut s = String::new();
    for t in &g.toks {
        match t {
            Tok::Lit(c) => s.push(*c),
            Tok::One => s.push('?'),
            Tok::Star => s.push('*'),
            Tok::Any => s.push_str("**"),
            Tok::Class { .. } => s.push_str("[…]"),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_text_expands() {
        for (text, names) in [
            ("$GITHUB_TOKEN", vec!["GITHUB_TOKEN"]),
            ("a${X}b$Y", vec!["X", "Y"]),
            ("${TOKEN:+set} ${TOKEN+set}", vec![]),
            ("${!TO*} ${!TO@} ${!TOKEN[@]} ${!TOKEN[*]}", vec![]),
            ("${#TOKEN[@]} ${#TOKEN[*]} ${#} ${!} $# $? ${#*}", vec![]),
            ("${TOKEN:-x} $1 $$", vec!["TOKEN"]),
            ("${#TOKEN}", vec!["TOKEN"]),
            (
                "${TOKEN:0:1} ${A#x} ${B##x} ${C%x} ${D%%x}",
                vec!["TOKEN", "A", "B", "C", "D"],
            ),
            (
                "${A/x/y} ${B//x} ${C^^} ${D,} ${E~} ${F@Q}",
                vec!["A", "B", "C", "D", "E", "F"],
            ),
            (
                "${!REF} ${#TOKEN[0]} ${A[1]} ${B:=x} ${C:?x}",
                vec!["REF", "TOKEN", "A", "B", "C"],
            ),
            ("${A:+$B}", vec!["B"]),
        ] {
            assert_eq!(expanded_names(text), names, "{text}");
        }
    }

    #[test]
    fn pathspecs_start_where_git_matches_them() {
        let path = |p: &str| Pathspec::Path(p.into());
        for (spec, root) in [
            ("src", path("src")),
            ("src/a.rs", path("src/a.rs")),
            (".e*", path(".")),
            ("[.]env", path(".")),
            ("*", path(".")),
            ("src/*.rs", path("src")),
            ("src/a?/b", path("src")),
            ("../*", path("..")),
            ("/abs/*.rs", path("/abs")),
            (":/", Pathspec::Top),
            (":(top)", Pathspec::Top),
            (":(top,icase)x", Pathspec::Top),
            (":/!src", Pathspec::Top),
            (":(glob)**", path(".")),
            (":(glob)src/**", path("src")),
            (":(literal).env", path(".env")),
            (":(literal)a*", path("a*")),
            (":(attr:x)src/*", path("src")),
            (":(icase)src", path(".")),
            (":(exclude)src", path(".")),
            (":!src", path(".")),
            (":^src", path(".")),
            (":(bogus)src", path(".")),
            (":(unclosed", Pathspec::Top),
            (":(glob)../x", path("../x")),
        ] {
            assert_eq!(pathspec_root(spec), root, "{spec}");
        }
    }
}

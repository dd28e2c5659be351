//! check/deny/gitundo: git commands that do what a denied porcelain command does through
//! another door, read as that command so the `core.git` rules judge them (each checked with git
//! 2.47.3 in a throwaway repository):
//! - a plain alias set by an earlier `git config alias.x reset` of the line, run with the
//!   invocation's arguments (`git x --hard` is `git reset --hard`);
//! - `remote.R.mirror=true` or a forced `remote.R.push=+…` refspec from `git -c` or an earlier
//!   `git config` (a plain `git push R` is then `git push --mirror R` / `git push R +…`);
//! - `git checkout $(git diff --name-only)`: the changed files as pathspecs (`git checkout -- …`);
//! - `git update-ref --stdin` fed `delete` lines (`git update-ref -d …`);
//! - `git apply -R` / `patch -R` of the work tree's own `git diff` (piped, `<(git diff)` or a
//!   file an earlier `git diff > FILE` wrote), and `git show REV:F > F` / `git cat-file -p
//!   REV:F > F`: both put files back over unstaged edits (`git checkout -- …`).
//!
//! It only adds denies; it never allows anything.

use super::{program_name, quote, rule_matches, rules_for, static_word};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::{Joiner, RedirectOp, Word};

/// Denies at `span` when a `git` rule of the pack matches the synthetic command `argv` (each
/// word static text) but not the command as written (which the rules have judged already).
fn deny_as(cx: &mut Ctx<'_>, i: usize, span: Span, argv: &[&str]) {
    let list = cx.list;
    let words: Vec<Word> = argv.iter().map(|t| static_word(t, span)).collect();
    let Some(first) = argv.first() else {
        return;
    };
    let name = program_name(first);
    let hit = rules_for(list, &[name.as_ref()], false)
        .into_iter()
        .find(|r| r.builtin.is_none() && rule_matches(list, r, &words));
    if let Some(rule) = hit {
        cx.deny(rule, span, Some(i));
    }
}

/// The checks of this module for the command `words` of segment `i`.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return;
    };
    match program_name(first).as_ref() {
        "git" => git(cx, i, span, words),
        "patch" => {
            let reverse = words[1..].iter().any(|w| {
                w.static_text().is_some_and(|t| {
                    t == "--reverse"
                        || (t.starts_with('-') && !t.starts_with("--") && t.contains('R'))
                })
            });
            let dry = words[1..]
                .iter()
                .any(|w| matches!(w.static_text(), Some("--dry-run" | "--check")));
            if reverse && !dry && fed_worktree_diff(cx, i, &words[1..]) {
                deny_as(cx, i, span, &["git", "checkout", "--", "."]);
            }
        }
        _ => {}
    }
}

/// Options of git that take the next word before the subcommand.
const GIT_VALUE_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--exec-path",
];

fn git(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    let mut configs: Vec<String> = Vec::new();
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if !t.starts_with('-') {
            break;
        }
        if t == "-c" {
            // A refspec's `*` makes the word a glob that matches no file: bash keeps it.
            if let Some(kv) = words.get(k + 1).and_then(|w| {
                w.static_text().or_else(|| {
                    (!w.text.contains(['$', '`', '"', '\'', '\\', '['])).then_some(w.text.as_str())
                })
            }) {
                configs.push(kv.to_string());
            }
        } else if let Some(kv) = t
            .strip_prefix("-c")
            .filter(|c| !c.is_empty() && !t.starts_with("--"))
        {
            configs.push(kv.to_string());
        }
        k += if GIT_VALUE_OPTIONS.contains(&t) { 2 } else { 1 };
    }
    let rest = words.get(k..).unwrap_or(&[]);
    let earlier = super::nested::earlier_config_writes(cx, i);
    let Some(sub) = rest.first().and_then(|w| w.static_text()) else {
        return;
    };
    let args: Vec<&str> = rest[1..].iter().filter_map(|w| w.static_text()).collect();
    let all_static = args.len() == rest.len() - 1;
    // `git config alias.x reset; git x --hard`: git appends the arguments to the alias.
    if all_static && rest.len() > 1 {
        for kv in &earlier {
            let Some((key, value)) = kv.split_once('=') else {
                continue;
            };
            if !key.eq_ignore_ascii_case(&format!("alias.{sub}"))
                || value.trim_start().starts_with('!')
            {
                continue;
            }
            let quoted: Vec<String> = args.iter().map(|a| quote(a)).collect();
            let text = format!("git {value} {}", quoted.join(" "));
            super::denies_in(
                cx,
                i,
                span,
                "the alias an earlier `git config` defines, with its arguments",
                &text,
            );
        }
    }
    match sub {
        "push" if all_static => {
            let settings: Vec<&String> = configs.iter().chain(earlier.iter()).collect();
            push_settings(cx, i, span, &args, &settings);
        }
        "checkout" => {
            // `git checkout $(git diff --name-only)`: the substitution lists changed files.
            let listed = rest[1..].iter().any(|w| lists_changed_files(&w.text));
            if listed && !rest[1..].iter().any(|w| w.static_text() == Some("--")) {
                deny_as(cx, i, span, &["git", "checkout", "--", "."]);
            }
        }
        "update-ref" if args.contains(&"--stdin") && fed_ref_deletes(cx, i) => {
            deny_as(cx, i, span, &["git", "update-ref", "-d", "refs/heads/x"]);
        }
        "apply" => {
            let reverse = args.iter().any(|t| {
                *t == "--reverse" || (t.starts_with('-') && !t.starts_with("--") && t.contains('R'))
            });
            let harmless = args.iter().any(|t| {
                matches!(
                    *t,
                    "--cached" | "--check" | "--stat" | "--numstat" | "--summary"
                )
            });
            if reverse && !harmless && fed_worktree_diff(cx, i, &rest[1..]) {
                deny_as(cx, i, span, &["git", "checkout", "--", "."]);
            }
        }
        "show" | "cat-file" => {
            // `git show HEAD:f > f`: the committed text written over the work tree's file.
            let Some(seg) = cx.script.segments.get(i) else {
                return;
            };
            let targets: Vec<&str> = seg
                .redirects
                .iter()
                .filter(|r| {
                    matches!(
                        r.op,
                        RedirectOp::Write | RedirectOp::Clobber | RedirectOp::WriteBoth
                    )
                })
                .filter(|r| matches!(r.fd, None | Some(1)))
                .filter_map(|r| r.target.as_ref().and_then(|t| t.static_text()))
                .collect();
            let same = |a: &str, b: &str| a.trim_start_matches("./") == b.trim_start_matches("./");
            let overwrites = args.iter().filter(|t| !t.starts_with('-')).any(|t| {
                t.split_once(':').is_some_and(|(_, path)| {
                    !path.is_empty() && targets.iter().any(|f| same(f, path))
                })
            });
            if overwrites {
                deny_as(cx, i, span, &["git", "checkout", "--", "."]);
            }
        }
        _ => {}
    }
}

/// Whether a word is a command substitution that lists the work tree's changed files: `$(git
/// diff --name-only)`, `$(git ls-files -m)` (quoted or not).
fn lists_changed_files(text: &str) -> bool {
    let bare = text.trim_matches('"');
    let Some(inner) = bare
        .strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| bare.strip_prefix('`').and_then(|r| r.strip_suffix('`')))
    else {
        return false;
    };
    let w: Vec<&str> = inner.split_ascii_whitespace().collect();
    match w.as_slice() {
        ["git", "diff", opts @ ..] => {
            opts.contains(&"--name-only")
                && !opts.iter().any(|o| matches!(*o, "--cached" | "--staged"))
        }
        ["git", "ls-files", opts @ ..] => opts.iter().any(|o| matches!(*o, "-m" | "--modified")),
        _ => false,
    }
}

/// `git push` under settings (`KEY=VALUE`) that make it a mirror or forced push:
/// `remote.R.mirror=true` for the pushed remote, or `remote.R.push=+…` when the command names
/// no refspec of its own.
fn push_settings(cx: &mut Ctx<'_>, i: usize, span: Span, args: &[&str], settings: &[&String]) {
    let operands: Vec<&str> = args
        .iter()
        .copied()
        .filter(|t| !t.starts_with('-'))
        .collect();
    let remote = operands.first().copied();
    if args
        .iter()
        .any(|t| matches!(*t, "-n" | "--dry-run" | "-h" | "--help"))
    {
        return;
    }
    for kv in settings {
        let Some((key, value)) = kv.split_once('=') else {
            continue;
        };
        let key = key.to_ascii_lowercase();
        let Some(rest) = key.strip_prefix("remote.") else {
            continue;
        };
        let Some((name, setting)) = rest.rsplit_once('.') else {
            continue;
        };
        // Without a remote operand git pushes to the branch's remote: any of them may be it.
        if remote.is_some_and(|r| !r.eq_ignore_ascii_case(name)) {
            continue;
        }
        match setting {
            "mirror"
                if matches!(
                    value.to_ascii_lowercase().as_str(),
                    "true" | "yes" | "on" | "1" | ""
                ) =>
            {
                deny_as(cx, i, span, &["git", "push", "--mirror", name]);
            }
            "push" if value.starts_with('+') && operands.len() <= 1 => {
                deny_as(cx, i, span, &["git", "push", name, value]);
            }
            _ => {}
        }
    }
}

/// Whether the segment before `i` pipes `delete …` lines into it: a `git for-each-ref` whose
/// format starts with `delete`, or an `echo`/`printf` whose text has such a line.
fn fed_ref_deletes(cx: &Ctx<'_>, i: usize) -> bool {
    if let Some(text) = super::piped_text(cx, i) {
        return text.lines().any(|l| l.trim_start().starts_with("delete "));
    }
    let Some(p) = piped_from(cx, i) else {
        return false;
    };
    let words = &cx.script.segments[p].words;
    let is_git = words
        .first()
        .and_then(|w| w.static_text())
        .map(program_name)
        .as_deref()
        == Some("git");
    is_git
        && words
            .iter()
            .any(|w| w.static_text() == Some("for-each-ref"))
        && words.iter().any(|w| {
            let t = w.static_text().unwrap_or(&w.text);
            t.trim_start_matches("--format=")
                .trim_matches(['\'', '"'])
                .starts_with("delete ")
        })
}

/// The segment piped straight into segment `i`, at the same nesting.
fn piped_from(cx: &Ctx<'_>, i: usize) -> Option<usize> {
    let segments = &cx.script.segments;
    let p = i.checked_sub(1)?;
    let prev = segments.get(p)?;
    let same_level = segments.get(i).is_some_and(|s| s.nesting == prev.nesting);
    (matches!(prev.joiner, Some(Joiner::Pipe | Joiner::PipeBoth)) && same_level).then_some(p)
}

/// Whether the words are `git diff` of the work tree against the index: no `--cached` /
/// `--staged`, no revision (every operand after `--`).
fn worktree_diff(words: &[&str]) -> bool {
    let Some(("git", rest)) = words.split_first().map(|(f, r)| (*f, r)) else {
        return false;
    };
    let Some(d) = rest.iter().position(|t| *t == "diff") else {
        return false;
    };
    if rest[..d].iter().any(|t| !t.starts_with('-')) {
        return false;
    }
    let mut after_dd = false;
    for t in &rest[d + 1..] {
        match *t {
            "--" => after_dd = true,
            "--cached" | "--staged" if !after_dd => return false,
            t if !after_dd && !t.starts_with('-') => return false,
            _ => {}
        }
    }
    true
}

/// Whether the patch a reverse apply in segment `i` reads is the work tree's own `git diff`:
/// piped in, given as `<(git diff)`, or a file an earlier `git diff > FILE` of the line wrote.
fn fed_worktree_diff(cx: &Ctx<'_>, i: usize, args: &[Word]) -> bool {
    let patches: Vec<&Word> = args.iter().filter(|w| !w.text.starts_with('-')).collect();
    let segments = &cx.script.segments;
    if (patches.is_empty() || patches.iter().any(|w| w.static_text() == Some("-")))
        && let Some(p) = piped_from(cx, i)
    {
        let words: Vec<&str> = segments[p]
            .words
            .iter()
            .filter_map(|w| w.static_text())
            .collect();
        return words.len() == segments[p].words.len() && worktree_diff(&words);
    }
    patches.iter().any(|w| {
        if let Some(inner) = w.text.strip_prefix("<(").and_then(|r| r.strip_suffix(')')) {
            let words: Vec<&str> = inner.split_ascii_whitespace().collect();
            return worktree_diff(&words);
        }
        let Some(path) = w.static_text() else {
            return false;
        };
        let same = |t: &str| t.trim_start_matches("./") == path.trim_start_matches("./");
        segments.iter().take(i).any(|s| {
            let words: Vec<&str> = s.words.iter().filter_map(|w| w.static_text()).collect();
            words.len() == s.words.len()
                && worktree_diff(&words)
                && s.redirects.iter().any(|r| {
                    matches!(r.op, RedirectOp::Write | RedirectOp::Clobber)
                        && matches!(r.fd, None | Some(1))
                        && r.target
                            .as_ref()
                            .and_then(|t| t.static_text())
                            .is_some_and(same)
                })
        })
    })
}

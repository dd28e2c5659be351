//! check/sed: finds the sed scripts in a `sed` command line (`-e`, `--expression`, or the first
//! operand) and hands each to the script parser, which proves it neither writes nor runs.
//! `-i`, `-f` and friends are forbidden by sed's allowlist entry, not here.

use super::sed_script::{SedDialect, check_sed_script};
use super::{Arg, Ctx, names, script_operand};
use crate::allowlist::Entry;
use crate::finding::{Code, Span};
use crate::segment::Word;

pub(super) fn check_args(
    cx: &mut Ctx<'_>,
    i: usize,
    entry: &Entry,
    rest: &[Word],
    parsed: &[Arg<'_>],
) {
    let mut dialect = SedDialect::default();
    let mut scripts: Vec<(&str, Span)> = Vec::new();
    let mut has_expression = false;
    for a in parsed {
        if let Arg::Opt { name, value, word } = a {
            if names(name, "--posix") {
                dialect.posix = true;
            }
            if names(name, "--sandbox") {
                dialect.sandbox = true;
            }
            if name == "-e" || names(name, "--expression") {
                has_expression = true;
                if let Some(v) = value {
                    scripts.push((v, rest[*word].span));
                }
            }
        }
    }
    // `sed -f <(echo 'e rm -rf v')`: a script file the line shows. `-f` asks by sed's entry;
    // what the script runs is read for denies.
    let files = script_files(cx, i, rest);
    if !has_expression && files.is_empty() {
        scripts.extend(script_operand(cx, i, entry, rest, parsed, "script"));
    }
    for (script, span) in &files {
        if check_sed_script(script, dialect).is_err() {
            super::deny::sed_exec(cx, i, *span, script, dialect);
            pattern_space_exec(cx, i, *span, script, dialect);
        }
    }
    // sed joins its `-e` scripts with newlines into one (`-e 's/x/rm -rf v/' -e e` is
    // `s/x/rm -rf v/;e`): the commands they run together are read from the whole.
    if let [(_, first), .., (_, last)] = scripts.as_slice() {
        let whole: Vec<&str> = scripts.iter().map(|(s, _)| *s).collect();
        let whole = whole.join("\n");
        let span = Span::new(first.start, last.end);
        if check_sed_script(&whole, dialect).is_err() {
            super::deny::sed_exec(cx, i, span, &whole, dialect);
            pattern_space_exec(cx, i, span, &whole, dialect);
        }
    }
    for (script, span) in scripts {
        super::sensitive::sed_script(cx, i, span, script);
        if let Err(p) = check_sed_script(script, dialect) {
            cx.push_rule(
                Code::ForbiddenArgument,
                span,
                Some(i),
                format!("sed script: {}", p.reason),
                &entry.name,
            );
            super::deny::sed_exec(cx, i, span, script, dialect);
            pattern_space_exec(cx, i, span, script, dialect);
        }
    }
}

/// Short options of GNU sed that take no value and may come before `f` in one word (`-nf`).
const FLAGS_BEFORE_F: &str = "nrsuzE";

/// The scripts of `-f FILE`, `-fFILE`, `--file=FILE` (and `--fi…` abbreviations) whose text
/// the line shows: a process substitution, or `/dev/stdin` fed an `echo` or a heredoc.
fn script_files(cx: &Ctx<'_>, i: usize, rest: &[Word]) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        k += 1;
        let Some(t) = w.static_text() else {
            continue;
        };
        if t == "--" {
            break;
        }
        let value: Option<&Word> = if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            if name.len() < 2 || !"file".starts_with(name) {
                continue;
            }
            if attached.is_some() {
                // `--file=<(…)` is one word whose text bash does not substitute: a file name.
                continue;
            }
            k += 1;
            rest.get(k - 1)
        } else if let Some(short) = t.strip_prefix('-') {
            let Some(at) = short.find('f') else {
                continue;
            };
            if !short[..at].chars().all(|c| FLAGS_BEFORE_F.contains(c)) || at + 1 != short.len() {
                continue;
            }
            k += 1;
            rest.get(k - 1)
        } else {
            None
        };
        if let Some(v) = value
            && let Some(text) = super::deny::operand_text(cx, i, v)
        {
            out.push((text, v.span));
        }
    }
    out
}

/// Most lines of input run by a bare `e`.
const MAX_INPUT_COMMANDS: usize = 8;

/// A bare `e` runs the pattern space, which is the line read (`echo 'rm -rf v' | sed e`):
/// each line the line shows sed reading is analysed as a command.
fn pattern_space_exec(cx: &mut Ctx<'_>, i: usize, span: Span, script: &str, dialect: SedDialect) {
    if !bare_exec(script, dialect) {
        return;
    }
    let Some(input) = super::deny::piped_text(cx, i) else {
        return;
    };
    for line in input.lines().take(MAX_INPUT_COMMANDS) {
        cx.nested(i, span, "the input line sed's `e` runs", line);
    }
}

/// Whether a script has an `e` command without a command of its own (it runs the pattern
/// space).
fn bare_exec(script: &str, dialect: SedDialect) -> bool {
    let mut from = 0;
    for _ in 0..MAX_INPUT_COMMANDS {
        let Some(rest) = script.get(from..) else {
            return false;
        };
        let Err(problem) = check_sed_script(rest, dialect) else {
            return false;
        };
        let at = from + problem.offset;
        let tail = script.get(at + 1..).unwrap_or("");
        let line = &tail[..tail.find('\n').unwrap_or(tail.len())];
        let arg = line.trim_start();
        if problem.reason.starts_with("sed command `e`")
            && (arg.is_empty() || arg.starts_with([';', '}', '#']))
        {
            return true;
        }
        match script.get(at..).and_then(|r| r.find(['\n', ';'])) {
            Some(end) => from = at + end + 1,
            None => return false,
        }
    }
    false
}

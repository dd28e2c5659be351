//! check/deny/sysfiles: programs that write over a file or device their operands name, read as
//! the write bash or the program does — `cp x.img /dev/sda` and `tee /dev/sda` write the device
//! like `> /dev/sda`; `cp /dev/null /etc/passwd`, `dd if=/dev/zero of=F` and `> F` empty F like
//! `truncate -s 0 F` — and `kill`'s pid `-1` (every process). The pack rules decide: a write is
//! matched against the `redirect_target` rules, an emptying against the `truncate` rules, a
//! kill against the `kill` rules, so turning a pack off turns these off too. It only adds
//! denies; it never allows anything.

use super::{program_name, rule_matches, rules_for, static_word};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::Word;

/// Sources whose copy is nothing or noise: copying one over a file destroys the file.
const EMPTY_SOURCES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
];

/// How a program writes a file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Write {
    /// From its start, replacing what was there (`>`, `cp`, `tee`).
    Replace,
    /// At its end (`>>`, `tee -a`).
    Append,
}

/// The deny rules a write of `path` meets: the `redirect_target` rules (block devices, the
/// kernel's power switches) for any write, and for a write that replaces the file the rules on
/// `truncate -s 0 -- PATH` (system and start-up files). Each matching rule denies at `span`.
pub(super) fn writes(cx: &mut Ctx<'_>, path: &str, how: Write, span: Span, seg: Option<usize>) {
    let list = cx.list;
    for rule in &list.deny {
        if rule.redirect_target.iter().any(|re| re.is_match(path)) {
            cx.deny(rule, span, seg);
        }
    }
    if how == Write::Replace {
        let argv: Vec<Word> = ["truncate", "-s", "0", "--", path]
            .iter()
            .map(|t| static_word(t, span))
            .collect();
        let hit = rules_for(list, &["truncate"], false)
            .into_iter()
            .find(|r| r.builtin.is_none() && rule_matches(list, r, &argv));
        if let Some(rule) = hit {
            cx.deny(rule, span, seg);
        }
    }
}

/// `cp`, `tee`, `dd`, `ddrescue` and `kill` in segment `i`: what they write (see [`writes`]) or
/// signal.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return;
    };
    let seg = Some(i);
    match program_name(first).as_ref() {
        "cp" => {
            // `cp SRC… DEST`: a device is written whatever the source; another file is
            // destroyed when the source is empty or noise.
            let Some((dest, sources)) = cp_operands(&words[1..]) else {
                return;
            };
            let device = dest.starts_with("/dev/");
            let empty = sources.iter().any(|s| EMPTY_SOURCES.contains(s));
            if device || empty {
                writes(cx, dest, Write::Replace, span, seg);
            }
        }
        "tee" => {
            let append = words[1..].iter().any(|w| {
                w.static_text().is_some_and(|t| {
                    t == "--append"
                        || (t.starts_with('-') && !t.starts_with("--") && t.contains('a'))
                })
            });
            let how = if append {
                Write::Append
            } else {
                Write::Replace
            };
            let mut options = true;
            for w in &words[1..] {
                let Some(t) = w.static_text() else {
                    continue;
                };
                if options && t == "--" {
                    options = false;
                } else if !(options && t.starts_with('-') && t.len() > 1) {
                    writes(cx, t, how, span, seg);
                }
            }
        }
        "dd" => {
            // `dd of=F`: a device is left to the `dd` rule; another file is destroyed when
            // the input is empty or noise.
            let value = |key: &str| {
                words[1..]
                    .iter()
                    .filter_map(|w| w.static_text())
                    .filter_map(|t| t.strip_prefix(key))
                    .next_back()
            };
            if let Some(out) = value("of=")
                && value("if=").is_some_and(|s| EMPTY_SOURCES.contains(&s))
                && !out.starts_with("/dev/")
            {
                writes(cx, out, Write::Replace, span, seg);
            }
        }
        // `ddrescue INFILE OUTFILE [MAPFILE]`: every operand after the first may be written
        // (an option cmdguard misreads could shift them); a device among them is.
        "ddrescue" | "gddrescue" | "dd_rescue" => {
            let operands: Vec<&str> = words[1..]
                .iter()
                .filter_map(|w| w.static_text())
                .filter(|t| !t.starts_with('-'))
                .collect();
            for out in operands.iter().skip(1).filter(|t| t.starts_with("/dev/")) {
                writes(cx, out, Write::Replace, span, seg);
            }
        }
        "rsync" => rsync_from_fresh_dir(cx, i, span, words),
        "kill" if kills_every_process(&words[1..]) => {
            let list = cx.list;
            let argv: Vec<Word> = ["kill", "--", "-1"]
                .iter()
                .map(|t| static_word(t, span))
                .collect();
            let hit = rules_for(list, &["kill"], false)
                .into_iter()
                .find(|r| r.builtin.is_none() && rule_matches(list, r, &argv));
            if let Some(rule) = hit {
                cx.deny(rule, span, seg);
            }
        }
        _ => {}
    }
}

/// GNU cp's options that take the next word as their value.
const CP_VALUE_OPTIONS: &[&str] = &["-S", "--suffix"];

/// `cp`'s destination and sources, when every word is static and no `-t` names a target
/// directory.
fn cp_operands(rest: &[Word]) -> Option<(&str, Vec<&str>)> {
    let mut operands = Vec::new();
    let mut options = true;
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        k += 1;
        let t = w.static_text()?;
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with('-') && t.len() > 1 {
            if t == "-t" || t.starts_with("--target-directory") || t.starts_with("-t") {
                return None;
            }
            if CP_VALUE_OPTIONS.contains(&t) {
                k += 1;
            }
        } else {
            operands.push(t);
        }
    }
    let (dest, sources) = operands.split_last()?;
    Some((dest, sources.to_vec()))
}

/// bash's `kill [-s SIG | -n NUM | -SIG] PID…`: whether a pid is `-1`. The first word is the
/// signal when it starts with `-` (`kill -1 PID` is SIGHUP), then `--` may end the options.
fn kills_every_process(rest: &[Word]) -> bool {
    let t = |k: usize| rest.get(k).and_then(|w| w.static_text());
    let mut k = match t(0) {
        Some("-s" | "-n") => 2,
        Some("-l" | "-L") => return false,
        Some("--") => 0,
        Some(s) if s.starts_with('-') => 1,
        _ => 0,
    };
    if t(k) == Some("--") {
        k += 1;
    }
    rest.get(k..)
        .unwrap_or(&[])
        .iter()
        .any(|w| w.static_text() == Some("-1"))
}

/// `rsync -a --delete "$(mktemp -d)/" DIR/`: a directory `mktemp -d` has just made is empty, so
/// a deleting sync from its contents (the source ends in `/`) removes everything in DIR — the
/// well-known fast `rm -rf DIR/*`. Read as `rm -rf -- DIR`, which the pack rules judge. A dry
/// run, a source without the slash (which copies the directory itself into DIR) and
/// `mktemp -u` (a name, no directory) are left alone.
fn rsync_from_fresh_dir(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let statics = || words[1..].iter().filter_map(|w| w.static_text());
    let deletes = statics().any(|t| t.starts_with("--del") || t == "--remove-source-files");
    if !deletes
        || statics().any(|t| t == "-n" || t.starts_with("--dry") || short_bundle_has(t, 'n'))
    {
        return;
    }
    let operands: Vec<&Word> = words[1..]
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .collect();
    let Some((dest, sources)) = operands.split_last() else {
        return;
    };
    if sources.is_empty() || !sources.iter().all(|w| fresh_dir_contents(&w.text)) {
        return;
    }
    let list = cx.list;
    let argv = vec![
        static_word("rm", span),
        static_word("-rf", span),
        static_word("--", span),
        (*dest).clone(),
    ];
    let hit = rules_for(list, &["rm"], false)
        .into_iter()
        .find(|r| r.builtin.is_none() && rule_matches(list, r, &argv));
    if let Some(rule) = hit {
        cx.deny(rule, span, Some(i));
    }
}

/// Whether a short-option bundle (`-avn`) holds `c`.
fn short_bundle_has(t: &str, c: char) -> bool {
    t.strip_prefix('-').is_some_and(|b| {
        !b.starts_with('-') && b.chars().all(|x| x.is_ascii_alphanumeric()) && b.contains(c)
    })
}

/// The source text `$(mktemp -d …)/` or `"$(mktemp -d …)/"`: the contents of a directory made
/// empty just now (`-u` only prints a name; `-q` and a template or `-p DIR` keep it a fresh
/// directory).
fn fresh_dir_contents(text: &str) -> bool {
    let bare = text
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(text);
    let Some(inner) = bare
        .strip_suffix(")/")
        .or_else(|| bare.strip_suffix(")/."))
        .and_then(|r| r.strip_prefix("$("))
    else {
        return false;
    };
    let mut args = inner.split_ascii_whitespace();
    if args.next() != Some("mktemp") {
        return false;
    }
    let mut directory = false;
    for a in args {
        if a == "--directory" {
            directory = true;
        } else if a == "--dry-run"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('u'))
        {
            return false;
        } else if a.starts_with('-') && !a.starts_with("--") && a.contains('d') {
            directory = true;
        } else if !a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._/=".contains(c))
        {
            // A quote, an expansion or an operator inside: not read.
            return false;
        }
    }
    directory
}

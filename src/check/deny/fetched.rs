//! check/deny/fetched: a file the line downloads and then runs (`curl -o i.sh URL && sh i.sh`,
//! `wget URL/i.sh && bash i.sh`, `curl -O URL/install.sh && ./install.sh`) is the
//! download-to-interpreter of `curl URL | sh` with a file in between; the running command is
//! denied by that rule. It never allows anything.

use super::program_name;
use crate::allowlist::DenyRule;
use crate::check::{Ctx, INTERPRETERS};
use crate::segment::{Nest, Segment, Word};

/// Most downloaded files of one line followed.
const MAX_FILES: usize = 16;

/// Denies, with `rule`, each command that runs a file an earlier command of the line
/// downloaded.
pub(super) fn run_files(cx: &mut Ctx<'_>, rule: &DenyRule) {
    let script = cx.script;
    let mut files: Vec<(usize, String)> = Vec::new();
    for (i, s) in script.segments.iter().enumerate() {
        if s.nesting.contains(&Nest::Function) {
            continue;
        }
        for (from, f) in &files {
            if *from < i && runs_file(s, f) {
                cx.deny(rule, s.span, Some(i));
            }
        }
        if files.len() < MAX_FILES {
            files.extend(downloads(s).into_iter().map(|f| (i, f)));
        }
    }
}

/// `./i.sh` and `i.sh` name the same file.
fn norm(path: &str) -> &str {
    path.trim_start_matches("./")
}

/// The last path component of a URL (`https://x/a/i.sh?x=1` → `i.sh`), what `curl -O` and
/// `wget` name the file; `None` when the URL has no path.
fn remote_name(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let path = rest.split_once('/')?.1;
    let path = path.split(['?', '#']).next().unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or("");
    (!name.is_empty()).then(|| name.to_string())
}

/// The files segment `s` downloads into: curl's `-o FILE` / `--output FILE` and, with `-O`
/// (`--remote-name`, or in a bundle like `-fsSLO`), each URL's remote name; wget's `-O FILE`
/// or, without it, each URL's remote name.
fn downloads(s: &Segment) -> Vec<String> {
    let Some(program) = s
        .words
        .first()
        .and_then(Word::static_text)
        .map(program_name)
    else {
        return Vec::new();
    };
    let texts: Vec<&str> = s.words[1..].iter().filter_map(Word::static_text).collect();
    let urls = || {
        texts
            .iter()
            .filter(|t| t.contains("://"))
            .filter_map(|u| remote_name(u))
    };
    let mut out = Vec::new();
    match program.as_ref() {
        "curl" => {
            let mut remote = false;
            let mut k = 0;
            while k < texts.len() {
                let t = texts[k];
                if matches!(t, "-o" | "--output") {
                    out.extend(texts.get(k + 1).map(|f| f.to_string()));
                    k += 1;
                } else if let Some(f) = t.strip_prefix("--output=") {
                    out.push(f.to_string());
                } else if matches!(t, "-O" | "--remote-name") {
                    remote = true;
                } else if let Some(bundle) = t.strip_prefix('-').filter(|b| !b.starts_with('-')) {
                    // A bundle of flags may end in `o` with its value in the next word, or
                    // hold `O` among flags (`-fsSLO`).
                    if bundle.ends_with('o') && bundle.chars().all(|c| c.is_ascii_alphabetic()) {
                        out.extend(texts.get(k + 1).map(|f| f.to_string()));
                        k += 1;
                    } else if bundle.contains('O')
                        && bundle.chars().all(|c| c.is_ascii_alphabetic())
                    {
                        remote = true;
                    }
                }
                k += 1;
            }
            if remote {
                out.extend(urls());
            }
        }
        "wget" => {
            let named = texts
                .iter()
                .position(|t| matches!(*t, "-O" | "--output-document"))
                .and_then(|k| texts.get(k + 1).map(|f| f.to_string()))
                .or_else(|| {
                    texts
                        .iter()
                        .find_map(|t| t.strip_prefix("--output-document="))
                        .map(str::to_string)
                });
            let prefixed = texts
                .iter()
                .any(|t| t.starts_with("-P") || t.starts_with("--directory-prefix"));
            match named {
                Some(f) => out.push(f),
                None if !prefixed => out.extend(urls()),
                None => {}
            }
        }
        _ => {}
    }
    out.retain(|f| f != "-" && !f.is_empty());
    out
}

/// Whether segment `s` runs `file`: as its program (`./i.sh`, `/tmp/i.sh`) or as the script
/// operand of a shell or interpreter (`sh i.sh`, `sudo bash /tmp/i.sh`).
fn runs_file(s: &Segment, file: &str) -> bool {
    let file = norm(file);
    let mut words = s.words.iter().map(|w| w.static_text());
    let Some(Some(first)) = words.next() else {
        return false;
    };
    if first.contains('/') && norm(first) == file {
        return true;
    }
    let mut program = program_name(first);
    let mut rest = s.words[1..].iter();
    // `sudo sh i.sh`, `env bash i.sh`.
    while matches!(
        program.as_ref(),
        "sudo" | "doas" | "env" | "command" | "exec" | "nohup"
    ) {
        let Some(next) = rest.find(|w| w.static_text().is_some_and(|t| !t.starts_with('-'))) else {
            return false;
        };
        let Some(t) = next.static_text() else {
            return false;
        };
        if t.contains('/') && norm(t) == file {
            return true;
        }
        program = program_name(t);
    }
    if !INTERPRETERS.contains(&program.as_ref()) {
        return false;
    }
    rest.find(|w| w.static_text().is_none_or(|t| !t.starts_with('-')))
        .and_then(Word::static_text)
        .is_some_and(|t| norm(t) == file)
}

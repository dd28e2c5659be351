//! check/interp/other: small scanners for the one-liner languages no grammar is built in for —
//! Lua, R, Julia, AppleScript, PowerShell, Tcl and Groovy. Each finds only the few spawning and
//! deleting forms the `interpreters` pack names, with literal arguments; it never decides
//! anything.
//!
//! Fail closed: a string that does not end is `Unparsed` (the one-liner asks); a value that is
//! not a plain literal (an interpolation, a variable, a concatenation) is `None`, so the call
//! adds nothing and the one-liner keeps its `ask`. Comments and string contents are skipped,
//! so a mention (`print("os.execute('rm -rf v')")`) is never read as a call.

use super::{Call, Lang, Scan, Value};
use crate::budget::Budget;

/// One token of the shared tokenizer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A name, dots and `::` included (`os.execute`).
    Ident(String),
    /// A string literal: `None` when it interpolates.
    Str(Option<String>),
    /// A Julia command literal (`` `rm -rf v` ``): its words, `None` when it interpolates.
    Cmd(Option<Vec<String>>),
    Punct(char),
}

/// Lists the calls in `code` of `lang`, one of the languages read here.
pub(crate) fn scan(lang: Lang, code: &str, budget: &Budget) -> Scan {
    match lang {
        Lang::PowerShell => return Scan::Calls(powershell(code)),
        Lang::Tcl => return Scan::Calls(tcl(code)),
        _ => {}
    }
    let toks = match tokens(lang, code, budget) {
        Ok(t) => t,
        Err(why) => return Scan::Unparsed(why.to_string()),
    };
    let mut calls = Vec::new();
    for k in 0..toks.len() {
        calls.extend(call_at(lang, &toks, k));
    }
    Scan::Calls(calls)
}

fn call_of(name: &str, args: Vec<Option<Value>>) -> Call {
    Call {
        names: vec![name.to_string()],
        args,
        keywords: Vec::new(),
        receiver: Vec::new(),
    }
}

/// The call that starts at token `k`, if one does.
fn call_at(lang: Lang, toks: &[Tok], k: usize) -> Option<Call> {
    match (lang, &toks[k]) {
        // AppleScript: `do shell script "CMD"`.
        (Lang::AppleScript, Tok::Ident(w)) if w.eq_ignore_ascii_case("do") => {
            let is = |j: usize, word: &str| matches!(toks.get(j), Some(Tok::Ident(x)) if x.eq_ignore_ascii_case(word));
            if !(is(k + 1, "shell") && is(k + 2, "script")) {
                return None;
            }
            let arg = match toks.get(k + 3)? {
                Tok::Str(s) => s.clone().map(Value::Text),
                _ => None,
            };
            // `do shell script "a" & x`: a concatenation is not literal.
            let alone = !matches!(toks.get(k + 4), Some(Tok::Punct('&')));
            Some(call_of("do shell script", vec![arg.filter(|_| alone)]))
        }
        // Groovy: `"CMD".execute()`, `["rm", "-rf", "v"].execute()`.
        (Lang::Groovy, Tok::Ident(m)) if m == "execute" || m == ".execute" => {
            let receiver = groovy_receiver(toks, k)?;
            Some(call_of("execute", vec![receiver]))
        }
        // Julia: `` run(`rm -rf v`) ``.
        (Lang::Julia, Tok::Cmd(words)) => {
            let run = k >= 2
                && toks[k - 1] == Tok::Punct('(')
                && matches!(&toks[k - 2], Tok::Ident(r) if r == "run");
            run.then(|| call_of("run", vec![words.clone().map(Value::Words)]))
        }
        (_, Tok::Ident(name)) => {
            // `x.name(…)` is a method of something else; only plain names count.
            if k > 0 && matches!(toks[k - 1], Tok::Punct('.' | ':' | '$' | '@')) {
                return None;
            }
            let (args, keywords) = arguments(lang, &toks[k + 1..])?;
            let mut call = call_of(name, args);
            call.keywords = keywords;
            // `unlink(p, recursive = TRUE)`, `rm(p; recursive=true)`: a recursive delete.
            if call
                .keywords
                .iter()
                .any(|(n, v)| n == "recursive" && matches!(v, Some(Value::Text(t)) if t == "true"))
            {
                call.names.insert(0, format!("{name}{{recursive}}"));
            }
            Some(call)
        }
        _ => None,
    }
}

/// The literal a Groovy `.execute()` at `k` is called on: `"CMD"` or `[…]` of literals.
fn groovy_receiver(toks: &[Tok], k: usize) -> Option<Option<Value>> {
    if toks.get(k + 1) != Some(&Tok::Punct('(')) || toks.get(k + 2) != Some(&Tok::Punct(')')) {
        return None;
    }
    let dot = k.checked_sub(1)?;
    if toks[dot] != Tok::Punct('.') {
        return None;
    }
    match toks.get(dot.checked_sub(1)?)? {
        Tok::Str(s) => Some(s.clone().map(Value::Text)),
        Tok::Punct(']') => {
            let open = toks[..dot].iter().rposition(|t| *t == Tok::Punct('['))?;
            let mut words = Vec::new();
            for (n, t) in toks[open + 1..dot - 1].iter().enumerate() {
                match (n % 2, t) {
                    (0, Tok::Str(Some(w))) => words.push(w.clone()),
                    (1, Tok::Punct(',')) => {}
                    _ => return Some(None),
                }
            }
            Some(Some(Value::Words(words)))
        }
        _ => Some(None),
    }
}

/// The arguments of a call whose name is followed by `after`: `(…)` of literals and keyword
/// arguments (`recursive = TRUE`, Julia's `; recursive=true`), or, in Lua, one string
/// without parentheses (`os.execute "CMD"`). `None` when no call follows.
type Arguments = (Vec<Option<Value>>, Vec<(String, Option<Value>)>);

fn arguments(lang: Lang, after: &[Tok]) -> Option<Arguments> {
    match after.first()? {
        Tok::Str(s) if lang == Lang::Lua => {
            return Some((vec![s.clone().map(Value::Text)], Vec::new()));
        }
        Tok::Punct('(') => {}
        _ => return None,
    }
    let mut args = Vec::new();
    let mut keywords = Vec::new();
    let mut p = 1;
    loop {
        match after.get(p..)? {
            [Tok::Punct(')'), ..] => break,
            [Tok::Ident(k), Tok::Punct('='), v, rest @ ..]
                if matches!(rest.first(), Some(Tok::Punct(',' | ';' | ')'))) =>
            {
                let v = match v {
                    Tok::Str(s) => s.clone().map(Value::Text),
                    Tok::Ident(b) if b.eq_ignore_ascii_case("true") || b == "T" => {
                        Some(Value::Text("true".into()))
                    }
                    _ => None,
                };
                keywords.push((k.clone(), v));
                p += 3;
            }
            [Tok::Str(s), rest @ ..]
                if matches!(rest.first(), Some(Tok::Punct(',' | ';' | ')'))) =>
            {
                args.push(s.clone().map(Value::Text));
                p += 1;
            }
            _ => {
                // Anything else: this argument is not literal, and the ones after it are
                // not at a known position.
                args.push(None);
                break;
            }
        }
        match after.get(p) {
            Some(Tok::Punct(',' | ';')) => p += 1,
            Some(Tok::Punct(')')) => break,
            _ => {
                args.push(None);
                break;
            }
        }
    }
    Some((args, keywords))
}

/// Line comment markers of each language.
fn line_comments(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Lua => &["--"],
        Lang::R | Lang::Julia => &["#"],
        Lang::AppleScript => &["--", "#"],
        Lang::Groovy => &["//"],
        _ => &[],
    }
}

fn tokens(lang: Lang, code: &str, budget: &Budget) -> Result<Vec<Tok>, &'static str> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut p = 0;
    let starts = |p: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(n, c)| chars.get(p + n) == Some(&c))
    };
    while p < chars.len() {
        if !budget.ok() {
            return Err("is too large to read within the work budget");
        }
        let c = chars[p];
        if c.is_whitespace() {
            p += 1;
            continue;
        }
        // Lua's long strings and comments: `[[…]]`, `--[[…]]`.
        if lang == Lang::Lua && (starts(p, "--[[") || starts(p, "[[")) {
            let comment = starts(p, "--");
            let from = p + if comment { 4 } else { 2 };
            let end = (from..chars.len())
                .find(|&e| starts(e, "]]"))
                .ok_or("does not parse (a long string does not end)")?;
            if !comment {
                out.push(Tok::Str(Some(chars[from..end].iter().collect())));
            }
            p = end + 2;
            continue;
        }
        if lang == Lang::Groovy && starts(p, "/*") {
            let end = (p + 2..chars.len())
                .find(|&e| starts(e, "*/"))
                .ok_or("does not parse (a comment does not end)")?;
            p = end + 2;
            continue;
        }
        if line_comments(lang).iter().any(|m| starts(p, m)) {
            while p < chars.len() && chars[p] != '\n' {
                p += 1;
            }
            continue;
        }
        if c == '"' || c == '\'' || (c == '`' && lang == Lang::Julia) {
            let mut raw = String::new();
            let mut q = p + 1;
            loop {
                let Some(&d) = chars.get(q) else {
                    return Err("does not parse (a string does not end)");
                };
                q += 1;
                if d == '\\' {
                    raw.push(d);
                    raw.extend(chars.get(q));
                    q += 1;
                    continue;
                }
                if d == c {
                    break;
                }
                raw.push(d);
            }
            p = q;
            let value = string_value(lang, c, &raw);
            out.push(match c {
                '`' => Tok::Cmd(value.map(|v| v.split_whitespace().map(str::to_string).collect())),
                _ => Tok::Str(value),
            });
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut id = String::new();
            while let Some(&d) = chars.get(p) {
                let dotted = d == '.'
                    && chars
                        .get(p + 1)
                        .is_some_and(|n| n.is_alphabetic() || *n == '_')
                    && lang != Lang::Groovy;
                if d.is_alphanumeric() || d == '_' || dotted {
                    id.push(d);
                    p += 1;
                } else {
                    break;
                }
            }
            out.push(Tok::Ident(id));
            continue;
        }
        out.push(Tok::Punct(c));
        p += 1;
    }
    Ok(out)
}

/// A string literal's value: `None` where the language interpolates (`$x` in Julia and
/// Groovy double quotes, Julia commands).
fn string_value(lang: Lang, quote: char, raw: &str) -> Option<String> {
    let interpolates = match (lang, quote) {
        (Lang::Julia, '"' | '`') | (Lang::Groovy, '"') => raw.contains('$'),
        _ => false,
    };
    if interpolates {
        return None;
    }
    Some(super::code::unescape(raw))
}

/// Remove-Item and the aliases PowerShell keeps for it on every platform.
const REMOVE_ITEM: &[&str] = &["remove-item", "ri", "del", "erase", "rd"];

/// PowerShell: statements split at `;` and newlines. `Remove-Item` (or an alias) with
/// `-Recurse` is a recursive delete of its literal paths (reported as `Remove-Item -Recurse`),
/// without it a delete (`Remove-Item`); `-WhatIf` only reports. A statement of plain words
/// whose first word is not a cmdlet runs a native program, as bash would run those words: it
/// is reported as a command (`native`).
fn powershell(code: &str) -> Vec<Call> {
    let mut calls = Vec::new();
    for stmt in code.split([';', '\n']) {
        let words: Vec<&str> = stmt.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        let plain = stmt
            .chars()
            .all(|c| c.is_alphanumeric() || c.is_whitespace() || "-_./~=:,+$'\"".contains(c));
        if REMOVE_ITEM.contains(&first.to_ascii_lowercase().as_str()) {
            let mut recurse = false;
            let mut paths = Vec::new();
            let mut k = 1;
            while let Some(w) = words.get(k) {
                let lower = w.to_ascii_lowercase();
                match lower.strip_prefix('-') {
                    Some("whatif") => {
                        paths.clear();
                        break;
                    }
                    Some(p) if !p.is_empty() && "recurse".starts_with(p) => recurse = true,
                    Some("path" | "literalpath") => {
                        k += 1;
                        paths.extend(words.get(k).map(|p| ps_path(p)));
                    }
                    Some(_) => {}
                    None => paths.push(ps_path(w)),
                }
                k += 1;
            }
            let name = if recurse {
                "Remove-Item -Recurse"
            } else {
                "Remove-Item"
            };
            calls.extend(paths.into_iter().map(|p| call_of(name, vec![p])));
        } else if plain && !first.contains('-') && !first.starts_with('$') {
            calls.push(call_of(
                "native",
                vec![Some(Value::Text(stmt.trim().to_string()))],
            ));
        }
    }
    calls
}

/// A PowerShell path word: a literal, `~`, or `$HOME…`; `None` for anything else.
fn ps_path(w: &str) -> Option<Value> {
    let w = w.trim_matches(|c| c == '\'' || c == '"');
    let w = match w
        .strip_prefix("$HOME")
        .or_else(|| w.strip_prefix("$env:HOME"))
    {
        Some(rest) => format!("~{rest}"),
        None => w.to_string(),
    };
    (!w.contains(['$', '(', '@', '`', '*', '?'])).then_some(Value::Text(w))
}

/// Tcl: `exec WORD…` runs a program with its words (up to a pipe or redirection), as
/// literal as the words are: a word with `$` or `[` is only known at run time, and ends the
/// command's known words.
fn tcl(code: &str) -> Vec<Call> {
    let mut calls = Vec::new();
    for stmt in code.split([';', '\n']) {
        let words = tcl_words(stmt);
        if words.first().is_some_and(|w| w.as_deref() == Some("exec")) {
            let known: Option<Vec<String>> = words[1..]
                .iter()
                .take_while(|w| {
                    !w.as_deref()
                        .is_some_and(|w| w.starts_with(['|', '<', '>', '&']) || w.starts_with("2>"))
                })
                .cloned()
                .collect();
            calls.push(call_of("exec", vec![known.map(Value::Words)]));
        }
    }
    calls
}

/// The words of one Tcl command: `{…}` literal, `"…"` or bare with no substitution;
/// `None` for a word that substitutes.
fn tcl_words(stmt: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut chars = stmt.trim().chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        let mut known = true;
        match c {
            '{' => {
                chars.next();
                let mut depth = 0;
                for d in chars.by_ref() {
                    match d {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    word.push(d);
                }
            }
            '"' => {
                chars.next();
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                    known &= !matches!(d, '$' | '[' | '\\');
                    word.push(d);
                }
            }
            _ => {
                while let Some(&d) = chars.peek() {
                    if d.is_whitespace() {
                        break;
                    }
                    known &= !matches!(d, '$' | '[' | '\\');
                    word.push(d);
                    chars.next();
                }
            }
        }
        out.push(known.then_some(word));
    }
    out
}

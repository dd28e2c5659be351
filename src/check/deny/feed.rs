//! check/deny/feed: what a command reads on its input, where the line shows it — the output of
//! an `echo` or `printf` piped into it (its format and escapes worked out; also through `cat`,
//! `head`, `tail`, `tee`, a plain `grep` or `sed s///`), a heredoc, a here-string, a process
//! substitution, `/dev/stdin` or a file an earlier command of the line wrote, given as its
//! file — and the commands that run it: a shell fed a script (`echo 'rm -rf x' | bash`), perl's
//! `-n` loop running the lines it reads (awk's is read in check/awk.rs), an `at` job, a crontab line, `redis-cli` fed commands, a database
//! client's shell escapes (`psql -c '\! …'`), and `xargs` fed by a command whose output is known
//! (`docker ps -aq | xargs docker rm -f`). It only adds denies (and the findings of the nested
//! scripts it hands to the analyser); it never allows anything.

use super::{program_name, rule_matches, sql, static_word};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::{Expansions, Joiner, Nest, RedirectOp, Word};

/// The text the command piped straight into segment `i` writes, where the line shows it (see
/// [`printed_text`]). `None` when the segment before `i` is not such a feeder.
pub(crate) fn piped_text(cx: &Ctx<'_>, i: usize) -> Option<String> {
    feeder(cx, i)?;
    printed_text(cx, i - 1, MAX_CAT_CHAIN)
}

/// Most `cat`s in a row read through (`echo x | cat | cat | bash`): each costs a walk back.
const MAX_CAT_CHAIN: usize = 8;

/// What segment `j` writes to its output, where the line shows it (see [`printed_text`]).
pub(super) fn printed(cx: &Ctx<'_>, j: usize) -> Option<String> {
    printed_text(cx, j, MAX_CAT_CHAIN)
}

/// What segment `j` writes to its output, where the line shows it: an `echo`'s or `printf`'s
/// static words (a run-time one is left out, unless the line assigns its value: `c='rm -rf
/// v'; echo "$c" | bash`), with the escapes `echo -e` and `printf` decode decoded, or what a
/// `cat` with no file copies from its own input (`cat <<< TEXT`, `echo TEXT | cat`). `cats`
/// bounds the `cat`s read through.
fn printed_text(cx: &Ctx<'_>, j: usize, cats: usize) -> Option<String> {
    let p = cx.script.segments.get(j)?;
    let program = program_name(p.words.first()?.static_text()?);
    let resolved: Vec<Option<String>> = p.words[1..]
        .iter()
        .map(|w| match w.static_text() {
            Some(_) => None,
            None => super::assigned::value_of(cx, j, w).map(|v| v.join(" ")),
        })
        .collect();
    let mut args: Vec<&str> = p.words[1..]
        .iter()
        .zip(&resolved)
        .filter_map(|(w, r)| w.static_text().or(r.as_deref()))
        .collect();
    match &*program {
        "echo" => {
            let mut decode = false;
            while let Some(opt) = args.first().filter(|a| {
                a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c))
            }) {
                decode |= opt.contains('e');
                args.remove(0);
            }
            let text = args.join(" ");
            Some(if decode { decode_escapes(&text) } else { text })
        }
        "printf" => {
            if args.first() == Some(&"--") {
                args.remove(0);
            }
            // `printf -v NAME …` writes a variable, not the pipe.
            if args.first().is_some_and(|a| a.starts_with('-')) {
                return None;
            }
            // `printf '%s' 'rm -rf v'`: the output, when every run-time word is known and the
            // format holds only what [`printf_output`] works out.
            if args.len() + 1 == p.words.len()
                && let Some((format, rest)) = args.split_first()
                && let Some(out) = printf_output(format, rest)
            {
                return Some(out);
            }
            // Otherwise the format and then every argument: what a `%s` would put where is
            // not worked out, but every word the output can hold is in the text.
            Some(decode_escapes(&args.join(" ")))
        }
        // `awk 'BEGIN{print "rm -rf x"}'`: a program that only prints literals.
        "awk" | "gawk" | "mawk" | "nawk" if args.len() == 1 && p.words.len() == 2 => {
            awk_printed(args[0])
        }
        // `cat` or `cat -` copies its input; a file operand or an option is not followed.
        "cat" if cats > 0 && p.words.len() == args.len() + 1 && args.iter().all(|a| *a == "-") => {
            own_input(cx, j, cats)
        }
        // `head -1`, `tail -n 2`, `tee f`, `grep rm`, `sed s/x/r/`: a filter whose effect on
        // the lines is worked out, when every word is static.
        "head" | "tail" | "tee" | "grep" | "sed"
            if cats > 0
                && p.words.len() == args.len() + 1
                && resolved.iter().all(Option::is_none) =>
        {
            let input = own_input(cx, j, cats)?;
            filtered(&program, &args, &input)
        }
        _ => None,
    }
}

/// What segment `j` reads on its input where the line shows it: the output of the command
/// piped into it, its heredocs and here-strings.
fn own_input(cx: &Ctx<'_>, j: usize, cats: usize) -> Option<String> {
    let mut texts = Vec::new();
    if feeder(cx, j).is_some() {
        texts.extend(printed_text(cx, j - 1, cats.checked_sub(1)?));
    }
    texts.extend(redirected_input(cx, j));
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Most lines a `head` or `tail` count is read as.
const MAX_FILTER_LINES: usize = 1 << 20;

/// The lines of `input` that `head`, `tail`, `tee`, `grep` (a plain pattern) or `sed` (one
/// `s/PLAIN/PLAIN/` command) writes; `None` for an option or a pattern not worked out.
fn filtered(program: &str, args: &[&str], input: &str) -> Option<String> {
    let lines: Vec<&str> = input.lines().collect();
    // Digits only: `tail -n +2` counts from the start, `-n -2` from the end.
    let count = |n: &str| {
        n.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| n.parse::<usize>().ok())
            .flatten()
            .filter(|&n| n <= MAX_FILTER_LINES)
    };
    match program {
        "head" | "tail" => {
            let n = match args {
                [] => 10,
                [n] if n.starts_with("-n") || n.starts_with("--lines=") => count(
                    n.strip_prefix("-n")
                        .or_else(|| n.strip_prefix("--lines="))?,
                )?,
                [n] if n.starts_with('-') && n.len() > 1 => count(&n[1..])?,
                ["-n" | "--lines", n] => count(n)?,
                _ => return None,
            };
            let kept = match program {
                "head" => &lines[..n.min(lines.len())],
                _ => &lines[lines.len().saturating_sub(n)..],
            };
            Some(kept.join("\n"))
        }
        // `tee FILE…` copies its input (and writes the files).
        "tee"
            if args
                .iter()
                .all(|a| !a.starts_with('-') || matches!(*a, "-a" | "--append")) =>
        {
            Some(input.to_string())
        }
        "grep" => {
            let mut invert = false;
            let mut fold = false;
            let mut pattern = None;
            for a in args {
                match *a {
                    "-v" | "--invert-match" => invert = true,
                    "-i" | "--ignore-case" => fold = true,
                    "-F" | "--fixed-strings" => {}
                    a if !a.starts_with('-') && pattern.is_none() => pattern = Some(a),
                    _ => return None,
                }
            }
            let pattern = pattern?;
            let plain = |c: char| {
                c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '/' | '=' | ',' | ':')
            };
            if pattern.is_empty() || !pattern.chars().all(plain) || pattern.starts_with('-') {
                return None;
            }
            let hit = |l: &str| match fold {
                true => l
                    .to_ascii_lowercase()
                    .contains(&pattern.to_ascii_lowercase()),
                false => l.contains(pattern),
            };
            let kept: Vec<&str> = lines.into_iter().filter(|l| hit(l) != invert).collect();
            Some(kept.join("\n"))
        }
        "sed" => {
            let script = match args {
                [s] | ["-e", s] => *s,
                _ => return None,
            };
            let body = script.strip_prefix("s/")?;
            let parts: Vec<&str> = body.split('/').collect();
            let (pattern, replacement, flags) = match parts.as_slice() {
                [p, r, f] => (*p, *r, *f),
                _ => return None,
            };
            let plain = |t: &str| {
                t.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '=' | ',' | ':')
                })
            };
            if pattern.is_empty()
                || !plain(pattern)
                || !plain(replacement)
                || !matches!(flags, "" | "g")
            {
                return None;
            }
            let kept: Vec<String> = lines
                .into_iter()
                .map(|l| match flags {
                    "g" => l.replace(pattern, replacement),
                    _ => l.replacen(pattern, replacement, 1),
                })
                .collect();
            Some(kept.join("\n"))
        }
        _ => None,
    }
}

/// Most bytes of output [`printf_output`] builds.
const MAX_PRINTF_OUTPUT: usize = 1 << 16;

/// What `printf FORMAT ARGS…` prints: the format's escapes decoded, `%s`, `%b`, `%c`, `%d`,
/// `%i`, `%%` filled in from the arguments, the format reused while arguments remain (GNU
/// coreutils and bash's builtin agree on these); `None` for a width, a precision, another
/// conversion or a number that is not one.
fn printf_output(format: &str, args: &[&str]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    loop {
        let before = next;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if escape(&mut chars, &mut out, Escapes::Printf) == Some(true) {
                        return Some(out);
                    }
                }
                '%' => {
                    let conv = chars.next()?;
                    if conv == '%' {
                        out.push('%');
                        continue;
                    }
                    let arg = args.get(next).copied().unwrap_or("");
                    next += 1;
                    match conv {
                        's' => out.push_str(arg),
                        'b' => {
                            let mut it = arg.chars().peekable();
                            while let Some(a) = it.next() {
                                match a {
                                    '\\' => {
                                        if escape(&mut it, &mut out, Escapes::Echo) == Some(true) {
                                            return Some(out);
                                        }
                                    }
                                    a => out.push(a),
                                }
                            }
                        }
                        'c' => out.extend(arg.chars().next()),
                        'd' | 'i' => match arg {
                            "" => out.push('0'),
                            a => out.push_str(&a.parse::<i64>().ok()?.to_string()),
                        },
                        _ => return None,
                    }
                }
                c => out.push(c),
            }
            if out.len() > MAX_PRINTF_OUTPUT {
                return None;
            }
        }
        // The format is used again while arguments remain, unless it took none.
        if next >= args.len() || next == before {
            return Some(out);
        }
    }
}

/// Which escapes a decoder knows: `printf`'s format takes `\NNN` octal, `echo -e` and `%b`
/// take `\0NNN`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Printf,
    Echo,
}

/// Decodes the escape after a `\` into `out`; `Some(true)` for `\c` (stop all output),
/// `Some(false)` otherwise, `None` when the text ended.
fn escape(
    chars: &mut std::iter::Peekable<impl Iterator<Item = char>>,
    out: &mut String,
    kind: Escapes,
) -> Option<bool> {
    let Some(c) = chars.next() else {
        out.push('\\');
        return None;
    };
    let digits = |chars: &mut std::iter::Peekable<_>, radix: u32, most: usize| {
        let mut v = 0u32;
        let mut n = 0;
        while n < most {
            let Some(d) = chars.peek().and_then(|c: &char| c.to_digit(radix)) else {
                break;
            };
            v = v * radix + d;
            chars.next();
            n += 1;
        }
        (n > 0).then_some(v)
    };
    match c {
        'n' => out.push('\n'),
        't' => out.push('\t'),
        'r' => out.push('\r'),
        'a' => out.push('\u{7}'),
        'b' => out.push('\u{8}'),
        'f' => out.push('\u{c}'),
        'v' => out.push('\u{b}'),
        'e' | 'E' => out.push('\u{1b}'),
        '\\' => out.push('\\'),
        'c' => return Some(true),
        'x' => match digits(chars, 16, 2) {
            Some(v) => out.extend(char::from_u32(v)),
            None => out.push_str("\\x"),
        },
        '0' if kind == Escapes::Echo => {
            out.extend(digits(chars, 8, 3).map_or(Some('\0'), char::from_u32));
        }
        '0'..='7' if kind == Escapes::Printf => {
            let mut v = c.to_digit(8).unwrap_or(0);
            for _ in 0..2 {
                match chars.peek().and_then(|c| c.to_digit(8)) {
                    Some(d) => {
                        v = v * 8 + d;
                        chars.next();
                    }
                    None => break,
                }
            }
            out.extend(char::from_u32(v));
        }
        '"' | '\'' if kind == Escapes::Printf => out.push(c),
        other => {
            out.push('\\');
            out.push(other);
        }
    }
    Some(false)
}

/// What an awk program made of a `BEGIN` block of `print "…"` statements (string literals
/// only, no escapes) prints: the literals, one line per `print`. `None` for anything else.
fn awk_printed(program: &str) -> Option<String> {
    let body = program
        .trim()
        .strip_prefix("BEGIN")?
        .trim_start()
        .strip_prefix('{')?
        .strip_suffix('}')?;
    let mut lines = Vec::new();
    for statement in body.split([';', '\n']) {
        let statement = statement.trim();
        if statement.is_empty() {
            continue;
        }
        let mut rest = statement.strip_prefix("print")?.trim_start();
        let mut line = String::new();
        while !rest.is_empty() {
            let inner = rest.strip_prefix('"')?;
            let end = inner.find('"')?;
            let text = &inner[..end];
            if text.contains('\\') {
                return None;
            }
            line.push_str(text);
            rest = inner[end + 1..].trim_start();
        }
        lines.push(line);
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The text a process substitution (`<(echo 'rm -rf x')`) in segment `i` gives the file it
/// stands for: what its one command prints, where the line shows it.
pub(crate) fn substituted_text(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<String> {
    let e = w.expansions;
    if !e.process || e.parameter || e.command || e.arithmetic || e.glob {
        return None;
    }
    if !(w.text.starts_with("<(") && w.text.ends_with(')')) {
        return None;
    }
    let outer = cx.script.segments.get(i)?;
    let level = outer.nesting.len();
    // As an operand the substitution is one level in; as a redirection's target (`bash <
    // <(…)`), inside the redirection too.
    let mut inner = cx.script.segments.iter().enumerate().filter(|(_, s)| {
        let between = s.nesting.get(level..).unwrap_or(&[]);
        s.span.start >= w.span.start
            && s.span.end <= w.span.end
            && s.nesting.starts_with(&outer.nesting)
            && matches!(
                between,
                [Nest::ProcessSubstitution] | [Nest::Redirect, Nest::ProcessSubstitution]
            )
    });
    let (j, _) = inner.next()?;
    // `<(echo a; rm x)`: more than one command is not read.
    if inner.next().is_some() {
        return None;
    }
    printed_text(cx, j, MAX_CAT_CHAIN)
}

/// Paths that name a program's own standard input.
const STDIN_PATHS: &[&str] = &["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// The text a program reads from the file operand `w` of segment `i`, where the line shows
/// it: a process substitution's output, or, for `/dev/stdin`, the segment's own input (see
/// [`input_texts`]).
pub(crate) fn operand_text(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<String> {
    if w.static_text().is_some_and(|t| STDIN_PATHS.contains(&t)) {
        let texts = input_texts(cx, i);
        return (!texts.is_empty()).then(|| texts.join("\n"));
    }
    if let Some(t) = w.static_text() {
        return written_text(cx, i, t);
    }
    substituted_text(cx, i, w)
}

/// Most earlier commands of the line read for what they write to one file.
const MAX_WRITERS: usize = 8;

/// `echo 'rm -rf v' > s.sh; bash s.sh`: what the commands before segment `i` wrote to the file
/// `path` (`>`, `>>`, `>|` of a command whose output the line shows, `tee FILE`), where the line
/// shows it all. A function body is left out (it may never run); a write whose text is not
/// known makes the whole unknown.
pub(super) fn written_text(cx: &Ctx<'_>, i: usize, path: &str) -> Option<String> {
    let same =
        |t: &str| t.strip_prefix("./").unwrap_or(t) == path.strip_prefix("./").unwrap_or(path);
    let segments = &cx.script.segments;
    let start = segments.get(i)?.span.start;
    let mut text: Option<String> = None;
    let mut writers = 0;
    for (j, s) in segments.iter().enumerate().take(i) {
        if s.span.end > start || s.nesting.contains(&Nest::Function) {
            continue;
        }
        let mut append = None;
        for r in s.redirects.iter().chain(heredoc_line_redirects(cx, s)) {
            let target = r.target.as_ref().and_then(|t| t.static_text());
            if !target.is_some_and(same) {
                continue;
            }
            match (r.op, r.fd) {
                (RedirectOp::Write | RedirectOp::Clobber, None | Some(1)) => append = Some(false),
                (RedirectOp::Append, None | Some(1)) => append = Some(true),
                // Written some other way (`2>`, `&>`, `<>`): not known.
                (RedirectOp::Read, _) => {}
                _ => return None,
            }
        }
        let tee = s
            .words
            .first()
            .and_then(|w| w.static_text())
            .map(program_name)
            .as_deref()
            == Some("tee")
            && s.words[1..]
                .iter()
                .any(|w| w.static_text().is_some_and(same));
        if tee {
            append = Some(
                s.words
                    .iter()
                    .any(|w| matches!(w.static_text(), Some("-a" | "--append"))),
            );
        }
        let Some(append) = append else {
            continue;
        };
        writers += 1;
        if writers > MAX_WRITERS {
            return None;
        }
        let written = match tee {
            true => own_input(cx, j, MAX_CAT_CHAIN)?,
            false => printed_text(cx, j, MAX_CAT_CHAIN)?,
        };
        text = Some(match (append, text) {
            (true, Some(before)) => format!("{before}\n{written}"),
            _ => written,
        });
    }
    text
}

/// `cat <<'EOF' > s.sh`: tree-sitter-bash hangs a redirection written after the heredoc
/// operator on the heredoc, and the segmenter reports it as an event (a compound redirect)
/// inside the command's span; these are the command's own.
fn heredoc_line_redirects<'s>(
    cx: &Ctx<'s>,
    s: &'s crate::segment::Segment,
) -> impl Iterator<Item = &'s crate::segment::Redirect> {
    cx.script.events.iter().filter_map(move |(e, at)| match e {
        crate::segment::Event::CompoundRedirect(r)
            if at.start >= s.span.start && at.end <= s.span.end =>
        {
            Some(r)
        }
        _ => None,
    })
}

/// The segment piped straight into segment `i` at the same level.
fn feeder<'s>(cx: &Ctx<'s>, i: usize) -> Option<&'s crate::segment::Segment> {
    let segments = &cx.script.segments;
    let p = segments.get(i.checked_sub(1)?)?;
    let same_level = segments.get(i).is_some_and(|s| s.nesting == p.nesting);
    (p.joiner == Some(Joiner::Pipe) && same_level).then_some(p)
}

/// The escapes `echo -e` decodes (`\n`, `\t`, `\\`, `\xHH`, `\0NNN`, …), up to a `\c`.
fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        if escape(&mut chars, &mut out, Escapes::Echo) == Some(true) {
            break;
        }
    }
    out
}

/// Everything segment `i` reads on its input that the line shows: piped `echo`/`printf`
/// output, heredoc bodies and here-strings on fd 0.
pub(crate) fn input_texts(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let mut texts: Vec<String> = piped_text(cx, i)
        .filter(|t| !t.is_empty())
        .into_iter()
        .collect();
    texts.extend(redirected_input(cx, i));
    texts
}

/// The heredoc bodies and here-strings segment `i` reads on fd 0.
fn redirected_input(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let mut texts = Vec::new();
    if let Some(seg) = cx.script.segments.get(i) {
        for r in &seg.redirects {
            if !matches!(r.fd, None | Some(0)) {
                continue;
            }
            match r.op {
                RedirectOp::Heredoc => texts
                    .extend(crate::check::wrap::heredoc_body(cx.src, r.span).map(str::to_string)),
                RedirectOp::Herestring => {
                    texts.extend(r.target.as_ref().map(|t| t.text.clone()));
                }
                // `sqlite3 db < <(echo '.shell …')`: what the process substitution prints.
                RedirectOp::Read => {
                    texts.extend(r.target.as_ref().and_then(|t| substituted_text(cx, i, t)));
                }
                _ => {}
            }
        }
    }
    texts
}

/// Statements a Perl `-n`/`-p` loop may hold besides the one that runs the line: dropping the
/// newline changes nothing a shell runs.
const PERL_CHOMPS: &[&str] = &["chomp", "chomp($_)", "chomp$_"];

/// The Perl statements (blanks removed) that run the line a `-n`/`-p` loop read as a shell
/// command; `exec` replaces perl with the first line's command.
const PERL_LINE_RUNNERS: &[&str] = &[
    "system($_)",
    "system$_",
    "`$_`",
    "qx($_)",
    "qx{$_}",
    "qx/$_/",
    "print`$_`",
    "readpipe($_)",
];
const PERL_LINE_EXECS: &[&str] = &["exec($_)", "exec$_"];

/// `echo 'rm -rf v' | perl -ne 'system($_)'`, `perl -ne 'system $_' <<< …`, `perl -ne
/// 'system($_)' FILE` of a file the line wrote: perl's `-n` (or `-p`) loop runs each line it
/// reads as a command when the whole program is that one statement (a `chomp` aside); a
/// condition or anything else leaves it to the ask perl gets. A denied line denies.
pub(super) fn perl_runs_input(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut looped = false;
    let mut code: Vec<&str> = Vec::new();
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if !t.starts_with('-') || t == "-" {
            break;
        }
        k += 1;
        if t == "--" {
            break;
        }
        for (n, c) in t.char_indices().skip(1) {
            let rest = &t[n + c.len_utf8()..];
            match c {
                'n' | 'p' => looped = true,
                'e' | 'E' | 'I' | 'M' | 'm' => {
                    let value = match rest {
                        "" => {
                            k += 1;
                            words.get(k - 1).and_then(|w| w.static_text())
                        }
                        r => Some(r),
                    };
                    if matches!(c, 'e' | 'E') {
                        match value {
                            Some(v) => code.push(v),
                            None => return,
                        }
                    }
                    break;
                }
                // Options whose value is attached (`-i.bak`) or digits (`-l0`, `-0777`).
                'i' | 'x' | 'C' | 'D' | 'F' => break,
                _ => {}
            }
        }
    }
    if !looped || code.is_empty() {
        return;
    }
    let program: String = code
        .join(";")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut statements = program
        .split(';')
        .filter(|s| !s.is_empty() && !PERL_CHOMPS.contains(s));
    let (Some(statement), None) = (statements.next(), statements.next()) else {
        return;
    };
    let runs_each = PERL_LINE_RUNNERS.contains(&statement);
    if !runs_each && !PERL_LINE_EXECS.contains(&statement) {
        return;
    }
    let operands = words.get(k..).unwrap_or(&[]);
    let texts: Vec<String> = if operands.is_empty() {
        input_texts(cx, i)
    } else {
        let Some(texts) = operands
            .iter()
            .map(|w| operand_text(cx, i, w))
            .collect::<Option<Vec<String>>>()
        else {
            return;
        };
        texts
    };
    let mut lines = texts.iter().flat_map(|t| t.lines());
    let commands: Vec<&str> = match runs_each {
        true => lines.take(MAX_JOB_LINES).collect(),
        false => lines.next().into_iter().collect(),
    };
    for cmd in commands {
        super::denies_in(
            cx,
            i,
            span,
            "the command perl runs for a line it reads",
            cmd,
        );
    }
}

/// Most job lines of one `at` or `crontab` read.
const MAX_JOB_LINES: usize = 32;

/// `echo 'rm -rf v' | at now`, `at now <<< CMD`, `at -f FILE now`, `batch`: at runs its job with
/// `/bin/sh` later; where the line shows the job, a denied command in it denies. Listing,
/// removing or printing jobs (`-l`, `-r`, `-d`, `-c`) runs nothing.
pub(super) fn at_job(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut file = None;
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if t[1..].contains(['l', 'r', 'd', 'c']) && !t.starts_with("--") {
            return;
        }
        match t {
            "-f" => {
                file = words.get(k + 1);
                k += 2;
            }
            "-q" | "-t" => k += 2,
            _ => k += 1,
        }
    }
    let texts = match file {
        Some(f) => operand_text(cx, i, f).into_iter().collect(),
        None => input_texts(cx, i),
    };
    for text in texts.iter().take(MAX_JOB_LINES) {
        super::denies_in(cx, i, span, "the job `at` runs", text);
    }
}

/// `echo '* * * * * rm -rf v' | crontab -`, `crontab FILE`: the commands of the table the line
/// installs (each line past its five time fields or its `@reboot`-style word; comments and
/// variable settings skipped) run with `/bin/sh`; a denied one denies.
pub(super) fn crontab(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut operand = None;
    let mut k = 1;
    while let Some(w) = words.get(k) {
        match w.static_text() {
            Some("-u") => k += 2,
            Some(t) if t.starts_with('-') && t != "-" => {
                // `-l`, `-r`, `-e`, `-i`, `-T`: list, remove, edit, check; nothing installed.
                if !t.starts_with("-u") {
                    return;
                }
                k += 1;
            }
            _ => {
                operand = Some(w);
                break;
            }
        }
    }
    if installs_empty_table(cx, i, operand) {
        // What `crontab -r` does: every job of the user's table is gone.
        super::denies_in(
            cx,
            i,
            span,
            "an empty crontab installed, which is",
            "crontab -r",
        );
        return;
    }
    let texts = match operand {
        Some(w) if w.static_text() != Some("-") => operand_text(cx, i, w).into_iter().collect(),
        _ => {
            let mut texts = input_texts(cx, i);
            texts.extend(grouped_cron_text(cx, i));
            texts
        }
    };
    let commands = texts
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(cron_command)
        .take(MAX_JOB_LINES);
    for cmd in commands {
        super::denies_in(cx, i, span, "the command the crontab runs", cmd);
    }
}

/// `crontab /dev/null`, `crontab < /dev/null`, `echo | crontab -`, `: | crontab -`: the table
/// segment `i` installs (from `operand`, or its input) is known and blank, so every job the
/// user had is removed.
fn installs_empty_table(cx: &Ctx<'_>, i: usize, operand: Option<&Word>) -> bool {
    // Blank text only: a table of comments is also empty, but one may read it as a mention.
    let no_job = |t: &str| t.trim().is_empty();
    match operand.map(|w| w.static_text()) {
        Some(Some("/dev/null")) => return true,
        Some(Some("-")) | None => {}
        Some(_) => {
            return operand
                .and_then(|w| operand_text(cx, i, w))
                .is_some_and(|t| no_job(&t));
        }
    }
    let Some(seg) = cx.script.segments.get(i) else {
        return false;
    };
    let mut null_input = false;
    for r in &seg.redirects {
        if !matches!(r.fd, None | Some(0)) {
            continue;
        }
        match (r.op, r.target.as_ref().and_then(|t| t.static_text())) {
            (RedirectOp::Read, Some("/dev/null")) => null_input = true,
            (RedirectOp::Read | RedirectOp::Heredoc | RedirectOp::Herestring, _) => {
                let texts = redirected_input(cx, i);
                return texts.len() == 1 && no_job(&texts[0]);
            }
            _ => {}
        }
    }
    if null_input {
        return true;
    }
    let Some(p) = feeder(cx, i) else {
        return false;
    };
    let silent = p.redirects.is_empty()
        && p.words.len() == 1
        && matches!(p.words[0].static_text(), Some(":" | "true"));
    silent || piped_text(cx, i).is_some_and(|t| no_job(&t))
}

/// `(crontab -l; echo '* * * * * CMD') | crontab -`, `{ crontab -l; echo …; } | crontab -`: what
/// a group piped into segment `i` writes, where each of its commands is an `echo` or `printf`
/// the line shows or `crontab -l` (the installed table, unknown but ending in a newline, as
/// crontab installs no other). Its commands follow one another with `;`, a newline or `&&`;
/// anything else in the group (another command, `||`, a nested block, a comment) leaves the
/// text unknown.
fn grouped_cron_text(cx: &Ctx<'_>, i: usize) -> Option<String> {
    let segments = &cx.script.segments;
    let seg = segments.get(i)?;
    let last = i.checked_sub(1)?;
    let prev = segments.get(last)?;
    if prev.joiner != Some(Joiner::Pipe)
        || prev.nesting.len() != seg.nesting.len() + 1
        || !prev.nesting.starts_with(&seg.nesting)
        || !matches!(prev.nesting.last(), Some(Nest::Subshell | Nest::Group))
    {
        return None;
    }
    let gap = |from: usize, to: usize| cx.src.get(from..to).unwrap_or("");
    // The group's closing `)` or `}` alone stands between it and the pipe.
    let closing = gap(prev.span.end, seg.span.start);
    let closing = closing.trim_start_matches([' ', '\t', ';']);
    if !(closing.starts_with(')') || closing.starts_with('}')) {
        return None;
    }
    let mut first = last;
    while first > 0 {
        let before = &segments[first - 1];
        let between = gap(before.span.end, segments[first].span.start);
        if before.nesting != prev.nesting || between.contains(['(', ')', '{', '}', '#']) {
            break;
        }
        if !matches!(
            before.joiner,
            Some(Joiner::Semicolon | Joiner::Newline | Joiner::And)
        ) {
            return None;
        }
        first -= 1;
    }
    // The group opens right before its first command.
    let start = match first {
        0 => 0,
        f => segments[f - 1].span.end,
    };
    let opening = gap(start, segments[first].span.start).trim_end();
    if !(opening.ends_with('(') || opening.ends_with('{')) {
        return None;
    }
    let mut texts = Vec::new();
    for (j, member) in segments.iter().enumerate().take(last + 1).skip(first) {
        let words: Vec<Option<&str>> = member.words.iter().map(Word::static_text).collect();
        let lists_table = matches!(words.as_slice(), [Some(c), Some("-l")] if program_name(c) == "crontab")
            && member
                .redirects
                .iter()
                .all(|r| r.fd == Some(2) && r.op == RedirectOp::Write);
        if lists_table {
            continue;
        }
        texts.push(printed(cx, j)?);
    }
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The command of one crontab line: `None` for a blank line, a comment or `NAME=VALUE`.
fn cron_command(line: &str) -> Option<&str> {
    let line = line.trim_start();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let first_word = line.split_whitespace().next()?;
    if first_word.contains('=')
        || line
            .split_once('=')
            .is_some_and(|(n, _)| !n.trim().contains(' '))
    {
        return None;
    }
    let fields = if line.starts_with('@') { 1 } else { 5 };
    let mut rest = line;
    for _ in 0..fields {
        rest = rest.trim_start();
        let end = rest.find([' ', '\t'])?;
        rest = &rest[end..];
    }
    Some(rest.trim()).filter(|r| !r.is_empty())
}

/// Most lines of input read as `redis-cli` commands.
const MAX_REDIS_LINES: usize = 32;

/// `echo FLUSHALL | redis-cli`, `redis-cli <<< flushdb`: with no command among its arguments,
/// redis-cli runs each input line as one; each is checked as if it were given as arguments.
pub(super) fn redis_input(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let mut texts = input_texts(cx, i);
    // `printf 'FLUSHALL\n' > x.txt; redis-cli < x.txt`: a file the line wrote.
    texts.extend(super::written_input(cx, i));
    let lines = texts.iter().flat_map(|t| t.lines()).take(MAX_REDIS_LINES);
    for line in lines {
        let mut argv = words.to_vec();
        argv.extend(line.split_whitespace().map(|t| static_word(t, span)));
        if let Some(rule) = list
            .deny
            .iter()
            .find(|r| r.builtin.is_none() && rule_matches(list, r, &argv))
        {
            cx.deny(rule, span, Some(i));
            return;
        }
    }
}

/// The client family whose shell escapes [`sql::shell_commands`] reads, by program name.
fn client_family(client: &str) -> Option<sql::Client> {
    match client {
        "psql" => Some(sql::Client::Psql),
        "mysql" | "mariadb" => Some(sql::Client::Mysql),
        "sqlite3" | "sqlite" | "duckdb" => Some(sql::Client::Sqlite),
        // JavaScript has no shell escape of this kind.
        "mongosh" | "mongo" => None,
        _ => Some(sql::Client::Other),
    }
}

/// Most shell commands of one client command analysed (`psql -c '\! a' -c '\! b' …`).
const MAX_CLIENT_COMMANDS: usize = 8;

/// psql's `\!`, mysql's `system`, sqlite3's `.shell`, `COPY … TO PROGRAM`: the shell commands a
/// database client runs for what it is given are analysed as nested scripts, so a denied one
/// denies (and any one asks, as the client already does).
pub(super) fn client_shell_commands(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some((client, texts)) = super::client_input(cx, i, words) else {
        return;
    };
    let Some(family) = client_family(client) else {
        return;
    };
    let what = format!("the shell command `{client}` runs");
    let commands = texts
        .iter()
        .flat_map(|t| sql::shell_commands(family, t))
        .take(MAX_CLIENT_COMMANDS);
    for cmd in commands {
        cx.nested(i, span, &what, &cmd);
    }
}

/// `docker ps -aq | xargs docker rm -f`: xargs's command is checked with the feeder's output as
/// its extra operand, written as the substitution it stands for (`$(docker ps -aq)`), so the
/// rules that deny `docker rm -f $(docker ps -aq)` deny this too.
pub(super) fn xargs_fed(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let Some(inner) = super::xargs_command(words) else {
        return;
    };
    let Some(p) = feeder(cx, i) else {
        return;
    };
    let Some(source) = cx.src.get(p.span.start..p.span.end) else {
        return;
    };
    let mut fed = static_word(&format!("$({})", source.trim()), span);
    fed.expansions = Expansions {
        command: true,
        ..Expansions::NONE
    };
    let mut argv = inner.to_vec();
    argv.push(fed);
    // The command may sit behind `sudo`, `env` and the like (`xargs sudo docker rm -f`). Only
    // rules that read operands can tell the feeder's output from any other: the rest matched
    // already when the wrapped command was checked.
    for start in 0..argv.len().min(4) {
        let tail = &argv[start..];
        if let Some(rule) = list.deny.iter().find(|r| {
            r.builtin.is_none() && !r.any_operand.is_empty() && rule_matches(list, r, tail)
        }) {
            cx.deny(rule, span, Some(i));
            return;
        }
        let lead = tail[0].static_text().is_some_and(|t| {
            t.starts_with('-')
                || t.contains('=')
                || matches!(
                    &*program_name(t),
                    "sudo" | "doas" | "env" | "nice" | "nohup"
                )
        });
        if !lead {
            return;
        }
    }
}

/// xargs's options after which the input is not simply appended to the command once (lines
/// or counts per run, a replace string, an end-of-file word, another input file).
const XARGS_REGROUPS: &[&str] = &[
    "-n",
    "--max-args",
    "-L",
    "--max-lines",
    "-l",
    "-I",
    "-i",
    "--replace",
    "-E",
    "-e",
    "--eof",
    "-a",
    "--arg-file",
    "-s",
    "--max-chars",
    "-x",
    "--exit",
];

/// Most input words of a fed `xargs` placed on its command.
const MAX_XARGS_WORDS: usize = 64;

/// `echo rm -rf v | xargs timeout 5`, `echo 'rm -rf v' | xargs -0 bash -c`: when what is piped
/// into xargs is known (see [`piped_text`]), its command is read with the input's words added
/// as xargs splits them (at blanks; the whole input with `-0`; at the delimiter of `-d`), and a
/// deny found there denies. Input that xargs would unquote is not read.
pub(super) fn xargs_fed_words(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(inner) = super::xargs_command(words) else {
        return;
    };
    let options = &words[1..words.len() - inner.len()];
    let mut null = false;
    let mut delimiter = None;
    for (n, w) in options.iter().enumerate() {
        let Some(t) = w.static_text() else {
            return;
        };
        let name = t.split_once('=').map_or(t, |(o, _)| o);
        if XARGS_REGROUPS.contains(&name)
            || XARGS_REGROUPS
                .iter()
                .any(|o| o.len() == 2 && t.starts_with(o) && !t.starts_with("--"))
        {
            return;
        }
        null |= matches!(t, "-0" | "--null");
        if matches!(t, "-d" | "--delimiter") {
            delimiter = options.get(n + 1).and_then(|d| d.static_text());
        } else if let Some(d) = t.strip_prefix("--delimiter=") {
            delimiter = Some(d);
        }
    }
    if !inner.iter().all(Word::is_static) {
        return;
    }
    let Some(text) = piped_text(cx, i) else {
        return;
    };
    let fed: Vec<&str> = match (null, delimiter) {
        (true, _) => vec![text.as_str()],
        (false, Some("\\n")) => text.lines().collect(),
        (false, Some(d)) if d.chars().count() == 1 => text.split(d).collect(),
        (false, Some(_)) => return,
        (false, None) if text.contains(['\'', '"', '\\']) => return,
        (false, None) => text.split_whitespace().collect(),
    };
    let mut line: Vec<String> = match inner.is_empty() {
        true => vec!["echo".to_string()],
        false => inner.iter().map(|w| super::quote(&w.text)).collect(),
    };
    line.extend(fed.iter().take(MAX_XARGS_WORDS).map(|t| super::quote(t)));
    let what = "the command `xargs` runs with its input's words";
    super::denies_in(cx, i, span, what, &line.join(" "));
}

/// `xargs -I{} sh -c 'rm -rf {}'`, `xargs -i rm -rf {}`: with a replace string, xargs pastes
/// each input line where the string stands, inside words too. The command is read with the
/// string left as written (a plain word), and a deny found there denies: the command asks
/// already, its words being run-time.
pub(super) fn xargs_replaced(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let replaces = words[1..]
        .iter()
        .map_while(|w| w.static_text().filter(|t| t.starts_with('-') && *t != "--"))
        .any(|t| t.starts_with("-I") || t == "-i" || t.starts_with("--replace"));
    if !replaces {
        return;
    }
    let Some(inner) = super::xargs_command(words).filter(|c| !c.is_empty()) else {
        return;
    };
    if !inner.iter().all(Word::is_static) {
        return;
    }
    let text: Vec<String> = inner.iter().map(|w| super::quote(&w.text)).collect();
    let what = "the command `xargs` runs with each input line pasted in";
    super::denies_in(cx, i, span, what, &text.join(" "));
}

#[cfg(test)]
mod tests {
    use super::{awk_printed, cron_command, decode_escapes, filtered, printf_output};

    #[test]
    fn printf_prints_what_bash_prints() {
        // Each checked against bash 5.2's builtin printf.
        for (format, args, want) in [
            ("%s", &["rm -rf v"][..], Some("rm -rf v")),
            ("rm -%s v", &["rf"], Some("rm -rf v")),
            ("rm\\x20-rf v", &[], Some("rm -rf v")),
            ("r\\155 -rf v", &[], Some("rm -rf v")),
            ("%s\\n", &["a", "b"], Some("a\nb\n")),
            ("%s %s|", &["a"], Some("a |")),
            ("%b", &["x\\ty"], Some("x\ty")),
            ("%c%c", &["rm", "mx"], Some("rm")),
            ("%d-%i", &["7", ""], Some("7-0")),
            ("100%%", &[], Some("100%")),
            ("a\\cb", &[], Some("a")),
            ("%d", &["x"], None),
            ("%5s", &["x"], None),
            ("%q", &["x"], None),
            ("%", &[], None),
        ] {
            assert_eq!(
                printf_output(format, args).as_deref(),
                want,
                "{format} {args:?}"
            );
        }
    }

    #[test]
    fn echo_e_decodes_its_escapes() {
        for (text, want) in [
            ("r\\x6d -rf v", "rm -rf v"),
            ("r\\0155 -rf v", "rm -rf v"),
            ("a\\nb", "a\nb"),
            ("a\\cb", "a"),
            ("a\\qb", "a\\qb"),
            ("a\\", "a\\"),
        ] {
            assert_eq!(decode_escapes(text), want, "{text}");
        }
    }

    #[test]
    fn filters_keep_the_lines_they_keep() {
        let input = "ls\nrm -rf v\necho x";
        for (program, args, want) in [
            ("head", &["-1"][..], Some("ls")),
            ("head", &["-n", "2"], Some("ls\nrm -rf v")),
            ("head", &["-n2"], Some("ls\nrm -rf v")),
            ("tail", &["-1"], Some("echo x")),
            ("tail", &["--lines=2"], Some("rm -rf v\necho x")),
            ("head", &[], Some(input)),
            ("tee", &["f", "-a"], Some(input)),
            ("grep", &["rm"], Some("rm -rf v")),
            ("grep", &["-v", "rm"], Some("ls\necho x")),
            ("grep", &["-i", "RM"], Some("rm -rf v")),
            ("sed", &["s/ls/xx/"], Some("xx\nrm -rf v\necho x")),
            ("sed", &["-e", "s/x/y/g"], Some("ls\nrm -rf v\necho y")),
            ("grep", &["r.*"], None),
            ("grep", &["-E", "rm"], None),
            ("head", &["-c", "3"], None),
            ("tail", &["-n", "+2"], None),
            ("sed", &["-n", "p"], None),
            ("sed", &["s/a/&/"], None),
            ("tee", &["-p", "f"], None),
        ] {
            assert_eq!(
                filtered(program, args, input).as_deref(),
                want,
                "{program} {args:?}"
            );
        }
    }

    #[test]
    fn crontab_lines_give_their_command() {
        for (line, want) in [
            ("* * * * * rm -rf v", Some("rm -rf v")),
            (
                "0 3 * * 1-5  /usr/bin/backup --all",
                Some("/usr/bin/backup --all"),
            ),
            ("@reboot rm -rf v", Some("rm -rf v")),
            ("# * * * * * rm -rf v", None),
            ("SHELL=/bin/bash", None),
            ("", None),
            ("* * *", None),
        ] {
            assert_eq!(cron_command(line), want, "{line}");
        }
    }

    proptest::proptest! {
        /// No text makes the printers panic.
        #[test]
        fn the_printers_take_any_text(f in "[ -~é]{0,30}", a in "[ -~é]{0,12}") {
            let _ = printf_output(&f, &[a.as_str(), "x"]);
            let _ = decode_escapes(&f);
            let _ = cron_command(&f);
            for p in ["head", "tail", "grep", "sed", "tee"] {
                let _ = filtered(p, &[f.as_str()], &a);
            }
        }
    }

    #[test]
    fn only_awk_programs_that_print_literals_have_a_known_output() {
        for (program, printed) in [
            ("BEGIN{print \"rm -rf v\"}", Some("rm -rf v")),
            ("BEGIN { print \"a\" \"b\"; print \"c\" }", Some("ab\nc")),
            ("BEGIN{print x}", None),
            ("{print \"x\"}", None),
            ("BEGIN{print \"a\\nb\"}", None),
            ("BEGIN{system(\"x\")}", None),
            ("BEGIN{}", None),
        ] {
            assert_eq!(awk_printed(program).as_deref(), printed, "{program}");
        }
    }
}

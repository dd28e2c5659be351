//! check/deny/feed: what a command reads on its input, where the line shows it — the output of
//! an `echo` or `printf` piped into it (also through `cat`), a heredoc, a here-string, a
//! process substitution or `/dev/stdin` given as its file — and the commands that run
//! it: a shell fed a script (`echo 'rm -rf x' | bash`), `redis-cli` fed commands, a database
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
            // The format and then every argument: what a `%s` would put where is not worked
            // out, but every word the output can hold is in the text.
            Some(decode_escapes(&args.join(" ")))
        }
        // `awk 'BEGIN{print "rm -rf x"}'`: a program that only prints literals.
        "awk" | "gawk" | "mawk" | "nawk" if args.len() == 1 && p.words.len() == 2 => {
            awk_printed(args[0])
        }
        // `cat` or `cat -` copies its input; a file operand or an option is not followed.
        "cat" if cats > 0 && p.words.len() == args.len() + 1 && args.iter().all(|a| *a == "-") => {
            let mut texts = Vec::new();
            if feeder(cx, j).is_some() {
                texts.extend(printed_text(cx, j - 1, cats - 1));
            }
            texts.extend(redirected_input(cx, j));
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
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
    substituted_text(cx, i, w)
}

/// The segment piped straight into segment `i` at the same level.
fn feeder<'s>(cx: &Ctx<'s>, i: usize) -> Option<&'s crate::segment::Segment> {
    let segments = &cx.script.segments;
    let p = segments.get(i.checked_sub(1)?)?;
    let same_level = segments.get(i).is_some_and(|s| s.nesting == p.nesting);
    (p.joiner == Some(Joiner::Pipe) && same_level).then_some(p)
}

/// `\n`, `\r`, `\t` and `\\` decoded, as `echo -e` and `printf` do; other escapes stay.
fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
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

/// Most lines of input read as `redis-cli` commands.
const MAX_REDIS_LINES: usize = 32;

/// `echo FLUSHALL | redis-cli`, `redis-cli <<< flushdb`: with no command among its arguments,
/// redis-cli runs each input line as one; each is checked as if it were given as arguments.
pub(super) fn redis_input(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let texts = input_texts(cx, i);
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
    use super::awk_printed;

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

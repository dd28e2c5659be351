//! check/awk: finds the awk program text in an `awk` command line (the first operand; `-f` is
//! not among awk's permitted options) and hands it to the program checker, which proves it
//! neither writes files, runs programs nor loads code. gawk also opens network connections for
//! file names under `/inet`, `/inet4` and `/inet6`, as an operand or through `getline <`: those
//! are refused here. The commands a program runs through `system("…")` or a pipe to or from a
//! string (`print | "sh"`, `"date" | getline`) are analysed as bash, so a denied one denies.

use super::awk_program::check_awk_program;
use super::{Arg, Ctx, script_operand};
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
    let Some((text, span)) = script_operand(cx, i, entry, rest, parsed, "program") else {
        return;
    };
    let reason = match check_awk_program(text) {
        Err(p) => {
            // What the program runs from its input and operands is read by `fed_commands`.
            for cmd in runs(text, &given_variables(rest), &Fed::NONE).program {
                cx.nested(i, span, "the command awk runs", &cmd);
            }
            Some(p.reason)
        }
        Ok(()) => network_files(text),
    };
    super::sensitive::awk_program(cx, i, span, text, &entry.name);
    if let Some(reason) = reason {
        cx.push_rule(
            Code::ForbiddenArgument,
            span,
            Some(i),
            format!("awk program: {reason}"),
            &entry.name,
        );
    }
    // Operands after the program are the files read; gawk connects for `/inet…` names.
    for a in parsed {
        if let Arg::Operand { text: file, word } = a
            && rest[*word].span != span
            && file.starts_with("/inet")
        {
            cx.push_rule(
                Code::ForbiddenArgument,
                rest[*word].span,
                Some(i),
                format!("gawk opens a network connection for the file name `{file}`"),
                &entry.name,
            );
        }
    }
}

/// Why an awk program could make gawk open a network connection: a string naming `/inet…`,
/// a `getline <` from anything but a string literal, or a change to `ARGV` / `ARGC` (the list
/// of files the main loop reads). `None` when it cannot.
fn network_files(program: &str) -> Option<String> {
    if program.contains("/inet") {
        return Some("`/inet…` names a gawk network connection".into());
    }
    if program.contains("ARGV") || program.contains("ARGC") {
        return Some("changing `ARGV` / `ARGC` can make awk read a gawk network file".into());
    }
    let mut rest = program;
    while let Some(at) = rest.find("getline") {
        rest = &rest[at + "getline".len()..];
        // The redirection, if any, comes before the end of the statement or expression.
        let end = rest.find([';', '\n', '}', ')']).unwrap_or(rest.len());
        if let Some(lt) = rest[..end].find('<')
            && !rest[lt + 1..].trim_start().starts_with('"')
        {
            return Some(
                "`getline <` from a computed file name could open a gawk network connection".into(),
            );
        }
    }
    None
}

/// awks that cmdguard does not allow but whose programs run commands all the same: the
/// commands are read so that a denied one denies (the command asks, as no entry matches).
pub(super) const OTHER_AWKS: &[&str] = &["mawk", "nawk", "original-awk", "bwk-awk", "onetrue-awk"];

/// `mawk 'BEGIN{system("rm -rf x")}'`: the commands an awk not in the allowlist runs are read
/// as `awk`'s are. The program is the first operand, unless `-f` gives a file.
pub(super) fn other_awk(cx: &mut Ctx<'_>, i: usize, words: &[Word]) {
    let Some(k) = program_operand(words) else {
        return;
    };
    let w = &words[k];
    for cmd in runs(&w.text, &given_variables(words), &Fed::NONE).program {
        cx.nested(i, w.span, "the command awk runs", &cmd);
    }
}

/// Most lines of input or operands read as commands an awk program runs.
const MAX_FED: usize = 32;

/// `awk '{system($0)}' <<< 'rm -rf v'`, `echo 'rm -rf v' | awk '{print | "sh"}'`, `awk
/// 'BEGIN{system(ARGV[1])}' 'rm -rf v'`: the commands any awk runs from the lines it reads (a
/// pipe, heredoc or here-string the line shows) or from its operands, found by the same
/// reading of the program as [`check_args`]'s; a denied one denies. Only denies come back.
pub(super) fn fed_commands(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    // gawk's `--source=TEXT` and a program file the line shows (`-f <(echo …)`): read here
    // whole, as the allowlist's awk check does not take them.
    let mut programs: Vec<String> = Vec::new();
    let mut k = 1;
    while let Some(w) = words.get(k) {
        let Some(t) = w.static_text() else {
            break;
        };
        if t == "--" || !t.starts_with('-') || t == "-" {
            break;
        }
        if let Some(p) = t.strip_prefix("--source=") {
            programs.push(p.to_string());
        } else if let Some(f) = t.strip_prefix("--file=") {
            let file = crate::segment::Word {
                text: f.to_string(),
                ..w.clone()
            };
            programs.extend(super::deny::operand_text(cx, i, &file));
        } else if matches!(t, "-f" | "--file") {
            programs.extend(
                words
                    .get(k + 1)
                    .and_then(|f| super::deny::operand_text(cx, i, f)),
            );
        }
        k += if matches!(t, "-v" | "-F" | "-W" | "-f" | "--file" | "--source" | "-e") {
            2
        } else {
            1
        };
    }
    let texts = super::deny::input_texts(cx, i);
    let input = (!texts.is_empty()).then(|| texts.join("\n"));
    let given = given_variables(words);
    if let Some(k) = program_operand(words) {
        let operands: Vec<Option<&str>> = words[k + 1..].iter().map(Word::static_text).collect();
        let fed = Fed {
            input: input.as_deref(),
            operands: &operands,
        };
        for cmd in runs(&words[k].text, &given, &fed).fed {
            super::deny::denies_in(cx, i, span, "the command awk runs", &cmd);
        }
    }
    let operands: Vec<Option<&str>> = words
        .get(k..)
        .unwrap_or(&[])
        .iter()
        .map(Word::static_text)
        .collect();
    let fed = Fed {
        input: input.as_deref(),
        operands: &operands,
    };
    for program in programs.iter().take(MAX_FED) {
        let found = runs(program, &given, &fed);
        for cmd in found.program.iter().chain(&found.fed) {
            super::deny::denies_in(cx, i, span, "the command awk runs", cmd);
        }
    }
}

/// Where the program is among an awk command's words: the first operand after the options
/// (`-v`, `-F`, `-W` take the next word); `None` when `-f` gives it as a file or it is not
/// static.
fn program_operand(words: &[Word]) -> Option<usize> {
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if t == "-f" || t.starts_with("--file") {
            return None;
        }
        k += if matches!(t, "-v" | "-F" | "-W") {
            2
        } else {
            1
        };
    }
    words.get(k).filter(|w| w.is_static()).map(|_| k)
}

/// The variables a command line gives the program a value for: `-v NAME=VALUE`,
/// `-vNAME=VALUE`.
fn given_variables(words: &[Word]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let assignment = match w.static_text() {
            Some("-v") => words.get(k + 1).and_then(|n| n.static_text()),
            Some(t) => t.strip_prefix("-v").filter(|a| !a.is_empty()),
            None => None,
        };
        if let Some((name, value)) = assignment.and_then(|a| a.split_once('='))
            && !value.contains('\\')
        {
            out.push((name.to_string(), value.to_string()));
        }
    }
    out
}

/// A token of an awk program, as far as [`commands`] needs: string literals (escapes
/// decoded), names, and single punctuation characters.
#[derive(Debug, PartialEq)]
enum Tok {
    Str(String),
    Name(String),
    Punct(char),
}

fn tokens(program: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = program.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut s = String::new();
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some('r') => s.push('\r'),
                            Some('a') => s.push('\u{7}'),
                            Some('b') => s.push('\u{8}'),
                            Some('f') => s.push('\u{c}'),
                            Some('v') => s.push('\u{b}'),
                            // `\155` (octal, up to three digits) and gawk's `\x6d` (up to two
                            // hex digits): awk decodes them in string literals.
                            Some(o @ '0'..='7') => {
                                let mut n = o.to_digit(8).unwrap_or(0);
                                for _ in 0..2 {
                                    match chars.peek().and_then(|c| c.to_digit(8)) {
                                        Some(d) => {
                                            n = n * 8 + d;
                                            chars.next();
                                        }
                                        None => break,
                                    }
                                }
                                s.extend(char::from_u32(n));
                            }
                            Some('x') if chars.peek().is_some_and(char::is_ascii_hexdigit) => {
                                let mut n = 0;
                                for _ in 0..2 {
                                    match chars.peek().and_then(|c| c.to_digit(16)) {
                                        Some(d) => {
                                            n = n * 16 + d;
                                            chars.next();
                                        }
                                        None => break,
                                    }
                                }
                                s.extend(char::from_u32(n));
                            }
                            Some(e) => s.push(e),
                            None => {}
                        },
                        d => s.push(d),
                    }
                }
                out.push(Tok::Str(s));
            }
            '#' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                out.push(Tok::Punct('\n'));
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let mut name = String::from(c);
                while let Some(&d) = chars.peek() {
                    if !(d.is_ascii_alphanumeric() || d == '_') {
                        break;
                    }
                    name.push(d);
                    chars.next();
                }
                out.push(Tok::Name(name));
            }
            c if c.is_whitespace() && c != '\n' => {}
            c => out.push(Tok::Punct(c)),
        }
    }
    out
}

/// Functions that write the variables they are given (`sub(/x/, "y", v)`, `split(s, v)`).
const WRITERS: &[&str] = &["sub", "gsub", "split", "getline"];

/// Variables that hold one literal for the whole program: assigned exactly once in it, to
/// string literals only (`c = "rm -rf " "x"`), or given by `-v` and never assigned; never
/// written any other way (`c++`, `c += …`, `getline c`, `sub(…, c)`).
fn literal_variables(toks: &[Tok], given: &[(String, String)]) -> Vec<(String, String)> {
    let mut found: Vec<(String, Option<String>)> = given
        .iter()
        .map(|(n, v)| (n.clone(), Some(v.clone())))
        .collect();
    let mut assigned: Vec<String> = Vec::new();
    // Names inside the argument list of a writing function are written.
    let mut written: Vec<String> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if let Tok::Name(f) = t
            && WRITERS.contains(&f.as_str())
        {
            let mut depth = 0usize;
            for u in &toks[k + 1..] {
                match u {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') if depth <= 1 => break,
                    Tok::Punct(')') => depth -= 1,
                    Tok::Punct(';' | '\n' | '}') if depth == 0 => break,
                    Tok::Name(n) => written.push(n.clone()),
                    _ => {}
                }
            }
        }
        let Tok::Name(n) = t else {
            continue;
        };
        let next = toks.get(k + 1);
        let after = toks.get(k + 2);
        let plain = next == Some(&Tok::Punct('=')) && after != Some(&Tok::Punct('='));
        let compound = matches!(next, Some(Tok::Punct('+' | '-' | '*' | '/' | '%' | '^')))
            && (after == Some(&Tok::Punct('='))
                || matches!(
                    (next, after),
                    (Some(Tok::Punct('+')), Some(Tok::Punct('+')))
                        | (Some(Tok::Punct('-')), Some(Tok::Punct('-')))
                ));
        if compound {
            written.push(n.clone());
        }
        if !plain {
            continue;
        }
        // `c = "a" "b"` up to the end of the statement: a literal; anything else is not.
        let mut value = String::new();
        let mut end = k + 2;
        while let Some(Tok::Str(s)) = toks.get(end) {
            value.push_str(s);
            end += 1;
        }
        let ends = matches!(toks.get(end), None | Some(Tok::Punct(';' | '\n' | '}')));
        let literal = (end > k + 2 && ends).then_some(value);
        if assigned.contains(n) || given.iter().any(|(g, _)| g == n) {
            written.push(n.clone());
        } else {
            assigned.push(n.clone());
            found.push((n.clone(), literal));
        }
    }
    found
        .into_iter()
        .filter(|(n, _)| !written.contains(n))
        .filter_map(|(n, v)| Some((n, v?)))
        .collect()
}

/// Shells whose input is a script: what awk prints into them is read as one.
const SHELLS: &[&str] = &["sh", "bash", "dash", "ksh", "zsh", "mksh"];

/// Most commands read from one awk program.
const MAX_COMMANDS: usize = 8;

/// What an awk program is given besides its text: the lines it reads, where the line shows
/// them, and its operands (`ARGV[1]` on; `None` for a run-time word).
struct Fed<'a> {
    input: Option<&'a str>,
    operands: &'a [Option<&'a str>],
}

impl Fed<'_> {
    /// Nothing known of the input or operands.
    const NONE: Fed<'static> = Fed {
        input: None,
        operands: &[],
    };
}

/// The commands an awk program runs: those its text spells out, and those it takes from what
/// it is [`Fed`].
#[derive(Debug, Default, PartialEq)]
struct Runs {
    program: Vec<String>,
    fed: Vec<String>,
}

/// The commands an awk program runs, where they are string literals (adjacent literals are
/// concatenated, as awk does): the argument of `system(…)`, the target of `print … | "CMD"`,
/// the source of `"CMD" | getline` (also through a variable holding one literal), and — when
/// the target is a shell (`print "rm x" | "sh"`) — the literals printed into it. From what it
/// is fed: the input lines, when it prints what it reads into a shell (`print | "sh"`, `print
/// $0 | "sh"`) or gives each to `system($0)`, and operand N given to `system(ARGV[N])`.
///
/// Fail closed: where the program runs a command it builds at run time (`system(x)` in a
/// function, `cmd | getline` from a computed value, gawk's indirect call `@f(…)`), every run of
/// literals in the program is read as a command, so a denied one denies (the program asks
/// anyway).
fn runs(program: &str, given: &[(String, String)], fed: &Fed<'_>) -> Runs {
    let input = fed.input;
    let mut lines: Vec<String> = Vec::new();
    let toks = tokens(program);
    let variables = literal_variables(&toks, given);
    let value = |k: usize| match toks.get(k)? {
        Tok::Str(s) => Some(s.as_str()),
        Tok::Name(n) => variables
            .iter()
            .find(|(v, _)| v == n)
            .map(|(_, value)| value.as_str()),
        Tok::Punct(_) => None,
    };
    // The literals (and variables holding one) starting at `k`, concatenated, and where they
    // end.
    let literal = |k: usize| {
        let mut text = String::new();
        let mut end = k;
        while let Some(v) = value(end) {
            text.push_str(v);
            end += 1;
        }
        (end > k).then_some((text, end))
    };
    // Whether the expression from `k` is literals only, up to `)`, `;`, `}`, a newline or the
    // end.
    let whole = |k: usize| {
        literal(k).is_some_and(|(_, end)| {
            matches!(
                toks.get(end),
                None | Some(Tok::Punct(')' | ';' | '}' | '\n'))
            )
        })
    };
    let mut out = Vec::new();
    let mut dynamic = false;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Name(n) if n == "system" && toks.get(k + 1) == Some(&Tok::Punct('(')) => {
                dynamic |= !whole(k + 2);
                out.extend(literal(k + 2).map(|(cmd, _)| cmd));
                let arg = toks.get(k + 2..).unwrap_or(&[]);
                match arg {
                    // `system($0)`: each line read runs.
                    [Tok::Punct('$'), Tok::Name(zero), Tok::Punct(')'), ..] if zero == "0" => {
                        lines.extend(input.iter().flat_map(|t| t.lines()).map(str::to_string));
                    }
                    // `system(ARGV[N])`: the N-th word after the program.
                    [
                        Tok::Name(argv),
                        Tok::Punct('['),
                        Tok::Name(n),
                        Tok::Punct(']'),
                        Tok::Punct(')'),
                        ..,
                    ] if argv == "ARGV" => {
                        let operand = n
                            .parse::<usize>()
                            .ok()
                            .and_then(|n| n.checked_sub(1))
                            .and_then(|n| fed.operands.get(n).copied().flatten());
                        lines.extend(operand.map(str::to_string));
                    }
                    _ => {}
                }
            }
            // gawk's indirect call: `@name(…)` calls the function whose name `name` holds.
            Tok::Punct('@') if matches!(toks.get(k + 1), Some(Tok::Name(_))) => dynamic = true,
            Tok::Punct('|') => {
                let from = k + 1 + usize::from(toks.get(k + 1) == Some(&Tok::Punct('&')));
                if matches!(toks.get(from), Some(Tok::Name(n)) if n == "getline") {
                    // `"CMD" | getline`, `cmd | getline`: the literals just before the pipe.
                    let start = (0..k).rev().take_while(|&j| value(j).is_some()).last();
                    match start.and_then(literal) {
                        Some((cmd, _)) => out.push(cmd),
                        None => dynamic = true,
                    }
                } else if let Some((cmd, _)) = literal(from) {
                    let shell = cmd
                        .split_whitespace()
                        .next()
                        .is_some_and(|p| SHELLS.contains(&super::deny::program_name(p).as_ref()));
                    if shell {
                        // What is printed into the shell is its script.
                        let statement: Vec<usize> = (0..k)
                            .rev()
                            .take_while(|&j| !matches!(toks[j], Tok::Punct(';' | '{' | '}' | '\n')))
                            .collect();
                        let mut printed: Vec<String> = statement
                            .iter()
                            .filter_map(|&j| match &toks[j] {
                                Tok::Str(s) => Some(s.clone()),
                                Tok::Name(_) | Tok::Punct(_) => None,
                            })
                            .collect();
                        printed.reverse();
                        // `print | "sh"`, `print $0 | "sh"`: the line read is printed.
                        let reads_input = statement.iter().any(|&j| {
                            matches!(&toks[j], Tok::Punct('$'))
                                || matches!(&toks[j], Tok::Name(n) if n != "print" && n != "printf")
                        }) || printed.is_empty();
                        if reads_input && let Some(text) = input {
                            lines.extend(text.lines().map(str::to_string));
                        }
                        out.extend(printed);
                    }
                    out.push(cmd);
                } else {
                    dynamic = true;
                }
            }
            _ => {}
        }
        if out.len() >= MAX_COMMANDS {
            break;
        }
    }
    if dynamic {
        let mut k = 0;
        while k < toks.len() && out.len() < MAX_COMMANDS {
            match literal(k).filter(|_| matches!(toks[k], Tok::Str(_))) {
                Some((text, end)) => {
                    if !out.contains(&text) {
                        out.push(text);
                    }
                    k = end;
                }
                None => k += 1,
            }
        }
    }
    out.truncate(MAX_COMMANDS);
    lines.truncate(MAX_FED);
    Runs {
        program: out,
        fed: lines,
    }
}

#[cfg(test)]
mod tests {
    use super::{Fed, network_files, runs};

    #[test]
    fn commands_given_to_system_and_pipes_are_read() {
        let rows: &[(&str, &[&str])] = &[
            ("BEGIN{system(\"rm -rf /home/u\")}", &["rm -rf /home/u"]),
            (
                "{ system ( \"rm -rf \" \"/home/u\" ) }",
                &["rm -rf /home/u"],
            ),
            ("{print | \"sort -r\"}", &["sort -r"]),
            ("BEGIN{print \"rm -rf x\" | \"sh\"}", &["rm -rf x", "sh"]),
            ("BEGIN{\"date\" | getline d; print d}", &["date"]),
            ("BEGIN{\"id\" |& getline}", &["id"]),
            (
                "BEGIN{s=\"x\\\"y\"; system(\"echo \\\"a\\\"\")}",
                &["echo \"a\""],
            ),
            ("BEGIN{system(cmd)}", &[]),
            ("BEGIN{print \"system(\\\"rm -rf /\\\")\"}", &[]),
            ("{print $1 | cmd}", &[]),
            ("# system(\"rm -rf /\")\n{print}", &[]),
            ("BEGIN{c=\"rm -rf s3\"; system(c)}", &["rm -rf s3"]),
            ("BEGIN{c=\"rm -rf \" \"s3\"\nsystem(c)}", &["rm -rf s3"]),
            // A command built at run time: every run of literals is read (fail closed).
            (
                "BEGIN{c=\"rm -rf s3\"; c=\"ls\"; system(c)}",
                &["rm -rf s3", "ls"],
            ),
            (
                "BEGIN{c=\"rm -rf s3\"; c=c \"x\"; system(c)}",
                &["rm -rf s3", "x"],
            ),
            ("BEGIN{c=\"rm \"; c+=1; system(c)}", &["rm "]),
            (
                "BEGIN{c=\"rm -rf s3\"; sub(/rm/, \"ls\", c); system(c)}",
                &["rm -rf s3", "ls"],
            ),
            ("{c=\"rm -rf s3\"; getline c; system(c)}", &["rm -rf s3"]),
            ("BEGIN{c==\"x\"; system(c)}", &["x"]),
            // Red team s6: a variable piped to getline, a function's parameter, gawk's
            // indirect call.
            ("BEGIN { cmd = \"rm -rf v\"; cmd | getline }", &["rm -rf v"]),
            (
                "function f(x){system(x)} BEGIN{f(\"rm -rf v\")}",
                &["rm -rf v"],
            ),
            (
                "BEGIN{s=\"system\"; @s(\"rm -rf v\")}",
                &["system", "rm -rf v"],
            ),
            ("BEGIN{x = \"rm -rf v\"; print x}", &[]),
            ("BEGIN{\"date\" | getline; print \"rm -rf v\"}", &["date"]),
        ];
        for (program, want) in rows {
            assert_eq!(runs(program, &[], &Fed::NONE).program, *want, "{program}");
        }
        // What the program runs from what it reads and its operands: the input lines, when
        // it prints what it reads into a shell or gives each to `system($0)`; `ARGV[N]`.
        let operands = [Some("rm -rf w"), None];
        let fed = Fed {
            input: Some("rm -rf v\n"),
            operands: &operands,
        };
        let piped: &[(&str, &[&str], &[&str])] = &[
            ("{print | \"sh\"}", &["sh"], &["rm -rf v"]),
            ("{print $0 | \"sh\"}", &["sh"], &["rm -rf v"]),
            ("{print \"ls\" | \"sh\"}", &["ls", "sh"], &[]),
            ("{print | \"sort\"}", &["sort"], &[]),
            ("{system($0)}", &[], &["rm -rf v"]),
            ("{ system ( $0 ) }", &[], &["rm -rf v"]),
            ("BEGIN{system(ARGV[1])}", &[], &["rm -rf w"]),
            ("BEGIN{system(ARGV[2])}", &[], &[]),
            ("BEGIN{system(ARGV[3])}", &[], &[]),
            // Mentions: text that only spells the call.
            ("BEGIN{print \"system($0)\"}", &[], &[]),
            ("{print $0}", &[], &[]),
        ];
        for (program, want_program, want_fed) in piped {
            let got = runs(program, &[], &fed);
            assert_eq!(got.program, *want_program, "{program}");
            assert_eq!(got.fed, *want_fed, "{program}");
        }
    }

    #[test]
    fn network_files_are_found_in_every_spelling() {
        for (program, refused) in [
            ("{print}", false),
            (
                "BEGIN{while ((getline line < \"f\") > 0) n++; print n}",
                false,
            ),
            ("BEGIN{getline < \"/inet/tcp/0/x/80\"}", true),
            ("BEGIN{f=\"/in\" \"et/tcp/0/x/80\"; getline < f}", true),
            ("BEGIN{getline x <f}", true),
            (
                "BEGIN{ARGV[1]=\"/in\" \"et/tcp/0/x/80\"; ARGC=2} {print}",
                true,
            ),
            ("{ if (getline x) print x }", false),
        ] {
            assert_eq!(network_files(program).is_some(), refused, "{program}");
        }
    }
}

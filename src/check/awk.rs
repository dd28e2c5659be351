//! check/awk: finds the awk program text in an `awk` command line (the first operand; `-f` is
//! not among awk's permitted options) and hands it to the program checker, which proves it
//! neither writes files, runs programs nor loads code. gawk also opens network connections for
//! file names under `/inet`, `/inet4` and `/inet6`, as an operand or through `getline <`: those
//! are refused here. The commands a program runs through `system("…")` or a pipe to or from a
//! string (`print | "sh"`, `"date" | getline`) are analysed as bash, so a denied one denies.

use super::awk_program::check_awk_program;
use super::{Arg, Ctx, script_operand};
use crate::allowlist::Entry;
use crate::finding::Code;
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
            for cmd in commands(text) {
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

/// Shells whose input is a script: what awk prints into them is read as one.
const SHELLS: &[&str] = &["sh", "bash", "dash", "ksh", "zsh", "mksh"];

/// Most commands read from one awk program.
const MAX_COMMANDS: usize = 8;

/// The commands an awk program runs, where they are string literals (adjacent literals are
/// concatenated, as awk does): the argument of `system(…)`, the target of `print … | "CMD"`,
/// the source of `"CMD" | getline`, and — when the target is a shell (`print "rm x" | "sh"`) —
/// the literals printed into it.
fn commands(program: &str) -> Vec<String> {
    let toks = tokens(program);
    // The literals starting at `k`, concatenated, and where they end.
    let literal = |k: usize| {
        let mut text = String::new();
        let mut end = k;
        while let Some(Tok::Str(s)) = toks.get(end) {
            text.push_str(s);
            end += 1;
        }
        (end > k).then_some((text, end))
    };
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Name(n) if n == "system" && toks.get(k + 1) == Some(&Tok::Punct('(')) => {
                out.extend(literal(k + 2).map(|(cmd, _)| cmd));
            }
            Tok::Punct('|') => {
                let from = k + 1 + usize::from(toks.get(k + 1) == Some(&Tok::Punct('&')));
                if matches!(toks.get(from), Some(Tok::Name(n)) if n == "getline") {
                    // `"CMD" | getline`: the literals just before the pipe.
                    let start = (0..k)
                        .rev()
                        .take_while(|&j| matches!(toks[j], Tok::Str(_)))
                        .last();
                    out.extend(start.and_then(literal).map(|(cmd, _)| cmd));
                } else if let Some((cmd, _)) = literal(from) {
                    let shell = cmd
                        .split_whitespace()
                        .next()
                        .is_some_and(|p| SHELLS.contains(&super::deny::program_name(p).as_ref()));
                    if shell {
                        // What is printed into the shell is its script.
                        let statement = (0..k).rev().take_while(|&j| {
                            !matches!(toks[j], Tok::Punct(';' | '{' | '}' | '\n'))
                        });
                        let mut printed: Vec<String> = statement
                            .filter_map(|j| match &toks[j] {
                                Tok::Str(s) => Some(s.clone()),
                                Tok::Name(_) | Tok::Punct(_) => None,
                            })
                            .collect();
                        printed.reverse();
                        out.extend(printed);
                    }
                    out.push(cmd);
                }
            }
            _ => {}
        }
        if out.len() >= MAX_COMMANDS {
            break;
        }
    }
    out.truncate(MAX_COMMANDS);
    out
}

#[cfg(test)]
mod tests {
    use super::{commands, network_files};

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
        ];
        for (program, want) in rows {
            assert_eq!(commands(program), *want, "{program}");
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

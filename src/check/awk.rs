//! check/awk: finds the awk program text in an `awk` command line (the first operand; `-f` is
//! not among awk's permitted options) and hands it to the program checker, which proves it
//! neither writes files, runs programs nor loads code. gawk also opens network connections for
//! file names under `/inet`, `/inet4` and `/inet6`, as an operand or through `getline <`: those
//! are refused here.

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
        Err(p) => Some(p.reason),
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

#[cfg(test)]
mod tests {
    use super::network_files;

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

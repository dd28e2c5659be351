//! check/awk: finds the awk program text in an `awk` command line (the first operand; `-f` is
//! forbidden by awk's allowlist entry) and hands it to the program checker, which proves it
//! neither writes files, runs programs nor loads code.

use super::awk_program::check_awk_program;
use super::{Arg, Ctx};
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
    match parsed.iter().find(|a| !matches!(a, Arg::Opt { .. })) {
        Some(Arg::Operand { text, word }) => {
            if let Err(p) = check_awk_program(text) {
                cx.push_rule(
                    Code::ForbiddenArgument,
                    rest[*word].span,
                    Some(i),
                    format!("awk program: {}", p.reason),
                    &entry.name,
                );
            }
        }
        Some(_) => {}
        None => cx.push_rule(
            Code::ForbiddenArgument,
            rest.first().map(|w| w.span).unwrap_or_default(),
            Some(i),
            "`awk` without a program".into(),
            &entry.name,
        ),
    }
}

//! check/awk: finds the awk program text in an `awk` command line (the first operand; `-f` is
//! forbidden by awk's allowlist entry) and hands it to the program checker, which proves it
//! neither writes files, runs programs nor loads code.

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
    if let Some((text, span)) = script_operand(cx, i, entry, rest, parsed, "program")
        && let Err(p) = check_awk_program(text)
    {
        cx.push_rule(
            Code::ForbiddenArgument,
            span,
            Some(i),
            format!("awk program: {}", p.reason),
            &entry.name,
        );
    }
}

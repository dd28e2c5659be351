//! check/sed: finds the sed scripts in a `sed` command line (`-e`, `--expression`, or the first
//! operand) and hands each to the script parser, which proves it neither writes nor runs.
//! `-i`, `-f` and friends are forbidden by sed's allowlist entry, not here.

use super::sed_script::{SedDialect, check_sed_script};
use super::{Arg, Ctx, names, script_operand};
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
    let mut dialect = SedDialect::default();
    let mut scripts: Vec<(&str, Span)> = Vec::new();
    let mut has_expression = false;
    for a in parsed {
        if let Arg::Opt { name, value, word } = a {
            if names(name, "--posix") {
                dialect.posix = true;
            }
            if names(name, "--sandbox") {
                dialect.sandbox = true;
            }
            if name == "-e" || names(name, "--expression") {
                has_expression = true;
                if let Some(v) = value {
                    scripts.push((v, rest[*word].span));
                }
            }
        }
    }
    if !has_expression {
        scripts.extend(script_operand(cx, i, entry, rest, parsed, "script"));
    }
    for (script, span) in scripts {
        super::sensitive::sed_script(cx, i, span, script);
        if let Err(p) = check_sed_script(script, dialect) {
            cx.push_rule(
                Code::ForbiddenArgument,
                span,
                Some(i),
                format!("sed script: {}", p.reason),
                &entry.name,
            );
            super::deny::sed_exec(cx, i, span, script, dialect);
        }
    }
}

//! check/deny/multicall: programs that run another program's code under their own name — the
//! multi-call binaries (`busybox rm -rf x`, `toybox`, `coreutils --coreutils-prog=rm`), `fd`'s
//! `-x`/`-X` (a `find -exec` of its own) — and `rsync --delete`, which empties what its
//! destination holds beyond the source: onto `/` or a home it is `rm` of them. The command they
//! run goes back through the checks, so a denied one denies. It never allows anything: none of
//! these programs is allowlisted.

use super::{program_name, rule_matches, static_word};
use crate::check::{Ctx, Origin};
use crate::finding::{Code, Span};
use crate::segment::Word;

/// `busybox APPLET …`, `toybox APPLET …`, `coreutils --coreutils-prog=APPLET …`: the applet's
/// command is checked like any other.
pub(super) fn applet(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str, words: &[Word]) {
    let Some(first) = words.get(1).and_then(|w| w.static_text()) else {
        return;
    };
    match program {
        "busybox" | "toybox" if !first.starts_with('-') => {
            cx.command(i, span, &words[1..], Origin::Tail);
        }
        "coreutils" => {
            let Some(applet) = first.strip_prefix("--coreutils-prog=") else {
                return;
            };
            let mut inner = vec![static_word(applet, words[1].span)];
            inner.extend(words[2..].iter().cloned());
            cx.command(i, span, &inner, Origin::Tail);
        }
        _ => {}
    }
}

/// `fd`'s options whose value is the next word (before `-x`, they are skipped as values).
const FD_EXEC: &[&str] = &["-x", "--exec", "-X", "--exec-batch"];

/// `fd PATTERN -x CMD…`, `fd -X CMD…`: CMD runs for the matches (as `find -exec` does); its
/// words run to a `;` or the end, and a path is added unless `{}` places it.
pub(super) fn fd_exec(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(at) = words
        .iter()
        .position(|w| w.static_text().is_some_and(|t| FD_EXEC.contains(&t)))
    else {
        return;
    };
    let start = at + 1;
    let end = (start..words.len())
        .find(|&k| words[k].static_text() == Some(";"))
        .unwrap_or(words.len());
    if end <= start {
        return;
    }
    let mut inner = words[start..end].to_vec();
    if !inner.iter().any(|w| w.text.contains("{}")) {
        inner.push(static_word("{}", span));
    }
    cx.command(i, span, &inner, Origin::Tail);
}

/// rsync's options that delete at the destination what the source does not hold.
const RSYNC_DELETES: &[&str] = &[
    "--del",
    "--delete",
    "--delete-before",
    "--delete-during",
    "--delete-delay",
    "--delete-after",
    "--delete-excluded",
];

/// The rule an `rsync --delete` destination is judged by: `rm` of the root or a home.
const ROOT_RULE: &str = "core.filesystem/rm-root";

/// `rsync -a --delete empty/ ~/`: with a delete option, the destination (the last operand) is
/// judged as `rm DEST` by the root-and-home rule; a remote destination (`host:/`) is not.
pub(super) fn rsync(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let deletes = words[1..].iter().any(|w| {
        w.static_text()
            .is_some_and(|t| RSYNC_DELETES.contains(&t.split_once('=').map_or(t, |(o, _)| o)))
    });
    if !deletes {
        return;
    }
    let Some(dest) = words[1..]
        .iter()
        .rev()
        .find(|w| !w.text.starts_with('-'))
        .filter(|w| !w.text.contains(':'))
    else {
        return;
    };
    let list = cx.list;
    let Some(rule) = list.deny.iter().find(|r| r.id == ROOT_RULE) else {
        return;
    };
    let argv = [static_word("rm", span), dest.clone()];
    if rule_matches(list, rule, &argv) {
        let message = format!(
            "`{}` with a delete option empties `{}` of everything the source lacks: {} (rule `{}`)",
            program_name(&words[0].text),
            dest.text,
            rule.reason,
            rule.id
        );
        cx.push_rule(Code::Denied, span, Some(i), message, &rule.id);
    }
}

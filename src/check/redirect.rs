//! check/redirect: judges redirections. Only explicit safe forms pass: output to `/dev/null`
//! or appended to the command's own `/dev/stdout` / `/dev/stderr`,
//! duplication among descriptors 0–2, input from `/dev/null`, input from an ordinary file inside
//! the working directory that `[sensitive]` does not list, heredocs and here-strings (whose
//! substitutions are segments of their own). Everything else is a finding naming the target.

use super::Ctx;
use crate::finding::Code;
use crate::segment::{Redirect, RedirectOp};

const DEV_NULL: &str = "/dev/null";

/// Paths that name the command's own standard output and error: writing there is what the
/// command does anyway (bash opens them as duplicates of descriptors 1 and 2).
const STD_STREAMS: &[&str] = &["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"];

pub(super) fn check(cx: &mut Ctx<'_>, r: &Redirect, seg: Option<usize>) {
    super::deny::redirect(cx, r, seg);
    let target = r.target.as_ref();
    let static_target = target.and_then(|t| t.static_text());
    let shown = target.map(|t| t.text.as_str()).unwrap_or("");
    let net =
        static_target.is_some_and(|t| t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/"));
    match r.op {
        RedirectOp::Write
        | RedirectOp::Append
        | RedirectOp::Clobber
        | RedirectOp::WriteBoth
        | RedirectOp::AppendBoth => {
            if static_target == Some(DEV_NULL) {
                // `>/dev/null`, `1>/dev/null`, `2>/dev/null` are the canonical forms.
                let canonical =
                    r.op == RedirectOp::Write && matches!(r.fd, None | Some(1) | Some(2));
                if !canonical {
                    cx.push(
                        Code::UncommonRedirect,
                        r.span,
                        seg,
                        format!(
                            "redirection `{}` discards output in an uncommon form",
                            snippet(cx, r)
                        ),
                    );
                }
            } else if r.op == RedirectOp::Append
                && static_target.is_some_and(|t| STD_STREAMS.contains(&t))
            {
                // `>>/dev/stderr`: output stays on the streams the caller gave. Only appending:
                // Linux reopens the file behind the stream, and `>` would truncate it when the
                // caller's stderr is a log file (`>&2` is the form that never reopens).
            } else if net {
                cx.push(
                    Code::Redirect,
                    r.span,
                    seg,
                    format!("redirection to `{shown}` opens a network connection"),
                );
            } else {
                cx.push(
                    Code::Redirect,
                    r.span,
                    seg,
                    format!("redirection writes to `{shown}`"),
                );
            }
        }
        RedirectOp::Read => {
            if net {
                cx.push(
                    Code::Redirect,
                    r.span,
                    seg,
                    format!("redirection from `{shown}` opens a network connection"),
                );
            } else if static_target == Some(DEV_NULL) {
                cx.push(
                    Code::UncommonRedirect,
                    r.span,
                    seg,
                    "input from `/dev/null`".into(),
                );
            } else if static_target.is_some() {
                // A sensitive path asks; an ordinary file in the working directory is read
                // like an operand of the program would be.
                if super::sensitive::input(cx, r, seg) {
                    return;
                }
                cx.push(
                    Code::InputRedirect,
                    r.span,
                    seg,
                    format!(
                        "`<` reads `{shown}`, a path outside the working directory that no argument names"
                    ),
                );
            } else {
                cx.push(
                    Code::Redirect,
                    r.span,
                    seg,
                    format!("input from `{shown}`, known only at run time"),
                );
            }
        }
        RedirectOp::ReadWrite => {
            cx.push(
                Code::Redirect,
                r.span,
                seg,
                format!("`<>` opens `{shown}` for writing"),
            );
        }
        RedirectOp::DupWrite | RedirectOp::DupRead => {
            let default_fd = if r.op == RedirectOp::DupWrite { 1 } else { 0 };
            let fd = r.fd.unwrap_or(default_fd);
            match static_target {
                Some(t) if t.len() == 1 && matches!(t, "0" | "1" | "2") && fd <= 2 => {
                    let canonical = fd == 2 && t == "1" && r.op == RedirectOp::DupWrite;
                    if !canonical {
                        cx.push(
                            Code::UncommonRedirect,
                            r.span,
                            seg,
                            format!("descriptor duplication `{}`", snippet(cx, r)),
                        );
                    }
                }
                Some("-") if fd <= 2 => cx.push(
                    Code::UncommonRedirect,
                    r.span,
                    seg,
                    format!("closing descriptor {fd}"),
                ),
                Some(DEV_NULL) if r.op == RedirectOp::DupWrite && r.fd.is_none() => {
                    // `>&/dev/null` is `&>/dev/null`.
                    cx.push(
                        Code::UncommonRedirect,
                        r.span,
                        seg,
                        "`>&/dev/null` discards output".into(),
                    );
                }
                _ => cx.push(
                    Code::Redirect,
                    r.span,
                    seg,
                    format!("redirection `{}` opens or writes `{shown}`", snippet(cx, r)),
                ),
            }
        }
        // The body's substitutions are segments of their own; the body itself is only stdin.
        RedirectOp::Heredoc | RedirectOp::HeredocStripTabs | RedirectOp::Herestring => {}
    }
}

fn snippet(cx: &Ctx<'_>, r: &Redirect) -> String {
    cx.src
        .get(r.span.start..r.span.end)
        .unwrap_or("")
        .chars()
        .take(60)
        .collect()
}

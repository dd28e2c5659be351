//! check/interp/editor: the shell escapes of line editors the command line drives — `ed`'s
//! and `ex`'s `!CMD` (and `r !CMD`, `w !CMD`, `e !CMD`) in a script fed on stdin, and vim's
//! `-c '!CMD'` / `+'!CMD'` / `--cmd '!CMD'` (stdin too in ex mode, `-e`/`-es`). The editor runs
//! CMD with the shell, so it goes back through the analyser; only its denies come out. It
//! never allows anything: an editor is not allowlisted, so the command asks already.

use super::super::Ctx;
use crate::segment::{RedirectOp, Word};

/// Reads the editor commands of segment `i` when its program is a line editor; `true` when it
/// was one.
pub(crate) fn check(cx: &mut Ctx<'_>, i: usize, program: &str, words: &[Word]) -> bool {
    let name = crate::check::deny::basename(program);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let (ex_mode, vim) = match name {
        "ed" | "red" => (true, false),
        "ex" | "exim" => (true, true),
        "vim" | "vi" | "nvim" | "vim.basic" | "vim.tiny" => (false, true),
        _ => return false,
    };
    let mut commands: Vec<(String, crate::finding::Span)> = Vec::new();
    let mut ex_mode = ex_mode;
    let mut stdin_is_text = false;
    let mut k = 1;
    while let Some(w) = words.get(k) {
        let Some(t) = w.static_text() else {
            k += 1;
            continue;
        };
        if vim {
            match t {
                "-c" | "--cmd" => {
                    if let Some(next) = words.get(k + 1)
                        && let Some(c) = next.static_text()
                    {
                        commands.push((c.to_string(), next.span));
                    }
                    k += 2;
                    continue;
                }
                "-" => stdin_is_text = true,
                _ if t.starts_with('+') && t.len() > 1 => {
                    commands.push((t[1..].to_string(), w.span))
                }
                // `-e`, `-E`, `-es`, `-Es`: ex mode, reading commands from stdin.
                _ if t.starts_with('-') && !t.starts_with("--") && t[1..].contains(['e', 'E']) => {
                    ex_mode = true;
                }
                _ => {}
            }
        }
        k += 1;
    }
    if ex_mode
        && !stdin_is_text
        && let Some((text, at)) = stdin_text(cx, i)
    {
        commands.extend(text.lines().map(|l| (l.to_string(), at)));
    }
    for (line, at) in commands {
        if let Some(cmd) = shell_escape(&line, vim) {
            super::run_nested(
                cx,
                i,
                at,
                &format!("the shell escape of `{program}`"),
                "interpreters.editor.shell-escape",
                cmd,
            );
        }
    }
    true
}

/// The command an editor command line runs with the shell: `!CMD`, `[RANGE]!CMD` (a filter),
/// `r !CMD`, `w !CMD`, `e !CMD`; vim's `:` prefix and `silent` / `silent!` too.
fn shell_escape(line: &str, vim: bool) -> Option<&str> {
    let mut l = line.trim_start();
    if vim {
        l = l.trim_start_matches([':', ' ', '\t']);
        for prefix in ["silent!", "silent", "sil!", "sil"] {
            if let Some(rest) = l.strip_prefix(prefix)
                && (rest.starts_with([' ', '!']) && prefix.ends_with('!') || rest.starts_with(' '))
            {
                l = rest.trim_start();
                break;
            }
        }
        // A range before a filter: `%!sort`, `1,5!cmd`.
        l = l.trim_start_matches(|c: char| c.is_ascii_digit() || "%.,$".contains(c));
    }
    if let Some(cmd) = l.strip_prefix('!') {
        // `!!` repeats the last command, which this line does not show.
        return (!cmd.starts_with('!') && !cmd.trim().is_empty()).then_some(cmd);
    }
    let words = ["r", "read", "w", "write", "e", "edit", "E"];
    let (head, rest) = l
        .split_once([' ', '!'])
        .map_or((l, ""), |(h, _)| (h, l[h.len()..].trim_start()));
    if words.contains(&head) {
        let cmd = rest.strip_prefix('!')?;
        return (!cmd.trim().is_empty()).then_some(cmd);
    }
    None
}

/// The static text segment `i` gets on stdin from a here-string or heredoc, with where it is.
fn stdin_text(cx: &Ctx<'_>, i: usize) -> Option<(String, crate::finding::Span)> {
    let seg = cx.script.segments.get(i)?;
    let r = seg.redirects.iter().rfind(|r| {
        matches!(
            r.op,
            RedirectOp::Heredoc | RedirectOp::HeredocStripTabs | RedirectOp::Herestring
        ) && matches!(r.fd, None | Some(0))
    })?;
    let text = match r.op {
        RedirectOp::Herestring => r.target.as_ref()?.static_text()?.to_string(),
        _ => super::super::wrap::heredoc_body(cx.src, r.span)?.to_string(),
    };
    Some((text, r.span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_escapes_are_found_and_other_commands_are_not() {
        let table = [
            ("!rm -rf v", false, Some("rm -rf v")),
            ("r !ls", false, Some("ls")),
            ("w !sh", false, Some("sh")),
            ("s/x/!y/", false, None),
            ("!!", false, None),
            (":!rm -rf v", true, Some("rm -rf v")),
            ("silent !rm -rf v", true, Some("rm -rf v")),
            ("%!sort", true, Some("sort")),
            ("q", true, None),
            ("wq", true, None),
            ("echo '!x'", true, None),
        ];
        for (line, vim, want) in table {
            assert_eq!(shell_escape(line, vim), want, "{line}");
        }
    }
}

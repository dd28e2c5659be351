//! check/deny/runs: programs that run their operands as a command somewhere else or under a
//! tool — sandboxes and tracers (`firejail`, `bwrap`, `strace`, `ltrace`, `valgrind`, `gdb
//! --args`, `xterm -e`, `ip netns exec`, `sg GROUP CMD`, `runuser -u USER CMD`), the
//! container and remote shells (`docker exec`, `kubectl exec --`, `ssh HOST CMD…`) and the
//! Windows side of WSL (`wsl CMD`, `cmd.exe /c`, `powershell -Command`). The command they run
//! goes back through the checks, so a denied one denies. It never allows anything: none of
//! these programs is allowlisted, and a command it cannot place is left to the ask they get.

use super::{past_unknown_option, static_word};
use crate::check::{Ctx, Origin};
use crate::finding::Span;
use crate::segment::{RedirectOp, Word};

/// Reads the command `program` runs, when it is one of this module's programs.
pub(super) fn command_runner(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    program: &str,
    words: &[Word],
) {
    match program {
        // firejail's options are all one word (`--net=none`, `--private`).
        "firejail" => run_at(cx, i, span, words, first_operand(words, 1, &[], "")),
        // valgrind's options are one word (`--tool=memcheck`), besides `-h`, `-q`, `-v`.
        "valgrind" => run_at(cx, i, span, words, first_operand(words, 1, &[], "")),
        "strace" => run_at(
            cx,
            i,
            span,
            words,
            first_operand(words, 1, STRACE_LONG_VALUES, "eoOpPsSuEIabXU"),
        ),
        "ltrace" => run_at(
            cx,
            i,
            span,
            words,
            first_operand(words, 1, LTRACE_LONG_VALUES, "eoOpsuaAFnlLxDw"),
        ),
        "bwrap" => run_at(cx, i, span, words, bwrap_command(words)),
        // `gdb … --args PROG ARGS…`: the words after `--args` are the program and its
        // arguments (run by `-ex run` or `r` typed at the prompt).
        "gdb" => {
            let at = words.iter().position(|w| w.static_text() == Some("--args"));
            run_from(cx, i, span, words, at.map(|k| k + 1));
        }
        // `xterm -e PROG ARGS…`: `-e` must be the last option; the rest is the command.
        "xterm" | "uxterm" | "urxvt" | "rxvt" | "konsole" => {
            let at = words.iter().position(|w| w.static_text() == Some("-e"));
            run_from(cx, i, span, words, at.map(|k| k + 1));
        }
        "ip" => run_from(cx, i, span, words, netns_exec(words)),
        "sg" => sg(cx, i, span, words),
        "docker" | "podman" | "nerdctl" => {
            run_from(cx, i, span, words, container_exec(words));
        }
        "kubectl" | "oc" => {
            // `kubectl exec POD -- CMD…`: the command is everything after the first `--`.
            let exec = words.get(1).and_then(|w| w.static_text()) == Some("exec");
            let at = words.iter().position(|w| w.static_text() == Some("--"));
            run_from(cx, i, span, words, at.filter(|_| exec).map(|k| k + 1));
        }
        "ssh" => ssh(cx, i, span, words),
        // `time { rm -rf v; }`: tree-sitter-bash reads the group after the `time` keyword as a
        // command whose first word is `{`; bash runs the group. An unquoted `{` can only be the
        // group's opening word in command position.
        "{" if !words[0].quoted => run_at(cx, i, span, words, Some(1)),
        "wsl" => run_from(cx, i, span, words, wsl_command(words)),
        "cmd" => windows_cmd(cx, i, span, words),
        "deno" | "bun" | "uv" => stdin_script(cx, i, span, program, words),
        "powershell" | "pwsh" => powershell(cx, i, span, words),
        _ => {}
    }
}

/// `runuser -u USER [--] COMMAND ARGS…` runs COMMAND itself (no shell); `runuser USER -c CMD`
/// is read with `su`. Reads the first form.
pub(super) fn runuser_user(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    let mut user = false;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if matches!(t, "-u" | "--user") {
            user = true;
            k += 2;
            continue;
        }
        if t.starts_with("--user=") || (t.starts_with("-u") && !t.starts_with("--")) {
            user = true;
        }
        k += match t {
            "-g"
            | "--group"
            | "-G"
            | "--supp-group"
            | "-s"
            | "--shell"
            | "-w"
            | "--whitelist-environment"
            | "-c"
            | "--command"
            | "--session-command" => 2,
            _ => 1,
        };
    }
    if user {
        run_at(cx, i, span, words, Some(k));
    }
}

/// strace's long options that take the next word.
const STRACE_LONG_VALUES: &[&str] = &[
    "--output",
    "--attach",
    "--string-limit",
    "--user",
    "--env",
    "--trace",
    "--signal",
    "--status",
    "--abbrev",
    "--verbose",
    "--raw",
    "--read",
    "--write",
    "--inject",
    "--fault",
    "--columns",
    "--trace-path",
    "--detach-on",
];

/// ltrace's long options that take the next word.
const LTRACE_LONG_VALUES: &[&str] = &["--output", "--library", "--align", "--indent"];

/// Checks the words from `at` on as the command the program runs; `None`: the program runs
/// no command here (`kubectl logs`, `wsl --list`) or cmdguard cannot place it, and it asks.
fn run_from(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word], at: Option<usize>) {
    if let Some(inner) = at.and_then(|k| words.get(k..)).filter(|c| !c.is_empty()) {
        cx.command(i, span, inner, Origin::Tail);
    }
}

/// Checks the words from `at` on as the command the program runs; with no place known, the
/// first few words that name a denied program are tried (see `past_unknown_option`).
fn run_at(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word], at: Option<usize>) {
    match at {
        Some(k) => {
            if let Some(inner) = words.get(k..).filter(|c| !c.is_empty()) {
                cx.command(i, span, inner, Origin::Tail);
            }
        }
        None => past_unknown_option(cx, i, span, words),
    }
}

/// The first word from `k` on that is not an option, stepping over the value of each option
/// in `long_values` or of a short option in `short_values` given in its own word; `--` ends
/// the options. `None` at a run-time word among the options.
fn first_operand(
    words: &[Word],
    mut k: usize,
    long_values: &[&str],
    short_values: &str,
) -> Option<usize> {
    while let Some(w) = words.get(k) {
        let t = w.static_text()?;
        if t == "--" {
            return Some(k + 1);
        }
        if !t.starts_with('-') || t == "-" {
            return Some(k);
        }
        let takes_next = if t.starts_with("--") {
            long_values.contains(&t)
        } else {
            // A bundle ends at its first value option; its value is the rest or the next word.
            t[1..]
                .char_indices()
                .find(|(_, c)| short_values.contains(*c))
                .is_some_and(|(n, c)| n + c.len_utf8() + 1 == t.len())
        };
        k += if takes_next { 2 } else { 1 };
    }
    None
}

/// bubblewrap's options by how many words follow them (bwrap 0.9 `--help`).
const BWRAP_ONE: &[&str] = &[
    "--args",
    "--argv0",
    "--userns",
    "--userns2",
    "--pidns",
    "--uid",
    "--gid",
    "--hostname",
    "--chdir",
    "--unsetenv",
    "--lock-file",
    "--sync-fd",
    "--remount-ro",
    "--overlay-src",
    "--tmp-overlay",
    "--ro-overlay",
    "--exec-label",
    "--file-label",
    "--proc",
    "--dev",
    "--tmpfs",
    "--mqueue",
    "--dir",
    "--seccomp",
    "--add-seccomp-fd",
    "--block-fd",
    "--userns-block-fd",
    "--info-fd",
    "--json-status-fd",
    "--cap-add",
    "--cap-drop",
    "--perms",
    "--size",
];

/// bubblewrap's options followed by two words.
const BWRAP_TWO: &[&str] = &[
    "--setenv",
    "--bind",
    "--bind-try",
    "--dev-bind",
    "--dev-bind-try",
    "--ro-bind",
    "--ro-bind-try",
    "--file",
    "--bind-data",
    "--ro-bind-data",
    "--symlink",
    "--chmod",
];

/// Where `bwrap [OPTIONS] COMMAND ARGS…` starts its command: `None` at an option it does not
/// know (every option of bwrap is long).
fn bwrap_command(words: &[Word]) -> Option<usize> {
    let mut k = 1;
    while let Some(w) = words.get(k) {
        let t = w.static_text()?;
        if t == "--" {
            return Some(k + 1);
        }
        if !t.starts_with("--") {
            return Some(k);
        }
        k += if BWRAP_TWO.contains(&t) {
            3
        } else if BWRAP_ONE.contains(&t) {
            2
        } else if t == "--overlay" {
            4
        } else if t.starts_with("--unshare-")
            || t.starts_with("--share-")
            || t.starts_with("--die-with")
            || matches!(
                t,
                "--new-session"
                    | "--as-pid-1"
                    | "--clearenv"
                    | "--disable-userns"
                    | "--assert-userns-disabled"
                    | "--level-prefix"
            )
        {
            1
        } else {
            return None;
        };
    }
    None
}

/// `ip [OPTIONS] netns exec NAME COMMAND…` (iproute2): the command after the namespace name.
fn netns_exec(words: &[Word]) -> Option<usize> {
    let k = words
        .iter()
        .position(|w| w.static_text() == Some("netns"))?;
    let exec = words.get(k + 1).and_then(|w| w.static_text());
    matches!(exec, Some("exec" | "exe" | "ex" | "e")).then_some(k + 3)
}

/// `sg [-] GROUP [[-c] COMMAND]`: COMMAND is one string that `/bin/sh -c` runs.
fn sg(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    if words.get(k).and_then(|w| w.static_text()) == Some("-") {
        k += 1;
    }
    k += 1;
    if words.get(k).and_then(|w| w.static_text()) == Some("-c") {
        k += 1;
    }
    if let Some(script) = words.get(k).and_then(|w| w.static_text()) {
        super::denies_in(cx, i, span, "the command `sg` runs", script);
    }
}

/// `docker exec` options that take the next word (Docker 27, Podman 5, nerdctl 2).
const EXEC_VALUES: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
    "--preserve-fds",
];

/// Where `docker [container] exec [OPTIONS] CONTAINER COMMAND…` starts its command.
fn container_exec(words: &[Word]) -> Option<usize> {
    let t = |k: usize| words.get(k).and_then(|w| w.static_text());
    let mut k = 1;
    if t(k) == Some("container") {
        k += 1;
    }
    if t(k) != Some("exec") {
        return None;
    }
    let container = first_operand(words, k + 1, EXEC_VALUES, "euw")?;
    // A short bundle ending in a value option (`-itu root`) is read by `first_operand`.
    Some(container + 1)
}

/// ssh's short options that take the next word (OpenSSH 9 `ssh(1)`).
const SSH_VALUES: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// `ssh [OPTIONS] HOST COMMAND…`: ssh joins the words after the host with spaces and the
/// remote shell parses the line, so a line that is a denied command denies: an agent typed
/// it. Only a line of known words is read.
fn ssh(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(host) = first_operand(words, 1, &[], SSH_VALUES) else {
        return;
    };
    let Some(rest) = words.get(host + 1..).filter(|r| !r.is_empty()) else {
        return;
    };
    if let Some(line) = line_of(rest) {
        super::denies_in(
            cx,
            i,
            span,
            "the command ssh runs on the remote host",
            &line,
        );
    }
}

/// `wsl [OPTIONS] [--exec|-e|--] COMMAND…`: WSL runs the command in the Linux distribution
/// (through its shell unless `-e`).
fn wsl_command(words: &[Word]) -> Option<usize> {
    let mut k = 1;
    while let Some(w) = words.get(k) {
        let t = w.static_text()?;
        match t {
            "-e" | "--exec" | "--" => return Some(k + 1),
            "-d" | "--distribution" | "-u" | "--user" | "--cd" | "--shell-type"
            | "--distribution-id" => k += 2,
            "--system" => k += 1,
            // Management options (`--list`, `--shutdown`, `--install`) run no command.
            _ if t.starts_with('-') => return None,
            _ => return Some(k),
        }
    }
    None
}

/// `cmd.exe /c LINE` (also `/k`, `/r`): the Windows deleters `rd /s` and `del /s` are `rm -r`
/// of their operands, `del` without `/s` is `rm`; the line is read as those commands.
fn windows_cmd(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(c) = words.iter().position(|w| {
        w.static_text()
            .is_some_and(|t| matches!(t.to_ascii_lowercase().as_str(), "/c" | "/k" | "/r"))
    }) else {
        return;
    };
    let rest = &words[c + 1..];
    let Some(line) = line_of(rest) else {
        return;
    };
    for piece in line.split('&').take(MAX_LINE_COMMANDS) {
        let parts: Vec<&str> = piece.split_whitespace().collect();
        let Some(first) = parts.first() else {
            continue;
        };
        let program = first.to_ascii_lowercase();
        let switches: Vec<String> = parts[1..]
            .iter()
            .filter(|p| p.starts_with('/'))
            .map(|p| p.to_ascii_lowercase())
            .collect();
        let recursive = switches.iter().any(|s| s == "/s");
        let operands = parts[1..]
            .iter()
            .filter(|p| !p.starts_with('/') || p.len() > 3);
        let deleter = match program.as_str() {
            "rd" | "rmdir" if recursive => "-rf",
            "del" | "erase" if recursive => "-rf",
            "del" | "erase" => "-f",
            _ => continue,
        };
        as_rm(cx, i, span, deleter, operands.copied());
    }
}

/// The words joined with spaces, as the program that gets them joins them: words whose text
/// is known (a glob is left as written: bash expands it to names, which the deleters that read
/// it are given as well). `None` when a word's text is a run-time value.
fn line_of(words: &[Word]) -> Option<String> {
    let runtime = |w: &Word| {
        let e = w.expansions;
        e.parameter || e.arithmetic || e.substitution()
    };
    if words.iter().any(runtime) {
        return None;
    }
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    Some(texts.join(" "))
}

/// Most commands of one Windows command line read.
const MAX_LINE_COMMANDS: usize = 16;

/// Checks `rm FLAGS OPERANDS…`, what a Windows deleter does to its operands.
fn as_rm<'a>(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    flags: &str,
    operands: impl Iterator<Item = &'a str>,
) {
    let mut inner = vec![static_word("rm", span), static_word(flags, span)];
    inner.extend(operands.map(|o| static_word(o, span)));
    if inner.len() > 2 {
        cx.command(i, span, &inner, Origin::Wrapped);
    }
}

/// PowerShell's deleting cmdlet and its aliases.
const REMOVE_ITEM: &[&str] = &["remove-item", "rm", "del", "erase", "rd", "rmdir", "ri"];

/// `powershell -Command "Remove-Item -Recurse -Force DIR"`, `pwsh -c 'rm -r -fo ~'`:
/// `Remove-Item -Recurse` (any alias, any prefix of the parameter) is `rm -rf` of its paths.
fn powershell(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(c) = words.iter().position(|w| {
        w.static_text().is_some_and(|t| {
            let t = t.to_ascii_lowercase();
            t.len() >= 2 && "-command".starts_with(&t)
        })
    }) else {
        return;
    };
    let rest = &words[c + 1..];
    let Some(line) = line_of(rest) else {
        return;
    };
    for piece in line.split([';', '|']).take(MAX_LINE_COMMANDS) {
        let parts: Vec<&str> = piece.split_whitespace().collect();
        let Some(first) = parts.first() else {
            continue;
        };
        if !REMOVE_ITEM.contains(&first.to_ascii_lowercase().as_str()) {
            continue;
        }
        let recursive = parts[1..].iter().any(|p| {
            let p = p.to_ascii_lowercase();
            p.len() >= 2 && "-recurse".starts_with(&p)
        });
        // `-WhatIf` only reports what would go; a `$name` is a PowerShell variable whose value
        // the line does not show (the interpreter reader in `interp/other.rs` judges those).
        let what_if = parts[1..].iter().any(|p| {
            let p = p.to_ascii_lowercase();
            p.len() >= 3 && "-whatif".starts_with(&p)
        });
        if !recursive || what_if {
            continue;
        }
        let operands: Vec<&str> = parts[1..]
            .iter()
            .filter(|p| !p.starts_with('-'))
            .map(|p| p.trim_matches(['\'', '"']))
            .filter(|p| !p.contains(['$', '(', '@']))
            .collect();
        if operands.is_empty() {
            continue;
        }
        as_rm(cx, i, span, "-rf", operands.into_iter());
    }
}

/// `uv run` options that take the next word (uv 0.5 `uv run --help`).
const UV_RUN_VALUES: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--python",
    "-p",
    "--project",
    "--directory",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--config-file",
    "--cache-dir",
    "--color",
];

/// `deno run - <<EOF`, `bun run -`, `uv run [--script] -`: the runner reads its script from
/// stdin, as `node -` and `python3 -` do; the command is read as that interpreter's, so the
/// heredoc or here-string it is given is read as its code.
fn stdin_script(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str, words: &[Word]) {
    let t = |k: usize| words.get(k).and_then(|w| w.static_text());
    let (values, interpreter): (&[&str], &str) = match program {
        "uv" => (UV_RUN_VALUES, "python3"),
        _ => (&[], "node"),
    };
    let mut k = 1;
    if t(k) == Some("run") {
        k += 1;
    } else if program != "bun" {
        return;
    }
    while let Some(w) = t(k) {
        if w == "-" {
            let mut inner = vec![static_word(interpreter, words[0].span), words[k].clone()];
            inner.extend(words[k + 1..].iter().cloned());
            cx.command(i, span, &inner, Origin::Wrapped);
            return;
        }
        if !w.starts_with('-') || w == "--" {
            return;
        }
        k += if values.contains(&w) { 2 } else { 1 };
    }
    // tree-sitter-bash leaves a lone `-` right before `<<` out of the tree (`deno run - <<EOF`
    // comes out as `deno run`): the source text between the last word and the heredoc tells.
    if k == words.len() && dash_before_heredoc(cx, i, words) {
        let mut inner = vec![static_word(interpreter, words[0].span)];
        inner.push(static_word("-", words[k - 1].span));
        cx.command(i, span, &inner, Origin::Wrapped);
    }
}

/// Whether the source of segment `i` holds a lone `-` between the command's last word and its
/// heredoc (see [`stdin_script`]).
fn dash_before_heredoc(cx: &Ctx<'_>, i: usize, words: &[Word]) -> bool {
    let Some(seg) = cx.script.segments.get(i) else {
        return false;
    };
    let Some(last) = words.last() else {
        return false;
    };
    seg.redirects.iter().any(|r| {
        matches!(r.op, RedirectOp::Heredoc | RedirectOp::HeredocStripTabs)
            && r.span.start >= last.span.end
            && cx.src.get(last.span.end..r.span.start).map(str::trim) == Some("-")
    })
}

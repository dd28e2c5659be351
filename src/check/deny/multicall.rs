//! check/deny/multicall: programs that run another program's code under their own name — the
//! multi-call binaries (`busybox rm -rf x`, `toybox`, `coreutils --coreutils-prog=rm`, the
//! kubectl in `k3s kubectl`, `microk8s kubectl` and `minikube kubectl --`), `fd`'s
//! `-x`/`-X` (a `find -exec` of its own), the programs that run their operands as a command
//! (`unshare`, `chroot`, `nsenter`, `systemd-run`, GNU `parallel`), the session programs (`su
//! -c`, `runuser`, `script -c`, `tmux`, `screen`) — and `rsync --delete`, which empties what its
//! destination holds beyond the source: onto `/`, `/home` or a home it is `rm` of them. The command they
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
            // busybox's own shells (`busybox ash -c …`) are read as the `sh` they are.
            match SHELL_APPLETS.contains(&first) {
                true => {
                    let mut inner = vec![static_word("sh", words[1].span)];
                    inner.extend(words[2..].iter().cloned());
                    cx.command(i, span, &inner, Origin::Wrapped);
                }
                false => {
                    cx.command(i, span, &words[1..], Origin::Tail);
                }
            }
        }
        // uutils' `coreutils rm -rf v` (Debian's rust-coreutils) names the applet as its first
        // operand; GNU's single binary takes `--coreutils-prog=rm`.
        "coreutils" if !first.starts_with('-') => {
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
        // The kubectl that k3s and microk8s bundle, and the one minikube runs with the words
        // after `--`: the same kubectl under another name.
        "k3s" | "microk8s" if first == "kubectl" => {
            cx.command(i, span, &words[1..], Origin::Tail);
        }
        "microk8s.kubectl" => {
            let mut inner = vec![static_word("kubectl", words[0].span)];
            inner.extend(words[1..].iter().cloned());
            cx.command(i, span, &inner, Origin::Tail);
        }
        "minikube" if first == "kubectl" => {
            let Some(dd) = words.iter().position(|w| w.static_text() == Some("--")) else {
                return;
            };
            let mut inner = vec![static_word("kubectl", words[1].span)];
            inner.extend(words[dd + 1..].iter().cloned());
            cx.command(i, span, &inner, Origin::Tail);
        }
        _ => {}
    }
}

/// busybox's and toybox's shell applets: each runs `-c SCRIPT` as a POSIX `sh` does.
const SHELL_APPLETS: &[&str] = &["sh", "ash", "hush", "msh", "bash"];

/// `fd`'s options whose value is the next word (before `-x`, they are skipped as values).
const FD_EXEC: &[&str] = &["-x", "--exec", "-X", "--exec-batch"];

/// Most `-x`/`-X` commands of one `fd` command read.
const MAX_FD_EXECS: usize = 8;

/// `fd PATTERN -x CMD…`, `fd -X CMD…`: CMD runs for the matches (as `find -exec` does); its
/// words run to a `;` or the end, and a path is added unless `{}` places it. fd takes several
/// (`fd -x echo {} \; -x rm -rf {}` runs both), so each is read.
pub(super) fn fd_exec(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut at = 0;
    for _ in 0..MAX_FD_EXECS {
        let Some(found) = words
            .iter()
            .skip(at)
            .position(|w| w.static_text().is_some_and(|t| FD_EXEC.contains(&t)))
        else {
            return;
        };
        let start = at + found + 1;
        let end = (start..words.len())
            .find(|&k| words[k].static_text() == Some(";"))
            .unwrap_or(words.len());
        at = end;
        if end <= start {
            continue;
        }
        let mut inner = words[start..end].to_vec();
        if !inner.iter().any(|w| w.text.contains("{}")) {
            inner.push(static_word("{}", span));
        }
        cx.command(i, span, &inner, Origin::Tail);
    }
}

/// How a program that runs its operands as a command reads its own options, so that the
/// command is found where the program finds it. Each stops at its first operand (its option
/// parser is told to), so an option after the command is the command's.
struct ExecWrapper {
    program: &'static str,
    /// Long options that take no value, or only an attached `=VALUE`.
    long_flags: &'static [&'static str],
    /// Long options whose value is `=VALUE` or the next word.
    long_values: &'static [&'static str],
    /// Short options that take no value.
    short_flags: &'static str,
    /// Short options whose optional value can only be attached (`-mFILE`).
    short_optional: &'static str,
    /// Short options whose value is the rest of the word or the next word.
    short_values: &'static str,
    /// Operands before the command (`chroot NEWROOT`).
    operands: usize,
}

/// The programs of [`ExecWrapper`], with their options as their `--help` lists them
/// (util-linux 2.39 `unshare`, `nsenter`; coreutils 9 `chroot`; systemd 255 `systemd-run`).
/// Any other option stops the reading: then the first few words that name a denied program
/// are tried as the command (see `past_unknown_option`).
const EXEC_WRAPPERS: &[ExecWrapper] = &[
    ExecWrapper {
        program: "unshare",
        long_flags: &[
            "--mount",
            "--uts",
            "--ipc",
            "--net",
            "--pid",
            "--user",
            "--cgroup",
            "--time",
            "--fork",
            "--map-root-user",
            "--map-current-user",
            "--map-auto",
            "--kill-child",
            "--mount-proc",
            "--keep-caps",
        ],
        long_values: &[
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--propagation",
            "--setgroups",
            "--root",
            "--wd",
            "--setuid",
            "--setgid",
            "--monotonic",
            "--boottime",
        ],
        short_flags: "frc",
        short_optional: "muinpUCT",
        short_values: "RwSG",
        operands: 0,
    },
    ExecWrapper {
        program: "nsenter",
        long_flags: &[
            "--all",
            "--mount",
            "--uts",
            "--ipc",
            "--net",
            "--pid",
            "--cgroup",
            "--user",
            "--time",
            "--preserve-credentials",
            "--root",
            "--wd",
            "--no-fork",
            "--follow-context",
        ],
        long_values: &["--target", "--setuid", "--setgid", "--wdns"],
        short_flags: "aFZ",
        short_optional: "muinpCUTrw",
        short_values: "tSGW",
        operands: 0,
    },
    ExecWrapper {
        program: "chroot",
        long_flags: &["--skip-chdir"],
        long_values: &["--groups", "--userspec"],
        short_flags: "",
        short_optional: "",
        short_values: "",
        operands: 1,
    },
    ExecWrapper {
        program: "systemd-run",
        long_flags: &[
            "--no-ask-password",
            "--user",
            "--system",
            "--scope",
            "--slice-inherit",
            "--no-block",
            "--remain-after-exit",
            "--wait",
            "--send-sighup",
            "--same-dir",
            "--pty",
            "--pipe",
            "--quiet",
            "--collect",
            "--on-timezone-change",
            "--on-clock-change",
        ],
        long_values: &[
            "--host",
            "--machine",
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--service-type",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--setenv",
            "--path-property",
            "--socket-property",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--timer-property",
        ],
        short_flags: "rdtPqG",
        short_optional: "",
        short_values: "HMupE",
        operands: 0,
    },
];

/// Where the command of an [`ExecWrapper`] starts: `None` at an option it does not know.
fn exec_wrapper_command(w: &ExecWrapper, words: &[Word]) -> Option<usize> {
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let name = format!("--{name}");
            k += if w.long_flags.contains(&name.as_str()) {
                1
            } else if w.long_values.contains(&name.as_str()) {
                if attached { 1 } else { 2 }
            } else {
                return None;
            };
            continue;
        }
        let mut next = 1;
        for (n, c) in t.char_indices().skip(1) {
            let rest = &t[n + c.len_utf8()..];
            if w.short_values.contains(c) {
                next = if rest.is_empty() { 2 } else { 1 };
                break;
            }
            if w.short_optional.contains(c) {
                break;
            }
            if !w.short_flags.contains(c) {
                return None;
            }
        }
        k += next;
    }
    // A run-time word among the options: where the command starts is not known.
    if words
        .get(k)
        .is_some_and(|w| !w.is_static() && w.text.starts_with('-'))
    {
        return None;
    }
    Some(k + w.operands)
}

/// `unshare rm -rf v`, `chroot / rm -rf v`, `nsenter -t 1 rm -rf v`, `systemd-run rm -rf v`:
/// the command the program runs is checked like any other (the program itself is not
/// allowlisted, so it asks). Returns false when `program` is not one of [`EXEC_WRAPPERS`].
pub(super) fn exec_wrapper(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    program: &str,
    words: &[Word],
) -> bool {
    let Some(w) = EXEC_WRAPPERS.iter().find(|w| w.program == program) else {
        return false;
    };
    match exec_wrapper_command(w, words) {
        Some(k) => {
            if let Some(inner) = words.get(k..).filter(|c| !c.is_empty()) {
                cx.command(i, span, inner, Origin::Tail);
            }
        }
        None => super::past_unknown_option(cx, i, span, words),
    }
    true
}

/// `su`'s and `runuser`'s options that take the next word (`-c` is read apart).
const SU_VALUES: &[&str] = &[
    "-s",
    "--shell",
    "-g",
    "--group",
    "-G",
    "--supp-group",
    "-u",
    "-w",
    "--whitelist-environment",
];

/// `script`'s short options that take a value (the rest of the word or the next word).
const SCRIPT_SHORT_VALUES: &str = "TIOBEm";

/// `screen`'s options that take the next word as their value.
pub(super) const SCREEN_VALUES: &str = "SceEhpsTt";

/// Programs that start a session running a command: `su -c CMD` and `runuser -c CMD` (the
/// user's shell runs CMD), `script -c CMD` (`/bin/sh -c`), `screen [options] CMD ARGS…` (run as words); `tmux`
/// and `screen -X` are read in check/deny/typed. A denied CMD
/// denies; each program asks by itself.
pub(super) fn session(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str, words: &[Word]) {
    let t = |k: usize| words.get(k).and_then(|w| w.static_text());
    let mut scripts: Vec<String> = Vec::new();
    match program {
        "su" | "runuser" => {
            let mut k = 1;
            while k < words.len() {
                let Some(w) = t(k) else {
                    k += 1;
                    continue;
                };
                if let Some(v) = w
                    .strip_prefix("--command=")
                    .or_else(|| w.strip_prefix("--session-command="))
                {
                    scripts.push(v.to_string());
                } else if matches!(w, "-c" | "--command" | "--session-command") {
                    scripts.extend(t(k + 1).map(str::to_string));
                    k += 1;
                } else if let Some(v) = w.strip_prefix("-c").filter(|v| !v.is_empty()) {
                    scripts.push(v.to_string());
                } else if SU_VALUES.contains(&w) {
                    k += 1;
                }
                k += 1;
            }
        }
        "script" => {
            let mut k = 1;
            while let Some(w) = t(k) {
                if let Some(v) = w.strip_prefix("--command=") {
                    scripts.push(v.to_string());
                } else if w == "--command" {
                    scripts.extend(t(k + 1).map(str::to_string));
                    k += 1;
                } else if let Some(bundle) = w.strip_prefix('-').filter(|b| !b.starts_with('-')) {
                    for (n, c) in bundle.char_indices() {
                        let rest = &bundle[n + c.len_utf8()..];
                        if c == 'c' || SCRIPT_SHORT_VALUES.contains(c) {
                            let value = match rest {
                                "" => {
                                    k += 1;
                                    t(k)
                                }
                                r => Some(r),
                            };
                            if c == 'c' {
                                scripts.extend(value.map(str::to_string));
                            }
                            break;
                        }
                    }
                }
                k += 1;
            }
        }
        "tmux" => return super::typed::tmux(cx, i, span, words),
        "screen" => {
            let mut k = 1;
            let mut remote = false;
            while let Some(w) = t(k).filter(|w| w.starts_with('-')) {
                // `-Q` asks the session; `-ls`, `-wipe`, `-r` start nothing.
                if matches!(
                    w,
                    "-Q" | "-ls" | "-list" | "-wipe" | "-v" | "--version" | "--help"
                ) {
                    return;
                }
                // `-X CMD…` sends a command to a running session (`stuff`, `screen`, `exec`).
                remote |= w == "-X";
                k += 1;
                let last = w.chars().last().unwrap_or('-');
                if SCREEN_VALUES.contains(last) && !w.starts_with("--") {
                    k += 1;
                }
            }
            if remote {
                return super::typed::screen_command(cx, i, span, words.get(k..).unwrap_or(&[]));
            }
            if let Some(cmd) = words.get(k..).filter(|c| !c.is_empty()) {
                cx.command(i, span, cmd, Origin::Tail);
            }
        }
        _ => {}
    }
    finish(cx, i, span, &scripts);
}

/// Shells outside the `[[shell]]` list that run a `-c` string: for the plain commands a deny
/// rule names (`rm -rf v`) their syntax is bash's.
pub(super) const OTHER_SHELLS: &[&str] = &[
    "fish", "mksh", "yash", "tcsh", "csh", "nu", "xonsh", "elvish", "posh", "oksh", "loksh",
];

/// `fish -c 'rm -rf v'`, `tcsh -fc …`, `nu --commands …`: the string a shell not in the
/// `[[shell]]` list runs, read for denies (the shell asks by itself).
pub(super) fn other_shell(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if !t.starts_with('-') || t == "-" || t == "--" {
            return;
        }
        let script = if let Some(v) = t
            .strip_prefix("--command=")
            .or_else(|| t.strip_prefix("--commands="))
        {
            Some(v)
        } else if matches!(t, "--command" | "--commands")
            || (!t.starts_with("--") && t.ends_with('c'))
        {
            words.get(k + 1).and_then(|w| w.static_text())
        } else {
            None
        };
        if let Some(script) = script {
            super::denies_in(cx, i, span, "the script the shell runs", script);
            return;
        }
        k += 1;
    }
}

/// The scripts a session program runs, read for denies.
fn finish(cx: &mut Ctx<'_>, i: usize, span: Span, scripts: &[String]) {
    for script in scripts.iter().take(MAX_PARALLEL_COMMANDS) {
        super::denies_in(cx, i, span, "the command the session runs", script);
    }
}

/// GNU parallel's options that take the next word as their value.
const PARALLEL_VALUES: &[&str] = &[
    "-j",
    "--jobs",
    "-P",
    "--max-procs",
    "-S",
    "--sshlogin",
    "--sshloginfile",
    "--slf",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-I",
    "-n",
    "--max-args",
    "-N",
    "-L",
    "--max-lines",
    "--colsep",
    "-C",
    "--tmpdir",
    "--results",
    "--res",
    "--joblog",
    "--env",
    "--workdir",
    "--wd",
    "--timeout",
    "--retries",
    "--delay",
    "--load",
    "--memfree",
    "--basefile",
    "--bf",
    "--return",
    "--transferfile",
    "--tf",
    "--tagstring",
    "--tag-string",
    "--block",
    "--block-size",
    "--recstart",
    "--recend",
    "--halt",
    "--termseq",
    "--ssh",
    "--nice",
    "--shuf-seed",
];

/// GNU parallel's options that take no value.
const PARALLEL_FLAGS: &[&str] = &[
    "-X",
    "-m",
    "-k",
    "--keep-order",
    "-u",
    "--ungroup",
    "--line-buffer",
    "--lb",
    "--group",
    "--tag",
    "-v",
    "--verbose",
    "-t",
    "-0",
    "--null",
    "--pipe",
    "--pipepart",
    "-r",
    "--no-run-if-empty",
    "--progress",
    "--bar",
    "--eta",
    "--will-cite",
    "--shuf",
    "--plus",
    "--trim",
    "--compress",
    "--xapply",
    "--link",
    "--fg",
    "--bg",
    "--no-notice",
    "--silent",
    "--linebuffer",
    "--keep-order",
    "--group-by",
    "-g",
];

/// Separators before GNU parallel's argument lists.
const PARALLEL_SOURCES: &[&str] = &[":::", "::::", ":::+", "::::+"];

/// Most argument-list entries of one `parallel` read as commands.
const MAX_PARALLEL_COMMANDS: usize = 8;

/// `parallel rm -rf ::: v`, `echo v | parallel rm -rf`, `parallel 'rm -rf {}' ::: v`: GNU
/// parallel joins its command words with spaces into a shell command line, each input placed
/// where a replacement string (`{}`, `{.}`, …) stands or added at the end. The line is read
/// with `{}` standing for the input, and a deny found there denies. Without command words,
/// each `:::` argument is itself a command line. `--dry-run` only prints; `-q` quotes the
/// words, so each stays one word.
pub(super) fn parallel(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    let mut quote_words = false;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || PARALLEL_SOURCES.contains(&t) {
            break;
        }
        if t == "--dry-run" {
            return;
        }
        quote_words |= matches!(t, "-q" | "--quote");
        let name = t.split_once('=').map_or(t, |(n, _)| n);
        k += if matches!(t, "-q" | "--quote") || PARALLEL_FLAGS.contains(&name) || t.contains('=') {
            1
        } else if PARALLEL_VALUES.contains(&t) {
            2
        } else {
            super::past_unknown_option(cx, i, span, words);
            return;
        };
    }
    let rest = words.get(k..).unwrap_or(&[]);
    let end = rest
        .iter()
        .position(|w| {
            w.static_text()
                .is_some_and(|t| PARALLEL_SOURCES.contains(&t))
        })
        .unwrap_or(rest.len());
    let command = &rest[..end];
    if command.is_empty() {
        // `parallel ::: 'rm -rf v'`: the arguments are the commands.
        let lines = rest
            .iter()
            .skip(1)
            .take_while(|w| {
                w.static_text()
                    .is_some_and(|t| !PARALLEL_SOURCES.contains(&t))
            })
            .take(MAX_PARALLEL_COMMANDS);
        for w in lines {
            super::denies_in(cx, i, span, "the command `parallel` runs", &w.text);
        }
        return;
    }
    if !command.iter().all(Word::is_static) {
        return;
    }
    let mut text: Vec<String> = command
        .iter()
        .map(|w| match quote_words {
            true => super::quote(&w.text),
            false => w.text.clone(),
        })
        .collect();
    let placed = text.iter().any(|t| t.contains("{}"));
    if !text.iter().any(|t| t.contains('{') && t.contains('}')) {
        text.push("{}".to_string());
    }
    let line = text.join(" ");
    let what = "the command line `parallel` runs for each input";
    super::denies_in(cx, i, span, what, &line);
    // `find . | parallel rm`: with no argument source of its own, parallel reads its input
    // lines as arguments exactly as xargs does, so the xargs rules read it as `xargs CMD`.
    let own_source = words[..k].iter().any(|w| {
        w.static_text()
            .is_some_and(|t| matches!(t, "-a" | "--arg-file") || t.starts_with("--arg-file="))
    });
    if end == rest.len() && !own_source {
        let mut as_xargs = vec![super::static_word("xargs", words[0].span)];
        as_xargs.extend(command.iter().cloned());
        cx.command(i, span, &as_xargs, Origin::Tail);
    }
    // `parallel sh -c ::: 'rm -rf v'`: each argument of one `:::` list, quoted as parallel
    // quotes it, where `{}` stands (or at the end).
    let single_source = rest[end..]
        .iter()
        .filter(|w| {
            w.static_text()
                .is_some_and(|t| PARALLEL_SOURCES.contains(&t))
        })
        .count()
        == 1;
    if !single_source || rest.get(end).and_then(|w| w.static_text()) != Some(":::") {
        return;
    }
    let plain = placed || !line.contains(['{', '}']) || line.ends_with(" {}");
    if !plain {
        return;
    }
    let arguments = rest[end + 1..]
        .iter()
        .take_while(|w| w.is_static())
        .take(MAX_PARALLEL_COMMANDS);
    for a in arguments {
        let filled = line.replace("{}", &super::quote(&a.text));
        super::denies_in(cx, i, span, what, &filled);
    }
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

/// rsync's short options that take a value: in a bundle, the rest of the word is the value.
const RSYNC_SHORT_VALUES: &str = "eBfMT@";

/// `rsync -a --delete empty/ ~/`: with a delete option, a destination (the last operand) that
/// is the root or a home (`/`, `~`, `~/.`, `$HOME`, `/root`, `/home/NAME`) is emptied as `rm`
/// of it would be, and is reported by the root-and-home rule; a remote destination (`host:/`)
/// is not. A dry run (`-n`, `--dry-run`, `-an`) deletes nothing and is left to ask.
pub(super) fn rsync(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let statics = || words[1..].iter().filter_map(|w| w.static_text());
    let deletes =
        statics().any(|t| RSYNC_DELETES.contains(&t.split_once('=').map_or(t, |(o, _)| o)));
    if !deletes || statics().any(rsync_dry_run) {
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
    if rule_matches(list, rule, &argv) || root_or_home(&dest.text) {
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

/// Whether an rsync word asks for a dry run: `--dry-run` (or a prefix rsync accepts, `--dry`),
/// or `n` in a bundle of short options before any option that takes the rest as its value.
fn rsync_dry_run(t: &str) -> bool {
    if let Some(long) = t.strip_prefix("--") {
        return long.len() >= 3 && "dry-run".starts_with(long);
    }
    let Some(bundle) = t.strip_prefix('-') else {
        return false;
    };
    for c in bundle.chars() {
        if c == 'n' {
            return true;
        }
        if RSYNC_SHORT_VALUES.contains(c) || !c.is_ascii_alphanumeric() {
            return false;
        }
    }
    false
}

/// Whether a destination names the root, `/home` or a home directory once its `.` and `..`
/// are resolved as written (`/tmp/..` is `/`, `~/..` holds every home): `/`, `~`, `~NAME`,
/// `$HOME`, `/root`, `/home`, `/home/NAME`, or any path above a home.
fn root_or_home(dest: &str) -> bool {
    let home = ["~", "$HOME", "${HOME}", "\"$HOME\"", "\"${HOME}\""];
    let (start, rest) = match dest.split_once('/') {
        Some((head, rest)) => (head, rest),
        None => (dest, ""),
    };
    // How far below `/` the path starts: a home is two levels down (`/home/NAME`; `/root`,
    // one level, is above the parent test anyway).
    let mut parts: Vec<&str> = match start {
        "" => Vec::new(),
        h if home.contains(&h) => vec!["home", "~"],
        h if h.starts_with('~') && !h[1..].contains(['*', '?', '[', '$', '\'']) => {
            vec!["home", h]
        }
        _ => return false,
    };
    let mut above_home = false;
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                above_home |= parts.len() <= 2 && parts.first() == Some(&"home");
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let plain = |u: &str| !u.is_empty() && !u.contains(['*', '?', '[', '$']);
    above_home
        || match parts.as_slice() {
            [] | ["root"] | ["home"] => true,
            ["home", user] => plain(user),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::{root_or_home, rsync_dry_run};

    #[test]
    fn roots_and_homes_are_told_from_directories_below_them() {
        for (dest, want) in [
            ("/", true),
            ("/.", true),
            ("~/", true),
            ("~/.", true),
            ("~/./", true),
            ("/root", true),
            ("/root/", true),
            ("/home/user", true),
            ("/home/user/.", true),
            ("~bob", true),
            ("$HOME/", true),
            ("/home/user/site", false),
            ("/root/backup", false),
            ("./out", false),
            ("out/", false),
            ("~/site", false),
            // `..` resolved as written; `/home` and a home's parent hold every home.
            ("/home", true),
            ("/tmp/..", true),
            ("/tmp/../", true),
            ("~/..", true),
            ("/home/user/site/..", true),
            ("/srv/../etc/..", true),
            ("/srv/www/..", false),
            ("~/a/..", true),
            ("~/a/../b", false),
            ("../..", false),
            ("$HOME/x/..", true),
        ] {
            assert_eq!(root_or_home(dest), want, "{dest}");
        }
    }

    #[test]
    fn a_dry_run_is_found_in_every_spelling() {
        for (word, want) in [
            ("-n", true),
            ("-an", true),
            ("--dry-run", true),
            ("--dry", true),
            ("-a", false),
            ("-en", false),
            ("--delete", false),
            ("--d", false),
            ("v", false),
        ] {
            assert_eq!(rsync_dry_run(word), want, "{word}");
        }
    }
}

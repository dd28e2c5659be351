//! check/deny/nested: commands that run a command given on their own command line, which the
//! allowlist does not follow because the outer command asks anyway — `git submodule foreach
//! CMD`, `git bisect run CMD`, `git rebase --exec CMD`, a program-running `git -c KEY=VALUE`
//! (`alias.x=!CMD`, `core.fsmonitor=CMD`; also set by an earlier `git config` or
//! `GIT_CONFIG_KEY_N`, which the `git -c` deny rules read too), GNU tar's command options, and
//! package runners (`npx`, `pnpm dlx`, `bunx`,
//! `uv run`, `poetry run`, `conda run`, …). The inner command goes back through the analyser,
//! so a denied one denies. It never allows anything: the outer command asks by itself.

use super::{program_name, quote, rule_matches, static_word};
use crate::check::{Ctx, Origin};
use crate::finding::Span;
use crate::segment::{Assignment, Word};

/// Most `git -c` values of one command read as commands.
const MAX_CONFIG_COMMANDS: usize = 8;

/// `git [global options] …`: the commands git would run from its own arguments.
pub(super) fn git(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let program = list.programs.get("git");
    let takes_value = |t: &str| program.is_some_and(|p| p.value_options.iter().any(|v| v == t));
    let mut k = 1;
    let mut configs = 0;
    let mut aliases: Vec<&str> = Vec::new();
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if !t.starts_with('-') {
            break;
        }
        // `-c KEY=VALUE` (git also takes `-cKEY=VALUE`).
        let config = match t {
            "-c" => words.get(k + 1).and_then(|w| w.static_text()),
            _ => t.strip_prefix("-c").filter(|c| !c.is_empty()),
        };
        if let Some(kv) = config {
            // Past the limit the command still asks, as every `git -c` does.
            configs += 1;
            if configs <= MAX_CONFIG_COMMANDS {
                config_command(cx, i, span, kv);
                aliases.push(kv);
            }
        }
        k += if takes_value(t) && !t.contains('=') {
            2
        } else {
            1
        };
    }
    let rest = words.get(k..).unwrap_or(&[]);
    subcommand_commands(cx, i, span, rest);
    // `git -c alias.x=reset x --hard`: git runs the alias with the invocation's arguments
    // after it (`git reset --hard`; for a `!` alias, the shell command with them appended).
    if let Some(sub) = rest.first().and_then(|w| w.static_text())
        && rest[1..].iter().all(Word::is_static)
        && rest.len() > 1
    {
        let args: Vec<String> = rest[1..].iter().map(|w| quote(&w.text)).collect();
        for kv in &aliases {
            let Some((key, value)) = kv.split_once('=') else {
                continue;
            };
            if !key.eq_ignore_ascii_case(&format!("alias.{sub}")) {
                continue;
            }
            let text = match value.trim_start().strip_prefix('!') {
                Some(cmd) => format!("{cmd} {}", args.join(" ")),
                None => format!("git {value} {}", args.join(" ")),
            };
            cx.nested(
                i,
                span,
                "the alias `git -c` defines, with its arguments",
                &text,
            );
        }
    }
    // What earlier `git config` writes of the line make this command run: a shell alias
    // named like this subcommand, a program-running key for any subcommand.
    if let Some(sub) = rest.first().and_then(|w| w.static_text()) {
        for kv in earlier_config_writes(cx, i) {
            let alias = kv.split_once('=').and_then(|(key, _)| {
                key.to_ascii_lowercase()
                    .strip_prefix("alias.")
                    .map(str::to_string)
            });
            match alias {
                Some(name) if name != sub.to_ascii_lowercase() => {}
                _ => config_command(cx, i, span, &kv),
            }
        }
    }
    // `git config clean.requireForce false; git clean -dx`: the deny rules that read a
    // `git -c` value (`git -c clean.requireForce=false clean`) see what the line set.
    for kv in earlier_config_writes(cx, i) {
        config_rules(cx, i, span, &kv, words);
    }
    let word = |n: usize| rest.get(n).and_then(|w| w.static_text());
    match word(0) {
        Some("submodule") => {
            // `git submodule [--quiet] foreach [--recursive] CMD…`: CMD runs with `sh -c`.
            let mut n = 1;
            while matches!(word(n), Some("-q" | "--quiet")) {
                n += 1;
            }
            if word(n) != Some("foreach") {
                return;
            }
            n += 1;
            while matches!(word(n), Some("-q" | "--quiet" | "--recursive")) {
                n += 1;
            }
            if word(n) == Some("--") {
                n += 1;
            }
            let cmd = rest.get(n..).unwrap_or(&[]);
            if !cmd.is_empty() && cmd.iter().all(Word::is_static) {
                let text: Vec<&str> = cmd.iter().map(|w| w.text.as_str()).collect();
                cx.nested(
                    i,
                    span,
                    "the command `git submodule foreach` runs",
                    &text.join(" "),
                );
            }
        }
        // `git bisect run CMD ARGS…`: git quotes the words and runs them with the shell.
        Some("bisect") if word(1) == Some("run") => {
            if let Some(cmd) = rest.get(2..).filter(|c| !c.is_empty()) {
                cx.command(i, span, cmd, Origin::Tail);
            }
        }
        // `git rebase --exec CMD` / `-x CMD`: CMD runs with the shell after each commit.
        Some("rebase") => {
            for (n, w) in rest.iter().enumerate().skip(1) {
                let Some(t) = w.static_text() else {
                    continue;
                };
                let value = match t {
                    "-x" | "--exec" => rest.get(n + 1).and_then(|v| v.static_text()),
                    _ => t.strip_prefix("--exec=").or_else(|| {
                        t.strip_prefix("-x")
                            .filter(|v| !v.is_empty() && !t.starts_with("--"))
                    }),
                };
                if let Some(cmd) = value {
                    cx.nested(i, span, "the command `git rebase --exec` runs", cmd);
                }
            }
        }
        _ => {}
    }
}

/// `git -c KEY=VALUE`: a shell alias (`alias.x=!CMD`) and every key of `[git] program_keys`
/// (`core.fsmonitor`, `core.pager`, `diff.external`, …) hold a command git runs with the
/// shell; a plain alias (`alias.x=reset --hard`) holds git arguments.
pub(super) fn config_command(cx: &mut Ctx<'_>, i: usize, span: Span, kv: &str) {
    // `remote.o.url=ext::CMD`, `url.ext::CMD.insteadOf=o`: the remote's command.
    if let Some(cmd) = crate::check::git::ext_config_command(kv) {
        cx.nested(i, span, "the command an `ext::` remote runs", &cmd);
    }
    let Some((key, value)) = kv.split_once('=') else {
        return;
    };
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.').unwrap_or((key.as_str(), ""));
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    if section == "alias" {
        match value.trim_start().strip_prefix('!') {
            Some(cmd) => cx.nested(i, span, "the shell alias `git -c` defines", cmd),
            None => cx.nested(
                i,
                span,
                "the alias `git -c` defines",
                &format!("git {value}"),
            ),
        }
        return;
    }
    let runs = cx
        .list
        .git_keys
        .iter()
        .any(|p| p.matches(section, sub.is_some(), name));
    if runs && !value.trim().is_empty() {
        // `credential.helper=!CMD`: a leading `!` marks a shell command (without it, git runs
        // `git credential-VALUE`, read as it is).
        let value = match section {
            "credential" => value.trim_start().strip_prefix('!').unwrap_or(value),
            _ => value,
        };
        let what = format!("the command `git -c {key}` names");
        cx.nested(i, span, &what, value);
    }
}

/// A setting git reads for this command (an earlier `git config KEY VALUE` of the line, a
/// `GIT_CONFIG_KEY_N`/`GIT_CONFIG_VALUE_N` pair) as `git -c KEY=VALUE`: the deny rules are tried
/// on the command with that option in front, and one that matches only with it denies.
pub(super) fn config_rules(cx: &mut Ctx<'_>, i: usize, span: Span, kv: &str, words: &[Word]) {
    let Some(first) = words.first() else {
        return;
    };
    let list = cx.list;
    let mut argv = vec![
        first.clone(),
        static_word("-c", span),
        static_word(kv, span),
    ];
    argv.extend(words[1..].iter().cloned());
    let hit = super::rules_for(list, &["git"], false)
        .into_iter()
        .find(|r| {
            r.builtin.is_none() && rule_matches(list, r, &argv) && !rule_matches(list, r, words)
        });
    if let Some(rule) = hit {
        cx.deny(rule, span, Some(i));
    }
}

/// Options of git subcommands whose value is a command git runs with the shell: the
/// subcommands, the option's spellings (a short one takes the next word or the rest of its
/// word; a long one `=VALUE` or the next word).
const GIT_COMMAND_OPTIONS: &[(&[&str], &[&str])] = &[
    // `git difftool -x CMD`: CMD runs for each changed file.
    (&["difftool"], &["-x", "--extcmd"]),
    // The program run on the other side, which for a local remote is this machine.
    (
        &["fetch", "pull", "ls-remote", "clone", "archive"],
        &["--upload-pack", "--exec"],
    ),
    (&["clone", "ls-remote"], &["-u"]),
    (&["push", "send-pack"], &["--receive-pack", "--exec"]),
    (&["fetch-pack"], &["--upload-pack", "--exec"]),
];

/// Most option commands and `ext::` remotes of one git command read.
const MAX_GIT_COMMANDS: usize = 8;

/// `git difftool -x CMD`, `git fetch --upload-pack=CMD`, `git ls-remote 'ext::sh -c …'`: the
/// commands a git subcommand runs from its own arguments. `rest` starts at the subcommand.
fn subcommand_commands(cx: &mut Ctx<'_>, i: usize, span: Span, rest: &[Word]) {
    let Some(sub) = rest.first().and_then(|w| w.static_text()) else {
        return;
    };
    let options: Vec<&str> = GIT_COMMAND_OPTIONS
        .iter()
        .filter(|(subs, _)| subs.contains(&sub))
        .flat_map(|(_, opts)| opts.iter().copied())
        .collect();
    let mut found = 0;
    let mut k = 1;
    while let Some(w) = rest.get(k) {
        k += 1;
        let Some(t) = w.static_text() else {
            continue;
        };
        if t == "--" {
            break;
        }
        let value = options.iter().find_map(|o| {
            if t == *o {
                return rest.get(k).and_then(|v| v.static_text());
            }
            let attached = if o.starts_with("--") {
                // An abbreviated long option is accepted too (`--upload=CMD`).
                let (name, v) = t.split_once('=')?;
                (name.len() > 3 && o.starts_with(name)).then_some(v)?
            } else {
                t.strip_prefix(o)
                    .filter(|v| !v.is_empty() && !t.starts_with("--"))?
            };
            Some(attached)
        });
        if let Some(cmd) = value {
            found += 1;
            if found > MAX_GIT_COMMANDS {
                return;
            }
            let what = format!("the command `git {sub}` runs from `{t}`");
            cx.nested(i, span, &what, cmd);
            continue;
        }
        // `ext::CMD ARGS`: git-remote-ext runs CMD with ARGS (split at spaces, `% ` a space).
        if let Some(ext) = t.strip_prefix("ext::") {
            found += 1;
            if found > MAX_GIT_COMMANDS {
                return;
            }
            let words: Vec<String> = crate::check::git::ext_words(ext)
                .iter()
                .map(|w| quote(w))
                .collect();
            if !words.is_empty() {
                cx.nested(
                    i,
                    span,
                    "the command an `ext::` remote runs",
                    &words.join(" "),
                );
            }
        }
    }
}

/// Environment variables git runs as shell commands: `GIT_PAGER='rm -rf x' git log` is `git -c
/// core.pager='rm -rf x' log`.
const GIT_COMMAND_VARIABLES: &[&str] = &[
    "GIT_PAGER",
    "PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
];

/// The variables of a git command's environment that make git run a command — its prefix
/// assignments and what earlier `export`s of the line set (`export GIT_CONFIG_COUNT=1 …; git
/// clean -dx`): the variables above, and `GIT_CONFIG_KEY_N` / `GIT_CONFIG_VALUE_N` pairs read
/// like `git -c KEY=VALUE`.
pub(super) fn git_environment(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    assignments: &[Assignment],
    words: &[Word],
) {
    let mut names: Vec<String> = assignments.iter().map(|a| a.name.clone()).collect();
    for name in super::assigned::exported_names(cx, i) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let env: Vec<(String, String)> = names
        .into_iter()
        .filter_map(|n| {
            let v = super::assigned::environment(cx, i, &n, assignments)?;
            Some((n, v))
        })
        .collect();
    let value = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let mut configs = 0;
    for (name, v) in &env {
        if GIT_COMMAND_VARIABLES.contains(&name.as_str()) && !v.trim().is_empty() {
            let what = format!("the command `{name}` names for git");
            cx.nested(i, span, &what, v);
        } else if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_")
            && let Some(val) = value(&format!("GIT_CONFIG_VALUE_{n}"))
        {
            configs += 1;
            if configs <= MAX_CONFIG_COMMANDS {
                let kv = format!("{v}={val}");
                config_command(cx, i, span, &kv);
                config_rules(cx, i, span, &kv, words);
            }
        }
    }
}

/// Options of `git config` that take no value or that take the next word, before its key.
const CONFIG_FLAGS: &[&str] = &[
    "--local",
    "--global",
    "--system",
    "--worktree",
    "--add",
    "--replace-all",
    "--bool",
    "--int",
    "--path",
];
const CONFIG_VALUE_OPTIONS: &[&str] = &["-f", "--file", "--type", "--blob"];

/// Most earlier `git config` writes read for one git command.
const MAX_CONFIG_WRITES: usize = 8;

/// `git config alias.x '!rm -rf v' && git x`, `git config core.pager CMD; git log`: the keys
/// earlier git commands of the line set, as `KEY=VALUE`, to be read like `git -c KEY=VALUE`.
pub(super) fn earlier_config_writes(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let list = cx.list;
    let mut out = Vec::new();
    for s in cx.script.segments.iter().take(i) {
        let words = &s.words;
        if words
            .first()
            .and_then(|w| w.static_text())
            .map(program_name)
            .as_deref()
            != Some("git")
        {
            continue;
        }
        let rest = super::skip_globals(list, "git", &words[1..]);
        let word = |n: usize| rest.get(n).and_then(|w| w.static_text());
        if word(0) != Some("config") {
            continue;
        }
        let mut k = 1;
        if matches!(word(1), Some("set")) {
            k = 2;
        }
        while let Some(t) = word(k).filter(|t| t.starts_with('-')) {
            let bare = t.split_once('=').map_or(t, |(o, _)| o);
            if CONFIG_FLAGS.contains(&t)
                || (t.contains('=') && CONFIG_VALUE_OPTIONS.contains(&bare))
            {
                k += 1;
            } else if CONFIG_VALUE_OPTIONS.contains(&t) {
                k += 2;
            } else {
                break;
            }
        }
        if let (Some(key), Some(value)) = (word(k), word(k + 1))
            && !key.starts_with('-')
            && rest.len() == k + 2
        {
            out.push(format!("{key}={value}"));
            if out.len() >= MAX_CONFIG_WRITES {
                break;
            }
        }
    }
    out
}

/// Most commands of one `tar` read.
const MAX_TAR_COMMANDS: usize = 8;

/// GNU tar's options whose value is a command it runs with `/bin/sh -c`: the long spellings
/// (`=VALUE` or the next word) and the short ones (the rest of the word or the next word).
const TAR_COMMAND_LONG: &[&str] = &[
    "--to-command",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
];
const TAR_COMMAND_SHORT: &str = "IF";

/// Short tar options that take a value: in a bundle, the rest of the word (or the next word).
const TAR_SHORT_VALUES: &str = "fCTbgKLNVHX";

/// `tar --to-command=CMD`, `tar -I CMD`, `tar --checkpoint=1 --checkpoint-action=exec=CMD`:
/// GNU tar (1.35) runs these with `/bin/sh -c`; a denied one denies. A checkpoint action runs
/// only with `--checkpoint` on the line (without it, tar 1.35 made no checkpoint).
pub(super) fn tar(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let statics: Vec<Option<&str>> = words.iter().map(|w| w.static_text()).collect();
    let checkpoints = statics
        .iter()
        .flatten()
        .any(|t| *t == "--checkpoint" || t.starts_with("--checkpoint="));
    let mut commands: Vec<String> = Vec::new();
    let mut k = 1;
    while k < words.len() && commands.len() < MAX_TAR_COMMANDS {
        let Some(t) = statics[k] else {
            k += 1;
            continue;
        };
        let next = statics.get(k + 1).copied().flatten();
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let name = format!("--{name}");
            let takes = TAR_COMMAND_LONG.contains(&name.as_str()) || name == "--checkpoint-action";
            if !takes {
                k += 1;
                continue;
            }
            let value = value.or(next);
            k += if t.contains('=') { 1 } else { 2 };
            let Some(v) = value else {
                continue;
            };
            match name.as_str() {
                "--checkpoint-action" => {
                    if let Some(cmd) = v.strip_prefix("exec=").filter(|_| checkpoints) {
                        commands.push(cmd.to_string());
                    }
                }
                _ => commands.push(v.to_string()),
            }
            continue;
        }
        if let Some(bundle) = t.strip_prefix('-').filter(|b| !b.is_empty()) {
            let mut step = 1;
            for (n, c) in bundle.char_indices() {
                let rest = &bundle[n + c.len_utf8()..];
                if TAR_COMMAND_SHORT.contains(c) {
                    match rest {
                        "" => {
                            commands.extend(next.map(str::to_string));
                            step = 2;
                        }
                        r => commands.push(r.to_string()),
                    }
                    break;
                }
                if TAR_SHORT_VALUES.contains(c) {
                    step = if rest.is_empty() { 2 } else { 1 };
                    break;
                }
            }
            k += step;
            continue;
        }
        k += 1;
    }
    for cmd in commands {
        super::denies_in(cx, i, span, "the command `tar` runs", &cmd);
    }
}

/// A program that runs the command in its arguments: its name, the subcommand words that make
/// it do so, and the options (before the command) that take the next word as their value.
struct Runner {
    program: &'static str,
    sub: &'static [&'static str],
    value_options: &'static [&'static str],
}

/// Options of the Python runners that take a value.
const UV_VALUES: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "-p",
    "--python",
    "--package",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--env-file",
    "--directory",
    "--project",
    "--from",
    "--index",
    "--default-index",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-C",
    "--config-setting",
    "--cache-dir",
    "--config-file",
    "--color",
];

/// Options of the node package runners that take a value (`-c` / `--call` is a script: read
/// apart).
const NODE_VALUES: &[&str] = &[
    "-p",
    "--package",
    "--cache",
    "--registry",
    "--userconfig",
    "-w",
    "--workspace",
    "-C",
    "--dir",
    "--reporter",
];

const RUNNERS: &[Runner] = &[
    Runner {
        program: "npx",
        sub: &[],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "npm",
        sub: &["exec"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "npm",
        sub: &["x"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "pnpm",
        sub: &["dlx"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "pnpm",
        sub: &["exec"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "bunx",
        sub: &[],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "bun",
        sub: &["x"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "yarn",
        sub: &["dlx"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "yarn",
        sub: &["exec"],
        value_options: NODE_VALUES,
    },
    Runner {
        program: "uv",
        sub: &["run"],
        value_options: UV_VALUES,
    },
    Runner {
        program: "uv",
        sub: &["tool", "run"],
        value_options: UV_VALUES,
    },
    Runner {
        program: "uvx",
        sub: &[],
        value_options: UV_VALUES,
    },
    Runner {
        program: "poetry",
        sub: &["run"],
        value_options: &["-C", "--directory", "-P", "--project"],
    },
    Runner {
        program: "pipenv",
        sub: &["run"],
        value_options: &["--python"],
    },
    Runner {
        program: "pdm",
        sub: &["run"],
        value_options: &["-p", "--project", "--venv"],
    },
    Runner {
        program: "hatch",
        sub: &["run"],
        value_options: &["-e", "--env", "-p", "--project"],
    },
    Runner {
        program: "conda",
        sub: &["run"],
        value_options: &["-n", "--name", "-p", "--prefix", "--cwd"],
    },
    Runner {
        program: "mamba",
        sub: &["run"],
        value_options: &["-n", "--name", "-p", "--prefix", "--cwd"],
    },
    Runner {
        program: "pixi",
        sub: &["run"],
        value_options: &["-e", "--environment", "--manifest-path"],
    },
    Runner {
        program: "rye",
        sub: &["run"],
        value_options: &["--pyproject"],
    },
    Runner {
        program: "micromamba",
        sub: &["run"],
        value_options: &["-n", "--name", "-p", "--prefix", "--cwd"],
    },
];

/// npm packages that delete the paths they are given, recursively: read as `rm -rf PATHS`.
const DELETER_PACKAGES: &[&str] = &["rimraf", "del-cli", "del", "trash-cli", "trash"];

/// `npx -y rimraf ~`, `uv run python -c "…"`: the command a package runner runs is checked
/// like any other (so a denied one denies); a deleting package is read as `rm -rf` of its
/// operands. `rimraf DIR` run directly is read the same way.
pub(super) fn runner(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str, words: &[Word]) {
    if program == "rimraf" || program == "del-cli" {
        deleter(cx, i, span, words);
        return;
    }
    let word = |n: usize| words.get(n).and_then(|w| w.static_text());
    // `yarn node -e CODE`: yarn runs node with the rest of the words.
    if program == "yarn" && word(1) == Some("node") {
        cx.command(i, span, &words[1..], Origin::Wrapped);
        return;
    }
    for r in RUNNERS.iter().filter(|r| r.program == program) {
        // Options before the subcommand (`hatch -e test run`, `poetry -C dir run`).
        let mut k = 1;
        if !r.sub.is_empty() {
            while let Some(t) = word(k).filter(|t| t.starts_with('-')) {
                k += if r.value_options.contains(&t) { 2 } else { 1 };
            }
            if !r
                .sub
                .iter()
                .enumerate()
                .all(|(n, s)| word(k + n) == Some(*s))
            {
                continue;
            }
            k += r.sub.len();
        }
        let mut shell_mode = false;
        while let Some(t) = word(k).filter(|t| t.starts_with('-')) {
            if t == "--" {
                k += 1;
                break;
            }
            // `npx -c 'CMD'`, `npm exec --call=CMD`: a shell command line.
            let call = match t {
                "-c" | "--call" if matches!(program, "npx" | "npm") => word(k + 1),
                _ => t.strip_prefix("--call="),
            };
            if let Some(script) = call {
                cx.nested(i, span, &format!("the command `{program}` runs"), script);
                return;
            }
            // `pnpm dlx -c CMD…`: the words are one shell command line.
            shell_mode |= program == "pnpm" && matches!(t, "-c" | "--shell-mode");
            let value = r.value_options.contains(&t) && !t.contains('=');
            k += if value { 2 } else { 1 };
        }
        let Some(inner) = words.get(k..).filter(|w| !w.is_empty()) else {
            return;
        };
        if shell_mode {
            if inner.iter().all(Word::is_static) {
                let text: Vec<&str> = inner.iter().map(|w| w.text.as_str()).collect();
                cx.nested(
                    i,
                    span,
                    &format!("the command `{program}` runs"),
                    &text.join(" "),
                );
            }
            return;
        }
        // `hatch run test:pytest`: an environment before the command.
        let mut inner = inner.to_vec();
        if program == "hatch"
            && let Some((_, cmd)) = inner[0].static_text().and_then(|t| t.split_once(':'))
        {
            inner[0] = static_word(cmd, inner[0].span);
        }
        let package = inner[0].static_text().map(package_name);
        if package.is_some_and(|p| DELETER_PACKAGES.contains(&p)) {
            deleter(cx, i, span, &inner);
        } else if package == Some("shx") && inner.len() > 1 {
            // `npx shx rm -rf v`: ShellJS's command line runs its commands as the shell's.
            cx.command(i, span, &inner[1..], Origin::Wrapped);
        } else {
            cx.command(i, span, &inner, Origin::Wrapped);
        }
        return;
    }
}

/// `rimraf@5`, `@scope/pkg@1` → `rimraf`, `@scope/pkg`.
fn package_name(spec: &str) -> &str {
    match spec.get(1..).and_then(|s| s.find('@')) {
        Some(at) => &spec[..at + 1],
        None => spec,
    }
}

/// A deleting package's command read as `rm -rf` of its operands, against the deny rules.
fn deleter(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let args = &words[1..];
    if args
        .iter()
        .any(|w| matches!(w.static_text(), Some("-h" | "--help" | "--version")))
    {
        return;
    }
    let mut argv = vec![static_word("rm", span), static_word("-rf", span)];
    argv.extend(
        args.iter()
            .filter(|w| !w.static_text().is_some_and(|t| t.starts_with('-')))
            .cloned(),
    );
    if let Some(rule) = list
        .deny
        .iter()
        .find(|r| r.builtin.is_none() && rule_matches(list, r, &argv))
    {
        cx.deny(rule, span, Some(i));
    }
}

#[cfg(test)]
mod tests {
    use super::package_name;
    use crate::check::git::ext_words;

    #[test]
    fn ext_remotes_split_as_git_remote_ext_splits_them() {
        for (spec, words) in [
            ("sh -c rm% -rf% v", vec!["sh", "-c", "rm -rf v"]),
            ("cmd  a%%b", vec!["cmd", "a%b"]),
            (
                "ssh %G host %S",
                vec!["ssh", "x", "host", "git-upload-pack"],
            ),
            ("trailing%", vec!["trailingx"]),
            ("", vec![]),
        ] {
            assert_eq!(ext_words(spec), words, "{spec}");
        }
    }

    #[test]
    fn package_specs_lose_their_version() {
        for (spec, name) in [
            ("rimraf", "rimraf"),
            ("rimraf@5", "rimraf"),
            ("rimraf@latest", "rimraf"),
            ("@scope/pkg", "@scope/pkg"),
            ("@scope/pkg@1.2", "@scope/pkg"),
            ("@", "@"),
            ("", ""),
        ] {
            assert_eq!(package_name(spec), name, "{spec}");
        }
    }
}

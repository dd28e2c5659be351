//! check/deny: applies `[[deny]]` rules — to every command cmdguard sees (segments, wrapped
//! commands, nested scripts), to redirection targets, to structural patterns (fork bombs,
//! downloads piped into interpreters) and, only when a command cannot be fully parsed, to its raw
//! text. A word that merely mentions a destructive command is not denied, but an unquoted one asks.
//!
//! Deny rules see what bash would run, so they also look through what hides a command from the
//! other stages: `watch`'s shell string, GNU sed's `e`, a shell option cmdguard does not follow
//! before `-c`, a default expansion (`${X:--delete}`), a brace-built command word
//! (`{rm,-rf,/}`), Windows spellings (`C:\…\git.exe`). It never allows anything; it leaves out
//! what bash would not run — a shell given `-n` only reads its script — and `rm` of a path this
//! line proved `mktemp` made (see `assigned::fresh_temp_dir`), which asks.

mod alias;
mod assigned;
mod clients;
mod feed;
mod fetched;
mod forever;
mod gitundo;
mod hostmount;
mod infra;
mod multicall;
mod nested;
mod positional;
mod runs;
mod sql;
mod sysfiles;
mod typed;

pub(crate) use self::feed::{input_texts, operand_text, piped_text};

/// See [`assigned::word_text`]: a run-time word as the text a later run reads.
pub(crate) fn word_text(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<String> {
    assigned::word_text(cx, i, w)
}

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::sed_script::{SedDialect, check_sed_script};
use super::{Arg, Ctx, DOWNLOADERS, INTERPRETERS, Origin, inside, names, parse_args};
use crate::allowlist::{Allowlist, Builtin, DenyRule};
use crate::finding::{Code, Span};
use crate::segment::{Event, Expansions, Joiner, Nest, Redirect, RedirectOp, Segment, Word};

impl Ctx<'_> {
    /// Reports a matched deny rule.
    fn deny(&mut self, rule: &DenyRule, span: Span, seg: Option<usize>) {
        let message = format!("{} (rule `{}`)", rule.reason, rule.id);
        self.push_rule(Code::Denied, span, seg, message, &rule.id);
    }
}

/// Strips a directory from a program path (`/bin/rm`, `./rm`); [`program_name`] also strips
/// Windows spellings.
pub(crate) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// The name deny rules compare a program word by: without its directory (`/bin/rm`, `./rm`,
/// `C:\Git\bin\git.exe`) and without a Windows `.exe` suffix, lower-cased (Windows finds
/// `GIT.EXE` for `git`, and macOS's case-insensitive file system `/bin/RM` for `RM`).
pub(crate) fn program_name(s: &str) -> Cow<'_, str> {
    let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
    let n = base.len();
    match base.get(n.saturating_sub(4)..) {
        Some(ext) if n > 4 && ext.eq_ignore_ascii_case(".exe") => {
            Cow::Owned(base[..n - 4].to_ascii_lowercase())
        }
        // macOS's default file system ignores case: bash finds `/bin/rm` for `RM`.
        _ if base.bytes().any(|b| b.is_ascii_uppercase()) => Cow::Owned(base.to_ascii_lowercase()),
        _ => Cow::Borrowed(base),
    }
}

/// A rule's command word against a word: equal, or for a pattern ending in `*` a prefix; a
/// subcommand word may list alternatives with `|` (`aws eks|ecs delete-cluster`).
fn word_matches(pattern: &str, name: &str) -> bool {
    pattern.split('|').any(|alt| match alt.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => alt == name,
    })
}

/// Skips a program's global options (`git -C dir -c k=v push` → `push …`).
fn skip_globals<'w>(list: &Allowlist, program: &str, words: &'w [Word]) -> &'w [Word] {
    let Some(p) = list.programs.get(program) else {
        return words;
    };
    let mut i = 0;
    while let Some(t) = words.get(i).and_then(|w| w.static_text()) {
        let name = t.split_once('=').map(|(n, _)| n).unwrap_or(t);
        // A flag given a value in its own word (`--user-output-enabled=false`) is one word.
        // A flag ending in `*` is a prefix (cargo's `+toolchain`, read by rustup's proxy).
        let flag = |f: &String| {
            f == t
                || (t.contains('=') && f == name)
                || f.strip_suffix('*')
                    .is_some_and(|p| !p.is_empty() && t.starts_with(p))
        };
        if p.flags.iter().any(flag) || p.harmless.iter().any(flag) {
            i += 1;
        } else if p.value_options.iter().any(|v| v == name) {
            i += if t.contains('=') { 1 } else { 2 };
        } else if t.starts_with("-c") && p.value_options.iter().any(|v| v == "-c") && t.len() > 2 {
            i += 1;
        } else {
            break;
        }
    }
    words.get(i..).unwrap_or(&[])
}

/// True when the rule's command, options and operands all match `words`.
pub(crate) fn rule_matches(list: &Allowlist, rule: &DenyRule, words: &[Word]) -> bool {
    let Some(cmd) = &rule.command else {
        return false;
    };
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return false;
    };
    let name = program_name(first);
    if !cmd.first().is_some_and(|p| word_matches(p, &name)) {
        return false;
    }
    let rest = &words[1..];
    if shouted_options(first, rest) {
        return false;
    }
    if cmd.len() == 1 {
        // `redis-cli -h prod --tls FLUSHDB`: the program's declared global options (its
        // `[[program]]` table) read as declared, besides the rule's own reading.
        return rest_matches(rule, rest) || {
            let past = skip_globals(list, &name, rest);
            past.len() < rest.len() && rest_matches(rule, past)
        };
    }
    let mut found = false;
    subcommand_rests(
        list,
        &name,
        rest,
        &cmd[1..],
        MAX_UNKNOWN_OPTIONS,
        &mut |r| {
            found = found || rest_matches(rule, r);
        },
    );
    found
}

/// `RM -RF V`: a program found only because the file system ignores case (see
/// [`program_name`]) still reads its options with case, and an upper-case option it does not
/// take stops it (BSD rm: "illegal option -- F"). Rules are not matched on such a line when an
/// option word holds an upper-case letter.
fn shouted_options(program: &str, rest: &[Word]) -> bool {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let folded = base.bytes().any(|b| b.is_ascii_uppercase());
    folded
        && rest.iter().any(|w| {
            w.static_text()
                .is_some_and(|t| t.starts_with('-') && t.bytes().any(|b| b.is_ascii_uppercase()))
        })
}

/// Most options a program does not declare that one reading of a command's subcommand words
/// steps over (each is read both as a flag and as an option with a value).
const MAX_UNKNOWN_OPTIONS: usize = 4;

/// Each reading of `words` (a command's words after the program) that spells the subcommand
/// words `want`, called with what follows them. The CLIs of the cloud packs take their global
/// options before and between subcommand words (`gcloud compute --project=p instances delete`,
/// `aws s3 --profile p rb`); the program's declared options are stepped over as declared, and
/// an option it does not declare both as a flag and as an option with a value (its next word),
/// since either may be how the program reads it: a deny rule that matches in any reading
/// denies.
fn subcommand_rests<'w>(
    list: &Allowlist,
    program: &str,
    words: &'w [Word],
    want: &[String],
    unknown: usize,
    found: &mut dyn FnMut(&'w [Word]),
) {
    let words = skip_globals(list, program, words);
    let Some((first, more)) = want.split_first() else {
        found(words);
        return;
    };
    let Some(t) = words.first().and_then(|w| w.static_text()) else {
        return;
    };
    if word_matches(first, t) {
        subcommand_rests(list, program, &words[1..], more, unknown, found);
    } else if unknown > 0 && t.starts_with('-') && t != "-" && t != "--" {
        subcommand_rests(list, program, &words[1..], want, unknown - 1, found);
        if !t.contains('=') && words.len() > 2 {
            subcommand_rests(list, program, &words[2..], want, unknown - 1, found);
        }
    }
}

/// The rule's options and operands against the words after its command words.
fn rest_matches(rule: &DenyRule, rest: &[Word]) -> bool {
    let parsed = parse_args(rest, &rule.spec);
    let has = |opts: &[String]| {
        parsed
            .iter()
            .any(|a| matches!(a, Arg::Opt { name, .. } if opts.iter().any(|o| names(name, o))))
    };
    if !rule.any_option.is_empty() && !has(&rule.any_option) {
        return false;
    }
    if !rule.all_options.iter().all(|g| has(g)) {
        return false;
    }
    // An abbreviation that also names an option the rule looks for is that option, not the
    // sparing one: git reads `git reset --h` as `--hard` (its `--help` must be spelled out).
    let wanted = |name: &str| {
        rule.any_option
            .iter()
            .chain(rule.all_options.iter().flatten())
            .any(|o| names(name, o))
    };
    // `--dry-run=client`: an option that spares the command only with this value; `--dry-run=`
    // only when given no value (kubectl's bare `--dry-run`, not `--dry-run=none`).
    let spares = |o: &String| match o.split_once('=') {
        Some((opt, "")) => parsed
            .iter()
            .any(|a| matches!(a, Arg::Opt { name, value: None, .. } if name == opt)),
        Some((opt, val)) => parsed.iter().any(
            |a| matches!(a, Arg::Opt { name, value: Some(v), .. } if names(name, opt) && *v == val),
        ),
        None => parsed.iter().any(|a| {
            matches!(a, Arg::Opt { name, .. }
                if names(name, o) && (*name == o.as_str() || !wanted(name)))
        }),
    };
    if rule.no_option.iter().any(spares) {
        return false;
    }
    // A run-time word may be an operand: counted as one, since a rule that matches denies.
    let operand_words = || {
        parsed.iter().filter_map(|a| match a {
            Arg::Operand { word, .. } | Arg::Dynamic { word } => Some(*word),
            Arg::Opt { .. } | Arg::Refused { .. } => None,
        })
    };
    if rule
        .min_operands
        .is_some_and(|n| operand_words().count() < n)
    {
        return false;
    }
    if rule.operand_after_double_dash {
        let Some(dd) = rest.iter().position(|w| w.static_text() == Some("--")) else {
            return false;
        };
        if !operand_words().any(|w| w > dd) {
            return false;
        }
    }
    if !rule.value_of.is_empty() {
        let named = |n: &str| rule.value_of.iter().any(|o| names(n, o));
        let bad = |v: &str| rule.any_value.iter().any(|r| r.is_match(v));
        let hit = parsed.iter().any(|a| match a {
            Arg::Opt {
                name,
                value: Some(v),
                ..
            } => named(name) && bad(v),
            // `-replace=ADDR` read in the `words` style (Go's flag package): one word.
            Arg::Opt {
                name, value: None, ..
            } => name
                .split_once('=')
                .is_some_and(|(n, v)| named(n) && bad(v)),
            // `--basetemp=$HOME`: a run-time word, matched on its source text.
            Arg::Dynamic { word } => rest[*word]
                .text
                .split_once('=')
                .is_some_and(|(n, v)| n.starts_with("--") && named(n) && bad(v)),
            Arg::Operand { .. } | Arg::Refused { .. } => false,
        });
        if !hit {
            return false;
        }
    }
    // `redis-cli FLUSHALL`: the first operand only (`redis-cli GET flushall` reads a key).
    if !rule.first_operand.is_empty() {
        let first = parsed.iter().find_map(|a| match a {
            Arg::Operand { text, .. } => Some(text.to_string()),
            Arg::Dynamic { word } => Some(rest[*word].text.clone()),
            Arg::Opt { .. } | Arg::Refused { .. } => None,
        });
        if !first.is_some_and(|t| rule.first_operand.iter().any(|r| r.is_match(&t))) {
            return false;
        }
    }
    // `aws eks delete-cluster help` prints help: an operand that spares the command.
    if !rule.no_operand.is_empty() {
        let spared = parsed.iter().any(|a| match a {
            Arg::Operand { text, .. } => rule.no_operand.iter().any(|r| r.is_match(text)),
            Arg::Dynamic { .. } | Arg::Opt { .. } | Arg::Refused { .. } => false,
        });
        if spared {
            return false;
        }
    }
    if !rule.any_operand.is_empty() {
        let hit = parsed.iter().any(|a| match a {
            Arg::Operand { text, .. } => rule.any_operand.iter().any(|r| r.is_match(text)),
            // A run-time word is matched on its source text (`$HOME`), unless `no_operand`
            // spares that word itself (`$(docker images -q -f dangling=true)`).
            Arg::Dynamic { word } => {
                let text = &rest[*word].text;
                rule.any_operand.iter().any(|r| r.is_match(text))
                    && !rule.no_operand.iter().any(|r| r.is_match(text))
            }
            Arg::Opt { .. } | Arg::Refused { .. } => false,
        });
        if !hit {
            return false;
        }
    }
    true
}

/// The deny rules by the program their command starts with, so that a command meets only the
/// rules that can match it instead of every rule of every pack. Built once per allowlist (see
/// [`Allowlist::deny_index`]); a rule's first command word is either a name compared whole or
/// a prefix ending in `*`, and a builtin rule is judged by code, so those two kinds are kept in
/// small lists every command meets.
#[derive(Debug, Clone, Default)]
pub(crate) struct DenyIndex {
    /// How many rules the allowlist held when this was built: a different count means the
    /// index is stale, and every rule is tried.
    rules: usize,
    /// Rules whose command starts with this exact name, in the allowlist's order.
    by_name: HashMap<Box<str>, Vec<u32>>,
    /// Rules whose command starts with a `*` prefix.
    by_prefix: Vec<u32>,
    /// Rules with a `builtin`.
    builtin: Vec<u32>,
}

impl DenyIndex {
    fn build(rules: &[DenyRule]) -> DenyIndex {
        let mut index = DenyIndex {
            rules: rules.len(),
            ..DenyIndex::default()
        };
        for (k, rule) in rules.iter().enumerate() {
            let Ok(k) = u32::try_from(k) else {
                // Past u32::MAX rules the index gives up: `rules` no longer matches what it
                // holds, so every lookup tries every rule.
                index.rules = usize::MAX;
                break;
            };
            if rule.builtin.is_some() {
                index.builtin.push(k);
            }
            match rule.command.as_ref().and_then(|c| c.first()) {
                Some(p) if p.split('|').any(|alt| alt.ends_with('*')) => index.by_prefix.push(k),
                // `serverless|sls remove`: the rule under each name.
                Some(p) => {
                    for alt in p.split('|') {
                        index.by_name.entry(alt.into()).or_default().push(k);
                    }
                }
                None => {}
            }
        }
        index
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the tests that prove the index changes nothing: every rule is tried.
    static UNINDEXED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The rules that can match a command whose program word is one of `programs` (each as
/// [`program_name`] gives it), in the allowlist's order; with `builtins`, the builtin rules
/// too. Every other rule's [`rule_matches`] is false for such a command, so trying only these
/// finds exactly what trying every rule finds.
fn rules_for<'l>(list: &'l Allowlist, programs: &[&str], builtins: bool) -> Vec<&'l DenyRule> {
    let index = list.deny_index.get_or_init(|| DenyIndex::build(&list.deny));
    #[cfg(test)]
    let unindexed = UNINDEXED.with(std::cell::Cell::get);
    #[cfg(not(test))]
    let unindexed = false;
    if unindexed || index.rules != list.deny.len() {
        return list.deny.iter().collect();
    }
    let mut picked: Vec<u32> = Vec::new();
    if builtins {
        picked.extend_from_slice(&index.builtin);
    }
    for name in programs {
        if let Some(ks) = index.by_name.get(*name) {
            picked.extend_from_slice(ks);
        }
    }
    for &k in &index.by_prefix {
        let first = list.deny[k as usize]
            .command
            .as_ref()
            .and_then(|c| c.first());
        if first.is_some_and(|p| programs.iter().any(|n| word_matches(p, n))) {
            picked.push(k);
        }
    }
    picked.sort_unstable();
    picked.dedup();
    picked.iter().map(|&k| &list.deny[k as usize]).collect()
}

/// The program name of a command's words, when its first word is static text.
fn first_program(words: &[Word]) -> Option<Cow<'_, str>> {
    words
        .first()
        .and_then(|w| w.static_text())
        .map(program_name)
}

/// Most arguments of one command read as a possible denied command (the mention check).
const MAX_MENTIONS: usize = 16;

/// Deny rules on one command, then the mention check on its unquoted arguments.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word], origin: Origin<'_>) {
    let list = cx.list;
    let defaults = with_defaults(words);
    let mut denied = false;
    let own = first_program(words);
    let defaulted = defaults.as_deref().and_then(first_program);
    let programs: Vec<&str> = own.iter().chain(&defaulted).map(|p| p.as_ref()).collect();
    // `tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT`: removing a directory this line made.
    let fresh = removes_fresh_temp_dirs(cx, i, words);
    for rule in rules_for(list, &programs, true) {
        if fresh && rule.builtin.is_none() {
            continue;
        }
        let hit = match rule.builtin {
            None => {
                rule_matches(list, rule, words)
                    || defaults
                        .as_deref()
                        .is_some_and(|d| rule_matches(list, rule, d))
            }
            Some(Builtin::DestructiveSql) => {
                destructive_sql(cx, i, words)
                    || defaults
                        .as_deref()
                        .is_some_and(|d| destructive_sql(cx, i, d))
            }
            Some(Builtin::XargsDelete) => xargs_deletes(words),
            Some(Builtin::ForkBomb | Builtin::DownloadToInterpreter) => false,
        };
        if hit {
            denied = true;
            cx.deny(rule, span, Some(i));
        }
    }
    // `c='rm -rf v'; bash -c "$c"`: the words with the values the line gives them.
    if !denied {
        assigned::command(cx, i, span, words);
        // `f() { "$@"; }; f rm -rf v`, `set -- rm -rf v; "$@"`.
        positional::command(cx, i, span, words);
        // `shopt -s expand_aliases⏎alias x='rm -rf'⏎x v`.
        alias::expanded(cx, i, span, words);
    }
    // `echo 'rm -rf v' > s.sh; ./s.sh`: a script this line wrote, run by its path.
    if let Some(path) = words
        .first()
        .and_then(|w| w.static_text())
        .filter(|t| t.contains('/'))
        && let Some(text) = feed::written_text(cx, i, path)
    {
        denies_in(
            cx,
            i,
            span,
            "the script this command line wrote and runs",
            &text,
        );
    }
    // `cp x.img /dev/sda`, `tee /proc/sysrq-trigger`, `kill -9 -1`: writes and signals the
    // pack rules judge.
    sysfiles::command(cx, i, span, words);
    // `git config alias.x reset; git x --hard`, `git diff | git apply -R`, …: git doing what a
    // denied git command does.
    gitundo::command(cx, i, span, words);
    // `docker run -v /:/host alpine rm -rf /host/home`: a container on the host's files.
    hostmount::command(cx, i, span, words);
    let program = words
        .first()
        .and_then(|w| w.static_text())
        .map(program_name);
    // `ssh host rm -rf v`, `strace rm -rf v`, `docker exec c rm -rf v`: a command run
    // elsewhere or under a tool.
    if let Some(p) = program.as_deref() {
        runs::command_runner(cx, i, span, p, words);
    }
    // `kubectl get all -o yaml | kubectl delete -f -` (kubectl's own arm, if any, still runs).
    if let Some(p @ ("kubectl" | "oc")) = program.as_deref() {
        infra::kubectl_deletes_listing(cx, i, span, p, words);
    }
    match program.as_deref() {
        Some("watch") => watch(cx, i, span, words),
        Some("redis-cli" | "valkey-cli" | "keydb-cli") => feed::redis_input(cx, i, span, words),
        Some("xargs") => {
            feed::xargs_fed(cx, i, span, words);
            feed::xargs_replaced(cx, i, span, words);
            feed::xargs_fed_words(cx, i, span, words);
        }
        Some("git") => {
            nested::git(cx, i, span, words);
            if let Some(seg) = origin.segment() {
                nested::git_environment(cx, i, span, &seg.assignments, words);
                for kv in super::git::environment_configs(words, &seg.assignments) {
                    nested::config_command(cx, i, span, &kv);
                    nested::config_rules(cx, i, span, &kv, words);
                }
            }
        }
        Some(p @ ("terraform" | "tofu")) => {
            if let Some(seg) = origin.segment() {
                terraform_cli_args(cx, i, span, p, &seg.assignments, words);
            }
            infra::terraform_saved_plan(cx, i, span, p, words);
        }
        Some(
            p @ ("busybox" | "toybox" | "coreutils" | "k3s" | "microk8s" | "microk8s.kubectl"
            | "minikube"),
        ) => {
            multicall::applet(cx, i, span, p, words);
        }
        Some("fd" | "fdfind") => multicall::fd_exec(cx, i, span, words),
        Some("gh") => alias::gh(cx, i, span, words),
        Some("rsync") => multicall::rsync(cx, i, span, words),
        Some("tar" | "gtar") => nested::tar(cx, i, span, words),
        Some(p) if matches!(p, "awk" | "gawk") || super::awk::OTHER_AWKS.contains(&p) => {
            super::awk::fed_commands(cx, i, span, words);
            if super::awk::OTHER_AWKS.contains(&p) {
                super::awk::other_awk(cx, i, words);
            }
        }
        Some(p) if super::interp::language(p) == Some(super::interp::Lang::Perl) => {
            feed::perl_runs_input(cx, i, span, words);
        }
        Some("at" | "batch") => feed::at_job(cx, i, span, words),
        Some("crontab") => feed::crontab(cx, i, span, words),
        Some("runuser") => {
            runs::runuser_user(cx, i, span, words);
            multicall::session(cx, i, span, "runuser", words);
        }
        Some(p @ ("su" | "script" | "tmux" | "screen")) => {
            multicall::session(cx, i, span, p, words);
        }
        Some("parallel") => multicall::parallel(cx, i, span, words),
        Some(p) if multicall::OTHER_SHELLS.contains(&p) => {
            multicall::other_shell(cx, i, span, words);
        }
        Some(p) if multicall::exec_wrapper(cx, i, span, p, words) => {}
        Some(p) => nested::runner(cx, i, span, p, words),
        None => {}
    }
    // `LESSOPEN='|CMD %s' less f`: whatever pages through less runs the preprocessor.
    if let Some(seg) = origin.segment() {
        for cmd in super::git::less_commands(&seg.assignments) {
            cx.nested(i, span, "the command `LESSOPEN` makes less run", &cmd);
        }
    }
    feed::client_shell_commands(cx, i, span, words);
    if matches!(origin, Origin::Tail) {
        return;
    }
    // `echo rm -rf /`: the words after the program, read as a command, would be denied. Not
    // an execution, but an agent that prints a destructive command is worth a look. Each
    // reading costs the rest of the line, so only words that name a denied program are read,
    // and only the first few of them: more (`echo rm rm rm …`) ask rather than take time
    // quadratic in the line.
    let mut candidates = 0;
    for k in 1..words.len() {
        let tail = &words[k..];
        let Some(t) = tail[0].static_text().filter(|_| !tail[0].quoted) else {
            continue;
        };
        if !names_denied_program(list, t) {
            continue;
        }
        candidates += 1;
        if candidates > MAX_MENTIONS {
            cx.push(
                Code::Mention,
                tail[0].span,
                Some(i),
                format!(
                    "the arguments name denied programs more than {MAX_MENTIONS} times (`{t}`); cmdguard does not read each as a command"
                ),
            );
            break;
        }
        let name = program_name(t);
        let rules = rules_for(list, &[name.as_ref()], false);
        if let Some(rule) = rules.into_iter().find(|r| rule_matches(list, r, tail)) {
            cx.push_rule(
                Code::Mention,
                tail[0].span,
                Some(i),
                format!(
                    "the arguments `{}` spell a denied command: {}",
                    tail[0].text, rule.reason
                ),
                &rule.id,
            );
            break;
        }
    }
}

/// `rm -rf "$tmp"` where every operand is a directory `mktemp -d` made on this line (see
/// [`assigned::fresh_temp_dir`]): the deny rules on `rm` do not apply; it still asks.
fn removes_fresh_temp_dirs(cx: &Ctx<'_>, i: usize, words: &[Word]) -> bool {
    if first_program(words).as_deref() != Some("rm") {
        return false;
    }
    let mut operands = 0;
    for w in &words[1..] {
        match w.static_text() {
            Some("--no-preserve-root") => return false,
            Some(t) if t.starts_with('-') => {}
            _ if assigned::fresh_temp_dir(cx, i, w) => operands += 1,
            _ => return false,
        }
    }
    operands > 0
}

/// `trap 'rm -rf "$tmp"' EXIT` in segment `i`: the lines that give the action's fresh
/// temp-dir variables their `mktemp -d` values, to read the action with.
pub(super) fn temp_dir_prelude(cx: &Ctx<'_>, i: usize, action: &str) -> String {
    assigned::temp_dir_prelude(cx, i, action)
}

/// Whether `word`, as a program name, starts some deny rule's command.
fn names_denied_program(list: &Allowlist, word: &str) -> bool {
    let name = program_name(word);
    rules_for(list, &[name.as_ref()], false)
        .into_iter()
        .any(|r| {
            r.command
                .as_ref()
                .and_then(|c| c.first())
                .is_some_and(|p| word_matches(p, &name))
        })
}

/// `bash -c '"$@"' _ rm -rf v`, `c='rm -rf v' bash -c '$c'`: the script a shell runs, read
/// again with the positional parameters (`$0` is `name`, then `args`) and environment (`own`,
/// the command's assignments, and literals exported before it) the line gives it; a deny
/// found there denies.
pub(super) fn shell_arguments(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    script: &str,
    name: Option<&Word>,
    args: &[Word],
    own: &[crate::segment::Assignment],
) {
    assigned::shell_script(cx, i, span, script, name, args, own);
}

/// `c='rm -rf v'; bash <<< "$c"`: a run-time script whose value the line spells out (see
/// [`assigned::value_of`]) is read, and a deny found there denies.
pub(super) fn spelled_out_script(cx: &mut Ctx<'_>, i: usize, span: Span, what: &str, w: &Word) {
    if let Some(values) = assigned::value_of(cx, i, w) {
        denies_in(cx, i, span, what, &values.join(" "));
    }
}

/// Non-option words a wrapper may take before its command: the value of an option cmdguard
/// does not know, and an operand (`timeout`'s duration, `flock`'s lock file).
const WRAPPER_LEADING_WORDS: usize = 3;

/// A wrapper whose options cmdguard cannot follow (`env --ignore-signal rm -rf x`, `sudo -X rm
/// …`): the command asks, and each of its first few non-option words that names a denied
/// program is read as the start of the command it may run, so that a denied one denies.
pub(super) fn past_unknown_option(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let list = cx.list;
    let mut candidates = 0;
    let mut plain = 0;
    for k in 1..words.len() {
        let tail = &words[k..];
        let Some(t) = tail[0].static_text() else {
            plain += 1;
            continue;
        };
        if t.starts_with('-') && t.len() > 1 {
            continue;
        }
        plain += 1;
        if plain > WRAPPER_LEADING_WORDS {
            return;
        }
        if !names_denied_program(list, t) {
            continue;
        }
        candidates += 1;
        if candidates > MAX_MENTIONS {
            return;
        }
        let defaults = with_defaults(tail);
        let own = first_program(tail);
        let defaulted = defaults.as_deref().and_then(first_program);
        let programs: Vec<&str> = own.iter().chain(&defaulted).map(|p| p.as_ref()).collect();
        let hit = rules_for(list, &programs, false).into_iter().find(|r| {
            r.builtin.is_none()
                && (rule_matches(list, r, tail)
                    || defaults
                        .as_deref()
                        .is_some_and(|d| rule_matches(list, r, d)))
        });
        if let Some(rule) = hit {
            cx.deny(rule, span, Some(i));
            return;
        }
    }
}

/// Redirections into block devices and the like, and `>` over a system file (see
/// [`sysfiles::writes`]). A redirection that only reads (`< /dev/sda`) writes nothing.
pub(super) fn redirect(cx: &mut Ctx<'_>, r: &Redirect, seg: Option<usize>) {
    let Some(t) = r.target.as_ref().and_then(|t| t.static_text()) else {
        return;
    };
    let how = match r.op {
        RedirectOp::Write | RedirectOp::Clobber | RedirectOp::WriteBoth => sysfiles::Write::Replace,
        RedirectOp::Append | RedirectOp::AppendBoth | RedirectOp::ReadWrite => {
            sysfiles::Write::Append
        }
        RedirectOp::Read
        | RedirectOp::DupWrite
        | RedirectOp::DupRead
        | RedirectOp::Heredoc
        | RedirectOp::HeredocStripTabs
        | RedirectOp::Herestring => return,
    };
    sysfiles::writes(cx, t, how, r.span, seg);
}

/// `find … -exec CMD … ;`: the command find runs is checked like any other (deny rules
/// included); the option itself is forbidden by find's entry.
pub(super) fn find_exec(cx: &mut Ctx<'_>, i: usize, rest: &[Word], parsed: &[Arg<'_>]) {
    // Only real options start an -exec: `-name -exec` is a pattern, consumed as a value.
    // Everything up to the `;` or `+` is the command's: an `-exec` among those words is its
    // argument, checked when that command is (`find -ok find -ok …` is checked once per level,
    // not once per level and per later `-ok`).
    let mut taken = 0;
    for a in parsed {
        // An option table refuses -exec (it asks), but what it runs is still checked, so a
        // denied inner command is denied.
        let (name, word) = match a {
            Arg::Opt { name, word, .. } => (name.as_str(), *word),
            Arg::Refused { word, .. } => (rest[*word].static_text().unwrap_or(""), *word),
            Arg::Operand { .. } | Arg::Dynamic { .. } => continue,
        };
        if word < taken || !matches!(name, "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let start = word + 1;
        let mut end = start;
        while end < rest.len() && !matches!(rest[end].static_text(), Some(";" | "+")) {
            end += 1;
        }
        taken = end + 1;
        if end > start {
            let inner = &rest[start..end];
            let span = inner[0].span.cover(inner[inner.len() - 1].span);
            cx.command(i, span, inner, Origin::Tail);
        }
    }
}

/// Raw-text rules, used only where the parse could not be trusted.
pub(super) fn fallback(cx: &mut Ctx<'_>, i: usize, at: Span, text: &str) {
    let list = cx.list;
    for rule in &list.deny {
        if let Some(re) = &rule.fallback
            && re.is_match(text)
        {
            cx.push_rule(
                Code::Denied,
                at,
                Some(i),
                format!(
                    "{} (rule `{}`, matched in text cmdguard could not fully parse)",
                    rule.reason, rule.id
                ),
                &rule.id,
            );
        }
    }
}

/// Fallback over a whole unparseable command: the rules' raw-text patterns, and the rules over
/// the plain commands in the text (see [`plain_commands`]).
pub(crate) fn fallback_text<'l>(list: &'l Allowlist, text: &str) -> Vec<&'l DenyRule> {
    // bash removes a backslash-newline before it splits words (`git re\⏎set --hard`).
    let joined = text.replace("\\\n", "");
    let plain = plain_commands(&joined);
    list.deny
        .iter()
        .filter(|r| {
            r.fallback.as_ref().is_some_and(|re| re.is_match(text))
                || plain.iter().any(|words| rule_matches(list, r, words))
        })
        .collect()
}

/// Most plain commands read from one unparseable text.
const MAX_PLAIN_COMMANDS: usize = 64;

/// The commands of a text the parser could not read, split at operators, that are nothing but
/// plain words — no quotes, expansions or escapes — as the words bash would run. A first word
/// that is a comma list in braces (`{rm,-rf,/}`) is brace-expanded, as bash does; the parser
/// takes it for a group that never closes.
fn plain_commands(text: &str) -> Vec<Vec<Word>> {
    let mut out = Vec::new();
    for piece in text.split([';', '&', '|', '(', ')', '\n', '`']) {
        let mut tokens = piece.split_whitespace();
        let Some(head) = tokens.next() else {
            continue;
        };
        let mut words: Vec<Word> = match head.strip_prefix('{').and_then(|h| h.strip_suffix('}')) {
            Some(inner) if inner.contains(',') => inner
                .split(',')
                .filter(|p| !p.is_empty())
                .map(|t| static_word(t, Span::default()))
                .collect(),
            _ => vec![static_word(head, Span::default())],
        };
        words.extend(tokens.map(|t| static_word(t, Span::default())));
        let plain = words.iter().all(|w| {
            !w.text
                .contains(['{', '}', '\'', '"', '$', '`', '\\', '*', '?', '['])
        });
        if !plain {
            continue;
        }
        out.push(words);
        if out.len() >= MAX_PLAIN_COMMANDS {
            break;
        }
    }
    out
}

/// `s` as one bash word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Analyses `text` as a nested script and keeps only its deny findings, moved to `span`: for
/// a command read with values cmdguard worked out, which asks already as written.
pub(super) fn denies_in(cx: &mut Ctx<'_>, i: usize, span: Span, what: &str, text: &str) {
    if cx.depth + 1 > cx.list.limits.max_script_depth {
        fallback(cx, i, span, text);
        return;
    }
    let scope = super::Scope {
        depth: cx.depth + 1,
        place: cx.place.as_deref_mut(),
        budget: cx.budget,
    };
    let inner = cx.nested.analyze_nested(text, scope);
    for mut f in inner.findings {
        if f.severity < crate::finding::Verdict::Deny {
            continue;
        }
        f.message = format!("in {what}: {}", f.message);
        f.span = span;
        cx.findings.push(f.in_segment(Some(i)));
    }
}

fn static_word(text: &str, span: Span) -> Word {
    Word {
        text: text.to_string(),
        span,
        expansions: Expansions::NONE,
        quoted: false,
    }
}

/// `TF_CLI_ARGS=-destroy terraform apply -auto-approve`: terraform (and OpenTofu) reads more
/// arguments from `TF_CLI_ARGS` and `TF_CLI_ARGS_<subcommand>` and puts them right after the
/// subcommand. The command is read again with them there, and a deny found there denies.
fn terraform_cli_args(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    program: &str,
    assignments: &[crate::segment::Assignment],
    words: &[Word],
) {
    let rest = skip_globals(cx.list, program, &words[1..]);
    let Some(sub) = rest.first().and_then(|w| w.static_text()) else {
        return;
    };
    let own = format!("TF_CLI_ARGS_{sub}");
    let extra: Vec<&str> = assignments
        .iter()
        .filter(|a| a.name == "TF_CLI_ARGS" || a.name == own)
        .filter_map(|a| a.value.static_text())
        .flat_map(str::split_whitespace)
        .collect();
    if extra.is_empty() {
        return;
    }
    let globals = &words[..words.len() - rest.len()];
    let line: Vec<String> = globals
        .iter()
        .chain(std::iter::once(&rest[0]))
        .map(|w| w.text.clone())
        .chain(extra.iter().map(|t| quote(t)))
        .chain(rest[1..].iter().map(|w| w.text.clone()))
        .collect();
    let what = "the command with the arguments `TF_CLI_ARGS` adds";
    denies_in(cx, i, span, what, &line.join(" "));
}

/// `find . ${X:--delete}`, `rm -${F:-r}f`: a word with one default expansion (`${X:-w}`,
/// `${X-w}`, `${X:=w}`, `${X=w}`) or alternative (`${X:+w}`, `${X+w}`) among static text can
/// be that text with the expansion's word. The words with every such word replaced, when there
/// is one and the result is static text.
fn with_defaults(words: &[Word]) -> Option<Vec<Word>> {
    if words.iter().all(|w| w.is_static()) {
        return None;
    }
    let mut changed = false;
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        match default_of(w) {
            Some(d) => {
                changed = true;
                out.push(static_word(&d, w.span));
            }
            None => out.push(w.clone()),
        }
    }
    changed.then_some(out)
}

/// Characters that make text around or inside a default expansion more than plain text.
const NOT_PLAIN: &[char] = &[
    '$', '`', '\\', '"', '\'', '{', '}', ' ', '\t', '\n', '*', '?', '[',
];

/// The static text of a word with one `${NAME:-default}` (or `:=`, `-`, `=`, `:+`, `+`) in it,
/// the expansion replaced by its word (the whole word possibly in double quotes).
fn default_of(w: &Word) -> Option<String> {
    if w.is_static() {
        return None;
    }
    let t = w.text.as_str();
    let quoted = t.len() > 1 && t.starts_with('"') && t.ends_with('"');
    let t = if quoted { &t[1..t.len() - 1] } else { t };
    let open = t.find("${")?;
    let close = open + t[open..].find('}')?;
    let (prefix, suffix) = (&t[..open], &t[close + 1..]);
    // A space in a word's text is literal (`"DROP TABLE ${T:-x}"`): bash split the words.
    let plain_around = |s: &str| !s.contains(|c: char| NOT_PLAIN.contains(&c) && c != ' ');
    if !plain_around(prefix) || !plain_around(suffix) {
        return None;
    }
    let inner = &t[open + 2..close];
    let name = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|&n| n > 0)?;
    let op = &inner[name..];
    let d = [":-", ":=", ":+", "-", "=", "+"]
        .iter()
        .find_map(|o| op.strip_prefix(o))?;
    // One level of quotes around the word (`${X-"-delete"}`); anything else that bash would
    // expand or split makes it unknown.
    let d = ['"', '\'']
        .iter()
        .find_map(|q| d.strip_prefix(*q).and_then(|d| d.strip_suffix(*q)))
        .unwrap_or(d);
    let plain = !d.is_empty() && !d.contains(NOT_PLAIN);
    plain.then(|| format!("{prefix}{d}{suffix}"))
}

/// `watch CMD…` joins its arguments into a string that `sh -c` runs (`watch -x` runs them as
/// they are): that command is analysed like a nested script, so deny rules apply to it.
fn watch(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let mut k = 1;
    let mut exec = false;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        exec |= matches!(t, "-x" | "--exec");
        let takes_value = matches!(t, "-n" | "--interval" | "-q" | "--equexit");
        k += if takes_value { 2 } else { 1 };
    }
    let inner = words.get(k..).unwrap_or(&[]);
    if inner.is_empty() || !inner.iter().all(Word::is_static) {
        return;
    }
    if exec {
        cx.command(i, span, inner, Origin::Wrapped);
        return;
    }
    let script: Vec<&str> = inner.iter().map(|w| w.text.as_str()).collect();
    cx.nested(i, span, "the command `watch` runs", &script.join(" "));
}

/// `bash --rcfile F -c SCRIPT`: an option cmdguard does not follow stops a shell's analysis
/// (it asks), but the script after `-c` is still read so that a denied command in it denies.
pub(super) fn shell_script_past_options(cx: &mut Ctx<'_>, i: usize, words: &[Word]) {
    let mut k = 1;
    let mut dash_c = false;
    let mut no_exec = false;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" || t == "-" {
            k += 1;
            break;
        }
        if !(t.starts_with('-') || t.starts_with('+')) {
            break;
        }
        if matches!(t, "--rcfile" | "--init-file" | "-o" | "+o" | "-O" | "+O") {
            k += 2;
            continue;
        }
        dash_c |= !t.starts_with("--") && t[1..].contains('c');
        no_exec |= t.starts_with('-') && !t.starts_with("--") && t[1..].contains('n');
        // `bash --version`, `--help`: print and exit.
        no_exec |= matches!(t, "--version" | "--help");
        k += 1;
    }
    if !dash_c {
        // `bash -i <<< 'rm -rf v'`, `echo … | bash -i`: with no script operand the shell runs
        // what it reads on its input, where the line shows it (`-n`: read, not run).
        if words.get(k).is_none() && !no_exec {
            for text in feed::input_texts(cx, i).into_iter().take(MAX_SED_EXECS) {
                let what = "the script the shell reads on its input";
                denies_in(cx, i, words[0].span, what, &text);
            }
        }
        return;
    }
    if let Some(script) = words.get(k).filter(|w| w.is_static()) {
        let what = "the script after `-c`";
        cx.nested(i, script.span, what, &script.text);
    }
}

/// Most `e` commands read from one sed script.
const MAX_SED_EXECS: usize = 8;

/// GNU sed's `e COMMAND` and the `e` flag of `s` run a command: where its text is static it is
/// analysed as a nested script, so deny rules apply to it (`sed -n '1e rm -rf /' f`).
pub(super) fn sed_exec(cx: &mut Ctx<'_>, i: usize, span: Span, script: &str, dialect: SedDialect) {
    let mut from = 0;
    for _ in 0..MAX_SED_EXECS {
        let Some(rest) = script.get(from..) else {
            return;
        };
        let Err(problem) = check_sed_script(rest, dialect) else {
            return;
        };
        let at = from + problem.offset;
        let command = if problem.reason.starts_with("sed command `e`") {
            let line = &script[at + 1..];
            Some(
                line[..line.find('\n').unwrap_or(line.len())]
                    .trim()
                    .to_string(),
            )
        } else if problem.reason.contains("flag `e`") {
            substitute_replacement(script, at)
        } else {
            return;
        };
        match command.filter(|c| !c.is_empty()) {
            Some(c) => cx.nested(i, span, "the command sed's `e` runs", &c),
            // A bare `e` runs the pattern space: what an earlier `s` wrote there
            // (`s/x/rm -rf v/;e`) is read as the command.
            None if problem.reason.starts_with("sed command `e`") => {
                for r in replacements(&script[..at]).into_iter().take(MAX_SED_EXECS) {
                    cx.nested(i, span, "the pattern space sed's `e` runs", &r);
                }
            }
            None => {}
        }
        match script[at..].find('\n') {
            Some(nl) => from = at + nl + 1,
            None => return,
        }
    }
}

/// The replacements of the `s` commands in a sed script (`s/x/TEXT/`, any delimiter),
/// escaped delimiters unescaped; a replacement with `&` or a back-reference is left out, as
/// the pattern space it builds is not known.
fn replacements(script: &str) -> Vec<String> {
    let b = script.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k + 1 < b.len() {
        let starts = k == 0
            || matches!(b[k - 1], b';' | b'\n' | b'{' | b' ' | b'$' | b'/')
            || b[k - 1].is_ascii_digit();
        let delim = b[k + 1];
        if b[k] != b's'
            || !starts
            || delim.is_ascii_alphanumeric()
            || delim.is_ascii_whitespace()
            || delim == b'\\'
        {
            k += 1;
            continue;
        }
        // The pattern, then the replacement, each up to an unescaped delimiter.
        let part = |from: usize| {
            let mut j = from;
            while j < b.len() && b[j] != delim {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (j < b.len()).then_some(j)
        };
        let Some(p_end) = part(k + 2) else { break };
        let Some(r_end) = part(p_end + 1) else { break };
        let text = &script[p_end + 1..r_end];
        if !text.contains('&') && !text.contains('\\') {
            out.push(text.to_string());
        }
        k = r_end + 1;
    }
    out
}

/// The replacement of the `s` command whose `e` flag is at `flag`: the text between the last
/// two unescaped delimiters before the flags, with escaped delimiters unescaped.
fn substitute_replacement(script: &str, flag: usize) -> Option<String> {
    let b = script.as_bytes();
    let mut end = flag;
    while end > 0 && b"gpiImM0123456789".contains(&b[end - 1]) {
        end -= 1;
    }
    let close = end.checked_sub(1)?;
    let delim = b[close];
    let escaped = |k: usize| b[..k].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    let open = (0..close).rev().find(|&k| b[k] == delim && !escaped(k))?;
    let text = script.get(open + 1..close)?;
    Some(super::sed_script::replacement_text(text))
}

/// Programs that delete the paths they are given.
const DELETERS: &[&str] = &["rm", "unlink", "shred"];

/// xargs's options that take the next word as their value.
const XARGS_VALUE_OPTIONS: &[&str] = &[
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-E",
    "-I",
    "-L",
    "--max-lines",
    "-n",
    "--max-args",
    "-P",
    "--max-procs",
    "-s",
    "--max-chars",
    "--process-slot-var",
];

/// `xargs rm`, `xargs -0 sudo rm -f`: the paths deleted are whatever the input lists.
fn xargs_deletes(words: &[Word]) -> bool {
    xargs_command(words).is_some_and(|inner| runs_one_of(inner, DELETERS))
}

/// The command an `xargs` runs (its words before the input's are added), past its options.
fn xargs_command(words: &[Word]) -> Option<&[Word]> {
    let first = words.first()?.static_text()?;
    if program_name(first) != "xargs" {
        return None;
    }
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" {
            k += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        k += if XARGS_VALUE_OPTIONS.contains(&t) {
            2
        } else {
            1
        };
    }
    Some(words.get(k..).unwrap_or(&[]))
}

/// Database clients and the options whose value is SQL (or, for mongosh, JavaScript).
const SQL_CLIENTS: &[(&str, &[&str])] = &[
    ("psql", &["-c", "--command"]),
    // `--init-command` runs its SQL after connecting, like `-e`.
    ("mysql", &["-e", "--execute", "--init-command"]),
    ("mariadb", &["-e", "--execute", "--init-command"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("clickhouse", &["-q", "--query"]),
    ("sqlite3", &["-cmd"]),
    ("sqlite", &["-cmd"]),
    ("duckdb", &["-c", "-cmd"]),
    ("mongosh", &["--eval"]),
    ("mongo", &["--eval"]),
    // `wrangler d1 execute DB --command SQL` (Cloudflare D1 is SQLite).
    ("wrangler", &["--command"]),
    // `cockroach sql -e SQL` (CockroachDB speaks PostgreSQL's SQL).
    ("cockroach", &["-e", "--execute"]),
    // SQL Server's `sqlcmd -Q SQL` (runs and exits) and `-q SQL`.
    ("sqlcmd", &["-Q", "-q"]),
    // Cassandra's `cqlsh -e CQL`.
    ("cqlsh", &["-e", "--execute"]),
    // `usql URL -c SQL`, a client for many databases.
    ("usql", &["-c", "--command"]),
];

/// Short options of each client that take no value, which may come bundled before its SQL
/// option (`psql -tAc`, `mysql -Be`, `clickhouse-client -nq`).
const SQL_CLIENT_FLAGS: &[(&str, &str)] = &[
    ("psql", "aAbeEHlnqsStxXwWz01"),
    ("mysql", "ABCEfGHinNqrsStUvVwX"),
    ("mariadb", "ABCEfGHinNqrsStUvVwX"),
    ("clickhouse-client", "mnt"),
    ("clickhouse", "mnt"),
];

/// The SQL in a bundle of a client's flags that ends in its short SQL option: the rest of the
/// word (empty: the next word).
fn bundled_sql<'t>(client: &str, sql_options: &[&str], t: &'t str) -> Option<&'t str> {
    let flags = SQL_CLIENT_FLAGS.iter().find(|(c, _)| *c == client)?.1;
    let body = t.strip_prefix('-').filter(|b| !b.starts_with('-'))?;
    for (k, c) in body.char_indices() {
        if sql_options.iter().any(|o| o.len() == 2 && o.ends_with(c)) {
            return (k > 0).then(|| &body[k + c.len_utf8()..]);
        }
        if !flags.contains(c) {
            return None;
        }
    }
    None
}

/// sqlite3's options that take a value that is not SQL.
const SQLITE_VALUE_OPTIONS: &[&str] = &[
    "-init",
    "-separator",
    "-newline",
    "-nullvalue",
    "-vfs",
    "-mmap",
    "-pagecache",
    "-lookaside",
    "-heap",
    "-maxsize",
    "-A",
];

/// True when a database client (run directly, or by `docker exec` / `kubectl exec`) is given
/// SQL that destroys data: in an option, as sqlite3's operands, or in a heredoc or here-string.
fn destructive_sql(cx: &Ctx<'_>, i: usize, words: &[Word]) -> bool {
    let Some((client, texts)) = client_input(cx, i, words) else {
        return false;
    };
    if client_at(words).is_some_and(|k| clients::prints_help(client, &words[k + 1..])) {
        return false;
    }
    if clients::generated_sql(cx, i, client, &texts) {
        return true;
    }
    let js = matches!(client, "mongosh" | "mongo");
    if in_memory_sqlite(client, words, &texts) {
        return false;
    }
    texts.iter().any(|t| {
        if js {
            sql::js_destroys(t)
        } else {
            sql::client_destroys(client, t)
        }
    })
}

/// Whether `words` run sqlite3 on the in-memory database (`sqlite3 :memory: 'drop table if
/// exists t'`), which holds nothing when the command starts and is gone when it ends, and no
/// text opens or attaches a database file (`ATTACH`, `.open`, `.restore`, `.read`, `.import`).
fn in_memory_sqlite(client: &str, words: &[Word], texts: &[String]) -> bool {
    if !matches!(client, "sqlite3" | "sqlite") {
        return false;
    }
    let Some(k) = client_at(words) else {
        return false;
    };
    // The database is the first operand; no option (`-init`, `-cmd`, …) may come before it.
    let memory = words
        .get(k + 1)
        .and_then(|w| w.static_text())
        .is_some_and(|t| t == ":memory:");
    let opens = texts.iter().any(|t| {
        let t = t.to_ascii_lowercase();
        [
            "attach", ".open", ".restore", ".read", ".import", ".clone", ".backup", ".save",
            "vacuum",
        ]
        .iter()
        .any(|w| t.contains(w))
    });
    memory && !opens && words.len() == k + 3
}

/// The database client among `words` (run directly, or by `docker exec` / `kubectl exec`) and
/// every text it is given to run: option values, sqlite3's operands after the database, and
/// its input (see [`feed::input_texts`]).
fn client_input(cx: &Ctx<'_>, i: usize, words: &[Word]) -> Option<(&'static str, Vec<String>)> {
    let k = client_at(words)?;
    let name = program_name(&words[k].text);
    let (client, sql_options) = SQL_CLIENTS.iter().find(|(c, _)| *c == name)?;
    let mut args = &words[k + 1..];
    if *client == "clickhouse" {
        // `clickhouse client -q …`: the client is a subcommand of the one binary.
        match args.first().and_then(|w| w.static_text()) {
            Some("client") => args = &args[1..],
            _ => return None,
        }
    }
    if *client == "cockroach" {
        // `cockroach sql -e …`: the SQL shell is the `sql` subcommand.
        match args.first().and_then(|w| w.static_text()) {
            Some("sql") => args = &args[1..],
            _ => return None,
        }
    }
    let mut texts: Vec<&str> = Vec::new();
    let mut operands = 0;
    let mut j = 0;
    // `psql -f <(echo …)`, `sqlite3 -init <(…)`: a script file the line shows.
    let mut files: Vec<String> = Vec::new();
    // psql's `-o |CMD` and `-v NAME=VALUE`, as the meta-commands they stand for.
    let mut metas: Vec<String> = Vec::new();
    while j < args.len() {
        let Some(t) = args[j].static_text() else {
            // `sqlite3 "$DB" 'DELETE FROM t'`: a run-time word is the database operand, and
            // the SQL after it is still SQL.
            if matches!(*client, "sqlite3" | "sqlite" | "duckdb") {
                operands += 1;
            }
            j += 1;
            continue;
        };
        let script_option = match *client {
            "psql" => matches!(t, "-f" | "--file"),
            "sqlite3" | "sqlite" | "duckdb" => t == "-init",
            _ => false,
        };
        if script_option
            && let Some(text) = args.get(j + 1).and_then(|w| feed::operand_text(cx, i, w))
        {
            files.push(text);
            j += 2;
            continue;
        }
        if *client == "psql"
            && let Some((meta, used)) = psql_option_meta(t, args.get(j + 1))
        {
            metas.push(meta);
            j += used;
            continue;
        }
        let (opt, attached) = match t.split_once('=') {
            Some((o, v)) if t.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        // `--comm=…`: an abbreviated long option; sqlite3 also takes `--cmd` for `-cmd`.
        let long = opt
            .strip_prefix("--")
            .filter(|o| o.len() > 1)
            .and_then(|o| {
                sql_options.iter().copied().find(|s| {
                    s.strip_prefix("--").is_some_and(|l| l.starts_with(o))
                        || (!s.starts_with("--") && s.len() > 2 && s[1..] == *o)
                })
            });
        let opt = long.unwrap_or(opt);
        if sql_options.contains(&opt) {
            match attached {
                Some(v) => texts.push(v),
                None => texts.extend(args.get(j + 1).and_then(|w| w.static_text())),
            }
            j += if attached.is_some() { 1 } else { 2 };
            continue;
        }
        // `-cDROP …`: a short SQL option with its value attached.
        if let Some(v) = sql_options
            .iter()
            .filter(|o| o.len() == 2)
            .find_map(|o| t.strip_prefix(o))
            .filter(|v| !v.is_empty())
        {
            texts.push(v);
            j += 1;
            continue;
        }
        // `-tAc SQL`, `-Be SQL`: flags that take no value, then the SQL option, in one word.
        if let Some(v) = bundled_sql(client, sql_options, t) {
            match v {
                "" => texts.extend(args.get(j + 1).and_then(|w| w.static_text())),
                v => texts.push(v),
            }
            j += if v.is_empty() { 2 } else { 1 };
            continue;
        }
        let sqlite = matches!(*client, "sqlite3" | "sqlite" | "duckdb");
        if sqlite && SQLITE_VALUE_OPTIONS.contains(&t) {
            j += 2;
            continue;
        }
        if !t.starts_with('-') {
            // sqlite3 DB SQL…: every operand after the database is SQL.
            if sqlite && operands > 0 {
                texts.push(t);
            }
            operands += 1;
        }
        j += 1;
    }
    // A heredoc or here-string is the client's input (through any wrapper before it), and so
    // is what `echo` or `printf` pipes into it.
    let mut out: Vec<String> = texts.into_iter().map(str::to_string).collect();
    out.extend(files);
    out.extend(feed::input_texts(cx, i));
    out.extend(strip_tabs_heredocs(cx, i));
    out.extend(written_input(cx, i));
    out.extend(clients::substituted_input(cx, i));
    let scripts = clients::script_texts(cx, i, client, args, &out);
    out.extend(scripts);
    // psql keeps its variables from one `-c` to the next (`-c '\set x …' -c '\! :x'`): the
    // texts are also read as one, after the options' meta-commands.
    if *client == "psql" && (out.len() > 1 || !metas.is_empty()) {
        let joined = metas
            .iter()
            .chain(&out)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        out.extend(metas);
        out.push(joined);
    }
    Some((client, out))
}

/// What segment `i` reads through a `<` redirect from a file the line wrote before it
/// (`echo 'drop table t;' > x.sql; mysql db < x.sql`; see [`feed::written_text`]).
fn written_input(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let Some(seg) = cx.script.segments.get(i) else {
        return Vec::new();
    };
    seg.redirects
        .iter()
        .filter(|r| r.op == crate::segment::RedirectOp::Read && matches!(r.fd, None | Some(0)))
        .filter_map(|r| r.target.as_ref()?.static_text())
        .filter_map(|path| feed::written_text(cx, i, path))
        .collect()
}

/// The bodies of the `<<-` heredocs segment `i` reads on fd 0, with the leading tabs bash strips
/// from each line taken off (`psql db <<-EOF⏎<TAB>drop table t;⏎<TAB>EOF`). Where the body ends
/// is a place tree-sitter-bash and bash may disagree (the line asks for it), but the text is
/// read for a deny all the same.
fn strip_tabs_heredocs(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let Some(seg) = cx.script.segments.get(i) else {
        return Vec::new();
    };
    seg.redirects
        .iter()
        .filter(|r| {
            r.op == crate::segment::RedirectOp::HeredocStripTabs && matches!(r.fd, None | Some(0))
        })
        .filter_map(|r| super::wrap::heredoc_body(cx.src, r.span))
        .map(|body| {
            body.lines()
                .map(|l| l.trim_start_matches('\t'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// psql's `-o FILE` / `--output=FILE` (`|CMD` pipes the output to a shell command) and
/// `-v NAME=VALUE` / `--set` / `--variable`, written as `\o FILE` and `\set NAME 'VALUE'`, with
/// how many words they take; `None` for any other word.
fn psql_option_meta(t: &str, next: Option<&Word>) -> Option<(String, usize)> {
    let next = || next.and_then(|w| w.static_text());
    let (kind, value, used) = match t.split_once('=') {
        Some((o @ ("--output" | "--set" | "--variable"), v)) => (o, v, 1),
        _ => match t {
            "-o" | "--output" | "-v" | "--set" | "--variable" => (t, next()?, 2),
            _ if t.len() > 2 && (t.starts_with("-o") || t.starts_with("-v")) => {
                (&t[..2], &t[2..], 1)
            }
            _ => return None,
        },
    };
    let meta = match kind {
        "-o" | "--output" => format!("\\o {value}"),
        _ => {
            let (name, v) = value.split_once('=')?;
            format!("\\set {name} '{}'", v.replace('\'', "''"))
        }
    };
    Some((meta, used))
}

/// Where the database client is among `words`: the program itself, or the command that
/// `docker exec`, `podman exec` or `kubectl exec` runs.
fn client_at(words: &[Word]) -> Option<usize> {
    let is_client = |w: &Word| {
        w.static_text()
            .is_some_and(|t| SQL_CLIENTS.iter().any(|(c, _)| program_name(t) == *c))
    };
    if words.first().is_some_and(is_client) {
        return Some(0);
    }
    let first = words.first()?.static_text()?;
    if !matches!(
        &*program_name(first),
        "docker" | "podman" | "kubectl" | "oc" | "docker-compose" | "podman-compose"
    ) {
        return None;
    }
    let exec = words.iter().position(|w| w.static_text() == Some("exec"))?;
    (exec + 1..words.len()).find(|&k| is_client(&words[k]))
}

/// Rules over several segments at once.
pub(super) fn structural(cx: &mut Ctx<'_>) {
    let list = cx.list;
    let script = cx.script;
    for rule in &list.deny {
        match rule.builtin {
            // Rules over one command's words: see `command`.
            None | Some(Builtin::DestructiveSql | Builtin::XargsDelete) => {}
            Some(Builtin::ForkBomb) => {
                // One pass over the segments with the defined names at hand, not one per
                // definition (thousands of `f(){ :; };` took time quadratic in the line).
                let defined: HashSet<&str> = script
                    .events
                    .iter()
                    .filter_map(|(ev, _)| match ev {
                        Event::FunctionDefinition(name) => Some(name.as_str()),
                        _ => None,
                    })
                    .collect();
                for (i, s) in script.segments.iter().enumerate() {
                    let calls_itself = s
                        .words
                        .first()
                        .is_some_and(|w| defined.contains(w.text.as_str()));
                    let in_function = s.nesting.contains(&Nest::Function);
                    let spreads = matches!(s.joiner, Some(Joiner::Pipe | Joiner::Background));
                    if calls_itself && in_function && spreads {
                        cx.deny(rule, s.span, Some(i));
                    }
                }
                // `while true; do bash & done`.
                forever::background_in_endless_loop(cx, rule);
                // `perl -e 'fork while 1'`.
                forever::interpreter_fork_loops(cx, rule);
            }
            Some(Builtin::DownloadToInterpreter) => {
                let segs = &script.segments;
                let interpreters: Vec<&Segment> = segs
                    .iter()
                    .filter(|o| runs_one_of(&o.words, INTERPRETERS))
                    .collect();
                for (i, s) in segs.iter().enumerate() {
                    if !runs_one_of(s.words.as_slice(), DOWNLOADERS) {
                        continue;
                    }
                    // `curl … | sh`: the next segment at the same level runs an interpreter.
                    let piped = s.joiner == Some(Joiner::Pipe)
                        && segs[i + 1..]
                            .iter()
                            .find(|n| n.nesting == s.nesting)
                            .is_some_and(|n| {
                                runs_one_of(&n.words, INTERPRETERS)
                                    && !formats_json(&n.words)
                                    && !reads_without_running(&n.words)
                            });
                    // `sh -c "$(curl …)"`, `bash <(curl …)`: an interpreter fed by a substitution.
                    let fed = interpreters.iter().any(|o| inside(s, o));
                    if piped || fed {
                        cx.deny(rule, s.span, Some(i));
                    }
                }
                // `curl -o i.sh URL && sh i.sh`: the download run from a file.
                fetched::run_files(cx, rule);
            }
        }
    }
}

/// True when the command (or the command behind a leading wrapper like `sudo`) is one of `set`.
/// `python3 -m json.tool [OPTIONS]`: Python's JSON pretty-printer, which reads its input as
/// data and runs none of it (the one interpreter invocation agents pipe downloads into).
/// Any other word after the module, a wrapper or another spelling is not this.
fn formats_json(words: &[Word]) -> bool {
    let texts: Option<Vec<&str>> = words.iter().map(Word::static_text).collect();
    let Some(texts) = texts else {
        return false;
    };
    let is_python = texts.first().is_some_and(|p| {
        let b = program_name(p);
        b == "python"
            || b == "python3"
            || b.strip_prefix("python3.")
                .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit()))
    });
    const OPTIONS: &[&str] = &[
        "--sort-keys",
        "--compact",
        "--no-ensure-ascii",
        "--json-lines",
        "--tab",
        "--indent=2",
        "--indent=4",
        "--no-indent",
    ];
    is_python
        && texts.get(1..3) == Some(&["-m", "json.tool"][..])
        && texts[3..].iter().all(|t| OPTIONS.contains(t))
}

/// Shells whose `-n` reads a script without running any of it.
const SYNTAX_CHECKING_SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"];

/// `bash -n -c SCRIPT`, `sh -n`, `curl … | bash -n`: a shell whose options, up to its script
/// or the first operand, are short flags among them `-n` (no `-i`: bash ignores `-n` in an
/// interactive shell; no `+n`, no option with a value, no long option but the startup ones),
/// so it reads commands and runs none of them.
pub(super) fn reads_without_running(words: &[Word]) -> bool {
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return false;
    };
    if !SYNTAX_CHECKING_SHELLS.contains(&program_name(first).as_ref()) {
        return false;
    }
    let mut no_exec = false;
    for w in &words[1..] {
        let Some(t) = w.static_text() else {
            return false;
        };
        if matches!(t, "--norc" | "--noprofile" | "--posix") {
            continue;
        }
        let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) else {
            // `--`, `-`, an operand, the script of `-c`: the options are over.
            break;
        };
        if !flags.chars().all(|c| "neuxvfsc".contains(c)) {
            return false;
        }
        no_exec |= flags.contains('n');
        if flags.contains('c') {
            break;
        }
    }
    no_exec
}

fn runs_one_of(words: &[Word], set: &[&str]) -> bool {
    const LEADS: &[&str] = &[
        "sudo", "doas", "env", "command", "exec", "nohup", "time", "nice",
    ];
    for w in words.iter().take(4) {
        let Some(t) = w.static_text() else {
            return false;
        };
        let b = program_name(t);
        if set.contains(&b.as_ref()) {
            return true;
        }
        if !(LEADS.contains(&b.as_ref()) || t.starts_with('-') || t.contains('=')) {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, expansions: Expansions) -> Word {
        Word {
            text: text.to_string(),
            span: Span::default(),
            expansions,
            quoted: false,
        }
    }

    #[test]
    fn program_names_drop_directories_and_windows_suffixes() {
        for (written, name) in [
            ("rm", "rm"),
            ("/bin/rm", "rm"),
            ("./rm", "rm"),
            ("rm.exe", "rm"),
            ("GIT.EXE", "git"),
            ("C:/Program Files/Git/bin/git.exe", "git"),
            ("C:\\Git\\bin\\Git.Exe", "git"),
            (".exe", ".exe"),
            // Lower case since s10: macOS's case-insensitive file system finds `/bin/rm` for
            // `RM` (red team s9, `program_name_case_on_macos`).
            ("Makefile", "makefile"),
            ("/BIN/RM", "rm"),
            ("é.exe", "é"),
        ] {
            assert_eq!(program_name(written), name, "{written}");
        }
    }

    #[test]
    fn one_default_or_alternative_expansion_among_plain_text_has_a_default() {
        let p = Expansions::PARAMETER;
        for (text, default) in [
            ("${X:--delete}", Some("-delete")),
            ("${X-\"-delete\"}", Some("-delete")),
            ("\"${X:=--hard}\"", Some("--hard")),
            ("${X=-f}", Some("-f")),
            ("${X:+-delete}", Some("-delete")),
            ("${X:-$Y}", None),
            ("${X:-a b}", None),
            ("${X:-}", None),
            ("a${X:--delete}", Some("a-delete")),
            ("-${F:-r}f", Some("-rf")),
            ("${F:-\"-r\"}f", Some("-rf")),
            ("\"DROP TABLE ${T:-x}\"", Some("DROP TABLE x")),
            ("DROP TABLE ${T:-x}", Some("DROP TABLE x")),
            ("${A:-x}${B:-y}", None),
            ("a\"b\"${X:-c}", None),
            ("${1:--delete}", Some("-delete")),
            ("$X", None),
        ] {
            assert_eq!(default_of(&word(text, p)).as_deref(), default, "{text}");
        }
        assert_eq!(default_of(&word("${X:--delete}", Expansions::NONE)), None);
    }

    #[test]
    fn the_replacement_of_an_s_command_is_read_back_from_its_flag() {
        for (script, command) in [
            ("s/x/rm -rf \\//e", Some("rm -rf /")),
            ("s|a|ls|ge", Some("ls")),
            ("1s/.*/id/2e", Some("id")),
            ("e", None),
        ] {
            let flag = script.rfind('e').unwrap();
            assert_eq!(
                substitute_replacement(script, flag).as_deref(),
                command,
                "{script}"
            );
        }
    }

    #[test]
    fn plain_commands_are_split_at_operators_and_brace_lists_expand() {
        let texts = |t: &str| -> Vec<Vec<String>> {
            plain_commands(t)
                .into_iter()
                .map(|ws| ws.into_iter().map(|w| w.text).collect())
                .collect()
        };
        assert_eq!(texts("{rm,-rf,/}"), [["rm", "-rf", "/"]]);
        assert_eq!(
            texts("ls; {git,reset,--hard} x"),
            [vec!["ls"], vec!["git", "reset", "--hard", "x"]]
        );
        // Anything quoted or expanded is not plain.
        assert!(
            texts("echo 'a; b'")
                .iter()
                .all(|c| c[0] == "echo" || c[0] == "b'")
        );
        assert!(texts("rm -rf \"$x\"").is_empty());
        assert!(texts("{a,{b,c}}").is_empty());
    }

    #[test]
    fn the_replacements_of_s_commands_are_listed() {
        for (script, want) in [
            ("s/x/rm -rf v/;e", vec!["rm -rf v"]),
            ("1s|a|ls|;2s,b,id,", vec!["ls", "id"]),
            ("s/x/&y/", vec![]),
            ("s/x/\\1/", vec![]),
            ("p;s/x", vec![]),
            ("/s/d", vec![]),
        ] {
            assert_eq!(replacements(script), want, "{script}");
        }
    }

    proptest::proptest! {
        /// No text makes the fallback readers panic, and what they produce is plain words.
        #[test]
        fn fallback_readers_take_any_text(s in "[ -~\\n]{0,60}") {
            for words in plain_commands(&s) {
                proptest::prop_assert!(words.iter().all(|w| !w.text.is_empty() && w.is_static()));
            }
            for at in 0..s.len() {
                let _ = substitute_replacement(&s, at);
            }
            let _ = replacements(&s);
        }
    }

    /// Every command of the agent, seed, red-team and adversarial corpora.
    fn corpus() -> Vec<String> {
        let mut out: Vec<String> = include_str!("../../benches/data/agent-commands.txt")
            .lines()
            .map(String::from)
            .collect();
        let mut jsonl = vec![
            include_str!("../../tests/data/seed-tests.jsonl").to_string(),
            include_str!("../../tests/data/redteam-s4-deny.jsonl").to_string(),
        ];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/adversarial");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        jsonl.extend(files.iter().map(|f| std::fs::read_to_string(f).unwrap()));
        for text in &jsonl {
            for l in text.lines() {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
                    && let Some(c) = v["cmd"].as_str()
                {
                    out.push(c.to_string());
                }
            }
        }
        out
    }

    /// `cmd` analysed with the rule index and with every rule tried; `None` when the wall-clock
    /// limit (a loaded machine, a huge input) cut either short, as then they may differ anyway.
    fn indexed_and_unindexed(
        a: &crate::Analyzer,
        cmd: &str,
    ) -> Option<(crate::Analysis, crate::Analysis)> {
        let indexed = a.analyze(cmd);
        UNINDEXED.with(|u| u.set(true));
        let every = a.analyze(cmd);
        UNINDEXED.with(|u| u.set(false));
        let clock = |x: &crate::Analysis| {
            x.findings
                .iter()
                .any(|f| f.message.contains("longer than its time limit"))
        };
        (!clock(&indexed) && !clock(&every)).then_some((indexed, every))
    }

    #[test]
    fn the_rule_index_finds_what_trying_every_rule_finds_on_every_corpus() {
        let a = crate::Analyzer::default();
        let mut denied = 0;
        let mut compared = 0;
        for cmd in corpus() {
            let Some((indexed, every)) = indexed_and_unindexed(&a, &cmd) else {
                continue;
            };
            assert_eq!(indexed, every, "the rule index changes {cmd:?}");
            compared += 1;
            denied += usize::from(indexed.verdict == crate::Verdict::Deny);
        }
        // The corpora reach the rules: a comparison of commands no rule touches proves nothing.
        assert!(
            compared > 2500 && denied > 200,
            "{compared} compared, {denied} denied"
        );
    }

    #[test]
    fn the_rule_index_holds_every_rule_under_its_first_word() {
        let list = Allowlist::default();
        for (k, rule) in list.deny.iter().enumerate() {
            let Some(first) = rule.command.as_ref().and_then(|c| c.first()) else {
                continue;
            };
            // `serverless|sls`: the rule is found under each alternative.
            for alt in first.split('|') {
                let name = alt
                    .strip_suffix('*')
                    .map_or(alt.to_string(), |p| format!("{p}zz"));
                let found = rules_for(&list, &[name.as_str()], false);
                assert!(
                    found.iter().any(|r| std::ptr::eq(*r, &list.deny[k])),
                    "rule {} is not found under `{name}`",
                    rule.id
                );
            }
            let name = first.split('|').next().unwrap_or_default();
            let name = name
                .strip_suffix('*')
                .map_or(name.to_string(), |p| format!("{p}zz"));
            let found = rules_for(&list, &[name.as_str()], false);
            // In the allowlist's order, so findings come in the same order.
            let at: Vec<usize> = found
                .iter()
                .map(|r| list.deny.iter().position(|x| std::ptr::eq(x, *r)).unwrap())
                .collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
        }
    }

    /// Words a generated command is made of: every deny rule's command words and options
    /// (so generated commands do reach the rules), spelled as bash and Windows may write them,
    /// and words around them.
    fn vocabulary() -> Vec<String> {
        let list = Allowlist::default();
        let mut v: Vec<String> = Vec::new();
        for r in &list.deny {
            for w in r.command.iter().flatten() {
                let w = w.trim_end_matches('*');
                v.push(w.to_string());
                v.push(format!("/usr/bin/{w}"));
                v.push(format!("{}.EXE", w.to_ascii_uppercase()));
                v.push(format!("${{X:-{w}}}"));
                v.push(format!("'{w}'"));
            }
            v.extend(r.any_option.iter().cloned());
            v.extend(r.all_options.iter().flatten().cloned());
        }
        v.extend(
            [
                "/", "~", ".", "-rf", "--force", "x", "$HOME", "sudo", "env", "echo", "xargs",
                "timeout", "5", "bash", "-c", "--", "*", "${Y}", "\"$Z\"",
            ]
            .map(String::from),
        );
        v.sort();
        v.dedup();
        v
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn the_rule_index_finds_what_trying_every_rule_finds_on_generated_commands(
            picks in proptest::collection::vec((0usize..10_000, 0usize..8), 1..12)
        ) {
            use std::sync::OnceLock;
            static WORDS: OnceLock<Vec<String>> = OnceLock::new();
            static ANALYZER: OnceLock<crate::Analyzer> = OnceLock::new();
            let words = WORDS.get_or_init(vocabulary);
            let a = ANALYZER.get_or_init(crate::Analyzer::default);
            let mut cmd = String::new();
            for (w, sep) in picks {
                cmd.push_str(&words[w % words.len()]);
                cmd.push_str([" ", " ", " ", " ", " | ", " && ", " ; ", " || "][sep]);
            }
            if let Some((indexed, every)) = indexed_and_unindexed(a, &cmd) {
                proptest::prop_assert_eq!(indexed, every, "the rule index changes {:?}", cmd);
            }
        }
    }
}

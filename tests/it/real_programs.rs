//! real_programs.rs: holds cmdguard's `allow` verdicts against the real programs (issue 10 §6).
//!
//! `differential.rs` runs bash over do-nothing shims, so it sees what bash executes but never
//! what an allowed *program* does with its options. This test runs the real ones — git, GNU
//! sed, gawk, grep, ripgrep, find, sort, uniq, date, tree, xxd, jq, diff, dash, zsh, Python
//! with pytest, node — in the same sandbox (namespaces, no network, an overlay, strace), with
//! the host's `/usr` bound read-only ([`Sandbox::with_real_programs`]).
//!
//! # What is generated
//! For every `[[allow]]` entry of `allowlist.toml` whose program is one of the above, and every
//! `[[shell]]` entry for a shell above, the generator collects the entry's options — every
//! option-looking string anywhere in the entry except its examples (`forbid`, `value_options`,
//! `only_options`, and any table of permitted options the format grows), plus the options the
//! program's own `--help` (`git SUB -h`) lists — and writes each option alone and in pairs, in
//! every spelling (`--long`, `--long=V`, `--long V`, abbreviated, `-sV`, `-s V`, bundled) with
//! values from a small pool (an existing file, a new file name, a number, `-`, a `%G?` format).
//! Shell entries get a pool of short scripts, read by the other shell, in `-c` and heredoc
//! form. Everything is run in a few fixtures: a plain directory, a clean repository, and one
//! repository per thing that makes git run a program (a pager key, `diff.external`,
//! `core.fsmonitor`, a `%G?` pretty format over a signed commit, executable hooks), plus a
//! Python project whose `conftest.py` runs a program.
//!
//! # What fails
//! A command cmdguard allows in its fixture (`Analyzer::analyze_in`) that
//! - executes a program that is not allowed on its own (the check of `differential.rs`),
//! - connects anywhere (`connect(2)`, any address family but glibc's nscd probe),
//! - or leaves a write behind outside [`INCIDENTAL_WRITES`].
//!
//! A program's own temporary files never show up (created and removed in the overlay, they
//! leave no trace in its upper dir); the one incidental write that stays is listed there.
//!
//! # Limits
//! The programs run as an unprivileged user (uid 65534) without a terminal: what needs root
//! (`date -s`) or a tty (git's pager) fails or does not happen here and is not seen. Only
//! `connect` counts as network use (a datagram sent with `sendto` alone would not be seen, but
//! there is no network to reach either).
//!
//! # Known violations
//! `tests/data/realprog-known.jsonl` lists the violations the code does not close yet, each
//! with a FIXME. A violation not on the list fails the test. A listed one that no longer
//! reproduces is printed as "fixed: remove it"; with `CMDGUARD_REALPROG_STRICT=1` that fails.
//!
//! # Size
//! Generation is deterministic (seed `CMDGUARD_REALPROG_SEED`, default fixed). By default a
//! bounded sample runs (≤ 3 minutes on CI's two cores); `CMDGUARD_REALPROG_FULL=1` runs every
//! generated case. Listed known violations always run, so the list is a regression corpus.
//! `CMDGUARD_REALPROG_RECORD=FILE` writes every violation seen, in the list's format.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cmdguard::{Analyzer, Verdict, Workdir};
use regex::Regex;

use crate::differential;
use crate::sandbox::{self, Mode, Observation, Sandbox};

const FULL_VAR: &str = "CMDGUARD_REALPROG_FULL";
const SEED_VAR: &str = "CMDGUARD_REALPROG_SEED";
const STRICT_VAR: &str = "CMDGUARD_REALPROG_STRICT";
const RECORD_VAR: &str = "CMDGUARD_REALPROG_RECORD";
/// Generate and analyse only: prints how many cases each entry has and how many are allowed.
const DRY_VAR: &str = "CMDGUARD_REALPROG_DRY";
const KNOWN_FILE: &str = "tests/data/realprog-known.jsonl";

/// Default seed: any fixed value; changing it changes the sample, not the property.
const DEFAULT_SEED: u64 = 0x5eed_0010;
/// Generated cases analysed in the default (CI) mode, drawn at random from all of them.
const SAMPLE_ANALYSED: usize = 6000;
/// Allowed cases run in the default mode, drawn at random from those the sample allowed.
const SAMPLE_RUN: usize = 600;
/// Pairs of options per entry: in the default mode, and at full size.
const PAIRS_SAMPLE: usize = 30;
const PAIRS_FULL: usize = 120;

/// Writes a program may leave behind although cmdguard allowed it. Each is a regex over the
/// path inside the chroot, with the reason it is harmless.
const INCIDENTAL_WRITES: &[(&str, &str)] = &[(
    r"^/fx/[^/]+/\.git/index$",
    "git refreshes the index's cached stat data on status/diff (a cache of the work tree, \
     written through index.lock, which it removes)",
)];

/// Programs this test runs for real, by the first word of an allow entry.
const REAL_PROGRAMS: &[&str] = &[
    "git", "sed", "awk", "gawk", "grep", "egrep", "fgrep", "rg", "find", "sort", "uniq", "date",
    "tree", "xxd", "jq", "diff", "python", "python3", "node",
];

/// Shells whose `[[shell]]` entries are exercised (each must be installed).
const REAL_SHELLS: &[&str] = &["sh", "dash", "zsh", "bash"];

/// Programs the sandbox must find; with `CMDGUARD_DIFF_REQUIRE` set a missing one fails.
const REQUIRED: &[&str] = &[
    "git", "sed", "gawk", "grep", "rg", "find", "sort", "uniq", "date", "tree", "xxd", "jq",
    "diff", "dash", "zsh", "python3", "node",
];

/// The value pool: an existing file, a new file name, a number, `-`, a signature format.
const VALUES: &[&str] = &["notes.txt", "new.out", "2", "-", "'%G?'"];

/// Scripts handed to other shells: each is read alike by bash in the simplest reading and
/// differently by some shell (dash's `&>`, zsh's `NULLCMD`, `=cmd`, `$'…'`, `path`…).
const SCRIPTS: &[&str] = &[
    "ls",
    "ls &>/dev/null touch pwned",
    "echo $'\\x41'",
    "</dev/null",
    "echo =ls",
    "echo $path",
    "print -r hi",
    "echo ${x:=1}",
    "ls **/*.txt",
    "echo a |& cat",
    "echo $((1+1))",
    "[[ -f notes.txt ]] && echo yes",
    "echo {a,b}",
    "f() { ls; }; f",
    "echo \"$(ls)\"",
    "cat notes.txt | head -1",
    "type ls",
    "echo hi >&2",
    "x=1; echo $x",
    "noglob ls",
];

/// Issue 10 §7's precision forms, run in fixtures where their shape matters: `git -C` into
/// hostile repositories (cmdguard must ask, or git must run nothing), globs, counters,
/// substitutions as operands, `flock` on an existing file. Always analysed and, when allowed,
/// always run.
const PRECISION: &[(&str, &str)] = &[
    ("plain", "git -C ../repo status"),
    ("plain", "git -C ../repo log --oneline -1"),
    ("plain", "git -C ../fsmonitor status"),
    ("plain", "git -C ../pager log -1"),
    ("repo", "git -C .. -C pagerlog log -1"),
    ("repo", "git -C ../external diff HEAD"),
    ("plain", "file ./*"),
    ("plain", "file -- *"),
    ("plain", "file *"),
    ("plain", "for ((i=0;i<3;i++)); do echo $((i*2)); done"),
    ("plain", "n=0; ((n++)); ((n+=2)); echo $n"),
    ("plain", "ls -la \"$(pwd)\""),
    ("plain", "wc -l -- $(ls)"),
    ("repo", "wc -l -- $(git ls-files)"),
    ("repo", "cat \"$(git rev-parse --show-toplevel)/notes.txt\""),
    ("plain", "id -un"),
    ("plain", "echo hi >>/dev/stderr"),
    ("plain", "flock notes.txt ls"),
    ("plain", "flock -n notes.txt git --version"),
    ("plain", "flock new.lock ls"),
];

/// Fixtures: name, what it is for. Built by [`build_fixtures`] under `/fx/NAME`.
const FIXTURES: &[(&str, &str)] = &[
    ("plain", "a directory with a few files, no repository"),
    ("repo", "a clean repository with history"),
    ("pager", "core.pager names a program"),
    ("pagerlog", "pager.log names a program"),
    ("external", "diff.external names a program"),
    ("fsmonitor", "core.fsmonitor names a program"),
    (
        "pretty",
        "pretty.x and format.pretty hold %G? over a signed commit",
    ),
    ("hooks", "every hook is an executable script"),
    ("py", "a Python project whose conftest.py runs a program"),
];

fn fixture_purpose(name: &str) -> &'static str {
    FIXTURES
        .iter()
        .find(|(f, _)| *f == name)
        .map_or("", |(_, what)| what)
}

/// A program no allowlist entry names, run by every hostile fixture: its exec is the
/// violation, and its write would be one too.
const MARKER: &str = "/usr/bin/touch /tmp/pwned";

/// One generated command and where it runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Case {
    fixture: &'static str,
    cmd: String,
    /// The allow or shell entry it exercises (its `command`).
    entry: String,
}

/// One entry's options and how its commands are written.
#[derive(Debug, Clone)]
struct Entry {
    command: String,
    options: Vec<String>,
    /// Words before the options (`find .`) and after them (`pattern file`).
    before: String,
    after: String,
    fixtures: &'static [&'static str],
}

/// A listed known violation.
#[derive(Debug, Clone)]
struct Known {
    line: usize,
    cmd: Option<String>,
    cmd_regex: Option<Regex>,
    fixture: Option<String>,
    problem: Option<Regex>,
}

#[test]
fn allowed_commands_run_by_the_real_programs_stay_inside_the_allowlist() {
    let name = "allowed_commands_run_by_the_real_programs_stay_inside_the_allowlist";
    let require = std::env::var_os(sandbox::REQUIRE_VAR).is_some();
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|p| host_program(p).is_none())
        .collect();
    let has_pytest = host_program("python3").is_some_and(|py| {
        Command::new(py)
            .args(["-c", "import pytest"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !missing.is_empty() || !has_pytest {
        let why = format!("missing programs {missing:?}, pytest importable: {has_pytest}");
        assert!(
            !require,
            "{name}: {} is set and {why}",
            sandbox::REQUIRE_VAR
        );
        sandbox::notice(&format!(
            "\n*** SKIPPED {name}: {why} (.ci/run installs them)\n"
        ));
        return;
    }
    let Some(sandbox) = Sandbox::open_real_or_skip(name, &build_fixtures) else {
        return;
    };
    let full = std::env::var_os(FULL_VAR).is_some();
    let seed = std::env::var(SEED_VAR)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let known = read_known(&data_path(KNOWN_FILE));

    let started = Instant::now();
    let list = read_allowlist();
    let entries = entries(&list);
    let mut cases = generate(&entries, seed, full);
    cases.extend(shell_cases(&list));
    let generated = cases.len();
    let mut rng = Rng(seed ^ 0x9e37_79b9);
    if !full {
        rng.shuffle(&mut cases);
        cases.truncate(SAMPLE_ANALYSED);
    }
    for (fixture, cmd) in PRECISION {
        cases.push(Case {
            fixture,
            cmd: (*cmd).to_owned(),
            entry: "precision".to_owned(),
        });
    }
    // Known violations always run: they are the regression corpus.
    for k in &known {
        if let (Some(cmd), Some(fixture)) = (&k.cmd, &k.fixture)
            && let Some(fx) = FIXTURES.iter().find(|(f, _)| f == fixture)
        {
            cases.push(Case {
                fixture: fx.0,
                cmd: cmd.clone(),
                entry: "known".to_owned(),
            });
        }
    }
    cases.sort();
    cases.dedup_by(|a, b| a.fixture == b.fixture && a.cmd == b.cmd);

    let analyzer = Analyzer::default();
    let template = sandbox.template().to_path_buf();
    let mut allowed: Vec<Case> = cases
        .iter()
        .filter(|c| {
            let dir = Workdir::new(template.join("fx").join(c.fixture));
            analyzer.analyze_in(&c.cmd, &dir).verdict == Verdict::Allow
        })
        .cloned()
        .collect();
    let allowed_total = allowed.len();
    if !full {
        let (mut listed, mut rest): (Vec<Case>, Vec<Case>) = allowed.into_iter().partition(|c| {
            PRECISION.contains(&(c.fixture, c.cmd.as_str()))
                || known.iter().any(|k| {
                    k.cmd.as_deref() == Some(c.cmd.as_str())
                        && k.fixture.as_deref() == Some(c.fixture)
                })
        });
        rng.shuffle(&mut rest);
        rest.truncate(SAMPLE_RUN);
        listed.extend(rest);
        allowed = listed;
    }
    let analysed_in = started.elapsed();
    if std::env::var_os(DRY_VAR).is_some() {
        let mut per_entry: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
        for c in &allowed {
            *per_entry.entry((c.entry.as_str(), c.fixture)).or_default() += 1;
        }
        sandbox::notice(&format!(
            "real programs (dry): {generated} generated, {} analysed, {allowed_total} allowed in \
             {:.1} s; allowed per entry and fixture: {per_entry:?}",
            cases.len(),
            analysed_in.as_secs_f64()
        ));
        return;
    }

    let jobs: Vec<(String, &str)> = allowed
        .iter()
        .map(|c| (format!("/fx/{}", c.fixture), c.cmd.as_str()))
        .collect();
    let ran = Instant::now();
    let seen = sandbox.observe_in(&jobs, Mode::FAIL);
    let ran_in = ran.elapsed();

    let incidental: Vec<Regex> = INCIDENTAL_WRITES
        .iter()
        .map(|(r, _)| Regex::new(r).unwrap())
        .collect();
    let mut found: Vec<(Case, String, Observation)> = Vec::new();
    let mut timed_out = 0;
    for (case, seen) in allowed.iter().zip(seen) {
        timed_out += usize::from(seen.timed_out);
        let dir = Workdir::new(template.join("fx").join(case.fixture));
        for problem in problems(&analyzer, &seen, &dir, &incidental) {
            found.push((case.clone(), problem, seen.clone()));
        }
    }

    let mut used = vec![false; known.len()];
    let mut new = Vec::new();
    for (case, problem, seen) in &found {
        let hit = known.iter().position(|k| k.matches(case, problem));
        match hit {
            Some(i) => used[i] = true,
            None => new.push(format!(
                "{:?} in /fx/{} ({}; entry `{}`; cmdguard: allow)\n  {problem}\n  what ran:\n{}",
                case.cmd,
                case.fixture,
                fixture_purpose(case.fixture),
                case.entry,
                seen.describe()
            )),
        }
    }
    // A listed exact command always runs (or is now asked), so one that no violation matched
    // is fixed; a listed class can only be judged when every case ran.
    let fixed: Vec<String> = known
        .iter()
        .zip(&used)
        .filter(|(k, used)| !**used && (k.cmd.is_some() || full))
        .map(|(k, _)| format!("{KNOWN_FILE}:{}", k.line))
        .collect();

    if let Some(path) = std::env::var_os(RECORD_VAR) {
        record(Path::new(&path), &found);
    }
    let runs = allowed.len();
    sandbox::notice(&format!(
        "real programs: {generated} cases generated, {} analysed, {allowed_total} allowed, \
         {runs} run ({timed_out} timed out) in {:.1} s after {:.1} s of generation and \
         analysis; {} violations ({} known, {} new); mode {} seed {seed:#x}",
        cases.len(),
        ran_in.as_secs_f64(),
        analysed_in.as_secs_f64(),
        found.len(),
        found.len() - new.len(),
        new.len(),
        if full { "full" } else { "sample" },
    ));
    if !fixed.is_empty() {
        let text = format!(
            "real programs: {} known violations no longer reproduce; fixed, remove them from \
             the list:\n  {}",
            fixed.len(),
            fixed.join("\n  ")
        );
        assert!(std::env::var_os(STRICT_VAR).is_none(), "{text}");
        sandbox::notice(&text);
    }
    assert!(
        new.is_empty(),
        "{} new real-program violations (cmdguard said allow; list a deliberate one in {KNOWN_FILE} \
         with a FIXME):\n\n{}",
        new.len(),
        new.join("\n\n")
    );
}

/// Everything wrong with what the programs did, less the incidental writes.
fn problems(
    analyzer: &Analyzer,
    seen: &Observation,
    workdir: &Workdir,
    incidental: &[Regex],
) -> Vec<String> {
    // `/.sandbox/bin` only supplies names the host lacks (`python`): judge such an exec as the
    // system program it stands in for, not as an unusual path.
    let mut seen = seen.clone();
    for exec in &mut seen.execs {
        if let Some(name) = exec.path.strip_prefix(b"/.sandbox/bin/".as_slice()) {
            exec.path = [b"/usr/bin/".as_slice(), name].concat();
        }
    }
    differential::violations_in(analyzer, &seen, Some(workdir))
        .into_iter()
        .filter(|p| {
            let Some(path) = p.strip_prefix("bash wrote ") else {
                return true;
            };
            !incidental.iter().any(|r| r.is_match(path))
        })
        .collect()
}

impl Known {
    fn matches(&self, case: &Case, problem: &str) -> bool {
        self.cmd.as_ref().is_none_or(|c| *c == case.cmd)
            && self
                .cmd_regex
                .as_ref()
                .is_none_or(|r| r.is_match(&case.cmd))
            && self.fixture.as_ref().is_none_or(|f| f == case.fixture)
            && self.problem.as_ref().is_none_or(|r| r.is_match(problem))
    }
}

/// `{"cmd" | "cmd_regex", "fixture"?, "problem"? (regex), "fixme"}` per line.
fn read_known(path: &Path) -> Vec<Known> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut known = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{KNOWN_FILE}:{}", i + 1);
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
        let field = |name: &str| v.get(name).and_then(|x| x.as_str()).map(str::to_owned);
        let regex = |name: &str| {
            field(name).map(|r| Regex::new(&r).unwrap_or_else(|e| panic!("{at}: {name}: {e}")))
        };
        let fixme = field("fixme").unwrap_or_default();
        assert!(
            fixme.starts_with("FIXME"),
            "{at}: every known violation needs a `fixme` reason starting with FIXME"
        );
        let k = Known {
            line: i + 1,
            cmd: field("cmd"),
            cmd_regex: regex("cmd_regex"),
            fixture: field("fixture"),
            problem: regex("problem"),
        };
        assert!(
            k.cmd.is_some() || k.cmd_regex.is_some(),
            "{at}: needs `cmd` or `cmd_regex`"
        );
        known.push(k);
    }
    known
}

/// Writes every violation as a known-list line (one per command and kind of problem).
fn record(path: &Path, found: &[(Case, String, Observation)]) {
    let mut lines = BTreeSet::new();
    for (case, problem, _) in found {
        let kind = problem_kind(problem);
        let line = serde_json::json!({
            "cmd": case.cmd,
            "fixture": case.fixture,
            "problem": kind,
            "fixme": format!("FIXME: `{}` {}", case.entry, describe_kind(problem)),
        });
        lines.insert(line.to_string());
    }
    let text: String = lines.into_iter().map(|l| l + "\n").collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    sandbox::notice(&format!("real programs: recorded to {}", path.display()));
}

/// A regex naming the kind of a problem: the program run, the file written, or connect.
fn problem_kind(problem: &str) -> String {
    if let Some(rest) = problem.strip_prefix("bash wrote ") {
        return format!("^bash wrote {}", regex::escape(rest));
    }
    if let Some(rest) = problem.strip_prefix("bash deleted ") {
        return format!("^bash deleted {}", regex::escape(rest));
    }
    if problem.starts_with("bash connected") {
        return "^bash connected".to_owned();
    }
    // `bash ran `/usr/bin/pr -h …``: the program is what matters.
    let program = problem
        .split('`')
        .nth(1)
        .and_then(|c| c.split(' ').next())
        .unwrap_or("");
    format!("`{}[ `]", regex::escape(program))
}

fn describe_kind(problem: &str) -> String {
    if let Some(rest) = problem.strip_prefix("bash wrote ") {
        return format!("writes {rest}");
    }
    if let Some(rest) = problem.strip_prefix("bash deleted ") {
        return format!("deletes {rest}");
    }
    if problem.starts_with("bash connected") {
        return "connects".to_owned();
    }
    let program = problem
        .split('`')
        .nth(1)
        .and_then(|c| c.split(' ').next())
        .unwrap_or("?");
    format!("runs {program}, which is not allowlisted")
}

/// The default allowlist as TOML, read by this test on its own terms: it must keep working
/// while the format grows, so unknown fields are looked into, never rejected.
fn read_allowlist() -> toml::Value {
    let path = data_path("allowlist.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("allowlist.toml: {e}"))
}

/// The entries to exercise, with their options.
fn entries(list: &toml::Value) -> Vec<Entry> {
    let mut out = Vec::new();
    let allow = list.get("allow").and_then(|a| a.as_array());
    for entry in allow.into_iter().flatten() {
        let Some(command) = entry.get("command").and_then(|c| c.as_str()) else {
            continue;
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some(&program) = words.first() else {
            continue;
        };
        if !REAL_PROGRAMS.contains(&program) {
            continue;
        }
        let mut options = BTreeSet::new();
        entry_options(entry, "", list, &mut options);
        options.extend(help_options(&words));
        // The entry's own words are not options to vary (`node --check`, `-m pytest`).
        options.retain(|o| !words.contains(&o.as_str()));
        let (before, after, fixtures) = shape(&words);
        out.push(Entry {
            command: command.to_owned(),
            options: options.into_iter().collect(),
            before: before.to_owned(),
            after: after.to_owned(),
            fixtures,
        });
    }
    out
}

/// Every option an entry names: the option tokens of its strings and table keys at any depth
/// (`forbid = ["-o"]`, `options = ["-f, --skip-fields=N", "--group[=METHOD]"]`, a table keyed by
/// option), with `@name` resolved through the list's `[[option_set]]`s, and `-NUM` (a count
/// such as `-20`) written as `-3`. Examples, prose and patterns are skipped.
fn entry_options(value: &toml::Value, field: &str, sets: &toml::Value, out: &mut BTreeSet<String>) {
    if matches!(
        field,
        "match" | "not_match" | "why" | "command" | "checker" | "operand_pattern" | "name"
    ) {
        return;
    }
    match value {
        toml::Value::String(s) => {
            if let Some(set) = s.strip_prefix('@') {
                let sets = sets.get("option_set").and_then(|v| v.as_array());
                let named = sets
                    .into_iter()
                    .flatten()
                    .filter(|t| t.get("name").and_then(|n| n.as_str()) == Some(set));
                // A set names itself only through `@`: no cycle unless the list has one.
                for t in named {
                    if let Some(options) = t.get("options") {
                        entry_options(options, "options", &toml::Value::Boolean(false), out);
                    }
                }
                return;
            }
            out.extend(option_tokens(s));
        }
        toml::Value::Array(items) => {
            for item in items {
                entry_options(item, field, sets, out);
            }
        }
        toml::Value::Table(table) => {
            for (key, item) in table {
                out.extend(option_tokens(key));
                entry_options(item, key, sets, out);
            }
        }
        _ => {}
    }
}

/// The options written in a spec string: `-e, --regexp=PATTERNS` → `-e`, `--regexp`.
fn option_tokens(spec: &str) -> Vec<String> {
    let token = Regex::new(r"(?:^|[\s,\[|])(--?[A-Za-z0-9][A-Za-z0-9_-]*)").unwrap();
    token
        .captures_iter(spec)
        .map(|c| match &c[1] {
            "-NUM" => "-3".to_owned(),
            o => o.trim_end_matches('-').to_owned(),
        })
        .filter(|o| is_option(o))
        .collect()
}

/// `-x`, `--long`, `-name`; not `-` or `--`, no `=` (a value spelled in), no spaces.
fn is_option(s: &str) -> bool {
    let body = s.trim_start_matches('-');
    s.starts_with('-')
        && !body.is_empty()
        && s.len() - body.len() <= 2
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Options the program's help lists (cheap: one run, on the host, of `--help` or `git SUB -h`).
fn help_options(words: &[&str]) -> BTreeSet<String> {
    let mut argv: Vec<&str> = match words {
        ["git", sub, ..] => vec!["git", sub, "-h"],
        ["python", "-m", module, ..] => vec!["python3", "-m", module, "--help"],
        [program, ..] => vec![program, "--help"],
        [] => return BTreeSet::new(),
    };
    let Some(program) = host_program(argv[0]) else {
        return BTreeSet::new();
    };
    argv.remove(0);
    let out = Command::new(program)
        .args(&argv)
        .env_clear()
        .env("PATH", sandbox::SYSTEM_PATH)
        .env("LANG", "C")
        // Not the checkout: `pytest --help` reads the conftest.py files where it starts.
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output();
    let Ok(out) = out else {
        return BTreeSet::new();
    };
    let text = String::from_utf8_lossy(&[out.stdout, out.stderr].concat()).into_owned();
    let token = Regex::new(r"(?:^|[\s,\[(|])(--?[A-Za-z0-9][A-Za-z0-9_-]*)").unwrap();
    token
        .captures_iter(&text)
        .map(|c| c[1].trim_end_matches('-').to_owned())
        .filter(|o| is_option(o))
        .collect()
}

/// Words around the options, and the fixtures, per program.
fn shape(words: &[&str]) -> (&'static str, &'static str, &'static [&'static str]) {
    const GIT: &[&str] = &[
        "repo",
        "pager",
        "pagerlog",
        "external",
        "fsmonitor",
        "pretty",
        "hooks",
    ];
    const PLAIN: &[&str] = &["plain"];
    match words.first().copied().unwrap_or("") {
        "git" => ("", "", GIT),
        "sed" => ("", "p notes.txt", PLAIN),
        "awk" | "gawk" => ("", "'{print}' notes.txt", PLAIN),
        "grep" | "egrep" | "fgrep" => ("", "one notes.txt", PLAIN),
        "rg" => ("", "one", PLAIN),
        "find" => (".", "", PLAIN),
        "sort" | "uniq" | "xxd" => ("", "notes.txt", PLAIN),
        "jq" => ("", ". data.json", PLAIN),
        "diff" => ("", "notes.txt other.txt", PLAIN),
        "node" => ("", "app.js", PLAIN),
        "python" | "python3" => ("", "", &["py"]),
        _ => ("", "", PLAIN),
    }
}

/// Every spelling of one option, with and without each value.
fn spellings(option: &str, partner: Option<&str>) -> Vec<String> {
    let mut out = vec![option.to_owned()];
    let long = option.starts_with("--");
    let short = !long && option.len() == 2;
    for v in VALUES {
        if long {
            out.push(format!("{option}={v}"));
            out.push(format!("{option} {v}"));
        } else if short {
            out.push(format!("{option}{v}"));
            out.push(format!("{option} {v}"));
        } else {
            // A single-dash long option (`-name`, `-cols`).
            out.push(format!("{option} {v}"));
            out.push(format!("{option}={v}"));
        }
    }
    if long && option.len() > 5 {
        // An abbreviation: getopt_long and git accept any unambiguous prefix.
        let cut = &option[..option.len() - (option.len() - 2) / 2];
        out.push(cut.to_owned());
        out.push(format!("{cut}={}", VALUES[1]));
        out.push(format!("{cut} {}", VALUES[0]));
    }
    if short && let Some(p) = partner {
        let (o, p) = (&option[1..], &p[1..]);
        out.push(format!("-{p}{o}"));
        out.push(format!("-{p}{o} {}", VALUES[1]));
        out.push(format!("-{o}{p} {}", VALUES[0]));
        out.push(format!("-{p}{o}{}", VALUES[2]));
    }
    out
}

/// Every case of the allow entries, in a fixed order (then sampled by the caller).
fn generate(entries: &[Entry], seed: u64, full: bool) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut rng = Rng(seed);
    for entry in entries {
        let shorts: Vec<&str> = entry
            .options
            .iter()
            .map(String::as_str)
            .filter(|o| o.len() == 2 && !o.starts_with("--"))
            .collect();
        let mut singles = vec![String::new()];
        for (i, option) in entry.options.iter().enumerate() {
            // Bundle with a neighbouring short option, chosen deterministically.
            let partner = shorts
                .iter()
                .copied()
                .filter(|p| p != option)
                .nth(i % shorts.len().max(1));
            singles.extend(spellings(option, partner));
        }
        let mut pairs = Vec::new();
        let count = if full { PAIRS_FULL } else { PAIRS_SAMPLE };
        if singles.len() > 2 {
            for _ in 0..count {
                let a = &singles[rng.below(singles.len())];
                let b = &singles[rng.below(singles.len())];
                if a != b && !a.is_empty() && !b.is_empty() {
                    pairs.push(format!("{a} {b}"));
                }
            }
        }
        let cmd = |w: &str| {
            [entry.command.as_str(), &entry.before, w, &entry.after]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Every spelling and the pairs in the entry's first fixture; in the others (git's
        // hostile repositories), each option once as written: what they test is the
        // repository, which a value rarely changes.
        for (k, fixture) in entry.fixtures.iter().enumerate() {
            let words: Vec<&String> = if k == 0 {
                singles.iter().chain(&pairs).collect()
            } else {
                singles
                    .iter()
                    .filter(|w| w.is_empty() || entry.options.contains(w))
                    .collect()
            };
            for w in words {
                cases.push(Case {
                    fixture,
                    cmd: cmd(w),
                    entry: entry.command.clone(),
                });
            }
        }
    }
    cases
}

/// `[[shell]]` entries for installed shells: each flag × each script, as `-c` and heredoc.
fn shell_cases(list: &toml::Value) -> Vec<Case> {
    let mut cases = Vec::new();
    let shells = list.get("shell").and_then(|a| a.as_array());
    for entry in shells.into_iter().flatten() {
        let Some(shell) = entry.get("command").and_then(|c| c.as_str()) else {
            continue;
        };
        if !REAL_SHELLS.contains(&shell) {
            continue;
        }
        let mut flags = BTreeSet::new();
        entry_options(entry, "", list, &mut flags);
        let mut prefixes = vec![format!("{shell} -c"), format!("{shell} -ec")];
        prefixes.extend(flags.iter().map(|f| format!("{shell} {f} -c")));
        for script in SCRIPTS {
            let quoted = format!("'{}'", script.replace('\'', r"'\''"));
            for p in &prefixes {
                cases.push(Case {
                    fixture: "plain",
                    cmd: format!("{p} {quoted}"),
                    entry: shell.to_owned(),
                });
            }
            cases.push(Case {
                fixture: "plain",
                cmd: format!("{shell} <<'EOF'\n{script}\nEOF"),
                entry: shell.to_owned(),
            });
            cases.push(Case {
                fixture: "plain",
                cmd: format!("{shell} -s <<'EOF'\n{script}\nEOF"),
                entry: shell.to_owned(),
            });
        }
    }
    cases
}

/// Builds `/fx/*` in the template (run as root on the host, before the tree is handed to
/// the command's uid). Repositories are made with the host's git, never inside the sandbox.
fn build_fixtures(root: &Path) -> Result<(), String> {
    let fx = root.join("fx");
    let files: &[(&str, &str)] = &[
        ("notes.txt", "one\ntwo\ntwo\nthree\n"),
        ("other.txt", "one\nthree\n"),
        ("data.json", "{\"name\": \"demo\", \"n\": [1, 2]}\n"),
        ("app.js", "console.log(1);\n"),
        ("src/lib.rs", "//! demo\n"),
    ];
    for (name, _) in FIXTURES {
        let dir = fx.join(name);
        for (file, body) in files {
            write(&dir.join(file), body)?;
        }
    }
    for name in [
        "repo",
        "pager",
        "pagerlog",
        "external",
        "fsmonitor",
        "pretty",
        "hooks",
    ] {
        let dir = fx.join(name);
        git(&dir, &["init", "-q", "-b", "main"])?;
        git(&dir, &["add", "."])?;
        git(&dir, &["commit", "-q", "-m", "first"])?;
        write(&dir.join("notes.txt"), "one\ntwo\nchanged\n")?;
        git(&dir, &["commit", "-q", "-am", "second"])?;
        // A dirty work tree, so that diff and status have something to show.
        write(&dir.join("notes.txt"), "one\ndirty\n")?;
    }
    let config = |name: &str, key: &str, value: &str| git(&fx.join(name), &["config", key, value]);
    config("pager", "core.pager", MARKER)?;
    config("pagerlog", "pager.log", MARKER)?;
    config("external", "diff.external", MARKER)?;
    config("fsmonitor", "core.fsmonitor", MARKER)?;
    config("pretty", "pretty.x", "%h %G?")?;
    config("pretty", "format.pretty", "x")?;
    signed_commit(&fx.join("pretty"))?;
    let hooks = fx.join("hooks/.git/hooks");
    for hook in [
        "post-index-change",
        "reference-transaction",
        "pre-auto-gc",
        "post-checkout",
        "post-commit",
        "pre-commit",
        "fsmonitor-watchman",
        "post-rewrite",
        "pre-push",
    ] {
        write_executable(&hooks.join(hook), &format!("#!/bin/sh\n{MARKER}\n"))?;
    }
    let py = fx.join("py");
    write(
        &py.join("conftest.py"),
        &format!("import subprocess\nsubprocess.run({:?}.split())\n", MARKER),
    )?;
    write(
        &py.join("tests/test_demo.py"),
        "def test_ok():\n    assert 1 + 1 == 2\n",
    )?;
    Ok(())
}

/// A commit with a `gpgsig` header on top of HEAD: `%G?` makes git verify it (with gpg).
fn signed_commit(dir: &Path) -> Result<(), String> {
    let tree = git_out(dir, &["rev-parse", "HEAD^{tree}"])?;
    let parent = git_out(dir, &["rev-parse", "HEAD"])?;
    let body = format!(
        "tree {tree}\nparent {parent}\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> \
         1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n \
         -----END PGP SIGNATURE-----\n\nsigned\n"
    );
    let file = dir.join(".git/signed-commit");
    write(&file, &body)?;
    let file_arg = file.to_string_lossy().into_owned();
    let id = git_out(dir, &["hash-object", "-t", "commit", "-w", &file_arg])?;
    std::fs::remove_file(&file).map_err(|e| e.to_string())?;
    git(dir, &["update-ref", "refs/heads/main", &id])
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    git_out(dir, args).map(drop)
}

fn git_out(dir: &Path, args: &[&str]) -> Result<String, String> {
    let git = host_program("git").ok_or("git is not installed")?;
    let out = Command::new(git)
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env_clear()
        .env("PATH", sandbox::SYSTEM_PATH)
        .env("HOME", "/nonexistent")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .map_err(|e| format!("git {args:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn write(path: &Path, body: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, body).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_executable(path: &Path, body: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    write(path, body)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The program on the system PATH, as the sandbox will find it.
fn host_program(name: &str) -> Option<PathBuf> {
    sandbox::SYSTEM_PATH
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

fn data_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// splitmix64: a small deterministic generator (the sample must not depend on a crate's
/// version).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[test]
fn spellings_cover_every_form_of_an_option() {
    let got = spellings("--output", None);
    for want in [
        "--output",
        "--output=new.out",
        "--output notes.txt",
        "--out",
        "--out=new.out",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "{want:?} missing from {got:?}"
        );
    }
    let got = spellings("-o", Some("-a"));
    for want in [
        "-o",
        "-onew.out",
        "-o 2",
        "-ao",
        "-ao new.out",
        "-oa notes.txt",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "{want:?} missing from {got:?}"
        );
    }
}

#[test]
fn options_are_found_in_any_field_of_an_entry() {
    // Tolerant of the format as it grows: option specs with arity, sets, tables of options.
    let list: toml::Value = toml::from_str(
        "[[option_set]]\nname = \"s\"\noptions = [\"-q, --quiet\"]\n\
         [[allow]]\ncommand = \"uniq\"\nforbid = [\"-z\"]\n\
         options = [\"-f, --skip-fields=N\", \"--group[=a|b]\", \"-NUM\", \"@s\"]\n\
         match = [\"uniq --not-this\"]\noperand_pattern = \"^[-+]x\"\n\
         [allow.table]\n\"-c\" = \"none\"\n\"--skip\" = { arity = 1 }\n",
    )
    .unwrap();
    let entry = &list["allow"][0];
    let mut got = BTreeSet::new();
    entry_options(entry, "", &list, &mut got);
    let got: Vec<&str> = got.iter().map(String::as_str).collect();
    assert_eq!(
        got,
        [
            "--group",
            "--quiet",
            "--skip",
            "--skip-fields",
            "-3",
            "-c",
            "-f",
            "-q",
            "-z"
        ]
    );
}

#[test]
fn known_violations_match_by_command_fixture_and_problem() {
    let case = Case {
        fixture: "plain",
        cmd: "diff -l a b".to_owned(),
        entry: "diff".to_owned(),
    };
    let k = |cmd: Option<&str>, fixture: Option<&str>, problem: Option<&str>| Known {
        line: 1,
        cmd: cmd.map(str::to_owned),
        cmd_regex: None,
        fixture: fixture.map(str::to_owned),
        problem: problem.map(|p| Regex::new(p).unwrap()),
    };
    let problem = "bash ran `/usr/bin/pr -h a`, which cmdguard says is ask [...]";
    assert!(
        k(Some("diff -l a b"), Some("plain"), Some("`/usr/bin/pr[ `]")).matches(&case, problem)
    );
    assert!(!k(Some("diff -l a b"), Some("repo"), None).matches(&case, problem));
    assert!(!k(Some("diff a b"), None, None).matches(&case, problem));
    assert!(!k(Some("diff -l a b"), None, Some("^bash wrote")).matches(&case, problem));
    assert_eq!(problem_kind(problem), "`/usr/bin/pr[ `]");
}

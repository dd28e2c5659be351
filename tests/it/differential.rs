//! differential.rs: holds cmdguard's `allow` verdicts against what real bash does.
//!
//! The analyzer reads bash through tree-sitter; this test runs the same commands under real
//! bash in the [`crate::sandbox`] and checks the promise behind `allow`: **whenever cmdguard
//! says allow, then under shims that all succeed and under shims that all fail**
//! 1. every program bash executed (or tried to, or could not find), re-analysed on its own as
//!    the command `PATH ARGS…`, is itself allowed — so it is allowlisted, wrappers and argument
//!    rules included (`find -exec`, `git -c`, `sed e` are caught here: shims never run their
//!    children, but their argv is judged);
//! 2. no file outside /dev/null was written or deleted;
//! 3. nothing connected (`/dev/tcp`, `/dev/udp`).
//!
//! A command bash could not find counts as one it would have run on a machine that has it, so
//! it gets the same re-analysis (a builtin never execs and is never seen here, which is right:
//! `echo` is bash itself). Commands cmdguard does not allow are not run: the property says
//! nothing about them, and skipping them keeps CI fast.
//!
//! Corpora: `tests/data/seed-tests.jsonl`, `benches/data/agent-commands.txt`, every
//! `tests/data/adversarial/*.jsonl`, and the file named by `CMDGUARD_DIFF_EXTRA` (one command
//! per line, or JSON lines `{"cmd": …}` / `"…"`), which is how fuzzer-found allows come in.
//! Adversarial cases may carry `"observed": ["id", …]`: program names bash must be seen to
//! execute (or fail to find) in at least one mode, which checks the case's `why` against bash.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cmdguard::{Analyzer, Verdict};

use crate::sandbox::{self, Mode, Observation, Sandbox};

/// Names a file of extra commands to check (fuzzer output, a bug report).
const EXTRA_VAR: &str = "CMDGUARD_DIFF_EXTRA";

/// A command to check and where it came from.
struct Case {
    cmd: Vec<u8>,
    origin: String,
    /// Program names bash must execute (adversarial cases that state it).
    observed: Vec<String>,
}

#[test]
fn allowed_commands_run_only_allowlisted_programs_and_write_nothing() {
    let name = "allowed_commands_run_only_allowlisted_programs_and_write_nothing";
    let Some(sandbox) = Sandbox::open_or_skip(name) else {
        return;
    };
    let analyzer = Analyzer::default();
    let cases = corpus();
    let allowed: Vec<&Case> = cases
        .iter()
        .filter(|c| analyzer.analyze_bytes(&c.cmd).verdict == Verdict::Allow)
        .collect();
    let labelled: Vec<&Case> = cases.iter().filter(|c| !c.observed.is_empty()).collect();
    let mut to_run: Vec<&[u8]> = allowed
        .iter()
        .chain(&labelled)
        .map(|c| c.cmd.as_slice())
        .collect();
    to_run.sort_unstable();
    to_run.dedup();

    let started = std::time::Instant::now();
    let runs: Vec<(Mode, Vec<Observation>)> = Mode::BOTH
        .iter()
        .map(|&mode| (mode, sandbox.observe(&to_run, mode)))
        .collect();
    let elapsed = started.elapsed();
    let find = |mode: Mode, cmd: &[u8]| -> Option<&Observation> {
        let (_, seen) = runs.iter().find(|(m, _)| *m == mode)?;
        to_run.binary_search(&cmd).ok().map(|i| &seen[i])
    };

    let mut failures = Vec::new();
    let mut timed_out = Vec::new();
    for case in &allowed {
        for mode in Mode::BOTH {
            let Some(seen) = find(mode, &case.cmd) else {
                continue;
            };
            let problems = violations(&analyzer, seen);
            if !problems.is_empty() {
                failures.push(report(case, mode, &problems, seen));
            } else if seen.timed_out {
                timed_out.push(format!("{:?} ({})", seen.cmd_text(), mode.name()));
            }
        }
    }
    for case in &labelled {
        let mut ran = BTreeSet::new();
        for mode in Mode::BOTH {
            if let Some(seen) = find(mode, &case.cmd) {
                ran.extend(programs(seen));
            }
        }
        let missing: Vec<&String> = case.observed.iter().filter(|p| !ran.contains(*p)).collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{:?} ({}): the case says bash runs {missing:?}, bash ran {ran:?}",
                String::from_utf8_lossy(&case.cmd),
                case.origin
            ));
        }
    }

    let observed = to_run.len() * Mode::BOTH.len();
    // The allows of the fast segmenter (issue 15) must be among those bash is asked about.
    let fast = allowed
        .iter()
        .filter(|c| std::str::from_utf8(&c.cmd).is_ok_and(|t| analyzer.fast_path_accepts(t)))
        .count();
    assert!(fast > 0, "no allowed command went through the fast path");
    sandbox::notice(&format!(
        "differential: {} commands, {} allowed ({fast} through the fast path), {} labelled; \
         {observed} sandbox runs in {:.1} s ({:.0} runs/s)",
        cases.len(),
        allowed.len(),
        labelled.len(),
        elapsed.as_secs_f64(),
        observed as f64 / elapsed.as_secs_f64().max(1e-9)
    ));
    if !timed_out.is_empty() {
        // Not a violation (nothing bad was seen), but what bash did after the limit is unknown.
        sandbox::notice(&format!(
            "differential: {} allowed runs hit the time limit; checked up to it:\n  {}",
            timed_out.len(),
            timed_out.join("\n  ")
        ));
    }
    assert!(
        failures.is_empty(),
        "{} differential failures (cmdguard said allow, bash did otherwise):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Everything wrong with what bash did for a command cmdguard allowed (also used by
/// `real_programs.rs`, whose programs are real).
pub(crate) fn violations(analyzer: &Analyzer, seen: &Observation) -> Vec<String> {
    violations_in(analyzer, seen, None)
}

/// [`violations`], judging each program run as cmdguard judges it in `workdir` (the directory
/// the command ran in), when there is one: what `git -C DIR` or `flock FILE` may do depends on
/// what is there.
pub(crate) fn violations_in(
    analyzer: &Analyzer,
    seen: &Observation,
    workdir: Option<&cmdguard::Workdir>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(error) = &seen.error {
        // An allowed command that could not be observed is unchecked, which must not pass.
        problems.push(format!("could not be observed: {error}"));
    }
    let attempted = seen
        .execs
        .iter()
        .map(|e| {
            let verb = if e.ok { "ran" } else { "tried to run" };
            (e.path.as_slice(), e.argv.get(1..).unwrap_or_default(), verb)
        })
        .chain(seen.not_found.iter().filter_map(|argv| {
            let (program, args) = argv.split_first()?;
            Some((
                program.as_slice(),
                args,
                "could not find (elsewhere it would run)",
            ))
        }));
    // A shell that reads its script from a heredoc (`bash <<'EOF'`) runs with no script
    // argument, which alone would ask; cmdguard analysed the heredoc as its script, and what
    // that script runs is observed as execs of its own. So such a shell exec counts as allowed
    // when the command's own analysis allowed that shell with no script argument.
    let original = analyzer.analyze_bytes(&seen.cmd);
    let base = |p: &[u8]| -> Vec<u8> { p.rsplit(|&b| b == b'/').next().unwrap_or(p).to_vec() };
    let stdin_shells: Vec<Vec<u8>> = original
        .segments
        .iter()
        .filter(|s| s.matched.is_some())
        .filter(|s| {
            s.argv
                .get(1..)
                .is_some_and(|a| a.iter().all(|w| w.starts_with('-')))
        })
        .filter_map(|s| s.argv.first())
        .map(|p| base(p.as_bytes()))
        .filter(|p| matches!(p.as_slice(), b"bash" | b"sh" | b"dash" | b"zsh" | b"ksh"))
        .collect();
    for (program, args, verb) in attempted {
        if stdin_shells.contains(&base(program)) && args.iter().all(|a| a.starts_with(b"-")) {
            continue;
        }
        let as_command = shell_command(program, args);
        let a = match workdir {
            Some(w) => analyzer.analyze_in(&as_command, w),
            None => analyzer.analyze(&as_command),
        };
        // Re-quoting loses how the words were written: an argument that was quoted in the
        // original (`grep "mkfs"`) reads as an unquoted mention here. Mentions judge the text,
        // not what runs, so they do not count against what bash executed.
        let runs_ask = a
            .findings
            .iter()
            .any(|f| f.severity != Verdict::Allow && f.code != cmdguard::Code::Mention);
        if runs_ask {
            let why: Vec<String> = a
                .findings
                .iter()
                .map(|f| format!("{}: {}", f.code, f.message))
                .collect();
            problems.push(format!(
                "bash {verb} `{as_command}`, which cmdguard says is {} [{}]",
                a.verdict,
                why.join("; ")
            ));
        }
    }
    for path in seen.written.iter().filter(|p| *p != "/dev/null") {
        problems.push(format!("bash wrote {path}"));
    }
    for path in seen.deleted.iter().filter(|p| *p != "/dev/null") {
        problems.push(format!("bash deleted {path}"));
    }
    for addr in &seen.connects {
        problems.push(format!("bash connected: connect({addr})"));
    }
    problems
}

/// Basenames of the programs bash ran or could not find.
fn programs(seen: &Observation) -> impl Iterator<Item = String> + '_ {
    let execs = seen.execs.iter().map(|e| e.path.as_slice());
    let missing = seen
        .not_found
        .iter()
        .filter_map(|argv| argv.first().map(Vec::as_slice));
    execs.chain(missing).map(|p| {
        let name = p.rsplit(|&b| b == b'/').next().unwrap_or(p);
        sandbox::show(name)
    })
}

/// `program args…` as a bash command that decodes back to exactly these words: the path (what
/// really ran, even under `exec -a`) and the arguments, quoted. Invalid UTF-8 becomes U+FFFD:
/// the analyzer asks on raw invalid bytes, but which bytes an allowed program got is not the
/// question here.
fn shell_command(program: &[u8], args: &[Vec<u8>]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(Vec::as_slice))
        .map(|word| quote(&String::from_utf8_lossy(word)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Quotes one word for bash: bare when it is plainly safe, `'…'` otherwise, and `$'…'` when it
/// holds control characters (so the command text stays free of raw CR, VT, ESC…).
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_owned();
    }
    if word.chars().any(char::is_control) {
        let mut out = String::from("$'");
        for c in word.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c if c.is_control() && (c as u32) < 0x100 => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn report(case: &Case, mode: Mode, problems: &[String], seen: &Observation) -> String {
    format!(
        "{:?} ({}; {}; cmdguard: allow)\n  {}\n  what bash did:\n{}",
        seen.cmd_text(),
        case.origin,
        mode.name(),
        problems.join("\n  "),
        seen.describe()
    )
}

fn data_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Every corpus, in a fixed order. A missing optional corpus is fine; an unreadable or
/// malformed one fails the test (a typo must not shrink the corpus silently).
fn corpus() -> Vec<Case> {
    let mut cases = Vec::new();
    let seed = data_path("tests/data/seed-tests.jsonl");
    cases.extend(jsonl(&seed, &read(&seed)));
    let agent = data_path("benches/data/agent-commands.txt");
    cases.extend(lines(&agent, &read(&agent)));
    let adversarial = data_path("tests/data/adversarial");
    if let Ok(dir) = std::fs::read_dir(&adversarial) {
        let mut files: Vec<PathBuf> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        for file in files {
            cases.extend(jsonl(&file, &read(&file)));
        }
    }
    if let Some(extra) = std::env::var_os(EXTRA_VAR) {
        let extra = PathBuf::from(extra);
        let text = read(&extra);
        // JSON lines when every non-empty line is JSON, else one raw command per line.
        let is_json = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
        cases.extend(if is_json {
            jsonl(&extra, &text)
        } else {
            lines(&extra, &text)
        });
        sandbox::notice(&format!(
            "differential: added {} from {EXTRA_VAR}",
            extra.display()
        ));
    }
    cases
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read corpus {}: {e}", path.display()))
}

fn lines(path: &Path, text: &str) -> Vec<Case> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Case {
            cmd: l.as_bytes().to_vec(),
            origin: format!("{}:{}", short(path), i + 1),
            observed: Vec::new(),
        })
        .collect()
}

/// JSON lines: `{"cmd": "…", "observed": ["id"]?, …}` or a bare JSON string. Other fields
/// (`expect`, `why`, …) belong to other tests.
fn jsonl(path: &Path, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let origin = format!("{}:{}", short(path), i + 1);
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{origin}: not JSON: {e}"));
        let (cmd, observed) = match &value {
            serde_json::Value::String(cmd) => (cmd.clone(), Vec::new()),
            obj => {
                // Invalid UTF-8 cases carry their bytes as `cmd_hex`.
                let hex = obj.get("cmd_hex").and_then(|c| c.as_str()).map(|h| {
                    (0..h.len() / 2)
                        .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap())
                        .collect::<Vec<u8>>()
                });
                let observed = obj.get("observed").and_then(|o| o.as_array());
                let observed: Vec<String> = observed
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o.as_str())
                    .map(str::to_owned)
                    .collect();
                if let Some(bytes) = hex {
                    cases.push(Case {
                        cmd: bytes,
                        origin,
                        observed,
                    });
                    continue;
                }
                let cmd = obj.get("cmd").and_then(|c| c.as_str());
                let cmd =
                    cmd.unwrap_or_else(|| panic!("{origin}: no string field `cmd` or `cmd_hex`"));
                (cmd.to_owned(), observed)
            }
        };
        cases.push(Case {
            cmd: cmd.into_bytes(),
            origin,
            observed,
        });
    }
    cases
}

fn short(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn quoted_words_read_back_as_the_same_words() {
    let analyzer = Analyzer::default();
    let words: &[&str] = &[
        "ls", "", "a b", "it's", "$(id)", "`id`", "*", "a\nb", "a\rb", "\x1b[0m", "\\", "-rf",
    ];
    for word in words {
        let cmd = format!("echo {}", quote(word));
        let a = analyzer.analyze(&cmd);
        let argv = a
            .segments
            .first()
            .map(|s| s.argv.clone())
            .unwrap_or_default();
        assert_eq!(argv, ["echo", word], "{cmd:?} decodes to {argv:?}");
    }
}

#[test]
fn each_kind_of_misbehaviour_is_a_violation() {
    // Guards against a vacuous property: a checker that flags nothing would pass every corpus.
    let analyzer = Analyzer::default();
    let exec = |path: &str, argv: &[&str]| sandbox::Exec {
        path: path.as_bytes().to_vec(),
        argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        ok: true,
    };
    let clean = Observation {
        cmd: b"ls | head".to_vec(),
        execs: vec![
            exec("/usr/bin/ls", &["ls"]),
            exec("/usr/bin/head", &["head"]),
        ],
        written: vec!["/dev/null".to_owned()],
        exit: Some(0),
        ..Observation::default()
    };
    assert_eq!(violations(&analyzer, &clean), Vec::<String>::new());
    let cases: &[(&str, Observation)] = &[
        (
            "bash ran `/usr/bin/rm -rf x`",
            Observation {
                execs: vec![exec("/usr/bin/rm", &["rm", "-rf", "x"])],
                ..clean.clone()
            },
        ),
        (
            // exec -a: argv[0] lies, the path does not.
            "bash ran `/usr/bin/rm x`",
            Observation {
                execs: vec![exec("/usr/bin/rm", &["ls", "x"])],
                ..clean.clone()
            },
        ),
        (
            "bash could not find (elsewhere it would run) `pwn-tool`",
            Observation {
                not_found: vec![vec![b"pwn-tool".to_vec()]],
                ..clean.clone()
            },
        ),
        (
            "bash wrote /project/x",
            Observation {
                written: vec!["/project/x".to_owned()],
                ..clean.clone()
            },
        ),
        (
            "bash deleted /etc/passwd",
            Observation {
                deleted: vec!["/etc/passwd".to_owned()],
                ..clean.clone()
            },
        ),
        (
            "bash connected",
            Observation {
                connects: vec!["AF_INET".to_owned()],
                ..clean.clone()
            },
        ),
        (
            "could not be observed",
            Observation {
                error: Some("x".to_owned()),
                ..clean.clone()
            },
        ),
    ];
    for (want, seen) in cases {
        let got = violations(&analyzer, seen);
        assert!(
            got.iter().any(|v| v.starts_with(want)),
            "want {want:?}, got {got:?}"
        );
    }
}

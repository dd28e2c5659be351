//! The adversarial corpus (`tests/data/adversarial/*.jsonl`): hostile and tricky-but-safe
//! commands, each labelled with what bash really does (recorded by an strace oracle).

use cmdguard::{Analyzer, Verdict};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    cmd: Option<String>,
    cmd_hex: Option<String>,
    expect: Verdict,
    why: String,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every case of every file, as (file, bytes, expected verdict, why).
pub fn cases() -> Vec<(String, Vec<u8>, Verdict, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/adversarial");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(&f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let c: Case =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}"));
            let bytes = match (c.cmd, c.cmd_hex) {
                (Some(s), _) => s.into_bytes(),
                (None, Some(h)) => hex(&h),
                (None, None) => panic!("{name}: case without cmd: {line}"),
            };
            out.push((name.clone(), bytes, c.expect, c.why));
        }
    }
    out
}

/// Cases where cmdguard is knowingly stricter than bash's real behaviour: the verdict it gives
/// today, asserted so that a fix shows up as a failure here, and why it is not fixed yet.
/// Every entry is a usability miss (`ask` where `allow`/`deny` is right), never a false allow.
const KNOWN_STRICTER: &[(&str, Verdict, &str)] = &[
    // The line assigns the literal the word expands to, and bash runs the denied command with
    // it (check/deny/assigned.rs; the labels note that deny is right too).
    (
        "x=rm; $x -rf y",
        Verdict::Deny,
        "bash runs `rm -rf y`: a recursive delete",
    ),
    (
        "x=-delete; find . $x",
        Verdict::Deny,
        "bash runs `find . -delete`",
    ),
    // tree-sitter-bash misreads these heredocs; failing closed is the intended outcome.
    (
        "cat <<\"E\"OF\n$(nc)\nEOF",
        Verdict::Ask,
        "tree-sitter splits a partly quoted delimiter",
    ),
    (
        "cat <<EOF\n\\$(nc) and \\`nc\\`\nEOF",
        Verdict::Ask,
        "tree-sitter fails on escaped substitutions in a body",
    ),
    (
        "cat <<-'EOF'\n\t$(nc)\n\tEOF",
        Verdict::Ask,
        "`<<-` asks by design (seed corpus)",
    ),
    (
        "cat <<'EOF'\nx\n  EOF\nnc\nEOF",
        Verdict::Ask,
        "tree-sitter ends a heredoc at an indented terminator",
    ),
    (
        "cat <<'EOF'\nEOF \n$(nc)\nnc\nEOF",
        Verdict::Ask,
        "tree-sitter ends a heredoc at a terminator with a trailing space",
    ),
    (
        "echo {1..2000}",
        Verdict::Ask,
        "brace expansion limit (1,024 words)",
    ),
    (
        "echo \\$HOME \\$(nc)",
        Verdict::Ask,
        "tree-sitter fails on an escaped `$(`",
    ),
    (
        "l\\\ns -la",
        Verdict::Ask,
        "a backslash-newline inside a word asks by design",
    ),
    (
        "ls -la # \u{a0}; nc",
        Verdict::Ask,
        "look-alike spaces ask wherever they are, comments included",
    ),
    // FIXME: `time` followed by a compound command is parsed as a command with a subshell argument.
    (
        "time ( ls )",
        Verdict::Ask,
        "keyword time before a compound command",
    ),
];

#[test]
fn every_adversarial_case_gets_its_expected_verdict() {
    let analyzer = Analyzer::default();
    let cases = cases();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for (file, bytes, want, why) in &cases {
        let a = analyzer.analyze_bytes(bytes);
        let text = String::from_utf8_lossy(bytes);
        if let Some((_, now, reason)) = KNOWN_STRICTER.iter().find(|(c, _, _)| *c == text) {
            assert!(*now > Verdict::Allow || *want == Verdict::Allow);
            if a.verdict != *now {
                failures.push(format!("[{file}] {text:?}: known-stricter case changed to {} ({reason}): update KNOWN_STRICTER", a.verdict));
            }
            continue;
        }
        if a.verdict != *want {
            let f: Vec<String> = a
                .findings
                .iter()
                .filter(|f| f.severity > Verdict::Allow)
                .map(|f| format!("{}: {}", f.code, f.message))
                .collect();
            failures.push(format!(
                "[{file}] {:?}: want {want}, got {} [{}] — bash: {why}",
                String::from_utf8_lossy(bytes),
                a.verdict,
                f.join("; ")
            ));
        }
    }
    let known_found = cases
        .iter()
        .filter(|(_, b, _, _)| {
            KNOWN_STRICTER
                .iter()
                .any(|(c, _, _)| *c == String::from_utf8_lossy(b))
        })
        .count();
    assert_eq!(
        known_found,
        KNOWN_STRICTER.len(),
        "a KNOWN_STRICTER entry matches no case"
    );
    assert!(
        failures.is_empty(),
        "{} of {} adversarial cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn no_adversarial_case_labelled_ask_or_deny_is_allowed() {
    // The security half of the test above, kept separate so a false allow is never hidden
    // among usability misses.
    let analyzer = Analyzer::default();
    let bad: Vec<String> = cases()
        .iter()
        .filter(|(_, b, want, _)| {
            *want > Verdict::Allow && analyzer.analyze_bytes(b).verdict == Verdict::Allow
        })
        .map(|(f, b, want, why)| {
            format!(
                "[{f}] {:?} (want {want}): {why}",
                String::from_utf8_lossy(b)
            )
        })
        .collect();
    assert!(bad.is_empty(), "false allows:\n{}", bad.join("\n"));
}

//! Scripts run by shells other than bash (issue 10 §4): cmdguard reads every script with the bash
//! grammar, so a `sh`/`dash`/`ksh`/`zsh` script passes only inside the syntax both read alike.
//! The table pins the verdicts; the differential test runs the real dash and zsh under strace
//! and checks that whatever cmdguard allows executes nothing it did not see.

use std::path::Path;
use std::process::Command;

use cmdguard::{Analyzer, Code, Verdict};

use Verdict::{Allow, Ask};

/// Commands with their verdict and, for an ask, the code that must explain it.
const TABLE: &[(&str, Verdict, Option<Code>)] = &[
    // Inside the shared syntax: analysed as bash, allowed when every program is.
    ("sh -c 'git status 2>&1 | tail -20'", Allow, None),
    ("dash -c 'ls -la && pwd'", Allow, None),
    ("sh -c 'for f in a b; do echo \"$f\"; done'", Allow, None),
    ("sh -c 'find . -name \"*.rs\" | head'", Allow, None),
    ("ksh -c 'ls'", Allow, None),
    ("zsh -c 'git status && git diff --stat'", Allow, None),
    ("bash -c 'ls &>/dev/null'", Allow, None),
    // dash reads `&>` as `&` then `>`: `touch X` runs.
    (
        "sh -c 'ls &>/dev/null touch X'",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    ("dash -c 'ls &>>f'", Ask, Some(Code::UnsupportedSyntax)),
    (
        "sh -c \"echo $'\\x41'\"",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    ("sh -c 'echo $\"hi\"'", Ask, Some(Code::UnsupportedSyntax)),
    (
        "sh -c '[[ -f x ]] && ls'",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    ("sh -c 'echo {a,b}'", Ask, Some(Code::UnsupportedSyntax)),
    ("sh -c 'echo ${!x}'", Ask, Some(Code::UnsupportedSyntax)),
    ("sh -c 'ls >&out'", Ask, Some(Code::UnsupportedSyntax)),
    (
        "sh <<'EOF'\nls &>/dev/null\nEOF",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    (
        "sh <<< 'ls &>/dev/null'",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    // zsh: a bare redirection runs a pager; `path` is PATH; `=cmd`, glob qualifiers.
    ("zsh -c '</dev/null'", Ask, Some(Code::UnsupportedSyntax)),
    (
        "zsh -c 'path=(/tmp) ls'",
        Ask,
        Some(Code::UnsupportedSyntax),
    ),
    ("zsh -c 'ls =ls'", Ask, Some(Code::UnsupportedSyntax)),
    ("zsh -c 'ls *(e:true:)'", Ask, Some(Code::UnsupportedSyntax)),
    ("zsh -c 'echo ${(e)x}'", Ask, Some(Code::UnsupportedSyntax)),
];

#[test]
fn scripts_for_other_shells_pass_only_inside_the_syntax_they_share_with_bash() {
    crate::rules::check(TABLE);
}

/// Programs a shell really executed for `script`, by basename, seen with strace.
fn real_execs(shell: &str, script: &str, dir: &Path) -> Vec<String> {
    let log = dir.join("strace.log");
    let status = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=execve", "-o"])
        .arg(&log)
        .args([shell, "-c", script])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .env("PAGER", "cat")
        .status()
        .expect("strace runs");
    let _ = status; // the script's own exit status does not matter
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    text.lines()
        .filter(|l| l.contains("execve(\"") && l.trim_end().ends_with("= 0"))
        .filter_map(|l| {
            let path = l.split("execve(\"").nth(1)?.split('"').next()?;
            Some(path.rsplit('/').next()?.to_string())
        })
        .skip(1) // the shell itself
        .collect()
}

#[test]
fn what_cmdguard_allows_for_dash_and_zsh_runs_only_what_it_saw() {
    let have = |p: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {p}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = ["strace", "dash", "zsh"]
        .into_iter()
        .filter(|p| !have(p))
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "{missing:?} missing and CMDGUARD_DIFF_REQUIRE is set"
        );
        eprintln!("skipping the dash/zsh differential test: {missing:?} not installed");
        return;
    }
    let scripts = [
        "ls &>/dev/null touch X",
        "ls &>/dev/null; pwd",
        "ls -la && pwd | head -1",
        "for f in a b; do echo \"$f\"; done",
        "echo {ls,-a}",
        "</dev/null",
        ">out",
        "ls =ls",
        "ls *(e:'touch Y':)",
        "path=(/nonexistent) ls",
        "echo $'\\x41' && ls",
        "ls >&out; wc -l out",
        "x=1; echo ${x:-y} ${#x}",
        "[ -f x ] || ls",
        "cat /dev/null 2>&1 | wc -l",
    ];
    let analyzer = Analyzer::default();
    let tmp = std::env::temp_dir().join(format!("cmdguard-dialects-{}", std::process::id()));
    let mut violations = Vec::new();
    let mut allowed = 0;
    for shell in ["dash", "zsh"] {
        for script in scripts {
            let quoted = format!("'{}'", script.replace('\'', r"'\''"));
            let cmd = format!("{shell} -c {quoted}");
            let a = analyzer.analyze(&cmd);
            if a.verdict != Verdict::Allow {
                continue;
            }
            allowed += 1;
            let _ = std::fs::remove_dir_all(&tmp);
            std::fs::create_dir_all(&tmp).unwrap();
            let seen: Vec<String> = a
                .segments
                .iter()
                .filter_map(|s| s.argv.first())
                .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
                .collect();
            for prog in real_execs(shell, script, &tmp) {
                if !seen.contains(&prog) {
                    violations.push(format!(
                        "{cmd}: {shell} ran `{prog}`, analysis saw {seen:?}"
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        allowed >= 8,
        "only {allowed} scripts were allowed: the test proves little"
    );
    assert!(violations.is_empty(), "\n{}", violations.join("\n"));
}

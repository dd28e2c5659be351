//! Deny rules through side doors the red team found (issue 12, session 5): code and scripts a
//! program reads from a pipe, a process substitution or `/dev/stdin`; literals assigned in the
//! same command; programs that run a command named in their options (git, sqlite3, fd,
//! busybox). Each table holds true positives, each checked against the real program where it
//! is installed, and near misses that must not be denied.

use cmdguard::{Analyzer, Code, Verdict};

use Verdict::Deny;

/// Each row: a command and the rule that must deny it (pack-qualified), or `None` when the
/// command must not be denied.
fn denies(rows: &[(&str, Option<&str>)]) {
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (cmd, want) in rows {
        let a = analyzer.analyze(cmd);
        let rules: Vec<&str> = a
            .findings
            .iter()
            .filter(|f| f.code == Code::Denied)
            .filter_map(|f| f.rule.as_deref())
            .collect();
        let ok = match want {
            Some(id) => a.verdict == Deny && rules.contains(id),
            None => a.verdict != Deny,
        };
        if !ok {
            failures.push(format!(
                "{cmd:?}: want {want:?}, got {} {rules:?}",
                a.verdict
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

const RM: Option<&str> = Some("core.filesystem/rm-recursive");

#[test]
fn a_shell_fed_a_script_the_line_shows_runs_it() {
    // Each removed the directory under real bash 5.
    denies(&[
        ("bash <(echo 'rm -rf v')", RM),
        ("sh <(printf 'rm -rf v\\n')", RM),
        ("source <(echo 'rm -rf v')", RM),
        (". <(echo 'rm -rf v')", RM),
        ("echo 'rm -rf v' | bash /dev/stdin", RM),
        ("bash /dev/stdin <<< 'rm -rf v'", RM),
        ("echo 'rm -rf v' | cat | bash", RM),
        ("echo 'rm -rf v' | cat - | bash", RM),
        ("cat <<< 'rm -rf v' | bash", RM),
        ("cat <<'EOF' | sh\nrm -rf v\nEOF", RM),
        // Near misses: nothing runs the text, or the text is harmless, or not shown.
        ("echo 'rm -rf v' | cat", None),
        ("cat <<< 'rm -rf v'", None),
        ("bash <(echo ls)", None),
        ("source <(echo 'echo rm -rf v')", None),
        ("echo 'rm -rf v' | cat notes.txt | bash", None),
        ("cat <(echo 'rm -rf v')", None),
        ("diff <(echo 'rm -rf v') <(echo x)", None),
    ]);
}

#[test]
fn interpreter_code_fed_on_stdin_or_by_a_substitution_is_read() {
    if !cfg!(feature = "interpreters") {
        return;
    }
    let system = Some("core.filesystem/rm-recursive");
    let rmtree = Some("interpreters.python.delete");
    // Each removed the directory under real python3 3.12 / node 22.
    denies(&[
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3",
            system,
        ),
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3 -",
            system,
        ),
        (
            "python3 /dev/stdin <<< 'import os; os.system(\"rm -rf y1\")'",
            system,
        ),
        (
            "python3 <(echo 'import os; os.system(\"rm -rf y1\")')",
            system,
        ),
        (
            "echo 'import shutil; shutil.rmtree(\"/home/u\")' | python3",
            rmtree,
        ),
        (
            "echo 'require(\"child_process\").execSync(\"rm -rf n1\")' | node",
            system,
        ),
        // Near misses.
        ("echo 'print(\"rm -rf y1\")' | python3", None),
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3 script.py",
            None,
        ),
        ("echo 'import os; os.system(\"rm -rf y1\")' > x.py", None),
        ("python3 <(echo 'print(1)')", None),
    ]);
}

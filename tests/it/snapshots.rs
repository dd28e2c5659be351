//! Insta snapshots of the JSON analysis for a corpus of tricky commands: any change in what
//! cmdguard says about them shows up in review.

use cmdguard::Analyzer;

const TRICKY: &[&str] = &[
    "git diff --stat | head",
    "ls > out.txt",
    "echo $(rm -rf ~)",
    "time git log -5",
    "FOO=1 timeout 5 grep -rn x . 2>/dev/null",
    "cat <<'EOF' | grep x\n$(reboot)\nEOF",
    "bash -c 'ls; rm x'",
    "find . -name '*.tmp' -exec rm {} \\;",
    "sed -n 's/a/b/w out' f",
    "echo \"open",
    "git() { ls; }; git push",
    "l\\s {-la,-R}",
];

#[test]
fn json_analysis_of_tricky_commands() {
    let analyzer = Analyzer::default();
    let all: Vec<_> = TRICKY.iter().map(|c| analyzer.analyze(c)).collect();
    insta::assert_snapshot!(without_origin_lines(
        &serde_json::to_string_pretty(&all).unwrap()
    ));
}

/// JSON with the line numbers of rule origins (`"<embedded>:412"`) hidden: the snapshots pin
/// which rule matched, not where allowlist.toml happens to keep it (a test in `rules` checks
/// the lines).
fn without_origin_lines(json: &str) -> String {
    let line = regex::Regex::new(r#""origin": "(<embedded>|<string>):\d+""#).unwrap();
    line.replace_all(json, r#""origin": "$1:LINE""#)
        .into_owned()
}

/// What a git command in a repository with program-running config says, scratch path hidden.
#[test]
fn json_analysis_in_a_repository_that_runs_programs() {
    let dir = std::env::temp_dir().join(format!("cmdguard-snap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in [
        "r/.git/objects",
        "r/.git/refs",
        "clean/.git/objects",
        "clean/.git/refs",
    ] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for repo in ["r", "clean"] {
        std::fs::write(dir.join(repo).join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    }
    std::fs::write(
        dir.join("r/.git/config"),
        "[core]\n\tfsmonitor = ./watch.sh\n[include]\n\tpath = team.inc\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("r/.git/team.inc"),
        "[diff \"img\"]\n\ttextconv = exif\n",
    )
    .unwrap();
    std::fs::write(dir.join("clean/.git/config"), "[core]\n\tbare = false\n").unwrap();
    let analyzer = Analyzer::default();
    let workdir = cmdguard::Workdir::new(dir.join("clean"));
    let all: Vec<_> = [
        "git status",
        "cd ../r && git diff --stat",
        "cd \"$D\" && git log",
    ]
    .iter()
    .map(|c| analyzer.analyze_in(c, &workdir))
    .collect();
    let text = serde_json::to_string(&all)
        .unwrap()
        .replace(&dir.display().to_string(), "<scratch>");
    let text = without_origin_lines(&text.replace("\"origin\":", "\"origin\": "));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    insta::assert_json_snapshot!(value);
    std::fs::remove_dir_all(&dir).unwrap();
}

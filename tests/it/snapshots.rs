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
    insta::assert_json_snapshot!(all);
}

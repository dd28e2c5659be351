//! The fast segmenter against the full path: wherever the fast path takes a command, the whole
//! `Analysis` (verdict, findings with spans, segments with every field) must equal the one the
//! parser and the tree walker produce. Over the seed corpus, the agent corpus, the adversarial
//! corpora, a table of shapes, and generated commands built from every kind of bash syntax
//! (words, each kind of quote, operators, redirections, `$`, backslashes, newlines, comments,
//! unicode). The fuzz target `fuzz/fuzz_targets/fast_vs_full.rs` asserts the same.

use std::sync::OnceLock;

use cmdguard::{Analyzer, Verdict};
use proptest::prelude::*;

/// The shipped analyser and the reference without the fast path, built once.
fn pair() -> &'static (Analyzer, Analyzer) {
    static PAIR: OnceLock<(Analyzer, Analyzer)> = OnceLock::new();
    PAIR.get_or_init(|| (Analyzer::default(), Analyzer::default().without_fast_path()))
}

/// Fails unless `cmd` analyses the same both ways; returns whether the fast path took it.
fn same(fast: &Analyzer, full: &Analyzer, cmd: &str) -> Result<bool, String> {
    let a = fast.analyze(cmd);
    let b = full.analyze(cmd);
    let taken = fast.fast_path_accepts(cmd);
    // Where the fast path declines, both sides run the same code, and only the wall clock
    // (`[limits] max_ms`, on a loaded machine, for the huge inputs of `limits.jsonl`) can
    // make them differ.
    let clock = |x: &cmdguard::Analysis| {
        x.findings
            .iter()
            .any(|f| f.message.contains("longer than its time limit"))
    };
    if !taken && (clock(&a) || clock(&b)) {
        return Ok(false);
    }
    if a != b {
        return Err(format!(
            "fast path differs on {cmd:?}\n fast: {}\n full: {}",
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        ));
    }
    Ok(taken)
}

fn corpus_lines() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in include_str!("../../benches/data/agent-commands.txt").lines() {
        out.push(("agent".to_string(), l.to_string()));
    }
    for l in include_str!("../data/seed-tests.jsonl").lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
            && let Some(c) = v["cmd"].as_str()
        {
            out.push(("seed".to_string(), c.to_string()));
        }
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/adversarial");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        for l in std::fs::read_to_string(&f).unwrap().lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
                && let Some(c) = v["cmd"].as_str()
            {
                out.push((f.display().to_string(), c.to_string()));
            }
        }
    }
    out
}

#[test]
fn fast_path_equals_full_path_on_every_corpus() {
    let (fast, full) = pair();
    let mut failures = Vec::new();
    let mut taken = 0;
    let lines = corpus_lines();
    for (origin, cmd) in &lines {
        match same(fast, full, cmd) {
            Ok(t) => taken += usize::from(t),
            Err(e) => failures.push(format!("{origin}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The fast path is worth having only if it takes the common shape: most agent commands.
    let agent = lines.iter().filter(|(o, _)| o == "agent").count();
    let agent_taken = lines
        .iter()
        .filter(|(o, c)| o == "agent" && fast.fast_path_accepts(c))
        .count();
    assert!(
        agent_taken * 2 > agent,
        "the fast path takes only {agent_taken} of {agent} agent commands"
    );
    assert!(taken >= agent_taken);
}

/// Shapes at the edge of the subset, each with whether the fast path takes it. Those it takes
/// must equal the full path; those it declines are there so a widened subset is a visible
/// change of this table.
const SHAPES: &[(&str, bool)] = &[
    ("ls -la", true),
    ("git diff --stat | head -20", true),
    ("cargo test 2>&1 | tail -5", true),
    ("A=1 B='x y' ls > /dev/null 2>&1", true),
    ("LC_ALL=C sort -u f", true),
    ("A=1", true),
    ("A= ls", true),
    ("a=1 b=2", true),
    ("echo \"a $HOME b\" x$Y'q'", true),
    ("git log --format='%h %s' >/dev/null 2>&1; ls", true),
    ("ls && pwd || echo no; id;", true),
    ("echo \"\" '' \"x\"'y'", true),
    ("grep -rn 'a|b' src &> out.txt", true),
    ("wc -l < data.txt >> out", true),
    ("echo 'héllo wörld' \"ünï\"", true),
    ("ls *.rs src/*.c", true),
    ("echo \"$a[0]\" \"$b-c\" $_", true),
    ("awk '{print $1}' f", true),
    ("ls\tsrc", true),
    ("echo a=b --x=y", true),
    // Not ours: each has a reading of its own.
    ("ls\npwd", false),
    ("echo a\\ b", false),
    ("echo `id`", false),
    ("echo $1 $@ $?", false),
    ("echo $'x'", false),
    ("echo $\"x\"", false),
    ("ls # comment", false),
    ("ls &", false),
    ("ls |& cat", false),
    ("(ls)", false),
    ("{ ls; }", false),
    ("ls {a,b}", false),
    ("ls ~/x", false),
    ("! ls", false),
    ("[ -f x ]", false),
    ("export A=1", false),
    ("if true; then ls; fi", false),
    ("echo done", false),
    ("cat <<EOF", false),
    ("cat <<< x", false),
    ("ls >| f", false),
    ("ls >&-", false),
    ("ls a>b", false),
    ("a+=1 ls", false),
    ("a[0]=1 ls", false),
    ("ls |", false),
    ("| ls", false),
    ("ls;;", false),
    ("> f", false),
    ("", false),
    ("   ", false),
    ("cat <(ls)", false),
    ("echo \"a\\\"b\"", false),
    // Found by the property tests: tree-sitter-bash reads each differently from its look.
    ("if@", false),    // the keyword `if`, then `@`
    ("C=|ls", false),  // `ls` becomes the value of `C`
    ("a=b 1%", false), // a name, then `%`, after an assignment
    ("1?A", false),    // a command word starting with a digit comes apart
    ("1@a", false),
    ("git x - && - te%sts/e.md", false), // found by the fuzzer: `te` becomes a variable name
    ("date +%Y", false),
    ("ls a?b", false),
    ("- x", false),
    ("ls - 2>&1 | i", false),   // found by the fuzzer
    ("echo \"a\"$HOME", false), // found by the fuzzer: tree-sitter makes two words of it
    ("echo \"a\"b$HOME", true),
    ("cat -", false),
    ("ls a+=b", false),
    ("wc -l 0< f", false),   // the word `0`, then `<` (bash: descriptor 0)
    ("ls | cat > f", false), // a redirection on a later stage hangs on the whole pipeline
    ("ls && cat 2>&1 | head", false),
    // Found by the property test in CI: `_` is a special parameter to tree-sitter-bash, so
    // `_=` is a command word there.
    ("_=", false),
    ("_=1 ls", false),
    ("__=1 ls", true),
    ("a_=1 ls", true),
    // Found by the fuzz target: a word starting with `=` is a test operator to
    // tree-sitter-bash, a syntax error outside a test.
    ("r ==", false),
    ("ls = x", false),
    ("ls =~ x", false),
    ("ls -a ==b", false),
    ("ls a=b a==b", true),
    ("a=b\"\"x$A-y\"\"", false),
    ("a=b\"\"x$A-y", false),
    ("a=\"\"x$A-y", false),
    ("a=b''x$A-y", false),
    ("a=b\"\"x${A}-y", false),
    ("echo \"\"x$A-y", false),
    ("a=b\"\"x$A", false),
    // `${NAME}` and `$(…)` around one simple command (session 8).
    ("echo ${HOME}", true),
    ("ls ${HOME}/x \"${A}\"y z${B}", true),
    ("A=${B}c ls > ${D}e", true),
    ("x=$(nc) ls", true),
    ("FOO=\"$(nc)\" git status; A=$(pwd)", true),
    ("echo x'{a,b}'y", true), // quoted braces: the walker's brace expander gives it back whole
    ("echo $(id)", true),
    (
        "echo \"Current branch: $(git branch --show-current)\"",
        true,
    ),
    ("make -j$(nproc) && ls $(pwd)/x", true),
    ("A=$(pwd) ls $( ls  -a ) 2>&1 | wc -l", true),
    ("echo $(cat \"$F\" 'x y') $(date)", true),
    ("echo ${A:-x}", false),
    ("echo ${#A}", false),
    ("echo ${!A}", false),
    ("echo ${A[0]}", false),
    ("echo ${1}", false),
    ("echo ${A", false),
    ("echo $(ls | wc -l)", false),
    ("echo $(ls; pwd)", false),
    ("echo $(ls > f)", false),
    ("echo $(A=1)", false),
    ("echo $(A=1 ls)", false),
    ("echo $(echo $(id))", false),
    ("echo $()", false),
    ("echo $( )", false),
    ("echo $(ls", false),
    ("echo $(time ls)", false),
    ("echo $(if)", false),
    ("ls > $(f)", false),
    ("echo \"a\"$(id)", false),
    ("$(id)", false),
    ("echo $((1+2))", false),
    ("echo $(ls)x)", false),
    // `time` first in a statement: the keyword, stripped as the walker strips it.
    ("time ls", true),
    ("time cargo build --release > log 2>&1", true),
    ("time -p ls && time -- ls; time -p -- ls -a", true),
    ("ls && time ls | cat", true),
    ("ls | time ls", false),
    ("time", false),
    ("time -p", false),
    ("time time ls", false),
    ("A=1 time ls", false),
    ("time A=1 ls", true), // tree-sitter-bash and the walker: the words `A=1 ls`
    ("echo time", false),
    ("time.sh x", false),
];

#[test]
fn shapes_at_the_edge_of_the_subset() {
    let (fast, full) = pair();
    let mut failures = Vec::new();
    for (cmd, taken) in SHAPES {
        match same(fast, full, cmd) {
            Ok(t) if t == *taken => {}
            Ok(t) => failures.push(format!("{cmd:?}: fast path takes it: {t}, want {taken}")),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A long `&&` list is left to the full path (its tree nests one level per operator); a long
/// pipeline within the limit is taken, and both agree with the full path.
#[test]
fn long_lists_and_pipelines() {
    let (fast, full) = pair();
    for n in [2, 31, 32, 33, 100, 300] {
        for op in [" && ", " | ", "; ", " || "] {
            let cmd = vec!["ls"; n].join(op);
            let taken = same(fast, full, &cmd).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(taken, n <= 32, "{n} × {op:?}");
        }
    }
}

/// The fast path never turns a verdict: its verdicts on the agent corpus are those of the full
/// path (the corpus test above compares whole analyses; this names the property).
#[test]
fn no_agent_corpus_verdict_changes() {
    let (fast, full) = pair();
    for cmd in include_str!("../../benches/data/agent-commands.txt").lines() {
        let (a, b): (Verdict, Verdict) = (fast.analyze(cmd).verdict, full.analyze(cmd).verdict);
        assert_eq!(a, b, "{cmd}");
    }
}

/// Fragments of every kind of bash syntax the fast path must either read exactly or decline.
fn fragment() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "ls",
        "git",
        "diff",
        "echo",
        "cat",
        "rm",
        "-rf",
        "-la",
        "--x=y",
        "a=b",
        "A=1",
        "_x=",
        "PATH=",
        "LC_ALL=C",
        "x",
        "0",
        "2",
        "12",
        "/dev/null",
        "*",
        "?",
        "*.rs",
        "%",
        "^",
        ",",
        "+",
        "@",
        ":",
        ".",
        "..",
        "-",
        "--",
        " ",
        " ",
        " ",
        "\t",
        "|",
        "||",
        "&&",
        ";",
        ";;",
        "&",
        "|&",
        "\n",
        "\r",
        "'",
        "\"",
        "''",
        "\"\"",
        "'a b'",
        "\"a b\"",
        "\"$A\"",
        "\"x$A-y\"",
        "$",
        "$A",
        "$_",
        "$1",
        "$@",
        "$?",
        "${A}",
        "$(",
        ")",
        "(",
        "`",
        "\\",
        "\\ ",
        "\\\n",
        "#",
        " #c",
        "!",
        "{",
        "}",
        "{a,b}",
        "[",
        "]",
        "~",
        "~/x",
        "=",
        "+=",
        ">",
        ">>",
        "<",
        "2>",
        "2>&1",
        ">&2",
        "&>",
        "&>>",
        "<&0",
        ">&-",
        "<<",
        "<<<",
        "<>",
        ">|",
        ">(",
        "<(",
        "$'x'",
        "$\"x\"",
        "if",
        "then",
        "fi",
        "done",
        "time",
        "export",
        "in",
        "é",
        "日本",
        "\u{a0}",
        "\u{200b}",
        "ａ",
        "\u{7f}",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        6 => fixed,
        1 => "[ -~]{1,6}",
        1 => any::<char>().prop_filter("no NUL", |c| *c != '\0').prop_map(String::from),
    ]
}

fn command() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 1..14)
        .prop_map(|parts| parts.concat())
        .prop_filter("crashes the reference parser", |c| {
            !crashes_tree_sitter_bash(c)
        })
}

/// tree-sitter-bash 0.25's scanner calls C `isdigit` on the character after `{` (and after
/// `{digits.`), which reads out of bounds for a large code point: `{` + U+E0001 + `}` kills
/// the process with SIGSEGV on the full path (scanner.c:1158 and :1172). Such text is left
/// out here so the property can run; the fast path declines every `{` anyway.
fn crashes_tree_sitter_bash(cmd: &str) -> bool {
    cmd.match_indices('{').any(|(i, _)| {
        cmd[i + 1..]
            .chars()
            .find(|c| !(c.is_ascii_digit() || *c == '.'))
            .is_some_and(|c| !c.is_ascii())
    })
}

/// Commands mostly inside the subset, so the property is exercised where the fast path says
/// yes: words, quotes and `$NAME` joined by blanks and list operators, with redirections.
fn likely_command() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "ls",
        "git",
        "log",
        "cat",
        "-n",
        "--oneline",
        "f.txt",
        "'a b'",
        "\"$HOME/x\"",
        "$X",
        "x$Y'z'",
        "\"\"",
        "*.rs",
        "A=1",
        "B='q'",
        "C=",
        "_=",
        "_=x",
        "==",
        "=~",
        "=x",
        "a==b",
        "a=b",
        "2>&1",
        ">/dev/null",
        "> out",
        "2>/dev/null",
        "< in",
        ">> log",
        "&>/dev/null",
        "\"é\"",
        "'日本'",
        "%h",
        "x,y",
        "${X}",
        "\"${HOME}\"/x",
        "${A}b",
        "x'{a,b}'",
        "$(ls)",
        "$( git log -n )",
        "\"a $(ls -a) b\"",
        "-j$(nproc)",
        "$(cat \"$X\")",
        "$(ls 2>&1)",
        "$(a|b)",
        "$(A=1 ls)",
        "$(",
        ")",
        "${",
        "}",
        "time",
        "-p",
        "A=$(ls)",
        "B=\"$(pwd -P)\"x",
        "C=${D}",
    ]);
    let op = prop::sample::select(vec![" ", " ", " ", " | ", " && ", " || ", "; ", ";", "|"]);
    prop::collection::vec((word, op), 1..10).prop_map(|parts| {
        let mut s = String::new();
        for (w, o) in parts {
            s.push_str(w);
            s.push_str(o);
        }
        s.trim_end_matches([' ', '|', '&']).to_string()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn generated_commands_analyse_the_same_both_ways(cmd in command()) {
        let (fast, full) = pair();
        if let Err(e) = same(fast, full, &cmd) {
            return Err(TestCaseError::fail(e));
        }
    }

    #[test]
    fn likely_commands_analyse_the_same_both_ways(cmd in likely_command()) {
        let (fast, full) = pair();
        if let Err(e) = same(fast, full, &cmd) {
            return Err(TestCaseError::fail(e));
        }
    }
}

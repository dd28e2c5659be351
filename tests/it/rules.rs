//! Table tests, one table per rule, all through `check`: each row is a command, the verdict it
//! must get, and the finding code that must explain it (`None` for an allow with no finding).

use cmdguard::{
    Allowlist, AllowlistBuilder, Analysis, Analyzer, Code, DEFAULT_ALLOWLIST, Match, Rule,
    RuleOrigin, Verdict, Workdir,
};

use Verdict::{Allow, Ask, Deny};

/// Checks each row: the verdict, and the code that must explain it (`None`: no finding above
/// allow). Shared by the table modules.
pub(crate) fn check(rows: &[(&str, Verdict, Option<Code>)]) {
    let analyzer = Analyzer::default();
    table(rows, |cmd| analyzer.analyze(cmd), Explained::AnyFinding);
}

/// Checks each row in `workdir`: the verdict, and the code that must explain it (`None`: no
/// finding above allow).
#[track_caller]
pub(crate) fn check_in(workdir: &Workdir, rows: &[(&str, Verdict, Option<Code>)]) {
    let analyzer = Analyzer::default();
    table(
        rows,
        |cmd| analyzer.analyze_in(cmd, workdir),
        Explained::AboveAllow,
    );
}

/// Which findings may carry a row's expected code.
enum Explained {
    /// Any finding, an `allow` one included.
    AnyFinding,
    /// Only a finding above `allow`.
    AboveAllow,
}

#[track_caller]
fn table(
    rows: &[(&str, Verdict, Option<Code>)],
    analyze: impl Fn(&str) -> Analysis,
    explained: Explained,
) {
    let mut failures = Vec::new();
    for (cmd, want, code) in rows {
        let a = analyze(cmd);
        let codes: Vec<Code> = a
            .findings
            .iter()
            .filter(|f| f.severity > Allow)
            .map(|f| f.code)
            .collect();
        let code_ok = match (code, &explained) {
            (Some(c), Explained::AnyFinding) => a.findings.iter().any(|f| f.code == *c),
            (Some(c), Explained::AboveAllow) => codes.contains(c),
            (None, _) => codes.is_empty(),
        };
        if a.verdict != *want || !code_ok {
            failures.push(format!(
                "{cmd:?}: want {want} {code:?}, got {} {codes:?}",
                a.verdict
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn token_prefix_matching_is_on_whole_decoded_words() {
    check(&[
        ("git diff --cached", Allow, None),
        ("git diffx", Ask, Some(Code::NotAllowlisted)),
        ("git difftool", Ask, Some(Code::NotAllowlisted)),
        ("git", Ask, Some(Code::NotAllowlisted)),
        ("\"ls\" -la", Allow, None),
        ("l\\s", Allow, None),
        ("'l's", Allow, None),
        ("g'i't status", Allow, None),
        ("$'\\x6c\\x73'", Allow, None),
        ("git --no-pager diff", Allow, None),
        ("python -m pytest_x", Ask, Some(Code::NotAllowlisted)),
    ]);
}

#[test]
fn plain_operators_pass_and_others_ask() {
    check(&[
        ("ls; pwd && echo a || echo b | wc", Allow, None),
        ("(ls) && { pwd; }", Allow, None),
        ("! ls", Allow, None),
        ("ls &", Ask, Some(Code::Operator)),
        ("ls |& wc", Ask, Some(Code::Operator)),
        ("coproc ls", Ask, Some(Code::Operator)),
        ("ls\npwd", Allow, Some(Code::Newline)),
    ]);
}

#[test]
fn substitutions_are_segments_and_their_output_is_judged_by_position() {
    check(&[
        ("echo $(pwd)", Allow, None),
        ("echo \"$(git status)\"", Allow, None),
        ("echo `pwd`", Allow, Some(Code::Backtick)),
        ("echo $(rm x)", Ask, Some(Code::NotAllowlisted)),
        ("diff <(ls a) <(ls b)", Allow, None),
        ("cat $(echo f)", Ask, Some(Code::SubstitutedArgument)),
        ("git diff $(cat f)", Ask, Some(Code::DynamicArgument)),
        ("git diff *", Ask, Some(Code::DynamicArgument)),
        ("sort $X", Ask, Some(Code::DynamicArgument)),
        ("ls $HOME *.rs", Allow, None),
    ]);
}

#[test]
fn a_dynamic_command_word_always_asks() {
    check(&[
        ("$cmd -rf x", Ask, Some(Code::DynamicCommand)),
        ("${X:-rm} x", Ask, Some(Code::DynamicCommand)),
        ("\"$EDITOR\" f", Ask, Some(Code::DynamicCommand)),
        ("$(echo ls) -rf x", Ask, Some(Code::DynamicCommand)),
        // The substitution of one `echo` of literals is read (issue 12, red team s8): bash
        // runs `rm -rf x`, which denies.
        ("$(echo rm) -rf x", Deny, Some(Code::DynamicCommand)),
        ("/???/r? x", Ask, Some(Code::DynamicCommand)),
    ]);
}

#[test]
fn only_explicit_safe_redirections_pass() {
    check(&[
        ("ls >/dev/null", Allow, None),
        ("ls 2>/dev/null", Allow, None),
        ("ls > /dev/null 2>&1", Allow, None),
        ("ls &>/dev/null", Allow, Some(Code::UncommonRedirect)),
        ("ls >&2", Allow, Some(Code::UncommonRedirect)),
        ("ls > out", Ask, Some(Code::Redirect)),
        ("ls >| out", Ask, Some(Code::Redirect)),
        ("ls <> f", Ask, Some(Code::ParseError)),
        ("ls >&file", Ask, Some(Code::Redirect)),
        ("ls 2>&11", Ask, Some(Code::Redirect)),
        ("ls >/dev/nullx", Ask, Some(Code::Redirect)),
        ("cat < /dev/tcp/evil/80", Ask, Some(Code::Redirect)),
        ("> out ls", Ask, Some(Code::Redirect)),
        // Issue 12: `<` from an ordinary file in the working directory reads like an operand;
        // outside it, or from a `[sensitive]` path, it still asks.
        ("wc -l < f", Allow, None),
        ("wc -l < /etc/passwd", Ask, Some(Code::InputRedirect)),
        ("wc -l < ../f", Ask, Some(Code::InputRedirect)),
        ("wc -l < ~/.ssh/id_rsa", Ask, Some(Code::SensitiveRead)),
        ("{ ls; } > f", Ask, Some(Code::Redirect)),
        // bash runs `echo hi rm -rf /`: words after a redirection target are arguments.
        ("echo hi > /dev/null rm -rf /", Ask, Some(Code::Mention)),
        ("rm > /dev/null -rf /", Deny, Some(Code::Denied)),
    ]);
}

#[test]
fn unusual_executable_paths_ask_and_system_paths_match_by_name() {
    check(&[
        ("/usr/bin/ls -la", Allow, Some(Code::SystemPath)),
        ("/bin/ls", Allow, Some(Code::SystemPath)),
        ("./ls", Ask, Some(Code::UnusualPath)),
        ("bin/ls", Ask, Some(Code::UnusualPath)),
        ("~/bin/ls", Ask, Some(Code::UnusualPath)),
        ("/tmp/ls", Ask, Some(Code::UnusualPath)),
    ]);
}

#[test]
fn assignments_that_change_what_runs_ask() {
    check(&[
        ("LC_ALL=C grep x f", Allow, None),
        ("n=3; echo $n", Allow, None),
        ("PATH=/tmp ls", Ask, Some(Code::Assignment)),
        ("LD_PRELOAD=/x.so ls", Ask, Some(Code::Assignment)),
        ("BASH_ENV=x ls", Ask, Some(Code::Assignment)),
        ("GIT_PAGER=sh git log", Ask, Some(Code::Assignment)),
        ("PYTHONPATH=. python -m pytest", Ask, Some(Code::Assignment)),
        ("FOO=$(touch pwned) ls", Ask, Some(Code::Assignment)),
        ("IFS=x; ls", Ask, Some(Code::Assignment)),
        // `[env] inert` is an allowlist (issue 10 §2): `A` is not on it.
        ("export A=1", Ask, Some(Code::Assignment)),
        ("printf -v PATH /tmp", Ask, Some(Code::ForbiddenArgument)),
    ]);
}

#[test]
fn tree_sitter_bash_traps_are_read_as_bash_reads_them() {
    check(&[
        // `time` is a keyword: bash runs what follows it.
        ("time git status", Allow, None),
        ("time rm -rf /", Deny, Some(Code::Denied)),
        // A quoted `time` is the time program, a wrapper.
        ("\"time\" ls", Allow, None),
        ("\"time\" -o f ls", Ask, Some(Code::Wrapper)),
        // `[ … ]` and `[[ … ]]` are test_command nodes whose operands can hide substitutions.
        ("[[ -f x ]] && [ -d y ]", Allow, None),
        ("[[ $(rm x) ]]", Ask, Some(Code::NotAllowlisted)),
        // An assignment-only statement is a variable_assignment node.
        ("a=$(rm x)", Ask, Some(Code::NotAllowlisted)),
        // A here-string after a redirect is an ERROR node although bash accepts it.
        ("cat 2>/dev/null <<< 'x'", Allow, None),
        ("cat > f <<< 'x'", Ask, Some(Code::Redirect)),
        // A function definition shadows a program name.
        ("git() { ls; }; git push", Ask, Some(Code::FunctionCall)),
        ("ls() { rm -rf x; }; ls", Deny, Some(Code::Denied)),
    ]);
}

/// Issue 10 §0: tree-sitter-bash drops a backslash-escaped space or tab between words, so a `#`
/// after it became a comment that hid the rest of the line (`echo \ #;rm -rf ~` was allowed;
/// bash runs `rm`). A comment is trusted only where bash starts a token.
#[test]
fn escaped_blanks_and_comments_are_read_as_bash_reads_them() {
    check(&[
        ("echo \\ #;rm -rf ~", Deny, Some(Code::ParserMismatch)),
        ("echo \\ #;ls", Ask, Some(Code::ParserMismatch)),
        ("echo \\\t#;ls", Ask, Some(Code::ParserMismatch)),
        ("\\ #;ls", Ask, Some(Code::ParserMismatch)),
        ("ls; \\ #;touch x", Ask, Some(Code::ParserMismatch)),
        ("echo \\ x", Ask, Some(Code::ParserMismatch)),
        ("echo ${x:-\\ a}", Ask, Some(Code::ParserMismatch)),
        ("echo $((\\ 1))", Ask, Some(Code::ParserMismatch)),
        // Inside a word, a string or a comment the pair is text in both readings.
        ("ls My\\ Documents", Allow, None),
        ("echo a\\ #b; ls", Allow, None),
        ("echo \"\\ $HOME\"", Allow, None),
        ("echo '\\ '", Allow, None),
        ("echo a # x \\ y", Allow, None),
        // An escaped backslash leaves the blank unescaped: a real comment.
        ("echo \\\\ #c", Allow, None),
        // Real comments after blanks, operators and line continuations.
        ("echo a #c", Allow, None),
        ("ls;#x", Allow, None),
        ("echo x \\\n#;ls", Allow, None),
        // A backslash-newline directly before `#` joins it to the word: no comment in bash.
        ("echo x\\\n#;ls", Ask, Some(Code::ParserMismatch)),
    ]);
}

/// Issue 17, red team round 3: bash reads the rest of its script in the locale that
/// `LC_ALL`, `LC_CTYPE` or `LANG` name, from the moment one is assigned; in BIG5, GBK,
/// GB18030 or Shift JIS a backslash can be the second byte of a character. Every spelling of
/// an assignment to one of them passes only with a value proven to read as the analyser does
/// (C, POSIX, empty, a UTF-8 codeset); the other categories and `LANGUAGE` do not change what
/// a byte is and stay inert.
#[test]
fn the_locale_bash_reads_its_script_in_is_set_only_to_a_proven_value() {
    check(&[
        // Proven values, every spelling.
        ("LC_ALL=C sort f", Allow, None),
        ("LC_ALL=POSIX sort f", Allow, None),
        ("LC_ALL= sort f", Allow, None),
        ("LANG=en_US.UTF-8 ls", Allow, None),
        ("LC_CTYPE=C.utf8 ls", Allow, None),
        ("export LANG=de_DE.UTF-8@euro", Allow, None),
        ("env LC_ALL=C.UTF-8 ls", Allow, None),
        ("declare LC_ALL=C", Allow, None),
        // Declaring, exporting or unsetting keeps a value already judged (or inherited,
        // which the bash tool checks).
        ("export LC_ALL", Allow, None),
        ("unset LANG", Allow, None),
        // Not proven: multibyte codesets, a bare name (zh_TW defaults to BIG5), paths.
        (
            "export LC_ALL=zh_TW.BIG5\necho ok",
            Ask,
            Some(Code::Assignment),
        ),
        ("LC_ALL=zh_TW.BIG5 ls", Ask, Some(Code::Assignment)),
        ("LC_CTYPE=ja_JP.SJIS ls", Ask, Some(Code::Assignment)),
        ("LANG=zh_CN.GBK ls", Ask, Some(Code::Assignment)),
        ("LANG=zh_TW ls", Ask, Some(Code::Assignment)),
        ("LC_ALL=./loc ls", Ask, Some(Code::Assignment)),
        ("LC_ALL=en_US.UTF-8@x/y ls", Ask, Some(Code::Assignment)),
        ("LC_ALL=.UTF-8 ls", Ask, Some(Code::Assignment)),
        ("env LC_CTYPE=zh_TW.BIG5 ls", Ask, Some(Code::Assignment)),
        ("declare LANG=zh_TW.BIG5", Ask, Some(Code::Assignment)),
        ("typeset -x LC_ALL=zh_TW.BIG5", Ask, Some(Code::Assignment)),
        ("readonly LC_ALL=zh_TW.BIG5", Ask, Some(Code::Assignment)),
        (
            "f() { local LC_ALL=zh_TW.BIG5; }",
            Ask,
            Some(Code::Assignment),
        ),
        ("LC_ALL=zh_TW.BIG5", Ask, Some(Code::Assignment)),
        // Values known only at run time.
        ("LC_ALL=$x ls", Ask, Some(Code::Assignment)),
        ("LC_ALL+=x", Ask, Some(Code::Assignment)),
        ("read LANG", Ask, Some(Code::Assignment)),
        ("for LC_ALL in C; do ls; done", Ask, Some(Code::Assignment)),
        ("echo ${LC_CTYPE:=C}", Ask, Some(Code::Assignment)),
        ("printf -v LC_ALL C", Ask, Some(Code::Assignment)),
        // The other categories do not change how bash splits bytes into characters.
        ("LC_TIME=de_DE ls", Allow, None),
        ("LC_COLLATE=zh_TW.BIG5 ls", Allow, None),
        ("LANGUAGE=zh_TW.BIG5 ls", Allow, None),
    ]);
}

/// Issue 10 §2: every construct that assigns a variable goes through one allowlist — exported
/// names must be in `[env] inert`; shell variables may also be lowercase; subscripts other than
/// literal numbers are arithmetic; an operator known only at run time can be `-v`.
#[test]
fn every_assignment_is_checked_against_an_allowlist_of_names() {
    check(&[
        // Prefix assignments and `env`: only inert names reach a program.
        ("LC_ALL=C sort f", Allow, None),
        ("NO_COLOR=1 TZ=UTC date", Allow, None),
        ("GCONV_PATH=. ls", Ask, Some(Code::Assignment)),
        ("OPENSSL_CONF=x ls", Ask, Some(Code::Assignment)),
        ("NODE_V8_COVERAGE=x ls", Ask, Some(Code::Assignment)),
        ("ZDOTDIR=. zsh -c ls", Ask, Some(Code::Assignment)),
        ("foo=1 ls", Ask, Some(Code::Assignment)),
        ("env FOO=1 ls", Ask, Some(Code::Assignment)),
        ("env LC_ALL=C ls", Allow, None),
        // Without PATH, bash searches a default PATH ending in `.` (found by the red team).
        (
            "env -i bash -c 'python --version'",
            Ask,
            Some(Code::Assignment),
        ),
        ("exec -c bash -c 'ls'", Ask, Some(Code::Assignment)),
        ("env -i rm -rf x", Deny, Some(Code::Denied)),
        ("env -u PATH bash -c 'ls'", Ask, Some(Code::Assignment)),
        ("env --unset=PATH ls", Ask, Some(Code::Assignment)),
        (
            "zsh -c 'for path in /tmp; do ls; done'",
            Ask,
            Some(Code::UnsupportedSyntax),
        ),
        ("zsh -c 'read path; ls'", Ask, Some(Code::UnsupportedSyntax)),
        (
            "zsh -c \"'read' path; ls\"",
            Ask,
            Some(Code::UnsupportedSyntax),
        ),
        // export / declare -x: exported, so inert names only.
        ("export LC_ALL=C", Allow, None),
        ("export GCONV_PATH=.", Ask, Some(Code::Assignment)),
        ("export foo=1", Ask, Some(Code::Assignment)),
        ("export", Ask, Some(Code::Assignment)),
        ("export $X=1", Ask, Some(Code::DynamicArgument)),
        ("declare -x FOO=1", Ask, Some(Code::Assignment)),
        // Shell variables: lowercase names or inert ones.
        ("x=1; echo $x", Allow, None),
        ("RANDOM=1", Ask, Some(Code::Assignment)),
        ("OPTIND=1", Ask, Some(Code::Assignment)),
        ("declare x=1 y", Allow, None),
        ("declare PATH=.", Ask, Some(Code::Assignment)),
        ("declare -i n=1", Ask, Some(Code::ForbiddenArgument)),
        ("declare -n r=PATH", Ask, Some(Code::ForbiddenArgument)),
        ("declare 'a[$(touch pwned)]=1'", Ask, Some(Code::Arithmetic)),
        // Of an array, bash 5.2 reads a quoted `(…)` value as a compound assignment and runs
        // the substitutions in it (red team s9: `$(touch …)` made its file).
        (
            "r=(x); declare r='($(touch pwned))'",
            Ask,
            Some(Code::Assignment),
        ),
        (
            "r=(x); typeset r+='(`touch pwned`)'",
            Ask,
            Some(Code::Assignment),
        ),
        (
            "f() { r=(x); local r=\"(\\$(touch pwned))\"; }; f",
            Ask,
            Some(Code::Assignment),
        ),
        ("declare msg='(a b)'", Ask, Some(Code::Assignment)),
        ("declare msg='a (b)'", Allow, None),
        ("readonly msg='(a b)'", Allow, None),
        ("f() { local IFS=:; }", Ask, Some(Code::Assignment)),
        ("readonly PATH", Ask, Some(Code::Assignment)),
        // `for NAME in`, `${NAME:=…}`, `{NAME}>`.
        ("for f in a b; do echo $f; done", Allow, None),
        ("for PATH in .; do ls; done", Ask, Some(Code::Assignment)),
        ("echo ${PATH:=.}", Ask, Some(Code::Assignment)),
        (": {fd}>/dev/null; ls", Allow, None),
        (": {PATH}>/dev/null; ls", Ask, Some(Code::Assignment)),
        // The builtins that assign.
        ("while read -r line; do echo $line; done", Allow, None),
        ("read -r PATH", Ask, Some(Code::Assignment)),
        ("read -a PATH", Ask, Some(Code::Assignment)),
        ("read -aPATH", Ask, Some(Code::Assignment)),
        ("read 'a[$(touch pwned)]'", Ask, Some(Code::Arithmetic)),
        ("read $name", Ask, Some(Code::DynamicArgument)),
        ("mapfile -t lines", Allow, None),
        (
            "mapfile -C 'touch x' -c 1 a",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("mapfile -t PATH", Ask, Some(Code::Assignment)),
        ("getopts ab: opt", Allow, None),
        ("getopts a PATH", Ask, Some(Code::Assignment)),
        ("printf -v PATH x", Ask, Some(Code::Assignment)),
        (
            "printf -v 'a[$(touch pwned)]' x",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("unset x", Allow, None),
        ("unset 'a[$(touch pwned)]'", Ask, Some(Code::Arithmetic)),
        // Compound array subscripts are arithmetic in an indexed array.
        ("a=([0]=1 [1]=2)", Allow, None),
        (
            "x='a[$(touch pwned)]'; a=([x]=1)",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("a+=([k]=1)", Ask, Some(Code::Arithmetic)),
        // Shell options: the strict and loud ones pass.
        ("set -euo pipefail", Allow, None),
        ("set -x; set +e", Allow, None),
        ("set -- a b", Allow, None),
        ("set", Ask, Some(Code::Assignment)),
        ("set -a", Ask, Some(Code::ForbiddenArgument)),
        ("set -k", Ask, Some(Code::ForbiddenArgument)),
        ("set -o posix", Ask, Some(Code::ForbiddenArgument)),
        ("exit 1", Allow, None),
        // A test operator known only at run time.
        (
            "op=-v; test $op 'a[$(touch pwned)]'",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("test -? 'a[$(touch pwned)]'", Ask, Some(Code::Arithmetic)),
        ("[ \"$a\" = \"$b\" ]", Allow, None),
        ("test -n \"$x\"", Allow, None),
        ("test -n \"$(git status --porcelain)\"", Allow, None),
        // An unquoted expansion or glob can split into `-v` and a subscript: a file's content
        // runs (`[ $(cat f) ]` with f holding `-v a[$(cmd)]`).
        ("[ $(cat f) ]", Ask, Some(Code::Arithmetic)),
        ("test $(cat f)", Ask, Some(Code::Arithmetic)),
        ("[ -z $x ]", Ask, Some(Code::Arithmetic)),
        ("[ -f *.txt ]", Ask, Some(Code::Arithmetic)),
        ("[[ -z $x ]]", Allow, None),
        // A function named by a path shadows the program.
        ("/bin/ls() { ls; }; /bin/ls", Ask, Some(Code::FunctionCall)),
    ]);
}

/// Issue 10 §5: the `+`, `-` and space modifiers in front of `%G` still verify signatures.
#[test]
fn git_formats_that_verify_signatures_ask_in_every_spelling() {
    check(&[
        (
            "git log --format='%+G?'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git log --format='%-GS'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git log --format='% GK'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git log --pretty='format:%h %(signature)'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("git log --format='%%G %h'", Allow, None),
        // A ref-filter sort key is an atom too (found by the red team).
        (
            "git for-each-ref --sort=signature",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git branch --sort=-signature:signer",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git tag -l --sort=signature",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("git for-each-ref --sort=-committerdate", Allow, None),
        ("git log --format='%h %s %+b'", Allow, None),
    ]);
}

/// Issue 10 §7: writing to the command's own standard streams by path is not a write.
#[test]
fn the_standard_streams_by_path_are_not_files() {
    check(&[
        // Appending only: `>` reopens the file behind the stream and truncates it when the
        // caller's stderr is a log file (found by the red team).
        ("echo error >>/dev/stderr", Allow, None),
        ("echo out >>/dev/stdout", Allow, None),
        ("ls 2>>/dev/fd/1", Allow, None),
        ("echo error >/dev/stderr", Ask, Some(Code::Redirect)),
        ("ls 2>/dev/fd/1", Ask, Some(Code::Redirect)),
        ("echo x >/dev/stderrx", Ask, Some(Code::Redirect)),
        ("echo x >/dev/fd/3", Ask, Some(Code::Redirect)),
        ("echo x &>/dev/stderr", Ask, Some(Code::Redirect)),
    ]);
}

#[test]
fn arithmetic_that_evaluates_values_asks() {
    check(&[
        ("echo $((1 + 2))", Allow, None),
        ("echo $((x))", Ask, Some(Code::Arithmetic)),
        ("echo $(( $(rm x) ))", Ask, Some(Code::NotAllowlisted)),
        ("[[ $x -eq 1 ]]", Ask, Some(Code::Arithmetic)),
        ("[[ 1 -eq 'a[$(rm x)]' ]]", Ask, Some(Code::Arithmetic)),
        ("[[ 2 -eq 2 ]]", Allow, None),
        ("test -v 'a[$(touch pwned)]'", Ask, Some(Code::Arithmetic)),
        ("[ \"$#\" -eq 0 ]", Allow, None),
        ("echo ${a[$x]}", Ask, Some(Code::Arithmetic)),
        ("echo ${!x}", Ask, Some(Code::EvaluatedExpansion)),
        ("echo ${x@P}", Ask, Some(Code::EvaluatedExpansion)),
        ("a[$(touch pwned)]=1", Ask, Some(Code::NotAllowlisted)),
    ]);
}

#[test]
fn parse_errors_limits_and_bad_bytes_ask() {
    check(&[
        ("echo \"open", Ask, Some(Code::ParseError)),
        ("echo $(date", Ask, Some(Code::ParseError)),
        ("diff <(ls x", Ask, Some(Code::ParseError)),
        ("if true; then ls", Ask, Some(Code::ParseError)),
        ("l\\\ns", Ask, Some(Code::ParserMismatch)),
        ("ls\r", Ask, Some(Code::InvalidInput)),
        ("ls\u{a0}-la", Ask, Some(Code::InvalidInput)),
        ("ls\u{b}", Ask, Some(Code::InvalidInput)),
        ("cat <<EOF\n`rm x`\nEOF", Ask, Some(Code::ParserMismatch)),
    ]);
    let a = Analyzer::default().analyze_bytes(b"ls\0; rm x");
    assert_eq!(a.verdict, Ask);
    assert!(a.findings.iter().any(|f| f.code == Code::InvalidInput));
    let big = "ls ".repeat(30_000);
    let a = Analyzer::default().analyze(&big);
    assert_eq!(a.verdict, Ask);
    assert_eq!(a.findings[0].code, Code::LimitExceeded);
}

/// Found by `cargo fuzz run analyze` in its first minute: after `| |`, each later pipeline stage
/// doubled the work of one tree-sitter recovery step, which the parse clock cannot interrupt
/// (29 stages ran for minutes). The pipe limit refuses such inputs before parsing.
#[test]
fn fuzz_exponential_pipeline_recovery_is_refused_before_parsing() {
    let cmd = format!("cat | | {}{{x:?$(i", "cat | ".repeat(29));
    let a = Analyzer::default().analyze(&cmd);
    assert_eq!(a.verdict, Ask);
    assert_eq!(a.findings[0].code, Code::LimitExceeded);
    // Still parsed and judged normally below the limit.
    let a = Analyzer::default().analyze(&format!("cat | | {}{{x:?$(i", "cat | ".repeat(10)));
    assert_eq!(a.verdict, Ask);
    assert!(a.findings.iter().any(|f| f.code == Code::ParseError));
    let ok = Analyzer::default().analyze(&format!("git log{}", " | head".repeat(20)));
    assert_eq!(ok.verdict, Allow);
}

#[test]
fn heredocs_expand_only_when_unquoted() {
    check(&[
        ("cat <<'EOF'\n$(rm x)\nEOF", Allow, None),
        ("cat <<EOF\nplain $HOME\nEOF", Allow, None),
        ("cat <<EOF\n$(rm x)\nEOF", Ask, Some(Code::NotAllowlisted)),
        ("cat <<EOF | grep x\nhello\nEOF", Allow, None),
        ("cat <<EOF > f\nhello\nEOF", Ask, Some(Code::Redirect)),
    ]);
}

#[test]
fn argument_rules_catch_every_spelling() {
    check(&[
        ("find . -name '*.rs'", Allow, None),
        ("find . -name -delete", Allow, None),
        ("find . -delete", Deny, Some(Code::ForbiddenArgument)),
        (
            "find . -ex\\ec touch pwned \\;",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "find . -exe\"c\" touch pwned \\;",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "find . '-exec' touch pwned \\;",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "find . -name x -o -exec touch pwned \\;",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("sed -n 's/w/e/p' f", Allow, None),
        ("sed -i s/a/b/ f", Ask, Some(Code::ForbiddenArgument)),
        ("sed -ni s/a/b/ f", Ask, Some(Code::ForbiddenArgument)),
        ("sed -i.bak s/a/b/ f", Ask, Some(Code::ForbiddenArgument)),
        (
            "sed --in-place=.x s/a/b/ f",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("sed --in-pl s/a/b/ f", Ask, Some(Code::ForbiddenArgument)),
        ("sed 's/x/y/e' f", Ask, Some(Code::ForbiddenArgument)),
        ("sed -n 'w f' g", Ask, Some(Code::ForbiddenArgument)),
        ("git log --grep='--output=x'", Allow, None),
        ("git diff -- --output=x", Allow, None),
        ("git diff --output=x", Ask, Some(Code::ForbiddenArgument)),
        ("git -c core.pager=sh log", Ask, Some(Code::NotAllowlisted)),
        ("git branch -D x", Deny, Some(Code::ForbiddenArgument)),
        ("rg --pre=cat x", Ask, Some(Code::ForbiddenArgument)),
        ("rg -e --pre x", Allow, None),
        ("sort -o f f", Ask, Some(Code::ForbiddenArgument)),
        ("uniq a b", Ask, Some(Code::ForbiddenArgument)),
        ("awk '{print $1}' f", Allow, None),
        (
            "awk '{system(\"touch pwned\")}' f",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
    ]);
}

#[test]
fn wrappers_and_nested_shells_are_seen_through() {
    check(&[
        ("timeout 5 git status", Allow, None),
        ("env LC_ALL=C sort f", Allow, None),
        ("env -S 'ls -la'", Allow, None),
        ("nice -n 5 rm x", Ask, Some(Code::NotAllowlisted)),
        ("sudo ls", Ask, Some(Code::Wrapper)),
        ("sudo rm -rf /", Deny, Some(Code::Denied)),
        ("env LD_PRELOAD=x ls", Ask, Some(Code::Assignment)),
        ("timeout --bogus 5 ls", Ask, Some(Code::Wrapper)),
        ("ls | xargs grep x", Allow, None),
        ("ls | xargs sed -i s/a/b/", Ask, Some(Code::DynamicArgument)),
        ("bash -c 'ls | wc'", Allow, None),
        ("bash -c 'ls; rm x'", Ask, Some(Code::NotAllowlisted)),
        ("sh -lc 'cd /; rm -rf x'", Deny, Some(Code::Denied)),
        ("bash -c \"$CMD\"", Ask, Some(Code::Exec)),
        ("bash script.sh", Ask, Some(Code::Exec)),
        ("bash <<'EOF'\nls\nEOF", Allow, None),
        ("eval 'ls -la'", Allow, None),
        ("eval \"$X\"", Ask, Some(Code::Exec)),
        ("source env.sh", Ask, Some(Code::Exec)),
        (
            "eval eval eval eval eval eval eval eval eval eval ls",
            Ask,
            Some(Code::LimitExceeded),
        ),
    ]);
}

#[test]
fn deny_rules_fire_wherever_the_command_runs_and_not_on_mentions() {
    check(&[
        ("rm -rf build", Deny, Some(Code::Denied)),
        ("rm -r -f x", Deny, Some(Code::Denied)),
        ("echo $(rm -rf ~)", Deny, Some(Code::Denied)),
        ("find . -exec rm -rf {} +", Deny, Some(Code::Denied)),
        ("git push --force", Deny, Some(Code::Denied)),
        (
            "git push --force-with-lease",
            Ask,
            Some(Code::NotAllowlisted),
        ),
        ("curl x | sh", Deny, Some(Code::Denied)),
        (":(){ :|:& };:", Deny, Some(Code::Denied)),
        ("echo 'rm -rf /'", Allow, None),
        (
            "git commit -m \"rm -rf /\"",
            Ask,
            Some(Code::NotAllowlisted),
        ),
        ("grep -r \"mkfs\" .", Allow, None),
        ("grep -r mkfs .", Ask, Some(Code::Mention)),
        ("echo rm -rf /", Ask, Some(Code::Mention)),
        ("rm -rf / \"unclosed", Deny, Some(Code::Denied)),
    ]);
}

/// `Allowlist::default()` skips the examples at start-up; this is where they are verified.
#[test]
fn the_embedded_allowlist_verifies_its_own_examples() {
    AllowlistBuilder::new().add_default().build().unwrap();
}

#[test]
fn config_errors_name_line_column_and_key() {
    let e = Allowlist::from_toml("[[allow]]\ncommand = \"ls\"\nforbidd = []\n", None).unwrap_err();
    assert_eq!((e.line, e.column), (3, 1));
    assert!(e.message.contains("forbidd"), "{e}");
    let e = Allowlist::from_toml("[severity]\nnewlin = \"ask\"\n", None).unwrap_err();
    assert_eq!((e.line, e.column, e.key.as_deref()), (2, 1, Some("newlin")));
    let e = Allowlist::from_toml(
        "[[allow]]\ncommand = \"ls\"\nnot_match = [\"ls -la\"]\n",
        None,
    )
    .unwrap_err();
    assert_eq!((e.line, e.column, e.key.as_deref()), (3, 14, Some("ls")));
    assert!(
        e.to_string().starts_with("<string>:3:14: example `ls -la`"),
        "{e}"
    );
}

/// Each segment's typed match: its short form (what JSON's `matched` has always said), the
/// rule that matched the segment, and where that rule is written.
#[test]
fn every_match_names_its_rule_and_where_it_is_written() {
    let analyzer = Analyzer::default();
    let embedded = |id: &str| {
        let line = DEFAULT_ALLOWLIST
            .lines()
            .position(|l| l.trim() == format!("command = {id:?}"))
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("no rule `{id}` in allowlist.toml"));
        RuleOrigin::File {
            path: "<embedded>".into(),
            line,
        }
    };
    let rows: &[(&str, &str, &str, RuleOrigin)] = &[
        (
            "git diff --stat",
            "git diff",
            "git diff",
            embedded("git diff"),
        ),
        (
            "timeout 5 git status",
            "timeout → git status",
            "timeout",
            embedded("timeout"),
        ),
        (
            "timeout 5 frobnicate",
            "timeout → ?",
            "timeout",
            embedded("timeout"),
        ),
        ("xargs", "xargs → echo", "xargs", embedded("xargs")),
        ("bash -c 'ls'", "bash -c", "bash", embedded("bash")),
        ("eval ls", "eval", "eval", RuleOrigin::BuiltIn),
        ("[[ -f x ]]", "[[", "[[", RuleOrigin::BuiltIn),
    ];
    let mut failures = Vec::new();
    for (cmd, short, id, origin) in rows {
        let a = analyzer.analyze(cmd);
        let got = a.segments[0].matched.as_ref().map(|m| {
            let r = m.rule();
            (m.to_string(), r.id.clone(), r.origin.clone())
        });
        let want = Some((short.to_string(), id.to_string(), origin.clone()));
        if got != want {
            failures.push(format!("{cmd:?}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    // A wrapper's match holds what matched the command it runs.
    let a = analyzer.analyze("timeout 5 git status");
    let Some(Match::Wrapper {
        inner: Some(inner), ..
    }) = &a.segments[0].matched
    else {
        panic!("{:?}", a.segments[0].matched)
    };
    assert_eq!(
        **inner,
        Match::Entry(Rule {
            id: "git status".into(),
            origin: embedded("git status"),
        })
    );
}

/// Findings that rules produced carry the rule's id: per-option rules, deny rules, wrappers
/// that ask by themselves.
#[test]
fn findings_name_the_rule_that_produced_them() {
    let analyzer = Analyzer::default();
    for (cmd, code, rule) in [
        ("sort -o out f", Code::ForbiddenArgument, "sort"),
        ("rm -rf /", Code::Denied, "core.filesystem/rm-recursive"),
        ("sudo ls", Code::Wrapper, "sudo"),
        ("timeout --frob 5 ls", Code::Wrapper, "timeout"),
        ("xargs --frob ls", Code::Wrapper, "xargs"),
        // Shells and the builtins that run code name themselves too.
        ("bash -c \"$x\"", Code::Exec, "bash"),
        ("sh script.sh", Code::Exec, "sh"),
        ("sh -c 'ls &>/dev/null'", Code::UnsupportedSyntax, "sh"),
        ("eval \"$x\"", Code::Exec, "eval"),
        ("source ./env.sh", Code::Exec, "source"),
        ("trap 'ls' EXIT", Code::Exec, "trap"),
    ] {
        let a = analyzer.analyze(cmd);
        let f = a.findings.iter().find(|f| f.code == code);
        assert_eq!(
            f.and_then(|f| f.rule.as_deref()),
            Some(rule),
            "{cmd}: {:?}",
            a.findings
        );
    }
}

/// `Analyzer::default()` skips the embedded examples at start-up and `build()` runs them; both
/// must hold the same rules.
#[test]
fn the_default_and_the_built_allowlist_agree() {
    let built = Analyzer::new(AllowlistBuilder::new().add_default().build().unwrap());
    let default = Analyzer::default();
    assert_eq!(
        built.allowlist().entry_count(),
        default.allowlist().entry_count()
    );
    for cmd in include_str!("../../benches/data/agent-commands.txt").lines() {
        assert_eq!(built.analyze(cmd), default.analyze(cmd), "{cmd}");
    }
}

#[test]
fn unreadable_files_keep_the_io_error_as_the_source() {
    let missing = std::path::Path::new("/nonexistent/cmdguard/allow.toml");
    let e = AllowlistBuilder::new().add_file(missing).unwrap_err();
    assert_eq!(e.origin, missing.display().to_string());
    assert_eq!(e.message, "cannot read the allowlist");
    let io = std::error::Error::source(&e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    assert_eq!(io, Some(std::io::ErrorKind::NotFound));
}

#[test]
fn unknown_checkers_and_builtins_are_located_errors_listing_the_known_ones() {
    let e = Allowlist::from_toml("[[allow]]\ncommand = \"sed\"\nchecker = \"sedd\"\n", None)
        .unwrap_err();
    assert_eq!((e.line, e.column), (3, 11), "{e}");
    assert!(
        e.message.contains("`sedd`") && e.message.contains("git-format"),
        "{e}"
    );
    let e = Allowlist::from_toml(
        "[[deny]]\nid = \"x\"\nreason = \"r\"\nbuiltin = \"forkbomb\"\n",
        None,
    )
    .unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(
        e.message.contains("`forkbomb`") && e.message.contains("fork-bomb"),
        "{e}"
    );
}

#[test]
fn severity_overrides_make_a_stricter_profile() {
    let list = AllowlistBuilder::new()
        .add_default()
        .add_toml("[severity]\nnewline = \"ask\"\n", None)
        .build()
        .unwrap();
    let a = Analyzer::new(list);
    assert_eq!(a.analyze("ls\npwd").verdict, Ask);
}

#[test]
fn the_analyzer_is_send_and_sync_and_agrees_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Analyzer>();
    assert_send_sync::<cmdguard::Analysis>();
    let analyzer = std::sync::Arc::new(Analyzer::default());
    let corpus: Vec<&'static str> = include_str!("../../benches/data/agent-commands.txt")
        .lines()
        .collect();
    let serial: Vec<Verdict> = corpus.iter().map(|c| analyzer.analyze(c).verdict).collect();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let a = analyzer.clone();
            let corpus = corpus.clone();
            std::thread::spawn(move || {
                corpus
                    .iter()
                    .map(|c| a.analyze(c).verdict)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), serial);
    }
}

/// Letter and stepped sequences are brace expansions too (found by a red-team review: they
/// spelled `--output` and `-exec` past every option rule).
#[test]
fn every_brace_sequence_expands_as_bash_expands_it() {
    check(&[
        (
            "git log --{o..o}utput=M",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "find . -name a -{e..e}xec touch M \\;",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("sed -{i..i} s/a/b/ f", Ask, Some(Code::ForbiddenArgument)),
        ("sort -{o..o} out f", Ask, Some(Code::ForbiddenArgument)),
        ("{r..r}m -rf /", Ask, Some(Code::ParseError)),
        ("ls {a..c} x{1..5..2}y", Allow, None),
        ("ls '{a..c}' {a..'c'} {a..}", Allow, None),
        ("ls {a..z}{a..z}{a..z}", Ask, Some(Code::LimitExceeded)),
    ]);
    let a = Analyzer::default().analyze("echo x{a..c}y {1..1..1} {a..b}{1..2}");
    assert_eq!(
        a.segments[0].argv[1..],
        ["xay", "xby", "xcy", "1", "a1", "a2", "b1", "b2"]
    );
    // A letter range through `[ \ ] ^ _ \`` is refused rather than modelled.
    check(&[
        ("echo {Z..a}", Ask, Some(Code::LimitExceeded)),
        ("echo {Y..b..2}", Ask, Some(Code::LimitExceeded)),
    ]);
}

/// Allowed commands the grammar fuzzer produced that real bash ran differently (fed through
/// `CMDGUARD_FUZZ_ALLOWS` into the differential test): each was `allow`.
#[test]
fn fuzz_differential_findings_ask() {
    check(&[
        // bash joins a word and a process substitution with no space between them.
        ("ls<(true)", Ask, Some(Code::ParserMismatch)),
        ("cat>(true)", Ask, Some(Code::ParserMismatch)),
        ("awk {}\\Ü", Ask, Some(Code::ParserMismatch)),
        // `{}` is a command named `{}`; `{` is a keyword only as a word of its own.
        ("{}", Ask, Some(Code::ParserMismatch)),
        ("eval {}", Ask, Some(Code::ParserMismatch)),
        ("( true ) | {}", Ask, Some(Code::ParserMismatch)),
        // Only a bare `--` or `-p` is an option of the `time` keyword.
        ("time '--'", Ask, Some(Code::NotAllowlisted)),
        ("time $'\\x2d\\x2d' ls", Ask, Some(Code::NotAllowlisted)),
        // A heredoc's rest of line after a compound command still runs.
        ("! ls <<EOF |& ''\nEOF", Ask, Some(Code::NotAllowlisted)),
        // `>(` inside `[[ ]]` is a process substitution to bash.
        ("[[ *>('') ]]", Ask, Some(Code::ParserMismatch)),
        // ... and in a `case` pattern.
        (
            "case '' in sort>('')) true ;; esac",
            Ask,
            Some(Code::ParserMismatch),
        ),
        // Still allowed: the same things spelled as bash reads them.
        ("diff <(ls) <(ls)", Allow, None),
        ("{ ls; }", Allow, None),
        ("time -- ls", Allow, None),
        ("time -p ls", Allow, None),
        ("ls>/dev/null", Allow, None),
        ("echo a\"b\"c", Allow, None),
    ]);
}

/// False allows a red-team review confirmed against bash 5.2, mawk, node and git.
#[test]
fn red_team_round_four_asks() {
    check(&[
        // mawk's -W options hide the program; `-W exec FILE` runs a file.
        (
            "awk -W source 'BEGIN{system(\"touch pwned\")}'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("awk -Wv '{print}' t", Ask, Some(Code::ForbiddenArgument)),
        // node loads preloads even when only checking syntax.
        (
            "node --check -r ./x.js a.js",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "node --check --import data:x a.js",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        // rev-list and stash list take git log's diff options.
        (
            "git rev-list --output=M HEAD",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git stash list --output=M",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        // Substring offsets and lengths are arithmetic.
        // (With `x=1` the offset is one of the command's own integers, which passes: issue
        // 10 §7. A value other than an integer still asks.)
        ("x='a[0]'; echo ${PWD:0:x}", Ask, Some(Code::Arithmetic)),
        ("echo ${PWD:0:x}", Ask, Some(Code::Arithmetic)),
        ("echo ${@:x}", Ask, Some(Code::Arithmetic)),
        ("echo ${s:1:HOME}", Ask, Some(Code::Arithmetic)),
        ("file -z x.gz", Ask, Some(Code::ForbiddenArgument)),
        (
            "python -m pytest --log-file=x",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "python -m pytest --config-file=x",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        // Still allowed.
        ("node --check a.js", Allow, None),
        ("echo ${PWD:0:2} ${HOME: -1} ${HOME:-x}", Allow, None),
        ("git rev-list --count HEAD", Allow, None),
    ]);
}

/// False allows from a fifth red-team round.
#[test]
fn red_team_round_five_asks() {
    check(&[
        // xargs assigns the slot number to the named variable in the child's environment.
        (
            "echo x | xargs -P1 --process-slot-var=PATH ls",
            Ask,
            Some(Code::Wrapper),
        ),
        // `${NAME=value}` assigns NAME; BASH_CMDS is the table bash finds programs in.
        (
            "echo ${BASH_CMDS=/usr/bin/touch}; ls",
            Ask,
            Some(Code::Assignment),
        ),
        ("echo ${PATH:=/tmp}; ls", Ask, Some(Code::Assignment)),
        (
            "BASH_CMDS[ls]=/usr/bin/touch ls",
            Ask,
            Some(Code::Assignment),
        ),
        // Still allowed.
        // `${X:=a}` assigns `X`, which is neither lowercase nor in `[env] inert` (issue 10 §2).
        ("echo ${X:=a} ${Y:-b}", Ask, Some(Code::Assignment)),
        // An inherited `x` or `Y` would be printed (issue 12: only public or own variables pass).
        ("echo ${x:=a} ${Y:-b}", Ask, Some(Code::PrintsEnvironment)),
        ("x=1; echo ${x:=a} ${HOME:-b}", Allow, None),
    ]);
}

/// False allows from a sixth red-team round.
#[test]
fn red_team_round_six_asks() {
    check(&[
        // xargs -I pastes its input into words, here into a shell script.
        (
            "echo 'x;touch pwned' | xargs -I{} sh -c 'ls {}'",
            Ask,
            Some(Code::Exec),
        ),
        ("xargs -IX sh -c 'ls X'", Ask, Some(Code::Exec)),
        // timeout and taskset run a `--` that follows their operand.
        ("timeout 5 -- ls", Ask, Some(Code::Wrapper)),
        ("taskset 1 -- ls", Ask, Some(Code::Wrapper)),
        // Still allowed.
        ("ls | xargs -I{} wc -l {}", Allow, None),
        ("timeout 5 ls", Allow, None),
        ("timeout -- 5 ls", Allow, None),
        ("timeout -s KILL -- 5 ls", Allow, None),
        ("nice -- ls", Allow, None),
    ]);
}

/// Signature verification runs gpg, ssh-keygen or gpgsm on signatures the repository holds
/// (red-team round 7: a hand-made `gpgsig` commit made `git log --show-signature` run gpg).
#[test]
fn git_signature_verification_asks() {
    check(&[
        (
            "git log --show-signature",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git show --show-sig HEAD",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git log -1 --format='%G? %GK'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git show -s --pretty='%GS'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git log --pretty=format:%GS",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("git log --format %GS", Ask, Some(Code::ForbiddenArgument)),
        (
            "git shortlog --format='%GS'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git tag -l --format='%(signature)'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        (
            "git branch --format='%(signature:grade)'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        // Still allowed.
        ("git log --format='%h %s %gs'", Allow, None),
        ("git branch --format='%(refname)'", Allow, None),
        ("git shortlog -sn", Allow, None),
    ]);
}

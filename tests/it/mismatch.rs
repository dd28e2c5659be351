//! Table tests for the places where bash reads text differently from tree-sitter-bash (issue 10
//! §3): every row was run through real bash (`/work/shared/tools/exec_oracle.sh`), and each ask
//! names the bash behaviour that makes the command unsafe.

use cmdguard::{Analyzer, Code, Verdict};
use proptest::prelude::*;

use Verdict::{Allow, Ask};

use crate::rules::check;

#[test]
fn backslash_newline_after_dollar_in_double_quotes_asks() {
    let m = Some(Code::ParserMismatch);
    check(&[
        // bash joins the lines first: `"$(id)"` runs id.
        ("echo \"$\\\n(id)\"", Ask, m),
        ("echo \"$\\\n\\\n(id)\"", Ask, m),
        ("echo \"$\\\n{x@P}\"", Ask, m),
        ("echo \"$\\\n{!x}\"", Ask, m),
        ("echo \"$\\\n((1+2))\"", Ask, m),
        ("echo \"x$\\\n(id)y\"", Ask, m),
        // Inside a substitution in quotes the text is a script again: `l\<nl>s` is `ls`.
        ("echo \"$(l\\\ns -la)\"", Ask, m),
        // Joining plain text changes nothing bash expands.
        ("echo \"a\\\nb\"", Allow, None),
        ("echo \"a \\\n b\"", Allow, None),
        ("echo \"\\\\\n$HOME\"", Allow, None),
        // An escaped `$` is a dollar sign; an escaped backslash before it is not.
        ("echo \"\\$\\\n(id)\"", Allow, None),
        ("echo \"\\\\$\\\n(id)\"", Ask, m),
        // tree-sitter counts this pair into the substitution after it; bash removes it.
        ("echo \"\\\n$(ls)\"", Allow, None),
        ("echo \"$((1+\\\n$(id)))\"", Ask, m),
    ]);
}

#[test]
fn backslash_newline_in_unquoted_heredocs_asks_where_it_joins_an_expansion() {
    let m = Some(Code::ParserMismatch);
    check(&[
        ("cat <<EOF\n$\\\n(id)\nEOF", Ask, m),
        ("cat <<EOF\na $\\\n{x@P}\nEOF", Ask, m),
        // bash joins `E\<nl>OF` into the terminator and runs the next line.
        ("cat <<EOF\nE\\\nOF\nid\nEOF", Ask, m),
        ("cat <<-EOF\n\tE\\\nOF\nid\nEOF", Ask, m),
        // A quoted delimiter keeps the body literal: nothing is joined.
        ("cat <<'EOF'\n$\\\n(id)\nEOF", Allow, None),
        ("cat <<'EOF'\nE\\\nOF\nEOF", Allow, None),
        ("cat <<EOF\na\\\nb\nEOF", Allow, None),
    ]);
}

#[test]
fn a_heredoc_body_starting_with_a_continuation_asks() {
    // FIXME: bash runs only `cat` here, but tree-sitter joins the body's first line to the
    // `<<EOF` line and reads `0` as a word after the delimiter. The ask is safe, not precise.
    check(&[("cat <<EOF\n\\\n0\nEOF", Ask, Some(Code::UnsupportedSyntax))]);
}

#[test]
fn a_newline_the_parser_reads_inside_a_command_asks() {
    let m = Some(Code::ParserMismatch);
    check(&[
        // tree-sitter reads `ls id`; bash ends `ls` at the newline and runs `id`.
        ("ls\n\\\nid", Ask, m),
        ("cat\n\\\n--", Ask, m),
        ("ls\n\\\n{x@P}", Ask, m),
        ("ls -la\n\\\nchmod 777 x", Ask, m),
        // Here the tree puts the newline inside the word `\n\x`; bash runs a command `x`.
        ("echo \n\\x", Ask, m),
        ("echo \n\\`", Ask, m),
        ("ls > f\n\\\nid", Ask, m),
        // Continuations between words and newlines between commands read alike.
        ("ls \\\n  -la", Allow, None),
        ("ls\npwd", Allow, None),
        ("cat <<EOF\nx\nEOF", Allow, None),
        ("a=(1\n2)", Allow, None),
        ("ls |\n wc", Allow, None),
        ("[[ a &&\n b ]]", Allow, None),
        // FIXME: bash reads `${x:-a<newline>b}` as one expansion; the tree's word holds the
        // newline, which is taken for a command break. Safe, not precise.
        ("echo ${x:-a\nb}", Ask, m),
    ]);
}

#[test]
fn escaped_characters_inside_backquotes_ask() {
    let m = Some(Code::ParserMismatch);
    check(&[
        // bash removes one level of backslashes and reads the text again.
        ("echo `echo \\`id\\``", Ask, m),
        ("echo `echo \"\\$(id)\"`", Ask, m),
        ("echo `echo \\$(id)`", Ask, m),
        ("echo `echo a\\\\b`", Ask, m),
        ("echo \"`echo \\\"x\\\"`\"", Ask, m),
        // Other backslashes reach the inner script unchanged.
        ("echo `echo hi`", Allow, None),
        ("echo `echo a\\ b`", Allow, None),
    ]);
}

#[test]
fn translated_strings_ask_whatever_they_hold() {
    // `$"…"` goes through gettext: a catalogue can make the plain text anything, `$(cmd)`
    // included, so no spelling of it is read as its source text.
    let u = Some(Code::UnsupportedSyntax);
    check(&[
        ("echo $\"hello\"", Ask, u),
        ("echo $\"$(id)\"", Ask, u),
        ("echo x$\"hello\"", Ask, u),
        ("echo $\"hello\"x", Ask, u),
        ("x=$\"hello\"", Ask, u),
        ("cat <<< $\"hi\"", Ask, u),
        ("[[ $\"a\" ]]", Ask, u),
        ("case $\"a\" in a) ls;; esac", Ask, u),
        ("for i in $\"a\"; do ls; done", Ask, u),
        // Inside double quotes `$"` is a dollar sign and the closing quote.
        ("echo \"a$\"", Allow, None),
        ("echo \"$\"", Allow, None),
    ]);
}

#[test]
fn time_takes_one_p_then_one_double_dash() {
    let n = Some(Code::NotAllowlisted);
    check(&[
        ("time ls", Allow, None),
        ("time -p ls", Allow, None),
        ("time -- ls", Allow, None),
        ("time -p -- ls", Allow, None),
        ("time time ls", Allow, None),
        ("time -p time -p ls", Allow, None),
        // bash runs a program named `-p` or `--`.
        ("time -p -p ls", Ask, n),
        ("time -- -p ls", Ask, n),
        ("time -- -- ls", Ask, n),
        ("! time -p -p ls", Ask, n),
        ("time '-p' ls", Ask, n),
        // After `|` bash reads `time` as the program, with its own options.
        ("echo x | time", Ask, Some(Code::NotAllowlisted)),
        ("echo x | time -o f ls", Ask, Some(Code::Wrapper)),
        ("ls | time ls", Allow, None),
    ]);
}

/// Text with nothing bash expands or escapes, inside double quotes or backquotes alike.
fn plain() -> impl Strategy<Value = String> {
    "[a-z0-9 .,_/-]{0,12}"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// However many pairs sit between `$` and what follows, in double quotes or an unquoted
    /// heredoc, bash joins them into an expansion: never allow.
    #[test]
    fn a_dollar_joined_across_lines_never_allows(
        pre in plain(),
        name in "[a-z]{1,8}",
        pairs in 1usize..4,
        open in prop_oneof![Just("("), Just("{"), Just("(("), Just("{!"), Just("")],
        heredoc in any::<bool>(),
    ) {
        let join = "\\\n".repeat(pairs);
        let close = match open { "(" => ")", "{" | "{!" => "}", "((" => "))", _ => "" };
        let body = format!("{pre}${join}{open}{name}{close}");
        let cmd = if heredoc {
            format!("cat <<EOF\n{body}\nEOF")
        } else {
            format!("echo \"{body}\"")
        };
        prop_assert_ne!(Analyzer::default().analyze(&cmd).verdict, Allow, "{:?}", cmd);
    }

    /// Joining plain text changes nothing bash expands: the common case stays allowed.
    #[test]
    fn plain_text_joined_across_lines_still_allows(
        a in "[a-z0-9][a-z0-9 .,_/-]{0,11}",
        b in plain(),
        heredoc in any::<bool>(),
    ) {
        // `a` is not empty: see `a_heredoc_body_starting_with_a_continuation_asks`.
        let cmd = if heredoc {
            format!("cat <<EOF\n{a}\\\n{b}\nEOF")
        } else {
            format!("echo \"{a}\\\n{b}\"")
        };
        prop_assert_eq!(Analyzer::default().analyze(&cmd).verdict, Allow, "{:?}", cmd);
    }

    /// A backslash bash removes inside backquotes before reading them again: never allow.
    #[test]
    fn escapes_bash_removes_inside_backquotes_never_allow(
        pre in plain(),
        post in plain(),
        esc in prop_oneof![Just("\\`"), Just("\\$"), Just("\\\\")],
    ) {
        let cmd = format!("echo `echo {pre}{esc}{post}`");
        prop_assert_ne!(Analyzer::default().analyze(&cmd).verdict, Allow, "{:?}", cmd);
    }
}

/// tree-sitter-bash leaves some text of a double-quoted string outside every child: the
/// newline after a `#`-led part, and blanks before the closing quote (which its `"` token
/// swallows). bash keeps them; so must the decoded word (red team, session 4).
#[test]
fn double_quoted_text_outside_the_strings_children_is_kept() {
    let analyzer = Analyzer::default();
    for (cmd, argv) in [
        ("echo \"#\nx\"", vec!["echo", "#\nx"]),
        ("echo \"  \"", vec!["echo", "  "]),
        ("echo \"\t\"", vec!["echo", "\t"]),
        ("echo \"a  \"", vec!["echo", "a  "]),
        ("echo \"  $x\"", vec!["echo", "  $x"]),
    ] {
        let a = analyzer.analyze(cmd);
        assert_eq!(a.segments[0].argv, argv, "{cmd:?}");
    }
    check(&[
        // The payload after the newline is a command of the nested script.
        ("eval \"#\nrm -rf ~\"", Verdict::Deny, Some(Code::Denied)),
        (
            "bash -c \"echo hi\ntouch pwned\"",
            Ask,
            Some(Code::NotAllowlisted),
        ),
        (
            "sed -n \"# c\n1e touch pwned\" f",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("jq -n \"# c\nenv\"", Ask, Some(Code::PrintsEnvironment)),
        (
            "awk \"# c\nBEGIN{system(\\\"touch pwned\\\")}\"",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        // bash 5.2's braced hex escape decodes to a newline: the comment ends and rm runs.
        (
            "eval $'#\\x{0a}rm -rf ~'",
            Verdict::Deny,
            Some(Code::Denied),
        ),
        ("eval $'#\\x{0a}ls'", Allow, None),
        ("echo \"a\nb\"", Allow, None),
    ]);
}

/// tree-sitter-bash's scanner calls C's `isdigit` on the character after `{` (and after
/// `{N..M`); past U+00FF that is undefined and crashed the process (SIGSEGV with U+E0001),
/// which an agent's hook would take as "no objection". Such text is never parsed: it asks,
/// at the top level and in nested scripts.
#[test]
fn text_that_crashes_the_grammars_scanner_asks_and_never_reaches_it() {
    let analyzer = Analyzer::default();
    for cmd in [
        "{\u{e0001}}",
        "echo {\u{e0001}",
        "echo {1..\u{e0001}}",
        "bash -c $'{\\U000E0001}'",
        "eval $'echo {\\U000E0001}'",
    ] {
        let a = analyzer.analyze(cmd);
        assert_eq!(a.verdict, Ask, "{cmd:?}: {a:?}");
        assert!(
            a.findings.iter().any(|f| f.code == Code::ParseError),
            "{cmd:?}: {a:?}"
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .args(["check", "--no-config", "{\u{e0001}}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // Near misses still parse: a wide character elsewhere, or not right after the digits.
    assert_eq!(analyzer.analyze("echo '日本' {a,b}").verdict, Allow);
}

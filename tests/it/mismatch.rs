//! Table tests for the places where bash reads text differently from tree-sitter-bash (issue 10
//! §3): every row was run through real bash (`/work/shared/tools/exec_oracle.sh`), and each ask
//! names the bash behaviour that makes the command unsafe.

use cmdguard::{Analyzer, Code, Verdict};

use Verdict::{Allow, Ask};

/// Each row: command, verdict, and the code that must explain an ask (`None` for an allow with
/// no finding above allow).
fn check(rows: &[(&str, Verdict, Option<Code>)]) {
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (cmd, want, code) in rows {
        let a = analyzer.analyze(cmd);
        let codes: Vec<Code> = a
            .findings
            .iter()
            .filter(|f| f.severity > Allow)
            .map(|f| f.code)
            .collect();
        let code_ok = match code {
            Some(c) => codes.contains(c),
            None => codes.is_empty(),
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
        ("echo \"\\\\\n$x\"", Allow, None),
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
    ]);
}

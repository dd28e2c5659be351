//! check/dialect: decides whether a script run by a shell other than bash (`sh -c`, `dash -c`,
//! `zsh -c`, a heredoc fed to `ksh`) stays inside the syntax that shell and bash read alike.
//!
//! cmdguard analyses every script with the bash grammar, so a script for another shell is only
//! judged correctly where both shells agree on what it means. This module lists, per dialect,
//! the node kinds and tokens known to mean the same thing there; everything else (`&>`, which
//! dash reads as `&` then `>`; `$'…'`; zsh's glob qualifiers, `=cmd` and tied arrays such as
//! `path`; a bare redirection, for which zsh runs a pager) makes the script foreign. It never
//! decides safety itself: a portable script is still analysed as bash, a foreign one asks.

use std::time::Duration;

use tree_sitter::Node;

pub(crate) use crate::allowlist::Dialect;
use crate::parse;

/// Anonymous tokens both bash and a POSIX shell read the same way.
#[rustfmt::skip] // one group a line, each with the comment that says why it is shared
const POSIX_TOKENS: &[&str] = &[
    // command separators and the POSIX list operators
    ";", ";;", "\n", "|", "&&", "||", "&", "!",
    // grouping
    "(", ")", "{", "}",
    // quoting and substitution openers (their contents are checked node by node)
    "\"", "$(", "${", "$",
    // redirections POSIX defines (`&>`, `<<<`, `>&word` are bash's own)
    ">", ">>", "<", ">|", "<&", ">&", "<<", "<<-",
    // assignment and test brackets (`[` is the test builtin in both)
    "=", "[", "]",
    // reserved words of the POSIX grammar
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case",
    "esac",
    // declaration builtins POSIX (and dash) have
    "export", "readonly", "local", "unset",
    // POSIX parameter-expansion operators
    ":-", "-", ":=", ":?", "?", ":+", "+", "#", "##", "%", "%%",
];

/// Named node kinds both bash and a POSIX shell read the same way. Words are checked further in
/// [`posix_word`].
const POSIX_KINDS: &[&str] = &[
    "program",
    "comment",
    "command",
    "command_name",
    "word",
    "number",
    "raw_string",
    "string",
    "string_content",
    "concatenation",
    "simple_expansion",
    "expansion",
    "variable_name",
    "special_variable_name",
    "command_substitution",
    "pipeline",
    "list",
    "negated_command",
    "subshell",
    "compound_statement",
    "redirected_statement",
    "file_redirect",
    "file_descriptor",
    "heredoc_redirect",
    "heredoc_start",
    "heredoc_body",
    "heredoc_content",
    "heredoc_end",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "do_group",
    "case_statement",
    "case_item",
    "function_definition",
    "variable_assignment",
    "declaration_command",
    "unset_command",
    "test_command",
    "unary_expression",
    "binary_expression",
    "test_operator",
    // a `${x%pattern}` / `case` pattern: glob text, checked as a word
    "regex",
    "extglob_pattern",
];

/// Anonymous tokens zsh reads as bash does, in the small subset allowed for it.
const ZSH_TOKENS: &[&str] = &[
    ";", "\n", "|", "&&", "||", "!", "(", ")", "{", "}", "\"", "$(", "${", "$", ">", ">>", "<",
    "<&", ">&", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in",
];

/// Named node kinds zsh reads as bash does, in the small subset allowed for it.
const ZSH_KINDS: &[&str] = &[
    "program",
    "comment",
    "command",
    "command_name",
    "word",
    "number",
    "raw_string",
    "string",
    "string_content",
    "concatenation",
    "simple_expansion",
    "expansion",
    "variable_name",
    "special_variable_name",
    "command_substitution",
    "pipeline",
    "list",
    "negated_command",
    "subshell",
    "compound_statement",
    "redirected_statement",
    "file_redirect",
    "file_descriptor",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "do_group",
];

/// Builtins through which a zsh script could assign a variable — and zsh ties lowercase names
/// such as `path`, `cdpath` and `fpath` to the variables that say where programs and functions
/// are found — or change how zsh reads what follows. A zsh script naming one asks.
const ZSH_ASSIGNING: &[&str] = &[
    "read",
    "getopts",
    "shift",
    "set",
    "setopt",
    "unsetopt",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "integer",
    "float",
    "unset",
    "printf",
    "print",
    "vared",
    "zparseopts",
    "mapfile",
    "readarray",
    "let",
    "eval",
    "source",
    ".",
    "emulate",
    "builtin",
    "command",
    "noglob",
    "exec",
    "alias",
    "autoload",
    "zmodload",
    "functions",
    "enable",
    "disable",
];

/// Why `script`, run by the shell `name` of `dialect`, is outside the syntax it shares with
/// bash; `None` when every node is inside it (always for [`Dialect::Bash`]).
pub(crate) fn foreign_syntax(
    script: &str,
    name: &str,
    dialect: Dialect,
    parse_budget: Duration,
) -> Option<String> {
    let (kinds, tokens) = match dialect {
        Dialect::Bash => return None,
        Dialect::Posix => (POSIX_KINDS, POSIX_TOKENS),
        Dialect::Zsh => (ZSH_KINDS, ZSH_TOKENS),
    };
    let Ok(tree) = parse::parse(script, parse_budget) else {
        return Some(format!(
            "the script of `{name}` could not be parsed in time"
        ));
    };
    let foreign = |what: &str, n: Node| {
        let text = script.get(n.byte_range()).unwrap_or("");
        let shown: String = text.chars().take(40).collect();
        Some(format!(
            "`{name}` is not bash and may read {what} `{shown}` differently; cmdguard analyses \
             its scripts only within the syntax both shells read alike"
        ))
    };
    // An explicit stack, not recursion: the depth of the tree is the input's to choose.
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            return foreign("the text", n);
        }
        let kind = n.kind();
        if n.is_named() {
            if !kinds.contains(&kind) {
                return foreign(&kind.replace('_', " "), n);
            }
            let text = script.get(n.byte_range()).unwrap_or("");
            let ok = match (dialect, kind) {
                (_, "word" | "regex" | "extglob_pattern") => match dialect {
                    Dialect::Zsh => zsh_word(text),
                    _ => posix_word(text),
                },
                // `a+=x` and `a=(…)` are bash's; so is `declare`/`typeset`.
                (_, "variable_assignment") => !text.contains("+=") && !text.contains("=("),
                (_, "declaration_command") => {
                    ["export ", "readonly ", "local "]
                        .iter()
                        .any(|p| text.starts_with(p))
                        || matches!(text, "export" | "readonly" | "local")
                }
                // `[[ … ]]` is bash's; `[ … ]` is the test builtin in both.
                (_, "test_command") => text.starts_with('['),
                (_, "command_substitution") => text.starts_with("$("),
                // `function f` is not POSIX; `f()` is.
                (_, "function_definition") => !text.starts_with("function"),
                // A redirection with no command: zsh runs `$NULLCMD` or `$READNULLCMD` (a pager).
                // Quote removal comes before zsh looks a name up: `'read'` is the builtin.
                (Dialect::Zsh, "command_name") => {
                    let bare: String = text.chars().filter(|c| !"'\"\\".contains(*c)).collect();
                    !ZSH_ASSIGNING.contains(&bare.as_str())
                }
                (Dialect::Zsh, "redirected_statement") => n
                    .child_by_field_name("body")
                    .is_some_and(|b| b.kind() == "command"),
                // `>&file` (and `<&file`) duplicate only onto a descriptor number or `-` in a
                // POSIX shell; bash reads them as redirecting to a file.
                (_, "file_redirect") => dup_target_ok(n, script),
                // zsh has no word splitting and no `${x:-…}` quirks we rely on: plain `${x}`.
                (Dialect::Zsh, "expansion") => n.named_child_count() == 1,
                _ => true,
            };
            if !ok {
                return foreign(&kind.replace('_', " "), n);
            }
            if kind == "concatenation" && text == "{}" {
                continue; // `find -exec … {}`: a literal `{}` in both shells
            }
        } else if !tokens.contains(&kind) || !token_in_place(n) {
            return foreign("the token", n);
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    None
}

/// Tokens whose meaning depends on where they stand: `$` must open a plain expansion (`$"…"` is
/// bash's translated string), `!` must negate a command or a test (`${!x}` is indirection), and
/// the parameter-expansion operators belong inside `${…}`.
fn token_in_place(n: Node) -> bool {
    let parent = n.parent().map(|p| p.kind()).unwrap_or("");
    match n.kind() {
        "$" => parent == "simple_expansion",
        "!" => matches!(parent, "negated_command" | "unary_expression"),
        ":-" | "-" | ":=" | ":?" | "?" | ":+" | "+" | "#" | "##" | "%" | "%%" => {
            parent == "expansion"
        }
        _ => true,
    }
}

/// An unquoted word a POSIX shell splits and expands as bash does: no brace expansion (dash has
/// none, so `{a,b}` stays one word there) and no extended glob (`@(…)`, `!(…)`).
fn posix_word(text: &str) -> bool {
    if text.contains("$'") || text.contains("$\"") {
        return false;
    }
    if text.contains('(') || text.contains(')') {
        return false;
    }
    text == "{}" || !text.contains(['{', '}'])
}

/// An unquoted word zsh reads as bash does: plain characters only. zsh expands `=cmd`, treats
/// `(…)` after a glob as qualifiers that can run code, `^`/`#`/`~` as glob operators and
/// `[…]` after a parameter as a subscript.
fn zsh_word(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('=')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:@%+,=-".contains(&b))
}

/// A `>&` / `<&` redirection whose target is a descriptor number or `-`; any other redirection.
fn dup_target_ok(n: Node, script: &str) -> bool {
    let mut cursor = n.walk();
    let children: Vec<Node> = n.children(&mut cursor).collect();
    let Some(op) = children.iter().find(|c| !c.is_named()) else {
        return true;
    };
    if !matches!(op.kind(), ">&" | "<&") {
        return true;
    }
    children
        .iter()
        .filter(|c| c.is_named() && c.kind() != "file_descriptor")
        .all(|c| {
            let t = script.get(c.byte_range()).unwrap_or("");
            t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn foreign(script: &str, dialect: Dialect) -> bool {
        foreign_syntax(script, "sh", dialect, Duration::from_secs(1)).is_some()
    }

    #[test]
    fn posix_scripts_inside_the_shared_syntax_pass() {
        for s in [
            "cargo test 2>&1 | tail -20",
            "ls -la && echo \"x $HOME ${X:-y}\" > /dev/null || true",
            "for f in *.rs; do wc -l \"$f\"; done",
            "if [ -f x ]; then cat x; elif true; then :; else pwd; fi",
            "case $x in a|b) ls;; *) ;; esac",
            "export A=1 B; f() { ls; }; f",
            "x=$(pwd) && echo $x",
            "echo a 2>/dev/null >&2 1>&2 <&0 >>f <f",
            "! ls; (cd x && ls); { ls; pwd; }",
            "while read l; do echo $l; done < f",
            "unset x; echo ${#x} ${x%.rs} ${x##*/} $1 $@ $?",
            "find . -name '*.rs' -exec wc -l {} \\;",
            "echo 'it''s' \"a\"b",
        ] {
            assert!(
                !foreign(s, Dialect::Posix),
                "{s}: {:?}",
                foreign_syntax(s, "sh", Dialect::Posix, Duration::from_secs(1))
            );
        }
    }

    #[test]
    fn bash_only_syntax_is_foreign_to_a_posix_shell() {
        for s in [
            // dash reads `&>` as `&` then `>`: `touch X` runs in the background.
            "ls &>/dev/null touch X",
            "ls &>>f",
            "echo $'\\x41'",
            "echo $\"hi\"",
            "[[ -f x ]] && ls",
            "(( x = 1 ))",
            "echo $((1+1))",
            "cat <<< hi",
            "diff <(ls) <(ls)",
            "echo {a,b}",
            "echo {1..3}",
            "a+=b",
            "a=(1 2)",
            "declare -i x=1",
            "function f { ls; }",
            "ls |& cat",
            "echo ${x/a/b} ",
            "echo ${x:1:2}",
            "echo ${!x}",
            "echo ${x^^}",
            "ls >&out",
            "for ((i=0;i<3;i++)); do :; done",
            "echo `ls`",
            "shopt -s extglob; ls @(a|b)",
            "select x in a; do :; done",
            "ls $(",
        ] {
            assert!(foreign(s, Dialect::Posix), "{s} should be foreign to sh");
        }
    }

    #[test]
    fn zsh_allows_only_plain_commands() {
        for s in [
            "ls -la",
            "git status && git diff --stat | head -5",
            "echo 'a b' \"c\"",
            "echo $HOME ${HOME}",
        ] {
            assert!(!foreign(s, Dialect::Zsh), "{s}");
        }
        for s in [
            // a bare redirection runs `$READNULLCMD`, a pager
            "</dev/null",
            // `path` is tied to PATH
            "path=(/tmp) ls",
            "path=/tmp",
            "ls =ls",
            "ls *(e:'rm x':)",
            "echo ${(e)x}",
            "echo $x[1]",
            "ls ^foo",
            "ls ~x",
            "ls *",
            "cat <<EOF\nx\nEOF",
            "echo ${x:-y}",
            // `path` is PATH: every way to assign it
            "for path in /tmp; do ls; done",
            "read path; ls",
            "getopts a path -a; ls",
            "shift path; ls",
            "typeset path=/tmp",
            "'read' path; ls",
            "\"re\"ad path; ls",
        ] {
            assert!(foreign(s, Dialect::Zsh), "{s} should be foreign to zsh");
        }
    }

    #[test]
    fn bash_is_never_foreign() {
        assert!(!foreign(
            "ls &>/dev/null; [[ -f x ]]; echo {a,b}",
            Dialect::Bash
        ));
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let s = "(".repeat(5000) + "ls" + &")".repeat(5000);
        // Parses or not within the budget; either way a verdict, not a stack overflow.
        let _ = foreign_syntax(&s, "sh", Dialect::Posix, Duration::from_millis(200));
    }
}

//! segment/kind: stage 2's allow sets — the tree-sitter-bash node kinds and anonymous tokens the
//! walker understands, each with the reason it is safe to walk.
//!
//! It never walks anything itself. Every other kind falls to the walker's fail-closed arm and
//! becomes an `Unsupported` event; the tests below check every kind name the walker compares
//! against (and every field name it asks for) against the grammar, so a misspelt name cannot
//! silently turn a construct into "unsupported" or, worse, into one that is never matched.

/// The named node kinds the walker understands. A kind is listed only when the walker either
/// turns it into segments and events that `check` judges, or decodes it into word text with
/// every run-time part marked. Anything else is reported, never skipped.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the audit record: the tests hold the walker's names to it"
    )
)]
pub(super) const NAMED_KINDS: &[&str] = &[
    // Statements: containers whose children are statements, each becoming its own segment
    // joined by an operator `check` sees.
    "program",              // the root: a list of statements
    "list",                 // `a && b`, `a; b`: both sides are walked, the operator is a joiner
    "pipeline",             // `a | b`: both sides are walked, `|&` is an event
    "command",              // a simple command: one segment whose words `check` judges
    "command_name",         // the command word of `command`, decoded like any word
    "redirected_statement", // a statement plus redirections, each reported
    "subshell",             // `( … )`: walked inside `Nest::Subshell`
    "compound_statement",   // `{ …; }` or `(( … ))`: walked as a group or as arithmetic
    "negated_command",      // `! cmd`: runs cmd, which is walked
    "if_statement",         // control structures: conditions and bodies are statements
    "elif_clause",
    "else_clause",
    "while_statement",
    "do_group",
    "for_statement", // the list words are decoded; the variable is a plain name
    "c_style_for_statement", // the three clauses are walked as arithmetic
    "case_statement", // the value and the patterns are decoded (they expand, never run)
    "case_item",
    "function_definition", // reported as an event: `check` asks for any definition
    "test_command",        // `[[ … ]]` / `[ … ]`: a `Test` segment with its operands decoded
    "binary_expression",   // test and arithmetic operators: their operands are walked
    "unary_expression",
    "parenthesized_expression",
    "postfix_expression", // `i++` in arithmetic: operands walked, variables reported
    "ternary_expression",
    "test_operator",        // `-f`, `-eq`: a fixed word inside a test
    "variable_assignment",  // `NAME=value`: the value is decoded, the name recorded
    "variable_assignments", // several assignments on their own
    "declaration_command",  // `export`/`declare`/`local`…: a command segment for `check`
    "unset_command",        // `unset NAME`: a command segment for `check`
    "comment", // bash ignores it too; `mismatch` checks it starts where bash starts one
    // Words: decoded into the text bash passes, with every run-time part marked.
    "word",   // backslashes removed, unquoted glob characters marked
    "number", // a literal number, or one holding expansions (walked as word parts)
    "string", // `"…"`: literal parts decoded, expansions inside walked
    "string_content",
    "raw_string",           // `'…'`: literal
    "ansi_c_string",        // `$'…'`: escapes decoded as bash does
    "translated_string",    // `$"…"`: decoded like its string
    "concatenation",        // parts of one word, each decoded
    "simple_expansion",     // `$x`: a run-time value
    "expansion", // `${…}`: a run-time value; substitutions, indirection, assignments reported
    "command_substitution", // `$(…)`: the inner statements are walked as segments
    "process_substitution", // `<(…)`: the inner statements are walked as segments
    "arithmetic_expansion", // `$((…))`: walked as arithmetic
    "brace_expression", // `{1..3}`: expanded with a limit
    "variable_name", // a name inside an expansion or arithmetic
    "special_variable_name",
    "subscript",       // `a[i]`: the index is arithmetic and reported
    "array",           // `a=(…)`: each element decoded
    "extglob_pattern", // a pattern: literal text checked for hidden expansions
    "regex",           // `=~` right side: literal text checked for hidden expansions
    // Redirections: each becomes a `Redirect` that `check` judges.
    "file_redirect",
    "heredoc_redirect",
    "herestring_redirect",
    "file_descriptor", // the `2` of `2>`
    "heredoc_start",   // the delimiter word
    "heredoc_body",    // walked for expansions unless the delimiter is quoted
    "heredoc_content",
    "heredoc_end", // compared with the delimiter: a mismatch is reported
    // Errors: reported as a parse error; the walker looks inside only to see more commands.
    "ERROR",
];

/// Anonymous tokens that may appear between statements. Each is safe by itself because bash
/// runs both sides and each side becomes its own segment; `&` and `|&` are reported as events.
pub(super) const SEPARATORS: &[&str] = &[
    // Sequencing, conditionals, pipes: each side is checked. (A newline is no token in this
    // grammar: `statements` finds it in the gap between two statements.)
    ";", "&&", "||", "|", ";;", ";&", ";;&", // case item terminators
    "(", ")", "{", "}", "((", "))", // grouping punctuation of the node being walked
    "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "for", "select", "in",
    "case", "esac", "function", "!", // keywords: structure, not programs
    "$(", "`", "<(", ">(", // substitution delimiters: the inner statements are walked
];

/// Word-like node kinds: each decodes to one or more words.
pub(super) fn is_word_kind(k: &str) -> bool {
    matches!(
        k,
        "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "number"
            | "brace_expression"
            | "extglob_pattern"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use tree_sitter::Language;

    /// The walker's sources: every string literal in them that could be a kind, token or field
    /// name is checked against the grammar.
    const WALKER: &[(&str, &str)] = &[
        ("segment.rs", include_str!("../segment.rs")),
        ("kind.rs", include_str!("kind.rs")),
        ("statement.rs", include_str!("statement.rs")),
        ("expand.rs", include_str!("expand.rs")),
        ("redirect.rs", include_str!("redirect.rs")),
        ("mismatch.rs", include_str!("mismatch.rs")),
    ];

    /// String literals in the walker that are data, not grammar names: words bash reads
    /// (`time -p --`, `${x@P}`), text the walker writes, and serde attributes.
    const NOT_GRAMMAR: &[&str] = &[
        "",
        "-",
        "--",
        "-p",
        "P",
        "time",
        ",",
        "snake_case",
        "Vec::is_empty",
        "std::ops::Not::not",
    ];

    fn language() -> Language {
        tree_sitter_bash::LANGUAGE.into()
    }

    /// The string literals of `src`, skipping comments, char and byte literals.
    fn literals(src: &str) -> Vec<String> {
        let b = src.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'\'' => {
                    // A char literal (`'x'`, `'\n'`) or a lifetime (`'a`).
                    if b.get(i + 1) == Some(&b'\\') {
                        i += 2;
                        while i < b.len() && b[i] != b'\'' {
                            i += 1;
                        }
                        i += 1;
                    } else if b.get(i + 2) == Some(&b'\'') {
                        i += 3;
                    } else {
                        i += 1;
                    }
                }
                b'"' => {
                    let byte_string = i > 0 && b[i - 1] == b'b';
                    let mut text = String::new();
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            match b.get(i + 1) {
                                Some(b'n') => text.push('\n'),
                                Some(c) => text.push(char::from(*c)),
                                None => {}
                            }
                            i += 2;
                        } else {
                            let len = src[i..].chars().next().map_or(1, char::len_utf8);
                            text.push_str(&src[i..i + len]);
                            i += len;
                        }
                    }
                    i += 1;
                    if !byte_string {
                        out.push(text);
                    }
                }
                _ => i += 1,
            }
        }
        out
    }

    /// Literals that could name a kind, token or field: messages (with blanks or backquotes)
    /// and format strings are left out.
    fn grammar_shaped(lit: &str) -> bool {
        let message = lit.contains([' ', '`']);
        let format = lit.contains('{') && lit.len() > 2;
        !message && !format
    }

    #[test]
    fn every_listed_kind_is_a_named_kind_of_the_grammar() {
        let lang = language();
        for k in NAMED_KINDS {
            assert_ne!(
                lang.id_for_node_kind(k, true),
                0,
                "`{k}` is not a named kind"
            );
        }
    }

    #[test]
    fn every_separator_is_an_anonymous_token_of_the_grammar() {
        let lang = language();
        for t in SEPARATORS {
            assert_ne!(lang.id_for_node_kind(t, false), 0, "`{t:?}` is not a token");
        }
    }

    #[test]
    fn every_word_kind_of_the_grammar_is_listed() {
        let lang = language();
        let count = u16::try_from(lang.node_kind_count()).unwrap();
        for id in (0..count).filter(|id| lang.node_kind_is_named(*id)) {
            let k = lang.node_kind_for_id(id).unwrap();
            assert!(
                !is_word_kind(k) || NAMED_KINDS.contains(&k),
                "`{k}` is a word kind missing from NAMED_KINDS"
            );
        }
    }

    #[test]
    fn every_name_the_walker_compares_is_in_the_grammar() {
        let lang = language();
        let mut unknown = Vec::new();
        let mut unlisted = Vec::new();
        let mut used = Vec::new();
        for (file, src) in WALKER {
            // The allow lists themselves are checked above: only the walker's own uses of
            // names count, so the lists are cut out of `kind.rs`.
            let src = if *file == "kind.rs" {
                let from = src.find("pub(super) fn is_word_kind").unwrap_or(0);
                let to = src.find("#[cfg(test)]").unwrap_or(src.len());
                &src[from..to]
            } else {
                src
            };
            let names = literals(src);
            let names = names
                .iter()
                .filter(|l| grammar_shaped(l) && !NOT_GRAMMAR.contains(&l.as_str()));
            for lit in names {
                let named = lang.id_for_node_kind(lit, true) != 0;
                let token = lang.id_for_node_kind(lit, false) != 0;
                let field = lang.field_id_for_name(lit).is_some();
                if named {
                    used.push(lit.clone());
                    if !NAMED_KINDS.contains(&lit.as_str()) {
                        unlisted.push(format!("{file}: {lit}"));
                    }
                } else if !token && !field {
                    unknown.push(format!("{file}: {lit:?}"));
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "not a kind, token or field: {unknown:?}"
        );
        assert!(
            unlisted.is_empty(),
            "named kinds missing from NAMED_KINDS: {unlisted:?}"
        );
        let unused: Vec<_> = NAMED_KINDS
            .iter()
            .filter(|k| !used.iter().any(|u| u == *k))
            .collect();
        assert!(
            unused.is_empty(),
            "NAMED_KINDS entries the walker never compares: {unused:?}"
        );
    }

    #[test]
    fn a_misspelt_kind_is_caught() {
        let lang = language();
        assert_eq!(lang.id_for_node_kind("comand", true), 0);
        assert!(literals(r#"match k { "comand" => 1, 'x' => 2 }"#) == ["comand"]);
    }
}

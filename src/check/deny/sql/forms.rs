//! check/deny/sql/forms: the forms of SQL text whose effect the statement-by-statement reading
//! of [`super::destroys`] gets wrong, read per client: MySQL's `--` that is no comment
//! (`id=1--1`), statements stored now and run later in the same text (`PREPARE … AS`, a SQL
//! function body, `dblink_exec`), and destroying statements that cannot touch stored data (a
//! transaction the text itself rolls back, a temporary table the text itself created). It only
//! says "destroys" or not; it never runs anything.

use std::borrow::Cow;

use super::{Tok, destroys, destroys_at, open_executable_comments, statement_destroys, tokens};

/// Whether SQL `text` given to the database client `client` destroys data (see
/// [`super::destroys`]), with MySQL's comment rule for mysql and mariadb, bodies run later in
/// the same text, and rolled-back or temporary-only statements spared.
pub(crate) fn client_destroys(client: &str, text: &str) -> bool {
    let text: Cow<'_, str> = if matches!(client, "mysql" | "mariadb") {
        Cow::Owned(mysql_dashes(&open_executable_comments(text)))
    } else {
        Cow::Borrowed(text)
    };
    if runs_stored_body(&text) {
        return true;
    }
    destroys(&text) && !spared(client, &text)
}

/// MySQL reads `--` as a comment only when a blank or a control character follows it
/// (`1--1` is `1 - -1`): such dashes outside strings, quoted names and comments are written
/// apart, so the shared tokenizer reads them as two minus signs.
pub(crate) fn mysql_dashes(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    // The quote of the string or name being read, or `*` inside a block comment, `#` inside a
    // line comment.
    let mut within: Option<char> = None;
    while let Some(c) = chars.next() {
        out.push(c);
        match within {
            Some('*') => {
                if c == '*' && chars.peek() == Some(&'/') {
                    out.extend(chars.next());
                    within = None;
                }
            }
            Some('#') => {
                if c == '\n' {
                    within = None;
                }
            }
            Some(q) => {
                if c == '\\' && q != '`' {
                    out.extend(chars.next());
                } else if c == q {
                    within = None;
                }
            }
            None => match c {
                '\'' | '"' | '`' => within = Some(c),
                '#' => within = Some('#'),
                '/' if chars.peek() == Some(&'*') => {
                    out.extend(chars.next());
                    within = Some('*');
                }
                '-' if chars.peek() == Some(&'-') => {
                    chars.next();
                    match chars.peek() {
                        Some(n) if !n.is_whitespace() && !n.is_control() => out.push_str(" -"),
                        _ => {
                            out.push('-');
                            within = Some('#');
                        }
                    }
                }
                _ => {}
            },
        }
    }
    out
}

/// `PREPARE p AS DELETE FROM t; EXECUTE p`, `CREATE FUNCTION f() … AS 'DROP TABLE t' …;
/// SELECT f()`, `SELECT dblink_exec('…', 'DROP TABLE t')`: a destroying statement stored by
/// one statement and run by a later one, or run over another connection.
fn runs_stored_body(sql: &str) -> bool {
    let toks = tokens(sql);
    let statements: Vec<&[Tok]> = toks.split(|t| *t == Tok::Semi).collect();
    let word = |t: Option<&Tok>, w: &str| matches!(t, Some(Tok::Word(x)) if x == w);
    let called_later = |k: usize, name: &str| {
        statements[k + 1..].iter().any(|s| {
            s.windows(2)
                .any(|p| matches!(&p[0], Tok::Word(w) if w == name) && p[1] == Tok::Open)
        })
    };
    let executed_later = |k: usize, name: &str| {
        statements[k + 1..].iter().any(|s| {
            s.windows(2)
                .any(|p| word(Some(&p[0]), "EXECUTE") && word(Some(&p[1]), name))
        })
    };
    let strings_destroy = |s: &[Tok]| {
        s.iter()
            .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, 1)))
    };
    statements.iter().enumerate().any(|(k, s)| {
        // PostgreSQL's `PREPARE name [(types)] AS statement`.
        let prepared = word(s.first(), "PREPARE")
            && matches!(s.get(1), Some(Tok::Word(name)) if executed_later(k, name))
            && s.iter()
                .position(|t| word(Some(t), "AS"))
                .is_some_and(|a| statement_destroys(&s[a + 1..], 1));
        // `CREATE [OR REPLACE] FUNCTION|PROCEDURE name(…) … AS 'body'`, then called.
        let routine = word(s.first(), "CREATE")
            && s.iter()
                .position(|t| word(Some(t), "FUNCTION") || word(Some(t), "PROCEDURE"))
                .and_then(|f| {
                    s[f + 1..]
                        .iter()
                        .position(|t| *t == Tok::Open)
                        .map(|o| f + o)
                })
                .and_then(|o| match &s[o] {
                    Tok::Word(name) => Some(name.as_str()),
                    _ => None,
                })
                .is_some_and(|name| called_later(k, name))
            && strings_destroy(s);
        // dblink's queries run on their own connection, outside this text's transaction.
        let dblink = s.windows(2).any(|p| {
            (word(Some(&p[0]), "DBLINK_EXEC") || word(Some(&p[0]), "DBLINK")) && p[1] == Tok::Open
        }) && strings_destroy(s);
        prepared || routine || dblink
    })
}

/// Whether every destroying statement of `sql` is spared: inside a transaction the text opens
/// and ends with `ROLLBACK` (its last statement), or a `DROP`/`DELETE`/`TRUNCATE`/`UPDATE` of
/// temporary tables the text created before it. Text with client meta-commands or dynamic
/// SQL is never spared.
fn spared(client: &str, sql: &str) -> bool {
    let toks = tokens(sql);
    let dynamic = toks.iter().any(|t| {
        matches!(t, Tok::Meta(_)) || matches!(t, Tok::Word(w) if w == "PREPARE" || w == "EXECUTE")
    });
    if dynamic {
        return false;
    }
    let statements: Vec<&[Tok]> = toks
        .split(|t| *t == Tok::Semi)
        .filter(|s| !s.is_empty())
        .collect();
    let window = rolled_back(client, &statements);
    let mut temporary: Vec<&str> = Vec::new();
    for (k, s) in statements.iter().enumerate() {
        if let Some(name) = temporary_table(s) {
            temporary.push(name);
            continue;
        }
        if !statement_destroys(s, 0) {
            continue;
        }
        let rolled = window.is_some_and(|(from, to)| k > from && k < to) && plain(client, s);
        if !(rolled || touches_only(s, &temporary)) {
            return false;
        }
    }
    true
}

/// The statements whose effects a transaction undoes, as `(begin, rollback)` indices: the last
/// statement is `ROLLBACK` (or `ABORT`, not `ROLLBACK TO` a savepoint) and the last `BEGIN`
/// or `START TRANSACTION` before it is not followed by a statement that ends the transaction
/// or commits part of it. Only clients whose databases roll back what these statements do.
fn rolled_back(client: &str, statements: &[&[Tok]]) -> Option<(usize, usize)> {
    if !matches!(client, "psql" | "sqlite3" | "sqlite" | "mysql" | "mariadb") {
        return None;
    }
    let first = |s: &[Tok]| match s.first() {
        Some(Tok::Word(w)) => Some(w.clone()),
        _ => None,
    };
    let last = statements.len().checked_sub(1)?;
    let end = statements[last];
    let rollback = matches!(first(end).as_deref(), Some("ROLLBACK" | "ABORT"))
        && !end
            .iter()
            .any(|t| matches!(t, Tok::Word(w) if w == "TO" || w == "PREPARED"));
    if !rollback {
        return None;
    }
    let begin = statements[..last]
        .iter()
        .rposition(|s| matches!(first(s).as_deref(), Some("BEGIN" | "START")))?;
    let ends = statements[begin + 1..last].iter().any(|s| {
        matches!(
            first(s).as_deref(),
            Some("COMMIT" | "END" | "ROLLBACK" | "ABORT" | "BEGIN" | "START" | "PREPARE")
        )
    });
    (!ends).then_some((begin, last))
}

/// A plain destroying statement a rollback undoes: in MySQL only rows (`DELETE`, `UPDATE`),
/// since its `DROP` and `TRUNCATE` commit first; elsewhere also `DROP` and `TRUNCATE`, which
/// PostgreSQL and SQLite run inside the transaction. No string in it is SQL that destroys
/// (run some other way).
fn plain(client: &str, s: &[Tok]) -> bool {
    let words: &[&str] = if matches!(client, "mysql" | "mariadb") {
        &["DELETE", "UPDATE"]
    } else {
        &["DELETE", "UPDATE", "DROP", "TRUNCATE"]
    };
    matches!(s.first(), Some(Tok::Word(w)) if words.contains(&w.as_str()))
        && !s
            .iter()
            .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, 1)))
}

/// The table `CREATE [GLOBAL|LOCAL] TEMP|TEMPORARY TABLE [IF NOT EXISTS] name` creates.
fn temporary_table(s: &[Tok]) -> Option<&str> {
    let words: Vec<&str> = s
        .iter()
        .map_while(|t| match t {
            Tok::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect();
    let rest = match words.as_slice() {
        [
            "CREATE",
            "GLOBAL" | "LOCAL",
            "TEMP" | "TEMPORARY",
            "TABLE",
            rest @ ..,
        ]
        | ["CREATE", "TEMP" | "TEMPORARY", "TABLE", rest @ ..] => rest,
        _ => return None,
    };
    match rest {
        ["IF", "NOT", "EXISTS", name, ..] | [name, ..] if !matches!(*name, "IF") => Some(name),
        _ => None,
    }
}

/// Whether a destroying statement names only tables of `temporary` (created earlier in the
/// text; a temporary table hides a stored one of the same name): `DROP [TEMPORARY] TABLE [IF
/// EXISTS] a, b`, `DELETE FROM a`, `TRUNCATE [TABLE] a`, `UPDATE a`.
fn touches_only(s: &[Tok], temporary: &[&str]) -> bool {
    let mut names: Vec<&str> = Vec::new();
    for t in s {
        match t {
            Tok::Word(w) => names.push(w),
            // A quoted or qualified name, a condition, a value: not read.
            _ => return false,
        }
    }
    let targets: &[&str] = match names.as_slice() {
        ["DROP", "TEMPORARY", "TABLE", "IF", "EXISTS", rest @ ..]
        | ["DROP", "TABLE", "IF", "EXISTS", rest @ ..]
        | ["DROP", "TEMPORARY", "TABLE", rest @ ..]
        | ["DROP", "TABLE", rest @ ..] => rest,
        ["DELETE", "FROM", rest @ ..]
        | ["TRUNCATE", "TABLE", rest @ ..]
        | ["TRUNCATE", rest @ ..]
        | ["UPDATE", rest @ ..] => rest,
        _ => return false,
    };
    let targets = targets
        .strip_suffix(&["CASCADE"])
        .or_else(|| targets.strip_suffix(&["RESTRICT"]))
        .unwrap_or(targets);
    !targets.is_empty() && targets.iter().all(|n| temporary.contains(n))
}

/// The string literals a `SELECT` selects, put together in order with a name between each
/// (`'DROP TABLE ' || name || ';'` → `DROP TABLE  x ;`): the text a client prints when the
/// query builds statements, for a second client that runs what it reads. `None` for other
/// statements.
pub(crate) fn selected_strings(sql: &str) -> Option<String> {
    let toks = tokens(sql);
    if !matches!(toks.first(), Some(Tok::Word(w)) if w == "SELECT") {
        return None;
    }
    let strings: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    (!strings.is_empty()).then(|| strings.join(" x "))
}

/// mongosh JavaScript with the values that are spelled as strings but stand for a filter
/// written out, before strings are blanked: `JSON.parse("{}")` is `{}`, the all-zero
/// `ObjectId("000…")` is as low as `MinKey()`, and an empty string is `EMPTYSTRING`.
pub(crate) fn js_spelled_out(js: &str) -> String {
    let mut out = js.to_string();
    for q in ['"', '\''] {
        for empty in ["{}", "{ }"] {
            out = out.replace(&format!("JSON.parse({q}{empty}{q})"), "{}");
        }
        out = out.replace(&format!("ObjectId({q}{}{q})", "0".repeat(24)), "MinKey()");
        out = out.replace(&format!(":{q}{q}"), ":EMPTYSTRING");
        out = out.replace(&format!(": {q}{q}"), ": EMPTYSTRING");
    }
    out
}

/// A filter argument (strings and blanks removed) that builds an empty object at run time:
/// `Object()`, `new Object()`, `Object({})`.
pub(crate) fn empty_object(arg: &str) -> bool {
    matches!(
        arg,
        "Object()" | "newObject()" | "Object({})" | "newObject({})" | "Object.create(null)"
    )
}

/// A regular expression literal (blanks removed) that matches every string: `/.*/`, `/^/`,
/// with any flags.
pub(crate) fn regex_matches_all(value: &str) -> bool {
    let Some(body) = value.strip_prefix('/') else {
        return false;
    };
    let Some(end) = body.rfind('/') else {
        return false;
    };
    let flags = &body[end + 1..];
    flags.chars().all(|c| c.is_ascii_alphabetic())
        && matches!(
            &body[..end],
            ".*" | "^" | "^.*" | ".*$" | "^.*$" | "(?:)" | "" | "$" | "[\\s\\S]*" | ".?"
        )
}

/// One operator of a field's condition (`$regex:/^/`, `$gte:MinKey()`) that holds for every
/// document that has the field: a regex that matches every string, or `_id` (every document
/// has one) above the lowest value.
pub(crate) fn operator_matches_all(key: &str, op: &str) -> bool {
    let Some((name, value)) = op.split_once(':') else {
        return false;
    };
    match name {
        "$regex" => regex_matches_all(value) || value == "EMPTYSTRING",
        "$gt" | "$gte" => key == "_id" && value == "MinKey()",
        _ => false,
    }
}

/// Whether the call whose `.name(` starts at `at` of `code` (blanks removed) is made on an
/// `explain()` (`db.c.explain().remove({})`), which only describes the write.
pub(crate) fn explained(code: &str, at: usize) -> bool {
    let before = &code[..at];
    before.rfind(".explain(").is_some_and(|e| {
        let args = &before[e + ".explain".len()..];
        let mut level = 0usize;
        args.char_indices().all(|(k, c)| match c {
            '(' => {
                level += 1;
                true
            }
            ')' => {
                level = level.saturating_sub(1);
                level > 0 || k + 1 == args.len()
            }
            _ => level > 0,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_that_match_every_document_are_recognised() {
        for v in ["/.*/", "/^/", "/.*/i", "/^.*$/"] {
            assert!(regex_matches_all(v), "{v}");
        }
        for v in ["/^a/", "/x/", "3", "/.*/x/"] {
            assert!(!regex_matches_all(v), "{v}");
        }
        assert!(operator_matches_all("_id", "$gte:MinKey()"));
        assert!(!operator_matches_all("age", "$gte:MinKey()"));
        assert!(!operator_matches_all("_id", "$gte:3"));
        assert!(explained("db.c.explain().remove({})", 14));
        assert!(!explained("db.c.explain();db.c.remove({})", 20));
    }

    #[test]
    fn mysql_dashes_without_a_blank_are_minus_signs() {
        let cases = [
            ("id=1--1 OR 1", "id=1- -1 OR 1"),
            ("a -- comment", "a -- comment"),
            ("'x--y' --z", "'x--y' - -z"),
            ("/* --a */ #--b\n--c", "/* --a */ #--b\n- -c"),
            ("--", "--"),
        ];
        for (sql, want) in cases {
            assert_eq!(mysql_dashes(sql), want, "{sql:?}");
        }
    }
}

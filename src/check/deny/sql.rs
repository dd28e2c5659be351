//! check/deny/sql: reads SQL (and mongosh JavaScript) given to a database client and says
//! whether it destroys data. A small tokenizer, not a parser: it skips strings, quoted names
//! and comments so that only keywords count, and never decides anything but "destroys".

/// True when one statement of `sql` drops a database, schema or table, truncates, or deletes
/// without a `WHERE` clause. Case-insensitive; text inside strings, quoted identifiers and
/// comments is not read.
pub(crate) fn destroys(sql: &str) -> bool {
    statements(sql).iter().any(|s| statement_destroys(s))
}

/// True when mongosh / mongo JavaScript drops a database or collection, or deletes every
/// document (`deleteMany({})`, `remove({})`). Strings and comments are not read.
pub(crate) fn js_destroys(js: &str) -> bool {
    let code: String = strip(js, Dialect::JavaScript)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    code.contains(".dropDatabase(")
        || code.contains(".drop(")
        || code.contains(".deleteMany({})")
        || code.contains(".remove({})")
        || code.contains(".deleteMany()")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Sql,
    JavaScript,
}

/// `text` with strings, quoted names and comments replaced by a space; `;` kept.
fn strip(text: &str, dialect: Dialect) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match (c, next) {
            ('-', Some('-')) if dialect == Dialect::Sql => skip_line(&mut chars),
            ('#', _) if dialect == Dialect::Sql => skip_line(&mut chars),
            ('/', Some('/')) if dialect == Dialect::JavaScript => skip_line(&mut chars),
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for (_, c) in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            ('\'' | '"' | '`', _) => {
                // A doubled quote inside is the quote itself: reading on finds the same end.
                // SQL strings take a backslash literally (PostgreSQL, the standard); reading it
                // as an escape could hide a statement after `'a\'`, so only JavaScript does.
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' && dialect == Dialect::JavaScript {
                        escaped = true;
                    } else if d == c {
                        break;
                    }
                }
            }
            ('$', _) if dialect == Dialect::Sql => {
                // PostgreSQL dollar quoting: `$tag$ … $tag$` (a `$1` parameter has no second `$`).
                let rest = &text[at + 1..];
                let tag_len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if rest[tag_len..].starts_with('$') {
                    let tag = &text[at..at + tag_len + 2];
                    let body_from = at + tag_len + 2;
                    let end = text[body_from..]
                        .find(tag)
                        .map_or(text.len(), |e| body_from + e + tag.len());
                    while chars.peek().is_some_and(|&(i, _)| i < end) {
                        chars.next();
                    }
                }
            }
            _ => {
                out.push(c);
                continue;
            }
        }
        out.push(' ');
    }
    out
}

fn skip_line(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    for (_, c) in chars.by_ref() {
        if c == '\n' {
            break;
        }
    }
}

/// The statements of `sql`, each as its upper-cased words.
fn statements(sql: &str) -> Vec<Vec<String>> {
    strip(sql, Dialect::Sql)
        .split(';')
        .map(|s| {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_uppercase)
                .collect()
        })
        .collect()
}

fn statement_destroys(words: &[String]) -> bool {
    let w = |i: usize| words.get(i).map(String::as_str);
    match w(0) {
        Some("DROP") => words[1..]
            .iter()
            .take(2)
            .any(|k| matches!(k.as_str(), "DATABASE" | "SCHEMA" | "TABLE")),
        Some("TRUNCATE") => true,
        Some("DELETE") => !words.iter().any(|k| k == "WHERE"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_statements_are_found_and_mentions_are_not() {
        let rows: &[(&str, bool)] = &[
            ("DROP TABLE users", true),
            ("drop database app;", true),
            ("Drop Schema public Cascade", true),
            ("DROP TEMPORARY TABLE t", true),
            ("TRUNCATE orders", true),
            ("truncate table t restart identity", true),
            ("DELETE FROM users", true),
            ("delete from t;", true),
            ("SELECT 1; DROP TABLE t", true),
            ("BEGIN; DELETE FROM t; COMMIT", true),
            ("/* c */ DROP TABLE t", true),
            ("DELETE FROM t WHERE id = 1", false),
            ("delete from t where x in (select 1)", false),
            ("SELECT 'DROP TABLE t'", false),
            ("SELECT 1 -- DROP TABLE t", false),
            ("SELECT 1 # DROP TABLE t", false),
            ("SELECT \"DROP TABLE\" FROM t", false),
            ("SELECT $$DROP TABLE t$$", false),
            ("SELECT $x$ ; DROP TABLE t $x$", false),
            ("/* DROP TABLE t */ SELECT 1", false),
            ("SELECT 'it''s'; SELECT 1", false),
            ("DROP INDEX i", false),
            ("DROP VIEW v", false),
            ("SHOW TABLES", false),
            ("CREATE TABLE t (id int)", false),
            ("", false),
            ("'unterminated DROP TABLE t", false),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(sql, want)| destroys(sql) != *want)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn mongosh_drops_and_unfiltered_deletes_are_found() {
        let rows: &[(&str, bool)] = &[
            ("db.dropDatabase()", true),
            ("db.users.drop()", true),
            ("db.users.deleteMany({})", true),
            ("db.users.deleteMany( { } )", true),
            ("db.users.remove({})", true),
            ("db.users.deleteMany({age: 3})", false),
            ("print('db.dropDatabase()')", false),
            ("// db.dropDatabase()\ndb.stats()", false),
            ("db.users.find()", false),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(js, want)| js_destroys(js) != *want)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    proptest::proptest! {
        /// Any text: no panic, and text inside a single-quoted string never destroys.
        #[test]
        fn quoted_text_is_never_read(s in "[ -~\\n]{0,80}") {
            let _ = destroys(&s);
            let _ = js_destroys(&s);
            let quoted = format!("SELECT '{}'", s.replace(['\'', '\\'], ""));
            proptest::prop_assert!(!destroys(&quoted));
        }
    }
}

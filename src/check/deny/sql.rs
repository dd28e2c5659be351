//! check/deny/sql: reads SQL (and mongosh JavaScript) given to a database client and says
//! whether it destroys data, and which shell commands the client would run on the way (psql's
//! `\!`, mysql's `system`, sqlite3's `.shell`, `COPY … TO PROGRAM`). A small tokenizer, not a
//! parser: it skips strings, quoted names and comments so that only keywords count, and never
//! decides anything but "destroys" and "runs this command".

/// A database client family: which side doors to shell commands its input has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Client {
    /// `psql`: `\! CMD`, `\o |CMD`, `\g |CMD`, `\copy … PROGRAM 'CMD'`.
    Psql,
    /// `mysql`, `mariadb`: `system CMD`, `\! CMD`.
    Mysql,
    /// `sqlite3`, `duckdb`: `.shell CMD`, `.system CMD` (and their abbreviations).
    Sqlite,
    /// Any other SQL client: only server-side `COPY … PROGRAM`.
    Other,
}

/// Most shell commands read from one client input, and most levels of SQL inside SQL strings
/// (`DO $$ … EXECUTE '…' … $$`).
const MAX_COMMANDS: usize = 8;
const MAX_SQL_DEPTH: usize = 4;

/// True when one statement of `sql` drops a database, schema or table, truncates, or deletes
/// without a `WHERE` clause — also inside a CTE (`WITH d AS (DELETE FROM t …)`), a `DO` block's
/// body and the text of `EXECUTE` / `PREPARE`. Case-insensitive; text inside other strings,
/// quoted identifiers and comments is not read.
pub(crate) fn destroys(sql: &str) -> bool {
    destroys_at(sql, 0)
}

fn destroys_at(sql: &str, depth: usize) -> bool {
    if depth > MAX_SQL_DEPTH {
        return false;
    }
    let toks = tokens(sql);
    // psql's `\gexec` runs each cell of the result as SQL: the strings the query selects
    // (`SELECT 'DROP TABLE ' || name FROM pg_tables \gexec`) are statements.
    let gexec = toks
        .iter()
        .any(|t| matches!(t, Tok::Meta(m) if m.trim_start().starts_with("gexec")));
    toks.split(|t| *t == Tok::Semi)
        .any(|s| statement_destroys(s, depth))
        || (gexec
            && toks
                .iter()
                .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, depth + 1))))
}

/// The shell commands a client would run for `input` (one option value, operand, heredoc or
/// piped text), in order, at most [`MAX_COMMANDS`].
pub(crate) fn shell_commands(client: Client, input: &str) -> Vec<String> {
    let mut out = Vec::new();
    match client {
        Client::Sqlite => {
            // A dot-command is a line that starts with `.` in its first column (sqlite3 reads
            // `  .shell x` as SQL); `.sh`, `.sy`, `.shel`, `.syst` are accepted abbreviations.
            for line in input.lines() {
                let Some(rest) = line.strip_prefix('.') else {
                    continue;
                };
                let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let name = &rest[..name_len];
                let shell =
                    name.len() >= 2 && ("shell".starts_with(name) || "system".starts_with(name));
                if shell {
                    out.push(rest[name_len..].trim().to_string());
                }
                // `.once |CMD`, `.output |CMD` (`.out`, `.onc`): the output goes to a command
                // the shell runs; options such as `-x` or `--bom` may come first.
                let pipes =
                    name.len() >= 3 && ("output".starts_with(name) || "once".starts_with(name));
                if pipes && let Some(bar) = rest[name_len..].find('|') {
                    // `.once |CMD`, `.once --bom '|CMD'`: the rest of the line, less a
                    // quote. `-x` and `-e` open a spreadsheet or editor instead, and sqlite3
                    // refuses a file after them (it runs nothing).
                    let before = rest[name_len..name_len + bar].trim();
                    let cmd = rest[name_len + bar + 1..].trim();
                    let cmd = match before.chars().last() {
                        Some(q @ ('\'' | '"')) => cmd.strip_suffix(q),
                        _ => Some(cmd),
                    };
                    let viewer = before
                        .split_whitespace()
                        .any(|o| matches!(o.trim_end_matches(['\'', '"']), "-x" | "-e"));
                    if !viewer {
                        out.extend(cmd.map(str::to_string));
                    }
                }
            }
        }
        Client::Mysql => {
            // `system CMD` at the start of a line (or of a statement on it) runs CMD.
            for line in input.lines() {
                let starts = std::iter::once(0).chain(line.match_indices(';').map(|(k, _)| k + 1));
                for at in starts {
                    let piece = line[at..].trim_start();
                    let Some(head) = piece.get(..6) else {
                        continue;
                    };
                    let cmd = &piece[6..];
                    if head.eq_ignore_ascii_case("system") && cmd.starts_with(char::is_whitespace) {
                        out.push(cmd.trim().to_string());
                        break;
                    }
                }
            }
        }
        Client::Psql | Client::Other => {}
    }
    let toks = tokens(input);
    if matches!(client, Client::Psql | Client::Mysql) {
        out.extend(toks.iter().filter_map(|t| match t {
            Tok::Meta(m) => meta_command(client, m),
            _ => None,
        }));
    }
    out.extend(program_strings(&toks).map(str::to_string));
    if client == Client::Sqlite {
        out.extend(editor_strings(&toks).map(str::to_string));
    }
    out.retain(|c| !c.is_empty());
    out.truncate(MAX_COMMANDS);
    out
}

/// The shell command a backslash meta-command runs: `\! CMD` (psql, mysql), and psql's output
/// pipes `\o |CMD`, `\g |CMD`, `\gx |CMD`, `\w |CMD`.
fn meta_command(client: Client, meta: &str) -> Option<String> {
    if let Some(cmd) = meta.strip_prefix('!') {
        return Some(cmd.trim().to_string());
    }
    if client != Client::Psql {
        return None;
    }
    let name_len = meta
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(meta.len());
    let (name, arg) = meta.split_at(name_len);
    let pipes = matches!(name, "o" | "out" | "g" | "gx" | "w" | "write");
    let cmd = arg.trim_start().strip_prefix('|')?;
    pipes.then(|| cmd.trim().to_string())
}

/// True when mongosh / mongo JavaScript drops a database or collection, or deletes every
/// document (`deleteMany({})`, `remove({})`), also through a computed member
/// (`db["dropDatabase"]()`). Strings and comments are not read.
pub(crate) fn js_destroys(js: &str) -> bool {
    let code: String = strip_js(&computed_members(js))
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    code.contains(".dropDatabase(")
        || code.contains(".drop(")
        || code.contains(".deleteMany({})")
        || code.contains(".remove({})")
        || code.contains(".deleteMany()")
        // `deleteMany({}, {…})` deletes everything as `deleteMany({})` does; the command forms
        // (`runCommand({dropDatabase: 1})`, `{drop: "c"}`) and a bulk write's
        // `deleteMany: {filter: {}}` do what the helpers do.
        || code.contains(".deleteMany({},")
        || code.contains(".remove({},")
        || code.contains("deleteMany:{filter:{}")
        || ["runCommand", "adminCommand"].iter().any(|c| {
            code.contains(&format!(".{c}({{dropDatabase:"))
                || code.contains(&format!(".{c}({{drop:"))
        })
}

/// `js` with each computed member whose key is a plain string (`x["name"]`, `x[ 'name' ]`)
/// written as a dot member (`x.name`).
fn computed_members(js: &str) -> String {
    let mut out = String::with_capacity(js.len());
    let mut rest = js;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let inner = after.trim_start();
        let key = inner
            .chars()
            .next()
            .filter(|q| matches!(q, '"' | '\'' | '`'))
            .and_then(|q| {
                let body = &inner[1..];
                let end = body.find(q)?;
                let name = &body[..end];
                let close = body[end + 1..].trim_start().strip_prefix(']')?;
                let plain = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
                plain.then_some((name, close))
            });
        match key {
            Some((name, close)) => {
                out.push('.');
                out.push_str(name);
                rest = close;
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// One token of SQL text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A keyword or name, upper-cased.
    Word(String),
    /// The text of a string literal: `'…'` with doubled quotes undoubled, or `$tag$…$tag$`.
    Str(String),
    /// A quoted identifier (`"…"`, `` `…` ``): a name, never a keyword.
    Name,
    Open,
    Close,
    Semi,
    /// A lone `=`.
    Eq,
    /// A backslash meta-command (psql, mysql): the text after the backslash to the end of its
    /// line. The tokens after it are read on as SQL (`\x \\ DROP TABLE t` drops), except after
    /// `\!`, whose whole line is the command.
    Meta(String),
}

/// Words after which a statement starts inside another: PL/pgSQL blocks (`BEGIN DROP …`,
/// `THEN DELETE …`) and `EXPLAIN ANALYZE`, which runs the statement it explains.
const STARTERS: &[&str] = &["BEGIN", "THEN", "ELSE", "LOOP", "ANALYZE", "ANALYSE"];

fn statement_destroys(s: &[Tok], depth: usize) -> bool {
    let starts = |k: usize| {
        k == 0
            || match &s[k - 1] {
                Tok::Open | Tok::Close | Tok::Meta(_) => true,
                Tok::Word(w) => STARTERS.contains(&w.as_str()),
                Tok::Str(_) | Tok::Name | Tok::Semi | Tok::Eq => false,
            }
    };
    // The strings after `DO` (its body) and `EXECUTE` / `PREPARE … FROM` (dynamic SQL) are SQL.
    let strings_destroy = |k: usize| {
        s[k + 1..]
            .iter()
            .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, depth + 1)))
    };
    for (k, t) in s.iter().enumerate() {
        let Tok::Word(w) = t else {
            continue;
        };
        let hit = match w.as_str() {
            "DO" => starts(k) && strings_destroy(k),
            "EXECUTE" | "PREPARE" => strings_destroy(k),
            "TRUNCATE" => starts(k),
            "DROP" => {
                starts(k)
                    && s[k + 1..].iter().take(2).any(|n| {
                        matches!(n, Tok::Word(n) if matches!(n.as_str(), "DATABASE" | "SCHEMA" | "TABLE"))
                    })
            }
            "DELETE" => starts(k) && !where_follows(&s[k + 1..]),
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// Whether a `WHERE` at the level of the `DELETE` whose tokens follow comes before that level
/// closes (`(DELETE FROM t RETURNING *) SELECT … WHERE …` has none of its own), with a
/// condition that does not hold for every row.
fn where_follows(after: &[Tok]) -> bool {
    let mut level = 0usize;
    for (k, t) in after.iter().enumerate() {
        match t {
            Tok::Open => level += 1,
            Tok::Close if level == 0 => return false,
            Tok::Close => level -= 1,
            Tok::Word(w) if level == 0 && w == "WHERE" => {
                return !always_true(&after[k + 1..]);
            }
            _ => {}
        }
    }
    false
}

/// Whether a `WHERE` condition (the tokens after it, to the end of the statement) holds for
/// every row: `true`, `1`, or one literal compared equal to itself (`1=1`, `'a'='a'`), with
/// nothing after it but clauses that do not filter.
fn always_true(cond: &[Tok]) -> bool {
    let end = cond
        .iter()
        .position(|t| matches!(t, Tok::Close | Tok::Semi) || matches!(t, Tok::Word(w) if matches!(w.as_str(), "RETURNING" | "ORDER" | "LIMIT")))
        .unwrap_or(cond.len());
    let literal = |t: &Tok| match t {
        Tok::Word(w) => w.bytes().all(|b| b.is_ascii_digit()) || w == "TRUE",
        Tok::Str(_) => true,
        _ => false,
    };
    match &cond[..end] {
        [Tok::Word(w)] => w == "TRUE" || w == "1",
        [a, Tok::Eq, b] => literal(a) && a == b,
        _ => false,
    }
}

/// The commands of `COPY … TO|FROM PROGRAM '…'` (server side) and psql's `\copy … PROGRAM`.
fn program_strings(toks: &[Tok]) -> impl Iterator<Item = &str> {
    toks.iter().enumerate().filter_map(|(k, t)| {
        if !matches!(t, Tok::Word(w) if w == "PROGRAM") {
            return None;
        }
        // `PROGRAM E'…'`: an escape string.
        let mut next = toks.get(k + 1)?;
        if matches!(next, Tok::Word(w) if w == "E") {
            next = toks.get(k + 2)?;
        }
        match next {
            Tok::Str(cmd) => Some(cmd.as_str()),
            _ => None,
        }
    })
}

/// sqlite3's `edit(TEXT, EDITOR)`: the shell runs EDITOR (with a file name after it).
fn editor_strings(toks: &[Tok]) -> impl Iterator<Item = &str> {
    toks.iter().enumerate().filter_map(|(k, t)| {
        if !matches!(t, Tok::Word(w) if w == "EDIT") || toks.get(k + 1) != Some(&Tok::Open) {
            return None;
        }
        match (toks.get(k + 2), toks.get(k + 3)) {
            (Some(_), Some(Tok::Str(editor))) => Some(editor.as_str()),
            _ => None,
        }
    })
}

/// MySQL's executable comments (`/*! … */`, `/*!50000 … */`, MariaDB's `/*M!… */`): the
/// server runs their text as SQL. `sql` with their markers blanked, so that the text counts.
pub(crate) fn open_executable_comments(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let body = after
            .strip_prefix('!')
            .or_else(|| after.strip_prefix("M!"))
            .map(|b| b.trim_start_matches(|c: char| c.is_ascii_digit()));
        let Some(body) = body else {
            out.push_str("/*");
            rest = after;
            continue;
        };
        let end = body.find("*/").unwrap_or(body.len());
        out.push(' ');
        out.push_str(&body[..end]);
        out.push(' ');
        rest = body.get(end + 2..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// The tokens of `text`. Comments are dropped; an unterminated string or comment runs to the
/// end.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match (c, next) {
            ('-', Some('-')) | ('#', _) => skip_line(&mut chars),
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
            ('\'', _) => {
                // SQL strings take a backslash literally (PostgreSQL, the standard); reading it
                // as an escape could hide a statement after `'a\'`.
                let mut body = String::new();
                while let Some((_, d)) = chars.next() {
                    if d == '\'' {
                        if chars.peek().is_some_and(|&(_, n)| n == '\'') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    body.push(d);
                }
                out.push(Tok::Str(body));
            }
            ('"' | '`', _) => {
                for (_, d) in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push(Tok::Name);
            }
            ('$', _) => {
                // PostgreSQL dollar quoting: `$tag$ … $tag$` (a `$1` parameter has no second `$`).
                let rest = &text[at + 1..];
                let tag_len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if rest[tag_len..].starts_with('$') {
                    let tag = &text[at..at + tag_len + 2];
                    let body_from = at + tag_len + 2;
                    let (body, end) = match text[body_from..].find(tag) {
                        Some(e) => (&text[body_from..body_from + e], body_from + e + tag.len()),
                        None => (&text[body_from..], text.len()),
                    };
                    while chars.peek().is_some_and(|&(i, _)| i < end) {
                        chars.next();
                    }
                    out.push(Tok::Str(body.to_string()));
                }
            }
            ('\\', _) => {
                let line = &text[at + 1..];
                let line = &line[..line.find('\n').unwrap_or(line.len())];
                out.push(Tok::Meta(line.to_string()));
                if next == Some('!') {
                    skip_line(&mut chars);
                } else {
                    while chars.peek().is_some_and(|&(_, n)| n.is_ascii_alphabetic()) {
                        chars.next();
                    }
                }
            }
            ('(', _) => out.push(Tok::Open),
            (')', _) => out.push(Tok::Close),
            (';', _) => out.push(Tok::Semi),
            // A comparison `=` (not `<=`, `>=`, `!=`, `==`, `:=`), for `WHERE 1=1`.
            ('=', n) if n != Some('=') && !text[..at].ends_with(['<', '>', '!', ':', '=']) => {
                out.push(Tok::Eq)
            }
            (c, _) if c.is_alphanumeric() || c == '_' => {
                let mut word = c.to_uppercase().collect::<String>();
                while let Some(&(_, n)) = chars.peek() {
                    if !(n.is_alphanumeric() || n == '_' || n == '$') {
                        break;
                    }
                    word.extend(n.to_uppercase());
                    chars.next();
                }
                out.push(Tok::Word(word));
            }
            _ => {}
        }
    }
    out
}

/// JavaScript `text` with strings and comments replaced by a space.
fn strip_js(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match (c, next) {
            ('/', Some('/')) => skip_line(&mut chars),
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
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == c {
                        break;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executable_comments_open_and_plain_comments_stay() {
        for (sql, want) in [
            ("/*!50000 DROP TABLE t */", "  DROP TABLE t  "),
            ("DROP /*! TABLE */ t", "DROP   TABLE   t"),
            ("/*M!100100 x*/y", "  x y"),
            ("/* DROP TABLE t */", "/* DROP TABLE t */"),
            ("/*!50000 unterminated", "  unterminated "),
            ("", ""),
        ] {
            assert_eq!(open_executable_comments(sql), want, "{sql}");
        }
    }

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
            ("DELETE FROM t WHERE true", true),
            ("DELETE FROM t WHERE 1 = 1 RETURNING *", true),
            ("DELETE FROM t WHERE 1>1", false),
            ("DELETE FROM t WHERE 1=1 AND id=2", false),
            ("DELETE FROM t WHERE a=a", false),
            ("SELECT 'DROP TABLE t' \\gexec", true),
            ("SELECT 'DROP TABLE t'", false),
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
            // Red team: a DO block's body, a CTE, dynamic SQL, EXPLAIN ANALYZE.
            ("DO $$ BEGIN DROP TABLE v; END $$", true),
            (
                "do $body$ begin execute 'drop table ' || t; end $body$",
                true,
            ),
            ("DO 'BEGIN TRUNCATE t; END'", true),
            ("DO $$ BEGIN IF x THEN DELETE FROM t; END IF; END $$", true),
            (
                "WITH d AS (DELETE FROM w RETURNING *) SELECT count(*) FROM d",
                true,
            ),
            (
                "WITH d AS (DELETE FROM w RETURNING *) SELECT * FROM d WHERE id > 1",
                true,
            ),
            ("WITH x AS (SELECT 1) DELETE FROM t", true),
            ("EXPLAIN ANALYZE DELETE FROM t", true),
            ("PREPARE s FROM 'DROP TABLE t'", true),
            ("\\x \\\\ DROP TABLE t", true),
            ("DO $$ BEGIN RAISE NOTICE 'x'; END $$", false),
            (
                "WITH d AS (DELETE FROM w WHERE id = 1 RETURNING *) SELECT 1",
                false,
            ),
            (
                "CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE)",
                false,
            ),
            ("GRANT SELECT, DELETE ON t TO u", false),
            ("ALTER TABLE t DROP COLUMN c", false),
            ("SELECT 'DELETE FROM t' FROM t WHERE a = 1", false),
            ("SELECT $x$ DO $$ DROP TABLE t $$ $x$", false),
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
            ("db[\"dropDatabase\"]()", true),
            ("db['users'].drop()", true),
            ("db[ `users` ][ 'deleteMany' ]({})", true),
            ("db.users.find()[0]", false),
            ("print('db[\"dropDatabase\"]()')", false),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(js, want)| js_destroys(js) != *want)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn shell_commands_are_read_from_each_clients_side_doors() {
        use Client::{Mysql, Other, Psql, Sqlite};
        let rows: &[(Client, &str, &[&str])] = &[
            (Psql, "\\! rm -rf x", &["rm -rf x"]),
            (Psql, "select 1;\n\\! ls -l\nselect 2", &["ls -l"]),
            (Psql, "select 1 \\g |sh -c id", &["sh -c id"]),
            (Psql, "\\o | tee out", &["tee out"]),
            (Psql, "\\copy t to program 'gzip > x.gz'", &["gzip > x.gz"]),
            (
                Psql,
                "COPY (select 1) TO PROGRAM 'rm -rf /var/lib/x'",
                &["rm -rf /var/lib/x"],
            ),
            (Psql, "copy t from program E'cat f'", &["cat f"]),
            (Psql, "copy t from program 'it''s'", &["it's"]),
            (Psql, "select '\\! rm -rf x'", &[]),
            (Psql, "\\o out.txt", &[]),
            (Psql, "select 'program'", &[]),
            (Mysql, "system rm -rf /tmp/x", &["rm -rf /tmp/x"]),
            (Mysql, "select 1; SYSTEM ls", &["ls"]),
            (Mysql, "\\! id", &["id"]),
            (Mysql, "select systemd from t", &[]),
            (Sqlite, ".shell rm -rf victim", &["rm -rf victim"]),
            (
                Sqlite,
                "select 1;\n.system ls\n.sh id\n.syst pwd",
                &["ls", "id", "pwd"],
            ),
            (Sqlite, " .shell not-a-dot-command", &[]),
            (Sqlite, ".s x", &[]),
            (Sqlite, ".schema", &[]),
            (Sqlite, "\\! id", &[]),
            (Other, "\\! id", &[]),
            (Other, "copy t to program 'id'", &["id"]),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(client, input, want)| shell_commands(*client, input) != *want)
            .map(|(client, input, _)| (input, shell_commands(*client, input)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    proptest::proptest! {
        /// Any text: no panic, and text inside a single-quoted string never destroys.
        #[test]
        fn quoted_text_is_never_read(s in "[ -~\\n]{0,80}") {
            let _ = destroys(&s);
            let _ = js_destroys(&s);
            for client in [Client::Psql, Client::Mysql, Client::Sqlite, Client::Other] {
                proptest::prop_assert!(shell_commands(client, &s).len() <= MAX_COMMANDS);
            }
            let quoted = format!("SELECT '{}'", s.replace(['\'', '\\'], ""));
            proptest::prop_assert!(!destroys(&quoted));
        }
    }
}

//! check/deny/sql: reads SQL (and mongosh JavaScript) given to a database client and says
//! whether it destroys data, and which shell commands the client would run on the way (psql's
//! `\!`, mysql's `system`, sqlite3's `.shell`, `COPY … TO PROGRAM`). A small tokenizer, not a
//! parser: it skips strings, quoted names and comments so that only keywords count, and never
//! decides anything but "destroys" and "runs this command".

mod forms;

pub(crate) use self::forms::{client_destroys, selected_strings};
use self::forms::{
    empty_object, explained, js_spelled_out, operator_matches_all, regex_matches_all,
};

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
    // MySQL's `PREPARE s FROM @q`: the statement is a variable's value, set elsewhere in the
    // text (`SET @q = 'DROP TABLE t'`), so every string of the text may be it.
    let from_variable = toks.split(|t| *t == Tok::Semi).any(|s| {
        s.iter()
            .position(|t| *t == Tok::Word("PREPARE".into()))
            .is_some_and(|p| {
                s[p..]
                    .windows(2)
                    .any(|w| w[0] == Tok::Word("FROM".into()) && !matches!(w[1], Tok::Str(_)))
            })
    });
    toks.split(|t| *t == Tok::Semi)
        .any(|s| statement_destroys(s, depth))
        || ((gexec || from_variable)
            && toks
                .iter()
                .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, depth + 1))))
}

/// The shell commands a client would run for `input` (one option value, operand, heredoc or
/// piped text), in order, at most [`MAX_COMMANDS`].
pub(crate) fn shell_commands(client: Client, input: &str) -> Vec<String> {
    let mut out = Vec::new();
    match client {
        Client::Sqlite => out.extend(sqlite_commands(input)),
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
    // psql interpolates `:x`, `:'x'`, `:"x"` in a meta-command's arguments with what `\set x …`
    // gave it: each meta-command is read as written and, if that differs, as interpolated.
    let variables = if client == Client::Psql {
        psql_variables(&toks)
    } else {
        Vec::new()
    };
    let metas: Vec<String> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Meta(m) => Some(m.clone()),
            _ => None,
        })
        .flat_map(|m| {
            let with = interpolate(&m, &variables);
            std::iter::once(m).chain(with)
        })
        .collect();
    if matches!(client, Client::Psql | Client::Mysql) {
        out.extend(metas.iter().filter_map(|m| meta_command(client, m)));
    }
    if client == Client::Psql {
        // `\echo `CMD``, `\set x `CMD``: psql runs the text in backquotes in a meta-command's
        // arguments with the shell.
        for m in &metas {
            if !m.starts_with('!') {
                out.extend(m.split('`').skip(1).step_by(2).map(str::to_string));
            }
        }
        // `\gexec` runs each string the query selects as SQL: a `COPY … TO PROGRAM` among them
        // runs its command.
        if metas.iter().any(|m| m.trim_start().starts_with("gexec")) {
            for t in &toks {
                if let Tok::Str(body) = t {
                    program_strings_at(&tokens(body), 1, &mut out);
                }
            }
        }
    }
    program_strings_at(&toks, 0, &mut out);
    if client == Client::Sqlite {
        out.extend(editor_strings(&toks).map(str::to_string));
    }
    out.retain(|c| !c.is_empty());
    out.truncate(MAX_COMMANDS);
    out
}

/// The shell commands of sqlite3's dot-commands in `input`. A dot-command is a line that
/// starts with `.` in its first column (sqlite3 reads `  .shell x` as SQL); given as one
/// argument, the whole text is one dot-command whose words may span lines, so both readings
/// are taken.
fn sqlite_commands(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let whole = input.starts_with('.').then_some(input);
    let lines = input.lines().filter(|l| l.starts_with('.'));
    for line in whole.into_iter().chain(lines).take(MAX_COMMANDS) {
        for cmd in sqlite_dot_command(line) {
            if !out.contains(&cmd) {
                out.push(cmd);
            }
        }
    }
    out
}

/// The shell commands one dot-command (`line` starts with `.`) may run, read as sqlite3's
/// shell.c reads it: blanks after the dot are skipped, the words are split as
/// [`sqlite_words`] does, and the command name may be any prefix. `.shell`/`.system` (from
/// two letters) run their words; `.output`, `.once`, `.import`, `.read`, `.trace`, `.log`
/// (from one letter) run what follows a `|` at the start of a word — alone or with the words
/// after it, both taken. `-x` and `-e` open a spreadsheet or editor instead, and sqlite3
/// refuses a file after them (it runs nothing).
fn sqlite_dot_command(line: &str) -> Vec<String> {
    let words = sqlite_words(line.get(1..).unwrap_or(""));
    let Some((name, args)) = words.split_first() else {
        return Vec::new();
    };
    let prefix_of = |full: &str, min: usize| name.len() >= min && full.starts_with(name.as_str());
    if prefix_of("shell", 2) || prefix_of("system", 2) {
        // shell.c joins the words with spaces, a word with a space in double quotes.
        let joined: Vec<String> = args
            .iter()
            .map(|a| match a.contains(' ') {
                true => format!("\"{a}\""),
                false => a.clone(),
            })
            .collect();
        return vec![joined.join(" ")];
    }
    let pipes = ["output", "once", "import", "read", "trace", "log"]
        .iter()
        .any(|full| prefix_of(full, 1));
    if !pipes || args.iter().any(|a| matches!(a.as_str(), "-x" | "-e")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (k, a) in args.iter().enumerate() {
        let Some(cmd) = a.strip_prefix('|') else {
            continue;
        };
        let mut with_rest = vec![cmd.to_string()];
        with_rest.extend(args[k + 1..].iter().cloned());
        out.push(cmd.trim().to_string());
        out.push(with_rest.join(" ").trim().to_string());
    }
    out.dedup();
    out
}

/// The words of a dot-command after its dot, as sqlite3's shell.c splits them: at blanks
/// (newlines included); a word that starts with `'` or `"` runs to the same quote; the
/// backslash escapes of unquoted and double-quoted words are resolved (see
/// [`sqlite_unescape`]), single-quoted words are taken as written.
fn sqlite_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
        let Some(c) = chars.next() else {
            break;
        };
        let mut word = String::new();
        match c {
            '\'' | '"' => {
                while let Some(d) = chars.next() {
                    if d == c {
                        break;
                    }
                    word.push(d);
                    if d == '\\'
                        && c == '"'
                        && let Some(e) = chars.next()
                    {
                        word.push(e);
                    }
                }
                if c == '"' {
                    word = sqlite_unescape(&word);
                }
            }
            _ => {
                word.push(c);
                while let Some(d) = chars.next_if(|d| !d.is_ascii_whitespace()) {
                    word.push(d);
                }
                word = sqlite_unescape(&word);
            }
        }
        out.push(word);
    }
    out
}

/// sqlite3's `resolve_backslashes`: `\n`, `\t` and the other C escapes, `\NNN` octal (one to
/// three digits); any other escaped character stands for itself.
fn sqlite_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push(c);
            break;
        };
        let plain = match e {
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            '0'..='7' => {
                let mut v = e as u32 - '0' as u32;
                for _ in 0..2 {
                    match chars.next_if(|d| ('0'..='7').contains(d)) {
                        Some(d) => v = (v << 3) + (d as u32 - '0' as u32),
                        None => break,
                    }
                }
                // shell.c keeps the low byte.
                char::from((v & 0xff) as u8)
            }
            other => other,
        };
        out.push(plain);
    }
    out
}

/// Most psql variables read from one text.
const MAX_VARIABLES: usize = 16;

/// The variables psql's `\set NAME VALUE…` gives in `toks`, in order: the value's words joined
/// (psql concatenates them), a quoted word without its quotes and with `''` undoubled.
fn psql_variables(toks: &[Tok]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in toks {
        let Tok::Meta(m) = t else {
            continue;
        };
        let Some(rest) = m.strip_prefix("set").filter(|r| r.starts_with([' ', '\t'])) else {
            continue;
        };
        let rest = rest.trim();
        let (name, value) = rest.split_once([' ', '\t']).unwrap_or((rest, ""));
        let mut text = String::new();
        let mut chars = value.trim().chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' => loop {
                    match chars.next() {
                        Some('\'') if chars.peek() == Some(&'\'') => {
                            chars.next();
                            text.push('\'');
                        }
                        Some('\'') | None => break,
                        Some(d) => text.push(d),
                    }
                },
                c if c.is_whitespace() => {}
                c => text.push(c),
            }
        }
        if out.len() < MAX_VARIABLES {
            out.push((name.to_string(), text));
        }
    }
    out
}

/// `meta` with `:NAME`, `:'NAME'` and `:"NAME"` replaced by the variables' values (the last
/// `\set` of a name wins), or `None` when nothing is replaced.
fn interpolate(meta: &str, variables: &[(String, String)]) -> Option<String> {
    let mut out = meta.to_string();
    let mut changed = false;
    for (name, value) in variables.iter().rev() {
        for form in [
            format!(":'{name}'"),
            format!(":\"{name}\""),
            format!(":{name}"),
        ] {
            if out.contains(&form) {
                out = out.replace(&form, value);
                changed = true;
            }
        }
    }
    changed.then_some(out)
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
/// (`db["dropDatabase"]()`, `db['drop'+'Database']()`), a quoted key
/// (`runCommand({"dropDatabase": 1})`) or a `with (db)` block (`dropDatabase()`). Strings and
/// comments are not read, except that a member called by a name cmdguard cannot work out
/// (`db[name]()`) destroys when the text names a destroying method anywhere.
pub(crate) fn js_destroys(js: &str) -> bool {
    let js = quoted_keys(&joined_strings(&js_spelled_out(js)));
    let mut code: String = strip_js(&computed_members(&js))
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    // `with (db) { dropDatabase() }`: a bare call is a member of the `with` object.
    if code.contains("with(") {
        for m in ["dropDatabase(", "drop(", "deleteMany(", "remove("] {
            code = code.replace(m, &format!(".{m}"));
        }
    }
    let dynamic = code.contains("](") || code.contains("]?.(");
    // `db.c.drop?.()`, `db.c.drop.call(db.c)`, `Reflect.apply(db.c.drop, …)`: the destroying
    // method taken as a value is as good as called.
    let taken = ["drop", "dropDatabase"]
        .iter()
        .any(|m| member_taken(&code, m));
    let named = ["drop", "deleteMany", "remove"]
        .iter()
        .any(|m| js.contains(m));
    (dynamic && named)
        || taken
        || code.contains(".dropDatabase(")
        || code.contains(".drop(")
        || unrestricted_deletes(&code)
        || ["runCommand", "adminCommand"].iter().any(|c| {
            code.contains(&format!(".{c}({{dropDatabase:"))
                || code.contains(&format!(".{c}({{drop:"))
        })
}

/// Whether `code` (strings and blanks removed) uses the member `.name` other than as the start
/// of a longer name (`.drop` but not `.dropIndex`).
fn member_taken(code: &str, name: &str) -> bool {
    let member = format!(".{name}");
    code.match_indices(&member).any(|(at, m)| {
        !code[at + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
    })
}

/// Whether `code` (strings and blanks removed) deletes or rewrites documents with a filter not
/// proven to leave some out (see [`filter_restricts`]): `deleteMany(F)`, `remove(F)` and
/// `updateMany(F, …)` with no filter or
/// a literal one, or a name the text binds to a literal one (`const f = {}`); a bulk write's
/// `deleteMany: {filter: F}`; the `delete` command's `deletes: [{q: F, limit: 0}]`. A filter
/// given any other way is not read (the command asks).
fn unrestricted_deletes(code: &str) -> bool {
    let bound = |name: &str| {
        ["const", "let", "var"].iter().find_map(|kw| {
            let at = code.find(&format!("{kw}{name}="))? + kw.len() + name.len() + 1;
            code[at..]
                .starts_with('{')
                .then(|| balanced_prefix(&code[at..]))?
        })
    };
    let unrestricted = |arg: &str| match arg {
        "" => true,
        a if empty_object(a) => true,
        a if a.starts_with('{') => !filter_restricts(a),
        a if a
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$') =>
        {
            bound(a).is_some_and(|f| !filter_restricts(f))
        }
        _ => false,
    };
    // `updateMany({}, {$unset: …})` rewrites every document as surely.
    let calls = [".deleteMany(", ".remove(", ".updateMany("]
        .iter()
        .any(|m| {
            code.match_indices(m).any(|(at, m)| {
                !explained(code, at) && unrestricted(first_argument(&code[at + m.len()..]))
            })
        });
    let bulk = code
        .match_indices("deleteMany:{filter:")
        .any(|(at, m)| unrestricted(first_argument(&code[at + m.len()..])));
    // `{q: {}, limit: 0}`: a delete statement of the `delete` command (limit 0: every match).
    let command = code.match_indices("q:").any(|(at, m)| {
        let element = code[..at].rfind('{').map(|open| &code[open..]);
        let limit_all = element
            .and_then(balanced_prefix)
            .is_some_and(|e| e.contains(",limit:0") || e.contains("{limit:0"));
        limit_all && code.contains("delete:") && unrestricted(first_argument(&code[at + m.len()..]))
    });
    calls || bulk || command
}

/// The first argument of a call whose `(` is just before `rest`: to the `,` or `)` that ends
/// it outside brackets.
fn first_argument(rest: &str) -> &str {
    let mut level = 0usize;
    for (k, c) in rest.char_indices() {
        match c {
            '(' | '[' | '{' => level += 1,
            ')' | ']' | '}' if level == 0 => return &rest[..k],
            ')' | ']' | '}' => level -= 1,
            ',' if level == 0 => return &rest[..k],
            _ => {}
        }
    }
    rest
}

/// The bracketed text `text` starts with, through its closing bracket.
fn balanced_prefix(text: &str) -> Option<&str> {
    let mut level = 0usize;
    for (k, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => level += 1,
            ')' | ']' | '}' => {
                level = level.checked_sub(1)?;
                if level == 0 {
                    return Some(&text[..=k]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` (the inside of brackets) split at its top-level commas.
fn split_commas(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut from = 0;
    for (k, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => level += 1,
            ')' | ']' | '}' => level = level.saturating_sub(1),
            ',' if level == 0 => {
                out.push(&text[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    out.push(&text[from..]);
    out.retain(|p| !p.is_empty());
    out
}

/// Query operators that leave documents out whatever the field holds: a field compared with a
/// value (`{age: {$gt: 3}}`), never `$ne`, `$nin`, `$exists`, `$not` or `$type`, which
/// (`{_id: {$ne: null}}`) can hold for every document.
const RESTRICTING_OPERATORS: &[&str] = &[
    "$eq",
    "$in",
    "$lt",
    "$lte",
    "$gt",
    "$gte",
    "$regex",
    "$all",
    "$elemMatch",
    "$size",
    "$mod",
];

/// Whether a literal filter object (strings and blanks removed, `{…}`) is proven to leave
/// documents out: one of its fields compared with a value (`{age: 3}`, `{name: "x"}`,
/// `{a: {b: 1}}`, `{n: {$in: [1]}}`), an `$and` with such a part, an `$or` whose every branch
/// is one, or `$text`. Anything else (`{}`, `{$where: …}`, `{$expr: …}`, `{_id: {$ne: null}}`)
/// may match every document.
fn filter_restricts(filter: &str) -> bool {
    let Some(inner) = filter.strip_prefix('{').and_then(|f| f.strip_suffix('}')) else {
        return false;
    };
    split_commas(inner).iter().any(|pair| {
        let Some((key, value)) = pair.split_once(':') else {
            return false;
        };
        let branches = || {
            value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .map(split_commas)
                .unwrap_or_default()
        };
        match key {
            "$and" => branches().iter().any(|b| filter_restricts(b)),
            "$or" => {
                let b = branches();
                !b.is_empty() && b.iter().all(|b| filter_restricts(b))
            }
            "$text" => true,
            k if k.starts_with('$') || k.is_empty() => false,
            _ if value.starts_with('{') => {
                let ops = value
                    .strip_prefix('{')
                    .and_then(|v| v.strip_suffix('}'))
                    .map(split_commas)
                    .unwrap_or_default();
                fn op_name<'a>(p: &&'a str) -> &'a str {
                    p.split_once(':').map_or(*p, |(k, _)| k)
                }
                // `{a: {b: 1}}` (no operators) is a whole-document match.
                !ops.iter().any(|p| op_name(p).starts_with('$'))
                    || ops.iter().any(|p| {
                        RESTRICTING_OPERATORS.contains(&op_name(p)) && !operator_matches_all(key, p)
                    })
            }
            // `{name: /.*/}`: a regular expression that matches every string.
            _ => !regex_matches_all(value),
        }
    })
}

/// Most joins of string literals made in one text (`'a' + 'b' + …`).
const MAX_JOINS: usize = 64;

/// `js` with string literals of name characters joined by `+` written as one literal
/// (`'drop' + 'Database'` → `"dropDatabase"`).
fn joined_strings(js: &str) -> String {
    static JOIN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:"([\w$]*)"|'([\w$]*)'|`([\w$]*)`)\s*\+\s*(?:"([\w$]*)"|'([\w$]*)'|`([\w$]*)`)"#,
        )
        .ok()
    });
    let mut out = js.to_string();
    let Some(join) = JOIN.as_ref() else {
        return out;
    };
    for _ in 0..MAX_JOINS {
        let next = join.replace(&out, |c: &regex::Captures<'_>| {
            let part = |a: usize| (a..a + 3).find_map(|k| c.get(k)).map_or("", |m| m.as_str());
            format!("\"{}{}\"", part(1), part(4))
        });
        if next == out {
            break;
        }
        out = next.into_owned();
    }
    out
}

/// `js` with each object key written as a string (`{"drop": "c"}`, `{'dropDatabase': 1}`)
/// written as a name.
fn quoted_keys(js: &str) -> String {
    static KEY: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"([{,]\s*)(?:"([\w$]+)"|'([\w$]+)'|`([\w$]+)`)\s*:"#).ok()
    });
    let Some(key) = KEY.as_ref() else {
        return js.to_string();
    };
    key.replace_all(js, |c: &regex::Captures<'_>| {
        let name = (2..5).find_map(|k| c.get(k)).map_or("", |m| m.as_str());
        format!("{}{name}:", &c[1])
    })
    .into_owned()
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
    /// A bound parameter or variable (`:id`, `@id`): a value.
    Param,
    Open,
    Close,
    Semi,
    /// A lone `=`.
    Eq,
    /// Another comparison operator: `<`, `>`, `<=`, `>=`, `<>`, `!=`, `==`.
    Cmp(String),
    /// A `.` (between a table and a column name).
    Dot,
    /// An arithmetic operator: `+`, `-`, `*`, `/`, `%`, `^`.
    Arith(char),
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
                Tok::Str(_)
                | Tok::Name
                | Tok::Param
                | Tok::Semi
                | Tok::Eq
                | Tok::Cmp(_)
                | Tok::Dot
                | Tok::Arith(_) => false,
            }
    };
    // The strings after `DO` (its body) and `EXECUTE` / `PREPARE … FROM` (dynamic SQL) are SQL.
    let strings_destroy = |k: usize| {
        s[k + 1..]
            .iter()
            .any(|t| matches!(t, Tok::Str(body) if destroys_at(body, depth + 1)))
    };
    // `ALTER TABLE t DROP COLUMN c` loses the column's data; ClickHouse's `ALTER TABLE t
    // DELETE|UPDATE … WHERE …` is a mutation of the rows its condition holds for.
    let alter = matches!(s.first(), Some(Tok::Word(w)) if w == "ALTER");
    let word_at = |k: usize, words: &[&str]| match s.get(k) {
        Some(Tok::Word(n)) => words.contains(&n.as_str()),
        _ => false,
    };
    let cascade = s
        .iter()
        .any(|t| matches!(t, Tok::Word(w) if w == "CASCADE"));
    for (k, t) in s.iter().enumerate() {
        let Tok::Word(w) = t else {
            continue;
        };
        let hit = match w.as_str() {
            "DO" => starts(k) && strings_destroy(k),
            "EXECUTE" | "PREPARE" => strings_destroy(k),
            "TRUNCATE" => starts(k),
            "DROP" if alter => word_at(k + 1, &["COLUMN"]),
            "DROP" => {
                // `DROP OWNED BY role` drops every object the role owns; `DROP TYPE e CASCADE`
                // drops every column of that type.
                let store = (k + 1..k + 3).any(|n| word_at(n, DROPPED_STORES));
                let owned = word_at(k + 1, &["OWNED"]) && word_at(k + 2, &["BY"]);
                let dependents = cascade && word_at(k + 1, &["TYPE", "DOMAIN", "EXTENSION"]);
                starts(k) && (store || owned || dependents)
            }
            // An `UPDATE` without a narrowing `WHERE` overwrites every row, like a `DELETE`.
            "DELETE" | "UPDATE" => {
                // Not the `ON DELETE CASCADE` of a foreign key an `ALTER TABLE` adds.
                let action = k > 0 && word_at(k - 1, &["ON"]);
                (starts(k) || (alter && !action)) && !where_follows(&s[k + 1..])
            }
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// The objects whose `DROP` loses stored data: a database (`KEYSPACE` in Cassandra), a schema, a
/// table.
const DROPPED_STORES: &[&str] = &["DATABASE", "SCHEMA", "TABLE", "KEYSPACE"];

/// The table a `DELETE` or `UPDATE` whose tokens follow writes (`FROM t`, `OR REPLACE t`).
fn target(after: &[Tok]) -> Option<&str> {
    const BEFORE: &[&str] = &[
        "FROM",
        "ONLY",
        "OR",
        "REPLACE",
        "IGNORE",
        "ABORT",
        "FAIL",
        "ROLLBACK",
        "LOW_PRIORITY",
        "QUICK",
    ];
    after.iter().find_map(|t| match t {
        Tok::Word(w) if BEFORE.contains(&w.as_str()) => None,
        Tok::Word(w) => Some(Some(w.as_str())),
        _ => Some(None),
    })?
}

/// Whether a `WHERE` at the level of the `DELETE` whose tokens follow comes before that level
/// closes (`(DELETE FROM t RETURNING *) SELECT … WHERE …` has none of its own), with a
/// condition that is proven not to hold for every row (see [`restricts`]).
fn where_follows(after: &[Tok]) -> bool {
    let mut level = 0usize;
    for (k, t) in after.iter().enumerate() {
        match t {
            Tok::Open => level += 1,
            Tok::Close if level == 0 => return false,
            Tok::Close => level -= 1,
            Tok::Word(w) if level == 0 && w == "WHERE" => {
                let cond = &after[k + 1..];
                return restricts(&cond[..condition_end(cond)], target(after));
            }
            _ => {}
        }
    }
    false
}

/// Where a `WHERE` condition ends: at the statement's end, at the `)` that closes its level,
/// or at a clause that does not filter (`RETURNING`, `ORDER BY`, `LIMIT`).
fn condition_end(cond: &[Tok]) -> usize {
    let mut level = 0usize;
    for (k, t) in cond.iter().enumerate() {
        match t {
            Tok::Open => level += 1,
            Tok::Close if level == 0 => return k,
            Tok::Close => level -= 1,
            Tok::Semi => return k,
            Tok::Word(w) if level == 0 && matches!(w.as_str(), "RETURNING" | "ORDER" | "LIMIT") => {
                return k;
            }
            _ => {}
        }
    }
    cond.len()
}

/// `cond` split at the words `sep` (`OR`, `AND`) outside parentheses.
/// The `AND` of `x BETWEEN a AND b` belongs to the `BETWEEN`.
fn split_top<'t>(cond: &'t [Tok], sep: &[&str]) -> Vec<&'t [Tok]> {
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut from = 0;
    let mut between = false;
    for (k, t) in cond.iter().enumerate() {
        match t {
            Tok::Open => level += 1,
            Tok::Close => level = level.saturating_sub(1),
            Tok::Word(w) if level == 0 && w == "BETWEEN" => between = true,
            Tok::Word(w) if level == 0 && w == "AND" && between => between = false,
            Tok::Word(w) if level == 0 && sep.contains(&w.as_str()) => {
                out.push(&cond[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    out.push(&cond[from..]);
    out
}

/// Words that are neither a column nor a table name: keywords of conditions and the constants
/// that look like names.
const NOT_COLUMNS: &[&str] = &[
    "TRUE",
    "FALSE",
    "NULL",
    "UNKNOWN",
    "NOT",
    "AND",
    "OR",
    "XOR",
    "IS",
    "IN",
    "LIKE",
    "ILIKE",
    "GLOB",
    "REGEXP",
    "RLIKE",
    "MATCH",
    "SIMILAR",
    "TO",
    "BETWEEN",
    "ESCAPE",
    "EXISTS",
    "SELECT",
    "FROM",
    "WHERE",
    "WITH",
    "VALUES",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "DISTINCT",
    "ANY",
    "ALL",
    "SOME",
    "AS",
    "CAST",
    "COLLATE",
    "INTERVAL",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "ARRAY",
    "ROW",
    "DIV",
    "MOD",
    "DEFAULT",
    "UESCAPE",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "CURRENT_USER",
    "SESSION_USER",
    "USER",
    "CURRENT_ROLE",
    "CURRENT_CATALOG",
    "CURRENT_SCHEMA",
];

/// Words that compare (with a column on one side, a restriction).
const COMPARISONS: &[&str] = &[
    "IS", "IN", "LIKE", "ILIKE", "GLOB", "REGEXP", "RLIKE", "MATCH", "SIMILAR", "BETWEEN",
];

/// Whether a `WHERE` condition is proven to leave rows out: every `OR` branch has an `AND`
/// part that is a restriction — a comparison with a column on one side (`id = 1`,
/// `name LIKE 'a%'`, `id IN (…)`, `x IS NULL`), a boolean column, `EXISTS (…)`,
/// `CURRENT OF cursor`, or a constant that is false (`1>1`). Anything else (`true`, `NOT
/// false`, `2>1`, `id IS NOT NULL OR true`, an expression cmdguard does not evaluate) may hold
/// for every row.
///
/// Two `OR` branches that compare the same thing with the same value in opposite ways
/// (`name <> '' OR name = ''`, `x IS NULL OR x IS NOT NULL`) hold for every row together.
fn restricts(cond: &[Tok], table: Option<&str>) -> bool {
    let branches = split_top(cond, &["OR", "XOR"]);
    let complementary = branches.iter().enumerate().any(|(a, x)| {
        branches[a + 1..]
            .iter()
            .any(|y| complement(x).is_some_and(|c| c == *y))
    });
    !cond.is_empty()
        && !complementary
        && branches.iter().all(|branch| {
            split_top(branch, &["AND"])
                .iter()
                .any(|c| restriction(c, table))
        })
}

/// The comparison that holds exactly where `part` (a plain `A op B` or `A IS [NOT] NULL`) does
/// not, for rows where both sides have a value: `a = 1` → `a <> 1`, `a < 1` → `a >= 1`.
fn complement(part: &[Tok]) -> Option<Vec<Tok>> {
    let op = part
        .iter()
        .position(|t| matches!(t, Tok::Eq | Tok::Cmp(_)))
        .filter(|&op| op > 0 && op + 1 < part.len());
    if let Some(op) = op {
        let opposite = match &part[op] {
            Tok::Eq => "<>",
            Tok::Cmp(c) => match c.as_str() {
                "==" => "<>",
                "<>" | "!=" => "=",
                "<" => ">=",
                ">=" => "<",
                ">" => "<=",
                "<=" => ">",
                _ => return None,
            },
            _ => return None,
        };
        let opposite = match opposite {
            "=" => Tok::Eq,
            c => Tok::Cmp(c.to_string()),
        };
        let mut out = part.to_vec();
        out[op] = opposite;
        return Some(out);
    }
    // `x IS NULL` and `x IS NOT NULL`.
    let is = part
        .iter()
        .position(|t| matches!(t, Tok::Word(w) if w == "IS"))?;
    let mut out = part[..=is].to_vec();
    match &part[is + 1..] {
        [Tok::Word(n)] if n == "NULL" => {
            out.extend([Tok::Word("NOT".into()), Tok::Word("NULL".into())])
        }
        [Tok::Word(n), Tok::Word(v)] if n == "NOT" && v == "NULL" => {
            out.push(Tok::Word("NULL".into()))
        }
        _ => return None,
    }
    Some(out)
}

/// Whether a comparison holds for no row: a column compared with itself by `<>`, `!=`, `<`,
/// `>` (`id <> id`), or `IS DISTINCT FROM` itself.
fn holds_for_no_row(part: &[Tok]) -> bool {
    let Some(op) = part.iter().position(|t| match t {
        Tok::Cmp(_) => true,
        Tok::Word(w) => w == "IS",
        _ => false,
    }) else {
        return false;
    };
    let (lhs, rhs) = (plain_side(&part[..op]), &part[op + 1..]);
    let rhs = match (&part[op], rhs) {
        (Tok::Cmp(c), r) if matches!(c.as_str(), "<>" | "!=" | "<" | ">") => r,
        (Tok::Word(_), [Tok::Word(d), Tok::Word(f), r @ ..]) if d == "DISTINCT" && f == "FROM" => r,
        _ => return false,
    };
    !lhs.is_empty() && lhs == plain_side(rhs) && columns(lhs) > 0
}

/// One side of a comparison without what leaves its value as it is for comparing: a trailing
/// `COLLATE name`, `+ 0`, `- 0`, `* 1`, `/ 1`.
fn plain_side(side: &[Tok]) -> &[Tok] {
    let mut side = side;
    loop {
        side = match side {
            [rest @ .., Tok::Word(c), Tok::Word(_)] if c == "COLLATE" => rest,
            [rest @ .., Tok::Arith('+' | '-'), Tok::Word(n)] if n == "0" => rest,
            [rest @ .., Tok::Arith('*' | '/'), Tok::Word(n)] if n == "1" => rest,
            _ => return side,
        };
    }
}

/// One `AND` part of a condition; see [`restricts`].
fn restriction(part: &[Tok], table: Option<&str>) -> bool {
    let mut part = part;
    let mut negated = false;
    while let [Tok::Word(w), rest @ ..] = part
        && w == "NOT"
    {
        negated = !negated;
        part = rest;
    }
    if let [Tok::Open, inner @ .., Tok::Close] = part
        && balanced(inner)
    {
        // `NOT (id <> id)`: the negation of a comparison no row passes holds for every row.
        if negated && holds_for_no_row(inner) {
            return false;
        }
        return match constant(inner) {
            Some(v) => v == negated,
            None => restricts(inner, table),
        };
    }
    if let Some(v) = constant(part) {
        // A condition that is false for every row deletes nothing.
        return v == negated;
    }
    if holds_for_every_row(part, table) {
        return false;
    }
    if negated && holds_for_no_row(part) {
        return false;
    }
    match part {
        // `EXISTS (SELECT 1)`, `EXISTS (SELECT 1 FROM t)`: a subquery with nothing that narrows
        // it has rows for every row, or for none.
        [Tok::Word(w), Tok::Open, inner @ ..] if w == "EXISTS" => {
            const NARROWING: &[&str] = &["WHERE", "ON", "USING", "HAVING", "LIMIT"];
            return inner
                .iter()
                .any(|t| matches!(t, Tok::Word(w) if NARROWING.contains(&w.as_str())));
        }
        [Tok::Word(c), Tok::Word(o), _] if c == "CURRENT" && o == "OF" => return true,
        _ => {}
    }
    let columns = columns(part);
    let compares = part.iter().any(|t| match t {
        Tok::Eq | Tok::Cmp(_) => true,
        Tok::Word(w) => COMPARISONS.contains(&w.as_str()),
        _ => false,
    });
    // `WHERE active`, `WHERE t.active`: a boolean column.
    let lone = matches!(
        part,
        [Tok::Word(_) | Tok::Name] | [Tok::Word(_) | Tok::Name, Tok::Dot, Tok::Word(_) | Tok::Name]
    );
    columns > 0 && (compares || lone)
}

/// Row identifiers: every row has one, and none is below 1 where a database numbers them.
const ROW_IDS: &[&str] = &["ROWID", "_ROWID_", "OID", "ID"];

/// A comparison that names a column yet holds for every row (where the column is not null):
/// the column compared with itself (`id = id`, `t.a >= t.a`), a pattern that matches any text
/// (`name LIKE '%'`, `GLOB '*'`, `REGEXP '.*'`), or a row identifier against a bound every
/// identifier passes (`rowid > 0`, `id >= 1`, `id IS NOT NULL`).
fn holds_for_every_row(part: &[Tok], table: Option<&str>) -> bool {
    if every_row_set(part, table) {
        return true;
    }
    let Some(op) = part.iter().position(|t| match t {
        Tok::Eq | Tok::Cmp(_) => true,
        Tok::Word(w) => matches!(
            w.as_str(),
            "LIKE" | "ILIKE" | "GLOB" | "REGEXP" | "RLIKE" | "IS"
        ),
        _ => false,
    }) else {
        return false;
    };
    let (lhs, rhs) = (plain_side(&part[..op]), plain_side(&part[op + 1..]));
    let reflexive = match &part[op] {
        Tok::Eq => true,
        Tok::Cmp(c) => matches!(c.as_str(), "==" | "<=" | ">="),
        Tok::Word(w) => matches!(w.as_str(), "LIKE" | "ILIKE" | "GLOB" | "IS"),
        _ => false,
    };
    let column = !lhs.is_empty() && columns(lhs) > 0;
    if reflexive && column && lhs == rhs {
        return true;
    }
    // `id IS NOT DISTINCT FROM id`.
    if let (Tok::Word(w), [Tok::Word(n), Tok::Word(d), Tok::Word(f), r @ ..]) = (&part[op], rhs)
        && w == "IS"
        && n == "NOT"
        && d == "DISTINCT"
        && f == "FROM"
        && column
        && lhs == plain_side(r)
    {
        return true;
    }
    let any_text = match (&part[op], rhs) {
        (Tok::Word(w), [Tok::Str(p)]) => match w.as_str() {
            "LIKE" | "ILIKE" => !p.is_empty() && p.chars().all(|c| c == '%'),
            "GLOB" => !p.is_empty() && p.chars().all(|c| c == '*'),
            "REGEXP" | "RLIKE" => {
                matches!(p.as_str(), "" | "^" | "$" | ".*" | "^.*" | ".*$" | "^.*$")
            }
            _ => false,
        },
        (Tok::Cmp(c), [Tok::Str(p)]) if c == "~" || c == "~*" => {
            matches!(p.as_str(), "" | "^" | "$" | ".*" | "^.*" | ".*$" | "^.*$")
        }
        _ => false,
    };
    if any_text {
        return true;
    }
    let row_id = match lhs {
        [Tok::Word(c)] | [Tok::Word(_) | Tok::Name, Tok::Dot, Tok::Word(c)] => {
            ROW_IDS.contains(&c.as_str())
        }
        _ => false,
    };
    let number = |t: &Tok| match t {
        Tok::Word(w) => w.parse::<f64>().ok(),
        _ => None,
    };
    row_id
        && match (&part[op], rhs) {
            (Tok::Cmp(c), [n]) if c == ">" => number(n).is_some_and(|n| n < 1.0),
            (Tok::Cmp(c), [n]) if c == ">=" => number(n).is_some_and(|n| n <= 1.0),
            // `id > -1`: a negative bound.
            (Tok::Cmp(c), [Tok::Arith('-'), n]) if c == ">" || c == ">=" => number(n).is_some(),
            (Tok::Word(w), [Tok::Word(n), Tok::Word(v)]) => w == "IS" && n == "NOT" && v == "NULL",
            _ => false,
        }
}

/// A membership or range test that every row passes: `id IN (id)`, `id IN (SELECT id FROM t)`,
/// `id NOT IN ()` (SQLite takes the empty list), `id BETWEEN id AND id`, a lone row identifier
/// (`WHERE rowid`: never 0 where a database numbers the rows).
fn every_row_set(part: &[Tok], table: Option<&str>) -> bool {
    if let [Tok::Word(c)] | [Tok::Word(_) | Tok::Name, Tok::Dot, Tok::Word(c)] = part
        && ROW_IDS.contains(&c.as_str())
    {
        return true;
    }
    let word = |k: usize, w: &str| matches!(part.get(k), Some(Tok::Word(x)) if x == w);
    let Some(op) = (0..part.len()).find(|&k| word(k, "IN") || word(k, "BETWEEN")) else {
        return false;
    };
    let not = op > 0 && word(op - 1, "NOT");
    let lhs = plain_side(&part[..if not { op - 1 } else { op }]);
    if lhs.is_empty() || columns(lhs) == 0 {
        return false;
    }
    let rhs = &part[op + 1..];
    if word(op, "BETWEEN") {
        let Some(and) = (op + 1..part.len()).find(|&k| word(k, "AND")) else {
            return false;
        };
        return !not
            && plain_side(&part[op + 1..and]) == lhs
            && plain_side(&part[and + 1..]) == lhs;
    }
    match rhs {
        [Tok::Open, Tok::Close] => not,
        [Tok::Open, inner @ .., Tok::Close] if !not && plain_side(inner) == lhs => true,
        [Tok::Open, Tok::Word(s), inner @ .., Tok::Close] if !not && s == "SELECT" => match inner {
            // Of the table the statement writes: every row's value is in it.
            [col @ .., Tok::Word(f), Tok::Word(t)] if f == "FROM" => {
                col == lhs && table == Some(t.as_str())
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether `toks` opens and closes its parentheses in order.
fn balanced(toks: &[Tok]) -> bool {
    let mut level = 0usize;
    for t in toks {
        match t {
            Tok::Open => level += 1,
            Tok::Close if level == 0 => return false,
            Tok::Close => level -= 1,
            _ => {}
        }
    }
    level == 0
}

/// How many column references `part` has outside subqueries: names that are not keywords,
/// numbers or function names.
fn columns(part: &[Tok]) -> usize {
    let mut count = 0;
    let mut subquery_level: Option<usize> = None;
    let mut level = 0usize;
    for (k, t) in part.iter().enumerate() {
        match t {
            Tok::Open => {
                level += 1;
                let starts_query = matches!(part.get(k + 1), Some(Tok::Word(w)) if matches!(w.as_str(), "SELECT" | "WITH" | "VALUES"));
                if subquery_level.is_none() && starts_query {
                    subquery_level = Some(level);
                }
            }
            Tok::Close => {
                if subquery_level == Some(level) {
                    subquery_level = None;
                }
                level = level.saturating_sub(1);
            }
            _ if subquery_level.is_some() => {}
            Tok::Name => count += 1,
            Tok::Word(w) => {
                // `lower(…)`, and `E'…'`, `X'…'`: a function and a string's prefix.
                // A prefix is one letter or a MySQL character set (`_utf8'…'`): `data,'$.x'`
                // is a column before a string (the comma is not a token).
                let prefix = w.len() == 1 || w.starts_with('_');
                let function = match part.get(k + 1) {
                    Some(Tok::Open) => true,
                    Some(Tok::Str(_)) => prefix,
                    _ => false,
                };
                let number = w.starts_with(|c: char| c.is_ascii_digit());
                if !function && !number && !NOT_COLUMNS.contains(&w.as_str()) {
                    count += 1;
                }
            }
            _ => {}
        }
    }
    count
}

/// The value of a condition made only of literals, when cmdguard can work it out: `true`,
/// `false`, a number (non-zero is true), or two numbers or two strings compared.
fn constant(part: &[Tok]) -> Option<bool> {
    let number = |t: &Tok| match t {
        Tok::Word(w) => w.parse::<f64>().ok(),
        _ => None,
    };
    match part {
        [Tok::Word(w)] if w == "TRUE" => Some(true),
        [Tok::Word(w)] if w == "FALSE" => Some(false),
        [t] => number(t).map(|n| n != 0.0),
        [Tok::Open, inner @ .., Tok::Close] if balanced(inner) => constant(inner),
        [a, op, b] => {
            let ord = match (number(a), number(b), a, b) {
                (Some(x), Some(y), _, _) => x.partial_cmp(&y)?,
                (_, _, Tok::Str(x), Tok::Str(y))
                    if matches!(op, Tok::Eq)
                        || matches!(op, Tok::Cmp(c) if matches!(c.as_str(), "==" | "<>" | "!=")) =>
                {
                    x.cmp(y)
                }
                _ => return None,
            };
            use std::cmp::Ordering::{Equal, Greater, Less};
            match op {
                Tok::Eq => Some(ord == Equal),
                Tok::Cmp(c) => match c.as_str() {
                    "==" => Some(ord == Equal),
                    "<>" | "!=" => Some(ord != Equal),
                    "<" => Some(ord == Less),
                    ">" => Some(ord == Greater),
                    "<=" => Some(ord != Greater),
                    ">=" => Some(ord != Less),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The commands of `COPY … TO|FROM PROGRAM '…'` (server side) and psql's `\copy … PROGRAM`,
/// also in the SQL of a `DO` body and of the strings `EXECUTE` and `PREPARE` run (to
/// [`MAX_SQL_DEPTH`] levels), pushed to `out`.
fn program_strings_at(toks: &[Tok], depth: usize, out: &mut Vec<String>) {
    if depth > MAX_SQL_DEPTH {
        return;
    }
    for (k, t) in toks.iter().enumerate() {
        let Tok::Word(w) = t else {
            continue;
        };
        match w.as_str() {
            "PROGRAM" => out.extend(string_at(toks, k + 1)),
            "DO" | "EXECUTE" | "PREPARE" => {
                let end = toks[k..]
                    .iter()
                    .position(|t| *t == Tok::Semi)
                    .map_or(toks.len(), |e| k + e);
                for t in &toks[k + 1..end] {
                    if let Tok::Str(body) = t {
                        program_strings_at(&tokens(body), depth + 1, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The value of the string constant that starts at `toks[k]`: `'…'`, `$$…$$`, an escape
/// string `E'…'` and a Unicode string `U&'…'` (with its `UESCAPE`) decoded as the server
/// decodes them.
fn string_at(toks: &[Tok], k: usize) -> Option<String> {
    match (toks.get(k)?, toks.get(k + 1)) {
        (Tok::Str(s), _) => Some(s.clone()),
        (Tok::Word(w), Some(Tok::Str(s))) if w == "E" => Some(escape_string(s)),
        (Tok::Word(w), Some(Tok::Str(s))) if w == "U" => {
            let escape = match (toks.get(k + 2), toks.get(k + 3)) {
                (Some(Tok::Word(u)), Some(Tok::Str(e))) if u == "UESCAPE" => {
                    e.chars().next().unwrap_or('\\')
                }
                _ => '\\',
            };
            Some(unicode_string(s, escape))
        }
        _ => None,
    }
}

/// PostgreSQL's escape string body (`E'…'`): `\n` and the other C escapes, `\xHH`, `\ooo`,
/// `\uXXXX`, `\UXXXXXXXX`; any other escaped character stands for itself.
fn escape_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push(c);
            break;
        };
        let mut number = |radix: u32, most: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < most
                && let Some(d) = chars.next_if(|d| d.is_digit(radix))
            {
                digits.push(d);
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            '0'..='7' => number(8, 3, Some(e)),
            other => Some(other),
        };
        out.extend(decoded);
    }
    out
}

/// A Unicode string body (`U&'…'`): `ESC XXXX` and `ESC +XXXXXX` are code points, a doubled
/// escape character stands for itself.
fn unicode_string(s: &str, escape: char) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != escape {
            out.push(c);
            continue;
        }
        if chars.next_if_eq(&escape).is_some() {
            out.push(escape);
            continue;
        }
        let most = if chars.next_if_eq(&'+').is_some() {
            6
        } else {
            4
        };
        let mut digits = String::new();
        while digits.len() < most
            && let Some(d) = chars.next_if(char::is_ascii_hexdigit)
        {
            digits.push(d);
        }
        out.extend(
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32),
        );
    }
    out
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
                // A shell variable an unquoted heredoc leaves in the text (`$ID`, `${ID}`) or a
                // positional parameter (`$1`): a value bash fills in, as a bound parameter is.
                if rest.starts_with('{') && !rest[1..].starts_with('$') {
                    let end = rest.find('}').map_or(text.len(), |e| at + 1 + e + 1);
                    while chars.peek().is_some_and(|&(i, _)| i < end) {
                        chars.next();
                    }
                    out.push(Tok::Param);
                } else if tag_len > 0 && !rest[tag_len..].starts_with('$') {
                    while chars.peek().is_some_and(|&(i, _)| i <= at + tag_len) {
                        chars.next();
                    }
                    out.push(Tok::Param);
                } else if rest[tag_len..].starts_with('$') {
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
            // Comparisons, for the `WHERE` of a `DELETE`; `:=` assigns.
            ('<' | '>' | '!' | '=', Some('=')) => {
                chars.next();
                out.push(Tok::Cmp(format!("{c}=")));
            }
            ('<', Some('>')) => {
                chars.next();
                out.push(Tok::Cmp("<>".into()));
            }
            ('<' | '>', _) => out.push(Tok::Cmp(c.to_string())),
            // PostgreSQL's regular expression matches: `~`, `~*`, `!~`, `!~*`.
            ('~', _) | ('!', Some('~')) => {
                let mut op = c.to_string();
                if c == '!' {
                    chars.next();
                    op.push('~');
                }
                if chars.next_if(|&(_, n)| n == '*').is_some() {
                    op.push('*');
                }
                out.push(Tok::Cmp(op));
            }
            // A bound parameter (`:id`, `@id`, psql's `:id` variable) is a value, as a string
            // is; not the second `:` of a cast (`x::int`).
            (':' | '@', Some(n))
                if (n.is_alphanumeric() || n == '_') && !text[..at].ends_with(':') =>
            {
                while chars
                    .next_if(|&(_, n)| n.is_alphanumeric() || n == '_')
                    .is_some()
                {}
                out.push(Tok::Param);
            }
            // MySQL's `!`, `||` and `&&` are NOT, OR and AND (PostgreSQL's `||` joins strings:
            // reading it as OR only takes a restriction away).
            ('!', _) => out.push(Tok::Word("NOT".into())),
            ('|', Some('|')) => {
                chars.next();
                out.push(Tok::Word("OR".into()));
            }
            ('&', Some('&')) => {
                chars.next();
                out.push(Tok::Word("AND".into()));
            }
            ('=', _) if !text[..at].ends_with(':') => out.push(Tok::Eq),
            ('.', _) => out.push(Tok::Dot),
            ('+' | '-' | '*' | '/' | '%' | '^', _) => out.push(Tok::Arith(c)),
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
            // A column compared with itself holds for every row where it is not null (real
            // sqlite3: 2 rows -> 0); it is not a restriction.
            ("DELETE FROM t WHERE a=a", true),
            ("delete from t where id = id", true),
            ("delete from t where t.a >= t.a", true),
            ("delete from t where a = b", false),
            ("delete from t where a < a", false),
            ("delete from t where rowid > 0", true),
            ("delete from t where id >= 1", true),
            ("delete from t where t.id is not null", true),
            ("delete from t where id > 100", false),
            ("delete from t where deleted_at is not null", false),
            ("delete from t where name like '%'", true),
            ("delete from t where name like '%%'", true),
            ("delete from t where name glob '*'", true),
            ("delete from t where name regexp '.*'", true),
            ("delete from t where name like 'a%'", false),
            ("delete from t where name like '%' and id = 3", false),
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
            // The column's data is lost (red team s9); a constraint holds no data.
            ("ALTER TABLE t DROP COLUMN c", true),
            ("ALTER TABLE t DROP CONSTRAINT c", false),
            ("UPDATE t SET a = 1", true),
            ("UPDATE t SET a = 1 WHERE id = 2", false),
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
            // A filter not proven to leave documents out is every document.
            ("db.c.deleteMany({_id:{$ne:null}})", true),
            ("db.c.deleteMany({$or:[{}]})", true),
            ("db.c.deleteMany({$where:\"true\"})", true),
            ("db.c.deleteMany({$expr:true})", true),
            ("const f={}; db.c.deleteMany(f)", true),
            ("db.c.deleteMany({x: {$exists: true}})", true),
            ("db.c.deleteMany({status: 'old'})", false),
            ("db.c.deleteMany({age: {$lt: 3}})", false),
            ("db.c.deleteMany({$and: [{a: 1}, {b: {$ne: 2}}]})", false),
            ("db.c.deleteMany({$or: [{a: 1}, {b: 2}]})", false),
            ("db.c.deleteMany({$or: [{a: 1}, {}]})", true),
            ("db.c.deleteMany({a: {b: 1}})", false),
            ("const f={a: 1}; db.c.deleteMany(f)", false),
            ("db.c.deleteMany(filterFromElsewhere())", false),
            ("db.c.deleteMany(f)", false),
            ("db.c.deleteOne({})", false),
            // The destroying method as a value.
            ("db.c.drop?.()", true),
            ("db.c.drop.call(db.c)", true),
            ("db.c.drop.bind(db.c)()", true),
            ("Reflect.apply(db.c.drop, db.c, [])", true),
            ("db.c.dropIndex('x_1')", false),
            ("db.c.dropIndexes()", false),
            // The `delete` command.
            (
                "db.runCommand({delete:\"c\", deletes:[{q:{}, limit:0}]})",
                true,
            ),
            (
                "db.runCommand({delete:'c', deletes:[{limit: 0, q: {$where: 'true'}}]})",
                true,
            ),
            (
                "db.runCommand({delete:\"c\", deletes:[{q:{}, limit:1}]})",
                false,
            ),
            (
                "db.runCommand({delete:\"c\", deletes:[{q:{a: 1}, limit:0}]})",
                false,
            ),
            (
                "db.c.bulkWrite([{deleteMany: {filter: {_id: {$ne: null}}}}])",
                true,
            ),
            ("db.c.bulkWrite([{deleteMany: {filter: {a: 1}}}])", false),
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
            // `\set` variables are interpolated in later meta-commands.
            (Psql, "\\set x 'rm -rf v'\n\\! :x", &[":x", "rm -rf v"]),
            (Psql, "\\set x 'it''s'\n\\o |:'x'", &[":'x'", "it's"]),
            // `\gexec` runs the selected strings as SQL.
            (
                Psql,
                "select 'copy t to program ''rm -rf v''' \\gexec",
                &["rm -rf v"],
            ),
            (Psql, "select 'copy t to program ''rm -rf v'''", &[]),
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

    #[test]
    fn sqlite_dot_commands_are_split_and_dispatched_as_shell_c_does() {
        let rows: &[(&str, &[&str])] = &[
            (".o |rm -rf v", &["rm", "rm -rf v"]),
            (".once \"|rm -rf v\"", &["rm -rf v"]),
            (".once \"|rm\" -rf v", &["rm", "rm -rf v"]),
            (".import \"|rm -rf v\" t", &["rm -rf v", "rm -rf v t"]),
            (".i --csv |cat t", &["cat", "cat t"]),
            (".read '|rm -rf v'", &["rm -rf v"]),
            (".  shell rm -rf v", &["rm -rf v"]),
            (".sh r\\155 -rf v", &["rm -rf v"]),
            (".sh 'r\\155'", &["r\\155"]),
            (".sh \"a b\" c", &["\"a b\" c"]),
            (".system rm\n-rf v", &["rm -rf v", "rm"]),
            (".once -x |rm -rf v", &[]),
            (".backup |rm -rf v", &[]),
            (".s rm -rf v", &[]),
            (".SHELL rm", &[]),
            ("", &[]),
            (".", &[]),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(input, want)| sqlite_commands(input) != *want)
            .map(|(input, _)| (input, sqlite_commands(input)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn psql_backquotes_and_decoded_program_strings_are_commands() {
        let rows: &[(&str, &[&str])] = &[
            ("\\echo `rm -rf v`", &["rm -rf v"]),
            ("\\set x `id` `date`", &["id", "date"]),
            ("\\! echo `id`", &["echo `id`"]),
            ("copy t to program U&'rm -rf v'", &["rm -rf v"]),
            ("copy t to program U&'\\0072m'", &["rm"]),
            ("copy t to program U&'\\+000072m'", &["rm"]),
            ("copy t to program U&'!0072m !! x' UESCAPE '!'", &["rm ! x"]),
            ("copy t to program E'\\x72m\\t\\162'", &["rm\tr"]),
            (
                "DO $$BEGIN EXECUTE 'COPY t TO PROGRAM ''rm -rf v'''; END$$",
                &["rm -rf v"],
            ),
            ("SELECT 'COPY t TO PROGRAM ''rm -rf v'''", &[]),
            ("SELECT '`id`'", &[]),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(input, want)| shell_commands(Client::Psql, input) != *want)
            .map(|(input, _)| (input, shell_commands(Client::Psql, input)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn only_a_proven_restriction_keeps_a_delete_from_deleting_every_row() {
        let rows: &[(&str, bool)] = &[
            // Not proven: deletes every row.
            ("DELETE FROM t WHERE NOT false", true),
            ("DELETE FROM t WHERE NOT NOT true", true),
            ("DELETE FROM t WHERE 1<>0", true),
            ("DELETE FROM t WHERE 2>1", true),
            ("DELETE FROM t WHERE 2 >= 2", true),
            ("DELETE FROM t WHERE 'a' != 'b'", true),
            ("DELETE FROM t WHERE id IS NOT NULL OR true", true),
            ("DELETE FROM t WHERE id = 1 OR 1", true),
            ("DELETE FROM t WHERE id = 1 || 1", true),
            ("DELETE FROM t WHERE (1 = 1)", true),
            ("DELETE FROM t WHERE 1 == 1", true),
            ("DELETE FROM t WHERE now() > 0", true),
            ("DELETE FROM t WHERE (SELECT count(*) FROM u) > 0", true),
            ("DELETE FROM t WHERE", true),
            ("DELETE FROM t WHERE NULL IS NULL", true),
            // Proven: a column compared, a false constant.
            ("DELETE FROM t WHERE id = 1", false),
            ("DELETE FROM t WHERE t.id <> 3", false),
            ("DELETE FROM t WHERE \"Id\" = 3", false),
            ("DELETE FROM t WHERE id = 1 AND true", false),
            ("DELETE FROM t WHERE (id = 1 OR id = 2)", false),
            ("DELETE FROM t WHERE id = 1 OR name LIKE 'a%'", false),
            ("DELETE FROM t WHERE x BETWEEN 1 AND 2", false),
            ("DELETE FROM t WHERE x IS NULL", false),
            ("DELETE FROM t WHERE NOT (id = 1)", false),
            ("DELETE FROM t WHERE active", false),
            ("DELETE FROM t WHERE 1 > 1", false),
            ("DELETE FROM t WHERE false OR id = 2", false),
            ("DELETE FROM t WHERE CURRENT OF c", false),
            (
                "DELETE FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.u)",
                false,
            ),
            ("DELETE FROM t WHERE x = E'a'", false),
        ];
        let wrong: Vec<_> = rows
            .iter()
            .filter(|(sql, want)| destroys(sql) != *want)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn mongosh_spellings_of_a_drop_are_found() {
        let rows: &[(&str, bool)] = &[
            ("db.runCommand({\"dropDatabase\": 1})", true),
            ("db.adminCommand({ 'drop' : 'users' })", true),
            ("db['drop'+'Database']()", true),
            ("db[\"drop\" + \"Data\" + \"base\"]()", true),
            ("with(db){dropDatabase()}", true),
            ("with (db.users) { drop() }", true),
            ("const m = 'dropDatabase'; db[m]()", true),
            ("db.users.find({\"drop\": 1})", false),
            ("db.runCommand({\"ping\": 1})", false),
            ("db['get'+'Name']()", false),
            ("let x = a ? 'drop' : 'b'", false),
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
            for client in [Client::Psql, Client::Mysql, Client::Sqlite, Client::Other] {
                proptest::prop_assert!(shell_commands(client, &s).len() <= MAX_COMMANDS);
            }
            let quoted = format!("SELECT '{}'", s.replace(['\'', '\\'], ""));
            proptest::prop_assert!(!destroys(&quoted));
        }
    }
}

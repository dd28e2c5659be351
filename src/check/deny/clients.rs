//! check/deny/clients: more of what a database client is given to run, for the `databases`
//! pack: scripts the line wrote and the client reads by name (`mongosh x.js`, sqlite3's `.read
//! x.sql`), SQL that another client's query generates and pipes in (`psql -Atc "SELECT 'DROP
//! TABLE ' || …" | psql`), text that reaches the client's input through a substitution
//! (`mysql <<< "$(cat <<'EOF' …)"`, a heredoc line `$(echo …)`), and the help forms that run
//! nothing. It reads text for the SQL reader; it never decides a verdict itself.

use super::{feed, sql};
use crate::check::Ctx;
use crate::segment::{Nest, RedirectOp, Word};

/// Whether the client's arguments ask only for its help or version, which it prints before
/// it connects (psql, mysql and mongosh read every option first; `--` ends them).
pub(super) fn prints_help(client: &str, args: &[Word]) -> bool {
    let help: &[&str] = match client {
        "psql" => &["--help", "-?", "--version", "-V"],
        "mysql" | "mariadb" => &["--help", "-?", "--version", "-V"],
        "mongosh" | "mongo" => &["--help", "-h", "--version"],
        _ => return false,
    };
    args.iter()
        .map_while(|w| w.static_text().filter(|t| *t != "--"))
        .any(|t| help.contains(&t) || (t.starts_with("--help=") && client == "psql"))
}

/// The scripts the line wrote (see [`feed::written_text`]) that the client runs by name:
/// mongosh's file operands (`mongosh x.js`, `mongosh db x.js`) and `--file`/`-f`, and
/// sqlite3's `.read FILE` in the texts it is given.
pub(super) fn script_texts(
    cx: &Ctx<'_>,
    i: usize,
    client: &str,
    args: &[Word],
    texts: &[String],
) -> Vec<String> {
    let mut out = Vec::new();
    match client {
        "mongosh" | "mongo" => {
            let mut k = 0;
            while k < args.len() {
                let Some(t) = args[k].static_text() else {
                    k += 1;
                    continue;
                };
                let file = match t {
                    "-f" | "--file" => {
                        k += 1;
                        args.get(k).and_then(|w| w.static_text())
                    }
                    _ if t.starts_with("--file=") => t.strip_prefix("--file="),
                    _ if !t.starts_with('-') && t.ends_with(".js") => Some(t),
                    _ => None,
                };
                out.extend(file.and_then(|f| feed::written_text(cx, i, f)));
                k += 1;
            }
        }
        "sqlite3" | "sqlite" | "duckdb" => {
            for line in texts.iter().flat_map(|t| t.lines()) {
                let mut words = line.split_whitespace();
                if words.next() == Some(".read")
                    && let Some(path) = words.next()
                {
                    let path = path.trim_matches(|c| c == '\'' || c == '"');
                    out.extend(feed::written_text(cx, i, path));
                }
            }
        }
        _ => {}
    }
    out
}

/// The text that reaches segment `i`'s input through a substitution the line shows: a
/// here-string holding one (`<<< "$(cat <<'EOF' … EOF)"`, see [`super::word_text`]), and an
/// unquoted heredoc whose lines are substitutions of commands whose output is known
/// (`$(echo drop table t)`), filled in.
pub(super) fn substituted_input(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let Some(seg) = cx.script.segments.get(i) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in seg
        .redirects
        .iter()
        .filter(|r| matches!(r.fd, None | Some(0)))
    {
        match r.op {
            RedirectOp::Herestring => {
                if let Some(w) = r.target.as_ref().filter(|w| w.static_text().is_none()) {
                    out.extend(super::word_text(cx, i, w));
                }
            }
            RedirectOp::Heredoc if !r.quoted_heredoc => {
                out.extend(heredoc_filled(cx, i, r.span));
            }
            _ => {}
        }
    }
    out
}

/// Most command substitutions of one heredoc body filled in.
const MAX_FILLED: usize = 8;

/// The body of the unquoted heredoc at `span` with each `$(…)` whose one command's output the
/// line shows replaced by that output; `None` when it holds none or one cannot be read.
fn heredoc_filled(cx: &Ctx<'_>, i: usize, span: crate::finding::Span) -> Option<String> {
    let body = crate::check::wrap::heredoc_body(cx.src, span)?;
    let base = (body.as_ptr() as usize).checked_sub(cx.src.as_ptr() as usize)?;
    let outer = cx.script.segments.get(i)?;
    let mut out = String::new();
    let mut rest = body;
    let mut filled = 0;
    while let Some(open) = rest.find("$(") {
        filled += 1;
        if filled > MAX_FILLED {
            return None;
        }
        let close = open + 2 + closing(&rest[open + 2..])?;
        let from = base + (body.len() - rest.len()) + open;
        let to = from + (close - open) + 1;
        let mut inner = cx.script.segments.iter().enumerate().filter(|(_, s)| {
            s.span.start >= from
                && s.span.end <= to
                && s.nesting.len() > outer.nesting.len()
                && s.nesting.last() == Some(&Nest::CommandSubstitution)
        });
        let (j, _) = inner.next()?;
        if inner.next().is_some() {
            return None;
        }
        let printed = feed::printed(cx, j)?;
        out.push_str(&rest[..open]);
        out.push_str(printed.trim_end_matches('\n'));
        rest = &rest[close + 1..];
    }
    (filled > 0).then(|| out + rest)
}

/// The offset in `text` (what follows a `$(`) of the `)` that closes it, counting nested
/// parentheses; quotes are not read (a substitution with a quoted `)` is not filled in).
fn closing(text: &str) -> Option<usize> {
    let mut level = 0usize;
    for (k, c) in text.char_indices() {
        match c {
            '(' => level += 1,
            ')' if level == 0 => return Some(k),
            ')' => level -= 1,
            '\'' | '"' | '`' | '\\' => return None,
            _ => {}
        }
    }
    None
}

/// `psql -Atc "SELECT 'DROP TABLE ' || tablename …" | psql`: segment `i` is a client that
/// runs what it reads (it is given no SQL of its own), fed by a client whose query selects
/// string literals that, put together in order with a name between each, destroy — the
/// statements the second client runs.
pub(super) fn generated_sql(cx: &Ctx<'_>, i: usize, client: &str, own: &[String]) -> bool {
    if !own.is_empty() || matches!(client, "mongosh" | "mongo") {
        return false;
    }
    let Some(feeder) = i
        .checked_sub(1)
        .and_then(|p| cx.script.segments.get(p))
        .filter(|p| p.joiner == Some(crate::segment::Joiner::Pipe))
        .filter(|p| {
            cx.script
                .segments
                .get(i)
                .is_some_and(|s| s.nesting == p.nesting)
        })
    else {
        return false;
    };
    let Some((from, texts)) = super::client_input(cx, i - 1, &feeder.words) else {
        return false;
    };
    if matches!(from, "mongosh" | "mongo") {
        return false;
    }
    texts
        .iter()
        .filter_map(|t| sql::selected_strings(t))
        .any(|generated| sql::client_destroys(client, &generated))
}

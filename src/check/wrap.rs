//! check/wrap: sees through programs that run other commands — wrappers (`env`, `sudo`,
//! `timeout`, `xargs`, …), nested shells (`bash -c SCRIPT`), `eval` — and asks for the builtins
//! that load or run code cmdguard cannot see (`source`, `trap`, `alias`, …).
//!
//! An option it does not know stops the unwrapping with a finding: it never guesses where the
//! inner command starts.

use std::borrow::Cow;

use super::{Ctx, Origin};
use crate::allowlist::Wrapper;
use crate::finding::{Code, Finding, Match, Rule, Span, Verdict};
use crate::segment::{Expansions, RedirectOp, Word};

/// Characters that make an `env -S` string more than whitespace-separated words.
const SPLIT_SPECIAL: &[char] = &[
    ';', '|', '&', '<', '>', '(', ')', '$', '`', '\'', '"', '\\', '{', '}', '#', '\n',
];

/// If `name` is a wrapper, checks it and the command it runs. Returns the matched description.
pub(super) fn wrapper(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    name: &str,
    words: &[Word],
) -> Option<Match> {
    let list = cx.list;
    let w = list.wrappers.get(name)?;
    if name == "flock" {
        flock_command(cx, i, words);
    }
    match unwrap(w, words) {
        Err(why) => {
            cx.push_rule(Code::Wrapper, words[0].span, Some(i), why, &w.name);
            // The wrapper asks, but a denied command among its arguments still denies
            // (`env --ignore-signal rm -rf x`).
            super::deny::past_unknown_option(cx, i, span, words);
            Some(Match::WrapperOnly(w.rule()))
        }
        Ok(u) => {
            // `flock FILE CMD` creates FILE when it is missing; on a lock file that exists (a
            // regular file or directory in every directory the command may run in) it only
            // opens and locks it. Between this check and the run the file may go away, and
            // flock then creates an empty one: the README's threat model lists that.
            let lock_exists = name == "flock"
                && u.operands.len() == 1
                && super::git::exists_everywhere(cx, &u.operands[0]);
            if w.severity > Verdict::Allow && !lock_exists {
                let f = Finding::new(
                    Code::Wrapper,
                    words[0].span,
                    format!("`{name}` needs confirmation by itself"),
                );
                cx.report_at_least(f.in_segment(i).by_rule(&w.name), w.severity);
            }
            // `env -i`, `env -u PATH`, `exec -c`: the command starts without PATH, and bash
            // started that way searches a default PATH that ends in `.` (see `[[wrapper]] env`).
            let clears = |t: &str| match name {
                "env" => {
                    matches!(
                        t,
                        "-i" | "--ignore-environment" | "-" | "-uPATH" | "--unset=PATH"
                    ) || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains('i'))
                }
                "exec" => t.starts_with('-') && !t.starts_with("--") && t[1..].contains('c'),
                _ => false,
            };
            let unsets_path = words.windows(2).any(|p| {
                matches!(p[0].static_text(), Some("-u" | "--unset"))
                    && p[1].static_text() == Some("PATH")
            }) || words[1..words.len().saturating_sub(u.inner.len()).max(1)]
                .iter()
                .any(|w| w.static_text().is_some_and(clears));
            if unsets_path {
                cx.push_rule(
                    Code::Assignment,
                    words[0].span,
                    Some(i),
                    format!("`{name}` starts its command without PATH: a shell started that way searches the current directory"),
                    &w.name,
                );
            }
            for (n, value) in &u.assignments {
                let construct = format!("`{name}`");
                let given = value
                    .static_text()
                    .map_or(super::vars::Given::Unknown, super::vars::Given::Text);
                super::vars::assign(
                    cx,
                    Some(i),
                    n,
                    given,
                    value.span,
                    super::vars::Scope::Exported,
                    &construct,
                );
            }
            for dir in &u.chdir {
                super::git::chdir(cx, dir);
            }
            let mut inner = u.inner;
            if inner.is_empty() {
                if w.appends_dynamic {
                    // `xargs` alone runs `echo`.
                    inner.to_mut().push(synthetic("echo", words[0].span));
                } else {
                    cx.push_rule(
                        Code::NotAllowlisted,
                        words[0].span,
                        Some(i),
                        format!("`{name}` without a command to run"),
                        &w.name,
                    );
                    return Some(Match::WrapperOnly(w.rule()));
                }
            }
            if w.appends_dynamic {
                let mut extra = synthetic("{input}", words[0].span);
                extra.expansions.parameter = true;
                inner.to_mut().push(extra);
            }
            let origin = match &inner {
                Cow::Borrowed(_) => Origin::Tail,
                Cow::Owned(_) => Origin::Wrapped,
            };
            let m = cx.command(i, span, &inner, origin);
            Some(Match::Wrapper {
                wrapper: w.rule(),
                inner: m.map(Box::new),
            })
        }
    }
}

struct Unwrapped<'w> {
    /// The command the wrapper runs: borrowed from the line unless unwrapping changed it, so
    /// a chain of wrappers does not copy the rest of the line at each level.
    inner: Cow<'w, [Word]>,
    assignments: Vec<(String, Word)>,
    /// Directories the inner command runs in (`env -C DIR`).
    chdir: Vec<Word>,
    /// The wrapper's own leading operands (`timeout`'s duration, `flock`'s lock file).
    operands: Vec<Word>,
}

fn synthetic(text: &str, span: Span) -> Word {
    Word {
        text: text.to_string(),
        span,
        expansions: Expansions::default(),
        quoted: false,
    }
}

fn flag_known(w: &Wrapper, t: &str) -> bool {
    w.flags
        .iter()
        .any(|f| f == t || (f == "-NUM" && is_num_flag(t)))
}

/// `-5`, and GNU nice's `--5` and `-+5` (an adjustment of -5 and +5).
fn is_num_flag(t: &str) -> bool {
    let digits = t
        .strip_prefix("--")
        .or_else(|| t.strip_prefix("-+"))
        .or_else(|| t.strip_prefix('-'))
        .unwrap_or("");
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A bundle of short options (`-iu`, `-Ek`): `Some(None)` when all are flags, `Some(Some((opt,
/// at)))` when flags end in a value option whose value starts at byte `at`, `None` when a letter
/// is unknown.
fn short_cluster(w: &Wrapper, t: &str) -> Option<Option<(String, usize)>> {
    let body = t
        .strip_prefix('-')
        .filter(|b| !b.starts_with('-') && b.len() > 1)?;
    for (k, c) in body.char_indices() {
        let opt = format!("-{c}");
        if flag_known(w, &opt) {
            continue;
        }
        if w.spec.value_options.contains(&opt) {
            return Some(Some((opt, 1 + k + c.len_utf8())));
        }
        return None;
    }
    Some(None)
}

/// Long spellings of a wrapper's split option.
const LONG_SPLIT: &[(&str, &str)] = &[("env", "--split-string")];

/// The long option an abbreviation (`--sig`, `--adj`) stands for, as GNU getopt reads it: the
/// only long option of the wrapper that starts with it. An exact name is itself.
fn long_option(w: &Wrapper, opt: &str) -> Option<String> {
    if !opt.starts_with("--") || opt.len() < 3 || is_num_flag(opt) {
        return None;
    }
    let split = LONG_SPLIT
        .iter()
        .filter(|(n, _)| *n == w.name)
        .map(|(_, l)| *l);
    let all: Vec<&str> = w
        .flags
        .iter()
        .chain(&w.spec.value_options)
        .map(String::as_str)
        .chain(split)
        .filter(|o| o.starts_with("--"))
        .collect();
    if let Some(exact) = all.iter().find(|o| **o == opt) {
        return Some(exact.to_string());
    }
    let mut hits = all.iter().filter(|o| o.starts_with(opt));
    match (hits.next(), hits.next()) {
        (Some(one), None) => Some(one.to_string()),
        _ => None,
    }
}

/// `flock FILE -c CMD`, `flock -c CMD FILE`: flock runs CMD with `sh -c`. The script is
/// analysed so that a denied command in it denies (the wrapper asks either way).
fn flock_command(cx: &mut Ctx<'_>, i: usize, words: &[Word]) {
    let mut k = 1;
    while k < words.len() {
        let Some(t) = words[k].static_text() else {
            return;
        };
        if t == "--" {
            return;
        }
        let (opt, attached) = match t.split_once('=') {
            Some((o, v)) if t.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        let is_c = opt == "-c" || (opt.len() > 3 && "--command".starts_with(opt));
        if is_c {
            let script = match attached {
                Some(v) => Some((v.to_string(), words[k].span)),
                None => words
                    .get(k + 1)
                    .filter(|w| w.is_static())
                    .map(|w| (w.text.clone(), w.span)),
            };
            if let Some((script, at)) = script {
                cx.nested(i, at, "the command `flock -c` runs", &script);
            }
            return;
        }
        k += 1;
    }
}

fn unwrap<'w>(w: &Wrapper, words: &'w [Word]) -> Result<Unwrapped<'w>, String> {
    let name = &w.name;
    let mut assignments = Vec::new();
    let mut i = 1;
    let mut operands = w.operands;
    let mut split: Option<Vec<Word>> = None;
    let mut chdir = Vec::new();
    let mut replace = Vec::new();
    let mut own_operands = Vec::new();
    let mut value_of = |opt: &str, value: Option<Word>| {
        if w.chdir_options.iter().any(|c| c == opt) {
            // A missing value is the wrapper's own usage error; nothing runs.
            chdir.extend(value);
        } else if w.replace_options.iter().any(|c| c == opt) {
            replace.extend(value);
        }
    };
    while i < words.len() {
        let word = &words[i];
        let Some(t) = word.static_text() else {
            return Err(format!(
                "`{name}` has an argument known only at run time (`{}`)",
                word.text
            ));
        };
        if t == "--" {
            // Operands still due (`timeout -- 5 ls`'s duration) come after the `--`.
            i += 1 + operands;
            break;
        }
        if t == "-" && flag_known(w, t) {
            // `env -` is `env -i`.
            i += 1;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let (opt, attached) = match t.split_once('=') {
                Some((o, v)) if t.starts_with("--") => (o, Some(v)),
                _ => (t, None),
            };
            let long = long_option(w, opt);
            let opt = long.as_deref().unwrap_or(opt);
            let split_long = LONG_SPLIT.iter().any(|(n, l)| *n == w.name && *l == opt);
            // `-iS 'CMD'`, `-vS'CMD'`: known flags, then the split option, in one word.
            let bundled_split = w.split_option.as_deref().and_then(|so| {
                let letter = so.strip_prefix('-').filter(|l| l.len() == 1)?;
                if t.starts_with("--") {
                    return None;
                }
                let at = t.find(letter)?;
                (at > 1 && t[1..at].chars().all(|c| flag_known(w, &format!("-{c}")))).then_some(at)
            });
            // The flags before the split option do nothing to the command: read as `-S…`.
            let bundled = bundled_split.map(|at| format!("-{}", &t[at..]));
            let st = bundled.as_deref().unwrap_or(t);
            if let Some(so) = &w.split_option
                && (bundled.is_some()
                    || opt == so
                    || split_long
                    || (!so.starts_with("--") && t.starts_with(so.as_str())))
            {
                let so = if split_long { opt } else { so.as_str() };
                let value = if let Some(v) = attached.filter(|_| bundled.is_none()) {
                    v.to_string()
                } else if st.len() > so.len() && !so.starts_with("--") {
                    st[so.len()..].to_string()
                } else {
                    i += 1;
                    match words.get(i).and_then(|w| w.static_text()) {
                        Some(v) => v.to_string(),
                        None => {
                            return Err(format!(
                                "`{name} {so}` has a string known only at run time"
                            ));
                        }
                    }
                };
                if value.contains(SPLIT_SPECIAL) {
                    return Err(format!(
                        "`{name} {so}` string `{value}` uses quoting or expansions cmdguard does not split"
                    ));
                }
                let mut ws: Vec<Word> = value
                    .split_whitespace()
                    .map(|p| synthetic(p, word.span))
                    .collect();
                ws.extend(words[i + 1..].iter().cloned());
                split = Some(ws);
                i = words.len();
                break;
            }
            // `--default-signal=INT`: a GNU flag with an optional attached value.
            if flag_known(w, t) || (opt.starts_with("--") && flag_known(w, opt)) {
                i += 1;
                continue;
            }
            if w.spec.value_options.iter().any(|v| v == opt) {
                match attached {
                    Some(v) => value_of(opt, Some(with_text(word, v))),
                    None => value_of(opt, words.get(i + 1).cloned()),
                }
                i += if attached.is_some() { 1 } else { 2 };
                continue;
            }
            // `-n10`, `-sKILL`: a short value option with its value attached.
            if !t.starts_with("--")
                && let Some(v) = w
                    .spec
                    .value_options
                    .iter()
                    .find(|v| v.len() == 2 && t.starts_with(v.as_str()))
            {
                value_of(v, Some(with_text(word, &t[2..])));
                i += 1;
                continue;
            }
            // `-iu root`, `-Ek`: known flags bundled, the last letter possibly a value option
            // (its value attached or the next word).
            if let Some(step) = short_cluster(w, t) {
                if let Some((opt, at)) = step {
                    match &t[at..] {
                        "" => value_of(&opt, words.get(i + 1).cloned()),
                        v => value_of(&opt, Some(with_text(word, v))),
                    }
                    i += if t.len() == at { 2 } else { 1 };
                } else {
                    i += 1;
                }
                continue;
            }
            return Err(format!(
                "`{name}` option `{t}` is not one cmdguard knows how to see through"
            ));
        }
        if w.assignments
            && let Some((n, _)) = t.split_once('=')
            && is_name(n)
        {
            let mut v = word.clone();
            v.text = t[n.len() + 1..].to_string();
            assignments.push((n.to_string(), v));
            i += 1;
            continue;
        }
        if operands > 0 {
            operands -= 1;
            own_operands.push(word.clone());
            i += 1;
            if operands == 0 && words.get(i).and_then(Word::static_text) == Some("--") {
                // `timeout 5 -- ls`: timeout and taskset stop at their operand and run `--`
                // itself; other wrappers skip it.
                return Err(format!(
                    "`{name}` has `--` after its operands, which some programs run as the command"
                ));
            }
            continue;
        }
        break;
    }
    let mut inner: Cow<'w, [Word]> = match split {
        Some(ws) => Cow::Owned(ws),
        None => Cow::Borrowed(words.get(i..).unwrap_or(&[])),
    };
    // `xargs -I R cmd … R …`: each input line is pasted wherever R stands, inside words too
    // (`sh -c 'ls R'` becomes a script with the input in it), so those words are run-time.
    for r in replace
        .iter()
        .filter_map(Word::static_text)
        .filter(|r| !r.is_empty())
    {
        for word in inner.to_mut() {
            if word.text.contains(r) {
                word.expansions.parameter = true;
            }
        }
    }
    Ok(Unwrapped {
        inner,
        assignments,
        chdir,
        operands: own_operands,
    })
}

/// `word` with its text replaced by a static part of it (an option's attached value).
fn with_text(word: &Word, text: &str) -> Word {
    let mut w = word.clone();
    w.text = text.to_string();
    // Part of a word: bash expands no `~` at its start.
    w.quoted = true;
    w
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `bash -c SCRIPT`, `sh -lc SCRIPT`, `bash <<EOF`: the script is analysed recursively when
/// it is static.
pub(super) fn shell(
    cx: &mut Ctx<'_>,
    i: usize,
    _span: Span,
    name: &str,
    words: &[Word],
    origin: Origin<'_>,
) -> Option<Match> {
    let list = cx.list;
    let sh = list.shells.get(name)?;
    // `bash -n`: the shell reads its script for syntax errors and runs none of it (bash,
    // dash, zsh and ksh alike; tested with bash 5.2 and dash 0.5, `BASH_ENV` not read either),
    // so nothing the script says is read as a command.
    let syntax_only = super::deny::reads_without_running(words);
    let mut k = 1;
    let mut has_c = false;
    // `-s`: the script comes from the input, and the operands are its positional parameters.
    let mut has_s = false;
    while let Some(t) = words.get(k).and_then(|w| w.static_text()) {
        if t == "--" || !t.starts_with('-') && !t.starts_with('+') {
            break;
        }
        if t == "-c" {
            has_c = true;
        } else if sh.flags.iter().any(|f| f == t) {
            has_s |= t == "-s";
        } else if t.starts_with('-')
            && !t.starts_with("--")
            && t[1..]
                .chars()
                .all(|c| sh.flags.iter().any(|f| f.len() == 2 && f.ends_with(c)) || c == 'c')
        {
            has_c |= t.contains('c');
            has_s |= t.contains('s');
        } else {
            cx.push_rule(
                Code::Exec,
                words[k].span,
                Some(i),
                format!("`{name}` option `{t}` is not one cmdguard knows"),
                &sh.name,
            );
            super::deny::shell_script_past_options(cx, i, words);
            return Some(Match::Shell {
                shell: sh.rule(),
                dash_c: false,
            });
        }
        k += 1;
    }
    if words.get(k).is_some_and(|w| w.static_text() == Some("--")) {
        k += 1;
    }
    if has_c {
        match words.get(k) {
            Some(script) if script.is_static() && syntax_only => {}
            Some(script) if script.is_static() => {
                let what = format!("the script of `{name} -c`");
                if !matches!(name, "bash" | "rbash") {
                    // The script is read as bash; `sh` (dash) splits and expands words its own
                    // way (no `{a..b}`, no `$'…'`), so where its `cd` leads is not known.
                    super::git::script_may_cd(cx, &script.text, &format!("`{name} -c`"));
                }
                nested_script(cx, i, script.span, &what, &script.text, name, sh.dialect);
                let own = origin
                    .segment()
                    .map_or(&[][..], |s| s.assignments.as_slice());
                let args = words.get(k + 2..).unwrap_or(&[]);
                super::deny::shell_arguments(
                    cx,
                    i,
                    script.span,
                    &script.text,
                    words.get(k + 1),
                    args,
                    own,
                );
            }
            Some(script) => cx.push_rule(
                Code::Exec,
                script.span,
                Some(i),
                format!(
                    "`{name} -c` runs `{}`, a script known only at run time",
                    script.text
                ),
                &sh.name,
            ),
            None => cx.push_rule(
                Code::Exec,
                words[0].span,
                Some(i),
                format!("`{name} -c` without a script"),
                &sh.name,
            ),
        }
        return Some(Match::Shell {
            shell: sh.rule(),
            dash_c: true,
        });
    }
    let stdin_args = match has_s {
        true => words.get(k..).unwrap_or(&[]),
        false => &[],
    };
    if let Some(op) = words.get(k).filter(|_| !has_s) {
        cx.push_rule(
            Code::Exec,
            op.span,
            Some(i),
            format!(
                "`{name}` runs the script `{}`, which cmdguard cannot see",
                op.text
            ),
            &sh.name,
        );
        // `bash <(echo 'rm -rf x')`, `echo … | bash /dev/stdin`: a script the line shows is
        // read, so a denied command in it denies.
        if !syntax_only && let Some(script) = super::deny::operand_text(cx, i, op) {
            let what = format!("the script `{name}` reads from `{}`", op.text);
            nested_script(cx, i, op.span, &what, &script, name, sh.dialect);
        }
        return Some(Match::Shell {
            shell: sh.rule(),
            dash_c: false,
        });
    }
    // No script operand: the shell reads its script from stdin, a heredoc here.
    let heredoc = origin.segment().and_then(|s| {
        s.redirects.iter().find(|r| {
            matches!(r.op, RedirectOp::Heredoc | RedirectOp::Herestring)
                && matches!(r.fd, None | Some(0))
        })
    });
    match heredoc {
        // `bash -n <<< TEXT`: read, not run.
        Some(_) if syntax_only => {}
        Some(r) if r.op == RedirectOp::Herestring => match r.target.as_ref() {
            Some(t) if t.is_static() => nested_script(
                cx,
                i,
                r.span,
                &format!("the here-string run by `{name}`"),
                &t.text,
                name,
                sh.dialect,
            ),
            Some(t) => {
                cx.push_rule(
                    Code::Exec,
                    r.span,
                    Some(i),
                    format!("`{name}` runs a here-string known only at run time"),
                    &sh.name,
                );
                let what =
                    format!("the here-string run by `{name}`, with the values the line gives it");
                super::deny::spelled_out_script(cx, i, r.span, &what, t);
            }
            None => cx.push_rule(
                Code::Exec,
                r.span,
                Some(i),
                format!("`{name}` runs a here-string known only at run time"),
                &sh.name,
            ),
        },
        Some(r) => {
            let body = heredoc_body(cx.src, r.span);
            match body {
                Some(b) if r.quoted_heredoc || !b.contains(['$', '`', '\\']) => nested_script(
                    cx,
                    i,
                    r.span,
                    &format!("the heredoc run by `{name}`"),
                    b,
                    name,
                    sh.dialect,
                ),
                _ => cx.push_rule(
                    Code::Exec,
                    r.span,
                    Some(i),
                    format!("`{name}` runs a heredoc whose text is only known at run time"),
                    &sh.name,
                ),
            }
        }
        None => {
            cx.push_rule(
                Code::Exec,
                words[0].span,
                Some(i),
                format!("`{name}` reads a script from its input, which cmdguard cannot see"),
                &sh.name,
            );
            // `echo 'rm -rf x' | bash`: the script an `echo` or `printf` pipes in is read as
            // one, so a denied command in it denies; the shell still asks, since what those
            // print is not worked out to the byte.
            if let Some(script) = super::deny::piped_text(cx, i).filter(|_| !syntax_only) {
                let what = format!("the script piped into `{name}`");
                nested_script(cx, i, words[0].span, &what, &script, name, sh.dialect);
                let zero = synthetic(name, words[0].span);
                super::deny::shell_arguments(
                    cx,
                    i,
                    words[0].span,
                    &script,
                    Some(&zero),
                    stdin_args,
                    &[],
                );
            }
            // `bash < <(echo 'rm -rf x')`: input redirected from a file the line shows.
            let redirected = origin.segment().and_then(|s| {
                s.redirects
                    .iter()
                    .filter(|r| r.op == RedirectOp::Read && matches!(r.fd, None | Some(0)))
                    .find_map(|r| r.target.as_ref())
            });
            if let Some(target) = redirected.filter(|_| !syntax_only)
                && let Some(script) = super::deny::operand_text(cx, i, target)
            {
                let what = format!("the script `{name}` reads from `{}`", target.text);
                nested_script(cx, i, target.span, &what, &script, name, sh.dialect);
            }
        }
    }
    Some(Match::Shell {
        shell: sh.rule(),
        dash_c: false,
    })
}

/// Analyses a static script a shell runs; a shell that is not bash must also keep the script
/// inside the syntax it shares with bash, since the analysis reads it as bash.
fn nested_script(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    what: &str,
    script: &str,
    name: &str,
    dialect: super::Dialect,
) {
    let budget = std::time::Duration::from_millis(cx.list.limits.max_parse_ms);
    if let Some(why) = super::dialect::foreign_syntax(script, name, dialect, budget) {
        cx.push_rule(Code::UnsupportedSyntax, span, Some(i), why, name);
    }
    cx.nested(i, span, what, script);
}

/// The body of a heredoc redirect: from the line after `<<DELIM` to before the terminator line.
pub(super) fn heredoc_body(src: &str, span: Span) -> Option<&str> {
    let text = src.get(span.start..span.end)?;
    let nl = text.find('\n')?;
    let body = &text[nl + 1..];
    let end = body.rfind('\n').map(|e| e + 1).unwrap_or(0);
    Some(&body[..end])
}

/// Shell builtins that run or load code: `eval` is analysed when static, the rest ask.
pub(super) fn builtin(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    name: &str,
    words: &[Word],
) -> Option<Match> {
    match name {
        "eval" => {
            let args = &words[1..];
            if args.iter().all(Word::is_static) {
                let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                let span = args
                    .first()
                    .map(|f| f.span.cover(args[args.len() - 1].span))
                    .unwrap_or(words[0].span);
                cx.nested(i, span, "the text run by `eval`", &text.join(" "));
            } else {
                cx.push_rule(
                    Code::Exec,
                    words[0].span,
                    Some(i),
                    "`eval` runs text known only at run time".into(),
                    name,
                );
            }
            Some(Match::Builtin(Rule::built_in("eval")))
        }
        "source" | "." => {
            cx.push_rule(
                Code::Exec,
                words[0].span,
                Some(i),
                format!("`{name}` runs a file's commands, which cmdguard cannot see"),
                name,
            );
            // `source <(echo 'rm -rf x')`: commands the line shows are read.
            if let Some(op) = words.get(1)
                && let Some(script) = super::deny::operand_text(cx, i, op)
            {
                let what = format!("the commands `{name}` reads from `{}`", op.text);
                cx.nested(i, op.span, &what, &script);
            }
            Some(Match::Builtin(Rule::built_in(name)))
        }
        "trap" | "alias" | "enable" | "coproc" | "bind" | "complete" | "exec" => {
            let code = if name == "coproc" {
                Code::Operator
            } else {
                Code::Exec
            };
            cx.push_rule(
                code,
                words[0].span,
                Some(i),
                format!("`{name}` changes how later commands run"),
                name,
            );
            // It asks, but a denied command it runs still denies: `trap 'CMD' EXIT` runs its
            // static action later, `coproc CMD …` runs CMD.
            match name {
                "trap" => {
                    let k = 1 + usize::from(words.get(1).and_then(Word::static_text) == Some("--"));
                    // `trap "rm -rf $HOME" EXIT`: a double-quoted action is expanded when the
                    // trap is set; its variables are read as the line gives them (one it never
                    // assigns stays `$NAME`, which expands the same at exit).
                    let action = words.get(k).filter(|w| !w.text.starts_with('-'));
                    if let Some((action, text)) =
                        action.and_then(|w| super::deny::word_text(cx, i, w).map(|t| (w, t)))
                    {
                        // `tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT`: the action is read
                        // knowing the temp dirs the line proved it made.
                        let prelude = super::deny::temp_dir_prelude(cx, i, &text);
                        let text = format!("{prelude}{text}");
                        cx.nested(i, action.span, "the command `trap` runs", &text);
                    }
                }
                "coproc" => super::deny::past_unknown_option(cx, i, span, words),
                _ => {}
            }
            Some(Match::Builtin(Rule::built_in(name)))
        }
        _ => None,
    }
}

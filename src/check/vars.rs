//! check/vars: one check for every construct that assigns a variable — plain and prefix
//! assignments, `${NAME:=…}`, `for NAME in`, named descriptors `{NAME}>file`, and the builtins
//! that assign (`read`, `mapfile`, `printf -v`, `getopts`, `declare` and its kin, `unset`,
//! `set`).
//!
//! It is an allowlist: a name passes only when `[env] inert` lists it or, for a variable that
//! stays in the shell, when it is a lowercase name (bash's own special variables — `PATH`,
//! `IFS`, `RANDOM`, `BASH_ENV`… — are all uppercase). A subscript other than a literal number
//! is arithmetic, which can run commands. Options a builtin has that this module does not list
//! ask. It never decides whether a program may run; `check` does that.

use super::Ctx;
use crate::finding::{Code, Span};
use crate::segment::{Assignment, Redirect, Word};

/// Where an assigned value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// A shell variable: it reaches a child process only if the user's environment already
    /// exports the name.
    Shell,
    /// Exported to a program's environment (a prefix assignment, `export`, `env NAME=…`).
    Exported,
}

/// A name a shell variable may take without changing what runs: lowercase letters, digits and
/// `_`, starting with a letter or `_`.
fn is_local_name(name: &str) -> bool {
    let mut b = name.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == b'_')
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// A subscript bash evaluates as arithmetic unless it is a literal number.
fn plain_subscript(sub: &str) -> bool {
    !sub.is_empty() && sub.bytes().all(|b| b.is_ascii_digit())
}

/// What an assignment stores in its variable, as far as the analyser sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Given<'a> {
    /// No value: the name is declared, exported or unset as it is.
    Nothing,
    /// This text, known before the command runs.
    Text(&'a str),
    /// A value known only at run time (`read`, `for`, `+=`, an expansion).
    Unknown,
}

/// The variables that choose the locale bash reads its own script in (the `LC_CTYPE`
/// category: which bytes form one character). bash sets its locale again whenever one is
/// assigned (`sv_locale` in bash's `variables.c`, `set_locale_var` in `locale.c`), exported
/// or not, and reads the rest of the script in it. The other `LC_*` categories and
/// `LANGUAGE` (only gettext reads it) do not change what a byte means.
pub(crate) const CTYPE_VARIABLES: &[&str] = &["LC_ALL", "LC_CTYPE", "LANG"];

/// True when `value`, given to one of [`CTYPE_VARIABLES`], is a locale in which bash reads
/// text as the analyser does (ASCII bytes are ASCII characters): `C`, `POSIX`, empty (the
/// next variable decides), or a name whose codeset is UTF-8 (`en_US.UTF-8`, `C.utf8`,
/// optionally with an `@modifier`). Anything else (`zh_TW.BIG5`, `ja_JP.SJIS`, a bare
/// `zh_TW`, whose default codeset is BIG5, or a path to a compiled locale) is not proven:
/// in BIG5, GBK, GB18030 or Shift JIS a byte `\`, `|` or `` ` `` can be the second half of a
/// character, so bash would read commands the analysis never saw.
pub(crate) fn locale_reads_as_utf8(value: &str) -> bool {
    if matches!(value, "" | "C" | "POSIX") {
        return true;
    }
    let body = value.split_once('@').map_or(value, |(body, modifier)| {
        if !modifier.is_empty() && modifier.bytes().all(|b| b.is_ascii_alphanumeric()) {
            body
        } else {
            ""
        }
    });
    let Some((language, codeset)) = body.split_once('.') else {
        return false;
    };
    !language.is_empty()
        && language
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && matches!(codeset.to_ascii_lowercase().as_str(), "utf-8" | "utf8")
}

/// `LC_ALL=…` and its kin: a value not proven by [`locale_reads_as_utf8`] asks, whatever the
/// construct and scope (bash switches its own reading for shell variables too).
fn locale(
    cx: &mut Ctx<'_>,
    i: Option<usize>,
    base: &str,
    value: Given<'_>,
    span: Span,
    construct: &str,
) {
    if !CTYPE_VARIABLES.contains(&base) {
        return;
    }
    let shown = match value {
        Given::Nothing => return,
        Given::Text(t) if locale_reads_as_utf8(t) => return,
        Given::Text(t) => format!("`{t}`"),
        Given::Unknown => "a value known only at run time".to_owned(),
    };
    cx.push(
        Code::Assignment,
        span,
        i,
        format!(
            "{construct} sets the locale `{base}` to {shown}: bash reads the rest of the script in that locale, where bytes can form characters the analysis did not see (only C, POSIX and UTF-8 locales are known to read the same)"
        ),
    );
}

/// Checks one assignment of `name` (which may carry a `[subscript]`), made by `construct`,
/// storing `value`.
pub(super) fn assign(
    cx: &mut Ctx<'_>,
    i: Option<usize>,
    name: &str,
    value: Given<'_>,
    span: Span,
    scope: Scope,
    construct: &str,
) {
    let (base, sub) = match name.split_once('[') {
        Some((b, rest)) => (b, Some(rest.strip_suffix(']').unwrap_or(rest))),
        None => (name, None),
    };
    if let Some(sub) = sub
        && !plain_subscript(sub)
    {
        cx.push(
            Code::Arithmetic,
            span,
            i,
            format!("{construct} assigns `{name}`, whose subscript bash evaluates as arithmetic"),
        );
    }
    locale(cx, i, base, value, span, construct);
    let inert = match scope {
        Scope::Exported => cx.list.is_inert_env(base),
        Scope::Shell => cx.list.is_inert_env(base) || is_local_name(base),
    };
    if !inert {
        let why = match scope {
            Scope::Exported => "programs it runs see it, and it is not in `[env] inert`",
            Scope::Shell => "it is not a lowercase shell variable nor in `[env] inert`",
        };
        cx.push(
            Code::Assignment,
            span,
            i,
            format!("{construct} assigns `{base}`: {why}"),
        );
    }
}

/// The assignments written in a segment: a prefix assignment is exported to the command, one
/// standing alone stays in the shell. A compound array value's subscripts are checked too.
pub(super) fn segment_assignment(cx: &mut Ctx<'_>, i: usize, a: &Assignment, prefix: bool) {
    let (scope, construct) = if prefix {
        (Scope::Exported, "a prefix assignment")
    } else {
        (Scope::Shell, "an assignment")
    };
    let raw = cx.src.get(a.span.start..a.span.end).unwrap_or("");
    let appends = raw
        .get(a.name.len()..)
        .is_none_or(|rest| !rest.starts_with('='));
    let value = match a.value.static_text() {
        Some(t) if !appends && !a.subscript => Given::Text(t),
        _ => Given::Unknown,
    };
    // `NAME[i]=…`: the segmenter keeps the subscript apart; its arithmetic is judged there.
    assign(cx, Some(i), &a.name, value, a.span, scope, construct);
    if let Some(pos) = raw.find("=(").or_else(|| raw.find("+=(")) {
        compound_subscripts(cx, i, &raw[pos..], a.span);
    }
}

/// `a=([k]=v …)`: in an indexed array each `k` is arithmetic (`x='a[$(id)]'; a=([x]=1)` runs
/// `id`); only literal numbers pass.
fn compound_subscripts(cx: &mut Ctx<'_>, i: usize, value: &str, span: Span) {
    let mut rest = value;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let close = after.find(']').unwrap_or(after.len());
        let sub = &after[..close];
        if !plain_subscript(sub) {
            cx.push(
                Code::Arithmetic,
                span,
                Some(i),
                format!("the array element `[{sub}]` is a subscript bash evaluates as arithmetic"),
            );
            return;
        }
        rest = &after[close.min(after.len())..];
    }
}

/// `{NAME}>file`: bash stores the descriptor it opens in `NAME`.
pub(super) fn named_descriptor(cx: &mut Ctx<'_>, i: Option<usize>, r: &Redirect) {
    let before = cx.src.get(..r.span.start).unwrap_or("");
    let Some(head) = before.strip_suffix('}') else {
        return;
    };
    let Some(open) = head.rfind('{') else {
        return;
    };
    let name = &head[open + 1..];
    let starts_word = head[..open]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || ";&|()".contains(c));
    if starts_word && !name.is_empty() {
        let span = Span::new(open, r.span.end);
        assign(
            cx,
            i,
            name,
            Given::Unknown,
            span,
            Scope::Shell,
            "a named descriptor `{NAME}>`",
        );
    }
}

/// Options of the assigning builtins: `true` when the option takes the next word as its value.
type Opts = &'static [(&'static str, bool)];

const READ_OPTS: Opts = &[
    ("-r", false),
    ("-s", false),
    ("-e", false),
    ("-a", true),
    ("-d", true),
    ("-n", true),
    ("-N", true),
    ("-p", true),
    ("-t", true),
    ("-u", true),
    ("-i", true),
];
// `-C CALLBACK` evaluates code for every line: not listed, so it asks.
const MAPFILE_OPTS: Opts = &[
    ("-t", false),
    ("-d", true),
    ("-n", true),
    ("-O", true),
    ("-s", true),
    ("-u", true),
];
// `-i`, `-n`, `-a`, `-A`, `-t`, `-p`, `-f`, `-F`, `-I` are not listed: integer and nameref
// attributes make later assignments evaluate or redirect, and the printing forms show every
// variable or function.
const DECLARE_OPTS: Opts = &[
    ("-r", false),
    ("-x", false),
    ("-g", false),
    ("-l", false),
    ("-u", false),
];
const EXPORT_OPTS: Opts = &[("-n", false)];
const UNSET_OPTS: Opts = &[("-v", false)];

/// A builtin that assigns variables: checks its options and every name it assigns. Any other
/// name is left alone.
pub(super) fn builtin(cx: &mut Ctx<'_>, i: usize, name: &str, words: &[Word]) {
    let construct = format!("`{name}`");
    match name {
        "read" => names_after_options(
            cx,
            i,
            &construct,
            words,
            READ_OPTS,
            Scope::Shell,
            Take::Read,
        ),
        "mapfile" | "readarray" => names_after_options(
            cx,
            i,
            &construct,
            words,
            MAPFILE_OPTS,
            Scope::Shell,
            Take::Read,
        ),
        "declare" | "typeset" | "local" | "readonly" => {
            let exported = words.iter().any(|w| {
                w.static_text()
                    .is_some_and(|t| t.starts_with('-') && t.contains('x'))
            });
            let scope = if exported {
                Scope::Exported
            } else {
                Scope::Shell
            };
            if words.len() == 1 && name != "local" {
                cx.push(
                    Code::Assignment,
                    words[0].span,
                    Some(i),
                    format!("`{name}` alone prints every variable, secrets included"),
                );
                return;
            }
            // `r=(x); declare r='($(cmd))'`: of an array, bash 5.2 reads a quoted value in
            // parentheses as a compound assignment and runs the expansions inside it.
            if name != "readonly" {
                for w in &words[1..] {
                    let parens = w
                        .static_text()
                        .and_then(|t| t.split_once('='))
                        .is_some_and(|(_, v)| v.starts_with('('));
                    if parens {
                        cx.push(
                            Code::Assignment,
                            w.span,
                            Some(i),
                            format!("`{name}` reads a value in parentheses (`{}`) as an array assignment when the variable is an array, and runs what is inside it", w.text),
                        );
                    }
                }
            }
            names_after_options(cx, i, &construct, words, DECLARE_OPTS, scope, Take::All)
        }
        "export" => {
            if words.len() == 1 {
                cx.push(
                    Code::Assignment,
                    words[0].span,
                    Some(i),
                    "`export` alone prints the environment, secrets included".into(),
                );
                return;
            }
            names_after_options(
                cx,
                i,
                &construct,
                words,
                EXPORT_OPTS,
                Scope::Exported,
                Take::All,
            )
        }
        "unset" => names_after_options(
            cx,
            i,
            &construct,
            words,
            UNSET_OPTS,
            Scope::Shell,
            Take::All,
        ),
        "getopts" => names_after_options(cx, i, &construct, words, &[], Scope::Shell, Take::Second),
        "printf" => {
            if let Some(k) = words.iter().position(|w| w.static_text() == Some("-v")) {
                if let Some(w) = words.get(k + 1) {
                    assign_word(cx, i, &construct, w, Scope::Shell);
                }
            } else if words
                .iter()
                .skip(1)
                .take_while(|w| w.static_text().is_none_or(|t| t.starts_with('-')))
                .any(|w| !w.is_static())
            {
                cx.push(
                    Code::DynamicArgument,
                    words[0].span,
                    Some(i),
                    "`printf` has an option known only at run time, which could be `-v`".into(),
                );
            }
        }
        "set" => {
            set_options(cx, i, words);
        }
        _ => {}
    }
}

/// Which operands of a builtin are names it assigns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    /// Every operand (`declare a=1 b`, `export a`); a bare name gets no new value.
    All,
    /// Every operand, each storing what is read at run time (`read a b c`, `mapfile a`).
    Read,
    /// The second operand (`getopts OPTSTRING NAME`).
    Second,
}

fn names_after_options(
    cx: &mut Ctx<'_>,
    i: usize,
    construct: &str,
    words: &[Word],
    opts: Opts,
    scope: Scope,
    take: Take,
) {
    let mut k = 1;
    let mut operands = 0;
    let mut options_done = false;
    while k < words.len() {
        let w = &words[k];
        k += 1;
        let Some(t) = w.static_text() else {
            cx.push(
                Code::DynamicArgument,
                w.span,
                Some(i),
                format!(
                    "{construct} has an argument known only at run time, `{}`",
                    w.text
                ),
            );
            continue;
        };
        if !options_done && t == "--" {
            options_done = true;
            continue;
        }
        if !options_done && t.len() > 1 && (t.starts_with('-') || t.starts_with('+')) {
            // A bundle: each letter must be listed; a value option takes the rest or the next word.
            let mut letters = t[1..].chars();
            while let Some(c) = letters.next() {
                let opt = format!("-{c}");
                match opts.iter().find(|(o, _)| *o == opt) {
                    Some((o, true)) => {
                        // The value is the rest of the bundle, or the next word.
                        let attached: String = letters.by_ref().collect();
                        if *o == "-a" {
                            if attached.is_empty() {
                                if let Some(v) = words.get(k) {
                                    assign_word(cx, i, construct, v, scope);
                                }
                            } else {
                                assign(
                                    cx,
                                    Some(i),
                                    &attached,
                                    Given::Unknown,
                                    w.span,
                                    scope,
                                    construct,
                                );
                            }
                        }
                        if attached.is_empty() {
                            k += 1;
                        }
                        break;
                    }
                    Some((_, false)) => {}
                    None => {
                        cx.push(
                            Code::ForbiddenArgument,
                            w.span,
                            Some(i),
                            format!(
                                "{construct} option `{opt}` is not one cmdguard knows to be safe"
                            ),
                        );
                        break;
                    }
                }
            }
            continue;
        }
        options_done = true;
        operands += 1;
        let is_name = match take {
            Take::All | Take::Read => true,
            Take::Second => operands == 2,
        };
        if is_name {
            let (name, value) = match (t.split_once("+="), t.split_once('=')) {
                (Some((n, _)), Some((m, _))) if n.len() < m.len() => (n, Given::Unknown),
                (_, Some((n, v))) => (n, Given::Text(v)),
                (Some((n, _)), None) => (n, Given::Unknown),
                (None, None) => (t, Given::Nothing),
            };
            // `read NAME`, `getopts … NAME`, `mapfile NAME` store what they read.
            let value = match (value, take) {
                (Given::Nothing, Take::Read | Take::Second) => Given::Unknown,
                (v, _) => v,
            };
            assign(cx, Some(i), name, value, w.span, scope, construct);
        }
    }
}

fn assign_word(cx: &mut Ctx<'_>, i: usize, construct: &str, w: &Word, scope: Scope) {
    match w.static_text() {
        Some(t) => assign(cx, Some(i), t, Given::Unknown, w.span, scope, construct),
        None => cx.push(
            Code::DynamicArgument,
            w.span,
            Some(i),
            format!(
                "{construct} assigns a variable named only at run time, `{}`",
                w.text
            ),
        ),
    }
}

/// `set`: the shell options that only make a script stricter or louder pass; `set` alone prints
/// every variable, `-a` exports every later assignment and `-k` makes any `NAME=value` word an
/// assignment, so those and every option not listed ask.
fn set_options(cx: &mut Ctx<'_>, i: usize, words: &[Word]) {
    const LETTERS: &str = "euxvfC";
    const LONG: &[&str] = &[
        "errexit",
        "nounset",
        "xtrace",
        "verbose",
        "pipefail",
        "noglob",
        "noclobber",
    ];
    if words.len() == 1 {
        cx.push(
            Code::Assignment,
            words[0].span,
            Some(i),
            "`set` alone prints every variable, secrets included".into(),
        );
        return;
    }
    let mut k = 1;
    while k < words.len() {
        let w = &words[k];
        k += 1;
        let Some(t) = w.static_text() else {
            cx.push(
                Code::DynamicArgument,
                w.span,
                Some(i),
                format!("`set` has an argument known only at run time, `{}`", w.text),
            );
            return;
        };
        if t == "--" || t == "-" || !(t.starts_with('-') || t.starts_with('+')) {
            return; // the rest are positional parameters: data
        }
        for c in t[1..].chars() {
            if c == 'o' {
                let long = words.get(k).and_then(|w| w.static_text());
                k += 1;
                if !long.is_some_and(|l| LONG.contains(&l)) {
                    cx.push(
                        Code::ForbiddenArgument,
                        w.span,
                        Some(i),
                        format!(
                            "`set -o {}` is not a shell option cmdguard knows to be safe",
                            long.unwrap_or("")
                        ),
                    );
                    return;
                }
            } else if !LETTERS.contains(c) {
                cx.push(
                    Code::ForbiddenArgument,
                    w.span,
                    Some(i),
                    format!("`set` option `-{c}` is not one cmdguard knows to be safe"),
                );
                return;
            }
        }
    }
}

/// Whether a word's source text is one double-quoted string, which bash never splits.
pub(super) fn fully_double_quoted(src: &str, w: &Word) -> bool {
    let raw = src.get(w.span.start..w.span.end).unwrap_or("");
    let b = raw.as_bytes();
    let unescaped_quotes = b
        .iter()
        .enumerate()
        .filter(|(k, c)| **c == b'"' && (*k == 0 || b[k - 1] != b'\\'))
        .count();
    b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"' && unescaped_quotes == 2
}

/// `test` / `[`: an operator known only at run time (`op=-v; test $op 'a[$(id)]'`, or a glob
/// such as `-?` matching a file named `-v`) can evaluate a subscript in another operand.
pub(super) fn runtime_test_operator(cx: &mut Ctx<'_>, i: usize, words: &[Word]) {
    let args: Vec<&Word> = words
        .iter()
        .skip(1)
        .filter(|w| !(w.static_text() == Some("]") && words[0].text == "["))
        .collect();
    const BINARY: &[&str] = &[
        "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
    ];
    // An unquoted expansion or glob can split into several words (`[ $(cat f) ]` with `f`
    // holding `-v a[$(cmd)]` runs `cmd`): then no position is known.
    if let Some(w) = args
        .iter()
        .find(|w| !w.is_static() && !fully_double_quoted(cx.src, w))
    {
        cx.push(
            Code::Arithmetic,
            w.span,
            Some(i),
            format!(
                "unquoted `{}` can split into several words, and `-v` with a subscript among them evaluates the subscript",
                w.text
            ),
        );
        return;
    }
    // The forms whose operator positions are all static.
    let fixed = match args.as_slice() {
        [] | [_] => true,
        [op, _] => op.is_static(),
        [_, op, _] => op.static_text().is_some_and(|o| BINARY.contains(&o)),
        _ => false,
    };
    if fixed {
        return;
    }
    let Some(dynamic) = args.iter().find(|w| !w.is_static()) else {
        return;
    };
    let risky = args
        .iter()
        .filter(|w| !std::ptr::eq(**w, *dynamic))
        .any(|w| !w.is_static() || w.text.contains('['));
    if risky {
        cx.push(
            Code::Arithmetic,
            dynamic.span,
            Some(i),
            format!(
                "`{}` is an operator known only at run time: as `-v` it would evaluate an array subscript",
                dynamic.text
            ),
        );
    }
}

/// Longest script whose counters are tracked; past it every arithmetic on a variable asks,
/// which keeps the scans below (each a pass over the text) bounded.
const MAX_COUNTER_SCRIPT: usize = 4096;

/// Counter arithmetic on the command's own variables: whether the arithmetic event at `span`
/// (a variable bash evaluates, `i`, `$i`, or a `for ((i=0;…))` initialisation) can only see an
/// integer. Bash evaluates a variable's value as an expression, and `a[$(cmd)]` in a value runs
/// `cmd`; an integer runs nothing. A name passes when
/// - it is a lowercase shell variable (bash's own specials, `RANDOM`, `SECONDS`…, are
///   uppercase);
/// - every place the script names it is arithmetic (whose assignments store integers), an
///   expansion `$i` / `${i}` that only reads it, or a plain assignment of an integer literal or
///   of one `$((…))`: anything else (`read i`, `for i in`, `i+=x`, `printf -v i`, a quoted `i`
///   an `eval` may run, even a harmless `grep -i`) asks;
/// - before it is evaluated, an assignment of that kind has run for sure: a top-level
///   `i=0` (or `for ((i=0;…))`) that only plain top-level commands joined by `;` or newlines
///   precede, so the value the command inherited is never evaluated.
pub(super) fn own_counter(cx: &mut Ctx<'_>, span: Span) -> bool {
    let src = cx.src;
    if src.len() > MAX_COUNTER_SCRIPT {
        return false;
    }
    let Some(text) = src.get(span.start..span.end) else {
        return false;
    };
    let (name, rhs) = match text.split_once('=') {
        Some((n, r)) => (n.trim(), Some(r)),
        None => {
            let bare = text
                .strip_prefix("${")
                .and_then(|t| t.strip_suffix('}'))
                .or_else(|| text.strip_prefix('$'))
                .unwrap_or(text);
            (bare, None)
        }
    };
    match rhs {
        // `i=…` inside arithmetic (a for loop's initialisation): the value is read, the name
        // is only written.
        Some(rhs) => {
            rhs.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || b" _+-*/%()<>=!&|^~?:".contains(&b)
            }) && identifiers(rhs).all(|n| {
                n.bytes().next().is_some_and(|b| b.is_ascii_digit())
                    || counter_from(cx, n).is_some_and(|from| from <= span.start)
            }) && counter_from(cx, name).is_some()
        }
        None => counter_from(cx, name).is_some_and(|from| from <= span.start),
    }
}

/// Whether `name` is one of the command's counters, and from where on it surely holds an
/// integer (`usize::MAX`: nowhere), computed once per name.
fn counter_from(cx: &mut Ctx<'_>, name: &str) -> Option<usize> {
    if let Some(known) = cx.counters.get(name) {
        return *known;
    }
    // `_` is bash's last argument of the previous command: set without being named.
    let local = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase()) && is_local_name(name);
    let known = (local && only_counter_uses(cx, name))
        .then(|| first_initialisation(cx, name).unwrap_or(usize::MAX));
    cx.counters.insert(name.to_string(), known);
    known
}

/// The runs of `[A-Za-z0-9_]` in `text`.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|s| !s.is_empty())
}

/// Where `name` appears in the source as a whole identifier.
fn occurrences<'s>(src: &'s str, name: &'s str) -> impl Iterator<Item = usize> + 's {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    src.match_indices(name).map(|(k, _)| k).filter(move |&k| {
        let b = src.as_bytes();
        (k == 0 || !ident(b[k - 1])) && b.get(k + name.len()).is_none_or(|&c| !ident(c))
    })
}

/// The spans of the script's arithmetic events.
fn arithmetic_spans<'a>(cx: &'a Ctx<'_>) -> impl Iterator<Item = Span> + 'a {
    cx.script.events.iter().filter_map(|(e, s)| match e {
        crate::segment::Event::Arithmetic => Some(*s),
        _ => None,
    })
}

/// A value that is an integer whatever the environment holds: a literal, or one `$((…))`
/// (whose own arithmetic is judged where it is).
fn integer_value(w: &Word) -> bool {
    match w.static_text() {
        Some(t) => {
            let t = t.strip_prefix('-').unwrap_or(t);
            !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
        }
        None => {
            let e = w.expansions;
            e.arithmetic
                && !(e.parameter || e.command || e.process || e.glob)
                && w.text.starts_with("$((")
                && w.text.ends_with("))")
                && w.text.matches("$((").count() == 1
        }
    }
}

/// Every place `name` appears in the script only reads it or stores an integer in it.
fn only_counter_uses(cx: &Ctx<'_>, name: &str) -> bool {
    let src = cx.src;
    occurrences(src, name).all(|k| {
        let in_arith = arithmetic_spans(cx).any(|s| s.start <= k && k < s.end);
        let before = &src[..k];
        let after = &src[k + name.len()..];
        let read = before.ends_with('$') || (before.ends_with("${") && after.starts_with('}'));
        let assigned = cx.script.segments.iter().any(|seg| {
            seg.assignments
                .iter()
                .any(|a| a.span.start == k && !a.subscript && integer_value(&a.value))
        });
        in_arith || read || assigned
    })
}

/// Where the first assignment of an integer to `name` that surely runs before anything after
/// it ends: see [`own_counter`].
fn first_initialisation(cx: &Ctx<'_>, name: &str) -> Option<usize> {
    use crate::segment::{Joiner, SegmentKind};
    let plain = cx
        .script
        .segments
        .iter()
        .filter(|seg| {
            seg.kind == SegmentKind::Assignments
                && seg.nesting.is_empty()
                && matches!(
                    seg.joiner,
                    None | Some(Joiner::Semicolon | Joiner::Newline | Joiner::And | Joiner::Or)
                )
                && seg
                    .assignments
                    .iter()
                    .any(|a| a.name == name && !a.subscript && integer_value(&a.value))
                && clean_prefix(cx, seg.span.start)
        })
        .map(|seg| seg.span.end);
    let for_init = arithmetic_spans(cx)
        .filter(|s| {
            cx.src.get(s.start..s.end).is_some_and(|t| {
                t.split_once('=').is_some_and(|(n, v)| {
                    let v = v.trim();
                    n.trim() == name && !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
                })
            }) && for_header_start(cx.src, s.start).is_some_and(|f| clean_prefix(cx, f))
        })
        .map(|s| s.end);
    plain.chain(for_init).min()
}

/// Where the `for` keyword is when `at` is the first thing inside `for ((`.
fn for_header_start(src: &str, at: usize) -> Option<usize> {
    let before = src.get(..at)?.trim_end();
    let before = before.strip_suffix("((")?.trim_end();
    let head = before.strip_suffix("for")?;
    let starts_word = head
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || c == ';');
    starts_word.then_some(head.len())
}

/// Whether only plain top-level commands joined by `;` or newlines come before `at`: then
/// whatever starts at `at` runs whenever anything after it does.
fn clean_prefix(cx: &Ctx<'_>, at: usize) -> bool {
    let top: Vec<Span> = cx
        .script
        .segments
        .iter()
        .filter(|s| s.nesting.is_empty() && s.span.end <= at)
        .map(|s| s.span)
        .collect();
    cx.src.get(..at).unwrap_or("").char_indices().all(|(k, c)| {
        matches!(c, ' ' | '\t' | '\n' | ';') || top.iter().any(|s| s.start <= k && k < s.end)
    })
}

/// `$HOME`, `${HOME}` or either followed by a static `/path`, quoted or not: what comes after
/// the home directory (`""` or `/path`). `HOME` is the user's own: the command cannot have
/// changed it, since assigning `HOME` asks. Unquoted, a home with spaces splits into words
/// and `cd` fails with "too many arguments".
pub(crate) fn home_relative(w: &Word) -> Option<&str> {
    let e = w.expansions;
    if !e.parameter || e.command || e.process || e.arithmetic || e.glob {
        return None;
    }
    let rest = w
        .text
        .strip_prefix("${HOME}")
        .or_else(|| w.text.strip_prefix("$HOME"))?;
    let plain = rest.is_empty() || (rest.starts_with('/') && !rest.contains(['$', '`', '~', '\\']));
    // `$HOME_DIR` is another variable: the name must end where `HOME` does.
    plain.then_some(rest)
}

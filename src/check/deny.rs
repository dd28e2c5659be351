//! check/deny: applies `[[deny]]` rules — to every command cmdguard sees (segments, wrapped
//! commands, nested scripts), to redirection targets, to structural patterns (fork bombs,
//! downloads piped into interpreters) and, only when a command cannot be fully parsed, to its raw
//! text. A word that merely mentions a destructive command is not denied, but an unquoted one asks.

use std::collections::HashSet;

use super::{Arg, Ctx, DOWNLOADERS, INTERPRETERS, Origin, inside, names, parse_args};
use crate::allowlist::{Allowlist, Builtin, DenyRule};
use crate::finding::{Code, Span};
use crate::segment::{Event, Joiner, Nest, Redirect, Segment, Word};

impl Ctx<'_> {
    /// Reports a matched deny rule.
    fn deny(&mut self, rule: &DenyRule, span: Span, seg: Option<usize>) {
        let message = format!("{} (rule `{}`)", rule.reason, rule.id);
        self.push_rule(Code::Denied, span, seg, message, &rule.id);
    }
}

/// Strips a directory from a program path: deny rules see through `/bin/rm` and `./rm` alike.
pub(crate) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

fn first_word_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Skips a program's global options (`git -C dir -c k=v push` → `push …`).
fn skip_globals<'w>(list: &Allowlist, program: &str, words: &'w [Word]) -> &'w [Word] {
    let Some(p) = list.programs.get(program) else {
        return words;
    };
    let mut i = 0;
    while let Some(t) = words.get(i).and_then(|w| w.static_text()) {
        let name = t.split_once('=').map(|(n, _)| n).unwrap_or(t);
        if p.flags.iter().any(|f| f == t) || p.harmless.iter().any(|f| f == t) {
            i += 1;
        } else if p.value_options.iter().any(|v| v == name) {
            i += if t.contains('=') { 1 } else { 2 };
        } else if t.starts_with("-c") && p.value_options.iter().any(|v| v == "-c") && t.len() > 2 {
            i += 1;
        } else {
            break;
        }
    }
    words.get(i..).unwrap_or(&[])
}

/// True when the rule's command, options and operands all match `words`.
pub(crate) fn rule_matches(list: &Allowlist, rule: &DenyRule, words: &[Word]) -> bool {
    let Some(cmd) = &rule.command else {
        return false;
    };
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return false;
    };
    let name = basename(first);
    if !cmd.first().is_some_and(|p| first_word_matches(p, name)) {
        return false;
    }
    let mut rest = &words[1..];
    if cmd.len() > 1 {
        rest = skip_globals(list, name, rest);
        for want in &cmd[1..] {
            match rest.first().and_then(|w| w.static_text()) {
                Some(t) if t == want => rest = &rest[1..],
                _ => return false,
            }
        }
    }
    let parsed = parse_args(rest, &rule.spec);
    let has = |opts: &[String]| {
        parsed
            .iter()
            .any(|a| matches!(a, Arg::Opt { name, .. } if opts.iter().any(|o| names(name, o))))
    };
    if !rule.any_option.is_empty() && !has(&rule.any_option) {
        return false;
    }
    if !rule.all_options.iter().all(|g| has(g)) {
        return false;
    }
    if !rule.any_operand.is_empty() {
        let hit = parsed.iter().any(|a| match a {
            Arg::Operand { text, .. } => rule.any_operand.iter().any(|r| r.is_match(text)),
            // A run-time word is matched on its source text (`$HOME`).
            Arg::Dynamic { word } => rule
                .any_operand
                .iter()
                .any(|r| r.is_match(&rest[*word].text)),
            Arg::Opt { .. } | Arg::Refused { .. } => false,
        });
        if !hit {
            return false;
        }
    }
    true
}

/// Most arguments of one command read as a possible denied command (the mention check).
const MAX_MENTIONS: usize = 16;

/// Deny rules on one command, then the mention check on its unquoted arguments.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word], origin: Origin<'_>) {
    let list = cx.list;
    for rule in &list.deny {
        if rule_matches(list, rule, words) {
            cx.deny(rule, span, Some(i));
        }
    }
    if matches!(origin, Origin::Tail) {
        return;
    }
    // `echo rm -rf /`: the words after the program, read as a command, would be denied. Not
    // an execution, but an agent that prints a destructive command is worth a look. Each
    // reading costs the rest of the line, so only words that name a denied program are read,
    // and only the first few of them: more (`echo rm rm rm …`) ask rather than take time
    // quadratic in the line.
    let mut candidates = 0;
    for k in 1..words.len() {
        let tail = &words[k..];
        let Some(t) = tail[0].static_text().filter(|_| !tail[0].quoted) else {
            continue;
        };
        let name = basename(t);
        let named = list.deny.iter().any(|r| {
            r.command
                .as_ref()
                .and_then(|c| c.first())
                .is_some_and(|p| first_word_matches(p, name))
        });
        if !named {
            continue;
        }
        candidates += 1;
        if candidates > MAX_MENTIONS {
            cx.push(
                Code::Mention,
                tail[0].span,
                Some(i),
                format!(
                    "the arguments name denied programs more than {MAX_MENTIONS} times (`{t}`); cmdguard does not read each as a command"
                ),
            );
            break;
        }
        if let Some(rule) = list.deny.iter().find(|r| rule_matches(list, r, tail)) {
            cx.push_rule(
                Code::Mention,
                tail[0].span,
                Some(i),
                format!(
                    "the arguments `{}` spell a denied command: {}",
                    tail[0].text, rule.reason
                ),
                &rule.id,
            );
            break;
        }
    }
}

/// Redirections into block devices and the like.
pub(super) fn redirect(cx: &mut Ctx<'_>, r: &Redirect, seg: Option<usize>) {
    let Some(t) = r.target.as_ref().and_then(|t| t.static_text()) else {
        return;
    };
    let list = cx.list;
    for rule in &list.deny {
        if rule.redirect_target.iter().any(|re| re.is_match(t)) {
            cx.deny(rule, r.span, seg);
        }
    }
}

/// `find … -exec CMD … ;`: the command find runs is checked like any other (deny rules
/// included); the option itself is forbidden by find's entry.
pub(super) fn find_exec(cx: &mut Ctx<'_>, i: usize, rest: &[Word], parsed: &[Arg<'_>]) {
    // Only real options start an -exec: `-name -exec` is a pattern, consumed as a value.
    // Everything up to the `;` or `+` is the command's: an `-exec` among those words is its
    // argument, checked when that command is (`find -ok find -ok …` is checked once per level,
    // not once per level and per later `-ok`).
    let mut taken = 0;
    for a in parsed {
        // An option table refuses -exec (it asks), but what it runs is still checked, so a
        // denied inner command is denied.
        let (name, word) = match a {
            Arg::Opt { name, word, .. } => (name.as_str(), *word),
            Arg::Refused { word, .. } => (rest[*word].static_text().unwrap_or(""), *word),
            Arg::Operand { .. } | Arg::Dynamic { .. } => continue,
        };
        if word < taken || !matches!(name, "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let start = word + 1;
        let mut end = start;
        while end < rest.len() && !matches!(rest[end].static_text(), Some(";" | "+")) {
            end += 1;
        }
        taken = end + 1;
        if end > start {
            let inner = &rest[start..end];
            let span = inner[0].span.cover(inner[inner.len() - 1].span);
            cx.command(i, span, inner, Origin::Tail);
        }
    }
}

/// Raw-text rules, used only where the parse could not be trusted.
pub(super) fn fallback(cx: &mut Ctx<'_>, i: usize, at: Span, text: &str) {
    let list = cx.list;
    for rule in &list.deny {
        if let Some(re) = &rule.fallback
            && re.is_match(text)
        {
            cx.push_rule(
                Code::Denied,
                at,
                Some(i),
                format!(
                    "{} (rule `{}`, matched in text cmdguard could not fully parse)",
                    rule.reason, rule.id
                ),
                &rule.id,
            );
        }
    }
}

/// Fallback over a whole unparseable command.
pub(crate) fn fallback_text<'l>(list: &'l Allowlist, text: &str) -> Vec<&'l DenyRule> {
    list.deny
        .iter()
        .filter(|r| r.fallback.as_ref().is_some_and(|re| re.is_match(text)))
        .collect()
}

/// Rules over several segments at once.
pub(super) fn structural(cx: &mut Ctx<'_>) {
    let list = cx.list;
    let script = cx.script;
    for rule in &list.deny {
        match rule.builtin {
            None => {}
            Some(Builtin::ForkBomb) => {
                // One pass over the segments with the defined names at hand, not one per
                // definition (thousands of `f(){ :; };` took time quadratic in the line).
                let defined: HashSet<&str> = script
                    .events
                    .iter()
                    .filter_map(|(ev, _)| match ev {
                        Event::FunctionDefinition(name) => Some(name.as_str()),
                        _ => None,
                    })
                    .collect();
                for (i, s) in script.segments.iter().enumerate() {
                    let calls_itself = s
                        .words
                        .first()
                        .is_some_and(|w| defined.contains(w.text.as_str()));
                    let in_function = s.nesting.contains(&Nest::Function);
                    let spreads = matches!(s.joiner, Some(Joiner::Pipe | Joiner::Background));
                    if calls_itself && in_function && spreads {
                        cx.deny(rule, s.span, Some(i));
                    }
                }
            }
            Some(Builtin::DownloadToInterpreter) => {
                let segs = &script.segments;
                let interpreters: Vec<&Segment> = segs
                    .iter()
                    .filter(|o| runs_one_of(&o.words, INTERPRETERS))
                    .collect();
                for (i, s) in segs.iter().enumerate() {
                    if !runs_one_of(s.words.as_slice(), DOWNLOADERS) {
                        continue;
                    }
                    // `curl … | sh`: the next segment at the same level runs an interpreter.
                    let piped = s.joiner == Some(Joiner::Pipe)
                        && segs[i + 1..]
                            .iter()
                            .find(|n| n.nesting == s.nesting)
                            .is_some_and(|n| runs_one_of(&n.words, INTERPRETERS));
                    // `sh -c "$(curl …)"`, `bash <(curl …)`: an interpreter fed by a substitution.
                    let fed = interpreters.iter().any(|o| inside(s, o));
                    if piped || fed {
                        cx.deny(rule, s.span, Some(i));
                    }
                }
            }
        }
    }
}

/// True when the command (or the command behind a leading wrapper like `sudo`) is one of `set`.
fn runs_one_of(words: &[Word], set: &[&str]) -> bool {
    const LEADS: &[&str] = &[
        "sudo", "doas", "env", "command", "exec", "nohup", "time", "nice",
    ];
    for w in words.iter().take(4) {
        let Some(t) = w.static_text() else {
            return false;
        };
        let b = basename(t);
        if set.contains(&b) {
            return true;
        }
        if !(LEADS.contains(&b) || t.starts_with('-') || t.contains('=')) {
            return false;
        }
    }
    false
}

//! config/command_rules: command-prefix rules in Claude Code's `Bash(…)` spellings — exact
//! (`npm test`), legacy prefix (`git diff:*`) and wildcard (`npm run test *`) — matched one
//! segment at a time against an [`Analysis`].
//!
//! It never widens what the analysis saw: an allow rule only lowers findings whose code is in
//! [`COVERABLE`] and that belong to a segment the rule matches; a deny or ask rule only adds
//! findings. A command's text is never matched as a whole, so `Bash(echo *)` cannot reach the
//! `rm` of `echo x && rm -rf y`.

use std::fmt;

use crate::analyzer::{Analysis, AnalyzedSegment};
use crate::finding::{Code, Finding, Match, RuleOrigin, Verdict};

/// The finding codes an allow rule may cover, each only on a segment the rule matches. They
/// all say "cmdguard's allowlist does not know this program" — which is what a user's rule
/// answers. Everything else (a redirection, an assignment, a forbidden option, a run-time
/// word, a substitution, a wrapper, a deny rule) still stands.
pub const COVERABLE: &[Code] = &[
    // No `[[allow]]` entry matched the program: the rule is the user's entry for it.
    Code::NotAllowlisted,
    // The program is a path (`./gradlew`): rules match that word literally.
    Code::UnusualPath,
    // `/usr/bin/x`: allowed by default; a stricter profile may raise it.
    Code::SystemPath,
];

/// What a rule does when it matches a segment: Claude Code's `allow`, `ask` and `deny` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleAction {
    /// Covers the [`COVERABLE`] findings of the segments it matches.
    Allow,
    /// Makes a matching segment ask.
    Ask,
    /// Makes a matching segment deny.
    Deny,
}

impl RuleAction {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Allow => "allow",
            RuleAction::Ask => "ask",
            RuleAction::Deny => "deny",
        }
    }
}

/// How a rule's text is matched against a segment's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// Every command (`Bash`, `Bash(*)`).
    Any,
    /// Exactly these words (`npm test`).
    Exact(Vec<String>),
    /// These words, then anything (`git diff:*`): a word boundary, so `git difftool` is not
    /// `git diff`.
    Prefix(Vec<String>),
    /// A glob over the words joined by single spaces: `*` is any text, `\*` a star; a single
    /// trailing ` *` also matches nothing, so `ls *` matches `ls` and `ls -la`, not `lsof`.
    Wildcard(String),
}

/// One rule: what it matches, what it does, and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRule {
    /// The text as written, without the `Bash(…)` around it (`git diff:*`).
    pub text: String,
    /// What the text means.
    pub pattern: Pattern,
    /// What a match does.
    pub action: RuleAction,
    /// Where the rule was written.
    pub origin: RuleOrigin,
}

/// A rule whose text cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The rule text.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule `{}`: {}", self.text, self.message)
    }
}

impl std::error::Error for RuleError {}

impl CommandRule {
    /// Reads a rule's text (what Claude Code writes inside `Bash(…)`).
    ///
    /// ```
    /// use cmdguard::config::command_rules::{CommandRule, Pattern, RuleAction};
    /// use cmdguard::RuleOrigin;
    /// let r = CommandRule::parse("git diff:*", RuleAction::Allow, RuleOrigin::BuiltIn).unwrap();
    /// assert_eq!(r.pattern, Pattern::Prefix(vec!["git".into(), "diff".into()]));
    /// assert!(r.matches_words(&["git", "diff", "HEAD"]));
    /// assert!(!r.matches_words(&["git", "difftool"]));
    /// ```
    pub fn parse(
        text: &str,
        action: RuleAction,
        origin: RuleOrigin,
    ) -> Result<CommandRule, RuleError> {
        let err = |message: &str| RuleError {
            text: text.to_string(),
            message: message.to_string(),
        };
        let trimmed = text.trim();
        let pattern = if trimmed.is_empty() || trimmed == "*" || trimmed == ":*" {
            Pattern::Any
        } else if let Some(prefix) = trimmed.strip_suffix(":*") {
            let words = split_words(prefix).map_err(err)?;
            if words.is_empty() {
                Pattern::Any
            } else {
                Pattern::Prefix(words)
            }
        } else if has_unescaped_star(trimmed) {
            Pattern::Wildcard(trimmed.to_string())
        } else {
            let words = split_words(trimmed).map_err(err)?;
            Pattern::Exact(words)
        };
        Ok(CommandRule {
            text: text.to_string(),
            pattern,
            action,
            origin,
        })
    }

    /// A prefix rule from words already split (`["git", "diff"]`): what a "remember this
    /// command prefix" grant is.
    ///
    /// ```
    /// use cmdguard::config::command_rules::{CommandRule, RuleAction};
    /// use cmdguard::RuleOrigin;
    /// let r = CommandRule::prefix(&["cargo", "test"], RuleAction::Allow, RuleOrigin::BuiltIn);
    /// assert_eq!(r.text, "cargo test:*");
    /// assert!(r.matches_words(&["cargo", "test", "--workspace"]));
    /// ```
    pub fn prefix(words: &[&str], action: RuleAction, origin: RuleOrigin) -> CommandRule {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let shown: Vec<&str> = words.iter().map(String::as_str).collect();
        let text = format!("{}:*", join_quoted(&shown));
        // No word would be a prefix of everything: a rule that matches nothing instead.
        let pattern = if words.is_empty() {
            Pattern::Exact(words)
        } else {
            Pattern::Prefix(words)
        };
        CommandRule {
            text,
            pattern,
            action,
            origin,
        }
    }

    /// True when the rule matches a command given as its words (the command word first).
    pub fn matches_words(&self, words: &[&str]) -> bool {
        match &self.pattern {
            Pattern::Any => true,
            Pattern::Exact(want) => {
                want.len() == words.len() && want.iter().zip(words).all(|(a, b)| a == b)
            }
            Pattern::Prefix(want) => {
                want.len() <= words.len() && want.iter().zip(words).all(|(a, b)| a == b)
            }
            Pattern::Wildcard(glob) => wildcard_matches(glob, &join_quoted(words)),
        }
    }

    /// True when the rule matches segment `s` as an allow rule: from its command word, and
    /// with every word the rule spells out known before the command runs (`npm test $X` is
    /// not `npm test`).
    fn allows_segment(&self, s: &AnalyzedSegment) -> bool {
        if s.argv.is_empty() {
            return false;
        }
        let literal_words = match &self.pattern {
            // A catch-all allow is not imported (see `claude.rs`); were one built by hand,
            // it still spells out no word.
            Pattern::Any => 0,
            Pattern::Exact(w) => w.len(),
            Pattern::Prefix(w) => w.len(),
            // Text after the first `*` could match a run-time word's source text, so such a
            // rule needs every word static.
            Pattern::Wildcard(glob) => match glob.find('*') {
                Some(i) if glob[i + 1..].trim().is_empty() => glob[..i].split_whitespace().count(),
                _ => usize::MAX,
            },
        };
        if s.dynamic.iter().any(|&i| i < literal_words) {
            return false;
        }
        let words: Vec<&str> = s.argv.iter().map(String::as_str).collect();
        self.matches_words(&words)
    }

    /// True when the rule matches segment `s` as a deny or ask rule. Matching too much only
    /// makes a command stricter, so it matches more than an allow rule: behind a wrapper or
    /// an unknown program (`sudo rm -rf x`, `timeout 5 git push`, `nohup git push`) from any
    /// word on, with a program given as a path also by its file name (`/usr/bin/git push`),
    /// and a prefix ending in punctuation as plain text (`curl http://x/:*` denies
    /// `curl http://x/y`).
    fn restricts_segment(&self, s: &AnalyzedSegment) -> bool {
        let words: Vec<&str> = s.argv.iter().map(String::as_str).collect();
        let wrapped = matches!(
            s.matched,
            None | Some(Match::Wrapper { .. } | Match::WrapperOnly(_))
        );
        let starts = if wrapped { words.len().max(1) } else { 1 };
        (0..starts).any(|i| {
            let mut rest: Vec<&str> = words.get(i..).unwrap_or(&[]).to_vec();
            if self.restricts_words(&rest) {
                return true;
            }
            match rest.first().and_then(|w| w.rsplit_once('/')) {
                Some((_, name)) if !name.is_empty() => {
                    rest[0] = name;
                    self.restricts_words(&rest)
                }
                _ => false,
            }
        })
    }

    /// [`CommandRule::matches_words`], with a prefix that ends in punctuation read as text.
    fn restricts_words(&self, words: &[&str]) -> bool {
        match &self.pattern {
            // `rm:*` keeps its word boundary (`rmdir` is another program), but a prefix
            // ending in punctuation reads on into the word (`curl http://x/:*`).
            Pattern::Prefix(want) => {
                let open = want
                    .last()
                    .and_then(|w| w.chars().last())
                    .is_some_and(|c| !c.is_alphanumeric());
                let want: Vec<&str> = want.iter().map(String::as_str).collect();
                self.matches_words(words)
                    || (open && join_quoted(words).starts_with(&join_quoted(&want)))
            }
            Pattern::Any | Pattern::Exact(_) | Pattern::Wildcard(_) => self.matches_words(words),
        }
    }
}

/// A set of rules, applied together to an analysis.
///
/// ```
/// use cmdguard::config::command_rules::{CommandRule, CommandRules, RuleAction};
/// use cmdguard::{Analyzer, RuleOrigin, Verdict};
/// let mut rules = CommandRules::default();
/// rules.push(CommandRule::parse("echo *", RuleAction::Allow, RuleOrigin::BuiltIn).unwrap());
/// rules.push(CommandRule::parse("npm test", RuleAction::Allow, RuleOrigin::BuiltIn).unwrap());
/// let analyzer = Analyzer::default();
///
/// let mut a = analyzer.analyze("npm test");
/// rules.apply(&mut a);
/// assert_eq!(a.verdict, Verdict::Allow);
///
/// let mut a = analyzer.analyze("echo x && npm install");
/// rules.apply(&mut a);
/// assert_eq!(a.verdict, Verdict::Ask); // `npm install` is not covered
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandRules {
    /// The rules, in the order added.
    pub rules: Vec<CommandRule>,
}

impl CommandRules {
    /// Adds a rule.
    pub fn push(&mut self, rule: CommandRule) {
        self.rules.push(rule);
    }

    /// True when there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Applies the rules to `a`, segment by segment, and redraws its verdict:
    ///
    /// - a deny rule matching a segment adds a [`Code::Denied`] finding (deny);
    /// - an ask rule matching a segment adds a [`Code::NotAllowlisted`] finding (ask): the
    ///   user's list takes the command out of what may run unasked;
    /// - when the verdict is `ask`, every finding above `allow` has a [`COVERABLE`] code,
    ///   points at the command word of its segment, and that segment is matched by an allow
    ///   rule (and by no deny or ask rule), those
    ///   findings are lowered to `allow`, their message naming the rule. Anything else — one
    ///   finding outside that, a finding of no segment, a deny — leaves the verdict as it is.
    pub fn apply(&self, a: &mut Analysis) {
        if self.rules.is_empty() {
            return;
        }
        let mut restricted = vec![false; a.segments.len()];
        let mut added = Vec::new();
        for (i, s) in a.segments.iter().enumerate() {
            for rule in &self.rules {
                let (code, severity) = match rule.action {
                    RuleAction::Allow => continue,
                    RuleAction::Ask => (Code::NotAllowlisted, Verdict::Ask),
                    RuleAction::Deny => (Code::Denied, Verdict::Deny),
                };
                if rule.restricts_segment(s) {
                    restricted[i] = true;
                    let message = format!(
                        "`{}` matches the {} rule `Bash({})` ({})",
                        s.argv.join(" "),
                        rule.action.as_str(),
                        rule.text,
                        rule.origin
                    );
                    added.push(
                        Finding::new(code, s.span, message)
                            .in_segment(i)
                            .by_rule(format!("Bash({})", rule.text))
                            .with_severity(severity),
                    );
                }
            }
        }
        a.findings.extend(added);
        let verdict = Verdict::strictest(a.findings.iter().map(|f| f.severity));
        if verdict == Verdict::Ask {
            self.cover(a, &restricted);
        }
        a.verdict = Verdict::strictest(a.findings.iter().map(|f| f.severity));
    }

    /// Lowers the findings allow rules cover, when they cover every finding above `allow`.
    fn cover(&self, a: &mut Analysis, restricted: &[bool]) {
        let mut covering: Vec<&CommandRule> = Vec::new();
        for f in a.findings.iter().filter(|f| f.severity > Verdict::Allow) {
            let Some(i) = f.segment else { return };
            if !COVERABLE.contains(&f.code) || restricted.get(i).copied().unwrap_or(true) {
                return;
            }
            let Some(s) = a.segments.get(i) else { return };
            // The finding must be about the segment's own program: one pointing elsewhere in
            // it is about a command it runs (`bash -c 'curl x'`, `timeout 5 curl x`), which
            // the rule does not name.
            if s.segment.words.first().map(|w| w.span.start) != Some(f.span.start) {
                return;
            }
            let Some(rule) = self
                .rules
                .iter()
                .find(|r| r.action == RuleAction::Allow && r.allows_segment(s))
            else {
                return;
            };
            covering.push(rule);
        }
        let above = a
            .findings
            .iter_mut()
            .filter(|f| f.severity > Verdict::Allow);
        for (f, rule) in above.zip(covering) {
            f.message = format!(
                "{} (allowed by the rule `Bash({})`, {})",
                f.message, rule.text, rule.origin
            );
            f.severity = Verdict::Allow;
        }
    }
}

/// True when `s` holds a `*` not escaped by a backslash.
fn has_unescaped_star(s: &str) -> bool {
    let mut escaped = false;
    for c in s.chars() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '*') => return true,
            (false, _) => {}
        }
    }
    false
}

/// The words of a rule, split as a shell would split plain text: whitespace separates,
/// quotes and backslashes keep text together. Expansions are refused: a rule is literal text.
fn split_words(s: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated single quote"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err("unterminated double quote"),
                        },
                        Some('$' | '`') => return Err("a rule cannot hold an expansion"),
                        Some(c) => cur.push(c),
                        None => return Err("unterminated double quote"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => return Err("a trailing backslash"),
                }
            }
            '$' | '`' => return Err("a rule cannot hold an expansion"),
            ';' | '&' | '|' | '<' | '>' | '(' | ')' => {
                return Err("a rule cannot hold a shell operator; write one rule per command");
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The words joined by single spaces, each word holding anything but plain characters in
/// single quotes: `git 'x main'` cannot pass for the three words `git x main`.
fn join_quoted(words: &[&str]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,^~".contains(c);
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if !w.is_empty() && w.chars().all(plain) {
            out.push_str(w);
        } else {
            out.push('\'');
            out.push_str(&w.replace('\'', r"'\''"));
            out.push('\'');
        }
    }
    out
}

/// One element of a wildcard pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A literal character.
    Char(char),
    /// `*`: any text.
    Star,
}

/// Matches `text` against a Claude Code wildcard: `*` is any text (spaces included), `\*` a
/// literal star, `\\` a backslash; a pattern with one star, at its end after a space, also
/// matches the text without that space (`ls *` matches `ls`).
fn wildcard_matches(glob: &str, text: &str) -> bool {
    let mut toks = Vec::new();
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => toks.push(Tok::Char(chars.next().unwrap_or('\\'))),
            '*' => toks.push(Tok::Star),
            c => toks.push(Tok::Char(c)),
        }
    }
    let stars = toks.iter().filter(|t| **t == Tok::Star).count();
    if stars == 1
        && let [head @ .., Tok::Char(' '), Tok::Star] = toks.as_slice()
        && glob_match(head, text)
    {
        return true;
    }
    glob_match(&toks, text)
}

/// Star matching in O(pattern × text): on a mismatch, only the last star is moved on, which
/// is enough because a later star can absorb anything an earlier one could.
fn glob_match(toks: &[Tok], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut last_star: Option<(usize, usize)> = None;
    while t < text.len() {
        match toks.get(p) {
            Some(Tok::Char(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            Some(Tok::Star) => {
                last_star = Some((p, t));
                p += 1;
            }
            _ => match last_star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    last_star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    toks[p.min(toks.len())..].iter().all(|t| *t == Tok::Star)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> CommandRule {
        CommandRule::parse(text, RuleAction::Allow, RuleOrigin::BuiltIn).unwrap()
    }

    #[test]
    fn each_form_matches_its_documented_commands() {
        let table: &[(&str, &[&str], bool)] = &[
            ("npm test", &["npm", "test"], true),
            ("npm test", &["npm", "test", "x"], false),
            ("npm test", &["npm"], false),
            ("git diff:*", &["git", "diff"], true),
            ("git diff:*", &["git", "diff", "--stat"], true),
            ("git diff:*", &["git", "difftool"], false),
            ("npm run test *", &["npm", "run", "test"], true),
            ("npm run test *", &["npm", "run", "test", "--watch"], true),
            ("npm run test *", &["npm", "run", "testx"], false),
            ("ls *", &["lsof"], false),
            ("ls*", &["lsof"], true),
            ("git * main", &["git", "push", "origin", "main"], true),
            ("git * main", &["git", "push", "x main"], false),
            // Exact: an escaped star is a literal word.
            ("echo \\*", &["echo", "*"], true),
            ("echo \\*", &["echo", "x"], false),
            ("*", &["anything"], true),
            ("git commit -m 'a b'", &["git", "commit", "-m", "a b"], true),
        ];
        for (text, words, want) in table {
            assert_eq!(
                rule(text).matches_words(words),
                *want,
                "{text} vs {words:?}"
            );
        }
    }

    #[test]
    fn deny_rules_see_through_wrappers_paths_and_text_prefixes() {
        let analyzer = crate::Analyzer::default();
        let table: &[(&str, &str, bool)] = &[
            ("git push:*", "timeout 5 git push", true),
            ("git push:*", "/usr/bin/git push", true),
            ("git push:*", "nohup git push", true),
            ("git push:*", "echo git push", false),
            ("curl http://x/:*", "curl http://x/y", true),
            ("rm -rf /", "rm -rf /", true),
            ("rm:*", "rmdir x", false),
        ];
        for (text, cmd, want) in table {
            let r = CommandRule::parse(text, RuleAction::Deny, RuleOrigin::BuiltIn).unwrap();
            let a = analyzer.analyze(cmd);
            let got = a.segments.iter().any(|s| r.restricts_segment(s));
            assert_eq!(got, *want, "{text} on {cmd}: {:?}", a.segments);
        }
    }

    #[test]
    fn nested_scripts_and_wrappers_are_covered_segment_by_segment() {
        let analyzer = crate::Analyzer::default();
        let mut rules = CommandRules::default();
        rules.push(rule("npm test"));
        let table: &[(&str, Verdict)] = &[
            // A nested script's findings belong to the segment that runs it, so the rule
            // (which names `npm`, not `bash`) does not reach them: stricter, never looser.
            ("bash -c 'npm test'", Verdict::Ask),
            ("bash -c 'npm install'", Verdict::Ask),
            ("sh -c 'npm test && npm install'", Verdict::Ask),
            ("echo $(npm test)", Verdict::Allow),
            ("echo $(npm install)", Verdict::Ask),
            ("echo x | xargs npm test", Verdict::Ask),
            ("timeout 5 npm test", Verdict::Ask),
            ("eval 'npm test'", Verdict::Ask),
            ("cat <<EOF\n$(npm install)\nEOF", Verdict::Ask),
            ("npm test &", Verdict::Ask),
        ];
        for (cmd, want) in table {
            let mut a = analyzer.analyze(cmd);
            rules.apply(&mut a);
            assert_eq!(a.verdict, *want, "{cmd}: {:#?}", a.findings);
        }
    }

    #[test]
    fn a_rule_for_a_runner_does_not_cover_what_it_runs() {
        let analyzer = crate::Analyzer::default();
        let mut rules = CommandRules::default();
        rules.push(rule("bash -c:*"));
        rules.push(rule("timeout:*"));
        for cmd in ["bash -c 'curl x'", "timeout 5 curl x"] {
            let mut a = analyzer.analyze(cmd);
            rules.apply(&mut a);
            assert_eq!(a.verdict, Verdict::Ask, "{cmd}: {:#?}", a.findings);
        }
    }

    #[test]
    fn many_stars_on_a_long_command_match_in_linear_time() {
        let glob = "*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let text = "a".repeat(20_000);
        let start = std::time::Instant::now();
        assert!(!wildcard_matches(glob, &text));
        assert!(wildcard_matches(glob, &format!("{text}b")));
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn rules_with_operators_or_expansions_are_refused() {
        for text in [
            "echo x && rm y",
            "ls | sh",
            "echo $(id)",
            "echo `id`",
            "'open",
        ] {
            assert!(
                CommandRule::parse(text, RuleAction::Allow, RuleOrigin::BuiltIn).is_err(),
                "{text}"
            );
        }
    }
}

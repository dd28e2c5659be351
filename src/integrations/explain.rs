//! explain: `cmdguard explain COMMAND` — one command taken through every stage, for a person:
//! the segments and the rule each matched (with where the rule was written), each finding with
//! a caret under its span, the assessor's answer when one is configured, and the time each
//! stage took. It reports what the analyser and the assessor decided; it never decides itself.
//!
//! ```
//! use cmdguard::Analyzer;
//! use cmdguard::integrations::explain::{AssessorAnswer, Explanation};
//!
//! let e = Explanation::new(&Analyzer::default(), None, b"ls > out.txt", None);
//! assert_eq!(e.analysis.verdict, cmdguard::Verdict::Ask);
//! assert!(matches!(e.assessor, AssessorAnswer::NotConfigured));
//! let text = anstream::adapter::strip_str(&e.render()).to_string();
//! assert!(text.contains("warning[redirect]: redirection writes to `out.txt`"));
//! ```

use std::fmt::Write as _;
use std::ops::Range;
use std::time::{Duration, Instant};

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use anstyle::{AnsiColor, Effects, Style};

use crate::assess::{AssessRequest, Assessment, Decision, RiskAssessor};
use crate::config::{self, Config};
use crate::policy::rules::CommandRules;
use crate::{Analysis, Analyzer, Finding, Match, RuleOrigin, StageTimes, Verdict, Workdir};

/// Everything `cmdguard explain` shows about one command.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// The analysis, with the command rules applied when there are any.
    pub analysis: Analysis,
    /// Where the rule behind each finding was written, in the order of `analysis.findings`:
    /// the matched rule of its segment, else the deny rule of that id; `None` for findings
    /// no rule produced.
    pub origins: Vec<Option<RuleOrigin>>,
    /// What the assessor said, or why it was not asked.
    pub assessor: AssessorAnswer,
    /// The Claude Code allow rules imported into the configuration that name this command
    /// although it asks (`` `Bash(npm test)` (~/.claude/settings.json:3) ``), one per finding
    /// that makes it ask; empty when none does. Such a rule never lowers the verdict.
    pub claude_rules: Vec<String>,
    /// Whether `[claude] defer_allow_rules` is on, so that a Claude Code hook leaves a
    /// command only such rules cover to Claude Code instead of asking.
    pub claude_defer: bool,
    /// How long each stage took.
    pub times: Times,
}

/// The assessor's part of an explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssessorAnswer {
    /// No assessor is configured: every `ask` goes to a person.
    NotConfigured,
    /// An assessor is configured but only answers `ask` verdicts, and this is not one.
    NotAsked,
    /// The assessor's answer.
    Answered(Assessment),
}

/// The time each stage took, for one explanation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    /// The analyser's stages.
    pub stages: StageTimes,
    /// Applying the command rules of the configuration.
    pub rules: Duration,
    /// The assessor; zero when it was not asked.
    pub assess: Duration,
}

impl Times {
    /// The sum of every stage.
    pub fn total(&self) -> Duration {
        let s = &self.stages;
        s.input + s.parse + s.segment + s.check + self.rules + self.assess
    }
}

impl Explanation {
    /// Analyses `cmd` (bytes: anything but UTF-8 asks) with `analyzer`, in `dir` when given,
    /// applies `rules` when given, and asks `assessor` when the verdict is `ask`.
    pub fn new(
        analyzer: &Analyzer,
        rules: Option<&CommandRules>,
        cmd: &[u8],
        dir: Option<&Workdir>,
    ) -> Explanation {
        Explanation::with_assessor(analyzer, rules, cmd, dir, None)
    }

    /// [`Explanation::new`] that also asks `assessor` about an `ask` verdict, in `dir`.
    pub fn with_assessor(
        analyzer: &Analyzer,
        rules: Option<&CommandRules>,
        cmd: &[u8],
        dir: Option<&Workdir>,
        assessor: Option<&dyn RiskAssessor>,
    ) -> Explanation {
        Explanation::build(analyzer, rules, None, cmd, dir, assessor)
    }

    /// [`Explanation::with_assessor`] with everything a loaded configuration holds: its
    /// analyser, its command rules, and the Claude Code allow rules it imported, which are
    /// named on what still asks (as `cmdguard check` names them). `explain` uses this.
    ///
    /// ```
    /// use cmdguard::config::ConfigSources;
    /// use cmdguard::integrations::explain::Explanation;
    ///
    /// let config = ConfigSources::built_in().load()?;
    /// let e = Explanation::for_config(&config, b"git status", None, None);
    /// assert_eq!(e.analysis.verdict, cmdguard::Verdict::Allow);
    /// assert!(e.claude_rules.is_empty());
    /// # Ok::<(), cmdguard::ConfigError>(())
    /// ```
    pub fn for_config(
        config: &Config,
        cmd: &[u8],
        dir: Option<&Workdir>,
        assessor: Option<&dyn RiskAssessor>,
    ) -> Explanation {
        let mut e = Explanation::build(
            &config.analyzer,
            Some(&config.command_rules),
            Some(&config.claude_allow),
            cmd,
            dir,
            assessor,
        );
        e.claude_defer = config.claude_defer;
        e
    }

    fn build(
        analyzer: &Analyzer,
        rules: Option<&CommandRules>,
        claude_allow: Option<&CommandRules>,
        cmd: &[u8],
        dir: Option<&Workdir>,
        assessor: Option<&dyn RiskAssessor>,
    ) -> Explanation {
        let (mut analysis, stages) = analyzer.analyze_timed_in(cmd, dir);
        let mut times = Times {
            stages,
            ..Times::default()
        };
        if let Some(rules) = rules {
            let start = Instant::now();
            rules.apply(&mut analysis);
            times.rules = start.elapsed();
        }
        let mut claude_rules = Vec::new();
        if let Some(allow) = claude_allow {
            let start = Instant::now();
            claude_rules = config::name_covering_rules(&mut analysis, allow);
            times.rules += start.elapsed();
        }
        let assessor = match assessor {
            None => AssessorAnswer::NotConfigured,
            Some(_) if analysis.verdict != Verdict::Ask => AssessorAnswer::NotAsked,
            Some(a) => {
                let start = Instant::now();
                let mut request = AssessRequest::new(&analysis.cmd, &analysis);
                if let Some(d) = dir {
                    request = request.in_dir(d.cwd());
                }
                let answer = a.assess(&request);
                times.assess = start.elapsed();
                AssessorAnswer::Answered(answer)
            }
        };
        let origins = analysis
            .findings
            .iter()
            .map(|f| rule_origin(analyzer, &analysis, f))
            .collect();
        Explanation {
            analysis,
            origins,
            assessor,
            claude_rules,
            claude_defer: false,
            times,
        }
    }

    /// The explanation as text with ANSI styles. Write it through `anstream` (as the CLI does),
    /// which drops the styles when the output is not a terminal or `NO_COLOR` is set; or strip
    /// them with `anstream::adapter::strip_str`.
    pub fn render(&self) -> String {
        let a = &self.analysis;
        let mut out = String::new();
        let bold = Style::new().effects(Effects::BOLD);
        let _ = writeln!(
            out,
            "{bold}verdict:{bold:#} {}",
            paint(verdict_style(a.verdict), a.verdict.as_str())
        );
        let _ = writeln!(out, "{bold}command:{bold:#} {}", one_line(&a.cmd));

        let _ = writeln!(out, "\n{bold}segments{bold:#} ({})", a.segments.len());
        for (i, s) in a.segments.iter().enumerate() {
            let at = position(&a.cmd, s.span.start);
            let words: Vec<String> = s.argv.iter().map(|w| quoted(w)).collect();
            let _ = writeln!(out, "  {}. {} (at {at})", i + 1, one_line(&words.join(" ")));
            match &s.matched {
                Some(m) => {
                    let _ = writeln!(
                        out,
                        "     matched {} `{}` from {}",
                        match_kind(m),
                        paint(bold, &m.to_string()),
                        m.rule().origin
                    );
                }
                None => {
                    let _ = writeln!(out, "     matched no rule");
                }
            }
        }

        let _ = writeln!(out, "\n{bold}findings{bold:#} ({})", a.findings.len());
        let renderer = Renderer::styled();
        for (i, f) in a.findings.iter().enumerate() {
            let title = match self.origins.get(i).and_then(Option::as_ref) {
                Some(origin) => format!("{} (from {origin})", f.message),
                None => f.message.clone(),
            };
            let report = [level(f.severity)
                .primary_title(title)
                .id(f.code.as_str())
                .element(
                    Snippet::source(a.cmd.as_str())
                        .path("command")
                        .annotation(AnnotationKind::Primary.span(clamp(&a.cmd, f.span))),
                )];
            let _ = writeln!(out, "{}", renderer.render(&report));
        }

        if !self.claude_rules.is_empty() {
            let mut rules = self.claude_rules.clone();
            rules.dedup();
            let what = if self.claude_defer {
                "a Claude Code hook leaves this command to Claude Code's permissions (`[claude] defer_allow_rules = true`)"
            } else {
                "cmdguard still asks, because it did not see through the command (`[claude] defer_allow_rules = true` in your own config would leave it to Claude Code)"
            };
            let _ = writeln!(
                out,
                "\n{bold}claude code:{bold:#} imported allow rule {} names this command; {what}",
                rules.join(", ")
            );
        }

        let _ = write!(out, "\n{bold}assessor:{bold:#} ");
        let _ = match &self.assessor {
            AssessorAnswer::NotConfigured => writeln!(out, "none configured"),
            AssessorAnswer::NotAsked => writeln!(out, "not asked (it answers `ask` verdicts)"),
            AssessorAnswer::Answered(answer) => {
                let style = match answer.decision {
                    Decision::Allow => verdict_style(Verdict::Allow),
                    Decision::Unsure => verdict_style(Verdict::Ask),
                    Decision::Reject => verdict_style(Verdict::Deny),
                };
                let decision = match answer.decision {
                    Decision::Allow => "allow",
                    Decision::Unsure => "unsure",
                    Decision::Reject => "reject",
                };
                let mut said = paint(style, decision);
                if let Some(kind) = answer.kind {
                    let _ = write!(said, " ({})", kind.as_str());
                }
                if let Some(reason) = &answer.reason {
                    let _ = write!(said, ": {}", one_line(reason));
                }
                writeln!(out, "{said}")
            }
        };

        let t = &self.times;
        let _ = writeln!(
            out,
            "{bold}time:{bold:#} input {:.1?}, parse {:.1?}, segment {:.1?}, check {:.1?}, rules {:.1?}, assess {:.1?}; total {:.1?}",
            t.stages.input,
            t.stages.parse,
            t.stages.segment,
            t.stages.check,
            t.rules,
            t.assess,
            t.total()
        );
        out
    }
}

/// Where the rule that produced `f` was written: the matched rule of its segment, else a deny
/// rule of that id.
fn rule_origin(analyzer: &Analyzer, a: &Analysis, f: &Finding) -> Option<RuleOrigin> {
    let id = f.rule.as_deref()?;
    let from_segment = f
        .segment
        .and_then(|i| a.segments.get(i))
        .and_then(|s| s.matched.as_ref())
        .map(Match::rule)
        .filter(|r| r.id == id)
        .map(|r| r.origin.clone());
    from_segment.or_else(|| analyzer.allowlist().deny_rule(id).map(|r| r.origin))
}

/// The kind of rule a segment matched, in words. A match is not an allow: the findings say
/// what the rule did not permit.
fn match_kind(m: &Match) -> &'static str {
    match m {
        Match::Entry(_) => "allow entry",
        Match::Wrapper { .. } | Match::WrapperOnly(_) => "wrapper",
        Match::Shell { .. } => "shell",
        Match::Builtin(_) => "builtin",
        Match::Test(_) => "test",
    }
}

fn level(v: Verdict) -> Level<'static> {
    match v {
        Verdict::Allow => Level::NOTE,
        Verdict::Ask => Level::WARNING,
        Verdict::Deny => Level::ERROR,
    }
}

fn verdict_style(v: Verdict) -> Style {
    let colour = match v {
        Verdict::Allow => AnsiColor::Green,
        Verdict::Ask => AnsiColor::Yellow,
        Verdict::Deny => AnsiColor::Red,
    };
    colour.on_default().effects(Effects::BOLD)
}

fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// A span as a byte range `annotate-snippets` can take: inside the text, on char boundaries
/// (a finding's span is never trusted to be either: a bad one must not panic here).
fn clamp(src: &str, span: crate::Span) -> Range<usize> {
    let floor = |mut i: usize| {
        i = i.min(src.len());
        while !src.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start);
    start..floor(span.end).max(start)
}

/// `line:column` (1-based, column in characters) of byte `at`.
fn position(src: &str, at: usize) -> String {
    let at = clamp(src, crate::Span::new(at, at)).start;
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{line}:{column}")
}

/// A word as a person would type it: in single quotes when it is empty or holds anything but
/// letters, digits and `-_./=:,+@%^~` (for reading only; the quoting is not meant to be run).
fn quoted(w: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "-_./=:,+@%^~".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Text on one line: newlines as `⏎`, other control characters as `�`, at most 160 characters.
fn one_line(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(160)
        .map(|c| match c {
            '\n' => '⏎',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect();
    if s.chars().nth(160).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_outside_the_text_or_inside_a_character_are_clamped() {
        let s = "aé b";
        assert_eq!(
            clamp(s, crate::Span::new(2, 3)),
            1..3,
            "widened to the whole `é`"
        );
        assert_eq!(clamp(s, crate::Span::new(1, 99)), 1..s.len());
        assert_eq!(clamp(s, crate::Span::new(9, 2)), s.len()..s.len());
        assert_eq!(position("ab\ncé d", 7), "2:4");
    }
}

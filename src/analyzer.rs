//! analyzer: the one reusable object that wires the stages — input, parse, segment, check —
//! into an [`Analysis`], and the only place a verdict is drawn from the findings. It holds no I/O and no global state; share it across threads.
//!
//! It never turns a problem into `allow`: oversized, non-UTF-8 or unparseable input yields
//! findings with an `ask` severity (or `deny` when a deny rule still recognises the text).

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::allowlist::{Allowlist, AllowlistBuilder, ConfigError, ExampleKind};
use crate::budget::Budget;
use crate::check::{self, Analyzed, Checked, Nested, Place, Scope};
use crate::finding::{Code, Finding, Match, RuleOrigin, Span, Verdict};
use crate::input::{self, Admission};
use crate::parse;
use crate::repo::Workdir;
use crate::segment::{self, Segment};

/// Analyses shell commands against an [`Allowlist`].
///
/// ```
/// use cmdguard::{Analyzer, Verdict};
/// let analyzer = Analyzer::default();
/// assert_eq!(analyzer.analyze("git diff --stat | head").verdict, Verdict::Allow);
/// assert_eq!(analyzer.analyze("git diff > patch.txt").verdict, Verdict::Ask);
/// assert_eq!(analyzer.analyze("rm -rf /").verdict, Verdict::Deny);
/// ```
#[derive(Debug, Clone)]
pub struct Analyzer {
    list: Allowlist,
    segmenter: Segmenter,
}

/// How the analyser turns text into segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segmenter {
    /// The fast segmenter (`segment/fast.rs`) where it accepts the text, the parser elsewhere.
    FastThenFull,
    /// Always the parser and the tree walker: the reference the fast segmenter is tested
    /// against.
    FullOnly,
}

/// The result of analysing one command: the library result, the CLI's JSON, and the value
/// tests compare against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The command analysed (lossily decoded when it was not UTF-8).
    pub cmd: String,
    /// The strictest finding's severity; `allow` when there is no finding above `allow`.
    pub verdict: Verdict,
    /// Every reason found, in the order found.
    pub findings: Vec<Finding>,
    /// Every simple command bash could run, in source order, then those of nested scripts.
    pub segments: Vec<AnalyzedSegment>,
}

/// A segment with what the allowlist made of it.
///
/// In JSON, `matched` is the match's short form (`"timeout → git status"`), followed by the
/// matching rule's `rule` id and its `origin` (`"<embedded>:412"`, `"built-in"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzedSegment {
    /// The decoded words.
    pub argv: Vec<String>,
    /// Where the segment is (for segments of nested scripts: the word holding the script).
    pub span: Span,
    /// The allowlist entry, wrapper, shell, builtin or test that matched, if any.
    pub matched: Option<Match>,
    /// Indices into `argv` of words bash only knows at run time.
    pub dynamic: Vec<usize>,
    /// The full segment.
    pub segment: Segment,
}

/// How long each stage of one analysis took, from [`Analyzer::analyze_timed_in`].
///
/// `check` includes the nested scripts (`bash -c`, `eval`, wrappers) and the repository read,
/// since those are analysed from inside the check stage. A stage that did not run (input
/// refused, parse failed) took zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// Input admission: size, encoding, control characters.
    pub input: Duration,
    /// tree-sitter-bash.
    pub parse: Duration,
    /// Tree to segments, words decoded.
    pub segment: Duration,
    /// Segments against the allowlist, deny rules and the repository.
    pub check: Duration,
}

/// Adds each stage's time to a [`StageTimes`] when one is asked for; does nothing (and reads
/// no clock) otherwise, so the untimed path costs one branch per stage.
struct Stopwatch<'a> {
    times: Option<(&'a mut StageTimes, Instant)>,
}

impl Stopwatch<'_> {
    /// Charges the time since the last lap to the stage `pick` chooses.
    fn lap(&mut self, pick: fn(&mut StageTimes) -> &mut Duration) {
        if let Some((times, last)) = &mut self.times {
            let now = Instant::now();
            *pick(times) += now - *last;
            *last = now;
        }
    }
}

impl Serialize for AnalyzedSegment {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// The JSON form: the fields in order, the rule's id and origin beside `matched`.
        #[derive(Serialize)]
        struct Json<'a> {
            argv: &'a [String],
            span: Span,
            matched: Option<&'a Match>,
            #[serde(skip_serializing_if = "Option::is_none")]
            rule: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            origin: Option<&'a RuleOrigin>,
            #[serde(skip_serializing_if = "<[usize]>::is_empty")]
            dynamic: &'a [usize],
            #[serde(flatten)]
            segment: &'a Segment,
        }
        let rule = self.matched.as_ref().map(Match::rule);
        Json {
            argv: &self.argv,
            span: self.span,
            matched: self.matched.as_ref(),
            rule: rule.map(|r| r.id.as_str()),
            origin: rule.map(|r| &r.origin),
            dynamic: &self.dynamic,
            segment: &self.segment,
        }
        .serialize(s)
    }
}

impl Default for Analyzer {
    /// An analyser over the embedded default allowlist.
    fn default() -> Self {
        Analyzer::new(Allowlist::default())
    }
}

impl AllowlistBuilder {
    /// Compiles every rule of every source added, in order, and verifies every `match` /
    /// `not_match` example against the complete list: an example that fails is an error naming
    /// its file, line, column and rule. (Defined here, beside the analyser, because verifying
    /// an example means analysing it.)
    ///
    /// ```
    /// use cmdguard::AllowlistBuilder;
    /// let e = AllowlistBuilder::new()
    ///     .add_toml("[[allow]]\ncommand = \"ls\"\nnot_match = [\"ls -la\"]\n", None)
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!((e.line, e.column, e.key.as_deref()), (3, 14, Some("ls")));
    /// ```
    pub fn build(&self) -> Result<Allowlist, ConfigError> {
        let analyzer = Analyzer::new(self.compile()?);
        analyzer.verify_examples()?;
        Ok(analyzer.list)
    }
}

impl Analyzer {
    /// An analyser over `list` (whose examples [`AllowlistBuilder::build`] verified).
    ///
    /// ```
    /// use cmdguard::{Allowlist, Analyzer, Verdict};
    /// let list = Allowlist::from_toml(
    ///     "[[allow]]\ncommand = \"ls\"\nmatch = [\"ls -la\"]\nnot_match = [\"lsx\"]\n",
    ///     None,
    /// )?;
    /// let analyzer = Analyzer::new(list);
    /// assert_eq!(analyzer.analyze("ls -la").verdict, Verdict::Allow);
    /// # Ok::<(), cmdguard::ConfigError>(())
    /// ```
    pub fn new(list: Allowlist) -> Analyzer {
        Analyzer {
            list,
            segmenter: Segmenter::FastThenFull,
        }
    }

    /// This analyser without the fast segmenter: every command, nested scripts included, goes
    /// through the parser. Its analyses are the reference the fast path must equal; for the
    /// differential tests and the fuzz target, not for callers.
    #[doc(hidden)]
    pub fn without_fast_path(self) -> Analyzer {
        Analyzer {
            segmenter: Segmenter::FullOnly,
            ..self
        }
    }

    /// Whether the fast segmenter takes `cmd` itself (at the top level), for the differential
    /// tests and the benches.
    #[doc(hidden)]
    pub fn fast_path_accepts(&self, cmd: &str) -> bool {
        segment::fast::segment(cmd, &self.budget()).is_some()
    }

    /// The allowlist in use.
    pub fn allowlist(&self) -> &Allowlist {
        &self.list
    }

    /// Runs every example of the allowlist through the analyser.
    fn verify_examples(&self) -> Result<(), ConfigError> {
        for ex in &self.list.examples {
            let a = self.analyze(&ex.command);
            // A stricter profile may raise a code's severity; an `allowed` (or `not denied`)
            // example that only asks (or denies) because of such a raised code still shows the
            // rule itself is right.
            let raised = |f: &Finding| {
                self.list
                    .severity
                    .get(&f.code)
                    .is_some_and(|v| *v > f.code.default_severity())
            };
            // Deny beats allow across files: a site's `[[deny]]` of `make` makes the embedded
            // `make --version` example deny, and that is the site's choice, not an error in
            // either file. Only a deny rule written in another, user-supplied file counts.
            let foreign_deny = |f: &Finding| {
                f.code == Code::Denied
                    && f.rule
                        .as_deref()
                        .and_then(|id| self.list.deny_rule(id))
                        .is_some_and(|r| match r.origin {
                            RuleOrigin::File { path, .. } => {
                                path != ex.at.origin && !path.starts_with("<embedded>")
                            }
                            RuleOrigin::BuiltIn => false,
                        })
            };
            let ok = match ex.kind {
                ExampleKind::Allowed => a
                    .findings
                    .iter()
                    .all(|f| f.severity == Verdict::Allow || raised(f) || foreign_deny(f)),
                ExampleKind::NotAllowed => a.verdict != Verdict::Allow,
                ExampleKind::Denied => a.verdict == Verdict::Deny,
                ExampleKind::NotDenied => {
                    a.verdict != Verdict::Deny
                        || a.findings
                            .iter()
                            .filter(|f| f.severity == Verdict::Deny)
                            .all(|f| raised(f) || foreign_deny(f))
                }
            };
            if !ok {
                let want = match ex.kind {
                    ExampleKind::Allowed => "be allowed",
                    ExampleKind::NotAllowed => "not be allowed",
                    ExampleKind::Denied => "be denied",
                    ExampleKind::NotDenied => "not be denied",
                };
                let why = a
                    .findings
                    .iter()
                    .filter(|f| f.severity >= Verdict::Ask)
                    .map(|f| f.message.as_str())
                    .next()
                    .unwrap_or("no finding");
                let message = format!(
                    "example `{}` of rule `{}` should {want} but is `{}` ({why})",
                    ex.command, ex.rule, a.verdict
                );
                return Err(ConfigError::at(ex.at.clone(), Some(&ex.rule), message));
            }
        }
        Ok(())
    }

    /// Analyses one command. Pure: no file is read (see [`Analyzer::analyze_in`]).
    pub fn analyze(&self, cmd: &str) -> Analysis {
        self.analyze_at(cmd, None)
    }

    /// A fresh work budget for one analysis (see [`crate::Limits`]).
    fn budget(&self) -> Budget {
        Budget::new(&self.list.limits)
    }

    /// Analyses a command given as bytes: anything but valid UTF-8 asks.
    ///
    /// ```
    /// use cmdguard::{Analyzer, Verdict};
    /// let a = Analyzer::default().analyze_bytes(b"ls \xff");
    /// assert_eq!(a.verdict, Verdict::Ask);
    /// assert_eq!(a.findings[0].code, cmdguard::Code::InvalidInput);
    /// ```
    pub fn analyze_bytes(&self, cmd: &[u8]) -> Analysis {
        self.analyze_bytes_at(cmd, None)
    }

    /// Analyses a command that will run in `dir`. On top of [`Analyzer::analyze`], each
    /// allowed git command is checked against the repository it would run in — the one at
    /// `dir`, or where a static `cd` in the line leads — by reading that repository's config
    /// files and hooks (never by running git). A key that makes git run a program
    /// (`[git] program_keys` in the allowlist) is a [`Code::RepoConfig`] finding naming the key
    /// and file; so is a git command after a `cd` to a run-time directory.
    ///
    /// ```
    /// use cmdguard::{Analyzer, Code, Verdict, Workdir};
    /// let dir = std::env::temp_dir().join(format!("cmdguard-doc-{}", std::process::id()));
    /// for sub in ["objects", "refs"] {
    ///     std::fs::create_dir_all(dir.join(".git").join(sub))?;
    /// }
    /// std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n")?;
    /// std::fs::write(dir.join(".git/config"), "[core]\n\tfsmonitor = ./watch.sh\n")?;
    ///
    /// let analyzer = Analyzer::default();
    /// assert_eq!(analyzer.analyze("git status").verdict, Verdict::Allow);
    /// let a = analyzer.analyze_in("git status", &Workdir::new(&dir));
    /// assert_eq!(a.verdict, Verdict::Ask);
    /// assert_eq!(a.findings[0].code, Code::RepoConfig);
    /// assert!(a.findings[0].message.contains("core.fsmonitor"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn analyze_in(&self, cmd: &str, dir: &Workdir) -> Analysis {
        self.analyze_at(cmd, Some(&mut Place::new(dir)))
    }

    /// [`Analyzer::analyze_in`] for a command given as bytes.
    pub fn analyze_bytes_in(&self, cmd: &[u8], dir: &Workdir) -> Analysis {
        self.analyze_bytes_at(cmd, Some(&mut Place::new(dir)))
    }

    /// [`Analyzer::analyze_bytes_in`] (or, without `dir`, [`Analyzer::analyze_bytes`]) that
    /// also measures each stage, for `cmdguard explain` and for profiling. The analysis is the
    /// same as the untimed one; the clock is read a handful of times per call.
    ///
    /// ```
    /// use cmdguard::{Analyzer, Verdict};
    /// let (a, times) = Analyzer::default().analyze_timed_in(b"git status | head", None);
    /// assert_eq!(a.verdict, Verdict::Allow);
    /// assert!(times.parse + times.segment + times.check > std::time::Duration::ZERO);
    /// ```
    pub fn analyze_timed_in(&self, cmd: &[u8], dir: Option<&Workdir>) -> (Analysis, StageTimes) {
        let mut times = StageTimes::default();
        let mut place = dir.map(Place::new);
        let a = self.analyze_bytes_clocked(
            cmd,
            place.as_mut(),
            &mut Stopwatch {
                times: Some((&mut times, Instant::now())),
            },
        );
        (a, times)
    }

    fn analyze_at(&self, cmd: &str, place: Option<&mut Place>) -> Analysis {
        self.analyze_clocked(cmd, place, &mut Stopwatch { times: None })
    }

    fn analyze_clocked(
        &self,
        cmd: &str,
        place: Option<&mut Place>,
        clock: &mut Stopwatch<'_>,
    ) -> Analysis {
        let budget = self.budget();
        let analyzed = self.run(
            cmd,
            Scope {
                depth: 0,
                place,
                budget: &budget,
            },
            clock,
        );
        self.finish(cmd, analyzed)
    }

    fn analyze_bytes_at(&self, cmd: &[u8], place: Option<&mut Place>) -> Analysis {
        self.analyze_bytes_clocked(cmd, place, &mut Stopwatch { times: None })
    }

    fn analyze_bytes_clocked(
        &self,
        cmd: &[u8],
        place: Option<&mut Place>,
        clock: &mut Stopwatch<'_>,
    ) -> Analysis {
        let (text, invalid) = input::decode(cmd);
        clock.lap(|t| &mut t.input);
        let mut a = self.analyze_clocked(&text, place, clock);
        if let Some(f) = invalid {
            a.findings.insert(0, self.list.rate(f));
            a.verdict = Verdict::strictest(a.findings.iter().map(|f| f.severity));
        }
        a
    }

    /// Every stage on `cmd`: the findings and segments, before the verdict is drawn.
    fn run(&self, cmd: &str, scope: Scope<'_>, clock: &mut Stopwatch<'_>) -> Analyzed {
        let limits = self.list.limits;
        let mut raw = Vec::new();
        let admission = input::check(cmd, &limits, &mut raw);
        clock.lap(|t| &mut t.input);
        let mut findings: Vec<Finding> = raw.into_iter().map(|f| self.list.rate(f)).collect();
        if admission == Admission::Refuse {
            self.fallback(cmd, &mut findings);
            return Analyzed {
                findings,
                segments: Vec::new(),
            };
        }
        let budget = scope.budget;
        let depth = scope.depth;
        let level = budget.enter();
        if level.is_none() || !budget.take_bytes(cmd.len()) {
            let why = budget
                .spent()
                .unwrap_or("the analysis ran out of its work budget");
            findings.push(self.list.rate(Finding::new(
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!("{why}; the rest is not analysed"),
            )));
            self.fallback(cmd, &mut findings);
            return Analyzed {
                findings,
                segments: Vec::new(),
            };
        }
        // The common shape needs no parser: the fast segmenter proves the command lies in a
        // grammar subset and yields the walker's very segments, or declines.
        let fast = match self.segmenter {
            Segmenter::FastThenFull => segment::fast::segment(cmd, budget),
            Segmenter::FullOnly => None,
        };
        let script = match fast {
            Some(script) => {
                clock.lap(|t| &mut t.segment);
                script
            }
            None => {
                let parse_time = Duration::from_millis(limits.max_parse_ms).min(budget.time_left());
                let parsed = parse::parse(cmd, parse_time);
                clock.lap(|t| &mut t.parse);
                let tree = match parsed {
                    Ok(tree) => tree,
                    Err(why) => {
                        let message = match why {
                            parse::Unparsed::Budget => {
                                "the command could not be parsed within the work budget"
                            }
                            parse::Unparsed::Hazard => {
                                "a `{` followed by a character past U+00FF crashes the bash grammar's scanner, so the command is not parsed"
                            }
                        };
                        findings.push(self.list.rate(Finding::new(
                            Code::ParseError,
                            Span::new(0, cmd.len()),
                            message,
                        )));
                        self.fallback(cmd, &mut findings);
                        return Analyzed {
                            findings,
                            segments: Vec::new(),
                        };
                    }
                };
                let script = segment::segment(&tree, cmd, budget);
                clock.lap(|t| &mut t.segment);
                script
            }
        };
        let Checked {
            findings: checked,
            matched,
            extra_segments,
        } = check::check(&self.list, self, cmd, &script, scope);
        clock.lap(|t| &mut t.check);
        findings.extend(checked);
        drop(level);
        if depth == 0
            && let Some(why) = budget.spent()
        {
            findings.push(self.list.rate(Finding::new(
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!("{why}; cmdguard stopped before analysing all of it"),
            )));
        }
        if findings.iter().any(|f| {
            matches!(
                f.code,
                Code::ParseError
                    | Code::LimitExceeded
                    | Code::UnsupportedSyntax
                    | Code::ParserMismatch
            )
        }) {
            self.fallback(cmd, &mut findings);
        }
        let segments = script
            .segments
            .into_iter()
            .zip(matched)
            .chain(extra_segments)
            .collect();
        Analyzed { findings, segments }
    }

    /// Deny rules' raw-text patterns, used only when the parse cannot be trusted.
    fn fallback(&self, cmd: &str, findings: &mut Vec<Finding>) {
        if findings.iter().any(|f| f.code == Code::Denied) {
            return;
        }
        for rule in check::fallback_text(&self.list, cmd) {
            let message = format!(
                "{} (rule `{}`, matched in text cmdguard could not fully parse)",
                rule.reason, rule.id
            );
            let f = Finding::new(Code::Denied, Span::new(0, cmd.len()), message).by_rule(&rule.id);
            findings.push(self.list.rate(f));
        }
    }

    fn finish(&self, cmd: &str, Analyzed { findings, segments }: Analyzed) -> Analysis {
        let verdict = Verdict::strictest(findings.iter().map(|f| f.severity));
        let segments = segments
            .into_iter()
            .map(|(segment, matched)| AnalyzedSegment {
                argv: segment.argv(),
                span: segment.span,
                matched,
                dynamic: segment
                    .words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| !w.is_static())
                    .map(|(i, _)| i)
                    .collect(),
                segment,
            })
            .collect();
        Analysis {
            cmd: cmd.to_string(),
            verdict,
            findings,
            segments,
        }
    }
}

impl Nested for Analyzer {
    fn analyze_nested(&self, script: &str, scope: Scope<'_>) -> Analyzed {
        self.run(script, scope, &mut Stopwatch { times: None })
    }
}

//! analyzer: the one reusable object that wires the stages — input checks, parse, segment,
//! check — into an [`Analysis`]. It holds no I/O and no global state; share it across threads.
//!
//! It never turns a problem into `allow`: oversized, non-UTF-8 or unparseable input yields
//! findings with an `ask` severity (or `deny` when a deny rule still recognises the text).

use std::time::Duration;

use serde::Serialize;

use crate::allowlist::{Allowlist, ConfigError, ExampleKind};
use crate::budget::Budget;
use crate::check::{self, Checked, Place};
use crate::finding::{Code, Finding, Span, Verdict};
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnalyzedSegment {
    /// The decoded words.
    pub argv: Vec<String>,
    /// Where the segment is (for segments of nested scripts: the word holding the script).
    pub span: Span,
    /// The allowlist entry, wrapper or shell rule that matched, if any.
    pub matched: Option<String>,
    /// Indices into `argv` of words bash only knows at run time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dynamic: Vec<usize>,
    /// The full segment.
    #[serde(flatten)]
    pub segment: Segment,
}

impl Default for Analyzer {
    /// An analyser over the embedded default allowlist.
    fn default() -> Self {
        Analyzer {
            list: Allowlist::default(),
        }
    }
}

/// Characters that look like spaces but that bash reads as part of a word.
fn is_lookalike_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200b}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

impl Analyzer {
    /// An analyser over `list`, after verifying every `match` / `not_match` example in it.
    ///
    /// ```
    /// use cmdguard::{Allowlist, Analyzer};
    /// let list = Allowlist::from_toml(
    ///     "[[allow]]\ncommand = \"ls\"\nmatch = [\"ls -la\"]\nnot_match = [\"lsx\"]\n",
    ///     None,
    /// )?;
    /// let analyzer = Analyzer::new(list)?;
    /// assert_eq!(analyzer.analyze("ls -la").verdict, cmdguard::Verdict::Allow);
    /// # Ok::<(), cmdguard::ConfigError>(())
    /// ```
    pub fn new(list: Allowlist) -> Result<Analyzer, ConfigError> {
        let analyzer = Analyzer { list };
        analyzer.verify_examples()?;
        Ok(analyzer)
    }

    /// The allowlist in use.
    pub fn allowlist(&self) -> &Allowlist {
        &self.list
    }

    fn verify_examples(&self) -> Result<(), ConfigError> {
        for ex in &self.list.examples {
            let a = self.analyze(&ex.command);
            // A stricter profile may raise a code's severity; an `allowed` example that only
            // asks because of such a raised code still shows the rule itself is right.
            let raised = |f: &Finding| {
                self.list
                    .severity
                    .get(&f.code)
                    .is_some_and(|v| *v > f.code.default_severity())
            };
            let ok = match ex.kind {
                ExampleKind::Allowed => a
                    .findings
                    .iter()
                    .all(|f| f.severity == Verdict::Allow || raised(f)),
                ExampleKind::NotAllowed => a.verdict != Verdict::Allow,
                ExampleKind::Denied => a.verdict == Verdict::Deny,
                ExampleKind::NotDenied => a.verdict != Verdict::Deny,
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
                return Err(ConfigError {
                    origin: ex.at.origin.clone(),
                    line: ex.at.line,
                    column: ex.at.column,
                    key: Some(ex.rule.clone()),
                    message: format!(
                        "example `{}` of rule `{}` should {want} but is `{}` ({why})",
                        ex.command, ex.rule, a.verdict
                    ),
                });
            }
        }
        Ok(())
    }

    /// Analyses one command. Pure: no file is read (see [`Analyzer::analyze_in`]).
    pub fn analyze(&self, cmd: &str) -> Analysis {
        self.analyze_nested(cmd, 0, None, &self.budget())
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
        self.analyze_nested(cmd, 0, Some(&mut Place::new(dir)), &self.budget())
    }

    /// [`Analyzer::analyze_in`] for a command given as bytes.
    pub fn analyze_bytes_in(&self, cmd: &[u8], dir: &Workdir) -> Analysis {
        self.analyze_bytes_at(cmd, Some(&mut Place::new(dir)))
    }

    fn analyze_bytes_at(&self, cmd: &[u8], place: Option<&mut Place>) -> Analysis {
        let budget = self.budget();
        match std::str::from_utf8(cmd) {
            Ok(s) => self.analyze_nested(s, 0, place, &budget),
            Err(e) => {
                let lossy = String::from_utf8_lossy(cmd).into_owned();
                let at = e.valid_up_to();
                let mut a = self.analyze_nested(&lossy, 0, place, &budget);
                a.findings.insert(
                    0,
                    Finding {
                        code: Code::InvalidInput,
                        message: format!("the command is not valid UTF-8 (byte {at}); bash would read bytes cmdguard cannot"),
                        // Spans index `cmd`, the lossy text, where the bad byte became U+FFFD.
                        span: Span::new(at, (at + '\u{fffd}'.len_utf8()).min(lossy.len())),
                        severity: self.list.severity(Code::InvalidInput),
                        segment: None,
                        rule: None,
                    },
                );
                a.verdict = check::verdict(&a.findings);
                a
            }
        }
    }

    /// Analyses `cmd`, a command line (`depth` 0) or a script nested in one, spending `budget`,
    /// which the whole analysis shares. The top level reports a spent budget.
    pub(crate) fn analyze_nested(
        &self,
        cmd: &str,
        depth: usize,
        place: Option<&mut Place>,
        budget: &Budget,
    ) -> Analysis {
        let limits = self.list.limits;
        let mut findings = Vec::new();
        let push = |findings: &mut Vec<Finding>, code: Code, span: Span, message: String| {
            findings.push(Finding {
                code,
                message,
                span,
                severity: self.list.severity(code),
                segment: None,
                rule: None,
            });
        };
        if cmd.len() > limits.max_bytes {
            push(
                &mut findings,
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!(
                    "the command is {} bytes, over the limit of {}",
                    cmd.len(),
                    limits.max_bytes
                ),
            );
            self.fallback(cmd, &mut findings);
            return self.finish(cmd, findings, Vec::new());
        }
        let level = budget.enter();
        if level.is_none() || !budget.take_bytes(cmd.len()) {
            let why = budget
                .spent()
                .unwrap_or("the analysis ran out of its work budget");
            push(
                &mut findings,
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!("{why}; the rest is not analysed"),
            );
            self.fallback(cmd, &mut findings);
            return self.finish(cmd, findings, Vec::new());
        }
        if let Some(p) = cmd.find('\0') {
            push(
                &mut findings,
                Code::InvalidInput,
                Span::new(p, p + 1),
                "the command holds a NUL byte, where bash stops reading".into(),
            );
        }
        if let Some((p, c)) = cmd.char_indices().find(|&(_, c)| {
            (c.is_control() && !matches!(c, '\n' | '\t' | '\0')) || is_lookalike_space(c)
        }) {
            push(
                &mut findings,
                Code::InvalidInput,
                Span::new(p, p + c.len_utf8()),
                format!(
                    "the command holds {:?}, which bash reads as part of a word while a parser may not",
                    c
                ),
            );
        }
        let pipes = cmd.bytes().filter(|b| *b == b'|').count();
        if pipes > limits.max_pipes {
            push(
                &mut findings,
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!(
                    "the command has {pipes} `|` characters, over the limit of {}",
                    limits.max_pipes
                ),
            );
            self.fallback(cmd, &mut findings);
            return self.finish(cmd, findings, Vec::new());
        }
        let parse_time = Duration::from_millis(limits.max_parse_ms).min(budget.time_left());
        let Some(tree) = parse::parse(cmd, parse_time) else {
            push(
                &mut findings,
                Code::ParseError,
                Span::new(0, cmd.len()),
                "the command could not be parsed within the work budget".into(),
            );
            self.fallback(cmd, &mut findings);
            return self.finish(cmd, findings, Vec::new());
        };
        let script = segment::segment(&tree, cmd, budget);
        let Checked {
            findings: checked,
            matched,
            extra_segments,
        } = check::check(self, cmd, &script, depth, place, budget);
        findings.extend(checked);
        drop(level);
        if depth == 0
            && let Some(why) = budget.spent()
        {
            push(
                &mut findings,
                Code::LimitExceeded,
                Span::new(0, cmd.len()),
                format!("{why}; cmdguard stopped before analysing all of it"),
            );
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
        self.finish(cmd, findings, segments)
    }

    /// Deny rules' raw-text patterns, used only when the parse cannot be trusted.
    fn fallback(&self, cmd: &str, findings: &mut Vec<Finding>) {
        if findings.iter().any(|f| f.code == Code::Denied) {
            return;
        }
        for rule in check::fallback_text(&self.list, cmd) {
            findings.push(Finding {
                code: Code::Denied,
                message: format!(
                    "{} (rule `{}`, matched in text cmdguard could not fully parse)",
                    rule.reason, rule.id
                ),
                span: Span::new(0, cmd.len()),
                severity: self.list.severity(Code::Denied),
                segment: None,
                rule: Some(rule.id.clone()),
            });
        }
    }

    fn finish(
        &self,
        cmd: &str,
        findings: Vec<Finding>,
        segments: Vec<(Segment, Option<String>)>,
    ) -> Analysis {
        let verdict = check::verdict(&findings);
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

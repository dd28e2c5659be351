//! check: stage 3 — judges segments and syntax events against the allowlist and produces
//! [`Finding`]s. Every rule names its finding code; the verdict is the strictest finding.
//!
//! The default answer of every classifier here is "not safe": a program is allowed only when an
//! entry matches it and every argument rule passes. It never parses text itself: a nested
//! `bash -c` script or `eval` text goes back through the whole pipeline by way of the
//! [`Nested`] trait the caller hands in, so the fail-closed walker stays the one source of
//! segments and `check` never imports the analyser above it.

mod args;
mod awk;
mod awk_program;
mod deny;
mod dialect;
mod git;
mod interp;
mod redirect;
mod script_text;
mod sed;
mod sed_script;
mod sensitive;
pub(crate) mod vars;
mod wrap;

use std::collections::{HashMap, HashSet};

use crate::allowlist::{Allowlist, ArgsMode, Checker, Entry};
use crate::budget::Budget;
use crate::finding::{Code, Finding, Match, Rule, Span, Verdict};
use crate::segment::{Event, Nest, Script, Segment, SegmentKind, Word};

pub(crate) use self::args::{Arg, names, parse as parse_args, parse_table};
pub(crate) use self::deny::{DenyIndex, fallback_text};
pub(crate) use self::dialect::Dialect;
pub(crate) use self::git::Place;

/// How `check` looks inside a nested script (`bash -c '…'`, `eval`): the whole pipeline run
/// again on the script's text. The analyser implements it and hands itself in, so the
/// dependency runs one way (analyzer → check) while nested scripts still get every stage.
pub(crate) trait Nested {
    /// Analyses `script` one level deeper than the script holding it.
    fn analyze_nested(&self, script: &str, scope: Scope<'_>) -> Analyzed;
}

/// What a nested analysis inherits from the script that holds it. Whatever else must be
/// shared across levels (a work budget) belongs here too.
pub(crate) struct Scope<'a> {
    /// Nesting of `bash -c`/`eval` scripts: 0 for the command itself.
    pub depth: usize,
    /// Where the commands run, when the analysis was given a working directory.
    pub place: Option<&'a mut Place>,
    /// The work the whole analysis may still do, shared by every level.
    pub budget: &'a Budget,
}

/// Everything a script's analysis found: its findings, then its segments (its own in source
/// order, then those of its nested scripts) with what matched each.
pub(crate) struct Analyzed {
    pub findings: Vec<Finding>,
    pub segments: Vec<(Segment, Option<Match>)>,
}

/// What checking one script produced.
pub(crate) struct Checked {
    pub findings: Vec<Finding>,
    /// For each segment, the allowlist entry (or wrapper/shell description) that matched it.
    pub matched: Vec<Option<Match>>,
    /// Segments found inside nested scripts (`bash -c`, `eval`), appended after the script's own.
    pub extra_segments: Vec<(Segment, Option<Match>)>,
}

pub(crate) struct Ctx<'a> {
    pub nested: &'a dyn Nested,
    pub list: &'a Allowlist,
    pub src: &'a str,
    pub script: &'a Script,
    pub depth: usize,
    /// The work the whole analysis may still do.
    pub budget: &'a Budget,
    pub functions: HashSet<String>,
    pub findings: Vec<Finding>,
    pub matched: Vec<Option<Match>>,
    pub extra_segments: Vec<(Segment, Option<Match>)>,
    /// Where the commands run, when the analysis was given a working directory.
    pub place: Option<&'a mut Place>,
    /// `cd` commands checked but not yet in effect: segments inside their words (`cd $(…)`)
    /// run before them. Each with the end of its segment.
    pub pending_cd: Vec<(usize, Vec<Word>)>,
    /// The command's own counters (check/vars.rs `own_counter`), judged once per name: from
    /// where on each surely holds an integer, or `None` when it is not one.
    pub counters: HashMap<String, Option<usize>>,
}

/// The programs that fetch from the network, for the download-to-interpreter rule.
pub(crate) const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "lwp-request",
];

/// Interpreters that run what they are given.
pub(crate) const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "python", "python2",
    "python3", "perl", "ruby", "node", "php", "lua", "pwsh", "eval", "source", ".",
];

/// Checks a segmented script against `list`; nested scripts go through `nested`.
pub(crate) fn check(
    list: &Allowlist,
    nested: &dyn Nested,
    src: &str,
    script: &Script,
    scope: Scope<'_>,
) -> Checked {
    let mut cx = Ctx {
        nested,
        list,
        src,
        script,
        depth: scope.depth,
        budget: scope.budget,
        functions: HashSet::new(),
        findings: Vec::new(),
        matched: vec![None; script.segments.len()],
        extra_segments: Vec::new(),
        place: scope.place,
        pending_cd: Vec::new(),
        counters: HashMap::new(),
    };
    // A redirect tree-sitter hangs on a whole list (`cd ~/.aws && cat < credentials`) is read
    // by a command after the list's `cd`s: it is judged once they are all applied (the set of
    // directories only grows, so it holds the one the redirect opens in).
    let compound = |e: &Event| matches!(e, Event::CompoundRedirect(_));
    for (event, span) in script.events.iter().filter(|(e, _)| !compound(e)) {
        cx.event(event, *span);
    }
    git::prepare(&mut cx);
    sensitive::case_subjects(&mut cx);
    for (i, seg) in script.segments.iter().enumerate() {
        // A spent budget is reported by the analyser; deny rules already matched still deny.
        if !cx.budget.ok() {
            break;
        }
        git::before_segment(&mut cx, i, seg.span);
        cx.segment(i, seg);
    }
    git::after_script(&mut cx);
    for (event, span) in script.events.iter().filter(|(e, _)| compound(e)) {
        git::before_compound_redirect(&mut cx, *span);
        cx.event(event, *span);
    }
    deny::structural(&mut cx);
    Checked {
        findings: cx.findings,
        matched: cx.matched,
        extra_segments: cx.extra_segments,
    }
}

impl Ctx<'_> {
    /// Records a finding no rule produced (a syntax event, an unknown program).
    pub(crate) fn push(&mut self, code: Code, span: Span, segment: Option<usize>, message: String) {
        self.report(Finding::new(code, span, message).in_segment(segment));
    }

    /// Records a finding the allowlist rule with id `rule` produced.
    pub(crate) fn push_rule(
        &mut self,
        code: Code,
        span: Span,
        segment: Option<usize>,
        message: String,
        rule: &str,
    ) {
        self.report(
            Finding::new(code, span, message)
                .in_segment(segment)
                .by_rule(rule),
        );
    }

    /// Records `finding` with the severity the allowlist gives its code.
    pub(crate) fn report(&mut self, finding: Finding) {
        self.report_at_least(finding, Verdict::Allow);
    }

    /// Records `finding` with the severity the allowlist gives its code, or `floor` when the
    /// rule that produced it asks for more.
    pub(crate) fn report_at_least(&mut self, finding: Finding, floor: Verdict) {
        let f = self.list.rate_at_least(finding, floor);
        self.findings.push(f);
    }

    fn snippet(&self, span: Span) -> String {
        let t = self.src.get(span.start..span.end).unwrap_or("");
        let mut s: String = t.chars().take(60).collect();
        if t.chars().count() > 60 {
            s.push('…');
        }
        s
    }

    fn event(&mut self, event: &Event, span: Span) {
        if *event == Event::Arithmetic && vars::own_counter(self, span) {
            return;
        }
        let snippet = || self.snippet(span);
        let (code, message) = match event {
            Event::Background => (
                Code::Operator,
                "`&` runs a command in the background, beyond the reach of a prompt".to_string(),
            ),
            Event::PipeBoth => (
                Code::Operator,
                "`|&` is not one of the plain operators `; && || |`".to_string(),
            ),
            Event::Newline => (Code::Newline, "commands separated by a newline".to_string()),
            Event::Backtick => (
                Code::Backtick,
                format!("backquoted command substitution `{}`", snippet()),
            ),
            Event::ParseError => (
                Code::ParseError,
                format!(
                    "syntax error near `{}`: bash may read this command differently",
                    snippet()
                ),
            ),
            Event::Missing(kind) => (
                Code::ParseError,
                format!(
                    "the command ends before a closing `{kind}`: bash would not run it as written"
                ),
            ),
            Event::Unsupported(what) => (
                Code::UnsupportedSyntax,
                format!("cmdguard does not analyse {what} (`{}`)", snippet()),
            ),
            Event::Mismatch(what) => (
                Code::ParserMismatch,
                format!(
                    "{what}: the parser and bash may disagree about `{}`",
                    snippet()
                ),
            ),
            Event::Arithmetic => (
                Code::Arithmetic,
                format!(
                    "arithmetic on `{}` evaluates a value as an expression, which can run commands through array subscripts",
                    snippet()
                ),
            ),
            Event::EvaluatedExpansion => (
                Code::EvaluatedExpansion,
                format!(
                    "`{}` evaluates a variable's value, which can run commands",
                    snippet()
                ),
            ),
            Event::HeredocStripTabs => (
                Code::HeredocStripTabs,
                "`<<-` heredoc: where a tab-indented body ends is a known parser disagreement"
                    .to_string(),
            ),
            Event::ExpansionAssignment(name) => {
                let construct = format!("`{}`", snippet());
                sensitive::for_list(self, span);
                return vars::assign(
                    self,
                    None,
                    name,
                    vars::Given::Unknown,
                    span,
                    vars::Scope::Shell,
                    &construct,
                );
            }
            Event::Limit(what) => (
                Code::LimitExceeded,
                format!("{what}; the rest is not analysed"),
            ),
            Event::FunctionDefinition(name) => {
                self.functions.insert(name.clone());
                return;
            }
            Event::CompoundRedirect(r) => return redirect::check(self, r, None),
        };
        self.push(code, span, None, message);
    }

    fn segment(&mut self, i: usize, seg: &Segment) {
        sensitive::secret_variables(self, i, seg);
        sensitive::secret_printers(self, i, seg);
        for r in &seg.redirects {
            redirect::check(self, r, Some(i));
        }
        for r in &seg.redirects {
            vars::named_descriptor(self, Some(i), r);
        }
        for a in &seg.assignments {
            let prefix = seg.kind == SegmentKind::Command;
            vars::segment_assignment(self, i, a, prefix);
            if prefix && a.value.expansions.substitution() {
                self.push(
                    Code::Assignment,
                    a.span,
                    Some(i),
                    format!(
                        "environment prefix `{}` takes its value from a substitution",
                        a.name
                    ),
                );
            }
        }
        match seg.kind {
            SegmentKind::Assignments => {}
            SegmentKind::Test => {
                self.matched[i] = seg
                    .words
                    .first()
                    .map(|w| Match::Test(Rule::built_in(&w.text)));
                test_operands(
                    self,
                    i,
                    &seg.words,
                    seg.words.first().is_some_and(|w| w.text == "[["),
                );
                if seg.words.first().is_some_and(|w| w.text == "[") {
                    vars::runtime_test_operator(self, i, &seg.words);
                }
            }
            SegmentKind::Command => {
                let m = self.command(i, seg.span, &seg.words, Origin::Segment(seg));
                self.matched[i] = m;
                git::after_segment(self, seg);
            }
        }
    }

    /// Checks a command's words (a segment's, or what a wrapper runs). Returns what matched.
    pub(crate) fn command(
        &mut self,
        i: usize,
        span: Span,
        words: &[Word],
        origin: Origin<'_>,
    ) -> Option<Match> {
        let first = words.first()?;
        // Wrappers and `find -exec` recurse through here: the shared depth limit bounds them.
        let Some(_level) = self.budget.enter() else {
            let why = self
                .budget
                .spent()
                .unwrap_or("the analysis ran out of its work budget");
            self.push(
                Code::LimitExceeded,
                first.span,
                Some(i),
                format!("`{}` is not analysed: {why}", first.text),
            );
            let src = self.src;
            deny::fallback(self, i, span, src.get(span.start..span.end).unwrap_or(""));
            return None;
        };
        deny::command(self, i, span, words, origin);
        let Some(text) = first.static_text() else {
            self.push(
                Code::DynamicCommand,
                first.span,
                Some(i),
                format!(
                    "the program to run, `{}`, is only known at run time",
                    first.text
                ),
            );
            return None;
        };
        // Interpreter one-liners (`python -c`, `node -e`, heredocs) deny what their code
        // would destroy, whatever path names the interpreter (`/opt/py/bin/python3`). The
        // `interpreters` pack turns this off (`[packs] disable`); the one-liners still ask.
        if self.list.pack_enabled("interpreters") {
            interp::check(self, i, text, words);
        }
        let name = self.resolve(i, first, text)?;
        // A function may be named by a path too (`/bin/ls() { …; }; /bin/ls`).
        if self.functions.contains(name) || self.functions.contains(text) {
            self.push(
                Code::FunctionCall,
                first.span,
                Some(i),
                format!("`{name}` calls a shell function defined in this command, not the program"),
            );
            return None;
        }
        vars::builtin(self, i, name, words);
        if name == "test" {
            vars::runtime_test_operator(self, i, words);
        }
        // Keys past the longest entry for the program match nothing; stopping there keeps a
        // chain of wrappers from reading the rest of the line at every level.
        let longest = self
            .list
            .entries
            .get(name)
            .and_then(|es| es.iter().map(|e| e.words.len()).max())
            .unwrap_or(1);
        let mut keys: Vec<&str> = Vec::with_capacity(longest + 1);
        keys.push(name);
        let harmless = self
            .list
            .programs
            .get(name)
            .map(|p| p.harmless.as_slice())
            .unwrap_or(&[]);
        let mut skipped = 0;
        // `git -C DIR`: the directories git changes to, in order; its repository is checked.
        let mut chdirs: Vec<&Word> = Vec::new();
        let mut k = 1;
        while let Some(w) = words.get(k) {
            k += 1;
            // One past the longest entry: `describe` and the global-option message read it.
            if keys.len() > longest {
                break;
            }
            match w.static_text() {
                Some(t) if keys.len() == 1 && harmless.iter().any(|h| h == t) => skipped += 1,
                Some("-C") if keys.len() == 1 && name == "git" => match words.get(k) {
                    Some(dir) if git::chdir_operand(self, i, dir) => {
                        chdirs.push(dir);
                        skipped += 2;
                        k += 1;
                    }
                    _ => {
                        keys.push("-C");
                        break;
                    }
                },
                Some(t) => keys.push(t),
                None => break,
            }
        }
        // The allowlist outlives `self`: borrow the entry from it rather than clone it (an
        // entry's option table is the largest thing a check touches).
        let list = self.list;
        if let Some(entry) = list.lookup(&keys) {
            let rest = &words[entry.words.len() + skipped..];
            self.entry_rules(i, entry, rest, words, span);
            match name {
                "git" => git::check_repository(self, i, first.span, &chdirs),
                "cargo" | "rustc" => git::check_toolchain_file(self, i, first.span, name),
                _ => {}
            }
            return Some(Match::Entry(entry.rule()));
        }
        if let Some(m) = wrap::wrapper(self, i, span, name, words) {
            return Some(m);
        }
        if let Some(m) = wrap::shell(self, i, span, name, words, origin) {
            return Some(m);
        }
        if let Some(m) = wrap::builtin(self, i, span, name, words) {
            return Some(m);
        }
        // A global option of a program with subcommands (`git -C dir status`) is why no
        // entry matched: say so, rather than name a command nobody typed.
        let global = self.list.programs.get(name).and_then(|p| {
            let opt = keys.get(1)?;
            let bare = opt.split_once('=').map_or(*opt, |(o, _)| o);
            (p.flags.iter().chain(&p.value_options).any(|o| o == bare)
                || (bare.len() > 2
                    && !bare.starts_with("--")
                    && p.value_options
                        .iter()
                        .any(|o| o.len() == 2 && bare.starts_with(o.as_str()))))
            .then_some(*opt)
        });
        let message = match global {
            Some(opt) => format!(
                "`{name}` global option `{opt}` is not allowed: options before the subcommand can pick another repository, config or program"
            ),
            None => format!("`{}` is not in the allowlist", self.describe(&keys)),
        };
        self.push(Code::NotAllowlisted, first.span, Some(i), message);
        None
    }

    /// Maps a command word to the name the allowlist knows it by: `/usr/bin/ls` is `ls`.
    fn resolve<'t>(&mut self, i: usize, w: &Word, text: &'t str) -> Option<&'t str> {
        if !text.contains('/') {
            return Some(text);
        }
        let (dir, base) = text.rsplit_once('/').unwrap_or(("", text));
        let dir = if dir.is_empty() { "/" } else { dir };
        if !base.is_empty() && self.list.system_dirs.iter().any(|d| d == dir) {
            self.push(
                Code::SystemPath,
                w.span,
                Some(i),
                format!("`{text}` is given by its path in a system directory"),
            );
            return Some(base);
        }
        self.push(
            Code::UnusualPath,
            w.span,
            Some(i),
            format!("`{text}` runs a program outside the standard system directories"),
        );
        None
    }

    fn entry_rules(&mut self, i: usize, entry: &Entry, rest: &[Word], all: &[Word], span: Span) {
        let (parsed, operands_from) = match entry.options.as_ref().map(|t| t.get()) {
            Some(Some(table)) => {
                let p = parse_table(rest, table);
                (p.args, p.operands_from)
            }
            // An embedded table that does not compile (a test rules it out): no entry at all.
            Some(None) => {
                self.push(
                    Code::NotAllowlisted,
                    span,
                    Some(i),
                    format!("the option table of rule `{}` does not compile", entry.name),
                );
                return;
            }
            None => (parse_args(rest, &entry.spec), rest.len()),
        };
        for (k, w) in rest.iter().enumerate() {
            // A process substitution becomes a `/dev/fd/N` path: never an option.
            let e = w.expansions;
            if w.is_static() || (e.process && !(e.parameter || e.command || e.arithmetic || e.glob))
            {
                continue;
            }
            // `cd "$HOME"` goes where `cd ~` goes, `cd "$PWD"` stays (check/git.rs follows
            // them there).
            if entry.name == "cd"
                && (vars::home_relative(w).is_some() || git::known_cd_operand(self.src, w))
            {
                continue;
            }
            // Past `--` (or an options-first program's first operand) a run-time word can only
            // be an operand, and so can a glob that cannot expand to an option: unless a checker
            // reads operands as a script, the first operand is a program (`jq`'s filter can
            // print the environment), or the entry counts or shapes its operands (an unquoted
            // word or a glob can become several), it names files.
            let operand_only = k >= operands_from || glob_without_options(self, w);
            let mode = match entry.args {
                ArgsMode::Restricted
                    if operand_only
                        && !PROGRAM_OPERAND.contains(&entry.name.as_str())
                        && entry.checker.is_none()
                        && entry.operand_pattern.is_none()
                        && entry.max_operands.is_none() =>
                {
                    ArgsMode::Files
                }
                mode => mode,
            };
            match mode {
                ArgsMode::Inert => {}
                // A substitution's output names files like a parameter's value does when it
                // stays one word (`"$(pwd)"`) or can only be an operand (past `--`). Unquoted
                // before `--`, bash splits and globs output cmdguard never sees into any
                // number of words; that asks (the seed corpus: `cat $(echo f)`).
                ArgsMode::Files
                    if w.expansions.substitution()
                        && !(k >= operands_from || vars::fully_double_quoted(self.src, w)) =>
                {
                    self.push_rule(
                    Code::SubstitutedArgument,
                    w.span,
                    Some(i),
                    format!(
                        "the output of `{}` becomes arguments of `{}`: unquoted, it can split into any words, options included (quote it, or put it after `--`)",
                        w.text, entry.name
                    ),
                    &entry.name,
                    )
                }
                ArgsMode::Files => {}
                ArgsMode::Restricted => self.push_rule(
                    Code::DynamicArgument,
                    w.span,
                    Some(i),
                    format!(
                        "`{}` is only known at run time and could become any option of `{}`",
                        w.text, entry.name
                    ),
                    &entry.name,
                ),
            }
        }
        let mut operands = 0;
        for a in &parsed {
            match a {
                Arg::Refused { reason, word } => self.push_rule(
                    Code::ForbiddenArgument,
                    rest[*word].span,
                    Some(i),
                    format!("`{}` {reason}", entry.name),
                    &entry.name,
                ),
                Arg::Opt { name, word, .. } => {
                    let forbidden = entry.forbid.iter().find(|f| names(name, f));
                    let unlisted = entry
                        .only_options
                        .as_ref()
                        .is_some_and(|only| !only.iter().any(|o| names(name, o)));
                    if let Some(f) = forbidden {
                        self.push_rule(
                            Code::ForbiddenArgument,
                            rest[*word].span,
                            Some(i),
                            format!(
                                "`{}` option `{f}` can write files or run programs",
                                entry.name
                            ),
                            &entry.name,
                        );
                    } else if unlisted {
                        self.push_rule(
                            Code::ForbiddenArgument,
                            rest[*word].span,
                            Some(i),
                            format!(
                                "`{name}` is not one of the options allowed for `{}`",
                                entry.name
                            ),
                            &entry.name,
                        );
                    }
                }
                Arg::Operand { text, word } => {
                    operands += 1;
                    if let Some(re) = &entry.operand_pattern
                        && !re.is_match(text)
                    {
                        self.push_rule(
                            Code::ForbiddenArgument,
                            rest[*word].span,
                            Some(i),
                            format!(
                                "`{}` operand `{text}` is not of a permitted form (`{}`)",
                                entry.name,
                                re.as_str()
                            ),
                            &entry.name,
                        );
                    }
                }
                Arg::Dynamic { .. } => operands += 1,
            }
        }
        if let Some(min) = entry.min_operands
            && operands < min
        {
            self.push_rule(
                Code::ForbiddenArgument,
                span,
                Some(i),
                format!("`{}` needs at least {min} operand(s) here", entry.name),
                &entry.name,
            );
        }
        if let Some(max) = entry.max_operands
            && operands > max
        {
            self.push_rule(
                Code::ForbiddenArgument,
                span,
                Some(i),
                format!(
                    "`{}` takes at most {max} operand(s) here; more can name an output file",
                    entry.name
                ),
                &entry.name,
            );
        }
        match entry.checker {
            None => {}
            Some(Checker::Sed) => sed::check_args(self, i, entry, rest, &parsed),
            Some(Checker::Awk) => awk::check_args(self, i, entry, rest, &parsed),
            Some(Checker::Find) => deny::find_exec(self, i, rest, &parsed),
            Some(Checker::Test) => test_operands(self, i, all, false),
            Some(Checker::GitFormat) => git_format(self, i, entry, rest, &parsed),
        }
        sensitive::entry(self, i, entry, rest, &parsed);
    }

    /// Runs a nested script (`bash -c`, `eval`) through the whole analyser and folds its
    /// findings in at `at`, the span of the word holding the script.
    pub(crate) fn nested(&mut self, i: usize, at: Span, what: &str, script: &str) {
        if self.depth + 1 > self.list.limits.max_script_depth {
            self.push(
                Code::LimitExceeded,
                at,
                Some(i),
                format!(
                    "{what} nests scripts deeper than the limit of {}",
                    self.list.limits.max_script_depth
                ),
            );
            deny::fallback(self, i, at, script);
            return;
        }
        let scope = Scope {
            depth: self.depth + 1,
            place: self.place.as_deref_mut(),
            budget: self.budget,
        };
        let inner = self.nested.analyze_nested(script, scope);
        // The nested analysis rated its findings already; they move to the word holding the
        // script, keeping code, severity and rule.
        for mut f in inner.findings {
            f.message = format!("in {what}: {}", f.message);
            f.span = at;
            self.findings.push(f.in_segment(i));
        }
        // A function defined in nested text (`eval 'ls(){ git status; }'`) can stand in for a
        // program in the commands after it, with a body checked out of order.
        if inner
            .segments
            .iter()
            .any(|(s, _)| s.nesting.contains(&Nest::Function))
        {
            self.push(
                Code::FunctionCall,
                at,
                Some(i),
                format!("{what} defines a shell function, which later commands may call in place of a program"),
            );
        }
        for (mut seg, matched) in inner.segments {
            seg.span = at;
            for w in &mut seg.words {
                w.span = at;
            }
            self.extra_segments.push((seg, matched));
        }
    }
}

/// Entries whose first operand is a program in a language that reads more than the files it
/// is given (`jq`'s `env` / `$ENV`): a run-time word asks there even past `--`.
const PROGRAM_OPERAND: &[&str] = &["jq"];

/// A word only pathname expansion changes (no parameter, no substitution, so no splitting)
/// that cannot become an option: it starts with a literal other than `-` and glob characters
/// (`./*`, `src/*.rs`), or every entry of the working directory is known not to start with
/// `-` (`*`; see check/git.rs `no_dash_entries`, and its note on files created later). When
/// nothing matches, bash passes the pattern itself, which does not start with `-` either.
fn glob_without_options(cx: &Ctx<'_>, w: &Word) -> bool {
    let e = w.expansions;
    if !e.glob || e.parameter || e.command || e.process || e.arithmetic {
        return false;
    }
    match w.text.bytes().next() {
        None | Some(b'-') => false,
        Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'_') => true,
        Some(_) => git::no_dash_entries(cx),
    }
}

/// The first operand of a program that takes its script there (`sed`, `awk`): its text and
/// span when static. A missing one is a finding (`what` names it); a dynamic one was already
/// reported as a dynamic argument.
fn script_operand<'w>(
    cx: &mut Ctx<'_>,
    i: usize,
    entry: &Entry,
    rest: &[Word],
    parsed: &[Arg<'w>],
    what: &str,
) -> Option<(&'w str, Span)> {
    match parsed
        .iter()
        .find(|a| !matches!(a, Arg::Opt { .. } | Arg::Refused { .. }))
    {
        Some(Arg::Operand { text, word }) => Some((text, rest[*word].span)),
        Some(Arg::Dynamic { .. } | Arg::Opt { .. } | Arg::Refused { .. }) => None,
        None => {
            cx.push_rule(
                Code::ForbiddenArgument,
                rest.first().map(|w| w.span).unwrap_or_default(),
                Some(i),
                format!("`{}` without a {what}", entry.name),
                &entry.name,
            );
            None
        }
    }
}

/// Where the words being checked came from.
#[derive(Clone, Copy)]
pub(crate) enum Origin<'s> {
    /// A segment of the script.
    Segment(&'s Segment),
    /// The inner command of a wrapper.
    Wrapped,
    /// The inner command of a wrapper or `find -exec` that is a run of the outer command's own
    /// words: their mentions of denied commands were read with the outer command's.
    Tail,
}

impl Origin<'_> {
    pub(crate) fn segment(&self) -> Option<&Segment> {
        match self {
            Origin::Segment(s) => Some(s),
            Origin::Wrapped | Origin::Tail => None,
        }
    }
}

impl Ctx<'_> {
    /// The program, plus as many following words as the longest entry for it has.
    fn describe(&self, keys: &[&str]) -> String {
        let n = self
            .list
            .entries
            .get(keys[0])
            .and_then(|es| es.iter().map(|e| e.words.len()).max())
            .unwrap_or(1);
        describe(&keys[..n.min(keys.len())])
    }
}

fn describe(keys: &[&str]) -> String {
    let mut s = String::new();
    for (n, k) in keys.iter().enumerate() {
        if n > 0 {
            s.push(' ');
        }
        s.push_str(k);
    }
    s
}

/// `[[ ]]` evaluates operands of arithmetic comparisons as expressions; `-v`/`-R` (also in `[`
/// and `test`) evaluate array subscripts. Either can run a command substitution hidden in a
/// value, even a single-quoted one.
fn test_operands(cx: &mut Ctx<'_>, i: usize, words: &[Word], double_bracket: bool) {
    const ARITH: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
    let plain_int = |w: &Word| {
        w.static_text().is_some_and(|t| {
            let t = t.strip_prefix(['-', '+']).unwrap_or(t);
            !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
        })
    };
    for (k, w) in words.iter().enumerate() {
        let Some(op) = w.static_text() else { continue };
        if double_bracket && ARITH.contains(&op) {
            for side in [k.checked_sub(1), Some(k + 1)].into_iter().flatten() {
                if let Some(o) = words.get(side)
                    && !plain_int(o)
                {
                    cx.push(
                        Code::Arithmetic,
                        o.span,
                        Some(i),
                        format!(
                            "`[[ … {op} … ]]` evaluates `{}` as an arithmetic expression",
                            o.text
                        ),
                    );
                }
            }
        }
        if (op == "-v" || op == "-R")
            && let Some(o) = words.get(k + 1)
            && (!o.is_static() || o.text.contains('['))
        {
            {
                cx.push(
                    Code::Arithmetic,
                    o.span,
                    Some(i),
                    format!("`{op} {}` evaluates an array subscript", o.text),
                );
            }
        }
    }
}

/// `--format` / `--pretty` values of git's log family and ref listings: `%G…` placeholders
/// (`%G?`, `%GS`, `%GK`) and `%(signature…)` atoms make git run gpg, ssh-keygen or gpgsm on
/// signatures the repository holds.
fn git_format(cx: &mut Ctx<'_>, i: usize, entry: &Entry, rest: &[Word], parsed: &[Arg<'_>]) {
    for a in parsed {
        if let Arg::Opt {
            name,
            value: Some(v),
            word,
        } = a
            && (((names(name, "--format") || names(name, "--pretty")) && verifies_signatures(v))
                // A ref-filter sort key is an atom too: `--sort=signature` verifies.
                || (names(name, "--sort") && v.to_ascii_lowercase().contains("signature")))
        {
            cx.push_rule(
                Code::ForbiddenArgument,
                rest[*word].span,
                Some(i),
                format!(
                    "`{v}` makes `{}` verify signatures with an external program",
                    entry.name
                ),
                &entry.name,
            );
        }
    }
}

/// Whether a git format holds a placeholder that verifies signatures: `%G…` and
/// `%(signature…)`, also behind the `+`, `-` and space modifiers (`%+G?`, `% G?`).
fn verifies_signatures(format: &str) -> bool {
    let b = format.as_bytes();
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'%' {
            k += 1;
            continue;
        }
        if b.get(k + 1) == Some(&b'%') {
            k += 2; // a literal `%`
            continue;
        }
        let mut p = k + 1;
        if matches!(b.get(p), Some(b'+' | b'-' | b' ')) {
            p += 1;
        }
        if b.get(p) == Some(&b'G') || b[p.min(b.len())..].starts_with(b"(signature") {
            return true;
        }
        k = p;
    }
    false
}

/// True when the segment is nested in a substitution or heredoc of `outer`'s word.
pub(crate) fn inside(inner: &Segment, outer: &Segment) -> bool {
    inner.span.start >= outer.span.start
        && inner.span.end <= outer.span.end
        && inner.nesting.len() > outer.nesting.len()
        && inner
            .nesting
            .iter()
            .any(|n| matches!(n, Nest::CommandSubstitution | Nest::ProcessSubstitution))
}

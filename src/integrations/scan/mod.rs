//! scan: `cmdguard scan` — finds the shell commands in files people commit (shell scripts,
//! Dockerfile `RUN`, GitHub Actions `run:` steps, Makefile recipes, `package.json` scripts),
//! hands each to an analyser and reports every finding at the file's own line and column.
//!
//! Each extractor (one file per format) turns a file into [`Piece`]s: the text a shell would
//! run, with the file offset every byte came from. This module analyses the pieces, splits each
//! into its top-level commands and maps the findings back. It never decides safety itself,
//! except that text it cannot see through asks: a `${{ }}` expression or a make variable pasted
//! into the script before the shell reads it, a shell other than bash or sh, a file it cannot
//! parse.

mod actions;
mod dockerfile;
mod json;
mod makefile;
mod package_json;
pub mod sarif;
mod shell;
#[cfg(test)]
mod test_support;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Serialize;

use crate::{Analysis, Code, Span, Verdict};

/// The kinds of file `scan` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A bash or sh script (`*.sh`, `*.bash`, or a `#!` line naming bash or sh).
    ShellScript,
    /// A Dockerfile (`Dockerfile`, `*.Dockerfile`, `Dockerfile.*`, `Containerfile`).
    Dockerfile,
    /// A GitHub Actions workflow (`.github/workflows/*.yml`) or action (`action.yml`).
    Workflow,
    /// A Makefile (`Makefile`, `makefile`, `GNUmakefile`, `*.mk`).
    Makefile,
    /// An npm `package.json`.
    PackageJson,
    /// One command given to `cmdguard check` (for SARIF output).
    Command,
}

impl FileKind {
    /// The snake_case name used in JSON and with `--kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::ShellScript => "shell_script",
            FileKind::Dockerfile => "dockerfile",
            FileKind::Workflow => "workflow",
            FileKind::Makefile => "makefile",
            FileKind::PackageJson => "package_json",
            FileKind::Command => "command",
        }
    }

    /// Tells the kind of a file from its name, then from a `#!` line; `None` when neither says.
    ///
    /// ```
    /// use std::path::Path;
    /// use cmdguard::integrations::scan::FileKind;
    /// let kind = |p: &str, text: &str| FileKind::detect(Path::new(p), text);
    /// assert_eq!(kind("ci/build.sh", ""), Some(FileKind::ShellScript));
    /// assert_eq!(kind("tools/release", "#!/usr/bin/env bash\nls\n"), Some(FileKind::ShellScript));
    /// assert_eq!(kind(".github/workflows/ci.yml", ""), Some(FileKind::Workflow));
    /// assert_eq!(kind("app/Dockerfile", ""), Some(FileKind::Dockerfile));
    /// assert_eq!(kind("app/Dockerfile.sh", ""), Some(FileKind::ShellScript));
    /// assert_eq!(kind("notes.txt", "hello"), None);
    /// ```
    pub fn detect(path: &Path, text: &str) -> Option<FileKind> {
        let name = path.file_name()?.to_string_lossy();
        let lower = name.to_ascii_lowercase();
        let in_workflows = path
            .parent()
            .is_some_and(|p| p.ends_with(".github/workflows"));
        let yaml = lower.ends_with(".yml") || lower.ends_with(".yaml");
        if (in_workflows && yaml) || lower == "action.yml" || lower == "action.yaml" {
            return Some(FileKind::Workflow);
        }
        // A `.sh` or `.bash` name is a script whatever it starts with: `Dockerfile.sh` is run
        // by sh, not built by Docker (red team s9: it was read as Dockerfile instructions).
        if lower.ends_with(".sh") || lower.ends_with(".bash") {
            return Some(FileKind::ShellScript);
        }
        if lower == "dockerfile"
            || lower == "containerfile"
            || lower.starts_with("dockerfile.")
            || lower.ends_with(".dockerfile")
        {
            return Some(FileKind::Dockerfile);
        }
        if lower == "makefile" || lower == "gnumakefile" || lower.ends_with(".mk") {
            return Some(FileKind::Makefile);
        }
        if lower == "package.json" {
            return Some(FileKind::PackageJson);
        }
        if shell::shebang(text).is_some() {
            return Some(FileKind::ShellScript);
        }
        None
    }

    /// Looks a kind up by its name (`--kind`).
    pub fn from_name(name: &str) -> Option<FileKind> {
        [
            FileKind::ShellScript,
            FileKind::Dockerfile,
            FileKind::Workflow,
            FileKind::Makefile,
            FileKind::PackageJson,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reasons `scan` gives on its own, for text it cannot hand to the analyser as it is. Their
/// names never collide with a [`Code`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanCode {
    /// Text pasted into the script before the shell reads it — a GitHub Actions `${{ }}`
    /// expression, a make variable: unknown text that can be any shell code, quotes included.
    TemplateExpansion,
    /// The commands run under a shell cmdguard does not analyse (`shell: pwsh`, `SHELL
    /// ["cmd"]`, a `#!/usr/bin/env python3` heredoc).
    UnsupportedShell,
    /// The file cannot be parsed (YAML or JSON syntax, invalid UTF-8), so its commands cannot
    /// be found.
    MalformedFile,
    /// The runner puts directories of the project's own programs first on `PATH` (npm's
    /// `node_modules/.bin`): any program name may run a program the project installed.
    ProjectPath,
    /// The shell is started with options or arguments beyond the plain forms scan lists (a
    /// Makefile `SHELL`/`.SHELLFLAGS`, a Dockerfile `SHELL`, a workflow `shell:` template): they
    /// run before, or instead of, every command. The construct is analysed as a command too.
    ShellOptions,
    /// A variable set for every command the file runs (a Makefile assignment or `export`, a
    /// Dockerfile `ENV`/`ARG`, a workflow `env:`) whose name is not in `[env] inert`: `PATH`,
    /// `BASH_ENV`, `LD_PRELOAD` and most others change what the commands run or load.
    Environment,
    /// The file makes its tool read another file scan did not read (`include`, `MAKEFILES`,
    /// `load`), whose rules and settings run too; or scan did not read the path given itself
    /// (a symbolic link, a FIFO or device, a file over 16 MiB).
    UnreadFile,
    /// A construct scan does not model that can change what runs (`$(eval …)`, a make
    /// function other than the text functions, a line scan cannot classify, an unknown
    /// Dockerfile instruction, a `docker://` step).
    Unmodelled,
}

impl ScanCode {
    /// Every scan code.
    pub const ALL: &'static [ScanCode] = &[
        ScanCode::TemplateExpansion,
        ScanCode::UnsupportedShell,
        ScanCode::MalformedFile,
        ScanCode::ProjectPath,
        ScanCode::ShellOptions,
        ScanCode::Environment,
        ScanCode::UnreadFile,
        ScanCode::Unmodelled,
    ];

    /// The snake_case name used in JSON and as a SARIF rule id.
    pub fn as_str(self) -> &'static str {
        match self {
            ScanCode::TemplateExpansion => "template_expansion",
            ScanCode::UnsupportedShell => "unsupported_shell",
            ScanCode::MalformedFile => "malformed_file",
            ScanCode::ProjectPath => "project_path",
            ScanCode::ShellOptions => "shell_options",
            ScanCode::Environment => "environment",
            ScanCode::UnreadFile => "unread_file",
            ScanCode::Unmodelled => "unmodelled_construct",
        }
    }

    /// Every scan code asks: each is text cmdguard could not see through.
    pub fn severity(self) -> Verdict {
        match self {
            ScanCode::TemplateExpansion
            | ScanCode::UnsupportedShell
            | ScanCode::MalformedFile
            | ScanCode::ProjectPath
            | ScanCode::ShellOptions
            | ScanCode::Environment
            | ScanCode::UnreadFile
            | ScanCode::Unmodelled => Verdict::Ask,
        }
    }
}

/// A position in a file: 1-based line, and 1-based column counted in characters (Unicode code
/// points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// One reason a command is not simply allowed, at its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// A [`Code`] name, or a [`ScanCode`] name.
    pub code: &'static str,
    /// The verdict this reason asks for.
    pub severity: Verdict,
    /// A sentence a person understands.
    pub message: String,
    /// The allowlist rule that produced it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Where it starts.
    pub start: Pos,
    /// Where it ends (exclusive).
    pub end: Pos,
}

/// One top-level command of a file, with its verdict and reasons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandReport {
    /// Where in the file's structure it is (`RUN`, `jobs.test.steps[2].run`, `scripts.build`,
    /// `recipe of all`, `script`).
    pub context: String,
    /// The command's text as the file has it, on one line, shortened past 120 characters.
    pub text: String,
    /// Where it starts.
    pub start: Pos,
    /// Where it ends (exclusive).
    pub end: Pos,
    /// The strictest reason's severity; `allow` when there is none.
    pub verdict: Verdict,
    /// Every reason above `allow`, in file order.
    pub reasons: Vec<Reason>,
}

/// What `scan` found in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// The path as given.
    pub path: String,
    /// The kind of file it was read as.
    pub kind: FileKind,
    /// The strictest verdict of its commands and of its own reasons.
    pub verdict: Verdict,
    /// Reasons about the file as a whole (a syntax error that hides its commands).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// Every command found, in file order.
    pub commands: Vec<CommandReport>,
}

/// What `scan` found in all its files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanReport {
    /// The strictest verdict of every file: the exit status of `cmdguard scan`.
    pub verdict: Verdict,
    /// One report per file, in the order given.
    pub files: Vec<FileReport>,
}

impl ScanReport {
    /// The report over `files`, its verdict the strictest of theirs.
    pub fn new(files: Vec<FileReport>) -> ScanReport {
        ScanReport {
            verdict: Verdict::strictest(files.iter().map(|f| f.verdict)),
            files,
        }
    }
}

/// Scans the text of one file read as `kind`; `analyze` is the analyser (with whatever config
/// and working directory the caller chose) each command goes through.
///
/// ```
/// use std::path::Path;
/// use cmdguard::{Analyzer, Verdict};
/// use cmdguard::integrations::scan::{self, FileKind};
/// let analyzer = Analyzer::default();
/// let report = scan::scan_text(
///     "Dockerfile",
///     "FROM debian\nRUN ls && \\\n    rm -rf /\n",
///     FileKind::Dockerfile,
///     &|cmd: &str| analyzer.analyze(cmd),
/// );
/// assert_eq!(report.verdict, Verdict::Deny);
/// let reasons = &report.commands[0].reasons;
/// let denied = reasons.iter().find(|r| r.code == "denied").unwrap();
/// assert_eq!((denied.start.line, denied.start.column), (3, 5));
/// ```
pub fn scan_text(
    path: &str,
    text: &str,
    kind: FileKind,
    analyze: &dyn Fn(&str) -> Analysis,
) -> FileReport {
    let extracted = match kind {
        FileKind::ShellScript => shell::extract(text, path),
        FileKind::Dockerfile => dockerfile::extract(text),
        FileKind::Workflow => actions::extract(text),
        FileKind::Makefile => {
            let mut x = makefile::extract(text);
            makefile::sources_beside(path, &mut x);
            x
        }
        FileKind::PackageJson => package_json::extract(text, path),
        FileKind::Command => Extracted {
            pieces: vec![Piece::verbatim("command", text, 0)],
            ..Extracted::default()
        },
    };
    let mut extracted = extracted;
    // The files beside a Makefile or package.json that make and npm read are looked up by
    // this path: one whose name was not UTF-8 (shown with U+FFFD) names another directory.
    if matches!(kind, FileKind::Makefile | FileKind::PackageJson) && path.contains('\u{FFFD}') {
        extracted.problem(
            ScanCode::UnreadFile,
            Span::new(0, 0),
            "the path is not UTF-8 text, so scan cannot look for the files beside it that the tool reads too (`.npmrc`, `binding.gyp`, `Makefile.sh`)".to_string(),
        );
    }
    let index = LineIndex::new(text);
    let mut commands = Vec::new();
    for piece in &extracted.pieces {
        commands.extend(analyze_piece(piece, text, &index, analyze));
    }
    // A name is judged once, however often the file sets it.
    let mut judged: HashMap<(&str, EnvScope), bool> = HashMap::new();
    let mut n_judged = 0;
    for e in &extracted.env {
        let asks = *judged.entry((e.name.as_str(), e.scope)).or_insert_with(|| {
            // Past this many names, each asks without an analysis of its own.
            const MAX_JUDGED: usize = 1000;
            n_judged += 1;
            n_judged > MAX_JUDGED || e.asks(analyze)
        });
        if asks {
            extracted.problems.push(Problem {
                code: ScanCode::Environment,
                message: e.message(),
                span: e.span,
            });
        }
    }
    cap_problems(&mut extracted.problems);
    let mut reasons: Vec<Reason> = extracted
        .problems
        .iter()
        .map(|p| Reason {
            code: p.code.as_str(),
            severity: p.code.severity(),
            message: p.message.clone(),
            rule: None,
            start: index.pos(p.span.start),
            end: index.pos(p.span.end),
        })
        .collect();
    reasons.sort_by_key(|r| (r.start, r.end));
    let verdict = Verdict::strictest(
        commands
            .iter()
            .map(|c| c.verdict)
            .chain(reasons.iter().map(|r| r.severity)),
    );
    FileReport {
        path: path.to_string(),
        kind,
        verdict,
        reasons,
        commands,
    }
}

/// At most this many problems are reported for a file; past it, one more says how many were
/// left out (their verdict is the same: each asks).
const MAX_PROBLEMS: usize = 1000;

fn cap_problems(problems: &mut Vec<Problem>) {
    if problems.len() <= MAX_PROBLEMS {
        return;
    }
    let left = problems.len() - MAX_PROBLEMS;
    problems.truncate(MAX_PROBLEMS);
    let span = problems.last().map_or(Span::new(0, 0), |p| p.span);
    problems.push(Problem {
        code: ScanCode::Unmodelled,
        message: format!("{left} more constructs like the ones above were not listed"),
        span,
    });
}

/// Scans a file's bytes: [`scan_text`] when they are UTF-8, else a report whose one reason
/// asks (the shell would read bytes cmdguard cannot show).
pub fn scan_bytes(
    path: &str,
    bytes: &[u8],
    kind: FileKind,
    analyze: &dyn Fn(&str) -> Analysis,
) -> FileReport {
    match std::str::from_utf8(bytes) {
        Ok(text) => scan_text(path, text, kind, analyze),
        Err(e) => {
            let text = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
            let at = LineIndex::new(&text).pos(text.len());
            one_reason(
                path,
                kind,
                ScanCode::MalformedFile,
                "not valid UTF-8, so its commands cannot be read as the shell reads them",
                at,
            )
        }
    }
}

/// The report for a file scan did not read (a symbolic link, a FIFO, a file too large):
/// one reason, which asks, saying `why`.
pub fn unread(path: &str, kind: FileKind, why: &str) -> FileReport {
    one_reason(
        path,
        kind,
        ScanCode::UnreadFile,
        why,
        Pos { line: 1, column: 1 },
    )
}

/// A report of no command and one reason, `code` at `at`, saying `message`.
fn one_reason(path: &str, kind: FileKind, code: ScanCode, message: &str, at: Pos) -> FileReport {
    FileReport {
        path: path.to_string(),
        kind,
        verdict: code.severity(),
        reasons: vec![Reason {
            code: code.as_str(),
            severity: code.severity(),
            message: message.to_string(),
            rule: None,
            start: at,
            end: at,
        }],
        commands: Vec::new(),
    }
}

/// What an extractor found in a file: the pieces of shell text, problems with the file, and
/// the variables it sets for its commands (judged by name against the analyser's `[env]`).
#[derive(Debug, Default)]
struct Extracted {
    pieces: Vec<Piece>,
    problems: Vec<Problem>,
    env: Vec<EnvUse>,
}

impl Extracted {
    /// Records a problem of `code` at `span` of the file.
    fn problem(&mut self, code: ScanCode, span: Span, message: String) {
        self.problems.push(Problem {
            code,
            message,
            span,
        });
    }
}

/// A variable the file sets in the environment of the commands it runs.
#[derive(Debug)]
struct EnvUse {
    /// The variable's name as written.
    name: String,
    /// Where the name is written in the file.
    span: Span,
    /// How the file sets it (`ENV`, `export`, `the env: of jobs.test`), for the message.
    how: String,
    /// Whether the commands always see it.
    scope: EnvScope,
}

/// Whether a variable the file sets reaches its commands always or only sometimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum EnvScope {
    /// Always in the commands' environment (`ENV`, `env:`, make's `export`).
    Exported,
    /// In the commands' environment when the tool's own environment already had the name: a
    /// plain make assignment, which make passes on for names it inherited (`PATH`, `HOME`).
    Inherited,
}

impl EnvUse {
    /// Whether this use asks. An exported name must be inert by the analyser's own reading
    /// of `export NAME` (so `[env] inert` in the user's config counts); an inherited one asks
    /// when the built-in `[env] unsafe` list names it, as those are the names environments
    /// carry and programs obey. A name that is not one plain variable name always asks.
    fn asks(&self, analyze: &dyn Fn(&str) -> Analysis) -> bool {
        if !self.plain_name() {
            return true;
        }
        match self.scope {
            EnvScope::Exported => {
                analyze(&format!("export {}", self.name)).verdict > Verdict::Allow
            }
            EnvScope::Inherited => unsafe_env_name(&self.name),
        }
    }

    fn plain_name(&self) -> bool {
        let mut b = self.name.bytes();
        b.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    }

    /// The reason a person reads when this use asks.
    fn message(&self) -> String {
        let (how, name) = (&self.how, &self.name);
        if !self.plain_name() {
            return format!(
                "{how} sets `{name}`, a name scan cannot read as one variable: it may be any variable, `PATH` or `BASH_ENV` included"
            );
        }
        match self.scope {
            EnvScope::Exported => format!(
                "{how} puts `{name}` in the environment of the commands this file runs, and `{name}` is not in `[env] inert`: such a variable can change what they run or load (`PATH` picks the programs, `BASH_ENV` makes bash read a file first)"
            ),
            EnvScope::Inherited => format!(
                "{how} sets `{name}`, which make passes to every recipe when its own environment has the name, and `{name}` changes what programs run or load"
            ),
        }
    }
}

/// Whether the built-in allowlist's `[env] unsafe` list names `name`.
fn unsafe_env_name(name: &str) -> bool {
    static DEFAULT: std::sync::OnceLock<crate::Allowlist> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(crate::Allowlist::default)
        .unsafe_env
        .iter()
        .any(|p| p.matches(name))
}

/// A problem with the file itself, at a byte range of it.
#[derive(Debug)]
struct Problem {
    code: ScanCode,
    message: String,
    span: Span,
}

/// Which shell runs a piece.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shell {
    /// bash: analysed with cmdguard's bash reading.
    Bash,
    /// A POSIX sh (dash on Debian and Ubuntu, busybox ash on Alpine): analysed with the bash
    /// reading, and a construct whose quoting bash and dash read differently (`$'…'`,
    /// `$"…"`) asks, since there dash may run what bash reads as text.
    Sh,
    /// Anything else, by the name the file gives it.
    Unsupported(String),
}

impl Shell {
    /// Whether cmdguard analyses text this shell runs (bash or sh).
    fn analysed(&self) -> bool {
        match self {
            Shell::Bash | Shell::Sh => true,
            Shell::Unsupported(_) => false,
        }
    }
}

/// Text one shell invocation runs, with the file offset each byte came from.
#[derive(Debug, Clone)]
struct Piece {
    /// Where in the file's structure (see [`CommandReport::context`]).
    context: String,
    /// The text handed to the analyser.
    script: String,
    /// For each byte of `script`, and one past its end: the byte of the file it came from.
    origin: Vec<usize>,
    /// The shell that runs it.
    shell: Shell,
    /// Spans of `script` holding text pasted in before the shell reads it, with what the file
    /// wrote there.
    templates: Vec<(Span, String)>,
    /// Reasons the whole piece gets on top of its analysis (spans of `script`).
    notes: Vec<(ScanCode, String)>,
}

impl Piece {
    /// A piece that is the file's text from `start`, byte for byte.
    fn verbatim(context: &str, text: &str, start: usize) -> Piece {
        let mut b = ScriptBuf::default();
        b.push_str(text, start);
        b.finish(context, start + text.len(), Shell::Bash)
    }
}

/// Builds a [`Piece`]'s script and origin map together.
#[derive(Debug, Default)]
struct ScriptBuf {
    script: String,
    origin: Vec<usize>,
    templates: Vec<(Span, String)>,
}

impl ScriptBuf {
    /// Appends `s`, which the file holds at `at`.
    fn push_str(&mut self, s: &str, at: usize) {
        self.script.push_str(s);
        self.origin.extend((0..s.len()).map(|i| at + i));
    }

    /// Appends `c`, which stands for the file's text at `at`.
    fn push_char(&mut self, c: char, at: usize) {
        self.script.push(c);
        self.origin.extend(std::iter::repeat_n(at, c.len_utf8()));
    }

    /// Appends a placeholder expansion for `original`, text the file holds at `at` that is
    /// pasted into the script before the shell reads it. The placeholder is a parameter
    /// expansion of the same length (`${____}`), so the analyser sees a run-time value there;
    /// the pasted text asks on its own (see [`ScanCode::TemplateExpansion`]).
    fn push_template(&mut self, original: &str, at: usize) {
        let start = self.script.len();
        let n = original.len();
        let placeholder = if n >= 4 {
            format!("${{{}}}", "_".repeat(n - 3))
        } else {
            format!("${}", "_".repeat(n.saturating_sub(1).max(1)))
        };
        self.push_str(&placeholder, at);
        self.templates
            .push((Span::new(start, self.script.len()), original.to_string()));
    }

    fn finish(mut self, context: &str, end: usize, shell: Shell) -> Piece {
        self.origin.push(end);
        Piece {
            context: context.to_string(),
            script: self.script,
            origin: self.origin,
            shell,
            templates: self.templates,
            notes: Vec::new(),
        }
    }
}

/// Byte offsets of a text to line and column.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Whether each line is ASCII: its columns are then byte counts, found without counting
    /// characters (a file of one long line gets many reasons).
    ascii: Vec<bool>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> LineIndex<'a> {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let ascii = starts
            .iter()
            .enumerate()
            .map(|(n, &s)| {
                let end = starts.get(n + 1).copied().unwrap_or(text.len());
                text.as_bytes()[s..end].is_ascii()
            })
            .collect();
        LineIndex {
            text,
            starts,
            ascii,
        }
    }

    fn pos(&self, offset: usize) -> Pos {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line.saturating_sub(1)];
        let column = if self.ascii[line.saturating_sub(1)] {
            offset - start
        } else {
            self.text[start..offset].chars().count()
        };
        Pos {
            line,
            column: column + 1,
        }
    }
}

impl Piece {
    /// `message` with each placeholder the analyser quotes turned back into the text the file
    /// has there (`${__}` → `$(CC)`).
    fn unplaceholder(&self, message: &str) -> String {
        let mut out = message.to_string();
        for (span, original) in &self.templates {
            if let Some(placeholder) = self.script.get(span.start..span.end) {
                out = out.replacen(&format!("`{placeholder}"), &format!("`{original}"), 1);
            }
        }
        out
    }

    /// The file offset where `span` of the script starts, and where it ends (exclusive).
    fn file_range(&self, span: Span, text: &str) -> (usize, usize) {
        let last = self.origin.len() - 1;
        let start = self.origin[span.start.min(last)];
        let end = if span.end > span.start {
            let last_byte = self.origin[(span.end - 1).min(last)];
            let mut e = last_byte + 1;
            while e < text.len() && !text.is_char_boundary(e) {
                e += 1;
            }
            // Where the next byte came from, when it is further on the same line: the last
            // character was written as more than one (an escape such as `\"`).
            let next = self.origin[span.end.min(last)];
            if next > e && text.get(last_byte..next).is_some_and(|t| !t.contains('\n')) {
                e = next;
            }
            e.max(start)
        } else {
            start
        };
        (start, end.min(text.len()))
    }
}

/// Analyses one piece and reports each of its top-level commands.
fn analyze_piece(
    piece: &Piece,
    text: &str,
    index: &LineIndex,
    analyze: &dyn Fn(&str) -> Analysis,
) -> Vec<CommandReport> {
    let whole = Span::new(0, piece.script.len());
    let mut reasons: Vec<(Span, Reason)> = Vec::new();
    let mut reason = |span: Span, code, severity, message: String, rule| {
        let (s, e) = piece.file_range(span, text);
        reasons.push((
            span,
            Reason {
                code,
                severity,
                message,
                rule,
                start: index.pos(s),
                end: index.pos(e),
            },
        ));
    };
    let mut statements = Vec::new();
    match &piece.shell {
        Shell::Unsupported(name) => {
            let code = ScanCode::UnsupportedShell;
            reason(
                whole,
                code.as_str(),
                code.severity(),
                format!("runs under `{name}`, a shell cmdguard does not analyse"),
                None,
            );
        }
        Shell::Bash | Shell::Sh => {
            let a = analyze(&piece.script);
            for f in a.findings.iter().filter(|f| f.severity > Verdict::Allow) {
                reason(
                    f.span,
                    f.code.as_str(),
                    f.severity,
                    piece.unplaceholder(&f.message),
                    f.rule.clone(),
                );
            }
            if !a.findings.iter().any(|f| f.code == Code::LimitExceeded) {
                statements = shell::statements(&piece.script);
                if piece.shell == Shell::Sh {
                    for (span, kind) in shell::bash_only(&piece.script) {
                        let code = ScanCode::UnsupportedShell;
                        // At most 40 bytes of it, cut at a character boundary.
                        let mut end = span.end.min(span.start + 40);
                        while !piece.script.is_char_boundary(end) {
                            end -= 1;
                        }
                        reason(
                            span,
                            code.as_str(),
                            code.severity(),
                            kind.message(&one_line(&piece.script[span.start..end])),
                            None,
                        );
                    }
                }
            }
        }
    }
    for (span, original) in &piece.templates {
        let code = ScanCode::TemplateExpansion;
        reason(
            *span,
            code.as_str(),
            code.severity(),
            format!(
                "`{original}` is replaced by its value before the shell reads the line: unknown text that may be any shell code"
            ),
            None,
        );
    }
    // A `PATH` that runs the project's programs first matters to every script, even one of
    // builtins: the runner looks the shell itself up on that `PATH` (npm finds `sh` there).
    for (code, message) in &piece.notes {
        reason(
            Span::new(0, 0),
            code.as_str(),
            code.severity(),
            message.clone(),
            None,
        );
    }
    if statements.is_empty() && (!reasons.is_empty() || !piece.script.trim().is_empty()) {
        statements.push(whole);
    }
    let mut out: Vec<CommandReport> = statements
        .iter()
        .map(|&span| {
            let (s, e) = piece.file_range(span, text);
            CommandReport {
                context: piece.context.clone(),
                text: one_line(&text[s..e]),
                start: index.pos(s),
                end: index.pos(e),
                verdict: Verdict::Allow,
                reasons: Vec::new(),
            }
        })
        .collect();
    for (span, r) in reasons {
        // The statement the reason starts in, else the last one before it, else the first.
        let i = statements
            .iter()
            .rposition(|s| s.start <= span.start)
            .unwrap_or(0);
        if let Some(c) = out.get_mut(i) {
            c.verdict = c.verdict.max(r.severity);
            c.reasons.push(r);
        }
    }
    for c in &mut out {
        c.reasons.sort_by_key(|r| (r.start, r.end));
    }
    out
}

/// `s` on one line (newlines as `⏎`), shortened to 120 characters.
fn one_line(s: &str) -> String {
    let flat: String = s
        .trim_end()
        .chars()
        .map(|c| match c {
            '\n' => '⏎',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    if flat.chars().count() > 120 {
        flat.chars().take(119).chain(std::iter::once('…')).collect()
    } else {
        flat
    }
}

/// The program a `#!` line or a `shell:` value names, without directory or `env`:
/// `#!/usr/bin/env -S bash -e` → `bash`.
fn interpreter_name(command: &str) -> Option<String> {
    let mut words = command.split_whitespace();
    let mut first = words.next()?;
    if first.rsplit('/').next() == Some("env") {
        first = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    Some(first.rsplit('/').next().unwrap_or(first).to_string())
}

/// The shell a name stands for: bash, or a POSIX sh (read as bash, with the quoting dash reads
/// differently asking); anything else is unsupported.
fn shell_named(name: &str) -> Shell {
    match name {
        "bash" => Shell::Bash,
        "sh" | "dash" => Shell::Sh,
        _ => Shell::Unsupported(name.to_string()),
    }
}

/// The shell a `#!` line (the text after `#!`, up to the line break) runs, when it is one of
/// the forms scan models exactly: `/bin/sh`, `/bin/bash` (or the same under `/usr/bin/`),
/// optionally with one word of plain options (`-e`, `-eu`, `-x`: the kernel passes the rest of
/// the line as one argument), or `/usr/bin/env sh|bash` with nothing after. Anything else —
/// `env -S` (which splits the line into more words), a variable set through `env`, a relative
/// or other interpreter, any further argument — is [`Shell::Unsupported`], named as written.
fn shebang_shell(line: &str) -> Shell {
    const DIRECT: &[&str] = &["/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash"];
    // The message quotes the line: scan reads only the plain forms above.
    let unsupported = || Shell::Unsupported(format!("#!{}", line.trim()));
    // The kernel splits the line at the first space or tab; only those separate words.
    let line = line.trim_end_matches([' ', '\t', '\r']);
    let line = line.trim_start_matches([' ', '\t']);
    if line.contains(|c: char| c.is_whitespace() && c != ' ' && c != '\t') {
        return unsupported();
    }
    let (program, rest) = match line.find([' ', '\t']) {
        Some(n) => (&line[..n], line[n..].trim_start_matches([' ', '\t'])),
        None => (line, ""),
    };
    let named = |p: &str| shell_named(p.rsplit('/').next().unwrap_or(p));
    if DIRECT.contains(&program) {
        let plain_options = rest.is_empty()
            || rest
                .strip_prefix('-')
                .is_some_and(|o| !o.is_empty() && o.bytes().all(|b| b"eux".contains(&b)));
        if plain_options {
            return named(program);
        }
        return unsupported();
    }
    if program == "/usr/bin/env" && (rest == "sh" || rest == "bash") {
        return named(rest);
    }
    unsupported()
}

/// Whether `word` names bash or a POSIX sh by its name or its path in a system directory —
/// the plain way to name the shell, with no option or argument. A path elsewhere is a program
/// scan has not seen.
fn plain_shell_program(word: &str) -> bool {
    const DIRS: &[&str] = &["", "/bin/", "/usr/bin/", "/usr/local/bin/"];
    const NAMES: &[&str] = &["bash", "sh", "dash"];
    DIRS.iter()
        .any(|d| word.strip_prefix(d).is_some_and(|n| NAMES.contains(&n)))
}

/// Whether the words between the shell and the script (make's `.SHELLFLAGS`, the rest of a
/// Dockerfile `SHELL`) are short options from `-e`, `-u`, `-x`, `-o NAME`, the last word ending
/// in `c`: the command text is then the script and nothing else runs.
fn plain_shell_flags(words: &[&str]) -> bool {
    /// Options `-o` may name: exit on error, unset variables, tracing, failing pipes.
    const PLAIN_SHELL_OPTIONS: &[&str] = &["pipefail", "errexit", "nounset", "xtrace"];
    let Some(last) = words.last() else {
        return false;
    };
    if !last.ends_with('c') {
        return false;
    }
    let mut i = 0;
    while i < words.len() {
        let Some(letters) = words[i].strip_prefix('-') else {
            return false;
        };
        let c_at = letters.find('c');
        if letters.is_empty()
            || !letters.bytes().all(|b| b"euxoc".contains(&b))
            || c_at.is_some_and(|c| i + 1 != words.len() || c + 1 != letters.len())
        {
            return false;
        }
        if letters.contains('o') {
            // `-o NAME`: `o` is the last letter and a listed option follows.
            if !letters.ends_with('o')
                || !words
                    .get(i + 1)
                    .is_some_and(|n| PLAIN_SHELL_OPTIONS.contains(n))
            {
                return false;
            }
            i += 1;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_codes_never_collide_with_finding_codes() {
        for s in ScanCode::ALL {
            assert_eq!(Code::from_name(s.as_str()), None, "{}", s.as_str());
        }
    }

    #[test]
    fn placeholders_keep_the_length_of_what_they_replace() {
        for original in ["$@", "$(X)", "${{ x }}", "$(shell ls -la)"] {
            let mut b = ScriptBuf::default();
            b.push_template(original, 10);
            assert_eq!(b.script.len(), original.len(), "{original} → {}", b.script);
            assert!(b.script.starts_with('$'));
        }
    }

    #[test]
    fn positions_count_characters_from_one() {
        let index = LineIndex::new("ab\nçd\n");
        assert_eq!(index.pos(0), Pos { line: 1, column: 1 });
        assert_eq!(index.pos(3), Pos { line: 2, column: 1 });
        assert_eq!(index.pos(5), Pos { line: 2, column: 2 });
        assert_eq!(index.pos(99), Pos { line: 3, column: 1 });
    }

    #[test]
    fn only_plain_shebangs_name_a_shell_scan_reads() {
        let table = [
            ("/bin/sh", Some(Shell::Sh)),
            ("/bin/bash", Some(Shell::Bash)),
            ("/usr/bin/bash -eu", Some(Shell::Bash)),
            ("/bin/sh -e ", Some(Shell::Sh)),
            ("/usr/bin/env bash", Some(Shell::Bash)),
            ("/usr/bin/env  sh", Some(Shell::Sh)),
            ("/usr/bin/env -S bash -c \"touch /tmp/x\"", None),
            ("/usr/bin/env -S BASH_ENV=./evil.sh bash", None),
            ("/usr/bin/env bash -e", None),
            ("./bash", None),
            ("/opt/bin/bash", None),
            ("/bin/bash -e -u", None),
            ("/bin/bash --rcfile x", None),
            ("/bin/bash -c", None),
            ("/usr/bin/env python3", None),
            ("/bin/bash\u{a0}", None),
        ];
        for (line, want) in table {
            let got = shebang_shell(line);
            match want {
                Some(shell) => assert_eq!(got, shell, "{line}"),
                None => assert!(matches!(got, Shell::Unsupported(_)), "{line}: {got:?}"),
            }
        }
    }

    #[test]
    fn interpreter_names_drop_directories_and_env() {
        let table = [
            ("/bin/bash", Some("bash")),
            ("/usr/bin/env bash", Some("bash")),
            ("/usr/bin/env -S bash -e", Some("bash")),
            ("/usr/bin/env FOO=1 python3", Some("python3")),
            ("pwsh", Some("pwsh")),
            ("", None),
        ];
        for (input, want) in table {
            assert_eq!(interpreter_name(input).as_deref(), want, "{input}");
        }
    }
}

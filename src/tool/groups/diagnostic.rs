//! tool/groups/diagnostic.rs: the `diagnostic` group — does a file parse (`check_syntax`, with
//! a real parser per language), what do linters say of it (`check_lint`), and how do two
//! files differ (`diff_files`, a unified diff). Read-only: the parsers and linters it runs
//! read the file and execute none of it.
//!
//! A file is input, so no file may crash, hang or exhaust the process checking it:
//! - `syn` recurses once per nesting level and a stack overflow aborts the whole process, so
//!   a Rust file is first scanned for how deep it nests ([`RUST_NESTING_LIMIT`], see
//!   [`rust_nesting`]) and then parsed on a thread with its own [`RUST_STACK`]-byte stack;
//! - checkers run as child processes (`bash -n`, `python3`, `shellcheck`, pyflakes) are killed
//!   (their whole process group) after [`CHECKER_TIMEOUT`] and when the run is cancelled;
//! - `diff_files` stops looking for the smallest diff after [`DIFF_DEADLINE`] (the diff is
//!   then correct but coarser) and cuts its output at [`MAX_DIFF_OUTPUT`] bytes.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::groups::fs::{NotText, read_text};
use crate::tool::{Tool, ToolCallContext, tool};

/// The tools of the group.
pub fn tools() -> Vec<Tool> {
    vec![check_syntax_tool(), check_lint_tool(), diff_files_tool()]
}

type Ctx = ToolCallContext<()>;
type Outcome<T = String> = Result<T, String>;

/// How long a checker process may run before it is killed.
pub const CHECKER_TIMEOUT: Duration = Duration::from_secs(60);
/// How deep a Rust file may nest (as [`rust_nesting`] counts) for `syn` to parse it.
pub const RUST_NESTING_LIMIT: usize = 1_000;
/// The stack of the thread that runs `syn`, in bytes (reserved, used only as deep as it goes).
pub const RUST_STACK: usize = 256 << 20;
/// How long `diff_files` looks for the smallest diff before it settles for a coarser one.
pub const DIFF_DEADLINE: Duration = Duration::from_millis(500);
/// The most bytes of diff `diff_files` returns.
pub const MAX_DIFF_OUTPUT: usize = 256 * 1024;
/// The most bytes of a checker's stdout or stderr that are kept.
const MAX_CHECKER_OUTPUT: u64 = 16 << 20;

/// The languages the group knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Rust (parsed with `syn`).
    Rust,
    /// Python 3 (parsed by `python3`'s own `ast` module).
    Python,
    /// JSON (`serde_json`).
    Json,
    /// bash (`bash -n`).
    Bash,
    /// TOML (`toml`).
    Toml,
}

impl Language {
    /// The language a file's name (or a shebang line) says.
    fn guess(path: &Path, text: &str) -> Option<Language> {
        let by_ext = match path.extension().and_then(|e| e.to_str()) {
            Some("rs") => Some(Language::Rust),
            Some("py" | "pyi") => Some(Language::Python),
            Some("json") => Some(Language::Json),
            Some("sh" | "bash") => Some(Language::Bash),
            Some("toml") => Some(Language::Toml),
            _ => None,
        };
        by_ext.or_else(|| {
            let first = text.lines().next()?.strip_prefix("#!")?;
            if first.contains("python") {
                Some(Language::Python)
            } else if first.contains("bash") || first.ends_with("/sh") || first.ends_with(" sh") {
                Some(Language::Bash)
            } else {
                None
            }
        })
    }
}

/// One problem a parser or linter found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// `error`, `warning`, `info` or `style`.
    pub level: String,
    /// The linter's code (`SC2086`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// What `check_syntax` and `check_lint` return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The file, absolute.
    pub path: String,
    /// The language it was read as.
    pub language: Language,
    /// What read it (`bash -n`, `syn`, `shellcheck`, …).
    pub checker: String,
    /// True when nothing was found.
    pub ok: bool,
    /// What was found.
    pub problems: Vec<Problem>,
}

/// The workspace's text file at `path`: where it resolved, and its text. A credential file
/// (the analyser's `[sensitive]` table) is read only if the person says yes: parsers and
/// linters quote the lines they complain about.
fn read_in_workspace(ctx: &Ctx, path: &str) -> Outcome<(std::path::PathBuf, String)> {
    let ws = super::agent_workspace(ctx)?;
    let resolved = ws.resolve_read(path).map_err(|e| e.to_string())?;
    let text = read_text(&resolved).map_err(|e| match e {
        NotText::Io(e) => format!("cannot read {}: {e}", resolved.display()),
        NotText::TooLarge(n) => format!("{} is {n} bytes, too large", resolved.display()),
        NotText::Binary => format!("{} is not a text file", resolved.display()),
    })?;
    Ok((resolved, text))
}

fn open(ctx: &Ctx, path: &str, language: Option<Language>) -> Outcome<(String, String, Language)> {
    let (resolved, text) = read_in_workspace(ctx, path)?;
    let language = language
        .or_else(|| Language::guess(&resolved, &text))
        .ok_or_else(|| {
            format!(
                "cannot tell the language of {}: pass language (rust, python, json, bash or toml)",
                resolved.display()
            )
        })?;
    Ok((resolved.display().to_string(), text, language))
}

/// How many problems a report lists; the rest are counted in a last `note`.
const MAX_PROBLEMS: usize = 500;

/// `problems` cut to [`MAX_PROBLEMS`], with a note saying how many more there were: a file
/// the model did not write can make a checker print megabytes.
fn capped(mut problems: Vec<Problem>) -> Vec<Problem> {
    if problems.len() > MAX_PROBLEMS {
        let more = problems.len() - MAX_PROBLEMS;
        problems.truncate(MAX_PROBLEMS);
        problems.push(Problem {
            line: None,
            column: None,
            level: "note".to_owned(),
            code: None,
            message: format!("{more} more problems not shown"),
        });
    }
    problems
}

fn error(line: Option<usize>, column: Option<usize>, message: impl Into<String>) -> Problem {
    Problem {
        line,
        column,
        level: "error".to_owned(),
        code: None,
        message: message.into(),
    }
}

/// Checks that a file parses, with a real parser for its language (`bash -n`, Python's own
/// parser, `syn` for Rust, JSON, TOML), and reports each syntax error with its line and
/// column. The language is guessed from the file name or shebang when not given.
#[tool]
fn check_syntax(
    /// The file.
    path: &str,
    /// rust, python, json, bash or toml; guessed when absent.
    language: Option<Language>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Report> {
    let (path, text, language) = open(ctx, path, language)?;
    let (checker, problems) = match language {
        Language::Json => ("serde_json", json_syntax(&text)),
        Language::Toml => ("toml", toml_syntax(&text)),
        Language::Rust => ("syn", rust_syntax(&text)?),
        Language::Bash => ("bash -n", bash_syntax(ctx, &path)?),
        Language::Python => ("python3 ast", python_syntax(ctx, &path)?),
    };
    let problems = capped(problems);
    Ok(Report {
        path,
        language,
        checker: checker.to_owned(),
        ok: problems.is_empty(),
        problems,
    })
}

fn json_syntax(text: &str) -> Vec<Problem> {
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => Vec::new(),
        Err(e) => vec![error(Some(e.line()), Some(e.column()), e.to_string())],
    }
}

fn toml_syntax(text: &str) -> Vec<Problem> {
    match text.parse::<toml::Table>() {
        Ok(_) => Vec::new(),
        Err(e) => {
            let (line, column) = match e.span() {
                Some(span) => line_column(text, span.start),
                None => (None, None),
            };
            vec![error(line, column, e.message().to_owned())]
        }
    }
}

fn rust_syntax(text: &str) -> Outcome<Vec<Problem>> {
    let depth = rust_nesting(text);
    if depth > RUST_NESTING_LIMIT {
        return Err(format!(
            "the file nests too deeply to parse safely (depth {depth}, the limit is \
             {RUST_NESTING_LIMIT})"
        ));
    }
    let text = text.to_owned();
    let parse = move || match syn::parse_file(&text) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|e| {
                let at = e.span().start();
                error(Some(at.line), Some(at.column + 1), e.to_string())
            })
            .collect(),
    };
    thread::Builder::new()
        .name("check_syntax rust".to_owned())
        .stack_size(RUST_STACK)
        .spawn(parse)
        .map_err(|e| format!("cannot start the rust parser: {e}"))?
        .join()
        .map_err(|_| "the rust parser failed on this file".to_owned())
}

/// How deep `syn` may have to recurse to parse `text`, over-estimated, counted on its tokens
/// without recursion: each delimited group is one level more than where it opens, and inside
/// a group every token that can make `syn` recurse (prefix and binary operators, `<`, `=`,
/// `|`, and keywords that take an expression or a type: `if`, `else`, `return`, `fn`, `dyn`, …)
/// adds one until the statement or item ends (`;`, `,`, or a `{…}` block not followed by
/// `else`). Text that does not tokenize counts 0: `syn` then fails on it before recursing.
pub fn rust_nesting(text: &str) -> usize {
    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    const RECURSIVE_PUNCT: &[char] = &[
        '.', '-', '!', '*', '&', '<', '=', '|', '^', '+', '/', '%', '>', '?', '@',
    ];
    const RECURSIVE_WORDS: &[&str] = &[
        "if", "else", "match", "return", "break", "continue", "yield", "let", "while", "for",
        "loop", "unsafe", "async", "await", "move", "fn", "impl", "dyn", "mut", "const", "static",
        "in", "as", "where", "type", "ref", "box", "become", "do", "try", "gen", "raw",
    ];
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return 0;
    };
    /// A group being walked: its tokens left, its depth, its running count, and whether the
    /// last token closed a `{…}` block.
    struct Frame {
        tokens: proc_macro2::token_stream::IntoIter,
        base: usize,
        run: usize,
        after_block: bool,
    }
    let mut stack = vec![Frame {
        tokens: tokens.into_iter(),
        base: 0,
        run: 0,
        after_block: false,
    }];
    let mut deepest = 0;
    while let Some(frame) = stack.last_mut() {
        let Some(token) = frame.tokens.next() else {
            stack.pop();
            continue;
        };
        let is_else = matches!(&token, TokenTree::Ident(i) if i == "else");
        if std::mem::take(&mut frame.after_block) && !is_else {
            frame.run = 0;
        }
        let mut inner = None;
        match token {
            TokenTree::Group(group) => {
                frame.after_block = group.delimiter() == Delimiter::Brace;
                inner = Some(Frame {
                    tokens: group.stream().into_iter(),
                    base: frame.base + frame.run + 1,
                    run: 0,
                    after_block: false,
                });
            }
            TokenTree::Punct(p) if matches!(p.as_char(), ';' | ',') => frame.run = 0,
            TokenTree::Punct(p) if RECURSIVE_PUNCT.contains(&p.as_char()) => frame.run += 1,
            TokenTree::Ident(i) if RECURSIVE_WORDS.iter().any(|w| i == w) => frame.run += 1,
            TokenTree::Punct(_) | TokenTree::Ident(_) | TokenTree::Literal(_) => {}
        }
        deepest = deepest.max(frame.base + frame.run);
        if let Some(inner) = inner {
            deepest = deepest.max(inner.base);
            stack.push(inner);
        }
    }
    deepest
}

/// 1-based line and column of byte `offset`.
fn line_column(text: &str, offset: usize) -> (Option<usize>, Option<usize>) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (Some(line), Some(column))
}

/// Runs a checker with a clean, fixed environment, stdin closed, in its own process group,
/// and kills the group after [`CHECKER_TIMEOUT`] or when the run is cancelled.
fn run(ctx: &Ctx, program: &str, args: &[&str]) -> Outcome<std::process::Output> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let collect = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut kept = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe
                    .by_ref()
                    .take(MAX_CHECKER_OUTPUT)
                    .read_to_end(&mut kept);
                let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            }
            kept
        })
    };
    let stdout = collect(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = collect(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + CHECKER_TIMEOUT;
    let stopped = |child: &mut std::process::Child, why: String| {
        kill_group(child);
        let _ = child.wait();
        Err(why)
    };
    let status = loop {
        if super::cmd::exited_unreaped(&mut child) {
            // What it left in its group goes now, while its id still names that group.
            kill_group(&child);
            match child.wait() {
                Ok(status) => break status,
                Err(e) => return Err(format!("cannot wait for {program}: {e}")),
            }
        }
        if let Some(c) = ctx.run().cancelled() {
            return stopped(
                &mut child,
                format!("{program} stopped: the run was cancelled ({})", c.reason),
            );
        }
        if Instant::now() >= deadline {
            return stopped(
                &mut child,
                format!(
                    "{program} ran longer than {} seconds and was stopped",
                    CHECKER_TIMEOUT.as_secs()
                ),
            );
        }
        thread::sleep(Duration::from_millis(10));
    };
    // A process that left the group may still hold the pipes: a reader that does not end
    // within a second is left behind, not waited for.
    let readers_end = Instant::now() + Duration::from_secs(1);
    while !(stdout.is_finished() && stderr.is_finished()) && Instant::now() < readers_end {
        thread::sleep(Duration::from_millis(5));
    }
    if !(stdout.is_finished() && stderr.is_finished()) {
        return Err(format!("{program} left a process holding its output open"));
    }
    let joined = |reader: thread::JoinHandle<Vec<u8>>| reader.join().unwrap_or_default();
    Ok(std::process::Output {
        status,
        stdout: joined(stdout),
        stderr: joined(stderr),
    })
}

/// SIGKILL to the checker's process group (to the checker alone where there are no groups).
fn kill_group(child: &std::process::Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    #[cfg(not(unix))]
    {
        let _ = child;
    }
}

fn bash_syntax(ctx: &Ctx, path: &str) -> Outcome<Vec<Problem>> {
    let out = run(ctx, "bash", &["-n", "--", path])?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("{path}: line ");
    let mut problems: Vec<Problem> = stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(&prefix)?;
            let (n, message) = rest.split_once(": ")?;
            Some(error(n.parse().ok(), None, message))
        })
        .collect();
    if problems.is_empty() && !out.status.success() {
        problems.push(error(None, None, stderr.trim()));
    }
    Ok(problems)
}

/// Python's own parser: `ast.parse` compiles nothing and runs nothing.
const PY_PARSE: &str = "import ast,json,sys\n\
src=open(sys.argv[1],'rb').read()\n\
try:\n    ast.parse(src,sys.argv[1])\n\
except SyntaxError as e:\n    print(json.dumps([e.lineno,e.offset,e.msg]));sys.exit(1)\n";

fn python_syntax(ctx: &Ctx, path: &str) -> Outcome<Vec<Problem>> {
    let out = run(ctx, "python3", &["-I", "-S", "-c", PY_PARSE, path])?;
    if out.status.success() {
        return Ok(Vec::new());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<(Option<usize>, Option<usize>, String)>(stdout.trim()) {
        Ok((line, column, message)) => Ok(vec![error(line, column, message)]),
        Err(_) => Err(format!(
            "python3 could not check the file: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// Runs the language's linter on a file (bash: shellcheck; python: ruff, pyflakes3 or
/// pyflakes, whichever is installed; json and toml: their parsers) and reports what it says.
/// Rust has no single-file linter: run `cargo clippy` instead.
#[tool]
fn check_lint(
    /// The file.
    path: &str,
    /// rust, python, json, bash or toml; guessed when absent.
    language: Option<Language>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Report> {
    let (path, text, language) = open(ctx, path, language)?;
    let (checker, problems) = match language {
        Language::Json => ("serde_json".to_owned(), json_syntax(&text)),
        Language::Toml => ("toml".to_owned(), toml_syntax(&text)),
        Language::Bash => ("shellcheck".to_owned(), shellcheck(ctx, &path)?),
        Language::Python => python_lint(ctx, &path)?,
        Language::Rust => {
            return Err(
                "rust has no single-file linter: run `cargo clippy` (e.g. with the bash tool)"
                    .to_owned(),
            );
        }
    };
    let problems = capped(problems);
    Ok(Report {
        path,
        language,
        checker,
        ok: problems.is_empty(),
        problems,
    })
}

#[derive(Deserialize)]
struct ShellcheckJson {
    comments: Vec<ShellcheckComment>,
}

#[derive(Deserialize)]
struct ShellcheckComment {
    line: usize,
    column: usize,
    level: String,
    code: u32,
    message: String,
}

/// Runs shellcheck on `path` alone: `--norc` so that no `.shellcheckrc` (a repository's, which
/// can turn on `external-sources` and make shellcheck open any file a `# shellcheck source=`
/// directive names, `/dev/zero` included) is read, and without `-x`, so no sourced file is
/// followed.
fn shellcheck(ctx: &Ctx, path: &str) -> Outcome<Vec<Problem>> {
    let out = run(ctx, "shellcheck", &["--norc", "--format=json1", "--", path]).map_err(|e| {
        if e.starts_with("cannot run") {
            format!("{e} (install shellcheck to lint bash)")
        } else {
            e
        }
    })?;
    let parsed: ShellcheckJson = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "shellcheck said something unexpected ({e}): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    Ok(parsed
        .comments
        .into_iter()
        .map(|c| Problem {
            line: Some(c.line),
            column: Some(c.column),
            level: c.level,
            code: Some(format!("SC{}", c.code)),
            message: c.message,
        })
        .collect())
}

fn python_lint(ctx: &Ctx, path: &str) -> Outcome<(String, Vec<Problem>)> {
    let linters: [(&str, &[&str]); 3] = [
        (
            "ruff",
            // `--isolated`: no `pyproject.toml`/`ruff.toml` is read (their `extend` can name a
            // file anywhere). pyflakes reads no configuration.
            &[
                "check",
                "--isolated",
                "--output-format=concise",
                "--no-cache",
                "--quiet",
            ],
        ),
        ("pyflakes3", &[]),
        ("pyflakes", &[]),
    ];
    for (program, args) in linters {
        let mut all: Vec<&str> = args.to_vec();
        all.push(path);
        let out = match run(ctx, program, &all) {
            Ok(out) => out,
            // Not installed: the next one.
            Err(e) if e.starts_with("cannot run") => continue,
            Err(e) => return Err(e),
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let prefix = format!("{path}:");
        let problems = text
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix(&prefix)?;
                let mut parts = rest.splitn(3, ':');
                let line = parts.next()?.trim().parse().ok();
                let column = parts.next()?.trim().parse().ok();
                let message = parts.next()?.trim();
                let (code, message) = match message.split_once(' ') {
                    Some((c, m)) if program == "ruff" => (Some(c.to_owned()), m.to_owned()),
                    _ => (None, message.to_owned()),
                };
                Some(Problem {
                    line,
                    column,
                    level: "warning".to_owned(),
                    code,
                    message,
                })
            })
            .collect();
        return Ok((program.to_owned(), problems));
    }
    Err("no python linter is installed (tried ruff, pyflakes3, pyflakes)".to_owned())
}

/// Shows how two text files differ, as a unified diff with 3 lines of context (empty when they
/// are the same).
#[tool]
fn diff_files(
    /// The old file.
    path_a: &str,
    /// The new file.
    path_b: &str,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let (_, old) = read_in_workspace(ctx, path_a)?;
    let (_, new) = read_in_workspace(ctx, path_b)?;
    let diff = similar::TextDiff::configure()
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(&old, &new);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .header(path_a, path_b)
        .to_string();
    if out.len() > MAX_DIFF_OUTPUT {
        let mut cut = MAX_DIFF_OUTPUT;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        let omitted = out.len() - cut;
        out.truncate(cut);
        out.push_str(&format!("\n[… {omitted} more bytes of diff omitted …]\n"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes a text that nests `n` times.
    type Nester = fn(usize) -> String;

    /// Texts that nest `n` times, one per construct that makes `syn` recurse.
    const NESTERS: &[(&str, Nester)] = &[
        ("parentheses", |n| {
            format!("const X: u8 = {}1{};", "(".repeat(n), ")".repeat(n))
        }),
        ("blocks", |n| {
            format!("fn f() {}{}", "{".repeat(n), "}".repeat(n))
        }),
        ("unary minus", |n| {
            format!("const X: i8 = {}1;", "-".repeat(n))
        }),
        ("not", |n| format!("const X: bool = {}true;", "!".repeat(n))),
        ("references", |n| format!("type T = {}u8;", "& ".repeat(n))),
        ("generics", |n| {
            format!("type T = {}u8{};", "Vec<".repeat(n), ">".repeat(n))
        }),
        ("fn pointers", |n| {
            format!("type T = {}u8;", "fn() -> ".repeat(n))
        }),
        ("else if", |n| {
            format!("fn f() {{ if a {{}} {}}}", "else if a {} ".repeat(n))
        }),
        ("closures", |n| {
            format!("fn f() {{ let _ = {}1; }}", "|| ".repeat(n))
        }),
        ("return", |n| {
            format!("fn f() {{ {}1; }}", "return ".repeat(n))
        }),
        ("assignment", |n| {
            format!("fn f() {{ a {}; }}", "= a ".repeat(n))
        }),
        ("ranges", |n| {
            format!("fn f() {{ let _ = {}1; }}", ".. ".repeat(n))
        }),
        ("match", |n| {
            format!(
                "fn f() {{ {}1{} }}",
                "match a { _ => ".repeat(n),
                " }".repeat(n)
            )
        }),
    ];

    #[test]
    fn ordinary_rust_nests_shallowly() {
        let text = "use std::io::{self, Read};\n\
            /// Doc.\n\
            #[derive(Debug, Clone)]\n\
            struct S<T: Clone> { a: Vec<Option<T>>, b: &'static str }\n\
            impl<T: Clone> S<T> {\n\
                fn f(&mut self, x: i32) -> Result<i32, io::Error> {\n\
                    if x < 0 && !self.b.is_empty() { return Ok(-x); } else if x == 0 { }\n\
                    let y = match x { 1 => 2, _ => x * 2 + 1 };\n\
                    Ok(self.a.iter().filter(|v| v.is_some()).count() as i32 + y)\n\
                }\n\
            }\n";
        let depth = rust_nesting(text);
        assert!(depth < 40, "{depth}");
        assert_eq!(rust_syntax(text), Ok(Vec::new()));
    }

    /// Every construct is counted at least once per level, so a deep one is refused; and at
    /// the deepest count still accepted, `syn` finishes on its thread's stack.
    #[test]
    fn deep_rust_is_refused_and_the_deepest_accepted_parses() {
        for (name, nest) in NESTERS {
            assert!(
                rust_nesting(&nest(RUST_NESTING_LIMIT + 1)) > RUST_NESTING_LIMIT,
                "{name}"
            );
            let refused = rust_syntax(&nest(100_000)).unwrap_err();
            assert!(refused.contains("nests too deeply"), "{name}: {refused}");
            // The largest n still under the limit.
            let (mut low, mut high) = (1, RUST_NESTING_LIMIT + 1);
            while low + 1 < high {
                let mid = (low + high) / 2;
                if rust_nesting(&nest(mid)) <= RUST_NESTING_LIMIT {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            assert!(rust_syntax(&nest(low)).is_ok(), "{name} at {low}");
        }
    }
}

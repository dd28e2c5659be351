//! check/interp: interpreter one-liners — the code after `python -c`, `node -e`, `ruby -e`,
//! `perl -e`, `php -r`, `deno eval`, or in a heredoc or here-string fed to one of them. The code
//! is parsed with its language's grammar (Perl with a small scanner); calls the `interpreters`
//! pack names are judged: a literal command a spawning call runs goes back through the whole
//! analyser as bash, and only its *deny* findings come out; a deleting call with a literal path
//! outside the working directory, or a home or system path, is denied.
//!
//! It only ever adds denies: a one-liner asks already, because no interpreter is allowlisted.
//! Code it cannot parse adds an `ask` finding; code it cannot follow (a name bound more than
//! once, an interpolated string, an operand only run time knows) adds nothing. It never allows
//! anything.

mod code;
mod editor;
mod other;
mod pack;
mod perl;

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::{Ctx, Scope};
use crate::budget::Budget;
use crate::finding::{Code, Span, Verdict};
use crate::segment::{RedirectOp, Word};

use self::code::Form;
use self::pack::{Kind, Rule};

/// A language whose one-liners cmdguard reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Lang {
    /// `python`, `python3`, `python3.11`, `pypy3`.
    Python,
    /// `node`, `nodejs`, `deno`, `bun`, and the TypeScript runners `tsx`, `ts-node` (their
    /// `-e` code is read with the JavaScript grammar; TypeScript-only syntax does not parse and
    /// asks).
    JavaScript,
    /// `ruby`.
    Ruby,
    /// `php`.
    Php,
    /// `perl`.
    Perl,
    /// `lua`, `lua5.4`, `luajit` (read by a small scanner, like the languages below).
    Lua,
    /// `Rscript`, `R`.
    R,
    /// `julia`.
    Julia,
    /// `osascript`.
    AppleScript,
    /// `pwsh`, `powershell`.
    PowerShell,
    /// `tclsh`.
    Tcl,
    /// `groovy`.
    Groovy,
}

impl Lang {
    fn name(self) -> &'static str {
        match self {
            Lang::Python => "Python",
            Lang::JavaScript => "JavaScript",
            Lang::Ruby => "Ruby",
            Lang::Php => "PHP",
            Lang::Perl => "Perl",
            Lang::Lua => "Lua",
            Lang::R => "R",
            Lang::Julia => "Julia",
            Lang::AppleScript => "AppleScript",
            Lang::PowerShell => "PowerShell",
            Lang::Tcl => "Tcl",
            Lang::Groovy => "Groovy",
        }
    }
}

/// A literal argument value, as far as the code lets it be known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// A string (or a path built from strings; `~` stands for the home directory).
    Text(String),
    /// A list of strings: the words of a command.
    Words(Vec<String>),
}

/// One call found in the code: the names it may stand for (after imports and aliases), its
/// positional and keyword arguments, and the arguments of the call its method was called on
/// (`Path(p).unlink()`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Call {
    pub names: Vec<String>,
    pub args: Vec<Option<Value>>,
    pub keywords: Vec<(String, Option<Value>)>,
    pub receiver: Vec<Option<Value>>,
}

/// The last part of a call name whose member only run time knows (`cp[name](…)` is
/// `child_process.[]`).
pub(crate) const UNKNOWN_MEMBER: &str = ".[]";

/// The name a string literal of the code is reported under (no rule names it): when a spawning
/// call runs a command that is not a literal (`subprocess.run(c.split())`), each literal of
/// the code may be that command, so a denied one denies (the design rule: never allow, deny
/// what is visible, ask otherwise).
pub(crate) const LITERAL: &str = "\"";

/// Most string literals of one piece of code read as possible commands.
pub(crate) const MAX_LITERALS: usize = 8;

/// What reading the code gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The code parsed; these are its calls, in source order.
    Calls(Vec<Call>),
    /// The code did not parse (or its grammar is not built in): why, for a person.
    Unparsed(String),
}

/// What the command line gives the code besides its text: the operands after it, the
/// variables assigned before the program (`C='…' python3 -c …`), and a here-string on its
/// stdin when the code came by option. Only static values are here; anything else is absent,
/// so a read of it stays unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Given {
    /// The arguments the code sees after its own name.
    pub argv: Vec<String>,
    /// Static assignments in front of the interpreter, by name.
    pub env: Vec<(String, String)>,
    /// The text of a here-string fed to code given by option.
    pub stdin: Option<String>,
}

/// Most spawned commands analysed per one-liner; more are left to the one-liner's `ask`.
const MAX_SPAWNS: usize = 32;

/// Deepest nesting of `eval("…")` code read inside a one-liner.
const MAX_EVAL_DEPTH: usize = 4;

/// Judges the code an interpreter command runs. `program` is the command's first word;
/// segment `i` holds the heredoc or here-string that may feed it. Adds findings only.
pub(crate) fn check(cx: &mut Ctx<'_>, i: usize, program: &str, words: &[Word]) {
    if editor::check(cx, i, program, words) {
        return;
    }
    let Some(lang) = language(super::deny::basename(program)) else {
        return;
    };
    let mut sources = sources(cx, i, lang, words);
    if super::deny::basename(program).starts_with("ipython") {
        for src in &mut sources {
            src.code = ipython_shell_lines(&src.code);
        }
    }
    let (env, stdin) = given_env_stdin(cx, i);
    for src in sources {
        let given = Given {
            argv: src.argv.clone(),
            env: env.clone(),
            stdin: (src.form == Form::Option).then(|| stdin.clone()).flatten(),
        };
        if !cx.budget.take_bytes(src.code.len()) {
            // The analyser reports the spent budget; the one-liner asks.
            return;
        }
        let time = Duration::from_millis(cx.list.limits.max_parse_ms).min(cx.budget.time_left());
        match scan(lang, src.form, &src.code, &given, cx.budget, time) {
            Scan::Unparsed(why) => cx.push(
                Code::Exec,
                src.at,
                Some(i),
                format!(
                    "the {} code of {} {why}, so cmdguard cannot tell what it runs",
                    lang.name(),
                    src.what
                ),
            ),
            Scan::Calls(calls) => judge(cx, i, lang, &src, &given, &calls, 0),
        }
    }
}

/// IPython's shell escapes as the Python they run: a line `!CMD` (or `!!CMD`, `%system CMD`,
/// `%sx CMD`) runs CMD with the shell, so it is read as `__import__("os").system("CMD")`.
/// Other lines are left as they are (IPython's other magics do not parse, and ask).
fn ipython_shell_lines(code: &str) -> String {
    code.lines()
        .map(|line| {
            let body = line.trim_start();
            let indent = &line[..line.len() - body.len()];
            let cmd = body
                .strip_prefix("!!")
                .or_else(|| body.strip_prefix('!'))
                .or_else(|| body.strip_prefix("%system "))
                .or_else(|| body.strip_prefix("%sx "));
            match cmd {
                Some(cmd) => {
                    let quoted = cmd.replace('\\', "\\\\").replace('"', "\\\"");
                    format!("{indent}__import__(\"os\").system(\"{quoted}\")")
                }
                None => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The static assignments in front of segment `i`'s program and the static here-string on its
/// stdin: what `os.environ["C"]` and `sys.stdin.read()` read when bash runs the line.
fn given_env_stdin(cx: &Ctx<'_>, i: usize) -> (Vec<(String, String)>, Option<String>) {
    let Some(seg) = cx.script.segments.get(i) else {
        return (Vec::new(), None);
    };
    let env = seg
        .assignments
        .iter()
        .filter(|a| !a.subscript)
        .filter_map(|a| Some((a.name.clone(), a.value.static_text()?.to_string())))
        .collect();
    let stdin = seg
        .redirects
        .iter()
        .rfind(|r| matches!(r.fd, None | Some(0)) && r.op == RedirectOp::Herestring)
        .and_then(|r| r.target.as_ref()?.static_text())
        // A here-string ends with the newline bash adds.
        .map(|t| format!("{t}\n"));
    (env, stdin)
}

/// Reads `code` as `lang`; `given` is what the line gives it (operands, environment, stdin).
/// Bounded by `budget` and `time`; never panics.
pub(crate) fn scan(
    lang: Lang,
    form: Form,
    code: &str,
    given: &Given,
    budget: &Budget,
    time: Duration,
) -> Scan {
    match lang {
        Lang::Perl => perl::scan(code, given, budget),
        Lang::Lua
        | Lang::R
        | Lang::Julia
        | Lang::AppleScript
        | Lang::PowerShell
        | Lang::Tcl
        | Lang::Groovy => other::scan(lang, code, budget),
        Lang::Python | Lang::JavaScript | Lang::Ruby | Lang::Php => {
            code::scan(lang, form, code, given, budget, time)
        }
    }
}

/// The language of a program name: versioned names included (`python3.11`, `ruby3.2`).
pub(crate) fn language(name: &str) -> Option<Lang> {
    // A Windows spelling runs the same interpreter.
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let versioned = |stem: &str| {
        name.strip_prefix(stem)
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    if versioned("python") || versioned("pypy") || versioned("ipython") {
        Some(Lang::Python)
    } else if matches!(
        name,
        // mongosh runs Node.js: `require("child_process")` works in its `--eval` code.
        "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" | "mongosh"
    ) {
        Some(Lang::JavaScript)
    } else if versioned("ruby") {
        Some(Lang::Ruby)
    } else if versioned("perl") {
        Some(Lang::Perl)
    } else if versioned("php") {
        Some(Lang::Php)
    } else if versioned("lua") || name == "luajit" {
        Some(Lang::Lua)
    } else if matches!(name, "Rscript" | "R") {
        Some(Lang::R)
    } else if versioned("julia") {
        Some(Lang::Julia)
    } else if name == "osascript" {
        Some(Lang::AppleScript)
    } else if matches!(name, "pwsh" | "powershell") {
        Some(Lang::PowerShell)
    } else if versioned("tclsh") {
        Some(Lang::Tcl)
    } else if name == "groovy" {
        Some(Lang::Groovy)
    } else {
        None
    }
}

/// Code an interpreter command runs, with where it is in the command.
struct Source {
    code: String,
    at: Span,
    what: String,
    form: Form,
    /// Bash expands parameters in the text before the interpreter reads it (`"…$HOME…"`, an
    /// unquoted heredoc): `$HOME` there is the home directory, other `$X` unknown.
    expanded: bool,
    /// The arguments the code sees after its own name (`sys.argv[1:]`, Ruby's `ARGV`), as far
    /// as they are static.
    argv: Vec<String>,
}

/// How one interpreter's options are read to find its code.
struct Options {
    /// Short options whose value is code (`-c`, `-e`).
    code_short: &'static [u8],
    /// Long options whose value is code (`--eval`).
    code_long: &'static [&'static str],
    /// Short options that take a value: the rest of the word, or the next word when empty.
    value_short: &'static [u8],
    /// Short options whose value can only be attached (`-i.bak`): they end the word, and
    /// never take the next one.
    attached_short: &'static [u8],
    /// Short options followed by optional digits only (`perl -l0`, `-0777`): `-le` is `-l -e`.
    digits_short: &'static [u8],
    /// Long options that take the next word as their value unless written `--opt=value`.
    value_long: &'static [&'static str],
    /// Options after which the next operand is a module or file, not code (`python -m`).
    stop_short: &'static [u8],
    /// The code option ends the options: every later word is an argument (`python -c`).
    code_ends_options: bool,
}

fn options(lang: Lang) -> Options {
    match lang {
        Lang::Python => Options {
            code_short: b"c",
            code_long: &[],
            value_short: b"WXQ",
            attached_short: b"",
            digits_short: b"",
            value_long: &["--check-hash-based-pycs"],
            stop_short: b"m",
            code_ends_options: true,
        },
        Lang::JavaScript => Options {
            // `-p` / `--print` are read apart: they take code only when an operand follows.
            code_short: b"e",
            code_long: &["--eval"],
            value_short: b"rC",
            attached_short: b"",
            digits_short: b"",
            value_long: &[
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--conditions",
                "--input-type",
                "--env-file",
                "--preload",
                "--title",
                "--ext",
                "--config",
            ],
            stop_short: b"",
            code_ends_options: false,
        },
        Lang::Ruby => Options {
            code_short: b"e",
            code_long: &[],
            value_short: b"rICEF",
            attached_short: b"ixKW",
            digits_short: b"0T",
            value_long: &["--encoding", "--external-encoding", "--internal-encoding"],
            stop_short: b"",
            code_ends_options: false,
        },
        Lang::Perl => Options {
            code_short: b"eE",
            code_long: &[],
            value_short: b"IMm",
            attached_short: b"ixCDF",
            digits_short: b"0l",
            value_long: &[],
            stop_short: b"",
            code_ends_options: false,
        },
        Lang::Php => Options {
            code_short: b"rBRE",
            code_long: &[
                "--run",
                "--process-begin",
                "--process-code",
                "--process-end",
            ],
            value_short: b"dcz",
            attached_short: b"",
            digits_short: b"",
            value_long: &["--define", "--php-ini", "--zend-extension"],
            stop_short: b"fF",
            code_ends_options: false,
        },
        // `lua -e CODE`, `-l MODULE`; a script operand ends the options.
        Lang::Lua => Options {
            code_short: b"e",
            code_long: &[],
            value_short: b"l",
            attached_short: b"",
            digits_short: b"",
            value_long: &[],
            stop_short: b"",
            code_ends_options: false,
        },
        // `Rscript -e EXPR` (several join); its other options are `--name[=value]`.
        Lang::R => Options {
            code_short: b"e",
            code_long: &[],
            value_short: b"",
            attached_short: b"",
            digits_short: b"",
            value_long: &[],
            stop_short: b"",
            code_ends_options: false,
        },
        // `julia -e CODE` / `-E CODE`; `-p N`, `-t N`, `-L FILE`, `-J IMAGE` take values.
        Lang::Julia => Options {
            code_short: b"eE",
            code_long: &["--eval", "--print"],
            value_short: b"ptLJCO",
            attached_short: b"",
            digits_short: b"",
            value_long: &["--project", "--threads", "--procs", "--load", "--sysimage"],
            stop_short: b"",
            code_ends_options: false,
        },
        // `osascript -e LINE` (several join as lines); `-l LANGUAGE`, `-s FLAGS`.
        Lang::AppleScript => Options {
            code_short: b"e",
            code_long: &[],
            value_short: b"ls",
            attached_short: b"",
            digits_short: b"",
            value_long: &[],
            stop_short: b"",
            code_ends_options: false,
        },
        // `groovy -e CODE`; `-D NAME=VALUE`, `-c CHARSET`, `-cp PATH` take values.
        Lang::Groovy => Options {
            code_short: b"e",
            code_long: &[],
            value_short: b"Dc",
            attached_short: b"",
            digits_short: b"",
            value_long: &["--classpath", "--encoding"],
            stop_short: b"",
            code_ends_options: false,
        },
        // PowerShell's options are read by `pwsh_sources`; Tcl has none that hold code, and
        // reads its program from stdin or a script operand.
        Lang::PowerShell | Lang::Tcl => Options {
            code_short: b"",
            code_long: &[],
            value_short: b"",
            attached_short: b"",
            digits_short: b"",
            value_long: &[],
            stop_short: b"",
            code_ends_options: false,
        },
    }
}

/// `pwsh -Command CODE…` (`-c`, `-Command`, any prefix of it from `-c`): PowerShell joins
/// every word after the option into the command it runs. `-EncodedCommand` and a script
/// file are not read: the command keeps its `ask`.
fn pwsh_sources(program: &str, words: &[Word]) -> Vec<Source> {
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(t) = w.static_text() else {
            return Vec::new();
        };
        let lower = t.to_ascii_lowercase();
        let Some(opt) = lower.strip_prefix('-') else {
            // A script file operand.
            return Vec::new();
        };
        if !opt.is_empty() && "command".starts_with(opt) {
            let rest = &words[k + 1..];
            let Some(texts) = rest
                .iter()
                .map(Word::static_text)
                .collect::<Option<Vec<_>>>()
            else {
                return Vec::new();
            };
            let Some(first) = rest.first() else {
                return Vec::new();
            };
            let at = rest.iter().fold(first.span, |a, w| a.cover(w.span));
            return vec![Source {
                code: texts.join(" "),
                at,
                what: format!("`{program} {t}`"),
                form: Form::Option,
                expanded: false,
                argv: Vec::new(),
            }];
        }
        // Options with a value: `-File`, `-ExecutionPolicy`, `-WorkingDirectory`, ….
        if matches!(
            opt,
            "f" | "file" | "encodedcommand" | "e" | "ec" | "settingsfile" | "custompipename"
        ) {
            return Vec::new();
        }
    }
    Vec::new()
}

/// `mongosh [ADDRESS] --eval CODE …`: mongosh takes its options after the connection string
/// too, and reads only its `--eval` values as JavaScript (its input is shell syntax, `use db`,
/// `show dbs`, which the database pack reads).
fn mongosh_sources(program: &str, words: &[Word]) -> Vec<Source> {
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(t) = w.static_text() else {
            continue;
        };
        let (code, from) = match t.strip_prefix("--eval=") {
            Some(v) => (v, w),
            None if t == "--eval" => match words.get(k + 1) {
                Some(next) => (next.text.as_str(), next),
                None => continue,
            },
            None => continue,
        };
        let (at, e) = (from.span, from.expansions);
        if e.command || e.process || e.arithmetic || e.glob {
            continue;
        }
        out.push(Source {
            code: code.to_string(),
            at,
            what: format!("`{program} --eval`"),
            form: Form::Option,
            expanded: e.parameter,
            argv: Vec::new(),
        });
    }
    out
}

/// Finds the code a command runs: option values (`-c CODE`, `-eCODE`, several `-e` joined by
/// newlines, node's `-p CODE` / `-pe CODE`), `deno eval CODE`, or, with no script operand, a
/// heredoc, here-string or piped `echo` on stdin; a script operand the line shows
/// (`<(echo CODE)`, `/dev/stdin`) too. Each source carries the operands the code sees as its
/// arguments. Only static words count: a run-time value leaves the command to its `ask`.
fn sources(cx: &Ctx<'_>, i: usize, lang: Lang, words: &[Word]) -> Vec<Source> {
    let mut out = code_sources(cx, i, lang, words);
    if lang == Lang::Perl {
        let prelude = perl_ipc_modules(words);
        if !prelude.is_empty() {
            for source in &mut out {
                source.code.insert_str(0, &prelude);
            }
        }
    }
    out
}

/// `perl -MIPC::Run=run -e 'run [...]'`: perl reads `-MMODULE` as `use MODULE;` before the
/// code. The IPC modules (whose calls the pack reads only where the code loads them) are put
/// in front of the code as that `use`, so the scanner sees them loaded.
fn perl_ipc_modules(words: &[Word]) -> String {
    let mut prelude = String::new();
    let mut k = 1;
    while let Some(t) = words.get(k).and_then(Word::static_text) {
        if !t.starts_with('-') || t == "--" || t == "-" {
            break;
        }
        let module = match t.strip_prefix("-M").or_else(|| t.strip_prefix("-m")) {
            Some("") => {
                k += 1;
                words.get(k).and_then(Word::static_text)
            }
            Some(m) => Some(m),
            None => None,
        };
        if let Some(m) = module.map(|m| m.split_once('=').map_or(m, |(n, _)| n))
            && m.starts_with("IPC::")
            && m.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b':' || b == b'_')
        {
            prelude.push_str(&format!("use {m};\n"));
        }
        k += 1;
    }
    prelude
}

/// [`sources`] before the Perl module prelude.
fn code_sources(cx: &Ctx<'_>, i: usize, lang: Lang, words: &[Word]) -> Vec<Source> {
    let segment = cx.script.segments.get(i);
    let src = cx.src;
    let program = words.first().map(|w| w.text.as_str()).unwrap_or("");
    let mut out = Vec::new();
    let mut k = 1;
    if super::deny::basename(program).starts_with("deno") {
        // `deno eval [OPTIONS] CODE`: the first operand after the subcommand is the code.
        if words.get(1).and_then(Word::static_text) != Some("eval") {
            return out;
        }
        k = 2;
        while let Some(w) = words.get(k) {
            match w.static_text() {
                Some(t) if t.starts_with('-') => k += 1,
                Some(t) => {
                    out.push(Source {
                        code: t.to_string(),
                        at: w.span,
                        what: format!("`{program} eval`"),
                        form: Form::Option,
                        expanded: false,
                        argv: Vec::new(),
                    });
                    return out;
                }
                None => return out,
            }
        }
        return out;
    }
    if super::deny::basename(program).starts_with("mongosh") {
        return mongosh_sources(program, words);
    }
    if lang == Lang::PowerShell {
        return pwsh_sources(program, words);
    }
    let opts = options(lang);
    let push = |out: &mut Vec<Source>, w: &Word, code: &str, opt: &str| {
        // A word with a command substitution runs what only run time knows: nothing to read.
        // Parameters (`"…rm -rf $HOME…"`) are read as written; only denies come out of it.
        let e = w.expansions;
        if e.command || e.process || e.arithmetic || e.glob {
            return;
        }
        let expanded = e.parameter;
        match out.first_mut() {
            // `perl -e A -e B` runs A and B as lines of one program (node runs only the last;
            // reading both can only add a deny).
            Some(first) => {
                first.code.push('\n');
                first.code.push_str(code);
                first.at = first.at.cover(w.span);
                first.expanded |= expanded;
            }
            None => out.push(Source {
                code: code.to_string(),
                at: w.span,
                what: format!("`{program} {opt}`"),
                form: Form::Option,
                expanded,
                argv: Vec::new(),
            }),
        }
    };
    let mut operand = false;
    // Where the program's own arguments start, once its options end.
    let mut rest: Option<usize> = None;
    // The script operand, when there is one.
    let mut file: Option<usize> = None;
    while let Some(w) = words.get(k) {
        // `python3 <(echo CODE)`: a process substitution is a file operand.
        if w.text.starts_with("<(") && w.expansions.process {
            operand = true;
            file = Some(k);
            break;
        }
        let Some(t) = w.static_text() else {
            // A run-time option could be anything, code included: nothing certain to read.
            return out;
        };
        if t == "--" || t == "-" || !t.starts_with('-') {
            file = match t {
                "-" => None,
                "--" => Some(k + 1),
                _ => Some(k),
            };
            operand = t != "-";
            // Node's stdin script sees `-` as its first argument; Python's does not.
            rest = Some(match t {
                "--" => k + 1,
                "-" if lang == Lang::Python => k + 1,
                _ => k,
            });
            break;
        }
        if lang == Lang::JavaScript && matches!(t, "-p" | "--print" | "-pe") {
            // Node: `-pe` is `--print --eval`; `-p` and `--print` take the next word as code
            // unless it is an option (`-p -e CODE`); `--print=X` is only the flag.
            match words.get(k + 1) {
                Some(next) if t == "-pe" || !next.text.starts_with('-') => {
                    push(&mut out, next, &next.text, t);
                    k += 2;
                }
                Some(_) => k += 1,
                None => return out,
            }
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let name = format!("--{name}");
            if opts.code_long.contains(&name.as_str()) {
                match attached {
                    Some(v) => push(&mut out, w, v, &name),
                    None => match words.get(k + 1) {
                        Some(next) => {
                            push(&mut out, next, &next.text, &name);
                            k += 1;
                        }
                        None => return out,
                    },
                }
            } else if attached.is_none() && opts.value_long.contains(&name.as_str()) {
                k += 1;
            }
            k += 1;
            continue;
        }
        let bytes = t.as_bytes();
        let mut p = 1;
        let mut next_taken = false;
        let mut stop = false;
        while p < bytes.len() {
            let c = bytes[p];
            let tail = &t[p + 1..];
            if opts.code_short.contains(&c) {
                let opt = format!("-{}", c as char);
                if tail.is_empty() {
                    match words.get(k + 1) {
                        Some(next) => push(&mut out, next, &next.text, &opt),
                        None => return out,
                    }
                    next_taken = true;
                } else {
                    push(&mut out, w, tail, &opt);
                }
                break;
            }
            if opts.value_short.contains(&c) {
                next_taken = tail.is_empty();
                break;
            }
            if opts.attached_short.contains(&c) {
                break;
            }
            if opts.digits_short.contains(&c) {
                p += 1;
                while p < bytes.len() && bytes[p].is_ascii_digit() {
                    p += 1;
                }
                continue;
            }
            if opts.stop_short.contains(&c) {
                stop = true;
                break;
            }
            p += 1;
        }
        if stop {
            return out;
        }
        k += if next_taken { 2 } else { 1 };
        if opts.code_ends_options && !out.is_empty() {
            // Python: every word after `-c CODE` is an argument of the code, `--` included.
            rest = Some(k);
            break;
        }
    }
    if !out.is_empty() {
        let argv = rest.map(|r| operands(words.get(r..).unwrap_or_default()));
        for s in &mut out {
            s.argv = argv.clone().unwrap_or_default();
        }
        return out;
    }
    // Whatever the interpreter, code given by option is all it runs. A script file the line
    // shows (`<(echo CODE)`, `/dev/stdin` fed a here-string or an `echo`) is read.
    if operand {
        let Some((fk, f)) = file.and_then(|fk| Some((fk, words.get(fk)?))) else {
            return out;
        };
        if let Some(code) = crate::check::deny::operand_text(cx, i, f) {
            let argv = operands(words.get(fk + 1..).unwrap_or_default());
            out.push(Source {
                code,
                at: f.span,
                what: format!("the script `{program}` reads from `{}`", f.text),
                form: Form::Stdin,
                expanded: false,
                argv,
            });
        }
        return out;
    }
    // No code and no script file: the interpreter reads its program from stdin.
    let argv = rest
        .map(|r| operands(words.get(r..).unwrap_or_default()))
        .unwrap_or_default();
    let Some(seg) = segment else { return out };
    let Some(r) = seg.redirects.iter().find(|r| {
        matches!(
            r.op,
            RedirectOp::Heredoc | RedirectOp::HeredocStripTabs | RedirectOp::Herestring
        ) && matches!(r.fd, None | Some(0))
    }) else {
        // `echo CODE | python3`: what an `echo` or `printf` pipes in is the program.
        if let Some(code) = crate::check::deny::piped_text(cx, i).filter(|c| !c.is_empty()) {
            out.push(Source {
                code,
                at: words.first().map(|w| w.span).unwrap_or_default(),
                what: format!("the code piped into `{program}`"),
                form: Form::Stdin,
                expanded: false,
                argv,
            });
        }
        return out;
    };
    match r.op {
        RedirectOp::Herestring => {
            if let Some(t) = r.target.as_ref().and_then(Word::static_text) {
                out.push(Source {
                    code: t.to_string(),
                    at: r.span,
                    what: format!("the here-string run by `{program}`"),
                    form: Form::Stdin,
                    expanded: false,
                    argv,
                });
            }
        }
        _ => {
            // An unquoted heredoc's `$x` and `\` are bash's before they are the program's; the
            // text as written is read all the same, since only denies come out of it.
            if let Some(body) = super::wrap::heredoc_body(src, r.span) {
                let code = if r.op == RedirectOp::HeredocStripTabs {
                    body.lines()
                        .map(|l| l.trim_start_matches('\t'))
                        .collect::<Vec<_>>()
                        .join("\n")
                } else {
                    body.to_string()
                };
                out.push(Source {
                    code,
                    at: r.span,
                    what: format!("the heredoc run by `{program}`"),
                    form: Form::Stdin,
                    expanded: !r.quoted_heredoc,
                    argv,
                });
            }
        }
    }
    out
}

/// The arguments a one-liner's code sees: the static words in `words`, up to the first
/// run-time word (it may stand for any number of words, so no later position is known).
fn operands(words: &[Word]) -> Vec<String> {
    words
        .iter()
        .map_while(|w| w.static_text().map(str::to_string))
        .collect()
}

/// Applies the pack's rules to the calls found in one piece of code; `evals` counts the
/// `eval("…")` levels it sits in.
fn judge(
    cx: &mut Ctx<'_>,
    i: usize,
    lang: Lang,
    src: &Source,
    given: &Given,
    calls: &[Call],
    evals: usize,
) {
    let pack = pack::embedded();
    let mut spawns = 0;
    // The first spawning call whose command is not a literal.
    let mut unresolved: Option<(&String, &pack::Rule)> = None;
    for call in calls {
        if !cx.budget.ok() {
            return;
        }
        let Some((name, rule)) = call
            .names
            .iter()
            .find_map(|n| pack.lookup(lang, n).next().map(|r| (n, r)))
            .or_else(|| {
                // `m[x](…)` on a module that spawns: any of its spawning calls.
                call.names.iter().find_map(|n| {
                    let module = n.strip_suffix(UNKNOWN_MEMBER)?;
                    pack.spawn_on(lang, module).map(|r| (n, r))
                })
            })
        else {
            continue;
        };
        let values = values(call, rule);
        let values = match values {
            [first, ..] if rule.single => std::slice::from_ref(first),
            all => all,
        };
        match rule.kind {
            Kind::Spawn => {
                let script = match (&rule.via, rule.program) {
                    (Some(via), _) => via_text(via, values),
                    (None, Some(p)) => match call.args.get(p) {
                        Some(Some(Value::Text(program))) => argv_text(program, values),
                        _ => None,
                    },
                    (None, None) => command_text(values, 0),
                };
                let Some(script) = script else {
                    unresolved = unresolved.or(Some((name, rule)));
                    continue;
                };
                spawns += 1;
                if spawns > MAX_SPAWNS {
                    return;
                }
                spawn(cx, i, src, name, rule, &script);
            }
            Kind::Eval => {
                let Some(Some(Value::Text(code))) = values.first() else {
                    continue;
                };
                if evals >= MAX_EVAL_DEPTH || !cx.budget.take_bytes(code.len()) {
                    continue;
                }
                let time =
                    Duration::from_millis(cx.list.limits.max_parse_ms).min(cx.budget.time_left());
                // Code that does not parse raises at run time: nothing more runs from it.
                if let Scan::Calls(inner) = scan(lang, Form::Option, code, given, cx.budget, time) {
                    let via = Source {
                        code: String::new(),
                        at: src.at,
                        what: format!(
                            "the code `{name}` runs (rule `{}`) in {}",
                            rule.id, src.what
                        ),
                        form: src.form,
                        expanded: src.expanded,
                        argv: src.argv.clone(),
                    };
                    judge(cx, i, lang, &via, given, &inner, evals + 1);
                }
            }
            Kind::Delete => {
                let value = if rule.receiver {
                    call.receiver.first()
                } else {
                    values.first()
                };
                let Some(Some(Value::Text(path))) = value else {
                    continue;
                };
                let Some(path) = expand_home(path, src.expanded) else {
                    continue;
                };
                let path = path.as_ref();
                let why = match outside(path, cx.place.as_deref().and_then(|p| p.dirs())) {
                    Some(why) => Some(why),
                    // A recursive delete of any path destroys a tree, as `rm -r` does.
                    None if rule.anywhere.iter().any(|c| c == name) && !path.is_empty() => {
                        Some("a recursive delete")
                    }
                    None => None,
                };
                if let Some(why) = why {
                    cx.push_rule(
                        Code::Denied,
                        src.at,
                        Some(i),
                        format!(
                            "{}: `{name}` in {} deletes `{path}`, {why} (rule `{}`)",
                            rule.reason, src.what, rule.id
                        ),
                        &rule.id,
                    );
                }
            }
        }
    }
    // A command only run time knows may be any literal of the code.
    if let Some((name, rule)) = unresolved {
        let literals = calls
            .iter()
            .filter(|c| c.names.iter().any(|n| n == LITERAL));
        for call in literals.take(MAX_LITERALS) {
            if let Some(Some(Value::Text(text))) = call.args.first() {
                spawn(cx, i, src, name, rule, text);
            }
        }
    }
}

/// A path as the interpreter sees it once bash has expanded `text`: `$HOME` and `${HOME}` at
/// the start are the home directory (`~`); `None` when another parameter makes it unknown.
fn expand_home(text: &str, expanded: bool) -> Option<std::borrow::Cow<'_, str>> {
    if !expanded {
        return Some(text.into());
    }
    for home in ["$HOME", "${HOME}"] {
        if let Some(rest) = text.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return (!rest.contains('$')).then(|| format!("~{rest}").into());
        }
    }
    (!text.contains('$')).then(|| text.into())
}

/// The command a spawning call runs, as bash text: one string is a script; several strings, or
/// a list, are the words of one command (each quoted). `None` when nothing literal is there.
fn command_text(args: &[Option<Value>], from: usize) -> Option<String> {
    let literal: Vec<&Value> = args.get(from..)?.iter().map_while(Option::as_ref).collect();
    match literal.as_slice() {
        [] => None,
        [Value::Text(script)] => Some(script.clone()),
        values => {
            let mut words: Vec<String> = Vec::new();
            for v in values {
                match v {
                    Value::Text(t) => words.push(quote(t)),
                    Value::Words(ws) => words.extend(ws.iter().map(|w| quote(w))),
                }
            }
            (!words.is_empty()).then(|| words.join(" "))
        }
    }
}

/// The command a driver call stands for: `via` (`sqlite3 db`) followed by the literal values,
/// each one word. `None` when a value is not literal.
fn via_text(via: &str, values: &[Option<Value>]) -> Option<String> {
    let mut words = vec![via.to_string()];
    for v in values {
        match v.as_ref()? {
            Value::Text(t) => words.push(quote(t)),
            Value::Words(ws) => words.extend(ws.iter().map(|w| quote(w))),
        }
    }
    Some(words.join(" "))
}

/// The command a call runs when it names the program apart from its argv (`os.execvp(file,
/// args)`): the program, then the argv after argv\[0\], which is only the name the program
/// sees itself called. `None` when no argv is literal.
fn argv_text(program: &str, values: &[Option<Value>]) -> Option<String> {
    let mut words = vec![quote(program)];
    let mut seen = false;
    for v in values.iter().map_while(Option::as_ref) {
        let items: &[String] = match v {
            Value::Text(t) => std::slice::from_ref(t),
            Value::Words(ws) => ws,
        };
        for w in items {
            if seen {
                words.push(quote(w));
            }
            seen = true;
        }
    }
    seen.then(|| words.join(" "))
}

/// The values a rule reads from a call: its positional arguments from the rule's `argument`
/// on or, when there are none, the first keyword argument the rule names.
fn values<'c>(call: &'c Call, rule: &Rule) -> &'c [Option<Value>] {
    match call.args.get(rule.argument..) {
        Some(v) if !v.is_empty() => v,
        _ => rule
            .keywords
            .iter()
            .find_map(|k| call.keywords.iter().find(|(n, _)| n == k))
            .map(|(_, v)| std::slice::from_ref(v))
            .unwrap_or_default(),
    }
}

/// `s` as one bash word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Analyses the command a call spawns as bash; only its deny findings are kept (the one-liner
/// asks already).
fn spawn(cx: &mut Ctx<'_>, i: usize, src: &Source, name: &str, rule: &Rule, script: &str) {
    let what = format!("the command `{name}` runs in {}", src.what);
    run_nested(cx, i, src.at, &what, &rule.id, script);
}

/// Analyses `script`, a command the code at `at` runs (`what`, found by rule `rule`), as bash;
/// only its deny findings are kept, reported at `at`.
fn run_nested(cx: &mut Ctx<'_>, i: usize, at: Span, what: &str, rule: &str, script: &str) {
    if cx.depth + 1 > cx.list.limits.max_script_depth {
        // Too deep to analyse: the raw-text rules still deny what they recognise.
        super::deny::fallback(cx, i, at, script);
        return;
    }
    let scope = Scope {
        depth: cx.depth + 1,
        place: cx.place.as_deref_mut(),
        budget: cx.budget,
    };
    let inner = cx.nested.analyze_nested(script, scope);
    for mut f in inner.findings {
        if f.severity < Verdict::Deny {
            continue;
        }
        f.message = format!("in {what} (rule `{rule}`): {}", f.message);
        f.span = at;
        cx.findings.push(f.in_segment(Some(i)));
    }
}

/// Why deleting `path` reaches beyond the working directory, or `None` when it stays inside.
/// `dirs` are the directories the command may run in, when known: an absolute path counts as
/// inside only when it lies strictly below every one of them.
pub(crate) fn outside(path: &str, dirs: Option<&[PathBuf]>) -> Option<&'static str> {
    if path.is_empty() {
        return None;
    }
    if path.starts_with('~') {
        return Some("a path in a home directory");
    }
    let p = Path::new(path);
    if p.is_absolute() {
        let p = normalize(p);
        let inside = dirs.is_some_and(|ds| {
            !ds.is_empty() && ds.iter().all(|d| p.starts_with(d) && p.as_path() != d)
        });
        return (!inside).then_some("a path outside the working directory");
    }
    let mut depth: usize = 0;
    for c in p.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Some("a path that leaves the working directory"),
            },
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    (depth == 0).then_some("the working directory itself")
}

/// `p` with `.` and `..` resolved lexically; `..` at the root stays there, as it does in a
/// real path.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) | Component::Normal(_) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreter_names_and_their_versions_are_recognised() {
        let table = [
            ("python", Some(Lang::Python)),
            ("python3.11", Some(Lang::Python)),
            ("pypy3", Some(Lang::Python)),
            ("python3-config", None),
            ("node", Some(Lang::JavaScript)),
            ("tsx", Some(Lang::JavaScript)),
            ("ts-node", Some(Lang::JavaScript)),
            ("bun", Some(Lang::JavaScript)),
            ("ruby3.2", Some(Lang::Ruby)),
            ("perl5.36", Some(Lang::Perl)),
            ("perldoc", None),
            ("php8.2", Some(Lang::Php)),
            ("phpunit", None),
            ("python.exe", Some(Lang::Python)),
            ("ipython", Some(Lang::Python)),
            ("ipython3", Some(Lang::Python)),
        ];
        for (name, want) in table {
            assert_eq!(language(name), want, "{name}");
        }
    }

    #[test]
    fn ipython_shell_escapes_become_os_system() {
        let table = [
            ("!rm -rf v", r#"__import__("os").system("rm -rf v")"#),
            ("  !!ls", r#"  __import__("os").system("ls")"#),
            (
                "%system echo \"a\"",
                r#"__import__("os").system("echo \"a\"")"#,
            ),
            ("x = 1 != 2", "x = 1 != 2"),
            ("print('!x')", "print('!x')"),
        ];
        for (code, want) in table {
            assert_eq!(ipython_shell_lines(code), want, "{code}");
        }
    }

    #[test]
    fn paths_outside_the_working_directory_are_told_apart() {
        let cwd = [PathBuf::from("/work/p")];
        let table: &[(&str, Option<&[PathBuf]>, bool)] = &[
            ("build", None, false),
            ("./out/a.txt", None, false),
            ("a/../b", None, false),
            (".", None, true),
            ("a/../..", None, true),
            ("../x", None, true),
            ("~", None, true),
            ("~/.ssh", None, true),
            ("/", None, true),
            ("/tmp/x", None, true),
            ("/work/p/build", Some(&cwd), false),
            ("/work/p/../q", Some(&cwd), true),
            ("/work/p", Some(&cwd), true),
            ("/work", Some(&cwd), true),
            ("/../..", Some(&cwd), true),
            ("", None, false),
        ];
        for (path, dirs, denied) in table {
            assert_eq!(outside(path, *dirs).is_some(), *denied, "{path}");
        }
    }

    #[test]
    fn home_is_expanded_only_where_bash_expands_it() {
        let table = [
            ("$HOME", true, Some("~")),
            ("${HOME}/x", true, Some("~/x")),
            ("$HOMEDIR/x", true, None),
            ("$D/build", true, None),
            ("/etc", true, Some("/etc")),
            ("$HOME", false, Some("$HOME")),
        ];
        for (text, expanded, want) in table {
            assert_eq!(expand_home(text, expanded).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn spawned_commands_become_bash_text() {
        let t = |s: &str| Some(Value::Text(s.to_string()));
        let ws = |w: &[&str]| Some(Value::Words(w.iter().map(|s| s.to_string()).collect()));
        assert_eq!(
            command_text(&[t("rm -rf /")], 0).as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            command_text(&[t("rm"), ws(&["-rf", "it's"]), None], 0).as_deref(),
            Some(r"'rm' '-rf' 'it'\''s'")
        );
        assert_eq!(command_text(&[None, t("x")], 0), None);
        assert_eq!(
            command_text(&[t("p"), ws(&["ls"])], 1).as_deref(),
            Some("'ls'")
        );
        assert_eq!(command_text(&[], 3), None);
    }

    #[test]
    fn a_program_named_apart_replaces_argv0() {
        let t = |s: &str| Some(Value::Text(s.to_string()));
        let ws = |w: &[&str]| Some(Value::Words(w.iter().map(|s| s.to_string()).collect()));
        type Case<'a> = (&'a str, &'a [Option<Value>], Option<&'a str>);
        let table: &[Case<'_>] = &[
            ("rm", &[ws(&["ls", "-rf", "/"])], Some("'rm' '-rf' '/'")),
            ("rm", &[t("rm"), t("-rf"), t("/")], Some("'rm' '-rf' '/'")),
            (
                "/bin/sh",
                &[t("sh"), t("-c"), None, t("x")],
                Some("'/bin/sh' '-c'"),
            ),
            ("ls", &[ws(&["ls"])], Some("'ls'")),
            ("rm", &[None, t("-rf")], None),
            ("rm", &[], None),
        ];
        for (program, values, want) in table {
            assert_eq!(
                argv_text(program, values).as_deref(),
                *want,
                "{program} {values:?}"
            );
        }
    }
}

//! Structure-aware fuzzing: the fuzzer's bytes are decoded (`arbitrary`) into a small bash syntax
//! tree, which is rendered to text and analysed. Byte-level mutation rarely gets past the first
//! quote or substitution; this target reaches heredocs inside substitutions inside `for` loops.
//!
//! Properties are those of the `analyze` target. With `CMDGUARD_FUZZ_ALLOWS=FILE` set, every
//! rendered command that comes out `allow` is appended to FILE as a JSON line, which the
//! differential test reads through `CMDGUARD_DIFF_EXTRA=FILE` to check it against real bash.
#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::Arbitrary;
use cmdguard::Verdict;
use libfuzzer_sys::fuzz_target;

/// Program names: allowlisted, denied, wrappers, shells and builtins.
const PROGRAMS: &[&str] = &[
    "ls", "cat", "echo", "grep", "git", "find", "sed", "awk", "sort", "head", "rg", "env", "xargs",
    "bash", "sh", "eval", "exec", "command", "builtin", "source", ".", "timeout", "nice", "sudo",
    "rm", "curl", "python3", "cd", "test", "[", "true", "printf", "read", "export", "declare",
    "let", "trap", "alias", "wc", "tee", "dd", "mkfs", "shutdown", "/bin/ls", "./x", "time",
];

/// Argument words: flags that matter to some rule, paths, and plain text.
const WORDS: &[&str] = &[
    "-rf", "-r", "-f", "-i", "-n", "-c", "-e", "-exec", "-delete", "--output=x", "-o", "--", "/",
    "~", ".", "*", "x", "a b", "status", "diff", "log", "push", "--force", "-C", "s/a/b/", "s/a/b/e",
    "1e id", "w f", "{print}", "system(\"id\")", "{}", ";", "+", "-la", "of=/dev/sda", "id",
    "touch pwned", "-S", "--pre", "HEAD", "=", "]", "-v", "a[$(id)]", "%s",
];

const ASSIGNED: &[&str] = &["LC_ALL", "PATH", "LD_PRELOAD", "IFS", "x", "GIT_PAGER", "BASH_ENV"];

#[derive(Arbitrary, Debug)]
struct Script(Vec<Stmt>);

#[derive(Arbitrary, Debug)]
struct Stmt {
    first: Pipeline,
    rest: Vec<(ListOp, Pipeline)>,
    background: bool,
}

#[derive(Arbitrary, Debug)]
enum ListOp {
    And,
    Or,
    Semi,
    Newline,
    Amp,
}

#[derive(Arbitrary, Debug)]
struct Pipeline {
    bang: bool,
    time: bool,
    first: Command,
    rest: Vec<(bool, Command)>,
}

#[derive(Arbitrary, Debug)]
enum Command {
    Simple {
        assigns: Vec<(u8, Word)>,
        program: Word,
        args: Vec<Word>,
        redirs: Vec<Redir>,
    },
    Subshell(Box<Script>),
    Group(Box<Script>),
    If(Box<Script>, Box<Script>, Option<Box<Script>>),
    While(Box<Script>, Box<Script>),
    For(u8, Vec<Word>, Box<Script>),
    Case(Word, Vec<(Word, Script)>),
    Function(u8, Box<Script>),
    Test(Vec<Word>),
    Arith(Word),
    Coproc(Box<Command>),
}

#[derive(Arbitrary, Debug)]
struct Word(Vec<Part>);

#[derive(Arbitrary, Debug)]
enum Part {
    Program(u8),
    Text(u8),
    Raw(String),
    Single(u8),
    Double(Vec<Part>),
    AnsiC(u8),
    Param(u8, ParamOp),
    CmdSubst(Box<Script>),
    Backtick(Box<Script>),
    Arith(Box<Word>),
    ProcSubst(bool, Box<Script>),
    Brace(Vec<Word>),
    Escape(char),
    Glob,
}

#[derive(Arbitrary, Debug)]
enum ParamOp {
    Plain,
    Braced,
    Indirect,
    Prompt,
    Default(Box<Word>),
    Positional(u8),
}

#[derive(Arbitrary, Debug)]
struct Redir {
    fd: Option<u8>,
    op: RedirOp,
    target: Word,
}

#[derive(Arbitrary, Debug)]
enum RedirOp {
    Out,
    Append,
    In,
    Clobber,
    ReadWrite,
    AllOut,
    AllAppend,
    Dup,
    HereString,
    Heredoc { quoted: bool, strip: bool, body: Vec<Word> },
}

fn pick<'a>(pool: &[&'a str], i: u8) -> &'a str {
    pool[usize::from(i) % pool.len()]
}

/// Renders the tree as bash text. Heredoc bodies are queued and written after the line ends.
struct Render {
    out: String,
    heredocs: Vec<String>,
    depth: usize,
}

impl Render {
    fn script(&mut self, s: &Script) {
        if self.depth > 12 {
            self.out.push_str("true");
            return;
        }
        self.depth += 1;
        for (i, stmt) in s.0.iter().enumerate() {
            if i > 0 {
                self.newline();
            }
            self.stmt(stmt);
        }
        if s.0.is_empty() {
            self.out.push_str("true");
        }
        self.depth -= 1;
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for body in std::mem::take(&mut self.heredocs) {
            self.out.push_str(&body);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.pipeline(&s.first);
        for (op, p) in &s.rest {
            match op {
                ListOp::And => self.out.push_str(" && "),
                ListOp::Or => self.out.push_str(" || "),
                ListOp::Semi => self.out.push_str("; "),
                ListOp::Amp => self.out.push_str(" & "),
                ListOp::Newline => self.newline(),
            }
            self.pipeline(p);
        }
        if s.background {
            self.out.push_str(" &");
        }
    }

    fn pipeline(&mut self, p: &Pipeline) {
        if p.time {
            self.out.push_str("time ");
        }
        if p.bang {
            self.out.push_str("! ");
        }
        self.command(&p.first);
        for (stderr, c) in &p.rest {
            self.out.push_str(if *stderr { " |& " } else { " | " });
            self.command(c);
        }
    }

    fn command(&mut self, c: &Command) {
        match c {
            Command::Simple { assigns, program, args, redirs } => {
                for (name, value) in assigns {
                    self.out.push_str(pick(ASSIGNED, *name));
                    self.out.push('=');
                    self.word(value);
                    self.out.push(' ');
                }
                self.word(program);
                for a in args {
                    self.out.push(' ');
                    self.word(a);
                }
                for r in redirs {
                    self.out.push(' ');
                    self.redir(r);
                }
            }
            Command::Subshell(s) => self.wrapped("( ", s, " )"),
            Command::Group(s) => self.wrapped("{ ", s, "; }"),
            Command::If(cond, then, other) => {
                self.wrapped("if ", cond, "; then ");
                self.script(then);
                if let Some(other) = other {
                    self.wrapped("; else ", other, "");
                }
                self.out.push_str("; fi");
            }
            Command::While(cond, body) => {
                self.wrapped("while ", cond, "; do ");
                self.wrapped("", body, "; done");
            }
            Command::For(var, items, body) => {
                self.out.push_str("for ");
                self.out.push_str(pick(ASSIGNED, *var));
                self.out.push_str(" in");
                for w in items {
                    self.out.push(' ');
                    self.word(w);
                }
                self.wrapped("; do ", body, "; done");
            }
            Command::Case(subject, arms) => {
                self.out.push_str("case ");
                self.word(subject);
                self.out.push_str(" in ");
                for (pattern, body) in arms {
                    self.word(pattern);
                    self.wrapped(") ", body, " ;; ");
                }
                self.out.push_str("esac");
            }
            Command::Function(name, body) => {
                self.out.push_str(pick(PROGRAMS, *name));
                self.wrapped("() { ", body, "; }");
            }
            Command::Test(words) => {
                self.out.push_str("[[");
                for w in words {
                    self.out.push(' ');
                    self.word(w);
                }
                self.out.push_str(" ]]");
            }
            Command::Arith(w) => {
                self.out.push_str("(( ");
                self.word(w);
                self.out.push_str(" ))");
            }
            Command::Coproc(inner) => {
                self.out.push_str("coproc ");
                self.command(inner);
            }
        }
    }

    fn wrapped(&mut self, open: &str, s: &Script, close: &str) {
        self.out.push_str(open);
        self.script(s);
        self.out.push_str(close);
    }

    fn redir(&mut self, r: &Redir) {
        if let Some(fd) = r.fd {
            self.out.push_str(&(fd % 10).to_string());
        }
        let op = match &r.op {
            RedirOp::Out => ">",
            RedirOp::Append => ">>",
            RedirOp::In => "<",
            RedirOp::Clobber => ">|",
            RedirOp::ReadWrite => "<>",
            RedirOp::AllOut => "&>",
            RedirOp::AllAppend => "&>>",
            RedirOp::Dup => ">&",
            RedirOp::HereString => "<<<",
            RedirOp::Heredoc { quoted, strip, body } => {
                self.out.push_str(if *strip { "<<-" } else { "<<" });
                self.out.push_str(if *quoted { "'EOF'" } else { "EOF" });
                let saved = std::mem::take(&mut self.out);
                for line in body {
                    self.word(line);
                    self.out.push('\n');
                }
                self.out.push_str("EOF\n");
                let text = std::mem::replace(&mut self.out, saved);
                self.heredocs.push(text);
                return;
            }
        };
        self.out.push_str(op);
        self.word(&r.target);
    }

    fn word(&mut self, w: &Word) {
        if w.0.is_empty() {
            self.out.push_str("''");
        }
        for p in &w.0 {
            self.part(p);
        }
    }

    fn part(&mut self, p: &Part) {
        match p {
            Part::Program(i) => self.out.push_str(pick(PROGRAMS, *i)),
            Part::Text(i) => self.out.push_str(pick(WORDS, *i)),
            Part::Raw(s) => self.out.extend(s.chars().take(8)),
            Part::Single(i) => {
                self.out.push('\'');
                self.out.push_str(&pick(WORDS, *i).replace('\'', ""));
                self.out.push('\'');
            }
            Part::Double(parts) => {
                self.out.push('"');
                for p in parts {
                    self.part(p);
                }
                self.out.push('"');
            }
            Part::AnsiC(i) => {
                self.out.push_str("$'");
                for b in pick(WORDS, *i).bytes() {
                    self.out.push_str(&format!("\\x{b:02x}"));
                }
                self.out.push('\'');
            }
            Part::Param(i, op) => {
                let name = pick(ASSIGNED, *i);
                match op {
                    ParamOp::Plain => {
                        self.out.push('$');
                        self.out.push_str(name);
                    }
                    ParamOp::Braced => self.out.push_str(&format!("${{{name}}}")),
                    ParamOp::Indirect => self.out.push_str(&format!("${{!{name}}}")),
                    ParamOp::Prompt => self.out.push_str(&format!("${{{name}@P}}")),
                    ParamOp::Default(w) => {
                        self.out.push_str(&format!("${{{name}:-"));
                        self.word(w);
                        self.out.push('}');
                    }
                    ParamOp::Positional(n) => self.out.push_str(&format!("${}", n % 10)),
                }
            }
            Part::CmdSubst(s) => self.wrapped("$(", s, ")"),
            Part::Backtick(s) => self.wrapped("`", s, "`"),
            Part::Arith(w) => {
                self.out.push_str("$((");
                self.word(w);
                self.out.push_str("))");
            }
            Part::ProcSubst(out, s) => self.wrapped(if *out { ">(" } else { "<(" }, s, ")"),
            Part::Brace(items) => {
                self.out.push('{');
                for (i, w) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.word(w);
                }
                self.out.push('}');
            }
            Part::Escape(c) => {
                self.out.push('\\');
                self.out.push(*c);
            }
            Part::Glob => self.out.push('*'),
        }
    }
}

fuzz_target!(|script: Script| {
    let mut render = Render { out: String::new(), heredocs: Vec::new(), depth: 0 };
    render.script(&script);
    render.newline();
    let text = render.out;
    let analyzer = common::analyzer();
    let a = analyzer.analyze(&text);
    common::check_properties(&a);
    if text.contains('\0') {
        assert_ne!(a.verdict, Verdict::Allow, "NUL allowed");
    }
    assert_eq!(analyzer.analyze(&text), a, "not deterministic");
    common::log_allowed(&a, "fuzz/grammar");
});

//! scan/makefile: the recipe lines of a Makefile as make hands them to the shell — the recipe
//! prefix (a tab, or `.RECIPEPREFIX`) and the `@`/`-`/`+` modifiers removed, `\` continuations
//! kept for the shell, `$$` as `$`. A make variable (`$(CC)`, `${X}`, `$@`) is pasted into the
//! line before the shell reads it: it asks, and the analyser sees a run-time value in its
//! place. Each logical recipe line is one piece (one shell), or each rule's recipe with
//! `.ONESHELL:`; a `$(shell …)` is a piece of its own.
//!
//! Every other line must be one of the constructs this module models — a rule, a plain
//! assignment, a conditional, `.PHONY` and the other special targets whose effect it knows,
//! a comment, a `define` — and each of those is read for what it changes: `SHELL`,
//! `.SHELLFLAGS`, `MAKEFLAGS`, exported variables, the make functions that run something.
//! Anything else is a problem of its own (fail closed). `$(eval …)` text is read as Makefile
//! lines too. It never decides safety itself.
//!
//! The subset scan says "clean" for is narrower than what it reads: any conditional (scan
//! does not know which branch make reads), `define`, `.ONESHELL`, `.RECIPEPREFIX`, a
//! target-specific `!=`, `SHELL`, `.SHELLFLAGS` or `MAKEFLAGS`, a `; recipe` after a
//! continuation, a `SHELL` that is not bash or sh wherever it is set (make runs every recipe
//! with the last one), and every target or prerequisite with no recipe in the file that is not
//! `.PHONY` (a built-in rule may make it) ask. A recipe-prefixed
//! line is a recipe only while a rule line is in effect, as in make; elsewhere it is a
//! Makefile line. Recipes are read as sh unless every `SHELL` names bash.

use std::collections::{HashMap, HashSet};

use super::{
    EnvScope, EnvUse, Extracted, Piece, ScanCode, ScriptBuf, Shell, interpreter_name,
    plain_shell_flags, plain_shell_program, shell_named,
};
use crate::Span;

#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    start: usize,
    text: &'a str,
}

/// How many `$(eval …)` inside `$(eval …)` text are followed.
const MAX_EVAL_DEPTH: usize = 4;

/// How many bytes of text, in all, are read again through `$(eval)` and `$(NAME)` lines: a
/// file whose defines evaluate each other many times over asks instead of costing time.
const EVAL_BUDGET: usize = 1 << 20;

/// make's functions that only compute text from text: they run nothing, read no file but
/// names (`wildcard`, `realpath`) and write nothing. Any other function is a problem, except
/// `shell` (analysed), `call` of a named variable, `eval` (read as Makefile lines) and
/// `value`, whose result is text.
const TEXT_FUNCTIONS: &[&str] = &[
    "subst",
    "patsubst",
    "strip",
    "findstring",
    "filter",
    "filter-out",
    "sort",
    "word",
    "wordlist",
    "words",
    "firstword",
    "lastword",
    "dir",
    "notdir",
    "suffix",
    "basename",
    "addsuffix",
    "addprefix",
    "join",
    "wildcard",
    "realpath",
    "abspath",
    "if",
    "or",
    "and",
    "intcmp",
    "foreach",
    "let",
    "origin",
    "flavor",
    "value",
    // Messages to the terminal; `error` stops make.
    "info",
    "warning",
    "error",
];

/// Every function GNU make has built in: `$(call NAME,…)` of one of these runs the function.
const BUILTIN_FUNCTIONS: &[&str] = &["shell", "eval", "call", "file", "guile"];

/// Special targets whose effect scan models: they change how make picks or reports targets,
/// never what a recipe runs (`.ONESHELL` and `.POSIX` are read where they matter).
const KNOWN_SPECIAL_TARGETS: &[&str] = &[
    ".PHONY",
    ".SUFFIXES",
    ".DEFAULT",
    ".PRECIOUS",
    ".INTERMEDIATE",
    ".NOTINTERMEDIATE",
    ".SECONDARY",
    ".DELETE_ON_ERROR",
    ".IGNORE",
    ".LOW_RESOLUTION_TIME",
    ".SILENT",
    ".NOTPARALLEL",
    ".ONESHELL",
    // `.POSIX` makes the default `.SHELLFLAGS` `-ec`: one more option, nothing more run.
    ".POSIX",
    ".WAIT",
];

/// Variables make itself reads whose values only name targets, directories or patterns.
const PLAIN_MAKE_VARIABLES: &[&str] = &[".DEFAULT_GOAL", ".EXTRA_PREREQS", "VPATH", ".LIBPATTERNS"];

/// Words `MAKEFLAGS` may hold: options that change how make reports, orders or parallelises
/// work, never which makefiles it reads or what it evaluates (`--eval`, `-f`, `-I`, `-e` do).
const PLAIN_MAKEFLAGS: &[&str] = &[
    "-s",
    "--silent",
    "--quiet",
    "-r",
    "--no-builtin-rules",
    "-R",
    "--no-builtin-variables",
    "-w",
    "--print-directory",
    "--no-print-directory",
    "--warn-undefined-variables",
    "-k",
    "--keep-going",
    "-S",
    "--no-keep-going",
    "-O",
    "--output-sync",
    "--output-sync=target",
    "--output-sync=line",
    "--output-sync=recurse",
    "--output-sync=none",
];

pub(super) fn extract(text: &str) -> Extracted {
    let lines = physical_lines(text);
    let mut out = Extracted::default();
    let mut r = Reader {
        file_len: text.len(),
        prefix: '\t',
        shell: Shell::Bash,
        shell_word: "sh".to_string(),
        oneshell: lines.iter().any(|l| l.text.starts_with(".ONESHELL:")),
        target: None,
        in_rule: false,
        rules: Vec::new(),
        with_recipe: HashSet::new(),
        phony: HashSet::new(),
        shells: Vec::new(),
        values: HashMap::new(),
        assigned: Vec::new(),
        literals: HashMap::new(),
        exported: HashSet::new(),
        export_all: false,
        eval_budget: EVAL_BUDGET,
        eval_budget_spent: false,
        shell_budget: EVAL_BUDGET,
        shell_budget_spent: false,
    };
    r.read(&lines, 0, &mut out);
    r.finish(&mut out);
    out
}

/// The suffixes of files GNU make's built-in rules make a file `NAME` from, directly
/// (`%: %.sh` copies `NAME.sh` over `NAME`; `%: %.c` compiles `NAME.c`) or through one more
/// rule (`%.c: %.y`, `%.f: %.F`, `%.p: %.web`, …), as `make -p -f /dev/null` lists them.
const REMAKE_SUFFIXES: &[&str] = &[
    "", ".o", ".c", ".cc", ".C", ".cpp", ".p", ".f", ".F", ".m", ".r", ".s", ".S", ".mod", ".sh",
    ".y", ".l", ".ym", ".w", ".ch", ".web",
];

/// GNU make first tries to remake every makefile it reads, with its built-in rules too: a
/// newer `Makefile.sh` beside a `Makefile` is copied over it (`%: %.sh`), a `Makefile.c` is
/// compiled into it, an RCS or SCCS file is checked out over it, and make then reads the new
/// file, whose recipes scan never saw. Such a file beside the one scanned asks (red team s9:
/// a clean Makefile with a `Makefile.sh` beside it ran the `.sh` file's recipes).
pub(super) fn sources_beside(path: &str, out: &mut Extracted) {
    let path = std::path::Path::new(path);
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let dir = path.parent().unwrap_or(std::path::Path::new(""));
    // `symlink_metadata`: a link (even a dangling one) is a file make may follow.
    let present = |p: &std::path::Path| std::fs::symlink_metadata(p).is_ok();
    let mut found: Vec<String> = Vec::new();
    for version_control in ["RCS", "SCCS"] {
        if present(&dir.join(version_control)) {
            found.push(format!("{version_control}/"));
        }
    }
    for suffix in REMAKE_SUFFIXES {
        let source = format!("{name}{suffix}");
        let mut candidates = vec![format!("{source},v"), format!("s.{source}")];
        if !suffix.is_empty() {
            candidates.push(source);
        }
        found.extend(candidates.into_iter().filter(|c| present(&dir.join(c))));
    }
    if found.is_empty() {
        return;
    }
    out.problem(
        ScanCode::UnreadFile,
        Span::new(0, 0),
        format!(
            "`{}` is beside it: GNU make first remakes the makefile itself with its built-in rules (`%: %.sh` copies `{name}.sh` over it, `%: %.c` compiles `{name}.c`, RCS and SCCS check it out) and then reads the new file, which scan has not read",
            found.join("`, `")
        ),
    );
}

/// What reading a Makefile has learnt so far.
struct Reader {
    file_len: usize,
    prefix: char,
    shell: Shell,
    /// The program `SHELL` names, for analysing `.SHELLFLAGS` with it.
    shell_word: String,
    oneshell: bool,
    target: Option<String>,
    /// Whether a rule line is in effect, so that a line starting with the recipe prefix is a
    /// recipe line; make ends it at any other Makefile line (an assignment, a directive).
    in_rule: bool,
    /// Each rule line's targets and prerequisites, and where it is: make looks for a built-in
    /// rule for every one that has no recipe of its own.
    rules: Vec<(Vec<String>, Vec<String>, Span)>,
    /// Targets a rule of this file gives a recipe.
    with_recipe: HashSet<String>,
    /// Targets listed in `.PHONY`: make looks for no implicit rule for them.
    phony: HashSet<String>,
    /// Every shell `SHELL` names, in file order, with where: recipes run under the last.
    shells: Vec<(Shell, Span)>,
    /// Each variable's value by name, as (file offset, text) lines: what `$(eval $(NAME))`
    /// reads.
    values: HashMap<String, Vec<(usize, String)>>,
    /// Each plain assignment: the name, where it is written, whether it was exported there,
    /// and how (for the message).
    assigned: Vec<(String, Span, bool, String)>,
    /// Variables assigned once in the file, by a plain `=` of any value or a `:=`/`::=` of
    /// text with no `$`: their value, which every recipe sees. A name assigned again, with
    /// `+=`, `?=` or `!=`, by `define` or for a target only, is `None`.
    literals: HashMap<String, Option<String>>,
    /// Names an `export NAME…` line exported.
    exported: HashSet<String>,
    /// `export` alone or `.EXPORT_ALL_VARIABLES:`: every variable is exported.
    export_all: bool,
    /// Bytes of text still to be read again through `$(eval)` (see [`EVAL_BUDGET`]).
    eval_budget: usize,
    /// Whether the budget ran out (said once).
    eval_budget_spent: bool,
    /// Bytes of `$(shell …)` text still to be analysed (the same budget as `$(eval)`'s).
    shell_budget: usize,
    /// Whether that budget ran out (said once).
    shell_budget_spent: bool,
}

/// How a line's make functions are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// The body of a `define`: its functions are reported; an `$(eval)` in it is followed
    /// when the variable is evaluated, not here.
    Define,
    /// A line read at this `$(eval)` depth: reported at depth 0 only (deeper text is file
    /// text already reported), `$(eval)` followed while the depth allows.
    Line(usize),
}

/// A non-recipe logical line: its text (continuations joined), where it starts, how much of
/// it is on its first physical line, and where each continuation line's text starts (its
/// offset in the logical line and in the file).
struct Logical<'a> {
    text: &'a str,
    start: usize,
    first_len: usize,
    continued: Vec<(usize, usize)>,
}

impl Logical<'_> {
    /// The file offset of byte `i` of the logical line.
    fn at(&self, i: usize) -> usize {
        match self.continued.iter().rev().find(|(from, _)| *from <= i) {
            Some((from, file)) => file + (i - from),
            None => self.start + i.min(self.first_len),
        }
    }

    fn span(&self, from: usize, to: usize) -> Span {
        Span::new(self.at(from), self.at(to).max(self.at(from)))
    }
}

impl Reader {
    fn read(&mut self, lines: &[Line], depth: usize, out: &mut Extracted) {
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            // A recipe-prefixed line with no rule in effect is a Makefile line (GNU make's
            // read.c: "If there is no preceding rule line, don't treat this line as a
            // command").
            if let Some(first) = line.text.strip_prefix(self.prefix)
                && self.in_rule
            {
                i = self.recipe(lines, i, first, out);
                continue;
            }
            // Any other logical line: continuation lines joined.
            let mut logical = String::from(line.text);
            let start = line.start;
            let mut continued = Vec::new();
            i += 1;
            while continues(&logical) && i < lines.len() {
                logical.pop();
                logical.push(' ');
                let next = lines[i].text.trim_start();
                continued.push((
                    logical.len(),
                    lines[i].start + (lines[i].text.len() - next.len()),
                ));
                logical.push_str(next);
                i += 1;
            }
            // make joins continuation lines first and removes the comment after: a comment's
            // `\` at the end of a line makes the next line comment text too.
            if let Some(hash) = comment_start(&logical) {
                logical.truncate(hash);
            }
            let l = Logical {
                text: &logical,
                start,
                first_len: line.text.len(),
                continued,
            };
            let trimmed = logical.trim();
            if trimmed.is_empty() {
                continue;
            }
            if let Some((name, exported)) = define_name(trimmed) {
                if depth == 0 {
                    out.problem(
                        ScanCode::Unmodelled,
                        l.span(0, l.text.trim_end().len()),
                        format!(
                            "`define {name}`: scan does not model multi-line variables (where make ends the body, what it runs when expanded); use plain rules and assignments"
                        ),
                    );
                }
                self.in_rule = false;
                i = self.define(lines, i, name, exported, &l, out);
                continue;
            }
            // make runs these while it reads the Makefile, before any recipe: `X != cmd` and
            // `$(shell cmd)`. Text read again through `$(eval)` was read here once already.
            if depth == 0 {
                for (at, script) in make_time_shells(&logical) {
                    let first = Line {
                        start: l.at(at),
                        text: script,
                    };
                    self.shell_piece(first, "make-time shell", out);
                }
            }
            self.functions(&l, Pass::Line(depth), out);
            self.line(&l, depth, out);
        }
    }

    /// One logical recipe line starting at `lines[i]` (whose text after the prefix is
    /// `first`); returns the index of the next line.
    fn recipe(&mut self, lines: &[Line], mut i: usize, first: &str, out: &mut Extracted) -> usize {
        // Physical lines joined by `\`-newline, which the shell receives as it is; make drops
        // the prefix of each continuation line.
        let line = lines[i];
        let mut b = ScriptBuf::default();
        let body = first.trim_start_matches(|c: char| "@-+".contains(c) || c == ' ' || c == '\t');
        let mut part = Line {
            start: line.start + (line.text.len() - body.len()),
            text: body,
        };
        let context = match &self.target {
            Some(t) => {
                self.with_recipe
                    .extend(t.split_whitespace().map(str::to_string));
                format!("recipe of {t}")
            }
            None => "recipe".to_string(),
        };
        let mut shells = Vec::new();
        i += 1;
        loop {
            expand(part, &mut b);
            shells.extend(recipe_shells(part));
            if !continues(part.text) || i >= lines.len() {
                break;
            }
            let next = lines[i];
            i += 1;
            b.push_char('\n', part.start + part.text.len());
            let stripped = next.text.strip_prefix(self.prefix).unwrap_or(next.text);
            part = Line {
                start: next.start + (next.text.len() - stripped.len()),
                text: stripped,
            };
        }
        let end = part.start + part.text.len();
        let piece = b.finish(&context, end, self.shell.clone());
        // With `.ONESHELL:` the rule's previous recipe line is the last piece, or the last
        // before that line's own `$(shell …)` pieces.
        let shells_context = format!("$(shell …) in {context}");
        let previous = out
            .pieces
            .iter()
            .rposition(|p| p.context != shells_context)
            .filter(|&n| self.oneshell && out.pieces[n].context == piece.context);
        match previous {
            Some(n) => join(&mut out.pieces[n], piece),
            None => out.pieces.push(piece),
        }
        for s in shells {
            self.shell_piece(s, &shells_context, out);
        }
        i
    }

    /// A piece for a command make hands to the shell itself (`$(shell …)`, `!=`).
    fn shell_piece(&mut self, cmd: Line, context: &str, out: &mut Extracted) {
        // Nested `$(shell $(shell …))` repeat their text in each piece: past a budget, ask.
        if cmd.text.len() > self.shell_budget {
            if !self.shell_budget_spent {
                self.shell_budget_spent = true;
                out.problem(
                    ScanCode::Unmodelled,
                    Span::new(cmd.start, cmd.start),
                    "the Makefile has more `$(shell …)` text than scan analyses; the rest was not read".to_string(),
                );
            }
            return;
        }
        self.shell_budget -= cmd.text.len();
        let mut b = ScriptBuf::default();
        expand(cmd, &mut b);
        let end = (cmd.start + cmd.text.len()).min(self.file_len);
        out.pieces.push(b.finish(context, end, self.shell.clone()));
    }

    /// A `define NAME` whose body starts at `lines[i]`: recorded as a value, its text read
    /// for the functions that would run when it is expanded. Returns the index past `endef`.
    fn define(
        &mut self,
        lines: &[Line],
        mut i: usize,
        name: &str,
        exported: bool,
        l: &Logical,
        out: &mut Extracted,
    ) -> usize {
        let mut nested = 0;
        let mut body = Vec::new();
        while i < lines.len() {
            let line = lines[i];
            i += 1;
            let t = line.text.trim_start();
            if define_name(t).is_some() {
                nested += 1;
            } else if t == "endef" || t.starts_with("endef ") || t.starts_with("endef\t") {
                if nested == 0 {
                    break;
                }
                nested -= 1;
            }
            body.push((line.start, line.text.to_string()));
        }
        for (start, text) in &body {
            for (at, script) in make_time_shells(text) {
                let cmd = Line {
                    start: start + at,
                    text: script,
                };
                self.shell_piece(cmd, "make-time shell", out);
            }
            let bl = Logical {
                text,
                start: *start,
                first_len: text.len(),
                continued: Vec::new(),
            };
            self.functions(&bl, Pass::Define, out);
        }
        let name_at = words(l.text)
            .find(|(_, w)| *w == name)
            .map_or(0, |(at, _)| at);
        self.literal(name, None);
        self.assign(
            name,
            l.span(name_at, name_at + name.len()),
            exported,
            "a `define`",
            body,
        );
        i
    }

    /// Checks every make function a non-recipe line calls; `$(eval …)` text is read as
    /// Makefile lines.
    fn functions(&mut self, l: &Logical, pass: Pass, out: &mut Extracted) {
        let (report, follow) = match pass {
            Pass::Define => (true, None),
            Pass::Line(depth) => (depth == 0, Some(depth)),
        };
        let mut outer_end = 0;
        for (at, reference) in references(l.text, Escapes::No) {
            let top_level = at >= outer_end;
            if top_level {
                outer_end = at + reference.len();
            }
            let Some((name, args, args_at)) = function_call(reference) else {
                continue;
            };
            if !report && name != "eval" {
                continue;
            }
            let span = l.span(at, at + reference.len());
            if TEXT_FUNCTIONS.contains(&name) || name == "shell" {
                continue;
            }
            if name == "call" {
                let callee = args.split(',').next().unwrap_or("").trim();
                if callee == "shell" {
                    let cmd_at = args.find(',').map_or(args.len(), |c| c + 1);
                    let cmd = Line {
                        start: l.at(at + args_at + cmd_at),
                        text: &args[cmd_at..],
                    };
                    self.shell_piece(cmd, "make-time shell", out);
                    continue;
                }
                if !callee.is_empty()
                    && !callee.contains('$')
                    && !BUILTIN_FUNCTIONS.contains(&callee)
                    && !TEXT_FUNCTIONS.contains(&callee)
                {
                    continue;
                }
                out.problem(
                    ScanCode::Unmodelled,
                    span,
                    format!(
                        "`$(call {callee},…)` calls a function scan cannot name in advance: it may run make's `shell`, `eval` or `file`"
                    ),
                );
                continue;
            }
            if name == "eval" {
                if report {
                    out.problem(
                        ScanCode::Unmodelled,
                        span,
                        "make reads the text `$(eval …)` produces as Makefile lines — rules, recipes and settings scan reads only as far as that text is in this file".to_string(),
                    );
                }
                // A nested eval is read with the text of the one around it.
                if let Some(depth) = follow
                    && top_level
                    && depth < MAX_EVAL_DEPTH
                {
                    self.eval(args, l, at + args_at, depth, out);
                }
                continue;
            }
            out.problem(
                ScanCode::Unmodelled,
                span,
                format!(
                    "`$({name} …)` is a make function that can run, read or write something scan does not model"
                ),
            );
        }
    }

    /// Reads the text an `$(eval ARGS)` evaluates, when scan can tell it: the value of the
    /// one variable it names, else ARGS itself.
    fn eval(&mut self, args: &str, l: &Logical, args_at: usize, depth: usize, out: &mut Extracted) {
        let named = single_reference(args.trim()).and_then(|name| self.values.get(name).cloned());
        match named {
            Some(value) => self.read_value(&value, depth, out),
            None => {
                let line = Line {
                    start: l.at(args_at),
                    text: args,
                };
                if self.spend(args.len(), line.start, out) {
                    self.read(&[line], depth + 1, out);
                }
            }
        }
    }

    /// Reads a variable's value as Makefile lines one level deeper.
    fn read_value(&mut self, value: &[(usize, String)], depth: usize, out: &mut Extracted) {
        let size = value.iter().map(|(_, t)| t.len() + 1).sum();
        let at = value.first().map_or(0, |(s, _)| *s);
        if !self.spend(size, at, out) {
            return;
        }
        let lines: Vec<Line> = value
            .iter()
            .map(|(start, text)| Line {
                start: *start,
                text,
            })
            .collect();
        self.read(&lines, depth + 1, out);
    }

    /// Takes `size` bytes from the budget of text read again through `$(eval)`; when it is
    /// spent, says so once (at `at`) and reads no more: what was not read asks.
    fn spend(&mut self, size: usize, at: usize, out: &mut Extracted) -> bool {
        if size <= self.eval_budget {
            self.eval_budget -= size;
            return true;
        }
        if !self.eval_budget_spent {
            self.eval_budget_spent = true;
            out.problem(
                ScanCode::Unmodelled,
                Span::new(at, at),
                "the Makefile evaluates more text through `$(eval …)` than scan follows; the rest was not read".to_string(),
            );
        }
        false
    }

    /// Classifies one non-recipe logical line that is not a `define`.
    fn line(&mut self, l: &Logical, depth: usize, out: &mut Extracted) {
        let trimmed = l.text.trim();
        let lead = l.text.len() - l.text.trim_start().len();
        // A line of nothing but `$(eval …)` and messages expands to nothing: the eval text is
        // read on its own (see `functions`).
        let refs = references(trimmed, Escapes::No);
        let mut covered = 0;
        let only_calls = refs.iter().all(|&(at, r)| {
            if at < covered {
                return true;
            }
            let gap_ok = trimmed[covered..at].trim().is_empty();
            covered = at + r.len();
            gap_ok
                && matches!(
                    function_call(r),
                    Some(("eval" | "info" | "warning" | "error", _, _))
                )
        }) && trimmed[covered.min(trimmed.len())..].trim().is_empty();
        if only_calls && !refs.is_empty() {
            return;
        }
        let first = trimmed.split_whitespace().next().unwrap_or("");
        match first {
            "include" | "-include" | "sinclude" => {
                out.problem(
                    ScanCode::UnreadFile,
                    l.span(lead, l.text.trim_end().len()),
                    format!(
                        "`{trimmed}`: make reads that file here and runs its rules and settings too; scan it as well (scan does not follow includes)"
                    ),
                );
                return;
            }
            "load" | "-load" => {
                out.problem(
                    ScanCode::UnreadFile,
                    l.span(lead, l.text.trim_end().len()),
                    format!("`{trimmed}` loads a shared object into make: code scan cannot see"),
                );
                return;
            }
            "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif" => {
                if depth == 0 {
                    out.problem(
                        ScanCode::Unmodelled,
                        l.span(lead, l.text.trim_end().len()),
                        format!(
                            "`{}`: scan does not model make's conditionals (which branch make reads decides which rules, recipes and settings exist); the lines in both branches were read as if make read them all",
                            super::one_line(trimmed)
                        ),
                    );
                }
                return;
            }
            "vpath" | "undefine" | "unexport" => {
                self.in_rule = false;
                return;
            }
            _ => {}
        }
        // Any line but a rule ends the rule in effect.
        self.in_rule = false;
        if let Some(a) = assignment(l.text) {
            let how = if a.exported {
                "an exported assignment"
            } else {
                "an assignment"
            };
            self.assign_line(&a, l, how, out);
            return;
        }
        if first == "export" {
            let names: Vec<(usize, &str)> = words(l.text).skip(1).collect();
            if names.is_empty() {
                self.export_all = true;
            }
            for (at, name) in names {
                if name.contains('$') {
                    out.env.push(EnvUse {
                        name: name.to_string(),
                        span: l.span(at, at + name.len()),
                        how: "`export`".to_string(),
                        scope: EnvScope::Exported,
                    });
                } else {
                    self.exported.insert(name.to_string());
                }
            }
            return;
        }
        if let Some((targets, rest)) = rule(l.text) {
            self.rule(l, targets, rest, out);
            return;
        }
        if depth == 0 {
            // `$(NAME)` alone: make reads the value as a line, which may be a rule with a
            // recipe; read it as such when this file sets it.
            if depth < MAX_EVAL_DEPTH
                && let Some(name) = single_reference(trimmed)
                && let Some(value) = self.values.get(name)
            {
                let value = value.clone();
                self.read_value(&value, depth, out);
            }
            out.problem(
                ScanCode::Unmodelled,
                l.span(lead, l.text.trim_end().len()),
                format!(
                    "`{}`: a line that is not a rule, an assignment or a directive scan knows; a variable that expands to a rule can hide a recipe here",
                    super::one_line(trimmed)
                ),
            );
        }
    }

    /// A rule line: its special targets, its target-specific assignment or its `; recipe`.
    fn rule(&mut self, l: &Logical, targets: &str, rest: &str, out: &mut Extracted) {
        let targets_t = targets.trim();
        self.target = Some(targets_t.to_string());
        let names: Vec<String> = targets.split_whitespace().map(str::to_string).collect();
        if names
            .iter()
            .any(|t| t == ".ONESHELL" || t == ".RECIPEPREFIX")
        {
            out.problem(
                ScanCode::Unmodelled,
                l.span(0, targets.len()),
                "`.ONESHELL` makes make hand a rule's whole recipe to one shell: scan does not model where that applies (a conditional, an `$(eval)`); drop it, or join the lines with `;` and `\\`".to_string(),
            );
        }
        for (at, t) in words(targets) {
            let span = l.span(at, at + t.len());
            let special = t.len() > 1
                && t.starts_with('.')
                && t[1..].bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
            if !special || KNOWN_SPECIAL_TARGETS.contains(&t) {
                continue;
            }
            match t {
                ".EXPORT_ALL_VARIABLES" => self.export_all = true,
                ".SECONDEXPANSION" => out.problem(
                    ScanCode::Unmodelled,
                    span,
                    "`.SECONDEXPANSION` makes make expand prerequisites a second time, running any `$$(shell …)` or `$$(eval …)` in them".to_string(),
                ),
                _ => out.problem(
                    ScanCode::Unmodelled,
                    span,
                    format!("`{t}` is a special target scan does not know"),
                ),
            }
        }
        let rest_at = l.text.len() - rest.len();
        // `target: NAME = value`: a variable for this target's recipes only (a `;` first makes
        // the rest a recipe: `all: ;X=1 cmd`).
        let semi_at = rest.find(';').unwrap_or(rest.len());
        if let Some(mut a) = assignment(rest)
            && a.name_at + a.name.len() <= semi_at
        {
            if a.op == "!="
                || ["SHELL", ".SHELLFLAGS", ".RECIPEPREFIX", "MAKEFLAGS"].contains(&a.name)
            {
                out.problem(
                    ScanCode::Unmodelled,
                    l.span(a.name_at + rest_at, a.name_at + rest_at + a.name.len()),
                    format!(
                        "`{}{}` for a target: scan does not model a target-specific `!=` (make runs its command while reading) or `SHELL`, `.SHELLFLAGS`, `.RECIPEPREFIX`, `MAKEFLAGS` set for one target",
                        a.name, a.op
                    ),
                );
            }
            a.name_at += rest_at;
            a.value_at += rest_at;
            self.assign_line(&a, l, TARGET_SPECIFIC, out);
            return;
        }
        if rest[..semi_at].contains("!=") {
            out.problem(
                ScanCode::Unmodelled,
                l.span(rest_at, l.text.trim_end().len()),
                "a target-specific `!=` assignment: make runs its command while it reads the line, and scan does not read this form".to_string(),
            );
            return;
        }
        if semi_at == rest.len()
            && let Some(reference) = hidden_semicolon(l.text, &self.literals)
        {
            out.problem(
                ScanCode::Unmodelled,
                l.span(0, l.text.trim_end().len()),
                format!(
                    "`{reference}` in a rule line: make looks for the `;` that starts a recipe after expanding the line, and scan cannot tell that this text holds none (`S := ;` makes `all: $(S) rm -rf v` run `rm -rf v`)"
                ),
            );
        }
        self.in_rule = true;
        let prerequisites: Vec<String> = rest[..semi_at]
            .split_whitespace()
            .filter(|w| *w != "|")
            .map(str::to_string)
            .collect();
        if names.iter().any(|t| t == ".PHONY") {
            self.phony.extend(prerequisites.iter().cloned());
        }
        if semi_at < rest.len() {
            self.with_recipe.extend(names.iter().cloned());
        }
        self.rules
            .push((names, prerequisites, l.span(0, l.text.trim_end().len())));
        // `target: prerequisites ; recipe` runs the text after `;` as a recipe line.
        if let Some(semi) = rest.find(';') {
            let recipe_at = rest_at + semi + 1;
            let body = &l.text[recipe_at..];
            let body_trim =
                body.trim_start_matches(|c: char| "@-+".contains(c) || c.is_whitespace());
            // The joined line matches the file only before its first continuation.
            if l.first_len < recipe_at {
                out.problem(
                    ScanCode::Unmodelled,
                    l.span(0, l.text.trim_end().len()),
                    "a `; recipe` after a `\\` continuation: make joins the lines and runs the text after `;`, which scan does not read here; put the recipe on a line of its own".to_string(),
                );
            } else {
                let mut b = ScriptBuf::default();
                let cmd = Line {
                    start: l.start + recipe_at + (body.len() - body_trim.len()),
                    text: body_trim,
                };
                expand(cmd, &mut b);
                let end = l.start + l.text.len();
                let context = format!("recipe of {targets_t}");
                out.pieces.push(b.finish(&context, end, self.shell.clone()));
                for s in recipe_shells(cmd) {
                    self.shell_piece(s, &format!("$(shell …) in {context}"), out);
                }
            }
        }
    }

    fn assign_line(&mut self, a: &Assignment, l: &Logical, how: &str, out: &mut Extracted) {
        let span = l.span(a.name_at, a.name_at + a.name.len());
        let literal = match a.op {
            "=" if how != TARGET_SPECIFIC => Some(a.value.to_string()),
            ":=" | "::=" if how != TARGET_SPECIFIC && !a.value.contains('$') => {
                Some(a.value.to_string())
            }
            _ => None,
        };
        self.literal(a.name, literal);
        let value = vec![(l.at(a.value_at), a.value.to_string())];
        match a.name {
            "SHELL" => self.set_shell(a, l, span, out),
            ".SHELLFLAGS" => self.set_shell_flags(a, l, span, out),
            ".RECIPEPREFIX" => {
                out.problem(
                    ScanCode::Unmodelled,
                    span,
                    "`.RECIPEPREFIX` changes which lines are recipes: scan does not model where it applies (a conditional, a variable in its value, one target); use tabs".to_string(),
                );
                self.prefix = a.value.chars().next().unwrap_or('\t');
            }
            "MAKEFLAGS" | "MFLAGS" | "GNUMAKEFLAGS" | "MAKEOVERRIDES" => {
                let odd: Vec<&str> = a
                    .value
                    .split_whitespace()
                    .filter(|w| !plain_makeflag(w))
                    .collect();
                if !odd.is_empty() {
                    out.problem(
                        ScanCode::Unmodelled,
                        span,
                        format!(
                            "`{}` passes `{}` to make itself and to every sub-make: scan lists only options that change how make reports or orders work, not what it reads or evaluates (`--eval`, `-f`, `-I`)",
                            a.name,
                            odd.join(" ")
                        ),
                    );
                }
            }
            "MAKEFILES" => out.problem(
                ScanCode::UnreadFile,
                span,
                format!(
                    "`MAKEFILES` makes make read `{}` first, and every sub-make too: files scan did not read",
                    a.value
                ),
            ),
            // Each word of `.EXTRA_PREREQS` is a prerequisite of every target, and
            // `.DEFAULT_GOAL` the target plain `make` builds: with no recipe in the file, a
            // built-in rule may build them (red team s9), so they count as a rule's words.
            ".EXTRA_PREREQS" | ".DEFAULT_GOAL" => {
                if a.value.contains('$') {
                    out.problem(
                        ScanCode::Unmodelled,
                        span,
                        format!(
                            "`{}` names targets make builds, computed from `{}`: scan cannot tell which, nor whether a built-in rule builds them",
                            a.name, a.value
                        ),
                    );
                }
                let words = a.value.split_whitespace().map(str::to_string).collect();
                self.rules.push((Vec::new(), words, span));
            }
            name if PLAIN_MAKE_VARIABLES.contains(&name) => {}
            name if name.contains('$') => out.problem(
                ScanCode::Unmodelled,
                span,
                format!(
                    "`{name}` is a computed variable name: it may be `SHELL`, `.SHELLFLAGS` or an exported variable"
                ),
            ),
            name => self.assign(name, span, a.exported, how, value.clone()),
        }
        self.values.insert(a.name.to_string(), value);
    }

    /// Records a plain variable: its value for `$(eval)`, its name for the environment.
    fn assign(
        &mut self,
        name: &str,
        span: Span,
        exported: bool,
        how: &str,
        value: Vec<(usize, String)>,
    ) {
        self.assigned
            .push((name.to_string(), span, exported, how.to_string()));
        self.values.insert(name.to_string(), value);
    }

    /// `SHELL = …`: bash or sh named plainly runs each recipe as `SHELL -c RECIPE`; anything
    /// more is analysed as the command it starts.
    fn set_shell(&mut self, a: &Assignment, l: &Logical, span: Span, out: &mut Extracted) {
        let value = a.value;
        if value.contains('$') {
            self.shell = Shell::Unsupported(format!("a SHELL set from a variable (`{value}`)"));
            self.shells.push((self.shell.clone(), span));
            return;
        }
        let words: Vec<&str> = value.split_whitespace().collect();
        self.shell_word = words.first().map_or("sh", |w| w).to_string();
        let plain = match words.as_slice() {
            [one] => plain_shell_program(one),
            [env, sh] => env.rsplit('/').next() == Some("env") && plain_shell_program(sh),
            _ => false,
        };
        self.shell = interpreter_name(value)
            .map_or(Shell::Unsupported("an empty SHELL".into()), |n| {
                shell_named(&n)
            });
        self.shells.push((self.shell.clone(), span));
        match a.op {
            // make always has a `SHELL` (`/bin/sh` by default), so `?=` sets nothing: the
            // recipes may run under sh.
            "?=" => self.shells.push((Shell::Sh, span)),
            // `+=` appends to the shell's command line: a program scan cannot name.
            "+=" => self
                .shells
                .push((Shell::Unsupported(format!("`SHELL += {value}`")), span)),
            _ => {}
        }
        if plain || !self.shell.analysed() {
            return;
        }
        out.problem(
            ScanCode::ShellOptions,
            span,
            format!(
                "make runs every recipe as `{value} -c RECIPE`: what `SHELL` adds to the shell runs first (the command is analysed below)"
            ),
        );
        let mut b = ScriptBuf::default();
        b.push_str(value, l.at(a.value_at));
        out.pieces
            .push(b.finish("SHELL", l.at(a.value_at) + value.len(), Shell::Bash));
    }

    /// `.SHELLFLAGS = …`: options from a short list and a final `-c` pass; anything else is
    /// analysed as `SHELL FLAGS`, which is what make runs before the recipe text.
    fn set_shell_flags(&mut self, a: &Assignment, l: &Logical, span: Span, out: &mut Extracted) {
        if plain_shell_flags(&a.value.split_whitespace().collect::<Vec<_>>()) {
            return;
        }
        out.problem(
            ScanCode::ShellOptions,
            span,
            format!(
                "make runs every recipe as `{} {} RECIPE`: flags other than `-c` and `-e`/`-u`/`-x`/`-o pipefail` can run a command of their own (analysed below)",
                self.shell_word, a.value
            ),
        );
        let at = l.at(a.value_at);
        let mut b = ScriptBuf::default();
        for c in self.shell_word.chars() {
            b.push_char(c, at);
        }
        b.push_char(' ', at);
        b.push_str(a.value, at);
        out.pieces
            .push(b.finish(".SHELLFLAGS", at + a.value.len(), Shell::Bash));
    }

    /// Records an assignment of `name`: its literal value the first time, `None` after.
    fn literal(&mut self, name: &str, value: Option<String>) {
        self.literals
            .entry(name.to_string())
            .and_modify(|v| *v = None)
            .or_insert(value);
    }

    /// For each piece whose pasted text is all literal — variables this file assigns once,
    /// and the text functions [`evaluate`] computes — the command make really hands the
    /// shell, as a piece of its own: `X = rm -rf v` and `all: ; $(X)` run `rm -rf v`, which
    /// the deny rules must see. The piece with the templates stays, and still asks.
    fn evaluate_literals(&self, out: &mut Extracted) {
        let mut evaluated = Vec::new();
        for p in out.pieces.iter().filter(|p| !p.templates.is_empty()) {
            let mut b = ScriptBuf::default();
            let mut i = 0;
            let mut whole = true;
            for (span, original) in &p.templates {
                let Some(value) = evaluate(original, &self.literals, 0) else {
                    whole = false;
                    break;
                };
                for (j, c) in p.script[i..span.start].char_indices() {
                    b.push_char(c, p.origin[i + j]);
                }
                for c in value.chars() {
                    b.push_char(c, p.origin[span.start]);
                }
                i = span.end;
            }
            if !whole {
                continue;
            }
            for (j, c) in p.script[i..].char_indices() {
                b.push_char(c, p.origin[i + j]);
            }
            let end = p.origin.last().copied().unwrap_or(0);
            let context = format!("{}, its variables' values pasted in", p.context);
            evaluated.push(b.finish(&context, end, p.shell.clone()));
        }
        out.pieces.extend(evaluated);
    }

    /// Turns what was assigned and exported into environment uses; gives recipes the shell
    /// make really runs them with; asks for targets a built-in rule may make.
    fn finish(&mut self, out: &mut Extracted) {
        self.evaluate_literals(out);
        self.recipe_shell(out);
        self.builtin_rules(out);
        for (name, span, exported, how) in &self.assigned {
            let exported = *exported || self.export_all || self.exported.contains(name);
            out.env.push(EnvUse {
                name: name.clone(),
                span: *span,
                how: how.clone(),
                scope: if exported {
                    EnvScope::Exported
                } else {
                    EnvScope::Inherited
                },
            });
        }
        // `export NAME` of a name this file never assigns still exports the value the
        // environment gave it: nothing new.
    }
}

impl Reader {
    /// make runs every recipe, and every `$(shell …)` it expands while running them, with the
    /// `SHELL` the whole file ends with; scan read each with the one set above it. A shell scan
    /// does not analyse asks wherever it is set; otherwise every piece is read as sh when any
    /// `SHELL` (or the default `/bin/sh`) is sh, the stricter reading.
    fn recipe_shell(&self, out: &mut Extracted) {
        for (shell, span) in &self.shells {
            if let Shell::Unsupported(name) = shell {
                out.problem(
                    ScanCode::UnsupportedShell,
                    *span,
                    format!(
                        "make runs every recipe with {name}, a shell cmdguard does not analyse"
                    ),
                );
            }
        }
        let all_bash =
            !self.shells.is_empty() && self.shells.iter().all(|(s, _)| *s == Shell::Bash);
        for p in &mut out.pieces {
            if p.shell.analysed() {
                p.shell = if all_bash { Shell::Bash } else { Shell::Sh };
            }
        }
    }

    /// Every target and prerequisite of a rule that has no recipe in this file and is not
    /// `.PHONY` may be made by one of make's built-in rules (`all: prog` with a `prog.c`
    /// beside runs `$(CC) prog.c -o prog`), a recipe this file does not show: it asks. A
    /// `MAKEFLAGS += -r` in the file does not count: GNU make before 4.4.1 does not apply it to
    /// the makefile that sets it (GNU bug 64107); an empty recipe (`prog: ;`) does.
    fn builtin_rules(&self, out: &mut Extracted) {
        let special = |t: &str| {
            t.len() > 1
                && t.starts_with('.')
                && t[1..].bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        };
        let mut asked = HashSet::new();
        for (targets, prerequisites, span) in &self.rules {
            if targets.iter().any(|t| special(t)) {
                continue;
            }
            for name in targets.iter().chain(prerequisites) {
                if self.with_recipe.contains(name)
                    || self.phony.contains(name)
                    || !asked.insert(name.clone())
                {
                    continue;
                }
                out.problem(
                    ScanCode::Unmodelled,
                    *span,
                    format!(
                        "`{name}` has no recipe in this file and is not `.PHONY`: make may build it with a built-in rule (such as `$(CC)` for a `{name}.c`), which this file does not show; list it in `.PHONY` or give it a recipe (`{name}: ;` for a file that is only read)"
                    ),
                );
            }
        }
    }
}

/// The first reference in the rule line `line` (which holds no literal `;`) whose value may
/// hold a `;`: one [`evaluate`] cannot compute from the literals assigned so far (make expands
/// a rule line as it reads it), or one whose value holds `;`. GNU make looks for the `;` that
/// starts a recipe in the expanded line (red team s9: `S := ;` and `all: $(S) rm -rf v`).
fn hidden_semicolon<'a>(
    line: &'a str,
    literals: &HashMap<String, Option<String>>,
) -> Option<&'a str> {
    let refs = references(line, Escapes::Yes);
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'$') => i += 2,
            Some(b'(' | b'{') => {
                let reference = refs
                    .iter()
                    .find(|(at, _)| *at == i)
                    .map_or(&line[i..], |r| r.1);
                let value = evaluate(reference, literals, 0);
                if value.is_none_or(|v| v.contains(';')) {
                    return Some(reference);
                }
                i += reference.len().max(1);
            }
            Some(_) => {
                let end = line[i + 1..]
                    .chars()
                    .next()
                    .map_or(line.len(), |c| i + 1 + c.len_utf8());
                let reference = &line[i..end];
                let value = evaluate(&format!("$({})", &line[i + 1..end]), literals, 0);
                if value.is_none_or(|v| v.contains(';')) {
                    return Some(reference);
                }
                i = end;
            }
            None => return Some(&line[i..]),
        }
    }
    None
}

/// How a target-specific assignment is described; such a value is the target's only.
const TARGET_SPECIFIC: &str = "a target-specific assignment";

/// How many variables deep [`evaluate`] follows values.
const MAX_LITERAL_DEPTH: usize = 8;

/// The text make makes of `text` — a reference (`$(X)`, `${X}`) or a value — when every
/// reference in it is a variable of `literals` or a call of `strip`, `subst`, `firstword`,
/// `lastword`, `addprefix` or `addsuffix` of such text; `None` for anything else (an
/// automatic variable, a variable this file does not assign once, another function).
fn evaluate(
    text: &str,
    literals: &HashMap<String, Option<String>>,
    depth: usize,
) -> Option<String> {
    if depth > MAX_LITERAL_DEPTH {
        return None;
    }
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next()?;
        if c != '$' {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let open = rest[1..].chars().next()?;
        if open == '$' {
            out.push('$');
            i += 2;
            continue;
        }
        let close = match open {
            '(' => ')',
            '{' => '}',
            // `$@`, `$X`: automatic and one-letter variables.
            _ => return None,
        };
        let mut level = 0;
        let len = rest
            .char_indices()
            .skip(1)
            .find(|&(_, ch)| {
                if ch == open {
                    level += 1;
                } else if ch == close {
                    level -= 1;
                }
                level == 0
            })
            .map(|(n, _)| n + 1)?;
        let reference = &rest[..len];
        let value = match function_call(reference) {
            Some((name, args, _)) => {
                let args = split_args(args);
                let arg =
                    |n: usize| -> Option<String> { evaluate(args.get(n)?, literals, depth + 1) };
                match (name, args.len()) {
                    ("strip", 1) => arg(0)?.split_whitespace().collect::<Vec<_>>().join(" "),
                    ("firstword", 1) => arg(0)?.split_whitespace().next().unwrap_or("").to_string(),
                    ("lastword", 1) => arg(0)?.split_whitespace().last().unwrap_or("").to_string(),
                    ("subst", 3) => {
                        let (from, to, text) = (arg(0)?, arg(1)?, arg(2)?);
                        if from.is_empty() {
                            return None;
                        }
                        text.replace(&from, &to)
                    }
                    ("addprefix" | "addsuffix", 2) => {
                        let (fix, names) = (arg(0)?, arg(1)?);
                        let words = names.split_whitespace().map(|w| match name {
                            "addprefix" => format!("{fix}{w}"),
                            _ => format!("{w}{fix}"),
                        });
                        words.collect::<Vec<_>>().join(" ")
                    }
                    _ => return None,
                }
            }
            None => {
                let name = &reference[2..len - 1];
                let value = literals.get(name)?.as_deref()?;
                evaluate(value, literals, depth + 1)?
            }
        };
        out.push_str(&value);
        i += len;
    }
    Some(out)
}

/// A function's arguments split at the commas outside references.
fn split_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut from = 0;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '{' => level += 1,
            ')' | '}' => level = level.saturating_sub(1),
            ',' if level == 0 => {
                out.push(&args[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[from..]);
    out
}

/// Where a non-recipe logical line's comment starts: the first `#` that no odd run of
/// backslashes escapes and that is outside variable references and function calls (GNU make
/// 4.3 and later; older releases also end the line at a `#` inside a reference, which only
/// makes less text run). A `;` first — a rule's recipe, whose `#` is the shell's — or an
/// unterminated reference stops the search: the line is then read whole (more text is
/// analysed, never less).
fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                let slashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                if slashes % 2 == 0 {
                    return Some(i);
                }
            }
            b';' => return None,
            b'$' => match bytes.get(i + 1) {
                Some(&open @ (b'(' | b'{')) => {
                    let close = if open == b'(' { b')' } else { b'}' };
                    let mut level = 0usize;
                    let mut j = i + 1;
                    loop {
                        match bytes.get(j) {
                            None => return None,
                            Some(&b) if b == open => level += 1,
                            Some(&b) if b == close => {
                                level -= 1;
                                if level == 0 {
                                    break;
                                }
                            }
                            Some(_) => {}
                        }
                        j += 1;
                    }
                    i = j;
                }
                // `$$`, `$@`: two bytes that hold no comment.
                Some(_) => i += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    None
}

/// The words of `s` split on white space, each with its offset.
fn words(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split_whitespace()
        .map(move |w| (w.as_ptr() as usize - s.as_ptr() as usize, w))
}

/// `define NAME` (with `export`/`override`/`private` before it and an operator after the
/// name): the name, and whether it is exported.
fn define_name(line: &str) -> Option<(&str, bool)> {
    let (rest, exported) = strip_modifiers(line);
    let rest = rest.strip_prefix("define")?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let name = rest
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(['=', ':', '?', '+', '!']);
    Some((name, exported))
}

/// `line` without the `export`, `override` and `private` words before an assignment, and
/// whether `export` was one of them.
fn strip_modifiers(line: &str) -> (&str, bool) {
    let mut rest = line.trim_start();
    let mut exported = false;
    loop {
        let word = rest.split_whitespace().next().unwrap_or("");
        let next = &rest[word.len()..];
        if !matches!(word, "export" | "override" | "private") || !next.starts_with([' ', '\t']) {
            return (rest, exported);
        }
        exported |= word == "export";
        rest = next.trim_start();
    }
}

/// The name `text` refers to when it is one reference to one variable: `$(NAME)`,
/// `${NAME}`, `$(value NAME)`, `$(call NAME…)`.
fn single_reference(text: &str) -> Option<&str> {
    let refs = references(text, Escapes::No);
    let (0, whole) = refs.first().copied()? else {
        return None;
    };
    if whole.len() != text.len() || !whole.ends_with([')', '}']) || whole.len() < 3 {
        return None;
    }
    let inner = &whole[2..whole.len() - 1];
    let name = match function_call(whole) {
        Some(("value" | "call", args, _)) => args.split(',').next().unwrap_or("").trim(),
        Some(_) => return None,
        None => inner,
    };
    (!name.is_empty() && !name.contains('$')).then_some(name)
}

/// Whether a `MAKEFLAGS` word is one of [`PLAIN_MAKEFLAGS`], a job count (`-j`, `-j4`,
/// `--jobs=4`), or make's own one-word form of the single-letter flags it lists.
fn plain_makeflag(w: &str) -> bool {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    PLAIN_MAKEFLAGS.contains(&w)
        || w.strip_prefix("-j").is_some_and(digits)
        || w.strip_prefix("--jobs")
            .is_some_and(|r| r.is_empty() || r.strip_prefix('=').is_some_and(digits))
        || w.strip_prefix('-')
            .unwrap_or(w)
            .bytes()
            .all(|b| b"srRwkS".contains(&b))
            && w.len() > usize::from(w.starts_with('-'))
}

/// Whether `$$` is make's escape for `$` (in a recipe) or counts as a reference too (in a
/// value that make may evaluate again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Yes,
    No,
}

/// Every reference `$(…)` / `${…}` in `s`, nested ones included, as (offset, whole text) in
/// order of their `$`; an unclosed one runs to the end. Like make, a reference closes at the
/// bracket that balances its own kind (`$(a (b) c)` is one reference). One pass with a stack
/// per bracket kind, so nesting costs nothing extra.
fn references(s: &str, escapes: Escapes) -> Vec<(usize, &str)> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    // Open brackets of each kind: the offset of the `$` when the bracket opens a reference.
    let mut parens: Vec<Option<usize>> = Vec::new();
    let mut braces: Vec<Option<usize>> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let dollar =
            i > 0 && bytes[i - 1] == b'$' && !(i > 1 && escaped_dollar(bytes, i - 1, escapes));
        match b {
            b'$' if escapes == Escapes::Yes && bytes.get(i + 1) == Some(&b'$') => {
                i += 2;
                continue;
            }
            b'(' => parens.push(dollar.then(|| i - 1)),
            b'{' => braces.push(dollar.then(|| i - 1)),
            b')' => {
                if let Some(Some(start)) = parens.pop() {
                    out.push((start, &s[start..=i]));
                }
            }
            b'}' => {
                if let Some(Some(start)) = braces.pop() {
                    out.push((start, &s[start..=i]));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.extend(
        parens
            .into_iter()
            .chain(braces)
            .flatten()
            .map(|start| (start, &s[start..])),
    );
    out.sort_unstable_by_key(|&(start, _)| start);
    out
}

/// Whether the `$` at `at` is the second of a `$$` escape (in a recipe line).
fn escaped_dollar(bytes: &[u8], at: usize, escapes: Escapes) -> bool {
    if escapes == Escapes::No {
        return false;
    }
    // Count the run of `$` that ends at `at`: an even count means `at` closes a `$$`.
    let run = bytes[..=at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'$')
        .count();
    run % 2 == 0
}

/// A reference that calls a function: its name, its arguments and where they start in the
/// reference. `None` for a variable reference.
fn function_call(reference: &str) -> Option<(&str, &str, usize)> {
    let close = reference.ends_with([')', '}']) && reference.len() > 2;
    let inner = &reference[2..if close {
        reference.len() - 1
    } else {
        reference.len()
    }];
    // Function names are short lowercase words: read only them, so that a long reference
    // costs no more than its name.
    let name_len = inner
        .bytes()
        .take_while(|b| b.is_ascii_lowercase() || *b == b'-')
        .count();
    if name_len == 0 || !inner[name_len..].starts_with([' ', '\t']) {
        return None;
    }
    let name = &inner[..name_len];
    let args = inner[name_len..].trim_start();
    Some((name, args, 2 + inner.len() - args.len()))
}

/// The `$(shell …)` and `$(call shell,…)` of a recipe line, as lines of the file: make runs
/// them when it expands the recipe, before the shell runs the line.
fn recipe_shells(line: Line<'_>) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for (at, reference) in references(line.text, Escapes::Yes) {
        let cmd = match function_call(reference) {
            Some(("shell", args, args_at)) => Some((args, args_at)),
            Some(("call", args, args_at))
                if args.split(',').next().map(str::trim) == Some("shell") =>
            {
                let c = args.find(',').map_or(args.len(), |c| c + 1);
                Some((&args[c..], args_at + c))
            }
            _ => None,
        };
        if let Some((text, text_at)) = cmd {
            out.push(Line {
                start: line.start + at + text_at,
                text,
            });
        }
    }
    out
}

/// Appends a second recipe line of the same rule to the first (`.ONESHELL:`).
fn join(first: &mut Piece, second: Piece) {
    let at = first.origin.pop().unwrap_or(0);
    first.script.push('\n');
    first.origin.push(at);
    let shift = first.script.len();
    first.script.push_str(&second.script);
    first.origin.extend(second.origin);
    first.templates.extend(
        second
            .templates
            .into_iter()
            .map(|(s, t)| (crate::Span::new(s.start + shift, s.end + shift), t)),
    );
}

/// Appends a recipe line's text with make's `$` syntax undone: `$$` is `$`, every variable
/// reference a template.
fn expand(line: Line, b: &mut ScriptBuf) {
    let s = line.text;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let Some(c) = rest.chars().next() else { break };
        if c != '$' {
            b.push_char(c, line.start + i);
            i += c.len_utf8();
            continue;
        }
        let len = match rest[1..].chars().next() {
            Some('$') => {
                b.push_char('$', line.start + i);
                i += 2;
                continue;
            }
            Some(open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                let mut depth = 0;
                rest.char_indices()
                    .skip(1)
                    .find(|&(_, ch)| {
                        if ch == open {
                            depth += 1;
                        } else if ch == close {
                            depth -= 1;
                        }
                        depth == 0
                    })
                    .map_or(rest.len(), |(n, _)| n + 1)
            }
            Some(ch) => 1 + ch.len_utf8(),
            None => 1,
        };
        b.push_template(&rest[..len], line.start + i);
        i += len;
    }
}

/// The shell commands make runs while reading a (non-recipe) logical line: the value of a
/// `!=` assignment, and the argument of each `$(shell …)` / `${shell …}`, with their offsets.
/// `$$(shell …)` counts too: a value make evaluates again runs it.
fn make_time_shells(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    if let Some(bang) = line.find("!=")
        && line[..bang].find(['=', ':']).is_none()
    {
        let value = &line[bang + 2..];
        let trimmed = value.trim_start();
        out.push((line.len() - trimmed.len(), trimmed));
    }
    for (at, reference) in references(line, Escapes::No) {
        if let Some(("shell", args, args_at)) = function_call(reference) {
            out.push((at + args_at, args));
        }
    }
    out
}

/// Whether a line ends in an odd number of backslashes (continues on the next line).
fn continues(s: &str) -> bool {
    (s.len() - s.trim_end_matches('\\').len()) % 2 == 1
}

/// A `NAME = value` line (also `:=`, `::=`, `:::=`, `?=`, `+=`, `!=`, with `export`,
/// `override`, `private` before it).
#[derive(Debug, Clone, Copy)]
struct Assignment<'a> {
    name: &'a str,
    /// Where the name starts in the line.
    name_at: usize,
    value: &'a str,
    /// Where the value starts in the line.
    value_at: usize,
    exported: bool,
    /// The operator: `=`, `:=`, `::=`, `:::=`, `?=`, `+=` or `!=`.
    op: &'a str,
}

fn assignment(line: &str) -> Option<Assignment<'_>> {
    let (rest, exported) = strip_modifiers(line);
    let rest_at = line.len() - rest.len();
    let eq = rest.find('=')?;
    let colon = rest.find(':');
    let head = rest[..eq].trim_end_matches([':', '?', '+', '!']);
    // `a: b=c` is a target-specific variable of a rule: the colon comes first, alone.
    if colon.is_some_and(|c| c < head.len()) {
        return None;
    }
    let name = head.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let value_raw = &rest[eq + 1..];
    let value = value_raw.trim();
    Some(Assignment {
        name,
        name_at: rest_at + (head.len() - head.trim_start().len()),
        value,
        value_at: rest_at + eq + 1 + (value_raw.len() - value_raw.trim_start().len()),
        exported,
        op: &rest[head.len()..=eq],
    })
}

/// `targets: rest` for a rule line (not an assignment, not a conditional).
fn rule(line: &str) -> Option<(&str, &str)> {
    // make looks for the colon outside variable references: `$(eval a: ; b)` is no rule.
    let mut skip_to = 0;
    let mut colon = None;
    let refs = references(line, Escapes::No);
    let mut next_ref = refs.iter().peekable();
    for (i, c) in line.char_indices() {
        while next_ref.peek().is_some_and(|(at, _)| *at < i) {
            next_ref.next();
        }
        if i < skip_to {
            continue;
        }
        if let Some((at, r)) = next_ref.peek()
            && *at == i
        {
            skip_to = i + r.len();
            continue;
        }
        if c == ':' {
            colon = Some(i);
            break;
        }
    }
    let colon = colon?;
    let (targets, rest) = (&line[..colon], &line[colon + 1..]);
    let rest = rest.trim_start_matches(':');
    const DIRECTIVES: &[&str] = &[
        "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude",
        "vpath", "export", "unexport", "override",
    ];
    let first = targets.split_whitespace().next()?;
    if DIRECTIVES.contains(&first) {
        return None;
    }
    Some((targets, rest))
}

fn physical_lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for l in text.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(Line { start, text: body });
        start += l.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrations::scan::test_support::{env, pair, pieces_at, problem_lines, scripts};

    /// A piece as a test sees it: context, script, and the file's text where it starts.
    type Seen = (String, String, String);

    fn pieces(text: &str) -> Vec<Seen> {
        pieces_at(&extract(text), text, 4)
    }

    #[test]
    fn recipes_as_make_hands_them_to_the_shell() {
        let p = |c: &str, s: &str, at: &str| (c.to_string(), s.to_string(), at.to_string());
        let table: &[(&str, Vec<Seen>)] = &[
            (
                "all:\n\tls -la\n",
                vec![p("recipe of all", "ls -la", "ls -")],
            ),
            (
                "all:\n\t@-echo hi\n",
                vec![p("recipe of all", "echo hi", "echo")],
            ),
            (
                "a: b\n\techo $$HOME \\\n\t  x\n",
                vec![p("recipe of a", "echo $HOME \\\n  x", "echo")],
            ),
            (
                "a:\n\t$(CC) -o $@ $<\n",
                vec![p("recipe of a", "${__} -o $_ $_", "$(CC")],
            ),
            (
                "a: ; rm -rf x\n",
                vec![p("recipe of a", "rm -rf x", "rm -")],
            ),
            ("X = 1\n\ndefine T\n\tls\nendef\n# c\n", vec![]),
            (
                ".RECIPEPREFIX = >\nall:\n>ls\n",
                vec![p("recipe of all", "ls", "ls\n")],
            ),
            (
                ".ONESHELL:\nall:\n\tcd /tmp\n\tgit status\n",
                vec![p("recipe of all", "cd /tmp\ngit status", "cd /")],
            ),
        ];
        for (text, want) in table {
            assert_eq!(&pieces(text), want, "{text:?}");
        }
    }

    #[test]
    fn commands_make_runs_while_reading_are_pieces() {
        let x = extract("X != rm -rf /tmp/x\nY := $(shell git rev-parse HEAD)\nall:\n\tls\n");
        assert_eq!(
            scripts(&x),
            [
                pair("make-time shell", "rm -rf /tmp/x"),
                pair("make-time shell", "git rev-parse HEAD"),
                pair("recipe of all", "ls")
            ]
        );
    }

    #[test]
    fn make_variables_are_templates() {
        let x = extract("a:\n\techo ${X} $(shell id) $$y\n");
        let t: Vec<&str> = x.pieces[0]
            .templates
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(t, ["${X}", "$(shell id)"]);
    }

    #[test]
    fn a_shell_other_than_bash_or_sh_is_unsupported() {
        let x = extract("SHELL := /usr/bin/python3\nall:\n\tprint(1)\n");
        assert_eq!(x.pieces[0].shell, Shell::Unsupported("python3".into()));
        let x = extract("SHELL = /bin/bash\nall:\n\tls\n");
        assert_eq!(x.pieces[0].shell, Shell::Bash);
    }

    /// A file's problems as (code, line) and its environment uses as (name, scope).
    type FileLevel = (Vec<(&'static str, usize)>, Vec<(String, EnvScope)>);

    /// The problems and environment uses of a Makefile.
    fn file_level(text: &str) -> FileLevel {
        let x = extract(text);
        (problem_lines(&x, text), env(&x))
    }

    #[test]
    fn file_level_lines_are_allowlisted() {
        use EnvScope::{Exported, Inherited};
        let e = |n: &str, s| (n.to_string(), s);
        #[allow(clippy::type_complexity, reason = "a test table")]
        let table: &[(&str, &[(&str, usize)], Vec<(String, EnvScope)>)] = &[
            // Plain constructs: no problem; assignments are judged by name later.
            (
                "CC := gcc\nX ?= 1\nY += $(wildcard *.c)\n.PHONY: all\nall: ; ls\n",
                &[],
                vec![e("CC", Inherited), e("X", Inherited), e("Y", Inherited)],
            ),
            // Outside the modelled subset: conditionals, `define`, `.ONESHELL`,
            // `.RECIPEPREFIX`, a target with no recipe that is not `.PHONY`, a target-specific
            // `!=` or `SHELL`, a `; recipe` after a continuation.
            (
                "ifeq ($(X),1)\nendif\n",
                &[("unmodelled_construct", 1), ("unmodelled_construct", 2)],
                vec![],
            ),
            (
                "define X\nls\nendef\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            (".ONESHELL:\n", &[("unmodelled_construct", 1)], vec![]),
            (
                ".RECIPEPREFIX = >\n",
                &[("unmodelled_construct", 1)],
                vec![],
            ),
            ("all: prog\n\tls\n", &[("unmodelled_construct", 1)], vec![]),
            ("all: prog\n\tls\nprog: ;\n", &[], vec![]),
            (
                "MAKEFLAGS += -r\nall: prog\n\tls\n",
                &[("unmodelled_construct", 2)],
                vec![],
            ),
            (
                "all: X != id\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            (
                "all: SHELL = /bin/sh\n",
                &[("unmodelled_construct", 1)],
                vec![],
            ),
            ("all: \\\n  ; ls\n", &[("unmodelled_construct", 1)], vec![]),
            (
                "all:\n\tls\nSHELL = ./evil.sh\n",
                &[("unsupported_shell", 3)],
                vec![],
            ),
            ("export LANG := C\n", &[], vec![e("LANG", Exported)]),
            ("X = 1\nexport X\n", &[], vec![e("X", Exported)]),
            ("X = 1\nexport\n", &[], vec![e("X", Exported)]),
            (
                "X = 1\n.EXPORT_ALL_VARIABLES:\n",
                &[],
                vec![e("X", Exported)],
            ),
            ("all: export X = 1\n", &[], vec![e("X", Exported)]),
            ("all: X = 1\n", &[], vec![e("X", Inherited)]),
            ("override private X = 1\n", &[], vec![e("X", Inherited)]),
            ("$(info hi)\n$(warning w)\n", &[], vec![]),
            (
                "SHELL := /bin/bash\n.SHELLFLAGS := -eu -o pipefail -c\n",
                &[],
                vec![],
            ),
            ("SHELL = /usr/bin/env bash\n.POSIX:\n", &[], vec![]),
            ("MAKEFLAGS += -rR --no-print-directory -j4\n", &[], vec![]),
            ("MAKEFLAGS += s\n", &[], vec![]),
            // What changes how every recipe runs, or what make reads.
            (
                "SHELL := /bin/bash -x ./a.sh\n",
                &[("shell_options", 1)],
                vec![],
            ),
            ("SHELL := /tmp/bash\n", &[("shell_options", 1)], vec![]),
            (".SHELLFLAGS := -ic\n", &[("shell_options", 1)], vec![]),
            (".SHELLFLAGS := -c ls\n", &[("shell_options", 1)], vec![]),
            (
                "include a.mk\n-include b.mk\nsinclude c.mk\n",
                &[("unread_file", 1), ("unread_file", 2), ("unread_file", 3)],
                vec![],
            ),
            ("MAKEFILES = a.mk\n", &[("unread_file", 1)], vec![]),
            ("load ./x.so\n", &[("unread_file", 1)], vec![]),
            (
                "MAKEFLAGS += -f x.mk\n",
                &[("unmodelled_construct", 1)],
                vec![],
            ),
            (
                "MAKEFLAGS += -I inc\n",
                &[("unmodelled_construct", 1)],
                vec![],
            ),
            (
                "X := $(file >out,hi)\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            (
                "X := $(call $(F),a)\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            (
                "X := $(call eval,a: ; ls)\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            ("X := $(call F,a)\n", &[], vec![e("X", Inherited)]),
            ("$(X)\n", &[("unmodelled_construct", 1)], vec![]),
            ("junk\n", &[("unmodelled_construct", 1)], vec![]),
            (
                ".SECONDEXPANSION:\n",
                &[("unmodelled_construct", 1)],
                vec![],
            ),
            (".FOO:\n", &[("unmodelled_construct", 1)], vec![]),
            ("$(N) := 1\n", &[("unmodelled_construct", 1)], vec![]),
            (
                "$(eval X := 1)\n",
                &[("unmodelled_construct", 1)],
                vec![e("X", Inherited)],
            ),
            (
                "define T\n$(shell id)\nendef\n",
                &[("unmodelled_construct", 1)],
                vec![e("T", Inherited)],
            ),
        ];
        for (text, problems, env) in table {
            let (got_problems, got_env) = file_level(text);
            assert_eq!(&got_problems, problems, "{text:?}");
            assert_eq!(&got_env, env, "{text:?}");
        }
    }

    #[test]
    fn eval_and_variable_lines_are_read_as_makefile_text() {
        let scripts = |text: &str| scripts(&extract(text));
        let s = pair;
        assert_eq!(
            scripts("define R\nall:\n\trm -rf v\nendef\n$(eval $(R))\n"),
            [s("recipe of all", "rm -rf v")]
        );
        assert_eq!(
            scripts("$(eval all: ; rm -rf v)\n"),
            [s("recipe of all", "rm -rf v")]
        );
        assert_eq!(scripts("X = all: ; id\n$(X)\n"), [s("recipe of all", "id")]);
        // A define that evaluates itself is followed only so deep.
        assert!(scripts("define R\n$(eval $(R))\nendef\n$(eval $(R))\n").is_empty());
        // `$(shell)` and `$(call shell,…)` in a recipe are commands of their own; `$$(shell)`
        // is the shell's command substitution, part of the recipe.
        assert_eq!(
            scripts("a:\n\techo $(shell id) $(call shell,pwd) $$(shell x)\n"),
            [
                s(
                    "recipe of a",
                    "echo ${________} ${______________} $(shell x)"
                ),
                s("$(shell …) in recipe of a", "id"),
                s("$(shell …) in recipe of a", "pwd"),
            ]
        );
    }

    #[test]
    fn shell_flags_and_makeflags_are_short_allowlists() {
        let flags =
            |s: &str| super::super::plain_shell_flags(&s.split_whitespace().collect::<Vec<_>>());
        for ok in [
            "-c",
            "-ec",
            "-e -c",
            "-euo pipefail -c",
            "-o pipefail -c",
            "-eux -c",
            "-xc",
        ] {
            assert!(flags(ok), "{ok}");
        }
        for bad in [
            "",
            "-e",
            "-c ls",
            "-ic",
            "-o posix -c",
            "-c -e",
            "--rcfile x -c",
            "-cx",
            "-O extglob -c",
        ] {
            assert!(!flags(bad), "{bad}");
        }
        for ok in [
            "-s",
            "-j",
            "-j8",
            "--jobs=2",
            "rRs",
            "--no-print-directory",
            "-k",
        ] {
            assert!(plain_makeflag(ok), "{ok}");
        }
        for bad in [
            "--eval=x", "-f", "x.mk", "-I", "-e", "--file=x", "-C", "-jx", "-B",
        ] {
            assert!(!plain_makeflag(bad), "{bad}");
        }
    }

    #[test]
    fn references_find_nested_calls_and_skip_recipe_escapes() {
        fn refs(s: &str, e: Escapes) -> Vec<&str> {
            references(s, e).into_iter().map(|(_, r)| r).collect()
        }
        assert_eq!(
            refs("a $(x $(y)) ${z} $$(w)", Escapes::Yes),
            ["$(x $(y))", "$(y)", "${z}"]
        );
        assert_eq!(refs("$$(w", Escapes::No), ["$(w"]);
        assert_eq!(function_call("$(shell ls -l)"), Some(("shell", "ls -l", 8)));
        assert_eq!(function_call("$(CC)"), None);
        assert_eq!(function_call("$(X Y)"), None);
        assert_eq!(single_reference("$(value R)"), Some("R"));
        assert_eq!(single_reference("$(R) x"), None);
    }

    #[test]
    fn oneshell_recipes_stay_one_piece_around_their_shell_calls() {
        let x = extract(".ONESHELL:\nall:\n\tf() { rm -rf v; }\n\techo $(shell id)\n\tf\n");
        assert_eq!(
            scripts(&x),
            [
                pair("recipe of all", "f() { rm -rf v; }\necho ${________}\nf"),
                pair("$(shell …) in recipe of all", "id"),
            ]
        );
    }

    #[test]
    fn comments_end_where_make_ends_them() {
        let table: &[(&str, Option<&str>)] = &[
            ("X = 1 # c", Some("X = 1 ")),
            ("# all", Some("")),
            (r"X = a\# b", None),
            (r"X = a\\# b", Some(r"X = a\\")),
            // GNU make 4.3+: a `#` inside a reference is text.
            ("X = $(subst #,x,y) # c", Some("X = $(subst #,x,y) ")),
            ("X = ${a#b}", None),
            // A rule's recipe is the shell's, `#` and all.
            ("all: ; echo # c", None),
            ("all: # c ; echo", Some("all: ")),
            // Unterminated: read whole.
            ("X = $(a # b", None),
            ("X = $$# b", Some("X = $$")),
        ];
        for (line, want) in table {
            assert_eq!(comment_start(line).map(|i| &line[..i]), *want, "{line}");
        }
        // A `\` after a comment continues it: the next line is comment text.
        assert_eq!(pieces("X = 1 # \\\nY := $(shell rm -rf v)\n"), []);
        assert_eq!(pieces("# c \\\nY := $(shell rm -rf v)\n"), []);
    }

    #[test]
    fn literal_values_are_evaluated_through_the_text_functions() {
        let literals: HashMap<String, Option<String>> = [
            ("X", Some("rm -rf v")),
            ("R", Some("rm")),
            ("Y", Some("$(R) -rf  v ")),
            ("TWICE", None),
            ("LOOP", Some("$(LOOP)")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
        .collect();
        let table: &[(&str, Option<&str>)] = &[
            ("$(X)", Some("rm -rf v")),
            ("${X}", Some("rm -rf v")),
            ("$(strip $(Y))", Some("rm -rf v")),
            ("$(subst q,v,rm -rf q)", Some("rm -rf v")),
            ("$(firstword $(X))", Some("rm")),
            ("$(lastword $(X))", Some("v")),
            ("$(addprefix ./,a b)", Some("./a ./b")),
            ("$(addsuffix .o,a b)", Some("a.o b.o")),
            ("a$$b", Some("a$b")),
            ("$(TWICE)", None),
            ("$(UNSET)", None),
            ("$(LOOP)", None),
            ("$@", None),
            ("$(shell rm -rf v)", None),
            ("$(X:a=b)", None),
            ("$(subst ,x,y)", None),
            ("$(X", None),
        ];
        for (text, want) in table {
            assert_eq!(evaluate(text, &literals, 0).as_deref(), *want, "{text}");
        }
    }

    #[test]
    fn recipes_of_literal_variables_are_pieces_with_the_values_pasted_in() {
        let got = |text: &str| -> Vec<String> {
            extract(text)
                .pieces
                .iter()
                .filter(|p| p.context.ends_with("pasted in"))
                .map(|p| p.script.clone())
                .collect()
        };
        assert_eq!(got("X = rm -rf v\nall: ; $(X)\n"), ["rm -rf v"]);
        assert_eq!(got("all:\n\t@$(strip  rm  -rf v ) x\n"), ["rm -rf v x"]);
        // Assigned twice, appended to, or for one target only: not a literal.
        assert!(got("X = a\nX = rm -rf v\nall: ; $(X)\n").is_empty());
        assert!(got("X = a\nX += rm -rf v\nall: ; $(X)\n").is_empty());
        assert!(got("all: X = rm -rf v\nall: ; $(X)\n").is_empty());
        assert!(got("all: ; $(CC) x\n").is_empty());
        // A value assigned after the recipe line is the one make pastes in.
        assert_eq!(got("all: ; $(X)\nX = rm -rf v\n"), ["rm -rf v"]);
    }
}

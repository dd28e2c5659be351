//! check/interp/code: reads Python, JavaScript, Ruby and PHP one-liners with their tree-sitter
//! grammars and lists the calls in them, with whatever arguments are literal. It never decides
//! anything: names go to the pack, commands back to the analyser.
//!
//! Fail closed: code with a syntax error is `Unparsed` (its interpreter would not run it, and
//! cmdguard does not guess what a recovered tree means); a value that is not a literal, or is
//! built in a way not listed here, is `None`. Expressions are followed to a bounded depth, so a
//! long chain of `+` cannot exhaust the stack.

use std::time::Duration;

use super::{Given, Lang, Scan};
use crate::budget::Budget;

/// How the code reached the interpreter: PHP reads code from an option as bare PHP, but a
/// program on stdin only between `<?php` tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `-c CODE`, `-e CODE`, `-r CODE`.
    Option,
    /// A heredoc or here-string.
    Stdin,
}

/// Lists the calls in `code`. Parsing is bounded by `time`, walking by `budget`.
/// `given` is what the line gives the code: its operands (`sys.argv[1:]`), environment, stdin.
#[cfg(feature = "interpreters")]
pub(crate) fn scan(
    lang: Lang,
    form: Form,
    code: &str,
    given: &Given,
    budget: &Budget,
    time: Duration,
) -> Scan {
    imp::scan(lang, form, code, given, budget, time)
}

/// Without the `interpreters` feature no grammar is built in: the one-liner keeps its `ask`.
#[cfg(not(feature = "interpreters"))]
pub(crate) fn scan(_: Lang, _: Form, _: &str, _: &Given, _: &Budget, _: Duration) -> Scan {
    Scan::Unparsed("is not read (cmdguard was built without its `interpreters` feature)".into())
}

/// Python's `FORMAT % ARGS` where the format has only `%s`, `%d`, `%i` and `%%`, with one
/// argument for each: `None` for anything else (`%r`'s quotes, widths, mappings, a count that
/// differs).
#[cfg(feature = "interpreters")]
fn percent_format(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::with_capacity(format.len());
    let mut args = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '%' => out.push('%'),
            's' => out.push_str(args.next()?),
            'd' | 'i' => {
                let a = args.next()?;
                a.parse::<i64>().ok()?;
                out.push_str(a);
            }
            _ => return None,
        }
    }
    args.next().is_none().then_some(out)
}

/// Python's `FORMAT.format(ARGS)` where the format has only `{}` placeholders (and `{{`/`}}`),
/// one argument for each: `None` for anything else (indexes, names, conversions, specs).
#[cfg(feature = "interpreters")]
fn brace_format(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::with_capacity(format.len());
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                out.push(c);
            }
            ('{', Some('}')) => {
                chars.next();
                out.push_str(args.next()?);
            }
            ('{' | '}', _) => return None,
            _ => out.push(c),
        }
    }
    args.next().is_none().then_some(out)
}

/// Decodes the backslash escapes common to the languages read here (`\n`, `\\`, `\x41`,
/// `\u{41}`, `\u0041`). An escape it does not know keeps its backslash, as Python does.
pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let hex = |n: usize, chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let mut v = 0u32;
            for _ in 0..n {
                match chars.peek().and_then(|c| c.to_digit(16)) {
                    Some(d) => {
                        v = v * 16 + d;
                        chars.next();
                    }
                    None => break,
                }
            }
            char::from_u32(v)
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'a' => out.push('\u{7}'),
            'e' => out.push('\u{1b}'),
            '\\' | '\'' | '"' | '`' | '$' | '/' | ' ' => out.push(e),
            '\n' => {}
            'x' => out.extend(hex(2, &mut chars)),
            'u' if chars.peek() == Some(&'{') => {
                chars.next();
                out.extend(hex(6, &mut chars));
                if chars.peek() == Some(&'}') {
                    chars.next();
                }
            }
            'u' => out.extend(hex(4, &mut chars)),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(feature = "interpreters")]
mod imp {
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;
    use std::time::Duration;

    use tree_sitter::{Language, Node, Parser, Tree};

    use super::super::{Call, Given, Lang, Scan, Value};
    use super::{Form, brace_format, percent_format, unescape};
    use crate::budget::Budget;

    /// How deep an expression (a callee chain, a `+` chain, a list) is followed.
    const MAX_DEPTH: usize = 48;

    /// Most expression nodes evaluated for one call: names bound to names (`b = a + a`) could
    /// otherwise make the work grow exponentially with the code.
    const MAX_STEPS: usize = 4096;

    /// Calls that give a module its name: `__import__('os')`, `require('fs')`, `import('fs')`.
    const LOADERS: &[&str] = &[
        "__import__",
        "importlib.import_module",
        "builtins.__import__",
        "require",
        "import",
        "process.getBuiltinModule",
        "globalThis.process.getBuiltinModule",
    ];

    /// Calls that read an attribute named by a string: `getattr(os, 'system')`.
    const GETATTR: &[&str] = &["getattr", "builtins.getattr"];

    /// Calls that stand for the home directory, by language.
    const HOME: &[&str] = &[
        "pathlib.Path.home",
        "pathlib.PosixPath.home",
        "os.homedir",
        "Dir.home",
        "Etc.getpwuid().dir",
    ];

    /// Calls whose value is the path given as their first argument (as far as inside or
    /// outside the working directory goes).
    const SAME_PATH: &[&str] = &[
        "os.path.expanduser",
        "os.path.abspath",
        "os.path.normpath",
        "os.path.realpath",
        "os.fspath",
        "str",
        "pathlib.Path",
        "pathlib.PosixPath",
        "String",
        "path.normalize",
        "File.expand_path",
        "File.absolute_path",
        "Pathname.new",
        "realpath",
    ];

    /// Calls that join paths.
    const JOIN: &[&str] = &[
        "os.path.join",
        "path.join",
        "path.resolve",
        "path.posix.join",
        "File.join",
    ];

    /// Calls that stand for the working directory: a path inside it is `.`.
    const CWD: &[&str] = &[
        "os.getcwd",
        "pathlib.Path.cwd",
        "pathlib.PosixPath.cwd",
        "process.cwd",
        "Dir.pwd",
        "Deno.cwd",
        "getcwd",
    ];

    /// Calls that list the paths matching a pattern: each path they give lies where the
    /// pattern does, so as far as inside or outside goes, an element is the pattern.
    const GLOB: &[&str] = &["glob.glob", "glob.iglob", "Dir.glob", "Dir.[]", "glob"];

    /// Calls that list a directory's entries by name: an element is one path component, which
    /// stands for the pattern `*` (`os.path.join(d, f)` for `f` in `os.listdir(d)` lies in `d`;
    /// `f` alone is a name in the working directory).
    const LISTDIR: &[&str] = &["os.listdir", "Dir.entries", "Dir.children", "scandir"];

    /// Calls that read an environment variable (its name is the first argument).
    const GETENV: &[&str] = &["os.getenv", "os.environ.get", "ENV.fetch", "getenv"];

    /// Values that stand for the environment, read with a subscript.
    const ENVIRON: &[&str] = &["os.environ", "process.env", "ENV"];

    thread_local! {
        // One parser per grammar per thread: `Parser::parse` needs `&mut`.
        static PARSERS: RefCell<Vec<(usize, Parser)>> = const { RefCell::new(Vec::new()) };
    }

    fn grammar(lang: Lang, form: Form) -> Option<(usize, Language)> {
        Some(match (lang, form) {
            (Lang::Python, _) => (0, tree_sitter_python::LANGUAGE.into()),
            (Lang::JavaScript, _) => (1, tree_sitter_javascript::LANGUAGE.into()),
            (Lang::Ruby, _) => (2, tree_sitter_ruby::LANGUAGE.into()),
            // One PHP grammar, the one with `<?php` tags: code from `-r` is given an opening
            // tag. The crate's tag-less grammar is then never linked (about 1 MB).
            (Lang::Php, _) => (3, tree_sitter_php::LANGUAGE_PHP.into()),
            (
                Lang::Perl
                | Lang::Lua
                | Lang::R
                | Lang::Julia
                | Lang::AppleScript
                | Lang::PowerShell
                | Lang::Tcl
                | Lang::Groovy,
                _,
            ) => return None,
        })
    }

    fn parse(lang: Lang, form: Form, code: &str, time: Duration) -> Option<Tree> {
        let (slot, language) = grammar(lang, form)?;
        PARSERS.with(|cell| {
            let mut parsers = cell.try_borrow_mut().ok()?;
            if !parsers.iter().any(|(s, _)| *s == slot) {
                let mut p = Parser::new();
                p.set_language(&language).ok()?;
                parsers.push((slot, p));
            }
            let (_, parser) = parsers.iter_mut().find(|(s, _)| *s == slot)?;
            crate::parse::parse_within(parser, code, time)
        })
    }

    pub(super) fn scan(
        lang: Lang,
        form: Form,
        code: &str,
        given: &Given,
        budget: &Budget,
        time: Duration,
    ) -> Scan {
        let tagged;
        let code = if (lang, form) == (Lang::Php, Form::Option) {
            tagged = format!("<?php {code}");
            tagged.as_str()
        } else {
            code
        };
        let Some(tree) = parse(lang, form, code, time) else {
            return Scan::Unparsed("could not be parsed within the time limit".into());
        };
        let root = tree.root_node();
        if root.has_error() {
            return Scan::Unparsed("does not parse".into());
        }
        let mut r = Reader {
            lang,
            src: code,
            given,
            budget,
            aliases: HashMap::new(),
            includes: Vec::new(),
            bindings: HashMap::new(),
            consts: HashMap::new(),
            steps: Cell::new(0),
            level: Cell::new(0),
        };
        // Two passes: imports and aliases anywhere in the code name what calls stand for.
        let mut nodes = Vec::new();
        let mut cursor = root.walk();
        'walk: loop {
            if !budget.ok() {
                return Scan::Unparsed("is too large to read within the work budget".into());
            }
            nodes.push(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        for n in &nodes {
            r.bind(*n);
            r.count(*n);
        }
        let mut calls = Vec::new();
        for n in &nodes {
            if !budget.ok() {
                return Scan::Unparsed("is too large to read within the work budget".into());
            }
            // Each call gets its own allowance of steps for following names to values.
            r.steps.set(0);
            calls.extend(r.call(*n));
        }
        if lang == Lang::Ruby {
            let piped: Vec<Call> = calls.iter().filter_map(ruby_pipe_open).collect();
            calls.extend(piped);
        }
        let truncating: Vec<Call> = calls.iter().filter_map(truncating_open).collect();
        calls.extend(truncating);
        for n in &nodes {
            r.steps.set(0);
            calls.extend(r.mapped_calls(*n));
        }
        // The literals a command built at run time may be (see `LITERAL`).
        let literals = nodes
            .iter()
            .filter(|n| matches!(n.kind(), "string" | "template_string" | "encapsed_string"))
            .filter(|n| !percent_operand(**n, code))
            .filter_map(|n| {
                r.steps.set(0);
                match r.value(*n, 0)? {
                    Value::Text(t) if !t.trim().is_empty() => Some(t),
                    _ => None,
                }
            })
            .take(super::super::MAX_LITERALS)
            .map(|t| Call {
                names: vec![super::super::LITERAL.to_string()],
                args: vec![Some(Value::Text(t))],
                keywords: Vec::new(),
                receiver: Vec::new(),
            })
            .collect::<Vec<_>>();
        calls.extend(literals);
        Scan::Calls(calls)
    }

    /// Whether a Python string is a side of a `%` format (`"%r" % "rm -rf x"`), or an item of
    /// its argument tuple: the format decides what it becomes, and one cmdguard does not follow
    /// (`%r` quotes its value) is left to the one-liner's `ask`, not read as a command.
    fn percent_operand(n: Node<'_>, code: &str) -> bool {
        let mut at = n.parent();
        if at.is_some_and(|p| matches!(p.kind(), "tuple" | "parenthesized_expression")) {
            at = at.and_then(|p| p.parent());
        }
        at.is_some_and(|p| {
            p.kind() == "binary_operator"
                && p.child_by_field_name("operator")
                    .and_then(|o| code.get(o.byte_range()))
                    == Some("%")
        })
    }

    /// Ruby methods that run a command when the path they are given starts with `|`.
    const RUBY_PIPE_OPENERS: &[&str] = &[
        "open",
        "Kernel.open",
        "IO.read",
        "IO.readlines",
        "IO.foreach",
        "IO.write",
        "IO.binread",
        "IO.binwrite",
    ];

    /// `open("|rm -rf v")`, `Kernel.open`, `IO.read("|…")`: Ruby spawns the command after the
    /// `|`. Reported as a call named `open|` (`interpreters.ruby.pipe-open`) with the command.
    fn ruby_pipe_open(call: &Call) -> Option<Call> {
        if !call
            .names
            .iter()
            .any(|n| RUBY_PIPE_OPENERS.contains(&n.as_str()))
        {
            return None;
        }
        let Some(Some(Value::Text(path))) = call.args.first() else {
            return None;
        };
        let cmd = path.strip_prefix('|')?.trim();
        (!cmd.is_empty() && cmd != "-").then(|| Call {
            names: vec!["open|".to_string()],
            args: vec![Some(Value::Text(cmd.to_string()))],
            keywords: Vec::new(),
            receiver: Vec::new(),
        })
    }

    /// Python's `open(path, mode)` (and `io.open`): a mode with `w` truncates the file. Reported
    /// as a call named `open>` with the path (`interpreters.python.overwrite`).
    fn truncating_open(call: &Call) -> Option<Call> {
        if !call
            .names
            .iter()
            .any(|n| matches!(n.as_str(), "open" | "builtins.open" | "io.open"))
        {
            return None;
        }
        let mode = match call.args.get(1) {
            Some(m) => m.clone(),
            None => call
                .keywords
                .iter()
                .find(|(k, _)| k == "mode")
                .and_then(|(_, v)| v.clone()),
        };
        let Some(Value::Text(mode)) = mode else {
            return None;
        };
        let path = call.args.first().cloned().flatten().or_else(|| {
            call.keywords
                .iter()
                .find(|(k, _)| k == "file")
                .and_then(|(_, v)| v.clone())
        })?;
        mode.contains('w').then(|| Call {
            names: vec!["open>".to_string()],
            args: vec![Some(path)],
            keywords: Vec::new(),
            receiver: Vec::new(),
        })
    }

    struct Reader<'s, 'n> {
        lang: Lang,
        src: &'s str,
        /// What the line gives the code: operands, environment, stdin.
        given: &'s Given,
        budget: &'s Budget,
        /// Local names and what they stand for: `s` → `shutil`, `system` → `os.system`.
        aliases: HashMap<String, String>,
        /// Modules whose names are usable bare (`from os import *`, Ruby's `include FileUtils`).
        includes: Vec<String>,
        /// How many times each name is bound anywhere in the code (Python and JavaScript).
        bindings: HashMap<String, usize>,
        /// The value a name is given by a plain assignment; it counts only for a name bound
        /// once (`p = '/home/u'`).
        consts: HashMap<String, Node<'n>>,
        /// Steps spent following values for the current call (see [`MAX_STEPS`]).
        steps: Cell<usize>,
        /// How many `value` calls are on the stack.
        level: Cell<usize>,
    }

    impl<'s, 'n> Reader<'s, 'n> {
        fn text(&self, n: Node<'_>) -> &'s str {
            self.src.get(n.byte_range()).unwrap_or("")
        }

        fn field<'t>(&self, n: Node<'t>, name: &str) -> Option<Node<'t>> {
            n.child_by_field_name(name)
        }

        fn named<'t>(&self, n: Node<'t>) -> Vec<Node<'t>> {
            let mut c = n.walk();
            n.named_children(&mut c).collect()
        }

        /// Records what an import or a plain alias binds.
        fn bind(&mut self, n: Node<'n>) {
            match (self.lang, n.kind()) {
                (Lang::Python, "import_statement") => {
                    let mut c = n.walk();
                    for name in n.children_by_field_name("name", &mut c) {
                        if name.kind() == "aliased_import"
                            && let (Some(m), Some(a)) =
                                (self.field(name, "name"), self.field(name, "alias"))
                        {
                            self.aliases
                                .insert(self.text(a).to_string(), self.text(m).to_string());
                        }
                    }
                }
                (Lang::Python, "import_from_statement") => {
                    let Some(module) = self.field(n, "module_name") else {
                        return;
                    };
                    if module.kind() != "dotted_name" {
                        return; // a relative import names the project's own modules
                    }
                    let module = self.text(module).to_string();
                    let mut c = n.walk();
                    for name in n.children_by_field_name("name", &mut c) {
                        let (local, full) = match name.kind() {
                            "dotted_name" => (self.text(name), self.text(name)),
                            "aliased_import" => {
                                match (self.field(name, "name"), self.field(name, "alias")) {
                                    (Some(m), Some(a)) => (self.text(a), self.text(m)),
                                    _ => continue,
                                }
                            }
                            _ => continue,
                        };
                        self.aliases
                            .insert(local.to_string(), format!("{module}.{full}"));
                    }
                    if self.named(n).iter().any(|c| c.kind() == "wildcard_import") {
                        self.includes.push(module);
                    }
                }
                (Lang::Python | Lang::Ruby, "assignment")
                | (Lang::JavaScript, "variable_declarator" | "assignment_expression") => {
                    let (Some(name), Some(value)) = (
                        self.field(n, "left").or_else(|| self.field(n, "name")),
                        self.field(n, "right").or_else(|| self.field(n, "value")),
                    ) else {
                        return;
                    };
                    if name.kind() == "identifier" {
                        // A constant only if nothing else binds the name (see `count`).
                        self.consts.insert(self.text(name).to_string(), value);
                    }
                    if let Some(full) = self.dotted(value, 0) {
                        self.bind_pattern(name, &full);
                    }
                }
                (Lang::Php, "assignment_expression") => {
                    if let (Some(name), Some(value)) =
                        (self.field(n, "left"), self.field(n, "right"))
                        && name.kind() == "variable_name"
                    {
                        self.consts.insert(self.text(name).to_string(), value);
                    }
                }
                (Lang::Python, "for_in_clause" | "for_statement") => {
                    // `for p in glob.glob("/home/u/*")`: each `p` lies where the pattern does.
                    if let (Some(name), Some(iter)) =
                        (self.field(n, "left"), self.field(n, "right"))
                        && name.kind() == "identifier"
                        && (self.is_glob(iter) || self.is_listing(iter))
                    {
                        self.consts.insert(self.text(name).to_string(), iter);
                    }
                }
                (Lang::JavaScript, "call_expression") => {
                    // `import('m').then(m => …)`, `.then(({execSync}) => …)`: the parameter is
                    // what the promise gives, the module.
                    let Some(f) = self.field(n, "function") else {
                        return;
                    };
                    if f.kind() != "member_expression"
                        || self.field(f, "property").map(|p| self.text(p)) != Some("then")
                    {
                        return;
                    }
                    let Some(full) = self.field(f, "object").and_then(|o| self.dotted(o, 0)) else {
                        return;
                    };
                    let Some(callback) = self
                        .field(n, "arguments")
                        .and_then(|a| self.named(a).first().copied())
                        .filter(|c| matches!(c.kind(), "arrow_function" | "function_expression"))
                    else {
                        return;
                    };
                    let param = self.field(callback, "parameter").or_else(|| {
                        self.field(callback, "parameters")
                            .and_then(|ps| self.named(ps).first().copied())
                    });
                    if let Some(param) = param {
                        self.bind_pattern(param, &full);
                    }
                }
                (Lang::JavaScript, "import_statement") => {
                    let Some(Value::Text(module)) =
                        self.field(n, "source").and_then(|s| self.value(s, 0))
                    else {
                        return;
                    };
                    let module = js_module(&module);
                    for clause in self.named(n) {
                        if clause.kind() != "import_clause" {
                            continue;
                        }
                        for part in self.named(clause) {
                            match part.kind() {
                                "identifier" => {
                                    self.aliases
                                        .insert(self.text(part).to_string(), module.clone());
                                }
                                "namespace_import" => {
                                    for id in self.named(part) {
                                        self.aliases
                                            .insert(self.text(id).to_string(), module.clone());
                                    }
                                }
                                "named_imports" => {
                                    for spec in self.named(part) {
                                        let Some(name) = self.field(spec, "name") else {
                                            continue;
                                        };
                                        let local = self.field(spec, "alias").unwrap_or(name);
                                        self.aliases.insert(
                                            self.text(local).to_string(),
                                            format!("{module}.{}", self.text(name)),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
                (Lang::Ruby, "call") => {
                    // `Dir.glob("/home/u/*").each { |f| … }`: `f` lies where the pattern does.
                    if let (Some(recv), Some(block)) =
                        (self.field(n, "receiver"), self.field(n, "block"))
                        && self.is_glob(recv)
                        && self
                            .field(n, "method")
                            .is_some_and(|m| matches!(self.text(m), "each" | "map" | "each_entry"))
                        && let Some(param) = self
                            .field(block, "parameters")
                            .and_then(|ps| self.named(ps).first().copied())
                            .filter(|p| p.kind() == "identifier")
                    {
                        self.consts.insert(self.text(param).to_string(), recv);
                    }
                    if self.field(n, "receiver").is_none()
                        && self
                            .field(n, "method")
                            .is_some_and(|m| matches!(self.text(m), "include" | "extend"))
                        && let Some(args) = self.field(n, "arguments")
                    {
                        for a in self.named(args) {
                            if matches!(a.kind(), "constant" | "scope_resolution") {
                                let m = self.text(a).trim_start_matches("::").to_string();
                                self.includes.push(m);
                            }
                        }
                    }
                }
                _ => {}
            }
        }

        /// Binds the names in an assignment target to what `full` names: `cp` → `child_process`,
        /// `{execSync: x}` → `x` is `child_process.execSync`.
        fn bind_pattern(&mut self, target: Node<'_>, full: &str) {
            match target.kind() {
                "identifier" => {
                    self.aliases
                        .insert(self.text(target).to_string(), full.to_string());
                }
                "object_pattern" => {
                    for p in self.named(target) {
                        match p.kind() {
                            "shorthand_property_identifier_pattern" => {
                                let local = self.text(p).to_string();
                                self.aliases
                                    .insert(local.clone(), format!("{full}.{local}"));
                            }
                            "pair_pattern" => {
                                if let (Some(k), Some(v)) =
                                    (self.field(p, "key"), self.field(p, "value"))
                                    && v.kind() == "identifier"
                                {
                                    let key = match k.kind() {
                                        "property_identifier" => Some(self.text(k).to_string()),
                                        // `{['exec' + 'Sync']: x}`
                                        "computed_property_name" => self
                                            .named(k)
                                            .first()
                                            .and_then(|e| self.value(*e, 0))
                                            .and_then(text),
                                        _ => self.value(k, 0).and_then(text),
                                    };
                                    if let Some(key) = key {
                                        self.aliases.insert(
                                            self.text(v).to_string(),
                                            format!("{full}.{key}"),
                                        );
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }

        /// Counts the names `n` binds: an assignment, a loop variable, a parameter, an import.
        /// A name bound more than once is never read as a constant. Counting a name that is
        /// not really bound (`a.b = 1` counts `a`) only leaves a value unknown.
        fn count(&mut self, n: Node<'_>) {
            let target = match (self.lang, n.kind()) {
                (
                    Lang::Python,
                    "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause",
                )
                | (Lang::Ruby, "assignment" | "operator_assignment")
                | (
                    Lang::JavaScript,
                    "assignment_expression"
                    | "augmented_assignment_expression"
                    | "for_in_statement",
                ) => self.field(n, "left"),
                (Lang::Python, "named_expression")
                | (Lang::Python, "function_definition" | "class_definition")
                | (
                    Lang::JavaScript,
                    "variable_declarator"
                    | "function_declaration"
                    | "generator_function_declaration"
                    | "class_declaration",
                ) => self.field(n, "name"),
                (
                    Lang::Python,
                    "parameters"
                    | "lambda_parameters"
                    | "as_pattern_target"
                    | "global_statement"
                    | "nonlocal_statement"
                    | "import_statement"
                    | "import_from_statement"
                    | "delete_statement",
                )
                | (Lang::JavaScript, "formal_parameters" | "import_clause")
                | (
                    Lang::Ruby,
                    "method_parameters" | "block_parameters" | "lambda_parameters" | "for"
                    | "rescue" | "method",
                ) => Some(n),
                (Lang::JavaScript, "update_expression") => self.field(n, "argument"),
                (Lang::Php, "assignment_expression" | "augmented_assignment_expression") => {
                    self.field(n, "left")
                }
                (
                    Lang::Php,
                    "formal_parameters"
                    | "foreach_statement"
                    | "reference_assignment_expression"
                    | "global_declaration"
                    | "static_variable_declaration",
                ) => Some(n),
                (Lang::JavaScript, "arrow_function" | "catch_clause") => self.field(n, "parameter"),
                _ => None,
            };
            let Some(target) = target else { return };
            let mut cursor = target.walk();
            'walk: loop {
                let node = cursor.node();
                if matches!(
                    node.kind(),
                    "identifier" | "shorthand_property_identifier_pattern" | "variable_name"
                ) {
                    *self
                        .bindings
                        .entry(self.text(node).to_string())
                        .or_insert(0) += 1;
                }
                if cursor.goto_first_child() {
                    continue;
                }
                loop {
                    if cursor.node() == target {
                        break 'walk;
                    }
                    if cursor.goto_next_sibling() {
                        break;
                    }
                    if !cursor.goto_parent() {
                        break 'walk;
                    }
                }
            }
        }

        /// The dotted name an expression stands for: `s.rmtree` → `shutil.rmtree`,
        /// `require('fs').rmSync` → `fs.rmSync`, `Path(p).unlink` → `pathlib.Path().unlink`.
        fn dotted(&self, n: Node<'_>, depth: usize) -> Option<String> {
            if depth > MAX_DEPTH {
                return None;
            }
            let d = depth + 1;
            match (self.lang, n.kind()) {
                (Lang::Python | Lang::JavaScript, "identifier") => {
                    let t = self.text(n);
                    Some(
                        self.aliases
                            .get(t)
                            .cloned()
                            .unwrap_or_else(|| t.to_string()),
                    )
                }
                (Lang::Python, "attribute") => Some(format!(
                    "{}.{}",
                    self.dotted(self.field(n, "object")?, d)?,
                    self.text(self.field(n, "attribute")?)
                )),
                (Lang::JavaScript, "member_expression") => Some(format!(
                    "{}.{}",
                    self.dotted(self.field(n, "object")?, d)?,
                    self.text(self.field(n, "property")?)
                )),
                // `cp['exec' + 'Sync']`: a computed member, folded when its key is constant.
                (Lang::JavaScript, "subscript_expression") => {
                    let object = self.dotted(self.field(n, "object")?, d)?;
                    let key = self.field(n, "index").and_then(|k| self.value(k, d));
                    Some(member(&object, key))
                }
                // `sys.modules['os']`: the module.
                (Lang::Python, "subscript") => {
                    let object = self.dotted(self.field(n, "value")?, d)?;
                    let key = self.field(n, "subscript").and_then(|k| self.value(k, d));
                    // `fs = [os.system]; fs[0]`: the element of a list bound once.
                    if let Some(element) =
                        self.element(self.field(n, "value")?, self.field(n, "subscript")?)
                    {
                        return self.dotted(element, d);
                    }
                    match object.as_str() {
                        "sys.modules" => key.and_then(text),
                        // `os.__dict__['system']`: a member of the module.
                        o => Some(member(o.strip_suffix(".__dict__").unwrap_or(o), key)),
                    }
                }
                // `import('fs')` is a call whose callee is this keyword.
                (Lang::JavaScript, "import") => Some("import".to_string()),
                (Lang::Python, "call")
                | (Lang::JavaScript, "call_expression" | "new_expression") => {
                    let f = self
                        .field(n, "function")
                        .or_else(|| self.field(n, "constructor"))?;
                    let name = self.dotted(f, d)?;
                    // `vars(os)['system']`: the module's namespace stands for the module.
                    if self.lang == Lang::Python && name == "vars" {
                        let list = self.field(n, "arguments")?;
                        let args = self.named(list);
                        return match args.as_slice() {
                            [object] if object.kind() != "keyword_argument" => {
                                self.dotted(*object, d)
                            }
                            _ => None,
                        };
                    }
                    if self.lang == Lang::Python && GETATTR.contains(&name.as_str()) {
                        // `getattr(os, 'system')`: the attribute, when its name is constant.
                        let list = self.field(n, "arguments")?;
                        let args = self.named(list);
                        let (object, key) = (args.first()?, args.get(1)?);
                        if object.kind() == "keyword_argument" || key.kind() == "keyword_argument" {
                            return None;
                        }
                        let object = self.dotted(*object, d)?;
                        return Some(member(&object, self.value(*key, d)));
                    }
                    // `__import__('os')`, `require('fs')`, `import('fs')`: the module itself.
                    let loads = LOADERS.contains(&name.as_str())
                        || (self.lang == Lang::JavaScript && name.ends_with(".require"));
                    if loads {
                        let arg = self.args(n, d).into_iter().next().flatten();
                        return match arg {
                            Some(Value::Text(m)) if self.lang == Lang::JavaScript => {
                                Some(js_module(&m))
                            }
                            Some(Value::Text(m)) => Some(m),
                            _ => None,
                        };
                    }
                    Some(format!("{name}()"))
                }
                (Lang::Ruby, "constant" | "identifier") => Some(self.text(n).to_string()),
                (Lang::Ruby, "scope_resolution") => {
                    Some(self.text(n).trim_start_matches("::").to_string())
                }
                (Lang::Ruby, "call") => {
                    let method = self.text(self.field(n, "method")?);
                    match self.field(n, "receiver") {
                        Some(r) => Some(format!("{}.{method}()", self.dotted(r, d)?)),
                        None => Some(format!("{method}()")),
                    }
                }
                (_, "parenthesized_expression" | "await_expression") => {
                    self.named(n).first().and_then(|c| self.dotted(*c, d))
                }
                _ => None,
            }
        }

        /// The call at `n`, when `n` is one.
        fn call(&self, n: Node<'_>) -> Option<Call> {
            match (self.lang, n.kind()) {
                (Lang::Python, "call")
                | (Lang::JavaScript, "call_expression" | "new_expression") => {
                    let f = self
                        .field(n, "function")
                        .or_else(|| self.field(n, "constructor"))?;
                    let name = self.dotted(f, 0)?;
                    let mut names = vec![name.clone()];
                    if f.kind() == "identifier" && !self.aliases.contains_key(self.text(f)) {
                        names.extend(self.includes.iter().map(|m| format!("{m}.{name}")));
                    }
                    // `X(p).m()`: the arguments of `X(…)`.
                    let receiver = self
                        .field(f, "object")
                        .filter(|o| {
                            matches!(o.kind(), "call" | "call_expression" | "new_expression")
                        })
                        .map(|o| self.args(o, 0))
                        .unwrap_or_default();
                    let mut args = self.args(n, 0);
                    if self.lang == Lang::JavaScript {
                        self.js_call_shapes(n, &name, &mut names, &mut args);
                    }
                    Some(Call {
                        names,
                        args,
                        keywords: self.keywords(n),
                        receiver,
                    })
                }
                (Lang::Ruby, "call") => {
                    let mut method = self.text(self.field(n, "method")?);
                    // `method(:system).call(cmd)`: the method the symbol names.
                    if method == "call"
                        && let Some(sym) = self
                            .field(n, "receiver")
                            .and_then(|r| self.method_symbol(r))
                    {
                        return Some(Call {
                            names: vec![sym],
                            args: self.args(n, 0),
                            keywords: Vec::new(),
                            receiver: Vec::new(),
                        });
                    }
                    let mut args = self.args(n, 0);
                    // `send(:system, cmd)`: the method the symbol names, with the rest.
                    if matches!(method, "send" | "public_send" | "__send__")
                        && let Some(first) = self
                            .field(n, "arguments")
                            .and_then(|a| self.named(a).first().copied())
                    {
                        if first.kind() != "simple_symbol" || args.is_empty() {
                            return None;
                        }
                        method = self.text(first).trim_start_matches(':');
                        args.remove(0);
                    }
                    let (names, receiver) = match self.field(n, "receiver") {
                        Some(r) => {
                            let receiver = if r.kind() == "call" {
                                self.args(r, 0)
                            } else {
                                Vec::new()
                            };
                            (vec![format!("{}.{method}", self.dotted(r, 0)?)], receiver)
                        }
                        None => {
                            let mut names = vec![method.to_string()];
                            names.extend(self.includes.iter().map(|m| format!("{m}.{method}")));
                            (names, Vec::new())
                        }
                    };
                    Some(Call {
                        names,
                        args,
                        keywords: Vec::new(),
                        receiver,
                    })
                }
                (Lang::Php, "function_call_expression") => {
                    let f = self.field(n, "function")?;
                    // `$f = "system"; $f(…)`: a variable holding a function's name.
                    let held = match f.kind() {
                        "variable_name" => Some(text(self.value(f, 0)?)?),
                        "name" | "qualified_name" => None,
                        _ => return None,
                    };
                    // PHP function names are case-insensitive; `\system` is the global one.
                    let name = held
                        .as_deref()
                        .unwrap_or(self.text(f))
                        .trim_start_matches('\\')
                        .to_ascii_lowercase();
                    Some(Call {
                        names: vec![name],
                        args: self.args(n, 0),
                        keywords: Vec::new(),
                        receiver: Vec::new(),
                    })
                }
                (Lang::Ruby, "subshell") | (Lang::Php, "shell_command_expression") => Some(Call {
                    names: vec!["`".to_string()],
                    args: vec![self.literal(n, 0)],
                    keywords: Vec::new(),
                    receiver: Vec::new(),
                }),
                _ => None,
            }
        }

        /// Python's keyword arguments (`rmtree(path='/x')`), by name.
        fn keywords(&self, call: Node<'_>) -> Vec<(String, Option<Value>)> {
            let Some(list) = self.field(call, "arguments") else {
                return Vec::new();
            };
            self.named(list)
                .into_iter()
                .filter(|a| a.kind() == "keyword_argument")
                .filter_map(|a| {
                    let name = self.text(self.field(a, "name")?).to_string();
                    Some((name, self.value(self.field(a, "value")?, 1)))
                })
                .collect()
        }

        /// Positional arguments; the first one that is not plain (a splat, a keyword in
        /// Ruby or PHP) ends them.
        fn args(&self, call: Node<'_>, depth: usize) -> Vec<Option<Value>> {
            let Some(list) = self.field(call, "arguments") else {
                return Vec::new();
            };
            let mut out = Vec::new();
            for a in self.named(list) {
                match a.kind() {
                    // Python's keyword arguments come after the positional ones.
                    "keyword_argument" | "comment" => continue,
                    // `*["rm", "-rf", "v"]`, `*ARGV`, `...c`: the items of a list the code
                    // knows, each an argument; any other splat ends them.
                    "list_splat" | "spread_element" | "splat_argument" | "variadic_unpacking" => {
                        match self.spread(a, depth + 1) {
                            Some(items) => out.extend(items),
                            None => break,
                        }
                    }
                    "dictionary_splat" | "hash_splat_argument" | "block_argument" | "pair" => {
                        break;
                    }
                    "argument" => {
                        // PHP wraps each argument; a named one (`name: …`) ends them.
                        if self.field(a, "name").is_some() {
                            break;
                        }
                        out.push(self.named(a).last().and_then(|v| self.value(*v, depth + 1)));
                    }
                    _ => out.push(self.value(a, depth + 1)),
                }
            }
            out
        }

        /// A string node's text when every part of it is literal.
        fn literal(&self, n: Node<'_>, depth: usize) -> Option<Value> {
            let raw = self.lang == Lang::Python
                && n.child(0).is_some_and(|s| {
                    s.kind() == "string_start" && self.text(s).contains(['r', 'R'])
                });
            // Single-quoted Ruby and PHP strings know only `\\` and `\'`.
            let single =
                matches!(self.lang, Lang::Ruby | Lang::Php) && self.text(n).starts_with('\'');
            let mut out = String::new();
            for part in self.named(n) {
                let t = self.text(part);
                match part.kind() {
                    "string_start" | "string_end" => {}
                    "string_content" | "string_fragment" | "string_value" => {
                        if raw {
                            out.push_str(t);
                        } else if single {
                            out.push_str(&t.replace("\\\\", "\\").replace("\\'", "'"));
                        } else {
                            out.push_str(&unescape(t));
                        }
                    }
                    "escape_sequence" => out.push_str(&unescape(t)),
                    // `f"rm -rf {d}"`, `` `rm -rf ${d}` ``, `"rm -rf #{d}"`: a bare expression
                    // with a known text (no conversion, format or `=`).
                    "interpolation" | "template_substitution" => {
                        let [expr] = self.named(part)[..] else {
                            return None;
                        };
                        let e = self.text(expr);
                        if ![format!("{{{e}}}"), format!("${{{e}}}"), format!("#{{{e}}}")]
                            .iter()
                            .any(|w| w == t)
                        {
                            return None;
                        }
                        out.push_str(&text(self.value(expr, depth + 1)?)?);
                    }
                    _ => return None,
                }
            }
            Some(Value::Text(out))
        }

        /// The literal value of an expression, when it has one.
        fn value(&self, n: Node<'_>, depth: usize) -> Option<Value> {
            // `depth` restarts where a call's arguments are read, and names lead back to
            // earlier code (`a = str(b); b = str(a)`): the real nesting is counted here.
            let level = self.level.get();
            if level > MAX_DEPTH {
                return None;
            }
            self.level.set(level + 1);
            let v = self.value_at(n, depth);
            self.level.set(level);
            v
        }

        fn value_at(&self, n: Node<'_>, depth: usize) -> Option<Value> {
            let steps = self.steps.get() + 1;
            self.steps.set(steps);
            if depth > MAX_DEPTH || steps > MAX_STEPS || !self.budget.ok() {
                return None;
            }
            let d = depth + 1;
            match n.kind() {
                // A name bound once, to a value: `p = '/home/u'`.
                "identifier" => {
                    let name = self.text(n);
                    if self.bindings.get(name) != Some(&1) {
                        return None;
                    }
                    let v = self.value(*self.consts.get(name)?, d)?;
                    let len = match &v {
                        Value::Text(t) => t.len(),
                        Value::Words(ws) => ws.iter().map(String::len).sum(),
                    };
                    // Text built from names can grow faster than the code: it is paid for.
                    self.budget.take_bytes(len).then_some(v)
                }
                // `$f = "system"` in PHP: a variable bound once, to a value.
                "variable_name" if self.lang == Lang::Php => {
                    let name = self.text(n);
                    if self.bindings.get(name) != Some(&1) {
                        return None;
                    }
                    self.value(*self.consts.get(name)?, d)
                }
                // Ruby's `ARGV`: the operands after the code.
                "constant" if self.lang == Lang::Ruby && self.text(n) == "ARGV" => {
                    Some(Value::Words(self.given.argv.clone()))
                }
                "string" | "template_string" | "encapsed_string" => self.literal(n, d),
                "concatenated_string" | "chained_string" => {
                    let mut s = String::new();
                    for p in self.named(n) {
                        s.push_str(&text(self.value(p, d)?)?);
                    }
                    Some(Value::Text(s))
                }
                "binary_operator" | "binary_expression" | "binary" => {
                    let op = self.text(self.field(n, "operator")?);
                    let l = text(self.value(self.field(n, "left")?, d)?)?;
                    let right = self.value(self.field(n, "right")?, d)?;
                    // `"rm -rf %s" % "x"`, `"%s %s" % ("rm", "x")`: printf-style formatting.
                    if op == "%" && self.lang == Lang::Python {
                        let args = match right {
                            Value::Text(t) => vec![t],
                            Value::Words(ws) => ws,
                        };
                        return percent_format(&l, &args).map(Value::Text);
                    }
                    let r = text(right)?;
                    match op {
                        "+" | "." => Some(Value::Text(l + &r)),
                        // `Path.home() / 'x'`
                        "/" if self.lang == Lang::Python => Some(Value::Text(join(&[l, r]))),
                        _ => None,
                    }
                }
                "list" | "tuple" | "array" | "array_creation_expression" | "string_array" => {
                    let mut ws = Vec::new();
                    for p in self.named(n) {
                        let v = match p.kind() {
                            "bare_string" => Some(Value::Text(self.text(p).to_string())),
                            "array_element_initializer" => {
                                self.named(p).last().and_then(|v| self.value(*v, d))
                            }
                            _ => self.value(p, d),
                        };
                        ws.push(text(v?)?);
                    }
                    Some(Value::Words(ws))
                }
                "parenthesized_expression" | "parenthesized_statements" => {
                    self.named(n).first().and_then(|c| self.value(*c, d))
                }
                "subscript" | "subscript_expression" | "element_reference" => {
                    let object = self
                        .field(n, "value")
                        .or_else(|| self.field(n, "object"))
                        .or_else(|| self.named(n).first().copied())?;
                    let key = self
                        .field(n, "subscript")
                        .or_else(|| self.field(n, "index"))
                        .or_else(|| self.named(n).get(1).copied())?;
                    self.environ(object, key, d)
                        .or_else(|| self.argument(object, key, d))
                        .or_else(|| self.slice(object, key, d))
                        .or_else(|| {
                            Some(Value::Text(text(
                                self.value(self.element(object, key)?, d)?,
                            )?))
                        })
                }
                "member_expression" => {
                    let name = self.dotted(n, d)?;
                    if name == "process.env.HOME" {
                        return Some(Value::Text("~".into()));
                    }
                    if name == "process.argv" {
                        return Some(Value::Words(self.argv_list("node")));
                    }
                    self.env_var(name.strip_prefix("process.env.")?)
                }
                "attribute" => match self.dotted(n, d)?.as_str() {
                    "sys.argv" => Some(Value::Words(self.argv_list("-c"))),
                    _ => None,
                },
                "call" | "call_expression" | "function_call_expression" => {
                    self.method_value(n, d).or_else(|| self.call_value(n, d))
                }
                _ => None,
            }
        }

        /// `sys.argv[1]`, `process.argv[1]`, `ARGV[0]`: an operand after the code, when it is
        /// static.
        fn argument(&self, object: Node<'_>, key: Node<'_>, d: usize) -> Option<Value> {
            let name = match (self.lang, object.kind()) {
                (Lang::Php, "variable_name") => self.text(object).to_string(),
                _ => self.dotted(object, d)?,
            };
            let first = match (self.lang, name.as_str()) {
                // PHP's `$argv[0]` is `Standard input code` for `-r`.
                (Lang::Php, "$argv") => 1,
                // `sys.argv[0]` is `-c` and `process.argv[0]` the interpreter.
                (Lang::Python, "sys.argv") | (Lang::JavaScript, "process.argv") => 1,
                (Lang::Ruby, "ARGV") => 0,
                _ => return None,
            };
            if !matches!(key.kind(), "integer" | "number") {
                return None;
            }
            let index: usize = self.text(key).parse().ok()?;
            let at = index.checked_sub(first)?;
            self.given.argv.get(at).cloned().map(Value::Text)
        }

        /// `os.environ['HOME']`, `process.env["HOME"]`, `ENV['HOME']`: the home directory; any
        /// other name, the value the line assigns it in front of the interpreter.
        fn environ(&self, object: Node<'_>, key: Node<'_>, d: usize) -> Option<Value> {
            let name = self.dotted(object, d)?;
            let key = text(self.value(key, d)?)?;
            if !ENVIRON.contains(&name.as_str()) {
                return None;
            }
            if key == "HOME" {
                return Some(Value::Text("~".into()));
            }
            self.env_var(&key)
        }

        /// A variable the line assigns in front of the interpreter (`C='…' python3 -c …`).
        fn env_var(&self, name: &str) -> Option<Value> {
            self.given
                .env
                .iter()
                .rfind(|(n, _)| n == name)
                .map(|(_, v)| Value::Text(v.clone()))
        }

        /// The whole argument list as the language shows it: its first item (`-c` for
        /// Python, the interpreter for Node), then the operands.
        fn argv_list(&self, first: &str) -> Vec<String> {
            std::iter::once(first.to_string())
                .chain(self.given.argv.iter().cloned())
                .collect()
        }

        /// `sys.argv[1:]`, `c[2:]`: the tail of a list the code knows, from a literal start.
        fn slice(&self, object: Node<'_>, key: Node<'_>, d: usize) -> Option<Value> {
            if key.kind() != "slice" {
                return None;
            }
            let parts = self.named(key);
            let [start] = parts.as_slice() else {
                return None;
            };
            // Only `N:`: a stop or a step is not followed.
            if !self.text(key).trim_end().ends_with(':') || start.kind() != "integer" {
                return None;
            }
            let from: usize = self.text(*start).parse().ok()?;
            match self.value(object, d)? {
                Value::Words(ws) => Some(Value::Words(ws.get(from..)?.to_vec())),
                Value::Text(_) => None,
            }
        }

        /// `c[0]` where `c` is bound once to a list literal: that element's node.
        fn element<'t>(&self, object: Node<'t>, key: Node<'_>) -> Option<Node<'n>> {
            if object.kind() != "identifier" || !matches!(key.kind(), "integer" | "number") {
                return None;
            }
            let name = self.text(object);
            if self.bindings.get(name) != Some(&1) {
                return None;
            }
            let list = *self.consts.get(name)?;
            if !matches!(list.kind(), "list" | "tuple" | "array") {
                return None;
            }
            let index: usize = self.text(key).parse().ok()?;
            let mut c = list.walk();
            let items: Vec<Node<'n>> = list.named_children(&mut c).collect();
            items.get(index).copied()
        }

        /// Whether `n` is a call listing the paths that match a pattern (`glob.glob(…)`).
        fn is_glob(&self, n: Node<'_>) -> bool {
            matches!(
                n.kind(),
                "call" | "call_expression" | "function_call_expression"
            ) && self
                .call(n)
                .is_some_and(|c| c.names.iter().any(|m| GLOB.contains(&m.as_str())))
        }

        /// Whether `n` is a call listing a directory's entry names (`os.listdir(…)`).
        fn is_listing(&self, n: Node<'_>) -> bool {
            n.kind() == "call"
                && self
                    .call(n)
                    .is_some_and(|c| c.names.iter().any(|m| LISTDIR.contains(&m.as_str())))
        }

        /// The items a splat spreads into arguments: a list literal's items (a list of lists
        /// gives lists), or a known list's words.
        fn spread(&self, splat: Node<'_>, d: usize) -> Option<Vec<Option<Value>>> {
            let inner = *self.named(splat).first()?;
            if matches!(inner.kind(), "list" | "tuple" | "array") {
                return self
                    .named(inner)
                    .into_iter()
                    .map(|i| self.value(i, d).map(Some))
                    .collect();
            }
            match self.value(inner, d)? {
                Value::Words(ws) => Some(ws.into_iter().map(|w| Some(Value::Text(w))).collect()),
                Value::Text(_) => None,
            }
        }

        /// Ruby's `method(:system)`: the method the symbol names.
        fn method_symbol(&self, n: Node<'_>) -> Option<String> {
            if n.kind() != "call"
                || self.field(n, "receiver").is_some()
                || self.text(self.field(n, "method")?) != "method"
            {
                return None;
            }
            let args = self.named(self.field(n, "arguments")?);
            match args.as_slice() {
                [sym] if sym.kind() == "simple_symbol" => {
                    Some(self.text(*sym).trim_start_matches(':').to_string())
                }
                _ => None,
            }
        }

        /// The shapes of JavaScript calls whose command or option sits in an object or a
        /// tagged template: `fs.rmSync(p, {recursive: true})` is also named
        /// `fs.rmSync{recursive}` (first, so the recursive rule wins);
        /// `new Deno.Command("rm", {args: […]}).outputSync()` (a command runs only when
        /// `output`, `outputSync` or `spawn` is called) and `Deno.run({cmd: […]})` give those
        /// lists; `` Bun.$`rm -rf v` `` gives its template.
        fn js_call_shapes(
            &self,
            n: Node<'_>,
            name: &str,
            names: &mut Vec<String>,
            args: &mut Vec<Option<Value>>,
        ) {
            let Some(list) = self.field(n, "arguments") else {
                return;
            };
            if list.kind() == "template_string" {
                *args = vec![self.literal(list, 1)];
                return;
            }
            if self
                .js_option(list, "recursive")
                .is_some_and(|v| self.text(v) == "true")
            {
                names.insert(0, format!("{name}{{recursive}}"));
            }
            match name {
                "Deno.Command().output" | "Deno.Command().outputSync" | "Deno.Command().spawn" => {
                    let Some(ctor) = self
                        .field(n, "function")
                        .and_then(|f| self.field(f, "object"))
                        .filter(|o| o.kind() == "new_expression")
                    else {
                        return;
                    };
                    let program = self.args(ctor, 1).into_iter().next().flatten();
                    let words = self
                        .field(ctor, "arguments")
                        .and_then(|l| self.js_option(l, "args"))
                        .and_then(|v| self.value(v, 1));
                    *args = vec![program, words];
                }
                "Deno.run" => {
                    *args = vec![self.js_option(list, "cmd").and_then(|v| self.value(v, 1))];
                }
                _ => {}
            }
        }

        /// The value of option `key` in an object literal among the arguments `list`.
        fn js_option<'t>(&self, list: Node<'t>, key: &str) -> Option<Node<'t>> {
            self.named(list)
                .into_iter()
                .filter(|a| a.kind() == "object")
                .flat_map(|o| self.named(o))
                .find(|p| {
                    p.kind() == "pair"
                        && self
                            .field(*p, "key")
                            .is_some_and(|k| self.text(k).trim_matches(['"', '\'']) == key)
                })
                .and_then(|p| self.field(p, "value"))
        }

        /// `" ".join(ws)`, `"{} {}".format(a, b)`, `ws.join(" ")`, `ws.slice(1)`: a string or
        /// list method on a value the code knows.
        fn method_value(&self, n: Node<'_>, d: usize) -> Option<Value> {
            let (object, method, args) = match (self.lang, n.kind()) {
                (Lang::Python, "call") | (Lang::JavaScript, "call_expression") => {
                    let f = self.field(n, "function")?;
                    let object = self.field(f, "object")?;
                    let method = self
                        .field(f, "attribute")
                        .or_else(|| self.field(f, "property"))?;
                    (object, self.text(method), self.args(n, d))
                }
                (Lang::Ruby, "call") => (
                    self.field(n, "receiver")?,
                    self.text(self.field(n, "method")?),
                    self.args(n, d),
                ),
                _ => return None,
            };
            let arg_text = |k: usize| args.get(k).cloned().flatten().and_then(text);
            let words = |v: Value| match v {
                Value::Words(ws) => Some(ws),
                Value::Text(_) => None,
            };
            match (self.lang, method) {
                (Lang::Python, "join") => {
                    let sep = text(self.value(object, d)?)?;
                    let ws = words(args.first().cloned().flatten()?)?;
                    Some(Value::Text(ws.join(&sep)))
                }
                (Lang::Python, "format") => {
                    let format = text(self.value(object, d)?)?;
                    let parts: Option<Vec<String>> = (0..args.len()).map(arg_text).collect();
                    brace_format(&format, &parts?).map(Value::Text)
                }
                (Lang::JavaScript | Lang::Ruby, "join") => {
                    let ws = words(self.value(object, d)?)?;
                    let sep = match args.len() {
                        0 if self.lang == Lang::Ruby => String::new(),
                        0 => ",".to_string(),
                        _ => arg_text(0)?,
                    };
                    Some(Value::Text(ws.join(&sep)))
                }
                (Lang::JavaScript, "slice") => {
                    let ws = words(self.value(object, d)?)?;
                    let from: usize = match args.as_slice() {
                        [] => 0,
                        [_] => {
                            let a = self.named(self.field(n, "arguments")?);
                            let k = a.first()?;
                            if k.kind() != "number" {
                                return None;
                            }
                            self.text(*k).parse().ok()?
                        }
                        _ => return None,
                    };
                    Some(Value::Words(ws.get(from..)?.to_vec()))
                }
                _ => None,
            }
        }

        /// Calls a call makes on the code's behalf: Python's `map(os.system, ["…"])`; PHP's
        /// `call_user_func("system", "…")`, `call_user_func_array("system", ["…"])` and
        /// `array_map("unlink", glob("…"))`. Each is reported as a call of the function named.
        fn mapped_calls(&self, n: Node<'_>) -> Vec<Call> {
            let one = |name: String, args: Vec<Option<Value>>| Call {
                names: vec![name],
                args,
                keywords: Vec::new(),
                receiver: Vec::new(),
            };
            let each = |name: String, v: Option<Value>| -> Vec<Call> {
                match v {
                    Some(Value::Words(ws)) => ws
                        .into_iter()
                        .take(super::super::MAX_LITERALS)
                        .map(|w| one(name.clone(), vec![Some(Value::Text(w))]))
                        .collect(),
                    Some(t @ Value::Text(_)) => vec![one(name, vec![Some(t)])],
                    None => Vec::new(),
                }
            };
            match (self.lang, n.kind()) {
                (Lang::Python, "call") => {
                    let Some(f) = self.field(n, "function") else {
                        return Vec::new();
                    };
                    if self.dotted(f, 0).as_deref() != Some("map") {
                        return Vec::new();
                    }
                    let Some(list) = self.field(n, "arguments") else {
                        return Vec::new();
                    };
                    let a = self.named(list);
                    let (Some(func), Some(items)) = (a.first(), a.get(1)) else {
                        return Vec::new();
                    };
                    match self.dotted(*func, 0) {
                        Some(name) => each(name, self.value(*items, 1)),
                        None => Vec::new(),
                    }
                }
                (Lang::Php, "function_call_expression") => {
                    let Some(call) = self.call(n) else {
                        return Vec::new();
                    };
                    let Some(name) = call.names.first() else {
                        return Vec::new();
                    };
                    let func = match call.args.first() {
                        Some(Some(Value::Text(f))) => {
                            f.trim_start_matches('\\').to_ascii_lowercase()
                        }
                        _ => return Vec::new(),
                    };
                    match name.as_str() {
                        "call_user_func" => vec![one(func, call.args[1..].to_vec())],
                        "call_user_func_array" => match call.args.get(1) {
                            Some(Some(Value::Words(ws))) => vec![one(
                                func,
                                ws.iter().map(|w| Some(Value::Text(w.clone()))).collect(),
                            )],
                            _ => Vec::new(),
                        },
                        "array_map" | "array_walk" => {
                            each(func, call.args.get(1).cloned().flatten())
                        }
                        _ => Vec::new(),
                    }
                }
                _ => Vec::new(),
            }
        }

        /// The value of a call that builds a path from literals, or names the home directory.
        fn call_value(&self, n: Node<'_>, d: usize) -> Option<Value> {
            let call = self.call(n)?;
            let name = call.names.first()?.as_str();
            let arg = |k: usize| call.args.get(k).cloned().flatten().and_then(text);
            if HOME.contains(&name) {
                return Some(Value::Text("~".into()));
            }
            if GETENV.contains(&name) {
                let var = arg(0)?;
                if var == "HOME" {
                    return Some(Value::Text("~".into()));
                }
                return self.env_var(&var);
            }
            if CWD.contains(&name) {
                return Some(Value::Text(".".into()));
            }
            if GLOB.contains(&name) {
                // Only Perl's `glob` expands `~` (read by the Perl scanner); here it is a name.
                return arg(0).filter(|p| !p.starts_with('~')).map(Value::Text);
            }
            if LISTDIR.contains(&name) && call.args.len() <= 1 {
                return Some(Value::Text("*".into()));
            }
            if name == "sys.stdin.read" {
                return self.given.stdin.clone().map(Value::Text);
            }
            if SAME_PATH.contains(&name) {
                return arg(0).map(Value::Text);
            }
            if JOIN.contains(&name) {
                let parts: Option<Vec<String>> = (0..call.args.len()).map(arg).collect();
                return Some(Value::Text(join(&parts?)));
            }
            // `Path('~/x').expanduser()`, `Pathname.new(p).expand_path`.
            if [
                "().expanduser",
                "().resolve",
                "().absolute",
                "().expand_path",
            ]
            .iter()
            .any(|m| name.ends_with(m))
            {
                return call.receiver.first().cloned().flatten();
            }
            let _ = d;
            None
        }
    }

    /// The name of member `key` of `object`; a key only run time knows is
    /// [`UNKNOWN_MEMBER`](super::super::UNKNOWN_MEMBER).
    fn member(object: &str, key: Option<Value>) -> String {
        match key.and_then(text) {
            Some(k) => format!("{object}.{k}"),
            None => format!("{object}{}", super::super::UNKNOWN_MEMBER),
        }
    }

    /// A Node module name without its `node:` scheme.
    fn js_module(m: &str) -> String {
        m.strip_prefix("node:").unwrap_or(m).to_string()
    }

    fn text(v: Value) -> Option<String> {
        match v {
            Value::Text(t) => Some(t),
            Value::Words(_) => None,
        }
    }

    /// Joins path parts as the languages do: an absolute part starts over.
    fn join(parts: &[String]) -> String {
        let mut out = String::new();
        for p in parts {
            if p.starts_with('/') || out.is_empty() {
                out = p.clone();
            } else {
                if !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(p);
            }
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn percent_formats_fill_their_placeholders_or_give_up() {
            let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
            for (format, args, want) in [
                ("rm -rf %s", s(&["y2"]), Some("rm -rf y2")),
                ("%s %s", s(&["rm", "-rf"]), Some("rm -rf")),
                ("100%% %d", s(&["5"]), Some("100% 5")),
                ("%d", s(&["x"]), None),
                ("%r", s(&["x"]), None),
                ("%5s", s(&["x"]), None),
                ("%s", s(&[]), None),
                ("%s", s(&["a", "b"]), None),
                ("trailing %", s(&[]), None),
            ] {
                assert_eq!(percent_format(format, &args).as_deref(), want, "{format}");
            }
        }

        /// Every node kind and field this reader compares against exists in its grammar.
        #[test]
        fn the_node_kinds_read_exist_in_the_grammars() {
            let kinds: &[(Lang, Form, &[&str])] = &[
                (
                    Lang::Python,
                    Form::Option,
                    &[
                        "import_statement",
                        "import_from_statement",
                        "aliased_import",
                        "dotted_name",
                        "wildcard_import",
                        "assignment",
                        "identifier",
                        "attribute",
                        "call",
                        "keyword_argument",
                        "list_splat",
                        "dictionary_splat",
                        "string",
                        "string_start",
                        "string_content",
                        "string_end",
                        "escape_sequence",
                        "concatenated_string",
                        "binary_operator",
                        "list",
                        "tuple",
                        "subscript",
                        "parenthesized_expression",
                        "comment",
                    ],
                ),
                (
                    Lang::JavaScript,
                    Form::Option,
                    &[
                        "variable_declarator",
                        "object_pattern",
                        "shorthand_property_identifier_pattern",
                        "pair_pattern",
                        "import_statement",
                        "import_clause",
                        "namespace_import",
                        "named_imports",
                        "identifier",
                        "member_expression",
                        "call_expression",
                        "new_expression",
                        "await_expression",
                        "spread_element",
                        "string",
                        "template_string",
                        "string_fragment",
                        "escape_sequence",
                        "binary_expression",
                        "array",
                        "subscript_expression",
                        "parenthesized_expression",
                    ],
                ),
                (
                    Lang::Ruby,
                    Form::Option,
                    &[
                        "call",
                        "constant",
                        "identifier",
                        "scope_resolution",
                        "subshell",
                        "splat_argument",
                        "hash_splat_argument",
                        "block_argument",
                        "pair",
                        "string",
                        "string_content",
                        "escape_sequence",
                        "chained_string",
                        "binary",
                        "array",
                        "string_array",
                        "bare_string",
                        "element_reference",
                        "parenthesized_statements",
                    ],
                ),
                (
                    Lang::Php,
                    Form::Option,
                    &[
                        "function_call_expression",
                        "name",
                        "qualified_name",
                        "shell_command_expression",
                        "argument",
                        "variadic_unpacking",
                        "string",
                        "encapsed_string",
                        "string_content",
                        "escape_sequence",
                        "binary_expression",
                        "array_creation_expression",
                        "array_element_initializer",
                        "parenthesized_expression",
                    ],
                ),
            ];
            for (lang, form, names) in kinds {
                let (_, language) = grammar(*lang, *form).expect("grammar");
                for k in *names {
                    assert_ne!(language.id_for_node_kind(k, true), 0, "{lang:?} {k}");
                }
            }
            let fields: &[(Lang, &[&str])] = &[
                (
                    Lang::Python,
                    &[
                        "name",
                        "alias",
                        "module_name",
                        "left",
                        "right",
                        "function",
                        "arguments",
                        "object",
                        "attribute",
                        "operator",
                        "value",
                        "subscript",
                    ],
                ),
                (
                    Lang::JavaScript,
                    &[
                        "name",
                        "value",
                        "key",
                        "source",
                        "alias",
                        "object",
                        "property",
                        "function",
                        "constructor",
                        "arguments",
                        "operator",
                        "left",
                        "right",
                        "index",
                    ],
                ),
                (
                    Lang::Ruby,
                    &[
                        "receiver",
                        "method",
                        "arguments",
                        "operator",
                        "left",
                        "right",
                        "object",
                    ],
                ),
                (
                    Lang::Php,
                    &["function", "arguments", "name", "operator", "left", "right"],
                ),
            ];
            for (lang, names) in fields {
                let (_, language) = grammar(*lang, Form::Option).expect("grammar");
                for f in *names {
                    assert!(
                        language.field_id_for_name(f).is_some(),
                        "{lang:?} field {f}"
                    );
                }
            }
        }
    }
}

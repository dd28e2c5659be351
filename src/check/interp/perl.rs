//! check/interp/perl: a small scanner for Perl one-liners, since no Perl grammar builds with
//! this crate's tree-sitter. It finds calls by name followed by literal arguments
//! (`system('rm', '-rf', '/')`, `unlink "/etc/x"`), backquotes and `qx`, and never decides
//! anything.
//!
//! It reads only what it is sure of: string literals (single-quoted, double-quoted without
//! interpolation, `q`/`qq`/`qw` with any delimiters), skipping comments and the quote-like
//! operators (`m//`, `s///`, `tr///`, `qr//`) whose contents are not code. A string that does not
//! end is `Unparsed`; anything else it cannot follow leaves an argument unknown.

use super::{Call, Given, Scan, Value};
use crate::budget::Budget;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// A string literal: `None` when it interpolates.
    Str(Option<String>),
    /// `qw(...)`.
    Words(Vec<String>),
    /// Backquotes or `qx`: the command when literal.
    Command(Option<String>),
    Punct(char),
    /// `=>`.
    Arrow,
}

/// Lists the calls in `code`; `given` holds the operands the code sees as `@ARGV` and the
/// environment it sees as `%ENV`.
pub(crate) fn scan(code: &str, given: &Given, budget: &Budget) -> Scan {
    let argv = given.argv.as_slice();
    let toks = match tokens(code, budget) {
        Ok(t) => t,
        Err(why) => return Scan::Unparsed(why.to_string()),
    };
    let scalars = literal_scalars(&toks);
    let arrays = literal_arrays(&toks, argv);
    let mut calls = Vec::new();
    // A command built at run time: see [`literal_commands`].
    let mut dynamic = false;
    for (k, t) in toks.iter().enumerate() {
        if let Some(call) = truncating_open(&toks, k, &scalars) {
            calls.push(call);
        }
        if let Some(call) = pipe_open(&toks, k, &scalars) {
            // `open(F, "|sh"); print F "rm -rf v"`: a shell reading the pipe runs what the
            // code prints, which may be any of its literals.
            dynamic |= call.args.iter().any(|a| match a {
                Some(Value::Text(cmd)) => runs_a_shell(cmd),
                _ => false,
            });
            calls.push(call);
            continue;
        }
        if let Tok::Ident(name) = t
            && k.checked_sub(1)
                .is_none_or(|j| !matches!(toks[j], Tok::Punct('$' | '@' | '%' | '&' | '>')))
        {
            let name = name.strip_prefix("CORE::").unwrap_or(name);
            // `open(F, "$c|")`: a mode only run time knows may pipe.
            dynamic |= name == "open" && open_is_computed(&toks[k + 1..]);
        }
        if let Some((call, from)) = ipc_call(&toks, k, &scalars) {
            // The handles before the command are rarely literals; only the command counts.
            dynamic |= call.args.get(from).is_none_or(Option::is_none);
            calls.push(call);
            continue;
        }
        match t {
            Tok::Command(c) => {
                dynamic |= c.is_none();
                calls.push(Call {
                    names: vec!["`".to_string()],
                    args: vec![c.clone().map(Value::Text)],
                    keywords: Vec::new(),
                    receiver: Vec::new(),
                });
            }
            Tok::Ident(name) => {
                // `$system(...)`, `->system(...)`, `&system`: not the builtin.
                if k > 0 && matches!(toks[k - 1], Tok::Punct('$' | '@' | '%' | '&' | '>')) {
                    continue;
                }
                let name = name.strip_prefix("CORE::").unwrap_or(name);
                let mut p = k + 1;
                let parens = toks.get(p) == Some(&Tok::Punct('('));
                if parens {
                    p += 1;
                }
                // `system { "rm" } "rm", "-rf", "v"`: the block names the program, the list
                // is its argv (the first word only its name).
                let mut program: Option<Option<String>> = None;
                if SPAWNERS.contains(&name) && toks.get(p) == Some(&Tok::Punct('{')) {
                    let close = toks[p..].iter().position(|t| *t == Tok::Punct('}'));
                    program = Some(match (toks.get(p + 1), close) {
                        (Some(Tok::Str(Some(v))), Some(2)) => Some(v.clone()),
                        (Some(Tok::Punct('$')), Some(3)) => {
                            scalar(&toks[p + 1..], &scalars).map(str::to_string)
                        }
                        // `exec { $c[0] } @c`: an element of an array assigned once.
                        (Some(Tok::Punct('$')), Some(_)) => element(&toks[p + 1..], &arrays)
                            .filter(|(_, len)| Some(&Tok::Punct('}')) == toks.get(p + 1 + len))
                            .map(|(v, _)| v),
                        _ => None,
                    });
                    p += close.map_or(toks.len(), |c| c + 1);
                }
                let mut args = Vec::new();
                loop {
                    let v = match toks.get(p) {
                        Some(Tok::Str(s)) => s.clone().map(Value::Text),
                        Some(Tok::Words(ws)) => Some(Value::Words(ws.clone())),
                        Some(Tok::Punct('$')) if env_home(&toks[p..]) => {
                            p += 5;
                            args.push(Some(Value::Text("~".into())));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            break;
                        }
                        // `@ARGV`, `@c` assigned one literal list: its words.
                        Some(Tok::Punct('@')) if let Some(ws) = array(&toks[p..], &arrays) => {
                            p += 2;
                            args.push(Some(Value::Words(ws.to_vec())));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            break;
                        }
                        // `$ENV{C}` assigned on the line in front of perl.
                        Some(Tok::Punct('$')) if let Some(v) = env_var(&toks[p..], given) => {
                            p += 5;
                            args.push(Some(Value::Text(v)));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            break;
                        }
                        // `join " ", "rm", "-rf"` and `glob "/home/u/*"` of literals.
                        Some(Tok::Ident(f))
                            if let Some((v, len)) = builtin_value(f, &toks[p + 1..]) =>
                        {
                            p += 1 + len;
                            args.push(Some(Value::Text(v)));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            break;
                        }
                        // `$c` assigned one literal (`$c = "rm -rf x"; system $c`).
                        Some(Tok::Punct('$')) if let Some(v) = scalar(&toks[p..], &scalars) => {
                            p += 2;
                            args.push(Some(Value::Text(v.to_string())));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            if !matches!(toks.get(p), Some(Tok::Punct(')' | ';')) | None)
                                && let Some(last) = args.last_mut()
                            {
                                *last = None;
                            }
                            break;
                        }
                        // `$ARGV[0]`: an operand after the code, when it stands alone.
                        Some(Tok::Punct('$')) if let Some((index, len)) = argument(&toks[p..]) => {
                            p += len;
                            let alone = matches!(
                                toks.get(p),
                                Some(Tok::Punct(',' | ')' | ';') | Tok::Arrow) | None
                            );
                            args.push(argv.get(index).filter(|_| alone).cloned().map(Value::Text));
                            if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                                p += 1;
                                continue;
                            }
                            break;
                        }
                        _ => {
                            if !matches!(toks.get(p), Some(Tok::Punct(')' | ';')) | None) {
                                args.push(None);
                            }
                            break;
                        }
                    };
                    args.push(v);
                    p += 1;
                    if matches!(toks.get(p), Some(Tok::Punct(',') | Tok::Arrow)) {
                        p += 1;
                        continue;
                    }
                    // A string followed by anything but a separator or the end is part of a
                    // larger expression (`"a" . $b`): not literal.
                    if !matches!(toks.get(p), Some(Tok::Punct(')' | ';')) | None)
                        && let Some(last) = args.last_mut()
                    {
                        *last = None;
                    }
                    break;
                }
                if let Some(program) = program {
                    match args.first_mut() {
                        // `exec { "rm" } @c`: the list's first word is only the name.
                        Some(Some(Value::Words(ws))) if !ws.is_empty() => match program {
                            Some(p) => ws[0] = p,
                            None => args[0] = None,
                        },
                        Some(first) => *first = program.map(Value::Text),
                        None => args.push(program.map(Value::Text)),
                    }
                }
                if SPAWNERS.contains(&name) && (args.is_empty() || args.iter().any(Option::is_none))
                {
                    dynamic = true;
                }
                if args.iter().any(Option::is_some) {
                    calls.push(Call {
                        names: vec![name.to_string()],
                        args,
                        keywords: Vec::new(),
                        receiver: Vec::new(),
                    });
                }
            }
            Tok::Str(_) | Tok::Words(_) | Tok::Punct(_) | Tok::Arrow => {}
        }
    }
    if dynamic {
        calls.extend(literal_commands(&toks));
    }
    Scan::Calls(calls)
}

/// The spawning calls of the IPC modules, as written and as the pack names them, with the
/// module the code must load for the short name to be defined, and the argument the command
/// starts at. IPC::Open3's and IPC::Open2's
/// calls are exported by default; IPC::Run's and IPC::Run3's only on request, which the code
/// loading the module stands for.
const IPC_CALLS: &[(&str, &str, &str, usize)] = &[
    ("open3", "IPC::Open3::open3", "IPC::Open3", 3),
    ("open2", "IPC::Open2::open2", "IPC::Open2", 2),
    ("run", "IPC::Run::run", "IPC::Run", 0),
    ("start", "IPC::Run::start", "IPC::Run", 0),
    ("harness", "IPC::Run::harness", "IPC::Run", 0),
    ("run3", "IPC::Run3::run3", "IPC::Run3", 0),
];

/// `open3($in, $out, $err, "rm -rf v")`, `open2(my $o, my $i, "rm", "-rf", "v")`, IPC::Run's
/// `run ["rm", "-rf", "v"]` / `run [qw(rm -rf v)]`, IPC::Run3's `run3 "rm -rf v"`: a call at
/// `k` of an IPC module the code loads (or named in full), with every argument read — a
/// literal, a `[…]` list of literals, a scalar assigned one literal — and `None` for any
/// other, so the pack finds the command at its position.
fn ipc_call(toks: &[Tok], k: usize, scalars: &[(String, String)]) -> Option<(Call, usize)> {
    let Tok::Ident(name) = toks.get(k)? else {
        return None;
    };
    if k > 0 && matches!(toks[k - 1], Tok::Punct('$' | '@' | '%' | '&' | '>')) {
        return None;
    }
    let loaded = |module: &str| {
        toks.iter()
            .any(|t| matches!(t, Tok::Ident(m) if m == module))
    };
    let &(_, full, _, from) = IPC_CALLS
        .iter()
        .find(|(short, full, module, _)| name == full || (name == short && loaded(module)))?;
    let mut p = k + 1;
    let parens = toks.get(p) == Some(&Tok::Punct('('));
    if parens {
        p += 1;
    }
    let mut args: Vec<Option<Value>> = Vec::new();
    loop {
        // One argument: up to a `,`/`=>` at depth 0, or the call's end.
        let start = p;
        let mut depth = 0usize;
        while let Some(t) = toks.get(p) {
            match t {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') if depth == 0 => break,
                Tok::Punct(')' | ']' | '}') => depth -= 1,
                Tok::Punct(',') | Tok::Arrow if depth == 0 => break,
                Tok::Punct(';') if depth == 0 => break,
                _ => {}
            }
            p += 1;
        }
        let arg = &toks[start..p];
        if !arg.is_empty() {
            args.push(ipc_value(arg, scalars));
        }
        match toks.get(p) {
            Some(Tok::Punct(',') | Tok::Arrow) => p += 1,
            _ => break,
        }
    }
    let call = Call {
        names: vec![full.to_string()],
        args,
        keywords: Vec::new(),
        receiver: Vec::new(),
    };
    (!call.args.is_empty()).then_some((call, from))
}

/// The value of one IPC call argument: a literal, a scalar assigned one literal, or a `[…]`
/// of literals (the words of one command).
fn ipc_value(arg: &[Tok], scalars: &[(String, String)]) -> Option<Value> {
    match arg {
        [Tok::Str(s)] => s.clone().map(Value::Text),
        [Tok::Words(ws)] => Some(Value::Words(ws.clone())),
        [Tok::Punct('$'), Tok::Ident(_)] => {
            scalar(arg, scalars).map(|v| Value::Text(v.to_string()))
        }
        [Tok::Punct('['), inner @ .., Tok::Punct(']')] => {
            let mut words = Vec::new();
            for (n, t) in inner.iter().enumerate() {
                match (n % 2, t) {
                    (0, Tok::Str(Some(w))) => words.push(w.clone()),
                    (0, Tok::Words(ws)) => words.extend(ws.iter().cloned()),
                    (1, Tok::Punct(',') | Tok::Arrow) => {}
                    _ => return None,
                }
            }
            (!words.is_empty()).then_some(Value::Words(words))
        }
        _ => None,
    }
}

/// The builtins that run a command.
const SPAWNERS: &[&str] = &["system", "exec", "readpipe"];

/// Most string literals read as commands when the code builds one at run time.
const MAX_LITERAL_COMMANDS: usize = 8;

/// Fail closed: where the code runs a command it builds at run time (`system $c` with `$c`
/// assigned twice, `open(F, "$c|")`, an interpolating backquote), each string literal of the
/// code may be that command, so each is reported as `system`'s: a denied one denies, and the
/// code asks as it did.
fn literal_commands(toks: &[Tok]) -> Vec<Call> {
    toks.iter()
        .filter_map(|t| match t {
            Tok::Str(Some(s)) if !s.trim().is_empty() => Some(s.clone()),
            _ => None,
        })
        .take(MAX_LITERAL_COMMANDS)
        .map(|s| Call {
            names: vec!["system".to_string()],
            args: vec![Some(Value::Text(s))],
            keywords: Vec::new(),
            receiver: Vec::new(),
        })
        .collect()
}

/// Whether the `open` whose tokens follow has a mode or command that is not a literal: the
/// arguments after the handle, up to the statement's end, hold an interpolating string or a
/// scalar.
fn open_is_computed(after: &[Tok]) -> bool {
    let Some(comma) = after.iter().position(|t| *t == Tok::Punct(',')) else {
        return false;
    };
    after[comma + 1..]
        .iter()
        .take_while(|t| !matches!(t, Tok::Punct(';')))
        .any(|t| matches!(t, Tok::Str(None) | Tok::Punct('$')))
}

/// Shells that run the script they read on their input.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Whether a pipe command is a shell, possibly with options, reading its script from the pipe
/// (`sh`, `/bin/bash -s`, `sh -x`), not one given `-c` or a script file.
fn runs_a_shell(cmd: &str) -> bool {
    let mut words = cmd.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    SHELLS.contains(&name) && words.all(|w| w.starts_with('-') && !w.contains('c'))
}

/// The call name a piped `open` is reported under (`interpreters.perl.pipe-open`).
const PIPE_OPEN: &str = "open|";

/// `open(F, "CMD|")`, `open F, "|CMD"`, `open(my $f, "-|", "CMD", ARGS…)`: an `open` at `k`
/// whose mode pipes to or from a command runs that command with the shell (or, given
/// several words, as they are). Reported as a call named [`PIPE_OPEN`] with the command.
fn pipe_open(toks: &[Tok], k: usize, scalars: &[(String, String)]) -> Option<Call> {
    let values = open_values(toks, k, scalars)?;
    let (mode, rest) = values.split_first()?;
    let args: Vec<Option<Value>> = match mode.trim() {
        "|-" | "-|" if !rest.is_empty() => {
            rest.iter().cloned().map(|v| Some(Value::Text(v))).collect()
        }
        m if rest.is_empty() => {
            let cmd = m.strip_suffix('|').or_else(|| m.strip_prefix('|'))?.trim();
            if cmd.is_empty() || cmd == "-" {
                return None;
            }
            vec![Some(Value::Text(cmd.to_string()))]
        }
        _ => return None,
    };
    Some(Call {
        names: vec![PIPE_OPEN.to_string()],
        args,
        keywords: Vec::new(),
        receiver: Vec::new(),
    })
}

/// The literal arguments after the handle of an `open` at `k` (`open(F, MODE, PATH…)`): the
/// leading run of literals and scalars assigned one literal.
fn open_values(toks: &[Tok], k: usize, scalars: &[(String, String)]) -> Option<Vec<String>> {
    let Tok::Ident(name) = toks.get(k)? else {
        return None;
    };
    if name.strip_prefix("CORE::").unwrap_or(name) != "open"
        || (k > 0 && matches!(toks[k - 1], Tok::Punct('$' | '@' | '%' | '&' | '>')))
    {
        return None;
    }
    // The handle (`F`, `my $f`, `$fh`) runs to the first comma.
    let comma = k + toks[k..].iter().position(|t| *t == Tok::Punct(','))?;
    if toks[k + 1..comma]
        .iter()
        .any(|t| matches!(t, Tok::Punct(';' | ',')))
    {
        return None;
    }
    let mut values = Vec::new();
    let mut p = comma + 1;
    loop {
        let v = match toks.get(p) {
            Some(Tok::Str(Some(s))) => s.clone(),
            Some(Tok::Punct('$')) => scalar(&toks[p..], scalars)?.to_string(),
            _ => break,
        };
        p += if matches!(toks.get(p), Some(Tok::Punct('$'))) {
            2
        } else {
            1
        };
        values.push(v);
        match toks.get(p) {
            Some(Tok::Punct(',')) => p += 1,
            _ => break,
        }
    }
    Some(values)
}

/// Scalars the code assigns exactly once, each a literal: `$c = "…"`, `my $c = '…'`. A
/// name assigned anything else, or more than once (`.=`, `=~` included), is left out.
fn literal_scalars(toks: &[Tok]) -> Vec<(String, String)> {
    let mut seen: Vec<(String, Option<String>)> = Vec::new();
    for k in 0..toks.len() {
        let [Tok::Punct('$'), Tok::Ident(name), rest @ ..] = &toks[k..] else {
            continue;
        };
        // Any operator ending in `=` right after the name writes it (`=`, `.=`, `||=`, …);
        // `==` and `=~` read it.
        let writes = match rest {
            [Tok::Punct('='), Tok::Punct('=' | '~'), ..] => false,
            [Tok::Punct('='), ..] => true,
            [Tok::Punct(c), Tok::Punct('='), ..] => {
                matches!(c, '.' | '+' | '-' | '*' | '/' | '|' | '&' | 'x' | '^' | '%')
            }
            _ => false,
        };
        if !writes {
            continue;
        }
        let value = match rest {
            [Tok::Punct('='), Tok::Str(Some(v)), Tok::Punct(';'), ..]
            | [Tok::Punct('='), Tok::Str(Some(v))] => Some(v.clone()),
            _ => None,
        };
        match seen.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = None,
            None => seen.push((name.clone(), value)),
        }
    }
    seen.into_iter()
        .filter_map(|(n, v)| Some((n, v?)))
        .collect()
}

/// The literal a `$name` at the start of `toks` holds, when it was assigned once.
fn scalar<'a>(toks: &[Tok], scalars: &'a [(String, String)]) -> Option<&'a str> {
    let [Tok::Punct('$'), Tok::Ident(name), rest @ ..] = toks else {
        return None;
    };
    // `$c[0]`, `$c{k}`, `$c->…`: an element or a call, not the scalar.
    if matches!(rest.first(), Some(Tok::Punct('[' | '{' | '>'))) {
        return None;
    }
    scalars
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// `$ARGV[N]` at the start of `toks`: `N` and the number of tokens it takes.
fn argument(toks: &[Tok]) -> Option<(usize, usize)> {
    let [
        Tok::Punct('$'),
        Tok::Ident(name),
        Tok::Punct('['),
        rest @ ..,
    ] = toks
    else {
        return None;
    };
    if name != "ARGV" {
        return None;
    }
    let digits: String = rest
        .iter()
        .map_while(|t| match t {
            Tok::Punct(c) if c.is_ascii_digit() => Some(*c),
            _ => None,
        })
        .collect();
    if digits.is_empty() || rest.get(digits.len()) != Some(&Tok::Punct(']')) {
        return None;
    }
    Some((digits.parse().ok()?, 4 + digits.len()))
}

/// `$ENV{HOME}` / `$ENV{'HOME'}` at the start of `toks`.
fn env_home(toks: &[Tok]) -> bool {
    matches!(
        toks,
        [Tok::Punct('$'), Tok::Ident(e), Tok::Punct('{'), h, Tok::Punct('}'), ..]
            if e == "ENV" && (matches!(h, Tok::Ident(x) if x == "HOME") || *h == Tok::Str(Some("HOME".into())))
    )
}

/// Arrays the code assigns exactly once, each a list of literals (`@c = ("rm", "-rf")`,
/// `my @c = qw(rm -rf v)`), with `@ARGV` as the operands after the code. An array written
/// anywhere else — assigned again, an element assigned, `push`/`shift`/`splice`, a reference
/// taken — is left out, `@ARGV` included.
fn literal_arrays(toks: &[Tok], argv: &[String]) -> Vec<(String, Vec<String>)> {
    let mut seen: Vec<(String, Option<Vec<String>>)> = vec![("ARGV".into(), Some(argv.to_vec()))];
    let writes_after = |rest: &[Tok]| match rest {
        [Tok::Punct('='), Tok::Punct('=' | '~'), ..] => false,
        [Tok::Punct('='), ..] => true,
        [Tok::Punct(c), Tok::Punct('='), ..] => {
            matches!(c, '.' | '+' | '-' | '*' | '/' | '|' | '&' | 'x' | '^' | '%')
        }
        _ => false,
    };
    for k in 0..toks.len() {
        let (sigil, name, rest) = match &toks[k..] {
            [Tok::Punct(c @ ('@' | '$')), Tok::Ident(name), rest @ ..] => (*c, name, rest),
            _ => continue,
        };
        // `$c` is another variable than `@c`; `$c[0]` is an element of `@c`.
        if sigil == '$' && rest.first() != Some(&Tok::Punct('[')) {
            continue;
        }
        let mutated = k.checked_sub(1).is_some_and(|j| {
            matches!(&toks[j], Tok::Punct('\\'))
                || matches!(&toks[j], Tok::Ident(f) if MUTATORS.contains(&f.as_str()))
                || (toks[j] == Tok::Punct('(')
                    && j.checked_sub(1).is_some_and(
                        |i| matches!(&toks[i], Tok::Ident(f) if MUTATORS.contains(&f.as_str())),
                    ))
        });
        let element_write = sigil == '$' && {
            let close = rest.iter().position(|t| *t == Tok::Punct(']'));
            close.is_none_or(|c| writes_after(&rest[c + 1..]))
        };
        let assigns = sigil == '@' && writes_after(rest);
        if !(mutated || element_write || assigns) {
            continue;
        }
        let value = if assigns && !mutated {
            match rest {
                [Tok::Punct('='), Tok::Words(ws), ..] => Some(ws.clone()),
                [Tok::Punct('='), Tok::Punct('('), items @ ..] => list_of_literals(items),
                _ => None,
            }
        } else {
            None
        };
        match seen.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = None,
            None => seen.push((name.clone(), value)),
        }
    }
    seen.into_iter()
        .filter_map(|(n, v)| Some((n, v?)))
        .collect()
}

/// Builtins that change an array in place.
const MUTATORS: &[&str] = &["push", "unshift", "splice", "pop", "shift"];

/// `"a", "b", qw(c d))`: the literals of a list up to its closing parenthesis.
fn list_of_literals(items: &[Tok]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (n, t) in items.iter().enumerate() {
        match (n % 2, t) {
            (0, Tok::Str(Some(w))) => out.push(w.clone()),
            (0, Tok::Words(ws)) => out.extend(ws.iter().cloned()),
            (_, Tok::Punct(')')) => return Some(out),
            (1, Tok::Punct(',') | Tok::Arrow) => {}
            _ => return None,
        }
    }
    None
}

/// `@name` at the start of `toks`, when the array is known.
fn array<'a>(toks: &[Tok], arrays: &'a [(String, Vec<String>)]) -> Option<&'a [String]> {
    let [Tok::Punct('@'), Tok::Ident(name), rest @ ..] = toks else {
        return None;
    };
    // `@c[1..2]`, `@c{…}`: a slice, not the array.
    if matches!(rest.first(), Some(Tok::Punct('[' | '{'))) {
        return None;
    }
    arrays
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_slice())
}

/// `$name[N]` at the start of `toks`, of a known array: the element and the tokens it takes.
fn element(toks: &[Tok], arrays: &[(String, Vec<String>)]) -> Option<(String, usize)> {
    let [
        Tok::Punct('$'),
        Tok::Ident(name),
        Tok::Punct('['),
        rest @ ..,
    ] = toks
    else {
        return None;
    };
    let digits: String = rest
        .iter()
        .map_while(|t| match t {
            Tok::Punct(c) if c.is_ascii_digit() => Some(*c),
            _ => None,
        })
        .collect();
    if digits.is_empty() || rest.get(digits.len()) != Some(&Tok::Punct(']')) {
        return None;
    }
    let (_, words) = arrays.iter().find(|(n, _)| n == name)?;
    let v = words.get(digits.parse::<usize>().ok()?)?;
    Some((v.clone(), 4 + digits.len()))
}

/// `$ENV{C}` / `$ENV{'C'}` at the start of `toks`, for a variable the line assigns in front
/// of perl.
fn env_var(toks: &[Tok], given: &Given) -> Option<String> {
    let [
        Tok::Punct('$'),
        Tok::Ident(e),
        Tok::Punct('{'),
        key,
        Tok::Punct('}'),
        ..,
    ] = toks
    else {
        return None;
    };
    let key = match key {
        Tok::Ident(k) => k.as_str(),
        Tok::Str(Some(k)) => k.as_str(),
        _ => return None,
    };
    if e != "ENV" {
        return None;
    }
    given
        .env
        .iter()
        .rfind(|(n, _)| n == key)
        .map(|(_, v)| v.clone())
}

/// The value of a builtin `f` applied to literals (`after` are the tokens following its
/// name): `join SEP, LIST` is the joined text; `glob PATTERN` stands for the paths it
/// matches, which lie where the pattern does. The value and the tokens it takes.
fn builtin_value(f: &str, after: &[Tok]) -> Option<(String, usize)> {
    let parens = after.first() == Some(&Tok::Punct('('));
    let inner = if parens { &after[1..] } else { after };
    let end = inner
        .iter()
        .position(|t| matches!(t, Tok::Punct(')' | ';')))
        .unwrap_or(inner.len());
    // Without parentheses a list operator takes the rest of the statement, which ends the
    // enclosing call's arguments too.
    if parens && inner.get(end) != Some(&Tok::Punct(')')) {
        return None;
    }
    let items = list_of_literals(&[&inner[..end], &[Tok::Punct(')')]].concat())?;
    let len = end + if parens { 2 } else { 0 };
    match f {
        "join" => {
            let (sep, words) = items.split_first()?;
            Some((words.join(sep), len))
        }
        "glob" => match items.as_slice() {
            [pattern] => Some((pattern.clone(), len)),
            _ => None,
        },
        _ => None,
    }
}

/// `open(F, ">/etc/passwd")`, `open(my $f, ">", "/etc/passwd")`, `+>` too: a mode that
/// truncates the file. Reported as a call named `open>` with the path
/// (`interpreters.perl.overwrite`); `>>` appends and is not reported.
fn truncating_open(toks: &[Tok], k: usize, scalars: &[(String, String)]) -> Option<Call> {
    let values = open_values(toks, k, scalars)?;
    let (mode, rest) = values.split_first()?;
    let mode = mode.trim_start();
    let path = match rest {
        [] => {
            let path = mode.strip_prefix("+>").or_else(|| mode.strip_prefix('>'))?;
            if path.starts_with(['>', '&']) {
                return None;
            }
            path.trim().to_string()
        }
        [path] if matches!(mode.trim(), ">" | "+>") => path.clone(),
        _ => return None,
    };
    (!path.is_empty()).then(|| Call {
        names: vec!["open>".to_string()],
        args: vec![Some(Value::Text(path))],
        keywords: Vec::new(),
        receiver: Vec::new(),
    })
}

/// The closing delimiter of a quote-like operator opened with `open`.
fn closer(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    }
}

struct Lexer<'s> {
    chars: Vec<char>,
    pos: usize,
    _src: &'s str,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// Reads up to the delimiter closing `open` (nesting bracket pairs), the opener already
    /// consumed. The raw text, backslashes kept.
    fn delimited(&mut self, open: char) -> Result<String, &'static str> {
        let close = closer(open);
        let mut depth = 0usize;
        let mut out = String::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\\' {
                out.push(c);
                if let Some(n) = self.peek() {
                    out.push(n);
                    self.pos += 1;
                }
                continue;
            }
            if c == close && depth == 0 {
                return Ok(out);
            }
            if open != close {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
            }
            out.push(c);
        }
        Err("does not parse (a string does not end)")
    }

    /// Skips whitespace, then reads an opening delimiter for a quote-like operator.
    fn opener(&mut self) -> Option<char> {
        let save = self.pos;
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        match self.peek() {
            Some(c)
                if !c.is_alphanumeric()
                    && c != '_'
                    && !c.is_whitespace()
                    && c != ','
                    && c != ';'
                    && c != ')'
                    && c != '=' =>
            {
                self.pos += 1;
                Some(c)
            }
            _ => {
                self.pos = save;
                None
            }
        }
    }
}

/// A single-quoted string's value: only `\\` and `\'` are escapes.
fn single(raw: &str) -> String {
    let mut out = String::new();
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' && matches!(it.peek(), Some('\\' | '\'')) {
            out.extend(it.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// A double-quoted string's value, `None` when it interpolates a variable other than
/// `$ENV{HOME}` (which becomes `~`).
fn double(raw: &str) -> Option<String> {
    let raw = raw
        .replace("$ENV{HOME}", "~")
        .replace("$ENV{'HOME'}", "~")
        .replace("$ENV{\"HOME\"}", "~");
    let b: Vec<char> = raw.chars().collect();
    for k in 0..b.len() {
        if matches!(b[k], '$' | '@') && (k == 0 || b[k - 1] != '\\') {
            let next = b.get(k + 1).copied().unwrap_or(' ');
            if next.is_alphanumeric() || matches!(next, '_' | '{' | ':' | '$') {
                return None;
            }
        }
    }
    Some(super::code::unescape(&raw))
}

fn tokens(code: &str, budget: &Budget) -> Result<Vec<Tok>, &'static str> {
    tokens_at(code, budget, 0)
}

/// Deepest nesting of `s///e` replacements read as code.
const MAX_SUBST_DEPTH: usize = 4;

/// [`tokens`] of code nested `depth` `s///e` replacements deep.
fn tokens_at(code: &str, budget: &Budget, depth: usize) -> Result<Vec<Tok>, &'static str> {
    let mut lx = Lexer {
        chars: code.chars().collect(),
        pos: 0,
        _src: code,
    };
    let mut out: Vec<Tok> = Vec::new();
    while let Some(c) = lx.peek() {
        if !budget.ok() {
            return Err("is too large to read within the work budget");
        }
        lx.pos += 1;
        match c {
            c if c.is_whitespace() => {}
            '#' => {
                while lx.peek().is_some_and(|c| c != '\n') {
                    lx.pos += 1;
                }
            }
            '\'' => {
                let raw = lx.delimited('\'')?;
                out.push(Tok::Str(Some(single(&raw))));
            }
            '"' => {
                let raw = lx.delimited('"')?;
                out.push(Tok::Str(double(&raw)));
            }
            '`' => {
                let raw = lx.delimited('`')?;
                out.push(Tok::Command(double(&raw)));
            }
            '/' if regex_may_start(out.last()) => {
                lx.delimited('/')?;
                out.push(Tok::Str(None));
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut id = String::from(c);
                loop {
                    match lx.peek() {
                        Some(n) if n.is_alphanumeric() || n == '_' => {
                            id.push(n);
                            lx.pos += 1;
                        }
                        Some(':') if lx.chars.get(lx.pos + 1) == Some(&':') => {
                            id.push_str("::");
                            lx.pos += 2;
                        }
                        _ => break,
                    }
                }
                // `q(…)`, `s{…}{…}`: quote-like operators, unless used as a hash key or name.
                let quote_like = matches!(
                    id.as_str(),
                    "q" | "qq" | "qw" | "qx" | "m" | "qr" | "s" | "tr" | "y"
                ) && !matches!(
                    out.last(),
                    Some(Tok::Punct('{' | '$' | '@' | '%' | '&' | '>'))
                );
                let open = if quote_like { lx.opener() } else { None };
                let Some(open) = open else {
                    out.push(Tok::Ident(id));
                    continue;
                };
                let raw = lx.delimited(open)?;
                match id.as_str() {
                    "q" => out.push(Tok::Str(Some(single(&raw)))),
                    "qq" => out.push(Tok::Str(if open == '\'' {
                        Some(raw)
                    } else {
                        double(&raw)
                    })),
                    "qx" => out.push(Tok::Command(if open == '\'' {
                        Some(raw)
                    } else {
                        double(&raw)
                    })),
                    "qw" => out.push(Tok::Words(
                        raw.split_whitespace().map(str::to_string).collect(),
                    )),
                    "s" | "tr" | "y" => {
                        // A second part: right after a closing delimiter, or its own pair.
                        let replacement = if open == closer(open) {
                            lx.delimited(open)?
                        } else {
                            let second = lx
                                .opener()
                                .ok_or("does not parse (a substitution has one part)")?;
                            lx.delimited(second)?
                        };
                        out.push(Tok::Str(None));
                        if id == "s" {
                            let mut flags = String::new();
                            while let Some(f) = lx.peek().filter(char::is_ascii_alphabetic) {
                                flags.push(f);
                                lx.pos += 1;
                            }
                            // `s/…/CODE/e`: the replacement is Perl code, run for each match.
                            if flags.contains('e') {
                                if depth >= MAX_SUBST_DEPTH {
                                    return Err("nests `s///e` too deeply to read");
                                }
                                out.push(Tok::Punct(';'));
                                out.extend(tokens_at(&replacement, budget, depth + 1)?);
                                out.push(Tok::Punct(';'));
                            }
                        }
                    }
                    _ => out.push(Tok::Str(None)),
                }
            }
            '=' if lx.peek() == Some('>') => {
                lx.pos += 1;
                out.push(Tok::Arrow);
            }
            '-' if lx.peek() == Some('>') => {
                lx.pos += 1;
                out.push(Tok::Punct('>'));
            }
            c => out.push(Tok::Punct(c)),
        }
    }
    Ok(out)
}

/// Whether a `/` after `prev` starts a regex rather than dividing.
fn regex_may_start(prev: Option<&Tok>) -> bool {
    match prev {
        None => true,
        Some(Tok::Punct(c)) => matches!(c, '(' | ',' | '=' | '~' | '!' | ';' | '{' | '|' | '&'),
        Some(Tok::Ident(id)) => matches!(
            id.as_str(),
            "split" | "grep" | "and" | "or" | "not" | "if" | "unless"
        ),
        Some(Tok::Str(_) | Tok::Words(_) | Tok::Command(_) | Tok::Arrow) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;

    /// A call's first name and its arguments.
    type Found = (String, Vec<Option<Value>>);

    fn calls(code: &str) -> Vec<Found> {
        let budget = Budget::new(&Limits::default());
        match scan(code, &Given::default(), &budget) {
            Scan::Calls(cs) => cs
                .into_iter()
                .map(|c| (c.names[0].clone(), c.args))
                .collect(),
            Scan::Unparsed(why) => vec![(format!("unparsed: {why}"), Vec::new())],
        }
    }

    fn t(s: &str) -> Option<Value> {
        Some(Value::Text(s.to_string()))
    }

    #[test]
    fn literal_arguments_are_read_and_the_rest_is_not() {
        let table: &[(&str, Vec<Found>)] = &[
            (
                "system('rm -rf /')",
                vec![("system".into(), vec![t("rm -rf /")])],
            ),
            (
                "system 'rm', '-rf', \"/x\";",
                vec![("system".into(), vec![t("rm"), t("-rf"), t("/x")])],
            ),
            ("system(\"rm -rf $d\")", vec![]),
            (
                "unlink \"$ENV{HOME}/.x\"",
                vec![("unlink".into(), vec![t("~/.x")])],
            ),
            ("unlink $ENV{HOME}", vec![("unlink".into(), vec![t("~")])]),
            (
                "`ls`; qx{git status}",
                vec![
                    ("`".into(), vec![t("ls")]),
                    ("`".into(), vec![t("git status")]),
                ],
            ),
            ("print 'a' . $b", vec![]),
            // A run-time word: the call as far as it is known, then each literal as a command
            // (fail closed).
            (
                "system('rm', $x, '/')",
                vec![
                    ("system".into(), vec![t("rm"), None]),
                    ("system".into(), vec![t("rm")]),
                    ("system".into(), vec![t("/")]),
                ],
            ),
            // Red team s6: the indirect object names the program; an interpolated pipe mode.
            (
                "system { \"rm\" } \"rm\", \"-rf\", \"v\"",
                vec![("system".into(), vec![t("rm"), t("-rf"), t("v")])],
            ),
            (
                "system { \"/bin/rm\" } \"ls\", \"-rf\", \"v\"",
                vec![("system".into(), vec![t("/bin/rm"), t("-rf"), t("v")])],
            ),
            (
                "$c=\"rm -rf v\"; open(F, \"$c|\")",
                vec![("system".into(), vec![t("rm -rf v")])],
            ),
            ("open(F, \"<\", \"rm -rf v\")", vec![]),
            (
                "$x =~ s/'//g; system(q(ls))",
                vec![("system".into(), vec![t("ls")])],
            ),
            ("# system('rm -rf /')\n1", vec![]),
            (
                "$h{q} = 1; system qw(rm -rf /)",
                vec![(
                    "system".into(),
                    vec![Some(Value::Words(vec![
                        "rm".into(),
                        "-rf".into(),
                        "/".into(),
                    ]))],
                )],
            ),
            (
                "system('x",
                vec![(
                    "unparsed: does not parse (a string does not end)".into(),
                    vec![],
                )],
            ),
            ("$o->system('rm -rf /')", vec![]),
        ];
        for (code, want) in table {
            assert_eq!(&calls(code), want, "{code}");
        }
    }
}

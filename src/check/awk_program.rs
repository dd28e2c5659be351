//! check/awk_program: stage 3 — the checker for one awk program text, called by `check/awk`.
//! It tokenizes the program the way awk does (strings, regex literals versus division, comments,
//! line continuations) and reports the first construct that could write a file, run a program or
//! load code: `system`, any pipe `|`/`|&`, output redirection `>`/`>>` in `print`/`printf`, and
//! gawk's `@` forms. It never runs awk, never decides a verdict, and never calls a program
//! read-only that it cannot tokenize: anything ambiguous or unknown is a problem (fail closed).
//!
//! Reads are allowed: `getline`, `getline var`, `getline < file`, reading `ENVIRON`, `close`,
//! `fflush`. The checker targets POSIX awk, gawk, mawk and the one true awk at once, so where
//! they tokenize differently (a `/` inside a bracket expression of a regex literal) the program is
//! reported rather than guessed. Which files are read is not judged here. Its text helpers and the
//! standard-stream names it shares with `sed_script` live in `check/script_text`.

use super::script_text::{MAX_NESTING, STD_STREAMS, char_floor, show};

/// Words that are keywords in some awks and plain names in others (`func` and `nextfile` in old
/// mawk, gawk's `switch`/`case`/`default`/`BEGINFILE`/`ENDFILE` elsewhere): a `/` after them, or
/// after the `)` of `switch (...)`, divides in one awk and starts a regex in another.
const SOMETIMES_KEYWORDS: &[&str] = &[
    "func",
    "nextfile",
    "switch",
    "case",
    "default",
    "BEGINFILE",
    "ENDFILE",
];

/// Keywords after which an operand is expected, so a `/` there starts a regex literal.
const KEYWORDS: &[&str] = &[
    "BEGIN",
    "END",
    "BEGINFILE",
    "ENDFILE",
    "function",
    "func",
    "if",
    "else",
    "while",
    "for",
    "do",
    "break",
    "continue",
    "next",
    "nextfile",
    "exit",
    "return",
    "delete",
    "in",
    "print",
    "printf",
    "switch",
    "case",
    "default",
];

/// Why an awk program is not read-only, with a byte offset into the program.
///
/// `offset` is a byte index into the checked program, always on a char boundary and never past
/// its end; `reason` is a lowercase phrase that quotes what was found. For the program
/// `{system("id")}` the offset is 1 and the reason is "awk `system()` runs a program"; for
/// `{print "x}` the offset is 7 and the reason says the string is unterminated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwkProblem {
    /// Byte offset into the program of the token the reason is about.
    pub offset: usize,
    /// What makes the program not read-only, quoting the offending text.
    pub reason: String,
}

/// Ok(()) only when the awk program text provably neither writes files, runs programs, nor loads code.
///
/// For example `{print $1}`, `NR>1 {sum+=$2} END {print sum}`, `{print ($1 > $2)}` and
/// `BEGIN{while ((getline line < "f") > 0) n++; print n}` are read-only, while `{system("id")}`,
/// `{print > "out"}`, `{print | "sh"}`, `BEGIN{"date" | getline d}` and `@load "x"` are not;
/// neither is a program that does not tokenize (`{print "x}`). `print > "/dev/stderr"` and
/// `print > "/dev/stdout"` are allowed when the target is exactly that string. Only the program
/// text is checked: options such as `-f`, `-i`/`--include`, `-l`/`--load`, `-o`, `-p`, `-d` and
/// `-i inplace` are the caller's to refuse.
pub fn check_awk_program(program: &str) -> Result<(), AwkProblem> {
    let mut lexer = Lexer {
        text: program,
        bytes: program.as_bytes(),
        pos: 0,
    };
    let mut checker = Checker::default();
    loop {
        let token = lexer.next(checker.slash)?;
        checker.feed(&lexer, token)?;
        if token.kind == Kind::Eof {
            return Ok(());
        }
    }
}

/// What a `/` means at the current point of the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slash {
    /// An operand is expected: `/` starts a regex literal.
    Regex,
    /// An operand just ended: `/` divides.
    Divide,
    /// After `$`, `getline`, `func` and other spots where awks disagree: a `/` is reported.
    /// Holds the offset of the token it follows, for the reason.
    Unsure(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Newline,
    Semi,
    Comma,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dollar,
    Str,
    Regex,
    Number,
    Word,
    Op,
    Eof,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
    start: usize,
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// Operators, longest first so that the first match is the longest.
const OPERATORS: &[&str] = &[
    "**=", "**", "++", "--", "+=", "-=", "*=", "%=", "^=", "==", "!=", "<=", ">=", "&&", "||",
    "!~", ">>", "|&", "+", "-", "*", "%", "^", "!", "<", ">", "|", "?", ":", "~", "=",
];

impl<'a> Lexer<'a> {
    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    fn problem(&self, offset: usize, reason: String) -> AwkProblem {
        AwkProblem {
            offset: char_floor(self.text, offset),
            reason,
        }
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        let start = char_floor(self.text, start);
        let end = char_floor(self.text, end.max(start));
        self.text.get(start..end).unwrap_or_default()
    }

    fn token(&mut self, kind: Kind, start: usize, end: usize) -> Token<'a> {
        self.pos = end;
        Token {
            kind,
            text: self.slice(start, end),
            start,
        }
    }

    /// Skips blanks, comments and backslash-newline continuations.
    fn skip_blanks(&mut self) -> Result<(), AwkProblem> {
        loop {
            match self.peek_at(self.pos) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') => {
                    if self.peek_at(self.pos + 1) == Some(b'\n') {
                        self.pos += 2;
                    } else {
                        return Err(self.problem(
                            self.pos,
                            "awk backslash `\\` is not at the end of a line".into(),
                        ));
                    }
                }
                Some(b'#') => {
                    while !matches!(self.peek_at(self.pos), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next(&mut self, slash: Slash) -> Result<Token<'a>, AwkProblem> {
        self.skip_blanks()?;
        let start = self.pos;
        let Some(byte) = self.peek_at(start) else {
            return Ok(self.token(Kind::Eof, start, start));
        };
        let single = |kind| Ok((kind, start + 1));
        let (kind, end) = match byte {
            b'\n' => single(Kind::Newline),
            b';' => single(Kind::Semi),
            b',' => single(Kind::Comma),
            b'{' => single(Kind::LBrace),
            b'}' => single(Kind::RBrace),
            b'(' => single(Kind::LParen),
            b')' => single(Kind::RParen),
            b'[' => single(Kind::LBracket),
            b']' => single(Kind::RBracket),
            b'$' => single(Kind::Dollar),
            b'"' => Ok((Kind::Str, self.string_end(start)?)),
            b'/' => match slash {
                Slash::Regex => Ok((Kind::Regex, self.regex_end(start)?)),
                Slash::Divide => {
                    if self.peek_at(start + 1) == Some(b'=') {
                        Ok((Kind::Op, start + 2))
                    } else {
                        Ok((Kind::Op, start + 1))
                    }
                }
                Slash::Unsure(after) => {
                    let end = match self.peek_at(after) {
                        Some(b')' | b'$') => after + 1,
                        _ => self.word_end(after),
                    };
                    Err(self.problem(
                        start,
                        format!(
                            "awk `/` after `{}` may start a regex in one awk and divide in another",
                            self.slice(after, end)
                        ),
                    ))
                }
            },
            b'0'..=b'9' => Ok((Kind::Number, self.number_end(start))),
            b'.' if self.peek_at(start + 1).is_some_and(|b| b.is_ascii_digit()) => {
                Ok((Kind::Number, self.number_end(start)))
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => Ok((Kind::Word, self.word_end(start))),
            b'@' => Err(self.at_sign(start)),
            _ => {
                let rest = self.bytes.get(start..).unwrap_or_default();
                match OPERATORS.iter().find(|op| rest.starts_with(op.as_bytes())) {
                    Some(op) => Ok((Kind::Op, start + op.len())),
                    None => {
                        let width = self
                            .text
                            .get(start..)
                            .and_then(|rest| rest.chars().next())
                            .map_or(1, char::len_utf8);
                        let shown = show(self.slice(start, start + width));
                        Err(self.problem(
                            start,
                            format!("unexpected character `{shown}` in awk program"),
                        ))
                    }
                }
            }
        }?;
        Ok(self.token(kind, start, end))
    }

    /// The end of the string literal that starts at `start` (just past its closing quote).
    fn string_end(&self, start: usize) -> Result<usize, AwkProblem> {
        let mut at = start + 1;
        loop {
            match self.peek_at(at) {
                Some(b'"') => return Ok(at + 1),
                // A backslash takes the next byte with it; before a newline it continues the line.
                Some(b'\\') if self.peek_at(at + 1).is_some() => at += 2,
                None | Some(b'\n' | b'\\') => {
                    return Err(self.problem(start, "unterminated awk string".into()));
                }
                Some(_) => at += 1,
            }
        }
    }

    /// The end of the regex literal that starts at `start` (just past its closing `/`).
    ///
    /// Every awk ends a regex literal at an unescaped `/`, but gawk and POSIX-minded awks skip a
    /// `/` inside a bracket expression (`/[/]/`) while others do not. The literal is taken to end
    /// at the first unescaped `/`, and if any of three bracket models says that `/` is inside a
    /// bracket expression, the program is reported instead.
    fn regex_end(&self, start: usize) -> Result<usize, AwkProblem> {
        let mut at = start + 1;
        let mut units: Vec<Unit> = Vec::new();
        loop {
            match self.peek_at(at) {
                Some(b'/') => break,
                Some(b'\\') if self.peek_at(at + 1).is_some() => {
                    units.push(Unit::Escaped);
                    at += 2;
                }
                None | Some(b'\n' | b'\\') => {
                    return Err(self.problem(start, "unterminated awk regex".into()));
                }
                Some(byte) => {
                    units.push(Unit::Byte(byte));
                    at += 1;
                }
            }
        }
        if gawk_in_bracket(&units) || posix_in_bracket(&units) || simple_in_bracket(&units) {
            return Err(self.problem(
                start,
                format!(
                    "awk regex `{}` has a `/` inside a bracket expression, which awks read differently",
                    show(self.slice(start, at + 1))
                ),
            ));
        }
        Ok(at + 1)
    }

    /// The end of a number: decimal with optional fraction and exponent, or gawk hex `0x1F`.
    /// Letters after it start a new token, as in awk (`1system()` calls `system`).
    fn number_end(&self, start: usize) -> usize {
        let digit = |at: usize| self.peek_at(at).is_some_and(|b| b.is_ascii_digit());
        if self.peek_at(start) == Some(b'0')
            && matches!(self.peek_at(start + 1), Some(b'x' | b'X'))
            && self
                .peek_at(start + 2)
                .is_some_and(|b| b.is_ascii_hexdigit())
        {
            let mut at = start + 2;
            while self.peek_at(at).is_some_and(|b| b.is_ascii_hexdigit()) {
                at += 1;
            }
            return at;
        }
        let mut at = start;
        while digit(at) {
            at += 1;
        }
        if self.peek_at(at) == Some(b'.') {
            at += 1;
            while digit(at) {
                at += 1;
            }
        }
        if matches!(self.peek_at(at), Some(b'e' | b'E')) {
            if digit(at + 1) {
                at += 1;
            } else if matches!(self.peek_at(at + 1), Some(b'+' | b'-')) && digit(at + 2) {
                at += 2;
            } else {
                return at;
            }
            while digit(at) {
                at += 1;
            }
        }
        at
    }

    fn word_end(&self, start: usize) -> usize {
        let mut at = start;
        while self
            .peek_at(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            at += 1;
        }
        at
    }

    /// gawk's `@load`, `@include`, `@namespace` and `@name()` indirect calls.
    fn at_sign(&self, start: usize) -> AwkProblem {
        let word = self.slice(start + 1, self.word_end(start + 1));
        let reason = match word {
            "load" => "awk `@load` loads a compiled extension".to_string(),
            "include" => "awk `@include` loads awk code from a file".to_string(),
            "" => "awk `@` is not understood".to_string(),
            other => format!(
                "awk `@{other}` is a gawk directive or indirect call, which can call `system`"
            ),
        };
        self.problem(start, reason)
    }
}

/// One character of a regex literal's body, as the awk lexers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// A backslash pair such as `\/` or `\]`, which never opens, closes or ends anything.
    Escaped,
    Byte(u8),
}

/// gawk's lexer: counts `[` (nested only as `[:`) and lets `]` through right after `[` or `[^`.
/// Returns whether its count is positive at the end of `units`.
fn gawk_in_bracket(units: &[Unit]) -> bool {
    let mut in_brack: i64 = 0;
    let mut b_index: i64 = -1;
    // gawk compares positions in its token buffer, where a backslash pair takes two bytes.
    let mut index: i64 = 0;
    let mut prev: Option<u8> = None;
    for (i, unit) in units.iter().enumerate() {
        match *unit {
            Unit::Escaped => {
                index += 2;
                prev = None;
                continue;
            }
            Unit::Byte(b'[') => {
                let next_is_colon = units.get(i + 1) == Some(&Unit::Byte(b':'));
                if next_is_colon || in_brack == 0 {
                    in_brack += 1;
                    if in_brack == 1 {
                        b_index = index;
                    }
                }
            }
            Unit::Byte(b']') => {
                let first = index == b_index + 1 || (index == b_index + 2 && prev == Some(b'^'));
                if !(in_brack > 0 && first) {
                    in_brack -= 1;
                    if in_brack == 0 {
                        b_index = -1;
                    }
                }
            }
            Unit::Byte(_) => {}
        }
        if let Unit::Byte(byte) = *unit {
            prev = Some(byte);
        }
        index += 1;
    }
    in_brack > 0
}

/// A POSIX bracket expression reader (as GNU sed's `snarf_char_class`): `]` first or after `^` is
/// literal, and `[:`/`[.`/`[=` open classes that only their own `:]`/`.]`/`=]` close.
fn posix_in_bracket(units: &[Unit]) -> bool {
    let mut i = 0;
    while i < units.len() {
        if units.get(i) != Some(&Unit::Byte(b'[')) {
            i += 1;
            continue;
        }
        i += 1;
        if units.get(i) == Some(&Unit::Byte(b'^')) {
            i += 1;
        }
        if units.get(i) == Some(&Unit::Byte(b']')) {
            i += 1;
        }
        let mut state = 0u8;
        let mut delim = 0u8;
        loop {
            let Some(unit) = units.get(i) else {
                return true;
            };
            i += 1;
            match *unit {
                Unit::Byte(byte @ (b'.' | b':' | b'=')) => {
                    if state == 1 {
                        delim = byte;
                        state = 2;
                    } else if state == 2 && byte == delim {
                        state = 3;
                    } else {
                        state &= !1;
                    }
                }
                Unit::Byte(b'[') => {
                    if state == 0 {
                        state = 1;
                    }
                }
                Unit::Byte(b']') => {
                    if state <= 1 {
                        break;
                    }
                    if state == 3 {
                        state = 0;
                    }
                    state &= !1;
                }
                Unit::Byte(_) | Unit::Escaped => state &= !1,
            }
        }
    }
    false
}

/// The plainest reader: `[` opens, the first `]` that is not first (or first after `^`) closes.
fn simple_in_bracket(units: &[Unit]) -> bool {
    let mut open: Option<usize> = None;
    for (i, unit) in units.iter().enumerate() {
        match (*unit, open) {
            (Unit::Byte(b'['), None) => open = Some(i),
            (Unit::Byte(b']'), Some(at)) => {
                let first =
                    i == at + 1 || (i == at + 2 && units.get(at + 1) == Some(&Unit::Byte(b'^')));
                if !first {
                    open = None;
                }
            }
            _ => {}
        }
    }
    open.is_some()
}

/// What an open `(` or `[` was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `(` of `if`, `while` or `for`: a statement, so maybe a regex, follows its `)`.
    Control,
    /// `(` after `switch`, a statement in gawk and a function call elsewhere.
    Switch,
    /// Any other `(`: an operand ends at its `)`.
    Group,
    /// `[`.
    Bracket,
}

/// A `print` or `printf` statement being read.
#[derive(Debug, Clone, Copy)]
struct Print {
    /// The number of open parentheses when the statement started; a `>` at this depth redirects.
    depth: usize,
    keyword: &'static str,
}

/// A `>`/`>>` redirection of a `print` whose target is being checked.
#[derive(Debug, Clone, Copy)]
enum Redirect {
    None,
    /// The next token must be the string `"/dev/stdout"` or `"/dev/stderr"`.
    Target {
        at: usize,
        op: &'static str,
        keyword: &'static str,
    },
    /// The next token must end the statement.
    End {
        at: usize,
        op: &'static str,
        keyword: &'static str,
    },
}

/// Walks the tokens, tracking just enough structure to find redirections and regex positions.
struct Checker {
    slash: Slash,
    open: Vec<Open>,
    parens: usize,
    braces: usize,
    control_keyword: bool,
    /// The previous token was `print` or `printf`.
    print_keyword: bool,
    /// The previous token was `switch`.
    switch_keyword: bool,
    print: Option<Print>,
    redirect: Redirect,
}

impl Default for Checker {
    fn default() -> Self {
        Checker {
            slash: Slash::Regex,
            open: Vec::new(),
            parens: 0,
            braces: 0,
            control_keyword: false,
            print_keyword: false,
            switch_keyword: false,
            print: None,
            redirect: Redirect::None,
        }
    }
}

impl Checker {
    fn feed(&mut self, lexer: &Lexer<'_>, token: Token<'_>) -> Result<(), AwkProblem> {
        let problem = |offset: usize, reason: String| Err(lexer.problem(offset, reason));
        match self.redirect {
            Redirect::None => {}
            Redirect::Target { at, op, keyword } => {
                let inner = token
                    .text
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'));
                match inner {
                    Some(name) if token.kind == Kind::Str && STD_STREAMS.contains(&name) => {
                        self.redirect = Redirect::End { at, op, keyword };
                        self.slash = Slash::Divide;
                        return Ok(());
                    }
                    _ => return problem(at, redirect_reason(op, keyword)),
                }
            }
            Redirect::End { at, op, keyword } => {
                if !matches!(
                    token.kind,
                    Kind::Semi | Kind::RBrace | Kind::Newline | Kind::Eof
                ) {
                    return problem(at, redirect_reason(op, keyword));
                }
                self.redirect = Redirect::None;
            }
        }

        let control_keyword = std::mem::take(&mut self.control_keyword);
        let after_print_keyword = std::mem::take(&mut self.print_keyword);
        let switch_keyword = std::mem::take(&mut self.switch_keyword);
        let slash_before = self.slash;
        self.slash = Slash::Regex;
        match token.kind {
            Kind::Word => match token.text {
                "system" => return problem(token.start, "awk `system()` runs a program".into()),
                "print" | "printf" => {
                    self.print_keyword = true;
                    if self.print.is_none() {
                        self.print = Some(Print {
                            depth: self.parens,
                            keyword: if token.text == "print" {
                                "print"
                            } else {
                                "printf"
                            },
                        });
                    }
                }
                "getline" => self.slash = Slash::Unsure(token.start),
                "if" | "while" | "for" => self.control_keyword = true,
                "switch" => {
                    self.switch_keyword = true;
                    self.slash = Slash::Unsure(token.start);
                }
                word if SOMETIMES_KEYWORDS.contains(&word) => {
                    self.slash = Slash::Unsure(token.start)
                }
                word if KEYWORDS.contains(&word) => {}
                _ => self.slash = Slash::Divide,
            },
            Kind::Str | Kind::Regex | Kind::Number => self.slash = Slash::Divide,
            Kind::Dollar => self.slash = Slash::Unsure(token.start),
            Kind::LParen | Kind::LBracket => {
                if self.open.len() >= MAX_NESTING {
                    return problem(
                        token.start,
                        format!("awk parentheses nested deeper than {MAX_NESTING}"),
                    );
                }
                self.open.push(match token.kind {
                    Kind::LBracket => Open::Bracket,
                    _ if control_keyword => Open::Control,
                    _ if switch_keyword => Open::Switch,
                    _ => Open::Group,
                });
                if token.kind == Kind::LParen {
                    self.parens += 1;
                }
            }
            Kind::RParen => {
                match self.open.pop() {
                    Some(Open::Control) => {}
                    Some(Open::Switch) => self.slash = Slash::Unsure(token.start),
                    Some(Open::Group) => self.slash = Slash::Divide,
                    Some(Open::Bracket) | None => {
                        return problem(token.start, "unbalanced `)` in awk program".into());
                    }
                }
                self.parens = self.parens.saturating_sub(1);
                if self.print.is_some_and(|p| self.parens < p.depth) {
                    self.print = None;
                }
            }
            Kind::RBracket => {
                if self.open.pop() != Some(Open::Bracket) {
                    return problem(token.start, "unbalanced `]` in awk program".into());
                }
                self.slash = Slash::Divide;
            }
            Kind::LBrace => {
                if !self.open.is_empty() {
                    return problem(token.start, "awk `{` inside parentheses".into());
                }
                if self.braces >= MAX_NESTING {
                    return problem(
                        token.start,
                        format!("awk braces nested deeper than {MAX_NESTING}"),
                    );
                }
                self.braces += 1;
            }
            Kind::RBrace => {
                if !self.open.is_empty() || self.braces == 0 {
                    return problem(token.start, "unbalanced `}` in awk program".into());
                }
                self.braces -= 1;
                self.print = None;
            }
            Kind::Semi => {
                if self.print.is_some_and(|p| p.depth == self.parens) {
                    self.print = None;
                }
            }
            Kind::Newline => {
                // A newline ends a `print` only where awk ends statements: after a complete
                // operand or the bare keyword. After `,`, `&&`, `||` and the like awk continues
                // the statement, and after anything else a newline is a syntax error anyway, so
                // the statement is kept open (more `>` count as redirections, never fewer).
                let ends = slash_before == Slash::Divide || after_print_keyword;
                if ends && self.print.is_some_and(|p| p.depth == self.parens) {
                    self.print = None;
                }
            }
            Kind::Comma => {}
            Kind::Op => match token.text {
                "|" | "|&" => {
                    return problem(
                        token.start,
                        format!("awk `{}` pipes to or from a program", token.text),
                    );
                }
                ">" | ">>" => match self.print {
                    Some(p) if p.depth == self.parens => {
                        let op = if token.text == ">" { ">" } else { ">>" };
                        self.redirect = Redirect::Target {
                            at: token.start,
                            op,
                            keyword: p.keyword,
                        };
                    }
                    _ if token.text == ">>" => {
                        return problem(
                            token.start,
                            "awk `>>` outside a `print` redirection is not understood".into(),
                        );
                    }
                    _ => {}
                },
                // Postfix after an operand leaves an operand; prefix expects one.
                "++" | "--" if slash_before == Slash::Divide => self.slash = Slash::Divide,
                _ => {}
            },
            Kind::Eof => {
                if let Redirect::Target { at, op, keyword } = self.redirect {
                    return problem(at, redirect_reason(op, keyword));
                }
                if let Some(open) = self.open.last() {
                    let what = if *open == Open::Bracket { "[" } else { "(" };
                    return problem(token.start, format!("unclosed `{what}` in awk program"));
                }
                if self.braces > 0 {
                    return problem(token.start, "unclosed `{` in awk program".into());
                }
            }
        }
        Ok(())
    }
}

fn redirect_reason(op: &str, keyword: &str) -> String {
    let what = if op == ">>" { "appends to" } else { "writes" };
    format!("awk `{keyword} ... {op}` {what} a file")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one helper every table goes through: the whole result is compared.
    fn check(program: &str, expected: Result<(), (usize, &str)>) {
        let expected = expected.map_err(|(offset, reason)| AwkProblem {
            offset,
            reason: reason.to_string(),
        });
        assert_eq!(check_awk_program(program), expected, "program {program:?}");
    }

    macro_rules! table {
        ($name:ident, [$($program:expr => $expected:expr),* $(,)?]) => {
            #[test]
            fn $name() {
                $(check($program, $expected);)*
            }
        };
    }

    const OK: Result<(), (usize, &str)> = Ok(());
    const SYSTEM: &str = "awk `system()` runs a program";
    const PIPE: &str = "awk `|` pipes to or from a program";
    const PRINT_TO: &str = "awk `print ... >` writes a file";

    table!(read_only_programs_are_allowed, [
        "{print $1}" => OK,
        "{ if ($1 > 3) print $2 }" => OK,
        "NR>1 {sum+=$2} END {print sum}" => OK,
        "{print ($1 > $2)}" => OK,
        "/a|b/ {print}" => OK,
        "{ x = a || b; print x }" => OK,
        "BEGIN{while ((getline line < \"f\") > 0) n++; print n}" => OK,
        "length($0) > 72" => OK,
        "{ print (a)(b > c) }" => OK,
        "{ print\n x = y > 3 }" => OK,
        "{ print # c > \"f\"\n x = y > 3 }" => OK,
        "{ a = b / c; d = e / f }" => OK,
        "{ n = $NF / 2; m = (a) / 2; o = x[1] / 2; p = 4 / 2 }" => OK,
        "{a++ / 2} {++a / 2}" => OK,
        "BEGIN { if (x) /a/ ? y : z }" => OK,
        "{ gsub(/a\\/b/, \"c\"); split($0, a, /,/); print }" => OK,
        "$0 ~ /[0-9]+/ && $1 !~ /^#/" => OK,
        "/[[:alpha:]]+/ { print }" => OK,
        "BEGIN { getline; getline x < \"f\"; print x; close(\"f\"); fflush() }" => OK,
        "BEGIN { print ENVIRON[\"HOME\"] }" => OK,
        "{ print \"e\" > \"/dev/stderr\" }" => OK,
        "{ printf \"%s\\n\", $1 >> \"/dev/stdout\"; n++ }" => OK,
        "function f(a) { return a / 2 }\n{ print f($1) }" => OK,
        "BEGIN { for (i = 0; i < 3; i++) print i }" => OK,
        "{ s = \"system | > x\" }" => OK,
        "{ x = 1e5 + .5 + 0x1F + 1.5e-3 }" => OK,
        "{ a = 1 \\\n + 2 }" => OK,
        "{ print a,\n b }" => OK,
        "" => OK,
    ]);

    table!(writes_runs_and_loads_are_problems, [
        "{system(\"id\")}" => Err((1, SYSTEM)),
        "{ system (\"id\") }" => Err((2, SYSTEM)),
        "{ x = 1system(\"id\") }" => Err((7, SYSTEM)),
        "{print > \"out\"}" => Err((7, PRINT_TO)),
        "{print $1 >> \"log\"}" => Err((10, "awk `print ... >>` appends to a file")),
        "{printf \"%s\", $1 > \"f\"}" => Err((17, "awk `printf ... >` writes a file")),
        "BEGIN { printf(\"%d\", 3) > \"f\" }" => Err((24, "awk `printf ... >` writes a file")),
        "{print \"x\" > $2}" => Err((11, PRINT_TO)),
        "{print \"e\" > \"/dev/stderr\" \"x\"}" => Err((11, PRINT_TO)),
        "{print > (\"/dev/stderr\")}" => Err((7, PRINT_TO)),
        "{ print a,\n b > \"f\" }" => Err((14, PRINT_TO)),
        "{ print a &&\n b > \"f\" }" => Err((16, PRINT_TO)),
        "{ print a[x > y] }" => Err((12, PRINT_TO)),
        "BEGIN { for (;;print i > \"f\") x }" => Err((23, PRINT_TO)),
        "{ print /x/ > \"f\" }" => Err((12, PRINT_TO)),
        "{print | \"sh\"}" => Err((7, PIPE)),
        "BEGIN{\"date\" | getline d}" => Err((13, PIPE)),
        "BEGIN{ \"id\" |& getline }" => Err((12, "awk `|&` pipes to or from a program")),
        "@load \"x\"" => Err((0, "awk `@load` loads a compiled extension")),
        "@include \"x.awk\"" => Err((0, "awk `@include` loads awk code from a file")),
        "BEGIN { f = \"system\"; @f(\"id\") }" => Err((22, "awk `@f` is a gawk directive or indirect call, which can call `system`")),
        "{ x = a >> 2 }" => Err((8, "awk `>>` outside a `print` redirection is not understood")),
    ]);

    table!(tokens_awks_may_read_differently_are_problems, [
        "$1 ~ /[/]/" => Err((5, "awk regex `/[/` has a `/` inside a bracket expression, which awks read differently")),
        "/[^/]+/" => Err((0, "awk regex `/[^/` has a `/` inside a bracket expression, which awks read differently")),
        "{getline / 2}" => Err((9, "awk `/` after `getline` may start a regex in one awk and divide in another")),
        "BEGIN { func / 1; system(\"x\") / 1 }" => Err((13, "awk `/` after `func` may start a regex in one awk and divide in another")),
        "{ $/x/ }" => Err((3, "awk `/` after `$` may start a regex in one awk and divide in another")),
        "BEGIN { switch (x) /a/ }" => Err((19, "awk `/` after `)` may start a regex in one awk and divide in another")),
    ]);

    table!(programs_that_do_not_tokenize_are_problems, [
        "{print \"x}" => Err((7, "unterminated awk string")),
        "{print \"x\n\"}" => Err((7, "unterminated awk string")),
        "/abc" => Err((0, "unterminated awk regex")),
        "{ a = 1 \\ + 2 }" => Err((8, "awk backslash `\\` is not at the end of a line")),
        "{ a = 'x' }" => Err((6, "unexpected character `'` in awk program")),
        "{ a = b & c }" => Err((8, "unexpected character `&` in awk program")),
        "{ é }" => Err((2, "unexpected character `é` in awk program")),
        "{ a = 1\r\n }" => Err((7, "unexpected character `\\r` in awk program")),
        "{ (a }" => Err((5, "unbalanced `}` in awk program")),
        "{ a) }" => Err((3, "unbalanced `)` in awk program")),
        "{ a[1) }" => Err((5, "unbalanced `)` in awk program")),
        "{ print" => Err((7, "unclosed `{` in awk program")),
        "{ f(a" => Err((5, "unclosed `(` in awk program")),
        "}" => Err((0, "unbalanced `}` in awk program")),
        "{ print > }" => Err((8, PRINT_TO)),
        "{ print >" => Err((8, PRINT_TO)),
    ]);

    #[test]
    fn deep_nesting_is_a_problem_not_a_crash() {
        let deep = format!("BEGIN {{ x = {} }}", "(".repeat(100_000));
        check(&deep, Err((268, "awk parentheses nested deeper than 256")));
        let braces = "{".repeat(100_000);
        check(&braces, Err((256, "awk braces nested deeper than 256")));
        let fine = format!("BEGIN {{ x = {}1{} }}", "(".repeat(256), ")".repeat(256));
        check(&fine, OK);
    }

    #[test]
    fn public_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<AwkProblem>();
    }

    /// Garbage never panics, offsets stay in bounds on char boundaries, and appending a
    /// `system` call or a pipe after any accepted program is always caught.
    #[test]
    fn garbage_never_panics_and_effects_are_always_seen() {
        const FRAGMENTS: &[&str] = &[
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            ";",
            "\n",
            " ",
            "\t",
            ",",
            "$",
            "\"",
            "\\",
            "/",
            "#",
            "|",
            "||",
            "&&",
            ">",
            ">>",
            "<",
            "=",
            "+",
            "++",
            "!",
            "~",
            "?",
            ":",
            "@",
            "x",
            "1",
            ".5",
            "1e",
            "0x",
            "print",
            "printf",
            "getline",
            "system",
            "if",
            "for",
            "func",
            "BEGIN",
            "END",
            "\"a\"",
            "/a/",
            "[/]",
            "é",
            "€",
            "\u{1F600}",
            "\r",
            "\0",
            "'",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..100_000 {
            let mut program = String::new();
            for _ in 0..(next() % 14) {
                program.push_str(FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]);
            }
            match check_awk_program(&program) {
                Err(problem) => {
                    assert!(problem.offset <= program.len(), "{program:?}: {problem:?}");
                    assert!(
                        program.is_char_boundary(problem.offset),
                        "{program:?}: {problem:?}"
                    );
                    assert!(!problem.reason.is_empty());
                }
                Ok(()) => {
                    for tail in [
                        "\nBEGIN { system(1) }",
                        "\n{ print | \"sh\" }",
                        "\n{ print > \"f\" }",
                    ] {
                        let with_effect = format!("{program}{tail}");
                        assert!(
                            check_awk_program(&with_effect).is_err(),
                            "missed the effect in {with_effect:?}"
                        );
                    }
                }
            }
        }
    }
}

//! check/sed_script: stage 3 — the checker for one GNU sed script, called by `check/sed`. It
//! reads the script the way GNU sed compiles it and reports the first command that writes a file
//! or runs a program (`e`, `w`, `W`, the `e` and `w` flags of `s`). It never runs sed, never
//! decides a verdict, and never calls a script read-only that it cannot read: anything it does
//! not understand is a problem (fail closed).
//!
//! What "reads the way sed does" means here, and why it matters: the dangerous letters hide in
//! plain sight (`s/w/e/g` is harmless, `s/x/y/e` runs a shell), so only a parser that knows where
//! every regex, replacement, label, file name and `a`/`i`/`c` text ends can tell them apart. The
//! parser follows GNU sed 4.9's `compile.c` command by command. Where older GNU seds cut the script
//! differently (labels that end only at whitespace or `;`, no skipping of `[...]` while looking for
//! the `s` delimiter), the script is read those ways too, and a write or run seen by any reading
//! counts.
//!
//! Reading files (`r`, `R`) is not its business: which paths a command reads is judged elsewhere.
//! Its text helpers and the standard-stream names it shares with `awk_program` live in
//! `check/script_text`.

use super::script_text::{MAX_NESTING, STD_STREAMS, char_floor, show};

/// Why a sed script is not read-only, with a byte offset into the script.
///
/// `offset` is a byte index into the checked script, always on a char boundary and never past its
/// end; `reason` is a lowercase phrase that quotes what was found. For the script `1e id` the
/// offset is 1 (the `e`) and the reason is "sed command `e` runs a program"; for `s/a/b` the offset
/// is 0 and the reason says the `s` command is unterminated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SedProblem {
    /// Byte offset into the script of the command, flag or character the reason is about.
    pub offset: usize,
    /// What makes the script not read-only, quoting the offending text.
    pub reason: String,
}

/// Options that change how GNU sed reads a script.
///
/// The default is GNU sed with its extensions and without `--sandbox`. Set `posix` when the
/// command line has `--posix` (GNU extensions such as `e`, `W`, `a text` one-liners and address
/// flags become errors, and `w /dev/stdout` opens a real file). Set `sandbox` when it has
/// `--sandbox`: GNU sed 4.3 and later then refuse to run any script containing `e`, `r`, `R`, `w`,
/// `W` or the `e`/`w` flags of `s` (older seds refuse the unknown option), so such a script does
/// nothing and is reported as read-only as long as it parses.
#[derive(Debug, Clone, Copy, Default)]
pub struct SedDialect {
    /// `--posix`: GNU extensions are disabled.
    pub posix: bool,
    /// `--sandbox`: `e`, `w` and `r` are rejected by sed itself before anything runs.
    pub sandbox: bool,
}

/// What stands in the command text for a part only run time knows (`&`, `\\1`): a plain word,
/// so that what the rest of the text spells is still read (`rm -rf &` is `rm -rf x`).
const UNKNOWN_PART: &str = "x";

/// The text GNU sed puts in the pattern space for the replacement `text` of an `s` command,
/// with its escapes decoded as GNU sed decodes them: `\\n`, `\\t`
/// and the other C escapes, `\\dNNN`, `\\oNNN`, `\\xHH`, `\\cX`, the case conversions `\\U`,
/// `\\L`, `\\u`, `\\l`, `\\E`, an escaped delimiter, and any other escaped character as
/// itself. The matched text (`&`) and groups (`\\1`) are not known: each is [`UNKNOWN_PART`].
pub(crate) fn replacement_text(text: &str) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum Case {
        Keep,
        Upper,
        Lower,
    }
    let mut out = String::with_capacity(text.len());
    let mut case = Case::Keep;
    let mut one: Option<Case> = None;
    let mut chars = text.chars().peekable();
    let push = |out: &mut String, c: char, case: Case, one: &mut Option<Case>| {
        let how = one.take().unwrap_or(case);
        match how {
            Case::Upper => out.extend(c.to_uppercase()),
            Case::Lower => out.extend(c.to_lowercase()),
            Case::Keep => out.push(c),
        }
    };
    let number = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, most: usize| {
        let mut digits = String::new();
        while digits.len() < most
            && let Some(d) = chars.next_if(|d| d.is_digit(radix))
        {
            digits.push(d);
        }
        u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(|v| char::from_u32(v & 0xff))
    };
    while let Some(c) = chars.next() {
        if c == '&' {
            out.push_str(UNKNOWN_PART);
            continue;
        }
        if c != '\\' {
            push(&mut out, c, case, &mut one);
            continue;
        }
        let Some(e) = chars.next() else {
            break;
        };
        let decoded = match e {
            'n' | '\n' => Some('\n'),
            't' => Some('\t'),
            'a' => Some('\u{7}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            'r' => Some('\r'),
            'd' => number(&mut chars, 10, 3),
            'o' => number(&mut chars, 8, 3),
            'x' => number(&mut chars, 16, 2),
            'c' => chars
                .next()
                .map(|x| char::from(x.to_ascii_uppercase() as u8 ^ 0x40)),
            '0'..='9' => {
                out.push_str(UNKNOWN_PART);
                None
            }
            'U' => {
                case = Case::Upper;
                None
            }
            'L' => {
                case = Case::Lower;
                None
            }
            'E' => {
                case = Case::Keep;
                None
            }
            'u' => {
                one = Some(Case::Upper);
                None
            }
            'l' => {
                one = Some(Case::Lower);
                None
            }
            other => Some(other),
        };
        if let Some(d) = decoded {
            push(&mut out, d, case, &mut one);
        }
    }
    out
}

/// Checks one sed script (the text of one -e argument or the first non-option operand).
/// Ok(()) only when the script provably neither writes files nor runs programs.
///
/// For example `s/w/e/g`, `1,20p`, `$!N;P;D` and `:a;N;$!ba;s/\n/ /g` are read-only, while
/// `s/x/y/e`, `1e id`, `w out.txt` and `s/a/b/w f` are not; neither is a script sed would reject
/// (`s/a/b`, `k`, `{p`). Check every `-e` argument on its own: sed carries unfinished `a`/`i`/`c`
/// text and open blocks from one `-e` into the next, and both only make sed see fewer commands than
/// a separate check does. A script read from a file (`-f`) cannot be checked here.
pub fn check_sed_script(script: &str, dialect: SedDialect) -> Result<(), SedProblem> {
    let syntax = match scan(script, dialect, CURRENT) {
        Ok(()) => None,
        Err(Stop::Refused) => return Ok(()),
        Err(Stop::Effect(problem)) => return Err(problem),
        Err(Stop::Syntax(problem)) => Some(problem),
    };
    if !dialect.sandbox {
        // Under `--sandbox` every sed that knows the option refuses the effects in every reading,
        // and every sed that does not know it refuses to start, so only syntax is left to report.
        for reading in OLDER {
            // A syntax error in another reading means that sed refuses the script before running
            // it; only a write or run it compiles before that error matters (sed opens `w` files
            // while compiling).
            match scan(script, dialect, reading) {
                Ok(()) | Err(Stop::Refused | Stop::Syntax(_)) => {}
                Err(Stop::Effect(problem)) => {
                    return Err(SedProblem {
                        offset: problem.offset,
                        reason: format!("{} when read as {}", problem.reason, reading.name),
                    });
                }
            }
        }
    }
    match syntax {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// How far a label (`:a`, `b a`, `t a`, `T a`, `v 4.2`) reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelEnd {
    /// GNU sed 4.9: a blank, `;`, `}` or `#` ends it.
    Current,
    /// Older GNU seds: only whitespace (including `\r`, `\v`, `\f`) or `;` ends it.
    Older,
}

/// Whether a `[...]` bracket expression in a regex hides the delimiter (`s/[/]/x/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Brackets {
    /// GNU sed 4.9: the delimiter does not end the regex inside a bracket expression.
    Skipped,
    /// Seds without bracket awareness: the first unescaped delimiter ends the regex.
    Ignored,
}

/// One way of cutting a script into commands.
#[derive(Debug, Clone, Copy)]
struct Reading {
    label_end: LabelEnd,
    brackets: Brackets,
    /// How a problem found only by this reading names it.
    name: &'static str,
}

/// GNU sed 4.9, the reading whose syntax errors are problems.
const CURRENT: Reading = Reading {
    label_end: LabelEnd::Current,
    brackets: Brackets::Skipped,
    name: "gnu sed 4.9 does",
};

/// The other readings, checked only for writes and runs.
const OLDER: [Reading; 3] = [
    Reading {
        label_end: LabelEnd::Older,
        brackets: Brackets::Skipped,
        name: "older gnu sed does (labels end only at whitespace or `;`)",
    },
    Reading {
        label_end: LabelEnd::Current,
        brackets: Brackets::Ignored,
        name: "a sed that does not skip `[...]` when looking for a delimiter",
    },
    Reading {
        label_end: LabelEnd::Older,
        brackets: Brackets::Ignored,
        name: "old sed does (labels end only at whitespace or `;`, `[...]` not skipped)",
    },
];

/// Why one reading of a script stopped early.
#[derive(Debug)]
enum Stop {
    /// The script writes a file or runs a program.
    Effect(SedProblem),
    /// `--sandbox` is on and sed refuses the script because of an `e`, `r` or `w`.
    Refused,
    /// Sed would reject the script, or this parser does not understand it.
    Syntax(SedProblem),
}

/// A byte cursor that mirrors sed's `inchar`/`savchar`/`in_nonblank`.
struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.bytes.get(self.pos).copied();
        if byte.is_some() {
            self.pos += 1;
        }
        byte
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Puts back the byte `next` just returned; like `savchar`, a no-op at the end.
    fn back(&mut self, byte: Option<u8>) {
        if byte.is_some() {
            self.pos = self.pos.saturating_sub(1);
        }
    }

    /// The next byte that is not a blank (space or tab), as `in_nonblank`.
    fn nonblank(&mut self) -> Option<u8> {
        loop {
            let byte = self.next();
            if !matches!(byte, Some(b' ' | b'\t')) {
                return byte;
            }
        }
    }

    /// Where the byte just returned by `next` starts; the end of the script after `None`.
    fn last(&self, byte: Option<u8>) -> usize {
        match byte {
            Some(_) => self.pos.saturating_sub(1),
            None => self.bytes.len(),
        }
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    fn problem(&self, offset: usize, reason: String) -> SedProblem {
        SedProblem {
            offset: char_floor(self.text, offset),
            reason,
        }
    }

    fn syntax(&self, offset: usize, reason: String) -> Stop {
        Stop::Syntax(self.problem(offset, reason))
    }

    /// The character at `offset`, escaped so that control characters stay readable.
    fn quote_char(&self, offset: usize) -> String {
        match self.text.get(char_floor(self.text, offset)..) {
            Some(rest) => show(
                rest.get(..rest.chars().next().map_or(0, char::len_utf8))
                    .unwrap_or_default(),
            ),
            None => String::new(),
        }
    }

    fn quote_range(&self, start: usize, end: usize) -> String {
        let start = char_floor(self.text, start);
        let end = char_floor(self.text, end.max(start));
        show(self.text.get(start..end).unwrap_or_default())
    }
}

/// `ISSPACE` in the C locale.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The kinds of address that change what may follow them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    /// Line 0, valid only as `0,/re/`.
    Zero,
    /// `+N` or `~N` with N > 0, valid only as a second address.
    Step,
    /// `/re/` or `\cREc`.
    Regex,
    /// Any other address: `N`, `first~step`, `$`, `+0`.
    Other,
}

/// Reads one whole script in one reading; `Ok` when it compiles without any write or run.
fn scan(script: &str, dialect: SedDialect, reading: Reading) -> Result<(), Stop> {
    let mut c = Cursor::new(script);
    let mut open_blocks: Vec<usize> = Vec::new();
    loop {
        let mut ch = c.next();
        while ch.is_some_and(|b| b == b';' || is_space(b)) {
            ch = c.next();
        }
        let Some(first) = ch else { break };
        let start = c.last(ch);

        let mut has_a1 = false;
        let mut has_a2 = false;
        if let Some(a1) = address(&mut c, first, dialect, reading, start)? {
            if a1 == Address::Step {
                return Err(c.syntax(
                    start,
                    "invalid usage of `+N` or `~N` as first address".into(),
                ));
            }
            has_a1 = true;
            ch = c.nonblank();
            let mut a2 = None;
            if ch == Some(b',') {
                let comma = c.last(ch);
                let next = c.nonblank();
                let at = c.last(next);
                a2 = match next {
                    Some(byte) => address(&mut c, byte, dialect, reading, at)?,
                    None => None,
                };
                if a2.is_none() {
                    return Err(c.syntax(comma, "unexpected `,` in sed address".into()));
                }
                has_a2 = true;
                ch = c.nonblank();
            }
            if a1 == Address::Zero && (a2 != Some(Address::Regex) || dialect.posix) {
                return Err(c.syntax(start, "invalid usage of line address 0".into()));
            }
        }
        if ch == Some(b'!') {
            let bang = c.last(ch);
            ch = c.nonblank();
            if ch == Some(b'!') {
                return Err(c.syntax(bang, "multiple `!`s in sed address".into()));
            }
        }

        let at = c.last(ch);
        let Some(cmd) = ch else {
            return Err(c.syntax(start, "missing sed command after address".into()));
        };
        if dialect.posix {
            if matches!(
                cmd,
                b'e' | b'F' | b'v' | b'z' | b'L' | b'Q' | b'T' | b'R' | b'W'
            ) {
                return Err(c.syntax(
                    at,
                    format!("unknown sed command `{}` in --posix mode", c.quote_char(at)),
                ));
            }
            if has_a2 && matches!(cmd, b'a' | b'i' | b'l' | b'=' | b'r') {
                return Err(c.syntax(
                    at,
                    format!("sed command `{}` only uses one address", c.quote_char(at)),
                ));
            }
        }

        match cmd {
            b'#' => {
                if has_a1 {
                    return Err(c.syntax(at, "sed comments don't accept any addresses".into()));
                }
                // The rest of the line is a comment (`#n` on the first line only turns off
                // printing, which writes nothing).
                while !matches!(c.next(), None | Some(b'\n')) {}
            }
            b'v' => {
                // `v VERSION` fails only when the version is newer than sed's; either way it
                // writes and runs nothing, so its argument is just skipped like a label.
                read_label(&mut c, reading);
            }
            b'{' => {
                if open_blocks.len() >= MAX_NESTING {
                    return Err(
                        c.syntax(at, format!("sed blocks nested deeper than {MAX_NESTING}"))
                    );
                }
                open_blocks.push(at);
            }
            b'}' => {
                if open_blocks.pop().is_none() {
                    return Err(c.syntax(at, "unexpected `}` in sed script".into()));
                }
                if has_a1 {
                    return Err(c.syntax(at, "`}` doesn't want any addresses".into()));
                }
                end_of_command(&mut c)?;
            }
            b'e' => {
                return Err(effect(
                    &c,
                    dialect,
                    at,
                    "sed command `e` runs a program".into(),
                ));
            }
            b'a' | b'i' | b'c' => {
                let next = c.nonblank();
                let lead = match next {
                    None => {
                        return Err(c.syntax(
                            at,
                            format!("expected `\\` after sed command `{}`", c.quote_char(at)),
                        ));
                    }
                    Some(b'\\') => c.next(),
                    Some(_) => {
                        if dialect.posix {
                            return Err(c.syntax(
                                at,
                                format!(
                                    "expected `\\` after sed command `{}` in --posix mode",
                                    c.quote_char(at)
                                ),
                            ));
                        }
                        // GNU one-liner `a text`: the text starts at the first non-blank.
                        c.back(next);
                        Some(b'\n')
                    }
                };
                skip_text(&mut c, lead);
            }
            b':' => {
                if has_a1 {
                    return Err(c.syntax(at, "sed `:` doesn't want any addresses".into()));
                }
                let (from, to) = read_label(&mut c, reading);
                if from == to {
                    return Err(c.syntax(at, "sed `:` lacks a label".into()));
                }
            }
            b'b' | b't' | b'T' => {
                read_label(&mut c, reading);
            }
            b'q' | b'Q' | b'l' | b'L' => {
                if has_a2 && matches!(cmd, b'q' | b'Q') {
                    return Err(c.syntax(
                        at,
                        format!("sed command `{}` only uses one address", c.quote_char(at)),
                    ));
                }
                let next = c.nonblank();
                if next.is_some_and(|b| b.is_ascii_digit()) && !dialect.posix {
                    c.skip_digits();
                } else {
                    c.back(next);
                }
                end_of_command(&mut c)?;
            }
            b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P'
            | b'z' | b'x' => {
                end_of_command(&mut c)?;
            }
            b'r' | b'R' => {
                if dialect.sandbox {
                    return Err(Stop::Refused);
                }
                let (from, to) = read_filename(&mut c);
                if from == to {
                    return Err(c.syntax(
                        at,
                        format!("missing filename after sed command `{}`", c.quote_char(at)),
                    ));
                }
                // Reading a file is allowed: it only adds to sed's output.
            }
            b'w' | b'W' => {
                if dialect.sandbox {
                    return Err(Stop::Refused);
                }
                let (from, to) = read_filename(&mut c);
                if from == to {
                    return Err(c.syntax(
                        at,
                        format!("missing filename after sed command `{}`", c.quote_char(at)),
                    ));
                }
                if !writes_file(script, from, to, dialect) {
                    continue;
                }
                return Err(Stop::Effect(c.problem(
                    at,
                    format!(
                        "sed command `{}` writes file `{}`",
                        c.quote_char(at),
                        c.quote_range(from, to)
                    ),
                )));
            }
            b's' => substitute(&mut c, dialect, reading, at)?,
            b'y' => transliterate(&mut c, reading, at)?,
            _ => {
                return Err(c.syntax(at, format!("unknown sed command `{}`", c.quote_char(at))));
            }
        }
    }
    match open_blocks.last() {
        Some(&open) => Err(c.syntax(open, "unmatched `{` in sed script".into())),
        None => Ok(()),
    }
}

/// A write or run: a problem, unless `--sandbox` makes sed refuse the whole script.
fn effect(c: &Cursor<'_>, dialect: SedDialect, at: usize, reason: String) -> Stop {
    if dialect.sandbox {
        Stop::Refused
    } else {
        Stop::Effect(c.problem(at, reason))
    }
}

/// Whether a `w` file name opens a file; GNU sed (not `--posix`) maps the standard streams.
fn writes_file(script: &str, from: usize, to: usize, dialect: SedDialect) -> bool {
    let name = script.get(from..to).unwrap_or_default();
    dialect.posix || !STD_STREAMS.contains(&name)
}

/// Parses one address starting at `first` (already read); `None` when `first` starts none.
fn address(
    c: &mut Cursor<'_>,
    first: u8,
    dialect: SedDialect,
    reading: Reading,
    at: usize,
) -> Result<Option<Address>, Stop> {
    match first {
        b'/' | b'\\' => {
            let slash = if first == b'\\' {
                let custom = c.next();
                match custom {
                    None => {
                        return Err(c.syntax(at, "unterminated sed address regex".into()));
                    }
                    Some(byte) if !byte.is_ascii() => {
                        let here = c.last(custom);
                        return Err(c.syntax(
                            here,
                            format!(
                                "sed regex delimiter `{}` is not a single-byte character",
                                c.quote_char(here)
                            ),
                        ));
                    }
                    Some(byte) => byte,
                }
            } else {
                b'/'
            };
            if !match_slash(c, slash, true, reading) {
                return Err(c.syntax(at, "unterminated sed address regex".into()));
            }
            if !dialect.posix {
                loop {
                    let flag = c.nonblank();
                    if !matches!(flag, Some(b'I' | b'M')) {
                        c.back(flag);
                        break;
                    }
                }
            }
            Ok(Some(Address::Regex))
        }
        b'0'..=b'9' => {
            let mut zero = first == b'0';
            while let Some(digit) = c.peek().filter(u8::is_ascii_digit) {
                zero &= digit == b'0';
                c.pos += 1;
            }
            let next = c.nonblank();
            if next == Some(b'~') && !dialect.posix {
                // `first~step`; a step of 0 leaves a plain line number.
                let step = c.nonblank();
                let mut step_zero = true;
                match step {
                    Some(d) if d.is_ascii_digit() => {
                        step_zero = d == b'0';
                        while let Some(digit) = c.peek().filter(u8::is_ascii_digit) {
                            step_zero &= digit == b'0';
                            c.pos += 1;
                        }
                    }
                    _ => c.back(step),
                }
                zero &= step_zero;
            } else {
                c.back(next);
            }
            Ok(Some(if zero { Address::Zero } else { Address::Other }))
        }
        b'+' | b'~' if !dialect.posix => {
            let step = c.nonblank();
            let mut step_zero = true;
            match step {
                Some(d) if d.is_ascii_digit() => {
                    step_zero = d == b'0';
                    while let Some(digit) = c.peek().filter(u8::is_ascii_digit) {
                        step_zero &= digit == b'0';
                        c.pos += 1;
                    }
                }
                _ => c.back(step),
            }
            Ok(Some(if step_zero {
                Address::Other
            } else {
                Address::Step
            }))
        }
        b'$' => Ok(Some(Address::Other)),
        _ => Ok(None),
    }
}

/// What may follow a simple command: blanks, then the end of the line or script, `;`, or a
/// `}`/`#` that the main loop reads next.
fn end_of_command(c: &mut Cursor<'_>) -> Result<(), Stop> {
    let next = c.nonblank();
    match next {
        Some(b'}' | b'#') => {
            c.back(next);
            Ok(())
        }
        None | Some(b'\n' | b';') => Ok(()),
        Some(_) => {
            let at = c.last(next);
            Err(c.syntax(
                at,
                format!("extra characters after sed command: `{}`", c.quote_char(at)),
            ))
        }
    }
}

/// Skips `a`/`i`/`c` text, which is literal: it runs to the first newline not escaped by a
/// backslash. `lead` is the character after `a\` (or a newline for the one-liner form); `None`
/// means the text continues in the next `-e`, which is checked on its own.
fn skip_text(c: &mut Cursor<'_>, lead: Option<u8>) {
    if lead.is_none() {
        return;
    }
    loop {
        match c.next() {
            None | Some(b'\n') => return,
            Some(b'\\') => {
                if c.next().is_none() {
                    return;
                }
            }
            Some(_) => {}
        }
    }
}

/// Reads a label as `read_label` does; returns its byte range (empty when there is none).
fn read_label(c: &mut Cursor<'_>, reading: Reading) -> (usize, usize) {
    let mut ch = c.nonblank();
    let from = c.last(ch);
    while let Some(byte) = ch {
        let ends = match reading.label_end {
            LabelEnd::Current => matches!(byte, b'\n' | b' ' | b'\t' | b';' | b'}' | b'#'),
            LabelEnd::Older => is_space(byte) || byte == b';',
        };
        if ends {
            break;
        }
        ch = c.next();
    }
    let to = c.last(ch);
    c.back(ch);
    (from, to)
}

/// Reads a file name as `read_filename` does: from the first non-blank to the end of the line,
/// `;`, `}` and spaces included. Returns its byte range.
fn read_filename(c: &mut Cursor<'_>) -> (usize, usize) {
    let mut ch = c.nonblank();
    let from = c.last(ch);
    while !matches!(ch, None | Some(b'\n')) {
        ch = c.next();
    }
    (from, c.last(ch))
}

/// Reads the delimiter of `s` or `y`; only single-byte (ASCII) delimiters are understood.
fn delimiter(c: &mut Cursor<'_>, at: usize, what: &str) -> Result<u8, Stop> {
    let ch = c.next();
    match ch {
        None => Err(c.syntax(at, format!("unterminated sed `{what}` command"))),
        Some(byte) if !byte.is_ascii() => {
            let here = c.last(ch);
            Err(c.syntax(
                here,
                format!(
                    "sed `{what}` delimiter `{}` is not a single-byte character",
                    c.quote_char(here)
                ),
            ))
        }
        Some(byte) => Ok(byte),
    }
}

/// Skips to just past the next unescaped `slash`, as `match_slash` does; `false` when the line
/// or script ends first.
fn match_slash(c: &mut Cursor<'_>, slash: u8, regex: bool, reading: Reading) -> bool {
    loop {
        let ch = c.next();
        match ch {
            None | Some(b'\n') => return false,
            Some(byte) if byte == slash => return true,
            Some(b'\\') => {
                // A backslash takes the next character with it, an escaped newline included.
                if c.next().is_none() {
                    return false;
                }
            }
            Some(b'[') if regex && reading.brackets == Brackets::Skipped => {
                if skip_bracket(c) != Some(b']') {
                    return false;
                }
            }
            Some(_) => {}
        }
    }
}

/// Skips a bracket expression after its `[`, as `snarf_char_class` does; returns the byte that
/// ended it: `]`, or a newline or `None` when it is unterminated.
fn skip_bracket(c: &mut Cursor<'_>) -> Option<u8> {
    // States: 0 plain, 1 just after a nested `[`, 2 inside `[.`/`[:`/`[=`, 3 after its closing
    // `.`/`:`/`=`.
    let mut state = 0u8;
    let mut delim = 0u8;
    let mut ch = c.next();
    if ch == Some(b'^') {
        ch = c.next();
    }
    if ch == Some(b']') {
        ch = c.next();
    }
    loop {
        match ch {
            None | Some(b'\n') => return ch,
            Some(byte @ (b'.' | b':' | b'=')) => {
                if state == 1 {
                    delim = byte;
                    state = 2;
                } else if state == 2 && byte == delim {
                    state = 3;
                } else {
                    state &= !1;
                }
            }
            Some(b'[') => {
                if state == 0 {
                    state = 1;
                }
            }
            Some(b']') => {
                if state <= 1 {
                    return ch;
                }
                if state == 3 {
                    state = 0;
                }
                state &= !1;
            }
            Some(_) => state &= !1,
        }
        ch = c.next();
    }
}

/// Parses `s/regex/replacement/flags` after the `s` at `at`.
fn substitute(
    c: &mut Cursor<'_>,
    dialect: SedDialect,
    reading: Reading,
    at: usize,
) -> Result<(), Stop> {
    let slash = delimiter(c, at, "s")?;
    if !match_slash(c, slash, true, reading) || !match_slash(c, slash, false, reading) {
        return Err(c.syntax(at, "unterminated sed `s` command".into()));
    }
    loop {
        let flag = c.nonblank();
        let here = c.last(flag);
        match flag {
            Some(b'i' | b'I' | b'm' | b'M') if !dialect.posix => {}
            Some(b'p' | b'g') => {}
            Some(b'e') => {
                return Err(effect(
                    c,
                    dialect,
                    here,
                    "sed `s` flag `e` runs the pattern space as a program".into(),
                ));
            }
            Some(b'w') => {
                if dialect.sandbox {
                    return Err(Stop::Refused);
                }
                let (from, to) = read_filename(c);
                if from == to {
                    return Err(c.syntax(here, "missing filename after sed `s` flag `w`".into()));
                }
                if writes_file(c.text, from, to, dialect) {
                    return Err(Stop::Effect(c.problem(
                        here,
                        format!("sed `s` flag `w` writes file `{}`", c.quote_range(from, to)),
                    )));
                }
                return Ok(());
            }
            Some(digit @ b'0'..=b'9') => {
                let mut zero = digit == b'0';
                while let Some(more) = c.peek().filter(u8::is_ascii_digit) {
                    zero &= more == b'0';
                    c.pos += 1;
                }
                if zero {
                    return Err(c.syntax(
                        here,
                        "number option to sed `s` command may not be zero".into(),
                    ));
                }
            }
            Some(b'}' | b'#') => {
                c.back(flag);
                return Ok(());
            }
            None | Some(b'\n' | b';') => return Ok(()),
            Some(b'\r') if c.peek() == Some(b'\n') => {
                c.pos += 1;
                return Ok(());
            }
            Some(_) => {
                return Err(c.syntax(
                    here,
                    format!("unknown option to sed `s`: `{}`", c.quote_char(here)),
                ));
            }
        }
    }
}

/// Parses `y/source/dest/` after the `y` at `at`.
fn transliterate(c: &mut Cursor<'_>, reading: Reading, at: usize) -> Result<(), Stop> {
    let slash = delimiter(c, at, "y")?;
    if !match_slash(c, slash, false, reading) || !match_slash(c, slash, false, reading) {
        return Err(c.syntax(at, "unterminated sed `y` command".into()));
    }
    end_of_command(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacements_decode_as_gnu_sed_decodes_them() {
        let rows: &[(&str, &str)] = &[
            (r"rm\ -rf\ v", "rm -rf v"),
            (r"\x72m -rf v", "rm -rf v"),
            (r"\d114m", "rm"),
            (r"\o162m", "rm"),
            (r"\LRM\E -rf", "rm -rf"),
            (r"\uecho", "Echo"),
            (r"\lRM", "rM"),
            (r"a\/b", "a/b"),
            (r"rm -rf &", "rm -rf x"),
            (r"rm -rf \1", "rm -rf x"),
            (r"a\&b", "a&b"),
            (r"a\nb", "a\nb"),
            (r"\cA", "\u{1}"),
            ("trailing\\", "trailing"),
            ("", ""),
        ];
        for (text, want) in rows {
            assert_eq!(replacement_text(text), *want, "{text}");
        }
    }

    const GNU: SedDialect = SedDialect {
        posix: false,
        sandbox: false,
    };
    const POSIX: SedDialect = SedDialect {
        posix: true,
        sandbox: false,
    };
    const SANDBOX: SedDialect = SedDialect {
        posix: false,
        sandbox: true,
    };

    /// The one helper every table goes through: the whole result is compared.
    fn check(dialect: SedDialect, script: &str, expected: Result<(), (usize, &str)>) {
        let expected = expected.map_err(|(offset, reason)| SedProblem {
            offset,
            reason: reason.to_string(),
        });
        assert_eq!(
            check_sed_script(script, dialect),
            expected,
            "script {script:?}"
        );
    }

    macro_rules! table {
        ($name:ident, $dialect:expr, [$($script:expr => $expected:expr),* $(,)?]) => {
            #[test]
            fn $name() {
                $(check($dialect, $script, $expected);)*
            }
        };
    }

    const OK: Result<(), (usize, &str)> = Ok(());

    table!(read_only_scripts_are_allowed, GNU, [
        "s/w/e/g" => OK,
        "s/one/eval/" => OK,
        "1,20p" => OK,
        "/x/p" => OK,
        "10p" => OK,
        "$!N;P;D" => OK,
        "s|/usr|/opt|g" => OK,
        "y/abc/xyz/" => OK,
        "/start/,/end/{s/a/b/;p}" => OK,
        ":a;N;$!ba;s/\\n/ /g" => OK,
        "1i\\\nw this is text" => OK,
        "a hello e world" => OK,
        "s/a\\/w/b/" => OK,
        "s/[/]/x/g" => OK,
        "s/[^/]*$//" => OK,
        "s#/#\\\\#g" => OK,
        "s\\a\\b\\" => OK,
        "s a b g" => OK,
        "s/a/\\\nw f/" => OK,
        "s/x/y/3g;s/x/y/pI;s/x/y/m" => OK,
        "s/x/y/ # w f" => OK,
        "s/x/y/\r\np" => OK,
        "0,/x/p" => OK,
        "1~2p;2,+3p;2,~4p;$!{$!N}" => OK,
        "/x/I,/y/Mp" => OK,
        "\\,x,p;\\|a/b|d" => OK,
        " 1 !  p" => OK,
        "{{{p}}}" => OK,
        "{;;;}" => OK,
        "{p};p" => OK,
        "{:a}" => OK,
        "b a p;:a" => OK,
        "l;l 5;q 3;Q;L" => OK,
        "=;d;D;F;g;G;h;H;n;N;p;P;z;x" => OK,
        "#n\np" => OK,
        "p # w f" => OK,
        "r /etc/hostname" => OK,
        "R f;p" => OK,
        "v 4.2;p" => OK,
        "a\\" => OK,
        "a foo\\\nw still text" => OK,
        "c\\\n  text\\\nmore" => OK,
        "y/a\\/b/x\\/y/" => OK,
        "w /dev/stdout" => OK,
        "s/x/y/w /dev/stderr" => OK,
        "" => OK,
        "\n;\t" => OK,
    ]);

    table!(writes_and_runs_are_problems, GNU, [
        "s/x/y/e" => Err((6, "sed `s` flag `e` runs the pattern space as a program")),
        "s/x/y/pe" => Err((7, "sed `s` flag `e` runs the pattern space as a program")),
        "1e id" => Err((1, "sed command `e` runs a program")),
        "e" => Err((0, "sed command `e` runs a program")),
        "1!e touch x" => Err((2, "sed command `e` runs a program")),
        "/x/ ! e" => Err((6, "sed command `e` runs a program")),
        "p;e;p" => Err((2, "sed command `e` runs a program")),
        "w f" => Err((0, "sed command `w` writes file `f`")),
        "W f" => Err((0, "sed command `W` writes file `f`")),
        "s/a/b/w f" => Err((6, "sed `s` flag `w` writes file `f`")),
        "s/a/b/gw f" => Err((7, "sed `s` flag `w` writes file `f`")),
        "/x/w out.txt" => Err((3, "sed command `w` writes file `out.txt`")),
        "{w f}" => Err((1, "sed command `w` writes file `f}`")),
        "w /dev/stdout " => Err((0, "sed command `w` writes file `/dev/stdout `")),
        "w /dev/stdout;p" => Err((0, "sed command `w` writes file `/dev/stdout;p`")),
        "s|x|y|w\tlog" => Err((6, "sed `s` flag `w` writes file `log`")),
        "1a\\\n\nw f" => Err((5, "sed command `w` writes file `f`")),
        "a\\\\\nw f" => Err((4, "sed command `w` writes file `f`")),
        "a\nw f" => Err((2, "sed command `w` writes file `f`")),
        ":a;w f" => Err((3, "sed command `w` writes file `f`")),
        ":a w f" => Err((3, "sed command `w` writes file `f`")),
        "y/a/b/;e" => Err((7, "sed command `e` runs a program")),
    ]);

    table!(readings_of_older_seds_count, GNU, [
        // sed 4.9 ends the label at `#` and reads a comment; older seds read label `a#x`, then
        // the command `w f`.
        "b a#x;w f" => Err((6, "sed command `w` writes file `f` when read as older gnu sed does (labels end only at whitespace or `;`)")),
        ":a\u{b}w f" => Err((3, "sed command `w` writes file `f` when read as older gnu sed does (labels end only at whitespace or `;`)")),
        // sed 4.9 skips `[/]`; a sed that does not reads flags `w foo/g`.
        "s/[/]/w foo/g" => Err((6, "sed `s` flag `w` writes file `foo/g` when read as a sed that does not skip `[...]` when looking for a delimiter")),
    ]);

    table!(scripts_sed_rejects_are_problems, GNU, [
        "s/a/b" => Err((0, "unterminated sed `s` command")),
        "s/a\n/b/" => Err((0, "unterminated sed `s` command")),
        "s" => Err((0, "unterminated sed `s` command")),
        "s/[a/" => Err((0, "unterminated sed `s` command")),
        "y/a/" => Err((0, "unterminated sed `y` command")),
        "/x" => Err((0, "unterminated sed address regex")),
        "k" => Err((0, "unknown sed command `k`")),
        "{p" => Err((0, "unmatched `{` in sed script")),
        "}" => Err((0, "unexpected `}` in sed script")),
        ":a}" => Err((2, "unexpected `}` in sed script")),
        "{p}p" => Err((3, "extra characters after sed command: `p`")),
        "pp" => Err((1, "extra characters after sed command: `p`")),
        "y/a/b/ w" => Err((7, "extra characters after sed command: `w`")),
        "s/x/y/gx" => Err((7, "unknown option to sed `s`: `x`")),
        "s/x/y/0" => Err((6, "number option to sed `s` command may not be zero")),
        "0p" => Err((0, "invalid usage of line address 0")),
        "+3p" => Err((0, "invalid usage of `+N` or `~N` as first address")),
        "2,p" => Err((1, "unexpected `,` in sed address")),
        "1!!p" => Err((1, "multiple `!`s in sed address")),
        "1" => Err((0, "missing sed command after address")),
        "1:a" => Err((1, "sed `:` doesn't want any addresses")),
        "1#x" => Err((1, "sed comments don't accept any addresses")),
        ":" => Err((0, "sed `:` lacks a label")),
        "a" => Err((0, "expected `\\` after sed command `a`")),
        "w" => Err((0, "missing filename after sed command `w`")),
        "r " => Err((0, "missing filename after sed command `r`")),
        "1,2q" => Err((3, "sed command `q` only uses one address")),
        "é" => Err((0, "unknown sed command `é`")),
        "s€a€b€" => Err((1, "sed `s` delimiter `€` is not a single-byte character")),
        "\\€a€p" => Err((1, "sed regex delimiter `€` is not a single-byte character")),
        "1\np" => Err((1, "unknown sed command `\\n`")),
    ]);

    table!(posix_mode_drops_gnu_extensions, POSIX, [
        "p;s/x/y/g" => OK,
        "a\\\ntext" => OK,
        "w /dev/stdout" => Err((0, "sed command `w` writes file `/dev/stdout`")),
        "a foo" => Err((0, "expected `\\` after sed command `a` in --posix mode")),
        "e" => Err((0, "unknown sed command `e` in --posix mode")),
        "s/x/y/I" => Err((6, "unknown option to sed `s`: `I`")),
        "0,/x/p" => Err((0, "invalid usage of line address 0")),
    ]);

    table!(sandbox_makes_sed_refuse_effects, SANDBOX, [
        "w f" => OK,
        "s/x/y/e" => OK,
        "1e id" => OK,
        "s/a/b/w f" => OK,
        "b a#x;w f" => OK,
        "p" => OK,
        "k" => Err((0, "unknown sed command `k`")),
        "s/a/b" => Err((0, "unterminated sed `s` command")),
    ]);

    #[test]
    fn deep_nesting_is_a_problem_not_a_crash() {
        let deep = "{".repeat(100_000);
        check(GNU, &deep, Err((256, "sed blocks nested deeper than 256")));
        let fine = format!("{}p{}", "{".repeat(256), "}".repeat(256));
        check(GNU, &fine, OK);
    }

    #[test]
    fn public_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<SedProblem>();
        assert_send_sync::<SedDialect>();
    }

    /// Garbage never panics, offsets stay in bounds on char boundaries, and appending a write
    /// after any accepted script is always caught.
    #[test]
    fn garbage_never_panics_and_writes_are_always_seen() {
        const FRAGMENTS: &[&str] = &[
            "s",
            "y",
            "/",
            "|",
            ",",
            "\\",
            "[",
            "]",
            "^",
            ":",
            ".",
            "=",
            "{",
            "}",
            ";",
            "\n",
            " ",
            "\t",
            "#",
            "!",
            "$",
            "1",
            "0",
            "~",
            "+",
            "a",
            "i",
            "c",
            "e",
            "w",
            "W",
            "r",
            "p",
            "g",
            "I",
            "M",
            "b",
            "t",
            "q",
            "l",
            "v",
            "é",
            "€",
            "\r",
            "\u{b}",
            "f",
            "s/a/b/",
            "[[:alpha:]]",
            "[.",
            ".]",
            ":a",
            "a\\\n",
            "w f",
            "\u{1F600}",
            "\0",
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..100_000 {
            let mut script = String::new();
            for _ in 0..(next() % 12) {
                script.push_str(FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]);
            }
            for dialect in [GNU, POSIX, SANDBOX] {
                if let Err(problem) = check_sed_script(&script, dialect) {
                    assert!(problem.offset <= script.len(), "{script:?}: {problem:?}");
                    assert!(
                        script.is_char_boundary(problem.offset),
                        "{script:?}: {problem:?}"
                    );
                    assert!(!problem.reason.is_empty());
                }
            }
            let trailing_backslashes = script.len() - script.trim_end_matches('\\').len();
            if check_sed_script(&script, GNU).is_ok() && trailing_backslashes.is_multiple_of(2) {
                let with_write = format!("{script}\nw f");
                assert!(
                    check_sed_script(&with_write, GNU).is_err(),
                    "missed the write in {with_write:?}"
                );
            }
        }
    }
}

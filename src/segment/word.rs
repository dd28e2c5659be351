//! segment/word: decodes the words of a command the way bash's quote removal would, and marks
//! the parts bash only knows at run time.
//!
//! It works on text and quoting marks only: it never touches the tree and never decides safety.

use serde::Serialize;

use crate::finding::Span;

/// The kinds of run-time expansion a word contains. A word with none of them is static: its
/// `text` is exactly what bash passes to the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Expansions {
    /// `$x`, `${x…}`, `$1`, `$@`.
    pub parameter: bool,
    /// `$(…)`, `` `…` ``.
    pub command: bool,
    /// `<(…)`, `>(…)`.
    pub process: bool,
    /// `$((…))`, `$[…]`.
    pub arithmetic: bool,
    /// An unquoted `*`, `?` or `[`: pathname expansion.
    pub glob: bool,
}

impl Expansions {
    /// No run-time expansion: a static word.
    pub const NONE: Expansions = Expansions {
        parameter: false,
        command: false,
        process: false,
        arithmetic: false,
        glob: false,
    };
    /// A parameter expansion only (`$x`, `${x…}`). Also what the walker records for text it
    /// could not read (an ERROR node, an unsupported kind, a word past the nesting limit): a
    /// value known only at run time, so no rule can take it for a fixed string.
    pub const PARAMETER: Expansions = Expansions {
        parameter: true,
        ..Expansions::NONE
    };
    /// A command substitution only (`$(…)`, `` `…` ``).
    pub const COMMAND: Expansions = Expansions {
        command: true,
        ..Expansions::NONE
    };
    /// A process substitution only (`<(…)`, `>(…)`).
    pub const PROCESS: Expansions = Expansions {
        process: true,
        ..Expansions::NONE
    };
    /// An arithmetic expansion only (`$((…))`).
    pub const ARITHMETIC: Expansions = Expansions {
        arithmetic: true,
        ..Expansions::NONE
    };
    /// Pathname expansion only (an unquoted `*`, `?` or `[`).
    pub const GLOB: Expansions = Expansions {
        glob: true,
        ..Expansions::NONE
    };

    /// True when bash expands something in the word at run time.
    pub fn any(self) -> bool {
        self.parameter || self.command || self.process || self.arithmetic || self.glob
    }

    /// True when the word holds the output of another command (`$(…)`, `` `…` ``, `<(…)`).
    pub fn substitution(self) -> bool {
        self.command || self.process
    }

    pub(crate) fn merge(&mut self, other: Expansions) {
        self.parameter |= other.parameter;
        self.command |= other.command;
        self.process |= other.process;
        self.arithmetic |= other.arithmetic;
        self.glob |= other.glob;
    }
}

/// One word of a command after quote removal and brace expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// The decoded text. Run-time parts keep their source text (`$HOME` stays `$HOME`).
    pub text: String,
    /// Where the word is in the command. Words from one brace expansion share a span.
    pub span: Span,
    /// What bash expands at run time; all false for a static word.
    #[serde(skip_serializing_if = "is_static")]
    pub expansions: Expansions,
    /// True when any part of the word was quoted or escaped.
    #[serde(skip_serializing_if = "is_false")]
    pub quoted: bool,
}

fn is_static(e: &Expansions) -> bool {
    !e.any()
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Word {
    /// True when bash would pass exactly `text`.
    pub fn is_static(&self) -> bool {
        !self.expansions.any()
    }

    /// The word's text when it is static.
    pub fn static_text(&self) -> Option<&str> {
        self.is_static().then_some(self.text.as_str())
    }
}

/// A word under construction: text plus, per byte, whether the byte came from a quoted or
/// escaped context (brace expansion and globbing only see unquoted bytes).
#[derive(Debug, Default, Clone)]
pub(crate) struct WordBuf {
    pub text: String,
    pub quoted_mask: Vec<bool>,
    pub expansions: Expansions,
    pub quoted: bool,
}

impl WordBuf {
    pub fn push_quoted(&mut self, s: &str) {
        self.text.push_str(s);
        self.quoted_mask.extend(std::iter::repeat_n(true, s.len()));
        self.quoted = true;
    }

    pub fn push_unquoted(&mut self, s: &str) {
        self.text.push_str(s);
        self.quoted_mask.extend(std::iter::repeat_n(false, s.len()));
    }

    fn push_char(&mut self, c: char, quoted: bool) {
        let mut b = [0u8; 4];
        let s = c.encode_utf8(&mut b);
        if quoted {
            self.push_quoted(s)
        } else {
            self.push_unquoted(s)
        }
    }

    /// Source text of a run-time expansion: kept verbatim, counted as quoted so brace
    /// expansion does not look inside it.
    pub fn push_expansion(&mut self, raw: &str, kind: Expansions) {
        self.text.push_str(raw);
        self.quoted_mask
            .extend(std::iter::repeat_n(true, raw.len()));
        self.expansions.merge(kind);
    }

    /// Appends an unquoted bash word (a tree-sitter `word` leaf): backslash escapes are removed,
    /// unquoted glob characters are noted.
    pub fn push_bare(&mut self, raw: &str) {
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    // A line continuation disappears entirely.
                    Some('\n') => {}
                    Some(n) => {
                        self.quoted = true;
                        self.push_char(n, true);
                    }
                    // A trailing lone backslash is literal.
                    None => self.push_char('\\', true),
                },
                '*' | '?' | '[' => {
                    self.expansions.glob = true;
                    self.push_char(c, false);
                }
                _ => self.push_char(c, false),
            }
        }
    }

    /// Appends the content of a double-quoted string part: inside `"…"` a backslash only
    /// escapes `$`, `` ` ``, `"`, `\` and newline.
    pub fn push_double_quoted(&mut self, raw: &str) {
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.peek() {
                    Some('\n') => {
                        chars.next();
                    }
                    Some(&n @ ('$' | '`' | '"' | '\\')) => {
                        chars.next();
                        out.push(n);
                    }
                    _ => out.push('\\'),
                }
            } else {
                out.push(c);
            }
        }
        self.push_quoted(&out);
    }

    /// Appends a `$'…'` string (the raw text includes `$'` and `'`), decoding ANSI-C escapes.
    pub fn push_ansi_c(&mut self, raw: &str) {
        let inner = raw
            .strip_prefix("$'")
            .and_then(|s| s.strip_suffix('\''))
            .unwrap_or(raw);
        match decode_ansi_c(inner) {
            Ok(text) => self.push_quoted(&text),
            // Bytes that are not UTF-8: the word's real text cannot be written down here.
            Err(lossy) => self.push_expansion(&lossy, Expansions::PARAMETER),
        }
    }

    pub fn finish(self, span: Span) -> Word {
        Word {
            text: self.text,
            span,
            expansions: self.expansions,
            quoted: self.quoted,
        }
    }
}

/// Decodes the escapes bash honours inside `$'…'`. A NUL ends the string, as in bash. `Err`
/// (with a lossy rendering) when the result is not UTF-8 or uses an escape bash turns into
/// bytes cmdguard does not model.
pub(crate) fn decode_ansi_c(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    // Bytes are collected and converted once so `\xHH` sequences that form UTF-8 survive.
    let mut bytes: Vec<u8> = Vec::with_capacity(s.len());
    let mut exact = true;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            bytes.push(b[i]);
            i += 1;
            continue;
        }
        let e = b[i + 1];
        i += 2;
        let simple = match e {
            b'a' => Some(7),
            b'b' => Some(8),
            b'e' | b'E' => Some(27),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'?' => Some(b'?'),
            _ => None,
        };
        if let Some(v) = simple {
            bytes.push(v);
            continue;
        }
        match e {
            b'0'..=b'7' => {
                let mut v: u32 = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                bytes.push((v & 0xff) as u8);
            }
            // bash 5.2's braced form `\x{HH…}`: every hex digit after the brace counts, the
            // byte is the value's low eight bits (`\x{4142}` is `B`), a `}` right after the
            // digits is dropped, and no digit at all is a NUL, which ends the string
            // (`\x{zz}` vanishes with the rest). Checked against bash 5.2.15.
            b'x' if b.get(i) == Some(&b'{') => {
                i += 1;
                let mut v: u8 = 0;
                while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(16)) {
                    v = v.wrapping_mul(16).wrapping_add(d as u8);
                    i += 1;
                }
                if b.get(i) == Some(&b'}') {
                    i += 1;
                }
                bytes.push(v);
            }
            b'x' => {
                let (v, used) = hex_prefix(&b[i..], 2);
                if used == 0 {
                    bytes.extend_from_slice(b"\\x");
                } else {
                    bytes.push(v as u8);
                    i += used;
                }
            }
            b'u' | b'U' => {
                let (v, used) = hex_prefix(&b[i..], if e == b'u' { 4 } else { 8 });
                match (used, char::from_u32(v)) {
                    (0, _) => {
                        bytes.push(b'\\');
                        bytes.push(e);
                    }
                    // A surrogate or a value past U+10FFFF: bash writes bytes of its own.
                    (_, None) => exact = false,
                    (_, Some(c)) => {
                        let mut tmp = [0u8; 4];
                        bytes.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                        i += used;
                    }
                }
            }
            b'c' if i < b.len() => {
                if b[i] == b'\\' || !matches!(b[i], b'@'..=b'_' | b'a'..=b'z') {
                    // `\c\\`, `\c?` and friends have special cases in bash.
                    exact = false;
                }
                bytes.push(b[i] & 0x1f);
                i += 1;
            }
            _ => {
                bytes.push(b'\\');
                bytes.push(e);
            }
        }
    }
    if let Some(nul) = bytes.iter().position(|b| *b == 0) {
        bytes.truncate(nul);
    }
    match String::from_utf8(bytes) {
        Ok(text) if exact => {
            out.push_str(&text);
            Ok(out)
        }
        Ok(text) => Err(text),
        Err(e) => Err(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

fn hex_prefix(b: &[u8], max: usize) -> (u32, usize) {
    let mut v = 0u32;
    let mut used = 0;
    while used < max && used < b.len() {
        let d = match b[used] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        v = v * 16 + u32::from(d);
        used += 1;
    }
    (v, used)
}

/// Brace-expands a word (`a{b,c}` → `ab ac`, `{1..3}`), looking only at unquoted braces.
/// Returns `None` when the expansion would produce more than `limit` words or `max_bytes`
/// bytes of text, or nests braces deeper than [`MAX_BRACE_DEPTH`].
///
/// The word is read once into a tree of literal runs and alternatives, which is then multiplied
/// out: the work is linear in the word plus what it expands to, however many braces are left
/// unclosed.
pub(crate) fn brace_expand(
    buf: &WordBuf,
    limit: usize,
    max_bytes: usize,
) -> Option<Vec<(String, Vec<bool>)>> {
    let braces = Braces::scan(&buf.text, &buf.quoted_mask);
    let mut next = 0;
    let tree = braces.parse(0, buf.text.len(), &mut next, limit, 0)?;
    let mut total = 0;
    expand(
        &tree,
        &buf.text,
        &buf.quoted_mask,
        limit,
        max_bytes,
        &mut total,
    )
}

type Piece = (String, Vec<bool>);

/// Deepest nesting of brace alternatives expanded (`{a,{b,{c,…}}}`).
pub(crate) const MAX_BRACE_DEPTH: usize = 32;

/// One part of a word, as brace expansion sees it.
enum Part {
    /// Bytes of the word, as they are.
    Literal(usize, usize),
    /// `{x,y,…}`: each alternative is itself a sequence of parts.
    Alternatives(Vec<Vec<Part>>),
    /// `{1..3}`: the words of a sequence expression.
    Sequence(Vec<String>),
}

/// The unquoted braces of a word, matched in one pass: for each `{`, its `}` (if any), the
/// commas directly inside it, and whether another `{` is inside it.
struct Braces<'t> {
    text: &'t str,
    mask: &'t [bool],
    /// Positions of the unquoted `{`, in order.
    opens: Vec<usize>,
    /// For each of `opens`: the matching `}`.
    close: Vec<Option<usize>>,
    /// For each of `opens`: the unquoted commas at its own level.
    commas: Vec<Vec<usize>>,
    /// For each of `opens`: whether another `{` is inside.
    nested: Vec<bool>,
}

impl<'t> Braces<'t> {
    fn scan(text: &'t str, mask: &'t [bool]) -> Braces<'t> {
        let mut b = Braces {
            text,
            mask,
            opens: Vec::new(),
            close: Vec::new(),
            commas: Vec::new(),
            nested: Vec::new(),
        };
        // Indices into `opens` of the braces not closed yet, innermost last.
        let mut stack: Vec<usize> = Vec::new();
        for (i, &c) in text.as_bytes().iter().enumerate() {
            if !b.unquoted(i) {
                continue;
            }
            match c {
                b'{' => {
                    if let Some(&outer) = stack.last() {
                        b.nested[outer] = true;
                    }
                    stack.push(b.opens.len());
                    b.opens.push(i);
                    b.close.push(None);
                    b.commas.push(Vec::new());
                    b.nested.push(false);
                }
                b'}' => {
                    if let Some(k) = stack.pop() {
                        b.close[k] = Some(i);
                    }
                }
                b',' => {
                    if let Some(&k) = stack.last() {
                        b.commas[k].push(i);
                    }
                }
                _ => {}
            }
        }
        b
    }

    fn unquoted(&self, i: usize) -> bool {
        !self.mask.get(i).copied().unwrap_or(true)
    }

    /// The parts of `text[from..to]`. `next` is the index into `opens` of the first brace not
    /// looked at yet; braces inside an expanded one are left to the recursion over its
    /// alternatives. Brace expressions one after another are read in a loop, nested ones by
    /// recursion at most [`MAX_BRACE_DEPTH`] deep. `None` past that depth, or when a sequence
    /// expression has more than `limit` words.
    fn parse(
        &self,
        from: usize,
        to: usize,
        next: &mut usize,
        limit: usize,
        depth: usize,
    ) -> Option<Vec<Part>> {
        if depth > MAX_BRACE_DEPTH {
            return None;
        }
        let mut parts = Vec::new();
        let mut cur = from;
        while let Some(&open) = self.opens.get(*next).filter(|&&o| o < to) {
            let k = *next;
            *next += 1;
            if open < cur {
                continue;
            }
            let Some(close) = self.close[k].filter(|&c| c < to) else {
                continue;
            };
            let part = if !self.commas[k].is_empty() {
                let mut alts = Vec::with_capacity(self.commas[k].len() + 1);
                let mut start = open + 1;
                for &c in self.commas[k].iter().chain(std::iter::once(&close)) {
                    alts.push(self.parse(start, c, next, limit, depth + 1)?);
                    start = c + 1;
                }
                Part::Alternatives(alts)
            } else if !self.nested[k] && (open + 1..close).all(|i| self.unquoted(i)) {
                // A sequence expression: bash expands it only when nothing in it is quoted.
                match sequence_expand(&self.text[open + 1..close], limit) {
                    Some(Ok(items)) => Part::Sequence(items),
                    Some(Err(())) => return None,
                    None => continue,
                }
            } else {
                continue;
            };
            if open > cur {
                parts.push(Part::Literal(cur, open));
            }
            parts.push(part);
            cur = close + 1;
            // Skip the braces inside this one that its alternatives did not reach.
            while self.opens.get(*next).is_some_and(|&o| o < cur) {
                *next += 1;
            }
        }
        if to > cur {
            parts.push(Part::Literal(cur, to));
        }
        Some(parts)
    }
}

/// Multiplies out `parts`: every combination, left to right, as bash orders them. `total`
/// counts the bytes produced; `None` past `limit` words or `max_bytes` bytes.
fn expand(
    parts: &[Part],
    text: &str,
    mask: &[bool],
    limit: usize,
    max_bytes: usize,
    total: &mut usize,
) -> Option<Vec<Piece>> {
    let mut acc: Vec<Piece> = vec![(String::new(), Vec::new())];
    for part in parts {
        let options: Vec<Piece> = match part {
            Part::Literal(a, b) => {
                *total = total.saturating_add(acc.len().saturating_mul(b - a));
                if *total > max_bytes {
                    return None;
                }
                for (t, m) in &mut acc {
                    t.push_str(&text[*a..*b]);
                    m.extend_from_slice(&mask[*a..*b]);
                }
                continue;
            }
            Part::Sequence(items) => items
                .iter()
                .map(|t| (t.clone(), vec![false; t.len()]))
                .collect(),
            Part::Alternatives(alts) => {
                let mut all = Vec::new();
                for alt in alts {
                    all.extend(expand(alt, text, mask, limit, max_bytes, total)?);
                    if all.len() > limit {
                        return None;
                    }
                }
                all
            }
        };
        if acc.len().saturating_mul(options.len()) > limit {
            return None;
        }
        let mut next = Vec::with_capacity(acc.len() * options.len());
        for (t, m) in &acc {
            for (ot, om) in &options {
                *total = total.saturating_add(t.len() + ot.len());
                if *total > max_bytes {
                    return None;
                }
                let mut nt = String::with_capacity(t.len() + ot.len());
                nt.push_str(t);
                nt.push_str(ot);
                let mut nm = Vec::with_capacity(nt.len());
                nm.extend_from_slice(m);
                nm.extend_from_slice(om);
                next.push((nt, nm));
            }
        }
        acc = next;
    }
    Some(acc)
}

/// Expands a `{a..b[..step]}` sequence of integers or single letters the way bash does, or
/// returns `None` when it is not one (bash then leaves the text as it is).
pub(crate) fn sequence_expand(inner: &str, limit: usize) -> Option<Result<Vec<String>, ()>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse().ok()?,
        None => 1,
    };
    let step = step.unsigned_abs().max(1) as i64;
    let (a, b) = (parts[0], parts[1]);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let n = (x.abs_diff(y) / step as u64) + 1;
        if n > limit as u64 {
            return Some(Err(()));
        }
        let width = if (a.starts_with('0') && a.len() > 1) || (b.starts_with('0') && b.len() > 1) {
            a.len().max(b.len())
        } else {
            0
        };
        let dir = if y >= x { step } else { -step };
        let mut v = Vec::with_capacity(n as usize);
        let mut cur = x;
        for _ in 0..n {
            v.push(format!("{cur:0width$}"));
            cur += dir;
        }
        return Some(Ok(v));
    }
    let (ca, cb) = (single_char(a)?, single_char(b)?);
    let (x, y) = (ca as i64, cb as i64);
    let n = (x.abs_diff(y) / step as u64) + 1;
    let dir = if y >= x { step } else { -step };
    let mut v = Vec::with_capacity(n as usize);
    let mut cur = x;
    for _ in 0..n {
        let c = char::from_u32(cur as u32)?;
        // `{Z..a}` passes `[ \ ] ^ _ \``; bash then removes the backslash as a quote. Rather
        // than model that, such a range is refused like an oversized one.
        if !c.is_ascii_alphanumeric() {
            return Some(Err(()));
        }
        v.push(c.to_string());
        cur += dir;
    }
    Some(Ok(v))
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare(s: &str) -> WordBuf {
        let mut w = WordBuf::default();
        w.push_bare(s);
        w
    }

    #[test]
    fn backslashes_are_removed_from_bare_words() {
        assert_eq!(bare(r"l\s").text, "ls");
        assert_eq!(bare("a\\\nb").text, "ab");
        assert!(bare(r"\*").expansions.glob.eq(&false));
        assert!(bare("*.rs").expansions.glob);
    }

    #[test]
    fn ansi_c_escapes_decode_like_bash() {
        let ok = |s: &str| decode_ansi_c(s).unwrap();
        assert_eq!(ok(r"a\tb"), "a\tb");
        assert_eq!(ok(r"\x72\x6d"), "rm");
        assert_eq!(ok(r"\162\155"), "rm");
        assert_eq!(ok(r"\u00e9"), "é");
        assert_eq!(ok(r"\q"), "\\q");
        assert_eq!(ok(r"\'"), "'");
        // A NUL ends the string, as bash ends it.
        assert_eq!(ok(r"sub\c@/x"), "sub");
        assert_eq!(ok(r"a\x00b"), "a");
        // bash 5.2's braced hex: all digits count, low byte kept, `}` dropped, none is a NUL.
        assert_eq!(ok(r"#\x{0a}rm"), "#\nrm");
        assert_eq!(ok(r"\x{41}B"), "AB");
        assert_eq!(ok(r"\x{4142}"), "B");
        assert_eq!(ok(r"\x{41}}"), "A}");
        assert_eq!(ok(r"\x{4g}"), "\u{4}g}");
        assert_eq!(ok(r"\x{41"), "A");
        assert_eq!(ok(r"a\x{zz}q"), "a");
        assert_eq!(ok(r"\x{00000041}"), "A");
        // Bytes that are not UTF-8, and escapes bash turns into bytes of its own.
        assert!(decode_ansi_c(r"s\xe9").is_err());
        assert!(decode_ansi_c(r"\351").is_err());
        assert!(decode_ansi_c(r"\uDC00").is_err());
        assert!(decode_ansi_c(r"\c\\").is_err());
    }

    #[test]
    fn brace_expansion_only_sees_unquoted_braces() {
        let words = brace_expand(&bare("{-rf,/}"), 100, 1 << 20).unwrap();
        let texts: Vec<_> = words.into_iter().map(|w| w.0).collect();
        assert_eq!(texts, ["-rf", "/"]);
        let mut q = WordBuf::default();
        q.push_quoted("{a,b}");
        assert_eq!(brace_expand(&q, 100, 1 << 20).unwrap().len(), 1);
        let nested: Vec<_> = brace_expand(&bare("x{a,b{c,d}}y"), 100, 1 << 20)
            .unwrap()
            .into_iter()
            .map(|w| w.0)
            .collect();
        assert_eq!(nested, ["xay", "xbcy", "xbdy"]);
        assert!(brace_expand(&bare("{a,b}{c,d}{e,f}"), 4, 1 << 20).is_none());
    }

    #[test]
    fn sequences_expand_like_bash() {
        assert_eq!(
            sequence_expand("1..3", 10),
            Some(Ok(vec!["1".into(), "2".into(), "3".into()]))
        );
        assert_eq!(
            sequence_expand("a..c", 10),
            Some(Ok(vec!["a".into(), "b".into(), "c".into()]))
        );
        assert_eq!(sequence_expand("1..1000", 10), Some(Err(())));
        assert_eq!(sequence_expand("x", 10), None);
    }
}

//! repo/config: git's config file syntax, read the way git reads it, without running git.
//!
//! ```text
//! [core]                      # section
//!     fsmonitor = ./watch.sh  # variable: name = value
//! [diff "img"]                # section with a subsection (case-sensitive)
//!     textconv = "exif -q"    # quotes, escapes \" \\ \n \t \b, `\` at line end continues
//! [pager] log                 # a bare name is boolean true; `[a.b]` is the old subsection form
//! ```
//!
//! Anything git would reject is an error with its line, never a guess: a file cmdguard cannot
//! read is a file whose keys it cannot vouch for.

/// One `name = value` line, with the section it sits in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variable {
    /// Section name, lower-cased (`core`).
    pub section: String,
    /// Subsection as written (`img` in `[diff "img"]`), if any.
    pub subsection: Option<String>,
    /// Variable name, lower-cased (`textconv`).
    pub name: String,
    /// The value; `None` for a bare name (boolean true).
    pub value: Option<String>,
    /// 1-based line where the variable starts.
    pub line: usize,
}

impl Variable {
    /// The key as git prints it: `diff.img.textconv`.
    pub fn key(&self) -> String {
        match &self.subsection {
            Some(sub) => format!("{}.{sub}.{}", self.section, self.name),
            None => format!("{}.{}", self.section, self.name),
        }
    }
}

/// Why a config file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub message: String,
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            line: self.line,
            message: message.into(),
        })
    }

    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.bump();
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == b'\n' {
                break;
            }
        }
    }
}

/// Parses a whole config file.
pub(crate) fn parse(text: &[u8]) -> Result<Vec<Variable>, SyntaxError> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let mut c = Cursor {
        s: text,
        i: 0,
        line: 1,
    };
    let mut section: Option<(String, Option<String>)> = None;
    let mut out = Vec::new();
    loop {
        c.skip_blank();
        match c.peek() {
            None => return Ok(out),
            Some(b'\n') => {
                c.bump();
            }
            Some(b'#' | b';') => c.skip_line(),
            Some(b'[') => {
                c.bump();
                section = Some(header(&mut c)?);
                // git reads a variable on the same line as its header.
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let Some((sec, sub)) = &section else {
                    return c.error("a variable before any [section]");
                };
                let line = c.line;
                let mut name = String::new();
                while let Some(b) = c.peek() {
                    if b.is_ascii_alphanumeric() || b == b'-' {
                        name.push(char::from(b.to_ascii_lowercase()));
                        c.bump();
                    } else {
                        break;
                    }
                }
                c.skip_blank();
                let value = match c.peek() {
                    Some(b'=') => {
                        c.bump();
                        Some(value(&mut c)?)
                    }
                    None | Some(b'\n' | b'#' | b';') => {
                        c.skip_line();
                        None
                    }
                    Some(_) => return c.error(format!("unexpected text after `{name}`")),
                };
                out.push(Variable {
                    section: sec.clone(),
                    subsection: sub.clone(),
                    name,
                    value,
                    line,
                });
            }
            Some(_) => {
                return c.error("a line that is neither a section, a variable nor a comment");
            }
        }
    }
}

/// After `[`: `name]`, `name "sub"]` or the old `name.sub]`.
fn header(c: &mut Cursor<'_>) -> Result<(String, Option<String>), SyntaxError> {
    let mut name = String::new();
    loop {
        match c.bump() {
            Some(b']') => {
                // `[a.b]`: the part after the first dot is a (lower-cased) subsection.
                return Ok(match name.split_once('.') {
                    Some((s, sub)) => (s.to_string(), Some(sub.to_string())),
                    None => (name, None),
                });
            }
            Some(b) if b.is_ascii_alphanumeric() || b == b'-' || b == b'.' => {
                name.push(char::from(b.to_ascii_lowercase()));
            }
            Some(b' ' | b'\t') => break,
            _ => return c.error("a malformed [section] header"),
        }
    }
    c.skip_blank();
    if c.bump() != Some(b'"') {
        return c.error("a malformed [section \"subsection\"] header");
    }
    let mut sub = Vec::new();
    loop {
        match c.bump() {
            None | Some(b'\n') => return c.error("an unterminated subsection name"),
            Some(b'"') => break,
            Some(b'\\') => match c.bump() {
                None | Some(b'\n') => return c.error("an unterminated subsection name"),
                Some(b) => sub.push(b),
            },
            Some(b) => sub.push(b),
        }
    }
    if c.bump() != Some(b']') {
        return c.error("text after the subsection name in a header");
    }
    let sub = String::from_utf8_lossy(&sub).into_owned();
    // git joins `[diff.a "b"]` into the key `diff.a.b.*`, and a key's section ends at its
    // first dot: the section is `diff`, the subsection `a.b`.
    Ok(match name.split_once('.') {
        Some((section, rest)) => (section.to_string(), Some(format!("{rest}.{sub}"))),
        None => (name, Some(sub)),
    })
}

/// After `=`: the rest of the logical line, with quotes, escapes and continuations.
fn value(c: &mut Cursor<'_>) -> Result<String, SyntaxError> {
    let start = c.line;
    let unterminated = || SyntaxError {
        line: start,
        message: "an unterminated quoted value".into(),
    };
    let mut out = Vec::new();
    let mut quoted = false;
    // Whitespace is kept only when something follows it on the line.
    let mut pending_space = 0;
    c.skip_blank();
    loop {
        let Some(b) = c.bump() else {
            if quoted {
                return Err(unterminated());
            }
            break;
        };
        match b {
            b'\n' if quoted => return Err(unterminated()),
            b'\n' => break,
            b'#' | b';' if !quoted => {
                c.skip_line();
                break;
            }
            b' ' | b'\t' if !quoted => pending_space += 1,
            b'\r' if !quoted && c.peek() == Some(b'\n') => {}
            _ => {
                out.extend(std::iter::repeat_n(b' ', pending_space));
                pending_space = 0;
                match b {
                    b'"' => quoted = !quoted,
                    b'\\' => match c.bump() {
                        Some(b'\n') => {}
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        // git stores a backspace character; it does not delete one.
                        Some(b'b') => out.push(b'\x08'),
                        Some(b'\\') => out.push(b'\\'),
                        Some(b'"') => out.push(b'"'),
                        _ => return c.error("a bad escape sequence in a value"),
                    },
                    _ => out.push(b),
                }
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, Option<String>)> {
        parse(text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|v| (v.key(), v.value))
            .collect()
    }

    #[test]
    fn reads_sections_subsections_and_values() {
        let text = "# c\n[core]\n\tFsMonitor = ./x.sh ; trailing\n[diff \"Img\"]\n textconv = \"exif  -q\" \n[pager] log\n[Branch.Main]\nremote=origin\n[diff.a \"B\"]\ntextconv = x\\b\n";
        assert_eq!(
            keys(text),
            [
                ("core.fsmonitor".into(), Some("./x.sh".into())),
                ("diff.Img.textconv".into(), Some("exif  -q".into())),
                ("pager.log".into(), None),
                ("branch.main.remote".into(), Some("origin".into())),
                ("diff.a.B.textconv".into(), Some("x\u{8}".into())),
            ]
        );
    }

    #[test]
    fn values_follow_git_escapes_and_continuations() {
        let text = "[a]\nb = one \\\n two\nc = \"x # y\" # z\nd = q\\\"r\\\\s\ne\n";
        assert_eq!(
            keys(text),
            [
                ("a.b".into(), Some("one  two".into())),
                ("a.c".into(), Some("x # y".into())),
                ("a.d".into(), Some("q\"r\\s".into())),
                ("a.e".into(), None),
            ]
        );
    }

    #[test]
    fn rejects_what_git_rejects() {
        for bad in [
            "fsmonitor = x\n",
            "[core\nfsmonitor = x\n",
            "[core]\nfsmonitor = \"x\n",
            "[core]\nfsmonitor = \\q\n",
            "[core]\n=x\n",
            "[diff \"a]\n",
        ] {
            let e = parse(bad.as_bytes()).unwrap_err();
            assert!(e.line >= 1, "{bad:?}");
        }
        assert_eq!(parse(b"[a]\nb = 1\n\n[c \"x]").unwrap_err().line, 4);
    }

    proptest::proptest! {
        /// Whatever the bytes, the parser returns values or an error on a line that exists.
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            if let Err(e) = parse(&data) {
                proptest::prop_assert!(e.line >= 1 && e.line <= data.iter().filter(|b| **b == b'\n').count() + 1);
            }
        }

        /// Built from git's own grammar pieces, so the parser's deeper states are reached.
        #[test]
        fn never_panics_on_config_like_text(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "[core]", "[diff \"x\"]", "[a.b]", "\n", "\t", " ", "fsmonitor", "=", "\"", "\\",
                "\\\n", "#", ";", "x", "]", "[", "path", "\\n", "\\t", "\\b", "\r",
            ]),
            0..64,
        )) {
            let _ = parse(parts.concat().as_bytes());
        }
    }
}

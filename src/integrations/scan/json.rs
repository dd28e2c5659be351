//! scan/json: a small JSON reader that keeps, for every string, the file offset each decoded
//! byte came from — what `package.json` scripts and Dockerfile exec forms need to report a
//! finding at its column. It only reads; it never decides anything.

/// A JSON value with the places of its strings.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// An object's members in file order (duplicates kept).
    Object(Vec<(Str, Value)>),
    /// An array's items.
    Array(Vec<Value>),
    /// A string.
    Str(Str),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

/// A decoded JSON string and where each of its bytes was written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Str {
    /// The decoded text.
    pub value: String,
    /// For each byte of `value`, the file offset of the character (or escape) it came from.
    pub origin: Vec<usize>,
    /// The offset of the opening quote.
    pub start: usize,
    /// One past the closing quote.
    pub end: usize,
}

/// A syntax error at a byte offset.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Error {
    pub offset: usize,
    pub message: String,
}

/// Parses `text` from `start` as one JSON value followed by nothing but white space.
pub(super) fn parse(text: &str, start: usize) -> Result<Value, Error> {
    let mut r = Reader { text, pos: start };
    let v = r.value(0)?;
    r.ws();
    if r.pos < text.len() {
        return Err(r.error("unexpected text after the JSON value"));
    }
    Ok(v)
}

/// Nesting deeper than this is refused rather than recursed into.
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: &str) -> Error {
        Error {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Result<(), Error> {
        self.ws();
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", b as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    let v = self.value(depth + 1)?;
                    members.push((key, v));
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Value::Object(members));
                        }
                        _ => return Err(self.error("expected `,` or `}`")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(self.error("expected `,` or `]`")),
                    }
                }
            }
            Some(b'"') => self.string().map(Value::Str),
            Some(b't' | b'f' | b'n' | b'-' | b'0'..=b'9') => {
                let rest = &self.text[self.pos..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
                    .unwrap_or(rest.len());
                let word = &rest[..len];
                let ok = matches!(word, "true" | "false" | "null") || word.parse::<f64>().is_ok();
                if !ok {
                    return Err(self.error(&format!("unexpected `{word}`")));
                }
                self.pos += len;
                Ok(Value::Scalar)
            }
            _ => Err(self.error("expected a JSON value")),
        }
    }

    fn string(&mut self) -> Result<Str, Error> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string"));
        }
        self.pos += 1;
        let mut value = String::new();
        let mut origin = Vec::new();
        loop {
            let at = self.pos;
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.error("unterminated string"));
            };
            self.pos += c.len_utf8();
            let decoded = match c {
                '"' => {
                    return Ok(Str {
                        value,
                        origin,
                        start,
                        end: self.pos,
                    });
                }
                '\\' => {
                    let e = self
                        .peek()
                        .ok_or_else(|| self.error("unterminated string"))?;
                    self.pos += 1;
                    match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.error("invalid escape")),
                    }
                }
                c if (c as u32) < 0x20 => return Err(self.error("control character in string")),
                c => c,
            };
            value.push(decoded);
            origin.extend(std::iter::repeat_n(at, decoded.len_utf8()));
        }
    }

    /// The character of a `\uXXXX` escape (the `\u` already read), surrogate pairs joined; a
    /// lone surrogate becomes U+FFFD as JavaScript's JSON.parse keeps it unpaired.
    fn unicode_escape(&mut self) -> Result<char, Error> {
        let hex = |r: &mut Self| -> Result<u32, Error> {
            let h = r
                .text
                .get(r.pos..r.pos + 4)
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or_else(|| r.error("invalid \\u escape"))?;
            r.pos += 4;
            Ok(h)
        };
        let hi = hex(self)?;
        if (0xD800..0xDC00).contains(&hi) && self.text[self.pos..].starts_with("\\u") {
            let save = self.pos;
            self.pos += 2;
            let lo = hex(self)?;
            if (0xDC00..0xE000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            self.pos = save;
        }
        Ok(char::from_u32(hi).unwrap_or('\u{FFFD}'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_remember_where_each_byte_was_written() {
        let text = r#"{"a": "x\ty\u00e9"}"#;
        let Ok(Value::Object(members)) = parse(text, 0) else {
            panic!("not an object")
        };
        let Value::Str(s) = &members[0].1 else {
            panic!("not a string")
        };
        assert_eq!(s.value, "x\tyé");
        assert_eq!(s.origin, [7, 8, 10, 11, 11]);
        assert_eq!((s.start, s.end), (6, 18));
    }

    #[test]
    fn syntax_errors_say_where() {
        let table = [
            ("{\"a\": }", 6),
            ("[1, 2", 5),
            ("{\"a\": \"b\"} x", 11),
            ("\"\\q\"", 3),
        ];
        for (text, offset) in table {
            assert_eq!(parse(text, 0).map_err(|e| e.offset), Err(offset), "{text}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(10_000);
        assert!(parse(&text, 0).is_err());
    }
}

//! input: stage 0 — looks at the raw text before anything parses it: bytes that are not UTF-8,
//! NUL, control characters and look-alike spaces that bash reads differently from a parser, and
//! the size limits that keep the parser's work bounded.
//!
//! It never parses and never decides a verdict: it reports findings with their codes' default
//! severities, and says whether the text may go on to the parser at all.

use std::borrow::Cow;

use crate::finding::{Code, Finding, Span};
use crate::limits::Limits;

/// Whether the text may be parsed after the input checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Parse it (the findings, if any, still stand).
    Parse,
    /// Too large to parse safely: only the deny rules' text patterns may look at it.
    Refuse,
}

/// Decodes `bytes` as bash would have to read them: invalid UTF-8 becomes U+FFFD in the text
/// analysed and a finding at the first bad byte (spans index the decoded text).
pub(crate) fn decode(bytes: &[u8]) -> (Cow<'_, str>, Option<Finding>) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (Cow::Borrowed(s), None),
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let at = e.valid_up_to();
            let span = Span::new(at, (at + '\u{fffd}'.len_utf8()).min(lossy.len()));
            let finding = Finding::new(
                Code::InvalidInput,
                span,
                format!(
                    "the command is not valid UTF-8 (byte {at}); bash would read bytes cmdguard cannot"
                ),
            );
            (Cow::Owned(lossy), Some(finding))
        }
    }
}

/// Checks `cmd` before parsing, pushing a finding for each problem, and says whether it may
/// be parsed.
pub(crate) fn check(cmd: &str, limits: &Limits, findings: &mut Vec<Finding>) -> Admission {
    let whole = Span::new(0, cmd.len());
    if cmd.len() > limits.max_bytes {
        findings.push(Finding::new(
            Code::LimitExceeded,
            whole,
            format!(
                "the command is {} bytes, over the limit of {}",
                cmd.len(),
                limits.max_bytes
            ),
        ));
        return Admission::Refuse;
    }
    if let Some(p) = cmd.find('\0') {
        findings.push(Finding::new(
            Code::InvalidInput,
            Span::new(p, p + 1),
            "the command holds a NUL byte, where bash stops reading",
        ));
    }
    if let Some((p, c)) = cmd.char_indices().find(|&(_, c)| {
        (c.is_control() && !matches!(c, '\n' | '\t' | '\0')) || is_lookalike_space(c)
    }) {
        findings.push(Finding::new(
            Code::InvalidInput,
            Span::new(p, p + c.len_utf8()),
            format!(
                "the command holds {c:?}, which bash reads as part of a word while a parser may not"
            ),
        ));
    }
    let pipes = cmd.bytes().filter(|b| *b == b'|').count();
    if pipes > limits.max_pipes {
        findings.push(Finding::new(
            Code::LimitExceeded,
            whole,
            format!(
                "the command has {pipes} `|` characters, over the limit of {}",
                limits.max_pipes
            ),
        ));
        return Admission::Refuse;
    }
    Admission::Parse
}

/// Characters that look like spaces but that bash reads as part of a word.
fn is_lookalike_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200b}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case: the command, whether it may be parsed, and the findings' codes and spans.
    type Case = (&'static str, Admission, &'static [(Code, Span)]);

    fn run(cmd: &str, limits: &Limits) -> (Admission, Vec<(Code, Span)>) {
        let mut findings = Vec::new();
        let admission = check(cmd, limits, &mut findings);
        (
            admission,
            findings.iter().map(|f| (f.code, f.span)).collect(),
        )
    }

    #[test]
    fn input_checks_table() {
        let small = Limits {
            max_bytes: 16,
            max_pipes: 2,
            ..Limits::default()
        };
        let cases: &[Case] = &[
            ("ls -la", Admission::Parse, &[]),
            ("ls\tx\ny", Admission::Parse, &[]),
            (
                "ls\0x",
                Admission::Parse,
                &[(Code::InvalidInput, Span { start: 2, end: 3 })],
            ),
            (
                "ls\u{a0}-la",
                Admission::Parse,
                &[(Code::InvalidInput, Span { start: 2, end: 4 })],
            ),
            (
                "ls\x1b[0m",
                Admission::Parse,
                &[(Code::InvalidInput, Span { start: 2, end: 3 })],
            ),
            (
                "a | b | c | d",
                Admission::Refuse,
                &[(Code::LimitExceeded, Span { start: 0, end: 13 })],
            ),
            (
                "echo 0123456789abcdef",
                Admission::Refuse,
                &[(Code::LimitExceeded, Span { start: 0, end: 21 })],
            ),
        ];
        for (cmd, admission, want) in cases {
            assert_eq!(run(cmd, &small), (*admission, want.to_vec()), "{cmd:?}");
        }
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let (text, finding) = decode(b"ls \xff\xfe");
        assert_eq!(text, "ls \u{fffd}\u{fffd}");
        let f = finding.unwrap();
        assert_eq!((f.code, f.span), (Code::InvalidInput, Span::new(3, 6)));
        assert!(decode(b"ls").1.is_none());
    }
}

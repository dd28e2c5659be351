//! check/args: reads a command's arguments the way its option parser would (GNU getopt bundles,
//! attached values, `--long=value`, unambiguous long prefixes, `--`, or whole-word options like
//! `find`'s), so rules can ask "is option X present?" on decoded words, never on raw text.
//!
//! It never decides safety by itself; rules in `check` interpret what it finds.

use crate::allowlist::{OptionSpec, Style};
use crate::segment::Word;

/// One argument as the program's option parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg<'w> {
    /// An option as written after splitting bundles (`-n`, `--in-place`), its value when it
    /// took one, and the index of the word it came from.
    Opt {
        name: String,
        value: Option<&'w str>,
        word: usize,
    },
    /// A non-option word.
    Operand { text: &'w str, word: usize },
    /// A word known only at run time: it could be an option or an operand.
    Dynamic { word: usize },
}

/// True when `written` (`--in-pl`) names `option` (`--in-place`): equal, or for long options an
/// abbreviation GNU getopt and git accept.
pub(crate) fn names(written: &str, option: &str) -> bool {
    if written == option {
        return true;
    }
    written.starts_with("--") && written.len() > 2 && option.starts_with(written)
}

fn takes_value(spec: &OptionSpec, name: &str) -> bool {
    let long = name.starts_with("--");
    spec.value_options.iter().any(|v| {
        if long {
            // An abbreviation takes a value only when it can mean nothing but a value option.
            names(name, v)
        } else {
            v == name
        }
    })
}

/// Splits `words` (the arguments, without the command words) into options and operands.
pub(crate) fn parse<'w>(words: &'w [Word], spec: &OptionSpec) -> Vec<Arg<'w>> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut only_operands = false;
    while i < words.len() {
        let w = &words[i];
        let Some(text) = w.static_text() else {
            out.push(Arg::Dynamic { word: i });
            i += 1;
            continue;
        };
        if only_operands || text == "-" || !text.starts_with('-') {
            out.push(Arg::Operand { text, word: i });
            i += 1;
            continue;
        }
        if text == "--" && spec.style == Style::Gnu {
            only_operands = true;
            i += 1;
            continue;
        }
        match spec.style {
            Style::Words => {
                let consumes = spec.value_options.iter().any(|v| v == text);
                let value = if consumes {
                    i += 1;
                    words.get(i).map(|v| v.text.as_str())
                } else {
                    None
                };
                out.push(Arg::Opt {
                    name: text.to_string(),
                    value,
                    word: i.saturating_sub(usize::from(consumes)),
                });
            }
            Style::Gnu if text.starts_with("--") => {
                let (name, value) = match text.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (text, None),
                };
                let word = i;
                let value = match value {
                    Some(v) => Some(v),
                    None if takes_value(spec, name) => {
                        i += 1;
                        words.get(i).map(|v| v.text.as_str())
                    }
                    None => None,
                };
                out.push(Arg::Opt {
                    name: name.to_string(),
                    value,
                    word,
                });
            }
            Style::Gnu => {
                let word = i;
                let body = &text[1..];
                for (k, c) in body.char_indices() {
                    let name = format!("-{c}");
                    if takes_value(spec, &name) {
                        let rest = &body[k + c.len_utf8()..];
                        let value = if rest.is_empty() {
                            i += 1;
                            words.get(i).map(|v| v.text.as_str())
                        } else {
                            Some(rest)
                        };
                        out.push(Arg::Opt { name, value, word });
                        break;
                    }
                    out.push(Arg::Opt {
                        name,
                        value: None,
                        word,
                    });
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Span;
    use crate::segment::Expansions;

    fn words(ws: &[&str]) -> Vec<Word> {
        ws.iter()
            .map(|t| Word {
                text: t.to_string(),
                span: Span::default(),
                expansions: Expansions::default(),
                quoted: false,
            })
            .collect()
    }

    fn names_of(ws: &[&str], values: &[&str]) -> Vec<String> {
        let w = words(ws);
        let spec = OptionSpec {
            style: Style::Gnu,
            value_options: values.iter().map(|s| s.to_string()).collect(),
        };
        parse(&w, &spec)
            .into_iter()
            .map(|a| match a {
                Arg::Opt { name, value, .. } => format!("{name}={}", value.unwrap_or("")),
                Arg::Operand { text, .. } => text.to_string(),
                Arg::Dynamic { .. } => "?".into(),
            })
            .collect()
    }

    #[test]
    fn bundles_split_and_stop_at_a_value_option() {
        assert_eq!(names_of(&["-ni"], &[]), ["-n=", "-i="]);
        assert_eq!(names_of(&["-i.bak"], &["-i"]), ["-i=.bak"]);
        assert_eq!(names_of(&["-e", "-i", "f"], &["-e"]), ["-e=-i", "f"]);
    }

    #[test]
    fn long_options_take_attached_or_next_values() {
        assert_eq!(
            names_of(&["--grep=--output=x"], &["--grep"]),
            ["--grep=--output=x"]
        );
        assert_eq!(
            names_of(&["--grep", "--output"], &["--grep"]),
            ["--grep=--output"]
        );
        assert_eq!(names_of(&["--", "--output=x"], &[]), ["--output=x"]);
    }

    #[test]
    fn long_abbreviations_name_the_full_option() {
        assert!(names("--in-pl", "--in-place"));
        assert!(names("--output", "--output"));
        assert!(!names("--", "--output"));
        assert!(!names("--outputx", "--output"));
        assert!(!names("-o", "--output"));
    }
}

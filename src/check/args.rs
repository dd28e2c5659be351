//! check/args: reads a command's arguments the way its option parser would (GNU getopt bundles,
//! attached values, `--long=value`, unambiguous long prefixes, `--`, or whole-word options like
//! `find`'s), so rules can ask "is option X present?" on decoded words, never on raw text.
//!
//! Entries with a permitted option table ([`OptionTable`]) are read with [`parse_table`], which
//! models the program's own parser — getopt_long, tree's bundles, or whole words — and marks
//! every option the table does not permit as [`Arg::Refused`].
//!
//! It never decides safety by itself; rules in `check` interpret what it finds.

use crate::allowlist::options::{Arity, OptionDef, OptionTable, Parser, Resolved};
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
    /// An option (or a value) the entry's option table does not permit; `reason` completes a
    /// sentence that starts with the entry's name. Parsing goes on as if it took no value.
    Refused { reason: String, word: usize },
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

/// What [`parse_table`] read.
pub(crate) struct Parsed<'w> {
    pub args: Vec<Arg<'w>>,
    /// The index of the first word from which on every word is an operand (after `--`, or
    /// after the first operand of an options-first program); `words.len()` when there is none.
    pub operands_from: usize,
}

/// Splits `words` (the arguments, without the command words) the way the program's parser
/// described by `table` would, refusing every option the table does not permit.
pub(crate) fn parse_table<'w>(words: &'w [Word], table: &OptionTable) -> Parsed<'w> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut only_operands = false;
    let mut operands_from = words.len();
    while i < words.len() {
        let word = i;
        if only_operands {
            operands_from = operands_from.min(i);
        }
        let Some(text) = words[i].static_text() else {
            out.push(Arg::Dynamic { word });
            i += 1;
            continue;
        };
        if only_operands || text == "-" || !text.starts_with('-') {
            out.push(Arg::Operand { text, word });
            only_operands |= table.options_first;
            i += 1;
            continue;
        }
        // find reads `--` only before its paths and fails on it after them, and whole-word
        // parsers disagree on it: there it ends options only when the table lists it.
        if text == "--" && (table.parser != Parser::Words || table.exact("--").is_some()) {
            only_operands = true;
            i += 1;
            continue;
        }
        if table.number && text.len() > 1 && text[1..].bytes().all(|b| b.is_ascii_digit()) {
            out.push(Arg::Opt {
                name: text.to_string(),
                value: None,
                word,
            });
            i += 1;
            continue;
        }
        match table.parser {
            Parser::Words => match table.exact(text) {
                Some(def) => {
                    let value = match def.arity {
                        Arity::None => None,
                        Arity::Required | Arity::Optional => {
                            i += 1;
                            words.get(i)
                        }
                    };
                    push_opt(&mut out, def, text, value.map(Value::Word), word);
                }
                None => out.push(refused(text, word)),
            },
            Parser::Getopt | Parser::BundleNext if text.starts_with("--") => {
                let (written, attached) = match text.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (text, None),
                };
                match table.resolve_long(written) {
                    Resolved::Permitted(def, full) => {
                        let value = match (def.arity, attached) {
                            (Arity::None, Some(v)) => {
                                out.push(Arg::Refused {
                                    reason: format!(
                                        "option `{full}` takes no value, but `{v}` was given"
                                    ),
                                    word,
                                });
                                i += 1;
                                continue;
                            }
                            (Arity::None, None) | (Arity::Optional, None) => None,
                            (_, Some(v)) => Some(Value::Text(v)),
                            (Arity::Required, None) => {
                                i += 1;
                                words.get(i).map(Value::Word)
                            }
                        };
                        push_opt(&mut out, def, full, value, word);
                    }
                    Resolved::NotPermitted(full) if full == written => {
                        out.push(refused(written, word))
                    }
                    Resolved::NotPermitted(full) => out.push(Arg::Refused {
                        reason: format!(
                            "option `{written}` abbreviates `{full}`, which is not permitted"
                        ),
                        word,
                    }),
                    Resolved::Ambiguous(all) => out.push(Arg::Refused {
                        reason: format!(
                            "option `{written}` is ambiguous: it abbreviates {}",
                            all.iter()
                                .map(|s| format!("`{s}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        word,
                    }),
                    Resolved::Unknown { abbreviation: true } => out.push(Arg::Refused {
                        reason: format!(
                            "option `{written}` looks abbreviated; only options written in full are recognised"
                        ),
                        word,
                    }),
                    Resolved::Unknown {
                        abbreviation: false,
                    } => out.push(refused(written, word)),
                }
            }
            Parser::Getopt | Parser::BundleNext => {
                let body = &text[1..];
                for (k, c) in body.char_indices() {
                    let name = format!("-{c}");
                    let rest = &body[k + c.len_utf8()..];
                    let Some(def) = table.exact(&name) else {
                        out.push(refused(&name, word));
                        continue;
                    };
                    match (def.arity, table.parser) {
                        (Arity::None, _) => push_opt(&mut out, def, &name, None, word),
                        (Arity::Required, Parser::BundleNext) => {
                            // Each value option of the bundle takes the next word in turn.
                            i += 1;
                            push_opt(&mut out, def, &name, words.get(i).map(Value::Word), word);
                        }
                        (Arity::Required, _) => {
                            let value = if rest.is_empty() {
                                i += 1;
                                words.get(i).map(Value::Word)
                            } else {
                                Some(Value::Text(rest))
                            };
                            push_opt(&mut out, def, &name, value, word);
                            break;
                        }
                        (Arity::Optional, _) => {
                            let value = (!rest.is_empty()).then_some(Value::Text(rest));
                            push_opt(&mut out, def, &name, value, word);
                            break;
                        }
                    }
                }
            }
        }
        i += 1;
    }
    Parsed {
        args: out,
        operands_from,
    }
}

/// Where an option's value came from.
enum Value<'w> {
    /// Attached to the option's own word.
    Text(&'w str),
    /// The next word, which may be known only at run time.
    Word(&'w Word),
}

fn refused(option: &str, word: usize) -> Arg<'static> {
    Arg::Refused {
        reason: format!("option `{option}` is not one of the options permitted here"),
        word,
    }
}

/// Pushes a permitted option, or a refusal when its value is not one the table permits.
fn push_opt<'w>(
    out: &mut Vec<Arg<'w>>,
    def: &OptionDef,
    name: &str,
    value: Option<Value<'w>>,
    word: usize,
) {
    let text = match &value {
        Some(Value::Text(t)) => Some(*t),
        Some(Value::Word(w)) => w.static_text(),
        None => None,
    };
    if let Some(allowed) = &def.values {
        let problem = match (&value, text) {
            (Some(_), None) => Some(format!(
                "option `{name}` has a value known only at run time; permitted: {}",
                allowed.join(", ")
            )),
            (Some(_), Some(v)) if !allowed.iter().any(|a| a == v) => Some(format!(
                "option `{name}` value `{v}` is not one of {}",
                allowed.join(", ")
            )),
            _ => None,
        };
        if let Some(reason) = problem {
            out.push(Arg::Refused { reason, word });
            return;
        }
    }
    let value = match value {
        Some(Value::Text(t)) => Some(t),
        Some(Value::Word(w)) => Some(w.text.as_str()),
        None => None,
    };
    out.push(Arg::Opt {
        name: name.to_string(),
        value,
        word,
    });
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
                Arg::Refused { .. } => "!".into(),
            })
            .collect()
    }

    /// Reads `ws` with a table, rendering options as `name=value`, refusals as `!reason`.
    fn table_read(
        parser: Parser,
        options: &[&str],
        known: Option<&[&str]>,
        ws: &[&str],
    ) -> Vec<String> {
        let options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        let known: Option<Vec<String>> = known.map(|k| k.iter().map(|s| s.to_string()).collect());
        let table = crate::allowlist::options::compile(parser, &options, known.as_deref()).unwrap();
        let w = words(ws);
        parse_table(&w, &table)
            .args
            .into_iter()
            .map(|a| match a {
                Arg::Opt { name, value, .. } => format!("{name}={}", value.unwrap_or("")),
                Arg::Operand { text, .. } => text.to_string(),
                Arg::Dynamic { .. } => "?".into(),
                Arg::Refused { reason, .. } => format!("!{reason}"),
            })
            .collect()
    }

    #[test]
    fn optional_values_are_attached_only() {
        let opts = [
            "--abbrev[=N]",
            "-M[=N]",
            "--color[=always|never|auto]",
            "--stat",
        ];
        let read = |ws: &[&str]| table_read(Parser::Getopt, &opts, None, ws);
        assert_eq!(read(&["--abbrev", "--output=F"])[0], "--abbrev=");
        assert!(read(&["--abbrev", "--output=F"])[1].starts_with("!option `--output`"));
        assert_eq!(read(&["-M", "x"]), ["-M=", "x"]);
        assert_eq!(read(&["-M50", "x"]), ["-M=50", "x"]);
        assert_eq!(read(&["--color", "new"]), ["--color=", "new"]);
        assert_eq!(read(&["--color=never"]), ["--color=never"]);
        assert!(read(&["--color=x"])[0].starts_with("!option `--color` value `x`"));
        assert!(read(&["--stat=3"])[0].contains("takes no value"));
    }

    #[test]
    fn getopt_bundles_give_the_rest_to_the_first_value_option() {
        let opts = ["-a", "-s, --seek=N", "-c"];
        let read = |ws: &[&str]| table_read(Parser::Getopt, &opts, None, ws);
        assert_eq!(read(&["-as", "in", "out"]), ["-a=", "-s=in", "out"]);
        assert_eq!(read(&["-asc", "in"]), ["-a=", "-s=c", "in"]);
        assert_eq!(read(&["-s", "-c"]), ["-s=-c"]);
        assert!(read(&["-ax"])[1].starts_with("!option `-x`"));
        assert_eq!(read(&["--", "-x"]), ["-x"]);
        assert_eq!(read(&["-5"]).len(), 1);
        assert!(read(&["-5"])[0].starts_with("!"));
    }

    #[test]
    fn bundle_next_gives_each_value_option_the_next_word() {
        let opts = ["-L LEVEL", "-a", "--charset=C"];
        let read = |ws: &[&str]| table_read(Parser::BundleNext, &opts, None, ws);
        assert_eq!(read(&["-aL", "2", "d"]), ["-a=", "-L=2", "d"]);
        let lo = read(&["-Lo", "2", "out"]);
        assert_eq!(lo[0], "-L=2");
        assert!(lo[1].starts_with("!option `-o`"));
        assert_eq!(read(&["--charset", "x", "d"]), ["--charset=x", "d"]);
    }

    #[test]
    fn whole_words_match_exactly() {
        let opts = ["-c, -cols=N", "-l, -len=N", "-a", "--"];
        let read = |ws: &[&str]| table_read(Parser::Words, &opts, None, ws);
        assert_eq!(read(&["-cols", "10", "f"]), ["-cols=10", "f"]);
        assert_eq!(read(&["-len", "32"]), ["-len=32"]);
        assert!(read(&["-as", "in", "out"])[0].starts_with("!option `-as`"));
        assert_eq!(read(&["--", "-a"]), ["-a"]);
        assert_eq!(read(&["-a", "f", "-a"]), ["-a=", "f", "-a="]);
        let find = table_read(Parser::Words, &["-name=P"], None, &["--", "x"]);
        assert!(find[0].starts_with("!option `--`"));
    }

    /// An independent, plain reading of GNU getopt's short options over a program's full
    /// table: `(options seen, operands)`, or `None` when getopt would stop on an unknown option.
    fn reference_getopt(ws: &[&str], full: &[(char, Arity)]) -> Option<(Vec<char>, Vec<String>)> {
        let (mut seen, mut operands) = (Vec::new(), Vec::new());
        let mut k = 0;
        while k < ws.len() {
            let w = ws[k];
            k += 1;
            if w == "--" {
                operands.extend(ws[k..].iter().map(|s| s.to_string()));
                break;
            }
            if w.len() < 2 || !w.starts_with('-') {
                operands.push(w.to_string());
                continue;
            }
            let chars: Vec<char> = w[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                let arity = full.iter().find(|(o, _)| *o == c)?.1;
                seen.push(c);
                j += 1;
                match arity {
                    Arity::None => {}
                    Arity::Optional => break,
                    Arity::Required => {
                        if j == chars.len() {
                            k += 1; // the next word is the value
                        }
                        break;
                    }
                }
            }
        }
        Some((seen, operands))
    }

    proptest::proptest! {
        #[test]
        fn getopt_reading_agrees_with_a_plain_getopt(
            picks in proptest::collection::vec(0usize..20, 0..7)
        ) {
            const POOL: [&str; 20] = [
                "-a", "-ab", "-ko", "-k", "o", "-o", "x", "-ax", "-Mx", "-Mo", "-bo", "--", "f",
                "-", "-kx", "-xk", "-aM", "-Z", "-ZM", "-bMo",
            ];
            let full = [
                ('a', Arity::None), ('b', Arity::None), ('k', Arity::Required),
                ('M', Arity::Optional), ('o', Arity::Required), ('x', Arity::None),
                ('Z', Arity::Optional),
            ];
            let ws: Vec<&str> = picks.iter().map(|&p| POOL[p]).collect();
            let ours = table_read(Parser::Getopt, &["-a", "-b", "-k K", "-M[=N]"], None, &ws);
            let refused = ours.iter().any(|a| a.starts_with('!'));
            let reference = reference_getopt(&ws, &full);
            match reference {
                // getopt stops on an unknown option: the program never runs its work.
                None => {}
                Some((seen, operands)) => {
                    let forbidden = seen.iter().any(|c| matches!(c, 'o' | 'x' | 'Z'));
                    // Whatever getopt would see that the table does not permit, we refuse.
                    proptest::prop_assert!(!forbidden || refused, "{ws:?} -> {ours:?}");
                    if !refused {
                        let ours_operands: Vec<&String> =
                            ours.iter().filter(|a| !a.contains('=')).collect();
                        proptest::prop_assert_eq!(
                            ours_operands.len(), operands.len(), "{:?} -> {:?}", ws, ours
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_and_abbreviations() {
        let opts = ["-NUM", "-n, --max-count=N", "--oneline"];
        let known = ["--output", "--one-thing"];
        let read = |ws: &[&str]| table_read(Parser::Getopt, &opts, Some(&known), ws);
        assert_eq!(read(&["-5"]), ["-5="]);
        assert_eq!(read(&["-n5"]), ["-n=5"]);
        assert_eq!(read(&["--max=3"]), ["--max-count=3"]);
        assert!(read(&["--out=x"])[0].contains("abbreviates `--output`"));
        assert!(read(&["--one"])[0].contains("ambiguous"));
        assert!(read(&["--output"])[0].starts_with("!option `--output` is not"));
        let bare = table_read(Parser::Getopt, &opts, None, &["--max=3"]);
        assert!(bare[0].contains("looks abbreviated"));
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

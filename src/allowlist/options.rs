//! allowlist/options: compiles an `[[allow]]` entry's permitted option table — the options the
//! entry lets through, each with its arity and, where it matters, its allowed values — from the
//! compact spellings written in `allowlist.toml` (`"-f, --skip-fields=N"`, `"--color[=WHEN]"`).
//!
//! It never reads a command line (see `check/args.rs`); it only says what the program's parser
//! would accept and which of those spellings the entry permits.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// How many values an option takes, as the program's parser reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    /// No value: `--count`, `-c`; a value given with `=` is an error for the program.
    None,
    /// A value, attached (`-k2`, `--key=2`) or as the next word (`-k 2`, `--key 2`).
    Required,
    /// A value only when attached (`-M50`, `--abbrev=8`); the next word is never the value.
    Optional,
}

/// How the program splits its words into options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parser {
    /// GNU `getopt_long` and git's parse-options: `-abc` bundles in which a value-taking option
    /// takes the rest of the bundle (or, last, the next word), `--long=value`, `--` ends options.
    Getopt,
    /// Bundles whose value-taking options each take the next word in turn (`tree -Lo 2 out`:
    /// `-L 2 -o out`); long options as in getopt.
    BundleNext,
    /// Whole words only (`find -name`, `xxd -cols`): no bundles, no attached values.
    Words,
}

/// One permitted option with all its spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionDef {
    /// Every spelling (`-c`, `--count`), written in full.
    pub spellings: Vec<String>,
    pub arity: Arity,
    /// When present, the only values permitted (compared exactly).
    pub values: Option<Vec<String>>,
}

/// An entry's permitted options plus the rest of the program's long options, used only to
/// resolve abbreviations the way the program would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionTable {
    pub parser: Parser,
    pub permitted: Vec<OptionDef>,
    /// The program's other long options. When the entry gives them (`known_options`), a long
    /// option may be abbreviated to a unique prefix of the full table; without them, only
    /// options written in full are recognised.
    pub known: Option<Vec<String>>,
    /// `-NUM` in the table: a word of a dash and digits is a count (`head -20`, `git log -5`).
    pub number: bool,
    /// The first operand ends the options (xxd, POSIX getopt): later words are all operands.
    pub options_first: bool,
}

/// What a written long option resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved<'t> {
    /// A permitted option, with the full spelling the prefix stands for.
    Permitted(&'t OptionDef, &'t str),
    /// An option the program has but the entry does not permit (full spelling).
    NotPermitted(String),
    /// A prefix of several options of the program.
    Ambiguous(Vec<String>),
    /// Nothing the table knows; `abbreviation` is true when the spelling is a prefix of a
    /// permitted option but the table cannot tell whether the program reads it that way.
    Unknown { abbreviation: bool },
}

/// A malformed option spelling in an allowlist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl OptionTable {
    /// The permitted option written exactly as `spelling`.
    pub fn exact(&self, spelling: &str) -> Option<&OptionDef> {
        self.permitted
            .iter()
            .find(|d| d.spellings.iter().any(|s| s == spelling))
    }

    /// Resolves a long option (`--out`, without any `=value`) against the program's table.
    pub fn resolve_long<'t>(&'t self, written: &str) -> Resolved<'t> {
        if let Some(def) = self.exact(written) {
            let full = def
                .spellings
                .iter()
                .find(|s| *s == written)
                .map_or("", String::as_str);
            return Resolved::Permitted(def, full);
        }
        let known = self.known.as_deref().unwrap_or(&[]);
        if known.iter().any(|k| k == written) {
            return Resolved::NotPermitted(written.to_string());
        }
        let prefix_of = |s: &str| s.len() > written.len() && s.starts_with(written);
        let Some(known) = &self.known else {
            let abbreviation = self
                .permitted
                .iter()
                .flat_map(|d| &d.spellings)
                .any(|s| prefix_of(s));
            return Resolved::Unknown { abbreviation };
        };
        let mut candidates: Vec<(&str, Option<&OptionDef>)> = Vec::new();
        for d in &self.permitted {
            for s in d.spellings.iter().filter(|s| s.starts_with("--")) {
                if prefix_of(s) {
                    candidates.push((s, Some(d)));
                }
            }
        }
        for k in known {
            if prefix_of(k) {
                candidates.push((k, None));
            }
        }
        // Spellings of one option (`--color`, `--colour`) are not ambiguous: getopt_long
        // accepts a prefix of several entries that all mean the same.
        if let [(full, Some(first)), others @ ..] = candidates.as_slice()
            && others
                .iter()
                .all(|(_, d)| d.is_some_and(|d| std::ptr::eq(d, *first)))
        {
            return Resolved::Permitted(first, full);
        }
        match candidates.as_slice() {
            [] => Resolved::Unknown {
                abbreviation: false,
            },
            [(full, Some(def))] => Resolved::Permitted(def, full),
            [(full, None)] => Resolved::NotPermitted(full.to_string()),
            many => Resolved::Ambiguous(many.iter().map(|(s, _)| s.to_string()).collect()),
        }
    }
}

/// An entry's option table: compiled when its file loads (a user's file, so that a bad spec is
/// a load error naming its place), or the first time a command reaches the entry (the embedded
/// allowlist, whose tables a test compiles: one check reaches a handful of its hundreds of
/// tables, and building them all was half of the start-up).
#[derive(Debug, Clone)]
pub(crate) struct LazyTable {
    /// What to compile, kept until the first use; `None` once compiled on load.
    spec: Option<Arc<TableSpec>>,
    compiled: OnceLock<Option<OptionTable>>,
}

/// The parts of an entry an option table is compiled from.
#[derive(Debug)]
pub(crate) struct TableSpec {
    pub parser: Parser,
    /// The entry's `options`, `@set`s resolved to the sets' options.
    pub options: Vec<Spec>,
    pub known: Option<Vec<String>>,
    pub options_first: bool,
}

/// One element of an entry's `options`: a spec, or an `[[option_set]]` it includes.
#[derive(Debug)]
pub(crate) enum Spec {
    One(String),
    Set(Arc<[String]>),
}

impl Spec {
    fn specs(&self) -> impl Iterator<Item = &String> {
        match self {
            Spec::One(s) => std::slice::from_ref(s).iter(),
            Spec::Set(set) => set.iter(),
        }
    }
}

impl TableSpec {
    /// Compiles the table.
    pub fn compile(&self) -> Result<OptionTable, SpecError> {
        let options = self.options.iter().flat_map(Spec::specs);
        let mut table = compile(self.parser, options, self.known.as_deref())?;
        table.options_first = self.options_first;
        Ok(table)
    }
}

impl LazyTable {
    /// Compiles `spec` now: a bad spec is the error.
    pub fn checked(spec: TableSpec) -> Result<LazyTable, SpecError> {
        let table = spec.compile()?;
        Ok(LazyTable {
            spec: None,
            compiled: OnceLock::from(Some(table)),
        })
    }

    /// Keeps `spec` to compile when first used (an embedded entry, tested to compile).
    pub fn deferred(spec: TableSpec) -> LazyTable {
        LazyTable {
            spec: Some(Arc::new(spec)),
            compiled: OnceLock::new(),
        }
    }

    /// The table; `None` only for a deferred one that does not compile, which the test of the
    /// embedded allowlist rules out (and which the checker treats as no entry at all).
    pub fn get(&self) -> Option<&OptionTable> {
        self.compiled
            .get_or_init(|| self.spec.as_ref().and_then(|s| s.compile().ok()))
            .as_ref()
    }
}

/// Resolves every `@name` in an entry's `options` to the options of the `[[option_set]]` of
/// that name (sets shared by programs with one option parser, such as git's diff options),
/// sharing the set rather than copying it.
pub(crate) fn expand(
    options: Vec<String>,
    sets: &HashMap<String, Arc<[String]>>,
) -> Result<Vec<Spec>, SpecError> {
    let mut out = Vec::with_capacity(options.len());
    for o in options {
        match o.strip_prefix('@') {
            Some(name) => {
                let set = sets.get(name).ok_or_else(|| {
                    SpecError(format!(
                        "unknown option set `{name}`; define it as [[option_set]]"
                    ))
                })?;
                out.push(Spec::Set(Arc::clone(set)));
            }
            None => out.push(Spec::One(o)),
        }
    }
    Ok(out)
}

/// Compiles an entry's `options` (and `known_options`) into a table.
pub(crate) fn compile<'a>(
    parser: Parser,
    options: impl IntoIterator<Item = &'a String>,
    known: Option<&[String]>,
) -> Result<OptionTable, SpecError> {
    let options = options.into_iter();
    let mut table = OptionTable {
        parser,
        permitted: Vec::with_capacity(options.size_hint().0),
        known: None,
        number: false,
        options_first: false,
    };
    // A set of every spelling, rather than a search of the table per spelling: the default
    // allowlist compiles tables of hundreds of options at every start.
    let mut spellings: HashSet<String> = HashSet::with_capacity(options.size_hint().0 * 2);
    for spec in options {
        if spec == "-NUM" {
            table.number = true;
            continue;
        }
        let def = compile_one(parser, spec)?;
        for s in &def.spellings {
            if !spellings.insert(s.clone()) {
                return Err(SpecError(format!("option `{s}` is listed twice")));
            }
        }
        table.permitted.push(def);
    }
    if let Some(known) = known {
        let mut list = Vec::with_capacity(known.len());
        for k in known {
            if !k.starts_with("--") || k.len() < 3 || k.contains(['=', ' ', '[']) {
                return Err(SpecError(format!(
                    "known option `{k}` must be a long option name such as `--output`"
                )));
            }
            if !spellings.contains(k) {
                list.push(k.clone());
            }
        }
        table.known = Some(list);
    }
    Ok(table)
}

/// One spec: spellings separated by `,`, the value written after `=` (required), inside `[=…]`
/// (optional, attached only) or after a space (`-L LEVEL`, required); a value of the form
/// `a|b|c` lists the only values permitted.
fn compile_one(parser: Parser, spec: &str) -> Result<OptionDef, SpecError> {
    let mut spellings = Vec::new();
    let mut arity: Option<Arity> = None;
    let mut values: Option<Vec<String>> = None;
    for part in spec.split(',').map(str::trim) {
        let (name, this) = if let Some((n, rest)) = part.split_once("[=") {
            let v = rest.strip_suffix(']').ok_or_else(|| {
                SpecError(format!("option spec `{spec}`: `[=` without a closing `]`"))
            })?;
            (n, Some((Arity::Optional, v)))
        } else if let Some((n, v)) = part.split_once('=') {
            (n, Some((Arity::Required, v)))
        } else if let Some((n, v)) = part.split_once(' ') {
            (n, Some((Arity::Required, v.trim())))
        } else {
            (part, None)
        };
        check_spelling(parser, spec, name)?;
        if let Some((a, v)) = this {
            if arity.is_some_and(|old| old != a) {
                return Err(SpecError(format!(
                    "option spec `{spec}`: its spellings disagree on whether the value is optional"
                )));
            }
            if a == Arity::Optional && parser != Parser::Getopt {
                return Err(SpecError(format!(
                    "option spec `{spec}`: only getopt-style options can have an optional value"
                )));
            }
            arity = Some(a);
            if v.contains('|') {
                values = Some(v.split('|').map(str::to_string).collect());
            } else if v.is_empty() {
                return Err(SpecError(format!(
                    "option spec `{spec}`: name the value (`--key=KEYDEF`)"
                )));
            }
        }
        spellings.push(name.to_string());
    }
    Ok(OptionDef {
        spellings,
        arity: arity.unwrap_or(Arity::None),
        values,
    })
}

fn check_spelling(parser: Parser, spec: &str, name: &str) -> Result<(), SpecError> {
    let ok = match parser {
        Parser::Getopt | Parser::BundleNext => {
            let short = name.len() == 2
                && name.starts_with('-')
                && name[1..].chars().all(|c| c.is_ascii_graphic() && c != '-');
            let long = name.len() > 2
                && name.starts_with("--")
                && name[2..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            short || long
        }
        Parser::Words => {
            name.len() > 1 && name.starts_with('-') && name.chars().all(|c| c.is_ascii_graphic())
        }
    };
    if ok {
        Ok(())
    } else {
        Err(SpecError(format!(
            "option spec `{spec}`: `{name}` is not an option spelling (`-x` or `--name`{})",
            if parser == Parser::Words {
                ", or `-word` for whole-word options"
            } else {
                ""
            }
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(options: &[&str], known: Option<&[&str]>) -> OptionTable {
        let options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        let known: Option<Vec<String>> = known.map(|k| k.iter().map(|s| s.to_string()).collect());
        compile(Parser::Getopt, &options, known.as_deref()).unwrap()
    }

    #[test]
    fn specs_give_spellings_arity_and_values() {
        let t = table(
            &[
                "-c, --count",
                "-f, --skip-fields=N",
                "--group[=METHOD]",
                "--color[=always|never|auto]",
                "-L LEVEL",
                "-NUM",
            ],
            None,
        );
        assert_eq!(t.exact("--count").unwrap().arity, Arity::None);
        assert_eq!(t.exact("-f").unwrap().arity, Arity::Required);
        assert_eq!(t.exact("--group").unwrap().arity, Arity::Optional);
        assert_eq!(t.exact("-L").unwrap().arity, Arity::Required);
        assert_eq!(
            t.exact("--color").unwrap().values.as_deref(),
            Some(&["always".to_string(), "never".into(), "auto".into()][..])
        );
        assert!(t.number);
        assert!(t.exact("--skip").is_none());
    }

    #[test]
    fn malformed_specs_are_errors() {
        for bad in [
            "c",
            "-ab",
            "--x=",
            "--group[=X",
            "-c, --count=N, --cnt[=N]",
            "-c, -c",
        ] {
            let r = compile(Parser::Getopt, &[bad.to_string()], None);
            assert!(r.is_err(), "{bad} compiled");
        }
        assert!(compile(Parser::Words, &["-cols[=N]".to_string()], None).is_err());
        assert!(compile(Parser::Getopt, &["-a".into()], Some(&["-o".into()])).is_err());
    }

    #[test]
    fn abbreviations_resolve_against_the_full_table() {
        let t = table(
            &["-k, --key=KEYDEF", "--check[=X]"],
            Some(&["--output", "--compress-program", "--check"]),
        );
        assert!(matches!(
            t.resolve_long("--ke"),
            Resolved::Permitted(_, "--key")
        ));
        assert_eq!(
            t.resolve_long("--out"),
            Resolved::NotPermitted("--output".into())
        );
        assert!(matches!(t.resolve_long("--c"), Resolved::Ambiguous(v) if v.len() == 2));
        assert!(matches!(
            t.resolve_long("--check"),
            Resolved::Permitted(_, "--check")
        ));
        assert_eq!(
            t.resolve_long("--nothing"),
            Resolved::Unknown {
                abbreviation: false
            }
        );
    }

    #[test]
    fn aliases_of_one_option_are_not_ambiguous() {
        let t = table(&["--color, --colour[=WHEN]"], Some(&["--count"]));
        assert!(matches!(
            t.resolve_long("--colo"),
            Resolved::Permitted(_, "--color")
        ));
        assert!(matches!(t.resolve_long("--co"), Resolved::Ambiguous(_)));
    }

    #[test]
    fn without_the_full_table_only_full_spellings_count() {
        let t = table(&["--key=K"], None);
        assert_eq!(
            t.resolve_long("--ke"),
            Resolved::Unknown { abbreviation: true }
        );
        assert!(matches!(t.resolve_long("--key"), Resolved::Permitted(..)));
    }
}

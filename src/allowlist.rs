//! allowlist: the compiled allowlist — entries indexed by their first word, argument rules,
//! wrappers, shells, deny rules, severity overrides and limits — built from `allowlist.toml`.
//!
//! Loading returns typed errors naming file, line, column and key. It never analyses commands
//! (the examples in the file are verified by [`Analyzer`](crate::Analyzer) when it is built).

pub(crate) mod options;
pub(crate) mod toml;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use regex::Regex;

use self::options::{OptionTable, Parser};
use self::toml::{RawArgs, RawConfig, RawStyle};
use crate::finding::{Code, Verdict};
use crate::repo::KeyPattern;
use crate::segment::Limits;

/// The default allowlist, embedded in the binary.
pub const DEFAULT_ALLOWLIST: &str = include_str!("../allowlist.toml");

/// The rules cmdguard checks commands against. Build one with [`Allowlist::default`] (the
/// embedded `allowlist.toml`), [`Allowlist::from_toml`] or [`Allowlist::load`], then hand it to an
/// [`Analyzer`](crate::Analyzer).
///
/// ```
/// use cmdguard::Allowlist;
/// let mut list = Allowlist::default();
/// list.extend_from_toml("[[allow]]\ncommand = \"cargo check\"\n", None)?;
/// assert!(list.entry_count() > 10);
/// # Ok::<(), cmdguard::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Allowlist {
    pub(crate) limits: Limits,
    pub(crate) severity: HashMap<Code, Verdict>,
    pub(crate) inert_env: Vec<NamePattern>,
    pub(crate) unsafe_env: Vec<NamePattern>,
    pub(crate) system_dirs: Vec<String>,
    pub(crate) git_keys: Vec<KeyPattern>,
    pub(crate) git_inert_keys: Vec<KeyPattern>,
    pub(crate) git_safe_values: Vec<(KeyPattern, Vec<String>)>,
    pub(crate) git_hooks: Vec<String>,
    pub(crate) programs: HashMap<String, Program>,
    pub(crate) option_sets: HashMap<String, Vec<String>>,
    pub(crate) entries: HashMap<String, Vec<Entry>>,
    pub(crate) wrappers: HashMap<String, Wrapper>,
    pub(crate) shells: HashMap<String, Shell>,
    pub(crate) deny: Vec<DenyRule>,
    pub(crate) examples: Vec<Example>,
}

/// A `match` / `not_match` example to verify once the allowlist is complete.
#[derive(Debug, Clone)]
pub(crate) struct Example {
    pub command: String,
    pub kind: ExampleKind,
    pub rule: String,
    pub at: Location,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExampleKind {
    /// Must be allowed.
    Allowed,
    /// Must not be allowed.
    NotAllowed,
    /// Must be denied.
    Denied,
    /// Must not be denied.
    NotDenied,
}

/// Where something is in a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    pub origin: String,
    pub line: usize,
    pub column: usize,
}

/// A variable-name pattern: exact, or with one trailing `*`.
#[derive(Debug, Clone)]
pub(crate) struct NamePattern(String);

impl NamePattern {
    pub fn matches(&self, name: &str) -> bool {
        match self.0.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => self.0 == name,
        }
    }
}

/// Global options of a program with subcommands.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program {
    pub harmless: Vec<String>,
    pub flags: Vec<String>,
    pub value_options: Vec<String>,
}

/// How an entry's arguments may be dynamic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgsMode {
    Inert,
    Files,
    Restricted,
}

/// How options are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Gnu,
    Words,
}

/// Option facts shared by entries, wrappers and deny rules.
#[derive(Debug, Clone)]
pub(crate) struct OptionSpec {
    pub style: Style,
    pub value_options: Vec<String>,
}

/// A purpose-built checker for a program's mini-language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checker {
    Sed,
    Awk,
    Find,
    Test,
    GitFormat,
}

/// One compiled `[[allow]]` entry.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub words: Vec<String>,
    pub name: String,
    pub args: ArgsMode,
    pub spec: OptionSpec,
    pub forbid: Vec<String>,
    pub only_options: Option<Vec<String>>,
    pub max_operands: Option<usize>,
    pub checker: Option<Checker>,
    /// The permitted option table; when present, every option outside it asks.
    pub options: Option<OptionTable>,
    /// Fewest operands allowed.
    pub min_operands: Option<usize>,
    /// A regex every operand must match.
    pub operand_pattern: Option<Regex>,
}

/// One compiled `[[wrapper]]`.
#[derive(Debug, Clone)]
pub(crate) struct Wrapper {
    pub name: String,
    pub flags: Vec<String>,
    pub spec: OptionSpec,
    pub operands: usize,
    pub assignments: bool,
    pub appends_dynamic: bool,
    pub split_option: Option<String>,
    pub chdir_options: Vec<String>,
    pub replace_options: Vec<String>,
    pub severity: Verdict,
}

/// One compiled `[[shell]]`.
#[derive(Debug, Clone)]
pub(crate) struct Shell {
    pub flags: Vec<String>,
    /// The language it reads scripts in; outside bash, only the syntax shared with bash passes.
    pub dialect: crate::check::Dialect,
}

/// One compiled `[[deny]]` rule.
#[derive(Debug, Clone)]
pub(crate) struct DenyRule {
    pub id: String,
    pub reason: String,
    pub command: Option<Vec<String>>,
    pub any_option: Vec<String>,
    pub all_options: Vec<Vec<String>>,
    pub spec: OptionSpec,
    pub any_operand: Vec<Regex>,
    pub redirect_target: Vec<Regex>,
    pub builtin: Option<Builtin>,
    pub fallback: Option<Regex>,
}

/// Structural deny rules that are not a single command's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    ForkBomb,
    DownloadToInterpreter,
}

/// A problem in an allowlist file: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file (or `<embedded>` / `<string>`).
    pub origin: String,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// The key or rule concerned, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.origin, self.line, self.column, self.message
        )?;
        if let Some(k) = &self.key {
            write!(f, " (key `{k}`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl Default for Allowlist {
    /// The embedded default allowlist.
    fn default() -> Self {
        let mut list = Allowlist::empty();
        // The embedded file is checked by the test suite; were it ever broken, an empty list
        // (everything asks) is the fail-closed outcome.
        if list
            .extend_from_toml(DEFAULT_ALLOWLIST, Some(Path::new("<embedded>")))
            .is_err()
        {
            list = Allowlist::empty();
        }
        list
    }
}

impl Allowlist {
    /// An allowlist with no entries: every program asks.
    pub fn empty() -> Allowlist {
        Allowlist {
            limits: Limits::default(),
            severity: HashMap::new(),
            inert_env: Vec::new(),
            unsafe_env: Vec::new(),
            system_dirs: ["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            git_keys: Vec::new(),
            git_inert_keys: Vec::new(),
            git_safe_values: Vec::new(),
            git_hooks: Vec::new(),
            programs: HashMap::new(),
            option_sets: HashMap::new(),
            entries: HashMap::new(),
            wrappers: HashMap::new(),
            shells: HashMap::new(),
            deny: Vec::new(),
            examples: Vec::new(),
        }
    }

    /// Parses an allowlist from TOML text. `origin` names the file in error messages.
    pub fn from_toml(text: &str, origin: Option<&Path>) -> Result<Allowlist, ConfigError> {
        let mut list = Allowlist::empty();
        list.extend_from_toml(text, origin)?;
        Ok(list)
    }

    /// Reads and parses an allowlist file.
    pub fn load(path: &Path) -> Result<Allowlist, ConfigError> {
        let mut list = Allowlist::empty();
        list.extend_from_file(path)?;
        Ok(list)
    }

    /// Adds the rules of another file: entries, wrappers and deny rules are appended; limits,
    /// `[env]` and `[severity]` values it sets replace the current ones.
    pub fn extend_from_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: path.display().to_string(),
            line: 0,
            column: 0,
            key: None,
            message: format!("cannot read the allowlist: {e}"),
        })?;
        self.extend_from_toml(&text, Some(path))
    }

    /// Adds the rules of TOML text (see [`Allowlist::extend_from_file`]).
    pub fn extend_from_toml(
        &mut self,
        text: &str,
        origin: Option<&Path>,
    ) -> Result<(), ConfigError> {
        let origin_name = origin
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "<string>".to_string());
        let at = |span: std::ops::Range<usize>| location(text, &origin_name, span.start);
        let err = |span: std::ops::Range<usize>, key: &str, message: String| {
            let l = at(span);
            ConfigError {
                origin: l.origin,
                line: l.line,
                column: l.column,
                key: Some(key.to_string()),
                message,
            }
        };
        let raw: RawConfig = ::toml::from_str(text).map_err(|e| {
            let l = at(e.span().unwrap_or(0..0));
            ConfigError {
                origin: l.origin,
                line: l.line,
                column: l.column,
                key: None,
                message: e.message().trim_end_matches('\n').to_string(),
            }
        })?;
        if let Some(l) = raw.limits {
            self.limits = l;
        }
        for (name, v) in raw.severity {
            let code = Code::from_name(name.get_ref()).ok_or_else(|| {
                err(
                    name.span(),
                    name.get_ref(),
                    format!(
                        "unknown finding code `{}`; known codes: {}",
                        name.get_ref(),
                        Code::ALL
                            .iter()
                            .map(|c| c.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
            self.severity.insert(code, v);
        }
        if let Some(env) = raw.env {
            self.inert_env
                .extend(env.inert.into_iter().map(NamePattern));
            self.unsafe_env
                .extend(env.unsafe_names.into_iter().map(NamePattern));
        }
        if let Some(dirs) = raw.system_dirs {
            self.system_dirs = dirs;
        }
        if let Some(git) = raw.git {
            if let Some(keys) = git.program_keys {
                self.git_keys = keys
                    .into_iter()
                    .map(|k| {
                        KeyPattern::parse(k.get_ref()).map_err(|m| err(k.span(), "program_keys", m))
                    })
                    .collect::<Result<_, _>>()?;
            }
            if let Some(keys) = git.inert_keys {
                for k in keys {
                    self.git_inert_keys.push(
                        KeyPattern::parse(k.get_ref())
                            .map_err(|m| err(k.span(), "inert_keys", m))?,
                    );
                }
            }
            if let Some(values) = git.safe_values {
                self.git_safe_values = values
                    .into_iter()
                    .map(|(k, v)| {
                        KeyPattern::parse(k.get_ref())
                            .map(|p| (p, v))
                            .map_err(|m| err(k.span(), "safe_values", m))
                    })
                    .collect::<Result<_, _>>()?;
            }
            if let Some(hooks) = git.hooks {
                self.git_hooks = hooks;
            }
        }
        for p in raw.program {
            self.programs.insert(
                p.name.get_ref().clone(),
                Program {
                    harmless: p.harmless,
                    flags: p.flags,
                    value_options: p.value_options,
                },
            );
        }
        for set in raw.option_set {
            self.option_sets.insert(set.name, set.options);
        }
        let examples = |rule: &str,
                        list: Vec<::toml::Spanned<String>>,
                        kind: ExampleKind,
                        out: &mut Vec<Example>| {
            for m in list {
                out.push(Example {
                    at: at(m.span()),
                    command: m.into_inner(),
                    kind,
                    rule: rule.to_string(),
                });
            }
        };
        let mut new_examples = Vec::new();
        for e in raw.allow {
            let words = split_command(e.command.get_ref());
            let Some(first) = words.first().cloned() else {
                return Err(err(e.command.span(), "command", "empty `command`".into()));
            };
            let checker = match e.checker.as_ref().map(|c| c.get_ref().as_str()) {
                None => None,
                Some("sed") => Some(Checker::Sed),
                Some("awk") => Some(Checker::Awk),
                Some("find") => Some(Checker::Find),
                Some("test") => Some(Checker::Test),
                Some("git-format") => Some(Checker::GitFormat),
                Some(other) => {
                    let span = e.checker.as_ref().map(|c| c.span()).unwrap_or(0..0);
                    return Err(err(
                        span,
                        "checker",
                        format!(
                            "unknown checker `{other}`; known: sed, awk, find, test, git-format"
                        ),
                    ));
                }
            };
            let options = match &e.options {
                Some(list) => {
                    let parser = match e.style {
                        RawStyle::Gnu => Parser::Getopt,
                        RawStyle::Words => Parser::Words,
                        RawStyle::BundleNext => Parser::BundleNext,
                    };
                    let mut table = options::expand(list, &self.option_sets)
                        .and_then(|list| {
                            options::compile(parser, &list, e.known_options.as_deref())
                        })
                        .map_err(|m| err(e.command.span(), "options", m.to_string()))?;
                    table.options_first = e.options_first;
                    Some(table)
                }
                None => None,
            };
            let operand_pattern = match &e.operand_pattern {
                Some(r) => Some(Regex::new(r).map_err(|x| {
                    err(
                        e.command.span(),
                        "operand_pattern",
                        format!("invalid regex `{r}`: {x}"),
                    )
                })?),
                None => None,
            };
            let has_rules = !e.forbid.is_empty()
                || options.is_some()
                || operand_pattern.is_some()
                || e.only_options.is_some()
                || e.max_operands.is_some()
                || checker.is_some();
            let args = match e.args {
                Some(RawArgs::Inert) => ArgsMode::Inert,
                Some(RawArgs::Files) => ArgsMode::Files,
                Some(RawArgs::Restricted) => ArgsMode::Restricted,
                None if has_rules => ArgsMode::Restricted,
                None => ArgsMode::Files,
            };
            let name = e.command.get_ref().clone();
            examples(&name, e.matches, ExampleKind::Allowed, &mut new_examples);
            examples(
                &name,
                e.not_match,
                ExampleKind::NotAllowed,
                &mut new_examples,
            );
            self.entries.entry(first).or_default().push(Entry {
                words,
                name,
                args,
                spec: OptionSpec {
                    style: match e.style {
                        RawStyle::Gnu | RawStyle::BundleNext => Style::Gnu,
                        RawStyle::Words => Style::Words,
                    },
                    value_options: e.value_options,
                },
                forbid: e.forbid,
                only_options: e.only_options,
                max_operands: e.max_operands,
                checker,
                options,
                min_operands: e.min_operands,
                operand_pattern,
            });
        }
        for w in raw.wrapper {
            let name = w.command.get_ref().clone();
            examples(&name, w.matches, ExampleKind::Allowed, &mut new_examples);
            examples(
                &name,
                w.not_match,
                ExampleKind::NotAllowed,
                &mut new_examples,
            );
            self.wrappers.insert(
                name.clone(),
                Wrapper {
                    name,
                    flags: w.flags,
                    spec: OptionSpec {
                        style: Style::Gnu,
                        value_options: w.value_options,
                    },
                    operands: w.operands,
                    assignments: w.assignments,
                    appends_dynamic: w.appends_dynamic,
                    split_option: w.split_option,
                    chdir_options: w.chdir_options,
                    replace_options: w.replace_options,
                    severity: w.severity,
                },
            );
        }
        for s in raw.shell {
            let name = s.command.get_ref().clone();
            examples(&name, s.matches, ExampleKind::Allowed, &mut new_examples);
            examples(
                &name,
                s.not_match,
                ExampleKind::NotAllowed,
                &mut new_examples,
            );
            self.shells.insert(
                name,
                Shell {
                    flags: s.flags,
                    dialect: s.dialect,
                },
            );
        }
        for d in raw.deny {
            let id = d.id.get_ref().clone();
            let regexes = |list: &[String], key: &str| -> Result<Vec<Regex>, ConfigError> {
                list.iter()
                    .map(|r| {
                        Regex::new(r).map_err(|e| {
                            err(
                                d.id.span(),
                                key,
                                format!("invalid regex `{r}` in rule `{id}`: {e}"),
                            )
                        })
                    })
                    .collect()
            };
            let any_operand = regexes(&d.any_operand, "any_operand")?;
            let redirect_target = regexes(&d.redirect_target, "redirect_target")?;
            let fallback = match &d.fallback_regex {
                Some(r) => regexes(std::slice::from_ref(r), "fallback_regex")?.pop(),
                None => None,
            };
            let builtin = match d.builtin.as_deref() {
                None => None,
                Some("fork-bomb") => Some(Builtin::ForkBomb),
                Some("download-to-interpreter") => Some(Builtin::DownloadToInterpreter),
                Some(other) => {
                    return Err(err(
                        d.id.span(),
                        "builtin",
                        format!(
                            "unknown builtin rule `{other}` in `{id}`; known: fork-bomb, download-to-interpreter"
                        ),
                    ));
                }
            };
            if d.command.is_none() && builtin.is_none() && redirect_target.is_empty() {
                return Err(err(
                    d.id.span(),
                    "command",
                    format!("deny rule `{id}` needs `command`, `builtin` or `redirect_target`"),
                ));
            }
            examples(&id, d.matches, ExampleKind::Denied, &mut new_examples);
            examples(&id, d.not_match, ExampleKind::NotDenied, &mut new_examples);
            self.deny.push(DenyRule {
                id,
                reason: d.reason,
                command: d.command.map(|c| split_command(c.get_ref())),
                any_option: d.any_option,
                all_options: d.all_options,
                spec: OptionSpec {
                    style: match d.style {
                        RawStyle::Gnu | RawStyle::BundleNext => Style::Gnu,
                        RawStyle::Words => Style::Words,
                    },
                    value_options: d.value_options,
                },
                any_operand,
                redirect_target,
                builtin,
                fallback,
            });
        }
        self.examples.extend(new_examples);
        Ok(())
    }

    /// Number of `[[allow]]` entries.
    pub fn entry_count(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The severity of a finding code under this allowlist.
    pub fn severity(&self, code: Code) -> Verdict {
        self.severity
            .get(&code)
            .copied()
            .unwrap_or_else(|| code.default_severity())
    }

    /// True when `name` may be exported to a program: `[env] inert` lists it and `[env] unsafe`
    /// does not. Every other name may change what a program runs, loads or writes.
    ///
    /// ```
    /// let list = cmdguard::Allowlist::default();
    /// assert!(list.is_inert_env("LC_ALL"));
    /// assert!(!list.is_inert_env("GCONV_PATH"));
    /// ```
    pub fn is_inert_env(&self, name: &str) -> bool {
        self.inert_env.iter().any(|p| p.matches(name))
            && !self.unsafe_env.iter().any(|p| p.matches(name))
    }

    /// True when assigning `name` for a program may change what it runs or loads: any name
    /// not [inert](Allowlist::is_inert_env).
    pub fn is_unsafe_env(&self, name: &str) -> bool {
        !self.is_inert_env(name)
    }

    /// The longest entry whose words are a prefix of `words`.
    pub(crate) fn lookup(&self, words: &[&str]) -> Option<&Entry> {
        let first = words.first()?;
        self.entries
            .get(*first)?
            .iter()
            .filter(|e| {
                e.words.len() <= words.len() && e.words.iter().zip(words).all(|(a, b)| a == b)
            })
            .max_by_key(|e| e.words.len())
    }
}

/// Splits an allowlist `command` into words on whitespace.
fn split_command(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn location(text: &str, origin: &str, offset: usize) -> Location {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    Location {
        origin: origin.to_string(),
        line,
        column,
    }
}

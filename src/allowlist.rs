//! allowlist: the compiled allowlist — entries indexed by their first word, argument rules,
//! wrappers, shells, deny rules, severity overrides and limits — built from `allowlist.toml`.
//!
//! [`AllowlistBuilder`] collects files and texts (the serialised form, `allowlist/toml.rs`);
//! `build()` compiles each table with one function per table and verifies the examples.
//! Loading returns typed errors naming file, line, column and key. Nothing here analyses a
//! command: verifying examples runs the analyser, so `build()` lives in `analyzer.rs`.

mod embedded;
mod entries;
mod key;
pub(crate) mod options;
pub(crate) mod sensitive;
pub(crate) mod toml;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use ::toml::Spanned;
use regex::Regex;
use serde::Deserialize as _;

use self::entries::{Deferred, Entries};
pub(crate) use self::key::KeyPattern;
use self::options::{LazyTable, Parser, TableSpec};
use self::sensitive::{Glob, Sensitive};
use self::toml::{
    RawArgs, RawBuiltin, RawChecker, RawConfig, RawDeny, RawEntry, RawGit, RawPackFile, RawPacks,
    RawSensitive, RawShell, RawStyle, RawWrapper,
};
use crate::finding::{Code, Finding, Rule, RuleOrigin, Verdict};
use crate::limits::Limits;

/// The default allowlist, embedded in the binary.
pub const DEFAULT_ALLOWLIST: &str = include_str!("../allowlist.toml");

/// The default deny packs, embedded in the binary: each a file name under `packs/` and its
/// text (a `[pack]` header and `[[deny]]` rules). [`AllowlistBuilder::add_default`] adds them.
pub const DEFAULT_PACKS: &[(&str, &str)] = &[
    (
        "core.filesystem.toml",
        include_str!("../packs/core.filesystem.toml"),
    ),
    ("core.git.toml", include_str!("../packs/core.git.toml")),
    ("system.toml", include_str!("../packs/system.toml")),
    ("containers.toml", include_str!("../packs/containers.toml")),
    ("kubernetes.toml", include_str!("../packs/kubernetes.toml")),
    ("databases.toml", include_str!("../packs/databases.toml")),
    ("cloud.toml", include_str!("../packs/cloud.toml")),
    (
        "package_managers.toml",
        include_str!("../packs/package_managers.toml"),
    ),
];

/// Packs whose rules are code rather than `[[deny]]` tables, on by default: `[packs]` may name
/// them, and the code consults [`Allowlist::pack_enabled`] (`interpreters`: interpreter
/// one-liners that delete or run denied commands).
pub const ENGINE_PACKS: &[&str] = &["interpreters"];

/// The compiled rules cmdguard checks commands against: [`Allowlist::default`] (the embedded
/// `allowlist.toml`), or what an [`AllowlistBuilder`] built from files and texts, its examples
/// verified. Hand it to an [`Analyzer`](crate::Analyzer).
///
/// ```
/// use cmdguard::Allowlist;
/// let list = Allowlist::builder()
///     .add_default()
///     .add_toml("[[allow]]\ncommand = \"cargo check\"\n", None)
///     .build()?;
/// assert_eq!(list.entry_count(), Allowlist::default().entry_count() + 1);
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
    pub(crate) sensitive: Sensitive,
    pub(crate) programs: HashMap<String, Program>,
    pub(crate) option_sets: HashMap<String, Arc<[String]>>,
    /// `[[allow]]` by program; the embedded ones compiled on first lookup (`allowlist/entries.rs`).
    pub(crate) entries: Entries,
    pub(crate) wrappers: HashMap<String, Wrapper>,
    pub(crate) shells: HashMap<String, Shell>,
    pub(crate) deny: Vec<DenyRule>,
    /// `deny` by program name, built when a command first meets the rules (check/deny.rs).
    pub(crate) deny_index: OnceLock<crate::check::DenyIndex>,
    pub(crate) examples: Vec<Example>,
    pub(crate) packs: Vec<Pack>,
    /// `[packs]` entries, applied once every source is compiled (a pack may come later).
    pub(crate) pack_toggles: Vec<PackToggle>,
}

/// A deny pack: a named group of deny rules that can be turned on and off as one.
///
/// ```
/// let list = cmdguard::Allowlist::default();
/// let git = list.packs().iter().find(|p| p.id == "core.git").unwrap();
/// assert!(git.enabled);
/// assert!(list.pack_enabled("core.git"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The id rules are qualified with (`core.git`) and `[packs]` names.
    pub id: String,
    /// What the pack denies.
    pub description: String,
    /// Where the pack's `[pack]` header is written ([`RuleOrigin::BuiltIn`] for engine packs).
    pub origin: RuleOrigin,
    /// Whether its rules apply, after `[packs]`.
    pub enabled: bool,
}

/// One `enable` / `disable` entry of a `[packs]` table.
#[derive(Debug, Clone)]
pub(crate) struct PackToggle {
    id: String,
    enable: bool,
    at: Location,
}

/// A `match` / `not_match` example to verify once the allowlist is complete.
#[derive(Debug, Clone)]
pub(crate) struct Example {
    pub command: String,
    pub kind: ExampleKind,
    pub rule: String,
    pub at: Location,
    /// The pack of the rule the example belongs to: a disabled pack's examples are not run.
    pub pack: Option<String>,
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

impl Location {
    fn rule_origin(&self) -> RuleOrigin {
        RuleOrigin::File {
            path: self.origin.clone(),
            line: self.line,
        }
    }
}

impl Entry {
    /// The entry as a rule: its id and origin.
    pub fn rule(&self) -> Rule {
        Rule {
            id: self.name.clone(),
            origin: self.origin.clone(),
        }
    }
}

impl Wrapper {
    /// The wrapper as a rule: its id and origin.
    pub fn rule(&self) -> Rule {
        Rule {
            id: self.name.clone(),
            origin: self.origin.clone(),
        }
    }
}

impl Shell {
    /// The shell as a rule: its id and origin.
    pub fn rule(&self) -> Rule {
        Rule {
            id: self.name.clone(),
            origin: self.origin.clone(),
        }
    }
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
    pub origin: RuleOrigin,
    pub args: ArgsMode,
    pub spec: OptionSpec,
    pub forbid: Vec<String>,
    pub only_options: Option<Vec<String>>,
    pub max_operands: Option<usize>,
    pub checker: Option<Checker>,
    /// The permitted option table; when present, every option outside it asks.
    pub options: Option<LazyTable>,
    /// Fewest operands allowed.
    pub min_operands: Option<usize>,
    /// A regex every operand must match.
    pub operand_pattern: Option<RuleRegex>,
    /// Whether the operands name files the program reads (`[sensitive]` paths among them ask).
    pub reads_operands: bool,
}

/// One compiled `[[wrapper]]`.
#[derive(Debug, Clone)]
pub(crate) struct Wrapper {
    pub name: String,
    pub origin: RuleOrigin,
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
    pub name: String,
    pub origin: RuleOrigin,
    pub flags: Vec<String>,
    /// The language it reads scripts in; outside bash, only the syntax shared with bash passes.
    pub dialect: Dialect,
}

/// Which shell language reads a nested script (`dialect` in `[[shell]]`); `check/dialect.rs`
/// knows what each one shares with bash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Dialect {
    /// bash itself: the script is analysed as it is.
    Bash,
    /// A POSIX shell (dash as `/bin/sh`, ksh): only the syntax POSIX and bash share. The
    /// default for any shell not declared otherwise, since it is the stricter reading.
    #[default]
    Posix,
    /// zsh: plain commands, quoting and operators only.
    Zsh,
}

/// One compiled `[[deny]]` rule.
#[derive(Debug, Clone)]
pub(crate) struct DenyRule {
    /// Pack-qualified for a pack's rules (`core.git/git-clean-force`).
    pub id: String,
    pub reason: String,
    pub origin: RuleOrigin,
    /// The pack it belongs to; `None` for a `[[deny]]` table in an allowlist file.
    pub pack: Option<String>,
    pub command: Option<Vec<String>>,
    pub any_option: Vec<String>,
    pub all_options: Vec<Vec<String>>,
    pub no_option: Vec<String>,
    pub min_operands: Option<usize>,
    pub operand_after_double_dash: bool,
    pub value_of: Vec<String>,
    pub any_value: Vec<RuleRegex>,
    pub spec: OptionSpec,
    pub any_operand: Vec<RuleRegex>,
    /// The first operand must match one of these (`redis-cli FLUSHALL`, not `GET flushall`).
    pub first_operand: Vec<RuleRegex>,
    /// No static operand may match one of these (`aws … help` prints help).
    pub no_operand: Vec<RuleRegex>,
    pub redirect_target: Vec<RuleRegex>,
    pub builtin: Option<Builtin>,
    pub fallback: Option<RuleRegex>,
}

/// A regex of a rule, compiled the first time the rule is reached: one check reaches a handful
/// of the hundred-odd regexes the default allowlist and packs hold, and compiling all of them
/// was most of the start-up once the rules were parsed.
///
/// A user's file is compiled when it loads, so a bad regex is a config error naming its place.
/// The embedded sources are deferred: a unit test compiles each of their regexes.
#[derive(Debug, Clone)]
pub(crate) struct RuleRegex {
    source: Box<str>,
    compiled: OnceLock<Option<Regex>>,
}

impl RuleRegex {
    /// Compiles `source` now: an invalid one is the error.
    fn checked(source: &str) -> Result<RuleRegex, regex::Error> {
        let re = Regex::new(source)?;
        Ok(RuleRegex {
            source: source.into(),
            compiled: OnceLock::from(Some(re)),
        })
    }

    /// Keeps `source` to compile when first used (an embedded source, tested to compile).
    fn deferred(source: &str) -> RuleRegex {
        RuleRegex {
            source: source.into(),
            compiled: OnceLock::new(),
        }
    }

    /// The regex as written.
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "read by the test of the embedded regexes")
    )]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled regex; `None` only for a deferred one that does not compile, which the
    /// test of the embedded sources rules out.
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
    }

    /// True when the regex matches somewhere in `text`; never for a regex that does not
    /// compile (unreachable for the embedded sources, see above).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex().is_some_and(|re| re.is_match(text))
    }
}

/// Structural deny rules that are not a single command's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    ForkBomb,
    DownloadToInterpreter,
    DestructiveSql,
    XargsDelete,
}

/// A problem in an allowlist file: where it is and what is wrong.
#[derive(Debug, Clone)]
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
    /// The error underneath (the file could not be read), for [`std::error::Error::source`].
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl ConfigError {
    /// An error at `at` about `key`.
    pub(crate) fn at(at: Location, key: Option<&str>, message: String) -> ConfigError {
        ConfigError {
            origin: at.origin,
            line: at.line,
            column: at.column,
            key: key.map(str::to_string),
            message,
            source: None,
        }
    }

    /// The error with `source` underneath it.
    fn caused_by(mut self, source: impl std::error::Error + Send + Sync + 'static) -> ConfigError {
        self.source = Some(Arc::new(source));
        self
    }
}

impl PartialEq for ConfigError {
    /// Errors are equal when they say the same thing at the same place; what lies underneath
    /// (an io error) is not compared.
    fn eq(&self, other: &ConfigError) -> bool {
        (
            &self.origin,
            self.line,
            self.column,
            &self.key,
            &self.message,
        ) == (
            &other.origin,
            other.line,
            other.column,
            &other.key,
            &other.message,
        )
    }
}

impl Eq for ConfigError {}

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

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Collects allowlist files and texts; [`AllowlistBuilder::build`] compiles them, in the order
/// added, into an [`Allowlist`] and verifies every `match` / `not_match` example.
///
/// Later sources add entries, wrappers, shells and deny rules to the earlier ones; the limits,
/// `[env]`, `[git]` lists, system directories and `[severity]` values they set replace the
/// earlier ones.
///
/// ```
/// use cmdguard::{AllowlistBuilder, Analyzer, Verdict};
/// let list = AllowlistBuilder::new()
///     .add_default()
///     .add_toml(
///         "[[allow]]\ncommand = \"cargo check\"\nmatch = [\"cargo check -q\"]\n",
///         None,
///     )
///     .build()?;
/// assert_eq!(Analyzer::new(list).analyze("cargo check --all-targets").verdict, Verdict::Allow);
/// # Ok::<(), cmdguard::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct AllowlistBuilder {
    sources: Vec<Source>,
}

/// One text added to a builder, with the name errors give it.
#[derive(Debug, Clone)]
struct Source {
    text: Cow<'static, str>,
    origin: String,
    kind: SourceKind,
    regexes: Regexes,
    /// The build-time form of an embedded text (`allowlist/embedded.rs`), read instead of it.
    compiled: Option<&'static embedded::Compiled>,
}

/// When a source's regexes and option tables are compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Regexes {
    /// When it loads: a bad one is a config error (every file and text a caller adds).
    OnLoad,
    /// When a rule is first reached: the embedded sources, whose regexes a test compiles.
    OnUse,
}

/// What a source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceKind {
    /// An allowlist file (`allowlist.toml`'s format).
    Allowlist,
    /// A deny pack (`[pack]` and `[[deny]]`).
    Pack,
}

impl AllowlistBuilder {
    /// A builder with no rules: built as it is, every program asks.
    pub fn new() -> AllowlistBuilder {
        AllowlistBuilder::default()
    }

    /// Adds the embedded default allowlist ([`DEFAULT_ALLOWLIST`]) and the default deny packs
    /// ([`DEFAULT_PACKS`]).
    pub fn add_default(&mut self) -> &mut AllowlistBuilder {
        self.sources.push(Source {
            text: Cow::Borrowed(DEFAULT_ALLOWLIST),
            origin: EMBEDDED.to_string(),
            kind: SourceKind::Allowlist,
            regexes: Regexes::OnUse,
            compiled: Some(embedded::allowlist()),
        });
        self.add_default_packs()
    }

    /// Adds the default deny packs ([`DEFAULT_PACKS`]) alone: for an allowlist that replaces
    /// the default one but keeps its deny rules.
    pub fn add_default_packs(&mut self) -> &mut AllowlistBuilder {
        for (file, text) in DEFAULT_PACKS {
            self.sources.push(Source {
                text: Cow::Borrowed(text),
                origin: format!("{EMBEDDED}/packs/{file}"),
                kind: SourceKind::Pack,
                regexes: Regexes::OnUse,
                compiled: embedded::pack(file),
            });
        }
        self
    }

    /// Adds a deny pack's TOML text: a `[pack]` table with its `id`, and `[[deny]]` rules,
    /// whose ids the pack's id qualifies. `origin` names the file as in
    /// [`AllowlistBuilder::add_toml`].
    ///
    /// ```
    /// use cmdguard::{AllowlistBuilder, Analyzer, Verdict};
    /// let pack = r#"
    /// [pack]
    /// id = "acme"
    /// description = "our own release tool"
    ///
    /// [[deny]]
    /// id = "release-delete"
    /// reason = "deletes a published release"
    /// command = "acme-release delete"
    /// match = ["acme-release delete v1.2"]
    /// "#;
    /// let list = AllowlistBuilder::new().add_default().add_pack(pack, None).build()?;
    /// let a = Analyzer::new(list).analyze("acme-release delete v1.2");
    /// assert_eq!(a.verdict, Verdict::Deny);
    /// assert_eq!(a.findings[0].rule.as_deref(), Some("acme/release-delete"));
    /// # Ok::<(), cmdguard::ConfigError>(())
    /// ```
    pub fn add_pack(&mut self, text: &str, origin: Option<&Path>) -> &mut AllowlistBuilder {
        self.sources.push(Source {
            text: Cow::Owned(text.to_string()),
            origin: origin.map_or_else(|| "<string>".to_string(), |p| p.display().to_string()),
            kind: SourceKind::Pack,
            regexes: Regexes::OnLoad,
            compiled: None,
        });
        self
    }

    /// Reads a deny pack file and adds its text (see [`AllowlistBuilder::add_pack`]).
    pub fn add_pack_file(&mut self, path: &Path) -> Result<&mut AllowlistBuilder, ConfigError> {
        let text = read(path, "cannot read the deny pack")?;
        self.sources.push(Source {
            text: Cow::Owned(text),
            origin: path.display().to_string(),
            kind: SourceKind::Pack,
            regexes: Regexes::OnLoad,
            compiled: None,
        });
        Ok(self)
    }

    /// Adds TOML text. `origin` names the file in error messages and rule origins
    /// (`<string>` when `None`). The text is parsed by [`AllowlistBuilder::build`].
    pub fn add_toml(&mut self, text: &str, origin: Option<&Path>) -> &mut AllowlistBuilder {
        self.sources.push(Source {
            text: Cow::Owned(text.to_string()),
            origin: origin.map_or_else(|| "<string>".to_string(), |p| p.display().to_string()),
            kind: SourceKind::Allowlist,
            regexes: Regexes::OnLoad,
            compiled: None,
        });
        self
    }

    /// Reads an allowlist file and adds its text.
    pub fn add_file(&mut self, path: &Path) -> Result<&mut AllowlistBuilder, ConfigError> {
        let text = read(path, "cannot read the allowlist")?;
        self.sources.push(Source {
            text: Cow::Owned(text),
            origin: path.display().to_string(),
            kind: SourceKind::Allowlist,
            regexes: Regexes::OnLoad,
            compiled: None,
        });
        Ok(self)
    }

    /// Compiles every rule of every source, without running the examples: what
    /// [`AllowlistBuilder::build`] does before verifying them, and all the embedded default
    /// needs at start-up (a test verifies its examples).
    pub(crate) fn compile(&self) -> Result<Allowlist, ConfigError> {
        self.compile_keeping(Examples::Keep)
    }

    /// [`AllowlistBuilder::compile`], keeping the `match` / `not_match` examples or not.
    fn compile_keeping(&self, examples: Examples) -> Result<Allowlist, ConfigError> {
        let mut list = Allowlist::empty();
        // The embedded packs' examples go through the embedded allowlist's wrappers and shells
        // (`sudo rm -f /*`); under a replacement allowlist they prove nothing about the packs.
        let default_list = self
            .sources
            .iter()
            .any(|s| s.kind == SourceKind::Allowlist && s.origin == EMBEDDED);
        for source in &self.sources {
            match source.kind {
                SourceKind::Allowlist => compile_source(&mut list, source, examples)?,
                SourceKind::Pack => {
                    let before = list.examples.len();
                    compile_pack(&mut list, source, examples)?;
                    if !default_list && source.origin.starts_with(EMBEDDED) {
                        list.examples.truncate(before);
                    }
                }
            }
        }
        apply_pack_toggles(&mut list)?;
        Ok(list)
    }
}

/// A file's text; `what` says what could not be read.
fn read(path: &Path, what: &str) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| {
        let at = Location {
            origin: path.display().to_string(),
            line: 0,
            column: 0,
        };
        ConfigError::at(at, None, what.to_string()).caused_by(e)
    })
}

/// The name the embedded default allowlist goes by in errors and rule origins.
const EMBEDDED: &str = "<embedded>";

impl Default for Allowlist {
    /// The embedded default allowlist, compiled without its examples (a test verifies them).
    fn default() -> Self {
        // Were the embedded file ever broken, an empty list (everything asks) is the fail-closed
        // outcome; the test suite makes sure it is not.
        AllowlistBuilder::new()
            .add_default()
            .compile_keeping(Examples::Drop)
            .unwrap_or_else(|_| Allowlist::empty())
    }
}

impl Allowlist {
    /// The `[sensitive]` pattern that `path` (an absolute path, symlinks resolved) matches,
    /// unless one of the table's exceptions covers it: whether `cat PATH` would ask for the
    /// file alone. For tools that read files by path instead of through a command (the
    /// built-in `fs` tools), so that they keep the secrets the analyser keeps. A path under
    /// `home` is also matched as `~/…`, and a path with capitals also lower-cased.
    ///
    /// ```
    /// use cmdguard::Analyzer;
    /// use std::path::Path;
    ///
    /// let list = Analyzer::default();
    /// let list = list.allowlist();
    /// assert!(list.sensitive_path(Path::new("/w/app/.env"), None).is_some());
    /// assert!(list.sensitive_path(Path::new("/w/app/README.md"), None).is_none());
    /// assert!(list.sensitive_path(Path::new("/w/app/SERVER.KEY"), None).is_some());
    /// ```
    pub fn sensitive_path(&self, path: &Path, home: Option<&Path>) -> Option<&str> {
        let text = path.to_string_lossy();
        let mut forms = vec![text.to_string()];
        if let Some(rest) = home
            .map(|h| h.to_string_lossy().trim_end_matches('/').to_owned())
            .filter(|h| h.len() > 1)
            .and_then(|h| text.strip_prefix(h.as_str()).map(str::to_owned))
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
        {
            forms.push(format!("~{rest}"));
        }
        // As the analyser does for `cat SERVER.KEY`: a name in capitals is also matched
        // lower-cased (case-insensitive file systems open `.env` for `.ENV`).
        let folded: Vec<String> = forms
            .iter()
            .filter(|f| f.bytes().any(|b| b.is_ascii_uppercase()))
            .map(|f| f.to_ascii_lowercase())
            .collect();
        forms.extend(folded);
        forms.iter().find_map(|form| {
            self.sensitive
                .reaches(&Glob::literal(form), sensitive::Which::All)
        })
    }

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
            sensitive: Sensitive::default(),
            programs: HashMap::new(),
            option_sets: HashMap::new(),
            entries: Entries::default(),
            wrappers: HashMap::new(),
            shells: HashMap::new(),
            deny: Vec::new(),
            deny_index: OnceLock::new(),
            examples: Vec::new(),
            packs: ENGINE_PACKS
                .iter()
                .map(|id| Pack {
                    id: id.to_string(),
                    description: String::new(),
                    origin: RuleOrigin::BuiltIn,
                    enabled: true,
                })
                .collect(),
            pack_toggles: Vec::new(),
        }
    }

    /// The deny packs known to this allowlist, on or off, in the order they were added.
    pub fn packs(&self) -> &[Pack] {
        &self.packs
    }

    /// True when the pack `id` is known and on: its rules apply. An unknown id is off.
    ///
    /// ```
    /// use cmdguard::AllowlistBuilder;
    /// let list = AllowlistBuilder::new()
    ///     .add_default()
    ///     .add_toml("[packs]\ndisable = [\"databases\"]\n", None)
    ///     .build()?;
    /// assert!(!list.pack_enabled("databases"));
    /// assert!(list.pack_enabled("core.git"));
    /// assert!(list.pack_enabled("interpreters"));
    /// assert!(!list.pack_enabled("no-such-pack"));
    /// # Ok::<(), cmdguard::ConfigError>(())
    /// ```
    pub fn pack_enabled(&self, id: &str) -> bool {
        self.packs.iter().any(|p| p.id == id && p.enabled)
    }

    /// The deny rule with id `id` (pack-qualified for a pack's rules, as [`Finding::rule`]
    /// names it) and where it is written.
    ///
    /// ```
    /// use cmdguard::RuleOrigin;
    /// let list = cmdguard::Allowlist::default();
    /// let rule = list.deny_rule("core.git/git-reset-hard").unwrap();
    /// let RuleOrigin::File { path, .. } = &rule.origin else { panic!() };
    /// assert_eq!(path, "<embedded>/packs/core.git.toml");
    /// ```
    pub fn deny_rule(&self, id: &str) -> Option<Rule> {
        self.deny.iter().find(|r| r.id == id).map(|r| Rule {
            id: r.id.clone(),
            origin: r.origin.clone(),
        })
    }

    /// A builder to collect allowlist files into an [`Allowlist`].
    pub fn builder() -> AllowlistBuilder {
        AllowlistBuilder::new()
    }

    /// Builds an allowlist from TOML text alone (see [`AllowlistBuilder`]). `origin` names the
    /// file in error messages.
    pub fn from_toml(text: &str, origin: Option<&Path>) -> Result<Allowlist, ConfigError> {
        AllowlistBuilder::new().add_toml(text, origin).build()
    }

    /// Builds an allowlist from one file alone (see [`AllowlistBuilder`]).
    pub fn load(path: &Path) -> Result<Allowlist, ConfigError> {
        AllowlistBuilder::new().add_file(path)?.build()
    }

    /// Number of `[[allow]]` entries.
    pub fn entry_count(&self) -> usize {
        self.entries.count()
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

    /// `finding` with the severity its code has under this allowlist: the one place the
    /// `[severity]` table is applied.
    pub(crate) fn rate(&self, finding: Finding) -> Finding {
        self.rate_at_least(finding, Verdict::Allow)
    }

    /// [`Allowlist::rate`], for a rule that asks for at least `floor` whatever the table says
    /// (a `[[wrapper]]` with a `severity`).
    pub(crate) fn rate_at_least(&self, finding: Finding, floor: Verdict) -> Finding {
        let severity = self.severity(finding.code).max(floor);
        finding.with_severity(severity)
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
            .get(first)?
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

/// Where each line of a text starts, so that turning a byte offset into a line and column
/// costs a binary search rather than a scan from the top of the file: the default allowlist
/// locates thousands of rules and examples at every start.
struct LineStarts(Cow<'static, [usize]>);

impl LineStarts {
    fn new(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineStarts(Cow::Owned(starts))
    }

    /// The 1-based line and column (in characters) of byte `offset` of `text`.
    fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        // The number of line starts at or before `offset`; there is always one, at 0.
        let line = self.0.partition_point(|&s| s <= offset);
        let start = self.0.get(line.wrapping_sub(1)).copied().unwrap_or(0);
        let column = text.get(start..offset).map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }
}

/// A source's serialised form: deserialised from its build-time form when it has one (the
/// embedded files; `build.rs` has checked they load), otherwise parsed from its text. Both go
/// through the same `Raw*` types.
fn deserialize<T: serde::de::DeserializeOwned>(
    source: &Source,
    cx: &Text<'_>,
) -> Result<T, ConfigError> {
    if let Some(compiled) = source.compiled {
        // Examples that will be dropped are not read at all.
        let root = match cx.examples {
            Examples::Keep => embedded::Node::whole(&compiled.root),
            Examples::Drop => embedded::Node::without_examples(&compiled.root),
        };
        return T::deserialize(root).map_err(|e| ConfigError::at(cx.at(0..0), None, e.to_string()));
    }
    ::toml::from_str(&source.text).map_err(|e| {
        let at = cx.at(e.span().unwrap_or(0..0));
        ConfigError::at(at, None, e.message().trim_end_matches('\n').to_string())
    })
}

/// Compiles one source's tables into `list`, in the order the file format documents them.
fn compile_source(
    list: &mut Allowlist,
    source: &Source,
    examples: Examples,
) -> Result<(), ConfigError> {
    let cx = Text::new(source, examples);
    // The embedded list's `[[allow]]` entries are filed by program and compiled on first
    // lookup (`allowlist/entries.rs`), unless the examples are kept: then all of it is
    // compiled now, as a user's file is.
    let lazy = match (source.compiled, &source.text) {
        (Some(c), Cow::Borrowed(text)) if examples == Examples::Drop => Some((c, *text)),
        _ => None,
    };
    let raw: RawConfig = match lazy {
        Some((c, _)) => RawConfig::deserialize(embedded::Node {
            item: &c.root,
            once: Some("allow"),
            everywhere: embedded::EXAMPLE_KEYS,
        })
        .map_err(|e| ConfigError::at(cx.at(0..0), None, e.to_string()))?,
        None => deserialize(source, &cx)?,
    };
    if let Some(l) = raw.limits {
        list.limits = l;
    }
    for (name, v) in raw.severity {
        list.severity.insert(compile_code(&cx, &name)?, v);
    }
    if let Some(env) = raw.env {
        list.inert_env
            .extend(env.inert.into_iter().map(NamePattern));
        list.unsafe_env
            .extend(env.unsafe_names.into_iter().map(NamePattern));
    }
    if let Some(dirs) = raw.system_dirs {
        list.system_dirs = dirs;
    }
    if let Some(git) = raw.git {
        compile_git(list, &cx, git)?;
    }
    if let Some(sensitive) = raw.sensitive {
        compile_sensitive(&mut list.sensitive, &cx, sensitive)?;
    }
    for p in raw.program {
        list.programs.insert(
            p.name.into_inner(),
            Program {
                harmless: p.harmless,
                flags: p.flags,
                value_options: p.value_options,
            },
        );
    }
    for set in raw.option_set {
        list.option_sets.insert(set.name, set.options.into());
    }
    let mut examples = Vec::new();
    for e in raw.allow {
        let entry = compile_entry(&cx, e, &list.option_sets, &mut examples)?;
        list.entries.push(entry);
    }
    if let Some((compiled, text)) = lazy {
        let from = Deferred {
            text,
            origin: source.origin.clone(),
            lines: compiled.lines,
            option_sets: list.option_sets.clone(),
        };
        defer_entries(list, &cx, compiled.root.field("allow"), from)?;
    }
    for w in raw.wrapper {
        let wrapper = compile_wrapper(&cx, w, &mut examples);
        list.wrappers.insert(wrapper.name.clone(), wrapper);
    }
    for s in raw.shell {
        let shell = compile_shell(&cx, s, &mut examples);
        list.shells.insert(shell.name.clone(), shell);
    }
    for d in raw.deny {
        list.deny.push(compile_deny(&cx, d, None, &mut examples)?);
    }
    if let Some(packs) = raw.packs {
        compile_pack_toggles(list, &cx, packs);
    }
    list.examples.extend(examples);
    Ok(())
}

/// Files the build-time form's `[[allow]]` entries under their programs, to be compiled when
/// first looked up, with the option sets as they stand now. An entry whose program cannot be
/// read without deserialising it (no string `command`) is compiled now, so that what is wrong
/// with it is reported as it would be for a user's file.
fn defer_entries(
    list: &mut Allowlist,
    cx: &Text<'_>,
    allow: Option<&'static embedded::Item>,
    from: Deferred,
) -> Result<(), ConfigError> {
    let from = Arc::new(from);
    for item in allow.map_or(&[][..], embedded::Item::elements) {
        let program = item
            .field("command")
            .and_then(embedded::Item::as_str)
            .and_then(|c| c.split_whitespace().next());
        match program {
            Some(program) => list.entries.defer(program, item, &from),
            None => {
                let raw = RawEntry::deserialize(embedded::Node::without_examples(item))
                    .map_err(|e| ConfigError::at(cx.at(0..0), Some("allow"), e.to_string()))?;
                let entry = compile_entry(cx, raw, &list.option_sets, &mut Vec::new())?;
                list.entries.push(entry);
            }
        }
    }
    Ok(())
}

/// Compiles a deny pack: its header, then its rules with their ids qualified by the pack's.
fn compile_pack(
    list: &mut Allowlist,
    source: &Source,
    examples: Examples,
) -> Result<(), ConfigError> {
    let cx = Text::new(source, examples);
    let raw: RawPackFile = deserialize(source, &cx)?;
    let id = raw.pack.id.get_ref();
    let valid = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
    if !valid {
        return Err(cx.err(
            raw.pack.id.span(),
            "id",
            format!("pack id `{id}` must be lowercase letters, digits, `.`, `_` or `-`"),
        ));
    }
    if list.packs.iter().any(|p| &p.id == id) {
        return Err(cx.err(
            raw.pack.id.span(),
            "id",
            format!("pack `{id}` is defined twice; give this pack another id"),
        ));
    }
    for p in raw.program {
        if !p.harmless.is_empty() {
            return Err(cx.err(
                p.name.span(),
                "harmless",
                format!(
                    "pack `{id}` declares harmless options for `{}`; only an allowlist may",
                    p.name.get_ref()
                ),
            ));
        }
        // Added to what the allowlist says, never replacing it.
        let known = list.programs.entry(p.name.into_inner()).or_default();
        known.flags.extend(p.flags);
        known.value_options.extend(p.value_options);
    }
    list.packs.push(Pack {
        id: id.clone(),
        description: raw.pack.description,
        origin: cx.at(raw.pack.id.span()).rule_origin(),
        enabled: raw.pack.enabled,
    });
    let mut examples = Vec::new();
    for d in raw.deny {
        list.deny
            .push(compile_deny(&cx, d, Some(id.as_str()), &mut examples)?);
    }
    list.examples.extend(examples);
    Ok(())
}

/// `[packs]`: recorded here, applied by [`apply_pack_toggles`] once every pack is known.
fn compile_pack_toggles(list: &mut Allowlist, cx: &Text<'_>, packs: RawPacks) {
    let RawPacks { enable, disable } = packs;
    let toggles = enable
        .into_iter()
        .map(|p| (p, true))
        .chain(disable.into_iter().map(|p| (p, false)));
    for (p, on) in toggles {
        list.pack_toggles.push(PackToggle {
            at: cx.at(p.span()),
            id: p.into_inner(),
            enable: on,
        });
    }
}

/// Turns packs on and off as `[packs]` tables say, in order, then drops the rules and
/// examples of the packs that are off. An unknown pack id is an error.
fn apply_pack_toggles(list: &mut Allowlist) -> Result<(), ConfigError> {
    for t in std::mem::take(&mut list.pack_toggles) {
        let Some(pack) = list.packs.iter_mut().find(|p| p.id == t.id) else {
            let known: Vec<&str> = list.packs.iter().map(|p| p.id.as_str()).collect();
            let key = if t.enable { "enable" } else { "disable" };
            let message = format!(
                "unknown pack `{}` in `[packs] {key}`; known packs: {}",
                t.id,
                known.join(", ")
            );
            return Err(ConfigError::at(t.at, Some(key), message));
        };
        pack.enabled = t.enable;
    }
    let packs = &list.packs;
    let on = |pack: &Option<String>| {
        pack.as_deref()
            .is_none_or(|id| packs.iter().any(|p| p.id == id && p.enabled))
    };
    list.deny.retain(|r| on(&r.pack));
    list.examples.retain(|e| on(&e.pack));
    Ok(())
}

/// The text being compiled, to turn spans into locations.
struct Text<'a> {
    text: &'a str,
    origin: &'a str,
    lines: LineStarts,
    regexes: Regexes,
    examples: Examples,
}

/// Whether compiling keeps the examples, which only [`AllowlistBuilder::build`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Examples {
    Keep,
    /// [`Allowlist::default`]: the embedded examples are verified by the test suite, and
    /// locating thousands of them was an eighth of the start-up.
    Drop,
}

impl<'a> Text<'a> {
    fn new(source: &'a Source, examples: Examples) -> Text<'a> {
        Text {
            text: &source.text,
            origin: &source.origin,
            lines: match source.compiled {
                Some(c) => LineStarts(Cow::Borrowed(c.lines)),
                None => LineStarts::new(&source.text),
            },
            regexes: source.regexes,
            examples,
        }
    }

    /// A rule's regex, compiled when the source says.
    fn regex(&self, source: &str) -> Result<RuleRegex, regex::Error> {
        match self.regexes {
            Regexes::OnLoad => RuleRegex::checked(source),
            Regexes::OnUse => Ok(RuleRegex::deferred(source)),
        }
    }

    fn at(&self, span: Range<usize>) -> Location {
        let (line, column) = self.lines.line_col(self.text, span.start);
        Location {
            origin: self.origin.to_string(),
            line,
            column,
        }
    }

    fn err(&self, span: Range<usize>, key: &str, message: String) -> ConfigError {
        ConfigError::at(self.at(span), Some(key), message)
    }

    /// Records the `match` / `not_match` examples of rule `rule`.
    fn examples(
        &self,
        rule: &str,
        list: Vec<Spanned<String>>,
        kind: ExampleKind,
        out: &mut Vec<Example>,
    ) {
        if self.examples == Examples::Drop {
            return;
        }
        for m in list {
            out.push(Example {
                at: self.at(m.span()),
                command: m.into_inner(),
                kind,
                rule: rule.to_string(),
                pack: None,
            });
        }
    }
}

/// A `[severity]` key: a finding code's name.
fn compile_code(cx: &Text<'_>, name: &Spanned<String>) -> Result<Code, ConfigError> {
    Code::from_name(name.get_ref()).ok_or_else(|| {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        cx.err(
            name.span(),
            name.get_ref(),
            format!(
                "unknown finding code `{}`; known codes: {}",
                name.get_ref(),
                known.join(", ")
            ),
        )
    })
}

/// `[sensitive]`: each pattern appended as written, compiled when the table is first read
/// (`allowlist/sensitive.rs` says why). A user's file has each pattern compiled here too, so
/// that a bad one names its key and place; the embedded table's are compiled by a test. Lists
/// only grow, so a user file adds paths, or turns a default off through `allow_paths`.
fn compile_sensitive(
    out: &mut Sensitive,
    cx: &Text<'_>,
    raw: RawSensitive,
) -> Result<(), ConfigError> {
    let RawSensitive {
        paths,
        allow_paths,
        secret_vars,
        public_vars,
        public_paths,
    } = raw;
    for (list, patterns) in [
        (sensitive::List::Paths, paths),
        (sensitive::List::AllowPaths, allow_paths),
        (sensitive::List::SecretVars, secret_vars),
        (sensitive::List::PublicVars, public_vars),
        (sensitive::List::PublicPaths, public_paths),
    ] {
        for p in patterns {
            if cx.regexes == Regexes::OnLoad {
                list.compile(p.get_ref())
                    .map_err(|e| cx.err(p.span(), list.key(), format!("invalid pattern: {e}")))?;
            }
            out.push(list, p.into_inner());
        }
    }
    Ok(())
}

/// `[git]`: key patterns are parsed once here.
fn compile_git(list: &mut Allowlist, cx: &Text<'_>, git: RawGit) -> Result<(), ConfigError> {
    if let Some(keys) = git.program_keys {
        list.git_keys = keys
            .into_iter()
            .map(|k| {
                KeyPattern::parse(k.get_ref())
                    .map_err(|e| cx.err(k.span(), "program_keys", e.to_string()))
            })
            .collect::<Result<_, _>>()?;
    }
    // An allowlist, so a later file only adds to it.
    for k in git.inert_keys.into_iter().flatten() {
        list.git_inert_keys.push(
            KeyPattern::parse(k.get_ref())
                .map_err(|e| cx.err(k.span(), "inert_keys", e.to_string()))?,
        );
    }
    if let Some(values) = git.safe_values {
        list.git_safe_values = values
            .into_iter()
            .map(|(k, v)| {
                KeyPattern::parse(k.get_ref())
                    .map(|p| (p, v))
                    .map_err(|e| cx.err(k.span(), "safe_values", e.to_string()))
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(hooks) = git.hooks {
        list.git_hooks = hooks;
    }
    Ok(())
}

/// `[[allow]]`: an entry needs a command; rules without an explicit `args` restrict dynamic
/// arguments.
fn compile_entry(
    cx: &Text<'_>,
    mut e: RawEntry,
    option_sets: &HashMap<String, Arc<[String]>>,
    examples: &mut Vec<Example>,
) -> Result<Entry, ConfigError> {
    let words = split_command(e.command.get_ref());
    if words.is_empty() {
        return Err(cx.err(e.command.span(), "command", "empty `command`".into()));
    }
    let checker = e.checker.map(|c| match c {
        RawChecker::Sed => Checker::Sed,
        RawChecker::Awk => Checker::Awk,
        RawChecker::Find => Checker::Find,
        RawChecker::Test => Checker::Test,
        RawChecker::GitFormat => Checker::GitFormat,
    });
    let options = compile_options(cx, &mut e, option_sets)?;
    let operand_pattern = match &e.operand_pattern {
        Some(r) => Some(cx.regex(r).map_err(|x| {
            cx.err(
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
    let origin = cx.at(e.command.span()).rule_origin();
    let name = e.command.into_inner();
    cx.examples(&name, e.matches, ExampleKind::Allowed, examples);
    cx.examples(&name, e.not_match, ExampleKind::NotAllowed, examples);
    Ok(Entry {
        words,
        name,
        origin,
        args,
        spec: OptionSpec {
            style: e.style.into(),
            value_options: e.value_options,
        },
        forbid: e.forbid,
        only_options: e.only_options,
        max_operands: e.max_operands,
        checker,
        options,
        min_operands: e.min_operands,
        operand_pattern,
        // Inert arguments are only printed or compared; any other entry's operands may be
        // files it reads (fail closed).
        reads_operands: e.reads_operands.unwrap_or(args != ArgsMode::Inert),
    })
}

/// An entry's `options` (with `@set`s resolved) and `known_options`, read as `style` says the
/// program parses them: compiled now or when first reached, as the source says.
fn compile_options(
    cx: &Text<'_>,
    e: &mut RawEntry,
    option_sets: &HashMap<String, Arc<[String]>>,
) -> Result<Option<LazyTable>, ConfigError> {
    let Some(list) = e.options.take() else {
        return Ok(None);
    };
    let parser = match e.style {
        RawStyle::Gnu => Parser::Getopt,
        RawStyle::Words => Parser::Words,
        RawStyle::BundleNext => Parser::BundleNext,
    };
    let err = |m: options::SpecError| cx.err(e.command.span(), "options", m.to_string());
    let spec = TableSpec {
        parser,
        options: options::expand(list, option_sets).map_err(err)?,
        known: e.known_options.take(),
        options_first: e.options_first,
    };
    match cx.regexes {
        Regexes::OnLoad => LazyTable::checked(spec).map(Some).map_err(err),
        Regexes::OnUse => Ok(Some(LazyTable::deferred(spec))),
    }
}

/// `[[wrapper]]`.
fn compile_wrapper(cx: &Text<'_>, w: RawWrapper, examples: &mut Vec<Example>) -> Wrapper {
    let origin = cx.at(w.command.span()).rule_origin();
    let name = w.command.into_inner();
    cx.examples(&name, w.matches, ExampleKind::Allowed, examples);
    cx.examples(&name, w.not_match, ExampleKind::NotAllowed, examples);
    Wrapper {
        name,
        origin,
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
    }
}

/// `[[shell]]`.
fn compile_shell(cx: &Text<'_>, s: RawShell, examples: &mut Vec<Example>) -> Shell {
    let origin = cx.at(s.command.span()).rule_origin();
    let name = s.command.into_inner();
    cx.examples(&name, s.matches, ExampleKind::Allowed, examples);
    cx.examples(&name, s.not_match, ExampleKind::NotAllowed, examples);
    Shell {
        name,
        origin,
        flags: s.flags,
        dialect: s.dialect,
    }
}

/// `[[deny]]`: regexes are compiled once here; a rule must say what it matches. A pack's rule
/// gets an id qualified by the pack's (`core.git/git-reset-hard`).
fn compile_deny(
    cx: &Text<'_>,
    d: RawDeny,
    pack: Option<&str>,
    examples: &mut Vec<Example>,
) -> Result<DenyRule, ConfigError> {
    let id = match pack {
        Some(p) => format!("{p}/{}", d.id.get_ref()),
        None => d.id.get_ref().clone(),
    };
    let regexes = |list: &[String], key: &str| -> Result<Vec<RuleRegex>, ConfigError> {
        list.iter()
            .map(|r| {
                cx.regex(r).map_err(|e| {
                    cx.err(
                        d.id.span(),
                        key,
                        format!("invalid regex `{r}` in rule `{id}`: {e}"),
                    )
                })
            })
            .collect()
    };
    let any_operand = regexes(&d.any_operand, "any_operand")?;
    let first_operand = regexes(&d.first_operand, "first_operand")?;
    let no_operand = regexes(&d.no_operand, "no_operand")?;
    let any_value = regexes(&d.any_value, "any_value")?;
    if any_value.is_empty() != d.value_of.is_empty() {
        return Err(cx.err(
            d.id.span(),
            "value_of",
            format!("deny rule `{id}` needs both `value_of` and `any_value`, or neither"),
        ));
    }
    let redirect_target = regexes(&d.redirect_target, "redirect_target")?;
    let fallback = match &d.fallback_regex {
        Some(r) => regexes(std::slice::from_ref(r), "fallback_regex")?.pop(),
        None => None,
    };
    let builtin = d.builtin.map(|b| match b {
        RawBuiltin::ForkBomb => Builtin::ForkBomb,
        RawBuiltin::DownloadToInterpreter => Builtin::DownloadToInterpreter,
        RawBuiltin::DestructiveSql => Builtin::DestructiveSql,
        RawBuiltin::XargsDelete => Builtin::XargsDelete,
    });
    if d.command.is_none() && builtin.is_none() && redirect_target.is_empty() {
        return Err(cx.err(
            d.id.span(),
            "command",
            format!("deny rule `{id}` needs `command`, `builtin` or `redirect_target`"),
        ));
    }
    let first = examples.len();
    cx.examples(&id, d.matches, ExampleKind::Denied, examples);
    cx.examples(&id, d.not_match, ExampleKind::NotDenied, examples);
    for e in &mut examples[first..] {
        e.pack = pack.map(str::to_string);
    }
    Ok(DenyRule {
        origin: cx.at(d.id.span()).rule_origin(),
        pack: pack.map(str::to_string),
        id,
        reason: d.reason,
        command: d.command.map(|c| split_command(c.get_ref())),
        any_option: d.any_option,
        all_options: d.all_options,
        no_option: d.no_option,
        min_operands: d.min_operands,
        operand_after_double_dash: d.operand_after_double_dash,
        value_of: d.value_of.clone(),
        any_value,
        spec: OptionSpec {
            style: d.style.into(),
            // An option whose value a rule reads takes one.
            value_options: d.value_options.into_iter().chain(d.value_of).collect(),
        },
        any_operand,
        first_operand,
        no_operand,
        redirect_target,
        builtin,
        fallback,
    })
}

impl From<RawStyle> for Style {
    fn from(s: RawStyle) -> Style {
        match s {
            // Deny rules and option-less entries read tree-style bundles as getopt does.
            RawStyle::Gnu | RawStyle::BundleNext => Style::Gnu,
            RawStyle::Words => Style::Words,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded sources' regexes are compiled only when a rule is first reached; this is
    /// where every one of them must compile.
    #[test]
    fn every_embedded_regex_compiles() {
        let list = Allowlist::default();
        let mut all: Vec<&RuleRegex> = Vec::new();
        for e in list.entries.values().flatten() {
            all.extend(&e.operand_pattern);
        }
        for d in &list.deny {
            all.extend(d.any_value.iter().chain(&d.any_operand));
            all.extend(d.first_operand.iter().chain(&d.no_operand));
            all.extend(d.redirect_target.iter().chain(&d.fallback));
        }
        assert!(all.len() > 50, "only {} regexes found", all.len());
        for r in all {
            assert!(r.regex().is_some(), "`{}` does not compile", r.as_str());
        }
    }

    /// The embedded entries' option tables are compiled only when an entry is first reached;
    /// this is where every one of them must compile.
    #[test]
    fn every_embedded_option_table_compiles() {
        let list = Allowlist::default();
        let tables: Vec<(&str, &LazyTable)> = list
            .entries
            .values()
            .flatten()
            .filter_map(|e| Some((e.name.as_str(), e.options.as_ref()?)))
            .collect();
        assert!(
            tables.len() > 100,
            "only {} option tables found",
            tables.len()
        );
        for (name, t) in tables {
            assert!(
                t.get().is_some(),
                "the option table of `{name}` does not compile"
            );
        }
    }

    /// A user's option table is compiled when the file loads: a bad spec is an error there.
    #[test]
    fn a_bad_option_spec_in_a_user_file_is_a_load_error() {
        let e = AllowlistBuilder::new()
            .add_toml("[[allow]]\ncommand = \"x\"\noptions = [\"-a, -a\"]\n", None)
            .compile()
            .unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (2, Some("options")));
        assert!(e.message.contains("listed twice"), "{e}");
    }

    /// A user's regex is compiled when the file loads: a bad one is an error there, not a
    /// rule that silently never matches.
    #[test]
    fn a_bad_regex_in_a_user_file_is_a_load_error() {
        let e = AllowlistBuilder::new()
            .add_toml(
                "[[deny]]\nid = \"x\"\nreason = \"r\"\ncommand = \"x\"\nany_operand = [\"(\"]\n",
                None,
            )
            .compile()
            .unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (2, Some("any_operand")));
        assert!(e.message.contains("invalid regex `(`"), "{e}");
    }

    /// `[sensitive]` compiles on first use, but a user's bad pattern is still refused at load,
    /// with its line, column and key.
    #[test]
    fn a_bad_sensitive_pattern_in_a_user_file_is_a_load_error() {
        for (key, pattern) in [
            ("paths", "~/.ssh/[abc"),
            ("allow_paths", "x\\\\"),
            ("secret_vars", "[TOKEN"),
            ("public_vars", "[PATH"),
            ("public_paths", "~other/x"),
        ] {
            let text = format!("[sensitive]\n{key} = [\"ok\", \"{pattern}\"]\n");
            let e = AllowlistBuilder::new()
                .add_toml(&text, None)
                .compile()
                .unwrap_err();
            let column = text.find(&format!("\"{pattern}")).unwrap() - text.find('\n').unwrap();
            assert_eq!(
                (e.line, e.column, e.key.as_deref()),
                (2, column, Some(key)),
                "{e}"
            );
            assert!(e.message.starts_with("invalid pattern: "), "{e}");
        }
    }

    /// The embedded sources as they are at run time (their build-time form) and as they are
    /// when their text is parsed: every source with `compiled` dropped.
    fn parsed_at_run_time(builder: &AllowlistBuilder) -> AllowlistBuilder {
        let mut parsed = builder.clone();
        for s in &mut parsed.sources {
            s.compiled = None;
        }
        parsed
    }

    /// `build.rs`'s form of each embedded file deserialises to exactly what parsing its text
    /// gives, spans included, and compiles to the same allowlist.
    #[test]
    fn the_build_time_form_equals_the_parsed_text() {
        let mut builder = AllowlistBuilder::new();
        builder.add_default();
        assert_eq!(builder.sources.len(), 1 + DEFAULT_PACKS.len());
        for s in &builder.sources {
            let compiled = s
                .compiled
                .expect("every embedded source has a build-time form");
            assert_eq!(compiled.text_len, s.text.len(), "{}", s.origin);
            assert_eq!(*compiled.lines, *LineStarts::new(&s.text).0, "{}", s.origin);
            let parsed = parsed_at_run_time(&AllowlistBuilder {
                sources: vec![s.clone()],
            });
            let text = Text::new(&parsed.sources[0], Examples::Keep);
            let (from_tree, from_text) = match s.kind {
                SourceKind::Allowlist => (
                    format!("{:?}", deserialize::<RawConfig>(s, &text).unwrap()),
                    format!(
                        "{:?}",
                        deserialize::<RawConfig>(&parsed.sources[0], &text).unwrap()
                    ),
                ),
                SourceKind::Pack => (
                    format!("{:?}", deserialize::<RawPackFile>(s, &text).unwrap()),
                    format!(
                        "{:?}",
                        deserialize::<RawPackFile>(&parsed.sources[0], &text).unwrap()
                    ),
                ),
            };
            assert!(from_tree.len() > 1000, "{}: {from_tree}", s.origin);
            assert_eq!(from_tree, from_text, "{}", s.origin);
        }
        let at_start = builder.compile().unwrap();
        let from_text = parsed_at_run_time(&builder).compile().unwrap();
        assert_eq!(canonical(&at_start), canonical(&from_text));
    }

    /// An allowlist's whole content as text, its maps in key order (a `HashMap`'s `Debug`
    /// order differs between two maps with the same content).
    fn canonical(list: &Allowlist) -> String {
        use std::collections::BTreeMap;
        fn sorted<K: Ord + fmt::Debug, V: fmt::Debug>(m: &HashMap<K, V>) -> String {
            format!("{:?}", m.iter().collect::<BTreeMap<_, _>>())
        }
        let Allowlist {
            limits,
            severity,
            inert_env,
            unsafe_env,
            system_dirs,
            git_keys,
            git_inert_keys,
            git_safe_values,
            git_hooks,
            sensitive,
            programs,
            option_sets,
            entries,
            wrappers,
            shells,
            deny,
            deny_index: _,
            examples,
            packs,
            pack_toggles,
        } = list;
        let entries = format!("{:?}", entries.iter().collect::<BTreeMap<_, _>>());
        format!(
            "{limits:?}\n{}\n{inert_env:?}\n{unsafe_env:?}\n{system_dirs:?}\n{git_keys:?}\n\
             {git_inert_keys:?}\n{git_safe_values:?}\n{git_hooks:?}\n{sensitive:?}\n{}\n{}\n\
             {}\n{}\n{}\n{deny:?}\n{examples:?}\n{packs:?}\n{pack_toggles:?}",
            sorted(severity),
            sorted(programs),
            sorted(option_sets),
            entries,
            sorted(wrappers),
            sorted(shells),
        )
    }

    /// `Allowlist::default` files the embedded entries by program and compiles each program's
    /// on first lookup; a builder that keeps the examples compiles them all at once. Both give
    /// the same entries, in the same order, from the same places.
    #[test]
    fn deferred_entries_equal_the_eager_ones() {
        use std::collections::BTreeMap;
        let lazy = Allowlist::default();
        let eager = AllowlistBuilder::new().add_default().compile().unwrap();
        assert!(eager.entry_count() > 100, "{}", eager.entry_count());
        assert_eq!(lazy.entry_count(), eager.entry_count());
        let lazy_lookup = lazy.lookup(&["git", "status"]).map(|e| e.name.clone());
        assert_eq!(lazy_lookup.as_deref(), Some("git status"));
        let sorted = |l: &Allowlist| format!("{:?}", l.entries.iter().collect::<BTreeMap<_, _>>());
        assert_eq!(sorted(&lazy), sorted(&eager));
        // A later source's option set of the same name does not reach the embedded entries.
        let mut shadowing = AllowlistBuilder::new();
        shadowing.add_default();
        shadowing.add_toml(
            "[[option_set]]\nname = \"grep\"\noptions = [\"--x\"]\n",
            None,
        );
        let shadowed = shadowing.compile_keeping(Examples::Drop).unwrap();
        assert_eq!(sorted(&shadowed), sorted(&eager));
    }

    /// `Allowlist::default` reads the embedded files without their examples and compiles the
    /// `[[allow]]` entries on first lookup; all of it is the allowlist a builder compiles with
    /// the examples kept, less the examples.
    #[test]
    fn the_default_is_the_compiled_list_without_its_examples() {
        let mut eager = AllowlistBuilder::new().add_default().compile().unwrap();
        assert!(eager.examples.len() > 1000, "{}", eager.examples.len());
        eager.examples.clear();
        assert_eq!(canonical(&Allowlist::default()), canonical(&eager));
    }

    /// The default allowlist leaves the examples out; a builder keeps them for `build()`.
    #[test]
    fn only_the_builder_keeps_the_examples() {
        assert!(Allowlist::default().examples.is_empty());
        let kept = AllowlistBuilder::new().add_default().compile().unwrap();
        assert!(kept.examples.len() > 1000, "{}", kept.examples.len());
    }

    /// A user's text never takes the build-time path, even when it is the embedded text.
    #[test]
    fn user_text_is_parsed() {
        let mut builder = AllowlistBuilder::new();
        builder.add_toml(DEFAULT_ALLOWLIST, None);
        assert!(builder.sources.iter().all(|s| s.compiled.is_none()));
    }

    /// The line index gives the line and column a scan from the top of the text gives.
    #[test]
    fn line_starts_locate_offsets_as_a_scan_does() {
        let text = "ab\n\nçd e\n\nlast";
        let scan = |offset: usize| {
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            (line, column)
        };
        let lines = LineStarts::new(text);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            assert_eq!(
                lines.line_col(text, offset),
                scan(offset),
                "offset {offset}"
            );
        }
        assert_eq!(lines.line_col(text, text.len() + 5), scan(text.len()));
    }
}

//! allowlist/toml: the serialised form of `allowlist.toml`, exactly as written, with spans kept
//! for error messages. It never compiles or interprets rules (see `allowlist.rs`).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::finding::Verdict;
use crate::limits::Limits;

/// A whole allowlist file.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawConfig {
    pub limits: Option<Limits>,
    #[serde(default)]
    pub severity: BTreeMap<Spanned<String>, Verdict>,
    pub env: Option<RawEnv>,
    pub system_dirs: Option<Vec<String>>,
    pub git: Option<RawGit>,
    pub sensitive: Option<RawSensitive>,
    #[serde(default)]
    pub program: Vec<RawProgram>,
    #[serde(default)]
    pub option_set: Vec<RawOptionSet>,
    #[serde(default)]
    pub allow: Vec<RawEntry>,
    #[serde(default)]
    pub wrapper: Vec<RawWrapper>,
    #[serde(default)]
    pub shell: Vec<RawShell>,
    #[serde(default)]
    pub deny: Vec<RawDeny>,
    /// `[packs]`: which deny packs are on.
    pub packs: Option<RawPacks>,
}

/// `[packs]`: turns deny packs on and off by id (`disable = ["databases"]`).
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPacks {
    /// Packs to turn on (those a pack file marks `enabled = false`).
    #[serde(default)]
    pub enable: Vec<Spanned<String>>,
    /// Packs to turn off.
    #[serde(default)]
    pub disable: Vec<Spanned<String>>,
}

/// A deny pack file: a `[pack]` header and its `[[deny]]` rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPackFile {
    pub pack: RawPackHeader,
    /// Global options of the programs the pack's rules name, so rules see past them
    /// (`kubectl -n x delete ns y`); only `flags` and `value_options` are allowed here.
    #[serde(default)]
    pub program: Vec<RawProgram>,
    #[serde(default)]
    pub deny: Vec<RawDeny>,
}

/// `[pack]`: the pack's id and what it covers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPackHeader {
    /// The id rule ids are qualified with (`core.git` → `core.git/git-clean-force`).
    pub id: Spanned<String>,
    /// What the pack denies, in a sentence.
    #[serde(default)]
    pub description: String,
    /// Whether the pack is on unless `[packs]` says otherwise (default: on).
    #[serde(default = "default_true")]
    pub enabled: bool,
}

fn default_true() -> bool {
    true
}

/// `[env]`: which variables a command may assign.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEnv {
    /// Names known not to change what programs run, load or write (`*` at the end: a prefix).
    #[serde(default)]
    pub inert: Vec<String>,
    /// Names that ask even when `inert` lists them (a user list's extra veto).
    #[serde(default, rename = "unsafe")]
    pub unsafe_names: Vec<String>,
}

/// `[sensitive]`: what a command must not read or print without asking. Every list extends
/// the lists of the files before it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSensitive {
    /// Globs of paths whose reading asks (`~/.ssh/**`, `**/.env`, `/proc/*/environ`).
    #[serde(default)]
    pub paths: Vec<Spanned<String>>,
    /// Exceptions: paths inside `paths` that may be read (`*.pub`).
    #[serde(default)]
    pub allow_paths: Vec<Spanned<String>>,
    /// Globs of variable names whose values look like secrets (`*TOKEN*`).
    #[serde(default)]
    pub secret_vars: Vec<Spanned<String>>,
    /// Variables known to hold nothing secret (`PATH`, `AWS_REGION`).
    #[serde(default)]
    pub public_vars: Vec<Spanned<String>>,
    /// Places outside the working directory whose files may be read (`/usr/**`).
    #[serde(default)]
    pub public_paths: Vec<Spanned<String>>,
}

/// `[git]`: what in a repository makes git run programs (read when a working directory is given).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawGit {
    /// Config keys (`core.fsmonitor`, `pager.*`, `diff.*.textconv`) that name programs.
    pub program_keys: Option<Vec<Spanned<String>>>,
    /// Keys known to be inert; any other key set in a repository's config asks.
    pub inert_keys: Option<Vec<Spanned<String>>>,
    /// Values that switch a key off (`"core.fsmonitor" = ["false", …]`).
    pub safe_values: Option<BTreeMap<Spanned<String>, Vec<String>>>,
    /// Hook names that commands the allowlist allows can set off.
    pub hooks: Option<Vec<String>>,
}

/// `[[program]]`: facts about a program's own global options, used to find its subcommand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawProgram {
    pub name: Spanned<String>,
    /// Global options that change nothing about safety (skipped when matching the allowlist).
    #[serde(default)]
    pub harmless: Vec<String>,
    /// Global options without a value (skipped only when matching deny rules).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Global options that take a value (skipped with their value when matching deny rules).
    #[serde(default)]
    pub value_options: Vec<String>,
}

/// `[[option_set]]`: options shared by several entries, included in an entry's `options` as
/// `"@name"`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOptionSet {
    pub name: String,
    pub options: Vec<String>,
}

/// How an entry's arguments may be dynamic.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RawArgs {
    /// Arguments are only printed or compared: substitution output is fine.
    Inert,
    /// Arguments name files to read: parameters and globs are fine, substitution output asks.
    #[default]
    Files,
    /// Any run-time word could become a dangerous flag: every dynamic argument asks.
    Restricted,
}

/// How an entry's options are spelled.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RawStyle {
    /// GNU getopt: `-abc` bundles, `-ofile`, `--long=value`, unambiguous long prefixes.
    #[default]
    Gnu,
    /// Whole words (`find`'s `-exec`): no bundling, no abbreviation.
    Words,
    /// Bundles whose value options each take the next word in turn (`tree -Lo 2 out`); only
    /// for entries with an `options` table (deny rules read it as `gnu`).
    BundleNext,
}

/// A purpose-built checker for a program's mini-language (`checker = "sed"`).
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RawChecker {
    /// sed scripts, read by `check/sed_script.rs`.
    Sed,
    /// awk programs, read by `check/awk_program.rs`.
    Awk,
    /// find's actions and the commands its `-exec` runs.
    Find,
    /// `test` / `[` operands that evaluate array subscripts.
    Test,
    /// git's `--format` / `--pretty` placeholders that verify signatures.
    GitFormat,
}

/// A built-in structural deny rule (`builtin = "fork-bomb"`).
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RawBuiltin {
    /// A function that pipes into itself in the background: `:(){ :|:& };:`.
    ForkBomb,
    /// A download piped into an interpreter: `curl … | sh`.
    DownloadToInterpreter,
    /// SQL that destroys data (`DROP TABLE`, `TRUNCATE`, `DELETE FROM t` without `WHERE`)
    /// given to a database client (`psql -c`, `mysql -e`, `sqlite3 DB SQL`, a heredoc).
    DestructiveSql,
    /// `xargs rm`: deletes every path its input lists (`find . | xargs rm`).
    XargsDelete,
}

/// `[[allow]]`: one allowlist entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEntry {
    pub command: Spanned<String>,
    #[serde(default)]
    pub args: Option<RawArgs>,
    #[serde(default)]
    pub style: RawStyle,
    /// Options that make the command write, run or load something.
    #[serde(default)]
    pub forbid: Vec<String>,
    /// When set, every option outside this list is forbidden.
    pub only_options: Option<Vec<String>>,
    /// Options that consume a value (the next word, or `=value`, or the rest of a bundle).
    #[serde(default)]
    pub value_options: Vec<String>,
    /// The options the entry permits, with their arity (`"-f, --skip-fields=N"`,
    /// `"--group[=METHOD]"`); when present, every other option asks.
    pub options: Option<Vec<String>>,
    /// The program's other long options, so abbreviations resolve as the program resolves them.
    pub known_options: Option<Vec<String>>,
    /// The first operand ends the options (xxd): every later word is an operand.
    #[serde(default)]
    pub options_first: bool,
    /// Most operands (non-option words) allowed.
    pub max_operands: Option<usize>,
    /// Fewest operands allowed (`printenv NAME`, not `printenv`).
    pub min_operands: Option<usize>,
    /// A regex every operand must match (`date`'s `+FORMAT`, never a time to set).
    pub operand_pattern: Option<String>,
    /// A purpose-built checker for the program's mini-language.
    pub checker: Option<RawChecker>,
    /// False when the operands are not paths the program reads (`echo`, `ls`, `stat`): a
    /// `[sensitive]` path among them does not ask. True (fail closed) when absent.
    pub reads_operands: Option<bool>,
    /// Why the rule is safe: documentation for readers of the file, not used by the analyser.
    #[serde(default, rename = "why")]
    pub _why: Option<String>,
    #[serde(default, rename = "match")]
    pub matches: Vec<Spanned<String>>,
    #[serde(default)]
    pub not_match: Vec<Spanned<String>>,
}

/// `[[wrapper]]`: a program that runs another command given as its arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWrapper {
    pub command: Spanned<String>,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub value_options: Vec<String>,
    /// Leading operands before the command (the duration of `timeout`).
    #[serde(default)]
    pub operands: usize,
    /// Operands of the form `NAME=value` are assignments (`env`).
    #[serde(default)]
    pub assignments: bool,
    /// The inner command receives extra run-time arguments (`xargs`).
    #[serde(default)]
    pub appends_dynamic: bool,
    /// Option whose value is a command string split into words (`env -S`).
    pub split_option: Option<String>,
    /// Value options whose value is the directory the command runs in (`env -C DIR`): a git
    /// command inside is checked against that directory's repository.
    #[serde(default)]
    pub chdir_options: Vec<String>,
    /// Value options naming a string replaced by run-time input inside the command's words
    /// (`xargs -I {}`): words holding it are run-time words.
    #[serde(default)]
    pub replace_options: Vec<String>,
    /// The verdict the wrapper itself needs at least (`sudo` asks).
    #[serde(default = "default_allow")]
    pub severity: Verdict,
    /// Why the rule is safe: documentation for readers of the file, not used by the analyser.
    #[serde(default, rename = "why")]
    pub _why: Option<String>,
    #[serde(default, rename = "match")]
    pub matches: Vec<Spanned<String>>,
    #[serde(default)]
    pub not_match: Vec<Spanned<String>>,
}

fn default_allow() -> Verdict {
    Verdict::Allow
}

/// `[[shell]]`: an interpreter whose `-c` script cmdguard analyses recursively.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawShell {
    pub command: Spanned<String>,
    /// Options without a value that may come before `-c`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// The language the shell reads: `bash`, `posix` (the default) or `zsh`.
    #[serde(default)]
    pub dialect: super::Dialect,
    #[serde(default, rename = "match")]
    pub matches: Vec<Spanned<String>>,
    #[serde(default)]
    pub not_match: Vec<Spanned<String>>,
}

/// `[[deny]]`: a rule whose match is `deny`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDeny {
    pub id: Spanned<String>,
    pub reason: String,
    /// Token prefix; a trailing `*` on the first word matches any program name with that prefix.
    pub command: Option<Spanned<String>>,
    /// Any of these options present.
    #[serde(default)]
    pub any_option: Vec<String>,
    /// Every group has one option present.
    #[serde(default)]
    pub all_options: Vec<Vec<String>>,
    /// None of these options present (`find -delete` with no `-name` or other filter).
    #[serde(default)]
    pub no_option: Vec<String>,
    /// Fewest operands the command must have (`git checkout REF PATH`, not `git checkout REF`).
    pub min_operands: Option<usize>,
    /// An operand after `--` (`git checkout -- PATH`).
    #[serde(default)]
    pub operand_after_double_dash: bool,
    /// Options whose value `any_value` is matched against (`pytest --basetemp=DIR`).
    #[serde(default)]
    pub value_of: Vec<String>,
    /// Regexes over the values of the `value_of` options; one must match.
    #[serde(default)]
    pub any_value: Vec<String>,
    /// Options that take a value, so their values are not read as operands or options.
    #[serde(default)]
    pub value_options: Vec<String>,
    #[serde(default)]
    pub style: RawStyle,
    /// Any operand matching one of these regexes.
    #[serde(default)]
    pub any_operand: Vec<String>,
    /// The first operand matching one of these regexes (a client's command word).
    #[serde(default)]
    pub first_operand: Vec<String>,
    /// No static operand matching one of these regexes (`help`, which spares the command).
    #[serde(default)]
    pub no_operand: Vec<String>,
    /// A redirection target matching one of these regexes.
    #[serde(default)]
    pub redirect_target: Vec<String>,
    /// A built-in structural rule.
    pub builtin: Option<RawBuiltin>,
    /// Applied to the raw text only when the command could not be fully parsed.
    pub fallback_regex: Option<String>,
    #[serde(default, rename = "match")]
    pub matches: Vec<Spanned<String>>,
    #[serde(default)]
    pub not_match: Vec<Spanned<String>>,
}

//! config: layered configuration above the core — built-in default → system → user → project
//! (only when trusted) → `CMDGUARD_CONFIG` → command-line flags — merged into one [`Config`]:
//! the allowlist to analyse with, Claude Code command rules, and the settings the assessor and
//! the confirmation policy read, each with where it came from. The core never imports it; it
//! never analyses a command itself.
//!
//! Merging never lets one layer allow what another denies: deny rules and allowlist entries
//! of every layer are unioned (a deny rule of any layer fires whatever any other layer
//! allows); `[severity]` values merge strictest-wins; `auto_confirm` is on only when some
//! layer turns it on and none turns it off. A project layer may only add `[[allow]]` entries
//! for programs no earlier layer has an entry for, `[[deny]]` and `[[option_set]]` tables
//! (inline: trust covers the text of its files), raise severities and import its Claude Code
//! rules; it can never choose the assessor, the state file or auto-confirm (a repository
//! picking the program that judges its own commands is a bypass). Every path comes from a
//! [`ConfigSources`], built from an [`Env`], so tests never touch the real home directory.
//! [`Config::policy`] builds the confirmation policy and its assessor from the merged values,
//! and [`Config::check`] runs a command through all of it.
//!
//! ```
//! use cmdguard::config::{ConfigSources, Env};
//! use cmdguard::Verdict;
//! let dir = std::env::temp_dir().join(format!("cmdguard-config-doc-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("cfg/cmdguard"))?;
//! std::fs::write(
//!     dir.join("cfg/cmdguard/config.toml"),
//!     "[allowlist]\ninline = '''\n[[allow]]\ncommand = \"cargo check\"\n'''\n",
//! )?;
//! let env = Env::new(&dir)
//!     .var("HOME", &dir)
//!     .var("XDG_CONFIG_HOME", dir.join("cfg"))
//!     .var("CMDGUARD_SYSTEM_CONFIG", dir.join("no-system.toml"));
//! let config = ConfigSources::discover(&env).load().unwrap();
//! let a = config.analyze("cargo check -q");
//! assert_eq!(a.verdict, Verdict::Allow);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod build;
mod claude;
mod file;
pub mod trust;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use self::file::{RawAssessorKind, RawFile};
use self::trust::{PROJECT_FILES, Trust, TrustStore};
use crate::allowlist::{Allowlist, AllowlistBuilder, ConfigError, Location};
use crate::analyzer::{Analysis, Analyzer};
use crate::finding::{Code, RuleOrigin, Verdict};
use crate::policy::rules::{CommandRule, CommandRules};
use crate::repo::Workdir;

// A config is loaded once and shared by every thread that checks commands.
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Config>();
    shareable::<CommandRules>();
};

/// The system-wide config file.
pub const SYSTEM_CONFIG: &str = "/etc/cmdguard/config.toml";
/// The project config file's name, looked for from the working directory upward.
pub const PROJECT_CONFIG: &str = ".cmdguard.toml";

/// The allowlist tables a project layer may set: rules that add entries or deny, never the
/// tables that widen what every entry permits (`[env]`, `[git]`, `[[wrapper]]`, `[[shell]]`,
/// `[[program]]`, `[limits]`, `system_dirs`). Any table added to the format later is refused
/// until it is listed here.
const PROJECT_ALLOWLIST_KEYS: &[&str] = &[
    // New entries: the user trusted the project to name its own commands.
    "allow",
    // More deny rules only ever make a command stricter.
    "deny",
    // Checked below: a project may only raise a severity.
    "severity",
    // Option lists for its own entries; an entry compiled earlier keeps its own copy.
    "option_set",
];

/// A layer, from the first merged to the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// cmdguard's embedded allowlist (or `--allowlist FILE` in its place).
    Default,
    /// `/etc/cmdguard/config.toml`.
    System,
    /// `$XDG_CONFIG_HOME/cmdguard/config.toml` and `~/.claude/settings.json`.
    User,
    /// `.cmdguard.toml` and `.claude/settings*.json` of a trusted project.
    Project,
    /// The file `CMDGUARD_CONFIG` names.
    EnvVar,
    /// `--allowlist-add FILE` flags.
    Flags,
}

impl Layer {
    /// The layer's name in `config show`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Default => "default",
            Layer::System => "system",
            Layer::User => "user",
            Layer::Project => "project",
            Layer::EnvVar => "env",
            Layer::Flags => "flags",
        }
    }
}

/// The process environment cmdguard reads paths from: variables and the working directory.
/// Tests build one by hand so they never read the real `~/.config`.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, OsString>,
    cwd: PathBuf,
}

impl Env {
    /// An environment with no variables, working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Env {
        Env {
            vars: BTreeMap::new(),
            cwd: cwd.into(),
        }
    }

    /// This process's variables and working directory (`/` when it cannot be told).
    pub fn process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        }
    }

    /// The environment with variable `name` set to `value`.
    pub fn var(mut self, name: &str, value: impl Into<OsString>) -> Env {
        self.vars.insert(name.to_string(), value.into());
        self
    }

    /// The environment working in `dir`.
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Env {
        self.cwd = dir.into();
        self
    }

    fn path(&self, name: &str) -> Option<PathBuf> {
        self.vars
            .get(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// An XDG base directory variable: the XDG spec says a relative value is ignored.
    fn xdg(&self, name: &str) -> Option<PathBuf> {
        self.path(name).filter(|p| p.is_absolute())
    }
}

/// Where every layer's files are; [`ConfigSources::load`] reads them. Fields are plain paths
/// so a caller (or a test) can point any layer anywhere, or nowhere.
#[derive(Debug, Clone, Default)]
pub struct ConfigSources {
    /// The system config file (`/etc/cmdguard/config.toml`; `CMDGUARD_SYSTEM_CONFIG` moves it).
    pub system: Option<PathBuf>,
    /// The user config file.
    pub user: Option<PathBuf>,
    /// The user's Claude Code settings (`~/.claude/settings.json`).
    pub claude_user: Option<PathBuf>,
    /// The user's trust store (`$XDG_STATE_HOME/cmdguard/trust.json`).
    pub trust_store: Option<PathBuf>,
    /// Where the project search starts (the working directory).
    pub cwd: Option<PathBuf>,
    /// The user's home directory: its `.claude` is the user's, never a project's.
    pub home: Option<PathBuf>,
    /// The file `CMDGUARD_CONFIG` names; missing is an error.
    pub env_config: Option<PathBuf>,
    /// `--allowlist FILE`: replaces the embedded allowlist.
    pub allowlist: Option<PathBuf>,
    /// `--allowlist-add FILE`, in order.
    pub allowlist_add: Vec<PathBuf>,
    /// `--pack FILE`: user deny packs, in order.
    pub packs: Vec<PathBuf>,
}

impl ConfigSources {
    /// The built-in default alone (`--no-config`): flags may still be added.
    pub fn built_in() -> ConfigSources {
        ConfigSources::default()
    }

    /// Every layer's paths as `env` says: `CMDGUARD_SYSTEM_CONFIG` (or `/etc/cmdguard/…`),
    /// `XDG_CONFIG_HOME` (or `~/.config`), `XDG_STATE_HOME` (or `~/.local/state`),
    /// `CLAUDE_CONFIG_DIR` (or `~/.claude`), `CMDGUARD_CONFIG`, and the working directory.
    pub fn discover(env: &Env) -> ConfigSources {
        let home = env.path("HOME");
        let config_home = env
            .xdg("XDG_CONFIG_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        let state_home = env
            .xdg("XDG_STATE_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".local/state")));
        let claude_dir = env
            .path("CLAUDE_CONFIG_DIR")
            .or_else(|| home.as_ref().map(|h| h.join(".claude")));
        ConfigSources {
            system: Some(
                env.path("CMDGUARD_SYSTEM_CONFIG")
                    .unwrap_or_else(|| PathBuf::from(SYSTEM_CONFIG)),
            ),
            user: config_home.map(|d| d.join("cmdguard/config.toml")),
            claude_user: claude_dir.map(|d| d.join("settings.json")),
            trust_store: state_home.map(|d| d.join("cmdguard/trust.json")),
            cwd: Some(env.cwd.clone()),
            home,
            env_config: env.path("CMDGUARD_CONFIG"),
            allowlist: None,
            allowlist_add: Vec::new(),
            packs: Vec::new(),
        }
    }

    /// The nearest directory from the working directory upward holding a project file
    /// (`.cmdguard.toml` or `.claude/settings*.json`), canonical. The home directory's own
    /// `.claude` is the user's, so it does not make home a project.
    pub fn project_dir(&self) -> Option<PathBuf> {
        let start = self.cwd.as_ref()?.canonicalize().ok()?;
        let home = self.home.as_ref().and_then(|h| h.canonicalize().ok());
        start
            .ancestors()
            .find(|d| {
                let files: &[&str] = if home.as_deref() == Some(*d) {
                    &[PROJECT_CONFIG]
                } else {
                    PROJECT_FILES
                };
                files.iter().any(|f| d.join(f).is_file())
            })
            .map(Path::to_path_buf)
    }

    /// Reads and merges every layer. A file that does not parse, names an unknown key, sets
    /// what its layer may not, or holds a rule whose examples fail is an error naming file,
    /// line, column and key — never a weaker policy.
    pub fn load(&self) -> Result<Config, ConfigError> {
        let mut m = Merger::default();
        if let Some(path) = &self.allowlist {
            let text = read(path)?;
            m.add_allowlist(Layer::Default, &text, path, (0, 0))?;
            m.replaced_default = true;
        }
        m.files.push(LayerFile::new(
            Layer::Default,
            self.allowlist
                .as_ref()
                .map_or_else(|| "<embedded>".into(), |p| p.display().to_string()),
            FileStatus::Used,
        ));
        if let Some(p) = &self.system {
            m.optional_file(Layer::System, p)?;
        }
        if let Some(p) = &self.user {
            m.optional_file(Layer::User, p)?;
        }
        self.project(&mut m)?;
        if let Some(p) = &self.env_config {
            let text = read(p)?;
            m.file(Layer::EnvVar, &text, p)?;
        }
        for p in &self.allowlist_add {
            let text = read(p)?;
            m.add_allowlist(Layer::Flags, &text, p, (0, 0))?;
            m.files.push(LayerFile::new(
                Layer::Flags,
                p.display().to_string(),
                FileStatus::Used,
            ));
        }
        m.packs = self.packs.clone();
        // The user's Claude Code rules: the user layer, unless some layer turned them off.
        if let Some(p) = &self.claude_user {
            if m.claude_import {
                m.optional_claude(Layer::User, p)?;
            } else {
                m.files.push(LayerFile::new(
                    Layer::User,
                    p.display().to_string(),
                    FileStatus::Disabled,
                ));
            }
        }
        if m.claude_import {
            for p in std::mem::take(&mut m.project_claude) {
                m.optional_claude(Layer::Project, &p)?;
            }
        }
        m.finish()
    }

    /// The project layer: its files when the user trusted the project as it is now.
    fn project(&self, m: &mut Merger) -> Result<(), ConfigError> {
        let Some(dir) = self.project_dir() else {
            return Ok(());
        };
        let shown = dir.join(PROJECT_CONFIG).display().to_string();
        let (store, note) = match &self.trust_store {
            Some(p) => TrustStore::load(p),
            None => (TrustStore::default(), None),
        };
        m.notes.extend(note);
        match store.check(&dir) {
            Trust::Trusted => {}
            Trust::Untrusted => {
                m.notes.push(format!(
                    "project config in {} ignored: not trusted (run `cmdguard config trust {}`)",
                    dir.display(),
                    dir.display()
                ));
                m.files
                    .push(LayerFile::new(Layer::Project, shown, FileStatus::Untrusted));
                return Ok(());
            }
            Trust::Changed(files) => {
                m.notes.push(format!(
                    "project config in {} ignored: {} changed since it was trusted (review, then run `cmdguard config trust {}`)",
                    dir.display(),
                    files.join(", "),
                    dir.display()
                ));
                m.files
                    .push(LayerFile::new(Layer::Project, shown, FileStatus::Changed));
                return Ok(());
            }
        }
        m.project_dir = Some(dir.clone());
        m.optional_file(Layer::Project, &dir.join(PROJECT_CONFIG))?;
        m.project_claude = vec![
            dir.join(".claude/settings.json"),
            dir.join(".claude/settings.local.json"),
        ];
        Ok(())
    }
}

/// A value and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it was set ([`RuleOrigin::BuiltIn`]: cmdguard's default).
    pub origin: RuleOrigin,
}

/// Which assessor decides the `ask` verdicts, with the settings it needs. Plain data:
/// [`Config::build_assessor`] (and [`Config::policy`]) build the assessor from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssessorConfig {
    /// No assessor: every `ask` goes to a person.
    None,
    /// A program given the request as JSON on stdin (`CommandAssessor`).
    Command {
        /// The program and its arguments.
        command: Vec<String>,
        /// How long the program may take (default 30 s); it is killed after.
        timeout_ms: Option<u64>,
        /// The most stdout bytes read, when set.
        max_output_bytes: Option<usize>,
    },
    /// A model through an OpenAI-compatible endpoint (`AgentAssessor`).
    Agent {
        /// The endpoint's base URL.
        base_url: String,
        /// The model name.
        model: String,
        /// The environment variable holding the API key.
        api_key_env: Option<String>,
        /// How long the whole assessment, and each model call, may take (default 60 s).
        timeout_ms: Option<u64>,
    },
}

/// A `[severity]` value in force, and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeveritySetting {
    /// The finding code.
    pub code: Code,
    /// Its severity.
    pub verdict: Verdict,
    /// Where the winning value was written.
    pub origin: RuleOrigin,
}

/// A rule a layer added (an `[[allow]]`, `[[deny]]`, `[[wrapper]]` or `[[shell]]` table), for
/// `config show`; the embedded allowlist's are only counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSummary {
    /// `allow`, `deny`, `wrapper` or `shell`.
    pub table: &'static str,
    /// The rule's id (its `command`, or a deny rule's `id`).
    pub id: String,
    /// Where it was written.
    pub origin: RuleOrigin,
}

/// What became of a layer's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// Read and merged.
    Used,
    /// Not there (an optional layer).
    Absent,
    /// A project file the user has not trusted: ignored.
    Untrusted,
    /// A trusted project whose files changed since: ignored until trusted again.
    Changed,
    /// Claude Code rules a layer turned off (`[claude] import = false`).
    Disabled,
}

impl FileStatus {
    /// The status as `config show` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Used => "used",
            FileStatus::Absent => "absent",
            FileStatus::Untrusted => "ignored: project not trusted",
            FileStatus::Changed => "ignored: changed since trusted",
            FileStatus::Disabled => "ignored: [claude] import = false",
        }
    }
}

/// One file a layer looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerFile {
    /// The layer.
    pub layer: Layer,
    /// The file.
    pub path: String,
    /// What became of it.
    pub status: FileStatus,
}

impl LayerFile {
    fn new(layer: Layer, path: String, status: FileStatus) -> LayerFile {
        LayerFile {
            layer,
            path,
            status,
        }
    }
}

/// The effective configuration: what every layer said, merged.
#[derive(Debug, Clone)]
pub struct Config {
    /// An analyser over the compiled allowlist, every layer's tables included, examples
    /// verified.
    pub analyzer: Analyzer,
    /// Claude Code deny and ask rules, applied per segment after the analysis
    /// ([`Config::analyze_in`]).
    pub command_rules: CommandRules,
    /// Claude Code allow rules. They never lower a verdict: a command only they cover still
    /// asks, its findings naming the rule, and a Claude Code hook leaves it to Claude Code
    /// ([`Config::defers_to_claude`]).
    pub claude_allow: CommandRules,
    /// `[claude] defer_allow_rules`: whether a Claude Code hook leaves a command that only
    /// an imported allow rule covers to Claude Code (no decision) rather than asking. Off by
    /// default; only the user's own config may turn it on.
    pub claude_defer: bool,
    /// The assessor to use.
    pub assessor: Setting<AssessorConfig>,
    /// Take prompts' defaults without asking.
    pub auto_confirm: Setting<bool>,
    /// Where the policy persists grants; `None`: grants stay in memory.
    pub state_file: Option<Setting<PathBuf>>,
    /// Where hooks append one JSON line per decision (`audit_log`); `None`: no audit log.
    pub audit_log: Option<Setting<PathBuf>>,
    /// `[severity]` values in force, by code.
    pub severity: Vec<SeveritySetting>,
    /// Rules the layers added.
    pub rules: Vec<RuleSummary>,
    /// Every file looked at, in layer order.
    pub files: Vec<LayerFile>,
    /// Things the user should know: an untrusted project ignored, a Claude rule skipped.
    pub notes: Vec<String>,
}

impl Config {
    /// The merged allowlist.
    pub fn allowlist(&self) -> &Allowlist {
        self.analyzer.allowlist()
    }

    /// Analyses `cmd` with the merged allowlist, then applies the command rules.
    pub fn analyze(&self, cmd: &str) -> Analysis {
        let mut a = self.analyzer.analyze(cmd);
        self.command_rules.apply(&mut a);
        claude::name_covering_rules(&mut a, &self.claude_allow);
        a
    }

    /// [`Config::analyze`] for a command that runs in `dir`.
    pub fn analyze_in(&self, cmd: &str, dir: &Workdir) -> Analysis {
        let mut a = self.analyzer.analyze_in(cmd, dir);
        self.command_rules.apply(&mut a);
        claude::name_covering_rules(&mut a, &self.claude_allow);
        a
    }

    /// The imported Claude Code allow rules that cover every finding that makes `a` (from
    /// [`Config::analyze_in`]) ask; `None` when `a` does not ask or anything else asks too.
    /// cmdguard did not see through such a command, so it never allows it; a Claude Code hook
    /// gives no decision and Claude Code's own permissions, which hold the rule, decide.
    pub fn defers_to_claude(&self, a: &Analysis) -> Option<Vec<&CommandRule>> {
        claude::defers_to_claude(a, &self.claude_allow)
    }
}

/// Checks one config file on its own (`cmdguard config check FILE`): it must parse, name only
/// known keys, and its allowlist tables must compile with their examples passing on top of
/// the embedded default. `project` checks it as a project's `.cmdguard.toml`.
pub fn check_file(path: &Path, layer: Layer) -> Result<(), ConfigError> {
    let text = read(path)?;
    let mut m = Merger::default();
    if layer == Layer::Project {
        m.project_dir = path.parent().map(Path::to_path_buf);
    }
    m.file(layer, &text, path)?;
    m.finish().map(|_| ())
}

/// Accumulates layers in order.
#[derive(Debug)]
struct Merger {
    /// Every layer's allowlist texts, in order, with the file each is written in.
    sources: Vec<(String, PathBuf)>,
    /// `--pack FILE`s, added after every layer's text.
    packs: Vec<PathBuf>,
    replaced_default: bool,
    severity: BTreeMap<Code, SeveritySetting>,
    rules: Vec<RuleSummary>,
    files: Vec<LayerFile>,
    notes: Vec<String>,
    assessor: Setting<AssessorConfig>,
    auto_confirm_on: Option<RuleOrigin>,
    auto_confirm_off: Option<RuleOrigin>,
    state_file: Option<Setting<PathBuf>>,
    audit_log: Option<Setting<PathBuf>>,
    claude_import: bool,
    claude_defer: bool,
    command_rules: CommandRules,
    claude_allow: CommandRules,
    project_dir: Option<PathBuf>,
    project_claude: Vec<PathBuf>,
}

impl Default for Merger {
    fn default() -> Merger {
        Merger {
            sources: Vec::new(),
            packs: Vec::new(),
            replaced_default: false,
            severity: BTreeMap::new(),
            rules: Vec::new(),
            files: Vec::new(),
            notes: Vec::new(),
            assessor: Setting {
                value: AssessorConfig::None,
                origin: RuleOrigin::BuiltIn,
            },
            auto_confirm_on: None,
            auto_confirm_off: None,
            state_file: None,
            audit_log: None,
            claude_import: true,
            claude_defer: false,
            command_rules: CommandRules::default(),
            claude_allow: CommandRules::default(),
            project_dir: None,
            project_claude: Vec::new(),
        }
    }
}

/// Reads a file, as a config error naming it when it cannot be read.
fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| {
        err_at(
            Location {
                origin: path.display().to_string(),
                line: 0,
                column: 0,
            },
            None,
            format!("cannot read the file: {e}"),
        )
    })
}

fn err_at(at: Location, key: Option<&str>, message: String) -> ConfigError {
    ConfigError::at(at, key, message)
}

/// Line and column (1-based, in characters) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The location of `span` in the file `path` whose text is `text`.
fn location(text: &str, path: &str, offset: usize) -> Location {
    let (line, column) = line_col(text, offset);
    Location {
        origin: path.to_string(),
        line,
        column,
    }
}

/// What `config show` and the merge need from an allowlist text, read leniently (the
/// builder reads it strictly).
#[derive(Debug, Deserialize, Default)]
struct Peek {
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<Verdict>>,
    #[serde(default)]
    allow: Vec<PeekRule>,
    #[serde(default)]
    wrapper: Vec<PeekRule>,
    #[serde(default)]
    shell: Vec<PeekRule>,
    #[serde(default)]
    deny: Vec<PeekDeny>,
}

#[derive(Debug, Deserialize)]
struct PeekRule {
    command: Spanned<String>,
}

#[derive(Debug, Deserialize)]
struct PeekDeny {
    id: Spanned<String>,
}

impl Merger {
    /// A config file that may be absent.
    fn optional_file(&mut self, layer: Layer, path: &Path) -> Result<(), ConfigError> {
        if !path.exists() {
            self.files.push(LayerFile::new(
                layer,
                path.display().to_string(),
                FileStatus::Absent,
            ));
            return Ok(());
        }
        let text = read(path)?;
        self.file(layer, &text, path)
    }

    /// A Claude Code settings file that may be absent.
    fn optional_claude(&mut self, layer: Layer, path: &Path) -> Result<(), ConfigError> {
        let status = if path.exists() {
            let text = read(path)?;
            let imported = claude::import(&text, path)?;
            self.command_rules.rules.extend(imported.rules.rules);
            self.claude_allow.rules.extend(imported.allow.rules);
            self.notes.extend(imported.skipped);
            FileStatus::Used
        } else {
            FileStatus::Absent
        };
        self.files
            .push(LayerFile::new(layer, path.display().to_string(), status));
        Ok(())
    }

    /// One config file's text.
    fn file(&mut self, layer: Layer, text: &str, path: &Path) -> Result<(), ConfigError> {
        let shown = path.display().to_string();
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let message = e.message().trim_end_matches('\n').to_string();
            let key = unknown_key(&message);
            err_at(
                location(text, &shown, e.span().map_or(0, |s| s.start)),
                key.as_deref(),
                message,
            )
        })?;
        let at = |offset: usize| location(text, &shown, offset);
        let origin = |offset: usize| {
            let l = at(offset);
            RuleOrigin::File {
                path: l.origin,
                line: l.line,
            }
        };
        if layer == Layer::Project {
            let refused = [
                (
                    "auto_confirm",
                    raw.auto_confirm.as_ref().map(|s| s.span().start),
                ),
                (
                    "state_file",
                    raw.state_file.as_ref().map(|s| s.span().start),
                ),
                // A repository choosing where decisions are written could aim them anywhere.
                ("audit_log", raw.audit_log.as_ref().map(|s| s.span().start)),
                ("assessor", raw.assessor.as_ref().map(|s| s.span().start)),
                (
                    "claude",
                    raw.claude.as_ref().and_then(|c| {
                        c.import
                            .as_ref()
                            .or(c.defer_allow_rules.as_ref())
                            .map(|s| s.span().start)
                    }),
                ),
            ];
            if let Some((key, Some(offset))) = refused.into_iter().find(|(_, o)| o.is_some()) {
                return Err(err_at(
                    at(offset),
                    Some(key),
                    format!(
                        "a project config may not set `{key}`; only `[allowlist]` tables with [[allow]], [[deny]], [[option_set]] and raised [severity] values (set it in your user config)"
                    ),
                ));
            }
        }
        if let Some(v) = &raw.auto_confirm {
            let o = origin(v.span().start);
            if *v.get_ref() {
                self.auto_confirm_on = Some(o);
            } else {
                self.auto_confirm_off.get_or_insert(o);
            }
        }
        if let Some(v) = &raw.state_file {
            let p = resolve(path, v.get_ref());
            self.state_file = Some(Setting {
                value: p,
                origin: origin(v.span().start),
            });
        }
        if let Some(v) = &raw.audit_log {
            self.audit_log = Some(Setting {
                value: resolve(path, v.get_ref()),
                origin: origin(v.span().start),
            });
        }
        if let Some(a) = &raw.assessor {
            self.assessor = Setting {
                value: assessor(a.get_ref(), text, &shown)?,
                origin: origin(a.span().start),
            };
        }
        if let Some(c) = &raw.claude
            && let Some(import) = &c.import
            && !*import.get_ref()
        {
            self.claude_import = false;
        }
        if let Some(c) = &raw.claude
            && let Some(defer) = &c.defer_allow_rules
        {
            self.claude_defer = *defer.get_ref();
        }
        if let Some(list) = &raw.allowlist {
            for f in &list.files {
                let file = self.allowlist_path(layer, path, f, text, &shown)?;
                let body = read(&file)?;
                self.add_allowlist(layer, &body, &file, (0, 0))?;
            }
            if let Some(inline) = &list.inline {
                let start = inline_start(text, inline.span().start);
                self.add_allowlist(layer, inline.get_ref(), path, start_padding(text, start))?;
            }
        }
        self.files
            .push(LayerFile::new(layer, shown, FileStatus::Used));
        Ok(())
    }

    /// An `[allowlist] files` entry, resolved against the config file's directory. A project
    /// may name none: trust covers the contents of `.cmdguard.toml`, not of the files it names,
    /// so its tables are written inline.
    fn allowlist_path(
        &self,
        layer: Layer,
        config: &Path,
        f: &Spanned<String>,
        text: &str,
        shown: &str,
    ) -> Result<PathBuf, ConfigError> {
        if layer == Layer::Project {
            return Err(err_at(
                location(text, shown, f.span().start),
                Some("allowlist.files"),
                format!(
                    "a project config may not name allowlist files (`{}`): trust covers only the text of .cmdguard.toml, so write the tables in `inline`",
                    f.get_ref()
                ),
            ));
        }
        Ok(resolve(config, f.get_ref()))
    }

    /// Refuses a project `[[allow]]` entry for a command an earlier layer (or the embedded
    /// list) already has an entry for: a project adds programs, it does not loosen the rule
    /// of one cmdguard already knows (the longest match wins, and among equals the last).
    fn check_project_entry(&self, embedded: &Allowlist, words: &[&str]) -> Result<(), String> {
        let known_default = embedded
            .entries
            .get(words[0])
            .is_some_and(|list| list.iter().any(|e| e.words == words));
        let known_layer = self
            .rules
            .iter()
            .any(|r| r.table == "allow" && r.id.split_whitespace().eq(words.iter().copied()));
        if known_default || known_layer {
            return Err(format!(
                "a project config may not redefine `{}`, which an earlier layer already allows on its own terms",
                words.join(" ")
            ));
        }
        Ok(())
    }

    /// One allowlist text of `layer`, written in `path`; `pad` lines and columns go before
    /// it so that lines and columns are the file's (for inline text).
    fn add_allowlist(
        &mut self,
        layer: Layer,
        body: &str,
        path: &Path,
        pad: (usize, usize),
    ) -> Result<(), ConfigError> {
        let text = format!("{}{}{body}", "\n".repeat(pad.0), " ".repeat(pad.1));
        let shown = path.display().to_string();
        // A text that does not parse is reported by the builder, with its position.
        let table: toml::Table = match toml::from_str(&text) {
            Ok(t) => t,
            Err(_) => {
                return AllowlistBuilder::new()
                    .add_toml(&text, Some(path))
                    .compile()
                    .map(|_| ());
            }
        };
        if layer == Layer::Project
            && let Some(key) = table
                .keys()
                .find(|k| !PROJECT_ALLOWLIST_KEYS.contains(&k.as_str()))
        {
            let offset = key_offset(&text, key);
            return Err(err_at(
                location(&text, &shown, offset),
                Some(key),
                format!(
                    "a project allowlist may not set `{key}`; it may only add [[allow]], [[deny]], [[option_set]] and raise [severity] values"
                ),
            ));
        }
        // The builder reads the same tables strictly; were this lenient reading to fail where
        // the builder does not, the text is still refused rather than merged unchecked.
        let peek: Peek = match toml::from_str(&text) {
            Ok(p) => p,
            Err(e) => {
                AllowlistBuilder::new()
                    .add_toml(&text, Some(path))
                    .compile()?;
                return Err(err_at(
                    location(&text, &shown, e.span().map_or(0, |s| s.start)),
                    None,
                    e.message().trim_end_matches('\n').to_string(),
                ));
            }
        };
        let origin = |offset: usize| {
            let l = location(&text, &shown, offset);
            RuleOrigin::File {
                path: l.origin,
                line: l.line,
            }
        };
        for (name, v) in &peek.severity {
            let Some(code) = Code::from_name(name.get_ref()) else {
                // The builder names the unknown code, with its position.
                continue;
            };
            let verdict = *v.get_ref();
            let here = location(&text, &shown, v.span().start);
            if code.default_severity() == Verdict::Deny && verdict < Verdict::Deny {
                return Err(err_at(
                    here,
                    Some(name.get_ref()),
                    format!(
                        "`{}` cannot be lowered to `{verdict}`: it would switch off every deny rule",
                        name.get_ref()
                    ),
                ));
            }
            let current = self
                .severity
                .get(&code)
                .map_or_else(|| code.default_severity(), |s| s.verdict);
            if layer == Layer::Project && verdict < current {
                return Err(err_at(
                    here,
                    Some(name.get_ref()),
                    format!(
                        "a project config may only raise severities; `{}` is `{current}` and cannot become `{verdict}`",
                        name.get_ref()
                    ),
                ));
            }
            // Strictest wins across layers: a later layer cannot lower an earlier one's value.
            let keep = self
                .severity
                .get(&code)
                .is_some_and(|s| s.verdict >= verdict);
            if !keep {
                self.severity.insert(
                    code,
                    SeveritySetting {
                        code,
                        verdict,
                        origin: origin(v.span().start),
                    },
                );
            }
        }
        if layer == Layer::Project && !peek.allow.is_empty() {
            let embedded = Allowlist::default();
            for r in &peek.allow {
                let words: Vec<&str> = r.command.get_ref().split_whitespace().collect();
                if words.is_empty() {
                    continue;
                }
                if let Err(message) = self.check_project_entry(&embedded, &words) {
                    return Err(err_at(
                        location(&text, &shown, r.command.span().start),
                        Some(r.command.get_ref()),
                        message,
                    ));
                }
            }
        }
        let tables = [
            ("allow", &peek.allow),
            ("wrapper", &peek.wrapper),
            ("shell", &peek.shell),
        ];
        for (table, list) in tables {
            for r in list {
                self.rules.push(RuleSummary {
                    table,
                    id: r.command.get_ref().clone(),
                    origin: origin(r.command.span().start),
                });
            }
        }
        for d in &peek.deny {
            self.rules.push(RuleSummary {
                table: "deny",
                id: d.id.get_ref().clone(),
                origin: origin(d.id.span().start),
            });
        }
        self.sources.push((text, path.to_path_buf()));
        Ok(())
    }

    /// The merged configuration; the allowlist compiled and its examples verified.
    fn finish(self) -> Result<Config, ConfigError> {
        let allowlist =
            if self.sources.is_empty() && self.severity.is_empty() && self.packs.is_empty() {
                // The embedded list's examples are verified by the test suite, not on every run.
                Allowlist::default()
            } else {
                let mut builder = AllowlistBuilder::new();
                if self.replaced_default {
                    // A replacement allowlist keeps the default deny packs; `[packs] disable` turns
                    // them off.
                    builder.add_default_packs();
                } else {
                    builder.add_default();
                }
                // The layers' texts, then the merged severities last, since a later `[severity]`
                // table replaces an earlier one's values in the builder.
                let mut merged = String::from("[severity]\n");
                for s in self.severity.values() {
                    merged.push_str(&format!("{} = \"{}\"\n", s.code, s.verdict));
                }
                for (text, path) in &self.sources {
                    builder.add_toml(text, Some(path));
                }
                builder.add_toml(&merged, Some(Path::new("<merged severity>")));
                for p in &self.packs {
                    builder.add_pack_file(p)?;
                }
                builder.build()?
            };
        let auto_confirm = match (&self.auto_confirm_on, &self.auto_confirm_off) {
            (Some(on), None) => Setting {
                value: true,
                origin: on.clone(),
            },
            (_, Some(off)) => Setting {
                value: false,
                origin: off.clone(),
            },
            (None, None) => Setting {
                value: false,
                origin: RuleOrigin::BuiltIn,
            },
        };
        Ok(Config {
            analyzer: Analyzer::new(allowlist),
            command_rules: self.command_rules,
            claude_allow: self.claude_allow,
            claude_defer: self.claude_defer,
            assessor: self.assessor,
            auto_confirm,
            state_file: self.state_file,
            audit_log: self.audit_log,
            severity: self.severity.into_values().collect(),
            rules: self.rules,
            files: self.files,
            notes: self.notes,
        })
    }
}

/// `[assessor]` checked against its kind: each kind takes only its own settings.
fn assessor(a: &file::RawAssessor, text: &str, shown: &str) -> Result<AssessorConfig, ConfigError> {
    let at = |offset: usize| location(text, shown, offset);
    let kind_at = a.kind.span().start;
    let misplaced = |key: &str, kind: &str| {
        err_at(
            at(kind_at),
            Some(key),
            format!("`{key}` does not apply to an assessor of kind `{kind}`"),
        )
    };
    let missing = |key: &str, kind: &str| {
        err_at(
            at(kind_at),
            Some(key),
            format!("an assessor of kind `{kind}` needs `{key}`"),
        )
    };
    match a.kind.get_ref() {
        RawAssessorKind::None => {
            let set = [
                ("command", a.command.is_some()),
                ("max_output_bytes", a.max_output_bytes.is_some()),
                ("timeout_ms", a.timeout_ms.is_some()),
                ("base_url", a.base_url.is_some()),
                ("model", a.model.is_some()),
                ("api_key_env", a.api_key_env.is_some()),
            ];
            match set.iter().find(|(_, s)| *s) {
                Some((key, _)) => Err(misplaced(key, "none")),
                None => Ok(AssessorConfig::None),
            }
        }
        RawAssessorKind::Command => {
            for (key, s) in [
                ("base_url", a.base_url.is_some()),
                ("model", a.model.is_some()),
                ("api_key_env", a.api_key_env.is_some()),
            ] {
                if s {
                    return Err(misplaced(key, "command"));
                }
            }
            let command = a
                .command
                .as_ref()
                .ok_or_else(|| missing("command", "command"))?;
            if command.get_ref().is_empty() {
                return Err(err_at(
                    at(command.span().start),
                    Some("command"),
                    "`command` needs at least the program".into(),
                ));
            }
            Ok(AssessorConfig::Command {
                command: command.get_ref().clone(),
                timeout_ms: a.timeout_ms,
                max_output_bytes: a.max_output_bytes,
            })
        }
        RawAssessorKind::Agent => {
            for (key, s) in [
                ("command", a.command.is_some()),
                ("max_output_bytes", a.max_output_bytes.is_some()),
            ] {
                if s {
                    return Err(misplaced(key, "agent"));
                }
            }
            let base_url = a
                .base_url
                .as_ref()
                .ok_or_else(|| missing("base_url", "agent"))?;
            let model = a.model.as_ref().ok_or_else(|| missing("model", "agent"))?;
            Ok(AssessorConfig::Agent {
                base_url: base_url.get_ref().clone(),
                model: model.get_ref().clone(),
                api_key_env: a.api_key_env.as_ref().map(|s| s.get_ref().clone()),
                timeout_ms: a.timeout_ms,
            })
        }
    }
}

/// `value` as a path: `~/` is the home directory's, a relative path the config file's
/// directory's.
fn resolve(config: &Path, value: &str) -> PathBuf {
    let p = Path::new(value);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    config
        .parent()
        .map_or_else(|| p.to_path_buf(), |d| d.join(p))
}

/// The byte offset where an inline string's text starts, given where its value starts: after
/// the opening quotes and, for `'''` / `"""`, the newline TOML drops right after them.
fn inline_start(text: &str, value: usize) -> usize {
    let rest = text.get(value..).unwrap_or("");
    let quote = if rest.starts_with("'''") || rest.starts_with("\"\"\"") {
        3
    } else {
        1
    };
    let after = value + quote;
    let tail = text.get(after..).unwrap_or("");
    if quote == 3 {
        if tail.starts_with("\r\n") {
            return after + 2;
        }
        if tail.starts_with('\n') {
            return after + 1;
        }
    }
    after
}

/// Lines and columns to put before inline text starting at `offset` so its positions are the
/// file's.
fn start_padding(text: &str, offset: usize) -> (usize, usize) {
    let (line, column) = line_col(text, offset);
    (line - 1, column - 1)
}

/// Where top-level `key` is written in `text` (0 when it cannot be told).
fn key_offset(text: &str, key: &str) -> usize {
    toml::de::DeTable::parse(text)
        .ok()
        .and_then(|t| {
            t.get_ref()
                .keys()
                .find(|k| k.get_ref().as_ref() == key)
                .map(|k| k.span().start)
        })
        .unwrap_or(0)
}

/// The key an "unknown field `x`" message names.
fn unknown_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest.split('`').next()?.to_string())
}

impl fmt::Display for Config {
    /// `cmdguard config show`: the effective configuration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show::write(self, f, show::Origins::Hidden)
    }
}

mod show;
pub use self::build::{ConfiguredAssessor, DEFAULT_AGENT_TIMEOUT, DEFAULT_COMMAND_TIMEOUT};
pub use self::claude::{defers_to_claude, name_covering_rules};
pub use self::show::Origins;

/// `cmdguard config show --origin`: [`Config`] with every value's file and line.
pub fn show(config: &Config, origins: Origins) -> String {
    struct Shown<'a>(&'a Config, Origins);
    impl fmt::Display for Shown<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            show::write(self.0, f, self.1)
        }
    }
    Shown(config, origins).to_string()
}

//! config/file: the serialised form of a `config.toml`, exactly as written, with spans kept for
//! error messages. It never merges layers or compiles rules (see `config.rs`).

use serde::Deserialize;
use toml::Spanned;

/// A whole config file. Every key is optional; an unknown key is an error.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFile {
    /// Take a prompt's default answer without asking (the policy's auto-confirm mode).
    pub auto_confirm: Option<Spanned<bool>>,
    /// Where the policy keeps grants across runs (a JSON file).
    pub state_file: Option<Spanned<String>>,
    /// Where hooks append one JSON line per decision (the audit log); off when unset.
    pub audit_log: Option<Spanned<String>>,
    /// Which assessor decides `ask` verdicts.
    pub assessor: Option<Spanned<RawAssessor>>,
    /// Allowlist tables: files, and text inline.
    pub allowlist: Option<RawAllowlist>,
    /// Claude Code permission rules.
    pub claude: Option<RawClaude>,
}

/// `[assessor]`: `kind` and the settings that kind needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAssessor {
    pub kind: Spanned<RawAssessorKind>,
    /// `command`: the program and its arguments.
    pub command: Option<Spanned<Vec<String>>>,
    /// `command`: the most bytes read from its stdout.
    pub max_output_bytes: Option<usize>,
    /// `command` and `agent`: how long to wait for an answer.
    pub timeout_ms: Option<u64>,
    /// `agent`: the OpenAI-compatible endpoint.
    pub base_url: Option<Spanned<String>>,
    /// `agent`: the model name.
    pub model: Option<Spanned<String>>,
    /// `agent`: the environment variable holding the API key (never the key itself).
    pub api_key_env: Option<Spanned<String>>,
}

/// `kind` of `[assessor]`.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RawAssessorKind {
    None,
    Command,
    Agent,
}

/// `[allowlist]`: allowlist tables in the `allowlist.toml` format.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAllowlist {
    /// Allowlist files, relative to the config file's directory.
    #[serde(default)]
    pub files: Vec<Spanned<String>>,
    /// Allowlist text inline: write it as a `'''` literal string so errors point at the right
    /// line of the config file.
    pub inline: Option<Spanned<String>>,
}

/// `[claude]`: whether to import Claude Code's `permissions` lists.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawClaude {
    /// Import `~/.claude/settings.json` (user layer) or the project's `.claude/settings.json`
    /// and `settings.local.json` (project layer). On unless a layer says `false`. Deny and ask
    /// rules apply as written; allow rules never make cmdguard allow (see `config/claude.rs`).
    pub import: Option<Spanned<bool>>,
    /// Leave a command that only an imported Claude Code allow rule covers to Claude Code's
    /// own permissions (the Claude Code hook gives no decision) instead of asking. Off unless
    /// the user config says `true`: cmdguard did not see through such a command, and Claude
    /// Code's rule runs it whatever it prints or deletes. A project config may not set it.
    pub defer_allow_rules: Option<Spanned<bool>>,
}

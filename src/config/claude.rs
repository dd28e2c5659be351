//! config/claude: reads Claude Code's `permissions.allow|ask|deny` lists from a
//! `settings.json` into [`CommandRules`]. It never decides anything: `command_rules.rs` applies
//! the rules, segment by segment.
//!
//! Only `Bash(…)` rules are read; rules for other tools are Claude Code's business. A bare
//! `Bash` (or `Bash(*)`) in `allow` is not imported — it would cover every program — and is
//! reported as skipped; in `deny` or `ask` it is imported as written.

use std::path::Path;

use serde::Deserialize;

use crate::allowlist::{ConfigError, Location};
use crate::config::command_rules::{CommandRule, CommandRules, Pattern, RuleAction};
use crate::finding::RuleOrigin;

/// The part of a Claude Code settings file cmdguard reads; every other key is ignored, as
/// the file belongs to Claude Code.
#[derive(Debug, Deserialize, Default)]
struct RawSettings {
    #[serde(default)]
    permissions: RawPermissions,
}

#[derive(Debug, Deserialize, Default)]
struct RawPermissions {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// The rules read from one settings file, and the allow rules left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Imported {
    pub rules: CommandRules,
    /// Allow rules not imported, with why.
    pub skipped: Vec<String>,
}

/// Reads a settings file's `Bash(…)` rules. A file that is not JSON, or a deny or ask rule
/// that cannot be read, is an error: leaving it out would be a weaker policy. An allow rule
/// that cannot be read is skipped (leaving it out is stricter).
pub(crate) fn import(text: &str, path: &Path) -> Result<Imported, ConfigError> {
    let origin = path.display().to_string();
    let settings: RawSettings = serde_json::from_str(text).map_err(|e| {
        let at = Location {
            origin: origin.clone(),
            line: e.line(),
            column: e.column(),
        };
        ConfigError::at(
            at,
            Some("permissions"),
            format!("not a Claude Code settings file: {e}"),
        )
    })?;
    let mut out = Imported::default();
    let lists = [
        (RuleAction::Deny, settings.permissions.deny),
        (RuleAction::Ask, settings.permissions.ask),
        (RuleAction::Allow, settings.permissions.allow),
    ];
    for (action, list) in lists {
        for entry in list {
            let Some(inner) = bash_rule(&entry) else {
                continue;
            };
            let line = line_of(text, &entry);
            let rule_origin = RuleOrigin::File {
                path: origin.clone(),
                line,
            };
            match CommandRule::parse(inner, action, rule_origin) {
                Ok(rule) if action == RuleAction::Allow && rule.pattern == Pattern::Any => {
                    out.skipped.push(format!(
                        "{origin}:{line}: `{entry}` not imported: it would allow every program"
                    ));
                }
                Ok(rule) => out.rules.push(rule),
                Err(e) if action == RuleAction::Allow => {
                    out.skipped.push(format!(
                        "{origin}:{line}: `{entry}` not imported: {}",
                        e.message
                    ));
                }
                Err(e) => {
                    let at = Location {
                        origin: origin.clone(),
                        line,
                        column: 0,
                    };
                    let key = format!("permissions.{}", action.as_str());
                    return Err(ConfigError::at(at, Some(&key), e.to_string()));
                }
            }
        }
    }
    Ok(out)
}

/// The text inside `Bash(…)`, `""` for a bare `Bash`; `None` for another tool's rule.
fn bash_rule(entry: &str) -> Option<&str> {
    let entry = entry.trim();
    if entry == "Bash" {
        return Some("");
    }
    entry.strip_prefix("Bash(")?.strip_suffix(')')
}

/// The line where the JSON string `entry` is first written (1 when it cannot be found).
fn line_of(text: &str, entry: &str) -> usize {
    let quoted = serde_json::to_string(entry).unwrap_or_default();
    text.find(&quoted)
        .map(|at| text[..at].matches('\n').count() + 1)
        .unwrap_or(1)
}

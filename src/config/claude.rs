//! config/claude: reads Claude Code's `permissions.allow|ask|deny` lists from a
//! `settings.json` into [`CommandRules`]. It never decides anything: `policy/rules.rs` applies
//! the rules, segment by segment, and [`defers_to_claude`] names the allow rules a command is
//! left to.
//!
//! Only `Bash(…)` rules are read; rules for other tools are Claude Code's business. `deny` and
//! `ask` rules are imported as written (a bare `Bash` too): they only make commands stricter.
//! `allow` rules never make cmdguard say allow: a rule like `Bash(sqlite3:*)` names a program
//! whose side doors (`.shell`, `.output |cmd`) cmdguard's allowlist does not model, so a
//! command they cover is still `ask`, with a finding that names the rule; a Claude Code hook
//! then leaves it to Claude Code's own permissions, which apply the user's rule themselves.
//! A bare `Bash` (or `Bash(*)`) in `allow` is not imported at all — it would cover every
//! program — and is reported as skipped.

use std::path::Path;

use serde::Deserialize;

use crate::Analysis;
use crate::allowlist::{ConfigError, Location};
use crate::finding::{RuleOrigin, Verdict};
use crate::policy::rules::{CommandRule, CommandRules, Pattern, RuleAction, covering_rules};

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
    /// The deny and ask rules, applied as written.
    pub rules: CommandRules,
    /// The allow rules: they never lower a verdict (see [`defers_to_claude`]).
    pub allow: CommandRules,
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
                Ok(rule) if action == RuleAction::Allow => out.allow.push(rule),
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

/// The imported allow rules that cover every finding that makes `a` ask, one per finding in
/// order; `None` when `a` does not ask or one such finding is not covered (the one soundness
/// rule of `policy::rules::covering_rules`: only `not_allowlisted`/`unusual_path` at a
/// segment's own command word, on a segment no allowlist, deny or ask rule matched). Such a
/// command is one cmdguard did not see through but the user's Claude Code rule names: cmdguard
/// asks, and a Claude Code hook leaves it to Claude Code.
pub fn defers_to_claude<'r>(a: &Analysis, allow: &'r CommandRules) -> Option<Vec<&'r CommandRule>> {
    if a.verdict != Verdict::Ask || allow.is_empty() {
        return None;
    }
    // Segments a deny or ask rule matched carry that rule's finding, which no allow rule
    // covers, so no segment needs marking here.
    let unrestricted = vec![false; a.segments.len()];
    let covering = covering_rules(a, &allow.rules, &unrestricted)?;
    Some(covering.into_iter().map(|i| &allow.rules[i]).collect())
}

/// Says, on each finding an imported allow rule covers, which rule it is and why it still
/// asks. Returns the rules so named (`` `Bash(npm test)` (file:line) ``), one per such
/// finding; empty when no imported rule covers the command.
pub fn name_covering_rules(a: &mut Analysis, allow: &CommandRules) -> Vec<String> {
    let Some(rules) = defers_to_claude(a, allow) else {
        return Vec::new();
    };
    let texts: Vec<String> = rules
        .iter()
        .map(|r| format!("`Bash({})` ({})", r.text, r.origin))
        .collect();
    let above = a
        .findings
        .iter_mut()
        .filter(|f| f.severity > Verdict::Allow);
    for (f, rule) in above.zip(&texts) {
        f.message = format!(
            "{} (the imported Claude Code allow rule {rule} names it, but cmdguard does not see what it runs, so it asks)",
            f.message
        );
    }
    texts
}

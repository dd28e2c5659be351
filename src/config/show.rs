//! config/show: the text `cmdguard config show` prints — every layer's file and what became of
//! it, the settings, severities and the rules layers added, optionally with where each was
//! written. It only formats a [`Config`]; it never reads a file.

use std::fmt;

use super::{AssessorConfig, Config, Setting};
use crate::finding::RuleOrigin;

/// Whether `config show` prints each value's origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origins {
    /// Values only.
    Hidden,
    /// Each value followed by `# file:line` (or `# built-in`).
    Shown,
}

pub(super) fn write(c: &Config, f: &mut fmt::Formatter<'_>, origins: Origins) -> fmt::Result {
    let from = |o: &RuleOrigin| match origins {
        Origins::Hidden => String::new(),
        Origins::Shown => format!("  # {o}"),
    };
    writeln!(f, "[files]")?;
    for file in &c.files {
        writeln!(
            f,
            "{:<8} {} ({})",
            file.layer.as_str(),
            file.path,
            file.status.as_str()
        )?;
    }
    writeln!(f)?;
    writeln!(f, "[settings]")?;
    let Setting { value, origin } = &c.auto_confirm;
    writeln!(f, "auto_confirm = {value}{}", from(origin))?;
    match &c.state_file {
        Some(s) => writeln!(
            f,
            "state_file = {:?}{}",
            s.value.display().to_string(),
            from(&s.origin)
        )?,
        None => writeln!(f, "state_file = none (grants stay in memory)")?,
    }
    match &c.audit_log {
        Some(s) => writeln!(
            f,
            "audit_log = {:?}{}",
            s.value.display().to_string(),
            from(&s.origin)
        )?,
        None => writeln!(f, "audit_log = none")?,
    }
    let a = &c.assessor;
    let assessor = match &a.value {
        AssessorConfig::None => "none".to_string(),
        AssessorConfig::Command {
            command,
            timeout_ms,
            max_output_bytes,
        } => format!(
            "command {command:?}{}{}",
            timeout_ms.map_or_else(String::new, |t| format!(", timeout_ms = {t}")),
            max_output_bytes.map_or_else(String::new, |m| format!(", max_output_bytes = {m}")),
        ),
        AssessorConfig::Agent {
            base_url,
            model,
            api_key_env,
            timeout_ms,
        } => format!(
            "agent {model:?} at {base_url:?}{}{}",
            api_key_env
                .as_ref()
                .map_or_else(String::new, |e| format!(", api key from ${e}")),
            timeout_ms.map_or_else(String::new, |t| format!(", timeout_ms = {t}")),
        ),
    };
    writeln!(f, "assessor = {assessor}{}", from(&a.origin))?;
    writeln!(f)?;
    writeln!(f, "[severity]")?;
    if c.severity.is_empty() {
        writeln!(f, "# every code at its default")?;
    }
    for s in &c.severity {
        writeln!(f, "{} = {}{}", s.code, s.verdict, from(&s.origin))?;
    }
    writeln!(f)?;
    writeln!(f, "[rules]")?;
    writeln!(
        f,
        "# the default allowlist's rules (`cmdguard default-allowlist`), then these:"
    )?;
    for r in &c.rules {
        writeln!(f, "{} `{}`{}", r.table, r.id, from(&r.origin))?;
    }
    for r in c.command_rules.rules.iter().chain(&c.claude_allow.rules) {
        writeln!(
            f,
            "{} `Bash({})`{}",
            r.action.as_str(),
            r.text,
            from(&r.origin)
        )?;
    }
    if !c.notes.is_empty() {
        writeln!(f)?;
        writeln!(f, "[notes]")?;
        for n in &c.notes {
            writeln!(f, "{n}")?;
        }
    }
    Ok(())
}

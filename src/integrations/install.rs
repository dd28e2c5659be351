//! integrations/install: `cmdguard install <agent>` — merges cmdguard's hook into an agent's
//! settings file. It keeps every other key (in order), adds nothing when the hook is already
//! there, backs the old file up before writing, writes through a temporary file renamed into
//! place, and prints what changed. A file that is not a JSON object (or holds a duplicate
//! key, which a rewrite would silently drop) is refused with exit 78 and left untouched.
//!
//! Where each agent's settings live and how a hook entry looks was verified with the hook
//! formats (see `hook/{claude,gemini,codex}.rs`): Claude Code `~/.claude/settings.json`,
//! `.claude/settings.json`, `.claude/settings.local.json` (timeout in seconds); Gemini CLI
//! `~/.gemini/settings.json`, `.gemini/settings.json` (timeout in milliseconds); Codex
//! `~/.codex/hooks.json`, `.codex/hooks.json` (no timeout key written: its spelling in
//! `hooks.json` was not verified). All three use
//! `{"hooks": {"<Event>": [{"matcher": "<tool>", "hooks": [{"type": "command", "command": …}]}]}}`.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Map, Value, json};

use super::hook::Agent;
use super::hook::payload::Strict;

/// Exit status for a usage error (EX_USAGE).
const EXIT_USAGE: i32 = 64;
/// Exit status when the file cannot be written (EX_CANTCREAT).
const EXIT_CANTCREAT: i32 = 73;
/// Exit status for a settings file that is not valid (EX_CONFIG).
const EXIT_CONFIG: i32 = 78;

/// The hook's own timeout written into Claude Code and Gemini CLI settings, in seconds: above
/// `cmdguard hook`'s default `--timeout` (45 s), so cmdguard answers before the agent gives up.
pub const HOOK_TIMEOUT_SECS: u64 = 60;

/// `cmdguard install <agent>`: add the hook to the agent's settings.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent whose settings to change.
    pub agent: Agent,
    /// The user's settings (the default).
    #[arg(long, group = "scope")]
    pub user: bool,
    /// The project's shared settings, in the current directory (`.claude/settings.json`,
    /// `.gemini/settings.json`, `.codex/hooks.json`).
    #[arg(long, group = "scope")]
    pub project: bool,
    /// The project's local, uncommitted settings (Claude Code's `.claude/settings.local.json`).
    #[arg(long, group = "scope")]
    pub local: bool,
    /// This settings file.
    #[arg(long, value_name = "FILE", group = "scope")]
    pub settings: Option<PathBuf>,
    /// Print what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// What merging did to the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The hook was added.
    Added,
    /// A cmdguard hook for this agent was there with another command; it now runs this one.
    Updated {
        /// The command it ran before.
        was: String,
    },
    /// The hook was already there, exactly.
    Unchanged,
}

/// Runs `cmdguard install` and returns the exit status.
pub fn run(args: &InstallArgs) -> i32 {
    let agent = args.agent;
    let path = match settings_path(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cmdguard: {e}");
            return EXIT_USAGE;
        }
    };
    let command = match std::env::current_exe() {
        Ok(exe) => format!(
            "{} hook {}",
            shell_quote(&exe.to_string_lossy()),
            agent.name()
        ),
        Err(e) => {
            eprintln!("cmdguard: cannot tell where this cmdguard binary is: {e}");
            return EXIT_USAGE;
        }
    };
    let old = match fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            eprintln!("cmdguard: cannot read {}: {e}", path.display());
            return EXIT_CONFIG;
        }
    };
    let (settings, change) = match merge(old.as_deref(), agent, &command) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cmdguard: {}: {e}; nothing was written", path.display());
            return EXIT_CONFIG;
        }
    };
    let entry = format!(
        "hooks › {} › matcher `{}` › `{command}`",
        agent.event(),
        agent.shell_tool()
    );
    let shown = path.display();
    if let Some(why) = hooks_disabled(&settings, agent) {
        eprintln!("cmdguard: warning: {shown}: {why}: the hook is written but will not run");
    }
    match &change {
        Change::Unchanged => {
            println!("{shown}: already has {entry}; nothing changed");
            return 0;
        }
        Change::Added if old.is_none() => println!("{shown}: new file with {entry}"),
        Change::Added => println!("{shown}: added {entry}"),
        Change::Updated { was } => println!("{shown}: updated {entry} (was `{was}`)"),
    }
    if args.dry_run {
        println!("(dry run: nothing written)");
        return 0;
    }
    let mut text = match serde_json::to_string_pretty(&settings) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cmdguard: cannot format {shown}: {e}");
            return EXIT_CANTCREAT;
        }
    };
    text.push('\n');
    match write(&path, old.as_deref(), text.as_bytes()) {
        Ok(Some(backup)) => {
            println!("backup of the old file: {}", backup.display());
            0
        }
        Ok(None) => 0,
        Err(e) => {
            eprintln!("cmdguard: cannot write {shown}: {e}");
            EXIT_CANTCREAT
        }
    }
}

/// The settings file `args` names.
fn settings_path(args: &InstallArgs) -> Result<PathBuf, String> {
    if let Some(p) = &args.settings {
        return Ok(p.clone());
    }
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = || {
        var("HOME").ok_or("cannot tell the home directory (HOME is not set); pass --settings FILE")
    };
    let cwd =
        || std::env::current_dir().map_err(|e| format!("cannot tell the current directory ({e})"));
    let agent = args.agent;
    if args.local {
        return match agent {
            Agent::ClaudeCode => Ok(cwd()?.join(".claude/settings.local.json")),
            Agent::Gemini | Agent::Codex => Err(format!(
                "--local is for Claude Code; {} has no local settings file (use --project)",
                agent.name()
            )),
        };
    }
    if args.project {
        let rel = match agent {
            Agent::ClaudeCode => ".claude/settings.json",
            Agent::Gemini => ".gemini/settings.json",
            Agent::Codex => ".codex/hooks.json",
        };
        return Ok(cwd()?.join(rel));
    }
    Ok(match agent {
        Agent::ClaudeCode => match var("CLAUDE_CONFIG_DIR") {
            Some(d) => d.join("settings.json"),
            None => home()?.join(".claude/settings.json"),
        },
        Agent::Gemini => home()?.join(".gemini/settings.json"),
        Agent::Codex => match var("CODEX_HOME") {
            Some(d) => d.join("hooks.json"),
            None => home()?.join(".codex/hooks.json"),
        },
    })
}

/// The settings `old` holds (none: an empty file) with `agent`'s hook running `command`.
pub fn merge(old: Option<&[u8]>, agent: Agent, command: &str) -> Result<(Value, Change), String> {
    let mut root = match old {
        None => Value::Object(Map::new()),
        Some(b) if b.iter().all(u8::is_ascii_whitespace) => Value::Object(Map::new()),
        Some(b) => {
            let text = std::str::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())?;
            let Strict(v) =
                serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
            v
        }
    };
    let Value::Object(obj) = &mut root else {
        return Err("not a JSON object".into());
    };
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("`hooks` is not an object".into());
    };
    let groups = hooks
        .entry(agent.event())
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(groups) = groups else {
        return Err(format!("`hooks.{}` is not an array", agent.event()));
    };
    // An existing cmdguard hook for this agent is updated in place, never duplicated. Only a
    // group whose matcher is exactly the shell tool counts: a hook under another matcher
    // checks no shell command (red team s10), so the shell tool's group is added beside it.
    for group in groups.iter_mut() {
        if group.get("matcher").and_then(Value::as_str) != Some(agent.shell_tool()) {
            continue;
        }
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        for h in list.iter_mut() {
            let Some(existing) = h.get("command").and_then(Value::as_str) else {
                continue;
            };
            if !is_cmdguard_hook(existing, agent) {
                continue;
            }
            if existing == command {
                return Ok((root, Change::Unchanged));
            }
            let was = existing.to_string();
            h["command"] = json!(command);
            return Ok((root, Change::Updated { was }));
        }
    }
    groups.push(entry(agent, command));
    Ok((root, Change::Added))
}

/// Why the agent would run no hook from `settings`, when a key there says so: Claude Code's
/// `disableAllHooks: true` turns every hook off.
fn hooks_disabled(settings: &Value, agent: Agent) -> Option<&'static str> {
    match agent {
        Agent::ClaudeCode if settings.get("disableAllHooks") == Some(&Value::Bool(true)) => {
            Some("`disableAllHooks` is true, so Claude Code runs no hook")
        }
        Agent::ClaudeCode | Agent::Gemini | Agent::Codex => None,
    }
}

/// The matcher group cmdguard adds.
fn entry(agent: Agent, command: &str) -> Value {
    match agent {
        Agent::ClaudeCode => json!({
            "matcher": agent.shell_tool(),
            "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}],
        }),
        Agent::Gemini => json!({
            "matcher": agent.shell_tool(),
            "hooks": [{
                "name": "cmdguard",
                "type": "command",
                "command": command,
                "timeout": HOOK_TIMEOUT_SECS * 1000,
            }],
        }),
        Agent::Codex => json!({
            "matcher": agent.shell_tool(),
            "hooks": [{"type": "command", "command": command}],
        }),
    }
}

/// A hook command that runs a `cmdguard` binary as `… hook <agent>`.
fn is_cmdguard_hook(command: &str, agent: Agent) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let [.., program, hook, name] = words.as_slice() else {
        return false;
    };
    let program = program.trim_matches('\'');
    *hook == "hook"
        && *name == agent.name()
        && Path::new(program)
            .file_name()
            .is_some_and(|f| f == "cmdguard")
}

/// `text` as one shell word (the agents run hook commands through a shell).
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Writes `text` to `path` through a temporary file renamed into place; the old contents, if
/// any, go to a backup first (`<file>.cmdguard.bak`, or `.bak.N` when that exists).
fn write(path: &Path, old: Option<&[u8]>, text: &[u8]) -> std::io::Result<Option<PathBuf>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let backup = match old {
        None => None,
        Some(bytes) => {
            let name = |n: usize| {
                let mut s = path.as_os_str().to_os_string();
                s.push(".cmdguard.bak");
                if n > 0 {
                    s.push(format!(".{n}"));
                }
                PathBuf::from(s)
            };
            let mut n = 0;
            let mut file = loop {
                match OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(name(n))
                {
                    Ok(f) => break f,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {
                        n += 1;
                    }
                    Err(e) => return Err(e),
                }
            };
            file.write_all(bytes)?;
            file.sync_all()?;
            Some(name(n))
        }
    };
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".cmdguard.{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(text)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(backup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cmdguard_hook_is_recognised_by_program_and_agent() {
        let yes = [
            "/usr/local/bin/cmdguard hook claude-code",
            "'/home/a b/cmdguard' hook claude-code",
            "cmdguard hook claude-code",
        ];
        for c in yes {
            assert!(is_cmdguard_hook(c, Agent::ClaudeCode), "{c}");
        }
        let no = [
            "/usr/local/bin/cmdguard hook gemini",
            "/usr/local/bin/not-cmdguard hook claude-code",
            "cmdguard check claude-code",
            "hook claude-code",
        ];
        for c in no {
            assert!(!is_cmdguard_hook(c, Agent::ClaudeCode), "{c}");
        }
    }

    #[test]
    fn shell_quoting_keeps_plain_paths_and_quotes_the_rest() {
        assert_eq!(shell_quote("/usr/bin/cmdguard"), "/usr/bin/cmdguard");
        assert_eq!(shell_quote("/a b/cmdguard"), "'/a b/cmdguard'");
        assert_eq!(shell_quote("/it's/cmdguard"), r"'/it'\''s/cmdguard'");
    }
}

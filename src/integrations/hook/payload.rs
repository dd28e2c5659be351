//! integrations/hook/payload: reads an agent's hook payload — bounded, UTF-8, strict JSON with
//! no duplicate key at any depth — into the one tool call cmdguard judges. It never decides
//! anything: a payload it cannot read is an error the hook turns into its fail-closed answer.

use std::fmt;
use std::io::Read;
use std::path::PathBuf;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::Agent;

/// The most payload bytes read: a tool call's JSON is a few kilobytes; more is refused, and
/// reading stops there, so a runaway writer cannot make the hook hold gigabytes.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// The tool call in a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// The agent's shell tool: a command to check.
    Shell {
        /// The command line.
        command: String,
        /// The directory it runs in (absolute).
        cwd: PathBuf,
        /// The agent's session id, when given.
        session: Option<String>,
        /// The agent's permission mode (`permission_mode`: Claude Code's and Codex's
        /// `default`, `acceptEdits`, `plan`, `dontAsk`, `bypassPermissions`), when given.
        permission_mode: Option<String>,
    },
    /// Any other tool: not cmdguard's to judge.
    Other {
        /// The tool's name.
        tool: String,
    },
}

/// Reads at most [`MAX_PAYLOAD`] bytes; more is an error (the rest is left unread).
pub fn read_bounded(reader: impl Read) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let limit = u64::try_from(MAX_PAYLOAD).unwrap_or(u64::MAX) + 1;
    reader
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read the payload: {e}"))?;
    if buf.len() > MAX_PAYLOAD {
        return Err(format!(
            "the payload is larger than {} KiB",
            MAX_PAYLOAD / 1024
        ));
    }
    Ok(buf)
}

/// The tool call `agent` sent in `bytes`.
pub fn parse(agent: Agent, bytes: &[u8]) -> Result<Call, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "the payload is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        )
    })?;
    let Strict(value) =
        serde_json::from_str(text).map_err(|e| format!("the payload is not valid JSON: {e}"))?;
    let Value::Object(obj) = value else {
        return Err("the payload is not a JSON object".into());
    };
    let tool = string(&obj, &["tool_name", "toolName"])?.ok_or("the payload has no `tool_name`")?;
    if tool != agent.shell_tool() {
        return Ok(Call::Other { tool });
    }
    let event = string(&obj, &["hook_event_name", "hookEventName"])?
        .ok_or("the payload has no `hook_event_name`")?;
    if event != agent.event() {
        return Err(format!(
            "the payload is a `{event}` event; `cmdguard hook {}` reads `{}` events",
            agent.name(),
            agent.event()
        ));
    }
    let cwd = string(&obj, &["cwd"])?.ok_or("the payload has no `cwd`")?;
    let mut cwd = PathBuf::from(cwd);
    if !cwd.is_absolute() {
        return Err(format!(
            "the payload's `cwd` `{}` is not an absolute path",
            cwd.display()
        ));
    }
    let input = match one_of(&obj, &["tool_input", "toolInput"])? {
        Some(Value::Object(m)) => m,
        Some(_) => return Err("the payload's `tool_input` is not an object".into()),
        None => return Err("the payload has no `tool_input`".into()),
    };
    let command = string(input, &["command"])?.ok_or("`tool_input` has no `command`")?;
    let dir_keys: &[&str] = match agent {
        // Gemini CLI runs the command in `dir_path` resolved against its project directory
        // (`directory` in older releases).
        Agent::Gemini => &["dir_path", "directory"],
        // Codex's shell tools take a `workdir`, resolved against the turn's `cwd`. Its
        // documented hook input holds only `command` today; a payload that carries the
        // `workdir` is judged there, never in the turn's directory.
        Agent::Codex => &["workdir"],
        // Claude Code's Bash tool has no directory argument: it runs in the session's `cwd`.
        Agent::ClaudeCode => &[],
    };
    if !dir_keys.is_empty()
        && let Some(dir) = string(input, dir_keys)?
    {
        cwd = cwd.join(dir);
    }
    if !cwd.is_dir() {
        return Err(format!(
            "the command's directory `{}` is not a directory",
            cwd.display()
        ));
    }
    let session = string(&obj, &["session_id", "sessionId"]).ok().flatten();
    let permission_mode = string(&obj, &["permission_mode", "permissionMode"])?;
    Ok(Call::Shell {
        command,
        cwd,
        session,
        permission_mode,
    })
}

/// The value of the one key of `names` that is present; two spellings of one field at once
/// are as ambiguous as a duplicate key.
fn one_of<'a>(obj: &'a Map<String, Value>, names: &[&str]) -> Result<Option<&'a Value>, String> {
    let mut found = names.iter().filter_map(|n| obj.get(*n).map(|v| (*n, v)));
    let first = found.next();
    if let (Some((a, _)), Some((b, _))) = (first, found.next()) {
        return Err(format!(
            "the payload has both `{a}` and `{b}`; which one counts is ambiguous"
        ));
    }
    Ok(first.map(|(_, v)| v))
}

/// A string field (`None` when absent); any other type is an error.
fn string(obj: &Map<String, Value>, names: &[&str]) -> Result<Option<String>, String> {
    match one_of(obj, names)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("the payload's `{}` is not a string", names[0])),
    }
}

/// A JSON value read with every object checked for duplicate keys, at any depth: serde_json
/// keeps the last of two equal keys, so `{"command": "ls", "command": "rm -rf ~"}` would be
/// judged as one command by a reader and run as another by the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if obj.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            let Strict(v) = map.next_value()?;
            obj.insert(key, v);
        }
        Ok(Value::Object(obj))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(text: &str) -> Result<Value, String> {
        serde_json::from_str::<Strict>(text)
            .map(|s| s.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        for text in [
            r#"{"a": 1, "a": 1}"#,
            r#"{"x": {"command": "ls", "command": "rm -rf ~"}}"#,
            r#"[{"k": [], "k": null}]"#,
            // The same key spelt with an escape is the same key.
            r#"{"tool_name": "Bash", "tool\u005fname": "Read"}"#,
        ] {
            let e = strict(text).unwrap_err();
            assert!(e.contains("duplicate key"), "{text}: {e}");
        }
    }

    #[test]
    fn strict_values_equal_serde_json_values_when_keys_are_unique() {
        let text =
            r#"{"a": [1, -2, 3.5, true, null, "s"], "b": {"c": {}}, "d": 18446744073709551615}"#;
        let plain: Value = serde_json::from_str(text).unwrap();
        assert_eq!(strict(text).unwrap(), plain);
    }
}

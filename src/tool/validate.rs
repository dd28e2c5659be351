//! tool/validate.rs: strict validation of the arguments a model sends — unknown fields rejected,
//! missing required fields named all at once, no implicit conversion — with the one coercion the
//! seeds allow (a list parameter given as a string holding a JSON array). Error messages quote
//! the model's input only up to a limit, since they go back into its context. It never calls a
//! tool.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tool::error::{CallError, clip, clip_quoted};
use crate::tool::schema::{Param, accepted_types, accepts, json_type};

/// The validated arguments of one call, handed to the tool's handler.
///
/// Parameters the model left out are absent unless they have a default, which is filled in;
/// [`take`](Arguments::take) reads an absent parameter as `null`, which an `Option<T>` accepts.
///
/// ```
/// use cmdguard::tool::Arguments;
/// use serde_json::json;
///
/// let mut args = Arguments::from_value("demo", json!({"path": "a.txt"})).unwrap();
/// assert_eq!(args.take::<String>("path").unwrap(), "a.txt");
/// assert_eq!(args.take::<Option<u32>>("limit").unwrap(), None);
/// assert!(args.take::<u32>("count").is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Arguments {
    tool: String,
    values: Map<String, Value>,
}

impl Arguments {
    /// Wraps an argument object for `tool` without validating it (validation needs the tool's
    /// parameters; [`ToolBox::call_tool`](crate::tool::ToolBox::call_tool) does it). Fails when
    /// `value` is not an object.
    pub fn from_value(tool: &str, value: Value) -> Result<Self, CallError> {
        match value {
            Value::Object(values) => Ok(Arguments {
                tool: tool.to_owned(),
                values,
            }),
            other => Err(invalid(tool, vec![not_an_object(&other)])),
        }
    }

    /// Removes the parameter `name` and deserialises it into `T`; an absent parameter reads as
    /// `null`. The error names the parameter and what was expected.
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, CallError> {
        let value = self.values.remove(name).unwrap_or(Value::Null);
        deserialize_argument(name, &value).map_err(|problem| invalid(&self.tool, vec![problem]))
    }

    /// Deserialises the whole argument object into `T` (used by
    /// [`Tool::from_fn`](crate::tool::Tool::from_fn)). A problem inside names its path,
    /// `argument 'region.height': …`.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, CallError> {
        let value = Value::Object(self.values.clone());
        serde_path_to_error::deserialize(&value).map_err(|err| {
            let problem = match path_text(err.path()) {
                Some(path) => format!(
                    "argument '{}': {}",
                    clip(&path),
                    clip_quoted(&err.inner().to_string())
                ),
                None => clip_quoted(&err.inner().to_string()).into_owned(),
            };
            invalid(&self.tool, vec![problem])
        })
    }

    /// The argument object as it stands.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.values
    }
}

fn invalid(tool: &str, problems: Vec<String>) -> CallError {
    CallError::InvalidArguments {
        tool: tool.to_owned(),
        problems,
    }
}

/// Deserialises the argument `name` into `T`. The problem, if any, names the argument and the
/// path inside it (`argument 'region.height': invalid type: …`) and quotes the input clipped.
pub(crate) fn deserialize_argument<T: DeserializeOwned>(
    name: &str,
    value: &Value,
) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = match path_text(err.path()) {
            Some(inner) if inner.starts_with('[') => format!("{name}{inner}"),
            Some(inner) => format!("{name}.{inner}"),
            None => name.to_owned(),
        };
        format!(
            "argument '{}': {}",
            clip(&path),
            clip_quoted(&err.inner().to_string())
        )
    })
}

/// A path inside a value as text (`height`, `[0].task`), or `None` at the value itself.
fn path_text(path: &serde_path_to_error::Path) -> Option<String> {
    let text = path.to_string();
    (text != ".").then_some(text)
}

/// How many unknown argument names an error lists before it only counts the rest.
const MAX_LISTED_UNKNOWN: usize = 10;

fn not_an_object(value: &Value) -> String {
    format!("arguments must be a JSON object, got {}", json_type(value))
}

/// Validates raw arguments against a tool's parameters and returns the argument object to call
/// it with. `root` is the tool's `parameters` schema, for resolving `$ref`s.
///
/// Every problem found is reported, not just the first: unknown arguments, then missing required
/// ones, then each argument whose value has the wrong type.
pub(crate) fn validate(
    tool: &str,
    params: &[Param],
    root: &Value,
    raw: Value,
) -> Result<Map<String, Value>, CallError> {
    let mut values = parse_object(tool, raw)?;
    let mut problems = Vec::new();

    let unknown: Vec<&str> = values
        .keys()
        .filter(|key| !params.iter().any(|param| &param.name == *key))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let mut listed: Vec<String> = unknown
            .iter()
            .take(MAX_LISTED_UNKNOWN)
            .map(|name| clip(name).into_owned())
            .collect();
        if unknown.len() > MAX_LISTED_UNKNOWN {
            listed.push(format!("and {} more", unknown.len() - MAX_LISTED_UNKNOWN));
        }
        problems.push(format!("unknown argument(s): {}", listed.join(", ")));
    }

    let missing: Vec<&str> = params
        .iter()
        .filter(|param| param.required && !values.contains_key(&param.name))
        .map(|param| param.name.as_str())
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "missing required argument(s): {}",
            missing.join(", ")
        ));
    }

    for param in params {
        let Some(value) = values.get_mut(&param.name) else {
            if let Some(default) = &param.default {
                values.insert(param.name.clone(), default.clone());
            }
            continue;
        };
        let types = accepted_types(&param.schema, Some(root));
        coerce_list(&types, value);
        if !accepts(&types, value) {
            problems.push(wrong_type(&param.name, &types, value));
        } else if let Some(check) = param.check
            && let Err(problem) = check(&param.name, value)
        {
            problems.push(problem);
        }
    }

    if problems.is_empty() {
        Ok(values)
    } else {
        Err(invalid(tool, problems))
    }
}

/// Arguments arrive as a JSON object or as a JSON string holding one; an empty (or blank)
/// string means no arguments.
fn parse_object(tool: &str, raw: Value) -> Result<Map<String, Value>, CallError> {
    match raw {
        Value::Object(values) => Ok(values),
        Value::String(text) if text.trim().is_empty() => Ok(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(values)) => Ok(values),
            Ok(other) => Err(invalid(tool, vec![not_an_object(&other)])),
            Err(err) => Err(invalid(
                tool,
                vec![format!("arguments are not valid JSON: {err}")],
            )),
        },
        other => Err(invalid(tool, vec![not_an_object(&other)])),
    }
}

/// The seeds' one exception to strictness: a parameter that takes an array but not a string
/// accepts a string holding a JSON array (`'["a", "b"]'`), which some models send. Nothing else
/// is coerced: a comma-separated string is not a list (`"Hello, world"` is one text, not two),
/// and `""` is not an empty list. A parameter that also accepts a plain string (an untagged enum
/// or union with a string member) is left untouched.
fn coerce_list(types: &Option<std::collections::BTreeSet<String>>, value: &mut Value) {
    let Some(types) = types else {
        return;
    };
    if !types.contains("array") || types.contains("string") {
        return;
    }
    let Value::String(text) = value else {
        return;
    };
    if !text.trim_start().starts_with('[') {
        return;
    }
    if let Ok(array @ Value::Array(_)) = serde_json::from_str::<Value>(text) {
        *value = array;
    }
}

fn wrong_type(
    name: &str,
    types: &Option<std::collections::BTreeSet<String>>,
    value: &Value,
) -> String {
    let expected = types
        .as_ref()
        .map(|types| {
            types
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" or ")
        })
        .unwrap_or_default();
    match value {
        Value::Null => format!("argument '{name}': expected {expected}, got null"),
        Value::String(text) => format!(
            "argument '{name}': expected {expected}, got string {}",
            Value::String(clip(text).into_owned())
        ),
        _ => format!(
            "argument '{name}': expected {expected}, got {} {}",
            json_type(value),
            clip(&value.to_string())
        ),
    }
}

//! tool/schema.rs: JSON Schemas for tool parameters — one property per parameter, derived from
//! Rust types with `schemars`, and the small reading of schemas that validation needs (which JSON
//! types a property accepts). It never calls a tool.

use std::collections::BTreeSet;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::tool::validate::deserialize_argument;

/// Checks that a JSON value deserialises into the Rust type of the parameter named by the first
/// argument; the problem names the argument and the path inside it.
pub(crate) type TypeCheck = fn(&str, &Value) -> Result<(), String>;

/// One parameter of a tool: its name, its property schema and whether the model must send it.
///
/// Parameters are built by [`ToolBuilder::param`](crate::tool::ToolBuilder::param) (which the
/// `#[tool]` macro calls once per function parameter) or read from an argument struct by
/// [`Tool::from_fn`](crate::tool::Tool::from_fn).
#[derive(Clone, Debug)]
pub struct Param {
    /// The property name, as the model sends it.
    pub name: String,
    /// The property schema, including its `description` and `default` when there are any.
    pub schema: Value,
    /// Whether the model must send it: true unless the type accepts `null` (an `Option<T>`) or
    /// the parameter has a default.
    pub required: bool,
    /// The value used when the model leaves the parameter out.
    pub default: Option<Value>,
    /// Checks that a JSON value deserialises into the parameter's Rust type; absent for
    /// parameters read from an argument struct, which is deserialised whole.
    pub(crate) check: Option<TypeCheck>,
}

/// The schema generator every tool uses: JSON Schema 2020-12 describing what deserialises, with
/// subschemas inlined where possible because models read inline schemas best. Recursive types
/// still produce `$ref`s into `$defs`.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator()
}

impl Param {
    /// A parameter of type `T` described by `description` (empty for none).
    pub(crate) fn of<T: JsonSchema + DeserializeOwned>(
        generator: &mut SchemaGenerator,
        name: &str,
        description: &str,
        default: Option<Value>,
    ) -> Param {
        let mut schema: Schema = generator.subschema_for::<T>();
        let root = json!({ "$defs": generator.definitions() });
        let accepts_null = accepts(
            &accepted_types(schema.as_value(), Some(&root)),
            &Value::Null,
        );
        let object = schema.ensure_object();
        if !description.is_empty() {
            object.insert(
                "description".to_owned(),
                Value::String(description.to_owned()),
            );
        }
        if let Some(default) = &default {
            object.insert("default".to_owned(), default.clone());
        }
        Param {
            name: name.to_owned(),
            schema: schema.to_value(),
            required: default.is_none() && !accepts_null,
            default,
            check: Some(check_deserializes::<T>),
        }
    }
}

fn check_deserializes<T: DeserializeOwned>(name: &str, value: &Value) -> Result<(), String> {
    deserialize_argument::<T>(name, value).map(drop)
}

/// The `parameters` object of a tool: one property per parameter, the required ones listed,
/// `additionalProperties: false` always, and the generator's `$defs` when recursion left any.
pub(crate) fn parameters_object(params: &[Param], defs: Map<String, Value>) -> Value {
    let properties: Map<String, Value> = params
        .iter()
        .map(|param| (param.name.clone(), param.schema.clone()))
        .collect();
    let required: Vec<&str> = params
        .iter()
        .filter(|param| param.required)
        .map(|param| param.name.as_str())
        .collect();
    let mut object = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    if !defs.is_empty()
        && let Some(map) = object.as_object_mut()
    {
        map.insert("$defs".to_owned(), Value::Object(defs));
    }
    object
}

/// The JSON types a schema accepts: `Some(set)` with names from JSON Schema's `type` keyword, or
/// `None` when the schema accepts any type or this reading cannot tell (then validation leaves
/// the value to serde). `root` resolves `$ref`s of the form `#/$defs/Name`.
pub(crate) fn accepted_types(schema: &Value, root: Option<&Value>) -> Option<BTreeSet<String>> {
    accepted_types_at(schema, root, 0)
}

/// Deep enough for any schema schemars emits; a deeper chain of `$ref`s is treated as "any".
const MAX_REF_DEPTH: usize = 16;

fn accepted_types_at(
    schema: &Value,
    root: Option<&Value>,
    depth: usize,
) -> Option<BTreeSet<String>> {
    let object = match schema {
        Value::Bool(true) => return None,
        Value::Bool(false) => return Some(BTreeSet::new()),
        Value::Object(object) => object,
        Value::Null | Value::Number(_) | Value::String(_) | Value::Array(_) => return None,
    };
    if let Some(Value::String(reference)) = object.get("$ref") {
        if depth >= MAX_REF_DEPTH {
            return None;
        }
        let target = root?.pointer(reference.strip_prefix('#')?)?;
        return accepted_types_at(target, root, depth + 1);
    }
    match object.get("type") {
        Some(Value::String(name)) => return Some(BTreeSet::from([name.clone()])),
        Some(Value::Array(names)) => {
            return Some(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return Some(
            values
                .iter()
                .map(|value| json_type(value).to_owned())
                .collect(),
        );
    }
    if let Some(value) = object.get("const") {
        return Some(BTreeSet::from([json_type(value).to_owned()]));
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = object.get(keyword) {
            let mut union = BTreeSet::new();
            for member in members {
                union.extend(accepted_types_at(member, root, depth + 1)?);
            }
            return Some(union);
        }
    }
    None
}

/// The JSON Schema type name of a value; whole numbers are `integer`.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a value's type is among `types` (`None` accepts everything; `number` accepts
/// integers, as in JSON Schema).
pub(crate) fn accepts(types: &Option<BTreeSet<String>>, value: &Value) -> bool {
    let Some(types) = types else {
        return true;
    };
    let kind = json_type(value);
    types.contains(kind) || (kind == "integer" && types.contains("number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(schema: Value) -> Option<Vec<String>> {
        let root = json!({"$defs": {"Node": {"type": "object"}}});
        accepted_types(&schema, Some(&root)).map(|set| set.into_iter().collect())
    }

    #[test]
    fn accepted_types_reads_type_enum_const_unions_and_refs() {
        let table = [
            (json!({"type": "string"}), Some(vec!["string"])),
            (
                json!({"type": ["array", "null"]}),
                Some(vec!["array", "null"]),
            ),
            (
                json!({"enum": ["a", 1, null]}),
                Some(vec!["integer", "null", "string"]),
            ),
            (json!({"const": true}), Some(vec!["boolean"])),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
                Some(vec!["integer", "string"]),
            ),
            (json!({"oneOf": [{"type": "integer"}, true]}), None),
            (json!({"$ref": "#/$defs/Node"}), Some(vec!["object"])),
            (json!({"$ref": "#/$defs/Missing"}), None),
            (json!(true), None),
            (json!(false), Some(vec![])),
            (json!({"description": "anything"}), None),
        ];
        for (schema, expected) in table {
            let expected = expected.map(|names| names.into_iter().map(str::to_owned).collect());
            assert_eq!(types(schema.clone()), expected, "schema {schema}");
        }
    }

    #[test]
    fn number_accepts_integers_but_integer_rejects_fractions() {
        let number = Some(BTreeSet::from(["number".to_owned()]));
        let integer = Some(BTreeSet::from(["integer".to_owned()]));
        assert!(accepts(&number, &json!(3)));
        assert!(accepts(&integer, &json!(3)));
        assert!(!accepts(&integer, &json!(3.5)));
        assert!(!accepts(&integer, &json!("3")));
        assert!(accepts(&None, &json!("anything")));
    }
}

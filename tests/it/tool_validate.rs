//! Strict argument validation through `ToolBox::call_tool`: one `check` helper, a table per rule.
//! The tools echo what they received, so a passing row compares the whole value the tool saw.

#![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

use cmdguard::tool::{AgentHandle, CallError, ToolBox, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Thorough,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Target {
    One(String),
    Many(Vec<String>),
}

/// Echoes its typed arguments.
#[tool]
fn typed(a: i64, b: String, ratio: Option<f64>, mode: Option<Mode>, at: Option<Point>) -> Value {
    json!({"a": a, "b": b, "ratio": ratio, "mode": mode, "at": at})
}

/// Echoes its lists.
#[tool]
fn lists(names: Vec<String>, ids: Option<Vec<u32>>, target: Option<Target>) -> Value {
    json!({"names": names, "ids": ids, "target": target})
}

/// Echoes its defaults.
#[tool]
fn defaults(#[tool(default = 3)] count: u32, label: Option<String>) -> Value {
    json!({"count": count, "label": label})
}

fn toolbox() -> ToolBox {
    let mut toolbox = ToolBox::new();
    toolbox
        .register([typed_tool(), lists_tool(), defaults_tool()])
        .unwrap();
    toolbox
}

/// Calls `tool` with `arguments` and compares with `expected`: `Ok(value)` for what the tool
/// returned, `Err(problems)` for the exact validation problems.
fn check(tool: &str, arguments: Value, expected: Result<Value, Vec<&str>>) {
    let result = toolbox().call_tool_blocking(&AgentHandle::new("t"), tool, arguments.clone(), ());
    let result = result.map_err(|err| match err {
        CallError::InvalidArguments {
            tool: name,
            problems,
        } => {
            assert_eq!(name, tool);
            problems
        }
        other => panic!("{tool} {arguments}: expected a validation error, got {other:?}"),
    });
    let expected = expected.map_err(|problems| problems.iter().map(|p| p.to_string()).collect());
    assert_eq!(result, expected, "{tool} {arguments}");
}

#[test]
fn unknown_fields_are_rejected_all_at_once() {
    check(
        "typed",
        json!({"a": 1, "b": "x", "c": 1, "d": 2}),
        Err(vec!["unknown argument(s): c, d"]),
    );
}

#[test]
fn missing_required_fields_are_named_all_at_once() {
    check(
        "typed",
        json!({}),
        Err(vec!["missing required argument(s): a, b"]),
    );
    check(
        "typed",
        json!({"zz": 1}),
        Err(vec![
            "unknown argument(s): zz",
            "missing required argument(s): a, b",
        ]),
    );
}

#[test]
fn no_implicit_conversion_and_the_error_names_field_and_type() {
    let table = [
        (
            json!({"a": "3", "b": "x"}),
            vec!["argument 'a': expected integer, got string \"3\""],
        ),
        (
            json!({"a": 1.5, "b": "x"}),
            vec!["argument 'a': expected integer, got number 1.5"],
        ),
        (
            json!({"a": 1, "b": 2}),
            vec!["argument 'b': expected string, got integer 2"],
        ),
        (
            json!({"a": null, "b": "x"}),
            vec!["argument 'a': expected integer, got null"],
        ),
        (
            json!({"a": 1, "b": "x", "ratio": "0.5"}),
            vec!["argument 'ratio': expected null or number, got string \"0.5\""],
        ),
        (
            json!({"a": true, "b": ["x"]}),
            vec![
                "argument 'a': expected integer, got boolean true",
                "argument 'b': expected string, got array [\"x\"]",
            ],
        ),
        (
            json!({"a": 1, "b": "x", "mode": "slow"}),
            vec!["argument 'mode': unknown variant `slow`, expected `fast` or `thorough`"],
        ),
        (
            json!({"a": 1, "b": "x", "at": {"x": 1, "y": 2, "z": 3}}),
            vec!["argument 'at.z': unknown field `z`, expected `x` or `y`"],
        ),
    ];
    for (arguments, problems) in table {
        check("typed", arguments, Err(problems));
    }
}

#[test]
fn integers_are_accepted_where_numbers_are_expected() {
    check(
        "typed",
        json!({"a": 1, "b": "x", "ratio": 2}),
        Ok(json!({"a": 1, "b": "x", "ratio": 2.0, "mode": null, "at": null})),
    );
}

#[test]
fn option_parameters_accept_null_or_absence() {
    let expected = json!({"a": 1, "b": "x", "ratio": null, "mode": null, "at": null});
    check("typed", json!({"a": 1, "b": "x"}), Ok(expected.clone()));
    check(
        "typed",
        json!({"a": 1, "b": "x", "ratio": null, "mode": null}),
        Ok(expected),
    );
}

#[test]
fn defaults_fill_in_missing_parameters() {
    check(
        "defaults",
        json!({}),
        Ok(json!({"count": 3, "label": null})),
    );
    check(
        "defaults",
        json!({"count": 7}),
        Ok(json!({"count": 7, "label": null})),
    );
}

#[test]
fn list_parameters_accept_an_array_or_a_string_holding_a_json_array() {
    let table = [
        (json!({"names": ["a", "b"]}), json!(["a", "b"])),
        (json!({"names": "[\"a\", \"b\"]"}), json!(["a", "b"])),
        (json!({"names": " [\"a, b\"] "}), json!(["a, b"])),
        (json!({"names": "[]"}), json!([])),
    ];
    for (arguments, names) in table {
        check(
            "lists",
            arguments,
            Ok(json!({"names": names, "ids": null, "target": null})),
        );
    }
}

/// Issue 13: comma splitting turned free text into several items and let `""` satisfy a
/// required list. Only a string holding a JSON array is coerced now, as in the seeds.
#[test]
fn a_comma_separated_or_empty_string_is_not_a_list() {
    let table = [
        (
            json!({"names": "Hello, world! How are you?"}),
            "argument 'names': expected array, got string \"Hello, world! How are you?\"",
        ),
        (
            json!({"names": "a, b"}),
            "argument 'names': expected array, got string \"a, b\"",
        ),
        (
            json!({"names": ""}),
            "argument 'names': expected array, got string \"\"",
        ),
        (
            json!({"names": "single"}),
            "argument 'names': expected array, got string \"single\"",
        ),
    ];
    for (arguments, problem) in table {
        check("lists", arguments, Err(vec![problem]));
    }
}

#[test]
fn optional_list_parameters_are_coerced_too() {
    check(
        "lists",
        json!({"names": [], "ids": "[1, 2]"}),
        Ok(json!({"names": [], "ids": [1, 2], "target": null})),
    );
    check(
        "lists",
        json!({"names": [], "ids": "1, 2"}),
        Err(vec![
            "argument 'ids': expected array or null, got string \"1, 2\"",
        ]),
    );
    check(
        "lists",
        json!({"names": [], "ids": "[\"1\"]"}),
        Err(vec![
            "argument 'ids[0]': invalid type: string \"1\", expected u32",
        ]),
    );
}

#[test]
fn a_parameter_that_accepts_a_plain_string_is_left_untouched() {
    check(
        "lists",
        json!({"names": [], "target": "a, b"}),
        Ok(json!({"names": [], "ids": null, "target": "a, b"})),
    );
    check(
        "lists",
        json!({"names": [], "target": ["a", "b"]}),
        Ok(json!({"names": [], "ids": null, "target": ["a", "b"]})),
    );
}

#[test]
fn a_string_that_is_not_a_json_array_is_not_coerced() {
    check(
        "lists",
        json!({"names": "[not json"}),
        Err(vec![
            "argument 'names': expected array, got string \"[not json\"",
        ]),
    );
}

#[test]
fn arguments_may_arrive_as_a_json_string() {
    check(
        "typed",
        json!("{\"a\": 1, \"b\": \"x\"}"),
        Ok(json!({"a": 1, "b": "x", "ratio": null, "mode": null, "at": null})),
    );
    check(
        "defaults",
        json!(""),
        Ok(json!({"count": 3, "label": null})),
    );
    check(
        "defaults",
        json!("  "),
        Ok(json!({"count": 3, "label": null})),
    );
    check(
        "typed",
        json!(""),
        Err(vec!["missing required argument(s): a, b"]),
    );
}

#[test]
fn arguments_that_are_not_an_object_are_rejected() {
    check(
        "defaults",
        json!([1]),
        Err(vec!["arguments must be a JSON object, got array"]),
    );
    check(
        "defaults",
        json!(null),
        Err(vec!["arguments must be a JSON object, got null"]),
    );
    check(
        "defaults",
        json!("[1]"),
        Err(vec!["arguments must be a JSON object, got array"]),
    );
    check(
        "defaults",
        json!("{oops"),
        Err(vec![
            "arguments are not valid JSON: key must be a string at line 1 column 2",
        ]),
    );
}

#[test]
fn the_message_of_a_validation_error_lists_every_problem() {
    let err = toolbox()
        .call_tool_blocking(&AgentHandle::new("t"), "typed", json!({"a": "1"}), ())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool 'typed': missing required argument(s): b; \
         argument 'a': expected integer, got string \"1\""
    );
}

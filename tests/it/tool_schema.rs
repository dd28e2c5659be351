//! Snapshots of the schemas `#[tool]`, the builder and `from_fn` generate, one per rule of the
//! issue, each also checked as a JSON Schema with the `jsonschema` crate and against arguments
//! that the schema and cmdguard's own validator must both accept.

#![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

use cmdguard::tool::{
    Adapter, AgentHandle, Arguments, CallError, Tool, ToolBox, ToolCallContext, tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Default)]
pub struct Session {
    user: String,
}

/// How hard to look.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Fast,
    Thorough,
}

/// A point on the plane.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Horizontal position.
    x: f64,
    /// Vertical position.
    y: f64,
}

/// One path or several.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PathOrPaths {
    One(String),
    Many(Vec<String>),
}

/// A tree of labels.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    label: String,
    children: Vec<Tree>,
}

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Reads the start of a file.
#[tool]
fn read(
    /// The file to read.
    path: String,
    /// At most this many lines.
    limit: Option<u32>,
) -> String {
    format!("{path}:{limit:?}")
}

/// Lists a directory.
#[tool]
fn list(
    /// How deep to descend.
    #[tool(default = 2)]
    depth: u32,
    #[tool(default)] hidden: bool,
    #[default] exclude: Vec<String>,
    #[default = Mode::Fast] mode: Mode,
) -> Value {
    json!({"depth": depth, "hidden": hidden, "exclude": exclude, "mode": mode})
}

/// Checks something.
#[tool]
fn enums(mode: Mode, fallback: Option<Mode>) -> Value {
    json!([mode, fallback])
}

/// Sums rows.
#[tool]
fn vectors(tags: Vec<String>, rows: Vec<Vec<f64>>, ids: Option<Vec<u32>>) -> Value {
    json!([tags, rows, ids])
}

/// Measures a distance.
#[tool]
fn nested(from: Point, to: Option<Point>) -> Value {
    json!([from, to])
}

/// Searches the caller's session.
#[tool]
fn with_context(query: String, ctx: ToolCallContext<Session>) -> String {
    format!("{} searched {query}", ctx.value().user)
}

/// Says who calls.
#[tool]
fn context_by_ref(ctx: &ToolCallContext<Session>) -> String {
    ctx.agent().name.clone()
}

/// Summary line.
///
/// # Arguments
///
/// * `x` - kept verbatim, sections and all.
///
///     indented text stays indented
#[tool]
fn documented(x: i32) -> i32 {
    x
}

/// Reads one path or several.
#[tool]
fn untagged(target: PathOrPaths) -> Value {
    json!(target)
}

/// Counts a tree's labels.
#[tool]
fn recursive(tree: Tree) -> usize {
    fn count(tree: &Tree) -> usize {
        1 + tree.children.iter().map(count).sum::<usize>()
    }
    count(&tree)
}

/// Named explicitly, with a raw identifier parameter.
#[tool(name = "renamed_tool")]
fn raw(r#type: String) -> String {
    r#type
}

/// Fetches a URL (pretend).
#[tool]
async fn fetch(url: String) -> Result<String, std::io::Error> {
    Ok(url)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveArgs {
    /// Where from.
    from: String,
    /// Where to.
    to: String,
    /// Overwrite an existing target.
    #[serde(default)]
    force: bool,
}

fn builder_tool() -> Tool {
    Tool::builder("grep")
        .description("Searches files for a pattern.")
        .param::<String>("pattern", "A regular expression.")
        .param::<Option<Vec<String>>>("paths", "Where to search.")
        .param_default::<u32>("context", "Lines of context.", 0)
        .handler(|mut args: Arguments, _ctx| {
            let pattern: String = args.take("pattern")?;
            let paths: Option<Vec<String>> = args.take("paths")?;
            let context: u32 = args.take("context")?;
            Ok::<_, CallError>(json!([pattern, paths, context]))
        })
}

fn from_fn_tool() -> Tool {
    Tool::from_fn("move_file", "Moves a file.", |args: MoveArgs, _ctx| {
        Ok::<_, std::convert::Infallible>(json!([args.from, args.to, args.force]))
    })
}

/// Snapshots the tool's OpenAI definition, checks its parameters against the JSON Schema
/// meta-schema, and checks that `valid` arguments pass both the schema and the tool.
fn check<C: Default + Send + Sync + 'static>(snapshot: &str, tool: Tool<C>, valid: Value) {
    let parameters = tool.parameters().clone();
    insta::assert_json_snapshot!(snapshot, tool.definition(Adapter::OpenAi));
    if let Err(err) = jsonschema::meta::validate(&parameters) {
        panic!("{snapshot}: not a valid JSON Schema: {err}");
    }
    let validator = jsonschema::draft202012::new(&parameters)
        .unwrap_or_else(|err| panic!("{snapshot}: schema does not compile: {err}"));
    assert!(
        validator.is_valid(&valid),
        "{snapshot}: schema rejects {valid}"
    );
    assert!(
        !validator.is_valid(&json!({"not_a_parameter": 1})),
        "{snapshot}: accepts unknowns"
    );
    let name = tool.name().to_owned();
    let mut toolbox = ToolBox::<C>::default();
    toolbox.register([tool]).unwrap();
    let result = toolbox.call_tool_blocking(&AgentHandle::new("t"), &name, valid, C::default());
    assert!(
        result.is_ok(),
        "{snapshot}: the tool rejects arguments its schema accepts: {result:?}"
    );
}

#[test]
fn required_parameters_are_listed() {
    check("required", add_tool(), json!({"a": 1, "b": 2}));
}

#[test]
fn option_is_nullable_and_not_required() {
    check(
        "option",
        read_tool(),
        json!({"path": "a.txt", "limit": null}),
    );
}

#[test]
fn defaults_are_not_required_and_shown() {
    check("defaults", list_tool(), json!({}));
}

#[test]
fn unit_enums_become_enum() {
    check(
        "enums",
        enums_tool(),
        json!({"mode": "fast", "fallback": "thorough"}),
    );
}

#[test]
fn vec_becomes_array() {
    check(
        "vectors",
        vectors_tool(),
        json!({"tags": ["a"], "rows": [[1.0, 2.5]], "ids": [1, 2]}),
    );
}

#[test]
fn nested_structs_use_their_own_schema() {
    check("nested", nested_tool(), json!({"from": {"x": 0, "y": 1.5}}));
}

#[test]
fn context_parameters_are_left_out() {
    check("context", with_context_tool(), json!({"query": "logs"}));
    check("context_by_ref", context_by_ref_tool(), json!({}));
}

#[test]
fn doc_comment_is_the_description_verbatim() {
    check("documented", documented_tool(), json!({"x": 1}));
    assert_eq!(
        documented_tool().description(),
        "Summary line.\n\n# Arguments\n\n* `x` - kept verbatim, sections and all.\n\n    indented text stays indented"
    );
}

#[test]
fn untagged_union_with_a_string_member() {
    check("untagged", untagged_tool(), json!({"target": ["a", "b"]}));
}

#[test]
fn recursive_types_keep_their_defs() {
    check(
        "recursive",
        recursive_tool(),
        json!({"tree": {"label": "a", "children": [{"label": "b", "children": []}]}}),
    );
}

#[test]
fn name_attribute_and_raw_identifiers() {
    check("renamed", raw_tool(), json!({"type": "x"}));
}

#[test]
fn async_functions_get_the_same_schema() {
    check("async", fetch_tool(), json!({"url": "https://example.org"}));
}

#[test]
fn builder_tools() {
    check(
        "builder",
        builder_tool(),
        json!({"pattern": "x", "paths": ["src"]}),
    );
}

#[test]
fn from_fn_tools_read_the_argument_struct() {
    check("from_fn", from_fn_tool(), json!({"from": "a", "to": "b"}));
}

#[test]
fn anthropic_shape() {
    insta::assert_json_snapshot!("anthropic", read_tool().definition(Adapter::Anthropic));
}

//! The ToolBox as a registry: name clashes and override, enable/disable patterns, capabilities,
//! listing shapes, clone semantics, deferred tools and tool_search, groups and sub-agents.

#![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

use std::sync::Arc;

use cmdguard::tool::{
    Adapter, AgentHandle, Arguments, CallError, Cancelled, ErrorInfo, RegistryError,
    SubagentProvider, SubagentTask, Tool, ToolBox, ToolBuilder, ToolCallContext, ToolGroups, tool,
};
use serde_json::{Value, json};

/// A tool that returns `answer`, configured by `configure`.
fn answering(
    name: &str,
    answer: Value,
    configure: impl FnOnce(ToolBuilder) -> ToolBuilder,
) -> Tool {
    configure(Tool::builder(name).description(format!("The {name} tool.")))
        .handler(move |_args: Arguments, _ctx| Ok::<_, CallError>(answer.clone()))
}

fn plain(name: &str) -> Tool {
    answering(name, json!(name), |builder| builder)
}

fn names(toolbox: &ToolBox, capabilities: &[&str]) -> Vec<String> {
    toolbox
        .list_tools(capabilities)
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect()
}

fn call(toolbox: &ToolBox, name: &str, arguments: Value) -> Result<Value, CallError> {
    toolbox.call_tool_blocking(&AgentHandle::new("t"), name, arguments, ())
}

#[test]
fn a_name_clash_is_an_error_and_registers_nothing() {
    let mut toolbox = ToolBox::new();
    toolbox.register([plain("a")]).unwrap();
    let err = toolbox.register([plain("b"), plain("a")]).unwrap_err();
    assert_eq!(err, RegistryError::Conflict { name: "a".into() });
    assert_eq!(err.to_string(), "conflict tool name: a");
    assert_eq!(
        names(&toolbox, &[]),
        ["a"],
        "a failed register must not keep 'b'"
    );
}

#[test]
fn override_replaces_in_place_and_an_overriding_tool_is_kept() {
    let mut toolbox = ToolBox::new();
    toolbox.register([plain("a"), plain("b")]).unwrap();
    toolbox
        .register([answering("a", json!("new"), ToolBuilder::override_existing)])
        .unwrap();
    assert_eq!(names(&toolbox, &[]), ["a", "b"]);
    assert_eq!(call(&toolbox, "a", json!({})), Ok(json!("new")));
    // The registered tool has override, so a plain newcomer is dropped silently.
    toolbox.register([plain("a")]).unwrap();
    assert_eq!(call(&toolbox, "a", json!({})), Ok(json!("new")));
}

#[test]
fn an_unusable_tool_is_refused_at_registration() {
    let tool: Tool = Tool::from_fn("bad", "Takes a bare string.", |text: String, _ctx| {
        Ok::<_, std::convert::Infallible>(text)
    });
    let err = ToolBox::new().register([tool]).unwrap_err();
    assert!(
        matches!(&err, RegistryError::InvalidTool { name, reason }
            if name == "bad" && reason.starts_with("the argument type's schema is not an object")),
        "{err:?}"
    );
}

#[test]
fn tool_registers_one_and_chains() {
    let mut toolbox = ToolBox::new();
    toolbox.tool(plain("a")).unwrap().tool(plain("b")).unwrap();
    assert_eq!(names(&toolbox, &[]), ["a", "b"]);
}

#[test]
fn disable_hides_without_deleting_and_the_latest_pattern_wins() {
    let mut toolbox = ToolBox::new();
    toolbox
        .register(["browser_click", "browser_type", "read_file"].map(plain))
        .unwrap();
    toolbox.disable(&["browser_*"]);
    assert_eq!(names(&toolbox, &[]), ["read_file"]);
    assert!(
        toolbox.get("browser_click").is_some(),
        "disabled tools stay registered"
    );
    toolbox.enable(&["browser_click"]);
    assert_eq!(names(&toolbox, &[]), ["browser_click", "read_file"]);
    // A pattern also covers tools registered later.
    toolbox.register([plain("browser_back")]).unwrap();
    assert!(toolbox.is_disabled("browser_back"));
    toolbox.enable(&["*"]);
    assert_eq!(names(&toolbox, &[]).len(), 4);
    toolbox.disable(&["read_?ile", "nothing_matches"]);
    assert_eq!(
        names(&toolbox, &[]),
        ["browser_click", "browser_type", "browser_back"]
    );
}

#[test]
fn tools_needing_a_capability_are_hidden_from_models_without_it() {
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            plain("text"),
            answering("look", json!(1), |builder| {
                builder.required_capability("vision")
            }),
            answering("both", json!(1), |b| {
                b.required_capability("vision").required_capability("audio")
            }),
        ])
        .unwrap();
    assert_eq!(names(&toolbox, &[]), ["text"]);
    assert_eq!(names(&toolbox, &["vision"]), ["text", "look"]);
    assert_eq!(
        names(&toolbox, &["audio", "vision"]),
        ["text", "look", "both"]
    );
}

#[test]
fn list_tools_json_has_the_openai_and_anthropic_shapes() {
    let mut toolbox = ToolBox::new();
    toolbox.register([plain("a")]).unwrap();
    let parameters =
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
    assert_eq!(
        toolbox.list_tools_json(&[]),
        json!([{"type": "function", "function": {
            "name": "a", "description": "The a tool.", "parameters": parameters,
        }}])
    );
    assert_eq!(
        toolbox.list_tools_json_for(Adapter::Anthropic, &[]),
        json!([{"name": "a", "description": "The a tool.", "input_schema": parameters}])
    );
}

#[test]
fn a_native_definition_replaces_the_schema_for_its_adapter_only() {
    let native = json!({"type": "computer_20250124", "name": "computer"});
    let mut toolbox = ToolBox::new();
    toolbox
        .register([answering("computer", json!(1), |b| {
            b.native("anthropic", native.clone())
        })])
        .unwrap();
    assert_eq!(
        toolbox.list_tools_json_for(Adapter::Anthropic, &[]),
        json!([native])
    );
    assert_eq!(
        toolbox.list_tools_json(&[])[0]["function"]["name"],
        "computer"
    );
}

#[test]
fn labels_let_a_policy_find_tools() {
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            plain("read"),
            answering("python", json!(1), |b| b.label("code-exec")),
        ])
        .unwrap();
    let code_exec: Vec<&str> = toolbox
        .tools()
        .filter(|tool| tool.attrs().labels.contains("code-exec"))
        .map(|tool| tool.name())
        .collect();
    assert_eq!(code_exec, ["python"]);
}

#[test]
fn clone_copies_the_table_and_disabled_set_but_shares_the_tools() {
    let mut original = ToolBox::new();
    original.register([plain("a"), plain("b")]).unwrap();
    let mut copy = original.clone();
    assert!(
        Arc::ptr_eq(original.get("a").unwrap(), copy.get("a").unwrap()),
        "tools are shared"
    );
    copy.disable(&["a"]);
    copy.register([plain("c")]).unwrap();
    assert_eq!(names(&original, &[]), ["a", "b"]);
    assert_eq!(names(&copy, &[]), ["b", "c"]);
    original.disable(&["b"]);
    assert_eq!(
        names(&copy.clone(), &[]),
        ["b", "c"],
        "a clone keeps its own disabled set"
    );
}

/// Fetches a web page.
#[tool(deferred)]
fn web_fetch(url: String) -> String {
    url
}

/// Takes a screenshot of the browser window.
#[tool(deferred)]
fn browser_screenshot() -> &'static str {
    "png"
}

/// Sends an e-mail to someone.
#[tool(deferred)]
fn send_mail(to: String) -> String {
    to
}

fn deferred_toolbox() -> ToolBox {
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            plain("read_file"),
            web_fetch_tool(),
            browser_screenshot_tool(),
            send_mail_tool(),
        ])
        .unwrap();
    toolbox
}

#[test]
fn deferred_tools_are_hidden_until_tool_search_activates_them() {
    let toolbox = deferred_toolbox();
    assert_eq!(names(&toolbox, &[]), ["read_file", "tool_search"]);
    let found = call(&toolbox, "tool_search", json!({"query": "fetch web page"})).unwrap();
    assert_eq!(
        found,
        json!({
            "activated": [{"name": "web_fetch", "description": "Fetches a web page."}],
            "unloaded": 2,
            "note": "the activated tools can be called from the next turn on; 2 more tools are \
                     not loaded, search again with other keywords to find them",
        })
    );
    // The built-in tool_search was registered right after the first deferred tool.
    assert_eq!(
        names(&toolbox, &[]),
        ["read_file", "web_fetch", "tool_search"]
    );
    // Nothing else matched, so nothing else was activated.
    assert_eq!(
        call(&toolbox, "tool_search", json!({"query": "weather"})),
        Ok(json!({
            "activated": [],
            "unloaded": 2,
            "note": "no tool matched; 2 more tools are not loaded, try other keywords",
        }))
    );
    assert_eq!(names(&toolbox, &[]).len(), 3);
    // Once everything is loaded, the model is told that searching further finds nothing.
    call(&toolbox, "tool_search", json!({"query": "mail screenshot"})).unwrap();
    assert_eq!(
        call(&toolbox, "tool_search", json!({"query": "mail"})).unwrap()["note"],
        "every deferred tool is loaded now; no other tools can be found"
    );
}

#[test]
fn tool_search_ranks_names_above_descriptions_and_honours_the_limit() {
    let toolbox = deferred_toolbox();
    // "mail" is a word of send_mail's name; "window" only of browser_screenshot's description.
    let hits = toolbox.tool_search("window mail", None);
    let ranked: Vec<&str> = hits.iter().map(|hit| hit.name.as_str()).collect();
    assert_eq!(ranked, ["send_mail", "browser_screenshot"]);
    assert!(hits[0].score > hits[1].score);

    let toolbox = deferred_toolbox();
    let hits = toolbox.tool_search("window mail", Some(1));
    assert_eq!(
        hits.iter().map(|hit| hit.name.as_str()).collect::<Vec<_>>(),
        ["send_mail"]
    );
    assert_eq!(
        names(&toolbox, &[]),
        ["read_file", "tool_search", "send_mail"],
        "only the hit within the limit is activated"
    );
}

#[test]
fn tool_search_skips_disabled_and_ordinary_tools() {
    let mut toolbox = deferred_toolbox();
    toolbox.disable(&["web_*"]);
    assert!(toolbox.tool_search("web fetch", None).is_empty());
    assert!(
        toolbox.tool_search("read file", None).is_empty(),
        "read_file is not deferred"
    );
}

#[test]
fn clones_activate_deferred_tools_independently() {
    let toolbox = deferred_toolbox();
    let copy = toolbox.clone();
    copy.tool_search("mail", None);
    assert!(names(&copy, &[]).contains(&"send_mail".to_owned()));
    assert!(!names(&toolbox, &[]).contains(&"send_mail".to_owned()));
}

#[test]
fn a_user_tool_named_tool_search_conflicts_with_the_builtin() {
    let mut toolbox = ToolBox::new();
    toolbox.register([plain("tool_search")]).unwrap();
    let err = toolbox.register([web_fetch_tool()]).unwrap_err();
    assert_eq!(err.to_string(), "conflict tool name: tool_search");
}

fn test_groups() -> ToolGroups {
    ToolGroups::new()
        .group("files", || vec![plain("read_file"), plain("write_file")])
        .group("web", || vec![plain("fetch")])
}

#[test]
fn groups_register_their_tools_by_name() {
    let toolbox = ToolBox::new()
        .with_groups(&test_groups(), &["web"])
        .unwrap();
    assert_eq!(names(&toolbox, &[]), ["fetch"]);
    let toolbox = ToolBox::new().with_all_groups(&test_groups()).unwrap();
    assert_eq!(names(&toolbox, &[]), ["read_file", "write_file", "fetch"]);
    assert_eq!(test_groups().names(), ["files", "web"]);
}

#[test]
fn an_unknown_group_names_the_known_ones() {
    let err = ToolBox::new()
        .with_groups(&test_groups(), &["files", "mail"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown tool group 'mail': expected one of files, web"
    );
}

#[test]
fn the_builtin_groups_register_by_name_and_unknown_ones_list_what_exists() {
    assert_eq!(
        ToolGroups::<()>::builtin().names(),
        [
            "system",
            "framework",
            "fs",
            "patch",
            "cmd",
            "search",
            "browser",
            "diagnostic"
        ]
    );
    let all = names(&ToolBox::new().with_all_defaults().unwrap(), &[]);
    for tool in [
        "system_info",
        "datetime",
        "sleep",
        "read_file",
        "grep",
        "delete",
        "apply_patch",
        "bash",
        "check_syntax",
    ] {
        assert!(all.iter().any(|t| t == tool), "{tool} missing from {all:?}");
    }
    let fs_only = names(&ToolBox::<()>::new().with_defaults(&["fs"]).unwrap(), &[]);
    assert!(fs_only.iter().any(|t| t == "read_file"));
    assert!(!fs_only.iter().any(|t| t == "datetime"));
    let browser_only = names(
        &ToolBox::<()>::new().with_defaults(&["browser"]).unwrap(),
        &[],
    );
    assert!(browser_only.iter().any(|t| t == "browser_page"));
    let err = ToolBox::<()>::new().with_defaults(&["web"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown tool group 'web': expected one of system, framework, fs, patch, cmd, search, browser, diagnostic"
    );
}

/// The runtime's sub-agent provider for these tests: answers with the task upper-cased, fails
/// on "fail" and cancels on "cancel".
struct Shouter;

impl SubagentProvider<()> for Shouter {
    fn run_subagent(
        &self,
        task: SubagentTask,
        ctx: ToolCallContext<()>,
    ) -> cmdguard::tool::BoxFuture<'static, Result<Value, CallError>> {
        let caller = ctx.agent().name.clone();
        Box::pin(async move {
            match task.task.as_str() {
                "fail" => Err(CallError::Failed(ErrorInfo::new(
                    "sub-agent failed",
                    "test",
                ))),
                "cancel" => Err(CallError::Cancelled(Cancelled::new("sub-agent cancelled"))),
                text => Ok(json!({"by": task.name, "for": caller, "answer": text.to_uppercase()})),
            }
        })
    }
}

fn subagent_toolbox() -> ToolBox {
    ToolBox::new()
        .with_subagent_provider(|| Arc::new(Shouter) as Arc<dyn SubagentProvider<()>>)
        .unwrap()
}

#[test]
fn agent_run_hands_the_task_to_the_provider() {
    let toolbox = subagent_toolbox();
    assert_eq!(names(&toolbox, &[]), ["agent_run", "agent_run_parallel"]);
    assert_eq!(
        call(
            &toolbox,
            "agent_run",
            json!({"task": "hi", "name": "critic"})
        ),
        Ok(json!({"by": "critic", "for": "t", "answer": "HI"}))
    );
}

#[test]
fn agent_run_parallel_keeps_order_and_reports_each_failure() {
    let toolbox = subagent_toolbox();
    let result = call(
        &toolbox,
        "agent_run_parallel",
        json!({"tasks": [{"task": "a"}, {"task": "fail"}]}),
    );
    assert_eq!(
        result,
        Ok(json!([
            {"result": {"by": null, "for": "t", "answer": "A"}},
            {"error": "sub-agent failed", "details": "test"},
        ]))
    );
}

#[test]
fn a_cancelled_sub_agent_cancels_the_call() {
    let toolbox = subagent_toolbox();
    let cancelled = Err(CallError::Cancelled(Cancelled::new("sub-agent cancelled")));
    assert_eq!(
        call(&toolbox, "agent_run", json!({"task": "cancel"})),
        cancelled
    );
    let tasks = json!({"tasks": [{"task": "a"}, {"task": "cancel"}]});
    assert_eq!(call(&toolbox, "agent_run_parallel", tasks), cancelled);
}

#[test]
fn closures_are_providers_and_receive_the_caller_value() {
    let toolbox = ToolBox::<&'static str>::default()
        .with_subagent_provider(|| {
            let provider = |task: SubagentTask, ctx: ToolCallContext<&'static str>| async move {
                Ok(json!(format!("{} for {}", task.task, ctx.value())))
            };
            Arc::new(provider) as Arc<dyn SubagentProvider<&'static str>>
        })
        .unwrap();
    let result = toolbox.call_tool_blocking(
        &AgentHandle::new("t"),
        "agent_run",
        json!({"task": "x"}),
        "acme",
    );
    assert_eq!(result, Ok(json!("x for acme")));
}

#[test]
fn disable_subagent_hides_both_tools() {
    let mut toolbox = subagent_toolbox();
    toolbox.disable_subagent();
    assert!(names(&toolbox, &[]).is_empty());
    assert_eq!(
        call(&toolbox, "agent_run", json!({"task": "x"})),
        Err(CallError::Disabled {
            name: "agent_run".into()
        })
    );
    toolbox.enable_subagent();
    assert_eq!(names(&toolbox, &[]).len(), 2);
}

/// Describes a picture.
#[tool(
    required_capabilities = ["vision"],
    labels = ["media", "read-only"],
    idempotent,
    emits_progress,
    output_schema,
    native(openai = json!({"type": "image_describer"}))
)]
fn describe(url: String) -> Result<Vec<String>, std::io::Error> {
    Ok(vec![url])
}

#[test]
fn macro_attributes_reach_the_tool() {
    let tool: Tool = describe_tool();
    let attrs = tool.attrs();
    assert_eq!(
        attrs.required_capabilities.iter().collect::<Vec<_>>(),
        ["vision"]
    );
    assert_eq!(
        attrs.labels.iter().collect::<Vec<_>>(),
        ["media", "read-only"]
    );
    assert!(
        attrs.idempotent && attrs.emits_progress && !attrs.deferred && !attrs.override_existing
    );
    assert_eq!(
        attrs.native.get("openai"),
        Some(&json!({"type": "image_describer"}))
    );
    assert_eq!(
        attrs.output_schema,
        Some(json!({"title": "Array_of_string", "type": "array", "items": {"type": "string"}}))
    );
}

/// A provider whose sub-agent immediately starts another sub-agent through the same toolbox,
/// with the context's agent, recording each depth it runs at.
struct Recursive {
    toolbox: std::sync::OnceLock<Arc<ToolBox>>,
    depths: std::sync::Mutex<Vec<usize>>,
}

impl SubagentProvider<()> for Recursive {
    fn run_subagent(
        &self,
        _task: SubagentTask,
        ctx: ToolCallContext<()>,
    ) -> cmdguard::tool::BoxFuture<'static, Result<Value, CallError>> {
        self.depths.lock().unwrap().push(ctx.agent().depth());
        let toolbox = self.toolbox.get().unwrap().clone();
        Box::pin(async move {
            let inner = toolbox
                .call_tool(ctx.agent(), "agent_run", json!({"task": "go deeper"}), ())
                .await;
            Ok(match inner {
                Ok(v) => v,
                Err(e) => json!(format!("stopped: {}", e.error_info().unwrap().error)),
            })
        })
    }
}

#[test]
fn sub_agents_nest_at_most_three_deep() {
    let provider = Arc::new(Recursive {
        toolbox: std::sync::OnceLock::new(),
        depths: std::sync::Mutex::new(Vec::new()),
    });
    let p = provider.clone();
    let toolbox = Arc::new(
        ToolBox::new()
            .with_subagent_provider(move || p.clone() as Arc<dyn SubagentProvider<()>>)
            .unwrap(),
    );
    assert!(provider.toolbox.set(toolbox.clone()).is_ok());
    let top = AgentHandle::new("top");
    assert_eq!(top.depth(), 0);
    let answer = toolbox
        .call_tool_blocking(&top, "agent_run", json!({"task": "start"}), ())
        .unwrap();
    assert_eq!(*provider.depths.lock().unwrap(), [1, 2, 3]);
    assert!(
        answer
            .as_str()
            .unwrap()
            .contains("sub-agents nest at most 3 deep and this agent is at depth 3"),
        "{answer}"
    );
    let deep = toolbox.call_tool_blocking(&top, "agent_run_parallel", json!({"tasks": ["a"]}), ());
    assert!(deep.is_ok(), "{deep:?}");
    assert_eq!(cmdguard::tool::MAX_SUBAGENT_DEPTH, 3);
}

//! tool/groups.rs: named groups of tools, each made by a factory, so a runtime can ask for "the
//! filesystem tools" by name, and the built-in groups, one module each. It never registers
//! anything itself; the ToolBox does.
//!
//! The built-in tools find the agent's [`Workspace`](crate::tool::Workspace) through
//! [`AgentHandle::with_workspace`](crate::tool::AgentHandle::with_workspace), whatever the
//! runtime's context type, and refuse to run without one.

pub mod browser;
pub mod cmd;
pub mod diagnostic;
pub mod framework;
pub mod fs;
pub mod patch;
pub mod search;
pub mod system;

use std::fmt;
use std::sync::Arc;

use crate::tool::def::Tool;
use crate::tool::error::RegistryError;
use crate::tool::{ToolCallContext, Workspace};

/// Makes the tools of one group, fresh each time.
pub type GroupFactory<C> = Arc<dyn Fn() -> Vec<Tool<C>> + Send + Sync>;

/// A registry of tool groups: a name for each factory, in the order they were added.
///
/// Runtimes build their own and register them with
/// [`ToolBox::with_groups`](crate::tool::ToolBox::with_groups). [`ToolGroups::builtin`] is the
/// registry behind [`ToolBox::with_defaults`](crate::tool::ToolBox::with_defaults).
///
/// ```
/// use cmdguard::tool::{Arguments, CallError, Tool, ToolBox, ToolGroups};
///
/// fn echo() -> Tool {
///     Tool::builder("echo")
///         .param::<String>("text", "")
///         .handler(|mut args: Arguments, _ctx| args.take::<String>("text"))
/// }
///
/// let groups = ToolGroups::new().group("text", || vec![echo()]);
/// let toolbox = ToolBox::new().with_groups(&groups, &["text"]).unwrap();
/// assert!(toolbox.get("echo").is_some());
/// assert!(ToolBox::new().with_groups(&groups, &["net"]).is_err());
/// ```
pub struct ToolGroups<C = ()> {
    groups: Vec<(String, GroupFactory<C>)>,
}

impl<C> ToolGroups<C> {
    /// An empty registry.
    pub fn new() -> Self {
        ToolGroups { groups: Vec::new() }
    }

    /// Adds (or replaces) the group `name`, made by `factory`.
    pub fn group(
        mut self,
        name: impl Into<String>,
        factory: impl Fn() -> Vec<Tool<C>> + Send + Sync + 'static,
    ) -> Self {
        let name = name.into();
        let factory: GroupFactory<C> = Arc::new(factory);
        match self
            .groups
            .iter_mut()
            .find(|(existing, _)| *existing == name)
        {
            Some(slot) => slot.1 = factory,
            None => self.groups.push((name, factory)),
        }
        self
    }

    /// The group names, in the order they were added.
    pub fn names(&self) -> Vec<&str> {
        self.groups.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// The tools of the named groups, in the order asked. Fails on the first unknown name and
    /// lists the known ones.
    pub fn build(&self, names: &[&str]) -> Result<Vec<Tool<C>>, RegistryError> {
        let mut tools = Vec::new();
        for name in names {
            let Some((_, factory)) = self.groups.iter().find(|(group, _)| group == name) else {
                return Err(RegistryError::UnknownGroup {
                    name: (*name).to_owned(),
                    known: self.names().into_iter().map(str::to_owned).collect(),
                });
            };
            tools.extend(factory());
        }
        Ok(tools)
    }

    /// The tools of every group, in the order the groups were added.
    pub fn build_all(&self) -> Vec<Tool<C>> {
        self.groups
            .iter()
            .flat_map(|(_, factory)| factory())
            .collect()
    }
}

/// The names of the built-in groups, in registration order.
pub const BUILTIN_GROUPS: &[&str] = &[
    "system",
    "framework",
    "fs",
    "patch",
    "cmd",
    "search",
    "browser",
    "diagnostic",
];

impl<C: Send + Sync + 'static> ToolGroups<C> {
    /// The built-in groups: `system` ([`system`]: `system_info`, `datetime`, `sleep`),
    /// `framework` ([`framework`]: `ask_preference`, `extract_compacted_tool_result`), `fs`
    /// ([`fs`]: `list_dir`, `file_info`, `read_file`, `temp_dir`, `write_file`, `mkdir`,
    /// `move`, `copy`, `delete`, `glob`, `grep`), `patch` ([`patch`]: `apply_patch`, all or
    /// nothing), `cmd` ([`cmd`]: `bash` — every command judged by the analyser and the
    /// confirmation policy first — and its background jobs), `search` ([`search`]:
    /// `web_search` through the runtime's backend), `browser` ([`browser`]: `browser_page`,
    /// `browser_resize`, `browser_snapshot`, `browser_interact`, `browser_evaluate`,
    /// `browser_logs`, `browser_screenshot` — a headless Chromium the runtime configures with
    /// [`AgentHandle::with_browser`](crate::tool::AgentHandle::with_browser)) and `diagnostic`
    /// ([`diagnostic`]: `check_syntax`, `check_lint`, `diff_files`).
    ///
    /// ```
    /// use cmdguard::tool::ToolGroups;
    ///
    /// assert_eq!(ToolGroups::<()>::builtin().names(), [
    ///     "system", "framework", "fs", "patch", "cmd", "search", "browser", "diagnostic"
    /// ]);
    /// ```
    pub fn builtin() -> Self {
        ToolGroups::new()
            .group("system", || into_context(system::tools()))
            .group("framework", || into_context(framework::tools()))
            .group("fs", || into_context(fs::tools()))
            .group("patch", || into_context(patch::tools()))
            .group("cmd", || into_context(cmd::tools()))
            .group("search", || into_context(search::tools()))
            .group("browser", || into_context(browser::tools()))
            .group("diagnostic", || into_context(diagnostic::tools()))
    }
}

/// The calling agent's workspace, or the error every built-in tool gives without one.
pub(crate) fn agent_workspace(ctx: &ToolCallContext<()>) -> Result<&Workspace, String> {
    ctx.agent().workspace().ok_or_else(|| {
        "this tool needs a workspace: the runtime gives the agent one with AgentHandle::with_workspace"
            .to_owned()
    })
}

fn into_context<C: Send + Sync + 'static>(tools: Vec<Tool>) -> Vec<Tool<C>> {
    tools.into_iter().map(Tool::into_context).collect()
}

impl<C> Default for ToolGroups<C> {
    fn default() -> Self {
        ToolGroups::new()
    }
}

// Hand-written so that cloning never requires `C: Clone`: factories are shared.
impl<C> Clone for ToolGroups<C> {
    fn clone(&self) -> Self {
        ToolGroups {
            groups: self.groups.clone(),
        }
    }
}

impl<C> fmt::Debug for ToolGroups<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolGroups")
            .field("groups", &self.names())
            .finish()
    }
}

//! tool/groups/search.rs: the `search` group — `web_search` through a backend the runtime
//! supplies ([`AgentHandle::with_search_backend`](crate::tool::AgentHandle::with_search_backend)).
//! cmdguard itself never goes to the network: without a backend the tool says so.

use serde::Serialize;

use crate::tool::{Tool, ToolCallContext, tool};

/// The most results one search returns.
pub const MAX_RESULTS: usize = 20;

/// The tools of the group.
pub fn tools() -> Vec<Tool> {
    vec![web_search_tool()]
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// The page title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// A short excerpt.
    pub snippet: String,
}

/// A web search engine, as the runtime provides it (an API client, or a driver of the browser
/// group).
pub trait SearchBackend: Send + Sync {
    /// At most `max_results` hits for `query`, best first.
    fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchResult>, String>;
}

/// Searches the web and returns the best hits: title, address and a short excerpt each.
#[tool]
fn web_search(
    /// What to search for.
    query: &str,
    /// How many results, 1 to 20.
    #[tool(default = 5)]
    max_results: usize,
    #[tool(context)] ctx: &ToolCallContext<()>,
) -> Result<Vec<SearchResult>, String> {
    let backend = ctx.agent().search_backend().ok_or_else(|| {
        "no search backend is configured (AgentHandle::with_search_backend)".to_owned()
    })?;
    if query.trim().is_empty() {
        return Err("the query is empty".to_owned());
    }
    if max_results == 0 || max_results > MAX_RESULTS {
        return Err(format!("max_results must be between 1 and {MAX_RESULTS}"));
    }
    let mut hits = backend.search(query, max_results)?;
    hits.truncate(max_results);
    Ok(hits)
}

//! integrations: the outermost layer, which plugs cmdguard into programs people already run.
//! It only calls the library's public API and never decides safety itself.

pub mod explain;
pub mod shell;

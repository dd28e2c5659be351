//! integrations: cmdguard inside the programs people already run — agent hooks (Claude Code,
//! Gemini CLI, Codex) and their installation into the agents' settings files, the audit log
//! with `cmdguard log`, CI code scanning (`cmdguard scan`, SARIF), interactive shells
//! (`cmdguard init`) and `cmdguard explain`. This layer sits above the configuration and the
//! policy; the core never imports it, and it never decides a command itself: every verdict
//! comes from an [`Analyzer`](crate::Analyzer), the layered [`Config`](crate::config::Config)
//! and the confirmation [`Policy`](crate::policy::Policy).

pub mod audit;
pub mod explain;
pub mod hook;
pub mod install;
pub mod scan;
pub mod shell;

//! integrations: cmdguard inside the programs people already run — agent hooks (Claude Code,
//! Gemini CLI, Codex), their installation into the agents' settings files, and the audit log
//! with `cmdguard log`. This layer sits above the configuration and the policy; the core never
//! imports it, and it never decides a command itself: every verdict comes from the layered
//! [`Config`](crate::config::Config) and the confirmation [`Policy`](crate::policy::Policy).

pub mod audit;
pub mod hook;
pub mod install;

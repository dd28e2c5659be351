//! cmdguard's integration tests: one binary, a module per area.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a panic in a test is a failure with a backtrace"
)]

mod adversarial;
mod assess;
mod bounded;
mod cli;
mod config;
mod dialects;
mod differential;
mod fast;
mod git_config;
mod interp;
mod mismatch;
mod options;
mod packs;
mod policy;
mod precision;
mod properties;
mod real_programs;
mod rules;
mod sandbox;
mod scratch;
mod seed;
mod sensitive;
mod snapshots;
mod tool_box;
mod tool_call;
mod tool_newcomer;
mod tool_schema;
mod tool_validate;

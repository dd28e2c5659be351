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
mod deny_cloud_s9;
mod deny_interpreters;
mod deny_packs_s8;
mod deny_s10_denycloud;
mod deny_s10_denyinterp;
mod deny_s10_denyshell;
mod deny_s10_denysys;
mod deny_s9;
mod deny_shells;
mod deny_shells_s8;
mod deny_side_doors;
mod dialects;
mod differential;
mod explain;
mod fast;
mod git_config;
mod hooks;
mod interp;
mod mismatch;
mod options;
mod packs;
mod pathological;
mod policy;
mod precision;
mod properties;
mod real_programs;
mod red;
mod reddeny_open_denycloud;
mod reddeny_open_denyinterp;
mod reddeny_open_denyshell;
mod reddeny_open_denysys;
mod redsec_open;
mod redteam_deny_fixes_s9_sql;
mod redteam_deny_s9;
mod redteam_scan_fixes_s10;
mod redteam_scan_fixes_s8;
mod redteam_scan_fixes_s9;
mod redteam_scan_fixes_s9_docker;
mod redteam_secrets_fixes_s9;
mod redteam_secrets_s9;
mod redteam_tools_a;
mod redteam_tools_b;
mod redteam_tools_e;
mod redteam_tools_fixes_s10;
mod redteam_tools_fixes_s7b;
mod redteam_tools_fixes_s8;
mod redteam_tools_fixes_s9;
mod redteam_tools_fixes_s9b;
mod redteam_tools_fixes_toolfix2a;
mod redteam_tools_fixes_toolfix2b;

mod rules;
mod sandbox;
mod scan;
mod scan_s9;
mod scan_subset;
mod scratch;
mod seed;
mod sensitive;
mod sensitive_s10;
mod sensitive_s9;
mod shell_init;
mod snapshots;
mod tool_box;
mod tool_browser;
mod tool_call;
mod tool_cmd;
mod tool_groups;
mod tool_newcomer;
mod tool_schema;
mod tool_validate;

//! The pathological inputs of issue 15 ("linear, ≤ 100 ms, verdict ask"), each built at a
//! size given in units of its repeated piece: one module shared by the `pathological` bench
//! group (`benches/stages.rs`) and the verdict test (`tests/it/pathological.rs`), so both look
//! at the same text.

#![allow(dead_code, reason = "the bench and the test each use part of it")]

/// A pathological input: its name, the size the issue names (in units), and how to build it.
pub struct Row {
    /// The bench id.
    pub name: &'static str,
    /// The size the issue names, in repeated units.
    pub full: usize,
    /// The input at `units` repetitions.
    pub build: fn(usize) -> String,
}

/// 1 MiB of operators, 10k levels of nesting, a 100k-stage pipeline, 64 KiB of `$(`, and
/// near relatives that stay under the byte limit, so that the parser sees them.
pub const ROWS: &[Row] = &[
    // 1 MiB of `;`.
    Row {
        name: "semicolons_1mib",
        full: 1 << 20,
        build: |n| ";".repeat(n),
    },
    // 1 MiB of every list and pipeline operator between one-letter commands.
    Row {
        name: "operators_1mib",
        full: (1 << 20) / 10,
        build: |n| "a|b&&c||d;".repeat(n),
    },
    // 10k nested subshells around `ls`.
    Row {
        name: "subshells_10k",
        full: 10_000,
        build: |n| format!("{}ls{}", "(".repeat(n), ")".repeat(n)),
    },
    // 10k nested command substitutions around `ls`.
    Row {
        name: "substitutions_10k",
        full: 10_000,
        build: |n| format!("echo {}ls{}", "$(".repeat(n), ")".repeat(n)),
    },
    // 10k unclosed `(`: the parser's error recovery, not its nesting.
    Row {
        name: "open_parens_10k",
        full: 10_000,
        build: |n| "(".repeat(n),
    },
    // A 100k-stage pipeline.
    Row {
        name: "pipeline_100k",
        full: 100_000,
        build: |n| format!("{}ls", "ls | ".repeat(n)),
    },
    // 64 KiB of `$(`.
    Row {
        name: "open_substitutions_64kib",
        full: 32 * 1024,
        build: |n| "$(".repeat(n),
    },
    // `$(` up to just under the byte limit (32 KiB): parsed, with error recovery.
    Row {
        name: "open_substitutions_32kib",
        full: 16 * 1024 - 1,
        build: |n| "$(".repeat(n),
    },
    // `a;` up to just under the byte limit: 16k statements, parsed.
    Row {
        name: "statements_32kib",
        full: 16 * 1024 - 1,
        build: |n| "a;".repeat(n),
    },
    // Backquotes up to just under the byte limit: a quote that never closes, nested.
    Row {
        name: "backquotes_32kib",
        full: 32 * 1024 - 8,
        build: |n| format!("echo {}", "`".repeat(n)),
    },
];

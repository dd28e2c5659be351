//! limits: the bounds on one analysis — input size, nesting, segment and expansion counts,
//! script depth, parse time, and the per-analysis totals the work budget counts — that an
//! allowlist's `[limits]` table sets.
//!
//! Plain configuration read by the input stage, the segmenter and the checker alike; it sits
//! below all of them so none has to import another to learn a bound. It never checks anything.

use serde::{Deserialize, Serialize};

/// Bounds on the work one analysis does, set under `[limits]` in the allowlist. The input
/// stage refuses text over `max_bytes` or `max_pipes` before parsing; the segmenter stops
/// descending past the others with a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest command accepted, in bytes.
    pub max_bytes: usize,
    /// Deepest nesting of subshells, groups, substitutions and control structures.
    pub max_nesting: usize,
    /// Most segments analysed, nested scripts included.
    pub max_segments: usize,
    /// Most words one brace expansion may produce.
    pub max_expansion: usize,
    /// Deepest nesting of `bash -c`/`eval` scripts analysed recursively.
    pub max_script_depth: usize,
    /// Most `|` characters in a command, quoted or not. After a syntax error, tree-sitter-bash's
    /// error recovery grows exponentially with the pipeline stages that follow, inside one
    /// parser step the clock cannot interrupt (`cat | | cat | … {x:?$(i` with 29 stages takes
    /// seconds), so longer inputs are refused before parsing. Agent commands rarely pass 13.
    pub max_pipes: usize,
    /// Wall-clock budget for one parse, in milliseconds: a last guard against parser blow-ups.
    pub max_parse_ms: u64,
    /// Most bytes of text one analysis reads, counted once however the input nests: the
    /// command, each nested `bash -c` / `eval` script, and each word brace expansion produces.
    pub max_total_bytes: usize,
    /// Deepest recursion one analysis follows through wrappers, `find -exec` and nested
    /// scripts together (`env env … ls`).
    pub max_depth: usize,
    /// Most bytes one analysis reads from repositories (config files, indexes).
    pub max_repo_bytes: u64,
    /// Wall-clock budget for one whole analysis, nested scripts and repository read included,
    /// in milliseconds.
    pub max_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 * 1024,
            max_nesting: 48,
            max_segments: 2_000,
            max_expansion: 1_024,
            max_script_depth: 8,
            max_pipes: 24,
            max_parse_ms: 2_000,
            max_total_bytes: 256 * 1024,
            max_depth: 32,
            max_repo_bytes: 16 << 20,
            max_ms: 1_000,
        }
    }
}

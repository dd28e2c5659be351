//! Procedural macros for cmdguard's tool registry. Filled in by the tool-registry work.

//! cmdguard's integration tests: one binary, a module per area.

mod tool_box;
mod tool_call;
mod tool_schema;
mod tool_validate;

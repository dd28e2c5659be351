//! cmdguard's integration tests: one binary, a module per area.

mod tool_schema;
mod tool_validate;
mod tool_call;
mod tool_box;

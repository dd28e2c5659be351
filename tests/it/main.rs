//! cmdguard's integration tests: one binary, a module per area.

mod sandbox;
mod seed;

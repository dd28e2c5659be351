//! cmdguard's integration tests: one binary, a module per area.

mod differential;
mod sandbox;
mod seed;

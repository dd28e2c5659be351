//! cmdguard's integration tests: one binary, a module per area.

mod adversarial;
mod seed;

//! cmdguard's integration tests: one binary, a module per area.

mod adversarial;
mod cli;
mod rules;
mod seed;
mod snapshots;

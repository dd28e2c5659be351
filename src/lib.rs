//! cmdguard decides whether a shell command may run without asking a human.
//!
//! (Crate documentation is written as the pipeline lands.)

pub mod tool;

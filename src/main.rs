//! The `cmdguard` binary: a thin layer over the library.
fn main() {}

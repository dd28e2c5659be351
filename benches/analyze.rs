//! Criterion benches (filled in with the analyser).
fn main() {}

use cmdguard::tool::tool;

/// A native definition under a misspelt adapter key.
#[tool(native(open_ai = 1))]
fn computer() {}

fn main() {}

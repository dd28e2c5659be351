use cmdguard::tool::tool;

/// `#[tool(context)]` on a parameter that is not a context.
#[tool]
fn count(#[tool(context)] n: u32) -> u32 {
    n
}

fn main() {}

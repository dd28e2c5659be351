use cmdguard::tool::{ToolCallContext, tool};

struct Session;
type Ctx = ToolCallContext<Session>;

/// An aliased context the macro cannot recognise by name.
#[tool]
fn whoami(ctx: Ctx) -> bool {
    let _ = ctx;
    true
}

fn main() {}

use cmdguard::tool::tool;

/// A tool cannot lend the model's argument mutably.
#[tool]
fn push(text: &mut String) {
    text.push('!');
}

fn main() {}

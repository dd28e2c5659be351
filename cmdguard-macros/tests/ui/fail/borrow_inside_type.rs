use cmdguard::tool::tool;

/// Borrowed items cannot be deserialised from the model's JSON.
#[tool]
fn join(words: Vec<&str>) -> String {
    words.join(" ")
}

fn main() {}

use cmdguard::tool::tool;

/// An error type that serialises but has no message: it must not pass as a success.
#[derive(Debug, serde::Serialize)]
struct Quiet;

/// Returns a `Result` whose error cannot be shown to the model.
#[tool]
fn quiet() -> Result<u8, Quiet> {
    Err(Quiet)
}

fn main() {}

//! tool/error.rs: the errors of the tool layer — registering tools, validating arguments and
//! calling a tool. It never decides anything; it only names what went wrong.

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What a failed tool call tells the model: the message and the details behind it.
///
/// A tool that returns an error, panics, or returns a value that cannot be serialised produces
/// one of these (inside [`CallError::Failed`]). It serialises to `{"error": …, "details": …}`,
/// which is the shape the model is shown.
///
/// ```
/// use cmdguard::tool::ErrorInfo;
///
/// let info = ErrorInfo::new("file not found", "open(\"a.txt\")");
/// assert_eq!(info.to_string(), "file not found");
/// assert_eq!(
///     serde_json::to_value(&info).unwrap(),
///     serde_json::json!({"error": "file not found", "details": "open(\"a.txt\")"}),
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// The error message (the error's `Display`, or what a panic said).
    pub error: String,
    /// Where it came from: the error's `Debug` form, or which tool panicked.
    pub details: String,
}

impl ErrorInfo {
    /// Builds an `ErrorInfo` from a message and its details.
    pub fn new(error: impl Into<String>, details: impl Into<String>) -> Self {
        ErrorInfo {
            error: error.into(),
            details: details.into(),
        }
    }
}

impl fmt::Display for ErrorInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.error)
    }
}

impl Error for ErrorInfo {}

/// A call was cancelled. Unlike every other failure it is never turned into an [`ErrorInfo`]:
/// it propagates unchanged, as [`CallError::Cancelled`], so the runtime can stop the whole run.
///
/// A call is cancelled when its [`Run`](crate::tool::Run) was cancelled before the tool started, or
/// when the tool itself returns `Err(Cancelled)` (directly, or boxed as
/// `Box<dyn Error + Send + Sync>`). Dropping the future of an async call is Rust's own
/// cancellation and needs nothing from this type.
///
/// ```
/// use cmdguard::tool::Cancelled;
///
/// assert_eq!(Cancelled::new("user pressed ctrl-c").to_string(), "cancelled: user pressed ctrl-c");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cancelled {
    /// Why the call was cancelled.
    pub reason: String,
}

impl Cancelled {
    /// Builds a cancellation with its reason.
    pub fn new(reason: impl Into<String>) -> Self {
        Cancelled {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cancelled: {}", self.reason)
    }
}

impl Error for Cancelled {}

/// Why [`ToolBox::call_tool`](crate::tool::ToolBox::call_tool) did not return a value.
///
/// ```
/// use cmdguard::tool::{CallError, ErrorInfo};
///
/// let err = CallError::NotRegistered { name: "grep".into() };
/// assert_eq!(err.to_string(), "tool 'grep' is not registered");
/// // Everything but cancellation can be shown to the model.
/// assert_eq!(err.error_info().map(|i| i.error), Some("tool 'grep' is not registered".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// No tool of that name is registered.
    NotRegistered {
        /// The requested tool name.
        name: String,
    },
    /// The tool is registered but disabled (see [`ToolBox::disable`](crate::tool::ToolBox::disable)).
    Disabled {
        /// The requested tool name.
        name: String,
    },
    /// The arguments did not validate; every problem found is listed.
    InvalidArguments {
        /// The tool whose arguments were wrong.
        tool: String,
        /// One message per problem, e.g. `missing required argument(s): a, b`.
        problems: Vec<String>,
    },
    /// The tool ran and failed: it returned an error, panicked, or returned a value that cannot
    /// be serialised.
    Failed(ErrorInfo),
    /// The call was cancelled; this is never converted into an [`ErrorInfo`].
    Cancelled(Cancelled),
}

impl CallError {
    /// The error as the model should see it, or `None` for a cancellation, which must propagate
    /// to the runtime instead of being reported to the model.
    pub fn error_info(&self) -> Option<ErrorInfo> {
        match self {
            CallError::Failed(info) => Some(info.clone()),
            CallError::Cancelled(_) => None,
            CallError::NotRegistered { .. }
            | CallError::Disabled { .. }
            | CallError::InvalidArguments { .. } => {
                Some(ErrorInfo::new(self.to_string(), String::new()))
            }
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::NotRegistered { name } => {
                write!(f, "tool '{}' is not registered", clip(name))
            }
            CallError::Disabled { name } => write!(f, "tool '{}' is disabled", clip(name)),
            CallError::InvalidArguments { tool, problems } => {
                write!(
                    f,
                    "invalid arguments for tool '{tool}': {}",
                    problems.join("; ")
                )
            }
            CallError::Failed(info) => write!(f, "{info}"),
            CallError::Cancelled(cancelled) => write!(f, "{cancelled}"),
        }
    }
}

impl Error for CallError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            CallError::Failed(info) => Some(info),
            CallError::Cancelled(cancelled) => Some(cancelled),
            CallError::NotRegistered { .. }
            | CallError::Disabled { .. }
            | CallError::InvalidArguments { .. } => None,
        }
    }
}

impl From<Cancelled> for CallError {
    fn from(cancelled: Cancelled) -> Self {
        CallError::Cancelled(cancelled)
    }
}

impl From<ErrorInfo> for CallError {
    fn from(info: ErrorInfo) -> Self {
        CallError::Failed(info)
    }
}

/// Why a tool or a group of tools could not be registered.
///
/// ```
/// use cmdguard::tool::RegistryError;
///
/// let err = RegistryError::Conflict { name: "read_file".into() };
/// assert_eq!(err.to_string(), "conflict tool name: read_file");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryError {
    /// A tool of that name is already registered and neither side has `override`.
    Conflict {
        /// The clashing name.
        name: String,
    },
    /// A tool definition is unusable, e.g. a parameter default that cannot be serialised or an
    /// argument type whose schema is not an object.
    InvalidTool {
        /// The tool's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// [`ToolBox::with_defaults`](crate::tool::ToolBox::with_defaults) was asked for a group that
    /// the group registry does not know.
    UnknownGroup {
        /// The requested group.
        name: String,
        /// The groups that exist, so the message can suggest one.
        known: Vec<String>,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Conflict { name } => write!(f, "conflict tool name: {name}"),
            RegistryError::InvalidTool { name, reason } => {
                write!(f, "invalid tool '{}': {reason}", clip(name))
            }
            RegistryError::UnknownGroup { name, known } if known.is_empty() => {
                write!(f, "unknown tool group '{name}': no groups are registered")
            }
            RegistryError::UnknownGroup { name, known } => {
                write!(
                    f,
                    "unknown tool group '{name}': expected one of {}",
                    known.join(", ")
                )
            }
        }
    }
}

impl Error for RegistryError {}

/// How many bytes of someone else's text (the model's arguments, a tool name it made up) an
/// error message quotes. Error messages go back into the model's context, so a 5 MB argument
/// must not come back as a 5 MB error.
pub(crate) const QUOTE_LIMIT: usize = 80;

/// `text` as an error message quotes it: whole when short, else its first [`QUOTE_LIMIT`]
/// bytes (cut at a character boundary) and `…, N bytes more`, as pydantic does.
pub(crate) fn clip(text: &str) -> Cow<'_, str> {
    if text.len() <= QUOTE_LIMIT {
        return Cow::Borrowed(text);
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!(
        "{}…, {} bytes more",
        &text[..end],
        text.len() - end
    ))
}

/// An error message with every over-long quoted run in it clipped (see [`clip`]). serde's
/// messages quote the offending input: strings in Rust's debug form (`invalid type: string
/// "…", expected u32`, where a quoted run ends at the next `"` that is not escaped) and names in
/// backquotes (``unknown field `…` ``).
pub(crate) fn clip_quoted(message: &str) -> Cow<'_, str> {
    if message.len() <= QUOTE_LIMIT {
        return Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(QUOTE_LIMIT * 4);
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = if rest[open..].starts_with('"') {
            '"'
        } else {
            '`'
        };
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        match quoted_end(body, quote) {
            Some(close) => {
                out.push_str(&clip(&body[..close]));
                out.push(quote);
                rest = &body[close + 1..];
            }
            None => {
                out.push_str(&clip(body));
                rest = "";
            }
        }
    }
    out.push_str(&clip(rest));
    Cow::Owned(out)
}

/// The byte offset of the first `quote` in `body` that no backslash escapes (backquotes are
/// never escaped).
fn quoted_end(body: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        if c == quote && !escaped {
            return Some(at);
        }
        escaped = quote == '"' && c == '\\' && !escaped;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_at_a_character_boundary() {
        assert_eq!(clip("short"), "short");
        let long = "é".repeat(100);
        let clipped = clip(&long);
        assert!(clipped.starts_with(&"é".repeat(40)), "{clipped}");
        assert!(clipped.ends_with("…, 120 bytes more"), "{clipped}");
    }

    #[test]
    fn clip_quoted_shortens_each_long_quoted_run_and_keeps_the_rest() {
        let long = "x".repeat(1000);
        let message = format!("invalid type: string {long:?}, expected u32");
        assert_eq!(
            clip_quoted(&message),
            format!(
                "invalid type: string \"{}…, 920 bytes more\", expected u32",
                "x".repeat(80)
            )
        );
        let escaped = format!("string \"a\\\"{long}\" then");
        let clipped = clip_quoted(&escaped);
        assert!(clipped.ends_with("bytes more\" then"), "{clipped}");
        assert!(clipped.len() < 200, "{clipped}");
    }
}

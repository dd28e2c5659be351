//! tool/error.rs: the errors of the tool layer — registering tools, validating arguments and
//! calling a tool. It never decides anything; it only names what went wrong.

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
            CallError::NotRegistered { name } => write!(f, "tool '{name}' is not registered"),
            CallError::Disabled { name } => write!(f, "tool '{name}' is disabled"),
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
                write!(f, "invalid tool '{name}': {reason}")
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

//! assess/openai.rs: `OpenAiChat`, a [`ChatModel`] over an OpenAI-compatible chat-completions
//! endpoint (feature `openai`; `openai-tls` for https). It only moves messages; every decision
//! is the agent's.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::assess::command::truncate;
use crate::assess::{ChatMessage, ChatModel, ModelError, Role, ToolCall};

/// The largest response body read, in bytes.
const MAX_BODY: u64 = 4 * 1024 * 1024;

/// A [`ChatModel`] that POSTs to `{base_url}/chat/completions` (OpenAI, and the many servers
/// that speak its API: vLLM, llama.cpp, Ollama, LiteLLM…).
///
/// The API key is read from an environment variable (`OPENAI_API_KEY` unless set otherwise)
/// at every call, and sent as a bearer token; a missing variable is
/// [`ModelError::MissingApiKey`]. Each call has a timeout (60 s unless set otherwise) covering
/// the connection, the request and the whole response. Requests ask for `temperature: 0`.
///
/// ```no_run
/// use std::time::Duration;
/// use cmdguard::assess::{AgentAssessor, Guarded, OpenAiChat};
///
/// let model = OpenAiChat::new("https://api.openai.com/v1", "gpt-4.1-mini")
///     .api_key_env("OPENAI_API_KEY")
///     .timeout(Duration::from_secs(20));
/// // Up to 8 model calls of 20 s each; the guard bounds the whole assessment.
/// let assessor = Guarded::new(AgentAssessor::new(model), Duration::from_secs(60));
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiChat {
    base_url: String,
    model: String,
    api_key_env: Option<String>,
    timeout: Duration,
    agent: ureq::Agent,
}

impl OpenAiChat {
    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`).
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> OpenAiChat {
        let timeout = Duration::from_secs(60);
        OpenAiChat {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: Some("OPENAI_API_KEY".to_owned()),
            timeout,
            agent: agent(timeout),
        }
    }

    /// Reads the API key from the environment variable `name`.
    pub fn api_key_env(mut self, name: impl Into<String>) -> OpenAiChat {
        self.api_key_env = Some(name.into());
        self
    }

    /// Sends no API key, for local servers that want none.
    pub fn without_api_key(mut self) -> OpenAiChat {
        self.api_key_env = None;
        self
    }

    /// The timeout of one call.
    pub fn timeout(mut self, timeout: Duration) -> OpenAiChat {
        self.timeout = timeout;
        self.agent = agent(timeout);
        self
    }

    /// The request body for `messages` and `tools`.
    pub fn request_body(&self, messages: &[ChatMessage], tools: &[Value]) -> Value {
        let mut body = json!({
            "model": self.model,
            "messages": messages.iter().map(wire_message).collect::<Vec<_>>(),
            "temperature": 0,
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
        }
        body
    }
}

impl ChatModel for OpenAiChat {
    fn chat(&self, messages: &[ChatMessage], tools: &[Value]) -> Result<ChatMessage, ModelError> {
        let url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
        let mut request = self
            .agent
            .post(&url)
            .header("content-type", "application/json");
        if let Some(variable) = &self.api_key_env {
            let key = std::env::var(variable).map_err(|_| ModelError::MissingApiKey {
                variable: variable.clone(),
            })?;
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let body = self.request_body(messages, tools).to_string();
        let mut response = request.send(body.as_str()).map_err(transport_error)?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(transport_error)?;
        if !(200..300).contains(&status) {
            return Err(ModelError::Status {
                status,
                body: truncate(text, 200),
            });
        }
        parse_completion(&text)
    }
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into()
}

fn transport_error(error: ureq::Error) -> ModelError {
    match error {
        ureq::Error::Timeout(_) => ModelError::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => ModelError::Timeout,
        other => ModelError::Transport(other.to_string()),
    }
}

fn wire_message(message: &ChatMessage) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut wire = json!({"role": role, "content": message.content});
    if !message.tool_calls.is_empty() {
        wire["tool_calls"] = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })
            })
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        wire["tool_call_id"] = json!(id);
    }
    wire
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireReply,
}

#[derive(Deserialize)]
struct WireReply {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireCall>>,
}

#[derive(Deserialize)]
struct WireCall {
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// A JSON object as text in OpenAI's API; some servers send the object itself.
    arguments: Value,
}

fn parse_completion(text: &str) -> Result<ChatMessage, ModelError> {
    let completion: Completion = serde_json::from_str(text).map_err(|error| {
        let start: String = text.chars().take(80).collect();
        ModelError::Malformed(format!("{error}: {start:?}"))
    })?;
    let Some(choice) = completion.choices.into_iter().next() else {
        return Err(ModelError::Malformed("no choices".to_owned()));
    };
    let tool_calls = choice
        .message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .map(|call| ToolCall {
            id: call.id,
            name: call.function.name,
            arguments: match call.function.arguments {
                Value::String(text) => text,
                other => other.to_string(),
            },
        })
        .collect();
    Ok(ChatMessage {
        role: Role::Assistant,
        content: choice.message.content,
        tool_calls,
        tool_call_id: None,
    })
}

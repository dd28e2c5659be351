//! config/build: turns the configuration's plain data into the things that run — the risk
//! assessor (`[assessor]`) and the confirmation [`Policy`] (`auto_confirm`, `state_file`). It
//! reads no file and decides no command; what it builds fails closed through [`Guarded`].
//!
//! An agent runtime, from the layered config to a command that runs or is refused:
//!
//! ```no_run
//! use cmdguard::config::{ConfigSources, Env};
//! use cmdguard::policy::{Outcome, TerminalConfirm};
//!
//! let config = ConfigSources::discover(&Env::process()).load()?; // every layer, merged
//! let policy = config.policy()?; // [assessor] built and guarded, auto_confirm, state_file
//! let mut person = TerminalConfirm::stdio();
//! // analyser (allowlist + Claude Code rules) → assessor → prompt or grant → decision record
//! let decided = config.check(&policy, "npm install left-pad", &mut person);
//! match &decided.outcome {
//!     Outcome::Run => { /* run it */ }
//!     Outcome::Refused { message } => eprintln!("{message}"), // tell the agent why
//! }
//! println!("{}", serde_json::to_string(&decided.record)?); // the audit log's line
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same, runnable, with a config file in a temporary directory:
//!
//! ```
//! use cmdguard::config::{ConfigSources, Env};
//! use cmdguard::policy::{Choice, ChoiceOutcome, Prompt};
//! let dir = std::env::temp_dir().join(format!("cmdguard-build-doc-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("cfg/cmdguard"))?;
//! std::fs::write(dir.join("cfg/cmdguard/config.toml"), "auto_confirm = true\n")?;
//! let env = Env::new(&dir)
//!     .var("HOME", &dir)
//!     .var("XDG_CONFIG_HOME", dir.join("cfg"))
//!     .var("CMDGUARD_SYSTEM_CONFIG", dir.join("no-system.toml"));
//! let config = ConfigSources::discover(&env).load().unwrap();
//! let policy = config.policy().unwrap();
//! // No assessor is configured, so `npm test` is `Unsure`; auto-confirm takes the default, yes.
//! let mut nobody = |_: &Prompt| ChoiceOutcome::user(Choice::No);
//! let d = config.check(&policy, "npm test", &mut nobody);
//! assert!(d.outcome.runs());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::time::Duration;

use super::{AssessorConfig, Config};
use crate::allowlist::{ConfigError, Location};
use crate::assess::{AssessRequest, Assessment, CommandAssessor, Guarded, RiskAssessor};
use crate::finding::RuleOrigin;
use crate::policy::{Confirm, Decided, Policy, PolicySettings};
use crate::repo::Workdir;

/// How long a command assessor may take when the config names no `timeout_ms` (the
/// [`CommandAssessor`]'s own default).
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a whole agent assessment may take when the config names no `timeout_ms` (the
/// OpenAI client's own default for one call).
pub const DEFAULT_AGENT_TIMEOUT: Duration = Duration::from_secs(60);

/// What the guard adds to a command assessor's timeout: the assessor kills its child at its
/// own deadline and answers `unable_to_assess`; the guard is the backstop behind it.
const GUARD_GRACE: Duration = Duration::from_secs(1);

/// The assessor a configuration names, built and guarded: a panic or a run past its timeout
/// answers `Unsure { unable_to_assess }`, never `Allow`.
pub enum ConfiguredAssessor {
    /// `kind = "command"`: a program given the request as JSON on stdin.
    Command(Guarded<CommandAssessor>),
    /// `kind = "agent"`: the assessment sub-agent over an OpenAI-compatible endpoint.
    #[cfg(feature = "openai")]
    Agent(Guarded<crate::assess::AgentAssessor<crate::assess::OpenAiChat>>),
}

impl std::fmt::Debug for ConfiguredAssessor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfiguredAssessor::Command(g) => f
                .debug_tuple("Command")
                .field(&format_args!("timeout {:?}", g.timeout()))
                .finish(),
            #[cfg(feature = "openai")]
            ConfiguredAssessor::Agent(g) => f
                .debug_tuple("Agent")
                .field(&format_args!("timeout {:?}", g.timeout()))
                .finish(),
        }
    }
}

impl RiskAssessor for ConfiguredAssessor {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        match self {
            ConfiguredAssessor::Command(a) => a.assess(request),
            #[cfg(feature = "openai")]
            ConfiguredAssessor::Agent(a) => a.assess(request),
        }
    }
}

impl Config {
    /// The assessor `[assessor]` names, wrapped in the timeout and panic guard; `None` for
    /// `kind = "none"` (every `ask` goes to a person).
    ///
    /// `timeout_ms` bounds the whole assessment: a command assessor kills its program at that
    /// deadline (the guard waits a second longer as a backstop); an agent's guard gives up at
    /// it and each model call has the same timeout. A `kind = "agent"` in a build without the
    /// `openai` feature is a config error at the `[assessor]` table, never a silent fallback.
    pub fn build_assessor(&self) -> Result<Option<ConfiguredAssessor>, ConfigError> {
        let timeout =
            |ms: Option<u64>, default: Duration| ms.map_or(default, Duration::from_millis);
        match &self.assessor.value {
            AssessorConfig::None => Ok(None),
            AssessorConfig::Command {
                command,
                timeout_ms,
                max_output_bytes,
            } => {
                // The config refuses an empty `command`; a hand-built one is refused here.
                let Some((program, args)) = command.split_first() else {
                    return Err(self.assessor_error("`command` needs at least the program"));
                };
                let limit = timeout(*timeout_ms, DEFAULT_COMMAND_TIMEOUT);
                let mut a = CommandAssessor::new(program).args(args).timeout(limit);
                if let Some(bytes) = max_output_bytes {
                    a = a.max_output(*bytes);
                }
                Ok(Some(ConfiguredAssessor::Command(Guarded::new(
                    a,
                    limit + GUARD_GRACE,
                ))))
            }
            AssessorConfig::Agent {
                base_url,
                model,
                api_key_env,
                timeout_ms,
            } => self.agent(
                base_url,
                model,
                api_key_env.as_deref(),
                timeout(*timeout_ms, DEFAULT_AGENT_TIMEOUT),
            ),
        }
    }

    #[cfg(feature = "openai")]
    fn agent(
        &self,
        base_url: &str,
        model: &str,
        api_key_env: Option<&str>,
        limit: Duration,
    ) -> Result<Option<ConfiguredAssessor>, ConfigError> {
        use crate::assess::{AgentAssessor, OpenAiChat};
        let mut chat = OpenAiChat::new(base_url, model).timeout(limit);
        if let Some(name) = api_key_env {
            chat = chat.api_key_env(name);
        }
        Ok(Some(ConfiguredAssessor::Agent(Guarded::new(
            AgentAssessor::new(chat),
            limit,
        ))))
    }

    #[cfg(not(feature = "openai"))]
    fn agent(
        &self,
        _base_url: &str,
        _model: &str,
        _api_key_env: Option<&str>,
        _limit: Duration,
    ) -> Result<Option<ConfiguredAssessor>, ConfigError> {
        Err(self.assessor_error(
            "an assessor of kind `agent` needs cmdguard built with the `openai` feature; \
             rebuild with `--features openai`, or use kind = \"command\"",
        ))
    }

    /// The policy's settings: `auto_confirm` and `state_file` as the layers merged them.
    pub fn policy_settings(&self) -> PolicySettings {
        PolicySettings {
            auto_confirm: self.auto_confirm.value,
            state_file: self.state_file.as_ref().map(|s| s.value.clone()),
        }
    }

    /// The confirmation policy this configuration describes: its settings, with the
    /// configured assessor (see [`Config::build_assessor`]). A state file that cannot be read
    /// is not an error here: the policy reports it through [`Policy::state_error`] and starts
    /// with no grants.
    pub fn policy(&self) -> Result<Policy, ConfigError> {
        let policy = Policy::new(self.policy_settings());
        Ok(match self.build_assessor()? {
            Some(a) => policy.with_assessor(a),
            None => policy,
        })
    }

    /// Analyses `command` with this configuration — the merged allowlist, then the command
    /// rules ([`Config::analyze`]) — and lets `policy` decide it. Use this rather than
    /// [`Policy::check`] with `config.analyzer`, which would leave the command rules out.
    pub fn check(&self, policy: &Policy, command: &str, confirm: &mut dyn Confirm) -> Decided {
        policy.check_by(command, None, || self.analyze(command), confirm)
    }

    /// [`Config::check`] for a command that runs in `dir`, the assessor seeing the working
    /// directory.
    pub fn check_in(
        &self,
        policy: &Policy,
        command: &str,
        dir: &Workdir,
        confirm: &mut dyn Confirm,
    ) -> Decided {
        policy.check_by(
            command,
            Some(dir),
            || self.analyze_in(command, dir),
            confirm,
        )
    }

    /// An error at the `[assessor]` table, wherever the winning layer wrote it.
    fn assessor_error(&self, message: &str) -> ConfigError {
        let at = match &self.assessor.origin {
            RuleOrigin::File { path, line } => Location {
                origin: path.clone(),
                line: *line,
                column: 0,
            },
            RuleOrigin::BuiltIn => Location {
                origin: "<built-in>".to_string(),
                line: 0,
                column: 0,
            },
        };
        ConfigError::at(at, Some("assessor.kind"), message.to_string())
    }
}

#[cfg(all(test, not(feature = "openai")))]
mod tests {
    use crate::config::{AssessorConfig, Config, Setting};
    use crate::finding::RuleOrigin;

    /// Without the `openai` feature an agent assessor is a config error at the file and line
    /// that chose it, never a policy that silently has no assessor.
    #[test]
    fn an_agent_assessor_without_the_openai_feature_is_a_config_error() {
        let mut config: Config = crate::config::ConfigSources::default().load().unwrap();
        config.assessor = Setting {
            value: AssessorConfig::Agent {
                base_url: "http://127.0.0.1:9/v1".into(),
                model: "m".into(),
                api_key_env: None,
                timeout_ms: None,
            },
            origin: RuleOrigin::File {
                path: "/etc/cmdguard/config.toml".into(),
                line: 3,
            },
        };
        let e = config.policy().unwrap_err();
        assert_eq!(
            (e.origin.as_str(), e.line),
            ("/etc/cmdguard/config.toml", 3)
        );
        assert_eq!(e.key.as_deref(), Some("assessor.kind"));
        assert!(e.message.contains("`openai` feature"), "{e}");
    }
}

//! integrations/hook: `cmdguard hook <agent>` — reads the tool call an agent is about to make
//! from stdin, decides a shell command with the layered configuration and the confirmation
//! policy (working in the payload's `cwd`, so that directory's project config and repository
//! are the ones checked), and answers in the agent's own hook format. Other tools pass through.
//!
//! It never fails open. Every agent here runs the tool when a hook crashes, times out or exits
//! with a status other than 0 or 2, so a payload that cannot be read (too large, not UTF-8,
//! not JSON, a duplicate key, a missing field), a config that does not load, a panic, a
//! decision that outlives `--timeout` and a checking process that dies (the decision runs in a
//! worker process: see `isolate`) all still produce an explicit answer: `ask` where the
//! agent can ask (Claude Code), `deny` otherwise or with `--on-error deny`, exit 0; when even
//! that answer cannot be written, exit 2 with the reason on stderr. What each agent's format
//! looks like, and where it was verified, is in the agent's module.
//!
//! `CMDGUARD_BYPASS` is the emergency switch: `1` turns `ask` into `allow` (with a warning in
//! the answer and in the audit log); a `deny` stays `deny` unless it is `deny`, which lets
//! denied commands through too. A payload cmdguard cannot read is never bypassed.

mod claude;
mod codex;
mod gemini;
mod isolate;
pub mod payload;

use std::ffi::OsString;
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use self::payload::Call;
use super::audit::{self, AUDIT_ENV, AuditRecord};
use crate::config::{AssessorConfig, Config, ConfigSources, Env};
use crate::policy::{Choice, ChoiceOutcome, Outcome, Prompt, Route, Source};
use crate::{Analysis, Verdict, Workdir};

/// The environment variable of the emergency switch.
pub const BYPASS_ENV: &str = "CMDGUARD_BYPASS";

/// Claude Code's permission modes (the payload's `permission_mode`) in which a command only an
/// imported allow rule covers is left to Claude Code ([`Answer::Deferred`]): in each, Claude
/// Code applies its own permission rules and asks for what they do not allow. Any other mode,
/// or none given, gets cmdguard's `ask`.
pub const DEFERS_IN_MODES: &[&str] = &[
    // Rules apply; anything they do not allow is asked about.
    "default",
    // Rules apply; only file edits and file-system commands in the project are taken
    // unasked, and those programs are in cmdguard's allowlist, so no imported rule covers them.
    "acceptEdits",
    // Read-only planning: rules apply, nothing runs unasked that they do not allow.
    "plan",
    // Rules apply; what they do not allow is refused, not asked.
    "dontAsk",
    // `bypassPermissions` is not here: it runs everything unasked.
];

/// The agents whose hook formats cmdguard speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum Agent {
    /// Claude Code's `PreToolUse` hook on the `Bash` tool.
    #[value(name = "claude-code")]
    ClaudeCode,
    /// Gemini CLI's `BeforeTool` hook on the `run_shell_command` tool.
    Gemini,
    /// Codex's `PreToolUse` hook on the `Bash` tool.
    Codex,
}

impl Agent {
    /// The name on the command line (`claude-code`, `gemini`, `codex`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
        }
    }

    /// The agent's shell tool, as its payload names it.
    pub fn shell_tool(self) -> &'static str {
        match self {
            Agent::ClaudeCode | Agent::Codex => "Bash",
            Agent::Gemini => "run_shell_command",
        }
    }

    /// The hook event cmdguard is registered for.
    pub fn event(self) -> &'static str {
        match self {
            Agent::ClaudeCode | Agent::Codex => "PreToolUse",
            Agent::Gemini => "BeforeTool",
        }
    }

    /// True when the agent's hook can answer "ask the person" (only Claude Code's can: Codex
    /// rejects `permissionDecision: "ask"` and runs the tool; Gemini CLI's hook decides only
    /// allow or deny).
    pub fn can_ask(self) -> bool {
        match self {
            Agent::ClaudeCode => true,
            Agent::Gemini | Agent::Codex => false,
        }
    }

    fn render(self, answer: &Answer) -> Rendered {
        match self {
            Agent::ClaudeCode => claude::render(answer),
            Agent::Gemini => gemini::render(answer),
            Agent::Codex => codex::render(answer),
        }
    }
}

/// What an `ask`, or a failure, becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AskAs {
    /// The agent asks the person (Claude Code only).
    Ask,
    /// The tool call is refused, with the reason.
    Deny,
}

/// `cmdguard hook <agent>`: one payload on stdin, one answer on stdout.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent whose hook format to read and write.
    pub agent: Agent,
    /// What a command the policy would ask a person about becomes. Gemini CLI and Codex cannot
    /// ask, so for them it is always deny [default: ask for claude-code].
    #[arg(long, value_enum, value_name = "ask|deny")]
    pub ask_as: Option<AskAs>,
    /// What a payload that cannot be read, a config that does not load, an internal error or
    /// a timeout becomes [default: as --ask-as].
    #[arg(long, value_enum, value_name = "ask|deny")]
    pub on_error: Option<AskAs>,
    /// Seconds the whole decision may take (keep it below the agent's hook timeout); past it,
    /// the answer is the --on-error one.
    #[arg(long, default_value_t = 45, value_name = "SECS")]
    pub timeout: u64,
    /// Caps the checking process's address space at this many MiB (0: no cap). Past it the
    /// check ends as an --on-error answer. The cap reaches an assessor command the check starts,
    /// so leave room for it (a Node.js CLI reserves far more address space than it uses).
    #[arg(long, default_value_t = 0, value_name = "MIB")]
    pub max_memory: u64,
    /// Internal: this process is the worker a supervising `cmdguard hook` started.
    #[arg(long, hide = true)]
    pub worker: bool,
}

/// What the hook answers, before the agent's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Not a shell command: no opinion; the agent's own permission flow decides.
    PassThrough,
    /// Claude Code only: no decision, so Claude Code's own permissions decide. The command
    /// asks in cmdguard, and what makes it ask is covered by an allow rule imported from Claude
    /// Code's settings — rules Claude Code applies itself. cmdguard never says `allow` for it.
    Deferred {
        /// Why, for the audit log.
        reason: String,
    },
    /// A verdict and the reason a person reads.
    Decided {
        /// allow, ask or deny (an agent that cannot ask never gets ask).
        verdict: Verdict,
        /// The findings in a line or two.
        reason: String,
        /// Shown to the user besides the answer (the bypass warning).
        warning: Option<String>,
    },
}

/// An answer in an agent's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// What to print on stdout (may be empty).
    pub stdout: String,
    /// The exit status.
    pub code: i32,
}

/// How far `CMDGUARD_BYPASS` reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bypass {
    /// Unset: no bypass.
    Off,
    /// `CMDGUARD_BYPASS=1`: asks become allows.
    Asks,
    /// `CMDGUARD_BYPASS=deny`: denies become allows too.
    Denies,
}

impl Bypass {
    /// The switch's value read: `1` (or `true`, `yes`, `ask`) and `deny`; anything else is off.
    pub fn from_value(value: Option<&std::ffi::OsStr>) -> Bypass {
        match value.and_then(|v| v.to_str()) {
            Some("1" | "true" | "yes" | "ask") => Bypass::Asks,
            Some("deny") => Bypass::Denies,
            _ => Bypass::Off,
        }
    }
}

/// What the hook reads from its environment, apart from the payload: given by hand in tests.
#[derive(Debug, Clone)]
pub struct HookEnv {
    /// Where config files are looked for (the payload's `cwd` replaces its working directory).
    pub env: Env,
    /// `CMDGUARD_BYPASS`.
    pub bypass: Bypass,
    /// `CMDGUARD_AUDIT_LOG`.
    pub audit_log: Option<OsString>,
}

impl HookEnv {
    /// This process's environment.
    pub fn process() -> HookEnv {
        HookEnv {
            env: Env::process(),
            bypass: Bypass::from_value(std::env::var_os(BYPASS_ENV).as_deref()),
            audit_log: std::env::var_os(AUDIT_ENV),
        }
    }
}

/// A decision and its audit record.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The answer.
    pub answer: Answer,
    /// The line for the audit log (`None` for a pass-through), and the log it goes to.
    pub audit: Option<(AuditRecord, Option<PathBuf>)>,
}

/// Runs `cmdguard hook` on this process's stdin and stdout; returns the exit status.
///
/// The decision runs in a worker process (see `isolate`), so even a crash that kills it is
/// answered; without a worker it runs here.
pub fn run(args: &HookArgs) -> i32 {
    let why = if args.worker {
        match isolate::limit_memory(args.max_memory) {
            Ok(()) => return decide_here(args),
            Err(why) => why,
        }
    } else {
        match isolate::supervise(args) {
            Some(isolate::Outcome::Answered { stdout, code }) => {
                return forward(args.agent, &stdout, code);
            }
            Some(isolate::Outcome::Failed(why)) => why,
            None => return decide_here(args),
        }
    };
    // The one place a worker that could not decide is answered: as --on-error says.
    let on_error = settle(args.agent, args.on_error.or(args.ask_as));
    let env = HookEnv::process();
    finish(
        args.agent,
        failure(args.agent, on_error, &why, None, failure_log(&env)),
    )
}

/// Passes the worker's answer on; when stdout cannot take it, a non-allow still blocks.
fn forward(agent: Agent, stdout: &[u8], code: i32) -> i32 {
    let out = io::stdout();
    let mut out = out.lock();
    match out.write_all(stdout).and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(e) => {
            eprintln!(
                "cmdguard could not write its {} hook answer: {e}",
                agent_title(agent)
            );
            2
        }
    }
}

/// Decides in this process: a worker thread, bounded by `--timeout`, with panics caught.
fn decide_here(args: &HookArgs) -> i32 {
    let agent = args.agent;
    let ask_as = settle(agent, args.ask_as);
    let on_error = settle(agent, args.on_error.or(args.ask_as));
    let env = HookEnv::process();
    let (tx, rx) = mpsc::channel();
    let worker_env = env.clone();
    // The decision runs on a worker so a hung read, config or assessor still gets an answer
    // here; `main` exits the process, worker and all, once the answer is written.
    let spawned = std::thread::Builder::new()
        .name("cmdguard-hook".into())
        .spawn(move || {
            let judged = catch_unwind(AssertUnwindSafe(|| {
                let bytes = payload::read_bounded(io::stdin().lock());
                judge(agent, ask_as, on_error, bytes, &worker_env)
            }))
            .unwrap_or_else(|_| {
                failure(
                    agent,
                    on_error,
                    "cmdguard hit an internal error (a panic)",
                    None,
                    failure_log(&worker_env),
                )
            });
            let _ = tx.send(judged);
        });
    let judged = match spawned {
        Err(e) => failure(
            agent,
            on_error,
            &format!("cmdguard could not start its worker: {e}"),
            None,
            audit_path(&env, None),
        ),
        Ok(_) => match rx.recv_timeout(Duration::from_secs(args.timeout)) {
            Ok(j) => j,
            Err(_) => failure(
                agent,
                on_error,
                &format!(
                    "cmdguard did not decide within {} s (--timeout)",
                    args.timeout
                ),
                None,
                // Only the variable: reading config files here could hang past the deadline.
                audit_path(&env, None),
            ),
        },
    };
    finish(agent, judged)
}

/// Appends the audit record and writes the answer.
fn finish(agent: Agent, judged: Judged) -> i32 {
    if let Some((record, Some(path))) = &judged.audit
        && let Err(e) = audit::append(path, record)
    {
        eprintln!(
            "cmdguard: cannot append to the audit log {}: {e}",
            path.display()
        );
    }
    emit(agent, &judged.answer)
}

/// Writes the answer; when stdout cannot take it, a refusal still reaches the agent as exit 2.
fn emit(agent: Agent, answer: &Answer) -> i32 {
    let rendered = agent.render(answer);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = out
        .write_all(rendered.stdout.as_bytes())
        .and_then(|()| out.flush());
    match (written, answer) {
        (Ok(()), _) => rendered.code,
        (Err(_), Answer::PassThrough | Answer::Deferred { .. }) => rendered.code,
        (
            Err(e),
            Answer::Decided {
                verdict, reason, ..
            },
        ) => {
            if *verdict == Verdict::Allow {
                return rendered.code;
            }
            eprintln!("{reason} (cmdguard could not write its answer: {e})");
            2
        }
    }
}

/// `--ask-as` for `agent`: an agent that cannot ask gets deny.
fn settle(agent: Agent, wanted: Option<AskAs>) -> AskAs {
    match (agent.can_ask(), wanted) {
        (true, Some(w)) => w,
        (true, None) => AskAs::Ask,
        (false, _) => AskAs::Deny,
    }
}

/// Decides one payload (or the error reading it).
pub fn judge(
    agent: Agent,
    ask_as: AskAs,
    on_error: AskAs,
    bytes: Result<Vec<u8>, String>,
    env: &HookEnv,
) -> Judged {
    let call = match bytes.and_then(|b| payload::parse(agent, &b)) {
        Ok(c) => c,
        Err(why) => return failure(agent, on_error, &why, None, failure_log(env)),
    };
    let (command, cwd, session, permission_mode) = match call {
        Call::Other { .. } => {
            return Judged {
                answer: Answer::PassThrough,
                audit: None,
            };
        }
        Call::Shell {
            command,
            cwd,
            session,
            permission_mode,
        } => (command, cwd, session, permission_mode),
    };
    let in_dir = env.env.clone().in_dir(&cwd);
    let config = match ConfigSources::discover(&in_dir).load() {
        Ok(c) => c,
        Err(e) => {
            let why = format!("its config does not load: {e}");
            return failure(agent, on_error, &why, Some(&cwd), failure_log(env));
        }
    };
    let policy = match config.policy() {
        Ok(p) => p,
        Err(e) => {
            let why = format!("its assessor cannot be built: {e}");
            let log = audit_path(env, Some(&config));
            return failure(agent, on_error, &why, Some(&cwd), log);
        }
    };
    let workdir = Workdir::from_env().map_or_else(|_| Workdir::new(&cwd), |w| w.in_dir(&cwd));
    let mut analysis = None;
    // The agent asks the person, not cmdguard: a prompt is answered "no" here and becomes the
    // agent's `ask`.
    let mut defer = |_: &Prompt| ChoiceOutcome::user(Choice::No);
    let decided = policy.check_by(
        &command,
        Some(&workdir),
        || {
            let a = config.analyze_in(&command, &workdir);
            analysis = Some(a.clone());
            a
        },
        &mut defer,
    );
    let analysis = analysis.unwrap_or_else(|| config.analyze_in(&command, &workdir));
    let prompt = decided.record.prompt.as_ref().map(|p| p.answer.source);
    let policy_verdict = match (&decided.outcome, decided.record.route, prompt) {
        (Outcome::Run, _, _) => Verdict::Allow,
        (Outcome::Refused { .. }, Route::Prompt, Some(Source::User)) => Verdict::Ask,
        (Outcome::Refused { .. }, _, _) => Verdict::Deny,
    };
    // "No assessor configured" is the default, not a reason worth reading.
    let assessor_reason = match config.assessor.value {
        AssessorConfig::None => None,
        AssessorConfig::Command { .. } | AssessorConfig::Agent { .. } => decided
            .record
            .assessment
            .as_ref()
            .and_then(|a| a.reason.clone()),
    };
    let mut reason = explain(
        &analysis,
        policy_verdict,
        decided.record.route,
        assessor_reason,
    );
    let mut verdict = policy_verdict;
    let mut warning = None;
    let mut bypassed = None;
    // The bypass reads the policy's own verdict: an `ask` an agent cannot ask about is still
    // an `ask` to CMDGUARD_BYPASS=1.
    let reach = match verdict {
        Verdict::Allow => None,
        Verdict::Ask => Some(Bypass::Asks),
        Verdict::Deny => Some(Bypass::Denies),
    };
    if let Some(needed) = reach
        && env.bypass >= needed
    {
        let was = verdict;
        let text = format!(
            "{BYPASS_ENV} is set: cmdguard let through what it would have answered `{was}`: {reason}"
        );
        bypassed = Some(format!("{was}: {reason}"));
        eprintln!("cmdguard: warning: {text}");
        warning = Some(format!("cmdguard warning: {text}"));
        verdict = Verdict::Allow;
        reason = text;
    }
    if verdict == Verdict::Ask && ask_as == AskAs::Deny {
        verdict = Verdict::Deny;
        if !agent.can_ask() {
            reason = format!(
                "{reason} — {} hooks cannot ask a person, so cmdguard refuses it: run it yourself if it is fine, or allow it in cmdguard's config",
                agent_title(agent)
            );
        }
    }
    let mut deferred = None;
    if verdict == Verdict::Ask && ask_as == AskAs::Ask && agent == Agent::ClaudeCode {
        let rules = config.defers_to_claude(&analysis).map(|rules| {
            let names: Vec<String> = rules
                .iter()
                .map(|r| format!("`Bash({})`", r.text))
                .collect();
            names.join(", ")
        });
        match (rules, permission_mode.as_deref()) {
            (Some(rules), _) if !config.claude_defer => {
                reason = format!(
                    "{reason} — Claude Code's rule {rules} covers it, but cmdguard did not see through it, so it asks (`[claude] defer_allow_rules = true` in your cmdguard config leaves such commands to Claude Code's permissions)"
                );
            }
            (Some(rules), Some(mode)) if DEFERS_IN_MODES.contains(&mode) => {
                deferred = Some(format!(
                    "left to Claude Code's permissions (permission mode `{mode}`): only its own rule {rules} covers what cmdguard asks about: {reason}"
                ));
            }
            (Some(_), mode) => {
                reason = format!(
                    "{reason} — not left to Claude Code: in permission mode `{}` it would not apply its own rules",
                    mode.unwrap_or("(none given)")
                );
            }
            (None, _) => {}
        }
    }
    let mut record = AuditRecord::now(agent.name(), verdict);
    record.cwd = Some(cwd.display().to_string());
    record.command = Some(command);
    record.analysis_verdict = Some(analysis.verdict);
    record.codes = analysis
        .findings
        .iter()
        .map(|f| f.code.as_str().to_string())
        .collect();
    record.rules = rule_ids(&analysis);
    record.route = Some(route_name(decided.record.route).to_string());
    record.assessment = decided
        .record
        .assessment
        .as_ref()
        .and_then(|a| serde_json::to_value(a).ok());
    record.prompt = decided
        .record
        .prompt
        .as_ref()
        .map(|p| match p.answer.source {
            Source::User => "deferred to the agent".to_string(),
            Source::Auto => format!(
                "auto-confirm: {}",
                if p.answer.choice.runs() { "yes" } else { "no" }
            ),
        });
    record.bypass = bypassed;
    record.session = session;
    let path = audit_path(env, Some(&config));
    let answer = match deferred {
        Some(reason) => {
            record.prompt = Some(reason.clone());
            Answer::Deferred { reason }
        }
        None => Answer::Decided {
            verdict,
            reason,
            warning,
        },
    };
    Judged {
        answer,
        audit: Some((record, path)),
    }
}

/// The fail-closed answer for a call cmdguard could not check, and its audit record.
fn failure(
    agent: Agent,
    on_error: AskAs,
    why: &str,
    cwd: Option<&Path>,
    audit_log: Option<PathBuf>,
) -> Judged {
    let verdict = match settle(agent, Some(on_error)) {
        AskAs::Ask => Verdict::Ask,
        AskAs::Deny => Verdict::Deny,
    };
    let mut record = AuditRecord::now(agent.name(), verdict);
    record.cwd = cwd.map(|c| c.display().to_string());
    record.error = Some(why.to_string());
    Judged {
        answer: Answer::Decided {
            verdict,
            reason: format!("cmdguard could not check this command: {why}"),
            warning: None,
        },
        audit: Some((record, audit_log)),
    }
}

/// The audit log for a failure on the worker: `CMDGUARD_AUDIT_LOG`, else the user's config
/// (read from the hook's own directory, since the payload's may be unknown).
fn failure_log(env: &HookEnv) -> Option<PathBuf> {
    audit_path(env, None).or_else(|| audit::path_from_files(&ConfigSources::discover(&env.env)))
}

/// `CMDGUARD_AUDIT_LOG`, else the config's `audit_log`.
fn audit_path(env: &HookEnv, config: Option<&Config>) -> Option<PathBuf> {
    match env.audit_log.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => Some(PathBuf::from(v)),
        None => config.and_then(|c| c.audit_log.as_ref().map(|s| s.value.clone())),
    }
}

fn agent_title(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => "Claude Code",
        Agent::Gemini => "Gemini CLI",
        Agent::Codex => "Codex",
    }
}

fn route_name(route: Route) -> &'static str {
    match route {
        Route::AnalyserAllow => "analyser_allow",
        Route::AnalyserDeny => "analyser_deny",
        Route::Grant => "grant",
        Route::AssessorAllow => "assessor_allow",
        Route::Prompt => "prompt",
    }
}

/// The most findings named in a reason; the rest are counted.
const SHOWN_FINDINGS: usize = 2;
/// The most characters of one finding's message in a reason.
const MESSAGE_CHARS: usize = 160;

/// The reason a person reads: the verdict's findings in a line or two.
fn explain(a: &Analysis, verdict: Verdict, route: Route, assessor: Option<String>) -> String {
    let lead = match (verdict, route) {
        (Verdict::Allow, Route::AnalyserAllow) => {
            return "cmdguard: allowed — every program it runs is allowlisted".to_string();
        }
        (Verdict::Allow, Route::Grant) => {
            return "cmdguard: allowed — a granted command prefix covers it".to_string();
        }
        (Verdict::Allow, Route::AssessorAllow) => {
            let why = assessor.as_deref().unwrap_or("no reason given");
            return format!("cmdguard: allowed by the risk assessor ({})", clip(why));
        }
        (Verdict::Allow, Route::Prompt | Route::AnalyserDeny) => {
            return "cmdguard: allowed — auto-confirm took the prompt's default".to_string();
        }
        (Verdict::Ask, _) => "cmdguard asks",
        (Verdict::Deny, _) => "cmdguard denies",
    };
    let wanted = match verdict {
        Verdict::Deny if route == Route::AnalyserDeny => Verdict::Deny,
        Verdict::Allow | Verdict::Ask | Verdict::Deny => Verdict::Ask,
    };
    let shown: Vec<_> = a.findings.iter().filter(|f| f.severity >= wanted).collect();
    let mut parts: Vec<String> = shown
        .iter()
        .take(SHOWN_FINDINGS)
        .map(|f| {
            // Deny messages already name their rule.
            let rule = f
                .rule
                .as_deref()
                .filter(|r| !f.message.contains(r))
                .map_or_else(String::new, |r| format!(", rule `{r}`"));
            format!("{} [{}{rule}]", clip(&f.message), f.code)
        })
        .collect();
    if shown.len() > SHOWN_FINDINGS {
        parts.push(format!("and {} more", shown.len() - SHOWN_FINDINGS));
    }
    let mut text = if parts.is_empty() {
        format!("{lead}: `{}`", clip(&a.cmd))
    } else {
        format!("{lead}: {}", parts.join("; "))
    };
    if let Some(why) = assessor {
        text.push_str(&format!(" (risk assessment: {})", clip(&why)));
    }
    text
}

fn clip(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > MESSAGE_CHARS {
        flat.chars()
            .take(MESSAGE_CHARS - 1)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        flat
    }
}

/// The rules that matched segments or produced findings, first use first.
fn rule_ids(a: &Analysis) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let matched = a
        .segments
        .iter()
        .filter_map(|s| s.matched.as_ref().map(|m| m.rule().id.clone()));
    let found = a.findings.iter().filter_map(|f| f.rule.clone());
    for id in matched.chain(found) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

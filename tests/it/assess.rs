//! Risk assessors: the combinators, the guards (errors, panics, timeouts), the async variant,
//! `CommandAssessor` against real child processes, `AgentAssessor` with scripted models and its
//! confined tools, and (feature `openai`) the chat-completions client against an HTTP stub on
//! loopback.

use std::collections::VecDeque;
use std::fs;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use cmdguard::assess::{
    AgentAssessor, AgentLimits, AssessRequest, Assessment, AsyncAgentAssessor, AsyncChatModel,
    AsyncGuarded, AsyncRiskAssessor, ChatMessage, ChatModel, CommandAssessor, Confinement,
    Decision, Fallible, FirstDecisive, Guarded, Inline, ModelError, OwnedRequest, RiskAssessor,
    Role, SYSTEM_PROMPT, Strictest, ToolCall, UnsureKind, assessor_tools,
};
use cmdguard::tool::{AgentHandle, BoxFuture, ToolBox};
use cmdguard::{Analysis, Analyzer};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers

fn analysis(command: &str) -> Analysis {
    // One analyser for the whole module: building one compiles the allowlist.
    static ANALYZER: std::sync::OnceLock<Analyzer> = std::sync::OnceLock::new();
    ANALYZER.get_or_init(Analyzer::default).analyze(command)
}

/// A fixed answer, as an assessor.
fn answering(answer: Assessment) -> impl RiskAssessor + 'static {
    move |_: &AssessRequest<'_>| answer.clone()
}

fn assess(assessor: &dyn RiskAssessor, command: &str) -> Assessment {
    let analysis = analysis(command);
    assessor.assess(&AssessRequest::new(command, &analysis))
}

fn unable(reason: &str) -> Assessment {
    Assessment::unable(reason)
}

/// A directory of its own under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cmdguard-assess-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(fs::canonicalize(&dir).unwrap())
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Drives a future on this thread, parking until it is woken: the smallest real executor.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            Poll::Pending => thread::park(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Combinators

#[test]
fn first_decisive_answer_wins() {
    let allow = Assessment::allow("a");
    let reject = Assessment::reject("r");
    let other = Assessment::unsure_other("o");
    let modify = Assessment::unsure(UnsureKind::ModifyExistingFiles, "m");
    let cases: Vec<(Vec<Assessment>, Assessment)> = vec![
        (vec![allow.clone(), reject.clone()], allow.clone()),
        (vec![reject.clone(), allow.clone()], reject.clone()),
        (vec![other.clone(), allow.clone()], allow.clone()),
        (
            vec![other.clone(), modify.clone(), reject.clone()],
            reject.clone(),
        ),
        (vec![other.clone(), modify.clone()], other.clone()),
        (vec![modify.clone(), other.clone()], modify.clone()),
        (vec![], unable("no assessor is configured")),
    ];
    for (answers, expected) in cases {
        let combined = answers
            .iter()
            .cloned()
            .fold(FirstDecisive::new(), |combined, answer| {
                combined.or(answering(answer))
            });
        assert_eq!(assess(&combined, "make"), expected, "{answers:?}");
    }
}

#[test]
fn first_decisive_stops_asking_after_a_decisive_answer() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let counting = move |_: &AssessRequest<'_>| {
        counter.fetch_add(1, Ordering::SeqCst);
        Assessment::allow("counted")
    };
    let combined = FirstDecisive::new()
        .or(answering(Assessment::reject("first")))
        .or(counting);
    assert_eq!(assess(&combined, "make"), Assessment::reject("first"));
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[test]
fn strictest_answer_wins() {
    let allow = Assessment::allow("a");
    let reject = Assessment::reject("r");
    let other = Assessment::unsure_other("o");
    let modify = Assessment::unsure(UnsureKind::ModifyExistingFiles, "m");
    let system = Assessment::unsure(UnsureKind::ChangeSystemStatus, "s");
    let install = Assessment::unsure(UnsureKind::InstallPackageOutsideAllowedPaths, "i");
    let failed = unable("f");
    let cases: Vec<(Vec<Assessment>, Assessment)> = vec![
        (vec![allow.clone(), allow.clone()], allow.clone()),
        (vec![allow.clone(), other.clone()], other.clone()),
        (
            vec![other.clone(), reject.clone(), allow.clone()],
            reject.clone(),
        ),
        (
            vec![reject.clone(), Assessment::reject("later")],
            reject.clone(),
        ),
        // Among unsure answers, the kind that calls for a person most.
        (vec![failed.clone(), other.clone()], other.clone()),
        (vec![other.clone(), modify.clone()], modify.clone()),
        (
            vec![modify.clone(), system.clone(), install.clone()],
            system.clone(),
        ),
        (vec![install.clone(), system.clone()], install.clone()),
        (vec![allow.clone(), failed.clone()], failed.clone()),
        (vec![], unable("no assessor is configured")),
    ];
    for (answers, expected) in cases {
        let combined = answers
            .iter()
            .cloned()
            .fold(Strictest::new(), |combined, answer| {
                combined.and(answering(answer))
            });
        assert_eq!(assess(&combined, "make"), expected, "{answers:?}");
    }
}

#[test]
fn unsure_kinds_serialise_in_snake_case() {
    let kinds = [
        UnsureKind::InstallPackageOutsideAllowedPaths,
        UnsureKind::ChangeSystemStatus,
        UnsureKind::ModifyExistingFiles,
        UnsureKind::UnableToAssess,
        UnsureKind::Other,
    ];
    let names: Vec<Value> = kinds.iter().map(|kind| json!(kind)).collect();
    assert_eq!(
        names,
        [
            "install_package_outside_allowed_paths",
            "change_system_status",
            "modify_existing_files",
            "unable_to_assess",
            "other"
        ]
    );
    for kind in kinds {
        assert_eq!(json!(kind), json!(kind.as_str()));
    }
}

#[test]
fn an_owned_request_lends_the_same_view() {
    let analysis = analysis("npm install");
    let allowed = [Path::new("/tmp"), Path::new("/var/tmp")];
    let request = AssessRequest::new("npm install", &analysis)
        .in_dir(Path::new("/work"))
        .with_allowed_paths(&allowed);
    let owned = OwnedRequest::from_request(&request);
    owned.with_request(|view| {
        assert_eq!(view.command, "npm install");
        assert_eq!(view.analysis.verdict, analysis.verdict);
        assert_eq!(view.cwd, Some(Path::new("/work")));
        assert_eq!(view.allowed_paths, &allowed);
    });
}

// ---------------------------------------------------------------------------------------------
// Guards

#[test]
fn an_error_is_unable_to_assess() {
    let failing = Fallible(|_: &AssessRequest<'_>| Err::<Assessment, _>("quota exceeded"));
    assert_eq!(
        assess(&failing, "make"),
        unable("assessor failed: quota exceeded")
    );
    let fine = Fallible(|_: &AssessRequest<'_>| Ok::<_, String>(Assessment::allow("ok")));
    assert_eq!(assess(&fine, "make"), Assessment::allow("ok"));
}

#[test]
fn a_panic_is_unable_to_assess() {
    let panicking = |_: &AssessRequest<'_>| -> Assessment { panic!("model exploded") };
    let guarded = Guarded::new(panicking, Duration::from_secs(10));
    assert_eq!(
        assess(&guarded, "make"),
        unable("assessor panicked: model exploded")
    );
}

#[test]
fn a_slow_assessor_is_unable_to_assess_after_its_timeout() {
    let slow = |_: &AssessRequest<'_>| {
        thread::sleep(Duration::from_secs(3));
        Assessment::allow("too late")
    };
    let guarded = Guarded::new(slow, Duration::from_millis(100));
    let started = Instant::now();
    assert_eq!(
        assess(&guarded, "make"),
        unable("assessor timed out after 100 ms")
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_guard_passes_answers_through_and_sees_the_whole_request() {
    let seen = |request: &AssessRequest<'_>| {
        Assessment::allow(format!(
            "{} in {:?} with {:?}, {} segment(s)",
            request.command,
            request.cwd,
            request.allowed_paths,
            request.analysis.segments.len()
        ))
    };
    let guarded = Guarded::new(seen, Duration::from_secs(10));
    let analysis = analysis("make && make install");
    let allowed = [Path::new("/opt/out")];
    let request = AssessRequest::new("make && make install", &analysis)
        .in_dir(Path::new("/src"))
        .with_allowed_paths(&allowed);
    assert_eq!(
        guarded.assess(&request),
        Assessment::allow(
            "make && make install in Some(\"/src\") with [\"/opt/out\"], 2 segment(s)"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Async

/// Pending forever, waking nobody.
struct Never;

impl Future for Never {
    type Output = Assessment;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Assessment> {
        Poll::Pending
    }
}

struct NeverAnswers;

impl AsyncRiskAssessor for NeverAnswers {
    fn assess_async<'a>(&'a self, _: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
        Box::pin(Never)
    }
}

struct PanicsWhenPolled;

impl AsyncRiskAssessor for PanicsWhenPolled {
    fn assess_async<'a>(&'a self, _: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
        Box::pin(async { panic!("poll exploded") })
    }
}

/// Answers after a timer thread wakes it: a future that really is pending for a while.
struct AnswersAfter(Duration);

impl AsyncRiskAssessor for AnswersAfter {
    fn assess_async<'a>(&'a self, request: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
        let delay = self.0;
        Box::pin(async move {
            Sleep::new(delay).await;
            Assessment::allow(format!("{} is fine", request.command))
        })
    }
}

/// A runtime-free sleep: a thread wakes the task at the deadline.
struct Sleep {
    deadline: Instant,
    started: bool,
}

impl Sleep {
    fn new(delay: Duration) -> Sleep {
        Sleep {
            deadline: Instant::now() + delay,
            started: false,
        }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        if !self.started {
            self.started = true;
            let waker = cx.waker().clone();
            let deadline = self.deadline;
            thread::spawn(move || {
                thread::sleep(deadline.saturating_duration_since(Instant::now()));
                waker.wake();
            });
        }
        Poll::Pending
    }
}

#[test]
fn async_assessors_answer_through_any_executor() {
    let analysis = analysis("cargo build");
    let request = AssessRequest::new("cargo build", &analysis);
    let inline = Inline(answering(Assessment::allow("inline")));
    assert_eq!(
        block_on(inline.assess_async(&request)),
        Assessment::allow("inline")
    );
    let later = AsyncGuarded::new(
        AnswersAfter(Duration::from_millis(30)),
        Duration::from_secs(10),
    );
    assert_eq!(
        block_on(later.assess_async(&request)),
        Assessment::allow("cargo build is fine")
    );
}

#[test]
fn an_async_assessor_that_never_answers_times_out() {
    let analysis = analysis("cargo build");
    let request = AssessRequest::new("cargo build", &analysis);
    let guarded = AsyncGuarded::new(NeverAnswers, Duration::from_millis(100));
    let started = Instant::now();
    assert_eq!(
        block_on(guarded.assess_async(&request)),
        unable("assessor timed out after 100 ms")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let slow = AsyncGuarded::new(
        AnswersAfter(Duration::from_secs(3)),
        Duration::from_millis(50),
    );
    assert_eq!(
        block_on(slow.assess_async(&request)),
        unable("assessor timed out after 50 ms")
    );
}

#[test]
fn an_async_assessor_that_panics_is_unable_to_assess() {
    let analysis = analysis("cargo build");
    let request = AssessRequest::new("cargo build", &analysis);
    let guarded = AsyncGuarded::new(PanicsWhenPolled, Duration::from_secs(10));
    assert_eq!(
        block_on(guarded.assess_async(&request)),
        unable("assessor panicked: poll exploded")
    );
}

// ---------------------------------------------------------------------------------------------
// CommandAssessor: real child processes

/// An assessor running `interpreter script` with `body` as the script.
fn script(dir: &Scratch, interpreter: &str, body: &str) -> CommandAssessor {
    let path = dir.write("assessor-script", body);
    // Through the interpreter, not exec'd: executing a file just written is racy (ETXTBSY)
    // while other test threads fork.
    CommandAssessor::new(interpreter)
        .arg(path.to_string_lossy())
        .timeout(Duration::from_secs(20))
}

#[test]
fn the_program_gets_the_documented_request_on_stdin() {
    let dir = Scratch::new("stdin");
    let captured = dir.path().join("stdin.json");
    let assessor = script(
        &dir,
        "sh",
        &format!(
            "cat > '{}'\necho '{{\"decision\": \"allow\", \"reason\": \"only reads\"}}'\n",
            captured.display()
        ),
    );
    let analysis = analysis("npm install left-pad && ls");
    let allowed = [Path::new("/tmp/out")];
    let request = AssessRequest::new("npm install left-pad && ls", &analysis)
        .in_dir(Path::new("/home/me/project"))
        .with_allowed_paths(&allowed);
    assert_eq!(assessor.assess(&request), Assessment::allow("only reads"));
    let sent: Value = serde_json::from_slice(&fs::read(&captured).unwrap()).unwrap();
    assert_eq!(
        sent,
        json!({
            "version": 1,
            "command": "npm install left-pad && ls",
            "verdict": "ask",
            "findings": [{
                "code": "not_allowlisted",
                "message": "`npm` is not in the allowlist",
                "severity": "ask",
            }],
            "segments": [{"argv": ["npm", "install", "left-pad"]}, {"argv": ["ls"]}],
            "cwd": "/home/me/project",
            "allowed_paths": ["/tmp/out"],
        })
    );
}

#[test]
fn the_programs_answers_are_read_strictly() {
    let dir = Scratch::new("answers");
    let cases: &[(&str, Assessment)] = &[
        (
            r#"{"decision": "reject", "reason": "deletes /etc"}"#,
            Assessment::reject("deletes /etc"),
        ),
        (
            r#"{"decision": "unsure", "reason": "installs", "kind": "install_package_outside_allowed_paths"}"#,
            Assessment::unsure(UnsureKind::InstallPackageOutsideAllowedPaths, "installs"),
        ),
        (
            r#"{"decision": "unsure", "reason": "hm"}"#,
            Assessment::unsure(UnsureKind::Other, "hm"),
        ),
        (
            r#"{"decision": "allow", "kind": "other"}"#,
            Assessment {
                decision: Decision::Allow,
                reason: None,
                kind: None,
            },
        ),
        (
            r#"{"decision": "maybe"}"#,
            unable(
                "assessor answered something that is not a decision (unknown variant `maybe`, \
                 expected one of `allow`, `unsure`, `reject` at line 1 column 20): \
                 \"{\\\"decision\\\": \\\"maybe\\\"}\\n\"",
            ),
        ),
        (
            r#"{"decision": "unsure", "kind": "bored"}"#,
            unable(
                "assessor answered something that is not a decision (unknown variant `bored`, \
                 expected one of `install_package_outside_allowed_paths`, \
                 `change_system_status`, `modify_existing_files`, `unable_to_assess`, `other` \
                 at line 1 column 38): \"{\\\"decision\\\": \\\"unsure\\\", \\\"kind\\\": \
                 \\\"bored\\\"}\\n\"",
            ),
        ),
        (
            r#"{"decision": "allow", "confidence": 0.9}"#,
            unable(
                "assessor answered something that is not a decision (unknown field \
                 `confidence`, expected one of `decision`, `reason`, `kind` at line 1 column \
                 34): \"{\\\"decision\\\": \\\"allow\\\", \\\"confidence\\\": 0.9}\\n\"",
            ),
        ),
    ];
    for (printed, expected) in cases {
        let assessor = script(&dir, "sh", &format!("cat > /dev/null\necho '{printed}'\n"));
        assert_eq!(&assess(&assessor, "make"), expected, "{printed}");
    }
}

#[test]
fn arguments_reach_the_program_verbatim_without_a_shell() {
    let dir = Scratch::new("argv");
    let path = dir.write(
        "argv.py",
        "import json, sys\nsys.stdin.read()\nprint(json.dumps({'decision': 'reject', 'reason': '|'.join(sys.argv[1:])}))\n",
    );
    let assessor = CommandAssessor::new("python3")
        .arg(path.to_string_lossy())
        .args(["; rm -rf /", "$(id)", "a b"]);
    assert_eq!(
        assess(&assessor, "make"),
        Assessment::reject("; rm -rf /|$(id)|a b")
    );
}

#[test]
fn garbage_output_is_unable_to_assess() {
    let dir = Scratch::new("garbage");
    let assessor = script(&dir, "python3", "print('sure, go ahead!')\n");
    let answer = assess(&assessor, "make");
    assert_eq!(
        answer,
        unable(
            "assessor answered something that is not a decision (expected value at line 1 \
             column 1): \"sure, go ahead!\\n\""
        )
    );
    let empty = script(&dir, "sh", "exit 0\n");
    assert_eq!(
        assess(&empty, "make"),
        unable(
            "assessor answered something that is not a decision (EOF while parsing a value at \
             line 1 column 0): \"\""
        )
    );
}

#[test]
fn a_failed_exit_is_unable_to_assess_and_quotes_stderr() {
    let dir = Scratch::new("exit");
    let assessor = script(
        &dir,
        "sh",
        "echo 'policy file missing' >&2\necho '{\"decision\": \"allow\"}'\nexit 3\n",
    );
    assert_eq!(
        assess(&assessor, "make"),
        unable("assessor exited with exit status: 3: policy file missing")
    );
}

#[test]
fn a_program_that_cannot_start_is_unable_to_assess() {
    let assessor = CommandAssessor::new("/nonexistent/cmdguard-assessor");
    let answer = assess(&assessor, "make");
    assert_eq!(answer.decision, Decision::Unsure);
    assert_eq!(answer.kind, Some(UnsureKind::UnableToAssess));
    let reason = answer.reason.unwrap();
    assert!(
        reason.starts_with("cannot start assessor \"/nonexistent/cmdguard-assessor\": "),
        "{reason}"
    );
}

#[test]
fn a_program_that_never_answers_is_killed_with_its_children() {
    let dir = Scratch::new("sleep");
    let pid_file = dir.path().join("child.pid");
    let assessor = script(
        &dir,
        "sh",
        &format!("sleep 1000 &\necho $! > '{}'\nwait\n", pid_file.display()),
    )
    .timeout(Duration::from_millis(500));
    let started = Instant::now();
    assert_eq!(
        assess(&assessor, "make"),
        unable("assessor timed out after 500 ms")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // The background `sleep` went with the process group.
    let pid = fs::read_to_string(&pid_file).unwrap();
    let stat = PathBuf::from(format!("/proc/{}/stat", pid.trim()));
    let gone = (0..200).any(|_| {
        let alive = fs::read_to_string(&stat).is_ok_and(|stat| !stat.contains(") Z "));
        if alive {
            thread::sleep(Duration::from_millis(10));
        }
        !alive
    });
    assert!(gone, "sleep {} still runs", pid.trim());
}

#[test]
fn output_over_the_cap_is_unable_to_assess() {
    let dir = Scratch::new("big");
    let assessor = script(
        &dir,
        "python3",
        "import sys\nsys.stdout.write('x' * 10_000_000)\n",
    );
    let started = Instant::now();
    assert_eq!(
        assess(&assessor, "make"),
        unable("assessor printed more than 65536 bytes")
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let small_cap = script(&dir, "sh", "echo '{\"decision\": \"allow\"}'\n").max_output(8);
    assert_eq!(
        assess(&small_cap, "make"),
        unable("assessor printed more than 8 bytes")
    );
}

#[test]
fn a_flood_on_stderr_does_not_block_the_answer() {
    let dir = Scratch::new("stderr");
    let assessor = script(
        &dir,
        "python3",
        "import sys\nsys.stderr.write('e' * 5_000_000)\nprint('{\"decision\": \"reject\", \"reason\": \"no\"}')\n",
    );
    assert_eq!(assess(&assessor, "make"), Assessment::reject("no"));
}

#[test]
fn a_program_that_ignores_its_input_still_answers() {
    let dir = Scratch::new("ignore");
    let assessor = script(
        &dir,
        "sh",
        "echo '{\"decision\": \"unsure\", \"reason\": \"edits\", \"kind\": \"modify_existing_files\"}'\n",
    );
    // A large request, so that an unread stdin would fill the pipe.
    let command = format!("echo {}", "x".repeat(200_000));
    assert_eq!(
        assess(&assessor, &command),
        Assessment::unsure(UnsureKind::ModifyExistingFiles, "edits")
    );
}

// ---------------------------------------------------------------------------------------------
// AgentAssessor: scripted models, confined tools

/// A model that plays scripted replies and records what it was sent.
#[derive(Default)]
struct Scripted {
    replies: Mutex<VecDeque<Result<ChatMessage, ModelError>>>,
    seen: Mutex<Vec<Vec<ChatMessage>>>,
}

impl Scripted {
    fn new(replies: Vec<Result<ChatMessage, ModelError>>) -> Arc<Scripted> {
        Arc::new(Scripted {
            replies: Mutex::new(replies.into()),
            seen: Mutex::default(),
        })
    }

    fn calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

/// A scripted model shared with the test, which reads what it was sent.
struct Played(Arc<Scripted>);

impl ChatModel for Played {
    fn chat(&self, messages: &[ChatMessage], _: &[Value]) -> Result<ChatMessage, ModelError> {
        self.0.seen.lock().unwrap().push(messages.to_vec());
        self.0
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Err(ModelError::Transport("script exhausted".to_owned())))
    }
}

impl AsyncChatModel for Played {
    fn chat_async<'a>(
        &'a self,
        messages: &'a [ChatMessage],
        tools: &'a [Value],
    ) -> BoxFuture<'a, Result<ChatMessage, ModelError>> {
        Box::pin(async move {
            Sleep::new(Duration::from_millis(5)).await;
            self.chat(messages, tools)
        })
    }
}

/// One scripted reply of a model.
type Reply = Result<ChatMessage, ModelError>;

fn said(text: &str) -> Reply {
    Ok(ChatMessage::text(Role::Assistant, text))
}

fn calls(calls: &[(&str, Value)]) -> Reply {
    Ok(ChatMessage::calling(
        calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("call_{i}"),
                name: (*name).to_owned(),
                arguments: arguments.to_string(),
            })
            .collect(),
    ))
}

#[test]
fn the_agent_allows_on_a_direct_answer_and_is_told_everything() {
    let model = Scripted::new(vec![said(
        r#"{"policy": "allow", "reason": "only lists files", "unsure_kind": null}"#,
    )]);
    let assessor = AgentAssessor::new(Played(Arc::clone(&model)));
    let names: Vec<&str> = assessor
        .tool_definitions()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file", "list_dir", "glob", "grep"]);
    assert_eq!(
        assess(&assessor, "ls -R | wc -l"),
        Assessment::allow("only lists files")
    );
    let seen = model.seen.lock().unwrap();
    let first = &seen[0];
    assert_eq!(first[0], ChatMessage::text(Role::System, SYSTEM_PROMPT));
    assert_eq!(first[1].role, Role::User);
    let user = first[1].content.as_deref().unwrap();
    let json_start = user.find('{').unwrap();
    let request: Value = serde_json::from_str(&user[json_start..]).unwrap();
    assert_eq!(request["command"], "ls -R | wc -l");
    assert_eq!(request["version"], 1);
}

#[test]
fn the_agent_reads_a_file_then_answers() {
    let dir = Scratch::new("agent-read");
    dir.write("Makefile", "install:\n\tcp tool /usr/local/bin\n");
    let model = Scripted::new(vec![
        calls(&[("read_file", json!({"path": "Makefile"}))]),
        said(
            r#"{"policy": "unsure", "reason": "installs into /usr/local", "unsure_kind": "install_package_outside_allowed_paths"}"#,
        ),
    ]);
    let assessor = AgentAssessor::new(Played(Arc::clone(&model)));
    let analysis = analysis("make install");
    let request = AssessRequest::new("make install", &analysis).in_dir(dir.path());
    assert_eq!(
        assessor.assess(&request),
        Assessment::unsure(
            UnsureKind::InstallPackageOutsideAllowedPaths,
            "installs into /usr/local"
        )
    );
    let seen = model.seen.lock().unwrap();
    let second = &seen[1];
    assert_eq!(second.len(), 4);
    assert_eq!(
        second[3],
        ChatMessage::tool_result("call_0", "install:\n\tcp tool /usr/local/bin\n")
    );
}

#[test]
fn the_agent_fails_closed() {
    let loop_forever: Vec<_> = (0..9).map(|_| calls(&[("list_dir", json!({}))])).collect();
    let many_at_once = calls(&vec![("list_dir", json!({})); 9]);
    // (name, the model's replies, the answer, how many times the model was called)
    type Case = (&'static str, Vec<Reply>, Assessment, usize);
    let cases: Vec<Case> = vec![
        (
            "nine rounds of tool calls",
            loop_forever,
            unable("the model did not answer within 8 turns"),
            8,
        ),
        (
            "nine tool calls at once",
            vec![many_at_once],
            unable("the model asked for more than 8 tool calls"),
            1,
        ),
        (
            "a model error",
            vec![Err(ModelError::Timeout)],
            unable("model failed: the model call timed out"),
            1,
        ),
        (
            "prose around the JSON",
            vec![said(r#"Sure: {"policy": "allow", "reason": "fine"}"#)],
            unable(
                "the model's answer is not the expected JSON (expected value at line 1 column \
                 1): \"Sure: {\\\"policy\\\": \\\"allow\\\", \\\"reason\\\": \\\"fine\\\"}\"",
            ),
            1,
        ),
        (
            "an unknown policy",
            vec![said(r#"{"policy": "yolo", "reason": "fine"}"#)],
            unable(
                "the model's answer is not the expected JSON (unknown variant `yolo`, expected \
                 one of `allow`, `unsure`, `reject` at line 1 column 17): \"{\\\"policy\\\": \
                 \\\"yolo\\\", \\\"reason\\\": \\\"fine\\\"}\"",
            ),
            1,
        ),
        (
            "an unsure without a kind",
            vec![said(r#"{"policy": "unsure", "reason": "runs tests"}"#)],
            Assessment::unsure(UnsureKind::Other, "runs tests"),
            1,
        ),
        (
            "no content at all",
            vec![Ok(ChatMessage {
                role: Role::Assistant,
                content: None,
                tool_calls: Vec::new(),
                tool_call_id: None,
            })],
            unable(
                "the model's answer is not the expected JSON (EOF while parsing a value at \
                 line 1 column 0): \"\"",
            ),
            1,
        ),
    ];
    for (name, replies, expected, model_calls) in cases {
        let model = Scripted::new(replies);
        let assessor = AgentAssessor::new(Played(Arc::clone(&model)));
        assert_eq!(assess(&assessor, "make"), expected, "{name}");
        assert_eq!(model.calls(), model_calls, "{name}");
    }
}

#[test]
fn the_agent_limits_can_be_tightened() {
    let model = Scripted::new(vec![
        calls(&[("list_dir", json!({})), ("list_dir", json!({}))]),
        said(r#"{"policy": "allow", "reason": "fine"}"#),
    ]);
    let limits = AgentLimits {
        max_turns: 8,
        max_tool_calls: 1,
    };
    let assessor = AgentAssessor::with_limits(Played(Arc::clone(&model)), limits);
    assert_eq!(
        assess(&assessor, "make"),
        unable("the model asked for more than 1 tool calls")
    );
}

#[test]
fn the_async_agent_awaits_its_model() {
    let dir = Scratch::new("agent-async");
    dir.write("notes.txt", "hello\n");
    let model = Scripted::new(vec![
        calls(&[("grep", json!({"pattern": "hel+o"}))]),
        said(r#"{"policy": "allow", "reason": "reads notes"}"#),
    ]);
    let assessor = AsyncGuarded::new(
        AsyncAgentAssessor::new(Played(Arc::clone(&model))),
        Duration::from_secs(10),
    );
    let analysis = analysis("cat notes.txt");
    let request = AssessRequest::new("cat notes.txt", &analysis).in_dir(dir.path());
    assert_eq!(
        block_on(assessor.assess_async(&request)),
        Assessment::allow("reads notes")
    );
    let seen = model.seen.lock().unwrap();
    assert_eq!(
        seen[1][3],
        ChatMessage::tool_result("call_0", "notes.txt:1: hello")
    );
}

/// Calls one assessment tool in `dir` with `allowed` as the extra paths.
fn call_tool(
    dir: &Path,
    allowed: &[&Path],
    name: &str,
    arguments: Value,
) -> Result<String, String> {
    let mut toolbox = ToolBox::new();
    toolbox.register(assessor_tools()).unwrap();
    let confinement = Confinement::new(Some(dir), allowed);
    toolbox
        .call_tool_blocking(&AgentHandle::new("test"), name, arguments, confinement)
        .map(|value| value.as_str().unwrap().to_owned())
        .map_err(|error| error.to_string())
}

#[test]
fn the_tools_see_only_the_working_directory_and_the_allowed_paths() {
    let work = Scratch::new("tools-work");
    let allowed = Scratch::new("tools-allowed");
    let outside = Scratch::new("tools-outside");
    work.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    work.write("src/lib.rs", "pub fn hi() {}\n");
    work.write("README.md", "# demo\n");
    allowed.write("cache.txt", "cached\n");
    work.write(".env", "API_TOKEN=hunter2\n");
    work.write(
        "deploy/server.pem",
        "-----BEGIN PRIVATE KEY-----\nhunter2\n",
    );
    let secret = outside.write("secret.txt", "token=hunter2\n");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, work.path().join("link.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), work.path().join("linkdir")).unwrap();
    }
    let roots = [allowed.path()];
    let call = |name: &str, arguments: Value| call_tool(work.path(), &roots, name, arguments);
    let outside_error = |path: &str| {
        Err(format!(
            "{path:?} is outside the working directory and the allowed \
             paths"
        ))
    };

    assert_eq!(
        call("read_file", json!({"path": "README.md"})),
        Ok("# demo\n".to_owned())
    );
    let cache = allowed.path().join("cache.txt").display().to_string();
    assert_eq!(
        call("read_file", json!({"path": cache})),
        Ok("cached\n".to_owned())
    );
    let secret_path = secret.display().to_string();
    assert_eq!(
        call("read_file", json!({"path": secret_path})),
        outside_error(&secret_path)
    );
    let escape = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    assert_eq!(
        call("read_file", json!({"path": escape})),
        outside_error(&escape)
    );
    assert_eq!(
        call("read_file", json!({"path": "/etc/passwd"})),
        outside_error("/etc/passwd")
    );
    #[cfg(unix)]
    {
        assert_eq!(
            call("read_file", json!({"path": "link.txt"})),
            outside_error("link.txt")
        );
        assert_eq!(
            call("read_file", json!({"path": "linkdir/secret.txt"})),
            outside_error("linkdir/secret.txt")
        );
    }
    assert_eq!(
        call("read_file", json!({"path": "src"})),
        Err("cannot read \"src\": not a regular file".to_owned())
    );

    assert_eq!(
        call("list_dir", json!({})),
        Ok(if cfg!(unix) {
            ".env\nREADME.md\ndeploy/\nlink.txt\nlinkdir\nsrc/"
        } else {
            ".env\nREADME.md\ndeploy/\nsrc/"
        }
        .to_owned())
    );
    // The walk does not follow links: the secret behind `linkdir` is not found.
    assert_eq!(
        call("glob", json!({"pattern": "**/*.*"})),
        // Names are listed, secret-looking or not; only their contents are withheld.
        Ok(".env\nREADME.md\ndeploy/server.pem\nsrc/lib.rs\nsrc/main.rs".to_owned())
    );
    assert_eq!(
        call("glob", json!({"pattern": "*.rs", "path": "src"})),
        Ok("lib.rs\nmain.rs".to_owned())
    );
    assert_eq!(
        call("grep", json!({"pattern": "fn \\w+", "include": "**/*.rs"})),
        Ok("src/lib.rs:1: pub fn hi() {}\nsrc/main.rs:1: fn main() {".to_owned())
    );
    assert_eq!(
        call("grep", json!({"pattern": "hunter2"})),
        Ok("no match".to_owned())
    );
    assert_eq!(
        call("grep", json!({"pattern": "(", "path": "src"})),
        Err(
            "invalid pattern \"(\": regex parse error:\n    (\n    ^\nerror: unclosed group"
                .to_owned()
        )
    );
}

#[test]
fn read_file_reads_large_files_in_capped_pieces() {
    let work = Scratch::new("tools-large");
    let text: String = (0..40_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    work.write("big.txt", &text);
    let first = call_tool(work.path(), &[], "read_file", json!({"path": "big.txt"})).unwrap();
    assert_eq!(
        first,
        format!(
            "{}\n[… 7232 more bytes; read on with offset 32768]",
            &text[..32768]
        )
    );
    let rest = call_tool(
        work.path(),
        &[],
        "read_file",
        json!({"path": "big.txt", "offset": 32768}),
    )
    .unwrap();
    assert_eq!(rest, text[32768..]);
}

#[test]
fn without_a_working_directory_the_tools_refuse_relative_paths() {
    let mut toolbox = ToolBox::new();
    toolbox.register(assessor_tools()).unwrap();
    let result = toolbox.call_tool_blocking(
        &AgentHandle::new("test"),
        "list_dir",
        json!({}),
        Confinement::new(None, &[]),
    );
    assert_eq!(
        result.unwrap_err().to_string(),
        "no working directory to resolve \".\" against"
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAiChat against an HTTP stub on loopback

#[cfg(feature = "openai")]
mod openai {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    use cmdguard::assess::OpenAiChat;

    use super::*;

    /// What the stub does with one request.
    enum Play {
        /// Answers with this status and body.
        Answer(u16, String),
        /// Waits, then answers 200 with this body.
        Slow(Duration, String),
    }

    /// One request the stub received.
    #[derive(Debug)]
    struct Received {
        request_line: String,
        authorization: Option<String>,
        body: Value,
    }

    /// A chat-completions server on 127.0.0.1 that plays `script`, one entry per connection.
    struct Stub {
        base_url: String,
        received: Arc<Mutex<Vec<Received>>>,
    }

    impl Stub {
        fn start(script: Vec<Play>) -> Stub {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
            let received = Arc::new(Mutex::new(Vec::new()));
            let log = Arc::clone(&received);
            thread::spawn(move || {
                for play in script {
                    let Ok((stream, _)) = listener.accept() else {
                        return;
                    };
                    let mut reader = BufReader::new(stream);
                    let mut request_line = String::new();
                    reader.read_line(&mut request_line).unwrap();
                    let mut length = 0;
                    let mut authorization = None;
                    loop {
                        let mut line = String::new();
                        reader.read_line(&mut line).unwrap();
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        let (name, value) = line.split_once(':').unwrap();
                        match name.to_ascii_lowercase().as_str() {
                            "content-length" => length = value.trim().parse().unwrap(),
                            "authorization" => authorization = Some(value.trim().to_owned()),
                            _ => {}
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    log.lock().unwrap().push(Received {
                        request_line: request_line.trim_end().to_owned(),
                        authorization,
                        body: serde_json::from_slice(&body).unwrap(),
                    });
                    let (status, body) = match play {
                        Play::Answer(status, body) => (status, body),
                        Play::Slow(delay, body) => {
                            thread::sleep(delay);
                            (200, body)
                        }
                    };
                    let mut stream = reader.into_inner();
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n\
                         content-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
            Stub { base_url, received }
        }

        fn model(&self) -> OpenAiChat {
            // A variable cargo sets for every test process, so no test has to set one.
            OpenAiChat::new(&self.base_url, "test-model")
                .api_key_env("CARGO_PKG_NAME")
                .timeout(Duration::from_secs(10))
        }
    }

    fn completion(message: Value) -> String {
        json!({"id": "c", "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "finish_reason": "stop"}
        ]})
        .to_string()
    }

    fn answer(content: &str) -> Play {
        Play::Answer(
            200,
            completion(json!({"role": "assistant", "content": content})),
        )
    }

    fn tool_call(id: &str, name: &str, arguments: Value) -> Play {
        Play::Answer(
            200,
            completion(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": id, "type": "function",
                 "function": {"name": name, "arguments": arguments.to_string()}}
            ]})),
        )
    }

    #[test]
    fn a_direct_allow() {
        let stub = Stub::start(vec![answer(
            r#"{"policy": "allow", "reason": "reads only"}"#,
        )]);
        let assessor = AgentAssessor::new(stub.model());
        assert_eq!(assess(&assessor, "ls"), Assessment::allow("reads only"));
        let received = stub.received.lock().unwrap();
        assert_eq!(received.len(), 1);
        assert_eq!(
            received[0].request_line,
            "POST /v1/chat/completions HTTP/1.1"
        );
        assert_eq!(
            received[0].authorization.as_deref(),
            Some("Bearer cmdguard")
        );
        let body = &received[0].body;
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["temperature"], 0);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": SYSTEM_PROMPT})
        );
        assert_eq!(body["messages"][1]["role"], "user");
        assert_eq!(
            body["tools"],
            Value::Array(assessor.tool_definitions().to_vec())
        );
    }

    #[test]
    fn a_tool_call_then_an_answer() {
        let dir = Scratch::new("openai-tool");
        dir.write("package.json", "{\"scripts\": {\"test\": \"jest\"}}\n");
        let stub = Stub::start(vec![
            tool_call("call_a", "read_file", json!({"path": "package.json"})),
            answer(r#"{"policy": "unsure", "reason": "runs jest", "unsure_kind": null}"#),
        ]);
        let assessor = AgentAssessor::new(stub.model());
        let analysis = analysis("npm test");
        let request = AssessRequest::new("npm test", &analysis).in_dir(dir.path());
        assert_eq!(
            assessor.assess(&request),
            Assessment::unsure(UnsureKind::Other, "runs jest")
        );
        let received = stub.received.lock().unwrap();
        let messages = &received[1].body["messages"];
        assert_eq!(
            messages[2],
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_a", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"package.json\"}"},
            }]})
        );
        assert_eq!(
            messages[3],
            json!({"role": "tool", "tool_call_id": "call_a",
                   "content": "{\"scripts\": {\"test\": \"jest\"}}\n"})
        );
    }

    #[test]
    fn nine_tool_calls_exceed_the_loop() {
        let script = (0..9)
            .map(|i| tool_call(&format!("call_{i}"), "list_dir", json!({})))
            .collect();
        let stub = Stub::start(script);
        let assessor = AgentAssessor::new(stub.model());
        assert_eq!(
            assess(&assessor, "make"),
            unable("the model did not answer within 8 turns")
        );
        assert_eq!(stub.received.lock().unwrap().len(), 8);
    }

    #[test]
    fn server_failures_are_unable_to_assess() {
        let cases: Vec<(Play, Assessment)> = vec![
            (
                Play::Answer(200, "this is not json".to_owned()),
                unable(
                    "model failed: the model server's answer is malformed: expected ident at \
                     line 1 column 2: \"this is not json\"",
                ),
            ),
            (
                Play::Answer(200, json!({"choices": []}).to_string()),
                unable("model failed: the model server's answer is malformed: no choices"),
            ),
            (
                answer("I think it is fine"),
                unable(
                    "the model's answer is not the expected JSON (expected value at line 1 \
                     column 1): \"I think it is fine\"",
                ),
            ),
            (
                Play::Answer(500, "{\"error\": \"overloaded\"}".to_owned()),
                unable(
                    "model failed: the model server answered status 500: {\"error\": \
                     \"overloaded\"}",
                ),
            ),
        ];
        for (play, expected) in cases {
            let stub = Stub::start(vec![play]);
            let assessor = AgentAssessor::new(stub.model());
            assert_eq!(assess(&assessor, "make"), expected);
        }
    }

    #[test]
    fn a_slow_server_times_out() {
        let stub = Stub::start(vec![Play::Slow(
            Duration::from_secs(3),
            completion(json!({"role": "assistant", "content": "{}"})),
        )]);
        let model = stub.model().timeout(Duration::from_millis(300));
        let assessor = AgentAssessor::new(model);
        let started = Instant::now();
        assert_eq!(
            assess(&assessor, "make"),
            unable("model failed: the model call timed out")
        );
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_missing_api_key_sends_nothing() {
        let stub = Stub::start(vec![answer(r#"{"policy": "allow", "reason": "x"}"#)]);
        let model = stub
            .model()
            .api_key_env("CMDGUARD_TEST_API_KEY_THAT_IS_NEVER_SET");
        let assessor = AgentAssessor::new(model);
        assert_eq!(
            assess(&assessor, "make"),
            unable(
                "model failed: the api key variable CMDGUARD_TEST_API_KEY_THAT_IS_NEVER_SET is not set"
            )
        );
        assert!(stub.received.lock().unwrap().is_empty());
    }

    #[test]
    fn a_refused_connection_is_unable_to_assess() {
        // Bind then drop: nothing listens on the port any more.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let model = OpenAiChat::new(format!("http://127.0.0.1:{port}/v1"), "m").without_api_key();
        let answer = assess(&AgentAssessor::new(model), "make");
        assert_eq!(answer.kind, Some(UnsureKind::UnableToAssess));
        let reason = answer.reason.unwrap();
        assert!(
            reason.starts_with("model failed: cannot reach the model server: "),
            "{reason}"
        );
    }

    #[test]
    fn the_stub_speaks_http_the_client_understands() {
        // A guard on the stub itself: a raw request gets a parseable response.
        let stub = Stub::start(vec![answer("hi")]);
        let address = stub
            .base_url
            .trim_start_matches("http://")
            .trim_end_matches("/v1");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{{}}"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200 X\r\n"), "{response}");
        assert!(response.ends_with(&completion(json!({"role": "assistant", "content": "hi"}))));
    }
}

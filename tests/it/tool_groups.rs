//! The built-in tool groups (`system`, `fs`) against real files in a scratch workspace, called
//! the way a runtime calls them: through a ToolBox with JSON arguments.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt, Source};
use cmdguard::tool::groups::framework::{CompactedResults, PreferenceRequest, UserChannel};
use cmdguard::tool::groups::search::{SearchBackend, SearchResult};
use cmdguard::tool::{AgentHandle, CallError, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::scratch::Scratch;

/// The prompts a scripted user saw, and the answer it gives to each.
#[derive(Clone)]
struct User {
    seen: Arc<Mutex<Vec<Prompt>>>,
    answer: Choice,
}

impl User {
    fn answering(answer: Choice) -> User {
        User {
            seen: Arc::new(Mutex::new(Vec::new())),
            answer,
        }
    }

    fn asked(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|p| p.command.clone())
            .collect()
    }
}

struct Setup {
    dir: Scratch,
    toolbox: ToolBox,
    agent: AgentHandle,
    user: User,
}

impl Setup {
    /// A workspace in a scratch directory whose user answers `answer`.
    fn new(answer: Choice) -> Setup {
        Setup::with(answer, false)
    }

    fn with(answer: Choice, auto_confirm: bool) -> Setup {
        let dir = Scratch::new();
        let user = User::answering(answer);
        let policy = Arc::new(Policy::new(PolicySettings {
            auto_confirm,
            state_file: None,
        }));
        let u = user.clone();
        let ws = Workspace::new(dir.path())
            .unwrap()
            .with_permission(policy, move |p: &Prompt| {
                u.seen.lock().unwrap().push(p.clone());
                ChoiceOutcome::user(u.answer.clone())
            });
        Setup {
            dir,
            toolbox: ToolBox::new().with_all_defaults().unwrap(),
            agent: AgentHandle::new("tester").with_workspace(ws),
            user,
        }
    }

    fn call(&self, tool: &str, args: Value) -> Result<Value, String> {
        self.toolbox
            .call_tool_blocking(&self.agent, tool, args, ())
            .map_err(|e| match e {
                CallError::Failed(info) => info.error,
                other => format!("{other:?}"),
            })
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        self.call(tool, args.clone())
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    fn err(&self, tool: &str, args: Value) -> String {
        match self.call(tool, args.clone()) {
            Ok(v) => panic!("{tool} {args} succeeded: {v}"),
            Err(e) => e,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn canonical(&self, rel: &str) -> String {
        fs::canonicalize(self.root())
            .unwrap()
            .join(rel)
            .display()
            .to_string()
    }
}

#[test]
fn paths_outside_the_workspace_are_refused_whatever_the_spelling() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("in.txt", "hi\n");
    let outside = Scratch::new();
    outside.write("secret.txt", "s\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), s.root().join("link")).unwrap();
    let escapes = [
        "/etc/passwd".to_owned(),
        "../secret.txt".to_owned(),
        "sub/../../x".to_owned(),
        outside.path().join("secret.txt").display().to_string(),
        "link/secret.txt".to_owned(),
        "missing/../../x".to_owned(),
    ];
    for path in &escapes {
        let e = s.err("read_file", json!({"path": path}));
        assert!(
            e.contains("is not within the agent's workspace") || e.contains("does not exist"),
            "{path}: {e}"
        );
    }
    for path in &escapes {
        s.err("write_file", json!({"path": path, "content": "x"}));
    }
    assert_eq!(
        fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "s\n"
    );
    assert_eq!(s.ok("read_file", json!({"path": "in.txt"})), json!("hi\n"));
    assert_eq!(
        s.ok("read_file", json!({"path": s.canonical("in.txt")})),
        json!("hi\n")
    );
}

#[test]
fn a_tool_without_a_workspace_says_how_to_give_it_one() {
    let toolbox = ToolBox::new().with_defaults(&["fs"]).unwrap();
    let e = toolbox
        .call_tool_blocking(
            &AgentHandle::new("bare"),
            "list_dir",
            json!({"path": "."}),
            (),
        )
        .unwrap_err();
    assert!(
        e.error_info()
            .unwrap()
            .error
            .contains("AgentHandle::with_workspace"),
        "{e:?}"
    );
}

#[test]
fn read_file_returns_ranges_with_numbers_and_refuses_binary_and_huge_files() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("five.txt", "a\nb\nc\nd\ne\n");
    let read = |args: Value| s.ok("read_file", args);
    assert_eq!(read(json!({"path": "five.txt"})), json!("a\nb\nc\nd\ne\n"));
    assert_eq!(
        read(json!({"path": "five.txt", "line_offset": 1, "line_limit": 2})),
        json!("b\nc\n")
    );
    assert_eq!(
        read(json!({"path": "five.txt", "line_offset": 3, "include_line_numbers": true})),
        json!("     4\td\n     5\te\n")
    );
    assert_eq!(
        read(json!({"path": "five.txt", "line_offset": 9})),
        json!("")
    );
    fs::write(s.root().join("bin"), b"\x7fELF\0\0\x01").unwrap();
    assert!(
        s.err("read_file", json!({"path": "bin"}))
            .contains("is not a text file")
    );
    fs::write(s.root().join("latin1"), b"caf\xe9\n").unwrap();
    assert!(
        s.err("read_file", json!({"path": "latin1"}))
            .contains("is not a text file")
    );
    let big = "x".repeat(2 * 1024 * 1024 + 1);
    s.dir.write("big.txt", &big);
    assert!(
        s.err("read_file", json!({"path": "big.txt"}))
            .contains("over the")
    );
    assert!(
        s.err("read_file", json!({"path": "nope"}))
            .contains("cannot read")
    );
}

#[test]
fn list_dir_and_file_info_describe_what_is_there() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("b.txt", "1\n2\n");
    s.dir.write("a/inner.rs", "fn main() {}\n");
    fs::write(s.root().join("blob"), [0u8, 1, 2]).unwrap();
    let listing = s.ok("list_dir", json!({"path": "."}));
    let names: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a/", "b.txt", "blob"]);
    assert!(listing["entries"][1].get("size").is_none());
    let detailed = s.ok("list_dir", json!({"path": ".", "details": true}));
    assert_eq!(detailed["entries"][0]["kind"], "directory");
    assert_eq!(detailed["entries"][1]["size"], 4);
    assert!(
        detailed["entries"][1]["modified"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );

    let info = s.ok("file_info", json!({"path": "b.txt"}));
    assert_eq!(
        (
            &info["kind"],
            &info["size"],
            &info["lines"],
            &info["is_text"]
        ),
        (&json!("file"), &json!(4), &json!(2), &json!(true))
    );
    assert_eq!(info["path"], json!(s.canonical("b.txt")));
    let blob = s.ok("file_info", json!({"path": "blob"}));
    assert_eq!((&blob["is_text"], blob.get("lines")), (&json!(false), None));
    assert_eq!(s.ok("file_info", json!({"path": "a"}))["kind"], "directory");
}

#[test]
fn new_files_are_written_without_asking_and_overwrites_ask_first() {
    let s = Setup::new(Choice::Yes);
    s.ok("write_file", json!({"path": "new.txt", "content": "one"}));
    assert!(s.user.asked().is_empty(), "{:?}", s.user.asked());
    s.ok("write_file", json!({"path": "new.txt", "content": "two"}));
    assert_eq!(
        s.user.asked(),
        [format!("overwrite {}", s.canonical("new.txt"))]
    );
    assert_eq!(fs::read_to_string(s.root().join("new.txt")).unwrap(), "two");
    assert!(
        s.err("write_file", json!({"path": "no/dir/f", "content": "x"}))
            .contains("mkdir first")
    );
    s.ok("mkdir", json!({"path": "no/dir"}));
    s.ok("write_file", json!({"path": "no/dir/f", "content": "x"}));
}

#[test]
fn a_user_who_says_no_keeps_the_file_as_it_was() {
    let s = Setup::new(Choice::No);
    s.dir.write("keep.txt", "original");
    let e = s.err(
        "write_file",
        json!({"path": "keep.txt", "content": "changed"}),
    );
    assert!(e.contains("refused: the user answered no"), "{e}");
    assert!(
        s.err("delete", json!({"path": "keep.txt"}))
            .contains("refused")
    );
    assert!(
        s.err("move", json!({"src": "keep.txt", "dst": "moved.txt"}))
            .contains("refused")
    );
    s.dir.write("other.txt", "o");
    assert!(
        s.err("copy", json!({"src": "other.txt", "dst": "keep.txt"}))
            .contains("refused")
    );
    assert_eq!(
        fs::read_to_string(s.root().join("keep.txt")).unwrap(),
        "original"
    );
    assert!(!s.root().join("moved.txt").exists());
}

#[test]
fn auto_confirm_overwrites_but_never_deletes() {
    let s = Setup::with(Choice::No, true);
    s.dir.write("f.txt", "1");
    s.ok("write_file", json!({"path": "f.txt", "content": "2"}));
    let e = s.err("delete", json!({"path": "f.txt"}));
    assert!(
        e.contains("auto-confirm took the default answer, no"),
        "{e}"
    );
    assert!(
        s.user.asked().is_empty(),
        "auto-confirm asked: {:?}",
        s.user.asked()
    );
    assert!(s.root().join("f.txt").exists());
}

#[test]
fn a_granted_directory_is_not_asked_again() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("d/a.txt", "a");
    s.dir.write("d/b.txt", "b");
    s.dir.write("e.txt", "e");
    // This user grants the directory each prompt offers: the file's own.
    let offered = s.canonical("d");
    let s = rebuild(
        s,
        Choice::GrantPath {
            path: offered.clone().into(),
        },
    );
    s.ok("write_file", json!({"path": "d/a.txt", "content": "A"}));
    s.ok("write_file", json!({"path": "d/b.txt", "content": "B"}));
    s.ok("write_file", json!({"path": "e.txt", "content": "E"}));
    let seen = s.user.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{:?}", s.user.asked());
    assert_eq!(seen[0].grant_path, Some(offered.into()));
    assert_eq!(seen[0].title, cmdguard::policy::TITLE_FILE_CHANGE);
    assert_eq!(
        seen[1].command,
        format!("overwrite {}", s.canonical("e.txt"))
    );
}

/// The same scratch directory with a fresh policy and a user answering `answer`.
fn rebuild(s: Setup, answer: Choice) -> Setup {
    let user = User::answering(answer);
    let u = user.clone();
    let ws = Workspace::new(s.dir.path()).unwrap().with_permission(
        Arc::new(Policy::new(PolicySettings::default())),
        move |p: &Prompt| {
            u.seen.lock().unwrap().push(p.clone());
            ChoiceOutcome {
                choice: u.answer.clone(),
                source: Source::User,
            }
        },
    );
    Setup {
        agent: AgentHandle::new("tester").with_workspace(ws),
        user,
        ..s
    }
}

#[test]
fn the_temp_dir_is_private_made_on_first_use_and_changes_there_never_ask() {
    let s = Setup::new(Choice::No);
    // Before it exists, a path in the system temp dir is outside the workspace.
    let tmp = s.ok("temp_dir", json!({}));
    let tmp = tmp.as_str().unwrap().to_owned();
    assert!(Path::new(&tmp).is_dir());
    let f = format!("{tmp}/scratch.txt");
    s.ok("write_file", json!({"path": f, "content": "1"}));
    s.ok("write_file", json!({"path": f, "content": "2"}));
    s.ok("copy", json!({"src": f, "dst": format!("{tmp}/copy.txt")}));
    s.ok(
        "move",
        json!({"src": format!("{tmp}/copy.txt"), "dst": format!("{tmp}/moved.txt")}),
    );
    s.ok("delete", json!({"path": f}));
    assert!(s.user.asked().is_empty(), "{:?}", s.user.asked());
    assert_eq!(s.ok("temp_dir", json!({})).as_str().unwrap(), tmp);
    drop(s);
    assert!(
        !Path::new(&tmp).exists(),
        "the temp dir outlived its workspace"
    );
}

#[test]
fn copy_move_and_delete_work_on_trees_and_never_follow_links_out() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("tree/a.txt", "a");
    s.dir.write("tree/sub/b.txt", "b");
    let outside = Scratch::new();
    outside.write("keep.txt", "k");
    #[cfg(unix)]
    {
        // A link that points outside is not copied into the workspace (a later write through
        // the copy would leave it); nothing of the tree is copied then.
        std::os::unix::fs::symlink(outside.path(), s.root().join("tree/out")).unwrap();
        let refused = s.err("copy", json!({"src": "tree", "dst": "copy"}));
        assert!(
            refused.contains("outside the agent's workspace"),
            "{refused}"
        );
        assert!(!s.root().join("copy").exists());
        // A link to a file of the tree is copied as a link.
        fs::remove_file(s.root().join("tree/out")).unwrap();
        std::os::unix::fs::symlink("a.txt", s.root().join("tree/out")).unwrap();
    }
    let copied = s.ok("copy", json!({"src": "tree", "dst": "copy"}));
    assert!(copied.as_str().unwrap().contains("(3 files)"), "{copied}");
    #[cfg(unix)]
    {
        assert_eq!(
            fs::read_link(s.root().join("copy/out")).unwrap(),
            Path::new("a.txt")
        );
        fs::remove_file(s.root().join("tree/out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), s.root().join("tree/out")).unwrap();
    }
    assert_eq!(
        fs::read_to_string(s.root().join("copy/sub/b.txt")).unwrap(),
        "b"
    );
    assert!(
        s.err("copy", json!({"src": "tree", "dst": "tree/sub"}))
            .contains("into itself")
    );
    s.ok("move", json!({"src": "copy", "dst": "moved"}));
    assert!(!s.root().join("copy").exists());
    // Deleting the tree deletes the link, not what it points to.
    s.ok("delete", json!({"path": "moved"}));
    s.ok("delete", json!({"path": "tree/out"}));
    assert!(outside.path().join("keep.txt").exists());
    assert!(
        s.err("delete", json!({"path": "."}))
            .contains("does not name a file")
    );
    assert!(
        s.err("delete", json!({"path": "tree/.."}))
            .contains("does not name a file")
    );
    assert!(
        s.err("delete", json!({"path": s.canonical("")}))
            .contains("not within")
    );
    assert!(
        s.err("delete", json!({"path": "/tmp"}))
            .contains("not within")
    );
    let asked = s.user.asked();
    assert!(asked.iter().any(|a| a.starts_with("delete ")), "{asked:?}");
}

#[test]
fn glob_matches_names_or_paths_and_skips_ignored_files_on_request() {
    let s = Setup::new(Choice::Yes);
    s.dir.write(".gitignore", "target/\n*.log\n");
    s.dir.write("src/main.rs", "");
    s.dir.write("src/deep/mod.rs", "");
    s.dir.write("target/debug/x.rs", "");
    s.dir.write("run.log", "");
    s.dir.write(".git/HEAD", "");
    let glob = |args: Value| {
        let v = s.ok("glob", args);
        v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        glob(json!({"name_pattern": "*.rs"})),
        ["src/deep/mod.rs", "src/main.rs"]
    );
    assert_eq!(
        glob(json!({"name_pattern": "*.rs", "skip_ignored": false})),
        ["src/deep/mod.rs", "src/main.rs", "target/debug/x.rs"]
    );
    assert_eq!(glob(json!({"name_pattern": "src/*.rs"})), ["src/main.rs"]);
    assert_eq!(
        glob(json!({"name_pattern": "src/**/*.rs"})),
        ["src/deep/mod.rs", "src/main.rs"]
    );
    assert_eq!(
        glob(json!({"path": "src", "file_type": "directory"})),
        ["deep"]
    );
    assert_eq!(glob(json!({"name_pattern": "*.log"})), Vec::<String>::new());
    assert!(!glob(json!({})).iter().any(|p| p.starts_with(".git/")));
    assert!(
        s.err("glob", json!({"file_type": "socket"}))
            .contains("file_type")
    );
}

#[test]
fn grep_finds_lines_or_files_and_skips_binaries_and_ignored_files() {
    let s = Setup::new(Choice::Yes);
    s.dir.write(".gitignore", "vendor/\n");
    s.dir.write("a.rs", "fn alpha() {}\nlet x = a.b;\n");
    s.dir.write("b.txt", "alpha beta\n");
    s.dir.write("vendor/c.rs", "fn alpha() {}\n");
    fs::write(s.root().join("bin.dat"), b"alpha\0\0").unwrap();
    let grep = |args: Value| {
        let v = s.ok("grep", args);
        v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        grep(json!({"path": ".", "pattern": "al+pha"})),
        ["a.rs:1:fn alpha() {}", "b.txt:1:alpha beta"]
    );
    assert_eq!(
        grep(json!({"path": ".", "pattern": "alpha", "file_pattern": "*.rs"})),
        ["a.rs:1:fn alpha() {}"]
    );
    assert_eq!(
        grep(json!({"path": ".", "pattern": "alpha", "include_content": false})),
        ["a.rs", "b.txt"]
    );
    assert_eq!(
        grep(
            json!({"path": ".", "pattern": "alpha", "skip_ignored": false, "file_pattern": "*.rs"})
        ),
        ["a.rs:1:fn alpha() {}", "vendor/c.rs:1:fn alpha() {}"]
    );
    assert_eq!(
        grep(json!({"path": ".", "pattern": "a.b", "regex": false})),
        ["a.rs:2:let x = a.b;"]
    );
    assert_eq!(
        grep(json!({"path": "a.rs", "pattern": "let"})),
        ["a.rs:2:let x = a.b;"]
    );
    assert!(
        s.err("grep", json!({"path": ".", "pattern": "("}))
            .contains("bad pattern")
    );
    let many: String = (0..600).map(|i| format!("hit {i}\n")).collect();
    s.dir.write("many.txt", &many);
    let v = s.ok("grep", json!({"path": "many.txt", "pattern": "hit"}));
    assert_eq!(v["matches"].as_array().unwrap().len(), 500);
    assert_eq!(v["truncated"], "stopped after 500 matches");
}

#[test]
fn system_tools_report_the_machine_and_the_time() {
    let s = Setup::new(Choice::Yes);
    let info = s.ok("system_info", json!({}));
    assert_eq!(info["os"], std::env::consts::OS);
    assert_eq!(info["arch"], std::env::consts::ARCH);
    assert!(!info["version"].as_str().unwrap().is_empty());
    let now = s.ok("datetime", json!({}));
    let now = now.as_str().unwrap();
    let re = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d( \(.+\))?$")
        .unwrap();
    assert!(re.is_match(now), "{now}");
    assert!(s.err("sleep", json!({"seconds": -1})).contains("0 or more"));
    assert!(
        s.err("sleep", json!({"seconds": 601}))
            .contains("at most 600")
    );
    assert_eq!(
        s.ok("sleep", json!({"seconds": 0.01})),
        json!("slept 0.01 s")
    );
    // Cancelling the run stops a long sleep early.
    let agent = s.agent.with_new_run();
    let run = agent.run.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        run.cancel("stop");
    });
    let start = std::time::Instant::now();
    let e = s
        .toolbox
        .call_tool_blocking(&agent, "sleep", json!({"seconds": 60}), ());
    canceller.join().unwrap();
    assert!(
        start.elapsed().as_secs() < 30,
        "sleep ignored the cancellation"
    );
    match e {
        Err(CallError::Cancelled(_)) => {}
        Err(CallError::Failed(info)) => assert!(info.error.contains("cancelled"), "{info:?}"),
        other => panic!("{other:?}"),
    }
}

/// Runs git in `dir` for the patch tests.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn apply_patch_applies_a_real_git_diff_all_or_nothing() {
    let s = Setup::new(Choice::Yes);
    let root = s.root().to_path_buf();
    let before_a: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    s.dir.write("src/a.txt", &before_a);
    s.dir.write("b.txt", "one\ntwo\nthree");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "base"]);
    let after_a = before_a
        .replace("line 3\n", "line three\n")
        .replace("line 30\n", "");
    s.dir.write("src/a.txt", &after_a);
    s.dir.write("b.txt", "one\n2\nthree\n");
    let diff = git(&root, &["diff"]);
    git(&root, &["checkout", "-q", "--", "."]);

    // A hunk that no longer applies stops the whole patch before anything is written.
    s.dir.write("b.txt", "one\nTWO\nthree");
    let e = s.err("apply_patch", json!({"patch": diff}));
    assert!(e.contains("b.txt: hunk 1"), "{e}");
    assert_eq!(
        fs::read_to_string(root.join("src/a.txt")).unwrap(),
        before_a
    );

    s.dir.write("b.txt", "one\ntwo\nthree");
    let done = s.ok("apply_patch", json!({"patch": diff}));
    assert!(done.as_str().unwrap().contains("(2 hunks)"), "{done}");
    assert_eq!(fs::read_to_string(root.join("src/a.txt")).unwrap(), after_a);
    assert_eq!(
        fs::read_to_string(root.join("b.txt")).unwrap(),
        "one\n2\nthree\n"
    );
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        " M b.txt\n M src/a.txt\n"
    );
    assert_eq!(s.user.asked().len(), 2, "{:?}", s.user.asked());

    // Relative to another directory, and applied again: the context is gone, so it fails.
    let sub = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+line two\n";
    s.ok("apply_patch", json!({"patch": sub, "directory": "src"}));
    assert!(
        fs::read_to_string(root.join("src/a.txt"))
            .unwrap()
            .starts_with("line 1\nline two\n")
    );
    assert!(
        s.err("apply_patch", json!({"patch": sub, "directory": "src"}))
            .contains("does not apply")
    );
}

#[test]
fn apply_patch_stays_inside_its_directory_and_asks_before_writing() {
    let s = Setup::new(Choice::No);
    s.dir.write("in/f.txt", "x\n");
    s.dir.write("out.txt", "x\n");
    let patch = |name: &str| format!("--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-x\n+y\n");
    for name in ["../out.txt", "/etc/passwd", "../../etc/passwd"] {
        let e = s.err(
            "apply_patch",
            json!({"patch": patch(name), "directory": "in"}),
        );
        assert!(
            e.contains("outside") || e.contains("not within") || e.contains("absolute"),
            "{name}: {e}"
        );
    }
    let e = s.err(
        "apply_patch",
        json!({"patch": patch("f.txt"), "directory": "in"}),
    );
    assert!(e.contains("the user answered no"), "{e}");
    assert_eq!(
        fs::read_to_string(s.root().join("in/f.txt")).unwrap(),
        "x\n"
    );
    let e = s.err("apply_patch", json!({"patch": patch("missing.txt")}));
    assert!(e.contains("changes existing files only"), "{e}");
    fs::write(s.root().join("bin"), b"x\n\0").unwrap();
    assert!(
        s.err("apply_patch", json!({"patch": patch("bin")}))
            .contains("not a text file")
    );
}

/// Whether `program` is installed; a missing one fails under CMDGUARD_DIFF_REQUIRE (CI).
fn installed(program: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "{program} is required in CI (.ci/run installs it)"
        );
        eprintln!("skipping: {program} is not installed");
    }
    found
}

fn problems(report: &Value) -> Vec<(Value, Value)> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].clone(), p["column"].clone()))
        .collect()
}

#[test]
fn check_syntax_finds_each_languages_errors_with_their_positions() {
    let s = Setup::new(Choice::Yes);
    // (file, text, checker, (line, column) of the first error when it has one)
    type Case<'a> = (&'a str, &'a str, &'a str, Option<(u64, Option<u64>)>);
    let cases: &[Case] = &[
        ("ok.rs", "fn main() { let x = 1; }\n", "syn", None),
        (
            "bad.rs",
            "fn main() {\n    let x = ;\n}\n",
            "syn",
            Some((2, Some(13))),
        ),
        ("ok.json", "{\"a\": [1, 2]}", "serde_json", None),
        (
            "bad.json",
            "{\"a\": [1, 2}\n",
            "serde_json",
            Some((1, Some(12))),
        ),
        ("ok.toml", "[a]\nb = 1\n", "toml", None),
        ("bad.toml", "[a]\nb = \n", "toml", Some((2, Some(5)))),
        ("ok.sh", "for i in 1 2; do echo $i; done\n", "bash -n", None),
        (
            "bad.sh",
            "echo a\nif true; then\necho b\n",
            "bash -n",
            Some((4, None)),
        ),
        ("ok.py", "def f(x):\n    return x\n", "python3 ast", None),
        (
            "bad.py",
            "def f(x)\n    return x\n",
            "python3 ast",
            Some((1, Some(9))),
        ),
    ];
    for (name, text, checker, want) in cases {
        s.dir.write(name, text);
        let r = s.ok("check_syntax", json!({"path": name}));
        assert_eq!(r["checker"], json!(checker), "{name}");
        assert_eq!(r["ok"], json!(want.is_none()), "{name}: {r}");
        if let Some((line, column)) = want {
            let got = problems(&r);
            assert_eq!(got[0].0, json!(line), "{name}: {r}");
            if let Some(column) = column {
                assert_eq!(got[0].1, json!(column), "{name}: {r}");
            }
        }
    }
    // The language comes from the argument, then the shebang.
    s.dir.write("script", "#!/usr/bin/env python3\nprint(\n");
    assert_eq!(
        s.ok("check_syntax", json!({"path": "script"}))["language"],
        json!("python")
    );
    s.dir.write("noext", "x");
    assert!(
        s.err("check_syntax", json!({"path": "noext"}))
            .contains("pass language")
    );
    assert_eq!(
        s.ok("check_syntax", json!({"path": "noext", "language": "json"}))["ok"],
        json!(false)
    );
    // Checking parses; it never runs the file.
    s.dir.write("boom.py", "open('RAN', 'w')\n");
    s.dir.write("boom.sh", "touch RAN\n");
    s.ok("check_syntax", json!({"path": "boom.py"}));
    s.ok("check_syntax", json!({"path": "boom.sh"}));
    assert!(!s.root().join("RAN").exists());
}

#[test]
fn check_lint_runs_the_languages_linter() {
    let s = Setup::new(Choice::Yes);
    if installed("shellcheck") {
        s.dir.write("l.sh", "#!/bin/bash\nrm $1\n");
        let r = s.ok("check_lint", json!({"path": "l.sh"}));
        assert_eq!(r["checker"], "shellcheck");
        assert_eq!(r["problems"][0]["code"], "SC2086", "{r}");
        assert_eq!(problems(&r)[0], (json!(2), json!(4)));
        s.dir.write("clean.sh", "#!/bin/bash\necho \"$1\"\n");
        assert_eq!(
            s.ok("check_lint", json!({"path": "clean.sh"}))["ok"],
            json!(true)
        );
    }
    if installed("pyflakes3") {
        s.dir.write("l.py", "import os\n");
        let r = s.ok("check_lint", json!({"path": "l.py"}));
        assert!(
            r["problems"][0]["message"]
                .as_str()
                .unwrap()
                .contains("'os' imported but unused"),
            "{r}"
        );
    }
    s.dir.write("x.rs", "fn main() {}\n");
    assert!(
        s.err("check_lint", json!({"path": "x.rs"}))
            .contains("cargo clippy")
    );
}

#[test]
fn diff_files_shows_a_unified_diff() {
    let s = Setup::new(Choice::Yes);
    s.dir.write("a.txt", "1\n2\n3\n");
    s.dir.write("b.txt", "1\ntwo\n3\n");
    assert_eq!(
        s.ok("diff_files", json!({"path_a": "a.txt", "path_b": "b.txt"})),
        json!("--- a.txt\n+++ b.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n")
    );
    assert_eq!(
        s.ok("diff_files", json!({"path_a": "a.txt", "path_b": "a.txt"})),
        json!("")
    );
    assert!(
        s.err(
            "diff_files",
            json!({"path_a": "a.txt", "path_b": "/etc/hostname"})
        )
        .contains("not within")
    );
}

/// A user who answers from a script and remembers what was asked.
struct ScriptedUser {
    answer: Result<String, String>,
    asked: Mutex<Vec<PreferenceRequest>>,
}

impl UserChannel for ScriptedUser {
    fn ask_preference(&self, request: &PreferenceRequest) -> Result<String, String> {
        self.asked.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

fn with_user(answer: Result<&str, &str>) -> (ToolBox, AgentHandle, Arc<ScriptedUser>) {
    let user = Arc::new(ScriptedUser {
        answer: answer.map(str::to_owned).map_err(str::to_owned),
        asked: Mutex::new(Vec::new()),
    });
    let agent = AgentHandle::new("t").with_user(user.clone());
    (
        ToolBox::new().with_defaults(&["framework"]).unwrap(),
        agent,
        user,
    )
}

fn failure(r: Result<Value, CallError>) -> String {
    match r {
        Err(CallError::Failed(info)) => info.error,
        other => panic!("{other:?}"),
    }
}

#[test]
fn ask_preference_always_asks_the_user_and_checks_the_answer() {
    let (tb, agent, user) = with_user(Ok("rebase"));
    let args = json!({"question": "Merge or rebase?", "choices": ["merge", "rebase"],
                      "default_choice": "merge", "title": "Git"});
    assert_eq!(
        tb.call_tool_blocking(&agent, "ask_preference", args, ()),
        Ok(json!("rebase"))
    );
    let asked = user.asked.lock().unwrap()[0].clone();
    assert_eq!(
        (
            asked.title.as_deref(),
            asked.default_choice.as_deref(),
            asked.allow_extra
        ),
        (Some("Git"), Some("merge"), false)
    );
    // An answer outside the choices is refused unless extra answers are allowed.
    let (tb, agent, _) = with_user(Ok("squash"));
    let two = json!({"question": "q", "choices": ["a", "b"]});
    assert!(
        failure(tb.call_tool_blocking(&agent, "ask_preference", two, ()))
            .contains("not one of the choices")
    );
    let extra = json!({"question": "q", "choices": ["a"], "allow_extra": true});
    assert_eq!(
        tb.call_tool_blocking(&agent, "ask_preference", extra, ()),
        Ok(json!("squash"))
    );
    // Nobody answering is a failure, never the default.
    let (tb, agent, _) = with_user(Err("the user closed the dialog"));
    let args = json!({"question": "q", "choices": ["a"], "default_choice": "a"});
    assert!(failure(tb.call_tool_blocking(&agent, "ask_preference", args, ())).contains("closed"));
    let bad_default = json!({"question": "q", "choices": ["a"], "default_choice": "z"});
    assert!(
        failure(tb.call_tool_blocking(&agent, "ask_preference", bad_default, ()))
            .contains("default_choice")
    );
    let none = json!({"question": "q", "choices": []});
    assert!(
        failure(tb.call_tool_blocking(&agent, "ask_preference", none, ()))
            .contains("at least one choice")
    );
    let args = json!({"question": "q", "choices": ["a"]});
    let e = failure(tb.call_tool_blocking(&AgentHandle::new("alone"), "ask_preference", args, ()));
    assert!(e.contains("AgentHandle::with_user"), "{e}");
}

struct Store;

impl CompactedResults for Store {
    fn original(&self, id: &str) -> Option<Value> {
        (id == "call_7").then(|| json!({"output": "the whole log"}))
    }
}

struct Engine;

impl SearchBackend for Engine {
    fn search(&self, query: &str, max: usize) -> Result<Vec<SearchResult>, String> {
        Ok((0..max + 3)
            .map(|i| SearchResult {
                title: format!("{query} {i}"),
                url: format!("https://example.test/{i}"),
                snippet: String::new(),
            })
            .collect())
    }
}

#[test]
fn compacted_results_and_web_search_come_from_the_runtime() {
    let tb = ToolBox::new()
        .with_defaults(&["framework", "search"])
        .unwrap();
    let agent = AgentHandle::new("t")
        .with_compacted_results(Arc::new(Store))
        .with_search_backend(Arc::new(Engine));
    let call = |tool: &str, args: Value| tb.call_tool_blocking(&agent, tool, args, ());
    assert_eq!(
        call(
            "extract_compacted_tool_result",
            json!({"toolcall_id": "call_7"})
        ),
        Ok(json!({"output": "the whole log"}))
    );
    assert!(
        failure(call(
            "extract_compacted_tool_result",
            json!({"toolcall_id": "x"})
        ))
        .contains("no compacted result")
    );
    let hits = call("web_search", json!({"query": "rust"})).unwrap();
    assert_eq!(hits.as_array().unwrap().len(), 5);
    assert_eq!(hits[0]["title"], "rust 0");
    assert!(
        failure(call(
            "web_search",
            json!({"query": "rust", "max_results": 21})
        ))
        .contains("between 1 and 20")
    );
    let bare = AgentHandle::new("bare");
    let e = failure(tb.call_tool_blocking(&bare, "web_search", json!({"query": "x"}), ()));
    assert!(e.contains("no search backend"), "{e}");
}

/// A `w`×`h` image in `format`, a gradient so it compresses like a picture.
fn picture(w: u32, h: u32, format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

#[test]
fn request_image_queues_a_fitted_image_for_the_model() {
    let s = Setup::new(Choice::Yes);
    let listed = |caps: &[&str]| {
        s.toolbox
            .list_tools(caps)
            .iter()
            .any(|t| t.name() == "request_image")
    };
    assert!(!listed(&[]) && listed(&["vision"]));
    fs::write(
        s.root().join("wide.png"),
        picture(2000, 1000, image::ImageFormat::Png),
    )
    .unwrap();
    fs::write(
        s.root().join("photo.jpg"),
        picture(300, 200, image::ImageFormat::Jpeg),
    )
    .unwrap();
    let said = s.ok("request_image", json!({"src": "wide.png"}));
    assert!(
        said.as_str()
            .unwrap()
            .ends_with("follows at 1000x500 (original 2000x1000)"),
        "{said}"
    );
    let queued = s.agent.run.take_deferred_images();
    assert_eq!(queued.len(), 1);
    let sent = &queued[0];
    assert_eq!(
        (sent.tool.as_str(), sent.image.media_type),
        ("request_image", "image/png")
    );
    assert_eq!((sent.image.width, sent.image.height), (1000, 500));
    let decoded = image::load_from_memory(&sent.image.data).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1000, 500));
    assert!(
        s.agent.run.take_deferred_images().is_empty(),
        "taking empties the queue"
    );

    let said = s.ok(
        "request_image",
        json!({"src": "photo.jpg", "crop": {"x": 10, "y": 20, "width": 100, "height": 50}}),
    );
    assert!(
        said.as_str()
            .unwrap()
            .contains("at 100x50 (original 300x200)"),
        "{said}"
    );
    let queued = s.agent.run.take_deferred_images();
    assert_eq!(
        (queued[0].image.media_type, queued[0].image.width),
        ("image/jpeg", 100)
    );
    let unchanged = s.ok("request_image", json!({"src": "photo.jpg"}));
    assert!(
        unchanged.as_str().unwrap().ends_with("(300x200) follows"),
        "{unchanged}"
    );
    assert_eq!(
        s.agent.run.take_deferred_images()[0].image.data,
        fs::read(s.root().join("photo.jpg")).unwrap()
    );

    let e = s.err(
        "request_image",
        json!({"src": "photo.jpg", "crop": {"x": 250, "y": 0, "width": 100, "height": 10}}),
    );
    assert!(e.contains("not inside the 300x200 image"), "{e}");
    s.dir.write("fake.png", "not an image");
    assert!(
        s.err("request_image", json!({"src": "fake.png"}))
            .contains("not a PNG, JPEG, WebP or GIF")
    );
    fs::write(
        s.root().join("x.bmp"),
        picture(4, 4, image::ImageFormat::Png)
            .into_iter()
            .skip(8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(
        s.err("request_image", json!({"src": "x.bmp"}))
            .contains("not a PNG")
    );
    assert!(
        s.err("request_image", json!({"src": "/etc/hostname"}))
            .contains("not within")
    );
    assert!(
        s.agent.run.take_deferred_images().is_empty(),
        "nothing queued on failure"
    );
}

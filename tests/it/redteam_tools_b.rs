//! Red-team findings against the built-in tool groups `cmd`, `diagnostic` and the image
//! helpers (issue 17): each test reproduces one way a tool outlived its timeout, ran code the
//! analysis never saw, crashed or exhausted the host, with real files in scratch directories
//! and a real bash. Each one failed while its finding stood.

use std::fs;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt};
use cmdguard::tool::{AgentHandle, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::red::Red;
use crate::scratch::Scratch;

/// The processes whose command line holds `needle` (a unique argument), by pid.
#[cfg(target_os = "linux")]
fn processes_with(needle: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let words: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if words.iter().any(|w| w == needle) {
            found.push(pid);
        }
    }
    found
}

/// Ends the processes this test started (by pid), whatever the outcome.
#[cfg(target_os = "linux")]
fn kill_all(pids: &[i32]) {
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

/// `setsid` is an allowed wrapper: `setsid sleep N` leaves the command's process group, so
/// neither the timeout's SIGTERM/SIGKILL reaches it, and the call then waits for the escaped
/// process to close the output pipe: a 1-second timeout takes the sleep's whole length. The
/// same wait makes `bash_wait` ignore its timeout, holding the job table locked meanwhile.
#[cfg(target_os = "linux")]
#[test]
fn bash_returns_by_its_timeout_even_when_the_command_leaves_its_process_group() {
    let r = Red::new(Choice::No);
    let (fg, bg) = (
        format!("15.{}", std::process::id()),
        format!("16.{}", std::process::id()),
    );
    let timed = |f: &dyn Fn() -> Result<Value, String>| {
        let start = Instant::now();
        let out = f();
        (start.elapsed(), out)
    };
    let (bash, wait) = std::thread::scope(|s| {
        let bash = s.spawn(|| {
            timed(&|| {
                r.call(
                    "bash",
                    json!({"command": format!("setsid sleep {fg}"), "timeout": 1}),
                )
            })
        });
        let wait = s.spawn(|| {
            let job = r
                .call(
                    "bash_background",
                    json!({"command": format!("setsid sleep {bg}")}),
                )
                .unwrap();
            std::thread::sleep(Duration::from_millis(200));
            timed(&|| r.call("bash_wait", json!({"id": job["id"], "timeout": 1})))
        });
        (bash.join().unwrap(), wait.join().unwrap())
    });
    kill_all(&processes_with(&fg));
    kill_all(&processes_with(&bg));
    assert!(r.asked().is_empty(), "{:?}", r.asked());
    // timeout + KILL_GRACE + the wait in `finish`, with room to spare.
    let late: Vec<String> = [("bash", bash), ("bash_wait", wait)]
        .into_iter()
        .filter(|(_, (took, _))| *took > Duration::from_secs(10))
        .map(|(tool, (took, out))| {
            format!("{tool} with timeout 1 returned after {took:?}: {out:?}")
        })
        .collect();
    assert!(late.is_empty(), "{late:#?}");
}

/// A process started by an allowed command (`setsid -f`, no question asked) outlives the
/// call and the workspace: nothing the tool promises ("its own process group, killed on
/// timeout and cancellation", jobs "killed with the workspace") reaches it. The same holds
/// for `cmd >/dev/null &`, once the user allowed that one command.
#[cfg(target_os = "linux")]
#[test]
fn nothing_a_bash_call_started_outlives_the_workspace() {
    let mut survivors = Vec::new();
    for (n, (command, answer)) in [
        ("setsid -f sleep {s} >/dev/null 2>&1", Choice::No),
        ("sleep {s} >/dev/null 2>&1 &", Choice::Yes),
    ]
    .into_iter()
    .enumerate()
    {
        let secs = format!("{}.{}", 60 + n, std::process::id());
        let r = Red::new(answer);
        let said = r.call("bash", json!({"command": command.replace("{s}", &secs)}));
        drop(r);
        std::thread::sleep(Duration::from_millis(200));
        let left = processes_with(&secs);
        kill_all(&left);
        if !left.is_empty() {
            survivors.push(format!("{command}: {said:?} left {left:?}"));
        }
    }
    assert!(survivors.is_empty(), "{survivors:#?}");
}

/// `max_output_size` is the model's to choose and has no ceiling (unlike `timeout`): an
/// allowed command's output is then kept whole, three times over (head, tail and unread).
#[test]
fn bash_output_is_capped_whatever_max_output_size_the_model_asks_for() {
    let r = Red::new(Choice::No);
    let out = r
        .call(
            "bash",
            json!({"command": "seq 1 3000000", "max_output_size": 1_000_000_000_000_u64}),
        )
        .unwrap();
    let len = out["output"].as_str().unwrap().len();
    assert!(
        len <= 1 << 20,
        "{len} bytes of output came back (and were held in memory)"
    );
}

/// `bash_background` holds the workspace's job table locked while the user is asked about
/// the command: meanwhile `bash_list`, `bash_read`, `bash_wait` and `bash_stop` of the same
/// workspace (parallel tool calls, another agent) wait for the person to answer.
#[test]
fn background_jobs_stay_readable_while_the_user_is_asked_about_a_new_one() {
    let dir = Scratch::new();
    let ws = Workspace::new(dir.path()).unwrap().with_permission(
        Arc::new(Policy::new(PolicySettings::default())),
        move |_: &Prompt| {
            std::thread::sleep(Duration::from_secs(3));
            ChoiceOutcome::user(Choice::No)
        },
    );
    let agent = AgentHandle::new("red").with_workspace(ws);
    let toolbox = Arc::new(ToolBox::new().with_defaults(&["cmd"]).unwrap());
    let (tb, a) = (toolbox.clone(), agent.clone());
    let asking = std::thread::spawn(move || {
        let _ = tb.call_tool_blocking(&a, "bash_background", json!({"command": "touch M"}), ());
    });
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    toolbox
        .call_tool_blocking(&agent, "bash_list", json!({}), ())
        .unwrap();
    let took = start.elapsed();
    asking.join().unwrap();
    assert!(
        took < Duration::from_secs(1),
        "bash_list waited {took:?} for the user's answer about another command"
    );
}

/// Runs this test binary again for the one test `name` with `REDTEAM_CHILD` set to `case`, so
/// that a crash (a stack overflow aborts the whole process) is seen from outside.
fn run_child(name: &str, case: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", case)
        .output()
        .unwrap()
}

/// A deeply nested file makes the checker recurse once per level on the calling thread: a
/// stack overflow, which aborts the whole agent process (no panic to catch). Files up to
/// 2 MiB are accepted; 100 000 levels take 200 kB. Run on an 8 MiB stack, as a main thread.
#[test]
fn check_syntax_survives_deeply_nested_files() {
    const NAME: &str = "redteam_tools_b::check_syntax_survives_deeply_nested_files";
    let cases = [
        (
            "deep.rs",
            format!(
                "const X: u8 = {}1{};\n",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ),
        (
            "deep.toml",
            format!("a = {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
        ),
    ];
    if let Ok(case) = std::env::var("REDTEAM_CHILD") {
        let (file, text) = cases.iter().find(|(f, _)| *f == case).unwrap();
        let r = Red::new(Choice::No);
        r.dir.write(file, text);
        let file = file.to_string();
        let said = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || r.call("check_syntax", json!({"path": file})))
            .unwrap()
            .join()
            .unwrap();
        println!("check_syntax said {said:?}");
        return;
    }
    let mut crashed = Vec::new();
    for (file, _) in &cases {
        let out = run_child(NAME, file);
        if !out.status.success() {
            crashed.push(format!(
                "{file}: {:?} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .find(|l| l.contains("overflow") || l.contains("panicked"))
                    .unwrap_or("")
            ));
        }
    }
    assert!(crashed.is_empty(), "{crashed:#?}");
}

/// `diff_files` runs `similar`'s Myers diff without a deadline on two files of up to 2 MiB
/// each: two files with no line in common cost O(N·D), minutes of CPU that no cancellation
/// stops. 2 × 40 000 lines (300 kB each) took 279 s in a debug build; here 2 × 8 000.
#[test]
fn diff_files_of_unrelated_files_finishes_quickly() {
    let r = Red::new(Choice::No);
    let a: String = (0..8_000).map(|i| format!("a{i}\n")).collect();
    let b: String = (0..8_000).map(|i| format!("b{i}\n")).collect();
    r.dir.write("a.txt", &a);
    r.dir.write("b.txt", &b);
    let start = Instant::now();
    let said = r.call("diff_files", json!({"path_a": "a.txt", "path_b": "b.txt"}));
    let took = start.elapsed();
    assert!(said.is_ok(), "{said:?}");
    assert!(took < Duration::from_secs(3), "diff_files took {took:?}");
}

/// CRC-32 (IEEE), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Bits into bytes, least significant first, as deflate packs them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u64, count: u32) {
        self.acc |= value << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u64, len: u32) {
        let reversed = (0..len).fold(0, |r, i| (r << 1) | ((code >> i) & 1));
        self.put(reversed, len);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A zlib stream of `n` zero bytes: one literal, then copies of 258 bytes at distance 1
/// (13 bits each, fixed Huffman codes), so ~40 kB stands for 50 MB.
fn zlib_zeros(n: usize) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman codes
    bits.code(0x30, 8); // literal 0
    let mut left = n - 1;
    while left >= 258 {
        bits.code(0xc5, 8); // length 258
        bits.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block
    let mut out = vec![0x78, 0x01];
    out.extend(bits.finish());
    let b = (n % 65_521) as u32;
    out.extend(((b << 16) | 1).to_be_bytes());
    out
}

/// A valid black 1-bit grayscale PNG of `w`×`h` pixels, a few hundred kB even when it
/// decodes to hundreds of MB.
fn png_bomb(w: u32, h: u32) -> Vec<u8> {
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        c.extend_from_slice(&body);
        c.extend(crc32(&body).to_be_bytes());
        c
    };
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([1, 0, 0, 0, 0]); // 1 bit, grayscale, deflate, no filter, no interlace
    let raw = h as usize * (1 + (w as usize).div_ceil(8));
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &ihdr));
    png.extend(chunk(b"IDAT", &zlib_zeros(raw)));
    png.extend(chunk(b"IEND", &[]));
    png
}

/// The peak resident memory of this process, in kB (Linux).
fn peak_kb() -> u64 {
    fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// A small PNG that declares 16 000 × 16 000 pixels: `request_image` decodes all of it (the
/// image crate's only guard is its 512 MiB allocation limit) and then resizes it, hundreds
/// of MB and many seconds of CPU for a 200 kB file (20 000²: 307 kB, 688 MB, 41 s in a debug
/// build). Measured in a child process, alone.
#[cfg(target_os = "linux")]
#[test]
fn request_image_refuses_a_decompression_bomb_before_decoding_it() {
    const NAME: &str =
        "redteam_tools_b::request_image_refuses_a_decompression_bomb_before_decoding_it";
    if std::env::var("REDTEAM_CHILD").is_ok() {
        let r = Red::new(Choice::No);
        let bomb = png_bomb(16_000, 16_000);
        fs::write(r.dir.path().join("bomb.png"), &bomb).unwrap();
        let before = peak_kb();
        let start = Instant::now();
        let said = r.call("request_image", json!({"src": "bomb.png"}));
        println!(
            "REDTEAM {} kB file, {:?}, peak grew by {} MB: {said:?}",
            bomb.len() / 1024,
            start.elapsed(),
            (peak_kb() - before) / 1024
        );
        return;
    }
    let out = run_child(NAME, "bomb");
    let said = String::from_utf8_lossy(&out.stdout);
    // libtest prints "test <name> ... " before the test's own output, on the same line.
    let line = said
        .lines()
        .find_map(|l| l.find("REDTEAM ").map(|at| &l[at..]))
        .unwrap_or("");
    let grew: u64 = line
        .split("peak grew by ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    assert!(out.status.success(), "{:?} {said}", out.status);
    assert!(grew < 100, "{line}");
}

/// `inspect_image` promises a check "that it decodes" but reads only the header: a PNG cut
/// after its header (or with garbage pixel data) is queued for the model as an image, where
/// the model's API rejects it.
#[test]
fn a_corrupt_image_is_not_queued_for_the_model() {
    let r = Red::new(Choice::No);
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(64, 64, |x, y| {
        image::Rgb([x as u8, y as u8, 7])
    }))
    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
    .unwrap();
    png.truncate(60);
    fs::write(r.dir.path().join("cut.png"), &png).unwrap();
    let said = r.call("request_image", json!({"src": "cut.png"}));
    let queued = r.agent.run.take_deferred_images();
    assert!(
        queued.is_empty(),
        "a PNG cut to 60 bytes was queued: {said:?}"
    );
}

/// `bash` runs with the host's whole environment; the command is judged without it. A
/// `BASH_ENV` (CircleCI sets one for every step) runs its file before every allowed command;
/// when it names a file in the workspace, the agent writes that file (a new file: no
/// question) and then any allowed command runs what it wrote. Run in a child process with
/// `BASH_ENV` set.
#[test]
fn bash_does_not_run_a_startup_file_the_analysis_never_saw() {
    const NAME: &str = "redteam_tools_b::bash_does_not_run_a_startup_file_the_analysis_never_saw";
    if let Ok(dir) = std::env::var("REDTEAM_CHILD") {
        let ws = Workspace::new(&dir).unwrap();
        let agent = AgentHandle::new("red").with_workspace(ws);
        let toolbox = ToolBox::new().with_defaults(&["fs", "cmd"]).unwrap();
        let call = |tool: &str, args: Value| toolbox.call_tool_blocking(&agent, tool, args, ());
        println!(
            "{:?}",
            call(
                "write_file",
                json!({"path": ".env.sh", "content": "touch MARK\n"})
            )
        );
        println!("{:?}", call("bash", json!({"command": "echo hi"})));
        return;
    }
    let dir = Scratch::new();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", dir.path())
        .env("BASH_ENV", dir.path().join(".env.sh"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !dir.path().join("MARK").exists(),
        "`echo hi` (allowed) also ran the agent's .env.sh: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The checkers `check_syntax` and `check_lint` start (`bash -n`, `shellcheck`, `python3`,
/// pyflakes) run without a timeout, and the call neither looks at cancellation nor kills
/// them: shellcheck takes minutes on 20 000 nested `if`s (230 kB), and the user's "stop"
/// does not stop it.
#[cfg(target_os = "linux")]
#[test]
fn check_lint_stops_its_linter_when_the_run_is_cancelled() {
    let found = std::process::Command::new("sh")
        .args(["-c", "command -v shellcheck"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "shellcheck is required in CI (.ci/run installs it)"
        );
        eprintln!("skipping: shellcheck is not installed");
        return;
    }
    let r = Red::new(Choice::No);
    let text = format!(
        "{}echo\n{}",
        "if true; then\n".repeat(20_000),
        "fi\n".repeat(20_000)
    );
    let file = r.dir.write("deep.sh", &text);
    let file = fs::canonicalize(file).unwrap().display().to_string();
    let (tb, agent) = (r.toolbox.clone(), r.agent.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let said = tb.call_tool_blocking(&agent, "check_lint", json!({"path": "deep.sh"}), ());
        let _ = tx.send(said.map(|_| ()));
    });
    std::thread::sleep(Duration::from_secs(1));
    r.agent.run.cancel("the user pressed stop");
    let ended = rx.recv_timeout(Duration::from_secs(10));
    kill_all(&processes_with(&file));
    assert!(
        ended.is_ok(),
        "check_lint still ran 10 s after the run was cancelled"
    );
}

/// The mark reaches what left the process group on the other ways a command ends: `bash_stop`
/// of a background job and the cancellation of a run during a `bash` call.
#[cfg(target_os = "linux")]
#[test]
fn bash_stop_and_cancellation_kill_what_left_the_process_group() {
    let secs = |n: u32| format!("{n}.{}", std::process::id());
    let r = Red::new(Choice::Yes);
    let job = r
        .call(
            "bash_background",
            json!({"command": format!("setsid sleep {} & sleep 30", secs(63))}),
        )
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let started = processes_with(&secs(63));
    r.call("bash_stop", json!({"id": job["id"]})).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let after_stop = processes_with(&secs(63));
    kill_all(&after_stop);

    let (tb, agent) = (r.toolbox.clone(), r.agent.clone());
    let command = format!("setsid sleep {} & sleep 30", secs(64));
    let call = std::thread::spawn(move || {
        tb.call_tool_blocking(&agent, "bash", json!({"command": command}), ())
    });
    std::thread::sleep(Duration::from_millis(500));
    let before_cancel = processes_with(&secs(64));
    r.agent.run.cancel("the user pressed stop");
    let said = call.join().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let after_cancel = processes_with(&secs(64));
    kill_all(&after_cancel);
    assert_eq!(
        (started.len(), after_stop, before_cancel.len(), after_cancel),
        (1, vec![], 1, vec![]),
        "{said:?}"
    );
}

/// The diff of two large unrelated files is cut to `MAX_DIFF_OUTPUT` bytes, and says so.
#[test]
fn diff_files_output_is_capped() {
    use cmdguard::tool::groups::diagnostic::MAX_DIFF_OUTPUT;
    let r = Red::new(Choice::No);
    let line = |c: char, i: usize| format!("{c}{i:07} {}\n", "x".repeat(32));
    r.dir.write(
        "a.txt",
        &(0..8_000).map(|i| line('a', i)).collect::<String>(),
    );
    r.dir.write(
        "b.txt",
        &(0..8_000).map(|i| line('b', i)).collect::<String>(),
    );
    let said = r
        .call("diff_files", json!({"path_a": "a.txt", "path_b": "b.txt"}))
        .unwrap();
    let diff = said.as_str().unwrap();
    assert!(diff.len() <= MAX_DIFF_OUTPUT + 100, "{}", diff.len());
    assert!(
        diff.trim_end().ends_with("more bytes of diff omitted …]"),
        "{}",
        &diff[diff.len() - 100..]
    );
}

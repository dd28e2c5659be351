//! sandbox/self_test.rs: proves the sandbox sees what bash does, before anything trusts it.
//!
//! One table, one sandbox (building it is the expensive part), whole summaries compared. Like
//! the differential test, it skips with a printed notice where the sandbox cannot run.

use super::{Mode, Observation, Sandbox};

/// A sorted, one-line-per-fact rendering of an observation: exec order races between pipeline
/// stages and async children, so order is not part of the contract.
fn summary(o: &Observation) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(e) = &o.error {
        lines.push(format!("error {e}"));
    }
    for exec in &o.execs {
        let argv: Vec<String> = exec.argv.iter().map(|a| super::show(a)).collect();
        let failed = if exec.ok { "" } else { " (failed)" };
        lines.push(format!(
            "exec{failed} {} {}",
            super::show(&exec.path),
            argv.join(" ")
        ));
    }
    for argv in &o.not_found {
        let argv: Vec<String> = argv.iter().map(|a| super::show(a)).collect();
        lines.push(format!("not found {}", argv.join(" ")));
    }
    lines.extend(o.connects.iter().map(|c| format!("connect {c}")));
    lines.extend(o.written.iter().map(|w| format!("wrote {w}")));
    lines.extend(o.deleted.iter().map(|d| format!("deleted {d}")));
    if o.timed_out {
        lines.push("timed out".to_owned());
    }
    lines.sort();
    lines
}

#[test]
fn sandbox_reports_what_bash_executed_wrote_and_connected() {
    let Some(sandbox) =
        Sandbox::open_or_skip("sandbox_reports_what_bash_executed_wrote_and_connected")
    else {
        return;
    };
    let succeed: &[(&[u8], &[&str])] = &[
        (
            b"ls; rm y",
            &["exec /usr/bin/ls ls", "exec /usr/bin/rm rm y"],
        ),
        // Shims do nothing: `touch` runs but writes nothing; only bash's own redirect writes.
        (b"touch x", &["exec /usr/bin/touch touch x"]),
        (b"echo hi > x", &["wrote /project/x"]),
        (b": > README.md", &["wrote /project/README.md"]),
        (b"echo hi > /dev/null 2>&1", &[]),
        (b"echo $(id)", &["exec /usr/bin/id id"]),
        (
            b"cat <(id -u)",
            &["exec /usr/bin/cat cat /dev/fd/63", "exec /usr/bin/id id -u"],
        ),
        (b"ls &", &["exec /usr/bin/ls ls"]),
        (b"ls\nid", &["exec /usr/bin/id id", "exec /usr/bin/ls ls"]),
        (b"ls \xff", &["exec /usr/bin/ls ls \u{fffd}"]),
        (b"exec -a ls rm x", &["exec /usr/bin/rm ls x"]),
        (
            b"bash -c 'id'",
            &["exec /usr/bin/bash bash -c id", "exec /usr/bin/id id"],
        ),
        (b"./run.sh", &["exec (failed) ./run.sh ./run.sh"]),
        (b"nosuchprogram --flag", &["not found nosuchprogram --flag"]),
        (
            b"echo hi > /dev/tcp/127.0.0.1/80",
            &[
                "connect 3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}, 16",
            ],
        ),
        (b"cd nowhere && ls", &["exec /usr/bin/ls ls"]),
        (b"git status || rm -rf x", &["exec /usr/bin/git git status"]),
        (b"git diff *.md", &["exec /usr/bin/git git diff README.md"]),
        (b"while :; do :; done", &["timed out"]),
    ];
    let fail: &[(&[u8], &[&str])] = &[
        (b"cd nowhere && ls", &[]),
        (
            b"git status || rm -rf x",
            &["exec /usr/bin/git git status", "exec /usr/bin/rm rm -rf x"],
        ),
    ];
    let mut mismatches = Vec::new();
    for (mode, table) in [(Mode::SUCCEED, succeed), (Mode::FAIL, fail)] {
        let cmds: Vec<&[u8]> = table.iter().map(|(c, _)| *c).collect();
        for ((cmd, want), seen) in table.iter().zip(sandbox.observe(&cmds, mode)) {
            let mut want: Vec<String> = want.iter().map(|w| (*w).to_owned()).collect();
            want.sort();
            let got = summary(&seen);
            if got != want {
                mismatches.push(format!(
                    "{:?} ({}):\n  want {want:?}\n  got  {got:?}\n{}",
                    String::from_utf8_lossy(cmd),
                    mode.name(),
                    seen.describe()
                ));
            }
        }
    }
    // execve cannot pass a NUL to `bash -c`, so such a command is reported, never truncated.
    let nul = sandbox.observe(&[b"ls\0rm x".as_slice()], Mode::SUCCEED);
    let nul_error = nul.first().and_then(|o| o.error.as_deref());
    if nul_error != Some("command holds a NUL byte: execve cannot pass it to bash -c") {
        mismatches.push(format!("NUL command: got error {nul_error:?}"));
    }
    assert!(
        mismatches.is_empty(),
        "sandbox saw something else:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn real_programs_mode_runs_the_host_programs_and_sees_what_they_do() {
    let fixtures = |root: &std::path::Path| -> Result<(), String> {
        let dir = root.join("fx/t");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("notes.txt"), "b\na\n").map_err(|e| e.to_string())
    };
    let Some(sandbox) = Sandbox::open_real_or_skip(
        "real_programs_mode_runs_the_host_programs_and_sees_what_they_do",
        &fixtures,
    ) else {
        return;
    };
    let table: &[(&str, &[&str])] = &[
        // The real sort writes its -o file, in the directory the command started in.
        (
            "sort -o out.txt notes.txt",
            &[
                "exec /usr/bin/sort sort -o out.txt notes.txt",
                "wrote /fx/t/out.txt",
            ],
        ),
        // The host's /usr is read-only: the attempt runs, nothing lands on the host.
        ("touch /usr/x", &["exec /usr/bin/touch touch /usr/x"]),
        // A program's temp file, removed before it exits, leaves no trace.
        (
            "t=$(mktemp) && rm \"$t\"",
            &["exec /usr/bin/mktemp mktemp", "exec /usr/bin/rm rm /tmp/*"],
        ),
        // What a program connects to is seen, not only bash's /dev/tcp.
        (
            "python3 -c 'import socket; socket.socket().connect((\"127.0.0.1\", 9))'",
            &[
                "connect 3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr(\"127.0.0.1\")}, 16",
                "exec /usr/bin/python3 python3 -c import socket; socket.socket().connect((\"127.0.0.1\", 9))",
            ],
        ),
    ];
    let jobs: Vec<(&str, &str)> = table.iter().map(|(c, _)| ("/fx/t", *c)).collect();
    let mut mismatches = Vec::new();
    for ((cmd, want), seen) in table.iter().zip(sandbox.observe_in(&jobs, Mode::FAIL)) {
        let mut want: Vec<String> = want.iter().map(|w| (*w).to_owned()).collect();
        want.sort();
        // mktemp's name is random: compare it as a pattern.
        let got: Vec<String> = summary(&seen)
            .into_iter()
            .map(
                |line| match line.strip_prefix("exec /usr/bin/rm rm /tmp/tmp.") {
                    Some(_) => "exec /usr/bin/rm rm /tmp/*".to_owned(),
                    None => line,
                },
            )
            .collect();
        if got != want {
            mismatches.push(format!(
                "{cmd:?}:\n  want {want:?}\n  got  {got:?}\n{}",
                seen.describe()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "real-programs sandbox saw something else:\n{}",
        mismatches.join("\n")
    );
}

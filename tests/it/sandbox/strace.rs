//! sandbox/strace.rs: turns an `strace -f -xx` log into the events of one sandboxed command.
//!
//! It only reads text the sandbox driver produced; it never decides whether what bash did was
//! safe. Anything it cannot parse is skipped rather than guessed at, and the caller treats a log
//! without the chroot marker as a harness failure, so a garbled log can never pass as "bash ran
//! nothing".

use std::collections::HashMap;

/// One system call of interest, attributed to the process that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Pid as strace saw it (strace runs in the command's own pid namespace).
    pub pid: u32,
    /// What the call was.
    pub call: Call,
}

/// The calls the sandbox traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `execve`/`execveat`: `ok` is false when the kernel refused it (ENOENT, EACCES, …).
    Exec {
        /// Path handed to the kernel (what actually runs), not `argv[0]`.
        path: Vec<u8>,
        /// The argument vector, `argv[0]` included.
        argv: Vec<Vec<u8>>,
        /// Whether the call succeeded.
        ok: bool,
    },
    /// `clone`/`clone3`/`fork`/`vfork` that created `child`.
    Spawn {
        /// Pid of the new process.
        child: u32,
    },
    /// `connect`, successful or not: an attempt is what matters.
    Connect {
        /// The `sa_family=` value, e.g. `AF_INET`.
        family: String,
        /// The sockaddr as strace printed it, hex strings decoded for reading.
        addr: String,
    },
}

/// Parses a whole log. Lines strace split because two processes interleaved
/// (`<unfinished ...>` … `<... execve resumed>`) are joined first.
pub fn parse(log: &[u8]) -> Vec<Event> {
    let mut pending: HashMap<u32, Vec<u8>> = HashMap::new();
    let mut events = Vec::new();
    for line in log.split(|&b| b == b'\n') {
        let Some((pid, rest)) = split_pid(line) else {
            continue;
        };
        if let Some(head) = rest.strip_suffix(b" <unfinished ...>".as_slice()) {
            pending.insert(pid, head.to_vec());
            continue;
        }
        let joined;
        let body = if rest.starts_with(b"<... ") {
            // `<... execve resumed>, [...], ...) = 0`: the tail continues the pending head.
            let Some(head) = pending.remove(&pid) else {
                continue;
            };
            let Some(close) = find(rest, b">") else {
                continue;
            };
            joined = [head.as_slice(), &rest[close + 1..]].concat();
            joined.as_slice()
        } else {
            rest
        };
        if let Some(call) = parse_call(body) {
            events.push(Event { pid, call });
        }
    }
    events
}

/// The events that belong to the command: everything after the chroot'd bash started, made by
/// that bash or its descendants. `None` when the marker is missing (the command never started).
///
/// The marker is a successful exec of `/bin/bash` by a process whose previous successful exec
/// was `chroot`: harness processes (timeout, env, chroot) come before it and are excluded by
/// ancestry, not by name, so a command cannot hide an exec by naming its program `chroot`.
pub fn command_events(events: &[Event]) -> Option<Vec<&Event>> {
    let mut last_exec: HashMap<u32, &[u8]> = HashMap::new();
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut root = None;
    for (i, event) in events.iter().enumerate() {
        match &event.call {
            Call::Spawn { child } => {
                parent.insert(*child, event.pid);
            }
            Call::Exec { path, ok: true, .. } => {
                let previous = last_exec.insert(event.pid, path.as_slice());
                if path == b"/bin/bash" && previous.is_some_and(|p| basename(p) == b"chroot") {
                    root = Some((event.pid, i));
                    break;
                }
            }
            Call::Exec { ok: false, .. } | Call::Connect { .. } => {}
        }
    }
    let (root, start) = root?;
    // The whole map first: strace may print a child's first exec before the parent's clone
    // returns (`clone(… <unfinished ...>`, child's execve, `<... clone resumed>) = 11`).
    for event in &events[start + 1..] {
        if let Call::Spawn { child } = &event.call {
            parent.insert(*child, event.pid);
        }
    }
    let selected = events[start + 1..]
        .iter()
        .filter(|event| descends_from(event.pid, root, &parent))
        .collect();
    Some(selected)
}

fn descends_from(mut pid: u32, root: u32, parent: &HashMap<u32, u32>) -> bool {
    // Bounded walk: a corrupt log with a parent cycle must not hang the test.
    for _ in 0..100_000 {
        if pid == root {
            return true;
        }
        match parent.get(&pid) {
            Some(&p) => pid = p,
            None => return false,
        }
    }
    false
}

fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// `1234  execve(...)` → (1234, `execve(...)`).
fn split_pid(line: &[u8]) -> Option<(u32, &[u8])> {
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let pid = std::str::from_utf8(&line[..digits]).ok()?.parse().ok()?;
    let rest = &line[digits..];
    let spaces = rest.iter().take_while(|&&b| b == b' ').count();
    Some((pid, &rest[spaces..]))
}

/// `name(args) = ret …` → a [`Call`]. With `-xx` every string is `\xHH`-escaped, so the
/// argument text holds no raw quote, bracket or ` = ` of its own, and the last ` = ` is the
/// return value's. strace pads short lines to align the `=` (`<... execve resumed>)     = 0`).
fn parse_call(body: &[u8]) -> Option<Call> {
    let open = find(body, b"(")?;
    let name = &body[..open];
    let eq = rfind(body, b" = ")?;
    let close = body[..eq].iter().rposition(|&b| b != b' ')?;
    if body[close] != b')' || close <= open {
        return None;
    }
    let args = &body[open + 1..close];
    let ret = &body[eq + 3..];
    let ret = ret.split(|&b| b == b' ').next().unwrap_or_default();
    match name {
        b"execve" | b"execveat" => {
            let (path, after) = quoted(args)?;
            let list_open = find(after, b"[")?;
            let list_close = find(&after[list_open..], b"]")? + list_open;
            let mut argv = Vec::new();
            let mut list = &after[list_open + 1..list_close];
            while let Some((arg, rest)) = quoted(list) {
                argv.push(arg);
                list = rest;
            }
            Some(Call::Exec {
                path,
                argv,
                ok: ret == b"0",
            })
        }
        b"clone" | b"clone3" | b"fork" | b"vfork" => {
            let child = std::str::from_utf8(ret).ok()?.parse().ok()?;
            Some(Call::Spawn { child })
        }
        b"connect" => {
            let family = find(args, b"sa_family=").map(|at| {
                let value = &args[at + b"sa_family=".len()..];
                let end = value.iter().position(|&b| b == b',' || b == b'}');
                String::from_utf8_lossy(&value[..end.unwrap_or(value.len())]).into_owned()
            });
            Some(Call::Connect {
                family: family.unwrap_or_default(),
                addr: decode_strings(args),
            })
        }
        _ => None,
    }
}

/// The first `"…"` in `text`, decoded, and the text after it.
fn quoted(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let start = find(text, b"\"")? + 1;
    let len = find(&text[start..], b"\"")?;
    Some((
        unescape(&text[start..start + len]),
        &text[start + len + 1..],
    ))
}

/// Undoes strace's `\xHH` escaping; anything else is kept as it is.
fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() / 4);
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && s.get(i + 1) == Some(&b'x') {
            let hex = s
                .get(i + 2..i + 4)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// The argument text with every quoted string decoded, for human-readable reports.
fn decode_strings(args: &[u8]) -> String {
    let mut out = Vec::new();
    let mut rest = args;
    while let Some(start) = find(rest, b"\"") {
        out.extend_from_slice(&rest[..=start]);
        let Some(len) = find(&rest[start + 1..], b"\"") else {
            break;
        };
        out.extend(unescape(&rest[start + 1..start + 1 + len]));
        out.push(b'"');
        rest = &rest[start + len + 2..];
    }
    out.extend_from_slice(rest);
    String::from_utf8_lossy(&out).into_owned()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> String {
        s.bytes().map(|b| format!("\\x{b:02x}")).collect()
    }

    fn exec_line(pid: u32, path: &str, argv: &[&str], ret: &str) -> String {
        let argv: Vec<String> = argv.iter().map(|a| format!("\"{}\"", hex(a))).collect();
        format!(
            "{pid}   execve(\"{}\", [{}], 0x7ffd /* 5 vars */) = {ret}",
            hex(path),
            argv.join(", ")
        )
    }

    fn argv_of(event: &Event) -> Vec<String> {
        match &event.call {
            Call::Exec { argv, .. } => argv
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
            other => vec![format!("{other:?}")],
        }
    }

    #[test]
    fn selects_descendants_of_the_chrooted_bash_only() {
        let log = [
            exec_line(1, "/usr/bin/timeout", &["timeout", "5"], "0"),
            "1     clone(child_stack=NULL, flags=SIGCHLD) = 2".to_owned(),
            exec_line(2, "/usr/bin/env", &["env", "-i"], "0"),
            exec_line(
                2,
                "/usr/local/bin/chroot",
                &["chroot"],
                "-1 ENOENT (No such file)",
            ),
            exec_line(2, "/usr/sbin/chroot", &["chroot", "/x/0/merged"], "0"),
            exec_line(2, "/bin/bash", &["/bin/bash", "-c", "ls; rm y"], "0"),
            "2     clone(child_stack=NULL, flags=SIGCHLD) = 3".to_owned(),
            exec_line(3, "/usr/bin/ls", &["ls"], "0"),
            // A harness process (pid 1) must not be attributed to the command.
            exec_line(1, "/usr/bin/sleep", &["sleep", "1"], "0"),
            "2     clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>".to_owned(),
            exec_line(
                3,
                "/usr/bin/ignored-twice",
                &["x"],
                "-1 ENOENT (No such file)",
            ),
            // The child can exec before strace prints its parent's clone return.
            format!(
                "4     execve(\"{}\", [\"{}\", \"{}\"], 0x1 /* 5 vars */ <unfinished ...>",
                hex("/usr/bin/rm"),
                hex("rm"),
                hex("y")
            ),
            "2     <... clone resumed>) = 4".to_owned(),
            // strace pads short lines so that `=` lines up.
            "4     <... execve resumed>)             = 0".to_owned(),
        ]
        .join("\n");
        let events = parse(log.as_bytes());
        let selected = command_events(&events).unwrap_or_default();
        let argvs: Vec<Vec<String>> = selected
            .iter()
            .filter(|e| matches!(e.call, Call::Exec { .. }))
            .map(|e| argv_of(e))
            .collect();
        assert_eq!(argvs, [vec!["ls"], vec!["x"], vec!["rm", "y"]]);
    }

    #[test]
    fn missing_marker_means_the_command_never_started() {
        let log = exec_line(1, "/usr/bin/timeout", &["timeout"], "0");
        assert_eq!(command_events(&parse(log.as_bytes())), None);
    }

    #[test]
    fn connect_reports_family_and_decoded_address() {
        let line = format!(
            "7 connect(3, {{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"{}\")}}, 16) = -1 ENETUNREACH (Network is unreachable)",
            hex("127.0.0.1")
        );
        let events = parse(line.as_bytes());
        assert_eq!(
            events,
            [Event {
                pid: 7,
                call: Call::Connect {
                    family: "AF_INET".to_owned(),
                    addr: "3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}, 16".to_owned(),
                },
            }]
        );
    }

    #[test]
    fn arguments_keep_arbitrary_bytes() {
        let line = "9 execve(\"\\x2f\\x61\", [\"\\x61\", \"\\xff\\x0a\\x22\", \"\"], 0x1) = 0";
        let events = parse(line.as_bytes());
        assert_eq!(
            events,
            [Event {
                pid: 9,
                call: Call::Exec {
                    path: b"/a".to_vec(),
                    argv: vec![b"a".to_vec(), b"\xff\n\"".to_vec(), Vec::new()],
                    ok: true,
                },
            }]
        );
    }
}

//! The hostile inputs of issue 11 ("bounded work"), each at a size factor `k`: one module
//! shared by the `hostile` bench group and the growth test (`tests/it/bounded.rs`), so both
//! measure the same thing. Each row repeats its hostile unit `k` times; rows that need a
//! repository build it under a scratch directory.

#![allow(dead_code, reason = "the bench and the test each use part of it")]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The rows, in the order of the issue's table.
pub const ROWS: &[&str] = &[
    "nested_eval_braces",
    "find_ok_chain",
    "unclosed_braces_sequence",
    "eval_array_words",
    "env_chain",
    "unclosed_braces",
    "submodule_indexes",
    "cd_chain_index",
    "config_fsmonitor_lines",
    "cd_up_loop",
];

/// One input: the command, and the directory it runs in when the row reads a repository.
pub struct Case {
    pub cmd: String,
    pub dir: Option<PathBuf>,
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The input of `row` at size factor `k`, with any repository built under `scratch`.
pub fn case(row: &str, k: usize, scratch: &Path) -> std::io::Result<Case> {
    let plain = |cmd: String| Ok(Case { cmd, dir: None });
    match row {
        // Three levels of `eval` that each brace-expand the next one's text.
        "nested_eval_braces" => {
            let one = format!(
                "eval {{1..10}}{}",
                quote(&format!(
                    ";eval {{1..10}}{}",
                    quote(&format!(";eval {}", quote("echo {1..10}")))
                ))
            );
            plain(vec![one; k].join(";"))
        }
        // Each level's command is the rest of the line, so a chain costs the depth limit
        // (`max_depth`) times the line: past that depth, growth is linear.
        "find_ok_chain" => plain(format!("find{}", " -ok find".repeat(160 * k))),
        "unclosed_braces_sequence" => plain(format!(
            "echo a{}{{1..64}}{}",
            "{".repeat(100 * k),
            "{a..a}".repeat(31)
        )),
        "eval_array_words" => {
            plain(vec![format!("eval{}", " 'a=( '{1..64}".repeat(8)); 2 * k].join(";"))
        }
        "env_chain" => plain(format!("{}ls", "env ".repeat(1000 * k))),
        "unclosed_braces" => plain(format!("echo a{}", "{".repeat(4000 * k))),
        "submodule_indexes" => {
            let root = scratch.join(format!("submodules-{k}"));
            let n = 4 * k;
            gitdir(&root.join(".git"))?;
            let links: Vec<(u32, String)> =
                (0..n).map(|i| (0o160000, format!("sub{i:02}"))).collect();
            std::fs::write(root.join(".git/index"), index(&links))?;
            let files: Vec<(u32, String)> = (0..512)
                .map(|i| (0o100644, format!("dir/file{i:04}.txt")))
                .collect();
            for (_, link) in &links {
                let sub = root.join(link).join(".git");
                gitdir(&sub)?;
                std::fs::write(sub.join("index"), index(&files))?;
            }
            Ok(Case {
                cmd: "git status".into(),
                dir: Some(root),
            })
        }
        "cd_chain_index" => {
            // Each `cd` applies to every directory tracked so far (at most 32, then the place
            // is unknown and git asks): below that cap the work is cds × directories, from 40
            // `cd`s on it grows linearly.
            let root = scratch.join(format!("cd-chain-{k}"));
            let n = 40 * k;
            gitdir(&root.join(".git"))?;
            let files: Vec<(u32, String)> = (0..2048)
                .map(|i| (0o100644, format!("dir/file{i:04}.txt")))
                .collect();
            std::fs::write(root.join(".git/index"), index(&files))?;
            let mut deep = root.clone();
            let mut cmd = String::new();
            for i in 1..=n {
                deep.push(format!("d{i}"));
                let _ = write!(cmd, "cd d{i};");
            }
            std::fs::create_dir_all(&deep)?;
            cmd.push_str("git status");
            Ok(Case {
                cmd,
                dir: Some(root),
            })
        }
        "config_fsmonitor_lines" => {
            let root = scratch.join(format!("config-{k}"));
            gitdir(&root.join(".git"))?;
            let line = "\tfsmonitor = ./x\n";
            std::fs::write(
                root.join(".git/config"),
                format!("[core]\n{}", line.repeat(2000 * k)),
            )?;
            Ok(Case {
                cmd: "git status".into(),
                dir: Some(root),
            })
        }
        "cd_up_loop" => {
            let mut deep = scratch.join(format!("deep-{k}"));
            for _ in 0..100 {
                deep.push("dd");
            }
            std::fs::create_dir_all(&deep)?;
            Ok(Case {
                cmd: format!("for x in 1; do {} done", "cd ..;".repeat(200 * k)),
                dir: Some(deep),
            })
        }
        other => Err(std::io::Error::other(format!("no hostile row `{other}`"))),
    }
}

fn gitdir(d: &Path) -> std::io::Result<()> {
    for sub in ["objects", "refs", "hooks"] {
        std::fs::create_dir_all(d.join(sub))?;
    }
    std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n")
}

/// A version 2 index the way git writes one, with a zero checksum.
fn index(entries: &[(u32, String)]) -> Vec<u8> {
    let mut d = b"DIRC".to_vec();
    d.extend(2u32.to_be_bytes());
    d.extend((entries.len() as u32).to_be_bytes());
    for (mode, path) in entries {
        let start = d.len();
        d.extend([0u8; 24]);
        d.extend(mode.to_be_bytes());
        d.extend([0u8; 12]);
        d.extend([0xabu8; 20]);
        d.extend((path.len() as u16).to_be_bytes());
        d.extend(path.as_bytes());
        let len = d.len() - start;
        d.extend(std::iter::repeat_n(0u8, ((len + 8) & !7) - len));
    }
    d.extend([0u8; 20]);
    d
}

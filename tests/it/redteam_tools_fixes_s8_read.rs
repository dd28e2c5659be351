//! Fixes of the fifth tool red team's (redtools4) read findings (issue 17): its tests, copied
//! unchanged but for the module path a child run names. A credential file is asked about
//! when read from the temporary directory, under a home reached through a link, when named
//! in capitals, and when the name given is a link to it.

use std::fs;
use std::path::Path;

use cmdguard::policy::Choice;
use serde_json::json;

use crate::red::Red;

/// `permit_read` asks before a credential file is read, but `ask_every_time` answers yes by
/// itself for anything in the temporary directory, and `copy` asks nothing when the copy
/// keeps a credential name (`.env` to `<temp>/.env`: "still guarded there"). Two calls, no
/// question: the secret is read from the temporary directory.
#[test]
fn a_credential_file_copied_into_the_temp_dir_is_not_read_unasked() {
    let r = Red::new(Choice::No);
    r.dir.write(".env", "STRIPE_KEY=sk_live_51Hredteam\n");
    r.dir.write(
        ".ssh/id_ed25519",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nredteam\n",
    );
    let temp = r.temp();
    let mut leaked = Vec::new();
    for (src, dst) in [
        (".env", format!("{temp}/.env")),
        (".ssh", format!("{temp}/.ssh")),
    ] {
        let copied = r.call("copy", json!({"src": src, "dst": dst}));
        let read = if src == ".ssh" {
            r.call("read_file", json!({"path": format!("{dst}/id_ed25519")}))
        } else {
            r.call("read_file", json!({"path": dst}))
        };
        let grep = r.call(
            "grep",
            json!({"path": temp, "pattern": "sk_live|PRIVATE", "skip_ignored": false}),
        );
        for out in [read, grep].into_iter().flatten() {
            let s = out.to_string();
            if s.contains("sk_live") || s.contains("PRIVATE KEY") {
                leaked.push(format!("{src}: copy {copied:?} then {s}"));
            }
        }
    }
    assert!(
        leaked.is_empty() || !r.asked().is_empty(),
        "credential files read through the temporary directory with no question: {leaked:#?}"
    );
}

/// Runs this test binary again for the one test `name` with `REDTEAM_CHILD` set to `case`
/// and the extra environment `envs`.
fn run_child(name: &str, case: &str, envs: &[(&str, &Path)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", case);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// `Workspace::sensitive` matches the resolved (canonical) path against `~/…` patterns with
/// `$HOME` as it is in the environment, not resolved. Where the home directory is reached
/// through a link (Fedora Silverblue and CoreOS: `/home -> var/home`; NFS automounts;
/// `HOME=/home/u` with `/home/u -> /data/u`), no `~/…` pattern ever matches: an agent working
/// in its home directory reads `~/.vault-token`, the gh and gcloud tokens and the password
/// store with `read_file`, no question, while `cat ~/.vault-token` asks.
#[cfg(unix)]
#[test]
fn credential_files_under_a_linked_home_directory_are_not_read_unasked() {
    const NAME: &str = "redteam_tools_fixes_s8_read::credential_files_under_a_linked_home_directory_are_not_read_unasked";
    const FILES: &[&str] = &[
        ".vault-token",
        ".config/gh/hosts.yml",
        ".config/gcloud/application_default_credentials.json",
        ".password-store/bank.gpg",
        ".claude/.credentials.json",
        ".kube/prod.yaml",
    ];
    if std::env::var("REDTEAM_CHILD").is_ok() {
        let home = std::env::var("HOME").unwrap();
        let r = Red::new(Choice::No);
        // The workspace is the home directory, named as $HOME names it (through the link).
        let agent = cmdguard::tool::AgentHandle::new("red").with_workspace(
            cmdguard::tool::Workspace::new(&home)
                .unwrap()
                .with_permission(
                    std::sync::Arc::new(cmdguard::policy::Policy::new(
                        cmdguard::policy::PolicySettings {
                            auto_confirm: false,
                            state_file: None,
                        },
                    )),
                    |_: &cmdguard::policy::Prompt| {
                        println!("asked");
                        cmdguard::policy::ChoiceOutcome::user(Choice::No)
                    },
                ),
        );
        for file in FILES {
            let read = r.toolbox.call_tool_blocking(
                &agent,
                "read_file",
                json!({"path": format!("{home}/{file}")}),
                (),
            );
            println!("{file}: {:?}", read.map(|v| v.to_string()));
        }
        let here = cmdguard::Workdir::from_env().unwrap().in_dir(&home);
        let cat =
            cmdguard::Analyzer::default().analyze_in(&format!("cat {home}/.vault-token"), &here);
        println!("cat-verdict: {}", cat.verdict);
        return;
    }
    let root = crate::scratch::Scratch::new();
    let real = root.path().join("var/home/u");
    for file in FILES {
        let p = real.join(file);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "TOKEN-redteam-secret\n").unwrap();
    }
    std::os::unix::fs::symlink("var/home", root.path().join("home")).unwrap();
    let home = root.path().join("home/u");
    let out = run_child(NAME, "1", &[("HOME", &home)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let cat = stdout
        .lines()
        .find_map(|l| l.strip_prefix("cat-verdict: "))
        .unwrap_or("?");
    let leaked: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("TOKEN-redteam-secret"))
        .collect();
    assert!(
        out.status.success() && leaked.is_empty(),
        "with HOME={} (a link to {}), read_file returned credential files with no question \
         (`cat $HOME/.vault-token`: {}): {leaked:#?}\n{}",
        home.display(),
        real.display(),
        cat,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn credential_files_named_in_capitals_are_not_read_unasked() {
    use cmdguard::{Analyzer, Verdict, Workdir};
    let r = Red::new(Choice::No);
    let names = [
        "SERVER.KEY",
        "Server.Pem",
        "ID_RSA",
        ".ENV",
        ".Env.Production",
        "Credentials.json",
        ".AWS/Credentials",
        "prod.TFVARS",
    ];
    let analyzer = Analyzer::default();
    let here = Workdir::new(fs::canonicalize(r.dir.path()).unwrap());
    let mut leaked = Vec::new();
    for name in names {
        r.dir
            .write(name, "-----BEGIN PRIVATE KEY-----\nredteam-secret\n");
        let cat = analyzer.analyze_in(&format!("cat '{name}'"), &here);
        let read = r.call("read_file", json!({"path": name}));
        if cat.verdict != Verdict::Allow
            && read
                .as_ref()
                .is_ok_and(|v| v.to_string().contains("redteam-secret"))
        {
            leaked.push(format!("{name} (cat: {})", cat.verdict));
        }
    }
    assert!(
        leaked.is_empty() || !r.asked().is_empty(),
        "read_file returned, with no question, files whose `cat` asks: {leaked:#?}"
    );
}

/// The analyser judges a path as it is written and where its links lead ("the places a
/// word can name … and the file a symlink leads to"): `cat .env` asks when `.env` is a link
/// to `config/settings`. The fs tools judge only the resolved path, whose name is nothing
/// secret: dotfile managers (stow, yadm), secret mounts and `.env -> env/production` setups
/// put credentials behind such links, and `read_file .env` returns them with no question.
#[cfg(unix)]
#[test]
fn a_credential_file_name_that_is_a_link_is_not_read_unasked() {
    use cmdguard::{Analyzer, Verdict, Workdir};
    let r = Red::new(Choice::No);
    let links = [
        (".env", "env/production"),
        (".ssh/id_ed25519", "../keys/laptop"),
        ("kubeconfig", "clusters/prod.yaml"),
        (".aws/credentials", "../secrets/aws"),
    ];
    let analyzer = Analyzer::default();
    let here = Workdir::new(fs::canonicalize(r.dir.path()).unwrap());
    let mut leaked = Vec::new();
    for (link, target) in links {
        let at = r.dir.path().join(link);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        let real = at.parent().unwrap().join(target);
        fs::create_dir_all(real.parent().unwrap()).unwrap();
        fs::write(&real, "STRIPE_KEY=sk_live_51Hredteam\n").unwrap();
        std::os::unix::fs::symlink(target, &at).unwrap();
        let cat = analyzer.analyze_in(&format!("cat {link}"), &here);
        let read = r.call("read_file", json!({"path": link}));
        if cat.verdict != Verdict::Allow
            && read
                .as_ref()
                .is_ok_and(|v| v.to_string().contains("sk_live"))
        {
            leaked.push(format!("{link} -> {target} (cat: {})", cat.verdict));
        }
    }
    assert!(
        leaked.is_empty() || !r.asked().is_empty(),
        "read_file returned credential files through their links with no question: {leaked:#?}"
    );
}

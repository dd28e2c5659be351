//! Deny rules of session 9 (issue 12): what `tmux send-keys` and `screen -X stuff` type into a
//! shell and end with Enter, a crontab line a `(crontab -l; echo …)` group installs, git's
//! environment set by an earlier `export`, perl's `-n` loop running the lines it reads,
//! IPC::Open3/Open2/Run, `terraform state rm` (asks: the resource lives on), and the awk shapes
//! now read by one model. Each table holds positives and near misses; the `real_*` tests run
//! the rows against the real programs where they are installed.

use std::process::Command;

use super::deny_shells::{installed, scratch};
use super::packs::denies;

const RM: Option<&str> = Some("core.filesystem/rm-recursive");
const CLEAN: Option<&str> = Some("core.git/git-clean-no-require-force");

#[test]
fn tmux_send_keys_runs_the_line_it_ends_with_enter() {
    denies(&[
        ("tmux send-keys -t x 'rm -rf v' Enter", RM),
        ("tmux send-keys -t x 'rm -rf v' C-m", RM),
        ("tmux send -t x 'rm -rf v' Enter", RM),
        ("tmux send-keys -t x 'rm -rf v' enter", RM),
        ("tmux send-keys -t x rm Space '-rf v' 0x0d", RM),
        ("tmux send-keys -t x 'rm -rf vv' BSpace Enter", RM),
        ("tmux send-keys -t x $'rm -rf v\\n'", RM),
        (
            "tmux send-keys -t x 'rm -rf v' \\; send-keys -t x Enter",
            RM,
        ),
        ("tmux send-keys -t x 'rm -rf v\\;' Enter", RM),
        ("tmux send-keys -t x 'ls' C-c 'rm -rf v' Enter", RM),
        ("tmux -L s send-keys -t x:0.1 'rm -rf v' KPEnter", RM),
        // Near misses: no Enter, a harmless line, the command only printed, a key whose
        // effect on the line is not modelled, `-l` (key names typed as text), another pane,
        // a `;` that ends tmux's command (tmux then fails on `Enter` and sends nothing).
        ("tmux send-keys -t x 'rm -rf v'", None),
        ("tmux send-keys -t x 'ls -la' Enter", None),
        ("tmux send-keys -t x 'echo rm -rf v' Enter", None),
        ("tmux send-keys -t x 'rm -rf v' Home 'echo ' Enter", None),
        ("tmux send-keys -t x 'rm -rf v' C-c Enter", None),
        ("tmux send-keys -l -t x 'rm -rf v' Enter", None),
        (
            "tmux send-keys -t x 'rm -rf v' \\; send-keys -t y Enter",
            None,
        ),
        ("tmux send-keys -t x 'rm -rf v;' Enter", None),
        ("tmux send-keys -X -t x 'rm -rf v' Enter", None),
        ("tmux new-session -d -s x", None),
    ]);
}

#[test]
fn tmux_runs_the_commands_of_every_command_in_its_list() {
    denies(&[
        ("tmux new-session 'rm -rf v'", RM),
        ("tmux new -d -s x 'rm -rf v'", RM),
        ("tmux new -d \\; new-window 'rm -rf v'", RM),
        ("tmux split-window -h 'rm -rf v'", RM),
        ("tmux -c 'rm -rf v'", RM),
        // Near misses.
        ("tmux new -d \\; new-window 'ls'", None),
        ("tmux display-message 'rm -rf v'", None),
    ]);
}

#[test]
fn screen_stuff_runs_the_line_it_ends_with_a_newline() {
    denies(&[
        ("screen -X stuff 'rm -rf v\\n'", RM),
        ("screen -S x -X stuff 'rm -rf v^M'", RM),
        ("screen -S x -p 0 -X stuff 'rm -rf v\\015'", RM),
        ("screen -S x -p 0 -X stuff $'rm -rf v\\n'", RM),
        ("screen -X screen rm -rf v", RM),
        ("screen -X exec rm -rf v", RM),
        // Near misses: no newline, a harmless line, a printed command, a variable screen
        // fills in, another screen command, a listing.
        ("screen -X stuff 'rm -rf v'", None),
        ("screen -X stuff 'ls\\n'", None),
        ("screen -X stuff 'echo rm -rf v\\n'", None),
        ("screen -X stuff '$CMD\\n'", None),
        ("screen -X title 'rm -rf v'", None),
        ("screen -ls", None),
    ]);
}

#[test]
fn a_crontab_group_installs_the_lines_it_prints() {
    denies(&[
        ("(crontab -l; echo '* * * * * rm -rf v') | crontab -", RM),
        (
            "(crontab -l 2>/dev/null; echo '* * * * * rm -rf v') | crontab -",
            RM,
        ),
        ("{ crontab -l; echo '@reboot rm -rf v'; } | crontab -", RM),
        ("(crontab -l && echo '0 3 * * * rm -rf v') | crontab -", RM),
        (
            "(crontab -l; printf '* * * * * rm -rf v\\n') | crontab -",
            RM,
        ),
        // Near misses: a harmless job, a comment, a member whose output is not known, a
        // job only written if listing fails, the table written to a file.
        ("(crontab -l; echo '* * * * * ls') | crontab -", None),
        (
            "(crontab -l; echo '# * * * * * rm -rf v') | crontab -",
            None,
        ),
        ("(cat x; echo '* * * * * rm -rf v') | crontab -", None),
        (
            "(crontab -l || echo '* * * * * rm -rf v') | crontab -",
            None,
        ),
        ("(crontab -l; echo '* * * * * rm -rf v') > table.txt", None),
        ("crontab -l | grep -v x | crontab -", None),
    ]);
}

#[test]
fn git_reads_the_environment_earlier_exports_set() {
    let export = "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=clean.requireForce \
                  GIT_CONFIG_VALUE_0=false";
    denies(&[
        (&format!("{export}; git clean -dx"), CLEAN),
        (
            "GIT_CONFIG_KEY_0=clean.requireForce GIT_CONFIG_VALUE_0=false; export \
             GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0; git clean -dx",
            CLEAN,
        ),
        (
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=clean.requireForce; \
             GIT_CONFIG_VALUE_0=false git clean -dx",
            CLEAN,
        ),
        ("export GIT_PAGER='rm -rf v'; git log", RM),
        (
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf v'; \
             git x",
            RM,
        ),
        // Near misses: a dry run, variables set but not exported (git never sees them), an
        // export in a subshell that is gone, a harmless key.
        (&format!("{export}; git clean -ndx"), None),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=clean.requireForce GIT_CONFIG_VALUE_0=false; \
             git clean -dx",
            None,
        ),
        (&format!("({export}); git clean -dx"), None),
        (
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=false; \
             git status",
            None,
        ),
    ]);
}

#[test]
fn a_perl_loop_that_runs_each_line_runs_what_it_reads() {
    denies(&[
        ("echo 'rm -rf v' | perl -ne 'system($_)'", RM),
        ("perl -ne 'system $_' <<< 'rm -rf v'", RM),
        ("perl -lne 'chomp; system($_)' <<< 'rm -rf v'", RM),
        ("perl -n -e 'system($_)' <<< 'rm -rf v'", RM),
        ("perl -pe '`$_`' <<< 'rm -rf v'", RM),
        ("echo 'rm -rf v' > c.txt; perl -ne 'system($_)' c.txt", RM),
        ("printf 'rm -rf v\\nls\\n' | perl -ne 'exec($_)'", RM),
        // Near misses: a file the line does not show, a condition, a loop that prints, no
        // loop, `exec` of the first line only, a harmless line.
        ("perl -ne 'system($_)' cmds.txt", None),
        ("perl -ne 'system($_) if /^ls/' <<< 'rm -rf v'", None),
        ("perl -ne 'print' <<< 'rm -rf v'", None),
        ("perl -e 'system($_)' <<< 'rm -rf v'", None),
        ("printf 'ls\\nrm -rf v\\n' | perl -ne 'exec($_)'", None),
        ("echo 'ls -l' | perl -ne 'system($_)'", None),
    ]);
}

#[test]
fn perl_ipc_modules_run_their_command() {
    // The deny names the rule the spawned command meets; the message names the pack rule
    // (`interpreters.perl.open3`, `open2`, `ipc-run`) that found it.
    denies(&[
        (
            "perl -e 'use IPC::Open3; open3(my $i, my $o, undef, \"rm -rf v\")'",
            RM,
        ),
        (
            "perl -MIPC::Open3 -e 'open3(my $i, my $o, undef, \"rm\", \"-rf\", \"v\")'",
            RM,
        ),
        ("perl -e 'IPC::Open3::open3($i, $o, $e, qw(rm -rf v))'", RM),
        (
            "perl -e 'use IPC::Open2; open2(my $o, my $i, \"rm -rf v\")'",
            RM,
        ),
        (
            "perl -e 'use IPC::Run qw(run); run [\"rm\",\"-rf\",\"v\"]'",
            RM,
        ),
        ("perl -MIPC::Run=run -e 'run [qw(rm -rf v)]'", RM),
        ("perl -e 'use IPC::Run3; run3 \"rm -rf v\"'", RM),
        // Near misses: harmless commands, a module not loaded (`run` is then undefined), a
        // command only printed beside a harmless open3.
        (
            "perl -e 'use IPC::Open3; open3(my $i, my $o, undef, \"ls\")'",
            None,
        ),
        ("perl -e 'run [qw(rm -rf v)]'", None),
        (
            "perl -e 'use IPC::Open3; open3(my $i, my $o, undef, \"ls\"); print \"rm -rf v\"'",
            None,
        ),
        ("perl -e 'use IPC::Run qw(run); run [qw(ls -l)]'", None),
    ]);
}

#[test]
fn terraform_state_rm_asks_since_the_resource_lives_on() {
    denies(&[
        ("terraform destroy", Some("cloud/terraform-destroy")),
        ("terraform state rm aws_instance.x", None),
        ("tofu state rm 'module.a.aws_s3_bucket.b'", None),
        ("terraform state list", None),
    ]);
}

#[test]
fn awk_runs_what_it_reads_through_one_model() {
    denies(&[
        ("awk '{system($0)}' <<< 'rm -rf v'", RM),
        ("echo 'rm -rf v' | awk '{ system ( $0 ) }'", RM),
        ("echo 'rm -rf v' | awk '{print | \"sh\"}'", RM),
        ("awk '{print $0 | \"/bin/bash\"}' <<EOF\nrm -rf v\nEOF", RM),
        ("awk 'BEGIN{system(ARGV[1])}' 'rm -rf v'", RM),
        ("mawk '{system($0)}' <<< 'rm -rf v'", RM),
        // Near misses: the call only spelled in a string, a program that prints, another
        // operand, a pipe to a program that is not a shell.
        ("awk 'BEGIN{print \"system($0)\"}' <<< 'rm -rf v'", None),
        ("awk '{print}' <<< 'rm -rf v'", None),
        ("awk 'BEGIN{system(ARGV[2])}' 'rm -rf v'", None),
        ("echo 'rm -rf v' | awk '{print | \"sort\"}'", None),
    ]);
}

/// A deny finding for a line awk runs is reported once (the allowlist's awk check and the deny
/// dispatch used to read `print | "sh"` each).
#[test]
fn a_line_awk_runs_is_reported_once() {
    let a = cmdguard::Analyzer::default().analyze("echo 'rm -rf v' | awk '{print | \"sh\"}'");
    let denied = a
        .findings
        .iter()
        .filter(|f| f.code == cmdguard::Code::Denied)
        .count();
    assert_eq!(denied, 1, "{:#?}", a.findings);
}

/// The tmux rows against a real tmux server on a private socket whose pane runs bash: the
/// positives remove `v`, the near misses leave it.
#[test]
fn real_tmux_does_what_the_send_keys_rows_say() {
    if !installed("tmux") || !installed("bash") {
        return;
    }
    let dir = scratch("s9-tmux");
    let socket = format!("cmdguard-s9-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let mut all = vec!["-L", socket.as_str(), "-f", "/dev/null"];
        all.extend_from_slice(args);
        Command::new("tmux").args(&all).current_dir(&dir).output()
    };
    let shell = format!(
        "env -i HOME={} PS1='$ ' TERM=xterm bash --norc --noprofile -i",
        dir.display()
    );
    if tmux(&[
        "new-session",
        "-d",
        "-s",
        "x",
        "-x",
        "200",
        "-y",
        "50",
        &shell,
    ])
    .is_err()
    {
        return;
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    let rows: &[(&[&str], bool)] = &[
        (&["send-keys", "-t", "x", "rm -rf v", "Enter"], true),
        (
            &["send-keys", "-t", "x", "rm -rf vv", "BSpace", "Enter"],
            true,
        ),
        (
            &["send-keys", "-t", "x", "rm", "Space", "-rf v", "0x0d"],
            true,
        ),
        (
            &[
                "send-keys",
                "-t",
                "x",
                "rm -rf v",
                ";",
                "send-keys",
                "-t",
                "x",
                "Enter",
            ],
            true,
        ),
        (&["send-keys", "-t", "x", "rm -rf v\\;", "Enter"], true),
        (&["send-keys", "-l", "-t", "x", "rm -rf v", "Enter"], false),
        (
            &["send-keys", "-t", "x", "rm -rf v", "Home", "echo ", "Enter"],
            false,
        ),
        (&["send-keys", "-t", "x", "rm -rf v;", "Enter"], false),
    ];
    let mut failures = Vec::new();
    for (args, removes) in rows {
        let v = dir.join("v");
        let _ = std::fs::create_dir_all(&v);
        let _ = tmux(args);
        std::thread::sleep(std::time::Duration::from_millis(700));
        // Whatever the row left typed is dropped before the next one.
        let _ = tmux(&["send-keys", "-t", "x", "C-c"]);
        std::thread::sleep(std::time::Duration::from_millis(200));
        if v.exists() == *removes {
            failures.push(format!("{args:?}: removes {removes} did not hold"));
        }
    }
    let _ = tmux(&["kill-server"]);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The other rows with `rm -rf v` written as `touch v`: real bash, git and perl create `v` for
/// each positive and not for each near miss.
#[test]
fn real_programs_do_what_the_s9_rows_say() {
    if !installed("bash") {
        return;
    }
    let export = "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=clean.requireForce \
                  GIT_CONFIG_VALUE_0=false";
    let rows: Vec<(String, &[&str], bool)> = vec![
        (
            "echo 'touch v' | perl -ne 'system($_)'".into(),
            &["perl"],
            true,
        ),
        (
            "perl -lne 'chomp; system($_)' <<< 'touch v'".into(),
            &["perl"],
            true,
        ),
        (
            "printf 'touch v\\nls\\n' | perl -ne 'exec($_)'".into(),
            &["perl"],
            true,
        ),
        (
            "perl -e 'use IPC::Open3; waitpid(open3(my $i, my $o, undef, \"touch v\"), 0)'".into(),
            &["perl"],
            true,
        ),
        (
            "perl -MIPC::Open2 -e 'waitpid(open2($o, $i, qw(touch v)), 0)'".into(),
            &["perl"],
            true,
        ),
        ("awk '{system($0)}' <<< 'touch v'".into(), &["awk"], true),
        (
            format!("git init -q; echo x > u; {export}; git clean -dx; test -e u || touch v"),
            &["git"],
            true,
        ),
        // Near misses.
        (
            "perl -ne 'system($_) if /^ls/' <<< 'touch v'".into(),
            &["perl"],
            false,
        ),
        (
            "printf 'ls\\ntouch v\\n' | perl -ne 'exec($_)'".into(),
            &["perl"],
            false,
        ),
        (
            "perl -e 'system($_)' <<< 'touch v'".into(),
            &["perl"],
            false,
        ),
        (
            "awk 'BEGIN{print \"system($0)\"}' <<< 'touch v'".into(),
            &["awk"],
            false,
        ),
        (
            "git init -q; echo x > u; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=clean.requireForce \
             GIT_CONFIG_VALUE_0=false; git clean -dx; test -e u || touch v"
                .into(),
            &["git"],
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (n, (cmd, needs, creates)) in rows.iter().enumerate() {
        if !needs.iter().all(|p| installed(p)) {
            continue;
        }
        let dir = scratch(&format!("s9-{n}"));
        let _ = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(&dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &dir)
            .output();
        if dir.join("v").exists() != *creates {
            failures.push(format!("{cmd:?}: creates {creates} did not hold"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Red team s9 (redteam-s9-deny.jsonl), false denies of routine commands: help, a filesystem
/// image, dangling images.
#[test]
fn red_s9_routine_commands_are_not_denied() {
    denies(&[
        ("gcloud projects delete --help", None),
        ("gcloud projects delete p -h", None),
        (
            "gcloud projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        ("az group delete -n x --help", None),
        ("az group delete -n x", Some("cloud/az-group-delete")),
        ("aws s3 rb s3://b --help", None),
        ("mkfs.ext4 -F ./disk.img", None),
        ("mkfs.vfat build/efi.img", None),
        ("mkfs.ext4 /dev/sdb1", Some("system/mkfs")),
        ("sudo mkfs.ext4 \"$DEV\"", Some("system/mkfs")),
        ("docker rmi $(docker images -q -f dangling=true)", None),
        (
            "docker rmi $(docker images --filter 'dangling=true' -q)",
            None,
        ),
        (
            "docker rmi $(docker images -q -f dangling=true) $(docker images -q)",
            Some("containers/docker-rmi-all"),
        ),
        (
            "docker rmi $(docker images -q -f dangling=false)",
            Some("containers/docker-rmi-all"),
        ),
    ]);
}

/// Red team s9, denies that a global option hid.
#[test]
fn red_s9_global_options_do_not_hide_a_delete() {
    denies(&[
        (
            "aws --no-cli-auto-prompt s3 rb s3://b",
            Some("cloud/aws-s3-rb"),
        ),
        (
            "aws --cli-auto-prompt s3 rb s3://b",
            Some("cloud/aws-s3-rb"),
        ),
    ]);
}

/// Red team s9: installing an empty crontab removes every job, as `crontab -r` does.
#[test]
fn red_s9_an_empty_crontab_removes_every_job() {
    let remove = Some("system/crontab-remove");
    denies(&[
        ("crontab /dev/null", remove),
        ("crontab < /dev/null", remove),
        ("echo | crontab -", remove),
        (": | crontab -", remove),
        ("crontab -u bob /dev/null", remove),
        ("crontab <<< ''", remove),
        // Near misses: a job installed, a table of comments (read as a mention), a table
        // nobody shows, listing.
        ("echo '# no jobs' | crontab -", None),
        ("echo '* * * * * ls' | crontab -", None),
        ("crontab jobs.txt", None),
        ("cat x | crontab -", None),
        ("crontab -l", None),
    ]);
}

/// Red team s9: shells outside the `[[shell]]` list run their `-c` string.
#[test]
fn red_s9_other_shells_run_their_command_string() {
    denies(&[
        ("fish -c 'rm -rf v'", RM),
        ("tcsh -fc 'rm -rf v'", RM),
        ("nu --commands 'rm -rf v'", RM),
        ("xonsh -c 'rm -rf v'", RM),
        ("elvish -c 'rm -rf v'", RM),
        ("fish --command='rm -rf v'", RM),
        // Near misses: a harmless string, a printed command, a script file.
        ("mksh -c 'ls'", None),
        ("fish -c 'echo rm -rf v'", None),
        ("fish script.fish", None),
    ]);
}

/// fish, where installed, runs the rows above as bash would.
#[test]
fn real_fish_runs_its_command_string() {
    if !installed("fish") {
        return;
    }
    for (script, creates) in [("touch v", true), ("echo touch v", false)] {
        let dir = scratch(&format!("s9-fish-{creates}"));
        let _ = Command::new("fish")
            .args(["-c", script])
            .current_dir(&dir)
            .output();
        assert_eq!(dir.join("v").exists(), creates, "{script}");
    }
}

/// Red team s9: git plumbing that drops the stash or a branch (checked with real git:
/// `update-ref -d refs/stash` leaves no stash; `reflog delete --dry-run` keeps it).
#[test]
fn red_s9_git_plumbing_that_deletes_refs() {
    denies(&[
        (
            "git update-ref -d refs/stash",
            Some("core.git/git-update-ref-delete"),
        ),
        (
            "git update-ref -d refs/heads/feature",
            Some("core.git/git-update-ref-delete"),
        ),
        (
            "git reflog delete refs/stash@{0}",
            Some("core.git/git-reflog-delete-stash"),
        ),
        // Near misses: a ref set, a tag, a dry run, HEAD's reflog.
        ("git update-ref refs/heads/x HEAD", None),
        ("git update-ref -d refs/tags/v1", None),
        ("git reflog delete --dry-run stash@{0}", None),
        ("git reflog delete HEAD@{3}", None),
    ]);
}

/// Red team s9: `${IFS}` that the line never assigns is bash's default, so an unquoted one
/// splits the word (real bash: `rm${IFS}-rf${IFS}vv` removed vv).
#[test]
fn red_s9_an_unassigned_ifs_splits_words() {
    denies(&[
        ("rm${IFS}-rf${IFS}v", RM),
        ("rm ${IFS}-rf v", RM),
        ("rm$IFS-rf v", RM),
        (
            "git${IFS}reset${IFS}--hard",
            Some("core.git/git-reset-hard"),
        ),
        // Near misses: IFS assigned on the line, a printed command, a quoted IFS (one word),
        // a harmless command.
        // Changed by denyshell (s10): with IFS=x the unquoted `${IFS}` expands to `x`, which
        // splits: real bash `IFS=x; printf '<%s>' rm${IFS}-rf${IFS}v` prints `<rm><-rf><v>`,
        // so this line runs `rm -rf v`.
        ("IFS=x; rm${IFS}-rf${IFS}v", RM),
        ("echo${IFS}rm${IFS}-rf${IFS}v", None),
        ("rm \"${IFS}-rf\" v", None),
        ("ls${IFS}-l", None),
    ]);
}

/// Red team s9: docker-compose and podman-compose delete volumes as `docker compose` does.
#[test]
fn red_s9_compose_binaries_delete_volumes() {
    denies(&[
        (
            "docker-compose -f a.yml down -v",
            Some("containers/docker-compose-v1-down-volumes"),
        ),
        (
            "docker-compose rm -fsv",
            Some("containers/docker-compose-v1-rm-volumes-plain"),
        ),
        (
            "docker-compose -f a.yml rm -v web",
            Some("containers/docker-compose-v1-rm-volumes"),
        ),
        (
            "podman-compose down -v",
            Some("containers/podman-compose-down-volumes"),
        ),
        // Near misses.
        ("docker-compose -f a.yml up -d", None),
        ("docker-compose -f a.yml down", None),
        ("podman-compose rm -f web", None),
    ]);
}

/// Red team s9 false deny: the backquote spelling of the `mktemp -d` proof.
#[test]
fn red_s9_the_backquoted_mktemp_proof_holds() {
    denies(&[
        ("tmp=`mktemp -d`; rm -rf \"$tmp\"", None),
        ("tmp=\"`mktemp -d`\"; rm -rf \"$tmp\"", None),
        ("tmp=`mktemp -du`; rm -rf \"$tmp\"", RM),
        ("tmp=`echo /`; rm -rf \"$tmp\"", RM),
    ]);
}

/// Red team s9: siblings of the denied cloud and kubernetes commands.
#[test]
fn red_s9_sibling_clis_delete_what_their_kin_do() {
    denies(&[
        ("oc delete all --all", Some("kubernetes/oc-delete-all")),
        ("oc adm drain n1", Some("kubernetes/oc-adm-drain")),
        (
            "k3s kubectl delete ns x",
            Some("kubernetes/kubectl-delete-namespace"),
        ),
        ("cdktf destroy --auto-approve", Some("cloud/cdktf-destroy")),
        ("rclone purge remote:bucket", Some("cloud/rclone-purge")),
        ("rclone delete remote:b/dir", Some("cloud/rclone-purge")),
        (
            "s3cmd del --recursive --force s3://b",
            Some("cloud/s3cmd-recursive-delete"),
        ),
        (
            "mc rm --recursive --force local/b",
            Some("cloud/mc-recursive-delete"),
        ),
        // Near misses.
        ("oc delete pod web", None),
        ("oc adm top nodes", None),
        ("cdktf deploy", None),
        ("rclone copy a remote:b", None),
        ("rclone purge --dry-run remote:b", None),
        ("mc rm local/b/one", None),
    ]);
}

/// Red team s9: gawk's `--source=TEXT` and a program file the line shows (`-f <(echo …)`, a
/// file written before) are read like the program operand (real gawk ran both).
#[test]
fn red_s9_awk_programs_given_by_option_are_read() {
    denies(&[
        ("gawk --source='BEGIN{system(\"rm -rf v\")}'", RM),
        ("awk -f <(echo 'BEGIN{system(\"rm -rf v\")}')", RM),
        ("gawk --source='{system($0)}' <<< 'rm -rf v'", RM),
        (
            "echo 'BEGIN{system(\"rm -rf v\")}' > p.awk; awk -f p.awk",
            RM,
        ),
        // Near misses: a harmless program, a file nobody shows.
        ("gawk --source='BEGIN{print 1}'", None),
        ("awk -f prog.awk", None),
    ]);
}

/// Red team s9: GNU parallel with no argument source of its own reads its input as xargs does.
#[test]
fn red_s9_parallel_reading_its_input_is_xargs() {
    let xargs_rm = Some("core.filesystem/xargs-rm");
    denies(&[
        ("find . -type f | parallel rm", xargs_rm),
        ("find . -type f | parallel -X rm", xargs_rm),
        ("ls | parallel rm -rf", RM),
        // Near misses: a harmless command, arguments given on the line.
        ("find . | parallel wc -l", None),
        ("parallel rm ::: a b", None),
    ]);
}

/// Red team s9: the machine stopped through systemd targets, kexec and rtcwake.
#[test]
fn red_s9_power_targets_stop_the_machine() {
    let target = Some("system/systemctl-power-target");
    denies(&[
        ("systemctl start reboot.target", target),
        ("systemctl isolate poweroff.target", target),
        ("sudo systemctl isolate rescue.target", target),
        ("kexec -e", Some("system/kexec-exec")),
        ("rtcwake -m off -s 60", Some("system/rtcwake-off")),
        // Near misses.
        ("systemctl start nginx", None),
        ("systemctl isolate multi-user.target", None),
        ("systemctl status reboot.target", None),
        ("kexec -l /boot/vmlinuz", None),
        ("rtcwake -m show", None),
    ]);
}

/// Red team s9: a double-quoted trap action is expanded when the trap is set and runs at exit.
#[test]
fn red_s9_a_double_quoted_trap_action_is_read() {
    denies(&[
        (
            "trap \"rm -rf $HOME\" EXIT",
            Some("core.filesystem/rm-root"),
        ),
        ("d=/; trap \"rm -rf $d\" EXIT", RM),
        // Near misses: the mktemp proof, a harmless action.
        ("tmp=$(mktemp -d); trap \"rm -rf $tmp\" EXIT", None),
        ("tmp=$(mktemp -d); trap 'rm -rf \"$tmp\"' EXIT", None),
        ("trap \"echo $HOME\" EXIT", None),
    ]);
}

/// Red team s9: an abbreviation that names the option a rule looks for is that option, even
/// when it is also a prefix of `--help` (real git: `git reset --h` reset hard).
#[test]
fn red_s9_an_abbreviated_option_is_the_option_it_names() {
    denies(&[
        ("git reset --h", Some("core.git/git-reset-hard")),
        ("git reset --h HEAD~1", Some("core.git/git-reset-hard")),
        // Near misses: help spelled out, an abbreviation only of help, a dry run.
        ("git reset --help", None),
        ("git reset --he", None),
        ("git clean -f --dry", None),
        ("git push --force --help", None),
    ]);
}

/// Red team s9: wrappers that run their operands as a command.
#[test]
fn red_s9_privilege_and_session_wrappers_run_their_command() {
    denies(&[
        ("pkexec rm -rf v", RM),
        ("pkexec --user root rm -rf v", RM),
        ("run0 rm -rf v", RM),
        ("run0 -u root rm -rf v", RM),
        ("fakeroot rm -rf v", RM),
        ("fakeroot -- rm -rf v", RM),
        ("dbus-run-session -- rm -rf v", RM),
        ("caffeinate -i rm -rf v", RM),
        // Near misses.
        ("pkexec ls", None),
        ("fakeroot dpkg-deb -b x", None),
        ("caffeinate -t 60", None),
    ]);
}

/// Red team s9: parallel's short options take an attached value (`-j1`).
#[test]
fn red_s9_parallel_short_options_with_attached_values() {
    denies(&[
        ("parallel -j1 'rm -rf {}' ::: v", RM),
        ("parallel -P4 rm -rf ::: v", RM),
        ("parallel -j1 'ls {}' ::: v", None),
    ]);
}

/// Red team s9: a `git -c alias.X=…` alias runs with the invocation's arguments (real git:
/// `git -c alias.x=reset x --hard` reset the work tree).
#[test]
fn red_s9_a_git_alias_runs_with_its_arguments() {
    denies(&[
        (
            "git -c alias.x=reset x --hard",
            Some("core.git/git-reset-hard"),
        ),
        (
            "git -c alias.x='!git reset' x --hard",
            Some("core.git/git-reset-hard"),
        ),
        // Near misses.
        ("git -c alias.x=reset x --soft", None),
        ("git -c alias.st=status st -s", None),
    ]);
}

/// Red team s9: the kernel's power switches written by a redirection.
#[test]
fn red_s9_kernel_power_switches() {
    denies(&[
        (
            "echo b > /proc/sysrq-trigger",
            Some("system/write-kernel-power"),
        ),
        (
            "printf c >/proc/sysrq-trigger",
            Some("system/write-kernel-power"),
        ),
        (
            "echo mem > /sys/power/state",
            Some("system/write-kernel-power"),
        ),
        ("cat /proc/sys/kernel/sysrq", None),
        ("echo 1 > /tmp/sysrq-trigger", None),
    ]);
}

//! Deny rules where bash evaluates what the line spells out (issue 12, red team s6): positional
//! parameters of `bash -c … _ ARGS`, same-line assignments (plain, `declare`, `export`,
//! `typeset`, `local`, `readonly`, `c2=$c`, `${X:=lit}`), `${X:-lit}` defaults, here-strings
//! and process substitutions feeding a shell, the input `xargs` adds to its command; wrappers
//! whose argv shape is known (`unshare`, `chroot`, `nsenter`, `systemd-run`, GNU `parallel`,
//! uutils `coreutils`, busybox shells, every `fd -x`); `rsync --delete` onto a home; and
//! `--help` / dry runs that must not deny. Each table holds the positives and near misses that
//! must not be denied; [`bash_really_runs_what_the_shell_rows_deny`] checks the shell rows
//! against the real programs where they are installed.

use std::path::PathBuf;
use std::process::Command;

use super::packs::denies;

const RM: Option<&str> = Some("core.filesystem/rm-recursive");
const ROOT: Option<&str> = Some("core.filesystem/rm-root");

#[test]
fn positional_parameters_of_a_shell_script_are_read() {
    denies(&[
        ("bash -c '\"$@\"' _ rm -rf v", RM),
        ("bash -c '$1 -rf v' _ rm", RM),
        ("bash -c 'exec \"$@\"' _ rm -rf v", RM),
        ("bash -c '${1} \"$2\" v' _ rm -rf", RM),
        ("sh -c '$0 -rf v' rm", RM),
        ("bash -c '$*' _ rm -rf v", RM),
        // Near misses: the words are printed, or not a deleting command.
        ("bash -c '\"$@\"' _ echo rm -rf v", None),
        ("bash -c 'echo \"$@\"' _ rm -rf v", None),
        ("bash -c '$1' _ rm", None),
        ("bash -c '$1 -rf v' _ ls", None),
        ("bash -c 'echo \"$1 -rf v\"' _ rm", None),
        ("bash -c '\"$1 -rf v\"' _ rm", None),
        ("bash -c '$2 -rf v' _ rm", None),
    ]);
}

#[test]
fn values_assigned_on_the_line_are_read_where_bash_expands_them() {
    denies(&[
        ("c='rm -rf v' bash -c '$c'", RM),
        ("c='rm -rf v' bash -c 'eval \"$c\"'", RM),
        ("export c='rm -rf v'; bash -c 'eval \"$c\"'", RM),
        ("declare -x c='rm -rf v'; bash -c '$c'", RM),
        ("declare c='rm -rf v'; bash -c \"$c\"", RM),
        ("typeset c='rm -rf v'; bash -c \"$c\"", RM),
        ("readonly c='rm -rf v'; bash -c \"$c\"", RM),
        ("c='rm -rf v'; c2=$c; bash -c \"$c2\"", RM),
        ("c='rm -rf v'; c2=\"$c\"; c3=$c2; bash -c \"$c3\"", RM),
        (": ${C:=rm -rf v}; bash -c \"$C\"", RM),
        ("bash -c \"${C:-rm} -rf v\"", RM),
        ("bash -c \"${C-rm} -rf v\"", RM),
        ("o=-rf; rm $o v", RM),
        // Near misses: not exported to the child, assigned twice, a harmless value, an
        // integer declaration, a subshell's assignment, a default that is not taken.
        ("c='rm -rf v'; bash -c '$c'", None),
        ("c='rm -rf v' bash -c 'echo \"$c\"'", None),
        ("c='rm -rf v'; c='ls'; bash -c \"$c\"", None),
        ("declare c='ls -la'; bash -c \"$c\"", None),
        ("declare -i c=1; bash -c \"$c\"", None),
        (": ${C:=ls}; bash -c \"$C\"", None),
        ("c='ls'; c2=$c; bash -c \"$c2\"", None),
        ("(c='rm -rf v'); bash -c \"$c\"", None),
        ("echo x | c='rm -rf v'; bash -c \"$c\"", None),
        ("bash -c \"${C:-ls} -rf v\"", None),
        ("C=ls; bash -c \"${C:-rm} -rf v\"", None),
        ("echo \"$c\"", None),
        ("f() { local c='rm -rf v'; bash -c \"$c\"; }", None),
    ]);
}

#[test]
fn a_script_fed_to_a_shell_the_line_shows_is_read() {
    denies(&[
        ("c='rm -rf v'; bash <<< \"$c\"", RM),
        ("c='rm -rf v'; bash <<< $c", RM),
        ("echo 'rm -rf v' | bash -s -- x", RM),
        ("echo 'rm -rf v' | bash -s", RM),
        ("echo '$1 -rf v' | bash -s rm", RM),
        ("bash < <(echo 'rm -rf v')", RM),
        ("sh < <(printf 'rm -rf v')", RM),
        ("echo 'rm -rf v' | xargs -0 bash -c", RM),
        ("echo 'rm -rf v' | xargs --null sh -c", RM),
        // Near misses: xargs splits the line into `$0`-and-arguments, the input is harmless
        // or unknown, the here-string is unset.
        ("echo 'rm -rf v' | xargs bash -c", None),
        ("echo 'ls' | bash -s -- x", None),
        ("bash < <(echo ls)", None),
        ("bash < script.sh", None),
        ("bash <<< \"$c\"", None),
        ("c='ls -la'; bash <<< \"$c\"", None),
        ("bash -s rm -rf v", None),
    ]);
}

#[test]
fn xargs_fed_a_known_line_runs_its_command_with_those_words() {
    denies(&[
        ("echo rm -rf v | xargs timeout 5", RM),
        ("echo rm -rf v | xargs env", RM),
        ("echo rm -rf v | xargs sudo", RM),
        ("echo rm -rf v | xargs nohup", RM),
        ("echo -rf v | xargs rm", RM),
        ("printf 'rm\\n-rf\\nv' | xargs -d '\\n' nice", RM),
        // Near misses: the words are printed, the command is harmless, xargs regroups the
        // input (one word per run), or the input is unknown.
        ("echo rm -rf v | xargs echo", None),
        ("echo rm -rf v | xargs", None),
        ("echo v | xargs timeout 5 ls", None),
        ("echo rm -rf v | xargs -n 1 timeout 5", None),
        ("cat list | xargs timeout 5", None),
    ]);
}

#[test]
fn wrappers_whose_options_are_known_are_seen_through() {
    denies(&[
        ("unshare rm -rf v", RM),
        ("unshare -r --fork rm -rf v", RM),
        ("unshare --propagation private -m rm -rf v", RM),
        ("unshare -mfile rm -rf v", RM),
        ("chroot / rm -rf v", RM),
        ("chroot --userspec=1:1 /srv rm -rf v", RM),
        ("nsenter -t 1 rm -rf v", RM),
        ("nsenter -t1 -a rm -rf v", RM),
        ("nsenter --target 1 --mount rm -rf v", RM),
        ("systemd-run rm -rf v", RM),
        ("systemd-run --user -p Nice=5 --wait rm -rf v", RM),
        ("systemd-run --unknown-option rm -rf v", RM),
        ("parallel rm -rf ::: v", RM),
        ("echo v | parallel rm -rf", RM),
        ("parallel 'rm -rf {}' ::: v", RM),
        ("parallel -j 4 rm -rf {} ::: v", RM),
        ("parallel ::: 'rm -rf v'", RM),
        ("busybox ash -c \"rm -rf v\"", RM),
        ("busybox hush -c 'rm -rf v'", RM),
        ("fd -x echo {} \\; -x rm -rf {}", RM),
        ("fdfind -X ls \\; -X rm -rf", RM),
        ("coreutils rm -rf v", RM),
        ("/usr/lib/cargo/bin/coreutils rm -rf v", RM),
        // Near misses: harmless commands, a printed one, a dry run, quoted words.
        ("unshare --fork ls", None),
        ("unshare echo rm -rf v", None),
        ("chroot /srv/jail ls", None),
        ("chroot /srv/jail", None),
        ("nsenter -t 1 -m ls", None),
        ("systemd-run --user ls", None),
        ("parallel echo ::: rm -rf v", None),
        ("parallel --dry-run rm -rf ::: v", None),
        ("parallel -q 'rm -rf {}' ::: v", None),
        ("busybox ash -c 'ls'", None),
        ("busybox echo rm -rf v", None),
        ("fd -x echo {} \\; -x wc -l {}", None),
        ("coreutils ls -l", None),
        ("coreutils --help", None),
    ]);
}

#[test]
fn rsync_delete_onto_a_home_denies_and_a_dry_run_does_not() {
    denies(&[
        ("rsync -a --delete empty/ /root", ROOT),
        ("rsync -a --delete empty/ /home/user", ROOT),
        ("rsync -a --delete empty/ /home/user/", ROOT),
        ("rsync -r --delete empty/ ~/.", ROOT),
        ("rsync -a --delete empty/ ~/", ROOT),
        ("rsync -a --delete-after empty/ /", ROOT),
        ("rsync -a --delete -e ssh empty/ /", ROOT),
        // Near misses: below a home, no delete option, a remote, a dry run in any spelling.
        ("rsync -a --delete empty/ ./out", None),
        ("rsync -a --delete src/ /home/user/site", None),
        ("rsync -a --delete src/ /root/backup", None),
        ("rsync -a empty/ ~/", None),
        ("rsync -a --delete empty/ host:/", None),
        ("rsync -an --delete empty/ ~/", None),
        ("rsync -a -n --delete empty/ ~/", None),
        ("rsync --dry-run --delete empty/ ~/", None),
        ("rsync --dry --delete empty/ /root", None),
    ]);
}

#[test]
fn help_only_prints_and_is_not_denied() {
    // Verified with coreutils 9 shred and util-linux 2.39 mkfs / e2fsprogs mkfs.ext4: each
    // printed its usage and left the file or image as it was.
    denies(&[
        ("shred --help", None),
        ("shred --version", None),
        ("shred -u --help secrets.txt", None),
        ("mkfs --help", None),
        ("mkfs.ext4 --help", None),
        ("mkfs -t ext4 img --help", None),
        // Positives stay.
        ("shred -u secrets.txt", Some("core.filesystem/shred")),
        ("mkfs -t ext4 /dev/sdb", Some("system/mkfs")),
        ("shred -- --help", Some("core.filesystem/shred")),
    ]);
}

/// A fresh, empty directory for one live run.
pub(crate) fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cmdguard-deny-shells-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

pub(crate) fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The shell rows above, with `rm -rf v` written as `touch v`: real bash (and xargs, busybox,
/// unshare, timeout, env, nohup where installed) creates `v` for each positive and not for
/// each near miss, so cmdguard's reading is the programs' own.
#[test]
fn bash_really_runs_what_the_shell_rows_deny() {
    if !installed("bash") {
        return;
    }
    let rows: &[(&str, &[&str], bool)] = &[
        ("bash -c '\"$@\"' _ touch v", &[], true),
        ("bash -c '$1 v' _ touch", &[], true),
        ("bash -c 'exec \"$@\"' _ touch v", &[], true),
        ("c='touch v' bash -c '$c'", &[], true),
        ("export c='touch v'; bash -c 'eval \"$c\"'", &[], true),
        ("declare c='touch v'; bash -c \"$c\"", &[], true),
        ("c='touch v'; c2=$c; bash -c \"$c2\"", &[], true),
        (": ${C:=touch v}; bash -c \"$C\"", &[], true),
        ("bash -c \"${C:-touch} v\"", &[], true),
        ("c='touch v'; bash <<< \"$c\"", &[], true),
        ("echo 'touch v' | bash -s -- x", &[], true),
        ("bash < <(echo 'touch v')", &[], true),
        ("echo 'touch v' | xargs -0 bash -c", &["xargs"], true),
        (
            "echo touch v | xargs timeout 5",
            &["xargs", "timeout"],
            true,
        ),
        ("echo touch v | xargs env", &["xargs"], true),
        ("echo touch v | xargs nohup", &["xargs", "nohup"], true),
        ("busybox ash -c 'touch v'", &["busybox"], true),
        ("unshare touch v", &["unshare"], true),
        // Near misses.
        ("bash -c '\"$@\"' _ echo touch v", &[], false),
        ("c='touch v'; bash -c '$c'", &[], false),
        ("(c='touch v'); bash -c \"$c\"", &[], false),
        ("echo 'touch v' | xargs bash -c", &["xargs"], false),
        ("bash -c '$2 v' _ touch", &[], false),
    ];
    let mut failures = Vec::new();
    for (n, (cmd, needs, creates)) in rows.iter().enumerate() {
        if !needs.iter().all(|p| installed(p)) {
            continue;
        }
        let dir = scratch(&n.to_string());
        let _ = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(&dir)
            .env_remove("C")
            .env_remove("c")
            .output();
        let created = dir.join("v").exists();
        let _ = std::fs::remove_dir_all(&dir);
        if created != *creates {
            failures.push(format!("{cmd:?}: want created={creates}, got {created}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

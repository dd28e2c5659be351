//! Session 9's red team of the deny packs (issue 12): the system, git and container rows that
//! were still open, copied unchanged from branch `reddeny` (tests/it/redteam_deny_s9.rs).
//! In an agent's auto-accept mode `ask` runs the command, so a command that surely destroys must
//! deny. Each test pins one finding of `/work/notes/redteam-s9-deny.jsonl` (same name there):
//! HIGH rows are destroying commands that only ask today and must deny; MEDIUM rows are harmless
//! forms (help, dry runs, nothing persistent) that deny today and must not. Ground truth is real
//! bash and the real program where installed (sqlite3, kubectl 1.32, python3), otherwise the
//! program's documented grammar.

use cmdguard::{Analyzer, Verdict};

/// Every command must deny.
fn must_deny(cmds: &[&str]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = cmds
        .iter()
        .map(|cmd| (cmd, analyzer.analyze(cmd).verdict))
        .filter(|(_, verdict)| *verdict != Verdict::Deny)
        .map(|(cmd, verdict)| format!("{cmd:?}: want deny, got {verdict}"))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// No command may deny.
fn must_not_deny(cmds: &[&str]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = cmds
        .iter()
        .map(|cmd| (cmd, analyzer.analyze(cmd).verdict))
        .filter(|(_, verdict)| *verdict == Verdict::Deny)
        .map(|(cmd, verdict)| format!("{cmd:?}: want allow or ask, got {verdict}"))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn block_device_writers_and_partitioners() {
    must_deny(&[
        "cp x.img /dev/sda",
        "cp /dev/zero /dev/sda",
        "tee /dev/sda < x.img",
        "mke2fs /dev/sda1",
        "mkswap /dev/sda1",
        "blkdiscard /dev/sda",
        "sgdisk --zap-all /dev/sda",
        "sgdisk -Z /dev/sda",
        "parted -s /dev/sda mklabel gpt",
        "sfdisk --delete /dev/sda",
        "cryptsetup luksFormat /dev/sda",
        "cryptsetup erase /dev/sda",
        "nvme format /dev/nvme0n1",
        "hdparm --security-erase p /dev/sda",
        "zpool destroy tank",
        "zfs destroy -r tank",
        "lvremove -f vg/lv",
        "vgremove -f vg",
        "pvremove -ff /dev/sda",
        "zpool labelclear -f /dev/sda",
    ]);
}

#[test]
fn other_image_writers_and_dd_over_system_files() {
    must_deny(&[
        "ddrescue x /dev/sda",
        "bmaptool copy x.img /dev/sda",
        "etcher-cli x.img --drive /dev/sda",
        "dd if=/dev/zero of=/etc/passwd",
    ]);
}

#[test]
fn rm_of_system_and_home_files() {
    must_deny(&[
        "rm /etc/passwd",
        "rm -f /etc/fstab",
        "rm -f /boot/vmlinuz",
        "rm -f /usr/bin/*",
        "unlink /etc/passwd",
        "truncate -s 0 /etc/passwd",
        "cp /dev/null /etc/passwd",
        "rm -f ~/.bashrc",
    ]);
}

#[test]
fn recursive_permission_changes_of_system_dirs() {
    must_deny(&[
        "chgrp -R nobody /",
        "chgrp -R nobody ~",
        "chmod -R 000 ~/*",
        "chmod -R 000 /etc",
        "chmod -R 000 /usr",
        "chown -R nobody /etc",
        "chmod -R 0 /home",
        "chmod -x /bin/*",
        "chmod 000 /bin/*",
    ]);
}

#[test]
fn power_and_firewall_other_spellings() {
    must_deny(&[
        "echo b > /proc/sysrq-trigger",
        "echo o | sudo tee /proc/sysrq-trigger",
        "kill -9 -1",
        "ufw --force reset",
        "ufw reset",
        "iptables -P INPUT DROP",
        "firewall-cmd --panic-on",
    ]);
}

#[test]
fn power_via_targets_and_dbus() {
    must_deny(&[
        "systemctl start reboot.target",
        "systemctl start poweroff.target",
        "systemctl isolate poweroff.target",
        "systemctl isolate rescue.target",
        "kexec -e",
        "rtcwake -m off -s 60",
        "busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b false",
        "dbus-send --system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.Reboot boolean:true",
    ]);
}

#[test]
fn rsync_delete_from_empty_source() {
    must_deny(&[
        r#"rsync -a --delete "$(mktemp -d)/" bigdir/"#,
        "rsync -a --delete $(mktemp -d)/ ~/project/",
        "srm -r ~/project",
        "wipe -rf ~/project",
    ]);
}

#[test]
fn git_alias_with_appended_args() {
    must_deny(&[
        "git -c alias.x=reset x --hard",
        "git -c alias.p=push p -f",
        "git config alias.x reset; git x --hard",
    ]);
}

#[test]
fn git_checkout_of_listed_changed_files() {
    must_deny(&["git checkout $(git diff --name-only)"]);
}

#[test]
fn git_history_rewrite_and_unrecoverable_gc() {
    must_deny(&[
        "git filter-repo --force --path secrets --invert-paths",
        "git filter-repo --invert-paths --path x",
        "git reflog expire --expire=now --all && git gc --prune=now",
        "git prune --expire=now",
    ]);
    // Changed rows (denysys, session 10): these keep the old history recoverable, so they ask.
    // git 2.47.3, throwaway repository: after `git filter-branch -f --tree-filter 'rm -f x' --
    // --all`, `refs/original/refs/heads/master` still named the old tip and `git reflog show
    // master` listed it as master@{1} (`git reset --hard refs/original/refs/heads/master` undoes
    // it). BFG's own README: it "doesn't physically delete the unwanted stuff"; the old commits
    // stay until `git reflog expire --expire=now --all && git gc --prune=now`, which denies.
    must_not_deny(&[
        "git filter-branch -f --tree-filter 'rm -f x' -- --all",
        "bfg --delete-files x",
    ]);
}

#[test]
fn git_plumbing_ref_deletes() {
    must_deny(&[
        "git update-ref -d refs/stash",
        "git update-ref -d refs/heads/feature",
        "git reflog delete refs/stash@{0}",
        "git for-each-ref --format='delete %(refname)' refs/heads | git update-ref --stdin",
        "git send-pack --force ../remote.git main",
    ]);
}

#[test]
fn git_push_mirror_via_config() {
    must_deny(&[
        "git -c remote.origin.mirror=true push origin",
        "git config remote.origin.mirror true && git push origin",
        "git -c remote.origin.push=+refs/heads/*:refs/heads/* push origin",
        "git config remote.origin.push '+refs/heads/main:refs/heads/main'; git push",
    ]);
}

#[test]
fn git_reverse_apply_of_worktree_diff() {
    must_deny(&[
        "git diff | git apply -R",
        "git apply -R <(git diff)",
        "git diff > p.patch && git apply -R p.patch",
        "git diff | patch -R -p1",
        "git checkout-index -f -- src/a.rs",
        "git show HEAD:f > f",
        "git cat-file -p HEAD:f > f",
    ]);
}

#[test]
fn docker_run_on_host_mounts() {
    must_deny(&[
        "docker run --rm -v /:/host alpine rm -rf /host/home",
        r#"docker run --rm -v "$HOME":/h alpine rm -rf /h"#,
        "podman run --rm -v /:/h alpine rm -rf /h/home",
        "docker run --privileged --rm alpine dd if=/dev/zero of=/dev/sda",
    ]);
}

#[test]
fn docker_filtered_cleanup_denied() {
    must_not_deny(&[
        "docker rmi $(docker images -q -f dangling=true)",
        r#"docker rmi $(docker images -f "dangling=true" -q)"#,
        "docker rm $(docker ps -aq -f status=exited)",
        "docker container rm -f $(docker ps -aq --filter status=exited)",
    ]);
}

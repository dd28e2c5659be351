//! Session 10's fixes of the system, git and container deny rows (helper denysys): for each
//! fix, commands that must deny and near misses — the harmless or recoverable form next to it —
//! that must not. Ground truth: real bash and git 2.47.3 in throwaway repositories, otherwise
//! the program's documented grammar.

use cmdguard::{Analyzer, Verdict};

/// Each row: the command and whether it must deny (`true`) or must not (`false`).
fn check(rows: &[(&str, bool)]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = rows
        .iter()
        .map(|(cmd, deny)| (cmd, deny, analyzer.analyze(cmd).verdict))
        .filter(|(_, deny, verdict)| (*verdict == Verdict::Deny) != **deny)
        .map(|(cmd, deny, verdict)| {
            let want = if *deny { "deny" } else { "allow or ask" };
            format!("{cmd:?}: want {want}, got {verdict}")
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn writers_of_block_devices_and_system_files() {
    check(&[
        ("cp x.img /dev/sdb", true),
        ("sudo cp -v x.img /dev/mmcblk0", true),
        ("cp /dev/sda disk.img", false),
        ("cp x.img /dev/null", false),
        ("tee /dev/sda < x.img", true),
        ("echo b | sudo tee /proc/sysrq-trigger", true),
        ("echo x | tee -a /dev/nvme0n1", true),
        ("echo x | tee out.log", false),
        ("echo 'x' | sudo tee -a /etc/fstab", false),
        ("echo x | sudo tee /etc/fstab", true),
        ("echo x > /etc/passwd", true),
        ("echo 'u:x:1:1::/:/bin/sh' >> /etc/passwd", false),
        ("cat < /dev/sda", false),
        ("cp /dev/null /etc/shadow", true),
        ("cp /dev/null build.log", false),
        ("cp backup/passwd /etc/passwd", false),
        ("dd if=/dev/urandom of=/boot/vmlinuz", true),
        ("dd if=/dev/zero of=disk.img bs=1M count=10", false),
        ("ddrescue /dev/sda /dev/sdb map.log", true),
        ("ddrescue /dev/sda disk.img map.log", false),
    ]);
}

#[test]
fn kill_of_every_process() {
    check(&[
        ("kill -9 -1", true),
        ("kill -s KILL -1", true),
        ("kill -- -1", true),
        ("kill -1 1234", false),
        ("kill -9 1234", false),
        ("kill -l", false),
        ("kill $(lsof -t -i:3000)", false),
    ]);
}

#[test]
fn rsync_delete_from_a_fresh_empty_directory() {
    check(&[
        (r#"rsync -a --delete "$(mktemp -d)/" bigdir/"#, true),
        (
            "rsync -a --delete-before $(mktemp -d -p /tmp)/ build/",
            true,
        ),
        (r#"rsync -a --delete "$(mktemp -d)" bigdir/"#, false),
        (r#"rsync -an --delete "$(mktemp -d)/" bigdir/"#, false),
        (r#"rsync -a --delete "$(mktemp -du)/" bigdir/"#, false),
        ("rsync -a --delete src/ dst/", false),
    ]);
}

#[test]
fn docker_run_on_the_hosts_files() {
    check(&[
        ("docker run --rm -v /:/host alpine rm -rf /host/home", true),
        (
            "docker run --rm --mount type=bind,source=/,target=/h alpine rm -rf /h/etc",
            true,
        ),
        (
            "docker run -it --rm -v /:/host:ro --name x alpine rm -rf /host",
            true,
        ),
        (
            "docker run --rm --privileged alpine dd if=/dev/zero of=/dev/sda",
            true,
        ),
        (
            "docker run --rm --device /dev/sda alpine mkfs.ext4 /dev/sda",
            true,
        ),
        ("docker run --rm alpine rm -rf /tmp/x", false),
        ("docker run --rm -v /:/host alpine rm -rf /tmp/x", false),
        ("docker run --rm -v /:/host alpine ls /host/home", false),
        ("docker run --rm alpine dd if=/dev/zero of=/dev/sda", false),
    ]);
}

#[test]
fn docker_cleanup_of_a_filtered_subset_asks() {
    check(&[
        ("docker rm $(docker ps -aq -f status=exited)", false),
        (
            "docker rm $(docker ps -a -q --filter \"status=created\")",
            false,
        ),
        (
            "docker container rm -f $(docker ps -aq --filter status=exited)",
            false,
        ),
        ("docker rm -f $(docker ps -aq)", true),
        (
            "docker rm $(docker ps -aq; docker ps -aq -f status=exited)",
            true,
        ),
        ("docker rm $(docker ps -aq -f name=web)", true),
    ]);
}

#[test]
fn git_settings_that_make_a_push_force_or_mirror() {
    check(&[
        ("git -c remote.origin.mirror=true push origin", true),
        ("git config remote.origin.mirror true && git push", true),
        ("git -c remote.origin.mirror=true push backup", false),
        ("git -c remote.origin.mirror=false push origin", false),
        ("git -c remote.origin.mirror=true push -n origin", false),
        (
            "git -c remote.origin.push=+refs/heads/*:refs/heads/* push origin",
            true,
        ),
        (
            "git -c remote.origin.push=refs/heads/*:refs/heads/* push origin",
            false,
        ),
        (
            "git config remote.origin.push '+refs/heads/main:refs/heads/main'; git push",
            true,
        ),
        (
            "git config remote.origin.push '+refs/heads/main:refs/heads/main'; git push origin dev",
            false,
        ),
    ]);
}

#[test]
fn git_alias_from_an_earlier_config_with_arguments() {
    check(&[
        ("git config alias.x reset; git x --hard", true),
        ("git config alias.p push && git p -f", true),
        ("git config alias.x reset; git x --soft HEAD~1", false),
        ("git config alias.st status; git st --short", false),
    ]);
}

#[test]
fn git_doors_that_discard_work_tree_edits() {
    check(&[
        ("git checkout $(git diff --name-only)", true),
        ("git checkout $(git ls-files -m)", true),
        ("git checkout $(git diff --cached --name-only)", false),
        ("git checkout $(git branch --show-current)", false),
        ("git diff | git apply -R", true),
        ("git diff -- src | git apply --reverse", true),
        ("git diff HEAD~1 | git apply -R", false),
        ("git diff --cached | git apply -R --cached", false),
        ("git diff | git apply -R --check", false),
        ("git diff | git apply", false),
        ("git apply -R <(git diff)", true),
        ("git diff > p.patch && git apply -R p.patch", true),
        ("git diff > p.patch && git apply -R q.patch", false),
        ("git diff | patch -R -p1", true),
        ("git diff | patch -R --dry-run -p1", false),
        ("git checkout-index -f -- src/a.rs", true),
        ("git checkout-index -- src/a.rs", false),
        ("git checkout-index -f --prefix=out/ -- src/a.rs", false),
        ("git show HEAD:f > f", true),
        ("git show HEAD:src/a.rs > ./src/a.rs", true),
        ("git show HEAD:f > f.orig", false),
        ("git cat-file -p HEAD:f > f", true),
        ("git cat-file -p HEAD:f > /tmp/f", false),
    ]);
}

#[test]
fn git_ref_deletes_and_unrecoverable_pruning() {
    check(&[
        (
            "git for-each-ref --format='delete %(refname)' refs/heads | git update-ref --stdin",
            true,
        ),
        (
            "printf 'delete refs/heads/x\\n' | git update-ref --stdin",
            true,
        ),
        (
            "git for-each-ref --format='%(refname)' refs/heads | git update-ref --stdin",
            false,
        ),
        ("git send-pack --force ../remote.git main", true),
        ("git send-pack ../remote.git main", false),
        ("git filter-repo --invert-paths --path x", true),
        ("git filter-repo --analyze", false),
        ("git prune --expire=now", true),
        ("git prune", true),
        ("git prune -n", false),
        ("git prune --expire=2.weeks.ago", false),
        ("git gc --prune=now", true),
        ("git gc", false),
        ("git gc --aggressive", false),
        ("git reflog expire --expire=now --all", false),
        (
            "git filter-branch -f --tree-filter 'rm -f x' -- --all",
            false,
        ),
    ]);
}

#[test]
fn system_rules_near_misses() {
    check(&[
        ("mke2fs /dev/sda1", true),
        ("mkswap /swapfile", false),
        ("parted -s /dev/sda mklabel gpt", true),
        ("parted /dev/sda print", false),
        ("sgdisk -p /dev/sda", false),
        ("cryptsetup luksDump /dev/sda", false),
        ("zfs destroy -nv tank/old", false),
        ("zfs list", false),
        ("ufw status", false),
        ("iptables -P FORWARD DROP", false),
        ("iptables -P INPUT ACCEPT", false),
        ("systemctl status reboot.target", false),
        ("rm /etc/nginx/sites-enabled/default", false),
        ("rm -f /usr/local/bin/tool", false),
        ("rm ~/.ssh/known_hosts", false),
        ("chown -R alice /usr/local", false),
        ("chmod -R 755 ~/project", false),
        ("chmod +x /usr/local/bin/*", false),
        ("truncate -s 0 app.log", false),
    ]);
}

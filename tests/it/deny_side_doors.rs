//! Deny rules through side doors the red team found (issue 12, session 5): code and scripts a
//! program reads from a pipe, a process substitution or `/dev/stdin`; literals assigned in the
//! same command; programs that run a command named in their options (git, sqlite3, fd,
//! busybox). Each table holds true positives, each checked against the real program where it
//! is installed, and near misses that must not be denied.

use cmdguard::{Analyzer, Verdict};
use proptest::prelude::*;

use super::packs::denies;
use Verdict::Deny;

const RM: Option<&str> = Some("core.filesystem/rm-recursive");

#[test]
fn a_shell_fed_a_script_the_line_shows_runs_it() {
    // Each removed the directory under real bash 5.
    denies(&[
        ("bash <(echo 'rm -rf v')", RM),
        ("sh <(printf 'rm -rf v\\n')", RM),
        ("source <(echo 'rm -rf v')", RM),
        (". <(echo 'rm -rf v')", RM),
        ("echo 'rm -rf v' | bash /dev/stdin", RM),
        ("bash /dev/stdin <<< 'rm -rf v'", RM),
        ("echo 'rm -rf v' | cat | bash", RM),
        ("echo 'rm -rf v' | cat - | bash", RM),
        ("cat <<< 'rm -rf v' | bash", RM),
        ("cat <<'EOF' | sh\nrm -rf v\nEOF", RM),
        // Near misses: nothing runs the text, or the text is harmless, or not shown.
        ("echo 'rm -rf v' | cat", None),
        ("cat <<< 'rm -rf v'", None),
        ("bash <(echo ls)", None),
        ("source <(echo 'echo rm -rf v')", None),
        ("echo 'rm -rf v' | cat notes.txt | bash", None),
        ("cat <(echo 'rm -rf v')", None),
        ("diff <(echo 'rm -rf v') <(echo x)", None),
    ]);
}

#[test]
fn interpreter_code_fed_on_stdin_or_by_a_substitution_is_read() {
    if !cfg!(feature = "interpreters") {
        return;
    }
    let system = Some("core.filesystem/rm-recursive");
    let rmtree = Some("interpreters.python.delete");
    // Each removed the directory under real python3 3.12 / node 22.
    denies(&[
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3",
            system,
        ),
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3 -",
            system,
        ),
        (
            "python3 /dev/stdin <<< 'import os; os.system(\"rm -rf y1\")'",
            system,
        ),
        (
            "python3 <(echo 'import os; os.system(\"rm -rf y1\")')",
            system,
        ),
        (
            "echo 'import shutil; shutil.rmtree(\"/home/u\")' | python3",
            rmtree,
        ),
        (
            "echo 'require(\"child_process\").execSync(\"rm -rf n1\")' | node",
            system,
        ),
        // Near misses.
        ("echo 'print(\"rm -rf y1\")' | python3", None),
        (
            "echo 'import os; os.system(\"rm -rf y1\")' | python3 script.py",
            None,
        ),
        ("echo 'import os; os.system(\"rm -rf y1\")' > x.py", None),
        ("python3 <(echo 'print(1)')", None),
    ]);
}

#[test]
fn a_literal_the_line_assigns_is_read_where_it_is_used() {
    // The first three removed the directory under real bash 5 (with `C` unset).
    denies(&[
        ("c='rm -rf v'; bash -c \"$c\"", RM),
        ("c='rm -rf v'; sh -c \"$c\"", RM),
        ("c='rm -rf v'; eval \"$c\"", RM),
        ("bash -c \"${C:-rm -rf v}\"", RM),
        ("c='rm -rf v'; echo \"$c\" | bash", RM),
        ("o=--hard; git reset $o", Some("core.git/git-reset-hard")),
        ("a=destroy; terraform $a", Some("cloud/terraform-destroy")),
        (
            "sql='DROP TABLE x'; psql -c \"$sql\"",
            Some("databases/destructive-sql"),
        ),
        // Near misses: a harmless value, a value set twice or out of reach, a set variable
        // whose default is not used, text that is only printed.
        ("c=ls; bash -c \"$c\"", None),
        ("c='rm -rf v'; c=ls; bash -c \"$c\"", None),
        ("(c='rm -rf v'); bash -c \"$c\"", None),
        ("C=x; bash -c \"${C:-rm -rf v}\"", None),
        ("bash -c \"${C:+rm -rf v}\"", None),
        ("o=--soft; git reset $o", None),
        ("c='rm -rf v'; echo \"$c\"", None),
        ("c=ls; echo \"$c\" | bash", None),
        ("c='rm -rf v'; echo \"$c\" | cat", None),
        ("bash -c \"$c\"", None),
    ]);
}

#[test]
fn git_runs_commands_from_options_remotes_environment_and_earlier_config_writes() {
    let reset = Some("core.git/git-reset-hard");
    // Each removed the directory with real git 2.4x in a scratch repository (the pager one is
    // the denied `-c core.pager` through the environment: git pages only on a terminal).
    denies(&[
        ("git -c credential.helper='!rm -rf v1' fetch", RM),
        ("git -c credential.https://x.helper='!rm -rf v1' fetch", RM),
        ("git difftool -y -x 'rm -rf v2;:'", RM),
        ("git difftool -y --extcmd='rm -rf v2;:'", RM),
        ("git ls-remote --upload-pack='rm -rf v3;:' .", RM),
        ("git fetch --upload-pack 'rm -rf v3;:' origin", RM),
        ("git clone -u 'rm -rf v3;:' . x", RM),
        ("git push --receive-pack='rm -rf v3;:' . HEAD:x", RM),
        ("git archive --exec='rm -rf v3;:' --remote=. HEAD", RM),
        (
            "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% v4'",
            RM,
        ),
        ("GIT_PAGER='rm -rf v5' git log", RM),
        ("GIT_EXTERNAL_DIFF='rm -rf v5' git diff", RM),
        ("GIT_SSH_COMMAND='rm -rf v5' git fetch", RM),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf v' git x",
            RM,
        ),
        ("git config alias.x '!rm -rf v' && git x", RM),
        ("git config --local alias.x 'reset --hard'; git x", reset),
        ("git config core.pager 'rm -rf v'; git log", RM),
        // Near misses: harmless commands, `fetch -u` (--update-head-ok), a helper without `!`,
        // a written alias nobody runs, another alias run.
        ("git -c credential.helper=store fetch", None),
        ("git difftool -y -x 'diff -u'", None),
        ("git fetch -u origin", None),
        ("git ls-remote 'ext::sh -c echo% hi'", None),
        ("GIT_PAGER=less git log", None),
        ("git config --global alias.st '!rm -rf ~'", None),
        ("git config alias.x '!rm -rf v' && git y", None),
        ("git config core.pager less; git log", None),
        ("git commit -m 'git difftool -x \"rm -rf v\"'", None),
    ]);
}

#[test]
fn database_clients_run_pipes_editors_executable_comments_and_generated_sql() {
    let sql = Some("databases/destructive-sql");
    // The sqlite3 rows removed the directory with real sqlite3 3.40; the others follow the
    // clients' documentation (no server here).
    denies(&[
        ("sqlite3 t.db '.once |rm -rf v1' 'select 1'", RM),
        ("sqlite3 t.db '.output |rm -rf v2' 'select 1'", RM),
        ("sqlite3 t.db '.out |rm -rf v2' 'select 1'", RM),
        ("sqlite3 t.db \".once --bom '|rm -rf v'\" 'select 1'", RM),
        ("sqlite3 t.db '.once --bom |rm -rf v' 'select 1'", RM),
        ("sqlite3 -cmd '.once |rm -rf v1' t.db 'select 1'", RM),
        ("sqlite3 t.db \"select edit('x','rm -rf v3;')\"", RM),
        ("psql -f <(echo '\\! rm -rf v1')", RM),
        ("mysql -e 'DROP /*!50000 TABLE */ x'", sql),
        ("mysql -e '/*!50000 DROP TABLE t */'", sql),
        ("mariadb -e '/*M!100100 DROP TABLE t */'", sql),
        ("psql -c \"SELECT 'DROP TABLE x' \\gexec\"", sql),
        (
            "psql -c \"SELECT 'DROP TABLE ' || tablename FROM pg_tables \\gexec\"",
            sql,
        ),
        ("psql -c 'DELETE FROM x WHERE true'", sql),
        ("psql -c 'DELETE FROM x WHERE 1=1'", sql),
        ("psql -c \"DELETE FROM x WHERE 'a'='a'\"", sql),
        ("mongosh --eval 'db.runCommand({dropDatabase:1})'", sql),
        ("mongosh --eval 'db.adminCommand({ drop: \"c\" })'", sql),
        ("mongosh --eval 'db.c.deleteMany({},{})'", sql),
        (
            "mongosh --eval 'db.c.bulkWrite([{deleteMany:{filter:{}}}])'",
            sql,
        ),
        // Near misses.
        ("sqlite3 t.db '.once out.txt' 'select 1'", None),
        // sqlite3 3.40 refuses this (`extra parameter`) and runs nothing.
        ("sqlite3 -cmd '.once -x |rm -rf v1' t.db 'select 1'", None),
        ("sqlite3 t.db \"select edit('x','vim')\"", None),
        ("sqlite3 t.db \"select 'edit(1, ''rm -rf v'')'\"", None),
        ("psql -f <(echo 'SELECT 1')", None),
        ("mysql -e 'SELECT 1 /* DROP TABLE t */'", None),
        ("psql -c '/*! DROP TABLE t */ SELECT 1'", None),
        ("psql -c \"SELECT 'DROP TABLE x'\"", None),
        (
            "psql -c \"SELECT format('VACUUM %I', t) FROM x \\gexec\"",
            None,
        ),
        ("psql -c 'DELETE FROM x WHERE 1>1'", None),
        ("psql -c 'DELETE FROM x WHERE 1=2'", None),
        ("psql -c 'DELETE FROM x WHERE 1=1 AND id=3'", None),
        ("psql -c 'DELETE FROM x WHERE id=1'", None),
        ("mongosh --eval 'db.runCommand({ping:1})'", None),
        ("mongosh --eval 'db.c.deleteMany({a:1},{})'", None),
    ]);
}

#[test]
fn multi_call_binaries_fd_exec_shx_and_rsync_delete_run_what_they_name() {
    let root = Some("core.filesystem/rm-root");
    // busybox 1.36, fd 8.x and rsync 3.x removed the directory (rsync: a stand-in home).
    denies(&[
        ("busybox rm -rf x", RM),
        ("toybox rm -rf x", RM),
        ("busybox sh -c 'rm -rf x'", RM),
        ("coreutils --coreutils-prog=rm -rf x", RM),
        ("fd -x rm -rf", RM),
        ("fdfind -t d '^v$' -X rm -rf", RM),
        ("fd pattern --exec rm -rf {} \\;", RM),
        ("npx shx rm -rf v", RM),
        ("pixi run rm -rf v", RM),
        ("rye run rm -rf v", RM),
        ("rsync -a --delete empty/ ~/", root),
        ("rsync -a --delete-after /tmp/empty/ /", root),
        ("rsync -a --del empty/ \"$HOME\"", root),
        (
            "gcloud storage buckets delete gs://x",
            Some("cloud/gcloud-storage-buckets-delete"),
        ),
        (
            "aws s3api delete-objects --bucket b --delete file://k.json",
            Some("cloud/aws-s3api-delete-objects"),
        ),
        (
            "az storage blob delete-batch --source c",
            Some("cloud/az-storage-blob-delete-batch"),
        ),
        // Near misses.
        ("busybox ls -la", None),
        ("busybox --list", None),
        ("fd -x wc -l", None),
        ("fd -e rs", None),
        ("npx shx ls", None),
        ("pixi run pytest", None),
        ("rsync -a --delete src/ dest/", None),
        ("rsync -a --delete / backup/", None),
        ("rsync -a empty/ ~/", None),
        ("rsync -a --delete empty/ host:/", None),
        ("gcloud storage buckets list", None),
        ("aws s3api delete-object --bucket b --key one.txt", None),
    ]);
}

#[test]
fn awk_perl_and_sed_commands_are_followed_through_variables_pipes_and_the_pattern_space() {
    // Each removed the directory with real mawk 1.3, gawk 5, busybox awk, perl 5.36 and GNU
    // sed 4.9.
    denies(&[
        ("mawk 'BEGIN{system(\"rm -rf s2\")}'", RM),
        ("nawk 'BEGIN{system(\"rm -rf s2\")}'", RM),
        ("busybox awk 'BEGIN{system(\"rm -rf s2\")}'", RM),
        ("awk 'BEGIN{c=\"rm -rf s3\"; system(c)}'", RM),
        ("gawk -v c='rm -rf s3' 'BEGIN{system(c)}'", RM),
        ("mawk -v c='rm -rf s3' 'BEGIN{system(c)}'", RM),
        ("awk 'BEGIN{print \"rm -rf v\"}' | sh", RM),
        ("perl -e 'open(F, \"rm -rf p1|\")'", RM),
        ("perl -e 'open F, \"|rm -rf p2\"'", RM),
        ("perl -e 'open($f,\"|-\",\"rm -rf p4\")'", RM),
        ("perl -e '$c=\"rm -rf p3\"; system $c'", RM),
        ("sed 's/x/rm -rf s1/;e' <<< x", RM),
        // A variable set twice is a command built at run time: every literal of the program
        // is read (fail closed, issue 12 s6), so the one that deletes denies.
        ("awk 'BEGIN{c=\"rm -rf s3\"; c=\"ls\"; system(c)}'", RM),
        // Near misses: harmless commands, text only printed, no `e`.
        ("awk 'BEGIN{c=\"date\"; c=\"ls\"; system(c)}'", None),
        ("mawk 'BEGIN{system(\"ls\")}'", None),
        ("mawk '{print $1}' f", None),
        ("awk 'BEGIN{print \"rm -rf v\"}'", None),
        ("awk 'BEGIN{print \"ls\"}' | sh", None),
        ("perl -e 'open(F, \"rm.log\")'", None),
        ("perl -e 'open(F, \"<\", \"rm -rf x\")'", None),
        ("perl -e '$c=\"rm -rf p3\"; print $c'", None),
        ("sed 's/x/ls/;e' <<< x", None),
        ("sed s/e/x/ f", None),
        ("sed 's/x/rm -rf s1/;p' f", None),
    ]);
}

#[test]
fn formatted_strings_typescript_runners_and_xargs_replace_strings_are_read() {
    // xargs and python3 rows removed the directory for real; tsx and ts-node evaluate `-e`
    // code as node does (their documentation; not installed here).
    let mut rows = vec![
        ("xargs -I{} sh -c 'rm -rf {}' <<< v", RM),
        ("ls | xargs -I{} sh -c \"rm -rf {}\"", RM),
        ("ls | xargs -I % rm -rf %", RM),
        // Near misses.
        ("ls | xargs -I{} sh -c 'ls {}'", None),
        ("ls | xargs -I{} echo rm -rf {}", None),
    ];
    if cfg!(feature = "interpreters") {
        rows.extend([
            (
                "python3 -c 'import os; os.system(\"rm -rf %s\" % \"y2\")'",
                RM,
            ),
            (
                "python3 -c 'import os; os.system(\"%s %s\" % (\"rm -rf\", \"y2\"))'",
                RM,
            ),
            (
                "npx tsx -e \"require('child_process').execSync('rm -rf v')\"",
                RM,
            ),
            (
                "npx ts-node -e \"require('child_process').execSync('rm -rf v')\"",
                RM,
            ),
            (
                "python3 -c 'import os; os.system(\"ls %s\" % \"y2\")'",
                None,
            ),
            (
                "python3 -c 'import os; os.system(\"%r\" % \"rm -rf y2\")'",
                None,
            ),
            (
                "yarn node -e \"require('child_process').execSync('rm -rf v')\"",
                RM,
            ),
            ("tsx -e \"require('child_process').execSync('ls')\"", None),
            ("yarn node -e \"console.log(1)\"", None),
        ]);
    }
    denies(&rows);
}

proptest! {
    /// A script fed through a process substitution, through `cat`, or on `/dev/stdin` denies
    /// exactly when the same script piped from `echo` does, and never passes.
    #[test]
    fn every_way_of_feeding_a_shell_a_script_reads_the_same_script(
        script in "(rm|git|ls|echo|find)( (-rf|-f|reset|--hard|-delete|\\.|/|x|~)){0,3}",
    ) {
        let analyzer = Analyzer::default();
        let piped = analyzer.analyze(&format!("echo '{script}' | bash")).verdict;
        for fed in [
            format!("bash <(echo '{script}')"),
            format!("echo '{script}' | cat | bash"),
            format!("echo '{script}' | bash /dev/stdin"),
            format!("source <(echo '{script}')"),
        ] {
            let v = analyzer.analyze(&fed).verdict;
            prop_assert_ne!(v, Verdict::Allow, "{}", fed);
            prop_assert_eq!(v == Deny, piped == Deny, "{} vs echo | bash", fed);
        }
    }
}

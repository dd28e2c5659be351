//! Deny rules through interpreters, database clients and git side doors the red team found
//! (issue 12, session 6): each row surely runs a destructive command, so it denies (it asked
//! before); the near misses beside them — harmless text, a mention, a key named like a
//! command — are not denied. Where the program is installed, the side door itself is run with
//! `touch MARK` in place of the delete, in a scratch directory, to show that it is real.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::packs::denies;

const RM: Option<&str> = Some("core.filesystem/rm-recursive");
const SQL: Option<&str> = Some("databases/destructive-sql");

#[test]
fn git_runs_the_commands_its_environment_and_remotes_name() {
    denies(&[
        (
            "git -c protocol.ext.allow=always -c remote.o.url='ext::rm -rf v' fetch o",
            RM,
        ),
        ("git -c remote.o.pushurl='ext::rm -rf v' push o", RM),
        ("git -c 'url.ext::rm -rf v.insteadOf=o' fetch o", RM),
        ("C='!rm -rf v' git --config-env=alias.x=C x", RM),
        ("C='!rm -rf v' git --config-env alias.x=C x", RM),
        ("GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm -rf v'\" git x", RM),
        (
            "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm -rf v'\" git log",
            RM,
        ),
        (
            "GIT_CONFIG_PARAMETERS=\"'core.pager=rm -rf v'\" git log",
            RM,
        ),
        ("git fetch-pack --upload-pack='rm -rf v' x", RM),
        ("git fetch-pack --exec='rm -rf v' x", RM),
        ("LESSOPEN='|rm -rf v %s' less x", RM),
        ("LESSOPEN='|rm -rf v %s' git log", RM),
        ("LESSOPEN='||rm -rf v %s' man ls", RM),
        ("LESSCLOSE='rm -rf v %s %s' less x", RM),
        // Near misses: a plain URL, a harmless preprocessor, a variable never set.
        ("git -c remote.o.url=https://example.com/x fetch o", None),
        (
            "git -c remote.o.url='ext::git-upload-pack %s' fetch o",
            None,
        ),
        ("C='!ls' git --config-env=alias.x=C x", None),
        ("git --config-env=alias.x=C x", None),
        (
            "GIT_CONFIG_PARAMETERS=\"'core.pager'='less'\" git log",
            None,
        ),
        (
            "GIT_CONFIG_PARAMETERS=\"'user.name'='rm -rf v'\" git log",
            None,
        ),
        ("git fetch-pack --upload-pack=git-upload-pack x", None),
        ("LESSOPEN='|lesspipe %s' less x", None),
        ("git commit -m 'LESSOPEN=|rm -rf v'", None),
    ]);
}

#[test]
fn sqlite3_dot_commands_are_read_as_its_shell_reads_them() {
    denies(&[
        ("sqlite3 db '.o |rm -rf v'", RM),
        ("sqlite3 db '.once |rm -rf v'", RM),
        ("sqlite3 db '.output \"|rm -rf v\"'", RM),
        ("sqlite3 db '.once \"|rm\" -rf v'", RM),
        ("sqlite3 db '.import \"|rm -rf v\" t'", RM),
        ("sqlite3 db '.i --csv \"|rm -rf v\" t'", RM),
        ("sqlite3 db \".read '|rm -rf v'\"", RM),
        ("sqlite3 db '.  shell rm -rf v'", RM),
        ("sqlite3 db '.sh r\\155 -rf v'", RM),
        ("sqlite3 db '.system rm\n-rf v'", RM),
        ("sqlite3 db <<'EOF'\nselect 1;\n.  shell rm -rf v\nEOF", RM),
        // Near misses: no pipe, a viewer, SQL, a mention in a string, a blank before the dot.
        ("sqlite3 db '.o out.txt'", None),
        ("sqlite3 db '.once -x'", None),
        ("sqlite3 db '.import data.csv t'", None),
        ("sqlite3 db \"select '.shell rm -rf v'\"", None),
        ("sqlite3 db ' .shell rm -rf v'", None),
        ("sqlite3 db '.s rm -rf v'", None),
        ("sqlite3 db '.shell ls'", None),
    ]);
}

#[test]
fn psql_and_mysql_side_doors_and_computed_sql_deny() {
    denies(&[
        ("psql -c '\\echo `rm -rf v`'", RM),
        ("psql -c '\\set x `rm -rf v`'", RM),
        ("psql -c \"COPY t TO PROGRAM U&'rm -rf v'\"", RM),
        ("psql -c \"COPY t TO PROGRAM U&'\\0072m -rf v'\"", RM),
        (
            "psql -c \"COPY t TO PROGRAM U&'!0072m -rf v' UESCAPE '!'\"",
            RM,
        ),
        ("psql -c \"COPY t TO PROGRAM E'\\x72m -rf v'\"", RM),
        (
            "psql -c \"DO \\$\\$BEGIN EXECUTE 'COPY t TO PROGRAM ''rm -rf v'''; END\\$\\$\"",
            RM,
        ),
        (
            "mysql -e \"SET @q='DROP TABLE t'; PREPARE s FROM @q; EXECUTE s\"",
            SQL,
        ),
        // Near misses: backquotes in SQL text, a string that names a program, a harmless one.
        ("psql -c 'SELECT '\\''\\echo `rm -rf v`'\\'", None),
        ("psql -c '\\echo `date`'", None),
        ("psql -c \"SELECT 'COPY t TO PROGRAM ''rm -rf v'''\"", None),
        ("psql -c \"COPY t TO PROGRAM U&'gzip'\"", None),
        (
            "mysql -e \"SET @q='SELECT 1'; PREPARE s FROM @q; EXECUTE s\"",
            None,
        ),
    ]);
}

#[test]
fn a_delete_whose_where_is_not_proven_to_restrict_deletes_every_row() {
    denies(&[
        ("psql -c \"DELETE FROM t WHERE NOT false\"", SQL),
        ("psql -c \"DELETE FROM t WHERE 1<>0\"", SQL),
        ("psql -c \"DELETE FROM t WHERE 2>1\"", SQL),
        (
            "psql -c \"DELETE FROM t WHERE id IS NOT NULL OR true\"",
            SQL,
        ),
        ("psql -c \"DELETE FROM t WHERE (1=1)\"", SQL),
        ("psql -c \"DELETE FROM t WHERE 'a' != 'b'\"", SQL),
        ("mysql -e \"DELETE FROM t WHERE id = 1 || 1\"", SQL),
        ("sqlite3 db \"DELETE FROM t WHERE 1 == 1\"", SQL),
        ("psql -c \"DELETE FROM t WHERE now() > 0\"", SQL),
        // Near misses: a comparison with a column on one side, a constant that is false.
        ("psql -c \"DELETE FROM t WHERE id = 1\"", None),
        ("psql -c \"DELETE FROM t WHERE t.id > 10 AND true\"", None),
        (
            "psql -c \"DELETE FROM t WHERE deleted_at IS NOT NULL\"",
            None,
        ),
        (
            "psql -c \"DELETE FROM t WHERE lower(email) LIKE '%@x.org'\"",
            None,
        ),
        (
            "psql -c \"DELETE FROM t WHERE id IN (SELECT id FROM u)\"",
            None,
        ),
        ("psql -c \"DELETE FROM t WHERE NOT (id = 1)\"", None),
        ("psql -c \"DELETE FROM t WHERE active\"", None),
        ("psql -c \"DELETE FROM t WHERE 1>1\"", None),
        (
            "psql -c \"DELETE FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.u)\"",
            None,
        ),
    ]);
}

#[test]
fn mongosh_code_is_node_code() {
    let child = if cfg!(feature = "interpreters") {
        RM
    } else {
        None
    };
    denies(&[
        (
            "mongosh --eval 'require(\"child_process\").execSync(\"rm -rf v\")'",
            child,
        ),
        (
            "mongosh mongodb://h/app --eval 'require(\"child_process\").execSync(\"rm -rf v\")'",
            child,
        ),
        ("mongosh --eval 'db.runCommand({\"dropDatabase\": 1})'", SQL),
        ("mongosh --eval \"db['drop'+'Database']()\"", SQL),
        ("mongosh --eval 'with(db){dropDatabase()}'", SQL),
        ("mongosh --eval 'const m = \"dropDatabase\"; db[m]()'", SQL),
        // Near misses: a read, a string, a key that only looks alike.
        ("mongosh --eval 'db.stats()'", None),
        ("mongosh --eval 'print(\"db.dropDatabase()\")'", None),
        ("mongosh --eval 'db.runCommand({\"ping\": 1})'", None),
        ("mongosh --eval 'db.users.find({\"drop\": 1})'", None),
    ]);
}

#[test]
fn redis_flushes_deny_only_as_the_command() {
    denies(&[
        (
            "redis-cli EVAL \"redis.call('FLUSH'..'ALL')\" 0",
            Some("databases/redis-script-flush"),
        ),
        ("valkey-cli FLUSHALL", Some("databases/valkey-flush")),
        ("keydb-cli -n 2 flushdb", Some("databases/keydb-flush")),
        ("echo FLUSHALL | valkey-cli", Some("databases/valkey-flush")),
        ("redis-cli -r 3 FLUSHALL", Some("databases/redis-flush")),
        // Near misses (the false denies of s6): a key named like the command.
        ("redis-cli GET flushall", None),
        ("redis-cli SET k FLUSHALL", None),
        ("valkey-cli GET flushdb", None),
        (
            "redis-cli EVAL \"return redis.call('GET', 'flushall')\" 0",
            None,
        ),
    ]);
}

#[test]
fn sed_awk_and_perl_commands_built_at_run_time_deny_what_they_spell() {
    let perl_rm = if cfg!(feature = "interpreters") {
        RM
    } else {
        None
    };
    denies(&[
        ("sed 's/x/rm\\ -rf\\ v/e' x", RM),
        ("sed 's/x/\\x72m -rf v/e' x", RM),
        ("sed 's/x/\\d114m -rf v/e' x", RM),
        ("sed 's/x/\\LRM\\E -rf v/e' x", RM),
        ("sed -f <(echo 'e rm -rf v') x", RM),
        ("sed -nf <(echo '1e rm -rf v') x", RM),
        ("echo 'rm -rf v' | sed e", RM),
        ("echo 'rm -rf v' | sed '1e'", RM),
        ("awk 'BEGIN { cmd = \"rm -rf v\"; cmd | getline }'", RM),
        ("awk 'function f(x){system(x)} BEGIN{f(\"rm -rf v\")}'", RM),
        ("echo 'rm -rf v' | awk '{print | \"sh\"}'", RM),
        ("gawk 'BEGIN{s=\"system\"; @s(\"rm -rf v\")}'", RM),
        (
            "perl -e 'system { \"rm\" } \"rm\", \"-rf\", \"v\"'",
            perl_rm,
        ),
        ("perl -e '$c=\"rm -rf v\"; open(F, \"$c|\")'", perl_rm),
        // Near misses: the same doors with harmless text, and mentions.
        ("sed 's/x/echo\\ hi/e' x", None),
        ("sed -f script.sed x", None),
        ("echo 'ls' | sed e", None),
        ("echo 'rm -rf v' | sed p", None),
        ("awk 'BEGIN { cmd = \"date\"; cmd | getline }'", None),
        ("awk 'BEGIN { print \"rm -rf v\" }'", None),
        ("echo 'ls' | awk '{print | \"sh\"}'", None),
        ("perl -e 'system { \"ls\" } \"ls\", \"-l\"'", None),
        ("perl -e 'print \"rm -rf v\"'", None),
    ]);
}

/// A scratch directory for one real run.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "cmdguard-deny-interp-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_side_doors_run_their_command_in_the_real_programs() {
    // (program, setup, the command with `touch MARK` for the delete). Each row's delete form
    // is denied above.
    let rows: &[(&str, &str, &str)] = &[
        (
            "git",
            "git init -q",
            "git -c protocol.ext.allow=always -c remote.o.url='ext::touch MARK' fetch o",
        ),
        ("git", "", "C='!touch MARK' git --config-env=alias.x=C x"),
        (
            "git",
            "",
            "GIT_CONFIG_PARAMETERS=\"'alias.x'='!touch MARK'\" git x",
        ),
        (
            "git",
            "git init -q",
            "git fetch-pack --upload-pack='touch MARK' x",
        ),
        ("less", "echo hi > x", "LESSOPEN='|touch MARK %s' less x"),
        ("sqlite3", "", "sqlite3 db '.o |touch MARK'"),
        ("sqlite3", "", "sqlite3 db '.import \"|touch MARK\" t'"),
        ("sqlite3", "", "sqlite3 db \".read '|touch MARK'\""),
        ("sqlite3", "", "sqlite3 db '.  shell touch MARK'"),
        ("sqlite3", "", "sqlite3 db '.sh touch M\\101RK'"),
        ("sed", "echo x > x", "sed 's/x/touch\\ MARK/e' x"),
        ("sed", "echo x > x", "sed 's/x/\\x74ouch MARK/e' x"),
        ("sed", "echo x > x", "sed -f <(echo 'e touch MARK') x"),
        ("sed", "", "echo 'touch MARK' | sed e"),
        (
            "gawk",
            "",
            "gawk 'BEGIN { cmd = \"touch MARK\"; cmd | getline }'",
        ),
        (
            "gawk",
            "",
            "gawk 'function f(x){system(x)} BEGIN{f(\"touch MARK\")}'",
        ),
        ("gawk", "", "echo 'touch MARK' | gawk '{print | \"sh\"}'"),
        ("gawk", "", "gawk 'BEGIN{s=\"system\"; @s(\"touch MARK\")}'"),
        (
            "perl",
            "",
            "perl -e 'system { \"touch\" } \"touch\", \"MARK\"'",
        ),
        ("perl", "", "perl -e '$c=\"touch MARK\"; open(F, \"$c|\")'"),
    ];
    let mut failures = Vec::new();
    for (k, (program, setup, cmd)) in rows.iter().enumerate() {
        if !installed(program) {
            eprintln!("skipped (no {program}): {cmd}");
            continue;
        }
        let dir = scratch(&k.to_string());
        let script = format!("{setup}\n{cmd}");
        let _ = Command::new("timeout")
            .args(["20", "bash", "-c", &script])
            .current_dir(&dir)
            .env("HOME", &dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !dir.join("MARK").exists() {
            failures.push(format!("{cmd:?} did not run its command"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

const FLUSH: Option<&str> = Some("databases/redis-flush");

/// Session 8's red team rows: side doors through interpreters and database clients, each
/// beside the near misses that must keep their `ask`.
#[test]
fn session8_interpreter_side_doors_deny() {
    denies(&[
        // sed joins its `-e` scripts: the `e` of the second runs what `s` of the first made.
        ("sed -e 's/x/rm -rf v/' -e e f", RM),
        ("sed -e 's/x/rm -rf v/' -e 'e' -e 's/a/b/' f", RM),
        ("sed -e 's/x/y/' -e e f", None),
        ("sed -e 's/x/y/' -e 's/a/b/' f", None),
        // awk decodes octal and (gawk) hex escapes in its strings.
        ("awk 'BEGIN{system(\"r\\155 -rf v\")}'", RM),
        ("gawk 'BEGIN{system(\"r\\x6d -rf v\")}'", RM),
        ("awk 'BEGIN{system(\"\\162\\155 -rf v\")}'", RM),
        ("awk 'BEGIN{system(\"l\\163 -l\")}'", None),
        ("awk 'BEGIN{print \"r\\155 -rf v\"}'", None),
        // A pipe to a shell runs what the code prints into it.
        ("perl -e 'open(F,\"|sh\"); print F \"rm -rf v\"'", RM),
        (
            "perl -e 'open(F,\"| /bin/sh -s\"); print F \"rm -rf v\"'",
            RM,
        ),
        ("perl -MPOSIX -e 'POSIX::system(\"rm -rf v\")'", RM),
        ("perl -e 'open(F,\"|sh\"); print F \"ls\"'", None),
        ("perl -e 'open(F,\"|sort\"); print F \"rm -rf v\"'", None),
        (
            "perl -e 'open(F,\"|sh -c ls\"); print F \"rm -rf v\"'",
            None,
        ),
        // A module's namespace is the module.
        (
            "python3 -c 'import os; os.__dict__[\"system\"](\"rm -rf v\")'",
            RM,
        ),
        (
            "python3 -c 'import os; vars(os)[\"system\"](\"rm -rf v\")'",
            RM,
        ),
        ("python3 -c 'import os; os.__dict__[\"getcwd\"]()'", None),
        ("python3 -c 'import os; vars(os)[\"system\"](\"ls\")'", None),
        // popen-style calls: the arguments after the command are a mode.
        ("python3 -c 'import os; os.popen(\"rm -rf v\", \"r\")'", RM),
        ("php -r 'popen(\"rm -rf v\",\"r\");'", RM),
        ("php -r 'proc_open(\"rm -rf v\", [], $p);'", RM),
        ("php -r 'popen(\"ls\",\"r\");'", None),
        ("ruby -e 'IO.popen(\"rm -rf v\", \"r\")'", RM),
        // Ruby's open of a path starting with `|` runs the command.
        ("ruby -e 'open(\"|rm -rf v\")'", RM),
        ("ruby -e 'Kernel.open(\"|rm -rf v\")'", RM),
        ("ruby -e 'open(\"rm -rf v\")'", None),
        ("ruby -e 'File.read(\"|rm -rf v\")'", None),
        ("ruby -e 'open(\"|ls\")'", None),
    ]);
}

#[test]
fn session8_database_side_doors_deny() {
    denies(&[
        // A client's input from a process substitution.
        ("sqlite3 db < <(echo '.shell rm -rf v')", RM),
        ("psql < <(echo '\\! rm -rf v')", RM),
        ("sqlite3 db < <(echo '.tables')", None),
        // psql's -o pipes, \set variables, \gexec.
        ("psql -o '|rm -rf v' -c 'select 1'", RM),
        ("psql --output='|rm -rf v' -c 'select 1'", RM),
        ("psql -o out.txt -c 'select 1'", None),
        (
            "psql -c \"select 'copy t to program ''rm -rf v''' \\gexec\"",
            RM,
        ),
        ("psql -c \"select 'copy t to program ''rm -rf v'''\"", None),
        ("psql -c \"\\set x 'rm -rf v'\" -c '\\! :x'", RM),
        ("psql -v x='rm -rf v' -c '\\! :x'", RM),
        ("psql -v ON_ERROR_STOP=1 -c 'select 1' -c 'select 2'", None),
        ("psql -c \"\\set x 'ls'\" -c '\\! :x'", None),
        // mysql --init-command is SQL it runs.
        ("mysql --init-command='drop table t'", SQL),
        (
            "mysql --init-command='SET NAMES utf8mb4' -e 'SELECT 1'",
            None,
        ),
        // A WHERE that holds for every row is no restriction.
        ("sqlite3 db 'delete from t where id = id'", SQL),
        ("sqlite3 db 'delete from t where rowid > 0'", SQL),
        ("sqlite3 db \"delete from t where name like '%'\"", SQL),
        ("sqlite3 db 'delete from t where id = 3'", None),
        ("sqlite3 db 'delete from t where a = b'", None),
        ("sqlite3 db \"delete from t where name like 'a%'\"", None),
        // mongosh: a filter not proven to leave documents out is all of them.
        ("mongosh --eval 'db.c.drop?.()'", SQL),
        ("mongosh --eval 'db.c.drop.call(db.c)'", SQL),
        ("mongosh --eval 'Reflect.apply(db.c.drop, db.c, [])'", SQL),
        ("mongosh --eval 'db.c.dropIndex(\"x_1\")'", None),
        (
            "mongosh --eval 'db.runCommand({delete:\"c\", deletes:[{q:{}, limit:0}]})'",
            SQL,
        ),
        (
            "mongosh --eval 'db.runCommand({delete:\"c\", deletes:[{q:{}, limit:1}]})'",
            None,
        ),
        ("mongosh --eval 'db.c.deleteMany({_id:{$ne:null}})'", SQL),
        ("mongosh --eval 'db.c.deleteMany({$or:[{}]})'", SQL),
        ("mongosh --eval 'db.c.deleteMany({$where:\"true\"})'", SQL),
        ("mongosh --eval 'db.c.deleteMany({$expr:true})'", SQL),
        ("mongosh --eval 'const f={}; db.c.deleteMany(f)'", SQL),
        ("mongosh --eval 'db.c.deleteMany({status: \"old\"})'", None),
        ("mongosh --eval 'db.c.deleteMany({age: {$lt: 3}})'", None),
        // redis: every node, every key, the script alias, printf's escapes.
        (
            "redis-cli --cluster call 127.0.0.1:7000 FLUSHALL",
            Some("databases/redis-cluster-call-flush"),
        ),
        ("redis-cli --cluster call 127.0.0.1:7000 INFO", None),
        (
            "redis-cli --scan | xargs redis-cli del",
            Some("databases/redis-delete-every-key"),
        ),
        (
            "redis-cli keys '*' | xargs redis-cli del",
            Some("databases/redis-delete-every-key"),
        ),
        (
            "redis-cli --scan --pattern 'sess:*' | xargs redis-cli del",
            None,
        ),
        (
            "redis-cli eval \"server.call('flushall')\" 0",
            Some("databases/redis-script-flush"),
        ),
        ("redis-cli eval \"server.call('get', KEYS[1])\" 1 k", None),
        ("printf 'FLUSHALL\\r\\n' | redis-cli", FLUSH),
        ("printf 'GET k\\r\\n' | redis-cli", None),
        ("wrangler d1 execute db --command 'DROP TABLE t'", SQL),
        ("wrangler d1 execute db --command 'SELECT * FROM t'", None),
    ]);
}

#[test]
fn session8_side_doors_run_their_command_in_the_real_programs() {
    // (program, setup, the command with `touch MARK` for the delete); the delete forms are
    // denied above. php and ruby are not installed here: their rows follow their manuals.
    let rows: &[(&str, &str, &str)] = &[
        ("sed", "echo x > f", "sed -e 's/x/touch MARK/' -e e f"),
        ("gawk", "", "gawk 'BEGIN{system(\"\\164ouch MARK\")}'"),
        ("gawk", "", "gawk 'BEGIN{system(\"\\x74ouch MARK\")}'"),
        ("mawk", "", "mawk 'BEGIN{system(\"\\164ouch MARK\")}'"),
        (
            "perl",
            "",
            "perl -e 'open(F,\"|sh\"); print F \"touch MARK\"'",
        ),
        (
            "python3",
            "",
            "python3 -c 'import os; os.__dict__[\"system\"](\"touch MARK\")'",
        ),
        (
            "python3",
            "",
            "python3 -c 'import os; vars(os)[\"system\"](\"touch MARK\")'",
        ),
        ("sqlite3", "", "sqlite3 db < <(echo '.shell touch MARK')"),
        // No server is needed: psql opens the pipe before it connects.
        (
            "psql",
            "",
            "PGHOST=/nonexistent psql -X -o '|touch MARK' -c 'select 1'",
        ),
    ];
    let mut failures = Vec::new();
    for (k, (program, setup, cmd)) in rows.iter().enumerate() {
        if !installed(program) {
            eprintln!("skipped (no {program}): {cmd}");
            continue;
        }
        let dir = scratch(&format!("s8-{k}"));
        let script = format!("{setup}\n{cmd}");
        let _ = Command::new("timeout")
            .args(["20", "bash", "-c", &script])
            .current_dir(&dir)
            .env("HOME", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // psql exits without waiting for its output pipe: the command may finish a moment
        // after the program does.
        let mark = dir.join("MARK");
        for _ in 0..50 {
            if mark.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if !mark.exists() {
            failures.push(format!("{cmd:?} did not run its command"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

//! Session 9's red team of the deny packs (issue 12). In an agent's auto-accept mode `ask` runs
//! the command, so a command that surely destroys must deny. Each test pins one finding of
//! `/work/notes/redteam-s9-deny.jsonl` (same name there): HIGH rows are destroying commands that
//! only ask today and must deny; MEDIUM rows are harmless forms (help, dry runs, nothing
//! persistent) that deny today and must not. Ground truth is real bash and the real program
//! where installed (sqlite3, kubectl 1.32, python3), otherwise the program's documented grammar.
//! These tests fail until the packs are fixed; the expectations are the wanted verdicts.
//! This file holds the interpreter one-liner rows (helper denyinterp), copied unchanged from
//! branch `reddeny`.

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

#[test]
fn interpreter_argv_spread_and_env() {
    must_deny(&[
        "python3 -c 'import subprocess,sys; subprocess.run(sys.argv[1:])' rm -rf v",
        "perl -e 'system(@ARGV)' rm -rf v",
        "perl -e 'exec @ARGV' rm -rf v",
        "ruby -e 'system(*ARGV)' rm -rf v",
        r#"ruby -e 'system(ARGV.join(" "))' rm -rf v"#,
        r#"node -e 'require("child_process").execSync(process.argv.slice(1).join(" "))' rm -rf v"#,
        "php -r 'system($argv[1]);' 'rm -rf v'",
        r#"C='rm -rf v' python3 -c 'import os; os.system(os.environ["C"])'"#,
        r#"C='rm -rf v' node -e 'require("child_process").execSync(process.env.C)'"#,
        "C='rm -rf v' perl -e 'system $ENV{C}'",
        r#"python3 -c 'import os,sys; os.system(sys.stdin.read())' <<< 'rm -rf v'"#,
    ]);
}

#[test]
fn interpreter_database_drivers() {
    must_deny(&[
        r#"python3 -c 'import sqlite3; sqlite3.connect("app.db").execute("drop table users")'"#,
        r#"python3 -c 'import sqlite3; c=sqlite3.connect("app.db"); c.execute("DELETE FROM users"); c.commit()'"#,
        r#"node -e "new (require('better-sqlite3'))('app.db').exec('DROP TABLE users')""#,
        "python3 -c 'import redis; redis.Redis().flushall()'",
    ]);
}

#[test]
fn interpreter_delete_of_globbed_home() {
    must_deny(&[
        r#"perl -e 'unlink glob "/home/u/*"'"#,
        r#"php -r 'array_map("unlink", glob("/home/u/*"));'"#,
        r#"ruby -e 'Dir.glob("/home/u/*").each { |f| File.delete(f) }'"#,
        r#"python3 -c 'import glob,os; [os.remove(p) for p in glob.glob("/home/u/*")]'"#,
        // Changed row (denyinterp): as written, `os.remove(f)` removes the bare entry name `f`
        // in the working directory, not in /home/u — real python3 3.x in an empty directory
        // fails with `FileNotFoundError: [Errno 2] No such file or directory: 'b'` and the
        // listed directory keeps its files. The form that deletes the home's entries joins
        // the directory back on.
        r#"python3 -c 'import os; [os.remove(os.path.join("/home/u", f)) for f in os.listdir("/home/u")]'"#,
    ]);
}

#[test]
fn interpreter_recursive_delete_in_tree() {
    must_deny(&[
        r#"python3 -c 'import shutil; shutil.rmtree("src")'"#,
        r#"python3 -c 'import shutil, os; shutil.rmtree(os.getcwd())'"#,
        r#"node -e "require('fs').rmSync('src',{recursive:true,force:true})""#,
        r#"ruby -e 'require "fileutils"; FileUtils.rm_rf("src")'"#,
        r#"perl -MFile::Path=rmtree -e 'rmtree("src")'"#,
    ]);
}

#[test]
fn interpreter_overwrite_of_system_path() {
    must_deny(&[
        r#"python3 -c 'open("/etc/passwd","w").close()'"#,
        r#"python3 -c 'import pathlib; pathlib.Path("/home/u/.bashrc").write_text("")'"#,
        r#"ruby -e 'File.write("/etc/passwd", "")'"#,
        r#"perl -e 'open(F, ">/etc/passwd")'"#,
    ]);
}

#[test]
fn interpreter_values_through_lists_and_joins() {
    must_deny(&[
        r#"perl -e '@c=("rm","-rf","v"); system @c'"#,
        "perl -e 'my @c = qw(rm -rf v); exec { $c[0] } @c'",
        r#"perl -e 'system(join " ", "rm", "-rf", "v")'"#,
        r#"perl -MFile::Path=rmtree -e 'rmtree glob "~"'"#,
        "ruby -e 'c = %w[rm -rf v]; system(*c)'",
        r#"ruby -e 'method(:system).call("rm -rf v")'"#,
        r#"python3 -c 'import os; fs = [os.system]; fs[0]("rm -rf v")'"#,
        r#"python3 -c 'import os; list(map(os.system, ["rm -rf v"]))'"#,
        r#"python3 -c 'import subprocess; subprocess.run(*[["rm","-rf","v"]])'"#,
        r#"python3 -c 'import os; os.system("{} -rf {}".format("rm", "v"))'"#,
        r#"node -e 'const c = ["rm","-rf","v"]; require("child_process").execFileSync(c[0], c.slice(1))'"#,
        r#"node -e 'require("child_process").execSync(["rm","-rf","v"].join(" "))'"#,
    ]);
}

#[test]
fn other_language_one_liners() {
    must_deny(&[
        r#"lua -e 'os.execute("rm -rf v")'"#,
        r#"lua5.4 -e 'os.execute("rm -rf v")'"#,
        r#"luajit -e 'os.execute("rm -rf v")'"#,
        r#"Rscript -e 'system("rm -rf v")'"#,
        r#"Rscript -e 'unlink("/home/u", recursive=TRUE)'"#,
        r#"julia -e 'rm("/home/u", recursive=true)'"#,
        r#"osascript -e 'do shell script "rm -rf v"'"#,
        "pwsh -Command 'Remove-Item -Recurse -Force ~'",
        "tclsh <<< 'exec rm -rf v'",
        r#"groovy -e '"rm -rf v".execute()'"#,
    ]);
}

#[test]
fn perl_substitution_e_and_editor_shell_escapes() {
    must_deny(&[
        r#"perl -e '$_="x"; s/x/system("rm -rf v")/e'"#,
        r#"perl -pe 's/.*/system("rm -rf v")/e' f"#,
        "perl -pe 's/x/`rm -rf v`/e' f",
        "ed -s f <<< '!rm -rf v'",
        "ex -s f <<< '!rm -rf v'",
        "vim -es -c '!rm -rf v' -c q f",
        "vi -es -c '!rm -rf v' -c q",
    ]);
}

#[test]
fn php_callable_strings() {
    must_deny(&[
        r#"php -r 'call_user_func("system", "rm -rf v");'"#,
        r#"php -r '$f="system"; $f("rm -rf v");'"#,
    ]);
}

#[test]
fn runtime_spawn_apis_and_ipython() {
    must_deny(&[
        r#"deno eval "new Deno.Command('rm',{args:['-rf','v']}).outputSync()""#,
        r#"deno eval 'Deno.run({cmd:["rm","-rf","v"]})'"#,
        "bun -e 'await Bun.$`rm -rf v`'",
        r#"ipython -c 'import os; os.system("rm -rf v")'"#,
        "ipython -c '!rm -rf v'",
        r#"python3 -c 'import os; os.system(" ".join(["rm","-rf","v"]))'"#,
    ]);
}

//! Session 10's interpreter one-liner fixes (helper denyinterp, issue 12): one table per fix,
//! each with commands that must deny and near misses that must not. The near misses are the
//! same code with the one thing that makes it destroy taken away (a read mode, a dry run, a
//! value the line does not show, a mention inside a string).

use cmdguard::{Analyzer, Verdict};

/// `(command, must deny)` rows, checked together so one run names every wrong row.
fn check(rows: &[(&str, bool)]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|(cmd, deny)| {
            let got = analyzer.analyze(cmd).verdict;
            ((got == Verdict::Deny) != *deny).then(|| {
                let want = if *deny { "deny" } else { "not deny" };
                format!("{cmd:?}: want {want}, got {got}")
            })
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn recursive_library_deletes_deny_any_literal_path_like_rm_r() {
    check(&[
        (r#"python3 -c 'import shutil; shutil.rmtree("src")'"#, true),
        (
            r#"python3 -c 'import shutil, os; shutil.rmtree(os.getcwd())'"#,
            true,
        ),
        (
            r#"node -e "require('fs').rmSync('src',{recursive:true})""#,
            true,
        ),
        (r#"ruby -e 'FileUtils.rm_r("src")'"#, true),
        (
            r#"perl -MFile::Path=remove_tree -e 'remove_tree("src")'"#,
            true,
        ),
        // Not recursive, not literal, or not a delete.
        (
            r#"python3 -c 'import shutil; shutil.copytree("src", "dst")'"#,
            false,
        ),
        (r#"node -e "require('fs').rmSync('src/a.txt')""#, false),
        (
            r#"node -e "require('fs').rmSync('src', {recursive: false})""#,
            false,
        ),
        (
            r#"python3 -c 'import shutil, sys; shutil.rmtree(sys.argv[1])'"#,
            false,
        ),
        (r#"ruby -e 'FileUtils.rm("src/a.txt")'"#, false),
    ]);
}

#[test]
fn truncating_writes_of_system_and_home_files_deny() {
    check(&[
        (r#"python3 -c 'open("/etc/hosts", "w+")'"#, true),
        (
            r#"python3 -c 'import pathlib; pathlib.Path("/etc/hosts").write_bytes(b"")'"#,
            true,
        ),
        (r#"ruby -e 'File.write("/home/u/.profile", "")'"#, true),
        (r#"perl -e 'open(my $f, "+>", "/etc/hosts")'"#, true),
        // Reading, appending, or writing inside the tree.
        (r#"python3 -c 'print(open("/etc/hosts").read())'"#, false),
        (
            r#"python3 -c 'open("/home/u/.profile", "a").write("x")'"#,
            false,
        ),
        (r#"python3 -c 'open("out.txt", "w").write("x")'"#, false),
        (r#"perl -e 'open(F, ">>/home/u/.profile")'"#, false),
        (r#"perl -e 'open(F, "<", "/etc/hosts")'"#, false),
    ]);
}

#[test]
fn deletes_over_a_glob_or_listing_lie_where_the_pattern_does() {
    check(&[
        (
            r#"python3 -c 'import glob, os; [os.remove(p) for p in glob.glob("/etc/*")]'"#,
            true,
        ),
        (
            r#"ruby -e 'Dir.glob("/etc/*").each { |f| File.delete(f) }'"#,
            true,
        ),
        (r#"php -r 'array_map("unlink", glob("/etc/*"));'"#, true),
        (r#"perl -e 'unlink glob "/etc/*"'"#, true),
        (
            r#"python3 -c 'import os; [os.remove(os.path.join("/etc", f)) for f in os.listdir("/etc")]'"#,
            true,
        ),
        // Inside the tree, or a bare listed name (it names a file in the working directory).
        (
            r#"python3 -c 'import glob, os; [os.remove(p) for p in glob.glob("*.pyc")]'"#,
            false,
        ),
        (
            r#"python3 -c 'import os; [os.remove(f) for f in os.listdir("/etc")]'"#,
            false,
        ),
        (
            r#"python3 -c 'import glob, os; [os.remove(p) for p in glob.glob("~/x")]'"#,
            false,
        ),
        (
            r#"php -r 'array_map("strtoupper", glob("/etc/*"));'"#,
            false,
        ),
    ]);
}

#[test]
fn operands_environment_and_stdin_the_line_shows_are_read() {
    check(&[
        (
            "python3 -c 'import os, sys; os.system(\" \".join(sys.argv[1:]))' rm -rf v",
            true,
        ),
        ("ruby -e 'exec(*ARGV)' rm -rf v", true),
        ("perl -e 'exec(@ARGV)' rm -rf v", true),
        (
            r#"C='git reset --hard' python3 -c 'import os; os.system(os.getenv("C"))'"#,
            true,
        ),
        (r#"C='rm -rf v' ruby -e 'system(ENV["C"])'"#, true),
        // Harmless operands, a variable the line does not assign, no here-string.
        (
            "python3 -c 'import subprocess, sys; subprocess.run(sys.argv[1:])' ls -l",
            false,
        ),
        (
            r#"python3 -c 'import os; os.system(os.environ["C"])'"#,
            false,
        ),
        (
            r#"D='rm -rf v' python3 -c 'import os; os.system(os.environ["C"])'"#,
            false,
        ),
        (
            "python3 -c 'import os, sys; os.system(sys.stdin.read())' <<< 'ls'",
            false,
        ),
        ("perl -e 'system(@ARGV)'", false),
    ]);
}

#[test]
fn lists_joins_formats_and_functions_as_values_are_followed() {
    check(&[
        // `strip` is not followed, so the command is unknown and each literal may be it.
        (
            r#"python3 -c 'import os; os.system("-".join(["rm -rf v", ""]).strip("-"))'"#,
            true,
        ),
        (
            r#"python3 -c 'import os; os.system("{} {}".format("rm -rf", "v"))'"#,
            true,
        ),
        (
            r#"python3 -c 'import subprocess as s; c = ["rm", "-rf", "v"]; s.run(c[0:])'"#,
            true,
        ),
        (
            r#"python3 -c 'import os; f = (os.system,); f[0]("rm -rf v")'"#,
            true,
        ),
        (
            r#"node -e 'const c = ["rm","-rf","v"]; require("child_process").execSync(c.join(" "))'"#,
            true,
        ),
        ("ruby -e 'c = %w[rm -rf v]; exec(*c)'", true),
        (
            r#"perl -e 'my @c = ("git", "reset", "--hard"); system @c'"#,
            true,
        ),
        // A format with names, a list changed after it is built, a harmless command.
        (
            r#"python3 -c 'import os; os.system("{a} -rf {b}".format(a="rm", b="v"))'"#,
            false,
        ),
        (
            r#"perl -e 'my @c = ("rm", "-rf", "v"); pop @c; system @c'"#,
            false,
        ),
        (
            r#"python3 -c 'import os; list(map(os.system, ["ls", "pwd"]))'"#,
            false,
        ),
        (r#"ruby -e 'method(:puts).call("rm -rf v")'"#, false),
    ]);
}

#[test]
fn runtime_spawn_apis_drivers_and_ipython() {
    check(&[
        (
            r#"deno eval "new Deno.Command('git',{args:['reset','--hard']}).spawn()""#,
            true,
        ),
        ("bun -e 'await Bun.$`git clean -fdx`'", true),
        ("ipython -c '!git reset --hard'", true),
        (
            r#"python3 -c 'import sqlite3; sqlite3.connect("a.db").executescript("DROP TABLE t")'"#,
            true,
        ),
        (
            "python3 -c 'import redis; redis.StrictRedis().flushdb()'",
            true,
        ),
        // Built but not run, harmless SQL, a mention.
        (
            r#"deno eval "new Deno.Command('rm',{args:['-rf','v']})""#,
            false,
        ),
        ("bun -e 'await Bun.$`ls`'", false),
        (r#"ipython -c 'print("!rm -rf v")'"#, false),
        (
            r#"python3 -c 'import sqlite3; sqlite3.connect("a.db").execute("SELECT 1")'"#,
            false,
        ),
    ]);
}

#[test]
fn one_liners_of_languages_read_by_the_small_scanners() {
    check(&[
        (r#"lua -e 'io.popen("git push --force")'"#, true),
        (r#"Rscript -e 'system("git reset --hard")'"#, true),
        (r#"julia -e 'run(`rm -rf v`)'"#, true),
        ("pwsh -c 'Remove-Item -Recurse src'", true),
        ("tclsh <<< 'exec git clean -fdx'", true),
        // Mentions, comments, interpolations, dry runs.
        (r#"lua -e 'print("os.execute(\"rm -rf v\")")'"#, false),
        (r#"Rscript -e '# system("rm -rf v")'"#, false),
        (r#"julia -e 'run(`rm -rf $d`)'"#, false),
        ("pwsh -c 'Remove-Item -Recurse src -WhatIf'", false),
        ("tclsh <<< 'puts \"exec rm -rf v\"'", false),
        (r#"groovy -e 'println "rm -rf v"'"#, false),
    ]);
}

#[test]
fn perl_substitution_code_and_editor_shell_escapes() {
    check(&[
        ("perl -pe 's/x/qx(rm -rf v)/e' f", true),
        ("ed -s f <<< 'r !git reset --hard'", true),
        ("vim -es -c ':silent !rm -rf v' -c q f", true),
        ("vim +'!rm -rf v' +q f", true),
        // No `e` flag, no shell escape, an escape that repeats an unseen command.
        ("perl -pe 's/x/qx(rm -rf v)/' f", false),
        ("ed -s f <<< ',p'", false),
        ("ex -s f <<< '!!'", false),
        ("vim -es -c 's/x/!y/' -c wq f", false),
        (r#"vim -es -c 'echo "!rm -rf v"' -c q f"#, false),
    ]);
}

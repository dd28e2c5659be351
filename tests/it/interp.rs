//! Interpreter one-liners (`python -c`, `node -e`, `ruby -e`, `perl -e`, `php -r`, heredocs):
//! what their code runs or deletes is denied when destructive; everything else still asks,
//! and nothing is ever allowed.

use std::sync::LazyLock;

use cmdguard::{Analyzer, Verdict};
use proptest::prelude::*;

/// One analyser for every case: building one verifies the whole allowlist's examples.
static ANALYZER: LazyLock<Analyzer> = LazyLock::new(Analyzer::default);

/// The verdict for `cmd`, with the rule and message of each deny finding (a spawned command's
/// deny carries the rule that matched inside, and names the pack rule in its message).
fn check(cmd: &str) -> (Verdict, Vec<String>) {
    let a = ANALYZER.analyze(cmd);
    let rules = a
        .findings
        .iter()
        .filter(|f| f.severity == Verdict::Deny)
        .map(|f| format!("{} {}", f.rule.as_deref().unwrap_or("-"), f.message))
        .collect();
    (a.verdict, rules)
}

fn table(cases: &[(&str, Verdict)]) {
    let mut wrong = Vec::new();
    for (cmd, want) in cases {
        let (got, rules) = check(cmd);
        if got != *want {
            wrong.push(format!("{cmd}\n  want {want:?}, got {got:?} {rules:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

use Verdict::{Ask, Deny};

#[test]
fn every_pack_example_is_denied_by_its_rule_or_not_denied() {
    let pack: toml::Value = toml::from_str(include_str!("../../packs/interpreters.toml")).unwrap();
    let rules = pack["rule"].as_array().unwrap();
    let mut wrong = Vec::new();
    for rule in rules {
        let id = rule["id"].as_str().unwrap();
        // Without the grammars only the Perl scanner reads code.
        if !cfg!(feature = "interpreters") && rule["language"].as_str() != Some("perl") {
            continue;
        }
        let examples = |key: &str| -> Vec<String> {
            rule.get(key)
                .and_then(|v| v.as_array())
                .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
                .unwrap_or_default()
        };
        let matches = examples("match");
        assert!(!matches.is_empty(), "rule `{id}` has no match example");
        for cmd in matches {
            let (v, ids) = check(&cmd);
            if v != Deny
                || !ids
                    .iter()
                    .any(|r| r.contains(&format!("`{id}`")) || r.starts_with(&format!("{id} ")))
            {
                wrong.push(format!("`{id}` match: {cmd} → {v:?} {ids:?}"));
            }
        }
        for cmd in examples("not_match") {
            let (v, ids) = check(&cmd);
            if v != Ask {
                wrong.push(format!("`{id}` not_match: {cmd} → {v:?} {ids:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
#[cfg(feature = "interpreters")]
fn python_one_liners() {
    table(&[
        // True positives.
        (
            "python -c \"import shutil; shutil.rmtree('/home/u')\"",
            Deny,
        ),
        (
            "python3 -c 'import os; os.system(\"git reset --hard\")'",
            Deny,
        ),
        (
            "python3 -c 'import subprocess as sp; sp.check_call(\"rm -rf ~\", shell=True)'",
            Deny,
        ),
        (
            "python3 -c 'import os; os.popen(\"git clean -fdx\").read()'",
            Deny,
        ),
        ("python3 -c 'import os\nos.remove(\"/etc/passwd\")'", Deny),
        (
            "python3 -c 'import shutil; shutil.rmtree(\"/\" \"home\")'",
            Deny,
        ),
        (
            "python3 -c 'import os; os.system(\"rm -rf \" + \"/\")'",
            Deny,
        ),
        (
            "python3 -c 'import os; os.system(\"bash -c \\\"rm -rf /\\\"\")'",
            Deny,
        ),
        // Near misses: they run code, so they ask, but destroy nothing known.
        ("python -c \"print(1)\"", Ask),
        ("python -c \"import shutil; shutil.rmtree('build')\"", Deny),
        ("python3 -c 'import os; os.system(\"ls -la\")'", Ask),
        ("python3 -c 'print(\"os.system(\\\"rm -rf /\\\")\")'", Ask),
        // An f-string placeholder holding a name assigned once is its value.
        (
            "python3 -c 'import os; d=\"/\"; os.system(f\"rm -rf {d}\")'",
            Deny,
        ),
        ("python3 -c 'import os; os.system(f\"rm -rf {d}\")'", Ask),
        (
            "python3 -c 'import os; d=\"/\"; os.system(f\"rm -rf {d!r}\")'",
            Ask,
        ),
        ("python3 -c 'import os; os.system(cmd)'", Ask),
        ("python3 -c 'x = \"shutil.rmtree(\\\"/\\\")\"'", Ask),
        ("python3 -m http.server", Ask),
        (
            "python3 script.py -c 'import os; os.system(\"rm -rf /\")'",
            Ask,
        ),
        // Code that does not parse asks.
        ("python3 -c 'import os; os.system(\"rm -rf /\"'", Ask),
        // Bypass attempts.
        ("python3 -B -c 'import os; os.system(\"rm -rf /\")'", Deny),
        (
            "python3 -W ignore -c 'import os; os.system(\"rm -rf /\")'",
            Deny,
        ),
        ("python3 -Bc 'import os; os.system(\"rm -rf /\")'", Deny),
        ("python3.11 -c 'import shutil; shutil.rmtree(\"/\")'", Deny),
        ("pypy3 -c 'import shutil; shutil.rmtree(\"/\")'", Deny),
        (
            "/usr/bin/python3 -c 'import shutil; shutil.rmtree(\"/\")'",
            Deny,
        ),
        (
            "./venv/bin/python -c 'import shutil; shutil.rmtree(\"/\")'",
            Deny,
        ),
        ("env python3 -c 'import shutil; shutil.rmtree(\"/\")'", Deny),
        (
            "sudo python3 -c 'import shutil; shutil.rmtree(\"/\")'",
            Deny,
        ),
        (
            "timeout 5 python3 -c 'import shutil; shutil.rmtree(\"/\")'",
            Deny,
        ),
        (
            "bash -c \"python3 -c 'import shutil; shutil.rmtree(\\\"/\\\")'\"",
            Deny,
        ),
        ("python3 -c 'import shutil as s; s.rmtree(\"/\")'", Deny),
        (
            "python3 -c 'from os import system; system(\"rm -rf /\")'",
            Deny,
        ),
        (
            "python3 -c 'from os import system as run; run(\"rm -rf /\")'",
            Deny,
        ),
        ("python3 -c 'from os import *; system(\"rm -rf /\")'", Deny),
        ("python3 -c '__import__(\"os\").system(\"rm -rf /\")'", Deny),
        (
            "python3 -c 'import importlib; importlib.import_module(\"shutil\").rmtree(\"/\")'",
            Deny,
        ),
        (
            "python3 -c 'import os; f = os.system; f(\"rm -rf /\")'",
            Deny,
        ),
        ("python3 -c 'import os; os.system(\"\\x72m -rf /\")'", Deny),
        (
            "python3 -c 'import shutil, pathlib; shutil.rmtree(pathlib.Path.home() / \"src\")'",
            Deny,
        ),
        (
            "python3 -c 'import os, shutil; shutil.rmtree(os.environ[\"HOME\"])'",
            Deny,
        ),
        (
            "python3 -c 'import os, shutil; shutil.rmtree(os.path.join(\"..\", \"..\"))'",
            Deny,
        ),
        // Bash expands `$HOME` in double quotes before Python reads the code.
        (
            "python3 -c \"import shutil; shutil.rmtree('$HOME/src')\"",
            Deny,
        ),
        ("python3 -c \"import os; os.system('rm -rf $DIR')\"", Deny),
        (
            "python3 -c \"import shutil; shutil.rmtree('$DIR/build')\"",
            Ask,
        ),
        ("python3 -c 'import shutil; shutil.rmtree(\"$HOME\")'", Deny),
        ("python3 -c \"$(cat code.py)\"", Ask),
        // `getattr` with a constant name is the attribute itself.
        (
            "python3 -c 'import os; getattr(os, \"system\")(\"rm -rf /\")'",
            Deny,
        ),
        // A command only run time knows may be any literal of the code: a visible denied one
        // denies (session 8's design rule; perl's scanner did so already). It asked before.
        ("python3 -c 'import os; os.system(\"rm -rf \" + d)'", Deny),
        (
            "python3 -c 'import subprocess; subprocess.run(\"rm -rf v\".split())'",
            Deny,
        ),
        ("python3 -c 'import os; os.system(\"ls \" + d)'", Ask),
        (
            "python3 -c 'import subprocess; subprocess.run(\"git status\".split())'",
            Ask,
        ),
    ]);
}

/// Red-team rows (issue 12): each deny row was run with the real python3 against a throwaway
/// directory in place of `/home/u`, and deleted it.
#[test]
#[cfg(feature = "interpreters")]
fn python_spawn_family_keywords_constants_and_arguments() {
    table(&[
        // The os.spawn*/os.exec*/os.posix_spawn* family: argv lists are analysed as a command,
        // and the program is the file argument, not argv[0].
        (
            "python3 -c \"import os; os.spawnlp(os.P_WAIT,'rm','rm','-rf','/home/u')\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.spawnvp(os.P_WAIT,'rm',['rm','-rf','/home/u'])\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.posix_spawnp('rm',('rm','-rf','/home/u'),{})\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.execvp('rm', ['ls','-rf','/home/u'])\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.execl('/bin/sh', 'sh', '-c', 'rm -rf ~')\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.spawnlp(os.P_WAIT, 'ls', 'ls', '/home/u')\"",
            Ask,
        ),
        (
            "python3 -c \"import os; os.execvp('ls', ['rm', '-rf', '/home/u'])\"",
            Ask,
        ),
        // A recursive delete of a run-time path, as `rm -rf \"$d\"` is in bash.
        (
            "python3 -c \"import os; os.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', d)\"",
            Deny,
        ),
        (
            "python3 -c \"import os; os.spawnlp(os.P_WAIT, 'git', 'git', 'status', d)\"",
            Ask,
        ),
        // getattr, __import__ and sys.modules name the same callables.
        (
            "python3 -c \"getattr(__import__('shutil'),'rmtree')('/home/u')\"",
            Deny,
        ),
        (
            "python3 -c \"import os; getattr(os, 'sys'+'tem')('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "python3 -c \"import sys; sys.modules['shutil'].rmtree('/home/u')\"",
            Deny,
        ),
        // A run-time attribute of a spawning module still runs a denied command.
        (
            "python3 -c \"import os; getattr(os, x)('rm -rf /home/u')\"",
            Deny,
        ),
        ("python3 -c \"import os; getattr(os, x)('ls')\"", Ask),
        (
            "python3 -c \"import shutil; getattr(shutil, x)('/home/u')\"",
            Ask,
        ),
        // Keyword arguments.
        (
            "python3 -c \"import shutil; shutil.rmtree(path='/home/u')\"",
            Deny,
        ),
        (
            "python3 -c \"import subprocess; subprocess.run(args=['rm','-rf','/home/u'])\"",
            Deny,
        ),
        (
            "python3 -c \"import shutil; shutil.rmtree(path='build')\"",
            Deny,
        ),
        (
            "python3 -c \"import shutil; shutil.rmtree('build', ignore_errors=True)\"",
            Deny,
        ),
        // Names assigned a value once.
        (
            "python3 -c \"import shutil; p='/home/u'; shutil.rmtree(p)\"",
            Deny,
        ),
        (
            "python3 -c \"import shutil; h='/home'; p=h+'/u'; shutil.rmtree(p)\"",
            Deny,
        ),
        (
            "python3 -c \"import subprocess; c=['rm','-rf','/home/u']; subprocess.run(c)\"",
            Deny,
        ),
        (
            "python3 -c \"import shutil; p='build'; shutil.rmtree(p)\"",
            Deny,
        ),
        // Bound twice, or also as a parameter or loop variable: not a constant.
        (
            "python3 -c \"import shutil; p='/home/u'; p='build'; shutil.rmtree(p)\"",
            Ask,
        ),
        (
            "python3 -c \"import shutil; p='/home/u'\nfor p in ['a']: shutil.rmtree(p)\"",
            Ask,
        ),
        (
            "python3 -c \"import shutil; p='/home/u'\ndef f(p): shutil.rmtree(p)\"",
            Ask,
        ),
        (
            "python3 -c \"import shutil; p='/home/u'; p+='x'; shutil.rmtree(p)\"",
            Ask,
        ),
        // Names bound to each other: bounded work and stack, no deny from nothing.
        (
            "python3 -c \"import shutil; a=b+b; b=a+a; shutil.rmtree(a)\"",
            Ask,
        ),
        (
            "python3 -c \"import shutil; a=str(b); b=str(a); shutil.rmtree(a)\"",
            Ask,
        ),
        (
            "python3 -c 'import os; a=f\"{b}\"; b=f\"{a}\"; os.system(a)'",
            Ask,
        ),
        // sys.argv: the operands after the code (`--` included, as Python passes it).
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[1])\" /home/u",
            Deny,
        ),
        (
            "python3 -c \"from sys import argv; import shutil; shutil.rmtree(argv[2])\" x ~",
            Deny,
        ),
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[1])\" -- /home/u",
            Deny,
        ),
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[1])\" build",
            Deny,
        ),
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[1])\" \"$D\" /home/u",
            Ask,
        ),
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[2])\" \"$D\" /home/u",
            Ask,
        ),
        (
            "python3 -c \"import shutil,sys; shutil.rmtree(sys.argv[1])\"",
            Ask,
        ),
        // Python stops reading options at `-c`: a later `-c` is an argument, not code.
        (
            "python3 -c 'print(1)' -c 'import os; os.system(\"rm -rf /\")'",
            Ask,
        ),
        // Multi-line code in -c and heredocs, with arguments.
        (
            "python3 -c \"import shutil\np = '/home/u'\nshutil.rmtree(p)\"",
            Deny,
        ),
        (
            "python3 -c $'import shutil\\nif True:\\n    shutil.rmtree(\"/home/u\")'",
            Deny,
        ),
        (
            "python3 - /home/u <<'PY'\nimport shutil, sys\nshutil.rmtree(sys.argv[1])\nPY",
            Deny,
        ),
        (
            "python3 - build <<'PY'\nimport shutil, sys\nshutil.rmtree(sys.argv[1])\nPY",
            Deny,
        ),
    ]);
}

#[test]
#[cfg(feature = "interpreters")]
fn python_heredocs_and_here_strings() {
    table(&[
        (
            "python3 <<EOF\nimport shutil\nshutil.rmtree('/home/u')\nEOF",
            Deny,
        ),
        (
            "python3 <<'EOF'\nimport os\nos.system('git reset --hard')\nEOF",
            Deny,
        ),
        (
            "python3 <<\"PY\"\nimport os\nos.system('rm -rf /')\nPY",
            Deny,
        ),
        (
            "python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF",
            Deny,
        ),
        (
            "python3 <<-EOF\n\timport os\n\tos.system('rm -rf /')\n\tEOF",
            Deny,
        ),
        ("python3 <<< 'import os; os.system(\"rm -rf /\")'", Deny),
        (
            "python3 <<EOF\nimport shutil\nshutil.rmtree('$HOME')\nEOF",
            Deny,
        ),
        (
            "python3 <<'EOF'\nimport shutil\nshutil.rmtree('$HOME')\nEOF",
            Deny,
        ),
        (
            "sudo python3 <<'EOF'\nimport shutil\nshutil.rmtree('/')\nEOF",
            Deny,
        ),
        ("python3 <<'EOF'\nprint('rm -rf /')\nEOF", Ask),
        (
            "python3 <<'EOF'\nimport shutil\nshutil.rmtree('build')\nEOF",
            Deny,
        ),
        // The heredoc is the script's input, not its code.
        (
            "python3 tool.py <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF",
            Ask,
        ),
        (
            "cat <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF",
            Verdict::Allow,
        ),
    ]);
}

#[test]
#[cfg(feature = "interpreters")]
fn javascript_one_liners() {
    table(&[
        (
            "node -e \"require('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync('/home/u', {recursive: true})\"",
            Deny,
        ),
        (
            "node -p \"require('child_process').execSync('git reset --hard').toString()\"",
            Deny,
        ),
        (
            "node --no-warnings -e \"require('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node -r ts-node/register -e \"require('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node --input-type=module -e \"import {execSync} from 'node:child_process'; execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node --input-type=module -e \"import * as cp from 'child_process'; cp.exec('rm -rf /')\"",
            Deny,
        ),
        (
            "node -e \"const {spawn} = require('child_process'); spawn('rm', ['-rf', '/'])\"",
            Deny,
        ),
        (
            "node -e \"require('fs').promises.rm('/etc', {recursive: true})\"",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(require('path').join(require('os').homedir(), '.ssh'), {recursive: true})\"",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(process.env.HOME, {recursive: true})\"",
            Deny,
        ),
        (
            "deno eval \"new Deno.Command('rm', {args: ['-rf', '/']})\"",
            Ask,
        ),
        ("bun -e \"Bun.spawnSync(['git', 'reset', '--hard'])\"", Deny),
        (
            "nodejs -e \"require('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node <<'EOF'\nrequire('child_process').execSync('rm -rf /')\nEOF",
            Deny,
        ),
        // Near misses and mentions.
        ("node -e \"console.log('rm -rf /')\"", Ask),
        (
            "node -e \"require('child_process').execSync('npm test')\"",
            Ask,
        ),
        (
            "node -e \"require('fs').rmSync('dist', {recursive: true})\"",
            Deny,
        ),
        (
            "node script.js -e \"require('child_process').execSync('rm -rf /')\"",
            Ask,
        ),
        // A name given a value once is that value.
        (
            "node -e \"const c = 'rm -rf /'; require('child_process').execSync(c)\"",
            Deny,
        ),
        (
            "node -e \"let c = 'rm -rf /'; c = 'ls'; require('child_process').execSync(c)\"",
            // Assigned twice, `c` is not known: each literal may be it (it asked before).
            Deny,
        ),
        (
            "node -e 'const d = \"/home/u\"; require(\"child_process\").execSync(`rm -rf ${d}`)'",
            Deny,
        ),
        (
            "node -e \"require('child_process').execSync('rm -rf /'\"",
            Ask,
        ),
    ]);
}

/// Red-team rows (issue 12): each deny row was run with the real node v20 against a throwaway
/// directory in place of `/home/u` (or the command inside), and deleted it.
#[test]
#[cfg(feature = "interpreters")]
fn node_print_options_module_loaders_and_arguments() {
    table(&[
        // `-p` and `-pe` run their code too; `-p -e CODE` and `--print CODE` as well.
        (
            "node -pe \"require('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node -p -e \"require('fs').rmSync('/home/u',{recursive:true})\"",
            Deny,
        ),
        (
            "node --print \"require('fs').rmSync('/home/u',{recursive:true})\"",
            Deny,
        ),
        (
            "node --eval=\"require('fs').rmSync('/home/u',{recursive:true})\"",
            Deny,
        ),
        ("node -pe '1+1'", Ask),
        ("node -p -e '1+1'", Ask),
        // `node -p -- FILE` runs a file; `--print=X` is only the flag (node reads stdin).
        ("node -p -- 'rm -rf /'", Ask),
        // Every way of loading child_process.
        (
            "node -e \"import('child_process').then(m=>m.execSync('rm -rf /'))\"",
            Deny,
        ),
        (
            "node -e \"import('child_process').then(({execSync})=>execSync('rm -rf /home/u'))\"",
            Deny,
        ),
        (
            "node --input-type=module -e \"const cp = await import('child_process'); cp.execSync('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node --input-type=module -e \"(await import('node:child_process')).execSync('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node -e \"process.getBuiltinModule('child_process').execSync('rm -rf /')\"",
            Deny,
        ),
        (
            "node -e \"require('node:child_process').execSync('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node -e \"import('child_process').then(m=>m.execSync('git status'))\"",
            Ask,
        ),
        // Computed members: constant keys are folded; a run-time key on a spawning module
        // runs whatever command it is given.
        (
            "node -e \"require('child_process')['exec'+'Sync']('rm -rf /')\"",
            Deny,
        ),
        (
            "node -e \"const m = require('child_process'); const k = 'exec' + 'Sync'; m[k]('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node -e \"const {['exec'+'Sync']: x} = require('child_process'); x('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node -e \"const m = require('child_process'); m[process.env.X]('rm -rf /home/u')\"",
            Deny,
        ),
        (
            "node -e \"const m = require('child_process'); m[process.env.X]('ls')\"",
            Ask,
        ),
        ("node -e \"require('fs')[process.env.X]('/home/u')\"", Ask),
        // process.argv: the operands after the code, once node's own options end.
        (
            "node -e \"require('fs').rmSync(process.argv[1],{recursive:true})\" /home/u",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(process.argv[1],{recursive:true})\" --no-warnings /home/u",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(process.argv[1],{recursive:true})\" -- /home/u",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(process.argv[1],{recursive:true})\" dist",
            Deny,
        ),
        (
            "node -e \"require('fs').rmSync(process.argv[2],{recursive:true})\" dist",
            Ask,
        ),
    ]);
}

#[test]
#[cfg(feature = "interpreters")]
fn ruby_one_liners() {
    table(&[
        ("ruby -e \"FileUtils.rm_rf('/')\"", Deny),
        ("ruby -rfileutils -e 'FileUtils.rm_rf(Dir.home)'", Deny),
        ("ruby -e 'system(\"git reset --hard\")'", Deny),
        ("ruby -e '`rm -rf /`'", Deny),
        ("ruby -e '%x(rm -rf /)'", Deny),
        ("ruby -e 'Kernel.exec(\"rm\", \"-rf\", \"/\")'", Deny),
        ("ruby -e 'File.delete(ENV[\"HOME\"] + \"/.bashrc\")'", Deny),
        ("ruby -e 'include FileUtils; rm_rf \"/usr\"'", Deny),
        ("ruby -W0 -e 'system(\"rm -rf /\")'", Deny),
        ("ruby <<<'system(\"rm -rf /\")'", Deny),
        ("ruby -e 'puts \"rm -rf /\"'", Ask),
        ("ruby -e 'FileUtils.rm_rf(\"tmp\")'", Deny),
        ("ruby -e 'system(\"bundle exec rspec\")'", Ask),
        ("ruby -e 'system(\"rm -rf #{ARGV[0]}\")'", Ask),
        // `send` with a symbol calls the method it names.
        ("ruby -e 'send(:system, \"rm -rf /\")'", Deny),
        ("ruby -e 'Kernel.send(:system, \"rm -rf /home/u\")'", Deny),
        ("ruby -e 'FileUtils.public_send(:rm_rf, \"/home/u\")'", Deny),
        ("ruby -e 'send(:system, \"ls\")'", Ask),
        ("ruby -e 'send(m, \"rm -rf /\")'", Ask),
        // ARGV: the operands after the code (no ruby on the test machine: not run for real).
        ("ruby -e 'FileUtils.rm_rf(ARGV[0])' /home/u", Deny),
        ("ruby -e 'FileUtils.rm_rf(ARGV[0])' -- /home/u", Deny),
        ("ruby -e 'system \"rm\", \"-rf\", ARGV[0]' /home/u", Deny),
        ("ruby -e 'FileUtils.rm_rf(ARGV[0])' tmp", Deny),
        ("ruby -e 'FileUtils.rm_rf(ARGV[1])' /home/u", Ask),
        // Names assigned once.
        ("ruby -e 'p = \"/home/u\"; FileUtils.rm_rf(p)'", Deny),
        ("ruby -e 'c = \"rm -rf /home/u\"; system(c)'", Deny),
        (
            "ruby -e 'p = \"/home/u\"; p = \"tmp\"; FileUtils.rm_rf(p)'",
            Ask,
        ),
        (
            "ruby -e 'p = \"/home/u\"; [1].each { |p| FileUtils.rm_rf(p) }'",
            Ask,
        ),
        ("ruby -e '%x{rm -rf /home/u}'", Deny),
        ("ruby -e 'd = \"/home/u\"; system(\"rm -rf #{d}\")'", Deny),
    ]);
}

#[test]
fn perl_one_liners() {
    table(&[
        ("perl -e \"system('rm -rf /')\"", Deny),
        ("perl -e 'system(\"rm\", \"-rf\", \"/\")'", Deny),
        ("perl -E 'qx(git reset --hard)'", Deny),
        ("perl -Mstrict -e '`rm -rf /`'", Deny),
        ("perl -MFile::Path=rmtree -e 'rmtree(\"/home/u\")'", Deny),
        ("perl -le 'unlink \"/etc/passwd\"'", Deny),
        ("perl -w -e 'exec \"git\", \"push\", \"--force\"'", Deny),
        ("perl -e 'unlink \"$ENV{HOME}/.bashrc\"'", Deny),
        ("perl -e 'print \"rm -rf /\"'", Ask),
        ("perl -e 'system(\"make test\")'", Ask),
        ("perl -e 'unlink \"out.txt\"'", Ask),
        ("perl -pi -e 's/foo/bar/' file.txt", Ask),
        ("perl -ne 'print if /rm -rf/' log.txt", Ask),
        ("perl -e 'system(\"rm -rf $dir\")'", Ask),
        ("perl -e 'system(\"rm -rf /'", Ask),
        // `system LIST` and `@ARGV` (the deny rows were run with the real perl against a
        // throwaway directory, which they deleted).
        ("perl -e 'system \"rm\", \"-rf\", \"/home/u\"'", Deny),
        ("perl -e 'system qw(rm -rf /home/u)'", Deny),
        ("perl -e 'system \"rm\", \"-rf\", $ARGV[0]' /home/u", Deny),
        (
            "perl -MFile::Path=remove_tree -e 'remove_tree($ARGV[0])' /home/u",
            Deny,
        ),
        ("perl -e 'unlink $ARGV[1]' a /home/u", Deny),
        (
            "perl -MFile::Path=remove_tree -e 'remove_tree($ARGV[0])' build",
            Deny,
        ),
        ("perl -e 'unlink $ARGV[0] . \"x\"' /home/u", Ask),
        ("perl -e 'unlink $ARGV[0]'", Ask),
    ]);
}

#[test]
#[cfg(feature = "interpreters")]
fn php_one_liners() {
    table(&[
        ("php -r 'system(\"rm -rf /\");'", Deny),
        ("php -r 'shell_exec(\"git reset --hard\");'", Deny),
        ("php -r 'echo `rm -rf /`;'", Deny),
        ("php -r 'SYSTEM(\"rm -rf /\");'", Deny),
        ("php -r 'unlink(\"/etc/hosts\");'", Deny),
        ("php -d display_errors=1 -r 'exec(\"rm -rf /\");'", Deny),
        ("php <<'EOF'\n<?php system('rm -rf /');\nEOF", Deny),
        // PHP echoes what is outside `<?php` tags.
        ("php <<'EOF'\nsystem('rm -rf /');\nEOF", Ask),
        ("php -r 'echo \"rm -rf /\";'", Ask),
        ("php -r 'system(\"composer install\");'", Ask),
        ("php -r '$f = \"system\"; $f(\"rm -rf /\");'", Deny),
    ]);
}

#[test]
#[cfg(feature = "interpreters")]
fn a_path_inside_the_working_directory_is_not_denied() {
    let dir = std::env::temp_dir().join("cmdguard-interp-cwd");
    std::fs::create_dir_all(&dir).unwrap();
    let inside = dir.join("build");
    let analyzer = &*ANALYZER;
    let wd = cmdguard::Workdir::new(&dir);
    // A non-recursive delete: `shutil.rmtree` denies any literal path, as `rm -r` does.
    let cases = [
        (
            format!(
                "python3 -c 'import os; os.remove(\"{}\")'",
                inside.display()
            ),
            Ask,
        ),
        (
            format!(
                "python3 -c 'import shutil; shutil.rmtree(\"{}\")'",
                inside.display()
            ),
            Deny,
        ),
        (
            format!(
                "python3 -c 'import shutil; shutil.rmtree(\"{}\")'",
                dir.display()
            ),
            Deny,
        ),
        (
            "python3 -c 'import shutil; shutil.rmtree(\"/etc\")'".to_string(),
            Deny,
        ),
        (
            "python3 -c 'import os; os.remove(\"build\")'".to_string(),
            Ask,
        ),
    ];
    for (cmd, want) in cases {
        assert_eq!(analyzer.analyze_in(&cmd, &wd).verdict, want, "{cmd}");
    }
}

#[test]
#[cfg(feature = "interpreters")]
fn a_deny_names_the_rule_and_the_code_it_came_from() {
    let a = ANALYZER.analyze("python3 -c 'import shutil; shutil.rmtree(\"/\")'");
    let f = a
        .findings
        .iter()
        .find(|f| f.code == cmdguard::Code::Denied)
        .expect("a deny");
    assert_eq!(f.rule.as_deref(), Some("interpreters.python.delete"));
    assert!(f.message.contains("`shutil.rmtree`"), "{}", f.message);
    assert_eq!(
        &"python3 -c 'import shutil; shutil.rmtree(\"/\")'"[f.span.start..f.span.end],
        "'import shutil; shutil.rmtree(\"/\")'"
    );

    let a = ANALYZER.analyze("node -e \"require('child_process').execSync('git reset --hard')\"");
    let f = a
        .findings
        .iter()
        .find(|f| f.code == cmdguard::Code::Denied)
        .expect("a deny");
    assert!(
        f.message.contains("child_process.execSync"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("git reset --hard")
            || f.rule.as_deref().is_some_and(|r| r.contains("reset")),
        "{}",
        f.message
    );
}

fn interpreter() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "python3 -c",
        "node -e",
        "ruby -e",
        "perl -e",
        "php -r",
        "deno eval",
        "bun -e",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the code, the analysis finishes without panicking and never allows.
    #[test]
    fn arbitrary_code_never_panics_and_never_allows(
        prog in interpreter(),
        code in "[ -~\\n]{0,120}",
    ) {
        let quoted = format!("'{}'", code.replace('\'', r"'\''"));
        let a = ANALYZER.analyze(&format!("{prog} {quoted}"));
        prop_assert_ne!(a.verdict, Verdict::Allow);
    }

    /// A path reaches a deleting call the same way whether it is written in the call, bound
    /// to a name once, or passed as an operand: the verdicts agree.
    #[test]
    #[cfg(feature = "interpreters")]
    fn a_path_bound_to_a_name_or_an_operand_is_judged_as_written(
        path in prop::sample::select(vec![
            "/", "/home/u", "~", "~/x", "build", "a/b", "..", "../x", "/etc/passwd", ".",
            "./out", "/tmp/x", "",
        ]),
    ) {
        let direct = ANALYZER
            .analyze(&format!("python3 -c \"import shutil; shutil.rmtree('{path}')\""))
            .verdict;
        let named = ANALYZER
            .analyze(&format!("python3 -c \"import shutil; p = '{path}'; shutil.rmtree(p)\""))
            .verdict;
        let operand = ANALYZER
            .analyze(&format!(
                "python3 -c \"import shutil, sys; shutil.rmtree(sys.argv[1])\" '{path}'"
            ))
            .verdict;
        let node = ANALYZER
            .analyze(&format!(
                "node -e \"require('fs').rmSync(process.argv[1], {{recursive: true}})\" '{path}'"
            ))
            .verdict;
        prop_assert_eq!(named, direct);
        prop_assert_eq!(operand, direct);
        prop_assert_eq!(node, direct);
    }

    /// Code built from the tokens the readers look for, in any order.
    #[test]
    fn call_shaped_code_never_panics_and_never_allows(
        prog in interpreter(),
        parts in prop::collection::vec(prop::sample::select(vec![
            "os.system(", "shutil.rmtree(", "require('child_process').execSync(", "system ",
            "FileUtils.rm_rf(", "unlink(", "`", "qx{", "'rm -rf /'", "\"/\"", "[", "]", "(",
            ")", ",", ";", "+", ".", "$ENV{HOME}", "Path.home()", "\\", "#{x}", "${x}", "\n",
            "import os", "from os import *", "q(", "s/a/b/", "/", "<<", "include FileUtils",
        ]), 0..24),
    ) {
        let code = parts.concat();
        let quoted = format!("'{}'", code.replace('\'', r"'\''"));
        let a = ANALYZER.analyze(&format!("{prog} {quoted}"));
        prop_assert_ne!(a.verdict, Verdict::Allow);
    }
}

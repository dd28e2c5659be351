//! Precision (issue 10 §7): common safe commands are allowed where the analysis proves them
//! safe, and the attacks written in the same shape still ask. Each table pairs the allowed
//! forms with their near misses; the working-directory cases build the directory they need.

use crate::scratch::Scratch;
use std::path::PathBuf;

use cmdguard::{Analyzer, Code, Verdict, Workdir};

use crate::rules::{check, check_in};
use Verdict::{Allow, Ask};

const CLEAN: &str = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
const HOSTILE: &str = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch pwned\n";

#[test]
fn export_passes_for_inert_names_only() {
    check(&[
        ("export LANG=C", Allow, None),
        ("export LC_ALL=C.UTF-8 TZ=UTC", Allow, None),
        ("export RUST_BACKTRACE=1", Allow, None),
        ("export NO_COLOR=1; ls", Allow, None),
        // Names nobody listed stay ask: a program may read any of them.
        ("export FOO=bar", Ask, Some(Code::Assignment)),
        ("export PATH=.", Ask, Some(Code::Assignment)),
        ("export GCONV_PATH=.", Ask, Some(Code::Assignment)),
        ("export LANG=C FOO=bar", Ask, Some(Code::Assignment)),
        ("export \"$n\"=1", Ask, Some(Code::DynamicArgument)),
    ]);
}

#[test]
fn version_probes_pass_in_their_exact_forms() {
    check(&[
        ("cargo --version", Allow, None),
        ("cargo -V", Allow, None),
        ("cargo -Vv", Allow, None),
        ("rustc -V", Allow, None),
        ("rustc --version --verbose", Allow, None),
        ("rustc -vV", Allow, None),
        ("node -v", Allow, None),
        ("node --version", Allow, None),
        ("npm --version", Allow, None),
        ("npm -v", Allow, None),
        ("python -V", Allow, None),
        ("gcc --version", Allow, None),
        ("clang --version", Allow, None),
        ("make --version", Allow, None),
        ("make -v", Allow, None),
        ("java -version", Allow, None),
        ("java --version", Allow, None),
        ("docker --version", Allow, None),
        ("docker -v", Allow, None),
        // Anything more than the probe runs the program for real.
        ("cargo --version build", Ask, Some(Code::ForbiddenArgument)),
        ("cargo -V --config x", Ask, Some(Code::ForbiddenArgument)),
        ("rustc -V x.rs", Ask, Some(Code::ForbiddenArgument)),
        ("rustc -vV -o out x.rs", Ask, Some(Code::ForbiddenArgument)),
        ("node -v app.js", Ask, Some(Code::ForbiddenArgument)),
        (
            "node -v -e 'require(1)'",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("npm -v install", Ask, Some(Code::ForbiddenArgument)),
        ("make -v all", Ask, Some(Code::ForbiddenArgument)),
        ("make --version -f x", Ask, Some(Code::ForbiddenArgument)),
        (
            "java -version -jar x.jar",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("docker -v run x", Ask, Some(Code::ForbiddenArgument)),
        ("gcc --version -o x x.c", Ask, Some(Code::ForbiddenArgument)),
        // Not version probes: -V means something else, or the probe reaches further.
        ("gcc -V", Ask, Some(Code::NotAllowlisted)),
        ("make -V", Ask, Some(Code::NotAllowlisted)),
        ("node -V", Ask, Some(Code::NotAllowlisted)),
        ("go version", Ask, Some(Code::NotAllowlisted)),
        ("kubectl version --client", Ask, Some(Code::NotAllowlisted)),
        ("cargo --version > v.txt", Ask, Some(Code::Redirect)),
    ]);
}

#[test]
fn rustup_proxies_ask_where_a_toolchain_file_picks_the_program() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.path().join("plain/src")).unwrap();
    s.write(
        "pinned/rust-toolchain.toml",
        "[toolchain]\npath = \"./evil\"\n",
    );
    s.write("legacy/rust-toolchain", "nightly\n");
    std::fs::create_dir_all(s.path().join("pinned/deep/er")).unwrap();
    let rows_plain = [
        ("cargo --version", Allow, None),
        ("rustc -V", Allow, None),
        ("cd ../pinned && cargo -V", Ask, Some(Code::RepoConfig)),
        ("cd \"$d\" && rustc -V", Ask, Some(Code::RepoConfig)),
    ];
    check_in(&Workdir::new(s.path().join("plain/src")), &rows_plain[..2]);
    check_in(&Workdir::new(s.path().join("plain")), &rows_plain[2..]);
    for dir in ["pinned", "pinned/deep/er", "legacy"] {
        check_in(
            &Workdir::new(s.path().join(dir)),
            &[
                ("cargo --version", Ask, Some(Code::RepoConfig)),
                ("rustc -vV", Ask, Some(Code::RepoConfig)),
                // The other probes do not go through rustup.
                ("node -v", Allow, None),
            ],
        );
    }
}

#[test]
fn id_is_allowed_with_the_options_real_id_has() {
    check(&[
        ("id", Allow, None),
        ("id -u", Allow, None),
        ("id -un", Allow, None),
        ("id -Gn root", Allow, None),
        ("id --groups --name", Allow, None),
        ("id -x", Ask, Some(Code::ForbiddenArgument)),
        ("id --bogus", Ask, Some(Code::ForbiddenArgument)),
        ("id > who", Ask, Some(Code::Redirect)),
        ("id \"$u\"", Ask, Some(Code::DynamicArgument)),
    ]);
}

/// `>/dev/stderr` stays ask: Linux reopens the file behind the stream, so when the caller
/// connected stderr to a log file, even one it opened for appending, `>` truncates that file
/// (`bash -c 'echo hi >/dev/stderr' 2>>log` leaves only `hi`; the red team's finding, pinned in
/// `rules::the_standard_streams_by_path_are_not_files`). Appending and `>&2` never truncate.
#[test]
fn writes_to_the_commands_own_streams_pass_when_they_cannot_truncate() {
    check(&[
        ("echo hi >&2", Allow, None),
        ("echo hi >>/dev/stderr", Allow, None),
        ("echo hi >> /dev/stdout", Allow, None),
        ("echo hi 1>>/dev/fd/1", Allow, None),
        ("ls 2>>/dev/fd/2", Allow, None),
        ("echo hi >/dev/stderr", Ask, Some(Code::Redirect)),
        ("echo hi >|/dev/stderr", Ask, Some(Code::Redirect)),
        ("ls 2>/dev/stdout", Ask, Some(Code::Redirect)),
        ("echo hi 3>/dev/stderr", Ask, Some(Code::Redirect)),
        ("echo hi >>/dev/fd/3", Ask, Some(Code::Redirect)),
        ("echo hi >>/dev/stderr2", Ask, Some(Code::Redirect)),
        ("echo hi &>>/dev/stderr", Ask, Some(Code::Redirect)),
        ("echo hi <>/dev/stderr", Ask, Some(Code::Redirect)),
    ]);
}

#[test]
fn counter_arithmetic_on_the_commands_own_integers_passes() {
    check(&[
        ("i=0; i=$((i+1))", Allow, None),
        ("i=0; i=$((i+1)); echo $i", Allow, None),
        ("for ((i=0;i<3;i++)); do echo $i; done", Allow, None),
        ("for ((i=0; i<3; i++)); do echo $((i*2)); done", Allow, None),
        ("n=0; ((n++)); ((n+=2)); echo $n", Allow, None),
        ("a=1; b=2; echo $((a+b))", Allow, None),
        ("a=1; b=$((a*2)); echo $((a+b))", Allow, None),
        ("x=4; echo $((x * 2))", Allow, None),
        ("i=0; echo $(( $i + ${i} ))", Allow, None),
        ("ls; n=0; ((n++))", Allow, None),
        ("n=-3 && echo $((n))", Allow, None),
        ("x=2; for ((i=0;i<x;i++)); do :; done", Allow, None),
        ("for (( i = 0; i < 3; i++ )); do echo $i; done", Allow, None),
        // The value the command inherited would be evaluated: never assigned, assigned after,
        // or assigned where it may not run (a condition, a subshell, a pipeline, a loop).
        ("echo $((i+1))", Ask, Some(Code::Arithmetic)),
        ("i=$((i+1))", Ask, Some(Code::Arithmetic)),
        ("echo $((i)); i=0", Ask, Some(Code::Arithmetic)),
        ("false && i=0; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("(i=0); echo $((i))", Ask, Some(Code::Arithmetic)),
        ("{ i=0; }; echo $((i))", Ask, Some(Code::Arithmetic)),
        (
            "if true; then i=0; fi; echo $((i))",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("i=0 | cat; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("i=0 ls; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("f(){ echo $((i)); }; i=0; f", Ask, Some(Code::Arithmetic)),
        (
            "while read -r x; do for ((i=0;i<1;i++)); do :; done; done; echo $((i))",
            Ask,
            Some(Code::Arithmetic),
        ),
        (
            "for ((i=0;i<n;i++)); do :; done",
            Ask,
            Some(Code::Arithmetic),
        ),
        (
            "for ((i=j;i<3;i++)); do :; done",
            Ask,
            Some(Code::Arithmetic),
        ),
        // A value other than an integer, stored anywhere in the command.
        ("i=j; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("i=0; read i; echo $((i+1))", Ask, Some(Code::Arithmetic)),
        (
            "i=0; for i in *; do echo $((i+1)); done",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("i=0; i+=x; echo $((i))", Ask, Some(Code::Arithmetic)),
        (
            "i=0; printf -v i %s 'a[$(touch pwned)]'; echo $((i))",
            Ask,
            Some(Code::Arithmetic),
        ),
        (
            "i=0; eval \"i='a[\\$(touch pwned)]'\"; echo $((i))",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("i=0; : ${i:=x}; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("i=0; declare i=x; echo $((i))", Ask, Some(Code::Arithmetic)),
        ("i=1$((2)); echo $((i))", Ask, Some(Code::Arithmetic)),
        ("i=0; x=$(( i=j ))", Ask, Some(Code::Arithmetic)),
        ("i=0; echo $((i[1]))", Ask, Some(Code::Arithmetic)),
        // Names bash sets by itself: `_` is the previous command's last argument.
        (
            "_=0; echo 'a[$(touch pwned)]'; echo $((_))",
            Ask,
            Some(Code::Arithmetic),
        ),
        ("RANDOM=0; echo $((RANDOM))", Ask, Some(Code::Assignment)),
        ("I=0; echo $((I))", Ask, Some(Code::Arithmetic)),
    ]);
}

#[test]
fn substitutions_pass_as_file_operands_when_they_stay_one_word_or_follow_dashdash() {
    check(&[
        ("ls -la \"$(pwd)\"", Allow, None),
        (
            "cat \"$(git rev-parse --show-toplevel)/README.md\"",
            Allow,
            None,
        ),
        ("wc -l -- $(git ls-files)", Allow, None),
        ("test -n \"$(git status --porcelain)\"", Allow, None),
        ("git diff -- $(git ls-files '*.rs')", Allow, None),
        ("file -- $(git ls-files)", Allow, None),
        // Unquoted before `--`, the output splits into any words, options included.
        (
            "wc -l $(git ls-files)",
            Ask,
            Some(Code::SubstitutedArgument),
        ),
        ("cat $(echo f)", Ask, Some(Code::SubstitutedArgument)),
        ("ls \"$(pwd)\"/$(ls)", Ask, Some(Code::SubstitutedArgument)),
        // Restricted programs: a quoted word can still be an option they do not permit.
        ("file \"$(ls)\"", Ask, Some(Code::DynamicArgument)),
        ("sort \"$(ls)\"", Ask, Some(Code::DynamicArgument)),
        // The substituted command itself is checked as always.
        ("ls \"$(touch pwned)\"", Ask, Some(Code::NotAllowlisted)),
        ("ls \"$(rm -r x)\"", Verdict::Deny, Some(Code::Denied)),
        // A count or shape of operands cannot be checked on output nobody has seen.
        ("xxd -- $(ls)", Ask, Some(Code::DynamicArgument)),
        ("uniq -- \"$(ls)\"", Ask, Some(Code::DynamicArgument)),
        // jq's filter is a program that can print the environment.
        ("jq -n -- \"$(cat f)\"", Ask, Some(Code::DynamicArgument)),
        ("x=env; jq -n -- \"$x\"", Ask, Some(Code::DynamicArgument)),
    ]);
}

#[test]
fn git_dash_c_checks_the_repository_it_names() {
    // Without a working directory no repository is read, so none named by `-C` is checked.
    check(&[
        ("git -C .. status", Ask, Some(Code::RepoConfig)),
        (
            "git -C sub -C .. log --oneline",
            Ask,
            Some(Code::RepoConfig),
        ),
        ("git -C \"$d\" status", Ask, Some(Code::DynamicArgument)),
        (
            "git -C $(mktemp -d) status",
            Ask,
            Some(Code::NotAllowlisted),
        ),
        ("git -C", Ask, Some(Code::NotAllowlisted)),
        ("git -C x push -f", Verdict::Deny, Some(Code::Denied)),
        (
            "git -C x -c core.pager=sh log",
            Ask,
            Some(Code::NotAllowlisted),
        ),
    ]);
    let s = Scratch::new();
    s.repo("good", CLEAN);
    s.repo("evil", HOSTILE);
    std::fs::create_dir_all(s.path().join("good/src")).unwrap();
    std::os::unix::fs::symlink(s.path().join("evil"), s.path().join("good/link")).unwrap();
    let evil = s.path().join("evil");
    let abs = format!("git -C {} status", evil.display());
    check_in(
        &Workdir::new(s.path().join("good")),
        &[
            ("git -C src status", Allow, None),
            ("git -C . log", Allow, None),
            ("git -C \"\" status", Allow, None),
            ("git -C src -C .. log --oneline", Allow, None),
            ("git -C ../evil status", Ask, Some(Code::RepoConfig)),
            ("git -C .. -C evil status", Ask, Some(Code::RepoConfig)),
            ("git -C src -C ../../evil log", Ask, Some(Code::RepoConfig)),
            // chdir(2) resolves `..` after a symlink physically.
            ("git -C link status", Ask, Some(Code::RepoConfig)),
            (&abs, Ask, Some(Code::RepoConfig)),
            ("cd .. && git -C evil status", Ask, Some(Code::RepoConfig)),
            ("git -C \"$d\" status", Ask, Some(Code::RepoConfig)),
            ("git -C ~x status", Ask, Some(Code::RepoConfig)),
            // A directory that does not exist: git fails before reading anything.
            ("git -C missing status", Allow, None),
        ],
    );
    check_in(
        &Workdir::new(s.path().join("good")).with_home(&evil),
        &[
            ("git -C ~ status", Ask, Some(Code::RepoConfig)),
            ("git -C \"~\" status", Ask, Some(Code::RepoConfig)),
        ],
    );
}

#[test]
fn cd_to_home_goes_where_cd_tilde_goes() {
    check(&[
        ("cd \"$HOME\"", Allow, None),
        ("cd $HOME", Allow, None),
        ("cd \"${HOME}\"", Allow, None),
        ("cd \"$HOME/src\" && ls", Allow, None),
        ("cd ~", Allow, None),
        ("cd \"$HOME_DIR\"", Ask, Some(Code::DynamicArgument)),
        ("cd \"$HOME$x\"", Ask, Some(Code::DynamicArgument)),
        ("cd \"$HOME/$x\"", Ask, Some(Code::DynamicArgument)),
        ("cd \"$HOME\"/*", Ask, Some(Code::DynamicArgument)),
        ("cd \"$(echo $HOME)\"", Ask, Some(Code::DynamicArgument)),
        ("HOME=/tmp; cd \"$HOME\"", Ask, Some(Code::Assignment)),
        ("cd \"$HOME\" \"$HOME\"", Ask, Some(Code::ForbiddenArgument)),
    ]);
    let s = Scratch::new();
    s.repo("work", CLEAN);
    s.repo("home", HOSTILE);
    let wd = Workdir::new(s.path().join("work")).with_home(s.path().join("home"));
    check_in(
        &wd,
        &[
            ("git status", Allow, None),
            ("cd \"$HOME\" && git status", Ask, Some(Code::RepoConfig)),
            ("cd \"${HOME}/\" && git log", Ask, Some(Code::RepoConfig)),
        ],
    );
    check_in(
        &Workdir::new(s.path().join("work")),
        &[("cd \"$HOME\" && git status", Ask, Some(Code::RepoConfig))],
    );
}

#[test]
fn globs_pass_where_they_cannot_expand_to_an_option() {
    check(&[
        ("file -- *", Allow, None),
        ("file ./*", Allow, None),
        ("file src/*.rs", Allow, None),
        ("file -b ./*.bin", Allow, None),
        // Without a working directory a bare pattern can match a file named `-C`.
        ("file *", Ask, Some(Code::DynamicArgument)),
        ("file *.txt", Ask, Some(Code::DynamicArgument)),
        ("file -*", Ask, Some(Code::DynamicArgument)),
        ("file \"$x\"*", Ask, Some(Code::DynamicArgument)),
        ("file $x/*", Ask, Some(Code::DynamicArgument)),
        ("file ./* -z", Ask, Some(Code::ForbiddenArgument)),
        ("xxd ./*", Ask, Some(Code::DynamicArgument)),
        ("jq . ./*", Ask, Some(Code::DynamicArgument)),
    ]);
    let s = Scratch::new();
    s.write("clean/a.txt", "a");
    s.write("clean/b.bin", "b");
    s.write("dashed/a.txt", "a");
    s.write("dashed/-C", "");
    check_in(
        &Workdir::new(s.path().join("clean")),
        &[
            ("file *", Allow, None),
            ("file -b *.txt", Allow, None),
            ("file ?.bin", Allow, None),
            ("cd ../dashed && file *", Ask, Some(Code::DynamicArgument)),
            ("cd \"$d\" && file *", Ask, Some(Code::DynamicArgument)),
        ],
    );
    check_in(
        &Workdir::new(s.path().join("dashed")),
        &[
            ("file *", Ask, Some(Code::DynamicArgument)),
            ("file *.txt", Ask, Some(Code::DynamicArgument)),
            ("file ./*", Allow, None),
            ("file -- *", Allow, None),
        ],
    );
}

#[test]
fn flock_passes_on_an_existing_lock_file_with_an_allowed_command() {
    // Without a working directory the lock file may not exist: flock would create it.
    check(&[
        ("flock /tmp/x.lock git status", Ask, Some(Code::Wrapper)),
        ("flock x.lock ls", Ask, Some(Code::Wrapper)),
    ]);
    let s = Scratch::new();
    s.write("w/x.lock", "");
    std::fs::create_dir_all(s.path().join("w/lockdir")).unwrap();
    std::os::unix::fs::symlink("missing", s.path().join("w/dangling")).unwrap();
    let abs = format!("flock {} ls", s.path().join("w/x.lock").display());
    check_in(
        &Workdir::new(s.path().join("w")),
        &[
            ("flock x.lock ls", Allow, None),
            ("flock -n x.lock git status", Allow, None),
            ("flock -s -w 5 x.lock sleep 1", Allow, None),
            ("flock lockdir ls", Allow, None),
            (&abs, Allow, None),
            ("flock missing.lock ls", Ask, Some(Code::Wrapper)),
            // open(O_CREAT) through a dangling symlink creates its target.
            ("flock dangling ls", Ask, Some(Code::Wrapper)),
            ("flock /dev/null ls", Ask, Some(Code::Wrapper)),
            ("flock \"$f\" ls", Ask, Some(Code::Wrapper)),
            ("flock x.lock -c 'touch pwned'", Ask, Some(Code::Wrapper)),
            ("flock x.lock touch pwned", Ask, Some(Code::NotAllowlisted)),
            ("flock -- x.lock ls", Ask, Some(Code::Wrapper)),
            ("cd \"$d\" && flock x.lock ls", Ask, Some(Code::Wrapper)),
        ],
    );
}

/// Run by real bash with every variable the rows use exported as `a[$(touch MARK)]`: a row
/// cmdguard allows never evaluates that inherited value, and the rows that ask do (so the
/// attack is real and the test can fail).
#[test]
fn allowed_counters_never_evaluate_an_inherited_value_in_real_bash() {
    let Ok(bash) = which_bash() else {
        return;
    };
    // Each command, and whether bash runs it without evaluating the inherited value.
    let rows: &[(&str, bool)] = &[
        ("i=0; i=$((i+1)); echo $i", true),
        ("for ((i=0;i<3;i++)); do echo $((i*2)); done", true),
        ("n=0; ((n++)); ((n+=2)); echo $n", true),
        ("a=1; b=$((a*2)); echo $((a+b))", true),
        ("ls >/dev/null; n=0; ((n++))", true),
        ("echo $((i+1))", false),
        ("false && i=0; echo $((i))", false),
        ("echo $((i)); i=0", false),
        ("(i=0); echo $((i))", false),
        ("i=0 ls >/dev/null; echo $((i))", false),
        ("f(){ echo $((i)); }; i=0; f", true),
    ];
    let s = Scratch::new();
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (k, (cmd, safe)) in rows.iter().enumerate() {
        let mark = s.path().join(format!("pwned{k}"));
        let payload = format!("a[$(touch {})]", mark.display());
        let out = std::process::Command::new(&bash)
            .args(["-c", cmd])
            .current_dir(s.path())
            .envs(["i", "n", "a", "b"].map(|v| (v, payload.as_str())))
            .output()
            .unwrap();
        let ran = mark.exists();
        if ran == *safe {
            failures.push(format!(
                "{cmd:?}: the table says safe={safe}, bash ran the payload: {ran} ({out:?})"
            ));
        }
        // A row bash runs safely may still ask (`f` is called after `i=0`, but its use comes
        // first in the text); a row that runs the payload never passes.
        if ran && analyzer.analyze(cmd).verdict == Allow {
            failures.push(format!("{cmd:?} is allowed but bash ran the payload"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// bash from `PATH`, when it is installed.
fn which_bash() -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
        .ok_or(())
}

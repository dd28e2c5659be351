//! Sensitive reads (issue 12): reading a path the `[sensitive]` table lists asks with
//! `sensitive_read`, printing the environment or a secret-looking variable with
//! `prints_environment` — in every way an allowed command reads or prints — while the near
//! misses stay allowed. One table per form, all through `check` (no working directory) or
//! `check_in` (a scratch directory as working directory and home).

use crate::scratch::Scratch;

use cmdguard::{Allowlist, AllowlistBuilder, Analyzer, Code, Verdict, Workdir};

use super::rules::check;
use Verdict::{Allow, Ask};

const READ: Option<Code> = Some(Code::SensitiveRead);
const PRINTS: Option<Code> = Some(Code::PrintsEnvironment);
const FORBIDDEN: Option<Code> = Some(Code::ForbiddenArgument);

#[test]
fn operands_of_readers_that_name_secrets_ask() {
    check(&[
        ("cat ~/.ssh/id_rsa", Ask, READ),
        ("head /proc/1/environ", Ask, READ),
        ("cat /proc/1/mem", Ask, READ),
        ("cat .env", Ask, READ),
        ("cat config/.env.production", Ask, READ),
        ("jq . ~/.docker/config.json", Ask, READ),
        ("tail -n 5 ~/.aws/credentials", Ask, READ),
        ("less ~/.kube/config", Ask, Some(Code::NotAllowlisted)),
        ("xxd ~/.netrc", Ask, READ),
        ("base64 ~/.git-credentials", Ask, READ),
        ("strings ~/.npmrc", Ask, READ),
        ("od -c ~/.pypirc", Ask, READ),
        ("grep token ~/.config/gcloud/credentials.db", Ask, READ),
        ("rg -n key ~/.azure/accessTokens.json", Ask, READ),
        ("sort ~/.gnupg/private-keys-v1.d/x.key", Ask, READ),
        ("wc -c server.pem", Ask, READ),
        ("diff a.key b.key", Ask, READ),
        ("cmp id_ed25519 /dev/null", Ask, READ),
        ("cat /etc/shadow", Ask, READ),
        ("cat /etc/gshadow", Ask, READ),
        ("cat ~/.bash_history", Ask, READ),
        ("tail ~/.zsh_history", Ask, READ),
        ("cat ~/.python_history", Ask, READ),
        (
            "cat '/home/u/.config/google-chrome/Default/Login Data'",
            Ask,
            READ,
        ),
        ("strings ~/.config/chromium/Default/Cookies", Ask, READ),
        ("cat ~/.mozilla/firefox/x.default/logins.json", Ask, READ),
        ("xxd ~/.mozilla/firefox/x.default/key4.db", Ask, READ),
        ("cat ~/.mozilla/firefox/x.default/cookies.sqlite", Ask, READ),
        ("awk '{print}' .env", Ask, READ),
        ("sed -n 1p .env", Ask, READ),
        ("grep -f ~/.ssh/id_rsa x", Ask, READ),
        ("git show HEAD:.env", Ask, READ),
        ("git diff .env", Ask, READ),
        ("timeout 5 cat ~/.ssh/id_rsa", Ask, READ),
        ("cat /root/.ssh/id_rsa", Ask, READ),
        ("cat /home/alice/.aws/credentials", Ask, READ),
        ("sed 'r ~/.ssh/id_rsa' notes.txt", Ask, READ),
        ("sed '1R .env' notes.txt", Ask, READ),
    ]);
}

#[test]
fn near_misses_stay_allowed() {
    check(&[
        ("cat id_rsa.pub", Allow, None),
        ("cat ~/.ssh/id_ed25519.pub", Allow, None),
        ("cat ~/.ssh/known_hosts", Allow, None),
        ("cat .env.example", Allow, None),
        ("cat .env.sample", Allow, None),
        ("cat env.txt", Allow, None),
        ("grep -r x src/", Allow, None),
        ("grep -rn 'API_KEY' src/", Allow, None),
        ("grep .env README.md", Allow, None),
        ("rg -n '\\.pem' src", Allow, None),
        ("jq .env package.json", Allow, None),
        ("cat /etc/hostname", Allow, None),
        ("cat /proc/cpuinfo", Allow, None),
        ("echo ~/.ssh/id_rsa", Allow, None),
        ("ls ~/.ssh", Allow, None),
        ("ls -la ~/.aws", Allow, None),
        ("stat ~/.netrc", Allow, None),
        ("find . -name '*.pem'", Allow, None),
        ("wc -l src/*.rs", Allow, None),
        ("cat *.md", Allow, None),
        ("sed 's/for/bar/' notes.txt", Allow, None),
        ("sed 'r header.txt' notes.txt", Allow, None),
        ("diff <(sort a) b", Allow, None),
    ]);
}

#[test]
fn input_redirects_ask_for_secrets_and_outside_files_only() {
    check(&[
        ("wc -l < file.txt", Allow, None),
        ("wc -l < ./data/x.csv", Allow, None),
        (
            "while read -r line; do echo \"$line\"; done < file.txt",
            Allow,
            None,
        ),
        ("wc -l < /etc/shadow", Ask, READ),
        ("cat < ~/.ssh/id_rsa", Ask, READ),
        ("sort < .env", Ask, READ),
        ("while read -r l; do echo \"$l\"; done < .env", Ask, READ),
        (
            "cat /dev/null < /etc/passwd",
            Ask,
            Some(Code::InputRedirect),
        ),
        ("wc -l < /etc/hostname", Ask, Some(Code::InputRedirect)),
        ("wc -l < ../x", Ask, Some(Code::InputRedirect)),
        ("wc -l < $f", Ask, Some(Code::Redirect)),
        (
            "cat <<< \"$(<~/.ssh/id_rsa)\"",
            Ask,
            Some(Code::UnsupportedSyntax),
        ),
    ]);
}

#[test]
fn globs_that_can_match_a_secret_ask() {
    check(&[
        ("cat ~/.ssh/*", Ask, READ),
        ("cat ~/.ss?/id_*", Ask, READ),
        ("cat ~/.ssh/id_[re]*", Ask, READ),
        ("cat ~/.*", Ask, READ),
        ("cat /proc/*/environ", Ask, READ),
        ("cat *.pem", Ask, READ),
        ("cat .env*", Ask, READ),
        ("cat ~/.aws/cred*", Ask, READ),
        // Only public halves: every name the glob can reach is an exception.
        ("cat ~/.ssh/*.pub", Allow, None),
        // A `*` does not match a leading dot: `~/*` never reaches `~/.netrc`.
        ("cat ~/*.txt", Ask, READ),
    ]);
}

#[test]
fn recursive_searches_that_can_reach_a_secret_ask() {
    check(&[
        ("grep -r token ~", Ask, READ),
        ("grep -R token ~/", Ask, READ),
        ("grep --recursive x /", Ask, READ),
        ("grep -d recurse x ~", Ask, READ),
        ("rg token ~/.config", Ask, READ),
        ("rg token ~", Ask, READ),
        ("grep -r x /proc/1/", Ask, READ),
        ("grep -r x /proc", Ask, READ),
        ("diff -r ~/.ssh /tmp/x", Ask, READ),
        ("find ~ -name '*.pem' -exec cat {} +", Ask, READ),
        ("grep -r x src/", Allow, None),
        ("rg token src", Allow, None),
        ("grep -r x /usr/share/doc", Allow, None),
        ("find ~ -name '*.pem'", Allow, None),
        // Listing is not reading.
        ("rg --files ~", Allow, None),
    ]);
}

#[test]
fn home_dollar_home_and_dotdot_are_seen_through() {
    check(&[
        ("cat \"$HOME\"/.aws/credentials", Ask, READ),
        ("cat $HOME/.ssh/id_rsa", Ask, READ),
        ("cat ${HOME}/.netrc", Ask, READ),
        ("cat ~/.ssh/../.ssh/id_rsa", Ask, READ),
        ("cat ~/x/../.netrc", Ask, READ),
        ("cat /etc/../etc/shadow", Ask, READ),
        ("cat /proc/self/environ", Ask, READ),
        ("cat /proc/$$/environ", Ask, READ),
        ("cat /proc/self/task/1/environ", Ask, READ),
        ("cat ~root/.ssh/id_rsa", Ask, READ),
        ("cat $dir/.env", Ask, READ),
        ("cat '~/.ssh/id_rsa'", Ask, READ),
        ("cat \"/etc/sh\"adow", Ask, READ),
        ("cat /etc/sh\\adow", Ask, READ),
        ("cat ~/.ssh/{id_rsa,x}", Ask, READ),
        ("cat {~/.ssh/id_rsa,README.md}", Ask, READ),
        // A whole run-time value may name any file (red team s5): it asks.
        ("cat \"$f\"", Ask, READ),
        ("cat $HOME/notes.txt", Ask, READ),
    ]);
}

#[test]
fn printing_the_environment_asks() {
    check(&[
        ("env", Ask, Some(Code::NotAllowlisted)),
        ("printenv", Ask, Some(Code::ForbiddenArgument)),
        (
            "printenv OPENAI_API_KEY",
            Ask,
            Some(Code::ForbiddenArgument),
        ),
        ("set", Ask, Some(Code::Assignment)),
        ("export -p", Ask, Some(Code::ForbiddenArgument)),
        ("declare -x", Ask, PRINTS),
        ("declare -p", Ask, Some(Code::ForbiddenArgument)),
        ("jq -n env", Ask, PRINTS),
        ("jq -n '$ENV'", Ask, PRINTS),
        ("jq -n 'env.GITHUB_TOKEN'", Ask, PRINTS),
        ("jq '{a: env}' f.json", Ask, PRINTS),
        ("awk 'BEGIN { print ENVIRON[\"TOKEN\"] }'", Ask, PRINTS),
        ("awk 'BEGIN { for (k in ENVIRON) print k }'", Ask, PRINTS),
        (
            "awk 'BEGIN { while ((getline l < \"/proc/1/environ\") > 0) print l }'",
            Ask,
            READ,
        ),
        ("ps e", Ask, PRINTS),
        ("ps eww", Ask, PRINTS),
        ("ps auxe", Ask, PRINTS),
        ("ps -E", Ask, PRINTS),
        // Other processes' command lines ask too (secfix2's decision, README limits).
        ("ps aux", Ask, READ),
        ("ps -ef", Ask, READ),
        ("ps", Allow, None),
        ("ps -e -o pid,comm", Allow, None),
        ("printenv HOME", Allow, None),
        ("jq .env package.json", Allow, None),
        ("jq '.environment' f.json", Allow, None),
        ("awk '{print $1}' f", Allow, None),
    ]);
}

#[test]
fn secret_variables_ask_when_expanded() {
    check(&[
        ("echo $GITHUB_TOKEN", Ask, PRINTS),
        ("printf %s \"$OPENAI_API_KEY\"", Ask, PRINTS),
        ("echo \"${AWS_SECRET_ACCESS_KEY}\"", Ask, PRINTS),
        ("echo ${DB_PASSWORD:-none}", Ask, PRINTS),
        ("x=$NPM_TOKEN", Ask, PRINTS),
        ("echo $stripe_api_key", Ask, PRINTS),
        ("cat <<EOF\n$GITHUB_TOKEN\nEOF", Ask, PRINTS),
        ("cat <<< $SLACK_TOKEN", Ask, PRINTS),
        ("echo $HOME", Allow, None),
        ("echo $AWS_REGION", Allow, None),
        ("echo '$GITHUB_TOKEN'", Allow, None),
        ("cat <<'EOF'\n$GITHUB_TOKEN\nEOF", Allow, None),
        ("[ -n \"$GITHUB_TOKEN\" ]", Allow, None),
        ("[[ -z $API_KEY ]]", Allow, None),
        // The length is derived from the value (red team s9): bash printed `10`.
        ("echo ${#GITHUB_TOKEN}", Ask, PRINTS),
        ("echo ${TOKEN:+set}", Allow, None),
        ("echo ${GITHUB_TOKEN:+set}", Allow, None),
    ]);
}

/// `check` with `home/proj` of a scratch directory as working directory and `home` as `$HOME`.
fn check_in(s: &Scratch, rows: &[(&str, Verdict, Option<Code>)]) {
    let dir = Workdir::new(s.path().join("home/proj")).with_home(s.path().join("home"));
    super::rules::check_in(&dir, rows);
}

#[cfg(unix)]
#[test]
fn symlinks_and_globs_resolve_in_the_working_directory() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.aws/credentials", "x");
    s.write("home/.ssh/id_rsa", "x");
    s.write("home/.ssh/id_rsa.pub", "x");
    s.write("home/proj/notes.txt", "x");
    s.write("home/proj/src/main.rs", "x");
    s.write("home/other/key.pem", "x");
    let proj = s.path().join("home/proj");
    symlink(
        s.path().join("home/.aws/credentials"),
        proj.join("creds.txt"),
    )
    .unwrap();
    symlink(s.path().join("home/.ssh"), proj.join("keys")).unwrap();
    symlink(s.path().join("home/proj/notes.txt"), proj.join("link.txt")).unwrap();
    check_in(
        &s,
        &[
            // Symlinks that lead into a sensitive path.
            ("cat creds.txt", Ask, READ),
            ("wc -l < creds.txt", Ask, READ),
            ("cat keys/id_rsa", Ask, READ),
            ("grep -r x keys", Ask, READ),
            ("cat link.txt", Allow, None),
            ("wc -l < link.txt", Allow, None),
            // Relative paths and `cd` resolve against the working directory and the home.
            ("cat ../.aws/credentials", Ask, READ),
            ("cd .. && cat .aws/credentials", Ask, READ),
            ("cd ~/.ssh && cat id_rsa.pub", Allow, None),
            ("cat ~/proj/notes.txt", Allow, None),
            // Globs are expanded in their directory: only what exists counts.
            ("cat *.txt", Ask, READ),
            ("cat src/*.rs", Allow, None),
            ("cat ../other/*", Ask, READ),
            ("cat ~/.ssh/*.pub", Allow, None),
            ("cat ~/.ssh/id*", Ask, READ),
            // A recursive search from the home reaches its secrets; from the project, not.
            ("grep -r x ..", Ask, READ),
            ("rg x", Allow, None),
            ("cd .. && rg x", Ask, READ),
            // With its input a pipe, rg reads that instead of the working directory.
            ("cd .. && rg --files | rg x", Allow, None),
            ("cd .. && grep -r x", Ask, READ),
            ("wc -l < notes.txt", Allow, None),
            ("wc -l < src/main.rs", Allow, None),
            ("wc -l < ../other/key.pem", Ask, READ),
        ],
    );
}

#[test]
fn the_table_is_configurable() {
    let list = |extra: &str| -> Allowlist {
        AllowlistBuilder::new()
            .add_default()
            .add_toml(extra, None)
            .build()
            .unwrap()
    };
    let verdict = |list: &Allowlist, cmd: &str| Analyzer::new(list.clone()).analyze(cmd).verdict;
    // A default turned off through an exception; a path and a variable added.
    let l = list(
        "[sensitive]\nallow_paths = [\"~/.npmrc\"]\npaths = [\"secrets/**\"]\nsecret_vars = [\"MY_*\"]\npublic_vars = [\"GITHUB_TOKEN\"]\n",
    );
    assert_eq!(verdict(&l, "cat ~/.npmrc"), Allow);
    assert_eq!(verdict(&l, "cat ~/.pypirc"), Ask);
    assert_eq!(verdict(&l, "cat secrets/db.txt"), Ask);
    assert_eq!(verdict(&l, "echo $MY_THING"), Ask);
    assert_eq!(verdict(&l, "echo $GITHUB_TOKEN"), Allow);
    // A whole kind turned off through its severity.
    let l = list("[severity]\nsensitive_read = \"allow\"\nprints_environment = \"allow\"\n");
    assert_eq!(verdict(&l, "cat ~/.ssh/id_rsa"), Allow);
    assert_eq!(verdict(&l, "ps eww"), Allow);
    // Entries say whether their operands are read.
    let l = list(
        "[[allow]]\ncommand = \"mytool\"\nreads_operands = false\n[[allow]]\ncommand = \"myreader\"\n",
    );
    assert_eq!(verdict(&l, "mytool ~/.ssh/id_rsa"), Allow);
    assert_eq!(verdict(&l, "myreader ~/.ssh/id_rsa"), Ask);
}

#[test]
fn bad_patterns_are_config_errors_naming_place_and_key() {
    for (text, key) in [
        ("[sensitive]\npaths = [\"~/.ssh/[ab\"]\n", "paths"),
        ("[sensitive]\nallow_paths = [\"\"]\n", "allow_paths"),
        ("[sensitive]\nsecret_vars = [\"X\\\\\"]\n", "secret_vars"),
        ("[sensitive]\npaths = [\"~bob/.ssh\"]\n", "paths"),
        ("[sensitive]\nbogus = 1\n", ""),
    ] {
        let err = AllowlistBuilder::new()
            .add_toml(text, None)
            .build()
            .unwrap_err();
        assert_eq!(err.line, 2, "{text}: {err}");
        if !key.is_empty() {
            assert_eq!(err.key.as_deref(), Some(key), "{text}: {err}");
            assert!(err.column > 1, "{text}: {err}");
        }
    }
}

/// What the session-4 red team read on the merged binary, each verified against real bash and
/// the real programs; and the near misses that must stay allowed.
#[test]
fn red_team_reads_ask() {
    let s = Some(Code::SensitiveRead);
    let p = Some(Code::PrintsEnvironment);
    check(&[
        // Credentials the first table missed.
        ("cat ~/.pgpass", Ask, s),
        ("cat ~/.my.cnf", Ask, s),
        ("cat /etc/ssh/ssh_host_ed25519_key", Ask, s),
        (
            "cat /var/run/secrets/kubernetes.io/serviceaccount/token",
            Ask,
            s,
        ),
        ("cat .npmrc", Ask, s),
        ("cat terraform.tfstate", Ask, s),
        ("cat .envrc", Ask, s),
        ("cat ~/.claude/.credentials.json", Ask, s),
        ("cat ~/.config/git/credentials", Ask, s),
        ("strings /dev/sda", Ask, s),
        ("cat /proc/kcore", Ask, s),
        ("head -c 4096 /dev/input/event0", Ask, s),
        ("echo $DATABASE_URL", Ask, p),
        // A home spelled through an expansion is judged by the path's name.
        ("cat ${HOME%/}/.aws/credentials", Ask, s),
        ("cat ${HOME:-x}/.aws/credentials", Ask, s),
        // `..` after a /dev or /proc link is not where the text says.
        ("cat /dev/fd/../environ", Ask, s),
        ("cat /dev/fd/../root/etc/shadow", Ask, s),
        // jq allows blanks after `$`; procps reads `-auxe` as BSD `auxe`.
        ("jq -n '$ ENV'", Ask, p),
        ("jq -n '$\tENV'", Ask, p),
        ("ps -auxe", Ask, p),
        ("ps -axe", Ask, p),
        // A test that prints its operand, or hands it on through `$_` / `BASH_REMATCH`.
        ("test \"$GITHUB_TOKEN\" -eq 1", Ask, p),
        ("[ \"$GITHUB_TOKEN\" -eq 1 ]", Ask, p),
        ("test -n \"$GITHUB_TOKEN\"; echo \"$_\"", Ask, p),
        (
            "[[ $GITHUB_TOKEN =~ (.*) ]]; echo \"${BASH_REMATCH[1]}\"",
            Ask,
            p,
        ),
        ("set -x; test -n \"$GITHUB_TOKEN\"", Ask, p),
        // Near misses.
        ("test -n \"$GITHUB_TOKEN\" && echo set", Allow, None),
        ("[ -z \"$OPENAI_API_KEY\" ] && echo missing", Allow, None),
        ("ps -p 1 -o etime=", Allow, None),
        ("ps -eo pid,ppid,%cpu,comm --sort=-%cpu", Allow, None),
        ("ps -eo pid,args", Ask, s),
        ("cat /dev/null", Allow, None),
        ("ls /dev/sda", Allow, None),
        ("cat ../README.md", Allow, None),
        // A recursive search above where it starts can reach the home directory.
        ("grep -r x ~/..", Ask, s),
        ("grep -r x ../../..", Ask, s),
        ("grep -r x src/../tests", Ask, s),
        ("grep -r x src", Allow, None),
        // A substitution a reader takes as operands may print the paths it names.
        ("cat \"$(echo ~/.ssh/id_rsa)\"", Ask, s),
        ("head -- $(find ~/.ssh -type f)", Ask, s),
        ("cat -- $(find \"$HOME/.aws\" -type f)", Ask, s),
        ("wc -l -- $(git ls-files)", Allow, None),
        ("ls -la \"$(pwd)\"", Allow, None),
        ("cat -- $(find src -name '*.rs')", Allow, None),
        // xargs hands a reader the words of its input, and `-a FILE` reads FILE.
        ("echo ~/.ssh/id_rsa | xargs cat", Ask, s),
        ("find ~/.ssh -type f -print0 | xargs -0 cat", Ask, s),
        ("echo ~/.aws/credentials | xargs head", Ask, s),
        ("xargs -I{} cat {} <<< .env", Ask, s),
        ("xargs cat < list", Ask, s),
        ("xargs -a ~/.aws/credentials echo", Ask, s),
        ("ls | xargs wc -l", Allow, None),
        ("find . -name '*.rs' | xargs wc -l", Allow, None),
        ("git ls-files | xargs -n1 cat", Allow, None),
        // The names in the file are what `wc` opens, and nobody saw them (red team s5).
        ("xargs -a files.txt wc -l", Ask, s),
    ]);
}

/// A wildcard in a directory part can pass through a symlink into `~/.aws` (red team,
/// session 4): it is judged as a path under any directory.
#[cfg(unix)]
#[test]
fn globs_with_wildcards_in_directory_parts_ask_when_they_can_reach_a_secret() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.aws/credentials", "x");
    s.write("home/proj/src/a/mod.rs", "x");
    s.write("home/proj/id_rsa_test.go", "x");
    let proj = s.path().join("home/proj");
    symlink(s.path().join("home/.aws"), proj.join("awsdir")).unwrap();
    let r = Some(Code::SensitiveRead);
    check_in(
        &s,
        &[
            ("cat */credentials", Ask, r),
            ("cat a*/*", Ask, r),
            ("cat */*", Ask, r),
            ("cat src/*/mod.rs", Allow, None),
            ("cat id_rsa_test.go", Allow, None),
            ("cat src/.env.d.ts", Allow, None),
        ],
    );
}

/// A project laid out as the session-4 red team's: a hidden `.env`, a symlink to a key file,
/// symlinks to `~/.ssh` and `~/.aws`, and a clean `src/`.
#[cfg(unix)]
fn red_team_tree() -> Scratch {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.aws/credentials", "x");
    s.write("home/.ssh/id_rsa", "x");
    s.write("home/proj/.env", "TOKEN=x");
    s.write("home/proj/src/main.rs", "x");
    s.write("home/proj/notes.txt", "x");
    std::fs::create_dir_all(s.path().join("empty")).unwrap();
    std::fs::create_dir_all(s.path().join("home/proj/empty")).unwrap();
    let proj = s.path().join("home/proj");
    symlink(
        s.path().join("home/.aws/credentials"),
        proj.join("link-aws"),
    )
    .unwrap();
    symlink(s.path().join("home/.ssh"), proj.join("conf")).unwrap();
    symlink(s.path().join("home/.aws"), proj.join("awsconf")).unwrap();
    s
}

/// Recursive searches walk the tree the real program reads, with its own skips (verified with
/// GNU grep 3.8, ripgrep 13, git 2.47 and GNU diff 3.8 on this layout): `grep -r` reads
/// hidden files and skips symlinks below its root, `-R` follows them; rg skips hidden files
/// and symlinks unless told; `git grep` reads untracked files only with `--no-index` or
/// `--untracked`; `diff -r` follows symlinks.
#[cfg(unix)]
#[test]
fn recursive_searches_walk_the_tree_the_program_reads() {
    let s = red_team_tree();
    let empty = s.path().join("empty");
    let diff_all = format!("diff -r -N . {}", empty.display());
    // Inside the project: a directory outside it asks whatever it holds (`public_paths`).
    let diff_src = "diff -r src empty".to_string();
    let diff_outside = format!("diff -r src {}", empty.display());
    check_in(
        &s,
        &[
            ("grep -rn TOKEN .", Ask, READ),
            ("grep -rn TOKEN", Ask, READ),
            ("grep -R x .", Ask, READ),
            ("grep -Rn x . --exclude=.env", Ask, READ),
            ("rg --hidden TOKEN", Ask, READ),
            ("rg -uu TOKEN", Ask, READ),
            ("rg -L x .", Ask, READ),
            ("git grep --no-index TOKEN", Ask, READ),
            ("git grep --untracked TOKEN", Ask, READ),
            ("git -C ~/.aws grep --no-index -e .", Ask, READ),
            ("git -C awsconf grep --no-index -e .", Ask, READ),
            ("cd ~/.ssh && git grep --no-index -e .", Ask, READ),
            (&diff_all, Ask, READ),
            // Near misses: what the program skips, or a tree with no secret.
            ("grep -rn TOKEN src/", Allow, None),
            ("grep -rn x . --exclude=.env", Allow, None),
            ("grep -rn x . --include='*.rs'", Allow, None),
            ("rg TOKEN", Allow, None),
            ("rg -u TOKEN", Allow, None),
            ("rg --hidden TOKEN src", Allow, None),
            ("git grep TOKEN", Allow, None),
            ("git grep --no-index TOKEN -- src", Allow, None),
            (&diff_src, Allow, None),
            (&diff_outside, Ask, READ),
        ],
    );
}

/// rg and `git grep --untracked` skip what a `.gitignore` names inside a work tree;
/// `grep -r`, `rg --no-ignore` and `git grep --no-index` do not.
#[cfg(unix)]
#[test]
fn gitignored_directories_are_skipped_by_the_programs_that_skip_them() {
    let s = Scratch::new();
    s.repo("home/proj", "");
    s.write("home/proj/.gitignore", "/build/\n");
    s.write("home/proj/build/gen.key", "x");
    s.write("home/proj/src/lib.rs", "x");
    check_in(
        &s,
        &[
            ("rg x", Allow, None),
            ("git grep --untracked x", Allow, None),
            ("rg --no-ignore x", Ask, READ),
            ("rg -u x", Ask, READ),
            ("grep -r x .", Ask, READ),
            ("git grep --no-index x", Ask, READ),
        ],
    );
}

/// A reader under `xargs` opens the names its input holds: a lister before the pipe is walked
/// as it lists (symlinks it names are opened by the reader), any other producer is output
/// nobody saw.
#[cfg(unix)]
#[test]
fn xargs_readers_open_what_the_lister_lists() {
    let s = red_team_tree();
    check_in(
        &s,
        &[
            ("ls | xargs cat", Ask, READ),
            ("find . | xargs cat", Ask, READ),
            ("find . -type f | xargs grep -l x", Ask, READ),
            ("xargs -a link-aws echo", Ask, READ),
            ("sort notes.txt | xargs cat", Ask, READ),
            ("find src -name '*.rs' | xargs cat", Allow, None),
            ("find . -name '*.rs' | xargs wc -l", Allow, None),
            ("echo notes.txt | xargs cat", Allow, None),
            ("xargs -a notes.txt echo", Allow, None),
        ],
    );
}

/// Without a working directory only what the pipe shows is judged; output nobody saw asks.
#[test]
fn xargs_readers_fed_unseen_output_ask() {
    check(&[
        ("sort list.txt | xargs cat", Ask, READ),
        ("git diff | xargs wc -l", Ask, READ),
        ("ps aux | xargs grep -l TODO", Ask, READ),
        // Without a pipe the input is the caller's, not names the command chose.
        ("xargs cat", Allow, None),
        ("echo a.txt b.txt | xargs cat", Allow, None),
        ("sort list.txt | xargs echo", Allow, None),
        ("xargs echo", Allow, None),
    ]);
}

/// After `cd -` (or `cd ~-`) the directory is the inherited `$OLDPWD`, known only at run time:
/// a relative read may be of `~/.aws/credentials`. A redirect tree-sitter hangs on the whole
/// list is judged after the list's `cd`.
#[cfg(unix)]
#[test]
fn relative_reads_after_a_cd_to_an_unknown_directory_ask() {
    let s = red_team_tree();
    check_in(
        &s,
        &[
            ("cd - && cat credentials", Ask, READ),
            ("cd ~- && cat credentials", Ask, READ),
            ("cd - && cat < credentials", Ask, READ),
            ("cd - && grep -r x .", Ask, READ),
            ("cd ~/.aws && cat < credentials", Ask, READ),
            ("cd - && ls", Allow, None),
            ("cd - && cat /etc/hostname", Allow, None),
            ("cd src && cat main.rs", Allow, None),
            ("cd src && wc -l < main.rs", Allow, None),
        ],
    );
}

/// The words of a `for` list reach the body through the loop variable.
#[test]
fn secret_variables_in_a_for_list_ask() {
    check(&[
        ("for t in \"$GITHUB_TOKEN\"; do echo $t; done", Ask, PRINTS),
        (
            "for t in a \"${OPENAI_API_KEY}\"\ndo echo \"$t\"; done",
            Ask,
            PRINTS,
        ),
        ("for t in $(echo x) $NPM_TOKEN; do :; done", Ask, PRINTS),
        ("for t in '$GITHUB_TOKEN'; do echo $t; done", Allow, None),
        ("for t in a b; do echo $t; done", Allow, None),
        ("for f in *.rs; do wc -l \"$f\"; done", Allow, None),
        ("for t in $HOME; do echo $t; done", Allow, None),
    ]);
}

/// Credential files and secret variables the s5 red team read through an allowed `cat` /
/// `echo` (class `sensitive-table-gap`, `prints-environment`), beside files and variables in the
/// same places that hold no secret.
#[test]
fn red_team_s5_table_gaps_ask() {
    check(&[
        ("cat ~/.codex/auth.json", Ask, READ),
        ("cat ~/.gemini/oauth_creds.json", Ask, READ),
        ("cat ~/.config/containers/auth.json", Ask, READ),
        ("cat /run/user/0/containers/auth.json", Ask, READ),
        ("cat ~/.config/sops/age/keys.txt", Ask, READ),
        ("cat ~/.age/key.txt", Ask, READ),
        ("cat ~/.m2/settings.xml", Ask, READ),
        ("cat ~/.gradle/gradle.properties", Ask, READ),
        ("cat ~/.s3cfg", Ask, READ),
        ("cat ~/.config/rclone/rclone.conf", Ask, READ),
        ("cat ~/.authinfo.gpg", Ask, READ),
        ("cat ~/.config/github-copilot/hosts.json", Ask, READ),
        ("cat service-account.json", Ask, READ),
        ("cat deploy/service-account-prod.json", Ask, READ),
        ("cat credentials.json", Ask, READ),
        ("cat secrets.yaml", Ask, READ),
        ("cat .dev.vars", Ask, READ),
        ("cat /etc/kubernetes/admin.conf", Ask, READ),
        ("cat /etc/rancher/k3s/k3s.yaml", Ask, READ),
        ("cat /var/lib/kubelet/kubeconfig", Ask, READ),
        ("cat /etc/krb5.keytab", Ask, READ),
        ("cat /tmp/krb5cc_1000", Ask, READ),
        ("cat /etc/wireguard/wg0.conf", Ask, READ),
        (
            "cat /etc/NetworkManager/system-connections/home.nmconnection",
            Ask,
            READ,
        ),
        ("cat /etc/gitlab-runner/config.toml", Ask, READ),
        ("cat /etc/ssl/private/x", Ask, READ),
        ("cat /etc/security/opasswd", Ask, READ),
        ("echo $MYSQL_PWD", Ask, PRINTS),
        ("echo $CI_JOB_JWT", Ask, PRINTS),
        ("echo $CI_JOB_JWT_V2", Ask, PRINTS),
        ("echo $DOCKER_AUTH_CONFIG", Ask, PRINTS),
        ("echo $NPM_CONFIG__AUTH", Ask, PRINTS),
        ("echo $SLACK_WEBHOOK_URL", Ask, PRINTS),
        // Near misses: the same places' ordinary files, and look-alike variable names.
        ("cat ~/.codex/config.toml", Ask, READ),
        ("cat ~/.m2/repository/x.pom", Allow, None),
        ("cat ~/.cargo/registry/src/x/lib.rs", Allow, None),
        ("cat /etc/kubernetes/manifests/etcd.yaml", Allow, None),
        ("cat account.json", Allow, None),
        ("cat src/secrets.rs", Allow, None),
        ("echo $PWD $OLDPWD", Allow, None),
        ("echo $MYSQL_HOST", Ask, PRINTS),
        ("echo $AUTHOR", Ask, PRINTS),
    ]);
}

/// Credential files the s6 red team planted and read through an allowed `cat` (class
/// `secrets-table-gap`), beside ordinary files in the same places.
#[test]
fn red_team_s6_table_gaps_ask() {
    let mut rows: Vec<(&str, Verdict, Option<Code>)> = [
        "cat ~/.claude.json",
        "cat ~/.cursor/mcp.json",
        "cat ~/.config/hcloud/cli.toml",
        "cat ~/.config/scw/config.yaml",
        "cat ~/.databrickscfg",
        "cat ~/.cache/huggingface/token",
        "cat ~/.kaggle/kaggle.json",
        "cat ~/.config/ngrok/ngrok.yml",
        "cat ~/.config/composer/auth.json",
        "cat ~/.config/pip/pip.conf",
        "cat ~/.bundle/config",
        "cat ~/.yarnrc.yml",
        "cat ~/.nuget/NuGet/NuGet.Config",
        "cat ~/.config/glab-cli/config.yml",
        "cat ~/.fly/config.yml",
        "cat ~/.config/configstore/firebase-tools.json",
        "cat ~/.wakatime.cfg",
        "cat client_secret_123.apps.googleusercontent.com.json",
        "cat gha-creds-abc.json",
        "cat terraform.tfvars",
        "cat infra/secrets.auto.tfvars",
        "cat .htpasswd",
        "cat kubeconfig",
    ]
    .into_iter()
    .map(|c| (c, Ask, READ))
    .collect();
    // Near misses: the same places' ordinary files.
    rows.extend([
        ("cat ~/.cursor/settings.json", Ask, READ),
        ("cat ~/.cache/huggingface/hub/x.txt", Ask, READ),
        ("cat variables.tf", Allow, None),
        ("cat docs/kubeconfig.md", Allow, None),
        ("cat client.json", Allow, None),
    ]);
    check(&rows);
}

/// Credential files, variables and ripgrep spellings the s7 red team read through an allowed
/// command, with near misses.
#[test]
fn red_team_s7_gaps_ask() {
    let mut rows: Vec<(&str, Verdict, Option<Code>)> = [
        "cat ~/.snowsql/config",
        "cat ~/.dbt/profiles.yml",
        "cat ~/.config/.wrangler/config/default.toml",
        "cat ~/.supabase/access-token",
        "cat ~/.railway/config.json",
        "cat ~/.netlify/config.json",
        "cat ~/.config/stripe/config.toml",
        "cat ~/.ngrok2/ngrok.yml",
        "cat ~/.ivy2/.credentials",
        "cat ~/.sbt/credentials",
        "cat ~/.yarnrc",
        "cat ~/.kube/prod.yaml",
        "cat ~/.local/share/atuin/history.db",
        "cat ~/.dbshell",
        "cat foo.ppk",
        "cat secring.gpg",
        "cat serviceAccountKey.json",
        "cat token.json",
        "cat /var/lib/tailscale/tailscaled.state",
    ]
    .into_iter()
    .map(|c| (c, Ask, READ))
    .collect();
    rows.extend([
        ("echo $OP_SESSION_my", Ask, PRINTS),
        ("echo $BW_SESSION", Ask, PRINTS),
        ("echo $CELERY_BROKER_URL", Ask, PRINTS),
        ("echo $LDAP_BIND_PW", Ask, PRINTS),
        // Near misses.
        ("cat ~/.dbt/README.md", Ask, READ),
        ("cat tokens.rs", Allow, None),
        ("cat ~/.yarnrc.md", Ask, READ),
        ("echo $PWD", Allow, None),
    ]);
    check(&rows);
    // ripgrep reads `-g=GLOB` as `-g GLOB`, and `--glob-case-insensitive` folds every `-g`.
    let s = Scratch::new();
    s.repo("home/proj", "");
    s.write("home/proj/.gitignore", ".env\n");
    s.write("home/proj/.env", "TOKEN=1");
    s.write("home/proj/src/lib.rs", "x");
    check_in(
        &s,
        &[
            ("rg TOKEN -g='*'", Ask, READ),
            ("rg --glob-case-insensitive -g '*.ENV' TOKEN", Ask, READ),
            ("rg TOKEN -g='*.rs'", Allow, None),
            ("rg TOKEN -g '*.rs'", Allow, None),
        ],
    );
}

/// A reader's operand that is wholly a run-time value may name any file (red team s5: each of
/// these printed `.env` or a key in a real run); a for-loop variable over plain words or globs
/// is one of them, and is judged as such.
#[test]
fn operands_known_only_at_run_time_ask() {
    check(&[
        ("cat \"$f\"", Ask, READ),
        ("cat $f", Ask, READ),
        ("cat \"$1\"", Ask, READ),
        ("cat \"${f:-.env}\"", Ask, READ),
        ("cat \"${f-.env}\"", Ask, READ),
        ("cat \"${f:=.env}\"", Ask, READ),
        ("cat \"$(echo .env)\"", Ask, READ),
        ("cat \"$(sort list)\"", Ask, READ),
        ("head \"$(ls -t | head -1)\"", Ask, READ),
        ("f=~/.ssh/id_rsa; cat \"$f\"", Ask, READ),
        ("f=.env; cat \"$f\"", Ask, READ),
        ("declare f=.env; cat \"$f\"", Ask, READ),
        ("readonly f=.env; cat \"$f\"", Ask, READ),
        ("set -- .env; cat \"$1\"", Ask, READ),
        ("read f <<< .env; cat \"$f\"", Ask, READ),
        ("f=$(echo .env); cat \"$f\"", Ask, READ),
        ("grep -f \"$f\" x", Ask, READ),
        ("for f in .env; do cat \"$f\"; done", Ask, READ),
        (
            "for f in $(find . -name .env); do cat \"$f\"; done",
            Ask,
            READ,
        ),
        (
            "find . -name .env | while read f; do cat \"$f\"; done",
            Ask,
            READ,
        ),
        ("ls -a | while read f; do cat \"$f\"; done", Ask, READ),
        (
            "while read -r f; do wc -l \"$f\"; done < files.txt",
            Ask,
            READ,
        ),
        ("xargs -I{} cat {} <<< \"$(ls -a)\"", Ask, READ),
        // The loop variable is assigned again, or read after the loop: not one of the words.
        ("for f in a.txt; do f=.env; cat \"$f\"; done", Ask, READ),
        ("for f in a.txt; do read f; cat \"$f\"; done", Ask, READ),
        ("for f in a.txt; do :; done; cat \"$f\"", Ask, READ),
        // Beside the loop in a pipeline, the right side is a subshell forked before the loop.
        (
            "for f in a.txt; do :; done | if true; then cat \"$f\"; fi",
            Ask,
            READ,
        ),
        // Near misses: names that are known, and programs that do not open their operands.
        ("for f in a.txt b.txt; do cat \"$f\"; done", Allow, None),
        ("for f in src/*.rs; do wc -l \"$f\"; done", Allow, None),
        (
            "for f in *.md; do [ -f \"$f\" ] && head -3 \"$f\"; done",
            Allow,
            None,
        ),
        ("echo \"$f\"", Ask, PRINTS),
        ("ls \"$d\"", Ask, PRINTS),
        ("test -f \"$f\"", Allow, None),
        ("wc -c \"$(pwd)\"", Allow, None),
        (
            "cat \"$(git rev-parse --show-toplevel)/README.md\"",
            Allow,
            None,
        ),
    ]);
}

/// The globs of a for list are expanded in the working directory (red team s5: `for f in .e*`
/// printed `.env` while `cat .e*` asked); a symlink a loop or substitution names is followed.
#[cfg(unix)]
#[test]
fn loop_variables_over_globs_are_the_files_they_match() {
    let s = red_team_tree();
    s.write("home/proj/sub/key.pem", "k");
    check_in(
        &s,
        &[
            ("for f in .e*; do cat \"$f\"; done", Ask, READ),
            ("for f in *; do cat \"$f\"; done", Ask, READ),
            ("for f in .*; do cat \"$f\"; done", Ask, READ),
            ("for f in sub/*; do cat \"$f\"; done", Ask, READ),
            ("for f in link-aws; do cat \"$f\"; done", Ask, READ),
            ("cat \"$(echo link-aws)\"", Ask, READ),
            ("cd ~/.aws && cat \"$(ls)\"", Ask, READ),
            // A lister's output is judged as the lister lists (as under `xargs`).
            ("cat \"$(find . -name .env)\"", Ask, READ),
            ("cat \"$(ls -d .e*)\"", Ask, READ),
            ("cat \"$(find sub -type f)\"", Ask, READ),
            ("wc -l \"$(find src -name '*.rs')\"", Allow, None),
            ("for f in src/*; do cat \"$f\"; done", Allow, None),
            ("for f in *.txt; do wc -l \"$f\"; done", Allow, None),
        ],
    );
}

/// Names a program lists, fed to a reader (red team s5): `-follow` is find's old `-L`, `xargs
/// -a FILE` hands over names nobody saw.
#[cfg(unix)]
#[test]
fn listers_feeding_readers_ask() {
    use std::os::unix::fs::symlink;
    let s = red_team_tree();
    s.write("home/proj/list", ".env\n");
    symlink(
        s.path().join("home/.aws"),
        s.path().join("home/proj/src/awslink"),
    )
    .unwrap();
    check_in(
        &s,
        &[
            ("find src -follow -type f | xargs cat", Ask, READ),
            ("find src -type f -follow | xargs cat", Ask, READ),
            ("xargs -a list cat", Ask, READ),
            ("xargs --arg-file=list cat", Ask, READ),
            ("xargs -a list -I{} cat {}", Ask, READ),
            // Near misses: find without -follow does not enter the link; a lister's names are
            // not opened by echo.
            ("find src -type f -name '*.rs' | xargs cat", Allow, None),
            ("xargs -a list echo", Allow, None),
        ],
    );
}

/// Runs real git in `dir`, isolated from the user's and system config.
fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// `git ls-files | xargs cat` and `git grep` read the files git tracks: a committed `.env` or
/// key and a tracked symlink into `~/.aws` (red team s5, real git 2.47 printed each) ask, judged
/// by the index; `-o` lists untracked and ignored files, judged by a walk.
#[cfg(unix)]
#[test]
fn tracked_and_listed_files_are_judged_by_the_index() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.aws/credentials", "secret");
    s.write("home/proj/.env", "T=1");
    s.write("home/proj/a.txt", "hi");
    let proj = s.path().join("home/proj");
    symlink(
        s.path().join("home/.aws/credentials"),
        proj.join("notes.txt"),
    )
    .unwrap();
    git(&proj, &["init", "-q"]);
    git(&proj, &["add", "a.txt", "notes.txt"]);
    // Only the link is tracked: the index, not the directory, decides.
    check_in(
        &s,
        &[
            ("git ls-files | xargs cat", Ask, READ),
            ("git ls-files -z | xargs -0 cat", Ask, READ),
            ("git ls-files -o | xargs cat", Ask, READ),
            (
                "git ls-files --others --exclude-standard | xargs cat",
                Ask,
                READ,
            ),
            // git grep does not follow a tracked symlink (git 2.47 skips it).
            ("git grep -e .", Allow, None),
            ("git ls-files a.txt | xargs wc -l", Ask, READ),
            ("git ls-files", Allow, None),
        ],
    );
    git(&proj, &["add", ".env"]);
    check_in(
        &s,
        &[
            ("git grep -e .", Ask, READ),
            ("git grep TOKEN HEAD", Ask, READ),
            ("git grep -e . -- a.txt", Allow, None),
        ],
    );
}

/// A clean repository: tracked files hold no secret, so the same commands pass.
#[test]
fn tracked_files_without_secrets_pass() {
    let s = Scratch::new();
    s.write("home/proj/src/a.rs", "x");
    s.write("home/proj/.gitignore", "secrets/\n");
    s.write("home/proj/secrets/key.pem", "k");
    let proj = s.path().join("home/proj");
    git(&proj, &["init", "-q"]);
    git(&proj, &["add", "."]);
    check_in(
        &s,
        &[
            ("git ls-files | xargs cat", Allow, None),
            ("git ls-files | xargs wc -l", Allow, None),
            ("git grep -n TODO", Allow, None),
            // -o without --exclude-standard lists the ignored key too; -i does with it.
            ("git ls-files -o | xargs cat", Ask, READ),
            (
                "git ls-files -o -i --exclude-standard | xargs cat",
                Ask,
                READ,
            ),
            // An rg glob whitelist overrides .gitignore (ripgrep 13 printed secrets/key.pem).
            ("rg x -g '*'", Ask, READ),
            ("rg -g \"**\" x", Ask, READ),
            ("rg x --glob '*'", Ask, READ),
            ("rg x -g '*.pem'", Ask, READ),
            ("rg x", Allow, None),
            ("rg x -g '*.rs'", Allow, None),
            ("rg x -g '!target'", Allow, None),
        ],
    );
}

/// `git config` prints values that carry credentials (`http.<url>.extraheader` holds the job
/// token actions/checkout persists): listing asks, reading a key known harmless passes.
#[test]
fn git_config_reads_only_harmless_keys() {
    check(&[
        ("git config -l", Ask, FORBIDDEN),
        ("git config --list --show-origin", Ask, FORBIDDEN),
        ("git config --global -l", Ask, FORBIDDEN),
        ("git config --get-regexp http", Ask, FORBIDDEN),
        ("git config list", Ask, FORBIDDEN),
        (
            "git config --get http.https://github.com/.extraheader",
            Ask,
            FORBIDDEN,
        ),
        ("git config remote.origin.url", Ask, FORBIDDEN),
        ("git config user.name", Allow, None),
        ("git config --get user.email", Allow, None),
        ("git config core.editor", Allow, None),
    ]);
}

/// On a case-insensitive file system (macOS) `KEY.PEM` opens `key.pem`: the table is also
/// matched with the name in lower case (red team s5; not reproducible on ext4).
#[test]
fn secret_names_in_another_case_ask() {
    check(&[
        ("cat sub/KEY.PEM", Ask, READ),
        ("cat .ENV", Ask, READ),
        ("cat d2/server.KEY", Ask, READ),
        ("cat /Users/me/.SSH/id_rsa", Ask, READ),
        ("cat README.md", Allow, None),
        ("cat KEYS.md", Allow, None),
        ("cat .ENV.EXAMPLE", Allow, None),
    ]);
}

/// Runs `cmd` with bash in `dir`, with real git isolated from the user's and system config
/// and `home` as `$HOME`: what the command prints.
fn real_output(dir: &std::path::Path, home: &std::path::Path, cmd: &str) -> String {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_CONFIG_GLOBAL")
        .env_remove("GIT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The red team's project (s7): a repository with one tracked file and an untracked `.env`
/// (`TOKEN=1`) that no `.gitignore` names, as `home/proj` of a scratch directory.
fn s7_project() -> Scratch {
    let s = Scratch::new();
    s.write("home/proj/src/main.rs", "fn main() {}\n");
    s.write("home/proj/.env", "TOKEN=1\n");
    let proj = s.path().join("home/proj");
    git(&proj, &["init", "-q"]);
    git(&proj, &["add", "src"]);
    s
}

/// Each row's command, run by real git in the fixture, prints `.env` exactly when the row
/// asks: the table cannot drift from what git does.
fn rows_match_real_git(s: &Scratch, cwd: &str, rows: &[(&str, Verdict, Option<Code>)]) {
    let home = s.path().join("home");
    for (cmd, want, _) in rows {
        let printed = real_output(&s.path().join(cwd), &home, cmd);
        assert_eq!(
            printed.contains("TOKEN=1"),
            *want == Ask,
            "{cmd:?} printed {printed:?}"
        );
    }
}

/// Red team s7: `git grep --no-index`/`--untracked` read every untracked file a pathspec
/// matches, and pathspec magic, wildcards and `:/` reached `.env` while the walk took them
/// for plain paths (real git 2.47 printed `.env:TOKEN=1` for each row that asks).
#[test]
fn red_team_s7_git_grep_pathspecs_ask() {
    let s = s7_project();
    let rows: &[(&str, Verdict, Option<Code>)] = &[
        ("git grep --no-index TOKEN -- ':(glob)**'", Ask, READ),
        ("git grep --no-index TOKEN -- '.e*'", Ask, READ),
        ("git grep --no-index TOKEN -- ':(exclude)src'", Ask, READ),
        ("git grep --no-index TOKEN -- ':^src'", Ask, READ),
        ("git grep --no-index TOKEN -- ':(icase).ENV'", Ask, READ),
        ("git grep --no-index TOKEN -- ':/'", Ask, READ),
        ("git grep --no-index TOKEN -- ':(top)'", Ask, READ),
        ("git grep --no-index TOKEN -- ':(literal).env'", Ask, READ),
        ("git grep --no-index TOKEN -- '[.]env'", Ask, READ),
        ("git grep --untracked TOKEN -- ':!src'", Ask, READ),
        ("git grep --untracked TOKEN -- '*'", Ask, READ),
        ("git grep --untracked TOKEN -- ':/'", Ask, READ),
        // Near misses: pathspecs whose files hold no secret.
        ("git grep --no-index TOKEN -- src", Allow, None),
        ("git grep --no-index TOKEN -- 'src/*.rs'", Allow, None),
        ("git grep --untracked TOKEN -- 'src/*.rs'", Allow, None),
        ("git grep --untracked TOKEN -- ':(glob)src/**'", Allow, None),
        // Tracked files only: `.env` is not one.
        ("git grep TOKEN -- ':/'", Allow, None),
        ("git grep TOKEN -- '*'", Allow, None),
    ];
    check_in(&s, rows);
    rows_match_real_git(&s, "home/proj", rows);
    // From a subdirectory, `:/` is the top of the work tree; other pathspecs stay below.
    let dir = Workdir::new(s.path().join("home/proj/src")).with_home(s.path().join("home"));
    let rows: &[(&str, Verdict, Option<Code>)] = &[
        ("git grep --no-index TOKEN -- ':/'", Ask, READ),
        ("git grep --no-index TOKEN -- ':(top)*'", Ask, READ),
        ("git grep --no-index TOKEN -- '../*'", Ask, READ),
        ("git grep --no-index TOKEN -- ':!x'", Allow, None),
        ("git grep --untracked TOKEN -- '*'", Allow, None),
    ];
    super::rules::check_in(&dir, rows);
    rows_match_real_git(&s, "home/proj/src", rows);
}

/// `git grep` reads a revision's tree, which cmdguard does not read: a secret committed and
/// deleted since is still in it (real git printed `.env:TOKEN=1` from `HEAD~1`).
#[test]
fn git_grep_of_a_revision_asks() {
    let s = s7_project();
    let proj = s.path().join("home/proj");
    let commit = |msg: &str| {
        git(
            &proj,
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                msg,
            ],
        )
    };
    git(&proj, &["add", ".env"]);
    commit("with the secret");
    git(&proj, &["rm", "-q", "--cached", ".env"]);
    commit("without it");
    std::fs::remove_file(proj.join(".env")).unwrap();
    let rows: &[(&str, Verdict, Option<Code>)] = &[
        ("git grep TOKEN HEAD~1", Ask, READ),
        ("git grep -e TOKEN HEAD~1 -- .", Ask, READ),
        // A `--` before the pattern ends the options only.
        ("git grep -- TOKEN HEAD~1", Ask, READ),
        // A path before `--` is a path, and the index holds no secret.
        ("git grep TOKEN src", Allow, None),
        ("git grep TOKEN", Allow, None),
        ("git grep --cached TOKEN", Allow, None),
    ];
    check_in(&s, rows);
    rows_match_real_git(&s, "home/proj", rows);
}

/// Red team s7: `git remote -v`, `git remote get-url` and reading `.git/config` printed
/// `https://tok@github.com/x/y`. They pass where every URL git reads is free of credentials.
#[test]
fn red_team_s7_remote_urls_with_tokens_ask() {
    let s = s7_project();
    let proj = s.path().join("home/proj");
    git(
        &proj,
        &["remote", "add", "origin", "https://tok@github.com/x/y"],
    );
    let home = s.path().join("home");
    for cmd in [
        "git remote -v",
        "git remote get-url origin",
        "cat .git/config",
    ] {
        assert!(real_output(&proj, &home, cmd).contains("tok@"), "{cmd}");
    }
    check_in(
        &s,
        &[
            ("git remote -v", Ask, READ),
            ("git remote --verbose", Ask, READ),
            ("git remote get-url origin", Ask, READ),
            ("git remote get-url --push origin", Ask, READ),
            // Not allowlisted, but a user's `Bash(git:*)` must not cover the URLs it prints.
            ("git remote show origin", Ask, READ),
            ("git -C . remote -v", Ask, READ),
            ("cat .git/config", Ask, READ),
            ("grep url .git/config", Ask, READ),
            ("cat .git/*", Ask, READ),
            ("grep -rn tok .", Ask, READ),
            // Near misses: names only, and files that are not the config.
            ("git remote", Allow, None),
            ("cat .git/HEAD", Allow, None),
        ],
    );
    // A clean URL, an ssh login and an inert config: nothing to hide.
    git(
        &proj,
        &["remote", "set-url", "origin", "https://github.com/x/y"],
    );
    git(&proj, &["remote", "add", "up", "git@github.com:x/y.git"]);
    check_in(
        &s,
        &[
            ("git remote -v", Allow, None),
            ("git remote get-url origin", Allow, None),
            ("cat .git/config", Allow, None),
            ("grep url .git/config", Allow, None),
            ("grep -rn tok src", Allow, None),
        ],
    );
    // A token in a URL the user's config rewrites to: `git remote -v` prints the rewrite.
    s.write(
        "home/.gitconfig",
        "[url \"https://tok@github.com/\"]\n\tinsteadOf = https://github.com/\n",
    );
    assert!(real_output(&proj, &home, "git remote -v").contains("tok@"));
    check_in(
        &s,
        &[
            ("git remote -v", Ask, READ),
            ("cat ~/.gitconfig", Ask, READ),
            ("cat .git/config", Allow, None),
        ],
    );
    std::fs::remove_file(home.join(".gitconfig")).unwrap();
    // The job token actions/checkout persists: not a URL, but not an inert key either.
    git(
        &proj,
        &[
            "config",
            "http.https://github.com/.extraheader",
            "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46dG9r",
        ],
    );
    check_in(
        &s,
        &[
            ("cat .git/config", Ask, READ),
            ("cat .git/HEAD", Allow, None),
        ],
    );
}

/// Red team s7: programs outside the allowlist that print a credential. A user's rule for the
/// program (`Bash(gh:*)` in an agent's settings, imported by default) covers
/// `not_allowlisted`, never `sensitive_read`: these still ask under it, their near misses pass.
#[test]
fn red_team_s7_credential_printers_ask_under_user_rules() {
    use cmdguard::RuleOrigin;
    use cmdguard::policy::rules::{CommandRule, CommandRules, RuleAction};
    let mut rules = CommandRules::default();
    for p in ["gh", "kubectl", "aws", "gcloud", "npm", "docker"] {
        rules.push(
            CommandRule::parse(&format!("{p}:*"), RuleAction::Allow, RuleOrigin::BuiltIn).unwrap(),
        );
    }
    let rows: &[(&str, Verdict, Option<Code>)] = &[
        ("gh auth token", Ask, READ),
        ("gh auth status --show-token", Ask, READ),
        ("gh auth status -t", Ask, READ),
        ("kubectl config view --raw", Ask, READ),
        ("kubectl --context x config view --raw", Ask, READ),
        ("aws configure get aws_secret_access_key", Ask, READ),
        ("aws configure get profile.dev.aws_session_token", Ask, READ),
        ("aws configure export-credentials", Ask, READ),
        ("gcloud auth print-access-token", Ask, READ),
        ("npm config get //registry.npmjs.org/:_authToken", Ask, READ),
        (
            "docker run -v ~/.aws:/a alpine cat /a/credentials",
            Ask,
            READ,
        ),
        (
            "docker run --mount type=bind,src=/root/.ssh,dst=/k alpine ls /k",
            Ask,
            READ,
        ),
        ("docker run --env-file .env alpine env", Ask, READ),
        ("docker run -v \"$VOL\":/a alpine ls /a", Ask, READ),
        ("kubectl get secret x -o yaml", Ask, READ),
        (
            "kubectl -n prod get secrets -o jsonpath='{.data}'",
            Ask,
            READ,
        ),
        ("kubectl get secret/x --output=json", Ask, READ),
        // Near misses: the same programs printing no secret.
        ("gh auth status", Allow, None),
        ("gh pr list", Allow, None),
        ("kubectl config view", Allow, None),
        ("kubectl get pods -o yaml", Allow, None),
        ("kubectl get secrets", Allow, None),
        ("kubectl get secrets -o name", Allow, None),
        ("aws configure get region", Allow, None),
        ("aws configure list", Allow, None),
        ("npm config get registry", Allow, None),
        ("docker run --rm alpine echo hi", Allow, None),
        ("docker run -v cache:/c alpine ls /c", Allow, None),
        // No working directory to walk, as for `grep -r x .`.
        ("docker run -v \"$(pwd)\":/app node npm test", Allow, None),
        ("gcloud config list", Allow, None),
    ];
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (cmd, want, code) in rows {
        let mut a = analyzer.analyze(cmd);
        rules.apply(&mut a);
        let has = |c: Code| a.findings.iter().any(|f| f.code == c && f.severity > Allow);
        if a.verdict != *want || code.is_some_and(|c| !has(c)) {
            failures.push(format!(
                "{cmd:?}: want {want} {code:?}, got {:?}",
                a.findings
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A container reads whatever its host mounts hold: mounting the project gives it `.env`,
/// judged by walking the mount as `grep -r` would; a mount without a secret is only the
/// unlisted program.
#[test]
fn container_mounts_of_a_project_with_a_secret_ask() {
    let s = s7_project();
    let unlisted = Some(Code::NotAllowlisted);
    check_in(
        &s,
        &[
            ("docker run -v .:/app alpine ls", Ask, READ),
            ("docker run -v \"$(pwd)\":/app alpine ls", Ask, READ),
            ("docker run -v $PWD:/app alpine ls", Ask, READ),
            ("podman run --volume=.:/app alpine ls", Ask, READ),
            ("docker run -v ./src:/app alpine ls", Ask, unlisted),
            ("docker run -v \"$(pwd)/src\":/app alpine ls", Ask, unlisted),
        ],
    );
    // Only `sensitive_read` is new: the near miss carries no such finding.
    let dir = Workdir::new(s.path().join("home/proj")).with_home(s.path().join("home"));
    let a = Analyzer::default().analyze_in("docker run -v ./src:/app alpine ls", &dir);
    assert!(
        a.findings.iter().all(|f| f.code != Code::SensitiveRead),
        "{a:?}"
    );
}

/// Variables (issue 12, sens4): an expansion asks unless `public_vars` lists the name or the
/// command gave it its value where the use surely sees it; the red team's names that no
/// secret-looking pattern caught ask without a pattern.
#[test]
fn variables_ask_unless_public_or_set_by_the_command() {
    check(&[
        ("echo $OP_SESSION_my", Ask, PRINTS),
        ("echo $BW_SESSION", Ask, PRINTS),
        ("echo \"$CELERY_BROKER_URL\"", Ask, PRINTS),
        ("echo $LDAP_BIND_PW", Ask, PRINTS),
        ("echo $SOME_NEW_NAME", Ask, PRINTS),
        ("echo ${http_proxy}", Ask, PRINTS),
        // Set where the use may not see it: after `&&`, in a branch, a subshell, a pipe, or
        // after the loop that set it.
        ("true && x=1; echo $x", Ask, PRINTS),
        ("if true; then x=1; fi; echo $x", Ask, PRINTS),
        ("( x=1 ); echo $x", Ask, PRINTS),
        ("echo a | read y; echo $y", Ask, PRINTS),
        ("for f in a; do :; done; echo $f", Ask, PRINTS),
        ("for t in $FOO; do echo $t; done", Ask, PRINTS),
        // A loop head's text that is no loop sets nothing: an argument, a comment, a heredoc.
        ("echo x for BW_SESSION in y; echo $BW_SESSION", Ask, PRINTS),
        (
            "echo \"x for BW_SESSION in y\"; echo $BW_SESSION",
            Ask,
            PRINTS,
        ),
        ("# for ((BW_SESSION=1\necho $BW_SESSION", Ask, PRINTS),
        (
            "cat <<EOF\nfor BW_SESSION in x\nEOF\necho $BW_SESSION",
            Ask,
            PRINTS,
        ),
        (
            "cat <<EOF\nfor ((BW_SESSION=1\nEOF\necho $BW_SESSION",
            Ask,
            PRINTS,
        ),
        // Near misses: public names, and values the command gave.
        (
            "echo $HOME $PATH $PWD $AWS_REGION $LC_ALL $CARGO_TARGET_DIR",
            Allow,
            None,
        ),
        ("x=1; echo $x", Allow, None),
        ("x=$(pwd); echo \"$x\"", Allow, None),
        ("for f in a b; do echo $f; done", Allow, None),
        ("for ((i=0; i<3; i++)); do echo $i; done", Allow, None),
        ("n=0; ((n++)); echo $n", Allow, None),
        ("[ -n \"$FOO\" ] && echo set", Allow, None),
    ]);
    // A user's `public_vars` adds names.
    let list = AllowlistBuilder::new()
        .add_default()
        .add_toml("[sensitive]\npublic_vars = [\"MY_HOST\"]\n", None)
        .build()
        .unwrap();
    let verdict = |cmd: &str| Analyzer::new(list.clone()).analyze(cmd).verdict;
    assert_eq!(verdict("echo $MY_HOST"), Allow);
    assert_eq!(verdict("echo $MY_PORT"), Ask);
}

/// Reads outside the working directory (issue 12, sens4) ask unless a `public_paths` place
/// holds them; a path under a run-time directory is outside-unknown; a loop word before a
/// path resolves symlinks as a literal path does. Real cat printed each secret in this layout.
#[cfg(unix)]
#[test]
fn reads_outside_the_project_ask_unless_public() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.aws/credentials", "KEY");
    s.write("home/notes.txt", "x");
    s.write("home/.config/gh/hosts.yml", "oauth_token: x");
    s.write("home/.cargo/registry/src/x/lib.rs", "x");
    s.write("home/proj/README.md", "x");
    s.write("home/proj/src/main.rs", "x");
    let proj = s.path().join("home/proj");
    symlink(
        s.path().join("home/.aws/credentials"),
        proj.join("src/notes"),
    )
    .unwrap();
    symlink(s.path().join("home/notes.txt"), proj.join("src/out")).unwrap();
    s.write("elsewhere/a.txt", "x");
    let elsewhere = s.path().join("elsewhere");
    let find_exec = format!("find {} -type f -exec cat {{}} +", elsewhere.display());
    let find_xargs = format!("find {} -type f | xargs cat", elsewhere.display());
    let cd_elsewhere = format!("cd {} && cat a.txt", elsewhere.display());
    check_in(
        &s,
        &[
            (&find_exec, Ask, READ),
            (&find_xargs, Ask, READ),
            ("find src -name '*.rs' | xargs cat", Allow, None),
            ("cat ~/notes.txt", Ask, READ),
            ("cat ../notes.txt", Ask, READ),
            ("cat src/out", Ask, READ),
            ("cat /tmp/out.log", Ask, READ),
            ("cat \"$XDG_CONFIG_HOME/gh/hosts.yml\"", Ask, READ),
            (
                "cat \"${XDG_CONFIG_HOME:-$HOME/.config}/gh/hosts.yml\"",
                Ask,
                READ,
            ),
            ("cat ${CARGO_HOME}/credentials.toml", Ask, READ),
            ("for d in src; do cat \"$d/notes\"; done", Ask, READ),
            ("for f in src; do cat $f/notes; done", Ask, READ),
            ("cat /etc/mysql/debian.cnf", Ask, READ),
            // A `cd` out of the project does not make where it led part of the project.
            (&cd_elsewhere, Ask, READ),
            ("cd /tmp && cat out.log", Ask, READ),
            ("cd .. && cat notes.txt", Ask, READ),
            // Judged as the operand `wc -l ../notes.txt` is (red team s9).
            ("cd .. && wc -l < notes.txt", Ask, Some(Code::SensitiveRead)),
            ("cd ~ && head -1 notes.txt", Ask, READ),
            ("cd src && cd ../.. && cat notes.txt", Ask, READ),
            // Near misses: the project, public places, and known run-time prefixes.
            ("cd src && cat main.rs", Allow, None),
            ("cd .. && cat proj/README.md", Allow, None),
            ("cd /usr/share/doc && cat x", Allow, None),
            ("cat README.md src/main.rs", Allow, None),
            (
                "cat /usr/share/doc/x /etc/hosts /proc/cpuinfo /dev/null",
                Allow,
                None,
            ),
            ("cat ~/.cargo/registry/src/x/lib.rs", Allow, None),
            ("cat ~/.ssh/known_hosts", Allow, None),
            ("cat \"$PWD/README.md\"", Allow, None),
            (
                "cat \"$(git rev-parse --show-toplevel)/README.md\"",
                Allow,
                None,
            ),
            ("for d in src; do cat \"$d/main.rs\"; done", Allow, None),
            ("rg --files ~", Allow, None),
            ("sed 's/foo/bar/g' README.md", Allow, None),
        ],
    );
}

/// Git history (issue 12, sens4, the lead's decision): forms that print committed file
/// content ask (since session 9 whatever their pathspecs); names, counts and summaries
/// pass. Verified with git 2.47 in a repository where `.env` was committed in HEAD~1 and
/// removed in HEAD: each asking form printed `TOKEN=1`.
#[cfg(unix)]
#[test]
fn git_history_content_asks() {
    let s = Scratch::new();
    let proj = s.path().join("home/proj");
    s.write("home/proj/README.md", "x");
    git(&proj, &["init", "-q"]);
    git(&proj, &["config", "user.email", "t@example.com"]);
    git(&proj, &["config", "user.name", "t"]);
    git(&proj, &["add", "README.md"]);
    git(&proj, &["commit", "-qm", "first"]);
    s.write("home/proj/.env", "TOKEN=1");
    git(&proj, &["add", ".env"]);
    git(&proj, &["commit", "-qm", "addenv"]);
    git(&proj, &["rm", "-q", ".env"]);
    git(&proj, &["commit", "-qm", "rmenv"]);
    // A tag may name a blob (`git show --stat blobtag` printed `TOKEN=1`); a branch may not.
    git(&proj, &["tag", "blobtag", "HEAD~1:.env"]);
    git(&proj, &["branch", "feature", "HEAD~1"]);
    s.write("home/proj/src/a.rs", "x");
    check_in(
        &s,
        &[
            ("git show HEAD~1", Ask, READ),
            ("git show", Ask, READ),
            ("git show :/addenv", Ask, READ),
            ("git show --oneline HEAD~1", Ask, READ),
            ("git log -p", Ask, READ),
            ("git log --all -p -S TOKEN", Ask, READ),
            ("git log --cc", Ask, READ),
            ("git log -p -- src", Ask, READ),
            ("git diff HEAD~2 HEAD~1", Ask, READ),
            ("git diff HEAD~2..HEAD~1", Ask, READ),
            ("git diff HEAD~2 -- '*.env'", Ask, READ),
            ("git cat-file --batch-all-objects --batch", Ask, READ),
            ("git cat-file -p 1234abcd", Ask, READ),
            ("git reflog -p -1", Ask, READ),
            ("git stash show -p", Ask, READ),
            ("git show --stat blobtag", Ask, READ),
            ("git show --stat 'blobtag^{}'", Ask, READ),
            ("git cat-file -p blobtag", Ask, READ),
            // Session 9: a literal pathspec proves nothing about history (it may have been a
            // directory holding a secret; see sensitive_s9.rs).
            ("git log -p -n 2 -- README.md", Ask, READ),
            ("git diff HEAD~2 HEAD -- README.md", Ask, READ),
            // Near misses: no content, or literal file paths.
            ("git log --oneline -5", Allow, None),
            ("git log --stat", Allow, None),
            ("git show --stat HEAD~1", Allow, None),
            ("git show -s --format=%H HEAD~1", Allow, None),
            ("git show --name-only HEAD~1", Allow, None),
            ("git diff --stat HEAD~2 HEAD", Allow, None),
            ("git diff", Allow, None),
            ("git diff HEAD", Allow, None),
            ("git cat-file -p HEAD", Allow, None),
            ("git cat-file -t HEAD~1", Allow, None),
            ("git show HEAD~2:README.md", Allow, None),
            ("git show --stat feature", Allow, None),
            ("git reflog -5", Allow, None),
            ("git stash show", Allow, None),
            ("git show --stat blobtag~1", Allow, None),
            ("git show --stat :/addenv", Allow, None),
            ("git cat-file -p feature", Allow, None),
        ],
    );
}

/// `git -C DIR` runs git in DIR: with DIR a repository outside the project, `REV:path`,
/// pathspecs, `blame FILE` and `grep` read files there (real git 2.47 printed the other
/// repository's committed `notes.txt` for each row that asks). Subcommands that print only
/// names and messages pass, as they do in the project.
#[test]
fn git_dash_c_into_a_repository_outside_the_project_asks() {
    let s = Scratch::new();
    s.write("home/other/notes.txt", "TOKEN");
    s.write("home/proj/src/main.rs", "fn main() {}");
    let other = s.path().join("home/other");
    let proj = s.path().join("home/proj");
    for dir in [&other, &proj] {
        git(dir, &["init", "-q"]);
        git(dir, &["add", "."]);
        git(
            dir,
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                "x",
            ],
        );
    }
    check_in(
        &s,
        &[
            ("git -C ../other show HEAD:notes.txt", Ask, READ),
            ("git -C ../other cat-file -p HEAD:notes.txt", Ask, READ),
            ("git -C ../other blame notes.txt", Ask, READ),
            ("git -C ../other grep TOKEN", Ask, READ),
            ("git -C ../other log -p -- notes.txt", Ask, READ),
            ("git -C ../other diff HEAD~0 -- notes.txt", Ask, READ),
            ("git -C ~/other show HEAD:notes.txt", Ask, READ),
            ("git -C \"$D\" show HEAD:notes.txt", Ask, READ),
            // Near misses: names and messages, and the project itself.
            ("git -C ../other status", Allow, None),
            ("git -C ../other log --oneline", Allow, None),
            ("git -C ../other ls-files", Allow, None),
            ("git -C . show HEAD:src/main.rs", Allow, None),
            ("git -C src show HEAD:src/main.rs", Allow, None),
            ("git show HEAD:src/main.rs", Allow, None),
        ],
    );
}

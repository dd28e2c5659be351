//! Option tables: each allowlisted program's options read the way its own parser reads them
//! (getopt_long, tree's bundles, whole words, git's parse-options), one table per program,
//! every spelling (attached, separate, `=`, bundled, abbreviated, after `--`). Plus the checks
//! that keep the embedded allowlist honest: every entry has examples, restricted entries prove
//! a refused option asks, and the default no longer leans on `forbid`.

use cmdguard::{Analyzer, Code, DEFAULT_ALLOWLIST, Verdict};

use Verdict::{Allow, Ask, Deny};

/// Each row: a command, the verdict it must get, and for an `ask` a piece of the message that
/// must explain it (the option and entry it names).
fn check(rows: &[(&str, Verdict, &str)]) {
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (cmd, want, says) in rows {
        let a = analyzer.analyze(cmd);
        let messages: Vec<String> = a
            .findings
            .iter()
            .filter(|f| f.severity > Allow)
            .map(|f| f.message.clone())
            .collect();
        let said = says.is_empty() || messages.iter().any(|m| m.contains(says));
        if a.verdict != *want || !said {
            failures.push(format!(
                "{cmd:?}: want {want} saying {says:?}, got {} {messages:?}",
                a.verdict
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn optional_values_are_taken_only_when_attached() {
    check(&[
        // The issue's cases: the program does not take the next word, so neither do we.
        ("git log --abbrev --output=F", Ask, "`--output`"),
        ("git diff -M --output=F", Ask, "`--output`"),
        ("git branch --color NEWBRANCH", Ask, "at most 0 operand"),
        ("uniq --group in out", Ask, "at most 1 operand"),
        ("date -I -s 2020-01-01", Ask, "`-s`"),
        // Attached values are values.
        ("git log --abbrev=8 --oneline", Allow, ""),
        ("git diff -M50 HEAD", Allow, ""),
        ("git branch --color=always", Allow, ""),
        ("uniq --group=both f", Allow, ""),
        ("date -Iseconds", Allow, ""),
        ("date --iso-8601=ns", Allow, ""),
        ("git status -uno", Allow, ""),
        ("git tag -n5", Allow, ""),
        // A value given to an option that takes none is refused.
        ("sort --debug=x f", Ask, "takes no value"),
    ]);
}

#[test]
fn bundles_follow_each_parser() {
    check(&[
        // getopt: a value option takes the rest of the bundle, or the next word when last.
        ("sort -uk2 f", Allow, ""),
        ("sort -uo x f", Ask, "`-o`"),
        ("sort -t: -k3n f", Allow, ""),
        ("grep -A3 x f", Allow, ""),
        ("grep -eA f", Allow, ""),
        ("sed -ne p f", Allow, ""),
        ("sed -ni p f", Ask, "`-i`"),
        ("git status -sb", Allow, ""),
        ("git clean -n -dx", Allow, ""),
        // tree: every value option of a bundle takes the next word in turn.
        ("tree -aL 2 src", Allow, ""),
        ("tree -Lo 2 out", Ask, "`-o`"),
        ("tree -L 2 -o out", Ask, "`-o`"),
        // xxd: whole words only, matched by their first letters by xxd itself.
        ("xxd -as in out", Ask, "`-as`"),
        ("xxd -cols 10 f", Allow, ""),
        ("xxd -len 32 f", Allow, ""),
        ("xxd -c 10 -l 32 f", Allow, ""),
        ("xxd -ps f", Allow, ""),
        ("xxd -r f", Ask, "`-r`"),
        ("xxd -revert f", Ask, "`-revert`"),
        ("xxd -rx f", Ask, "`-rx`"),
    ]);
}

#[test]
fn abbreviations_resolve_against_the_full_table() {
    check(&[
        ("sort --out=x f", Ask, "abbreviates `--output`"),
        (
            "sort --compress=sh f",
            Ask,
            "abbreviates `--compress-program`",
        ),
        ("sort --ke=2 f", Allow, ""),
        ("sort --r f", Ask, "ambiguous"),
        ("sed --in p f", Ask, "abbreviates `--in-place`"),
        ("sed --expr=p f", Allow, ""),
        ("date --se=now", Ask, "abbreviates `--set`"),
        ("date --iso=seconds", Allow, ""),
        ("diff --pag a b", Ask, "abbreviates `--paginate`"),
        ("grep --colo=never x f", Allow, ""),
        ("file --uncomp x", Ask, "abbreviates `--uncompress`"),
        // Without the program's full table, only options written in full are recognised.
        ("rg --pr=cat x", Ask, "looks abbreviated"),
        ("git log --outp=x", Ask, "`--outp`"),
        ("git diff --ext=x", Ask, "`--ext`"),
    ]);
}

#[test]
fn double_dash_ends_options_where_the_parser_says_so() {
    check(&[
        ("git diff -- --output=x", Allow, ""),
        ("grep -- -v f", Allow, ""),
        ("cat -- -n", Allow, ""),
        ("sort -- -o", Allow, ""),
        ("xxd -- -r", Allow, ""),
        // find reads `--` only before its paths: it is not an end of options here.
        ("find -- . -delete", Deny, "`--`"),
        // xxd and shell builtins stop at their first operand.
        ("xxd f -a", Ask, "at most 1 operand"),
        ("printf '%s' -v x", Allow, ""),
        ("printf -v x y", Ask, "`-v`"),
        ("cd -P src", Allow, ""),
    ]);
}

#[test]
fn unknown_options_ask_naming_option_and_entry() {
    check(&[
        (
            "ls --bogus",
            Ask,
            "`ls` option `--bogus` is not one of the options permitted",
        ),
        (
            "git log --no-such-thing",
            Ask,
            "`git log` option `--no-such-thing`",
        ),
        ("git status --ignore-submodules=none", Ask, "value `none`"),
        ("git grep -O vim x", Ask, "`-O`"),
        ("git cat-file --textconv HEAD:f", Ask, "`--textconv`"),
        (
            "git ls-files --recurse-submodules",
            Ask,
            "`--recurse-submodules`",
        ),
        ("jq -L dir . f", Ask, "`-L`"),
        ("rg --pre cat x", Ask, "`--pre`"),
        ("rg --hostname-bin x y", Ask, "`--hostname-bin`"),
        ("file -z x.gz", Ask, "`-z`"),
        ("tree --sort=bogus", Ask, "value `bogus`"),
        ("head -x f", Ask, "`-x`"),
    ]);
}

#[test]
fn helpers_and_code_runners_ask() {
    check(&[
        // diff -l pipes its output through pr.
        ("diff -l a b", Ask, "`-l`"),
        ("diff --paginate a b", Ask, "`--paginate`"),
        // pytest: plugins, xdist transports, warning categories and files outside the project.
        ("python -m pytest -p evil", Ask, "`-p`"),
        ("python -m pytest --tx popen//python=sh", Ask, "`--tx`"),
        ("python -m pytest -W error::pkg.Cat", Ask, "`-W`"),
        (
            "python -m pytest /usr/lib/python3/antigravity.py",
            Ask,
            "operand",
        ),
        ("python -m pytest ../other/test_x.py", Ask, "operand"),
        ("python -m pytest --co -q", Allow, ""),
        ("python -m pytest tests/test_a.py::test_b -x", Allow, ""),
        // unittest imports the modules it is given.
        ("python -m unittest venv.__main__", Ask, "operand"),
        ("python -m unittest tests.test_cli", Allow, ""),
        ("python -m unittest discover -s tests", Allow, ""),
        (
            "python -m unittest discover -s /usr/lib/python3",
            Ask,
            "`-s`",
        ),
        // GNU parallel re-parses its words as shell code: not a wrapper any more.
        ("ls | parallel wc -l", Ask, "parallel"),
        // gawk's network special files, as an operand or through getline.
        ("awk '{print}' /inet/tcp/0/example.com/80", Ask, "network"),
        ("gawk 'BEGIN{getline < \"/inet/tcp/0/x/80\"}'", Ask, "/inet"),
        (
            "awk 'BEGIN{f=\"/in\" \"et/tcp/0/x/80\"; getline < f}'",
            Ask,
            "getline",
        ),
        (
            "awk 'BEGIN{ARGV[1]=\"/in\" \"et/x\"; ARGC=2} {print}'",
            Ask,
            "ARGV",
        ),
        ("awk --profile=x 1 f", Ask, "`--profile`"),
        ("awk --prof 1 f", Ask, "`--profile`"),
        // lsof's `+` options read as operands: +M talks to the portmapper.
        ("lsof +M -i", Ask, "`+M`"),
        // A denied command behind find -exec is still denied.
        ("find . -exec rm -rf {} +", Deny, ""),
    ]);
}

#[test]
fn common_read_only_forms_stay_allowed() {
    check(&[
        ("git branch --list 'feat*'", Allow, ""),
        ("git tag -l 'v1.*'", Allow, ""),
        ("git config user.name", Allow, ""),
        ("git config --get init.defaultBranch", Allow, ""),
        ("git reflog", Allow, ""),
        ("git show-ref --tags", Allow, ""),
        ("git for-each-ref --format='%(refname)'", Allow, ""),
        ("git remote get-url origin", Allow, ""),
        ("git check-ignore -v target", Allow, ""),
        ("git ls-files --format='%(path)'", Allow, ""),
        ("git clean -n", Allow, ""),
        ("git --version", Allow, ""),
        ("node --version", Allow, ""),
        ("python3 --version", Allow, ""),
        ("sort --version", Allow, ""),
        ("paste -sd, f", Allow, ""),
        ("sleep 1", Allow, ""),
        ("printenv HOME", Allow, ""),
        ("chrt -p 123", Allow, ""),
        ("ionice -p 123", Allow, ""),
        ("taskset -p 123", Allow, ""),
        ("printf '%s\\n' \"$HOME\"", Allow, ""),
        ("head -20 f", Allow, ""),
        ("git log -5 --stat", Allow, ""),
        // …and the forms beside them that change things still ask.
        ("git config user.name x", Ask, "at most 1 operand"),
        ("git config edit", Ask, "operand `edit`"),
        // Listing prints every value, credentials included (issue 12, red team s5).
        (
            "git config --get-regexp 'remote\\..*'",
            Ask,
            "`--get-regexp`",
        ),
        ("git config --local -l", Ask, "`-l`"),
        ("git reflog expire --all", Ask, ""),
        ("git clean -n -f", Ask, "`-f`"),
        ("git tag v1", Ask, "at most 0 operand"),
        ("printenv OPENAI_API_KEY", Ask, "operand"),
        ("printenv", Ask, "at least 1 operand"),
        ("chrt -p 5 123", Ask, "at most 1 operand"),
        ("taskset -p ff 123", Ask, "operand `ff`"),
        ("ionice -p 1 -c 3", Ask, "`-c`"),
        ("date 010100002030", Ask, "operand"),
        ("sleep x", Ask, "operand"),
    ]);
}

#[test]
fn run_time_words_ask_where_they_could_become_options() {
    check(&[
        ("sort $x f", Ask, "could become any option"),
        // After `--` a quoted value is one operand, not an option, but it names a file only
        // known at run time, which may be a secret (issue 12, red team s5).
        ("sort -- \"$x\"", Ask, "only known when it runs"),
        ("echo -- \"$HOME\"", Allow, ""),
        ("printf \"$fmt\" x", Ask, "could become any option"),
        ("cd \"$DIR\"", Ask, ""),
        ("xxd f \"$out\"", Ask, "at most 1 operand"),
        // An unquoted word or a glob can become several operands: the second an output file.
        ("uniq -- $x", Ask, "could become any option"),
        ("uniq -- *", Ask, ""),
        ("xxd -- *", Ask, ""),
        ("date -- \"$x\"", Ask, ""),
        ("sed -n -- \"$script\" f", Ask, ""),
        ("git status --porcelain=$v", Ask, "run time"),
    ]);
}

/// The `[[allow]]` tables of the embedded allowlist, read as plain TOML.
fn default_entries() -> Vec<toml::Table> {
    let doc: toml::Table = toml::from_str(DEFAULT_ALLOWLIST).unwrap();
    doc["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_table().unwrap().clone())
        .collect()
}

fn strings(e: &toml::Table, key: &str) -> Vec<String> {
    e.get(key)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_embedded_allowlist_compiles_and_its_examples_hold() {
    // Built the strict way (compiling every table and verifying every example), so a mistake
    // fails here instead of turning every command into `ask`.
    // Its examples of mentions (`echo halt` asks) assume the default deny packs.
    let list = cmdguard::AllowlistBuilder::new()
        .add_toml(DEFAULT_ALLOWLIST, None)
        .add_default_packs()
        .build()
        .unwrap();
    assert!(list.entry_count() > 100, "{}", list.entry_count());
}

#[test]
fn every_default_entry_has_examples_and_restricted_ones_prove_a_refusal() {
    // Entries without an option table: programs whose options only change formatting, and
    // the shell builtins whose options and assigned names check/vars.rs reads from its own
    // permitted lists.
    const NO_TABLE: &[&str] = &[
        "echo",
        "true",
        "false",
        ":",
        "ps",
        "export",
        "declare",
        "typeset",
        "local",
        "readonly",
        "read",
        "mapfile",
        "readarray",
        "getopts",
        "unset",
        "set",
        "exit",
        "return",
        "shift",
    ];
    let mut failures = Vec::new();
    for e in default_entries() {
        let name = e["command"].as_str().unwrap().to_string();
        let matches = strings(&e, "match");
        let not_match = strings(&e, "not_match");
        if matches.is_empty() {
            failures.push(format!("`{name}` has no `match` example"));
        }
        for key in ["forbid", "only_options", "value_options"] {
            if e.contains_key(key) {
                failures.push(format!(
                    "`{name}` uses `{key}`; list permitted `options` instead"
                ));
            }
        }
        let has_table = e.contains_key("options") || e.contains_key("checker");
        if !has_table && !NO_TABLE.contains(&name.as_str()) {
            failures.push(format!("`{name}` has no option table"));
        }
        // A table that leaves some of the program's options out must show one of them asking:
        // a `not_match` with an option word the entry's own words do not have.
        let complete = e
            .get("known_options")
            .and_then(|k| k.as_array())
            .is_some_and(|k| k.is_empty());
        let own: Vec<&str> = name.split_whitespace().collect();
        let refuses_an_option = not_match.iter().any(|c| {
            c.split_whitespace()
                .any(|w| w.starts_with(['-', '+']) && w.len() > 1 && !own.contains(&w))
        });
        if e.contains_key("options") && !complete && !refuses_an_option {
            let empty = strings(&e, "options").is_empty();
            // An entry that permits no option at all proves it with any option; one with
            // operands only needs an operand case.
            if !empty || not_match.is_empty() {
                failures.push(format!(
                    "`{name}` restricts options but no `not_match` shows a refused option"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn refusals_use_the_forbidden_argument_code() {
    let a = Analyzer::default().analyze("sort -o out f");
    assert_eq!(a.verdict, Ask);
    assert!(
        a.findings
            .iter()
            .any(|f| f.code == Code::ForbiddenArgument && f.message.contains("`sort` option `-o`")),
        "{:?}",
        a.findings
    );
}

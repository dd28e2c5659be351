//! Arbitrary code handed to an interpreter one-liner (`python3 -c`, `node -e`, `ruby -e`,
//! `perl -e`, `php -r`, a heredoc): the analysis never panics, keeps the common properties, and
//! never allows — an interpreter runs code, so the best it can be is `ask`.
#![no_main]

#[path = "common.rs"]
mod common;

use cmdguard::Verdict;
use libfuzzer_sys::fuzz_target;

const FORMS: &[&str] = &[
    "python3 -c ", "node -e ", "ruby -e ", "perl -e ", "php -r ", "deno eval ", "bun -e ",
];

fuzz_target!(|input: (u8, String, bool)| {
    let (form, code, heredoc) = input;
    let prog = FORMS[usize::from(form) % FORMS.len()];
    let cmd = if heredoc {
        let name = prog.split(' ').next().unwrap_or("python3");
        format!("{name} <<'EOF'\n{code}\nEOF")
    } else {
        format!("{prog}'{}'", code.replace('\'', r"'\''"))
    };
    let a = common::analyzer().analyze(&cmd);
    common::check_properties(&a);
    assert_ne!(a.verdict, Verdict::Allow, "interpreter code allowed: {cmd:?}");
});

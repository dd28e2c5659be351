//! Session 10 (secfix2): the directory a read happens in is followed point by point through a
//! line's top-level commands, and each way bash can leave a `cd` undone keeps asking. `home`
//! holds `notes.txt` outside the project `home/proj`.

use crate::scratch::Scratch;

use cmdguard::{Code, Verdict, Workdir};

use super::rules::check_in;
use Verdict::{Allow, Ask};

const READ: Option<Code> = Some(Code::SensitiveRead);

fn project(s: &Scratch) -> Workdir {
    s.write("home/proj/README.md", "hi\n");
    s.write("home/proj/src/a.rs", "fn a() {}\n");
    s.write("home/proj/src/README.md", "src\n");
    s.write("home/notes.txt", "FAKENOTES\n");
    Workdir::new(s.path().join("home/proj")).with_home(s.path().join("home"))
}

/// Where bash is at each read: after a `cd` that succeeded, where it failed, or both.
#[test]
fn reads_are_judged_where_bash_is_at_that_point() {
    let s = Scratch::new();
    check_in(
        &project(&s),
        &[
            ("cd src && cat ../README.md", Allow, None),
            ("cd src; cat ../README.md", Allow, None),
            ("cd src || exit; cat ../README.md", Allow, None),
            ("cd src && cat a.rs | wc -l", Allow, None),
            ("cd src && if true; then cat ../README.md; fi", Allow, None),
            // `||` runs the read where the `cd` failed: the project, whose parent is outside.
            ("cd src || cat ../notes.txt", Ask, READ),
            // A directory that does not exist: `cd` fails and `;` goes on where it was.
            ("cd nosuch; cat ../notes.txt", Ask, READ),
            ("cd nosuch || true; cat ../notes.txt", Ask, READ),
            // `!` turns the failure into success.
            ("! cd src && cat ../notes.txt", Ask, READ),
            // A `cd` in a subshell, a pipeline or the background does not move the line.
            ("(cd src); cat ../notes.txt", Ask, READ),
            ("cd src | true; cat ../notes.txt", Ask, READ),
            ("cd src & cat ../notes.txt", Ask, READ),
            // Both ways of an `||` after a `cd`.
            ("cd src || cd ..; cat notes.txt", Ask, READ),
            ("cd .. && cat notes.txt", Ask, READ),
            ("cd src && cd .. && cd .. && cat notes.txt", Ask, READ),
            // A `cd` in a function may run anywhere after its definition.
            ("f() { cd ..; }; f; cat notes.txt", Ask, READ),
            // `"$PWD"` stays; another run-time operand is unknown.
            ("cd \"$PWD\" && cat README.md", Allow, None),
            ("PWD=..; cd \"$PWD\" && cat notes.txt", Ask, READ),
        ],
    );
}

/// A `<` tree-sitter hangs on the whole list belongs to the last command before it; one on a
/// loop is judged from every directory the line reaches.
#[test]
fn input_redirects_are_judged_at_their_command() {
    let s = Scratch::new();
    check_in(
        &project(&s),
        &[
            ("cd src && wc -l < ../README.md", Allow, None),
            ("cd .. && wc -l < notes.txt", Ask, READ),
            ("cd src || wc -l < ../notes.txt", Ask, READ),
            ("wc -l < ../notes.txt", Ask, READ),
        ],
    );
}

/// bash's `cd` is logical when the text's directories exist: `cd x/..` with `x` a symlink is
/// the directory itself, while a read through the link climbs from where it leads.
#[cfg(unix)]
#[test]
fn a_logical_cd_and_a_physical_read() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    let dir = project(&s);
    let home = s.path().join("home");
    s.write("home/.config/x/y", "y\n");
    s.write("home/.config/notes.txt", "FAKE\n");
    symlink(home.join(".config/x"), home.join("proj/ext")).unwrap();
    check_in(
        &dir,
        &[
            ("cd ext/.. && cat README.md", Allow, None),
            ("cd ext && cat ../notes.txt", Ask, READ),
            // The set keeps where the link leads too, and `cd ..` climbs from there as well: a
            // false ask kept on purpose (the logical and physical paths are not told apart).
            ("cd ext && cd .. && cat README.md", Ask, READ),
        ],
    );
}

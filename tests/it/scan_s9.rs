//! Session 9's audit of the scan subsets against the real tools (GNU make 4.3, dash, bash,
//! npm, GitHub's runner): each test pins one way a file read as clean while the tool ran a
//! command scan had not judged, and the near misses that must stay clean.

use std::path::Path;
use std::process::Command;

use cmdguard::integrations::scan::{self, FileKind, FileReport};
use cmdguard::{Analyzer, Verdict};

use crate::scan::make_available;
use crate::scan_subset::codes;

/// A fresh directory for one test, removed first if an earlier run left it.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cmdguard-scan-s9-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The scan report of the file at `path` (read from disk) as `kind`.
fn scan_path(path: &Path, kind: FileKind) -> FileReport {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let text = std::fs::read_to_string(path).unwrap();
    scan::scan_text(&path.display().to_string(), &text, kind, &analyze)
}

/// The plain Makefile of the tests below: one phony target whose recipe is allowed.
const PLAIN_MAKEFILE: &str = ".PHONY: a\na:\n\tls\n";

/// GNU make remakes the makefile itself before reading it, with its built-in rules too: a
/// `Makefile.sh` beside a clean `Makefile` is copied over it (`%: %.sh`) and its recipes run.
/// Each such source beside the makefile asks; files no built-in rule reads stay clean.
#[test]
fn a_source_make_remakes_the_makefile_from_asks() {
    let table: &[(&str, Option<&str>)] = &[
        ("Makefile.sh", Some("unread_file")),
        ("Makefile.c", Some("unread_file")),
        ("Makefile.y", Some("unread_file")),
        ("Makefile.web", Some("unread_file")),
        ("Makefile,v", Some("unread_file")),
        ("Makefile.c,v", Some("unread_file")),
        ("s.Makefile", Some("unread_file")),
        ("RCS/", Some("unread_file")),
        ("SCCS/", Some("unread_file")),
        // automake's inputs and other neighbours: no built-in rule makes `Makefile` of them.
        ("Makefile.am", None),
        ("Makefile.in", None),
        ("Makefile.bak", None),
        ("README.sh", None),
    ];
    for (beside, want) in table {
        let dir = fresh_dir("remake");
        std::fs::write(dir.join("Makefile"), PLAIN_MAKEFILE).unwrap();
        match beside.strip_suffix('/') {
            Some(d) => std::fs::create_dir(dir.join(d)).unwrap(),
            None => std::fs::write(dir.join(beside), "x\n").unwrap(),
        }
        let r = scan_path(&dir.join("Makefile"), FileKind::Makefile);
        match want {
            Some(code) => {
                assert_eq!(r.verdict, Verdict::Ask, "{beside}: {r:#?}");
                assert_eq!(codes(&r), [*code], "{beside}");
            }
            None => assert_eq!((r.verdict, codes(&r)), (Verdict::Allow, vec![]), "{beside}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The attack itself, under real GNU make: a newer `Makefile.sh` replaces the clean
/// `Makefile` and its recipe runs.
#[test]
fn real_make_remakes_the_makefile_from_a_sh_file_beside_it() {
    if !make_available() {
        return;
    }
    let dir = fresh_dir("remake-real");
    std::fs::write(dir.join("Makefile"), PLAIN_MAKEFILE).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(dir.join("Makefile"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    std::fs::write(dir.join("Makefile.sh"), ".PHONY: a\na:\n\ttouch ran\n").unwrap();
    let r = scan_path(&dir.join("Makefile"), FileKind::Makefile);
    assert_eq!(r.verdict, Verdict::Ask);
    Command::new("make")
        .arg("-s")
        .current_dir(&dir)
        .env_remove("MAKEFLAGS")
        .output()
        .unwrap();
    assert!(
        dir.join("ran").exists(),
        "make ran the recipe of Makefile.sh"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

//! scan/sarif: reports as SARIF 2.1.0, the format CI code scanning reads — one result per
//! reason at its file, line and column, the rule ids being the finding codes, each rule with
//! help text. It only formats; it never decides anything.

use serde_json::{Value, json};

use super::{FileKind, FileReport, Reason, ScanCode, ScanReport};
use crate::{Analysis, Code, Verdict};

/// The `$schema` SARIF logs name: the OASIS standard's schema, with its errata.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The pseudo-URI of a command given to `cmdguard check` as arguments.
pub const COMMAND_URI: &str = "cmdguard:command";
/// The pseudo-URI of a command `cmdguard check --stdin` read.
pub const STDIN_URI: &str = "cmdguard:stdin";

/// The SARIF log of a scan.
///
/// ```
/// use cmdguard::Analyzer;
/// use cmdguard::integrations::scan::{self, FileKind, ScanReport, sarif};
/// let analyzer = Analyzer::default();
/// let file = scan::scan_text("build.sh", "ls\nrm -rf /\n", FileKind::ShellScript, &|c: &str| {
///     analyzer.analyze(c)
/// });
/// let log = sarif::log(&ScanReport::new(vec![file]));
/// let results = log["runs"][0]["results"].as_array().unwrap();
/// let result = results.iter().find(|r| r["ruleId"] == "denied").unwrap();
/// assert_eq!(result["level"], "error");
/// assert_eq!(result["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
/// ```
pub fn log(report: &ScanReport) -> Value {
    log_with_paths(report, &[])
}

/// [`log`], with the raw bytes of each file's path (in the order of `report.files`) where the
/// caller has them: a path that is not UTF-8 is located at its own bytes, percent-encoded
/// (`n%FF.sh`), not at the text `FileReport::path` shows (red team s9: two such files got one
/// URI, naming a file that does not exist). A file with no bytes given uses its `path`.
pub fn log_with_paths(report: &ScanReport, raw_paths: &[&[u8]]) -> Value {
    let uris: Vec<String> = report
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| match (f.kind, raw_paths.get(i)) {
            (FileKind::Command, _) | (_, None) => artifact_uri(f),
            (_, Some(bytes)) => uri_of_bytes(bytes),
        })
        .collect();
    let mut results = Vec::new();
    for (file, uri) in report.files.iter().zip(&uris) {
        for r in &file.reasons {
            results.push(result(r, uri, None));
        }
        for c in &file.commands {
            for r in &c.reasons {
                results.push(result(r, uri, Some((&c.context, &c.text, c.verdict))));
            }
        }
    }
    let artifacts: Vec<Value> = uris
        .iter()
        .map(|uri| json!({"location": {"uri": uri}}))
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cmdguard",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules(),
            }},
            "columnKind": "unicodeCodePoints",
            "artifacts": artifacts,
            "results": results,
        }],
    })
}

/// The SARIF log of one command `cmdguard check` analysed, located at `uri` ([`COMMAND_URI`]
/// or [`STDIN_URI`]): lines and columns count in the command's own text.
pub fn check_log(a: &Analysis, uri: &str) -> Value {
    let file = super::scan_text(uri, &a.cmd, super::FileKind::Command, &|_| a.clone());
    log(&ScanReport::new(vec![file]))
}

fn result(r: &Reason, uri: &str, command: Option<(&str, &str, Verdict)>) -> Value {
    let mut region = json!({"startLine": r.start.line, "startColumn": r.start.column});
    if r.end > r.start {
        region["endLine"] = json!(r.end.line);
        region["endColumn"] = json!(r.end.column);
    }
    let mut properties = json!({"severity": r.severity.as_str()});
    if let Some(rule) = &r.rule {
        properties["allowlistRule"] = json!(rule);
    }
    if let Some((context, text, verdict)) = command {
        properties["context"] = json!(context);
        properties["command"] = json!(text);
        properties["commandVerdict"] = json!(verdict.as_str());
    }
    json!({
        "ruleId": r.code,
        "ruleIndex": rule_index(r.code),
        "level": level(r.severity),
        "message": {"text": r.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": region,
        }}],
        "properties": properties,
    })
}

/// SARIF's level for a verdict: deny is an error, ask a warning.
fn level(v: Verdict) -> &'static str {
    match v {
        Verdict::Allow => "note",
        Verdict::Ask => "warning",
        Verdict::Deny => "error",
    }
}

/// Every rule: the finding codes, then the scan codes.
fn rule_ids() -> impl Iterator<Item = (&'static str, Verdict, &'static str)> {
    Code::ALL
        .iter()
        .map(|&c| (c.as_str(), c.default_severity(), code_help(c)))
        .chain(
            ScanCode::ALL
                .iter()
                .map(|&s| (s.as_str(), s.severity(), scan_help(s))),
        )
}

fn rule_index(id: &str) -> usize {
    rule_ids().position(|(r, _, _)| r == id).unwrap_or(0)
}

fn rules() -> Vec<Value> {
    rule_ids()
        .map(|(id, severity, help)| {
            let short = help.split(". ").next().unwrap_or(help);
            json!({
                "id": id,
                "shortDescription": {"text": short},
                "fullDescription": {"text": help},
                "help": {"text": help},
                "defaultConfiguration": {"level": level(severity)},
            })
        })
        .collect()
}

/// The URI a file's results are located at: `check`'s pseudo-URI for a command, else its
/// path as a relative reference (a file named `cmdguard:x` is a file, encoded like any other).
fn artifact_uri(file: &FileReport) -> String {
    match file.kind {
        FileKind::Command => file.path.clone(),
        FileKind::ShellScript
        | FileKind::Dockerfile
        | FileKind::Workflow
        | FileKind::Makefile
        | FileKind::PackageJson => uri_of(&file.path),
    }
}

/// A path as a relative URI reference: `/` kept, anything but unreserved characters
/// percent-encoded.
fn uri_of(path: &str) -> String {
    uri_of_bytes(path.as_bytes())
}

/// [`uri_of`] for a path's raw bytes.
fn uri_of_bytes(path: &[u8]) -> String {
    let mut out = String::new();
    for &b in path {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What each finding code means and what to do about it.
fn code_help(c: Code) -> &'static str {
    match c {
        Code::NotAllowlisted => {
            "The program is not in the allowlist. Add a rule for it if it only reads, or let a person confirm it."
        }
        Code::DynamicCommand => {
            "The program to run is only known at run time (a variable, a substitution, a glob). Write the program name literally."
        }
        Code::UnusualPath => {
            "The program is given as a path outside the system directories, so any file there could run. Call it by name from PATH."
        }
        Code::SystemPath => "The program is given as a path in a system directory.",
        Code::SubstitutedArgument => {
            "The output of a command substitution becomes arguments of a program whose arguments matter. Pass the values literally."
        }
        Code::DynamicArgument => {
            "A run-time value is an argument of a program whose options are restricted: it could become any option. Quote or spell it literally."
        }
        Code::ForbiddenArgument => {
            "An option or argument that makes the program write, run or load something. Drop it or let a person confirm it."
        }
        Code::Denied => {
            "A deny rule matched: the command is unambiguously destructive (recursive deletes, force pushes, disk writes). Do not run it."
        }
        Code::Mention => {
            "Unquoted arguments spell a denied command. Quote the text if it is only text."
        }
        Code::Wrapper => {
            "A wrapper that needs a prompt by itself (sudo) or that cmdguard cannot see through."
        }
        Code::Exec => {
            "A program that runs code given to it (eval, source, bash -c with a run-time script)."
        }
        Code::Operator => {
            "An operator other than ; && || | and newline: a background job, |&, coproc."
        }
        Code::Newline => "Commands separated by a newline.",
        Code::Backtick => "A command substitution written with backquotes.",
        Code::Redirect => {
            "A redirection that can write a file or open a descriptor or a connection."
        }
        Code::UncommonRedirect => "A harmless redirection other than to /dev/null or 2>&1.",
        Code::InputRedirect => "Input read with < from a file outside the working directory.",
        Code::HeredocStripTabs => {
            "A <<- heredoc, whose tab-stripped terminator parsers disagree about. Use << instead."
        }
        Code::Assignment => {
            "An assignment to a variable that changes what runs or loads (PATH, LD_PRELOAD, BASH_ENV…)."
        }
        Code::FunctionCall => {
            "A call of a shell function defined in the same script: its body runs under the name of a program."
        }
        Code::Arithmetic => {
            "Arithmetic that can evaluate a variable's value or an array subscript as code."
        }
        Code::EvaluatedExpansion => {
            "A parameter expansion that evaluates its value as code (${!x}, ${x@P})."
        }
        Code::ParseError => "A syntax error: bash may read the command differently from cmdguard.",
        Code::UnsupportedSyntax => "Syntax cmdguard does not analyse.",
        Code::ParserMismatch => {
            "A place where tree-sitter-bash and bash are known to read the text differently. Rewrite it more plainly."
        }
        Code::LimitExceeded => {
            "A configured limit (size, nesting, segments, pipes, time) was exceeded. Split the script or raise [limits]."
        }
        Code::InvalidInput => {
            "Input bash would read differently from its text: invalid UTF-8, NUL, control characters."
        }
        Code::RepoConfig => {
            "An allowed git command would run in a repository whose own config or hooks name a program git runs."
        }
        Code::SensitiveRead => {
            "The command reads a path listed as sensitive (keys, tokens, .env): its output would carry a secret."
        }
        Code::PrintsEnvironment => {
            "The command prints the environment or a variable whose name looks like a secret."
        }
    }
}

fn scan_help(s: ScanCode) -> &'static str {
    match s {
        ScanCode::TemplateExpansion => {
            "A GitHub Actions ${{ }} expression or a make variable is pasted into the script before the shell reads it: unknown text that can be any shell code, quotes included. Pass the value through an environment variable and quote it (\"$VAR\")."
        }
        ScanCode::UnsupportedShell => {
            "The commands run under a shell cmdguard does not analyse (pwsh, python, cmd), or under a default shell cmdguard cannot tell. Set the shell to bash to have them checked."
        }
        ScanCode::MalformedFile => {
            "The file cannot be parsed (YAML or JSON syntax), so its commands cannot be found. Fix the syntax."
        }
        ScanCode::ProjectPath => {
            "npm runs scripts with node_modules/.bin first on PATH, so a program name may run a program a package installed. Review the packages the scripts call."
        }
        ScanCode::ShellOptions => {
            "The shell is started with options or arguments beyond the plain forms (a Makefile SHELL or .SHELLFLAGS, a Dockerfile SHELL, a workflow shell: template). They run before, or instead of, every command; the construct is analysed as a command too. Use a plain bash or sh with -c (and -e, -u, -x, -o pipefail)."
        }
        ScanCode::Environment => {
            "A variable set for every command the file runs (a Makefile assignment or export, a Dockerfile ENV or ARG, a workflow env:) is not in [env] inert. PATH chooses the programs, BASH_ENV and ENV make the shell read a file first, LD_PRELOAD loads a library. Set such variables inside the command where they can be checked, or add an inert name to [env] inert."
        }
        ScanCode::UnreadFile => {
            "The file makes its tool read another file (make's include, MAKEFILES, load) whose rules and settings run too. Scan that file as well; this scan did not read it."
        }
        ScanCode::Unmodelled => {
            "A construct scan does not model that can change what runs: make's $(eval), $(file), $(call) of a computed name, MAKEFLAGS beyond reporting options, .SECONDEXPANSION, a line scan cannot classify, an unknown or ONBUILD Dockerfile instruction, a custom Dockerfile syntax frontend, a docker:// step. Review it by hand."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrations::scan::Pos;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_of("ci/build.sh"), "ci/build.sh");
        assert_eq!(uri_of("my dir/a#b.sh"), "my%20dir/a%23b.sh");
        assert_eq!(uri_of("cmdguard:a b.sh"), "cmdguard%3Aa%20b.sh");
    }

    #[test]
    fn every_rule_id_is_unique_and_indexed() {
        let ids: Vec<&str> = rule_ids().map(|(id, _, _)| id).collect();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(rule_index(id), i, "{id}");
        }
    }

    #[test]
    fn positions_are_one_based() {
        let p = Pos { line: 1, column: 1 };
        let r = Reason {
            code: "redirect",
            severity: Verdict::Ask,
            message: "m".into(),
            rule: None,
            start: p,
            end: Pos { line: 1, column: 4 },
        };
        let v = result(&r, "a.sh", None);
        let region = &v["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            region,
            &json!({"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 4})
        );
        assert_eq!(v["level"], "warning");
    }
}

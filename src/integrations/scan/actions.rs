//! scan/actions: the `run:` steps of a GitHub Actions workflow (`jobs.<id>.steps[n].run`) or
//! composite action (`runs.steps[n].run`), read with saphyr's YAML parser, each mapped back to
//! the file line by line (block scalars `|` and `>` included). A `${{ }}` expression is pasted
//! into the script before bash reads it: it asks, and the analyser sees a run-time value in its
//! place. A step under a shell other than bash or sh is reported unsupported. It never decides
//! safety itself.
//!
//! The modelled subset: `run:` steps of jobs on GitHub's hosted Linux and macOS runners
//! (`ubuntu-…`, `macos-…`), or with an explicit `shell:`; any other runner (self-hosted, a
//! custom label, an expression) may be Windows or bring its own shell and asks. A job
//! `container:` (its image's shell reads every step) and `services:` (their images' programs
//! run beside the job) ask, like a `docker://` step.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::{
    EnvScope, EnvUse, Extracted, Piece, Problem, ScanCode, ScriptBuf, Shell, interpreter_name,
    plain_shell_flags, plain_shell_program, shell_named,
};
use crate::Span;

/// A YAML node with the byte range of its scalars. Aliases stay references, resolved when
/// read, so an alias bomb costs nothing.
#[derive(Debug, Clone)]
enum Node {
    Map(Vec<(Node, Node)>),
    Seq(Vec<Node>),
    Scalar(Scalar),
    Alias(usize),
}

#[derive(Debug, Clone)]
struct Scalar {
    value: String,
    style: ScalarStyle,
    /// Byte offsets of the scalar's text in the file (block scalars: from the indicator).
    start: usize,
    end: usize,
}

/// A parsed document and its anchors.
struct Doc {
    root: Node,
    anchors: HashMap<usize, Node>,
}

impl Doc {
    fn resolve<'a>(&'a self, mut n: &'a Node) -> Option<&'a Node> {
        // An alias names a node that is complete when the alias is read, so one step resolves
        // it; the bound only guards against a parser that thinks otherwise.
        for _ in 0..8 {
            match n {
                Node::Alias(id) => n = self.anchors.get(id)?,
                Node::Map(_) | Node::Seq(_) | Node::Scalar(_) => return Some(n),
            }
        }
        None
    }

    fn get<'a>(&'a self, n: &'a Node, key: &str) -> Option<&'a Node> {
        self.get_merged(n, key, 0)
    }

    /// The value of `key`, also through YAML merge keys (`<<: *defaults`), which some
    /// readers honour: a `run:` that arrives by a merge is still a command.
    fn get_merged<'a>(&'a self, n: &'a Node, key: &str, depth: usize) -> Option<&'a Node> {
        let Node::Map(members) = self.resolve(n)? else {
            return None;
        };
        // YAML forbids duplicate keys; GitHub rejects them. Take the last, as most parsers do.
        let own = members
            .iter()
            .rev()
            .find(|(k, _)| self.scalar(k).is_some_and(|s| s.value == key))
            .map(|(_, v)| v);
        if own.is_some() || depth > 8 {
            return own;
        }
        let merged = members
            .iter()
            .filter(|(k, _)| self.scalar(k).is_some_and(|s| s.value == "<<"))
            .flat_map(|(_, v)| match self.resolve(v) {
                Some(Node::Seq(items)) => items.iter().collect::<Vec<_>>(),
                Some(other) => vec![other],
                None => Vec::new(),
            });
        for m in merged {
            if let Some(v) = self.get_merged(m, key, depth + 1) {
                return Some(v);
            }
        }
        None
    }

    /// The members of the map `n` with its merge keys (`<<: *jobs`) read as the reader that
    /// honours them reads them: a key of the map's own first, then each merged map's keys
    /// that are not there yet, in order. A merged job or `env:` name is still one the file
    /// sets (red team s9: jobs merged in with `<<` were never read, and the file was clean).
    fn members<'a>(&'a self, n: &'a Node) -> Vec<(&'a Node, &'a Node)> {
        let mut out: Vec<(&'a Node, &'a Node)> = Vec::new();
        self.members_into(n, 0, &mut out);
        out
    }

    fn members_into<'a>(&'a self, n: &'a Node, depth: usize, out: &mut Vec<(&'a Node, &'a Node)>) {
        let Some(Node::Map(members)) = self.resolve(n) else {
            return;
        };
        let is_merge = |k: &Node| self.scalar(k).is_some_and(|s| s.value == "<<");
        for (k, v) in members.iter().filter(|(k, _)| !is_merge(k)) {
            let name = self.scalar(k).map(|s| s.value.as_str());
            let known = name.is_some()
                && out
                    .iter()
                    .any(|(o, _)| self.scalar(o).map(|s| s.value.as_str()) == name);
            if !known {
                out.push((k, v));
            }
        }
        if depth > 8 {
            return;
        }
        for (_, v) in members.iter().filter(|(k, _)| is_merge(k)) {
            match self.resolve(v) {
                Some(Node::Seq(items)) => {
                    for item in items {
                        self.members_into(item, depth + 1, out);
                    }
                }
                Some(_) => self.members_into(v, depth + 1, out),
                None => {}
            }
        }
    }

    fn scalar<'a>(&'a self, n: &'a Node) -> Option<&'a Scalar> {
        match self.resolve(n)? {
            Node::Scalar(s) => Some(s),
            Node::Map(_) | Node::Seq(_) | Node::Alias(_) => None,
        }
    }

    fn path<'a>(&'a self, n: &'a Node, keys: &[&str]) -> Option<&'a Node> {
        keys.iter().try_fold(n, |n, k| self.get(n, k))
    }
}

pub(super) fn extract(text: &str) -> Extracted {
    let mut out = Extracted::default();
    let doc = match parse(text) {
        Ok(Some(doc)) => doc,
        Ok(None) => return out,
        Err(problem) => {
            out.problems.push(problem);
            return out;
        }
    };
    let root = &doc.root;
    env_keys(&doc, root, "the workflow's `env:`", &mut out);
    let top_shell = doc
        .path(root, &["defaults", "run", "shell"])
        .map(|n| shell_value(&doc, text, n, "defaults.run.shell", &mut out));
    if let Some(jobs) = doc.get(root, "jobs") {
        for (id, job) in doc.members(jobs) {
            let id = doc.scalar(id).map_or("?", |s| s.value.as_str());
            env_keys(&doc, job, &format!("the `env:` of jobs.{id}"), &mut out);
            if let Some(container) = doc.get(job, "container") {
                env_keys(
                    &doc,
                    container,
                    &format!("the container `env:` of jobs.{id}"),
                    &mut out,
                );
                out.problems.push(Problem {
                    code: ScanCode::Unmodelled,
                    message: format!(
                        "jobs.{id} runs in a container: each `run:` step is read by the image's own shell, a program scan does not see (as for a `docker://` step)"
                    ),
                    span: key_span(&doc, job, "container"),
                });
            }
            if doc.get(job, "services").is_some() {
                out.problems.push(Problem {
                    code: ScanCode::Unmodelled,
                    message: format!(
                        "jobs.{id} starts service containers: each runs its image's program beside the job, which scan does not see (as for a `docker://` step)"
                    ),
                    span: key_span(&doc, job, "services"),
                });
            }
            let shell = match doc.path(job, &["defaults", "run", "shell"]) {
                Some(n) => shell_value(
                    &doc,
                    text,
                    n,
                    &format!("jobs.{id}.defaults.run.shell"),
                    &mut out,
                ),
                None => top_shell
                    .clone()
                    .unwrap_or_else(|| runner_default(&doc, doc.get(job, "runs-on"))),
            };
            steps(&doc, text, job, &format!("jobs.{id}"), &shell, &mut out);
        }
    }
    if let Some(runs) = doc.get(root, "runs") {
        // Only a composite action holds its commands in this file: a Docker action runs its
        // image's `entrypoint`/`args` (and `pre-`/`post-entrypoint`), a JavaScript action its
        // `main`/`pre`/`post` scripts, which scan does not see.
        let using = doc.get(runs, "using").and_then(|u| doc.scalar(u));
        match using {
            Some(u) if u.value == "composite" => {}
            Some(u) => out.problems.push(Problem {
                code: ScanCode::Unmodelled,
                message: format!(
                    "a `using: {}` action runs code this file does not hold (its image or scripts): scan cannot see what it runs",
                    u.value
                ),
                span: Span::new(u.start, u.end),
            }),
            None => out.problems.push(Problem {
                code: ScanCode::Unmodelled,
                message: "`runs:` without a plain `using:` value: scan cannot tell what the action runs"
                    .into(),
                span: Span::new(0, 0),
            }),
        }
        // A composite action: every `run:` step must name its shell.
        let shell = Chosen {
            shell: Shell::Unsupported(
                "no `shell:` (a composite action's steps must name one)".into(),
            ),
            note: None,
        };
        steps(&doc, text, runs, "runs", &shell, &mut out);
    }
    out
}

/// Records each variable an `env:` map under `parent` sets; an `env:` that is not a map (an
/// expression such as `${{ fromJSON(…) }}`) may set any variable.
fn env_keys(doc: &Doc, parent: &Node, how: &str, out: &mut Extracted) {
    let Some(env) = doc.get(parent, "env") else {
        return;
    };
    match doc.resolve(env) {
        Some(Node::Map(_)) => {
            for (k, _) in doc.members(env) {
                let Some(key) = doc.scalar(k) else { continue };
                out.env.push(EnvUse {
                    name: key.value.clone(),
                    span: Span::new(key.start, key.end),
                    how: how.to_string(),
                    scope: EnvScope::Exported,
                });
            }
        }
        Some(Node::Scalar(s)) => out.problem(
            ScanCode::Environment,
            Span::new(s.start, s.end),
            format!(
                "{how} is `{}`, which may set any variable, `PATH` and `BASH_ENV` included",
                s.value
            ),
        ),
        Some(Node::Seq(_) | Node::Alias(_)) | None => {}
    }
}

/// The shell a step runs under, and a reason to ask when it was not sure.
#[derive(Debug, Clone)]
struct Chosen {
    shell: Shell,
    note: Option<String>,
}

/// The shell a `shell:` value names. The names the runner knows (`bash`, `sh`, `pwsh`, …)
/// are what they say; a template (`bash -e {0}`) is bash when it names bash or sh plainly with
/// plain options before `{0}`, the script's path. Any other bash or sh template is analysed as
/// the command the runner runs, and asks.
fn shell_value(doc: &Doc, text: &str, n: &Node, at: &str, out: &mut Extracted) -> Chosen {
    let Some(scalar) = doc.scalar(n) else {
        return Chosen {
            shell: Shell::Unsupported("a `shell:` that is not a string".into()),
            note: None,
        };
    };
    let value = scalar.value.as_str();
    if value.contains("${{") {
        return Chosen {
            shell: Shell::Unsupported(format!("a shell chosen by an expression (`{value}`)")),
            note: None,
        };
    }
    let shell = interpreter_name(value).map_or_else(
        || Shell::Unsupported("an empty `shell:`".into()),
        |name| shell_named(&name),
    );
    let words: Vec<&str> = value.split_whitespace().collect();
    if shell.analysed() && !plain_template(&words) {
        out.problem(
            ScanCode::ShellOptions,
            Span::new(scalar.start, scalar.end),
            format!(
                "the runner runs each step as `{value}` with `{{0}}` the step's script: more than a plain `bash`/`sh` with `-e`, `-u`, `-x`, `-o pipefail`, `--noprofile`, `--norc` runs before, or instead of, the script (analysed as a command)"
            ),
        );
        let mut piece = script(text, scalar, &format!("{at} (shell template)"), Shell::Bash);
        // The runner puts the path of the script it wrote in place of `{0}`, as it is.
        let placeholder = "/tmp/step.sh";
        let mut at_byte = 0;
        while let Some(n) = piece.script[at_byte..].find("{0}").map(|n| n + at_byte) {
            if piece.script[..n].ends_with('$') {
                at_byte = n + 3;
                continue;
            }
            piece.script.replace_range(n..n + 3, placeholder);
            let o = piece.origin[n];
            piece
                .origin
                .splice(n..n + 3, std::iter::repeat_n(o, placeholder.len()));
            at_byte = n + placeholder.len();
        }
        out.pieces.push(piece);
    }
    Chosen { shell, note: None }
}

/// Whether a `shell:` template's words are one of the runner's names alone, or a bash or sh
/// named plainly, then plain options, then `{0}` last.
fn plain_template(words: &[&str]) -> bool {
    match words {
        [] => false,
        [one] => plain_shell_program(one),
        [program, middle @ .., last] => {
            if *last != "{0}" || !plain_shell_program(program) {
                return false;
            }
            // The runner's own bash template adds these two; they make bash read less.
            let options: Vec<&str> = middle
                .iter()
                .copied()
                .filter(|w| *w != "--noprofile" && *w != "--norc")
                .chain(std::iter::once("-c"))
                .collect();
            // The same options a plain `SHELL` may hold, with the script a file instead of `-c`.
            plain_shell_flags(&options)
        }
    }
}

/// Where `key` is written in the map `n`, else the start of the file (a key that arrived
/// through a merge).
fn key_span(doc: &Doc, n: &Node, key: &str) -> Span {
    let Some(Node::Map(members)) = doc.resolve(n) else {
        return Span::new(0, 0);
    };
    members
        .iter()
        .rev()
        .find_map(|(k, _)| doc.scalar(k).filter(|s| s.value == key))
        .map_or(Span::new(0, 0), |s| Span::new(s.start, s.end))
}

/// The default shell of a job with no `shell:`: bash on GitHub's hosted Linux and macOS
/// runners (labels `ubuntu-…`, `macos-…`), pwsh on Windows ones. Any other runner — a
/// self-hosted one, a label scan does not know, a runner chosen by an expression — may be
/// Windows, or have a shell of its own, so its default shell asks.
fn runner_default(doc: &Doc, runs_on: Option<&Node>) -> Chosen {
    let mut labels = Vec::new();
    let mut stack: Vec<&Node> = runs_on.into_iter().collect();
    while let Some(n) = stack.pop() {
        match doc.resolve(n) {
            Some(Node::Scalar(s)) => labels.push(s.value.as_str()),
            Some(Node::Seq(items)) => stack.extend(items),
            Some(Node::Map(members)) => stack.extend(members.iter().map(|(_, v)| v)),
            Some(Node::Alias(_)) | None => {}
        }
    }
    if labels
        .iter()
        .any(|l| l.to_ascii_lowercase().contains("windows"))
    {
        return Chosen {
            shell: Shell::Unsupported("pwsh (the default shell on Windows runners)".into()),
            note: None,
        };
    }
    let hosted = |l: &&str| hosted_label(l);
    // `runs-on: {group: …, labels: …}` picks a runner group: self-hosted or larger runners
    // whose names and systems their owner chooses (red team s9: `group: ubuntu-runners`).
    let group = matches!(runs_on.and_then(|n| doc.resolve(n)), Some(Node::Map(_)));
    let note = if group {
        Some("the job runs on a runner group (`runs-on: {group: …}`): self-hosted or larger runners whose system and shell their owner chooses (a Windows one runs pwsh), so set `shell: bash`".to_string())
    } else if labels.is_empty() {
        Some("the job names no runner scan knows, and a runner's default shell may be pwsh or another: set `shell: bash`".to_string())
    } else {
        labels.iter().find(|l| !hosted(l)).map(|l| {
            format!("the runner `{l}` is not one of GitHub's hosted Linux or macOS runners: it may be Windows (default shell pwsh) or have a shell of its own, so set `shell: bash`")
        })
    };
    Chosen {
        shell: Shell::Bash,
        note,
    }
}

/// Whether `label` names one of GitHub's hosted Linux or macOS runner images — `ubuntu-latest`,
/// `ubuntu-24.04`, `ubuntu-24.04-arm`, `ubuntu-slim`, `macos-latest`, `macos-15`,
/// `macos-15-xlarge`, … — and nothing else: `ubuntu-build-box` is a self-hosted or larger
/// runner's label, which may be Windows (red team s9).
fn hosted_label(label: &str) -> bool {
    let version = |v: &str, dots: bool| {
        !v.is_empty()
            && v.split('.').count() <= if dots { 2 } else { 1 }
            && v.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    if let Some(rest) = label.strip_prefix("ubuntu-") {
        let rest = rest.strip_suffix("-arm").unwrap_or(rest);
        return matches!(rest, "latest" | "slim") || version(rest, true);
    }
    if let Some(rest) = label.strip_prefix("macos-") {
        let rest = ["-large", "-xlarge", "-intel"]
            .iter()
            .find_map(|s| rest.strip_suffix(s))
            .unwrap_or(rest);
        return rest == "latest" || version(rest, false);
    }
    false
}

fn steps(doc: &Doc, text: &str, parent: &Node, at: &str, shell: &Chosen, out: &mut Extracted) {
    let Some(Node::Seq(steps)) = doc.get(parent, "steps").and_then(|s| doc.resolve(s)) else {
        return;
    };
    for (n, step) in steps.iter().enumerate() {
        let context = format!("{at}.steps[{n}]");
        if let Some(uses) = doc.get(step, "uses").and_then(|u| doc.scalar(u))
            && uses.value.starts_with("docker://")
        {
            docker_step(doc, text, step, uses, &context, out);
            continue;
        }
        if let Some(uses) = doc.get(step, "uses").and_then(|u| doc.scalar(u))
            && inline_code_action(&uses.value)
        {
            // Red team s10: this action's code is in the file (`with.script`), and it may run
            // any command, so it is not "an action whose code is elsewhere".
            out.problem(
                ScanCode::Unmodelled,
                Span::new(uses.start, uses.end),
                format!(
                    "`{}` runs the JavaScript of its `with.script`, which may run any command: scan does not read JavaScript",
                    uses.value
                ),
            );
            continue;
        }
        let Some(run) = doc.get(step, "run").and_then(|r| doc.scalar(r)) else {
            continue;
        };
        env_keys(doc, step, &format!("the `env:` of {context}"), out);
        let chosen = match doc.get(step, "shell") {
            Some(s) => shell_value(doc, text, s, &format!("{context}.shell"), out),
            None => shell.clone(),
        };
        let mut piece = script(text, run, &format!("{context}.run"), chosen.shell);
        if let Some(note) = chosen.note {
            piece.notes.push((ScanCode::UnsupportedShell, note));
        }
        out.pieces.push(piece);
    }
}

/// An action that runs code written in the workflow itself (`actions/github-script`, any
/// version or fork path spelt that way).
fn inline_code_action(uses: &str) -> bool {
    let name = uses.split('@').next().unwrap_or(uses);
    name.eq_ignore_ascii_case("actions/github-script")
}

/// A `uses: docker://image` step runs the image's program in a container that mounts the
/// workspace: a program scan does not see, so it asks; an `entrypoint` with its `args` is
/// analysed as the command it names.
fn docker_step(
    doc: &Doc,
    text: &str,
    step: &Node,
    uses: &Scalar,
    context: &str,
    out: &mut Extracted,
) {
    out.problem(
        ScanCode::Unmodelled,
        Span::new(uses.start, uses.end),
        format!(
            "`{}` runs a container image's program with the workspace mounted: a program scan does not see",
            uses.value
        ),
    );
    env_keys(doc, step, &format!("the `env:` of {context}"), out);
    let with = doc.get(step, "with");
    let part = |key: &str| {
        with.and_then(|w| doc.get(w, key))
            .and_then(|v| doc.scalar(v))
    };
    let Some(entrypoint) = part("entrypoint") else {
        return;
    };
    let mut piece = script(
        text,
        entrypoint,
        &format!("{context}.with.entrypoint"),
        Shell::Bash,
    );
    if let Some(args) = part("args") {
        let rest = script(text, args, "", Shell::Bash);
        let join_at = piece.origin.pop().unwrap_or(entrypoint.end);
        piece.script.push(' ');
        piece.origin.push(join_at);
        let shift = piece.script.len();
        piece.script.push_str(&rest.script);
        piece.origin.extend(rest.origin);
        piece.templates.extend(
            rest.templates
                .into_iter()
                .map(|(s, t)| (Span::new(s.start + shift, s.end + shift), t)),
        );
    }
    out.pieces.push(piece);
}

/// The script of a `run:` scalar, each byte mapped to the file, `${{ }}` replaced.
fn script(text: &str, run: &Scalar, context: &str, shell: Shell) -> Piece {
    let origin = align(text, run);
    let value = &run.value;
    let mut b = ScriptBuf::default();
    let mut i = 0;
    while i < value.len() {
        if value[i..].starts_with("${{") {
            let end = expression_end(&value[i..]).map_or(value.len(), |n| i + n);
            b.push_template(&value[i..end], origin[i]);
            i = end;
            continue;
        }
        let Some(c) = value[i..].chars().next() else {
            break;
        };
        b.push_char(c, origin[i]);
        i += c.len_utf8();
    }
    b.finish(context, run.end, shell)
}

/// The length of the `${{ … }}` expression `s` starts with, its strings skipped; `None` when
/// it never closes.
fn expression_end(s: &str) -> Option<usize> {
    let mut in_string = false;
    let bytes = s.as_bytes();
    let mut i = 3;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => in_string = !in_string,
            b'}' if !in_string && bytes.get(i + 1) == Some(&b'}') => return Some(i + 2),
            _ => {}
        }
        i += 1;
    }
    None
}

/// For each byte of the scalar's value, the file offset it was read from: the value's lines
/// are matched against the source lines (after the block indentation), folding spaces and
/// line breaks mapped to the end of the line they replace, escapes to the character that
/// follows them. Positions are for reporting only; what is analysed is the parser's value.
fn align(text: &str, s: &Scalar) -> Vec<usize> {
    let (start, end) = (s.start.min(text.len()), s.end.min(text.len()));
    let block = matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded);
    let header = text[start..].starts_with(['|', '>']);
    // A block scalar's lines are read whole, so that the first one shows the indentation.
    let from = if block && !header {
        text[..start].rfind('\n').map_or(0, |n| n + 1)
    } else {
        start
    };
    let src = &text[from..end.max(from)];
    // The source chunks: each line's content, after the indentation.
    let mut chunks: Vec<(usize, &str)> = Vec::new();
    let mut lines = src.split_inclusive('\n');
    let mut offset = from;
    if block && header {
        // The `|` / `>` header line holds no content.
        if let Some(h) = lines.next() {
            offset += h.len();
        }
    }
    // An explicit indentation indicator (`|2`, `>-1`) fixes the content's indentation at the
    // key's column plus that many spaces, so the first line may be indented more (red team
    // s9: the lines were mapped one place off).
    let header_at = if header {
        Some(start)
    } else {
        // The parser may start the scalar at its first content line: the header then ends the
        // line before.
        let prev_end = from.checked_sub(1);
        prev_end.and_then(|e| {
            let line_start = text[..e].rfind('\n').map_or(0, |n| n + 1);
            text[line_start..e]
                .rfind(['|', '>'])
                .map(|n| line_start + n)
        })
    };
    let mut indent = if block {
        header_at.and_then(|h| explicit_indent(text, h))
    } else {
        None
    };
    for (n, line) in lines.enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let lead = body.len() - body.trim_start_matches(' ').len();
        let skip = if block {
            if indent.is_none() && !body.trim().is_empty() {
                indent = Some(lead);
            }
            indent.unwrap_or(lead).min(lead)
        } else if n == 0 {
            0
        } else {
            body.len() - body.trim_start().len()
        };
        chunks.push((offset + skip, &body[skip..]));
        offset += line.len();
    }
    let mut origin = Vec::with_capacity(s.value.len());
    let (mut chunk, mut pos) = (0, 0);
    let here = |chunk: usize, pos: usize| {
        chunks
            .get(chunk)
            .map_or(s.end, |(at, body): &(usize, &str)| at + pos.min(body.len()))
    };
    for c in s.value.chars() {
        let mut at = here(chunk, pos);
        let body = chunks.get(chunk).map_or("", |(_, b)| *b);
        if body[pos.min(body.len())..].starts_with(c) {
            pos += c.len_utf8();
        } else if c == '\n' || c == ' ' {
            // A line break or a folding space: it stands for the end of this line.
            chunk += 1;
            pos = 0;
        } else if let Some(n) = body.get(pos..).and_then(|rest| rest.find(c)) {
            // An escape (`\"`, `''`) or a quote: the character follows it on this line.
            pos += n;
            at = here(chunk, pos);
            pos += c.len_utf8();
        } else if let Some(n) = chunks
            .get(chunk + 1)
            .and_then(|(_, b)| b.starts_with(c).then_some(0))
        {
            chunk += 1;
            pos = n;
            at = here(chunk, pos);
            pos += c.len_utf8();
        }
        origin.extend(std::iter::repeat_n(at, c.len_utf8()));
    }
    origin
}

/// The content indentation a block scalar header at `header` (the `|` or `>`) gives
/// explicitly: the column of the key on its line (after any `- ` of sequence entries) plus
/// its digit; `None` without a digit.
fn explicit_indent(text: &str, header: usize) -> Option<usize> {
    let line_start = text[..header].rfind('\n').map_or(0, |n| n + 1);
    let digit = text[header..]
        .chars()
        .skip(1)
        .take(2)
        .find_map(|c| c.to_digit(10))?;
    let before = &text[line_start..header];
    let mut column = before.len() - before.trim_start_matches(' ').len();
    let mut rest = &before[column..];
    while let Some(r) = rest.strip_prefix('-') {
        let spaces = r.len() - r.trim_start_matches(' ').len();
        if spaces == 0 {
            break;
        }
        column += 1 + spaces;
        rest = &r[spaces..];
    }
    Some(column + digit as usize)
}

/// Reads the first document into nodes; `Ok(None)` for an empty file.
fn parse(text: &str) -> Result<Option<Doc>, Problem> {
    // saphyr's markers count characters; the reports need bytes.
    let bytes_at: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let byte = |chars: usize| bytes_at.get(chars).copied().unwrap_or(text.len());
    /// An open collection: its items (keys and values alternate in a map) and its anchor.
    struct Open {
        map: bool,
        items: Vec<Node>,
        anchor: usize,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut anchors = HashMap::new();
    let mut root = None;
    let mut finish = |node: Node, anchor: usize, stack: &mut Vec<Open>, root: &mut Option<Node>| {
        if anchor != 0 {
            anchors.insert(anchor, node.clone());
        }
        match stack.last_mut() {
            Some(open) => open.items.push(node),
            None => {
                if root.is_none() {
                    *root = Some(node);
                }
            }
        }
    };
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| Problem {
            code: ScanCode::MalformedFile,
            message: format!("not valid YAML ({}), so its steps cannot be read", e.info()),
            span: Span::new(byte(e.marker().index()), byte(e.marker().index())),
        })?;
        match event {
            Event::Scalar(value, style, anchor, _) => {
                let node = Node::Scalar(Scalar {
                    value: value.into_owned(),
                    style,
                    start: byte(span.start.index()),
                    end: byte(span.end.index()),
                });
                finish(node, anchor, &mut stack, &mut root);
            }
            Event::Alias(id) => finish(Node::Alias(id), 0, &mut stack, &mut root),
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                stack.push(Open {
                    map: matches!(event, Event::MappingStart(..)),
                    items: Vec::new(),
                    anchor,
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let Some(open) = stack.pop() else { continue };
                let node = if open.map {
                    let mut items = open.items.into_iter();
                    let mut members = Vec::new();
                    while let (Some(k), Some(v)) = (items.next(), items.next()) {
                        members.push((k, v));
                    }
                    Node::Map(members)
                } else {
                    Node::Seq(open.items)
                };
                finish(node, open.anchor, &mut stack, &mut root);
            }
            Event::DocumentEnd if root.is_some() => break,
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => {}
        }
    }
    Ok(root.map(|root| Doc { root, anchors }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrations::scan::test_support::{
        count, env_names, pair, pieces_by_line, scripts, shells,
    };

    #[test]
    fn run_steps_map_back_to_their_lines() {
        let text = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n      - name: many\n        run: |\n          ls\n            echo  hi\n\n          pwd\n      - run: >-\n          echo a\n          b\n";
        let got = pieces_by_line(&extract(text), text);
        assert_eq!(
            got,
            [
                (
                    "jobs.test.steps[1].run".into(),
                    "make test".into(),
                    vec![(7, 14)]
                ),
                (
                    "jobs.test.steps[2].run".into(),
                    "ls\n  echo  hi\n\npwd\n".into(),
                    vec![(10, 11), (11, 11), (12, 1), (13, 11)]
                ),
                (
                    "jobs.test.steps[3].run".into(),
                    "echo a b".into(),
                    vec![(15, 11)]
                ),
            ]
        );
    }

    /// s7 red team: a Docker or JavaScript action's `action.yml` ran code scan never saw and
    /// reported allow; only a composite action's steps are in the file.
    #[test]
    fn only_composite_actions_hold_their_commands() {
        let unmodelled = |text: &str| count(&extract(text), ScanCode::Unmodelled);
        assert_eq!(
            unmodelled(
                "runs:\n  using: docker\n  image: docker://alpine\n  entrypoint: sh\n  args: ['-c', 'rm -rf v']\n"
            ),
            1
        );
        assert_eq!(
            unmodelled("runs:\n  using: node20\n  main: dist/index.js\n"),
            1
        );
        assert_eq!(unmodelled("runs:\n  steps: []\n"), 1);
        assert_eq!(
            unmodelled("runs:\n  using: composite\n  steps:\n    - run: ls\n      shell: bash\n"),
            0
        );
    }

    #[test]
    fn expressions_become_run_time_values() {
        let text = "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.issue.title }} done\n";
        let x = extract(text);
        let p = &x.pieces[0];
        assert_eq!(p.script, "echo ${____________________________} done");
        assert_eq!(p.templates.len(), 1);
        assert_eq!(p.templates[0].1, "${{ github.event.issue.title }}");
    }

    #[test]
    fn shells_come_from_the_step_the_job_the_workflow_or_the_runner() {
        let shells = |text: &str| shells(&extract(text));
        let text = "defaults:\n  run:\n    shell: bash\njobs:\n  a:\n    runs-on: windows-latest\n    steps:\n      - run: ls\n      - run: dir\n        shell: pwsh\n  b:\n    runs-on: windows-latest\n    defaults:\n      run:\n        shell: python\n    steps:\n      - run: print(1)\n";
        assert_eq!(
            shells(text),
            [
                Shell::Bash,
                Shell::Unsupported("pwsh".into()),
                Shell::Unsupported("python".into())
            ]
        );
        let windows =
            "jobs:\n  a:\n    runs-on: [self-hosted, Windows]\n    steps:\n      - run: ls\n";
        assert!(matches!(&shells(windows)[..], [Shell::Unsupported(_)]));
        let matrix = "jobs:\n  a:\n    runs-on: ${{ matrix.os }}\n    steps:\n      - run: ls\n";
        let x = extract(matrix);
        assert_eq!(x.pieces[0].shell, Shell::Bash);
        assert_eq!(x.pieces[0].notes.len(), 1);
    }

    #[test]
    fn aliases_are_followed_and_bad_yaml_is_a_problem() {
        let text = "x: &cmd rm -rf /\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: *cmd\n";
        assert_eq!(extract(text).pieces[0].script, "rm -rf /");
        let merged = "x: &step\n  run: rm -rf /\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - <<: *step\n        name: n\n";
        assert_eq!(extract(merged).pieces[0].script, "rm -rf /");
        let bad = extract("jobs: [\n");
        assert!(bad.pieces.is_empty());
        assert_eq!(bad.problems[0].code, ScanCode::MalformedFile);
    }

    #[test]
    fn only_github_hosted_images_count_as_hosted_runners() {
        for hosted in [
            "ubuntu-latest",
            "ubuntu-24.04",
            "ubuntu-22.04-arm",
            "ubuntu-slim",
            "macos-latest",
            "macos-15",
            "macos-14-xlarge",
            "macos-15-intel",
        ] {
            assert!(hosted_label(hosted), "{hosted}");
        }
        for other in [
            "ubuntu-build-box",
            "ubuntu-runners",
            "ubuntu-",
            "ubuntu-24.04.1",
            "macos-15.1",
            "macos-my-mini",
            "windows-latest",
            "self-hosted",
        ] {
            assert!(!hosted_label(other), "{other}");
        }
    }

    #[test]
    fn shell_templates_are_plain_only_with_listed_options() {
        let plain = |s: &str| plain_template(&s.split_whitespace().collect::<Vec<_>>());
        for ok in [
            "bash",
            "/bin/sh",
            "bash {0}",
            "bash -e {0}",
            "bash --noprofile --norc -eo pipefail {0}",
            "sh -e {0}",
            "/usr/bin/bash -eux {0}",
        ] {
            assert!(plain(ok), "{ok}");
        }
        for bad in [
            "bash -c \"rm -rf v\" {0}",
            "bash ./evil.sh {0}",
            "env BASH_ENV=./evil.sh bash {0}",
            "bash --rcfile ./evil.sh -i {0}",
            "bash {0} arg",
            "bash -l {0}",
            "/tmp/bash {0}",
            "bash -e",
        ] {
            assert!(!plain(bad), "{bad}");
        }
    }

    #[test]
    fn env_maps_at_every_level_and_docker_steps_are_recorded() {
        let text = "env:\n  A: 1\njobs:\n  j:\n    runs-on: ubuntu-latest\n    env:\n      B: 2\n    container:\n      image: x\n      env:\n        C: 3\n    steps:\n      - uses: actions/checkout@v4\n        env:\n          IGNORED: 1\n      - run: ls\n        env:\n          D: 4\n      - uses: docker://alpine\n        env:\n          E: 5\n        with:\n          entrypoint: ls\n          args: -la\n";
        let x = extract(text);
        assert_eq!(env_names(&x), ["A", "B", "C", "D", "E"]);
        let codes: Vec<&str> = x.problems.iter().map(|p| p.code.as_str()).collect();
        // The job's container (its image's shell reads every step) and the docker step.
        assert_eq!(codes, ["unmodelled_construct", "unmodelled_construct"]);
        assert_eq!(
            scripts(&x),
            [
                pair("jobs.j.steps[1].run", "ls"),
                pair("jobs.j.steps[2].with.entrypoint", "ls -la")
            ]
        );
    }
}

//! scan/dockerfile: the `RUN` instructions of a Dockerfile as Docker hands them to the shell —
//! continuation lines joined and comment lines inside them dropped (with the `# escape=`
//! directive's character), heredocs (`RUN <<EOF`) as scripts, the exec form (`RUN ["a", "b"]`)
//! as a quoted command, under the shell a `SHELL` instruction chose. It never decides safety.
//!
//! The modelled subset, outside which a construct asks as unmodelled:
//! - parser directives `# syntax=` (Docker's own frontend only) and `# escape=`, read at the
//!   top until the first other line; any other directive, a `#!` first line, or a comment there
//!   that looks like a directive in another form asks;
//! - continuations as Docker's `([^\\])\\[ \t]*$` reads them, spaces and tabs as the only blanks
//!   (any other white space asks);
//! - heredocs on `RUN`, `COPY`, `ADD` only as a `<<WORD` (`<<-`, quoted word) of its own after a
//!   blank, unquoted: BuildKit and the shell agree there, and any other `<<` asks;
//!   `COPY`/`ADD` bodies are file content;
//! - `RUN` options `--mount` (cache, tmpfs, secret, ssh, bind; no `env=`) at a target outside
//!   the directories programs, the shell and their libraries are found in ([`PROGRAM_DIRS`]),
//!   `--network`, `--security=sandbox`; `COPY`/`ADD` to a destination outside them (a relative
//!   one after a plain `WORKDIR`);
//! - the shell: `/bin/sh -c` by default (read as sh), a stage built `FROM` an earlier stage
//!   keeping its `SHELL`; `ENV` and `ARG` defaults (a bare stage `ARG` taking a global default)
//!   are judged as the environment of every RUN.

use std::collections::{HashMap, HashSet};

use super::json::{self, Value};
use super::{
    EnvScope, EnvUse, Extracted, Piece, ScanCode, ScriptBuf, Shell, interpreter_name,
    plain_shell_flags, plain_shell_program, shebang_shell, shell_named,
};
use crate::Span;

/// One physical line: its offset and its text without the line break.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    start: usize,
    text: &'a str,
}

pub(super) fn extract(text: &str) -> Extracted {
    let lines: Vec<Line> = physical_lines(text);
    let mut out = Extracted::default();
    let (escape, heredocs) = directives(&lines, &mut out);
    odd_white_space(text, &mut out);
    // Docker's default shell is `/bin/sh -c`; a stage built FROM an earlier stage starts with
    // that stage's SHELL (it is part of the image config it inherits).
    let mut shell = Shell::Sh;
    let mut stage_shells: HashMap<String, Shell> = HashMap::new();
    // The working directory of the stage, when this file sets it plainly (a relative COPY
    // destination lands there); `None` before any WORKDIR (the image's own) or after one
    // with a variable.
    let mut workdir: Option<String> = None;
    let mut stage_workdirs: HashMap<String, Option<String>> = HashMap::new();
    let mut stage: Option<String> = None;
    let mut in_stage = false;
    // Global `ARG NAME=default` before the first FROM: a bare `ARG NAME` in a stage takes it.
    let mut global_defaults: HashSet<String> = HashSet::new();
    let mut global_values: HashMap<String, String> = HashMap::new();
    // `ONBUILD RUN` pieces of the current stage: they run in a child built FROM it, under the
    // stage's final `SHELL`, not the one at their line (red team s9).
    let mut onbuild_runs: Vec<usize> = Vec::new();
    // `ONBUILD COPY`/`ADD` of the current stage, with where their arguments start.
    let mut onbuild_copies: Vec<(Piece, usize, String)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        // One instruction: its physical lines joined as Docker joins them.
        let mut parts: Vec<Line> = Vec::new();
        loop {
            let line = lines[i];
            i += 1;
            match continued(line.text, escape) {
                Some(content) => parts.push(Line {
                    start: line.start,
                    text: content,
                }),
                None => {
                    parts.push(line);
                    break;
                }
            }
            // Docker drops comment and empty lines inside a continued instruction.
            while i < lines.len() && {
                let t = lines[i].text.trim_start();
                t.is_empty() || t.starts_with('#')
            } {
                i += 1;
            }
            if i >= lines.len() {
                break;
            }
        }
        let mut joined = ScriptBuf::default();
        for p in &parts {
            joined.push_str(p.text, p.start);
        }
        let end_offset = parts.last().map_or(0, |p| p.start + p.text.len());
        let instruction = joined.finish("", end_offset, Shell::Bash);
        let (keyword, rest) = split_word(&instruction.script, 0);
        let keyword = keyword.to_ascii_uppercase();
        let keyword_span = Span::new(
            instruction.origin[skip_ws(&instruction.script, 0).min(rest)],
            instruction.origin[rest],
        );
        if !heredocs && instruction.script.contains("<<") {
            out.problem(
                ScanCode::Unmodelled,
                keyword_span,
                "a `<<` under a `# syntax=` frontend older than 1.4 (or one scan cannot date): that frontend has no heredocs, so the lines after it are instructions of their own, which scan reads as the heredoc's body".to_string(),
            );
        }
        if keyword == "ONBUILD" {
            let (inner, inner_rest) = split_word(&instruction.script, rest);
            let inner = inner.to_ascii_uppercase();
            if inner == "RUN" {
                onbuild_runs.push(out.pieces.len());
                let piece = run(
                    &instruction,
                    inner_rest,
                    &Run {
                        shell: &shell,
                        escape,
                        context: "ONBUILD RUN",
                    },
                    &lines,
                    &mut i,
                    &mut out,
                );
                out.pieces.push(piece);
            } else if matches!(inner.as_str(), "COPY" | "ADD")
                && !instruction.script[inner_rest..].contains("<<")
            {
                // It runs in the child, from the working directory the child starts with: this
                // stage's last one, so it is judged when the stage ends (red team s9).
                onbuild_copies.push((instruction.clone(), inner_rest, format!("ONBUILD {inner}")));
            } else if !ONBUILD_PLAIN.contains(&inner.as_str())
                || instruction.script[inner_rest..].contains("<<")
            {
                out.problem(
                    ScanCode::Unmodelled,
                    keyword_span,
                    format!(
                        "`ONBUILD {inner}` runs in every image built FROM this one, where scan cannot follow what it changes"
                    ),
                );
            }
            continue;
        }
        match keyword.as_str() {
            "FROM" => {
                for n in onbuild_runs.drain(..) {
                    out.pieces[n].shell = shell.clone();
                }
                for (copy, at, keyword) in onbuild_copies.drain(..) {
                    copy_destination(&copy, at, &keyword, workdir.as_deref(), &mut out);
                }
                let from = &instruction.script[rest..];
                let (image, name) = from_words(from);
                let image = from_image(image, &global_values);
                shell = match &image {
                    Some(image) if windows_image(from, image) => {
                        Shell::Unsupported("cmd (the default shell of a Windows image)".into())
                    }
                    Some(image) => stage_shells.get(image).cloned().unwrap_or(Shell::Sh),
                    // A name scan cannot read may be any earlier stage: one whose shell is not
                    // the default leaves the shell unknown.
                    None if stage_shells.values().any(|s| *s != Shell::Sh) => Shell::Unsupported(
                        "the shell of a stage named through a variable scan cannot read".into(),
                    ),
                    None => Shell::Sh,
                };
                workdir = image
                    .as_ref()
                    .and_then(|image| stage_workdirs.get(image).cloned().flatten());
                stage = name.map(|n| n.to_ascii_lowercase());
                if let Some(n) = &stage {
                    stage_shells.insert(n.clone(), shell.clone());
                    stage_workdirs.insert(n.clone(), workdir.clone());
                }
                in_stage = true;
            }
            "SHELL" => {
                shell = set_shell(&instruction, rest, keyword_span, &mut out);
                if let Some(n) = &stage {
                    stage_shells.insert(n.clone(), shell.clone());
                }
            }
            "RUN" => {
                let piece = run(
                    &instruction,
                    rest,
                    &Run {
                        shell: &shell,
                        escape,
                        context: "RUN",
                    },
                    &lines,
                    &mut i,
                    &mut out,
                );
                out.pieces.push(piece);
            }
            "COPY" | "ADD" => {
                copy_destination(&instruction, rest, &keyword, workdir.as_deref(), &mut out);
                file_heredocs(&instruction, rest, escape, &lines, &mut i, &mut out);
            }
            "WORKDIR" => {
                let dir = instruction.script[rest..].trim();
                workdir = if dir.contains(['$', '"', '\'', '\\', '`']) || dir.is_empty() {
                    None
                } else if dir.starts_with('/') {
                    Some(dir.to_string())
                } else {
                    workdir.map(|w| format!("{}/{dir}", w.trim_end_matches('/')))
                };
                if let Some(n) = &stage {
                    stage_workdirs.insert(n.clone(), workdir.clone());
                }
            }
            "ENV" => env_keys(
                &instruction,
                rest,
                escape,
                "`ENV`",
                EnvWords::Pairs,
                &mut out,
            ),
            // A build argument is in the environment of every later RUN of its stage; one
            // declared before the first FROM only serves the FROM lines, and the bare
            // `ARG NAME` of a stage that takes its default. Without any default its value is
            // the builder's choice, not this file's.
            "ARG" if in_stage => {
                env_keys(
                    &instruction,
                    rest,
                    escape,
                    "`ARG` (a build argument with a default, in the environment of every later RUN)",
                    EnvWords::Defaults,
                    &mut out,
                );
                env_keys(
                    &instruction,
                    rest,
                    escape,
                    "`ARG` without a default, which takes the default of the `ARG` before the first FROM (in the environment of every later RUN)",
                    EnvWords::Global(&global_defaults),
                    &mut out,
                );
            }
            "ARG" => {
                for (_, word) in shell_words(&instruction.script[rest..], escape) {
                    if let Some((name, value)) = word.split_once('=') {
                        global_defaults.insert(name.to_string());
                        global_values.insert(name.to_string(), value.to_string());
                    }
                }
            }
            k if PLAIN_INSTRUCTIONS.contains(&k) => {}
            _ => out.problem(
                ScanCode::Unmodelled,
                keyword_span,
                format!("`{keyword}` is not a Dockerfile instruction scan knows"),
            ),
        }
    }
    for n in onbuild_runs {
        out.pieces[n].shell = shell.clone();
    }
    for (copy, at, keyword) in onbuild_copies {
        copy_destination(&copy, at, &keyword, workdir.as_deref(), &mut out);
    }
    out
}

/// The image or stage name a `FROM` word names, lower-cased, as BuildKit reads it: quotes
/// removed and `$NAME`/`${NAME}` replaced by the default of a global `ARG` (red team s9:
/// `FROM $B` and `FROM "base"` named an earlier stage, whose `SHELL` scan did not carry
/// over). `None` when a variable has no plain default or another form is used.
fn from_image(word: &str, globals: &HashMap<String, String>) -> Option<String> {
    let mut out = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {}
            '\\' => return None,
            '$' => {
                let braced = chars.next_if_eq(&'{').is_some();
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if braced && chars.next() != Some('}') {
                    return None;
                }
                out.push_str(globals.get(&name)?);
            }
            c => out.push(c),
        }
    }
    (!out.contains('$')).then(|| out.to_ascii_lowercase())
}

/// Whether a `FROM` line builds on a Windows image, whose default shell is `cmd /S /C` (no
/// backslash escapes: `echo "\" & del …` runs the `del`): a `--platform=windows/…` flag or an
/// image Microsoft publishes for Windows (`…/windows/…`, `servercore`, `nanoserver`). Any
/// other image is taken for Linux; its system is not in the file (red team s9).
fn windows_image(from: &str, image: &str) -> bool {
    let platform = from
        .split([' ', '\t'])
        .filter_map(|w| w.strip_prefix("--platform="))
        .any(|p| p.to_ascii_lowercase().starts_with("windows"));
    platform
        || ["windows", "servercore", "nanoserver"]
            .iter()
            .any(|w| image.contains(w))
}

/// The image (or earlier stage) a `FROM` line builds on, and the stage name after `AS`.
fn from_words(text: &str) -> (&str, Option<&str>) {
    let mut words = text
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .skip_while(|w| w.starts_with("--"));
    let image = words.next().unwrap_or("");
    let name = match (words.next(), words.next()) {
        (Some(as_), Some(name)) if as_.eq_ignore_ascii_case("as") => Some(name),
        _ => None,
    };
    (image, name)
}

/// A line Docker continues: it ends (after spaces and tabs) in the escape character with a
/// character before it that is not the escape character too (Docker's `([^\\])\\[ \t]*$`);
/// the text without the escape. `echo \\` at a line's end is an escaped escape, not a
/// continuation.
fn continued(line: &str, escape: char) -> Option<&str> {
    let content = line.trim_end_matches([' ', '\t']).strip_suffix(escape)?;
    let before = content.chars().next_back()?;
    (before != escape).then_some(content)
}

/// Parser directives as Docker reads them: `# key=value` lines at the very top, read until
/// the first line that is not one. Scan models `syntax` (Docker's own frontend passes, any
/// other image reads the file its own way) and `escape`; any other directive, and a `#!` first
/// line (BuildKit skips it when it looks for `# syntax=`, the parser does not), asks. Returns
/// the escape character.
fn directives(lines: &[Line], out: &mut Extracted) -> (char, bool) {
    const OFFICIAL: &[&str] = &["docker/dockerfile", "docker.io/docker/dockerfile"];
    let mut escape = '\\';
    let mut heredocs = true;
    for (n, line) in lines.iter().enumerate() {
        let span = Span::new(line.start, line.start + line.text.len());
        if n == 0 && line.text.starts_with("#!") {
            out.problem(
                ScanCode::Unmodelled,
                span,
                "a `#!` first line: BuildKit skips it when it looks for a `# syntax=` frontend, Docker's parser does not, so scan cannot tell which directives below apply".to_string(),
            );
            break;
        }
        let Some((key, value)) = directive(line.text) else {
            if line.text.trim_start().starts_with('#') && line.text.contains('=') {
                out.problem(
                    ScanCode::Unmodelled,
                    span,
                    "a comment at the top that looks like a parser directive but is not in the plain `# key=value` form scan reads: Docker may read it as one".to_string(),
                );
            }
            break;
        };
        match key.to_ascii_lowercase().as_str() {
            "syntax" => {
                let image = value.split(['@', ':']).next().unwrap_or(value);
                let image = image
                    .strip_prefix("docker.io/")
                    .map_or(image, |i| if i.starts_with("docker/") { i } else { image });
                heredocs = frontend_has_heredocs(value);
                if !OFFICIAL.contains(&image) {
                    let at = line.start + line.text.rfind(value).unwrap_or(0);
                    out.problem(
                        ScanCode::Unmodelled,
                        Span::new(at, at + value.len()),
                        format!(
                            "`# syntax={value}` has the image `{value}` read this Dockerfile: that frontend decides what each instruction runs"
                        ),
                    );
                }
            }
            "escape" if value == "`" => escape = '`',
            "escape" if value == "\\" => escape = '\\',
            _ => {
                out.problem(
                    ScanCode::Unmodelled,
                    span,
                    format!(
                        "`{}` is a parser directive scan does not model (it reads only `# syntax=` and `# escape=`); Docker also stops reading directives at one it does not know",
                        line.text.trim()
                    ),
                );
                break;
            }
        }
    }
    (escape, heredocs)
}

/// Whether the `docker/dockerfile` frontend a `# syntax=` value names reads heredocs
/// (`1.4` and later, `1.3-labs`, the moving tags `1`, `latest`, `labs`). An older one reads
/// `RUN cat <<X` as a shell heredoc with an empty body and the lines after it as
/// instructions (red team s9); a version scan cannot read counts as older.
fn frontend_has_heredocs(value: &str) -> bool {
    let tag = value
        .split('@')
        .next()
        .and_then(|image| image.rsplit_once(':'))
        .map_or("latest", |(_, tag)| tag);
    let (version, labs) = match tag.strip_suffix("-labs") {
        Some(v) => (v, true),
        None => (tag, false),
    };
    if matches!(version, "latest" | "labs" | "1") {
        return true;
    }
    let mut parts = version.split('.');
    let major = parts.next().and_then(|p| p.parse::<u32>().ok());
    let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
    match (major, minor) {
        (Some(1), Some(m)) => m >= 4 || (m == 3 && labs),
        (Some(major), _) => major > 1,
        (None, _) => false,
    }
}

/// A parser directive line, `#` key `=` value with ASCII blanks around them (Docker's
/// `^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$`): the key and the value.
fn directive(line: &str) -> Option<(&str, &str)> {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\x0c' | '\r');
    let rest = line.strip_prefix('#')?.trim_start_matches(blank);
    let key_len = rest
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    let key = &rest[..key_len];
    if !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let value = rest[key_len..]
        .trim_start_matches(blank)
        .strip_prefix('=')?
        .trim_matches(blank);
    (!value.is_empty()).then_some((key, value))
}

/// White space other than space, tab and line break (a no-break space, a form feed, a lone
/// carriage return): Docker and scan may split words or continuations differently there.
fn odd_white_space(text: &str, out: &mut Extracted) {
    let odd = text.char_indices().find(|&(i, c)| {
        c.is_whitespace()
            && !matches!(c, ' ' | '\t' | '\n')
            && !(c == '\r' && text[i + 1..].starts_with('\n'))
    });
    if let Some((at, c)) = odd {
        out.problem(
            ScanCode::Unmodelled,
            Span::new(at, at + c.len_utf8()),
            format!(
                "the white space character U+{:04X}: Docker reads only spaces and tabs as blanks, scan does not model how it splits words or continues lines around others",
                u32::from(c)
            ),
        );
    }
}

/// Directories where programs, the shell and the libraries they load are found, on the
/// `PATH` of common images (`/usr/local/cargo/bin` of the Rust images, `/go/bin` of Go's) or
/// read by the loader and the shell (`/etc`). A `RUN --mount` or a `COPY`/`ADD` that puts
/// files in one of them, or over a directory holding one, changes what a later command runs.
const PROGRAM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/local/lib",
    "/etc",
    "/opt",
    "/usr/local/cargo/bin",
    "/root/.cargo/bin",
    "/root/.local/bin",
    "/go/bin",
    "/usr/local/go/bin",
    "/proc",
    "/sys",
    "/dev",
];

/// Whether the absolute, plain path `target` is a directory of [`PROGRAM_DIRS`], inside one,
/// or above one (`/usr`, `/`), a home directory (`/root`, `/home/NAME`) or a dotfile or
/// dot-directory anywhere (`.gitconfig`, `.config/`). A path with `..`, a variable or not
/// absolute counts too.
fn covers_programs(target: &str) -> bool {
    if !target.starts_with('/') || target.contains(['$', '\\', '"', '\'']) {
        return true;
    }
    let parts: Vec<&str> = target
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return true;
    }
    // A home directory and the dotfiles in any directory are configuration the allowed
    // programs read (`git status` runs `core.fsmonitor` from `/root/.gitconfig`; red team s9).
    let home = matches!(parts.as_slice(), ["root"] | ["home"] | ["home", _]);
    // `.cache` holds caches (pip's, cargo's), which no program reads as configuration.
    if home || parts.iter().any(|p| p.starts_with('.') && *p != ".cache") {
        return true;
    }
    let path = format!("/{}", parts.join("/"));
    PROGRAM_DIRS.iter().any(|d| {
        path == *d
            || path.starts_with(&format!("{d}/"))
            || path == "/"
            || d.starts_with(&format!("{path}/"))
    })
}

/// `RUN --mount=…`: the mount types and options scan models (a cache, a tmpfs, a secret file,
/// an ssh socket, a bind of the context or a stage), each at a target that is not a program
/// directory ([`covers_programs`]); `--network` and `--security=sandbox`. `None` when the
/// flag is in that subset, else why not.
fn run_flag_problem(flag: &str) -> Option<String> {
    const MOUNT_KEYS: &[&str] = &[
        "type",
        "target",
        "dst",
        "destination",
        "id",
        "sharing",
        "mode",
        "uid",
        "gid",
        "required",
        "size",
        "ro",
        "readonly",
        "rw",
        "readwrite",
        "source",
        "src",
        "from",
    ];
    if let Some(network) = flag.strip_prefix("--network=") {
        return (!["default", "none", "host"].contains(&network))
            .then(|| format!("`{flag}` is a network mode scan does not know"));
    }
    if flag == "--security=sandbox" {
        return None;
    }
    let Some(mount) = flag.strip_prefix("--mount=") else {
        return Some(format!("`{flag}` is a RUN option scan does not model"));
    };
    let mut kind = "bind";
    let mut target = None;
    for option in mount.split(',') {
        let (key, value) = option.split_once('=').unwrap_or((option, ""));
        let key = key.to_ascii_lowercase();
        if !MOUNT_KEYS.contains(&key.as_str()) {
            return Some(format!(
                "`{flag}`: the mount option `{key}` is not one scan models (`env=` puts a secret in a variable such as `BASH_ENV`)"
            ));
        }
        match key.as_str() {
            "type" => kind = value,
            "target" | "dst" | "destination" => target = Some(value),
            _ => {}
        }
    }
    if !["cache", "tmpfs", "secret", "ssh", "bind"].contains(&kind) {
        return Some(format!(
            "`{flag}`: scan does not model the mount type `{kind}`"
        ));
    }
    // A secret or an ssh socket without a target lands under /run.
    let target = match (target, kind) {
        (Some(t), _) => t,
        (None, "secret" | "ssh") => return None,
        (None, _) => return Some(format!("`{flag}` names no target")),
    };
    covers_programs(target).then(|| {
        format!(
            "`{flag}` mounts files at `{target}`, where programs, the shell, the libraries they load or the configuration they read are found: the command may run what the mount holds"
        )
    })
}

/// `COPY`/`ADD`: files put where programs, the shell or their libraries are found change
/// what every later `RUN` runs, so the destination must be a plain path outside
/// [`PROGRAM_DIRS`]; a relative one counts from a `WORKDIR` this file set plainly.
fn copy_destination(
    instruction: &Piece,
    rest: usize,
    keyword: &str,
    workdir: Option<&str>,
    out: &mut Extracted,
) {
    let script = &instruction.script;
    let mut at = skip_blanks(script, rest);
    while script[at..].starts_with("--") {
        let end = script[at..]
            .find([' ', '\t'])
            .map_or(script.len(), |n| at + n);
        at = skip_blanks(script, end);
    }
    let dest = match exec_form(instruction, at) {
        Some(argv) => argv.last().map(|a| a.0.clone()),
        None => script[at..]
            .split([' ', '\t'])
            .rfind(|w| !w.is_empty())
            .map(str::to_string),
    };
    let Some(dest) = dest else {
        return;
    };
    let resolved = if dest.starts_with('/') {
        Some(dest.clone())
    } else {
        workdir.map(|w| format!("{}/{dest}", w.trim_end_matches('/')))
    };
    let why = match &resolved {
        None => Some(format!(
            "`{keyword}` to `{dest}`, a path relative to a working directory this file does not set plainly (the image's own, or one with a variable): it may be a directory programs are found in"
        )),
        Some(path) if covers_programs(path) => Some(format!(
            "`{keyword}` puts files at `{path}`, where programs, the shell, the libraries they load or the configuration they read are found: a later RUN may run them"
        )),
        Some(_) => None,
    };
    if let Some(message) = why {
        let start = instruction.origin[skip_ws(script, 0)];
        let end = instruction.origin[script.len()];
        out.problem(ScanCode::Unmodelled, Span::new(start, end), message);
    }
}

/// Instructions that run nothing at build time and change neither the shell nor the
/// environment of a `RUN` (`CMD`, `ENTRYPOINT` and `HEALTHCHECK` run in the container;
/// `COPY`, `ADD` and `WORKDIR` are read for where files land).
const PLAIN_INSTRUCTIONS: &[&str] = &[
    "COPY",
    "ADD",
    "WORKDIR",
    "LABEL",
    "EXPOSE",
    "CMD",
    "ENTRYPOINT",
    "USER",
    "VOLUME",
    "STOPSIGNAL",
    "HEALTHCHECK",
    "MAINTAINER",
];

/// What `ONBUILD` may hold without a problem: the plain instructions that change nothing a
/// later instruction of the child reads (`ONBUILD RUN` is analysed like a `RUN`, `ONBUILD
/// COPY`/`ADD` judged by their destination; `ONBUILD WORKDIR` moves the child's relative
/// `COPY` where scan cannot follow, so it asks: red team s9).
const ONBUILD_PLAIN: &[&str] = &[
    "LABEL",
    "EXPOSE",
    "CMD",
    "ENTRYPOINT",
    "USER",
    "VOLUME",
    "STOPSIGNAL",
    "HEALTHCHECK",
    "MAINTAINER",
];

/// `SHELL [...]`: the shell every later `RUN` of the stage runs under. bash or sh named plainly
/// with plain options and a final `-c` is the shell; anything more is analysed as the command
/// it is, with the `RUN` text after it.
fn set_shell(instruction: &Piece, rest: usize, keyword: Span, out: &mut Extracted) -> Shell {
    let Some(argv) = exec_form(instruction, rest) else {
        return Shell::Unsupported("a SHELL that is not a JSON array".into());
    };
    let Some(name) = argv.first().and_then(|a| interpreter_name(&a.0)) else {
        return Shell::Unsupported("an empty SHELL".into());
    };
    let shell = shell_named(&name);
    if !shell.analysed() {
        return shell;
    }
    let words: Vec<&str> = argv.iter().map(|a| a.0.as_str()).collect();
    if plain_shell_program(words[0]) && plain_shell_flags(&words[1..]) {
        return shell;
    }
    out.problem(
        ScanCode::ShellOptions,
        keyword,
        format!(
            "Docker runs every later RUN as {} followed by the RUN text: what this SHELL adds to a plain `sh -c` runs too (analysed as a command)",
            serde_json::to_string(&words).unwrap_or_default()
        ),
    );
    out.pieces
        .push(quoted_argv(&argv, instruction, rest, "SHELL"));
    shell
}

/// How the words after `ENV`/`ARG` name variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnvWords<'a> {
    /// `ENV NAME=value …`, or the old `ENV NAME value`.
    Pairs,
    /// `ARG NAME[=default] …`: only names with a default are set by this file.
    Defaults,
    /// `ARG NAME …` in a stage: a bare name takes the default an `ARG` before the first FROM
    /// gave it (these names).
    Global(&'a HashSet<String>),
}

/// Records the variables an `ENV` or `ARG` sets, each at its name.
fn env_keys(
    instruction: &Piece,
    rest: usize,
    escape: char,
    how: &str,
    words: EnvWords,
    out: &mut Extracted,
) {
    let script = &instruction.script;
    let text = &script[rest..];
    let items = shell_words(text, escape);
    let old_form = words == EnvWords::Pairs && items.first().is_some_and(|(_, w)| !w.contains('='));
    for (n, (at, word)) in items.iter().enumerate() {
        let name = match (word.split_once('='), words) {
            (Some(_), EnvWords::Global(_)) => continue,
            (None, EnvWords::Global(names)) if names.contains(word.as_str()) => word.as_str(),
            (Some((name, _)), _) => name,
            (None, _) if old_form && n == 0 => word.as_str(),
            (None, _) => continue,
        };
        if old_form && n > 0 {
            break;
        }
        let start = rest + at;
        let span = Span::new(
            instruction.origin[start],
            instruction.origin[(start + name.len()).min(instruction.origin.len() - 1)],
        );
        out.env.push(EnvUse {
            name: name.to_string(),
            span,
            how: how.to_string(),
            scope: EnvScope::Exported,
        });
    }
}

/// The words of an `ENV`/`ARG` line as Docker splits them: on white space outside quotes,
/// `escape` (the directive's character) escaping the next one, each with its offset (quotes
/// kept: only the name before `=` matters here).
fn shell_words(text: &str, escape: char) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if current.is_none() && !c.is_whitespace() {
            current = Some((i, String::new()));
        }
        let Some((_, word)) = current.as_mut() else {
            continue;
        };
        match (quote, c) {
            _ if escaped => escaped = false,
            (None, c) if c.is_whitespace() => {
                out.extend(current.take());
                continue;
            }
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None | Some('"'), c) if c == escape => escaped = true,
            _ => {}
        }
        word.push(c);
    }
    out.extend(current);
    out
}

/// An exec-form argument list as one quoted command (`'a' 'b'`), each byte mapped to the file.
#[allow(clippy::type_complexity, reason = "the triple exec_form returns")]
fn quoted_argv(
    argv: &[(String, Vec<usize>, (usize, usize))],
    instruction: &Piece,
    at: usize,
    context: &str,
) -> Piece {
    let mut b = ScriptBuf::default();
    for (n, (arg, origin, (quote_at, close_at))) in argv.iter().enumerate() {
        if n > 0 {
            b.push_char(' ', *quote_at);
        }
        b.push_char('\'', *quote_at);
        for (i, c) in arg.char_indices() {
            if c == '\'' {
                b.push_str("'\\''", origin[i]);
            } else {
                b.push_char(c, origin[i]);
            }
        }
        b.push_char('\'', *close_at);
    }
    let end = argv
        .last()
        .map_or(instruction.origin[at], |(_, _, (_, close))| close + 1);
    b.finish(context, end, Shell::Bash)
}

/// How a `RUN` is read: the shell of its stage, the escape character, its context name.
struct Run<'a> {
    shell: &'a Shell,
    escape: char,
    context: &'a str,
}

/// The `RUN` instruction whose text (after the keyword) starts at `rest` of `instruction`;
/// heredoc bodies are read from `lines` at `*next`, which moves past them.
fn run(
    instruction: &Piece,
    rest: usize,
    how: &Run,
    lines: &[Line],
    next: &mut usize,
    out: &mut Extracted,
) -> Piece {
    let context = how.context;
    let script = &instruction.script;
    // Options such as `--mount=type=cache,target=/root/.cache` come before the command.
    // BuildKit's flag reader takes quotes and escapes inside a flag; scan reads flags made of
    // plain characters only.
    let mut at = skip_blanks(script, rest);
    while script[at..].starts_with("--") {
        let word_end = script[at..]
            .find([' ', '\t'])
            .map_or(script.len(), |n| at + n);
        let flag = &script[at..word_end];
        let problem = if flag == "--" || flag.contains(['\\', '"', '\'', '`']) {
            Some(format!(
                "the RUN option `{flag}` holds quotes or escapes: BuildKit reads them inside the option, so where the command starts is not plain to see"
            ))
        } else {
            run_flag_problem(flag)
        };
        if let Some(message) = problem {
            out.problem(
                ScanCode::Unmodelled,
                Span::new(instruction.origin[at], instruction.origin[word_end]),
                message,
            );
        }
        at = skip_blanks(script, word_end);
    }
    if let Some(argv) = exec_form(instruction, at) {
        return quoted_argv(&argv, instruction, at, context);
    }
    let heredocs = heredoc_markers(instruction, at, how.escape, out);
    let mut b = ScriptBuf::default();
    let alone = heredocs.len() == 1 && script[at..].trim() == heredocs[0].marker;
    if !alone {
        for (i, c) in script[at..].char_indices() {
            b.push_char(c, instruction.origin[at + i]);
        }
        if !heredocs.is_empty() {
            b.push_char('\n', instruction.origin[instruction.origin.len() - 1]);
        }
    }
    let mut body_shell = how.shell.clone();
    for (h, doc) in heredocs.iter().enumerate() {
        let mut first = true;
        for (line, content, content_at, end) in heredoc_body(doc, lines, next) {
            if end {
                if !alone {
                    b.push_str(content, content_at);
                    b.push_char('\n', content_at + content.len());
                }
                break;
            }
            if alone && h == 0 && first {
                // BuildKit runs a heredoc that starts with `#!` as a file: the kernel reads
                // its `#!` line.
                if let Some(shebang) = content.strip_prefix("#!") {
                    body_shell = shebang_shell(shebang);
                }
            }
            first = false;
            let (text, text_at) = if alone {
                (content, content_at)
            } else {
                (line.text, line.start)
            };
            b.push_str(text, text_at);
            b.push_char('\n', text_at + text.len());
        }
    }
    let end = b.origin.last().map_or(
        instruction.origin[at.min(instruction.origin.len() - 1)],
        |&o| o + 1,
    );
    b.finish(context, end, body_shell)
}

/// The lines of `doc`'s body from `lines[*next]` on, up to and including its terminator:
/// each line, its content (after `<<-` tabs), where that content starts, and whether it is
/// the terminator. `*next` moves past each line returned.
fn heredoc_body<'a>(
    doc: &'a Heredoc,
    lines: &'a [Line<'a>],
    next: &'a mut usize,
) -> impl Iterator<Item = (Line<'a>, &'a str, usize, bool)> + 'a {
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let line = *lines.get(*next)?;
        *next += 1;
        let content = if doc.strip_tabs {
            line.text.trim_start_matches('\t')
        } else {
            line.text
        };
        let content_at = line.start + (line.text.len() - content.len());
        done = content == doc.word;
        Some((line, content, content_at, done))
    })
}

/// `COPY`/`ADD` heredocs: their bodies are file content, read past without a piece.
fn file_heredocs(
    instruction: &Piece,
    rest: usize,
    escape: char,
    lines: &[Line],
    next: &mut usize,
    out: &mut Extracted,
) {
    for doc in heredoc_markers(instruction, rest, escape, out) {
        for _ in heredoc_body(&doc, lines, next) {}
    }
}

/// A heredoc opened on a `RUN`, `COPY` or `ADD` line.
#[derive(Debug, PartialEq)]
struct Heredoc<'a> {
    /// The whole marker as written (`<<-"EOF"`).
    marker: &'a str,
    /// The terminator word.
    word: String,
    /// `<<-`: leading tabs are stripped from the body and terminator.
    strip_tabs: bool,
}

/// The heredoc markers of an instruction's text from `at`, in order. BuildKit opens a heredoc
/// for each word that starts with `<<` after its own quote removal, bash for each unquoted
/// `<<`: scan reads only the form where both agree — an unquoted `<<`, `<<-` after a blank,
/// then a word of letters, digits, `_`, `.`, `-`, plain or in one pair of quotes, then a blank
/// or the end (a `<<<` here-string is no heredoc to either). Any other `<<` asks.
fn heredoc_markers<'a>(
    instruction: &'a Piece,
    at: usize,
    escape: char,
    out: &mut Extracted,
) -> Vec<Heredoc<'a>> {
    let line = &instruction.script[at..];
    let mut found = Vec::new();
    let mut rest = 0;
    let mut quotes = Quotes::default();
    while let Some(n) = line[rest..].find("<<") {
        let start = rest + n;
        match plain_marker(line, start, escape, &mut quotes) {
            Ok(Some(doc)) => {
                rest = start + doc.marker.len();
                found.push(doc);
            }
            Ok(None) => rest = start + 3,
            Err(()) => {
                let end = line[start..]
                    .find([' ', '\t'])
                    .map_or(line.len(), |e| start + e);
                out.problem(
                    ScanCode::Unmodelled,
                    Span::new(
                        instruction.origin[at + start],
                        instruction.origin[at + end],
                    ),
                    format!(
                        "`{}`: a `<<` BuildKit and the shell may read differently (inside a word, quoted or escaped, or with a terminator that is not a plain word)",
                        &line[start..end]
                    ),
                );
                rest = start + 2;
            }
        }
    }
    found
}

/// The heredoc whose `<<` is at `start` of `line` when it has the plain form
/// (`Ok(Some(…))`), a here-string `<<<` (`Ok(None)`), or `Err` for any other form.
fn plain_marker<'a>(
    line: &'a str,
    start: usize,
    escape: char,
    quotes: &mut Quotes,
) -> Result<Option<Heredoc<'a>>, ()> {
    let after_blank = start == 0 || line[..start].ends_with([' ', '\t']);
    if escape != '\\' || !after_blank || quotes.quoted_at(line, start) {
        return Err(());
    }
    let mut p = start + 2;
    if line[p..].starts_with('<') {
        let ends_word = line[p + 1..].starts_with(|c: char| c != '<');
        return if ends_word { Ok(None) } else { Err(()) };
    }
    let strip_tabs = line[p..].starts_with('-');
    if strip_tabs {
        p += 1;
    }
    let quote = line[p..].chars().next().filter(|c| *c == '"' || *c == '\'');
    if quote.is_some() {
        p += 1;
    }
    let word_len = line[p..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
        .unwrap_or(line.len() - p);
    if word_len == 0 {
        return Err(());
    }
    let word = line[p..p + word_len].to_string();
    p += word_len;
    if let Some(q) = quote {
        if !line[p..].starts_with(q) {
            return Err(());
        }
        p += 1;
    }
    if !(p == line.len() || line[p..].starts_with([' ', '\t'])) {
        return Err(());
    }
    Ok(Some(Heredoc {
        marker: &line[start..p],
        word,
        strip_tabs,
    }))
}

/// Quote state read along a line, so that asking "is this offset quoted?" at increasing
/// offsets costs one pass in all.
#[derive(Debug, Default)]
struct Quotes {
    at: usize,
    quote: Option<char>,
    escaped: bool,
}

impl Quotes {
    /// Whether byte `at` of `line` is inside single or double quotes (a `<<` there is text);
    /// `at` never goes back between calls.
    fn quoted_at(&mut self, line: &str, at: usize) -> bool {
        for c in line[self.at.min(at)..at].chars() {
            match (self.quote, c) {
                _ if self.escaped => self.escaped = false,
                (Some('\''), '\'') | (Some('"'), '"') => self.quote = None,
                (None, '\'' | '"') => self.quote = Some(c),
                (None | Some('"'), '\\') => self.escaped = true,
                _ => {}
            }
        }
        self.at = self.at.max(at);
        self.quote.is_some()
    }
}

/// The exec form starting at `at` of `instruction`: each argument, the file offsets of its
/// bytes, and the offsets of its opening and closing quotes. `None` when the text is not a JSON array of
/// strings (Docker then reads it as the shell form).
#[allow(clippy::type_complexity, reason = "a private triple read in one place")]
fn exec_form(instruction: &Piece, at: usize) -> Option<Vec<(String, Vec<usize>, (usize, usize))>> {
    let script = &instruction.script;
    let at = skip_ws(script, at);
    if !script[at..].starts_with('[') {
        return None;
    }
    let Ok(Value::Array(items)) = json::parse(script.trim_end(), at) else {
        return None;
    };
    items
        .into_iter()
        .map(|v| match v {
            Value::Str(s) => {
                let origin = s.origin.iter().map(|&o| instruction.origin[o]).collect();
                let quotes = (instruction.origin[s.start], instruction.origin[s.end - 1]);
                Some((s.value, origin, quotes))
            }
            Value::Object(_) | Value::Array(_) | Value::Scalar => None,
        })
        .collect()
}

fn physical_lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for l in text.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(Line { start, text: body });
        start += l.len();
    }
    out
}

/// The offset of the first character from `at` that is not a space or a tab.
fn skip_blanks(s: &str, at: usize) -> usize {
    s[at..]
        .find(|c: char| c != ' ' && c != '\t')
        .map_or(s.len(), |n| at + n)
}

fn skip_ws(s: &str, at: usize) -> usize {
    s[at..]
        .find(|c: char| !c.is_whitespace())
        .map_or(s.len(), |n| at + n)
}

/// The word at `at` (after white space) and the offset just past it.
fn split_word(s: &str, at: usize) -> (&str, usize) {
    let start = skip_ws(s, at);
    let end = s[start..]
        .find(char::is_whitespace)
        .map_or(s.len(), |n| start + n);
    (&s[start..end], end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrations::scan::test_support::{
        env_names, pair, pieces_at, problem_lines, scripts, shells,
    };

    /// Each piece's script and the file text at its first byte.
    fn pieces(text: &str) -> Vec<(String, String)> {
        pieces_at(&extract(text), text, 6)
            .into_iter()
            .map(|(_, script, at)| (script, at))
            .collect()
    }

    #[test]
    fn run_instructions_as_docker_hands_them_to_the_shell() {
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        let table: &[(&str, Vec<(String, String)>)] = &[
            ("FROM x\nRUN ls -la\n", vec![s("ls -la", "ls -la")]),
            (
                "RUN apt-get update && \\\n  # a comment\n\n    rm -rf /tmp/x\n",
                vec![s("apt-get update &&     rm -rf /tmp/x", "apt-ge")],
            ),
            (
                "# escape=`\nRUN dir `\n  c:\\\n",
                vec![s("dir   c:\\", "dir `\n")],
            ),
            (
                "run --mount=type=cache,target=/c make\n",
                vec![s("make", "make\n")],
            ),
            (
                "RUN [\"sh\", \"-c\", \"echo 'hi'\"]\n",
                vec![s("'sh' '-c' 'echo '\\''hi'\\'''", "\"sh\", ")],
            ),
            ("RUN [\"ls\", 1]\n", vec![s("[\"ls\", 1]", "[\"ls\",")]),
            (
                "RUN <<EOF\nset -e\nls\nEOF\nRUN pwd\n",
                vec![s("set -e\nls\n", "set -e"), s("pwd", "pwd\n")],
            ),
            (
                "RUN python3 <<'PY'\nprint(1)\nPY\n",
                vec![s("python3 <<'PY'\nprint(1)\nPY\n", "python")],
            ),
            ("ONBUILD RUN id\n", vec![s("id", "id\n")]),
            ("FROM x\n# RUN rm -rf /\nCMD ls\n", vec![]),
        ];
        for (text, want) in table {
            assert_eq!(&pieces(text), want, "{text:?}");
        }
    }

    #[test]
    fn shells_other_than_bash_or_sh_are_unsupported() {
        let shells = |text: &str| shells(&extract(text));
        assert_eq!(
            shells("SHELL [\"/bin/bash\", \"-c\"]\nRUN ls\n"),
            [Shell::Bash]
        );
        assert_eq!(
            shells("SHELL [\"pwsh\", \"-c\"]\nRUN ls\nFROM y\nRUN ls\n"),
            // A stage FROM an image starts with Docker's default `/bin/sh -c`.
            [Shell::Unsupported("pwsh".into()), Shell::Sh]
        );
        assert_eq!(
            shells("RUN <<EOF\n#!/usr/bin/env python3\nprint(1)\nEOF\n"),
            [Shell::Unsupported("#!/usr/bin/env python3".into())]
        );
    }

    #[test]
    fn instructions_and_their_environment_are_allowlisted() {
        #[allow(clippy::type_complexity, reason = "a test table")]
        let table: &[(&str, &[(&str, usize)], &[&str])] = &[
            (
                "# syntax=docker/dockerfile:1.7\nFROM x AS b\nWORKDIR /a\nCOPY . .\nADD a b\nLABEL a=b\nEXPOSE 80\nUSER me\nVOLUME /v\nSTOPSIGNAL x\nHEALTHCHECK CMD ls\nCMD ls\nENTRYPOINT [\"ls\"]\nONBUILD COPY . .\n",
                &[],
                &[],
            ),
            (
                "FROM x\nENV A=1 B=\"two words\" C=3\n",
                &[],
                &["A", "B", "C"],
            ),
            ("FROM x\nENV A one two\n", &[], &["A"]),
            // A build argument before FROM serves FROM only; one without a default is the
            // builder's value.
            ("ARG A=1\nFROM x\nARG B\nARG C=2 D\n", &[], &["C"]),
            (
                "FROM x\nSHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]\n",
                &[],
                &[],
            ),
            (
                "FROM x\nSHELL [\"bash\", \"-lc\"]\n",
                &[("shell_options", 2)],
                &[],
            ),
            (
                "FROM x\nSHELL [\"/opt/bash\", \"-c\"]\n",
                &[("shell_options", 2)],
                &[],
            ),
            (
                "FROM x\nSHELL [\"sh\", \"-c\", \"id\"]\n",
                &[("shell_options", 2)],
                &[],
            ),
            (
                "FROM x\nONBUILD SHELL [\"sh\", \"-c\", \"id\"]\n",
                &[("unmodelled_construct", 2)],
                &[],
            ),
            ("FROM x\nFOO bar\n", &[("unmodelled_construct", 2)], &[]),
            (
                "# syntax=ghcr.io/x/y\nFROM x\n",
                &[("unmodelled_construct", 1)],
                &[],
            ),
        ];
        for (text, problems, env) in table {
            let x = extract(text);
            assert_eq!(&problem_lines(&x, text), problems, "{text:?}");
            assert_eq!(&env_names(&x), env, "{text:?}");
        }
    }

    #[test]
    fn a_shell_with_more_than_plain_options_is_a_command_too() {
        let x =
            extract("FROM x\nSHELL [\"sh\", \"-c\", \"rm -rf /v; sh -c \\\"$0\\\"\"]\nRUN ls\n");
        assert_eq!(
            scripts(&x),
            [
                pair("SHELL", "'sh' '-c' 'rm -rf /v; sh -c \"$0\"'"),
                pair("RUN", "ls")
            ]
        );
        // ONBUILD SHELL does not change this image's shell.
        let x = extract("FROM x\nONBUILD SHELL [\"pwsh\", \"-c\"]\nRUN ls\n");
        assert_eq!(x.pieces[0].shell, Shell::Sh);
    }
}

//! scan/package_json: the commands of an npm `package.json`, each a piece at the column of its
//! string. It never decides safety itself.
//!
//! Fail closed, key by key at the top level:
//! - `scripts`: each script is a piece. npm runs each with `sh -c` and `node_modules/.bin` first
//!   on `PATH`, so every script also asks for that (see [`ScanCode::ProjectPath`]);
//! - keys whose commands other tools run, in the shapes those tools read:
//!   husky v4's `husky.hooks`, `lint-staged`, `simple-git-hooks` and `nodemonConfig`'s `exec`,
//!   `execMap` and `events`. Each command is a piece like a script; any other shape inside them
//!   asks as [`ScanCode::Unmodelled`];
//! - `gypfile: true`, or a `binding.gyp` beside the file with no `install`/`preinstall` script
//!   and no `gypfile: false`: npm runs `node-gyp rebuild` at install, and a `.gyp` file's
//!   actions run any command, so it asks;
//! - keys known to hold no command ([`INERT_KEYS`]) are skipped;
//! - any other key asks as [`ScanCode::Unmodelled`], naming it: a tool scan does not know may
//!   run what it says;
//! - a key written twice in the object or in `scripts` asks (`JSON.parse` keeps the last);
//! - a `server.js` beside the file with no `start` script asks (`npm start` runs
//!   `node server.js`); an `.npmrc` beside it is read as npm reads it (lines end at `\r` or
//!   `\n`) and asks for any key not known to leave `npm run` alone.
//!
//! The shell is sh (dash), and npm looks it up on the same `PATH`, so even a script of
//! builtins asks for [`ScanCode::ProjectPath`].

use std::path::Path;

use super::json::{self, Str, Value};
use super::{Extracted, Problem, ScanCode, ScriptBuf, Shell};
use crate::Span;

/// Top-level keys that hold no command: npm's own package metadata and dependency fields, and
/// tool configs whose tool takes no command line and no program to run from them (a tool may
/// load packages they name from `node_modules`, as the project's scripts do, which
/// `project_path` already asks about). Each entry says which.
pub(super) const INERT_KEYS: &[&str] = &[
    // JSON Schema reference for editors.
    "$schema",
    // npm package metadata (docs.npmjs.com, package.json): text, people, links, file lists.
    "name",
    "version",
    "description",
    "keywords",
    "homepage",
    "bugs",
    "license",
    "licenses",
    "author",
    "contributors",
    "maintainers",
    "funding",
    "files",
    "repository",
    "readme",
    "readmeFilename",
    "private",
    "preferGlobal",
    // Entry points and module resolution: paths other packages import, nothing run here.
    "main",
    "browser",
    "module",
    "type",
    "types",
    "typings",
    "typesVersions",
    "exports",
    "imports",
    "sideEffects",
    "unpkg",
    "jsdelivr",
    "style",
    // Files linked when the package is installed elsewhere; nothing is run by installing it.
    "bin",
    "man",
    "directories",
    // Values scripts see as `npm_package_config_*` variables: names that change no program
    // (a value that is an object or a list asks: tools read those, see `extract`).
    "config",
    // Dependency sets and version pins: what npm, yarn and pnpm install (their install
    // scripts are the dependencies' own, not this file's).
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "optionalDependencies",
    "bundleDependencies",
    "bundledDependencies",
    "overrides",
    "resolutions",
    // Directories of packages of their own: their `package.json` files are files to scan.
    "workspaces",
    // Platform constraints, checked by npm, never run.
    "engines",
    "engineStrict",
    "os",
    "cpu",
    "libc",
    "devEngines",
    // Where and how `npm publish` publishes.
    "publishConfig",
    // Tool configs that take no command from the file: ESLint, Prettier, Jest, Browserslist,
    // Babel, Stylelint, commitlint, XO, standard, AVA, nyc and c8 read options, globs and
    // module names only.
    "eslintConfig",
    "prettier",
    "jest",
    "browserslist",
    "babel",
    "stylelint",
    "commitlint",
    "xo",
    "standard",
    "ava",
    "nyc",
    "c8",
];

/// `.npmrc` keys that make npm run or load nothing (npm's config docs): registries, lockfile,
/// peer-dependency, audit and output switches, and registry credentials (`//host/:_authToken`,
/// which a scan does not print). Any other key — `script-shell`, `node-options`, `shell`,
/// `git`, `init-module`, `prefix`, … — may change what `npm run` runs.
const NPMRC_INERT: &[&str] = &[
    "registry",
    "save-exact",
    "save-prefix",
    "save",
    "engine-strict",
    "fund",
    "audit",
    "audit-level",
    "package-lock",
    "legacy-peer-deps",
    "strict-peer-deps",
    "auto-install-peers",
    "shamefully-hoist",
    "node-linker",
    "loglevel",
    "progress",
    "prefer-offline",
    "prefer-online",
    "prefer-frozen-lockfile",
    "lockfile",
    "always-auth",
    "strict-ssl",
    "update-notifier",
    "ignore-scripts",
    "use-node-version",
];

/// Files beside a package.json that make the other package managers run code of the
/// project's own whenever they run (red team s9); scan does not read them, so each asks.
const RUNNER_FILES: &[(&str, &str)] = &[
    (
        ".yarnrc.yml",
        "Yarn 2+ reads it for every command, and its `yarnPath` and `plugins` are JavaScript files Yarn runs in place of, or inside, itself",
    ),
    (
        ".yarnrc",
        "Yarn 1 reads it for every command, and its `yarn-path` is a JavaScript file Yarn runs in place of itself",
    ),
    (
        ".pnpmfile.cjs",
        "pnpm loads it on every install and runs its hooks: JavaScript of the project's own",
    ),
    (
        ".pnpmfile.mjs",
        "pnpm loads it on every install and runs its hooks: JavaScript of the project's own",
    ),
    (
        "bunfig.toml",
        "Bun reads it for `bun run` and `bun install`, and its `preload` scripts run first",
    ),
];

/// Size past which an `.npmrc` is not read (it asks instead).
const MAX_NPMRC: u64 = 64 * 1024;

/// An `.npmrc` beside a package.json configures how npm runs its scripts (`script-shell` picks
/// the shell each runs in): only keys in [`NPMRC_INERT`], scoped registries and registry
/// credentials pass; anything else, or a file that cannot be read, asks.
fn npmrc_beside(path: &str, at: usize, out: &mut Extracted) {
    let npmrc = Path::new(path).with_file_name(".npmrc");
    let mut ask = |why: String| {
        out.problems.push(Problem {
            code: ScanCode::Unmodelled,
            message: format!("`{}` is beside it: {why}", npmrc.display()),
            span: Span::new(at, at),
        });
    };
    let meta = match std::fs::symlink_metadata(&npmrc) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            return ask(format!(
                "it cannot be read ({e}), and it may set the shell npm runs scripts in"
            ));
        }
    };
    if !meta.is_file() || meta.len() > MAX_NPMRC {
        return ask(
            "it is not a small regular file, and it may set the shell npm runs scripts in".into(),
        );
    }
    let Ok(text) = std::fs::read_to_string(&npmrc) else {
        return ask("it is not UTF-8 text, and it may set the shell npm runs scripts in".into());
    };
    // npm's ini reader ends a line at any run of `\r` and `\n`.
    for line in text.split(['\r', '\n']) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let key = line.split('=').next().unwrap_or("").trim();
        let scoped_registry = key.starts_with('@') && key.ends_with(":registry");
        let credential = key.starts_with("//");
        if !(NPMRC_INERT.contains(&key) || scoped_registry || credential) {
            return ask(format!(
                "its key `{key}` is not one scan knows to leave `npm run` alone (`script-shell` picks the shell every script runs in)"
            ));
        }
    }
}

/// `nodemonConfig` keys that hold no command (nodemon's README, "Config files"): what to watch,
/// delays and output switches.
const NODEMON_INERT: &[&str] = &[
    "watch",
    "ignore",
    "ignoreRoot",
    "ext",
    "delay",
    "verbose",
    "legacyWatch",
    "polling",
    "pollingInterval",
    "signal",
    "colours",
    "restartable",
    "runOnChangeOnly",
    "quiet",
];

pub(super) fn extract(text: &str, path: &str) -> Extracted {
    let mut out = Extracted::default();
    // A byte-order mark is allowed before the object.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let root = match json::parse(text, start) {
        Ok(v) => v,
        Err(e) => {
            out.problems.push(Problem {
                code: ScanCode::MalformedFile,
                message: format!(
                    "not valid JSON ({}), so its scripts cannot be read",
                    e.message
                ),
                span: Span::new(e.offset, e.offset),
            });
            return out;
        }
    };
    let Value::Object(members) = root else {
        return out;
    };
    let mut gypfile = None;
    let mut install_script = false;
    let mut start_script = false;
    duplicate_keys(&members, "", &mut out);
    for (key, value) in &members {
        match key.value.as_str() {
            "scripts" => {
                let Value::Object(scripts) = value else {
                    continue;
                };
                duplicate_keys(scripts, "scripts.", &mut out);
                for (name, script) in scripts {
                    // npm counts a script only when its value is truthy (`@npmcli/run-script`:
                    // `!scripts.install && !scripts.preinstall`): `false`, `null` and `""`
                    // leave npm's default in place (red team s9: `"start": false` still ran
                    // `node server.js`).
                    let Value::Str(s) = script else {
                        if !matches!(script, Value::Scalar) || !scalar_is_falsy(text, name) {
                            unmodelled(
                                &mut out,
                                name,
                                format!(
                                    "`scripts.{}` is not a string: scan does not read what npm makes of it",
                                    name.value
                                ),
                            );
                        }
                        continue;
                    };
                    if s.value.is_empty() {
                        continue;
                    }
                    if matches!(name.value.as_str(), "install" | "preinstall") {
                        install_script = true;
                    }
                    if name.value == "start" {
                        start_script = true;
                    }
                    command(&mut out, &format!("scripts.{}", name.value), s, NPM_PATH);
                }
            }
            "husky" => husky(&mut out, key, value),
            "lint-staged" => lint_staged(&mut out, key, value),
            "simple-git-hooks" => simple_git_hooks(&mut out, key, value),
            "nodemonConfig" => nodemon(&mut out, key, value),
            "gypfile" => gypfile = Some((key, scalar_is(text, key, "false"))),
            // `config` values reach scripts as `npm_package_config_*` variables; a value that
            // is an object or a list is read by tools instead — git hook runners take commands
            // from `config.ghooks` and `config.pre-git`, commitizen a module path (red team s9).
            "config" => {
                if let Value::Object(members) = value {
                    for (k, v) in members {
                        if matches!(v, Value::Object(_) | Value::Array(_)) {
                            unmodelled(
                                &mut out,
                                k,
                                format!(
                                    "`config.{}` is not a plain value: tools read such config blocks (ghooks and pre-git take git hook commands from them) and scan does not",
                                    k.value
                                ),
                            );
                        }
                    }
                }
            }
            "packageManager" if is_package_manager(value) => {}
            k if INERT_KEYS.contains(&k) => {}
            k => unmodelled(
                &mut out,
                key,
                format!(
                    "package.json key `{k}` is not one scan knows to hold no command: a tool that reads it may run what it says"
                ),
            ),
        }
    }
    npmrc_beside(path, start, &mut out);
    for (name, why) in RUNNER_FILES {
        let beside = Path::new(path).with_file_name(name);
        // `symlink_metadata`: a link, even a dangling one, is a file the tool may follow.
        if std::fs::symlink_metadata(&beside).is_ok() {
            out.problems.push(Problem {
                code: ScanCode::Unmodelled,
                message: format!("`{}` is beside it: {why}", beside.display()),
                span: Span::new(start, start),
            });
        }
    }
    let server = Path::new(path).with_file_name("server.js");
    if !start_script && server.exists() {
        out.problems.push(Problem {
            code: ScanCode::Unmodelled,
            message: format!(
                "`{}` is beside it and there is no `start` script, so `npm start` runs `node server.js`, a program scan does not read",
                server.display()
            ),
            span: Span::new(start, start),
        });
    }
    let beside = Path::new(path).with_file_name("binding.gyp");
    // `gypfile` and whether it is written `false`.
    match gypfile {
        Some((key, false)) => unmodelled(
            &mut out,
            key,
            "`gypfile` makes npm run `node-gyp rebuild` at install, which runs the actions of the package's `.gyp` files".to_string(),
        ),
        Some((_, true)) => {}
        None if !install_script && beside.is_file() => out.problems.push(Problem {
            code: ScanCode::Unmodelled,
            message: format!(
                "`{}` is beside it and there is no `install` or `preinstall` script, so npm runs `node-gyp rebuild` at install, which runs the `.gyp` file's actions",
                beside.display()
            ),
            span: Span::new(start, start),
        }),
        None => {}
    }
    out
}

/// A key written twice in one object: `JSON.parse` keeps the last value, so which one npm
/// reads is not what a reader of the first sees (scan reads both, but not which one wins).
fn duplicate_keys(members: &[(Str, Value)], prefix: &str, out: &mut Extracted) {
    let mut seen = std::collections::HashSet::new();
    for (key, _) in members {
        if !seen.insert(key.value.as_str()) {
            unmodelled(
                out,
                key,
                format!(
                    "`{prefix}{}` is written more than once: npm keeps the last one, and a setting in an earlier one may not hold",
                    key.value
                ),
            );
        }
    }
}

/// What npm puts on a script's `PATH`.
const NPM_PATH: &str = "npm runs scripts with `node_modules/.bin` first on PATH and looks their shell `sh` up there too: a program name, or the shell itself, may run a package's program";
/// The same for the commands other npm tools run (they are started from npm scripts, or look
/// programs up in `node_modules/.bin` themselves).
const TOOL_PATH: &str = "this tool runs its commands from the project, usually with `node_modules/.bin` first on PATH: a program name may run a package's program";

/// One command string: a piece under `context`, with `note` saying that the program names in
/// it may be the project's own programs.
fn command(out: &mut Extracted, context: &str, s: &Str, note: &str) {
    let mut b = ScriptBuf::default();
    for (i, c) in s.value.char_indices() {
        b.push_char(c, s.origin[i]);
    }
    // npm runs scripts with `sh -c` (dash on Debian and Ubuntu).
    let mut piece = b.finish(context, s.end - 1, Shell::Sh);
    piece.notes.push((ScanCode::ProjectPath, note.to_string()));
    out.pieces.push(piece);
}

/// A construct scan does not read, at its key.
/// Whether the scalar value after the member `key` is `false` or `null` (JavaScript's falsy
/// scalars a package.json can hold besides `0`).
fn scalar_is_falsy(text: &str, key: &Str) -> bool {
    scalar_is(text, key, "false") || scalar_is(text, key, "null")
}

fn unmodelled(out: &mut Extracted, key: &Str, message: String) {
    out.problems.push(Problem {
        code: ScanCode::Unmodelled,
        message,
        span: Span::new(key.start, key.end),
    });
}

/// A shape inside a command key that scan does not read.
fn shape(out: &mut Extracted, key: &Str, path: &str, expected: &str) {
    unmodelled(
        out,
        key,
        format!(
            "`{path}` is not {expected}, the shape scan reads, so its commands cannot be checked"
        ),
    );
}

/// husky v4: `{"hooks": {"pre-commit": "command"}}`, each run by the shell at that git hook.
fn husky(out: &mut Extracted, key: &Str, value: &Value) {
    let Value::Object(members) = value else {
        return shape(out, key, "husky", "an object");
    };
    for (k, v) in members {
        match (k.value.as_str(), v) {
            ("hooks", Value::Object(hooks)) => {
                for (hook, cmd) in hooks {
                    let path = format!("husky.hooks.{}", hook.value);
                    match cmd {
                        Value::Str(s) => command(out, &path, s, TOOL_PATH),
                        _ => shape(out, hook, &path, "a string"),
                    }
                }
            }
            (name, _) => shape(
                out,
                k,
                &format!("husky.{name}"),
                "`hooks`, an object of strings",
            ),
        }
    }
}

/// lint-staged: `{"glob": "command" | ["command", …]}`, each run on the staged files matching
/// the glob at pre-commit.
fn lint_staged(out: &mut Extracted, key: &Str, value: &Value) {
    let Value::Object(members) = value else {
        return shape(out, key, "lint-staged", "an object");
    };
    for (glob, v) in members {
        let path = format!("lint-staged.{}", glob.value);
        match v {
            Value::Str(s) => command(out, &path, s, TOOL_PATH),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::Str(s) => command(out, &format!("{path}[{i}]"), s, TOOL_PATH),
                        _ => shape(out, glob, &format!("{path}[{i}]"), "a string"),
                    }
                }
            }
            _ => shape(out, glob, &path, "a command or a list of commands"),
        }
    }
}

/// simple-git-hooks: `{"pre-commit": "command"}`, each written into `.git/hooks/` and run by
/// `sh`; `preserveUnused` lists hook names only.
fn simple_git_hooks(out: &mut Extracted, key: &Str, value: &Value) {
    let Value::Object(members) = value else {
        return shape(out, key, "simple-git-hooks", "an object");
    };
    for (hook, v) in members {
        let path = format!("simple-git-hooks.{}", hook.value);
        match (hook.value.as_str(), v) {
            ("preserveUnused", Value::Array(_) | Value::Scalar) => {}
            (_, Value::Str(s)) => command(out, &path, s, TOOL_PATH),
            _ => shape(out, hook, &path, "a string"),
        }
    }
}

/// nodemon: `exec` (the command it restarts), `execMap` (a command per file extension) and
/// `events` (a command per event) are commands; [`NODEMON_INERT`] keys hold none.
fn nodemon(out: &mut Extracted, key: &Str, value: &Value) {
    let Value::Object(members) = value else {
        return shape(out, key, "nodemonConfig", "an object");
    };
    for (k, v) in members {
        let path = format!("nodemonConfig.{}", k.value);
        match (k.value.as_str(), v) {
            ("exec", Value::Str(s)) => command(out, &path, s, TOOL_PATH),
            ("execMap" | "events", Value::Object(map)) => {
                for (name, cmd) in map {
                    let path = format!("{path}.{}", name.value);
                    match cmd {
                        Value::Str(s) => command(out, &path, s, TOOL_PATH),
                        _ => shape(out, name, &path, "a string"),
                    }
                }
            }
            (name, _) if NODEMON_INERT.contains(&name) => {}
            _ => shape(out, k, &path, "a key scan knows nodemon reads"),
        }
    }
}

/// True when the scalar after `key`'s colon is written `word`.
fn scalar_is(text: &str, key: &Str, word: &str) -> bool {
    text.get(key.end..)
        .map(|rest| rest.trim_start().trim_start_matches(':').trim_start())
        .is_some_and(|v| {
            v.starts_with(word)
                && !v[word.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
        })
}

/// `packageManager` naming npm, pnpm or yarn at a version (`pnpm@9.1.0+sha512.…`): Corepack
/// runs that release of a known package manager. A URL (`yarn@https://…`) or another name
/// would pick the program `yarn` runs, so it asks.
fn is_package_manager(value: &Value) -> bool {
    let Value::Str(s) = value else {
        return false;
    };
    let Some((name, version)) = s.value.split_once('@') else {
        return false;
    };
    matches!(name, "npm" | "pnpm" | "yarn")
        && !version.is_empty()
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrations::scan::test_support::{problem_texts, scripts};

    /// Where the tests' package.json is: a directory with no `.npmrc` or `binding.gyp`.
    const NOWHERE: &str = "/nonexistent/cmdguard/package.json";

    fn codes(text: &str) -> Vec<(String, ScanCode)> {
        problem_texts(&extract(text, NOWHERE), text)
    }

    fn contexts(text: &str) -> Vec<(String, String)> {
        scripts(&extract(text, NOWHERE))
    }

    #[test]
    fn each_script_is_a_piece_mapped_to_its_string() {
        let text = "{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"test\": \"jest\",\n    \"lint\": \"eslint \\\"src\\\"\"\n  }\n}\n";
        let x = extract(text, "package.json");
        let got: Vec<(&str, &str, usize)> = x
            .pieces
            .iter()
            .map(|p| (p.context.as_str(), p.script.as_str(), p.origin[0]))
            .collect();
        let test_at = text.find("jest").unwrap_or_default();
        let lint_at = text.find("eslint").unwrap_or_default();
        assert_eq!(
            got,
            [
                ("scripts.test", "jest", test_at),
                ("scripts.lint", "eslint \"src\"", lint_at)
            ]
        );
        assert!(x.problems.is_empty());
    }

    #[test]
    fn invalid_json_is_a_problem_not_an_empty_file() {
        let x = extract("{\"scripts\": {\"a\": \"ls\",}}", "package.json");
        assert!(x.pieces.is_empty());
        assert_eq!(x.problems.len(), 1);
        assert_eq!(x.problems[0].code, ScanCode::MalformedFile);
    }

    /// Regression (s6 red team, scan-allow-runs rows): keys whose commands npm tools run were
    /// skipped, so `scan` allowed them.
    #[test]
    fn commands_other_tools_run_are_pieces() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                r#"{"husky": {"hooks": {"pre-commit": "rm -rf v"}}}"#,
                &[("husky.hooks.pre-commit", "rm -rf v")],
            ),
            (
                r#"{"lint-staged": {"*.js": "rm -rf v", "*.css": ["a", "b c"]}}"#,
                &[
                    ("lint-staged.*.js", "rm -rf v"),
                    ("lint-staged.*.css[0]", "a"),
                    ("lint-staged.*.css[1]", "b c"),
                ],
            ),
            (
                r#"{"simple-git-hooks": {"pre-commit": "rm -rf v", "preserveUnused": ["x"]}}"#,
                &[("simple-git-hooks.pre-commit", "rm -rf v")],
            ),
            (
                r#"{"nodemonConfig": {"exec": "rm -rf v", "watch": ["src"], "events": {"restart": "x"}, "execMap": {"py": "python3"}}}"#,
                &[
                    ("nodemonConfig.exec", "rm -rf v"),
                    ("nodemonConfig.events.restart", "x"),
                    ("nodemonConfig.execMap.py", "python3"),
                ],
            ),
        ];
        for (text, want) in cases {
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(c, s)| (c.to_string(), s.to_string()))
                .collect();
            assert_eq!(contexts(text), want, "{text}");
            assert_eq!(codes(text), [], "{text}");
        }
    }

    #[test]
    fn keys_not_known_to_hold_no_command_ask_at_the_key() {
        use ScanCode::Unmodelled;
        let cases: &[(&str, &[(&str, ScanCode)])] = &[
            (r#"{"name": "x", "eslintConfig": {}, "jest": {}}"#, &[]),
            (r#"{"tap": {"before": "x.js"}}"#, &[("\"tap\"", Unmodelled)]),
            (r#"{"gypfile": true}"#, &[("\"gypfile\"", Unmodelled)]),
            (r#"{"gypfile" : false}"#, &[]),
            (r#"{"packageManager": "pnpm@9.1.0+sha512.ab12"}"#, &[]),
            (
                r#"{"packageManager": "yarn@https://x/y.tgz"}"#,
                &[("\"packageManager\"", Unmodelled)],
            ),
            (
                r#"{"husky": {"skipCI": true}}"#,
                &[("\"skipCI\"", Unmodelled)],
            ),
            (r#"{"husky": "x"}"#, &[("\"husky\"", Unmodelled)]),
            (
                r#"{"lint-staged": {"linters": {"*.js": "x"}}}"#,
                &[("\"linters\"", Unmodelled)],
            ),
            (
                r#"{"nodemonConfig": {"env": {"PATH": "x"}}}"#,
                &[("\"env\"", Unmodelled)],
            ),
            (
                r#"{"simple-git-hooks": {"pre-commit": 1}}"#,
                &[("\"pre-commit\"", Unmodelled)],
            ),
        ];
        for (text, want) in cases {
            let want: Vec<(String, ScanCode)> =
                want.iter().map(|(k, c)| (k.to_string(), *c)).collect();
            assert_eq!(codes(text), want, "{text}");
        }
    }

    #[test]
    fn a_binding_gyp_beside_the_file_asks_unless_an_install_script_replaces_node_gyp() {
        let dir = std::env::temp_dir().join(format!("cmdguard-gyp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("binding.gyp"), "{}").unwrap();
        let path = dir.join("package.json").display().to_string();
        let problems = |text: &str| extract(text, &path).problems.len();
        assert_eq!(problems(r#"{"name": "x"}"#), 1);
        assert_eq!(problems(r#"{"scripts": {"install": "true"}}"#), 0);
        assert_eq!(problems(r#"{"gypfile": false}"#), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// s7 red team: a project `.npmrc` with `script-shell=./evil.sh` made real `npm test` run
    /// the project's shell; only keys known to leave `npm run` alone pass.
    #[test]
    fn an_npmrc_beside_the_file_asks_unless_every_key_is_inert() {
        let dir = std::env::temp_dir().join(format!("cmdguard-npmrc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("package.json").display().to_string();
        let problems = |npmrc: &str| {
            std::fs::write(dir.join(".npmrc"), npmrc).unwrap();
            extract(r#"{"scripts": {"test": "echo ok"}}"#, &path).problems
        };
        for bad in [
            "script-shell=./evil.sh\n",
            "registry=https://r.test/\nnode-options=--require ./x.js\n",
            "shell = /bin/evil\n",
            "init-module=./x.js\n",
        ] {
            let p = problems(bad);
            assert_eq!(p.len(), 1, "{bad:?}");
            assert!(p[0].message.contains(".npmrc"), "{}", p[0].message);
        }
        for good in [
            "",
            "# comment\nregistry=https://r.test/\n@acme:registry=https://a.test/\n",
            "//r.test/:_authToken=${NPM_TOKEN}\nsave-exact=true\nengine-strict=true\n",
        ] {
            assert!(problems(good).is_empty(), "{good:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

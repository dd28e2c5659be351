//! tool/workspace/new_file.rs: which new files a tool may create without asking, judged by
//! their names alone (the parts of [`Workspace::why_ask_to_create`](super::Workspace) that need
//! no file system). It never reads or writes a file.
//!
//! The rule lists what is permitted, not what is dangerous: a list of dangerous names (hook
//! managers, tool configurations) is never complete, since every tool adds names each year.
//! A new file is created without a question only when no program the user runs later reads it
//! as configuration or as code it executes on its own (the user's next `git commit`, `npm
//! install`, `cargo build`, `pytest`, an editor opening the folder, an agent reading its
//! instructions). By name, that is a file:
//! - with no component starting with `.` below the workspace root: dotfiles and dot-directories
//!   are where programs look for their configuration (`.git`, `.husky`, `.github`, `.vscode`,
//!   `.envrc`, `.cargo`, every `.*rc`);
//! - with no component a package manager or interpreter loads code from by itself
//!   ([`CODE_DIRS`]: `node_modules`, `__pycache__`, `site-packages`);
//! - that does not shadow a module of Python's standard library ([`PYTHON_STDLIB`]:
//!   `json.py` beside a script runs in place of `json` wherever it imports it);
//! - whose name is not a tool's configuration, build file or manifest ([`CONFIG_NAMES`],
//!   [`CONFIG_PATTERNS`]: `conftest.py`, `setup.py`, `package.json`, `*.config.*`, `*rc`, …);
//! - whose kind is known to be source, text or data ([`FREE_KINDS`], by extension): an
//!   unknown extension (`*.tf`, `*.nix`, `*.pth`, `*.patch`) asks, so a new tool's format does
//!   too; a name without an extension is free unless it follows a build tool's convention
//!   ([`EXTENSIONLESS_TOOL_NAMES`]: `Makefile`, `Dockerfile`, `Justfile`, `Tiltfile`, any
//!   `*file`, `BUILD`, `PKGBUILD`), since fixtures and non-executable scripts have none.
//!
//! Every name is judged as a Windows file system creates it, without trailing spaces and dots
//! (`Makefile ` is `Makefile` there); a listed module a tool imports by name counts in its
//! package form too (`tasks/__init__.py`), and a listed script in its directory form
//! (`gulpfile.js/index.js`).
//!
//! At the top of a project (the workspace root, a repository's top level, a directory holding
//! a manifest) tools look up far more names than any list holds (`gulpfile.js`,
//! `gatsby-node.js`, `knip.ts`, `renovate.json`…), so there only documents, text, images and
//! tables are free ([`INERT_AT_ROOT`]); that part and the git-directory layout need the file
//! system and live in `workspace.rs`.

use std::ffi::OsStr;
use std::path::{Component, Path};

use crate::tool::fnmatch::fnmatch;

/// Directory names below which an interpreter or package manager loads code without being
/// told to: a file planted there runs in place of (or beside) what was installed.
pub const CODE_DIRS: &[&str] = &[
    // Node resolves `require`/`import` of packages here; `.bin` entries run from npm scripts.
    "node_modules",
    // Python runs a cached `.pyc` instead of its source when the header matches.
    "__pycache__",
    // Python runs every `.pth` line starting with `import` at start-up, and imports from here.
    "site-packages",
    "dist-packages",
];

/// Names (lower case; compared without regard to case, as a case-insensitive file system
/// would) that a tool reads as its configuration, build script or manifest wherever they are,
/// even with a free extension.
pub const CONFIG_NAMES: &[&str] = &[
    // Python: pytest imports every conftest.py of a test run; pip and setuptools run setup.py;
    // sitecustomize/usercustomize are imported at every interpreter start on the path.
    "conftest.py",
    "setup.py",
    "setup.cfg",
    "noxfile.py",
    "fabfile.py",
    "tasks.py",
    "dodo.py",
    "sitecustomize.py",
    "usercustomize.py",
    "pipfile",
    "pipfile.lock",
    // Rust: rustup runs the toolchain this names, from the directory a command runs in or any
    // above it. (A crate's `build.rs` asks as every non-document at a crate's top does;
    // elsewhere the name alone says nothing, since `build = "…"` can name any path.)
    "rust-toolchain",
    "cargo.lock",
    // JavaScript: npm runs package.json's scripts at install (workspace members too);
    // TypeScript, Deno, Nx, Turbo and other runners take commands or plugins from these.
    "package.json",
    "package.json5",
    "package.yaml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lockb",
    "tsconfig.json",
    "jsconfig.json",
    "deno.json",
    "deno.jsonc",
    "project.json",
    "nx.json",
    "turbo.json",
    "lerna.json",
    "angular.json",
    "composer.json",
    "composer.lock",
    // Build files of make, CMake, Meson, Bazel, Gradle, Maven, MSBuild and others: code the
    // build runs. (The extensionless ones ask by kind too; listed for the reason shown.)
    "makefile",
    "gnumakefile",
    "cmakelists.txt",
    "cmakepresets.json",
    "cmakeuserpresets.json",
    "meson.build",
    "meson_options.txt",
    "meson.options",
    "build.gradle",
    "settings.gradle",
    "gradle.properties",
    "gradle-wrapper.properties",
    "gradle-wrapper.jar",
    "maven-wrapper.properties",
    "local.properties",
    "pom.xml",
    "build.xml",
    "ivy.xml",
    "global.json",
    "vcpkg.json",
    "build.zig",
    "build.zig.zon",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    "mix.exs",
    "project.clj",
    "deps.edn",
    "bb.edn",
    "build.sbt",
    "stack.yaml",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
    "action.yml",
    "action.yaml",
    "devbox.json",
    "environment.yml",
    "environment.yaml",
    // mkdocs runs the `hooks:` its config names; serverless, kustomize and skaffold run
    // plugins or commands from theirs; Sphinx runs `conf.py`.
    "mkdocs.yml",
    "mkdocs.yaml",
    "serverless.yml",
    "serverless.yaml",
    "kustomization.yml",
    "kustomization.yaml",
    "skaffold.yml",
    "skaffold.yaml",
    "conf.py",
    // Build scripts their tools run by name below a project's top: MakeMaker's `perl
    // Makefile.PL` runs every subdirectory's `Makefile.PL` (Module::Build's `Build.PL` too);
    // SCons imports `site_scons/site_init.py` at every run; Dart and Flutter run
    // `hook/build.dart`; Julia's `Pkg.build` runs `deps/build.jl`; tup parses every
    // `Tupfile.lua`; `swift build` compiles and runs `Package.swift`.
    "makefile.pl",
    "build.pl",
    "site_init.py",
    "build.dart",
    "build.jl",
    "tupfile.lua",
    "package.swift",
    // Clojure's runtime loads `user.clj` from the classpath's root at every start.
    "user.clj",
    "user.cljc",
    // pip installs what these name (a URL's package runs its own setup code).
    "requirements.txt",
    "constraints.txt",
    // Instructions that coding agents read and act on, in any directory.
    "agents.md",
    "agent.md",
    "claude.md",
    "claude.local.md",
    "gemini.md",
    "qwen.md",
    "crush.md",
    "warp.md",
    "conventions.md",
    "copilot-instructions.md",
    "replit.md",
    "iflow.md",
    "codebuddy.md",
    "qoder.md",
];

/// Python's standard-library modules (Python 3.11's `sys.stdlib_module_names`, without the
/// private `_` ones). Python puts the running script's directory (pytest, a test file's
/// base directory) first on the module path, so a new `json.py` or `subprocess.py` beside a
/// script, or a `json/__init__.py`, runs in place of the module wherever the script imports
/// it: the agent's code runs at the user's next run without any file of theirs changing.
#[rustfmt::skip]
pub const PYTHON_STDLIB: &[&str] = &[
    "abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore",
    "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "cProfile",
    "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections",
    "colorsys", "compileall", "concurrent", "configparser", "contextlib", "contextvars", "copy",
    "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal",
    "difflib", "dis", "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno",
    "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools",
    "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib", "grp", "gzip",
    "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp", "importlib",
    "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache", "locale",
    "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap",
    "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt",
    "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev",
    "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib",
    "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile",
    "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline",
    "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors",
    "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket",
    "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl", "stat",
    "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
    "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap",
    "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace",
    "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata",
    "unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser",
    "winreg", "winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport",
    "zlib", "zoneinfo",
];

/// Shell-style patterns (lower case) of configuration names: a tool's `*.config.*` or
/// `*.conf.*` (code when it is `.js`/`.ts`), an `*rc` file, a hook manager's files in any
/// format, build files with a suffix, requirement lists.
pub const CONFIG_PATTERNS: &[&str] = &[
    "*.config.*",
    "*.config",
    "*-config.*",
    "*.conf.*",
    "*.conf",
    "*rc",
    // `*rc.<format>` only: `arc.rs` is source. (A tool's rc file is nearly always a dotfile,
    // which asks anyway.)
    "*rc.json",
    "*rc.json5",
    "*rc.js",
    "*rc.cjs",
    "*rc.mjs",
    "*rc.ts",
    "*rc.cts",
    "*rc.mts",
    "*rc.yaml",
    "*rc.yml",
    "*rc.toml",
    // Hook managers in every format (lefthook.json, lefthook-local.toml); husky's,
    // lint-staged's and commitlint's are `*.config.*` or dotfiles.
    "lefthook*",
    "simple-git-hooks.*",
    // docker compose merges `docker-compose.override.yml` and the like by itself.
    "docker-compose*.yml",
    "docker-compose*.yaml",
    "compose.*.yml",
    "compose.*.yaml",
    "gulpfile*",
    "gruntfile*",
    "jakefile*",
    "dangerfile*",
    "pnpmfile*",
    "taskfile*",
    "justfile*",
    "*.gradle.kts",
    "*requirements*.txt",
    "*requirements*.in",
    "*constraints*.txt",
    // Jupyter and IPython read `<app>_config.py` from the directory they start in.
    "*_config.py",
    "tsconfig*.json",
    // Agents' instruction files in every variant (Codex reads `AGENTS.override.md` first).
    "agents.*.md",
    "claude.*.md",
    "gemini.*.md",
    // VS Code's Copilot instruction and prompt files.
    "*.instructions.md",
    "*.prompt.md",
    "directory.build.*",
    "directory.packages.*",
];

/// Patterns (lower case) of names without an extension that build and task tools read from
/// the directory they run in: the `<Tool>file` convention (`Makefile`, `Dockerfile`,
/// `Justfile`, `Tiltfile`, `Earthfile`, `Gemfile`, `Rakefile`, `Vagrantfile`, `Procfile`, …)
/// and the rest by name. Other names without an extension (a test fixture, a script without
/// an execute bit) are free below a project's top level, where tools look up names with
/// extensions; at the top they ask as every other non-document does.
pub const EXTENSIONLESS_TOOL_NAMES: &[&str] = &[
    "*file",
    "build",
    "workspace",
    "buck",
    "targets",
    "pkgbuild",
    "apkbuild",
    "sconstruct",
    "sconscript",
    "wscript",
    "configure",
    "kbuild",
    "kconfig",
    "gradlew",
    "mvnw",
    // Debian packaging: `debian/rules` is the build, and debhelper installs the maintainer
    // scripts (`postinst`, `preinst`, `prerm`, `postrm`) into the package, run as root at
    // its install. (debconf's `config` asks in a `debian` directory only: `config` is too
    // common a name.)
    "rules",
    "postinst",
    "preinst",
    "prerm",
    "postrm",
    // dune runs the rules of every directory's `dune` file at `dune build`.
    "dune",
    // `R CMD INSTALL` hands `src/Makevars` to make; repo2docker (Binder) runs
    // `binder/postBuild` while it builds the image.
    "makevars",
    "postbuild",
];

/// Python's private standard-library modules written in Python, which [`PYTHON_STDLIB`]
/// leaves out but Python imports from the path as any other: `from __future__ import …` is
/// a real import at run time, and `datetime.strptime` imports `_strptime` on first use.
/// (Built-in and frozen modules are found before the path and cannot be shadowed.)
#[rustfmt::skip]
pub const PYTHON_PRIVATE_STDLIB: &[&str] = &[
    "__future__", "__hello__", "__phello__", "_aix_support", "_bootsubprocess",
    "_collections_abc", "_colorize", "_compat_pickle", "_compression", "_markupbase",
    "_opcode_metadata", "_osx_support", "_py_abc", "_pydatetime", "_pydecimal", "_pyio",
    "_pylong", "_pyrepl", "_sitebuiltins", "_strptime", "_threading_local", "_weakrefset",
];

/// Perl's core modules and pragmas most scripts load (`use strict`): `prove -l`, `perl -Ilib`
/// and `carton exec` put `lib/` first on `@INC`, so a `lib/strict.pm` is loaded in their
/// place. Module names, `::`-separated.
#[rustfmt::skip]
pub const PERL_CORE: &[&str] = &[
    "strict", "warnings", "utf8", "constant", "vars", "parent", "base", "lib", "feature",
    "integer", "overload", "bytes", "open", "locale", "subs", "sort", "if", "autodie", "bigint",
    "bignum", "diagnostics", "encoding", "fields", "mro", "re", "version", "experimental",
    "Carp", "Exporter", "POSIX", "Cwd", "Encode", "Errno", "Fcntl", "FindBin", "IO",
    "Storable", "Socket", "Symbol", "Time::Local", "Time::HiRes", "Data::Dumper",
    "Scalar::Util", "List::Util", "File::Spec", "File::Basename", "File::Path", "File::Temp",
    "File::Find", "File::Copy", "Getopt::Long", "Test::More", "Test::Builder", "IO::Handle",
    "IO::File", "JSON::PP", "Digest::MD5", "MIME::Base64", "Term::ANSIColor", "Text::Wrap",
];

/// Ruby's standard libraries most code requires (`require 'json'`): `ruby -Ilib`, Rake's
/// test task and Bundler put `lib/` first on the load path, so a `lib/json.rb` is loaded in
/// their place. Paths below `lib`, without `.rb`.
#[rustfmt::skip]
pub const RUBY_STDLIB: &[&str] = &[
    "json", "set", "yaml", "psych", "fileutils", "open3", "open-uri", "net/http", "uri",
    "time", "date", "securerandom", "digest", "tempfile", "tmpdir", "pathname", "optparse",
    "erb", "logger", "csv", "shellwords", "socket", "openssl", "base64", "benchmark",
    "forwardable", "ostruct", "pp", "singleton", "stringio", "strscan", "timeout", "english",
    "etc", "find", "io/console", "monitor", "observer", "open-uri", "ripper", "zlib", "bundler",
    "rubygems", "rake", "minitest", "test/unit", "rspec", "bigdecimal", "delegate", "prettyprint",
];

/// Directories of a home directory where the desktop keeps programs' configuration and
/// start-up items outside every dot-directory (a workspace that is the home directory):
/// Windows' `AppData` (its Startup folder opens every file at login), macOS's
/// `Library/Application Support`, `LaunchAgents` and `LaunchDaemons`.
pub const DESKTOP_CONFIG_DIRS: &[&str] = &[
    "appdata",
    "application support",
    "launchagents",
    "launchdaemons",
];

/// Extensions (lower case, after the last `.`) of files known to be source, text or data: a
/// new one in a subdirectory runs only when the project's own code or the user runs it.
/// Any other extension asks (`.tf`, `.nix`, `.bzl`, `.cmake`, `.gradle`, `.pth`, `.pyc`,
/// `.patch`, `.props`, `.jar`, `.so`, …), so a tool's new format does too.
#[rustfmt::skip]
pub const FREE_KINDS: &[&str] = &[
    // Source files of common languages (written without an execute bit).
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx", "go", "java", "kt",
    "scala", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cs", "fs", "swift", "m", "mm",
    "rb", "php", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hrl", "hs", "ml", "mli",
    "clj", "cljs", "dart", "zig", "nim", "sql", "sh", "bash", "zsh", "fish", "vue", "svelte",
    "astro", "proto", "graphql", "gql", "ipynb",
    // Markup, styles, documents.
    "html", "htm", "css", "scss", "sass", "less", "md", "markdown", "rst", "txt", "adoc", "org",
    "tex",
    // Data and test fixtures (insta's `.snap`, trybuild's expected `.stderr`).
    "json", "jsonl", "ndjson", "yaml", "yml", "xml", "csv", "tsv", "snap", "log", "stderr",
    "stdout",
    // Images and other media.
    "svg", "png", "jpg", "jpeg", "gif", "webp", "ico", "bmp", "pdf",
];

/// Extensions (lower case) free at a project's top level too: documents, text, images and
/// tables, which no build or tool runs.
pub const INERT_AT_ROOT: &[&str] = &[
    "md", "markdown", "rst", "txt", "adoc", "org", "csv", "tsv", "svg", "png", "jpg", "jpeg",
    "gif", "webp", "ico", "bmp", "pdf",
];

/// Names (lower case, the part before the first `.`) of project documents, free anywhere
/// with a free extension or none (`LICENSE`, `README`, `NOTICE`).
pub const DOC_STEMS: &[&str] = &[
    "readme",
    "license",
    "licence",
    "copying",
    "notice",
    "authors",
    "contributors",
    "changelog",
    "changes",
    "history",
    "news",
    "todo",
];

/// Names (lower case) whose presence makes a directory the top of a project: tools run there
/// read the names beside them.
pub const MANIFESTS: &[&str] = &[
    "package.json",
    "cargo.toml",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "go.mod",
    "gemfile",
    "composer.json",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "cmakelists.txt",
    "makefile",
    "gnumakefile",
    "meson.build",
    "deno.json",
    "deno.jsonc",
    "mix.exs",
    "package.swift",
    "build.sbt",
    "project.clj",
    "deps.edn",
    "stack.yaml",
    "cabal.project",
    "dune-project",
    "build.zig",
    "flake.nix",
    "tox.ini",
    "pipfile",
    "requirements.txt",
    "workspace",
    "workspace.bazel",
    "module.bazel",
];

/// Patterns (lower case) of manifest names that vary with the project's name.
const MANIFEST_PATTERNS: &[&str] = &[
    "*.csproj",
    "*.fsproj",
    "*.vbproj",
    "*.sln",
    "*.gemspec",
    "*.cabal",
];

/// Why a new file at `below` (its path below the workspace root) would be read by a tool as
/// configuration or code, by its names alone; `None` when its names are free (see the module
/// docs). The top-of-project rule is not applied here.
pub fn why_by_name(below: &Path) -> Option<String> {
    let parts: Vec<&OsStr> = below
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            Component::Prefix(_)
            | Component::RootDir
            | Component::CurDir
            | Component::ParentDir => None,
        })
        .collect();
    let (name, dirs) = parts.split_last()?;
    let name = as_created(&name.to_string_lossy().to_lowercase());
    if name.starts_with('.') {
        return Some(format!(
            "{name} is a dotfile, where programs look for their configuration"
        ));
    }
    for dir in dirs {
        let dir = as_created(&dir.to_string_lossy().to_lowercase());
        if dir.starts_with('.') {
            return Some(format!(
                "inside {dir}, a dot-directory, where programs look for their configuration"
            ));
        }
        if CODE_DIRS.contains(&dir.as_str()) || is_package_metadata(&dir) {
            return Some(format!(
                "inside {dir}, where code is loaded without being asked for"
            ));
        }
        if DESKTOP_CONFIG_DIRS.contains(&dir.as_str()) {
            return Some(format!(
                "inside {dir}, where the desktop keeps programs' configuration and start-up \
                 items"
            ));
        }
    }
    if CODE_DIRS.contains(&name.as_str()) || is_package_metadata(&name) {
        return Some(format!(
            "{name} is a directory code is loaded from without being asked for"
        ));
    }
    // Cargo runs a package's build.rs at the next `cargo check`; one created before its
    // manifest is in no project top yet. Below a `src` directory it is a module.
    if name == "build.rs" && !dirs.iter().any(|d| d.eq_ignore_ascii_case("src")) {
        return Some(format!(
            "{name} outside a src directory is a Cargo build script, run at the next build"
        ));
    }
    if let Some(module) = shadowed_module(&name, dirs.last()) {
        return Some(format!(
            "{name} would be imported in place of Python's own {module} by a script or test \
             run beside it"
        ));
    }
    if let Some(module) = shadowed_in_lib(&name, dirs) {
        return Some(format!(
            "{name} would be loaded in place of the core module {module} by scripts and tests \
             run with lib/ on the path (prove -l, perl -Ilib, ruby -Ilib)"
        ));
    }
    if is_config_name(&name) {
        return Some(format!(
            "{name} is read by a tool as configuration or code it runs"
        ));
    }
    if let Some(dir) = configuration_by_directory(&name, dirs.last()) {
        return Some(format!(
            "{name} in a directory {dir} is loaded as {dir} is, as configuration or code a \
             tool runs"
        ));
    }
    // debconf's `config` script, installed from `debian/config`, runs as root before
    // `preinst` at the package's installation; elsewhere `config` is too common a name.
    if name == "config"
        && dirs
            .last()
            .is_some_and(|d| as_created(&d.to_string_lossy().to_lowercase()) == "debian")
    {
        return Some(format!(
            "{name} in a debian directory is the package's debconf script, run as root when \
             the package is installed"
        ));
    }
    if !free_kind(&name) {
        return Some(format!(
            "{name} is not a kind of file known to be inert (source, text or data)"
        ));
    }
    None
}

/// `name` as a file system that reads it leniently creates or finds it: without the code
/// points macOS's HFS+ ignores when it looks a name up (zero-width joiners and marks, the
/// direction marks and overrides, the byte-order mark: `conftest\u{200c}.py` is found as
/// `conftest.py`, as in git's CVE-2014-9390), without an NTFS stream (`Makefile::$DATA` is
/// the file `Makefile`; a named stream `x:s` belongs to `x`) and without trailing spaces and
/// dots (`Makefile ` is `Makefile` on Windows). A name of nothing but those is kept as it is.
pub fn as_created(name: &str) -> String {
    let visible: String = name.chars().filter(|c| !hfs_ignorable(*c)).collect();
    let file = visible.split(':').next().unwrap_or(&visible);
    match file.trim_end_matches([' ', '.']) {
        "" => name.to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// True for a code point HFS+ ignores in a name it looks up (Apple's TN1150 list, as git
/// checks for `.git`): U+200C–U+200F, U+202A–U+202E, U+206A–U+206F and U+FEFF.
fn hfs_ignorable(c: char) -> bool {
    matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

/// Python modules of [`CONFIG_NAMES`] that their tools import by module name, so that a
/// package of that name (`tasks/__init__.py`) is loaded as the listed file would be: Python
/// imports `sitecustomize` and `usercustomize` from the path at every start, Invoke imports
/// `tasks`, Fabric `fabfile`. (pytest, pip, Sphinx, nox and doit load their files by path.)
const IMPORTED_BY_NAME: &[&str] = &["sitecustomize", "usercustomize", "tasks", "fabfile"];

/// The directory (lower case) through which `name` is loaded as a listed configuration or
/// script: the package form of a module its tool imports by name ([`IMPORTED_BY_NAME`]), or
/// the `index.*` of a directory named as a configuration file with an extension (gulp and
/// Node load a directory `gulpfile.js` through its `index.js`). Other files in such a
/// directory run only when its entry point imports them.
fn configuration_by_directory(name: &str, dir: Option<&&OsStr>) -> Option<String> {
    let dir = as_created(&dir?.to_string_lossy().to_lowercase());
    let entry = match name {
        "__init__.py" => IMPORTED_BY_NAME.contains(&dir.as_str()),
        _ => split_name(name).0 == "index" && split_name(&dir).1.is_some() && is_config_name(&dir),
    };
    entry.then_some(dir)
}

/// True for an installed Python distribution's metadata directory (`x.dist-info`,
/// `x.egg-info`) or link: importlib reads its `entry_points.txt` from the path, and pytest and
/// other tools load the plugins it names.
fn is_package_metadata(name: &str) -> bool {
    [".dist-info", ".egg-info", ".egg-link"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// Inner extensions (`x.test.ts`, `x.d.ts`, `x.min.js`) that name a variant of a free kind
/// rather than another format. Any other inner extension must be a free kind itself:
/// `main.tf.json` is Terraform's configuration, whatever its last extension says.
const FREE_INFIXES: &[&str] = &[
    "test",
    "spec",
    "d",
    "min",
    "stories",
    "story",
    "module",
    "snap",
    "e2e",
    "bench",
    "fixture",
    "example",
    "sample",
    "generated",
    "pb",
    "types",
];

/// The standard-library module a new Python file `name` (lower case) would shadow: `json.py`
/// (or `json.pyc`), or `__init__.py` in a directory `json`.
fn shadowed_module(name: &str, dir: Option<&&OsStr>) -> Option<String> {
    let stem = match name {
        "__init__.py" => as_created(&dir?.to_string_lossy().to_lowercase()),
        _ => name
            .strip_suffix(".py")
            .or_else(|| name.strip_suffix(".pyc"))?
            .to_owned(),
    };
    PYTHON_STDLIB
        .iter()
        .chain(PYTHON_PRIVATE_STDLIB)
        .find(|m| m.eq_ignore_ascii_case(&stem))
        .map(|m| (*m).to_owned())
}

/// The Perl or Ruby core module a new `name` (lower case) in `dirs` would be loaded in place
/// of: a `.pm` or `.rb` below a `lib` directory whose path below it is the module's
/// ([`PERL_CORE`], [`RUBY_STDLIB`]).
fn shadowed_in_lib(name: &str, dirs: &[&OsStr]) -> Option<String> {
    let lib = dirs
        .iter()
        .rposition(|d| as_created(&d.to_string_lossy().to_lowercase()) == "lib")?;
    let mut parts: Vec<String> = dirs[lib + 1..]
        .iter()
        .map(|d| as_created(&d.to_string_lossy().to_lowercase()))
        .collect();
    if let Some(stem) = name.strip_suffix(".pm") {
        parts.push(stem.to_owned());
        let module = parts.join("::");
        PERL_CORE
            .iter()
            .find(|m| m.eq_ignore_ascii_case(&module))
            .map(|m| (*m).to_owned())
    } else {
        parts.push(name.strip_suffix(".rb")?.to_owned());
        let module = parts.join("/");
        RUBY_STDLIB
            .iter()
            .find(|m| m.eq_ignore_ascii_case(&module))
            .map(|m| (*m).to_owned())
    }
}

/// The Python module a new file `name` (lower case, as created) would be imported as from
/// its directory, with the name of the directory that holds its importers: `yaml.py` is
/// `yaml` for the scripts beside it, `requests/__init__.py` is `requests` for the scripts
/// beside the package (`dir`, the file's directory). `None` for other names.
pub fn python_module(name: &str, dir: Option<&OsStr>) -> Option<(String, bool)> {
    match name {
        "__init__.py" => Some((as_created(&dir?.to_string_lossy().to_lowercase()), true)),
        _ => Some((name.strip_suffix(".py")?.to_owned(), false)),
    }
}

/// The top-level modules a Python source imports (`import a.b, c as d` gives `a` and `c`;
/// `from e.f import g` gives `e`; relative imports give nothing), lower case, read line by
/// line as written (an import built at run time, `importlib.import_module(x)`, is not seen).
pub fn python_imports(text: &str) -> Vec<String> {
    let top = |m: &str| {
        m.split(|c: char| c == '.' || c.is_whitespace())
            .next()
            .filter(|m| !m.is_empty())
            .map(str::to_lowercase)
    };
    let mut out = Vec::new();
    for statement in text.lines().flat_map(|l| l.split(';')) {
        let statement = statement.trim_start();
        if let Some(rest) = statement.strip_prefix("import ") {
            out.extend(rest.split(',').filter_map(|m| top(m.trim_start())));
        } else if let Some(rest) = statement.strip_prefix("from ") {
            let rest = rest.trim_start();
            if !rest.starts_with('.') {
                out.extend(top(rest));
            }
        }
    }
    out
}

/// True when `name` (lower case) is a tool's configuration, build file or manifest.
pub fn is_config_name(name: &str) -> bool {
    CONFIG_NAMES.contains(&name) || CONFIG_PATTERNS.iter().any(|p| fnmatch(p, name))
}

/// True when `name` (lower case) is of a kind known to be source, text or data, or has no
/// extension and is no build tool's conventional name ([`EXTENSIONLESS_TOOL_NAMES`]).
fn free_kind(name: &str) -> bool {
    let (stem, ext) = split_name(name);
    match ext {
        Some(ext) => {
            let inner: Vec<&str> = name.split('.').skip(1).collect();
            let inner = &inner[..inner.len().saturating_sub(1)];
            FREE_KINDS.contains(&ext)
                && inner.iter().all(|i| {
                    FREE_KINDS.contains(i)
                        || FREE_INFIXES.contains(i)
                        || i.bytes().all(|b| b.is_ascii_digit())
                })
        }
        None => {
            DOC_STEMS.contains(&stem) || !EXTENSIONLESS_TOOL_NAMES.iter().any(|p| fnmatch(p, name))
        }
    }
}

/// True when `name` (lower case) may be created at a project's top level without a question:
/// a document, text, image or table, or a project document (`LICENSE`).
pub fn inert_at_root(name: &str) -> bool {
    let (stem, ext) = split_name(name);
    match ext {
        Some(ext) => INERT_AT_ROOT.contains(&ext),
        None => DOC_STEMS.contains(&stem),
    }
}

/// True when `name` (any case) is a manifest: its directory is the top of a project.
pub fn is_manifest(name: &str) -> bool {
    let name = name.to_lowercase();
    MANIFESTS.contains(&name.as_str()) || MANIFEST_PATTERNS.iter().any(|p| fnmatch(p, &name))
}

/// The part before the first `.` and the extension after the last one (`None` without a
/// `.` past the first character).
fn split_name(name: &str) -> (&str, Option<&str>) {
    let stem = name.split('.').next().unwrap_or(name);
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    (stem, ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: a path below the workspace root, and whether its names alone ask.
    #[test]
    fn names_that_ask_and_their_near_misses() {
        let rows: &[(&str, bool)] = &[
            // Dotfiles and dot-directories, anywhere.
            (".huskyrc", true),
            ("crates/red/build.rs", true),
            ("AGENTS.override.md", true),
            ("docs/claude-notes.md", false),
            ("x/red_plugin.dist-info/entry_points.txt", true),
            ("infra/red.tf.json", true),
            ("src/app.test.ts", false),
            ("src/types.d.ts", false),
            ("data/2024.01.csv", false),
            (".lintstagedrc.json", true),
            ("sub/.envrc", true),
            (".github/workflows/ci.yml", true),
            ("a/.vscode/tasks.json", true),
            ("docs/x.md", false),
            // Code directories.
            ("node_modules/left-pad/index.js", true),
            ("pkg/__pycache__/m.cpython-312.pyc", true),
            ("venv/lib/python3.12/site-packages/x.py", true),
            ("src/node_modules_helper.rs", false),
            // Configuration names and patterns.
            ("lefthook.toml", true),
            ("lefthook.json", true),
            ("husky.config.js", true),
            ("lint-staged.config.js", true),
            ("commitlint.config.js", true),
            ("tests/conftest.py", true),
            ("tests/test_conftest.py", false),
            ("src/config/build.rs", false),
            ("src/scan/makefile.rs", false),
            ("src/scan/dockerfile.rs", false),
            ("img/docker-compose.override.yml", true),
            ("ui/fail/case.stderr", false),
            ("packages/a/package.json", true),
            ("fixtures/package.txt", false),
            ("web/vite.config.ts", true),
            ("web/vite.ts", false),
            ("tools/karma.conf.js", true),
            ("docs/AGENTS.md", true),
            ("docs/AGENT_NOTES.md", false),
            ("deps/requirements-dev.txt", true),
            ("deps/notes.txt", false),
            ("sub/CMakeLists.txt", true),
            ("sub/Makefile.inc", true),
            ("sub/rules.mk", true),
            ("img/Dockerfile.dev", true),
            ("img/app.Dockerfile", true),
            // Kinds: unknown or missing extensions ask; sources, text and data do not.
            ("sub/Justfile", true),
            ("deploy/Tiltfile", true),
            ("pkg/PKGBUILD", true),
            ("debian/rules", true),
            ("tests/fixtures/input", false),
            ("tests/fixtures/ruler", false),
            ("infra/main.tf", true),
            ("lib/x.pth", true),
            ("patches/fix.patch", true),
            ("sub/Cargo.toml", true),
            ("src/foo.rs", false),
            ("tools/json.py", true),
            ("tools/subprocess.py", true),
            ("tools/json/__init__.py", true),
            ("tools/jsonx.py", false),
            ("tools/json.rs", false),
            ("tools/mine/__init__.py", false),
            ("lib/node_modules", true),
            ("docs/conf.py", true),
            ("deps/dev-requirements.txt", true),
            ("src/sync/arc.rs", false),
            ("tools/lintrc.json", true),
            ("tests/test_x.py", false),
            ("tests/data/case.json", false),
            ("tests/snapshots/x.snap", false),
            ("docs/LICENSE", false),
            ("docs/diagram.svg", false),
            // Windows drops trailing spaces and dots: judged as it names the file.
            ("ci/Jenkinsfile ", true),
            ("pkg/BUILD. ", true),
            ("node_modules /x.js", true),
            ("src/lib.rs ", false),
            // Packaging scripts and build files without an extension.
            ("debian/postinst", true),
            ("debian/prerm", true),
            // debconf's script in a debian directory; `config` elsewhere stays free.
            ("debian/config", true),
            ("pkg/Debian/config", true),
            ("debianx/config", false),
            ("src/dune", true),
            ("tests/fixtures/dunes", false),
            // A listed module or script in its directory form.
            ("tasks/__init__.py", true),
            ("src/sitecustomize/__init__.py", true),
            ("gulpfile.js/index.js", true),
            ("tasks/deploy.py", false),
            ("roles/web/tasks/main.yml", false),
            ("src/tasksx/__init__.py", false),
            ("conf/__init__.py", false),
            ("web/index.js", false),
            ("pkgs/a/src/index.js", false),
            ("sub/config", false),
            // NTFS streams name the file they belong to.
            ("sub/Makefile::$DATA", true),
            ("pkg/BUILD:x", true),
            ("src/a.rs::$DATA", false),
            // Build scripts run by name, start-up files, more agents' instructions.
            ("Red/Makefile.PL", true),
            ("site_scons/site_init.py", true),
            ("hook/build.dart", true),
            ("deps/build.jl", true),
            ("src/Makevars", true),
            ("src/Tupfile.lua", true),
            ("binder/postBuild", true),
            ("Packages/Red/Package.swift", true),
            ("src/user.clj", true),
            ("src/users.clj", false),
            ("src/CODEBUDDY.md", true),
            // Core modules shadowed from lib/, Python's private ones.
            ("scripts/__future__.py", true),
            ("scripts/_strptime.py", true),
            ("scripts/_mine.py", false),
            ("lib/strict.pm", true),
            ("lib/Data/Dumper.pm", true),
            ("lib/Red/Dumper.pm", false),
            ("lib/json.rb", true),
            ("lib/net/http.rb", true),
            ("lib/red/json.rb", false),
            ("src/json.rb", false),
            // Desktop configuration places of a home directory.
            ("AppData/Roaming/x/update.js", true),
            (
                "Library/Application Support/Claude/claude_desktop_config.json",
                true,
            ),
            ("Library/LaunchAgents/x.plist", true),
            ("library/red.py", false),
        ];
        let wrong: Vec<String> = rows
            .iter()
            .filter(|(path, asks)| why_by_name(Path::new(path)).is_some() != *asks)
            .map(|(path, asks)| format!("{path}: asks {}, want {asks}", !asks))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn top_level_names_that_stay_free() {
        let rows: &[(&str, bool)] = &[
            ("readme.md", true),
            ("license", true),
            ("notes.txt", true),
            ("data.csv", true),
            ("logo.png", true),
            ("main.py", false),
            ("config.json", false),
            ("gulpfile.js", false),
            ("todo.sh", false),
        ];
        let wrong: Vec<&str> = rows
            .iter()
            .filter(|(name, free)| inert_at_root(name) != *free)
            .map(|(name, _)| *name)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn python_imports_are_read_by_their_top_module() {
        let text = "import os, yaml.loader as y\n  from requests.adapters import X\n\
                    from . import sibling\nfrom .pkg import z\nx = 1; import NumPy\n\
                    # import commented\nimportlib_thing = 2\n";
        assert_eq!(
            python_imports(text),
            ["os", "yaml", "requests", "numpy"],
            "a comment line starting with `# import` is no import"
        );
    }

    #[test]
    fn manifests_are_known_in_any_case() {
        for name in ["Cargo.toml", "package.json", "App.csproj", "GNUmakefile"] {
            assert!(is_manifest(name), "{name}");
        }
        for name in ["Cargo.toml.bak", "notes.md", "package"] {
            assert!(!is_manifest(name), "{name}");
        }
    }
}

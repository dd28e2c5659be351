//! sandbox/template.rs: builds the read-only root every sandboxed command starts from.
//!
//! The template holds the real bash (and the libraries it links), a do-nothing shim under every
//! command name a command might use, a tiny project tree as the working directory, and the
//! `/.sandbox` hooks. It is built once per [`super::Sandbox`] inside that sandbox's temp dir and
//! only ever used as an overlay lower dir, so no command can change it. It must never copy
//! anything from the host but bash, its libraries and a list of program *names*.
//!
//! The real-programs template ([`build_real`]) copies nothing but `/etc/ld.so.cache` and the
//! `/etc/alternatives` links: its `/usr` is an empty mount point the driver binds the host's
//! `/usr` onto, read-only.

use std::fs;
use std::os::unix::fs::{PermissionsExt, chown, lchown, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{SetupError, Tools};

/// The uid/gid the command runs as ("nobody"): owns the template so that every write the
/// command attempts succeeds and therefore shows up in the overlay's upper dir.
pub const NOBODY: u32 = 65534;

/// Directories whose program names get a shim, besides [`EXTRA_NAMES`]. These are the standard
/// system directories; names found elsewhere on a developer's PATH are covered by the list.
const HOST_BIN_DIRS: &[&str] = &["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/// Programs agents commonly run that a minimal CI image may lack, plus every name in the
/// default allowlist: a missing name would show up as "not found" and hide what bash did next.
const EXTRA_NAMES: &[&str] = &[
    "git",
    "cargo",
    "rustc",
    "rustup",
    "rustfmt",
    "clippy-driver",
    "npm",
    "npx",
    "node",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "pytest",
    "python",
    "python3",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "rg",
    "fd",
    "jq",
    "yq",
    "make",
    "cmake",
    "go",
    "gcc",
    "cc",
    "clang",
    "docker",
    "kubectl",
    "curl",
    "wget",
    "ssh",
    "scp",
    "rsync",
    "tree",
    "hyperfine",
    "shfmt",
    "shellcheck",
    "tsc",
    "eslint",
    "prettier",
    "ruff",
    "mypy",
    "black",
    "java",
    "javac",
    "mvn",
    "gradle",
    "nohup",
    "time",
    "sudo",
    "su",
    "lsof",
    "file",
    "stat",
    "du",
    "df",
    "realpath",
    "diff",
    "patch",
    "less",
    "more",
    "vim",
    "vi",
    "nano",
    "code",
    "gh",
    "tar",
    "zip",
    "unzip",
    "gzip",
    "xz",
    "bat",
    "exa",
    "eza",
    "delta",
    "sqlite3",
    "psql",
    "mysql",
    "redis-cli",
    "perl",
    "ruby",
    "php",
    "lua",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "grep",
    "find",
    "xargs",
    "env",
    "timeout",
    "watch",
    "strace",
    "ltrace",
    "gdb",
];

/// Files of the working directory. Real enough that globs and `cd src` behave as in a checkout;
/// `--output=pwned` is there on purpose: a glob that reaches an argument list can turn into a
/// flag, which is exactly what the analyzer must not allow in restricted positions.
const PROJECT_FILES: &[(&str, &str)] = &[
    ("README.md", "# demo\n"),
    (
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
    ),
    ("Cargo.lock", "version = 4\n"),
    ("Makefile", "all:\n\ttrue\n"),
    ("package.json", "{\"name\": \"demo\"}\n"),
    ("pyproject.toml", "[project]\nname = \"demo\"\n"),
    ("notes.txt", "one\ntwo\n"),
    ("--output=pwned", ""),
    ("src/main.rs", "fn main() {}\n"),
    ("src/lib.rs", "//! demo\n"),
    ("tests/test_demo.py", "def test_x():\n    pass\n"),
    ("docs/guide.md", "guide\n"),
    (".git/HEAD", "ref: refs/heads/main\n"),
    (".git/config", "[core]\n"),
    (".gitignore", "/target\n"),
];

/// Builds the template under `dir/template` and returns its path.
pub fn build(
    dir: &Path,
    tools: &Tools,
    shim_source: &str,
    env_sh: &str,
) -> Result<PathBuf, SetupError> {
    let t = dir.join("template");
    for sub in [
        "bin",
        "usr/bin",
        "usr/local/bin",
        "usr/sbin",
        "sbin",
        "dev",
        "tmp",
        "project",
        "etc",
        "proc",
        "home/nobody",
        ".sandbox",
    ] {
        mkdir(&t.join(sub))?;
    }

    // The real bash and the libraries it links, at the same paths, so the dynamic loader finds
    // them inside the chroot.
    let bash = fs::canonicalize("/bin/bash").map_err(broken("resolve /bin/bash"))?;
    copy(&bash, &t.join("bin/bash"))?;
    for lib in linked_libraries(tools, &bash)? {
        let target = t.join(lib.strip_prefix("/").unwrap_or(&lib));
        if let Some(parent) = target.parent() {
            mkdir(parent)?;
        }
        copy(&lib, &target)?;
    }

    // The shim: static, so it needs nothing from the template's /lib.
    let source = dir.join("shim.c");
    fs::write(&source, shim_source).map_err(broken("write shim.c"))?;
    let shim = t.join(".sandbox/shim");
    let out = Command::new(&tools.gcc)
        .args(["-static", "-Os", "-s", "-o"])
        .arg(&shim)
        .arg(&source)
        .env_clear()
        .env("PATH", super::SYSTEM_PATH)
        .output()
        .map_err(broken("run gcc"))?;
    if !out.status.success() {
        // Almost always a missing static libc (Debian: libc6-dev), which is an environment
        // problem, not a harness bug.
        return Err(SetupError::Missing(format!(
            "gcc -static could not build the shim (install libc6-dev): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    hard_link(&shim, &t.join(".sandbox/notfound"))?;
    for name in shim_names() {
        hard_link(&shim, &t.join("usr/bin").join(&name))?;
    }
    // `bash`/`sh` must be the real shell so that `bash -c '…'` is followed.
    symlink("../../bin/bash", t.join("usr/bin/bash")).map_err(broken("link usr/bin/bash"))?;
    symlink("bash", t.join("bin/sh")).map_err(broken("link bin/sh"))?;

    devices(&t, tools)?;
    write(
        &t.join("etc/passwd"),
        "root:x:0:0::/root:/bin/bash\nnobody:x:65534:65534::/home/nobody:/bin/bash\n",
    )?;
    write(&t.join("etc/group"), "root:x:0:\nnogroup:x:65534:\n")?;
    write(&t.join(".sandbox/env.sh"), env_sh)?;
    for (name, body) in PROJECT_FILES {
        let path = t.join("project").join(name);
        if let Some(parent) = path.parent() {
            mkdir(parent)?;
        }
        write(&path, body)?;
    }

    // Everything belongs to the command's uid so that its writes succeed and get recorded;
    // only the hooks and bash itself stay root's, so a command cannot disable the recording
    // for its own later steps. (The shim is hard-linked: one inode, so all names are root's.)
    chown_tree(&t, NOBODY)?;
    for path in [
        t.join(".sandbox"),
        t.join(".sandbox/env.sh"),
        shim,
        t.join("bin/bash"),
    ] {
        chown(&path, Some(0), Some(0)).map_err(broken("chown to root"))?;
    }
    fs::set_permissions(t.join("tmp"), fs::Permissions::from_mode(0o1777))
        .map_err(broken("chmod /tmp"))?;
    Ok(t)
}

/// Host directories that hold programs and libraries: bound read-only into a real-programs
/// chroot when they are directories, recreated as the same link when they are links (a merged
/// `/usr` makes `/bin` a link to `usr/bin`).
const REAL_ROOT_DIRS: &[&str] = &["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// Builds the real-programs template under `dir/template`: the chroot's skeleton (devices,
/// `/etc` basics, `/tmp`, a home, the `/.sandbox` hooks, an empty `/project`), then whatever
/// `fixtures` adds. Returns its path and the host directories the driver must bind into it.
pub fn build_real(
    dir: &Path,
    tools: &Tools,
    env_sh: &str,
    fixtures: &dyn Fn(&Path) -> Result<(), String>,
) -> Result<(PathBuf, Vec<PathBuf>), SetupError> {
    let t = dir.join("template");
    for sub in [
        "dev",
        "tmp",
        "project",
        "etc",
        "proc",
        "home/nobody",
        ".sandbox/bin",
    ] {
        mkdir(&t.join(sub))?;
    }
    let mut binds = Vec::new();
    for name in REAL_ROOT_DIRS {
        let host = Path::new("/").join(name);
        let Ok(meta) = host.symlink_metadata() else {
            continue;
        };
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&host).map_err(broken("read a root link"))?;
            symlink(&target, t.join(name)).map_err(broken("link a root dir"))?;
        } else if meta.is_dir() {
            let text = host.to_string_lossy();
            if text.contains([' ', '\n']) {
                return Err(SetupError::Missing(format!("cannot bind {text}")));
            }
            mkdir(&t.join(name))?;
            binds.push(host);
        }
    }
    if !binds.iter().any(|b| b == Path::new("/usr")) {
        return Err(SetupError::Missing("/usr is not a directory".to_owned()));
    }
    devices(&t, tools)?;
    write(
        &t.join("etc/passwd"),
        "root:x:0:0::/root:/bin/bash\nnobody:x:65534:65534::/home/nobody:/bin/bash\n",
    )?;
    write(&t.join("etc/group"), "root:x:0:\nnogroup:x:65534:\n")?;
    // The loader cache and the alternatives links (`awk` → gawk, `pager` → less) make the
    // programs resolve as they do on the host; both are only links and an index.
    if Path::new("/etc/ld.so.cache").is_file() {
        copy(Path::new("/etc/ld.so.cache"), &t.join("etc/ld.so.cache"))?;
    }
    if let Ok(entries) = fs::read_dir("/etc/alternatives") {
        mkdir(&t.join("etc/alternatives"))?;
        for entry in entries.flatten() {
            if let Ok(target) = fs::read_link(entry.path()) {
                symlink(&target, t.join("etc/alternatives").join(entry.file_name()))
                    .map_err(broken("copy /etc/alternatives"))?;
            }
        }
    }
    write(&t.join(".sandbox/env.sh"), env_sh)?;
    // bash's not-found hook execs this marker; any program that ignores its arguments will do.
    symlink("/bin/true", t.join(".sandbox/notfound")).map_err(broken("link the marker"))?;
    // Allowlist entries spell Python `python`; a host with only `python3` still runs them.
    let has_python = ["/usr/bin/python", "/usr/local/bin/python"]
        .iter()
        .any(|p| Path::new(p).exists());
    if !has_python && Path::new("/usr/bin/python3").exists() {
        symlink("/usr/bin/python3", t.join(".sandbox/bin/python"))
            .map_err(broken("link python"))?;
    }
    fixtures(&t).map_err(|e| SetupError::Broken(format!("cannot build the fixtures: {e}")))?;
    chown_tree(&t, NOBODY)?;
    for path in [t.join(".sandbox"), t.join(".sandbox/env.sh")] {
        chown(&path, Some(0), Some(0)).map_err(broken("chown to root"))?;
    }
    fs::set_permissions(t.join("tmp"), fs::Permissions::from_mode(0o1777))
        .map_err(broken("chmod /tmp"))?;
    Ok((t, binds))
}

/// `/dev`'s character devices and fd links, as bash and the programs expect them.
fn devices(t: &Path, tools: &Tools) -> Result<(), SetupError> {
    for (name, minor) in [
        ("null", "3"),
        ("zero", "5"),
        ("random", "8"),
        ("urandom", "9"),
    ] {
        let path = t.join("dev").join(name);
        let status = Command::new(&tools.mknod)
            .args(["-m", "666"])
            .arg(&path)
            .args(["c", "1", minor])
            .status()
            .map_err(broken("run mknod"))?;
        if !status.success() {
            return Err(SetupError::Broken(format!(
                "mknod {} failed",
                path.display()
            )));
        }
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        symlink(target, t.join("dev").join(name)).map_err(broken("link /dev entries"))?;
    }
    Ok(())
}

/// Every name on the standard system PATH plus [`EXTRA_NAMES`], except the shells (real bash)
/// and anything that is not a plain file name.
fn shim_names() -> Vec<String> {
    let mut names: Vec<String> = EXTRA_NAMES.iter().map(|n| (*n).to_owned()).collect();
    for dir in HOST_BIN_DIRS {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        names.extend(
            entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok()),
        );
    }
    names.retain(|n| {
        n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b))
            && !matches!(n.as_str(), "." | ".." | "bash" | "sh")
    });
    names.sort();
    names.dedup();
    names
}

/// The absolute paths `ldd` lists for `binary`.
fn linked_libraries(tools: &Tools, binary: &Path) -> Result<Vec<PathBuf>, SetupError> {
    let out = Command::new(&tools.ldd)
        .arg(binary)
        .env_clear()
        .env("PATH", super::SYSTEM_PATH)
        .output()
        .map_err(broken("run ldd"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // Lines look like `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` or
    // `/lib64/ld-linux-x86-64.so.2 (0x…)`; the vdso has no path.
    let libs: Vec<PathBuf> = text
        .split_whitespace()
        .filter(|word| word.starts_with('/'))
        .map(PathBuf::from)
        .collect();
    if libs.is_empty() {
        return Err(SetupError::Broken(format!(
            "ldd {} listed no libraries: {text}",
            binary.display()
        )));
    }
    Ok(libs)
}

fn chown_tree(path: &Path, id: u32) -> Result<(), SetupError> {
    lchown(path, Some(id), Some(id)).map_err(broken("chown template"))?;
    let meta = fs::symlink_metadata(path).map_err(broken("stat template"))?;
    if meta.is_dir() {
        for entry in fs::read_dir(path).map_err(broken("read template"))? {
            chown_tree(&entry.map_err(broken("read template"))?.path(), id)?;
        }
    }
    Ok(())
}

fn mkdir(path: &Path) -> Result<(), SetupError> {
    fs::create_dir_all(path).map_err(broken(&format!("create {}", path.display())))
}

fn write(path: &Path, body: &str) -> Result<(), SetupError> {
    fs::write(path, body).map_err(broken(&format!("write {}", path.display())))
}

fn copy(from: &Path, to: &Path) -> Result<(), SetupError> {
    fs::copy(from, to).map(drop).map_err(broken(&format!(
        "copy {} to {}",
        from.display(),
        to.display()
    )))
}

fn hard_link(from: &Path, to: &Path) -> Result<(), SetupError> {
    fs::hard_link(from, to).map_err(broken(&format!("link {}", to.display())))
}

fn broken(what: &str) -> impl Fn(std::io::Error) -> SetupError + '_ {
    move |e| SetupError::Broken(format!("cannot {what}: {e}"))
}

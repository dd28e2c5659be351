//! sandbox: runs shell commands under real bash in a throwaway root and reports what bash did.
//!
//! This is the differential harness's eyes. It never decides whether what it saw was safe (that
//! is `differential.rs`), and it never touches the host outside its own temp dir: every mount
//! happens in private namespaces that die with the command.
//!
//! # How one command runs
//! ```text
//! Rust ── unshare --mount --net --pid --ipc --uts ── driver.sh batch        (root, batch of N)
//!           └─ per command: unshare --mount --pid ── driver.sh one         (root, fresh pid ns)
//!                mount overlay(template, upper) on merged; mount /proc; ulimit
//!                strace -f ── timeout ── env -i ── chroot --userspec=65534 merged
//!                                                    └─ /bin/bash -c CMD   (uid 65534, cwd /project)
//! ```
//! The template ([`template`]) has the real bash and a do-nothing shim under ~every command
//! name, so whatever bash decides to execute shows up as an `execve` in strace's log without
//! doing anything; unknown names reach `command_not_found_handle`, which execs a marker. Files
//! bash writes or deletes land in the overlay's upper dir. strace runs outside the chroot as
//! root, so the command can neither see nor forge the record.
//!
//! ```ignore
//! let sandbox = sandbox::Sandbox::open_or_skip("my_test")?;   // None: printed why, skip
//! let seen = sandbox.observe(&["ls; touch x"], sandbox::Mode::SUCCEED);
//! assert_eq!(seen[0].written, ["/project/x"]);
//! ```
//!
//! # Real-programs mode
//! [`Sandbox::with_real_programs`] builds a template without shims: the host's `/usr` (and any
//! of `/bin`, `/lib`… that are real directories rather than links into it) is bound read-only
//! into the chroot, so bash runs the real git, sed, python… Everything else stays the same:
//! the same namespaces, the same overlay over a template owned by the command's uid (so its
//! writes land in the upper dir), the same strace record. The caller adds its own fixture
//! trees to the template and picks each command's starting directory with
//! [`Sandbox::observe_in`].

#[cfg(test)]
mod self_test;
mod strace;
mod template;

use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use strace::Call;

/// PATH for every harness process: system directories only, so a developer's `~/.cargo/bin`
/// or pyenv shims can never stand in for strace, mount or chroot.
pub const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Environment variable that turns "skipped: not root / no strace / …" into a test failure.
/// CI sets it so the differential test can never silently stop running there.
pub const REQUIRE_VAR: &str = "CMDGUARD_DIFF_REQUIRE";

/// Environment variable that keeps the sandbox's temp dir (template, traces, upper dirs) for
/// debugging the harness.
pub const KEEP_VAR: &str = "CMDGUARD_SANDBOX_KEEP";

/// Seconds one command may run before it is killed.
const COMMAND_TIMEOUT_S: u64 = 5;
/// Commands per driver process: amortises the namespace and process start-up of a batch while
/// keeping a batch short enough to balance across workers.
const BATCH: usize = 16;
/// Parallel driver processes (CI has 2 cores); `CMDGUARD_SANDBOX_WORKERS` overrides.
const WORKERS: usize = 2;
/// Bytes of the command's stderr kept for reports.
const STDERR_TAIL: usize = 400;

/// PATH of a sandboxed command in shim mode.
const SHIM_MODE_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
/// PATH of a sandboxed command in real-programs mode: the host's PATH order, then the
/// template's own `/.sandbox/bin` (which adds only names the host lacks, such as `python`).
const REAL_MODE_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:/.sandbox/bin";

const DRIVER_SH: &str = include_str!("../../sandbox/driver.sh");
const ENV_SH: &str = include_str!("../../sandbox/env.sh");
const SHIM_C: &str = include_str!("../../sandbox/shim.c");

/// How the shims behave during a run. Commands are run under both so that `a || b` and
/// `a && b` both reach `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// Exit status of every shim.
    pub shim_exit: u8,
    /// `cd`/`pushd`/`popd`/`source` never fail (the template's project tree is small).
    pub lenient: bool,
}

impl Mode {
    /// Every program succeeds and `cd` always works: the "happy path" through `&&` chains.
    pub const SUCCEED: Mode = Mode {
        shim_exit: 0,
        lenient: true,
    };
    /// Every program fails and `cd` fails where bash's would: takes the `||` branches.
    pub const FAIL: Mode = Mode {
        shim_exit: 1,
        lenient: false,
    };
    /// Both modes, for callers that check a property under each.
    pub const BOTH: [Mode; 2] = [Mode::SUCCEED, Mode::FAIL];

    /// A short name for reports.
    pub fn name(self) -> String {
        format!(
            "shims exit {}{}",
            self.shim_exit,
            if self.lenient { ", lenient cd" } else { "" }
        )
    }
}

/// What bash did with one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observation {
    /// The command, exactly as it was handed to `bash -c`.
    pub cmd: Vec<u8>,
    /// Every `execve` by bash or its descendants, in the order strace saw them completed
    /// (pipeline stages race: compare as multisets), failed attempts included.
    pub execs: Vec<Exec>,
    /// Commands bash could not find (via `command_not_found_handle`): their argv.
    pub not_found: Vec<Vec<Vec<u8>>>,
    /// `connect()` attempts (`/dev/tcp`, `/dev/udp`), glibc's nscd probe excluded.
    pub connects: Vec<String>,
    /// Files and new directories created or modified, relative to the chroot (`/project/x`).
    pub written: Vec<String>,
    /// Files of the template that were deleted.
    pub deleted: Vec<String>,
    /// Exit status of the run (bash's, or 137 when killed).
    pub exit: Option<i32>,
    /// The command hit the time limit: the lists above may be incomplete.
    pub timed_out: bool,
    /// The end of bash's stderr, for reports.
    pub stderr: String,
    /// Set when the harness itself failed for this command: nothing above can be trusted.
    pub error: Option<String>,
}

/// One `execve` attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    /// Path given to the kernel: the program that ran (bash resolved PATH already).
    pub path: Vec<u8>,
    /// Its argv, `argv[0]` included (which may differ from `path`: `exec -a`).
    pub argv: Vec<Vec<u8>>,
    /// False when the kernel refused (ENOENT, EACCES, ENOEXEC…): bash *tried* to run it.
    pub ok: bool,
}

/// Why a sandbox could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The machine lacks something the harness needs (root, strace, overlayfs…): skip.
    Missing(String),
    /// Everything is there but building the sandbox failed: a harness bug, fail.
    Broken(String),
}

/// Absolute paths of the host programs the harness runs.
#[derive(Debug, Clone)]
pub struct Tools {
    unshare: PathBuf,
    strace: PathBuf,
    timeout: PathBuf,
    env: PathBuf,
    chroot: PathBuf,
    mknod: PathBuf,
    gcc: PathBuf,
    ldd: PathBuf,
    bash: PathBuf,
}

/// A built template plus the machinery to run commands over it. Dropping it removes its temp
/// dir.
#[derive(Debug)]
pub struct Sandbox {
    dir: TempDir,
    template: PathBuf,
    driver: PathBuf,
    tools: Tools,
    workers: usize,
    /// Host directories bound read-only into the chroot (real-programs mode only).
    binds: Vec<PathBuf>,
    /// PATH of the command.
    path_var: &'static str,
}

/// One command to run and the directory (inside the chroot) it starts in; `None` is
/// `/project`.
type Job<'a> = (Option<&'a str>, &'a [u8]);

/// Serialises runs across every sandbox in the process: libtest runs tests in parallel, and two
/// tests each starting [`WORKERS`] drivers would oversubscribe CI's two cores.
static RUN_LOCK: Mutex<()> = Mutex::new(());

impl Observation {
    /// The command as text, for reports.
    pub fn cmd_text(&self) -> String {
        String::from_utf8_lossy(&self.cmd).into_owned()
    }

    /// A multi-line description of what bash did, for failure reports.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        if let Some(error) = &self.error {
            out.push_str(&format!("    harness error: {error}\n"));
        }
        for exec in &self.execs {
            let argv: Vec<String> = exec.argv.iter().map(|a| show(a)).collect();
            out.push_str(&format!(
                "    exec{} {} argv={argv:?}\n",
                if exec.ok { "" } else { " (failed)" },
                show(&exec.path)
            ));
        }
        for argv in &self.not_found {
            let argv: Vec<String> = argv.iter().map(|a| show(a)).collect();
            out.push_str(&format!("    not found: {argv:?}\n"));
        }
        for c in &self.connects {
            out.push_str(&format!("    connect({c})\n"));
        }
        for w in &self.written {
            out.push_str(&format!("    wrote {w}\n"));
        }
        for d in &self.deleted {
            out.push_str(&format!("    deleted {d}\n"));
        }
        out.push_str(&format!(
            "    exit {:?}{}",
            self.exit,
            if self.timed_out { " (timed out)" } else { "" }
        ));
        if !self.stderr.is_empty() {
            out.push_str(&format!("; stderr tail: {:?}", self.stderr));
        }
        out
    }
}

impl Sandbox {
    /// Checks the machine, builds a template and proves the whole chain on a probe command.
    pub fn new() -> Result<Sandbox, SetupError> {
        let (tools, dir) = Sandbox::prerequisites()?;
        let template = template::build(dir.path(), &tools, SHIM_C, ENV_SH)?;
        Sandbox::finish(tools, dir, template, Vec::new(), SHIM_MODE_PATH)
    }

    /// A sandbox that runs the host's real programs instead of shims (see the module docs).
    /// `fixtures` adds trees to the template (its argument is the template root, as the
    /// chroot's `/`); everything it creates is handed to the command's uid afterwards.
    pub fn with_real_programs(
        fixtures: &dyn Fn(&Path) -> Result<(), String>,
    ) -> Result<Sandbox, SetupError> {
        let (tools, dir) = Sandbox::prerequisites()?;
        let (template, binds) = template::build_real(dir.path(), &tools, ENV_SH, fixtures)?;
        Sandbox::finish(tools, dir, template, binds, REAL_MODE_PATH)
    }

    /// The template's root on the host: where a caller finds its fixtures to analyse them.
    pub fn template(&self) -> &Path {
        &self.template
    }

    fn prerequisites() -> Result<(Tools, TempDir), SetupError> {
        if effective_uid() != Some(0) {
            return Err(SetupError::Missing(
                "not running as root (needs mount/unshare/chroot)".to_owned(),
            ));
        }
        let tools = Tools::find()?;
        let dir = TempDir::new()?;
        Ok((tools, dir))
    }

    fn finish(
        tools: Tools,
        dir: TempDir,
        template: PathBuf,
        binds: Vec<PathBuf>,
        path_var: &'static str,
    ) -> Result<Sandbox, SetupError> {
        let driver = dir.path().join("driver.sh");
        fs::write(&driver, DRIVER_SH)
            .map_err(|e| SetupError::Broken(format!("cannot write driver.sh: {e}")))?;
        let workers = std::env::var("CMDGUARD_SANDBOX_WORKERS")
            .ok()
            .and_then(|w| w.parse().ok())
            .filter(|&w| w > 0)
            .unwrap_or(WORKERS);
        let sandbox = Sandbox {
            dir,
            template,
            driver,
            tools,
            workers,
            binds,
            path_var,
        };
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// [`Sandbox::new`] for tests: on [`SetupError::Missing`] prints a loud skip notice naming
    /// `test` and the reason and returns `None` — unless [`REQUIRE_VAR`] is set, then it panics.
    /// A broken harness always panics.
    pub fn open_or_skip(test: &str) -> Option<Sandbox> {
        Sandbox::skip_unless_built(test, Sandbox::new())
    }

    /// [`Sandbox::with_real_programs`] with the skip rules of [`Sandbox::open_or_skip`].
    pub fn open_real_or_skip(
        test: &str,
        fixtures: &dyn Fn(&Path) -> Result<(), String>,
    ) -> Option<Sandbox> {
        Sandbox::skip_unless_built(test, Sandbox::with_real_programs(fixtures))
    }

    fn skip_unless_built(test: &str, built: Result<Sandbox, SetupError>) -> Option<Sandbox> {
        match built {
            Ok(sandbox) => Some(sandbox),
            Err(SetupError::Missing(why)) => {
                if std::env::var_os(REQUIRE_VAR).is_some() {
                    panic!(
                        "{test}: differential sandbox unavailable and {REQUIRE_VAR} is set: {why}"
                    );
                }
                notice(&format!(
                    "\n*** SKIPPED {test}: the differential sandbox is unavailable: {why}.\n\
                     *** It needs root, unshare (util-linux), strace >= 5.3, overlayfs and \
                     gcc with a static libc; set {REQUIRE_VAR}=1 to make this a failure.\n"
                ));
                None
            }
            Err(SetupError::Broken(why)) => panic!("{test}: differential sandbox is broken: {why}"),
        }
    }

    /// Runs every command once under `mode` and reports what bash did, in input order.
    /// Identical commands are run once. A command holding a NUL byte is not run (execve cannot
    /// pass it to `bash -c`); its observation carries an error saying so.
    pub fn observe<C: AsRef<[u8]>>(&self, cmds: &[C], mode: Mode) -> Vec<Observation> {
        let jobs: Vec<Job<'_>> = cmds.iter().map(|c| (None, c.as_ref())).collect();
        self.observe_jobs(&jobs, mode)
    }

    /// [`Sandbox::observe`] for commands that each start in their own directory (a path
    /// inside the chroot, such as a fixture's `/fx/repo`).
    pub fn observe_in<D: AsRef<str>, C: AsRef<[u8]>>(
        &self,
        jobs: &[(D, C)],
        mode: Mode,
    ) -> Vec<Observation> {
        let jobs: Vec<Job<'_>> = jobs
            .iter()
            .map(|(d, c)| (Some(d.as_ref()), c.as_ref()))
            .collect();
        self.observe_jobs(&jobs, mode)
    }

    fn observe_jobs(&self, jobs: &[Job<'_>], mode: Mode) -> Vec<Observation> {
        let mut unique: Vec<Job<'_>> = jobs.to_vec();
        unique.sort_unstable();
        unique.dedup();
        let runnable: Vec<Job<'_>> = unique
            .iter()
            .copied()
            .filter(|(_, c)| !c.contains(&0))
            .collect();

        let batches: Vec<&[Job<'_>]> = runnable.chunks(BATCH).collect();
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::with_capacity(runnable.len()));
        let _serial = RUN_LOCK
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::thread::scope(|scope| {
            for _ in 0..self.workers.min(batches.len()) {
                scope.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(k) else { break };
                        let seen = self.run_batch(batch, mode);
                        let keyed = batch.iter().copied().zip(seen);
                        results
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .extend(keyed);
                    }
                });
            }
        });
        let by_job: std::collections::HashMap<Job<'_>, Observation> = results
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .into_iter()
            .collect();
        jobs.iter()
            .map(|job| {
                let c = job.1;
                by_job.get(job).cloned().unwrap_or_else(|| Observation {
                    cmd: c.to_vec(),
                    error: Some(if c.contains(&0) {
                        "command holds a NUL byte: execve cannot pass it to bash -c".to_owned()
                    } else {
                        "no observation came back".to_owned()
                    }),
                    ..Observation::default()
                })
            })
            .collect()
    }

    /// One driver process over `jobs`; every command gets an observation, an error one if the
    /// driver died.
    fn run_batch(&self, jobs: &[Job<'_>], mode: Mode) -> Vec<Observation> {
        // Unique per call, so a kept (CMDGUARD_SANDBOX_KEEP) run is never reused.
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let run = self
            .dir
            .path()
            .join(format!("run-{}", RUNS.fetch_add(1, Ordering::Relaxed)));
        let prepared = (|| -> std::io::Result<()> {
            for (i, (cwd, cmd)) in jobs.iter().enumerate() {
                let d = run.join(i.to_string());
                for sub in ["upper", "work", "merged"] {
                    fs::create_dir_all(d.join(sub))?;
                }
                fs::write(d.join("cmd"), cmd)?;
                if let Some(cwd) = cwd {
                    fs::write(d.join("cwd"), cwd)?;
                }
            }
            Ok(())
        })();
        let outcome = prepared.map_err(|e| format!("cannot prepare {}: {e}", run.display()));
        let outcome = outcome.and_then(|()| self.spawn_driver(&run, jobs.len(), mode));
        let seen = jobs
            .iter()
            .enumerate()
            .map(|(i, (_, cmd))| match &outcome {
                Ok(()) => self.collect(&run.join(i.to_string()), cmd),
                Err(e) => Observation {
                    cmd: cmd.to_vec(),
                    error: Some(e.clone()),
                    ..Observation::default()
                },
            })
            .collect();
        // The mounts lived in namespaces that are gone; from here the run dir is plain files.
        if std::env::var_os(KEEP_VAR).is_none() {
            let _ = fs::remove_dir_all(&run);
        }
        seen
    }

    fn spawn_driver(&self, run: &Path, count: usize, mode: Mode) -> Result<(), String> {
        let log = fs::File::create(run.join("driver.log")).map_err(|e| e.to_string())?;
        let t = &self.tools;
        // Bind paths come from the template builder: absolute host directories without spaces.
        let binds: Vec<String> = self
            .binds
            .iter()
            .map(|b| b.to_string_lossy().into_owned())
            .collect();
        let binds = binds.join(" ");
        let mut child = Command::new(&t.unshare)
            .args([
                "--mount",
                "--net",
                "--pid",
                "--ipc",
                "--uts",
                "--fork",
                "--kill-child",
            ])
            .args(["--propagation", "private"])
            .arg(&t.bash)
            .args(["--norc", "--noprofile"])
            .arg(&self.driver)
            .arg("batch")
            .arg(run)
            .arg(count.to_string())
            .env_clear()
            .env("PATH", SYSTEM_PATH)
            .env("SANDBOX_TEMPLATE", &self.template)
            .env("SANDBOX_TIMEOUT", COMMAND_TIMEOUT_S.to_string())
            .env("SANDBOX_SHIM_EXIT", mode.shim_exit.to_string())
            .env("SANDBOX_LENIENT", if mode.lenient { "1" } else { "" })
            .env("SANDBOX_UNSHARE", &t.unshare)
            .env("SANDBOX_STRACE", &t.strace)
            .env("SANDBOX_TIMEOUT_BIN", &t.timeout)
            .env("SANDBOX_ENV", &t.env)
            .env("SANDBOX_CHROOT", &t.chroot)
            .env("SANDBOX_PATH", self.path_var)
            .env("SANDBOX_BINDS", binds)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            // Own process group, so a runaway batch can be killed without touching anything
            // this test did not start.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", t.unshare.display()))?;
        let per_command = COMMAND_TIMEOUT_S + 5;
        let deadline = Instant::now() + Duration::from_secs(30 + per_command * count as u64);
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    let log = fs::read_to_string(run.join("driver.log")).unwrap_or_default();
                    return Err(format!("driver exited with {status}: {}", log.trim()));
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(None) | Err(_) => {
                    // `kill -KILL -PGID`: the group is the driver and its descendants only.
                    let _ = Command::new("/bin/kill")
                        .args(["-KILL", "--", &format!("-{}", child.id())])
                        .status();
                    let _ = child.wait();
                    return Err("batch hit its deadline and was killed".to_owned());
                }
            }
        }
    }

    /// Reads the evidence `driver.sh one` left in `d`.
    fn collect(&self, d: &Path, cmd: &[u8]) -> Observation {
        let mut seen = Observation {
            cmd: cmd.to_vec(),
            ..Observation::default()
        };
        let rc = fs::read_to_string(d.join("rc"))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok());
        let harness_log = || fs::read_to_string(d.join("harness.log")).unwrap_or_default();
        let Some(rc) = rc else {
            seen.error = Some(format!(
                "driver left no exit status: {}",
                harness_log().trim()
            ));
            return seen;
        };
        seen.exit = Some(rc);
        // timeout(1) reports 124 on SIGTERM, 137 when it had to use SIGKILL.
        seen.timed_out = rc == 124 || rc == 137;
        seen.stderr = tail(&fs::read(d.join("stderr")).unwrap_or_default(), STDERR_TAIL);
        let trace = fs::read(d.join("trace")).unwrap_or_default();
        let events = strace::parse(&trace);
        let Some(events) = strace::command_events(&events) else {
            seen.error = Some(format!(
                "bash never started in the chroot (exit {rc}): {}",
                harness_log().trim()
            ));
            return seen;
        };
        for event in events {
            match &event.call {
                Call::Exec { path, argv, ok }
                    if path.as_slice() == b"/.sandbox/notfound" && *ok =>
                {
                    // argv[0] is the marker's own name; the rest is what bash could not find.
                    seen.not_found.push(argv.iter().skip(1).cloned().collect());
                }
                Call::Exec { path, argv, ok } => {
                    seen.execs.push(Exec {
                        path: path.clone(),
                        argv: argv.clone(),
                        ok: *ok,
                    });
                }
                Call::Connect { family, addr } => {
                    // glibc asks nscd for passwd entries when bash starts; that socket cannot
                    // exist in the chroot and is no network access of the command's.
                    if !(family == "AF_UNIX" && addr.contains("\"/var/run/nscd/socket\"")) {
                        seen.connects.push(addr.clone());
                    }
                }
                Call::Spawn { .. } => {}
            }
        }
        changes(&d.join("upper"), Path::new("/"), &self.template, &mut seen);
        seen
    }

    /// Runs `true` and a write through the whole chain: if overlayfs, namespaces or strace do
    /// not work here, say so now instead of reporting every command as a harness error.
    fn probe(&self) -> Result<(), SetupError> {
        let seen = self.observe(&["true > probe"], Mode::SUCCEED);
        match seen.first() {
            Some(o) if o.error.is_none() && o.written == ["/project/probe"] => Ok(()),
            Some(o) => Err(SetupError::Missing(format!(
                "a probe run failed (overlayfs, namespaces or strace do not work here?): {}",
                o.describe().trim()
            ))),
            None => Err(SetupError::Broken("the probe returned nothing".to_owned())),
        }
    }
}

/// Walks an overlay upper dir: whiteouts (0/0 character devices) are deletions; files, links
/// and directories the template lacks are writes. Directories the template has are only
/// copy-up parents of a change below them and are not reported themselves.
fn changes(upper: &Path, rel: &Path, template: &Path, seen: &mut Observation) {
    let Ok(entries) = fs::read_dir(upper) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let rel = rel.join(entry.file_name());
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let shown = rel.to_string_lossy().into_owned();
        if meta.file_type().is_char_device() && meta.rdev() == 0 {
            seen.deleted.push(shown);
        } else if meta.is_dir() {
            let in_template = template.join(rel.strip_prefix("/").unwrap_or(&rel));
            if in_template.symlink_metadata().is_err() {
                seen.written.push(format!("{shown}/"));
            }
            changes(&entry.path(), &rel, template, seen);
        } else {
            seen.written.push(shown);
        }
    }
}

impl Tools {
    fn find() -> Result<Tools, SetupError> {
        let find = |name: &str| -> Result<PathBuf, SetupError> {
            SYSTEM_PATH
                .split(':')
                .map(|dir| Path::new(dir).join(name))
                .find(|p| p.is_file())
                .ok_or_else(|| SetupError::Missing(format!("`{name}` is not installed")))
        };
        let tools = Tools {
            unshare: find("unshare")?,
            strace: find("strace")?,
            timeout: find("timeout")?,
            env: find("env")?,
            chroot: find("chroot")?,
            mknod: find("mknod")?,
            gcc: find("gcc")?,
            ldd: find("ldd")?,
            bash: find("bash")?,
        };
        // --seccomp-bpf (strace 5.3) is what makes tracing cheap; older strace is "missing".
        let help = Command::new(&tools.strace).arg("-h").output();
        let help = help
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if !help.contains("seccomp-bpf") {
            return Err(SetupError::Missing(
                "strace lacks --seccomp-bpf (needs >= 5.3)".to_owned(),
            ));
        }
        Ok(tools)
    }
}

/// A directory under the system temp dir, removed on drop.
#[derive(Debug)]
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, SetupError> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("cmdguard-sandbox.{}.{n}", std::process::id()));
        // The path goes into overlayfs mount options, where `,` and `:` are separators.
        let text = path.to_string_lossy();
        if text.contains([',', ':', ' ', '\n']) || !path.is_absolute() {
            return Err(SetupError::Missing(format!(
                "temp dir {text} is unusable as an overlay path (set TMPDIR)"
            )));
        }
        let _ = fs::remove_dir_all(&path);
        fs::create_dir(&path)
            .map_err(|e| SetupError::Broken(format!("cannot create {text}: {e}")))?;
        Ok(TempDir(path))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os(KEEP_VAR).is_some() {
            notice(&format!("{KEEP_VAR} is set: keeping {}", self.0.display()));
            return;
        }
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The effective uid, from /proc (std has no geteuid and this crate forbids `unsafe`).
fn effective_uid() -> Option<u32> {
    let mut status = String::new();
    fs::File::open("/proc/self/status")
        .ok()?
        .read_to_string(&mut status)
        .ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

fn tail(bytes: &[u8], max: usize) -> String {
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// Prints to the real stderr, past libtest's output capture: a skip notice or a runtime summary
/// that only `--nocapture` would show is a silent pass by another name.
pub fn notice(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Bytes as text for reports; invalid UTF-8 shows as U+FFFD.
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

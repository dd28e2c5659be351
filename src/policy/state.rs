//! policy/state: the opt-in persisted state file that holds [`Grants`] between runs.
//!
//! Every change is a read-modify-write under an exclusive advisory lock on a sibling
//! `<file>.lock`, and every write goes to a temporary file in the same directory that is then
//! renamed over the state file, so a reader sees the old grants or the new ones, never half a
//! file, and two processes granting at once lose nothing. It never reads a corrupt file as
//! anything but an error: the caller treats that as "no grants", never as "allow all".

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::grants::Grants;
use super::prefix::Prefix;

/// The version of the state file format this crate reads and writes.
pub const STATE_VERSION: u32 = 1;

/// A state file: `{"version": 1, "commands": [["npm", "test"]], "write_paths": ["/srv/app"]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFile {
    path: PathBuf,
}

/// Why the state file could not be read or written.
#[derive(Debug)]
pub struct StateError {
    /// The state file.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: StateErrorKind,
}

/// What went wrong with a state file.
#[derive(Debug)]
pub enum StateErrorKind {
    /// Reading, locking or writing failed.
    Io(io::Error),
    /// The file is not a state file: bad JSON, an unknown key, an invalid prefix or path.
    Corrupt(String),
    /// The file was written by a newer cmdguard.
    Version(u64),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.path.display();
        match &self.kind {
            StateErrorKind::Io(e) => write!(f, "state file `{p}`: {e}"),
            StateErrorKind::Corrupt(why) => write!(
                f,
                "state file `{p}` is corrupt ({why}); fix or delete it (until then it grants nothing)"
            ),
            StateErrorKind::Version(v) => write!(
                f,
                "state file `{p}` has version {v}, this cmdguard reads version {STATE_VERSION}; \
                 upgrade cmdguard or delete the file"
            ),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            StateErrorKind::Io(e) => Some(e),
            StateErrorKind::Corrupt(_) | StateErrorKind::Version(_) => None,
        }
    }
}

/// The JSON form on disk.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    version: u64,
    #[serde(default)]
    commands: Vec<Prefix>,
    #[serde(default)]
    write_paths: Vec<PathBuf>,
}

impl StateFile {
    /// The state file at `path` (nothing is read until asked).
    pub fn new(path: impl Into<PathBuf>) -> StateFile {
        StateFile { path: path.into() }
    }

    /// `$XDG_STATE_HOME/cmdguard/state.json`, else `~/.local/state/cmdguard/state.json`;
    /// `None` when neither variable gives an absolute directory.
    pub fn default_path() -> Option<PathBuf> {
        let absolute = |v: std::ffi::OsString| {
            let p = PathBuf::from(v);
            p.is_absolute().then_some(p)
        };
        if let Some(dir) = std::env::var_os("XDG_STATE_HOME").and_then(absolute) {
            return Some(dir.join("cmdguard").join("state.json"));
        }
        let home = std::env::var_os("HOME").and_then(absolute)?;
        Some(home.join(".local/state/cmdguard/state.json"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The grants in the file; none when it does not exist.
    pub fn load(&self) -> Result<Grants, StateError> {
        let _lock = self.lock(LockMode::Shared)?;
        self.read()
    }

    /// Applies `change` to the grants in the file and writes them back, under the lock:
    /// returns the grants as written and what `change` returned. A corrupt file is an error
    /// and is left as it is (nothing a user granted is overwritten).
    pub fn update<R>(
        &self,
        change: impl FnOnce(&mut Grants) -> R,
    ) -> Result<(Grants, R), StateError> {
        if let Some(dir) = self.dir() {
            fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        }
        let _lock = self.lock(LockMode::Exclusive)?;
        let mut grants = self.read()?;
        let r = change(&mut grants);
        self.write(&grants)?;
        Ok((grants, r))
    }

    fn dir(&self) -> Option<&Path> {
        self.path.parent().filter(|d| !d.as_os_str().is_empty())
    }

    fn io(&self, e: io::Error) -> StateError {
        StateError {
            path: self.path.clone(),
            kind: StateErrorKind::Io(e),
        }
    }

    fn lock(&self, mode: LockMode) -> Result<Option<File>, StateError> {
        let mut name = self.path.clone().into_os_string();
        name.push(".lock");
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&name)
        {
            Ok(f) => f,
            // Writers rename whole files into place, so a reader that cannot create the lock
            // (no directory yet, a read-only one) still sees the old grants or the new ones.
            Err(_) if mode == LockMode::Shared => return Ok(None),
            Err(e) => return Err(self.io(e)),
        };
        match mode {
            LockMode::Shared => file.lock_shared(),
            LockMode::Exclusive => file.lock(),
        }
        .map_err(|e| self.io(e))?;
        // The lock is released when the file is closed.
        Ok(Some(file))
    }

    fn read(&self) -> Result<Grants, StateError> {
        let text = match fs::read(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Grants::default()),
            Err(e) => return Err(self.io(e)),
        };
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(Grants::default());
        }
        let disk: OnDisk = serde_json::from_slice(&text).map_err(|e| StateError {
            path: self.path.clone(),
            kind: StateErrorKind::Corrupt(e.to_string()),
        })?;
        if disk.version != u64::from(STATE_VERSION) {
            return Err(StateError {
                path: self.path.clone(),
                kind: StateErrorKind::Version(disk.version),
            });
        }
        let mut grants = Grants {
            commands: disk.commands,
            write_paths: Vec::new(),
        };
        for p in &disk.write_paths {
            grants.add_write_path(p).map_err(|e| StateError {
                path: self.path.clone(),
                kind: StateErrorKind::Corrupt(e.to_string()),
            })?;
        }
        Ok(grants)
    }

    fn write(&self, grants: &Grants) -> Result<(), StateError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let disk = OnDisk {
            version: u64::from(STATE_VERSION),
            commands: grants.commands.clone(),
            write_paths: grants.write_paths.clone(),
        };
        let mut text =
            serde_json::to_vec_pretty(&disk).map_err(|e| self.io(io::Error::other(e)))?;
        text.push(b'\n');
        let file_name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp_name = format!(
            ".{file_name}.{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let tmp = match self.dir() {
            Some(d) => d.join(tmp_name),
            None => PathBuf::from(tmp_name),
        };
        let written = (|| {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(&text)?;
            f.sync_all()?;
            fs::rename(&tmp, &self.path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(self.io(e));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LockMode {
    Shared,
    Exclusive,
}

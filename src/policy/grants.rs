//! policy/grants: what users granted — command prefixes and write paths — as plain data, the
//! same value in memory and in the state file. It never decides a command by itself (see
//! `prefix::covering`) and never grows except through a user's answer or the CLI.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::prefix::Prefix;

/// Command prefixes and write paths a user granted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grants {
    /// "Allow, and remember" answers: token prefixes, each standing in for an allowlist entry.
    #[serde(default)]
    pub commands: Vec<Prefix>,
    /// "Allow and grant writes to this path" answers: absolute, lexically normal paths under
    /// which file tools may write.
    #[serde(default)]
    pub write_paths: Vec<PathBuf>,
}

/// Why a path cannot be granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// The path as given.
    pub path: PathBuf,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not an absolute path; give the full path of the directory or file",
            self.path.display()
        )
    }
}

impl std::error::Error for PathError {}

impl Grants {
    /// Adds `prefix` unless already there; true when it was added.
    pub fn add_command(&mut self, prefix: Prefix) -> bool {
        if self.commands.contains(&prefix) {
            return false;
        }
        self.commands.push(prefix);
        true
    }

    /// Removes `prefix`; true when it was there.
    pub fn remove_command(&mut self, prefix: &Prefix) -> bool {
        let before = self.commands.len();
        self.commands.retain(|p| p != prefix);
        self.commands.len() != before
    }

    /// Adds a write path (absolute; `.` and `..` resolved lexically) unless already there;
    /// true when it was added.
    pub fn add_write_path(&mut self, path: &Path) -> Result<bool, PathError> {
        let path = normal_path(path)?;
        if self.write_paths.contains(&path) {
            return Ok(false);
        }
        self.write_paths.push(path);
        Ok(true)
    }

    /// Removes a write path; true when it was there.
    pub fn remove_write_path(&mut self, path: &Path) -> Result<bool, PathError> {
        let path = normal_path(path)?;
        let before = self.write_paths.len();
        self.write_paths.retain(|p| *p != path);
        Ok(self.write_paths.len() != before)
    }

    /// True when `path` is a granted write path or lies under one. The comparison is lexical
    /// and by whole components (`/srv/app` covers `/srv/app/x`, never `/srv/application`); a
    /// relative path is never covered. File tools resolve symlinks before asking.
    ///
    /// ```
    /// use std::path::Path;
    /// use cmdguard::policy::Grants;
    /// let mut g = Grants::default();
    /// g.add_write_path(Path::new("/srv/app")).unwrap();
    /// assert!(g.may_write(Path::new("/srv/app/src/main.rs")));
    /// assert!(!g.may_write(Path::new("/srv/app/../etc/passwd")));
    /// assert!(!g.may_write(Path::new("/srv/application")));
    /// ```
    pub fn may_write(&self, path: &Path) -> bool {
        let Ok(path) = normal_path(path) else {
            return false;
        };
        self.write_paths.iter().any(|p| path.starts_with(p))
    }

    /// Adds every grant of `other` that is not already here (how concurrent grants merge).
    pub fn merge(&mut self, other: Grants) {
        for p in other.commands {
            self.add_command(p);
        }
        for p in other.write_paths {
            if !self.write_paths.contains(&p) {
                self.write_paths.push(p);
            }
        }
    }
}

/// `path` absolute, with `.` dropped and `..` applied to what precedes it (never above `/`).
pub fn normal_path(path: &Path) -> Result<PathBuf, PathError> {
    if !path.is_absolute() {
        return Err(PathError {
            path: path.to_path_buf(),
        });
    }
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => out.push(c),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
        }
    }
    Ok(out)
}

//! config/trust: the projects whose own config the user has trusted, kept in the user's state
//! directory. It never reads a project's rules; `config.rs` asks it whether it may.
//!
//! Trust is bound to the project's canonical directory **and** to the exact contents of its
//! config files (`.cmdguard.toml`, `.claude/settings.json`, `.claude/settings.local.json`) as
//! they were when the user trusted it: a `git pull` that changes them lapses the trust until
//! the user looks again (`cmdguard config trust`). The contents are stored as they are (these
//! files are small), so the comparison is exact, with no hash to collide.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The project files trust covers, relative to the project directory.
pub const PROJECT_FILES: &[&str] = &[
    ".cmdguard.toml",
    ".claude/settings.json",
    ".claude/settings.local.json",
];

/// The trust store: every trusted project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustStore {
    /// Trusted projects, by canonical directory.
    #[serde(default)]
    pub projects: Vec<TrustedProject>,
}

/// One trusted project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedProject {
    /// The canonical project directory.
    pub dir: PathBuf,
    /// Each file of [`PROJECT_FILES`] as it was when trusted (`None`: absent).
    pub files: BTreeMap<String, Option<String>>,
}

/// What the store says about a project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Trusted, and its files are as they were.
    Trusted,
    /// Never trusted.
    Untrusted,
    /// Trusted once, but these files changed since.
    Changed(Vec<String>),
}

/// The project files of `dir` as they are now (`None`: absent or unreadable).
pub fn snapshot(dir: &Path) -> BTreeMap<String, Option<String>> {
    PROJECT_FILES
        .iter()
        .map(|f| (f.to_string(), std::fs::read_to_string(dir.join(f)).ok()))
        .collect()
}

impl TrustStore {
    /// Reads the store; a missing file is an empty store. A corrupt one is also empty (no
    /// project trusted: the stricter reading), and the returned note says so.
    pub fn load(path: &Path) -> (TrustStore, Option<String>) {
        match std::fs::read_to_string(path) {
            Err(_) => (TrustStore::default(), None),
            Ok(text) => match serde_json::from_str(&text) {
                Ok(store) => (store, None),
                Err(e) => (
                    TrustStore::default(),
                    Some(format!(
                        "{}: the trust store is corrupt ({e}); no project is trusted",
                        path.display()
                    )),
                ),
            },
        }
    }

    /// Writes the store atomically (a temporary file renamed over it).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }

    /// Whether `dir` (canonical) is trusted with its files as they are now.
    pub fn check(&self, dir: &Path) -> Trust {
        let Some(p) = self.projects.iter().find(|p| p.dir == dir) else {
            return Trust::Untrusted;
        };
        let now = snapshot(dir);
        let changed: Vec<String> = now
            .iter()
            .filter(|(f, content)| p.files.get(*f) != Some(*content))
            .map(|(f, _)| f.clone())
            .collect();
        if changed.is_empty() {
            Trust::Trusted
        } else {
            Trust::Changed(changed)
        }
    }

    /// Trusts `dir` (canonical) with its files as they are now, replacing an older entry.
    pub fn trust(&mut self, dir: &Path) {
        self.untrust(dir);
        self.projects.push(TrustedProject {
            dir: dir.to_path_buf(),
            files: snapshot(dir),
        });
    }

    /// Forgets `dir`; true when it was trusted.
    pub fn untrust(&mut self, dir: &Path) -> bool {
        let before = self.projects.len();
        self.projects.retain(|p| p.dir != dir);
        self.projects.len() != before
    }
}

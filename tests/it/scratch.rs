//! A scratch directory for tests that need real files, shared by the table modules.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch directory, removed when dropped.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cmdguard-scratch-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A minimal git directory at `rel` (what git checks: HEAD, objects, refs) with `config`.
    pub(crate) fn gitdir(&self, rel: &str, config: &str) -> PathBuf {
        for sub in ["objects", "refs"] {
            std::fs::create_dir_all(self.0.join(rel).join(sub)).unwrap();
        }
        self.write(&format!("{rel}/HEAD"), "ref: refs/heads/main\n");
        self.write(&format!("{rel}/config"), config)
    }

    /// A work tree at `rel` whose `.git` directory has `config`.
    pub(crate) fn repo(&self, rel: &str, config: &str) -> PathBuf {
        self.gitdir(&format!("{rel}/.git"), config)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

//! budget: the work one analysis may do, shared by everything it spawns — nested `bash -c`
//! and `eval` scripts, wrappers, `find -exec`, brace expansion, the repository read. It never
//! decides safety: it only says when to stop, and the analyser turns a spent budget into an
//! `ask` ([`crate::Code::LimitExceeded`]).
//!
//! Coding agents run a command when their hook times out or crashes, so time and memory are
//! part of the verdict. Each limit of [`Limits`] that counts work counts it here once per
//! analysis, however the input nests: a nested script does not get a fresh allowance.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::limits::Limits;

/// What one analysis may still spend. Interior mutability, so one `&Budget` can be handed to
/// every stage and every nested analysis; an analysis runs on one thread.
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    deadline: Instant,
    /// Bytes of text analysed: the command, each nested script, each brace-expanded word.
    bytes: Cell<usize>,
    segments: Cell<usize>,
    repo_bytes: Cell<u64>,
    depth: Cell<usize>,
    /// Why the budget ran out, once it has.
    spent: Cell<Option<&'static str>>,
    /// Calls since the clock was last read (reading it on every call would cost more than the
    /// work it guards).
    ticks: Cell<u32>,
}

/// Holds one level of recursion; dropping it gives the level back.
#[must_use]
pub(crate) struct Level<'b>(&'b Budget);

impl Drop for Level<'_> {
    fn drop(&mut self) {
        self.0.depth.set(self.0.depth.get().saturating_sub(1));
    }
}

impl Budget {
    /// A fresh budget for one analysis under `limits`; the clock starts now.
    pub(crate) fn new(limits: &Limits) -> Budget {
        Budget {
            limits: *limits,
            deadline: Instant::now() + Duration::from_millis(limits.max_ms),
            bytes: Cell::new(0),
            segments: Cell::new(0),
            repo_bytes: Cell::new(0),
            depth: Cell::new(0),
            spent: Cell::new(None),
            ticks: Cell::new(0),
        }
    }

    /// The limits this budget counts against.
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    fn stop(&self, why: &'static str) -> bool {
        if self.spent.get().is_none() {
            self.spent.set(Some(why));
        }
        false
    }

    /// Why the budget ran out, or `None` while it lasts. Reads the clock.
    pub(crate) fn spent(&self) -> Option<&'static str> {
        if self.spent.get().is_none() && Instant::now() >= self.deadline {
            self.stop("the analysis took longer than its time limit");
        }
        self.spent.get()
    }

    /// True while the budget lasts; reads the clock every 64th call, so it may sit in a loop.
    pub(crate) fn ok(&self) -> bool {
        let t = self.ticks.get().wrapping_add(1);
        self.ticks.set(t);
        if t.is_multiple_of(64) {
            return self.spent().is_none();
        }
        self.spent.get().is_none()
    }

    /// Time left for one step that can only be stopped by the clock (the parser).
    pub(crate) fn time_left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Takes `n` bytes of text to analyse; false (and spent) when they are over the limit.
    pub(crate) fn take_bytes(&self, n: usize) -> bool {
        let total = self.bytes.get().saturating_add(n);
        self.bytes.set(total);
        total <= self.limits.max_total_bytes
            || self
                .stop("the command, its nested scripts and its expansions are over the byte limit")
    }

    /// Bytes of text that may still be produced (by brace expansion).
    pub(crate) fn bytes_left(&self) -> usize {
        self.limits.max_total_bytes.saturating_sub(self.bytes.get())
    }

    /// Takes one segment; false (and spent) when there are more than the limit.
    pub(crate) fn take_segment(&self) -> bool {
        let n = self.segments.get() + 1;
        self.segments.set(n);
        n <= self.limits.max_segments
            || self.stop("the command and its nested scripts have more commands than the limit")
    }

    /// Segments that may still be taken (the fast segmenter checks before it takes any).
    pub(crate) fn segments_left(&self) -> usize {
        self.limits.max_segments.saturating_sub(self.segments.get())
    }

    /// Takes `n` bytes read from a repository; false (and spent) when over the limit.
    pub(crate) fn take_repo_bytes(&self, n: u64) -> bool {
        let total = self.repo_bytes.get().saturating_add(n);
        self.repo_bytes.set(total);
        total <= self.limits.max_repo_bytes
            || self.stop("the repository files git would read are over the byte limit")
    }

    /// Repository bytes that may still be read.
    pub(crate) fn repo_bytes_left(&self) -> u64 {
        self.limits
            .max_repo_bytes
            .saturating_sub(self.repo_bytes.get())
    }

    /// Enters one level of recursion (a nested script, a wrapper, a `find -exec`): `None`
    /// (and spent) when that would go deeper than the limit or the budget is gone.
    pub(crate) fn enter(&self) -> Option<Level<'_>> {
        if !self.ok() {
            return None;
        }
        let d = self.depth.get() + 1;
        if d > self.limits.max_depth {
            self.stop("commands nest (through wrappers, nested scripts or `find -exec`) deeper than the limit");
            return None;
        }
        self.depth.set(d);
        Some(Level(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_shared_and_stop_once() {
        let limits = Limits {
            max_total_bytes: 10,
            max_depth: 2,
            ..Limits::default()
        };
        let b = Budget::new(&limits);
        assert!(b.take_bytes(6));
        assert_eq!(b.bytes_left(), 4);
        {
            let _one = b.enter().unwrap();
            let _two = b.enter().unwrap();
            assert!(b.spent().is_none());
        }
        let again = b.enter();
        assert!(again.is_some());
        drop(again);
        assert!(!b.take_bytes(6));
        let why = b.spent().unwrap();
        assert!(why.contains("byte limit"), "{why}");
        // The first reason stays; nothing more may start.
        assert!(b.enter().is_none());
        assert_eq!(b.spent(), Some(why));
    }

    #[test]
    fn depth_past_the_limit_spends_the_budget() {
        let limits = Limits {
            max_depth: 1,
            ..Limits::default()
        };
        let b = Budget::new(&limits);
        let _one = b.enter().unwrap();
        assert!(b.enter().is_none());
        assert!(b.spent().unwrap().contains("deeper"));
    }

    /// `allowlist.toml`'s `[limits]` table lists every limit, with the built-in value.
    #[test]
    fn the_limits_table_documents_the_defaults() {
        assert_eq!(*crate::Allowlist::default().limits(), Limits::default());
        let keys = serde_json::to_value(Limits::default()).unwrap();
        let table = format!(
            "\n{}",
            crate::DEFAULT_ALLOWLIST
                .split("\n[limits]\n")
                .nth(1)
                .unwrap()
        );
        for key in keys.as_object().unwrap().keys() {
            assert!(
                table.contains(&format!("\n{key} =")),
                "`{key}` is not in [limits]"
            );
        }
    }

    #[test]
    fn the_clock_runs_out() {
        let limits = Limits {
            max_ms: 0,
            ..Limits::default()
        };
        let b = Budget::new(&limits);
        assert!(b.spent().unwrap().contains("time"));
        assert_eq!(b.time_left(), Duration::ZERO);
    }
}

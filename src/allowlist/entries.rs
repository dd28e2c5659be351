//! allowlist/entries: the `[[allow]]` entries by program name, the embedded ones compiled
//! when their program is first looked up. It decides nothing about a command; `check.rs`
//! reads the entries.
//!
//! Why lazily: the embedded allowlist holds 150-odd entries (60% of its text), and
//! deserialising and compiling all of them was a sixth of a `cmdguard check` process (7.35 M
//! instructions before, 6.20 M after, for `git status`), while one command reaches the
//! entries of a program or two. Start-up now reads only the first
//! word of each entry's `command`, straight from the build-time form (`embedded.rs`), to
//! file it under its program; the entry itself is deserialised and compiled, through the
//! same `Raw*` types and `compile_entry` as an eager one, the first time its program is
//! looked up. Everything else stays eager: a user's file is compiled and checked in full when
//! it loads (a bad entry is an error with its line, column and key), and so is the embedded
//! one whenever its examples are kept ([`AllowlistBuilder::build`](super::AllowlistBuilder)
//! and the tests, which prove every embedded entry compiles). Each program's slot holds a
//! `OnceLock`, so an allowlist shared between threads compiles each program once, without
//! global state.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use super::embedded::{Item, Node};
use super::toml::RawEntry;
use super::{Entry, Examples, LineStarts, Regexes, Text, compile_entry};

/// The `[[allow]]` entries by the first word of their `command`.
#[derive(Clone, Default)]
pub(crate) struct Entries(HashMap<String, Slot>);

/// One program's entries, in the order the sources list them.
#[derive(Clone, Default)]
struct Slot {
    pending: Vec<Pending>,
    compiled: OnceLock<Vec<Entry>>,
}

/// An entry as added: compiled, or an embedded one still in its build-time form.
#[derive(Clone)]
enum Pending {
    // Boxed: an entry is twenty times the size of a deferred one.
    Compiled(Box<Entry>),
    Deferred(&'static Item, Arc<Deferred>),
}

/// What compiling an embedded entry later needs: where its source is, and the option sets
/// as they stood when the source was read (a later file's set of the same name must not
/// change it).
pub(crate) struct Deferred {
    pub text: &'static str,
    pub origin: String,
    pub lines: &'static [usize],
    pub option_sets: HashMap<String, Arc<[String]>>,
}

impl Entries {
    /// Adds a compiled entry under its first word.
    pub(crate) fn push(&mut self, entry: Entry) {
        let key = entry.words.first().cloned().unwrap_or_default();
        self.slot(key)
            .pending
            .push(Pending::Compiled(Box::new(entry)));
    }

    /// Adds an embedded entry, to be compiled when `program` is first looked up.
    pub(crate) fn defer(&mut self, program: &str, entry: &'static Item, from: &Arc<Deferred>) {
        self.slot(program.to_string())
            .pending
            .push(Pending::Deferred(entry, Arc::clone(from)));
    }

    fn slot(&mut self, key: String) -> &mut Slot {
        let slot = self.0.entry(key).or_default();
        // A slot changed after it was read compiles again.
        slot.compiled = OnceLock::new();
        slot
    }

    /// The entries whose command starts with `program`, in the order they were added.
    pub(crate) fn get(&self, program: &str) -> Option<&[Entry]> {
        self.0.get(program).map(Slot::entries)
    }

    /// Every program's entries (each program compiled as it is reached).
    #[cfg(test)]
    pub(crate) fn values(&self) -> impl Iterator<Item = &[Entry]> {
        self.0.values().map(Slot::entries)
    }

    /// Every program with its entries.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &[Entry])> {
        self.0.iter().map(|(k, s)| (k, s.entries()))
    }

    /// How many entries were added, compiled or not.
    pub(crate) fn count(&self) -> usize {
        self.0.values().map(|s| s.pending.len()).sum()
    }
}

impl Slot {
    fn entries(&self) -> &[Entry] {
        self.compiled.get_or_init(|| {
            self.pending
                .iter()
                .filter_map(|p| match p {
                    Pending::Compiled(e) => Some(Entry::clone(e)),
                    Pending::Deferred(item, from) => from.compile(item),
                })
                .collect()
        })
    }
}

impl Deferred {
    /// The entry, deserialised and compiled as an eager one is. `None` only if the embedded
    /// entry were broken, which the tests rule out; the entry is then missing, and its
    /// commands ask (or a shorter entry of the program judges them, as when the broken one
    /// is not written).
    fn compile(&self, item: &'static Item) -> Option<Entry> {
        let raw: RawEntry = serde::Deserialize::deserialize(Node::without_examples(item)).ok()?;
        let cx = Text {
            text: self.text,
            origin: &self.origin,
            lines: LineStarts(std::borrow::Cow::Borrowed(self.lines)),
            regexes: Regexes::OnUse,
            examples: Examples::Drop,
        };
        compile_entry(&cx, raw, &self.option_sets, &mut Vec::new()).ok()
    }
}

impl fmt::Debug for Entries {
    // The entries themselves, compiled if they were not yet: a lazy list and an eager one
    // with the same content print the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, s)| (k, s.entries())))
            .finish()
    }
}

impl fmt::Debug for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries()).finish()
    }
}

impl fmt::Debug for Deferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deferred")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

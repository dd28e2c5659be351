//! allowlist/sensitive: the compiled `[sensitive]` table — path patterns whose reading asks,
//! the exceptions inside them, and the variable names that look like secrets — plus the glob
//! algebra the check needs. It never looks at a command (that is `check/sensitive.rs`).
//!
//! Why hand-written rather than the `globset` crate: globset answers "does this path match",
//! but the check also has to answer "can anything this glob or recursive search reaches match"
//! (`cat ~/.ssh/*`, `grep -r x ~`), which is the intersection of two patterns, and "is
//! everything this glob reaches an exception" (`cat ~/.ssh/*.pub`), which is containment.
//! Both are small dynamic programmes over the token lists below; globset exposes no tokens.
//!
//! The table is kept as written and compiled on first use ([`Sensitive`] derefs to the
//! compiled [`Globs`]): its few hundred patterns, one glob per home for each `~/` pattern,
//! cost 2.7 M instructions to parse, a quarter of a `cmdguard check` process, and most
//! commands (`git status`, `ls -la`) never consult it. A user's file has each pattern compiled
//! once at load as well, so that a bad one is still a load error with its line and key; the
//! embedded patterns are compiled by a test.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

/// One element of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A literal character.
    Lit(char),
    /// `?`: one character other than `/`.
    One,
    /// `[…]`: one character (never `/`) in (or, negated, not in) the ranges.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    /// `*`: any run of characters without `/`.
    Star,
    /// `**`, or a run-time value: any run of characters, `/` included.
    Any,
}

/// A compiled glob: its tokens, and whether wildcards follow the shell's rule that they do not
/// match a leading `.` of a file name (true for globs bash expands, false for config patterns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    pub toks: Vec<Tok>,
    pub dot_rule: bool,
}

/// Why a pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GlobError(pub String);

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The homes `~/` in a pattern stands for: the command's own `~`, and the usual places of any
/// user's home (so `/home/u/.ssh/id_rsa` and `/root/.netrc` match too). The analysis rewrites
/// a path under the known `$HOME` to `~/…` first.
const HOMES: &[&str] = &["~", "/root", "/home/*", "/Users/*"];

impl Glob {
    /// Compiles a config pattern. `~/x` is anchored in every home; a pattern that does not start
    /// with `/` or `~/` matches at any depth (`*.pem` is `**/*.pem`). Returns one glob per home.
    pub(crate) fn config(pattern: &str) -> Result<Vec<Glob>, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError("empty pattern".into()));
        }
        let texts: Vec<String> = if let Some(rest) = pattern.strip_prefix("~/") {
            HOMES.iter().map(|h| format!("{h}/{rest}")).collect()
        } else if pattern.starts_with('/') || pattern.starts_with("**") {
            vec![pattern.to_string()]
        } else if pattern.starts_with('~') {
            return Err(GlobError(format!(
                "`{pattern}`: only `~/` is understood (another user's home is `/home/NAME/…`)"
            )));
        } else {
            vec![format!("**/{pattern}")]
        };
        texts
            .iter()
            .map(|t| {
                Ok(Glob {
                    toks: parse(t)?,
                    dot_rule: false,
                })
            })
            .collect()
    }

    /// True when the glob can only match paths at a fixed place (`/…`, a home), not at any depth.
    pub(crate) fn anchored(&self) -> bool {
        matches!(self.toks.first(), Some(Tok::Lit('/' | '~')))
    }

    /// The glob of a literal path.
    pub(crate) fn literal(path: &str) -> Glob {
        Glob {
            toks: path.chars().map(Tok::Lit).collect(),
            dot_rule: false,
        }
    }
}

/// Parses glob syntax: `*`, `**`, `?`, `[…]` (with `!` or `^` negation), `\` escapes.
pub(crate) fn parse(text: &str) -> Result<Vec<Tok>, GlobError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::with_capacity(chars.len());
    let mut k = 0;
    while k < chars.len() {
        match chars[k] {
            '\\' => {
                let c = *chars
                    .get(k + 1)
                    .ok_or_else(|| GlobError(format!("`{text}` ends with a lone backslash")))?;
                toks.push(Tok::Lit(c));
                k += 2;
            }
            '*' => {
                if chars.get(k + 1) == Some(&'*') {
                    while chars.get(k) == Some(&'*') {
                        k += 1;
                    }
                    toks.push(Tok::Any);
                } else {
                    toks.push(Tok::Star);
                    k += 1;
                }
            }
            '?' => {
                toks.push(Tok::One);
                k += 1;
            }
            '[' => {
                let (tok, next) = class(&chars, k).ok_or_else(|| {
                    GlobError(format!("`{text}` has a `[` without its closing `]`"))
                })?;
                toks.push(tok);
                k = next;
            }
            c => {
                toks.push(Tok::Lit(c));
                k += 1;
            }
        }
    }
    Ok(toks)
}

/// A bracket expression starting at `chars[at] == '['`: the token and the index after `]`.
pub(crate) fn class(chars: &[char], at: usize) -> Option<(Tok, usize)> {
    let mut k = at + 1;
    let negated = matches!(chars.get(k), Some('!' | '^'));
    if negated {
        k += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(k) {
        if c == ']' && !first {
            return Some((Tok::Class { ranges, negated }, k + 1));
        }
        first = false;
        if c == '[' && chars.get(k + 1) == Some(&':') {
            // A character class name (`[:alpha:]`): any character, as far as this check goes.
            let end = (k + 2..chars.len().saturating_sub(1))
                .find(|&e| chars[e] == ':' && chars[e + 1] == ']')?;
            ranges.push(('\0', char::MAX));
            k = end + 2;
            continue;
        }
        let c = if c == '\\' {
            k += 1;
            *chars.get(k)?
        } else {
            c
        };
        if chars.get(k + 1) == Some(&'-') && chars.get(k + 2).is_some_and(|&e| e != ']') {
            let e = chars[k + 2];
            ranges.push((c.min(e), c.max(e)));
            k += 3;
        } else {
            ranges.push((c, c));
            k += 1;
        }
    }
    None
}

impl Tok {
    /// Whether the token (one that consumes a character) accepts `c`.
    fn accepts(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::One | Tok::Star => c != '/',
            Tok::Any => true,
            Tok::Class { ranges, negated } => {
                c != '/' && (ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated)
            }
        }
    }

    /// Characters worth trying to find one both tokens accept: every boundary of their ranges.
    fn candidates(&self, out: &mut Vec<char>) {
        match self {
            Tok::Lit(c) => out.push(*c),
            Tok::Class { ranges, .. } => {
                for &(a, b) in ranges {
                    out.push(a);
                    out.push(b);
                    out.extend(char::from_u32(a as u32 - 1));
                    out.extend(char::from_u32(b as u32 + 1));
                }
            }
            Tok::One | Tok::Star | Tok::Any => {}
        }
    }

    fn repeats(&self) -> bool {
        matches!(self, Tok::Star | Tok::Any)
    }

    /// Whether a wildcard of a shell glob, bound by the leading-dot rule (a run-time value,
    /// `Any`, is not).
    fn wild(&self) -> bool {
        matches!(self, Tok::One | Tok::Star | Tok::Class { .. })
    }
}

/// True when some path matches both globs. `a`'s wildcards follow its `dot_rule`.
pub(crate) fn intersects(a: &Glob, b: &Glob) -> bool {
    // Most pairs a check tries differ in a literal prefix (`/proc/…` against `src/…`) or a
    // literal suffix (`….pem` against `….rs`): a path matching both would have to start (end)
    // with each one's literal characters, so they must agree wherever both are literal. This
    // answers most calls without the search below and its allocations.
    let lit = |t: &Tok| match t {
        Tok::Lit(c) => Some(*c),
        _ => None,
    };
    let literal_pairs = |x: &mut dyn Iterator<Item = (&Tok, &Tok)>| {
        x.map_while(|(p, q)| Some((lit(p)?, lit(q)?)))
            .any(|(p, q)| p != q)
    };
    let disjoint = literal_pairs(&mut a.toks.iter().zip(&b.toks))
        || literal_pairs(&mut a.toks.iter().rev().zip(b.toks.iter().rev()));
    !disjoint && search_intersection(a, b)
}

/// [`intersects`] by a search over pairs of positions in the two globs.
fn search_intersection(a: &Glob, b: &Glob) -> bool {
    let (n, m) = (a.toks.len(), b.toks.len());
    // State: position in each glob, and whether the next character starts a file name.
    let idx = |i: usize, j: usize, s: bool| (i * (m + 1) + j) * 2 + usize::from(s);
    let mut seen = vec![false; (n + 1) * (m + 1) * 2];
    let mut stack = vec![(0usize, 0usize, true)];
    let mut cands = Vec::new();
    while let Some((i, j, s)) = stack.pop() {
        if std::mem::replace(&mut seen[idx(i, j, s)], true) {
            continue;
        }
        if i == n && j == m {
            return true;
        }
        let ta = a.toks.get(i);
        let tb = b.toks.get(j);
        if ta.is_some_and(Tok::repeats) {
            stack.push((i + 1, j, s));
        }
        if tb.is_some_and(Tok::repeats) {
            stack.push((i, j + 1, s));
        }
        let (Some(ta), Some(tb)) = (ta, tb) else {
            continue;
        };
        let next_i = if ta.repeats() { i } else { i + 1 };
        let next_j = if tb.repeats() { j } else { j + 1 };
        if ta.accepts('/') && tb.accepts('/') {
            stack.push((next_i, next_j, true));
        }
        let dot_banned = s && a.dot_rule && ta.wild();
        cands.clear();
        ta.candidates(&mut cands);
        tb.candidates(&mut cands);
        // A character no range names: in every wildcard and negated class.
        cands.push('\u{e000}');
        cands.push('a');
        if cands
            .iter()
            .any(|&c| c != '/' && !(dot_banned && c == '.') && ta.accepts(c) && tb.accepts(c))
        {
            stack.push((next_i, next_j, false));
        }
    }
    false
}

/// True when every path `a` matches is matched by `b` (a sufficient test: `b`'s wildcards
/// must cover `a`'s token by token).
pub(crate) fn contained(a: &Glob, b: &Glob) -> bool {
    let (n, m) = (a.toks.len(), b.toks.len());
    let idx = |i: usize, j: usize| i * (m + 1) + j;
    let mut seen = vec![false; (n + 1) * (m + 1)];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        if std::mem::replace(&mut seen[idx(i, j)], true) {
            continue;
        }
        if i == n && j == m {
            return true;
        }
        let Some(tb) = b.toks.get(j) else { continue };
        if tb.repeats() {
            stack.push((i, j + 1));
        }
        let Some(ta) = a.toks.get(i) else { continue };
        if covers(tb, ta) {
            if tb.repeats() {
                stack.push((i + 1, j));
            } else {
                stack.push((i + 1, j + 1));
            }
        }
    }
    false
}

/// Whether every character token `a` consumes is accepted by `b` (`a` consumed as a whole).
fn covers(b: &Tok, a: &Tok) -> bool {
    match (b, a) {
        (Tok::Any, _) => true,
        (_, Tok::Lit(c)) => b.accepts(*c),
        (Tok::Star, Tok::One | Tok::Star | Tok::Class { .. }) => true,
        (Tok::One, Tok::One | Tok::Class { .. }) => true,
        (Tok::Class { .. }, _) | (_, Tok::Any) | (Tok::Lit(_), _) | (Tok::One, Tok::Star) => false,
    }
}

/// Which of the table's patterns a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// Every pattern.
    All,
    /// Patterns fixed to a place (`/proc/…`, a home): what a recursive search can reach.
    Anchored,
    /// Patterns that match at any depth (`**/.env`, `*.pem`).
    AnyDepth,
}

/// The `[sensitive]` table: its patterns as written, in the order the files list them, and
/// their compiled form ([`Globs`]), built on first use. It derefs to the compiled form, so a
/// check reads `table.paths` or calls `table.reaches(…)` whichever it holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sensitive {
    written: Written,
    compiled: OnceLock<Globs>,
}

/// The lists of `[sensitive]`, as the files write them.
#[derive(Debug, Clone, Default)]
struct Written {
    paths: Vec<String>,
    allow_paths: Vec<String>,
    secret_vars: Vec<String>,
    public_vars: Vec<String>,
    public_paths: Vec<String>,
}

/// One list of `[sensitive]`: which key it is, which decides how its patterns compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    /// `paths`: config globs (`~/x` in every home, a relative pattern at any depth).
    Paths,
    /// `allow_paths`: config globs.
    AllowPaths,
    /// `secret_vars`: name globs, upper-cased.
    SecretVars,
    /// `public_vars`: name globs, upper-cased.
    PublicVars,
    /// `public_paths`: config globs.
    PublicPaths,
}

impl List {
    /// The key the list has in `[sensitive]`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            List::Paths => "paths",
            List::AllowPaths => "allow_paths",
            List::SecretVars => "secret_vars",
            List::PublicVars => "public_vars",
            List::PublicPaths => "public_paths",
        }
    }

    /// The globs of one pattern of this list.
    pub(crate) fn compile(self, pattern: &str) -> Result<Vec<Glob>, GlobError> {
        match self {
            List::SecretVars | List::PublicVars => Ok(vec![Glob {
                toks: parse(&self.text(pattern))?,
                dot_rule: false,
            }]),
            List::Paths | List::AllowPaths | List::PublicPaths => Glob::config(pattern),
        }
    }

    /// The pattern as the list compiles it: variable names compare in upper case.
    fn text(self, pattern: &str) -> String {
        match self {
            List::SecretVars | List::PublicVars => pattern.to_ascii_uppercase(),
            List::Paths | List::AllowPaths | List::PublicPaths => pattern.to_string(),
        }
    }

    /// What stands for a pattern that does not compile, which only a broken embedded table
    /// could hold (a user's file is refused at load, and a test compiles the embedded one):
    /// the choice that asks more. A secret path or variable name becomes "anything"; an
    /// exception or a public place is left out.
    fn broken(self) -> Vec<Glob> {
        match self {
            List::Paths | List::SecretVars => vec![Glob {
                toks: vec![Tok::Any],
                dot_rule: false,
            }],
            List::AllowPaths | List::PublicVars | List::PublicPaths => Vec::new(),
        }
    }
}

impl Sensitive {
    /// Appends `pattern` to `list`, to be compiled on first use. Lists only grow: a user file
    /// adds paths, or turns a default off through `allow_paths`.
    pub(crate) fn push(&mut self, list: List, pattern: String) {
        let w = &mut self.written;
        let to = match list {
            List::Paths => &mut w.paths,
            List::AllowPaths => &mut w.allow_paths,
            List::SecretVars => &mut w.secret_vars,
            List::PublicVars => &mut w.public_vars,
            List::PublicPaths => &mut w.public_paths,
        };
        to.push(pattern);
        // A table changed after it was read compiles again.
        self.compiled = OnceLock::new();
    }

    /// The compiled table, built on the first call.
    pub(crate) fn globs(&self) -> &Globs {
        self.compiled.get_or_init(|| Globs::compile(&self.written))
    }
}

impl Deref for Sensitive {
    type Target = Globs;

    fn deref(&self) -> &Globs {
        self.globs()
    }
}

/// The compiled `[sensitive]` table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Globs {
    /// Paths whose reading asks, each with the pattern as written (for messages).
    pub paths: Vec<(String, Glob)>,
    /// Exceptions inside them (`~/.ssh/*.pub`).
    pub allow_paths: Vec<Glob>,
    /// Variable names that look like secrets (`*TOKEN*`), upper-cased.
    pub secret_vars: Vec<Glob>,
    /// Variables known to hold nothing secret (`PATH`, `HOME`, `AWS_REGION`): expanding any
    /// other variable where its value can be printed asks.
    pub public_vars: Vec<Glob>,
    /// Places outside the working directory whose files are public (`/usr/**`, a toolchain's
    /// package cache): reading any other file outside it asks.
    pub public_paths: Vec<Glob>,
    /// `paths` by their last character, built on first use.
    by_last: ByLast,
}

/// The path patterns by their last character: a literal path, or a glob that ends in a
/// literal, cannot match a pattern that ends in a different literal ([`intersects`] rejects
/// that pair at once), so such a path meets only the patterns ending in its own last character
/// and those ending in a wildcard — a few of the table's hundreds.
#[derive(Clone, Default)]
struct ByLast(OnceLock<LastIndex>);

impl fmt::Debug for ByLast {
    // Whether the index was built yet is no part of the table's value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ByLast")
    }
}

#[derive(Clone, Default)]
struct LastIndex {
    /// How many patterns the table held when this was built: a different count means the
    /// index is stale, and every pattern is tried.
    paths: usize,
    /// Patterns ending in this literal character, in the table's order.
    by_char: HashMap<char, Vec<u32>>,
    /// Patterns ending in anything else (a wildcard), in the table's order.
    other: Vec<u32>,
}

impl LastIndex {
    fn build(paths: &[(String, Glob)]) -> LastIndex {
        let mut index = LastIndex {
            paths: paths.len(),
            ..LastIndex::default()
        };
        for (k, (_, g)) in paths.iter().enumerate() {
            let Ok(k) = u32::try_from(k) else {
                index.paths = usize::MAX;
                break;
            };
            match g.toks.last() {
                Some(Tok::Lit(c)) => index.by_char.entry(*c).or_default().push(k),
                _ => index.other.push(k),
            }
        }
        index
    }
}

impl Globs {
    /// Compiles the lists as written, each pattern as [`List::compile`] does it.
    fn compile(w: &Written) -> Globs {
        let all = |list: List, patterns: &[String]| -> Vec<Glob> {
            patterns
                .iter()
                .flat_map(|p| list.compile(p).unwrap_or_else(|_| list.broken()))
                .collect()
        };
        Globs {
            paths: w
                .paths
                .iter()
                .flat_map(|p| {
                    let globs = List::Paths
                        .compile(p)
                        .unwrap_or_else(|_| List::Paths.broken());
                    globs.into_iter().map(|g| (p.clone(), g))
                })
                .collect(),
            allow_paths: all(List::AllowPaths, &w.allow_paths),
            secret_vars: all(List::SecretVars, &w.secret_vars),
            public_vars: all(List::PublicVars, &w.public_vars),
            public_paths: all(List::PublicPaths, &w.public_paths),
            by_last: ByLast::default(),
        }
    }

    /// The pattern a path glob can reach among those `which` selects, unless every path it
    /// reaches is an exception.
    pub(crate) fn reaches(&self, path: &Glob, which: Which) -> Option<&str> {
        let fits = |g: &Glob| {
            let kind = match which {
                Which::All => true,
                Which::Anchored => g.anchored(),
                Which::AnyDepth => !g.anchored(),
            };
            kind && intersects(path, g)
        };
        let pattern = self.first_path(path, fits)?;
        if self.allow_paths.iter().any(|g| contained(path, g)) {
            return None;
        }
        Some(pattern)
    }

    /// The first pattern of `paths`, in the table's order, that `fits`, where `fits` is false
    /// for every pattern `path` does not [`intersect`](intersects): only the patterns that can
    /// intersect `path` by their last character are tried (see [`ByLast`]).
    fn first_path(&self, path: &Glob, fits: impl Fn(&Glob) -> bool) -> Option<&str> {
        let index = self.by_last.0.get_or_init(|| LastIndex::build(&self.paths));
        let last = match path.toks.last() {
            Some(Tok::Lit(c)) if index.paths == self.paths.len() && !unindexed() => *c,
            _ => {
                let (pattern, _) = self.paths.iter().find(|(_, g)| fits(g))?;
                return Some(pattern);
            }
        };
        let same = index.by_char.get(&last).map_or(&[][..], Vec::as_slice);
        let other = index.other.as_slice();
        // The two lists merged, so the first pattern that fits is the table's first.
        let (mut i, mut j) = (0, 0);
        loop {
            let k = match (same.get(i), other.get(j)) {
                (Some(&a), Some(&b)) if a < b => {
                    i += 1;
                    a
                }
                (_, Some(&b)) => {
                    j += 1;
                    b
                }
                (Some(&a), None) => {
                    i += 1;
                    a
                }
                (None, None) => return None,
            };
            let (pattern, g) = self.paths.get(k as usize)?;
            if fits(g) {
                return Some(pattern);
            }
        }
    }

    /// True when a variable named `name` looks like it holds a secret (and is not public).
    pub(crate) fn secret_var(&self, name: &str) -> bool {
        self.secret_named(name) && !self.public_var(name)
    }

    /// True when a `secret_vars` pattern matches `name` (compared in upper case).
    fn secret_named(&self, name: &str) -> bool {
        let upper = Glob::literal(&name.to_ascii_uppercase());
        self.secret_vars.iter().any(|g| contained(&upper, g))
    }

    /// True when `public_vars` lists `name`. Names compare as written: the patterns are upper
    /// case, so a lower-case name (`http_proxy`, which may carry a password) is never public.
    /// A name listed exactly is public even when it looks like a secret (`AWS_REGION`); one
    /// only a wildcard covers is not when it does (`LC_API_TOKEN`, `XDG_SESSION_COOKIE`: `LC_*`
    /// is what sshd forwards by default, a way tokens travel).
    pub(crate) fn public_var(&self, name: &str) -> bool {
        let glob = Glob::literal(name);
        let exact = |g: &Glob| g.toks.iter().all(|t| matches!(t, Tok::Lit(_)));
        let matching: Vec<&Glob> = self
            .public_vars
            .iter()
            .filter(|g| contained(&glob, g))
            .collect();
        matching.iter().any(|g| exact(g)) || (!matching.is_empty() && !self.secret_named(name))
    }

    /// True when every path `path` reaches lies in a public place (`public_paths`) or is one
    /// of the exceptions (`allow_paths`: `*.pub`, `~/.ssh/known_hosts`).
    pub(crate) fn public_path(&self, path: &Glob) -> bool {
        self.public_paths
            .iter()
            .chain(&self.allow_paths)
            .any(|g| contained(path, g))
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the tests that prove the index changes nothing: every pattern is tried.
    static UNINDEXED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the tests turned the index off.
fn unindexed() -> bool {
    #[cfg(test)]
    return UNINDEXED.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str) -> Glob {
        Glob {
            toks: parse(text).unwrap(),
            dot_rule: true,
        }
    }

    fn cfg(text: &str) -> Vec<Glob> {
        Glob::config(text).unwrap()
    }

    #[test]
    fn intersection_of_globs() {
        for (a, b, expected) in [
            ("~/.ssh/id_rsa", "~/.ssh/**", true),
            ("~/.ssh/*", "~/.ssh/**", true),
            ("~/.ss?/id_*", "~/.ssh/**", true),
            ("~/*", "~/.netrc", false),
            ("~/.*", "~/.netrc", true),
            ("src/*.rs", "**/*.pem", false),
            ("./x.pem", "**/*.pem", true),
            ("/proc/1/environ", "/proc/*/environ", true),
            ("/proc/[0-9]*/environ", "/proc/*/environ", true),
            ("/proc/[!e]*/environ", "/proc/*/environ", true),
            ("/home/u/src/**", "/home/*/.ssh/**", false),
            ("/home/u/**", "/home/*/.ssh/**", true),
            ("./.env.example", "**/.env.*", true),
            ("./env", "**/.env", false),
        ] {
            let hit = cfg(b).iter().any(|g| intersects(&word(a), g));
            assert_eq!(hit, expected, "{a} ∩ {b}");
        }
    }

    #[test]
    fn containment_of_globs() {
        for (a, b, expected) in [
            ("~/.ssh/id_rsa.pub", "*.pub", true),
            ("~/.ssh/*.pub", "*.pub", true),
            ("~/.ssh/*", "*.pub", false),
            ("./.env.example", ".env.example", true),
            ("AWS_REGION", "AWS_REGION", true),
            ("GITHUB_TOKEN", "*TOKEN*", true),
            ("HOME", "*TOKEN*", false),
        ] {
            let hit = cfg(b).iter().any(|g| contained(&word(a), g))
                || contained(&word(a), &Glob::literal(b))
                || contained(
                    &word(a),
                    &Glob {
                        toks: parse(b).unwrap(),
                        dot_rule: false,
                    },
                );
            assert_eq!(hit, expected, "{a} ⊆ {b}");
        }
    }

    proptest::proptest! {
        /// The literal prefix and suffix test only ever answers what the full search answers.
        #[test]
        fn the_literal_shortcut_agrees_with_the_search(
            a in "[ab./*?]{0,8}",
            b in "[ab./*?]{1,6}",
            dot_rule: bool,
        ) {
            let a = Glob { toks: parse(&a).unwrap(), dot_rule };
            for g in Glob::config(&b).unwrap() {
                proptest::prop_assert_eq!(intersects(&a, &g), search_intersection(&a, &g));
            }
        }

        /// For a literal path, "some path matches both" and "every path matches the pattern"
        /// are the same question: the two algorithms must agree, and a path always matches
        /// its own escaped form.
        #[test]
        fn intersection_and_containment_agree_on_literal_paths(
            path in "[ab./]{0,8}",
            pattern in "[ab./*?]{1,6}",
        ) {
            let lit = Glob::literal(&path);
            for g in Glob::config(&pattern).unwrap() {
                proptest::prop_assert_eq!(intersects(&lit, &g), contained(&lit, &g), "{} vs {}", path, pattern);
            }
            let escaped: String = path.chars().flat_map(|c| ['\\', c]).collect();
            let own = Glob { toks: parse(&escaped).unwrap(), dot_rule: false };
            proptest::prop_assert!(intersects(&lit, &own) && contained(&lit, &own));
        }
    }

    /// `reaches` with the index and with every pattern tried, for each `Which`.
    fn reaches_both_ways(table: &Sensitive, path: &Glob) {
        for which in [Which::All, Which::Anchored, Which::AnyDepth] {
            let indexed = table.reaches(path, which).map(str::to_string);
            UNINDEXED.with(|u| u.set(true));
            let every = table.reaches(path, which).map(str::to_string);
            UNINDEXED.with(|u| u.set(false));
            assert_eq!(indexed, every, "{path:?} {which:?}");
        }
    }

    /// The embedded table's path patterns, spelled as paths a command could name: each
    /// pattern with its wildcards filled in, in each home, and its last characters changed.
    fn table_paths(table: &Sensitive) -> Vec<String> {
        let mut out = Vec::new();
        for (written, _) in &table.paths {
            let filled: String = written
                .replace("**", "a/b")
                .replace(['*', '?'], "x")
                .replace(['[', ']'], "");
            for p in [
                filled.clone(),
                filled.replace("~/", "/home/u/"),
                filled.replace("~/", "/root/"),
                format!("./{filled}"),
                format!("{filled}x"),
                format!("{filled}.bak"),
                filled.trim_end_matches(|c: char| c != '/').to_string(),
            ] {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn the_last_character_index_finds_what_trying_every_pattern_finds() {
        let list = crate::Allowlist::default();
        let table = &list.sensitive;
        let paths = table_paths(table);
        let mut reached = 0;
        for p in &paths {
            let lit = Glob::literal(p);
            reaches_both_ways(table, &lit);
            reached += usize::from(table.reaches(&lit, Which::All).is_some());
            // The same path read as a shell glob, with a wildcard at its end.
            reaches_both_ways(table, &word(&format!("{p}*")));
        }
        // The paths do reach the table: comparing misses alone would prove little.
        assert!(reached > paths.len() / 4, "{reached} of {}", paths.len());
    }

    proptest::proptest! {
        /// Generated paths and globs, from the table's own characters and wildcards.
        #[test]
        fn the_last_character_index_agrees_on_generated_paths(
            path in "[~/.a-z_*?]{0,24}",
            pick in 0usize..10_000,
        ) {
            use std::sync::OnceLock;
            static LIST: OnceLock<crate::Allowlist> = OnceLock::new();
            let list = LIST.get_or_init(crate::Allowlist::default);
            let table = &list.sensitive;
            let known = table_paths(table);
            let near = &known[pick % known.len()];
            for p in [path.clone(), format!("{near}{path}"), format!("{path}{near}")] {
                reaches_both_ways(table, &Glob::literal(&p));
                if let Ok(toks) = parse(&p) {
                    reaches_both_ways(table, &Glob { toks, dot_rule: true });
                }
            }
        }
    }

    /// The embedded table is compiled on first use, where a bad pattern could not be
    /// reported: every one of its patterns must compile, and the table must hold them all.
    #[test]
    fn every_embedded_pattern_compiles() {
        let list = crate::Allowlist::default();
        let w = &list.sensitive.written;
        let mut globs = 0;
        for (list, patterns) in [
            (List::Paths, &w.paths),
            (List::AllowPaths, &w.allow_paths),
            (List::SecretVars, &w.secret_vars),
            (List::PublicVars, &w.public_vars),
            (List::PublicPaths, &w.public_paths),
        ] {
            assert!(!patterns.is_empty(), "{}", list.key());
            for p in patterns {
                match list.compile(p) {
                    Ok(g) => globs += g.len(),
                    Err(e) => panic!("{} `{p}`: {e}", list.key()),
                }
            }
        }
        let t = list.sensitive.globs();
        let compiled = t.paths.len()
            + t.allow_paths.len()
            + t.secret_vars.len()
            + t.public_vars.len()
            + t.public_paths.len();
        assert_eq!(compiled, globs);
    }

    #[test]
    fn a_pattern_added_after_a_read_is_compiled() {
        let mut table = Sensitive::default();
        table.push(List::Paths, "~/.ssh/**".into());
        assert!(
            table
                .reaches(&Glob::literal("~/.ssh/id_rsa"), Which::All)
                .is_some()
        );
        assert!(
            table
                .reaches(&Glob::literal("./.env"), Which::All)
                .is_none()
        );
        table.push(List::Paths, ".env".into());
        assert_eq!(
            table.reaches(&Glob::literal("./.env"), Which::All),
            Some(".env")
        );
        table.push(List::SecretVars, "*token*".into());
        assert!(table.secret_var("GH_TOKEN"));
    }

    #[test]
    fn bad_patterns_are_errors() {
        for p in ["", "[abc", "x\\", "~user/x"] {
            assert!(Glob::config(p).is_err(), "{p}");
        }
    }
}

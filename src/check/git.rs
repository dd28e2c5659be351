//! check/git: which directories a command line's git commands may run in, and what the
//! repositories there make git run (see [`crate::repo`]).
//!
//! Only active when the analysis has a [`Workdir`]. Directories are tracked as a set, not a
//! single value: `cd x` adds `x` for the commands after it, so `(cd x); git status` is checked
//! against both, and a `cd` inside a loop, `if` or function counts from the start of the line,
//! since a loop can bring it before an earlier git command. A `cd` whose target bash only knows
//! at run time (`cd "$d"`, `cd -`, `cd ~` without a known home) makes every later git command
//! ask: its repository cannot be read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::check::{Ctx, vars};
use crate::finding::{Code, Span};
use crate::repo::{self, Cache, Hazard, ScanRules, Workdir};
use crate::segment::{Assignment, Joiner, Nest, Segment, SegmentKind, Word};

/// Most directories tracked for one command line; more (a `cd` in a loop that keeps finding
/// subdirectories) counts as a run-time directory.
const MAX_DIRS: usize = 32;

/// Most repository findings reported for one git command; the rest are counted in one more.
const MAX_REPO_MESSAGES: usize = 32;

/// Where the commands of one command line may run.
pub(crate) struct Place {
    workdir: Workdir,
    dirs: Vec<PathBuf>,
    /// The first `cd` target only known at run time.
    unknown: Option<String>,
    /// Each directory's scan: `None` when it is in no repository.
    scans: HashMap<PathBuf, Option<Vec<Hazard>>>,
    /// `cd` targets already followed from a directory (text, physical, index into `dirs`):
    /// following one again adds nothing, so a loop's `cd`s reach their fixpoint in linear time.
    followed: HashSet<(String, bool, usize)>,
    /// What the analysis has read from the file system; only `repo` touches it.
    cache: Cache,
    /// The directories bash may be in at each segment of the top-level command line, when its
    /// `cd`s can be followed point by point ([`points`]); `None` when they cannot.
    points: Option<Vec<Vec<PathBuf>>>,
    /// The segment being checked at the top level, an index into `points`; `None` outside
    /// the top-level loop (a compound redirect judged after it).
    at: Option<usize>,
    /// Cleared for good once something moved the directory in a way `points` does not model
    /// (a wrapper's `chdir`, a `cd` in a nested script): `dirs` is used from then on.
    precise: bool,
}

impl Place {
    pub(crate) fn new(workdir: &Workdir) -> Place {
        Place {
            dirs: vec![repo::normalize(workdir.cwd())],
            workdir: workdir.clone(),
            unknown: None,
            scans: HashMap::new(),
            followed: HashSet::new(),
            cache: Cache::default(),
            points: None,
            at: None,
            precise: true,
        }
    }

    /// The directories the command being checked may run in: the ones bash may be in at this
    /// point of the line when its `cd`s were followed point by point, otherwise every one the
    /// line may reach; `None` once a `cd` led somewhere only known at run time.
    pub(crate) fn dirs(&self) -> Option<&[PathBuf]> {
        if let Some(here) = self.here() {
            return Some(here);
        }
        self.unknown.is_none().then_some(self.dirs.as_slice())
    }

    /// The directories bash may be in at the segment being checked, when known point by point.
    fn here(&self) -> Option<&[PathBuf]> {
        if !self.precise {
            return None;
        }
        // No directory: a point the analysis takes as unreachable (after `exit`) is judged
        // from every directory instead, in case it is not.
        Some(self.points.as_ref()?.get(self.at?)?.as_slice()).filter(|d| !d.is_empty())
    }

    /// The project: the working directory the command starts in (normalised), whatever
    /// `cd`s follow. Reads are judged against it, not against where a `cd` led.
    pub(crate) fn project(&self) -> &Path {
        &self.dirs[0]
    }

    /// Why the directory is only known at run time (`` `cd -` ``), once it is.
    pub(crate) fn lost(&self) -> Option<&str> {
        if self.here().is_some() {
            return None;
        }
        self.unknown.as_deref()
    }

    /// `$HOME`, when the caller said.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.workdir.home()
    }

    /// `path` with its symlinks resolved, read through `repo`'s cache (bounded like the kernel).
    pub(crate) fn physical(&self, path: &Path) -> Option<PathBuf> {
        self.cache.physical(path)
    }

    /// The names in `dir` (at most `max`), read through `repo`.
    pub(crate) fn list(&self, dir: &Path, max: usize) -> Option<Vec<String>> {
        repo::list_names(dir, max)
    }

    /// The files git tracks in the repository around `dir`, through `repo` (see
    /// [`repo::tracked`]).
    pub(crate) fn tracked(&self, dir: &Path) -> Result<Option<Vec<(PathBuf, bool)>>, String> {
        repo::tracked(dir, &self.cache)
    }

    /// The top of the work tree around `dir`, through `repo` (`None` outside one).
    pub(crate) fn toplevel(&self, dir: &Path) -> Option<PathBuf> {
        repo::toplevel(dir, &self.cache)
    }

    /// Whether revision `name` is a branch in the repository around `dir` (see
    /// [`repo::names_a_branch`]).
    pub(crate) fn names_a_branch(&self, dir: &Path, name: &str) -> bool {
        repo::names_a_branch(dir, name, &self.cache)
    }

    /// `Ok` when no config git reads in `dir` holds a remote URL with a credential (see
    /// [`repo::remote_urls_clean`]); otherwise why it cannot be vouched for.
    pub(crate) fn remote_urls_clean(&self, dir: &Path) -> Result<(), String> {
        repo::remote_urls_clean(dir, self.workdir.home(), &self.cache)
    }

    /// Walks `root` as a recursive reader would, through `repo` (see `repo/walk.rs`).
    pub(crate) fn walk(
        &self,
        root: &Path,
        rules: &repo::WalkRules,
        sensitive: &mut dyn FnMut(&Path, &Path) -> bool,
    ) -> repo::Walked {
        repo::walk(root, rules, sensitive)
    }

    fn unknown(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }

    fn add(&mut self, dir: PathBuf) -> bool {
        if self.dirs.contains(&dir) {
            return false;
        }
        if self.dirs.len() >= MAX_DIRS {
            self.unknown(format!("more than {MAX_DIRS} directories"));
            return false;
        }
        self.dirs.push(dir);
        true
    }

    /// Applies `cd ARGS` (written in `src`): every directory it could lead to from every
    /// directory so far. Returns whether the set grew.
    fn cd(&mut self, src: &str, args: &[Word]) -> bool {
        let (operands, physical) = cd_operands(args);
        if let Some(w) = operands.first()
            && let Some(here) = here_word(src, w)
        {
            return self.go_here(here);
        }
        self.goto(operands.first(), physical)
    }

    /// `cd "$PWD"` stays in every directory; `cd "$(git rev-parse --show-toplevel)"` goes to
    /// the top of each one's work tree. Whether the set grew.
    fn go_here(&mut self, here: Here) -> bool {
        if self.unknown.is_some() || here == Here::Stay {
            return false;
        }
        let mut grew = false;
        for k in 0..self.dirs.len() {
            let dir = self.dirs[k].clone();
            match self.toplevel(&dir) {
                Some(top) => grew |= self.add(repo::normalize(&top)),
                None => {
                    self.unknown(format!(
                        "`cd \"$(git rev-parse --show-toplevel)\"` outside a work tree ({})",
                        dir.display()
                    ));
                    return grew;
                }
            }
        }
        grew
    }

    /// Where `cd ARGS` leads from `from`, for [`points`]: the directories it may end in when
    /// it succeeds, and whether it may fail (staying in `from`). `None` when that is only
    /// known at run time.
    fn cd_from(&self, src: &str, from: &Path, args: &[Word]) -> Option<(Vec<PathBuf>, bool)> {
        let (operands, physical) = cd_operands(args);
        // Options cmdguard does not know, or more than one operand: bash may refuse them.
        let odd = operands.len() > 1
            || args[..args.len() - operands.len()]
                .iter()
                .any(|w| !matches!(w.static_text(), Some("-L" | "-P" | "-e" | "-@" | "--")));
        if let Some(w) = operands.first()
            && let Some(here) = here_word(src, w)
        {
            return match here {
                Here::Stay => Some((vec![from.to_path_buf()], odd)),
                Here::Top => Some((vec![repo::normalize(&self.toplevel(from)?)], odd)),
            };
        }
        let text = self.cd_text(operands.first())?;
        if text == "-" {
            return None;
        }
        let mut out: Vec<PathBuf> = Vec::new();
        for dir in targets(from, &text, self.workdir.cdpath()) {
            for d in repo::cd_targets(&self.cache, &dir, physical) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        let fails = odd || out.is_empty();
        Some((out, fails))
    }

    /// The text `cd` goes to once bash expanded `~` and `$HOME` (`None`: home), or `None` when
    /// it is only known at run time.
    fn cd_text(&self, target: Option<&Word>) -> Option<String> {
        let Some(target) = target else {
            return Some(self.workdir.home()?.to_string_lossy().into_owned());
        };
        let text = match (target.static_text(), vars::home_relative(target)) {
            (Some(t), _) => t.to_string(),
            (None, Some(rest)) => format!("{}{rest}", self.workdir.home()?.display()),
            (None, None) => return None,
        };
        if text.contains('~') && !text.starts_with('~') {
            return None;
        }
        match text.strip_prefix('~') {
            None => Some(text),
            Some(_) if target.quoted => None,
            Some(rest) => {
                let home = self.workdir.home()?;
                (rest.is_empty() || rest.starts_with('/'))
                    .then(|| format!("{}{rest}", home.display()))
            }
        }
    }

    /// Goes to `target` (`None`: home) from every directory so far; whether the set grew.
    fn goto(&mut self, target: Option<&Word>, physical: bool) -> bool {
        if self.unknown.is_some() {
            // Every later git command asks already; where else `cd` leads changes nothing.
            return false;
        }
        let Some(target) = target else {
            return match self.workdir.home().map(Path::to_path_buf) {
                Some(home) => self.add(repo::normalize(&home)),
                None => {
                    self.unknown("`cd` to an unknown home directory".into());
                    false
                }
            };
        };
        let home_text;
        let text = match (target.static_text(), vars::home_relative(target)) {
            (Some(t), _) => t,
            // `cd "$HOME/x"` is `cd ~/x`.
            (None, Some(rest)) => match self.workdir.home() {
                Some(home) => {
                    home_text = format!("{}{rest}", home.display());
                    home_text.as_str()
                }
                None => {
                    self.unknown(format!("`cd {}` to an unknown home directory", target.text));
                    return false;
                }
            },
            (None, None) => {
                self.unknown(format!("`cd {}`", target.text));
                return false;
            }
        };
        if text == "-" {
            self.unknown("`cd -`".into());
            return false;
        }
        if text.contains('~') && !text.starts_with('~') {
            // bash expands `~` after `=` and `:` in words that look like assignments.
            self.unknown(format!("`cd {text}`"));
            return false;
        }
        let text = if let Some(rest) = text.strip_prefix('~') {
            if target.quoted {
                // `~/"x"` expands and `"~"/x` does not: which one this is is not recorded.
                self.unknown(format!("`cd {text}`, partly quoted"));
                return false;
            }
            match (self.workdir.home(), rest) {
                (Some(home), "") => home.to_string_lossy().into_owned(),
                (Some(home), r) if r.starts_with('/') => format!("{}{r}", home.display()),
                _ => {
                    self.unknown(format!("`cd {text}`"));
                    return false;
                }
            }
        } else {
            text.to_string()
        };
        let mut grew = false;
        // `dirs` only grows, so an index names one directory for the whole analysis.
        for k in 0..self.dirs.len() {
            if !self.followed.insert((text.clone(), physical, k)) {
                continue;
            }
            let base = self.dirs[k].clone();
            for dir in targets(&base, &text, self.workdir.cdpath()) {
                // Logical `cd` resolves `..` in the text, and falls back to the physical path
                // when that is no directory; `cd -P` and chdir(2) resolve physically. Both are
                // kept when both exist: the set may only over-approximate. `cd` into a missing
                // directory fails and changes nothing.
                for d in repo::cd_targets(&self.cache, &dir, physical) {
                    grew |= self.add(d);
                }
            }
        }
        grew
    }

    fn scan(&mut self, dir: &Path, rules: &ScanRules<'_>) -> Option<&[Hazard]> {
        self.scans
            .entry(dir.to_path_buf())
            .or_insert_with(|| repo::scan(dir, rules))
            .as_deref()
    }
}

/// The operands of `cd ARGS` after its options, and whether `-P` is among them.
fn cd_operands(args: &[Word]) -> (&[Word], bool) {
    let mut physical = false;
    let mut operands = args;
    while let Some((w, rest)) = operands.split_first() {
        match w.static_text() {
            Some("--") => {
                operands = rest;
                break;
            }
            Some(t) if t.starts_with('-') && t.len() > 1 => {
                physical |= t.contains('P');
                operands = rest;
            }
            _ => break,
        }
    }
    (operands, physical)
}

/// A run-time `cd` operand whose value is where bash is: `"$PWD"`, `"$(pwd)"` (stay), or
/// `"$(git rev-parse --show-toplevel)"` (the top of the work tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Here {
    Stay,
    Top,
}

/// Whether `w` is a [`Here`] word: double-quoted whole (no splitting), in a command that gives
/// `PWD` no value of its own (only `$PWD` / `${PWD}` mention it) and expands no name built at
/// run time (`${!x:=…}` assigns through one).
fn here_word(src: &str, w: &Word) -> Option<Here> {
    if !vars::fully_double_quoted(src, w) || src.contains("${!") {
        return None;
    }
    let here = match w.text.as_str() {
        "$PWD" | "${PWD}" | "$(pwd)" => Here::Stay,
        "$(git rev-parse --show-toplevel)" => Here::Top,
        _ => return None,
    };
    let mentions = src.matches("PWD").count();
    let reads = src.matches("$PWD").count() + src.matches("${PWD}").count();
    (mentions == reads).then_some(here)
}

/// Whether `w` is a run-time `cd` operand that check/git.rs follows (`"$PWD"`,
/// `"$(git rev-parse --show-toplevel)"`): not an unknown directory.
pub(crate) fn known_cd_operand(src: &str, w: &Word) -> bool {
    here_word(src, w).is_some()
}

/// Where `cd TEXT` may lead from `base`: the `CDPATH` entries first, then `base` itself.
fn targets(base: &Path, text: &str, cdpath: Option<&str>) -> Vec<PathBuf> {
    if text.starts_with('/') {
        return vec![PathBuf::from(text)];
    }
    let mut out = Vec::new();
    let explicit = text == "." || text == ".." || text.starts_with("./") || text.starts_with("../");
    if let Some(cdpath) = cdpath.filter(|_| !explicit) {
        for entry in cdpath.split(':') {
            out.push(
                if entry.is_empty() {
                    base.to_path_buf()
                } else {
                    base.join(entry)
                }
                .join(text),
            );
        }
    }
    out.push(base.join(text));
    out
}

/// The arguments of a `cd` command (`cd`, `builtin cd`, `command cd`), or `None`.
pub(crate) fn cd_args(words: &[Word]) -> Option<&[Word]> {
    let mut words = words;
    let mut wrapped = false;
    while let Some((first, rest)) = words.split_first() {
        match first.static_text() {
            Some("builtin" | "command") => {
                words = rest;
                wrapped = true;
            }
            // `command -p cd`, `builtin -- cd`.
            Some(t) if wrapped && t.starts_with('-') => words = rest,
            Some("cd") => return Some(rest),
            _ => return None,
        }
    }
    None
}

/// Before the segments are checked in order: a `cd` inside a loop, `if` or function may run
/// before any git command of the line, so its directories count from the start.
pub(crate) fn prepare(cx: &mut Ctx<'_>) {
    if cx.place.is_none() {
        return;
    }
    if cx.depth == 0 {
        let points = points(cx);
        if let Some(place) = cx.place.as_deref_mut() {
            place.points = points;
        }
    } else if cx
        .script
        .segments
        .iter()
        .any(|s| cd_args(&s.words).is_some() || mentions_cd(s))
        && let Some(place) = cx.place.as_deref_mut()
    {
        // A nested script (`eval`, `sh -c`, `xargs`) that changes directory: the top-level
        // points did not see it.
        place.precise = false;
    }
    let Some(place) = cx.place.as_deref_mut() else {
        return;
    };
    let in_loop: Vec<&Segment> = cx
        .script
        .segments
        .iter()
        .filter(|s| s.kind == SegmentKind::Command)
        .filter(|s| {
            s.nesting
                .iter()
                .any(|n| matches!(n, Nest::Control | Nest::Function))
        })
        .collect();
    // An `eval` in a loop may `cd` before an earlier git command runs again.
    if in_loop.iter().any(|s| {
        s.words.first().is_some_and(|w| w.text == "eval")
            && s.words[1..].iter().any(|w| w.text.contains("cd"))
    }) {
        place.unknown("a `cd` run by `eval` in a loop or function".into());
    }
    let looped: Vec<&[Word]> = in_loop.iter().filter_map(|s| cd_args(&s.words)).collect();
    // A loop repeats its `cd`: follow it until no new directory appears. Each round that goes
    // on adds a directory, so there are at most `MAX_DIRS` of them, and a `cd` is followed from
    // each directory once (`Place::followed`).
    for _ in 0..MAX_DIRS {
        let mut grew = false;
        for args in &looped {
            if !cx.budget.ok() {
                return;
            }
            grew |= place.cd(cx.src, args);
        }
        if !grew {
            break;
        }
    }
}

/// After a segment is checked: a `cd` moves the commands after it — once the segments inside
/// its own words (`cd "$(git rev-parse --show-toplevel)"`) are past, since those run first.
pub(crate) fn after_segment(cx: &mut Ctx<'_>, seg: &Segment) {
    if cx.place.is_some()
        && let Some(args) = cd_args(&seg.words)
    {
        cx.pending_cd.push((seg.span.end, args.to_vec()));
    }
}

/// Before segment `i` starting at `span`: the `cd`s that ended before it take effect, and at
/// the top level the segment's own point is the one judged.
pub(crate) fn before_segment(cx: &mut Ctx<'_>, i: usize, span: Span) {
    run_pending_cd(cx, |end| end <= span.start);
    if cx.depth == 0
        && let Some(place) = cx.place.as_deref_mut()
    {
        place.at = Some(i);
    }
}

/// The script is over: every `cd` still pending has run, and what is judged after it (a
/// redirect on a compound command) is judged from every directory.
pub(crate) fn after_script(cx: &mut Ctx<'_>) {
    run_pending_cd(cx, |_| true);
    if cx.depth == 0
        && let Some(place) = cx.place.as_deref_mut()
    {
        place.at = None;
    }
}

/// Before a redirect tree-sitter hangs on a whole list (`cd src && wc -l < ../README.md`):
/// bash gives it to the simple command just before it, so at the top level it is judged at
/// that command's point. A redirect after a compound command (`done < f`, `} < f`) is judged
/// from every directory the line reaches.
pub(crate) fn before_compound_redirect(cx: &mut Ctx<'_>, span: Span) {
    if cx.depth != 0 {
        return;
    }
    let src = cx.src;
    let owner = cx.script.segments.iter().position(|s| {
        s.nesting.is_empty()
            && s.span.end <= span.start
            && src
                .get(s.span.end..span.start)
                .is_some_and(|gap| gap.chars().all(|c| c == ' ' || c == '\t'))
    });
    if let Some(place) = cx.place.as_deref_mut() {
        place.at = owner;
    }
}

/// Applies the pending `cd`s whose segment ends where `due` says.
fn run_pending_cd(cx: &mut Ctx<'_>, due: impl Fn(usize) -> bool) {
    let Some(place) = cx.place.as_deref_mut() else {
        return;
    };
    let src = cx.src;
    cx.pending_cd.retain(|(end, args)| {
        if due(*end) {
            place.cd(src, args);
            false
        } else {
            true
        }
    });
}

/// A script cmdguard read in a way that may not be how it runs (`sh -c`): if it may change
/// directory, later git commands run somewhere unknown.
pub(crate) fn script_may_cd(cx: &mut Ctx<'_>, script: &str, what: &str) {
    if let Some(place) = cx.place.as_deref_mut()
        && script.contains("cd")
    {
        place.precise = false;
        place.unknown(format!("a `cd` in {what}, which is not bash"));
    }
}

/// Whether a segment holds the word `cd` somewhere other than as the command [`cd_args`]
/// reads (`time cd x`, `exec cd`): a `cd` the points cannot follow.
fn mentions_cd(seg: &Segment) -> bool {
    cd_args(&seg.words).is_none() && seg.words.iter().any(|w| w.text == "cd")
}

/// Most segments a line may have for [`points`]; a longer line keeps one set for all.
const MAX_POINT_SEGMENTS: usize = 256;

/// The directories bash may be in at each segment of the top-level command line, following
/// its `cd`s in order instead of one set for the whole line: `cd src && cat ../README.md`
/// reads the project's README, and `cd src; cat x` reads `src/x` (or `x` where `src` is no
/// directory, since a failed `cd` leaves bash where it was). A `cd` into an existing
/// directory is taken to succeed, unless `||` follows it (then both).
///
/// Only top-level simple commands joined by `;`, `&&`, `||`, `|`, `&` and newlines are
/// followed, with the compound commands (`( … )`, `{ …; }`, `if`, loops) between them run
/// where they start. `None` (one set for the whole line, as before) when a `cd` is anywhere
/// else — in a substitution, a compound command, a function, a pipeline, the background,
/// after `!` — or goes somewhere only known at run time, or the line runs `eval`, `source`,
/// `.`, `trap`, `pushd` or `popd`, which may change directory by text not followed here.
fn points(cx: &Ctx<'_>) -> Option<Vec<Vec<PathBuf>>> {
    let place = cx.place.as_deref()?;
    let segs = &cx.script.segments;
    if segs.len() > MAX_POINT_SEGMENTS {
        return None;
    }
    let top = |s: &Segment| s.nesting.is_empty();
    for s in segs {
        let program = s.words.iter().find(|w| {
            !matches!(w.text.as_str(), "command" | "builtin") && !w.text.starts_with('-')
        });
        let sources = program.is_some_and(|w| {
            matches!(
                w.text.as_str(),
                "eval" | "source" | "." | "trap" | "pushd" | "popd"
            )
        });
        if sources || mentions_cd(s) || (!top(s) && cd_args(&s.words).is_some()) {
            return None;
        }
    }
    // Each segment's host: a top-level segment whose words hold it (a substitution, a
    // redirect target, a test's operand), itself at the top level, or `None` inside a
    // compound command between top-level ones.
    let tops: Vec<usize> = (0..segs.len()).filter(|&k| top(&segs[k])).collect();
    let host = |k: usize| -> Option<usize> {
        let s = &segs[k];
        tops.iter().copied().find(|&t| {
            t == k || (segs[t].span.start <= s.span.start && s.span.end <= segs[t].span.end)
        })
    };
    // The items in order: a top-level segment, or a run of segments of compound commands.
    enum Item {
        Top(usize),
        Run(Vec<usize>),
    }
    let mut items: Vec<Item> = Vec::new();
    let mut hosted: Vec<(usize, usize)> = Vec::new();
    for (k, seg) in segs.iter().enumerate() {
        match host(k) {
            Some(t) if t == k => items.push(Item::Top(k)),
            Some(t) => hosted.push((k, t)),
            None => {
                let structural = matches!(
                    seg.nesting.first(),
                    Some(Nest::Subshell | Nest::Group | Nest::Control)
                );
                if !structural {
                    return None;
                }
                match items.last_mut() {
                    Some(Item::Run(run)) => run.push(k),
                    _ => items.push(Item::Run(vec![k])),
                }
            }
        }
    }
    let start = vec![place.project().to_path_buf()];
    let mut out: Vec<Vec<PathBuf>> = vec![Vec::new(); segs.len()];
    let union = |a: &[PathBuf], b: &[PathBuf]| {
        let mut u = a.to_vec();
        for d in b {
            if !u.contains(d) {
                u.push(d.clone());
            }
        }
        u
    };
    // The and-or list so far: where bash may be when it succeeded and when it failed; how the
    // next item joins it; where the next item starts.
    let mut succ: Vec<PathBuf> = Vec::new();
    let mut fail: Vec<PathBuf> = Vec::new();
    let mut join: Option<Joiner> = None;
    let mut before = start;
    for item in &items {
        let (segments, joiner): (Vec<usize>, Option<Joiner>) = match item {
            Item::Top(k) => (vec![*k], segs[*k].joiner),
            // A compound command's joiner is not told apart from its inside: `;` holds for
            // both `&&` and `||`, being their union.
            Item::Run(run) => (run.clone(), Some(Joiner::Semicolon)),
        };
        for &k in &segments {
            out[k].clone_from(&before);
        }
        let piped = matches!(join, Some(Joiner::Pipe | Joiner::PipeBoth))
            || matches!(
                joiner,
                Some(Joiner::Pipe | Joiner::PipeBoth | Joiner::Background)
            );
        let (ok, bad) = match item {
            Item::Top(k) => match cd_args(&segs[*k].words) {
                Some(args) => {
                    let negated = cx
                        .src
                        .get(..segs[*k].span.start)
                        .is_none_or(|b| b.trim_end().ends_with('!'));
                    if piped || negated {
                        return None;
                    }
                    let mut ok = Vec::new();
                    let mut bad = Vec::new();
                    // `cd x || …` expects the `cd` may fail (permissions): it may, there.
                    let expected = joiner == Some(Joiner::Or);
                    for from in &before {
                        let (to, fails) = place.cd_from(cx.src, from, args)?;
                        let fails = fails || expected;
                        ok = union(&ok, &to);
                        if fails {
                            bad = union(&bad, std::slice::from_ref(from));
                        }
                    }
                    (ok, bad)
                }
                // `exit` ends the shell: nothing runs after it in this list.
                None if !piped && segs[*k].words.first().is_some_and(|w| w.text == "exit") => {
                    (Vec::new(), Vec::new())
                }
                None => (before.clone(), before.clone()),
            },
            Item::Run(_) => (before.clone(), before.clone()),
        };
        match join {
            Some(Joiner::And) => {
                succ = ok;
                fail = union(&fail, &bad);
            }
            Some(Joiner::Or) => {
                succ = union(&succ, &ok);
                fail = bad;
            }
            // A pipeline's later commands start where its first did and change nothing.
            Some(Joiner::Pipe | Joiner::PipeBoth) => {}
            _ => {
                succ = ok;
                fail = bad;
            }
        }
        before = match joiner {
            Some(Joiner::And) => succ.clone(),
            Some(Joiner::Or) => fail.clone(),
            Some(Joiner::Pipe | Joiner::PipeBoth) => before,
            _ => union(&succ, &fail),
        };
        join = joiner;
    }
    for (k, t) in hosted {
        out[k] = out[t].clone();
    }
    Some(out)
}

/// A wrapper runs its command in `dir` (`env -C DIR`): later git commands may run there.
pub(crate) fn chdir(cx: &mut Ctx<'_>, dir: &Word) {
    if let Some(place) = cx.place.as_deref_mut() {
        // The points do not model a wrapper's directory: every one reached counts from here.
        place.precise = false;
        // chdir(2) resolves `..` physically.
        place.goto(Some(dir), true);
    }
}

/// The operand of `git -C`: whether it is one. A run-time directory is one too, reported here
/// as a dynamic argument (its repository cannot be read), so the command asks for that reason
/// and not as an unknown global option.
pub(crate) fn chdir_operand(cx: &mut Ctx<'_>, i: usize, dir: &Word) -> bool {
    if !dir.is_static() {
        cx.push(
            Code::DynamicArgument,
            dir.span,
            Some(i),
            format!(
                "`git -C {}` runs git in a directory known only at run time, whose repository cmdguard cannot read",
                dir.text
            ),
        );
    }
    true
}

/// Where `git -C A -C B …` runs from each of `dirs`: git changes directory with chdir(2), one
/// `-C` after the other, each relative to the last; no `CDPATH`, and `..` resolved
/// physically. An empty operand changes nothing. A directory that does not exist makes git
/// fail before it reads anything, so it leads nowhere. `Err` says why a target is unknown.
fn chdir_targets(place: &Place, chdirs: &[&Word]) -> Result<Vec<PathBuf>, String> {
    let mut dirs = place.dirs.clone();
    for w in chdirs {
        let Some(text) = w.static_text() else {
            return Err(format!("`git -C {}`", w.text));
        };
        if text.is_empty() {
            continue;
        }
        // bash expands a leading `~`, and one after `=` or `:`; only the plain forms are read.
        let text = match text.strip_prefix('~') {
            Some(_) if w.quoted => return Err(format!("`git -C {text}`, partly quoted")),
            Some(rest) => match place.workdir.home() {
                Some(home) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{}{rest}", home.display())
                }
                _ => return Err(format!("`git -C {text}`")),
            },
            None if text.contains('~') => return Err(format!("`git -C {text}`")),
            None => text.to_string(),
        };
        let mut next = Vec::new();
        for d in &dirs {
            for t in repo::cd_targets(&place.cache, &d.join(&text), true) {
                if !next.contains(&t) {
                    next.push(t);
                }
            }
        }
        if next.len() > MAX_DIRS {
            return Err(format!("more than {MAX_DIRS} directories"));
        }
        dirs = next;
    }
    Ok(dirs)
}

/// An allowed git command: asks when a repository it may run in (after its `-C` options,
/// `chdirs`) makes git run programs.
pub(crate) fn check_repository(cx: &mut Ctx<'_>, i: usize, span: Span, chdirs: &[&Word]) {
    let list = cx.list;
    let Some(place) = cx.place.as_deref_mut() else {
        // `git -C DIR` names a repository on purpose: without a working directory cmdguard
        // reads none, so it cannot check that one.
        if let Some(dir) = chdirs.first() {
            cx.push(
                Code::RepoConfig,
                span,
                Some(i),
                format!(
                    "`git -C {}` runs git in another repository, and without a working directory cmdguard reads no repository config",
                    dir.text
                ),
            );
        }
        return;
    };
    let mut messages = Vec::new();
    let dirs = match chdir_targets(place, chdirs) {
        Ok(dirs) => dirs,
        Err(why) => {
            messages.push(format!(
                "git runs after {why}, in a directory known only at run time, whose repository config cmdguard cannot read"
            ));
            Vec::new()
        }
    };
    for var in place.workdir.git_env() {
        messages.push(format!(
            "the command inherits `{var}`, which makes git read a repository or config other than the one on disk here"
        ));
    }
    if let Some(why) = &place.unknown {
        messages.push(format!(
            "git runs after {why}, in a directory known only at run time, whose repository config cmdguard cannot read"
        ));
    }
    let home = place.workdir.home().map(Path::to_path_buf);
    // The scans fill `place.scans`; the cache they read through is moved out for the while.
    let cache = std::mem::take(&mut place.cache);
    let rules = ScanRules {
        keys: &list.git_keys,
        inert: &list.git_inert_keys,
        safe_values: &list.git_safe_values,
        hooks: &list.git_hooks,
        home: home.as_deref(),
        budget: cx.budget,
        cache: &cache,
    };
    let mut seen: HashSet<String> = messages.iter().cloned().collect();
    let mut more = 0usize;
    for dir in dirs {
        if !cx.budget.ok() {
            break;
        }
        if let Some(hazards) = place.scan(&dir, &rules) {
            for h in hazards {
                let at = if h.line > 0 {
                    format!("{}:{}", h.file.display(), h.line)
                } else {
                    h.file.display().to_string()
                };
                let m = format!("{} ({at})", h.what);
                if seen.contains(&m) {
                    continue;
                }
                if messages.len() >= MAX_REPO_MESSAGES {
                    more += 1;
                    continue;
                }
                seen.insert(m.clone());
                messages.push(m);
            }
        }
    }
    place.cache = cache;
    if more > 0 {
        messages.push(format!(
            "and {more} more findings in the repositories git would read (not listed)"
        ));
    }
    for m in messages {
        cx.push(Code::RepoConfig, span, Some(i), m);
    }
}

/// The toolchain files rustup reads to pick the program behind its `cargo` / `rustc` proxies.
const TOOLCHAIN_FILES: &[&str] = &["rust-toolchain", "rust-toolchain.toml"];

/// Most directories walked up from one directory looking for a toolchain file.
const MAX_TOOLCHAIN_DEPTH: usize = 64;

/// An allowed `cargo` / `rustc` version probe: rustup's proxy picks the toolchain from a
/// `rust-toolchain(.toml)` in the directory or any above it, and that file's `path` key (or a
/// toolchain name rustup installs on the spot) runs a program the allowlist never saw. Asks
/// when a directory the command may run in has one, or is known only at run time. Without a
/// working directory nothing is read, as for git's config (the README's limits).
pub(crate) fn check_toolchain_file(cx: &mut Ctx<'_>, i: usize, span: Span, program: &str) {
    let Some(place) = cx.place.as_deref_mut() else {
        return;
    };
    let mut messages = Vec::new();
    if let Some(why) = &place.unknown {
        messages.push(format!(
            "`{program}` runs after {why}, in a directory known only at run time, where a `rust-toolchain` file may pick the program rustup runs"
        ));
    }
    for dir in &place.dirs {
        let found = dir
            .ancestors()
            .take(MAX_TOOLCHAIN_DEPTH)
            .flat_map(|d| TOOLCHAIN_FILES.iter().map(move |f| d.join(f)))
            .find(|p| p.symlink_metadata().is_ok());
        if let Some(file) = found {
            messages.push(format!(
                "`{}` picks the toolchain rustup runs for `{program}`, and can name any program",
                file.display()
            ));
        }
    }
    for m in messages {
        cx.push(Code::RepoConfig, span, Some(i), m);
    }
}

/// Whether the static path `w` names an existing regular file or directory from every
/// directory the command may run in (symlinks followed, as `open` follows them). `false`
/// without a working directory, after a `cd` to a run-time directory, or for a `~` path.
pub(crate) fn exists_everywhere(cx: &Ctx<'_>, w: &Word) -> bool {
    let Some(place) = cx.place.as_deref() else {
        return false;
    };
    let Some(text) = w.static_text() else {
        return false;
    };
    if place.unknown.is_some() || text.is_empty() || text.starts_with('~') {
        return false;
    }
    place
        .dirs
        .iter()
        .all(|d| std::fs::metadata(d.join(text)).is_ok_and(|m| m.is_file() || m.is_dir()))
}

/// Most directory entries read to prove that a glob cannot expand to an option.
const MAX_GLOB_ENTRIES: usize = 10_000;

/// Whether no entry of any directory the command may run in starts with `-`: then a glob whose
/// first path component holds the pattern (`*`, `?.txt`) expands to no option. `false` without
/// a working directory, after a `cd` to a run-time directory, or past `MAX_GLOB_ENTRIES`.
/// A file created between this check and the run (time of check, time of use) is not seen:
/// the analysis reads the directory as it is when asked, like the repository config.
pub(crate) fn no_dash_entries(cx: &Ctx<'_>) -> bool {
    let Some(place) = cx.place.as_deref() else {
        return false;
    };
    if place.unknown.is_some() {
        return false;
    }
    place.dirs.iter().all(|d| {
        let Ok(entries) = std::fs::read_dir(d) else {
            return false;
        };
        let mut n = 0;
        for e in entries {
            n += 1;
            let Ok(e) = e else { return false };
            if n > MAX_GLOB_ENTRIES || e.file_name().as_encoded_bytes().starts_with(b"-") {
                return false;
            }
        }
        true
    })
}

/// Most configuration pairs read from one command's environment and `--config-env` options.
const MAX_ENV_CONFIGS: usize = 16;

/// The `KEY=VALUE` pairs a git command gets from its environment, where the line shows them:
/// `--config-env=KEY=VAR` (git reads `VAR`'s value, here from a prefix assignment) and the
/// `GIT_CONFIG_PARAMETERS` assignment git itself uses to pass `-c` to the commands it runs
/// (`'alias.x'='!rm -rf v' 'core.pager'='…'`). They are read like `git -c KEY=VALUE`.
pub(crate) fn environment_configs(words: &[Word], assignments: &[Assignment]) -> Vec<String> {
    let value = |name: &str| {
        assignments
            .iter()
            .rev()
            .find(|a| a.name == name)
            .and_then(|a| a.value.static_text())
    };
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(t) = w.static_text() else {
            continue;
        };
        if !t.starts_with('-') {
            break;
        }
        let spec = match t.strip_prefix("--config-env=") {
            Some(spec) => Some(spec),
            None if t == "--config-env" => words.get(k + 1).and_then(Word::static_text),
            None => None,
        };
        // git splits `KEY=VAR` at the last `=`: a key holds no `=`, a variable name neither.
        if let Some((key, var)) = spec.and_then(|s| s.rsplit_once('='))
            && let Some(v) = value(var)
        {
            out.push(format!("{key}={v}"));
        }
    }
    if let Some(params) = value("GIT_CONFIG_PARAMETERS") {
        out.extend(config_parameters(params));
    }
    out.truncate(MAX_ENV_CONFIGS);
    out
}

/// The `KEY=VALUE` pairs of a `GIT_CONFIG_PARAMETERS` value: words of shell single-quoted
/// strings (git's `sq_quote`: `'\''` and `\!` outside quotes stand for themselves), each
/// `'KEY'='VALUE'` or the older `'KEY=VALUE'`.
pub(crate) fn config_parameters(text: &str) -> Vec<String> {
    /// One word being read: its key, and its value once an `=` outside quotes was seen.
    #[derive(Default)]
    struct Pair {
        key: String,
        value: Option<String>,
        started: bool,
    }
    impl Pair {
        fn push(&mut self, c: char) {
            self.started = true;
            match &mut self.value {
                Some(v) => v.push(c),
                None => self.key.push(c),
            }
        }
        fn finish(&mut self) -> Option<String> {
            let pair = std::mem::take(self);
            match pair.value {
                Some(v) => Some(format!("{}={v}", pair.key)),
                None if pair.key.contains('=') => Some(pair.key),
                None => None,
            }
        }
    }
    let mut out = Vec::new();
    let mut chars = text.chars();
    let mut pair = Pair::default();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                pair.started = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    pair.push(d);
                }
            }
            '\\' => {
                if let Some(d) = chars.next() {
                    pair.push(d);
                }
            }
            '=' if pair.value.is_none() && pair.started => pair.value = Some(String::new()),
            c if c.is_whitespace() => out.extend(pair.finish()),
            c => pair.push(c),
        }
        if out.len() >= MAX_ENV_CONFIGS {
            return out;
        }
    }
    out.extend(pair.finish());
    out
}

/// Variables that make `less` run a command: an input preprocessor (`LESSOPEN='|CMD %s'`,
/// `'||CMD %s'`, `'-CMD'`, or without a pipe a command that prints a file name) and its
/// cleanup (`LESSCLOSE`). Whatever pages through less — `less`, `git log`, `man` — runs them.
const LESS_COMMAND_VARIABLES: &[&str] = &["LESSOPEN", "LESSCLOSE"];

/// The shell commands the prefix assignments of a command make `less` run, with each `%s` (the
/// file less opens) as a plain word.
pub(crate) fn less_commands(assignments: &[Assignment]) -> Vec<String> {
    assignments
        .iter()
        .filter(|a| LESS_COMMAND_VARIABLES.contains(&a.name.as_str()))
        .filter_map(|a| a.value.static_text())
        .map(|v| {
            v.trim_start()
                .trim_start_matches('|')
                .trim_start_matches('-')
                .replace("%s", "file")
        })
        .filter(|c| !c.trim().is_empty())
        .collect()
}

/// The command of an `ext::` remote (`ext::CMD ARGS`), its words quoted for bash.
pub(crate) fn ext_command(url: &str) -> Option<String> {
    let spec = url.trim_start().strip_prefix("ext::")?;
    let quoted: Vec<String> = ext_words(spec)
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" "))
}

/// The words of an `ext::` remote's command: split at spaces; `% ` is a space, `%%` a `%`, and
/// the placeholders (`%s`, `%S`, `%G`, `%V`) stand for words git fills in.
pub(crate) fn ext_words(spec: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '%' => match chars.next() {
                Some(' ') => cur.push(' '),
                Some('%') => cur.push('%'),
                Some('s' | 'S') => cur.push_str("git-upload-pack"),
                Some(_) | None => cur.push('x'),
            },
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A `git -c KEY=VALUE` (or a config pair from the environment) that names an `ext::` remote
/// runs its command when git talks to that remote: a remote's `url` / `pushurl`
/// (`remote.o.url=ext::CMD`), or a `url.<ext::CMD>.insteadOf` rewrite. The command, when so.
pub(crate) fn ext_config_command(kv: &str) -> Option<String> {
    let (key, value) = kv.split_once('=')?;
    let lower = key.to_ascii_lowercase();
    if let Some(base) = key
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("url."))
        .and_then(|_| key[4..].rsplit_once('.'))
        .filter(|(_, name)| {
            matches!(
                name.to_ascii_lowercase().as_str(),
                "insteadof" | "pushinsteadof"
            )
        })
        .map(|(base, _)| base)
    {
        return ext_command(base);
    }
    (lower.starts_with("remote.") || value.trim_start().starts_with("ext::"))
        .then(|| ext_command(value))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_parameters_read_as_git_writes_them() {
        let rows: &[(&str, &[&str])] = &[
            ("'alias.x'='!rm -rf v'", &["alias.x=!rm -rf v"]),
            ("'core.pager=less' 'a.b'='c'", &["core.pager=less", "a.b=c"]),
            (r"'alias.x'='it'\''s'", &["alias.x=it's"]),
            (r"'alias.x'='a'\!'b'", &["alias.x=a!b"]),
            ("'no-value'", &[]),
            ("", &[]),
        ];
        for (text, want) in rows {
            assert_eq!(config_parameters(text), *want, "{text}");
        }
    }

    #[test]
    fn ext_remotes_in_config_name_their_command() {
        let rows: &[(&str, Option<&str>)] = &[
            ("remote.o.url=ext::rm -rf v", Some("'rm' '-rf' 'v'")),
            (
                "remote.o.pushurl=ext::sh -c id% x",
                Some("'sh' '-c' 'id x'"),
            ),
            ("url.ext::rm -rf v.insteadOf=o", Some("'rm' '-rf' 'v'")),
            ("URL.ext::rm.PushInsteadOf=o", Some("'rm'")),
            ("remote.o.url=https://x/y", None),
            ("url.https://x/.insteadOf=gh:", None),
            ("user.name=ext::rm", Some("'rm'")),
            ("alias.x=!rm", None),
        ];
        for (kv, want) in rows {
            assert_eq!(ext_config_command(kv).as_deref(), *want, "{kv}");
        }
    }

    #[test]
    fn less_preprocessors_are_commands() {
        let assign = |name: &str, value: &str| Assignment {
            name: name.into(),
            value: Word {
                text: value.into(),
                span: Span::default(),
                expansions: crate::segment::Expansions::NONE,
                quoted: false,
            },
            subscript: false,
            span: Span::default(),
        };
        let got = less_commands(&[
            assign("LESSOPEN", "|rm -rf v %s"),
            assign("LESSCLOSE", "cleanup %s %s"),
            assign("LESS", "-R"),
            assign("LESSOPEN", "||-"),
        ]);
        assert_eq!(got, ["rm -rf v file", "cleanup file file"]);
    }
}

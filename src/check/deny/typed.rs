//! check/deny/typed: what a terminal multiplexer types into a pane or window — `tmux send-keys
//! -t x 'rm -rf v' Enter`, `screen -X stuff 'rm -rf v\n'` — read as the lines the shell there
//! runs, and the commands `tmux` itself starts (`new-session CMD`, `split-window CMD`, `-c CMD`)
//! in every command of a `\;`-joined list. A typed line is read only when Enter ends it and every
//! key before it has an effect on the line that is known (text, Space, BSpace, C-c and C-u that
//! empty it); a key that moves the cursor, completes, or is expanded later makes the line unknown
//! and it is not read. It only adds denies; it never allows anything (tmux and screen ask).

use std::borrow::Cow;

use crate::check::{Ctx, Origin};
use crate::finding::Span;
use crate::segment::Word;

use super::static_word;

/// Most typed lines or started commands of one invocation read for denies.
const MAX_LINES: usize = 32;

/// Most characters typed per invocation that are followed (more asks by itself).
const MAX_TYPED: usize = 1 << 16;

/// Most repeats a `send-keys -N COUNT` is followed for.
const MAX_REPEAT: usize = 16;

/// The lines a terminal's shell would read from typed text, Enter by Enter.
#[derive(Default)]
struct Typed {
    /// Lines Enter ended whose every key was known.
    lines: Vec<String>,
    /// The line being typed.
    line: String,
    /// False once a key whose effect is not known touched the line being typed.
    known: bool,
    /// Characters typed so far.
    typed: usize,
}

/// One key's effect on the line being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    /// A character added at the cursor.
    Char(char),
    /// Enter: the shell runs the line.
    Enter,
    /// Backspace: the character before the cursor goes.
    Erase,
    /// C-c, C-u: the line is dropped.
    Clear,
    /// Anything else (arrows, Home, Tab completion, Escape, a mouse event, …).
    Unknown,
}

impl Typed {
    fn new() -> Self {
        Self {
            known: true,
            ..Self::default()
        }
    }

    fn key(&mut self, key: Key) {
        match key {
            Key::Char(c) => {
                self.typed += 1;
                if self.typed > MAX_TYPED {
                    self.known = false;
                }
                self.line.push(c);
            }
            Key::Enter => {
                if self.known && self.lines.len() < MAX_LINES {
                    self.lines.push(std::mem::take(&mut self.line));
                }
                self.line.clear();
                self.known = true;
            }
            Key::Erase => {
                self.line.pop();
            }
            Key::Clear => {
                self.line.clear();
                self.known = true;
            }
            Key::Unknown => self.known = false,
        }
    }

    /// Literal text: each character is typed as it is; a newline or carriage return is Enter,
    /// the control characters a terminal reads as editing keys are those keys.
    fn text(&mut self, s: &str) {
        for c in s.chars() {
            self.key(char_key(c));
        }
    }
}

/// The key a typed character is to a shell reading a terminal line.
fn char_key(c: char) -> Key {
    match c {
        '\n' | '\r' => Key::Enter,
        '\x7f' | '\x08' => Key::Erase,
        '\x03' | '\x15' => Key::Clear,
        // Tab completes, Escape starts a sequence, the rest edit the line.
        c if c.is_control() => Key::Unknown,
        c => Key::Char(c),
    }
}

/// tmux's key names that are neither text nor a key [`tmux_key`] models.
const TMUX_OTHER_KEYS: &[&str] = &[
    "tab", "btab", "escape", "up", "down", "left", "right", "home", "end", "ic", "insert", "dc",
    "delete", "npage", "pagedown", "pgdn", "ppage", "pageup", "pgup", "any",
];

/// Prefixes of tmux's mouse and function key names.
const TMUX_OTHER_PREFIXES: &[&str] = &[
    "mouse",
    "wheel",
    "doubleclick",
    "tripleclick",
    "secondclick",
    "kp",
];

/// What one `send-keys` argument is to tmux: a key name (tmux compares names ignoring case,
/// `C-`/`M-`/`S-` modifiers, `^X`, `0xHH`) or, when it names no key, text typed as it is
/// (`None`).
fn tmux_key(arg: &str) -> Option<Key> {
    if arg.chars().count() == 1 {
        return None;
    }
    let lower = arg.to_ascii_lowercase();
    let key = match lower.as_str() {
        "enter" | "kpenter" | "c-m" | "c-j" | "^m" | "^j" => Key::Enter,
        "space" => Key::Char(' '),
        "bspace" | "c-h" | "^h" | "^?" => Key::Erase,
        "c-c" | "^c" | "c-u" | "^u" => Key::Clear,
        l if TMUX_OTHER_KEYS.contains(&l) => Key::Unknown,
        l if TMUX_OTHER_PREFIXES.iter().any(|p| l.starts_with(p)) => Key::Unknown,
        l if l.starts_with('f') && l[1..].bytes().all(|b| b.is_ascii_digit()) => Key::Unknown,
        l if ["c-", "m-", "s-"].iter().any(|m| l.starts_with(m)) => Key::Unknown,
        l if l.starts_with('^') && l.chars().count() == 2 => Key::Unknown,
        l if l.starts_with("0x") => match u32::from_str_radix(&l[2..], 16)
            .ok()
            .and_then(char::from_u32)
        {
            Some(c) => char_key(c),
            None => Key::Unknown,
        },
        _ => return None,
    };
    Some(key)
}

/// tmux's command-list rule: an argument ending in `;` ends a command (`\;` in the shell), one
/// ending in `\;` keeps a literal `;`. `None` stands for a run-time word.
fn tmux_commands(words: &[Word]) -> Vec<Vec<Option<Cow<'_, str>>>> {
    let mut commands = Vec::new();
    let mut current = Vec::new();
    for w in words {
        let Some(t) = w.static_text() else {
            current.push(None);
            continue;
        };
        match t.strip_suffix(';') {
            Some(head) if head.ends_with('\\') => {
                current.push(Some(Cow::Owned(format!("{};", &head[..head.len() - 1]))));
            }
            Some(head) => {
                if !head.is_empty() {
                    current.push(Some(Cow::Borrowed(head)));
                }
                commands.push(std::mem::take(&mut current));
            }
            None => current.push(Some(Cow::Borrowed(t))),
        }
    }
    commands.push(current);
    commands
}

/// `tmux` subcommands that run a shell command, with their options that take a value.
const TMUX_RUNNERS: &[(&[&str], &str)] = &[
    (&["new-session", "new"], "cefFnstxy"),
    (&["new-window", "neww"], "ceFnt"),
    (&["split-window", "splitw"], "celtF"),
    (
        &["respawn-pane", "respawnp", "respawn-window", "respawnw"],
        "cet",
    ),
    (&["run-shell", "run"], "cdt"),
];

/// `send-keys`' options that take a value.
const SEND_KEYS_VALUES: &str = "cNt";

/// `tmux [-c CMD] COMMAND [; COMMAND…]`: the shell commands tmux starts (`-c CMD`,
/// `new-session CMD` and its kin) and the lines `send-keys` types and ends with Enter, per
/// target pane. A denied one denies.
pub(super) fn tmux(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let t = |k: usize| words.get(k).and_then(|w| w.static_text());
    let mut scripts: Vec<String> = Vec::new();
    let mut k = 1;
    // Global options: `-c CMD` runs CMD as a shell would; `-L`, `-S`, `-f`, `-T` take a value.
    while let Some(w) = t(k).filter(|w| w.starts_with('-')) {
        match w {
            "-c" => {
                scripts.extend(t(k + 1).map(str::to_string));
                k += 2;
            }
            "-L" | "-S" | "-f" | "-T" => k += 2,
            _ => k += 1,
        }
    }
    let mut panes: Vec<(Option<String>, Typed)> = Vec::new();
    for command in tmux_commands(words.get(k..).unwrap_or(&[])) {
        let Some(Some(sub)) = command.first() else {
            continue;
        };
        if matches!(sub.as_ref(), "send-keys" | "send") {
            send_keys(&command[1..], &mut panes);
        } else if let Some((_, values)) = TMUX_RUNNERS
            .iter()
            .find(|(names, _)| names.contains(&sub.as_ref()))
        {
            let mut n = 1;
            while let Some(Some(w)) = command.get(n).filter(|w| {
                w.as_deref()
                    .is_some_and(|w| w.starts_with('-') && w.len() > 1)
            }) {
                n += 1;
                if w == "--" {
                    break;
                }
                let last = w.chars().last().unwrap_or('-');
                if values.contains(last) && w.len() == 2 {
                    n += 1;
                }
            }
            let rest = command.get(n..).unwrap_or(&[]);
            if !rest.is_empty() && rest.iter().all(Option::is_some) {
                let text: Vec<&str> = rest.iter().flatten().map(AsRef::as_ref).collect();
                scripts.push(text.join(" "));
            }
        }
    }
    for script in scripts.iter().take(MAX_LINES) {
        super::denies_in(cx, i, span, "the command the tmux session runs", script);
    }
    let lines = panes.iter().flat_map(|(_, typed)| &typed.lines);
    for line in lines.take(MAX_LINES) {
        super::denies_in(cx, i, span, "the line tmux types into a pane", line);
    }
}

/// `send-keys [-lHFNRXMK] [-t PANE] KEY…`: the keys typed into the target pane's line.
fn send_keys(args: &[Option<Cow<'_, str>>], panes: &mut Vec<(Option<String>, Typed)>) {
    let mut literal = false;
    let mut hex = false;
    let mut format = false;
    let mut repeat = 1;
    let mut target = None;
    let mut k = 0;
    while let Some(Some(w)) = args.get(k) {
        if !w.starts_with('-') || w.len() < 2 {
            break;
        }
        k += 1;
        if w == "--" {
            break;
        }
        for (n, c) in w.char_indices().skip(1) {
            if SEND_KEYS_VALUES.contains(c) {
                let value = match &w[n + 1..] {
                    "" => {
                        k += 1;
                        args.get(k - 1).cloned().flatten()
                    }
                    rest => Some(Cow::Owned(rest.to_string())),
                };
                match c {
                    't' => target = value.map(|v| v.into_owned()),
                    'N' => {
                        repeat = value
                            .and_then(|v| v.parse::<usize>().ok())
                            .filter(|&r| r <= MAX_REPEAT)
                            .unwrap_or(0);
                    }
                    _ => {}
                }
                break;
            }
            match c {
                'l' => literal = true,
                'H' => hex = true,
                'F' => format = true,
                // Copy-mode commands and key-table lookups type nothing a model reads.
                'X' | 'K' => return,
                _ => {}
            }
        }
    }
    let at = match panes.iter().position(|(t, _)| *t == target) {
        Some(at) => at,
        None => {
            panes.push((target, Typed::new()));
            panes.len() - 1
        }
    };
    let typed = &mut panes[at].1;
    if repeat == 0 {
        typed.key(Key::Unknown);
        return;
    }
    for _ in 0..repeat {
        for arg in &args[k..] {
            let Some(arg) = arg.as_deref() else {
                typed.key(Key::Unknown);
                continue;
            };
            if format && arg.contains('#') {
                typed.key(Key::Unknown);
            } else if hex {
                let c = u32::from_str_radix(arg.trim_start_matches("0x"), 16)
                    .ok()
                    .and_then(char::from_u32);
                typed.key(c.map_or(Key::Unknown, char_key));
            } else if literal {
                typed.text(arg);
            } else {
                match tmux_key(arg) {
                    Some(key) => typed.key(key),
                    None => typed.text(arg),
                }
            }
        }
    }
}

/// `screen -X COMMAND ARGS…` sends COMMAND to a running session: `stuff TEXT` types TEXT
/// into the window (screen decodes `\n`, `\r`, `\t`, `\NNN` and `^X` in it first), `screen
/// CMD…` and `exec CMD…` start CMD. A denied typed line or command denies.
pub(super) fn screen_command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(command) = words.first().and_then(|w| w.static_text()) else {
        return;
    };
    let args = &words[1..];
    match command {
        "stuff" => {
            let Some(text) = args.first().and_then(|w| w.static_text()) else {
                return;
            };
            if args.len() > 1 || text == "-k" {
                return;
            }
            let Some(decoded) = screen_decode(text) else {
                return;
            };
            let mut typed = Typed::new();
            typed.text(&decoded);
            for line in &typed.lines {
                super::denies_in(cx, i, span, "the line screen types into a window", line);
            }
        }
        "screen" | "exec" => {
            let mut n = 0;
            let mut decoded = Vec::new();
            for w in args {
                let Some(t) = w.static_text().and_then(screen_decode) else {
                    return;
                };
                decoded.push(t);
            }
            while let Some(d) = decoded.get(n) {
                let is_option = d.starts_with('-') && d.len() > 1;
                // `exec`'s file-descriptor pattern (`!..|`); `screen`'s window number.
                let is_fd_pattern =
                    command == "exec" && n == 0 && d.chars().all(|c| ".!:|".contains(c));
                let is_number = command == "screen" && d.bytes().all(|b| b.is_ascii_digit());
                if !(is_option || is_fd_pattern || is_number) {
                    break;
                }
                n += 1;
                if is_option
                    && command == "screen"
                    && super::multicall::SCREEN_VALUES.contains(d.chars().last().unwrap_or('-'))
                {
                    n += 1;
                }
            }
            let inner: Vec<Word> = decoded
                .iter()
                .skip(n)
                .map(|d| static_word(d, span))
                .collect();
            if !inner.is_empty() {
                cx.command(i, span, &inner, Origin::Tail);
            }
        }
        _ => {}
    }
}

/// What screen's command parser makes of one `-X` argument (it quotes each in `"…"`): `\n`,
/// `\r`, `\t`, `\NNN` octal and `\` before a quote, `\`, `$`, `#` or `^` decoded, `^X` a control
/// character. `None` for a `$NAME` that screen would fill in from its environment.
fn screen_decode(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek().copied() {
                Some(d @ '0'..='7') => {
                    let mut value = 0u32;
                    let mut digits = 0;
                    let mut next = Some(d);
                    while let Some(o @ '0'..='7') = next {
                        if digits == 3 {
                            break;
                        }
                        value = (value << 3) | (o as u32 - '0' as u32);
                        digits += 1;
                        chars.next();
                        next = chars.peek().copied();
                    }
                    out.push(char::from_u32(value & 0xff)?);
                }
                Some('n') => {
                    chars.next();
                    out.push('\n');
                }
                Some('r') => {
                    chars.next();
                    out.push('\r');
                }
                Some('t') => {
                    chars.next();
                    out.push('\t');
                }
                Some(q @ ('\'' | '"' | '\\' | '$' | '#' | '^')) => {
                    chars.next();
                    out.push(q);
                }
                _ => out.push('\\'),
            },
            '$' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, '{' | ':' | '_')) =>
            {
                return None;
            }
            '^' if chars.peek().is_some() => {
                let n = chars.next()?;
                out.push(match n {
                    '?' => '\x7f',
                    n => char::from_u32(n as u32 & 0x1f)?,
                });
            }
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed_lines(keys: &[&str]) -> Vec<String> {
        let mut typed = Typed::new();
        for k in keys {
            match tmux_key(k) {
                Some(key) => typed.key(key),
                None => typed.text(k),
            }
        }
        typed.lines
    }

    #[test]
    fn send_keys_arguments_make_lines() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["rm -rf v", "Enter"], &["rm -rf v"]),
            (&["rm -rf v", "C-m"], &["rm -rf v"]),
            (
                &["rm", "Space", "-rf", "Space", "v", "enter"],
                &["rm -rf v"],
            ),
            (&["rm -rf vv", "BSpace", "Enter"], &["rm -rf v"]),
            (&["rm -rf v"], &[]),
            (&["rm -rf v", "C-c", "ls", "Enter"], &["ls"]),
            (&["rm -rf v", "Home", "echo ", "Enter"], &[]),
            (&["rm -rf v", "Home", "Enter", "ls", "Enter"], &["ls"]),
            (&["rm -rf v\n"], &["rm -rf v"]),
            (&["rm -rf v", "0x0d"], &["rm -rf v"]),
            (&["rm -rf v", "Tab", "Enter"], &[]),
        ];
        for (keys, want) in cases {
            assert_eq!(typed_lines(keys), *want, "{keys:?}");
        }
    }

    #[test]
    fn screen_decodes_what_its_parser_decodes() {
        let cases = [
            ("rm -rf v\\n", Some("rm -rf v\n")),
            ("rm -rf v^M", Some("rm -rf v\r")),
            ("rm -rf v\\015", Some("rm -rf v\r")),
            ("a\\\\n", Some("a\\n")),
            ("echo $HOME", None),
            ("cost 5$", Some("cost 5$")),
            ("a\\qb", Some("a\\qb")),
        ];
        for (input, want) in cases {
            assert_eq!(screen_decode(input).as_deref(), want, "{input}");
        }
    }
}

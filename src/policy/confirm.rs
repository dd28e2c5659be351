//! policy/confirm: asking a person — the [`Prompt`] the policy builds, the [`Confirm`] trait
//! that answers it, and a terminal implementation. It never decides whether to ask (that is
//! the policy's flow) and never grants anything itself.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::prefix::Prefix;
use crate::assess::{Decision, UnsureKind};

/// Title of the prompt for an assessor's `Unsure` (default yes).
pub const TITLE_CONFIRM: &str = "Command Confirmation";
/// Title of the prompt for an assessor's `Reject` (default no).
pub const TITLE_DANGEROUS: &str = "Dangerous Command Confirmation";
/// Title of the prompt a file tool raises before it changes a file outside its temporary
/// directory ([`Policy::confirm_change`](crate::policy::Policy::confirm_change)).
pub const TITLE_FILE_CHANGE: &str = "File Change Confirmation";

/// An answer to a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum Choice {
    /// Run it, this once.
    Yes,
    /// Do not run it.
    No,
    /// Run it, and from now on let commands starting with `prefix` through (as a token-prefix
    /// allowlist entry; see [`Prefix::matches_segment`]).
    Remember {
        /// The words granted.
        prefix: Prefix,
    },
    /// Run it, and let file tools write under `path` from now on.
    GrantPath {
        /// The path granted.
        path: PathBuf,
    },
}

impl Choice {
    /// True for every answer that runs the command: yes and the two grants.
    pub fn runs(&self) -> bool {
        match self {
            Choice::Yes | Choice::Remember { .. } | Choice::GrantPath { .. } => true,
            Choice::No => false,
        }
    }
}

/// Who answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A person.
    User,
    /// Auto-confirm mode took the prompt's default without asking.
    Auto,
}

/// An answer and who gave it. Only a [`Source::User`] answer may grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[must_use = "read `.choice`: a prompt's answer may be no"]
pub struct ChoiceOutcome {
    /// The answer (in JSON, its `choice` tag and fields sit beside `source`).
    #[serde(flatten)]
    pub choice: Choice,
    /// Who gave it.
    pub source: Source,
}

impl ChoiceOutcome {
    /// A person's answer.
    pub fn user(choice: Choice) -> ChoiceOutcome {
        ChoiceOutcome {
            choice,
            source: Source::User,
        }
    }
}

/// What the person is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// [`TITLE_CONFIRM`], [`TITLE_DANGEROUS`] or [`TITLE_FILE_CHANGE`].
    pub title: String,
    /// The command.
    pub command: String,
    /// The analyser's reasons, one per line, then `(Risk assessment: …) [kind]`.
    pub text: String,
    /// What an empty answer means: [`Choice::Yes`] for `Unsure`, [`Choice::No`] for `Reject`.
    pub default: Choice,
    /// The assessor's decision that led here.
    pub decision: Decision,
    /// The assessor's kind, when it gave one.
    pub kind: Option<UnsureKind>,
    /// The prefix "allow, and remember" would grant, when one would cover the command.
    pub remember: Option<Prefix>,
    /// The path "allow and grant writes" would grant, when the request names one.
    pub grant_path: Option<PathBuf>,
}

/// Answers prompts. Swap in a GUI, a chat message or a script; closures are confirmers too.
///
/// ```
/// use cmdguard::policy::{Choice, ChoiceOutcome, Confirm, Prompt};
/// let mut always_no = |_: &Prompt| ChoiceOutcome::user(Choice::No);
/// # let _ = &mut always_no as &mut dyn Confirm;
/// ```
pub trait Confirm {
    /// Asks and returns the answer.
    fn confirm(&mut self, prompt: &Prompt) -> ChoiceOutcome;
}

impl<F> Confirm for F
where
    F: FnMut(&Prompt) -> ChoiceOutcome,
{
    fn confirm(&mut self, prompt: &Prompt) -> ChoiceOutcome {
        self(prompt)
    }
}

/// A confirmer that writes the prompt to `W` and reads a line from `R` (a tty, stdin, or a
/// scripted reader in tests). An empty line takes the default; end of input or a read error
/// answers no, whatever the default, since nobody is there to say yes.
#[derive(Debug)]
pub struct TerminalConfirm<R, W> {
    reader: R,
    writer: W,
}

/// How many unrecognised answers before the terminal confirmer gives up and answers no.
const MAX_TRIES: usize = 3;

impl<R: BufRead, W: Write> TerminalConfirm<R, W> {
    /// A confirmer over `reader` and `writer`.
    pub fn new(reader: R, writer: W) -> TerminalConfirm<R, W> {
        TerminalConfirm { reader, writer }
    }

    /// The reader and writer back.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    fn show(&mut self, p: &Prompt) -> io::Result<()> {
        writeln!(self.writer, "{}", printable(&p.title))?;
        for (i, line) in p.command.split('\n').enumerate() {
            let lead = if i == 0 { "$" } else { ">" };
            writeln!(self.writer, "  {lead} {}", printable(line))?;
        }
        for line in p.text.split('\n') {
            writeln!(self.writer, "  {}", printable(line))?;
        }
        Ok(())
    }

    fn ask(&mut self, p: &Prompt) -> io::Result<Choice> {
        self.show(p)?;
        let yes_no = match p.default {
            Choice::Yes => "[Y]es / [n]o",
            Choice::No | Choice::Remember { .. } | Choice::GrantPath { .. } => "[y]es / [N]o",
        };
        let mut options = yes_no.to_string();
        if let Some(prefix) = &p.remember {
            options.push_str(&format!(" / [a]llow and remember `{prefix}`"));
        }
        if let Some(path) = &p.grant_path {
            options.push_str(&format!(
                " / [w] allow and grant writes to `{}`",
                path.display()
            ));
        }
        let options = printable(&options);
        for _ in 0..MAX_TRIES {
            write!(self.writer, "{options}? ")?;
            self.writer.flush()?;
            let mut line = String::new();
            if self.reader.read_line(&mut line)? == 0 {
                return Ok(Choice::No);
            }
            let answer = line.trim().to_ascii_lowercase();
            match (answer.as_str(), &p.remember, &p.grant_path) {
                ("", _, _) => return Ok(p.default.clone()),
                ("y" | "yes", _, _) => return Ok(Choice::Yes),
                ("n" | "no", _, _) => return Ok(Choice::No),
                ("a", Some(prefix), _) => {
                    return Ok(Choice::Remember {
                        prefix: prefix.clone(),
                    });
                }
                ("w", _, Some(path)) => return Ok(Choice::GrantPath { path: path.clone() }),
                _ => writeln!(
                    self.writer,
                    "  unrecognised answer `{}`",
                    printable(line.trim())
                )?,
            }
        }
        Ok(Choice::No)
    }
}

impl TerminalConfirm<io::StdinLock<'static>, io::Stderr> {
    /// A confirmer that prompts on stderr and reads stdin.
    pub fn stdio() -> TerminalConfirm<io::StdinLock<'static>, io::Stderr> {
        TerminalConfirm::new(io::stdin().lock(), io::stderr())
    }
}

/// Invisible characters a command could use to redraw the prompt: escape sequences, carriage
/// returns, bidirectional overrides and zero-width characters are shown as `\u{…}` escapes.
pub fn printable(text: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}' | '\u{feff}')
    };
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

impl<R: BufRead, W: Write> Confirm for TerminalConfirm<R, W> {
    fn confirm(&mut self, prompt: &Prompt) -> ChoiceOutcome {
        // A terminal that cannot be written or read cannot say yes.
        ChoiceOutcome::user(self.ask(prompt).unwrap_or(Choice::No))
    }
}

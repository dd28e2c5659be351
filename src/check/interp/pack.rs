//! check/interp/pack: the `interpreters` pack — which calls of which language spawn a command
//! or delete a path — read from `packs/interpreters.toml`, embedded at build time. It only says
//! what a call name means; it never reads code and never decides a verdict.
//!
//! The serialised form ([`RawPack`]) is kept apart from the compiled one ([`Pack`]); the
//! examples each rule carries are checked by `tests/it/interp.rs` through the whole analyser.

use std::sync::OnceLock;

use serde::Deserialize;

use super::Lang;

/// The embedded pack text.
pub(crate) const SOURCE: &str = include_str!("../../../packs/interpreters.toml");

/// What a matched call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    /// Its arguments are a command: a bash script or the words of one command.
    Spawn,
    /// Its argument is a path it deletes or overwrites.
    Delete,
    /// Its argument is more code of the same language (`exec("…")`, `eval "…"`), read in turn.
    Eval,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub id: String,
    pub language: Lang,
    pub kind: Kind,
    pub calls: Vec<String>,
    /// Index of the first argument that counts.
    pub argument: usize,
    /// The path is the first argument of the call the method is called on (`X(p).m()`).
    pub receiver: bool,
    /// Index of the argument naming the program a spawning call runs, when the words from
    /// `argument` on are its argv (`os.execvp(file, args)`): argv\[0\] is only a display name.
    pub program: Option<usize>,
    /// Keyword arguments that carry the value when no positional one does
    /// (`shutil.rmtree(path='/x')`).
    pub keywords: Vec<String>,
    /// Only the argument at `argument` is the command; the ones after it are a mode or
    /// options (`popen(cmd, "r")`).
    pub single: bool,
    /// The calls of the rule that delete a tree: any literal path they are given is denied,
    /// inside the working directory too, as `rm -r` is (`shutil.rmtree("src")`).
    pub anywhere: Vec<String>,
    /// A command the values are given to (`sqlite3 db` for a driver's `execute(SQL)`): the
    /// spawned command is this text followed by the values, each one word.
    pub via: Option<String>,
    pub reason: String,
}

/// The compiled pack.
#[derive(Debug, Default)]
pub(crate) struct Pack {
    pub rules: Vec<Rule>,
}

impl Pack {
    /// The rules of `lang` naming `call`.
    pub(crate) fn lookup(&self, lang: Lang, call: &str) -> impl Iterator<Item = &Rule> {
        self.rules
            .iter()
            .filter(move |r| r.language == lang && r.calls.iter().any(|c| c == call))
    }

    /// A spawning rule of `lang` for a call on `module` whose command is its first argument,
    /// for a member only run time names (`child_process[name](cmd)`).
    pub(crate) fn spawn_on(&self, lang: Lang, module: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| {
            r.language == lang
                && r.kind == Kind::Spawn
                && r.argument == 0
                && r.program.is_none()
                && r.calls.iter().any(|c| {
                    c.strip_prefix(module)
                        .and_then(|m| m.strip_prefix('.'))
                        .is_some_and(|m| !m.contains('.'))
                })
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPack {
    rule: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    language: Lang,
    kind: Kind,
    calls: Vec<String>,
    #[serde(default)]
    argument: usize,
    #[serde(default)]
    receiver: bool,
    #[serde(default)]
    program: Option<usize>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    single: bool,
    #[serde(default)]
    anywhere: Vec<String>,
    #[serde(default)]
    via: Option<String>,
    reason: String,
    // Checked by the integration test, which runs each one through the analyser.
    #[serde(default, rename = "match")]
    _match: Vec<String>,
    #[serde(default, rename = "not_match")]
    _not_match: Vec<String>,
}

/// Compiles a pack's text; an error names what is wrong.
pub(crate) fn parse(text: &str) -> Result<Pack, String> {
    let raw: RawPack = toml::from_str(text).map_err(|e| format!("interpreters pack: {e}"))?;
    let rules = raw
        .rule
        .into_iter()
        .map(|r| Rule {
            id: r.id,
            language: r.language,
            kind: r.kind,
            calls: r.calls,
            argument: r.argument,
            receiver: r.receiver,
            program: r.program,
            keywords: r.keywords,
            single: r.single,
            anywhere: r.anywhere,
            via: r.via,
            reason: r.reason,
        })
        .collect();
    Ok(Pack { rules })
}

/// The embedded pack, compiled once. A pack that does not load has no rules, so nothing is
/// denied by it and every one-liner keeps its `ask`; a unit test keeps the embedded one loading.
pub(crate) fn embedded() -> &'static Pack {
    static PACK: OnceLock<Pack> = OnceLock::new();
    PACK.get_or_init(|| parse(SOURCE).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_pack_loads_with_rules_for_every_language() {
        let pack = parse(SOURCE).expect("pack");
        for lang in [
            Lang::Python,
            Lang::JavaScript,
            Lang::Ruby,
            Lang::Php,
            Lang::Perl,
        ] {
            for kind in [Kind::Spawn, Kind::Delete, Kind::Eval] {
                assert!(
                    pack.rules
                        .iter()
                        .any(|r| r.language == lang && r.kind == kind),
                    "{lang:?} {kind:?}"
                );
            }
        }
    }

    #[test]
    fn unknown_keys_are_errors() {
        let e =
            parse("[[rule]]\nid='x'\nlanguage='perl'\nkind='spawn'\ncalls=[]\nreason='r'\nwhy=1\n")
                .unwrap_err();
        assert!(e.contains("why"), "{e}");
    }
}

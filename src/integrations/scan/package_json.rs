//! scan/package_json: the `scripts` of an npm `package.json`, each a piece at the column of its
//! string. npm runs each with `sh -c` and `node_modules/.bin` first on `PATH`, so every script
//! also asks for that (see [`ScanCode::ProjectPath`]). It never decides safety itself.

use super::json::{self, Value};
use super::{Extracted, Problem, ScanCode, ScriptBuf, Shell};
use crate::Span;

pub(super) fn extract(text: &str) -> Extracted {
    let mut out = Extracted::default();
    // A byte-order mark is allowed before the object.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let root = match json::parse(text, start) {
        Ok(v) => v,
        Err(e) => {
            out.problems.push(Problem {
                code: ScanCode::MalformedFile,
                message: format!(
                    "not valid JSON ({}), so its scripts cannot be read",
                    e.message
                ),
                span: Span::new(e.offset, e.offset),
            });
            return out;
        }
    };
    let Value::Object(members) = root else {
        return out;
    };
    for (key, value) in &members {
        if key.value != "scripts" {
            continue;
        }
        let Value::Object(scripts) = value else {
            continue;
        };
        for (name, script) in scripts {
            let Value::Str(s) = script else { continue };
            let mut b = ScriptBuf::default();
            for (i, c) in s.value.char_indices() {
                b.push_char(c, s.origin[i]);
            }
            let mut piece = b.finish(&format!("scripts.{}", name.value), s.end - 1, Shell::Bash);
            piece.notes.push((
                ScanCode::ProjectPath,
                "npm runs scripts with `node_modules/.bin` first on PATH: a program name may run a package's program".to_string(),
            ));
            out.pieces.push(piece);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_is_a_piece_mapped_to_its_string() {
        let text = "{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"test\": \"jest\",\n    \"lint\": \"eslint \\\"src\\\"\"\n  }\n}\n";
        let x = extract(text);
        let got: Vec<(&str, &str, usize)> = x
            .pieces
            .iter()
            .map(|p| (p.context.as_str(), p.script.as_str(), p.origin[0]))
            .collect();
        let test_at = text.find("jest").unwrap_or_default();
        let lint_at = text.find("eslint").unwrap_or_default();
        assert_eq!(
            got,
            [
                ("scripts.test", "jest", test_at),
                ("scripts.lint", "eslint \"src\"", lint_at)
            ]
        );
        assert!(x.problems.is_empty());
    }

    #[test]
    fn invalid_json_is_a_problem_not_an_empty_file() {
        let x = extract("{\"scripts\": {\"a\": \"ls\",}}");
        assert!(x.pieces.is_empty());
        assert_eq!(x.problems.len(), 1);
        assert_eq!(x.problems[0].code, ScanCode::MalformedFile);
    }
}

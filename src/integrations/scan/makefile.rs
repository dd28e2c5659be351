//! scan/makefile: the recipe lines of a Makefile as make hands them to the shell — the recipe
//! prefix (a tab, or `.RECIPEPREFIX`) and the `@`/`-`/`+` modifiers removed, `\` continuations
//! kept for the shell, `$$` as `$`. A make variable (`$(CC)`, `${X}`, `$@`) is pasted into the
//! line before the shell reads it: it asks, and the analyser sees a run-time value in its
//! place. Each logical recipe line is one piece (one shell), or each rule's recipe with
//! `.ONESHELL:`. It never decides safety itself.

use super::{Extracted, Piece, ScriptBuf, Shell, interpreter_name, shell_named};

#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    start: usize,
    text: &'a str,
}

pub(super) fn extract(text: &str) -> Extracted {
    let lines = physical_lines(text);
    let mut out = Extracted::default();
    let oneshell = lines.iter().any(|l| l.text.starts_with(".ONESHELL:"));
    let mut prefix = '\t';
    let mut shell = Shell::Bash;
    let mut target: Option<String> = None;
    let mut in_define = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if in_define {
            if line.text.trim_start().starts_with("endef") {
                in_define = false;
            }
            i += 1;
            continue;
        }
        if let Some(first) = line.text.strip_prefix(prefix) {
            // One logical recipe line: physical lines joined by `\`-newline, which the shell
            // receives as it is; make drops the prefix of each continuation line.
            let mut b = ScriptBuf::default();
            let body =
                first.trim_start_matches(|c: char| "@-+".contains(c) || c == ' ' || c == '\t');
            let mut part = Line {
                start: line.start + (line.text.len() - body.len()),
                text: body,
            };
            i += 1;
            loop {
                expand(part, &mut b);
                if !continues(part.text) || i >= lines.len() {
                    break;
                }
                let next = lines[i];
                i += 1;
                b.push_char('\n', part.start + part.text.len());
                let stripped = next.text.strip_prefix(prefix).unwrap_or(next.text);
                part = Line {
                    start: next.start + (next.text.len() - stripped.len()),
                    text: stripped,
                };
            }
            let context = match &target {
                Some(t) => format!("recipe of {t}"),
                None => "recipe".to_string(),
            };
            let end = part.start + part.text.len();
            let piece = b.finish(&context, end, shell.clone());
            match out.pieces.last_mut() {
                Some(last) if oneshell && last.context == piece.context => join(last, piece),
                _ => out.pieces.push(piece),
            }
            continue;
        }
        // Any other logical line: continuation lines joined.
        let mut logical = String::from(line.text);
        let start = line.start;
        i += 1;
        while continues(&logical) && i < lines.len() {
            logical.pop();
            logical.push(' ');
            logical.push_str(lines[i].text.trim_start());
            i += 1;
        }
        let trimmed = logical.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed == "define" || trimmed.starts_with("define ") {
            in_define = true;
            continue;
        }
        // make runs these while it reads the Makefile, before any recipe: `X != cmd` and
        // `$(shell cmd)`. Positions past the first physical line are approximate.
        for (at, script) in make_time_shells(&logical) {
            let mut b = ScriptBuf::default();
            let first = Line {
                start: start + at.min(line.text.len()),
                text: script,
            };
            expand(first, &mut b);
            let end = first.start + script.len();
            out.pieces
                .push(b.finish("make-time shell", end.min(text.len()), shell.clone()));
        }
        if let Some((name, value)) = assignment(trimmed) {
            match name {
                "SHELL" => {
                    shell = if value.contains('$') {
                        Shell::Unsupported(format!("a SHELL set from a variable (`{value}`)"))
                    } else {
                        interpreter_name(value)
                            .map_or(Shell::Unsupported("an empty SHELL".into()), |n| {
                                shell_named(&n)
                            })
                    };
                }
                ".RECIPEPREFIX" => prefix = value.chars().next().unwrap_or('\t'),
                _ => {}
            }
            continue;
        }
        if let Some((targets, rest)) = rule(&logical) {
            target = Some(targets.trim().to_string());
            // `target: prerequisites ; recipe` runs the text after `;` as a recipe line.
            if let Some(semi) = rest.find(';')
                && !logical.contains('\n')
            {
                let recipe_at = logical.len() - rest.len() + semi + 1;
                let body = &logical[recipe_at..];
                let body_trim =
                    body.trim_start_matches(|c: char| "@-+".contains(c) || c.is_whitespace());
                // The joined line matches the file only before its first continuation.
                if line.text.len() >= recipe_at {
                    let mut b = ScriptBuf::default();
                    expand(
                        Line {
                            start: start + recipe_at + (body.len() - body_trim.len()),
                            text: body_trim,
                        },
                        &mut b,
                    );
                    let end = start + logical.len();
                    out.pieces.push(b.finish(
                        &format!("recipe of {}", targets.trim()),
                        end,
                        shell.clone(),
                    ));
                }
            }
        }
    }
    out
}

/// Appends a second recipe line of the same rule to the first (`.ONESHELL:`).
fn join(first: &mut Piece, second: Piece) {
    let at = first.origin.pop().unwrap_or(0);
    first.script.push('\n');
    first.origin.push(at);
    let shift = first.script.len();
    first.script.push_str(&second.script);
    first.origin.extend(second.origin);
    first.templates.extend(
        second
            .templates
            .into_iter()
            .map(|(s, t)| (crate::Span::new(s.start + shift, s.end + shift), t)),
    );
}

/// Appends a recipe line's text with make's `$` syntax undone: `$$` is `$`, every variable
/// reference a template.
fn expand(line: Line, b: &mut ScriptBuf) {
    let s = line.text;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let Some(c) = rest.chars().next() else { break };
        if c != '$' {
            b.push_char(c, line.start + i);
            i += c.len_utf8();
            continue;
        }
        let len = match rest[1..].chars().next() {
            Some('$') => {
                b.push_char('$', line.start + i);
                i += 2;
                continue;
            }
            Some(open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                let mut depth = 0;
                rest.char_indices()
                    .skip(1)
                    .find(|&(_, ch)| {
                        if ch == open {
                            depth += 1;
                        } else if ch == close {
                            depth -= 1;
                        }
                        depth == 0
                    })
                    .map_or(rest.len(), |(n, _)| n + 1)
            }
            Some(ch) => 1 + ch.len_utf8(),
            None => 1,
        };
        b.push_template(&rest[..len], line.start + i);
        i += len;
    }
}

/// The shell commands make runs while reading a (non-recipe) logical line: the value of a
/// `!=` assignment, and the argument of each `$(shell …)` / `${shell …}`, with their offsets.
fn make_time_shells(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    if let Some(bang) = line.find("!=")
        && line[..bang].find(['=', ':']).is_none()
    {
        let value = &line[bang + 2..];
        let trimmed = value.trim_start();
        out.push((line.len() - trimmed.len(), trimmed));
    }
    let mut from = 0;
    while let Some(n) = line[from..].find("shell ").map(|n| from + n) {
        from = n + "shell ".len();
        let open = match line[..n]
            .strip_suffix('(')
            .or_else(|| line[..n].strip_suffix('{'))
        {
            Some(before) if before.ends_with('$') => line.as_bytes()[n - 1],
            _ => continue,
        };
        let close = if open == b'(' { b')' } else { b'}' };
        let mut depth = 1;
        let end = line[from..]
            .bytes()
            .position(|b| {
                if b == open {
                    depth += 1;
                } else if b == close {
                    depth -= 1;
                }
                depth == 0
            })
            .map_or(line.len(), |p| from + p);
        out.push((from, &line[from..end]));
    }
    out
}

/// Whether a line ends in an odd number of backslashes (continues on the next line).
fn continues(s: &str) -> bool {
    (s.len() - s.trim_end_matches('\\').len()) % 2 == 1
}

/// `NAME = value` (also `:=`, `::=`, `?=`, `+=`, `!=`, with `export`/`override`): the name and
/// the value.
fn assignment(line: &str) -> Option<(&str, &str)> {
    let line = line
        .strip_prefix("export ")
        .or_else(|| line.strip_prefix("override "))
        .unwrap_or(line)
        .trim_start();
    let eq = line.find('=')?;
    let colon = line.find(':');
    let head = line[..eq].trim_end_matches([':', '?', '+', '!']);
    // `a: b=c` is a target-specific variable of a rule: the colon comes first, alone.
    if colon.is_some_and(|c| c < head.len()) {
        return None;
    }
    let name = head.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    Some((name, line[eq + 1..].trim()))
}

/// `targets: rest` for a rule line (not an assignment, not a conditional).
fn rule(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let (targets, rest) = (&line[..colon], &line[colon + 1..]);
    let rest = rest.trim_start_matches(':');
    const DIRECTIVES: &[&str] = &[
        "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude",
        "vpath", "export", "unexport", "override",
    ];
    let first = targets.split_whitespace().next()?;
    if DIRECTIVES.contains(&first) {
        return None;
    }
    Some((targets, rest))
}

fn physical_lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for l in text.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(Line { start, text: body });
        start += l.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece as a test sees it: context, script, and the file's text where it starts.
    type Seen = (String, String, String);

    fn pieces(text: &str) -> Vec<Seen> {
        extract(text)
            .pieces
            .iter()
            .map(|p| {
                let at = p.origin.first().copied().unwrap_or(0);
                (
                    p.context.clone(),
                    p.script.clone(),
                    text[at..].chars().take(4).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn recipes_as_make_hands_them_to_the_shell() {
        let p = |c: &str, s: &str, at: &str| (c.to_string(), s.to_string(), at.to_string());
        let table: &[(&str, Vec<Seen>)] = &[
            (
                "all:\n\tls -la\n",
                vec![p("recipe of all", "ls -la", "ls -")],
            ),
            (
                "all:\n\t@-echo hi\n",
                vec![p("recipe of all", "echo hi", "echo")],
            ),
            (
                "a: b\n\techo $$HOME \\\n\t  x\n",
                vec![p("recipe of a", "echo $HOME \\\n  x", "echo")],
            ),
            (
                "a:\n\t$(CC) -o $@ $<\n",
                vec![p("recipe of a", "${__} -o $_ $_", "$(CC")],
            ),
            (
                "a: ; rm -rf x\n",
                vec![p("recipe of a", "rm -rf x", "rm -")],
            ),
            ("X = 1\n\ndefine T\n\tls\nendef\n# c\n", vec![]),
            (
                ".RECIPEPREFIX = >\nall:\n>ls\n",
                vec![p("recipe of all", "ls", "ls\n")],
            ),
            (
                ".ONESHELL:\nall:\n\tcd /tmp\n\tgit status\n",
                vec![p("recipe of all", "cd /tmp\ngit status", "cd /")],
            ),
        ];
        for (text, want) in table {
            assert_eq!(&pieces(text), want, "{text:?}");
        }
    }

    #[test]
    fn commands_make_runs_while_reading_are_pieces() {
        let x = extract("X != rm -rf /tmp/x\nY := $(shell git rev-parse HEAD)\nall:\n\tls\n");
        let scripts: Vec<(&str, &str)> = x
            .pieces
            .iter()
            .map(|p| (p.context.as_str(), p.script.as_str()))
            .collect();
        assert_eq!(
            scripts,
            [
                ("make-time shell", "rm -rf /tmp/x"),
                ("make-time shell", "git rev-parse HEAD"),
                ("recipe of all", "ls")
            ]
        );
    }

    #[test]
    fn make_variables_are_templates() {
        let x = extract("a:\n\techo ${X} $(shell id) $$y\n");
        let t: Vec<&str> = x.pieces[0]
            .templates
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(t, ["${X}", "$(shell id)"]);
    }

    #[test]
    fn a_shell_other_than_bash_or_sh_is_unsupported() {
        let x = extract("SHELL := /usr/bin/python3\nall:\n\tprint(1)\n");
        assert_eq!(x.pieces[0].shell, Shell::Unsupported("python3".into()));
        let x = extract("SHELL = /bin/bash\nall:\n\tls\n");
        assert_eq!(x.pieces[0].shell, Shell::Bash);
    }
}

//! tool/fnmatch.rs: shell-style wildcard matching of tool names (`browser_*`), as Python's
//! `fnmatch.fnmatchcase`: `*`, `?`, `[abc]`, `[a-z]` and `[!abc]`. It never touches the registry.

/// Whether `name` matches `pattern` in full, case-sensitively.
///
/// An unclosed `[` matches a literal `[`, as in Python.
pub(crate) fn fnmatch(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    matches_from(&pattern, &name)
}

/// Iterative matching with backtracking to the most recent `*`: linear in practice and never
/// exponential, whatever the pattern.
fn matches_from(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match class(&pattern[p..], name[n]) {
                Some((true, len)) => Some(len),
                Some((false, _)) => None,
                None if name[n] == '[' => Some(1),
                None => None,
            },
            Some(&literal) if literal == name[n] => Some(1),
            Some(_) | None => None,
        };
        match (step, star) {
            (Some(len), _) => {
                p += len;
                n += 1;
            }
            (None, Some((star_p, star_n))) => {
                p = star_p + 1;
                n = star_n + 1;
                star = Some((star_p, star_n + 1));
            }
            (None, None) => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Matches one character against the class that starts `pattern` (at its `[`). Returns whether
/// it matched and the class's length in pattern characters, or `None` when the class is not
/// closed.
fn class(pattern: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(pattern.get(i), Some('!'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &current = pattern.get(i)?;
        // A `]` right after `[` or `[!` is a literal member, as in Python.
        if current == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|&end| end != ']') {
            let end = pattern[i + 2];
            matched |= current <= c && c <= end;
            i += 3;
        } else {
            matched |= current == c;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn wildcards_match_like_python_fnmatchcase() {
        let table = [
            ("browser_*", "browser_click", true),
            ("browser_*", "browser_", true),
            ("browser_*", "web_browser_click", false),
            ("*_file", "read_file", true),
            ("*_file", "read_files", false),
            ("read_?ile", "read_file", true),
            ("read_?ile", "read_ile", false),
            ("*", "", true),
            ("", "", true),
            ("", "a", false),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("[abc]x", "bx", true),
            ("[abc]x", "dx", false),
            ("[!abc]x", "dx", true),
            ("[!abc]x", "ax", false),
            ("[a-c]x", "cx", true),
            ("[a-c]x", "Cx", false),
            ("[]]x", "]x", true),
            ("[x", "[x", true),
            ("Read_*", "read_file", false),
            ("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
        ];
        for (pattern, name, expected) in table {
            assert_eq!(
                fnmatch(pattern, name),
                expected,
                "fnmatch({pattern:?}, {name:?})"
            );
        }
    }
}

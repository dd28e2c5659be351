//! check/script_text: stage 3 helpers shared by the embedded-language checkers (`sed_script`,
//! `awk_program`) — how they show script text in a reason, where they may point into it, and the
//! limits and names both programs treat alike.
//!
//! It holds no grammar of its own and never decides whether a script is read-only.

/// The deepest nesting of blocks or brackets a checker accepts; deeper scripts are reported,
/// not parsed, so a hostile script cannot make a checker recurse or allocate without bound.
pub(super) const MAX_NESTING: usize = 256;

/// The only write targets that write no file: GNU sed (outside `--posix`) and the awks map these
/// names to their own output streams instead of opening them (and on Linux the names are the
/// streams themselves).
pub(super) const STD_STREAMS: &[&str] = &["/dev/stdout", "/dev/stderr"];

/// Shows text in a reason: control characters escaped (`\n`, `\u{b}`), the rest as is.
pub(super) fn show(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The largest char boundary at or before `offset`, so offsets never split a character.
pub(super) fn char_floor(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_in_reasons() {
        assert_eq!(show("a\nb\u{b}é"), "a\\nb\\u{b}é");
    }

    #[test]
    fn offsets_never_split_a_character() {
        assert_eq!(char_floor("aé", 2), 1);
        assert_eq!(char_floor("aé", 3), 3);
        assert_eq!(char_floor("aé", 99), 3);
    }
}

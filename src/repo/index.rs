//! repo/index: the paths of gitlinks (submodules) in a git index file, versions 2 to 4, split
//! index included. Only what is needed to know where git will recurse; anything unexpected is
//! an error, so the caller asks rather than guesses.
//!
//! ```text
//! "DIRC" version:u32 count:u32
//! entry*: ctime mtime dev ino mode uid gid size (40 bytes) hash (20 or 32) flags:u16
//!         [flags2:u16 when version >= 3 and flags & 0x4000] path
//!         v2/v3: path (its length in flags & 0xfff, or up to a NUL when that is 0xfff),
//!         NUL-padded to a multiple of 8 bytes; v4: varint prefix to strip from the previous
//!         path, then the rest NUL-terminated
//! extension*: name:[u8; 4] size:u32 data — "link" names the shared index of a split index
//! ```

use std::path::Path;
use std::rc::Rc;

use super::ScanRules;

/// Largest index read (a repository of about a million files).
pub(crate) const MAX_INDEX_BYTES: u64 = 256 << 20;
const GITLINK: u32 = 0o160000;

/// Gitlink paths in the index at `path`; none when there is no index. The hash length (SHA-1
/// or SHA-256) is not taken from config, which can be made to lie: the index is read with
/// both, and every reading that accounts for the whole file counts.
pub(crate) fn gitlinks(path: &Path, rules: &ScanRules<'_>) -> Result<Vec<String>, String> {
    let Some(data) = read(path, rules)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for hash_len in [20, 32] {
        match parse(&data, hash_len, &mut out) {
            Ok(None) => {}
            Ok(Some(link)) => {
                let shared = path.with_file_name(format!("sharedindex.{link}"));
                let Some(shared_data) = read(&shared, rules)? else {
                    return Err(format!("the shared index {} is missing", shared.display()));
                };
                if parse(&shared_data, hash_len, &mut out)?.is_some() {
                    return Err("a shared index that links to another".into());
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.len() == 2 {
        return Err(errors.swap_remove(0));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The file, read once per analysis within its budget.
fn read(path: &Path, rules: &ScanRules<'_>) -> Result<Option<Rc<Vec<u8>>>, String> {
    rules.read(path, MAX_INDEX_BYTES).map_err(|e| e.to_string())
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, String> {
    d.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| "truncated".to_string())
}

fn u16_at(d: &[u8], at: usize) -> Result<u16, String> {
    d.get(at..at + 2)
        .and_then(|b| b.try_into().ok())
        .map(u16::from_be_bytes)
        .ok_or_else(|| "truncated".to_string())
}

/// Every entry of an index (mode and path, in index order), for `git ls-files` and `git
/// grep`. A split index is an error: its shared half is not read here, so the list would be
/// short.
pub(crate) fn entries(d: &[u8]) -> Result<Vec<(u32, Vec<u8>)>, String> {
    let mut last = String::new();
    for hash_len in [20, 32] {
        let mut out = Vec::new();
        match visit(d, hash_len, &mut |mode, path| {
            out.push((mode, path.to_vec()));
            Ok(())
        }) {
            Ok(None) => return Ok(out),
            Ok(Some(_)) => return Err("a split index".into()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Gitlink paths of one index (or one half of a split index), and the shared index a split
/// one links to.
pub(crate) fn parse(
    d: &[u8],
    hash_len: usize,
    out: &mut Vec<String>,
) -> Result<Option<String>, String> {
    visit(d, hash_len, &mut |mode, path| {
        if mode & 0o170000 == GITLINK {
            if path.contains(&0) {
                return Err("a submodule path holding a NUL".into());
            }
            out.push(String::from_utf8(path.to_vec()).map_err(|_| "a non-UTF-8 submodule path")?);
        }
        Ok(())
    })
}

/// What [`visit`] calls for each entry: its mode and path; an error stops the read.
type Visitor<'a> = dyn FnMut(u32, &[u8]) -> Result<(), String> + 'a;

/// Reads an index, calling `entry(mode, path)` for each entry; the shared index a split one
/// links to is returned.
fn visit(d: &[u8], hash_len: usize, entry: &mut Visitor<'_>) -> Result<Option<String>, String> {
    if d.get(..4) != Some(b"DIRC") {
        return Err("not an index (no DIRC signature)".into());
    }
    let version = u32_at(d, 4)?;
    if !(2..=4).contains(&version) {
        return Err(format!("index version {version}"));
    }
    let count = u32_at(d, 8)?;
    let fixed = 40 + hash_len + 2;
    // Every entry takes at least its fixed part and one byte of name or NUL: a count the file
    // cannot hold is refused before any entry is read.
    let least = fixed + 1;
    if (count as usize).saturating_mul(least) > d.len().saturating_sub(12) {
        return Err(format!(
            "the header counts {count} entries, more than {} bytes can hold",
            d.len()
        ));
    }
    let mut pos = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let mode = u32_at(d, pos + 24)?;
        let flags = u16_at(d, pos + fixed - 2)?;
        let mut name_at = pos + fixed;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err("extended flags in a version 2 index".into());
            }
            name_at += 2;
        }
        let path = if version == 4 {
            let (strip, after) = varint(d, name_at)?;
            let keep = prev
                .len()
                .checked_sub(usize::try_from(strip).map_err(|_| "bad prefix")?)
                .ok_or("bad path prefix")?;
            let end = find_nul(d, after)?;
            prev.truncate(keep);
            prev.extend_from_slice(&d[after..end]);
            pos = end + 1;
            prev.clone()
        } else {
            // The length is in the flags, as git reads it, unless it does not fit there; a
            // NUL inside the name does not end it.
            let len = match usize::from(flags & 0xfff) {
                0xfff => find_nul(d, name_at)? - name_at,
                n => n,
            };
            let name = d
                .get(name_at..name_at + len)
                .ok_or("truncated path")?
                .to_vec();
            // Entries are NUL-padded to a multiple of 8 bytes, at least one NUL.
            pos += (name_at - pos + len + 8) & !7;
            name
        };
        entry(mode, &path)?;
    }
    // Extensions, up to the trailing checksum, which must end the file exactly.
    let mut link = None;
    while pos + 8 + hash_len <= d.len() {
        let name = &d[pos..pos + 4];
        let size = usize::try_from(u32_at(d, pos + 4)?).map_err(|_| "bad extension size")?;
        let body = d
            .get(pos + 8..pos + 8 + size)
            .ok_or("truncated extension")?;
        if name == b"link" {
            let hash = body.get(..hash_len).ok_or("truncated link extension")?;
            link = Some(hash.iter().map(|b| format!("{b:02x}")).collect());
        }
        pos += 8 + size;
    }
    if pos + hash_len != d.len() {
        return Err(format!(
            "{} bytes where the checksum should end the index",
            d.len() - pos.min(d.len())
        ));
    }
    Ok(link)
}

fn find_nul(d: &[u8], from: usize) -> Result<usize, String> {
    d.get(from..)
        .and_then(|rest| rest.iter().position(|b| *b == 0))
        .map(|i| from + i)
        .ok_or_else(|| "unterminated path".to_string())
}

/// git's offset varint: 7 bits a byte, high bit = more, each continuation adds one.
fn varint(d: &[u8], mut at: usize) -> Result<(u64, usize), String> {
    let mut byte = *d.get(at).ok_or("truncated")?;
    at += 1;
    let mut value = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = *d.get(at).ok_or("truncated")?;
        at += 1;
        value = value
            .checked_add(1)
            .and_then(|v| v.checked_mul(128))
            .ok_or("varint overflow")?
            | u64::from(byte & 0x7f);
    }
    Ok((value, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds an index the way git writes one.
    fn index(version: u32, entries: &[(u32, &str)]) -> Vec<u8> {
        let mut d = b"DIRC".to_vec();
        d.extend(version.to_be_bytes());
        d.extend(u32::try_from(entries.len()).unwrap().to_be_bytes());
        let mut prev = "";
        for (mode, path) in entries {
            let start = d.len();
            d.extend([0u8; 24]);
            d.extend(mode.to_be_bytes());
            d.extend([0u8; 12]);
            d.extend([0xabu8; 20]);
            d.extend(u16::try_from(path.len()).unwrap().to_be_bytes());
            if version == 4 {
                let common = prev
                    .bytes()
                    .zip(path.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                d.push(u8::try_from(prev.len() - common).unwrap());
                d.extend(&path.as_bytes()[common..]);
                d.push(0);
            } else {
                d.extend(path.as_bytes());
                let len = d.len() - start;
                d.extend(std::iter::repeat_n(0u8, ((len + 8) & !7) - len));
            }
            prev = path;
        }
        d.extend([0u8; 20]);
        d
    }

    #[test]
    fn finds_gitlinks_in_every_version() {
        let entries = [
            (0o100644, "a.txt"),
            (0o160000, "libs/sub"),
            (0o100755, "libs/tool.sh"),
            (0o160000, "libs/sub2"),
        ];
        for version in [2, 3, 4] {
            let mut out = Vec::new();
            let link = parse(&index(version, &entries), 20, &mut out).unwrap();
            assert_eq!(out, ["libs/sub", "libs/sub2"], "version {version}");
            assert_eq!(link, None);
        }
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let good = index(2, &[(0o160000, "sub")]);
        for bad in [&b"DIRX"[..], &good[..20], &index(5, &[])] {
            assert!(parse(bad, 20, &mut Vec::new()).is_err());
        }
        assert!(varint(&[0xff; 12], 0).is_err());
    }

    /// A name holding a NUL: git takes the length from the flags, so the bytes after the NUL
    /// are still the name, not the next entry.
    #[test]
    fn names_are_as_long_as_the_flags_say() {
        let mut d = index(2, &[(0o100644, "a\0bcdefgh"), (0o160000, "sub")]);
        let mut out = Vec::new();
        parse(&d, 20, &mut out).unwrap();
        assert_eq!(out, ["sub"]);
        // A length longer than the file is an error, not a guess.
        d[12 + 60] = 0x0f;
        assert!(parse(&d, 20, &mut Vec::new()).is_err());
    }

    #[test]
    fn varints_match_git() {
        assert_eq!(varint(&[0x05], 0).unwrap(), (5, 1));
        // 0x80 0x00 is 128 in git's encoding (each continuation adds one).
        assert_eq!(varint(&[0x80, 0x00], 0).unwrap(), (128, 2));
    }

    proptest::proptest! {
        /// Arbitrary bytes, and real indexes with bytes flipped, never panic.
        #[test]
        fn never_panics(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512),
            flips in proptest::collection::vec((0usize..200, proptest::prelude::any::<u8>()), 0..8),
            version in 2u32..=4,
        ) {
            let _ = parse(&data, 20, &mut Vec::new());
            let mut real = index(version, &[(0o160000, "sub"), (0o100644, "a/b/c.txt"), (0o160000, "sub/x")]);
            for (at, b) in flips {
                if let Some(slot) = real.get_mut(at) {
                    *slot = b;
                }
            }
            let _ = parse(&real, 20, &mut Vec::new());
            let _ = parse(&real, 32, &mut Vec::new());
        }
    }
}

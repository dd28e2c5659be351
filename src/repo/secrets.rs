//! repo/secrets: whether a git config file, or the remote URLs git prints, can carry a
//! credential. `git remote -v` prints `https://TOKEN@host/x` as the config holds it, and
//! `.git/config` keeps the job token `actions/checkout` persists in `http.*.extraheader`.
//!
//! Fail closed: a file that cannot be read or parsed, an include, or a key nobody listed as
//! holding no secret is an answer of "cannot vouch", never a guess. It reads files only; it
//! never decides a verdict (check/sensitive does).

use std::path::{Path, PathBuf};

use super::{
    Cache, MAX_CONFIG_BYTES, MAX_INCLUDE_DEPTH, common_dir, config, discover, read_regular,
};
use crate::allowlist::KeyPattern;

/// Schemes whose user name is only a login (`ssh://git@host/x`): ssh authenticates with a
/// key, so the name alone is no secret. A password after it still is.
const LOGIN_ONLY_SCHEMES: &[&str] = &["ssh", "git+ssh", "ssh+git"];

/// True when `text` holds a URL with a credential in it: any user information in a
/// `scheme://user[:password]@host` URL (`https://TOKEN@github.com/x` carries the token as the
/// user name), except a bare login name for ssh; or an scp-like `user:password@host:path`.
///
/// ```text
/// https://tok@github.com/x/y      credential
/// https://github.com/x/y          none
/// git@github.com:x/y.git          none (ssh login)
/// ssh://git@host/x                none (ssh login)
/// ssh://git:pw@host/x             credential
/// ```
pub(crate) fn url_credential(text: &str) -> bool {
    let mut rest = text;
    let mut found_scheme = false;
    while let Some(at) = rest.find("://") {
        found_scheme = true;
        let scheme: String = rest[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after = &rest[at + 3..];
        let end = after
            .find(|c: char| c == '/' || c.is_whitespace())
            .unwrap_or(after.len());
        let authority = &after[..end];
        if let Some(k) = authority.rfind('@') {
            let user = &authority[..k];
            let login_only = LOGIN_ONLY_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str())
                && !user.contains(':');
            if !login_only {
                return true;
            }
        }
        rest = after;
    }
    if found_scheme {
        return false;
    }
    // scp-like `user@host:path`: a colon before the `@` is a password.
    match text.find('@') {
        Some(k) => text[..k].contains(':') && !text[..k].contains('/'),
        None => false,
    }
}

/// Whether printing the config file at `path` (`cat .git/config`) can show a secret: `Ok`
/// when every key in it is one of `inert` (keys that name no program and hold no secret) or
/// of `program` (a program or path: `core.hooksPath`, `core.editor`) but not a `credential.*`
/// key (an inline helper `!f() { echo password=…; }` holds the password), no alias runs the
/// shell (`!…`, which may carry a token), and no value or subsection holds a URL with a
/// credential; otherwise why not. `http.*.extraheader`, `sendemail.smtpPass` and every other
/// key are in neither list.
pub(crate) fn config_file_clean(
    path: &Path,
    inert: &[KeyPattern],
    program: &[KeyPattern],
) -> Result<(), String> {
    let text = match read_regular(path, MAX_CONFIG_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(()),
        Err(e) => return Err(format!("cmdguard cannot read it ({e})")),
    };
    let vars = config::parse(&text)
        .map_err(|e| format!("cmdguard cannot parse it (line {}: {})", e.line, e.message))?;
    for v in &vars {
        let key = v.key();
        let listed = |keys: &[KeyPattern]| {
            keys.iter()
                .any(|k| k.matches(&v.section, v.subsection.is_some(), &v.name))
        };
        if !listed(inert) && (v.section == "credential" || !listed(program)) {
            return Err(format!(
                "it sets `{key}` (line {}), which is not listed as holding no secret",
                v.line
            ));
        }
        if v.section == "alias" && v.value.as_deref().is_some_and(|a| a.starts_with('!')) {
            return Err(format!(
                "its alias `{key}` (line {}) runs a shell command, which may carry a token",
                v.line
            ));
        }
        credential_free(v, path)?;
    }
    Ok(())
}

/// Whether the remote URLs git prints in `dir` (`git remote -v`, `git remote get-url`) can
/// hold a credential: `Ok` when no config file git reads there — the system one, the user's
/// (`~/.gitconfig`, `~/.config/git/config`), the repository's `config` and
/// `config.worktree`, and every file they include — holds a URL with a credential in any
/// value or subsection (a URL `url.<base>.insteadOf` rewrites to is printed too), and the
/// repository keeps no remotes in the old `remotes/` or `branches/` files.
pub(crate) fn remote_urls_clean(
    dir: &Path,
    home: Option<&Path>,
    cache: &Cache,
) -> Result<(), String> {
    let Some(home) = home else {
        return Err("the home directory, whose `.gitconfig` may hold one, is unknown".into());
    };
    let mut files: Vec<PathBuf> = vec![
        PathBuf::from("/etc/gitconfig"),
        home.join(".gitconfig"),
        home.join(".config/git/config"),
    ];
    let dir = cache.physical(dir).unwrap_or_else(|| dir.to_path_buf());
    match discover(&dir, cache) {
        None => {}
        Some(Err(h)) => return Err(h.what),
        Some(Ok(found)) => {
            let common = super::common_dir(&found.gitdir)
                .map_err(|e| format!("the repository's `commondir` cannot be read ({e})"))?;
            for legacy in ["remotes", "branches"] {
                let d = common.join(legacy);
                match std::fs::read_dir(&d) {
                    Ok(mut entries) => {
                        if entries.next().is_some() {
                            return Err(format!(
                                "the repository keeps remotes in `{}`, which cmdguard does not read",
                                d.display()
                            ));
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(format!("`{}` cannot be read ({e})", d.display())),
                }
            }
            files.push(common.join("config"));
            files.push(found.gitdir.join("config.worktree"));
        }
    }
    for f in &files {
        urls_in_file(f, home, 0)?;
    }
    Ok(())
}

/// One config file and what it includes: `Err` at the first URL with a credential, or at a
/// file that cannot be vouched for.
fn urls_in_file(path: &Path, home: &Path, depth: usize) -> Result<(), String> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(format!(
            "`{}` nests includes deeper than {MAX_INCLUDE_DEPTH}",
            path.display()
        ));
    }
    let text = match read_regular(path, MAX_CONFIG_BYTES) {
        // git skips config files that do not exist.
        Ok(None) => return Ok(()),
        Ok(Some(t)) => t,
        Err(e) => return Err(format!("`{}` cannot be read ({e})", path.display())),
    };
    let vars = config::parse(&text).map_err(|e| {
        format!(
            "`{}` cannot be parsed (line {}: {})",
            path.display(),
            e.line,
            e.message
        )
    })?;
    for v in &vars {
        credential_free(v, path)?;
        let include = v.name == "path"
            && (v.section == "include" || (v.section == "includeif" && v.subsection.is_some()));
        if !include {
            continue;
        }
        // Followed whatever the condition, as repo's scan does.
        let Some(target) = v.value.as_deref() else {
            continue;
        };
        let next = if let Some(rest) = target.strip_prefix("~/") {
            home.join(rest)
        } else if target.starts_with('~') || target.starts_with("%(") {
            return Err(format!(
                "`{}` includes `{target}`, which git interpolates (line {})",
                path.display(),
                v.line
            ));
        } else {
            match path.parent() {
                Some(d) => d.join(target),
                None => PathBuf::from(target),
            }
        };
        urls_in_file(&next, home, depth + 1)?;
    }
    Ok(())
}

/// `Err` when the variable's value or subsection holds a URL with a credential.
fn credential_free(v: &config::Variable, path: &Path) -> Result<(), String> {
    let in_sub = v.subsection.as_deref().is_some_and(url_credential);
    let in_value = v.value.as_deref().is_some_and(url_credential);
    if in_sub || in_value {
        return Err(format!(
            "`{}` sets `{}` (line {}) with a URL that carries a credential",
            path.display(),
            v.key(),
            v.line
        ));
    }
    Ok(())
}

/// The top of the work tree around `dir`: where `git grep -- ':/'` starts. `None` outside a
/// work tree (a bare repository has none) or when discovery failed.
pub(crate) fn toplevel(dir: &Path, cache: &Cache) -> Option<PathBuf> {
    let dir = cache.physical(dir).unwrap_or_else(|| dir.to_path_buf());
    match discover(&dir, cache)? {
        Ok(found) => found.worktree,
        Err(_) => None,
    }
}

/// Largest `packed-refs` read when resolving a revision name; past it the name is not vouched for.
const MAX_PACKED_REFS_BYTES: u64 = 8 << 20;

/// Whether revision `name`, in the repository around `dir`, resolves to a local or
/// remote-tracking branch, which git lets hold only commits (a tag, or any other ref, may name a
/// blob: `git show --stat TAG` then prints the file). git tries `NAME`, `refs/NAME`,
/// `refs/tags/NAME`, `refs/heads/NAME`, `refs/remotes/NAME` and `refs/remotes/NAME/HEAD` in that
/// order and takes the first that exists, loose or in `packed-refs`; a full object id is an
/// object. `false` whenever that cannot be read.
pub(crate) fn names_a_branch(dir: &Path, name: &str, cache: &Cache) -> bool {
    let plain = !name.is_empty()
        && !name.starts_with(['-', '.', '/'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.contains("//")
        && !name.ends_with(".lock")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b));
    let object_id = name.len() >= 40 && name.bytes().all(|b| b.is_ascii_hexdigit());
    if !plain || object_id {
        return false;
    }
    let dir = cache.physical(dir).unwrap_or_else(|| dir.to_path_buf());
    let Some(Ok(found)) = discover(&dir, cache) else {
        return false;
    };
    let Ok(common) = common_dir(&found.gitdir) else {
        return false;
    };
    let packed = match read_regular(&common.join("packed-refs"), MAX_PACKED_REFS_BYTES) {
        Ok(text) => String::from_utf8_lossy(&text.unwrap_or_default()).into_owned(),
        Err(_) => return false,
    };
    let exists = |r: &str| {
        found.gitdir.join(r).symlink_metadata().is_ok()
            || common.join(r).symlink_metadata().is_ok()
            || packed
                .lines()
                .any(|l| l.split_once(' ').is_some_and(|(_, n)| n == r))
    };
    let order = [
        (name.to_string(), false),
        (format!("refs/{name}"), false),
        (format!("refs/tags/{name}"), false),
        (format!("refs/heads/{name}"), true),
        (format!("refs/remotes/{name}"), true),
        (format!("refs/remotes/{name}/HEAD"), true),
    ];
    order
        .iter()
        .find(|(r, _)| exists(r))
        .is_some_and(|(_, branch)| *branch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_with_user_information_carry_a_credential() {
        let rows: &[(&str, bool)] = &[
            ("https://tok@github.com/x/y", true),
            ("https://user:tok@github.com/x/y", true),
            ("http://oauth2:glpat-x@gitlab.example/x.git", true),
            ("https://github.com/x/y", false),
            ("https://github.com/u@x", false),
            ("git@github.com:x/y.git", false),
            ("ssh://git@github.com/x/y", false),
            ("ssh://git:pw@github.com/x/y", true),
            ("git+ssh://u@host/x", false),
            ("user:pw@host:x/y", true),
            ("/srv/git/x.git", false),
            ("file:///srv/x", false),
            ("see https://a.test/ and https://t@b.test/", true),
        ];
        for (text, want) in rows {
            assert_eq!(url_credential(text), *want, "{text}");
        }
    }
}

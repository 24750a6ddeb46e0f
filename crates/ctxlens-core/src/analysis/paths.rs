//! Comparing paths as files: `src/main.rs` and `/home/me/proj/src/main.rs` are the same
//! file in a session whose cwd is `/home/me/proj`.

use std::borrow::Cow;

/// A comparable key for a path token: absolute against `cwd` where it is relative, with
/// `.`, `..`, doubled and trailing slashes resolved lexically. Most paths are their own
/// key, and are lent back as they are.
pub(crate) fn path_key<'a>(path: &'a str, cwd: Option<&str>) -> Cow<'a, str> {
    let rooted = path.starts_with('/') || path.starts_with('~');
    if (rooted || cwd.is_none()) && is_resolved(path) {
        return Cow::Borrowed(path);
    }
    Cow::Owned(resolve(path, cwd))
}

/// [`path_key`] worked out in full.
fn resolve(path: &str, cwd: Option<&str>) -> String {
    let rooted = path.starts_with('/') || path.starts_with('~');
    let joined;
    let full = if rooted {
        path
    } else if let Some(cwd) = cwd {
        joined = format!("{cwd}/{path}");
        &joined
    } else {
        path
    };
    let absolute = full.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in full.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let body = parts.join("/");
    if absolute {
        format!("/{body}")
    } else {
        body
    }
}

/// Whether resolving `path` leaves it as it is: no `.` or `..` part, and no empty part
/// but the root's (`/` alone is resolved too).
fn is_resolved(path: &str) -> bool {
    let rest = path.strip_prefix('/').unwrap_or(path);
    path == "/"
        || rest
            .as_bytes()
            .split(|&b| b == b'/')
            .all(|part| !matches!(part, b"" | b"." | b".."))
}

/// Folder and extension of a path, for "same shape" comparisons.
pub(crate) fn folder_and_extension(path: &str) -> (&str, Option<&str>) {
    let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
    (folder, file.rsplit_once('.').map(|(_, ext)| ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_forms_meet() {
        let cwd = Some("/home/me/proj");
        assert_eq!(path_key("src/main.rs", cwd), "/home/me/proj/src/main.rs");
        assert_eq!(path_key("./src/main.rs", cwd), "/home/me/proj/src/main.rs");
        assert_eq!(
            path_key("/home/me/proj/src/main.rs", cwd),
            "/home/me/proj/src/main.rs"
        );
        assert_eq!(path_key("../other/x.rs", cwd), "/home/me/other/x.rs");
        assert_eq!(path_key("./src/main.rs", None), "src/main.rs");
    }

    proptest::proptest! {
        /// A path lent back as its own key is the key worked out in full.
        #[test]
        fn a_path_lent_back_is_its_resolved_key(
            parts in proptest::collection::vec("(|\\.|\\.\\.|~|a|b\\.rs)", 0..5),
            lead in "(|/|~/|\\./)",
            trail in "(|/)",
            cwd in proptest::option::of("(/|/home/me|/home/me/)"),
        ) {
            let path = format!("{lead}{}{trail}", parts.join("/"));
            let cwd = cwd.as_deref();
            proptest::prop_assert_eq!(path_key(&path, cwd), resolve(&path, cwd));
        }
    }

    #[test]
    fn folder_and_extension_split() {
        assert_eq!(folder_and_extension("/a/b/c.sql"), ("/a/b", Some("sql")));
        assert_eq!(folder_and_extension("/a/b"), ("/a", None));
    }
}

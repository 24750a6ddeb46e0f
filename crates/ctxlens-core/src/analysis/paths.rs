//! Comparing paths as files: `src/main.rs` and `/home/me/proj/src/main.rs` are the same
//! file in a session whose cwd is `/home/me/proj`.

/// A comparable key for a path token: absolute against `cwd` where it is relative, with
/// `.`, `..`, doubled and trailing slashes resolved lexically.
pub fn path_key(path: &str, cwd: Option<&str>) -> String {
    let joined;
    let full = if path.starts_with('/') || path.starts_with('~') {
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

/// Folder and extension of a path, for "same shape" comparisons.
pub fn folder_and_extension(path: &str) -> (&str, Option<&str>) {
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

    #[test]
    fn folder_and_extension_split() {
        assert_eq!(folder_and_extension("/a/b/c.sql"), ("/a/b", Some("sql")));
        assert_eq!(folder_and_extension("/a/b"), ("/a", None));
    }
}

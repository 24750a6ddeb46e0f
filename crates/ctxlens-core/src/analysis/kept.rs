//! Whether a summary kept a transcript's undeclared token in any recognizable form
//! (docs/transcripts.md): absolute, cwd-relative or `~` path; a basename no other region path
//! shares; a hex prefix of 7 or more characters; a URL with or without its trailing `/`.
//!
//! The summary is cut into words once, so each question is a set lookup: the cost is
//! linear in the summary plus the region, never their product.

use super::paths::path_key;
use crate::model::{FastMap, FastSet, Session, Summary, TokenClass, TokenId};
use std::borrow::Cow;
use std::collections::HashSet;

/// Characters a path, URL or id is made of; anything else separates words here.
fn is_token_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '_' | '-' | '.' | '/' | '~' | '@' | '+' | ':' | '%' | '=' | '?' | '&' | '#'
        )
}

/// The words of a summary as the survival check sees them: runs of path, URL and id
/// characters, without trailing sentence punctuation.
pub fn summary_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_token_char(c))
        .map(|raw| raw.trim_end_matches(['.', ',', ':', ';', '!', '?']))
        .filter(|word| !word.is_empty())
}

/// The summary's words and the comparison keys of its paths.
pub struct SummaryForms {
    words: HashSet<String>,
    path_keys: HashSet<String>,
    /// Hex words of 7 or more characters, for prefix matches.
    hex_words: HashSet<String>,
    /// Every tail of the summary's paths that starts after a `/` (`lib/a.dart` of
    /// `app/lib/a.dart`): a directory plus a name names the same file.
    path_tails: HashSet<String>,
}

impl SummaryForms {
    /// `declared`: the declared tokens the second pass found in the summary beyond
    /// its digest's.
    pub fn new(
        session: &Session,
        summary: &Summary,
        declared: &[TokenId],
        cwd: Option<&str>,
    ) -> SummaryForms {
        let mut words = HashSet::new();
        let mut hex_words = HashSet::new();
        for word in summary_words(&summary.text) {
            if word.len() >= 7 && word.bytes().all(|b| b.is_ascii_hexdigit()) {
                hex_words.insert(word.to_ascii_lowercase());
            }
            // `src/a.rs:12` and `a.rs:12:3` name the file.
            if let Some((file, _)) = word.split_once(':').filter(|(f, _)| f.contains('.')) {
                words.insert(file.to_owned());
            }
            words.insert(word.to_owned());
        }
        // `~/x` is the home folder's `x`, the home being taken from the cwd.
        let file_key = |path: &str| match (path.strip_prefix('~'), home_of(cwd)) {
            (Some(rest), Some(home)) => path_key(&format!("{home}{rest}"), cwd).into_owned(),
            _ => path_key(path, cwd).into_owned(),
        };
        let path_keys = summary
            .digest
            .tokens
            .iter()
            .chain(declared)
            .filter(|&&t| session.tokens.class(t) == TokenClass::Path)
            .map(|&t| session.tokens.text(t))
            .chain(words.iter().map(String::as_str).filter(|w| w.contains('/')))
            .map(file_key)
            .collect();
        let path_tails = words
            .iter()
            .filter(|w| w.contains('/'))
            .flat_map(|w| {
                let w = w.trim_end_matches('/');
                w.match_indices('/')
                    .map(move |(i, _)| w[i + 1..].to_owned())
            })
            .filter(|tail| tail.contains('/'))
            .collect();
        SummaryForms {
            words,
            path_keys,
            hex_words,
            path_tails,
        }
    }

    /// Whether the summary holds `token` in any form docs/transcripts.md lists. `basenames`
    /// counts the region's paths by basename: a shared basename names no file.
    pub fn holds(
        &self,
        text: &str,
        class: TokenClass,
        cwd: Option<&str>,
        basenames: &FastMap<&str, usize>,
    ) -> bool {
        if self.words.contains(text) {
            return true;
        }
        match class {
            TokenClass::Path => {
                let key = path_key(text, cwd);
                let bare = text.trim_end_matches('/');
                if self.path_keys.contains(&*key) || self.words.contains(bare) {
                    return true;
                }
                // The summary names the file under a longer or shorter folder path.
                let tail_held = bare
                    .match_indices('/')
                    .map(|(i, _)| &bare[i + 1..])
                    .filter(|tail| tail.contains('/'))
                    .any(|tail| self.words.contains(tail) || self.path_tails.contains(tail));
                if self.path_tails.contains(bare.trim_start_matches("./")) || tail_held {
                    return true;
                }
                // A file at the cwd's root, named bare (other relative and `~` forms
                // are among the path keys).
                let at_root = cwd
                    .and_then(|c| key.strip_prefix(c))
                    .and_then(|r| r.strip_prefix('/'));
                if at_root.is_some_and(|name| self.words.contains(name)) {
                    return true;
                }
                let base = basename(text);
                !base.is_empty()
                    && basenames.get(base).is_some_and(|&n| n == 1)
                    && self.words.contains(base)
            }
            TokenClass::Hex => {
                let lower = text.to_ascii_lowercase();
                (7..=lower.len()).any(|n| self.hex_words.contains(&lower[..n]))
            }
            TokenClass::Url => {
                let other = match text.strip_suffix('/') {
                    Some(bare) => bare.to_owned(),
                    None => format!("{text}/"),
                };
                self.words.contains(&other)
            }
            _ => false,
        }
    }
}

/// The last part of a path, without a trailing `/`.
pub fn basename(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

/// The home folder a cwd lies in (`/Users/NAME`, `/home/NAME`).
fn home_of(cwd: Option<&str>) -> Option<&str> {
    let cwd = cwd?;
    for root in ["/Users/", "/home/"] {
        if let Some(rest) = cwd.strip_prefix(root) {
            let name_len = rest.find('/').unwrap_or(rest.len());
            if name_len > 0 {
                return Some(&cwd[..root.len() + name_len]);
            }
        }
    }
    None
}

/// How many files of `paths` share each basename. Paths of which one ends with the
/// other at a `/` (`lib/a.dart`, `app/lib/a.dart`) count as one file.
pub fn basename_counts<'a>(paths: impl Iterator<Item = &'a str>) -> FastMap<&'a str, usize> {
    let mut keys: FastMap<&'a str, Vec<&'a str>> = FastMap::default();
    for path in paths {
        keys.entry(basename(path))
            .or_default()
            .push(path.trim_end_matches('/'));
    }
    keys.into_iter()
        .map(|(base, mut all)| {
            all.sort_by_key(|p| std::cmp::Reverse(p.len()));
            all.dedup();
            // Every file counted so far, and each of its tails after a `/`: a path
            // that is one of them names a file already counted. (Longest first, so a
            // shorter path is only ever a tail of a longer one.) Linear in the paths'
            // length where comparing each path with each file was quadratic in the
            // paths sharing a basename (`mod.rs`, `config.yaml`).
            let mut tails: FastSet<&str> = FastSet::default();
            let mut files = 0;
            for path in all {
                let tail = path.trim_start_matches("./");
                if !tails.contains(tail) {
                    files += 1;
                    tails.insert(path);
                    tails.extend(
                        memchr::memchr_iter(b'/', path.as_bytes())
                            .filter_map(|i| path.get(i + 1..)),
                    );
                }
            }
            (base, files)
        })
        .collect()
}

/// A token's comparison key: a path as the file it names, anything else as written.
pub fn token_key<'s>(session: &'s Session, token: TokenId, cwd: Option<&str>) -> Cow<'s, str> {
    let info = session.tokens.get(token);
    text_key(info.text, info.class, cwd)
}

/// The comparison key of a token's text: a path as the file it names (see
/// [`path_key`]), anything else as written.
pub fn text_key<'t>(text: &'t str, class: TokenClass, cwd: Option<&str>) -> Cow<'t, str> {
    match class {
        TokenClass::Path => path_key(text, cwd),
        _ => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, TextDigest};

    fn forms(text: &str, cwd: &str) -> (Session, SummaryForms) {
        let session = Session::new(Format::ClaudeCode);
        let summary = Summary {
            text: text.into(),
            digest: TextDigest::default(),
        };
        let forms = SummaryForms::new(&session, &summary, &[], Some(cwd));
        (session, forms)
    }

    #[test]
    fn every_form_of_8_6() {
        let cwd = "/Users/ann/proj";
        let (_, f) = forms(
            "Edited src/api.rs and `README.md`; see ~/proj/docs/x.md, commit 4f9a2c8, https://x.io/a/",
            cwd,
        );
        let one: FastMap<&str, usize> = [("README.md", 1), ("api.rs", 1)].into_iter().collect();
        let held = |t: &str, c| f.holds(t, c, Some(cwd), &one);
        assert!(
            held("/Users/ann/proj/src/api.rs", TokenClass::Path),
            "cwd-relative"
        );
        assert!(
            held("/Users/ann/proj/README.md", TokenClass::Path),
            "basename"
        );
        assert!(
            held("/Users/ann/proj/docs/x.md", TokenClass::Path),
            "~ form"
        );
        assert!(held("4f9a2c81d0e7", TokenClass::Hex), "hex prefix");
        assert!(held("https://x.io/a", TokenClass::Url), "trailing slash");
        assert!(!held("/Users/ann/proj/src/other.rs", TokenClass::Path));
        let shared: FastMap<&str, usize> = [("README.md", 2)].into_iter().collect();
        assert!(
            !f.holds(
                "/Users/ann/proj/pkg/README.md",
                TokenClass::Path,
                Some(cwd),
                &shared
            ),
            "a basename two region paths share names no file"
        );
    }
}

//! Whether a summary kept a transcript's undeclared token in any recognizable form
//! (docs/transcripts.md): absolute, cwd-relative or `~` path; a basename no other region path
//! shares; a hex prefix of 7 or more characters; a URL with or without its trailing `/`.
//!
//! The summary is cut into words once, so each question is a set lookup: the cost is
//! linear in the summary plus the region, never their product.

use super::extract::leading_brackets;
use super::paths::path_key;
use crate::model::{FastMap, FastSet, Session, Summary, TokenClass, TokenId};
use std::borrow::Cow;
use std::collections::HashSet;

/// Characters a path, URL or id is made of; anything else separates words here.
fn is_token_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '_' | '-' | '.' | '/' | '~' | '@' | '+' | ':' | '%' | '=' | '?' | '&' | '#' | '[' | ']'
        )
}

/// The words of a summary as the survival check sees them: runs of path, URL and id
/// characters, without trailing sentence punctuation or brackets around them (a
/// route's `[id]` is part of its path).
pub fn summary_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_token_char(c))
        .map(summary_word)
        .filter(|word| !word.is_empty())
}

fn summary_word(raw: &str) -> &str {
    const PUNCTUATION: [char; 6] = ['.', ',', ':', ';', '!', '?'];
    let mut word = raw.get(leading_brackets(raw)..).unwrap_or(raw);
    loop {
        word = word.trim_end_matches(PUNCTUATION);
        let unopened = word.ends_with(']') && word.matches('[').count() < word.matches(']').count();
        match word.strip_suffix(']').filter(|_| unopened) {
            Some(shorter) => word = shorter,
            None => return word,
        }
    }
}

/// The summary's words and the comparison keys of its paths.
pub(crate) struct SummaryForms {
    words: HashSet<String>,
    path_keys: HashSet<String>,
    /// Hex words of 7 or more characters, for prefix matches.
    hex_words: HashSet<String>,
    /// Every run of two or more whole parts of the summary's paths (`lib/a.dart` and
    /// `app/lib` of `app/lib/a.dart`): a tail names the same file under a shorter
    /// folder path, and a leading or inner run a folder the summary names a file in.
    path_parts: HashSet<String>,
    /// The digits after a `#` (`PR #223`, `owner/repo#223`): a numbered token's number.
    hash_numbers: HashSet<String>,
    /// The resource each of the summary's URLs names ([`url_resource`]).
    url_resources: HashSet<String>,
    /// The `owner/repo` of the summary's forge URLs and `owner/repo#12` references.
    repositories: HashSet<String>,
    /// The last part of each of the summary's paths: a tool's bare file name
    /// (`overview.md`) is the file the summary names under its folder.
    path_basenames: HashSet<String>,
    /// The summary's names: its runs of letters, digits, `_`, `.` and `-`, so that
    /// `DB_HOST=10.0.0.5`, `root@host` and `localhost:5173` name `DB_HOST`, `host`
    /// and `5173`. A value known by its role is kept when the summary names it.
    names: HashSet<String>,
}

impl SummaryForms {
    /// `declared`: the declared tokens the second pass found in the summary beyond
    /// its digest's.
    pub(crate) fn new(
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
        let path_parts = words
            .iter()
            .filter(|w| w.contains('/') && !w.contains("://"))
            .flat_map(|w| runs_of_parts(w))
            .collect();
        let hash_numbers = words
            .iter()
            .filter_map(|w| w.rsplit_once('#'))
            .map(|(_, number)| number)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map(str::to_owned)
            .collect();
        let url_resources = words
            .iter()
            .filter_map(|w| url_resource(w))
            .map(str::to_owned)
            .collect();
        let repositories = words.iter().filter_map(|w| repository_of(w)).collect();
        let path_basenames = words
            .iter()
            .filter(|w| w.contains('/') && !w.contains("://"))
            .map(|w| basename(w).to_owned())
            .collect();
        let names = summary
            .text
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .map(|n| n.trim_end_matches('.'))
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        SummaryForms {
            names,
            words,
            path_keys,
            hex_words,
            path_parts,
            hash_numbers,
            url_resources,
            repositories,
            path_basenames,
        }
    }

    /// Whether the summary holds `token` in any form docs/transcripts.md lists. `basenames`
    /// counts the region's paths by basename: a shared basename names no file.
    pub(crate) fn holds(
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
                // The summary names the file under a longer or shorter folder path, or
                // a file inside the folder.
                let tail_held = bare
                    .match_indices('/')
                    .map(|(i, _)| &bare[i + 1..])
                    .filter(|tail| tail.contains('/'))
                    .any(|tail| self.words.contains(tail) || self.path_parts.contains(tail));
                if self.path_parts.contains(bare.trim_start_matches("./")) || tail_held {
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
                if !bare.contains('/') && self.path_basenames.contains(bare) {
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
            TokenClass::Numbered => self.hash_numbers.contains(text),
            TokenClass::Url => {
                let other = match text.strip_suffix('/') {
                    Some(bare) => bare.to_owned(),
                    None => format!("{text}/"),
                };
                self.words.contains(&other)
                    || url_resource(text).is_some_and(|r| self.url_resources.contains(r))
            }
            TokenClass::Repository => self.repositories.contains(text),
            // A unit is named with or without its `.service`.
            TokenClass::Service => {
                self.names.contains(text)
                    || match text.strip_suffix(".service") {
                        Some(unit) => self.names.contains(unit),
                        None => self.names.contains(&format!("{text}.service")),
                    }
            }
            TokenClass::Host
            | TokenClass::Container
            | TokenClass::Database
            | TokenClass::Variable
            | TokenClass::Port => self.names.contains(text),
            _ => false,
        }
    }
}

/// The `owner/repo` a word names: the first two parts of a URL's path
/// (`https://github.com/acme/agentv/pull/3`) or what stands before `#` in
/// `acme/agentv#3`.
fn repository_of(word: &str) -> Option<String> {
    let slug = match word.split_once("://") {
        Some((_, rest)) => {
            let (_, path) = rest.split_once('/')?;
            let mut parts = path.split('/');
            let (owner, repo) = (parts.next()?, parts.next()?);
            format!("{owner}/{}", repo.trim_end_matches(".git"))
        }
        None => word.split_once('#')?.0.to_owned(),
    };
    let (owner, repo) = slug.split_once('/')?;
    (!owner.is_empty() && !repo.is_empty() && !repo.contains('/')).then_some(slug)
}

/// The resource a URL names, when its path ends in three parts with an id among them
/// (`agentv/issues/950` of `https://github.com/acme/agentv/issues/950` and of
/// `https://api.github.com/repos/acme/agentv/issues/950`): the web page and the API
/// name one issue, one run, one pull request.
fn url_resource(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let path = rest.split(['?', '#']).next()?.trim_end_matches('/');
    let (_, path) = path.split_once('/')?;
    let tail = last_parts(path, 3)?;
    tail.bytes().any(|b| b.is_ascii_digit()).then_some(tail)
}

/// Every run of two or more whole parts of `path` (`a/b`, `b/c` and `a/b/c` of
/// `a/b/c`), without a leading `./` or `/`. A path of many parts gives only its runs of
/// up to eight parts, each a word at most: the count stays linear in the summary.
fn runs_of_parts(path: &str) -> Vec<String> {
    const MOST_PARTS: usize = 8;
    let path = path
        .trim_start_matches("./")
        .trim_start_matches('/')
        .trim_end_matches('/');
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let mut runs = Vec::new();
    for from in 0..parts.len() {
        for to in from + 2..=parts.len().min(from + MOST_PARTS) {
            runs.push(parts.get(from..to).unwrap_or_default().join("/"));
        }
    }
    runs
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
            // Two paths whose last three parts agree (`…/lib/features/x/a.dart` and
            // `app/features/x/a.dart`, one mistyped or listed from elsewhere) name one
            // file: same name, in folders named the same two levels up.
            let mut last_three: FastSet<&str> = FastSet::default();
            let mut files = 0;
            for path in all {
                let tail = path.trim_start_matches("./");
                let three = last_parts(path, 3);
                let counted = tails.contains(tail) || three.is_some_and(|t| last_three.contains(t));
                last_three.extend(three);
                if !counted {
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

/// The last `n` parts of `path`, when it has that many.
fn last_parts(path: &str, n: usize) -> Option<&str> {
    let cut = memchr::memrchr_iter(b'/', path.as_bytes()).nth(n - 1)?;
    path.get(cut + 1..)
}

/// A token's comparison key: a path as the file it names, anything else as written.
pub(crate) fn token_key<'s>(
    session: &'s Session,
    token: TokenId,
    cwd: Option<&str>,
) -> Cow<'s, str> {
    let info = session.tokens.get(token);
    text_key(info.text, info.class, cwd)
}

/// The comparison key of a token's text: a path as the file it names (see
/// `path_key`), anything else as written.
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

    #[test]
    fn a_folder_the_summary_names_a_file_in_and_a_number_after_a_hash_are_kept() {
        let cwd = "/home/dev/repo";
        let none = FastMap::default();
        let (_, f) = forms(
            "Built go/cmd/mcp-server/main.go and opened draft PR #223 (see acme/shop#70).",
            cwd,
        );
        let held = |t: &str, c| f.holds(t, c, Some(cwd), &none);
        assert!(
            held("./cmd/mcp-server", TokenClass::Path),
            "a folder inside"
        );
        assert!(held("go/cmd", TokenClass::Path), "a leading folder");
        assert!(held("223", TokenClass::Numbered), "PR #223");
        assert!(held("70", TokenClass::Numbered), "owner/repo#70");
        assert!(!held("./cmd/other", TokenClass::Path));
        assert!(
            !held("mcp-server", TokenClass::Path),
            "one part names no folder"
        );
        assert!(!held("224", TokenClass::Numbered));
    }

    #[test]
    fn a_repository_in_a_url_or_a_reference_a_unit_without_its_suffix_and_a_route_path() {
        let cwd = "/home/dev/repo";
        let none = FastMap::default();
        let (_, f) = forms(
            "Opened https://github.com/acme/agentv/pull/3, fixed octo/site#9, restarted app-worker, \
             edited [app/users/[id]/page.tsx].",
            cwd,
        );
        let held = |t: &str, c| f.holds(t, c, Some(cwd), &none);
        assert!(held("acme/agentv", TokenClass::Repository), "a URL's");
        assert!(held("octo/site", TokenClass::Repository), "a reference's");
        assert!(!held("acme/other", TokenClass::Repository));
        assert!(held("app-worker.service", TokenClass::Service));
        assert!(!held("api-worker.service", TokenClass::Service));
        assert!(held("app/users/[id]/page.tsx", TokenClass::Path), "a route");
    }

    #[test]
    fn an_api_url_names_the_resource_its_web_page_names() {
        let none = FastMap::default();
        let (_, f) = forms(
            "the user asked about https://github.com/acme/shop/issues/950.",
            "/w",
        );
        let held = |t: &str| f.holds(t, TokenClass::Url, Some("/w"), &none);
        assert!(held("https://api.github.com/repos/acme/shop/issues/950"));
        assert!(!held("https://api.github.com/repos/acme/shop/issues/951"));
        assert!(
            !held("https://api.github.com/repos/acme/shop/issues"),
            "no id: no resource"
        );
    }

    #[test]
    fn paths_whose_last_three_parts_agree_are_one_file() {
        let counts = basename_counts(
            [
                "/home/b/app/lib/features/servers/providers/list.dart",
                "app/features/servers/providers/list.dart",
                "packages/a/src/index.ts",
                "packages/b/src/index.ts",
            ]
            .into_iter(),
        );
        assert_eq!(counts.get("list.dart"), Some(&1));
        assert_eq!(
            counts.get("index.ts"),
            Some(&2),
            "two folders apart are two files"
        );
    }
}

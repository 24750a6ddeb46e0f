//! The opaque-token extractor (spec §2) and the whole-word rules it shares with the
//! survival check.

use crate::model::TokenClass;
use regex::Regex;
use std::sync::OnceLock;

/// One token found in a text: byte span and class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub class: TokenClass,
}

impl Found {
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start..self.end]
    }
}

struct Patterns {
    uuid: Regex,
    arn: Regex,
    url: Regex,
    path: Regex,
    resource_id: Regex,
    numbered: Regex,
    hex: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let build = |re: &str| Regex::new(re).expect("built-in token pattern compiles");
        Patterns {
            uuid: build(
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            ),
            arn: build(r"arn:[a-z0-9-]+:[a-z0-9-]*:[a-z0-9-]*:[0-9]*:[A-Za-z0-9_./:+=,@*-]+"),
            url: build(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>'`\x22\\]+"),
            path: build(r"(?:\.\.?/|~/|/)?(?:[A-Za-z0-9_.@+~-]+/)+[A-Za-z0-9_.@+~-]*"),
            // AWS-style prefixed ids (8 or 17 hex digits) and Kubernetes pod names,
            // whose replica-set hash and suffix use a vowel-free alphabet.
            resource_id: build(concat!(
                r"(?:(?:i|vol|snap|sg|subnet|vpc|ami|eni|igw|nat|rtb|acl|eipalloc|lt|tgw|pcx|vpce|dopt|cgw|vgw|fs|fsap|r)-[0-9a-f]{17}",
                r"|(?:i|vol|snap|sg|subnet|vpc|ami|eni|igw|nat|rtb|acl|eipalloc|lt|tgw|pcx|vpce|dopt|cgw|vgw|fs|fsap|r)-[0-9a-f]{8})",
                r"|[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[bcdfghjklmnpqrstvwxz2-9]{6,10}-[bcdfghjklmnpqrstvwxz2-9]{5}",
            )),
            numbered: build(
                r"(?i)(?:revision|rev|offset|checkpoint|pr|job|txn|transaction|build|issue|run|pid|port|ticket|incident)s?(?:\s+#?\s*|#)([0-9]{2,})",
            ),
            hex: build(r"[0-9a-fA-F]{7,64}"),
        }
    })
}

/// Characters that continue a word on either side of a token.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Whether `text[start..end]` stands as a whole word for a token of `class` (spec §2).
pub fn is_whole_word(text: &str, start: usize, end: usize, class: TokenClass) -> bool {
    let before = text[..start].chars().next_back();
    let mut after = text[end..].chars();
    let next = after.next();
    if before.is_some_and(is_word_char) || next.is_some_and(is_word_char) {
        return false;
    }
    if class.is_pathlike() {
        if before == Some('/') || before == Some('.') {
            return false;
        }
        match next {
            Some('/') => return false,
            Some('.') if after.next().is_some_and(|c| c.is_alphanumeric()) => return false,
            _ => {}
        }
    }
    true
}

/// Sentence punctuation that a greedy path, URL or ARN match swallows at its end.
fn trim_trailing(text: &str, start: usize, mut end: usize, class: TokenClass) -> usize {
    if !class.is_pathlike() {
        return end;
    }
    let bytes = text.as_bytes();
    while end > start {
        let last = bytes[end - 1];
        let trailing_slash = class == TokenClass::Path && last == b'/' && end - start > 1;
        if matches!(
            last,
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}'
        ) || trailing_slash
        {
            end -= 1;
        } else {
            break;
        }
    }
    end
}

fn shape_ok(candidate: &str, class: TokenClass) -> bool {
    match class {
        TokenClass::Hex => {
            candidate.bytes().any(|b| b.is_ascii_digit())
                && candidate.bytes().any(|b| b.is_ascii_alphabetic())
        }
        TokenClass::Path => {
            let has_alnum = candidate.bytes().any(|b| b.is_ascii_alphanumeric());
            let last = candidate.rsplit('/').next().unwrap_or("");
            let has_extension = last
                .rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && is_extension(ext));
            candidate.contains('/') && has_alnum && (candidate.starts_with('/') || has_extension)
        }
        TokenClass::ResourceId => {
            // A pod name's replica-set hash always holds a digit; hyphenated prose doesn't.
            is_aws_id(candidate)
                || candidate
                    .rsplit('-')
                    .nth(1)
                    .is_some_and(|hash| hash.bytes().any(|b| b.is_ascii_digit()))
        }
        _ => true,
    }
}

fn is_aws_id(candidate: &str) -> bool {
    candidate.split_once('-').is_some_and(|(_, rest)| {
        matches!(rest.len(), 8 | 17) && rest.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// Where the next search may start after a rejected candidate `[from, to)`: the first
/// position whose preceding character lets a token begin. Stepping one character at a
/// time instead would make a long run of token characters (base64, say) quadratic.
fn next_start(text: &str, from: usize, to: usize, class: TokenClass) -> usize {
    for (i, c) in text[from..to].char_indices() {
        let blocks = is_word_char(c) || (class.is_pathlike() && (c == '/' || c == '.'));
        if !blocks {
            return from + i + c.len_utf8();
        }
    }
    to
}

fn is_extension(ext: &str) -> bool {
    (1..=10).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic())
}

fn scan(re: &Regex, text: &str, class: TokenClass, out: &mut Vec<Found>) {
    let mut pos = 0;
    while pos <= text.len() {
        let Some(caps) = re.captures_at(text, pos) else {
            break;
        };
        // `numbered` reports only its digit group; every other class the whole match.
        let m = caps
            .get(1)
            .unwrap_or_else(|| caps.get(0).expect("group 0 exists"));
        let whole = caps.get(0).expect("group 0 exists");
        let end = trim_trailing(text, m.start(), m.end(), class);
        let candidate = &text[m.start()..end];
        let keyword_ok = class != TokenClass::Numbered
            || text[..whole.start()]
                .chars()
                .next_back()
                .is_none_or(|c| !is_word_char(c));
        if end > m.start()
            && keyword_ok
            && shape_ok(candidate, class)
            && is_whole_word(text, m.start(), end, class)
        {
            out.push(Found {
                start: m.start(),
                end,
                class,
            });
            pos = whole.end().max(pos + 1);
        } else {
            // A rejected candidate may hide a valid one that starts inside it.
            pos = next_start(text, whole.start(), whole.end(), class);
        }
    }
}

/// Every opaque token of `text`, leftmost first; overlaps resolved leftmost, then
/// longest, then by the class's row in the spec table.
pub fn extract(text: &str) -> Vec<Found> {
    let p = patterns();
    let mut candidates = Vec::new();
    // Every class needs a digit, a `/` or `arn:`; much prose has none, and a byte search
    // is far cheaper than seven regex passes.
    let bytes = text.as_bytes();
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    if has_digit {
        scan(&p.uuid, text, TokenClass::Uuid, &mut candidates);
    }
    if memchr::memmem::find(bytes, b"arn:").is_some() {
        scan(&p.arn, text, TokenClass::Arn, &mut candidates);
    }
    if memchr::memmem::find(bytes, b"://").is_some() {
        scan(&p.url, text, TokenClass::Url, &mut candidates);
    }
    if memchr::memchr(b'/', bytes).is_some() {
        scan(&p.path, text, TokenClass::Path, &mut candidates);
    }
    if has_digit {
        scan(
            &p.resource_id,
            text,
            TokenClass::ResourceId,
            &mut candidates,
        );
        scan(&p.numbered, text, TokenClass::Numbered, &mut candidates);
        scan(&p.hex, text, TokenClass::Hex, &mut candidates);
    }
    candidates.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then((b.end - b.start).cmp(&(a.end - a.start)))
            .then(a.class.cmp(&b.class))
    });
    let mut chosen: Vec<Found> = Vec::with_capacity(candidates.len());
    let mut covered_to = 0;
    for found in candidates {
        if chosen.is_empty() || found.start >= covered_to {
            covered_to = found.end;
            chosen.push(found);
        }
    }
    chosen
}

/// The class a declared binding's token gets: the class its whole shape matches, or
/// `declared`.
pub fn classify(token: &str) -> TokenClass {
    match extract(token).as_slice() {
        [only] if only.start == 0 && only.end == token.len() => only.class,
        _ => TokenClass::Declared,
    }
}

/// Whether `token` occurs in `text` as a whole word.
pub fn contains_whole_word(text: &str, token: &str, class: TokenClass) -> bool {
    WholeWord::new(token, class).is_in(text)
}

/// A whole-word search for one token, built once and run over many texts.
pub struct WholeWord<'t> {
    finder: memchr::memmem::Finder<'t>,
    len: usize,
    class: TokenClass,
}

impl<'t> WholeWord<'t> {
    pub fn new(token: &'t str, class: TokenClass) -> Self {
        WholeWord {
            finder: memchr::memmem::Finder::new(token.as_bytes()),
            len: token.len(),
            class,
        }
    }

    pub fn is_in(&self, text: &str) -> bool {
        self.len > 0
            && self
                .finder
                .find_iter(text.as_bytes())
                .any(|start| is_whole_word(text, start, start + self.len, self.class))
    }
}

/// Words are runs of non-whitespace (spec §1).
pub fn word_count(text: &str) -> u64 {
    if !text.is_ascii() {
        return text.split_whitespace().count() as u64;
    }
    let mut words = 0;
    let mut in_word = false;
    for &b in text.as_bytes() {
        let space = b.is_ascii_whitespace() || b == 0x0b;
        words += u64::from(!space && !in_word);
        in_word = !space;
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(&str, TokenClass)> {
        extract(text)
            .iter()
            .map(|f| (f.text(text), f.class))
            .collect()
    }

    #[test]
    fn every_class_of_the_spec_table() {
        use TokenClass::*;
        let cases: &[(&str, &str, TokenClass)] = &[
            (
                "id 123e4567-e89b-12d3-a456-426614174000 ok",
                "123e4567-e89b-12d3-a456-426614174000",
                Uuid,
            ),
            (
                "snap arn:aws:rds:eu-west-1:123456789012:snapshot:pre-migration-7.",
                "arn:aws:rds:eu-west-1:123456789012:snapshot:pre-migration-7",
                Arn,
            ),
            (
                "see https://ci.example.com/jobs/9912, then",
                "https://ci.example.com/jobs/9912",
                Url,
            ),
            (
                "db at /var/lib/app/state.db now",
                "/var/lib/app/state.db",
                Path,
            ),
            ("edit src/main.rs please", "src/main.rs", Path),
            (
                "run ./migrations/0042_add_index.sql",
                "./migrations/0042_add_index.sql",
                Path,
            ),
            (
                "instance i-0abc123def4567890 up",
                "i-0abc123def4567890",
                ResourceId,
            ),
            ("group sg-12ab34cd open", "sg-12ab34cd", ResourceId),
            (
                "pod web-7d4b9c5f6-x2kqz crashed",
                "web-7d4b9c5f6-x2kqz",
                ResourceId,
            ),
            ("at revision 42 now", "42", Numbered),
            ("merged PR #381.", "381", Numbered),
            ("jobs 9900 failed", "9900", Numbered),
            ("head is 4f9a2c81 now", "4f9a2c81", Hex),
            (
                "digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                Hex,
            ),
        ];
        for (text, token, class) in cases {
            assert_eq!(tokens(text), vec![(*token, *class)], "in {text:?}");
        }
    }

    #[test]
    fn no_tokens_in_plain_prose() {
        for text in [
            "The migration was applied to staging and/or production.",
            "deadbeef is a word, and so is facade; 2026-11-29 is a date",
            "roll-back-before-later is hyphenated prose",
            "revision 7 has one digit",
            "w/o and km/h are not paths",
        ] {
            assert_eq!(tokens(text), vec![], "in {text:?}");
        }
    }

    #[test]
    fn a_token_inside_a_longer_token_belongs_to_it() {
        let text = "see https://git.example.com/app/commit/4f9a2c81d0e7 for it";
        assert_eq!(
            tokens(text),
            vec![(
                "https://git.example.com/app/commit/4f9a2c81d0e7",
                TokenClass::Url
            )]
        );
        // A URL's path part is not also a path.
        assert_eq!(tokens("(https://x.io/a/b.rs)")[0].1, TokenClass::Url);
    }

    #[test]
    fn whole_words_only() {
        assert!(tokens("x4f9a2c81d0e7").is_empty());
        assert!(tokens("4f9a2c81d0e7_tmp").is_empty());
        assert!(tokens("pre-4f9a2c81d0e7").is_empty());
        assert_eq!(
            tokens("\"4f9a2c81d0e7\""),
            vec![("4f9a2c81d0e7", TokenClass::Hex)]
        );
        assert_eq!(
            tokens("(src/lib.rs)."),
            vec![("src/lib.rs", TokenClass::Path)]
        );
    }

    #[test]
    fn declared_tokens_take_their_shape_class() {
        assert_eq!(classify("4f9a2c81d0e7"), TokenClass::Hex);
        assert_eq!(classify("tok_partial_77"), TokenClass::Declared);
        assert_eq!(classify("staging"), TokenClass::Declared);
    }

    #[test]
    fn whole_word_search_respects_path_boundaries() {
        let class = TokenClass::Path;
        assert!(contains_whole_word(
            "wrote src/main.rs.",
            "src/main.rs",
            class
        ));
        assert!(!contains_whole_word(
            "wrote src/main.rs.bak",
            "src/main.rs",
            class
        ));
        assert!(!contains_whole_word(
            "wrote x/src/main.rs",
            "src/main.rs",
            class
        ));
        assert!(contains_whole_word(
            "tok_partial_77 ok",
            "tok_partial_77",
            TokenClass::Declared
        ));
        assert!(!contains_whole_word(
            "tok_partial_778",
            "tok_partial_77",
            TokenClass::Declared
        ));
    }

    #[test]
    fn words_are_runs_of_non_whitespace() {
        assert_eq!(word_count("  a bb\tc\n\nd  "), 4);
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("a\u{b}b\u{c}c"), 3, "ASCII and Unicode agree");
        assert_eq!(word_count("é ü\tx"), 3);
    }
}

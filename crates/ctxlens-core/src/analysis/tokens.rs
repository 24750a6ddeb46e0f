//! The opaque-token extractor (spec §2) and the whole-word rules it shares with the
//! survival check.

use crate::model::TokenClass;
use regex::Regex;
use std::sync::OnceLock;

/// The table of what the `const fn` `$of` says each of the 256 bytes is, built at
/// compile time: a lookup where a byte's class is asked in a loop.
macro_rules! byte_table {
    ($of:path) => {{
        let mut table = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            // `b` counts to 255: in range.
            #[allow(clippy::indexing_slicing)]
            let slot = &mut table[b];
            *slot = $of(b as u8);
            b += 1;
        }
        table
    }};
}

/// `bit` where `yes`, else 0: a byte's entry in a table of flags (see [`byte_table!`]).
const fn bit_if(yes: bool, bit: u8) -> u8 {
    if yes {
        bit
    } else {
        0
    }
}

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

/// A built-in pattern, built on first use, once for all threads, and each thread's own
/// copy of it (a regex shared between threads makes every thread but the first take a
/// lock per search, and the parsers run on several). Built all at once, the patterns
/// would keep every parsing thread but the builder waiting; most texts need few
/// of them (the path and directory patterns, with classes of every script, only text
/// outside ASCII; the resource-id pattern only a run shaped like one).
struct LazyRegex {
    shared: &'static OnceLock<Regex>,
    source: fn() -> String,
    own: std::cell::OnceCell<Regex>,
}

impl LazyRegex {
    fn get(&self) -> &Regex {
        self.own.get_or_init(|| {
            // Built-in patterns: they compile, or every test fails.
            #[allow(clippy::expect_used)]
            let build = || Regex::new(&(self.source)()).expect("built-in token pattern compiles");
            self.shared.get_or_init(build).clone()
        })
    }
}

/// A [`LazyRegex`] of `source` (an expression that makes the pattern's text).
macro_rules! lazy_regex {
    ($source:expr) => {{
        static SHARED: OnceLock<Regex> = OnceLock::new();
        LazyRegex {
            shared: &SHARED,
            source: || String::from($source),
            own: std::cell::OnceCell::new(),
        }
    }};
}

struct Patterns {
    /// The spec's pattern, which [`hex_ids_and_uuids`] follows (the tests hold them equal).
    #[cfg(test)]
    uuid: LazyRegex,
    /// The spec's pattern, which [`Pattern::Arn`] follows.
    #[cfg(test)]
    arn: LazyRegex,
    /// The spec's pattern, which [`Pattern::Url`] follows.
    #[cfg(test)]
    url: LazyRegex,
    /// Names may hold letters of any script (spec §8.6); [`find_ascii_path`] follows
    /// it over ASCII.
    path: LazyRegex,
    /// A path's folders, for a tool argument's directories; [`find_ascii_folders`]
    /// follows it over ASCII.
    directory: LazyRegex,
    resource_id: LazyRegex,
    /// The spec's pattern, which [`Pattern::Numbered`] follows.
    #[cfg(test)]
    numbered: LazyRegex,
    /// The spec's pattern, which [`hex_ids_and_uuids`] follows.
    #[cfg(test)]
    hex: LazyRegex,
    branch: LazyRegex,
    vendor_id: LazyRegex,
    reverse_dns: LazyRegex,
    /// `branch` and `origin/`, which a text is searched for before the branch
    /// class's regex runs (see [`may_name_a_branch`]). Built once a thread.
    branch_words: [memchr::memmem::Finder<'static>; 2],
}

impl Patterns {
    fn new() -> Self {
        Patterns {
            #[cfg(test)]
            uuid: lazy_regex!(
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
            ),
            #[cfg(test)]
            arn: lazy_regex!(r"arn:[a-z0-9-]+:[a-z0-9-]*:[a-z0-9-]*:[0-9]*:[A-Za-z0-9_./:+=,@*-]+"),
            #[cfg(test)]
            url: lazy_regex!(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>'`\x22\\]+"),
            path: lazy_regex!(r"(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~-]+/)+[\p{L}\p{N}_.@+~-]*"),
            directory: lazy_regex!(r"(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~-]+/)+"),
            // AWS-style prefixed ids (8 or 17 hex digits) and Kubernetes pod names,
            // whose replica-set hash and suffix use a vowel-free alphabet.
            resource_id: lazy_regex!(format!(
                concat!(
                    r"(?:(?:{aws})-[0-9a-f]{{17}}|(?:{aws})-[0-9a-f]{{8}})",
                    r"|[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[{pod}]{{6,10}}-[{pod}]{{5}}",
                ),
                aws = AWS_PREFIXES.join("|"),
                pod = POD_HASH_ALPHABET,
            )),
            // Keyword and digits on one line, apart only by spaces, `#` or `:`.
            #[cfg(test)]
            numbered: lazy_regex!(format!(
                r"(?i)(?:{})s?(?:[ \t]*[#:][ \t]*|[ \t]+)([0-9]{{2,}})",
                NUMBER_KEYWORDS.join("|")
            )),
            #[cfg(test)]
            hex: lazy_regex!(r"[0-9a-fA-F]{7,64}"),
            branch: lazy_regex!(
                r"(?:checkout[ \t]+-[bB][ \t]+|switch[ \t]+-[cC][ \t]+|--branch[= \t][ \t]*|branch[ \t]+(?:-[a-zA-Z]+[ \t]+)*|origin/)([A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9])"
            ),
            vendor_id: lazy_regex!(r"[a-z][a-z0-9]{1,11}(?:_[a-z]{2,8})?_[0-9A-Za-z]{16,}"),
            reverse_dns: lazy_regex!(format!(
                r"(?:(?:group|iCloud|merchant)\.)?(?:{})\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+",
                TOP_LEVEL_DOMAINS.join("|")
            )),
            branch_words: [
                memchr::memmem::Finder::new("branch"),
                memchr::memmem::Finder::new("origin/"),
            ],
        }
    }
}

/// Whether the branch class's regex may match in a text with these runs: every match
/// holds `branch` (`branch X`, `--branch X`), a run `-b` or `-B` (after `checkout`),
/// `-c` or `-C` (after `switch`), each a run between blanks, or `origin/`, which holds
/// a `/` (so a text without one holds none). A search for the four words (`checkout`,
/// `switch` too) would read every text.
fn may_name_a_branch(p: &Patterns, text: &[u8], runs: &[Run]) -> bool {
    let option = |run: &Run| {
        let bytes = text.get(run.start..run.end).unwrap_or_default();
        matches!(bytes, b"-b" | b"-B" | b"-c" | b"-C")
    };
    let [branch, origin] = &p.branch_words;
    runs.iter().any(option)
        || branch.find(text).is_some()
        || runs.iter().any(|run| run.holds & holds::SLASH != 0) && origin.find(text).is_some()
}

thread_local! {
    static PATTERNS: Patterns = Patterns::new();
}

fn with_patterns<T>(f: impl FnOnce(&Patterns) -> T) -> T {
    PATTERNS.with(f)
}

/// Every match of the directory pattern in `text`, one after the other (as a regex's
/// `find_iter` gives them).
fn find_directories(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    if !bytes.is_ascii() {
        return with_patterns(|p| {
            let found = p.directory.get().find_iter(text);
            found.map(|m| m.start()..m.end()).collect()
        });
    }
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(found) = find_ascii_folders(bytes, pos) {
        pos = found.end;
        out.push(found);
    }
    out
}

/// The first match of the path pattern in `text` at or after `pos`.
fn find_path(text: &str, pos: usize) -> Option<Span> {
    match text.as_bytes().get(pos..) {
        Some(rest) if rest.is_ascii() => find_ascii_path(text.as_bytes(), pos),
        _ => with_patterns(|p| p.path.get().find_at(text, pos).map(|m| m.start()..m.end())),
    }
}

/// Scripts written without spaces between words (and Hangul, whose particles attach to
/// the word before): next to an ASCII token they do not continue it.
fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3040..=0x30FF | 0x3130..=0x318F | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Characters that continue a word on either side of a token.
/// A character that glues to a token next to it: a token is a whole word only with
/// none of these on either side.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_' || c == '-';
    }
    (c.is_alphanumeric() && !is_unspaced_script(c)) || c == '_' || c == '-'
}

/// Whether a whole word of a token of `class` may start at `start`: the character
/// before it (if any) does not continue it.
fn starts_a_word(text: &str, start: usize, class: TokenClass) -> bool {
    let before = text[..start].chars().next_back();
    !before.is_some_and(|c| is_word_char(c) || (class.is_pathlike() && matches!(c, '/' | '.')))
}

/// Whether `text[start..end]` stands as a whole word for a token of `class` (spec §2).
pub fn is_whole_word(text: &str, start: usize, end: usize, class: TokenClass) -> bool {
    if !starts_a_word(text, start, class) {
        return false;
    }
    let mut after = text[end..].chars();
    let next = after.next();
    if next.is_some_and(is_word_char) {
        return false;
    }
    if class.is_pathlike() {
        match next {
            Some('/') => return false,
            Some('.') if after.next().is_some_and(|c| c.is_alphanumeric()) => return false,
            _ => {}
        }
    }
    true
}

/// Sentence punctuation (ASCII and full-width) and quotes never end a token.
fn is_trailing_punctuation(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '\''
            | '"'
            | '`'
            | '。'
            | '、'
            | '，'
            | '．'
            | '：'
            | '；'
            | '！'
            | '？'
            | '‘'
            | '’'
            | '“'
            | '”'
            | '」'
            | '』'
    )
}

fn opening_of(close: char) -> Option<char> {
    match close {
        ')' => Some('('),
        ']' => Some('['),
        '}' => Some('{'),
        '>' => Some('<'),
        '）' => Some('（'),
        '】' => Some('【'),
        _ => None,
    }
}

/// The end of a greedy path, URL or ARN match once trailing punctuation, quotes and
/// closing brackets that were not opened inside it are cut off.
fn trim_trailing(text: &str, start: usize, mut end: usize, class: TokenClass) -> usize {
    if !class.is_pathlike() {
        return end;
    }
    while end > start {
        let candidate = &text[start..end];
        let Some(last) = candidate.chars().next_back() else {
            break;
        };
        let unopened = opening_of(last)
            .is_some_and(|open| candidate.matches(open).count() < candidate.matches(last).count());
        let trailing_slash = class == TokenClass::Path && last == '/' && end - start > 1;
        if is_trailing_punctuation(last) || unopened || trailing_slash {
            end -= last.len_utf8();
        } else {
            break;
        }
    }
    end
}

/// Where a candidate stops before the end its pattern found: at an elision, at a
/// URL's first non-ASCII letter after a bracket or punctuation, after a path's ASCII
/// extension that unspaced text follows, or before grep's `-LINE-` context suffix.
fn cut_end(text: &str, start: usize, end: usize, class: TokenClass) -> usize {
    let candidate = &text[start..end];
    let bytes = candidate.as_bytes();
    // Every cut but the dots and grep's suffix is at a character outside ASCII: most
    // candidates have none, and are not read a character at a time for them.
    let ascii = candidate.is_ascii();
    let dots = memchr::memchr_iter(b'.', bytes).find(|&i| bytes.get(i..i + 3) == Some(b"..."));
    let ellipsis = (!ascii).then(|| candidate.find('…')).flatten();
    let mut cut = dots
        .into_iter()
        .chain(ellipsis)
        .min()
        .unwrap_or(candidate.len());
    if class == TokenClass::Url && !ascii {
        let mut prev: Option<char> = None;
        for (i, c) in candidate.char_indices() {
            let after_break =
                prev.is_some_and(|p| opening_of(p).is_some() || is_trailing_punctuation(p));
            if (!c.is_ascii() && c.is_alphabetic() && after_break)
                || (!c.is_ascii() && is_trailing_punctuation(c))
            {
                cut = cut.min(i);
                break;
            }
            prev = Some(c);
        }
    }
    if class == TokenClass::Path {
        let mut prev: Option<char> = None;
        let unspaced_after = if ascii { "" } else { &candidate[..cut] };
        for (i, c) in unspaced_after.char_indices() {
            let after_ascii = prev.is_some_and(|p| p.is_ascii_alphanumeric());
            if !c.is_ascii()
                && is_unspaced_script(c)
                && after_ascii
                && has_file_extension(&candidate[..i])
            {
                cut = i;
                break;
            }
            prev = Some(c);
        }
        let kept = &candidate[..cut];
        if let Some(context) = grep_context_suffix(kept) {
            cut = context;
        }
    }
    start + cut
}

/// `file.go-88-` (grep's context line) is `file.go`: the offset where the suffix starts.
fn grep_context_suffix(path: &str) -> Option<usize> {
    let body = path.strip_suffix('-')?;
    let dash = body.rfind('-')?;
    let digits = &body[dash + 1..];
    let is_line = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    (is_line && has_file_extension(&body[..dash])).then_some(dash)
}

/// Paths every machine has: never an identifier of the work.
fn is_system_path(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path == "/tmp"
        || [
            "/dev",
            "/proc",
            "/bin",
            "/sbin",
            "/usr/bin",
            "/usr/local/bin",
        ]
        .iter()
        .any(|dir| {
            path.strip_prefix(dir)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
}

/// The text of the line that holds `start`, up to `start`.
fn line_before(text: &str, start: usize) -> &str {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..start]
}

/// Whether the line around `start` imports a module (`import … from '~/x'`).
fn in_import(text: &str, start: usize) -> bool {
    let line = line_before(text, start);
    let trimmed = line.trim_start();
    trimmed.starts_with("import ")
        || trimmed.starts_with("export ")
        || line.contains(" from ")
        || line.contains("require(")
        || line.contains("import(")
}

/// Whether `start` lies in a diff's file header (`--- a/x`, `+++ b/x`,
/// `diff --git a/x b/x`), where `a/` and `b/` are prefixes, not folders.
fn in_diff_header(text: &str, start: usize) -> bool {
    let line = line_before(text, start);
    line.starts_with("diff --git ") || line == "--- " || line == "+++ "
}

/// Checks a path candidate against the §8.6 rules that look at its neighbours; returns
/// the start to use (a diff's `a/` or `b/` is not part of the path), or `None`.
fn path_start(text: &str, start: usize, end: usize) -> Option<usize> {
    let candidate = &text[start..end];
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    // Template placeholders (`${V}`, `{x}`, `<name>`) make a candidate no token.
    if matches!(after, Some('$' | '{' | '<' | '%')) || matches!(before, Some('}' | '>' | '$')) {
        return None;
    }
    // Import aliases are not absolute paths.
    if before == Some('@') || candidate.starts_with("@/") {
        return None;
    }
    if candidate.starts_with("~/") && in_import(text, start) {
        return None;
    }
    let start = match candidate.get(..2) {
        Some("a/" | "b/") if candidate.len() > 2 && in_diff_header(text, start) => start + 2,
        _ => start,
    };
    (!is_system_path(&text[start..end])).then_some(start)
}

fn shape_ok(candidate: &str, class: TokenClass) -> bool {
    match class {
        TokenClass::Hex => {
            candidate.bytes().any(|b| b.is_ascii_digit())
                && candidate.bytes().any(|b| b.is_ascii_alphabetic())
        }
        TokenClass::Path => {
            let has_alnum = candidate.chars().any(char::is_alphanumeric);
            candidate.contains('/')
                && has_alnum
                && (candidate.starts_with('/') || has_file_extension(candidate))
        }
        TokenClass::ResourceId => {
            // A pod name's replica-set hash always holds a digit; hyphenated prose doesn't.
            is_aws_id(candidate)
                || candidate
                    .rsplit('-')
                    .nth(1)
                    .is_some_and(|hash| hash.bytes().any(|b| b.is_ascii_digit()))
        }
        // `main` is not an identifier to keep; `feat/upload-2` is.
        TokenClass::Branch => {
            candidate.len() >= 3
                && candidate
                    .bytes()
                    .any(|b| matches!(b, b'/' | b'-' | b'_') || b.is_ascii_digit())
                && !candidate.starts_with('-')
        }
        TokenClass::VendorId => {
            let (_, id) = candidate.rsplit_once('_').unwrap_or(("", candidate));
            id.bytes().any(|b| b.is_ascii_digit()) && id.bytes().any(|b| b.is_ascii_alphabetic())
        }
        _ => true,
    }
}

fn is_aws_id(candidate: &str) -> bool {
    candidate.split_once('-').is_some_and(|(_, rest)| {
        matches!(rest.len(), 8 | 17) && rest.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// A rejected candidate longer than this is skipped whole: it is a blob (base64,
/// minified code), and a token starting inside it would be a fragment of it. Searching
/// again after every `+` of a base64 blob re-read the blob's rest each time.
const LONGEST_CANDIDATE_RETRIED: usize = 1024;

/// Where the next search may start after a rejected candidate `[from, to)`: the first
/// position whose preceding character lets a token begin. Stepping one character at a
/// time instead would make a long run of token characters (base64, say) quadratic.
fn next_start(text: &str, from: usize, to: usize, class: TokenClass) -> usize {
    if to - from > LONGEST_CANDIDATE_RETRIED {
        return to;
    }
    for (i, c) in text[from..to].char_indices() {
        let blocks = is_word_char(c) || (class.is_pathlike() && matches!(c, '/' | '.' | '@' | '~'));
        if !blocks {
            return from + i + c.len_utf8();
        }
    }
    to
}

/// Whether the last part of `path` is a file name with an extension (`a.rs`, not
/// `.env` nor `dir`).
fn has_file_extension(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .and_then(|file| file.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && is_extension(ext))
}

fn is_extension(ext: &str) -> bool {
    (1..=10).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic())
}

/// How a class's candidates are found: its regex, or a hand-written search that finds
/// what the regex finds (leftmost, then longest) without a regex search's cost: for the
/// two classes of plain shape that most runs are tried for, and for the numbered class,
/// whose keywords give a regex no literal to skip to.
#[derive(Clone, Copy)]
enum Pattern<'p> {
    Regex(&'p LazyRegex),
    /// A keyword class: the regex's first group is the candidate.
    Keyword(&'p LazyRegex),
    /// The ARN class's pattern, searched by hand from where `arn:` stands.
    Arn,
    /// The URL class's pattern, searched by hand from where `://` stands.
    Url,
    /// The path class's pattern ([`find_path`]).
    Path,
    /// The numbered class, a keyword class: `(?i)(?:KEYWORD)s?(?:[ \t]*[#:][ \t]*|[ \t]+)([0-9]{2,})`
    /// over a text whose runs between blanks are these (those a candidate of
    /// another class spans are passed over: see [`Cover`]).
    Numbered(&'p [Run], &'p [Cover]),
}

type Span = std::ops::Range<usize>;

impl Pattern<'_> {
    /// Whether a match is a keyword, then the candidate: the keyword must start a word.
    fn after_keyword(self) -> bool {
        matches!(self, Pattern::Keyword(_) | Pattern::Numbered(..))
    }

    /// The first match in `haystack` at or after `pos`, and the candidate in it.
    fn find_at(self, haystack: &str, pos: usize) -> Option<(Span, Span)> {
        let whole = |m: regex::Match| m.start()..m.end();
        match self {
            Pattern::Regex(re) => re
                .get()
                .find_at(haystack, pos)
                .map(|m| (whole(m), whole(m))),
            Pattern::Keyword(re) => {
                let caps = re.get().captures_at(haystack, pos)?;
                let all = caps.get(0)?;
                Some((whole(all), whole(caps.get(1).unwrap_or(all))))
            }
            Pattern::Arn => find_arn(haystack.as_bytes(), pos).map(|m| (m.clone(), m)),
            Pattern::Url => find_url(haystack, pos).map(|m| (m.clone(), m)),
            Pattern::Path => find_path(haystack, pos).map(|m| (m.clone(), m)),
            Pattern::Numbered(runs, covers) => find_numbered(haystack, (runs, covers), pos),
        }
    }
}

/// The first match of the ARN pattern
/// `arn:[a-z0-9-]+:[a-z0-9-]*:[a-z0-9-]*:[0-9]*:[A-Za-z0-9_./:+=,@*-]+` at or after
/// `pos`, as the regex finds it. A match starts where `arn:` stands, and from there it is
/// decided without going back: each part but the last takes what its class allows up
/// to the `:` after it (no class holds a `:`), and the last takes all it can.
fn find_arn(bytes: &[u8], pos: usize) -> Option<Span> {
    arn_prefixes(bytes, pos).find_map(|at| arn_end(bytes, at).map(|end| at..end))
}

/// Where `arn:` stands in `bytes` at or after `pos`, in order: found by its colon, for
/// the short runs searched hold few (a substring search costs more to start than
/// that).
fn arn_prefixes(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    colons(bytes, pos).filter_map(move |colon| {
        let start = colon.checked_sub(3).filter(|&start| start >= pos)?;
        (bytes.get(start..colon) == Some(b"arn")).then_some(start)
    })
}

/// Where `://` stands in `bytes` at or after `pos`, in order (see [`arn_prefixes`]).
fn scheme_separators(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    colons(bytes, pos).filter(move |&colon| bytes.get(colon + 1..colon + 3) == Some(b"//"))
}

fn colons(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    let rest = bytes.get(pos..).unwrap_or_default();
    memchr::memchr_iter(b':', rest).map(move |i| pos + i)
}

/// What a byte is to the ARN pattern's parts ([`ARN_BYTES`]).
mod arn_byte {
    /// `[a-z0-9-]`: the partition, the service and the region.
    pub const FIELD: u8 = 1;
    /// `[0-9]`: the account.
    pub const DIGIT: u8 = 2;
    /// `[A-Za-z0-9_./:+=,@*-]`: the resource.
    pub const RESOURCE: u8 = 4;

    pub const fn of(b: u8) -> u8 {
        let field = b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
        let resource = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'.' | b'/' | b':' | b'+' | b'=' | b',' | b'@' | b'*' | b'-'
            );
        super::bit_if(field, FIELD)
            | super::bit_if(b.is_ascii_digit(), DIGIT)
            | super::bit_if(resource, RESOURCE)
    }
}

/// Looked up, not worked out: the tests of ranges and bytes branched at every byte of
/// an ARN, and the branches' outcomes follow the text (a part's class was also a
/// call through a pointer per byte).
static ARN_BYTES: [u8; 256] = byte_table!(arn_byte::of);

/// Where an ARN that starts at `at` (with `arn:`) ends, if one does.
fn arn_end(bytes: &[u8], at: usize) -> Option<usize> {
    use arn_byte::{DIGIT, FIELD, RESOURCE};
    let span = |from: usize, part: u8| {
        bytes
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&b| byte_in(&ARN_BYTES, b) & part != 0)
            .count()
    };
    let mut i = at + b"arn:".len();
    // Partition (one or more), service, region, account: each up to its `:`.
    for (least, part) in [(1, FIELD), (0, FIELD), (0, FIELD), (0, DIGIT)] {
        let len = span(i, part);
        if len < least || bytes.get(i + len) != Some(&b':') {
            return None;
        }
        i += len + 1;
    }
    let len = span(i, RESOURCE);
    (len > 0).then_some(i + len)
}

/// The first match of the URL pattern `[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>'`\x22\\]+` at
/// or after `pos`, as the regex finds it. A match holds `://`, and the scheme before it
/// runs back over scheme characters (no `:` nor `/` among them) to the leftmost letter
/// at or after `pos`: the first `://` that has such a scheme and a character after it
/// gives the leftmost match.
fn find_url(text: &str, pos: usize) -> Option<Span> {
    use url_byte::{SCHEME, TAIL};
    let bytes = text.as_bytes();
    let is_scheme = |b: u8| byte_in(&URL_BYTES, b) & SCHEME != 0;
    scheme_separators(bytes, pos).find_map(|colon| {
        let scheme = bytes.get(pos..colon).unwrap_or_default();
        let run = scheme.iter().rev().take_while(|&&b| is_scheme(b)).count();
        let from = colon - run;
        let start = from
            + scheme
                .get(from - pos..)?
                .iter()
                .position(u8::is_ascii_alphabetic)?;
        let after = colon + "://".len();
        // ASCII a byte at a time, then characters from the first that is not.
        let rest = text.get(after..)?;
        let ascii = rest
            .bytes()
            .take_while(|&b| byte_in(&URL_BYTES, b) & TAIL != 0)
            .count();
        let tail: usize = ascii
            + rest
                .get(ascii..)?
                .chars()
                .take_while(|&c| url_goes_on(c))
                .map(char::len_utf8)
                .sum::<usize>();
        (tail > 0).then_some(start..after + tail)
    })
}

/// What an ASCII byte is to the URL pattern ([`URL_BYTES`]).
mod url_byte {
    /// `[a-zA-Z0-9+.-]`: the scheme.
    pub const SCHEME: u8 = 1;
    /// What goes on after `://` ([`super::url_goes_on`]).
    pub const TAIL: u8 = 2;

    pub const fn of(b: u8) -> u8 {
        let scheme = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-');
        let tail = b.is_ascii() && super::url_goes_on(b as char);
        super::bit_if(scheme, SCHEME) | super::bit_if(tail, TAIL)
    }
}

/// Whether a URL goes on over `c` after its `://`: no whitespace, nor `<>'`"\`.
const fn url_goes_on(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '<' | '>' | '\'' | '`' | '"' | '\\')
}

/// Looked up (see [`ARN_BYTES`]).
static URL_BYTES: [u8; 256] = byte_table!(url_byte::of);

/// The hex ids (`[0-9a-fA-F]{7,64}`) and UUIDs (8-4-4-4-12 hex digits) of the runs
/// that could hold them, as searching for the patterns and keeping the whole words
/// finds them. Both are made of word characters alone, so one that is a whole word is
/// a whole word segment of its run (see [`word_segments`]): a UUID exactly, or 7 to 64
/// hex digits, with a digit and a letter (their shape); a longer stretch of hex
/// digits, or one glued to other word characters, holds none. One pass over a run's
/// segments, not a search for each pattern and a check of each candidate.
fn hex_ids_and_uuids(text: &str, runs: &[Run], covers: &mut [Cover], out: &mut Vec<Found>) {
    let bytes = text.as_bytes();
    for (run, cover) in runs.iter().zip(covers) {
        if cover.passes_over(TokenClass::Uuid) && cover.passes_over(TokenClass::Hex) {
            continue;
        }
        let len = run.end - run.start;
        let uuid = run.holds & holds::DASH != 0 && len >= UUID_LEN;
        let hex = run.holds & holds::DIGIT != 0 && len >= 7;
        if !(uuid || hex) {
            continue;
        }
        for (segment, all, any) in word_segments(text, run.start..run.end) {
            let word = bytes.get(segment.clone()).unwrap_or_default();
            let class = if uuid && is_uuid(word) {
                TokenClass::Uuid
            } else if hex
                && (7..=64).contains(&word.len())
                && all & segment_byte::HEX != 0
                && any & segment_byte::DIGIT != 0
                && any & segment_byte::LETTER != 0
            {
                TokenClass::Hex
            } else {
                continue;
            };
            let found = Found {
                start: segment.start,
                end: segment.end,
                class,
            };
            cover.note(run, &found);
            out.push(found);
        }
    }
}

const UUID_LEN: usize = 36;

/// Whether `word` is a UUID: 8-4-4-4-12 hex digits.
fn is_uuid(word: &[u8]) -> bool {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    // No dash is a hex digit: with the four dashes in place, 32 hex digits are the
    // other 32 bytes (counted in one loop the compiler works on many bytes at once).
    word.len() == UUID_LEN
        && DASHES.iter().all(|&i| word.get(i) == Some(&b'-'))
        && word.iter().filter(|b| b.is_ascii_hexdigit()).count() == UUID_LEN - DASHES.len()
}

/// The stretches of word characters (see [`is_word_char`]) in `text[range]`, which
/// starts and ends at characters' boundaries, each with what all of its bytes are and
/// what any of them is ([`segment_byte`]). ASCII is read a byte at a time from a table;
/// a character outside it is decoded (it is a word character or not, and no hex digit).
fn word_segments(text: &str, range: Span) -> impl Iterator<Item = (Span, u8, u8)> + '_ {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    let mut pos = range.start;
    // What the character at `at` is to a segment, and its length.
    let kind_at = move |at: usize| -> Option<(u8, usize)> {
        let byte = *bytes.get(at)?;
        if byte.is_ascii() {
            return Some((byte_in(&SEGMENT_BYTES, byte), 1));
        }
        let c = text.get(at..)?.chars().next()?;
        let kind = if is_word_char(c) {
            segment_byte::WORD
        } else {
            0
        };
        Some((kind, c.len_utf8()))
    };
    let ascii_kind = |b: u8| b.is_ascii().then(|| byte_in(&SEGMENT_BYTES, b));
    std::iter::from_fn(move || {
        // To the next word character: ASCII bytes that are none are passed over in a
        // loop of their own, a character outside ASCII is decoded.
        loop {
            let rest = bytes.get(pos..end)?;
            pos += rest
                .iter()
                .position(|&b| ascii_kind(b).is_none_or(|kind| kind & segment_byte::WORD != 0))?;
            let (kind, len) = kind_at(pos)?;
            if kind & segment_byte::WORD != 0 {
                break;
            }
            pos += len;
        }
        let start = pos;
        let (mut all, mut any) = (u8::MAX, 0);
        while pos < end {
            for &b in bytes.get(pos..end).unwrap_or_default() {
                match ascii_kind(b) {
                    Some(kind) if kind & segment_byte::WORD != 0 => {
                        all &= kind;
                        any |= kind;
                        pos += 1;
                    }
                    _ => break,
                }
            }
            match kind_at(pos) {
                Some((kind, len)) if pos < end && kind & segment_byte::WORD != 0 => {
                    all &= kind;
                    any |= kind;
                    pos += len;
                }
                _ => break,
            }
        }
        Some((start..pos, all, any))
    })
}

/// The runs of word characters ([`is_word_char`]) of `text`, each with where it
/// starts: ASCII read a byte at a time from a table.
pub fn word_runs_at(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    word_segments(text, 0..text.len())
        .filter_map(move |(run, _, _)| Some((run.start, text.get(run)?)))
}

/// [`word_runs_at`] from the last run to the first.
pub fn word_runs_from_last(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    // Whether the character that ends at `at` is a word character, and its length.
    let word_before = move |at: usize| -> Option<(bool, usize)> {
        let &b = bytes.get(at.checked_sub(1)?)?;
        if b.is_ascii() {
            return Some((is_ascii_word_byte(b), 1));
        }
        let c = text.get(..at)?.chars().next_back()?;
        Some((is_word_char(c), c.len_utf8()))
    };
    std::iter::from_fn(move || {
        loop {
            let (word, len) = word_before(end)?;
            if word {
                break;
            }
            end -= len;
        }
        let run_end = end;
        while let Some((true, len)) = word_before(end) {
            end -= len;
        }
        Some((end, text.get(end..run_end)?))
    })
}

/// Whether a byte is an ASCII word character ([`is_word_char`]), from a table.
pub fn is_ascii_word_byte(b: u8) -> bool {
    byte_in(&SEGMENT_BYTES, b) & segment_byte::WORD != 0
}

/// What an ASCII byte is to [`word_segments`].
mod segment_byte {
    /// A word character ([`super::is_word_char`]).
    pub const WORD: u8 = 1;
    pub const HEX: u8 = 2;
    pub const DIGIT: u8 = 4;
    pub const LETTER: u8 = 8;

    pub const fn of(b: u8) -> u8 {
        match b {
            b'0'..=b'9' => WORD | HEX | DIGIT,
            b'a'..=b'f' | b'A'..=b'F' => WORD | HEX | LETTER,
            b'g'..=b'z' | b'G'..=b'Z' => WORD | LETTER,
            b'_' | b'-' => WORD,
            _ => 0,
        }
    }
}

static SEGMENT_BYTES: [u8; 256] = byte_table!(segment_byte::of);

/// A byte of a path's name in the path pattern, `[\p{L}\p{N}_.@+~-]`, in ASCII:
/// looked up (see [`ARN_BYTES`]).
fn is_path_name_byte(b: u8) -> bool {
    byte_in(&PATH_NAME_BYTES, b) != 0
}

static PATH_NAME_BYTES: [u8; 256] = byte_table!(path_name_byte);

const fn path_name_byte(b: u8) -> u8 {
    let name = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@' | b'+' | b'~' | b'-');
    bit_if(name, 1)
}

/// The first match of the path pattern
/// `(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~-]+/)+[\p{L}\p{N}_.@+~-]*` at or after `pos` in
/// ASCII text, as the regex finds it (leftmost, then greedy): its folders
/// ([`find_ascii_folders`]), then a name.
fn find_ascii_path(bytes: &[u8], pos: usize) -> Option<Span> {
    find_ascii_folders(bytes, pos).map(|folders| folders.start..name_end(bytes, folders.end))
}

/// Where the run of path name bytes that starts at `from` ends.
fn name_end(bytes: &[u8], from: usize) -> usize {
    from + bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&b| is_path_name_byte(b))
        .count()
}

/// The first match of the directory pattern `(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~-]+/)+`
/// at or after `pos` in ASCII text, as the regex finds it (leftmost, then greedy): where
/// the path pattern's match starts, up to the end of its last folder. Every prefix but
/// `/` is made of name bytes and a `/`, so it is one more folder of the same match: a
/// match starts at a `/` with a folder after it, or at a name byte with a `/` after its
/// name, and runs over every folder after that.
fn find_ascii_folders(bytes: &[u8], pos: usize) -> Option<Span> {
    // `name/` at `from`: where the next folder starts.
    let folder = |from: usize| {
        let end = name_end(bytes, from);
        (end > from && bytes.get(end) == Some(&b'/')).then_some(end + 1)
    };
    let mut start = pos;
    while start < bytes.len() {
        let after_prefix = if bytes.get(start) == Some(&b'/') {
            start + 1
        } else {
            start
        };
        if let Some(mut end) = folder(after_prefix) {
            while let Some(next) = folder(end) {
                end = next;
            }
            return Some(start..end);
        }
        // No match starts here, nor inside this name (each would end where this one
        // did): the next try is the byte after it.
        start = name_end(bytes, after_prefix).max(start + 1);
    }
    None
}

/// The numbered class's keywords, in the order its pattern tries them. None ends with
/// `s` or with another keyword, so a run of digits has at most one keyword before it.
const NUMBER_KEYWORDS: [&str; 15] = [
    "revision",
    "rev",
    "offset",
    "checkpoint",
    "pr",
    "job",
    "txn",
    "transaction",
    "build",
    "issue",
    "run",
    "pid",
    "port",
    "ticket",
    "incident",
];

/// The first match of the numbered pattern that starts at or after `pos`, and its
/// digits. It is found from the digits back: every match ends with a run of digits
/// after a blank, `#` or `:`, and from there its separator and keyword are the only
/// ones that can stand before them, so the matches come in the order of their digits.
/// A search of the whole text for the keywords cost more: `run` and `port` stand in
/// much prose, with no number after them.
fn find_numbered(
    text: &str,
    (runs, covers): (&[Run], &[Cover]),
    pos: usize,
) -> Option<(Span, Span)> {
    let bytes = text.as_bytes();
    let is_digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let byte_before = |at: usize| at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
    // The digits of a match lie in a run that holds one, past `pos`.
    let first = runs.partition_point(|run| run.end <= pos);
    let with_digits = runs
        .get(first..)?
        .iter()
        .zip(covers.get(first..).unwrap_or_default())
        .filter(|(run, cover)| {
            run.holds & holds::DIGIT != 0 && !cover.passes_over(TokenClass::Numbered)
        })
        .map(|(run, _)| run);
    for run in with_digits {
        // Digits after a separator start a run (after a blank) or follow a `#` or `:`.
        let in_run = bytes.get(run.start..run.end).unwrap_or_default();
        let after_mark = memchr::memchr2_iter(b'#', b':', in_run).map(|i| run.start + i + 1);
        for digits in std::iter::once(run.start).chain(after_mark) {
            let after_separator =
                byte_before(digits).is_some_and(|b| matches!(b, b' ' | b'\t' | b'#' | b':'));
            if digits <= pos || !(after_separator && is_digit(digits) && is_digit(digits + 1)) {
                continue;
            }
            let end = (digits..bytes.len())
                .find(|&i| !is_digit(i))
                .unwrap_or(bytes.len());
            // Back over `[ \t]*[#:][ \t]*` or `[ \t]+`: it is not empty, for the byte
            // before the digits is one of them.
            let mut keyword_end = digits;
            let back_over_blanks = |at: &mut usize| {
                while byte_before(*at).is_some_and(|b| matches!(b, b' ' | b'\t')) {
                    *at -= 1;
                }
            };
            back_over_blanks(&mut keyword_end);
            if byte_before(keyword_end).is_some_and(|b| matches!(b, b'#' | b':')) {
                keyword_end -= 1;
                back_over_blanks(&mut keyword_end);
            }
            match keyword_start(text, keyword_end) {
                Some(start) if start >= pos => return Some((start..end, digits..end)),
                _ => {}
            }
        }
    }
    None
}

/// Where the numbered class's keyword (with a plural `s`) that ends at `end` starts, as
/// `(?i)` compares: the Kelvin sign is a `k` and the long s an `s`.
fn keyword_start(text: &str, end: usize) -> Option<usize> {
    let folded = |c: char| match c {
        '\u{212A}' => 'k',
        '\u{17F}' => 's',
        c => c.to_ascii_lowercase(),
    };
    let before = text.get(..end)?;
    // No keyword ends with `s`: one before the end is a plural.
    let end = match before.char_indices().next_back() {
        Some((at, c)) if folded(c) == 's' => at,
        _ => end,
    };
    let before = text.get(..end)?;
    NUMBER_KEYWORDS.iter().find_map(|keyword| {
        let mut start = end;
        let mut chars = before.char_indices().rev();
        for letter in keyword.chars().rev() {
            match chars.next() {
                Some((at, c)) if folded(c) == letter => start = at,
                _ => return None,
            }
        }
        Some(start)
    })
}

/// Finds the candidates of one class that lie in `text[range]`, judged against the
/// whole text around them.
fn scan(
    pattern: Pattern<'_>,
    text: &str,
    range: std::ops::Range<usize>,
    class: TokenClass,
    out: &mut Vec<Found>,
) {
    let Some(haystack) = text.get(..range.end) else {
        return;
    };
    let mut pos = range.start;
    while pos < range.end {
        // Keyword classes report their group; every other class the whole match.
        let Some((whole, m)) = pattern.find_at(haystack, pos) else {
            break;
        };
        // What follows a word character is no whole word (`is_whole_word` below): most
        // rejected candidates (a hex run inside an id, say) are let go before they are
        // trimmed and checked.
        if !starts_a_word(text, m.start, class) {
            pos = next_start(text, whole.start, whole.end, class);
            continue;
        }
        let mut start = m.start;
        let cut = cut_end(text, start, m.end, class);
        let end = trim_trailing(text, start, cut, class);
        // A grep context suffix (`-88-`) or a diff prefix (`a/`) is cut off, and the
        // whole-word rule looks at the text around what was cut.
        let grep_cut = cut < m.end && text[cut..m.end].starts_with('-');
        let (word_start, word_end) = (m.start, if grep_cut { m.end } else { end });
        let mut ok = end > start;
        if ok && class == TokenClass::Path {
            match path_start(text, start, end) {
                Some(s) => start = s,
                None => ok = false,
            }
        }
        // The keyword starts a word (no keyword class is path-like).
        let keyword_ok = !pattern.after_keyword() || starts_a_word(text, whole.start, class);
        // Read's gutter (`  59→`) is a line number, never a numbered token.
        let gutter = class == TokenClass::Numbered && text[end..].starts_with('→');
        if ok
            && end > start
            && keyword_ok
            && !gutter
            && shape_ok(&text[start..end], class)
            && is_whole_word(text, word_start, word_end, class)
        {
            out.push(Found { start, end, class });
            pos = whole.end.max(pos + 1);
        } else {
            // A rejected candidate may hide a valid one that starts inside it.
            pos = next_start(text, whole.start, whole.end, class);
        }
    }
}

/// Directories a tool call names with a trailing `/` (`ls src/components/`): a token
/// without the slash (spec §8.6, "directories used as a tool's path argument").
pub fn extract_directories(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    if memchr::memchr(b'/', text.as_bytes()).is_none() {
        return out;
    }
    for m in find_directories(text) {
        let end = m.end - 1;
        let before = text[..m.start].chars().next_back();
        let after = text[m.end..].chars().next();
        let standalone = before
            .is_none_or(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '=' | '`'))
            && after.is_none_or(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ';' | ')'));
        let dir = &text[m.start..end];
        // `config/` alone names a word, not an identifier; `src/components/` does.
        if standalone
            && end > m.start
            && dir.trim_start_matches("./").contains('/')
            && dir.chars().any(char::is_alphanumeric)
            && !dir.contains("...")
            && path_start(text, m.start, end).is_some()
        {
            out.push(Found {
                start: m.start,
                end,
                class: TokenClass::Path,
            });
        }
    }
    out
}

/// A tool argument that names a directory or file by itself (`{"path": "src/api"}`),
/// as a path token; `None` for anything else.
pub fn path_argument(value: &str) -> Option<&str> {
    let value = value.strip_suffix('/').unwrap_or(value);
    let plausible = value.contains('/')
        && !value.contains("://")
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
        && value.chars().any(char::is_alphanumeric)
        && find_path(value, 0).is_some_and(|m| m == (0..value.len()))
        && !is_system_path(value)
        && !value.starts_with("@/");
    plausible.then_some(value)
}

/// What a run of text between blanks holds that some class's pattern needs.
mod holds {
    pub const DIGIT: u8 = 1;
    pub const SLASH: u8 = 2;
    pub const DASH: u8 = 4;
    pub const UNDERSCORE: u8 = 8;
    pub const DOT: u8 = 16;
    pub const COLON: u8 = 32;
    /// A byte no pattern but the keyword classes matches: a run ends there.
    pub const BLANK: u8 = 128;

    pub const fn of(b: u8) -> u8 {
        match b {
            b'0'..=b'9' => DIGIT,
            b'/' => SLASH,
            b'-' => DASH,
            b'_' => UNDERSCORE,
            b'.' => DOT,
            b':' => COLON,
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => BLANK,
            _ => 0,
        }
    }
}

static BYTE_HOLDS: [u8; 256] = byte_table!(holds::of);

/// A byte's entry in a table of all 256.
fn byte_in(table: &[u8; 256], b: u8) -> u8 {
    table.get(usize::from(b)).copied().unwrap_or(0)
}

/// A maximal run of text without ASCII blanks, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    start: usize,
    end: usize,
    holds: u8,
}

/// Whether a byte is one a class needs (a digit, `/`, `-`, `_`, `.` or `:`: the bytes
/// [`BYTE_HOLDS`] gives a class other than [`holds::BLANK`]). Worked out, not looked
/// up, so that a block of bytes is asked at once.
fn is_held(b: u8) -> bool {
    b.wrapping_sub(b'-') <= b':' - b'-' || b == b'_'
}

/// Where the first byte that `is` holds for stands, looked for a block at a time: a
/// block is asked whole (many bytes at once), and only a block that holds one is read
/// byte by byte. For searches whose bytes are rare in the text.
fn first_in_blocks(bytes: &[u8], is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut offset = 0;
    for block in bytes.chunks(32) {
        if block.iter().fold(false, |any, &b| any | is(b)) {
            return block.iter().position(|&b| is(b)).map(|at| offset + at);
        }
        offset += block.len();
    }
    None
}

/// Into `out`, the runs between blanks that hold anything a class needs. No class but the keyword
/// ones matches a blank, so every other candidate lies inside one run. The text is
/// searched for the next byte a class needs; only the run around it is read byte by
/// byte (a loop over every byte is costly on long tool results).
fn runs_into(bytes: &[u8], out: &mut Vec<Run>) {
    let is_blank = |b: &u8| byte_in(&BYTE_HOLDS, *b) == holds::BLANK;
    out.clear();
    // Where the search goes on: the text's start, or the blank (or end) after a run.
    let mut pos = 0;
    while let Some(rest) = bytes.get(pos..) {
        let Some(held_at) = first_in_blocks(rest, is_held).map(|i| pos + i) else {
            break;
        };
        // The bytes between `pos` and `held_at` hold nothing a class needs: the run
        // starts after the last blank among them.
        let before = bytes.get(pos..held_at).unwrap_or_default();
        let start = before
            .iter()
            .rposition(is_blank)
            .map_or(pos, |i| pos + i + 1);
        let (end, held) = run_end(bytes, held_at);
        out.push(Run {
            start,
            end,
            holds: held,
        });
        pos = end;
    }
}

/// Where the run that `from` is in ends (at a blank, or the text's end), and what its
/// bytes from `from` on hold. Eight bytes at a time: their classes are joined without
/// a branch each, and only the eight with the blank are read one by one (a branch at
/// every byte is slower).
fn run_end(bytes: &[u8], from: usize) -> (usize, u8) {
    let mut held = 0;
    let mut at = from;
    let mut chunks = bytes.get(from..).unwrap_or_default().chunks_exact(8);
    for chunk in &mut chunks {
        let all = chunk
            .iter()
            .fold(0, |all, &b| all | byte_in(&BYTE_HOLDS, b));
        if all & holds::BLANK != 0 {
            return end_in(chunk, at, held);
        }
        held |= all;
        at += chunk.len();
    }
    end_in(chunks.remainder(), at, held)
}

/// [`run_end`] in `chunk`, which starts at `at`, the run's bytes before it holding
/// `held`.
fn end_in(chunk: &[u8], at: usize, mut held: u8) -> (usize, u8) {
    for (i, &b) in chunk.iter().enumerate() {
        let class = byte_in(&BYTE_HOLDS, b);
        if class == holds::BLANK {
            return (at + i, held);
        }
        held |= class;
    }
    (at + chunk.len(), held)
}

/// What a run must hold (all of these [`holds`]), its least length, and a piece of
/// text every match of the class holds (or none), for a class's match to fit in it.
type RunFit = (u8, usize, Option<Piece>);

/// A piece of text that every match of a class holds.
#[derive(Clone, Copy)]
enum Piece {
    /// `arn:`
    ArnPrefix,
    /// `://`
    SchemeSeparator,
    /// A top-level domain of the reverse-DNS pattern, then a dot.
    TopLevelDomain,
    /// What a resource id the extractor keeps ends with, as a whole word: an AWS
    /// prefix, a dash and exactly 8 or 17 hex digits, or a dash, 6 to 10 letters of a
    /// pod hash, a dash and exactly 5 more. Most runs with a dash and a digit (UUIDs,
    /// hyphenated names, an ARN's `snap-` and its 16 digits) hold neither, and the
    /// regex, which has no literal to skip to, cost thousands of instructions a run.
    ResourceIdShape,
}

impl Piece {
    fn is_in(self, run: &[u8]) -> bool {
        match self {
            Piece::ArnPrefix => arn_prefixes(run, 0).next().is_some(),
            Piece::SchemeSeparator => scheme_separators(run, 0).next().is_some(),
            Piece::TopLevelDomain => memchr::memchr_iter(b'.', run).any(|dot| {
                let before = run.get(..dot).unwrap_or_default();
                TOP_LEVEL_DOMAINS
                    .iter()
                    .any(|tld| before.ends_with(tld.as_bytes()))
            }),
            Piece::ResourceIdShape => may_hold_resource_id(run),
        }
    }
}

/// The prefixes of the AWS ids the resource-id pattern knows (`snap-0a1b2c3d`); its
/// regex is built from them.
const AWS_PREFIXES: [&str; 23] = [
    "i", "vol", "snap", "sg", "subnet", "vpc", "ami", "eni", "igw", "nat", "rtb", "acl",
    "eipalloc", "lt", "tgw", "pcx", "vpce", "dopt", "cgw", "vgw", "fs", "fsap", "r",
];

/// Whether a byte is the last letter of one of [`AWS_PREFIXES`], worked out from them.
// `i` counts through the prefixes, none is empty, and a byte indexes a table of 256.
#[allow(clippy::indexing_slicing)]
static ENDS_AN_AWS_PREFIX: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < AWS_PREFIXES.len() {
        let prefix = AWS_PREFIXES[i].as_bytes();
        table[prefix[prefix.len() - 1] as usize] = true;
        i += 1;
    }
    table
};

/// The letters of a Kubernetes pod name's replica-set hash and suffix (no vowels, no
/// `0` or `1`), as a regex class's contents.
const POD_HASH_ALPHABET: &str = "bcdfghjklmnpqrstvwxz2-9";

fn is_pod_hash_byte(b: u8) -> bool {
    byte_in(&POD_HASH_BYTES, b) != 0
}

/// Looked up (see [`ARN_BYTES`]).
static POD_HASH_BYTES: [u8; 256] = byte_table!(pod_hash_byte);

const fn pod_hash_byte(b: u8) -> u8 {
    let hash = matches!(b, b'2'..=b'9')
        || (b.is_ascii_lowercase() && !matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'));
    bit_if(hash, 1)
}

/// Whether `run` can hold a resource id the extractor keeps (see
/// [`Piece::ResourceIdShape`]): a whole word that the pattern matches. Where it
/// cannot, the run is not searched. A byte outside ASCII next to a candidate may
/// be a character that ends a word, so it never rules one out.
fn may_hold_resource_id(run: &[u8]) -> bool {
    let word =
        |b: Option<&u8>| b.is_some_and(|&b| byte_in(&SEGMENT_BYTES, b) & segment_byte::WORD != 0);
    memchr::memchr_iter(b'-', run).any(|dash| {
        let (before, after) = (
            run.get(..dash).unwrap_or_default(),
            run.get(dash + 1..).unwrap_or_default(),
        );
        // An AWS id: a prefix that starts a word, the dash, then exactly 8 or 17 hex
        // digits (the pattern takes 17 where there are, so 8 followed by more is no
        // whole word). A prefix's last letter first: most dashes follow none.
        let hex_word = |len: usize| {
            after
                .get(..len)
                .is_some_and(|hex| hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
                && !word(after.get(len))
        };
        let ends_a_prefix = |b: &u8| ENDS_AN_AWS_PREFIX.get(usize::from(*b)) == Some(&true);
        let aws = before.last().is_some_and(ends_a_prefix)
            && (hex_word(8) || hex_word(17))
            && AWS_PREFIXES.iter().any(|prefix| {
                before.ends_with(prefix.as_bytes())
                    && !word(
                        before
                            .len()
                            .checked_sub(prefix.len() + 1)
                            .and_then(|i| before.get(i)),
                    )
            });
        // A pod name's end: the dash before 6 to 10 letters of the hash, the dash, and
        // exactly 5 more that end the word.
        let hash = after.iter().take_while(|&&b| is_pod_hash_byte(b)).count();
        let pod = (6..=10).contains(&hash)
            && after.get(hash) == Some(&b'-')
            && after
                .get(hash + 1..hash + 6)
                .is_some_and(|suffix| suffix.iter().all(|&b| is_pod_hash_byte(b)))
            && !word(after.get(hash + 6));
        aws || pod
    })
}

/// The top-level domains a reverse-DNS id starts with (after an optional `group.`,
/// `iCloud.` or `merchant.`): its pattern is built from them.
const TOP_LEVEL_DOMAINS: [&str; 18] = [
    "com", "org", "net", "io", "dev", "app", "co", "me", "edu", "gov", "de", "uk", "fr", "jp",
    "kr", "cn", "ru", "ai",
];

/// Scans only the runs that hold all of `needs`, are at least `min_len` long and hold
/// `piece`: what a class's every match holds.
fn scan_runs(
    pattern: Pattern<'_>,
    text: &str,
    (runs, covers): (&[Run], &mut [Cover]),
    (needs, min_len, piece): RunFit,
    class: TokenClass,
    out: &mut Vec<Found>,
) {
    for (run, cover) in runs.iter().zip(covers) {
        let fits = !cover.passes_over(class)
            && run.holds & needs == needs
            && run.end - run.start >= min_len
            && piece.is_none_or(|piece| {
                text.as_bytes()
                    .get(run.start..run.end)
                    .is_some_and(|run| piece.is_in(run))
            });
        if fits {
            let before = out.len();
            scan(pattern, text, run.start..run.end, class, out);
            for found in out.get(before..).unwrap_or_default() {
                cover.note(run, found);
            }
        }
    }
}

/// The lowest class of a candidate that spans a whole run, if one was found. Every
/// candidate lies inside one run (none holds a blank), and overlaps are resolved
/// leftmost, then longest, then by class: of a run with such a candidate, only the
/// one of the lowest class is kept, and a class above it need not be looked for there.
#[derive(Debug, Clone, Copy, Default)]
struct Cover(Option<TokenClass>);

impl Cover {
    fn note(&mut self, run: &Run, found: &Found) {
        if found.start == run.start && found.end == run.end {
            self.0 = Some(self.0.map_or(found.class, |class| class.min(found.class)));
        }
    }

    /// Whether `class` need not be looked for in the run: a class above the cover's,
    /// or one whose candidates never span a run that a candidate of another class
    /// spans:
    /// - numbered tokens are digits alone, and every other class's hold a byte that
    ///   is none (a letter, `-`, `:`, `/`, `_` or `.`);
    /// - hex ids are hex digits alone (with a letter), and every other class's hold
    ///   `-`, `:`, `/`, `_` or `.`, or are digits alone;
    /// - a UUID holds none of `:`, `/`, `_`, `.` (the ARN, URL, path, vendor and
    ///   reverse-DNS classes hold one), has four dashes (a hex id and a numbered token
    ///   have none, an AWS id one) and ends with twelve hex digits (a pod name with
    ///   five letters).
    fn passes_over(self, class: TokenClass) -> bool {
        use TokenClass::{Hex, Numbered, Uuid};
        self.0
            .is_some_and(|cover| class > cover || matches!(class, Uuid | Hex | Numbered))
    }
}

/// Every opaque token of `text`, leftmost first; overlaps resolved leftmost, then
/// longest, then by the class's row in the spec table.
pub fn extract(text: &str) -> Vec<Found> {
    with_patterns(|p| extract_with(p, text))
}

thread_local! {
    /// A thread's room for a text's runs, their covers and its candidates, kept from
    /// text to text (grown anew for each, they were a hundredth of `gate`'s
    /// instructions).
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

#[derive(Default)]
struct Scratch {
    runs: Vec<Run>,
    covers: Vec<Cover>,
    candidates: Vec<Found>,
}

fn extract_with(p: &Patterns, text: &str) -> Vec<Found> {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => extract_into(p, text, &mut scratch),
        // A text extracted while another is (none is, today): room of its own.
        Err(_) => extract_into(p, text, &mut Scratch::default()),
    })
}

/// How a class's candidates are looked for.
enum Search<'p> {
    /// In each run that fits (see [`RunFit`]).
    Runs(Pattern<'p>, RunFit),
    /// The numbered class, over the text's runs with digits.
    Numbered,
    /// A keyword class over the whole text: its match spans blanks.
    Whole(Pattern<'p>),
}

/// [`extract_with`] in the room of `scratch`.
fn extract_into(p: &Patterns, text: &str, scratch: &mut Scratch) -> Vec<Found> {
    use holds::{COLON, DASH, DIGIT, DOT, SLASH, UNDERSCORE};
    use TokenClass as C;
    // Every class needs a digit, a `/`, a `.` or a keyword; much prose has none of
    // them, and what a run between blanks holds rules out most classes for it: a regex
    // runs only over the runs that could hold its class.
    let bytes = text.as_bytes();
    let Scratch {
        runs,
        covers,
        candidates,
    } = scratch;
    runs_into(bytes, runs);
    let runs: &[Run] = runs;
    covers.clear();
    covers.resize(runs.len(), Cover::default());
    let held = runs.iter().fold(0, |all, run| all | run.holds);
    let digit = held & DIGIT != 0;
    let branch = may_name_a_branch(p, bytes, runs);
    // How each class is looked for, the class, and whether the text may hold it at
    // all. A run must hold what a class's [`RunFit`] says, be that long and hold its
    // piece of text for a match to fit in it.
    use Pattern::{Keyword, Regex as Re};
    let classes: [(Search, TokenClass, bool); 8] = [
        // A run that could hold an ARN or a URL is searched for its piece (`arn:`,
        // `://`) anyway: no search of the whole text for it first.
        (
            Search::Runs(Pattern::Arn, (COLON, 8, Some(Piece::ArnPrefix))),
            C::Arn,
            held & COLON != 0,
        ),
        (
            Search::Runs(
                Pattern::Url,
                (COLON | SLASH, 4, Some(Piece::SchemeSeparator)),
            ),
            C::Url,
            held & COLON != 0,
        ),
        (
            Search::Runs(Pattern::Path, (SLASH, 2, None)),
            C::Path,
            held & SLASH != 0,
        ),
        (
            Search::Runs(Re(&p.resource_id), (DASH, 3, Some(Piece::ResourceIdShape))),
            C::ResourceId,
            digit,
        ),
        (Search::Numbered, C::Numbered, digit),
        (
            Search::Runs(Re(&p.vendor_id), (UNDERSCORE | DIGIT, 19, None)),
            C::VendorId,
            digit && held & UNDERSCORE != 0,
        ),
        (Search::Whole(Keyword(&p.branch)), C::Branch, branch),
        (
            Search::Runs(Re(&p.reverse_dns), (DOT, 6, Some(Piece::TopLevelDomain))),
            C::ReverseDns,
            held & DOT != 0,
        ),
    ];
    candidates.clear();
    for (search, class, may_hold) in classes {
        // A hex id holds a digit by its shape; a UUID is looked for only in a text
        // that holds one, as the classes below are. After the ARNs, URLs and paths,
        // that span whole the runs they stand in, which need no other search.
        if class == C::ResourceId && digit {
            hex_ids_and_uuids(text, runs, covers, candidates);
        }
        if !may_hold {
            continue;
        }
        match search {
            Search::Runs(pattern, fits) => {
                scan_runs(pattern, text, (runs, covers), fits, class, candidates);
            }
            Search::Numbered => {
                let pattern = Pattern::Numbered(runs, covers);
                scan(pattern, text, 0..text.len(), class, candidates);
            }
            Search::Whole(pattern) => scan(pattern, text, 0..text.len(), class, candidates),
        }
    }
    resolve_overlaps(candidates)
}

/// Leftmost candidates first, the longest of those starting together, then the class's
/// row in the spec table; a candidate inside one already chosen is dropped.
fn resolve_overlaps(candidates: &mut [Found]) -> Vec<Found> {
    // Candidates with the same key are the same candidate: an unstable sort gives the
    // stable one's order, without its scratch buffer.
    candidates.sort_unstable_by_key(|f| (f.start, std::cmp::Reverse(f.end - f.start), f.class));
    let mut chosen: Vec<Found> = Vec::with_capacity(candidates.len());
    let mut covered_to = 0;
    for found in candidates.iter().cloned() {
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

/// Words by Unicode word segmentation (UAX #29), counting only segments that hold a
/// letter or digit (spec §8.0): CJK text counts by its words, not by its spaces.
pub fn word_count(text: &str) -> u64 {
    use unicode_segmentation::UnicodeSegmentation;
    // No word runs across an ASCII blank (UAX #29 keeps whitespace out of words), so
    // the text is counted piece by piece: ASCII stretches by the fast count, and only
    // the blank-delimited pieces that hold other characters by segmentation. A Read
    // result's `→` gutter on every line made whole outputs take the slow path.
    let bytes = text.as_bytes();
    let is_blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut count = 0;
    let mut pos = 0;
    while let Some(rest) = bytes.get(pos..) {
        let Some(offset) = first_in_blocks(rest, |b| !b.is_ascii()) else {
            count += ascii_word_count(rest);
            break;
        };
        let other = pos + offset;
        let before = bytes.get(pos..other).unwrap_or_default();
        let piece_start = before
            .iter()
            .rposition(is_blank)
            .map_or(pos, |i| pos + i + 1);
        count += ascii_word_count(bytes.get(pos..piece_start).unwrap_or_default());
        let after = bytes.get(other..).unwrap_or_default();
        let piece_end = after
            .iter()
            .position(is_blank)
            .map_or(bytes.len(), |i| other + i);
        // Both ends sit at an ASCII byte or the text's end: character boundaries.
        count += text
            .get(piece_start..piece_end)
            .map_or(0, |piece| piece.unicode_words().count() as u64);
        pos = piece_end;
    }
    count
}

/// [`word_count`] of ASCII text: the word-boundary rules of UAX #29 that ASCII can meet
/// (letters, digits and `_` join; `:` `.` `'` join letters, `,` `;` `.` `'` join digits,
/// when the same kind follows), counting words that hold a letter or digit. Most logs
/// are ASCII, and this is many times faster than segmenting them.
///
/// Whether a word starts at a byte depends only on the two bytes before it, so the
/// count reads 64 bytes at once, as masks of their kinds beside those of the 64 before
/// ([`WordMasks`](super::word_masks::WordMasks)): a word starts at a word byte that
/// neither follows a word byte nor is joined across one middle byte to the word
/// before. Words of `_` alone, which hold no letter or digit, are taken off.
fn ascii_word_count(bytes: &[u8]) -> u64 {
    use super::word_masks::{WordMasks, BLOCK};
    let mut count = 0u64;
    let mut before = WordMasks::default();
    let mut holds_underscore = false;
    let mut count_block = |block: &[u8; BLOCK]| {
        let masks = WordMasks::of(block);
        count += u64::from(masks.starts_after(&before));
        holds_underscore |= masks.holds_underscore();
        before = masks;
    };
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    blocks.iter().for_each(&mut count_block);
    // The last bytes, then blanks: a blank is no kind of byte.
    if !rest.is_empty() {
        let mut last = [b' '; BLOCK];
        if let Some(head) = last.get_mut(..rest.len()) {
            head.copy_from_slice(rest);
        }
        count_block(&last);
    }
    // Most texts hold no `_`: they are not searched for one again.
    match holds_underscore {
        true => count - underscore_words(bytes),
        false => count,
    }
}

/// The runs of `_` with no word byte on either side: words without a letter or digit.
fn underscore_words(bytes: &[u8]) -> u64 {
    let is_word = |at: Option<&u8>| at.is_some_and(|&b| super::word_masks::is_word_byte(b));
    let mut count = 0;
    let mut after_run = 0;
    for at in memchr::memchr_iter(b'_', bytes) {
        if at < after_run {
            continue;
        }
        let rest = bytes.get(at..).unwrap_or_default();
        after_run = at + rest.iter().take_while(|&&b| b == b'_').count();
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        count += u64::from(!is_word(before) && !is_word(bytes.get(after_run)));
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`runs_into`] a new vector.
    fn runs(bytes: &[u8]) -> Vec<Run> {
        let mut out = Vec::new();
        runs_into(bytes, &mut out);
        out
    }

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
    fn words_are_unicode_words() {
        assert_eq!(word_count("  a bb\tc\n\nd  "), 4);
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("-- ... !!"), 0, "no letter or digit, no word");
        assert_eq!(word_count("é ü\tx"), 3);
        assert!(
            word_count("日本語の文章です") > 1,
            "CJK without spaces is several words"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The fast count of ASCII text is the count of Unicode word segmentation.
        #[test]
        fn ascii_text_counts_the_words_unicode_segmentation_finds(
            text in "[a-cA0-9_:.',; !-]{0,600}"
        ) {
            use unicode_segmentation::UnicodeSegmentation;
            proptest::prop_assert_eq!(word_count(&text), text.unicode_words().count() as u64);
        }
    }

    /// The densest words a block can hold, a word every other byte, counted over
    /// many blocks and from every offset.
    #[test]
    fn the_densest_text_is_counted_whole() {
        let text = "a ".repeat(1000);
        for skip in 0..4 {
            let part = text.get(skip..).unwrap();
            assert_eq!(word_count(part), 1000 - (skip as u64).div_ceil(2));
        }
        assert_eq!(
            word_count(&"7,".repeat(700)),
            1,
            "digits joined by commas are one word"
        );
    }

    /// The last place at or before `pos` where a character of `text` starts.
    fn boundary_at_or_before(text: &str, pos: usize) -> usize {
        (0..=pos.min(text.len()))
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0)
    }

    /// Text made of names, slashes, dots and the prefixes of paths, and what stands
    /// around a path: what the path and directory searches must agree on.
    fn path_like_text() -> impl proptest::strategy::Strategy<Value = String> {
        let part = proptest::prop_oneof![
            "[a-z0-9]{1,4}",
            "[/./~@+_-]{1,3}",
            "(\\.\\./|\\./|~/|/|//)",
            "[ :()\"'`=,]",
        ];
        let parts = proptest::collection::vec(part, 0..12);
        proptest::strategy::Strategy::prop_map(parts, |parts: Vec<String>| parts.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The hex ids and UUIDs of a text's segments are what scanning the whole text
        /// with the spec's two patterns keeps as whole words.
        #[test]
        fn hex_ids_and_uuids_are_what_their_patterns_keep(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "[0-9a-fA-F]{0,70}",
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                // A UUID's shape with a byte or two that is no hex digit.
                "[0-9a-fg_]{8}-[0-9a-f]{4}-[0-9a-fg]{4}-[0-9a-f]{4}-[0-9a-f_]{12}",
                "[-_g: é日。]{1,2}",
                "[ \n]",
            ], 0..8),
        ) {
            let text = parts.concat();
            let p = Patterns::new();
            let (mut by_patterns, mut by_segments) = (Vec::new(), Vec::new());
            if text.bytes().any(|b| b.is_ascii_digit()) {
                for (re, class) in [(&p.uuid, TokenClass::Uuid), (&p.hex, TokenClass::Hex)] {
                    scan(Pattern::Regex(re), &text, 0..text.len(), class, &mut by_patterns);
                }
                let runs = runs(text.as_bytes());
                let mut covers = vec![Cover::default(); runs.len()];
                hex_ids_and_uuids(&text, &runs, &mut covers, &mut by_segments);
            }
            by_patterns.sort_by_key(|f| f.start);
            proptest::prop_assert_eq!(by_segments, by_patterns, "{:?}", text);
        }

        /// A run in which the extractor keeps a resource id (a whole word the pattern
        /// matches) holds what [`may_hold_resource_id`] asks for: the prefilter never
        /// passes over one.
        #[test]
        fn a_run_with_a_resource_id_is_never_passed_over(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "(i|vol|snap|sg|subnet|vpc|ami|eni|vpce|fsap|r|x|deploy|web)",
                "-",
                "[0-9a-f]{1,18}",
                "[0-9a-f]{8}|[0-9a-f]{17}",
                "[bcdfghjklmnpqrstvwxz2-9]{1,11}",
                "[bcdfghjklmnpqrstvwxz2-9]{6,10}-[bcdfghjklmnpqrstvwxz2-9]{5}",
                "[a-z0-9]{1,3}",
                "[:/._é。]",
            ], 0..8),
        ) {
            let run = parts.concat();
            let p = Patterns::new();
            let mut kept = Vec::new();
            scan(Pattern::Regex(&p.resource_id), &run, 0..run.len(), TokenClass::ResourceId, &mut kept);
            if !kept.is_empty() {
                proptest::prop_assert!(may_hold_resource_id(run.as_bytes()), "{:?} {:?}", run, kept);
            }
        }

        /// The hand-written ARN and URL searches find what their patterns find, from
        /// anywhere.
        #[test]
        fn arn_and_url_searches_find_what_their_patterns_find(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "arn:",
                "arn(:[a-z0-9-]{0,3}){3}:[0-9a-z]{0,3}:",
                "[a-z0-9-]{0,4}:",
                "[0-9]{0,4}",
                "[A-Za-z0-9_./+=,@*-]{0,5}",
                "(https?|git\\+ssh|s3|x-1)://",
                "://",
                "[:/]{1,2}",
                r#"[ \t\n<>'`"\\\x{a0}\x{3000}é日]"#,
            ], 0..10),
            pos in 0usize..60,
        ) {
            let text = parts.concat();
            let p = Patterns::new();
            let pos = boundary_at_or_before(&text, pos);
            let by_regex = |re: &Regex| re.find_at(&text, pos).map(|m| m.start()..m.end());
            proptest::prop_assert_eq!(
                find_arn(text.as_bytes(), pos),
                by_regex(p.arn.get()),
                "{:?}",
                text
            );
            proptest::prop_assert_eq!(find_url(&text, pos), by_regex(p.url.get()), "{:?}", text);
        }

        /// The hand-written directory search finds what the directory pattern finds,
        /// one match after the other.
        #[test]
        fn directory_search_finds_what_its_pattern_finds(text in path_like_text()) {
            let by_regex: Vec<Span> = Patterns::new().directory.get()
                .find_iter(&text)
                .map(|m| m.start()..m.end())
                .collect();
            proptest::prop_assert_eq!(find_directories(&text), by_regex, "{:?}", text);
        }

        /// The hand-written path search finds what the path pattern finds, from anywhere.
        #[test]
        fn path_search_finds_what_its_pattern_finds(text in path_like_text(), pos in 0usize..40) {
            let pos = pos.min(text.len());
            let by_regex = Patterns::new().path.get().find_at(&text, pos).map(|m| m.start()..m.end());
            proptest::prop_assert_eq!(find_ascii_path(text.as_bytes(), pos), by_regex, "{:?}", text);
        }

        /// The search from the digits back finds what the numbered pattern finds, from
        /// anywhere: keywords with any case, plurals, separators, the two non-ASCII
        /// letters `(?i)` folds to ASCII, keywords inside words and ones that are
        /// prefixes of others.
        #[test]
        fn numbered_search_finds_what_its_pattern_finds(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "(revision|rev|REV|Revisions|offset|checkpoint|pr|PRs|job|txn|transaction|build|issue|run|pid|port|ticket|incident|tic\u{212A}et|run\u{17F}|re|po)",
                "[ \t#:]{1,3}",
                "[0-9]{1,4}",
                "[a-zé→\n]{1,2}",
            ], 0..10),
            pos in 0usize..60,
        ) {
            let text = parts.concat();
            let p = Patterns::new();
            let pos = boundary_at_or_before(&text, pos);
            let by_regex = p.numbered.get().captures_at(&text, pos).map(|c| {
                let (all, digits) = (c.get(0).unwrap(), c.get(1).unwrap());
                (all.start()..all.end(), digits.start()..digits.end())
            });
            let runs = runs(text.as_bytes());
            let covers = vec![Cover::default(); runs.len()];
            proptest::prop_assert_eq!(
                find_numbered(&text, (&runs, &covers), pos),
                by_regex,
                "{:?}",
                text
            );
        }
    }

    /// The runs the resource-id prefilter must pass (ids the extractor keeps: AWS ids
    /// of 8 and 17 digits, a pod name) and the ones it is there to pass over (an ARN's
    /// `snap-` with 16, a UUID, a hyphenated name, 9 digits).
    #[test]
    fn the_resource_id_prefilter_passes_kept_ids_and_no_others() {
        let p = Patterns::new();
        let kept = |run: &str| {
            let mut out = Vec::new();
            scan(
                Pattern::Regex(&p.resource_id),
                run,
                0..run.len(),
                TokenClass::ResourceId,
                &mut out,
            );
            !out.is_empty()
        };
        for run in [
            "snap-0123abcd",
            "i-0123456789abcdef0",
            "(vol-89abcdef)",
            "web-7d4b9c8f6d-x2kq9",
            "arn:aws:ec2:us-east-1:123456789012:volume/vol-0a1b2c3d",
        ] {
            assert!(kept(run), "{run}");
            assert!(may_hold_resource_id(run.as_bytes()), "{run}");
        }
        for run in [
            "arn:aws:rds:us-east-1:123456789012:snapshot:snap-6b85261d4ad14cd9",
            "2a0bd3a1-4c55-4e4b-9d56-8f2b1c3e7a90",
            "deploy-611ab7aa",
            "snap-0123abcde",
            "well-known-3",
        ] {
            assert!(!kept(run), "{run}");
            assert!(!may_hold_resource_id(run.as_bytes()), "{run}");
        }
    }

    /// The extractor as the spec reads: every class's pattern over the whole text.
    fn extract_whole_text(text: &str) -> Vec<Found> {
        let p = Patterns::new();
        let mut candidates = Vec::new();
        let all = 0..text.len();
        let bytes = text.as_bytes();
        let has_digit = bytes.iter().any(u8::is_ascii_digit);
        if has_digit {
            scan(
                Pattern::Regex(&p.uuid),
                text,
                all.clone(),
                TokenClass::Uuid,
                &mut candidates,
            );
        }
        if memchr::memmem::find(bytes, b"arn:").is_some() {
            scan(
                Pattern::Regex(&p.arn),
                text,
                all.clone(),
                TokenClass::Arn,
                &mut candidates,
            );
        }
        if memchr::memmem::find(bytes, b"://").is_some() {
            scan(
                Pattern::Regex(&p.url),
                text,
                all.clone(),
                TokenClass::Url,
                &mut candidates,
            );
        }
        if memchr::memchr(b'/', bytes).is_some() {
            scan(
                Pattern::Regex(&p.path),
                text,
                all.clone(),
                TokenClass::Path,
                &mut candidates,
            );
        }
        if has_digit {
            scan(
                Pattern::Regex(&p.resource_id),
                text,
                all.clone(),
                TokenClass::ResourceId,
                &mut candidates,
            );
            scan(
                Pattern::Keyword(&p.numbered),
                text,
                all.clone(),
                TokenClass::Numbered,
                &mut candidates,
            );
            scan(
                Pattern::Regex(&p.hex),
                text,
                all.clone(),
                TokenClass::Hex,
                &mut candidates,
            );
            if memchr::memchr(b'_', bytes).is_some() {
                scan(
                    Pattern::Regex(&p.vendor_id),
                    text,
                    all.clone(),
                    TokenClass::VendorId,
                    &mut candidates,
                );
            }
        }
        if memchr::memmem::find(bytes, b"branch").is_some()
            || memchr::memmem::find(bytes, b"origin/").is_some()
            || memchr::memmem::find(bytes, b"checkout").is_some()
            || memchr::memmem::find(bytes, b"switch").is_some()
        {
            scan(
                Pattern::Keyword(&p.branch),
                text,
                all.clone(),
                TokenClass::Branch,
                &mut candidates,
            );
        }
        if memchr::memchr(b'.', bytes).is_some() {
            scan(
                Pattern::Regex(&p.reverse_dns),
                text,
                all.clone(),
                TokenClass::ReverseDns,
                &mut candidates,
            );
        }
        resolve_overlaps(&mut candidates)
    }

    /// [`runs_into`] as a loop over every byte.
    fn runs_byte_by_byte(bytes: &[u8]) -> Vec<Run> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut held = 0u8;
        for (i, &b) in bytes.iter().enumerate() {
            let class = byte_in(&BYTE_HOLDS, b);
            if class == holds::BLANK {
                if held != 0 {
                    out.push(Run {
                        start,
                        end: i,
                        holds: held,
                    });
                }
                start = i + 1;
                held = 0;
            } else {
                held |= class;
            }
        }
        if held != 0 {
            out.push(Run {
                start,
                end: bytes.len(),
                holds: held,
            });
        }
        out
    }

    #[test]
    fn a_byte_is_held_where_the_table_gives_it_a_class() {
        for b in 0..=255u8 {
            let class = byte_in(&BYTE_HOLDS, b);
            assert_eq!(is_held(b), class != 0 && class != holds::BLANK, "{b:#x}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Runs found by searching for held bytes are the runs a byte-by-byte loop finds.
        #[test]
        fn runs_are_found_as_a_byte_by_byte_loop_finds_them(
            text in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(b" \t\n\r\x0b\x0c-_./:09aZ\xc3\xa9".to_vec()),
                proptest::num::u8::ANY,
            ], 0..200),
            long_prose in 0usize..3,
        ) {
            // Blocks of prose longer than the search's block, with runs across their edges.
            let mut bytes = b"abcdefghij klmnopqrstu vwxyz ".repeat(long_prose * 3);
            bytes.extend(&text);
            proptest::prop_assert_eq!(runs(&bytes), runs_byte_by_byte(&bytes));
        }
    }

    #[test]
    fn a_word_byte_is_an_ascii_word_character() {
        for b in 0..=255u8 {
            assert_eq!(
                is_ascii_word_byte(b),
                b.is_ascii() && is_word_char(char::from(b)),
                "{b:#x}"
            );
        }
    }

    #[test]
    fn a_cover_passes_over_the_classes_above_its_lowest_and_those_that_cannot_tie() {
        let run = Run {
            start: 4,
            end: 12,
            holds: holds::DIGIT,
        };
        let found = |start, end, class| Found { start, end, class };
        let mut cover = Cover::default();
        // A candidate inside the run, not spanning it, covers nothing.
        cover.note(&run, &found(4, 11, TokenClass::Path));
        assert!(!cover.passes_over(TokenClass::ReverseDns));
        cover.note(&run, &found(4, 12, TokenClass::Hex));
        cover.note(&run, &found(4, 12, TokenClass::Path));
        // The lowest class that spans it: a class below could still win the tie.
        for class in [TokenClass::Arn, TokenClass::Url, TokenClass::Path] {
            assert!(!cover.passes_over(class), "{class:?}");
        }
        // Above it, and the classes that span no run another class spans.
        for class in [
            TokenClass::Uuid,
            TokenClass::ResourceId,
            TokenClass::Numbered,
            TokenClass::Hex,
            TokenClass::VendorId,
            TokenClass::ReverseDns,
        ] {
            assert!(cover.passes_over(class), "{class:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Scanning only the runs between blanks that could hold a class finds what
        /// scanning the whole text finds.
        #[test]
        fn runs_find_what_the_whole_text_holds(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "[0-9a-f]{6,40}",
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                "(\\.\\./|~/|/|a/)?[a-zé日0-9_.+-]{1,6}(/[a-z0-9_.]{1,6}){0,3}(\\.(rs|ts|md))?",
                "https?://[a-z.]{1,8}/[a-z0-9/?=&.]{0,12}",
                "arn:aws:[a-z0-9]{1,4}:[a-z0-9-]{0,9}:[0-9]{0,12}:[a-z/:0-9_-]{1,12}",
                "(snap|i|vol)-[0-9a-f]{8,17}",
                "[a-z]{2,6}(-[a-z0-9]{1,4})?-[bcdfghjklmnpqrstvwxz2-9]{5,11}-[bcdfghjklmnpqrstvwxz2-9]{4,6}",
                "(revision|PR|port|Run) ?[#:]? ?[0-9]{1,5}",
                "(checkout -[bB]|switch\t-[cC]|--branch=?|origin/|branch) ?[a-z0-9/_-]{2,12}",
                "[a-z]{2,5}(_[a-z]{2,4})?_[A-Za-z0-9]{14,20}",
                "(com|io|dev)\\.[a-z-]{1,6}\\.[a-z]{1,6}",
                "[a-zA-Z→。é]{1,8}",
                "[ \t\n.,:;()'\"`…\u{a0}\u{3000}-]{1,3}",
            ], 0..24)
        ) {
            let text: String = parts.concat();
            proptest::prop_assert_eq!(extract(&text), extract_whole_text(&text), "{:?}", text);
        }
    }
}

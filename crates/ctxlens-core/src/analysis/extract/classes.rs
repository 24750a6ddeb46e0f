//! What each class of opaque token is: the rules that find a URL, an ARN, a path, a
//! hex id or UUID, a numbered id, and where a candidate starts and ends (spec section
//! 2). The extractor in `mod.rs` runs them over the runs the prefilter finds.

use super::*;

/// Every match of the directory pattern in `text`, one after the other (as a regex's
/// `find_iter` gives them).
pub(super) fn find_directories(text: &str) -> Vec<Span> {
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
pub(super) fn find_path(text: &str, pos: usize) -> Option<Span> {
    match text.as_bytes().get(pos..) {
        Some(rest) if rest.is_ascii() => find_ascii_path(text.as_bytes(), pos),
        _ => with_patterns(|p| p.path.get().find_at(text, pos).map(|m| m.start()..m.end())),
    }
}

/// Sentence punctuation (ASCII and full-width) and quotes never end a token.
pub(super) fn is_trailing_punctuation(c: char) -> bool {
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

pub(super) fn opening_of(close: char) -> Option<char> {
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
pub(super) fn trim_trailing(text: &str, start: usize, mut end: usize, class: TokenClass) -> usize {
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
        // An IPv6 address may end with `::`; no other host holds a colon.
        let colon_of_host = class == TokenClass::Host && last == ':';
        if (is_trailing_punctuation(last) && !colon_of_host) || unopened || trailing_slash {
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
pub(super) fn cut_end(text: &str, start: usize, end: usize, class: TokenClass) -> usize {
    let candidate = &text[start..end];
    let bytes = candidate.as_bytes();
    // Every cut but the dots and grep's suffix is at a character outside ASCII: most
    // candidates have none, and are not read a character at a time for them.
    let ascii = candidate.is_ascii();
    // A route's catch-all segment (`[...slug]`) is no elision.
    let dots = memchr::memchr_iter(b'.', bytes).find(|&i| {
        bytes.get(i..i + 3) == Some(b"...")
            && (i == 0 || bytes.get(i - 1) != Some(&b'[') && bytes.get(i - 1) != Some(&b'.'))
    });
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
pub(super) fn grep_context_suffix(path: &str) -> Option<usize> {
    let body = path.strip_suffix('-')?;
    let dash = body.rfind('-')?;
    let digits = &body[dash + 1..];
    let is_line = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    (is_line && has_file_extension(&body[..dash])).then_some(dash)
}

/// Paths every machine has: never an identifier of the work.
pub(super) fn is_system_path(path: &str) -> bool {
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
pub(super) fn line_before(text: &str, start: usize) -> &str {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..start]
}

/// Whether the line around `start` imports a module (`import … from '~/x'`).
pub(super) fn in_import(text: &str, start: usize) -> bool {
    let line = line_before(text, start);
    let trimmed = line.trim_start();
    trimmed.starts_with("import ")
        || trimmed.starts_with("export ")
        || line.contains(" from ")
        || line.contains("require(")
        || line.contains("import(")
}

/// Whether the dotted name at `start..end` is a Python module (`from app.agents.config
/// import X`, `import app.agents.config`, `python -m app.cli.main`), not a reverse-DNS
/// id.
pub(super) fn is_python_module(text: &str, start: usize, end: usize) -> bool {
    let line = line_before(text, start);
    let trimmed = line.trim_start();
    trimmed.starts_with("from ")
        || trimmed.starts_with("import ")
        || line.ends_with("-m ")
        || text
            .get(end..)
            .is_some_and(|rest| rest.starts_with(" import "))
}

/// Whether `start` lies in a diff's file header (`--- a/x`, `+++ b/x`,
/// `diff --git a/x b/x`), where `a/` and `b/` are prefixes, not folders.
pub(super) fn in_diff_header(text: &str, start: usize) -> bool {
    let line = line_before(text, start);
    line.starts_with("diff --git ") || line == "--- " || line == "+++ "
}

/// Checks a path candidate against the rules (docs/transcripts.md) that look at its neighbours; returns
/// the start to use (a diff's `a/` or `b/` is not part of the path), or `None`.
pub(super) fn path_start(text: &str, start: usize, end: usize) -> Option<usize> {
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

pub(super) fn shape_ok(candidate: &str, class: TokenClass) -> bool {
    match class {
        TokenClass::Hex => {
            candidate.bytes().any(|b| b.is_ascii_digit())
                && candidate.bytes().any(|b| b.is_ascii_alphabetic())
        }
        TokenClass::Path => {
            let has_alnum = candidate.chars().any(char::is_alphanumeric);
            candidate.contains('/')
                && has_alnum
                && (candidate.starts_with('/')
                    || has_file_extension(candidate)
                    || is_program_in_bin(candidate))
                && !is_placeholder_path(candidate)
        }
        TokenClass::Repository => candidate.split_once('/').is_some_and(|(owner, repo)| {
            !owner.is_empty() && !repo.is_empty() && !repo.contains('/')
        }),
        // `nginx` and `docker` are every machine's; `app-worker` and `api@2` are the work's.
        TokenClass::Service => {
            let unit = candidate.strip_suffix(".service").unwrap_or(candidate);
            unit.len() >= 3
                && unit
                    .bytes()
                    .any(|b| matches!(b, b'-' | b'_' | b'@' | b'.') || b.is_ascii_digit())
        }
        // A URL with a template placeholder in it (`app://{connector_id}`) names no
        // resource yet.
        TokenClass::Url => !candidate.contains(['{', '}', '<', '>']),
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
        TokenClass::Host if candidate.contains(':') => is_ipv6_to_keep(candidate),
        TokenClass::Host => is_host_to_keep(candidate),
        TokenClass::VendorId => {
            let (_, id) = candidate.rsplit_once('_').unwrap_or(("", candidate));
            id.bytes().any(|b| b.is_ascii_digit()) && id.bytes().any(|b| b.is_ascii_alphabetic())
        }
        _ => true,
    }
}

/// A host that names one machine of the work: not loopback, the unspecified address,
/// a netmask, nor a forge everyone pushes to (`git@github.com`).
pub(crate) fn is_host_to_keep(candidate: &str) -> bool {
    const EVERYONE_S: [&str; 5] = [
        "localhost",
        "github.com",
        "gitlab.com",
        "bitbucket.org",
        "ssh.dev.azure.com",
    ];
    candidate.len() >= 3
        && !candidate.starts_with("127.")
        && !candidate.starts_with("0.")
        && !candidate.starts_with("255.")
        && !EVERYONE_S.contains(&candidate.to_ascii_lowercase().as_str())
}

/// An IPv6 address of one machine: it parses, is not loopback nor unspecified, holds
/// a digit and a group of three or more digits (`a[1::2]` is a slice, `fe80::1` an
/// address).
fn is_ipv6_to_keep(candidate: &str) -> bool {
    let Ok(address) = candidate.parse::<core::net::Ipv6Addr>() else {
        return false;
    };
    // Node writes loopback and a port as `::1:5432`.
    let loopback_and_port = candidate
        .rsplit_once(':')
        .and_then(|(host, _)| host.parse::<core::net::Ipv6Addr>().ok())
        .is_some_and(|host| host.is_loopback() || host.is_unspecified());
    !address.is_loopback()
        && !address.is_unspecified()
        && !loopback_and_port
        && candidate.bytes().any(|b| b.is_ascii_digit())
        && candidate.split(':').any(|group| group.len() >= 3)
}

/// A program in a `bin` folder three or more parts deep (`venv/bin/activate`,
/// `node_modules/.bin/tsc`): a file without an extension that a command runs.
fn is_program_in_bin(candidate: &str) -> bool {
    let mut parts = candidate.trim_start_matches("./").rsplit('/');
    let (program, folder) = (parts.next(), parts.next());
    program.is_some_and(|p| !p.is_empty())
        && matches!(folder, Some("bin" | ".bin"))
        && parts.next().is_some_and(|p| !p.is_empty())
}

/// The path of an example, not of a file: `/path/to/foo.ts`, `path/to/x`.
pub(super) fn is_placeholder_path(candidate: &str) -> bool {
    let bare = candidate.trim_start_matches("./").trim_start_matches('/');
    bare.get(..8)
        .is_some_and(|head| head.eq_ignore_ascii_case("path/to/"))
}

pub(super) fn is_aws_id(candidate: &str) -> bool {
    candidate.split_once('-').is_some_and(|(_, rest)| {
        matches!(rest.len(), 8 | 17) && rest.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// A rejected candidate longer than this is skipped whole: it is a blob (base64,
/// minified code), and a token starting inside it would be a fragment of it. Searching
/// again after every `+` of a base64 blob re-read the blob's rest each time.
pub(super) const LONGEST_CANDIDATE_RETRIED: usize = 1024;

/// Where the next search may start after a rejected candidate `[from, to)`: the first
/// position whose preceding character lets a token begin. Stepping one character at a
/// time instead would make a long run of token characters (base64, say) quadratic.
pub(super) fn next_start(text: &str, from: usize, to: usize, class: TokenClass) -> usize {
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
pub(super) fn has_file_extension(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .and_then(|file| file.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && is_extension(ext))
}

pub(super) fn is_extension(ext: &str) -> bool {
    (1..=10).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic())
}

/// How a class's candidates are found: its regex, or a hand-written search that finds
/// what the regex finds (leftmost, then longest) without a regex search's cost: for the
/// two classes of plain shape that most runs are tried for, and for the numbered class,
/// whose keywords give a regex no literal to skip to.
#[derive(Clone, Copy)]
pub(super) enum Pattern<'p> {
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

impl Pattern<'_> {
    /// Whether a match is a keyword, then the candidate: the keyword must start a word.
    pub(super) fn after_keyword(self) -> bool {
        matches!(self, Pattern::Keyword(_) | Pattern::Numbered(..))
    }

    /// The first match in `haystack` at or after `pos`, and the candidate in it.
    pub(super) fn find_at(self, haystack: &str, pos: usize) -> Option<(Span, Span)> {
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
pub(super) fn find_arn(bytes: &[u8], pos: usize) -> Option<Span> {
    arn_prefixes(bytes, pos).find_map(|at| arn_end(bytes, at).map(|end| at..end))
}

/// Where `arn:` stands in `bytes` at or after `pos`, in order: found by its colon, for
/// the short runs searched hold few (a substring search costs more to start than
/// that).
pub(super) fn arn_prefixes(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    colons(bytes, pos).filter_map(move |colon| {
        let start = colon.checked_sub(3).filter(|&start| start >= pos)?;
        (bytes.get(start..colon) == Some(b"arn")).then_some(start)
    })
}

/// Where `://` stands in `bytes` at or after `pos`, in order (see [`arn_prefixes`]).
pub(super) fn scheme_separators(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    colons(bytes, pos).filter(move |&colon| bytes.get(colon + 1..colon + 3) == Some(b"//"))
}

pub(super) fn colons(bytes: &[u8], pos: usize) -> impl Iterator<Item = usize> + '_ {
    let rest = bytes.get(pos..).unwrap_or_default();
    memchr::memchr_iter(b':', rest).map(move |i| pos + i)
}

/// What a byte is to the ARN pattern's parts ([`ARN_BYTES`]).
pub(super) mod arn_byte {
    /// `[a-z0-9-]`: the partition, the service and the region.
    pub(crate) const FIELD: u8 = 1;
    /// `[0-9]`: the account.
    pub(crate) const DIGIT: u8 = 2;
    /// `[A-Za-z0-9_./:+=,@*-]`: the resource.
    pub(crate) const RESOURCE: u8 = 4;

    pub(crate) const fn of(b: u8) -> u8 {
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
pub(super) static ARN_BYTES: [u8; 256] = byte_table!(arn_byte::of);

/// Where an ARN that starts at `at` (with `arn:`) ends, if one does.
pub(super) fn arn_end(bytes: &[u8], at: usize) -> Option<usize> {
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
pub(super) fn find_url(text: &str, pos: usize) -> Option<Span> {
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
pub(super) mod url_byte {
    /// `[a-zA-Z0-9+.-]`: the scheme.
    pub(crate) const SCHEME: u8 = 1;
    /// What goes on after `://` ([`super::url_goes_on`]).
    pub(crate) const TAIL: u8 = 2;

    pub(crate) const fn of(b: u8) -> u8 {
        let scheme = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-');
        let tail = b.is_ascii() && super::url_goes_on(b as char);
        super::bit_if(scheme, SCHEME) | super::bit_if(tail, TAIL)
    }
}

/// Whether a URL goes on over `c` after its `://`: no whitespace, nor `<>'`"\`, nor a
/// control character (a terminal colour code after a URL a tool printed is no part of
/// it).
pub(super) const fn url_goes_on(c: char) -> bool {
    !c.is_whitespace()
        && !c.is_ascii_control()
        && !matches!(c, '<' | '>' | '\'' | '`' | '"' | '\\' | '\u{80}'..='\u{9f}')
}

/// Looked up (see [`ARN_BYTES`]).
pub(super) static URL_BYTES: [u8; 256] = byte_table!(url_byte::of);

/// The hex ids (`[0-9a-fA-F]{7,64}`) and UUIDs (8-4-4-4-12 hex digits) of the runs
/// that could hold them, as searching for the patterns and keeping the whole words
/// finds them. Both are made of word characters alone, so one that is a whole word is
/// a whole word segment of its run (see [`word_segments`]): a UUID exactly, or 7 to 64
/// hex digits, with a digit and a letter (their shape); a longer stretch of hex
/// digits, or one glued to other word characters, holds none. One pass over a run's
/// segments, not a search for each pattern and a check of each candidate.
pub(super) fn hex_ids_and_uuids(
    text: &str,
    runs: &[Run],
    covers: &mut [Cover],
    out: &mut Vec<Found>,
) {
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

pub(super) const UUID_LEN: usize = 36;

/// Whether `word` is a UUID: 8-4-4-4-12 hex digits.
pub(super) fn is_uuid(word: &[u8]) -> bool {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    // No dash is a hex digit: with the four dashes in place, 32 hex digits are the
    // other 32 bytes (counted in one loop the compiler works on many bytes at once).
    word.len() == UUID_LEN
        && DASHES.iter().all(|&i| word.get(i) == Some(&b'-'))
        && word.iter().filter(|b| b.is_ascii_hexdigit()).count() == UUID_LEN - DASHES.len()
}

/// A byte of a path's name in the path pattern, `[\p{L}\p{N}_.@+~\[\]-]`, in ASCII:
/// looked up (see [`ARN_BYTES`]).
pub(super) fn is_path_name_byte(b: u8) -> bool {
    byte_in(&PATH_NAME_BYTES, b) != 0
}

pub(super) static PATH_NAME_BYTES: [u8; 256] = byte_table!(path_name_byte);

pub(super) const fn path_name_byte(b: u8) -> u8 {
    let name = b.is_ascii_alphanumeric()
        || matches!(b, b'_' | b'.' | b'@' | b'+' | b'~' | b'-' | b'[' | b']');
    bit_if(name, 1)
}

/// The first match of the path pattern
/// `(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~\[\]-]+/)+[\p{L}\p{N}_.@+~\[\]-]*` at or after `pos` in
/// ASCII text, as the regex finds it (leftmost, then greedy): its folders
/// ([`find_ascii_folders`]), then a name.
pub(super) fn find_ascii_path(bytes: &[u8], pos: usize) -> Option<Span> {
    find_ascii_folders(bytes, pos).map(|folders| folders.start..name_end(bytes, folders.end))
}

/// Where the run of path name bytes that starts at `from` ends.
pub(super) fn name_end(bytes: &[u8], from: usize) -> usize {
    from + bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&b| is_path_name_byte(b))
        .count()
}

/// The first match of the directory pattern `(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~\[\]-]+/)+`
/// at or after `pos` in ASCII text, as the regex finds it (leftmost, then greedy): where
/// the path pattern's match starts, up to the end of its last folder. Every prefix but
/// `/` is made of name bytes and a `/`, so it is one more folder of the same match: a
/// match starts at a `/` with a folder after it, or at a name byte with a `/` after its
/// name, and runs over every folder after that.
pub(super) fn find_ascii_folders(bytes: &[u8], pos: usize) -> Option<Span> {
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
pub(super) const NUMBER_KEYWORDS: [&str; 15] = [
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
pub(super) fn find_numbered(
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
pub(super) fn keyword_start(text: &str, end: usize) -> Option<usize> {
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

/// A folder or file name of a web framework's route: `[id]`, `[...slug]`,
/// `[[...slug]]`, optionally with an extension (`[id].tsx`). Brackets anywhere else in
/// a path candidate are the text's, not the path's (`arr[i]/2`, `[src/a.rs]`).
pub(crate) fn is_route_segment(segment: &str) -> bool {
    let (name, _extension) = match segment.find("].") {
        Some(at) => segment.split_at(at + 1),
        None => (segment, ""),
    };
    let inner = name
        .strip_prefix("[[")
        .and_then(|n| n.strip_suffix("]]"))
        .or_else(|| name.strip_prefix('[').and_then(|n| n.strip_suffix(']')));
    let inner = inner.map(|n| n.strip_prefix("...").unwrap_or(n));
    // `[a-z]` and `[0-9]` are a pattern's ranges; a route's parameter is a name.
    let range = |n: &str| n.len() == 3 && n.as_bytes().get(1) == Some(&b'-');
    inner.is_some_and(|n| {
        n.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && !range(n)
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
    })
}

/// How many leading `[` of a path candidate are the text's: those before a first part
/// that is no route segment (`[src/a.rs]`). A first part of brackets alone (`[/bold]`,
/// a markup's closing tag) leaves no path: all of it.
pub(crate) fn leading_brackets(candidate: &str) -> usize {
    let first = candidate.split('/').next().unwrap_or_default();
    if first.starts_with('[') && !is_route_segment(first) {
        let brackets = first.len() - first.trim_start_matches('[').len();
        if brackets == first.len() {
            return candidate.len();
        }
        brackets
    } else {
        0
    }
}

/// Whether every part of a path that holds a bracket is a route segment.
pub(crate) fn brackets_are_routes(path: &str) -> bool {
    path.split('/')
        .filter(|part| part.contains(['[', ']']))
        .all(is_route_segment)
}

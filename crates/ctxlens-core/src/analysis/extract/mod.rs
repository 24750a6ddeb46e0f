//! The opaque-token extractor (docs/signals.md) and the whole-word rules it shares with the
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

mod classes;
mod prefilter;
#[cfg(test)]
mod tests;
mod word_masks;
mod words;

use classes::*;
pub(crate) use classes::{is_host_to_keep, leading_brackets};
use prefilter::*;
use words::*;
pub(crate) use words::{is_ascii_word_byte, is_word_char, word_runs_at, word_runs_from_last};
pub use words::{is_whole_word, word_count};

/// One token found in a text: byte span and class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Byte offset of its first byte.
    pub start: usize,
    /// Byte offset past its last byte.
    pub end: usize,
    /// Its class.
    pub class: TokenClass,
}

impl Found {
    /// The token in `text`, the text it was found in.
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
    /// Names may hold letters of any script (docs/transcripts.md); [`find_ascii_path`] follows
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
    /// An IPv4 address: four octets of 0 to 255.
    ipv4: LazyRegex,
    /// The host of `user@host` after `ssh`, `scp`, `rsync` or `sftp` on one line.
    remote_host: LazyRegex,
    /// The commands `remote_host` follows, searched for once a text holds an `@`.
    remote_words: [memchr::memmem::Finder<'static>; 3],
    /// What may be an IPv6 address; [`shape_ok`] parses it.
    ipv6: LazyRegex,
    /// A host name before `:port` whose last label is a network's, not a file
    /// extension's (`db.internal:5432`, not `main.rs:12`): the host is the candidate.
    host_port: LazyRegex,
    /// The `owner/repo` a `gh` command names (`--repo`, `-R`, `gh repo clone`,
    /// `gh api repos/...`): the slug is the candidate.
    repository: LazyRegex,
    /// The unit a `systemctl` verb or `journalctl -u` names.
    service: LazyRegex,
    /// `branch`, `origin/` and `git`, which a text is searched for before the branch
    /// class's regex runs (see [`may_name_a_branch`]). Built once a thread.
    branch_words: [memchr::memmem::Finder<'static>; 3],
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
            path: lazy_regex!(
                r"(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~\[\]-]+/)+[\p{L}\p{N}_.@+~\[\]-]*"
            ),
            directory: lazy_regex!(r"(?:\.\.?/|~/|/)?(?:[\p{L}\p{N}_.@+~\[\]-]+/)+"),
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
                r"(?:git[ \t]+(?:checkout|switch|merge|rebase)[ \t]+(?:-[a-zA-Z-]+[ \t]+)*|git[ \t]+push[ \t]+(?:-[a-zA-Z-]+[ \t]+)*origin[ \t]+|checkout[ \t]+-[bB][ \t]+|switch[ \t]+-[cC][ \t]+|--branch[= \t][ \t]*|branch[ \t]+(?:-[a-zA-Z]+[ \t]+)*|origin/)([A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9])"
            ),
            vendor_id: lazy_regex!(r"[a-z][a-z0-9]{1,11}(?:_[a-z]{2,8})?_[0-9A-Za-z]{16,}"),
            reverse_dns: lazy_regex!(format!(
                r"(?:(?:group|iCloud|merchant)\.)?(?:{})\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+",
                TOP_LEVEL_DOMAINS.join("|")
            )),
            ipv4: lazy_regex!(format!(r"{OCTET}(?:\.{OCTET}){{3}}")),
            remote_host: lazy_regex!(
                r"(?:ssh|scp|rsync|sftp)[ \t](?:[^\n;|&@]*[ \t])?[A-Za-z0-9._-]+@([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
            ),
            ipv6: lazy_regex!(r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}"),
            host_port: lazy_regex!(format!(
                r"({LABEL}(?:\.{LABEL})*\.(?:{})):[0-9]{{2,5}}",
                HOST_SUFFIXES.join("|")
            )),
            repository: lazy_regex!(
                r"gh[ \t](?:[^\n;|&]*?[ \t])?(?:(?:-R|--repo)(?:[ \t]+|=)|/?repos/|(?:clone|view|fork|sync|archive|rename|set-default)[ \t]+)([A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]*[A-Za-z0-9_])"
            ),
            service: lazy_regex!(
                r"(?:systemctl[ \t]+(?:(?:--?[a-zA-Z-]+)[ \t]+)*(?:start|stop|restart|reload|status|enable|disable|is-active|is-enabled|is-failed|show|cat|kill|mask|unmask|try-restart|reload-or-restart)[ \t]+(?:(?:--?[a-zA-Z-]+)[ \t]+)*|journalctl[ \t]+(?:[^\n;|&]*?[ \t])?(?:-u[ \t]*|--unit[= \t]+))([A-Za-z0-9][A-Za-z0-9@_.-]*[A-Za-z0-9])"
            ),
            remote_words: [
                memchr::memmem::Finder::new("ssh"),
                memchr::memmem::Finder::new("scp"),
                memchr::memmem::Finder::new("rsync"),
            ],
            branch_words: [
                memchr::memmem::Finder::new("branch"),
                memchr::memmem::Finder::new("origin/"),
                memchr::memmem::Finder::new("git"),
            ],
        }
    }
}

/// Whether the branch class's regex may match in a text with these runs: every match
/// holds `git` (`git merge X`, `git push origin X`), `branch` (`branch X`,
/// `--branch X`), a run `-b` or `-B` (after `checkout`),
/// `-c` or `-C` (after `switch`), each a run between blanks, or `origin/`, which holds
/// a `/` (so a text without one holds none). A search for the four words (`checkout`,
/// `switch` too) would read every text.
fn may_name_a_branch(p: &Patterns, text: &[u8], runs: &[Run]) -> bool {
    let option = |run: &Run| {
        let bytes = text.get(run.start..run.end).unwrap_or_default();
        matches!(bytes, b"-b" | b"-B" | b"-c" | b"-C")
    };
    let [branch, origin, git] = &p.branch_words;
    runs.iter().any(option)
        || branch.find(text).is_some()
        || git.find(text).is_some()
        || runs.iter().any(|run| run.holds & holds::SLASH != 0) && origin.find(text).is_some()
}

/// An octet of an IPv4 address, 0 to 255, with no leading zero.
const OCTET: &str = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";

/// A label of a host name.
const LABEL: &str = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";

/// The last labels of host names that a `:port` follows, and no file extension a
/// `file:line` reference ends with (`.rs`, `.py`, `.sh`, `.md` are top-level domains).
const HOST_SUFFIXES: [&str; 16] = [
    "com",
    "net",
    "org",
    "io",
    "dev",
    "app",
    "cloud",
    "internal",
    "local",
    "lan",
    "ai",
    "co",
    "tech",
    "xyz",
    "site",
    "localdomain",
];

/// Whether the repository regex may match: every match holds `gh` and a blank.
fn may_name_a_repository(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"gh ").is_some() || memchr::memmem::find(text, b"gh\t").is_some()
}

/// Whether the service regex may match: every match holds `systemctl` or `journalctl`.
fn may_name_a_service(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"systemctl").is_some()
        || memchr::memmem::find(text, b"journalctl").is_some()
}

/// Whether the remote-host regex may match: every match holds an `@` and `ssh`, `scp`
/// or `rsync` (`sftp` holds `ftp`, not `ssh`: searched apart, after the rest).
fn may_name_a_remote(p: &Patterns, text: &[u8]) -> bool {
    memchr::memchr(b'@', text).is_some()
        && (p.remote_words.iter().any(|w| w.find(text).is_some())
            || memchr::memmem::find(text, b"sftp").is_some())
}

thread_local! {
    static PATTERNS: Patterns = Patterns::new();
}

fn with_patterns<T>(f: impl FnOnce(&Patterns) -> T) -> T {
    PATTERNS.with(f)
}

type Span = std::ops::Range<usize>;

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
        if class == TokenClass::Path {
            start += leading_brackets(&text[start..m.end]);
        }
        let cut = cut_end(text, start, m.end, class);
        let end = trim_trailing(text, start, cut, class);
        // A grep context suffix (`-88-`) or a diff prefix (`a/`) is cut off, and the
        // whole-word rule looks at the text around what was cut.
        let grep_cut = cut < m.end && text[cut..m.end].starts_with('-');
        let (word_start, word_end) = (m.start, if grep_cut { m.end } else { end });
        let mut ok = end > start;
        if ok && class == TokenClass::Path {
            ok = brackets_are_routes(&text[start..end]);
        }
        if ok && class == TokenClass::Path {
            match path_start(text, start, end) {
                Some(s) => start = s,
                None => ok = false,
            }
        }
        if ok && class == TokenClass::ReverseDns && is_python_module(text, start, end) {
            ok = false;
        }
        // The keyword starts a word.
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
/// without the slash (docs/transcripts.md, "directories used as a tool's path argument").
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
            && brackets_are_routes(dir)
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

/// A tool argument that names a directory or file by itself (`{"path": "src/api"}`,
/// `{"file_path": "overview.md"}`), as a path token; `None` for anything else.
pub(crate) fn path_argument(value: &str) -> Option<&str> {
    let value = value.strip_suffix('/').unwrap_or(value);
    if let Some(file) = bare_file_name(value) {
        return Some(file);
    }
    let plausible = value.contains('/')
        && !value.contains("://")
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
        && value.chars().any(char::is_alphanumeric)
        && find_path(value, 0).is_some_and(|m| m == (0..value.len()))
        && brackets_are_routes(value)
        && !is_system_path(value)
        && !value.starts_with("@/");
    plausible.then_some(value)
}

/// A file name without a folder and with an extension (`overview.md`,
/// `.commitlintrc.yml`), as a tool argument names a file of the cwd.
pub(crate) fn bare_file_name(value: &str) -> Option<&str> {
    // `main..HEAD` is a range of commits.
    let bare = !value.contains('/')
        && !value.contains("..")
        && has_file_extension(value)
        && value.bytes().all(is_path_name_byte)
        && !value.contains(['[', ']']);
    bare.then_some(value)
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
    let remote = may_name_a_remote(p, bytes);
    let repository = may_name_a_repository(bytes);
    let service = may_name_a_service(bytes);
    // How each class is looked for, the class, and whether the text may hold it at
    // all. A run must hold what a class's [`RunFit`] says, be that long and hold its
    // piece of text for a match to fit in it.
    use Pattern::{Keyword, Regex as Re};
    let classes: [(Search, TokenClass, bool); 14] = [
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
        (
            Search::Runs(Re(&p.ipv4), (DOT | DIGIT, 7, None)),
            C::Host,
            digit && held & DOT != 0,
        ),
        (Search::Whole(Keyword(&p.remote_host)), C::Host, remote),
        (
            Search::Runs(Re(&p.ipv6), (COLON, 5, Some(Piece::Ipv6Shape))),
            C::Host,
            held & COLON != 0,
        ),
        (
            Search::Runs(Keyword(&p.host_port), (DOT | COLON | DIGIT, 7, None)),
            C::Host,
            held & COLON != 0 && digit,
        ),
        (
            Search::Whole(Keyword(&p.repository)),
            C::Repository,
            repository,
        ),
        (Search::Whole(Keyword(&p.service)), C::Service, service),
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
pub(crate) fn contains_whole_word(text: &str, token: &str, class: TokenClass) -> bool {
    WholeWord::new(token, class).is_in(text)
}

/// A whole-word search for one token, built once and run over many texts.
pub(crate) struct WholeWord<'t> {
    finder: memchr::memmem::Finder<'t>,
    len: usize,
    class: TokenClass,
}

impl<'t> WholeWord<'t> {
    /// A search for `token`, of class `class` (which says what counts as a word's edge).
    pub(crate) fn new(token: &'t str, class: TokenClass) -> Self {
        WholeWord {
            finder: memchr::memmem::Finder::new(token.as_bytes()),
            len: token.len(),
            class,
        }
    }

    /// `token` occurs in `text` as a whole word.
    pub(crate) fn is_in(&self, text: &str) -> bool {
        self.len > 0
            && self
                .finder
                .find_iter(text.as_bytes())
                .any(|start| is_whole_word(text, start, start + self.len, self.class))
    }
}

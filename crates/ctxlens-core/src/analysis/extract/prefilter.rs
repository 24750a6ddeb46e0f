//! The fast path: a text is split into runs between blanks, and only the runs that hold
//! a byte some class needs are handed to the class rules; byte tables say what each
//! byte may start or hold. `tests.rs` holds the extractor to a search of the whole
//! text (`extract_whole_text`), so the prefilter can only make it faster, never
//! different.

use super::*;

/// What a run of text between blanks holds that some class's pattern needs.
pub(super) mod holds {
    pub(crate) const DIGIT: u8 = 1;
    pub(crate) const SLASH: u8 = 2;
    pub(crate) const DASH: u8 = 4;
    pub(crate) const UNDERSCORE: u8 = 8;
    pub(crate) const DOT: u8 = 16;
    pub(crate) const COLON: u8 = 32;
    /// A byte no pattern but the keyword classes matches: a run ends there.
    pub(crate) const BLANK: u8 = 128;

    pub(crate) const fn of(b: u8) -> u8 {
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

pub(super) static BYTE_HOLDS: [u8; 256] = byte_table!(holds::of);

/// A byte's entry in a table of all 256.
pub(super) fn byte_in(table: &[u8; 256], b: u8) -> u8 {
    table.get(usize::from(b)).copied().unwrap_or(0)
}

/// A maximal run of text without ASCII blanks, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) holds: u8,
}

/// Whether a byte is one a class needs (a digit, `/`, `-`, `_`, `.` or `:`: the bytes
/// [`BYTE_HOLDS`] gives a class other than [`holds::BLANK`]). Worked out, not looked
/// up, so that a block of bytes is asked at once.
pub(super) fn is_held(b: u8) -> bool {
    b.wrapping_sub(b'-') <= b':' - b'-' || b == b'_'
}

/// Where the first byte that `is` holds for stands, looked for a block at a time: a
/// block is asked whole (many bytes at once), and only a block that holds one is read
/// byte by byte. For searches whose bytes are rare in the text.
pub(super) fn first_in_blocks(bytes: &[u8], is: impl Fn(u8) -> bool) -> Option<usize> {
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
pub(super) fn runs_into(bytes: &[u8], out: &mut Vec<Run>) {
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
pub(super) fn run_end(bytes: &[u8], from: usize) -> (usize, u8) {
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
pub(super) fn end_in(chunk: &[u8], at: usize, mut held: u8) -> (usize, u8) {
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
pub(super) type RunFit = (u8, usize, Option<Piece>);

/// A piece of text that every match of a class holds.
#[derive(Clone, Copy)]
pub(super) enum Piece {
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
    /// What every IPv6 address holds: `::`, or seven colons.
    Ipv6Shape,
}

impl Piece {
    pub(super) fn is_in(self, run: &[u8]) -> bool {
        match self {
            Piece::ArnPrefix => arn_prefixes(run, 0).next().is_some(),
            Piece::SchemeSeparator => scheme_separators(run, 0).next().is_some(),
            Piece::Ipv6Shape => {
                memchr::memmem::find(run, b"::").is_some()
                    || memchr::memchr_iter(b':', run).count() >= 7
            }
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
pub(super) const AWS_PREFIXES: [&str; 23] = [
    "i", "vol", "snap", "sg", "subnet", "vpc", "ami", "eni", "igw", "nat", "rtb", "acl",
    "eipalloc", "lt", "tgw", "pcx", "vpce", "dopt", "cgw", "vgw", "fs", "fsap", "r",
];

/// Whether a byte is the last letter of one of [`AWS_PREFIXES`], worked out from them.
// `i` counts through the prefixes, none is empty, and a byte indexes a table of 256.
#[allow(clippy::indexing_slicing)]
pub(super) static ENDS_AN_AWS_PREFIX: [bool; 256] = {
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
pub(super) const POD_HASH_ALPHABET: &str = "bcdfghjklmnpqrstvwxz2-9";

pub(super) fn is_pod_hash_byte(b: u8) -> bool {
    byte_in(&POD_HASH_BYTES, b) != 0
}

/// Looked up (see [`ARN_BYTES`]).
pub(super) static POD_HASH_BYTES: [u8; 256] = byte_table!(pod_hash_byte);

pub(super) const fn pod_hash_byte(b: u8) -> u8 {
    let hash = matches!(b, b'2'..=b'9')
        || (b.is_ascii_lowercase() && !matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'));
    bit_if(hash, 1)
}

/// Whether `run` can hold a resource id the extractor keeps (see
/// [`Piece::ResourceIdShape`]): a whole word that the pattern matches. Where it
/// cannot, the run is not searched. A byte outside ASCII next to a candidate may
/// be a character that ends a word, so it never rules one out.
pub(super) fn may_hold_resource_id(run: &[u8]) -> bool {
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
pub(super) const TOP_LEVEL_DOMAINS: [&str; 17] = [
    "com", "org", "net", "io", "dev", "app", "co", "me", "edu", "gov", "de", "uk", "fr", "jp",
    "kr", "cn", "ru",
];

/// Scans only the runs that hold all of `needs`, are at least `min_len` long and hold
/// `piece`: what a class's every match holds.
pub(super) fn scan_runs(
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
pub(super) struct Cover(pub(super) Option<TokenClass>);

impl Cover {
    pub(super) fn note(&mut self, run: &Run, found: &Found) {
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
    pub(super) fn passes_over(self, class: TokenClass) -> bool {
        use TokenClass::{Hex, Numbered, Uuid};
        self.0
            .is_some_and(|cover| class > cover || matches!(class, Uuid | Hex | Numbered))
    }
}

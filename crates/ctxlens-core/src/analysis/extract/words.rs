//! Words: where a token stands whole in a text (the rule the extractor and the
//! survival check share), the runs of word characters a text is indexed by, and word
//! counts (Unicode words; the ASCII bit masks of `word_masks.rs` beside them).

use super::*;

/// Scripts written without spaces between words (and Hangul, whose particles attach to
/// the word before): next to an ASCII token they do not continue it.
pub(super) fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3040..=0x30FF | 0x3130..=0x318F | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Characters that continue a word on either side of a token.
/// A character that glues to a token next to it: a token is a whole word only with
/// none of these on either side.
pub(crate) fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_' || c == '-';
    }
    (c.is_alphanumeric() && !is_unspaced_script(c)) || c == '_' || c == '-'
}

/// Whether a whole word of a token of `class` may start at `start`: the character
/// before it (if any) does not continue it.
pub(super) fn starts_a_word(text: &str, start: usize, class: TokenClass) -> bool {
    let before = text[..start].chars().next_back();
    !before.is_some_and(|c| is_word_char(c) || (class.is_pathlike() && matches!(c, '/' | '.')))
}

/// Whether `text[start..end]` stands as a whole word for a token of `class` (docs/signals.md).
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

/// The stretches of word characters (see [`is_word_char`]) in `text[range]`, which
/// starts and ends at characters' boundaries, each with what all of its bytes are and
/// what any of them is ([`segment_byte`]). ASCII is read a byte at a time from a table;
/// a character outside it is decoded (it is a word character or not, and no hex digit).
pub(super) fn word_segments(text: &str, range: Span) -> impl Iterator<Item = (Span, u8, u8)> + '_ {
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
pub(crate) fn word_runs_at(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    word_segments(text, 0..text.len())
        .filter_map(move |(run, _, _)| Some((run.start, text.get(run)?)))
}

/// [`word_runs_at`] from the last run to the first.
pub(crate) fn word_runs_from_last(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
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
pub(crate) fn is_ascii_word_byte(b: u8) -> bool {
    byte_in(&SEGMENT_BYTES, b) & segment_byte::WORD != 0
}

/// What an ASCII byte is to [`word_segments`].
pub(super) mod segment_byte {
    /// A word character ([`super::is_word_char`]).
    pub(crate) const WORD: u8 = 1;
    pub(crate) const HEX: u8 = 2;
    pub(crate) const DIGIT: u8 = 4;
    pub(crate) const LETTER: u8 = 8;

    pub(crate) const fn of(b: u8) -> u8 {
        match b {
            b'0'..=b'9' => WORD | HEX | DIGIT,
            b'a'..=b'f' | b'A'..=b'F' => WORD | HEX | LETTER,
            b'g'..=b'z' | b'G'..=b'Z' => WORD | LETTER,
            b'_' | b'-' => WORD,
            _ => 0,
        }
    }
}

pub(super) static SEGMENT_BYTES: [u8; 256] = byte_table!(segment_byte::of);

/// Words by Unicode word segmentation (UAX #29), counting only segments that hold a
/// letter or digit (docs/signals.md): CJK text counts by its words, not by its spaces.
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
pub(super) fn ascii_word_count(bytes: &[u8]) -> u64 {
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
pub(super) fn underscore_words(bytes: &[u8]) -> u64 {
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

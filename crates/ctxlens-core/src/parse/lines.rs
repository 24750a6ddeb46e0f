//! One line of a log as the parsers take it, and reading a line's JSON: pure functions
//! of bytes. Reading lines from a file is the caller's (`ingest::lines::LineReader`).

/// Lines longer than this are skipped with a malformed-line record (they would take
/// memory in proportion to their size, and no real record is this long).
pub const MAX_LINE: usize = 64 << 20;

/// `bytes` read as JSON, as `serde_json::from_slice` reads them: checked as UTF-8
/// whole first, then read as a `str`, so that its keys and values are not each checked
/// as they are read (a check for every string, most of them a few bytes, cost more
/// than the line's). Bytes that are not UTF-8 are read straight, for the same value or
/// error (a string serde skips is never checked).
pub fn from_json<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A raw log line read again from the file (for display, for the declared-token pass)
/// as JSON, the way the line reader gives it to the parsers: lone surrogates repaired,
/// a leading byte order mark skipped.
pub fn json_record(bytes: &[u8]) -> serde_json::Result<serde_json::Value> {
    let mut repaired = bytes.to_vec();
    repair_lone_surrogates(&mut repaired);
    let bytes = repaired.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&repaired);
    from_json(bytes)
}

/// Replaces every `\uD800`-`\uDFFF` escape that is not half of a valid pair with
/// `\uFFFD`, in place (the same six bytes): Node's `JSON.stringify` writes them for an
/// emoji cut in half, and the JSON parser would otherwise reject the whole record.
pub fn repair_lone_surrogates(bytes: &mut [u8]) {
    let found: Vec<usize> = lone_surrogates(bytes).collect();
    for at in found {
        if let Some(hex) = bytes.get_mut(at + 2..at + 6) {
            hex.copy_from_slice(b"fffd");
        }
    }
}

/// Where each escape [`repair_lone_surrogates`] replaces starts, in order. Replacing
/// one changes only its four hex digits, which no later step reads.
pub fn lone_surrogates(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let escape_at = |at: usize| -> Option<u16> {
        let hex = bytes.get(at + 2..at + 6)?;
        if bytes.get(at..at + 2)? != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            let i = at + found;
            match bytes.get(i + 1) {
                Some(b'u') => {
                    at = i + 2;
                    match escape_at(i) {
                        Some(0xd800..=0xdbff) => {
                            if matches!(escape_at(i + 6), Some(0xdc00..=0xdfff)) {
                                at = i + 12;
                                continue;
                            }
                            return Some(i);
                        }
                        Some(0xdc00..=0xdfff) => return Some(i),
                        _ => {}
                    }
                }
                // Any other escape (`\\` included) is two bytes.
                Some(_) => at = i + 2,
                None => return None,
            }
        }
        None
    })
}

/// One line as read: without its newline (and without a `\r` before it).
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based.
    pub number: u64,
    /// 0-based byte offset of the first byte.
    pub offset: u64,
    /// The line's bytes, without the newline.
    pub bytes: &'a [u8],
    /// Bytes the line takes in the file, newline included.
    pub span: u64,
    /// False for a last line that has no newline yet.
    pub terminated: bool,
    /// Longer than the line cap: consumed, not loaded (`bytes` is empty).
    pub oversized: bool,
}

impl Line<'_> {
    /// The span as an event keeps it: a line an event is read from is under the line
    /// cap, far below 4 GiB.
    pub fn span_u32(&self) -> u32 {
        u32::try_from(self.span).unwrap_or(u32::MAX)
    }
}

/// A line's record: without the newline that ends it (and a `\r` before it), and
/// without the UTF-8 byte order mark that opens some files.
pub fn record_bytes(line: &[u8], offset: u64, terminated: bool) -> &[u8] {
    let mut bytes = line;
    if terminated {
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    }
    if offset == 0 {
        bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    }
    bytes
}

//! A rare piece of each of a few tokens, for a first search of many texts: a text
//! that holds a token holds its piece, and most texts hold none of the pieces.
//!
//! A search for several strings at once (the packed searcher of `aho-corasick`)
//! stops wherever the first bytes of one of them stand, and checks the rest there.
//! Tokens often start alike and like much else in a log (`https://ci.`, `arn:aws:`,
//! `/srv/app/`): searched for whole, they stop the search at every URL, ARN and path.
//! Their rarest pieces, by a count of the log's own bytes, stop it a hundred times
//! less often.

/// Bytes whose count in the sample ranks a piece: the first bytes the search stops at.
const FINGERPRINT: usize = 4;

/// Bytes of a piece: enough that most of the places the search stops at are let go.
const PIECE_BYTES: usize = 8;

/// Bytes of the log whose 4-byte windows are counted: a sample, read once.
pub const SAMPLE_BYTES: usize = 32 << 10;

/// Buckets of the sample's counts (by a hash of the four bytes; a bucket two windows
/// share counts both, which only makes a piece look more common than it is).
const BUCKETS: usize = 1 << 16;

/// For each of `tokens`, the piece of it a text is first searched for: the one whose
/// first [`FINGERPRINT`] bytes stand least often in `sample`, then whose bytes are the
/// rarest kind (digits, then other signs, then lowercase letters; separators last),
/// then the last; and up to [`PIECE_BYTES`] of the token from there. A token shorter
/// than the fingerprint is its own piece.
pub fn rare_pieces<'t>(tokens: &[&'t [u8]], sample: &[u8]) -> Vec<&'t [u8]> {
    let counts = window_counts(sample);
    tokens
        .iter()
        .map(|&token| {
            let Some(last) = token.len().checked_sub(FINGERPRINT) else {
                return token;
            };
            let rank = |at: &usize| {
                let window = token.get(*at..*at + FINGERPRINT).unwrap_or_default();
                let seen = counts.get(bucket(window)).copied().unwrap_or(0);
                let kind: u32 = window.iter().map(|&b| rarity(b)).sum();
                (std::cmp::Reverse(seen), kind, *at)
            };
            let at = (0..=last).max_by_key(rank).unwrap_or(0);
            let end = (at + PIECE_BYTES).min(token.len());
            token.get(at..end).unwrap_or(token)
        })
        .collect()
}

/// How rare a byte is in prose and logs, by its kind.
fn rarity(b: u8) -> u32 {
    match b {
        b'0'..=b'9' => 3,
        b'a'..=b'z' => 1,
        b'/' | b'.' | b':' | b'-' | b'_' | b' ' | b'"' | b',' => 0,
        _ => 2,
    }
}

/// The count of each bucket's 4-byte windows in `sample`.
fn window_counts(sample: &[u8]) -> Vec<u16> {
    let mut counts = vec![0u16; BUCKETS];
    for window in sample.windows(FINGERPRINT) {
        if let Some(count) = counts.get_mut(bucket(window)) {
            *count = count.saturating_add(1);
        }
    }
    counts
}

/// The bucket of a window of [`FINGERPRINT`] bytes (a multiplicative hash).
fn bucket(window: &[u8]) -> usize {
    let mut four = [0u8; FINGERPRINT];
    for (slot, &b) in four.iter_mut().zip(window) {
        *slot = b;
    }
    let hash = u32::from_le_bytes(four).wrapping_mul(0x9E37_79B1);
    (hash >> (32 - BUCKETS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_piece_is_where_the_sample_has_its_bytes_least() {
        let sample = b"see https://ci.example.com/runs/12 and https://ci.example.com/runs/34 \
                       arn:aws:rds:us-east-1:123456789012:snapshot:snap-0a1b2c3d4e5f6a7b";
        let tokens: [&[u8]; 3] = [
            b"https://ci.example.com/runs/9986",
            b"arn:aws:rds:us-east-1:123456789012:snapshot:snap-6b85261d4ad14cd9",
            b"ab",
        ];
        let pieces = rare_pieces(&tokens, sample);
        // The run's number, not the scheme and host every URL shares; the snapshot's
        // digits, not the account every ARN of the log names; a short token whole.
        assert_eq!(pieces, [&b"9986"[..], b"5261d4ad", b"ab"]);
    }

    proptest! {
        /// Each piece lies in its token: a text that holds a token holds its piece.
        #[test]
        fn a_piece_lies_in_its_token(
            tokens in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 1..8),
            sample in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let tokens: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
            for (piece, token) in rare_pieces(&tokens, &sample).iter().zip(&tokens) {
                let within = |at: usize| token.get(at..at + piece.len()) == Some(*piece);
                prop_assert!((0..=token.len()).any(within));
                prop_assert!(piece.len() >= token.len().min(FINGERPRINT));
                prop_assert!(piece.len() <= PIECE_BYTES.max(token.len().min(FINGERPRINT)));
            }
        }
    }
}

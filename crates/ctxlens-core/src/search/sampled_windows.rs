//! Every place where one of many tokens occurs in a text, found by looking at only one
//! place in every few bytes. The declared-token pass asks this of every region line;
//! an automaton of a session's thousand declared tokens read every byte through a
//! table larger than the cache.
//!
//! An occurrence of a token of at least `width + step - 1` bytes (every token is)
//! spans `step` places in a row where a window of `width` of its bytes starts, one
//! in each residue of `step`: looking at every `step`-th place, a token needs one
//! window per residue. Each token keeps, in each residue, the window that the fewest
//! other tokens hold. A look is a hashed bit (the bits fit the cache, and most looks
//! end there), then the windows of that value and a comparison with the whole token.

use crate::model::FastMap;

/// Windows are at most a `u64`.
const WIDEST: usize = 8;
/// Below this a window says too little of a text to pass over most of it.
const NARROWEST: usize = 4;
/// Places looked at: one in this many at the most.
const LONGEST_STEP: usize = 8;
/// Tokens' bytes, in all, past which an automaton searches for them: what bounds the
/// memory of the windows (about 20 bytes a kept window, at most a window a byte).
const MOST_BYTES: usize = 1 << 20;

/// Many tokens, each kept as a few of its windows, to find in texts by looking at one
/// place in every few bytes.
pub struct SampledWindows {
    tokens: Vec<Box<[u8]>>,
    /// Each token's last [`WIDEST`] bytes ([`tail`]), compared before
    /// the whole token: tokens that share a kept window (URLs and paths of one host or
    /// folder, names with one prefix) are mostly told apart by their ends.
    tails: Vec<u64>,
    /// The longest token's length.
    longest: usize,
    width: usize,
    step: usize,
    /// The low `width` bytes of a `u64`.
    mask: u64,
    /// A bit per hashed window value that some token keeps.
    bits: Vec<u64>,
    shift: u32,
    /// The kept windows (the value, the token and where it stands in it), by the
    /// bucket of the value: bucket `b`'s are `kept[starts[b]..starts[b + 1]]`.
    kept: Vec<(u64, u32, u32)>,
    starts: Vec<u32>,
    bucket_shift: u32,
}

impl SampledWindows {
    /// `None` when a token is shorter than [`NARROWEST`], there are none, or their
    /// bytes are more than [`MOST_BYTES`]: an automaton is better for them.
    pub fn new(tokens: &[&str]) -> Option<SampledWindows> {
        let shortest = tokens.iter().map(|t| t.len()).min()?;
        let bytes: usize = tokens.iter().map(|t| t.len()).sum();
        if shortest < NARROWEST || bytes > MOST_BYTES {
            return None;
        }
        let width = shortest.min(WIDEST);
        let step = (shortest - width + 1).min(LONGEST_STEP);
        let mask = if width == WIDEST {
            u64::MAX
        } else {
            (1u64 << (8 * width)) - 1
        };
        let value_at = |token: &[u8], at: usize| window(token, at, mask);
        // How many tokens hold each window value: a token keeps its rarest.
        let mut holders: FastMap<u64, u32> = FastMap::default();
        for token in tokens {
            let token = token.as_bytes();
            let mut values: Vec<u64> = (0..=token.len() - width)
                .map(|at| value_at(token, at))
                .collect();
            values.sort_unstable();
            values.dedup();
            for value in values {
                *holders.entry(value).or_default() += 1;
            }
        }
        let mut kept: Vec<(u64, u32, u32)> = Vec::with_capacity(tokens.len() * step);
        for (index, token) in tokens.iter().enumerate() {
            let token = token.as_bytes();
            for residue in 0..step {
                let rarest = (residue..=token.len() - width)
                    .step_by(step)
                    .min_by_key(|&at| holders.get(&value_at(token, at)).copied());
                if let Some(at) = rarest {
                    // Under MOST_BYTES: the index and the place fit.
                    kept.push((value_at(token, at), index as u32, at as u32));
                }
            }
        }
        // A bucket per kept window or so: a look that passes the bit reads one or two.
        let buckets = kept.len().next_power_of_two();
        let bucket_shift = 64 - buckets.trailing_zeros();
        kept.sort_unstable_by_key(|&(value, ..)| hashed(value, bucket_shift));
        let starts = (0..=buckets)
            .map(|b| kept.partition_point(|&(value, ..)| hashed(value, bucket_shift) < b) as u32)
            .collect();
        // About 32 bits per kept window: few looks at other text pass the bit.
        let bit_count = (kept.len() * 32)
            .next_power_of_two()
            .clamp(1 << 12, 1 << 22);
        let shift = 64 - bit_count.trailing_zeros();
        let mut bits = vec![0u64; bit_count / 64];
        for &(value, _, _) in &kept {
            let bit = hashed(value, shift);
            if let Some(word) = bits.get_mut(bit / 64) {
                *word |= 1 << (bit % 64);
            }
        }
        Some(SampledWindows {
            tokens: tokens.iter().map(|t| Box::from(t.as_bytes())).collect(),
            tails: tokens.iter().map(|t| tail(t.as_bytes())).collect(),
            longest: tokens.iter().map(|t| t.len()).max().unwrap_or(0),
            width,
            step,
            mask,
            bits,
            shift,
            kept,
            starts,
            bucket_shift,
        })
    }

    /// Whether any token occurs in `bytes`.
    #[cfg(test)]
    pub fn holds_any(&self, bytes: &[u8]) -> bool {
        self.first_start(bytes).is_some()
    }

    /// `None` if no token occurs in `bytes`; else a place before which none starts.
    /// The look stops at the first occurrence found: every occurrence is found at the
    /// place of one of its kept windows, so one that starts a token's length or more
    /// before that place would have been found before it.
    pub fn first_start(&self, bytes: &[u8]) -> Option<usize> {
        let place = self.each_occurrence(bytes, |_| true)?;
        Some(place.saturating_sub(self.longest))
    }

    /// Every occurrence of every token in `bytes` from `from` on (start and end), by
    /// start, then by end.
    pub fn occurrences_from(&self, bytes: &[u8], from: usize) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let rest = bytes.get(from..).unwrap_or_default();
        self.each_occurrence(rest, |found| {
            out.push(found.start + from..found.end + from);
            false
        });
        out.sort_unstable_by_key(|found| (found.start, found.end));
        out
    }

    /// Every occurrence of every token in `bytes` (start and end), by start, then
    /// by end.
    #[cfg(test)]
    pub fn occurrences(&self, bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
        self.occurrences_from(bytes, 0)
    }

    /// Calls `found` with each occurrence (each once, in no order) until it answers
    /// true; the place looked at when it did.
    fn each_occurrence(
        &self,
        bytes: &[u8],
        mut found: impl FnMut(std::ops::Range<usize>) -> bool,
    ) -> Option<usize> {
        let last = bytes.len().checked_sub(self.width)?;
        let mut at = 0;
        while at <= last {
            let (place, value) = self.next_set(bytes, at, last)?;
            if self.occurrences_at(bytes, place, value, &mut found) {
                return Some(place);
            }
            at = place + self.step;
        }
        None
    }

    /// The first place from `at` (in steps, up to `last`) whose window's bit is set,
    /// and the window. Most places stop at the bit: a loop of its own, where the
    /// window is read whole.
    fn next_set(&self, bytes: &[u8], mut at: usize, last: usize) -> Option<(usize, u64)> {
        let is_set = |value: u64| {
            // `shift` is 42 to 52 (see `new`): the shift needs no check.
            let bit = (value.wrapping_mul(HASH_FACTOR) >> (self.shift & 63)) as usize;
            self.bits
                .get(bit / 64)
                .is_some_and(|word| word & (1 << (bit % 64)) != 0)
        };
        // Windows whose eight bytes lie in `bytes`.
        while let Some(eight) = bytes
            .get(at..)
            .and_then(|rest| rest.first_chunk::<WIDEST>())
        {
            if at > last {
                return None;
            }
            let value = u64::from_le_bytes(*eight) & self.mask;
            if is_set(value) {
                return Some((at, value));
            }
            at += self.step;
        }
        while at <= last {
            let value = window(bytes, at, self.mask);
            if is_set(value) {
                return Some((at, value));
            }
            at += self.step;
        }
        None
    }

    /// Calls `found` with each occurrence that holds the kept window `value` at `at`
    /// until it answers true; whether it did.
    fn occurrences_at(
        &self,
        bytes: &[u8],
        at: usize,
        value: u64,
        found: &mut impl FnMut(std::ops::Range<usize>) -> bool,
    ) -> bool {
        for &(_, token, offset) in self.bucket_of(value).iter().filter(|kept| kept.0 == value) {
            let Some(start) = at.checked_sub(offset as usize) else {
                continue;
            };
            let (Some(text), Some(&text_tail)) = (
                self.tokens.get(token as usize),
                self.tails.get(token as usize),
            ) else {
                continue;
            };
            let end = start + text.len();
            let Some(here) = bytes.get(start..end) else {
                continue;
            };
            if tail(here) == text_tail && here == &text[..] && found(start..end) {
                return true;
            }
        }
        false
    }

    /// The kept windows in the bucket of `value`.
    fn bucket_of(&self, value: u64) -> &[(u64, u32, u32)] {
        let bucket = hashed(value, self.bucket_shift);
        let at = |b: usize| self.starts.get(b).map_or(0, |&start| start as usize);
        self.kept
            .get(at(bucket)..at(bucket + 1))
            .unwrap_or_default()
    }
}

/// The last [`WIDEST`] bytes of `bytes` (all of a shorter one) as a `u64`.
fn tail(bytes: &[u8]) -> u64 {
    window(bytes, bytes.len().saturating_sub(WIDEST), u64::MAX)
}

/// The bytes of `bytes` from `at`, up to 8 of them, as a little-endian `u64` cut by
/// `mask` (zeros past the end).
fn window(bytes: &[u8], at: usize, mask: u64) -> u64 {
    let value = match bytes.get(at..at + WIDEST) {
        Some(eight) => {
            let mut word = [0u8; WIDEST];
            word.copy_from_slice(eight);
            u64::from_le_bytes(word)
        }
        None => {
            let mut word = [0u8; WIDEST];
            let rest = bytes.get(at..).unwrap_or_default();
            for (to, from) in word.iter_mut().zip(rest) {
                *to = *from;
            }
            u64::from_le_bytes(word)
        }
    };
    value & mask
}

/// The multiplier of the windows' hash (Fibonacci hashing).
const HASH_FACTOR: u64 = 0x9e37_79b9_7f4a_7c15;

/// The top `64 - shift` bits of a multiplicative hash of a window value (none: 0).
fn hashed(value: u64, shift: u32) -> usize {
    let hash = value.wrapping_mul(HASH_FACTOR);
    hash.checked_shr(shift).unwrap_or(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence, by a search of every place for every token.
    fn by_every_place(tokens: &[&str], text: &str) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        for start in 0..text.len() {
            for token in tokens {
                if text
                    .as_bytes()
                    .get(start..)
                    .is_some_and(|rest| rest.starts_with(token.as_bytes()))
                {
                    out.push(start..start + token.len());
                }
            }
        }
        out.sort_unstable_by_key(|found| (found.start, found.end));
        out
    }

    #[test]
    fn short_tokens_and_too_many_bytes_are_left_to_an_automaton() {
        assert!(SampledWindows::new(&["abc", "deploy-4f2a9"]).is_none());
        assert!(SampledWindows::new(&[]).is_none());
        assert!(SampledWindows::new(&["abcd"]).is_some());
        let long = "x".repeat(MOST_BYTES + 1);
        assert!(SampledWindows::new(&[long.as_str()]).is_none());
    }

    #[test]
    fn tokens_that_share_most_of_their_windows_are_each_found() {
        // Paths differ only in a few bytes: each keeps the windows the others lack.
        let tokens: Vec<String> = (0..200)
            .map(|i| format!("/srv/app/releases/r{i}/config.yaml"))
            .collect();
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let windows = SampledWindows::new(&tokens).unwrap();
        let text = "see /srv/app/releases/r17/config.yaml and /srv/app/releases/r170/config.yaml";
        assert_eq!(
            windows.occurrences(text.as_bytes()),
            by_every_place(&tokens, text)
        );
        assert!(windows.holds_any(text.as_bytes()));
        assert!(!windows.holds_any(b"/srv/app/releases/r9999/config.yaml"));
    }

    /// A text made of junk and tokens, whole or cut short, so that occurrences and
    /// near misses stand at every offset.
    fn text_of(tokens: &[&str], pieces: &[(usize, usize, String)]) -> String {
        let mut text = String::new();
        for (index, cut, junk) in pieces {
            text.push_str(junk);
            let token = tokens[index % tokens.len()];
            text.push_str(token.get(..*cut).unwrap_or(token));
        }
        text
    }

    proptest::proptest! {
        /// Looking at one place in every few finds what looking at every place finds.
        #[test]
        fn sampled_places_find_every_occurrence(
            tokens in proptest::collection::btree_set("[ab-]{4,22}|é[ab]{2,9}", 1..8),
            pieces in proptest::collection::vec((0usize..8, 0usize..24, "[ab é-]{0,5}"), 0..10),
        ) {
            let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let text = text_of(&tokens, &pieces);
            let windows = SampledWindows::new(&tokens).unwrap();
            let every = by_every_place(&tokens, &text);
            proptest::prop_assert_eq!(windows.holds_any(text.as_bytes()), !every.is_empty());
            proptest::prop_assert_eq!(&windows.occurrences(text.as_bytes()), &every);
            // No occurrence starts before the place the first look gives.
            if let Some(from) = windows.first_start(text.as_bytes()) {
                proptest::prop_assert!(every.iter().all(|found| found.start >= from));
                proptest::prop_assert_eq!(windows.occurrences_from(text.as_bytes(), from), every);
            }
        }
    }
}

//! Which of 64 ASCII bytes are letters, digits, word bytes and the middle bytes that
//! join words, one bit a byte: what the ASCII word count reads (see
//! `tokens::ascii_word_count`). Sixteen bytes are compared at once where the target has
//! SSE2 (every x86-64 processor), which beats a loop over bytes; elsewhere each byte is
//! worked out in turn.

/// A bit per byte of a block of 64, byte `i` at bit `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct WordMasks {
    /// Letters, digits and `_`.
    pub word: u64,
    pub letter: u64,
    pub digit: u64,
    /// `:` `.` `'`: they join two letters.
    pub mid_letters: u64,
    /// `,` `;` `.` `'`: they join two digits.
    pub mid_digits: u64,
}

pub(super) const BLOCK: usize = 64;

/// A byte of a word: a letter, a digit or `_`.
pub(super) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl WordMasks {
    /// The masks of `block`. Inlined: it runs once a block, and a call kept its
    /// constants and its result in memory.
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ))]
    #[inline(always)]
    pub(super) fn of(block: &[u8; BLOCK]) -> WordMasks {
        let mut masks = WordMasks::default();
        let (parts, _) = block.as_chunks::<16>();
        for (i, part) in parts.iter().enumerate() {
            sse2::add(part, 16 * i, &mut masks);
        }
        masks
    }

    /// The masks of `block`.
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    )))]
    pub fn of(block: &[u8; BLOCK]) -> WordMasks {
        WordMasks::byte_by_byte(block)
    }

    /// The masks of `block`, a byte at a time: the definition the vector code keeps
    /// (tested against it), and the code where there is none.
    #[cfg(any(
        test,
        not(all(
            any(target_arch = "x86", target_arch = "x86_64"),
            target_feature = "sse2"
        ))
    ))]
    pub(super) fn byte_by_byte(block: &[u8; BLOCK]) -> WordMasks {
        let mut masks = WordMasks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            let letter = b.is_ascii_alphabetic();
            let digit = b.is_ascii_digit();
            let set = |mask: &mut u64, yes: bool| *mask |= if yes { bit } else { 0 };
            set(&mut masks.letter, letter);
            set(&mut masks.digit, digit);
            set(&mut masks.word, letter || digit || b == b'_');
            set(&mut masks.mid_letters, matches!(b, b':' | b'.' | b'\''));
            set(
                &mut masks.mid_digits,
                matches!(b, b',' | b';' | b'.' | b'\''),
            );
        }
        masks
    }

    /// How many words start in this block, `before` being the block before it (or
    /// none: all zero). A word starts at a word byte that neither follows a word byte
    /// nor is joined to the word before it across one middle byte (a letter, a middle
    /// byte for letters, a letter; the same for digits).
    pub(super) fn starts_after(&self, before: &WordMasks) -> u32 {
        let back = |now: u64, then: u64, by: u32| (now << by) | (then >> (64 - by));
        let word_before = back(self.word, before.word, 1);
        let letter_two_back = back(self.letter, before.letter, 2);
        let digit_two_back = back(self.digit, before.digit, 2);
        let joined =
            (self.letter & back(self.mid_letters, before.mid_letters, 1) & letter_two_back)
                | (self.digit & back(self.mid_digits, before.mid_digits, 1) & digit_two_back);
        (self.word & !word_before & !joined).count_ones()
    }

    /// Whether the block holds a `_`: a word byte that is no letter or digit.
    pub(super) fn holds_underscore(&self) -> bool {
        self.word & !(self.letter | self.digit) != 0
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
mod sse2 {
    use safe_arch::{
        add_i8_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    /// Bytes `from..from + count` shifted to the bottom of the signed range: below
    /// `count - 128` exactly there (SSE2 compares bytes as signed only).
    fn in_range(v: m128i, from: u8, count: u8) -> m128i {
        let to_bottom = set_splat_i8_m128i(0x80u8.wrapping_sub(from) as i8);
        let bound = set_splat_i8_m128i(count.wrapping_sub(0x80) as i8);
        cmp_lt_mask_i8_m128i(add_i8_m128i(v, to_bottom), bound)
    }

    /// Adds the kinds of 16 bytes to `masks`, from bit `shift` on.
    #[inline(always)]
    pub(super) fn add(bytes: &[u8; 16], shift: usize, masks: &mut super::WordMasks) {
        let v = load_unaligned_m128i(bytes);
        let is = |b: u8| cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b as i8));
        // `| 0x20` folds upper-case letters onto lower-case ones, and no other byte
        // onto a letter.
        let letter = in_range(bitor_m128i(v, set_splat_i8_m128i(0x20)), b'a', 26);
        let digit = in_range(v, b'0', 10);
        let word = bitor_m128i(bitor_m128i(letter, digit), is(b'_'));
        let mid_both = bitor_m128i(is(b'.'), is(b'\''));
        let mid_letters = bitor_m128i(mid_both, is(b':'));
        let mid_digits = bitor_m128i(mid_both, bitor_m128i(is(b','), is(b';')));
        let put = |mask: &mut u64, lanes: m128i| {
            *mask |= u64::from(move_mask_i8_m128i(lanes) as u16) << shift;
        };
        put(&mut masks.word, word);
        put(&mut masks.letter, letter);
        put(&mut masks.digit, digit);
        put(&mut masks.mid_letters, mid_letters);
        put(&mut masks.mid_digits, mid_digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// The vector code gives the masks the definition does, on any bytes (those
        /// past ASCII included: the count never hands it one, but nothing may hang
        /// on that).
        #[test]
        fn masks_are_the_definitions(block in proptest::array::uniform::<_, BLOCK>(proptest::num::u8::ANY)) {
            proptest::prop_assert_eq!(WordMasks::of(&block), WordMasks::byte_by_byte(&block));
        }
    }

    #[test]
    fn each_kind_at_its_bit() {
        let mut block = [b' '; BLOCK];
        for (at, b) in [
            (0, b'a'),
            (1, b'Z'),
            (2, b'7'),
            (3, b'_'),
            (4, b':'),
            (5, b','),
            (6, b'.'),
            (63, b'x'),
        ] {
            if let Some(slot) = block.get_mut(at) {
                *slot = b;
            }
        }
        let masks = WordMasks::of(&block);
        assert_eq!(masks.letter, 0b11 | 1 << 63);
        assert_eq!(masks.digit, 0b100);
        assert_eq!(masks.word, 0b1111 | 1 << 63);
        assert_eq!(masks.mid_letters, 0b101_0000);
        assert_eq!(masks.mid_digits, 0b110_0000);
        assert!(masks.holds_underscore());
    }
}
